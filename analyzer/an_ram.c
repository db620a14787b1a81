/* an_ram.c - where ALL of RAM went, by the kernel's own counters (counter records): the
 * answer for the whole machine before the processes' detail.
 *
 * ram:       MemTotal split into rows that add up to it exactly (user anonymous, page
 *            cache, shmem, swap cache, slab, kernel stacks, page tables, vmalloc, per-CPU,
 *            hugetlb, free) and the remainder, shown as unaccounted, never hidden; beside
 *            the user rows, what the process walk itself found. Each row names the
 *            /proc/meminfo fields it is made of.
 * meminfo:   the fields as /proc/meminfo would have printed them (its names, kB), so that a
 *            meminfo captured on the board can be laid beside them.
 * buddyinfo: free blocks per node, zone and order (is the free memory fragmented?).
 * Nothing is written for records without counters (live snapshots, trace files, dumps
 * whose kernel symbols were not found).
 */
#include "model.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

enum { R_WHAT, R_SIZE, R_SHARE, R_WALKED, R_FIELDS, R_N };

static uint64_t kb(const struct model *m, const char *name, bool *ok)
{
	uint64_t v;
	if (!model_counter(m, "meminfo", name, &v)) {
		*ok = false;
		return 0;
	}
	return v;
}

static void ram_row(struct table *t, const char *what, uint64_t bytes, uint64_t total,
		    const char *fields)
{
	size_t row = table_add_row(t);
	table_set_str(t, row, R_WHAT, what);
	table_set_u64(t, row, R_SIZE, bytes);
	if (total)
		table_set_f64(t, row, R_SHARE, 100.0 * (double)bytes / (double)total);
	table_set_str(t, row, R_FIELDS, fields);
}

