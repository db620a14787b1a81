/* page.c - the pages of one VMA: page-table leaves and swap entries (ps_pt_walk), and per
 * mapped page what the kernel's own /proc files would say about its frame.
 *
 * MAPCOUNT is /proc/kpagecount: page_mapcount(), or 0 for slab and typed pages
 * (fs/proc/page.c). page_mapcount() of 6.1 (include/linux/mm.h, mm/util.c __page_mapcount):
 * order-0: _mapcount + 1; a compound page: the subpage's _mapcount + 1, and for anon and
 * hugetlb folios plus the head's compound_mapcount (page[1]) + 1, minus one while the
 * folio is PageDoubleMap (page[1].flags). 6.2+ (folio->_entire_mapcount): _mapcount + 1 +
 * _entire_mapcount + 1 for any large folio.
 *
 * REFCOUNT is page_count(): the folio's reference count, i.e. the head page's _refcount for
 * a tail page (a tail's own _refcount is always 0), since that is what holds the memory.
 *
 * PFLAGS is /proc/kpageflags: stable_page_flags() of fs/proc/page.c (6.1) applied to the
 * struct page read from the dump, with PG_* bit numbers from the type information, plus
 * pagesleuth's bit 48 for PG_young (32-bit kernels keep idle and young in page_ext). Not
 * reproduced: the free-buddy search for pages with refcount 0 that are not PageBuddy (never
 * a mapped page), fake heads of hugetlb vmemmap optimisation (off by default).
 *
 * Struct pages are read through a cache of 64-page windows (one 4 KiB read for 64-byte
 * pages), so neighbouring frames, THP heads and their page[1] cost one read together and a
 * scattered page cache costs one small read per 64 frames.
 */
#include "mm_internal.h"
#include "kversion.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define WIN_PAGES 64
#define CACHE_SLOTS 1024
#define MAX_FOLIO_ORDER 18  /* 1 GiB of 4K pages: larger "folios" are corrupt */

/* include/uapi/linux/kernel-page-flags.h and include/linux/kernel-page-flags.h */
enum {
	KPF_RESERVED = 32, KPF_ARCH = 38, KPF_UNCACHED = 39, KPF_ARCH_2 = 41,
};

/* The walk's memo of page facts: a PFN mapped by many processes (a shared library, a fork's
 * copy-on-write pages) has the same mapcount, refcount and kpageflags each time the walk
 * meets it. The 2.5 GiB bench dump's walk meets 873,764 pages, 411,282 distinct: direct-mapped
 * by the PFN's low bits (runs of PFNs fill neighbouring slots), 2^16 slots catch 416,000 of
 * the 462,482 repeats. The dump's status of the frame is kept with them. Cleared when what
 * page_facts reads besides the dump changes (the zero page or the huge zero page learned
 * during the walk). */
#define MEMO_SLOTS (1u << 16)
struct facts_memo {
	uint64_t pfn1; /* PFN + 1; 0: empty */
	uint64_t mapcount, refcount, pflags;
	enum ps_read_status status; /* the dump's, for the frame (pfn_status) */
};

struct mm_page_cache {
	size_t psize;          /* sizeof(struct page) */
	uint64_t *tag;         /* window number + 1; 0 = empty */
	uint8_t *ok;           /* the window read succeeded */
	uint8_t *data;         /* CACHE_SLOTS * WIN_PAGES * psize */
	uint8_t single[512];   /* one struct page read alone (a window that failed) */
	/* The kpageflags bits stable_page_flags() copies straight from the flags word, as one
	 * table per byte of the word (build_kpf_copy): 8 lookups a page instead of a test per
	 * flag, which were a fifth of page_facts' instructions. */
	uint64_t kpf_copy[8][256];
	unsigned kpf_bytes; /* the low bytes that hold such a bit (the high ones: node, zone) */

	/* struct page layout */
	int64_t o_flags, o_ref, o_map, o_mapping, o_head, o_type;
	unsigned flags_size;
	/* large-folio facts, byte offsets from the head page */
	int64_t o_cmapcount, o_entire, o_dtor, o_order, o_flags1, o_large_mapcount;
	/* PG_* bit numbers, -1 = the kernel has no such flag */
	int pg_locked, pg_error, pg_referenced, pg_uptodate, pg_dirty, pg_lru, pg_active,
		pg_slab, pg_owner_priv_1, pg_arch_1, pg_reserved, pg_private, pg_private_2,
		pg_writeback, pg_head, pg_mappedtodisk, pg_reclaim, pg_swapbacked,
		pg_unevictable, pg_mlocked, pg_uncached, pg_hwpoison, pg_young, pg_idle,
		pg_arch_2, pg_swapcache, pg_double_map;
	struct ps_page_types types; /* page_type encoding (kversion.h) */
	struct ps_kpageflags_rules kpf; /* what this kernel's kpageflags reports (kversion.h) */
	int pg_large_rmappable;   /* a flag of page[1] (folio_test_large_rmappable) */
	int64_t hugetlb_dtor;  /* PS_KI_ABSENT if unknown (6.9+: a page type) */

	uint64_t zero_pfn;     /* PS_UNKNOWN if unknown */
	bool no_pte_special;   /* 32-bit ARM without LPAE (see mm_pages_init) */
	uint64_t huge_zero_page;
	bool have_nr_swapfiles;
	uint64_t nr_swapfiles;
	unsigned swp_max, swp_hwpoison, swp_migration, swp_device; /* 6.1 special types */

	/* struct page addresses without vmemmap (see memmap_page_addr) */
	bool memmap_tried, sparse, flat;
	uint64_t sec_table, sec_roots, sec_per_root, sec_size, sec_map_off;
	unsigned sec_pfn_shift;
	bool sec_extreme;
	uint64_t last_sec, last_sec_map; /* last_sec UINT64_MAX: none */
	uint64_t flat_map, flat_start, flat_pages, flat_pgdat;

	/* page_ext flags (PG_idle/PG_young of 32-bit kernels), see page_ext_flags */
	bool pe_tried, pe_ok, pe_sparse;
	uint64_t pe_stride, pe_flags_off, pe_flat_base, pe_flat_start;
	unsigned pe_flags_size;
	int pe_young, pe_idle;
	size_t pe_win;         /* entries per window: a power of two */
	size_t pe_slots;       /* windows cached */
	uint64_t *pe_tag;      /* 2 * window + 1: read; + 2: unreadable; 0: empty */
	uint8_t *pe_data;      /* pe_slots windows of pe_win whole entries (pe_stride apart) */
	const char *pe_unknown; /* why page_ext is not read although the kernel uses it, or NULL */

	/* What page_facts gave the walk for recent PFNs (facts_memo). */
	struct facts_memo *memo;
	bool memo_tried;
	uint64_t any_mapped_head; /* head PFN + 1 of the folio any_mapped is about, 0: none */
	bool any_mapped;
	bool trace_windows;       /* the frame pass: "page PA LEN" trace lines per window read */
	bool forgotten;           /* mm_pages_forget: only the window buffers are kept */
};

/* ---- setup ------------------------------------------------------------------------------ */

static void memo_clear(struct mm_page_cache *pc)
{
	if (pc->memo)
		memset(pc->memo, 0, MEMO_SLOTS * sizeof *pc->memo);
}

static int bit_of(const struct ps_walker *w, enum ps_ki_enum id)
{
	int64_t v = mm_enum(w, id);
	return v == PS_KI_ABSENT || v < 0 || v >= 64 ? -1 : (int)v;
}

static bool vmci_number(void *ctx, const char *key, int64_t *out)
{
	uint64_t v;
	if (!ps_core_vmcoreinfo_u64(ctx, key, &v))
		return false;
	*out = (int64_t)v; /* NUMBER() is decimal, maybe negative: two's complement */
	return true;
}

static void memmap_init(struct ps_walker *w);

/* 32-bit ARM's empty_zero_page is a struct page pointer (arch/arm/mm/mmu.c), not the page:
 * its PFN by FLATMEM's mem_map. PS_UNKNOWN if that cannot be told. */
static uint64_t arm_zero_pfn(struct ps_walker *w)
{
	struct mm_page_cache *pc = w->pages;
	uint64_t p;
	if (!w->c.sym[PS_KI_EMPTY_ZERO_PAGE] ||
	    ps_kread_ptr(&w->c, w->c.sym[PS_KI_EMPTY_ZERO_PAGE], &p) != PS_READ_OK)
		return PS_UNKNOWN;
	if (!pc->memmap_tried)
		memmap_init(w);
	if (!pc->flat || p < pc->flat_map || (p - pc->flat_map) % pc->psize ||
	    (p - pc->flat_map) / pc->psize >= pc->flat_pages)
		return PS_UNKNOWN;
	return pc->flat_start + (p - pc->flat_map) / pc->psize;
}

