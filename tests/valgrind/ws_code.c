/* ws_code.c - code working set with known pages (tests/cases/valgrind_ws.sh).
 * main's loop and four functions each start on their own code page (aligned(4096)) and are
 * far smaller than a page. Phase "two" runs main's loop calling f1 and f2; phase "four"
 * calls f1..f4. Inside a phase no other code runs (the functions call nothing), so a window
 * inside phase "two" holds 3 code pages (the loop + f1 + f2) and one inside "four" 5.
 * Built with -O0 -g. */
#include "pagesleuth.h"

#define ROUNDS 20000
static volatile long sink;

__attribute__((noinline, aligned(4096))) static void f1(void) { sink += 1; }
__attribute__((noinline, aligned(4096))) static void f2(void) { sink += 2; }
__attribute__((noinline, aligned(4096))) static void f3(void) { sink += 3; }
__attribute__((noinline, aligned(4096))) static void f4(void) { sink += 4; }

__attribute__((noinline, aligned(4096))) static void loop(int n)
{
	for (long r = 0; r < ROUNDS; r++) {
		f1();
		f2();
		if (n == 4) {
			f3();
			f4();
		}
	}
}

int main(void)
{
	PAGESLEUTH_MARK("two");
	loop(2);
	PAGESLEUTH_MARK("end two");
	PAGESLEUTH_MARK("four");
	loop(4);
	PAGESLEUTH_MARK("end four");
	return 0;
}
