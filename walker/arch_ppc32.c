/* arch_ppc32.c - 32-bit PowerPC Book-E page tables (e500 with 64- or 32-bit PTEs, 44x) and
 * the kernel's address layout (Linux 6.1, arch/powerpc/include/asm/nohash/).
 *
 * Two levels (nohash/32/pgtable.h): a PGD of 4-byte entries (8-byte on e500 with 64-bit PTEs
 * since 6.11, 6b0e82791bd0: sizeof(pmd_t) from vm_fault.orig_pmd, else kversion.c; the
 * PTE page's address is then in the entry's low word, and an entry with _PAGE_PSIZE bits is a
 * huge page's PTE, reported as a bad entry, not read) and PTE pages of
 * 1 << PTE_SHIFT entries, PTE_SHIFT = PAGE_SHIFT - log2(sizeof(pte_t)) (two less with
 * 256K pages), PGDIR_SHIFT = PAGE_SHIFT + PTE_SHIFT. On Book-E a PGD entry holds the
 * KERNEL-VIRTUAL (lowmem) address of its PTE page; _PMD_BAD = ~PAGE_MASK.
 * pfn = pte >> PTE_RPN_SHIFT. Swap: __pte_to_swp_entry = pte >> 3 into a 32-bit
 * swp_entry_t, type its bits 0-4, offset the rest. pte_none ignores _PTE_NONE_MASK (the
 * upper word of 64-bit PTEs: pte_update clears with an unsigned long mask).
 *
 *  flavour         PTE  RPN shift  PRESENT USER          RW     EXEC   ACC     DIRTY  SPECIAL
 *  e500, 64-bit    8    24         0x1     SR|UR 0xc     0x30   0xc0   0x40000 0x1000 0x2000
 *    (nohash/pte-e500.h, CONFIG_PTE_64BIT)
 *  e500, 32-bit    4    PAGE_SHIFT 0x1     0x2           0x4    0x10   0x20    0x8    0x800
 *    (nohash/32/pte-85xx.h)
 *  44x             8    PAGE_SHIFT 0x1     0x40          0x2    0x4    0x8     0x10   0x20
 *    (nohash/32/pte-44x.h; 44x selects PHYS_64BIT, so its PTEs are always 64-bit)
 *
 * Which MMU: nothing of it is in VMCOREINFO, so the kernel's own symbols say (e500:
 * loadcam_entry, map_mem_in_cams; 44x: head_44x.S's finish_tlb_load_44x, ppc44x_pin_tlb;
 * classic book3s32: hash_page and its hash-table helpers, refused: its PTEs are a hash MMU's
 * Linux view, not these). No symbol of any: refused rather than guessed, except for the
 * first setup of a dump whose symbols come later with the type information (only the
 * linear map is used until then). e500's PTE width is sizeof(pte_t) (vm_fault.orig_pte in
 * the type information), else what the kernel's own PTEs show. Page size: e500 has 4K pages
 * only (CONFIG_PPC_4K_PAGES); 44x has 4K/16K/64K/256K, which the dump or VMCOREINFO must say.
 *
 * Kernel addresses: lowmem is linear from PAGE_OFFSET, pa = va - VIRT_PHYS_OFFSET
 * (page.h: the virt_phys_offset variable on relocatable kernels, KERNELBASE -
 * PHYSICAL_START otherwise), up to high_memory; the rest (vmalloc, ioremap) through
 * swapper_pg_dir. Without high_memory, lowmem ends at max_pfn (CONFIG_LOWMEM_SIZE at most),
 * and before the first swapper_pg_dir slot that does not map linearly (vmalloc starts 16 MiB
 * above the real end, which e500's TLB1 CAM sizes may set below max_pfn).
 */
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "kversion.h"

enum ppc32_flavour { PPC32_E500_64, PPC32_E500_32, PPC32_44X };

struct ppc32_bits {
	const char *name;
	unsigned pte_size, rpn_shift; /* rpn_shift 0: PAGE_SHIFT (nohash/32/pgtable.h default) */
	uint64_t none_mask; /* _PTE_NONE_MASK */
	uint64_t present, user, rw, exec, accessed, dirty, special;
};

