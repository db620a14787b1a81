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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	EXPECT_ROW(s, r, { "threads", 3 }, { "text_virt", 2 }, { "text_phys", 2 }, { "vss", 2 },
		   { "rss", 2 });
	r = ROW_U(s, "pid", 210);
	EXPECT_ROW(s, r, { "threads", 1 }, { "text_virt", 1 }, { "text_phys", 1 }, { "vss", 1 },
		   { "rss", 1 });
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
		   { "stack_virt", 34 }, { "stack_phys", 3 },
		   { "heap_bss_virt", 10 }, { "heap_bss_phys", 6 },   /* heap 8 + bss 2; 5 + 1 */
		   { "data_virt", 1 }, { "data_phys", 1 },
		   { "text_virt", 6 }, { "text_phys", 4 },           /* r-x 4 + r-- 2; 3 + 1 */
		   { "libdata_virt", 3 }, { "libdata_phys", 1 },     /* libdata 1 + libbss 2 */
		   { "libtext_virt", 5 }, { "libtext_phys", 5 },     /* r-x 4 + RELRO 1 */
		   { "anon_virt", 256 }, { "anon_phys", 1 },
		   { "file_virt", 20 }, { "file_phys", 3 },          /* font 16 + shm 4; 2 + 1 */
		   { "other_virt", 2 }, { "other_phys", 1 },         /* vdso */
		   { "vss", 337 }, { "rss", 25 });

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
	EXPECT_ROW(uc, r, { "procs", 1 }, { "pss_kib", 24 }, { "clean_kib", 16 }, { "private_kib", 8 });
	r = ROW_S(uc, "unit", "/lib/libc.so.6"); /* file 4 pages, anon RELRO + data 2 */
	EXPECT_ROW(uc, r, { "procs", 1 }, { "pss_kib", 13 }, { "clean_kib", 16 }, { "private_kib", 8 });

	/* Units: file and shmem units are not executable units. */
	const struct table *u = TAB(&L.r, "units");
	EXPECT_NROWS(u, 2);
	r = ROW_S(u, "unit", "/usr/bin/server");
	EXPECT_ROW(u, r, { "procs", 1 }, { "text_virt", 6 }, { "text_phys", 4 }, { "data_virt", 1 },
		   { "data_phys", 1 }, { "bss_virt", 10 }, { "bss_phys", 6 }, { "total_virt", 17 },
		   { "total_phys", 11 });
	r = ROW_S(u, "unit", "/lib/libc.so.6");
	EXPECT_ROW(u, r, { "procs", 1 }, { "text_virt", 5 }, { "text_phys", 5 }, { "data_virt", 1 },
		   { "data_phys", 1 }, { "bss_virt", 2 }, { "bss_phys", 0 }, { "total_virt", 8 },
		   { "total_phys", 6 });

	/* Total: 25 distinct PFNs; 13 first seen anonymous. */
	const struct table *t = TAB(&L.r, "total");
	EXPECT_NROWS(t, 1);
	EXPECT_ROW(t, 0, { "user_pages", 25 }, { "user_kib", 100 }, { "anon_pages", 13 },
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
	EXPECT_NROWS(um, 9); /* libc 4 VMAs + server 5 (text, rodata, data, bss, heap) */
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
	EXPECT_ROW(u, r, { "procs", 12 }, { "text_virt", 24 }, { "text_phys", 2 }, { "data_virt", 0 },
		   { "data_phys", 0 }, { "bss_virt", 48 }, { "bss_phys", 12 }, { "total_virt", 72 },
		   { "total_phys", 14 });
	r = ROW_S(u, "unit", "/usr/lib/libshared.so");
	EXPECT_ROW(u, r, { "procs", 12 }, { "text_virt", 48 }, { "text_phys", 3 }, { "total_virt", 48 },
		   { "total_phys", 3 });

	const struct table *uc = TAB(&L.r, "unit-cost");
	r = ROW_S(uc, "unit", "/usr/bin/worker");
	EXPECT_ROW(uc, r, { "procs", 12 }, { "pss_kib", 7 }, { "clean_kib", 96 }, { "private_kib", 0 });
	r = ROW_S(uc, "unit", "/usr/lib/libshared.so");
	EXPECT_ROW(uc, r, { "procs", 12 }, { "pss_kib", 11 }, { "clean_kib", 144 }, { "private_kib", 0 });

	const struct table *t = TAB(&L.r, "total");
	EXPECT_ROW(t, 0, { "user_pages", 29 }, { "user_kib", 116 }, { "anon_pages", 24 },
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
	EXPECT_NROWS(um, 36);
	if (um && um->nrows == 36) {
		EXPECT_S(um, 0, "group", "/usr/bin/worker");
		EXPECT_S(um, 0, "vma", "pid 1001 w01 400000-402000");
		EXPECT_S(um, 24, "group", "/usr/lib/libshared.so");
		EXPECT_S(um, 24, "map", "###.");
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
	EXPECT_ROW(s, r, { "text_virt", 2 }, { "text_phys", 2 }, { "heap_bss_virt", 8 },
		   { "heap_bss_phys", 3 }, { "anon_virt", 3172 }, { "anon_phys", 536 },
		   { "stack_virt", 0 }, { "vss", 3182 }, { "rss", 541 });
	/* 531*4096 + 10*2048 = 2195456 B = 2144 KiB */
	const struct table *ps = TAB(&L.r, "pss");
	r = ROW_U(ps, "pid", 400);
	EXPECT_ROW(ps, r, { "vss_kib", 12728 }, { "rss_kib", 2164 }, { "pss_kib", 2144 },
		   { "uss_kib", 2124 }, { "swap_kib", 12 });
	const struct table *t = TAB(&L.r, "total");
	EXPECT_ROW(t, 0, { "user_pages", 541 }, { "user_kib", 2164 }, { "anon_pages", 539 },
		   { "file_pages", 2 }, { "swapped_pages", 3 }, { "excluded_pages", 3 },
		   { "pfn_hidden_pages", 0 }, { "unknown_pages", 0 }, { "processes", 1 }, { "vmas", 5 });
	const struct table *u = TAB(&L.r, "units");
	r = ROW_S(u, "unit", "/usr/bin/mapper"); /* text 2 (excluded, still resident), heap 3 */
	EXPECT_ROW(u, r, { "text_virt", 2 }, { "text_phys", 2 }, { "bss_virt", 8 }, { "bss_phys", 3 },
		   { "total_phys", 5 });

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
	EXPECT_ROW(s, r, { "anon_virt", 70 }, { "anon_phys", 4 }, { "rss", 4 });
	const struct table *t = TAB(&L.r, "total");
	EXPECT_ROW(t, 0, { "user_pages", 4 }, { "unknown_pages", 64 }, { "swapped_pages", 0 });
	const struct vma_info *v = vma_by_start(proc_by_tgid(&L.m, 500), 0x10000000);
	if (CHECK(v != NULL, "no VMA"))
		CHECK_U64(v->sum.unknown, 64);
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
	EXPECT_ROW(s, r, { "text_virt", 4 }, { "text_phys", 3 }, { "anon_virt", 10 },
		   { "anon_phys", 5 }, { "vss", 14 }, { "rss", 8 });
	const struct table *p = TAB(&L.r, "pss");
	r = ROW_U(p, "pid", 600);
	EXPECT_ROW(p, r, { "vss_kib", 56 }, { "rss_kib", 32 }, { "pss_kib", 0 }, { "uss_kib", 0 },
		   { "swap_kib", 0 });
	if (p)
		CHECK(p->note != NULL, "pss table: no note about hidden mapcounts");
	const struct table *t = TAB(&L.r, "total");
	EXPECT_ROW(t, 0, { "user_pages", 0 }, { "user_kib", 0 }, { "anon_pages", 0 },
		   { "file_pages", 0 }, { "pfn_hidden_pages", 8 }, { "processes", 1 });
	const struct table *u = TAB(&L.r, "units");
	r = ROW_S(u, "unit", "/usr/bin/viewer");
	EXPECT_ROW(u, r, { "text_virt", 4 }, { "text_phys", 0 }, { "total_phys", 0 });
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
	EXPECT_ROW(mx, r, { "single", 2 }, { "shared", 5 }, { "cow", 2 }, { "file", 5 });
	r = ROW_S(mx, "vma", "7f0000100000-7f0000106000");
	EXPECT_S(mx, r, "perm", "rw-p");
	EXPECT_S(mx, r, "kind", "file");
	EXPECT_S(mx, r, "unit", "/var/db/data.bin");
	EXPECT_ROW(mx, r, { "single", 5 }, { "shared", 0 }, { "cow", 3 }, { "file", 2 });

	/* 5*PSSN(3) + 2*PSS1 + 2*PSSN(2) = 78293673 -> 19114 B -> 18 KiB */
	CHECK_U64(5 * PSSN(3) + 2 * PSS1 + 2 * PSSN(2), 78293673);
	const struct table *uc = TAB(&L.r, "unit-cost");
	EXPECT_NROWS(uc, 2); /* legacy, libnopic; data.bin is a file, not a unit cost */
	r = ROW_S(uc, "unit", "/usr/lib/libnopic.so");
	EXPECT_ROW(uc, r, { "procs", 1 }, { "pss_kib", 18 }, { "clean_kib", 28 }, { "private_kib", 8 });
	r = ROW_S(uc, "unit", "/usr/bin/legacy");
	EXPECT_ROW(uc, r, { "procs", 1 }, { "pss_kib", 4 }, { "clean_kib", 4 }, { "private_kib", 0 });
	const struct table *u = TAB(&L.r, "units");
	r = ROW_S(u, "unit", "/usr/lib/libnopic.so");
	EXPECT_ROW(u, r, { "text_virt", 10 }, { "text_phys", 9 }, { "total_phys", 9 });
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
		   { "majflt_growth", 110 }, { "ws_first", 6 }, { "ws_last", 2 }, { "rss_first", 8 },
		   { "rss_last", 5 });
	r = ROW_U(th, "pid", 820);
	EXPECT_S(th, r, "verdict", ""); /* no growth from seq 1 to 2 */
	EXPECT_ROW(th, r, { "snapshots", 3 }, { "majflt_first", 10 }, { "majflt_last", 20 },
		   { "majflt_growth", 10 }, { "ws_first", 4 }, { "ws_last", 2 }, { "rss_first", 4 },
		   { "rss_last", 4 });
	r = ROW_U(th, "pid", 810);
	EXPECT_S(th, r, "verdict", "");
	EXPECT_ROW(th, r, { "snapshots", 3 }, { "majflt_first", 5 }, { "majflt_last", 5 },
		   { "majflt_growth", 0 }, { "ws_first", 3 }, { "ws_last", 3 }, { "rss_first", 3 },
		   { "rss_last", 3 });
	if (th && th->nrows == 3) { /* by growth, largest first */
		EXPECT_U(th, 0, "pid", 800);
		EXPECT_U(th, 1, "pid", 820);
		EXPECT_U(th, 2, "pid", 810);
	}
	/* The kept snapshot is the last one: hog has 5 resident pages and two threads. */
	const struct table *s = TAB(&L.r, "summary");
	r = ROW_U(s, "pid", 800);
	EXPECT_ROW(s, r, { "threads", 2 }, { "rss", 5 });
	EXPECT_NROWS(s, 3);
	unload(&L);

	/* --snapshot 0 keeps the first one, the history still spans the stream. */
	if (!LOAD(&L, "tests/records/thrash.rec", 0))
		return;
	CHECK_U64(L.m.seq, 0);
	s = TAB(&L.r, "summary");
	r = ROW_U(s, "pid", 800);
	EXPECT_ROW(s, r, { "rss", 8 });
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

static void test_sumonly(void)
{
	struct loaded L;
	if (!LOAD(&L, "tests/records/sumonly.rec", -1))
		return;
	const struct table *s = TAB(&L.r, "summary");
	long r = ROW_U(s, "pid", 1100);
	EXPECT_ROW(s, r, { "text_virt", 4 }, { "text_phys", 4 }, { "anon_virt", 8 },
		   { "anon_phys", 5 }, { "vss", 12 }, { "rss", 9 });
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
	EXPECT_ROW(t, 0, { "user_pages", 246 }, { "user_kib", 984 }, { "anon_pages", 202 },
		   { "file_pages", 44 }, { "vmas", 5 });
	const struct table *u = TAB(&L.r, "units");
	long r = ROW_S(u, "unit", "/usr/bin/twice");
	EXPECT_ROW(u, r, { "text_virt", 4 }, { "text_phys", 4 }, { "total_phys", 4 });
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
	EXPECT_ROW(mx, r, { "single", 8 }, { "shared", 24 }, { "cow", 0 }, { "file", 32 });
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
	EXPECT_ROW(s, r, { "text_phys", 2 }, { "anon_phys", 1 }, { "rss", 3 });
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
	test_sumonly();
	test_overlap();
	test_partial();
	test_trailwarn();
	return check_summary("test_analyses");
}
