/* arch_arm.c - 32-bit ARM page tables (ARMv7 short descriptors, and LPAE) and the kernel's
 * address layout (Linux 6.1).
 *
 * Short descriptors (arch/arm/include/asm/pgtable-2level.h): Linux's pgd has 2048 entries of
 * two 32-bit hardware L1 descriptors (pgd_t is a pair, PGDIR_SHIFT 21, the PMD folded). A
 * PTE page holds "linux pt 0, linux pt 1, h/w pt 0, h/w pt 1": the first word of the pair
 * points at h/w pt 0 (page + 2048), and Linux finds its own 512 PTEs at the start of that
 * page (pmd_page_vaddr masks PAGE_MASK), which is what is walked here. Linux PTE bits:
 * PRESENT 0, YOUNG 1, DIRTY 6, RDONLY 7, USER 8, XN 9, SHARED 10, NONE 11 (PROT_NONE, still
 * present). No pte_special without LPAE. Swap (pgtable.h): type bits 2-6, bits 0-1 clear,
 * offset from bit 7, or from bit 8 since 6.3 with bit 7 the exclusive marker (kversion.c). Kernel lowmem is mapped by 1 MiB sections (type 0b10), one pair = 2 MiB.
 *
 * LPAE (pgtable-3level.h, -3level-hwdef.h): 3 levels of 64-bit descriptors, PGD 4 entries
 * (shift 30), PMD and PTE 512 each; table 0b11, PMD block 0b01 (2 MiB); PTE: PRESENT bits
 * 0-1, USER 6, YOUNG (AF) 10, XN 54, DIRTY 55, SPECIAL 56, NONE 57, RDONLY 58; addresses
 * bits 12-39. Swap as above in the low word. A PROT_NONE huge PMD is stored with its valid
 * bit clear and L_PMD_SECT_NONE (bit 57) set (set_pmd_at): pmd_present() is false, so
 * pagemap and smaps show nothing there, and neither does the walk.
 *
 * Which layout: sizeof(pte_t) from the type information (8 with LPAE), else VMCOREINFO
 * (arch_crash_save_vmcoreinfo writes CONFIG_ARM_LPAE=y on LPAE kernels only), else the
 * short-descriptor layout first; without the type information or that line, the other
 * layout is tried when the kernel's own tables do not fit the first.
 *
 * Kernel addresses: lowmem at PAGE_OFFSET is linear, pa = va - PAGE_OFFSET + PHYS_OFFSET
 * (PHYS_OFFSET = __pv_phys_pfn_offset << PAGE_SHIFT with ARM_PATCH_PHYS_VIRT) up to
 * high_memory; everything else through swapper_pg_dir. Without VMCOREINFO (QEMU dumps of
 * armhf guests) PHYS_OFFSET is found by checking candidates against the kernel's own
 * tables: swapper_pg_dir's entry for PAGE_OFFSET must map PHYS_OFFSET, and
 * __pv_phys_pfn_offset, where known, must hold PHYS_OFFSET >> PAGE_SHIFT.
 */
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "kversion.h"

/* short descriptors */
#define L_PTE_PRESENT 0x001u
#define L_PTE_YOUNG 0x002u
#define L_PTE_DIRTY 0x040u
#define L_PTE_RDONLY 0x080u
#define L_PTE_USER 0x100u
#define L_PTE_XN 0x200u
#define PMD_TYPE_MASK 0x3u
#define PMD_TYPE_TABLE 0x1u
#define PMD_TYPE_SECT 0x2u
#define PMD_SECT_XN 0x10u
#define PMD_SECT_AP_WRITE 0x400u
#define PMD_SECT_AP_READ 0x800u
#define PMD_SECT_APX 0x8000u
#define PMD_SECT_SUPER 0x40000u

/* LPAE */
#define LP_PRESENT UINT64_C(0x3)
#define LP_USER (UINT64_C(1) << 6)
#define LP_YOUNG (UINT64_C(1) << 10)
#define LP_XN (UINT64_C(1) << 54)
#define LP_DIRTY (UINT64_C(1) << 55)
#define LP_SPECIAL (UINT64_C(1) << 56)
#define LP_PMD_SECT_NONE (UINT64_C(1) << 57) /* PROT_NONE huge PMD, valid bit clear */
#define LP_RDONLY (UINT64_C(1) << 58)
#define LP_ADDR UINT64_C(0x000000fffffff000) /* bits 12-39 */

#define SZ_16M UINT64_C(0x1000000)

