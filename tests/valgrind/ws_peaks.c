/* ws_peaks.c - injected working-set peaks (tests/cases/valgrind_peaks.sh).
 * A steady phase touches BASE pages again and again; twice it is interrupted by a spike
 * that touches many other pages: spike_big (SPIKE_BIG pages) and later spike_small
 * (SPIKE_SMALL pages), each called from its own marked line of main. Peak detection must
 * find exactly these two data peaks, with the spike function's loop line innermost and
 * main's call line as its caller. Prints where its steady pages are (hot-page check).
 * Built with -O0 -g. */
#define _GNU_SOURCE /* MAP_FIXED_NOREPLACE */
#include <stddef.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pagesleuth.h"

#define PAGE 4096
#define BASE 6
#define BASE_ADDR 0x5a5a000000ul
#define SPIKE_BIG 600
#define SPIKE_SMALL 250

static char *base, *big, *small;

__attribute__((noinline)) static void steady(long rounds)
{
	for (long r = 0; r < rounds; r++)
		for (long i = 0; i < BASE; i++)
			base[i * PAGE] += 1;
}

/* Each spike lasts several sampling intervals, so the sample that first sees it (the
 * peak's onset, whose stack is recorded) falls inside the spike's loop. */
__attribute__((noinline)) static void spike_big(void)
{
	for (long pass = 0; pass < 12; pass++)         /* LOOP_BIG_FIRST */
		for (long i = 0; i < SPIKE_BIG; i++)
			big[i * PAGE] = (char)pass;    /* LOOP_BIG_LAST */
}

__attribute__((noinline)) static void spike_small(void)
{
	for (long pass = 0; pass < 30; pass++)         /* LOOP_SMALL_FIRST */
		for (long i = 0; i < SPIKE_SMALL; i++)
			small[i * PAGE] = (char)pass;  /* LOOP_SMALL_LAST */
}

int main(void)
{
	/* at an address nothing used before, so its pages' access counts are steady's alone */
	base = mmap((void *)BASE_ADDR, BASE * PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	big = mmap(NULL, SPIKE_BIG * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	small = mmap(NULL, SPIKE_SMALL * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED || big == MAP_FAILED || small == MAP_FAILED)
		return 1;
	/* printed now, inside the detector's warm-up, not as a late bump of stdio pages */
	printf("base=%lx pages=%d\n", (unsigned long)base, BASE);
	fflush(stdout);
	steady(40000);
	PAGESLEUTH_MARK("big");
	spike_big(); /* CALL_BIG */
	PAGESLEUTH_MARK("steady");
	steady(40000);
	PAGESLEUTH_MARK("small");
	spike_small(); /* CALL_SMALL */
	PAGESLEUTH_MARK("steady");
	steady(40000);
	/* _exit, not return: exit()'s stdio clean-up touches ~26 pages of libc at once, a real
	 * third peak after 6-page steady phases whose detection depends on the environment's
	 * size (it was found in the full suite, not alone). stdout is already flushed. */
	_exit(0);
}
