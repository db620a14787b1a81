/* read_only.c - the record reader alone: ps_read over a file, counting records and pages.
 * The parse-speed floor for `pagesleuth report` (which adds the model on top).
 *
 * usage: read_only FILE   prints "records=N m_records=N m_pages=N seconds=S m_per_s=R"
 */
#include "records.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: read_only FILE\n");
		return 2;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	char *err = NULL;
	struct ps_reader *r = ps_reader_open(argv[1], &err);
	if (!r) {
		fprintf(stderr, "read_only: %s\n", err);
		return 2;
	}
	struct ps_record rec;
	unsigned long long records = 0, maps = 0, pages = 0, check = 0;
	int rc;
	while ((rc = ps_read(r, &rec)) > 0) {
		records++;
		if (rec.type == PS_REC_MAP) {
			maps++;
			pages += rec.u.map.npages;
			check += rec.u.map.pfn ^ rec.u.map.mapcount; /* use the fields */
		}
	}
	if (rc < 0) {
		fprintf(stderr, "read_only: %s\n", ps_reader_error(r));
		return 2;
	}
	ps_reader_close(r);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("records=%llu m_records=%llu m_pages=%llu seconds=%.3f m_per_s=%.0f check=%llx\n",
	       records, maps, pages, s, (double)maps / s, check & 0xff);
	return 0;
}
