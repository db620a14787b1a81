/* test_dump.c - unit tests of the dump reader back-end (coredump/dump.h) on small dumps
 * built here byte by byte: ELF64 vmcores in both byte orders (PT_LOADs and a VMCOREINFO
 * note), a truncated ELF, kdump-compressed files (64-bit little-endian with a dump level
 * and excluded pages, 32-bit big-endian), makedumpfile's flattened format around both
 * (blocks out of order), a truncated and a corrupt flattened file, and garbage. Every case
 * must give the right bytes and statuses, or a clean one-line "PATH: reason" error.
 *
 * Prints "FAIL: file:line: ..." per failed check and a last line
 * "test_dump: N checks, M failed"; exits non-zero if any check failed.
 */
#include "dump.h"
#include "check.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include <inttypes.h>

static char tmpdir[] = "/tmp/test_dump.XXXXXX";

/* ---- building files --------------------------------------------------------------------- */

struct buf {
	unsigned char *p;
	size_t len, cap;
	bool be;
};

static void b_reserve(struct buf *b, size_t len)
{
	if (len <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap < len)
		cap *= 2;
	b->p = realloc(b->p, cap);
	if (!b->p) {
		perror("realloc");
		exit(2);
	}
	memset(b->p + b->cap, 0, cap - b->cap);
	b->cap = cap;
}

/* Store an integer of SIZE bytes at OFF in the buffer's byte order. */
static void put(struct buf *b, size_t off, unsigned size, uint64_t v)
{
	b_reserve(b, off + size);
	for (unsigned i = 0; i < size; i++)
		b->p[off + (b->be ? size - 1 - i : i)] = (unsigned char)(v >> (8 * i));
	if (off + size > b->len)
		b->len = off + size;
}

static void put_bytes(struct buf *b, size_t off, const void *data, size_t n)
{
	b_reserve(b, off + n);
	memcpy(b->p + off, data, n);
	if (off + n > b->len)
		b->len = off + n;
}

static char *write_file(const char *name, const void *data, size_t n)
{
	char *path;
	if (asprintf(&path, "%s/%s", tmpdir, name) < 0)
		exit(2);
	FILE *f = fopen(path, "wb");
	if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f) != 0) {
		perror(path);
		exit(2);
	}
	return path;
}

/* The test pattern: the byte at physical address PA. */
static unsigned char pat(uint64_t pa)
{
	return (unsigned char)(pa * 7 + (pa >> 12) * 13 + 1);
}

static void fill_pattern(unsigned char *dst, uint64_t pa, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = pat(pa + i);
}

static bool is_pattern(const unsigned char *p, uint64_t pa, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != pat(pa + i))
			return false;
	return true;
}

static bool all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static const char vmcoreinfo_text[] = "OSRELEASE=6.1.0-test\n"
				      "PAGESIZE=4096\n"
				      "BUILD-ID=0123456789abcdef0123456789abcdef01234567\n"
				      "SYMBOL(init_task)=ffffffff82a0c940\n"
				      "NUMBER(pgtable_l5_enabled)=0\n"
				      "CRASHTIME=1700000000\n";

/* ---- ELF64 vmcore ---------------------------------------------------------------------- */

/* Two PT_LOADs: [0, 0x2000) at file 0x1000 and [0x100000, 0x103000) at file 0x3000, and a
 * PT_NOTE with VMCOREINFO. Machine x86_64 (little-endian) or ppc64 (big-endian). */
static struct buf make_elf(bool be)
{
	struct buf b = { .be = be };
	static const unsigned char ident[] = { 0x7f, 'E', 'L', 'F', 2 /* 64-bit */, 0, 1 };
	put_bytes(&b, 0, ident, sizeof ident);
	b.p[5] = be ? 2 : 1;
	put(&b, 16, 2, 4);              /* ET_CORE */
	put(&b, 18, 2, be ? 21 : 62);   /* EM_PPC64 / EM_X86_64 */
	put(&b, 20, 4, 1);
	put(&b, 32, 8, 64);             /* e_phoff */
	put(&b, 52, 2, 64);             /* e_ehsize */
	put(&b, 54, 2, 56);             /* e_phentsize */
	put(&b, 56, 2, 3);              /* e_phnum */

	/* The note: namesz, descsz, type 0, "VMCOREINFO\0" padded to 4, text padded to 4. */
	size_t note = 0x200, desc_len = strlen(vmcoreinfo_text);
	put(&b, note, 4, 11);
	put(&b, note + 4, 4, desc_len);
	put(&b, note + 8, 4, 0);
	put_bytes(&b, note + 12, "VMCOREINFO", 11);
	put_bytes(&b, note + 24, vmcoreinfo_text, desc_len);
	size_t note_size = 24 + ((desc_len + 3) & ~(size_t)3);

	struct {
		uint32_t type;
		uint64_t off, paddr, size;
	} ph[3] = {
		{ 4, note, 0, note_size },
		{ 1, 0x1000, 0, 0x2000 },
		{ 1, 0x3000, 0x100000, 0x3000 },
	};
	for (int i = 0; i < 3; i++) {
		size_t o = 64 + 56 * (size_t)i;
		put(&b, o, 4, ph[i].type);
		put(&b, o + 4, 4, 4);                       /* PF_R */
		put(&b, o + 8, 8, ph[i].off);
		put(&b, o + 16, 8, ph[i].type == 1 ? 0xffff888000000000ull + ph[i].paddr : 0);
		put(&b, o + 24, 8, ph[i].paddr);
		put(&b, o + 32, 8, ph[i].size);
		put(&b, o + 40, 8, ph[i].size);
		put(&b, o + 48, 8, ph[i].type == 1 ? 0x1000 : 4);
		if (ph[i].type == 1) {
			b_reserve(&b, ph[i].off + ph[i].size);
			fill_pattern(b.p + ph[i].off, ph[i].paddr, ph[i].size);
			if (ph[i].off + ph[i].size > b.len)
				b.len = ph[i].off + ph[i].size;
		}
	}
	return b;
}

static struct ps_dump *open_ok(const char *path, char **warnings)
{
	char *err = NULL, *w = NULL;
	struct ps_dump *d = ps_dump_open(path, &w, &err);
	CHECK(d != NULL, "%s: open failed: %s", path, err ? err : "(no message)");
	free(err);
	if (warnings)
		*warnings = w;
	else
		free(w);
	return d;
}

