/* an_total.c - analysis 6: the physical pages used by user space, as one number to track
 * across software versions, with its parts.
 *
 * user_pages = distinct PFNs mapped by any process in the records; anon_pages = those first
 * seen as anonymous; swapped/excluded/unknown/pfn_hidden explain what the number cannot see.
 * Those four count page-table entries (a page mapped twice counts twice), not distinct
 * pages: without a PFN there is nothing to deduplicate by.
 */
#include "model.h"

enum { TC_USER, TC_ANON, TC_FILE, TC_SWAPPED, TC_EXCLUDED, TC_HIDDEN, TC_UNKNOWN,
       TC_PROCS, TC_VMAS, TC_NCOLS };

void an_total(const struct model *m, struct report *r)
{
	static const struct column cols[TC_NCOLS] = {
		{ "user_pages", "USER", CELL_U64, COL_PAGES },
		{ "anon_pages", "ANON", CELL_U64, COL_PAGES }, { "file_pages", "FILE", CELL_U64, COL_PAGES },
		{ "swapped_pages", "SWAPPED", CELL_U64, COL_PAGES },
		{ "excluded_pages", "EXCLUDED", CELL_U64, COL_PAGES },
		{ "pfn_hidden_pages", "PFN_HIDDEN", CELL_U64, COL_PAGES },
		{ "unknown_pages", "UNKNOWN", CELL_U64, COL_PAGES },
		{ "processes", "PROCS", CELL_U64, false }, { "vmas", "VMAS", CELL_U64, false },
	};
	struct table *t = table_new("total", "Physical memory used by user space", STYLE_GRID,
				    TC_NCOLS, cols);
	uint64_t vmas = 0;
	for (size_t i = 0; i < m->nprocs; i++)
		vmas += m->procs[i].nvmas;
	size_t row = table_add_row(t);
	table_set_u64(t, row, TC_USER, m->pfns.used);
	table_set_u64(t, row, TC_ANON, m->distinct_anon);
	table_set_u64(t, row, TC_FILE, m->pfns.used - m->distinct_anon);
	table_set_u64(t, row, TC_SWAPPED, m->swapped_pages);
	table_set_u64(t, row, TC_EXCLUDED, m->excluded_pages);
	table_set_u64(t, row, TC_HIDDEN, m->pfn_hidden_pages);
	table_set_u64(t, row, TC_UNKNOWN, m->unknown_pages);
	table_set_u64(t, row, TC_PROCS, m->nprocs);
	table_set_u64(t, row, TC_VMAS, vmas);
	if (m->pfn_hidden_pages || m->sum_only_pages)
		table_set_note(t, "user_pages undercounts: %llu resident pages had hidden PFNs, %llu "
			       "are known from VMA summaries only", (unsigned long long)m->pfn_hidden_pages,
			       (unsigned long long)m->sum_only_pages);
	report_add(r, t);
}
