/* arch_x86_64.c - x86-64 page tables (4-level and 5-level) and kernel address layout.
 *
 * Entry bits (arch/x86/include/asm/pgtable_types.h, 6.1): P 0, RW 1, US 2, A 5, D 6,
 * PSE 7 (PAT on 4K entries), G 8 (PROTNONE when not present), SOFTW1 9 = special,
 * SOFTW3 11 = soft-dirty, PAT 12 on huge entries, NX 63. Address bits 12-51 (__PHYSICAL_MASK
 * is 52 bits) without the SME encryption bit.
 *
 * Present is P or PROTNONE (PROT_NONE pages are present to the kernel); a PMD/PUD with PSE
 * and neither is a huge page being split, still present. Since the L1TF mitigation (4.19,
 * arch/x86/include/asm/pgtable-invert.h) every non-zero non-present entry stores its PFN
 * inverted. Swap entries (pgtable_64.h): type in bits 59-63, offset inverted from bit 9.
 *
 * Kernel addresses: the image at __START_KERNEL_map + phys_base, the direct map at
 * page_offset_base and vmemmap at vmemmap_base (both randomised with KASLR, read from the
 * kernel's variables), everything else through init_top_pgt.
 */
#include <stdlib.h>
#include <string.h>

#include "core.h"

#define X86_P (UINT64_C(1) << 0)
#define X86_RW (UINT64_C(1) << 1)
#define X86_US (UINT64_C(1) << 2)
#define X86_A (UINT64_C(1) << 5)
#define X86_D (UINT64_C(1) << 6)
#define X86_PSE (UINT64_C(1) << 7)
#define X86_G (UINT64_C(1) << 8)
#define X86_PROTNONE X86_G
#define X86_SPECIAL (UINT64_C(1) << 9)
#define X86_SOFT_DIRTY (UINT64_C(1) << 11)
#define X86_SWP_SOFT_DIRTY X86_RW
#define X86_NX (UINT64_C(1) << 63)

#define START_KERNEL_MAP UINT64_C(0xffffffff80000000)

struct x86_state {
	bool l5;
	uint64_t phys_mask;      /* address bits of an entry (52 bits minus the SME bit) */
	uint64_t phys_base;
	uint64_t image_size;     /* KERNEL_IMAGE_SIZE */
	uint64_t page_offset;    /* page_offset_base; 0 = unknown (page tables instead) */
	uint64_t direct_size;    /* 1 << MAX_PHYSMEM_BITS */
	uint64_t vmemmap;        /* vmemmap_base; 0 = unknown */
	uint64_t page_struct;    /* sizeof(struct page) before type info is known */
	uint64_t kernel_pgd;
};

static inline const struct x86_state *st(const struct ps_core *c)
{
	return c->arch_priv;
}

static bool x86_kvtop_direct(const struct ps_core *c, uint64_t va, uint64_t *pa)
{
	const struct x86_state *s = st(c);
	if (!s)
		return false;
	if (va >= START_KERNEL_MAP && va - START_KERNEL_MAP < s->image_size) {
		*pa = va - START_KERNEL_MAP + s->phys_base;
		return true;
	}
	/* The direct map covers RAM, not all of MAX_PHYSMEM_BITS: with KASLR
	 * (RANDOMIZE_MEMORY) vmalloc_base and vmemmap_base may lie less than 2^46 above
	 * page_offset_base, and such an address read as direct-mapped would be a wrong frame.
	 * Beyond the last frame of RAM the kernel's page tables translate. */
	uint64_t size = s->direct_size;
	if (c->max_pfn && c->max_pfn < (size >> 12))
		size = c->max_pfn << 12;
	if (s->page_offset && va >= s->page_offset && va - s->page_offset < size) {
		*pa = va - s->page_offset;
		return true;
	}
	return false;
}

/* The letters of the entry's low 12 bits: write, user, accessed, dirty, soft-dirty, and
 * global (bit 8 means PROT_NONE, not global, when P is clear). A table made by the compiler:
 * computing them bit by bit was a twentieth of a walk's instructions. */
#define LL(r) (uint8_t)(((r) >> 1 & 1) << PS_PTE_WRITE | ((r) >> 2 & 1) << PS_PTE_USER |            \
			((r) >> 5 & 1) << PS_PTE_ACCESSED | ((r) >> 6 & 1) << PS_PTE_DIRTY |       \
			((r) >> 11 & 1) << PS_PTE_SOFTDIRTY | ((r) >> 8 & (r) & 1) << PS_PTE_GLOBAL)
#define LL4(r) LL(r), LL((r) + 1), LL((r) + 2), LL((r) + 3)
#define LL16(r) LL4(r), LL4((r) + 4), LL4((r) + 8), LL4((r) + 12)
#define LL64(r) LL16(r), LL16((r) + 16), LL16((r) + 32), LL16((r) + 48)
#define LL256(r) LL64(r), LL64((r) + 64), LL64((r) + 128), LL64((r) + 192)
#define LL1024(r) LL256(r), LL256((r) + 256), LL256((r) + 512), LL256((r) + 768)
static const uint8_t low_letters[4096] = { LL1024(0), LL1024(1024), LL1024(2048), LL1024(3072) };
#undef LL
#undef LL4
#undef LL16
#undef LL64
#undef LL256
#undef LL1024