static const struct ppc32_bits flavours[] = {
	[PPC32_E500_64] = { "e500 (64-bit PTEs)", 8, 24, UINT64_C(0xffffffff00000000), 0x1, 0xc, 0x30, 0xc0,
			    0x40000, 0x1000, 0x2000 },
	[PPC32_E500_32] = { "e500 (32-bit PTEs)", 4, 0, 0, 0x1, 0x2, 0x4, 0x10, 0x20, 0x8, 0x800 },
	[PPC32_44X] = { "44x", 8, 0, UINT64_C(0xffffffff00000000), 0x1, 0x40, 0x2, 0x4, 0x8, 0x10, 0x20 },
};

/* CONFIG_LOWMEM_SIZE's default: the most lowmem a Book-E kernel maps linearly. */
#define PPC32_LOWMEM_MAX UINT64_C(0x30000000)

struct ppc32_state {
	enum ppc32_flavour flavour;
	const struct ppc32_bits *b;
	bool provisional;     /* MMU not known yet: only the linear map is used */
	uint64_t page_offset;
	uint64_t phys_start;  /* PA of PAGE_OFFSET (PAGE_OFFSET - VIRT_PHYS_OFFSET) */
	uint64_t lowmem_end;  /* VA end of the linear map */
	uint64_t kernel_pgd;  /* PA of swapper_pg_dir, 0 if unknown */
	unsigned pgd_entry_size; /* sizeof(pgd_t): 4, or 8 (e500 64-bit PTEs, 6.11+) */
};

static inline const struct ppc32_state *st(const struct ps_core *c)
{
	return c->arch_priv;
}

static bool ppc32_kvtop_direct(const struct ps_core *c, uint64_t va, uint64_t *pa)
{
	const struct ppc32_state *s = st(c);
	if (!s || va < s->page_offset || va >= s->lowmem_end)
		return false;
	*pa = va - s->page_offset + s->phys_start;
	return true;
}

static void ppc32_decode(const struct ps_core *c, unsigned level, uint64_t raw, struct ps_pt_entry *e)
{
	const struct ppc32_state *s = st(c);
	if (!s || s->provisional) {
		e->kind = PS_PT_BAD;
		e->why = "ppc32: MMU not known yet";
		return;
	}
	const struct ppc32_bits *b = s->b;
	if (level == 0) {
		/* pmd_none / pmd_bad; the entry is the PTE page's kernel address. */
		uint64_t pmask = (uint64_t)c->page_size - 1;
		uint64_t table_mask = ((uint64_t)b->pte_size << c->geom.levels[1].bits) - 1;
		if (raw & pmask & table_mask) {
			e->kind = PS_PT_BAD;
			e->why = s->pgd_entry_size == 8 && (raw & 0xf00)
					 ? "PGD entry holding a huge page's PTE (contiguous PMD, 6.11+): not read"
					 : "PGD entry with low bits set (_PMD_BAD; hugepd is not read)";
			return;
		}
		uint64_t pa;
		if (!ppc32_kvtop_direct(c, raw, &pa)) {
			e->kind = PS_PT_BAD;
			e->why = "PGD entry pointing outside lowmem";
			return;
		}
		e->kind = PS_PT_TABLE;
		e->addr = raw;
		e->next_is_kvaddr = true;
		return;
	}
	if ((raw & ~b->none_mask) == 0) {
		e->kind = PS_PT_NONE;
		return;
	}
	if (!(raw & b->present)) {
		uint32_t val = (uint32_t)(raw >> 3); /* __pte_to_swp_entry */
		e->kind = PS_PT_SWAP;
		e->swp_type = val & 0x1f;
		e->swp_off = val >> 5;
		return;
	}
	e->kind = PS_PT_LEAF;
	e->addr = (raw >> (b->rpn_shift ? b->rpn_shift : c->page_shift)) << c->page_shift;
	/* Book-E PTEs have no soft-dirty and no global bit; exclusivity is not in a present PTE. */
	e->pte.known = (uint8_t)(((1u << PS_PTE_NBITS) - 1) &
				 ~((1u << PS_PTE_SOFTDIRTY) | (1u << PS_PTE_EXCLUSIVE) | (1u << PS_PTE_GLOBAL)));
	e->pte.set = (uint8_t)((!!(raw & b->rw) << PS_PTE_WRITE) | (!!(raw & b->exec) << PS_PTE_EXEC) |
			       (((raw & b->user) == b->user) << PS_PTE_USER) |
			       (!!(raw & b->accessed) << PS_PTE_ACCESSED) | (!!(raw & b->dirty) << PS_PTE_DIRTY));
	e->special = raw & b->special;
}

