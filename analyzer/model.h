/* model.h - one snapshot of records, digested for the analyses.
 *
 * The model builder streams the records once. It keeps per-VMA summaries, resident-map runs
 * (merged by map character, so memory follows the number of distinct runs, not the pages)
 * and one table of distinct PFNs; it never keeps the mapping records themselves. Analyses
 * (analyzer/an_*.c) are pure functions from a model to tables.
 */
#ifndef PAGESLEUTH_MODEL_H
#define PAGESLEUTH_MODEL_H

#include "records.h"
#include "table.h"
#include "trace_model.h"

#define NO_UNIT UINT32_MAX

/* A run of resident-map characters: pages [first, first+count) of a VMA show `ch`. */
struct map_run {
	uint64_t first, count;
	char ch;
};

struct vma_info {
	struct ps_vma v;         /* path and unit point at the strings below */
	char *path;
	uint32_t unit;           /* index into model.units, NO_UNIT if none */
	struct ps_vma_sum sum;   /* from the page runs, or from the sum record alone */
	bool have_runs, have_sum_record;
	uint64_t cow;            /* anonymous pages inside a file-backed VMA */
	uint64_t pfn_hidden;     /* resident pages whose PFN the source could not see */
	uint64_t mapcount_hidden;/* resident pages without a mapcount (PSS/USS from the sum record) */
	bool pss_from_sum;       /* ... and the sum record gave them (smaps, a live snapshot without root) */
	bool accessed_hidden;    /* runs whose PTE accessed bit is unknown (live): referenced from the sum record */
	struct map_run *runs;    /* resident map, when the model keeps maps */
	size_t nruns, capruns;
};

struct proc {
	uint64_t mm_id, tgid, pid;    /* pid: the lowest thread id seen */
	char *comm, *exe;
	uint32_t nthreads;
	uint64_t minflt, majflt, utime, stime; /* summed over threads */
	uint64_t rss_file, rss_anon, rss_shmem, rss_swap;
	uint64_t start_brk, brk, start_stack, total_vm;
	bool exiting;
	bool gone;               /* exited while the source read it (warn kind=gone): left out */
	struct vma_info *vmas;
	size_t nvmas, capvmas;
};

/* Open-addressing set of the distinct PFNs mapped by user space, in aligned blocks of 64
 * frames with a bit per frame: one lookup per page run (not per page), and at most 16 bytes
 * per distinct PFN (much less when neighbouring frames are mapped, as they usually are). */
struct pfn_block {
	uint64_t block_plus1; /* pfn / 64 + 1; 0 = empty slot */
	uint64_t bits;        /* bit i: frame block * 64 + i is mapped */
};

struct pfn_table {
	struct pfn_block *slots;
	size_t cap, nblocks;
	uint64_t used;        /* distinct PFNs */
	/* Runs longer than PFN_LONG_RUN frames are counted by their length, not frame by frame:
	 * a record may claim 2^35 frames in one line, and their bitmaps would take gigabytes.
	 * Their frames are not deduplicated against other mappings (a model warning says so). */
	uint64_t long_runs, long_run_pages, long_first_pfn, long_first_pages;
};
#define PFN_LONG_RUN (UINT64_C(1) << 22) /* 16 GiB of 4 KiB frames in one run of one mapping */

/* What the thrashing analysis needs from each snapshot of a stream. */
struct proc_history {
	uint64_t seq, tgid, majflt, minflt, resident, referenced;
	char comm[32];
};

/* One of the kernel's own counters (counter records, 1.2), owned copies. */
struct kcounter {
	char *set, *name, *zone; /* zone "" when not per zone */
	uint64_t node, value;    /* PS_UNKNOWN: not per node / unknown */
};

struct model {
	/* header identity (owned copies) */
	char *source, *arch, *release, *dump, *dump_id, *time, *excluded, *pids, *tool;
	char *tags;             /* the header's tags=: "KEY=VALUE,..." (NULL if none) */
	uint32_t page_size;
	unsigned page_shift;
	uint64_t seq, snapshots;
	char *snapshot_time;

	struct proc *procs;
	size_t nprocs, capprocs;
	char **units;           /* executable units by index */
	size_t nunits, capunits;
	struct pfn_table pfns;
	/* Distinct PFNs credited to the unit/kind that mapped them first: [unit][kind]. */
	uint64_t *unit_phys;
	/* Pages seen in hot records that no PFN identifies (hidden PFNs), swap, unknown. */
	uint64_t pfn_hidden_pages, swapped_pages, unknown_pages, excluded_pages;
	uint64_t distinct_anon; /* distinct PFNs whose first mapping was an anonymous page */
	uint64_t distinct_anon_hugetlb; /* ... of them hugetlb pages (not in AnonPages) */
	uint64_t sum_only_pages; /* resident pages known only from sum records (no page runs) */

