/* arch_arm64.c - AArch64 stage-1 translation tables (4K, 16K, 64K granules) and the kernel's
 * address layout (Linux 6.1).
 *
 * Descriptors (arch/arm64/include/asm/pgtable-hwdef.h, pgtable-prot.h of 6.1): bit 0 valid,
 * bit 1 table (levels above the last) or page (last level; 0b01 there is reserved), AP[1]
 * bit 6 = user, AP[2] bit 7 = read-only, AF bit 10, nG bit 11, DBM bit 51 (Linux's
 * PTE_WRITE), PXN 53, UXN 54, software bits: DIRTY 55, SPECIAL 56. Output address bits
 * [page_shift, 48); with 64K pages and 52-bit PAs, bits 12-15 hold PA bits 48-51.
 * Dirty is pte_sw_dirty || (PTE_WRITE && !RDONLY). What is not valid but present
 * (PROT_NONE, a THP being split) and the swap-entry layout changed in 6.0 and 6.10: the
 * kernel's row of ps_arm64_pte_layout (kversion.c).
 *
 * Kernel addresses: the linear map [PAGE_OFFSET, PAGE_END) with PAGE_OFFSET =
 * -(1 << VA_BITS), pa = va - PAGE_OFFSET + PHYS_OFFSET; everything else (kernel image,
 * vmalloc, vmemmap) through swapper_pg_dir, whose physical address is its image address
 * minus kimage_voffset.
 */
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "kversion.h"

#define A64_VALID (UINT64_C(1) << 0)
#define A64_TABLE (UINT64_C(1) << 1)
#define A64_USER (UINT64_C(1) << 6)
#define A64_RDONLY (UINT64_C(1) << 7)
#define A64_AF (UINT64_C(1) << 10)
#define A64_NG (UINT64_C(1) << 11)
#define A64_DBM (UINT64_C(1) << 51)
#define A64_PXN (UINT64_C(1) << 53)
#define A64_UXN (UINT64_C(1) << 54)
#define A64_DIRTY (UINT64_C(1) << 55)
#define A64_SPECIAL (UINT64_C(1) << 56)

struct a64_state {
	unsigned va_bits;         /* CONFIG_ARM64_VA_BITS: PAGE_OFFSET and the linear map */
	unsigned va_bits_actual;  /* vabits_actual (64 - TCR_EL1.T1SZ): the tables' depth */
	unsigned block_max_shift; /* the largest block a level above the last may map */
	uint64_t page_offset, page_end;
	uint64_t phys_offset;     /* memstart_addr (s64; wraps below 0 with KASLR) */
	uint64_t kimage_voffset;
	uint64_t vmemmap_start;
	uint64_t page_struct;
	uint64_t kernel_pgd;
	struct ps_arm64_pte_layout pte; /* swap and PROT_NONE encodings of this kernel */
};

static inline const struct a64_state *st(const struct ps_core *c)
{
	return c->arch_priv;
}

static uint64_t out_addr(const struct ps_core *c, uint64_t raw)
{
	uint64_t a = raw & ((UINT64_C(1) << 48) - 1) & ~(((uint64_t)c->page_size) - 1);
	if (c->page_shift == 16)
		a |= ((raw >> 12) & 0xf) << 48; /* ARM64_PA_BITS_52 (PTE_ADDR_HIGH) */
	return a;
}

