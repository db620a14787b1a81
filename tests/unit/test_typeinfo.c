/* test_typeinfo.c - unit tests of the kernel-facts table (walker/kinfo.h): filling it from
 * the fixtures' committed BTF and checking it against what each guest's own VMCOREINFO
 * states (groundtruth.txt), the profile's write/read round trip and its error messages,
 * System.map symbols, and the error paths of the BTF and DWARF sources.
 *
 * The BTF comes from tests/fixtures/data/<fixture>/vmlinux.btf.zst through `zstd -dc`
 * (bytes: ps_btf_source_open) and from $PAGESLEUTH_CACHE/fixtures/unpacked/<fixture>/
 * vmlinux.btf when present (file: ps_btf_source_open_file). Exits 77 when neither works.
 * DWARF against BTF on whole kernels is tests/cases/typeinfo_dwarf_vs_btf.sh (slower).
 *
 * Prints "FAIL: file:line: ..." per failed check and "test_typeinfo: N checks, M failed".
 */
#include "kinfo.h"
#include "check.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *root_dir(void)
{
	const char *r = getenv("PAGESLEUTH_ROOT");
	return r && *r ? r : ".";
}
static const char *cache_dir(void)
{
	const char *c = getenv("PAGESLEUTH_CACHE");
	return c && *c ? c : "/var/cache/pagesleuth";
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static char tmpdir[] = "/tmp/test_typeinfo.XXXXXX";

static char *tmp_path(const char *name)
{
	char *p;
	if (asprintf(&p, "%s/%s", tmpdir, name) < 0)
		abort();
	return p;
}

static void write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(text, 1, len, f) != len || fclose(f) != 0) {
		perror(path);
		abort();
	}
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 1 << 16;
			char *b = realloc(buf, cap + 1);
			if (!b)
				abort();
			buf = b;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

/* The whole output of `zstd -dc FILE`, or NULL. */
static char *zstd_decompress(const char *path, size_t *len)
{
	if (access(path, R_OK) != 0)
		return NULL;
	char *cmd;
	if (asprintf(&cmd, "zstd -dc -- '%s' 2>/dev/null", path) < 0)
		abort();
	FILE *p = popen(cmd, "r");
	free(cmd);
	if (!p)
		return NULL;
	char *buf = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 1 << 20;
			char *b = realloc(buf, cap);
			if (!b)
				abort();
			buf = b;
		}
		size_t got = fread(buf + n, 1, cap - n, p);
		n += got;
		if (got == 0)
			break;
	}
	if (pclose(p) != 0 || n == 0) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

/* ---- VMCOREINFO from groundtruth.txt ----------------------------------------------------- */

struct vmcoreinfo {
	char **key; /* "OFFSET(page.flags)" */
	int64_t *value;
	size_t n;
};

static void vmcoreinfo_free(struct vmcoreinfo *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->key[i]);
	free(v->key);
	free(v->value);
}

/* The "=== begin vmcoreinfo" block's KEY=VALUE lines with a decimal value. */
static int vmcoreinfo_load(const char *fixture, struct vmcoreinfo *v)
{
	memset(v, 0, sizeof(*v));
	char *path;
	if (asprintf(&path, "%s/tests/fixtures/data/%s/groundtruth.txt", root_dir(), fixture) < 0)
		abort();
	FILE *f = fopen(path, "r");
	free(path);
	if (!f)
		return -1;
	char line[1024];
	bool in = false;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (strncmp(line, "=== begin vmcoreinfo", 20) == 0) {
			in = true;
			continue;
		}
		if (strncmp(line, "=== end vmcoreinfo", 18) == 0)
			break;
		char *eq = strchr(line, '=');
		if (!in || !eq)
			continue;
		*eq = 0;
		char *end;
		long long val = strtoll(eq + 1, &end, 10);
		if (*end || end == eq + 1)
			continue; /* hex values (SYMBOL, KERNELOFFSET) are not needed here */
		v->key = realloc(v->key, (v->n + 1) * sizeof(*v->key));
		v->value = realloc(v->value, (v->n + 1) * sizeof(*v->value));
		if (!v->key || !v->value || !(v->key[v->n] = strdup(line)))
			abort();
		v->value[v->n++] = val;
	}
	fclose(f);
	return 0;
}

static bool vmcoreinfo_get(const struct vmcoreinfo *v, const char *key, int64_t *out)
{
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->key[i], key) == 0) {
			*out = v->value[i];
			return true;
		}
	return false;
}