	struct kcounter *counters; /* the snapshot's counter records, in file order */
	size_t ncounters, capcounters;
	/* The pass over all of RAM (f and owner records, 1.2): frames per class, and per owner
	 * id (index = id; name NULL when no owner record declared it). */
	bool have_frames;
	uint64_t frames[PS_FC_COUNT];
	struct frame_owner { char *kind, *name; uint64_t frames; enum ps_frame_class cls; } *owners;
	size_t nowners;
	/* PFN order; one class and owner (an owners[] index, PS_UNKNOWN: none) each */
	struct frame_run { uint64_t pfn, npages; enum ps_frame_class cls; uint64_t owner; } *fruns;
	size_t nfruns, capfruns;
	/* /proc/slabinfo (slab records, 1.2) */
	struct slab_info { char *name; uint64_t active_objs, num_objs, objsize, objperslab, pagesperslab, num_slabs; } *slabs;
	size_t nslabs, capslabs;
	/* The kernel log (log records, 1.2), oldest first. */
	struct log_line { uint64_t seq, ts_nsec, level; char *text; } *logs;
	size_t nlogs, caplogs;

	bool complete;          /* the snapshot had an end record with status=complete */
	char *partial_why;      /* reasons, one per line */
	char *warnings;

	struct proc_history *history; /* every snapshot of the stream, for thrashing */
	size_t nhistory, caphistory;

	/* The trace records of the whole file (they belong to no snapshot). */
	struct trace_model trace;
};

struct model_options {
	bool keep_maps;         /* build resident-map runs (resmap, unitmap) */
	int64_t snapshot;       /* which snapshot to keep: -1 = the last one */
	/* Called for every page run as it streams past (the page dump); may be NULL. */
	void (*on_run)(void *ctx, const struct model *m, const struct proc *p,
		       const struct vma_info *v, const struct ps_map *run);
	void *on_run_ctx;
	/* Called as each snapshot of the stream ends (every one, not only the kept one), with a
	 * model holding the header and that snapshot; it is freed afterwards. May be NULL. */
	void (*on_snapshot)(void *ctx, const struct model *snapshot);
	void *on_snapshot_ctx;
};

/* Read a record file into *m. Returns 0, or -1 with *err set ("FILE:LINE: reason"). A file
 * that ends inside a snapshot loads fine but leaves m->complete false with a reason. A file
 * of trace records only (no snapshot) loads with m->snapshots == 0; a file with neither
 * snapshots nor trace records is an error. */
int model_load(struct model *m, const char *path, const struct model_options *opt, char **err);
/* The same from FD, uncompressed records read from its current offset (the crash extension's
 * temporary file); NAME names it in messages. FD stays open. */
int model_load_fd(struct model *m, int fd, const char *name, const struct model_options *opt,
		  char **err);
/* A counter of the kept snapshot by set and name (not per zone); false if absent/unknown. */
bool model_counter(const struct model *m, const char *set, const char *name, uint64_t *value);
void model_free(struct model *m);

const char *model_unit_name(const struct model *m, uint32_t unit);
/* Resident-map character for one run of pages. */
char model_map_char(const struct ps_map *run);
/* VMA flags as the maps show them: S stack, X application, B bss/heap, then rwxp. */
void model_vma_flags(const struct proc *p, const struct vma_info *v, char out[16]);
uint64_t model_vma_pages(const struct model *m, const struct vma_info *v);
/* Swapped-out pages of a VMA: its swap entries and its shmem pages swapped out (where known). */
uint64_t model_vma_swap(const struct vma_info *v);
/* Whole-process totals over its VMAs: vss in pages, pss in bytes << PS_PSS_SHIFT. */
struct proc_totals {
	uint64_t vss, rss, pss, uss, swap, referenced, anon;
	uint64_t shmem_swap;         /* part of swap: shmem pages swapped out (sum shmem_swap=, smaps) */
	uint64_t shmem_swap_unknown; /* VMAs whose swapped-out shmem the source could not tell */
};
void model_proc_totals(const struct model *m, const struct proc *p, struct proc_totals *t);
/* Whether a VMA's PSS and USS are known: its pages' mapcounts, or a summary that gave them
 * (a writer that saw no mapcounts writes 0 there: not known). */
static inline bool model_vma_pss_known(const struct vma_info *v)
{
	return !v->mapcount_hidden || v->pss_from_sum;
}
/* Copy the model's identity and partial state into a report. */
void model_describe(const struct model *m, struct report *r);

