/* model.c - stream a record file into the per-snapshot model the analyses read. */
#include "model.h"
#include "decompress.h"

#include <stdlib.h>
#include <string.h>

#include "strindex.h"
#include "xalloc.h"

/* ---- distinct PFNs ------------------------------------------------------------------------- */

static size_t pfn_hash(uint64_t block, size_t cap)
{
	/* Fibonacci hashing: neighbouring blocks spread over the table. */
	return (size_t)((block * UINT64_C(0x9E3779B97F4A7C15)) >> 20) & (cap - 1);
}

static void pfn_grow(struct pfn_table *t)
{
	size_t ncap = t->cap ? t->cap * 2 : 1 << 12;
	struct pfn_block *ns = xcalloc(ncap, sizeof *ns);
	for (size_t i = 0; i < t->cap; i++) {
		if (!t->slots[i].block_plus1)
			continue;
		size_t h = pfn_hash(t->slots[i].block_plus1 - 1, ncap);
		while (ns[h].block_plus1)
			h = (h + 1) & (ncap - 1);
		ns[h] = t->slots[i];
	}
	free(t->slots);
	t->slots = ns;
	t->cap = ncap;
}

/* Mark frames [pfn, pfn + n) mapped, all inside one block (pfn % 64 + n <= 64). Returns how
 * many of them were not marked before. */
static unsigned pfn_mark(struct pfn_table *t, uint64_t pfn, unsigned n)
{
	uint64_t block = pfn >> 6;
	uint64_t mask = (n == 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1) << (pfn & 63);
	if ((t->nblocks + 1) * 4 > t->cap * 3)
		pfn_grow(t);
	for (size_t h = pfn_hash(block, t->cap);; h = (h + 1) & (t->cap - 1)) {
		struct pfn_block *b = &t->slots[h];
		if (b->block_plus1 == block + 1) {
			unsigned added = (unsigned)__builtin_popcountll(mask & ~b->bits);
			b->bits |= mask;
			t->used += added;
			return added;
		}
		if (!b->block_plus1) {
			b->block_plus1 = block + 1;
			b->bits = mask;
			t->nblocks++;
			t->used += n;
			return n;
		}
	}
}

/* Mark the frames of a run; returns how many were new (first seen in this run). */
static uint64_t pfn_mark_run(struct pfn_table *t, uint64_t pfn, uint64_t npages)
{
	if (npages > PFN_LONG_RUN) { /* counted, not marked: see struct pfn_table */
		if (!t->long_runs++)
			t->long_first_pfn = pfn, t->long_first_pages = npages;
		t->long_run_pages += npages;
		t->used += npages;
		return npages;
	}
	uint64_t added = 0;
	while (npages) {
		unsigned n = 64 - (unsigned)(pfn & 63);
		if (n > npages)
			n = (unsigned)npages;
		added += pfn_mark(t, pfn, n);
		pfn += n;
		npages -= n;
	}
	return added;
}

/* ---- executable units ---------------------------------------------------------------------- */

static uint32_t unit_intern(struct model *m, struct strindex *ix, const char *path)
{
	uint32_t id = strindex_intern(ix, path);
	if (ix->n > m->nunits) { /* new: grow the per-unit page counters alongside */
		m->unit_phys = xrealloc(m->unit_phys, ix->cap * PS_KIND_COUNT * sizeof *m->unit_phys);
		memset(&m->unit_phys[id * PS_KIND_COUNT], 0, PS_KIND_COUNT * sizeof *m->unit_phys);
	}
	m->units = ix->strs; /* the model owns the strings once the snapshot is finished */
	m->nunits = ix->n;
	m->capunits = ix->cap;
	return id;
}

const char *model_unit_name(const struct model *m, uint32_t unit)
{
	return unit == NO_UNIT || unit >= m->nunits ? "" : m->units[unit];
}

/* ---- small helpers ------------------------------------------------------------------------- */

int model_unit_class(enum ps_vma_kind k)
{
	switch (k) {
	case PS_KIND_TEXT:
	case PS_KIND_LIBTEXT: return 0;
	case PS_KIND_DATA:
	case PS_KIND_LIBDATA: return 1;
	case PS_KIND_BSS:
	case PS_KIND_LIBBSS:
	case PS_KIND_HEAP: return 2;
	default: return -1;
	}
}

void model_unit_phys(const struct model *m, uint32_t u, uint64_t phys[3])
{
	phys[0] = phys[1] = phys[2] = 0;
	for (int k = 0; k < PS_KIND_COUNT; k++) {
		int c = model_unit_class(k);
		if (c >= 0)
			phys[c] += m->unit_phys[(size_t)u * PS_KIND_COUNT + (size_t)k];
	}
}

static int mapped_object_cmp(const void *a, const void *b)
{
	const struct mapped_object *x = a, *y = b;
	if (x->pss != y->pss)
		return x->pss < y->pss ? 1 : -1;
	return strcmp(x->name, y->name);
}

