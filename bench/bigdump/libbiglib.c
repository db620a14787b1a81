/* libbiglib.so -- the shared library every bigload process links (like a language runtime's
 * libruntime.so): 1 MiB of read-only data that each process faults in, so its page-cache
 * pages are mapped by ~100 processes (high mapcounts, one physical copy). */
#include <stddef.h>

#define BIGLIB_SIZE (1 << 20)

/* Non-zero initialiser: the array must live in the file (.rodata), not in .bss. */
const char biglib_data[BIGLIB_SIZE] = "BIGLIB-DATA";

/* Fault every page of the data in (read only: it stays a shared file page). */
unsigned biglib_touch(void)
{
	unsigned sum = 0;
	for (size_t off = 0; off < BIGLIB_SIZE; off += 4096)
		sum += ((const volatile char *)biglib_data)[off];
	return sum;
}
