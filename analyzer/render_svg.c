/* render_svg.c - charts and resident maps as hand-written SVG 1.1 text (no graphics library,
 * so the same code path serves --svg files and the inline images of the HTML report).
 *
 * render_chart_svg: a horizontal bar chart of the rows with the most physical (resident)
 * memory, largest on top (chart->max_rows of them), stacked by series in a fixed colour per
 * series name; the virtual sizes in a second panel on a scale of their own (a 1.6 GB
 * reservation would flatten every resident bar on a shared axis); the number at each bar's
 * end; a <title> tooltip on every segment and label. 1090 px wide, 18 px a row.
 * render_map_svg / render_svg_map_strips: one group of a STYLE_MAP table (a process, a unit)
 * as one strip per VMA: 4 px a page, or the VMA squeezed into 640 px columns, each column
 * filled from the bottom as far as its pages are resident and coloured by the map character
 * most of them have ('1'..'9' a sequential scale, '#' red, '.' light grey, 's' pink, '?'
 * orange, anything else magenta, so a new character shows up instead of vanishing); the
 * VMA's label and size on the left, the numbers on hover.
 * All text goes through render_xml_escaped, so the output is well-formed XML for any input.
 */
#include "render_common.h"
#include "xalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SVG_FONT "font-family=\"sans-serif\""

static void svg_open(double width, double height, const char *label, bool standalone, FILE *out)
{
	if (standalone)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
	fprintf(out,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" " SVG_FONT " font-size=\"11\" "
		"role=\"img\">\n<title>",
		width, height, width, height);
	render_xml_escaped(label, out);
	fputs("</title>\n", out);
}

/* Byte length of the first max_chars characters of s (invalid bytes count as one). */
static size_t utf8_prefix(const char *s, size_t max_chars, size_t *chars)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), off = 0, n = 0;
	while (off < len && n < max_chars) {
		size_t step = utf8_valid_len(p + off, len - off);
		off += step ? step : 1;
		n++;
	}
	if (chars)
		*chars = n;
	return off;
}

static size_t utf8_chars(const char *s)
{
	size_t n;
	utf8_prefix(s, SIZE_MAX, &n);
	return n;
}

static void si_label(double v, char *buf, size_t size);
static double tick_step(double range);

/* ---- chart ------------------------------------------------------------------------------ */

/* One colour per memory type, so a series looks the same in every chart. */
static const struct {
	const char *name, *colour;
} series_colours[] = {
	{ "text", "#4e79a7" },    { "code", "#4e79a7" },     { "data", "#f28e2b" },     { "bss", "#e15759" },
	{ "heap", "#e15759" },    { "heap_bss", "#e15759" }, { "heap/bss", "#e15759" },
	{ "stack", "#76b7b2" },
	{ "libtext", "#59a14f" }, { "libdata", "#edc948" },  { "libbss", "#b07aa1" },
	{ "anon", "#ff9da7" },    { "file", "#9c755f" },     { "shmem", "#17becf" },
	{ "vdso", "#bcbd22" },    { "swap", "#d37295" },     { "unknown", "#c7c7c7" },
	{ "other", "#79706e" },
};
/* Names not in the table above get a colour by hash, still stable across charts. */
static const char *const spare_colours[] = {
	"#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#aec7e8", "#98df8a",
};

static const char *series_colour(const char *name)
{
	if (!name)
		name = "";
	for (size_t i = 0; i < sizeof series_colours / sizeof *series_colours; i++)
		if (strcmp(series_colours[i].name, name) == 0)
			return series_colours[i].colour;
	uint32_t h = 2166136261u; /* FNV-1a */
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 16777619u;
	return spare_colours[h % (sizeof spare_colours / sizeof *spare_colours)];
}

static double chart_value(const struct table *t, size_t row, size_t col)
{
	if (col >= t->ncols)
		return 0;
	const struct cell *c = table_cell_c(t, row, col);
	switch (c->kind) {
	case CELL_U64: return (double)c->u;
	case CELL_I64: return c->i > 0 ? (double)c->i : 0;
	case CELL_F64: return isfinite(c->f) && c->f > 0 ? c->f : 0;
	default: return 0;
	}
}

static const char *chart_label(const struct table *t, size_t row, char *buf)
{
	size_t col = t->chart->label_col;
	if (col >= t->ncols)
		return "";
	const struct cell *c = table_cell_c(t, row, col);
	if (c->kind == CELL_STR)
		return c->s ? c->s : "";
	const char *num = render_cell_number(NULL, t, col, c, buf, FLOAT_HUMAN);
	return num ? num : "-";
}

/* What the axis shows of a label: the file name of a path (the full label is the tooltip),
 * since "/usr/lib/x86_64-linux-gnu/" would use up the room of every library's label. */
static const char *axis_label(const char *label)
{
	const char *slash = label[0] == '/' ? strrchr(label, '/') : NULL;
	return slash && slash[1] ? slash + 1 : label;
}

enum {
	CHART_W = 1090, CHART_LABEL_X = 8, CHART_LABEL_CHARS = 34, CHART_RES_X0 = 250,
	CHART_RES_X1 = 790, CHART_VIRT_X0 = 870, CHART_VIRT_X1 = 1030, CHART_ROW_H = 18,
	CHART_BAR_H = 12, LEGEND_ROW_H = 16,
};

static double legend_item_width(const char *name)
{
	return 14 + 6.5 * (double)utf8_chars(name) + 14;
}

static double chart_sum(const struct table *t, size_t row, bool phys)
{
	const struct chart *ch = t->chart;
	double sum = 0;
	for (size_t s = 0; s < ch->nseries && s < 16; s++)
		sum += chart_value(t, row, phys ? ch->series[s].phys_col : ch->series[s].virt_col);
	return sum;
}

struct chart_rank {
	double phys;
	size_t row;
};

static int chart_rank_cmp(const void *a, const void *b)
{
	const struct chart_rank *x = a, *y = b;
	if (x->phys != y->phys)
		return x->phys < y->phys ? 1 : -1;
	return (x->row > y->row) - (x->row < y->row);
}

/* One panel's stacked bar of row `row` (physical or virtual series) from x0 at `scale` px per
 * unit; each segment says what it is on hover. */
static void chart_bar(const struct table *t, size_t row, bool phys, double x0, double y,
		      double scale, const char *label, FILE *out)
{
	const struct chart *ch = t->chart;
	const char *unit = ch->unit && *ch->unit ? ch->unit : "pages";
	double x = x0;
	for (size_t s = 0; s < ch->nseries && s < 16; s++) {
		const struct chart_series *se = &ch->series[s];
		double v = chart_value(t, row, phys ? se->phys_col : se->virt_col);
		if (v <= 0)
			continue;
		double w = v * scale;
		fprintf(out, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\"%s><title>",
			x, y, w, CHART_BAR_H, series_colour(se->name), phys ? "" : " fill-opacity=\"0.45\"");
		render_xml_escaped(label, out);
		fputs(": ", out);
		render_xml_escaped(se->name, out);
		fprintf(out, " %s %.0f ", phys ? "resident" : "virtual", v);
		render_xml_escaped(unit, out);
		fputs("</title></rect>", out);
		x += w;
	}
}

/* Ticks and grid lines of one panel, their labels above the rows. */
/* The axis's end: the smallest multiple of a tick step (1, 2 or 5 times a power of ten, about
 * six ticks) at or above max, so the longest bar fills most of its panel. */