static void an_ram_table(const struct model *m, struct report *r)
{
	static const struct column cols[R_N] = {
		{ "what", "WHAT", CELL_STR, COL_DEC }, { "bytes", "SIZE", CELL_U64, COL_BYTES },
		{ "share_pct", "RAM_%", CELL_F64, COL_DEC },
		{ "walked_bytes", "WALKED", CELL_U64, COL_BYTES },
		{ "meminfo", "FROM_MEMINFO", CELL_STR, COL_DEC },
	};
	bool ok = true;
	uint64_t total = kb(m, "MemTotal", &ok), free_kb = kb(m, "MemFree", &ok);
	if (!ok)
		return;
	struct table *t = table_new("ram", "Where all of RAM went (the kernel's own counters)",
				    STYLE_GRID, R_N, cols);
	table_set_decimals(t, R_SHARE, 1);
	const uint64_t K = 1024, T = total * K;
	uint64_t sum = 0;
	struct {
		const char *what, *fields;
		const char *add[3], *sub[2];
	} rows[] = {
		{ "user anonymous", "AnonPages", { "AnonPages" }, { NULL } },
		{ "page cache (files)", "Cached + Buffers - Shmem", { "Cached", "Buffers" }, { "Shmem" } },
		{ "shmem, tmpfs", "Shmem", { "Shmem" }, { NULL } },
		{ "swap cache", "SwapCached", { "SwapCached" }, { NULL } },
		{ "slab, reclaimable", "SReclaimable", { "SReclaimable" }, { NULL } },
		{ "slab, unreclaimable", "SUnreclaim", { "SUnreclaim" }, { NULL } },
		{ "kernel stacks", "KernelStack", { "KernelStack" }, { NULL } },
		{ "page tables", "PageTables + SecPageTables", { "PageTables", "SecPageTables" }, { NULL } },
		{ "vmalloc", "VmallocUsed", { "VmallocUsed" }, { NULL } },
		{ "per-CPU", "Percpu", { "Percpu" }, { NULL } },
		{ "hugetlb pool", "Hugetlb", { "Hugetlb" }, { NULL } },
	};
	char missing[512] = "";
	size_t anon_row = (size_t)-1;
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		bool have = true;
		int64_t v = 0;
		for (int j = 0; j < 3 && rows[i].add[j]; j++) {
			bool one = true;
			uint64_t x = kb(m, rows[i].add[j], &one);
			/* SecPageTables is 6.0+: its absence is a zero, not a gap */
			if (!one && strcmp(rows[i].add[j], "SecPageTables") != 0)
				have = false;
			v += (int64_t)x;
		}
		for (int j = 0; j < 2 && rows[i].sub[j]; j++)
			v -= (int64_t)kb(m, rows[i].sub[j], &have);
		if (!have) {
			size_t len = strlen(missing);
			snprintf(missing + len, sizeof missing - len, "%s%s", len ? ", " : "", rows[i].what);
			continue;
		}
		if (v < 0)
			v = 0;
		if (i == 0)
			anon_row = t->nrows;
		ram_row(t, rows[i].what, (uint64_t)v * K, T, rows[i].fields);
		sum += (uint64_t)v * K;
	}
	ram_row(t, "free", free_kb * K, T, "MemFree");
	sum += free_kb * K;
	size_t row;
	if (sum <= T) {
		ram_row(t, "unaccounted (other kernel allocations)", T - sum, T, "MemTotal - the rows above");
	} else {
		row = table_add_row(t);
		table_set_str(t, row, R_WHAT, "rows overlap by");
		table_set_u64(t, row, R_SIZE, sum - T);
		table_set_str(t, row, R_FIELDS, "the rows above - MemTotal");
	}
	ram_row(t, "MemTotal", T, T, "MemTotal");
	/* What the walk found: distinct anonymous frames of the processes walked, hugetlb pages
	 * left out as AnonPages leaves them out (they are the hugetlb pool's row). */
	if (anon_row != (size_t)-1 && m->nprocs && !m->pfn_hidden_pages)
		table_set_u64(t, anon_row, R_WALKED, (m->distinct_anon - m->distinct_anon_hugetlb) * m->page_size);
	/* Frames the kernel never handed to the page allocator: present minus managed. */
	uint64_t present = 0, managed = 0;
	bool zones = false;
	for (size_t i = 0; i < m->ncounters; i++) {
		const struct kcounter *c = &m->counters[i];
		if (strcmp(c->set, "zone") != 0 || c->value == PS_UNKNOWN)
			continue;
		if (strcmp(c->name, "present") == 0)
			present += c->value, zones = true;
		else if (strcmp(c->name, "managed") == 0)
			managed += c->value;
	}
	if (zones && present >= managed)
		ram_row(t, "reserved at boot (not in MemTotal)", (present - managed) * m->page_size, 0,
			"zones' present - managed pages");
	/* the answer in one sentence: of N RAM, X user, Y page cache, Z slab (largest), W free */
	uint64_t anon_kb = 0, cached_kb = 0, buffers_kb = 0, slab_kb = 0, unacc = sum <= T ? T - sum : 0;
	bool h1 = true, h2 = true, h3 = true, h4 = true;
	anon_kb = kb(m, "AnonPages", &h1), cached_kb = kb(m, "Cached", &h2), buffers_kb = kb(m, "Buffers", &h3);
	slab_kb = kb(m, "Slab", &h4);
	char b[7][BYTES_HUMAN_MAX], largest[200] = "";
	size_t top = (size_t)-1;
	for (size_t i = 0; i < m->nowners; i++)
		if (m->owners[i].cls == PS_FC_SLAB && m->owners[i].name &&
		    (top == (size_t)-1 || m->owners[i].frames > m->owners[top].frames))
			top = i;
	if (top != (size_t)-1)
		snprintf(largest, sizeof largest, " (largest: %s, %s)", m->owners[top].name,
			 bytes_human(m->owners[top].frames * m->page_size, b[5]));
	free(r->headline);
	r->headline = xasprintf("Of %s of RAM: %s user anonymous, %s page cache (shmem included), %s slab%s, "
				"%s free, %s unaccounted.", bytes_human(T, b[0]),
				h1 ? bytes_human(anon_kb * K, b[1]) : "?",
				h2 && h3 ? bytes_human((cached_kb + buffers_kb) * K, b[2]) : "?",
				h4 ? bytes_human(slab_kb * K, b[3]) : "?", largest, bytes_human(free_kb * K, b[4]),
				bytes_human(unacc, b[6]));
	table_set_note(t, "%s\nVmallocUsed includes the kernel stacks where they are vmalloc'd "
		       "(CONFIG_VMAP_STACK); WALKED = distinct anonymous frames the process walk found%s%s",
		       r->headline, missing[0] ? "; not in the counters: " : "", missing);
	report_add(r, t);
}

