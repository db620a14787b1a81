/* an_trace_ws.c - the working set over time (ws records): a summary per thread and for the
 * whole process, the line chart of code and data pages with the detected peaks and the
 * client marks, the marks as a table, and (ws-series, asked for by name) every sample.
 *
 * avg_* is the mean of the samples, peak_* their maximum (at the first time it is reached),
 * total_* the distinct pages of the whole run, which only the writer knows: it comes from
 * the final=1 record and is empty without one.
 */
#include "model.h"
#include "xalloc.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { W_TID, W_SCOPE, W_SAMPLES, W_FIRST_T, W_LAST_T, W_TAU, W_AVG_CODE, W_AVG_DATA,
       W_PEAK_CODE, W_PEAK_CODE_T, W_PEAK_DATA, W_PEAK_DATA_T, W_TOTAL_CODE, W_TOTAL_DATA,
       W_PEAKS, W_NCOLS };

static const struct column ws_cols[W_NCOLS] = {
	[W_TID] = { "tid", "TID", CELL_U64, false },
	[W_SCOPE] = { "scope", "SCOPE", CELL_STR, false },
	[W_SAMPLES] = { "samples", "SAMPLES", CELL_U64, false },
	[W_FIRST_T] = { "first_t", "FIRST_T", CELL_U64, false },
	[W_LAST_T] = { "last_t", "LAST_T", CELL_U64, false },
	[W_TAU] = { "tau", "TAU", CELL_U64, false },
	[W_AVG_CODE] = { "avg_code", "AVG_CODE", CELL_F64, false },
	[W_AVG_DATA] = { "avg_data", "AVG_DATA", CELL_F64, false },
	[W_PEAK_CODE] = { "peak_code", "PEAK_CODE", CELL_U64, false },
	[W_PEAK_CODE_T] = { "peak_code_t", "PEAK_CODE_T", CELL_U64, false },
	[W_PEAK_DATA] = { "peak_data", "PEAK_DATA", CELL_U64, false },
	[W_PEAK_DATA_T] = { "peak_data_t", "PEAK_DATA_T", CELL_U64, false },
	[W_TOTAL_CODE] = { "total_code", "TOTAL_CODE", CELL_U64, false },
	[W_TOTAL_DATA] = { "total_data", "TOTAL_DATA", CELL_U64, false },
	[W_PEAKS] = { "peaks", "PEAKS", CELL_U64, false },
};

static int by_tid(const void *a, const void *b)
{
	uint64_t x = (*(const struct ws_series *const *)a)->tid;
	uint64_t y = (*(const struct ws_series *const *)b)->tid;
	return (x > y) - (x < y);
}

/* The series in tid order: the whole process (tid 0) first. */
static const struct ws_series **sorted_series(const struct trace_model *tm)
{
	const struct ws_series **v = xcalloc(tm->nws ? tm->nws : 1, sizeof *v);
	for (size_t i = 0; i < tm->nws; i++)
		v[i] = &tm->ws[i];
	if (tm->nws > 1)
		qsort(v, tm->nws, sizeof *v, by_tid);
	return v;
}

static void set_known(struct table *t, size_t row, size_t col, uint64_t v)
{
	if (v != PS_UNKNOWN)
		table_set_u64(t, row, col, v);
}

/* Label of a peak marker: what, when, where (the innermost frame, its first 200 bytes). */
static char *peak_label(const struct trace_model *tm, const struct trace_peak *p)
{
	const char *where = p->stack.n ? trace_stack_frame(tm, p->stack, 0)->label : "";
	int len = (int)strlen(where);
	if (len > 200) { /* a tooltip; do not cut a UTF-8 sequence */
		len = 200;
		while (len > 0 && ((unsigned char)where[len] & 0xc0) == 0x80)
			len--;
	}
	return xasprintf("peak %s %" PRIu64 " pages at t=%" PRIu64 ", tid %" PRIu64 "%s%.*s%s",
			 p->data ? "data" : "code", p->pages, p->t, p->tid, *where ? ": " : "", len,
			 where, where[len] ? "..." : "");
}

