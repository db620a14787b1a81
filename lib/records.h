/* records.h - read and write the pagesleuth record format (docs/record-format.md).
 *
 * Every source writes records through ps_writer and the analyzer reads them through
 * ps_reader; nothing else knows the text syntax. Errors are returned as values: a reader or
 * writer call that fails returns -1 and leaves "FILE:LINE: reason" in ps_*_error().
 */
#ifndef PAGESLEUTH_RECORDS_H
#define PAGESLEUTH_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PS_FORMAT_MAJOR 1
#define PS_FORMAT_MINOR 3
#define PS_MAGIC "pagesleuth-records"
#define PS_MAX_LINE 65535
#define PS_UNKNOWN UINT64_MAX /* a numeric field written as "-" */

/* PTE letters, in the order they appear in the 8-character PTE field. */
enum ps_pte_bit {
	PS_PTE_WRITE = 0,
	PS_PTE_EXEC,
	PS_PTE_USER,
	PS_PTE_ACCESSED,
	PS_PTE_DIRTY,
	PS_PTE_SOFTDIRTY,
	PS_PTE_EXCLUSIVE,
	PS_PTE_GLOBAL,
	PS_PTE_NBITS
};
#define PS_PTE_LETTERS "wxuadseg"

/* PTE attribute set: for each bit, whether it is set and whether it is known. */
struct ps_pte {
	uint8_t set;   /* bit i = letter i present */
	uint8_t known; /* bit i = letter i not '?' */
};

/* Page-flag bits: the kernel's /proc/kpageflags numbering (uapi kernel-page-flags.h), plus
 * bits pagesleuth defines for flags the kernel does not export. */
enum ps_page_flag {
	PS_PF_LOCKED = 0, PS_PF_ERROR = 1, PS_PF_REFERENCED = 2, PS_PF_UPTODATE = 3,
	PS_PF_DIRTY = 4, PS_PF_LRU = 5, PS_PF_ACTIVE = 6, PS_PF_SLAB = 7, PS_PF_WRITEBACK = 8,
	PS_PF_RECLAIM = 9, PS_PF_BUDDY = 10, PS_PF_MMAP = 11, PS_PF_ANON = 12,
	PS_PF_SWAPCACHE = 13, PS_PF_SWAPBACKED = 14, PS_PF_COMPOUND_HEAD = 15,
	PS_PF_COMPOUND_TAIL = 16, PS_PF_HUGE = 17, PS_PF_UNEVICTABLE = 18,
	PS_PF_HWPOISON = 19, PS_PF_NOPAGE = 20, PS_PF_KSM = 21, PS_PF_THP = 22,
	PS_PF_OFFLINE = 23, PS_PF_ZERO_PAGE = 24, PS_PF_IDLE = 25, PS_PF_PGTABLE = 26,
	PS_PF_MLOCKED = 33, PS_PF_MAPPEDTODISK = 34, PS_PF_PRIVATE = 35,
	PS_PF_PRIVATE_2 = 36, PS_PF_OWNER_PRIVATE = 37, PS_PF_SOFTDIRTY = 40,
	PS_PF_YOUNG = 48, /* pagesleuth: PG_young (page->flags or page_ext) */
};
#define PS_PF(bit) (UINT64_C(1) << (bit))

/* Name of a page-flag bit ("referenced"), or NULL for a bit with no name. */
const char *ps_page_flag_name(unsigned bit);

enum ps_vma_kind {
	PS_KIND_TEXT, PS_KIND_DATA, PS_KIND_BSS, PS_KIND_HEAP, PS_KIND_STACK, PS_KIND_ANON,
	PS_KIND_LIBTEXT, PS_KIND_LIBDATA, PS_KIND_LIBBSS, PS_KIND_VDSO, PS_KIND_FILE,
	PS_KIND_SHMEM, PS_KIND_OTHER, PS_KIND_COUNT
};
const char *ps_kind_name(enum ps_vma_kind kind);

/* Tags (the header's tags=, `pagesleuth db`): KEY=VALUE with a key of 1-64 bytes of
 * A-Z a-z 0-9 _ . - and a value of at most 256 bytes without ',' (the list separator).
 * Returns the key's length, or 0 with a reason in WHY if TEXT is not such a tag. */