/* The error must be one line starting with "PATH: " and contain WANT. */
static void open_fails(const char *path, const char *want)
{
	char *err = NULL, *w = NULL;
	struct ps_dump *d = ps_dump_open(path, &w, &err);
	CHECK(d == NULL, "%s: opened, expected an error containing '%s'", path, want);
	if (d)
		ps_dump_close(d);
	CHECK(err != NULL, "%s: no error message", path);
	if (err) {
		size_t pl = strlen(path);
		CHECK(strncmp(err, path, pl) == 0 && err[pl] == ':' && err[pl + 1] == ' ',
		      "error does not start with the path: '%s'", err);
		CHECK(!strchr(err, '\n'), "error is not one line: '%s'", err);
		CHECK(strstr(err, want) != NULL, "error '%s' does not say '%s'", err, want);
	}
	free(err);
	free(w);
}

static enum ps_read_status rd(const struct ps_target *t, uint64_t pa, void *buf, size_t len)
{
	return t->ops->read_phys(t->ctx, pa, buf, len);
}

static void check_elf_reads(const struct ps_target *t, bool truncated)
{
	unsigned char buf[3 * 4096];
	CHECK_U64(rd(t, 0, buf, 4096), PS_READ_OK);
	CHECK(is_pattern(buf, 0, 4096), "page 0 bytes");
	/* Inside one PT_LOAD, across a page boundary. */
	CHECK_U64(rd(t, 0x800, buf, 4096), PS_READ_OK);
	CHECK(is_pattern(buf, 0x800, 4096), "cross-page bytes");
	CHECK_U64(rd(t, 0x1fff, buf, 1), PS_READ_OK);
	CHECK(buf[0] == pat(0x1fff), "last byte of the first segment");
	/* Past the first segment: the status of the first missing page, the rest zeroed. */
	memset(buf, 0xaa, sizeof buf);
	CHECK_U64(rd(t, 0x1ff0, buf, 0x20), PS_READ_NODATA);
	CHECK(is_pattern(buf, 0x1ff0, 0x10), "bytes before the hole");
	CHECK(all_zero(buf + 0x10, 0x10), "bytes in the hole are zeroed");
	CHECK_U64(rd(t, 0x2000, buf, 16), PS_READ_NODATA);
	CHECK_U64(rd(t, 0x50000, buf, 4096), PS_READ_NODATA);
	/* Second segment. */
	CHECK_U64(rd(t, 0x100000, buf, 4096), PS_READ_OK);
	CHECK(is_pattern(buf, 0x100000, 4096), "second segment bytes");
	if (!truncated) {
		CHECK_U64(rd(t, 0x100010, buf, 0x2ff0), PS_READ_OK);
		CHECK(is_pattern(buf, 0x100010, 0x2ff0), "three-page read");
	}
	/* Addresses the walker may get from garbage: never a crash. */
	CHECK(rd(t, UINT64_MAX, buf, 1) != PS_READ_OK, "read at 2^64-1");
	CHECK(rd(t, UINT64_MAX - 4, buf, 16) != PS_READ_OK, "read wrapping past 2^64");
	CHECK(rd(t, 1ull << 63, buf, 4096) == PS_READ_NODATA, "read at 2^63");
	CHECK(rd(t, 0xfffffffffffff000ull, buf, 4096) != PS_READ_OK, "read of the last page");
	CHECK_U64(rd(t, 0x100000, buf, 0), PS_READ_OK);
	/* pfn_status: present, absent, absurd. */
	CHECK_U64(t->ops->pfn_status(t->ctx, 0), PS_READ_OK);
	CHECK_U64(t->ops->pfn_status(t->ctx, 1), PS_READ_OK);
	CHECK_U64(t->ops->pfn_status(t->ctx, 2), PS_READ_NODATA);
	CHECK_U64(t->ops->pfn_status(t->ctx, 0x100), PS_READ_OK);
	CHECK_U64(t->ops->pfn_status(t->ctx, 0x102), truncated ? PS_READ_NODATA : PS_READ_OK);
	CHECK_U64(t->ops->pfn_status(t->ctx, 0x103), PS_READ_NODATA);
	CHECK_U64(t->ops->pfn_status(t->ctx, UINT64_MAX), PS_READ_NODATA);
	CHECK_U64(t->ops->pfn_status(t->ctx, 1ull << 52), PS_READ_NODATA);
}

static void cut_short_after_open(const char *path, off_t new_size, uint64_t kept, uint64_t gone,
				 const char *why_want);