static uint64_t ppc32_kernel_pgd(const struct ps_core *c)
{
	return st(c) && !st(c)->provisional ? st(c)->kernel_pgd : 0;
}

static uint64_t ppc32_pfn_to_page(const struct ps_core *c, uint64_t pfn)
{
	(void)c, (void)pfn;
	return 0; /* FLATMEM mem_map (page.c) */
}

static uint64_t ppc32_user_pgd(const struct ps_core *c, uint64_t mm_pgd)
{
	uint64_t pa;
	return ppc32_kvtop_direct(c, mm_pgd, &pa) ? pa : 0;
}

/* ---- setup ------------------------------------------------------------------------- */

/* A kernel variable read through the candidate linear map. */
static bool read_var(struct ps_core *c, const struct ppc32_state *s, uint64_t phys_start, uint64_t va,
		     unsigned size, uint64_t *out)
{
	uint8_t b[8];
	if (!va || va < s->page_offset || (size != 4 && size != 8) ||
	    ps_pread(c, va - s->page_offset + phys_start, b, size) != PS_READ_OK)
		return false;
	*out = size == 8 ? ps_load_u64(c, b) : ps_load_u32(c, b);
	return true;
}

/* Whether lowmem starts at PHYS: virt_phys_offset (long long, relocatable kernels) holds
 * PAGE_OFFSET - PHYS, and init_mm.pgd holds swapper_pg_dir. 1 yes, 0 no, -1 nothing known
 * to tell. */
static int phys_start_fits(struct ps_core *c, const struct ppc32_state *s, uint64_t phys)
{
	int verdict = -1;
	uint64_t sym, v;
	if (ps_core_symbol_by_name(c, "virt_phys_offset", &sym) == 0) {
		/* The kernel's .data must be there; 0: a kernel that never relocated itself. */
		if (!read_var(c, s, phys, sym, 8, &v))
			return 0;
		if (v && (uint32_t)v != (uint32_t)(s->page_offset - phys))
			return 0;
		if (v)
			verdict = 1;
	}
	uint64_t mm, pgd;
	if (c->have_kinfo && ps_ki_has(&c->ki, PS_KI_MM_PGD) && c->sym[PS_KI_INIT_MM] &&
	    ps_core_symbol_by_name(c, "swapper_pg_dir", &pgd) == 0) {
		mm = c->sym[PS_KI_INIT_MM] + (uint64_t)c->ki.member[PS_KI_MM_PGD].offset;
		if (!read_var(c, s, phys, mm, 4, &v))
			return 0;
		if (v != pgd)
			return 0;
		verdict = 1;
	}
	return verdict;
}

static int find_phys_start(struct ps_core *c, struct ppc32_state *s)
{
	int v = phys_start_fits(c, s, 0);
	if (v != 0) {
		s->phys_start = 0; /* the usual (and, unverifiable, the assumed) place */
		return 0;
	}
	/* A relocated kernel: 64 MiB aligned (the e500 boot TLB entry's size). */
	for (uint64_t p = UINT64_C(0x4000000); p < (UINT64_C(1) << 32); p += UINT64_C(0x4000000))
		if (phys_start_fits(c, s, p) == 1) {
			s->phys_start = p;
			return 0;
		}
	return -1;
}

/* The MMU families told apart by the kernel's symbols (functions first: kallsyms without
 * KALLSYMS_ALL has no data symbols). */
