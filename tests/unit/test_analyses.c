/* test_analyses.c - the analyses (analyzer/an_*.c) against hand-computed figures.
 *
 * Each record file in tests/records is a small hand-written scenario; its comment block explains
 * the expected numbers. This test loads each with model_load, runs the analyses and checks
 * exact cell values, found by column name and by a key column. The expected values below are
 * computed by hand from docs/record-format.md and the comments at the top of each an_*.c
 * (the arithmetic is shown next to each), never copied from the program's output.
 *
 * Run from the repository root. Prints "FAIL: ..." per mismatch and a last line
 * "test_analyses: N checks, M failed"; exits non-zero if any check failed.
 */
#include "model.h"
#include "check.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- loading ------------------------------------------------------------------------------ */

struct loaded {
	struct model m;
	struct report r;
	bool ok;
};

/* Load PATH (snapshot: -1 = last) with resident maps and the page dump, and run every
 * analysis the report command can run on one model. */
static bool load_at(struct loaded *L, const char *path, int64_t snapshot, int line)
{
	memset(L, 0, sizeof *L);
	check_context = path;
	struct pages_dump *pages = an_pages_begin();
	struct model_options opt = { .keep_maps = true, .snapshot = snapshot,
				     .on_run = an_pages_on_run, .on_run_ctx = pages };
	char *err = NULL;
	if (!check_at(model_load(&L->m, path, &opt, &err) == 0, __FILE__, line, "model_load(%s): %s",
		      path, err ? err : "?")) {
		free(err);
		struct report tmp = { 0 };
		an_pages_finish(pages, &tmp);
		report_free(&tmp);
		return false;
	}
	model_describe(&L->m, &L->r);
	an_pages_finish(pages, &L->r);
	an_total(&L->m, &L->r);
	an_summary(&L->m, &L->r);
	an_pss(&L->m, &L->r);
	an_unit_totals(&L->m, &L->r);
	an_mixed(&L->m, &L->r);
	an_thrash(&L->m, &L->r);
	an_resmap(&L->m, &L->r);
	an_unitmap(&L->m, &L->r);
	L->ok = true;
	return true;
}
#define LOAD(L, path, snap) load_at((L), (path), (snap), __LINE__)

static void unload(struct loaded *L)
{
	if (L->ok) {
		report_free(&L->r);
		model_free(&L->m);
	}
	memset(L, 0, sizeof *L);
}

/* ---- table lookups ------------------------------------------------------------------------ */

static const struct table *tab_at(const struct report *r, const char *id, int line)
{
	const struct table *t = report_find(r, id);
	check_at(t != NULL, __FILE__, line, "no table '%s' in the report", id);
	return t;
}
#define TAB(r, id) tab_at((r), (id), __LINE__)

static long col_of(const struct table *t, const char *name)
{
	if (!t)
		return -1;
	for (size_t c = 0; c < t->ncols; c++)
		if (strcmp(t->cols[c].name, name) == 0)
			return (long)c;
	return -1;
}

/* Row whose column keycol holds the string key (or, for numeric columns, the number). */
static long row_s_at(const struct table *t, const char *keycol, const char *key, int line)
{
	long c = col_of(t, keycol);
	if (!check_at(c >= 0, __FILE__, line, "table %s: no column '%s'", t ? t->id : "(none)",
		      keycol))
		return -1;
	for (size_t r = 0; r < t->nrows; r++) {
		const struct cell *cl = table_cell_c(t, r, (size_t)c);
		if (cl->kind == CELL_STR && strcmp(cl->s, key) == 0)
			return (long)r;
	}
	check_at(false, __FILE__, line, "table %s: no row with %s = \"%s\"", t->id, keycol, key);
	return -1;
}
#define ROW_S(t, keycol, key) row_s_at((t), (keycol), (key), __LINE__)

static long row_u_at(const struct table *t, const char *keycol, uint64_t key, int line)
{
	long c = col_of(t, keycol);
	if (!check_at(c >= 0, __FILE__, line, "table %s: no column '%s'", t ? t->id : "(none)",
		      keycol))
		return -1;
	for (size_t r = 0; r < t->nrows; r++) {
		const struct cell *cl = table_cell_c(t, r, (size_t)c);
		if (cl->kind == CELL_U64 && cl->u == key)
			return (long)r;
	}
	check_at(false, __FILE__, line, "table %s: no row with %s = %llu", t->id, keycol,
		 (unsigned long long)key);
	return -1;
}
#define ROW_U(t, keycol, key) row_u_at((t), (keycol), (key), __LINE__)

static const struct cell *cell_at(const struct table *t, long row, const char *col, int line)
{
	if (!t || row < 0)
		return NULL; /* already reported */
	long c = col_of(t, col);
	if (!check_at(c >= 0, __FILE__, line, "table %s: no column '%s'", t->id, col))
		return NULL;
	if (!check_at((size_t)row < t->nrows, __FILE__, line, "table %s: row %ld out of %zu", t->id,
		      row, t->nrows))
		return NULL;
	return table_cell_c(t, (size_t)row, (size_t)c);
}

static void expect_u_at(const struct table *t, long row, const char *col, uint64_t want, int line)
{
	const struct cell *c = cell_at(t, row, col, line);
	if (!c)
		return;
	check_at(c->kind == CELL_U64 && c->u == want, __FILE__, line,
		 "table %s row %ld: %s = %s%llu, expected %llu",
		 t->id, row, col, c->kind == CELL_U64 ? "" : "(not u64) ",
		 (unsigned long long)(c->kind == CELL_U64 ? c->u : 0), (unsigned long long)want);
}

static void expect_i_at(const struct table *t, long row, const char *col, int64_t want, int line)
{
	const struct cell *c = cell_at(t, row, col, line);
	if (!c)
		return;
	check_at(c->kind == CELL_I64 && c->i == want, __FILE__, line,
		 "table %s row %ld: %s = %s%lld, expected %lld",
		 t->id, row, col, c->kind == CELL_I64 ? "" : "(not i64) ",
		 (long long)(c->kind == CELL_I64 ? c->i : 0), (long long)want);
}

static void expect_s_at(const struct table *t, long row, const char *col, const char *want, int line)
{
	const struct cell *c = cell_at(t, row, col, line);
	if (!c)
		return;
	check_at(c->kind == CELL_STR && strcmp(c->s, want) == 0, __FILE__, line,
		 "table %s row %ld: %s = \"%s\", expected \"%s\"", t->id, row, col,
		 c->kind == CELL_STR ? c->s : "(not a string)", want);
}

#define EXPECT_U(t, row, col, want) expect_u_at((t), (row), (col), (want), __LINE__)
#define EXPECT_I(t, row, col, want) expect_i_at((t), (row), (col), (want), __LINE__)
#define EXPECT_S(t, row, col, want) expect_s_at((t), (row), (col), (want), __LINE__)

/* Many unsigned cells of one row: EXPECT_ROW(t, row, {"col", value}, ...). */
struct ukv { const char *col; uint64_t v; };
static void expect_row_at(const struct table *t, long row, const struct ukv *kv, int line)
{
	for (; kv->col; kv++)
		expect_u_at(t, row, kv->col, kv->v, line);
}
#define EXPECT_ROW(t, row, ...) \
	expect_row_at((t), (row), (const struct ukv[]){ __VA_ARGS__, { NULL, 0 } }, __LINE__)

struct ikv { const char *col; int64_t v; };
static void expect_irow_at(const struct table *t, long row, const struct ikv *kv, int line)
{
	for (; kv->col; kv++)
		expect_i_at(t, row, kv->col, kv->v, line);
}
#define EXPECT_IROW(t, row, ...) \
	expect_irow_at((t), (row), (const struct ikv[]){ __VA_ARGS__, { NULL, 0 } }, __LINE__)

#define EXPECT_NROWS(t, n)                                                                    \
	do {                                                                                  \
		const struct table *t_ = (t);                                                 \
		if (t_)                                                                       \
			CHECK(t_->nrows == (size_t)(n), "table %s has %zu rows, expected %d", t_->id, \
			      t_->nrows, (int)(n));                                           \
	} while (0)

/* ---- resident-map rows -------------------------------------------------------------------- */

/* The rows of a STYLE_MAP table with the given group and VMA column, in order. */
static size_t map_rows(const struct table *t, const char *group, const char *vma, long *out, size_t max)
{
	size_t n = 0;
	if (!t)
		return 0;
	for (size_t r = 0; r < t->nrows; r++) {
		const struct cell *g = table_cell_c(t, r, MAP_COL_GROUP), *v = table_cell_c(t, r, MAP_COL_VMA);
		if (g->kind == CELL_STR && v->kind == CELL_STR && strcmp(g->s, group) == 0 &&
		    strcmp(v->s, vma) == 0) {
			if (n < max)
				out[n] = (long)r;
			n++;
		}
	}
	return n;
}

static char *rep(char ch, size_t n)
{
	static char bufs[8][128];
	static int k;
	char *b = bufs[k++ & 7];
	memset(b, ch, n);
	b[n] = '\0';
	return b;
}

/* Concatenate pieces (static buffer ring). */
static char *cat(const char *a, const char *b, const char *c)
{
	static char bufs[8][256];
	static int k;
	char *o = bufs[k++ & 7];
	snprintf(o, sizeof bufs[0], "%s%s%s", a, b ? b : "", c ? c : "");
	return o;
}

struct maprow { uint64_t offset; const char *map; uint64_t skip; };

/* The map rows of one VMA must be exactly `want` (offset, map string, skip count). */
static void expect_map_at(const struct table *t, const char *group, const char *vma,
			  const struct maprow *want, size_t nwant, const char *flags, int line)
{
	long rows[64];
	size_t n = map_rows(t, group, vma, rows, 64);
	if (!check_at(n == nwant, __FILE__, line, "map %s / %s: %zu rows, expected %zu", group, vma, n,
		      nwant))
		return;
	for (size_t i = 0; i < n; i++) {
		expect_u_at(t, rows[i], "offset", want[i].offset, line);
		expect_s_at(t, rows[i], "map", want[i].map, line);
		expect_u_at(t, rows[i], "skip", want[i].skip, line);
		if (flags)
			expect_s_at(t, rows[i], "flags", flags, line);
	}
}
#define EXPECT_MAP(t, group, vma, flags, ...)                                                      \
	expect_map_at((t), (group), (vma), (const struct maprow[]){ __VA_ARGS__ },                 \
		      sizeof((const struct maprow[]){ __VA_ARGS__ }) / sizeof(struct maprow), (flags), \
		      __LINE__)

/* ---- model lookups ------------------------------------------------------------------------ */

static const struct proc *proc_by_tgid(const struct model *m, uint64_t tgid)
{
	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].tgid == tgid)
			return &m->procs[i];
	return NULL;
}

static const struct vma_info *vma_by_start(const struct proc *p, uint64_t start)
{
	for (size_t j = 0; p && j < p->nvmas; j++)
		if (p->vmas[j].v.start == start)
			return &p->vmas[j];
	return NULL;
}

/* One page of mapcount 1 in PSS units (bytes << 12), and of mapcount n. */
#define PSS1 ((uint64_t)4096 << PS_PSS_SHIFT)
#define PSSN(n) (PSS1 / (n))

/* ---- scenarios ---------------------------------------------------------------------------- */

