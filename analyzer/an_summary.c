/* an_summary.c - analysis 1: per process, pages of each memory type, virtual and resident.
 *
 * Columns: pid comm threads, then <group>_virt_pages <group>_res_pages for stack, heap_bss
 * (a program's [heap] and .bss), data, text, libdata (data + bss of libraries), libtext,
 * anon, file (data files, shmem), other (vdso), then vss_pages rss_pages. "res" is resident
 * pages (the process's Rss, per group). Titles: STACK_V STACK_R HEAP_BSS_V ... (V virtual,
 * R resident); a note says so.
 */
#include "model.h"
#include "xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void an_summary(const struct model *m, struct report *r)
{
	enum { C_PID, C_COMM, C_THREADS, C_GROUPS };
	const size_t ncols = C_GROUPS + 2 * SG_COUNT + 2;
	struct column *cols = xcalloc(ncols, sizeof *cols);
	char *names[4 * SG_COUNT]; /* machine names, then the titles */
	cols[C_PID] = (struct column){ "pid", "PID", CELL_U64, false };
	cols[C_COMM] = (struct column){ "comm", "COMMAND", CELL_STR, false };
	cols[C_THREADS] = (struct column){ "threads", "THREADS", CELL_U64, false };
	for (int g = 0; g < SG_COUNT; g++) {
		const char *group = model_summary_group_name(g);
		names[2 * g] = xasprintf("%s_virt_pages", group);
		names[2 * g + 1] = xasprintf("%s_res_pages", group);
		names[2 * SG_COUNT + 2 * g] = xasprintf("%s_V", group);
		names[2 * SG_COUNT + 2 * g + 1] = xasprintf("%s_R", group);
		for (char *c = names[2 * SG_COUNT + 2 * g]; *c; c++)
			*c = (char)toupper((unsigned char)*c);
		for (char *c = names[2 * SG_COUNT + 2 * g + 1]; *c; c++)
			*c = (char)toupper((unsigned char)*c);
		cols[C_GROUPS + 2 * g] = (struct column){ names[2 * g], names[2 * SG_COUNT + 2 * g],
							  CELL_U64, COL_PAGES };
		cols[C_GROUPS + 2 * g + 1] = (struct column){ names[2 * g + 1],
			names[2 * SG_COUNT + 2 * g + 1], CELL_U64, COL_PAGES };
	}
	const size_t c_vss = C_GROUPS + 2 * SG_COUNT, c_rss = c_vss + 1;
	cols[c_vss] = (struct column){ "vss_pages", "VSS", CELL_U64, COL_PAGES };
	cols[c_rss] = (struct column){ "rss_pages", "RSS", CELL_U64, COL_PAGES };
	struct table *t = table_new("summary", "Per-process summary by kind of mapping",
				    STYLE_GRID, ncols, cols);

	for (size_t i = 0; i < m->nprocs; i++) {
		const struct proc *p = &m->procs[i];
		uint64_t virt[SG_COUNT] = { 0 }, phys[SG_COUNT] = { 0 }, vss = 0, rss = 0;
		for (size_t j = 0; j < p->nvmas; j++) {
			const struct vma_info *v = &p->vmas[j];
			enum summary_group g = model_summary_group(v->v.kind);
			virt[g] += model_vma_pages(m, v);
			phys[g] += v->sum.resident;
			vss += model_vma_pages(m, v);
			rss += v->sum.resident;
		}
		size_t row = table_add_row(t);
		table_set_u64(t, row, C_PID, p->tgid);
		table_set_str(t, row, C_COMM, p->comm);
		table_set_u64(t, row, C_THREADS, p->nthreads);
		for (int g = 0; g < SG_COUNT; g++) {
			table_set_u64(t, row, C_GROUPS + 2 * (size_t)g, virt[g]);
			table_set_u64(t, row, C_GROUPS + 2 * (size_t)g + 1, phys[g]);
		}
		table_set_u64(t, row, c_vss, vss);
		table_set_u64(t, row, c_rss, rss);
	}
	table_sort(t, C_PID, false);

	t->chart = xcalloc(1, sizeof *t->chart);
	t->chart->title = "Processes by resident pages";
	t->chart->unit = "pages";
	t->chart->label_col = C_COMM;
	t->chart->sublabel = true;
	t->chart->sublabel_col = C_PID;
	t->chart->max_rows = 25;
	t->chart->nseries = SG_COUNT;
	for (int g = 0; g < SG_COUNT; g++)
		t->chart->series[g] = (struct chart_series){ model_summary_group_name(g),
			C_GROUPS + 2 * (size_t)g, C_GROUPS + 2 * (size_t)g + 1 };
	static const char legend[] = "_V: virtual (mapped), _R: resident; HEAP_BSS: [heap] and the "
				     "program's .bss; LIBDATA: libraries' data and .bss";
	if (m->pfn_hidden_pages)
		table_set_note(t, "%s\nresident counts are exact; PFNs were hidden for %llu pages",
			       legend, (unsigned long long)m->pfn_hidden_pages);
	else
		table_set_note(t, "%s", legend);
	report_add(r, t);
	for (int i = 0; i < 4 * SG_COUNT; i++)
		free(names[i]);
	free(cols);
}