/* A unit's share of a VMA kind: 0 text, 1 data, 2 bss (the application's heap counts as its
 * bss, as in the original's "B"), -1 for kinds that belong to no unit's text/data/bss. */
int model_unit_class(enum ps_vma_kind kind);
/* Unit U's distinct physical pages by class (text, data, bss), as m->unit_phys credits them. */
void model_unit_phys(const struct model *m, uint32_t u, uint64_t phys[3]);
/* Mapped objects as librank groups them: by the mapping's path, anonymous mappings as
 * "[anon]"; totals over every process, sorted by PSS (largest first), then by name. */
struct mapped_object {
	const char *name;        /* owned by the set */
	uint64_t procs, vss, rss, pss, uss; /* pages; pss in bytes << PS_PSS_SHIFT */
	bool unknown;            /* a mapping whose PSS/USS nothing gave (model_vma_pss_known) */
};
struct mapped_objects {
	struct mapped_object *obj;
	size_t n;
	char **names;
};
void model_mapped_objects(const struct model *m, struct mapped_objects *out);
void model_mapped_objects_free(struct mapped_objects *o);
/* Kind groups used by the per-process summary and its chart. */
enum summary_group { SG_STACK, SG_HEAP_BSS, SG_DATA, SG_TEXT, SG_LIBDATA, SG_LIBTEXT,
		     SG_ANON, SG_FILE, SG_OTHER, SG_COUNT };
enum summary_group model_summary_group(enum ps_vma_kind kind);
const char *model_summary_group_name(enum summary_group g);

/* ---- analyses (analyzer/an_*.c): each adds its tables to the report --------------------- */
void an_ram(const struct model *m, struct report *r);        /* all of RAM: kernel counters */
void an_log(const struct model *m, struct report *r);        /* the kernel log's OOM/panic lines */
void an_overview(const struct model *m, struct report *r);   /* the answer first */
void an_summary(const struct model *m, struct report *r);    /* 1 */
void an_resmap(const struct model *m, struct report *r);     /* 2 */
void an_unitmap(const struct model *m, struct report *r);    /* 3 */
void an_unit_totals(const struct model *m, struct report *r);/* 4 */
void an_mixed(const struct model *m, struct report *r);      /* 5 */
void an_total(const struct model *m, struct report *r);      /* 6 */
/* 7: the page dump streams during model_load: see an_pages.c */
struct pages_dump;
struct pages_dump *an_pages_begin(void);
void an_pages_on_run(void *ctx, const struct model *m, const struct proc *p,
		     const struct vma_info *v, const struct ps_map *run);
void an_pages_finish(struct pages_dump *d, struct report *r);
void an_pss(const struct model *m, struct report *r);        /* 8 */
void an_thrash(const struct model *m, struct report *r);     /* 10 */
/* Trace analyses (docs/analyses.md): each adds its tables; an_trace_obj sorts by the
 * column named sort (NULL: the default) and returns -1 if there is no such column. */
void an_trace_ws(const struct model *m, struct report *r);        /* ws, marks */
void an_trace_ws_series(const struct model *m, struct report *r); /* ws-series */
void an_trace_peaks(const struct model *m, struct report *r);     /* peaks */
void an_trace_hot(const struct model *m, struct report *r);       /* hot */
int an_trace_obj(const struct model *m, const char *sort, struct report *r); /* obj */
void an_trace_alloc(const struct model *m, struct report *r);     /* alloc */
void an_wss(const struct model *m, struct report *r);             /* wss */
/* Cell (ROW, COL) of a trace table: frame F's function as trace_frame_fn shows it, the
 * model's string borrowed (see an_trace_hot.c), an address copied. */
static inline void an_set_frame_fn(struct table *t, size_t row, size_t col,
				   const struct trace_frame *f)
{
	char buf[24];
	const char *fn = trace_frame_fn(f, buf);
	if (fn == buf)
		table_set_str(t, row, col, buf);
	else
		table_set_str_ref(t, row, col, fn);
}
/* The obj table's columns, for --sort's help and check: "id, kind, name, ..." */
const char *an_trace_obj_columns(void);
/* 9: diff of two models */
void an_diff(const struct model *a, const struct model *b, struct report *r);

/* Emit the resident-map rows of one VMA into a STYLE_MAP table; the VMA column reads
 * vma_prefix followed by "start-end". */
void resmap_emit_vma(const struct model *m, const struct proc *p, const struct vma_info *v,
		     const char *group, const char *vma_prefix, struct table *t);

#endif
