/* an_resmap.c - analyses 2 and 3: resident maps, per process and per executable unit.
 *
 * One character per page, 64 pages per line: '1'-'9' that many mappings of the physical
 * page (the kernel's mapcount), '#' ten or more, '.' no physical page, 's' swapped out,
 * '?' unknown (mapcount hidden, page table unreadable, or a migration/device entry). A line shorter than 64 ends the
 * VMA. Two or more identical full lines of one character become one row with MAP_COL_SKIP =
 * their number (MAP_COL_MAP is "" for empty lines, else the repeated line), so a sparse
 * 32 GiB reservation, or a huge unreadable range, costs one row, not half a million.
 * The unit map starts each unit with its union line (kind "union", emit_unit_union).
 */
#include "model.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

#define MAP_LINE 64

static void emit_row_kind(struct table *t, const char *group, const char *vma, const char *flags,
			  const char *kind, const char *unit, uint64_t offset, const char *map,
			  uint64_t skip)
{
	size_t row = table_add_row(t);
	table_set_str(t, row, MAP_COL_GROUP, group);
	table_set_str(t, row, MAP_COL_VMA, vma);
	table_set_str(t, row, MAP_COL_FLAGS, flags);
	table_set_str(t, row, MAP_COL_KIND, kind);
	table_set_str(t, row, MAP_COL_UNIT, unit);
	table_set_u64(t, row, MAP_COL_OFFSET, offset);
	table_set_str(t, row, MAP_COL_MAP, map);
	table_set_u64(t, row, MAP_COL_SKIP, skip);
}

static void emit_row(struct table *t, const char *group, const char *vma, const char *flags,
		     const struct vma_info *v, const char *unit, uint64_t offset, const char *map,
		     uint64_t skip)
{
	emit_row_kind(t, group, vma, flags, ps_kind_name(v->v.kind), unit, offset, map, skip);
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

/* A unit's file pages across its processes: per page of the file (the VMAs' pgoff), in how
 * many processes it is resident ('1'-'9', '#' ten or more), '.' mapped by some but resident
 * in none, ' ' mapped by none. The per-process maps below it show each process's VMAs; this
 * line shows what they share and what the page cache holds for all of them (kind "union"). */
enum { UNION_MAX_PAGES = 1 << 22 }; /* 16 GiB of 4 KiB pages: a larger span is left out */

static bool file_kind(enum ps_vma_kind k)
{
	return k == PS_KIND_TEXT || k == PS_KIND_DATA || k == PS_KIND_LIBTEXT || k == PS_KIND_LIBDATA;
}

static void emit_unit_union(const struct model *m, const struct proc **ps, uint32_t u, struct table *t)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	for (size_t i = 0; i < m->nprocs; i++)
		for (size_t j = 0; j < ps[i]->nvmas; j++) {
			const struct vma_info *v = &ps[i]->vmas[j];
			if (v->unit != u || !file_kind(v->v.kind) || !v->have_runs)
				continue;
			uint64_t n = model_vma_pages(m, v);
			lo = v->v.pgoff < lo ? v->v.pgoff : lo;
			hi = v->v.pgoff + n > hi ? v->v.pgoff + n : hi;
		}
	if (lo >= hi || hi - lo > UNION_MAX_PAGES)
		return;
	size_t n = (size_t)(hi - lo), nprocs = 0;
	uint32_t *count = xcalloc(n, sizeof *count);
	uint8_t *seen = xcalloc(n, 1), *mapped = xcalloc(n, 1);
	for (size_t i = 0; i < m->nprocs; i++) {
		bool any = false;
		for (size_t j = 0; j < ps[i]->nvmas; j++) {
			const struct vma_info *v = &ps[i]->vmas[j];
			if (v->unit != u || !file_kind(v->v.kind) || !v->have_runs)
				continue;
			uint64_t base = v->v.pgoff - lo, npages = model_vma_pages(m, v);
			memset(mapped + base, 1, npages);
			for (size_t k = 0; k < v->nruns; k++) {
				const struct map_run *r = &v->runs[k];
				bool resident = (r->ch >= '1' && r->ch <= '9') || r->ch == '#';
				if (!resident || r->first >= npages)
					continue;
				uint64_t end = r->first + r->count < npages ? r->first + r->count : npages;
				memset(seen + base + r->first, 1, end - r->first);
			}
			any = true;
		}
		if (!any)
			continue;
		nprocs++;
		for (size_t k = 0; k < n; k++)
			count[k] += seen[k];
		memset(seen, 0, n);
	}
	char *map = xcalloc(n + 1, 1);
	for (size_t k = 0; k < n; k++)
		map[k] = count[k] >= 10 ? '#' : count[k] ? (char)('0' + count[k]) : mapped[k] ? '.' : ' ';
	map[n] = '\0';
	char vma[96], line[MAP_LINE + 1];
	snprintf(vma, sizeof vma, "file pages %llx-%llx in %zu process%s",
		 (unsigned long long)lo, (unsigned long long)hi, nprocs, nprocs == 1 ? "" : "es");
	const char *group = m->units[u];
	for (size_t first = 0; first < n;) {
		size_t len = n - first < MAP_LINE ? n - first : MAP_LINE;
		/* two or more full lines of one character: one row, as resmap_emit_vma does */
		size_t same = first;
		while (same < n && map[same] == map[first])
			same++;
		uint64_t lines = (same - first) / MAP_LINE;
		if (len == MAP_LINE && lines >= 2) {
			memset(line, map[first] == ' ' ? '.' : map[first], MAP_LINE);
			line[MAP_LINE] = '\0';
			emit_row_kind(t, group, vma, "", "union", group, lo + first,
				      map[first] == '.' || map[first] == ' ' ? "" : line, lines);
			first += lines * MAP_LINE;
			continue;
		}
		memcpy(line, map + first, len);
		line[len] = '\0';
		emit_row_kind(t, group, vma, "", "union", group, lo + first, line, 0);
		first += len;
	}
	free(map), free(count), free(seen), free(mapped);
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
			emit_unit_union(m, ps, u, t);
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
