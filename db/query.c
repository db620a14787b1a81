/* query.c - what the db subcommands ask: one series query, then grouping and statistics in C.
 *
 * Every question is "this measure of this subject, per snapshot": the total user memory, a
 * process (by name, summed over the processes of that name in a snapshot), an executable
 * unit (by path or file name) or a VMA kind. One SQL statement fetches (snapshot, capture
 * time, group tag, subject name, value) rows; medians, spreads and growth are computed here,
 * so SQLite and PostgreSQL give the same answers from the same rows. Rows are ordered in C
 * too (never by SQL text collation, which differs between the engines and locales).
 *
 * Partial snapshots are left out unless asked for; when they are included, every table that
 * used one says how many.
 */
#include "db_query.h"
#include "errmsg.h"
#include "xalloc.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- subjects and measures ------------------------------------------------------------- */

struct measure {
	const char *name, *expr, *what;
};

static const struct measure total_measures[] = {
	{ "user", "s.user_bytes", "distinct physical memory mapped by user space" },
	{ "anon", "s.anon_bytes", "of it first mapped as anonymous memory" },
	{ "file", "s.file_bytes", "of it page cache (file-backed)" },
	{ "rss", "s.rss_bytes", "resident set sizes summed over processes" },
	{ "pss", "s.pss_bytes", "proportional set sizes summed over processes" },
	{ "uss", "s.uss_bytes", "unique set sizes summed over processes" },
	{ "vss", "s.vss_bytes", "virtual sizes summed over processes" },
	{ "swap", "s.swap_bytes", "swapped-out memory summed over processes" },
	{ NULL, NULL, NULL },
};
static const struct measure process_measures[] = {
	{ "pss", "x.pss_bytes", "proportional set size" },
	{ "rss", "x.rss_bytes", "resident set size" },
	{ "uss", "x.uss_bytes", "unique set size" },
	{ "vss", "x.vss_bytes", "virtual size" },
	{ "swap", "x.swap_bytes", "swapped out" },
	{ "anon", "x.anon_bytes", "resident anonymous memory" },
	{ "single", "x.single_in_shared_bytes", "single-use pages in shared mappings" },
	{ NULL, NULL, NULL },
};
static const struct measure unit_measures[] = {
	{ "phys", "x.text_phys_bytes + x.data_phys_bytes + x.bss_phys_bytes",
	  "distinct physical text+data+bss" },
	{ "text", "x.text_phys_bytes", "distinct physical text" },
	{ "data", "x.data_phys_bytes", "distinct physical data" },
	{ "bss", "x.bss_phys_bytes", "distinct physical bss and heap" },
	{ "virt", "x.text_virt_bytes + x.data_virt_bytes + x.bss_virt_bytes",
	  "virtual text+data+bss summed over processes" },
	{ "rss", "x.rss_bytes", "resident, summed over processes" },
	{ "pss", "x.pss_bytes", "proportional set size, summed over processes" },
	{ "uss", "x.uss_bytes", "unique set size, summed over processes" },
	{ NULL, NULL, NULL },
};
static const struct measure kind_measures[] = {
	{ "rss", "x.rss_bytes", "resident" },
	{ "pss", "x.pss_bytes", "proportional set size" },
	{ "uss", "x.uss_bytes", "unique set size" },
	{ "vss", "x.vss_bytes", "virtual size" },
	{ "swap", "x.swap_bytes", "swapped out" },
	{ "anon", "x.anon_bytes", "resident anonymous memory" },
	{ "single", "x.single_in_shared_bytes", "single-use pages in shared mappings" },
	{ NULL, NULL, NULL },
};

static const struct {
	const char *name, *table, *name_col, *match;
	const struct measure *measures;
} subjects[] = {
	[DB_SUBJECT_TOTAL] = { "total", NULL, NULL, NULL, total_measures },
	[DB_SUBJECT_PROCESS] = { "process", "process", "x.comm", "x.comm = $%d", process_measures },
	[DB_SUBJECT_UNIT] = { "unit", "unit", "x.unit", "(x.unit = $%d OR x.name = $%d)", unit_measures },
	[DB_SUBJECT_KIND] = { "kind", "kind", "x.kind", "x.kind = $%d", kind_measures },
};

const char *db_subject_name(enum db_subject s) { return subjects[s].name; }

static const struct measure *find_measure(enum db_subject s, const char *name, char **err)
{
	const struct measure *m = subjects[s].measures;
	if (!name)
		return &m[0];
	for (; m->name; m++)
		if (strcmp(m->name, name) == 0)
			return m;
	char *list = NULL;
	for (m = subjects[s].measures; m->name; m++) {
		char *next = xasprintf("%s%s%s", list ? list : "", list ? ", " : "", m->name);
		free(list);
		list = next;
	}
	ps_set_err(err, "no measure '%s' for a %s (%s)", name, subjects[s].name, list);
	free(list);
	return NULL;
}

const char *db_default_measure(enum db_subject s) { return subjects[s].measures[0].name; }

void db_measures_help(FILE *out)
{
	for (size_t s = 0; s < sizeof subjects / sizeof subjects[0]; s++) {
		fprintf(out, "  %s:\n", subjects[s].name);
		for (const struct measure *m = subjects[s].measures; m->name; m++)
			fprintf(out, "    %-7s %s%s\n", m->name, m->what, m == subjects[s].measures ?
				" (default)" : "");
	}
}

