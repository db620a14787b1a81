/* dump.c - a kernel dump file as a struct ps_target, through libkdumpfile.
 *
 * Physical reads use KDUMP_MACHPHYSADDR: the addresses page tables hold are machine
 * addresses, and on every non-Xen dump machine and kernel physical addresses are the same.
 * KDUMP_KPHYSADDR would go through libkdumpfile's address translation, which 0.5.1 cannot
 * set up for QEMU kdump files, armhf or ppc32 ("No way to translate") and which needs
 * addrxlat.ostype even on x86_64. No virtual read is ever made here; kernel-virtual
 * addresses are the walker's business.
 *
 * "Excluded" vs "not in the dump": libkdumpfile's file.pagemap says which pages the file
 * holds; the RAM map (the kdump header's first bitmap, or memory.pagemap of an ELF file)
 * which pages were RAM. A RAM page the file lacks was filtered out by makedumpfile's dump
 * level; anything else is not in the dump.
 *
 * makedumpfile's flattened format (written to pipes, and by QEMU's dump-guest-memory
 * kdump-* formats) is a stream of (offset, size, data) blocks. libkdumpfile 0.5.1 does not
 * read it, so it is reassembled into an unlinked temporary file first; the input is only
 * read.
 *
 * libkdumpfile 0.5.1 trusts its input more than a tool fed arbitrary files can: what it
 * would crash on or allocate blindly is checked here first (elf_header_broken,
 * kdump_header_broken), and the rest of its bugs are worked around where they bite
 * (docs/coredump.md lists them).
 */
#include "dump.h"
#include "elf_segments.h"
#include "errmsg.h"
#include "kdump_pages.h"
#include "mapped_file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libkdumpfile/kdumpfile.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Bounds for untrusted sizes. */
#define FLAT_HEADER_SIZE 4096u          /* makedumpfile's MAX_SIZE_MDF_HEADER */
#define FLAT_MAX_BLOCK ((int64_t)1 << 30)   /* one data block */
#define FLAT_MAX_OFFSET ((int64_t)1 << 46)  /* 64 TiB of reassembled file */
#define VMCOREINFO_MAX_LINES 100000u
#define FALLBACK_PAGE_SIZE 4096u

struct vi_line {
	char *key, *val; /* point into ps_dump.vmcoreinfo_raw */
};

struct trunc_range {
	uint64_t start, end; /* physical addresses whose bytes lie past the end of the file */
	uint64_t max_end;    /* the largest end of this range and those before it (sorted) */
};

struct ps_dump {
	kdump_ctx_t *kd;
	struct ps_elf_segments *segs; /* instead of kd: an ELF libkdumpfile cannot open */
	int fd;           /* the input, or the reassembled temporary file */
	bool diskdump;    /* kdump-compressed (see abandon_kdump_ctx) */
	char *path;
	const char *format;
	struct ps_target target;
	char arch[16];

	uint32_t kd_page_size; /* libkdumpfile's page size: the file's unit (bitmaps, reads) */
	unsigned kd_page_shift;
	uint64_t kd_max_pfn;   /* in kd pages */
	unsigned target_page_shift; /* the kernel's page size, the unit of pfn_status */
	kdump_bmp_t *file_map, *mem_map;
	/* libkdumpfile's read path is slow (kdump_pages.h): a kdump-compressed file's pages are
	 * read by kdump_pages.c from a copy of its dumped-pages bitmap (file_words, kd_max_pfn
	 * bits), a whole ELF file's through elf_reads. NULL: through libkdumpfile. */
	uint64_t *file_words;
	struct ps_kdump_pages *kpages;
	struct ps_mapped_file kd_file; /* a kdump-compressed file mapped (not mapped: pread) */
	struct ps_elf_segments *elf_reads;

	char *vmcoreinfo_raw;
	struct vi_line *vi;
	size_t nvi;
	bool vmcoreinfo_note; /* the dump has a VMCOREINFO note (perhaps unreadable) */

	struct trunc_range *trunc;
	size_t ntrunc;
	/* kdump pages whose descriptor libkdumpfile must not be given (check_kdump_descriptors):
	 * sorted file-page numbers; reading one is an error naming it. */
	uint64_t *bad_desc;
	size_t nbad_desc;
	bool kd_checked; /* every page descriptor was checked (check_kdump_descriptors) */

	/* kdump-compressed layout (0 when not one): libkdumpfile 0.5.1 leaks the bitmap it
	 * builds for memory.pagemap of these files, so the RAM bitmap is read here, one block
	 * at a time. */
	uint32_t kd_block_size;
	uint64_t kd_ram_bitmap_off, kd_ram_bitmap_len, kd_desc_off;
	uint64_t kd_ndesc;    /* page descriptors: pages in the dumped-pages bitmap */
	uint64_t kd_cut_desc; /* the first descriptor past where the file is cut, else UINT64_MAX */
	unsigned kd_helpers;  /* threads besides the caller's its reads may use (ps_helper_threads) */
	unsigned char *ram_block;
	uint64_t ram_block_off; /* UINT64_MAX: nothing cached */

	int dump_level;
	int64_t crash_time;
	bool page_size_guessed; /* nothing said the page size yet (FALLBACK_PAGE_SIZE used) */

	char *warnings;
	size_t warnings_len;
	char last_error[256]; /* libkdumpfile's text for the last PS_READ_ERROR */
	char first_error[256]; /* ... and for the first, with their count */
	uint64_t read_errors;
	/* Where the counts stood when the walk forked its workers (dump_fork_prepare): a
	 * worker reports what it added since. */
	uint64_t fork_read_errors, fork_decompressed, fork_hits;
};

/* ---- messages ------------------------------------------------------------------------ */

static char *vfmt(const char *fmt, va_list ap)
{
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		return NULL;
	return s;
}

static void warn(struct ps_dump *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct ps_dump *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *line = vfmt(fmt, ap);
	va_end(ap);
	if (!line)
		return;
	size_t n = strlen(line);
	char *w = realloc(d->warnings, d->warnings_len + strlen(d->path) + n + 4);
	if (w) {
		d->warnings = w;
		d->warnings_len += (size_t)sprintf(w + d->warnings_len, "%s: %s\n", d->path, line);
	}
	free(line);
}

/* ---- byte order helpers for headers we parse ourselves -------------------------------- */

static uint64_t load_uint(const unsigned char *p, unsigned size, bool big_endian)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)p[big_endian ? size - 1 - i : i] << (8 * i);
	return v;
}

/* Read exactly LEN bytes from a stream: 1, 0 at a clean EOF before any byte, -1 on a short
 * read (errno 0) or an error. */
static int read_full(int fd, void *buf, size_t len)
{
	size_t done = 0;
	while (done < len) {
		ssize_t r = read(fd, (char *)buf + done, len - done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0) {
			errno = 0;
			return done == 0 ? 0 : -1;
		}
		done += (size_t)r;
	}
	return 1;
}