static void test_threads(void)
{
	struct loaded L;
	if (!LOAD(&L, "tests/records/threads.rec", -1))
		return;
	const struct model *m = &L.m;
	/* pid 2 is a kernel thread (mm=-): two processes, not three. */
	CHECK_U64(m->nprocs, 2);
	const struct proc *app = proc_by_tgid(m, 200), *single = proc_by_tgid(m, 210);
	if (CHECK(app != NULL, "no process 200")) {
		CHECK_U64(app->nthreads, 3);
		CHECK_U64(app->pid, 200);           /* lowest thread id */
		CHECK_U64(app->minflt, 60);         /* 10 + 20 + 30 */
		CHECK_U64(app->majflt, 6);          /* 1 + 2 + 3 */
		CHECK_U64(app->utime, 600);         /* 100 + 200 + 300 */
		CHECK_U64(app->rss_file, 2);        /* the leader's counters, not a thread's 9 */
		CHECK_U64(app->rss_anon, 1);
		CHECK(strcmp(app->comm, "app") == 0, "comm %s, expected app (the leader's)", app->comm);
	}
	if (CHECK(single != NULL, "no process 210")) {
		CHECK_U64(single->nthreads, 1);
		CHECK_U64(single->minflt, 8);
		CHECK_U64(single->majflt, 7);
	}
	const struct table *s = TAB(&L.r, "summary");
	EXPECT_NROWS(s, 2);
	long r = ROW_U(s, "pid", 200);
	EXPECT_S(s, r, "comm", "app");
	EXPECT_ROW(s, r, { "threads", 3 }, { "text_virt_pages", 2 }, { "text_res_pages", 2 }, { "vss_pages", 2 },
		   { "rss_pages", 2 });
	r = ROW_U(s, "pid", 210);
	EXPECT_ROW(s, r, { "threads", 1 }, { "text_virt_pages", 1 }, { "text_res_pages", 1 }, { "vss_pages", 1 },
		   { "rss_pages", 1 });
	CHECK(!L.r.partial, "threads.rec is complete, the report says partial");
	unload(&L);
}

static void test_kinds(void)
{
	struct loaded L;
	if (!LOAD(&L, "tests/records/kinds.rec", -1))
		return;
	CHECK(!L.r.partial, "kinds.rec is complete, the report says partial: %s",
	      L.r.partial_why ? L.r.partial_why : "");

	/* Summary: per group virt/phys (pages), see the table in kinds.rec. */
	const struct table *s = TAB(&L.r, "summary");
	EXPECT_NROWS(s, 1);
	long r = ROW_U(s, "pid", 300);
	EXPECT_S(s, r, "comm", "server");
	EXPECT_ROW(s, r, { "threads", 1 },
		   { "stack_virt_pages", 34 }, { "stack_res_pages", 3 },
		   { "heap_bss_virt_pages", 10 }, { "heap_bss_res_pages", 6 },   /* heap 8 + bss 2; 5 + 1 */
		   { "data_virt_pages", 1 }, { "data_res_pages", 1 },
		   { "text_virt_pages", 6 }, { "text_res_pages", 4 },           /* r-x 4 + r-- 2; 3 + 1 */
		   { "libdata_virt_pages", 3 }, { "libdata_res_pages", 1 },     /* libdata 1 + libbss 2 */
		   { "libtext_virt_pages", 5 }, { "libtext_res_pages", 5 },     /* r-x 4 + RELRO 1 */
		   { "anon_virt_pages", 256 }, { "anon_res_pages", 1 },
		   { "file_virt_pages", 20 }, { "file_res_pages", 3 },          /* font 16 + shm 4; 2 + 1 */
		   { "other_virt_pages", 2 }, { "other_res_pages", 1 },         /* vdso */
		   { "vss_pages", 337 }, { "rss_pages", 25 });

	/* PSS: 18*PSS1 + 4*PSSN(3) + 3*PSSN(2) = 349525332 -> 85333 B -> 83 KiB. */
	CHECK_U64(18 * PSS1 + 4 * PSSN(3) + 3 * PSSN(2), 349525332);
	const struct table *p = TAB(&L.r, "pss");
	r = ROW_U(p, "pid", 300);
	EXPECT_ROW(p, r, { "vss_kib", 1348 }, { "rss_kib", 100 }, { "pss_kib", 83 },
		   { "uss_kib", 72 }, { "swap_kib", 4 });

	/* librank: per object, KiB; ordered by PSS, ties by name. */
	const struct table *lr = TAB(&L.r, "librank");
	EXPECT_NROWS(lr, 8);
	r = ROW_S(lr, "object", "/usr/bin/server"); /* text 4 + 2, data 1 */
	EXPECT_ROW(lr, r, { "procs", 1 }, { "vss_kib", 28 }, { "rss_kib", 20 }, { "pss_kib", 20 }, { "uss_kib", 20 });
	r = ROW_S(lr, "object", "[anon]"); /* bss 2 + libbss 2 + anon 256 pages */
	EXPECT_ROW(lr, r, { "procs", 1 }, { "vss_kib", 1040 }, { "rss_kib", 8 }, { "pss_kib", 8 }, { "uss_kib", 8 });
	r = ROW_S(lr, "object", "[heap]");
	EXPECT_ROW(lr, r, { "procs", 1 }, { "vss_kib", 32 }, { "rss_kib", 20 }, { "pss_kib", 20 }, { "uss_kib", 20 });
	/* libc pss = 4*PSSN(3) + 2*PSS1 = 55924052 -> 13653 B -> 13 KiB; uss 2 pages */
	r = ROW_S(lr, "object", "/lib/libc.so.6");
	EXPECT_ROW(lr, r, { "procs", 1 }, { "vss_kib", 24 }, { "rss_kib", 24 }, { "pss_kib", 13 }, { "uss_kib", 8 });
	r = ROW_S(lr, "object", "/usr/share/fonts/x.ttf"); /* 2 pages / 2 = 4096 B */
	EXPECT_ROW(lr, r, { "procs", 1 }, { "vss_kib", 64 }, { "rss_kib", 8 }, { "pss_kib", 4 }, { "uss_kib", 0 });
	r = ROW_S(lr, "object", "/dev/shm/seg"); /* 1 page / 2 = 2048 B */
	EXPECT_ROW(lr, r, { "procs", 1 }, { "vss_kib", 16 }, { "rss_kib", 4 }, { "pss_kib", 2 }, { "uss_kib", 0 });
	r = ROW_S(lr, "object", "[vdso]");
	EXPECT_ROW(lr, r, { "procs", 1 }, { "vss_kib", 8 }, { "rss_kib", 4 }, { "pss_kib", 4 }, { "uss_kib", 4 });
	r = ROW_S(lr, "object", "[stack]");
	EXPECT_ROW(lr, r, { "procs", 1 }, { "vss_kib", 136 }, { "rss_kib", 12 }, { "pss_kib", 12 }, { "uss_kib", 12 });
	/* order: server (20480 B) = [heap] (20480 B), '/' < '[' ; ... ; shm (2048 B) last */
	EXPECT_S(lr, 0, "object", "/usr/bin/server");
	EXPECT_S(lr, 1, "object", "[heap]");
	EXPECT_S(lr, 7, "object", "/dev/shm/seg");

	/* Unit cost: heap, file and shmem mappings are not part of a unit's cost. */
	const struct table *uc = TAB(&L.r, "unit-cost");
	EXPECT_NROWS(uc, 2);
	r = ROW_S(uc, "unit", "/usr/bin/server"); /* 6 pages mapcount 1; file 4, anon 2 */
	EXPECT_ROW(uc, r, { "procs", 1 }, { "pss_kib", 24 }, { "clean_shared_kib", 16 }, { "private_cow_kib", 8 });
	r = ROW_S(uc, "unit", "/lib/libc.so.6"); /* file 4 pages, anon RELRO + data 2 */
	EXPECT_ROW(uc, r, { "procs", 1 }, { "pss_kib", 13 }, { "clean_shared_kib", 16 }, { "private_cow_kib", 8 });

	/* Units: file and shmem units are not executable units. */
	const struct table *u = TAB(&L.r, "units");
	EXPECT_NROWS(u, 2);
	r = ROW_S(u, "unit", "/usr/bin/server");
	EXPECT_ROW(u, r, { "procs", 1 }, { "text_virt_pages", 6 }, { "text_phys_pages", 4 }, { "data_virt_pages", 1 },
		   { "data_phys_pages", 1 }, { "heap_bss_virt_pages", 10 }, { "heap_bss_phys_pages", 6 }, { "total_virt_pages", 17 },
		   { "total_phys_pages", 11 });
	r = ROW_S(u, "unit", "/lib/libc.so.6");
	EXPECT_ROW(u, r, { "procs", 1 }, { "text_virt_pages", 5 }, { "text_phys_pages", 5 }, { "data_virt_pages", 1 },
		   { "data_phys_pages", 1 }, { "heap_bss_virt_pages", 2 }, { "heap_bss_phys_pages", 0 }, { "total_virt_pages", 8 },
		   { "total_phys_pages", 6 });

	/* Total: 25 distinct PFNs; 13 first seen anonymous. */
	const struct table *t = TAB(&L.r, "total");
	EXPECT_NROWS(t, 1);
	EXPECT_ROW(t, 0, { "user_pages", 25 }, { "anon_pages", 13 },
		   { "file_pages", 12 }, { "swapped_pages", 1 }, { "excluded_pages", 0 },
		   { "pfn_hidden_pages", 0 }, { "unknown_pages", 0 }, { "processes", 1 }, { "vmas", 14 });

	/* One snapshot: no thrashing rows, and a note saying why. */
	const struct table *th = TAB(&L.r, "thrash");
	EXPECT_NROWS(th, 0);
	if (th)
		CHECK(th->note != NULL, "thrash table of a single snapshot has no note");

	/* Resident maps. */
	const struct table *rm = TAB(&L.r, "resmap");
	const char *g = "pid 300 server";
	EXPECT_MAP(rm, g, "400000-404000", "X r-xp", { 0, "111.", 0 });
	EXPECT_MAP(rm, g, "603000-60b000", "XB rw-p", { 0, "11111s..", 0 });
	EXPECT_MAP(rm, g, "601000-603000", "XB rw-p", { 0, "1.", 0 });
	EXPECT_MAP(rm, g, "7f0000000000-7f0000004000", "r-xp", { 0, "3333", 0 });
	EXPECT_MAP(rm, g, "7f0000006000-7f0000008000", "B rw-p", { 0, "..", 0 });
	EXPECT_MAP(rm, g, "7f0000100000-7f0000110000", "r--p", { 0, cat("22", rep('.', 14), NULL), 0 });
	/* 256 pages, one resident at page 80: an empty line shown as dots (a single empty line
	 * is not collapsed), the line holding page 80, then two empty lines as one SKIP row. */
	EXPECT_MAP(rm, g, "7f0000200000-7f0000300000", "rw-p",
		   { 0, rep('.', 64), 0 }, { 64, cat(rep('.', 16), "1", rep('.', 47)), 0 },
		   { 128, "", 2 });
	/* stack: 34 pages, pages 31-33 resident */
	EXPECT_MAP(rm, g, "7ffffffdd000-7ffffffff000", "S rw-p", { 0, cat(rep('.', 31), "111", NULL), 0 });

	/* Unit maps: executable units only (libc, server), by name, all their VMAs. */
	const struct table *um = TAB(&L.r, "unitmap");
	EXPECT_NROWS(um, 11); /* libc union + 4 VMAs, server union + 5 (text, rodata, data, bss, heap) */
	/* the union: per file page (pgoff), in how many processes it is resident. libc: text
	 * pgoff 0-3 "3333", RELRO pgoff 4 "1", data pgoff 5 "1": each in the one process */
	EXPECT_MAP(um, "/lib/libc.so.6", "file pages 0-6 in 1 process", "", { 0, "111111", 0 });
	/* server: text pgoff 0-3 "111.", rodata 4-5 "1.", data pgoff 0 (this file's) "1" */
	EXPECT_MAP(um, "/usr/bin/server", "file pages 0-6 in 1 process", "", { 0, "111.1.", 0 });
	EXPECT_MAP(um, "/lib/libc.so.6", "pid 300 server 7f0000000000-7f0000004000", NULL, { 0, "3333", 0 });
	EXPECT_MAP(um, "/usr/bin/server", "pid 300 server 603000-60b000", NULL, { 0, "11111s..", 0 });
	if (um && um->nrows)
		EXPECT_S(um, 0, "group", "/lib/libc.so.6");
	unload(&L);
}