static double chart_axis_end(double max, double ticks, double *step_out)
{
	double step = tick_step((max > 0 ? max : 1) * 6 / ticks);
	if (step < 1)
		step = 1;
	if (step_out)
		*step_out = step;
	return ceil((max > 0 ? max : 1) / step) * step;
}

static void chart_axis(double x0, double x1, double max, double top, double bottom, FILE *out)
{
	double step, end = chart_axis_end(max, (x1 - x0) / 90, &step);
	double scale = (x1 - x0) / end;
	char buf[32];
	for (double v = 0; v <= end + step / 2; v += step) {
		si_label(v, buf, sizeof buf);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"10\" fill=\"#555\">%s</text>\n",
			x0 + v * scale, top, x0 + v * scale, bottom, x0 + v * scale, top - 4, buf);
	}
}

/* A horizontal bar chart: the rows with the most physical (resident) memory, largest on top,
 * their resident bars stacked by series on one scale and their virtual sizes in a second
 * panel on a scale of its own, so a 1.6 GB reservation cannot flatten the resident bars. */
void render_svg_chart(const struct table *t, bool standalone, FILE *out)
{
	const struct chart *ch = t->chart;
	size_t nseries = ch->nseries < 16 ? ch->nseries : 16;
	const char *unit = ch->unit && *ch->unit ? ch->unit : "pages";
	struct chart_rank *rank = xcalloc(t->nrows ? t->nrows : 1, sizeof *rank);
	double max_phys = 0, max_virt = 0;
	for (size_t r = 0; r < t->nrows; r++)
		rank[r] = (struct chart_rank){ chart_sum(t, r, true), r };
	if (t->nrows > 1)
		qsort(rank, t->nrows, sizeof *rank, chart_rank_cmp);
	size_t n = ch->max_rows && t->nrows > ch->max_rows ? ch->max_rows : t->nrows;
	for (size_t i = 0; i < n; i++) {
		max_phys = fmax(max_phys, rank[i].phys);
		max_virt = fmax(max_virt, chart_sum(t, rank[i].row, false));
	}
	const char *base = ch->title && *ch->title ? ch->title : t->title;
	char *title = n < t->nrows ? xasprintf("%s: the %zu largest of %zu", base, n, t->nrows)
				   : xasprintf("%s: all %zu", base, t->nrows);

	/* the legend wraps at the chart's width: lay it out first to know the height */
	double legend_top = 34, x = CHART_LABEL_X, legend_rows = 1;
	for (size_t s = 0; s < nseries; s++) {
		double w = legend_item_width(ch->series[s].name ? ch->series[s].name : "");
		if (x + w > CHART_W - 20 && x > CHART_LABEL_X)
			x = CHART_LABEL_X, legend_rows++;
		x += w;
	}
	double rows_top = legend_top + legend_rows * LEGEND_ROW_H + 34;
	double rows_bottom = rows_top + (double)n * CHART_ROW_H;
	double height = rows_bottom + (n ? 8 : 30);

	svg_open(CHART_W, height, title, standalone, out);
	fprintf(out, "<text x=\"%d\" y=\"20\" font-size=\"15\" font-weight=\"bold\">", CHART_LABEL_X);
	render_xml_escaped(title, out);
	fputs("</text>\n<g class=\"legend\">\n", out);
	double y = legend_top;
	x = CHART_LABEL_X;
	for (size_t s = 0; s < nseries; s++) {
		const char *name = ch->series[s].name ? ch->series[s].name : "";
		double w = legend_item_width(name);
		if (x + w > CHART_W - 20 && x > CHART_LABEL_X)
			x = CHART_LABEL_X, y += LEGEND_ROW_H;
		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			"<text x=\"%.1f\" y=\"%.1f\">", x, y, series_colour(name), x + 14, y + 9);
		render_xml_escaped(name, out);
		fputs("</text>\n", out);
		x += w;
	}
	fputs("</g>\n<g class=\"axis\">\n", out);
	fprintf(out, "<text x=\"%d\" y=\"%.1f\" font-weight=\"bold\">resident, ", CHART_RES_X0, rows_top - 20);
	render_xml_escaped(unit, out);
	fprintf(out, "</text><text x=\"%d\" y=\"%.1f\" font-weight=\"bold\">virtual, ", CHART_VIRT_X0,
		rows_top - 20);
	render_xml_escaped(unit, out);
	fputs(" (own scale)</text>\n", out);
	chart_axis(CHART_RES_X0, CHART_RES_X1, max_phys, rows_top, rows_bottom, out);
	chart_axis(CHART_VIRT_X0, CHART_VIRT_X1, max_virt, rows_top, rows_bottom, out);
	fputs("</g>\n", out);
	double res_scale = (CHART_RES_X1 - CHART_RES_X0) / chart_axis_end(max_phys, (CHART_RES_X1 - CHART_RES_X0) / 90.0, NULL);
	double virt_scale = (CHART_VIRT_X1 - CHART_VIRT_X0) / chart_axis_end(max_virt, (CHART_VIRT_X1 - CHART_VIRT_X0) / 90.0, NULL);

	char buf[RENDER_NUM_MAX], sub[RENDER_NUM_MAX];
	for (size_t i = 0; i < n; i++) {
		size_t r = rank[i].row;
		const char *label = chart_label(t, r, buf);
		char *full = NULL;
		if (ch->sublabel && ch->sublabel_col < t->ncols) {
			const struct cell *c = table_cell_c(t, r, ch->sublabel_col);
			const char *s = c->kind == CELL_STR ? c->s : render_cell_number(NULL, t, ch->sublabel_col, c, sub, FLOAT_HUMAN);
			full = xasprintf("%s (%s)", label, s ? s : "-");
			label = full;
		}
		double ry = rows_top + (double)i * CHART_ROW_H, by = ry + (CHART_ROW_H - CHART_BAR_H) / 2.0;
		/* the label: the file name of a path, the start of a long one (all of it on hover) */
		const char *shown = axis_label(label);
		size_t len = utf8_prefix(shown, CHART_LABEL_CHARS, NULL);
		fprintf(out, "<g class=\"bar\"><text x=\"%d\" y=\"%.1f\" font-size=\"11\"><title>", CHART_LABEL_X, by + 10);
		render_xml_escaped(label, out);
		fputs("</title>", out);
		render_xml_escaped_n(shown, len, out);
		if (shown[len])
			fputs("\xe2\x80\xa6", out); /* ... */
		fputs("</text>", out);
		chart_bar(t, r, true, CHART_RES_X0, by, res_scale, label, out);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\">%.0f</text>",
			CHART_RES_X0 + rank[i].phys * res_scale + 4, by + 10, rank[i].phys);
		double virt = chart_sum(t, r, false);
		chart_bar(t, r, false, CHART_VIRT_X0, by, virt_scale, label, out);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"#555\">%.0f</text></g>\n",
			CHART_VIRT_X0 + virt * virt_scale + 4, by + 10, virt);
		free(full);
	}
	fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#333\"/>"
		"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#333\"/>\n",
		CHART_RES_X0, rows_top, CHART_RES_X0, rows_bottom + 2, CHART_VIRT_X0, rows_top,
		CHART_VIRT_X0, rows_bottom + 2);
	if (n == 0)
		fprintf(out, "<text x=\"%d\" y=\"%.1f\">(no rows)</text>\n", CHART_RES_X0 + 10, rows_top + 14);
	fputs("</svg>\n", out);
	free(title);
	free(rank);
}

int render_chart_svg(const struct table *t, FILE *out)
{
	if (!t->chart) {
		errno = EINVAL;
		return -1;
	}
	render_svg_chart(t, true, out);
	return render_finish(out);
}