enum ppc32_family { FAM_E500, FAM_44X, FAM_BOOK3S32, FAM_NONE };
static const struct {
	const char *name;
	const char *syms[5];
} families[] = {
	[FAM_E500] = { "e500", { "loadcam_entry", "map_mem_in_cams", "tlbcam_index" } },
	[FAM_44X] = { "44x", { "finish_tlb_load_44x", "ppc44x_pin_tlb", "tlb_44x_index", "tlb_44x_hwater" } },
	[FAM_BOOK3S32] = { "book3s32", { "hash_page", "add_hash_page", "flush_hash_pages" } },
};

/* The family whose symbols the kernel has; FAM_NONE if none. -1 (c->err) if two families
 * claim it. *which: the symbol that told. */
static int find_family(struct ps_core *c, enum ppc32_family *fam, const char **which)
{
	*fam = FAM_NONE;
	*which = NULL;
	for (int f = FAM_E500; f < FAM_NONE; f++) {
		uint64_t a;
		for (const char *const *n = families[f].syms; *n; n++) {
			if (ps_core_symbol_by_name(c, *n, &a) != 0)
				continue;
			if (*fam != FAM_NONE)
				return ps_core_fail(c, "ppc32: the kernel has both %s (%s) and %s (%s) symbols: "
						    "not one known MMU", families[*fam].name, *which,
						    families[f].name, *n);
			*fam = (enum ppc32_family)f;
			*which = *n;
			break;
		}
	}
	return 0;
}

/* e500's PTE width when the type information does not give sizeof(pte_t): 64-bit PTEs
 * carry the page-size field 4K (0x200) in every present entry of the kernel's tables;
 * 32-bit ones read in pairs do not (their cache-inhibit bit is clear for memory). 0: no
 * present kernel PTE to tell. */
static unsigned guess_e500_pte_size(struct ps_core *c, const struct ppc32_state *s)
{
	if (!s->kernel_pgd)
		return 0;
	/* 2048 entries with 64-bit PTEs, 1024 with 32-bit ones (the second page is then other
	 * data, which the checks below skip). */
	uint8_t pgd[8192];
	size_t len = sizeof pgd;
	if (ps_pread(c, s->kernel_pgd, pgd, len) != PS_READ_OK) {
		len = 4096;
		if (ps_pread(c, s->kernel_pgd, pgd, len) != PS_READ_OK)
			return 0;
	}
	unsigned e500 = 0, other = 0;
	for (size_t i = 0; i < len; i += 4) {
		uint64_t t = ps_load_u32(c, pgd + i), pa;
		uint8_t pt[4096];
		if (!t || (t & 0xfff) || !ppc32_kvtop_direct(c, t, &pa) || ps_pread(c, pa, pt, sizeof pt) != PS_READ_OK)
			continue;
		for (size_t j = 0; j < sizeof pt; j += 8) {
			uint64_t pte = ps_load_u64(c, pt + j);
			if (pte & 1)
				((pte & 0xf00) == 0x200 ? e500++ : other++);
		}
		if (e500 + other >= 64)
			break;
	}
	if (e500 + other == 0)
		return 0;
	return e500 > other * 8 ? 8 : 4;
}

/* Lowmem's end without high_memory (ppc32_init): max_pfn's, then no further than the first
 * slot of swapper_pg_dir whose first page does not map linearly (vmalloc, ioremap; lowmem
 * that the tables map is linear there, and stays direct). */