static void build_kpf_copy(struct mm_page_cache *pc)
{
	const struct { int kbit; unsigned ubit; } copied[] = {
		{ pc->pg_locked, PS_PF_LOCKED },	 { pc->pg_error, PS_PF_ERROR },
		{ pc->pg_dirty, PS_PF_DIRTY },		 { pc->pg_uptodate, PS_PF_UPTODATE },
		{ pc->pg_writeback, PS_PF_WRITEBACK },	 { pc->pg_lru, PS_PF_LRU },
		{ pc->pg_referenced, PS_PF_REFERENCED }, { pc->pg_active, PS_PF_ACTIVE },
		{ pc->pg_reclaim, PS_PF_RECLAIM },	 { pc->pg_swapbacked, PS_PF_SWAPBACKED },
		{ pc->pg_unevictable, PS_PF_UNEVICTABLE }, { pc->pg_mlocked, PS_PF_MLOCKED },
		{ pc->pg_uncached, KPF_UNCACHED },	 { pc->pg_reserved, KPF_RESERVED },
		{ pc->pg_mappedtodisk, PS_PF_MAPPEDTODISK }, { pc->pg_private, PS_PF_PRIVATE },
		{ pc->pg_private_2, PS_PF_PRIVATE_2 },	 { pc->pg_owner_priv_1, PS_PF_OWNER_PRIVATE },
		{ pc->pg_arch_1, KPF_ARCH },		 { pc->pg_arch_2, KPF_ARCH_2 },
	};
	memset(pc->kpf_copy, 0, sizeof pc->kpf_copy);
	pc->kpf_bytes = 0;
	for (size_t i = 0; i < sizeof copied / sizeof copied[0]; i++) {
		int b = copied[i].kbit; /* bit_of: -1 (absent) or 0..63 */
		if (b < 0 || b >= 64)
			continue;
		if ((unsigned)b / 8 + 1 > pc->kpf_bytes)
			pc->kpf_bytes = (unsigned)b / 8 + 1;
		for (unsigned v = 0; v < 256; v++)
			if (v >> (b % 8) & 1)
				pc->kpf_copy[b / 8][v] |= UINT64_C(1) << copied[i].ubit;
	}
}

int mm_pages_init(struct ps_walker *w, const char **why)
{
	*why = NULL;
	struct mm_page_cache *pc = w->pages;
	if (pc && !pc->forgotten)
		return 0;
	if (pc) {
		pc->forgotten = false; /* the same type information: the same window size */
		memo_clear(pc);
	} else {
		if (!(pc = calloc(1, sizeof *pc)))
			return -1;
		pc->psize = (size_t)mm_size(w, PS_KI_PAGE);
		if (pc->psize > sizeof pc->single)
			pc->psize = sizeof pc->single; /* check_layout bounds the members used */
		pc->tag = calloc(CACHE_SLOTS, sizeof *pc->tag);
		pc->ok = calloc(CACHE_SLOTS, 1);
		pc->data = malloc((size_t)CACHE_SLOTS * WIN_PAGES * pc->psize);
		if (!pc->tag || !pc->ok || !pc->data) {
			free(pc->tag), free(pc->ok), free(pc->data), free(pc);
			return -1;
		}
		w->pages = pc;
	}
	pc->o_flags = mm_off(w, PS_KI_PAGE_FLAGS);
	pc->flags_size = w->c.ki.member[PS_KI_PAGE_FLAGS].size == 4 ? 4 : 8;
	pc->o_ref = mm_off(w, PS_KI_PAGE_REFCOUNT);
	pc->o_map = mm_off(w, PS_KI_PAGE_MAPCOUNT);
	pc->o_mapping = mm_off(w, PS_KI_PAGE_MAPPING);
	pc->o_head = mm_off(w, PS_KI_PAGE_COMPOUND_HEAD);
	/* page_type is not among check_layout's members (it is optional): used only when it
	 * lies inside struct page, else _mapcount's place as in 6.1's union. */
	pc->o_type = mm_has(w, PS_KI_PAGE_TYPE) && mm_off(w, PS_KI_PAGE_TYPE) + 4 <= (int64_t)pc->psize
			     ? mm_off(w, PS_KI_PAGE_TYPE) : pc->o_map;
	int64_t ps = (int64_t)pc->psize;
	/* page[1] members (6.1 struct page) are one struct page past the head; folio members
	 * (6.2+) are already offsets from the head. */
	pc->o_cmapcount = mm_has(w, PS_KI_PAGE_COMPOUND_MAPCOUNT) ? ps + mm_off(w, PS_KI_PAGE_COMPOUND_MAPCOUNT) : -1;
	pc->o_entire = mm_has(w, PS_KI_FOLIO_ENTIRE_MAPCOUNT) ? mm_off(w, PS_KI_FOLIO_ENTIRE_MAPCOUNT) : -1;
	pc->o_dtor = mm_has(w, PS_KI_PAGE_COMPOUND_DTOR) ? ps + mm_off(w, PS_KI_PAGE_COMPOUND_DTOR) : -1;
	pc->o_order = mm_has(w, PS_KI_PAGE_COMPOUND_ORDER) ? ps + mm_off(w, PS_KI_PAGE_COMPOUND_ORDER) : -1;
	pc->o_large_mapcount = mm_has(w, PS_KI_FOLIO_LARGE_MAPCOUNT) ? mm_off(w, PS_KI_FOLIO_LARGE_MAPCOUNT) : -1;
	pc->o_flags1 = ps + pc->o_flags;
	pc->pg_locked = bit_of(w, PS_KI_PG_LOCKED);
	pc->pg_error = bit_of(w, PS_KI_PG_ERROR);
	pc->pg_referenced = bit_of(w, PS_KI_PG_REFERENCED);
	pc->pg_uptodate = bit_of(w, PS_KI_PG_UPTODATE);
	pc->pg_dirty = bit_of(w, PS_KI_PG_DIRTY);
	pc->pg_lru = bit_of(w, PS_KI_PG_LRU);
	pc->pg_active = bit_of(w, PS_KI_PG_ACTIVE);
	pc->pg_slab = bit_of(w, PS_KI_PG_SLAB);
	pc->pg_owner_priv_1 = bit_of(w, PS_KI_PG_OWNER_PRIV_1);
	pc->pg_arch_1 = bit_of(w, PS_KI_PG_ARCH_1);
	pc->pg_reserved = bit_of(w, PS_KI_PG_RESERVED);
	pc->pg_private = bit_of(w, PS_KI_PG_PRIVATE);
	pc->pg_private_2 = bit_of(w, PS_KI_PG_PRIVATE_2);
	pc->pg_writeback = bit_of(w, PS_KI_PG_WRITEBACK);
	pc->pg_head = bit_of(w, PS_KI_PG_HEAD);
	pc->pg_mappedtodisk = bit_of(w, PS_KI_PG_MAPPEDTODISK);
	pc->pg_reclaim = bit_of(w, PS_KI_PG_RECLAIM);
	pc->pg_swapbacked = bit_of(w, PS_KI_PG_SWAPBACKED);
	pc->pg_unevictable = bit_of(w, PS_KI_PG_UNEVICTABLE);
	pc->pg_mlocked = bit_of(w, PS_KI_PG_MLOCKED);
	pc->pg_uncached = bit_of(w, PS_KI_PG_UNCACHED);
	pc->pg_hwpoison = bit_of(w, PS_KI_PG_HWPOISON);
	pc->pg_young = bit_of(w, PS_KI_PG_YOUNG);
	pc->pg_idle = bit_of(w, PS_KI_PG_IDLE);
	pc->pg_arch_2 = w->c.ptr_size == 8 ? bit_of(w, PS_KI_PG_ARCH_2) : -1; /* CONFIG_64BIT only */
	pc->pg_swapcache = bit_of(w, PS_KI_PG_SWAPCACHE);
	if (pc->pg_swapcache < 0)
		pc->pg_swapcache = pc->pg_owner_priv_1; /* PG_swapcache = PG_owner_priv_1 */
	pc->pg_double_map = bit_of(w, PS_KI_PG_DOUBLE_MAP);
	/* A kernel whose page types cannot be told is refused: a typed page read as mapped
	 * would be counted, and a hugetlb folio would be read as THP. */
	if (ps_page_types_resolve(&w->c.ki, ps_kver_parse(w->c.release), vmci_number, &w->c,
				  &pc->types, why) != 0) {
		mm_pages_free(w);
		return -1;
	}
	if (pc->pg_slab >= 0 && pc->types.slab)
		pc->pg_slab = -1; /* 6.10-6.11: PG_slab names a page type, not a flag */
	pc->hugetlb_dtor = mm_enum(w, PS_KI_HUGETLB_PAGE_DTOR);
	ps_kpageflags_rules(ps_kver_parse(w->c.release), &pc->kpf);
	pc->pg_large_rmappable = bit_of(w, PS_KI_PG_LARGE_RMAPPABLE);
	if (pc->pg_mappedtodisk < 0)
		pc->pg_mappedtodisk = bit_of(w, PS_KI_PG_OWNER_2); /* renamed, same KPF bit 34 */
	build_kpf_copy(pc);

	pc->zero_pfn = PS_UNKNOWN;
	uint64_t v;
	if (w->c.sym[PS_KI_ZERO_PFN] && ps_kread_ptr(&w->c, w->c.sym[PS_KI_ZERO_PFN], &v) == PS_READ_OK &&
	    v && (!w->c.max_pfn || v < w->c.max_pfn))
		pc->zero_pfn = v;
	else if (strcmp(w->c.arch->name, "arm") == 0)
		pc->zero_pfn = arm_zero_pfn(w);
	else if (w->c.sym[PS_KI_EMPTY_ZERO_PAGE] && ps_kvtop(&w->c, w->c.sym[PS_KI_EMPTY_ZERO_PAGE], &v) == 0)
		pc->zero_pfn = v >> w->c.page_shift;
	/* pte_special exists on 32-bit ARM with LPAE only (6.1: ARCH_HAS_PTE_SPECIAL if
	 * ARM_LPAE); the short-descriptor layout is the one with 4-byte PTEs. */
	pc->no_pte_special = strcmp(w->c.arch->name, "arm") == 0 && w->c.geom.nlevels > 0 &&
			     w->c.geom.levels[w->c.geom.nlevels - 1].entry_size == 4;
	if (!w->c.sym[PS_KI_HUGE_ZERO_PAGE] ||
	    ps_kread_ptr(&w->c, w->c.sym[PS_KI_HUGE_ZERO_PAGE], &pc->huge_zero_page) != PS_READ_OK)
		pc->huge_zero_page = 0;
	uint32_t nsf;
	pc->have_nr_swapfiles = w->c.sym[PS_KI_NR_SWAPFILES] &&
				ps_kread_u32(&w->c, w->c.sym[PS_KI_NR_SWAPFILES], &nsf) == PS_READ_OK && nsf <= 32;
	pc->nr_swapfiles = pc->have_nr_swapfiles ? nsf : 0;
	/* The special swap types of 6.1 (include/linux/swap.h) sit above MAX_SWAPFILES, counted
	 * down from 1 << MAX_SWAPFILES_SHIFT (32): SWP_SWAPIN_ERROR (31), the PTE marker
	 * (CONFIG_PTE_MARKER: uffd-wp, x86_64 only in 6.1), 4 device-private types
	 * (CONFIG_DEVICE_PRIVATE: mm/migrate_device.c is built), 3 migration types, the
	 * hwpoison type (CONFIG_MEMORY_FAILURE: PG_hwpoison exists). #ifdefs are not in any type
	 * information, so these are inferred as said. */
	uint64_t dummy;
	unsigned marker = strcmp(w->c.arch->name, "x86_64") == 0 ? 1 : 0;
	pc->swp_device = ps_core_symbol_by_name(&w->c, "migrate_vma_setup", &dummy) == 0 ? 4 : 0;
	pc->swp_migration = 3;
	pc->swp_hwpoison = pc->pg_hwpoison >= 0 ? 1 : 0;
	pc->swp_max = 32 - 1 - marker - pc->swp_device - pc->swp_migration - pc->swp_hwpoison;
	return 0;
}

