/* an_pss.c - analysis 8: proportional and unique set sizes, as smem (per process) and
 * librank (per mapped object) report them, and each executable unit's cost split.
 *
 * PSS counts each resident page as page_size / mapcount, summed with 12 bits of fraction
 * like the kernel's smaps, shown in KiB rounded down. USS = pages with mapcount 1.
 * Unit cost: clean = page-cache pages of the unit's mappings (shareable with every other
 * process), private = anonymous pages in them (copy-on-write data, RELRO, bss).
 */
#include "model.h"
#include "xalloc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static uint64_t kib(const struct model *m, uint64_t pages) { return pages * m->page_size / 1024; }
static uint64_t pss_kib(uint64_t pss_shifted) { return (pss_shifted >> PS_PSS_SHIFT) / 1024; }

static void __attribute__((format(printf, 2, 3))) note_add(char **note, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *add = xvasprintf(fmt, ap);
	va_end(ap);
	char *joined = xasprintf("%s%s%s", *note ? *note : "", *note ? "; " : "", add);
	free(*note), free(add);
	*note = joined;
}

static void per_process(const struct model *m, struct report *r)
{
	enum { C_PID, C_COMM, C_VSS, C_RSS, C_PSS, C_USS, C_SWAP, C_N };
	static const struct column cols[C_N] = {
		{ "pid", "PID", CELL_U64, false }, { "comm", "COMMAND", CELL_STR, false },
		{ "vss_kib", "VSS", CELL_U64, COL_KIB }, { "rss_kib", "RSS", CELL_U64, COL_KIB },
		{ "pss_kib", "PSS", CELL_U64, COL_KIB }, { "uss_kib", "USS", CELL_U64, COL_KIB },
		{ "swap_kib", "SWAP", CELL_U64, COL_KIB },
	};
	struct table *t = table_new("pss", "PSS and USS per process (as smem)", STYLE_GRID,
				    C_N, cols);
	uint64_t unknown = 0, from_sum = 0, shmem_swap = 0, shmem_procs = 0, swap_unknown = 0;
	for (size_t i = 0; i < m->nprocs; i++) {
		const struct proc *p = &m->procs[i];
		struct proc_totals tot;
		model_proc_totals(m, p, &tot);
		bool known = true;
		for (size_t j = 0; j < p->nvmas; j++) {
			const struct vma_info *v = &p->vmas[j];
			if (!model_vma_pss_known(v))
				known = false, unknown += v->mapcount_hidden;
			else if (v->mapcount_hidden)
				from_sum += v->mapcount_hidden;
		}
		size_t row = table_add_row(t);
		table_set_u64(t, row, C_PID, p->tgid);
		table_set_str(t, row, C_COMM, p->comm);
		table_set_u64(t, row, C_VSS, kib(m, tot.vss));
		table_set_u64(t, row, C_RSS, kib(m, tot.rss));
		if (known) { /* an unknown is shown as unknown ("-", empty in CSV), never 0 */
			table_set_u64(t, row, C_PSS, pss_kib(tot.pss));
			table_set_u64(t, row, C_USS, kib(m, tot.uss));
		}
		if (tot.shmem_swap_unknown)
			swap_unknown++; /* unknown, never a part passed off as the whole */
		else
			table_set_u64(t, row, C_SWAP, kib(m, tot.swap));
		shmem_swap += tot.shmem_swap, shmem_procs += tot.shmem_swap != 0;
	}
	table_sort(t, C_PSS, true);
	char *note = NULL; /* sentences joined by "; " (a table has one note) */
	if (unknown)
		note_add(&note, "mapcounts hidden for %llu pages: PSS and USS of their processes are "
			 "unknown", (unsigned long long)unknown);
	else if (from_sum)
		note_add(&note, "PSS and USS of %llu pages come from smaps (the source saw no "
			 "mapcounts: a live snapshot without root; kB precision per VMA)",
			 (unsigned long long)from_sum);
	/* Swapped-out shmem has no page-table entry: the source took it from smaps' Swap. */
	if (shmem_swap)
		note_add(&note, "SWAP includes %llu KiB of shmem/tmpfs pages swapped out (%llu "
			 "process%s), from smaps' Swap: pagemap shows no entry for them",
			 (unsigned long long)kib(m, shmem_swap), (unsigned long long)shmem_procs,
			 shmem_procs == 1 ? "" : "es");
	if (swap_unknown)
		note_add(&note, "SWAP unknown for %llu process%s: whether their shmem/tmpfs mappings "
			 "had pages swapped out could not be read (smaps unreadable)",
			 (unsigned long long)swap_unknown, swap_unknown == 1 ? "" : "es");
	if (note)
		table_set_note(t, "%s", note);
	free(note);
	report_add(r, t);
}