/* The chart: code and data of one series, every peak as a dot, every mark as a line. */
static struct line_chart *ws_chart(const struct trace_model *tm, const struct ws_series *ws,
				   size_t nthreads)
{
	char tau[32] = "?";
	if (ws->tau != PS_UNKNOWN)
		snprintf(tau, sizeof tau, "%" PRIu64, ws->tau);
	char *title = ws->tid == 0 ?
		xasprintf("Working set over time (whole process%s, tau %s)",
			  nthreads ? ", threads counted once" : "", tau) :
		xasprintf("Working set over time (tid %" PRIu64 ", tau %s)", ws->tid, tau);
	struct line_chart *c = line_chart_new(title, "instructions", "pages");
	free(title);
	struct line_series *code = line_chart_add_series(c, "code", "code", false, ws->n);
	for (size_t i = 0; i < ws->n; i++)
		code->x[i] = (double)ws->s[i].t, code->y[i] = (double)ws->s[i].code;
	struct line_series *data = line_chart_add_series(c, "data", "data", false, ws->n);
	for (size_t i = 0; i < ws->n; i++)
		data->x[i] = (double)ws->s[i].t, data->y[i] = (double)ws->s[i].data;
	/* The chart keeps the first LINE_CHART_MAX_MARKERS peaks and LINE_CHART_MAX_VLINES
	 * marks (the tables list all): no label is made for the rest. */
	for (size_t i = 0; i < tm->npeaks; i++) {
		const struct trace_peak *p = &tm->peaks[i];
		char *label = c->nmarkers < LINE_CHART_MAX_MARKERS ? peak_label(tm, p) : NULL;
		line_chart_add_marker(c, (double)p->t, (double)p->pages, p->data ? "data" : "code", label);
		free(label);
	}
	for (size_t i = 0; i < tm->nmarks; i++)
		line_chart_add_vline(c, (double)tm->marks[i].t, tm->marks[i].text);
	return c;
}

