/* arch_ppc64.c - 64-bit PowerPC Book3S: Linux's page tables under the radix and the hash
 * MMU (4K and 64K pages) and the kernel's address layout (Linux 6.1).
 *
 * Entries are __be64 whatever the kernel's byte order (pte_raw, arch/powerpc/include/asm/
 * book3s/64/pgtable.h), so the geometry says entries_big_endian on ppc64le too.
 *
 * Leaf bits (book3s/64/pgtable.h, common to both MMUs): EXEC 0x1, WRITE 0x2, READ 0x4,
 * PRIVILEGED 0x8 (kernel only: pte_user is its absence), NON_IDEMPOTENT 0x20 (in a swap
 * entry: _PAGE_SWP_EXCLUSIVE), DIRTY 0x80, ACCESSED 0x100, SOFT_DIRTY 0x200 (SW3),
 * SPECIAL 0x400 (SW2), DEVMAP 0x800, INVALID bit 61 (SW0: a present entry being updated),
 * _PAGE_PTE bit 62 (a leaf or a swap entry, never a table pointer), _PAGE_PRESENT bit 63.
 * The PFN is PTE_RPN_MASK: bits [PAGE_SHIFT, 53). pte_present: _PAGE_PTE and (PRESENT or
 * INVALID); pmd_present: PRESENT or INVALID. Swap entries (6.1): _PAGE_PTE set, type in
 * bits 0-4, offset in the RPN field.
 *
 * Table pointers: PRESENT | the next table's physical address; under radix also the next
 * level's index bits (NLS) in bits 0-4 (RADIX_*_VAL_BITS, book3s/64/radix.h), under hash
 * nothing else (HASH_*_VAL_BITS, hash.h). A PMD/PUD with _PAGE_PTE is a huge leaf (radix
 * 2M/1G; hash 64K 16M/16G).
 *
 * Geometry (index bits PGD/PUD/PMD/PTE; radix-64k.h, radix-4k.h, hash-64k.h, hash-4k.h):
 * radix 64K 13/9/9/5, radix 4K 13/9/9/9, hash 64K 8/10/10/8, hash 4K 9/9/7/9. Under hash
 * with 64K pages the PTE page fragment is twice the table: its second half holds the hash
 * slot indexes (hidx, __real_pte in hash-64k.h), and PMD/PUD tables have a second half too
 * (THP/hugetlb deposits); the walker reads the first (1 << bits) entries only. Which MMU the
 * kernel ran is not in VMCOREINFO: swapper_pg_dir tells (radix pointers carry NLS bits,
 * hash ones none), mmu_psize_defs confirms (radix defines a 2M page size, hash never).
 *
 * Kernel addresses: the linear map at PAGE_OFFSET 0xc000000000000000 (the kernel image is
 * in it, at physical 0), pa = va - PAGE_OFFSET; vmemmap at RADIX_VMEMMAP_START or
 * H_VMEMMAP_START, translated through the vmemmap_list VMCOREINFO exports (the hash MMU
 * maps vmemmap in the hash table only, never in swapper_pg_dir); vmalloc through
 * swapper_pg_dir.
 */
#include <stdlib.h>
#include <string.h>

#include "core.h"

#define PPC_EXEC UINT64_C(0x1)
#define PPC_WRITE UINT64_C(0x2)
#define PPC_READ UINT64_C(0x4)
#define PPC_PRIVILEGED UINT64_C(0x8)
#define PPC_SWP_EXCLUSIVE UINT64_C(0x20) /* _PAGE_NON_IDEMPOTENT, in swap entries */
#define PPC_DIRTY UINT64_C(0x80)
#define PPC_ACCESSED UINT64_C(0x100)
#define PPC_SOFT_DIRTY UINT64_C(0x200)
#define PPC_SPECIAL UINT64_C(0x400)
#define PPC_INVALID (UINT64_C(1) << 61)
#define PPC_PTE (UINT64_C(1) << 62)
#define PPC_PRESENT (UINT64_C(1) << 63)
#define PPC_RWX (PPC_READ | PPC_WRITE | PPC_EXEC)
#define PPC_PA_MAX 53                                   /* _PAGE_PA_MAX */
#define PPC_SWP_TYPE_MASK UINT64_C(0x1f)                /* SWP_TYPE_BITS 5 */
#define PPC_TABLE_ADDR UINT64_C(0x00ffffffffffff00)     /* radix NLB, bits 8-55 */
#define PPC_TABLE_RSVD UINT64_C(0x3f00000000000000)     /* bits 56-61 of a table pointer */

