/* exec_after.c - a program that execs (tests/cases/valgrind_out.sh): it touches 20 pages,
 * marks "before", tries to exec a file that does not exist and a file that is not executable
 * (both fail: the program goes on, as execvp does through PATH), touches 30 more pages, marks
 * "after", then execs argv[1] with argv[1..]. `exec_after` alone exits 3 instead. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pagesleuth.h"

#define PAGE 4096

static void touch(char *p, int npages)
{
	for (int i = 0; i < npages; i++)
		p[(size_t)i * PAGE] = 1;
}

int main(int argc, char **argv)
{
	char *m = mmap(NULL, 50 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 1;
	touch(m, 20);
	PAGESLEUTH_MARK("before");
	char *none[] = { "/nonexistent/pagesleuth-test", NULL };
	execv(none[0], none);             /* ENOENT */
	char *text[] = { "/etc/passwd", NULL };
	execv(text[0], text);             /* EACCES: not executable */
	touch(m + 20 * PAGE, 30);
	PAGESLEUTH_MARK("after");
	if (argc < 2)
		return 3;
	execv(argv[1], argv + 1);
	return 2;
}