void model_mapped_objects(const struct model *m, struct mapped_objects *out)
{
	struct strindex names = { 0 };
	struct mapped_object *obj = NULL;
	uint64_t *last_proc = NULL;
	size_t cap = 0;
	for (size_t i = 0; i < m->nprocs; i++)
		for (size_t j = 0; j < m->procs[i].nvmas; j++) {
			const struct vma_info *v = &m->procs[i].vmas[j];
			uint32_t id = strindex_intern(&names, v->path[0] ? v->path : "[anon]");
			if (id >= cap) {
				size_t ncap = cap ? cap * 2 : 64;
				obj = xrealloc(obj, ncap * sizeof *obj);
				last_proc = xrealloc(last_proc, ncap * sizeof *last_proc);
				memset(obj + cap, 0, (ncap - cap) * sizeof *obj);
				memset(last_proc + cap, 0, (ncap - cap) * sizeof *last_proc);
				cap = ncap;
			}
			struct mapped_object *o = &obj[id];
			o->name = names.strs[id];
			if (last_proc[id] != i + 1)
				last_proc[id] = i + 1, o->procs++;
			o->vss += model_vma_pages(m, v);
			o->rss += v->sum.resident, o->pss += v->sum.pss, o->uss += v->sum.single;
			o->unknown |= !model_vma_pss_known(v);
		}
	if (names.n > 1) /* qsort's pointer may not be NULL, even for no elements */
		qsort(obj, names.n, sizeof *obj, mapped_object_cmp);
	free(last_proc);
	out->obj = obj, out->n = names.n;
	strindex_release_hash(&names); /* the strings stay, owned by the set */
	out->names = names.strs;
}

void model_mapped_objects_free(struct mapped_objects *o)
{
	for (size_t i = 0; i < o->n; i++)
		free(o->names[i]);
	free(o->names), free(o->obj);
	memset(o, 0, sizeof *o);
}

enum summary_group model_summary_group(enum ps_vma_kind kind)
{
	switch (kind) {
	case PS_KIND_STACK: return SG_STACK;
	case PS_KIND_HEAP:
	case PS_KIND_BSS: return SG_HEAP_BSS;
	case PS_KIND_DATA: return SG_DATA;
	case PS_KIND_TEXT: return SG_TEXT;
	case PS_KIND_LIBDATA:
	case PS_KIND_LIBBSS: return SG_LIBDATA;
	case PS_KIND_LIBTEXT: return SG_LIBTEXT;
	case PS_KIND_ANON: return SG_ANON;
	case PS_KIND_FILE:
	case PS_KIND_SHMEM: return SG_FILE;
	default: return SG_OTHER;
	}
}

const char *model_summary_group_name(enum summary_group g)
{
	static const char *const names[SG_COUNT] = { "stack", "heap_bss", "data", "text",
		"libdata", "libtext", "anon", "file", "other" };
	return (unsigned)g < SG_COUNT ? names[g] : "other";
}

char model_map_char(const struct ps_map *run)
{
	if (run->mapcount == PS_UNKNOWN)
		return '?';
	if (run->mapcount >= 10)
		return '#';
	/* A resident page has at least this mapping, whatever a racy mapcount said. */
	return (char)('0' + (run->mapcount ? run->mapcount : 1));
}

void model_vma_flags(const struct proc *p, const struct vma_info *v, char out[16])
{
	size_t n = 0;
	enum ps_vma_kind k = v->v.kind;
	if (k == PS_KIND_STACK)
		out[n++] = 'S';
	if (k == PS_KIND_TEXT || k == PS_KIND_DATA || k == PS_KIND_BSS || k == PS_KIND_HEAP ||
	    (p->exe && p->exe[0] && v->path[0] && strcmp(p->exe, v->path) == 0))
		out[n++] = 'X';
	if (k == PS_KIND_BSS || k == PS_KIND_HEAP || k == PS_KIND_LIBBSS)
		out[n++] = 'B';
	if (n)
		out[n++] = ' ';
	memcpy(out + n, v->v.perm, 4);
	out[n + 4] = '\0';
}

uint64_t model_vma_pages(const struct model *m, const struct vma_info *v)
{
	return (v->v.end - v->v.start) >> m->page_shift;
}

uint64_t model_vma_swap(const struct vma_info *v)
{
	return v->sum.swapped + (v->sum.shmem_swap != PS_UNKNOWN ? v->sum.shmem_swap : 0);
}

void model_proc_totals(const struct model *m, const struct proc *p, struct proc_totals *t)
{
	memset(t, 0, sizeof *t);
	for (size_t j = 0; j < p->nvmas; j++) {
		const struct ps_vma_sum *s = &p->vmas[j].sum;
		t->vss += model_vma_pages(m, &p->vmas[j]);
		t->rss += s->resident, t->pss += s->pss, t->uss += s->single;
		t->swap += model_vma_swap(&p->vmas[j]), t->referenced += s->referenced, t->anon += s->anon;
		if (s->shmem_swap == PS_UNKNOWN)
			t->shmem_swap_unknown++;
		else
			t->shmem_swap += s->shmem_swap;
	}
}

