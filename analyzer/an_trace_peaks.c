/* an_trace_peaks.c - the working-set peaks the trace source detected (peak records), in the
 * order they were written, each with the call stack of the thread that was running: the
 * innermost frame in its own columns (fn, file, line) and the whole stack, innermost first,
 * as "fn file:line <- caller file:line <- ...".
 */
#include "model.h"
#include "xalloc.h"

#include <stdlib.h>

enum { P_PEAK, P_T, P_TID, P_KIND, P_PAGES, P_FN, P_FILE, P_LINE, P_STACK, P_NCOLS };

void an_trace_peaks(const struct model *m, struct report *r)
{
	static const struct column cols[P_NCOLS] = {
		[P_PEAK] = { "peak", "PEAK", CELL_U64, false },
		[P_T] = { "t", "T", CELL_U64, false },
		[P_TID] = { "tid", "TID", CELL_U64, false },
		[P_KIND] = { "kind", "KIND", CELL_STR, false },
		[P_PAGES] = { "pages", "PAGES", CELL_U64, false },
		[P_FN] = { "fn", "FUNCTION", CELL_STR, false },
		[P_FILE] = { "file", "FILE", CELL_STR, false },
		[P_LINE] = { "line", "LINE", CELL_U64, false },
		[P_STACK] = { "stack", "STACK (innermost first)", CELL_STR, false },
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
		if (p->stack.n) {
			const struct trace_frame *f = trace_stack_frame(tm, p->stack, 0);
			char buf[24];
			const char *fn = trace_frame_fn(f, buf);
			if (fn == buf)
				table_set_str(t, row, P_FN, buf);
			else
				table_set_str_ref(t, row, P_FN, fn); /* the model's: see an_trace_hot.c */
			table_set_str_ref(t, row, P_FILE, f->file);
			if (f->line != PS_UNKNOWN)
				table_set_u64(t, row, P_LINE, f->line);
		}
		char *stack = trace_stack_label(tm, p->stack);
		table_set_str(t, row, P_STACK, stack);
		free(stack);
	}
	table_set_note(t, tm->npeaks ? "pages: the working set (code or data) at the peak; stack: "
				       "the thread that was running, innermost frame first" :
				       "no peak records in the file");
	report_add(r, t);
}
