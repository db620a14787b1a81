/* an_trace_alloc.c - the allocation tree (alloc records): the rule groups and, under each,
 * the call-stack tree of its allocations, as one table in preorder. Children are ordered by
 * their bytes at the global heap peak (descending), then by id. Text and HTML indent the
 * node column by depth (a Massif-like tree); CSV and JSON stay flat with id, parent and
 * depth. Sizes are in bytes (CSV and JSON), shown in the report's units in text and HTML.
 */
#include "model.h"
#include "xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { A_ID, A_PARENT, A_DEPTH, A_NODE, A_GROUP, A_CUR, A_PEAK, A_MAX, A_TOTAL, A_BLOCKS,
       A_NCOLS };

static const struct trace_alloc *sort_base;

/* Bytes at the global peak, descending (unknown last), then id. */
static int by_peak(const void *pa, const void *pb)
{
	const struct trace_alloc *a = &sort_base[*(const size_t *)pa], *b = &sort_base[*(const size_t *)pb];
	uint64_t x = a->peak == PS_UNKNOWN ? 0 : a->peak + 1, y = b->peak == PS_UNKNOWN ? 0 : b->peak + 1;
	if (x != y)
		return x > y ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

static void set_known(struct table *t, size_t row, size_t col, uint64_t v)
{
	if (v != PS_UNKNOWN)
		table_set_u64(t, row, col, v);
}

void an_trace_alloc(const struct model *m, struct report *r)
{
	static const struct column cols[A_NCOLS] = {
		[A_ID] = { "id", "ID", CELL_U64, false },
		[A_PARENT] = { "parent", "PARENT", CELL_U64, false },
		[A_DEPTH] = { "depth", "DEPTH", CELL_U64, false },
		[A_NODE] = { "node", "GROUP_OR_CALL_STACK", CELL_STR, false },
		[A_GROUP] = { "group", "GROUP", CELL_STR, false },
		[A_CUR] = { "cur_bytes", "CUR", CELL_U64, COL_BYTES },
		[A_PEAK] = { "peak_bytes", "AT_PEAK", CELL_U64, COL_BYTES },
		[A_MAX] = { "max_bytes", "MAX", CELL_U64, COL_BYTES },
		[A_TOTAL] = { "total_bytes", "TOTAL", CELL_U64, COL_BYTES },
		[A_BLOCKS] = { "blocks", "BLOCKS", CELL_U64, false },
	};
	const struct trace_model *tm = &m->trace;
	struct table *t = table_new("alloc", "Allocation tree", STYLE_GRID, A_NCOLS, cols);
	t->tree = true, t->tree_label_col = A_NODE, t->tree_depth_col = A_DEPTH;
	size_t n = tm->nallocs;

	/* Children lists: child_first[p] .. child_first[p+1] in children[]; roots at index n. */
	size_t *child_first = xcalloc(n + 2, sizeof *child_first);
	size_t *children = xcalloc(n ? n : 1, sizeof *children);
	for (size_t i = 0; i < n; i++) {
		size_t p = tm->allocs[i].parent == TRACE_NONE ? n : tm->allocs[i].parent;
		child_first[p + 1]++;
	}
	for (size_t p = 1; p <= n + 1; p++)
		child_first[p] += child_first[p - 1];
	size_t *fill = xcalloc(n + 1, sizeof *fill);
	for (size_t i = 0; i < n; i++) {
		size_t p = tm->allocs[i].parent == TRACE_NONE ? n : tm->allocs[i].parent;
		children[child_first[p] + fill[p]++] = i;
	}
	sort_base = tm->allocs;
	for (size_t p = 0; p <= n; p++)
		if (child_first[p + 1] - child_first[p] > 1)
			qsort(children + child_first[p], child_first[p + 1] - child_first[p], sizeof *children,
			      by_peak);

	/* Preorder with an explicit stack: trace_finish refused cycles, so every node is
	 * reached once from a root, and a deep tree cannot overflow the C stack. */
	size_t *stack = xcalloc(n ? n : 1, sizeof *stack), *depth = xcalloc(n ? n : 1, sizeof *depth);
	size_t sp = 0;
	uint64_t global_peak = 0;
	bool peak_known = true, peak_overflows = false;
	for (size_t k = child_first[n + 1]; k-- > child_first[n];) {
		stack[sp++] = children[k];
		const struct trace_alloc *a = &tm->allocs[children[k]];
		if (a->peak == PS_UNKNOWN)
			peak_known = false;
		else if (a->peak > UINT64_MAX - global_peak)
			peak_overflows = true; /* no heap holds 2^64 bytes: say so, never wrap */
		else
			global_peak += a->peak;
	}
	while (sp) {
		size_t i = stack[--sp];
		const struct trace_alloc *a = &tm->allocs[i];
		size_t row = table_add_row(t);
		table_set_u64(t, row, A_ID, a->id);
		if (a->parent != TRACE_NONE)
			table_set_u64(t, row, A_PARENT, a->parent_id);
		size_t d = a->parent == TRACE_NONE ? 0 : depth[a->parent] + 1;
		depth[i] = d;
		table_set_u64(t, row, A_DEPTH, d);
		/* Labels and groups live in the model: borrowed (see an_trace_hot.c). */
		if (a->frame != TRACE_NONE)
			table_set_str_ref(t, row, A_NODE, tm->frames[a->frame].label);
		else
			table_set_str_ref(t, row, A_NODE, *a->group ? a->group : "(group)");
		table_set_str_ref(t, row, A_GROUP, a->group);
		set_known(t, row, A_CUR, a->cur);
		set_known(t, row, A_PEAK, a->peak);
		set_known(t, row, A_MAX, a->max);
		set_known(t, row, A_TOTAL, a->total);
		set_known(t, row, A_BLOCKS, a->blocks);
		for (size_t k = child_first[i + 1]; k-- > child_first[i];)
			stack[sp++] = children[k];
	}
	free(stack), free(depth), free(children), free(child_first), free(fill);
	if (n == 0)
		table_set_note(t, "no alloc records in the file");
	else if (peak_known && peak_overflows)
		table_set_note(t, "global heap peak: unknown, the roots' AT_PEAK add up to more than "
			       "2^64 bytes (the records are inconsistent); cur: live at exit, at peak: "
			       "live at the instant the whole heap was largest, max: the node's own "
			       "highest, total: ever allocated");
	else if (peak_known) {
		char human[BYTES_HUMAN_MAX], peak[BYTES_HUMAN_MAX + 32];
		if (global_peak >= 1024) /* "4.5 MiB (4717638 bytes)"; below, "350 bytes" */
			snprintf(peak, sizeof peak, "%s (%" PRIu64 " bytes)",
				 bytes_human(global_peak, human), global_peak);
		else
			snprintf(peak, sizeof peak, "%" PRIu64 " bytes", global_peak);
		table_set_note(t, "global heap peak: %s, the roots' AT_PEAK; cur: live at exit, at "
			       "peak: live at the instant the whole heap was largest, max: the node's "
			       "own highest, total: ever allocated", peak);
	}
	else
		table_set_note(t, "cur: live at exit, at peak: live at the instant the whole heap was "
			       "largest, max: the node's own highest, total: ever allocated");
	report_add(r, t);
}