static void an_meminfo_table(const struct model *m, struct report *r)
{
	enum { M_FIELD, M_VALUE, M_UNIT, M_BYTES, M_N };
	static const struct column cols[M_N] = {
		{ "field", "FIELD", CELL_STR, COL_DEC }, { "value", "VALUE", CELL_U64, COL_DEC },
		{ "unit", "UNIT", CELL_STR, COL_DEC }, { "bytes", "SIZE", CELL_U64, COL_BYTES },
	};
	struct table *t = NULL;
	for (size_t i = 0; i < m->ncounters; i++) {
		const struct kcounter *c = &m->counters[i];
		if (strcmp(c->set, "meminfo") != 0)
			continue;
		if (!t)
			t = table_new("meminfo", "/proc/meminfo at the snapshot (the kernel's counters)",
				      STYLE_GRID, M_N, cols);
		/* The counts: HugePages_* (Hugepagesize is kB) */
		bool count = strncmp(c->name, "HugePages_", 10) == 0;
		size_t row = table_add_row(t);
		table_set_str(t, row, M_FIELD, c->name);
		if (c->value == PS_UNKNOWN)
			continue;
		table_set_u64(t, row, M_VALUE, c->value);
		table_set_str(t, row, M_UNIT, count ? "" : "kB");
		if (!count)
			table_set_u64(t, row, M_BYTES, c->value * 1024);
	}
	if (!t)
		return;
	if (m->source && strcmp(m->source, "live") == 0)
		table_set_note(t, "%s", "as the running kernel printed /proc/meminfo");
	else
		table_set_note(t, "%s", "computed from the dump as fs/proc/meminfo.c does; VmallocTotal and "
			       "DirectMap* are not read");
	report_add(r, t);
}

static void an_buddyinfo_table(const struct model *m, struct report *r)
{
	enum { MAX_ORDERS = 16 };
	static const struct column cols[3 + MAX_ORDERS] = {
		{ "node", "NODE", CELL_U64, COL_DEC }, { "zone", "ZONE", CELL_STR, COL_DEC },
		{ "free_bytes", "FREE", CELL_U64, COL_BYTES },
		{ "order0", "0", CELL_U64, COL_DEC }, { "order1", "1", CELL_U64, COL_DEC },
		{ "order2", "2", CELL_U64, COL_DEC }, { "order3", "3", CELL_U64, COL_DEC },
		{ "order4", "4", CELL_U64, COL_DEC }, { "order5", "5", CELL_U64, COL_DEC },
		{ "order6", "6", CELL_U64, COL_DEC }, { "order7", "7", CELL_U64, COL_DEC },
		{ "order8", "8", CELL_U64, COL_DEC }, { "order9", "9", CELL_U64, COL_DEC },
		{ "order10", "10", CELL_U64, COL_DEC }, { "order11", "11", CELL_U64, COL_DEC },
		{ "order12", "12", CELL_U64, COL_DEC }, { "order13", "13", CELL_U64, COL_DEC },
		{ "order14", "14", CELL_U64, COL_DEC }, { "order15", "15", CELL_U64, COL_DEC },
	};
	unsigned norders = 0;
	for (size_t i = 0; i < m->ncounters; i++) {
		const struct kcounter *c = &m->counters[i];
		unsigned o;
		if (strcmp(c->set, "buddyinfo") == 0 && sscanf(c->name, "order%u", &o) == 1 && o < MAX_ORDERS &&
		    o + 1 > norders)
			norders = o + 1;
	}
	if (!norders)
		return;
	struct table *t = table_new("buddyinfo", "Free memory by zone and block order (/proc/buddyinfo)",
				    STYLE_GRID, 3 + norders, cols);
	size_t row = 0;
	uint64_t cur_node = PS_UNKNOWN, free_pages = 0;
	const char *cur_zone = NULL;
	for (size_t i = 0; i < m->ncounters; i++) {
		const struct kcounter *c = &m->counters[i];
		unsigned o;
		if (strcmp(c->set, "buddyinfo") != 0 || sscanf(c->name, "order%u", &o) != 1 || o >= norders)
			continue;
		if (!cur_zone || c->node != cur_node || strcmp(c->zone, cur_zone) != 0) {
			if (cur_zone)
				table_set_u64(t, row, 2, free_pages * m->page_size);
			row = table_add_row(t);
			cur_node = c->node, cur_zone = c->zone, free_pages = 0;
			table_set_u64(t, row, 0, c->node);
			table_set_str(t, row, 1, c->zone);
		}
		if (c->value != PS_UNKNOWN) {
			table_set_u64(t, row, 3 + o, c->value);
			free_pages += c->value << o;
		}
	}
	if (cur_zone)
		table_set_u64(t, row, 2, free_pages * m->page_size);
	table_set_note(t, "%s", "free blocks of 2^ORDER pages; FREE = their pages (the per-CPU lists are not in it)");
	report_add(r, t);
}