/* ---- line chart ------------------------------------------------------------------------- */

enum { LINE_W = 960, LINE_LEFT = 78, LINE_RIGHT = 24, LINE_PLOT_H = 280 };

/* A tick step of 1, 2 or 5 times a power of ten giving about six ticks (any magnitude). */
static double tick_step(double range)
{
	double raw = range / 6, magnitude = pow(10, floor(log10(raw)));
	double f = raw / magnitude;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * magnitude;
}

/* 1500000000 -> "1.5G": instruction counts are long. */
static void si_label(double v, char *buf, size_t size)
{
	double a = fabs(v);
	if (a >= 1e12)
		snprintf(buf, size, "%.4gT", v / 1e12);
	else if (a >= 1e9)
		snprintf(buf, size, "%.4gG", v / 1e9);
	else if (a >= 1e6)
		snprintf(buf, size, "%.4gM", v / 1e6);
	else if (a >= 1e4)
		snprintf(buf, size, "%.4gk", v / 1e3);
	else
		snprintf(buf, size, "%.4g", v);
}

struct line_frame { /* the plot's geometry and value ranges */
	double left, right, top, bottom, xmin, xmax, ymax;
};

static double line_px(const struct line_frame *f, double x)
{
	return f->left + (x - f->xmin) / (f->xmax - f->xmin) * (f->right - f->left);
}

static double line_py(const struct line_frame *f, double y)
{
	return f->bottom - y / f->ymax * (f->bottom - f->top);
}

/* One series as a path through at most four points per pixel column: the first, lowest,
 * highest and last value that fall into it. Peaks (and dips) survive any number of points. */
static void line_path(const struct line_frame *f, const struct line_series *s, FILE *out)
{
	long col = LONG_MIN;
	double first = 0, lo = 0, hi = 0, last = 0, px = 0, py = 0;
	size_t points = 0;
	fprintf(out, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"%s stroke-linejoin=\"round\" d=\"",
		series_colour(s->colour), s->thin ? "1" : "1.5", s->thin ? " stroke-dasharray=\"4 3\"" : "");
	for (size_t i = 0; i <= s->n; i++) {
		long c = LONG_MIN;
		double y = 0;
		if (i < s->n) {
			if (!isfinite(s->x[i]) || !isfinite(s->y[i]))
				continue;
			c = (long)floor(line_px(f, s->x[i]) - f->left);
			long last_col = (long)(f->right - f->left) - 1;
			c = c < 0 ? 0 : c > last_col ? last_col : c;
			y = s->y[i];
		}
		if (c != col || i == s->n) {
			if (col != LONG_MIN) {
				double x = f->left + (double)col + 0.5;
				double ys[4] = { first, lo, hi, last };
				for (int k = 0; k < 4; k++) {
					if (k && ys[k] == ys[k - 1])
						continue;
					px = x, py = line_py(f, ys[k]);
					fprintf(out, "%s%.1f %.1f", points++ ? "L" : "M", px, py);
				}
			}
			col = c;
			first = lo = hi = last = y;
			continue;
		}
		lo = fmin(lo, y), hi = fmax(hi, y), last = y;
	}
	fputs("\"/>\n", out);
	if (points == 1) /* a path of one point draws nothing: a single sample is a dot */
		fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\" fill=\"%s\"/>\n", px, py,
			series_colour(s->colour));
}