/* ---- the series query ------------------------------------------------------------------- */

struct point {
	int64_t id;
	char *captured, *group, *name;
	uint64_t value;
	bool partial;
};

struct points {
	struct point *p;
	size_t n, cap;
};

static void points_free(struct points *ps)
{
	for (size_t i = 0; i < ps->n; i++)
		free(ps->p[i].captured), free(ps->p[i].group), free(ps->p[i].name);
	free(ps->p);
	memset(ps, 0, sizeof *ps);
}

static int add_point(void *ctx, int ncols, const char *const *v)
{
	struct points *ps = ctx;
	if (ncols < 6)
		return 1;
	if (ps->n == ps->cap) {
		ps->cap = ps->cap ? ps->cap * 2 : 256;
		ps->p = xrealloc(ps->p, ps->cap * sizeof *ps->p);
	}
	struct point *p = &ps->p[ps->n++];
	p->id = v[0] ? strtoll(v[0], NULL, 10) : 0;
	p->captured = xstrdup(v[1]);
	p->group = v[2] ? xstrdup(v[2]) : NULL;
	p->name = xstrdup(v[3]);
	/* SUM over BIGINT is NUMERIC on PostgreSQL: read as a decimal string either way */
	p->value = v[4] ? strtoull(v[4], NULL, 10) : 0;
	p->partial = !v[5] || strcmp(v[5], "1") != 0;
	return 0;
}

/* Append to *COND one "snapshot s carries tag KEY=VALUE" clause per tag of TAGS (N of them),
 * then for ONLY if not NULL, their values as parameters after the NP already in PARAMS (at
 * most CAP in all). */
static void add_tag_filters(char **cond, const char **params, int *np, int cap,
			    const struct db_tag *tags, size_t n, const struct db_tag *only)
{
	for (size_t i = 0; i < n + (only != NULL) && *np + 2 <= cap; i++) {
		const struct db_tag *t = i < n ? &tags[i] : only;
		params[(*np)++] = t->key, params[(*np)++] = t->value;
		char *next = xasprintf("%s AND EXISTS (SELECT 1 FROM tag f%zu WHERE f%zu.snapshot_id = "
				       "s.id AND f%zu.key = $%d AND f%zu.value = $%d)", *cond, i, i, i,
				       *np - 1, i, *np);
		free(*cond);
		*cond = next;
	}
}

/* What to fetch: SPEC's subject and measure, NAME (NULL: every name of the subject),
 * grouped by the tag SPEC->by (NULL: no group), restricted to SPEC's filters, and to the
 * snapshots carrying tag ONLY (NULL: all) or to snapshot ONLY_ID (< 0: all). */
static int fetch(struct db *db, const struct db_series_spec *spec, const char *name,
		 const struct db_tag *only, int64_t only_id, struct points *out, char **err)
{
	const struct measure *m = find_measure(spec->subject, spec->measure, err);
	if (!m)
		return -1;
	const char *params[64];
	int np = 0;
	char *sql, *cond = xstrdup(spec->include_partial ? "1 = 1" : "s.complete = 1"), *next;
	const char *group = "NULL", *join_group = "";
	char *join_group_owned = NULL;
	if (spec->by) {
		params[np++] = spec->by;
		join_group_owned = xasprintf(" JOIN tag g ON g.snapshot_id = s.id AND g.key = $%d", np);
		join_group = join_group_owned;
		group = "g.value";
	}
	add_tag_filters(&cond, params, &np, 60, spec->filters, spec->nfilters, only);
	char idbuf[24];
	if (only_id >= 0) {
		snprintf(idbuf, sizeof idbuf, "%" PRId64, only_id);
		params[np++] = idbuf;
		next = xasprintf("%s AND s.id = $%d", cond, np);
		free(cond), cond = next;
	}
	if (spec->subject == DB_SUBJECT_TOTAL) {
		sql = xasprintf("SELECT s.id, s.captured, %s, 'total', %s, s.complete FROM snapshot s%s "
				"WHERE %s ORDER BY s.id", group, m->expr, join_group, cond);
	} else {
		const char *tbl = subjects[spec->subject].table, *col = subjects[spec->subject].name_col;
		if (name) {
			params[np++] = name;
			char *match = xasprintf(subjects[spec->subject].match, np, np);
			next = xasprintf("%s AND %s", cond, match);
			free(match), free(cond), cond = next;
		}
		sql = xasprintf("SELECT s.id, s.captured, %s, %s, SUM(%s), s.complete FROM snapshot s "
				"JOIN %s x ON x.snapshot_id = s.id%s WHERE %s GROUP BY s.id, s.captured, "
				"s.complete, %s%s ORDER BY s.id", group, col, m->expr, tbl, join_group, cond,
				spec->by ? "g.value, " : "", col);
	}
	int rc = db_query(db, sql, np, params, add_point, out, err);
	free(sql), free(cond), free(join_group_owned);
	return rc;
}

/* Distinct partial snapshots among the points (they come in id order). */
static size_t partial_snapshots(const struct points *ps)
{
	size_t n = 0;
	for (size_t i = 0; i < ps->n; i++)
		n += ps->p[i].partial && (i == 0 || ps->p[i - 1].id != ps->p[i].id);
	return n;
}