static void leaf_letters(uint64_t raw, bool present, unsigned level_from_bottom,
			 struct ps_pt_entry *e)
{
	/* Every letter but 'e' (exclusivity is not in a present x86 entry) is known. */
	e->pte.known = (uint8_t)(((1u << PS_PTE_NBITS) - 1) & ~(1u << PS_PTE_EXCLUSIVE));
	e->pte.set = (uint8_t)(low_letters[raw & 0xfff] | (!(raw & X86_NX) << PS_PTE_EXEC));
	/* pte_special exists for PTEs only in 6.1 (pmd/pud_special came in 6.8, for PFN maps). */
	e->special = level_from_bottom == 0 && (raw & X86_SPECIAL);
	/* Every user pgprot but PAGE_NONE has _PAGE_USER, and PAGE_NONE (PROT_NONE, NUMA
	 * hinting) has P clear: a present entry without U/S maps kernel memory only. */
	e->kernel_only = present && !(raw & X86_US);
}

static void x86_decode(const struct ps_core *c, unsigned level, uint64_t raw, struct ps_pt_entry *e)
{
	const struct x86_state *s = st(c);
	unsigned from_bottom = c->geom.nlevels - 1 - level;
	uint64_t span_m1 = (UINT64_C(1) << c->geom.levels[level].shift) - 1;
	uint64_t mask = s ? s->phys_mask : (UINT64_C(1) << 52) - 1;

	/* pte_none/pmd_none ignore A and D: Knights Landing may set them in empty entries. */
	if ((raw & ~(X86_A | X86_D)) == 0) {
		e->kind = PS_PT_NONE;
		return;
	}
	bool present = raw & X86_P;
	uint64_t pfnbits = present ? raw : ~raw; /* L1TF: non-present entries are inverted */

	if (from_bottom == 0) {
		if (raw & (X86_P | X86_PROTNONE)) {
			e->kind = PS_PT_LEAF;
			e->addr = pfnbits & mask & ~UINT64_C(0xfff);
			leaf_letters(raw, present, 0, e);
			return;
		}
	} else if (from_bottom <= 2) {
		/* PMD or PUD: a huge leaf when PSE is set (present, PROT_NONE or mid-split). */
		if (raw & X86_PSE) {
			e->kind = PS_PT_LEAF;
			e->addr = pfnbits & mask & ~span_m1;
			leaf_letters(raw, present, from_bottom, e);
			return;
		}
		if (present) {
			e->kind = PS_PT_TABLE;
			e->addr = raw & mask & ~UINT64_C(0xfff);
			return;
		}
		if (raw & X86_PROTNONE) {
			e->kind = PS_PT_BAD;
			e->why = "PROT_NONE table entry without PSE";
			return;
		}
		/* Not present, not PSE: a PMD migration or hugetlb swap entry (below). */
	} else {
		if (!present) {
			e->kind = PS_PT_BAD;
			e->why = "non-present PGD/P4D entry";
			return;
		}
		if (raw & X86_PSE) {
			e->kind = PS_PT_BAD;
			e->why = "PSE set in a PGD/P4D entry";
			return;
		}
		e->kind = PS_PT_TABLE;
		e->addr = raw & mask & ~UINT64_C(0xfff);
		return;
	}
	/* Swap entry: __swp_type = val >> 59; __swp_offset = ~val << 5 >> 14. */
	e->kind = PS_PT_SWAP;
	e->swp_type = raw >> 59;
	e->swp_off = (~raw << 5) >> 14;
	ps_pte_note(&e->pte, PS_PTE_SOFTDIRTY, raw & X86_SWP_SOFT_DIRTY);
}

static uint64_t x86_kernel_pgd(const struct ps_core *c)
{
	return st(c) ? st(c)->kernel_pgd : 0;
}

static uint64_t x86_pfn_to_page(const struct ps_core *c, uint64_t pfn)
{
	const struct x86_state *s = st(c);
	if (!s || !s->vmemmap)
		return 0;
	uint64_t size = s->page_struct;
	if (c->have_kinfo && c->ki.size[PS_KI_PAGE] > 0)
		size = (uint64_t)c->ki.size[PS_KI_PAGE];
	return s->vmemmap + pfn * size;
}

static uint64_t x86_user_pgd(const struct ps_core *c, uint64_t mm_pgd)
{
	/* 0 when the direct map base is unknown: the walker then translates through the
	 * kernel's own tables (ps_kvtop), as for every architecture. */
	uint64_t pa;
	return x86_kvtop_direct(c, mm_pgd, &pa) ? pa : 0;
}

static bool read_kvar(struct ps_core *c, const char *name, uint64_t *out)
{
	uint64_t a;
	return ps_core_symbol_by_name(c, name, &a) == 0 && ps_kread_u64(c, a, out) == PS_READ_OK;
}

