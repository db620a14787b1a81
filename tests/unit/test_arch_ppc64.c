/* test_arch_ppc64.c - unit tests of the 64-bit PowerPC MMU file (walker/arch_ppc64.c) on
 * hand-built page tables, in the style of tests/unit/test_pgtable.c (and libkdumpfile's
 * addrxlat tests): every entry is written with a comment saying what it is.
 *
 * A synthetic ps_target holds sparse physical memory (unwritten RAM reads as zeros, some
 * pages EXCLUDED or missing) and a fake VMCOREINFO with the keys a 6.1 ppc64 kernel writes
 * (swapper_pg_dir, mmu_psize_defs, mmu_vmemmap_psize, vmemmap_list and its layout).
 * Page-table entries are always stored big-endian (__be64), kernel data in the target's
 * byte order (little-endian for ppc64le, big-endian for ppc64).
 *
 * Prints "FAIL: file:line: ..." per failed check and a last line
 * "test_arch_ppc64: N checks, M failed"; exits non-zero if any check failed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "check.h"
#include "pt_harness.h"

/* ---- the synthetic dump and the walk recorder: tests/unit/pt_harness.h ---------------- */

/* A page-table entry: __be64 on every ppc64 kernel. */
static void put_pte(struct fake *f, uint64_t pa, uint64_t v)
{
	uint8_t b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (56 - 8 * i));
	put_bytes(f, pa, b, 8);
}

/* ---- entry bits (arch/powerpc/include/asm/book3s/64/pgtable.h, 6.1) -------------------- */

#define X_ 0x1ull               /* _PAGE_EXEC */
#define W_ 0x2ull               /* _PAGE_WRITE */
#define R_ 0x4ull               /* _PAGE_READ */
#define PRIV 0x8ull             /* _PAGE_PRIVILEGED */
#define SWP_EXCL 0x20ull        /* _PAGE_NON_IDEMPOTENT = _PAGE_SWP_EXCLUSIVE */
#define DIRTY 0x80ull
#define ACC 0x100ull
#define SOFTD 0x200ull          /* _RPAGE_SW3 */
#define SPECIAL 0x400ull        /* _RPAGE_SW2 */
#define INVALID (1ull << 61)    /* _RPAGE_SW0 */
#define PTEBIT (1ull << 62)     /* _PAGE_PTE */
#define PRES (1ull << 63)       /* _PAGE_PRESENT */
#define LEAF (PRES | PTEBIT)
#define H_BUSY 0x40ull          /* hash: _RPAGE_RSV1 */
#define H_COMBO 0x1000ull       /* hash 64K: _RPAGE_RPN0 */
#define H_THP 0x2000ull         /* hash 64K: H_PAGE_THP_HUGE */
#define H_HASHPTE (1ull << 55)  /* hash 64K: _RPAGE_RPN43 */

static uint64_t swp(uint64_t type, uint64_t off, unsigned page_shift)
{
	/* __swp_entry_to_pte(__swp_entry(type, offset)) */
	return PTEBIT | type | (off << page_shift);
}

#define PAGE_OFFSET 0xc000000000000000ull
#define KVA(pa) (PAGE_OFFSET + (pa))
#define VMEMMAP 0xc00c000000000000ull

/* Kernel layout of the fake (physical addresses; symbols are their linear-map VAs). */
#define SWAPPER 0x2740000ull
#define PSIZE_DEFS 0x27593c8ull
#define VMEMMAP_PSIZE 0x27593c0ull
#define VMEMMAP_LIST 0x27591c0ull
#define VMEMMAP_NODE 0x3000000ull

enum mmu { RADIX, HASH };

/* A fake 6.1 ppc64 kernel: VMCOREINFO, mmu_psize_defs (radix: 4K 64K 2M 1G; hash: 4K 64K
 * 16M), mmu_vmemmap_psize (2M / 16M), one vmemmap_list entry VMEMMAP -> VMEMMAP_PHYS. With
 * psize false the mmu_psize_defs keys are left out (the MMU must come from swapper_pg_dir). */
static void setup(struct fake *f, unsigned page_size, enum mmu mmu, bool psize, bool big_endian)
{
	memset(f, 0, sizeof *f);
	f->big_endian = big_endian;
	f->ram_end = 2ull << 30; /* 2 GiB */
	vmci(f, "OSRELEASE", "6.1.0-ppc64-test");
	vmci(f, "PAGESIZE", "%u", page_size);
	vmci(f, "KERNELOFFSET", "0");
	vmci(f, "NUMBER(MAX_PHYSMEM_BITS)", "51");
	vmci(f, "SIZE(page)", "64");
	vmci(f, "SYMBOL(swapper_pg_dir)", "%llx", KVA(SWAPPER));
	if (psize) {
		vmci(f, "SYMBOL(mmu_psize_defs)", "%llx", KVA(PSIZE_DEFS));
		vmci(f, "SIZE(mmu_psize_def)", "96");
		vmci(f, "OFFSET(mmu_psize_def.shift)", "0");
		fake_put(f, PSIZE_DEFS + 0 * 96, 12, 4);  /* MMU_PAGE_4K */
		fake_put(f, PSIZE_DEFS + 2 * 96, 16, 4);  /* MMU_PAGE_64K */
		if (mmu == RADIX) {
			fake_put(f, PSIZE_DEFS + 7 * 96, 21, 4);  /* MMU_PAGE_2M */
			fake_put(f, PSIZE_DEFS + 13 * 96, 30, 4); /* MMU_PAGE_1G */
		} else {
			fake_put(f, PSIZE_DEFS + 10 * 96, 24, 4); /* MMU_PAGE_16M */
		}
	}
	vmci(f, "SYMBOL(mmu_vmemmap_psize)", "%llx", KVA(VMEMMAP_PSIZE));
	fake_put(f, VMEMMAP_PSIZE, mmu == RADIX ? 7 : 10, 4);
	vmci(f, "SYMBOL(vmemmap_list)", "%llx", KVA(VMEMMAP_LIST));
	vmci(f, "SIZE(vmemmap_backing)", "24");
	vmci(f, "OFFSET(vmemmap_backing.list)", "0");
	vmci(f, "OFFSET(vmemmap_backing.phys)", "8");
	vmci(f, "OFFSET(vmemmap_backing.virt_addr)", "16");
	fake_put(f, VMEMMAP_LIST, KVA(VMEMMAP_NODE), 8);          /* vmemmap_list -> node */
	fake_put(f, VMEMMAP_NODE + 0, 0, 8);                      /* node.list: end */
	fake_put(f, VMEMMAP_NODE + 8, 0x6000000, 8);              /* node.phys (16M aligned) */
	fake_put(f, VMEMMAP_NODE + 16, VMEMMAP, 8);               /* node.virt_addr */
}

