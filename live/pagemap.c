/* pagemap.c - batched page-table and page-frame reads for the live snapshot. See pagemap.h. */
#include "pagemap.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Byte offset of 8-byte entry INDEX, or -1 when off_t cannot hold it (a 32-bit build
 * without _FILE_OFFSET_BITS=64 reading a 64-bit process's pagemap, or huge PFNs). */
static off_t entry_offset(uint64_t index)
{
	uint64_t bytes = index * 8;
	off_t off = (off_t)bytes;
	return off >= 0 && (uint64_t)off == bytes && bytes / 8 == index ? off : -1;
}

ssize_t pagemap_read(int fd, uint64_t first_page, size_t n, uint64_t *out)
{
	size_t done = 0;
	while (done < n) {
		off_t off = entry_offset(first_page + done);
		if (off < 0)
			return -EOVERFLOW;
		ssize_t got = pread(fd, (char *)out + done * 8, (n - done) * 8, off);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (got == 0 || got % 8)
			break;
		done += (size_t)got / 8;
	}
	return (ssize_t)done;
}

/* ---- PAGEMAP_SCAN (linux/fs.h since 6.7; defined here because libc headers may be older) -- */

#define PS_PAGE_IS_PRESENT (1u << 3)
#define PS_PAGE_IS_SWAPPED (1u << 4)
#define PS_PAGE_IS_PFNZERO (1u << 5)
#define PS_PAGE_IS_HUGE (1u << 6)

struct ps_page_region {
	uint64_t start, end, categories;
};

struct ps_pm_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages, category_inverted,
		category_mask, category_anyof_mask, return_mask;
};

#define PS_PAGEMAP_SCAN _IOWR('f', 16, struct ps_pm_scan_arg)

/* PAGEMAP_SCAN over [start, end), appending the matching ranges to *out (adjacent ones
 * merged). */
static int scan_ranges(int fd, uint64_t start, uint64_t end, uint64_t category_mask,
		       uint64_t anyof_mask, uint64_t return_mask, struct va_range **out, size_t *n,
		       size_t *cap)
{
	struct ps_page_region regions[256];
	*n = 0;
	while (start < end) {
		struct ps_pm_scan_arg arg = {
			.size = sizeof arg,
			.start = start,
			.end = end,
			.vec = (uint64_t)(uintptr_t)regions,
			.vec_len = sizeof regions / sizeof regions[0],
			.category_mask = category_mask,
			.category_anyof_mask = anyof_mask,
			.return_mask = return_mask,
		};
		int got = ioctl(fd, PS_PAGEMAP_SCAN, &arg);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		for (int i = 0; i < got; i++) {
			if (*n && (*out)[*n - 1].end == regions[i].start) {
				(*out)[*n - 1].end = regions[i].end;
				continue;
			}
			if (*n == *cap) {
				size_t new_cap = *cap ? *cap * 2 : 64;
				struct va_range *grown = realloc(*out, new_cap * sizeof **out);
				if (!grown)
					return ENOMEM;
				*out = grown, *cap = new_cap;
			}
			(*out)[(*n)++] = (struct va_range){ regions[i].start, regions[i].end };
		}
		/* walk_end is where the walk stopped: end, or earlier when the vector filled. */
		if (arg.walk_end <= start)
			break;
		start = arg.walk_end;
	}
	return 0;
}

int pagemap_huge_ranges(int fd, uint64_t start, uint64_t end, struct va_range **out, size_t *n,
			size_t *cap)
{
	return scan_ranges(fd, start, end, PS_PAGE_IS_HUGE | PS_PAGE_IS_PRESENT, 0,
			   PS_PAGE_IS_HUGE, out, n, cap);
}

int pagemap_zero_ranges(int fd, uint64_t start, uint64_t end, struct va_range **out, size_t *n,
			size_t *cap)
{
	return scan_ranges(fd, start, end, PS_PAGE_IS_PFNZERO, 0, PS_PAGE_IS_PFNZERO, out, n, cap);
}