static void lowmem_end_from_max_pfn(struct ps_core *c, struct ppc32_state *s)
{
	uint64_t max_pfn = 0, sym;
	if (ps_core_symbol_by_name(c, "max_pfn", &sym) != 0 || !read_var(c, s, s->phys_start, sym, 4, &max_pfn))
		max_pfn = 0;
	if (!max_pfn)
		max_pfn = c->max_pfn; /* the dump's extent */
	uint64_t ram_end = max_pfn << c->page_shift;
	if (max_pfn && ram_end > s->phys_start && ram_end - s->phys_start < s->lowmem_end - s->page_offset)
		s->lowmem_end = s->page_offset + (ram_end - s->phys_start);
	if (!s->kernel_pgd || s->provisional)
		return;
	const struct ps_pt_level *l0 = &c->geom.levels[0];
	for (uint64_t va = s->page_offset; va < s->lowmem_end; va += UINT64_C(1) << l0->shift) {
		uint8_t b[8];
		if (ps_pread(c, s->kernel_pgd + (va >> l0->shift) * l0->entry_size, b, l0->entry_size) != PS_READ_OK)
			return;
		uint64_t table = l0->entry_size == 8 ? ps_load_u64(c, b) : ps_load_u32(c, b), pa;
		if (!table)
			continue;
		struct ps_pt_entry e = { 0 };
		if (ppc32_kvtop_direct(c, table, &pa) && ps_pread(c, pa, b, s->b->pte_size) == PS_READ_OK) {
			uint64_t raw = s->b->pte_size == 8 ? ps_load_u64(c, b) : ps_load_u32(c, b);
			ppc32_decode(c, 1, raw, &e);
		}
		if (e.kind != PS_PT_LEAF || e.addr != va - s->page_offset + s->phys_start) {
			s->lowmem_end = va;
			return;
		}
	}
}