static struct ps_target target(struct fake *f, const char *arch, unsigned page_size)
{
	struct ps_target t = {
		.ops = &fake_ops, .ctx = f, .arch = arch, .big_endian = f->big_endian,
		.ptr_size = 8, .page_size = page_size, .max_pfn = (2ull << 30) / page_size,
	};
	return t;
}

/* swapper_pg_dir's PGD entry for the linear map (radix: NLS 9 = RADIX_PUD_INDEX_SIZE;
 * hash: the vmalloc region's entry, no NLS bits). */
static void swapper_entry(struct fake *f, enum mmu mmu)
{
	if (mmu == RADIX)
		put_pte(f, SWAPPER + 0 * 8, PRES | 0x2800000 | 9);   /* PGD[0] -> PUD (linear map) */
	else
		put_pte(f, SWAPPER + 0x80 * 8, PRES | 0x2804000);    /* PGD[0x80] -> PUD (vmalloc) */
}

/* ---- geometry -------------------------------------------------------------------------- */

static void test_geometry(void)
{
	static const struct {
		unsigned page_size;
		enum mmu mmu;
		unsigned bits[4], shift[4];
		uint64_t va_end;
	} geo[] = {
		/* radix-64k.h: 13/9/9/5 */
		{ 65536, RADIX, { 13, 9, 9, 5 }, { 39, 30, 21, 16 }, 1ull << 52 },
		/* radix-4k.h: 13/9/9/9 */
		{ 4096, RADIX, { 13, 9, 9, 9 }, { 39, 30, 21, 12 }, 1ull << 46 },
		/* hash-64k.h: 8/10/10/8 */
		{ 65536, HASH, { 8, 10, 10, 8 }, { 44, 34, 24, 16 }, 1ull << 52 },
		/* hash-4k.h: 9/9/7/9 */
		{ 4096, HASH, { 9, 9, 7, 9 }, { 37, 28, 21, 12 }, 1ull << 46 },
	};
	for (size_t g = 0; g < sizeof geo / sizeof geo[0]; g++) {
		struct fake *f = malloc(sizeof *f);
		setup(f, geo[g].page_size, geo[g].mmu, true, false);
		swapper_entry(f, geo[g].mmu);
		struct ps_target t = target(f, "ppc64le", geo[g].page_size);
		struct ps_core *c = calloc(1, sizeof *c);
		if (CHECK(ps_core_open(c, &t) == 0, "open %u/%d: %s", geo[g].page_size, geo[g].mmu, c->err)) {
			CHECK_U64(c->geom.nlevels, 4);
			for (int i = 0; i < 4; i++) {
				CHECK_U64(c->geom.levels[i].bits, geo[g].bits[i]);
				CHECK_U64(c->geom.levels[i].shift, geo[g].shift[i]);
				CHECK_U64(c->geom.levels[i].entry_size, 8);
			}
			CHECK(c->geom.entries_big_endian, "entries are __be64 on ppc64le");
			CHECK_U64(c->geom.user_va_end, geo[g].va_end);
			CHECK_U64(c->arch->kernel_pgd(c), SWAPPER);
		}
		ps_core_close(c);
		free(c);
		free(f);
	}
	CHECK(ps_arch_find("ppc64le") == &ps_arch_ppc64le, "ppc64le");
	CHECK(ps_arch_find("ppc64") == &ps_arch_ppc64, "ppc64");
}

/* Which MMU: swapper_pg_dir's pointers (NLS bits or none) and mmu_psize_defs (a 2M size
 * only under radix); either alone decides, disagreement and silence are errors. */
