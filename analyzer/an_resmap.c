/* an_resmap.c - analyses 2 and 3: resident maps, per process and per executable unit.
 *
 * One character per page, 64 pages per line: '1'-'9' that many mappings of the physical
 * page (the kernel's mapcount), '#' ten or more, '.' no physical page, 's' swapped out,
 * '?' unknown (mapcount hidden, page table unreadable, or a migration/device entry). A line shorter than 64 ends the
 * VMA. Two or more identical full lines of one character become one row with MAP_COL_SKIP =
 * their number (MAP_COL_MAP is "" for empty lines, else the repeated line), so a sparse
 * 32 GiB reservation, or a huge unreadable range, costs one row, not half a million.
 */
#include "model.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

#define MAP_LINE 64

static void emit_row(struct table *t, const char *group, const char *vma, const char *flags,
		     const struct vma_info *v, const char *unit, uint64_t offset, const char *map,
		     uint64_t skip)
{
	size_t row = table_add_row(t);
	table_set_str(t, row, MAP_COL_GROUP, group);
	table_set_str(t, row, MAP_COL_VMA, vma);
	table_set_str(t, row, MAP_COL_FLAGS, flags);
	table_set_str(t, row, MAP_COL_KIND, ps_kind_name(v->v.kind));
	table_set_str(t, row, MAP_COL_UNIT, unit);
	table_set_u64(t, row, MAP_COL_OFFSET, offset);
	table_set_str(t, row, MAP_COL_MAP, map);
	table_set_u64(t, row, MAP_COL_SKIP, skip);
}

/* A single empty line is shown; two or more become one SKIP row. */
static void emit_empty(struct table *t, const char *group, const char *vma, const char *flags,
		       const struct vma_info *v, const char *unit, uint64_t from, uint64_t lines)
{
	char dots[MAP_LINE + 1];
	memset(dots, '.', MAP_LINE);
	dots[MAP_LINE] = '\0';
	emit_row(t, group, vma, flags, v, unit, from, lines == 1 ? dots : "", lines == 1 ? 0 : lines);
}

void resmap_emit_vma(const struct model *m, const struct proc *p, const struct vma_info *v,
		     const char *group, const char *vma_prefix, struct table *t)
{
	char flags[16], vma[600], line[MAP_LINE + 1];
	model_vma_flags(p, v, flags);
	snprintf(vma, sizeof vma, "%s%llx-%llx", vma_prefix, (unsigned long long)v->v.start,
		 (unsigned long long)v->v.end);
	const char *unit = model_unit_name(m, v->unit);
	uint64_t npages = model_vma_pages(m, v);
	size_t ri = 0; /* first run that may still touch the current line */
	uint64_t empty_from = UINT64_MAX, empty_lines = 0;

	for (uint64_t first = 0; first < npages;) {
		while (ri < v->nruns && v->runs[ri].first + v->runs[ri].count <= first)
			ri++;
		uint64_t len = npages - first < MAP_LINE ? npages - first : MAP_LINE;
		bool touched = ri < v->nruns && v->runs[ri].first < first + len;
		if (touched && len == MAP_LINE && v->runs[ri].first <= first &&
		    v->runs[ri].first + v->runs[ri].count >= first + 2 * MAP_LINE) {
			/* Two or more full lines inside one run: one uniform row. */
			if (empty_lines) {
				emit_empty(t, group, vma, flags, v, unit, empty_from, empty_lines);
				empty_lines = 0;
				empty_from = UINT64_MAX;
			}
			uint64_t lines = (v->runs[ri].first + v->runs[ri].count - first) / MAP_LINE;
			memset(line, v->runs[ri].ch, MAP_LINE);
			line[MAP_LINE] = '\0';
			emit_row(t, group, vma, flags, v, unit, first, line, lines);
			first += lines * MAP_LINE;
			continue;
		}
		if (!touched && len == MAP_LINE) {
			/* Jump over every whole empty line up to the next run. */
			uint64_t next = ri < v->nruns ? v->runs[ri].first : npages;
			uint64_t lines = (next - first) / MAP_LINE;
			if (lines == 0)
				lines = 1;
			if (empty_from == UINT64_MAX)
				empty_from = first;
			empty_lines += lines;
			first += lines * MAP_LINE;
			continue;
		}
		if (empty_lines) {
			emit_empty(t, group, vma, flags, v, unit, empty_from, empty_lines);
			empty_lines = 0;
			empty_from = UINT64_MAX;
		}
		memset(line, '.', len);
		line[len] = '\0';
		for (size_t k = ri; k < v->nruns && v->runs[k].first < first + len; k++) {
			uint64_t a = v->runs[k].first > first ? v->runs[k].first : first;
			uint64_t b = v->runs[k].first + v->runs[k].count;
			if (b > first + len)
				b = first + len;
			memset(line + (a - first), v->runs[k].ch, b - a);
		}
		emit_row(t, group, vma, flags, v, unit, first, line, 0);
		first += len;
	}
	if (empty_lines)
		emit_empty(t, group, vma, flags, v, unit, empty_from, empty_lines);
}