size_t ps_tag_check(const char *text, const char **why);
/* Append tag TEXT to the malloc'd list *TAGS ("K=V,K=V"); 0, or -1 with *WHY set. */
int ps_tags_append(char **tags, const char *text, const char **why);
int ps_kind_parse(const char *name, size_t len); /* -1 if unknown */

/* ---- records -------------------------------------------------------------------------- */

/* Header keys beyond the standard ones a writer may add (a trace's `cmd`, `time_unit`,
 * `ws_every`, `ws_tau`): the reader keeps the first PS_HEADER_EXTRA in file order. */
#define PS_HEADER_EXTRA 8

struct ps_header {
	unsigned version_major, version_minor;
	const char *source, *arch, *endian, *release, *dump, *dump_id, *time, *excluded, *tool,
		*pids;
	const char *tags; /* 1.1: "KEY=VALUE,..." given to the writer (-t), "" or NULL if none */
	uint32_t page_size;
	unsigned page_shift;
	bool big_endian;
	size_t n_extra;
	struct { const char *key, *value; } extra[PS_HEADER_EXTRA];
};
/* The value of an extra header key, or NULL. */
const char *ps_header_extra(const struct ps_header *h, const char *key);

struct ps_snapshot {
	uint64_t seq;
	const char *time;
	uint64_t uptime_ns; /* PS_UNKNOWN if absent */
};

struct ps_task {
	uint64_t pid, tgid, ppid;
	uint64_t mm; /* PS_UNKNOWN for a kernel thread */
	const char *comm;
	char state;
	uint64_t minflt, majflt, utime, stime, start;
	uint64_t rss_file, rss_anon, rss_shmem, rss_swap;
	bool exiting;
};

struct ps_mm {
	uint64_t id, tgid;
	const char *comm, *exe;
	uint64_t kaddr, start_brk, brk, start_stack, total_vm, map_count;
};

struct ps_vma {
	uint64_t mm, start, end;
	char perm[5]; /* "rwxp" */
	uint64_t vmflags, pgoff;
	uint32_t dev_major, dev_minor;
	uint64_t inode;
	const char *path, *unit; /* "" when written as "-" */
	enum ps_vma_kind kind;
};

/* m and x records. */
struct ps_map {
	uint64_t mm, vaddr, pfn, npages;
	uint64_t mapcount, refcount; /* PS_UNKNOWN if "-" */
	struct ps_pte pte;
	uint64_t pflags;      /* PS_UNKNOWN if "-" */
	unsigned shift;
	bool excluded;        /* an x record */
	const char *reason;   /* x only: "dumplevel", "missing" */
};

enum ps_swap_kind { PS_SWAP, PS_SWAP_MIGRATION, PS_SWAP_HWPOISON, PS_SWAP_DEVICE, PS_SWAP_OTHER };
const char *ps_swap_kind_name(enum ps_swap_kind kind);

struct ps_swap {
	uint64_t mm, vaddr, npages, type, offset;
	enum ps_swap_kind kind;
};

struct ps_unknown_range {
	uint64_t mm, vaddr, npages;
	const char *reason;
};

/* Per-VMA page summary. Counts in pages; pss in bytes << PS_PSS_SHIFT in memory (the
 * fraction keeps sums exact, as the kernel's smaps does) and in whole bytes on disk.
 * shmem_swap (1.3): shmem/tmpfs pages of the VMA that are swapped out with no page-table
 * entry (so no w record), as smaps' Swap counts them; 0 when absent, PS_UNKNOWN when the
 * source could not tell. Never part of swapped, which counts w records. */
struct ps_vma_sum {
	uint64_t mm, start;
	uint64_t resident, exec, ro, single, shared, referenced, dirty, swapped, anon, file,
		excluded, unknown, pss;
	uint64_t shmem_swap;
};

struct ps_warn {
	uint64_t mm, at; /* PS_UNKNOWN if absent */
	const char *reason;
	const char *kind; /* 1.1: "gone" = the process of mm exited while it was read (not a
			   * failure: it is left out); "" or NULL: could not read */
};

