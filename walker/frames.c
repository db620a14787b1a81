/* frames.c - every page frame of RAM, classified by the kernel's own state: one pass over
 * the memory map (every present section, or FLATMEM's node), the struct pages read in the
 * same 64-page windows as the process walk reads them (page.c).
 *
 * Each frame gets one class (records.h, enum ps_frame_class), decided in this order:
 *   a free block's head (PageBuddy; page->private is its order) makes 2^order frames free;
 *   offline, hugetlb, slab (owner: the kmem_cache, by name), page table, zsmalloc (page
 *   types and flags as /proc/kpageflags reports them, the folio's for a tail page);
 *   anonymous (the folio's mapping has PAGE_MAPPING_ANON), shmem (a mapping and
 *   PG_swapbacked), file (a mapping); PG_reserved; then by the folio's refcount: 0 is
 *   unused (per-CPU free lists, pages being freed); a frame a busy vmalloc area maps (the
 *   vmap areas' pages through the kernel's page tables) is vmalloc, owned by the area's
 *   caller (kernel stacks are vmalloc'd too); anything else is allocated by the kernel for
 *   an owner this pass cannot name (drivers' alloc_pages, ...).
 * Runs of frames with one class and owner are f records; owner records name the owners
 * (slab caches; files by their path inside their filesystem) before their first run. Work is bounded by max_pfn, memory by the
 * number of distinct owners.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mm_internal.h"

#define FR_MAX_ORDER 20     /* a free block larger than 4 GiB of 4K pages is corrupt */
/* Without the dump's own extent, a memory map that cannot be read for this many frames in a
 * row (256 MiB of 4K frames) has ended, or its bounds were corrupt (a FLATMEM span of 2^30
 * frames was seen in fuzzing, each window failing a page-table walk: minutes): the pass
 * stops there. With the extent, the frames are bounded by what the dump holds. */
#define FR_UNREADABLE_STOP (UINT64_C(1) << 16)
#define FR_MAX_OWNERS (1u << 20) /* distinct owners named (caches, files); more are "-" */

struct frun {
	struct ps_walker *w;
	struct mm_set vmalloc; /* PFN + 1 -> owner id (+ 1; 0: no caller named) of vmalloc'd frames */
	uint64_t vm_areas_bad;
	struct ps_frames cur; /* pending run; npages 0 = none */
	struct mm_set owners; /* kmem_cache kaddr -> owner id */
	struct mm_set files;  /* address_space kaddr -> owner id */
	uint64_t next_owner;
	uint64_t unreadable, bad_heads, bad_orders;
	uint64_t first_unreadable, first_bad_head, first_bad_order;
	/* zsmalloc before its page type (see kinfo.h's ZSMALLOC_MOPS): its movable_operations
	 * (6.0+) or address_space_operations, by symbol when built in, else in its module */
	struct mm_module *modules;
	size_t nmodules;
	const struct mm_module *zsmalloc_module;
	uint64_t zs_mops, zs_aops;
	struct mm_set movable; /* page->mapping & ~3 -> 1 zsmalloc's, 2 not (the a_ops read once) */
	uint64_t hugetlb_owner[2]; /* the owner ids of hugetlb pool pages free / in use, 0: none yet */
	/* the CMA areas: their free frames are owned by the area (owner kind cma) */
	struct { uint64_t lo, hi, owner; char name[64]; } cma[64]; /* one per range */
	unsigned ncma;
};

static void flush(struct frun *f)
{
	if (!f->cur.npages)
		return;
	if (!f->w->write_failed && ps_write_frames(f->w->out, &f->cur) < 0)
		f->w->write_failed = true;
	f->cur.npages = 0;
}

static void add(struct frun *f, uint64_t pfn, uint64_t n, enum ps_frame_class cls, uint64_t owner)
{
	struct ps_frames *c = &f->cur;
	if (c->npages && c->cls == cls && c->owner == owner && c->pfn + c->npages == pfn) {
		c->npages += n;
		return;
	}
	flush(f);
	*c = (struct ps_frames){ .pfn = pfn, .npages = n, .cls = cls, .owner = owner };
}

/* The owner id of slab cache CACHE (a struct kmem_cache), writing its owner record the
 * first time; PS_UNKNOWN when the cache cannot be named. */