void mm_pages_forget(struct ps_walker *w)
{
	struct mm_page_cache *pc = w->pages;
	if (!pc)
		return;
	uint64_t *tag = pc->tag;
	uint8_t *ok = pc->ok, *data = pc->data;
	size_t psize = pc->psize;
	free(pc->pe_tag), free(pc->pe_data), free(pc->memo);
	memset(pc, 0, sizeof *pc);
	memset(tag, 0, CACHE_SLOTS * sizeof *tag);
	memset(ok, 0, CACHE_SLOTS);
	pc->tag = tag, pc->ok = ok, pc->data = data, pc->psize = psize;
	pc->forgotten = true;
}

void mm_pages_free(struct ps_walker *w)
{
	struct mm_page_cache *pc = w->pages;
	if (!pc)
		return;
	free(pc->pe_tag), free(pc->pe_data), free(pc->memo);
	free(pc->tag), free(pc->ok), free(pc->data), free(pc);
	w->pages = NULL;
}

/* ---- struct page reads -------------------------------------------------------------------- */

static bool vmci(struct ps_walker *w, const char *key, uint64_t *v)
{
	return ps_core_vmcoreinfo_u64(&w->c, key, v);
}

/* A kernel address computed in 64 bits, as the target's unsigned long arithmetic gives it
 * (32-bit kernels encode section maps as pointer - PFN * size, which wraps). */
static inline uint64_t kaddr(const struct ps_walker *w, uint64_t v)
{
	return w->c.ptr_size == 8 ? v : v & UINT32_MAX;
}

/* A pglist_data member's offset: VMCOREINFO's, else the type information's. */
static bool pgdat_off(struct ps_walker *w, const char *key, enum ps_ki_member id, uint64_t *off)
{
	if (vmci(w, key, off))
		return true;
	if (!mm_has(w, id))
		return false;
	*off = (uint64_t)mm_off(w, id);
	return true;
}

/* Where struct pages are when the architecture has no vmemmap (its pfn_to_page gives 0):
 * classic SPARSEMEM through mem_section, or FLATMEM through the one node's node_mem_map.
 * Sections come from VMCOREINFO (kernel/crash_core.c): SYMBOL(mem_section) is the value
 * of the mem_section array/pointer, LENGTH its roots, SIZE/OFFSET the section layout;
 * SPARSEMEM_EXTREME has PAGE_SIZE / SIZE(mem_section) sections per root, the static form
 * one (then LENGTH is 1 << (MAX_PHYSMEM_BITS - SECTION_SIZE_BITS)). FLATMEM's
 * contig_page_data and its members come from VMCOREINFO or, in dumps without it (QEMU
 * dumps of 32-bit guests), from the type information and its symbols. */
static void memmap_init(struct ps_walker *w)
{
	struct mm_page_cache *pc = w->pages;
	pc->memmap_tried = true;
	pc->last_sec = UINT64_MAX;
	uint64_t bits, maxbits;
	if (vmci(w, "SYMBOL(mem_section)", &pc->sec_table) && pc->sec_table &&
	    vmci(w, "LENGTH(mem_section)", &pc->sec_roots) && pc->sec_roots &&
	    vmci(w, "SIZE(mem_section)", &pc->sec_size) && pc->sec_size && pc->sec_size <= 4096 &&
	    vmci(w, "OFFSET(mem_section.section_mem_map)", &pc->sec_map_off) &&
	    vmci(w, "NUMBER(SECTION_SIZE_BITS)", &bits) && bits > w->c.page_shift && bits < 48 &&
	    vmci(w, "NUMBER(MAX_PHYSMEM_BITS)", &maxbits) && maxbits >= bits && maxbits < 64) {
		pc->sec_pfn_shift = (unsigned)bits - w->c.page_shift;
		pc->sec_extreme = pc->sec_roots != UINT64_C(1) << (maxbits - bits);
		pc->sec_per_root = pc->sec_extreme ? w->c.page_size / pc->sec_size : 1;
		pc->sparse = pc->sec_per_root > 0;
		return;
	}
	uint64_t pgdat, off_map, off_start, off_span;
	if (!vmci(w, "SYMBOL(contig_page_data)", &pgdat))
		pgdat = ps_core_sym(&w->c, PS_KI_CONTIG_PAGE_DATA);
	if (pgdat && pgdat_off(w, "OFFSET(pglist_data.node_mem_map)", PS_KI_PGDAT_NODE_MEM_MAP, &off_map) &&
	    pgdat_off(w, "OFFSET(pglist_data.node_start_pfn)", PS_KI_PGDAT_NODE_START_PFN, &off_start) &&
	    pgdat_off(w, "OFFSET(pglist_data.node_spanned_pages)", PS_KI_PGDAT_NODE_SPANNED_PAGES, &off_span) &&
	    ps_kread_ptr(&w->c, pgdat + off_map, &pc->flat_map) == PS_READ_OK &&
	    ps_kread_ptr(&w->c, pgdat + off_start, &pc->flat_start) == PS_READ_OK &&
	    ps_kread_ptr(&w->c, pgdat + off_span, &pc->flat_pages) == PS_READ_OK && pc->flat_map) {
		pc->flat = true;
		pc->flat_pgdat = pgdat;
	}
}

/* The kernel's SECTION_MAP_MASK of 6.1: flags in bits 0-4 (present, has mem_map, online,
 * early, ZONE_DEVICE taint) below the encoded pointer (mem_map - section start PFN). */
#define SECTION_MAP_FLAGS UINT64_C(0x1f)
#define SECTION_HAS_MEM_MAP UINT64_C(0x2)

/* The address of the struct mem_section of PFN, or 0. */
static uint64_t section_entry(struct ps_walker *w, uint64_t pfn)
{
	struct mm_page_cache *pc = w->pages;
	uint64_t sec = pfn >> pc->sec_pfn_shift;
	uint64_t root = sec / pc->sec_per_root;
	if (root >= pc->sec_roots)
		return 0;
	if (pc->sec_extreme) {
		uint64_t rp;
		if (ps_kread_ptr(&w->c, pc->sec_table + root * w->c.ptr_size, &rp) != PS_READ_OK || !rp)
			return 0;
		return rp + (sec % pc->sec_per_root) * pc->sec_size;
	}
	return pc->sec_table + sec * pc->sec_size;
}

