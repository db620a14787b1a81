/* an_mixed.c - analysis 5: VMAs holding both single-use and shared pages, or private
 * (copy-on-write) anonymous pages next to page-cache pages inside one file mapping. Typical
 * causes: a library built without -fPIC (text relocations write into text), a partly
 * written RELRO or .data segment, MAP_PRIVATE files that were written to. A VMA whose pages
 * are all of one kind (e.g. .data entirely copied) is not mixed and is not listed.
 *
 * single = pages with mapcount 1, shared = mapcount >= 2, cow = anonymous pages in a
 * file-backed VMA, file = page-cache pages in it.
 */
#include "model.h"

/* the unit (a path) last: the text table shortens it rather than split the counts off */
enum { MC_PID, MC_COMM, MC_VMA, MC_PERM, MC_KIND, MC_SINGLE, MC_SHARED, MC_COW, MC_FILE,
       MC_UNIT, MC_NCOLS };

void an_mixed(const struct model *m, struct report *r)
{
	static const struct column cols[MC_NCOLS] = {
		{ "pid", "PID", CELL_U64, false }, { "comm", "COMMAND", CELL_STR, false },
		{ "vma", "VMA", CELL_STR, false }, { "perm", "PERM", CELL_STR, false },
		{ "kind", "KIND", CELL_STR, false },
		{ "single_pages", "SINGLE", CELL_U64, COL_PAGES },
		{ "shared_pages", "SHARED", CELL_U64, COL_PAGES },
		{ "cow_pages", "COW", CELL_U64, COL_PAGES }, { "file_pages", "FILE", CELL_U64, COL_PAGES },
		{ "unit", "UNIT", CELL_STR, false },
	};
	struct table *t = table_new("mixed", "VMAs with both single-use and shared pages, or "
				    "copy-on-write pages in a file mapping", STYLE_GRID, MC_NCOLS, cols);
	for (size_t i = 0; i < m->nprocs; i++) {
		const struct proc *p = &m->procs[i];
		for (size_t j = 0; j < p->nvmas; j++) {
			const struct vma_info *v = &p->vmas[j];
			const struct ps_vma_sum *s = &v->sum;
			bool mixed = s->single && s->shared;
			bool cow_in_file = v->cow && s->file;
			if (!mixed && !cow_in_file)
				continue;
			char range[40], perm[5];
			snprintf(range, sizeof range, "%llx-%llx", (unsigned long long)v->v.start,
				 (unsigned long long)v->v.end);
			snprintf(perm, sizeof perm, "%.4s", v->v.perm);
			size_t row = table_add_row(t);
			table_set_u64(t, row, MC_PID, p->tgid);
			table_set_str(t, row, MC_COMM, p->comm);
			table_set_str(t, row, MC_VMA, range);
			table_set_str(t, row, MC_PERM, perm);
			table_set_str(t, row, MC_KIND, ps_kind_name(v->v.kind));
			table_set_str(t, row, MC_UNIT, model_unit_name(m, v->unit));
			table_set_u64(t, row, MC_SINGLE, s->single);
			table_set_u64(t, row, MC_SHARED, s->shared);
			table_set_u64(t, row, MC_COW, v->cow);
			table_set_u64(t, row, MC_FILE, s->file);
		}
	}
	table_sort(t, MC_PID, false);
	report_add(r, t);
}