static bool maps_available(const struct model *m, struct table *t)
{
	for (size_t i = 0; i < m->nprocs; i++)
		for (size_t j = 0; j < m->procs[i].nvmas; j++)
			if (m->procs[i].vmas[j].have_sum_record && !m->procs[i].vmas[j].have_runs &&
			    m->procs[i].vmas[j].sum.resident) {
				table_set_note(t, "the records hold VMA summaries only (no page runs): "
					       "resident maps are not available");
				return false;
			}
	return true;
}

static int proc_cmp(const void *a, const void *b)
{
	const struct proc *p = *(const struct proc *const *)a, *q = *(const struct proc *const *)b;
	return (p->tgid > q->tgid) - (p->tgid < q->tgid);
}

/* Processes in pid order, for stable output. */
static const struct proc **sorted_procs(const struct model *m)
{
	const struct proc **ps = xcalloc(m->nprocs, sizeof *ps);
	for (size_t i = 0; i < m->nprocs; i++)
		ps[i] = &m->procs[i];
	if (m->nprocs > 1)
		qsort(ps, m->nprocs, sizeof *ps, proc_cmp);
	return ps;
}

void an_resmap(const struct model *m, struct report *r)
{
	struct table *t = table_new_map("resmap", "Resident maps per process (64 pages per line)");
	if (maps_available(m, t)) {
		const struct proc **ps = sorted_procs(m);
		for (size_t i = 0; i < m->nprocs; i++) {
			char *group = xasprintf("pid %llu %s", (unsigned long long)ps[i]->tgid, ps[i]->comm);
			for (size_t j = 0; j < ps[i]->nvmas; j++)
				resmap_emit_vma(m, ps[i], &ps[i]->vmas[j], group, "", t);
			free(group);
		}
		free(ps);
	}
	report_add(r, t);
}

static int unit_name_cmp(const void *a, const void *b, void *ctx)
{
	const struct model *m = ctx;
	return strcmp(m->units[*(const uint32_t *)a], m->units[*(const uint32_t *)b]);
}

void an_unitmap(const struct model *m, struct report *r)
{
	struct table *t = table_new_map("unitmap", "Resident maps per executable unit, across processes");
	if (maps_available(m, t)) {
		/* Executable units only: units that have a text or library mapping somewhere. */
		bool *exec_unit = xcalloc(m->nunits ? m->nunits : 1, sizeof *exec_unit);
		for (size_t i = 0; i < m->nprocs; i++)
			for (size_t j = 0; j < m->procs[i].nvmas; j++) {
				const struct vma_info *v = &m->procs[i].vmas[j];
				if (v->unit != NO_UNIT && v->v.kind != PS_KIND_FILE && v->v.kind != PS_KIND_SHMEM)
					exec_unit[v->unit] = true;
			}
		uint32_t *order = xcalloc(m->nunits ? m->nunits : 1, sizeof *order);
		for (uint32_t u = 0; u < m->nunits; u++)
			order[u] = u;
		if (m->nunits > 1)
			qsort_r(order, m->nunits, sizeof *order, unit_name_cmp, (void *)m);
		const struct proc **ps = sorted_procs(m);
		for (size_t k = 0; k < m->nunits; k++) {
			uint32_t u = order[k];
			if (!exec_unit[u])
				continue;
			for (size_t i = 0; i < m->nprocs; i++)
				for (size_t j = 0; j < ps[i]->nvmas; j++) {
					const struct vma_info *v = &ps[i]->vmas[j];
					if (v->unit != u)
						continue;
					/* The VMA heading carries the process: units span processes. */
					char *prefix = xasprintf("pid %llu %s ", (unsigned long long)ps[i]->tgid,
								 ps[i]->comm);
					resmap_emit_vma(m, ps[i], v, m->units[u], prefix, t);
					free(prefix);
				}
		}
		free(ps), free(order), free(exec_unit);
	}
	report_add(r, t);
}