void render_svg_lines(const struct table *t, bool standalone, FILE *out)
{
	const struct line_chart *c = t->lines;
	const char *title = c->title && *c->title ? c->title : t->title;
	struct line_frame f = { .left = LINE_LEFT, .right = LINE_W - LINE_RIGHT,
				.xmin = INFINITY, .xmax = -INFINITY, .ymax = 0 };
	for (size_t s = 0; s < c->nseries; s++)
		for (size_t i = 0; i < c->series[s].n; i++) {
			double x = c->series[s].x[i], y = c->series[s].y[i];
			if (!isfinite(x) || !isfinite(y))
				continue;
			f.xmin = fmin(f.xmin, x), f.xmax = fmax(f.xmax, x), f.ymax = fmax(f.ymax, y);
		}
	for (size_t i = 0; i < c->nmarkers; i++)
		if (isfinite(c->markers[i].x) && isfinite(c->markers[i].y)) {
			f.xmin = fmin(f.xmin, c->markers[i].x), f.xmax = fmax(f.xmax, c->markers[i].x);
			f.ymax = fmax(f.ymax, c->markers[i].y);
		}
	for (size_t i = 0; i < c->nvlines; i++)
		if (isfinite(c->vlines[i].x))
			f.xmin = fmin(f.xmin, c->vlines[i].x), f.xmax = fmax(f.xmax, c->vlines[i].x);
	if (!(f.xmin <= f.xmax))
		f.xmin = 0, f.xmax = 1;
	if (f.xmin > 0) /* time and spans start at 0 */
		f.xmin = 0;
	if (f.xmax == f.xmin)
		f.xmax = f.xmin + 1;
	if (c->nx_labels) /* categories 1..n, half a slot of room either side */
		f.xmin = 0.5, f.xmax = (double)c->nx_labels + 0.5;
	double ystep = tick_step(f.ymax > 0 ? f.ymax : 1);
	f.ymax = ceil((f.ymax > 0 ? f.ymax : 1) / ystep) * ystep;

	/* legend: series, then the peak dot and the mark line if there are any */
	double legend_top = 36, x = LINE_LEFT, legend_rows = 1;
	size_t nitems = c->nseries + (c->nmarkers > 0) + (c->nvlines > 0);
	for (size_t i = 0; i < nitems; i++) {
		const char *name = i < c->nseries ? c->series[i].name : "";
		double w = 26 + 6.5 * (double)utf8_chars(name ? name : "") + 14;
		if (x + w > f.right && x > LINE_LEFT)
			x = LINE_LEFT, legend_rows++;
		x += w;
	}
	f.top = legend_top + legend_rows * LEGEND_ROW_H + 12;
	f.bottom = f.top + LINE_PLOT_H;
	/* Category labels are written slanted under the axis: room for the longest shown. */
	size_t label_chars = 0;
	for (size_t i = 0; i < c->nx_labels; i++) {
		size_t n = utf8_chars(c->x_labels[i]);
		label_chars = n > label_chars ? n : label_chars;
	}
	if (label_chars > 24)
		label_chars = 24;
	double label_room = c->nx_labels ? 6 + 5.0 * (double)label_chars : 0;
	double height = f.bottom + 44 + label_room;
	double width = fmax(LINE_W, 20 + 8.6 * (double)utf8_chars(title));

	svg_open(width, height, title, standalone, out);
	fputs("<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">", out);
	render_xml_escaped(title, out);
	fputs("</text>\n<g class=\"legend\">\n", out);
	x = LINE_LEFT;
	double y = legend_top;
	for (size_t i = 0; i < nitems; i++) {
		const char *name = i < c->nseries ? c->series[i].name :
				   i == c->nseries && c->nmarkers ? "peak" : "mark";
		double w = 26 + 6.5 * (double)utf8_chars(name ? name : "") + 14;
		if (x + w > f.right && x > LINE_LEFT)
			x = LINE_LEFT, y += LEGEND_ROW_H;
		if (i < c->nseries)
			fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
				"stroke-width=\"%s\"%s/>", x, y + 5, x + 20, y + 5,
				series_colour(c->series[i].colour), c->series[i].thin ? "1" : "2",
				c->series[i].thin ? " stroke-dasharray=\"4 3\"" : "");
		else if (i == c->nseries && c->nmarkers)
			fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"#777\" stroke=\"#fff\"/>",
				x + 10, y + 5);
		else
			fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\" "
				"stroke-dasharray=\"2 2\"/>", x + 10, y - 1, x + 10, y + 11);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">", x + 26, y + 9);
		render_xml_escaped(name ? name : "", out);
		fputs("</text>\n", out);
		x += w;
	}
	fputs("</g>\n", out);

	/* axes: y grid with labels, x ticks with SI labels, the units */
	fputs("<g class=\"axis\" font-size=\"10\">\n", out);
	char buf[32];
	/* Ticks by index, never by accumulating: a step below the values' precision must not
	 * loop forever. */
	for (int k = 0; k <= 20 && k * ystep <= f.ymax + ystep / 2; k++) {
		double v = k * ystep, ty = line_py(&f, v);
		si_label(v, buf, sizeof buf);
		fprintf(out, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			"<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			f.left, ty, f.right, ty, f.left - 6, ty + 3.5, buf);
	}
	/* Categories: every label when they fit, else every k-th (at most 40 shown). */
	size_t every = c->nx_labels > 40 ? (c->nx_labels + 39) / 40 : 1;
	for (size_t i = 0; i < c->nx_labels; i += every) {
		double tx = line_px(&f, (double)(i + 1));
		size_t len = utf8_prefix(c->x_labels[i], 24, NULL);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>"
			"<text transform=\"translate(%.1f %.1f) rotate(-35)\" text-anchor=\"end\"><title>",
			tx, f.bottom, tx, f.bottom + 4, tx + 3, f.bottom + 13);
		render_xml_escaped(c->x_labels[i], out);
		fputs("</title>", out);
		render_xml_escaped_n(c->x_labels[i], len, out);
		if (c->x_labels[i][len])
			fputs("\xe2\x80\xa6", out); /* ... */
		fputs("</text>\n", out);
	}
	double xstep = tick_step(f.xmax - f.xmin);
	double xfirst = ceil(f.xmin / xstep) * xstep;
	for (int k = 0; !c->nx_labels && k <= 20 && xfirst + k * xstep <= f.xmax + xstep * 1e-9; k++) {
		double v = xfirst + k * xstep, tx = line_px(&f, v);
		si_label(fabs(v) < xstep * 1e-9 ? 0 : v, buf, sizeof buf);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
			tx, f.bottom, tx, f.bottom + 4, tx, f.bottom + 15, buf);
	}
	fprintf(out, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#333\"/>"
		"<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#333\"/>\n",
		f.left, f.top, f.left, f.bottom, f.left, f.bottom, f.right, f.bottom);
	fprintf(out, "<text transform=\"translate(14 %.1f) rotate(-90)\" text-anchor=\"middle\">",
		(f.top + f.bottom) / 2);
	render_xml_escaped(c->y_unit && *c->y_unit ? c->y_unit : "", out);
	fprintf(out, "</text>\n<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
		(f.left + f.right) / 2, f.bottom + 32 + label_room);
	render_xml_escaped(c->x_unit && *c->x_unit ? c->x_unit : "", out);
	fputs("</text>\n</g>\n", out);

	/* marks: dashed vertical lines, the label written downwards along the line */
	if (c->nvlines) {
		fputs("<g class=\"marks\" font-size=\"10\" fill=\"#555\">\n", out);
		for (size_t i = 0; i < c->nvlines; i++) {
			const struct line_vline *v = &c->vlines[i];
			if (!isfinite(v->x))
				continue;
			double vx = line_px(&f, v->x);
			size_t len = utf8_prefix(v->label ? v->label : "", 40, NULL);
			fprintf(out, "<g><title>mark at %.0f: ", v->x);
			render_xml_escaped(v->label ? v->label : "", out);
			fprintf(out, "</title><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"#888\" stroke-dasharray=\"2 2\"/>"
				"<text transform=\"translate(%.1f %.1f) rotate(90)\">",
				vx, f.top, vx, f.bottom, vx + 3, f.top + 4);
			render_xml_escaped_n(v->label ? v->label : "", len, out);
			fputs("</text></g>\n", out);
		}
		fputs("</g>\n", out);
	}
	for (size_t s = 0; s < c->nseries; s++)
		line_path(&f, &c->series[s], out);
	if (c->nmarkers) {
		fputs("<g class=\"peaks\">\n", out);
		for (size_t i = 0; i < c->nmarkers; i++) {
			const struct line_marker *mk = &c->markers[i];
			if (!isfinite(mk->x) || !isfinite(mk->y))
				continue;
			fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\" stroke=\"#fff\"><title>",
				line_px(&f, mk->x), line_py(&f, mk->y), series_colour(mk->colour));
			render_xml_escaped(mk->label ? mk->label : "", out);
			fputs("</title></circle>\n", out);
		}
		fputs("</g>\n", out);
	}
	if (c->markers_dropped || c->vlines_dropped)
		fprintf(out, "<text x=\"%.0f\" y=\"%.1f\" font-size=\"10\" fill=\"#c00\">drawn: the first "
			"%zu of %zu peaks and %zu of %zu marks (see the tables)</text>\n", f.left + 6,
			f.top + 12, c->nmarkers, c->nmarkers + c->markers_dropped, c->nvlines,
			c->nvlines + c->vlines_dropped);
	bool empty = true;
	for (size_t s = 0; s < c->nseries; s++)
		empty &= c->series[s].n == 0;
	if (empty)
		fprintf(out, "<text x=\"%.0f\" y=\"%.1f\">(no samples)</text>\n", f.left + 10, f.bottom - 10);
	fputs("</svg>\n", out);
}

int render_lines_svg(const struct table *t, FILE *out)
{
	if (!t->lines) {
		errno = EINVAL;
		return -1;
	}
	render_svg_lines(t, true, out);
	return render_finish(out);
}

/* ---- resident map ----------------------------------------------------------------------- */

enum {
	MAP_CELL = 4, MAP_LINE_PAGES = 64, MAP_LEFT = 8, MAP_TOP = 54, MAP_VMA_H = 15,
	MAP_VMA_GAP = 5, MAP_SKIP_H = 12, MAP_MIN_W = 300, MAP_LEGEND_W = 500,
};

/* '1'..'9' a sequential scale (viridis), then '#', '.', 's', '?', anything else. */
enum { MAP_NCOLOURS = 14 };
static const char *const map_colours[MAP_NCOLOURS] = {
	"#b5de2b", "#6ece58", "#35b779", "#1f9e89", "#26828e", "#31688e", "#3e4989", "#482878",
	"#440154", "#d62728", "#d9d9d9", "#f781bf", "#ff7f0e",
	"#ff00ff", /* not a map character: make it stand out */
};

/* Index into map_colours, or -1 for ' ' (nothing there). */
static int map_colour_index(unsigned char ch)
{
	if (ch >= '1' && ch <= '9')
		return ch - '1';
	switch (ch) {
	case ' ': return -1;
	case '#': return 9;
	case '.': return 10;
	case 's': return 11;
	case '?': return 12;
	default: return 13;
	}
}

/* Path data collected per colour for one VMA, written as one <path> per colour. */
struct path_data {
	char *text;
	size_t len, cap;
};

static void vma_label(const struct table *t, size_t row, FILE *out)
{
	render_xml_escaped(render_map_str(t, row, MAP_COL_VMA), out);
	static const enum map_col fields[] = { MAP_COL_FLAGS, MAP_COL_KIND, MAP_COL_UNIT };
	for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
		const char *s = render_map_str(t, row, fields[i]);
		if (*s) {
			fputs("  ", out);
			render_xml_escaped(s, out);
		}
	}
}