static void test_shared12(void)
{
	struct loaded L;
	if (!LOAD(&L, "tests/records/shared12.rec", -1))
		return;
	const struct model *m = &L.m;
	CHECK_U64(m->nprocs, 12);
	/* One mapcount-12 page: floor((4096 << 12) / 12) = 1398101, i.e. 341.33 bytes. */
	CHECK_U64(PSSN(12), 1398101);
	const struct proc *p1 = proc_by_tgid(m, 1001);
	const struct vma_info *lib = vma_by_start(p1, 0x7f0000000000);
	if (CHECK(lib != NULL, "w01 has no libshared VMA")) {
		CHECK_U64(lib->sum.pss, 4194303); /* 3 pages * 1398101 */
		CHECK_U64(lib->sum.shared, 3);
		CHECK_U64(lib->sum.single, 0);
	}

	const struct table *p = TAB(&L.r, "pss");
	EXPECT_NROWS(p, 12);
	/* each: 5*1398101 + 2*16777216 = 40544937 -> 9898 B -> 9 KiB */
	for (uint64_t pid = 1001; pid <= 1012; pid++) {
		long r = ROW_U(p, "pid", pid);
		EXPECT_ROW(p, r, { "vss_kib", 72 }, { "rss_kib", 28 }, { "pss_kib", 9 },
			   { "uss_kib", 8 }, { "swap_kib", 0 });
	}

	const struct table *lr = TAB(&L.r, "librank");
	EXPECT_NROWS(lr, 4);
	/* 12 * 4194303 = 50331636 -> 12287 B -> 11 KiB (12-bit fraction, as the kernel) */
	long r = ROW_S(lr, "object", "/usr/lib/libshared.so");
	EXPECT_ROW(lr, r, { "procs", 12 }, { "vss_kib", 192 }, { "rss_kib", 144 }, { "pss_kib", 11 }, { "uss_kib", 0 });
	/* 12 * 2796202 = 33554424 -> 8191 B -> 7 KiB */
	r = ROW_S(lr, "object", "/usr/bin/worker");
	EXPECT_ROW(lr, r, { "procs", 12 }, { "vss_kib", 96 }, { "rss_kib", 96 }, { "pss_kib", 7 }, { "uss_kib", 0 });
	r = ROW_S(lr, "object", "[heap]");
	EXPECT_ROW(lr, r, { "procs", 12 }, { "vss_kib", 192 }, { "rss_kib", 48 }, { "pss_kib", 48 }, { "uss_kib", 48 });
	r = ROW_S(lr, "object", "[stack]");
	EXPECT_ROW(lr, r, { "procs", 12 }, { "vss_kib", 384 }, { "rss_kib", 48 }, { "pss_kib", 48 }, { "uss_kib", 48 });

	/* Units: virtual summed over the 12 processes, physical = distinct PFNs. */
	const struct table *u = TAB(&L.r, "units");
	EXPECT_NROWS(u, 2);
	r = ROW_S(u, "unit", "/usr/bin/worker");
	EXPECT_ROW(u, r, { "procs", 12 }, { "text_virt_pages", 24 }, { "text_phys_pages", 2 }, { "data_virt_pages", 0 },
		   { "data_phys_pages", 0 }, { "heap_bss_virt_pages", 48 }, { "heap_bss_phys_pages", 12 }, { "total_virt_pages", 72 },
		   { "total_phys_pages", 14 });
	r = ROW_S(u, "unit", "/usr/lib/libshared.so");
	EXPECT_ROW(u, r, { "procs", 12 }, { "text_virt_pages", 48 }, { "text_phys_pages", 3 }, { "total_virt_pages", 48 },
		   { "total_phys_pages", 3 });

	const struct table *uc = TAB(&L.r, "unit-cost");
	r = ROW_S(uc, "unit", "/usr/bin/worker");
	EXPECT_ROW(uc, r, { "procs", 12 }, { "pss_kib", 7 }, { "clean_shared_kib", 96 }, { "private_cow_kib", 0 });
	r = ROW_S(uc, "unit", "/usr/lib/libshared.so");
	EXPECT_ROW(uc, r, { "procs", 12 }, { "pss_kib", 11 }, { "clean_shared_kib", 144 }, { "private_cow_kib", 0 });

	const struct table *t = TAB(&L.r, "total");
	EXPECT_ROW(t, 0, { "user_pages", 29 }, { "anon_pages", 24 },
		   { "file_pages", 5 }, { "processes", 12 }, { "vmas", 48 });

	EXPECT_NROWS(TAB(&L.r, "mixed"), 0);

	const struct table *rm = TAB(&L.r, "resmap");
	EXPECT_MAP(rm, "pid 1001 w01", "400000-402000", "X r-xp", { 0, "##", 0 });
	EXPECT_MAP(rm, "pid 1001 w01", "603000-607000", "XB rw-p", { 0, "1...", 0 });
	EXPECT_MAP(rm, "pid 1001 w01", "7f0000000000-7f0000004000", "r-xp", { 0, "###.", 0 });
	EXPECT_MAP(rm, "pid 1012 w12", "7f0000000000-7f0000004000", "r-xp", { 0, "###.", 0 });
	EXPECT_MAP(rm, "pid 1001 w01", "7fffffff7000-7ffffffff000", "S rw-p", { 0, ".......1", 0 });
	if (rm && rm->nrows) /* processes in pid order */
		EXPECT_S(rm, 0, "group", "pid 1001 w01");

	/* Unit map: worker (text + heap of 12 processes) then libshared (12). */
	const struct table *um = TAB(&L.r, "unitmap");
	EXPECT_NROWS(um, 38); /* each unit: its union line, then 12 processes' VMAs */
	if (um && um->nrows == 38) {
		/* worker's text: both pages resident in all 12 processes ('#': ten or more) */
		EXPECT_S(um, 0, "group", "/usr/bin/worker");
		EXPECT_S(um, 0, "vma", "file pages 0-2 in 12 processes");
		EXPECT_S(um, 0, "map", "##");
		EXPECT_S(um, 1, "vma", "pid 1001 w01 400000-402000");
		EXPECT_S(um, 25, "group", "/usr/lib/libshared.so");
		EXPECT_S(um, 25, "vma", "file pages 0-4 in 12 processes");
		EXPECT_S(um, 25, "map", "###.");
		EXPECT_S(um, 26, "map", "###.");
	}
	unload(&L);
}

static void test_resmap(void)
{
	struct loaded L;
	if (!LOAD(&L, "tests/records/resmap.rec", -1))
		return;
	CHECK(!L.r.partial, "excluded pages must not make the report partial: %s",
	      L.r.partial_why ? L.r.partial_why : "");
	const struct table *rm = TAB(&L.r, "resmap");
	const char *g = "pid 400 mapper";
	EXPECT_MAP(rm, g, "400000-402000", "X r-xp", { 0, "11", 0 });
	EXPECT_MAP(rm, g, "603000-60b000", "XB rw-p", { 0, "11sss1..", 0 });
	/* 100 pages: 64 + 36 */
	EXPECT_MAP(rm, g, "10000000-10064000", "rw-p",
		   { 0, cat(rep('1', 10), rep('.', 50), "2222"), 0 },
		   { 64, cat("222222", rep('.', 29), "1"), 0 });
	long rows[4];
	if (map_rows(rm, g, "10000000-10064000", rows, 4) == 2)
		CHECK_U64(strlen(table_cell_c(rm, (size_t)rows[1], MAP_COL_MAP)->s), 36);
	/* sparse 2048 pages, pages 0, 130, 1000 */
	EXPECT_MAP(rm, g, "20000000-20800000", "rw-p",
		   { 0, cat("1", rep('.', 63), NULL), 0 },
		   { 64, rep('.', 64), 0 },
		   { 128, cat("..1", rep('.', 61), NULL), 0 },
		   { 192, "", 12 },                       /* (1000 - 192) / 64 = 12 whole lines */
		   { 960, cat(rep('.', 40), "1", rep('.', 23)), 0 },
		   { 1024, "", 16 });                     /* (2048 - 1024) / 64 */
	/* THP: 512 pages = 8 identical full lines of '1' (one row standing for 8, table.h
	 * MAP_COL_SKIP), then 8 empty lines (one SKIP row) */
	EXPECT_MAP(rm, g, "40000000-40400000", "rw-p", { 0, rep('1', 64), 8 }, { 512, "", 8 });

	const struct proc *p = proc_by_tgid(&L.m, 400);
	const struct vma_info *heap = vma_by_start(p, 0x603000);
	if (CHECK(heap != NULL, "no heap VMA")) {
		CHECK_U64(heap->sum.resident, 3);  /* 2 m + 1 x */
		CHECK_U64(heap->sum.swapped, 3);
		CHECK_U64(heap->sum.excluded, 1);
		CHECK_U64(heap->sum.pss, 3 * PSS1); /* swap does not add to PSS */
	}
	const struct vma_info *thp = vma_by_start(p, 0x40000000);
	if (CHECK(thp != NULL, "no THP VMA")) {
		CHECK_U64(thp->sum.resident, 512); /* a PMD leaf counts per base page */
		CHECK_U64(thp->sum.pss, 512 * PSS1);
	}

	const struct table *s = TAB(&L.r, "summary");
	long r = ROW_U(s, "pid", 400);
	EXPECT_ROW(s, r, { "text_virt_pages", 2 }, { "text_res_pages", 2 }, { "heap_bss_virt_pages", 8 },
		   { "heap_bss_res_pages", 3 }, { "anon_virt_pages", 3172 }, { "anon_res_pages", 536 },
		   { "stack_virt_pages", 0 }, { "vss_pages", 3182 }, { "rss_pages", 541 });
	/* 531*4096 + 10*2048 = 2195456 B = 2144 KiB */
	const struct table *ps = TAB(&L.r, "pss");
	r = ROW_U(ps, "pid", 400);
	EXPECT_ROW(ps, r, { "vss_kib", 12728 }, { "rss_kib", 2164 }, { "pss_kib", 2144 },
		   { "uss_kib", 2124 }, { "swap_kib", 12 });
	const struct table *t = TAB(&L.r, "total");
	EXPECT_ROW(t, 0, { "user_pages", 541 }, { "anon_pages", 539 },
		   { "file_pages", 2 }, { "swapped_pages", 3 }, { "excluded_pages", 3 },
		   { "pfn_hidden_pages", 0 }, { "unknown_pages", 0 }, { "processes", 1 }, { "vmas", 5 });
	const struct table *u = TAB(&L.r, "units");
	r = ROW_S(u, "unit", "/usr/bin/mapper"); /* text 2 (excluded, still resident), heap 3 */
	EXPECT_ROW(u, r, { "text_virt_pages", 2 }, { "text_phys_pages", 2 }, { "heap_bss_virt_pages", 8 }, { "heap_bss_phys_pages", 3 },
		   { "total_phys_pages", 5 });

	/* Page dump: one row per m/x run (10), w records have no page. */
	const struct table *pg = TAB(&L.r, "pages");
	EXPECT_NROWS(pg, 10);
	r = ROW_U(pg, "vaddr", 0x400000);
	EXPECT_S(pg, r, "content", "dumplevel");
	EXPECT_ROW(pg, r, { "phys", 0x6000000 }, { "pages", 2 }, { "mapcount", 1 }, { "map_size", 4096 });
	r = ROW_U(pg, "vaddr", 0x40000000);
	EXPECT_ROW(pg, r, { "phys", 0x80000000 }, { "pages", 512 }, { "map_size", 2097152 });
	unload(&L);
}

static void test_unknown(void)
{
	struct loaded L;
	if (!LOAD(&L, "tests/records/unknown.rec", -1))
		return;
	CHECK(L.r.partial, "u records must make the report partial");
	CHECK_CONTAINS(L.r.partial_why, "64 pages in unknown state");
	CHECK_CONTAINS(L.r.partial_why, "pid gone");
	const struct table *rm = TAB(&L.r, "resmap");
	EXPECT_MAP(rm, "pid 500 blind", "10000000-10046000", "rw-p",
		   { 0, cat("1111", rep('?', 60), NULL), 0 }, { 64, "????..", 0 });
	const struct table *s = TAB(&L.r, "summary");
	long r = ROW_U(s, "pid", 500);
	EXPECT_ROW(s, r, { "anon_virt_pages", 70 }, { "anon_res_pages", 4 }, { "rss_pages", 4 });
	const struct table *t = TAB(&L.r, "total");
	EXPECT_ROW(t, 0, { "user_pages", 4 }, { "unknown_pages", 64 }, { "swapped_pages", 0 });
	const struct vma_info *v = vma_by_start(proc_by_tgid(&L.m, 500), 0x10000000);
	if (CHECK(v != NULL, "no VMA"))
		CHECK_U64(v->sum.unknown, 64);
	unload(&L);
}

