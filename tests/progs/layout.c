/* layout.c - a process pair with a known memory layout, for checking `pagesleuth snap`
 * against the kernel's own view (smaps, pagemap, kpagecount, kpageflags).
 *
 * usage: layout [ANON_MIB [STRIDE]]      (defaults: 4 MiB, every 2nd page written)
 *
 * Regions (addresses printed on one line, then both processes block until killed):
 *   anon    ANON_MIB of MAP_PRIVATE anonymous memory, every STRIDE-th page written before
 *           fork; the child then writes the first half of those pages again (COW: half
 *           stay shared with mapcount 2, half become private copies in each process).
 *   zero    64 anonymous pages only read: mapped to the shared zero page, which smaps does
 *           not count as resident.
 *   shared  64 pages MAP_SHARED|MAP_ANONYMOUS (shmem), written by the parent before fork
 *           and all written again by the child: mapcount 2.
 *   file    a 16-page MAP_PRIVATE file mapping, all read, every 4th page written (COW anon
 *           pages inside a file VMA). The file is unlinked at once: its path ends in
 *           " (deleted)", which exercises percent-encoding.
 *   thp     a 2 MiB-aligned region with MADV_HUGEPAGE, fully written: a PMD-mapped THP when
 *           THP is available (shared with the child, mapcount 2).
 *
 * Each region is a VMA of its own (see map_or_die).
 * Output line: "ready parent=P child=C anon=ADDR zero=ADDR shared=ADDR file=ADDR thp=ADDR".
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define ZERO_PAGES 64
#define SHARED_PAGES 64
#define FILE_PAGES 16
#define THP_SIZE (2u << 20)

static void die(const char *what)
{
	fprintf(stderr, "layout: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* Each region is followed by a PROT_NONE guard page, so the kernel cannot merge it with a
 * neighbouring mapping of the same kind: every region is a VMA of its own. */
static void *map_or_die(size_t len, int prot, int flags, int fd, const char *what)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, len + page, prot, flags, fd, 0);
	if (p == MAP_FAILED || mprotect(p + len, page, PROT_NONE) != 0)
		die(what);
	return p;
}

int main(int argc, char **argv)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t anon_len = (argc > 1 ? strtoull(argv[1], NULL, 0) : 4) << 20;
	size_t stride = argc > 2 ? strtoull(argv[2], NULL, 0) : 2;
	if (!anon_len || !stride) {
		fprintf(stderr, "usage: layout [ANON_MIB [STRIDE]]\n");
		return 2;
	}

	volatile char *anon = map_or_die(anon_len, PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, "mmap anon");
	/* Keep THP out of the plain regions: their page counts must be exact. */
	madvise((void *)anon, anon_len, MADV_NOHUGEPAGE);
	for (size_t off = 0; off < anon_len; off += stride * page)
		anon[off] = 1;

	volatile char *zero = map_or_die(ZERO_PAGES * page, PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, "mmap zero");
	madvise((void *)zero, ZERO_PAGES * page, MADV_NOHUGEPAGE);
	unsigned sink = 0;
	for (size_t off = 0; off < ZERO_PAGES * page; off += page)
		sink += (unsigned char)zero[off];

	volatile char *shared = map_or_die(SHARED_PAGES * page, PROT_READ | PROT_WRITE,
					   MAP_SHARED | MAP_ANONYMOUS, -1, "mmap shared");
	for (size_t off = 0; off < SHARED_PAGES * page; off += page)
		shared[off] = 2;

	char path[] = "/tmp/layout file.XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		die("mkstemp");
	char *content = malloc(FILE_PAGES * page);
	memset(content, 'f', FILE_PAGES * page);
	if (write(fd, content, FILE_PAGES * page) != (ssize_t)(FILE_PAGES * page))
		die("write file");
	free(content);
	volatile char *file = map_or_die(FILE_PAGES * page, PROT_READ | PROT_WRITE, MAP_PRIVATE,
					 fd, "mmap file");
	close(fd);
	unlink(path);
	for (size_t i = 0; i < FILE_PAGES; i++) {
		sink += (unsigned char)file[i * page];
		if (i % 4 == 0)
			file[i * page] = 'c';
	}

	char *thp_area = map_or_die(2 * THP_SIZE, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, "mmap thp");
	volatile char *thp = (char *)(((uintptr_t)thp_area + THP_SIZE - 1) & ~(uintptr_t)(THP_SIZE - 1));
	madvise((void *)thp, THP_SIZE, MADV_HUGEPAGE);
	for (size_t off = 0; off < THP_SIZE; off += page)
		thp[off] = 3;

	int ready[2];
	if (pipe(ready) < 0)
		die("pipe");
	pid_t parent = getpid();
	pid_t child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		size_t touched = (anon_len + stride * page - 1) / (stride * page);
		for (size_t i = 0; i < touched / 2; i++)
			anon[i * stride * page] = 4;
		for (size_t off = 0; off < SHARED_PAGES * page; off += page)
			shared[off] = 5;
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	char c;
	if (read(ready[0], &c, 1) != 1) {
		kill(child, SIGKILL);
		die("child did not start");
	}
	printf("ready parent=%d child=%d anon=%lx zero=%lx shared=%lx file=%lx thp=%lx sink=%u\n",
	       (int)parent, (int)child, (unsigned long)anon, (unsigned long)zero,
	       (unsigned long)shared, (unsigned long)file, (unsigned long)thp, sink & 1);
	fflush(stdout);
	for (;;)
		pause();
}
