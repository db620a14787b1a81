/* ws_ramp.c - a page ramp with known working sets (tests/cases/valgrind_ws.sh).
 *
 * Phase i (i = 0..PHASES-1) claims NPAGES[i] pages with mmap, touches every second one
 * (pages 0, 2, 4, ...: (n+1)/2 pages) in PASSES passes, and releases them with munmap.
 * PAGESLEUTH_MARK("phase i") / ("end i") bracket the touching loop, which is one function
 * on its own code page that makes no calls: inside a phase the only data it touches are
 * the ramp's pages and its own stack frame, and the only code its own page. So a window
 * (t - tau, t] lying inside a phase, longer than one pass, holds exactly
 *   data = (NPAGES[i] + 1) / 2 + frame pages,   code = 1.
 * The program prints the page span of the loop's frame ("frame_pages=N") so the test knows
 * it without asking the tool. Built with -O0 -g. */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>

#include "pagesleuth.h"

#include "frame_span.h"

#define PAGE 4096
#define PASSES 400
static const long NPAGES[] = { 16, 64, 160, 64, 9 };
#define PHASES (sizeof NPAGES / sizeof NPAGES[0])

static long frame_pages[PHASES];

/* Its own code page; no calls inside, so its frame is all the stack it touches. */
__attribute__((noinline, aligned(4096))) static void ramp(volatile char *buf, long npages,
							     long passes, long *span)
{
	long pass, i;
	/* the frame: from the lowest local up to FRAME_TOP() or its highest local */
	uintptr_t lo = (uintptr_t)&i, hi = FRAME_TOP();
	SPAN(i); SPAN(pass); SPAN(buf); SPAN(npages); SPAN(passes); SPAN(span);
	*span = (long)(hi / PAGE - lo / PAGE + 1);
	for (pass = 0; pass < passes; pass++)
		for (i = 0; i < npages; i += 2)
			buf[i * PAGE] = (char)pass;
}

int main(void)
{
	char text[32];
	for (unsigned p = 0; p < PHASES; p++) {
		char *buf = mmap(NULL, (size_t)NPAGES[p] * PAGE, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (buf == MAP_FAILED)
			return 1;
		snprintf(text, sizeof text, "phase %u", p);
		PAGESLEUTH_MARK(text);
		ramp(buf, NPAGES[p], PASSES, &frame_pages[p]);
		snprintf(text, sizeof text, "end %u", p);
		PAGESLEUTH_MARK(text);
		munmap(buf, (size_t)NPAGES[p] * PAGE);
	}
	for (unsigned p = 0; p < PHASES; p++)
		printf("phase=%u npages=%ld touched=%ld frame_pages=%ld\n", p, NPAGES[p],
		       (NPAGES[p] + 1) / 2, frame_pages[p]);
	return 0;
}