static void test_elf(bool be)
{
	struct buf b = make_elf(be);
	char *path = write_file(be ? "be.elf" : "le.elf", b.p, b.len);
	/* paddr 0x100000 is at file offset 0x3000 (kept), 0x101000 at 0x4000 (gone) */
	cut_short_after_open(path, 0x4000, 0x100000, 0x101000, "shorter than when it was opened");
	struct ps_dump *d = open_ok(path, NULL);
	if (d) {
		const struct ps_target *t = ps_dump_target(d);
		CHECK_STR(ps_dump_format(d), "elf");
		CHECK_STR(t->arch, be ? "ppc64" : "x86_64");
		CHECK(t->big_endian == be, "byte order");
		CHECK_U64(t->ptr_size, 8);
		CHECK_U64(t->page_size, 4096);
		CHECK_U64(t->max_pfn, 0x103);
		CHECK_STR(t->ops->vmcoreinfo(t->ctx, "OSRELEASE"), "6.1.0-test");
		CHECK_STR(t->ops->vmcoreinfo(t->ctx, "SYMBOL(init_task)"), "ffffffff82a0c940");
		CHECK(t->ops->vmcoreinfo(t->ctx, "SYMBOL(nothing)") == NULL, "absent key");
		CHECK(t->ops->vmcoreinfo(t->ctx, "OSRELEAS") == NULL, "prefix of a key");
		CHECK_U64(ps_dump_time(d), 1700000000);
		CHECK(ps_dump_level(d) == -1, "ELF has no dump level: %d", ps_dump_level(d));
		check_elf_reads(t, false);
		ps_dump_close(d);
	}

	/* Truncated in the middle of the second segment's second page. */
	char *tpath = write_file(be ? "be-trunc.elf" : "le-trunc.elf", b.p, 0x3000 + 0x1800);
	char *warnings = NULL;
	d = open_ok(tpath, &warnings);
	CHECK(warnings && strstr(warnings, "truncated"), "truncation warning: %s",
	      warnings ? warnings : "(none)");
	CHECK(warnings && strncmp(warnings, tpath, strlen(tpath)) == 0, "warning names the file");
	free(warnings);
	if (d) {
		const struct ps_target *t = ps_dump_target(d);
		unsigned char buf[4096];
		check_elf_reads(t, true);
		CHECK_U64(rd(t, 0x101000, buf, 0x800), PS_READ_OK); /* the part that is there */
		CHECK(is_pattern(buf, 0x101000, 0x800), "bytes before the end of the file");
		CHECK_U64(rd(t, 0x101800, buf, 16), PS_READ_NODATA);
		CHECK_U64(rd(t, 0x1017f0, buf, 32), PS_READ_NODATA);
		CHECK(is_pattern(buf, 0x1017f0, 16) && all_zero(buf + 16, 16), "partial bytes");
		CHECK_U64(rd(t, 0x102000, buf, 4096), PS_READ_NODATA);
		ps_dump_close(d);
	}

	/* Section headers claiming an absurd string table (QEMU's ppc64le dumps): refused
	 * before libkdumpfile tries to allocate it. */
	struct buf bad = { .be = be };
	put_bytes(&bad, 0, b.p, b.len);
	put(&bad, 40, 8, 0x300);          /* e_shoff */
	put(&bad, 58, 2, 64);             /* e_shentsize */
	put(&bad, 60, 2, 2);              /* e_shnum */
	put(&bad, 62, 2, 1);              /* e_shstrndx */
	put(&bad, 0x340 + 24, 8, 0x4008004000000000ull);
	put(&bad, 0x340 + 32, 8, 0xb00000000000000ull);
	char *bpath = write_file(be ? "be-shdr.elf" : "le-shdr.elf", bad.p, bad.len);
	open_fails(bpath, "malformed ELF header");
	free(bpath);
	free(bad.p);

	/* Cut inside the headers: a clean error (or a dump with nothing in it), no crash. */
	static const size_t cuts[] = { 4, 40, 100, 0x1f0, 0x210 };
	for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
		char name[32];
		snprintf(name, sizeof name, "%s-cut%zu.elf", be ? "be" : "le", cuts[i]);
		char *cpath = write_file(name, b.p, cuts[i]);
		char *err = NULL;
		d = ps_dump_open(cpath, NULL, &err);
		if (d) {
			unsigned char buf[64];
			const struct ps_target *t = ps_dump_target(d);
			CHECK(rd(t, 0, buf, sizeof buf) != PS_READ_OK, "%s: read of a cut file", name);
			ps_dump_close(d);
		} else {
			CHECK(err && !strchr(err, '\n') && !strncmp(err, cpath, strlen(cpath)),
			      "%s: error '%s'", name, err ? err : "(none)");
		}
		free(err);
		free(cpath);
	}
	free(path);
	free(tpath);
	free(b.p);
}

static size_t count_entries(const char *dir)
{
	size_t n = 0;
	DIR *dd = opendir(dir);
	for (struct dirent *de; dd && (de = readdir(dd));)
		n++;
	if (dd)
		closedir(dd);
	return n;
}


/* ---- QEMU's ppc64 ELF: a big-endian header over a little-endian guest ------------------ */

/* make_elf's ppc64 file as QEMU writes it for a pseries guest: e_ehsize 8, a section header
 * table whose string table claims 2^59 bytes, no VMCOREINFO note but an NT_PRSTATUS whose
 * MSR says the byte order, and VMCOREINFO in a RAM page (physical 0x101000). */
static struct buf make_qemu_ppc64_elf(bool guest_le)
{
	struct buf b = make_elf(true);
	put(&b, 52, 2, 8); /* e_ehsize */
	/* One section header at 0x800 (host order, garbage): sh_size of the string table. */
	put(&b, 40, 8, 0x800);
	put(&b, 58, 2, 64);
	put(&b, 60, 2, 1);
	put(&b, 62, 2, 0);
	put(&b, 0x800 + 32, 8, 0x0b00000000000000ull);
	/* The note: "CORE" NT_PRSTATUS, 496 bytes of elf_prstatus; msr = pr_reg[33]. */
	size_t note = 0x200, desc = note + 12 + 8;
	memset(b.p + note, 0, 0x200);
	put(&b, note, 4, 5);
	put(&b, note + 4, 4, 112 + 48 * 8);
	put(&b, note + 8, 4, 1);
	put_bytes(&b, note + 12, "CORE", 5);
	put(&b, desc + 112 + 33 * 8, 8, 0x8000000000000000ull | (guest_le ? 1 : 0));
	put(&b, 64 + 32, 8, 12 + 8 + 112 + 48 * 8); /* the PT_NOTE's p_filesz */
	/* VMCOREINFO at the start of the page at physical 0x101000 (file 0x4000). */
	memset(b.p + 0x4000, 0, 0x1000);
	put_bytes(&b, 0x4000, vmcoreinfo_text, strlen(vmcoreinfo_text));
	return b;
}