/* Hash-only software bits an empty PTE may keep (_PAGE_HPTEFLAGS, hash-64k.h/hash-4k.h). */
#define H64_HPTEFLAGS (UINT64_C(0x40) | UINT64_C(0x1000) | (UINT64_C(1) << 55))
#define H4_HPTEFLAGS (UINT64_C(0x40) | (UINT64_C(1) << 60) | (UINT64_C(1) << 56) | (UINT64_C(7) << 53))

#define PPC_PAGE_OFFSET UINT64_C(0xc000000000000000)
#define RADIX_KERN_VIRT_START UINT64_C(0xc008000000000000)
#define RADIX_VMEMMAP_START UINT64_C(0xc00c000000000000) /* 0xc008.. + 2 << 49 */
#define H64_VMEMMAP_START UINT64_C(0xc00c000000000000)   /* H_KERN_VIRT_START + 2 << 49 */
#define H4_KERN_VIRT_START UINT64_C(0xc0003d0000000000)
#define H4_VMEMMAP_START (H4_KERN_VIRT_START + (UINT64_C(2) << 40))

/* mmu_psize_defs indexes (asm/mmu.h) */
#define MMU_PAGE_2M 7
#define MMU_PAGE_COUNT 16

enum ppc_mmu { PPC_MMU_RADIX, PPC_MMU_HASH };

struct vmemmap_chunk {
	uint64_t virt, phys;
};

struct ppc64_state {
	enum ppc_mmu mmu;
	uint64_t none_mask;     /* bits an empty PTE may hold (R/C writeback, HPTE flags) */
	uint64_t rpn_mask;      /* PTE_RPN_MASK */
	uint64_t linear_end;    /* end of the linear map */
	uint64_t vmemmap_start, vmemmap_end;
	uint64_t page_struct;   /* sizeof(struct page) */
	uint64_t kernel_pgd;    /* physical address of swapper_pg_dir */
	uint64_t chunk_size;    /* bytes of vmemmap one vmemmap_list entry maps */
	size_t nchunks;         /* sorted by virt */
	struct vmemmap_chunk chunk[];
};

static inline const struct ppc64_state *st(const struct ps_core *c)
{
	return c->arch_priv;
}

/* ---- kernel addresses ------------------------------------------------------------------ */

static bool ppc64_kvtop_direct(const struct ps_core *c, uint64_t va, uint64_t *pa)
{
	const struct ppc64_state *s = st(c);
	if (!s)
		return false;
	if (va >= PPC_PAGE_OFFSET && va < s->linear_end) {
		*pa = va - PPC_PAGE_OFFSET;
		return true;
	}
	if (s->nchunks && va >= s->vmemmap_start && va < s->vmemmap_end) {
		size_t lo = 0, hi = s->nchunks; /* the last chunk with virt <= va */
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;
			if (s->chunk[mid].virt <= va)
				lo = mid;
			else
				hi = mid;
		}
		const struct vmemmap_chunk *k = &s->chunk[lo];
		if (va >= k->virt && va - k->virt < s->chunk_size) {
			*pa = k->phys + (va - k->virt);
			return true;
		}
	}
	return false;
}

static uint64_t ppc64_kernel_pgd(const struct ps_core *c)
{
	return st(c) ? st(c)->kernel_pgd : 0;
}

static uint64_t ppc64_pfn_to_page(const struct ps_core *c, uint64_t pfn)
{
	const struct ppc64_state *s = st(c);
	if (!s || !s->vmemmap_start)
		return 0;
	uint64_t size = s->page_struct;
	if (c->have_kinfo && c->ki.size[PS_KI_PAGE] >= 32 && c->ki.size[PS_KI_PAGE] <= 256)
		size = (uint64_t)c->ki.size[PS_KI_PAGE];
	return s->vmemmap_start + pfn * size;
}

static uint64_t ppc64_user_pgd(const struct ps_core *c, uint64_t mm_pgd)
{
	uint64_t pa;
	return ppc64_kvtop_direct(c, mm_pgd, &pa) ? pa : 0;
}

/* ---- entries --------------------------------------------------------------------------- */