uint64_t mm_memmap_page_addr(struct ps_walker *w, uint64_t pfn)
{
	struct mm_page_cache *pc = w->pages;
	if (!pc->memmap_tried)
		memmap_init(w);
	if (pc->sparse) {
		uint64_t sec = pfn >> pc->sec_pfn_shift;
		if (sec != pc->last_sec) {
			pc->last_sec = sec;
			pc->last_sec_map = 0;
			uint64_t entry = section_entry(w, pfn), map = 0;
			if (!entry || ps_kread_ptr(&w->c, entry + pc->sec_map_off, &map) != PS_READ_OK ||
			    !(map & SECTION_HAS_MEM_MAP))
				return 0;
			pc->last_sec_map = map & ~SECTION_MAP_FLAGS;
		}
		return pc->last_sec_map ? kaddr(w, pc->last_sec_map + pfn * pc->psize) : 0;
	}
	if (pc->flat && pfn >= pc->flat_start && pfn - pc->flat_start < pc->flat_pages)
		return pc->flat_map + (pfn - pc->flat_start) * pc->psize;
	return 0;
}

/* ---- page_ext: PG_idle and PG_young of 32-bit kernels ----------------------------------- */

/* Without room in page->flags (!CONFIG_64BIT), CONFIG_PAGE_IDLE_FLAG keeps idle and young in
 * page_ext->flags as PAGE_EXT_IDLE/PAGE_EXT_YOUNG (include/linux/page_idle.h of 6.1), of the
 * folio's head page. Entries are page_ext_size bytes apart (mm/page_ext.c): FLATMEM's array
 * starts at pgdat->node_page_ext for the PFN round_down(node_start_pfn, MAX_ORDER_NR_PAGES);
 * SPARSEMEM's section->page_ext is the array's address minus page_ext_size * the section's
 * first PFN, bit 0 marking it invalid. Entries are read whole in windows of about 4 KiB
 * (one read per window, no per-entry copies, as the struct page cache does), and up to 4 MiB
 * of windows are kept: user pages are scattered over all of memory. */
#define PE_WIN_BYTES 4096
#define PE_WIN_MAX 1024
#define PE_SLOTS_MAX 1024
#define PE_CACHE_BYTES (UINT64_C(4) << 20)
#define PE_STRIDE_MAX 4096

/* page_ext_size of mm/page_ext.c: sizeof(struct page_ext) plus the extension of every user
 * that asked for one at boot (page_owner, page_table_check; each op's offset is the size
 * before it). Only the kernel's variable says which did: without it, sizeof(struct page_ext)
 * is the stride only if no such user is built in, which their functions tell as well as
 * their ops (kallsyms without KALLSYMS_ALL has no data symbols, so neither page_ext_size
 * nor the ops). 0 and *why when it cannot be known. */
static uint64_t page_ext_stride(struct ps_walker *w, const struct ps_kinfo_member *fl, const char **why)
{
	int64_t base = mm_size(w, PS_KI_PAGE_EXT) > 0 ? mm_size(w, PS_KI_PAGE_EXT) : 0;
	uint64_t stride = 0, sym = ps_core_sym(&w->c, PS_KI_PAGE_EXT_SIZE), dummy;
	if (sym && ps_kread_ptr(&w->c, sym, &stride) == PS_READ_OK) {
		/* An entry holds at least struct page_ext; entries stay aligned for its flags. */
		if (stride < (uint64_t)fl->offset + fl->size || stride < (uint64_t)base ||
		    stride % fl->size || stride > PE_STRIDE_MAX) {
			*why = "page_ext_size is implausible";
			return 0;
		}
		return stride;
	}
	static const char *const users[] = { "page_owner_ops", "__set_page_owner", "page_table_check_ops",
					     "__page_table_check_zero" };
	for (size_t i = 0; i < sizeof users / sizeof *users; i++)
		if (ps_core_symbol_by_name(&w->c, users[i], &dummy) == 0) {
			*why = i < 2 ? "page_ext_size unknown, and page_owner may enlarge the entries"
				     : "page_ext_size unknown, and page_table_check may enlarge the entries";
			return 0;
		}
	if (!base || (uint64_t)base < (uint64_t)fl->offset + fl->size) {
		*why = "neither page_ext_size nor sizeof(struct page_ext) known";
		return 0;
	}
	return (uint64_t)base;
}

static void page_ext_init(struct ps_walker *w)
{
	struct mm_page_cache *pc = w->pages;
	pc->pe_tried = true;
	int young = bit_of(w, PS_KI_PAGE_EXT_YOUNG), idle = bit_of(w, PS_KI_PAGE_EXT_IDLE);
	if (pc->pg_idle >= 0 || (young < 0 && idle < 0) || !mm_has(w, PS_KI_PAGE_EXT_FLAGS))
		return;
	const struct ps_kinfo_member *fl = &w->c.ki.member[PS_KI_PAGE_EXT_FLAGS];
	if (fl->size != 4 && fl->size != 8)
		return;
	uint64_t stride = page_ext_stride(w, fl, &pc->pe_unknown);
	if (!stride) {
		/* The kernel keeps these flags there, and they cannot be read: say so once. */
		mm_warn(w, PS_UNKNOWN, PS_UNKNOWN, "page_ext not read (%s): PG_idle and PG_young are not reported",
			pc->pe_unknown);
		return;
	}
	pc->pe_stride = stride;
	pc->pe_flags_off = (uint64_t)fl->offset;
	pc->pe_flags_size = fl->size;
	pc->pe_young = young;
	pc->pe_idle = idle;
	if (!pc->memmap_tried)
		memmap_init(w);
	if (pc->sparse && mm_has(w, PS_KI_MEM_SECTION_PAGE_EXT) &&
	    (uint64_t)mm_off(w, PS_KI_MEM_SECTION_PAGE_EXT) + w->c.ptr_size <= pc->sec_size) {
		pc->pe_sparse = true;
	} else if (pc->flat && mm_has(w, PS_KI_PGDAT_NODE_PAGE_EXT)) {
		uint64_t base;
		if (ps_kread_ptr(&w->c, pc->flat_pgdat + (uint64_t)mm_off(w, PS_KI_PGDAT_NODE_PAGE_EXT), &base) !=
			    PS_READ_OK || !base)
			return; /* no page_ext user asked for memory at boot: no flags anywhere */
		/* MAX_ORDER_NR_PAGES = 1 << (MAX_ORDER - 1); zone.free_area has MAX_ORDER entries. */
		uint32_t max_order = w->c.ki.member[PS_KI_ZONE_FREE_AREA].nelems;
		if (!mm_has(w, PS_KI_ZONE_FREE_AREA) || max_order == 0 || max_order > 20)
			max_order = 11;
		pc->pe_flat_base = base;
		pc->pe_flat_start = pc->flat_start & ~((UINT64_C(1) << (max_order - 1)) - 1);
	} else {
		return;
	}
	/* A window never spans two sections (their page_ext arrays are apart). */
	pc->pe_win = 1;
	while (pc->pe_win < PE_WIN_MAX && 2 * pc->pe_win * pc->pe_stride <= PE_WIN_BYTES &&
	       (!pc->pe_sparse || 2 * pc->pe_win <= UINT64_C(1) << pc->sec_pfn_shift))
		pc->pe_win *= 2;
	size_t win_bytes = (size_t)(pc->pe_win * pc->pe_stride);
	pc->pe_slots = PE_CACHE_BYTES / win_bytes;
	if (pc->pe_slots > PE_SLOTS_MAX)
		pc->pe_slots = PE_SLOTS_MAX;
	if (pc->pe_slots < 1)
		pc->pe_slots = 1;
	pc->pe_tag = calloc(pc->pe_slots, sizeof *pc->pe_tag);
	pc->pe_data = malloc(pc->pe_slots * win_bytes);
	pc->pe_ok = pc->pe_tag && pc->pe_data;
}

/* The flags word of the page_ext entry at P. */
static inline uint64_t pe_load(const struct ps_walker *w, const uint8_t *p)
{
	const struct mm_page_cache *pc = w->pages;
	return pc->pe_flags_size == 8 ? ps_load_u64(&w->c, p + pc->pe_flags_off)
				      : ps_load_u32(&w->c, p + pc->pe_flags_off);
}