/* ---- building ------------------------------------------------------------------------------ */

struct pending_task {
	struct ps_task t;
	char comm[64];
};

struct builder {
	struct model *kept;         /* the caller's model: header, history, the chosen snapshot */
	struct model cur;           /* the snapshot being read */
	const struct model_options *opt;
	struct strindex units;
	uint32_t *proc_of_mm;       /* mm id -> proc index + 1 */
	size_t proc_of_mm_cap;
	struct pending_task *tasks;
	size_t ntasks, captasks;
	struct proc *cur_proc;
	struct vma_info *cur_vma;
	bool in_snapshot, kept_any;
	const char *file;
};

static void proc_free(struct proc *p)
{
	for (size_t j = 0; j < p->nvmas; j++)
		free(p->vmas[j].path), free(p->vmas[j].runs);
	free(p->vmas), free(p->comm), free(p->exe);
}

static void snapshot_free(struct model *m)
{
	for (size_t i = 0; i < m->nprocs; i++)
		proc_free(&m->procs[i]);
	free(m->procs);
	for (size_t u = 0; u < m->nunits; u++)
		free(m->units[u]);
	free(m->units), free(m->unit_phys), free(m->pfns.slots);
	free(m->partial_why), free(m->warnings), free(m->snapshot_time);
	for (size_t i = 0; i < m->ncounters; i++)
		free(m->counters[i].set), free(m->counters[i].name), free(m->counters[i].zone);
	free(m->counters);
	for (size_t i = 0; i < m->nowners; i++)
		free(m->owners[i].kind), free(m->owners[i].name);
	free(m->owners);
	free(m->fruns);
	for (size_t i = 0; i < m->nlogs; i++)
		free(m->logs[i].text);
	free(m->logs);
	for (size_t i = 0; i < m->nslabs; i++)
		free(m->slabs[i].name);
	free(m->slabs);
	m->procs = NULL, m->nprocs = m->capprocs = 0;
	m->units = NULL, m->unit_phys = NULL, m->nunits = m->capunits = 0;
	memset(&m->pfns, 0, sizeof m->pfns);
	m->partial_why = m->warnings = m->snapshot_time = NULL;
	m->pfn_hidden_pages = m->swapped_pages = m->unknown_pages = m->excluded_pages = 0;
	m->distinct_anon = 0;
	m->distinct_anon_hugetlb = 0;
	m->sum_only_pages = 0;
	m->counters = NULL, m->ncounters = m->capcounters = 0;
	m->owners = NULL, m->nowners = 0;
	m->fruns = NULL, m->nfruns = m->capfruns = 0;
	m->logs = NULL, m->nlogs = m->caplogs = 0;
	m->slabs = NULL, m->nslabs = m->capslabs = 0;
	m->have_frames = false;
	memset(m->frames, 0, sizeof m->frames);
	m->complete = false;
}

static void map_run_add(struct vma_info *v, uint64_t first, uint64_t count, char ch)
{
	if (v->nruns) {
		struct map_run *last = &v->runs[v->nruns - 1];
		if (last->ch == ch && last->first + last->count == first) {
			last->count += count;
			return;
		}
	}
	if (v->nruns == v->capruns) {
		v->capruns = v->capruns ? v->capruns * 2 : 4;
		v->runs = xrealloc(v->runs, v->capruns * sizeof *v->runs);
	}
	v->runs[v->nruns++] = (struct map_run){ first, count, ch };
}

static struct proc *proc_for_mm(struct builder *b, uint64_t mm_id)
{
	return mm_id < b->proc_of_mm_cap && b->proc_of_mm[mm_id] ?
		       &b->cur.procs[b->proc_of_mm[mm_id] - 1] : NULL;
}

static void on_mm(struct builder *b, const struct ps_mm *mm)
{
	struct model *m = &b->cur;
	if (m->nprocs == m->capprocs) {
		m->capprocs = m->capprocs ? m->capprocs * 2 : 64;
		m->procs = xrealloc(m->procs, m->capprocs * sizeof *m->procs);
	}
	struct proc *p = &m->procs[m->nprocs];
	memset(p, 0, sizeof *p);
	p->mm_id = mm->id;
	p->tgid = mm->tgid;
	p->pid = PS_UNKNOWN;
	p->comm = xstrdup(mm->comm);
	p->exe = xstrdup(mm->exe);
	p->start_brk = mm->start_brk, p->brk = mm->brk, p->start_stack = mm->start_stack;
	p->total_vm = mm->total_vm;
	if (mm->id >= b->proc_of_mm_cap) {
		size_t ncap = b->proc_of_mm_cap ? b->proc_of_mm_cap : 64;
		while (ncap <= mm->id)
			ncap *= 2;
		b->proc_of_mm = xrealloc(b->proc_of_mm, ncap * sizeof *b->proc_of_mm);
		memset(b->proc_of_mm + b->proc_of_mm_cap, 0,
		       (ncap - b->proc_of_mm_cap) * sizeof *b->proc_of_mm);
		b->proc_of_mm_cap = ncap;
	}
	b->proc_of_mm[mm->id] = (uint32_t)++m->nprocs;
	b->cur_proc = p;
	b->cur_vma = NULL;
}

