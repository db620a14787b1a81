/* pagemap.h - batched reads of /proc/PID/pagemap, /proc/kpagecount and /proc/kpageflags,
 * and the PAGEMAP_SCAN query for huge (PMD/PUD) leaves. No per-page system calls: pagemap is
 * read one batch at a time, the kpage files one pread per window of sorted PFNs; big batches
 * are shared out to a few reader threads (the kernel's per-entry work is the cost). */
#ifndef PAGESLEUTH_LIVE_PAGEMAP_H
#define PAGESLEUTH_LIVE_PAGEMAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* /proc/PID/pagemap entry bits (Documentation/admin-guide/mm/pagemap.rst). */
#define PM_PFN_MASK ((UINT64_C(1) << 55) - 1) /* PFN, or swap type (bits 0-4) + offset */
#define PM_SOFT_DIRTY (UINT64_C(1) << 55)
#define PM_MMAP_EXCLUSIVE (UINT64_C(1) << 56)
#define PM_GUARD_REGION (UINT64_C(1) << 58)   /* madvise(MADV_GUARD_INSTALL), 6.15+ */
#define PM_FILE (UINT64_C(1) << 61)
#define PM_SWAP (UINT64_C(1) << 62)
#define PM_PRESENT (UINT64_C(1) << 63)
#define PM_SWAP_TYPE_BITS 5

/* Read N entries for the pages from virtual page number FIRST_PAGE on. Returns the number of
 * entries read: fewer than N when the walk reached the task size or the process's mm is gone
 * (0), or -errno. */
ssize_t pagemap_read(int fd, uint64_t first_page, size_t n, uint64_t *out);

/* Reader threads: the caller plus up to WORKERS - 1 threads, started on the first job that
 * is big enough to share. NULL pools and pools of 1 run everything in the caller. */
struct read_pool;
/* Run part P of a job on worker W (0 is the caller; W < read_pool_workers()). */
typedef void (*read_pool_fn)(void *arg, unsigned part, unsigned worker);
struct read_pool *read_pool_new(unsigned workers); /* NULL when out of memory */
unsigned read_pool_workers(const struct read_pool *p);
/* Run parts 0..NPARTS-1 of FN, each once, on the caller and the threads; returns when all
 * are done. */
void read_pool_run(struct read_pool *p, unsigned nparts, read_pool_fn fn, void *arg);
void read_pool_free(struct read_pool *p);

/* pagemap_read, with a big read cut into parts for the pool. Same return values: the entries
 * up to the first part that came back short. */
ssize_t pagemap_read_pool(int fd, struct read_pool *pool, uint64_t first_page, size_t n,
			  uint64_t *out);

struct va_range {
	uint64_t start, end;
};

/* Ranges of [start, end) that the kernel maps with a huge leaf entry (a PMD- or PUD-mapped
 * THP, or hugetlb): PAGEMAP_SCAN's PAGE_IS_HUGE|PAGE_IS_PRESENT. *out grows as needed.
 * Returns 0, or an errno value: ENOTTY or EINVAL mean the kernel has no PAGEMAP_SCAN (< 6.7). */
int pagemap_huge_ranges(int fd, uint64_t start, uint64_t end, struct va_range **out, size_t *n,
			size_t *cap);

/* Ranges of [start, end) holding present or swapped (or other non-present but populated)
 * entries, adjacent ranges merged. The kernel skips empty page-table levels, so this is
 * cheap on huge sparse VMAs (sanitizer shadows, reserved heaps) that reading pagemap
 * entry by entry is not. Same return values as pagemap_huge_ranges. */
int pagemap_populated_ranges(int fd, uint64_t start, uint64_t end, struct va_range **out,
			     size_t *n, size_t *cap);

/* Ranges of [start, end) that map the shared zero page or the huge zero page
 * (PAGE_IS_PFNZERO): what tells them apart without root, where pagemap hides every PFN.
 * Same return values as pagemap_huge_ranges. */
int pagemap_zero_ranges(int fd, uint64_t start, uint64_t end, struct va_range **out, size_t *n,
			size_t *cap);

/* The first page in [start, end) that is present or swapped (or otherwise populated), into
 * *at; end when there is none. One PAGEMAP_SCAN that stops at the first match, so it costs
 * the holes it skips (cheap: empty page-table levels), not the populated pages after.
 * Same return values as pagemap_huge_ranges. */
int pagemap_next_populated(int fd, uint64_t start, uint64_t end, uint64_t *at);

/* The system-wide /proc/kpagecount and /proc/kpageflags (root only). */
struct kpage_files {
	int count_fd, flags_fd;
};
/* Returns 0 or an errno value; on failure both descriptors are -1. */
int kpage_open(struct kpage_files *kp);
void kpage_close(struct kpage_files *kp);

/* Scratch space kpage_lookup keeps between calls: O(batch) plus one window per worker. */
struct kpage_scratch {
	struct pfn_slot *slots, *sorted;
	struct kpage_window *windows;
	size_t slots_cap;
	uint64_t **buffers; /* per worker: one pread's worth of counts or flags */
	unsigned nbuffers;
};
void kpage_scratch_free(struct kpage_scratch *s);

/* For each i < n with pfn[i] != UINT64_MAX, set out[i] to that PFN's entry in FD (one of the
 * kpage files), UINT64_MAX where the kernel has no entry (past max_pfn) or pfn[i] is
 * UINT64_MAX. The PFNs are sorted and read in windows, shared out to POOL (may be NULL).
 * Returns 0 or an errno value. */
int kpage_lookup(int fd, struct kpage_scratch *s, struct read_pool *pool, const uint64_t *pfn,
		 size_t n, uint64_t *out);

#endif