/* Rows of [first, end) that belong to first's group: render_map_svg may be given a group whose
 * rows are interleaved with others'. prev is the previous such row, or SIZE_MAX. */
static bool in_group(const struct table *t, const char *group, size_t row)
{
	return strcmp(render_map_str(t, row, MAP_COL_GROUP), group) == 0;
}

static bool new_vma(const struct table *t, size_t prev, size_t row)
{
	return prev == SIZE_MAX ||
	       strcmp(render_map_str(t, row, MAP_COL_VMA), render_map_str(t, prev, MAP_COL_VMA)) != 0;
}

int render_map_svg(const struct table *t, size_t first, uint32_t page_size, FILE *out)
{
	if (t->style != STYLE_MAP || first >= t->nrows) {
		errno = EINVAL;
		return -1;
	}
	render_svg_map_strips(t, first, render_map_group_end(t, first), page_size ? page_size : 4096,
			      true, out);
	return render_finish(out);
}

/* ---- frame map: the physical address space by class ---------------------------------------- */

static const char *frame_class_colour(const char *name)
{
	static const struct {
		const char *name, *colour;
	} colours[] = {
		{ "free", "#e8e8e8" },    { "unused", "#c9c9c9" }, { "slab", "#e15759" },
		{ "pgtable", "#b07aa1" }, { "anon", "#ff9da7" },   { "file", "#9c755f" },
		{ "shmem", "#17becf" },   { "hugetlb", "#59a14f" }, { "zsmalloc", "#edc948" },
		{ "offline", "#000000" }, { "reserved", "#4e79a7" }, { "kernel", "#f28e2b" },
		{ "vmalloc", "#a0cbe8" },
		{ "unknown", "#ff00ff" },
	};
	for (size_t i = 0; i < sizeof colours / sizeof *colours; i++)
		if (strcmp(colours[i].name, name) == 0)
			return colours[i].colour;
	return "#ffffff";
}


void render_svg_framemap(const struct table *t, bool standalone, FILE *out)
{
	const struct frame_map *fm = t->fmap;
	enum { CELL = 6, LEFT = 96, TOP = 112, BAR_H = 22 };
	double width = LEFT + (double)fm->cols * CELL + 16;
	double height = TOP + (double)fm->rows * CELL + 12;
	svg_open(width, height, "the physical address space by class", standalone, out);
	uint64_t total = 0;
	for (size_t c = 0; c < fm->nclasses; c++)
		total += fm->class_bytes[c];
	char buf[BYTES_HUMAN_MAX], buf2[96];
	bytes_human(total, buf);
	fprintf(out, "<text x=\"%d\" y=\"16\" font-size=\"13\" font-weight=\"bold\">Where all %s of RAM "
		"went, by frame</text>\n", 8, buf);
	/* the stacked bar: each class's share of all frames, largest first as the legend */
	double x = LEFT, bw = (double)fm->cols * CELL;
	size_t order[32], n = 0;
	for (size_t c = 0; c < fm->nclasses && n < 32; c++)
		if (fm->class_bytes[c])
			order[n++] = c;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && fm->class_bytes[order[j]] > fm->class_bytes[order[j - 1]]; j--) {
			size_t tmp = order[j];
			order[j] = order[j - 1], order[j - 1] = tmp;
		}
	fprintf(out, "<text x=\"8\" y=\"%d\" font-size=\"11\">all frames</text>\n", 28 + BAR_H / 2 + 4);
	for (size_t i = 0; i < n && total; i++) {
		const char *name = fm->class_names[order[i]];
		double w = bw * (double)fm->class_bytes[order[i]] / (double)total;
		bytes_human(fm->class_bytes[order[i]], buf);
		fprintf(out, "<rect x=\"%.1f\" y=\"28\" width=\"%.2f\" height=\"%d\" fill=\"%s\"><title>%s: %s "
			"(%.1f%%)</title></rect>\n", x, w, BAR_H, frame_class_colour(name), name, buf,
			100.0 * (double)fm->class_bytes[order[i]] / (double)total);
		x += w;
	}
	/* legend: class, colour, size; on two lines when one does not hold them */
	double lx = LEFT, ly = 58;
	for (size_t i = 0; i < n; i++) {
		const char *name = fm->class_names[order[i]];
		bytes_human(fm->class_bytes[order[i]], buf);
		snprintf(buf2, sizeof buf2, "%s %s", name, buf);
		double w = 16 + 6.2 * (double)strlen(buf2) + 12;
		if (lx + w > width - 8 && lx > LEFT) {
			if (ly > 58)
				break;
			lx = LEFT, ly += 16;
		}
		fprintf(out, "<rect x=\"%.1f\" y=\"%.0f\" width=\"10\" height=\"10\" fill=\"%s\" stroke=\"#999\" "
			"stroke-width=\"0.5\"/><text x=\"%.1f\" y=\"%.0f\" font-size=\"11\">", lx, ly,
			frame_class_colour(name), lx + 14, ly + 9);
		render_xml_escaped(buf2, out);
		fputs("</text>\n", out);
		lx += w;
	}
	/* the map: one row of cells per line, its first PFN on the left */
	bytes_human(fm->frames_per_cell * fm->page_size, buf);
	fprintf(out, "<text x=\"8\" y=\"%d\" font-size=\"11\" fill=\"#555\">physical address "
		"(one cell: %s, coloured by the class most of its frames have; white: no RAM; hover: addresses, class, owner)</text>\n", TOP - 10, buf);
	for (size_t r = 0; r < fm->rows; r++) {
		uint64_t pfn = fm->first_pfn + (uint64_t)r * fm->cols * fm->frames_per_cell;
		if (r % 8 == 0 || r + 1 == fm->rows)
			fprintf(out, "<text x=\"%d\" y=\"%.1f\" font-size=\"9\" fill=\"#555\" "
				"font-family=\"monospace\">%#llx</text>\n", 8, TOP + (double)r * CELL + CELL,
				(unsigned long long)(pfn * fm->page_size));
		/* runs of one class and owner in a row: one rect each, its addresses, class and
		 * largest owner on hover */
		for (size_t c0 = 0; c0 < fm->cols;) {
			size_t i0 = r * fm->cols + c0;
			uint8_t k = fm->cell[i0];
			const char *own = fm->cell_owner ? fm->cell_owner[i0] : NULL;
			size_t c1 = c0 + 1;
			while (c1 < fm->cols && fm->cell[r * fm->cols + c1] == k) {
				const char *o1 = fm->cell_owner ? fm->cell_owner[r * fm->cols + c1] : NULL;
				if ((o1 == NULL) != (own == NULL) || (o1 && strcmp(o1, own)))
					break;
				c1++;
			}
			if (k < fm->nclasses) {
				uint64_t p0 = pfn + c0 * fm->frames_per_cell, p1 = pfn + c1 * fm->frames_per_cell;
				fprintf(out, "<rect x=\"%zu\" y=\"%zu\" width=\"%zu\" height=\"%d\" fill=\"%s\">"
					"<title>%#llx-%#llx: %s", (size_t)LEFT + c0 * CELL, (size_t)TOP + r * CELL,
					(c1 - c0) * CELL, CELL - 1, frame_class_colour(fm->class_names[k]),
					(unsigned long long)(p0 * fm->page_size), (unsigned long long)(p1 * fm->page_size),
					fm->class_names[k]);
				if (own) {
					fputs(", mostly ", out);
					render_xml_escaped(own, out);
				}
				fputs("</title></rect>\n", out);
			}
			c0 = c1;
		}
	}
	fputs("</svg>\n", out);
}

