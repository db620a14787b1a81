/* an_thrash.c - analysis 10: thrashing candidates across the snapshots of one stream.
 *
 * A process is a candidate when its major faults grow in every interval while its working
 * set shrinks from the first to the last snapshot: it keeps faulting in pages that reclaim
 * keeps taking away. Processes are matched by tgid and comm. The working set is the VMAs'
 * referenced pages, smaps' Referenced (PTE young, PG_young or PG_referenced): live snapshots
 * write smaps' figure in the sum records, the model takes it from there (model.c on_sum).
 */
#include "model.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

enum { C_PID, C_COMM, C_SNAPS, C_MAJ0, C_MAJ1, C_MAJD, C_WS0, C_WS1, C_RSS0, C_RSS1, C_VERDICT,
       C_N };

void an_thrash(const struct model *m, struct report *r)
{
	static const struct column cols[C_N] = {
		{ "pid", "PID", CELL_U64, false }, { "comm", "COMMAND", CELL_STR, false },
		{ "snapshots", "SNAPS", CELL_U64, false },
		{ "majflt_first", "MAJFLT_0", CELL_U64, false },
		{ "majflt_last", "MAJFLT_1", CELL_U64, false },
		{ "majflt_growth", "MAJFLT_GROWTH", CELL_U64, false },
		{ "ws_first_pages", "WS_0", CELL_U64, COL_PAGES },
		{ "ws_last_pages", "WS_1", CELL_U64, COL_PAGES },
		{ "rss_first_pages", "RSS_0", CELL_U64, COL_PAGES },
		{ "rss_last_pages", "RSS_1", CELL_U64, COL_PAGES },
		{ "verdict", "VERDICT", CELL_STR, false },
	};
	struct table *t = table_new("thrash", "Thrashing candidates: major faults grow, working "
				    "set shrinks", STYLE_GRID, C_N, cols);
	static const char legend[] = "WS: the referenced pages, as smaps' Referenced";
	if (m->snapshots < 2) {
		table_set_note(t, "%s\nneeds two or more snapshots in one stream (pagesleuth snap "
			       "--every S --count N); this file has %llu", legend,
			       (unsigned long long)m->snapshots);
		report_add(r, t);
		return;
	}
	bool *done = xcalloc(m->nhistory ? m->nhistory : 1, sizeof *done);
	for (size_t i = 0; i < m->nhistory; i++) {
		if (done[i])
			continue;
		const struct proc_history *first = &m->history[i], *last = first, *prev = first;
		uint64_t snaps = 1;
		bool always_growing = true;
		for (size_t j = i + 1; j < m->nhistory; j++) {
			const struct proc_history *h = &m->history[j];
			if (done[j] || h->tgid != first->tgid || strcmp(h->comm, first->comm) != 0 ||
			    h->seq == prev->seq)
				continue;
			done[j] = true;
			always_growing &= h->majflt > prev->majflt;
			prev = last = h;
			snaps++;
		}
		if (snaps < 2)
			continue;
		bool candidate = always_growing && last->referenced < first->referenced;
		size_t row = table_add_row(t);
		table_set_u64(t, row, C_PID, first->tgid);
		table_set_str(t, row, C_COMM, first->comm);
		table_set_u64(t, row, C_SNAPS, snaps);
		table_set_u64(t, row, C_MAJ0, first->majflt);
		table_set_u64(t, row, C_MAJ1, last->majflt);
		table_set_u64(t, row, C_MAJD, last->majflt - first->majflt);
		table_set_u64(t, row, C_WS0, first->referenced);
		table_set_u64(t, row, C_WS1, last->referenced);
		table_set_u64(t, row, C_RSS0, first->resident);
		table_set_u64(t, row, C_RSS1, last->resident);
		table_set_str(t, row, C_VERDICT, candidate ? "THRASHING" : "");
	}
	free(done);
	table_sort(t, C_MAJD, true);
	table_set_note(t, "%s", legend);
	report_add(r, t);
}