struct arm_state {
	bool lpae;
	uint64_t page_offset;
	uint64_t phys_offset;  /* PA of PAGE_OFFSET */
	uint64_t lowmem_end;   /* VA end of the linear map */
	uint64_t kernel_pgd;   /* PA of swapper_pg_dir */
	struct ps_arm_swap_layout swap; /* this kernel's swap PTEs */
};

static inline const struct arm_state *st(const struct ps_core *c)
{
	return c->arch_priv;
}

static bool arm_kvtop_direct(const struct ps_core *c, uint64_t va, uint64_t *pa)
{
	const struct arm_state *s = st(c);
	if (!s || va < s->page_offset || va >= s->lowmem_end)
		return false;
	*pa = va - s->page_offset + s->phys_offset;
	return true;
}

/* The letters a Linux PTE tells: all but soft-dirty (none on ARM), exclusivity (not in a
 * present PTE) and global (a hardware-PTE bit, set by set_pte_ext, not kept in Linux's). */
#define ARM_KNOWN ((1u << PS_PTE_WRITE) | (1u << PS_PTE_EXEC) | (1u << PS_PTE_USER) | \
		   (1u << PS_PTE_ACCESSED) | (1u << PS_PTE_DIRTY))

static void swap_entry(const struct ps_core *c, uint32_t val, struct ps_pt_entry *e)
{
	/* swp_entry_t is 32 bits; before init (no state) the layout of kernels before 6.3. */
	struct ps_arm_swap_layout old;
	const struct ps_arm_swap_layout *l = st(c) ? &st(c)->swap : (ps_arm_swap_layout(0, &old), &old);
	e->kind = PS_PT_SWAP;
	e->swp_type = (val >> l->type_shift) & ((1u << l->type_bits) - 1);
	e->swp_off = val >> l->offset_shift;
	if (l->exclusive_bit >= 0)
		ps_pte_note(&e->pte, PS_PTE_EXCLUSIVE, val >> l->exclusive_bit & 1);
}

static void decode_2level(const struct ps_core *c, unsigned level, uint64_t raw, struct ps_pt_entry *e)
{
	if (level == 1) {
		uint32_t pte = (uint32_t)raw;
		if (!(pte & L_PTE_PRESENT)) {
			swap_entry(c, pte, e);
			return;
		}
		e->kind = PS_PT_LEAF;
		e->addr = pte & 0xfffff000u;
		e->pte.known = ARM_KNOWN;
		e->pte.set = (uint8_t)((!(pte & L_PTE_RDONLY) << PS_PTE_WRITE) | (!(pte & L_PTE_XN) << PS_PTE_EXEC) |
				       (!!(pte & L_PTE_USER) << PS_PTE_USER) |
				       (!!(pte & L_PTE_YOUNG) << PS_PTE_ACCESSED) |
				       (!!(pte & L_PTE_DIRTY) << PS_PTE_DIRTY));
		return;
	}
	/* A pgd entry: the pair pmd[0], pmd[1] in memory order; Linux looks at pmd[0] only. */
	uint32_t w0 = (uint32_t)(c->big_endian ? raw >> 32 : raw);
	uint32_t w1 = (uint32_t)(c->big_endian ? raw : raw >> 32);
	if (w0 == 0) {
		e->kind = PS_PT_NONE;
		return;
	}
	switch (w0 & PMD_TYPE_MASK) {
	case PMD_TYPE_TABLE:
		/* pmd[0] points at h/w pt 0, half way into the PTE page. */
		e->kind = PS_PT_TABLE;
		e->addr = w0 & 0xfffff000u;
		return;
	case PMD_TYPE_SECT:
		/* Kernel mappings only: two 1 MiB sections that make one 2 MiB block. */
		if ((w0 & PMD_SECT_SUPER) || (w1 & PMD_TYPE_MASK) != PMD_TYPE_SECT || (w1 & PMD_SECT_SUPER) ||
		    (w0 & 0x100000u) || (w1 & 0xfff00000u) != (w0 & 0xfff00000u) + 0x100000u) {
			e->kind = PS_PT_BAD;
			e->why = "section pair that is not one 2 MiB block (supersection or split)";
			return;
		}
		e->kind = PS_PT_LEAF;
		e->addr = w0 & 0xfff00000u;
		e->pte.known = (1u << PS_PTE_WRITE) | (1u << PS_PTE_EXEC) | (1u << PS_PTE_USER);
		e->pte.set = (uint8_t)(((w0 & PMD_SECT_AP_WRITE) && !(w0 & PMD_SECT_APX)) << PS_PTE_WRITE |
				       !(w0 & PMD_SECT_XN) << PS_PTE_EXEC |
				       !!(w0 & PMD_SECT_AP_READ) << PS_PTE_USER);
		return;
	default:
		e->kind = PS_PT_BAD;
		e->why = (w0 & PMD_TYPE_MASK) ? "reserved first-level descriptor type"
					      : "fault descriptor with bits set";
		return;
	}
}

