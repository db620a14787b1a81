/* target.h - what the walker needs from a back-end (a dump reader, crash, ...).
 *
 * The walker knows the kernel; a back-end only knows how to fetch bytes. Two back-ends
 * implement this: coredump/ (libkdumpfile or plain ELF) and crash-ext/ (crash's readmem).
 * Every address the walker passes comes from the dump itself, so a back-end must fail
 * cleanly (return a status, never abort) on any address.
 */
#ifndef PAGESLEUTH_TARGET_H
#define PAGESLEUTH_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ps_read_status {
	PS_READ_OK = 0,
	PS_READ_EXCLUDED, /* the dump format knows the page but filtered its contents out */
	PS_READ_NODATA,   /* not in the dump at all (no segment covers it) */
	PS_READ_ERROR,    /* I/O or decompression error, or a bad address */
};

struct ps_target_ops {
	/* Read LEN bytes of physical memory (the address the kernel's page tables hold). A read
	 * may cross page boundaries; the status is the first failing page's. Required. */
	enum ps_read_status (*read_phys)(void *ctx, uint64_t paddr, void *buf, size_t len);
	/* Kernel-virtual read by the back-end's own translation (crash's readmem KVADDR).
	 * NULL: the walker translates with the architecture's rules and kernel page tables. */
	enum ps_read_status (*read_kvirt)(void *ctx, uint64_t vaddr, void *buf, size_t len);
	/* Whether the dump holds the contents of page frame PFN without reading it (a kdump
	 * bitmap lookup). NULL: every frame the walker does not read is assumed present. */
	enum ps_read_status (*pfn_status)(void *ctx, uint64_t pfn);
	/* The value of one VMCOREINFO key ("SYMBOL(init_task)", "NUMBER(VA_BITS)",
	 * "KERNELOFFSET", "OSRELEASE", "PAGESIZE"), or NULL when absent. NULL op: no VMCOREINFO. */
	const char *(*vmcoreinfo)(void *ctx, const char *key);
	/* A hint: the page holding physical address PADDR will be read soon (the next page
	 * table of a walk, a window of struct pages). A back-end may start fetching it on
	 * another CPU (kdump: decompress it); what read_phys returns must not depend on hints.
	 * NULL: no hints. */
	void (*prefetch_phys)(void *ctx, uint64_t paddr);
	/* A walk split across processes (ps_walk_options.workers, walker/split.c): each worker
	 * is a fork that reads through its copy of the back-end. fork_prepare, in the parent
	 * before it forks, stops the back-end's own threads (a fork keeps only the caller's)
	 * and notes where its counts stand; reads work as before after it. 0, or -1: do not
	 * fork. NULL: the back-end cannot be forked (crash), the walk stays in one process. */
	int (*fork_prepare)(void *ctx);
	/* In a worker at its end: what its reads changed that the parent reports (read errors
	 * and their first message, counts), at most PS_TARGET_REPORT_MAX bytes into BUF; the
	 * length. worker_merge, in the parent: one worker's report taken in, after the
	 * parent's own stretch (a read error the parent saw stays the first). Both required
	 * with fork_prepare. */
	size_t (*worker_report)(void *ctx, void *buf, size_t cap);
	void (*worker_merge)(void *ctx, const void *buf, size_t len);
};

#define PS_TARGET_REPORT_MAX 1024

/* A back-end instance, described by what it read from the dump (never from the host). */
struct ps_target {
	const struct ps_target_ops *ops;
	void *ctx;
	const char *arch;    /* the record header's names: x86_64 arm64 ppc64le ppc64 arm ppc32 */
	bool big_endian;     /* byte order of the target's memory */
	unsigned ptr_size;   /* 4 or 8 */
	uint32_t page_size;  /* base page size; 0 = not known to the back-end (VMCOREINFO's) */
	uint64_t max_pfn;    /* highest PFN + 1 the dump covers; 0 = unknown */
};

#endif
