/* ws_threads.c - two threads sharing pages (tests/cases/valgrind_ws.sh).
 * Both threads write all SHARED pages of one mapping and their own PRIV_A / PRIV_B pages,
 * over and over, with no calls in the loop: inside the common phase (after both start
 * marks, before the first done mark) a window holds, per thread, SHARED + its private pages
 * + its frame pages, and for the whole process SHARED (once) + PRIV_A + PRIV_B + both
 * frames. Job a runs on the main thread (tool thread 1), job b on the one thread it creates
 * (2): no third thread runs code during the phase (a main thread waiting in pthread_join
 * would, resolving symbols lazily). Prints the frames' page spans. -O0 -g -pthread. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>

#include "pagesleuth.h"

#include "frame_span.h"

#define PAGE 4096
#define SHARED 24
#define PRIV_A 8
#define PRIV_B 40
#define PASSES 30000

static char *shared;
static pthread_barrier_t start, stop;

struct job {
	const char *name;
	long npriv;
	char *priv;
	long frame_pages;
};

__attribute__((noinline)) static void work(char *sh, char *priv, long npriv, long passes, long *span)
{
	long pass, i;
	uintptr_t lo = (uintptr_t)&i, hi = FRAME_TOP();
	SPAN(i); SPAN(pass); SPAN(sh); SPAN(priv); SPAN(npriv); SPAN(passes); SPAN(span);
	*span = (long)(hi / PAGE - lo / PAGE + 1);
	for (pass = 0; pass < passes; pass++) {
		for (i = 0; i < SHARED; i++)
			sh[i * PAGE] = (char)pass;
		for (i = 0; i < npriv; i++)
			priv[i * PAGE] = (char)pass;
	}
}

static void *run(void *arg)
{
	struct job *j = arg;
	pthread_barrier_wait(&start);
	PAGESLEUTH_MARK(j->name);
	work(shared, j->priv, j->npriv, PASSES, &j->frame_pages);
	PAGESLEUTH_MARK("done");
	pthread_barrier_wait(&stop);
	return NULL;
}

int main(void)
{
	struct job a = { "start a", PRIV_A, NULL, 0 }, b = { "start b", PRIV_B, NULL, 0 };
	shared = mmap(NULL, SHARED * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	a.priv = mmap(NULL, PRIV_A * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	b.priv = mmap(NULL, PRIV_B * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED || a.priv == MAP_FAILED || b.priv == MAP_FAILED)
		return 1;
	pthread_barrier_init(&start, NULL, 2);
	pthread_barrier_init(&stop, NULL, 2);
	pthread_t tb;
	if (pthread_create(&tb, NULL, run, &b) != 0)
		return 1;
	run(&a);
	pthread_join(tb, NULL);
	printf("shared=%d a_priv=%d b_priv=%d a_frame=%ld b_frame=%ld\n", SHARED, PRIV_A, PRIV_B,
	       a.frame_pages, b.frame_pages);
	return 0;
}
