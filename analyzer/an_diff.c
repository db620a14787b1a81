/* an_diff.c - analysis 9: what grew and shrank between two snapshots A and B.
 *
 * Processes are matched by what they run, not by pid: two dumps of one workload from
 * different boots have other pids for the same processes. A process of B pairs with one of
 * A with the same command and executable: the one with the same pid if there is one (the
 * same boot), else the equals are paired in pid order (instance order: the 2nd worker with
 * the 2nd worker). A reused pid with another command is a different process. Units match
 * by path, VMA kinds by name. Deltas are B - A in KiB; rows are ordered by the size of the
 * RSS (processes, kinds) or physical (units) change, largest first, unchanged rows omitted.
 */
#include "model.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

static int64_t kib_delta(const struct model *a, uint64_t pa, const struct model *b, uint64_t pb)
{
	return (int64_t)(pb * b->page_size / 1024) - (int64_t)(pa * a->page_size / 1024);
}

static bool same_program(const struct proc *p, const struct proc *q)
{
	return strcmp(p->comm, q->comm) == 0 && strcmp(p->exe ? p->exe : "", q->exe ? q->exe : "") == 0;
}

static int by_tgid(const void *x, const void *y)
{
	const struct proc *p = *(const struct proc *const *)x, *q = *(const struct proc *const *)y;
	return p->tgid < q->tgid ? -1 : p->tgid > q->tgid;
}

/* match[i]: the process of A paired with B's process i, or NULL (new). A process of A that
 * no entry names is gone. */
static const struct proc **match_procs(const struct model *a, const struct model *b)
{
	const struct proc **match = xcalloc(b->nprocs + 1, sizeof *match);
	bool *used = xcalloc(a->nprocs + 1, sizeof *used);
	/* the same pid running the same program first */
	for (size_t i = 0; i < b->nprocs; i++)
		for (size_t j = 0; j < a->nprocs; j++)
			if (!used[j] && a->procs[j].tgid == b->procs[i].tgid &&
			    same_program(&a->procs[j], &b->procs[i])) {
				match[i] = &a->procs[j], used[j] = true;
				break;
			}
	/* then the rest of each program's instances, in pid order on both sides */
	const struct proc **bs = xcalloc(b->nprocs + 1, sizeof *bs), **as = xcalloc(a->nprocs + 1, sizeof *as);
	size_t nb = 0, na = 0;
	for (size_t i = 0; i < b->nprocs; i++)
		if (!match[i])
			bs[nb++] = &b->procs[i];
	for (size_t j = 0; j < a->nprocs; j++)
		if (!used[j])
			as[na++] = &a->procs[j];
	if (nb)
		qsort(bs, nb, sizeof *bs, by_tgid);
	if (na)
		qsort(as, na, sizeof *as, by_tgid);
	bool *taken = xcalloc(na + 1, sizeof *taken);
	for (size_t i = 0; i < nb; i++)
		for (size_t j = 0; j < na; j++)
			if (!taken[j] && same_program(as[j], bs[i])) {
				match[bs[i] - b->procs] = as[j], taken[j] = true;
				break;
			}
	free(bs), free(as), free(taken), free(used);
	return match;
}

static int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