/* The page_ext flags of PFN; false when there are none to read. */
static bool page_ext_flags(struct ps_walker *w, uint64_t pfn, uint64_t *flags)
{
	struct mm_page_cache *pc = w->pages;
	if (!pc->pe_tried)
		page_ext_init(w);
	if (!pc->pe_ok)
		return false;
	uint64_t win = pfn / pc->pe_win;
	size_t slot = (size_t)(win % pc->pe_slots), win_bytes = (size_t)(pc->pe_win * pc->pe_stride);
	uint8_t *data = pc->pe_data + slot * win_bytes;
	if (pc->pe_tag[slot] != 2 * win + 1 && pc->pe_tag[slot] != 2 * win + 2) {
		bool ok = false;
		uint64_t first = win * pc->pe_win, base = 0;
		if (pc->pe_sparse) {
			uint64_t entry = section_entry(w, first), v;
			if (entry && ps_kread_ptr(&w->c, entry + (uint64_t)mm_off(w, PS_KI_MEM_SECTION_PAGE_EXT), &v) ==
					     PS_READ_OK && v && !(v & 1))
				base = kaddr(w, v + first * pc->pe_stride);
			ok = base != 0; /* pe_win divides PAGES_PER_SECTION */
		} else if (first >= pc->pe_flat_start) {
			base = pc->pe_flat_base + (first - pc->pe_flat_start) * pc->pe_stride;
			ok = true;
		}
		ok = ok && ps_kread(&w->c, base, data, win_bytes) == PS_READ_OK;
		pc->pe_tag[slot] = 2 * win + (ok ? 1 : 2);
	}
	if (pc->pe_tag[slot] != 2 * win + 1) {
		/* Not readable as a window (the end of the array): this entry alone. */
		uint64_t entry;
		if (pc->pe_sparse) {
			uint64_t sec = section_entry(w, pfn), v;
			if (!sec || ps_kread_ptr(&w->c, sec + (uint64_t)mm_off(w, PS_KI_MEM_SECTION_PAGE_EXT), &v) !=
					    PS_READ_OK || !v || (v & 1))
				return false;
			entry = kaddr(w, v + pfn * pc->pe_stride);
		} else {
			if (pfn < pc->pe_flat_start)
				return false;
			entry = pc->pe_flat_base + (pfn - pc->pe_flat_start) * pc->pe_stride;
		}
		uint8_t b[8];
		if (ps_kread(&w->c, entry + pc->pe_flags_off, b, pc->pe_flags_size) != PS_READ_OK)
			return false;
		*flags = pc->pe_flags_size == 8 ? ps_load_u64(&w->c, b) : ps_load_u32(&w->c, b);
		return true;
	}
	*flags = pe_load(w, data + (pfn % pc->pe_win) * pc->pe_stride);
	return true;
}

static uint64_t page_addr(struct ps_walker *w, uint64_t pfn)
{
	uint64_t a = w->c.arch->pfn_to_page ? w->c.arch->pfn_to_page(&w->c, pfn) : 0;
	return a ? a : mm_memmap_page_addr(w, pfn);
}

/* The window WIN of struct pages, when it is not in the window cache: a hint to the
 * back-end (a process's pages lie in runs of frames, so the window after the one just read
 * is often the next one needed). */
static void hint_window(struct ps_walker *w, uint64_t win)
{
	struct mm_page_cache *pc = w->pages;
	uint64_t pa;
	if (!w->c.t.ops->prefetch_phys || pc->tag[win % CACHE_SLOTS] == win + 1)
		return;
	uint64_t base = page_addr(w, win * WIN_PAGES);
	if (base && ps_kvtop(&w->c, base, &pa) == 0)
		ps_prefetch(&w->c, pa);
}

/* The struct page of PFN (psize bytes), or NULL when it cannot be read. Valid until the
 * next call. */
static const uint8_t *page_struct(struct ps_walker *w, uint64_t pfn)
{
	struct mm_page_cache *pc = w->pages;
	uint64_t win = pfn / WIN_PAGES;
	size_t slot = (size_t)(win % CACHE_SLOTS);
	uint8_t *data = pc->data + slot * WIN_PAGES * pc->psize;
	if (pc->tag[slot] != win + 1) {
		pc->tag[slot] = win + 1;
		pc->ok[slot] = 0;
		uint64_t base = page_addr(w, win * WIN_PAGES);
		if (base) {
			size_t len = WIN_PAGES * pc->psize;
			uint64_t before = w->c.stats.other_bytes, pa;
			pc->ok[slot] = ps_kread(&w->c, base, data, len) == PS_READ_OK;
			/* for tests that mutate a dump where the pass reads it (tests/tools/mutate_dump.py) */
			if (pc->trace_windows && w->trace && pc->ok[slot] && ps_kvtop(&w->c, base, &pa) == 0)
				fprintf(w->trace, "page %" PRIx64 " %zu\n", pa, len);
			w->c.stats.other_bytes = before;
			w->c.stats.page_struct_bytes += len;
		}
		hint_window(w, win + 1);
	}
	if (pc->ok[slot])
		return data + (pfn % WIN_PAGES) * pc->psize;
	/* The window straddles something unreadable (the end of a memory section): this page
	 * alone. */
	uint64_t a = page_addr(w, pfn);
	if (!a)
		return NULL;
	uint64_t before = w->c.stats.other_bytes;
	enum ps_read_status st = ps_kread(&w->c, a, pc->single, pc->psize);
	w->c.stats.other_bytes = before;
	w->c.stats.page_struct_bytes += pc->psize;
	return st == PS_READ_OK ? pc->single : NULL;
}

/* SIZE bytes at byte offset OFF from the struct page of PFN (OFF may reach into the
 * following struct pages, as folio members do). */
static bool page_field(struct ps_walker *w, uint64_t pfn, int64_t off, unsigned size, uint64_t *out)
{
	struct mm_page_cache *pc = w->pages;
	if (off < 0)
		return false;
	uint64_t idx = (uint64_t)off / pc->psize, in = (uint64_t)off % pc->psize;
	if (in + size > pc->psize)
		return false;
	const uint8_t *p = page_struct(w, pfn + idx);
	if (!p)
		return false;
	switch (size) {
	case 1: *out = p[in]; return true;
	case 2: *out = ps_load_u16(&w->c, p + in); return true;
	case 4: *out = ps_load_u32(&w->c, p + in); return true;
	case 8: *out = ps_load_u64(&w->c, p + in); return true;
	default: return false;
	}
}

struct pg {
	uint64_t flags, head, mapping;
	int32_t mapcount, refcount;
	uint32_t type;
};

static bool load_pg(struct ps_walker *w, uint64_t pfn, struct pg *g)
{
	struct mm_page_cache *pc = w->pages;
	const uint8_t *p = page_struct(w, pfn);
	if (!p)
		return false;
	g->flags = pc->flags_size == 8 ? ps_load_u64(&w->c, p + pc->o_flags) : ps_load_u32(&w->c, p + pc->o_flags);
	g->head = ps_load_ptr(&w->c, p + pc->o_head);
	g->mapping = ps_load_ptr(&w->c, p + pc->o_mapping);
	g->mapcount = ps_load_s32(&w->c, p + pc->o_map);
	g->refcount = ps_load_s32(&w->c, p + pc->o_ref);
	g->type = ps_load_u32(&w->c, p + pc->o_type);
	return true;
}

static inline bool fbit(uint64_t flags, int bit)
{
	return bit >= 0 && (flags >> bit & 1);
}

static inline uint64_t copy_bit(uint64_t flags, int kbit, unsigned ubit)
{
	return fbit(flags, kbit) ? UINT64_C(1) << ubit : 0;
}

struct page_facts {
	uint64_t mapcount, refcount, pflags;
	/* what page_facts read on the way, for the frame pass: the folio's head, its mapping
	 * word and page type, and the page's own type */
	uint64_t head_pfn, head_mapping;
	uint32_t type, head_type;
};

/* Head PFN of a tail page whose compound_head word (bit 0 set) is INFO. Up to 7.1 the word
 * is the head's address + 1; the kernels that renamed it compound_info may store a mask
 * instead, the head being the tail's own struct page address AND the mask (their
 * vmemmap is aligned to the largest folio). A mask is all ones above some bit and zeros
 * below it (bit 0 aside); a struct page address never is. */
static bool head_pfn_of(struct ps_walker *w, uint64_t pfn, uint64_t info, uint64_t *head_pfn)
{
	uint64_t me = page_addr(w, pfn);
	size_t ps = w->pages->psize;
	uint64_t m = info & ~UINT64_C(1);
	if (w->c.ptr_size == 4)
		m |= ~UINT64_C(0) << 32; /* a 32-bit kernel's mask, sign-extended */
	uint64_t low = ~m; /* 0..01..1 for a mask */
	uint64_t head_addr = m && (low & (low + 1)) == 0 ? me & m : info - 1;
	if (w->c.ptr_size == 4)
		head_addr &= UINT32_MAX;
	if (!me || head_addr > me)
		return false;
	uint64_t d = me - head_addr;
	if (d % ps || d / ps == 0 || d / ps >= (UINT64_C(1) << MAX_FOLIO_ORDER) || d / ps > pfn)
		return false;
	*head_pfn = pfn - d / ps;
	return true;
}

/* What /proc/kpagecount, page_count() and /proc/kpageflags say for PFN. -1: a struct page
 * cannot be read; -2: compound_head points nowhere sensible. */
