/* ws_saw.c - a sawtooth working set through glibc's malloc (tests/cases/lackey_vs_tool.sh):
 * TEETH times the data working set climbs in STEPS steps of STEP pages (PASSES passes over
 * the first s * STEP pages of one malloc'd buffer at step s) and drops to the buffer's first
 * page for LOW passes, with small malloc/free traffic between the teeth (glibc's own code
 * and metadata: what replacing malloc changes). The peaks a person points at: the tops of
 * the teeth, all of one height (STEPS * STEP pages and the loop's frame: the window that
 * spans the drop holds nothing else).
 * Prints its initial stack address (the test checks both runs had the same layout). Built
 * statically (both Valgrind tools then run the very same instructions) and dynamically. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define PAGE 4096
#define TEETH 4
#define STEPS 6
#define STEP 8
#define PASSES 40
#define LOW 2000

__attribute__((noinline)) static void tooth(volatile char *buf)
{
	for (long s = 1; s <= STEPS; s++)
		for (long pass = 0; pass < PASSES; pass++)
			for (long i = 0; i < s * STEP; i++)
				buf[i * PAGE] += 1;
	for (long pass = 0; pass < LOW; pass++)
		buf[0] += 1;
}

int main(void)
{
	int here;
	printf("stack=%lx\n", (unsigned long)(uintptr_t)&here & ~4095ul);
	fflush(stdout);
	char *buf = malloc((size_t)STEPS * STEP * PAGE);
	if (!buf)
		return 1;
	for (int k = 0; k < TEETH; k++) {
		/* blocks of a few sizes, freed in another order than allocated */
		void *small[16];
		for (int i = 0; i < 16; i++)
			small[i] = malloc((size_t)(16 + 40 * i));
		for (int i = 0; i < 16; i += 2)
			free(small[i]);
		for (int i = 1; i < 16; i += 2)
			free(small[i]);
		tooth(buf);
	}
	free(buf);
	return 0;
}