static void diff_procs(const struct model *a, const struct model *b, struct report *r)
{
	enum { C_PID, C_COMM, C_STATUS, C_RSS_A, C_RSS_B, C_RSS_D, C_PSS_D, C_USS_D, C_VSS_D,
	       C_SWAP_D, C_ABS, C_PID_A, C_N };
	static const struct column cols[C_N] = {
		{ "pid", "PID", CELL_U64, false }, { "comm", "COMMAND", CELL_STR, false },
		{ "status", "STATUS", CELL_STR, false },
		{ "rss_a_kib", "RSS_A", CELL_U64, COL_KIB }, { "rss_b_kib", "RSS_B", CELL_U64, COL_KIB },
		{ "rss_delta_kib", "RSS_DELTA", CELL_I64, COL_KIB },
		{ "pss_delta_kib", "PSS_DELTA", CELL_I64, COL_KIB },
		{ "uss_delta_kib", "USS_DELTA", CELL_I64, COL_KIB },
		{ "vss_delta_kib", "VSS_DELTA", CELL_I64, COL_KIB },
		{ "swap_delta_kib", "SWAP_DELTA", CELL_I64, COL_KIB },
		{ "abs_rss_delta_kib", "RSS_DELTA_ABS", CELL_U64, COL_KIB },
		{ "pid_a", "PID_A", CELL_U64, false },
	};
	struct table *t = table_new("diff-procs", "Per-process change from A to B", STYLE_GRID,
				    C_N, cols);
	/* Every process of B (new or changed), then those only in A (gone). */
	const struct proc **match = match_procs(a, b);
	bool *matched_a = xcalloc(a->nprocs + 1, sizeof *matched_a);
	for (size_t i = 0; i < b->nprocs; i++)
		if (match[i])
			matched_a[match[i] - a->procs] = true;
	for (int pass = 0; pass < 2; pass++) {
		const struct model *m = pass ? a : b;
		for (size_t i = 0; i < m->nprocs; i++) {
			const struct proc *p = &m->procs[i], *q = pass ? NULL : match[i];
			if (pass && matched_a[i])
				continue;
			const struct proc *pa = pass ? p : q, *pb = pass ? NULL : p;
			struct proc_totals ta = { 0 }, tb = { 0 };
			if (pa)
				model_proc_totals(a, pa, &ta);
			if (pb)
				model_proc_totals(b, pb, &tb);
			int64_t drss = kib_delta(a, ta.rss, b, tb.rss);
			int64_t dpss = (int64_t)((tb.pss >> PS_PSS_SHIFT) / 1024) -
				       (int64_t)((ta.pss >> PS_PSS_SHIFT) / 1024);
			int64_t duss = kib_delta(a, ta.uss, b, tb.uss), dvss = kib_delta(a, ta.vss, b, tb.vss);
			int64_t dswap = kib_delta(a, ta.swap, b, tb.swap);
			if (pa && pb && !drss && !dpss && !duss && !dvss && !dswap)
				continue;
			size_t row = table_add_row(t);
			table_set_u64(t, row, C_PID, p->tgid);
			table_set_str(t, row, C_COMM, p->comm);
			table_set_str(t, row, C_STATUS, !pa ? "new" : !pb ? "gone" : "changed");
			table_set_u64(t, row, C_RSS_A, ta.rss * a->page_size / 1024);
			table_set_u64(t, row, C_RSS_B, tb.rss * b->page_size / 1024);
			table_set_i64(t, row, C_RSS_D, drss);
			table_set_i64(t, row, C_PSS_D, dpss);
			table_set_i64(t, row, C_USS_D, duss);
			table_set_i64(t, row, C_VSS_D, dvss);
			table_set_i64(t, row, C_SWAP_D, dswap);
			table_set_u64(t, row, C_ABS, (uint64_t)abs64(drss));
			if (pa)
				table_set_u64(t, row, C_PID_A, pa->tgid);
		}
	}
	free(match), free(matched_a);
	table_sort(t, C_ABS, true);
	t->delta = xcalloc(1, sizeof *t->delta);
	*t->delta = (struct delta_chart){ "RSS change per process", C_COMM, C_RSS_D, true, C_PID, 1024, 25 };
	table_set_note(t, "processes are matched by command and executable (the same pid first, "
		       "then in pid order): PID is B's, PID_A A's");
	report_add(r, t);
}

/* RSS, PSS and swap per VMA kind over all processes: which kind of memory moved. */
static void kind_totals(const struct model *m, uint64_t rss[PS_KIND_COUNT],
			uint64_t pss[PS_KIND_COUNT], uint64_t swap[PS_KIND_COUNT])
{
	for (int k = 0; k < PS_KIND_COUNT; k++)
		rss[k] = pss[k] = swap[k] = 0;
	for (size_t i = 0; i < m->nprocs; i++)
		for (size_t j = 0; j < m->procs[i].nvmas; j++) {
			const struct vma_info *v = &m->procs[i].vmas[j];
			rss[v->v.kind] += v->sum.resident;
			pss[v->v.kind] += v->sum.pss;
			swap[v->v.kind] += model_vma_swap(v);
		}
}

