/* Per-object access counts the test can compute by hand (tests/cases/valgrind_objects.sh).
 * Built -g -O0: every access below is one load or store instruction on the object (checked
 * against the disassembly, see the case script); loop counters, `sum` and the pointers live on
 * the stack, which is no object. No stdio: its buffers would be heap objects of their own.
 *
 *   heap_block (malloc(4000) in fill_heap):  1000 stores of 4 bytes, then 500 loads of 8 bytes
 *   garr (int[1000], global):                1000 stores of 4 bytes, then 500 loads of 8 bytes
 *   gcount (static long):                    10 increments = 10 loads + 10 stores of 8 bytes
 *   make_many (100 blocks of 64..163 bytes at one call stack): one object, blocks=100,
 *                                            size=163, one 4-byte store into each block;
 *                                            called from two lines of main, so two objects,
 *                                            or one of blocks=200 with --obj-stack-depth=1
 *   sink (volatile long, global):            1 store of 8 bytes
 */
#include <stdlib.h>

int garr[1000];
static long gcount;
volatile long sink;

/* noinline: each function is its own frame, so the allocation stacks differ. */
__attribute__((noinline)) static int *fill_heap(void)
{
	int *p = malloc(4000);
	for (int i = 0; i < 1000; i++)
		p[i] = i;
	return p;
}

__attribute__((noinline)) static long read_heap(int *p)
{
	long sum = 0;
	long *q = (long *)p;
	for (int i = 0; i < 500; i++)
		sum += q[i];
	return sum;
}

__attribute__((noinline)) static long use_globals(void)
{
	for (int i = 0; i < 1000; i++)
		garr[i] = i;
	long sum = 0;
	long *q = (long *)garr;
	for (int i = 0; i < 500; i++)
		sum += q[i];
	for (int i = 0; i < 10; i++)
		gcount++;
	return sum;
}

__attribute__((noinline)) static void make_many(void **blocks)
{
	for (int i = 0; i < 100; i++) {
		int *b = malloc(64 + i);
		*b = i;
		blocks[i] = b;
	}
}

int main(void)
{
	int *p = fill_heap();
	long s = read_heap(p);
	s += use_globals();
	void *blocks[100];
	for (int round = 0; round < 2; round++) {
		if (round == 0)
			make_many(blocks); /* two call sites: two stacks, one function */
		else
			make_many(blocks);
		for (int i = 0; i < 100; i++)
			free(blocks[i]);
	}
	free(p);
	sink = s; /* keeps the loads */
	return 0;
}