static void decode_lpae(const struct ps_core *c, unsigned level, uint64_t raw, struct ps_pt_entry *e)
{
	bool last = level + 1 == c->geom.nlevels;
	if (last) {
		if (!(raw & LP_PRESENT)) {
			swap_entry(c, (uint32_t)raw, e); /* __pte_to_swp_entry keeps the low word */
			return;
		}
	} else if ((raw & 3) == 3) {
		e->kind = PS_PT_TABLE;
		e->addr = raw & LP_ADDR;
		return;
	} else if (level > 0 && (raw & 3) == 0 && (raw & LP_PMD_SECT_NONE)) {
		e->kind = PS_PT_NONE; /* PROT_NONE huge PMD: !pmd_present (no THP migration on ARM) */
		return;
	} else if (level == 0 || (raw & 3) != 1) {
		e->kind = PS_PT_BAD;
		e->why = level == 0 ? "PGD entry that is not a table" : "non-present or reserved PMD entry";
		return;
	}
	/* A page, or a 2 MiB block at the PMD level (THP, hugetlb, kernel lowmem). */
	uint64_t span_m1 = (UINT64_C(1) << c->geom.levels[level].shift) - 1;
	e->kind = PS_PT_LEAF;
	e->addr = raw & LP_ADDR & ~span_m1;
	e->pte.known = ARM_KNOWN;
	e->pte.set = (uint8_t)((!(raw & LP_RDONLY) << PS_PTE_WRITE) | (!(raw & LP_XN) << PS_PTE_EXEC) |
			       (!!(raw & LP_USER) << PS_PTE_USER) | (!!(raw & LP_YOUNG) << PS_PTE_ACCESSED) |
			       (!!(raw & LP_DIRTY) << PS_PTE_DIRTY));
	e->special = last && (raw & LP_SPECIAL);
}

static void arm_decode(const struct ps_core *c, unsigned level, uint64_t raw, struct ps_pt_entry *e)
{
	const struct arm_state *s = st(c);
	if (s && s->lpae)
		decode_lpae(c, level, raw, e);
	else
		decode_2level(c, level, raw, e);
}

static uint64_t arm_kernel_pgd(const struct ps_core *c)
{
	return st(c) ? st(c)->kernel_pgd : 0;
}

static uint64_t arm_pfn_to_page(const struct ps_core *c, uint64_t pfn)
{
	(void)c, (void)pfn;
	return 0; /* no vmemmap: FLATMEM mem_map or SPARSEMEM sections (page.c) */
}

static uint64_t arm_user_pgd(const struct ps_core *c, uint64_t mm_pgd)
{
	uint64_t pa;
	return arm_kvtop_direct(c, mm_pgd, &pa) ? pa : 0;
}

/* ---- setup ------------------------------------------------------------------------- */

/* Whether swapper_pg_dir (at PA PGD) maps PAGE_OFFSET to PHYS as lowmem is mapped: a
 * section pair (short descriptors) or a 2 MiB block under a table (LPAE). */
static bool maps_lowmem(struct ps_core *c, const struct arm_state *s, uint64_t pgd, uint64_t phys)
{
	uint8_t b[8];
	if (!s->lpae) {
		if (ps_pread(c, pgd + (s->page_offset >> 21) * 8, b, 8) != PS_READ_OK)
			return false;
		uint32_t w0 = ps_load_u32(c, b), w1 = ps_load_u32(c, b + 4); /* pmd[0], pmd[1] */
		return (w0 & PMD_TYPE_MASK) == PMD_TYPE_SECT && !(w0 & PMD_SECT_SUPER) &&
		       (w0 & 0xfff00000u) == phys && (w1 & PMD_TYPE_MASK) == PMD_TYPE_SECT &&
		       (w1 & 0xfff00000u) == phys + 0x100000;
	}
	if (ps_pread(c, pgd + (s->page_offset >> 30) * 8, b, 8) != PS_READ_OK)
		return false;
	uint64_t e = ps_load_u64(c, b);
	if ((e & 3) != 3 || ps_pread(c, (e & LP_ADDR) + ((s->page_offset >> 21) & 511) * 8, b, 8) != PS_READ_OK)
		return false;
	e = ps_load_u64(c, b);
	return (e & 3) == 1 && (e & LP_ADDR & ~UINT64_C(0x1fffff)) == phys;
}