static int write_full_at(int fd, const void *buf, size_t len, uint64_t off)
{
	size_t done = 0;
	while (done < len) {
		ssize_t r = pwrite(fd, (const char *)buf + done, len - done, (off_t)(off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		done += (size_t)r;
	}
	return 0;
}

/* ---- makedumpfile flattened format ----------------------------------------------------- */

/* The stream: a 4096-byte header starting "makedumpfile\0" + type (1) + version, all
 * big-endian; then blocks of { int64 offset; int64 size; } big-endian + size bytes to place
 * at offset; a block with offset -1 and size -1 ends it. */
static bool is_flattened(const unsigned char *head, size_t n)
{
	static const char sig[] = "makedumpfile";
	if (n < 32 || memcmp(head, sig, sizeof sig) != 0)
		return false;
	return load_uint(head + 16, 8, true) == 1; /* TYPE_FLAT_HEADER */
}

static int open_temp_file(void)
{
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
#ifdef O_TMPFILE
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
#endif
	char tmpl[4096];
	if (snprintf(tmpl, sizeof tmpl, "%s/pagesleuth-flat-XXXXXX", dir) >= (int)sizeof tmpl) {
		errno = ENAMETOOLONG;
		return -1;
	}
	int fd2 = mkostemp(tmpl, O_CLOEXEC);
	if (fd2 >= 0)
		unlink(tmpl);
	return fd2;
}

/* Reassemble the flattened stream on IN (CONSUMED bytes of it already read, fewer than the
 * header) into a new unlinked temporary file. Returns its fd, or -1 with *err. A pipe
 * works: the format was made for streaming (makedumpfile -F). */
static int reassemble_flattened(int in, size_t consumed, const char *path, char **err)
{
	unsigned char *buf = malloc(1u << 20);
	if (!buf) {
		ps_set_err(err, "%s: out of memory", path);
		return -1;
	}
	int out = -1;
	if (read_full(in, buf, FLAT_HEADER_SIZE - consumed) != 1) {
		ps_set_err(err, "%s: truncated flattened dump (header shorter than %u bytes)", path,
			FLAT_HEADER_SIZE);
		goto fail;
	}
	out = open_temp_file();
	if (out < 0) {
		ps_set_err(err, "%s: cannot create a temporary file to reassemble the flattened dump "
			     "in %s: %s", path, getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
			strerror(errno));
		goto fail;
	}
	uint64_t blocks = 0, in_pos = FLAT_HEADER_SIZE, data = 0, end = 0;
	for (;;) {
		unsigned char bh[16];
		int r = read_full(in, bh, sizeof bh);
		if (r != 1) {
			if (r < 0 && errno)
				ps_set_err(err, "%s: read error at byte %" PRIu64 ": %s", path, in_pos,
					strerror(errno));
			else
				ps_set_err(err, "%s: truncated flattened dump (no end marker after %" PRIu64
					     " blocks, %" PRIu64 " bytes)", path, blocks, in_pos);
			goto fail;
		}
		int64_t off = (int64_t)load_uint(bh, 8, true);
		int64_t size = (int64_t)load_uint(bh + 8, 8, true);
		if (off == -1 && size == -1)
			break;
		if (off < 0 || size < 0 || size > FLAT_MAX_BLOCK || off > FLAT_MAX_OFFSET - size) {
			ps_set_err(err, "%s: corrupt flattened dump: block %" PRIu64 " at byte %" PRIu64
				     " has offset %" PRId64 " size %" PRId64, path, blocks, in_pos, off,
				size);
			goto fail;
		}
		in_pos += sizeof bh;
		uint64_t left = (uint64_t)size, dst = (uint64_t)off;
		while (left) {
			size_t chunk = left < (1u << 20) ? (size_t)left : (1u << 20);
			r = read_full(in, buf, chunk);
			if (r != 1) {
				ps_set_err(err, "%s: truncated flattened dump (block %" PRIu64
					     " ends past the end of the file at byte %" PRIu64 ")",
					path, blocks, in_pos);
				goto fail;
			}
			if (write_full_at(out, buf, chunk, dst) < 0) {
				ps_set_err(err, "%s: cannot write the reassembled dump to a temporary "
					     "file: %s", path, strerror(errno));
				goto fail;
			}
			left -= chunk;
			dst += chunk;
			in_pos += chunk;
		}
		data += (uint64_t)size;
		if ((uint64_t)off + (uint64_t)size > end)
			end = (uint64_t)off + (uint64_t)size;
		blocks++;
	}
	/* A kdump file is dense (header, bitmaps, descriptors, pages), so the blocks fill it:
	 * blocks reaching far beyond what the stream holds would make a huge sparse file whose
	 * claimed bitmaps then cost gigabytes to read. (Checked at the end: makedumpfile writes
	 * page data past the descriptor table before the table is complete.) */
	if (end > 2 * data + (UINT64_C(64) << 20)) {
		ps_set_err(err, "%s: corrupt flattened dump: its %" PRIu64 " blocks reach byte %" PRIu64
			     " of the dump but hold only %" PRIu64 " bytes", path, blocks, end, data);
		goto fail;
	}
	free(buf);
	return out;
fail:
	free(buf);
	if (out >= 0)
		close(out);
	return -1;
}

/* ---- our own look at the file's header -------------------------------------------------- */

/* ---- what lies past the end of a truncated file ------------------------------------------ */

/* Ranges are added in file order, then sorted once by start with a running maximum of their
 * ends, so that a look-up is a binary search: a truncated ELF of many segments has one range
 * per segment cut off (~40,000 in an 82,000-segment dump cut in half), looked up per read. */
static bool add_trunc(struct ps_dump *d, uint64_t start, uint64_t end)
{
	if ((d->ntrunc & (d->ntrunc - 1)) == 0) { /* 0, 1, 2, 4, ...: double */
		struct trunc_range *t = realloc(d->trunc, (d->ntrunc ? 2 * d->ntrunc : 1) * sizeof *t);
		if (!t)
			return false;
		d->trunc = t;
	}
	d->trunc[d->ntrunc++] = (struct trunc_range){ .start = start, .end = end };
	return true;
}

static int by_trunc_start(const void *a, const void *b)
{
	const struct trunc_range *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static void sort_trunc(struct ps_dump *d)
{
	if (!d->ntrunc)
		return; /* no qsort of NULL */
	qsort(d->trunc, d->ntrunc, sizeof *d->trunc, by_trunc_start);
	uint64_t m = 0;
	for (size_t i = 0; i < d->ntrunc; i++) {
		if (d->trunc[i].end > m)
			m = d->trunc[i].end;
		d->trunc[i].max_end = m;
	}
}

/* How many ranges start at or below PA. */
static size_t trunc_at_or_below(const struct ps_dump *d, uint64_t pa)
{
	size_t lo = 0, hi = d->ntrunc;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->trunc[mid].start <= pa)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* PA lies in a range (past the end of the file). */
static bool in_trunc(const struct ps_dump *d, uint64_t pa)
{
	size_t n = d->ntrunc ? trunc_at_or_below(d, pa) : 0;
	return n && pa < d->trunc[n - 1].max_end;
}

/* The lowest range start above PA, UINT64_MAX if none. */
static uint64_t next_trunc_start(const struct ps_dump *d, uint64_t pa)
{
	size_t n = d->ntrunc ? trunc_at_or_below(d, pa) : 0;
	return n < d->ntrunc ? d->trunc[n].start : UINT64_MAX;
}

/* ELF program headers whose data lies past the end of the file (a truncated vmcore):
 * remembered so reads there say "not in the dump", and reported once. Trusts only the
 * ELF identification and program headers (QEMU writes broken section headers). */
static void check_elf_truncation(struct ps_dump *d, const unsigned char *head, size_t n,
				 uint64_t file_size)
{
	if (n < 64 || memcmp(head, "\177ELF", 4) != 0)
		return;
	bool is64 = head[4] == 2, be = head[5] == 2;
	if ((head[4] != 1 && head[4] != 2) || (head[5] != 1 && head[5] != 2))
		return;
	uint64_t phoff = is64 ? load_uint(head + 32, 8, be) : load_uint(head + 28, 4, be);
	unsigned phentsize = (unsigned)load_uint(head + (is64 ? 54 : 42), 2, be);
	uint64_t phnum, shnum;
	unsigned need = is64 ? 56 : 32;
	if (phentsize < need || !ps_elf_counts(d->fd, head, file_size, &phnum, &shnum) ||
	    phnum == 0 || phoff >= file_size || phnum > (file_size - phoff) / phentsize)
		return;
	struct ps_elf_table *tab = malloc(sizeof *tab);
	if (!tab)
		return;
	ps_elf_table_init(tab, d->fd, phoff, phnum, phentsize);
	uint64_t past_eof = 0;
	for (uint64_t i = 0; i < phnum; i++) {
		const unsigned char *ph = ps_elf_table_entry(tab, i, need);
		if (!ph) {
			break;
		}
		uint32_t type = (uint32_t)load_uint(ph, 4, be);
		uint64_t off, paddr, filesz;
		if (type != 1) /* not PT_LOAD */
			continue;
		if (is64) {
			off = load_uint(ph + 8, 8, be);
			paddr = load_uint(ph + 24, 8, be);
			filesz = load_uint(ph + 32, 8, be);
		} else {
			off = load_uint(ph + 4, 4, be);
			paddr = load_uint(ph + 12, 4, be);
			filesz = load_uint(ph + 16, 4, be);
		}
		if (filesz == 0 || (off < file_size && filesz <= file_size - off))
			continue;
		uint64_t avail = off < file_size ? file_size - off : 0;
		if (!add_trunc(d, paddr + avail, paddr + filesz < paddr ? UINT64_MAX : paddr + filesz))
			break;
		past_eof += filesz - avail;
	}
	free(tab);
	sort_trunc(d);
	if (d->ntrunc)
		warn(d, "truncated ELF dump: %zu segment(s) end past the end of the file "
			"(%" PRIu64 " bytes missing); those pages read as not in the dump",
		     d->ntrunc, past_eof);
}

/* A kdump-compressed file's signature: makedumpfile's "KDUMP   ", or "DISKDUMP", which
 * libkdumpfile 0.5.1's diskdump.c reads exactly as a "KDUMP   " file, page descriptors
 * included: every check here must apply to both, or a "DISKDUMP" file reaches libkdumpfile
 * unchecked. (The old diskdump utility's own files hold raw pages, no descriptors: read
 * correctly by neither.) */
static bool diskdump_signature(const unsigned char *head, size_t n)
{
	return n >= 8 && (!memcmp(head, "KDUMP   ", 8) || !memcmp(head, "DISKDUMP", 8));
}

/* Offset of disk_dump_header.timestamp: struct new_utsname is 6 x 65 bytes after the
 * signature and version (offset 402); the struct timeval after it is aligned to the size of
 * long. status, block_size, sub_hdr_size, bitmap_blocks and max_mapnr (4 bytes each)
 * follow the timeval's two longs. */
static unsigned kdump_timestamp_offset(unsigned ptr_size)
{
	return ptr_size == 8 ? 408 : 404;
}

/* disk_dump_header.timestamp.tv_sec of HEAD (at least 448 bytes), or 0 if not positive. */
static int64_t kdump_header_timestamp(const unsigned char *head, bool be, unsigned ptr_size)
{
	int64_t t = (int64_t)load_uint(head + kdump_timestamp_offset(ptr_size), ptr_size, be);
	if (ptr_size == 4)
		t = (int32_t)t;
	return t > 0 ? t : 0;
}

/* How a kdump header is laid out: the word size and byte order of the machine that wrote
 * it, and the fields after its timestamp. */
struct kdump_layout {
	unsigned ptr_size;
	bool big_endian;
	uint64_t block_size, sub_blocks, bitmap_blocks, max_mapnr;
};

/* The layout libkdumpfile 0.5.1 reads HEAD with (diskdump.c, open_common): the 32-bit one
 * first, little- then big-endian, then the 64-bit one; the first whose block size is a page
 * size it takes (a power of two from 4 KiB to 256 KiB) and whose bitmaps have a bit for each
 * of max_mapnr's frames. pagesleuth reads the header's fields with the same layout, or it
 * would check other bitmaps and descriptors than libkdumpfile reads. A 64-bit machine's
 * header can pass for a 32-bit one: then its timestamp's tv_usec is taken for the block
 * size, the status for the bitmap blocks, the block size for max_mapnr (kdump_header_broken
 * refuses such a file). false when no layout fits: libkdumpfile refuses the file. */
static bool kdump_header_layout(const unsigned char *head, size_t n, struct kdump_layout *l)
{
	if (n < 464 || !diskdump_signature(head, n))
		return false;
	for (unsigned ps = 4; ps <= 8; ps += 4)
		for (int be = 0; be <= 1; be++) {
			unsigned f = kdump_timestamp_offset(ps) + 2 * ps; /* status */
			*l = (struct kdump_layout){
				.ptr_size = ps,
				.big_endian = be,
				.block_size = load_uint(head + f + 4, 4, be),
				.sub_blocks = load_uint(head + f + 8, 4, be),
				.bitmap_blocks = load_uint(head + f + 12, 4, be),
				.max_mapnr = load_uint(head + f + 16, 4, be),
			};
			uint64_t bs = l->block_size;
			if (bs >= 4096 && bs <= (1u << 18) && !(bs & (bs - 1)) &&
			    8 * l->bitmap_blocks * bs >= l->max_mapnr)
				return true;
		}
	return false;
}

/* The word size of the machine utsname.machine names (uname -m), or 0 when not known here. */
static unsigned machine_word_size(const char *m)
{
	static const char *const bits64[] = { "x86_64", "aarch64", "aarch64_be", "arm64", "ppc64",
					      "ppc64le", "s390x", "riscv64", "mips64", "loongarch64",
					      "sparc64", "ia64", "alpha", "parisc64" };
	static const char *const bits32[] = { "i386", "i486", "i586", "i686", "ppc", "ppcle", "s390",
					      "riscv32", "mips", "mipsel", "parisc", "sparc", "m68k" };
	for (size_t i = 0; i < sizeof bits64 / sizeof bits64[0]; i++)
		if (strcmp(m, bits64[i]) == 0)
			return 8;
	for (size_t i = 0; i < sizeof bits32 / sizeof bits32[0]; i++)
		if (strcmp(m, bits32[i]) == 0)
			return 4;
	if (strncmp(m, "arm", 3) == 0 || strncmp(m, "sh", 2) == 0) /* armv7l, armv5tel; sh4 */
		return 4;
	return 0;
}

/* disk_dump_header.block_size as libkdumpfile reads it, or 0 when HEAD is not a kdump
 * header. */
static uint32_t kdump_block_size(const unsigned char *head, size_t n)
{
	struct kdump_layout l;
	return kdump_header_layout(head, n, &l) ? (uint32_t)l.block_size : 0;
}

/* What libkdumpfile 0.5.1 would crash on in an ELF header, checked first: a cut header or
 * program header table, and section headers claiming an absurd string table (it allocates
 * what they claim: QEMU's ppc64le dumps claim 0xb << 56 bytes, which aborts an ASan build;
 * QEMU's ppc32 dumps claim 184 MB, which it survives). NULL when fine, else what. */
static const char *elf_header_broken(int fd, const unsigned char *head, size_t n,
				       uint64_t file_size)
{
	if (n < 4 || memcmp(head, "\177ELF", 4) != 0)
		return NULL;
	if (n < 6 || (head[4] != 1 && head[4] != 2) || (head[5] != 1 && head[5] != 2))
		return "unknown ELF class or byte order";
	bool is64 = head[4] == 2, be = head[5] == 2;
	if (n < (is64 ? 64u : 52u))
		return "the file ends inside the ELF header";
	uint64_t shoff = is64 ? load_uint(head + 40, 8, be) : load_uint(head + 32, 4, be);
	unsigned shentsize = (unsigned)load_uint(head + (is64 ? 58 : 46), 2, be);
	unsigned shstrndx = (unsigned)load_uint(head + (is64 ? 62 : 50), 2, be);
	/* Both counts as libkdumpfile 0.5.1 takes them, extended numbering included: it
	 * allocates for as many headers as they say and reads each, whatever the file holds
	 * (e_shnum 0 and 10^8 in section 0's sh_size: 53 s and 2.4 GB on a 336 MB dump). */
	uint64_t phnum, shnum;
	if (!ps_elf_counts(fd, head, file_size, &phnum, &shnum))
		return "its section header table does not lie within the file";
	/* The program headers are the dump's map; libkdumpfile 0.5.1 crashes on a table cut
	 * by the end of the file. */
	uint64_t phoff = is64 ? load_uint(head + 32, 8, be) : load_uint(head + 28, 4, be);
	unsigned phentsize = (unsigned)load_uint(head + (is64 ? 54 : 42), 2, be);
	if (phnum && (phentsize < (is64 ? 56u : 32u) || phoff > file_size ||
		      phnum > (file_size - phoff) / phentsize))
		return "its program header table does not lie within the file";
	/* Notes are read whole (libkdumpfile allocates what p_filesz claims). */
	struct ps_elf_table *tab = phnum ? malloc(sizeof *tab) : NULL;
	if (phnum && !tab)
		return "out of memory reading its program headers";
	if (tab)
		ps_elf_table_init(tab, fd, phoff, phnum, phentsize);
	const char *broken = NULL;
	for (uint64_t i = 0; i < phnum && !broken; i++) {
		const unsigned char *ph = ps_elf_table_entry(tab, i, is64 ? 56 : 32);
		if (!ph) {
			broken = "its program header table cannot be read";
			break;
		}
		uint64_t type = load_uint(ph, 4, be);
		if (type == 1) { /* PT_LOAD */
			/* libkdumpfile 0.5.1's page map of an ELF file writes through a wild pointer
			 * when asked about a frame near a segment whose physical range wraps past
			 * 2^64 (found by fuzz/fuzz_dump_header.c: p_paddr 0xffffffff0000fe00,
			 * p_filesz 2^56 - 1). No machine has such a segment. */
			uint64_t pa = is64 ? load_uint(ph + 24, 8, be) : load_uint(ph + 12, 4, be);
			uint64_t fsz = is64 ? load_uint(ph + 32, 8, be) : load_uint(ph + 16, 4, be);
			uint64_t msz = is64 ? load_uint(ph + 40, 8, be) : load_uint(ph + 20, 4, be);
			if (fsz > UINT64_MAX - pa || msz > UINT64_MAX - pa)
				broken = "a loadable segment's physical range wraps past the top of "
					 "the address space";
			continue;
		}
		if (type != 4) /* PT_NOTE */
			continue;
		uint64_t off = is64 ? load_uint(ph + 8, 8, be) : load_uint(ph + 4, 4, be);
		uint64_t size = is64 ? load_uint(ph + 32, 8, be) : load_uint(ph + 16, 4, be);
		if (off > file_size || size > file_size - off)
			broken = "a note segment does not lie within the file";
	}
	free(tab);
	if (broken)
		return broken;
	if (shoff == 0 && shnum == 0)
		return NULL;
	unsigned need = is64 ? 64 : 40;
	if (shoff == 0 || shentsize < need || shoff > file_size ||
	    (shnum ? shnum : 1) > (file_size - shoff) / shentsize)
		return "its section header table does not lie within the file";
	if (shnum == 0 || shstrndx >= shnum)
		return NULL;
	unsigned char sh[64];
	if (ps_pread_full(fd, sh, need, shoff + (uint64_t)shstrndx * shentsize) != 1)
		return NULL;
	uint64_t size = is64 ? load_uint(sh + 32, 8, be) : load_uint(sh + 20, 4, be);
	if (size > file_size && size > ((uint64_t)1 << 30))
		return "its section name table claims more bytes than the file holds (QEMU "
		       "writes such ppc64le dumps)";
	/* Every section with contents inside the file: libkdumpfile 0.5.1 maps what a section
	 * header says and dies of SIGBUS past the end (found by tests/tools/mutate_dump.py: a
	 * one-byte change of e_shoff made the program headers read as sections). */
	for (unsigned i = 0; i < shnum && i < 64; i++) {
		if (ps_pread_full(fd, sh, need, shoff + (uint64_t)i * shentsize) != 1)
			return "its section header table cannot be read";
		uint64_t type = load_uint(sh + 4, 4, be);
		uint64_t off = is64 ? load_uint(sh + 24, 8, be) : load_uint(sh + 16, 4, be);
		uint64_t len = is64 ? load_uint(sh + 32, 8, be) : load_uint(sh + 20, 4, be);
		/* Entry 0 may hold extended counts; the name table is read whatever its type. */
		bool contents = i == shstrndx || (i > 0 && type != 0 /* SHT_NULL */ && type != 8 /* SHT_NOBITS */);
		if (contents && (off > file_size || len > file_size - off))
			return "a section does not lie within the file";
	}
	return NULL;
}

/* What libkdumpfile 0.5.1 would allocate blindly in a kdump header, checked first: it
 * reads the page bitmaps, notes, VMCOREINFO and erase info whole, at the sizes the header
 * claims (an ASan build aborts on such an allocation, a normal one fails cleanly). The byte
 * order and word size are not known yet: libkdumpfile takes the first of 32-bit little-
 * endian, 32-bit big-endian, 64-bit little-endian, 64-bit big-endian whose block size is
 * sane and whose bitmap covers max_mapnr, and so does this check. On 32-bit
 * the sub header's 64-bit members are either packed (i386) or 8-byte aligned (arm, ppc);
 * the packed layout is the one whose VMCOREINFO lies inside the sub header blocks.
 * NULL when fine, else what is wrong. */
/* Bytes of [OFF, OFF + LEN) the file stores (not holes), counted up to ENOUGH; LEN when the
 * file system cannot tell. */
static uint64_t stored_bytes(int fd, uint64_t off, uint64_t len, uint64_t enough)
{
	uint64_t end = off + len, sum = 0;
	for (unsigned extents = 0; off < end && sum < enough && extents < 4096; extents++) {
		off_t data = lseek(fd, (off_t)off, SEEK_DATA);
		if (data < 0)
			return errno == ENXIO ? sum : len;
		if ((uint64_t)data >= end)
			break;
		off_t hole = lseek(fd, data, SEEK_HOLE);
		if (hole < 0)
			return len;
		uint64_t stop = (uint64_t)hole < end ? (uint64_t)hole : end;
		sum += stop - (uint64_t)data;
		off = stop;
	}
	return sum;
}

/* Runs of set bits (bit 0 of each byte first, as the kdump bitmaps number pages) in the LEN
 * bytes of FD at OFF, counted until LIMIT is passed; LIMIT + 1 when unreadable. */
static uint64_t bitmap_runs(int fd, uint64_t off, uint64_t len, uint64_t limit)
{
	enum { CHUNK = 1 << 20 };
	unsigned char *buf = malloc(CHUNK);
	if (!buf)
		return 0; /* not counted: libkdumpfile's own allocations would fail as well */
	uint64_t runs = 0, carry = 0; /* carry: the bit before */
	for (uint64_t done = 0; done < len && runs <= limit;) {
		size_t n = len - done < CHUNK ? (size_t)(len - done) : CHUNK;
		if (ps_pread_full(fd, buf, n, off + done) != 1) {
			runs = limit + 1;
			break;
		}
		size_t i = 0;
		for (; i + 8 <= n; i += 8) {
			uint64_t w = load_uint(buf + i, 8, false);
			runs += (uint64_t)__builtin_popcountll(w & ~(w << 1 | carry));
			carry = w >> 63;
		}
		for (; i < n; i++) {
			uint64_t w = buf[i];
			runs += (uint64_t)__builtin_popcountll(w & ~(w << 1 | carry) & 0xff);
			carry = w >> 7 & 1;
		}
		done += n;
	}
	free(buf);
	return runs;
}

/* NULL when libkdumpfile may be given the kdump file HEAD starts (or it refuses it cleanly),
 * else why not; WHY (256 bytes) may hold the reason. */
static const char *kdump_header_broken(int fd, const unsigned char *head, size_t n,
				       uint64_t file_size, char *why)
{
	if (!diskdump_signature(head, n))
		return NULL;
	if (n < 464 || file_size < 4096)
		return "the file ends inside the header";
	struct kdump_layout l;
	if (!kdump_header_layout(head, n, &l))
		return NULL; /* libkdumpfile refuses it cleanly */
	uint64_t bs = l.block_size, sub_blocks = l.sub_blocks, bitmap_blocks = l.bitmap_blocks;
	bool be = l.big_endian;
	/* A header read with another machine's layout than the one it names is misread as a
	 * whole: libkdumpfile takes the architecture's word size from utsname.machine and
	 * everything else from the header's layout (a mutated x86_64 header read as a 32-bit
	 * one gave it a 256 KiB block size, then 4 KiB buffers for pages of up to 256 KiB: heap
	 * corruption). */
	char machine[66];
	memcpy(machine, head + 12 + 4 * 65, 65); /* after signature, version and 4 utsname fields */
	machine[65] = '\0';
	unsigned word = machine_word_size(machine);
	if (word && word != l.ptr_size) {
		snprintf(why, 256, "its header reads as a %u-bit machine's (libkdumpfile 0.5.1 tries "
			 "that layout first), but it names a %u-bit one (%s)", 8 * l.ptr_size, 8 * word,
			 machine);
		return why;
	}
	int64_t version = (int32_t)load_uint(head + 8, 4, be);
	if (sub_blocks >= (1u << 20) || (1 + sub_blocks + bitmap_blocks) * bs > file_size)
		return "the file ends before its page bitmaps";
	/* Large bitmaps hardly stored (holes of a sparse file: a 12 KB file claiming 4 GiB of
	 * bitmaps) would cost their whole size in memory and time to read. Holes alone are
	 * fine: zstd -d and cp --sparse make them of zeroed bitmap blocks; but a dump's RAM
	 * bitmap has a bit set per page of RAM, so bitmaps of 64 MiB or more with under 1/1024
	 * of them stored are not a dump's. */
	if (bitmap_blocks * bs >= (UINT64_C(64) << 20) &&
	    stored_bytes(fd, (1 + sub_blocks) * bs, bitmap_blocks * bs, bitmap_blocks * bs / 1024) <
		    bitmap_blocks * bs / 1024)
		return "its page bitmaps (64 MiB or more) are hardly stored (holes of a sparse file)";
	uint64_t frames = l.max_mapnr; /* max_pfn, as libkdumpfile takes it */
	if (version >= 3) {
		unsigned char sub[112];
		if (ps_pread_full(fd, sub, sizeof sub, bs) != 1)
			return "the file ends inside the sub header";
		/* (offset, size) of VMCOREINFO (version 3), notes and erase info (4+). */
		static const unsigned lay64[3][2] = { { 32, 40 }, { 48, 56 }, { 64, 72 } };
		static const unsigned pack32[3][2] = { { 20, 28 }, { 32, 40 }, { 44, 52 } };
		static const unsigned pad32[3][2] = { { 24, 32 }, { 40, 48 }, { 56, 64 } };
		const unsigned (*lay)[2] = lay64;
		if (l.ptr_size == 4) {
			uint64_t vo = load_uint(sub + 20, 8, be), vs = load_uint(sub + 28, 4, be);
			bool packed = (!vo && !vs) || (vo > bs && vo + vs <= (1 + sub_blocks) * bs);
			lay = packed ? pack32 : pad32;
		}
		for (unsigned r = version >= 4 ? 1 : 0; r < (version >= 4 ? 3u : 1u); r++) {
			uint64_t off = load_uint(sub + lay[r][0], 8, be);
			uint64_t size = load_uint(sub + lay[r][1], l.ptr_size, be);
			if (size && (off > file_size || size > file_size - off))
				return "its sub header points past the end of the file";
		}
		/* Version 6 and later: max_mapnr_64 replaces the header's max_mapnr, and libkdumpfile
		 * (and the page reader) size their maps by it: 5.4 G frames claimed by a 6 MB file cost
		 * 9 s and 1.4 GB before. The bitmaps must have a bit for each, as the header's own
		 * max_mapnr must (above). */
		if (version >= 6) {
			unsigned at = lay == lay64 ? 96 : lay == pack32 ? 72 : 88;
			frames = load_uint(sub + at, 8, be);
			if (frames > 8 * bitmap_blocks * bs)
				return "its sub header's max_mapnr_64 is larger than its page bitmaps can hold";
		}
	}
	/* libkdumpfile 0.5.1 turns the dumped-pages bitmap into a table of runs of dumped
	 * pages at open (24 bytes a run, grown 1,024 runs at a time), over all of the bitmap
	 * whatever max_mapnr says: 5 MB of compressed page data taken for a bitmap made 10 M
	 * runs, 264 MB and 0.5 s (minutes under ASan, whose realloc copies the table at each
	 * step). A run holds at least one dumped page, whose 24-byte descriptor the file holds
	 * (or held, before it was cut short): more runs than that are not a dump's. */
	uint64_t bitmap_off = (1 + sub_blocks) * bs, bitmap_len = bitmap_blocks * bs;
	if (frames <= bitmap_len * 8 / 2) { /* two bitmaps: the dumped-pages one is the second */
		bitmap_len = bitmap_blocks / 2 * bs;
		bitmap_off += bitmap_len;
	}
	uint64_t runs = bitmap_runs(fd, bitmap_off, bitmap_len, file_size / 24);
	if (runs > file_size / 24) {
		snprintf(why, 256, "its dumped-pages bitmap holds more runs of pages (%" PRIu64 " or "
			 "more) than the file could hold page descriptors for (%" PRIu64 ")", runs,
			 file_size / 24);
		return why;
	}
	return NULL;
}

/* makedumpfile/QEMU kdump header: disk_dump_header (timestamp) and, one block later,
 * kdump_sub_header (dump_level), both in the dumped machine's byte order and long size, read
 * with the layout libkdumpfile reads them with (kdump_header_layout). libkdumpfile 0.5.1
 * exposes neither. */
static void read_kdump_header(struct ps_dump *d, const unsigned char *head, size_t n)
{
	struct kdump_layout l;
	if (!kdump_header_layout(head, n, &l))
		return;
	bool be = l.big_endian;
	unsigned ps = l.ptr_size;
	uint32_t block_size = (uint32_t)l.block_size;
	int32_t version = (int32_t)load_uint(head + 8, 4, be);
	int64_t tv_sec = kdump_header_timestamp(head, be, ps);
	if (tv_sec > 0 && d->crash_time == 0)
		d->crash_time = tv_sec;
	/* Block 0 is this header, then the sub header, the RAM bitmap and the dumped-pages
	 * bitmap (half each), then the page descriptors. A single bitmap block is the
	 * dumped-pages bitmap alone (libkdumpfile reads it so), and its descriptors must be
	 * checked as any others. */
	uint64_t sub_blocks = l.sub_blocks, bitmap_blocks = l.bitmap_blocks;
	if (sub_blocks < (1u << 20) && bitmap_blocks >= 1 && bitmap_blocks < (1u << 30)) {
		d->kd_block_size = block_size;
		d->kd_ram_bitmap_off = (1 + sub_blocks) * block_size;
		d->kd_ram_bitmap_len = bitmap_blocks / 2 * block_size;
		d->kd_desc_off = (1 + sub_blocks + bitmap_blocks) * block_size;
		/* A bitmap area too small for two bitmaps holds only the dumped-pages one
		 * (libkdumpfile reads it so): then nothing tells excluded pages apart. */
		if (d->kd_max_pfn > d->kd_ram_bitmap_len * 8)
			d->kd_ram_bitmap_len = 0;
	}
	if (version < 1)
		return;
	unsigned char sub[16];
	if (ps_pread_full(d->fd, sub, sizeof sub, block_size) != 1)
		return;
	int32_t level = (int32_t)load_uint(sub + ps, 4, be); /* after phys_base */
	if (level >= 0 && level <= 31)
		d->dump_level = level;
}

/* Whether the kdump RAM bitmap has bit IDX (a page that was RAM). */
static bool kdump_ram_bit(struct ps_dump *d, uint64_t idx)
{
	uint64_t byte = idx / 8;
	if (byte >= d->kd_ram_bitmap_len)
		return false;
	uint64_t off = byte / d->kd_block_size * d->kd_block_size;
	if (d->ram_block_off != off) {
		if (!d->ram_block && !(d->ram_block = malloc(d->kd_block_size)))
			return false;
		if (ps_pread_full(d->fd, d->ram_block, d->kd_block_size, d->kd_ram_bitmap_off + off) != 1) {
			d->ram_block_off = UINT64_MAX;
			return false;
		}
		d->ram_block_off = off;
	}
	return d->ram_block[byte - off] >> (idx % 8) & 1;
}

/* The file page map's set bits, as runs: calls FN(arg, first, end) for each run below
 * kd_max_pfn, in order, until FN returns true. */
static void for_each_file_run(struct ps_dump *d, bool (*fn)(void *, uint64_t, uint64_t), void *arg)
{
	uint64_t idx = 0;
	while (d->file_map && idx < d->kd_max_pfn) {
		kdump_addr_t first = idx, end;
		if (kdump_bmp_find_set(d->file_map, &first) != KDUMP_OK || first >= d->kd_max_pfn)
			return;
		end = first;
		if (kdump_bmp_find_clear(d->file_map, &end) != KDUMP_OK || end > d->kd_max_pfn)
			end = d->kd_max_pfn;
		if (end <= first || fn(arg, first, end))
			return;
		idx = end;
	}
}

static bool count_run(void *arg, uint64_t first, uint64_t end)
{
	*(uint64_t *)arg += end - first;
	return false;
}

struct nth_bit {
	uint64_t n, pfn;
	bool found;
};

static bool find_nth(void *arg, uint64_t first, uint64_t end)
{
	struct nth_bit *q = arg;
	if (q->n < end - first) {
		q->pfn = first + q->n;
		q->found = true;
		return true;
	}
	q->n -= end - first;
	return false;
}

/* Page descriptor I (24 bytes: offset, size, flags, page flags) lies in the file and so
 * does its data. Zero pages all share one data block (makedumpfile and QEMU write it first,
 * right after the descriptors); they say nothing about where the file was cut. */
enum desc_state { DESC_GOOD, DESC_SHARED, DESC_CUT };

static enum desc_state kdump_desc_state(struct ps_dump *d, uint64_t i, uint64_t ndesc,
					uint64_t file_size)
{
	uint64_t at = d->kd_desc_off + i * 24;
	unsigned char desc[24];
	if (at + 24 > file_size || ps_pread_full(d->fd, desc, sizeof desc, at) != 1)
		return DESC_CUT;
	uint64_t off = load_uint(desc, 8, d->target.big_endian);
	uint64_t size = load_uint(desc + 8, 4, d->target.big_endian);
	if (off > file_size || size > file_size - off)
		return DESC_CUT;
	return off == d->kd_desc_off + ndesc * 24 ? DESC_SHARED : DESC_GOOD;
}

/* A kdump file cut short: libkdumpfile 0.5.1 reads the missing pages as zeros without an
 * error. Find the first page whose descriptor or data lies past the end (descriptors and
 * data are written in PFN order, so a binary search over descriptor numbers does) and
 * treat everything from there on as not in the dump. */
static void check_kdump_truncation(struct ps_dump *d, uint64_t file_size)
{
	if (!d->kd_block_size || !d->file_map)
		return;
	uint64_t ndesc = 0;
	for_each_file_run(d, count_run, &ndesc);
	d->kd_ndesc = ndesc;
	if (ndesc == 0)
		return;
	/* The last descriptor that is not a shared zero page tells whether anything is cut
	 * (zero pages at the end of RAM are common; look back a bounded distance). */
	uint64_t last = ndesc - 1;
	enum desc_state st_last = DESC_SHARED;
	for (unsigned k = 0; k < 4096; k++) {
		st_last = kdump_desc_state(d, last, ndesc, file_size);
		if (st_last != DESC_SHARED || last == 0)
			break;
		last--;
	}
	if (st_last != DESC_CUT)
		return;
	/* Invariant: descriptor hi is cut, those below lo are not. */
	uint64_t lo = 0, hi = last;
	for (unsigned guard = 0; lo < hi && guard < 256; guard++) {
		uint64_t probe = lo + (hi - lo) / 2;
		enum desc_state st = DESC_SHARED;
		/* A shared zero page says nothing: look at the next descriptors (bounded). */
		for (unsigned k = 0; k < 4096 && probe < hi; k++) {
			st = kdump_desc_state(d, probe, ndesc, file_size);
			if (st != DESC_SHARED)
				break;
			probe++;
		}
		if (st == DESC_CUT)
			hi = probe;
		else
			lo = st == DESC_GOOD ? probe + 1 : probe;
	}
	struct nth_bit q = { .n = hi };
	for_each_file_run(d, find_nth, &q);
	if (!q.found)
		return;
	if (!add_trunc(d, q.pfn << d->kd_page_shift, UINT64_MAX))
		return;
	d->kd_cut_desc = hi;
	sort_trunc(d);
	warn(d, "truncated kdump file: %" PRIu64 " of %" PRIu64 " dumped pages lie past the end "
		"of the file (from physical address 0x%" PRIx64 "); they read as not in the dump",
	     ndesc - hi, ndesc, q.pfn << d->kd_page_shift);
}

/* Page descriptors libkdumpfile would act on unchecked: 0.5.1 decompresses (or copies) a
 * descriptor's SIZE bytes into a page-sized buffer, so a size above the page size is a heap
 * overflow inside kdump_read (a 4096-byte write past the buffer was seen with one size field
 * set to 0x2000). Every descriptor is checked once, in file order, before any page is read:
 * its size at most the page size (exactly the page size when stored uncompressed), only
 * compression flags makedumpfile and QEMU write (zlib 0x1, lzo 0x2, snappy 0x4, zstd 0x20),
 * its data inside the file. A bad one makes its page an error ("not read: corrupt page
 * descriptor"), never a call into libkdumpfile. The rule is ps_kdump_desc_problem's
 * (kdump_pages.h), which also checks each descriptor pagesleuth reads itself. */

/* A descriptor found bad: its number (file order), and what it says. */
struct bad_desc_note {
	uint64_t index;
	uint32_t size, flags;
};

#define BAD_DESC_MAX (UINT64_C(1) << 20) /* more: the whole file is suspect */

/* One thread's share of the check: descriptors FIRST .. END - 1, read in place from the
 * mapped file, else DESC_CHUNK at a time with pread. Reads D only (any thread); what it finds
 * goes to NOTES, at most BAD_DESC_MAX + 1 of them (one more than the open accepts), stopping
 * at the end of the file. */
#define DESC_CHUNK 4096u

struct desc_share {
	const struct ps_dump *d;
	uint64_t file_size, first, end;
	uint64_t next;  /* the first descriptor not yet looked at */
	struct bad_desc_note *notes;
	size_t nnotes;
	bool full;      /* BAD_DESC_MAX + 1 notes: the rest is not looked at */
	bool failed;    /* out of memory */
};

/* Descriptor INDEX found bad: noted. false when the check ends here (one note more than
 * the open accepts, or no memory). */
static bool note_bad_desc(struct desc_share *q, uint64_t index, uint32_t size, uint32_t flags)
{
	if (q->nnotes > BAD_DESC_MAX) { /* already one too many */
		q->full = true;
		return false;
	}
	if (q->nnotes % 1024 == 0) {
		struct bad_desc_note *nn = realloc(q->notes, (q->nnotes + 1024) * sizeof *nn);
		if (!nn) {
			q->failed = true;
			return false;
		}
		q->notes = nn;
	}
	q->notes[q->nnotes++] = (struct bad_desc_note){ index, size, flags };
	return true;
}

/* The LEN / 24 descriptors at P, the first of them q->next; q->next then the one after
 * them. One tight loop (the open's check of every descriptor is a fixed cost of every
 * extraction): memcpy and a byte swap, not a byte loop. A fault in the mapping may end it
 * part way: the notes taken until then stand. */
static void check_desc_bytes(void *arg, const unsigned char *p, size_t len)
{
	struct desc_share *q = arg;
	const uint32_t block = q->d->kd_page_size;
	const uint64_t file_size = q->file_size, first = q->next;
	const bool swap = q->d->target.big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	const size_t n = len / 24;
	for (size_t i = 0; i < n; i++, p += 24) {
		uint64_t off;
		uint32_t size32, flags32;
		memcpy(&off, p, 8);
		memcpy(&size32, p + 8, 4);
		memcpy(&flags32, p + 12, 4);
		if (swap) {
			off = __builtin_bswap64(off);
			size32 = __builtin_bswap32(size32);
			flags32 = __builtin_bswap32(flags32);
		}
		if (__builtin_expect(ps_kdump_desc_problem(off, size32, flags32, block, file_size) == NULL, 1))
			continue;
		if (!note_bad_desc(q, first + i, size32, flags32))
			break;
	}
	q->next = first + n;
}

static void *scan_desc_share(void *arg)
{
	struct desc_share *q = arg;
	const struct ps_dump *d = q->d;
	q->next = q->first;
	/* Only what lies inside the file: the rest is check_kdump_truncation's. */
	uint64_t in_file = d->kd_desc_off < q->file_size ? (q->file_size - d->kd_desc_off) / 24 : 0;
	uint64_t end = q->end < in_file ? q->end : in_file;
	if (q->next >= end)
		return NULL;
	uint64_t at = d->kd_desc_off + q->next * 24, len = (end - q->next) * 24;
	if (len <= SIZE_MAX && ps_mapped_file_has(&d->kd_file, at, len)) {
		/* A fault (the file cut short since it was mapped) ends the check there, as a
		 * short read does below. */
		ps_mapped_file_scan(&d->kd_file, at, (size_t)len, check_desc_bytes, q);
		return NULL;
	}
	unsigned char *buf = malloc(DESC_CHUNK * 24);
	if (!buf) {
		q->failed = true;
		return NULL;
	}
	while (q->next < end && !q->full && !q->failed) {
		uint64_t n = end - q->next < DESC_CHUNK ? end - q->next : DESC_CHUNK;
		if (ps_pread_full(d->fd, buf, (size_t)n * 24, d->kd_desc_off + q->next * 24) != 1)
			break;
		check_desc_bytes(q, buf, (size_t)n * 24);
	}
	free(buf);
	return NULL;
}

/* The bad descriptors, in file order, given their page frames: d->bad_desc. */
struct desc_merge {
	struct ps_dump *d;
	const struct bad_desc_note *next, *end; /* the notes not yet placed */
	uint64_t index;                          /* the descriptor of the run's first frame */
	uint64_t nbad, first_bad_pfn, first_bad_size, first_bad_flags, first_bad_at;
	bool failed;
};

static bool place_bad_desc(void *arg, uint64_t first, uint64_t end)
{
	struct desc_merge *m = arg;
	struct ps_dump *d = m->d;
	for (; m->next < m->end && m->next->index < m->index + (end - first); m->next++) {
		uint64_t pfn = first + (m->next->index - m->index);
		if (m->nbad++ == 0)
			m->first_bad_pfn = pfn, m->first_bad_size = m->next->size,
			m->first_bad_flags = m->next->flags,
			m->first_bad_at = d->kd_desc_off + m->next->index * 24;
		uint64_t *nb = d->nbad_desc >= BAD_DESC_MAX ? NULL
			       : d->nbad_desc % 1024 ? d->bad_desc
			       : realloc(d->bad_desc, (d->nbad_desc + 1024) * sizeof *nb);
		if (!nb) {
			m->failed = true; /* too many to list, or no memory: the file is refused */
			return true;
		}
		d->bad_desc = nb;
		d->bad_desc[d->nbad_desc++] = pfn;
	}
	m->index += end - first;
	return m->next == m->end;
}

/* 0, or -1 when the descriptors cannot be trusted as a whole (then *err says why).
 * Descriptors from the first one check_kdump_truncation found cut are not looked at: their
 * pages read as not in the dump. The scan is shared with the CPUs the process may also run
 * on (ps_helper_threads): on the 2.5 GiB bench kdump, 655,000 descriptors, 15.7 MB. */
static int check_kdump_descriptors(struct ps_dump *d, uint64_t file_size, char **err)
{
	if (!d->kd_block_size || !d->file_map || !d->kd_page_size)
		return 0;
	uint64_t ndesc = d->kd_ndesc < d->kd_cut_desc ? d->kd_ndesc : d->kd_cut_desc;
	enum { MAX_SHARES = PS_KDUMP_HELPERS_MAX + 1, MIN_SHARE = 65536 };
	unsigned nshares = 1;
	while (nshares <= d->kd_helpers && nshares < MAX_SHARES && ndesc / (nshares + 1) >= MIN_SHARE)
		nshares++;
	struct desc_share share[MAX_SHARES];
	uint64_t per = ndesc / nshares;
	for (unsigned i = 0; i < nshares; i++)
		share[i] = (struct desc_share){ .d = d, .file_size = file_size, .first = i * per,
						.end = i + 1 < nshares ? (i + 1) * per : ndesc };
	ps_run_shares(scan_desc_share, share, sizeof share[0], nshares);
	bool failed = false;
	for (unsigned i = 0; i < nshares; i++)
		failed = failed || share[i].failed;
	/* The notes in file order, one share after the other; placed on their frames. */
	size_t nnotes = 0;
	for (unsigned i = 0; i < nshares; i++)
		nnotes += share[i].nnotes;
	struct bad_desc_note *notes = !failed && nnotes ? malloc(nnotes * sizeof *notes) : NULL;
	struct desc_merge m = { .d = d };
	if (nnotes && !notes) {
		failed = true;
	} else if (!failed && nnotes) {
		size_t at = 0;
		for (unsigned i = 0; i < nshares; i++) {
			memcpy(notes + at, share[i].notes, share[i].nnotes * sizeof *notes);
			at += share[i].nnotes;
		}
		m.next = notes, m.end = notes + nnotes;
		for_each_file_run(d, place_bad_desc, &m);
	}
	for (unsigned i = 0; i < nshares; i++)
		free(share[i].notes);
	free(notes);
	if (failed) /* out of memory: no check, as before any was made */
		return 0;
	d->kd_checked = true; /* (a refusal below ends the open) */
	if (m.failed) {
		ps_set_err(err, "%s: corrupt kdump file: %s page descriptors are invalid (the first, "
			   "of page frame 0x%" PRIx64 ", says %" PRIu64 " bytes with flags 0x%" PRIx64 ")",
			   d->path, d->nbad_desc >= BAD_DESC_MAX ? "more than 2^20" : "too many",
			   m.first_bad_pfn, m.first_bad_size, m.first_bad_flags);
		return -1;
	}
	if (m.nbad)
		warn(d, "corrupt kdump file: %" PRIu64 " page descriptor%s invalid (the first, of page "
			"frame 0x%" PRIx64 " at file offset %" PRIu64 ", says %" PRIu64 " bytes with flags "
			"0x%" PRIx64 " for a %" PRIu32 "-byte page); %s not read",
		     m.nbad, m.nbad == 1 ? " is" : "s are", m.first_bad_pfn,
		     m.first_bad_at, m.first_bad_size, m.first_bad_flags, d->kd_page_size,
		     m.nbad == 1 ? "that page is" : "those pages are");
	return 0;
}

static bool bad_descriptor(const struct ps_dump *d, uint64_t idx)
{
	size_t lo = 0, hi = d->nbad_desc;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->bad_desc[mid] < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->nbad_desc && d->bad_desc[lo] == idx;
}

/* ---- VMCOREINFO ------------------------------------------------------------------------ */

/* Split VMCOREINFO text (owned by d from now on, replacing any earlier) into key=value lines. */
static void parse_vmcoreinfo(struct ps_dump *d, char *raw)
{
	free(d->vmcoreinfo_raw);
	free(d->vi);
	d->vi = NULL;
	d->nvi = 0;
	d->vmcoreinfo_raw = raw;
	size_t cap = 0;
	for (char *line = raw; *line && d->nvi < VMCOREINFO_MAX_LINES;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		char *eq = strchr(line, '=');
		if (eq && eq != line) {
			*eq = '\0';
			if (d->nvi == cap) {
				size_t ncap = cap ? cap * 2 : 128;
				struct vi_line *v = realloc(d->vi, ncap * sizeof *v);
				if (!v)
					break;
				d->vi = v;
				cap = ncap;
			}
			d->vi[d->nvi].key = line;
			d->vi[d->nvi].val = eq + 1;
			d->nvi++;
		}
		if (!nl)
			break;
		line = nl + 1;
	}
}

/* A VMCOREINFO note's LEN bytes at RAW (malloc'd, NUL after them; owned by d from now on).
 * The kernel writes text without NULs; a NUL inside (a corrupt dump) would end the text
 * there and drop every later line unseen. Instead the line holding it is dropped, the rest
 * read, and a warning says which line. */
static void take_vmcoreinfo_note(struct ps_dump *d, char *raw, size_t len)
{
	d->vmcoreinfo_note = true;
	while (len && raw[len - 1] == '\0')
		len--; /* note padding */
	size_t nuls = 0, first = 0, lines = 0;
	char first_line[48] = "";
	for (size_t i = 0; i < len; i++) {
		if (raw[i] != '\0')
			continue;
		size_t ls = i, le = i;
		while (ls > 0 && raw[ls - 1] != '\n')
			ls--;
		while (le < len && raw[le] != '\n')
			le++;
		if (nuls++ == 0) {
			first = i;
			size_t k = 0;
			for (size_t j = ls; j < le && k + 1 < sizeof first_line; j++)
				first_line[k++] = raw[j] >= 0x20 && raw[j] < 0x7f ? raw[j] : '?';
			first_line[k] = '\0';
		}
		memset(raw + ls, ' ', le - ls); /* no '=': parse_vmcoreinfo skips it */
		lines++;
		i = le;
	}
	if (nuls)
		warn(d, "the VMCOREINFO note (%zu bytes) has NUL bytes inside (the first at byte %zu, in "
			"the line '%s'): %zu line%s dropped, the rest read", len, first, first_line, lines,
		     lines == 1 ? "" : "s");
	parse_vmcoreinfo(d, raw);
	if (!d->nvi)
		warn(d, "the VMCOREINFO note (%zu bytes) holds no KEY=VALUE line", len);
}

static void load_vmcoreinfo(struct ps_dump *d)
{
	/* The note as a blob (its length known, NULs and all); the NUL-terminated copy
	 * kdump_vmcoreinfo_raw gives where the blob is not there. */
	kdump_attr_t a;
	if (kdump_get_attr(d->kd, "linux.vmcoreinfo.raw", &a) == KDUMP_OK && a.type == KDUMP_BLOB) {
		const char *p = kdump_blob_pin(a.val.blob);
		size_t n = kdump_blob_size(a.val.blob);
		char *raw = p ? malloc(n + 1) : NULL;
		if (raw) {
			memcpy(raw, p, n);
			raw[n] = '\0';
		}
		kdump_blob_unpin(a.val.blob);
		if (raw) {
			take_vmcoreinfo_note(d, raw, n);
			return;
		}
	}
	char *raw = NULL;
	if (kdump_vmcoreinfo_raw(d->kd, &raw) != KDUMP_OK || !raw)
		return;
	take_vmcoreinfo_note(d, raw, strlen(raw));
}

static const char *vmcoreinfo_get(const struct ps_dump *d, const char *key)
{
	for (size_t i = 0; i < d->nvi; i++)
		if (strcmp(d->vi[i].key, key) == 0)
			return d->vi[i].val;
	return NULL;
}

/* ---- the target operations ----------------------------------------------------------- */

static bool bmp_bit(kdump_bmp_t *b, uint64_t idx)
{
	unsigned char raw[8] = { 0 };
	if (!b || kdump_bmp_get_bits(b, idx, idx, raw) != KDUMP_OK)
		return false;
	return raw[0] & 1;
}

/* Status of the file page (libkdumpfile's unit) holding physical address PA. */
static enum ps_read_status paddr_status(struct ps_dump *d, uint64_t pa)
{
	uint64_t idx = pa >> d->kd_page_shift;
	if (d->kd_max_pfn && idx >= d->kd_max_pfn)
		return PS_READ_NODATA;
	if (in_trunc(d, pa))
		return PS_READ_NODATA;
	if (!d->file_map)
		return PS_READ_OK; /* the format has no page map: assume present */
	if (d->kpages ? ps_kdump_pages_present(d->kpages, idx) : bmp_bit(d->file_map, idx)) {
		if (d->nbad_desc && bad_descriptor(d, idx)) {
			snprintf(d->last_error, sizeof d->last_error,
				 "physical address 0x%" PRIx64 ": not read: corrupt page descriptor", pa);
			return PS_READ_ERROR;
		}
		return PS_READ_OK;
	}
	if (d->kd_block_size ? kdump_ram_bit(d, idx) : bmp_bit(d->mem_map, idx))
		return PS_READ_EXCLUDED;
	return PS_READ_NODATA;
}

/* The ELF file's own program headers, when its reads go through them. */
static struct ps_elf_segments *elf_reader(const struct ps_dump *d)
{
	return d->segs ? d->segs : d->elf_reads;
}

static enum ps_read_status dump_pfn_status(void *ctx, uint64_t pfn)
{
	struct ps_dump *d = ctx;
	if (pfn > (UINT64_MAX >> d->target_page_shift))
		return PS_READ_NODATA;
	if (elf_reader(d))
		return ps_elf_segments_status(elf_reader(d), pfn << d->target_page_shift);
	return paddr_status(d, pfn << d->target_page_shift);
}

/* A kdump-compressed file's pages through kdump_pages.c, page by page; a page it leaves to
 * libkdumpfile (LZO, snappy) through kdump_read. As dump_read_phys: the first page that is
 * not OK decides the status, the buffer is zero from there on. */
#define KDUMP_RUN_PAGES 32 /* shorter reads go through the page cache */

static enum ps_read_status read_kdump_pages(struct ps_dump *d, uint64_t paddr, unsigned char *buf,
					    size_t len)
{
	uint64_t mask = (uint64_t)d->kd_page_size - 1;
	size_t done = 0;
	while (done < len) {
		uint64_t pa = paddr + done;
		uint32_t in = (uint32_t)(pa & mask);
		/* A long run of whole pages the file holds (start-up's BTF and kallsyms tables):
		 * decompressed straight into BUF, not through the cache. Anything wrong in it is
		 * left to the page-by-page reads below, which say what. */
		uint64_t whole = in ? 0 : (len - done) >> d->kd_page_shift, run = 0;
		if (whole >= KDUMP_RUN_PAGES) {
			while (run < whole && paddr_status(d, pa + (run << d->kd_page_shift)) == PS_READ_OK)
				run++;
			if (run >= KDUMP_RUN_PAGES &&
			    ps_kdump_pages_read_run(d->kpages, pa >> d->kd_page_shift, run, buf + done)) {
				done += (size_t)run << d->kd_page_shift;
				continue;
			}
		}
		size_t n = len - done < d->kd_page_size - in ? len - done : d->kd_page_size - in;
		enum ps_read_status st = paddr_status(d, pa);
		if (st == PS_READ_OK) {
			char why[200];
			switch (ps_kdump_pages_read(d->kpages, pa >> d->kd_page_shift, in, buf + done, n,
						    why, sizeof why)) {
			case KP_OK:
				break;
			case KP_FOREIGN: {
				size_t got = n;
				if (kdump_read(d->kd, KDUMP_MACHPHYSADDR, pa, buf + done, &got) == KDUMP_OK &&
				    got == n)
					break;
				snprintf(d->last_error, sizeof d->last_error,
					 "physical address 0x%" PRIx64 ": %s", pa, kdump_get_err(d->kd));
				st = PS_READ_ERROR;
				break;
			}
			case KP_ERROR:
				snprintf(d->last_error, sizeof d->last_error,
					 "physical address 0x%" PRIx64 ": %s", pa, why);
				st = PS_READ_ERROR;
				break;
			}
		}
		if (st != PS_READ_OK) {
			memset(buf + done, 0, len - done);
			return st;
		}
		done += n;
	}
	return PS_READ_OK;
}

static enum ps_read_status read_phys(struct ps_dump *d, uint64_t paddr, void *buf, size_t len);

/* ST, after counting it when it is an error (the first one's text kept from last_error),
 * for ps_dump_read_errors. */
static enum ps_read_status counted(struct ps_dump *d, enum ps_read_status st)
{
	if (st == PS_READ_ERROR && d->read_errors++ == 0)
		memcpy(d->first_error, d->last_error, sizeof d->first_error);
	return st;
}

/* Every read: the errors are counted and the first kept, for ps_dump_read_errors. */
static enum ps_read_status dump_read_phys(void *ctx, uint64_t paddr, void *buf, size_t len)
{
	struct ps_dump *d = ctx;
	return counted(d, read_phys(d, paddr, buf, len));
}

static enum ps_read_status read_phys(struct ps_dump *d, uint64_t paddr, void *buf, size_t len)
{
	if (len == 0)
		return PS_READ_OK;
	if (paddr > UINT64_MAX - (len - 1)) {
		memset(buf, 0, len);
		return PS_READ_ERROR;
	}
	if (elf_reader(d)) {
		enum ps_read_status st = ps_elf_segments_read(elf_reader(d), paddr, buf, len);
		if (st == PS_READ_ERROR)
			snprintf(d->last_error, sizeof d->last_error, "%s",
				 ps_elf_segments_error(elf_reader(d)));
		return st;
	}
	if (d->kpages)
		return read_kdump_pages(d, paddr, buf, len);
	/* Ask libkdumpfile only for pages its page map says the file holds: 0.5.1 leaves its
	 * page cache broken after some failed reads (an out-of-range PFN once the cache is
	 * full made every later read of a zlib kdump fail with "Decompresion failed: error
	 * -2"), and the page map lookup is cheap (no I/O). */
	size_t want = 0;
	enum ps_read_status first_bad = PS_READ_OK;
	for (uint64_t page = paddr >> d->kd_page_shift;; page++) {
		uint64_t at = page << d->kd_page_shift;
		enum ps_read_status ps = paddr_status(d, at > paddr ? at : paddr);
		if (ps != PS_READ_OK) {
			first_bad = ps;
			break;
		}
		uint64_t page_end = (page + 1) << d->kd_page_shift; /* 0 on wrap: last page */
		if (page_end == 0 || page_end - paddr >= len) {
			want = len;
			break;
		}
		want = (size_t)(page_end - paddr);
	}
	/* A truncated ELF can end inside a page. */
	uint64_t cut = next_trunc_start(d, paddr);
	if (cut - paddr < want) {
		want = (size_t)(cut - paddr);
		first_bad = PS_READ_NODATA;
	}
	size_t got = want;
	kdump_status st = KDUMP_OK;
	if (want)
		st = kdump_read(d->kd, KDUMP_MACHPHYSADDR, paddr, buf, &got);
	if (st == KDUMP_OK && got == len)
		return PS_READ_OK;
	if (got > want)
		got = 0;
	memset((char *)buf + got, 0, len - got);
	if (st == KDUMP_OK && got == want)
		return first_bad;
	uint64_t bad = paddr + got;
	enum ps_read_status ps = paddr_status(d, bad);
	if (ps == PS_READ_NODATA)
		return PS_READ_NODATA; /* includes the part of a truncated ELF past its end */
	switch (st) {
	case KDUMP_OK: /* short read without an error: treat the rest as absent */
	case KDUMP_ERR_NODATA:
		return ps == PS_READ_EXCLUDED ? PS_READ_EXCLUDED : PS_READ_NODATA;
	case KDUMP_ERR_EOF:
		return PS_READ_NODATA;
	default:
		snprintf(d->last_error, sizeof d->last_error, "physical address 0x%" PRIx64 ": %s",
			 bad, kdump_get_err(d->kd));
		return PS_READ_ERROR;
	}
}

static const char *dump_vmcoreinfo(void *ctx, const char *key)
{
	return vmcoreinfo_get(ctx, key);
}

/* ---- VMCOREINFO left in guest RAM ------------------------------------------------------ */

#define VMCOREINFO_SCAN_STEP 4096u   /* vmcoreinfo_data is a page: aligned to at least 4K */
#define VMCOREINFO_TEXT_MAX 65536u   /* VMCOREINFO_BYTES is PAGE_SIZE (64K on some kernels) */

#define VMCOREINFO_SCAN_MAX_PAGES (UINT64_C(1) << 24) /* 64 GiB of 4K pages looked at */

/* Whether the physical page at PA is in the dump, without reading it. */
static bool page_in_dump(struct ps_dump *d, uint64_t pa)
{
	return (d->segs ? ps_elf_segments_status(d->segs, pa) : paddr_status(d, pa)) == PS_READ_OK;
}

/* The first scan step at or after PA that the dump may hold (its page maps skip the holes:
 * the highest address comes from the dump and may lie far beyond its RAM), or UINT64_MAX. */
static uint64_t next_in_dump(struct ps_dump *d, uint64_t pa)
{
	for (;;) {
		uint64_t at = pa;
		if (d->segs) {
			at = ps_elf_segments_next(d->segs, pa);
		} else if (d->file_map) {
			kdump_addr_t idx = pa >> d->kd_page_shift;
			if (kdump_bmp_find_set(d->file_map, &idx) != KDUMP_OK ||
			    idx > (UINT64_MAX >> d->kd_page_shift))
				return UINT64_MAX;
			at = (uint64_t)idx << d->kd_page_shift;
			if (at < pa)
				at = pa;
		}
		if (at == UINT64_MAX || at > UINT64_MAX - VMCOREINFO_SCAN_STEP)
			return UINT64_MAX;
		at = (at + VMCOREINFO_SCAN_STEP - 1) & ~(uint64_t)(VMCOREINFO_SCAN_STEP - 1);
		/* Past the end of the file (a cut-short dump, or headers that claim more than
		 * it holds): nothing to look at there, however much is claimed. A segment whose
		 * p_filesz said 5.8 TB past the end of a 336 MB ELF had the scan look at 2^24
		 * pages, its bound, one after the other: 1.1 s (4 s under ASan) for an open that
		 * takes 0.03 s. */
		size_t n = d->ntrunc ? trunc_at_or_below(d, at) : 0;
		if (!n || at >= d->trunc[n - 1].max_end)
			return at;
		pa = d->trunc[n - 1].max_end;
		if (pa == UINT64_MAX)
			return UINT64_MAX;
	}
}

/* The first LEN bytes at PA (in one file page) for the scan below: a kdump page compressed
 * with zlib is inflated only that far (the scan of a 128 MiB ppc32 kdump looked at thousands
 * of pages, each inflated whole: most of the open). */
static enum ps_read_status peek_phys(struct ps_dump *d, uint64_t pa, void *buf, size_t len)
{
	if (!d->kpages || elf_reader(d) || (pa & (d->kd_page_size - 1)) || len > d->kd_page_size ||
	    paddr_status(d, pa) != PS_READ_OK)
		return dump_read_phys(d, pa, buf, len);
	char why[200];
	switch (ps_kdump_pages_peek(d->kpages, pa >> d->kd_page_shift, buf, len, why, sizeof why)) {
	case KP_OK:
		return PS_READ_OK;
	case KP_FOREIGN:
		return dump_read_phys(d, pa, buf, len);
	case KP_ERROR:
		break;
	}
	snprintf(d->last_error, sizeof d->last_error, "physical address 0x%" PRIx64 ": %s", pa, why);
	return counted(d, PS_READ_ERROR);
}

/* QEMU dumps of guests without a fw_cfg VMCOREINFO device (pseries, ppce500, armhf virt)
 * have no VMCOREINFO note, but the kernel wrote it at boot into vmcoreinfo_data, a zeroed
 * page of its own: find a page that starts "OSRELEASE=" and holds PAGESIZE= and SYMBOL(
 * lines, and take its text. Returns its physical address, or UINT64_MAX. */
static uint64_t find_vmcoreinfo_in_ram(struct ps_dump *d, uint64_t end, uint64_t *pages_looked)
{
	static const char magic[] = "OSRELEASE=";
	char head[sizeof magic - 1];
	uint64_t looked = 0;
	*pages_looked = 0;
	for (uint64_t pa = next_in_dump(d, 0); pa < end && looked < VMCOREINFO_SCAN_MAX_PAGES;
	     pa = pa <= UINT64_MAX - VMCOREINFO_SCAN_STEP ? next_in_dump(d, pa + VMCOREINFO_SCAN_STEP) : UINT64_MAX) {
		*pages_looked = ++looked;
		if (!page_in_dump(d, pa) || peek_phys(d, pa, head, sizeof head) != PS_READ_OK ||
		    memcmp(head, magic, sizeof head) != 0)
			continue;
		char *text = malloc(VMCOREINFO_TEXT_MAX + 1);
		if (!text)
			return UINT64_MAX;
		size_t n = 0;
		/* Page by page, stopping at the end of the text (its NUL) or of the dump. */
		while (n < VMCOREINFO_TEXT_MAX &&
		       dump_read_phys(d, pa + n, text + n, VMCOREINFO_SCAN_STEP) == PS_READ_OK &&
		       !memchr(text + n, 0, VMCOREINFO_SCAN_STEP))
			n += VMCOREINFO_SCAN_STEP;
		text[n < VMCOREINFO_TEXT_MAX ? n + VMCOREINFO_SCAN_STEP : VMCOREINFO_TEXT_MAX] = 0;
		if (strstr(text, "\nPAGESIZE=") && strstr(text, "\nSYMBOL(")) {
			parse_vmcoreinfo(d, text);
			return pa;
		}
		free(text);
	}
	return UINT64_MAX;
}

/* Hints go to the kdump reader's prefetcher (dump_ops_prefetch: a kdump-compressed file
 * read by kdump_pages.c on more than one CPU); other formats have nothing to decompress, and
 * the walker spends nothing on hints for them (dump_ops: none). */
static void dump_prefetch_phys(void *ctx, uint64_t paddr)
{
	struct ps_dump *d = ctx;
	ps_kdump_pages_prefetch(d->kpages, paddr >> d->kd_page_shift);
}

/* A walk split across processes (walker/split.c). Every reader here can be forked: the
 * file is read with pread or through a shared mapping, and the only thread of our own is
 * the kdump prefetcher, stopped for good (the workers keep the CPUs busy). What a worker's
 * reads change that the parent reports: the read errors and the first one's message, and
 * the decompression counts of --stats. */
struct dump_worker_report {
	uint64_t read_errors, decompressed, hits;
	char first_error[256];
};

static int dump_fork_prepare(void *ctx)
{
	struct ps_dump *d = ctx;
	uint64_t ahead, ahead_used;
	ps_kdump_pages_stop_helpers(d->kpages);
	d->fork_read_errors = d->read_errors;
	ps_kdump_pages_counts(d->kpages, &d->fork_decompressed, &d->fork_hits, &ahead, &ahead_used);
	return 0;
}

static size_t dump_worker_report(void *ctx, void *buf, size_t cap)
{
	struct ps_dump *d = ctx;
	struct dump_worker_report r = { .read_errors = d->read_errors - d->fork_read_errors };
	uint64_t decompressed, hits, ahead, ahead_used;
	ps_kdump_pages_counts(d->kpages, &decompressed, &hits, &ahead, &ahead_used);
	r.decompressed = decompressed - d->fork_decompressed;
	r.hits = hits - d->fork_hits;
	if (!d->fork_read_errors) /* else the parent has the first already */
		memcpy(r.first_error, d->first_error, sizeof r.first_error);
	if (cap < sizeof r)
		return 0;
	memcpy(buf, &r, sizeof r);
	return sizeof r;
}

static void dump_worker_merge(void *ctx, const void *buf, size_t len)
{
	struct ps_dump *d = ctx;
	struct dump_worker_report r;
	if (len != sizeof r)
		return;
	memcpy(&r, buf, sizeof r);
	if (r.read_errors && d->read_errors == 0)
		memcpy(d->first_error, r.first_error, sizeof d->first_error);
	d->read_errors += r.read_errors;
	ps_kdump_pages_add_counts(d->kpages, r.decompressed, r.hits);
}

static const struct ps_target_ops dump_ops = {
	.read_phys = dump_read_phys,
	.read_kvirt = NULL,
	.pfn_status = dump_pfn_status,
	.vmcoreinfo = dump_vmcoreinfo,
	.fork_prepare = dump_fork_prepare,
	.worker_report = dump_worker_report,
	.worker_merge = dump_worker_merge,
};

static const struct ps_target_ops dump_ops_prefetch = {
	.read_phys = dump_read_phys,
	.read_kvirt = NULL,
	.pfn_status = dump_pfn_status,
	.vmcoreinfo = dump_vmcoreinfo,
	.prefetch_phys = dump_prefetch_phys,
	.fork_prepare = dump_fork_prepare,
	.worker_report = dump_worker_report,
	.worker_merge = dump_worker_merge,
};

/* ---- architecture ---------------------------------------------------------------------- */

/* libkdumpfile's canonical names (or a utsname machine) to the record header's names. */
static const char *header_arch(const char *name, bool big_endian)
{
	if (!name || !*name)
		return NULL;
	if (!strcmp(name, "x86_64") || !strcmp(name, "amd64"))
		return "x86_64";
	if (!strcmp(name, "aarch64") || !strcmp(name, "arm64"))
		return "arm64";
	if (!strcmp(name, "ppc64") || !strcmp(name, "ppc64le"))
		return big_endian ? "ppc64" : "ppc64le";
	if (!strcmp(name, "ppc") || !strcmp(name, "ppc32"))
		return "ppc32";
	if (!strcmp(name, "arm") || !strncmp(name, "armv", 4))
		return "arm";
	return NULL;
}

static void set_arch(struct ps_dump *d, const unsigned char *head, size_t n)
{
	const char *kname = NULL, *a = NULL;
	if (d->segs)
		kname = ps_elf_segments_machine(d->segs) == 21   ? "ppc64"
			: ps_elf_segments_machine(d->segs) == 20 ? "ppc"
								 : NULL;
	else if (kdump_get_string_attr(d->kd, KDUMP_ATTR_ARCH_NAME, &kname) != KDUMP_OK)
		kname = NULL;
	a = header_arch(kname, d->target.big_endian);
	if (!a && n >= 337 && diskdump_signature(head, n)) {
		/* QEMU's kdump files leave arch.name unset but may fill utsname.machine. */
		char machine[66];
		memcpy(machine, head + 12 + 4 * 65, 65);
		machine[65] = '\0';
		a = header_arch(machine, d->target.big_endian);
	}
	if (!a && d->nvi) {
		/* Entries only one architecture's VMCOREINFO has (Linux 4.x-6.x). */
		if (vmcoreinfo_get(d, "NUMBER(kimage_voffset)") || vmcoreinfo_get(d, "NUMBER(TCR_EL1_T1SZ)"))
			a = "arm64";
		else if (vmcoreinfo_get(d, "SYMBOL(init_top_pgt)") ||
			 vmcoreinfo_get(d, "NUMBER(pgtable_l5_enabled)"))
			a = "x86_64";
		else if (vmcoreinfo_get(d, "NUMBER(RADIX_MMU)") || vmcoreinfo_get(d, "SYMBOL(vmemmap_list)"))
			/* powerpc; the width tells which: 6.12's 32-bit e500 kernel also writes
			 * NUMBER(RADIX_MMU)=0 (6.1's did not). */
			a = d->target.ptr_size == 4 ? "ppc32" : d->target.big_endian ? "ppc64" : "ppc64le";
	}
	if (!a) {
		/* Nothing says: a big-endian 32-bit Linux dump is ppc32 in practice, a little-
		 * endian one arm; say it was a guess. */
		if (d->target.ptr_size == 4) {
			a = d->target.big_endian ? "ppc32" : "arm";
			warn(d, "the dump does not name its architecture; assuming %s (%s-endian, "
				"32-bit)", a, d->target.big_endian ? "big" : "little");
		} else {
			a = kname && *kname ? kname : "unknown";
			warn(d, "the dump does not name a supported architecture (%s)", a);
		}
	}
	snprintf(d->arch, sizeof d->arch, "%s", a);
	d->target.arch = d->arch;
}

/* ---- open / close --------------------------------------------------------------------- */

/* libkdumpfile 0.5.1 frees its kdump-format data when opening a kdump file fails, and then
 * kdump_free dereferences it (SIGSEGV). Such contexts are kept here instead, reachable and
 * never freed (about 4 MiB each, most of it the page cache); past the bound they leak. Only
 * an open the probe could not try first comes here (probe_kdump_open).
 * (After a successful open, kdump_free of a kdump file still reads and writes 8 bytes of a
 * small block it freed earlier in the same call, as valgrind shows on a bare open/free;
 * harmless with glibc's and ASan's allocators, so it is called.) */
#define ABANDONED_MAX 16
static kdump_ctx_t *abandoned[ABANDONED_MAX];
static unsigned n_abandoned;

static void abandon_kdump_ctx(struct ps_dump *d)
{
	if (n_abandoned < ABANDONED_MAX)
		abandoned[n_abandoned++] = d->kd;
	d->kd = NULL;
}

/* How the probe's open of a dump ended (probe_kdump_open). */
struct open_probe {
	enum { PROBE_NOT_RUN, PROBE_OPENS, PROBE_FAILS, PROBE_DIES } outcome;
	kdump_status status; /* PROBE_FAILS: kdump_open_fd's status */
	char why[200];       /* PROBE_FAILS: libkdumpfile's message; PROBE_DIES: how it died */
};

/* libkdumpfile 0.5.1 dies of SIGSEGV inside kdump_open_fd on some corrupt files: found by
 * fuzz/fuzz_dump_header.c, a VMCOREINFO line whose key starts with '.' (an empty attribute
 * name), in a kdump file's VMCOREINFO as in an ELF note. So the file is opened first in a
 * child process, which reports how its open ended: an open that kills the child is refused
 * here with one line instead of killing pagesleuth. An open that fails in the child comes
 * back with its status and message through a pipe, so the file is not opened a second time
 * only to fail again: a context whose kdump-file open failed cannot be freed
 * (abandon_kdump_ctx), and a long run over many corrupt files (the dump-header fuzzer)
 * would keep every one. Costs a fork and a second open of the headers (~1 ms). KD is the
 * configured context not yet opened: the child opens its own copy of it. */
static void probe_kdump_open(kdump_ctx_t *kd, int fd, struct open_probe *probe)
{
	struct {
		kdump_status status;
		char why[sizeof probe->why];
	} failed;
	probe->outcome = PROBE_NOT_RUN;
	int report[2];
	if (pipe2(report, O_CLOEXEC) < 0)
		return; /* cannot probe: open it for real, as before */
	fflush(NULL); /* nothing buffered twice */
	pid_t pid = fork();
	if (pid < 0) {
		close(report[0]);
		close(report[1]);
		return;
	}
	if (pid == 0) {
		/* Die quietly of the signal: no core file, and no sanitizer's report (the ASan
		 * build's handler would print one and exit 1). */
		setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 });
		struct sigaction dfl = { .sa_handler = SIG_DFL };
		for (int sig = 0, sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT }; sig < 5; sig++)
			sigaction(sigs[sig], &dfl, NULL);
		close(report[0]);
		/* Its own open file description: the parent's file offset stays untouched. */
		char self[64];
		snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
		int own = open(self, O_RDONLY | O_CLOEXEC);
		failed.status = kdump_open_fd(kd, own >= 0 ? own : fd);
		if (failed.status == KDUMP_OK)
			_exit(0);
		const char *msg = kdump_get_err(kd);
		snprintf(failed.why, sizeof failed.why, "%s", msg ? msg : "");
		_exit(write(report[1], &failed, sizeof failed) == (ssize_t)sizeof failed ? 3 : 4);
	}
	close(report[1]);
	size_t got = 0;
	while (got < sizeof failed) {
		ssize_t n = read(report[0], (char *)&failed + got, sizeof failed - got);
		if (n > 0)
			got += (size_t)n;
		else if (n == 0 || errno != EINTR)
			break;
	}
	close(report[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		probe->outcome = PROBE_OPENS;
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 3 && got == sizeof failed) {
		probe->outcome = PROBE_FAILS;
		probe->status = failed.status;
		failed.why[sizeof failed.why - 1] = '\0';
		memcpy(probe->why, failed.why, sizeof probe->why);
	} else if (WIFSIGNALED(status)) {
		probe->outcome = PROBE_DIES;
		snprintf(probe->why, sizeof probe->why, "libkdumpfile dies opening it (%s)",
			 strsignal(WTERMSIG(status)));
	} else if (!WIFEXITED(status) || WEXITSTATUS(status) != 4) {
		/* a sanitizer's report ends the child with its own status */
		probe->outcome = PROBE_DIES;
		snprintf(probe->why, sizeof probe->why, "libkdumpfile fails opening it (exit %d)",
			 WEXITSTATUS(status));
	} /* 4: the child could not say why its open failed: open it for real */
}

static const char *format_name(const char *kd_format, bool flattened)
{
	if (!kd_format)
		return flattened ? "flattened" : "unknown";
	if (!strcmp(kd_format, "diskdump"))
		return flattened ? "kdump-flattened" : "kdump";
	if (flattened)
		return !strcmp(kd_format, "elf") ? "elf-flattened" : "flattened";
	return kd_format; /* "elf", "lkcd", "sadump", ... as libkdumpfile names them */
}

void ps_dump_close(struct ps_dump *d)
{
	if (!d)
		return;
	ps_kdump_pages_close(d->kpages);
	ps_mapped_file_unmap(&d->kd_file);
	free(d->file_words);
	ps_elf_segments_close(d->elf_reads);
	if (d->file_map)
		kdump_bmp_decref(d->file_map);
	if (d->mem_map)
		kdump_bmp_decref(d->mem_map);
	if (d->kd)
		kdump_free(d->kd);
	ps_elf_segments_close(d->segs);
	if (d->fd >= 0)
		close(d->fd);
	free(d->vmcoreinfo_raw);
	free(d->vi);
	free(d->trunc);
	free(d->bad_desc);
	free(d->ram_block);
	free(d->warnings);
	free(d->path);
	free(d);
}

/* QEMU's dump-guest-memory ELF for a PowerPC guest (e_machine MACHINE): it writes e_ehsize
 * 8 there, which no other producer does. */
static bool is_qemu_ppc_elf(const unsigned char *head, size_t n, unsigned machine)
{
	if (n < 52 || memcmp(head, "\177ELF", 4) != 0 || (head[5] != 1 && head[5] != 2))
		return false;
	bool be = head[5] == 2, is64 = head[4] == 2;
	if ((machine == 21) != is64 || load_uint(head + 18, 2, be) != machine)
		return false;
	return load_uint(head + (is64 ? 52 : 40), 2, be) != (is64 ? 64u : 52u);
}

/* An ELF libkdumpfile cannot open or should not (elf_segments.h): read it through its
 * program headers. A ppc64 guest's byte order comes from the CPU state, a ppc32 guest's from
 * the header (those are big-endian); the page size from VMCOREINFO. */
static int open_segments(struct ps_dump *d, uint64_t file_size, const unsigned char *head,
			 char **err)
{
	char *why = NULL;
	d->segs = ps_elf_segments_open(d->fd, file_size, &why);
	if (!d->segs) {
		ps_set_err(err, "%s: malformed ELF header: %s", d->path, why ? why : "unusable");
		free(why);
		return -1;
	}
	d->format = "elf";
	d->target.ptr_size = ps_elf_segments_ptr_size(d->segs);
	size_t note_len;
	char *note = ps_elf_segments_vmcoreinfo(d->segs, &note_len); /* QEMU's, from -device vmcoreinfo */
	if (note)
		take_vmcoreinfo_note(d, note, note_len);
	bool header_be = ps_elf_segments_header_big_endian(d->segs), little = !header_be;
	if (ps_elf_segments_machine(d->segs) == 20 /* EM_PPC */) {
		/* libkdumpfile 0.5.1 would read the garbage table's string table: ~180 MiB copied
		 * on every open, half the time of a whole extraction of a 3 GiB dump. */
		d->target.big_endian = header_be;
		warn(d, "QEMU's ppc32 ELF header (e_ehsize %u, a garbage section header table, "
			"64-bit NT_PRSTATUS): read through its program headers only",
		     (unsigned)load_uint(head + 40, 2, header_be));
	} else {
		bool said = ps_elf_segments_ppc64_guest_little_endian(d->segs, &little);
		d->target.big_endian = !little;
		warn(d, "QEMU's ppc64 ELF header (e_ehsize 8, section headers in the host's byte "
			"order%s): read through its program headers only%s",
		     header_be && little ? ", big-endian over a little-endian guest" : "",
		     said ? "" : "; no CPU note says the guest's byte order, the header's is taken");
	}
	if (ps_elf_segments_missing(d->segs))
		warn(d, "truncated ELF dump: %" PRIu64 " bytes of its segments lie past the end of "
			"the file; those pages read as not in the dump",
		     ps_elf_segments_missing(d->segs));
	d->target.page_size = 0;
	d->page_size_guessed = true;
	d->kd_page_size = FALLBACK_PAGE_SIZE;
	d->kd_page_shift = d->target_page_shift = 12;
	return 0;
}

/* Read pages without libkdumpfile where the format allows (see struct ps_dump): a
 * kdump-compressed file through kdump_pages.c, an ELF file that holds all its segments
 * through its program headers and a mapping. Anything that does not work out leaves the
 * reads to libkdumpfile. */
static void open_own_reads(struct ps_dump *d, uint64_t file_size)
{
	if (d->kd_block_size && d->file_map && d->kd_max_pfn &&
	    d->kd_max_pfn / 8 <= file_size /* its bitmap is in the file: memory bounded by it */) {
		uint64_t nwords = (d->kd_max_pfn + 63) / 64;
		enum { CHUNK_BITS = 1 << 20 };
		unsigned char *raw = malloc(CHUNK_BITS / 8);
		d->file_words = calloc(nwords, sizeof *d->file_words);
		bool ok = raw && d->file_words;
		for (uint64_t first = 0; ok && first < d->kd_max_pfn; first += CHUNK_BITS) {
			uint64_t last = d->kd_max_pfn - first > CHUNK_BITS ? first + CHUNK_BITS - 1
									    : d->kd_max_pfn - 1;
			ok = kdump_bmp_get_bits(d->file_map, first, last, raw) == KDUMP_OK;
			for (uint64_t i = 0; ok && i <= last - first; i += 8) /* bit 0: the first page */
				d->file_words[(first + i) / 64] |= (uint64_t)raw[i / 8] << ((first + i) % 64);
		}
		free(raw);
		struct ps_kdump_layout l = {
			.fd = d->fd, .file_size = file_size, .block_size = d->kd_page_size,
			.desc_off = d->kd_desc_off, .big_endian = d->target.big_endian,
			.words = d->file_words, .npages = d->kd_max_pfn, .helpers = d->kd_helpers,
			.file = &d->kd_file,
		};
		if (ok)
			d->kpages = ps_kdump_pages_open(&l);
		if (!d->kpages) {
			free(d->file_words);
			d->file_words = NULL;
		}
	}
	/* A truncated ELF too: libkdumpfile 0.5.1 looks a page's segment up one segment after
	 * the other, per read (an 82,000-segment dump cut short: 0.8 s for a 4,600-page
	 * extraction); pagesleuth's reader says NODATA past the end of the file as well. */
	if (!d->diskdump && d->format && !strncmp(d->format, "elf", 3)) {
		char *why = NULL;
		d->elf_reads = ps_elf_segments_open(d->fd, file_size, &why);
		free(why); /* libkdumpfile reads it then */
	}
}

/* What every format shares once it is open: VMCOREINFO (from the note, else from guest
 * RAM), the kernel's page size, and the highest PFN in the kernel's pages. */
static void finish_open(struct ps_dump *d)
{
	uint64_t end = d->segs ? ps_elf_segments_end(d->segs)
		       : d->kd_max_pfn <= (UINT64_MAX >> d->kd_page_shift) ? d->kd_max_pfn << d->kd_page_shift
									  : UINT64_MAX;
	if (!d->nvi) {
		const char *what = d->vmcoreinfo_note ? "the dump's VMCOREINFO note is unreadable"
						      : "the dump has no VMCOREINFO note";
		uint64_t looked;
		uint64_t at = find_vmcoreinfo_in_ram(d, end, &looked);
		if (at != UINT64_MAX)
			warn(d, "%s; using the VMCOREINFO the kernel left in RAM at physical address 0x%" PRIx64,
			     what, at);
		else
			warn(d, "%s, and none was found in RAM (%" PRIu64 " page%s looked at)", what, looked,
			     looked == 1 ? "" : "s");
	}
	const char *v = vmcoreinfo_get(d, "PAGESIZE");
	unsigned long vps = v ? strtoul(v, NULL, 10) : 0;
	if (!d->target.page_size && vps >= 512 && vps <= (1u << 24) && !(vps & (vps - 1))) {
		d->target.page_size = (uint32_t)vps;
		d->page_size_guessed = false;
		for (d->target_page_shift = 0; (1u << d->target_page_shift) < vps;)
			d->target_page_shift++;
	}
	if (d->page_size_guessed)
		warn(d, "the dump does not say its page size; reading it in %u-byte pages",
		     FALLBACK_PAGE_SIZE);
	d->target.max_pfn = end >> d->target_page_shift;
}

struct ps_dump *ps_dump_open(const char *path, char **warnings, char **err)
{
	if (warnings)
		*warnings = NULL;
	struct ps_dump *d = calloc(1, sizeof *d);
	if (!d || !(d->path = strdup(path))) {
		free(d);
		ps_set_err(err, "%s: out of memory", path);
		return NULL;
	}
	d->fd = -1;
	d->dump_level = -1;
	d->ram_block_off = UINT64_MAX;
	d->kd_cut_desc = UINT64_MAX;

	int in = open(path, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		ps_set_err(err, "%s: %s", path, strerror(errno));
		goto fail;
	}
	struct stat sb;
	bool fstat_ok = fstat(in, &sb) == 0;
	if (!fstat_ok || S_ISDIR(sb.st_mode)) {
		ps_set_err(err, "%s: %s", path, fstat_ok ? "is a directory" : strerror(errno));
		close(in);
		goto fail;
	}
	unsigned char head[512];
	memset(head, 0, sizeof head);
	ssize_t nhead = pread(in, head, sizeof head, 0);
	bool seekable = nhead >= 0;
	if (!seekable) /* a pipe: only the flattened format is a stream */
		nhead = read_full(in, head, 32) == 1 ? 32 : 0;
	if (nhead <= 0) {
		ps_set_err(err, "%s: not a kernel dump (empty file)", path);
		close(in);
		goto fail;
	}
	bool flattened = is_flattened(head, (size_t)nhead);
	if (flattened) {
		d->fd = reassemble_flattened(in, seekable ? 0 : (size_t)nhead, path, err);
		close(in);
		if (d->fd < 0)
			goto fail;
		nhead = pread(d->fd, head, sizeof head, 0);
		if (nhead < 0)
			nhead = 0;
		if (fstat(d->fd, &sb) < 0)
			sb.st_size = 0;
	} else if (!seekable) {
		ps_set_err(err, "%s: not a seekable file (only flattened dumps can be read from a "
			     "pipe)", path);
		close(in);
		goto fail;
	} else {
		d->fd = in;
	}

	if (is_qemu_ppc_elf(head, (size_t)nhead, 21 /* EM_PPC64 */) ||
	    is_qemu_ppc_elf(head, (size_t)nhead, 20 /* EM_PPC */)) {
		if (open_segments(d, (uint64_t)sb.st_size, head, err) != 0)
			goto fail;
		goto opened;
	}
	const char *broken = elf_header_broken(d->fd, head, (size_t)nhead, (uint64_t)sb.st_size);
	if (broken) {
		ps_set_err(err, "%s: malformed ELF header: %s", path, broken);
		goto fail;
	}
	d->diskdump = nhead >= 0 && diskdump_signature(head, (size_t)nhead);
	check_elf_truncation(d, head, (size_t)nhead, (uint64_t)sb.st_size);
	char header_why[256];
	broken = kdump_header_broken(d->fd, head, (size_t)nhead, (uint64_t)sb.st_size, header_why);
	if (broken) {
		ps_set_err(err, "%s: corrupt or truncated kdump file: %s", path, broken);
		goto fail;
	}

	d->kd = kdump_new();
	if (!d->kd) {
		ps_set_err(err, "%s: cannot initialise libkdumpfile", path);
		goto fail;
	}
	/* Linux is the only OS pagesleuth reads; libkdumpfile needs to be told for QEMU ELF
	 * dumps (it does not guess from the VMCOREINFO note). */
	kdump_set_string_attr(d->kd, KDUMP_ATTR_OSTYPE, "linux");
	/* Never mmap(2) in libkdumpfile: 0.5.1 touches mapped pages past the end of a truncated
	 * file (SIGBUS while reading its notes), and a file cut short by another process while
	 * it is mapped would end the reader with SIGBUS. Page reads go through pagesleuth's own
	 * guarded mapping instead (open_own_reads); libkdumpfile reads headers and notes. */
	kdump_set_number_attr(d->kd, KDUMP_ATTR_FILE_MMAP_POLICY, KDUMP_MMAP_NEVER);
	struct open_probe probe;
	probe_kdump_open(d->kd, d->fd, &probe);
	if (probe.outcome == PROBE_DIES) {
		ps_set_err(err, "%s: corrupt %s: %s", path, d->diskdump ? "kdump file" : "dump",
			   probe.why);
		goto fail;
	}
	kdump_status st = probe.outcome == PROBE_FAILS ? probe.status : kdump_open_fd(d->kd, d->fd);
	if (st != KDUMP_OK) {
		const char *why = probe.outcome == PROBE_FAILS ? (*probe.why ? probe.why : NULL)
							       : kdump_get_err(d->kd);
		/* "Cannot set file.set.0.fd: Unknown file format": the prefix says nothing. */
		const char *colon = why && !strncmp(why, "Cannot set file.", 16) ? strstr(why, ": ") : NULL;
		if (colon)
			why = colon + 2;
		if (d->diskdump)
			ps_set_err(err, "%s: corrupt kdump file (libkdumpfile: %s)", path,
				why ? why : kdump_strerror(st));
		else if (st == KDUMP_ERR_NOTIMPL || (why && strstr(why, "Unknown file format")))
			ps_set_err(err, "%s: not a kernel dump (libkdumpfile: %s)", path,
				why ? why : kdump_strerror(st));
		else
			ps_set_err(err, "%s: cannot open the dump (libkdumpfile: %s)", path,
				why ? why : kdump_strerror(st));
		if (d->diskdump && probe.outcome != PROBE_FAILS) /* opened here, and failed */
			abandon_kdump_ctx(d);
		goto fail;
	}
	const char *kd_format = NULL;
	kdump_get_string_attr(d->kd, KDUMP_ATTR_FILE_FORMAT, &kd_format);
	d->format = format_name(kd_format, flattened);

	kdump_num_t num;
	d->target.big_endian = false;
	if (kdump_get_number_attr(d->kd, KDUMP_ATTR_BYTE_ORDER, &num) == KDUMP_OK)
		d->target.big_endian = num == KDUMP_BIG_ENDIAN;
	d->target.ptr_size = 8;
	if (kdump_get_number_attr(d->kd, KDUMP_ATTR_PTR_SIZE, &num) == KDUMP_OK &&
	    (num == 4 || num == 8))
		d->target.ptr_size = (unsigned)num;
	/* The architecture libkdumpfile found sets the word size; its header's layout must be
	 * that machine's (kdump_header_broken refuses the machines it knows). */
	struct kdump_layout layout;
	if (kdump_header_layout(head, (size_t)nhead, &layout) && layout.ptr_size != d->target.ptr_size) {
		ps_set_err(err, "%s: corrupt kdump file: its header reads as a %u-bit machine's, but "
			     "libkdumpfile takes the machine for a %u-bit one", path, 8 * layout.ptr_size,
			   8 * d->target.ptr_size);
		goto fail;
	}

	load_vmcoreinfo(d);

	/* Page size: the dump's, else VMCOREINFO's; libkdumpfile needs one before any read. */
	uint32_t page_size = 0;
	if (kdump_get_number_attr(d->kd, KDUMP_ATTR_PAGE_SIZE, &num) == KDUMP_OK && num >= 512 &&
	    num <= (1u << 24) && !(num & (num - 1)))
		page_size = (uint32_t)num;
	d->target.page_size = page_size;
	if (!page_size) {
		const char *v = vmcoreinfo_get(d, "PAGESIZE");
		unsigned long vps = v ? strtoul(v, NULL, 10) : 0;
		uint32_t fallback = vps >= 512 && vps <= (1u << 24) && !(vps & (vps - 1))
					    ? (uint32_t)vps : FALLBACK_PAGE_SIZE;
		if (kdump_set_number_attr(d->kd, KDUMP_ATTR_PAGE_SIZE, fallback) != KDUMP_OK) {
			ps_set_err(err, "%s: the dump does not say its page size and libkdumpfile "
				     "refused %u (%s)", path, fallback, kdump_get_err(d->kd));
			goto fail;
		}
		page_size = fallback;
		if (vps == fallback)
			d->target.page_size = fallback;
		else
			d->page_size_guessed = true; /* VMCOREINFO in RAM may still say */
	}
	/* QEMU writes arm64 kdump files in 64 KiB blocks whatever the guest's page size;
	 * libkdumpfile then takes VMCOREINFO's PAGESIZE and overruns its buffers (SIGSEGV in
	 * 0.5.1). Read in the file's blocks; the target keeps the kernel's page size. */
	uint32_t block_size = kdump_block_size(head, (size_t)nhead);
	if (block_size && block_size != page_size) {
		if (kdump_set_number_attr(d->kd, KDUMP_ATTR_PAGE_SIZE, block_size) != KDUMP_OK) {
			ps_set_err(err, "%s: kdump block size %u differs from the page size %u and "
				     "libkdumpfile refused it (%s)", path, block_size, page_size,
				kdump_get_err(d->kd));
			goto fail;
		}
		if (!d->target.page_size)
			d->target.page_size = page_size;
		page_size = block_size;
	}
	d->kd_page_size = page_size;
	while ((1u << d->kd_page_shift) < page_size)
		d->kd_page_shift++;
	d->target_page_shift = d->kd_page_shift;
	if (d->target.page_size)
		for (d->target_page_shift = 0; (1u << d->target_page_shift) < d->target.page_size;)
			d->target_page_shift++;

	if (kdump_get_number_attr(d->kd, "max_pfn", &num) == KDUMP_OK)
		d->kd_max_pfn = num;

	kdump_attr_t attr;
	if (kdump_get_attr(d->kd, KDUMP_ATTR_FILE_PAGEMAP, &attr) == KDUMP_OK &&
	    attr.type == KDUMP_BITMAP) {
		d->file_map = attr.val.bitmap;
		kdump_bmp_incref(d->file_map);
	}
	size_t nh = (size_t)nhead;
	read_kdump_header(d, head, nh);
	if (!d->kd_block_size && kdump_get_attr(d->kd, KDUMP_ATTR_MEMORY_PAGEMAP, &attr) == KDUMP_OK &&
	    attr.type == KDUMP_BITMAP) {
		d->mem_map = attr.val.bitmap;
		kdump_bmp_incref(d->mem_map);
	}
	if (d->kd_block_size && (uint64_t)sb.st_size < d->kd_desc_off) {
		ps_set_err(err, "%s: truncated kdump file (%lld bytes; its header and page bitmaps "
			     "take %" PRIu64 ")", path, (long long)sb.st_size, d->kd_desc_off);
		goto fail;
	}
	check_kdump_truncation(d, (uint64_t)sb.st_size);
	if (d->kd_block_size) { /* once: it reads the cgroup's quota files; no use for an ELF */
		d->kd_helpers = ps_helper_threads(PS_KDUMP_HELPERS_MAX);
		/* for the check of every descriptor and then every read of kdump_pages.c (not
		 * mapped: both pread) */
		ps_mapped_file_map(&d->kd_file, d->fd, (uint64_t)sb.st_size);
	}
	if (check_kdump_descriptors(d, (uint64_t)sb.st_size, err) != 0)
		goto fail;
	open_own_reads(d, (uint64_t)sb.st_size);
opened:
	finish_open(d);
	set_arch(d, head, (size_t)nhead);

	const char *ct = vmcoreinfo_get(d, "CRASHTIME");
	if (ct) {
		char *end;
		long long t = strtoll(ct, &end, 10);
		if (end != ct && t > 0)
			d->crash_time = t;
	}
	d->target.ops = d->kpages && !elf_reader(d) && d->kd_page_size && ps_kdump_pages_prefetches(d->kpages)
			? &dump_ops_prefetch : &dump_ops;
	d->target.ctx = d;
	if (warnings) {
		*warnings = d->warnings;
		d->warnings = NULL;
	}
	return d;
fail:
	ps_dump_close(d);
	return NULL;
}

const struct ps_target *ps_dump_target(struct ps_dump *d)
{
	return &d->target;
}

const char *ps_dump_format(const struct ps_dump *d)
{
	return d->format;
}

bool ps_dump_kdump_unchecked(const struct ps_dump *d)
{
	return d->diskdump && d->kd_max_pfn && !d->kd_checked;
}

int ps_dump_level(const struct ps_dump *d)
{
	return d->dump_level;
}

int64_t ps_dump_time(const struct ps_dump *d)
{
	return d->crash_time;
}

int64_t ps_kdump_header_time(int fd, bool big_endian, unsigned ptr_size)
{
	unsigned char head[448];
	if ((ptr_size != 4 && ptr_size != 8) || pread(fd, head, sizeof head, 0) != (ssize_t)sizeof head ||
	    !diskdump_signature(head, sizeof head))
		return 0;
	return kdump_header_timestamp(head, big_endian, ptr_size);
}

uint64_t ps_dump_read_errors(const struct ps_dump *d, const char **first)
{
	*first = d->first_error;
	return d->read_errors;
}

void ps_dump_read_counts(const struct ps_dump *d, uint64_t *decompressed, uint64_t *cache_hits,
			 uint64_t *ahead, uint64_t *ahead_used)
{
	ps_kdump_pages_counts(d->kpages, decompressed, cache_hits, ahead, ahead_used);
}

const char *ps_dump_last_error(const struct ps_dump *d)
{
	return d->last_error;
}