static void leaf_letters(uint64_t raw, bool pte_level, struct ps_pt_entry *e)
{
	/* No global bit; exclusivity is not in a present entry. 'u' is pte_user (PRIVILEGED
	 * clear), so PROT_NONE entries (PAGE_NONE has PRIVILEGED) show no 'u'. */
	e->pte.known = (uint8_t)(((1u << PS_PTE_NBITS) - 1) &
				 ~((1u << PS_PTE_EXCLUSIVE) | (1u << PS_PTE_GLOBAL)));
	/* pte_write: WRITE, or a NUMA-hinting PROT_NONE entry that was writable
	 * (pte_savedwrite: neither RWX nor PRIVILEGED, CONFIG_NUMA_BALANCING). */
	bool w = (raw & PPC_WRITE) || !(raw & (PPC_RWX | PPC_PRIVILEGED));
	e->pte.set = (uint8_t)((w << PS_PTE_WRITE) | (!!(raw & PPC_EXEC) << PS_PTE_EXEC) |
			       (!(raw & PPC_PRIVILEGED) << PS_PTE_USER) |
			       (!!(raw & PPC_ACCESSED) << PS_PTE_ACCESSED) |
			       (!!(raw & PPC_DIRTY) << PS_PTE_DIRTY) |
			       (!!(raw & PPC_SOFT_DIRTY) << PS_PTE_SOFTDIRTY));
	/* pte_special only: 6.1 has no pmd_special. */
	e->special = pte_level && (raw & PPC_SPECIAL);
}

static void swap_entry(const struct ps_core *c, uint64_t raw, struct ps_pt_entry *e)
{
	/* __pte_to_swp_entry drops _PAGE_PTE; __swp_type/__swp_offset of 6.1. */
	uint64_t val = raw & ~PPC_PTE;
	e->kind = PS_PT_SWAP;
	e->swp_type = val & PPC_SWP_TYPE_MASK;
	e->swp_off = (val & st(c)->rpn_mask) >> c->page_shift;
	ps_pte_note(&e->pte, PS_PTE_SOFTDIRTY, raw & PPC_SOFT_DIRTY);
	ps_pte_note(&e->pte, PS_PTE_EXCLUSIVE, raw & PPC_SWP_EXCLUSIVE);
}

static void ppc64_decode(const struct ps_core *c, unsigned level, uint64_t raw, struct ps_pt_entry *e)
{
	const struct ppc64_state *s = st(c);
	if (!s) {
		e->kind = PS_PT_BAD;
		e->why = "ppc64: not initialised";
		return;
	}
	const unsigned n = c->geom.nlevels, from_bottom = n - 1 - level;

	if (from_bottom == 0) {
		/* radix__pte_none / hash__pte_none: only R/C or HPTE bookkeeping left. */
		if ((raw & ~s->none_mask) == 0) {
			e->kind = PS_PT_NONE;
			return;
		}
		if (!(raw & PPC_PTE)) {
			e->kind = PS_PT_BAD;
			e->why = "PTE without _PAGE_PTE";
			return;
		}
		if (raw & (PPC_PRESENT | PPC_INVALID)) {
			e->kind = PS_PT_LEAF;
			e->addr = raw & s->rpn_mask;
			leaf_letters(raw, true, e);
			return;
		}
		swap_entry(c, raw, e);
		return;
	}

	if (raw & PPC_PTE) {
		/* pmd_is_leaf / pud_is_leaf; Linux maps no leaves above the PUD. */
		if (from_bottom > 2) {
			e->kind = PS_PT_BAD;
			e->why = "leaf in a PGD entry";
			return;
		}
		if (raw & (PPC_PRESENT | PPC_INVALID)) {
			uint64_t span_m1 = (UINT64_C(1) << c->geom.levels[level].shift) - 1;
			e->kind = PS_PT_LEAF;
			e->addr = raw & s->rpn_mask & ~span_m1;
			leaf_letters(raw, false, e);
			return;
		}
		swap_entry(c, raw, e); /* a PMD migration entry */
		return;
	}

	/* A pointer to the next table. */
	if (!(raw & PPC_PRESENT)) {
		e->kind = PS_PT_BAD;
		e->why = "non-present table entry";
		return;
	}
	if (raw & PPC_TABLE_RSVD) {
		e->kind = PS_PT_BAD;
		e->why = "reserved bits set in a table entry";
		return;
	}
	const struct ps_pt_level *next = &c->geom.levels[level + 1];
	uint64_t low = raw & 0xff;
	if (s->mmu == PPC_MMU_RADIX) {
		/* RADIX_*_BAD_BITS: bits 5-7 clear; NLS = the next table's index bits. */
		if (low != next->bits) {
			e->kind = PS_PT_BAD;
			e->why = (low & 0xe0) ? "reserved bits set in a table entry"
					      : "next-level size bits disagree with the geometry";
			return;
		}
	} else if (low) {
		/* Hash 4K: a hugepd (hugetlb directory, shift in bits 0-5), not decoded. */
		e->kind = PS_PT_BAD;
		e->why = (c->page_shift == 12 && (low & 0x3f)) ? "hugepd (hash 4K hugetlb) not supported"
							       : "low bits set in a table entry";
		return;
	}
	uint64_t addr = raw & PPC_TABLE_ADDR;
	uint64_t table_bytes = (uint64_t)next->entry_size << next->bits;
	/* Hash 64K PTE fragments are twice the table (the hidx half): H_PMD_BAD_BITS. */
	if (s->mmu == PPC_MMU_HASH && c->page_shift == 16 && from_bottom == 1)
		table_bytes *= 2;
	if (addr & (table_bytes - 1)) {
		e->kind = PS_PT_BAD;
		e->addr = addr;
		e->why = "misaligned page-table pointer";
		return;
	}
	e->kind = PS_PT_TABLE;
	e->addr = addr;
}