static void on_vma(struct builder *b, const struct ps_vma *in)
{
	struct proc *p = b->cur_proc; /* the reader guarantees the vma follows its mm */
	if (p->nvmas == p->capvmas) {
		p->capvmas = p->capvmas ? p->capvmas * 2 : 16;
		p->vmas = xrealloc(p->vmas, p->capvmas * sizeof *p->vmas);
	}
	struct vma_info *v = &p->vmas[p->nvmas++];
	memset(v, 0, sizeof *v);
	v->v = *in;
	v->path = xstrdup(in->path);
	v->v.path = v->path;
	v->unit = in->unit && in->unit[0] ? unit_intern(&b->cur, &b->units, in->unit) : NO_UNIT;
	v->v.unit = NULL; /* use model_unit_name(v->unit): the reader's string dies next line */
	v->sum.mm = in->mm;
	v->sum.start = in->start;
	b->cur_vma = v;
}

static void on_map(struct builder *b, const struct ps_map *run)
{
	struct model *m = &b->cur;
	struct vma_info *v = b->cur_vma;
	v->have_runs = true;
	ps_sum_add_map(&v->sum, run, m->page_size);
	if (ps_map_zero_page(run)) {
		/* The shared zero page: mapped, but nobody's memory (smaps does not count it):
		 * not in the distinct pages, '.' in the resident maps; the page dump shows it. */
		if (b->opt->on_run)
			b->opt->on_run(b->opt->on_run_ctx, m, b->cur_proc, v, run);
		return;
	}
	bool file_backed = v->path[0] && v->path[0] != '[';
	if (file_backed && ps_map_anon(run))
		v->cow += run->npages;
	if (run->excluded)
		m->excluded_pages += run->npages;
	if (run->mapcount == PS_UNKNOWN)
		v->mapcount_hidden += run->npages;
	if (!ps_pte_knows(run->pte, PS_PTE_ACCESSED))
		v->accessed_hidden = true;
	if (run->pfn == PS_UNKNOWN) {
		v->pfn_hidden += run->npages;
		m->pfn_hidden_pages += run->npages;
	} else {
		/* Pages first seen here are credited to this mapping's unit and kind. */
		uint64_t added = pfn_mark_run(&m->pfns, run->pfn, run->npages);
		if (added && ps_map_anon(run)) {
			m->distinct_anon += added;
			if (run->pflags != PS_UNKNOWN && (run->pflags & PS_PF(PS_PF_HUGE)))
				m->distinct_anon_hugetlb += added;
		}
		if (added && v->unit != NO_UNIT)
			m->unit_phys[(size_t)v->unit * PS_KIND_COUNT + v->v.kind] += added;
	}
	if (b->opt->keep_maps)
		map_run_add(v, (run->vaddr - v->v.start) >> m->page_shift, run->npages,
			    model_map_char(run));
	if (b->opt->on_run)
		b->opt->on_run(b->opt->on_run_ctx, m, b->cur_proc, v, run);
}

static void on_sum(struct builder *b, const struct ps_vma_sum *s, uint64_t line)
{
	struct vma_info *v = b->cur_vma;
	v->have_sum_record = true;
	if (!v->have_runs) {
		v->sum = *s;
		b->cur.sum_only_pages += s->resident;
		return;
	}
	/* Both: the runs are authoritative, a disagreeing summary means a broken writer. Where
	 * the runs carry no mapcounts (a live snapshot without root), PSS and the single/shared
	 * split can only come from the summary (smaps): taken from it. */
	struct ps_vma_sum *c = &v->sum;
	if (v->mapcount_hidden) {
		c->pss = s->pss, c->single = s->single, c->shared = s->shared;
		v->pss_from_sum = s->pss || s->single || s->shared;
	}
	/* Nor do runs without the PTE accessed bit (live) give smaps' Referenced: a 1.3 live
	 * writer puts smaps' own figure in the summary (before 1.3 it held the runs' count). */
	if (v->accessed_hidden)
		c->referenced = s->referenced;
	/* Swapped-out shmem has no page-table entry, hence no run: only the summary knows it. */
	c->shmem_swap = s->shmem_swap;
	if (c->resident != s->resident || c->anon != s->anon || c->swapped != s->swapped ||
	    c->single != s->single || (c->pss >> PS_PSS_SHIFT) != (s->pss >> PS_PSS_SHIFT))
		xappendf(&b->cur.warnings,
			 "%s:%llu: sum record disagrees with the page runs of VMA %llx "
			 "(resident %llu vs %llu, anon %llu vs %llu, swapped %llu vs %llu)",
			 b->file, (unsigned long long)line, (unsigned long long)v->v.start,
			 (unsigned long long)s->resident, (unsigned long long)c->resident,
			 (unsigned long long)s->anon, (unsigned long long)c->anon,
			 (unsigned long long)s->swapped, (unsigned long long)c->swapped);
}