/* Every VMCOREINFO OFFSET/SIZE/NUMBER the table also has must agree. Returns how many
 * were compared. */
static unsigned compare_with_vmcoreinfo(const char *fixture, const struct ps_kinfo *ki,
					const struct vmcoreinfo *v)
{
	unsigned compared = 0;
	char key[160];
	int64_t val;
	for (unsigned i = 0; i < PS_KI_NMEMBERS; i++) {
		snprintf(key, sizeof(key), "OFFSET(%s)", ps_ki_member_name((enum ps_ki_member)i));
		if (!vmcoreinfo_get(v, key, &val))
			continue;
		compared++;
		CHECK(ki->member[i].offset == val, "%s: %s: BTF says %" PRId64 ", VMCOREINFO %" PRId64,
		      fixture, key, ki->member[i].offset, val);
	}
	for (unsigned i = 0; i < PS_KI_NSIZES; i++) {
		snprintf(key, sizeof(key), "SIZE(%s)", ps_ki_size_name((enum ps_ki_size)i));
		if (!vmcoreinfo_get(v, key, &val))
			continue;
		compared++;
		CHECK(ki->size[i] == val, "%s: %s: BTF says %" PRId64 ", VMCOREINFO %" PRId64, fixture,
		      key, ki->size[i], val);
	}
	for (unsigned i = 0; i < PS_KI_NENUMS; i++) {
		snprintf(key, sizeof(key), "NUMBER(%s)", ps_ki_enum_name((enum ps_ki_enum)i));
		if (!vmcoreinfo_get(v, key, &val))
			continue;
		compared++;
		CHECK(ki->enumval[i] == val, "%s: %s: BTF says %" PRId64 ", VMCOREINFO %" PRId64,
		      fixture, key, ki->enumval[i], val);
	}
	/* PG_head_mask is 1 << PG_head (include/linux/page-flags.h, 5.x-6.x). */
	if (vmcoreinfo_get(v, "NUMBER(PG_head_mask)", &val)) {
		compared++;
		CHECK(ps_ki_has_enum(ki, PS_KI_PG_HEAD) && ki->enumval[PS_KI_PG_HEAD] < 63 &&
			      (INT64_C(1) << ki->enumval[PS_KI_PG_HEAD]) == val,
		      "%s: PG_head %" PRId64 " vs NUMBER(PG_head_mask)=%" PRId64, fixture,
		      ki->enumval[PS_KI_PG_HEAD], val);
	}
	/* The mem_section array length: LENGTH(mem_section) is NR_SECTION_ROOTS, not a member,
	 * so it is not compared. */
	return compared;
}

/* ---- BTF fixtures ---------------------------------------------------------------------- */

static const char *const fixtures[] = { "x86_64", "arm64", "armhf", "ppc64le", "ppc32-e500-64pte",
					"ppc32-mpc8544ds-32pte" };

static struct ps_kinfo x86_kinfo; /* kept for the profile tests */
static bool have_x86_kinfo;