static bool vmstat(const struct model *m, const char *name, uint64_t *v)
{
	return model_counter(m, "vmstat", name, v);
}

/* The physical address space as FM_COLS x up to FM_ROWS cells, each the class most of its
 * frames have: where in RAM each class sits (is the free memory in one place or
 * scattered? where is the kernel image, where the page cache?). */
enum { FM_COLS = 128, FM_ROWS = 64 };

static struct frame_map *frame_map_build(const struct model *m)
{
	if (!m->nfruns)
		return NULL;
	uint64_t first = m->fruns[0].pfn;
	uint64_t last = m->fruns[m->nfruns - 1].pfn + m->fruns[m->nfruns - 1].npages;
	uint64_t span = last - first, max_cells = (uint64_t)FM_COLS * FM_ROWS;
	uint64_t per = (span + max_cells - 1) / max_cells;
	if (per < 1)
		per = 1;
	size_t ncells = (size_t)((span + per - 1) / per);
	size_t rows = (ncells + FM_COLS - 1) / FM_COLS;
	uint32_t *count = xcalloc((size_t)rows * FM_COLS * PS_FC_COUNT, sizeof *count);
	/* per cell and class, the owner of the largest piece of a run in it (the runs of one
	 * owner are mostly contiguous, so its largest piece stands for it) */
	struct { uint32_t frames; uint64_t owner; } *big = xcalloc((size_t)rows * FM_COLS * PS_FC_COUNT, sizeof *big);
	for (size_t i = 0; i < m->nfruns; i++) {
		const struct frame_run *f = &m->fruns[i];
		for (uint64_t p = f->pfn - first, end = p + f->npages; p < end;) {
			uint64_t cell = p / per, stop = (cell + 1) * per < end ? (cell + 1) * per : end;
			size_t k = (size_t)cell * PS_FC_COUNT + f->cls;
			count[k] += (uint32_t)(stop - p);
			if (f->owner != PS_UNKNOWN && f->owner < m->nowners && stop - p > big[k].frames)
				big[k].frames = (uint32_t)(stop - p), big[k].owner = f->owner + 1;
			p = stop;
		}
	}
	struct frame_map *fm = xcalloc(1, sizeof *fm);
	fm->cols = FM_COLS, fm->rows = rows, fm->nclasses = PS_FC_COUNT;
	fm->cell = xcalloc(rows * FM_COLS, 1);
	fm->first_pfn = first, fm->frames_per_cell = per, fm->page_size = m->page_size;
	fm->class_names = ps_frame_class_names;
	fm->class_bytes = xcalloc(PS_FC_COUNT, sizeof *fm->class_bytes);
	for (int c = 0; c < PS_FC_COUNT; c++)
		fm->class_bytes[c] = m->frames[c] * m->page_size;
	fm->cell_owner = xcalloc(rows * FM_COLS, sizeof *fm->cell_owner);
	for (size_t cell = 0; cell < rows * FM_COLS; cell++) {
		uint32_t best = 0;
		fm->cell[cell] = PS_FC_COUNT; /* no frame with a struct page */
		for (int c = 0; c < PS_FC_COUNT; c++)
			if (count[cell * PS_FC_COUNT + (size_t)c] > best)
				best = count[cell * PS_FC_COUNT + (size_t)c], fm->cell[cell] = (uint8_t)c;
		if (fm->cell[cell] == PS_FC_COUNT)
			continue;
		uint64_t o = big[cell * PS_FC_COUNT + fm->cell[cell]].owner;
		const struct frame_owner *fo = o ? &m->owners[o - 1] : NULL;
		if (fo && fo->name)
			fm->cell_owner[cell] = xasprintf("%s %s", fo->kind && !strcmp(fo->kind, "slab") ? "slab cache"
								  : fo->kind ? fo->kind : "owner", fo->name);
	}
	free(count);
	free(big);
	return fm;
}