void an_trace_ws(const struct model *m, struct report *r)
{
	const struct trace_model *tm = &m->trace;
	struct table *t = table_new("ws", "Working set over time (pages)", STYLE_GRID, W_NCOLS, ws_cols);
	const struct ws_series **v = sorted_series(tm);
	bool tau_varies = false, any_final = false;
	/* Peaks per row in one pass: the detector watches the whole process's series, so every
	 * peak counts for tid 0; a thread's row counts the peaks at which it was running
	 * (the record's tid). */
	uint64_t *npeaks = xcalloc(tm->nws ? tm->nws : 1, sizeof *npeaks);
	const struct ws_series *process = trace_ws_series(tm, 0);
	for (size_t k = 0; k < tm->npeaks; k++) {
		const struct ws_series *running = trace_ws_series(tm, tm->peaks[k].tid);
		if (running && running != process)
			npeaks[running - tm->ws]++;
		if (process)
			npeaks[process - tm->ws]++;
	}
	for (size_t i = 0; i < tm->nws; i++) {
		const struct ws_series *ws = v[i];
		size_t row = table_add_row(t);
		table_set_u64(t, row, W_TID, ws->tid);
		table_set_str(t, row, W_SCOPE, ws->tid == 0 ? "process" : "thread");
		table_set_u64(t, row, W_SAMPLES, ws->n);
		set_known(t, row, W_TAU, ws->tau);
		tau_varies |= ws->tau_varies;
		set_known(t, row, W_TOTAL_CODE, ws->total_code);
		set_known(t, row, W_TOTAL_DATA, ws->total_data);
		any_final |= ws->have_final;
		table_set_u64(t, row, W_PEAKS, npeaks[ws - tm->ws]);
		if (ws->n == 0) /* a summary without samples: only its totals */
			continue;
		table_set_u64(t, row, W_FIRST_T, ws->s[0].t);
		table_set_u64(t, row, W_LAST_T, ws->s[ws->n - 1].t);
		double sum_code = 0, sum_data = 0;
		size_t max_code = 0, max_data = 0; /* sample index of the first maximum */
		for (size_t k = 0; k < ws->n; k++) {
			sum_code += (double)ws->s[k].code, sum_data += (double)ws->s[k].data;
			if (ws->s[k].code > ws->s[max_code].code)
				max_code = k;
			if (ws->s[k].data > ws->s[max_data].data)
				max_data = k;
		}
		table_set_f64(t, row, W_AVG_CODE, sum_code / (double)ws->n);
		table_set_f64(t, row, W_AVG_DATA, sum_data / (double)ws->n);
		table_set_u64(t, row, W_PEAK_CODE, ws->s[max_code].code);
		table_set_u64(t, row, W_PEAK_CODE_T, ws->s[max_code].t);
		table_set_u64(t, row, W_PEAK_DATA, ws->s[max_data].data);
		table_set_u64(t, row, W_PEAK_DATA_T, ws->s[max_data].t);
	}
	/* Pages touched in the last tau instructions, sampled; tid 0 is the whole process. */
	char *note = xstrdup("code/data: distinct pages touched in the last tau instructions at each "
			     "sample; tid 0 is the whole process (pages shared by threads counted once); "
			     "avg and peak over the samples; peaks: the peak records (the detector "
			     "watches the whole process: all of them on tid 0's row, on a thread's row "
			     "those at which it was running)");
	char *more = xasprintf("%s; total: distinct pages of the whole run%s", note,
			       any_final ? " (the writer's final summary)" :
					   " (unknown: no final=1 ws record)");
	free(note);
	note = more;
	if (tau_varies) {
		more = xasprintf("%s\ntau changes between samples: the series mixes windows", note);
		free(note);
		note = more;
	}
	if (tm->nws == 0) {
		more = xasprintf("%s\nno ws records in the file", note);
		free(note);
		note = more;
	}
	table_set_note(t, "%s", note);
	free(note);
	/* The whole process if the writer measured it, else the lowest tid with samples. */
	const struct ws_series *drawn = NULL;
	size_t nthreads = 0;
	for (size_t i = 0; i < tm->nws; i++) {
		nthreads += v[i]->tid != 0;
		if (!drawn && v[i]->n)
			drawn = v[i];
	}
	if (drawn)
		t->lines = ws_chart(tm, drawn, nthreads);
	free(v), free(npeaks);
	report_add(r, t);

	if (tm->nmarks) {
		static const struct column cols[] = {
			{ "t", "T", CELL_U64, false },
			{ "tid", "TID", CELL_U64, false },
			{ "text", "MARK", CELL_STR, false },
		};
		struct table *mk = table_new("marks", "Marks (client requests)", STYLE_GRID, 3, cols);
		for (size_t i = 0; i < tm->nmarks; i++) {
			size_t row = table_add_row(mk);
			table_set_u64(mk, row, 0, tm->marks[i].t);
			set_known(mk, row, 1, tm->marks[i].tid);
			table_set_str_ref(mk, row, 2, tm->marks[i].text); /* the model's */
		}
		report_add(r, mk);
	}
}

void an_trace_ws_series(const struct model *m, struct report *r)
{
	static const struct column cols[] = {
		{ "tid", "TID", CELL_U64, false },
		{ "t", "T", CELL_U64, false },
		{ "code", "CODE", CELL_U64, false },
		{ "data", "DATA", CELL_U64, false },
	};
	const struct trace_model *tm = &m->trace;
	struct table *t = table_new("ws-series", "Working-set samples (pages)", STYLE_GRID, 4, cols);
	const struct ws_series **v = sorted_series(tm);
	for (size_t i = 0; i < tm->nws; i++)
		for (size_t k = 0; k < v[i]->n; k++) {
			size_t row = table_add_row(t);
			table_set_u64(t, row, 0, v[i]->tid);
			table_set_u64(t, row, 1, v[i]->s[k].t);
			table_set_u64(t, row, 2, v[i]->s[k].code);
			table_set_u64(t, row, 3, v[i]->s[k].data);
		}
	free(v);
	if (tm->nws == 0)
		table_set_note(t, "no ws records in the file");
	report_add(r, t);
}
