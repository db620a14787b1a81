/* fuzz_dump_header.c - libFuzzer harness for the dump readers' first contact with a file
 * (coredump/: libkdumpfile's open behind pagesleuth's own checks, the kdump descriptors and
 * bitmaps, the ELF program headers and notes, VMCOREINFO) on real fixture dumps.
 *
 * The dumps named by PAGESLEUTH_FUZZ_DUMPS (colon-separated; fuzz/inputs.sh gives a kdump
 * and an ELF of two architectures) are copied once into memory files. Each input is byte 0:
 * which dump, then repeated [offset u32 LE][length u8, at most 32][bytes]: patches inside the
 * dump's first MiB (headers, notes, bitmaps, page descriptors and the first pages' data),
 * written into the memory file and undone after the run. The patched dump is opened as a file
 * would be, its header facts read, a spread of physical pages read and their presence asked,
 * and VMCOREINFO looked up. A refused dump must say why in one line that names the file;
 * every read must end in a documented status; a kdump file that opens must have had its page
 * descriptors checked (ps_dump_kdump_unchecked). Anything else is the readers' to survive: no
 * crash, leak, hang or UBSan report (libkdumpfile itself is not instrumented: what reaches it
 * is what pagesleuth's own checks let through; a write past its buffers shows as ASan's
 * report on the memory pagesleuth gave it, as a crash, or only later, as glibc's heap
 * corruption did in the ninth finding: hence the invariant on the checks).
 *
 * Build: make B=DIR DIR/fuzz/fuzz_dump_header. Run: fuzz/inputs.sh dump-headers.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dump.h"
#include "fuzz_patch.h"

#define MAX_DUMPS 8
#define REGION (UINT32_C(1) << 20)
#define MAX_PATCHES 32

static struct {
	int fd;
	char path[64];
	uint64_t size;
} dumps[MAX_DUMPS];
static unsigned ndumps;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	const char *list = getenv("PAGESLEUTH_FUZZ_DUMPS");
	char *copy = list ? strdup(list) : NULL, *save = NULL;
	for (char *p = copy ? strtok_r(copy, ":", &save) : NULL; p && ndumps < MAX_DUMPS;
	     p = strtok_r(NULL, ":", &save)) {
		FILE *in = fopen(p, "rb");
		int fd = memfd_create("dump", 0);
		if (!in || fd < 0) {
			fprintf(stderr, "fuzz_dump_header: %s: cannot read\n", p);
			exit(2);
		}
		static char buf[1 << 20];
		size_t n;
		uint64_t size = 0;
		while ((n = fread(buf, 1, sizeof buf, in)) > 0) {
			if (write(fd, buf, n) != (ssize_t)n)
				exit(2);
			size += n;
		}
		fclose(in);
		dumps[ndumps].fd = fd;
		dumps[ndumps].size = size;
		snprintf(dumps[ndumps].path, sizeof dumps[ndumps].path, "/proc/self/fd/%d", fd);
		ndumps++;
	}
	free(copy);
	if (!ndumps) {
		fprintf(stderr, "fuzz_dump_header: PAGESLEUTH_FUZZ_DUMPS names no dump\n");
		exit(2);
	}
	return 0;
}

static void check_one_line(const char *err, const char *path)
{
	if (!err || strncmp(err, path, strlen(path)) != 0 || strchr(err, '\n'))
		abort();
}

static void check_status(enum ps_read_status st)
{
	if (st != PS_READ_OK && st != PS_READ_EXCLUDED && st != PS_READ_NODATA && st != PS_READ_ERROR)
		abort();
}

static void exercise(struct ps_dump *d)
{
	const struct ps_target *t = ps_dump_target(d);
	if (!t || !t->ops || !t->ops->read_phys || (t->ptr_size != 4 && t->ptr_size != 8))
		abort();
	(void)ps_dump_format(d);
	int level = ps_dump_level(d);
	if (level < -1 || level > 31)
		abort();
	(void)ps_dump_time(d);
	if (ps_dump_kdump_unchecked(d)) /* libkdumpfile would read through unchecked descriptors */
		abort();
	uint64_t page = t->page_size ? t->page_size : 4096, max = t->max_pfn ? t->max_pfn : 1 << 16;
	const uint64_t pfns[] = { 0, 1, 2, 16, 255, 256, max / 3, max / 2, max - 1, max, max + 1,
				  UINT64_MAX / page };
	static unsigned char buf[2 * 65536];
	for (size_t i = 0; i < sizeof pfns / sizeof pfns[0]; i++) {
		uint64_t pa = pfns[i] * page;
		size_t len = page <= sizeof buf / 2 ? (size_t)page : sizeof buf / 2;
		check_status(t->ops->read_phys(t->ctx, pa, buf, len));
		check_status(t->ops->read_phys(t->ctx, pa + len - 8, buf, len)); /* across a page */
		if (t->ops->pfn_status)
			check_status(t->ops->pfn_status(t->ctx, pfns[i]));
	}
	if (t->ops->vmcoreinfo) {
		static const char *const keys[] = { "OSRELEASE", "PAGESIZE", "SYMBOL(init_task)",
						    "KERNELOFFSET", "NUMBER(VA_BITS)", "CRASHTIME" };
		for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
			const char *v = t->ops->vmcoreinfo(t->ctx, keys[i]);
			if (v && strlen(v) > 4096)
				abort();
		}
	}
	const char *first = NULL;
	if (ps_dump_read_errors(d, &first) && (!first || strchr(first, '\n')))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned which = data[0] % ndumps;
	data++, size--;
	int fd = dumps[which].fd;
	uint64_t region = dumps[which].size < REGION ? dumps[which].size : REGION;
	struct { uint32_t at; uint8_t len, old[FZ_MAX_PATCH_LEN]; } undo[MAX_PATCHES];
	unsigned n = 0, len;
	uint32_t off;
	const uint8_t *bytes;
	while (n < MAX_PATCHES && fz_next_patch(&data, &size, region, &off, &len, &bytes)) {
		undo[n].at = off, undo[n].len = (uint8_t)len;
		if (pread(fd, undo[n].old, len, off) != (ssize_t)len || pwrite(fd, bytes, len, off) != (ssize_t)len)
			abort();
		n++;
	}
	char *warnings = NULL, *err = NULL;
	struct ps_dump *d = ps_dump_open(dumps[which].path, &warnings, &err);
	if (d)
		exercise(d);
	else
		check_one_line(err, dumps[which].path);
	ps_dump_close(d);
	free(warnings);
	free(err);
	while (n-- > 0)
		if (pwrite(fd, undo[n].old, undo[n].len, undo[n].at) != (ssize_t)undo[n].len)
			abort();
	return 0;
}
