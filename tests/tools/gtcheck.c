/* gtcheck.c - compare a record file against the kernel's own view of one process.
 *
 * usage: gtcheck [--referenced] PID RECORDS SMAPS PAGES [PAGES_AFTER]
 *        gtcheck --validate RECORDS
 *
 * SMAPS is a copy of /proc/PID/smaps; PAGES has one line per present page
 * "VA PFN KPAGECOUNT KPAGEFLAGS PAGEMAP" (hex, hex, decimal, hex, hex) and one per swapped
 * page "VA - - - PAGEMAP" (what tests/tools/gtcapture writes; ground truth captured in a QEMU
 * guest can be converted to it). Inputs are files only, never live /proc.
 *
 * PAGES_AFTER, a second capture taken right after the records were written, makes the check
 * fair on a busy live system: pages shared system-wide (libc text, the vdso) change mapcount
 * and LRU flags whenever any process starts or exits. A page's value then passes if it equals
 * the value before or after the records were written; pages that did not change are checked
 * exactly as without it.
 *
 * Checks, for the address space whose mm record has tgid PID (first snapshot):
 *   - the set of (VA, PFN) of m/x records equals the ground truth's present pages exactly,
 *     each page's MAPCOUNT equals kpagecount and PFLAGS equals kpageflags;
 *   - the swapped pages (w records) equal the ground truth's, with type/offset when shown;
 *   - the VMAs equal smaps' VMAs (start, end, perm); per VMA, from the sum record:
 *     resident == (Rss + hugetlb)/pagesize, anon == Anonymous/pagesize, swapped + shmem_swap
 *     == Swap (shmem pages swapped out have no w record: the sum's shmem_swap counts them),
 *     PSS within 1 KiB of smaps Pss; and pages recorded with a huge SHIFT == AnonHugePages +
 *     ShmemPmdMapped + FilePmdMapped (+ hugetlb);
 *   - with --referenced, also referenced == smaps Referenced/pagesize per VMA (dump records
 *     from the PTE accessed bits and page flags; live records copy smaps' own figure, 1.3).
 * PFLAGS bit 48 (young, a pagesleuth addition) is left out of the kpageflags comparison: the
 * kernel does not export PG_young, so the ground truth cannot say it.
 * Prints one line per mismatch (VMA, field, expected, got; at most 20 per kind) and
 * "gtcheck: PID N: K VMAs, P pages: OK" or "... FAILED" (exit 1).
 *
 * --validate reads the whole file with ps_reader (which checks the structure and the end
 * record's counts) and prints a one-line summary; exit 1 if the reader rejects it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "records.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PM_PRESENT (UINT64_C(1) << 63)
#define PM_SWAP (UINT64_C(1) << 62)
#define PM_PFN_MASK ((UINT64_C(1) << 55) - 1)
#define MAX_REPORTS_PER_KIND 20

struct page {
	uint64_t va, pfn, count, flags, pagemap; /* pfn UINT64_MAX: a swapped page */
	unsigned shift;
};

struct vec {
	struct page *p;
	size_t n, cap;
};

static void push(struct vec *v, struct page pg)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 4096;
		v->p = realloc(v->p, v->cap * sizeof *v->p);
		if (!v->p) {
			fprintf(stderr, "gtcheck: out of memory\n");
			exit(2);
		}
	}
	v->p[v->n++] = pg;
}

struct smaps_vma {
	uint64_t start, end;
	char perm[5];
	uint64_t rss, pss, anon, swap, huge_mapped, hugetlb, referenced; /* kB */
};

struct rec_vma {
	uint64_t start, end;
	char perm[5];
	bool have_sum;
	struct ps_vma_sum sum;
	uint64_t huge_pages; /* pages recorded with SHIFT above the base page */
};

static unsigned n_mismatch;
static unsigned reports_by_kind[16];

