/* frames.c - every page frame of RAM of the running system, as page-types -a sees it:
 * /proc/kpageflags and /proc/kpagecount over every PFN, classified into the classes a dump
 * reader gives (records.h, enum ps_frame_class) and written as f records.
 *
 * What live cannot see, per class: the owner (no slab cache, no file: /proc exposes no
 * mapping; /proc/slabinfo and the counters give the totals instead); page-cache pages off
 * the LRU (being reclaimed or migrated) count as kernel; zsmalloc has no flag (kernel).
 * A compound page's tail takes its head's class (up to 6.9 kpageflags reports a tail's own
 * LRU bit, which only the head has). Needs root (the files are 0400); without it no frame
 * is written and the caller says why.
 */
#include "frames.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* include/uapi/linux/kernel-page-flags.h */
enum {
	KPF_SLAB = 7, KPF_LRU = 5, KPF_BUDDY = 10, KPF_ANON = 12, KPF_SWAPBACKED = 14,
	KPF_COMPOUND_HEAD = 15, KPF_COMPOUND_TAIL = 16, KPF_HUGE = 17, KPF_NOPAGE = 20,
	KPF_OFFLINE = 23, KPF_ZERO_PAGE = 24, KPF_PGTABLE = 26, KPF_RESERVED = 32,
};
#define BIT(n) (UINT64_C(1) << (n))
#define CHUNK 8192 /* PFNs per read */

enum ps_frame_class live_frame_class(uint64_t flags, uint64_t count)
{
	if (flags & BIT(KPF_BUDDY))
		return PS_FC_FREE;
	if (flags & BIT(KPF_OFFLINE))
		return PS_FC_OFFLINE;
	if (flags & BIT(KPF_HUGE))
		return PS_FC_HUGETLB;
	if (flags & BIT(KPF_SLAB))
		return PS_FC_SLAB;
	if (flags & BIT(KPF_PGTABLE))
		return PS_FC_PGTABLE;
	if (flags & BIT(KPF_ANON))
		return PS_FC_ANON;
	if (flags & BIT(KPF_LRU))
		return flags & BIT(KPF_SWAPBACKED) ? PS_FC_SHMEM : PS_FC_FILE;
	if (flags & (BIT(KPF_RESERVED) | BIT(KPF_ZERO_PAGE)))
		return PS_FC_RESERVED;
	return count ? PS_FC_KERNEL : PS_FC_UNUSED;
}

int live_write_frames(struct ps_writer *w, const char *proc_root, char *why, size_t whylen)
{
	char pf[256], pc[256];
	snprintf(pf, sizeof pf, "%s/kpageflags", proc_root ? proc_root : "/proc");
	snprintf(pc, sizeof pc, "%s/kpagecount", proc_root ? proc_root : "/proc");
	int ffd = open(pf, O_RDONLY | O_CLOEXEC), cfd = ffd >= 0 ? open(pc, O_RDONLY | O_CLOEXEC) : -1;
	if (ffd < 0 || cfd < 0) {
		snprintf(why, whylen, "%s: %s", ffd < 0 ? pf : pc, strerror(errno));
		if (ffd >= 0)
			close(ffd);
		return 1;
	}
	uint64_t *flags = malloc(CHUNK * sizeof *flags), *count = malloc(CHUNK * sizeof *count);
	struct ps_frames run = { 0 };
	enum ps_frame_class head_cls = PS_FC_UNKNOWN;
	int rc = 0;
	for (uint64_t pfn = 0; flags && count; pfn += CHUNK) {
		ssize_t nf = pread(ffd, flags, CHUNK * sizeof *flags, (off_t)(pfn * 8));
		if (nf <= 0) {
			if (nf < 0) {
				snprintf(why, whylen, "%s: %s", pf, strerror(errno));
				rc = 1;
			}
			break; /* the file ends at max_pfn */
		}
		size_t n = (size_t)nf / 8;
		ssize_t nc = pread(cfd, count, n * sizeof *count, (off_t)(pfn * 8));
		if (nc < (ssize_t)(n * 8)) {
			snprintf(why, whylen, "%s: %s", pc, nc < 0 ? strerror(errno) : "shorter than kpageflags");
			rc = 1;
			break;
		}
		for (size_t i = 0; i < n; i++) {
			uint64_t f = flags[i];
			if (f & BIT(KPF_NOPAGE)) { /* no struct page: not a frame of RAM */
				if (run.npages && ps_write_frames(w, &run) < 0)
					goto write_failed;
				run.npages = 0;
				continue;
			}
			enum ps_frame_class cls = live_frame_class(f, count[i]);
			if (f & BIT(KPF_COMPOUND_HEAD))
				head_cls = cls;
			else if ((f & BIT(KPF_COMPOUND_TAIL)) && head_cls != PS_FC_UNKNOWN && !(f & BIT(KPF_BUDDY)))
				cls = head_cls;
			if (run.npages && run.cls == cls && run.pfn + run.npages == pfn + i) {
				run.npages++;
				continue;
			}
			if (run.npages && ps_write_frames(w, &run) < 0)
				goto write_failed;
			run = (struct ps_frames){ .pfn = pfn + i, .npages = 1, .cls = cls, .owner = PS_UNKNOWN };
		}
		if (n < CHUNK)
			break;
	}
	if (!flags || !count) {
		snprintf(why, whylen, "out of memory");
		rc = 1;
	} else if (run.npages && ps_write_frames(w, &run) < 0) {
		goto write_failed;
	}
	free(flags), free(count);
	close(ffd), close(cfd);
	return rc;
write_failed:
	free(flags), free(count);
	close(ffd), close(cfd);
	return -1;
}