/* Fill from the fixture's BTF both ways we can; returns how many sources worked. */
static int test_fixture(const char *fixture)
{
	char *zst, *unpacked;
	if (asprintf(&zst, "%s/tests/fixtures/data/%s/vmlinux.btf.zst", root_dir(), fixture) < 0 ||
	    asprintf(&unpacked, "%s/fixtures/unpacked/%s/vmlinux.btf", cache_dir(), fixture) < 0)
		abort();
	int sources = 0;
	struct ps_kinfo from_bytes, from_file;
	bool have_bytes = false, have_file = false;

	size_t len;
	char *data = zstd_decompress(zst, &len);
	if (data) {
		char *err = NULL;
		double t0 = now_ms();
		struct ps_btf_source *s = ps_btf_source_open(data, len, fixture, &err);
		/* The source copied the bytes: scribbling over ours must not matter. */
		memset(data, 0xa5, len);
		free(data);
		if (CHECK(s != NULL, "%s: BTF bytes: %s", fixture, err ? err : "?")) {
			ps_kinfo_init(&from_bytes);
			ps_kinfo_set_source(&from_bytes, "btf", fixture);
			int rc = ps_kinfo_fill(&from_bytes, &ps_btf_typeinfo_ops, s, &err);
			double t1 = now_ms();
			CHECK(rc == 0, "%s: fill from BTF: %s", fixture, err ? err : "?");
			printf("%s: BTF open+fill %.1f ms\n", fixture, t1 - t0);
			have_bytes = rc == 0;
			ps_btf_source_close(s);
		}
		free(err);
		sources++;
	}
	if (access(unpacked, R_OK) == 0) {
		char *err = NULL;
		struct ps_btf_source *s = ps_btf_source_open_file(unpacked, &err);
		if (CHECK(s != NULL, "%s: %s", unpacked, err ? err : "?")) {
			ps_kinfo_init(&from_file);
			ps_kinfo_set_source(&from_file, "btf", fixture);
			int rc = ps_kinfo_fill(&from_file, &ps_btf_typeinfo_ops, s, &err);
			CHECK(rc == 0, "%s: fill from BTF file: %s", fixture, err ? err : "?");
			have_file = rc == 0;
			ps_btf_source_close(s);
		}
		free(err);
		sources++;
	}
	if (!sources) {
		printf("%s: no BTF (zstd or %s): skipped\n", fixture, unpacked);
		free(zst);
		free(unpacked);
		return 0;
	}
	struct vmcoreinfo v;
	bool have_gt = vmcoreinfo_load(fixture, &v) == 0;
	CHECK(have_gt, "%s: no groundtruth.txt", fixture);
	if (have_gt && v.n == 0) /* armhf: the guest had no /proc/kcore to read it from */
		printf("%s: groundtruth.txt has no VMCOREINFO: not compared\n", fixture);
	if (have_bytes && have_file)
		CHECK(memcmp(&from_bytes, &from_file, sizeof(from_bytes)) == 0,
		      "%s: BTF from bytes and from the file differ", fixture);
	const struct ps_kinfo *ki = have_bytes ? &from_bytes : have_file ? &from_file : NULL;
	if (ki && have_gt && v.n) {
		/* The facts the brief names must be in the ground truth for the comparison to
		 * mean anything. */
		static const char *const must[] = { "OFFSET(page.flags)", "OFFSET(page._refcount)",
						    "OFFSET(page.mapping)", "SIZE(page)", "NUMBER(PG_lru)" };
		for (size_t i = 0; i < sizeof(must) / sizeof(must[0]); i++) {
			int64_t val;
			CHECK(vmcoreinfo_get(&v, must[i], &val), "%s: VMCOREINFO lacks %s", fixture, must[i]);
		}
		unsigned n = compare_with_vmcoreinfo(fixture, ki, &v);
		CHECK(n >= 8, "%s: only %u facts compared with VMCOREINFO", fixture, n);
		printf("%s: %u facts agree with VMCOREINFO\n", fixture, n);
		/* Facts of every 6.1 kernel that VMCOREINFO does not state. */
		CHECK(ps_ki_has(ki, PS_KI_MM_MT) && !ps_ki_has(ki, PS_KI_MM_MMAP),
		      "%s: 6.1 has mm_mt and no mmap", fixture);
		CHECK(ps_ki_has(ki, PS_KI_TASK_STATE) && !ps_ki_has(ki, PS_KI_TASK_STATE_OLD),
		      "%s: 6.1 has __state", fixture);
		CHECK(ki->member[PS_KI_TASK_COMM].nelems == 16 && ki->member[PS_KI_TASK_COMM].size == 16,
		      "%s: task_struct.comm is char[16]: %u/%u", fixture, ki->member[PS_KI_TASK_COMM].size,
		      ki->member[PS_KI_TASK_COMM].nelems);
		uint32_t slots = ki->member[PS_KI_MAPLE_RANGE64_SLOT].nelems;
		CHECK((slots == 16 || slots == 32) &&
			      ki->member[PS_KI_MAPLE_RANGE64_PIVOT].nelems == slots - 1,
		      "%s: maple_range_64: %u slots (16 on 64-bit, 32 on 32-bit), one pivot fewer",
		      fixture, slots);
		/* Anonymous unions/structs: page_type shares _mapcount's place (6.1). */
		CHECK(ki->member[PS_KI_PAGE_TYPE].offset == ki->member[PS_KI_PAGE_MAPCOUNT].offset,
		      "%s: page.page_type and page._mapcount share a union", fixture);
		/* d_name is a struct qstr: hash_len union before name. */
		CHECK(ki->member[PS_KI_DENTRY_NAME].offset > ki->member[PS_KI_DENTRY_NAME_LEN].offset &&
			      ki->member[PS_KI_DENTRY_NAME_LEN].size == 4,
		      "%s: dentry.d_name.len (u32, anonymous struct in a union) before name", fixture);
		CHECK(ki->enumval[PS_KI_MM_FILEPAGES] == 0 && ki->enumval[PS_KI_MM_ANONPAGES] == 1 &&
			      ki->enumval[PS_KI_NR_MM_COUNTERS] == 4,
		      "%s: rss counters", fixture);
		CHECK(ki->enumval[PS_KI_MAPLE_ARANGE_64] == 3, "%s: maple_arange_64 = 3", fixture);
		int64_t size_of_page;
		if (vmcoreinfo_get(&v, "SIZE(page)", &size_of_page) && size_of_page == 64)
			CHECK(ki->member[PS_KI_PAGE_FLAGS].size == 8, "%s: 64-bit page flags", fixture);
		if (strcmp(fixture, "x86_64") == 0) {
			x86_kinfo = *ki;
			have_x86_kinfo = true;
		}
	}
	if (have_gt)
		vmcoreinfo_free(&v);
	free(zst);
	free(unpacked);
	return sources;
}

