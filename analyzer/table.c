/* table.c - the table container analyses fill and renderers read. */
#include "table.h"
#include "xalloc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct table *table_new(const char *id, const char *title, enum table_style style,
			size_t ncols, const struct column *cols)
{
	struct table *t = xrealloc(NULL, sizeof *t);
	memset(t, 0, sizeof *t);
	t->id = xstrdup(id);
	t->title = xstrdup(title);
	t->style = style;
	t->ncols = ncols;
	t->cols = xrealloc(NULL, ncols * sizeof *cols);
	for (size_t i = 0; i < ncols; i++) { /* the table owns its column names */
		t->cols[i] = cols[i];
		t->cols[i].name = xstrdup(cols[i].name);
		t->cols[i].title = xstrdup(cols[i].title ? cols[i].title : cols[i].name);
	}
	return t;
}

struct table *table_new_map(const char *id, const char *title)
{
	static const struct column cols[MAP_NCOLS] = {
		[MAP_COL_GROUP] = { "group", "GROUP", CELL_STR, false },
		[MAP_COL_VMA] = { "vma", "VMA", CELL_STR, false },
		[MAP_COL_FLAGS] = { "flags", "FLAGS", CELL_STR, false },
		[MAP_COL_KIND] = { "kind", "KIND", CELL_STR, false },
		[MAP_COL_UNIT] = { "unit", "UNIT", CELL_STR, false },
		[MAP_COL_OFFSET] = { "offset", "PAGE", CELL_U64, true },
		[MAP_COL_MAP] = { "map", "MAP", CELL_STR, false },
		[MAP_COL_SKIP] = { "skip", "SKIP", CELL_U64, false },
	};
	return table_new(id, title, STYLE_MAP, MAP_NCOLS, cols);
}

void table_free(struct table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		if (t->cells[i].kind == CELL_STR && !t->cells[i].borrowed)
			free(t->cells[i].s);
	for (size_t i = 0; i < t->ncols; i++)
		free((char *)t->cols[i].name), free((char *)t->cols[i].title);
	free(t->cells), free(t->cols), free(t->id), free(t->title), free(t->note), free(t->chart);
	free(t->delta);
	line_chart_free(t->lines);
	frame_map_free(t->fmap);
	free(t->decimals);
	free(t);
}

struct line_chart *line_chart_new(const char *title, const char *x_unit, const char *y_unit)
{
	struct line_chart *c = xcalloc(1, sizeof *c);
	c->title = xstrdup(title);
	c->x_unit = xstrdup(x_unit);
	c->y_unit = xstrdup(y_unit);
	return c;
}

struct line_series *line_chart_add_series(struct line_chart *c, const char *name,
					  const char *colour, bool thin, size_t n)
{
	c->series = xrealloc(c->series, (c->nseries + 1) * sizeof *c->series);
	struct line_series *s = &c->series[c->nseries++];
	s->name = xstrdup(name);
	s->colour = xstrdup(colour);
	s->thin = thin;
	s->n = n;
	s->x = xcalloc(n ? n : 1, sizeof *s->x);
	s->y = xcalloc(n ? n : 1, sizeof *s->y);
	return s;
}

void line_chart_add_marker(struct line_chart *c, double x, double y, const char *colour,
			   const char *label)
{
	if (c->nmarkers >= LINE_CHART_MAX_MARKERS) {
		c->markers_dropped++;
		return;
	}
	c->markers = xrealloc(c->markers, (c->nmarkers + 1) * sizeof *c->markers);
	c->markers[c->nmarkers++] = (struct line_marker){ x, y, xstrdup(colour), xstrdup(label) };
}

void line_chart_add_vline(struct line_chart *c, double x, const char *label)
{
	if (c->nvlines >= LINE_CHART_MAX_VLINES) {
		c->vlines_dropped++;
		return;
	}
	c->vlines = xrealloc(c->vlines, (c->nvlines + 1) * sizeof *c->vlines);
	c->vlines[c->nvlines++] = (struct line_vline){ x, xstrdup(label) };
}