static void test_detection(void)
{
	static const struct {
		int pgd;      /* -1 empty swapper_pg_dir, else the MMU its entry is written for */
		int psize;    /* -1 no mmu_psize_defs, else the MMU it describes */
		int expect;   /* RADIX, HASH, -1 "cannot tell", -2 "disagree" */
	} cases[] = {
		{ RADIX, RADIX, RADIX }, { HASH, HASH, HASH }, { RADIX, -1, RADIX }, { HASH, -1, HASH },
		{ -1, RADIX, RADIX },    { -1, HASH, HASH },   { RADIX, HASH, -2 },  { HASH, RADIX, -2 },
		{ -1, -1, -1 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct fake *f = malloc(sizeof *f);
		setup(f, 65536, cases[i].psize == HASH ? HASH : RADIX, cases[i].psize >= 0, false);
		if (cases[i].pgd >= 0)
			swapper_entry(f, (enum mmu)cases[i].pgd);
		struct ps_target t = target(f, "ppc64le", 65536);
		struct ps_core *c = calloc(1, sizeof *c);
		int r = ps_core_open(c, &t);
		if (cases[i].expect >= 0) {
			if (CHECK(r == 0, "case %zu: open: %s", i, c->err))
				CHECK_U64(c->geom.levels[0].bits, cases[i].expect == RADIX ? 13 : 8);
		} else {
			CHECK(r != 0 && strstr(c->err, cases[i].expect == -2 ? "disagree" : "cannot tell"),
			      "case %zu: %s", i, c->err);
		}
		ps_core_close(c);
		free(c);
		free(f);
	}
	/* 16K pages do not exist on Book3S. */
	struct fake *f = malloc(sizeof *f);
	setup(f, 16384, RADIX, true, false);
	struct ps_target t = target(f, "ppc64le", 16384);
	struct ps_core *c = calloc(1, sizeof *c);
	CHECK(ps_core_open(c, &t) != 0 && strstr(c->err, "page size"), "16K: %s", c->err);
	ps_core_close(c);
	free(c);
	free(f);
}

/* ---- radix, 64K pages ------------------------------------------------------------------ */

static void test_radix64k(void)
{
	struct fake *f = malloc(sizeof *f);
	setup(f, 65536, RADIX, true, false);
	swapper_entry(f, RADIX);
	struct ps_target t = target(f, "ppc64le", 65536);
	struct ps_core *c = calloc(1, sizeof *c);
	if (!CHECK(ps_core_open(c, &t) == 0, "open: %s", c->err))
		goto out;

	/* User tables: PGD 0x100000 (64K, 8192 entries), PUD 0x110000 (4K), PMD 0x111000 (4K),
	 * PTE fragments of 256 bytes (32 entries) at 0x112000 and 0x112100 (one page holds
	 * several: RADIX_PTE_FRAG_NR). Non-leaf entries: PRESENT | address | NLS. */
	const uint64_t pgd = 0x100000, pud = 0x110000, pmd = 0x111000, pte = 0x112000, pte2 = 0x112100;
	put_pte(f, pgd + 0 * 8, PRES | pud | 9);                          /* PGD[0] -> PUD, NLS 9 */
	put_pte(f, pgd + 1 * 8, LEAF | R_ | 0x40000000);                  /* PGD[1]: leaf in a PGD: bad */
	put_pte(f, pgd + 2 * 8, PRES | 0x120000 | 9);                     /* PGD[2] -> PUD page EXCLUDED */
	fake_mark(f, 0x120000, PS_READ_EXCLUDED);
	put_pte(f, pud + 0 * 8, PRES | pmd | 9);                          /* PUD[0] -> PMD, NLS 9 */
	put_pte(f, pud + 1 * 8, LEAF | R_ | X_ | ACC | 0x40000000);       /* PUD[1]: 1G leaf r-x */
	put_pte(f, pud + 2 * 8, PRES | 0x111800 | 9);                     /* PUD[2]: PMD table not 4K aligned */
	put_pte(f, pmd + 0 * 8, PRES | pte | 5);                          /* PMD[0] -> PTE frag, NLS 5 */
	put_pte(f, pmd + 1 * 8, LEAF | R_ | W_ | ACC | DIRTY | 0x400000); /* PMD[1]: 2M THP rw dirty */
	put_pte(f, pmd + 2 * 8, swp(31, 0x555, 16));                      /* PMD[2]: PMD migration entry */
	put_pte(f, pmd + 3 * 8, PRES | 0x113000 | 9);                     /* PMD[3]: NLS 9, PTE tables have 5 */
	put_pte(f, pmd + 4 * 8, PRES | 0x113000 | 0x20 | 5);              /* PMD[4]: reserved bit 5 (RADIX_PMD_BAD_BITS) */
	put_pte(f, pmd + 5 * 8, 0x113000 | 5);                            /* PMD[5]: table pointer not present */
	put_pte(f, pmd + 6 * 8, PRES | 0x7000000000ull | 5);              /* PMD[6]: table beyond memory */
	put_pte(f, pmd + 7 * 8, PRES | pte2 | 5);                         /* PMD[7] -> second fragment, same page */
	put_pte(f, pmd + 8 * 8, PTEBIT | INVALID | R_ | 0x600000);        /* PMD[8]: THP mid-split (INVALID, not PRESENT) */
	put_pte(f, pmd + 9 * 8, PRES | (1ull << 57) | 0x113000 | 5);      /* PMD[9]: reserved bit 57 */
	put_pte(f, pte + 0 * 8, 0);                                       /* PTE[0]: none */
	put_pte(f, pte + 1 * 8, LEAF | R_ | W_ | ACC | DIRTY | 0x200000); /* PTE[1]: rw- accessed dirty */
	put_pte(f, pte + 2 * 8, LEAF | R_ | X_ | SPECIAL | SOFTD | 0x210000); /* PTE[2]: r-x special soft-dirty */
	put_pte(f, pte + 3 * 8, LEAF | ACC | PRIV | 0x220000);            /* PTE[3]: PROT_NONE (PAGE_NONE) */
	put_pte(f, pte + 4 * 8, LEAF | ACC | 0x230000);                   /* PTE[4]: NUMA hint of a writable page (savedwrite) */
	put_pte(f, pte + 5 * 8, INVALID | PTEBIT | R_ | W_ | ACC | DIRTY | 0x240000); /* PTE[5]: present, being updated */
	put_pte(f, pte + 6 * 8, swp(3, 0x1234, 16) | SOFTD | SWP_EXCL);   /* PTE[6]: swap 3/0x1234, soft-dirty, exclusive */
	put_pte(f, pte + 7 * 8, ACC | DIRTY);                             /* PTE[7]: only R/C written back: none */
	put_pte(f, pte + 8 * 8, PRES | R_ | 0x250000);                    /* PTE[8]: no _PAGE_PTE: bad */
	put_pte(f, pte + 9 * 8, swp(0, 1, 16));                           /* PTE[9]: swap 0/1 */
	put_pte(f, pte + 31 * 8, LEAF | R_ | 0x1f0000);                   /* PTE[31]: the fragment's last entry */
	/* PTE[10] as the bytes a little-endian kernel stores: c0 00 00 00 00 26 01 07 =
	 * PRESENT|PTE | 0x260000 | ACCESSED | R W X (the __be64 the MMU reads). */
	static const uint8_t stored[8] = { 0xc0, 0x00, 0x00, 0x00, 0x00, 0x26, 0x01, 0x07 };
	put_bytes(f, pte + 10 * 8, stored, 8);
	put_pte(f, pte2 + 0 * 8, LEAF | R_ | W_ | ACC | 0x270000);        /* PTE2[0]: in the second fragment */

	struct evlist l = { 0 };
	uint64_t ptb = c->stats.pt_bytes;
	CHECK_U64(ps_pt_walk(c, pgd, 0, 1ull << 52, record, &l), 0);
	unsigned i = 0;
	const uint64_t P = 0x10000;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 1 * P, 1, 16);
	CHECK_U64(l.ev[i].e.addr, 0x200000);
	CHECK_STR(letters(l.ev[i].e.pte), "w-uad-??");
	CHECK(!l.ev[i].e.special, "PTE[1] not special");
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 2 * P, 1, 16);
	CHECK_U64(l.ev[i].e.addr, 0x210000);
	CHECK_STR(letters(l.ev[i].e.pte), "-xu--s??");
	CHECK(l.ev[i].e.special, "PTE[2] special");
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 3 * P, 1, 16); /* PROT_NONE: present, privileged */
	CHECK_U64(l.ev[i].e.addr, 0x220000);
	CHECK_STR(letters(l.ev[i].e.pte), "---a--??");
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 4 * P, 1, 16); /* pte_savedwrite: pte_write true */
	CHECK_U64(l.ev[i].e.addr, 0x230000);
	CHECK_STR(letters(l.ev[i].e.pte), "w-ua--??");
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 5 * P, 1, 16); /* _PAGE_INVALID: pte_present */
	CHECK_U64(l.ev[i].e.addr, 0x240000);
	CHECK_STR(letters(l.ev[i].e.pte), "w-uad-??");
	i++;
	CHECK_EV(l, i, PS_PT_EV_SWAP, 6 * P, 1, 16);
	CHECK_U64(l.ev[i].e.swp_type, 3);
	CHECK_U64(l.ev[i].e.swp_off, 0x1234);
	CHECK(ps_pte_has(l.ev[i].e.pte, PS_PTE_SOFTDIRTY), "swap soft-dirty");
	CHECK(ps_pte_has(l.ev[i].e.pte, PS_PTE_EXCLUSIVE), "swap exclusive");
	i++;
	CHECK_EV(l, i, PS_PT_EV_BAD, 8 * P, 1, 16);
	CHECK_STR(l.ev[i].e.why, "PTE without _PAGE_PTE");
	i++;
	CHECK_EV(l, i, PS_PT_EV_SWAP, 9 * P, 1, 16);
	CHECK_U64(l.ev[i].e.swp_type, 0);
	CHECK_U64(l.ev[i].e.swp_off, 1);
	CHECK(!ps_pte_has(l.ev[i].e.pte, PS_PTE_SOFTDIRTY), "swap 0/1 not soft-dirty");
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 10 * P, 1, 16); /* decoded from the stored bytes */
	CHECK_U64(l.ev[i].e.addr, 0x260000);
	CHECK_STR(letters(l.ev[i].e.pte), "wxua--??");
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 31 * P, 1, 16);
	CHECK_U64(l.ev[i].e.addr, 0x1f0000);
	CHECK_STR(letters(l.ev[i].e.pte), "--u---??");
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 2ull << 20, 32, 21); /* PMD[1]: 2M = 32 pages of 64K */
	CHECK_U64(l.ev[i].e.addr, 0x400000);
	CHECK_STR(letters(l.ev[i].e.pte), "w-uad-??");
	CHECK(!l.ev[i].e.special, "no pmd_special in 6.1");
	i++;
	CHECK_EV(l, i, PS_PT_EV_SWAP, 4ull << 20, 32, 21);
	CHECK_U64(l.ev[i].e.swp_type, 31);
	CHECK_U64(l.ev[i].e.swp_off, 0x555);
	i++;
	CHECK_EV(l, i, PS_PT_EV_BAD, 6ull << 20, 32, 21);
	CHECK_STR(l.ev[i].e.why, "next-level size bits disagree with the geometry");
	i++;
	CHECK_EV(l, i, PS_PT_EV_BAD, 8ull << 20, 32, 21);
	CHECK_STR(l.ev[i].e.why, "reserved bits set in a table entry");
	i++;
	CHECK_EV(l, i, PS_PT_EV_BAD, 10ull << 20, 32, 21);
	CHECK_STR(l.ev[i].e.why, "non-present table entry");
	i++;
	CHECK_EV(l, i, PS_PT_EV_BAD, 12ull << 20, 32, 21);
	CHECK_STR(l.ev[i].e.why, "table beyond memory");
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 14ull << 20, 1, 16); /* PMD[7] -> fragment 2, PTE2[0] */
	CHECK_U64(l.ev[i].e.addr, 0x270000);
	CHECK_STR(letters(l.ev[i].e.pte), "w-ua--??");
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 16ull << 20, 32, 21); /* PMD[8]: splitting THP, still mapped */
	CHECK_U64(l.ev[i].e.addr, 0x600000);
	i++;
	CHECK_EV(l, i, PS_PT_EV_BAD, 18ull << 20, 32, 21);
	CHECK_STR(l.ev[i].e.why, "reserved bits set in a table entry");
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 1ull << 30, 1ull << 14, 30); /* PUD[1]: 1G */
	CHECK_U64(l.ev[i].e.addr, 0x40000000);
	CHECK_STR(letters(l.ev[i].e.pte), "-xua--??");
	i++;
	CHECK_EV(l, i, PS_PT_EV_BAD, 2ull << 30, 1ull << 14, 30);
	CHECK_STR(l.ev[i].e.why, "misaligned page-table pointer");
	i++;
	CHECK_EV(l, i, PS_PT_EV_BAD, 1ull << 39, 1ull << 23, 39);
	CHECK_STR(l.ev[i].e.why, "leaf in a PGD entry");
	i++;
	CHECK_EV(l, i, PS_PT_EV_UNREADABLE, 2ull << 39, 1ull << 23, 30);
	CHECK_STR(l.ev[i].e.why, "excluded");
	i++;
	CHECK_U64(l.n, i);
	/* User PGD slice (8192 entries: the whole 64K), PUD, PMD (4K each), two 256-byte
	 * fragments, the excluded PUD page. */
	CHECK_U64(c->stats.pt_bytes - ptb, 65536 + 4096 + 4096 + 256 + 256 + 4096);

	/* One decode of a raw value, and a translation through the same tables. */
	struct ps_pt_entry e;
	memset(&e, 0, sizeof e);
	c->arch->decode(c, 3, 0xc000000000260107ull, &e);
	CHECK_U64(e.kind, PS_PT_LEAF);
	CHECK_U64(e.addr, 0x260000);
	uint64_t pa = 0;
	CHECK_U64(ps_pt_translate(c, pgd, 10 * P + 0x1234, &pa), 0);
	CHECK_U64(pa, 0x261234);
	CHECK_U64(ps_pt_translate(c, pgd, (2ull << 20) + 0x12345, &pa), 0);
	CHECK_U64(pa, 0x412345);

	/* Kernel: the linear map without tables, vmemmap through vmemmap_list, vmalloc
	 * through swapper_pg_dir (PGD[0x1000] covers 0xc008000000000000). */
	CHECK_U64(ps_kvtop(c, KVA(0x1234567), &pa), 0);
	CHECK_U64(pa, 0x1234567);
	CHECK_U64(c->arch->user_pgd(c, KVA(pgd)), pgd);
	CHECK_U64(c->arch->pfn_to_page(c, 5), VMEMMAP + 5 * 64);
	CHECK_U64(ps_kvtop(c, VMEMMAP + 5 * 64, &pa), 0);
	CHECK_U64(pa, 0x6000000 + 5 * 64);
	CHECK_U64(ps_kvtop(c, VMEMMAP + 0x1fffff, &pa), 0); /* last byte of the 2M chunk */
	CHECK_U64(pa, 0x61fffff);
	CHECK(ps_kvtop(c, VMEMMAP + 0x200000, &pa) != 0, "vmemmap beyond its chunks");
	const uint64_t vm = 0xc008000000020000ull;
	put_pte(f, SWAPPER + 0x1000 * 8, PRES | 0x2810000 | 9);             /* PGD[0x1000] -> PUD */
	put_pte(f, 0x2810000 + 0 * 8, PRES | 0x2811000 | 9);                /* PUD[0] -> PMD */
	put_pte(f, 0x2811000 + 0 * 8, PRES | 0x2812000 | 5);                /* PMD[0] -> PTE frag */
	put_pte(f, 0x2812000 + 2 * 8, LEAF | R_ | W_ | ACC | DIRTY | PRIV | 0x7a30000); /* PTE[2]: kernel rw */
	CHECK_U64(ps_kvtop(c, vm + 0x10, &pa), 0);
	CHECK_U64(pa, 0x7a30010);
	CHECK(ps_kvtop(c, vm + 0x10000, &pa) != 0, "unmapped vmalloc page");
