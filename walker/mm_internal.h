/* mm_internal.h - what walker.c, tasks.c, vma.c, path.c and page.c share (internal).
 *
 * ps_walker_run goes task list -> address spaces -> VMAs -> page tables -> struct pages.
 * Each step lives in its own file and works on struct ps_walker; nothing here is public.
 * Every pointer read from the dump is untrusted: loops are bounded by counts and visited
 * sets, buffers by the kinfo sizes checked once in walker.c (mm_check_layout).
 */
#ifndef PAGESLEUTH_MM_INTERNAL_H
#define PAGESLEUTH_MM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core.h"
#include "records.h"
#include "walker.h"

/* ---- a set / map of 64-bit keys (open addressing; key 0 is never stored) ---------- */

struct mm_set {
	uint64_t *keys;
	uint64_t *vals; /* NULL for a plain set */
	size_t cap, n;   /* cap is a power of two, or 0 */
};
/* Insert KEY (with VAL for a map). 1 = inserted, 0 = already there, -1 = out of memory. */
int mm_set_put(struct mm_set *s, uint64_t key, uint64_t val, bool with_val);
/* 1 and *val (when non-NULL) if present, else 0. */
int mm_set_get(const struct mm_set *s, uint64_t key, uint64_t *val);
void mm_set_free(struct mm_set *s);

/* ---- tasks and address spaces (tasks.c) ------------------------------------------- */

#define MM_COMM_LEN 64 /* TASK_COMM_LEN is 16; room for any kernel */

struct mm_thread {
	uint64_t kaddr, mm_kaddr;
	struct ps_task rec; /* rec.comm points at comm; rec.mm is the mm index until written */
	char comm[MM_COMM_LEN];
};

struct mm_space {
	uint64_t kaddr;
	uint64_t id;         /* record id, 1.. in task-list order */
	uint64_t tgid;       /* the first thread seen with this mm (its leader) */
	char comm[MM_COMM_LEN];
	uint8_t *buf;        /* the mm_struct, kinfo size bytes */
	bool readable;
};

struct mm_tasklist {
	struct mm_thread *t;
	size_t n, cap;
	struct mm_space *mm;
	size_t nmm, capmm;
	struct mm_set mm_index; /* mm kaddr -> index in mm[] */
};

int mm_collect_tasks(struct ps_walker *w, struct mm_tasklist *tl);
/* The mm's RSS counters (rss_file, rss_anon, rss_shmem, rss_swap of T; PS_UNKNOWN where
 * the type information cannot say), as /proc/PID/status shows them. */
void mm_rss_counters(struct ps_walker *w, const struct mm_space *mm, struct ps_task *t);
void mm_tasklist_free(struct mm_tasklist *tl);

/* ---- VMAs (vma.c) ------------------------------------------------------------------- */

struct mm_vma {
	uint64_t kaddr;
	uint64_t start, end, flags, pgoff, file, ops, priv, anon_name;
};

struct mm_vmavec {
	struct mm_vma *v;
	size_t n, cap;
};

/* The VMAs of one mm in ascending order, without overlaps (what cannot be read is a warn
 * and marks the run partial). 0, or -1 on out of memory. */
int mm_collect_vmas(struct ps_walker *w, const struct mm_space *mm, struct mm_vmavec *out);

/* ---- paths (path.c) ------------------------------------------------------------------ */

struct mm_file_info {
	const char *path; /* owned by the walker's path cache, valid for the whole run */
	uint32_t dev_major, dev_minor;
	uint64_t inode;
};
/* Path, device and inode of a struct file. 0, or -1 when the file cannot be read (info
 * then holds what could be found; path "" when nothing). */
int mm_file_info(struct ps_walker *w, uint64_t file, struct mm_file_info *info);
/* Path (as mounted, else inside its filesystem; "" when no dentry), device and inode
 * number of a struct inode. 0, or -1 when the inode cannot be read. */
int mm_inode_info(struct ps_walker *w, uint64_t inode, struct mm_file_info *info);
/* The special-mapping name of an anonymous VMA ("[vdso]", "[vvar]", ...) or NULL. */
const char *mm_special_name(struct ps_walker *w, const struct mm_space *mm, const struct mm_vma *v,
			    const struct mm_vma *next);
