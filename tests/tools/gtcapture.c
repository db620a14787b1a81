/* gtcapture.c - capture the kernel's own view of one process, as ground truth for gtcheck.
 *
 * usage: gtcapture PID SMAPS_OUT PAGES_OUT
 *
 * SMAPS_OUT gets /proc/PID/smaps verbatim. PAGES_OUT gets one line per present or swapped
 * page of every VMA in /proc/PID/maps:
 *     VA PFN KPAGECOUNT KPAGEFLAGS PAGEMAP        (hex, decimal count, hex, hex)
 *     VA - - - PAGEMAP                            (swapped or other non-present entry)
 * Deliberately simple: one pread per page and per /proc/kpage* entry. It is a test oracle,
 * not the product, so it shares no code with live/. Needs root (PFNs, /proc/kpage*).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PM_PRESENT (UINT64_C(1) << 63)
#define PM_SWAP (UINT64_C(1) << 62)
#define PM_PFN_MASK ((UINT64_C(1) << 55) - 1)

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "gtcapture: %s %s: %s\n", what, path, strerror(errno));
	return 1;
}

/* 0 = read, 1 = end of file (pagemap ends at the task size), -1 = error. */
static int read_u64(int fd, uint64_t index, uint64_t *out)
{
	ssize_t got = pread(fd, out, 8, (off_t)(index * 8));
	return got == 8 ? 0 : got == 0 ? 1 : -1;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: gtcapture PID SMAPS_OUT PAGES_OUT\n");
		return 2;
	}
	const char *pid = argv[1];
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	char path[256];

	snprintf(path, sizeof path, "/proc/%s/smaps", pid);
	FILE *in = fopen(path, "r");
	FILE *smaps_out = fopen(argv[2], "w");
	if (!in)
		return fail("cannot open", path);
	if (!smaps_out)
		return fail("cannot create", argv[2]);
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		fwrite(buf, 1, n, smaps_out);
	fclose(in);
	if (fclose(smaps_out) != 0)
		return fail("cannot write", argv[2]);

	snprintf(path, sizeof path, "/proc/%s/pagemap", pid);
	int pagemap = open(path, O_RDONLY);
	if (pagemap < 0)
		return fail("cannot open", path);
	int kcount = open("/proc/kpagecount", O_RDONLY);
	int kflags = open("/proc/kpageflags", O_RDONLY);
	if (kcount < 0 || kflags < 0)
		return fail("cannot open", "/proc/kpagecount or /proc/kpageflags");
	snprintf(path, sizeof path, "/proc/%s/maps", pid);
	FILE *maps = fopen(path, "r");
	if (!maps)
		return fail("cannot open", path);
	FILE *out = fopen(argv[3], "w");
	if (!out)
		return fail("cannot create", argv[3]);

	char line[8192];
	while (fgets(line, sizeof line, maps)) {
		unsigned long long start, end;
		if (sscanf(line, "%llx-%llx", &start, &end) != 2)
			continue;
		for (uint64_t va = start; va < end; va += page) {
			uint64_t pm, count, flags;
			/* pagemap ends at the task size: [vsyscall] above it has no entries. */
			int rc = read_u64(pagemap, va / page, &pm);
			if (rc > 0)
				break;
			if (rc < 0)
				return fail("cannot read", "pagemap");
			if (pm & PM_PRESENT) {
				uint64_t pfn = pm & PM_PFN_MASK;
				if (read_u64(kcount, pfn, &count) != 0 || read_u64(kflags, pfn, &flags) != 0)
					return fail("cannot read", "/proc/kpagecount or /proc/kpageflags");
				fprintf(out, "%" PRIx64 " %" PRIx64 " %" PRIu64 " %" PRIx64 " %" PRIx64 "\n",
					va, pfn, count, flags, pm);
			} else if (pm & PM_SWAP) {
				fprintf(out, "%" PRIx64 " - - - %" PRIx64 "\n", va, pm);
			}
		}
	}
	fclose(maps);
	if (fclose(out) != 0)
		return fail("cannot write", argv[3]);
	return 0;
}