static void on_task(struct builder *b, const struct ps_task *t)
{
	if (b->ntasks == b->captasks) {
		b->captasks = b->captasks ? b->captasks * 2 : 256;
		b->tasks = xrealloc(b->tasks, b->captasks * sizeof *b->tasks);
	}
	struct pending_task *pt = &b->tasks[b->ntasks++];
	pt->t = *t;
	snprintf(pt->comm, sizeof pt->comm, "%s", t->comm);
	pt->t.comm = NULL;
}

/* Attach threads to their address spaces and record the history line of each process. */
/* Processes that exited while the source read them: what was read of them is no process's
 * whole memory any more, so they leave the snapshot (their unknown pages with them), with a
 * note. Their pages read before they exited stay in the distinct-page total. */
static void drop_gone(struct builder *b)
{
	struct model *m = &b->cur;
	size_t kept = 0;
	for (size_t i = 0; i < m->nprocs; i++) {
		struct proc *p = &m->procs[i];
		if (!p->gone) {
			m->procs[kept++] = *p;
			continue;
		}
		for (size_t j = 0; j < p->nvmas; j++)
			m->unknown_pages -= p->vmas[j].sum.unknown <= m->unknown_pages ?
					    p->vmas[j].sum.unknown : m->unknown_pages;
		xappendf(&m->warnings, "pid %llu (%s) exited during the snapshot: left out (its pages "
			 "read before it exited still count in the distinct total)",
			 (unsigned long long)p->tgid, p->comm ? p->comm : "?");
		proc_free(p);
	}
	m->nprocs = kept;
}

static void finish_snapshot(struct builder *b)
{
	struct model *m = &b->cur;
	if (m->pfns.long_runs)
		xappendf(&m->warnings, "%llu page run%s longer than %llu frames (%llu frames in all; the first: %llu "
			 "frames at PFN %llx) counted by length: their frames are not deduplicated against "
			 "other mappings (distinct pages may be overstated by up to that much)",
			 (unsigned long long)m->pfns.long_runs, m->pfns.long_runs == 1 ? "" : "s",
			 (unsigned long long)PFN_LONG_RUN, (unsigned long long)m->pfns.long_run_pages,
			 (unsigned long long)m->pfns.long_first_pages, (unsigned long long)m->pfns.long_first_pfn);
	for (size_t i = 0; i < b->ntasks; i++) {
		const struct ps_task *t = &b->tasks[i].t;
		struct proc *p = t->mm == PS_UNKNOWN ? NULL : proc_for_mm(b, t->mm);
		if (!p)
			continue; /* a kernel thread */
		p->nthreads++;
		if (p->pid == PS_UNKNOWN || t->pid < p->pid)
			p->pid = t->pid;
		if (t->pid == t->tgid || p->nthreads == 1) {
			p->rss_file = t->rss_file, p->rss_anon = t->rss_anon;
			p->rss_shmem = t->rss_shmem, p->rss_swap = t->rss_swap;
			if (t->pid == t->tgid && b->tasks[i].comm[0]) {
				free(p->comm);
				p->comm = xstrdup(b->tasks[i].comm);
			}
		}
		uint64_t add[4] = { t->minflt, t->majflt, t->utime, t->stime };
		uint64_t *dst[4] = { &p->minflt, &p->majflt, &p->utime, &p->stime };
		for (int k = 0; k < 4; k++)
			if (add[k] != PS_UNKNOWN)
				*dst[k] += add[k];
		p->exiting |= t->exiting;
	}
	b->ntasks = 0;
	drop_gone(b); /* after the tasks: they find their process through proc_of_mm's indexes */
	if (m->unknown_pages)
		xappendf(&m->partial_why, "%llu pages in unknown state (their page tables could not "
			 "be read; see the u records)", (unsigned long long)m->unknown_pages);
	for (size_t i = 0; i < m->nprocs; i++) {
		struct proc *p = &m->procs[i];
		if (p->pid == PS_UNKNOWN)
			p->pid = p->tgid;
		struct proc_history h = { .seq = m->seq, .tgid = p->tgid, .majflt = p->majflt,
					  .minflt = p->minflt };
		snprintf(h.comm, sizeof h.comm, "%s", p->comm);
		struct proc_totals tot;
		model_proc_totals(m, p, &tot);
		h.resident = tot.rss;
		h.referenced = tot.referenced;
		struct model *k = b->kept;
		if (k->nhistory == k->caphistory) {
			k->caphistory = k->caphistory ? k->caphistory * 2 : 64;
			k->history = xrealloc(k->history, k->caphistory * sizeof *k->history);
		}
		k->history[k->nhistory++] = h;
	}
	b->kept->snapshots++;
	if (b->opt->on_snapshot) {
		const struct model *k = b->kept;
		struct model view = *m;
		view.source = k->source, view.arch = k->arch, view.release = k->release;
		view.dump = k->dump, view.dump_id = k->dump_id, view.time = k->time;
		view.excluded = k->excluded, view.pids = k->pids, view.tool = k->tool;
		view.tags = k->tags, view.snapshots = k->snapshots;
		b->opt->on_snapshot(b->opt->on_snapshot_ctx, &view);
	}
	/* Keep this snapshot if it is the chosen one (or the latest, by default). */
	if (b->opt->snapshot < 0 || (uint64_t)b->opt->snapshot == m->seq) {
		snapshot_free(b->kept);
		struct model *k = b->kept;
		k->seq = m->seq;
		k->snapshot_time = m->snapshot_time;
		k->procs = m->procs, k->nprocs = m->nprocs, k->capprocs = m->capprocs;
		k->units = m->units, k->nunits = m->nunits, k->capunits = m->capunits;
		k->unit_phys = m->unit_phys;
		k->pfns = m->pfns;
		k->pfn_hidden_pages = m->pfn_hidden_pages, k->swapped_pages = m->swapped_pages;
		k->unknown_pages = m->unknown_pages, k->excluded_pages = m->excluded_pages;
		k->distinct_anon = m->distinct_anon;
		k->distinct_anon_hugetlb = m->distinct_anon_hugetlb;
		k->sum_only_pages = m->sum_only_pages;
		k->counters = m->counters, k->ncounters = m->ncounters, k->capcounters = m->capcounters;
		k->have_frames = m->have_frames;
		memcpy(k->frames, m->frames, sizeof k->frames);
		k->owners = m->owners, k->nowners = m->nowners;
		k->fruns = m->fruns, k->nfruns = m->nfruns, k->capfruns = m->capfruns;
		k->logs = m->logs, k->nlogs = m->nlogs, k->caplogs = m->caplogs;
		k->slabs = m->slabs, k->nslabs = m->nslabs, k->capslabs = m->capslabs;
		k->complete = m->complete;
		k->partial_why = m->partial_why;
		k->warnings = m->warnings;
		memset(m, 0, sizeof *m);
		b->kept_any = true;
	} else {
		snapshot_free(m);
	}
	strindex_release_hash(&b->units);
	memset(&b->units, 0, sizeof b->units);
	if (b->proc_of_mm)
		memset(b->proc_of_mm, 0, b->proc_of_mm_cap * sizeof *b->proc_of_mm);
	b->cur_proc = NULL;
	b->cur_vma = NULL;
	b->in_snapshot = false;
}