void line_chart_set_x_labels(struct line_chart *c, size_t n, const char *const *labels)
{
	for (size_t i = 0; i < c->nx_labels; i++)
		free(c->x_labels[i]);
	free(c->x_labels);
	c->x_labels = xcalloc(n + 1, sizeof *c->x_labels);
	for (size_t i = 0; i < n; i++)
		c->x_labels[i] = xstrdup(labels[i]);
	c->nx_labels = n;
}

void line_chart_free(struct line_chart *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nx_labels; i++)
		free(c->x_labels[i]);
	free(c->x_labels);
	for (size_t i = 0; i < c->nseries; i++)
		free(c->series[i].name), free(c->series[i].colour), free(c->series[i].x),
			free(c->series[i].y);
	for (size_t i = 0; i < c->nmarkers; i++)
		free(c->markers[i].colour), free(c->markers[i].label);
	for (size_t i = 0; i < c->nvlines; i++)
		free(c->vlines[i].label);
	free(c->series), free(c->markers), free(c->vlines);
	free(c->title), free(c->x_unit), free(c->y_unit);
	free(c);
}

size_t table_add_row(struct table *t)
{
	if (t->nrows == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->cells = xrealloc(t->cells, t->cap * t->ncols * sizeof *t->cells);
	}
	memset(&t->cells[t->nrows * t->ncols], 0, t->ncols * sizeof *t->cells);
	return t->nrows++;
}

struct cell *table_cell(struct table *t, size_t row, size_t col)
{
	return &t->cells[row * t->ncols + col];
}

const struct cell *table_cell_c(const struct table *t, size_t row, size_t col)
{
	return &t->cells[row * t->ncols + col];
}

static struct cell *reset(struct table *t, size_t row, size_t col)
{
	struct cell *c = table_cell(t, row, col);
	if (c->kind == CELL_STR && !c->borrowed)
		free(c->s);
	c->kind = CELL_NONE;
	c->borrowed = false;
	return c;
}

void table_set_str(struct table *t, size_t row, size_t col, const char *s)
{
	struct cell *c = reset(t, row, col);
	c->kind = CELL_STR;
	c->s = xstrdup(s);
}

void table_set_str_ref(struct table *t, size_t row, size_t col, const char *s)
{
	struct cell *c = reset(t, row, col);
	c->kind = CELL_STR;
	c->borrowed = true;
	c->s = (char *)(s ? s : "");
}

void table_set_u64(struct table *t, size_t row, size_t col, uint64_t v)
{
	struct cell *c = reset(t, row, col);
	c->kind = CELL_U64;
	c->u = v;
}

void table_set_i64(struct table *t, size_t row, size_t col, int64_t v)
{
	struct cell *c = reset(t, row, col);
	c->kind = CELL_I64;
	c->i = v;
}

void table_set_f64(struct table *t, size_t row, size_t col, double v)
{
	struct cell *c = reset(t, row, col);
	c->kind = CELL_F64;
	c->f = v;
}

void table_set_decimals(struct table *t, size_t col, unsigned char decimals)
{
	if (!t->decimals)
		t->decimals = xcalloc(t->ncols ? t->ncols : 1, 1);
	if (col < t->ncols)
		t->decimals[col] = decimals;
}

void table_set_note(struct table *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	free(t->note);
	t->note = xvasprintf(fmt, ap);
	va_end(ap);
}

static int cell_cmp(const struct cell *a, const struct cell *b)
{
	if (a->kind != b->kind)
		return (int)a->kind - (int)b->kind;
	switch (a->kind) {
	case CELL_STR: return strcmp(a->s, b->s);
	case CELL_U64: return (a->u > b->u) - (a->u < b->u);
	case CELL_I64: return (a->i > b->i) - (a->i < b->i);
	case CELL_F64: return (a->f > b->f) - (a->f < b->f);
	default: return 0;
	}
}

/* qsort has no context argument in C11: sort an index array with a file-scope context. */
static const struct table *sort_table;
static size_t sort_col;
static bool sort_desc;