enum kind { K_MISSING, K_EXTRA, K_PFN, K_MAPCOUNT, K_FLAGS, K_SWAP, K_VMA, K_RESIDENT, K_ANON,
	    K_SWAPPED, K_PSS, K_HUGE, K_REFERENCED, K_OTHER };

/* --referenced: compare smaps Referenced with the sum records' referenced. */
static bool check_referenced;
/* pagesleuth's own PFLAGS bit for PG_young; /proc/kpageflags has no such bit. */
#define PFLAG_YOUNG (UINT64_C(1) << 48)

static void mismatch(enum kind k, const char *fmt, ...)
{
	n_mismatch++;
	if (reports_by_kind[k]++ == MAX_REPORTS_PER_KIND) {
		printf("gtcheck: (further mismatches of this kind not shown)\n");
		return;
	}
	if (reports_by_kind[k] > MAX_REPORTS_PER_KIND)
		return;
	va_list ap;
	va_start(ap, fmt);
	fputs("gtcheck: mismatch: ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
}

static int validate(const char *path)
{
	char *err = NULL;
	struct ps_reader *r = ps_reader_open(path, &err);
	if (!r) {
		printf("gtcheck: %s: FAILED: %s\n", path, err ? err : "cannot open");
		free(err);
		return 1;
	}
	struct ps_record rec;
	uint64_t snapshots = 0, ends = 0, tasks = 0, mms = 0, vmas = 0, runs = 0, pages = 0;
	bool complete = true;
	int rc;
	while ((rc = ps_read(r, &rec)) == 1) {
		switch (rec.type) {
		case PS_REC_SNAPSHOT: snapshots++; break;
		case PS_REC_TASK: tasks++; break;
		case PS_REC_MM: mms++; break;
		case PS_REC_VMA: vmas++; break;
		case PS_REC_MAP: runs++, pages += rec.u.map.npages; break;
		case PS_REC_SWAP: case PS_REC_UNKNOWN_RANGE: runs++; break;
		case PS_REC_END: ends++, complete &= rec.u.end.complete; break;
		default: break;
		}
	}
	if (rc < 0) {
		printf("gtcheck: %s: FAILED: %s\n", path, ps_reader_error(r));
		ps_reader_close(r);
		return 1;
	}
	bool truncated = ps_reader_in_snapshot(r) || ends != snapshots || !snapshots;
	printf("gtcheck: %s: %" PRIu64 " snapshot(s), %" PRIu64 " tasks, %" PRIu64 " mms, %" PRIu64
	       " vmas, %" PRIu64 " runs, %" PRIu64 " pages, %s: %s\n",
	       path, snapshots, tasks, mms, vmas, runs, pages,
	       truncated ? "truncated" : complete ? "complete" : "partial",
	       truncated ? "FAILED" : "OK");
	ps_reader_close(r);
	return truncated ? 1 : 0;
}

/* ---- inputs -------------------------------------------------------------------------------- */

static void read_ground_truth_pages(const char *path, struct vec *present, struct vec *swapped)
{
	FILE *fp = fopen(path, "r");
	if (!fp) {
		perror(path);
		exit(2);
	}
	char line[512];
	unsigned long line_no = 0;
	while (fgets(line, sizeof line, fp)) {
		line_no++;
		struct page pg = { 0 };
		char pfn[32], count[32], flags[32];
		if (sscanf(line, "%" SCNx64 " %31s %31s %31s %" SCNx64, &pg.va, pfn, count, flags,
			   &pg.pagemap) != 5) {
			fprintf(stderr, "gtcheck: %s:%lu: malformed line\n", path, line_no);
			exit(2);
		}
		if (strcmp(pfn, "-") == 0) {
			pg.pfn = UINT64_MAX;
			push(swapped, pg);
		} else {
			pg.pfn = strtoull(pfn, NULL, 16);
			pg.count = strtoull(count, NULL, 10);
			pg.flags = strtoull(flags, NULL, 16);
			push(present, pg);
		}
	}
	fclose(fp);
}

static size_t read_smaps(const char *path, struct smaps_vma **out)
{
	FILE *fp = fopen(path, "r");
	if (!fp) {
		perror(path);
		exit(2);
	}
	size_t n = 0, cap = 0;
	char line[8192];
	while (fgets(line, sizeof line, fp)) {
		uint64_t start, end, kb;
		char perm[5];
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s ", &start, &end, perm) == 3) {
			if (n == cap) {
				cap = cap ? cap * 2 : 256;
				*out = realloc(*out, cap * sizeof **out);
			}
			(*out)[n++] = (struct smaps_vma){ .start = start, .end = end };
			memcpy((*out)[n - 1].perm, perm, 5);
			continue;
		}
		if (!n)
			continue;
		struct smaps_vma *v = &(*out)[n - 1];
		char key[64];
		if (sscanf(line, "%63[^:]: %" SCNu64 " kB", key, &kb) != 2)
			continue;
		if (strcmp(key, "Rss") == 0)
			v->rss = kb;
		else if (strcmp(key, "Pss") == 0)
			v->pss = kb;
		else if (strcmp(key, "Anonymous") == 0)
			v->anon = kb;
		else if (strcmp(key, "Swap") == 0)
			v->swap = kb;
		else if (strcmp(key, "Referenced") == 0)
			v->referenced = kb;
		else if (strcmp(key, "AnonHugePages") == 0 || strcmp(key, "ShmemPmdMapped") == 0 ||
			 strcmp(key, "FilePmdMapped") == 0)
			v->huge_mapped += kb;
		else if (strcmp(key, "Private_Hugetlb") == 0 || strcmp(key, "Shared_Hugetlb") == 0)
			v->hugetlb += kb;
	}
	fclose(fp);
	return n;
}