/* ---- the table itself ------------------------------------------------------------------- */

struct fake_source {
	bool answer;
};
static int fake_member(void *ctx, const char *type, const char *path, struct ps_kinfo_member *out)
{
	const struct fake_source *f = ctx;
	if (!f->answer || strcmp(type, "page") == 0) /* "page" always missing */
		return -1;
	out->offset = (int64_t)strlen(path);
	out->size = 8;
	out->nelems = 0;
	return 0;
}
static int fake_size(void *ctx, const char *type, int64_t *out)
{
	const struct fake_source *f = ctx;
	*out = (int64_t)strlen(type);
	return f->answer ? 0 : -1;
}
static int fake_enum(void *ctx, const char *name, int64_t *out)
{
	(void)ctx;
	*out = 1;
	return strcmp(name, "PG_locked") == 0 ? -1 : 0;
}
static int fake_symbol(void *ctx, const char *name, uint64_t *out)
{
	(void)ctx;
	*out = 0x1000 + strlen(name);
	return 0;
}

static void test_table(void)
{
	CHECK(strcmp(ps_ki_member_name(PS_KI_TASK_TASKS), "task_struct.tasks") == 0, "member name");
	CHECK(strcmp(ps_ki_member_name(PS_KI_DENTRY_NAME_LEN), "dentry.d_name.len") == 0, "dotted name");
	CHECK(strcmp(ps_ki_size_name(PS_KI_PAGE), "page") == 0, "size name");
	CHECK(strcmp(ps_ki_enum_name(PS_KI_PG_LOCKED), "PG_locked") == 0, "enum name");
	CHECK(strcmp(ps_ki_symbol_name(PS_KI_INIT_TASK), "init_task") == 0, "symbol name");
	CHECK(strcmp(ps_ki_member_name((enum ps_ki_member)PS_KI_NMEMBERS), "?") == 0, "out of range");
	CHECK(strcmp(ps_ki_symbol_name((enum ps_ki_symbol)-1), "?") == 0, "negative id");

	struct ps_kinfo ki;
	ps_kinfo_init(&ki);
	CHECK(!ps_ki_has(&ki, PS_KI_TASK_TASKS) && !ps_ki_has_enum(&ki, PS_KI_PG_LRU) &&
		      ki.size[PS_KI_PAGE] == PS_KI_ABSENT && ki.symbol[PS_KI_INIT_TASK] == 0 && !ki.source[0],
	      "init: everything absent");

	/* Every missing required entry is named in one message. */
	struct fake_source f = { .answer = true };
	struct ps_typeinfo_ops ops = { fake_member, fake_size, fake_enum, fake_symbol };
	ps_kinfo_set_source(&ki, "fake", "x");
	char *err = NULL;
	CHECK(ps_kinfo_fill(&ki, &ops, &f, &err) == -1, "fill with page missing fails");
	CHECK(err && strstr(err, "fake:x: ") == err && strstr(err, "page.flags") &&
		      strstr(err, "page.compound_head") && strstr(err, "enumerator PG_locked") &&
		      !strstr(err, "page.page_type") /* OPT */ && !strstr(err, "task_struct"),
	      "message names all missing REQ entries: %s", err ? err : "(null)");
	free(err);
	err = NULL;
	CHECK(ki.member[PS_KI_TASK_PID].offset == 3 && ki.size[PS_KI_PAGE] == 4 &&
		      ki.symbol[PS_KI_INIT_TASK] == 0x1000 + 9,
	      "found entries are filled even when the fill fails");

	f.answer = false;
	ops.symbol = NULL;
	CHECK(ps_kinfo_fill(&ki, &ops, &f, &err) == -1 && err && strstr(err, "task_struct.tasks") &&
		      strstr(err, "sizeof(task_struct)") && !strstr(err, "symbol init_task"),
	      "no symbol op: symbols are not required: %s", err ? err : "(null)");
	CHECK(ki.symbol[PS_KI_INIT_TASK] == 0, "fill resets the symbols");
	free(err);

	/* Source strings: too long a path keeps the base name. */
	char longpath[200];
	memset(longpath, 'd', sizeof(longpath));
	memcpy(longpath + 150, "/vmlinux-6.1", 13);
	longpath[0] = '/';
	ps_kinfo_set_source(&ki, "dwarf", longpath);
	CHECK(strcmp(ki.source, "dwarf:vmlinux-6.1") == 0, "long source: %s", ki.source);
	ps_kinfo_set_source(&ki, "btf", "dump");
	CHECK(strcmp(ki.source, "btf:dump") == 0, "short source");
}