static void test_qemu_ppc64_elf(bool guest_le)
{
	struct buf b = make_qemu_ppc64_elf(guest_le);
	char *path = write_file(guest_le ? "qemu-ppc64le.elf" : "qemu-ppc64.elf", b.p, b.len);
	char *warnings = NULL;
	struct ps_dump *d = open_ok(path, &warnings);
	if (d) {
		const struct ps_target *t = ps_dump_target(d);
		CHECK_STR(t->arch, guest_le ? "ppc64le" : "ppc64");
		CHECK(t->big_endian == !guest_le, "byte order from the MSR");
		CHECK_U64(t->ptr_size, 8);
		CHECK_U64(t->page_size, 4096); /* VMCOREINFO's PAGESIZE, found in RAM */
		CHECK(warnings && strstr(warnings, "QEMU's ppc64 ELF header"), "repair named: %s",
		      warnings ? warnings : "(none)");
		CHECK(warnings && strstr(warnings, "left in RAM at physical address 0x101000"),
		      "VMCOREINFO found in RAM: %s", warnings ? warnings : "(none)");
		CHECK(guest_le == (warnings && strstr(warnings, "big-endian over a little-endian guest") != NULL),
		      "the byte-order repair is named only when made");
		CHECK_STR(t->ops->vmcoreinfo(t->ctx, "OSRELEASE"), "6.1.0-test");
		unsigned char buf[4096];
		CHECK_U64(rd(t, 0x800, buf, 4096), PS_READ_OK);
		CHECK(is_pattern(buf, 0x800, 4096), "bytes through the program headers");
		CHECK_U64(rd(t, 0x1ff0, buf, 0x20), PS_READ_NODATA);
		CHECK(is_pattern(buf, 0x1ff0, 0x10) && all_zero(buf + 0x10, 0x10), "hole zeroed");
		CHECK(rd(t, UINT64_MAX - 4, buf, 16) != PS_READ_OK, "read wrapping past 2^64");
		CHECK_U64(t->ops->pfn_status(t->ctx, 0x100), PS_READ_OK);
		CHECK_U64(t->ops->pfn_status(t->ctx, 2), PS_READ_NODATA);
		CHECK_U64(t->ops->pfn_status(t->ctx, UINT64_MAX), PS_READ_NODATA);
		ps_dump_close(d);
	}
	free(warnings);
	/* Cut inside the second segment: still opens, the rest reads as not in the dump. */
	char *cut = write_file("qemu-ppc64-cut.elf", b.p, 0x4800);
	warnings = NULL;
	d = open_ok(cut, &warnings);
	if (d) {
		const struct ps_target *t = ps_dump_target(d);
		unsigned char buf[16];
		CHECK(warnings && strstr(warnings, "truncated ELF dump"), "truncation named");
		CHECK_U64(rd(t, 0x101800, buf, 16), PS_READ_NODATA);
		CHECK_U64(t->ops->pfn_status(t->ctx, 0x102), PS_READ_NODATA);
		ps_dump_close(d);
	}
	free(warnings);
	free(cut);
	/* A segment far above the others (2^52) and no VMCOREINFO anywhere: the search for it
	 * skips the hole rather than stepping through 2^40 pages (it used to hang here). */
	memset(b.p + 0x4000, 0, 0x1000);
	put(&b, 64 + 2 * 56 + 24, 8, 1ull << 52);
	char *far = write_file("qemu-ppc64-far.elf", b.p, b.len);
	warnings = NULL;
	d = open_ok(far, &warnings);
	if (d) {
		CHECK(warnings && strstr(warnings, "has no VMCOREINFO"), "no VMCOREINFO said: %s",
		      warnings ? warnings : "(none)");
		ps_dump_close(d);
	}
	free(warnings);
	free(far);
	free(path);
	free(b.p);
}

/* ---- an ELF read through its program headers, cut short after it was opened ------------- */

/* PATH (an ELF holding all its segments, or a kdump file: read through a mapping of the
 * whole file) is opened, then another process cuts it to NEW_SIZE bytes, as a dump
 * overwritten in place would be. Reading the pages that are gone (GONE, a page) must give
 * PS_READ_ERROR with a one-line reason holding WHY, never SIGBUS from the mapping; what is
 * still there (KEPT, a page; and 64 bytes at 0x800) reads as before. In a child, so that a
 * crash is a failed check here rather than the end of the test. The file is restored
 * (copied back) afterwards. */
static void cut_short_after_open(const char *path, off_t new_size, uint64_t kept, uint64_t gone,
				 const char *why_want)
{
	FILE *fp = fopen(path, "rb");
	unsigned char *copy = malloc(1 << 20);
	size_t len = fp && copy ? fread(copy, 1, 1 << 20, fp) : 0;
	if (fp)
		fclose(fp);
	if (!CHECK(len > (size_t)new_size, "%s: cannot read it back", path)) {
		free(copy);
		return;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		char *err = NULL;
		struct ps_dump *d = ps_dump_open(path, NULL, &err);
		if (!d)
			_exit(10);
		const struct ps_target *t = ps_dump_target(d);
		unsigned char buf[4096];
		if (truncate(path, new_size) != 0)
			_exit(11);
		if (rd(t, kept, buf, 4096) != PS_READ_OK || !is_pattern(buf, kept, 4096))
			_exit(12);
		if (rd(t, gone, buf, 4096) != PS_READ_ERROR)
			_exit(13);
		const char *why = ps_dump_last_error(d);
		char at[64];
		snprintf(at, sizeof at, "physical address 0x%" PRIx64, gone);
		const char *hit = strstr(why, at);
		if (!hit || isxdigit((unsigned char)hit[strlen(at)]) || !strstr(why, why_want) ||
		    strchr(why, '\n'))
			_exit(14);
		if (rd(t, gone - 8, buf, 16) != PS_READ_ERROR) /* across the new end */
			_exit(15);
		if (rd(t, 0x800, buf, 64) != PS_READ_OK || !is_pattern(buf, 0x800, 64)) /* still mapped */
			_exit(16);
		ps_dump_close(d);
		_exit(0);
	}
	int status = 0;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "fork/wait");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "%s cut to %lld bytes after open: %s %d (10 open, 11 truncate, 12 kept bytes, 13 status of "
	      "the cut pages, 14 reason, 15 across the end, 16 mapped bytes)",
	      path, (long long)new_size, WIFSIGNALED(status) ? "killed by signal" : "child exit",
	      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	fp = fopen(path, "wb");
	CHECK(fp && fwrite(copy, 1, len, fp) == len, "%s: restore", path);
	if (fp)
		fclose(fp);
	free(copy);

	/* A SIGBUS that is not a guarded copy's still ends the process. */
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		struct ps_dump *d = ps_dump_open(path, NULL, NULL);
		if (!d)
			_exit(10);
		int null = open("/dev/null", O_WRONLY); /* a sanitizer's report of it is expected */
		if (null >= 0)
			dup2(null, 2);
		raise(SIGBUS);
		_exit(0);
	}
	status = 0;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "fork/wait");
	CHECK(!(WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 10)),
	      "an unrelated SIGBUS was swallowed (child status %#x)", (unsigned)status);

	/* The guard's handler is there only while a mapping is open. */
	struct sigaction before, during, after;
	sigaction(SIGBUS, NULL, &before);
	struct ps_dump *d = ps_dump_open(path, NULL, NULL);
	sigaction(SIGBUS, NULL, &during);
	ps_dump_close(d);
	sigaction(SIGBUS, NULL, &after);
	CHECK(d && during.sa_sigaction != before.sa_sigaction, "no SIGBUS handler while mapped");
#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000 /* glibc adds it to every action it installs (Linux) */
#endif
	CHECK(after.sa_sigaction == before.sa_sigaction &&
	      (after.sa_flags & ~SA_RESTORER) == (before.sa_flags & ~SA_RESTORER),
	      "the SIGBUS handler before the dump was opened is not back after it was closed (%p %#x, %p %#x)",
	      (void *)before.sa_sigaction, before.sa_flags, (void *)after.sa_sigaction, after.sa_flags);
}

/* ---- QEMU's ppc32 ELF: e_ehsize 8 and a garbage section header table ------------------- */