/* The records of the mm whose tgid is PID, in the first snapshot. */
static size_t read_records(const char *path, uint64_t pid, uint32_t *page_size, struct rec_vma **vmas,
			   struct vec *present, struct vec *swapped)
{
	char *err = NULL;
	struct ps_reader *r = ps_reader_open(path, &err);
	if (!r) {
		fprintf(stderr, "gtcheck: %s\n", err ? err : path);
		exit(2);
	}
	*page_size = ps_reader_header(r)->page_size;
	unsigned base_shift = ps_reader_header(r)->page_shift;
	uint64_t mm_id = PS_UNKNOWN;
	size_t n = 0, cap = 0;
	bool in_mm = false;
	struct ps_record rec;
	int rc;
	while ((rc = ps_read(r, &rec)) == 1) {
		if (rec.type == PS_REC_END)
			break;
		if (rec.type == PS_REC_MM) {
			in_mm = rec.u.mm.tgid == pid && mm_id == PS_UNKNOWN;
			if (in_mm)
				mm_id = rec.u.mm.id;
			continue;
		}
		if (!in_mm)
			continue;
		switch (rec.type) {
		case PS_REC_VMA:
			if (n == cap) {
				cap = cap ? cap * 2 : 256;
				*vmas = realloc(*vmas, cap * sizeof **vmas);
			}
			(*vmas)[n++] = (struct rec_vma){ .start = rec.u.vma.start, .end = rec.u.vma.end };
			memcpy((*vmas)[n - 1].perm, rec.u.vma.perm, 5);
			break;
		case PS_REC_MAP:
			for (uint64_t i = 0; i < rec.u.map.npages; i++) {
				const struct ps_map *m = &rec.u.map;
				push(present, (struct page){ .va = m->vaddr + i * *page_size,
					.pfn = ps_map_pfn_at(m, i),
					.count = m->mapcount,
					.flags = m->pflags == PS_UNKNOWN ? m->pflags : m->pflags & ~PFLAG_YOUNG,
					.shift = m->shift });
				if (m->shift > base_shift && n)
					(*vmas)[n - 1].huge_pages++;
			}
			break;
		case PS_REC_SWAP:
			for (uint64_t i = 0; i < rec.u.swap.npages; i++) {
				const struct ps_swap *s = &rec.u.swap;
				push(swapped, (struct page){ .va = s->vaddr + i * *page_size, .pfn = UINT64_MAX,
					.count = s->type,
					.flags = s->offset == PS_UNKNOWN ? PS_UNKNOWN : s->offset + i });
			}
			break;
		case PS_REC_UNKNOWN_RANGE:
			mismatch(K_OTHER, "u record at %" PRIx64 " (%" PRIu64 " pages): %s", rec.u.unknown.vaddr,
				 rec.u.unknown.npages, rec.u.unknown.reason);
			break;
		case PS_REC_SUM:
			if (n) {
				(*vmas)[n - 1].sum = rec.u.sum;
				(*vmas)[n - 1].have_sum = true;
			}
			break;
		default:
			break;
		}
	}
	if (rc < 0) {
		fprintf(stderr, "gtcheck: %s\n", ps_reader_error(r));
		exit(2);
	}
	ps_reader_close(r);
	if (mm_id == PS_UNKNOWN) {
		printf("gtcheck: PID %" PRIu64 ": no mm record with tgid %" PRIu64 " in %s: FAILED\n", pid, pid, path);
		exit(1);
	}
	return n;
}

