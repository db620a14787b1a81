/* bench_records.c - hand-run throughput check of the record reader's hot path (m records)
 * and of the writer. Not a test: nothing asserts a time.
 *
 *   gcc -std=gnu11 -D_GNU_SOURCE -O2 -Ilib fuzz/bench_records.c lib/record_*.c lib/atomic_file.c \
 *       -o /tmp/bench_records && /tmp/bench_records [MILLION_LINES] [FILE] [keep|read]
 *
 * Writes MILLION_LINES (default 10) million m lines (PFNs not contiguous, so nothing merges)
 * into FILE (default /tmp/bench_records.rec, removed afterwards), then reads it back
 * (page cache warm) and prints records per second for both directions. "keep" keeps FILE,
 * "read" only reads an existing FILE (to compare readers on one file).
 */
#include "records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	uint64_t n = (argc > 1 ? strtoull(argv[1], NULL, 10) : 10) * 1000000;
	const char *path = argc > 2 ? argv[2] : "/tmp/bench_records.rec";
	bool read_only = argc > 3 && strcmp(argv[3], "read") == 0; /* FILE kept from a run */
	char *err = NULL;
	double t0, t1;
	if (read_only)
		goto read;
	struct ps_writer *w = ps_writer_open(path, &err);
	if (!w) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	struct ps_header h = { .source = "test", .arch = "x86_64", .page_size = 4096 };
	struct ps_snapshot s = { .seq = 0, .time = "t", .uptime_ns = PS_UNKNOWN };
	struct ps_task t = { .pid = 1, .tgid = 1, .mm = 1, .comm = "bench", .state = 'R' };
	struct ps_mm mm = { .id = 1, .tgid = 1, .kaddr = PS_UNKNOWN, .exe = "/bin/bench" };
	struct ps_vma v = { .mm = 1, .start = 0x7f0000000000, .end = 0x7f0000000000 + (n << 12),
			    .perm = "rw-p", .vmflags = PS_UNKNOWN, .path = "", .unit = "",
			    .kind = PS_KIND_ANON };
	ps_write_header(w, &h), ps_write_snapshot(w, &s), ps_write_task(w, &t);
	ps_write_mm(w, &mm), ps_write_vma(w, &v);
	t0 = now();
	for (uint64_t i = 0; i < n; i++) {
		struct ps_map m = { .mm = 1, .vaddr = v.start + (i << 12), .pfn = 0x1a2b00 + 2 * i,
				    .npages = 1, .mapcount = 1 + (i & 3), .refcount = 2 + (i & 3),
				    .pte = { .set = 0x0d | (i & 0x10), .known = 0xff },
				    .pflags = 0x5868, .shift = 12 };
		ps_write_map(w, &m);
	}
	ps_write_end(w, true);
	if (ps_writer_close(w, false, &err) < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	t1 = now();
	printf("write: %llu m records in %.2f s = %.2f M records/s\n", (unsigned long long)n,
	       t1 - t0, (double)n / (t1 - t0) / 1e6);

read:
	for (int round = 0; round < 3; round++) {
		struct ps_reader *r = ps_reader_open(path, &err);
		if (!r) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		struct ps_record rec;
		uint64_t maps = 0, pages = 0;
		int rc;
		t0 = now();
		while ((rc = ps_read(r, &rec)) > 0)
			if (rec.type == PS_REC_MAP)
				maps++, pages += rec.u.map.npages;
		t1 = now();
		if (rc < 0 || maps != n || pages != n) {
			fprintf(stderr, "read failed: %s (%llu maps)\n", ps_reader_error(r),
				(unsigned long long)maps);
			return 1;
		}
		printf("read:  %llu m records in %.2f s = %.2f M records/s\n",
		       (unsigned long long)maps, t1 - t0, (double)maps / (t1 - t0) / 1e6);
		ps_reader_close(r);
	}
	if (!read_only && !(argc > 3 && strcmp(argv[3], "keep") == 0))
		unlink(path);
	return 0;
}