static void a64_decode(const struct ps_core *c, unsigned level, uint64_t raw, struct ps_pt_entry *e)
{
	const struct a64_state *s = st(c);
	bool last = level + 1 == c->geom.nlevels;
	unsigned shift = c->geom.levels[level].shift;
	bool block_ok = !last && s && shift <= s->block_max_shift;

	if (!(raw & A64_VALID)) {
		/* PROT_NONE and a THP being split are not valid but present; the bits that say
		 * so, and the swap layout, depend on the kernel (kversion.c). Before init (no
		 * state) 6.1's. */
		struct ps_arm64_pte_layout l61;
		const struct ps_arm64_pte_layout *l = s ? &s->pte : (ps_arm64_pte_layout(PS_KVER(6, 1, 0), &l61), &l61);
		bool present = (last || block_ok) &&
			       (raw & (l->present_invalid | (last ? 0 : l->pmd_present_invalid)));
		if (!present && !last && !block_ok) {
			e->kind = PS_PT_BAD;
			e->why = "invalid non-zero table entry";
			return;
		}
		if (!present) {
			e->kind = PS_PT_SWAP;
			e->swp_type = (raw >> l->swp_type_shift) & ((UINT64_C(1) << l->swp_type_bits) - 1);
			e->swp_off = (raw >> l->swp_offset_shift) & ((UINT64_C(1) << 50) - 1);
			if (l->swp_exclusive_bit >= 0)
				ps_pte_note(&e->pte, PS_PTE_EXCLUSIVE, raw >> l->swp_exclusive_bit & 1);
			return;
		}
	} else if (!last && (raw & A64_TABLE)) {
		e->kind = PS_PT_TABLE;
		e->addr = out_addr(c, raw);
		return;
	} else if (last && !(raw & A64_TABLE)) {
		e->kind = PS_PT_BAD;
		e->why = "reserved descriptor type at the last level";
		return;
	} else if (!last && !block_ok) {
		e->kind = PS_PT_BAD;
		e->why = "block descriptor at a level without blocks";
		return;
	}

	/* A page, a block, or a PROT_NONE / mid-split entry that the kernel counts present. */
	uint64_t span_m1 = (UINT64_C(1) << shift) - 1;
	e->kind = PS_PT_LEAF;
	e->addr = out_addr(c, raw) & ~span_m1;
	bool user = raw & A64_USER;
	/* No soft-dirty on arm64 (6.1); exclusivity is not in a present PTE. */
	e->pte.known = (uint8_t)(((1u << PS_PTE_NBITS) - 1) &
				 ~((1u << PS_PTE_SOFTDIRTY) | (1u << PS_PTE_EXCLUSIVE)));
	bool dirty = (raw & A64_DIRTY) || ((raw & A64_DBM) && !(raw & A64_RDONLY));
	e->pte.set = (uint8_t)((!!(raw & A64_DBM) << PS_PTE_WRITE) |
			       (!(raw & (user ? A64_UXN : A64_PXN)) << PS_PTE_EXEC) |
			       (user << PS_PTE_USER) | (!!(raw & A64_AF) << PS_PTE_ACCESSED) |
			       (dirty << PS_PTE_DIRTY) | (!(raw & A64_NG) << PS_PTE_GLOBAL));
	e->special = last && (raw & A64_SPECIAL);
}

static bool a64_kvtop_direct(const struct ps_core *c, uint64_t va, uint64_t *pa)
{
	const struct a64_state *s = st(c);
	if (!s)
		return false;
	if (va >= s->page_offset && va < s->page_end) {
		*pa = va - s->page_offset + s->phys_offset;
		return true;
	}
	return false;
}

static uint64_t a64_kernel_pgd(const struct ps_core *c)
{
	return st(c) ? st(c)->kernel_pgd : 0;
}

static uint64_t a64_pfn_to_page(const struct ps_core *c, uint64_t pfn)
{
	const struct a64_state *s = st(c);
	if (!s || !s->vmemmap_start)
		return 0;
	uint64_t size = s->page_struct;
	if (c->have_kinfo && c->ki.size[PS_KI_PAGE] > 0)
		size = (uint64_t)c->ki.size[PS_KI_PAGE];
	/* vmemmap = (struct page *)VMEMMAP_START - (memstart_addr >> PAGE_SHIFT), with
	 * memstart_addr an s64 that is "negative" when the linear map is randomised. */
	uint64_t first_pfn = (uint64_t)((int64_t)s->phys_offset >> c->page_shift);
	return s->vmemmap_start + (pfn - first_pfn) * size;
}

static uint64_t a64_user_pgd(const struct ps_core *c, uint64_t mm_pgd)
{
	uint64_t pa;
	return a64_kvtop_direct(c, mm_pgd, &pa) ? pa : 0;
}

static unsigned order_base_2(uint64_t v)
{
	unsigned o = 0;
	while (o < 63 && (UINT64_C(1) << o) < v)
		o++;
	return o;
}

