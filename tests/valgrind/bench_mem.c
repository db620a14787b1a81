/* bench_mem.c - the memory-heavy program of bench/valgrind.sh: a 64 MiB heap array swept
 * sequentially, with a stride of one page, and read at pseudo-random places: about 1.8e8
 * data accesses. `bench_mem PASSES MIB` (default 6 64) scales it (Lackey's route is run on
 * a small one). Built with -O2. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long passes = argc > 1 ? atol(argv[1]) : 6;
	size_t mib = argc > 2 ? (size_t)atol(argv[2]) : 64;
	if (passes < 1 || mib < 1 || mib > 4096)
		return 2;
	size_t SIZE = mib << 20;
	uint64_t *a = malloc(SIZE);
	if (!a)
		return 1;
	size_t n = SIZE / sizeof *a;
	uint64_t sum = 0, x = 12345;
	for (size_t i = 0; i < n; i++)
		a[i] = i;
	for (long p = 0; p < passes; p++) {
		for (size_t i = 0; i < n; i++) /* sequential read-modify-write */
			a[i] += (uint64_t)p;
		for (size_t s = 0; s < 512; s++) /* one word per page, page after page */
			for (size_t i = s; i < n; i += 512)
				sum += a[i];
		for (size_t k = 0; k < n / 2; k++) { /* random reads */
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			sum += a[(x >> 20) % n];
		}
	}
	printf("%llu\n", (unsigned long long)sum);
	free(a);
	return 0;
}
