/* wss.h - working-set measurement of a live process (`pagesleuth wss`), by two kernel
 * facilities:
 *   referenced  write 1 to /proc/PID/clear_refs (clears the PTE young bits and
 *               PG_referenced of the process's pages), wait, sum smaps Referenced;
 *   idle        set the PG_idle bit of every frame the process maps (PFNs from
 *               /proc/PID/pagemap) in /sys/kernel/mm/page_idle/bitmap, wait, count the
 *               frames it maps whose bit was cleared (accessed since, or newly mapped).
 * Every path goes through struct wss_paths, so the unit test runs both on fake files. libc
 * and lib/ only (the static cross builds carry it).
 */
#ifndef PAGESLEUTH_LIVE_WSS_H
#define PAGESLEUTH_LIVE_WSS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pagemap.h"
#include "procfs.h"

struct wss_paths {
	const char *proc;        /* "/proc": PID/{maps,pagemap,clear_refs,smaps_rollup,smaps,stat} */
	const char *idle_bitmap; /* "/sys/kernel/mm/page_idle/bitmap" */
	/* pinned: the process's files are opened relative to pid_dir, its /proc/PID opened once
	 * at the start, so once it exits they fail (ESRCH) instead of being some newer process's
	 * that was given the same PID. The names in messages stay proc/PID/FILE. */
	bool pinned;
	int pid_dir;
};
extern const struct wss_paths wss_system_paths;

/* Rss, Pss and Referenced of the whole process, in bytes. */
struct wss_usage {
	uint64_t rss, pss, referenced;
};

/* Sum the Rss:, Pss: and Referenced: lines (kB) of smaps_rollup or smaps TEXT. Returns 0, or
 * -1 when there is no Rss line at all (a process without an address space). */
int wss_parse_usage(const char *text, struct wss_usage *u);

/* Read PATHS->proc/PID/smaps_rollup (smaps on kernels before 4.14) into *U. Returns 0, or an
 * errno value with a one-line message naming the file in ERR. ESRCH: no address space. */
int wss_read_usage(const struct wss_paths *paths, uint64_t pid, struct proc_buf *buf,
		   struct wss_usage *u, char *err, size_t errlen);

/* Write "1" to PATHS->proc/PID/clear_refs. Returns 0 or an errno value (message in ERR). */
int wss_clear_refs(const struct wss_paths *paths, uint64_t pid, char *err, size_t errlen);

/* The idle-page method's state for one process. */
struct wss_idle {
	const struct wss_paths *paths;
	uint64_t pid;
	uint32_t page_size;
	uint64_t zero_pfn;      /* the shared zero page (never idle-trackable), UINT64_MAX unknown */
	uint64_t huge_zero_pfn, huge_zero_pages; /* the huge zero page's frames, if THP has one */
	int bitmap_fd;
	bool scan_supported;    /* PAGEMAP_SCAN works (cleared on ENOTTY/EINVAL) */
	uint64_t *pfns, *tmp;   /* the frames the process maps, sorted, distinct */
	size_t npfns, pfns_cap;
	uint64_t mapped;        /* present pagemap entries counted (a frame mapped twice: 2) */
	uint64_t *pm;           /* one pagemap batch */
	uint64_t *words;        /* one bitmap batch */
	struct proc_buf maps_text, smaps_text;
	bool smaps_loaded;
	struct proc_map *maps;
	size_t nmaps, maps_cap;
	struct va_range *ranges;
	size_t nranges, ranges_cap;
};

/* Open the bitmap read-write and prepare. Returns 0 or an errno value (message in ERR). */
int wss_idle_open(struct wss_idle *w, const struct wss_paths *paths, uint64_t pid,
		  uint32_t page_size, char *err, size_t errlen);
void wss_idle_close(struct wss_idle *w);

/* Read the frames the process maps now into w->pfns (sorted, distinct). Returns 0 or an
 * errno value: ESRCH when the process (or its address space) is gone, EPERM when pagemap
 * hides PFNs (not root). */
int wss_idle_collect(struct wss_idle *w, char *err, size_t errlen);

/* Set the idle bit of every frame in w->pfns (in batches of 64-frame words). */
int wss_idle_mark(struct wss_idle *w, char *err, size_t errlen);

/* Of the frames in w->pfns, how many are not idle (accessed since they were marked, or
 * never marked: newly mapped, or not on an LRU list). */
int wss_idle_count(struct wss_idle *w, uint64_t *active, char *err, size_t errlen);

/* Sort V[0..N) ascending with TMP[0..N) as scratch (radix sort: millions of frames). */
void wss_sort_u64(uint64_t *v, uint64_t *tmp, size_t n);

#endif