/* 1.2: one of the kernel's own counters at the snapshot's moment, in the unit of the file
 * it belongs to (set "meminfo": /proc/meminfo's field names, kB or a count; "vmstat":
 * /proc/vmstat's names and values; "zone": per node and zone, pages; "buddyinfo": free
 * blocks per node, zone and order). */
struct ps_counter {
	const char *set, *name;
	const char *zone;   /* "" or NULL: not per zone */
	uint64_t node;      /* PS_UNKNOWN: not per node */
	uint64_t value;     /* PS_UNKNOWN if "-" */
};

/* 1.2: what a run of page frames of RAM holds (the pass over the memory map). */
enum ps_frame_class {
	PS_FC_FREE,      /* in the buddy allocator's free lists */
	PS_FC_UNUSED,    /* refcount 0 and not in the free lists: per-CPU lists, being freed */
	PS_FC_SLAB,      /* a slab of a kmem_cache (owner: the cache) */
	PS_FC_PGTABLE,   /* a page-table page */
	PS_FC_ANON,      /* anonymous memory (mapped, or in the swap cache) */
	PS_FC_FILE,      /* page cache of a file (mapped or not) */
	PS_FC_SHMEM,     /* page cache of shmem/tmpfs (swap-backed) */
	PS_FC_HUGETLB,   /* a hugetlb pool page (free or in use) */
	PS_FC_ZSMALLOC,  /* zsmalloc (zram, zswap) */
	PS_FC_OFFLINE,   /* offline (ballooned out, memory hot-remove) */
	PS_FC_RESERVED,  /* PG_reserved: kernel image, memblock, firmware */
	PS_FC_KERNEL,    /* allocated, no owner the pass can name (drivers' alloc_pages, ...) */
	PS_FC_VMALLOC,   /* mapped by a vmalloc area (owner: its caller; kernel stacks too) */
	PS_FC_UNKNOWN,   /* the struct page could not be read */
	PS_FC_COUNT
};
extern const char *const ps_frame_class_names[PS_FC_COUNT]; /* "free", "slab", ... */
const char *ps_frame_class_name(enum ps_frame_class c);
int ps_frame_class_parse(const char *name, size_t len); /* -1 if unknown */

/* f records: frames [pfn, pfn + npages) of one class and owner (PS_UNKNOWN: none). */
struct ps_frames {
	uint64_t pfn, npages, owner;
	enum ps_frame_class cls;
};

/* owner records: what an f record's owner id names. */
struct ps_owner {
	uint64_t id;
	const char *kind; /* "slab" (name: the cache) */
	const char *name;
};

/* slab records (1.2): one cache as /proc/slabinfo shows it (SLUB: a CPU's slabs count as
 * wholly in use; active_slabs = num_slabs). */
struct ps_slab {
	const char *name;
	uint64_t active_objs, num_objs, objsize, objperslab, pagesperslab, num_slabs;
};

/* log records (1.2): one record of the kernel's log at the snapshot (dumps). */
struct ps_log {
	uint64_t seq, ts_nsec;   /* PS_UNKNOWN if absent */
	uint64_t level, facility; /* PS_UNKNOWN if absent */
	const char *text;         /* percent-decoded; '\n' between the lines of one record */
};

struct ps_end {
	bool complete;
	uint64_t tasks, mms, vmas, runs, pages;
};

enum ps_rec_type {
	PS_REC_HEADER, PS_REC_SNAPSHOT, PS_REC_TASK, PS_REC_MM, PS_REC_VMA, PS_REC_MAP,
	PS_REC_SWAP, PS_REC_UNKNOWN_RANGE, PS_REC_SUM, PS_REC_WARN, PS_REC_END,
	PS_REC_COUNTER, PS_REC_FRAMES, PS_REC_OWNER, PS_REC_LOG, PS_REC_SLAB, /* 1.2 */
	/* Reserved trace records, delivered as key=value pairs (struct ps_kv). */
	PS_REC_TRACE,
};