/* "[anon:NAME]" for a VMA's anon_name pointer (CONFIG_ANON_VMA_NAME), or NULL. */
const char *mm_anon_name(struct ps_walker *w, uint64_t anon_name);
void mm_path_cache_free(struct ps_walker *w);

/* ---- pages (page.c) ------------------------------------------------------------------ */

/* Walk the page tables of [v->start, v->end) and write runs (and the sum) per detail. */
int mm_walk_vma_pages(struct ps_walker *w, const struct mm_space *mm, uint64_t top,
		      const struct mm_vma *v);
/* 0, or -1: out of memory (*why NULL) or a kernel whose page types are unknown (*why). */
int mm_pages_init(struct ps_walker *w, const char **why);
/* Address of PFN's struct page through mem_section or FLATMEM's node_mem_map (VMCOREINFO),
 * for architectures without vmemmap; 0 if unknown. */
uint64_t mm_memmap_page_addr(struct ps_walker *w, uint64_t pfn);
void mm_pages_free(struct ps_walker *w);
/* Forget what the struct page cache learned (windows, memory-map and zero-page facts): the
 * next mm_pages_init finds them again, reusing the window buffers (mm_forget_memory). */
void mm_pages_forget(struct ps_walker *w);

/* One frame as the pass over all of RAM sees it (frames.c), from its struct page and its
 * folio's head. */
struct mm_frame {
	uint64_t pflags;       /* /proc/kpageflags bits, as the m records' PFLAGS */
	uint64_t refcount, mapcount;
	uint64_t head_pfn;     /* the folio's head (PFN itself unless a tail) */
	uint64_t mapping;      /* the head's mapping word (anon: bit 0) */
	bool buddy, zsmalloc;  /* page types of the page / its head */
	uint64_t buddy_order;  /* a free block's order (page->private), PS_UNKNOWN unreadable */
	uint64_t slab_cache;   /* a slab's struct kmem_cache, 0 if none or unreadable */
};
/* 0; -1 the struct page cannot be read; -2 its compound_head points nowhere sensible. */
int mm_frame_facts(struct ps_walker *w, uint64_t pfn, struct mm_frame *f);
/* Whether PFN has a struct page at all (a present memory section, FLATMEM's span). */
bool mm_pfn_has_memmap(struct ps_walker *w, uint64_t pfn);
/* The next PFN after PFN that may have one (the next section when PFN's has none). */
uint64_t mm_memmap_next(struct ps_walker *w, uint64_t pfn);
/* With the walk's trace on, write "page PA LEN" for each window of struct pages read from
 * now on (the frame pass), or stop. */
void mm_trace_page_windows(struct ps_walker *w, bool on);
/* Whether the memory map's extent is known (SPARSEMEM sections or FLATMEM's node). */
bool mm_memmap_known(struct ps_walker *w);

/* ---- loaded modules (modules.c) -------------------------------------------------------- */

struct mm_module {
	char name[64];
	uint64_t lo[8], hi[8]; /* its memory regions [lo, hi) */
	unsigned nranges;
};
/* The modules on the kernel's `modules` list (*OUT malloc'd, count returned; 0 when the type
 * information or the list is not there). */
size_t mm_modules_collect(struct ps_walker *w, struct mm_module **out);
/* The module whose memory holds ADDR (*OFFSET from its region's start), or NULL. */
const struct mm_module *mm_module_at(const struct mm_module *m, size_t n, uint64_t addr,
				     uint64_t *offset);

/* ---- the address spaces, walked (walker.c) and split across processes (split.c) ----- */

/* Write mms FROM .. TO - 1 of TL (mm, VMA and page records). 0, or -1: out of memory; a
 * failed write sets w->write_failed and ends it too. */
int mm_write_mms(struct ps_walker *w, struct mm_tasklist *tl, size_t from, size_t to);
/* The same for every mm of TL, by up to w->opt->workers processes. 0 or -1 (as above, or
 * a worker failed: w->fatal says how). */
int mm_write_mms_split(struct ps_walker *w, struct mm_tasklist *tl);

/* ---- the walker --------------------------------------------------------------------- */

struct mm_page_cache; /* page.c */
struct mm_path_cache; /* path.c */

struct ps_walker {
	struct ps_core c;
	char release_buf[65];