/* ---- statistics --------------------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

struct stats {
	size_t n;
	double median;
	uint64_t min, max;
};

static struct stats stats_of(uint64_t *v, size_t n)
{
	struct stats s = { .n = n };
	if (!n)
		return s;
	qsort(v, n, sizeof *v, cmp_u64);
	s.min = v[0], s.max = v[n - 1];
	s.median = n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
	return s;
}

static double kib(double bytes) { return bytes / 1024.0; }

static char *describe(const struct db_series_spec *spec, const char *name)
{
	const char *measure = spec->measure ? spec->measure : db_default_measure(spec->subject);
	if (spec->subject == DB_SUBJECT_TOTAL) {
		const struct measure *m = find_measure(spec->subject, measure, NULL);
		return xasprintf("total %s (%s)", measure, m ? m->what : "?");
	}
	return xasprintf("%s '%s' %s", subjects[spec->subject].name, name ? name : "*", measure);
}

static void describe_report(struct report *r, const char *database, const char *query)
{
	r->database = xstrdup(database);
	r->query = xstrdup(query);
	time_t now = time(NULL);
	char buf[32];
	strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	r->time = xstrdup(buf);
}

/* ---- db ls -------------------------------------------------------------------------------- */

struct ls_ctx {
	struct table *t;
	size_t partial;
};

enum { L_ID, L_CAPTURED, L_SOURCE, L_RELEASE, L_TAGS, L_PROCS, L_USER, L_STATUS, L_DUMP,
       L_NCOLS };

static int ls_row(void *ctx, int ncols, const char *const *v)
{
	struct ls_ctx *c = ctx;
	if (ncols < 9)
		return 1;
	size_t row = table_add_row(c->t);
	table_set_u64(c->t, row, L_ID, strtoull(v[0], NULL, 10));
	table_set_str(c->t, row, L_CAPTURED, v[1] ? v[1] : "-");
	table_set_str(c->t, row, L_SOURCE, v[2]);
	table_set_str(c->t, row, L_RELEASE, v[3]);
	table_set_u64(c->t, row, L_PROCS, strtoull(v[4], NULL, 10));
	table_set_u64(c->t, row, L_USER, strtoull(v[5], NULL, 10) / 1024);
	bool complete = strcmp(v[6], "1") == 0;
	c->partial += !complete;
	table_set_str(c->t, row, L_STATUS, complete ? "complete" : "PARTIAL");
	table_set_str(c->t, row, L_DUMP, v[7]);
	table_set_str(c->t, row, L_TAGS, "");
	return 0;
}

struct tag_row_ctx {
	struct table *t;
	size_t row;     /* rows are in id order, as are the tags */
	char **tags;    /* per row, "k=v k=v" */
};

static int tag_row(void *ctx, int ncols, const char *const *v)
{
	struct tag_row_ctx *c = ctx;
	if (ncols < 3)
		return 1;
	uint64_t id = strtoull(v[0], NULL, 10);
	while (c->row < c->t->nrows && table_cell(c->t, c->row, L_ID)->u < id)
		c->row++;
	if (c->row == c->t->nrows || table_cell(c->t, c->row, L_ID)->u != id)
		return 0;
	/* release and source have columns of their own */
	if (strcmp(v[3], "header") == 0 && (strcmp(v[1], "release") == 0 || strcmp(v[1], "source") == 0))
		return 0;
	char *next = xasprintf("%s%s%s=%s", c->tags[c->row] ? c->tags[c->row] : "",
			       c->tags[c->row] ? " " : "", v[1], v[2]);
	free(c->tags[c->row]);
	c->tags[c->row] = next;
	return 0;
}

static int cmp_tag_rows(const void *a, const void *b)
{
	const char *const *x = a, *const *y = b;
	int64_t ix = strtoll(x[0], NULL, 10), iy = strtoll(y[0], NULL, 10);
	if (ix != iy)
		return ix < iy ? -1 : 1;
	return strcmp(x[1], y[1]);
}

struct tag_list {
	char **rows; /* 4 strings per row */
	size_t n, cap;
};

static int collect_tag(void *ctx, int ncols, const char *const *v)
{
	struct tag_list *l = ctx;
	if (ncols < 4)
		return 1;
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 256;
		l->rows = xrealloc(l->rows, l->cap * 4 * sizeof *l->rows);
	}
	for (int i = 0; i < 4; i++)
		l->rows[l->n * 4 + (size_t)i] = xstrdup(v[i]);
	l->n++;
	return 0;
}

static int cmp_tag4(const void *a, const void *b) { return cmp_tag_rows(a, b); }