/* Every frame of RAM by class (f records), each beside the kernel's own count of it. */
static void an_frames_table(const struct model *m, struct report *r)
{
	enum { F_CLASS, F_BYTES, F_SHARE, F_COUNTED, F_DIFF, F_FROM, F_N };
	static const struct column cols[F_N] = {
		{ "class", "CLASS", CELL_STR, COL_DEC }, { "bytes", "WALKED", CELL_U64, COL_BYTES },
		{ "share_pct", "FRAMES_%", CELL_F64, COL_DEC },
		{ "counted_bytes", "KERNEL", CELL_U64, COL_BYTES },
		{ "diff_pages", "DIFF", CELL_I64, COL_PAGES },
		{ "counter", "COUNTER", CELL_STR, COL_DEC },
	};
	struct table *t = table_new("frames", "Every page frame of RAM by its struct page (the walk), "
				    "beside the kernel's own counters", STYLE_GRID, F_N, cols);
	table_set_decimals(t, F_SHARE, 1);
	uint64_t total = 0;
	for (int c = 0; c < PS_FC_COUNT; c++)
		total += m->frames[c];
	uint64_t a, b, c2;
	struct {
		enum ps_frame_class cls;
		const char *what;
		bool have;
		uint64_t counted; /* pages */
		const char *from;
	} rows[] = {
		{ PS_FC_FREE, "free (buddy lists)", vmstat(m, "nr_free_pages", &a), a, "nr_free_pages" },
		{ PS_FC_UNUSED, "unused (refcount 0: per-CPU lists, being freed)", false, 0, "" },
		{ PS_FC_ANON, "anonymous (mapped or in the swap cache)", false, 0, "" },
		{ PS_FC_FILE, "page cache (files)", false, 0, "nr_file_pages - nr_shmem - nr_swapcached" },
		{ PS_FC_SHMEM, "shmem, tmpfs", vmstat(m, "nr_shmem", &b), b, "nr_shmem" },
		{ PS_FC_SLAB, "slab", false, 0, "nr_slab_(un)reclaimable (also counts large kmalloc)" },
		{ PS_FC_PGTABLE, "page tables", vmstat(m, "nr_page_table_pages", &c2), c2, "nr_page_table_pages" },
		{ PS_FC_HUGETLB, "hugetlb pool", false, 0, "" },
		{ PS_FC_ZSMALLOC, "zsmalloc (zram, zswap)", false, 0, "nr_zspages" },
		{ PS_FC_OFFLINE, "offline", false, 0, "" },
		{ PS_FC_RESERVED, "reserved (kernel image, memblock, firmware)", false, 0, "" },
		{ PS_FC_VMALLOC, "vmalloc (kernel stacks too)", false, 0, "nr_vmalloc / VmallocUsed" },
		{ PS_FC_KERNEL, "kernel, other allocations (drivers' alloc_pages, ...)", false, 0, "" },
		{ PS_FC_UNKNOWN, "unknown (struct page unreadable)", false, 0, "" },
	};
	uint64_t file, shmem, swc, recl, unrecl, anon, zs;
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		switch (rows[i].cls) {
		case PS_FC_ANON:
			if ((rows[i].have = vmstat(m, "nr_anon_pages", &anon))) {
				uint64_t sc = 0;
				vmstat(m, "nr_swapcached", &sc);
				rows[i].counted = anon;
				rows[i].from = "nr_anon_pages (mapped; the swap cache's unmapped ones on top)";
			}
			break;
		case PS_FC_FILE:
			if ((rows[i].have = vmstat(m, "nr_file_pages", &file) && vmstat(m, "nr_shmem", &shmem) &&
					    vmstat(m, "nr_swapcached", &swc) && file >= shmem + swc))
				rows[i].counted = file - shmem - swc;
			break;
		case PS_FC_SLAB:
			if ((rows[i].have = vmstat(m, "nr_slab_reclaimable", &recl) &&
					    vmstat(m, "nr_slab_unreclaimable", &unrecl)))
				rows[i].counted = recl + unrecl;
			break;
		case PS_FC_ZSMALLOC:
			if ((rows[i].have = vmstat(m, "nr_zspages", &zs)))
				rows[i].counted = zs;
			break;
		case PS_FC_VMALLOC: {
			uint64_t kb;
			if ((rows[i].have = vmstat(m, "nr_vmalloc", &zs)))
				rows[i].counted = zs;
			else if ((rows[i].have = model_counter(m, "meminfo", "VmallocUsed", &kb)))
				rows[i].counted = kb * 1024 / m->page_size;
			break;
		}
		default:
			break;
		}
		if (!m->frames[rows[i].cls] && !rows[i].have)
			continue;
		size_t row = table_add_row(t);
		table_set_str(t, row, F_CLASS, rows[i].what);
		table_set_u64(t, row, F_BYTES, m->frames[rows[i].cls] * m->page_size);
		if (total)
			table_set_f64(t, row, F_SHARE, 100.0 * (double)m->frames[rows[i].cls] / (double)total);
		if (rows[i].have) {
			table_set_u64(t, row, F_COUNTED, rows[i].counted * m->page_size);
			table_set_i64(t, row, F_DIFF, (int64_t)(m->frames[rows[i].cls] - rows[i].counted));
		}
		table_set_str(t, row, F_FROM, rows[i].from);
	}
	size_t row = table_add_row(t);
	table_set_str(t, row, F_CLASS, "all frames with a struct page");
	table_set_u64(t, row, F_BYTES, total * m->page_size);
	table_set_f64(t, row, F_SHARE, 100.0);
	table_set_note(t, "%s", "a frame's class comes from its struct page (and its folio's head) as "
		       "/proc/kpageflags reads it; DIFF = walked - counted (the global counters lag the "
		       "per-CPU deltas not yet folded in). The map: the physical address space, each cell "
		       "coloured by the class most of its frames have");
	t->fmap = frame_map_build(m);
	report_add(r, t);
}

