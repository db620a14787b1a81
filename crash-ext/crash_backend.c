/* crash_backend.c - crash as a pagesleuth back-end: bytes, type information and facts.
 *
 * Built against one crash version's defs.h (pagesleuth.c refuses to load into another).
 * Only documented extension interfaces are used: pc->readmem (the dump format's own page
 * reader, which readmem() calls), readmem(KVADDR), symbol_value, datatype_info
 * (MEMBER_OFFSET/MEMBER_SIZE/STRUCT_SIZE), enumerator_value and gdb_pass_through.
 *
 * Why pc->readmem rather than readmem(PHYSADDR): readmem() turns every failure into FALSE,
 * but the walker must tell a page makedumpfile excluded (PAGE_EXCLUDED: written as an 'x'
 * run) from one the dump never had (SEEK_ERROR) and from an I/O error (READ_ERROR).
 */
#include "defs.h" /* crash's */

#include "crash_backend.h"
#include "dump.h" /* the page map of pfn_status, and the kdump header time, as in extract */
#include "errmsg.h"

#include <stdarg.h>
#include <string.h>
#include <unistd.h>

/* ---- facts ---------------------------------------------------------------------------- */

/* The byte order of the target, from the vmlinux crash loaded (EI_DATA): crash's own
 * flags for it differ per architecture. */
static bool vmlinux_big_endian(const char *path, bool *be)
{
	unsigned char ident[6];
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0)
		return false;
	bool ok = pread(fd, ident, sizeof ident, 0) == (ssize_t)sizeof ident &&
		  memcmp(ident, "\177ELF", 4) == 0 && (ident[5] == 1 || ident[5] == 2);
	close(fd);
	if (ok)
		*be = ident[5] == 2;
	return ok;
}

int ps_crash_facts(struct ps_crash_facts *f, char **err)
{
	memset(f, 0, sizeof *f);
	if (ACTIVE()) {
		ps_set_err(err, "crash is reading a live system; use `pagesleuth snap` there");
		return -1;
	}
	f->dumpfile = pc->dumpfile;
	f->namelist = pc->namelist;
	f->ptr_size = BITS64() ? 8 : 4;
	f->page_size = (uint32_t)PAGESIZE();
	f->release = kt->utsname.release;
	f->big_endian = false;
	if (!vmlinux_big_endian(pc->namelist, &f->big_endian) && !machine_type("X86_64") &&
	    !machine_type("ARM64")) {
		ps_set_err(err, "%s: cannot read its ELF header for the byte order",
			   pc->namelist ? pc->namelist : "(no vmlinux)");
		return -1;
	}
	if (machine_type("X86_64"))
		f->arch = "x86_64";
	else if (machine_type("ARM64"))
		f->arch = "arm64";
	else if (machine_type("PPC64"))
		f->arch = f->big_endian ? "ppc64" : "ppc64le";
	else if (machine_type("ARM"))
		f->arch = "arm";
	else if (machine_type("PPC"))
		f->arch = "ppc32";
	else {
		ps_set_err(err, "crash's machine type %s has no pagesleuth walker", MACHINE_TYPE);
		return -1;
	}
	f->dump_level = (pc->flags & (DISKDUMP | NETDUMP | KDUMP)) ? get_dump_level() : -1;
	/* DISKDUMP covers kdump-compressed files; the header is read with pread, which leaves
	 * crash's own file offset alone. */
	if ((pc->flags & DISKDUMP) && pc->dfd >= 0)
		f->header_time = ps_kdump_header_time(pc->dfd, f->big_endian, f->ptr_size);
	f->zero_excluded = (pc->flags & DISKDUMP) && diskdump_flags && (*diskdump_flags & ZERO_EXCLUDED);
	return 0;
}

/* ---- reads ---------------------------------------------------------------------------- */

static int memory_fd(void)
{
	return REMOTE_MEMSRC() ? pc->sockfd : (ACTIVE() ? pc->mfd : pc->dfd);
}

