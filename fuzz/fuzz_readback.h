/* fuzz_readback.h - shared by the walker fuzzers: the records the walker wrote must read
 * back through the record reader (a walker that writes what the reader refuses is a bug,
 * e.g. a decimal near 2^64 read from a corrupt task). Aborts, printing the records, if not. */
#ifndef PAGESLEUTH_FUZZ_READBACK_H
#define PAGESLEUTH_FUZZ_READBACK_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "records.h"

static void read_back(const char *out, size_t outlen)
{
	int fd = memfd_create("walker-out", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	for (size_t done = 0; done < outlen;) {
		ssize_t w = write(fd, out + done, outlen - done);
		if (w <= 0)
			abort();
		done += (size_t)w;
	}
	lseek(fd, 0, SEEK_SET);
	char *err = NULL;
	struct ps_reader *r = ps_reader_open_fd(fd, "walker-out", &err);
	if (!r) {
		fprintf(stderr, "walker output does not open: %s\n---\n%.*s\n", err, (int)outlen, out);
		abort();
	}
	struct ps_record rec;
	int rc;
	while ((rc = ps_read(r, &rec)) == 1)
		;
	if (rc < 0) {
		fprintf(stderr, "walker output does not read back: %s\n---\n%.*s\n", ps_reader_error(r),
			(int)outlen, out);
		abort();
	}
	ps_reader_close(r);
	close(fd);
}

#endif
