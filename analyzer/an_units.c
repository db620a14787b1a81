/* an_units.c - analysis 4: per executable unit (the application or a shared library), text,
 * data and bss across all processes.
 *
 * virt = pages of the unit's VMAs summed over processes (what was reserved).
 * phys = distinct physical pages: a page shared by 12 processes counts once, credited to the
 *        unit and kind of the first mapping the records show (for library text, always the
 *        library itself).
 * heap_bss = a program's [heap] and .bss, a library's .bss (the anonymous mapping after its
 *        data): what the original tool called "B". The same group as the summary's HEAP_BSS.
 */
#include "model.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

enum { UC_UNIT, UC_PROCS, UC_TEXT_V, UC_TEXT_P, UC_DATA_V, UC_DATA_P, UC_BSS_V, UC_BSS_P,
       UC_TOTAL_V, UC_TOTAL_P, UC_NCOLS };

void an_unit_totals(const struct model *m, struct report *r)
{
	static const struct column cols[UC_NCOLS] = {
		{ "unit", "UNIT", CELL_STR, false }, { "procs", "PROCS", CELL_U64, false },
		{ "text_virt_pages", "TEXT_V", CELL_U64, COL_PAGES },
		{ "text_phys_pages", "TEXT_P", CELL_U64, COL_PAGES },
		{ "data_virt_pages", "DATA_V", CELL_U64, COL_PAGES },
		{ "data_phys_pages", "DATA_P", CELL_U64, COL_PAGES },
		{ "heap_bss_virt_pages", "HEAP_BSS_V", CELL_U64, COL_PAGES },
		{ "heap_bss_phys_pages", "HEAP_BSS_P", CELL_U64, COL_PAGES },
		{ "total_virt_pages", "TOTAL_V", CELL_U64, COL_PAGES },
		{ "total_phys_pages", "TOTAL_P", CELL_U64, COL_PAGES },
	};
	struct table *t = table_new("units", "Executable units across all processes",
				    STYLE_GRID, UC_NCOLS, cols);
	size_t nu = m->nunits ? m->nunits : 1;
	uint64_t *virt = xcalloc(nu * 3, sizeof *virt);
	uint64_t *procs = xcalloc(nu, sizeof *procs);
	uint64_t *last_proc = xcalloc(nu, sizeof *last_proc); /* proc index + 1 that last counted */
	bool *is_exec = xcalloc(nu, sizeof *is_exec);
	for (size_t i = 0; i < m->nprocs; i++)
		for (size_t j = 0; j < m->procs[i].nvmas; j++) {
			const struct vma_info *v = &m->procs[i].vmas[j];
			int c = model_unit_class(v->v.kind);
			if (v->unit == NO_UNIT || c < 0)
				continue;
			is_exec[v->unit] = true;
			virt[v->unit * 3 + (size_t)c] += model_vma_pages(m, v);
			if (last_proc[v->unit] != i + 1) {
				last_proc[v->unit] = i + 1;
				procs[v->unit]++;
			}
		}
	for (uint32_t u = 0; u < m->nunits; u++) {
		if (!is_exec[u])
			continue;
		uint64_t phys[3];
		model_unit_phys(m, u, phys);
		size_t row = table_add_row(t);
		table_set_str(t, row, UC_UNIT, m->units[u]);
		table_set_u64(t, row, UC_PROCS, procs[u]);
		for (int c = 0; c < 3; c++) {
			table_set_u64(t, row, UC_TEXT_V + 2 * (size_t)c, virt[u * 3 + (size_t)c]);
			table_set_u64(t, row, UC_TEXT_P + 2 * (size_t)c, phys[c]);
		}
		table_set_u64(t, row, UC_TOTAL_V, virt[u * 3] + virt[u * 3 + 1] + virt[u * 3 + 2]);
		table_set_u64(t, row, UC_TOTAL_P, phys[0] + phys[1] + phys[2]);
	}
	table_sort(t, UC_TOTAL_P, true);
	t->chart = xcalloc(1, sizeof *t->chart);
	t->chart->title = "Executable units by distinct physical pages";
	t->chart->max_rows = 25;
	t->chart->unit = "pages";
	t->chart->label_col = UC_UNIT;
	t->chart->nseries = 3;
	t->chart->series[0] = (struct chart_series){ "text", UC_TEXT_V, UC_TEXT_P };
	t->chart->series[1] = (struct chart_series){ "data", UC_DATA_V, UC_DATA_P };
	t->chart->series[2] = (struct chart_series){ "heap_bss", UC_BSS_V, UC_BSS_P };
	static const char legend[] = "_V: virtual, summed over processes; _P: distinct physical (a "
				     "shared page once); HEAP_BSS: [heap] and .bss";
	if (m->pfn_hidden_pages || m->sum_only_pages)
		table_set_note(t, "%s\nphysical columns undercount: PFNs hidden for %llu pages, %llu "
			       "pages known from VMA summaries only", legend,
			       (unsigned long long)m->pfn_hidden_pages,
			       (unsigned long long)m->sum_only_pages);
	else
		table_set_note(t, "%s", legend);
	report_add(r, t);
	free(virt), free(procs), free(last_proc), free(is_exec);
}