/* ---- setup ----------------------------------------------------------------------------- */

static bool vmci(struct ps_core *c, const char *key, uint64_t *v)
{
	return ps_core_vmcoreinfo_u64(c, key, v);
}

/* mmu_psize_defs[idx].shift from VMCOREINFO's symbol and layout; false if unknown. */
static bool psize_shift(struct ps_core *c, unsigned idx, uint32_t *shift)
{
	uint64_t defs, size, off = 0;
	if (!vmci(c, "SYMBOL(mmu_psize_defs)", &defs) || !vmci(c, "SIZE(mmu_psize_def)", &size) ||
	    size == 0 || size > 4096 || idx >= MMU_PAGE_COUNT)
		return false;
	vmci(c, "OFFSET(mmu_psize_def.shift)", &off);
	return ps_kread_u32(c, defs + idx * size + off, shift) == PS_READ_OK;
}

/* Which MMU: 1 radix, 0 hash, -1 cannot tell, -2 the two signs disagree. */
static int detect_mmu(struct ps_core *c, uint64_t pgd_pa)
{
	/* swapper_pg_dir is MAX_PTRS_PER_PGD (1 << 13) entries for either MMU: one read, or
	 * page by page when part of it is missing. */
	enum { N = 1 << 13, PIECE = 4096 };
	uint64_t *buf = malloc(N * 8);
	int from_pgd = -1;
	if (buf) {
		if (ps_pread(c, pgd_pa, buf, N * 8) != PS_READ_OK)
			for (unsigned off = 0; off < N * 8; off += PIECE)
				if (ps_pread(c, pgd_pa + off, (uint8_t *)buf + off, PIECE) != PS_READ_OK)
					memset((uint8_t *)buf + off, 0, PIECE);
		unsigned radix = 0, hash = 0;
		for (unsigned i = 0; i < N; i++) {
			if (!buf[i])
				continue;
			uint64_t v = buf[i];
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			v = __builtin_bswap64(v); /* __be64 */
#endif
			if ((v & (PPC_PRESENT | PPC_PTE)) != PPC_PRESENT)
				continue;
			if ((v & 0xff) == 9) /* RADIX_PGD_VAL_BITS: NLS = RADIX_PUD_INDEX_SIZE */
				radix++;
			else if ((v & 0xff) == 0) /* HASH_PGD_VAL_BITS */
				hash++;
		}
		free(buf);
		if (radix && !hash)
			from_pgd = 1;
		else if (hash && !radix)
			from_pgd = 0;
	}
	/* radix__early_init_mmu defines a 2M page size (radix_init_page_sizes); the hash MMU's
	 * sizes (4K, 64K, 16M, 16G from the device tree) never include it. */
	int from_psize = -1;
	uint32_t s2m, s4k;
	if (psize_shift(c, MMU_PAGE_2M, &s2m) && psize_shift(c, 0, &s4k) && s4k == 12)
		from_psize = s2m == 21 ? 1 : s2m == 0 ? 0 : -1;
	if (from_pgd >= 0 && from_psize >= 0 && from_pgd != from_psize)
		return -2;
	return from_pgd >= 0 ? from_pgd : from_psize;
}

static int cmp_chunk(const void *a, const void *b)
{
	const struct vmemmap_chunk *x = a, *y = b;
	return x->virt < y->virt ? -1 : x->virt > y->virt;
}