int render_framemap_svg(const struct table *t, FILE *out)
{
	render_svg_framemap(t, true, out);
	return ferror(out) ? -1 : 0;
}

/* ---- the overview at a glance ------------------------------------------------------------ */

static size_t column_named(const struct table *t, const char *name)
{
	for (size_t c = 0; c < t->ncols; c++)
		if (strcmp(t->cols[c].name, name) == 0)
			return c;
	return SIZE_MAX;
}

static uint64_t overview_u64(const struct table *t, size_t row, size_t col, bool *known)
{
	const struct cell *c = col < t->ncols ? table_cell_c(t, row, col) : NULL;
	if (!c || c->kind != CELL_U64) {
		if (known)
			*known = false;
		return 0;
	}
	return c->u;
}

/* One panel: the rows whose WHAT is `what`, a bar each of their PSS, its unique part (USS)
 * solid and its shared part pale, the size at the bar's end. */
static void overview_panel(const struct table *t, const char *what, const char *heading, double x0,
			   double y0, FILE *out)
{
	enum { LABEL_W = 210, BAR_W = 260, ROW_H = 18 };
	size_t cw = column_named(t, "what"), cn = column_named(t, "name");
	size_t cp = column_named(t, "pss_bytes"), cu = column_named(t, "uss_bytes");
	uint64_t max = 0;
	for (size_t r = 0; r < t->nrows; r++)
		if (strcmp(table_cell_c(t, r, cw)->s ? table_cell_c(t, r, cw)->s : "", what) == 0) {
			uint64_t v = overview_u64(t, r, cp, NULL);
			max = v > max ? v : max;
		}
	fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"13\" font-weight=\"bold\">", x0, y0);
	render_xml_escaped(heading, out);
	fputs("</text>\n", out);
	double y = y0 + 10;
	char pss_h[BYTES_HUMAN_MAX], uss_h[BYTES_HUMAN_MAX];
	size_t shown = 0;
	for (size_t r = 0; r < t->nrows; r++) {
		const struct cell *w = table_cell_c(t, r, cw), *nm = table_cell_c(t, r, cn);
		if (strcmp(w->s ? w->s : "", what) != 0)
			continue;
		bool known = true;
		uint64_t pss = overview_u64(t, r, cp, &known), uss = overview_u64(t, r, cu, &known);
		const char *name = nm->kind == CELL_STR && nm->s ? nm->s : "?";
		const char *label = axis_label(name);
		size_t len = utf8_prefix(label, 30, NULL);
		/* the exact sizes for programs (the report's tests): data-pss, data-uss in bytes */
		fprintf(out, "<g class=\"%s\"", what);
		if (known)
			fprintf(out, " data-pss=\"%" PRIu64 "\" data-uss=\"%" PRIu64 "\"", pss, uss);
		fputs("><title>", out);
		render_xml_escaped(name, out);
		if (known)
			fprintf(out, ": PSS %s, of it USS (its own pages) %s", bytes_human(pss, pss_h),
				bytes_human(uss, uss_h));
		fprintf(out, "</title><text x=\"%.0f\" y=\"%.1f\" font-size=\"11\">", x0, y + 12);
		render_xml_escaped_n(label, len, out);
		if (label[len])
			fputs("\xe2\x80\xa6", out);
		fputs("</text>", out);
		if (known && max) {
			double scale = BAR_W / (double)max, wu = (double)(uss < pss ? uss : pss) * scale;
			fprintf(out, "<rect x=\"%.0f\" y=\"%.1f\" width=\"%.2f\" height=\"12\" fill=\"#4e79a7\"/>"
				"<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"12\" fill=\"#a0cbe8\"/>",
				x0 + LABEL_W, y + 3, wu, x0 + LABEL_W + wu, y + 3, (double)pss * scale - wu);
			fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">%s</text>",
				x0 + LABEL_W + (double)pss * scale + 4, y + 13, bytes_human(pss, pss_h));
		} else {
			fprintf(out, "<text x=\"%.0f\" y=\"%.1f\" font-size=\"11\">PSS unknown</text>",
				x0 + LABEL_W, y + 13);
		}
		fputs("</g>\n", out);
		y += ROW_H;
		shown++;
	}
	if (!shown)
		fprintf(out, "<text x=\"%.0f\" y=\"%.1f\">(none)</text>\n", x0, y + 12);
}

/* The overview table as a picture for the report's first screen: the processes and the mapped
 * objects with the most PSS, side by side. */
void render_svg_overview(const struct table *t, bool standalone, FILE *out)
{
	size_t cw = column_named(t, "what"), cn = column_named(t, "name");
	if (cw == SIZE_MAX || cn == SIZE_MAX || column_named(t, "pss_bytes") == SIZE_MAX ||
	    column_named(t, "uss_bytes") == SIZE_MAX)
		return;
	size_t nproc = 0, nobj = 0;
	for (size_t r = 0; r < t->nrows; r++) {
		const char *w = table_cell_c(t, r, cw)->s ? table_cell_c(t, r, cw)->s : "";
		nproc += strcmp(w, "process") == 0;
		nobj += strcmp(w, "object") == 0;
	}
	size_t rows = nproc > nobj ? nproc : nobj;
	double height = 58 + 18 * (double)(rows ? rows : 1) + 8;
	svg_open(1140, height, "the processes and mapped objects with the most PSS", standalone, out);
	fputs("<g font-size=\"11\"><rect x=\"8\" y=\"4\" width=\"10\" height=\"10\" fill=\"#4e79a7\"/>"
	      "<text x=\"22\" y=\"13\">USS: pages only this process (object) maps</text>"
	      "<rect x=\"300\" y=\"4\" width=\"10\" height=\"10\" fill=\"#a0cbe8\"/>"
	      "<text x=\"314\" y=\"13\">its share of pages shared with others (PSS = USS + shares)</text></g>\n",
	      out);
	overview_panel(t, "process", "Processes with the most PSS", 8, 38, out);
	overview_panel(t, "object", "Mapped objects with the most PSS", 580, 38, out);
	fputs("</svg>\n", out);
}

/* ---- resident maps as one strip per VMA (the HTML report) ----------------------------------- */

/* The pages of one VMA as runs of one map character, from its rows (MAP_COL_SKIP rows expanded
 * to their length, not their pages). */
struct map_run {
	unsigned char ch;
	uint64_t n;
};

struct vma_runs {
	struct map_run *run;
	size_t n, cap;
	uint64_t pages, resident, swapped;
};

static void vma_runs_add(struct vma_runs *v, unsigned char ch, uint64_t n)
{
	if (!n)
		return;
	v->pages += n;
	v->resident += ch != '.' && ch != 's' && ch != ' ' ? n : 0;
	v->swapped += ch == 's' ? n : 0;
	if (v->n && v->run[v->n - 1].ch == ch) {
		v->run[v->n - 1].n += n;
		return;
	}
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 16;
		v->run = xrealloc(v->run, v->cap * sizeof *v->run);
	}
	v->run[v->n++] = (struct map_run){ ch, n };
}

/* The rows of the VMA starting at row `r` of group `group` in [r, end) into v; returns the row
 * after its last. */
