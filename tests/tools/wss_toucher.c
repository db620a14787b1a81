/* wss_toucher.c - a process whose page touching is known, for tests/cases/live_wss.sh and
 * live_every.sh (pagesleuth wss, snap --every).
 *
 *   wss_toucher hot N K PERIOD_MS [LIFETIME_MS]
 *       N anonymous pages, all written once; then the first K are read again every PERIOD_MS
 *       ms (its working set: K pages, plus the few of its own stack and text). Exits after
 *       LIFETIME_MS when given. A pass that starts more than 50 ms late (the process was not
 *       run: a busy machine, a vCPU the host did not schedule) prints "late GAP_MS at T_MS"
 *       (T since ready), so a test can tell a missed window from a wrong measurement.
 *   wss_toucher steps N K prefault|fresh
 *       N anonymous pages (written once first with prefault; left unmapped with fresh). Then,
 *       step after step: writes the next K pages, prints "step S pages=P minflt=M" (P pages
 *       touched in all, M its minor faults then, from getrusage), and stops itself (SIGSTOP)
 *       until the test sends SIGCONT. After N/K steps it stops for good (pause).
 *   wss_toucher zero N K
 *       N anonymous pages all read (so they map the shared zero page), the first K of them
 *       then written; and a 2 MiB-aligned MADV_HUGEPAGE region read once (the huge zero page,
 *       where THP has one). Then pauses: what smaps counts as Rss is what was written.
 * Each starts by printing "ready pid=PID addr=HEX". THP is kept off the region (MADV_NOHUGEPAGE)
 * so every page is its own 4 KiB fault. Output is written unbuffered with write(2).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static void say(const char *fmt, unsigned long long a, unsigned long long b, unsigned long long c)
{
	char line[160];
	int n = snprintf(line, sizeof line, fmt, a, b, c);
	if (write(1, line, (size_t)n) != n)
		_exit(3);
}

static int usage(void)
{
	fprintf(stderr, "usage: wss_toucher hot N K PERIOD_MS [LIFETIME_MS] | steps N K prefault|fresh | zero N K\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 4 || (strcmp(argv[1], "zero") != 0 && argc < 5))
		return usage();
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t n = strtoull(argv[2], NULL, 0), k = strtoull(argv[3], NULL, 0);
	if (!n || !k || k > n)
		return usage();
	volatile char *mem = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("wss_toucher: mmap");
		return 2;
	}
	madvise((void *)mem, n * page, MADV_NOHUGEPAGE);

	if (strcmp(argv[1], "hot") == 0) {
		long period_ms = strtol(argv[4], NULL, 0);
		long lifetime_ms = argc > 5 ? strtol(argv[5], NULL, 0) : -1;
		for (size_t i = 0; i < n; i++)
			mem[i * page] = 1;
		say("ready pid=%llu addr=%llx%.0llu\n", (unsigned long long)getpid(), (unsigned long long)(uintptr_t)mem, 0);
		struct timespec start, now;
		clock_gettime(CLOCK_MONOTONIC, &start);
		unsigned sink = 0;
		long last_pass = 0;
		for (;;) {
			for (size_t i = 0; i < k; i++)
				sink += (unsigned char)mem[i * page];
			struct timespec ts = { period_ms / 1000, (period_ms % 1000) * 1000000 };
			nanosleep(&ts, NULL);
			clock_gettime(CLOCK_MONOTONIC, &now);
			long elapsed = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
			if (elapsed - last_pass > period_ms + 50)
				say("late %llu at %llu%.0llu\n", (unsigned long long)(elapsed - last_pass),
				    (unsigned long long)elapsed, 0);
			last_pass = elapsed;
			if (lifetime_ms >= 0 && elapsed >= lifetime_ms)
				return (int)(sink & 0);
		}
	}
	if (strcmp(argv[1], "zero") == 0) {
		unsigned sink = 0;
		for (size_t i = 0; i < n; i++)
			sink += (unsigned char)mem[i * page];
		for (size_t i = 0; i < k; i++)
			mem[i * page] = 1;
		size_t huge = 2u << 20;
		char *area = mmap(NULL, 2 * huge, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (area != MAP_FAILED) {
			volatile char *h = (char *)(((uintptr_t)area + huge - 1) & ~(uintptr_t)(huge - 1));
			madvise((void *)h, huge, MADV_HUGEPAGE);
			sink += (unsigned char)h[0];
		}
		say("ready pid=%llu addr=%llx%.0llu\n", (unsigned long long)getpid(), (unsigned long long)(uintptr_t)mem, sink & 0);
		for (;;)
			pause();
	}
	if (strcmp(argv[1], "steps") == 0) {
		if (strcmp(argv[4], "prefault") == 0)
			for (size_t i = 0; i < n; i++)
				mem[i * page] = 1;
		else if (strcmp(argv[4], "fresh") != 0)
			return usage();
		say("ready pid=%llu addr=%llx%.0llu\n", (unsigned long long)getpid(), (unsigned long long)(uintptr_t)mem, 0);
		for (size_t step = 0; (step + 1) * k <= n; step++) {
			for (size_t i = step * k; i < (step + 1) * k; i++)
				mem[i * page] = 2;
			struct rusage ru;
			getrusage(RUSAGE_SELF, &ru);
			say("step %llu pages=%llu minflt=%llu\n", (unsigned long long)step,
			    (unsigned long long)((step + 1) * k), (unsigned long long)ru.ru_minflt);
			raise(SIGSTOP);
		}
		for (;;)
			pause();
	}
	return usage();
}
