/* fork_child.c - a program with children (tests/cases/valgrind_out.sh): one child touches
 * pages and exits, another execs argv[1] (as system() and popen() do), and the parent goes
 * on after both, marks "parent", and exits. The children run inside the parent's Valgrind
 * process image, with its record file open: they must leave it alone. */
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pagesleuth.h"

#define PAGE 4096

static void touch(char *p, int npages, char v)
{
	for (int i = 0; i < npages; i++)
		p[(size_t)i * PAGE] = v;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 3;
	char *m = mmap(NULL, 40 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 1;
	touch(m, 20, 1);
	pid_t a = fork();
	if (a == 0) {
		touch(m, 40, 2);
		_exit(0);
	}
	pid_t b = fork();
	if (b == 0) {
		execv(argv[1], argv + 1);
		_exit(2);
	}
	int sa = 1, sb = 1;
	if (a < 0 || b < 0 || waitpid(a, &sa, 0) != a || waitpid(b, &sb, 0) != b || sa || sb)
		return 4;
	touch(m, 30, 3);
	PAGESLEUTH_MARK("parent");
	return 0;
}