static enum ps_read_status crash_read_phys(void *ctx, uint64_t paddr, void *buf, size_t len)
{
	(void)ctx;
	uint64_t psz = (uint64_t)PAGESIZE();
	char *out = buf;
	int fd = memory_fd();
	while (len > 0) {
		size_t chunk = (size_t)(psz - (paddr & (psz - 1)));
		if (chunk > len)
			chunk = len;
		/* The dump format's reader, one page at a time as readmem() calls it (the
		 * virtual-address argument is 0 for physical reads there too). */
		int got = pc->readmem(fd, out, (int)chunk, 0, (physaddr_t)paddr);
		if (got != (int)chunk) {
			memset(out, 0, len);
			return got == PAGE_EXCLUDED ? PS_READ_EXCLUDED
			       : got == SEEK_ERROR  ? PS_READ_NODATA
						    : PS_READ_ERROR;
		}
		out += chunk;
		paddr += chunk;
		len -= chunk;
	}
	return PS_READ_OK;
}

/* Whether the dump holds a frame, asked for every mapped page: answered from the dump's own
 * page map (kdump bitmaps, ELF program headers) by pagesleuth's reader opened on the same
 * file, the lookup `extract` makes, without I/O. Asking crash instead means reading a byte
 * through pc->readmem, which decompresses each page of a kdump file and evicts crash's small
 * page cache: 95% of the command's time on a 3.4 GiB kdump-zlib dump (bench/crash-ext.sh).
 * Formats the reader would have to rebuild (flattened, split dumps) or does not know keep
 * that fallback. One reader per session, reopened when crash's dump file changes. */
static struct ps_dump *page_map;
static bool page_map_tried;
static char page_map_path[4096];

static struct ps_dump *session_page_map(void)
{
	const char *path = pc->dumpfile ? pc->dumpfile : "";
	if (page_map_tried && strcmp(page_map_path, path) == 0)
		return page_map;
	ps_dump_close(page_map);
	page_map = NULL;
	page_map_tried = true;
	snprintf(page_map_path, sizeof page_map_path, "%s", path);
	if (!*path || !(DISKDUMP_DUMPFILE() || NETDUMP_DUMPFILE() || KDUMP_DUMPFILE()) ||
	    FLAT_FORMAT() || (DISKDUMP_DUMPFILE() && dumpfile_is_split()))
		return NULL;
	char *warnings = NULL, *err = NULL;
	page_map = ps_dump_open(path, &warnings, &err);
	free(warnings);
	free(err);
	/* Its PFNs must be crash's: a reader that had to guess the page size is not used. */
	if (page_map && ps_dump_target(page_map)->page_size != (uint32_t)PAGESIZE()) {
		ps_dump_close(page_map);
		page_map = NULL;
	}
	return page_map;
}

static enum ps_read_status crash_pfn_status(void *ctx, uint64_t pfn)
{
	struct ps_dump *d = session_page_map();
	if (d) {
		const struct ps_target *t = ps_dump_target(d);
		return t->ops->pfn_status(t->ctx, pfn);
	}
	char byte;
	uint64_t shift = (uint64_t)PAGESHIFT();
	if (pfn > (UINT64_MAX >> shift))
		return PS_READ_NODATA;
	return crash_read_phys(ctx, pfn << shift, &byte, 1);
}

bool ps_crash_has_page_map(void)
{
	return session_page_map() != NULL;
}

void ps_crash_session_end(void)
{
	ps_dump_close(page_map);
	page_map = NULL;
	page_map_tried = false;
}

static enum ps_read_status crash_read_kvirt(void *ctx, uint64_t vaddr, void *buf, size_t len)
{
	(void)ctx;
	if (readmem((ulonglong)vaddr, KVADDR, buf, (long)len, "pagesleuth", RETURN_ON_ERROR | QUIET))
		return PS_READ_OK;
	memset(buf, 0, len);
	return PS_READ_ERROR;
}

/* VMCOREINFO through crash (pc->read_vmcoreinfo returns a malloc'd value): answers are kept
 * for the session, since the walker holds the pointers it is given. */
struct vmcoreinfo_answer {
	char *key, *value; /* value NULL: absent */
	struct vmcoreinfo_answer *next;
};
static struct vmcoreinfo_answer *vmcoreinfo_answers;