int db_ls(struct db *db, const struct db_tag *filters, size_t nfilters, struct report *r,
	  char **err)
{
	static const struct column cols[L_NCOLS] = {
		{ "id", "ID", CELL_U64, false }, { "captured", "CAPTURED", CELL_STR, false },
		{ "source", "SOURCE", CELL_STR, false }, { "release", "RELEASE", CELL_STR, false },
		{ "tags", "TAGS", CELL_STR, false }, { "processes", "PROCS", CELL_U64, false },
		{ "user_kib", "USER_KIB", CELL_U64, false }, { "status", "STATUS", CELL_STR, false },
		{ "dump", "DUMP", CELL_STR, false },
	};
	describe_report(r, db->target, "ls");
	struct table *t = table_new("snapshots", "Snapshots in the database", STYLE_GRID, L_NCOLS, cols);
	char *cond = xstrdup("1 = 1");
	const char *params[64];
	int np = 0;
	add_tag_filters(&cond, params, &np, 64, filters, nfilters, NULL);
	char *sql = xasprintf("SELECT s.id, s.captured, s.source, s.release, s.processes, "
			      "s.user_bytes, s.complete, s.dump, s.file FROM snapshot s WHERE %s "
			      "ORDER BY s.id", cond);
	struct ls_ctx c = { .t = t };
	int rc = db_query(db, sql, np, params, ls_row, &c, err);
	free(sql);
	struct tag_list tl = { 0 };
	if (rc == 0) {
		sql = xasprintf("SELECT s.id, g.key, g.value, g.origin FROM snapshot s JOIN tag g ON "
				"g.snapshot_id = s.id WHERE %s", cond);
		rc = db_query(db, sql, np, params, collect_tag, &tl, err);
		free(sql);
	}
	free(cond);
	if (rc < 0) {
		table_free(t);
		for (size_t i = 0; i < tl.n * 4; i++)
			free(tl.rows[i]);
		free(tl.rows);
		return -1;
	}
	if (tl.n)
		qsort(tl.rows, tl.n, 4 * sizeof *tl.rows, cmp_tag4);
	struct tag_row_ctx tc = { .t = t, .tags = xcalloc(t->nrows + 1, sizeof *tc.tags) };
	for (size_t i = 0; i < tl.n; i++)
		tag_row(&tc, 4, (const char *const *)&tl.rows[i * 4]);
	for (size_t i = 0; i < t->nrows; i++) {
		table_set_str(t, i, L_TAGS, tc.tags[i] ? tc.tags[i] : "-");
		free(tc.tags[i]);
	}
	free(tc.tags);
	for (size_t i = 0; i < tl.n * 4; i++)
		free(tl.rows[i]);
	free(tl.rows);
	if (c.partial)
		table_set_note(t, "%zu of %zu snapshots are PARTIAL: trends, comparisons and checks "
			       "leave them out unless --include-partial", c.partial, t->nrows);
	report_add(r, t);
	return 0;
}

/* ---- groups --------------------------------------------------------------------------- */

struct group {
	char *key;        /* tag value, or the snapshot's label when not grouped */
	char *first_time; /* earliest capture time in the group */
	int64_t first_id;
	uint64_t *values;
	size_t n, cap;
	struct stats st;
};

struct groups {
	struct group *g;
	size_t n, cap;
};

static void groups_free(struct groups *gs)
{
	for (size_t i = 0; i < gs->n; i++)
		free(gs->g[i].key), free(gs->g[i].first_time), free(gs->g[i].values);
	free(gs->g);
	memset(gs, 0, sizeof *gs);
}

static struct group *group_for(struct groups *gs, const char *key)
{
	for (size_t i = gs->n; i-- > 0;) /* points arrive in id order: the last group is likely */
		if (strcmp(gs->g[i].key, key) == 0)
			return &gs->g[i];
	if (gs->n == gs->cap) {
		gs->cap = gs->cap ? gs->cap * 2 : 64;
		gs->g = xrealloc(gs->g, gs->cap * sizeof *gs->g);
	}
	struct group *g = &gs->g[gs->n++];
	memset(g, 0, sizeof *g);
	g->key = xstrdup(key);
	g->first_id = INT64_MAX;
	return g;
}

static void group_add(struct group *g, const struct point *p)
{
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 16;
		g->values = xrealloc(g->values, g->cap * sizeof *g->values);
	}
	g->values[g->n++] = p->value;
	const char *t = p->captured ? p->captured : "";
	if (!g->first_time || strcmp(t, g->first_time) < 0 ||
	    (strcmp(t, g->first_time) == 0 && p->id < g->first_id)) {
		free(g->first_time);
		g->first_time = xstrdup(t);
		g->first_id = p->id;
	}
}

static int by_version(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	int c = strverscmp(x->key, y->key);
	return c ? c : strcmp(x->key, y->key);
}

static int by_time(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	int c = strcmp(x->first_time, y->first_time);
	if (c)
		return c;
	return x->first_id < y->first_id ? -1 : x->first_id > y->first_id;
}

/* ---- db trend ------------------------------------------------------------------------- */

enum { T_KEY, T_SNAPS, T_MEDIAN, T_MIN, T_MAX, T_CHANGE, T_CHANGE_PCT, T_NCOLS };