/* Whether PHYS is PHYS_OFFSET: the kernel's own page table maps PAGE_OFFSET there (at the
 * known or the usual places of swapper_pg_dir) and __pv_phys_pfn_offset agrees. */
static bool phys_offset_fits(struct ps_core *c, struct arm_state *s, uint64_t phys, uint64_t swapper,
			     uint64_t pv_sym)
{
	/* swapper_pg_dir sits 16 KiB (20 KiB with LPAE) below the kernel's text at
	 * PAGE_OFFSET + TEXT_OFFSET: 0x8000 usually, 0x208000 on Debian's armmp. */
	const uint64_t below = s->lpae ? 0x5000 : 0x4000;
	const uint64_t guesses[] = { swapper, s->page_offset + 0x8000 - below, s->page_offset + 0x208000 - below };
	bool mapped = false;
	for (size_t i = 0; i < sizeof guesses / sizeof guesses[0] && !mapped; i++) {
		if (!guesses[i] || guesses[i] < s->page_offset || (i > 0 && swapper))
			continue;
		uint64_t pgd = guesses[i] - s->page_offset + phys;
		if (maps_lowmem(c, s, pgd, phys)) {
			mapped = true;
			s->kernel_pgd = pgd;
		}
	}
	if (!mapped)
		return false;
	if (pv_sym && pv_sym >= s->page_offset) {
		uint8_t b[4];
		if (ps_pread(c, pv_sym - s->page_offset + phys, b, 4) != PS_READ_OK ||
		    ps_load_u32(c, b) != phys >> c->page_shift)
			return false;
	}
	return true;
}

/* PHYS_OFFSET: where the kernel's tables say PAGE_OFFSET is. Candidates are 2 MiB aligned
 * (ARM_PATCH_PHYS_VIRT's rule since 5.11), the common RAM bases first. */
static int find_phys_offset(struct ps_core *c, struct arm_state *s, uint64_t swapper, uint64_t pv_sym)
{
	static const uint64_t common[] = { 0x40000000, 0x80000000, 0x0, 0x60000000, 0x10000000,
					   0x20000000, 0x30000000, 0xc0000000, 0x70000000, 0x90000000 };
	for (size_t i = 0; i < sizeof common / sizeof common[0]; i++)
		if (phys_offset_fits(c, s, common[i], swapper, pv_sym)) {
			s->phys_offset = common[i];
			return 0;
		}
	for (uint64_t p = 0; p < (UINT64_C(1) << 32); p += UINT64_C(0x200000))
		if (phys_offset_fits(c, s, p, swapper, pv_sym)) {
			s->phys_offset = p;
			return 0;
		}
	return -1;
}

/* The end of lowmem when high_memory is not known: as far as swapper_pg_dir maps
 * PAGE_OFFSET onwards with sections at the linear offset (the rest goes through the tables,
 * which is never wrong, only slower). */
static uint64_t scan_lowmem_end(struct ps_core *c, const struct arm_state *s)
{
	uint64_t va = s->page_offset;
	uint8_t b[8];
	while (va < UINT64_C(0xff000000)) {
		uint64_t phys = va - s->page_offset + s->phys_offset;
		if (!s->lpae) {
			if (ps_pread(c, s->kernel_pgd + (va >> 21) * 8, b, 8) != PS_READ_OK)
				break;
			uint32_t w0 = ps_load_u32(c, b), w1 = ps_load_u32(c, b + 4); /* pmd[0], pmd[1] */
			if ((w0 & PMD_TYPE_MASK) != PMD_TYPE_SECT || (w0 & 0xfff00000u) != phys ||
			    (w1 & PMD_TYPE_MASK) != PMD_TYPE_SECT || (w1 & 0xfff00000u) != phys + 0x100000)
				break;
		} else {
			struct arm_state tmp = *s;
			tmp.page_offset = va;
			if (!maps_lowmem(c, &tmp, s->kernel_pgd, phys))
				break;
		}
		va += 0x200000;
	}
	return va;
}