/* ---- profiles -------------------------------------------------------------------------- */

static void expect_profile_error(const char *name, const char *text, size_t len, unsigned line,
				 const char *what)
{
	char *path = tmp_path(name);
	write_file(path, text, len);
	struct ps_kinfo ki;
	char *err = NULL;
	char prefix[512];
	snprintf(prefix, sizeof(prefix), "%s:%u:", path, line);
	int rc = ps_profile_read(&ki, path, &err);
	CHECK(rc == -1 && err && strncmp(err, prefix, strlen(prefix)) == 0 && (!what || strstr(err, what)),
	      "%s: expected \"%s ...%s\", got rc %d \"%s\"", name, prefix, what ? what : "", rc,
	      err ? err : "(null)");
	free(err);
	unlink(path);
	free(path);
}

/* The profile text of KI as ps_profile_write writes it, malloc'd. */
static char *profile_text(const struct ps_kinfo *ki, size_t *len)
{
	char *path = tmp_path("text.profile"), *err = NULL;
	if (ps_profile_write(ki, path, &err) < 0) {
		printf("cannot write %s: %s\n", path, err ? err : "?");
		abort();
	}
	char *text = read_file(path, len);
	if (!text)
		abort();
	unlink(path);
	free(path);
	return text;
}

/* TEXT with the line starting with PREFIX removed and "end N" decremented. */
static char *drop_line(const char *text, const char *prefix)
{
	char *out = strdup(text);
	char *p = strstr(out, prefix);
	if (!p)
		abort();
	char *nl = strchr(p, '\n');
	memmove(p, nl + 1, strlen(nl + 1) + 1);
	char *end = strstr(out, "\nend ");
	unsigned n = (unsigned)strtoul(end + 5, NULL, 10);
	sprintf(end, "\nend %u\n", n - 1);
	return out;
}

