/* arch_ppc32.c - 32-bit PowerPC Book-E page tables (e500 with 64- or 32-bit PTEs, 44x) and
 * the kernel's address layout (Linux 6.1, arch/powerpc/include/asm/nohash/).
 *
 * Two levels (nohash/32/pgtable.h): a PGD of 4-byte entries and PTE pages of
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
 *    (nohash/32/pte-44x.h)
 *
 * Kernel addresses: lowmem is linear from PAGE_OFFSET, pa = va - VIRT_PHYS_OFFSET
 * (page.h: the virt_phys_offset variable on relocatable kernels, KERNELBASE -
 * PHYSICAL_START otherwise), up to high_memory; the rest (vmalloc, ioremap) through
 * swapper_pg_dir. The flavour comes from sizeof(pte_t) (vm_fault.orig_pte in the type
 * information) and, for 64-bit PTEs, whether the kernel has e500's tlbcam_index or 44x's
 * tlb_44x_index; nothing of it is in VMCOREINFO.
 */
#include <stdlib.h>
#include <string.h>

#include "core.h"

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

struct ppc32_state {
	enum ppc32_flavour flavour;
	const struct ppc32_bits *b;
	uint64_t page_offset;
	uint64_t phys_start;  /* PA of PAGE_OFFSET (PAGE_OFFSET - VIRT_PHYS_OFFSET) */
	uint64_t lowmem_end;  /* VA end of the linear map */
	uint64_t kernel_pgd;  /* PA of swapper_pg_dir, 0 if unknown */
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
	const struct ppc32_bits *b = s ? s->b : &flavours[PPC32_E500_64];
	if (level == 0) {
		/* pmd_none / pmd_bad; the entry is the PTE page's kernel address. */
		uint64_t pmask = (uint64_t)c->page_size - 1;
		uint64_t table_mask = ((uint64_t)b->pte_size << c->geom.levels[1].bits) - 1;
		if (raw & pmask & table_mask) {
			e->kind = PS_PT_BAD;
			e->why = "PGD entry with low bits set (_PMD_BAD; hugepd is not read)";
			return;
		}
		uint64_t pa;
		if (s && !ppc32_kvtop_direct(c, raw, &pa)) {
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
	return st(c) ? st(c)->kernel_pgd : 0;
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

/* The flavour when the type information does not give sizeof(pte_t): e500's 64-bit PTEs
 * carry the page-size field 4K (0x200) in every present entry of the kernel's tables;
 * 32-bit ones read in pairs do not (their cache-inhibit bit is clear for memory). Without
 * a present kernel PTE to tell: 64-bit. */
static enum ppc32_flavour guess_flavour(struct ps_core *c, const struct ppc32_state *s)
{
	uint64_t sw;
	if (!s->kernel_pgd || ps_core_symbol_by_name(c, "swapper_pg_dir", &sw) != 0)
		return PPC32_E500_64;
	/* 2048 entries with 64-bit PTEs, 1024 with 32-bit ones (the second page is then other
	 * data, which the checks below skip). */
	uint8_t pgd[8192];
	size_t len = sizeof pgd;
	if (ps_pread(c, s->kernel_pgd, pgd, len) != PS_READ_OK) {
		len = 4096;
		if (ps_pread(c, s->kernel_pgd, pgd, len) != PS_READ_OK)
			return PPC32_E500_64;
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
	return e500 + other == 0 || e500 > other * 8 ? PPC32_E500_64 : PPC32_E500_32;
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

	/* PAGE_OFFSET = KERNELBASE (CONFIG_KERNEL_START) on these kernels: _stext's 256 MiB. */
	uint64_t stext;
	s->page_offset = UINT64_C(0xc0000000);
	if (ps_core_symbol_by_name(c, "_stext", &stext) == 0 && stext >= UINT64_C(0x40000000) &&
	    stext <= UINT32_MAX)
		s->page_offset = stext & ~UINT64_C(0xfffffff);
	s->lowmem_end = s->page_offset + UINT64_C(0x30000000); /* CONFIG_LOWMEM_SIZE's default */
	if (s->lowmem_end > UINT32_MAX)
		s->lowmem_end = UINT64_C(1) << 32;
	if (find_phys_start(c, s) != 0)
		return ps_core_fail(c, "ppc32: no physical address holds the kernel's lowmem (virt_phys_offset and "
				    "init_mm.pgd do not match anywhere)");
	uint64_t hm_sym, hm;
	if (ps_core_symbol_by_name(c, "high_memory", &hm_sym) == 0 && ps_kread_ptr(c, hm_sym, &hm) == PS_READ_OK &&
	    hm > s->page_offset && hm <= s->lowmem_end)
		s->lowmem_end = hm;
	uint64_t sw;
	if (ps_core_symbol_by_name(c, "swapper_pg_dir", &sw) == 0 && !ppc32_kvtop_direct(c, sw, &s->kernel_pgd))
		s->kernel_pgd = 0;

	/* The flavour: sizeof(pte_t) from the type information, e500 or 44x by their symbols. */
	uint32_t pte_size = 0;
	if (c->have_kinfo && ps_ki_has(&c->ki, PS_KI_VM_FAULT_ORIG_PTE))
		pte_size = c->ki.member[PS_KI_VM_FAULT_ORIG_PTE].size;
	bool is_44x = c->have_kinfo && c->sym[PS_KI_TLB_44X_INDEX] && !c->sym[PS_KI_TLBCAM_INDEX];
	if (pte_size == 4)
		s->flavour = PPC32_E500_32;
	else if (pte_size == 8)
		s->flavour = is_44x ? PPC32_44X : PPC32_E500_64;
	else if (pte_size)
		return ps_core_fail(c, "ppc32: sizeof(pte_t) is %u", pte_size);
	else if (is_44x || c->page_shift != 12)
		s->flavour = PPC32_44X; /* e500 has 4K pages only */
	else
		s->flavour = guess_flavour(c, s);
	s->b = &flavours[s->flavour];

	unsigned ps = c->page_shift;
	if (s->flavour != PPC32_44X ? ps != 12 : (ps != 12 && ps != 14 && ps != 16 && ps != 18))
		return ps_core_fail(c, "ppc32: page size %u is not one a %s kernel has", c->page_size, s->b->name);
	unsigned pte_shift = ps - (s->b->pte_size == 8 ? 3 : 2) - (ps == 18 ? 2 : 0);
	struct ps_pt_geometry *g = &c->geom;
	memset(g, 0, sizeof *g);
	g->nlevels = 2;
	g->levels[0] = (struct ps_pt_level){ .shift = ps + pte_shift, .bits = 32 - ps - pte_shift, .entry_size = 4 };
	g->levels[1] = (struct ps_pt_level){ .shift = ps, .bits = pte_shift, .entry_size = s->b->pte_size };
	g->entries_big_endian = true;
	g->user_va_end = s->page_offset; /* TASK_SIZE = CONFIG_TASK_SIZE = PAGE_OFFSET here */
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
