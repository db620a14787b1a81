/* pagemap.c - batched page-table and page-frame reads for the live snapshot. See pagemap.h. */
#include "pagemap.h"

#include <errno.h>
#include <fcntl.h>
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

int pagemap_populated_ranges(int fd, uint64_t start, uint64_t end, struct va_range **out,
			     size_t *n, size_t *cap)
{
	return scan_ranges(fd, start, end, 0, PS_PAGE_IS_PRESENT | PS_PAGE_IS_SWAPPED,
			   PS_PAGE_IS_PRESENT | PS_PAGE_IS_SWAPPED, out, n, cap);
}

/* ---- /proc/kpagecount and /proc/kpageflags ------------------------------------------------ */

/* A PFN with the batch index it came from, so values can be scattered back after sorting. */
struct pfn_slot {
	uint64_t pfn;
	size_t index;
};

/* One pread covers at most this many PFNs; gaps up to WINDOW_GAP PFNs are read through
 * rather than split, as reading a few unneeded entries is cheaper than another system call
 * (measured on 6.18/x86: 4-8 is best for scattered anonymous memory; 64 costs twice as much,
 * since the kernel computes every entry it returns). */
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
	free(s->window);
	memset(s, 0, sizeof *s);
}

static int slot_cmp(const void *a, const void *b)
{
	const struct pfn_slot *x = a, *y = b;
	return x->pfn < y->pfn ? -1 : x->pfn > y->pfn;
}

/* Read entries [first, first + n) of a kpage file into s->window; returns the number read. */
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

/* Read the window [first, first + len) of FD and scatter into out[] for slots[a, b). */
static int scatter_window(int fd, uint64_t *window, const struct pfn_slot *slots, size_t a,
			  size_t b, uint64_t first, size_t len, uint64_t *out)
{
	ssize_t got = read_window(fd, window, first, len);
	if (got < 0)
		return (int)-got;
	for (size_t i = a; i < b; i++) {
		uint64_t at = slots[i].pfn - first;
		out[slots[i].index] = at < (uint64_t)got ? window[at] : UINT64_MAX;
	}
	return 0;
}

int kpage_lookup(int fd, struct kpage_scratch *s, const uint64_t *pfn, size_t n, uint64_t *out)
{
	if (s->slots_cap < n) {
		struct pfn_slot *grown = realloc(s->slots, n * sizeof *grown);
		if (!grown)
			return ENOMEM;
		s->slots = grown, s->slots_cap = n;
	}
	if (!s->window && !(s->window = malloc(WINDOW_PFNS * sizeof *s->window)))
		return ENOMEM;
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
	/* Anonymous memory often comes in ascending PFN order already; sort only when not. */
	if (!sorted)
		qsort(s->slots, nslots, sizeof *s->slots, slot_cmp);
	for (size_t a = 0; a < nslots;) {
		uint64_t first = s->slots[a].pfn;
		size_t b = a + 1;
		while (b < nslots && s->slots[b].pfn - s->slots[b - 1].pfn <= WINDOW_GAP &&
		       s->slots[b].pfn - first < WINDOW_PFNS)
			b++;
		int err = scatter_window(fd, s->window, s->slots, a, b, first,
					 (size_t)(s->slots[b - 1].pfn - first + 1), out);
		if (err)
			return err;
		a = b;
	}
	return 0;
}