static void test_profiles(void)
{
	if (!have_x86_kinfo) {
		printf("profile tests on a synthetic table (no x86_64 BTF)\n");
		ps_kinfo_init(&x86_kinfo);
		struct fake_source f = { .answer = true };
		struct ps_typeinfo_ops ops = { fake_member, fake_size, fake_enum, NULL };
		char *err = NULL;
		ps_kinfo_fill(&x86_kinfo, &ops, &f, &err);
		free(err);
		for (unsigned i = 0; i < PS_KI_NMEMBERS; i++)
			if (!ps_ki_has(&x86_kinfo, (enum ps_ki_member)i))
				x86_kinfo.member[i] = (struct ps_kinfo_member){ 8 * i, 4, i % 3 };
		x86_kinfo.enumval[PS_KI_PG_LOCKED] = 0;
	}
	struct ps_kinfo ki = x86_kinfo, back;
	snprintf(ki.arch, sizeof(ki.arch), "x86_64");
	snprintf(ki.release, sizeof(ki.release), "6.1.0-56-cloud-amd64");
	snprintf(ki.build_id, sizeof(ki.build_id), "3b43fad5034874490492495d552c0af6a5fab235");
	ki.enumval[PS_KI_PAGE_EXT_IDLE] = -129; /* negative values survive */

	/* Without symbols (a BTF profile). */
	char *path = tmp_path("x86_64.profile");
	char *err = NULL;
	CHECK(ps_profile_write(&ki, path, &err) == 0, "write: %s", err ? err : "");
	free(err);
	err = NULL;
	memset(&back, 0x5a, sizeof(back));
	CHECK(ps_profile_read(&back, path, &err) == 0, "read: %s", err ? err : "");
	free(err);
	err = NULL;
	char expect_source[sizeof(back.source)];
	{
		struct ps_kinfo tmp;
		ps_kinfo_set_source(&tmp, "profile", path);
		memcpy(expect_source, tmp.source, sizeof(expect_source));
	}
	CHECK(strcmp(back.source, expect_source) == 0, "read source: %s", back.source);
	memcpy(back.source, ki.source, sizeof(back.source));
	CHECK(memcmp(&ki, &back, sizeof(ki)) == 0, "round trip without symbols is identical");

	/* With symbols (DWARF or BTF + System.map). */
	ki.symbol[PS_KI_INIT_TASK] = 0xffffffff82a1aa40;
	ki.symbol[PS_KI_STEXT] = 0xffffffff81000000;
	ki.symbol[PS_KI_JIFFIES_64] = 0xc0000000026d3a80;
	CHECK(ps_profile_write(&ki, path, &err) == 0, "write: %s", err ? err : "");
	free(err);
	err = NULL;
	CHECK(ps_profile_read(&back, path, &err) == 0, "read: %s", err ? err : "");
	free(err);
	err = NULL;
	memcpy(back.source, ki.source, sizeof(back.source));
	CHECK(memcmp(&ki, &back, sizeof(ki)) == 0, "round trip with symbols is identical");

	/* Small: a profile is a few KiB. */
	struct stat st;
	CHECK(stat(path, &st) == 0 && st.st_size < 8192, "profile size %lld", (long long)st.st_size);
	unlink(path);
	free(path);

	size_t len;
	char *good = profile_text(&ki, &len);
	/* Forward compatibility: unknown names and keys are skipped; comments, blank lines. */
	{
		char *text;
		char *end = strstr(good, "\nend ");
		unsigned n = (unsigned)strtoul(end + 5, NULL, 10);
		if (asprintf(&text, "%.*s\n# a comment\n\nmember folio.some_new_member 8 4 0\n"
				    "enum PG_some_new_flag 30\nnewkey with fields\nend %u\n",
			     (int)(end - good), good, n + 3) < 0)
			abort();
		char *p = tmp_path("newer.profile");
		write_file(p, text, strlen(text));
		CHECK(ps_profile_read(&back, p, &err) == 0, "newer profile: %s", err ? err : "");
		free(err);
		err = NULL;
		memcpy(back.source, ki.source, sizeof(back.source));
		CHECK(memcmp(&ki, &back, sizeof(ki)) == 0, "unknown entries change nothing");
		unlink(p);
		free(p);
		free(text);
	}

	/* Errors name the file and line. */
	unsigned lines = 0;
	for (const char *p = good; *p; p++)
		lines += *p == '\n';
	expect_profile_error("empty", "", 0, 1, "empty");
	expect_profile_error("magic", "pagesleuth-record 1\nend 0\n", 26, 1, "not a pagesleuth profile");
	expect_profile_error("version", "pagesleuth-profile 2\nend 0\n", 27, 1, "version 2");
	expect_profile_error("garbage", "\x7f" "ELF\x02\x01\x01\0\0\0", 10, 1, NULL);
	char noise[600];
	srand(42);
	for (size_t i = 0; i < sizeof(noise); i++)
		noise[i] = (char)(rand() % 255 + 1);
	expect_profile_error("noise", noise, sizeof(noise), 1, NULL);
	/* Cut mid-line, and cut at a line boundary before "end". */
	{
		unsigned cut_line = 1;
		for (size_t i = 0; i < len / 2; i++)
			cut_line += good[i] == '\n';
		expect_profile_error("truncated2", good, len / 2, cut_line, "truncated");
		size_t without_end = (size_t)(strstr(good, "\nend ") - good) + 1;
		expect_profile_error("no-end", good, without_end, lines, "truncated");
		expect_profile_error("no-newline", good, len - 1, lines, "truncated");
	}
	{
		char *text;
		if (asprintf(&text, "%sextra\n", good) < 0)
			abort();
		expect_profile_error("after-end", text, strlen(text), lines + 1, "after");
		free(text);
		char *bad = strdup(good);
		char *m = strstr(bad, "member page.flags ");
		memcpy(m + 18, "x", 1);
		unsigned bad_line = 1;
		for (char *q = bad; q < m; q++)
			bad_line += *q == '\n';
		expect_profile_error("bad-number", bad, strlen(bad), bad_line, "member TYPE.PATH");
		free(bad);
		char *dup;
		char *pf = strstr(good, "member page.flags ");
		size_t pflen = (size_t)(strchr(pf, '\n') - pf + 1);
		if (asprintf(&dup, "%.*s%.*s%s", (int)(pf - good + pflen), good, (int)pflen, pf,
			     pf + pflen) < 0)
			abort();
		expect_profile_error("duplicate", dup, strlen(dup), bad_line + 1, "twice");
		free(dup);
		char *count = strdup(good);
		strstr(count, "\nend ")[5] = '9';
		expect_profile_error("count", count, strlen(count), lines, "entries");
		free(count);
		char *missing = drop_line(good, "member page.flags ");
		{
			char *p = tmp_path("missing2");
			write_file(p, missing, strlen(missing));
			CHECK(ps_profile_read(&back, p, &err) == -1 && err && strstr(err, "page.flags") &&
				      strstr(err, "profile:"),
			      "missing REQ entry named: %s", err ? err : "(null)");
			free(err);
			err = NULL;
			unlink(p);
			free(p);
		}
		free(missing);
		char *sym = strdup(good);
		char *sp = strstr(sym, "symbol init_task 0x");
		sp[17] = 'z';
		unsigned sym_line = 1;
		for (char *q = sym; q < sp; q++)
			sym_line += *q == '\n';
		expect_profile_error("bad-symbol", sym, strlen(sym), sym_line, "symbol NAME 0xADDRESS");
		free(sym);
		char *key = strdup(good);
		char *kp = strstr(key, "\nsize ");
		kp[1] = 'S'; /* "Size": not a key this format can have */
		unsigned key_line = 2;
		for (char *q = key; q < kp; q++)
			key_line += *q == '\n';
		expect_profile_error("bad-key", key, strlen(key), key_line, "malformed");
		free(key);
	}
	free(good);

	char *nofile = tmp_path("does-not-exist");
	CHECK(ps_profile_read(&back, nofile, &err) == -1 && err && strstr(err, "cannot open"),
	      "missing file: %s", err ? err : "(null)");
	free(err);
	err = NULL;
	/* Atomic: a failed write leaves no file behind and the old one intact. */
	char *dir_target = tmp_path("no-such-dir/x.profile");
	CHECK(ps_profile_write(&ki, dir_target, &err) == -1 && err, "write into a missing directory");
	free(err);
	err = NULL;
	free(dir_target);
	free(nofile);
}