static uint64_t slab_owner(struct frun *f, uint64_t cache)
{
	struct ps_walker *w = f->w;
	uint64_t id;
	if (!cache || !mm_kptr_ok(w, cache, w->c.ptr_size))
		return PS_UNKNOWN;
	if (mm_set_get(&f->owners, cache, &id))
		return id;
	if (f->next_owner >= FR_MAX_OWNERS)
		return PS_UNKNOWN;
	char name[64] = "";
	uint64_t np;
	if (!mm_has(w, PS_KI_KMEM_CACHE_NAME) ||
	    ps_kread_ptr(&w->c, cache + (uint64_t)mm_off(w, PS_KI_KMEM_CACHE_NAME), &np) != PS_READ_OK ||
	    ps_kread_string(&w->c, np, name, sizeof name) != PS_READ_OK || !name[0])
		snprintf(name, sizeof name, "kmem_cache@%" PRIx64, cache);
	id = ++f->next_owner;
	if (mm_set_put(&f->owners, cache, id, true) < 0)
		return PS_UNKNOWN;
	struct ps_owner o = { .id = id, .kind = "slab", .name = name };
	flush(f); /* the owner record before any run that names it */
	if (!w->write_failed && ps_write_owner(w->out, &o) < 0)
		w->write_failed = true;
	return id;
}

/* The owner id of a hugetlb pool page's state: "free" (on the pool's free lists: a free
 * huge folio has refcount 0, enqueue_hugetlb_folio) or "in use", writing the owner record
 * the first time. */
static uint64_t hugetlb_owner(struct frun *f, bool in_use)
{
	struct ps_walker *w = f->w;
	uint64_t *id = &f->hugetlb_owner[in_use];
	if (*id)
		return *id;
	if (f->next_owner >= FR_MAX_OWNERS)
		return PS_UNKNOWN;
	*id = ++f->next_owner;
	struct ps_owner o = { .id = *id, .kind = "hugetlb", .name = in_use ? "in use" : "free" };
	flush(f);
	if (!w->write_failed && ps_write_owner(w->out, &o) < 0)
		w->write_failed = true;
	return *id;
}

/* The CMA areas (cma_areas[cma_area_count]: base_pfn, count, name), for their free frames. */
static void cma_collect(struct frun *f)
{
	struct ps_walker *w = f->w;
	uint64_t areas = ps_core_sym(&w->c, PS_KI_CMA_AREAS), cnt = ps_core_sym(&w->c, PS_KI_CMA_AREA_COUNT);
	int64_t sz = mm_size(w, PS_KI_CMA);
	uint32_t n;
	bool one = mm_has(w, PS_KI_CMA_BASE_PFN) && mm_has(w, PS_KI_CMA_COUNT);
	bool multi = mm_has(w, PS_KI_CMA_RANGES) && mm_has(w, PS_KI_CMA_NRANGES) &&
		     mm_has(w, PS_KI_CMA_MEMRANGE_BASE_PFN) && mm_has(w, PS_KI_CMA_MEMRANGE_COUNT) &&
		     mm_size(w, PS_KI_CMA_MEMRANGE) > 0;
	if (!areas || !cnt || sz <= 0 || (!one && !multi) || ps_kread_u32(&w->c, cnt, &n) != PS_READ_OK)
		return;
	for (uint32_t i = 0; i < n && i < 64 && f->ncma < sizeof f->cma / sizeof f->cma[0]; i++) {
		uint64_t a = areas + i * (uint64_t)sz, nr = 1, base, count;
		char name[64] = "";
		size_t nl = mm_has(w, PS_KI_CMA_NAME) ? w->c.ki.member[PS_KI_CMA_NAME].size : 0;
		if (nl >= sizeof name)
			nl = sizeof name - 1;
		if (!nl || ps_kread(&w->c, a + (uint64_t)mm_off(w, PS_KI_CMA_NAME), name, nl) != PS_READ_OK || !name[0])
			snprintf(name, sizeof name, "cma%u", i);
		for (size_t k = 0; name[k]; k++)
			if ((unsigned char)name[k] < 0x20 || (unsigned char)name[k] > 0x7e)
				name[k] = '?';
		if (!one && (!mm_kread_member(w, a, PS_KI_CMA_NRANGES, &nr) || nr > w->c.ki.member[PS_KI_CMA_RANGES].nelems))
			continue;
		for (uint64_t r = 0; r < nr && f->ncma < sizeof f->cma / sizeof f->cma[0]; r++) {
			uint64_t at = one ? a : a + (uint64_t)mm_off(w, PS_KI_CMA_RANGES) + r * (uint64_t)mm_size(w, PS_KI_CMA_MEMRANGE);
			if (!mm_kread_member(w, at, one ? PS_KI_CMA_BASE_PFN : PS_KI_CMA_MEMRANGE_BASE_PFN, &base) ||
			    !mm_kread_member(w, at, one ? PS_KI_CMA_COUNT : PS_KI_CMA_MEMRANGE_COUNT, &count) ||
			    !count || base > (UINT64_C(1) << 52) || count > (UINT64_C(1) << 40))
				continue;
			typeof(f->cma[0]) *c = &f->cma[f->ncma++];
			c->lo = base, c->hi = base + count, c->owner = 0;
			memcpy(c->name, name, sizeof c->name);
		}
	}
}

