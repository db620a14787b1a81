/* an_trace_hot.c - the hot pages (hot records): the most accessed pages with the frame of
 * their first access. Ranked as the writer ranked them (rank=) when every record has a rank,
 * else by accesses (descending; ties by address), and the note says which.
 */
#include "model.h"
#include "xalloc.h"

#include <stdlib.h>

enum { H_RANK, H_PAGE, H_KIND, H_ACCESSES, H_FN, H_FILE, H_LINE, H_OBJECT, H_NCOLS };

static const struct trace_hot *sort_base;

static int by_accesses(const void *pa, const void *pb)
{
	const struct trace_hot *a = &sort_base[*(const size_t *)pa], *b = &sort_base[*(const size_t *)pb];
	if (a->accesses != b->accesses)
		return a->accesses > b->accesses ? -1 : 1;
	if (a->page != b->page)
		return a->page < b->page ? -1 : 1;
	return (a->data > b->data) - (a->data < b->data);
}

static int by_rank(const void *pa, const void *pb)
{
	const struct trace_hot *a = &sort_base[*(const size_t *)pa], *b = &sort_base[*(const size_t *)pb];
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	if (a->data != b->data) /* code before data at the same rank */
		return a->data ? 1 : -1;
	return by_accesses(pa, pb);
}

void an_trace_hot(const struct model *m, struct report *r)
{
	static const struct column cols[H_NCOLS] = {
		[H_RANK] = { "rank", "RANK", CELL_U64, false },
		[H_PAGE] = { "page", "PAGE", CELL_U64, true },
		[H_KIND] = { "kind", "KIND", CELL_STR, false },
		[H_ACCESSES] = { "accesses", "ACCESSES", CELL_U64, false },
		[H_FN] = { "fn", "FIRST_TOUCHED_BY", CELL_STR, false },
		[H_FILE] = { "file", "FILE", CELL_STR, false },
		[H_LINE] = { "line", "LINE", CELL_U64, false },
		[H_OBJECT] = { "object", "OBJECT", CELL_STR, false },
	};
	const struct trace_model *tm = &m->trace;
	struct table *t = table_new("hot", "Hot pages", STYLE_GRID, H_NCOLS, cols);
	bool ranked = tm->nhot > 0;
	for (size_t i = 0; i < tm->nhot; i++)
		ranked &= tm->hot[i].rank != PS_UNKNOWN;
	size_t *order = xcalloc(tm->nhot ? tm->nhot : 1, sizeof *order);
	for (size_t i = 0; i < tm->nhot; i++)
		order[i] = i;
	sort_base = tm->hot;
	if (tm->nhot > 1)
		qsort(order, tm->nhot, sizeof *order, ranked ? by_rank : by_accesses);
	for (size_t i = 0; i < tm->nhot; i++) {
		const struct trace_hot *h = &tm->hot[order[i]];
		size_t row = table_add_row(t);
		table_set_u64(t, row, H_RANK, ranked ? h->rank : i + 1);
		table_set_u64(t, row, H_PAGE, h->page);
		table_set_str(t, row, H_KIND, h->data ? "data" : "code");
		table_set_u64(t, row, H_ACCESSES, h->accesses);
		if (h->frame != TRACE_NONE) {
			/* The frame's strings live in the model: borrowed, so a million hot
			 * records naming one long frame do not make a million copies. */
			const struct trace_frame *f = &tm->frames[h->frame];
			an_set_frame_fn(t, row, H_FN, f);
			table_set_str_ref(t, row, H_FILE, f->file);
			if (f->line != PS_UNKNOWN)
				table_set_u64(t, row, H_LINE, f->line);
			table_set_str_ref(t, row, H_OBJECT, f->obj);
		}
	}
	free(order);
	table_set_note(t, "%s", tm->nhot == 0 ? "no hot records in the file" :
			   ranked ? "ranked by the trace source (rank=)" :
				    "ranked by accesses (the records carry no rank=)");
	report_add(r, t);
}
