/* replay_reads -- the "just read the bytes" floor for bench/extract.sh.
 *
 *   replay_reads DUMP READS [REPS]
 *
 * READS lists the physical reads a full user-page walk needs ("t PA LEN" per page-table page,
 * "p PA LEN" per struct page, in walk order), as written by bench/drgn_walk.py --dump-reads.
 * The list is loaded first (not timed); then, through pagesleuth's own dump back-end
 * (coredump/dump.c: plain ELF or libkdumpfile, the reader `pagesleuth extract` uses), it
 * times two replays, each the best of REPS (default 3) runs:
 *   walk-order  every read as listed: each table page once per walk, each struct page
 *               once per mapping (a naive reader)
 *   distinct    each distinct dump page touched, read once, in address order, with all the
 *               bytes needed from it in one read (the least any reader must fetch: for a
 *               kdump, each such page is decompressed exactly once)
 * The distinct replay is the floor `pagesleuth extract` is compared with. Each run opens the
 * dump afresh (not timed): the reader's decompressed-page cache starts empty, as extract's
 * does. Prints one line per replay: reads, bytes, seconds.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dump.h"

struct rd {
	uint64_t pa;
	uint32_t len;
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_rd(const void *a, const void *b)
{
	const struct rd *x = a, *y = b;
	return x->pa < y->pa ? -1 : x->pa > y->pa;
}

/* Sort, then merge overlapping/adjacent reads that stay inside one page. */
static size_t distinct_pages(struct rd *r, size_t n, uint64_t psz)
{
	qsort(r, n, sizeof *r, cmp_rd);
	size_t out = 0;
	for (size_t i = 0; i < n; i++) {
		if (out) {
			struct rd *last = &r[out - 1];
			uint64_t lend = last->pa + last->len;
			if (r[i].pa <= lend && (r[i].pa & ~(psz - 1)) == (last->pa & ~(psz - 1))) {
				uint64_t end = r[i].pa + r[i].len;
				if (end > lend)
					last->len = (uint32_t)(end - last->pa);
				continue;
			}
		}
		r[out++] = r[i];
	}
	return out;
}

static double replay(const struct ps_target *t, const struct rd *r, size_t n, unsigned char *buf,
		     uint64_t *bytes, size_t *failed)
{
	double t0 = now();
	*bytes = 0;
	*failed = 0;
	for (size_t i = 0; i < n; i++) {
		if (t->ops->read_phys(t->ctx, r[i].pa, buf, r[i].len) != PS_READ_OK)
			(*failed)++;
		*bytes += r[i].len;
	}
	return now() - t0;
}

static struct ps_dump *open_dump(const char *path)
{
	char *warnings = NULL, *err = NULL;
	struct ps_dump *d = ps_dump_open(path, &warnings, &err);
	if (!d)
		fprintf(stderr, "replay_reads: %s\n", err ? err : path);
	free(warnings);
	free(err);
	return d;
}

static struct ps_dump *reopen(struct ps_dump *d, const char *path, const struct ps_target **t)
{
	ps_dump_close(d);
	d = open_dump(path);
	if (d)
		*t = ps_dump_target(d);
	return d;
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: replay_reads DUMP READS [REPS]\n");
		return 2;
	}
	int reps = argc == 4 ? atoi(argv[3]) : 3;
	if (reps < 1)
		reps = 1;
	FILE *f = fopen(argv[2], "r");
	if (!f) {
		perror(argv[2]);
		return 2;
	}
	size_t n = 0, cap = 1 << 16;
	struct rd *r = malloc(cap * sizeof *r);
	char kind;
	uint64_t pa;
	unsigned len;
	unsigned long line = 0;
	while (r && fscanf(f, " %c %" SCNx64 " %u", &kind, &pa, &len) == 3) {
		line++;
		if ((kind != 't' && kind != 'p') || len == 0 || len > 65536) {
			fprintf(stderr, "%s:%lu: bad read line\n", argv[2], line);
			return 2;
		}
		if (n == cap) {
			cap *= 2;
			struct rd *nr = realloc(r, cap * sizeof *r);
			if (!nr)
				break;
			r = nr;
		}
		r[n++] = (struct rd){ pa, len };
	}
	fclose(f);
	if (!r || n == 0) {
		fprintf(stderr, "%s: no reads\n", argv[2]);
		return 2;
	}

	struct ps_dump *d = open_dump(argv[1]);
	if (!d)
		return 2;
	const struct ps_target *t = ps_dump_target(d);
	uint64_t psz = t->page_size ? t->page_size : 4096;
	unsigned char *buf = malloc(65536 + psz);
	if (!buf)
		return 2;

	uint64_t bytes = 0;
	size_t failed = 0;
	double best = 1e30;
	for (int i = 0; i < reps; i++) {
		if (i && !(d = reopen(d, argv[1], &t)))
			return 2;
		double s = replay(t, r, n, buf, &bytes, &failed);
		if (s < best)
			best = s;
	}
	printf("replay walk-order: reads %zu bytes %" PRIu64 " failed %zu seconds %.4f\n", n, bytes,
	       failed, best);

	size_t m = distinct_pages(r, n, psz);
	best = 1e30;
	for (int i = 0; i < reps; i++) {
		if (!(d = reopen(d, argv[1], &t)))
			return 2;
		double s = replay(t, r, m, buf, &bytes, &failed);
		if (s < best)
			best = s;
	}
	printf("replay distinct: reads %zu bytes %" PRIu64 " failed %zu seconds %.4f\n", m, bytes,
	       failed, best);
	ps_dump_close(d);
	free(buf);
	free(r);
	return 0;
}