/* Free frames [PFN, PFN + N): owned by the CMA area holding them, split at areas' edges. */
static void add_free(struct frun *f, uint64_t pfn, uint64_t n)
{
	while (n) {
		uint64_t len = n, owner = PS_UNKNOWN;
		for (unsigned i = 0; i < f->ncma; i++) {
			typeof(f->cma[0]) *c = &f->cma[i];
			if (pfn >= c->lo && pfn < c->hi) {
				len = c->hi - pfn < n ? c->hi - pfn : n;
				for (unsigned j = 0; j < f->ncma && !c->owner; j++) /* an area's ranges: one owner */
					if (f->cma[j].owner && !strcmp(f->cma[j].name, c->name))
						c->owner = f->cma[j].owner;
				if (!c->owner && f->next_owner < FR_MAX_OWNERS) {
					c->owner = ++f->next_owner;
					struct ps_owner o = { .id = c->owner, .kind = "cma", .name = c->name };
					flush(f);
					if (!f->w->write_failed && ps_write_owner(f->w->out, &o) < 0)
						f->w->write_failed = true;
				}
				owner = c->owner ? c->owner : PS_UNKNOWN;
				break;
			}
			if (c->lo > pfn && c->lo - pfn < len)
				len = c->lo - pfn; /* up to the next area */
		}
		add(f, pfn, len, PS_FC_FREE, owner);
		pfn += len, n -= len;
	}
}

/* The owner id of the file whose page cache MAPPING (a struct address_space) is, writing
 * its owner record (kind file: the path inside its filesystem, or the device and inode
 * number) the first time; PS_UNKNOWN when it cannot be named. */
static uint64_t file_owner(struct frun *f, uint64_t mapping)
{
	struct ps_walker *w = f->w;
	uint64_t id, host;
	if (mm_set_get(&f->files, mapping, &id))
		return id;
	if (f->next_owner >= FR_MAX_OWNERS || !mm_has(w, PS_KI_ADDRESS_SPACE_HOST))
		return PS_UNKNOWN;
	struct mm_file_info fi;
	char name[96];
	const char *label = NULL;
	if (ps_kread_ptr(&w->c, mapping + (uint64_t)mm_off(w, PS_KI_ADDRESS_SPACE_HOST), &host) == PS_READ_OK &&
	    mm_inode_info(w, host, &fi) == 0) {
		if (fi.path[0]) {
			label = fi.path;
		} else {
			snprintf(name, sizeof name, "(device %x:%x inode %" PRIu64 ")", fi.dev_major, fi.dev_minor,
				 fi.inode);
			label = name;
		}
	}
	id = label ? ++f->next_owner : PS_UNKNOWN;
	if (mm_set_put(&f->files, mapping, id, true) < 0 || id == PS_UNKNOWN)
		return PS_UNKNOWN;
	struct ps_owner o = { .id = id, .kind = "file", .name = label };
	flush(f);
	if (!w->write_failed && ps_write_owner(w->out, &o) < 0)
		w->write_failed = true;
	return id;
}