/* hidden_smaps.rec: the same mapcount-less runs, with summaries carrying smaps' Pss and
 * Private (what snap writes without root): PSS and USS come from them. */
static void test_hidden_smaps(void)
{
	struct loaded L;
	if (!LOAD(&L, "tests/records/hidden_smaps.rec", -1))
		return;
	const struct table *p = TAB(&L.r, "pss");
	long r = ROW_U(p, "pid", 600);
	/* text: Pss 6 kB, Private 0; anon: Pss 20 kB, Private 20 kB */
	EXPECT_ROW(p, r, { "rss_kib", 32 }, { "pss_kib", 26 }, { "uss_kib", 20 });
	if (p)
		CHECK(p->note != NULL && strstr(p->note, "smaps"), "pss table: no note that PSS came from smaps");
	CHECK(L.m.warnings == NULL, "the summaries were reported as disagreeing: %s",
	      L.m.warnings ? L.m.warnings : "");
	unload(&L);
}

/* A process that exited while it was read (warn kind=gone): left out with a warning, the
 * snapshot stays complete. */
static void test_gone(void)
{
	struct loaded L;
	if (!LOAD(&L, "tests/records/gone.rec", -1))
		return;
	CHECK(!L.r.partial, "a process that exited made the snapshot partial: %s",
	      L.r.partial_why ? L.r.partial_why : "");
	CHECK_U64(L.m.nprocs, 1);
	CHECK(L.m.warnings && strstr(L.m.warnings, "pid 701 (quitter) exited during the snapshot"),
	      "no warning naming the process that exited: %s", L.m.warnings ? L.m.warnings : "(none)");
	const struct table *t = TAB(&L.r, "total");
	EXPECT_ROW(t, 0, { "user_pages", 5 }, { "unknown_pages", 0 }, { "processes", 1 }, { "vmas", 1 });
	const struct table *p = TAB(&L.r, "pss");
	EXPECT_NROWS(p, 1);
	EXPECT_ROW(p, ROW_U(p, "pid", 700), { "rss_kib", 12 });
	unload(&L);
}

static void test_hidden(void)
{
	struct loaded L;
	if (!LOAD(&L, "tests/records/hidden.rec", -1))
		return;
	CHECK(!L.r.partial, "hidden PFNs are not partial: %s", L.r.partial_why ? L.r.partial_why : "");
	const struct table *s = TAB(&L.r, "summary");
	long r = ROW_U(s, "pid", 600);
	EXPECT_ROW(s, r, { "text_virt_pages", 4 }, { "text_res_pages", 3 }, { "anon_virt_pages", 10 },
		   { "anon_res_pages", 5 }, { "vss_pages", 14 }, { "rss_pages", 8 });
	const struct table *p = TAB(&L.r, "pss");
	r = ROW_U(p, "pid", 600);
	EXPECT_ROW(p, r, { "vss_kib", 56 }, { "rss_kib", 32 }, { "swap_kib", 0 });
	if (p && r >= 0) { /* unknown, never 0 */
		CHECK(table_cell_c(p, (size_t)r, 4)->kind == CELL_NONE, "pss_kib of hidden mapcounts is not unknown");
		CHECK(table_cell_c(p, (size_t)r, 5)->kind == CELL_NONE, "uss_kib of hidden mapcounts is not unknown");
	}
	if (p)
		CHECK(p->note != NULL && strstr(p->note, "unknown"), "pss table: no note about hidden mapcounts");
	const struct table *t = TAB(&L.r, "total");
	EXPECT_ROW(t, 0, { "user_pages", 0 }, { "anon_pages", 0 },
		   { "file_pages", 0 }, { "pfn_hidden_pages", 8 }, { "processes", 1 });
	const struct table *u = TAB(&L.r, "units");
	r = ROW_S(u, "unit", "/usr/bin/viewer");
	EXPECT_ROW(u, r, { "text_virt_pages", 4 }, { "text_phys_pages", 0 }, { "total_phys_pages", 0 });
	const struct table *rm = TAB(&L.r, "resmap");
	EXPECT_MAP(rm, "pid 600 viewer", "400000-404000", "X r-xp", { 0, "???.", 0 });
	EXPECT_MAP(rm, "pid 600 viewer", "10000000-1000a000", "rw-p", { 0, "?????.....", 0 });
	EXPECT_NROWS(TAB(&L.r, "mixed"), 0);
	unload(&L);
}

static void test_mixed(void)
{
	struct loaded L;
	if (!LOAD(&L, "tests/records/mixed.rec", -1))
		return;
	const struct table *mx = TAB(&L.r, "mixed");
	EXPECT_NROWS(mx, 2);
	long r = ROW_S(mx, "vma", "7f0000000000-7f0000008000");
	EXPECT_U(mx, r, "pid", 700);
	EXPECT_S(mx, r, "comm", "legacy");
	EXPECT_S(mx, r, "perm", "r-xp");
	EXPECT_S(mx, r, "kind", "libtext");
	EXPECT_S(mx, r, "unit", "/usr/lib/libnopic.so");
	EXPECT_ROW(mx, r, { "single_pages", 2 }, { "shared_pages", 5 }, { "cow_pages", 2 }, { "file_pages", 5 });
	r = ROW_S(mx, "vma", "7f0000100000-7f0000106000");
	EXPECT_S(mx, r, "perm", "rw-p");
	EXPECT_S(mx, r, "kind", "file");
	EXPECT_S(mx, r, "unit", "/var/db/data.bin");
	EXPECT_ROW(mx, r, { "single_pages", 5 }, { "shared_pages", 0 }, { "cow_pages", 3 }, { "file_pages", 2 });

	/* 5*PSSN(3) + 2*PSS1 + 2*PSSN(2) = 78293673 -> 19114 B -> 18 KiB */
	CHECK_U64(5 * PSSN(3) + 2 * PSS1 + 2 * PSSN(2), 78293673);
	const struct table *uc = TAB(&L.r, "unit-cost");
	EXPECT_NROWS(uc, 2); /* legacy, libnopic; data.bin is a file, not a unit cost */
	r = ROW_S(uc, "unit", "/usr/lib/libnopic.so");
	EXPECT_ROW(uc, r, { "procs", 1 }, { "pss_kib", 18 }, { "clean_shared_kib", 28 }, { "private_cow_kib", 8 });
	r = ROW_S(uc, "unit", "/usr/bin/legacy");
	EXPECT_ROW(uc, r, { "procs", 1 }, { "pss_kib", 4 }, { "clean_shared_kib", 4 }, { "private_cow_kib", 0 });
	const struct table *u = TAB(&L.r, "units");
	r = ROW_S(u, "unit", "/usr/lib/libnopic.so");
	EXPECT_ROW(u, r, { "text_virt_pages", 10 }, { "text_phys_pages", 9 }, { "total_phys_pages", 9 });
	const struct table *rm = TAB(&L.r, "resmap");
	EXPECT_MAP(rm, "pid 700 legacy", "7f0000000000-7f0000008000", "r-xp", { 0, "3333311.", 0 });
	EXPECT_MAP(rm, "pid 700 legacy", "7f0000100000-7f0000106000", "rw-p", { 0, "11111.", 0 });
	const struct table *t = TAB(&L.r, "total");
	/* 1 + 7 + 2 + 5 + 2 = 17 distinct; anon: 2 (text COW) + 3 (written) + 2 (anon) */
	EXPECT_ROW(t, 0, { "user_pages", 17 }, { "anon_pages", 7 }, { "file_pages", 10 });
	unload(&L);
}

static void test_thrash(void)
{
	struct loaded L;
	if (!LOAD(&L, "tests/records/thrash.rec", -1))
		return;
	CHECK_U64(L.m.snapshots, 3);
	CHECK_U64(L.m.seq, 2);
	const struct table *th = TAB(&L.r, "thrash");
	EXPECT_NROWS(th, 3); /* blip is in one snapshot only */
	long r = ROW_U(th, "pid", 800);
	EXPECT_S(th, r, "comm", "hog");
	EXPECT_S(th, r, "verdict", "THRASHING");
	EXPECT_ROW(th, r, { "snapshots", 3 }, { "majflt_first", 100 }, { "majflt_last", 210 },
		   { "majflt_growth", 110 }, { "ws_first_pages", 6 }, { "ws_last_pages", 2 }, { "rss_first_pages", 8 },
		   { "rss_last_pages", 5 });
	r = ROW_U(th, "pid", 820);
	EXPECT_S(th, r, "verdict", ""); /* no growth from seq 1 to 2 */
	EXPECT_ROW(th, r, { "snapshots", 3 }, { "majflt_first", 10 }, { "majflt_last", 20 },
		   { "majflt_growth", 10 }, { "ws_first_pages", 4 }, { "ws_last_pages", 2 }, { "rss_first_pages", 4 },
		   { "rss_last_pages", 4 });
	r = ROW_U(th, "pid", 810);
	EXPECT_S(th, r, "verdict", "");
	EXPECT_ROW(th, r, { "snapshots", 3 }, { "majflt_first", 5 }, { "majflt_last", 5 },
		   { "majflt_growth", 0 }, { "ws_first_pages", 3 }, { "ws_last_pages", 3 }, { "rss_first_pages", 3 },
		   { "rss_last_pages", 3 });
	if (th && th->nrows == 3) { /* by growth, largest first */
		EXPECT_U(th, 0, "pid", 800);
		EXPECT_U(th, 1, "pid", 820);
		EXPECT_U(th, 2, "pid", 810);
	}
	/* The kept snapshot is the last one: hog has 5 resident pages and two threads. */
	const struct table *s = TAB(&L.r, "summary");
	r = ROW_U(s, "pid", 800);
	EXPECT_ROW(s, r, { "threads", 2 }, { "rss_pages", 5 });
	EXPECT_NROWS(s, 3);
	unload(&L);

	/* --snapshot 0 keeps the first one, the history still spans the stream. */
	if (!LOAD(&L, "tests/records/thrash.rec", 0))
		return;
	CHECK_U64(L.m.seq, 0);
	s = TAB(&L.r, "summary");
	r = ROW_U(s, "pid", 800);
	EXPECT_ROW(s, r, { "rss_pages", 8 });
	EXPECT_NROWS(TAB(&L.r, "thrash"), 3);
	unload(&L);
}