static int page_facts(struct ps_walker *w, uint64_t pfn, struct page_facts *f)
{
	struct mm_page_cache *pc = w->pages;
	struct pg p, h;
	if (!load_pg(w, pfn, &p))
		return -1;
	bool tail = p.head & 1;
	bool headflag = fbit(p.flags, pc->pg_head);
	bool compound = headflag || tail;
	uint64_t head_pfn = pfn;
	h = p;
	if (tail) {
		if (!head_pfn_of(w, pfn, p.head, &head_pfn))
			return -2;
		if (!load_pg(w, head_pfn, &h))
			return -1;
	}
	uint64_t v;
	bool hugetlb = false, double_map = false;
	int64_t folio_mapcount = -1; /* entire/compound mapcount, raw (-1 = none) */
	if (compound) {
		if (pc->o_dtor >= 0 && pc->hugetlb_dtor != PS_KI_ABSENT && page_field(w, head_pfn, pc->o_dtor, 1, &v))
			hugetlb = (int64_t)v == pc->hugetlb_dtor;
		else if (pc->types.hugetlb) /* 6.9+: a type of the head (folio_test_hugetlb) */
			hugetlb = ps_page_is_type(&pc->types, h.type, pc->types.hugetlb);
		if (pc->o_entire >= 0 && page_field(w, head_pfn, pc->o_entire, 4, &v))
			folio_mapcount = (int32_t)v;
		else if (pc->o_cmapcount >= 0 && page_field(w, head_pfn, pc->o_cmapcount, 4, &v))
			folio_mapcount = (int32_t)v;
		if (pc->pg_double_map >= 0 && page_field(w, head_pfn, pc->o_flags1, pc->flags_size, &v))
			double_map = fbit(v, pc->pg_double_map);
	}
	bool anon = h.mapping & 1;                /* PAGE_MAPPING_ANON, on the folio */
	bool ksm = (h.mapping & 3) == 3;          /* PAGE_MAPPING_KSM */
	/* PageSlab: PF_NO_TAIL, the head's; a type of the head since 6.10 (46df8e73a4a3) */
	bool slab = fbit(h.flags, pc->pg_slab) || ps_page_is_type(&pc->types, h.type, pc->types.slab);
	bool has_type = ps_page_has_type(&pc->types, p.type);

	/* page_mapcount() */
	int64_t mc = (int64_t)p.mapcount + 1;
	if (compound) {
		if (pc->o_entire >= 0) {
			mc += folio_mapcount + 1;
		} else if (anon || hugetlb) {
			mc += folio_mapcount + 1;
			if (double_map)
				mc--;
		}
	}
	/* A large folio's page found through its PTE whose own _mapcount says unmapped: the
	 * kernel keeps no per-page mapcounts (CONFIG_NO_PAGE_MAPCOUNT, 6.15, commit
	 * 6af8cb80d3a9, and kernels that dropped them for good). Its kpagecount is then
	 * folio_average_page_mapcount(): the PTE mappings spread over the folio's pages,
	 * rounded to the nearest, plus the PMD mappings. */
	uint64_t lm;
	if (compound && p.mapcount < 0 && folio_mapcount < 0 && pc->o_large_mapcount >= 0 &&
	    page_field(w, head_pfn, pc->o_large_mapcount, 4, &lm) && (int32_t)lm >= 0) {
		uint64_t order = 0, f1;
		if (pc->o_order >= 0 && page_field(w, head_pfn, pc->o_order, 1, &order))
			;
		else if (page_field(w, head_pfn, pc->o_flags1, pc->flags_size, &f1))
			order = f1 & 0xff; /* 6.6+: folio->_flags_1 & 0xff (folio_large_order) */
		if (order >= 1 && order <= MAX_FOLIO_ORDER) {
			int64_t total = (int64_t)(int32_t)lm + 1, entire = folio_mapcount + 1;
			mc = total <= entire ? entire
					     : (int64_t)(((uint64_t)(total - entire) + (UINT64_C(1) << order) / 2) >> order) + entire;
		}
	}
	f->mapcount = slab || has_type || mc < 0 ? 0 : (uint64_t)mc;
	f->refcount = h.refcount < 0 ? PS_UNKNOWN : (uint64_t)h.refcount;

	/* folio_mapped() */
	bool mapped;
	if (!compound) {
		mapped = p.mapcount >= 0;
	} else if (folio_mapcount >= 0) {
		mapped = true;
	} else if (pc->o_large_mapcount >= 0 && page_field(w, head_pfn, pc->o_large_mapcount, 4, &v)) {
		mapped = (int32_t)v >= 0; /* 6.10+: folio_large_mapcount() (05c5323b2a34) */
	} else if (hugetlb) {
		mapped = false;
	} else {
		mapped = p.mapcount >= 0;
		uint64_t order;
		if (!mapped && pc->any_mapped_head == head_pfn + 1) {
			mapped = pc->any_mapped;
		} else if (!mapped && pc->o_order >= 0 && page_field(w, head_pfn, pc->o_order, 1, &order) &&
			   order <= MAX_FOLIO_ORDER) {
			/* Any subpage mapped by a PTE; remembered per folio so a folio costs one
			 * scan however many of its pages are asked about. */
			for (uint64_t i = 0; i < (UINT64_C(1) << order) && !mapped; i++) {
				struct pg s;
				if (load_pg(w, head_pfn + i, &s))
					mapped = s.mapcount >= 0;
			}
			pc->any_mapped_head = head_pfn + 1;
			pc->any_mapped = mapped;
		}
	}

	/* stable_page_flags(): up to 6.9 mostly the page's own flags, since 6.10 the folio's */
	uint64_t k = pc->kpf.from_folio ? h.flags : p.flags;
	uint64_t u = 0;
	if ((pc->kpf.from_folio || !slab) && mapped)
		u |= PS_PF(PS_PF_MMAP);
	if (anon)
		u |= PS_PF(PS_PF_ANON);
	if (ksm || (anon && pc->kpf.ksm_any_anon))
		u |= PS_PF(PS_PF_KSM);
	if (headflag)
		u |= PS_PF(PS_PF_COMPOUND_HEAD);
	if (tail)
		u |= PS_PF(PS_PF_COMPOUND_TAIL);
	bool huge_zero = compound && pc->huge_zero_page && page_addr(w, head_pfn) == pc->huge_zero_page;
	if (hugetlb) {
		u |= PS_PF(PS_PF_HUGE);
	} else if (compound && pc->kpf.thp_rmappable && pc->pg_large_rmappable >= 0) {
		if (page_field(w, head_pfn, pc->o_flags1, pc->flags_size, &v) && fbit(v, pc->pg_large_rmappable))
			u |= PS_PF(PS_PF_THP);
		else if (huge_zero)
			u |= PS_PF(PS_PF_ZERO_PAGE) | PS_PF(PS_PF_THP);
	} else if (compound) {
		if (fbit(h.flags, pc->pg_lru) || anon)
			u |= PS_PF(PS_PF_THP);
		else if (huge_zero)
			u |= PS_PF(PS_PF_ZERO_PAGE) | PS_PF(PS_PF_THP);
	} else if (pfn == pc->zero_pfn) {
		u |= PS_PF(PS_PF_ZERO_PAGE);
	}
	if (ps_page_is_type(&pc->types, p.type, pc->types.buddy))
		u |= PS_PF(PS_PF_BUDDY);
	if (ps_page_is_type(&pc->types, p.type, pc->types.offline))
		u |= PS_PF(PS_PF_OFFLINE);
	if (ps_page_is_type(&pc->types, p.type, pc->types.table))
		u |= PS_PF(PS_PF_PGTABLE);
	if (fbit(h.flags, pc->pg_idle)) /* page_is_idle: the folio's flag on 64-bit */
		u |= PS_PF(PS_PF_IDLE);
	if (fbit(h.flags, pc->pg_young))
		u |= PS_PF(PS_PF_YOUNG);
	uint64_t pe;
	if (pc->pg_idle < 0 && page_ext_flags(w, head_pfn, &pe)) { /* 32-bit: the head's page_ext */
		if (fbit(pe, pc->pe_idle))
			u |= PS_PF(PS_PF_IDLE);
		if (fbit(pe, pc->pe_young))
			u |= PS_PF(PS_PF_YOUNG);
	}
	if (slab)
		u |= PS_PF(PS_PF_SLAB);
	if (fbit(h.flags, pc->pg_swapbacked) && fbit(h.flags, pc->pg_swapcache))
		u |= PS_PF(PS_PF_SWAPCACHE); /* PageSwapCache: the folio's flags */
	u |= copy_bit(hugetlb ? h.flags : p.flags, pc->pg_hwpoison, PS_PF_HWPOISON);
	/* The rest are kpf_copy_bit(k, ...) lines: locked, error, dirty, uptodate, writeback,
	 * lru, referenced, active, reclaim, swapbacked, unevictable, mlocked, uncached,
	 * reserved, mappedtodisk, private, private_2, owner_private, arch, arch_2. */
	for (unsigned i = 0; i < pc->kpf_bytes; i++)
		u |= pc->kpf_copy[i][(k >> (8 * i)) & 0xff];
	f->pflags = u;
	f->head_pfn = head_pfn, f->head_mapping = h.mapping;
	f->type = p.type, f->head_type = h.type;
	return 0;
}