int model_load(struct model *m, const char *path, const struct model_options *opt, char **err)
{
	memset(m, 0, sizeof *m);
	/* zstd or gzip: inflated on the way (analyzer/decompress.c) */
	struct decompress *dz;
	int dz_fd;
	if (decompress_open(path, &dz_fd, &dz, err) < 0)
		return -1;
	struct ps_reader *r = dz ? ps_reader_open_fd(dz_fd, path, err) : ps_reader_open(path, err);
	if (!r) {
		char *derr = NULL;
		if (decompress_close(dz, dz_fd, &derr) < 0) /* the cause, rather than its effect */
			free(*err), *err = derr;
		return -1;
	}
	const struct ps_header *h = ps_reader_header(r);
	m->source = xstrdup(h->source), m->arch = xstrdup(h->arch);
	m->release = xstrdup(h->release), m->dump = xstrdup(h->dump);
	m->dump_id = xstrdup(h->dump_id), m->time = xstrdup(h->time);
	m->excluded = xstrdup(h->excluded);
	m->pids = xstrdup(h->pids), m->tool = xstrdup(h->tool);
	m->tags = h->tags && *h->tags ? xstrdup(h->tags) : NULL;
	m->page_size = h->page_size, m->page_shift = h->page_shift;

	struct builder b = { .kept = m, .opt = opt, .file = ps_reader_name(r) };
	struct ps_record rec;
	int rc;
	while ((rc = ps_read(r, &rec)) > 0) {
		switch (rec.type) {
		case PS_REC_SNAPSHOT:
			b.in_snapshot = true;
			b.cur.page_size = m->page_size, b.cur.page_shift = m->page_shift;
			b.cur.seq = rec.u.snapshot.seq;
			b.cur.snapshot_time = xstrdup(rec.u.snapshot.time);
			break;
		case PS_REC_TASK: on_task(&b, &rec.u.task); break;
		case PS_REC_MM: on_mm(&b, &rec.u.mm); break;
		case PS_REC_VMA: on_vma(&b, &rec.u.vma); break;
		case PS_REC_MAP: on_map(&b, &rec.u.map); break;
		case PS_REC_SWAP:
			ps_sum_add_swap(&b.cur_vma->sum, &rec.u.swap);
			if (rec.u.swap.kind == PS_SWAP)
				b.cur.swapped_pages += rec.u.swap.npages;
			if (opt->keep_maps)
				map_run_add(b.cur_vma, (rec.u.swap.vaddr - b.cur_vma->v.start) >> m->page_shift,
					    rec.u.swap.npages, rec.u.swap.kind == PS_SWAP ? 's' : '?');
			break;
		case PS_REC_UNKNOWN_RANGE:
			ps_sum_add_unknown(&b.cur_vma->sum, &rec.u.unknown);
			b.cur.unknown_pages += rec.u.unknown.npages;
			if (opt->keep_maps)
				map_run_add(b.cur_vma, (rec.u.unknown.vaddr - b.cur_vma->v.start) >> m->page_shift,
					    rec.u.unknown.npages, '?');
			break;
		case PS_REC_SUM: on_sum(&b, &rec.u.sum, rec.line); break;
		case PS_REC_WARN: {
			struct proc *p = NULL;
			if (rec.u.warn.kind && strcmp(rec.u.warn.kind, "gone") == 0 &&
			    rec.u.warn.mm != PS_UNKNOWN && (p = proc_for_mm(&b, rec.u.warn.mm)))
				p->gone = true; /* left out at the end of the snapshot, not a failure */
			else
				xappendf(&b.cur.partial_why, "the source warned: %s", rec.u.warn.reason);
			break;
		}
		case PS_REC_COUNTER: {
			struct model *c = &b.cur;
			if (c->ncounters == c->capcounters) {
				c->capcounters = c->capcounters ? 2 * c->capcounters : 256;
				c->counters = xrealloc(c->counters, c->capcounters * sizeof *c->counters);
			}
			const struct ps_counter *pc = &rec.u.counter;
			c->counters[c->ncounters++] = (struct kcounter){
				.set = xstrdup(pc->set), .name = xstrdup(pc->name),
				.zone = xstrdup(pc->zone ? pc->zone : ""), .node = pc->node, .value = pc->value };
			break;
		}
		case PS_REC_FRAMES: {
			struct model *c = &b.cur;
			const struct ps_frames *f = &rec.u.frames;
			c->have_frames = true;
			c->frames[f->cls] += f->npages;
			/* runs kept for the frame map (its cells name their largest owner) */
			uint64_t owner = f->owner != PS_UNKNOWN && f->owner < (1u << 20) ? f->owner : PS_UNKNOWN;
			if (c->nfruns && c->fruns[c->nfruns - 1].cls == f->cls && c->fruns[c->nfruns - 1].owner == owner &&
			    c->fruns[c->nfruns - 1].pfn + c->fruns[c->nfruns - 1].npages == f->pfn) {
				c->fruns[c->nfruns - 1].npages += f->npages;
			} else {
				if (c->nfruns == c->capfruns) {
					c->capfruns = c->capfruns ? 2 * c->capfruns : 1024;
					c->fruns = xrealloc(c->fruns, c->capfruns * sizeof *c->fruns);
				}
				c->fruns[c->nfruns++] = (struct frame_run){ f->pfn, f->npages, f->cls, owner };
			}
			if (f->owner != PS_UNKNOWN && f->owner < (1u << 20)) {
				if (f->owner >= c->nowners) {
					size_t n = (size_t)f->owner + 1;
					c->owners = xrealloc(c->owners, n * sizeof *c->owners);
					memset(c->owners + c->nowners, 0, (n - c->nowners) * sizeof *c->owners);
					c->nowners = n;
				}
				c->owners[f->owner].frames += f->npages;
				c->owners[f->owner].cls = f->cls;
			}
			break;
		}
		case PS_REC_SLAB: {
			struct model *c = &b.cur;
			const struct ps_slab *sl = &rec.u.slab;
			if (c->nslabs == c->capslabs) {
				c->capslabs = c->capslabs ? 2 * c->capslabs : 128;
				c->slabs = xrealloc(c->slabs, c->capslabs * sizeof *c->slabs);
			}
			c->slabs[c->nslabs++] = (struct slab_info){ xstrdup(sl->name), sl->active_objs, sl->num_objs,
								    sl->objsize, sl->objperslab, sl->pagesperslab,
								    sl->num_slabs };
			break;
		}
		case PS_REC_LOG: {
			struct model *c = &b.cur;
			if (c->nlogs == c->caplogs) {
				c->caplogs = c->caplogs ? 2 * c->caplogs : 256;
				c->logs = xrealloc(c->logs, c->caplogs * sizeof *c->logs);
			}
			c->logs[c->nlogs++] = (struct log_line){ rec.u.log.seq, rec.u.log.ts_nsec, rec.u.log.level,
								   xstrdup(rec.u.log.text) };
			break;
		}
		case PS_REC_OWNER: {
			struct model *c = &b.cur;
			const struct ps_owner *o = &rec.u.owner;
			if (o->id >= (1u << 20))
				break;
			if (o->id >= c->nowners) {
				size_t n = (size_t)o->id + 1;
				c->owners = xrealloc(c->owners, n * sizeof *c->owners);
				memset(c->owners + c->nowners, 0, (n - c->nowners) * sizeof *c->owners);
				c->nowners = n;
			}
			free(c->owners[o->id].kind), free(c->owners[o->id].name);
			c->owners[o->id].kind = xstrdup(o->kind);
			c->owners[o->id].name = xstrdup(o->name);
			break;
		}
		case PS_REC_END:
			b.cur.complete = rec.u.end.complete;
			if (!rec.u.end.complete)
				xappendf(&b.cur.partial_why, "the source marked snapshot %llu partial",
					 (unsigned long long)b.cur.seq);
			finish_snapshot(&b);
			break;
		case PS_REC_TRACE:
			if (trace_add(&m->trace, &rec.u.trace, ps_reader_name(r), rec.line, err) < 0)
				rc = -2;
			break;
		default:
			break;
		}
		if (rc == -2)
			break;
	}
	if (rc == -2) {
		rc = -1; /* *err is set */
	} else if (rc < 0) {
		*err = xstrdup(ps_reader_error(r));
	} else if (trace_finish(&m->trace, ps_reader_name(r), err) < 0) {
		rc = -1;
	} else if (b.in_snapshot) {
		xappendf(&b.cur.partial_why, "%s: snapshot %llu has no end record: the file is "
			 "truncated or its writer died", ps_reader_name(r), (unsigned long long)b.cur.seq);
		b.cur.complete = false;
		finish_snapshot(&b);
	} else if (b.cur.partial_why && (b.kept_any || m->trace.records)) {
		/* warn records after the last end record (or in a trace file) belong to no
		 * snapshot, but the writer could not read something: never present the result as
		 * complete. */
		xappendf(&m->partial_why, "%.*s", (int)strlen(b.cur.partial_why) - 1,
			 b.cur.partial_why);
	}
	/* Trace records have no end record; the series' final summary plays its part. */
	if (rc >= 0 && !trace_ws_closed(&m->trace))
		xappendf(&m->partial_why, "%s: the working-set series has no final summary (ws "
			 "tid=0 final=1): the trace was cut short or its writer died",
			 ps_reader_name(r));
	const char *w = ps_reader_warnings(r);
	if (*w)
		xappendf(&m->warnings, "%.*s", (int)strlen(w) - 1, w);
	if (rc >= 0 && m->trace.warnings)
		xappendf(&m->warnings, "%.*s", (int)strlen(m->trace.warnings) - 1, m->trace.warnings);
	ps_reader_close(r);
	char *derr = NULL;
	if (decompress_close(dz, dz_fd, &derr) < 0) {
		if (rc < 0)
			free(*err);
		*err = derr;
		rc = -1;
	}
	snapshot_free(&b.cur);
	strindex_release_hash(&b.units);
	free(b.proc_of_mm), free(b.tasks);
	if (rc >= 0 && !b.kept_any && (opt->snapshot >= 0 || !m->trace.records)) {
		*err = xasprintf("%s: no %s in the file", path,
				 opt->snapshot >= 0 ? "such snapshot" : "snapshot or trace record");
		rc = -1;
	}
	if (rc >= 0 && !b.kept_any)
		m->complete = true; /* trace records only: complete unless a warn record says not */
	if (rc < 0) {
		model_free(m);
		return -1;
	}
	return 0;
}