/* As QEMU writes it for a ppce500 guest: a big-endian ELF32 whose section header table is
 * garbage (its string table claims 0xb000 bytes at offset 0x100: libkdumpfile 0.5.1 reads
 * such a table's string table on open, ~180 MiB on a real dump), an NT_PRSTATUS in the
 * 64-bit layout, no VMCOREINFO note, VMCOREINFO in a RAM page (physical 0x101000). Read
 * through its program headers alone. */
static const char vmcoreinfo_note_text[] = "OSRELEASE=6.1.0-note\nPAGESIZE=4096\nSYMBOL(init_uts_ns)=c0800000\n";

/* WITH_NOTE: the PT_NOTE also holds a VMCOREINFO note (QEMU's `-device vmcoreinfo`), which
 * is taken rather than the copy in RAM. */
static void test_qemu_ppc32_elf(bool with_note)
{
	struct buf b = { .be = true };
	static const unsigned char ident[] = { 0x7f, 'E', 'L', 'F', 1 /* 32-bit */, 2 /* BE */, 1 };
	put_bytes(&b, 0, ident, sizeof ident);
	put(&b, 16, 2, 4);      /* ET_CORE */
	put(&b, 18, 2, 20);     /* EM_PPC */
	put(&b, 20, 4, 1);
	put(&b, 28, 4, 52);     /* e_phoff */
	put(&b, 32, 4, 0x800);  /* e_shoff */
	put(&b, 40, 2, 8);      /* e_ehsize: QEMU's 8 */
	put(&b, 42, 2, 32);     /* e_phentsize */
	put(&b, 44, 2, 3);      /* e_phnum */
	put(&b, 46, 2, 40);     /* e_shentsize */
	put(&b, 48, 2, 2);      /* e_shnum */
	put(&b, 50, 2, 1);      /* e_shstrndx */
	put(&b, 0x800 + 40 + 4, 4, 3);        /* section 1: SHT_STRTAB */
	put(&b, 0x800 + 40 + 16, 4, 0x100);   /* sh_offset */
	put(&b, 0x800 + 40 + 20, 4, 0xb000);  /* sh_size */
	size_t note = 0x200;                  /* "CORE" NT_PRSTATUS, 64-bit layout (ignored) */
	put(&b, note, 4, 5);
	put(&b, note + 4, 4, 112 + 48 * 8);
	put(&b, note + 8, 4, 1);
	put_bytes(&b, note + 12, "CORE", 5);
	size_t note_size = 20 + 112 + 48 * 8, vi_len = strlen(vmcoreinfo_note_text);
	if (with_note) { /* namesz, descsz, type 0, "VMCOREINFO\0" padded to 12, the text */
		put(&b, note + note_size, 4, 11);
		put(&b, note + note_size + 4, 4, vi_len);
		put(&b, note + note_size + 8, 4, 0);
		put_bytes(&b, note + note_size + 12, "VMCOREINFO", 11);
		put_bytes(&b, note + note_size + 24, vmcoreinfo_note_text, vi_len);
		note_size += 24 + ((vi_len + 3) & ~(size_t)3);
	}
	struct {
		uint32_t type, off, paddr, size;
	} ph[3] = {
		{ 4, note, 0, (uint32_t)note_size },
		{ 1, 0x1000, 0, 0x2000 },
		{ 1, 0x3000, 0x100000, 0xc000 },
	};
	for (int i = 0; i < 3; i++) {
		size_t o = 52 + 32 * (size_t)i;
		put(&b, o, 4, ph[i].type);
		put(&b, o + 4, 4, ph[i].off);
		put(&b, o + 8, 4, ph[i].type == 1 ? 0xc0000000u + ph[i].paddr : 0);
		put(&b, o + 12, 4, ph[i].paddr);
		put(&b, o + 16, 4, ph[i].size);
		put(&b, o + 20, 4, ph[i].size);
		put(&b, o + 24, 4, 4);
		put(&b, o + 28, 4, ph[i].type == 1 ? 0x1000 : 4);
		if (ph[i].type == 1) {
			b_reserve(&b, ph[i].off + ph[i].size);
			fill_pattern(b.p + ph[i].off, ph[i].paddr, ph[i].size);
			if (ph[i].off + ph[i].size > b.len)
				b.len = ph[i].off + ph[i].size;
		}
	}
	memset(b.p + 0x4000, 0, 0x1000); /* physical 0x101000 */
	put_bytes(&b, 0x4000, vmcoreinfo_text, strlen(vmcoreinfo_text));
	char *path = write_file("qemu-ppc32.elf", b.p, b.len);
	char *warnings = NULL;
	struct ps_dump *d = open_ok(path, &warnings);
	if (d) {
		const struct ps_target *t = ps_dump_target(d);
		CHECK_STR(t->arch, "ppc32");
		CHECK(t->big_endian, "big-endian");
		CHECK_U64(t->ptr_size, 4);
		CHECK_U64(t->page_size, 4096);
		CHECK_STR(ps_dump_format(d), "elf");
		CHECK(warnings && strstr(warnings, "QEMU's ppc32 ELF header (e_ehsize 8"), "repair named: %s",
		      warnings ? warnings : "(none)");
		if (with_note) {
			CHECK(!warnings || !strstr(warnings, "VMCOREINFO"), "the note not taken: %s",
			      warnings ? warnings : "(none)");
			CHECK_STR(t->ops->vmcoreinfo(t->ctx, "OSRELEASE"), "6.1.0-note");
		} else {
			CHECK(warnings && strstr(warnings, "left in RAM at physical address 0x101000"),
			      "VMCOREINFO found in RAM: %s", warnings ? warnings : "(none)");
			CHECK_STR(t->ops->vmcoreinfo(t->ctx, "OSRELEASE"), "6.1.0-test");
		}
		unsigned char buf[4096];
		CHECK_U64(rd(t, 0x800, buf, 4096), PS_READ_OK);
		CHECK(is_pattern(buf, 0x800, 4096), "bytes through the program headers");
		CHECK_U64(rd(t, 0x10a000, buf, 16), PS_READ_OK);
		CHECK(is_pattern(buf, 0x10a000, 16), "second segment");
		CHECK_U64(rd(t, 0x1ff0, buf, 0x20), PS_READ_NODATA);
		CHECK_U64(t->ops->pfn_status(t->ctx, 0x100), PS_READ_OK);
		CHECK_U64(t->ops->pfn_status(t->ctx, 2), PS_READ_NODATA);
		ps_dump_close(d);
	}
	free(warnings);
	if (!with_note)
		/* paddr 0x100000 is at file offset 0x3000 (kept), 0x103000 at 0x6000 (gone) */
		cut_short_after_open(path, 0x6000, 0x100000, 0x103000, "shorter than when it was opened");
	free(path);
	free(b.p);
}