/* The owners (owner records) of the classes in CLASSES holding the most frames: slab caches,
 * files in the page cache. */
/* The owners of KIND ("slab", "file", ...) of the frames of CLASSES, the largest TOP.
 * NOBODY: what the classes' frames without such an owner are. */
static void an_owner_table(const struct model *m, struct report *r, const char *id, const char *title,
			   const char *what, const char *kind, unsigned classes, unsigned top,
			   const char *nobody)
{
	enum { O_NAME, O_CLASS, O_BYTES, O_SHARE, O_N };
	const struct column cols[O_N] = {
		{ "name", what, CELL_STR, COL_DEC }, { "class", "CLASS", CELL_STR, COL_DEC },
		{ "bytes", "FRAMES", CELL_U64, COL_BYTES }, { "share_pct", "CLASS_%", CELL_F64, COL_DEC },
	};
	uint64_t total = 0;
	for (int c = 0; c < PS_FC_COUNT; c++)
		if (classes & (1u << c))
			total += m->frames[c];
	if (!total)
		return;
	size_t *idx = xcalloc(m->nowners + 1, sizeof *idx), n = 0;
	for (size_t i = 0; i < m->nowners; i++)
		if (m->owners[i].frames && (classes & (1u << m->owners[i].cls)) && m->owners[i].kind &&
		    !strcmp(m->owners[i].kind, kind))
			idx[n++] = i;
	if (!n) { /* no frame of these classes has such an owner here (no CMA area, ...) */
		free(idx);
		return;
	}
	struct table *t = table_new(id, title, STYLE_GRID, O_N, cols);
	table_set_decimals(t, O_SHARE, 1);
	/* the largest TOP: a partial selection sort (TOP is small, N may be large) */
	size_t shown_n = n < top ? n : top;
	for (size_t i = 0; i < shown_n; i++) {
		size_t best = i;
		for (size_t j = i + 1; j < n; j++)
			if (m->owners[idx[j]].frames > m->owners[idx[best]].frames)
				best = j;
		size_t x = idx[i];
		idx[i] = idx[best], idx[best] = x;
	}
	uint64_t shown = 0;
	for (size_t i = 0; i < shown_n; i++) {
		const struct frame_owner *o = &m->owners[idx[i]];
		size_t row = table_add_row(t);
		table_set_str(t, row, O_NAME, o->name ? o->name : "?");
		table_set_str(t, row, O_CLASS, ps_frame_class_name(o->cls));
		table_set_u64(t, row, O_BYTES, o->frames * m->page_size);
		table_set_f64(t, row, O_SHARE, 100.0 * (double)o->frames / (double)total);
		shown += o->frames;
	}
	if (shown < total) {
		size_t row = table_add_row(t);
		table_set_str(t, row, O_NAME, n > shown_n ? "(the others)" : nobody);
		table_set_u64(t, row, O_BYTES, (total - shown) * m->page_size);
		table_set_f64(t, row, O_SHARE, 100.0 * (double)(total - shown) / (double)total);
	}
	table_set_note(t, "%zu hold frames; the %zu largest are shown", n, shown_n);
	free(idx);
	report_add(r, t);
}