bool model_counter(const struct model *m, const char *set, const char *name, uint64_t *value)
{
	for (size_t i = 0; i < m->ncounters; i++) {
		const struct kcounter *c = &m->counters[i];
		if (!c->zone[0] && strcmp(c->name, name) == 0 && strcmp(c->set, set) == 0) {
			*value = c->value;
			return c->value != PS_UNKNOWN;
		}
	}
	return false;
}

void model_free(struct model *m)
{
	snapshot_free(m);
	trace_free(&m->trace);
	free(m->source), free(m->arch), free(m->release), free(m->dump), free(m->dump_id);
	free(m->time), free(m->excluded), free(m->history);
	free(m->pids), free(m->tool), free(m->tags);
	memset(m, 0, sizeof *m);
}

void model_describe(const struct model *m, struct report *r)
{
	r->source = xstrdup(m->source), r->arch = xstrdup(m->arch);
	r->release = xstrdup(m->release), r->dump = xstrdup(m->dump);
	r->time = xstrdup(m->snapshot_time && *m->snapshot_time ? m->snapshot_time : m->time);
	r->excluded = xstrdup(m->excluded);
	r->page_size = m->page_size;
	r->snapshot_seq = m->seq;
	r->snapshots = m->snapshots;
	if (!m->complete || m->partial_why) {
		r->partial = true;
		r->partial_why = xstrdup(m->partial_why ? m->partial_why : "snapshot incomplete\n");
	}
	if (m->warnings)
		r->warnings = xstrdup(m->warnings);
}