/* ---- kdump-compressed ------------------------------------------------------------------- */

#define KD_BLOCK 4096u
#define KD_PFNS 16u

/* RAM: PFNs 0-11. In the file: 0-3 and 6-9 (4, 5, 10, 11 excluded by the dump level).
 * PFN 2 is zlib-compressed, the others stored raw. 64-bit: header version 6 with
 * VMCOREINFO; 32-bit: header version 1 (phys_base and dump_level only). */
static bool kd_ram(unsigned pfn) { return pfn < 12; }
static bool kd_dumped(unsigned pfn) { return pfn < 4 || (pfn >= 6 && pfn < 10); }

static struct buf make_kdump(bool be, unsigned ptr_size, int dump_level, int64_t timestamp)
{
	struct buf b = { .be = be };
	put_bytes(&b, 0, "KDUMP   ", 8);
	put(&b, 8, 4, ptr_size == 8 ? 6 : 1);
	put_bytes(&b, 12, "Linux", 5);
	put_bytes(&b, 12 + 2 * 65, "6.1.0-test", 10);
	put_bytes(&b, 12 + 4 * 65, ptr_size == 8 ? "x86_64" : "ppc", ptr_size == 8 ? 6 : 3);
	size_t ts = ptr_size == 8 ? 408 : 404;
	put(&b, ts, ptr_size, (uint64_t)timestamp);
	size_t f = ts + 2 * ptr_size; /* status, block_size, sub_hdr_size, ... */
	put(&b, f, 4, 0);
	put(&b, f + 4, 4, KD_BLOCK);
	put(&b, f + 8, 4, 1);            /* sub header blocks */
	put(&b, f + 12, 4, 2);           /* bitmap blocks (two bitmaps of one block) */
	put(&b, f + 16, 4, KD_PFNS);     /* max_mapnr */
	put(&b, f + 20, 4, 0);
	put(&b, f + 24, 4, 0);
	put(&b, f + 28, 4, 0);
	put(&b, f + 32, 4, 0);
	put(&b, f + 36, 4, 1);           /* nr_cpus */

	/* Sub header at block 1. */
	size_t sh = KD_BLOCK;
	put(&b, sh, ptr_size, 0);                 /* phys_base */
	put(&b, sh + ptr_size, 4, (uint64_t)dump_level);
	put(&b, sh + ptr_size + 4, 4, 0);         /* split */

	/* Bitmaps at block 2 (RAM) and 3 (dumped); bit N of byte N/8 is PFN N. */
	for (unsigned pfn = 0; pfn < KD_PFNS; pfn++) {
		if (kd_ram(pfn))
			b_reserve(&b, 2 * KD_BLOCK + pfn / 8 + 1), b.p[2 * KD_BLOCK + pfn / 8] |= 1u << (pfn % 8);
		if (kd_dumped(pfn))
			b_reserve(&b, 3 * KD_BLOCK + pfn / 8 + 1), b.p[3 * KD_BLOCK + pfn / 8] |= 1u << (pfn % 8);
	}
	b.len = 4 * KD_BLOCK;

	/* Page descriptors at block 4 (24 bytes each), data from block 5. */
	size_t desc = 4 * KD_BLOCK, data = 5 * KD_BLOCK;
	unsigned char page[KD_BLOCK], zbuf[2 * KD_BLOCK];
	for (unsigned pfn = 0; pfn < KD_PFNS; pfn++) {
		if (!kd_dumped(pfn))
			continue;
		fill_pattern(page, (uint64_t)pfn * KD_BLOCK, KD_BLOCK);
		const unsigned char *src = page;
		uLongf zlen = sizeof zbuf;
		unsigned size = KD_BLOCK, flags = 0;
		if (pfn == 2 && compress2(zbuf, &zlen, page, KD_BLOCK, 6) == Z_OK && zlen < KD_BLOCK) {
			src = zbuf, size = (unsigned)zlen, flags = 1; /* DUMP_DH_COMPRESSED_ZLIB */
		}
		put(&b, desc, 8, data);
		put(&b, desc + 8, 4, size);
		put(&b, desc + 12, 4, flags);
		put(&b, desc + 16, 8, 0);
		put_bytes(&b, data, src, size);
		desc += 24;
		data += size;
	}
	if (ptr_size == 8) {
		/* Version 6 sub header: offset/size of VMCOREINFO, no notes, 64-bit PFN range. */
		size_t vi = (data + 15) & ~(size_t)15;
		put_bytes(&b, vi, vmcoreinfo_text, strlen(vmcoreinfo_text));
		put(&b, sh + 16, 8, 0);                 /* start_pfn */
		put(&b, sh + 24, 8, KD_PFNS);           /* end_pfn */
		put(&b, sh + 32, 8, vi);                /* offset_vmcoreinfo */
		put(&b, sh + 40, 8, strlen(vmcoreinfo_text));
		/* libkdumpfile takes VMCOREINFO from the ELF notes (offset_note), as
		 * makedumpfile also writes it. */
		size_t nt = (vi + strlen(vmcoreinfo_text) + 15) & ~(size_t)15, dl = strlen(vmcoreinfo_text);
		put(&b, nt, 4, 11);
		put(&b, nt + 4, 4, dl);
		put(&b, nt + 8, 4, 0);
		put_bytes(&b, nt + 12, "VMCOREINFO", 11);
		put_bytes(&b, nt + 24, vmcoreinfo_text, dl);
		put(&b, sh + 48, 8, nt);                /* offset_note */
		put(&b, sh + 56, 8, 24 + ((dl + 3) & ~(size_t)3));
		put(&b, nt + 24 + ((dl + 3) & ~(size_t)3) - 1, 1, 0); /* the padding is in the file */
		put(&b, sh + 80, 8, 0);                 /* start_pfn_64 */
		put(&b, sh + 88, 8, KD_PFNS);           /* end_pfn_64 */
		put(&b, sh + 96, 8, KD_PFNS);           /* max_mapnr_64 */
	}
	return b;
}