static void test_diff(void)
{
	struct loaded A, B;
	if (!LOAD(&A, "tests/records/diff_a.rec", -1))
		return;
	if (!LOAD(&B, "tests/records/diff_b.rec", -1)) {
		unload(&A);
		return;
	}
	check_context = "diff_a.rec -> diff_b.rec";
	struct report r = { 0 };
	model_describe(&B.m, &r);
	an_diff(&A.m, &B.m, &r);

	const struct table *t = TAB(&r, "diff-total");
	EXPECT_ROW(t, 0, { "user_a_kib", 60 }, { "user_b_kib", 104 }); /* 15 and 26 distinct PFNs */
	EXPECT_I(t, 0, "user_delta_kib", 44);

	const struct table *p = TAB(&r, "diff-procs");
	EXPECT_NROWS(p, 5); /* steady is unchanged: omitted; pid 904 reused: two rows */
	long row = ROW_S(p, "comm", "grower");
	EXPECT_S(p, row, "status", "changed");
	EXPECT_ROW(p, row, { "pid", 900 }, { "rss_a_kib", 28 }, { "rss_b_kib", 60 }, { "abs_rss_delta_kib", 32 });
	EXPECT_IROW(p, row, { "rss_delta_kib", 32 }, { "pss_delta_kib", 32 }, { "uss_delta_kib", 32 },
		    { "vss_delta_kib", 0 }, { "swap_delta_kib", 8 });
	row = ROW_S(p, "comm", "newbie");
	EXPECT_S(p, row, "status", "new");
	EXPECT_ROW(p, row, { "pid", 903 }, { "rss_a_kib", 0 }, { "rss_b_kib", 24 }, { "abs_rss_delta_kib", 24 });
	EXPECT_IROW(p, row, { "rss_delta_kib", 24 }, { "pss_delta_kib", 24 }, { "uss_delta_kib", 24 },
		    { "vss_delta_kib", 36 }, { "swap_delta_kib", 0 });
	row = ROW_S(p, "comm", "leaver");
	EXPECT_S(p, row, "status", "gone");
	EXPECT_ROW(p, row, { "pid", 901 }, { "rss_a_kib", 12 }, { "rss_b_kib", 0 }, { "abs_rss_delta_kib", 12 });
	EXPECT_IROW(p, row, { "rss_delta_kib", -12 }, { "pss_delta_kib", -12 }, { "uss_delta_kib", -12 },
		    { "vss_delta_kib", -20 }, { "swap_delta_kib", 0 });
	/* pid 904: same tgid, another comm -> a different process: one gone, one new */
	row = ROW_S(p, "comm", "newcmd");
	EXPECT_S(p, row, "status", "new");
	EXPECT_ROW(p, row, { "pid", 904 }, { "rss_a_kib", 0 }, { "rss_b_kib", 4 });
	EXPECT_IROW(p, row, { "rss_delta_kib", 4 }, { "vss_delta_kib", 8 });
	row = ROW_S(p, "comm", "oldcmd");
	EXPECT_S(p, row, "status", "gone");
	EXPECT_ROW(p, row, { "pid", 904 }, { "rss_a_kib", 4 }, { "rss_b_kib", 0 });
	EXPECT_IROW(p, row, { "rss_delta_kib", -4 }, { "vss_delta_kib", -8 });
	if (p && p->nrows == 5) { /* by |rss delta|: 32, 24, 12, then the two 4s */
		EXPECT_S(p, 0, "comm", "grower");
		EXPECT_S(p, 1, "comm", "newbie");
		EXPECT_S(p, 2, "comm", "leaver");
	}

	/* per VMA kind (the records' comments): heap 4 -> 10 pages (+ 2 swapped), anon
	 * leaver 2 + steady 3 + oldcmd 1 -> steady 3 + newbie 5 + newcmd 1, libgrow 1 -> 3;
	 * text 4 -> 4 pages is unchanged and omitted */
	const struct table *k = TAB(&r, "diff-kinds");
	EXPECT_NROWS(k, 3);
	row = ROW_S(k, "kind", "heap");
	EXPECT_ROW(k, row, { "rss_a_kib", 16 }, { "rss_b_kib", 40 });
	EXPECT_IROW(k, row, { "rss_delta_kib", 24 }, { "pss_delta_kib", 24 }, { "swap_delta_kib", 8 });
	row = ROW_S(k, "kind", "anon");
	EXPECT_ROW(k, row, { "rss_a_kib", 24 }, { "rss_b_kib", 36 });
	EXPECT_IROW(k, row, { "rss_delta_kib", 12 }, { "swap_delta_kib", 0 });
	row = ROW_S(k, "kind", "libtext");
	EXPECT_IROW(k, row, { "rss_delta_kib", 8 });
	if (k && k->nrows == 3)
		EXPECT_S(k, 0, "kind", "heap");

	const struct table *u = TAB(&r, "diff-units");
	EXPECT_NROWS(u, 4); /* steady's unit is unchanged */
	row = ROW_S(u, "unit", "/usr/bin/grower"); /* 2 text + 4 heap -> 2 text + 10 heap */
	EXPECT_S(u, row, "status", "changed");
	EXPECT_ROW(u, row, { "phys_a_kib", 24 }, { "phys_b_kib", 48 }, { "abs_phys_delta_kib", 24 });
	EXPECT_I(u, row, "phys_delta_kib", 24);
	row = ROW_S(u, "unit", "/usr/lib/libgrow.so");
	EXPECT_S(u, row, "status", "changed");
	EXPECT_ROW(u, row, { "phys_a_kib", 4 }, { "phys_b_kib", 12 });
	EXPECT_I(u, row, "phys_delta_kib", 8);
	row = ROW_S(u, "unit", "/usr/bin/newbie");
	EXPECT_S(u, row, "status", "new");
	EXPECT_ROW(u, row, { "phys_a_kib", 0 }, { "phys_b_kib", 4 });
	EXPECT_I(u, row, "phys_delta_kib", 4);
	row = ROW_S(u, "unit", "/usr/bin/leaver");
	EXPECT_S(u, row, "status", "gone");
	EXPECT_ROW(u, row, { "phys_a_kib", 4 }, { "phys_b_kib", 0 });
	EXPECT_I(u, row, "phys_delta_kib", -4);
	if (u && u->nrows == 4) {
		EXPECT_S(u, 0, "unit", "/usr/bin/grower");
		EXPECT_S(u, 1, "unit", "/usr/lib/libgrow.so");
	}
	CHECK(!r.partial, "diff of two complete snapshots says partial");
	report_free(&r);
	unload(&A);
	unload(&B);
}

/* Two boots of one workload: no pid agrees. Processes pair by command and executable, equal
 * programs in pid order: only the second worker changed (20 -> 24 KiB). */
static void test_diff_boot(void)
{
	struct loaded A, B;
	if (!LOAD(&A, "tests/records/diff_boot_a.rec", -1))
		return;
	if (!LOAD(&B, "tests/records/diff_boot_b.rec", -1)) {
		unload(&A);
		return;
	}
	check_context = "diff_boot_a.rec -> diff_boot_b.rec";
	struct report r = { 0 };
	model_describe(&B.m, &r);
	an_diff(&A.m, &B.m, &r);
	const struct table *p = TAB(&r, "diff-procs");
	EXPECT_NROWS(p, 1);
	if (p && p->nrows == 1) {
		EXPECT_S(p, 0, "comm", "worker");
		EXPECT_S(p, 0, "status", "changed");
		EXPECT_ROW(p, 0, { "pid", 705 }, { "pid_a", 501 }, { "rss_a_kib", 20 }, { "rss_b_kib", 24 });
		EXPECT_IROW(p, 0, { "rss_delta_kib", 4 }, { "uss_delta_kib", 4 }, { "vss_delta_kib", 0 });
	}
	const struct table *k = TAB(&r, "diff-kinds");
	EXPECT_NROWS(k, 1);
	if (k && k->nrows == 1) {
		EXPECT_S(k, 0, "kind", "anon");
		EXPECT_IROW(k, 0, { "rss_delta_kib", 4 });
	}
	EXPECT_NROWS(TAB(&r, "diff-units"), 0); /* the same units, the same pages per unit */
	EXPECT_I(TAB(&r, "diff-total"), 0, "user_delta_kib", 4);
	report_free(&r);
	unload(&A);
	unload(&B);
}

static void test_sumonly(void)
{
	struct loaded L;
	if (!LOAD(&L, "tests/records/sumonly.rec", -1))
		return;
	const struct table *s = TAB(&L.r, "summary");
	long r = ROW_U(s, "pid", 1100);
	EXPECT_ROW(s, r, { "text_virt_pages", 4 }, { "text_res_pages", 4 }, { "anon_virt_pages", 8 },
		   { "anon_res_pages", 5 }, { "vss_pages", 12 }, { "rss_pages", 9 });
	/* (5461 << 12) + (8192 << 12) + 2*PSS1 + PSS1 = 106254336 -> 25941 B -> 25 KiB */
	CHECK_U64(((uint64_t)5461 << 12) + ((uint64_t)8192 << 12) + 3 * PSS1, 106254336);
	const struct table *p = TAB(&L.r, "pss");
	r = ROW_U(p, "pid", 1100);
	EXPECT_ROW(p, r, { "vss_kib", 48 }, { "rss_kib", 36 }, { "pss_kib", 25 }, { "uss_kib", 20 },
		   { "swap_kib", 4 });
	const struct vma_info *d = vma_by_start(proc_by_tgid(&L.m, 1100), 0x30000000);
	if (CHECK(d != NULL, "no VMA 30000000"))
		CHECK_U64(d->sum.resident, 1); /* the runs are authoritative */
	/* exactly one warning: the disagreeing sum of VMA 30000000 (line 29) */
	CHECK_CONTAINS(L.r.warnings, "sumonly.rec:29: sum record disagrees");
	CHECK(L.r.warnings && !strstr(L.r.warnings, "VMA 20000000"), "warning for the agreeing sum: %s",
	      L.r.warnings ? L.r.warnings : "");
	const struct table *rm = TAB(&L.r, "resmap");
	EXPECT_NROWS(rm, 0);
	if (rm)
		CHECK(rm->note != NULL, "resmap of summaries-only records has no note");
	const struct table *t = TAB(&L.r, "total");
	EXPECT_ROW(t, 0, { "user_pages", 3 });
	CHECK(!L.r.partial, "sumonly.rec is complete");
	unload(&L);
}

static void test_overlap(void)
{
	struct loaded L;
	if (!LOAD(&L, "tests/records/overlap.rec", -1))
		return;
	/* distinct frames: text 403e-4041 (4), blob 1030-1057 (0x28 = 40 of 64 mappings),
	 * anon 203f-2040 (2), anon 30010-300d7 (200) */
	const struct table *t = TAB(&L.r, "total");
	EXPECT_ROW(t, 0, { "user_pages", 246 }, { "anon_pages", 202 },
		   { "file_pages", 44 }, { "vmas", 5 });
	const struct table *u = TAB(&L.r, "units");
	long r = ROW_S(u, "unit", "/usr/bin/twice");
	EXPECT_ROW(u, r, { "text_virt_pages", 4 }, { "text_phys_pages", 4 }, { "total_phys_pages", 4 });
	/* (4 + 2*(8 + 24/2) + 2 + 200) pages * 4096 = 1007616 B = 984 KiB */
	const struct table *p = TAB(&L.r, "pss");
	r = ROW_U(p, "pid", 1200);
	EXPECT_ROW(p, r, { "rss_kib", 1080 }, { "pss_kib", 984 }, { "uss_kib", 888 });
	const struct table *lr = TAB(&L.r, "librank");
	r = ROW_S(lr, "object", "/var/db/blob"); /* 64 resident mappings, 2*(8*4 + 24*2) KiB */
	EXPECT_ROW(lr, r, { "procs", 1 }, { "vss_kib", 256 }, { "rss_kib", 256 }, { "pss_kib", 160 },
		   { "uss_kib", 64 });
	const struct table *mx = TAB(&L.r, "mixed");
	EXPECT_NROWS(mx, 2);
	r = ROW_S(mx, "vma", "7f0000100000-7f0000120000");
	EXPECT_ROW(mx, r, { "single_pages", 8 }, { "shared_pages", 24 }, { "cow_pages", 0 }, { "file_pages", 32 });
	const struct table *rm = TAB(&L.r, "resmap");
	EXPECT_MAP(rm, "pid 1200 twice", "7f0000000000-7f0000020000", "r--p",
		   { 0, cat(rep('1', 8), rep('2', 24), NULL), 0 });
	/* 200 pages: 3 identical full lines of '1' collapse into one row, then 8 pages */
	EXPECT_MAP(rm, "pid 1200 twice", "20000000-200c8000", "rw-p",
		   { 0, rep('1', 64), 3 }, { 192, rep('1', 8), 0 });
	unload(&L);
}

static void test_partial(void)
{
	struct loaded L;
	if (!LOAD(&L, "tests/records/partial.rec", -1))
		return;
	CHECK(!L.m.complete, "a snapshot without end is complete");
	CHECK(L.r.partial, "a snapshot without end: report not partial");
	CHECK_CONTAINS(L.r.partial_why, "no end record");
	const struct table *s = TAB(&L.r, "summary");
	long r = ROW_U(s, "pid", 950);
	EXPECT_ROW(s, r, { "text_res_pages", 2 }, { "anon_res_pages", 1 }, { "rss_pages", 3 });
	unload(&L);
}

static void test_trailwarn(void)
{
	struct loaded L;
	if (!LOAD(&L, "tests/records/trailwarn.rec", -1))
		return;
	CHECK(L.r.partial, "a warn record after the last end record was dropped: report complete");
	CHECK_CONTAINS(L.r.partial_why, "task list loops");
	EXPECT_ROW(TAB(&L.r, "total"), 0, { "user_pages", 1 });
	unload(&L);
}