out:
	ps_core_close(c);
	free(c);
	free(f);
}

/* ---- radix, 4K pages: 512-entry PTE tables --------------------------------------------- */

static void test_radix4k(void)
{
	struct fake *f = malloc(sizeof *f);
	setup(f, 4096, RADIX, true, false);
	swapper_entry(f, RADIX);
	struct ps_target t = target(f, "ppc64le", 4096);
	struct ps_core *c = calloc(1, sizeof *c);
	if (!CHECK(ps_core_open(c, &t) == 0, "open: %s", c->err))
		goto out;
	const uint64_t pgd = 0x100000, pud = 0x110000, pmd = 0x111000, pte = 0x112000;
	put_pte(f, pgd + 0 * 8, PRES | pud | 9);                        /* PGD[0] -> PUD */
	put_pte(f, pud + 0 * 8, PRES | pmd | 9);                        /* PUD[0] -> PMD */
	put_pte(f, pmd + 0 * 8, PRES | pte | 9);                        /* PMD[0] -> PTE table, NLS 9 */
	put_pte(f, pmd + 1 * 8, PRES | 0x113000 | 5);                   /* PMD[1]: NLS 5 is the 64K size: bad */
	put_pte(f, pte + 511 * 8, LEAF | R_ | W_ | ACC | 0x345000);      /* PTE[511] */
	put_pte(f, pte + 5 * 8, swp(2, 0xabcde, 12));                    /* PTE[5]: swap, 4K offset shift */
	struct evlist l = { 0 };
	CHECK_U64(ps_pt_walk(c, pgd, 0, 1ull << 46, record, &l), 0);
	CHECK_EV(l, 0, PS_PT_EV_SWAP, 5 * 4096, 1, 12);
	CHECK_U64(l.ev[0].e.swp_type, 2);
	CHECK_U64(l.ev[0].e.swp_off, 0xabcde);
	CHECK_EV(l, 1, PS_PT_EV_LEAF, 511 * 4096, 1, 12);
	CHECK_U64(l.ev[1].e.addr, 0x345000);
	CHECK_EV(l, 2, PS_PT_EV_BAD, 2ull << 20, 512, 21);
	CHECK_U64(l.n, 3);
out:
	ps_core_close(c);
	free(c);
	free(f);
}