static void check_kdump(const char *path, bool be, unsigned ptr_size, const char *format)
{
	struct ps_dump *d = open_ok(path, NULL);
	if (!d)
		return;
	const struct ps_target *t = ps_dump_target(d);
	CHECK_STR(ps_dump_format(d), format);
	CHECK(t->big_endian == be, "%s: byte order", path);
	CHECK_U64(t->ptr_size, ptr_size);
	CHECK_U64(t->page_size, KD_BLOCK);
	CHECK_U64(t->max_pfn, KD_PFNS);
	CHECK_U64(ps_dump_level(d), 31);
	if (ptr_size == 8) {
		CHECK_STR(t->arch, "x86_64");
		CHECK_STR(t->ops->vmcoreinfo(t->ctx, "BUILD-ID"), "0123456789abcdef0123456789abcdef01234567");
		CHECK_U64(ps_dump_time(d), 1700000000); /* CRASHTIME wins over the header */
	} else {
		CHECK_STR(t->arch, "ppc32");
		CHECK(t->ops->vmcoreinfo(t->ctx, "OSRELEASE") == NULL, "no VMCOREINFO");
		CHECK_U64(ps_dump_time(d), 1600000000); /* the header's timestamp */
	}
	unsigned char buf[2 * KD_BLOCK];
	for (unsigned pfn = 0; pfn < KD_PFNS + 4; pfn++) {
		enum ps_read_status want = kd_dumped(pfn) ? PS_READ_OK
					   : kd_ram(pfn)  ? PS_READ_EXCLUDED
							  : PS_READ_NODATA;
		CHECK(t->ops->pfn_status(t->ctx, pfn) == want, "%s: pfn_status(%u) = %d, want %d",
		      path, pfn, t->ops->pfn_status(t->ctx, pfn), want);
		memset(buf, 0xaa, KD_BLOCK);
		enum ps_read_status st = rd(t, (uint64_t)pfn * KD_BLOCK, buf, KD_BLOCK);
		CHECK(st == want, "%s: read of pfn %u = %d, want %d", path, pfn, st, want);
		if (want == PS_READ_OK)
			CHECK(is_pattern(buf, (uint64_t)pfn * KD_BLOCK, KD_BLOCK), "%s: pfn %u bytes",
			      path, pfn);
		else
			CHECK(all_zero(buf, KD_BLOCK), "%s: pfn %u: unread bytes zeroed", path, pfn);
	}
	/* Across the compressed page, and into an excluded one. */
	CHECK_U64(rd(t, 1 * KD_BLOCK + 100, buf, 2 * KD_BLOCK), PS_READ_OK);
	CHECK(is_pattern(buf, KD_BLOCK + 100, 2 * KD_BLOCK), "read across compressed page");
	CHECK_U64(rd(t, 4 * KD_BLOCK - 8, buf, 16), PS_READ_EXCLUDED);
	CHECK(is_pattern(buf, 4 * KD_BLOCK - 8, 8), "bytes before the excluded page");
	CHECK_U64(rd(t, 10 * KD_BLOCK - 8, buf, 16), PS_READ_EXCLUDED);
	CHECK_U64(rd(t, 12 * KD_BLOCK - 8, buf, 16), PS_READ_EXCLUDED); /* pfn 11 first */
	CHECK_U64(rd(t, 12 * KD_BLOCK, buf, 2 * KD_BLOCK), PS_READ_NODATA);
	CHECK(rd(t, UINT64_MAX - 2, buf, 8) != PS_READ_OK, "wrapping read");
	CHECK_U64(rd(t, 1ull << 40, buf, 8), PS_READ_NODATA);
	/* Reads keep working after failures (libkdumpfile's cache state). */
	CHECK_U64(rd(t, 2 * KD_BLOCK, buf, KD_BLOCK), PS_READ_OK);
	CHECK(is_pattern(buf, 2 * KD_BLOCK, KD_BLOCK), "compressed page after failures");
	ps_dump_close(d);
}

/* ---- makedumpfile flattened format ----------------------------------------------------- */

/* Split IMG into blocks of BLOCK bytes written in reverse order (the format allows any
 * order), after the 4096-byte header; END adds the end marker. */
static struct buf make_flat(const struct buf *img, size_t block, bool end)
{
	struct buf f = { .be = true };
	put_bytes(&f, 0, "makedumpfile", 13);
	put(&f, 16, 8, 1); /* TYPE_FLAT_HEADER */
	put(&f, 24, 8, 1); /* VERSION_FLAT_HEADER */
	f.len = 4096;
	size_t nblocks = (img->len + block - 1) / block;
	for (size_t i = nblocks; i-- > 0;) {
		size_t off = i * block, n = img->len - off < block ? img->len - off : block;
		size_t at = f.len;
		put(&f, at, 8, off);
		put(&f, at + 8, 8, n);
		put_bytes(&f, at + 16, img->p + off, n);
	}
	if (end) {
		put(&f, f.len, 8, UINT64_MAX);
		put(&f, f.len, 8, UINT64_MAX);
	}
	return f;
}

