/* an_pages.c - analysis 7: the physical page dump, one row per page run as it streams in.
 *
 * Columns: physical address, pages in the run, pid, virtual address, PTE bits, VMA flags,
 * page flags (hex and symbolic), mapcount (usage count), refcount, mapping size, unit, and
 * why the dump excluded the page's contents (empty when it did not). Memory grows with the output, so this
 * analysis is only run when asked for (--analysis pages).
 */
#include "model.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

enum { C_PHYS, C_PAGES, C_PID, C_VADDR, C_PTE, C_VMAFLAGS, C_PFLAGS, C_SYMBOLIC, C_MAPCOUNT,
       C_REFCOUNT, C_SIZE, C_UNIT, C_CONTENT, C_N };

struct pages_dump {
	struct table *t;
};

struct pages_dump *an_pages_begin(void)
{
	static const struct column cols[C_N] = {
		{ "phys", "PHYS", CELL_U64, true }, { "pages", "N", CELL_U64, false },
		{ "pid", "PID", CELL_U64, false }, { "vaddr", "VADDR", CELL_U64, true },
		{ "pte", "PTE", CELL_STR, false }, { "vma_flags", "VMA", CELL_STR, false },
		{ "pflags", "PFLAGS", CELL_U64, true }, { "flags", "FLAGS", CELL_STR, false },
		{ "mapcount", "MAPCNT", CELL_U64, false }, { "refcount", "REFCNT", CELL_U64, false },
		{ "map_size", "SIZE", CELL_U64, false }, { "unit", "UNIT", CELL_STR, false },
		{ "content", "CONTENT", CELL_STR, false },
	};
	struct pages_dump *d = xcalloc(1, sizeof *d);
	d->t = table_new("pages", "Physical page dump (one row per run of identical pages)",
			 STYLE_GRID, C_N, cols);
	return d;
}

void an_pages_on_run(void *ctx, const struct model *m, const struct proc *p,
		     const struct vma_info *v, const struct ps_map *run)
{
	struct pages_dump *d = ctx;
	struct table *t = d->t;
	size_t row = table_add_row(t);
	if (run->pfn != PS_UNKNOWN)
		table_set_u64(t, row, C_PHYS, run->pfn << m->page_shift);
	table_set_u64(t, row, C_PAGES, run->npages);
	table_set_u64(t, row, C_PID, p->tgid);
	table_set_u64(t, row, C_VADDR, run->vaddr);
	char pte[PS_PTE_NBITS + 1], vflags[16];
	ps_pte_format(run->pte, pte);
	table_set_str(t, row, C_PTE, pte);
	model_vma_flags(p, v, vflags);
	table_set_str(t, row, C_VMAFLAGS, vflags);
	if (run->pflags != PS_UNKNOWN) {
		table_set_u64(t, row, C_PFLAGS, run->pflags);
		char sym[512];
		size_t n = 0;
		sym[0] = '\0';
		for (unsigned bit = 0; bit < 64; bit++) {
			const char *name = ps_page_flag_name(bit);
			if (!(run->pflags >> bit & 1) || !name)
				continue;
			n += (size_t)snprintf(sym + n, sizeof sym - n, "%s%s", n ? "," : "", name);
			if (n >= sizeof sym)
				break;
		}
		table_set_str(t, row, C_SYMBOLIC, sym);
	}
	if (run->mapcount != PS_UNKNOWN)
		table_set_u64(t, row, C_MAPCOUNT, run->mapcount);
	if (run->refcount != PS_UNKNOWN)
		table_set_u64(t, row, C_REFCOUNT, run->refcount);
	table_set_u64(t, row, C_SIZE, UINT64_C(1) << run->shift);
	table_set_str(t, row, C_UNIT, model_unit_name(m, v->unit));
	if (run->excluded)
		table_set_str(t, row, C_CONTENT, run->reason);
}

void an_pages_finish(struct pages_dump *d, struct report *r)
{
	report_add(r, d->t);
	free(d);
}