int db_trend(struct db *db, const struct db_series_spec *spec, const char *name,
	     struct report *r, char **err)
{
	struct points ps = { 0 };
	if (fetch(db, spec, name, NULL, -1, &ps, err) < 0) {
		points_free(&ps);
		return -1;
	}
	struct groups gs = { 0 };
	for (size_t i = 0; i < ps.n; i++) {
		char label[96];
		const char *key = spec->by ? ps.p[i].group : label;
		if (!spec->by)
			snprintf(label, sizeof label, "%s #%" PRId64, ps.p[i].captured && *ps.p[i].captured ?
				 ps.p[i].captured : "-", ps.p[i].id);
		group_add(group_for(&gs, key ? key : ""), &ps.p[i]);
	}
	if (gs.n)
		qsort(gs.g, gs.n, sizeof *gs.g, spec->by && !spec->by_time ? by_version : by_time);
	char *what = describe(spec, name);
	char *q = xasprintf("trend of %s%s%s", what, spec->by ? " by " : " over capture time",
			    spec->by ? spec->by : "");
	describe_report(r, db->target, q);
	struct column cols[T_NCOLS] = {
		{ spec->by ? spec->by : "snapshot", spec->by ? "TAG" : "SNAPSHOT", CELL_STR, false },
		{ "snapshots", "SNAPSHOTS", CELL_U64, false },
		{ "median_kib", "MEDIAN_KIB", CELL_F64, false },
		{ "min_kib", "MIN_KIB", CELL_F64, false }, { "max_kib", "MAX_KIB", CELL_F64, false },
		{ "change_kib", "CHANGE_KIB", CELL_F64, false },
		{ "change_pct", "CHANGE_%", CELL_F64, false },
	};
	char *title = xasprintf("%s, %s", what, spec->by ? "median per tag value" :
				"per snapshot in capture order");
	struct table *t = table_new("trend", title, STYLE_GRID, T_NCOLS, cols);
	free(title);
	for (size_t i = 0; i < gs.n; i++) {
		struct group *g = &gs.g[i];
		g->st = stats_of(g->values, g->n);
		size_t row = table_add_row(t);
		table_set_str(t, row, T_KEY, g->key);
		table_set_u64(t, row, T_SNAPS, g->n);
		table_set_f64(t, row, T_MEDIAN, kib(g->st.median));
		table_set_f64(t, row, T_MIN, kib((double)g->st.min));
		table_set_f64(t, row, T_MAX, kib((double)g->st.max));
		if (i) {
			double prev = gs.g[i - 1].st.median;
			table_set_f64(t, row, T_CHANGE, kib(g->st.median - prev));
			if (prev > 0)
				table_set_f64(t, row, T_CHANGE_PCT, 100.0 * (g->st.median - prev) / prev);
		}
	}
	for (size_t c = T_MEDIAN; c <= T_CHANGE; c++)
		table_set_decimals(t, c, 1);
	table_set_decimals(t, T_CHANGE_PCT, 2);
	size_t partial = partial_snapshots(&ps);
	if (!gs.n)
		table_set_note(t, "no %ssnapshot has %s%s%s", spec->include_partial ? "" : "complete ",
			       what, spec->by ? " and a tag " : "", spec->by ? spec->by : "");
	else if (partial) {
		table_set_note(t, "PARTIAL: %zu of the snapshots used are partial (--include-partial): "
			       "their numbers are incomplete", partial);
		report_set_partial(r, "%zu partial snapshots included (--include-partial)", partial);
	}
	/* The chart: the median per group in the table's order, min and max beside it. */
	if (gs.n) {
		char *ctitle = xasprintf("%s (KiB)%s", what, spec->by ? ": median, min and max per tag value" : "");
		t->lines = line_chart_new(ctitle, spec->by ? spec->by : "snapshot, in capture order", "KiB");
		free(ctitle);
		const char **labels = xcalloc(gs.n, sizeof *labels);
		for (size_t i = 0; i < gs.n; i++)
			labels[i] = gs.g[i].key;
		line_chart_set_x_labels(t->lines, gs.n, labels);
		free(labels);
		bool spread = false;
		for (size_t i = 0; i < gs.n; i++)
			spread |= gs.g[i].st.min != gs.g[i].st.max;
		struct line_series *ls = line_chart_add_series(t->lines, spec->by ? "median" : "value",
							       "data", false, gs.n);
		for (size_t i = 0; i < gs.n; i++)
			ls->x[i] = (double)(i + 1), ls->y[i] = kib(gs.g[i].st.median);
		for (int k = 0; spread && k < 2; k++) {
			ls = line_chart_add_series(t->lines, k ? "max" : "min", "data", true, gs.n);
			for (size_t i = 0; i < gs.n; i++)
				ls->x[i] = (double)(i + 1),
				ls->y[i] = kib((double)(k ? gs.g[i].st.max : gs.g[i].st.min));
		}
	}
	report_add(r, t);
	free(what), free(q);
	groups_free(&gs);
	points_free(&ps);
	return 0;
}

/* ---- per-name statistics for one selection (compare, check) --------------------------- */

struct named_stats {
	char *name;
	struct stats st;
};

struct selection {
	struct named_stats *s;
	size_t n;
	size_t snapshots; /* distinct snapshots in the selection */
	size_t partial;   /* of them partial (--include-partial) */
	char *label;      /* "firmware=1.2" or "snapshot 17" */
};

static void selection_free(struct selection *sel)
{
	for (size_t i = 0; i < sel->n; i++)
		free(sel->s[i].name);
	free(sel->s), free(sel->label);
	memset(sel, 0, sizeof *sel);
}

static int cmp_named(const void *a, const void *b)
{
	return strcmp(((const struct named_stats *)a)->name, ((const struct named_stats *)b)->name);
}

/* Per subject name, the statistics over the selected snapshots. A name absent from some
 * snapshots counts 0 there: a process that is gone uses no memory. */