#define VM_IOREMAP 0x1       /* include/linux/vmalloc.h: device memory, not RAM */


#define FR_MAX_AREAS (1u << 22)

/* The owner id of a vmalloc area's CALLER (its function, from kallsyms), writing the owner
 * record the first time; PS_UNKNOWN when there is no caller. */
static uint64_t vmalloc_owner(struct frun *f, struct mm_set *callers, uint64_t caller)
{
	struct ps_walker *w = f->w;
	uint64_t id, off;
	const char *sym;
	if (!caller)
		return PS_UNKNOWN;
	if (mm_set_get(callers, caller, &id))
		return id;
	if (f->next_owner >= FR_MAX_OWNERS)
		return PS_UNKNOWN;
	char name[160];
	const struct mm_module *mod = mm_module_at(f->modules, f->nmodules, caller, &off);
	if (mod) /* the core kernel's kallsyms do not cover modules */
		snprintf(name, sizeof name, "[%s]+0x%" PRIx64, mod->name, off);
	else if (w->c.kallsyms && ps_kallsyms_name_at(&w->c, caller, &sym, &off) == 0 && off < (1u << 20))
		snprintf(name, sizeof name, "%s+0x%" PRIx64, sym, off);
	else
		snprintf(name, sizeof name, "0x%" PRIx64, caller);
	id = ++f->next_owner;
	if (mm_set_put(callers, caller, id, true) < 0)
		return PS_UNKNOWN;
	struct ps_owner o = { .id = id, .kind = "vmalloc", .name = name };
	if (!w->write_failed && ps_write_owner(w->out, &o) < 0)
		w->write_failed = true;
	return id;
}

/* One vmalloc area: the frames its pages map (through the kernel's page tables), owned by
 * its caller. */
static void vmalloc_area(struct frun *f, struct mm_set *callers, uint64_t va, uint64_t *budget)
{
	struct ps_walker *w = f->w;
	uint64_t vm, addr, size, flags = 0, caller = 0;
	if (!mm_kread_word(w, va + (uint64_t)mm_off(w, PS_KI_VMAP_AREA_VM), &vm) || !vm)
		return; /* a lazily freed area, or one without a vm_struct */
	if (!mm_kptr_ok(w, vm, w->c.ptr_size) || !mm_kread_word(w, vm + (uint64_t)mm_off(w, PS_KI_VM_STRUCT_ADDR), &addr) ||
	    !mm_kread_word(w, vm + (uint64_t)mm_off(w, PS_KI_VM_STRUCT_SIZE), &size)) {
		f->vm_areas_bad++;
		return;
	}
	if (mm_has(w, PS_KI_VM_STRUCT_FLAGS))
		mm_kread_word(w, vm + (uint64_t)mm_off(w, PS_KI_VM_STRUCT_FLAGS), &flags);
	if (mm_has(w, PS_KI_VM_STRUCT_CALLER))
		mm_kread_word(w, vm + (uint64_t)mm_off(w, PS_KI_VM_STRUCT_CALLER), &caller);
	if (flags & VM_IOREMAP)
		return;
	uint64_t pages = size / w->c.page_size;
	if (pages > *budget) { /* more than RAM in all the areas: corrupt */
		f->vm_areas_bad++;
		return;
	}
	*budget -= pages;
	uint64_t owner = vmalloc_owner(f, callers, caller);
	for (uint64_t i = 0; i < pages; i++) {
		uint64_t pa;
		if (ps_kvtop(&w->c, addr + i * w->c.page_size, &pa) != 0)
			continue; /* the guard page, or not populated */
		mm_set_put(&f->vmalloc, (pa >> w->c.page_shift) + 1, owner == PS_UNKNOWN ? 0 : owner + 1, true);
	}
}