static const char *crash_vmcoreinfo(void *ctx, const char *key)
{
	(void)ctx;
	for (struct vmcoreinfo_answer *a = vmcoreinfo_answers; a; a = a->next)
		if (strcmp(a->key, key) == 0)
			return a->value;
	if (!pc->read_vmcoreinfo)
		return NULL;
	struct vmcoreinfo_answer *a = calloc(1, sizeof *a);
	if (!a || !(a->key = strdup(key))) {
		free(a);
		return NULL;
	}
	char *v = pc->read_vmcoreinfo(key);
	if (v) {
		a->value = strdup(v);
		free(v);
	}
	a->next = vmcoreinfo_answers;
	vmcoreinfo_answers = a;
	return a->value;
}

const struct ps_target_ops ps_crash_target_ops = {
	.read_phys = crash_read_phys,
	.pfn_status = crash_pfn_status,
	.vmcoreinfo = crash_vmcoreinfo,
};

const struct ps_target_ops ps_crash_target_ops_kvaddr = {
	.read_phys = crash_read_phys,
	.read_kvirt = crash_read_kvirt,
	.pfn_status = crash_pfn_status,
	.vmcoreinfo = crash_vmcoreinfo,
};

/* ---- type information ------------------------------------------------------------------ */

/* Run a gdb command through crash and return its first output line in LINE. */
static bool gdb_line(const char *cmd, char *line, size_t cap)
{
	char buf[BUFSIZE];
	bool ok = false;
	snprintf(buf, sizeof buf, "%s", cmd);
	open_tmpfile2();
	if (gdb_pass_through(buf, pc->tmpfile2, GNU_RETURN_ON_ERROR)) {
		rewind(pc->tmpfile2);
		ok = fgets(line, (int)cap, pc->tmpfile2) != NULL;
	}
	close_tmpfile2();
	return ok;
}

/* gdb's value of a C expression over TYPE (tried as a struct, then as a union; %s in FMT
 * is "struct T" or "union T"), printed in decimal. */
static bool gdb_number(const char *fmt, const char *type, const char *path, uint64_t *out)
{
	static const char *const kinds[] = { "struct", "union" };
	for (int i = 0; i < 2; i++) {
		char expr[512], cmd[640], line[128];
		char tag[160];
		snprintf(tag, sizeof tag, "%s %s", kinds[i], type);
		snprintf(expr, sizeof expr, fmt, tag, path, tag, path);
		snprintf(cmd, sizeof cmd, "printf \"%%lu\\n\", (unsigned long)(%s)", expr);
		char *end;
		if (gdb_line(cmd, line, sizeof line) && line[0] >= '0' && line[0] <= '9') {
			*out = strtoull(line, &end, 10);
			if (*end == '\n' || *end == 0)
				return true;
		}
	}
	return false;
}

/* The outer array length of TYPE.PATH from gdb's `whatis` ("type = char [16]"), 0 if not an
 * array. */
static uint32_t gdb_array_length(const char *type, const char *path)
{
	static const char *const kinds[] = { "struct", "union" };
	for (int i = 0; i < 2; i++) {
		char cmd[512], line[512];
		snprintf(cmd, sizeof cmd, "whatis ((%s %s *)0)->%s", kinds[i], type, path);
		if (!gdb_line(cmd, line, sizeof line) || strncmp(line, "type = ", 7) != 0)
			continue;
		/* The trailing "[N][M]..." groups: the first is the outer dimension. */
		size_t n = strcspn(line, "\n");
		while (n > 0 && line[n - 1] == ' ')
			n--;
		line[n] = 0;
		char *first = NULL, *end = line + n;
		while (end > line && end[-1] == ']') {
			char *open = memrchr(line, '[', (size_t)(end - line));
			if (!open)
				break;
			first = open;
			end = open;
		}
		return first ? (uint32_t)strtoul(first + 1, NULL, 10) : 0;
	}
	return 0;
}