static int select_stats(struct db *db, const struct db_series_spec *spec, const char *name,
			const struct db_tag *only, int64_t only_id, struct selection *sel, char **err)
{
	struct points ps = { 0 };
	struct db_series_spec s = *spec;
	s.by = NULL;
	if (fetch(db, &s, name, only, only_id, &ps, err) < 0) {
		points_free(&ps);
		return -1;
	}
	/* distinct snapshot ids (points come in id order) */
	int64_t *ids = xcalloc(ps.n + 1, sizeof *ids);
	size_t nids = 0;
	for (size_t i = 0; i < ps.n; i++)
		if (!nids || ids[nids - 1] != ps.p[i].id)
			ids[nids++] = ps.p[i].id;
	/* snapshots the selection holds but that have none of the subject still count */
	struct points all = { 0 };
	struct db_series_spec tot = { .subject = DB_SUBJECT_TOTAL, .measure = "user",
				      .filters = spec->filters, .nfilters = spec->nfilters,
				      .include_partial = spec->include_partial };
	if (fetch(db, &tot, NULL, only, only_id, &all, err) < 0) {
		points_free(&all), points_free(&ps);
		free(ids);
		return -1;
	}
	sel->partial = partial_snapshots(&all);
	if (all.n > nids) {
		free(ids);
		ids = xcalloc(all.n + 1, sizeof *ids);
		nids = 0;
		for (size_t i = 0; i < all.n; i++)
			ids[nids++] = all.p[i].id;
	}
	points_free(&all);
	sel->snapshots = nids;
	struct groups gs = { 0 };
	for (size_t i = 0; i < ps.n; i++)
		group_add(group_for(&gs, ps.p[i].name), &ps.p[i]);
	sel->s = xcalloc(gs.n + 1, sizeof *sel->s);
	for (size_t i = 0; i < gs.n; i++) {
		struct group *g = &gs.g[i];
		/* zeros for the snapshots where the name did not appear */
		while (g->n < nids) {
			struct point zero = { .id = INT64_MAX, .value = 0 };
			group_add(g, &zero);
		}
		sel->s[sel->n].name = xstrdup(g->key);
		sel->s[sel->n++].st = stats_of(g->values, g->n);
	}
	if (sel->n)
		qsort(sel->s, sel->n, sizeof *sel->s, cmp_named);
	groups_free(&gs);
	points_free(&ps);
	free(ids);
	return 0;
}

static const struct named_stats *find_named(const struct selection *sel, const char *name)
{
	struct named_stats key = { .name = (char *)name };
	return bsearch(&key, sel->s, sel->n, sizeof *sel->s, cmp_named);
}

/* Included partial snapshots are never used silently. */
static void note_partial(struct report *r, struct table *t, const struct selection *a,
			 const struct selection *b)
{
	if ((a->partial || b->partial) && !r->partial)
		report_set_partial(r, "%zu partial snapshots of %s and %zu of %s included "
				   "(--include-partial)", a->partial, a->label, b->partial, b->label);
	if (a->partial || b->partial)
		table_set_note(t, "PARTIAL: %zu of %s's and %zu of %s's snapshots are partial "
			       "(--include-partial): their numbers are incomplete", a->partial, a->label,
			       b->partial, b->label);
}

/* ---- db compare ------------------------------------------------------------------------- */

enum { C_NAME, C_A_N, C_A_MED, C_A_MIN, C_A_MAX, C_B_N, C_B_MED, C_B_MIN, C_B_MAX, C_DELTA,
       C_DELTA_PCT, C_NCOLS };

struct cmp_row {
	const char *name;
	const struct named_stats *a, *b;
	double delta;
};