/* Walk the list of busy vmap areas at HEAD (a list_head of vmap_area.list). */
static void vmalloc_list(struct frun *f, struct mm_set *callers, uint64_t head, uint64_t *budget, uint64_t *areas)
{
	struct ps_walker *w = f->w;
	uint64_t pos;
	if (!mm_kread_word(w, head, &pos))
		return;
	/* A corrupt list may loop without coming back to HEAD: Brent's cycle check ends it
	 * within twice the loop's length (one patched word in the arm64 fixture's list made
	 * the pass visit 3.65 M areas before FR_MAX_AREAS: 1.05 s instead of 0.03 s). */
	uint64_t saved = head, power = 1, steps = 0;
	while (pos != head) {
		if (++*areas > FR_MAX_AREAS || !mm_kptr_ok(w, pos, w->c.ptr_size)) {
			f->vm_areas_bad++;
			return;
		}
		vmalloc_area(f, callers, pos - (uint64_t)mm_off(w, PS_KI_VMAP_AREA_LIST), budget);
		if (!mm_kread_word(w, pos, &pos) || (pos == saved && pos != head)) {
			f->vm_areas_bad++;
			return;
		}
		if (++steps == power) {
			saved = pos;
			power *= 2;
			steps = 0;
		}
	}
}

/* Every busy vmalloc area's frames (f->vmalloc), before the pass. */
static void vmalloc_collect(struct frun *f)
{
	struct ps_walker *w = f->w;
	if (!mm_has(w, PS_KI_VMAP_AREA_LIST) || !mm_has(w, PS_KI_VMAP_AREA_VM) ||
	    !mm_has(w, PS_KI_VM_STRUCT_ADDR) || !mm_has(w, PS_KI_VM_STRUCT_SIZE))
		return;
	struct mm_set callers = { 0 };
	uint64_t budget = 2 * w->c.max_pfn, areas = 0;
	uint64_t list = ps_core_sym(&w->c, PS_KI_VMAP_AREA_LIST_SYM), nodes = ps_core_sym(&w->c, PS_KI_VMAP_NODES);
	int64_t vn_size = mm_size(w, PS_KI_VMAP_NODE);
	uint64_t base = 0, nr = 1, single, next, prev;
	uint32_t n32;
	if (ps_core_sym(&w->c, PS_KI_NR_VMAP_NODES) &&
	    ps_kread_u32(&w->c, ps_core_sym(&w->c, PS_KI_NR_VMAP_NODES), &n32) == PS_READ_OK)
		nr = n32;
	if (!list && nodes) {
		mm_kread_word(w, nodes, &base);
	} else if (!list && nr == 1 && mm_has(w, PS_KI_VMAP_NODE_BUSY_HEAD) &&
		   ps_core_symbol_by_name(&w->c, "single", &single) == 0) {
		/* A kernel that folded vmap_nodes into its one node (no SMP: the pointer is
		 * constant): mm/vmalloc.c's static "single", taken only when its busy list is a
		 * list (the first entry's prev is the head). */
		uint64_t head = single + (uint64_t)mm_off(w, PS_KI_VMAP_NODE_BUSY_HEAD);
		if (mm_kread_word(w, head, &next) && mm_kptr_ok(w, next, w->c.ptr_size) &&
		    mm_kread_word(w, next + w->c.ptr_size, &prev) && prev == head)
			base = single;
	}
	if (list) {
		vmalloc_list(f, &callers, list, &budget, &areas);
	} else if (base && mm_has(w, PS_KI_VMAP_NODE_BUSY_HEAD) && vn_size > 0) {
		if (mm_kptr_ok(w, base, w->c.ptr_size) && nr >= 1 && nr <= 1024)
			for (uint64_t i = 0; i < nr; i++)
				vmalloc_list(f, &callers, base + i * (uint64_t)vn_size + (uint64_t)mm_off(w, PS_KI_VMAP_NODE_BUSY_HEAD),
					     &budget, &areas);
	}
	mm_set_free(&callers);
}

/* Whether a movable page whose mapping word (without its low bits) is OPS belongs to
 * zsmalloc: OPS is zsmalloc's movable_operations (6.0+), or an address_space whose a_ops
 * are zsmalloc's (before). */