static int ppc32_init(struct ps_core *c)
{
	if (c->ptr_size != 4)
		return ps_core_fail(c, "ppc32: pointer size %u, expected 4", c->ptr_size);
	if (!c->big_endian)
		return ps_core_fail(c, "ppc32: a little-endian dump (only big-endian Book-E kernels are read)");
	struct ppc32_state *s = calloc(1, sizeof *s);
	if (!s)
		return ps_core_fail(c, "ppc32: out of memory");
	free(c->arch_priv);
	c->arch_priv = s;
	s->provisional = true; /* until the MMU is known */

	/* PAGE_OFFSET = KERNELBASE (CONFIG_KERNEL_START) on these kernels: _stext's 256 MiB. */
	uint64_t stext;
	s->page_offset = UINT64_C(0xc0000000);
	if (ps_core_symbol_by_name(c, "_stext", &stext) == 0 && stext >= UINT64_C(0x40000000) &&
	    stext <= UINT32_MAX)
		s->page_offset = stext & ~UINT64_C(0xfffffff);
	s->lowmem_end = s->page_offset + PPC32_LOWMEM_MAX;
	if (s->lowmem_end > UINT32_MAX)
		s->lowmem_end = UINT64_C(1) << 32;
	if (find_phys_start(c, s) != 0)
		return ps_core_fail(c, "ppc32: no physical address holds the kernel's lowmem (virt_phys_offset and "
				    "init_mm.pgd do not match anywhere)");
	uint64_t hm_sym, hm;
	bool have_high_memory = ps_core_symbol_by_name(c, "high_memory", &hm_sym) == 0 &&
				ps_kread_ptr(c, hm_sym, &hm) == PS_READ_OK && hm > s->page_offset &&
				hm <= s->lowmem_end;
	if (have_high_memory)
		s->lowmem_end = hm;
	else
		lowmem_end_from_max_pfn(c, s); /* the max_pfn bound; the tables' once they are known */
	uint64_t sw;
	if (ps_core_symbol_by_name(c, "swapper_pg_dir", &sw) == 0 && !ppc32_kvtop_direct(c, sw, &s->kernel_pgd))
		s->kernel_pgd = 0;

	struct ps_pt_geometry *g = &c->geom;
	memset(g, 0, sizeof *g); /* no levels: nothing is walked while provisional */
	g->entries_big_endian = true;
	g->user_va_end = s->page_offset; /* TASK_SIZE = CONFIG_TASK_SIZE = PAGE_OFFSET here */

	enum ppc32_family fam;
	const char *which;
	if (find_family(c, &fam, &which) != 0)
		return -1;
	if (fam == FAM_BOOK3S32)
		return ps_core_fail(c, "ppc32: a book3s32 kernel (%s): book3s32 (hash MMU) is not supported, only "
				    "Book-E e500 and 44x page tables", which);
	if (fam == FAM_NONE) {
		if (!c->have_kinfo)
			return 0; /* the type information may bring the symbols */
		return ps_core_fail(c, "ppc32: MMU not recognised: the kernel has none of e500's loadcam_entry/"
				    "map_mem_in_cams, 44x's finish_tlb_load_44x/ppc44x_pin_tlb or book3s32's "
				    "hash_page (give --system-map or --vmlinux)");
	}

	uint32_t pte_size = 0;
	if (c->have_kinfo && ps_ki_has(&c->ki, PS_KI_VM_FAULT_ORIG_PTE))
		pte_size = c->ki.member[PS_KI_VM_FAULT_ORIG_PTE].size; /* sizeof(pte_t) */
	if (pte_size && pte_size != 4 && pte_size != 8)
		return ps_core_fail(c, "ppc32: sizeof(pte_t) is %u", pte_size);
	unsigned ps = c->page_shift;
	if (fam == FAM_44X) {
		if (!c->t.page_size && !ps_core_vmcoreinfo(c, "PAGESIZE"))
			return ps_core_fail(c, "ppc32: a 44x kernel (%s) has 4K, 16K, 64K or 256K pages, and neither "
					    "the dump nor VMCOREINFO (PAGESIZE) says which", which);
		if (pte_size == 4)
			return ps_core_fail(c, "ppc32: a 44x kernel (%s) with 32-bit PTEs (44x has 64-bit ones)", which);
		s->flavour = PPC32_44X;
		if (ps != 12 && ps != 14 && ps != 16 && ps != 18)
			return ps_core_fail(c, "ppc32: page size %u is not one a 44x kernel has", c->page_size);
	} else {
		if (ps != 12)
			return ps_core_fail(c, "ppc32: page size %u on an e500 kernel (%s), which has 4K pages only",
					    c->page_size, which);
		if (!pte_size)
			pte_size = guess_e500_pte_size(c, s);
		if (!pte_size) {
			if (!c->have_kinfo)
				return 0;
			return ps_core_fail(c, "ppc32: e500 kernel with 64- or 32-bit PTEs: neither the type information "
					    "(vm_fault.orig_pte) nor the kernel's own page tables say which");
		}
		s->flavour = pte_size == 8 ? PPC32_E500_64 : PPC32_E500_32;
	}
	s->b = &flavours[s->flavour];
	uint32_t pgd_size = 0;
	if (c->have_kinfo && ps_ki_has(&c->ki, PS_KI_VM_FAULT_ORIG_PMD))
		pgd_size = c->ki.member[PS_KI_VM_FAULT_ORIG_PMD].size; /* sizeof(pmd_t) = sizeof(pgd_t) */
	if (pgd_size && pgd_size != 4 && pgd_size != 8)
		return ps_core_fail(c, "ppc32: sizeof(pmd_t) is %u", pgd_size);
	if (!pgd_size)
		pgd_size = s->flavour == PPC32_44X ? 4
			   : ps_ppc32_e500_pgd_entry_size(ps_kver_parse(c->release), s->flavour == PPC32_E500_64, NULL);
	s->pgd_entry_size = pgd_size;
	s->provisional = false;

	unsigned pte_shift = ps - (s->b->pte_size == 8 ? 3 : 2) - (ps == 18 ? 2 : 0);
	g->nlevels = 2;
	g->levels[0] = (struct ps_pt_level){ .shift = ps + pte_shift, .bits = 32 - ps - pte_shift,
					     .entry_size = s->pgd_entry_size };
	g->levels[1] = (struct ps_pt_level){ .shift = ps, .bits = pte_shift, .entry_size = s->b->pte_size };
	if (!have_high_memory)
		lowmem_end_from_max_pfn(c, s);
	return 0;
}

const struct ps_arch ps_arch_ppc32 = {
	.name = "ppc32",
	.init = ppc32_init,
	.decode = ppc32_decode,
	.kvtop_direct = ppc32_kvtop_direct,
	.kernel_pgd = ppc32_kernel_pgd,
	.pfn_to_page = ppc32_pfn_to_page,
	.user_pgd = ppc32_user_pgd,
};