/* ---- one frame, for the pass over all of RAM (frames.c) ----------------------------------- */

uint64_t mm_memmap_next(struct ps_walker *w, uint64_t pfn)
{
	struct mm_page_cache *pc = w->pages;
	if (!pc->memmap_tried)
		memmap_init(w);
	if (pc->sparse) /* the next section */
		return ((pfn >> pc->sec_pfn_shift) + 1) << pc->sec_pfn_shift;
	if (pc->flat && pfn < pc->flat_start)
		return pc->flat_start;
	if (pc->flat) /* past FLATMEM's one node: no struct page above */
		return UINT64_MAX;
	return pfn + 1;
}

void mm_trace_page_windows(struct ps_walker *w, bool on)
{
	w->pages->trace_windows = on;
}

bool mm_memmap_known(struct ps_walker *w)
{
	struct mm_page_cache *pc = w->pages;
	if (!pc->memmap_tried)
		memmap_init(w);
	return pc->sparse || pc->flat;
}

bool mm_pfn_has_memmap(struct ps_walker *w, uint64_t pfn)
{
	struct mm_page_cache *pc = w->pages;
	if (!pc->memmap_tried)
		memmap_init(w);
	if (pc->sparse || pc->flat)
		return mm_memmap_page_addr(w, pfn) != 0;
	return page_addr(w, pfn) != 0; /* vmemmap without section facts: try reading */
}

int mm_frame_facts(struct ps_walker *w, uint64_t pfn, struct mm_frame *fr)
{
	struct mm_page_cache *pc = w->pages;
	struct page_facts f;
	memset(fr, 0, sizeof *fr);
	int rc = page_facts(w, pfn, &f);
	if (rc < 0)
		return rc;
	fr->head_pfn = f.head_pfn;
	fr->pflags = f.pflags;
	fr->refcount = f.refcount;
	fr->mapcount = f.mapcount;
	fr->mapping = f.head_mapping;
	fr->buddy = ps_page_is_type(&pc->types, f.type, pc->types.buddy);
	fr->zsmalloc = pc->types.zsmalloc && ps_page_is_type(&pc->types, f.head_type, pc->types.zsmalloc);
	uint64_t v;
	/* page.private from the type information, else VMCOREINFO (makedumpfile reads the
	 * free blocks' orders there too) */
	int64_t o_priv = mm_off(w, PS_KI_PAGE_PRIVATE);
	uint64_t vmci_priv;
	if (o_priv < 0 && vmci(w, "OFFSET(page.private)", &vmci_priv) && vmci_priv < pc->psize)
		o_priv = (int64_t)vmci_priv;
	if (fr->buddy && o_priv >= 0 && page_field(w, pfn, o_priv, w->c.ptr_size, &v))
		fr->buddy_order = v;
	else if (fr->buddy)
		fr->buddy_order = PS_UNKNOWN;
	/* struct slab overlays the folio's struct page (5.17+); before, page->slab_cache */
	int64_t o_cache = mm_has(w, PS_KI_SLAB_SLAB_CACHE) ? mm_off(w, PS_KI_SLAB_SLAB_CACHE)
							  : mm_off(w, PS_KI_PAGE_SLAB_CACHE);
	if ((f.pflags & PS_PF(PS_PF_SLAB)) && o_cache >= 0 && page_field(w, fr->head_pfn, o_cache, w->c.ptr_size, &v))
		fr->slab_cache = v;
	return 0;
}

/* ---- the page-table walk of one VMA -------------------------------------------------------- */

struct vwalk {
	struct ps_walker *w;
	const struct mm_space *mm;
	const struct mm_vma *vma;
	struct ps_vma_sum sum;
	/* Pages counted into sum, a run at a time: ps_sum_add_map is linear in npages, and
	 * neighbouring pages mostly have the same bits, mapcount and flags. */
	bool have_sum_run;
	struct ps_map sum_run;
	bool write_runs;
	/* a pending u run (written when something else comes) */
	bool have_u;
	struct ps_unknown_range u;
	char u_reason[64];
	/* page problems, one warn per VMA and kind (a bad region is thousands of pages) */
	uint64_t n_beyond, n_unreadable, n_badhead;
	uint64_t first_beyond, first_unreadable, first_badhead; /* VAs */
};

static void note(uint64_t *n, uint64_t *first, uint64_t va, uint64_t count)
{
	if (!*n)
		*first = va;
	*n += count;
}

static void flush_unknown(struct vwalk *k)
{
	if (!k->have_u)
		return;
	k->have_u = false;
	ps_sum_add_unknown(&k->sum, &k->u);
	k->w->res->unknown_pages += k->u.npages;
	if (k->write_runs && ps_write_unknown(k->w->out, &k->u) < 0)
		k->w->write_failed = true;
}

static void add_unknown(struct vwalk *k, uint64_t va, uint64_t npages, const char *reason)
{
	uint32_t ps = k->w->c.page_size;
	if (k->have_u && strcmp(k->u_reason, reason) == 0 && k->u.vaddr + k->u.npages * ps == va) {
		k->u.npages += npages;
		return;
	}
	flush_unknown(k);
	snprintf(k->u_reason, sizeof k->u_reason, "%s", reason);
	k->u = (struct ps_unknown_range){ .mm = k->mm->id, .vaddr = va, .npages = npages,
					  .reason = k->u_reason };
	k->have_u = true;
}

static void flush_sum_run(struct vwalk *k)
{
	if (k->have_sum_run)
		ps_sum_add_map(&k->sum, &k->sum_run, k->w->c.page_size);
	k->have_sum_run = false;
}

static void emit_map(struct vwalk *k, const struct ps_map *m, bool count_in_sum)
{
	struct ps_walker *w = k->w;
	flush_unknown(k);
	if (count_in_sum) {
		if (k->have_sum_run && ps_sum_same_kind(&k->sum_run, m)) {
			k->sum_run.npages += m->npages;
		} else {
			flush_sum_run(k);
			k->sum_run = *m;
			k->have_sum_run = true;
		}
	}
	w->res->pages += m->npages;
	if (m->excluded)
		w->res->excluded_pages += m->npages;
	if (k->write_runs && ps_write_map(w->out, m) < 0)
		w->write_failed = true;
}

static enum ps_swap_kind swap_kind(const struct mm_page_cache *pc, uint64_t type)
{
	if (pc->have_nr_swapfiles ? type < pc->nr_swapfiles : type < pc->swp_max)
		return PS_SWAP;
	if (type < pc->swp_max)
		return PS_SWAP_OTHER; /* a swap type no device uses: corrupt or stale */
	uint64_t t = type - pc->swp_max;
	if (t < pc->swp_hwpoison)
		return PS_SWAP_HWPOISON;
	t -= pc->swp_hwpoison;
	if (t < pc->swp_migration)
		return PS_SWAP_MIGRATION;
	t -= pc->swp_migration;
	if (t < pc->swp_device)
		return PS_SWAP_DEVICE;
	return PS_SWAP_OTHER; /* PTE marker, swap-in error */
}

/* Without zero_pfn/empty_zero_page (kallsyms without KALLSYMS_ALL has no data symbols):
 * a special PTE outside VM_PFNMAP/VM_MIXEDMAP VMAs can only map the zero page
 * (vm_normal_page() of 6.1 reports anything else as a bad PTE), and the zero page is
 * PG_reserved. 32-bit ARM without LPAE has no pte_special: there a PG_reserved page in a
 * plain anonymous VMA (no file, no vm_ops: not the vdso) can only be the zero page. */
static void learn_zero_pfn(struct vwalk *k, uint64_t pfn)
{
	struct ps_walker *w = k->w;
	struct mm_page_cache *pc = w->pages;
	const uint64_t VM_PFNMAP = 0x400, VM_MIXEDMAP = 0x10000000;
	struct pg g;
	if (k->vma->flags & (VM_PFNMAP | VM_MIXEDMAP) || !load_pg(w, pfn, &g))
		return;
	if (fbit(g.flags, pc->pg_reserved) && !(g.head & 1) && !fbit(g.flags, pc->pg_head)) {
		pc->zero_pfn = pfn;
		memo_clear(pc); /* page_facts flags it now */
	}
}

/* Likewise huge_zero_page: a huge leaf in an anonymous private VMA whose compound page is
 * neither anon nor on an LRU can only be the huge zero page (do_huge_pmd_anonymous_page). */
static void learn_huge_zero_page(struct vwalk *k, uint64_t head_pfn)
{
	struct ps_walker *w = k->w;
	struct mm_page_cache *pc = w->pages;
	const uint64_t VM_SHARED = 0x8, VM_PFNMAP = 0x400, VM_MIXEDMAP = 0x10000000;
	struct pg g;
	if (k->vma->flags & (VM_SHARED | VM_PFNMAP | VM_MIXEDMAP) || !load_pg(w, head_pfn, &g))
		return;
	if (fbit(g.flags, pc->pg_head) && !(g.head & 1) && !(g.mapping & 1) && !fbit(g.flags, pc->pg_lru)) {
		pc->huge_zero_page = page_addr(w, head_pfn);
		memo_clear(pc);
	}
}