/* ---- hash, 64K pages ------------------------------------------------------------------- */

static void test_hash64k(void)
{
	struct fake *f = malloc(sizeof *f);
	setup(f, 65536, HASH, true, false);
	swapper_entry(f, HASH);
	struct ps_target t = target(f, "ppc64le", 65536);
	struct ps_core *c = calloc(1, sizeof *c);
	if (!CHECK(ps_core_open(c, &t) == 0, "open: %s", c->err))
		goto out;

	/* PGD 0x300000 (256 entries, 2K), PUD 0x304000 (1024 entries + the hugetlb half),
	 * PMD 0x308000 (1024 entries + the THP half), PTE fragment 0x310000: 256 PTEs (2K)
	 * then 256 hidx words (2K, __real_pte) that are not entries. Pointers: PRESENT | pa. */
	const uint64_t pgd = 0x300000, pud = 0x304000, pmd = 0x308000, pte = 0x310000;
	put_pte(f, pgd + 0 * 8, PRES | pud);                                /* PGD[0] -> PUD */
	put_pte(f, pud + 0 * 8, PRES | pmd);                                /* PUD[0] -> PMD */
	put_pte(f, pud + 1 * 8, LEAF | R_ | W_ | ACC | DIRTY | 0x400000000ull); /* PUD[1]: 16G hugetlb leaf */
	put_pte(f, pmd + 0 * 8, PRES | pte);                                /* PMD[0] -> PTE fragment */
	put_pte(f, pmd + 1 * 8, LEAF | H_THP | R_ | W_ | ACC | DIRTY | 0x1000000); /* PMD[1]: 16M THP */
	put_pte(f, pmd + 2 * 8, PRES | 0x318000 | 0x10);                    /* PMD[2]: low bits set: bad */
	put_pte(f, pmd + 3 * 8, PRES | 0x318800);                           /* PMD[3]: fragment not 4K aligned */
	put_pte(f, pmd + 1024 * 8, PRES | 0x31c000);                        /* PMD second half (deposit): not an entry */
	put_pte(f, pte + 0 * 8, LEAF | R_ | W_ | ACC | DIRTY | H_HASHPTE | H_BUSY | 0x500000); /* PTE[0]: rw, in the HPT */
	put_pte(f, pte + 1 * 8, H_HASHPTE | H_COMBO);                       /* PTE[1]: only HPTE flags: none */
	put_pte(f, pte + 2 * 8, swp(1, 0x42, 16));                          /* PTE[2]: swap 1/0x42 */
	put_pte(f, pte + 3 * 8, LEAF | R_ | X_ | ACC | H_COMBO | 0x510000); /* PTE[3]: 64K page hashed as 4K subpages */
	put_pte(f, pte + 255 * 8, LEAF | R_ | 0x5f0000);                    /* PTE[255]: the last entry */
	for (unsigned k = 256; k < 512; k++)
		put_pte(f, pte + k * 8, 0x1111111111111111ull * (k & 0xf));     /* hidx half: slot nibbles */

	struct evlist l = { 0 };
	uint64_t ptb = c->stats.pt_bytes;
	CHECK_U64(ps_pt_walk(c, pgd, 0, 1ull << 52, record, &l), 0);
	unsigned i = 0;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0, 1, 16);
	CHECK_U64(l.ev[i].e.addr, 0x500000); /* H_PAGE_HASHPTE (bit 55) is above the RPN */
	CHECK_STR(letters(l.ev[i].e.pte), "w-uad-??");
	i++;
	CHECK_EV(l, i, PS_PT_EV_SWAP, 2 * 0x10000, 1, 16);
	CHECK_U64(l.ev[i].e.swp_type, 1);
	CHECK_U64(l.ev[i].e.swp_off, 0x42);
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 3 * 0x10000, 1, 16);
	CHECK_U64(l.ev[i].e.addr, 0x510000); /* H_PAGE_COMBO (0x1000) is below the RPN */
	CHECK_STR(letters(l.ev[i].e.pte), "-xua--??");
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 255 * 0x10000, 1, 16);
	CHECK_U64(l.ev[i].e.addr, 0x5f0000);
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 16ull << 20, 256, 24); /* PMD[1]: 16M */
	CHECK_U64(l.ev[i].e.addr, 0x1000000);
	CHECK_STR(letters(l.ev[i].e.pte), "w-uad-??");
	i++;
	CHECK_EV(l, i, PS_PT_EV_BAD, 32ull << 20, 256, 24);
	CHECK_STR(l.ev[i].e.why, "low bits set in a table entry");
	i++;
	CHECK_EV(l, i, PS_PT_EV_BAD, 48ull << 20, 256, 24);
	CHECK_STR(l.ev[i].e.why, "misaligned page-table pointer");
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 1ull << 34, 1ull << 18, 34); /* PUD[1]: 16G */
	CHECK_U64(l.ev[i].e.addr, 0x400000000ull);
	i++;
	CHECK_U64(l.n, i); /* nothing from the hidx or deposit halves */
	/* PGD 2K, PUD 8K, PMD 8K, the PTE table's first half only (2K): not the hidx half. */
	CHECK_U64(c->stats.pt_bytes - ptb, 2048 + 8192 + 8192 + 2048);

	/* Kernel: vmemmap lives in the hash table only: vmemmap_list (16M chunks) translates
	 * it; vmalloc through swapper_pg_dir with the hash geometry (PGD[0x80]). */
	uint64_t pa;
	CHECK_U64(c->arch->pfn_to_page(c, 0x1000), VMEMMAP + 0x1000 * 64);
	CHECK_U64(ps_kvtop(c, VMEMMAP + 0xfffff8, &pa), 0);
	CHECK_U64(pa, 0x6fffff8);
	CHECK(ps_kvtop(c, VMEMMAP + 0x1000000, &pa) != 0, "beyond the 16M chunk");
	const uint64_t vm = 0xc008000000020000ull;
	put_pte(f, 0x2804000 + 0 * 8, PRES | 0x2808000);                    /* PUD[0] -> PMD */
	put_pte(f, 0x2808000 + 0 * 8, PRES | 0x2810000);                    /* PMD[0] -> PTE */
	put_pte(f, 0x2810000 + 2 * 8, LEAF | R_ | W_ | PRIV | ACC | DIRTY | 0x7a30000); /* PTE[2] */
	CHECK_U64(ps_kvtop(c, vm + 0x20, &pa), 0);
	CHECK_U64(pa, 0x7a30020);