static int arm_init(struct ps_core *c)
{
	if (c->page_size != 4096)
		return ps_core_fail(c, "arm: page size %u, expected 4096", c->page_size);
	if (c->ptr_size != 4)
		return ps_core_fail(c, "arm: pointer size %u, expected 4", c->ptr_size);
	struct arm_state *s = calloc(1, sizeof *s);
	if (!s)
		return ps_core_fail(c, "arm: out of memory");
	free(c->arch_priv);
	c->arch_priv = s;

	ps_arm_swap_layout(ps_kver_parse(c->release), &s->swap);

	/* The layout: stated (sizeof(pte_t), CONFIG_ARM_LPAE=y) or tried (see the top). */
	const char *lpae = ps_core_vmcoreinfo(c, "CONFIG_ARM_LPAE");
	const char *stated = NULL;
	if (c->have_kinfo && ps_ki_has(&c->ki, PS_KI_VM_FAULT_ORIG_PTE)) {
		s->lpae = c->ki.member[PS_KI_VM_FAULT_ORIG_PTE].size == 8;
		stated = "sizeof(pte_t) in the type information";
	} else if (lpae) {
		s->lpae = strcmp(lpae, "y") == 0;
		stated = "VMCOREINFO CONFIG_ARM_LPAE";
	}

	uint64_t swapper = 0, pv_sym = 0;
	if (ps_core_symbol_by_name(c, "swapper_pg_dir", &swapper) != 0)
		swapper = 0;
	if (ps_core_symbol_by_name(c, "__pv_phys_pfn_offset", &pv_sym) != 0)
		pv_sym = 0;
	/* PAGE_OFFSET: 16 MiB aligned below swapper_pg_dir (VMSPLIT_3G: 0xc0000000). */
	s->page_offset = swapper >= UINT64_C(0x40000000) ? swapper & ~(SZ_16M - 1) : UINT64_C(0xc0000000);
	bool found = find_phys_offset(c, s, swapper, pv_sym) == 0;
	if (!found && !stated) {
		s->lpae = !s->lpae;
		found = find_phys_offset(c, s, swapper, pv_sym) == 0;
	}
	if (!found && stated)
		return ps_core_fail(c, "arm: no physical address maps PAGE_OFFSET 0x%llx in swapper_pg_dir%s (not a "
				    "%s kernel as %s says, or the dump lacks its page tables)",
				    (unsigned long long)s->page_offset, swapper ? "" : " (its address is not known either)",
				    s->lpae ? "LPAE" : "short-descriptor", stated);
	if (!found)
		return ps_core_fail(c, "arm: no physical address maps PAGE_OFFSET 0x%llx in swapper_pg_dir%s (neither "
				    "short-descriptor nor LPAE tables, or the dump lacks them)",
				    (unsigned long long)s->page_offset, swapper ? "" : " (its address is not known either)");

	/* high_memory: a lowmem pointer read through the part of lowmem that sections map. */
	s->lowmem_end = scan_lowmem_end(c, s);
	uint64_t hm_sym, hm;
	if (ps_core_symbol_by_name(c, "high_memory", &hm_sym) == 0 &&
	    ps_kread_ptr(c, hm_sym, &hm) == PS_READ_OK && hm > s->page_offset && hm <= UINT64_C(0xff000000))
		s->lowmem_end = hm;

	struct ps_pt_geometry *g = &c->geom;
	memset(g, 0, sizeof *g);
	if (s->lpae) {
		g->nlevels = 3;
		g->levels[0] = (struct ps_pt_level){ .shift = 30, .bits = 2, .entry_size = 8 };
		g->levels[1] = (struct ps_pt_level){ .shift = 21, .bits = 9, .entry_size = 8 };
		g->levels[2] = (struct ps_pt_level){ .shift = 12, .bits = 9, .entry_size = 8 };
	} else {
		g->nlevels = 2;
		g->levels[0] = (struct ps_pt_level){ .shift = 21, .bits = 11, .entry_size = 8 };
		g->levels[1] = (struct ps_pt_level){ .shift = 12, .bits = 9, .entry_size = 4 };
	}
	g->entries_big_endian = c->big_endian;
	g->user_va_end = s->page_offset - SZ_16M; /* TASK_SIZE: modules sit below PAGE_OFFSET */
	return 0;
}

const struct ps_arch ps_arch_arm = {
	.name = "arm",
	.init = arm_init,
	.decode = arm_decode,
	.kvtop_direct = arm_kvtop_direct,
	.kernel_pgd = arm_kernel_pgd,
	.pfn_to_page = arm_pfn_to_page,
	.user_pgd = arm_user_pgd,
};