static void leaf(struct vwalk *k, uint64_t va, uint64_t npages, unsigned shift, const struct ps_pt_entry *e)
{
	struct ps_walker *w = k->w;
	struct mm_page_cache *pc = w->pages;
	const struct ps_target *t = &w->c.t;
	unsigned pshift = w->c.page_shift;
	uint64_t pfn0 = e->addr >> pshift;
	const uint64_t VM_MIXEDMAP = 0x10000000;
	if (e->kernel_only) {
		/* Not a user mapping any kernel writes (a corrupt table, or a misread one): the
		 * frame it names is not taken for this process's memory. */
		mm_warn(w, k->mm->id, va, "present page-table entry without the user bit in a user "
			"mapping (%" PRIu64 " pages at PFN 0x%" PRIx64 "): not a user page", npages, pfn0);
		add_unknown(k, va, npages, "bad-entry");
		return;
	}
	if (!pc->huge_zero_page && shift > pshift && !k->vma->file)
		learn_huge_zero_page(k, pfn0 - ((va & ((UINT64_C(1) << shift) - 1)) >> pshift));
	if (!pc->memo_tried) {
		pc->memo_tried = true;
		pc->memo = calloc(MEMO_SLOTS, sizeof *pc->memo); /* none: every page's facts read */
	}
	for (uint64_t i = 0; i < npages && !w->write_failed; i++) {
		uint64_t pfn = pfn0 + i, vaddr = va + (i << pshift);
		struct ps_map m = { .mm = k->mm->id, .vaddr = vaddr, .pfn = pfn, .npages = 1,
				    .pte = e->pte, .shift = shift };
		if (w->c.max_pfn && pfn >= w->c.max_pfn) {
			/* VM_MIXEDMAP may map a frame without a struct page through a normal PTE
			 * where the architecture has no pte_special (vm_normal_page() of 6.1 then
			 * asks pfn_valid()): beyond max_pfn it is such a frame, never a bad entry.
			 * Where pte_special exists such frames are special, and a normal PTE
			 * beyond the memory map is what vm_normal_page() calls a bad PTE. */
			if (e->special || (pc->no_pte_special && (k->vma->flags & VM_MIXEDMAP))) {
				/* A PFN map of memory without struct pages (device memory): what
				 * kpageflags says for a frame without a page. Not resident in smaps. */
				m.mapcount = 0;
				m.refcount = PS_UNKNOWN;
				m.pflags = PS_PF(PS_PF_NOPAGE);
				m.pte.known |= 1u << PS_PTE_EXCLUSIVE;
				emit_map(k, &m, false);
				continue;
			}
			uint64_t n = npages - i;
			note(&k->n_beyond, &k->first_beyond, vaddr, n);
			add_unknown(k, vaddr, n, "bad-entry");
			return;
		}
		if (pc->zero_pfn == PS_UNKNOWN && shift == pshift &&
		    (e->special || (pc->no_pte_special && !k->vma->file && !k->vma->ops)))
			learn_zero_pfn(k, pfn);
		struct page_facts f;
		struct facts_memo *me = pc->memo ? &pc->memo[pfn & (MEMO_SLOTS - 1)] : NULL;
		int pr = 0;
		enum ps_read_status st = PS_READ_OK;
		if (me && me->pfn1 == pfn + 1) {
			f.mapcount = me->mapcount, f.refcount = me->refcount, f.pflags = me->pflags;
			st = me->status;
		} else if ((pr = page_facts(w, pfn, &f)) == 0) {
			if (t->ops->pfn_status)
				st = t->ops->pfn_status(t->ctx, pfn);
			if (me)
				*me = (struct facts_memo){ .pfn1 = pfn + 1, .mapcount = f.mapcount,
							   .refcount = f.refcount, .pflags = f.pflags,
							   .status = st };
		}
		if (pr != 0) {
			if (pr == -2)
				note(&k->n_badhead, &k->first_badhead, vaddr, 1);
			else
				note(&k->n_unreadable, &k->first_unreadable, vaddr, 1);
			add_unknown(k, vaddr, 1, pr == -2 ? "bad-entry" : "page-unreadable");
			continue;
		}
		m.mapcount = f.mapcount;
		m.refcount = f.refcount;
		m.pflags = f.pflags;
		/* pagemap's "exclusively mapped" (bit 56): vm_normal_page() exists and
		 * page_mapcount() == 1 (fs/proc/task_mmu.c of 6.1). */
		m.pte.known |= 1u << PS_PTE_EXCLUSIVE;
		m.pte.set &= (uint8_t)~(1u << PS_PTE_EXCLUSIVE);
		if (!e->special && f.mapcount == 1)
			m.pte.set |= 1u << PS_PTE_EXCLUSIVE;
		if (st == PS_READ_EXCLUDED) {
			m.excluded = true;
			m.reason = "dumplevel";
		} else if (st != PS_READ_OK) {
			m.excluded = true;
			m.reason = "missing";
		}
		/* smaps counts only what vm_normal_page() finds: special PTEs (PFN maps, the
		 * zero page) are not resident there. */
		emit_map(k, &m, !e->special && pfn != pc->zero_pfn);
	}
}

static int visit(void *arg, enum ps_pt_event ev, uint64_t va, uint64_t npages, unsigned shift,
		 const struct ps_pt_entry *e)
{
	struct vwalk *k = arg;
	struct ps_walker *w = k->w;
	if (w->write_failed)
		return 1;
	switch (ev) {
	case PS_PT_EV_LEAF:
		leaf(k, va, npages, shift, e);
		break;
	case PS_PT_EV_SWAP: {
		flush_unknown(k);
		struct ps_swap s = { .mm = k->mm->id, .vaddr = va, .npages = npages, .type = e->swp_type,
				     .offset = e->swp_off, .kind = swap_kind(w->pages, e->swp_type) };
		ps_sum_add_swap(&k->sum, &s);
		w->res->swap_entries += npages;
		if (k->write_runs && ps_write_swap(w->out, &s) < 0)
			w->write_failed = true;
		break;
	}
	case PS_PT_EV_UNREADABLE: {
		/* pgtable.c names the read status in e->why. */
		bool excluded = e && e->why && strcmp(e->why, ps_read_status_name(PS_READ_EXCLUDED)) == 0;
		const char *why = excluded ? "pgtable-excluded" : "pgtable-unreadable";
		mm_warn(w, k->mm->id, va, "page table covering %" PRIu64 " pages unreadable: %s", npages,
			e && e->why ? e->why : "?");
		add_unknown(k, va, npages, why);
		break;
	}
	case PS_PT_EV_BAD:
		mm_warn(w, k->mm->id, va, "bad page-table entry covering %" PRIu64 " pages: %s", npages,
			e && e->why ? e->why : "?");
		add_unknown(k, va, npages, "bad-entry");
		break;
	}
	return w->write_failed ? 1 : 0;
}

int mm_walk_vma_pages(struct ps_walker *w, const struct mm_space *mm, uint64_t top,
		      const struct mm_vma *v)
{
	struct vwalk k = { .w = w, .mm = mm, .vma = v,
			   .write_runs = w->opt->detail == PS_DETAIL_PAGES };
	k.sum.mm = mm->id;
	k.sum.start = v->start;
	/* VM_PFNMAP VMAs (vvar, device memory) have no struct pages behind them: the kernel's
	 * page walks skip them (mm/pagewalk.c walk_page_test), so pagemap shows them as holes
	 * and smaps counts nothing there. So do the records. */
	const uint64_t VM_PFNMAP = 0x400;
	if (v->flags & VM_PFNMAP) {
		if (!w->write_failed && ps_write_sum(w->out, &k.sum) < 0)
			w->write_failed = true;
		return 0;
	}
	w->c.pt_trace = w->trace;
	w->c.pt_trace_id = mm->id;
	w->c.err[0] = 0;
	int r = ps_pt_walk(&w->c, top, v->start, v->end, visit, &k);
	w->c.pt_trace = NULL;
	if (r < 0 && w->c.err[0])
		mm_warn(w, mm->id, v->start, "page-table walk failed: %s", w->c.err);
	flush_unknown(&k);
	flush_sum_run(&k);
	if (k.n_beyond)
		mm_warn(w, mm->id, k.first_beyond, "%" PRIu64 " pages map frames beyond the end of memory "
			"(max_pfn %" PRIx64 "): bad page-table entries", k.n_beyond, w->c.max_pfn);
	if (k.n_unreadable)
		mm_warn(w, mm->id, k.first_unreadable, "%" PRIu64 " pages: struct page unreadable", k.n_unreadable);
	if (k.n_badhead)
		mm_warn(w, mm->id, k.first_badhead, "%" PRIu64 " pages: struct page with a bad compound_head",
			k.n_badhead);
	if (!w->write_failed && ps_write_sum(w->out, &k.sum) < 0)
		w->write_failed = true;
	return r < 0 && !w->c.err[0] ? -1 : 0;
}
