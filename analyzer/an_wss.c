/* an_wss.c - live working-set measurements (wss records, `pagesleuth wss`), one row per
 * interval as Gregg's wss prints them: Est(s) and RSS, PSS and Ref in MB (2^20 bytes), with
 * the method (referenced: clear_refs and smaps Referenced; idle: the page_idle bitmap) and
 * the mode. Cumulative and profile runs are also drawn: Ref (and RSS, thin) against Est.
 */
#include "model.h"
#include "xalloc.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { S_PID, S_METHOD, S_MODE, S_SEQ, S_DUR, S_EST, S_RSS, S_PSS, S_REF, S_T, S_NCOLS };

static const char *method_name(enum wss_method m) { return m == WSS_IDLE ? "idle" : "referenced"; }

static const char *mode_name(enum wss_mode m)
{
	return m == WSS_CUMULATIVE ? "cumulative" : m == WSS_PROFILE ? "profile" : "once";
}

static void set_mb(struct table *t, size_t row, size_t col, uint64_t bytes)
{
	if (bytes != PS_UNKNOWN) /* exact: a division by a power of two */
		table_set_f64(t, row, col, (double)bytes / 1048576.0);
}

static const struct trace_wss *sort_base;

/* One run (pid, method, mode) after another, each by Est then seq. */
static int by_run_est(const void *pa, const void *pb)
{
	const struct trace_wss *a = &sort_base[*(const size_t *)pa], *b = &sort_base[*(const size_t *)pb];
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->method != b->method)
		return (int)a->method - (int)b->method;
	if (a->mode != b->mode)
		return (int)a->mode - (int)b->mode;
	if (a->est != b->est)
		return a->est < b->est ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

static bool same_run(const struct trace_wss *a, const struct trace_wss *b)
{
	return a->pid == b->pid && a->method == b->method && a->mode == b->mode;
}

/* Ref and RSS against Est, one pair of lines per pid, method and mode that is not once, in
 * pid order; the first WSS_CHART_RUNS runs (a legend of thousands helps nobody; the table
 * has them all). One sort: O(n log n) however many runs the file holds. */
enum { WSS_CHART_RUNS = 8 };

static struct line_chart *wss_chart(const struct trace_model *tm)
{
	size_t *order = xcalloc(tm->nwss ? tm->nwss : 1, sizeof *order), n = 0;
	for (size_t i = 0; i < tm->nwss; i++)
		if (tm->wss[i].mode != WSS_ONCE)
			order[n++] = i;
	sort_base = tm->wss;
	if (n > 1)
		qsort(order, n, sizeof *order, by_run_est);
	size_t runs = 0;
	for (size_t k = 0; k < n; k++)
		runs += k == 0 || !same_run(&tm->wss[order[k - 1]], &tm->wss[order[k]]);
	struct line_chart *c = NULL;
	if (runs) {
		char *title = runs > WSS_CHART_RUNS ?
			xasprintf("Working set against measured span (wss; the first %d of %zu runs)",
				  WSS_CHART_RUNS, runs) :
			xstrdup("Working set against measured span (wss)");
		c = line_chart_new(title, "seconds (Est)", "MB");
		free(title);
	}
	for (size_t first = 0, run = 0; first < n && run < WSS_CHART_RUNS; run++) {
		const struct trace_wss *w = &tm->wss[order[first]];
		size_t end = first + 1;
		while (end < n && same_run(w, &tm->wss[order[end]]))
			end++;
		const size_t *pts = order + first;
		size_t np = end - first;
		char *name = xasprintf("pid %" PRIu64 " ref (%s, %s)", w->pid, method_name(w->method),
				       mode_name(w->mode));
		struct line_series *ref = line_chart_add_series(c, name, name, false, np);
		for (size_t k = 0; k < np; k++)
			ref->x[k] = tm->wss[pts[k]].est, ref->y[k] = (double)tm->wss[pts[k]].ref / 1048576.0;
		size_t nrss = 0;
		for (size_t k = 0; k < np; k++)
			nrss += tm->wss[pts[k]].rss != PS_UNKNOWN;
		char *rss_name = xasprintf("pid %" PRIu64 " rss", w->pid);
		if (nrss) {
			struct line_series *rss = line_chart_add_series(c, rss_name, name, true, nrss);
			for (size_t k = 0, j = 0; k < np; k++)
				if (tm->wss[pts[k]].rss != PS_UNKNOWN) {
					rss->x[j] = tm->wss[pts[k]].est;
					rss->y[j++] = (double)tm->wss[pts[k]].rss / 1048576.0;
				}
		}
		free(name), free(rss_name);
		first = end;
	}
	free(order);
	return c;
}

void an_wss(const struct model *m, struct report *r)
{
	static const struct column cols[S_NCOLS] = {
		[S_PID] = { "pid", "PID", CELL_U64, false },
		[S_METHOD] = { "method", "METHOD", CELL_STR, false },
		[S_MODE] = { "mode", "MODE", CELL_STR, false },
		[S_SEQ] = { "seq", "SEQ", CELL_U64, false },
		[S_DUR] = { "dur_s", "DUR_S", CELL_F64, false },
		[S_EST] = { "est_s", "EST_S", CELL_F64, false },
		[S_RSS] = { "rss_mb", "RSS_MB", CELL_F64, false },
		[S_PSS] = { "pss_mb", "PSS_MB", CELL_F64, false },
		[S_REF] = { "ref_mb", "REF_MB", CELL_F64, false },
		[S_T] = { "t_ns", "T_NS", CELL_U64, false },
	};
	const struct trace_model *tm = &m->trace;
	struct table *t = table_new("wss", "Working-set size measurements (wss)", STYLE_GRID, S_NCOLS, cols);
	table_set_decimals(t, S_DUR, 3); /* seconds to the millisecond, as wss prints Est(s) */
	table_set_decimals(t, S_EST, 3);
	for (size_t i = 0; i < tm->nwss; i++) {
		const struct trace_wss *w = &tm->wss[i];
		size_t row = table_add_row(t);
		table_set_u64(t, row, S_PID, w->pid);
		table_set_str(t, row, S_METHOD, method_name(w->method));
		table_set_str(t, row, S_MODE, mode_name(w->mode));
		table_set_u64(t, row, S_SEQ, w->seq);
		if (!isnan(w->dur))
			table_set_f64(t, row, S_DUR, w->dur);
		table_set_f64(t, row, S_EST, w->est);
		set_mb(t, row, S_RSS, w->rss);
		set_mb(t, row, S_PSS, w->pss);
		set_mb(t, row, S_REF, w->ref);
		if (w->t != PS_UNKNOWN)
			table_set_u64(t, row, S_T, w->t);
	}
	table_set_note(t, "%s", tm->nwss ? "REF: the pages referenced (referenced method) or no longer "
		       "idle (idle method) during the interval; EST_S: the estimated real span of the "
		       "measurement (wss's Est(s)); RSS, PSS at the end of the interval; MB = 2^20 bytes, "
		       "as wss prints them (not --units)" :
		       "no wss records in the file");
	t->lines = wss_chart(tm);
	report_add(r, t);
}