static void per_object(const struct model *m, struct report *r)
{
	enum { C_NAME, C_PROCS, C_VSS, C_RSS, C_PSS, C_USS, C_N };
	static const struct column cols[C_N] = {
		{ "object", "OBJECT", CELL_STR, false }, { "procs", "PROCS", CELL_U64, false },
		{ "vss_kib", "VSS", CELL_U64, COL_KIB }, { "rss_kib", "RSS", CELL_U64, COL_KIB },
		{ "pss_kib", "PSS", CELL_U64, COL_KIB }, { "uss_kib", "USS", CELL_U64, COL_KIB },
	};
	struct table *t = table_new("librank", "PSS and USS per mapped object (as librank)",
				    STYLE_GRID, C_N, cols);
	struct mapped_objects mo;
	model_mapped_objects(m, &mo);
	for (size_t k = 0; k < mo.n; k++) {
		const struct mapped_object *o = &mo.obj[k];
		size_t row = table_add_row(t);
		table_set_str(t, row, C_NAME, o->name);
		table_set_u64(t, row, C_PROCS, o->procs);
		table_set_u64(t, row, C_VSS, kib(m, o->vss));
		table_set_u64(t, row, C_RSS, kib(m, o->rss));
		if (!o->unknown) {
			table_set_u64(t, row, C_PSS, pss_kib(o->pss));
			table_set_u64(t, row, C_USS, kib(m, o->uss));
		}
	}
	model_mapped_objects_free(&mo);
	report_add(r, t);
}

static void unit_cost(const struct model *m, struct report *r)
{
	enum { C_UNIT, C_PROCS, C_PSS, C_CLEAN, C_PRIVATE, C_N };
	static const struct column cols[C_N] = {
		{ "unit", "UNIT", CELL_STR, false }, { "procs", "PROCS", CELL_U64, false },
		{ "pss_kib", "PSS", CELL_U64, COL_KIB },
		{ "clean_shared_kib", "CLEAN_SHARED", CELL_U64, COL_KIB },
		{ "private_cow_kib", "PRIVATE_COW", CELL_U64, COL_KIB },
	};
	struct table *t = table_new("unit-cost", "Cost per executable unit: clean page cache vs "
				    "private/copy-on-write pages (all processes)", STYLE_GRID, C_N, cols);
	size_t nu = m->nunits ? m->nunits : 1;
	uint64_t *pss = xcalloc(nu, sizeof *pss), *clean = xcalloc(nu, sizeof *clean);
	uint64_t *priv = xcalloc(nu, sizeof *priv), *procs = xcalloc(nu, sizeof *procs);
	uint64_t *last = xcalloc(nu, sizeof *last);
	bool *lib = xcalloc(nu, sizeof *lib);
	for (size_t i = 0; i < m->nprocs; i++)
		for (size_t j = 0; j < m->procs[i].nvmas; j++) {
			const struct vma_info *v = &m->procs[i].vmas[j];
			enum ps_vma_kind k = v->v.kind;
			if (v->unit == NO_UNIT || k == PS_KIND_FILE || k == PS_KIND_SHMEM ||
			    k == PS_KIND_HEAP)
				continue;
			lib[v->unit] = true;
			pss[v->unit] += v->sum.pss;
			clean[v->unit] += v->sum.file;
			priv[v->unit] += v->sum.anon;
			if (last[v->unit] != i + 1)
				last[v->unit] = i + 1, procs[v->unit]++;
		}
	for (uint32_t u = 0; u < m->nunits; u++) {
		if (!lib[u])
			continue;
		size_t row = table_add_row(t);
		table_set_str(t, row, C_UNIT, m->units[u]);
		table_set_u64(t, row, C_PROCS, procs[u]);
		table_set_u64(t, row, C_PSS, pss_kib(pss[u]));
		table_set_u64(t, row, C_CLEAN, kib(m, clean[u]));
		table_set_u64(t, row, C_PRIVATE, kib(m, priv[u]));
	}
	table_sort(t, C_PSS, true);
	/* one line that fits the text width: the surprise people ask about */
	table_set_note(t, "CLEAN_SHARED can exceed PSS: it counts a shared page once per process "
		       "mapping it, PSS splits it");
	free(pss), free(clean), free(priv), free(procs), free(last), free(lib);
	report_add(r, t);
}

void an_pss(const struct model *m, struct report *r)
{
	per_process(m, r);
	per_object(m, r);
	unit_cost(m, r);
}