static size_t vma_runs_read(const struct table *t, const char *group, size_t r, size_t end,
			    struct vma_runs *v)
{
	v->n = 0, v->pages = v->resident = v->swapped = 0;
	size_t prev = SIZE_MAX;
	for (; r < end; r++) {
		if (!in_group(t, group, r))
			continue;
		if (prev != SIZE_MAX && new_vma(t, prev, r))
			break;
		prev = r;
		uint64_t skip = render_map_u64(t, r, MAP_COL_SKIP);
		const unsigned char *map = (const unsigned char *)render_map_str(t, r, MAP_COL_MAP);
		if (skip) {
			vma_runs_add(v, *map ? *map : '.', skip * MAP_LINE_PAGES);
			continue;
		}
		/* a line holds at most MAP_LINE_PAGES pages (an_resmap.c); more is not drawn */
		for (size_t i = 0, len = strnlen((const char *)map, MAP_LINE_PAGES); i < len; i++)
			vma_runs_add(v, map[i], 1);
	}
	return r;
}

void render_map_group_stats(const struct table *t, size_t first, size_t end,
			    struct map_group_stats *st)
{
	const char *group = first < end ? render_map_str(t, first, MAP_COL_GROUP) : "";
	struct vma_runs v = { 0 };
	memset(st, 0, sizeof *st);
	for (size_t r = first; r < end;) {
		if (!in_group(t, group, r)) {
			r++;
			continue;
		}
		bool is_union = strcmp(render_map_str(t, r, MAP_COL_KIND), "union") == 0;
		r = vma_runs_read(t, group, r, end, &v);
		if (is_union) {
			st->union_pages += v.pages, st->union_resident += v.resident;
			continue;
		}
		st->vmas++, st->pages += v.pages, st->resident += v.resident, st->swapped += v.swapped;
	}
	free(v.run);
}

enum {
	STRIP_LABEL_X = 8, STRIP_X = 470, STRIP_W = 640, STRIP_ROW_H = 13, STRIP_H = 10,
	STRIP_MAX_CELL = 4, STRIP_TOP = 48,
};

/* One VMA's strip: STRIP_MAX_CELL px a page when it fits, else the VMA squeezed into STRIP_W
 * px columns of `per` pages each, every column filled from the bottom as far as its pages are
 * resident (or swapped), in the colour most of them have; light grey where nothing is. */
static void strip_draw(const struct vma_runs *v, double y, FILE *out)
{
	double cell = v->pages && (double)STRIP_W / (double)v->pages < STRIP_MAX_CELL
			      ? (double)STRIP_W / (double)v->pages : STRIP_MAX_CELL;
	uint64_t per = 1;
	size_t columns = (size_t)v->pages;
	if (v->pages > STRIP_W) {
		per = (v->pages + STRIP_W - 1) / STRIP_W;
		columns = (size_t)((v->pages + per - 1) / per);
		cell = (double)STRIP_W / (double)columns;
	}
	fprintf(out, "<rect x=\"%d\" y=\"%.0f\" width=\"%.2f\" height=\"%d\" fill=\"%s\"/>\n", STRIP_X, y,
		cell * (double)columns, STRIP_H, map_colours[map_colour_index('.')]);
	/* walk the runs column by column; equal neighbouring columns make one rectangle */
	struct path_data paths[MAP_NCOLOURS] = { { 0 } };
	size_t ri = 0;
	uint64_t left = v->n ? v->run[0].n : 0;
	int open_colour = -1, open_level = 0;
	double open_x = 0;
	for (size_t c = 0; c <= columns; c++) {
		int colour = -1, level = 0;
		if (c < columns) {
			uint64_t count[MAP_NCOLOURS] = { 0 }, want = per, filled = 0;
			while (want && ri < v->n) {
				uint64_t take = left < want ? left : want;
				int k = map_colour_index(v->run[ri].ch);
				if (k >= 0 && v->run[ri].ch != '.')
					count[k] += take, filled += take;
				want -= take, left -= take;
				if (!left && ++ri < v->n)
					left = v->run[ri].n;
			}
			for (int k = 0; k < MAP_NCOLOURS; k++)
				if (count[k] && (colour < 0 || count[k] > count[colour]))
					colour = k;
			/* the filled share in quarters, a resident page never rounded away */
			level = filled ? (int)((4 * filled + per - 1) / per) : 0;
			if (colour < 0)
				level = 0;
		}
		if (c == columns || colour != open_colour || level != open_level) {
			if (open_colour >= 0 && open_level > 0) {
				char run[96];
				double h = STRIP_H * open_level / 4.0, x1 = STRIP_X + cell * (double)c;
				int len = snprintf(run, sizeof run, "M%.2f %.2fH%.2fV%.0fH%.2fz", open_x,
						   y + STRIP_H - h, x1, y + STRIP_H, open_x);
				struct path_data *p = &paths[open_colour];
				if (p->len + (size_t)len + 1 > p->cap) {
					p->cap = (p->len + (size_t)len + 1) * 2;
					p->text = xrealloc(p->text, p->cap);
				}
				memcpy(p->text + p->len, run, (size_t)len + 1);
				p->len += (size_t)len;
			}
			open_colour = colour, open_level = level, open_x = STRIP_X + cell * (double)c;
		}
	}
	for (size_t k = 0; k < MAP_NCOLOURS; k++) {
		if (paths[k].len)
			fprintf(out, "<path fill=\"%s\" d=\"%s\"/>\n", map_colours[k], paths[k].text);
		free(paths[k].text);
	}
}

