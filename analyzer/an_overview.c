/* an_overview.c - the answer first: where the physical memory of the processes went, in
 * sizes people read (KiB/MiB/GiB in text and HTML, exact bytes in CSV and JSON).
 *
 * One table, narrow enough for an 80-100 column terminal: the distinct physical memory of
 * all user processes (the one number to track), then the processes with the most PSS, then
 * the mapped objects (libraries, files, [anon], [heap] ...) with the most PSS, each with its
 * share of the processes' total PSS. The detail follows in the other tables.
 */
#include "model.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

#define OVERVIEW_TOP 10

enum { C_WHAT, C_NAME, C_PSS, C_RSS, C_USS, C_SHARE, C_N };

struct ranked {
	const char *name;
	uint64_t pid, pss, rss, uss; /* pss in bytes << PS_PSS_SHIFT, rss/uss in pages */
	bool unknown;
};

static int by_pss(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->pss != y->pss)
		return x->pss < y->pss ? 1 : -1;
	return strcmp(x->name, y->name);
}

static void add_row(struct table *t, const struct model *m, const char *what,
		    const struct ranked *r, uint64_t total_pss)
{
	size_t row = table_add_row(t);
	table_set_str(t, row, C_WHAT, what);
	if (r->pid != PS_UNKNOWN) {
		char *name = xasprintf("%s (%llu)", r->name, (unsigned long long)r->pid);
		table_set_str(t, row, C_NAME, name);
		free(name);
	} else {
		table_set_str(t, row, C_NAME, r->name);
	}
	table_set_u64(t, row, C_RSS, r->rss * m->page_size);
	if (!r->unknown) {
		table_set_u64(t, row, C_PSS, r->pss >> PS_PSS_SHIFT);
		table_set_u64(t, row, C_USS, r->uss * m->page_size);
		if (total_pss)
			table_set_f64(t, row, C_SHARE, 100.0 * (double)r->pss / (double)total_pss);
	}
}

void an_overview(const struct model *m, struct report *r)
{
	static const struct column cols[C_N] = {
		{ "what", "WHAT", CELL_STR, COL_DEC }, { "name", "NAME", CELL_STR, COL_DEC },
		{ "pss_bytes", "PSS", CELL_U64, COL_BYTES }, { "rss_bytes", "RSS", CELL_U64, COL_BYTES },
		{ "uss_bytes", "USS", CELL_U64, COL_BYTES },
		{ "share_pct", "PSS_%", CELL_F64, COL_DEC },
	};
	struct table *t = table_new("overview", "Where the memory of the processes went", STYLE_GRID,
				    C_N, cols);
	table_set_decimals(t, C_SHARE, 1);
	/* processes */
	struct ranked *procs = xcalloc(m->nprocs + 1, sizeof *procs);
	uint64_t total_pss = 0, total_uss = 0;
	bool any_unknown = false;
	for (size_t i = 0; i < m->nprocs; i++) {
		const struct proc *p = &m->procs[i];
		struct proc_totals tot;
		model_proc_totals(m, p, &tot);
		procs[i] = (struct ranked){ .name = p->comm ? p->comm : "?", .pid = p->tgid,
					    .pss = tot.pss, .rss = tot.rss, .uss = tot.uss };
		for (size_t j = 0; j < p->nvmas; j++)
			procs[i].unknown |= !model_vma_pss_known(&p->vmas[j]);
		any_unknown |= procs[i].unknown;
		total_pss += tot.pss, total_uss += tot.uss;
	}
	/* mapped objects, as librank names them */
	struct mapped_objects mo;
	model_mapped_objects(m, &mo);
	/* the total: distinct pages (what the processes use together), PSS summed */
	size_t row = table_add_row(t);
	table_set_str(t, row, C_WHAT, "total");
	char *label = xasprintf(m->pfn_hidden_pages ? "all %zu processes (PFNs hidden: distinct pages "
				"unknown)" : "all %zu processes (distinct physical pages)", m->nprocs);
	table_set_str(t, row, C_NAME, label);
	free(label);
	if (!m->pfn_hidden_pages)
		table_set_u64(t, row, C_RSS, m->pfns.used * m->page_size);
	if (!any_unknown) {
		table_set_u64(t, row, C_PSS, total_pss >> PS_PSS_SHIFT);
		table_set_u64(t, row, C_USS, total_uss * m->page_size);
		if (total_pss)
			table_set_f64(t, row, C_SHARE, 100.0);
	}
	if (m->nprocs)
		qsort(procs, m->nprocs, sizeof *procs, by_pss);
	for (size_t i = 0; i < m->nprocs && i < OVERVIEW_TOP; i++)
		add_row(t, m, "process", &procs[i], total_pss);
	for (size_t i = 0; i < mo.n && i < OVERVIEW_TOP; i++) {
		const struct mapped_object *o = &mo.obj[i];
		struct ranked obj = { .name = o->name, .pid = PS_UNKNOWN, .pss = o->pss, .rss = o->rss,
				      .uss = o->uss, .unknown = o->unknown };
		add_row(t, m, "object", &obj, total_pss);
	}
	table_set_note(t, "total: RSS is the distinct physical memory of all processes (a page "
		       "shared by many counts once), PSS and USS summed over them; then the %d processes and "
		       "the %d mapped objects with the most PSS (the detail: the pss, librank, units "
		       "and summary tables)", OVERVIEW_TOP, OVERVIEW_TOP);
	free(procs);
	model_mapped_objects_free(&mo);
	report_add(r, t);
}