static int cmp_rows_by_delta(const void *x, const void *y)
{
	const struct cmp_row *a = x, *b = y;
	double da = fabs(a->delta), dbv = fabs(b->delta);
	if (da != dbv)
		return da > dbv ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* Check rows: the largest relative growth first (new names after every known one that
 * grew), then by absolute change. */
static int cmp_rows_by_growth(const void *x, const void *y)
{
	const struct cmp_row *a = x, *b = y;
	double pa = a->a && a->a->st.median > 0 ? a->delta / a->a->st.median : -INFINITY;
	double pb = b->a && b->a->st.median > 0 ? b->delta / b->a->st.median : -INFINITY;
	if (pa != pb)
		return pa > pb ? -1 : 1;
	return cmp_rows_by_delta(x, y);
}

static void compare_table(const struct db_series_spec *spec, const struct selection *a,
			  const struct selection *b, struct report *r)
{
	struct column cols[C_NCOLS] = {
		{ db_subject_name(spec->subject), "NAME", CELL_STR, false },
		{ "a_snapshots", "A_N", CELL_U64, false }, { "a_median_kib", "A_MEDIAN", CELL_F64, false },
		{ "a_min_kib", "A_MIN", CELL_F64, false }, { "a_max_kib", "A_MAX", CELL_F64, false },
		{ "b_snapshots", "B_N", CELL_U64, false }, { "b_median_kib", "B_MEDIAN", CELL_F64, false },
		{ "b_min_kib", "B_MIN", CELL_F64, false }, { "b_max_kib", "B_MAX", CELL_F64, false },
		{ "delta_kib", "DELTA_KIB", CELL_F64, false }, { "delta_pct", "DELTA_%", CELL_F64, false },
	};
	const char *measure = spec->measure ? spec->measure : db_default_measure(spec->subject);
	char *title = xasprintf("%s %s (KiB): A = %s (%zu snapshots), B = %s (%zu snapshots); "
				"median, min and max per side", db_subject_name(spec->subject), measure,
				a->label, a->snapshots, b->label, b->snapshots);
	char *id = xasprintf("compare-%s", db_subject_name(spec->subject));
	struct table *t = table_new(id, title, STYLE_GRID, C_NCOLS, cols);
	free(title), free(id);
	struct cmp_row *rows = xcalloc(a->n + b->n + 1, sizeof *rows);
	size_t n = 0;
	for (size_t i = 0; i < a->n; i++) {
		const struct named_stats *other = find_named(b, a->s[i].name);
		rows[n++] = (struct cmp_row){ a->s[i].name, &a->s[i], other,
					      (other ? other->st.median : 0) - a->s[i].st.median };
	}
	for (size_t i = 0; i < b->n; i++)
		if (!find_named(a, b->s[i].name))
			rows[n++] = (struct cmp_row){ b->s[i].name, NULL, &b->s[i], b->s[i].st.median };
	if (n)
		qsort(rows, n, sizeof *rows, cmp_rows_by_delta);
	for (size_t i = 0; i < n; i++) {
		size_t row = table_add_row(t);
		table_set_str(t, row, C_NAME, rows[i].name);
		const struct named_stats *sides[2] = { rows[i].a, rows[i].b };
		for (int s = 0; s < 2; s++) {
			size_t base = s ? C_B_N : C_A_N;
			if (!sides[s])
				continue;
			table_set_u64(t, row, base, sides[s]->st.n);
			table_set_f64(t, row, base + 1, kib(sides[s]->st.median));
			table_set_f64(t, row, base + 2, kib((double)sides[s]->st.min));
			table_set_f64(t, row, base + 3, kib((double)sides[s]->st.max));
		}
		table_set_f64(t, row, C_DELTA, kib(rows[i].delta));
		if (rows[i].a && rows[i].a->st.median > 0)
			table_set_f64(t, row, C_DELTA_PCT, 100.0 * rows[i].delta / rows[i].a->st.median);
	}
	for (size_t c = C_A_MED; c <= C_DELTA; c++)
		if (c != C_B_N)
			table_set_decimals(t, c, 1);
	table_set_decimals(t, C_DELTA_PCT, 2);
	free(rows);
	note_partial(r, t, a, b);
	report_add(r, t);
}

static char *tag_label(const struct db_tag *t) { return xasprintf("%s=%s", t->key, t->value); }

int db_compare(struct db *db, const struct db_series_spec *specs, size_t nspecs,
	       const struct db_tag *a, const struct db_tag *b, struct report *r, char **err)
{
	char *la = tag_label(a), *lb = tag_label(b);
	char *q = xasprintf("compare %s with %s", la, lb);
	describe_report(r, db->target, q);
	free(q);
	int rc = 0;
	for (size_t i = 0; i < nspecs && rc == 0; i++) {
		struct selection sa = { 0 }, sb = { 0 };
		if (select_stats(db, &specs[i], NULL, a, -1, &sa, err) < 0 ||
		    select_stats(db, &specs[i], NULL, b, -1, &sb, err) < 0) {
			rc = -1;
		} else if (i == 0 && (!sa.snapshots || !sb.snapshots)) {
			ps_set_err(err, "no %ssnapshot has the tag %s", specs[i].include_partial ? "" :
				   "complete ", !sa.snapshots ? la : lb);
			rc = -1;
		} else {
			sa.label = xstrdup(la), sb.label = xstrdup(lb);
			compare_table(&specs[i], &sa, &sb, r);
		}
		selection_free(&sa), selection_free(&sb);
	}
	free(la), free(lb);
	return rc;
}

/* ---- db check ---------------------------------------------------------------------------- */

enum { K_NAME, K_BASE, K_CAND, K_GROWTH, K_GROWTH_PCT, K_LIMIT, K_STATUS, K_NCOLS };

int db_check(struct db *db, const struct db_check_spec *c, struct report *r, size_t *offenders,
	     char **err)
{
	*offenders = 0;
	const struct db_series_spec *spec = &c->series;
	if (!find_measure(spec->subject, spec->measure, err))
		return -1;
	/* The candidate: the tag given, or the newest complete snapshot outside the baseline. */
	int64_t cand_id = -1;
	char *cand_label = NULL;
	if (!c->candidate) {
		char *v = NULL;
		const char *p[] = { c->baseline.key, c->baseline.value };
		char *sql = xasprintf("SELECT max(s.id) FROM snapshot s WHERE %s AND NOT EXISTS "
				      "(SELECT 1 FROM tag b WHERE b.snapshot_id = s.id AND b.key = $1 "
				      "AND b.value = $2)", spec->include_partial ? "1 = 1" : "s.complete = 1");
		int rc = db_query_value(db, sql, 2, p, &v, err);
		free(sql);
		if (rc < 0)
			return -1;
		if (!v) {
			ps_set_err(err, "no %ssnapshot outside the baseline %s=%s to check (import the "
				   "candidate, or name it with --candidate)", spec->include_partial ?
				   "" : "complete ", c->baseline.key, c->baseline.value);
			return -1;
		}
		cand_id = strtoll(v, NULL, 10);
		cand_label = xasprintf("snapshot %s", v);
		free(v);
	} else {
		cand_label = tag_label(c->candidate);
	}
	struct selection base = { 0 }, cand = { 0 };
	int rc = -1;
	const char *name = c->each ? NULL : c->name;
	if (select_stats(db, spec, name, &c->baseline, -1, &base, err) < 0 ||
	    select_stats(db, spec, name, c->candidate, cand_id, &cand, err) < 0)
		goto out;
	base.label = tag_label(&c->baseline);
	cand.label = xstrdup(cand_label);
	if (!base.snapshots) {
		ps_set_err(err, "the baseline %s has no %ssnapshot: nothing to check against",
			   base.label, spec->include_partial ? "" : "complete ");
		goto out;
	}
	if (!cand.snapshots) {
		ps_set_err(err, "the candidate %s has no %ssnapshot", cand.label,
			   spec->include_partial ? "" : "complete ");
		goto out;
	}
	const char *measure = spec->measure ? spec->measure : db_default_measure(spec->subject);
	char *q = xasprintf("check %s %s: %s against baseline %s, growth limit %.2f%%%s",
			    db_subject_name(spec->subject), measure, cand.label, base.label,
			    c->max_growth_pct, c->min_growth_bytes ? " and the minimum growth" : "");
	describe_report(r, db->target, q);
	free(q);
	struct column cols[K_NCOLS] = {
		{ db_subject_name(spec->subject), "NAME", CELL_STR, false },
		{ "baseline_kib", "BASELINE_KIB", CELL_F64, false },
		{ "candidate_kib", "CANDIDATE_KIB", CELL_F64, false },
		{ "growth_kib", "GROWTH_KIB", CELL_F64, false },
		{ "growth_pct", "GROWTH_%", CELL_F64, false },
		{ "limit_pct", "LIMIT_%", CELL_F64, false },
		{ "status", "STATUS", CELL_STR, false },
	};
	char *title = xasprintf("%s %s: candidate %s (median of %zu) against baseline %s (median of "
				"%zu)", db_subject_name(spec->subject), measure, cand.label,
				cand.snapshots, base.label, base.snapshots);
	struct table *t = table_new("check", title, STYLE_GRID, K_NCOLS, cols);
	free(title);
	/* every name in either side: a name gone from the candidate shrank to 0 */
	struct cmp_row *rows = xcalloc(base.n + cand.n + 1, sizeof *rows);
	size_t n = 0;
	for (size_t i = 0; i < base.n; i++) {
		const struct named_stats *o = find_named(&cand, base.s[i].name);
		rows[n++] = (struct cmp_row){ base.s[i].name, &base.s[i], o,
					      (o ? o->st.median : 0) - base.s[i].st.median };
	}
	for (size_t i = 0; i < cand.n; i++)
		if (!find_named(&base, cand.s[i].name))
			rows[n++] = (struct cmp_row){ cand.s[i].name, NULL, &cand.s[i], cand.s[i].st.median };
	if (n)
		qsort(rows, n, sizeof *rows, cmp_rows_by_growth);
	for (size_t i = 0; i < n; i++) {
		double bv = rows[i].a ? rows[i].a->st.median : 0, cv = rows[i].b ? rows[i].b->st.median : 0;
		double growth = cv - bv, pct = bv > 0 ? 100.0 * growth / bv : 0;
		const char *status;
		if (!rows[i].a) {
			status = "new";
		} else if (growth > 0 && pct > c->max_growth_pct && growth >= (double)c->min_growth_bytes) {
			status = "FAIL";
			(*offenders)++;
			char *what = spec->subject == DB_SUBJECT_TOTAL
				     ? xasprintf("total %s", measure)
				     : xasprintf("%s '%s' %s", db_subject_name(spec->subject), rows[i].name,
						 measure);
			fprintf(stderr, "pagesleuth db check: %s grew %.2f%% (%.1f KiB -> %.1f KiB, +%.1f "
				"KiB), limit %.2f%%: baseline %s (median of %zu), candidate %s (median of "
				"%zu)\n", what, pct, kib(bv), kib(cv), kib(growth), c->max_growth_pct,
				base.label, base.snapshots, cand.label, cand.snapshots);
			free(what);
		} else {
			status = "ok";
		}
		size_t row = table_add_row(t);
		table_set_str(t, row, K_NAME, rows[i].name);
		if (rows[i].a)
			table_set_f64(t, row, K_BASE, kib(bv));
		table_set_f64(t, row, K_CAND, kib(cv));
		table_set_f64(t, row, K_GROWTH, kib(growth));
		if (rows[i].a && bv > 0)
			table_set_f64(t, row, K_GROWTH_PCT, pct);
		table_set_f64(t, row, K_LIMIT, c->max_growth_pct);
		table_set_str(t, row, K_STATUS, status);
	}
	for (size_t col = K_BASE; col <= K_GROWTH; col++)
		table_set_decimals(t, col, 1);
	table_set_decimals(t, K_GROWTH_PCT, 2);
	table_set_decimals(t, K_LIMIT, 2);
	if (!n)
		table_set_note(t, "nothing to check: neither side has %s", name ? name : "any entry");
	note_partial(r, t, &base, &cand);
	free(rows);
	report_add(r, t);
	rc = 0;
out:
	selection_free(&base), selection_free(&cand);
	free(cand_label);
	return rc;
}