/* Read vmemmap_list (SYMBOL and layout in VMCOREINFO) into *sp's chunk array. A list that
 * cannot be read leaves nchunks 0 (radix then translates vmemmap through swapper_pg_dir). */
static int load_vmemmap_list(struct ps_core *c, struct ppc64_state **sp)
{
	uint64_t head, psz_sym, off_list = 0, off_phys = 8, off_virt = 16;
	uint32_t psize, shift;
	if (!vmci(c, "SYMBOL(vmemmap_list)", &head) || !vmci(c, "SYMBOL(mmu_vmemmap_psize)", &psz_sym) ||
	    ps_kread_u32(c, psz_sym, &psize) != PS_READ_OK || !psize_shift(c, psize, &shift) ||
	    shift < 12 || shift > 34)
		return 0;
	vmci(c, "OFFSET(vmemmap_backing.list)", &off_list);
	vmci(c, "OFFSET(vmemmap_backing.phys)", &off_phys);
	vmci(c, "OFFSET(vmemmap_backing.virt_addr)", &off_virt);
	struct ppc64_state *s = *sp;
	s->chunk_size = UINT64_C(1) << shift;
	const size_t limit = (size_t)1 << 20; /* nodes visited: a corrupt list stops here */
	size_t cap = 0, steps = 0;
	uint64_t node, mark = 0, power = 1, lap = 0;
	if (ps_kread_ptr(c, head, &node) != PS_READ_OK)
		return 0;
	while (node && steps++ < limit) {
		/* A cyclic list ends where it comes back (Brent: MARK is the node a power of two
		 * steps back, so no extra reads); rejected nodes count too. */
		if (node == mark)
			break;
		if (++lap == power) {
			mark = node, power *= 2, lap = 0;
		}
		uint64_t virt, phys, next;
		if (ps_kread_ptr(c, node + off_virt, &virt) != PS_READ_OK ||
		    ps_kread_ptr(c, node + off_phys, &phys) != PS_READ_OK ||
		    ps_kread_ptr(c, node + off_list, &next) != PS_READ_OK)
			break;
		if (virt >= s->vmemmap_start && virt < s->vmemmap_end && !(virt & (s->chunk_size - 1)) &&
		    !(phys & (s->chunk_size - 1))) {
			if (s->nchunks == cap) {
				cap = cap ? cap * 2 : 16;
				struct ppc64_state *ns = realloc(s, sizeof *s + cap * sizeof s->chunk[0]);
				if (!ns)
					return ps_core_fail(c, "ppc64: out of memory");
				*sp = s = ns;
				c->arch_priv = s;
			}
			s->chunk[s->nchunks++] = (struct vmemmap_chunk){ virt, phys };
		}
		node = next;
	}
	qsort(s->chunk, s->nchunks, sizeof s->chunk[0], cmp_chunk);
	return 0;
}

