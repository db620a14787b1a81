/* walker.h - the walker core's public API: from a back-end's bytes to pagesleuth records.
 *
 * Used by coredump/ (pagesleuth extract) and crash-ext/ (the crash command) alike:
 *
 *   struct ps_walker *w = ps_walker_open(&target, &err);      architecture, VMCOREINFO
 *   ps_walker_find_btf(w, &btf, &len, &err);                   optional: BTF inside the dump
 *   ps_walker_set_kinfo(w, &kinfo, &err);                      type information, any source
 *   ps_writer header...                                        the caller's (source, dump)
 *   ps_walker_run(w, writer, &opt, &err);                      snapshot ... end
 *
 * What is read (Linux 6.1 names; older layouts where noted in the code):
 *   init_task.tasks -> every task_struct; signal->thread_head/thread_node -> its threads;
 *   task->mm groups threads into address spaces; kernel threads (no mm) are skipped;
 *   mm->mm_mt (maple tree, 6.1+) or mm->mmap (list, <= 6.0) -> VMAs; vm_file's dentry and
 *   mount chain -> path; mm->pgd -> page tables, walked range by range per architecture;
 *   vmemmap struct page (and folio) -> mapcount, refcount, flags (as /proc/kpageflags).
 */
#ifndef PAGESLEUTH_WALKER_H
#define PAGESLEUTH_WALKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kinfo.h"
#include "records.h"
#include "target.h"

struct ps_walker;

enum ps_walk_detail {
	PS_DETAIL_PAGES, /* m/x/w/u runs and a sum per VMA (default) */
	PS_DETAIL_SUMS,  /* a sum per VMA, no runs (smaller output, same summaries) */
	PS_DETAIL_VMAS,  /* tasks, mms and VMAs only */
};

struct ps_walk_options {
	const uint64_t *pids; /* thread-group ids to write; npids 0 = every user process */
	size_t npids;
	enum ps_walk_detail detail;
	uint64_t max_tasks;   /* loop guard for the task list; 0 = default (4M) */
	bool no_counters;     /* leave out the kernel's counters (counter records) */
	bool no_frames;       /* leave out the pass over all of RAM (f and owner records) */
	bool no_log;          /* leave out the kernel log (log records) */
	/* Non-NULL: one line per kernel object read, for debugging and for tests that corrupt
	 * a dump on purpose. Lines: "task KVA", "mm ID KVA", "maple ID NODE_KVA PA",
	 * "vma ID KVA", "pt ID LEVEL TABLE_PA VA_START" (VA_START = first VA the table maps),
	 * "page PA LEN" (a window of struct pages the pass over all frames read), "kobj PA LEN"
	 * (each physical read of the passes over the kernel's counters, slab caches and log). */
	FILE *trace;
	/* Non-NULL: called as the walk goes, ("processes", mms written, mms) then ("frames",
	 * page frame, frames), often (each mm, each 64K frames): a progress line for a terminal;
	 * it should throttle itself. */
	void (*progress)(void *arg, const char *what, uint64_t done, uint64_t total);
	void *progress_arg;
	/* Processes that walk the address spaces at once (split.c): up to WORKERS (0 or 1:
	 * this one alone; at most PS_WALK_MAX_WORKERS), this one taking mms from the front of
	 * those not yet walked and forked workers from the back; one per WORKER_MIN_PAGES
	 * resident pages by the mms' RSS counters at most (0: any). Only for a back-end that
	 * can fork (ps_target_ops.fork_prepare) and with no trace. The records are the same
	 * byte for byte. */
	unsigned workers;
	uint64_t worker_min_pages;
};

#define PS_WALK_MAX_WORKERS 64u

struct ps_walk_result {
	bool partial;         /* something could not be read: warn records say what */
	uint64_t tasks, mms, vmas, pages, swap_entries, unknown_pages, excluded_pages;
	uint64_t pt_bytes, page_struct_bytes; /* bytes of tables and struct pages read */
};

struct ps_walker *ps_walker_open(const struct ps_target *t, char **err);
void ps_walker_close(struct ps_walker *w);

/* The kernel's own BTF (__start_BTF..__stop_BTF via kallsyms). 0 with a malloc'd copy, or -1
 * with *err saying why (no kallsyms in VMCOREINFO, no BTF symbols, unreadable). */
int ps_walker_find_btf(struct ps_walker *w, void **data, size_t *len, char **err);

/* Install type information. Checks it fits the dump (pointer size; release and build id
 * when both sides know them: a mismatch is an error naming both). 0 or -1. */
int ps_walker_set_kinfo(struct ps_walker *w, const struct ps_kinfo *ki, char **err);

/* Facts for the record header. */
const char *ps_walker_arch(const struct ps_walker *w);
bool ps_walker_big_endian(const struct ps_walker *w);
uint32_t ps_walker_page_size(const struct ps_walker *w);
const char *ps_walker_release(const struct ps_walker *w);         /* "" if unknown */
const char *ps_walker_vmcoreinfo(const struct ps_walker *w, const char *key); /* or NULL */

/* The record header both readers write for a dump, built from the same facts so that
 * `pagesleuth extract` and the crash command agree byte for byte apart from SOURCE. */
struct ps_header_facts {
	const char *source;    /* "coredump", "crash" */
	const char *dump_path; /* the header's dump= is its base name */
	int64_t time;          /* capture time from the dump format (kdump header), 0 unknown;
				* VMCOREINFO's CRASHTIME is taken first when present */
	int dump_level;        /* makedumpfile's -d; <= 0: nothing excluded */
	const uint64_t *pids;  /* the thread groups asked for; npids 0 = "all" */
	size_t npids;
	const char *tags;      /* the header's tags= ("K=V,..."; checked), or NULL */
};
int ps_walker_write_header(struct ps_walker *w, struct ps_writer *out,
			   const struct ps_header_facts *f, char **err);

/* Write one snapshot (snapshot ... end) for the chosen processes. Returns 0 when complete,
 * 1 when partial (warn records and *res say why), -1 on a fatal error (*err). Never loops
 * forever on a cyclic list or tree, never trusts a pointer from the dump. */
int ps_walker_run(struct ps_walker *w, struct ps_writer *out, const struct ps_walk_options *opt,
		  struct ps_walk_result *res, char **err);

#endif