static int x86_init(struct ps_core *c)
{
	if (c->page_size != 4096)
		return ps_core_fail(c, "x86_64: page size %u, expected 4096", c->page_size);
	if (c->ptr_size != 8)
		return ps_core_fail(c, "x86_64: pointer size %u, expected 8", c->ptr_size);
	struct x86_state *s = calloc(1, sizeof *s);
	if (!s)
		return ps_core_fail(c, "x86_64: out of memory");
	free(c->arch_priv);
	c->arch_priv = s;

	uint64_t v;
	s->phys_mask = (UINT64_C(1) << 52) - 1;
	if (ps_core_vmcoreinfo_u64(c, "NUMBER(sme_mask)", &v))
		s->phys_mask &= ~v;
	s->image_size = UINT64_C(1) << 30; /* KERNEL_IMAGE_SIZE with RANDOMIZE_BASE */
	if (ps_core_vmcoreinfo_u64(c, "NUMBER(KERNEL_IMAGE_SIZE)", &v) && v && v <= (UINT64_C(2) << 30))
		s->image_size = v;
	if (ps_core_vmcoreinfo_u64(c, "NUMBER(phys_base)", &v))
		s->phys_base = v;
	else if (c->have_kinfo && c->ki.symbol[PS_KI_PHYS_BASE]) {
		/* phys_base lives in the image it locates: only a dump without KASLR-moved
		 * physical placement reads right here, so try the usual phys_base 0 first. */
		uint64_t pb;
		s->phys_base = 0;
		if (read_kvar(c, "phys_base", &pb))
			s->phys_base = pb;
	}
	s->page_struct = 64;
	if (ps_core_vmcoreinfo_u64(c, "SIZE(page)", &v) && v >= 32 && v <= 256)
		s->page_struct = v;

	bool l5_known = false;
	if (ps_core_vmcoreinfo_u64(c, "NUMBER(pgtable_l5_enabled)", &v)) {
		s->l5 = v != 0;
		l5_known = true;
	}

	uint64_t top_va;
	if (ps_core_symbol_by_name(c, "init_top_pgt", &top_va) != 0 &&
	    ps_core_symbol_by_name(c, "swapper_pg_dir", &top_va) != 0)
		return ps_core_fail(c, "x86_64: neither init_top_pgt nor swapper_pg_dir is known");
	if (!x86_kvtop_direct(c, top_va, &s->kernel_pgd))
		return ps_core_fail(c, "x86_64: init_top_pgt 0x%llx is outside the kernel image",
				    (unsigned long long)top_va);

	/* page_offset_base and vmemmap_base: KASLR'd variables (kallsyms or type info). */
	uint64_t pob = 0, vmb = 0;
	bool have_pob = read_kvar(c, "page_offset_base", &pob) && pob;
	bool have_vmb = read_kvar(c, "vmemmap_base", &vmb) && vmb;
	if (!l5_known) {
		/* 4-level kernel space starts at 0xffff800000000000; the 5-level direct map sits
		 * at 0xff11000000000000 and below. */
		s->l5 = have_pob && pob < UINT64_C(0xffff800000000000);
	}
	s->direct_size = UINT64_C(1) << (s->l5 ? 52 : 46);
	if (ps_core_vmcoreinfo_u64(c, "NUMBER(MAX_PHYSMEM_BITS)", &v) && v >= 32 && v <= 52)
		s->direct_size = UINT64_C(1) << v;

	struct ps_pt_geometry *g = &c->geom;
	memset(g, 0, sizeof *g);
	g->nlevels = s->l5 ? 5 : 4;
	for (unsigned i = 0; i < g->nlevels; i++) {
		g->levels[i].shift = 12 + 9 * (g->nlevels - 1 - i);
		g->levels[i].bits = 9;
		g->levels[i].entry_size = 8;
	}
	g->entries_big_endian = false;
	/* TASK_SIZE_MAX: one page below the top of the lower half (the guard page). */
	g->user_va_end = (UINT64_C(1) << (s->l5 ? 56 : 47)) - 4096;

	if (have_pob) {
		s->page_offset = pob;
	} else {
		/* The direct-map address VMCOREINFO gives (the mem_section root, allocated with
		 * memblock) minus its physical address through the kernel's tables. */
		uint64_t ms, pa;
		if (ps_core_vmcoreinfo_u64(c, "SYMBOL(mem_section)", &ms) && ms &&
		    ps_pt_translate(c, s->kernel_pgd, ms, &pa) == 0 &&
		    ms - pa >= UINT64_C(0xff00000000000000) &&
		    ((ms - pa) & ((UINT64_C(1) << 30) - 1)) == 0)
			s->page_offset = ms - pa;
	}
	if (have_vmb)
		s->vmemmap = vmb;
	else if (c->kaslr_offset == 0)
		s->vmemmap = s->l5 ? UINT64_C(0xffd4000000000000) : UINT64_C(0xffffea0000000000);
	return 0;
}

const struct ps_arch ps_arch_x86_64 = {
	.name = "x86_64",
	.init = x86_init,
	.decode = x86_decode,
	.kvtop_direct = x86_kvtop_direct,
	.kernel_pgd = x86_kernel_pgd,
	.pfn_to_page = x86_pfn_to_page,
	.user_pgd = x86_user_pgd,
};
