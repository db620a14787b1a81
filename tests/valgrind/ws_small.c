/* ws_small.c - a small program both routes measure (tests/cases/lackey_vs_tool.sh): the
 * pagesleuth tool and stock Lackey's --trace-mem output through `pagesleuth lackey`.
 * Linked statically (no dynamic loader, no malloc replacement: both tools run exactly the
 * same guest instructions); it prints its initial stack address so the test can check both
 * runs had the same stack layout. A few phases of different page counts; a mark at main's
 * start (built dynamically too: the dynamic loader runs before it). */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>

#include "pagesleuth.h"

#define PAGE 4096

static char table[40 * PAGE];

__attribute__((noinline)) static void sweep(char *p, long npages, long stride, long passes)
{
	for (long r = 0; r < passes; r++)
		for (long i = 0; i < npages; i += stride)
			p[i * PAGE + (r & 63)] += (char)r;
}

int main(int argc, char **argv)
{
	(void)argc;
	PAGESLEUTH_MARK("main"); /* the dynamic loader's work (if any) comes before */
	char *m = mmap(NULL, 100 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 1;
	sweep(table, 40, 1, 30);
	sweep(m, 100, 2, 20);
	sweep(m, 100, 5, 40);
	sweep(table, 40, 3, 60);
	sweep(m, 10, 1, 200);
	printf("stack=%lx\n", (unsigned long)(uintptr_t)argv);
	return 0;
}