static void diff_kinds(const struct model *a, const struct model *b, struct report *r)
{
	enum { C_KIND, C_RSS_A, C_RSS_B, C_RSS_D, C_PSS_D, C_SWAP_D, C_ABS, C_N };
	static const struct column cols[C_N] = {
		{ "kind", "KIND", CELL_STR, false },
		{ "rss_a_kib", "RSS_A", CELL_U64, COL_KIB }, { "rss_b_kib", "RSS_B", CELL_U64, COL_KIB },
		{ "rss_delta_kib", "RSS_DELTA", CELL_I64, COL_KIB },
		{ "pss_delta_kib", "PSS_DELTA", CELL_I64, COL_KIB },
		{ "swap_delta_kib", "SWAP_DELTA", CELL_I64, COL_KIB },
		{ "abs_rss_delta_kib", "RSS_DELTA_ABS", CELL_U64, COL_KIB },
	};
	struct table *t = table_new("diff-kinds", "Per VMA kind change over all processes from A "
				    "to B", STYLE_GRID, C_N, cols);
	uint64_t ra[PS_KIND_COUNT], pa[PS_KIND_COUNT], sa[PS_KIND_COUNT];
	uint64_t rb[PS_KIND_COUNT], pb[PS_KIND_COUNT], sb[PS_KIND_COUNT];
	kind_totals(a, ra, pa, sa);
	kind_totals(b, rb, pb, sb);
	for (int k = 0; k < PS_KIND_COUNT; k++) {
		int64_t drss = kib_delta(a, ra[k], b, rb[k]), dswap = kib_delta(a, sa[k], b, sb[k]);
		int64_t dpss = (int64_t)((pb[k] >> PS_PSS_SHIFT) / 1024) -
			       (int64_t)((pa[k] >> PS_PSS_SHIFT) / 1024);
		if (!drss && !dpss && !dswap)
			continue;
		size_t row = table_add_row(t);
		table_set_str(t, row, C_KIND, ps_kind_name(k));
		table_set_u64(t, row, C_RSS_A, ra[k] * a->page_size / 1024);
		table_set_u64(t, row, C_RSS_B, rb[k] * b->page_size / 1024);
		table_set_i64(t, row, C_RSS_D, drss);
		table_set_i64(t, row, C_PSS_D, dpss);
		table_set_i64(t, row, C_SWAP_D, dswap);
		table_set_u64(t, row, C_ABS, (uint64_t)abs64(drss));
	}
	table_sort(t, C_ABS, true);
	report_add(r, t);
}

static uint64_t unit_phys_total(const struct model *m, uint32_t u)
{
	uint64_t sum = 0;
	for (int k = 0; k < PS_KIND_COUNT; k++)
		sum += m->unit_phys[(size_t)u * PS_KIND_COUNT + (size_t)k];
	return sum;
}