/* ---- System.map ----------------------------------------------------------------------- */

static void test_system_map(void)
{
	const char *map = "c0000000 T _stext\n"
			  "c1000010 d init_task\n"   /* a static of the same name ... */
			  "c1000000 D init_task\n"   /* ... loses to the global */
			  "c1400000 D jiffies_64\n"
			  "c1400100 b max_pfn\n"     /* only a local: taken */
			  "c1500000 T some_function\n"
			  "\n";
	char *path = tmp_path("System.map");
	write_file(path, map, strlen(map));
	struct ps_kinfo ki;
	ps_kinfo_init(&ki);
	ki.symbol[PS_KI_INIT_MM] = 0x1234; /* not in the map: kept */
	char *err = NULL;
	CHECK(ps_kinfo_add_system_map(&ki, path, &err) == 0, "System.map: %s", err ? err : "");
	free(err);
	err = NULL;
	CHECK(ki.symbol[PS_KI_STEXT] == 0xc0000000 && ki.symbol[PS_KI_INIT_TASK] == 0xc1000000 &&
		      ki.symbol[PS_KI_JIFFIES_64] == 0xc1400000 && ki.symbol[PS_KI_MAX_PFN] == 0xc1400100 &&
		      ki.symbol[PS_KI_INIT_MM] == 0x1234,
	      "System.map symbols");
	const char *bad = "c0000000 T _stext\nc1000000 init_task\n";
	write_file(path, bad, strlen(bad));
	char prefix[512];
	snprintf(prefix, sizeof(prefix), "%s:2:", path);
	CHECK(ps_kinfo_add_system_map(&ki, path, &err) == -1 && err && strncmp(err, prefix, strlen(prefix)) == 0,
	      "bad System.map: %s", err ? err : "(null)");
	free(err);
	err = NULL;
	write_file(path, "", 0);
	CHECK(ps_kinfo_add_system_map(&ki, path, &err) == -1 && err, "empty System.map");
	free(err);
	err = NULL;
	/* Every kinfo symbol at its own address: the sorted-name search misses none, and no two
	 * share a name (one would be left 0). */
	FILE *fp = fopen(path, "w");
	for (int i = 0; fp && i < PS_KI_NSYMBOLS; i++)
		fprintf(fp, "%08x T %s\n", 0xc0000000u + 16u * (unsigned)i, ps_ki_symbol_name((enum ps_ki_symbol)i));
	if (fp)
		fclose(fp);
	ps_kinfo_init(&ki);
	CHECK(ps_kinfo_add_system_map(&ki, path, &err) == 0, "System.map of all: %s", err ? err : "");
	free(err);
	err = NULL;
	for (int i = 0; i < PS_KI_NSYMBOLS; i++)
		CHECK(ki.symbol[i] == 0xc0000000u + 16u * (unsigned)i, "%s: %#" PRIx64,
		      ps_ki_symbol_name((enum ps_ki_symbol)i), ki.symbol[i]);
	unlink(path);
	free(path);

	/* A real one: the ppc64le kernel's, for its BTF. */
	char *zst;
	if (asprintf(&zst, "%s/tests/fixtures/data/ppc64le/System.map.zst", root_dir()) < 0)
		abort();
	size_t len;
	char *text = zstd_decompress(zst, &len);
	free(zst);
	if (text) {
		char *p = tmp_path("System.map-ppc64le");
		write_file(p, text, len);
		free(text);
		ps_kinfo_init(&ki);
		double t0 = now_ms();
		CHECK(ps_kinfo_add_system_map(&ki, p, &err) == 0, "ppc64le System.map: %s", err ? err : "");
		printf("ppc64le System.map read in %.1f ms\n", now_ms() - t0);
		free(err);
		err = NULL;
		CHECK(ki.symbol[PS_KI_INIT_TASK] >> 60 == 0xc && ki.symbol[PS_KI_STEXT] == 0xc000000000000000,
		      "ppc64le init_task %#" PRIx64 " _stext %#" PRIx64, ki.symbol[PS_KI_INIT_TASK],
		      ki.symbol[PS_KI_STEXT]);
		unlink(p);
		free(p);
	}
}