/* Key=value view of a record the library does not decode into a struct (trace records). */
struct ps_kv {
	const char *tag;
	size_t n;
	struct { const char *key, *value; } kv[64];
};

struct ps_record {
	enum ps_rec_type type;
	uint64_t line;
	union {
		struct ps_header header;
		struct ps_snapshot snapshot;
		struct ps_task task;
		struct ps_mm mm;
		struct ps_vma vma;
		struct ps_map map;
		struct ps_swap swap;
		struct ps_unknown_range unknown;
		struct ps_vma_sum sum;
		struct ps_warn warn;
		struct ps_counter counter;
		struct ps_frames frames;
		struct ps_owner owner;
		struct ps_log log;
		struct ps_slab slab;
		struct ps_end end;
		struct ps_kv trace;
	} u;
};

/* ---- reader ----------------------------------------------------------------------------- */

struct ps_reader;

/* Open PATH ("-" = stdin) and read the magic line and header. Returns NULL and sets *err
 * (malloc'd "FILE:LINE: reason", caller frees) on failure. */
struct ps_reader *ps_reader_open(const char *path, char **err);
struct ps_reader *ps_reader_open_fd(int fd, const char *name, char **err);
void ps_reader_close(struct ps_reader *r);

/* The header, valid for the reader's lifetime. */
const struct ps_header *ps_reader_header(const struct ps_reader *r);

/* Next record after the header: 1 = *rec filled, 0 = end of file, -1 = error (see
 * ps_reader_error). Strings in *rec stay valid until the next call. The reader checks the
 * structure as it goes (hot records inside their VMA, ascending, declared mm ids). */
int ps_read(struct ps_reader *r, struct ps_record *rec);
const char *ps_reader_error(const struct ps_reader *r);

/* Warnings the reader accumulated (skipped unknown tags), one per line, or "" if none. */
const char *ps_reader_warnings(const struct ps_reader *r);
const char *ps_reader_name(const struct ps_reader *r);
/* True after EOF when the last snapshot had no end record: the data is partial. */
bool ps_reader_in_snapshot(const struct ps_reader *r);
uint64_t ps_reader_line(const struct ps_reader *r);

/* ---- writer ----------------------------------------------------------------------------- */

struct ps_writer;

/* Create PATH atomically (written to a temporary file beside it, renamed on a successful
 * ps_writer_close); "-" writes to stdout. fp variant writes to an open stream (not closed). */
struct ps_writer *ps_writer_open(const char *path, char **err);
struct ps_writer *ps_writer_open_stream(FILE *fp, const char *name);
/* Flush, and rename into place if all writes succeeded. Returns 0 or -1 (*err set). With
 * abandon=true the temporary file is removed and PATH is left untouched. */
int ps_writer_close(struct ps_writer *w, bool abandon, char **err);

/* Each returns 0 or -1; the first failure sticks (later calls do nothing). */
int ps_write_header(struct ps_writer *w, const struct ps_header *h);
int ps_write_snapshot(struct ps_writer *w, const struct ps_snapshot *s);
int ps_write_task(struct ps_writer *w, const struct ps_task *t);
int ps_write_mm(struct ps_writer *w, const struct ps_mm *mm);
int ps_write_vma(struct ps_writer *w, const struct ps_vma *v);
/* One page run; consecutive calls that continue the previous run (vaddr and pfn advance by
 * npages, all other fields equal) are merged into one line. Call ps_write_flush_run (or any
 * other ps_write_*) to end the pending run. */