int pagemap_populated_ranges(int fd, uint64_t start, uint64_t end, struct va_range **out,
			     size_t *n, size_t *cap)
{
	return scan_ranges(fd, start, end, 0, PS_PAGE_IS_PRESENT | PS_PAGE_IS_SWAPPED,
			   PS_PAGE_IS_PRESENT | PS_PAGE_IS_SWAPPED, out, n, cap);
}

int pagemap_next_populated(int fd, uint64_t start, uint64_t end, uint64_t *at)
{
	while (start < end) {
		struct ps_page_region region;
		struct ps_pm_scan_arg arg = {
			.size = sizeof arg,
			.start = start,
			.end = end,
			.vec = (uint64_t)(uintptr_t)&region,
			.vec_len = 1,
			.max_pages = 1, /* stop at the first one: no walk of what follows */
			.category_anyof_mask = PS_PAGE_IS_PRESENT | PS_PAGE_IS_SWAPPED,
			.return_mask = PS_PAGE_IS_PRESENT | PS_PAGE_IS_SWAPPED,
		};
		int got = ioctl(fd, PS_PAGEMAP_SCAN, &arg);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (got > 0) {
			*at = region.start;
			return 0;
		}
		if (arg.walk_end <= start)
			break;
		start = arg.walk_end;
	}
	*at = end;
	return 0;
}

/* ---- reader threads ---------------------------------------------------------------------- */

/* The kernel computes every pagemap and kpage entry it returns (tens of nanoseconds each, a
 * struct page snapshot for the kpage files), so a big process costs CPU time in the kernel
 * that no batching removes; only more CPUs do. A job is cut into parts that the caller and
 * the pool's threads claim one at a time, so a busy CPU just takes fewer parts. */
struct read_pool {
	unsigned workers;  /* the caller plus the threads wanted */
	unsigned started;  /* threads running (started lazily, on the first parallel job) */
	bool start_failed; /* pthread_create failed once: make do with what runs */
	pthread_t *threads;
	pthread_mutex_t lock;
	pthread_cond_t work, done;
	uint64_t generation; /* bumped per job */
	bool quit;
	/* the job */
	read_pool_fn fn;
	void *arg;
	unsigned nparts, next_part, parts_done;
};

struct worker_start {
	struct read_pool *pool;
	unsigned index;
};

/* Claim and run parts of the current job until none are left. Called with the lock held. */
static void run_parts(struct read_pool *p, unsigned worker)
{
	while (p->next_part < p->nparts) {
		unsigned part = p->next_part++;
		read_pool_fn fn = p->fn;
		void *arg = p->arg;
		pthread_mutex_unlock(&p->lock);
		fn(arg, part, worker);
		pthread_mutex_lock(&p->lock);
		if (++p->parts_done == p->nparts)
			pthread_cond_signal(&p->done);
	}
}

