/* test_render.c - the renderers (analyzer/render_*.c) against exact expected output.
 *
 * Text, CSV and JSON are compared byte for byte with the strings below. SVG and HTML are
 * checked for well-formedness (a built-in XML checker, plus `xmllint --noout` when the
 * libxml2-utils package is installed), valid UTF-8, escaping, and the presence of every table.
 * Uses only the public API of analyzer/table.h. Prints "FAIL: ..." and exits 1 on failure.
 */
#include "table.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("FAIL: ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	failures++;
}

/* ---- building reports ----------------------------------------------------------------- */

static void set_identity(struct report *r)
{
	r->source = strdup("test");
	r->arch = strdup("x86_64");
	r->release = strdup("6.1.0-27-cloud-amd64");
	r->dump = strdup("example");
	r->time = strdup("2026-11-21T07:00:00Z");
	r->excluded = strdup("none");
	r->page_size = 4096;
	r->snapshot_seq = 0;
	r->snapshots = 1;
}

enum { G_PID, G_COMM, G_ADDR, G_RATIO, G_DELTA, G_NCOLS };

/* Two processes; the second has a path with a comma and quotes and no address (CELL_NONE). */
static struct table *grid_table(void)
{
	static const struct column cols[G_NCOLS] = {
		{ "pid", "PID", CELL_U64, false },
		{ "comm", "COMMAND", CELL_STR, false },
		{ "addr", "ADDR", CELL_U64, true },
		{ "ratio", "RATIO", CELL_F64, false },
		{ "delta", "DELTA", CELL_I64, false },
	};
	struct table *t = table_new("procs", "Processes", STYLE_GRID, G_NCOLS, cols);
	size_t r = table_add_row(t);
	table_set_u64(t, r, G_PID, 100);
	table_set_str(t, r, G_COMM, "app");
	table_set_u64(t, r, G_ADDR, 0x400000);
	table_set_f64(t, r, G_RATIO, 0.5);
	table_set_i64(t, r, G_DELTA, -3);
	r = table_add_row(t);
	table_set_u64(t, r, G_PID, 2000);
	table_set_str(t, r, G_COMM, "/opt/a,b \"c\"");
	table_set_f64(t, r, G_RATIO, 0.1);
	table_set_i64(t, r, G_DELTA, 42);
	table_set_note(t, "one process is a test");
	return t;
}

/* Two groups; the first has a unit path with "<&", a line of every map character and a
 * collapsed row standing for 3 empty lines. */
static struct table *map_table(void)
{
	static const struct {
		const char *group, *vma, *flags, *kind, *unit;
		uint64_t offset;
		const char *map;
		uint64_t skip;
	} rows[] = {
		{ "pid 100 app", "400000-402000", "X r-x", "text", "/bin/<&app", 0, "11", 0 },
		{ "pid 100 app", "7f0000000000-7f0000100000", "rw-p", "anon", "", 0,
		  "11..##  ?s1234567891111111111111111111111111111111111111111111111", 0 },
		{ "pid 100 app", "7f0000000000-7f0000100000", "rw-p", "anon", "", 0x40, "", 3 },
		{ "pid 100 app", "7f0000000000-7f0000100000", "rw-p", "anon", "", 0x100, "..1", 0 },
		{ "pid 200 db", "400000-401000", "X r-x", "text", "/bin/db", 0, "2", 0 },
	};
	struct table *t = table_new_map("resmap", "Resident map");
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		size_t r = table_add_row(t);
		table_set_str(t, r, MAP_COL_GROUP, rows[i].group);
		table_set_str(t, r, MAP_COL_VMA, rows[i].vma);
		table_set_str(t, r, MAP_COL_FLAGS, rows[i].flags);
		table_set_str(t, r, MAP_COL_KIND, rows[i].kind);
		table_set_str(t, r, MAP_COL_UNIT, rows[i].unit);
		table_set_u64(t, r, MAP_COL_OFFSET, rows[i].offset);
		table_set_str(t, r, MAP_COL_MAP, rows[i].map);
		table_set_u64(t, r, MAP_COL_SKIP, rows[i].skip);
	}
	return t;
}

/* Per-process pages by memory type, with a chart; process names that need escaping. */
static struct table *chart_table(size_t nrows)
{
	static const struct column cols[] = {
		{ "comm", "COMMAND", CELL_STR, false },
		{ "text_virt", "text_virt", CELL_U64, false }, { "text_phys", "text_phys", CELL_U64, false },
		{ "heap_virt", "heap_virt", CELL_U64, false }, { "heap_phys", "heap_phys", CELL_U64, false },
	};
	struct table *t = table_new("summary", "Summary <&> \"pages\"", STYLE_GRID, 5, cols);
	for (size_t i = 0; i < nrows; i++) {
		size_t r = table_add_row(t);
		char name[64];
		snprintf(name, sizeof name, "proc<&%zu>", i);
		table_set_str(t, r, 0, name);
		table_set_u64(t, r, 1, 100 + i);
		table_set_u64(t, r, 2, 50 + i);
		table_set_u64(t, r, 3, 1000 * i);
		/* heap_phys stays CELL_NONE: counts as 0 */
	}
	t->chart = calloc(1, sizeof *t->chart);
	t->chart->title = "Pages per process <virtual & physical>";
	t->chart->unit = "pages";
	t->chart->label_col = 0;
	t->chart->nseries = 2;
	t->chart->series[0] = (struct chart_series){ "text", 1, 2 };
	t->chart->series[1] = (struct chart_series){ "heap_bss", 3, 4 };
	return t;
}

/* ---- running renderers ---------------------------------------------------------------- */

typedef int (*report_renderer)(const struct report *, FILE *);

static char *render(report_renderer fn, const struct report *r, const char *what)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f) {
		fail("%s: open_memstream: %s", what, strerror(errno));
		return strdup("");
	}
	int rc = fn(r, f);
	fclose(f);
	if (rc != 0)
		fail("%s: renderer returned %d", what, rc);
	if (strlen(buf) != len)
		fail("%s: output contains a NUL byte", what);
	return buf;
}

static void expect_equal(const char *what, const char *got, const char *want)
{
	if (strcmp(got, want) == 0)
		return;
	size_t i = 0, line = 1;
	for (; got[i] && got[i] == want[i]; i++)
		line += got[i] == '\n';
	fail("%s: output differs at byte %zu (line %zu)\n--- expected:\n%s--- got:\n%s---", what, i,
	     line, want, got);
}