int ps_write_map(struct ps_writer *w, const struct ps_map *m);
int ps_write_swap(struct ps_writer *w, const struct ps_swap *s);
int ps_write_unknown(struct ps_writer *w, const struct ps_unknown_range *u);
int ps_write_sum(struct ps_writer *w, const struct ps_vma_sum *s);
int ps_write_warn(struct ps_writer *w, const struct ps_warn *wr);
int ps_write_counter(struct ps_writer *w, const struct ps_counter *c); /* inside a snapshot */
int ps_write_frames(struct ps_writer *w, const struct ps_frames *f);   /* inside a snapshot */
int ps_write_owner(struct ps_writer *w, const struct ps_owner *o);     /* before its f records */
int ps_write_slab(struct ps_writer *w, const struct ps_slab *s);       /* inside a snapshot */
/* TEXT of TEXT_LEN bytes (any bytes: percent-encoded) */
int ps_write_log(struct ps_writer *w, const struct ps_log *l, size_t text_len);
/* Writes the end line with the counts the writer kept for this snapshot. */
int ps_write_end(struct ps_writer *w, bool complete);
int ps_write_trace(struct ps_writer *w, const struct ps_kv *kv);
int ps_write_flush_run(struct ps_writer *w);
/* Whole lines are kept in the writer and given to its stream 64 KiB at a time: this gives
 * them now (not the pending run: ps_write_flush_run; not the stream's own buffer: fflush).
 * Needed before anything else writes to, or asks the position of, the writer's stream. */
int ps_writer_flush_lines(struct ps_writer *w);
const char *ps_writer_error(const struct ps_writer *w);

/* One stream written by more than one process (walker/split.c): a part's writer writes
 * stretches of WHOLE's snapshot to FP (a file of its own; WHOLE's header and page size
 * hold), and WHOLE then takes each stretch in, in order, with ps_writer_append: the LEN
 * bytes at DATA (the part's file mapped, or read back), and the stretch's counts
 * (ps_writer_counts after it, less before it; NULL: none, more bytes of it follow) added to
 * WHOLE's end line. */
struct ps_writer_counts {
	uint64_t tasks, mms, vmas, runs, pages;
};
struct ps_writer *ps_writer_open_part(FILE *fp, const struct ps_writer *whole);
void ps_writer_counts(const struct ps_writer *w, struct ps_writer_counts *c);
int ps_writer_append(struct ps_writer *whole, const void *data, size_t len,
		     const struct ps_writer_counts *c);

/* ---- helpers shared by every source ------------------------------------------------------ */

/* Accumulate one page run into a VMA summary (page_size for pss). */
void ps_sum_add_map(struct ps_vma_sum *s, const struct ps_map *m, uint32_t page_size);
/* Whether ps_sum_add_map counts A's pages and B's alike: every field it reads but npages
 * (the sum is linear in npages, so a walker may add a run of such pages at once). Kept here,
 * beside it, so that the two change together. */
static inline bool ps_sum_same_kind(const struct ps_map *a, const struct ps_map *b)
{
	return a->pte.set == b->pte.set && a->pte.known == b->pte.known && a->mapcount == b->mapcount &&
	       a->pflags == b->pflags && a->excluded == b->excluded;
}
void ps_sum_add_swap(struct ps_vma_sum *s, const struct ps_swap *sw);
void ps_sum_add_unknown(struct ps_vma_sum *s, const struct ps_unknown_range *u);
/* PSS contribution of one page in bytes << PS_PSS_SHIFT (as the kernel's smaps does). */
#define PS_PSS_SHIFT 12
/* Whether a mapped page counts as referenced in smaps' sense. */
bool ps_map_referenced(const struct ps_map *m);
bool ps_map_dirty(const struct ps_map *m);
bool ps_map_anon(const struct ps_map *m);
/* A run of the shared zero page: every page of it maps the one PFN (see the format doc). */
bool ps_map_zero_page(const struct ps_map *m);
/* The frame of page i of a run: PFN+i, the one zero-page PFN, or PS_UNKNOWN if hidden. */
uint64_t ps_map_pfn_at(const struct ps_map *m, uint64_t i);

/* Classify the VMAs of one mm in place (kind and unit), as docs/record-format.md says.
 * vmas must be sorted by start. unit strings point into the vmas' own paths. */
void ps_classify_vmas(const struct ps_mm *mm, struct ps_vma *vmas, size_t n);

/* Decode "rwxp" and the pte letters. */
void ps_pte_format(struct ps_pte pte, char out[PS_PTE_NBITS + 1]);
static inline bool ps_pte_has(struct ps_pte pte, enum ps_pte_bit b) { return pte.set >> b & 1; }
static inline bool ps_pte_knows(struct ps_pte pte, enum ps_pte_bit b) { return pte.known >> b & 1; }

#endif