static int row_cmp(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	int c = cell_cmp(table_cell_c(sort_table, a, sort_col), table_cell_c(sort_table, b, sort_col));
	if (sort_desc)
		c = -c;
	return c ? c : (a > b) - (a < b); /* stable */
}

void table_sort(struct table *t, size_t col, bool desc)
{
	if (t->nrows < 2)
		return;
	size_t *idx = xrealloc(NULL, t->nrows * sizeof *idx);
	for (size_t i = 0; i < t->nrows; i++)
		idx[i] = i;
	sort_table = t, sort_col = col, sort_desc = desc;
	if (t->nrows > 1)
		qsort(idx, t->nrows, sizeof *idx, row_cmp);
	struct cell *sorted = xrealloc(NULL, t->cap * t->ncols * sizeof *sorted);
	for (size_t i = 0; i < t->nrows; i++)
		memcpy(&sorted[i * t->ncols], &t->cells[idx[i] * t->ncols], t->ncols * sizeof *sorted);
	free(t->cells);
	t->cells = sorted;
	free(idx);
}

void report_add(struct report *r, struct table *t)
{
	r->tables = xrealloc(r->tables, (r->ntables + 1) * sizeof *r->tables);
	r->tables[r->ntables++] = t;
}

struct table *report_find(const struct report *r, const char *id)
{
	for (size_t i = 0; i < r->ntables; i++)
		if (strcmp(r->tables[i]->id, id) == 0)
			return r->tables[i];
	return NULL;
}

void report_set_partial(struct report *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *line = xvasprintf(fmt, ap);
	va_end(ap);
	xappendf(&r->partial_why, "%s", line);
	free(line);
	r->partial = true;
}

void report_free(struct report *r)
{
	for (size_t i = 0; i < r->ntables; i++)
		table_free(r->tables[i]);
	free(r->tables);
	free(r->source), free(r->arch), free(r->release), free(r->dump), free(r->time);
	free(r->excluded), free(r->partial_why), free(r->warnings), free(r->headline);
	free(r->database), free(r->query), free(r->diff_a), free(r->diff_b);
	memset(r, 0, sizeof *r);
}

const char *bytes_human(uint64_t bytes, char buf[BYTES_HUMAN_MAX])
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	if (bytes < 1024) {
		snprintf(buf, BYTES_HUMAN_MAX, "%llu B", (unsigned long long)bytes);
		return buf;
	}
	double v = (double)bytes / 1024;
	size_t k = 0;
	/* three digits: 9.96 KiB prints as 10.0, 1023.6 KiB as 1.0 MiB (never "1024 KiB") */
	while (v >= 1023.5 && k + 1 < sizeof units / sizeof units[0])
		v /= 1024, k++;
	snprintf(buf, BYTES_HUMAN_MAX, v < 99.95 ? "%.1f %s" : "%.0f %s", v, units[k]);
	return buf;
}

const char *size_units_name(enum size_units u)
{
	return u == UNITS_KIB ? "kib" : u == UNITS_PAGES ? "pages" : "human";
}

int size_units_parse(const char *name, enum size_units *u)
{
	static const enum size_units all[] = { UNITS_HUMAN, UNITS_KIB, UNITS_PAGES };
	for (size_t i = 0; i < sizeof all / sizeof *all; i++)
		if (strcmp(name, size_units_name(all[i])) == 0) {
			*u = all[i];
			return 0;
		}
	return -1;
}

const char *column_unit(const struct column *col)
{
	switch (col->format) {
	case COL_BYTES: return "bytes";
	case COL_PAGES: return "pages";
	case COL_KIB: return "KiB";
	default: return NULL;
	}
}

void frame_map_free(struct frame_map *fm)
{
	if (!fm)
		return;
	if (fm->cell_owner)
		for (size_t i = 0; i < fm->cols * fm->rows; i++)
			free(fm->cell_owner[i]);
	free(fm->cell_owner), free(fm->cell), free(fm->class_bytes), free(fm);
}