/* ---- trace records (ws peak hot obj alloc frame mark wss) ---------------------------------- */

/* Write text to a temporary record file; returns its malloc'd path. */
static char *trace_file(const char *text)
{
	char *path = strdup("/tmp/test_analyses_trace_XXXXXX");
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!CHECK(f != NULL, "cannot create %s", path))
		return path;
	fputs("pagesleuth-records 1.0\n"
	      "header source=test arch=x86_64 endian=little page_size=4096 dump=t time=x\n", f);
	fputs(text, f);
	fclose(f);
	return path;
}

static const char trace_text[] =
	"frame id=10 ip=401000 fn=fill file=t.c line=7 obj=/t\n"                        /* 3 */
	"frame id=11 ip=401100 fn=main file=t.c line=20 obj=/t\n"
	"frame id=12 ip=7f00 fn=- file=- line=- obj=/lib/libc.so.6\n"
	"mark t=0 text=start\n"
	"ws t=100 tid=0 code=2 data=3 tau=200\n"                                         /* 7 */
	"ws t=100 tid=7 code=2 data=1 tau=200\n"
	"ws t=200 tid=0 code=4 data=9 tau=200\n"
	"ws t=200 tid=7 code=1 data=8 tau=200\n"
	"ws t=300 tid=0 code=3 data=9 tau=200 final=1 avg_code=3.000 avg_data=7.000 peak_code=4 "
	"peak_data=9 total_code=5 total_data=12\n"                                       /* 11 */
	"peak t=200 tid=7 kind=data pages=9 stack=10,11\n"
	"peak t=200 tid=0 kind=code pages=4 stack=12\n"
	"mark t=250 tid=7 text=phase%202%20%3C%26%3E\n"
	"hot page=10000 kind=data accesses=40 frame=10\n"
	"hot page=401000 kind=code accesses=90 frame=11\n"
	"hot page=20000 kind=data accesses=40 frame=-\n"
	"obj id=1 kind=heap name=fill size=64 blocks=4 loads=3 stores=5 bload=24 bstore=40 stack=10,11\n"
	"obj id=2 kind=global name=table size=128 blocks=1 loads=9 stores=0 bload=72 bstore=0 stack=- "
	"file=t.c line=2\n"
	"obj id=3 kind=heap name=main size=16 blocks=1 loads=1 stores=7 bload=8 bstore=56 stack=11\n"
	"obj id=4 kind=heap name=- size=8 blocks=1 loads=1 stores=0 bload=8 bstore=0 stack=12,11\n"
	"alloc id=5 parent=- group=db cur=10 peak=30 max=40 total=100 blocks=3 frame=-\n"
	"alloc id=6 parent=5 group=db cur=4 peak=10 max=12 total=20 blocks=1 frame=10\n"
	"alloc id=8 parent=7 group=db cur=6 peak=20 max=28 total=80 blocks=2 frame=12\n" /* child first */
	"alloc id=7 parent=5 group=db cur=6 peak=20 max=28 total=80 blocks=2 frame=11\n"
	"alloc id=1 parent=- group=other cur=1 peak=40 max=40 total=41 blocks=2 frame=-\n"
	"wss pid=9 method=idle mode=profile seq=0 dur=0.010 est=0.012 rss=4194304 pss=2097152 "
	"ref=524288 t=12000000\n"
	"wss pid=9 method=idle mode=profile seq=1 dur=0.020 est=0.021 rss=4194304 pss=- ref=1048576 "
	"t=33000000\n";

static void expect_f_at(const struct table *t, long row, const char *col, double want, int line)
{
	const struct cell *c = cell_at(t, row, col, line);
	if (c)
		check_at(c->kind == CELL_F64 && c->f == want, __FILE__, line,
			 "table %s row %ld: %s = %.17g, expected %.17g", t->id, row, col,
			 c->kind == CELL_F64 ? c->f : -1.0, want);
}
#define EXPECT_F(t, row, col, want) expect_f_at((t), (row), (col), (want), __LINE__)

static void expect_none_at(const struct table *t, long row, const char *col, int line)
{
	const struct cell *c = cell_at(t, row, col, line);
	if (c)
		check_at(c->kind == CELL_NONE, __FILE__, line, "table %s row %ld: %s is set, expected empty",
			 t->id, row, col);
}
#define EXPECT_NONE(t, row, col) expect_none_at((t), (row), (col), __LINE__)

static bool trace_load(struct model *m, const char *text, char **err)
{
	char *path = trace_file(text);
	struct model_options opt = { .snapshot = -1 };
	*err = NULL;
	int rc = model_load(m, path, &opt, err);
	if (*err) { /* messages name the file: make them comparable */
		char *p = strstr(*err, path);
		if (p) {
			memmove(*err + 1, p + strlen(path), strlen(p + strlen(path)) + 1);
			(*err)[0] = 'F';
		}
	}
	unlink(path);
	free(path);
	return rc == 0;
}

static void test_trace(void)
{
	struct model m;
	char *err;
	check_context = "trace_text";
	if (!CHECK(trace_load(&m, trace_text, &err), "model_load: %s", err ? err : "?")) {
		free(err);
		return;
	}
	CHECK_U64(m.snapshots, 0);
	CHECK(m.complete, "a trace file without warn records is complete");
	CHECK(m.warnings == NULL, "unexpected warnings: %s", m.warnings ? m.warnings : "");
	struct report r = { 0 };
	model_describe(&m, &r);
	CHECK(!r.partial, "trace report partial: %s", r.partial_why ? r.partial_why : "");
	an_trace_ws(&m, &r);
	an_trace_ws_series(&m, &r);
	an_trace_peaks(&m, &r);
	an_trace_hot(&m, &r);
	CHECK(an_trace_obj(&m, NULL, &r) == 0, "obj with the default sort");
	an_trace_alloc(&m, &r);
	an_wss(&m, &r);

	/* tid 0: code 2,4,3 -> avg 9/3 = 3, peak 4 at 200; data 3,9,9 -> avg 21/3 = 7, peak 9
	 * first reached at 200; totals from the final record. tid 7: code 2,1 -> 1.5, peak 2 at
	 * 100; data 1,8 -> 4.5, peak 8 at 200; no final record. Peaks: the detector watches the
	 * process, so its row counts both records; tid 7's counts the one it was running at. */
	const struct table *ws = TAB(&r, "ws");
	EXPECT_NROWS(ws, 2);
	EXPECT_U(ws, 0, "tid", 0); /* the process first */
	EXPECT_S(ws, 0, "scope", "process");
	EXPECT_ROW(ws, 0, { "samples", 3 }, { "first_t", 100 }, { "last_t", 300 }, { "tau", 200 },
		   { "peak_code", 4 }, { "peak_code_t", 200 }, { "peak_data", 9 }, { "peak_data_t", 200 },
		   { "total_code", 5 }, { "total_data", 12 }, { "peaks", 2 });
	EXPECT_F(ws, 0, "avg_code", 3.0);
	EXPECT_F(ws, 0, "avg_data", 7.0);
	EXPECT_U(ws, 1, "tid", 7);
	EXPECT_S(ws, 1, "scope", "thread");
	EXPECT_ROW(ws, 1, { "samples", 2 }, { "peak_code", 2 }, { "peak_code_t", 100 },
		   { "peak_data", 8 }, { "peak_data_t", 200 }, { "peaks", 1 });
	EXPECT_F(ws, 1, "avg_code", 1.5);
	EXPECT_F(ws, 1, "avg_data", 4.5);
	EXPECT_NONE(ws, 1, "total_code");
	if (ws && CHECK(ws->lines != NULL, "ws table without its line chart")) {
		const struct line_chart *c = ws->lines;
		CHECK_U64(c->nseries, 2);
		CHECK_U64(c->nmarkers, 2);
		CHECK_U64(c->nvlines, 2);
		if (c->nseries == 2) {
			CHECK_U64(c->series[0].n, 3); /* the process's series */
			CHECK(c->series[1].x[1] == 200 && c->series[1].y[1] == 9, "data point 1");
		}
		if (c->nvlines == 2)
			CHECK_STR(c->vlines[1].label, "phase 2 <&>");
		if (c->nmarkers == 2)
			CHECK_STR(c->markers[0].label, "peak data 9 pages at t=200, tid 7: fill t.c:7");
	}
	const struct table *mk = TAB(&r, "marks");
	EXPECT_NROWS(mk, 2);
	EXPECT_U(mk, 0, "t", 0);
	EXPECT_NONE(mk, 0, "tid");
	EXPECT_S(mk, 1, "text", "phase 2 <&>");
	const struct table *se = TAB(&r, "ws-series");
	EXPECT_NROWS(se, 5); /* tid 0's three samples, then tid 7's two */
	EXPECT_ROW(se, 2, { "tid", 0 }, { "t", 300 }, { "code", 3 }, { "data", 9 });
	EXPECT_ROW(se, 3, { "tid", 7 }, { "t", 100 }, { "code", 2 }, { "data", 1 });

	const struct table *pk = TAB(&r, "peaks");
	EXPECT_NROWS(pk, 2);
	EXPECT_ROW(pk, 0, { "peak", 1 }, { "t", 200 }, { "tid", 7 }, { "pages", 9 }, { "line", 7 });
	EXPECT_S(pk, 0, "kind", "data");
	EXPECT_S(pk, 0, "fn", "fill");
	EXPECT_S(pk, 0, "file", "t.c");
	EXPECT_S(pk, 0, "stack", "fill t.c:7 <- main t.c:20");
	EXPECT_S(pk, 1, "kind", "code");
	EXPECT_S(pk, 1, "fn", "0x7f00"); /* no function: the ip */
	EXPECT_NONE(pk, 1, "line");
	EXPECT_S(pk, 1, "stack", "0x7f00 (libc.so.6)");

	/* no rank= on the records: by accesses 90, 40, 40; the tie by address 10000 < 20000 */
	const struct table *hot = TAB(&r, "hot");
	EXPECT_NROWS(hot, 3);
	EXPECT_ROW(hot, 0, { "rank", 1 }, { "page", 0x401000 }, { "accesses", 90 }, { "line", 20 });
	EXPECT_S(hot, 0, "fn", "main");
	EXPECT_ROW(hot, 1, { "rank", 2 }, { "page", 0x10000 }, { "accesses", 40 });
	EXPECT_S(hot, 1, "object", "/t");
	EXPECT_ROW(hot, 2, { "rank", 3 }, { "page", 0x20000 });
	EXPECT_NONE(hot, 2, "fn");
	if (hot)
		CHECK_CONTAINS(hot->note, "ranked by accesses");

	/* accesses = loads + stores: 3+5 = 8, 9+0 = 9, 1+7 = 8; descending, ties in file order */
	const struct table *ob = TAB(&r, "obj");
	EXPECT_NROWS(ob, 4);
	EXPECT_ROW(ob, 0, { "id", 2 }, { "accesses", 9 }, { "size_bytes", 128 });
	EXPECT_S(ob, 0, "where", "t.c:2");
	EXPECT_S(ob, 0, "kind", "global");
	EXPECT_ROW(ob, 1, { "id", 1 }, { "accesses", 8 }, { "loads", 3 }, { "stores", 5 },
		   { "loaded_bytes", 24 }, { "stored_bytes", 40 }, { "blocks", 4 });
	EXPECT_S(ob, 1, "where", "fill t.c:7 <- main t.c:20");
	EXPECT_ROW(ob, 2, { "id", 3 }, { "accesses", 8 });
	/* allocated in a function without a symbol: named by its address, as a peak's is */
	EXPECT_ROW(ob, 3, { "id", 4 }, { "accesses", 1 });
	EXPECT_S(ob, 3, "name", "0x7f00");

	/* roots by peak: 1 (40) before 5 (30); under 5: 7 (20) before 6 (10); 8 under 7 */
	const struct table *al = TAB(&r, "alloc");
	EXPECT_NROWS(al, 5);
	static const uint64_t order[5] = { 1, 5, 7, 8, 6 }, depth[5] = { 0, 0, 1, 2, 1 };
	static const char *const node[5] = { "other", "db", "main t.c:20", "0x7f00 (libc.so.6)",
					     "fill t.c:7" };
	for (long i = 0; i < 5 && al && al->nrows == 5; i++) {
		EXPECT_ROW(al, i, { "id", order[i] }, { "depth", depth[i] });
		EXPECT_S(al, i, "node", node[i]);
	}
	EXPECT_NONE(al, 0, "parent");
	EXPECT_ROW(al, 3, { "parent", 7 }, { "cur_bytes", 6 }, { "peak_bytes", 20 }, { "max_bytes", 28 },
		   { "total_bytes", 80 }, { "blocks", 2 });
	if (al) {
		CHECK(al->tree && al->tree_label_col == (size_t)col_of(al, "node") &&
		      al->tree_depth_col == (size_t)col_of(al, "depth"), "alloc table is not a tree");
		CHECK_CONTAINS(al->note, "global heap peak: 70 bytes"); /* 40 + 30 */
	}

	/* MB = bytes / 2^20: 4194304 -> 4, 2097152 -> 2, 524288 -> 0.5 */
	const struct table *w = TAB(&r, "wss");
	EXPECT_NROWS(w, 2);
	EXPECT_ROW(w, 0, { "pid", 9 }, { "seq", 0 }, { "t_ns", 12000000 });
	EXPECT_S(w, 0, "method", "idle");
	EXPECT_S(w, 0, "mode", "profile");
	EXPECT_F(w, 0, "est_s", 0.012);
	EXPECT_F(w, 0, "dur_s", 0.010);
	EXPECT_F(w, 0, "rss_mb", 4.0);
	EXPECT_F(w, 0, "pss_mb", 2.0);
	EXPECT_F(w, 0, "ref_mb", 0.5);
	EXPECT_NONE(w, 1, "pss_mb");
	EXPECT_F(w, 1, "ref_mb", 1.0);
	if (w && CHECK(w->lines != NULL, "a profile run has no chart")) {
		CHECK_U64(w->lines->nseries, 2); /* ref, and rss thin */
		if (w->lines->nseries == 2)
			CHECK(w->lines->series[0].n == 2 && w->lines->series[0].x[1] == 0.021 &&
			      w->lines->series[0].y[1] == 1.0 && w->lines->series[1].thin,
			      "wss chart points");
	}
	report_free(&r);

	/* --sort: strings ascending, numbers descending, :asc / :desc override; ties in file order */
	struct report r2 = { 0 };
	CHECK(an_trace_obj(&m, "name", &r2) == 0, "sort by name");
	CHECK(an_trace_obj(&m, "stored_bytes:asc", &r2) == 0, "sort by stored_bytes:asc");
	CHECK(an_trace_obj(&m, "nosuch", &r2) == -1, "sort by a column that does not exist");
	CHECK(an_trace_obj(&m, "name:up", &r2) == -1, "sort direction that does not exist");
	CHECK_U64(r2.ntables, 2);
	if (r2.ntables == 2) {
		EXPECT_S(r2.tables[0], 0, "name", "0x7f00"); /* the name shown is the one sorted */
		EXPECT_S(r2.tables[0], 1, "name", "fill");
		EXPECT_S(r2.tables[0], 2, "name", "main");
		EXPECT_S(r2.tables[0], 3, "name", "table");
		EXPECT_U(r2.tables[1], 0, "id", 2); /* stored 0, 0, 40, 56 bytes */
		EXPECT_U(r2.tables[1], 1, "id", 4);
		EXPECT_U(r2.tables[1], 2, "id", 1);
		EXPECT_U(r2.tables[1], 3, "id", 3);
	}
	report_free(&r2);
	model_free(&m);
	check_context = NULL;
}