	/* Per run. */
	struct ps_writer *out;
	const struct ps_walk_options *opt;
	struct ps_walk_result *res;
	FILE *trace;
	unsigned warns;         /* warns this run ... */
	unsigned warns_written; /* ... of which written: at most warn_cap (see mm_warn) */
	unsigned warn_cap;
	bool write_failed;
	char fatal[256];        /* why the run failed, when not out of memory or writing */

	struct mm_page_cache *pages;
	struct mm_path_cache *paths;
	bool have_special_vmops; /* special_mapping_vmops resolved */
	uint64_t special_vmops;
	bool special_vmops_tried;
};

/* Drop what runs learned from the dump's memory and keep for the next one (struct page
 * windows and the memory-map facts read with them, file paths, kernel-address translations),
 * so that the next run reads it all again; the set-up's facts (architecture, symbols,
 * kallsyms, init_task) stay. For a walker whose memory changes between runs: the dump-walk
 * fuzzer patches it (fuzz/fuzz_dump_walk.c). A cache added to the walker is dropped here
 * (and freed by ps_walker_close). */
void mm_forget_memory(struct ps_walker *w);

/* A warn record (printf-style reason) and the run becomes partial. mm: id or PS_UNKNOWN;
 * at: address or PS_UNKNOWN. After a few thousand, further warns are counted only. */
void mm_warn(struct ps_walker *w, uint64_t mm, uint64_t at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* kcounters.c: the kernel's own counters (vmstat, zones, buddyinfo, meminfo) as counter
 * records of the current snapshot; what cannot be read is a warn. */
void mm_write_kcounters(struct ps_walker *w);
/* slabinfo.c: /proc/slabinfo of a SLUB kernel as slab records. */
void mm_write_slabinfo(struct ps_walker *w);
/* frames.c: every page frame of RAM as f records (and owner records); problems are warns. */
void mm_write_frames(struct ps_walker *w);

/* A member of the struct at kernel-virtual VA, read from the dump and sized by its type
 * information (1, 2, 4 or 8 bytes; an array's first element). False if absent or unreadable. */
bool mm_kread_member(struct ps_walker *w, uint64_t va, enum ps_ki_member id, uint64_t *out);
/* A pointer-sized word at VA; false if unreadable. */
static inline bool mm_kread_word(struct ps_walker *w, uint64_t va, uint64_t *out)
{
	return ps_kread_ptr(&w->c, va, out) == PS_READ_OK;
}

/* A member of a struct read into BUF of LEN bytes: false if the member is absent or does
 * not fit (then *out = 0). Sizes 1, 2, 4, 8. */
bool mm_get(const struct ps_walker *w, const void *buf, size_t len, enum ps_ki_member id,
	    uint64_t *out);
/* The first pointer of a member (list_head.next of an embedded list, or a pointer). */
bool mm_get_ptr(const struct ps_walker *w, const void *buf, size_t len, enum ps_ki_member id,
		uint64_t *out);
/* Offset of a member, or -1 if absent. */
static inline int64_t mm_off(const struct ps_walker *w, enum ps_ki_member id)
{
	int64_t o = w->c.ki.member[id].offset;
	return o == PS_KI_ABSENT ? -1 : o;
}
static inline bool mm_has(const struct ps_walker *w, enum ps_ki_member id)
{
	return w->c.ki.member[id].offset != PS_KI_ABSENT;
}
static inline int64_t mm_size(const struct ps_walker *w, enum ps_ki_size id)
{
	return w->c.ki.size[id];
}
static inline int64_t mm_enum(const struct ps_walker *w, enum ps_ki_enum id)
{
	return w->c.ki.enumval[id];
}
/* A kernel pointer that could be valid: non-zero, aligned to ALIGN, not in the lowest page. */
static inline bool mm_kptr_ok(const struct ps_walker *w, uint64_t p, unsigned align)
{
	if (p < 4096 || (align && (p & (align - 1))))
		return false;
	return w->c.ptr_size == 8 || p <= UINT32_MAX;
}

/* The caller's progress callback, if any (ps_walk_options.progress). */
static inline void mm_progress(struct ps_walker *w, const char *what, uint64_t done, uint64_t total)
{
	if (w->opt && w->opt->progress)
		w->opt->progress(w->opt->progress_arg, what, done, total);
}

#endif