out:
	ps_core_close(c);
	free(c);
	free(f);
}

/* ---- hash, 4K pages: hugepd is refused by name ------------------------------------------ */

static void test_hash4k(void)
{
	struct fake *f = malloc(sizeof *f);
	setup(f, 4096, HASH, true, false);
	swapper_entry(f, HASH);
	fake_put(f, VMEMMAP_NODE + 16, 0xc0003f0000000000ull, 8); /* H_VMEMMAP_START with 4K pages */
	struct ps_target t = target(f, "ppc64le", 4096);
	struct ps_core *c = calloc(1, sizeof *c);
	if (!CHECK(ps_core_open(c, &t) == 0, "open: %s", c->err))
		goto out;
	const uint64_t pgd = 0x300000, pud = 0x301000, pmd = 0x302000, pte = 0x303000;
	put_pte(f, pgd + 0 * 8, PRES | pud);                       /* PGD[0] -> PUD (512 entries) */
	put_pte(f, pud + 0 * 8, PRES | pmd);                       /* PUD[0] -> PMD (128 entries, 1K) */
	put_pte(f, pmd + 0 * 8, PRES | pte);                       /* PMD[0] -> PTE (512 entries) */
	put_pte(f, pmd + 1 * 8, PRES | 0x304000 | 24);             /* PMD[1]: hugepd, shift 24 (16M hugetlb) */
	put_pte(f, pte + 3 * 8, LEAF | R_ | ACC | (1ull << 60) | (5ull << 53) | 0x777000); /* PTE[3]: HASHPTE, GIX */
	put_pte(f, pte + 4 * 8, (1ull << 60) | (1ull << 56));      /* PTE[4]: only HPTE flags: none */
	struct evlist l = { 0 };
	CHECK_U64(ps_pt_walk(c, pgd, 0, 1ull << 46, record, &l), 0);
	CHECK_EV(l, 0, PS_PT_EV_LEAF, 3 * 4096, 1, 12);
	CHECK_U64(l.ev[0].e.addr, 0x777000);
	CHECK_EV(l, 1, PS_PT_EV_BAD, 2ull << 20, 512, 21);
	CHECK_STR(l.ev[1].e.why, "hugepd (hash 4K hugetlb) not supported");
	CHECK_U64(l.n, 2);
	uint64_t pa;
	CHECK_U64(ps_kvtop(c, 0xc0003f0000000000ull + 0x40, &pa), 0); /* H_VMEMMAP_START (4K) */
	CHECK_U64(pa, 0x6000040);
out:
	ps_core_close(c);
	free(c);
	free(f);
}