static void test_kdump(void)
{
	struct buf le = make_kdump(false, 8, 31, 1600000000);
	char *le_path = write_file("le64.kdump", le.p, le.len);
	check_kdump(le_path, false, 8, "kdump");
	/* pfn 0's data is the file's block 5 (kept), pfn 1's block 6 (gone): a page stored as
	 * it is, copied out of the mapping; pfn 2's zlib data, after it (gone), is inflated in
	 * the mapping itself, where the fault lands inside libdeflate */
	cut_short_after_open(le_path, 6 * KD_BLOCK, 0, KD_BLOCK, "page descriptor 1 ");
	cut_short_after_open(le_path, 6 * KD_BLOCK, 0, 2 * KD_BLOCK, "page descriptor 2 ");

	struct buf be = make_kdump(true, 4, 31, 1600000000);
	char *be_path = write_file("be32.kdump", be.p, be.len);
	check_kdump(be_path, true, 4, "kdump");

	/* Flattened, out of order, odd block sizes. */
	struct buf fl = make_flat(&le, 1000, true);
	char *fl_path = write_file("le64.flat", fl.p, fl.len);
	struct buf fb = make_flat(&be, 4096, true);
	char *fb_path = write_file("be32.flat", fb.p, fb.len);
	size_t entries_before_flat = count_entries(tmpdir);
	check_kdump(fl_path, false, 8, "kdump-flattened");
	check_kdump(fb_path, true, 4, "kdump-flattened");
	/* The input is only read. */
	struct stat st;
	CHECK(stat(fl_path, &st) == 0 && (size_t)st.st_size == fl.len, "flattened input unchanged");

	/* The reassembled file is unlinked: nothing is left in $TMPDIR. */
	CHECK_U64(count_entries(tmpdir), entries_before_flat);

	/* Flattened through a pipe (makedumpfile -F | ...). */
	int pfd[2];
	if (pipe(pfd) == 0) {
		pid_t pid = fork();
		if (pid == 0) {
			close(pfd[0]);
			size_t off = 0;
			while (off < fl.len) {
				ssize_t w = write(pfd[1], fl.p + off, fl.len - off > 7000 ? 7000 : fl.len - off);
				if (w <= 0)
					_exit(1);
				off += (size_t)w;
			}
			_exit(0);
		}
		close(pfd[1]);
		char dev[64];
		snprintf(dev, sizeof dev, "/dev/fd/%d", pfd[0]);
		check_kdump(dev, false, 8, "kdump-flattened");
		close(pfd[0]);
		int wst = 0;
		if (pid > 0)
			waitpid(pid, &wst, 0);
	}

	/* A flattened ELF. */
	struct buf elf = make_elf(false);
	struct buf fe = make_flat(&elf, 777, true);
	char *fe_path = write_file("elf.flat", fe.p, fe.len);
	struct ps_dump *d = open_ok(fe_path, NULL);
	if (d) {
		CHECK_STR(ps_dump_format(d), "elf-flattened");
		check_elf_reads(ps_dump_target(d), false);
		ps_dump_close(d);
	}

	/* Truncated flattened files: no end marker, cut in a block, cut in a block header,
	 * only the header. */
	struct buf noend = make_flat(&le, 1000, false);
	char *p1 = write_file("noend.flat", noend.p, noend.len);
	open_fails(p1, "truncated");
	char *p2 = write_file("cut.flat", fl.p, fl.len / 2);
	open_fails(p2, "truncated");
	char *p3 = write_file("cuthdr.flat", fl.p, 4096 + 1016 + 8);
	open_fails(p3, "truncated");
	char *p4 = write_file("hdronly.flat", fl.p, 4096);
	open_fails(p4, "truncated");
	char *p5 = write_file("short.flat", fl.p, 100);
	open_fails(p5, "truncated");
	/* Corrupt: a negative size, an offset near 2^63. */
	struct buf bad = make_flat(&le, 1000, true);
	put(&bad, 4096 + 8, 8, (uint64_t)-5);
	char *p6 = write_file("negsize.flat", bad.p, bad.len);
	open_fails(p6, "corrupt");
	struct buf bad2 = make_flat(&le, 1000, true);
	put(&bad2, 4096, 8, 0x7ffffffffffff000ull);
	char *p7 = write_file("hugeoff.flat", bad2.p, bad2.len);
	open_fails(p7, "corrupt");

	/* A kdump cut short: opens or fails cleanly; reads never crash. */
	static const size_t cuts[] = { 300, 4096 + 8, 3 * 4096 + 2, 4 * 4096 + 30, 6 * 4096 };
	for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
		char name[32];
		snprintf(name, sizeof name, "cut%zu.kdump", cuts[i]);
		char *cp = write_file(name, le.p, cuts[i]);
		char *err = NULL;
		d = ps_dump_open(cp, NULL, &err);
		if (d) {
			const struct ps_target *t = ps_dump_target(d);
			unsigned char buf[KD_BLOCK];
			for (unsigned pfn = 0; pfn < KD_PFNS; pfn++) {
				enum ps_read_status s = rd(t, (uint64_t)pfn * KD_BLOCK, buf, KD_BLOCK);
				if (s == PS_READ_OK)
					CHECK(is_pattern(buf, (uint64_t)pfn * KD_BLOCK, KD_BLOCK),
					      "%s: pfn %u read OK with wrong bytes", name, pfn);
			}
			ps_dump_close(d);
		} else {
			CHECK(err && !strchr(err, '\n') && !strncmp(err, cp, strlen(cp)),
			      "%s: error '%s'", name, err ? err : "(none)");
		}
		free(err);
		free(cp);
	}

	free(le_path), free(be_path), free(fl_path), free(fb_path), free(fe_path);
	free(p1), free(p2), free(p3), free(p4), free(p5), free(p6), free(p7);
	free(le.p), free(be.p), free(fl.p), free(fb.p), free(elf.p), free(fe.p), free(noend.p);
	free(bad.p), free(bad2.p);
}

/* ---- not dumps ------------------------------------------------------------------------- */

static void test_garbage(void)
{
	unsigned char junk[65536];
	uint32_t x = 12345;
	for (size_t i = 0; i < sizeof junk; i++) {
		x = x * 1103515245u + 12345u;
		junk[i] = (unsigned char)(x >> 16);
	}
	char *p1 = write_file("junk.bin", junk, sizeof junk);
	open_fails(p1, "not a kernel dump");
	char *p2 = write_file("empty", "", 0);
	open_fails(p2, "not a kernel dump");
	char *p3 = write_file("text", "hello\n", 6);
	open_fails(p3, "not a kernel dump");
	char *missing;
	if (asprintf(&missing, "%s/does-not-exist", tmpdir) < 0)
		exit(2);
	open_fails(missing, "No such file");
	open_fails(tmpdir, "directory");
	/* ELF magic followed by junk. */
	memcpy(junk, "\177ELF\2\1\1", 7);
	char *p4 = write_file("junk.elf", junk, sizeof junk);
	char *err = NULL;
	struct ps_dump *d = ps_dump_open(p4, NULL, &err);
	CHECK(d == NULL && err && !strchr(err, '\n'), "junk ELF: %s", err ? err : "opened");
	ps_dump_close(d);
	free(err);
	/* KDUMP signature followed by junk. */
	memcpy(junk, "KDUMP   ", 8);
	char *p5 = write_file("junk.kdump", junk, sizeof junk);
	err = NULL;
	d = ps_dump_open(p5, NULL, &err);
	if (d) {
		unsigned char buf[64];
		const struct ps_target *t = ps_dump_target(d);
		for (uint64_t pfn = 0; pfn < 64; pfn++)
			(void)rd(t, pfn * 4096, buf, sizeof buf);
		ps_dump_close(d);
	}
	CHECK(d || (err && !strchr(err, '\n')), "junk kdump: %s", err ? err : "?");
	free(err);
	free(p1), free(p2), free(p3), free(p4), free(p5), free(missing);
}

static void cleanup(void)
{
	char cmd[sizeof tmpdir + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmpdir);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 2;
	}
	setenv("TMPDIR", tmpdir, 1); /* flattened files are reassembled here */
	test_elf(false);
	test_elf(true);
	test_qemu_ppc64_elf(true);
	test_qemu_ppc64_elf(false);
	test_qemu_ppc32_elf(false);
	test_qemu_ppc32_elf(true);
	test_kdump();
	test_garbage();
	cleanup();
	return check_summary("test_dump");
}