/* /proc/vmallocinfo's pages per caller (counter set "vmallocinfo", live as root): vmalloc
 * by caller where no walk of the frames names the callers. */
static void an_vmallocinfo_table(const struct model *m, struct report *r)
{
	enum { V_NAME, V_BYTES, V_SHARE, V_N };
	const struct column cols[V_N] = {
		{ "name", "CALLER", CELL_STR, COL_DEC }, { "bytes", "SIZE", CELL_U64, COL_BYTES },
		{ "share_pct", "VMALLOC_%", CELL_F64, COL_DEC },
	};
	uint64_t total = 0;
	size_t n = 0;
	for (size_t i = 0; i < m->ncounters; i++)
		if (!strcmp(m->counters[i].set, "vmallocinfo") && m->counters[i].value != PS_UNKNOWN) {
			total += m->counters[i].value;
			n++;
		}
	if (!n)
		return;
	struct table *t = table_new("vmallocinfo", "vmalloc by caller (/proc/vmallocinfo)", STYLE_GRID, V_N, cols);
	table_set_decimals(t, V_SHARE, 1);
	for (size_t i = 0; i < m->ncounters; i++) {
		const struct kcounter *c = &m->counters[i];
		if (strcmp(c->set, "vmallocinfo") || c->value == PS_UNKNOWN)
			continue;
		size_t row = table_add_row(t);
		table_set_str(t, row, V_NAME, c->name);
		table_set_u64(t, row, V_BYTES, c->value * m->page_size);
		table_set_f64(t, row, V_SHARE, total ? 100.0 * (double)c->value / (double)total : 0.0);
	}
	table_sort(t, V_BYTES, true);
	char hb[BYTES_HUMAN_MAX];
	table_set_note(t, "%zu callers, %s in vmalloc'd pages (ioremap and vm_map_ram areas hold none); "
		       "kernel_clone's are the kernel stacks", n, bytes_human(total * m->page_size, hb));
	report_add(r, t);
}

/* /proc/slabinfo (slab records): the caches with the most memory in slabs, with their
 * objects in use, total, and size. */