static void diff_units(const struct model *a, const struct model *b, struct report *r)
{
	enum { C_UNIT, C_STATUS, C_PHYS_A, C_PHYS_B, C_PHYS_D, C_ABS, C_N };
	static const struct column cols[C_N] = {
		{ "unit", "UNIT", CELL_STR, false }, { "status", "STATUS", CELL_STR, false },
		{ "phys_a_kib", "PHYS_A", CELL_U64, COL_KIB }, { "phys_b_kib", "PHYS_B", CELL_U64, COL_KIB },
		{ "phys_delta_kib", "PHYS_DELTA", CELL_I64, COL_KIB },
		{ "abs_phys_delta_kib", "PHYS_DELTA_ABS", CELL_U64, COL_KIB },
	};
	struct table *t = table_new("diff-units", "Per-unit change of distinct physical pages "
				    "from A to B", STYLE_GRID, C_N, cols);
	for (int pass = 0; pass < 2; pass++) {
		const struct model *m = pass ? a : b, *other = pass ? b : a;
		for (uint32_t u = 0; u < m->nunits; u++) {
			uint32_t o = NO_UNIT;
			for (uint32_t k = 0; k < other->nunits; k++)
				if (strcmp(other->units[k], m->units[u]) == 0)
					o = k;
			if (pass && o != NO_UNIT)
				continue;
			uint64_t pa = pass ? unit_phys_total(a, u) : o != NO_UNIT ? unit_phys_total(a, o) : 0;
			uint64_t pb = pass ? 0 : unit_phys_total(b, u);
			int64_t d = kib_delta(a, pa, b, pb);
			if (!d && !pass && o != NO_UNIT)
				continue;
			size_t row = table_add_row(t);
			table_set_str(t, row, C_UNIT, m->units[u]);
			table_set_str(t, row, C_STATUS, pass ? "gone" : o == NO_UNIT ? "new" : "changed");
			table_set_u64(t, row, C_PHYS_A, pa * a->page_size / 1024);
			table_set_u64(t, row, C_PHYS_B, pb * b->page_size / 1024);
			table_set_i64(t, row, C_PHYS_D, d);
			table_set_u64(t, row, C_ABS, (uint64_t)abs64(d));
		}
	}
	table_sort(t, C_ABS, true);
	t->delta = xcalloc(1, sizeof *t->delta);
	*t->delta = (struct delta_chart){ "Distinct physical change per unit", C_UNIT, C_PHYS_D, false, 0, 1024, 25 };
	report_add(r, t);
}

static void diff_total(const struct model *a, const struct model *b, struct report *r)
{
	enum { C_A, C_B, C_D, C_N };
	static const struct column cols[C_N] = {
		{ "user_a_kib", "USER_A", CELL_U64, COL_KIB }, { "user_b_kib", "USER_B", CELL_U64, COL_KIB },
		{ "user_delta_kib", "USER_DELTA", CELL_I64, COL_KIB },
	};
	struct table *t = table_new("diff-total", "Physical memory used by user space, A to B",
				    STYLE_GRID, C_N, cols);
	size_t row = table_add_row(t);
	table_set_u64(t, row, C_A, a->pfns.used * a->page_size / 1024);
	table_set_u64(t, row, C_B, b->pfns.used * b->page_size / 1024);
	table_set_i64(t, row, C_D, kib_delta(a, a->pfns.used, b, b->pfns.used));
	report_add(r, t);
}

/* The kernel's own counters, A to B (both must have them): which of /proc/meminfo's fields
 * moved, the largest change first — slab growth between two dumps of a leaking board. */
static void diff_meminfo(const struct model *a, const struct model *b, struct report *r)
{
	enum { C_FIELD, C_A, C_B, C_D, C_ABS, C_N };
	static const struct column cols[C_N] = {
		{ "field", "FIELD", CELL_STR, false }, { "a_kb", "A_KB", CELL_U64, false },
		{ "b_kb", "B_KB", CELL_U64, false }, { "delta_kb", "DELTA_KB", CELL_I64, false },
		{ "abs_delta_kb", "DELTA_KB_ABS", CELL_U64, false },
	};
	if (!a->ncounters || !b->ncounters)
		return;
	struct table *t = table_new("diff-meminfo", "The kernel's /proc/meminfo fields that changed "
				    "from A to B (kB; counts for HugePages_*)", STYLE_GRID, C_N, cols);
	for (size_t i = 0; i < b->ncounters; i++) {
		const struct kcounter *c = &b->counters[i];
		uint64_t va;
		if (strcmp(c->set, "meminfo") != 0 || c->value == PS_UNKNOWN ||
		    !model_counter(a, "meminfo", c->name, &va) || va == c->value)
			continue;
		int64_t d = (int64_t)(c->value - va);
		size_t row = table_add_row(t);
		table_set_str(t, row, C_FIELD, c->name);
		table_set_u64(t, row, C_A, va);
		table_set_u64(t, row, C_B, c->value);
		table_set_i64(t, row, C_D, d);
		table_set_u64(t, row, C_ABS, (uint64_t)abs64(d));
	}
	table_sort(t, C_ABS, true);
	report_add(r, t);
}

/* Frames per owner by name (slab caches, files, vmalloc callers) from A to B: which cache
 * grew between two dumps of a leaking board. Owners are matched by kind and name. */