static void expect_contains(const char *what, const char *doc, const char *needle)
{
	if (!strstr(doc, needle))
		fail("%s: does not contain \"%s\"", what, needle);
}

static void expect_absent(const char *what, const char *doc, const char *needle)
{
	if (strstr(doc, needle))
		fail("%s: contains \"%s\"", what, needle);
}

static size_t count(const char *doc, const char *needle)
{
	size_t n = 0;
	for (const char *p = doc; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* ---- well-formedness ------------------------------------------------------------------ */

static bool valid_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		size_t n;
		unsigned cp;
		if (*p < 0x80) {
			p++;
			continue;
		} else if ((*p & 0xe0) == 0xc0) {
			n = 1, cp = *p & 0x1f;
		} else if ((*p & 0xf0) == 0xe0) {
			n = 2, cp = *p & 0x0f;
		} else if ((*p & 0xf8) == 0xf0) {
			n = 3, cp = *p & 0x07;
		} else {
			return false;
		}
		for (size_t i = 1; i <= n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (p[i] & 0x3f);
		}
		static const unsigned min[4] = { 0, 0x80, 0x800, 0x10000 };
		if (cp < min[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		p += n + 1;
	}
	return true;
}

/* An '&' must start one of the references the renderers write. */
static bool valid_reference(const char *p)
{
	static const char *const names[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&#39;" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (strncmp(p, names[i], strlen(names[i])) == 0)
			return true;
	if (strncmp(p, "&#x", 3) != 0)
		return false;
	size_t n = strspn(p + 3, "0123456789abcdefABCDEF");
	return n > 0 && p[3 + n] == ';';
}

/* A small XML well-formedness check: balanced tags, quoted attributes, valid references,
 * no '<' in text. Returns NULL or a description of the first problem. */
static const char *check_xml(const char *doc, char *err, size_t errlen)
{
	const char *stack[512];
	size_t depth = 0, elements = 0;
	const char *p = doc;
	while (*p) {
		if (*p == '&') {
			if (!valid_reference(p)) {
				snprintf(err, errlen, "bad reference at byte %zu: %.20s", (size_t)(p - doc), p);
				return err;
			}
			p++;
			continue;
		}
		if (*p != '<') {
			p++;
			continue;
		}
		const char *skip_to = NULL;
		if (strncmp(p, "<!--", 4) == 0)
			skip_to = "-->";
		else if (strncmp(p, "<![CDATA[", 9) == 0)
			skip_to = "]]>";
		else if (p[1] == '?')
			skip_to = "?>";
		else if (p[1] == '!')
			skip_to = ">";
		if (skip_to) {
			const char *end = strstr(p + 2, skip_to);
			if (!end) {
				snprintf(err, errlen, "unterminated <%.8s", p + 1);
				return err;
			}
			p = end + strlen(skip_to);
			continue;
		}
		bool closing = p[1] == '/';
		const char *name = p + 1 + closing;
		size_t nlen = strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:-_");
		if (nlen == 0) {
			snprintf(err, errlen, "'<' in text at byte %zu: %.20s", (size_t)(p - doc), p);
			return err;
		}
		const char *q = name + nlen;
		char quote = 0;
		for (; *q && (quote || *q != '>'); q++) {
			if (quote && *q == quote)
				quote = 0;
			else if (!quote && (*q == '"' || *q == '\''))
				quote = *q;
			else if (quote && *q == '<') {
				snprintf(err, errlen, "'<' in attribute at byte %zu", (size_t)(q - doc));
				return err;
			} else if (quote && *q == '&' && !valid_reference(q)) {
				snprintf(err, errlen, "bad reference in attribute at byte %zu", (size_t)(q - doc));
				return err;
			} else if (!quote && *q == '=' && q[1] != '"' && q[1] != '\'') {
				snprintf(err, errlen, "unquoted attribute at byte %zu", (size_t)(q - doc));
				return err;
			}
		}
		if (!*q) {
			snprintf(err, errlen, "unterminated tag <%.*s", (int)nlen, name);
			return err;
		}
		bool self_closing = q[-1] == '/';
		if (closing) {
			if (depth == 0 || strncmp(stack[depth - 1], name, nlen) != 0 ||
			    strspn(stack[depth - 1], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:-_") != nlen) {
				snprintf(err, errlen, "</%.*s> at byte %zu does not close the open element",
					 (int)nlen, name, (size_t)(p - doc));
				return err;
			}
			depth--;
		} else if (!self_closing) {
			if (depth == sizeof stack / sizeof *stack) {
				snprintf(err, errlen, "nesting too deep");
				return err;
			}
			stack[depth++] = name;
			elements++;
		} else {
			elements++;
		}
		p = q + 1;
	}
	if (depth) {
		snprintf(err, errlen, "%zu unclosed elements, innermost <%.10s", depth, stack[depth - 1]);
		return err;
	}
	if (!elements) {
		snprintf(err, errlen, "no elements");
		return err;
	}
	return NULL;
}

/* xmllint (Debian package libxml2-utils) if it is installed: 1 ok, 0 fails, -1 absent. */
static int xmllint_ok(const char *doc, const char *what)
{
	static int available = -1;
	if (available < 0)
		available = system("xmllint --version >/dev/null 2>&1") == 0;
	if (!available)
		return -1;
	char path[] = "/tmp/test_render_XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0) {
		fail("%s: mkstemp: %s", what, strerror(errno));
		return 0;
	}
	FILE *f = fdopen(fd, "w");
	fputs(doc, f);
	fclose(f);
	char cmd[160];
	snprintf(cmd, sizeof cmd, "xmllint --noout %s 2>%s.err", path, path);
	int rc = system(cmd);
	if (rc != 0) { /* show the first complaints only: one bad escape repeats a thousand times */
		fflush(stdout);
		snprintf(cmd, sizeof cmd, "head -n 6 %s.err", path);
		if (system(cmd) != 0)
			printf("(xmllint said nothing)\n");
	}
	unlink(path);
	snprintf(cmd, sizeof cmd, "%s.err", path);
	unlink(cmd);
	return rc == 0;
}

static void expect_well_formed(const char *what, const char *doc)
{
	char err[256];
	if (check_xml(doc, err, sizeof err))
		fail("%s: not well-formed: %s", what, err);
	if (!valid_utf8(doc))
		fail("%s: not valid UTF-8", what);
	if (xmllint_ok(doc, what) == 0)
		fail("%s: xmllint --noout rejects it", what);
}

/* ---- the tests ------------------------------------------------------------------------ */

static void build_full_report(struct report *r)
{
	memset(r, 0, sizeof *r);
	set_identity(r);
	report_add(r, grid_table());
	report_add(r, map_table());
	report_set_partial(r, "snapshot 0 has no end line");
	report_set_partial(r, "2 page tables unreadable");
	r->warnings = strdup("unknown tag 'foo' (line 12)\n");
}

static void test_text(void)
{
	struct report r;
	build_full_report(&r);
	char *got = render(render_text, &r, "text");
	expect_equal("text: full report", got,
		"pagesleuth report\n"
		"source:    test\n"
		"arch:      x86_64\n"
		"release:   6.1.0-27-cloud-amd64\n"
		"dump:      example\n"
		"time:      2026-11-21T07:00:00Z\n"
		"page size: 4096\n"
		"snapshot:  0 (1 in input)\n"
		"excluded:  none\n"
		"\n"
		"PARTIAL: the input was incomplete; the numbers below are NOT complete.\n"
		"  snapshot 0 has no end line\n"
		"  2 page tables unreadable\n"
		"\n"
		"warnings:\n"
		"  unknown tag 'foo' (line 12)\n"
		"\n"
		"Processes\n"
		"=========\n"
		"one process is a test\n"
		" PID  COMMAND         ADDR  RATIO  DELTA\n"
		"----  ------------  ------  -----  -----\n"
		" 100  app           400000   0.50     -3\n"
		"2000  /opt/a,b \"c\"       -   0.10     42\n"
		"\n"
		"Resident map\n"
		"============\n"
		"[pid 100 app]\n"
		"  VMA 400000-402000  X r-x  text  /bin/<&app\n"
		"      0  11\n"
		"  VMA 7f0000000000-7f0000100000  rw-p  anon\n"
		"      0  11..##  ?s1234567891111111111111111111111111111111111111111111111\n"
		"    ... 3 empty lines (192 pages)\n"
		"    100  ..1\n"
		"\n"
		"[pid 200 db]\n"
		"  VMA 400000-401000  X r-x  text  /bin/db\n"
		"    0  2\n");
	free(got);
	report_free(&r);

	/* No identity, hostile strings, an empty table. */
	memset(&r, 0, sizeof r);
	static const struct column cols[] = { { "name", "NAME", CELL_STR, false },
					      { "n", "N", CELL_U64, false } };
	struct table *t = table_new("esc", "Escapes", STYLE_GRID, 2, cols);
	size_t row = table_add_row(t);
	table_set_str(t, row, 0, "\x1b[31mred");
	table_set_u64(t, row, 1, 1);
	row = table_add_row(t);
	table_set_str(t, row, 0, "bad\xff" "byte\xc2\x9b");
	table_set_u64(t, row, 1, 12345);
	report_add(&r, t);
	report_add(&r, table_new("empty", "Empty", STYLE_GRID, 2, cols));
	got = render(render_text, &r, "text");
	expect_equal("text: escapes", got,
		"pagesleuth report\n"
		"source:    -\n"
		"arch:      -\n"
		"release:   -\n"
		"dump:      -\n"
		"time:      -\n"
		"page size: 0\n"
		"snapshot:  none (trace records only: the page analyses have nothing to show)\n"
		"excluded:  -\n"
		"\n"
		"Escapes\n"
		"=======\n"
		"NAME                     N\n"
		"-------------------  -----\n"
		"\\x1b[31mred              1\n"
		"bad\\xffbyte\\xc2\\x9b  12345\n"
		"\n"
		"Empty\n"
		"=====\n"
		"NAME  N\n"
		"----  -\n"
		"(no rows)\n");
	free(got);
	report_free(&r);
}

static void test_csv(void)
{
	/* One table: no "# table:" line. */
	struct report r = { 0 };
	set_identity(&r);
	struct table *t = grid_table();
	size_t row = table_add_row(t);
	table_set_u64(t, row, G_PID, 1);
	table_set_str(t, row, G_COMM, "two\nlines");
	table_set_u64(t, row, G_ADDR, 0xffffffffffffffffu);
	table_set_f64(t, row, G_RATIO, 1.0 / 3.0);
	row = table_add_row(t);
	table_set_str(t, row, G_PID, "#not a comment");
	report_add(&r, t);
	char *got = render(render_csv, &r, "csv");
	expect_equal("csv: one table", got,
		"pid,comm,addr,ratio,delta\n"
		"100,app,400000,0.5,-3\n"
		"2000,\"/opt/a,b \"\"c\"\"\",,0.1,42\n"
		"1,\"two\nlines\",ffffffffffffffff,0.3333333333333333,\n"
		"\"#not a comment\",,,,\n");
	free(got);
	report_free(&r);

	/* Several tables and a partial report. */
	build_full_report(&r);
	got = render(render_csv, &r, "csv");
	expect_equal("csv: partial, two tables", got,
		"# PARTIAL: snapshot 0 has no end line\n"
		"# PARTIAL: 2 page tables unreadable\n"
		"# table: procs\n"
		"pid,comm,addr,ratio,delta\n"
		"100,app,400000,0.5,-3\n"
		"2000,\"/opt/a,b \"\"c\"\"\",,0.1,42\n"
		"\n"
		"# table: resmap\n"
		"group,vma,flags,kind,unit,offset,map,skip\n"
		"pid 100 app,400000-402000,X r-x,text,/bin/<&app,0,11,0\n"
		"pid 100 app,7f0000000000-7f0000100000,rw-p,anon,,0,"
		"11..##  ?s1234567891111111111111111111111111111111111111111111111,0\n"
		"pid 100 app,7f0000000000-7f0000100000,rw-p,anon,,40,,3\n"
		"pid 100 app,7f0000000000-7f0000100000,rw-p,anon,,100,..1,0\n"
		"pid 200 db,400000-401000,X r-x,text,/bin/db,0,2,0\n");
	free(got);
	report_free(&r);
}

static void test_json(void)
{
	struct report r = { 0 };
	r.source = strdup("a\"b\\c");
	r.page_size = 65536;
	r.snapshot_seq = 2;
	r.snapshots = 3;
	r.warnings = strdup("tab\there\n\nbell\a\n");
	report_set_partial(&r, "pid 7 gone");
	static const struct column cols[] = {
		{ "s", "String", CELL_STR, false }, { "u", "U", CELL_U64, false },
		{ "i", "I", CELL_I64, false },      { "f", "F", CELL_F64, false },
		{ "addr", "Address", CELL_U64, true },
	};
	struct table *t = table_new("esc", "Escapes \"json\"", STYLE_GRID, 5, cols);
	size_t row = table_add_row(t);
	table_set_str(t, row, 0, "ctl\x01\t\n\x7f");
	table_set_u64(t, row, 1, UINT64_C(9007199254740992)); /* 2^53: still a number */
	table_set_i64(t, row, 2, INT64_MIN);
	table_set_f64(t, row, 3, NAN);
	table_set_u64(t, row, 4, UINT64_C(0xffffffffffffffff));
	row = table_add_row(t);
	table_set_str(t, row, 0, "caf\xc3\xa9 \xff end");
	table_set_u64(t, row, 1, UINT64_C(9007199254740993));
	table_set_i64(t, row, 2, -5);
	table_set_f64(t, row, 3, 1e-7);
	row = table_add_row(t);
	table_set_str(t, row, 0, "\xed\xa0\x80"); /* an encoded surrogate is not UTF-8 */
	table_set_u64(t, row, 1, 0);
	table_set_i64(t, row, 2, -9007199254740992);
	table_set_f64(t, row, 3, -INFINITY);
	table_set_u64(t, row, 4, 0x10);
	t->chart = calloc(1, sizeof *t->chart);
	t->chart->title = "C";
	t->chart->unit = "pages";
	t->chart->label_col = 0;
	t->chart->nseries = 1;
	t->chart->series[0] = (struct chart_series){ "text", 1, 1 };
	report_add(&r, t);
	report_add(&r, table_new("none", "No columns", STYLE_GRID, 0, NULL));
	char *got = render(render_json, &r, "json");
	expect_equal("json", got,
		"{\n"
		"  \"format\": \"pagesleuth-report\",\n"
		"  \"version\": 1,\n"
		"  \"source\": \"a\\\"b\\\\c\",\n"
		"  \"arch\": null,\n"
		"  \"release\": null,\n"
		"  \"dump\": null,\n"
		"  \"time\": null,\n"
		"  \"excluded\": null,\n"
		"  \"page_size\": 65536,\n"
		"  \"snapshot\": 2,\n"
		"  \"snapshots\": 3,\n"
		"  \"partial\": true,\n"
		"  \"partial_why\": [\"pid 7 gone\"],\n"
		"  \"warnings\": [\"tab\\u0009here\",\"bell\\u0007\"],\n"
		"  \"tables\": [\n"
		"    {\n"
		"      \"id\": \"esc\",\n"
		"      \"title\": \"Escapes \\\"json\\\"\",\n"
		"      \"note\": null,\n"
		"      \"style\": \"grid\",\n"
		"      \"columns\": [\n"
		"        {\"name\": \"s\", \"title\": \"String\", \"type\": \"str\", \"hex\": false, \"unit\": null},\n"
		"        {\"name\": \"u\", \"title\": \"U\", \"type\": \"u64\", \"hex\": false, \"unit\": null},\n"
		"        {\"name\": \"i\", \"title\": \"I\", \"type\": \"i64\", \"hex\": false, \"unit\": null},\n"
		"        {\"name\": \"f\", \"title\": \"F\", \"type\": \"f64\", \"hex\": false, \"unit\": null},\n"
		"        {\"name\": \"addr\", \"title\": \"Address\", \"type\": \"u64\", \"hex\": true, \"unit\": null}\n"
		"      ],\n"
		"      \"chart\": {\"title\":\"C\",\"unit\":\"pages\",\"label_col\":0,"
		"\"series\":[{\"name\":\"text\",\"virt_col\":1,\"phys_col\":1}]},\n"
		"      \"rows\": [\n"
		"        [\"ctl\\u0001\\u0009\\u000a\\u007f\", 9007199254740992, \"-9223372036854775808\", null, \"18446744073709551615\"],\n"
		"        [\"caf\xc3\xa9 \\u00ff end\", \"9007199254740993\", -5, 1e-07, null],\n"
		"        [\"\\u00ed\\u00a0\\u0080\", 0, -9007199254740992, null, 16]\n"
		"      ]\n"
		"    },\n"
		"    {\n"
		"      \"id\": \"none\",\n"
		"      \"title\": \"No columns\",\n"
		"      \"note\": null,\n"
		"      \"style\": \"grid\",\n"
		"      \"columns\": [],\n"
		"      \"chart\": null,\n"
		"      \"rows\": []\n"
		"    }\n"
		"  ]\n"
		"}\n");
	if (!valid_utf8(got))
		fail("json: not valid UTF-8");
	free(got);
	report_free(&r);

	memset(&r, 0, sizeof r);
	got = render(render_json, &r, "json");
	expect_equal("json: empty report", got,
		"{\n  \"format\": \"pagesleuth-report\",\n  \"version\": 1,\n  \"source\": null,\n"
		"  \"arch\": null,\n  \"release\": null,\n  \"dump\": null,\n  \"time\": null,\n"
		"  \"excluded\": null,\n  \"page_size\": 0,\n  \"snapshot\": 0,\n  \"snapshots\": 0,\n"
		"  \"partial\": false,\n  \"partial_why\": [],\n  \"warnings\": [],\n  \"tables\": []\n}\n");
	free(got);
}

/* first = the first row of a map group, or SIZE_MAX for the table's chart. */
static char *render_svg_to_string(const struct table *t, size_t first, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	*rc = first != SIZE_MAX ? render_map_svg(t, first, 4096, f) : render_chart_svg(t, f);
	fclose(f);
	return buf;
}

static void test_svg(void)
{
	int rc;
	struct table *chart = chart_table(3);
	char *svg = render_svg_to_string(chart, SIZE_MAX, &rc);
	if (rc != 0)
		fail("chart svg: returned %d", rc);
	expect_well_formed("chart svg", svg);
	expect_contains("chart svg", svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ");
	expect_contains("chart svg", svg, "Pages per process &lt;virtual &amp; physical&gt;");
	expect_contains("chart svg", svg, "proc&lt;&amp;2&gt;");
	expect_absent("chart svg", svg, "<&");
	/* 3 rows: 3 virtual text + 2 virtual heap (row 0 has none) + 3 physical text segments */
	if (count(svg, "</rect>") != 8)
		fail("chart svg: %zu bar segments, expected 8", count(svg, "</rect>"));
	/* same series, same colour, in the legend and the bars */
	if (count(svg, "fill=\"#4e79a7\"") != 1 + 6)
		fail("chart svg: text series colour used %zu times", count(svg, "fill=\"#4e79a7\""));
	free(svg);
	table_free(chart);

	chart = chart_table(200); /* one bar a row, as wide as ever */
	svg = render_svg_to_string(chart, SIZE_MAX, &rc);
	expect_well_formed("chart svg, 200 rows", svg);
	expect_contains("chart svg, 200 rows", svg, "width=\"1090\"");
	if (count(svg, "<g class=\"bar\">") != 200)
		fail("chart svg, 200 rows: %zu bars", count(svg, "<g class=\"bar\">"));
	chart->chart->max_rows = 25; /* the 25 with the most physical pages, largest first */
	free(svg);
	svg = render_svg_to_string(chart, SIZE_MAX, &rc);
	if (count(svg, "<g class=\"bar\">") != 25)
		fail("chart svg, 25 of 200 rows: %zu bars", count(svg, "<g class=\"bar\">"));
	expect_contains("chart svg, 25 of 200 rows", svg, ": the 25 largest of 200</title>");
	free(svg);
	table_free(chart);

	chart = chart_table(0);
	svg = render_svg_to_string(chart, SIZE_MAX, &rc);
	expect_well_formed("chart svg, no rows", svg);
	free(svg);
	free(chart->chart);
	chart->chart = NULL;
	svg = render_svg_to_string(chart, SIZE_MAX, &rc);
	if (rc != -1 || errno != EINVAL || *svg)
		fail("chart svg without a chart: rc %d, output \"%s\"", rc, svg);
	free(svg);
	table_free(chart);

	struct table *map = map_table();
	size_t db_first = render_map_group_end(map, 0); /* "pid 100 app" starts at row 0 */
	svg = render_svg_to_string(map, 0, &rc);
	if (rc != 0)
		fail("map svg: returned %d", rc);
	expect_well_formed("map svg", svg);
	expect_contains("map svg", svg, "/bin/&lt;&amp;app");
	expect_absent("map svg", svg, "<&");
	/* the first VMA "11": 2 pages of 4 px, full height (both resident), colour '1' */
	expect_contains("map svg", svg, "<path fill=\"#b5de2b\" d=\"M470.00 48.00H478.00V58H470.00z\"/>");
	/* the second VMA: 64 + 3 x 64 (collapsed) + 3 = 259 pages squeezed into 640 px, a page
	 * 640/259 px: '#' at pages 4-5, '9' at page 18, '1' ... and at page 258 (the last); the
	 * first line's 65th character is past a line's 64 pages and not drawn */
	expect_contains("map svg", svg, "259 pages (1.0 MiB), 60 resident, 1 swapped</title>");
	expect_contains("map svg", svg, "<path fill=\"#d62728\" d=\"M479.88 61.00H484.83V71H479.88z\"/>");
	expect_contains("map svg", svg, "<path fill=\"#440154\" d=\"M514.48 61.00H516.95V71H514.48z\"/>");
	expect_contains("map svg", svg, "M1107.53 61.00H1110.00V71H1107.53z");
	/* the other group's rows are not in this picture */
	expect_absent("map svg", svg, "/bin/db");
	free(svg);
	svg = render_svg_to_string(map, map->nrows, &rc);
	if (rc != -1 || errno != EINVAL)
		fail("map svg of a row past the end: rc %d", rc);
	free(svg);

	char *db = render_svg_to_string(map, db_first, &rc);
	expect_contains("map svg, second group", db, "400000-401000  X r-x  text  /bin/db");
	expect_absent("map svg, second group", db, "/bin/&lt;&amp;app");
	if (render_map_group_end(map, db_first) != map->nrows)
		fail("map: the db group should run to the last row");
	free(db);

	/* n identical full lines of one character: one row, labelled, drawn in its colour. */
	size_t row = table_add_row(map);
	table_set_str(map, row, MAP_COL_GROUP, "pid 300 big");
	table_set_str(map, row, MAP_COL_VMA, "600000-a00000");
	table_set_u64(map, row, MAP_COL_OFFSET, 0);
	table_set_str(map, row, MAP_COL_MAP, "????????????????????????????????????????????????????????????????");
	table_set_u64(map, row, MAP_COL_SKIP, 16);
	svg = render_svg_to_string(map, row, &rc);
	expect_well_formed("map svg, uniform rows", svg);
	/* 1024 pages of '?': 2 pages a column, one full-width orange rectangle */
	expect_contains("map svg, uniform rows", svg, "1024 pages (4.0 MiB), 1024 resident; a column: 2 pages</title>");
	expect_contains("map svg, uniform rows", svg, "<path fill=\"#ff7f0e\" d=\"M470.00 48.00H1110.00V58H470.00z\"/>");
	free(svg);
	struct report rep = { 0 };
	report_add(&rep, map);
	char *text = NULL;
	size_t tlen = 0;
	FILE *f = open_memstream(&text, &tlen);
	render_text(&rep, f);
	fclose(f);
	expect_contains("text, uniform rows", text, "    ... 16 lines of '?' (1024 pages)\n");
	free(text);
	report_free(&rep); /* frees map */
}

static void test_html(void)
{
	struct report r;
	build_full_report(&r);
	report_add(&r, chart_table(5));
	free(r.dump);
	r.dump = strdup("dump<&>.vmcore");
	char *html = render(render_html, &r, "html");
	expect_well_formed("html", html);
	expect_contains("html", html, "<!DOCTYPE html>");
	expect_contains("html", html, "<strong>PARTIAL:</strong>");
	expect_contains("html", html, "<li>2 page tables unreadable</li>");
	expect_contains("html", html, "<title>pagesleuth report: dump&lt;&amp;&gt;.vmcore (PARTIAL)</title>");
	for (size_t i = 0; i < r.ntables; i++) {
		char needle[256];
		snprintf(needle, sizeof needle, "<section id=\"t-%s\">", r.tables[i]->id);
		expect_contains("html", html, needle);
		snprintf(needle, sizeof needle, "<a href=\"#t-%s\">", r.tables[i]->id);
		expect_contains("html", html, needle);
	}
	expect_contains("html", html, "<h2>Processes</h2>");
	expect_contains("html", html, "<h2>Resident map</h2>");
	expect_contains("html", html, "<h2>Summary &lt;&amp;&gt; &quot;pages&quot;</h2>");
	expect_contains("html", html, "<td>/opt/a,b &quot;c&quot;</td>");
	expect_contains("html", html, "/bin/&lt;&amp;app");
	expect_absent("html", html, "<&");
	/* one chart, one map per group, each map with its text form */
	if (count(html, "<svg ") != 3)
		fail("html: %zu svg images, expected 3", count(html, "<svg "));
	if (count(html, "<details>") != 2)
		fail("html: %zu <details>, expected 2", count(html, "<details>"));
	expect_contains("html", html, "    ... 3 empty lines (192 pages)\n");
	expect_absent("html", html, "<?xml"); /* inline SVG has no XML declaration */
	free(html);
	report_free(&r);
}

static void test_write_errors(void)
{
	static const struct {
		const char *name;
		report_renderer fn;
	} renderers[] = {
		{ "text", render_text }, { "csv", render_csv }, { "json", render_json },
		{ "html", render_html },
	};
	struct report r;
	build_full_report(&r);
	for (size_t i = 0; i < sizeof renderers / sizeof *renderers; i++) {
		FILE *full = fopen("/dev/full", "w");
		if (!full) {
			printf("note: no /dev/full, write errors not tested\n");
			break;
		}
		errno = 0;
		int rc = renderers[i].fn(&r, full);
		if (rc != -1 || errno == 0)
			fail("%s: writing to /dev/full returned %d (errno %d), expected -1", renderers[i].name,
			     rc, errno);
		fclose(full);
	}
	report_free(&r);
}


/* ---- line charts and trees (the trace analyses' tables) --------------------------------- */

/* A table with a line chart: n points of a flat series of 1 with one spike of 1000 at point
 * spike, a thin second series, a marker and a mark whose texts need escaping. */
static struct table *lines_table(size_t n, size_t spike)
{
	static const struct column cols[] = { { "tid", "TID", CELL_U64, false } };
	struct table *t = table_new("ws", "Working set", STYLE_GRID, 1, cols);
	table_set_u64(t, table_add_row(t), 0, 0);
	t->lines = line_chart_new("WSS <&> \"t\"", "instructions", "pages");
	struct line_series *s = line_chart_add_series(t->lines, "data", "data", false, n);
	for (size_t i = 0; i < n; i++)
		s->x[i] = (double)i * 1000, s->y[i] = i == spike ? 1000 : 1;
	s = line_chart_add_series(t->lines, "code <b>", "code", true, 2);
	s->x[0] = 0, s->y[0] = 5, s->x[1] = (double)(n - 1) * 1000, s->y[1] = 5;
	line_chart_add_marker(t->lines, (double)spike * 1000, 1000, "data", "peak <&> at fn \"x\"");
	line_chart_add_vline(t->lines, 500, "phase <1> & 'two'");
	return t;
}

/* The numbers of a path's d attribute: how many points it has. */
static size_t path_points(const char *svg, const char *stroke)
{
	char needle[64];
	snprintf(needle, sizeof needle, "stroke=\"%s\"", stroke);
	const char *p = strstr(svg, "<path");
	while (p && (!strstr(p, needle) || strstr(p, needle) > strchr(p, '>')))
		p = strstr(p + 1, "<path");
	if (!p)
		return 0;
	const char *d = strstr(p, " d=\"") + 4, *end = strchr(d, '"');
	size_t n = 0;
	for (; d < end; d++)
		n += *d == 'M' || *d == 'L';
	return n;
}

static void test_lines(void)
{
	struct table *t = lines_table(1000000, 777777);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc = render_lines_svg(t, f);
	fclose(f);
	if (rc != 0)
		fail("lines svg: returned %d", rc);
	expect_well_formed("lines svg", buf);
	expect_contains("lines svg", buf, "<title>WSS &lt;&amp;&gt; &quot;t&quot;</title>");
	expect_contains("lines svg", buf, "peak &lt;&amp;&gt; at fn &quot;x&quot;");
	expect_contains("lines svg", buf, "phase &lt;1&gt; &amp; &#39;two&#39;");
	expect_contains("lines svg", buf, "code &lt;b&gt;");
	expect_absent("lines svg", buf, "<&");
	/* a million points become at most 4 per pixel column of the 858 px plot ... */
	size_t pts = path_points(buf, "#f28e2b");
	if (pts == 0 || pts > 4 * 858)
		fail("lines svg: %zu points in the data path, expected 1..%d", pts, 4 * 858);
	/* ... and the one-sample spike still reaches the top of the plot: y axis 0..1000, the
	 * plot's top edge at y=64 (legend row at 36, 16 px, 12 px gap) */
	expect_contains("lines svg", buf, " 64.0L");
	expect_contains("lines svg", buf, "stroke-dasharray=\"4 3\""); /* the thin series */
	if (len > 200000)
		fail("lines svg: %zu bytes for a million points", len);
	free(buf);

	/* in the HTML report, after the table */
	struct report r = { 0 };
	set_identity(&r);
	report_add(&r, t);
	char *html = render(render_html, &r, "html lines");
	expect_well_formed("html lines", html);
	if (count(html, "<svg ") != 1)
		fail("html lines: %zu svg images, expected 1", count(html, "<svg "));
	free(html);
	report_free(&r); /* frees t */

	t = table_new("x", "No chart", STYLE_GRID, 0, NULL);
	f = open_memstream(&buf, &len);
	errno = 0;
	rc = render_lines_svg(t, f);
	fclose(f);
	if (rc != -1 || errno != EINVAL || *buf)
		fail("lines svg without a chart: rc %d", rc);
	free(buf);
	/* an empty series and a single point: no division by zero, still well-formed */
	t->lines = line_chart_new("empty", "s", "MB");
	line_chart_add_series(t->lines, "none", "data", false, 0);
	f = open_memstream(&buf, &len);
	render_lines_svg(t, f);
	fclose(f);
	expect_well_formed("lines svg, empty", buf);
	expect_contains("lines svg, empty", buf, "(no samples)");
	expect_absent("lines svg, empty", buf, "nan");
	expect_absent("lines svg, empty", buf, "inf");
	free(buf);
	table_free(t);

	/* One sample (a thread sampled once, a wss run of one interval): a path of a single
	 * "M" draws nothing, so the point is a dot. The x range is 0..1000 (time starts at 0),
	 * so x = 1000 is the last pixel column (78 + 857 + 0.5); y = 3 of a 0..3 axis is the
	 * plot's top (64). Before, the chart showed axes and no data at all. */
	t = table_new("ws", "One sample", STYLE_GRID, 0, NULL);
	t->lines = line_chart_new("one", "instructions", "pages");
	struct line_series *one = line_chart_add_series(t->lines, "data", "data", false, 1);
	one->x[0] = 1000, one->y[0] = 3;
	f = open_memstream(&buf, &len);
	render_lines_svg(t, f);
	fclose(f);
	expect_well_formed("lines svg, one point", buf);
	expect_contains("lines svg, one point", buf, "d=\"M935.5 64.0\"/>");
	expect_contains("lines svg, one point", buf, "<circle cx=\"935.5\" cy=\"64.0\" r=\"2\" fill=\"#f28e2b\"/>");
	free(buf);

	/* More peaks and marks than a chart keeps: the first ones are drawn, the rest counted
	 * and said. */
	for (int i = 0; i < LINE_CHART_MAX_MARKERS + 7; i++)
		line_chart_add_marker(t->lines, i, 1, "data", i < LINE_CHART_MAX_MARKERS ? "p" : NULL);
	for (int i = 0; i < LINE_CHART_MAX_VLINES + 3; i++)
		line_chart_add_vline(t->lines, i, "m");
	f = open_memstream(&buf, &len);
	render_lines_svg(t, f);
	fclose(f);
	expect_well_formed("lines svg, many peaks", buf);
	if (count(buf, "<title>p</title>") != LINE_CHART_MAX_MARKERS)
		fail("lines svg, many peaks: %zu peak dots", count(buf, "<title>p</title>"));
	expect_contains("lines svg, many peaks", buf, "drawn: the first 2000 of 2007 peaks and 500 of 503 marks");
	free(buf);
	table_free(t);
}

static void test_tree(void)
{
	static const struct column cols[] = { { "id", "ID", CELL_U64, false },
					      { "depth", "DEPTH", CELL_U64, false },
					      { "node", "NODE", CELL_STR, false },
					      { "bytes", "BYTES", CELL_U64, false } };
	struct table *t = table_new("alloc", "Tree", STYLE_GRID, 4, cols);
	t->tree = true, t->tree_label_col = 2, t->tree_depth_col = 1;
	static const struct { uint64_t id, depth; const char *node; uint64_t bytes; } rows[] = {
		{ 1, 0, "net", 300 }, { 2, 1, "net/tcp", 200 }, { 3, 2, "f <x>.c:5", 200 },
		{ 4, 1, "g", 100 }, { 5, 40, "deep", 1 },
	};
	for (size_t i = 0; i < 5; i++) {
		size_t row = table_add_row(t);
		table_set_u64(t, row, 0, rows[i].id);
		table_set_u64(t, row, 1, rows[i].depth);
		table_set_str(t, row, 2, rows[i].node);
		table_set_u64(t, row, 3, rows[i].bytes);
	}
	table_set_decimals(t, 0, 3); /* not a float column: no effect */
	struct report r = { 0 };
	set_identity(&r);
	report_add(&r, t);
	char *got = render(render_text, &r, "text tree");
	/* two spaces per level, at most 64 */
	/* NODE is 64 + 4 = 68 wide: depth 40 is indented 64 (the cap), then "deep" */
	const char *want =
		"Tree\n"
		"====\n"
		"ID  DEPTH  NODE                                                                  BYTES\n"
		"--  -----  --------------------------------------------------------------------  -----\n"
		" 1      0  net                                                                     300\n"
		" 2      1    net/tcp                                                               200\n"
		" 3      2      f <x>.c:5                                                           200\n"
		" 4      1    g                                                                     100\n"
		" 5     40                                                                  deep      1\n";
	const char *tree = strstr(got, "Tree\n");
	expect_equal("text tree", tree ? tree : got, want);
	free(got);
	got = render(render_csv, &r, "csv tree"); /* flat: no indentation */
	expect_equal("csv tree", got, "id,depth,node,bytes\n1,0,net,300\n2,1,net/tcp,200\n"
		     "3,2,f <x>.c:5,200\n4,1,g,100\n5,40,deep,1\n");
	free(got);
	got = render(render_html, &r, "html tree");
	expect_well_formed("html tree", got);
	expect_contains("html tree", got, "<td style=\"padding-left:2.4em\">f &lt;x&gt;.c:5</td>");
	/* a node with children has a fold triangle; every row its depth, for the tree sort */
	expect_contains("html tree", got, "<tr data-d=\"0\"><td class=\"n\">1</td>");
	expect_contains("html tree", got, "<td><span class=\"fold\" title=\"fold or unfold\">\xe2\x96\xbe </span>net</td>");
	expect_contains("html tree", got, "<table class=\"grid tree\">");
	free(got);
	report_free(&r);

	/* decimals: a float column shown with 3 digits in text, exactly in CSV */
	static const struct column fcols[] = { { "est_s", "Est(s)", CELL_F64, false } };
	t = table_new("wss", "Spans", STYLE_GRID, 1, fcols);
	table_set_f64(t, table_add_row(t), 0, 0.0125);
	table_set_decimals(t, 0, 3);
	memset(&r, 0, sizeof r);
	set_identity(&r);
	report_add(&r, t);
	got = render(render_text, &r, "text decimals");
	expect_contains("text decimals", got, "Est(s)\n------\n 0.013\n"); /* %.3f of 0.0125 */
	free(got);
	got = render(render_csv, &r, "csv decimals");
	expect_equal("csv decimals", got, "est_s\n0.0125\n");
	free(got);
	report_free(&r);
}

/* --units: one size table in the three conventions, every text line within 100 columns,
 * CSV and JSON exact whatever the units. The expected strings are worked out by hand:
 * 10443 pages of 4 KiB = 41772 KiB = 40.79 MiB; 1137 KiB = 284.25 pages = 1.11 MiB. */
static size_t longest_line(const char *s)
{
	size_t max = 0, n = 0;
	for (; *s; s++)
		if (*s == '\n')
			n = 0;
		else if (++n > max)
			max = n;
	return max;
}

static void test_units(void)
{
	static const struct column cols[] = {
		{ "name", "NAME", CELL_STR, COL_DEC }, { "user_pages", "USER", CELL_U64, COL_PAGES },
		{ "pss_kib", "PSS", CELL_U64, COL_KIB }, { "size_bytes", "SIZE", CELL_U64, COL_BYTES },
		{ "delta_kib", "DELTA", CELL_I64, COL_KIB }, { "zero_pages", "ZERO", CELL_U64, COL_PAGES },
	};
	static const char *const want[3] = {
		"NAME      USER      PSS     SIZE     DELTA  ZERO\n"
		"----  --------  -------  -------  --------  ----\n"
		"a     40.8 MiB  1.1 MiB  1.0 MiB  -4.0 KiB     0\n",
		"NAME   USER   PSS  SIZE  DELTA  ZERO\n"
		"----  -----  ----  ----  -----  ----\n"
		"a     41772  1137  1024     -4     0\n",
		"NAME   USER     PSS  SIZE  DELTA  ZERO\n"
		"----  -----  ------  ----  -----  ----\n"
		"a     10443  284.25   256     -1     0\n",
	};
	static const char *const title[3] = { "Sizes\n=====\n", "Sizes, in KiB\n=============\n",
					       "Sizes, in pages\n===============\n" };
	static const enum size_units units[3] = { UNITS_HUMAN, UNITS_KIB, UNITS_PAGES };
	char *csv0 = NULL, *json0 = NULL;
	for (int u = 0; u < 3; u++) {
		struct report r;
		memset(&r, 0, sizeof r);
		set_identity(&r);
		r.units = units[u];
		struct table *t = table_new("sizes", "Sizes", STYLE_GRID, 6, cols);
		size_t row = table_add_row(t);
		table_set_str(t, row, 0, "a");
		table_set_u64(t, row, 1, 10443);
		table_set_u64(t, row, 2, 1137);
		table_set_u64(t, row, 3, 1048576);
		table_set_i64(t, row, 4, -4);
		table_set_u64(t, row, 5, 0);
		report_add(&r, t);
		char *got = render(render_text, &r, "text units");
		char what[32];
		snprintf(what, sizeof what, "units %s", size_units_name(units[u]));
		expect_contains(what, got, title[u]);
		expect_contains(what, got, want[u]);
		free(got);
		char *csv = render(render_csv, &r, "csv units"), *json = render(render_json, &r, "json");
		if (!csv0) {
			csv0 = csv, json0 = json;
			expect_equal("csv units", csv, "name,user_pages,pss_kib,size_bytes,delta_kib,zero_pages\n"
				     "a,10443,1137,1048576,-4,0\n");
			expect_contains("json units", json, "\"name\": \"pss_kib\", \"title\": \"PSS\", "
					"\"type\": \"u64\", \"hex\": false, \"unit\": \"KiB\"}");
		} else {
			expect_equal("csv whatever the units", csv, csv0);
			expect_equal("json whatever the units", json, json0);
			free(csv), free(json);
		}
		report_free(&r);
	}
	free(csv0), free(json0);

	/* 100 columns: a long note wrapped, a long path shortened keeping its file name, a table
	 * of 20 size columns in blocks that repeat PID and COMMAND and keep X_V X_R together. */
	struct report r;
	memset(&r, 0, sizeof r);
	set_identity(&r);
	static const struct column pcols[] = { { "path", "PATH", CELL_STR, COL_DEC },
					       { "rss_kib", "RSS", CELL_U64, COL_KIB } };
	struct table *t = table_new("paths", "Paths", STYLE_GRID, 2, pcols);
	char path[200];
	memset(path, 'd', sizeof path);
	path[0] = '/';
	strcpy(path + 150, "/the-file-name.so");
	table_set_str(t, table_add_row(t), 0, path);
	table_set_u64(t, 0, 1, 4);
	table_set_note(t, "%s", "word word word word word word word word word word word word word "
		       "word word word word word word word word word word word word word word word "
		       "word word word word word word word word word word word word word word end");
	report_add(&r, t);
	struct column wide[22] = { { "pid", "PID", CELL_U64, COL_DEC },
				   { "comm", "COMMAND", CELL_STR, COL_DEC } };
	char names[20][16];
	for (int i = 0; i < 20; i++) {
		snprintf(names[i], sizeof names[i], "G%02d_%c", i / 2, i % 2 ? 'R' : 'V');
		wide[2 + i] = (struct column){ names[i], names[i], CELL_U64, COL_PAGES };
	}
	t = table_new("wide", "Wide", STYLE_GRID, 22, wide);
	size_t row = table_add_row(t);
	table_set_u64(t, row, 0, 42);
	table_set_str(t, row, 1, "app");
	for (int i = 0; i < 20; i++)
		table_set_u64(t, row, 2 + (size_t)i, 1000u + (unsigned)i); /* 3.9 MiB */
	report_add(&r, t);
	r.page_size = 4096;
	char *got = render(render_text, &r, "text 100 columns");
	if (longest_line(got) > 100)
		fail("text 100 columns: a line of %zu characters", longest_line(got));
	expect_contains("path shortened", got, "ddd...ddd");
	expect_contains("path keeps its file name", got, "d/the-file-name.so  4.0 KiB\n");
	expect_contains("note wrapped", got, "word end\n");
	for (int i = 0; i < 20; i++)
		expect_contains("every column shown", got, names[i]);
	if (!strstr(got, "\n\nPID  COMMAND"))
		fail("wide table: no second block repeating PID COMMAND");
	int blocks = 0;
	for (const char *h = strstr(got, "PID  COMMAND"); h; h = strstr(h + 1, "PID  COMMAND")) {
		const char *eol = strchr(h, '\n');
		blocks++;
		if (!eol || eol - h < 2 || eol[-1] != 'R' || eol[-2] != '_')
			fail("wide table: block %d ends inside a V/R pair: %.*s", blocks,
			     eol ? (int)(eol - h) : 20, h);
	}
	if (blocks < 2)
		fail("wide table: %d block(s)", blocks);
	free(got);
	report_free(&r);
}

int main(void)
{
	test_units();
	test_text();
	test_csv();
	test_json();
	test_svg();
	test_html();
	test_write_errors();
	test_lines();
	test_tree();
	if (system("xmllint --version >/dev/null 2>&1") != 0)
		printf("note: xmllint (Debian package libxml2-utils) not found: SVG/HTML checked by "
		       "the built-in checker only\n");
	if (failures) {
		printf("test_render: %d failure(s)\n", failures);
		return 1;
	}
	printf("test_render: ok\n");
	return 0;
}