static void an_slabinfo_table(const struct model *m, struct report *r)
{
	enum { S_NAME, S_BYTES, S_ACTIVE, S_TOTAL, S_USE, S_OBJSIZE, S_PERSLAB, S_PAGES, S_SLABS, S_N };
	static const struct column cols[S_N] = {
		{ "name", "CACHE", CELL_STR, COL_DEC }, { "bytes", "SLABS_SIZE", CELL_U64, COL_BYTES },
		{ "active_objs", "ACTIVE", CELL_U64, COL_DEC }, { "num_objs", "OBJS", CELL_U64, COL_DEC },
		{ "use_pct", "USE_%", CELL_F64, COL_DEC }, { "objsize", "OBJ_BYTES", CELL_U64, COL_DEC },
		{ "objperslab", "OBJ_PER_SLAB", CELL_U64, COL_DEC }, { "pagesperslab", "PAGES_PER_SLAB", CELL_U64, COL_DEC },
		{ "num_slabs", "SLABS", CELL_U64, COL_DEC },
	};
	if (!m->nslabs)
		return;
	struct table *t = table_new("slabinfo", "Slab caches as /proc/slabinfo shows them, the largest first",
				    STYLE_GRID, S_N, cols);
	table_set_decimals(t, S_USE, 1);
	for (size_t i = 0; i < m->nslabs; i++) {
		const struct slab_info *s = &m->slabs[i];
		size_t row = table_add_row(t);
		table_set_str_ref(t, row, S_NAME, s->name);
		if (s->num_slabs != PS_UNKNOWN && s->pagesperslab != PS_UNKNOWN)
			table_set_u64(t, row, S_BYTES, s->num_slabs * s->pagesperslab * m->page_size);
		table_set_u64(t, row, S_ACTIVE, s->active_objs);
		table_set_u64(t, row, S_TOTAL, s->num_objs);
		if (s->num_objs && s->num_objs != PS_UNKNOWN && s->active_objs != PS_UNKNOWN)
			table_set_f64(t, row, S_USE, 100.0 * (double)s->active_objs / (double)s->num_objs);
		table_set_u64(t, row, S_OBJSIZE, s->objsize);
		table_set_u64(t, row, S_PERSLAB, s->objperslab);
		table_set_u64(t, row, S_PAGES, s->pagesperslab);
		table_set_u64(t, row, S_SLABS, s->num_slabs);
	}
	table_sort(t, S_BYTES, true);
	table_set_note(t, "%zu caches; ACTIVE counts a CPU's slabs as wholly in use, as the kernel's own file does",
		       m->nslabs);
	report_add(r, t);
}

void an_ram(const struct model *m, struct report *r)
{
	if (m->ncounters)
		an_ram_table(m, r);
	if (m->have_frames) {
		an_frames_table(m, r);
		an_owner_table(m, r, "slabs", "Slab caches by the frames their slabs hold (the walk)",
			       "SLAB_CACHE", "slab", 1u << PS_FC_SLAB, 25, "(owner not readable)");
		an_owner_table(m, r, "files", "Files in the page cache by their frames, mapped or not (the walk)",
			       "FILE", "file", 1u << PS_FC_FILE | 1u << PS_FC_SHMEM, 25, "(owner not readable)");
		an_owner_table(m, r, "vmalloc", "vmalloc by caller (the walk)", "CALLER", "vmalloc", 1u << PS_FC_VMALLOC, 25,
			       "(no caller recorded)");
		an_owner_table(m, r, "hugetlb", "hugetlb pool pages, free and in use (the walk)", "STATE",
			       "hugetlb", 1u << PS_FC_HUGETLB, 4, "(refcount unreadable)");
		an_owner_table(m, r, "cma", "Free frames in CMA areas (the walk; CmaTotal/CmaFree in the meminfo table)",
			       "CMA AREA", "cma", 1u << PS_FC_FREE, 8, "(free, outside the CMA areas)");
	}
	if (m->ncounters) {
		an_meminfo_table(m, r);
		an_buddyinfo_table(m, r);
		an_vmallocinfo_table(m, r);
	}
	an_slabinfo_table(m, r);
}