static int crash_member(void *ctx, const char *type, const char *path, struct ps_kinfo_member *out)
{
	(void)ctx;
	/* datatype_info answers a plain member name from gdb's type tables in one request
	 * (offset, size, type code); a dotted path, or a member inside an anonymous
	 * struct/union, takes gdb expressions (what crash's ANON_MEMBER_OFFSET does). Only
	 * arrays need gdb's `whatis` for their length. */
	struct datatype_member dm = { 0 };
	bool is_array = true;
	if (!strchr(path, '.') && datatype_info((char *)type, (char *)path, &dm) >= 0 &&
	    dm.member_offset >= 0 && dm.member_size > 0) {
		out->offset = dm.member_offset;
		out->size = (uint32_t)dm.member_size;
		is_array = dm.member_typecode == TYPE_CODE_ARRAY;
	} else {
		uint64_t off, size;
		if (!gdb_number("&((%s *)0)->%s", type, path, &off) ||
		    !gdb_number("sizeof(((%s *)0)->%s)", type, path, &size))
			return -1;
		out->offset = (int64_t)off;
		out->size = (uint32_t)size;
	}
	out->nelems = is_array ? gdb_array_length(type, path) : 0;
	return 0;
}

static int crash_type_size(void *ctx, const char *type, int64_t *out)
{
	(void)ctx;
	long s = STRUCT_SIZE((char *)type);
	if (s < 0)
		s = UNION_SIZE((char *)type);
	if (s < 0)
		return -1;
	*out = s;
	return 0;
}

static int crash_enum_value(void *ctx, const char *enumerator, int64_t *out)
{
	(void)ctx;
	long v;
	if (enumerator_value((char *)enumerator, &v)) {
		*out = v;
		return 0;
	}
	/* crash looks a name up as a type first, so an enumerator sharing its name with a
	 * struct tag (enum maple_type's maple_range_64) is missed: ask gdb for the expression,
	 * once it says the name is an enumerator. */
	char cmd[256], line[256], *end;
	snprintf(cmd, sizeof cmd, "whatis %s", enumerator);
	if (!gdb_line(cmd, line, sizeof line) || strncmp(line, "type = enum ", 12) != 0)
		return -1;
	snprintf(cmd, sizeof cmd, "printf \"%%ld\\n\", (long)(%s)", enumerator);
	if (!gdb_line(cmd, line, sizeof line))
		return -1;
	long long n = strtoll(line, &end, 10);
	if (end == line || (*end != '\n' && *end))
		return -1;
	*out = n;
	return 0;
}

/* Link-time addresses, as the other sources give them: crash's symbol table is relocated
 * by kt->relocate (runtime = link - relocate). */
static int crash_symbol(void *ctx, const char *name, uint64_t *out)
{
	(void)ctx;
	if (!symbol_exists((char *)name))
		return -1;
	*out = (uint64_t)symbol_value((char *)name) + (uint64_t)kt->relocate;
	return 0;
}

static const struct ps_typeinfo_ops crash_typeinfo_ops = {
	.member = crash_member,
	.type_size = crash_type_size,
	.enum_value = crash_enum_value,
	.symbol = crash_symbol,
};

int ps_crash_fill_kinfo(struct ps_kinfo *ki, const struct ps_crash_facts *f, char **err)
{
	ps_kinfo_init(ki);
	if (ps_kinfo_fill(ki, &crash_typeinfo_ops, NULL, err) != 0)
		return -1;
	ps_kinfo_set_source(ki, "crash", f->namelist ? f->namelist : "vmlinux");
	snprintf(ki->release, sizeof ki->release, "%s", f->release ? f->release : "");
	snprintf(ki->arch, sizeof ki->arch, "%s", f->arch);
	/* As `pagesleuth profile VMLINUX` records it: crash has no accessor for it, the
	 * vmlinux it loaded has it in its note. */
	if (f->namelist)
		ps_elf_build_id(f->namelist, ki->build_id);
	return 0;
}

/* ---- command plumbing ----------------------------------------------------------------- */

void ps_crash_on_abort(void (*fn)(void *), void *arg)
{
	pc->cmd_cleanup = fn;
	pc->cmd_cleanup_arg = arg;
}

void ps_crash_message(const char *fmt, ...)
{
	/* stderr, not crash's error(): under `> file` crash copies error() lines into the
	 * file too, where they would break the record stream. */
	va_list ap;
	va_start(ap, fmt);
	fflush(fp);
	fprintf(stderr, "%s: ", pc->curcmd ? pc->curcmd : "pagesleuth");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}