static int a64_init(struct ps_core *c)
{
	unsigned ps = c->page_shift;
	if (ps != 12 && ps != 14 && ps != 16)
		return ps_core_fail(c, "arm64: page size %u is not a 4K/16K/64K granule", c->page_size);
	if (c->ptr_size != 8)
		return ps_core_fail(c, "arm64: pointer size %u, expected 8", c->ptr_size);
	struct a64_state *s = calloc(1, sizeof *s);
	if (!s)
		return ps_core_fail(c, "arm64: out of memory");
	free(c->arch_priv);
	c->arch_priv = s;

	uint64_t v;
	if (!ps_core_vmcoreinfo_u64(c, "NUMBER(VA_BITS)", &v) || v < 36 || v > 52)
		return ps_core_fail(c, "arm64: VMCOREINFO NUMBER(VA_BITS) missing or implausible");
	s->va_bits = (unsigned)v;
	if (!ps_core_vmcoreinfo_u64(c, "NUMBER(PHYS_OFFSET)", &s->phys_offset))
		return ps_core_fail(c, "arm64: VMCOREINFO NUMBER(PHYS_OFFSET) missing");
	if (!ps_core_vmcoreinfo_u64(c, "NUMBER(kimage_voffset)", &s->kimage_voffset))
		return ps_core_fail(c, "arm64: VMCOREINFO NUMBER(kimage_voffset) missing");
	/* 4K: 1G and 2M blocks; 16K: 32M blocks; 64K: 512M blocks (6.1, without LPA2). */
	s->block_max_shift = ps == 12 ? 30 : ps == 14 ? 25 : 29;

	unsigned va_min = s->va_bits > 48 ? 48 : s->va_bits;
	s->page_offset = -(UINT64_C(1) << s->va_bits);
	s->page_end = -(UINT64_C(1) << (va_min - 1));
	s->page_struct = 64;
	if (ps_core_vmcoreinfo_u64(c, "SIZE(page)", &v) && v >= 32 && v <= 256)
		s->page_struct = v;
	if (c->have_kinfo && c->ki.size[PS_KI_PAGE] >= 32 && c->ki.size[PS_KI_PAGE] <= 256)
		s->page_struct = (uint64_t)c->ki.size[PS_KI_PAGE];
	if (!ps_core_vmcoreinfo_u64(c, "NUMBER(VMEMMAP_START)", &s->vmemmap_start)) {
		/* Not in VMCOREINFO before 5.12: the layout of the kernel's version. */
		unsigned shift = ps - order_base_2(s->page_struct); /* PAGE_SHIFT - STRUCT_PAGE_MAX_SHIFT */
		switch (ps_arm64_vmemmap_layout(ps_kver_parse(c->release))) {
		case PS_A64_VMEMMAP_BELOW_2M:
			/* VMEMMAP_START = -VMEMMAP_SIZE - SZ_2M, VMEMMAP_SIZE = (PAGE_END -
			 * PAGE_OFFSET) >> shift */
			s->vmemmap_start = -(((s->page_end - s->page_offset) >> shift) + (UINT64_C(2) << 20));
			break;
		case PS_A64_VMEMMAP_PROJECTION:
			s->vmemmap_start = -(UINT64_C(1) << (s->va_bits - shift));
			break;
		default:
			return ps_core_fail(c, "arm64: VMCOREINFO has no VMEMMAP_START and the kernel release "
					    "(%s) does not say the layout", c->release[0] ? c->release : "unknown");
		}
	}

	ps_arm64_pte_layout(ps_kver_parse(c->release), &s->pte);

	/* The tables' depth follows the VA size the CPU runs with: a kernel built for 52-bit
	 * VAs on a CPU without them (FEAT_LVA/LPA2) runs with 48 (arch/arm64 vabits_actual;
	 * VMCOREINFO has TCR_EL1_T1SZ since 5.9). */
	s->va_bits_actual = s->va_bits;
	if (ps_core_vmcoreinfo_u64(c, "NUMBER(TCR_EL1_T1SZ)", &v) && v >= 12 && 64 - v <= s->va_bits)
		s->va_bits_actual = 64 - (unsigned)v;

	/* Geometry: each level resolves page_shift - 3 bits, the top one what is left. */
	struct ps_pt_geometry *g = &c->geom;
	memset(g, 0, sizeof *g);
	unsigned per = ps - 3;
	unsigned n = (s->va_bits_actual - ps + per - 1) / per;
	if (n < 2 || n > 4)
		return ps_core_fail(c, "arm64: %u translation levels for %u-bit VAs", n, s->va_bits_actual);
	g->nlevels = n;
	for (unsigned i = 0; i < n; i++) {
		unsigned from_bottom = n - 1 - i;
		g->levels[i].shift = ps + per * from_bottom;
		g->levels[i].bits = i == 0 ? s->va_bits_actual - g->levels[i].shift : per;
		g->levels[i].entry_size = 8;
	}
	g->entries_big_endian = c->big_endian;
	g->user_va_end = UINT64_C(1) << s->va_bits_actual;

	uint64_t pgd_va;
	if (ps_core_symbol_by_name(c, "swapper_pg_dir", &pgd_va) != 0)
		return ps_core_fail(c, "arm64: swapper_pg_dir is not known");
	s->kernel_pgd = pgd_va - s->kimage_voffset;
	return 0;
}

const struct ps_arch ps_arch_arm64 = {
	.name = "arm64",
	.init = a64_init,
	.decode = a64_decode,
	.kvtop_direct = a64_kvtop_direct,
	.kernel_pgd = a64_kernel_pgd,
	.pfn_to_page = a64_pfn_to_page,
	.user_pgd = a64_user_pgd,
};