/* A writer summary that disagrees with the samples is a warning, not an error. */
static void test_trace_summary_disagrees(void)
{
	struct model m;
	char *err;
	if (!CHECK(trace_load(&m, "ws t=1 tid=0 code=1 data=2\n"
			      "ws t=2 tid=0 code=3 data=4 final=1 avg_code=2.000 avg_data=9.000 "
			      "peak_code=3 peak_data=5\n", &err), "load: %s", err ? err : "?")) {
		free(err);
		return;
	}
	CHECK_CONTAINS(m.warnings, ":4: ws final summary of tid 0 says peak_data=5, its samples' maximum is 4");
	CHECK_CONTAINS(m.warnings, "says avg_data=9.000, its samples' average is 3.000");
	CHECK(m.warnings && !strstr(m.warnings, "code"), "code agrees: %s", m.warnings);
	model_free(&m);

	/* The Valgrind tool's form: the summary as its own record (code=- data=-), and a thread
	 * that ended before its first sample (a summary, no samples). samples=3 disagrees. */
	if (!CHECK(trace_load(&m, "ws t=10 tid=0 code=1 data=2\n"
			      "ws t=20 tid=0 code=3 data=6\n"
			      "ws t=20 tid=0 code=- data=- final=1 samples=3 avg_code=2.000 avg_data=4.000 "
			      "peak_code=3 peak_data=6 total_code=7 total_data=9\n"
			      "ws t=20 tid=5 code=- data=- final=1 samples=0 avg_code=- avg_data=- "
			      "total_code=1 total_data=2\n", &err), "load: %s", err ? err : "?")) {
		free(err);
		return;
	}
	CHECK_CONTAINS(m.warnings, ":5: ws final summary of tid 0 counts samples=3, the file holds 2");
	CHECK(!strstr(m.warnings ? m.warnings : "", "avg"), "averages agree: %s", m.warnings);
	struct report r = { 0 };
	an_trace_ws(&m, &r);
	const struct table *ws = TAB(&r, "ws");
	EXPECT_NROWS(ws, 2);
	EXPECT_ROW(ws, 0, { "tid", 0 }, { "samples", 2 }, { "last_t", 20 }, { "peak_data", 6 },
		   { "total_code", 7 }, { "total_data", 9 });
	EXPECT_F(ws, 0, "avg_data", 4.0); /* (2 + 6) / 2: the summary is not a sample */
	EXPECT_ROW(ws, 1, { "tid", 5 }, { "samples", 0 }, { "total_code", 1 }, { "total_data", 2 });
	EXPECT_NONE(ws, 1, "first_t");
	EXPECT_NONE(ws, 1, "avg_code");
	EXPECT_NONE(ws, 1, "peak_code");
	if (ws && CHECK(ws->lines != NULL, "no chart") && ws->lines->nseries)
		CHECK_U64(ws->lines->series[0].n, 2);
	report_free(&r);
	model_free(&m);

	/* tau is the samples' window: a summary that leaves it out does not make the series
	 * "mix windows" (before, the note said so); a second sample with another tau does. */
	if (!CHECK(trace_load(&m, "ws t=10 tid=0 code=1 data=2 tau=500\n"
			      "ws t=20 tid=0 code=- data=- final=1 samples=1\n"
			      "ws t=10 tid=4 code=1 data=2 tau=500\n"
			      "ws t=20 tid=4 code=1 data=2 tau=600\n", &err), "load: %s", err ? err : "?")) {
		free(err);
		return;
	}
	struct report r3 = { 0 };
	an_trace_ws(&m, &r3);
	ws = TAB(&r3, "ws");
	EXPECT_U(ws, 0, "tau", 500);
	CHECK(ws && m.trace.nws == 2 && !m.trace.ws[0].tau_varies && m.trace.ws[1].tau_varies,
	      "tau_varies: tid 0 %d, tid 4 %d", m.trace.nws ? m.trace.ws[0].tau_varies : -1,
	      m.trace.nws > 1 ? m.trace.ws[1].tau_varies : -1);
	report_free(&r3);
	model_free(&m);
}

/* Malformed trace records: one "FILE:LINE: reason" each (line 3 is the first record). */
static void test_trace_errors(void)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "peak t=1 tid=0 kind=data pages=3 stack=7\n",
		  "F:3: peak record: stack refers to frame 7, which no earlier frame record defines" },
		{ "hot page=10 kind=code accesses=1 frame=1\nframe id=1 fn=a\n",
		  "F:3: hot record: frame refers to frame 1, which no earlier" },
		{ "frame id=1 fn=a\nframe id=1 fn=b\n", "F:4: frame record: id 1 is defined twice" },
		{ "obj id=4 kind=heap loads=1 stores=1\nobj id=4 kind=heap loads=1 stores=1\n",
		  "F:4: obj record: id 4 is defined twice" },
		{ "ws t=1 tid=0 data=1\n", "F:3: ws record: missing code=" },
		{ "ws t=1 tid=0 code=- data=1\n", "F:3: ws record: code=- : this value must be known" },
		{ "ws t=1 tid=0 code=1x data=1\n", "F:3: ws record: code=1x is not a decimal number" },
		{ "ws t=1 tid=0 code=-1 data=1\n", "F:3: ws record: code=-1 is not a decimal number" },
		{ "ws t=5 tid=0 code=1 data=1\nws t=4 tid=0 code=1 data=1\n",
		  "F:4: ws record: t=4 goes back in time (the previous sample of tid 0 is at t=5)" },
		{ "hot page=xyz kind=code accesses=1\n", "F:3: hot record: page=xyz is not a hexadecimal number" },
		{ "hot page=10 kind=stack accesses=1\n", "F:3: hot record: kind=stack (expected code|data)" },
		{ "hot page=10 kind=code accesses=1 rank=0\n", "F:3: hot record: rank=0" },
		{ "wss pid=1 method=idle mode=once seq=0 est=nan ref=1\n",
		  "F:3: wss record: est=nan is not a finite number" },
		{ "wss pid=1 method=idle mode=once seq=0 est=inf ref=1\n",
		  "F:3: wss record: est=inf is not a finite number" },
		{ "wss pid=1 method=idle mode=once seq=0 est=-0.001 ref=1\n",
		  "F:3: wss record: est=-0.001 is negative" },
		{ "wss pid=1 method=idle mode=once seq=0 est=1.0 dur=-2 ref=1\n",
		  "F:3: wss record: dur=-2 is negative" },
		{ "wss pid=1 method=idle mode=once seq=0 est=1e3 ref=1\n",
		  "F:3: wss record: est=1e3 is not a decimal number of seconds" },
		{ "wss pid=1 method=guess mode=once seq=0 est=1 ref=1\n",
		  "F:3: wss record: method=guess (expected referenced|idle)" },
		{ "wss pid=1 method=idle mode=once seq=0 est=1\n", "F:3: wss record: missing ref=" },
		{ "alloc id=1 parent=-\nalloc id=2 parent=9\n",
		  "F:4: alloc record: parent=9 is not the id of any alloc record" },
		{ "alloc id=1 parent=3\nalloc id=2 parent=1\nalloc id=3 parent=2\n",
		  "F:3: alloc record: the parent links of id 1 form a cycle (1 -> 3 -> 2 -> 1)" },
		{ "alloc id=1 parent=-\nalloc id=2 parent=3\nalloc id=3 parent=2\n",
		  "F:4: alloc record: the parent links of id 2 form a cycle (2 -> 3 -> 2)" },
		{ "alloc id=5 parent=5\n", "F:3: alloc record: id 5 is its own parent" },
		{ "alloc id=5\n", "F:3: alloc record: missing parent=" },
		{ "mark t=1\n", "F:3: mark record: missing text=" },
		{ "peak t=1 tid=0 kind=code pages=1 stack=1,\n",
		  "F:3: peak record: stack=1, is not a comma-separated list of frame ids" },
		{ "ws t=18446744073709551615 tid=0 code=1 data=1\n", "F:3: ws record: t=18446744073709551615 is out of range" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct model m;
		char *err;
		check_context = cases[i].text;
		if (trace_load(&m, cases[i].text, &err)) {
			CHECK(false, "loaded, expected \"%s\"", cases[i].want);
			model_free(&m);
		} else {
			CHECK(err && strncmp(err, cases[i].want, strlen(cases[i].want)) == 0,
			      "error \"%s\", expected \"%s...\"", err ? err : "(none)", cases[i].want);
		}
		free(err);
	}
	check_context = NULL;
}

/* A chain of 200000 alloc nodes listed leaf first, and the same chain closed into a ring:
 * the tree is resolved without recursion, the ring refused without hanging. */