static int ppc64_init(struct ps_core *c)
{
	const char *arch = c->arch->name;
	unsigned ps = c->page_shift;
	if (ps != 12 && ps != 16)
		return ps_core_fail(c, "%s: page size %u, expected 4K or 64K", arch, c->page_size);
	if (c->ptr_size != 8)
		return ps_core_fail(c, "%s: pointer size %u, expected 8", arch, c->ptr_size);
	struct ppc64_state *s = calloc(1, sizeof *s);
	if (!s)
		return ps_core_fail(c, "%s: out of memory", arch);
	free(c->arch_priv);
	c->arch_priv = s;

	uint64_t v, physbits = 51; /* R/H_MAX_PHYSMEM_BITS with SPARSEMEM_VMEMMAP+EXTREME */
	if (vmci(c, "NUMBER(MAX_PHYSMEM_BITS)", &v) && v >= 32 && v <= 53)
		physbits = v;
	/* The linear map ends where the kernel's virtual area starts: 0xc008000000000000
	 * (RADIX_KERN_VIRT_START, and H_KERN_VIRT_START with 64K pages) or 0xc0003d0000000000
	 * (hash with 4K pages); the lower bound until the MMU is known. */
	s->linear_end = PPC_PAGE_OFFSET + (UINT64_C(1) << physbits);
	uint64_t virt_start = ps == 16 ? RADIX_KERN_VIRT_START : H4_KERN_VIRT_START;
	if (s->linear_end > virt_start)
		s->linear_end = virt_start;
	s->page_struct = 64;
	if (vmci(c, "SIZE(page)", &v) && v >= 32 && v <= 256)
		s->page_struct = v;
	s->rpn_mask = ((UINT64_C(1) << PPC_PA_MAX) - 1) & ~((uint64_t)c->page_size - 1);

	uint64_t pgd_va;
	if (ps_core_symbol_by_name(c, "swapper_pg_dir", &pgd_va) != 0) {
		/* No VMCOREINFO (QEMU's pseries dumps): the symbol comes with the type
		 * information, and init runs again then. Until that, only the linear map. */
		if (!c->have_kinfo)
			return 0;
		return ps_core_fail(c, "%s: swapper_pg_dir is not known (VMCOREINFO, type information, kallsyms)", arch);
	}
	if (pgd_va < PPC_PAGE_OFFSET || pgd_va >= s->linear_end)
		return ps_core_fail(c, "%s: swapper_pg_dir 0x%llx is outside the linear map", arch,
				    (unsigned long long)pgd_va);
	s->kernel_pgd = pgd_va - PPC_PAGE_OFFSET;

	int radix = detect_mmu(c, s->kernel_pgd);
	if (radix == -2)
		return ps_core_fail(c, "%s: swapper_pg_dir and mmu_psize_defs disagree on radix vs hash MMU", arch);
	if (radix < 0)
		return ps_core_fail(c, "%s: cannot tell the radix from the hash MMU (swapper_pg_dir "
				    "unreadable or empty, no mmu_psize_defs in VMCOREINFO)", arch);
	s->mmu = radix ? PPC_MMU_RADIX : PPC_MMU_HASH;

	static const unsigned bits[2][2][4] = {
		/* PGD PUD PMD PTE */
		[PPC_MMU_RADIX] = { { 13, 9, 9, 9 }, { 13, 9, 9, 5 } },
		[PPC_MMU_HASH] = { { 9, 9, 7, 9 }, { 8, 10, 10, 8 } },
	};
	const unsigned *b = bits[s->mmu][ps == 16];
	struct ps_pt_geometry *g = &c->geom;
	memset(g, 0, sizeof *g);
	g->nlevels = 4;
	unsigned shift = ps;
	for (int i = 3; i >= 0; i--) {
		g->levels[i].shift = shift;
		g->levels[i].bits = b[i];
		g->levels[i].entry_size = 8;
		shift += b[i];
	}
	g->entries_big_endian = true;
	/* TASK_SIZE_USER64 (task_size_64.h): 4PB with 64K pages, 64TB with 4K. */
	g->user_va_end = ps == 16 ? UINT64_C(1) << 52 : UINT64_C(1) << 46;

	if (s->mmu == PPC_MMU_RADIX) {
		s->none_mask = PPC_DIRTY | PPC_ACCESSED; /* RADIX_PTE_NONE_MASK */
		s->vmemmap_start = RADIX_VMEMMAP_START;
		s->vmemmap_end = RADIX_VMEMMAP_START + (UINT64_C(1) << 49);
	} else {
		s->none_mask = ps == 16 ? H64_HPTEFLAGS : H4_HPTEFLAGS;
		s->vmemmap_start = ps == 16 ? H64_VMEMMAP_START : H4_VMEMMAP_START;
		s->vmemmap_end = s->vmemmap_start + (ps == 16 ? UINT64_C(1) << 49 : UINT64_C(1) << 40);
	}
	virt_start = s->mmu == PPC_MMU_HASH && ps == 12 ? H4_KERN_VIRT_START : RADIX_KERN_VIRT_START;
	s->linear_end = PPC_PAGE_OFFSET + (UINT64_C(1) << physbits);
	if (s->linear_end > virt_start)
		s->linear_end = virt_start;
	return load_vmemmap_list(c, &s);
}

const struct ps_arch ps_arch_ppc64le = {
	.name = "ppc64le",
	.init = ppc64_init,
	.decode = ppc64_decode,
	.kvtop_direct = ppc64_kvtop_direct,
	.kernel_pgd = ppc64_kernel_pgd,
	.pfn_to_page = ppc64_pfn_to_page,
	.user_pgd = ppc64_user_pgd,
};

const struct ps_arch ps_arch_ppc64 = {
	.name = "ppc64",
	.init = ppc64_init,
	.decode = ppc64_decode,
	.kvtop_direct = ppc64_kvtop_direct,
	.kernel_pgd = ppc64_kernel_pgd,
	.pfn_to_page = ppc64_pfn_to_page,
	.user_pgd = ppc64_user_pgd,
};