/* ---- comparison ---------------------------------------------------------------------------- */

static const char *vma_of(const struct smaps_vma *sv, size_t nsv, uint64_t va, char buf[64])
{
	for (size_t i = 0; i < nsv; i++)
		if (sv[i].start <= va && va < sv[i].end) {
			snprintf(buf, 64, "VMA %" PRIx64 "-%" PRIx64, sv[i].start, sv[i].end);
			return buf;
		}
	return "no VMA";
}

/* The page at VA in the capture taken after the records, or NULL. */
static const struct vec *after_capture;

static const struct page *after_page(uint64_t va)
{
	if (!after_capture)
		return NULL;
	size_t lo = 0, hi = after_capture->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (after_capture->p[mid].va < va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < after_capture->n && after_capture->p[lo].va == va ? &after_capture->p[lo] : NULL;
}

static void compare_pages(const struct vec *truth, const struct vec *got, const struct smaps_vma *sv,
			  size_t nsv)
{
	char vb[64];
	size_t i = 0, j = 0;
	while (i < truth->n || j < got->n) {
		const struct page *t = i < truth->n ? &truth->p[i] : NULL;
		const struct page *g = j < got->n ? &got->p[j] : NULL;
		if (t && (!g || t->va < g->va)) {
			if (after_capture && !after_page(t->va)) { /* unmapped meanwhile */
				i++;
				continue;
			}
			mismatch(K_MISSING, "%s: page %" PRIx64 ": expected PFN %" PRIx64 ", got no record",
				 vma_of(sv, nsv, t->va, vb), t->va, t->pfn);
			i++;
			continue;
		}
		if (!t || g->va < t->va) {
			const struct page *a = after_page(g->va);
			if (a && a->pfn == g->pfn) { /* mapped meanwhile */
				j++;
				continue;
			}
			mismatch(K_EXTRA, "%s: page %" PRIx64 ": expected not present, got PFN %" PRIx64,
				 vma_of(sv, nsv, g->va, vb), g->va, g->pfn);
			j++;
			continue;
		}
		const struct page *a = after_page(t->va);
		if (t->pfn != g->pfn && !(a && a->pfn == g->pfn))
			mismatch(K_PFN, "%s: page %" PRIx64 ": PFN expected %" PRIx64 ", got %" PRIx64,
				 vma_of(sv, nsv, t->va, vb), t->va, t->pfn, g->pfn);
		if (t->count != g->count && !(a && a->count == g->count))
			mismatch(K_MAPCOUNT, "%s: page %" PRIx64 ": mapcount expected %" PRIu64 ", got %" PRId64,
				 vma_of(sv, nsv, t->va, vb), t->va, t->count, (int64_t)g->count);
		if (t->flags != g->flags && !(a && a->flags == g->flags))
			mismatch(K_FLAGS, "%s: page %" PRIx64 ": kpageflags expected %" PRIx64 ", got %" PRIx64,
				 vma_of(sv, nsv, t->va, vb), t->va, t->flags, g->flags);
		i++, j++;
	}
}

static void compare_swap(const struct vec *truth, const struct vec *got, const struct smaps_vma *sv,
			 size_t nsv)
{
	char vb[64];
	size_t i = 0, j = 0;
	while (i < truth->n || j < got->n) {
		const struct page *t = i < truth->n ? &truth->p[i] : NULL;
		const struct page *g = j < got->n ? &got->p[j] : NULL;
		if (t && (!g || t->va < g->va)) {
			mismatch(K_SWAP, "%s: page %" PRIx64 ": expected swapped, got no w record",
				 vma_of(sv, nsv, t->va, vb), t->va);
			i++;
		} else if (!t || g->va < t->va) {
			mismatch(K_SWAP, "%s: page %" PRIx64 ": expected not swapped, got a w record",
				 vma_of(sv, nsv, g->va, vb), g->va);
			j++;
		} else {
			uint64_t type = t->pagemap & 31, offset = (t->pagemap & PM_PFN_MASK) >> 5;
			/* Type and offset read 0 when the kernel hides them (not root). */
			if ((t->pagemap & PM_PFN_MASK) && (g->count != type || g->flags != offset))
				mismatch(K_SWAP, "%s: page %" PRIx64 ": swap expected %" PRIu64 ":%" PRIx64
					 ", got %" PRId64 ":%" PRIx64, vma_of(sv, nsv, t->va, vb), t->va,
					 type, offset, (int64_t)g->count, g->flags);
			i++, j++;
		}
	}
}

static void compare_vmas(const struct smaps_vma *sv, size_t nsv, const struct rec_vma *rv, size_t nrv,
			 uint32_t page_size)
{
	uint64_t kb_per_page = page_size / 1024;
	size_t j = 0;
	for (size_t i = 0; i < nsv; i++) {
		const struct smaps_vma *s = &sv[i];
		while (j < nrv && rv[j].start < s->start) {
			mismatch(K_VMA, "VMA %" PRIx64 "-%" PRIx64 ": expected not to exist, got a vma record",
				 rv[j].start, rv[j].end);
			j++;
		}
		if (j == nrv || rv[j].start != s->start) {
			mismatch(K_VMA, "VMA %" PRIx64 "-%" PRIx64 ": expected, got no vma record", s->start, s->end);
			continue;
		}
		const struct rec_vma *r = &rv[j++];
		if (r->end != s->end || strcmp(r->perm, s->perm) != 0) {
			mismatch(K_VMA, "VMA %" PRIx64 "-%" PRIx64 ": expected %" PRIx64 " %s, got end %" PRIx64 " %s",
				 s->start, s->end, s->end, s->perm, r->end, r->perm);
			continue;
		}
		if (!r->have_sum) {
			mismatch(K_OTHER, "VMA %" PRIx64 "-%" PRIx64 ": no sum record", s->start, s->end);
			continue;
		}
		/* smaps leaves hugetlb out of Rss and Pss; the records count it as resident. */
		uint64_t want_resident = (s->rss + s->hugetlb) / kb_per_page;
		if (r->sum.resident != want_resident)
			mismatch(K_RESIDENT, "VMA %" PRIx64 "-%" PRIx64 ": resident pages expected %" PRIu64 " (Rss), got %" PRIu64,
				 s->start, s->end, want_resident, r->sum.resident);
		if (r->sum.anon != s->anon / kb_per_page)
			mismatch(K_ANON, "VMA %" PRIx64 "-%" PRIx64 ": anon pages expected %" PRIu64 " (Anonymous), got %" PRIu64,
				 s->start, s->end, s->anon / kb_per_page, r->sum.anon);
		/* Swap: the w records, and the shmem pages swapped out that have no page-table
		 * entry (sum shmem_swap=, 1.3). */
		if (r->sum.shmem_swap == PS_UNKNOWN)
			mismatch(K_SWAPPED, "VMA %" PRIx64 "-%" PRIx64 ": swapped-out shmem written as unknown, smaps says Swap %" PRIu64 " kB",
				 s->start, s->end, s->swap);
		else if (r->sum.swapped + r->sum.shmem_swap != s->swap / kb_per_page)
			mismatch(K_SWAPPED, "VMA %" PRIx64 "-%" PRIx64 ": swapped pages expected %" PRIu64 " (Swap), got %" PRIu64
				 " (%" PRIu64 " swap entries + %" PRIu64 " shmem)",
				 s->start, s->end, s->swap / kb_per_page, r->sum.swapped + r->sum.shmem_swap,
				 r->sum.swapped, r->sum.shmem_swap);
		uint64_t pss_kb = (r->sum.pss >> PS_PSS_SHIFT) / 1024;
		if (!s->hugetlb && (pss_kb > s->pss + 1 || pss_kb + 1 < s->pss))
			mismatch(K_PSS, "VMA %" PRIx64 "-%" PRIx64 ": PSS expected %" PRIu64 " kB (Pss), got %" PRIu64 " kB",
				 s->start, s->end, s->pss, pss_kb);
		if (check_referenced && r->sum.referenced != s->referenced / kb_per_page)
			mismatch(K_REFERENCED, "VMA %" PRIx64 "-%" PRIx64 ": referenced pages expected %" PRIu64
				 " (Referenced), got %" PRIu64, s->start, s->end, s->referenced / kb_per_page,
				 r->sum.referenced);
		uint64_t want_huge = (s->huge_mapped + s->hugetlb) / kb_per_page;
		if (r->huge_pages != want_huge)
			mismatch(K_HUGE, "VMA %" PRIx64 "-%" PRIx64 ": pages in huge leaves expected %" PRIu64
				 " (AnonHugePages+ShmemPmdMapped+FilePmdMapped+hugetlb), got %" PRIu64,
				 s->start, s->end, want_huge, r->huge_pages);
	}
	for (; j < nrv; j++)
		mismatch(K_VMA, "VMA %" PRIx64 "-%" PRIx64 ": expected not to exist, got a vma record",
			 rv[j].start, rv[j].end);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--validate") == 0)
		return validate(argv[2]);
	if (argc > 1 && strcmp(argv[1], "--referenced") == 0) {
		check_referenced = true;
		argv++, argc--;
	}
	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: gtcheck [--referenced] PID RECORDS SMAPS PAGES [PAGES_AFTER]\n"
				"       gtcheck --validate RECORDS\n");
		return 2;
	}
	uint64_t pid = strtoull(argv[1], NULL, 10);
	struct vec truth = { 0 }, truth_swap = { 0 }, got = { 0 }, got_swap = { 0 };
	struct smaps_vma *sv = NULL;
	struct rec_vma *rv = NULL;
	uint32_t page_size = 0;
	read_ground_truth_pages(argv[4], &truth, &truth_swap);
	struct vec after = { 0 }, after_swap = { 0 };
	if (argc == 6) {
		read_ground_truth_pages(argv[5], &after, &after_swap);
		after_capture = &after;
	}
	size_t nsv = read_smaps(argv[3], &sv);
	size_t nrv = read_records(argv[2], pid, &page_size, &rv, &got, &got_swap);
	compare_pages(&truth, &got, sv, nsv);
	compare_swap(&truth_swap, &got_swap, sv, nsv);
	compare_vmas(sv, nsv, rv, nrv, page_size);
	printf("gtcheck: PID %" PRIu64 ": %zu VMAs, %zu pages: %s\n", pid, nsv, truth.n,
	       n_mismatch ? "FAILED" : "OK");
	free(after.p), free(after_swap.p);
	free(truth.p), free(truth_swap.p), free(got.p), free(got_swap.p), free(sv), free(rv);
	return n_mismatch ? 1 : 0;
}