static void test_trace_deep(void)
{
	enum { N = 200000 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	for (int i = N; i >= 1; i--)
		fprintf(f, "alloc id=%d parent=%s%.0d cur=1\n", i, i == 1 ? "-" : "", i == 1 ? 0 : i - 1);
	fclose(f);
	struct model m;
	char *err;
	if (CHECK(trace_load(&m, text, &err), "deep chain: %s", err ? err : "?")) {
		struct report r = { 0 };
		an_trace_alloc(&m, &r);
		const struct table *al = TAB(&r, "alloc");
		EXPECT_NROWS(al, N);
		EXPECT_ROW(al, N - 1, { "id", N }, { "depth", N - 1 });
		report_free(&r);
		model_free(&m);
	}
	free(err);
	/* the root now points at the leaf: one ring of N nodes */
	char *root = strstr(text, "alloc id=1 parent=-");
	if (CHECK(root != NULL, "no root line")) {
		char *ring = NULL;
		size_t rlen = 0;
		FILE *g = open_memstream(&ring, &rlen);
		fwrite(text, 1, (size_t)(root - text), g);
		fprintf(g, "alloc id=1 parent=%d cur=1\n", N);
		fclose(g);
		CHECK(!trace_load(&m, ring, &err), "a ring of allocs loaded");
		CHECK_CONTAINS(err, "form a cycle");
		free(err);
		free(ring);
	}
	free(text);
}

/* Appends printf-formatted text to a memstream-built record text. */
#define EMIT(f, ...) fprintf((f), __VA_ARGS__)

/* Hostile sizes: ids chosen to collide, labels that would multiply memory, sums beyond 2^64,
 * thousands of runs and peaks. Each case failed (or took minutes) before the fix named. */
static void test_trace_hostile(void)
{
	struct model m;
	char *err, *text;
	size_t len;
	FILE *f;

	/* 1. 100000 frame ids that all shared one slot of the old unkeyed multiplicative hash
	 * (id * 0x9E3779B97F4A7C15 with bits 17..46 clear): loading them was quadratic (13 s;
	 * a million: 20 min). With the keyed hash a lookup inspects a slot or two. */
	enum { NCOLLIDE = 100000 };
	const uint64_t golden_inverse = UINT64_C(0xf1de83e19937733d); /* 0x9E37...^-1 mod 2^64 */
	CHECK(UINT64_C(0x9E3779B97F4A7C15) * golden_inverse == 1, "modular inverse");
	f = open_memstream(&text, &len);
	for (uint64_t j = 1; j <= NCOLLIDE; j++)
		EMIT(f, "frame id=%" PRIu64 " fn=f\n", (j << 47) * golden_inverse);
	EMIT(f, "ws t=1 tid=0 code=1 data=1\n");
	fclose(f);
	if (CHECK(trace_load(&m, text, &err), "colliding ids: %s", err ? err : "?")) {
		CHECK_U64(m.trace.nframes, NCOLLIDE);
		double probe = trace_idmap_mean_probe(&m.trace.frame_ids);
		CHECK(probe >= 1 && probe < 4, "colliding ids: a lookup inspects %.1f slots on average",
		      probe);
		model_free(&m);
	}
	free(err), free(text);

	/* 2. Stack labels are bounded: 64 frames of 1000 bytes show 4 frames (4 * 1000 + 3 * 4
	 * = 4012 bytes; a fifth would pass TRACE_STACK_BYTES = 4096) and "<- ... 60 more". A
	 * first frame of "a" + 5000 two-byte characters is cut at a character boundary: byte
	 * 4096 is the second byte of a character, so 4095 bytes, then "...". Before, every row
	 * held all 64 frames: 300 such peak records in a 4 MB file took 1.1 GB. */
	f = open_memstream(&text, &len);
	for (int i = 1; i <= 64; i++) {
		EMIT(f, "frame id=%d fn=", i);
		for (int k = 0; k < 1000; k++)
			putc('a' + i % 26, f);
		putc('\n', f);
	}
	EMIT(f, "frame id=65 fn=a");
	for (int k = 0; k < 5000; k++)
		EMIT(f, "%%C3%%A9"); /* e acute */
	EMIT(f, "\npeak t=1 tid=0 kind=data pages=1 stack=");
	for (int i = 1; i <= 64; i++)
		EMIT(f, "%s%d", i > 1 ? "," : "", i);
	EMIT(f, "\npeak t=2 tid=0 kind=data pages=1 stack=65,1\n");
	fclose(f);
	if (CHECK(trace_load(&m, text, &err), "long frames: %s", err ? err : "?")) {
		struct report r = { 0 };
		an_trace_peaks(&m, &r);
		const struct table *pk = TAB(&r, "peaks");
		const struct cell *c = pk && pk->nrows == 2 ? cell_at(pk, 0, "stack", __LINE__) : NULL;
		if (CHECK(c && c->kind == CELL_STR, "peaks: no stack cell")) {
			CHECK_U64(strlen(c->s), 4012 + strlen(" <- ... 60 more"));
			CHECK(strstr(c->s, " <- ... 60 more") == c->s + 4012, "stack tail: %.60s", c->s + 4000);
		}
		c = pk && pk->nrows == 2 ? cell_at(pk, 1, "stack", __LINE__) : NULL;
		if (CHECK(c && c->kind == CELL_STR, "peaks: no second stack cell")) {
			CHECK_U64(strlen(c->s), 4095 + 3 + strlen(" <- ... 1 more"));
			CHECK(strncmp(c->s + 4095, "... <- ... 1 more", 17) == 0 &&
			      (unsigned char)c->s[4093] == 0xc3 && (unsigned char)c->s[4094] == 0xa9,
			      "cut at a character: %.40s", c->s + 4090);
		}
		report_free(&r);
		model_free(&m);
	}
	free(err), free(text);

	/* 3. Sums beyond 2^64: two roots of 2^63 bytes each at the peak, an object whose loads
	 * and stores add up past 2^64. Before: "global heap peak: 0 bytes" (wrapped) and
	 * accesses 18446744073709551615 (saturated), both looking like real numbers. */
	if (CHECK(trace_load(&m, "alloc id=1 parent=- peak=9223372036854775808\n"
			      "alloc id=2 parent=- peak=9223372036854775808\n"
			      "obj id=1 kind=heap loads=9223372036854775808 stores=9223372036854775808\n"
			      "obj id=2 kind=heap loads=3 stores=4\n", &err),
		  "big sums: %s", err ? err : "?")) {
		struct report r = { 0 };
		an_trace_alloc(&m, &r);
		CHECK(an_trace_obj(&m, NULL, &r) == 0, "obj");
		const struct table *al = TAB(&r, "alloc");
		if (al) {
			CHECK_CONTAINS(al->note, "global heap peak: unknown, the roots' AT_PEAK add up to "
					       "more than 2^64 bytes");
			CHECK(!strstr(al->note, "global heap peak: 0"), "wrapped: %s", al->note);
		}
		const struct table *ob = TAB(&r, "obj");
		EXPECT_NROWS(ob, 2);
		EXPECT_ROW(ob, 0, { "id", 2 }, { "accesses", 7 }); /* the unknown sorts last */
		EXPECT_NONE(ob, 1, "accesses");
		if (ob)
			CHECK_CONTAINS(ob->note, "1 object: loads + stores beyond the 64-bit range");
		report_free(&r);
		model_free(&m);
	}
	free(err);

	/* 4. 10 cumulative wss runs (pids 10..1, one point each) and 2500 peaks, 600 marks:
	 * the wss chart draws the first 8 runs in pid order (before: all, and finding the runs
	 * took time quadratic in their number: 30000 pids 0.4 s, 300000 about a minute); the ws
	 * chart keeps 2000 peak dots and 500 mark lines and counts the rest (before: a label
	 * for each of a million peaks). */
	f = open_memstream(&text, &len);
	for (int pid = 10; pid >= 1; pid--)
		EMIT(f, "wss pid=%d method=referenced mode=cumulative seq=0 est=0.010 ref=1048576\n", pid);
	EMIT(f, "ws t=1 tid=0 code=1 data=1\n");
	for (int i = 0; i < 2500; i++)
		EMIT(f, "peak t=%d tid=0 kind=data pages=1\n", i);
	for (int i = 0; i < 600; i++)
		EMIT(f, "mark t=%d text=m\n", i);
	fclose(f);
	if (CHECK(trace_load(&m, text, &err), "runs: %s", err ? err : "?")) {
		struct report r = { 0 };
		an_wss(&m, &r);
		an_trace_ws(&m, &r);
		const struct table *w = TAB(&r, "wss");
		EXPECT_NROWS(w, 10);
		if (w && CHECK(w->lines != NULL, "no wss chart")) {
			CHECK_U64(w->lines->nseries, 8); /* ref only: the records carry no rss */
			if (w->lines->nseries == 8)
				CHECK_STR(w->lines->series[0].name, "pid 1 ref (referenced, cumulative)");
			CHECK_CONTAINS(w->lines->title, "the first 8 of 10 runs");
		}
		const struct table *ws = TAB(&r, "ws");
		if (ws && CHECK(ws->lines != NULL, "no ws chart")) {
			CHECK_U64(ws->lines->nmarkers, 2000);
			CHECK_U64(ws->lines->markers_dropped, 500);
			CHECK_U64(ws->lines->nvlines, 500);
			CHECK_U64(ws->lines->vlines_dropped, 100);
		}
		EXPECT_U(ws, 0, "peaks", 2500);
		report_free(&r);
		model_free(&m);
	}
	free(err), free(text);
}

/* 1.3 live records: referenced from the sum records (smaps' Referenced, the runs cannot see
 * PTE accessed bits), swapped-out shmem from the sums' shmem_swap (tests/records/shmem_swap.rec
 * says the numbers). */
static void test_shmem_swap(void)
{
	struct loaded L;
	if (!LOAD(&L, "tests/records/shmem_swap.rec", -1))
		return;
	const struct table *p = TAB(&L.r, "pss");
	long r = ROW_U(p, "pid", 700);
	EXPECT_ROW(p, r, { "rss_kib", 24 }, { "swap_kib", 28 });
	r = ROW_U(p, "pid", 710);
	EXPECT_ROW(p, r, { "rss_kib", 4 });
	EXPECT_NONE(p, r, "swap_kib");
	if (p) {
		CHECK(p->note && strstr(p->note, "SWAP includes 24 KiB of shmem/tmpfs pages swapped out (1 process), from smaps' Swap"),
		      "pss note: %s", p->note ? p->note : "(none)");
		CHECK(p->note && strstr(p->note, "SWAP unknown for 1 process:"), "pss note: %s",
		      p->note ? p->note : "(none)");
	}
	const struct table *th = TAB(&L.r, "thrash");
	r = ROW_U(th, "pid", 700);
	EXPECT_ROW(th, r, { "snapshots", 2 }, { "ws_first_pages", 5 }, { "ws_last_pages", 7 }, { "rss_first_pages", 6 },
		   { "rss_last_pages", 6 });
	r = ROW_U(th, "pid", 710);
	EXPECT_ROW(th, r, { "ws_first_pages", 0 }, { "ws_last_pages", 0 });
	const struct proc *pr = proc_by_tgid(&L.m, 700);
	const struct vma_info *v = pr ? vma_by_start(pr, 0x20000000) : NULL;
	CHECK(v != NULL, "no VMA 20000000 of pid 700");
	if (v)
		CHECK_U64(v->sum.shmem_swap, 6), CHECK_U64(v->sum.swapped, 0), CHECK_U64(model_vma_swap(v), 6);
	CHECK(L.m.warnings == NULL, "the summaries were reported as disagreeing: %s",
	      L.m.warnings ? L.m.warnings : "");
	unload(&L);
}

int main(void)
{
	test_threads();
	test_kinds();
	test_shared12();
	test_resmap();
	test_unknown();
	test_hidden();
	test_mixed();
	test_thrash();
	test_diff();
	test_diff_boot();
	test_hidden_smaps();
	test_shmem_swap();
	test_gone();
	test_sumonly();
	test_overlap();
	test_partial();
	test_trailwarn();
	test_trace();
	test_trace_summary_disagrees();
	test_trace_errors();
	test_trace_deep();
	test_trace_hostile();
	return check_summary("test_analyses");
}
