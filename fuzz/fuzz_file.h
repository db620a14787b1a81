/* fuzz_file.h - for harnesses whose code under test reads a path: the input is written to one
 * file in a private directory, rewritten for every input (the same inode each time, so the
 * evidence checks' list of inputs does not grow). */
#ifndef PAGESLEUTH_FUZZ_FILE_H
#define PAGESLEUTH_FUZZ_FILE_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A directory of its own under $TMPDIR, made once; PATH gets DIR/NAME. */
static void fz_private_path(char *path, size_t cap, const char *name)
{
	static char dir[256];
	if (!dir[0]) {
		snprintf(dir, sizeof dir, "%s/pagesleuth-fuzz.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		if (!mkdtemp(dir))
			abort();
	}
	snprintf(path, cap, "%s/%s", dir, name);
}

static void fz_write_file(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		abort();
	for (size_t done = 0; done < size;) {
		ssize_t w = write(fd, data + done, size - done);
		if (w <= 0)
			abort();
		done += (size_t)w;
	}
	close(fd);
}

/* The whole file PATH (NUL-terminated, *len without the NUL), or NULL. */
static char *fz_read_file(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return NULL;
	char *buf = NULL;
	size_t cap = 0, n = 0, got;
	do {
		if (cap - n < 65536 && !(buf = realloc(buf, cap = cap * 2 + 65536)))
			abort();
		got = fread(buf + n, 1, cap - n - 1, fp);
		n += got;
	} while (got > 0);
	fclose(fp);
	buf[n] = 0;
	*len = n;
	return buf;
}

#endif