/* ---- big-endian ppc64: kernel data big-endian, entries as on ppc64le --------------------- */

static void test_ppc64_big_endian(void)
{
	struct fake *f = malloc(sizeof *f);
	setup(f, 65536, RADIX, true, true);
	swapper_entry(f, RADIX);
	struct ps_target t = target(f, "ppc64", 65536);
	struct ps_core *c = calloc(1, sizeof *c);
	if (!CHECK(ps_core_open(c, &t) == 0, "open: %s", c->err))
		goto out;
	CHECK_STR(c->arch->name, "ppc64");
	CHECK(c->geom.entries_big_endian, "entries big-endian");
	const uint64_t pgd = 0x100000;
	put_pte(f, pgd, PRES | 0x110000 | 9);
	put_pte(f, 0x110000, PRES | 0x111000 | 9);
	put_pte(f, 0x111000, PRES | 0x112000 | 5);
	put_pte(f, 0x112000 + 8, LEAF | R_ | 0x330000);
	struct evlist l = { 0 };
	CHECK_U64(ps_pt_walk(c, pgd, 0, 1ull << 52, record, &l), 0);
	CHECK_EV(l, 0, PS_PT_EV_LEAF, 0x10000, 1, 16);
	CHECK_U64(l.ev[0].e.addr, 0x330000);
	CHECK_U64(l.n, 1);
	uint64_t pa;
	CHECK_U64(ps_kvtop(c, VMEMMAP + 0x80, &pa), 0); /* the list read big-endian */
	CHECK_U64(pa, 0x6000080);
out:
	ps_core_close(c);
	free(c);
	free(f);
}

