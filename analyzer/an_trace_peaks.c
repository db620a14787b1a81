/* an_trace_peaks.c - the working-set peaks the trace source detected (peak records), in the
 * order they were written (the prominence detector's: per kind, most prominent first), each
 * with the call stack of the thread that was running at its onset: the innermost frame in
 * its own columns (fn, file, line) and the whole stack, innermost first, as
 * "fn file:line <- caller file:line <- ...". Rank, prominence, repeats and onset are empty
 * for the paper's detector, which has none.
 */
#include "model.h"
#include "xalloc.h"

#include <stdlib.h>

enum { P_PEAK, P_T, P_TID, P_KIND, P_PAGES, P_RANK, P_PROM, P_REPEATS, P_START, P_FN, P_FILE,
       P_LINE, P_STACK, P_NCOLS };

void an_trace_peaks(const struct model *m, struct report *r)
{
	static const struct column cols[P_NCOLS] = {
		[P_PEAK] = { "peak", "PEAK", CELL_U64, false },
		[P_T] = { "t", "T", CELL_U64, false },
		[P_TID] = { "tid", "TID", CELL_U64, false },
		[P_KIND] = { "kind", "KIND", CELL_STR, false },
		[P_PAGES] = { "pages", "PAGES", CELL_U64, false },
		[P_RANK] = { "rank", "RANK", CELL_U64, false },
		[P_PROM] = { "prominence", "PROMINENCE", CELL_U64, false },
		[P_REPEATS] = { "repeats", "REPEATS", CELL_U64, false },
		[P_START] = { "start", "ONSET_T", CELL_U64, false },
		[P_FN] = { "fn", "FUNCTION", CELL_STR, false },
		[P_FILE] = { "file", "FILE", CELL_STR, false },
		[P_LINE] = { "line", "LINE", CELL_U64, false },
		[P_STACK] = { "stack", "STACK", CELL_STR, false },
	};
	const struct trace_model *tm = &m->trace;
	struct table *t = table_new("peaks", "Working-set peaks", STYLE_GRID, P_NCOLS, cols);
	for (size_t i = 0; i < tm->npeaks; i++) {
		const struct trace_peak *p = &tm->peaks[i];
		size_t row = table_add_row(t);
		table_set_u64(t, row, P_PEAK, i + 1);
		table_set_u64(t, row, P_T, p->t);
		table_set_u64(t, row, P_TID, p->tid);
		table_set_str(t, row, P_KIND, p->data ? "data" : "code");
		table_set_u64(t, row, P_PAGES, p->pages);
		const uint64_t opt[4] = { p->rank, p->prominence, p->repeats, p->start };
		const int optcol[4] = { P_RANK, P_PROM, P_REPEATS, P_START };
		for (int k = 0; k < 4; k++)
			if (opt[k] != PS_UNKNOWN)
				table_set_u64(t, row, optcol[k], opt[k]);
		if (p->stack.n) {
			const struct trace_frame *f = trace_stack_frame(tm, p->stack, 0);
			an_set_frame_fn(t, row, P_FN, f);
			table_set_str_ref(t, row, P_FILE, f->file);
			if (f->line != PS_UNKNOWN)
				table_set_u64(t, row, P_LINE, f->line);
		}
		char *stack = trace_stack_label(tm, p->stack);
		table_set_str(t, row, P_STACK, stack);
		free(stack);
	}
	table_set_note(t, tm->npeaks ? "pages: the working set (code or data) at the peak; "
				       "prominence: pages above the higher of its bases; repeats: "
				       "near-identical peaks listed once, at the first; stack: the thread "
				       "that was running at the onset, innermost frame first" :
				       "no peak records in the file");
	report_add(r, t);
}