static void *worker_main(void *start_arg)
{
	struct worker_start start = *(struct worker_start *)start_arg;
	free(start_arg);
	struct read_pool *p = start.pool;
	pthread_mutex_lock(&p->lock);
	uint64_t seen = p->generation;
	for (;;) {
		while (!p->quit && p->generation == seen)
			pthread_cond_wait(&p->work, &p->lock);
		if (p->quit)
			break;
		seen = p->generation;
		run_parts(p, start.index);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct read_pool *read_pool_new(unsigned workers)
{
	struct read_pool *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->workers = workers ? workers : 1;
	if (p->workers > 1 && !(p->threads = calloc(p->workers - 1, sizeof *p->threads))) {
		free(p);
		return NULL;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	return p;
}

unsigned read_pool_workers(const struct read_pool *p)
{
	return p ? p->workers : 1;
}

/* Start the threads, with every signal blocked in them: the caller's handlers (snap's
 * SIGINT/SIGTERM) must run in the caller, whose sleeps they interrupt. */
static void start_threads(struct read_pool *p)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	while (p->started + 1 < p->workers && !p->start_failed) {
		struct worker_start *ws = malloc(sizeof *ws);
		if (ws)
			*ws = (struct worker_start){ p, p->started + 1 };
		if (!ws || pthread_create(&p->threads[p->started], NULL, worker_main, ws) != 0) {
			free(ws);
			p->start_failed = true; /* the parts still all run, on fewer threads */
			break;
		}
		p->started++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void read_pool_run(struct read_pool *p, unsigned nparts, read_pool_fn fn, void *arg)
{
	if (!p || nparts <= 1 || p->workers <= 1) {
		for (unsigned i = 0; i < nparts; i++)
			fn(arg, i, 0);
		return;
	}
	if (p->started + 1 < p->workers && !p->start_failed)
		start_threads(p);
	pthread_mutex_lock(&p->lock);
	p->fn = fn, p->arg = arg;
	p->nparts = nparts, p->next_part = 0, p->parts_done = 0;
	p->generation++;
	pthread_cond_broadcast(&p->work);
	run_parts(p, 0);
	while (p->parts_done < p->nparts)
		pthread_cond_wait(&p->done, &p->lock);
	pthread_mutex_unlock(&p->lock);
}

void read_pool_free(struct read_pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->quit = true;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i < p->started; i++)
		pthread_join(p->threads[i], NULL);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	free(p->threads);
	free(p);
}

/* Parts for a job of N entries: one per PART_MIN entries, at most PARTS_PER_WORKER per
 * worker (finer parts balance a CPU that is busy elsewhere; each costs a wake-up). */
#define PART_MIN 4096
#define PARTS_PER_WORKER 4
static unsigned parts_for(const struct read_pool *p, uint64_t n)
{
	uint64_t parts = n / PART_MIN, max = (uint64_t)read_pool_workers(p) * PARTS_PER_WORKER;
	if (read_pool_workers(p) <= 1 || parts <= 1)
		return 1;
	return (unsigned)(parts < max ? parts : max);
}

/* ---- pagemap, in parts -------------------------------------------------------------------- */

struct pagemap_job {
	int fd;
	uint64_t first_page;
	size_t n, part_len;
	uint64_t *out;
	ssize_t *got; /* per part */
};

static void pagemap_part(void *arg, unsigned part, unsigned worker)
{
	(void)worker;
	struct pagemap_job *j = arg;
	size_t a = part * j->part_len, len = j->n - a < j->part_len ? j->n - a : j->part_len;
	j->got[part] = pagemap_read(j->fd, j->first_page + a, len, j->out + a);
}

ssize_t pagemap_read_pool(int fd, struct read_pool *pool, uint64_t first_page, size_t n,
			  uint64_t *out)
{
	unsigned nparts = parts_for(pool, n);
	if (nparts <= 1)
		return pagemap_read(fd, first_page, n, out);
	ssize_t got[64];
	if (nparts > sizeof got / sizeof got[0])
		nparts = sizeof got / sizeof got[0];
	/* Parts of whole page tables (512 entries), so no PMD is walked twice. */
	size_t part_len = ((n + nparts - 1) / nparts + 511) & ~(size_t)511;
	nparts = (unsigned)((n + part_len - 1) / part_len);
	struct pagemap_job j = { fd, first_page, n, part_len, out, got };
	read_pool_run(pool, nparts, pagemap_part, &j);
	/* Up to the first part that failed or came back short (the process exited). */
	size_t done = 0;
	for (unsigned i = 0; i < nparts; i++) {
		if (got[i] < 0)
			return done ? (ssize_t)done : got[i];
		done += (size_t)got[i];
		if ((size_t)got[i] < (n - i * part_len < part_len ? n - i * part_len : part_len))
			break;
	}
	return (ssize_t)done;
}

/* ---- /proc/kpagecount and /proc/kpageflags ------------------------------------------------ */

/* A PFN with the batch index it came from, so values can be scattered back after sorting. */
struct pfn_slot {
	uint64_t pfn;
	size_t index;
};

/* A span of the kpage file read by one pread, and the sorted slots [a, b) it answers. */
struct kpage_window {
	uint64_t first;
	size_t len, a, b;
};

/* One pread covers at most WINDOW_PFNS entries; gaps up to WINDOW_GAP PFNs are read through
 * rather than split. The kernel computes every entry it returns (a struct page snapshot
 * each, ~100 ns on 6.18/x86), about what one more pread costs, so the gap stays small:
 * 1-8 measure the same for scattered anonymous memory, 64 costs 1.7 times as much. */
#define WINDOW_PFNS 8192
#ifndef WINDOW_GAP
#define WINDOW_GAP 8
#endif

int kpage_open(struct kpage_files *kp)
{
	kp->count_fd = open("/proc/kpagecount", O_RDONLY | O_CLOEXEC);
	int err = errno;
	kp->flags_fd = kp->count_fd < 0 ? -1 : open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (kp->count_fd >= 0 && kp->flags_fd < 0)
		err = errno;
	if (kp->flags_fd < 0) {
		kpage_close(kp);
		return err;
	}
	return 0;
}

void kpage_close(struct kpage_files *kp)
{
	if (kp->count_fd >= 0)
		close(kp->count_fd);
	if (kp->flags_fd >= 0)
		close(kp->flags_fd);
	kp->count_fd = kp->flags_fd = -1;
}

void kpage_scratch_free(struct kpage_scratch *s)
{
	free(s->slots);
	free(s->sorted);
	free(s->windows);
	if (s->buffers)
		for (unsigned i = 0; i < s->nbuffers; i++)
			free(s->buffers[i]);
	free(s->buffers);
	memset(s, 0, sizeof *s);
}

/* Sort slots[0..n) by PFN: least-significant-digit radix sort on pfn - min, 12 bits a pass
 * (two passes up to 64 GiB of RAM, three up to 256 TiB), where qsort's n log n compare calls
 * cost as much as the kernel's reads. TMP holds n slots; the result is in SLOTS or TMP, as
 * returned. */
#define RADIX_BITS 12
static struct pfn_slot *radix_sort(struct pfn_slot *slots, struct pfn_slot *tmp, size_t n)
{
	uint64_t min = UINT64_MAX, max = 0;
	for (size_t i = 0; i < n; i++) {
		if (slots[i].pfn < min)
			min = slots[i].pfn;
		if (slots[i].pfn > max)
			max = slots[i].pfn;
	}
	static_assert(RADIX_BITS < 16, "count array on the stack");
	size_t count[1u << RADIX_BITS];
	for (unsigned shift = 0; n > 1 && shift < 64 && ((max - min) >> shift); shift += RADIX_BITS) {
		memset(count, 0, sizeof count);
		for (size_t i = 0; i < n; i++)
			count[((slots[i].pfn - min) >> shift) & ((1u << RADIX_BITS) - 1)]++;
		size_t sum = 0;
		for (size_t d = 0; d < (1u << RADIX_BITS); d++) {
			size_t c = count[d];
			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			tmp[count[((slots[i].pfn - min) >> shift) & ((1u << RADIX_BITS) - 1)]++] = slots[i];
		struct pfn_slot *t = slots;
		slots = tmp, tmp = t;
	}
	return slots;
}

/* Read entries [first, first + n) of a kpage file into WINDOW; returns the number read. */
static ssize_t read_window(int fd, uint64_t *window, uint64_t first, size_t n)
{
	size_t done = 0;
	while (done < n) {
		off_t off = entry_offset(first + done);
		if (off < 0)
			return -EOVERFLOW;
		ssize_t got = pread(fd, (char *)window + done * 8, (n - done) * 8, off);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (got == 0 || got % 8)
			break; /* past max_pfn */
		done += (size_t)got / 8;
	}
	return (ssize_t)done;
}

struct kpage_job {
	int fd;
	const struct pfn_slot *slots;
	const struct kpage_window *windows;
	const size_t *part_start; /* windows [part_start[p], part_start[p + 1]) */
	uint64_t **buffers;       /* one per worker */
	uint64_t *out;
	int *err; /* per part */
};

static void kpage_part(void *arg, unsigned part, unsigned worker)
{
	struct kpage_job *j = arg;
	uint64_t *buf = j->buffers[worker];
	j->err[part] = 0;
	for (size_t w = j->part_start[part]; w < j->part_start[part + 1]; w++) {
		const struct kpage_window *win = &j->windows[w];
		ssize_t got = read_window(j->fd, buf, win->first, win->len);
		if (got < 0) {
			j->err[part] = (int)-got;
			return;
		}
		for (size_t i = win->a; i < win->b; i++) {
			uint64_t at = j->slots[i].pfn - win->first;
			j->out[j->slots[i].index] = at < (uint64_t)got ? buf[at] : UINT64_MAX;
		}
	}
}

#define MAX_PARTS 64

int kpage_lookup(int fd, struct kpage_scratch *s, struct read_pool *pool, const uint64_t *pfn,
		 size_t n, uint64_t *out)
{
	if (s->slots_cap < n) {
		struct pfn_slot *slots = realloc(s->slots, n * sizeof *slots);
		if (slots)
			s->slots = slots;
		struct pfn_slot *sorted = slots ? realloc(s->sorted, n * sizeof *sorted) : NULL;
		if (sorted)
			s->sorted = sorted;
		struct kpage_window *windows = sorted ? realloc(s->windows, n * sizeof *windows) : NULL;
		if (!windows)
			return ENOMEM;
		s->windows = windows, s->slots_cap = n;
	}
	unsigned workers = read_pool_workers(pool);
	if (s->nbuffers < workers) {
		uint64_t **grown = realloc(s->buffers, workers * sizeof *grown);
		if (!grown)
			return ENOMEM;
		s->buffers = grown;
		for (; s->nbuffers < workers; s->nbuffers++)
			if (!(s->buffers[s->nbuffers] = malloc(WINDOW_PFNS * sizeof **s->buffers)))
				return ENOMEM;
	}
	size_t nslots = 0;
	bool sorted = true;
	for (size_t i = 0; i < n; i++) {
		out[i] = UINT64_MAX;
		if (pfn[i] == UINT64_MAX)
			continue;
		if (nslots && pfn[i] < s->slots[nslots - 1].pfn)
			sorted = false;
		s->slots[nslots++] = (struct pfn_slot){ pfn[i], i };
	}
	/* Sorted, neighbouring frames share one pread, and struct pages are visited in order. */
	const struct pfn_slot *slots = sorted ? s->slots : radix_sort(s->slots, s->sorted, nslots);
	size_t nwindows = 0, entries = 0;
	for (size_t a = 0; a < nslots;) {
		uint64_t first = slots[a].pfn;
		size_t b = a + 1;
		while (b < nslots && slots[b].pfn - slots[b - 1].pfn <= WINDOW_GAP &&
		       slots[b].pfn - first < WINDOW_PFNS)
			b++;
		size_t len = (size_t)(slots[b - 1].pfn - first + 1);
		s->windows[nwindows++] = (struct kpage_window){ first, len, a, b };
		entries += len;
		a = b;
	}
	/* Parts of about equal numbers of entries, each a run of whole windows. */
	unsigned nparts = parts_for(pool, entries);
	if (nparts > MAX_PARTS)
		nparts = MAX_PARTS;
	size_t part_start[MAX_PARTS + 1];
	int err[MAX_PARTS];
	part_start[0] = 0;
	unsigned p = 1;
	size_t cum = 0;
	for (size_t w = 0; w < nwindows && p < nparts; w++) {
		cum += s->windows[w].len;
		if (cum * nparts >= (uint64_t)p * entries)
			part_start[p++] = w + 1;
	}
	nparts = p;
	part_start[nparts] = nwindows;
	struct kpage_job j = { fd, slots, s->windows, part_start, s->buffers, out, err };
	read_pool_run(pool, nparts, kpage_part, &j);
	for (unsigned i = 0; i < nparts; i++)
		if (err[i])
			return err[i];
	return 0;
}