/* Without vmemmap_list a radix kernel's vmemmap still translates (swapper_pg_dir maps it);
 * a corrupt entry (unaligned, outside vmemmap) is ignored. */
static void test_vmemmap_fallback(void)
{
	struct fake *f = malloc(sizeof *f);
	setup(f, 65536, RADIX, true, false);
	swapper_entry(f, RADIX);
	fake_put(f, VMEMMAP_NODE + 16, VMEMMAP + 0x1234, 8); /* node.virt_addr not 2M aligned */
	put_pte(f, SWAPPER + 0x1800 * 8, PRES | 0x2820000 | 9);              /* PGD[0x1800] -> PUD */
	put_pte(f, 0x2820000, PRES | 0x2821000 | 9);                         /* PUD[0] -> PMD */
	put_pte(f, 0x2821000, LEAF | R_ | W_ | PRIV | ACC | DIRTY | 0x6200000); /* PMD[0]: 2M kernel leaf */
	struct ps_target t = target(f, "ppc64le", 65536);
	struct ps_core *c = calloc(1, sizeof *c);
	uint64_t pa;
	if (CHECK(ps_core_open(c, &t) == 0, "open: %s", c->err)) {
		CHECK_U64(ps_kvtop(c, VMEMMAP + 0x100, &pa), 0);
		CHECK_U64(pa, 0x6200100);
	}
	ps_core_close(c);
	free(c);
	free(f);
}

/* A dump without VMCOREINFO (QEMU's pseries dumps): open knows the linear map only; the
 * type information's swapper_pg_dir completes the setup (the MMU from its entries). */
static void test_without_vmcoreinfo(void)
{
	struct fake *f = malloc(sizeof *f);
	setup(f, 65536, RADIX, false, false);
	f->nvmci = 0;
	vmci(f, "PAGESIZE", "65536");
	swapper_entry(f, RADIX);
	struct ps_target t = target(f, "ppc64le", 65536);
	struct ps_core *c = calloc(1, sizeof *c);
	struct ps_kinfo *ki = calloc(1, sizeof *ki);
	uint64_t pa;
	if (!CHECK(ps_core_open(c, &t) == 0, "open: %s", c->err))
		goto out;
	CHECK_U64(c->geom.nlevels, 0);
	CHECK_U64(ps_kvtop(c, KVA(0x1234), &pa), 0);
	CHECK_U64(pa, 0x1234);
	CHECK_U64(c->arch->pfn_to_page(c, 1), 0); /* vmemmap not known yet */
	ps_kinfo_init(ki);
	ki->symbol[PS_KI_SWAPPER_PG_DIR] = KVA(SWAPPER);
	ki->symbol[PS_KI_INIT_TASK] = KVA(0x2000000);
	if (CHECK(ps_core_set_kinfo(c, ki) == 0, "set_kinfo: %s", c->err)) {
		CHECK_U64(c->geom.nlevels, 4);
		CHECK_U64(c->geom.levels[0].bits, 13);
		CHECK_U64(c->arch->kernel_pgd(c), SWAPPER);
		CHECK_U64(c->arch->pfn_to_page(c, 1), VMEMMAP + 64);
	}
	/* Type information without the symbol either: an error naming it. */
	ki->symbol[PS_KI_SWAPPER_PG_DIR] = 0;
	CHECK(ps_core_set_kinfo(c, ki) != 0 && strstr(c->err, "swapper_pg_dir"), "no swapper_pg_dir: %s", c->err);
out:
	ps_core_close(c);
	free(ki);
	free(c);
	free(f);
}

int main(void)
{
	test_geometry();
	test_detection();
	test_radix64k();
	test_radix4k();
	test_hash64k();
	test_hash4k();
	test_ppc64_big_endian();
	test_vmemmap_fallback();
	test_without_vmcoreinfo();
	return check_summary("test_arch_ppc64");
}