static uint64_t owner_frames(const struct model *m, const char *kind, const char *name)
{
	uint64_t n = 0;
	for (size_t i = 0; i < m->nowners; i++)
		if (m->owners[i].name && m->owners[i].kind && strcmp(m->owners[i].kind, kind) == 0 &&
		    strcmp(m->owners[i].name, name) == 0)
			n += m->owners[i].frames;
	return n;
}

static void diff_frames(const struct model *a, const struct model *b, struct report *r)
{
	enum { C_WHAT, C_KIND, C_A, C_B, C_D, C_ABS, C_N };
	static const struct column cols[C_N] = {
		{ "what", "CLASS_OR_OWNER", CELL_STR, false }, { "kind", "KIND", CELL_STR, false },
		{ "a_bytes", "A", CELL_U64, COL_BYTES }, { "b_bytes", "B", CELL_U64, COL_BYTES },
		{ "delta_bytes", "DELTA", CELL_I64, COL_BYTES },
		{ "abs_delta_bytes", "DELTA_ABS", CELL_U64, COL_BYTES },
	};
	if (!a->have_frames || !b->have_frames)
		return;
	struct table *t = table_new("diff-frames", "Frames of RAM by class and by owner (slab cache, file, "
				    "vmalloc caller) that changed from A to B", STYLE_GRID, C_N, cols);
	for (int c = 0; c < PS_FC_COUNT; c++) {
		uint64_t fa = a->frames[c] * a->page_size, fb = b->frames[c] * b->page_size;
		if (fa == fb)
			continue;
		size_t row = table_add_row(t);
		table_set_str(t, row, C_WHAT, ps_frame_class_name((enum ps_frame_class)c));
		table_set_str(t, row, C_KIND, "class");
		table_set_u64(t, row, C_A, fa);
		table_set_u64(t, row, C_B, fb);
		table_set_i64(t, row, C_D, (int64_t)(fb - fa));
		table_set_u64(t, row, C_ABS, (uint64_t)abs64((int64_t)(fb - fa)));
	}
	/* owners of B (and A's that B lacks), each name once */
	for (int pass = 0; pass < 2; pass++) {
		const struct model *m = pass ? a : b, *other = pass ? b : a;
		for (size_t i = 0; i < m->nowners; i++) {
			const struct frame_owner *o = &m->owners[i];
			if (!o->name || !o->kind || !o->frames)
				continue;
			bool dup = false; /* an earlier owner of the same name (a file's two mappings) */
			for (size_t j = 0; j < i && !dup; j++)
				dup = m->owners[j].name && m->owners[j].kind && !strcmp(m->owners[j].name, o->name) &&
				      !strcmp(m->owners[j].kind, o->kind);
			uint64_t in_other = owner_frames(other, o->kind, o->name);
			if (dup || (pass && in_other))
				continue;
			uint64_t fm = owner_frames(m, o->kind, o->name) * m->page_size;
			uint64_t fo = in_other * other->page_size;
			uint64_t fa = pass ? fm : fo, fb = pass ? fo : fm;
			if (fa == fb)
				continue;
			size_t row = table_add_row(t);
			table_set_str(t, row, C_WHAT, o->name);
			table_set_str(t, row, C_KIND, o->kind);
			table_set_u64(t, row, C_A, fa);
			table_set_u64(t, row, C_B, fb);
			table_set_i64(t, row, C_D, (int64_t)(fb - fa));
			table_set_u64(t, row, C_ABS, (uint64_t)abs64((int64_t)(fb - fa)));
		}
	}
	table_sort(t, C_ABS, true);
	t->delta = xcalloc(1, sizeof *t->delta);
	*t->delta = (struct delta_chart){ "Change per class and owner", C_WHAT, C_D, true, C_KIND, 1, 25 };
	report_add(r, t);
}

void an_diff(const struct model *a, const struct model *b, struct report *r)
{
	diff_meminfo(a, b, r);
	diff_frames(a, b, r);
	diff_total(a, b, r);
	diff_procs(a, b, r);
	diff_kinds(a, b, r);
	diff_units(a, b, r);
}