static bool zsmalloc_ops(struct frun *f, uint64_t ops)
{
	struct ps_walker *w = f->w;
	if (!ops || (!f->zsmalloc_module && !f->zs_mops && !f->zs_aops))
		return false;
	if (ops == f->zs_mops || (f->zsmalloc_module && mm_module_at(f->zsmalloc_module, 1, ops, NULL)))
		return true;
	uint64_t v, a_ops;
	if (mm_set_get(&f->movable, ops, &v))
		return v == 1;
	bool zs = mm_has(w, PS_KI_ADDRESS_SPACE_A_OPS) && mm_kptr_ok(w, ops, w->c.ptr_size) &&
		  mm_kread_member(w, ops, PS_KI_ADDRESS_SPACE_A_OPS, &a_ops) &&
		  ((f->zs_aops && a_ops == f->zs_aops) ||
		   (f->zsmalloc_module && mm_module_at(f->zsmalloc_module, 1, a_ops, NULL)));
	mm_set_put(&f->movable, ops, zs ? 1 : 2, true);
	return zs;
}

static enum ps_frame_class classify(struct frun *f, uint64_t pfn, const struct mm_frame *fr, uint64_t *owner)
{
	uint64_t pf = fr->pflags;
	*owner = PS_UNKNOWN;
	if (pf & PS_PF(PS_PF_OFFLINE))
		return PS_FC_OFFLINE;
	if (pf & PS_PF(PS_PF_HUGE)) {
		if (fr->refcount != PS_UNKNOWN)
			*owner = hugetlb_owner(f, fr->refcount != 0);
		return PS_FC_HUGETLB;
	}
	if (pf & PS_PF(PS_PF_SLAB)) {
		*owner = slab_owner(f, fr->slab_cache);
		return PS_FC_SLAB;
	}
	if (pf & PS_PF(PS_PF_PGTABLE))
		return PS_FC_PGTABLE;
	if (fr->zsmalloc || ((fr->mapping & 3) == 2 /* PAGE_MAPPING_MOVABLE */ &&
			     zsmalloc_ops(f, fr->mapping & ~UINT64_C(3))))
		return PS_FC_ZSMALLOC;
	if (fr->mapping & 1)
		return PS_FC_ANON;
	if (fr->mapping && mm_kptr_ok(f->w, fr->mapping, f->w->c.ptr_size)) {
		*owner = file_owner(f, fr->mapping);
		return pf & PS_PF(PS_PF_SWAPBACKED) ? PS_FC_SHMEM : PS_FC_FILE;
	}
	if (pf & (UINT64_C(1) << 32)) /* KPF_RESERVED */
		return PS_FC_RESERVED;
	if (fr->refcount == 0)
		return PS_FC_UNUSED;
	uint64_t vo;
	if (f->vmalloc.n && mm_set_get(&f->vmalloc, pfn + 1, &vo)) {
		*owner = vo ? vo - 1 : PS_UNKNOWN;
		return PS_FC_VMALLOC;
	}
	return PS_FC_KERNEL;
}

static void note(uint64_t *n, uint64_t *first, uint64_t pfn)
{
	if (!(*n)++)
		*first = pfn;
}