void render_svg_map_strips(const struct table *t, size_t first, size_t end, uint32_t page_size,
			   bool standalone, FILE *out)
{
	const char *group = first < end ? render_map_str(t, first, MAP_COL_GROUP) : "";
	struct map_group_stats st;
	render_map_group_stats(t, first, end, &st);
	double height = STRIP_TOP + (double)(st.vmas + (st.union_pages > 0)) * STRIP_ROW_H + 8;
	/* a file of its own names its group (in the HTML report the line above it does) */
	svg_open(STRIP_X + STRIP_W + 12, height + (standalone ? 24 : 0), group, standalone, out);
	if (standalone) {
		fprintf(out, "<text x=\"%d\" y=\"16\" font-size=\"13\" font-weight=\"bold\">", STRIP_LABEL_X);
		render_xml_escaped(group, out);
		fputs("</text>\n<g transform=\"translate(0 24)\">\n", out);
	}
	/* legend: the characters of an_resmap.c */
	static const struct {
		char ch;
		const char *label;
	} legend[] = {
		{ '1', "1 mapping" }, { '2', "2" }, { '3', "3" }, { '5', "5" }, { '9', "9" },
		{ '#', "10+ (mapcount)" }, { '.', "not resident" }, { 's', "swapped" }, { '?', "unknown" },
	};
	fputs("<g class=\"legend\" font-size=\"10\">", out);
	double lx = STRIP_LABEL_X;
	for (size_t i = 0; i < sizeof legend / sizeof *legend; i++) {
		fprintf(out, "<rect x=\"%.0f\" y=\"4\" width=\"9\" height=\"9\" fill=\"%s\"/>"
			"<text x=\"%.0f\" y=\"12\">%s</text>",
			lx, map_colours[map_colour_index((unsigned char)legend[i].ch)], lx + 12, legend[i].label);
		lx += 12 + 5.8 * (double)strlen(legend[i].label) + 10;
	}
	if (st.union_pages)
		fprintf(out, "<text x=\"%d\" y=\"28\">one row per VMA (%d px a page, or squeezed into %d px; "
			"filled as far as resident); the first row (union): each page of the file, coloured by "
			"the number of processes it is resident in</text>", STRIP_LABEL_X, STRIP_MAX_CELL, STRIP_W);
	else
		fprintf(out, "<text x=\"%d\" y=\"28\">one row per VMA: %d px a page, or the VMA squeezed into "
			"%d px, each column filled as far as its pages are resident (hover: the numbers)</text>",
			STRIP_LABEL_X, STRIP_MAX_CELL, STRIP_W);
	fprintf(out, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">VMA  flags  kind  unit</text>"
		"<text x=\"%d\" y=\"%d\" font-weight=\"bold\" text-anchor=\"end\">size</text>"
		"<text x=\"%d\" y=\"%d\" font-weight=\"bold\">resident pages, from the VMA's start</text></g>\n",
		STRIP_LABEL_X, STRIP_TOP - 4, STRIP_X - 6, STRIP_TOP - 4, STRIP_X, STRIP_TOP - 4);
	struct vma_runs v = { 0 };
	double y = STRIP_TOP;
	char b1[BYTES_HUMAN_MAX];
	for (size_t r = first; r < end;) {
		if (!in_group(t, group, r)) {
			r++;
			continue;
		}
		size_t row = r;
		r = vma_runs_read(t, group, r, end, &v);
		fputs("<g><title>", out);
		vma_label(t, row, out);
		fprintf(out, ": %" PRIu64 " pages (%s), %" PRIu64 " resident", v.pages,
			bytes_human(v.pages * page_size, b1), v.resident);
		if (v.swapped)
			fprintf(out, ", %" PRIu64 " swapped", v.swapped);
		if (v.pages > STRIP_W)
			fprintf(out, "; a column: %" PRIu64 " pages", (v.pages + STRIP_W - 1) / STRIP_W);
		fputs("</title>", out);
		/* the label, cut to fit before the strip */
		char label[600];
		snprintf(label, sizeof label, "%s  %s  %s  %s", render_map_str(t, row, MAP_COL_VMA),
			 render_map_str(t, row, MAP_COL_FLAGS), render_map_str(t, row, MAP_COL_KIND),
			 axis_label(render_map_str(t, row, MAP_COL_UNIT)));
		size_t len = utf8_prefix(label, 64, NULL);
		fprintf(out, "<text x=\"%d\" y=\"%.0f\" font-family=\"monospace\" font-size=\"10\" "
			"xml:space=\"preserve\">", STRIP_LABEL_X, y + 9);
		render_xml_escaped_n(label, len, out);
		if (label[len])
			fputs("\xe2\x80\xa6", out);
		fprintf(out, "</text><text x=\"%d\" y=\"%.0f\" font-size=\"10\" text-anchor=\"end\">%s</text>\n",
			STRIP_X - 6, y + 9, bytes_human(v.pages * page_size, b1));
		strip_draw(&v, y, out);
		fputs("</g>\n", out);
		y += STRIP_ROW_H;
	}
	free(v.run);
	if (first == end)
		fprintf(out, "<text x=\"%d\" y=\"%d\">(no pages)</text>\n", STRIP_LABEL_X, STRIP_TOP + 12);
	fputs(standalone ? "</g>\n</svg>\n" : "</svg>\n", out);
}

/* ---- the change chart of a diff ------------------------------------------------------------ */

static const char *signed_human(int64_t v, uint64_t unit, char buf[BYTES_HUMAN_MAX + 1])
{
	uint64_t mag = (uint64_t)(v < 0 ? -(v + 1) + 1 : v) * unit;
	buf[0] = v < 0 ? '-' : '+';
	bytes_human(mag, buf + 1);
	return buf;
}

/* Growth to the right of the zero line in red, shrinkage to the left in green, one row each,
 * the size of the change at the bar's end. */
void render_svg_delta(const struct table *t, FILE *out)
{
	const struct delta_chart *d = t->delta;
	enum { W = 1000, LABEL_X = 8, ZERO = 620, HALF = 300, ROW_H = 18, TOP = 46 };
	size_t n = d->max_rows && t->nrows > d->max_rows ? d->max_rows : t->nrows;
	int64_t max = 0;
	for (size_t r = 0; r < n; r++) {
		const struct cell *c = table_cell_c(t, r, d->value_col);
		int64_t v = c->kind == CELL_I64 ? c->i : 0;
		max = v > max ? v : -v > max ? -v : max;
	}
	char *title = n < t->nrows ? xasprintf("%s: the %zu largest of %zu", d->title, n, t->nrows)
				   : xasprintf("%s: all %zu", d->title, t->nrows);
	double height = TOP + (double)(n ? n : 1) * ROW_H + 10;
	svg_open(W, height, title, false, out);
	fprintf(out, "<text x=\"%d\" y=\"18\" font-size=\"14\" font-weight=\"bold\">", LABEL_X);
	render_xml_escaped(title, out);
	fprintf(out, "</text>\n<text x=\"%d\" y=\"38\" text-anchor=\"end\" fill=\"#2ca02c\">\xe2\x97\x80 shrank</text>"
		"<text x=\"%d\" y=\"38\" fill=\"#d62728\">grew \xe2\x96\xb6</text>\n"
		"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%.0f\" stroke=\"#333\"/>\n",
		ZERO - 6, ZERO + 6, ZERO, TOP - 4, ZERO, height - 6);
	char buf[RENDER_NUM_MAX], sub[RENDER_NUM_MAX], h[BYTES_HUMAN_MAX + 1];
	for (size_t r = 0; r < n; r++) {
		const struct cell *c = table_cell_c(t, r, d->value_col), *lc = table_cell_c(t, r, d->label_col);
		int64_t v = c->kind == CELL_I64 ? c->i : 0;
		const char *label = lc->kind == CELL_STR && lc->s ? lc->s
				    : render_cell_number(NULL, t, d->label_col, lc, buf, FLOAT_HUMAN);
		char *full = NULL;
		if (d->sublabel && d->sublabel_col < t->ncols) {
			const struct cell *sc = table_cell_c(t, r, d->sublabel_col);
			full = xasprintf("%s (%s)", label ? label : "-", sc->kind == CELL_STR && sc->s ? sc->s
					 : render_cell_number(NULL, t, d->sublabel_col, sc, sub, FLOAT_HUMAN));
			label = full;
		}
		double y = TOP + (double)r * ROW_H, w = max ? (double)(v < 0 ? -v : v) / (double)max * HALF : 0;
		const char *shown = axis_label(label ? label : "-");
		size_t len = utf8_prefix(shown, 40, NULL);
		fputs("<g class=\"bar\"><title>", out);
		render_xml_escaped(label ? label : "-", out);
		fprintf(out, ": %s</title><text x=\"%d\" y=\"%.0f\" font-size=\"11\">", signed_human(v, d->unit_bytes, h),
			LABEL_X, y + 12);
		render_xml_escaped_n(shown, len, out);
		if (shown[len])
			fputs("\xe2\x80\xa6", out);
		fputs("</text>", out);
		fprintf(out, "<rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"12\" fill=\"%s\"/>"
			"<text x=\"%.1f\" y=\"%.0f\" font-size=\"10\"%s>%s</text></g>\n",
			v < 0 ? ZERO - w : ZERO, y + 3, w, v < 0 ? "#2ca02c" : "#d62728",
			v < 0 ? ZERO - w - 4 : ZERO + w + 4, y + 13, v < 0 ? " text-anchor=\"end\"" : "",
			signed_human(v, d->unit_bytes, h));
		free(full);
	}
	if (n == 0)
		fprintf(out, "<text x=\"%d\" y=\"%d\">(nothing changed)</text>\n", LABEL_X, TOP + 12);
	fputs("</svg>\n", out);
	free(title);
}