/* ---- source error paths ----------------------------------------------------------------- */

static void test_source_errors(void)
{
	char *err = NULL;
	static const char junk[64] = "this is not BTF at all, not even close to it.............";
	CHECK(!ps_btf_source_open(junk, sizeof(junk), "junk", &err) && err && strstr(err, "junk: "),
	      "junk BTF bytes: %s", err ? err : "(null)");
	free(err);
	err = NULL;
	CHECK(!ps_btf_source_open(junk, 3, "short", &err) && err, "short BTF");
	free(err);
	err = NULL;
	/* A BTF header whose sections point past the end. */
	unsigned char hdr[32] = { 0x9f, 0xeb, 1, 0, 24, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0 };
	CHECK(!ps_btf_source_open(hdr, sizeof(hdr), "hdr", &err) && err, "BTF with bad sections");
	free(err);
	err = NULL;

	char *zst;
	if (asprintf(&zst, "%s/tests/fixtures/data/x86_64/vmlinux.btf.zst", root_dir()) < 0)
		abort();
	if (access(zst, R_OK) == 0) {
		CHECK(!ps_btf_source_open_file(zst, &err) && err && strstr(err, "decompress"),
		      "compressed BTF file: %s", err ? err : "(null)");
		free(err);
		err = NULL;
		CHECK(!ps_dwarf_source_open(zst, &err) && err && strstr(err, "not an ELF"),
		      "DWARF from a non-ELF: %s", err ? err : "(null)");
		free(err);
		err = NULL;
	}
	free(zst);
	CHECK(!ps_btf_source_open_file("/nonexistent/vmlinux.btf", &err) && err &&
		      strstr(err, "cannot open"),
	      "missing BTF file");
	free(err);
	err = NULL;
	/* An ELF without DWARF: this test binary may have it, /bin/sh (stripped) does not. */
	struct ps_dwarf_source *d = ps_dwarf_source_open("/bin/sh", &err);
	if (d) {
		ps_dwarf_source_close(d);
	} else {
		CHECK(err && strstr(err, "/bin/sh: "), "stripped ELF: %s", err ? err : "(null)");
	}
	free(err);
	err = NULL;
	CHECK(!ps_dwarf_source_open("/nonexistent/vmlinux", &err) && err && strstr(err, "cannot open"),
	      "missing vmlinux");
	free(err);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 2;
	}
	test_table();
	int sources = 0;
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
		sources += test_fixture(fixtures[i]);
	test_profiles();
	test_system_map();
	test_source_errors();
	rmdir(tmpdir);
	int status = check_summary("test_typeinfo");
	if (!sources && !n_failed) {
		printf("SKIP: no fixture BTF (neither zstd nor %s/fixtures/unpacked)\n", cache_dir());
		return 77;
	}
	return status;
}