void mm_write_frames(struct ps_walker *w)
{
	/* The kernel's max_pfn, but never beyond the frames the dump holds (a corrupt max_pfn
	 * must not make the pass run over 2^40 frames). */
	uint64_t max_pfn = w->c.max_pfn;
	if (w->c.t.max_pfn && w->c.t.max_pfn < max_pfn)
		max_pfn = w->c.t.max_pfn;
	if (!max_pfn || max_pfn > (UINT64_C(1) << 40))
		return; /* no idea where RAM ends: nothing is guessed */
	/* Without the dump's own extent, only a memory map whose sections say where RAM is
	 * bounds the pass (a kernel max_pfn alone may be anything). */
	if (!w->c.t.max_pfn && !mm_memmap_known(w))
		return;
	struct frun f = { .w = w };
	/* A free block is at most MAX_ORDER (NR_PAGE_ORDERS - 1): zone.free_area's length says
	 * which, so a corrupt order that claims half of RAM is caught, not believed. */
	uint64_t max_order = FR_MAX_ORDER;
	uint32_t orders = w->c.ki.member[PS_KI_ZONE_FREE_AREA].nelems;
	if (mm_has(w, PS_KI_ZONE_FREE_AREA) && orders >= 1 && orders <= FR_MAX_ORDER + 1)
		max_order = orders - 1;
	f.nmodules = mm_modules_collect(w, &f.modules);
	for (size_t i = 0; i < f.nmodules; i++)
		if (!strcmp(f.modules[i].name, "zsmalloc"))
			f.zsmalloc_module = &f.modules[i];
	f.zs_mops = ps_core_sym(&w->c, PS_KI_ZSMALLOC_MOPS);
	f.zs_aops = ps_core_sym(&w->c, PS_KI_ZSMALLOC_AOPS);
	cma_collect(&f);
	vmalloc_collect(&f);
	mm_trace_page_windows(w, true);
	uint64_t said = UINT64_MAX, unreadable_run = 0, stopped_at = 0;
	for (uint64_t pfn = 0; pfn < max_pfn && !w->write_failed;) {
		if (pfn >> 16 != said) {
			said = pfn >> 16;
			mm_progress(w, "frames", pfn, max_pfn);
		}
		if (!mm_pfn_has_memmap(w, pfn)) {
			flush(&f);
			pfn = mm_memmap_next(w, pfn);
			continue;
		}
		struct mm_frame fr;
		int rc = mm_frame_facts(w, pfn, &fr);
		if (rc == -2) {
			unreadable_run = 0;
			note(&f.bad_heads, &f.first_bad_head, pfn);
			add(&f, pfn, 1, PS_FC_UNKNOWN, PS_UNKNOWN);
			pfn++;
			continue;
		}
		if (rc < 0) {
			/* struct pages are read 64 at a time (page.c) and sections are multiples of
			 * that: the rest of an unreadable window is unreadable too */
			uint64_t n = 64 - pfn % 64;
			if (n > max_pfn - pfn)
				n = max_pfn - pfn;
			for (uint64_t i = 0; i < n; i++)
				note(&f.unreadable, &f.first_unreadable, pfn + i);
			add(&f, pfn, n, PS_FC_UNKNOWN, PS_UNKNOWN);
			pfn += n;
			unreadable_run += n;
			if (!w->c.t.max_pfn && unreadable_run >= FR_UNREADABLE_STOP && pfn < max_pfn) {
				stopped_at = pfn;
				break;
			}
			continue;
		}
		unreadable_run = 0;
		if (fr.buddy) {
			uint64_t n = 1;
			if (fr.buddy_order <= max_order)
				n = UINT64_C(1) << fr.buddy_order;
			else
				note(&f.bad_orders, &f.first_bad_order, pfn);
			if (n > max_pfn - pfn)
				n = max_pfn - pfn;
			add_free(&f, pfn, n);
			pfn += n;
			continue;
		}
		uint64_t owner;
		enum ps_frame_class cls = classify(&f, pfn, &fr, &owner);
		add(&f, pfn, 1, cls, owner);
		pfn++;
	}
	flush(&f);
	mm_trace_page_windows(w, false);
	if (f.unreadable)
		mm_warn(w, PS_UNKNOWN, PS_UNKNOWN, "frames: %" PRIu64 " struct pages unreadable (first PFN %" PRIx64
			"): written as unknown", f.unreadable, f.first_unreadable);
	if (stopped_at)
		mm_warn(w, PS_UNKNOWN, PS_UNKNOWN, "frames: no struct page readable for %" PRIu64 " frames "
			"before PFN %" PRIx64 ", and the dump does not say where RAM ends: the pass stops "
			"there (the memory map claims %" PRIx64 " frames)", unreadable_run, stopped_at, max_pfn);
	if (f.bad_heads)
		mm_warn(w, PS_UNKNOWN, PS_UNKNOWN, "frames: %" PRIu64 " tail pages whose compound_head points "
			"nowhere (first PFN %" PRIx64 "): written as unknown", f.bad_heads, f.first_bad_head);
	if (f.bad_orders)
		mm_warn(w, PS_UNKNOWN, PS_UNKNOWN, "frames: %" PRIu64 " free blocks with an impossible order "
			"(first PFN %" PRIx64 "): counted as one frame each", f.bad_orders, f.first_bad_order);
	if (f.vm_areas_bad)
		mm_warn(w, PS_UNKNOWN, PS_UNKNOWN, "frames: %" PRIu64 " vmalloc areas unreadable or implausible: "
			"their frames counted as kernel", f.vm_areas_bad);
	mm_set_free(&f.owners);
	mm_set_free(&f.files);
	mm_set_free(&f.vmalloc);
	mm_set_free(&f.movable);
	free(f.modules);
}
