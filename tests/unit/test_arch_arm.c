/* test_arch_arm.c - unit tests of the 32-bit ARM walker (walker/arch_arm.c) on hand-built
 * page tables, in the manner of libkdumpfile's addrxlat tests: every entry is written with
 * a comment saying what it is, and each walk asserts the exact events (kind, VA, pages,
 * shift, physical address, PTE letters, swap type/offset).
 *
 * Short descriptors: Linux's pgd pairs, the PTE page's Linux half (the hardware half is
 * never read), 2 MiB section pairs, swap entries, malformed first-level descriptors;
 * PHYS_OFFSET found from swapper_pg_dir, with and without symbols; kernel translation of
 * lowmem (linear) and of vmalloc (tables). LPAE: the 3-level geometry, blocks, PTEs, swap.
 *
 * Prints "FAIL: file:line: ..." per failed check and "test_arch_arm: N checks, M failed".
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "check.h"
#include "pt_harness.h"
#include "kversion.h"

/* ---- the synthetic dump and the walk recorder: tests/unit/pt_harness.h ---------------- */

/* A Linux pgd entry: the pair pmd[0], pmd[1] at PA. */
static void put_pair(struct fake *f, uint64_t pa, uint32_t w0, uint32_t w1)
{
	put32(f, pa, w0);
	put32(f, pa + 4, w1);
}

/* QEMU's armhf dumps say neither the page size nor VMCOREINFO: page_size 0 here. */
static struct ps_target fake_target(struct fake *f)
{
	return (struct ps_target){ .ops = &fake_ops, .ctx = f, .arch = "arm", .big_endian = f->big_endian,
				   .ptr_size = 4, .page_size = 0, .max_pfn = 0x50000 /* RAM to 0x50000000 */ };
}

/* ---- short descriptors ------------------------------------------------------------------ */

/* arch/arm/include/asm/pgtable-2level.h, -2level-hwdef.h */
#define L_PRESENT 0x001u
#define L_YOUNG 0x002u
#define L_DIRTY 0x040u
#define L_RDONLY 0x080u
#define L_USER 0x100u
#define L_XN 0x200u
#define L_SHARED 0x400u
#define L_NONE 0x800u
#define L_MT_WRITEALLOC (0x7u << 2)
#define PMD_TABLE 0x1u
#define PMD_SECT 0x2u
#define PMD_USER_TABLE (PMD_TABLE | 0x10u | (1u << 5)) /* _PAGE_USER_TABLE: BIT4, domain user */
#define SECT_AP_WRITE 0x400u
#define SECT_AP_READ 0x800u
#define SECT_XN 0x10u
#define SECT_SUPER 0x40000u
#define SECT_KERNEL (PMD_SECT | 0x0cu | SECT_AP_WRITE) /* 0x40e: cached, kernel rw */

#define PHYS 0x40000000u
#define PO 0xc0000000u
#define SWAPPER (PO + 0x204000u) /* Debian armmp: TEXT_OFFSET 0x208000 */
#define SWAPPER_PA (SWAPPER - PO + PHYS)

/* The kernel's tables and variables of a 2-level kernel: lowmem 0xc0000000-0xc0400000 in
 * two section pairs, a vmalloc page at 0xe0003000, high_memory, __pv_phys_pfn_offset. */
static void arm_kernel(struct fake *f, uint32_t pv_pfn)
{
	const uint64_t pgd = SWAPPER_PA;
	put_pair(f, pgd + (PO >> 21) * 8, PHYS | SECT_KERNEL, (PHYS + 0x100000) | SECT_KERNEL); /* 0xc0000000: lowmem */
	put_pair(f, pgd + ((PO >> 21) + 1) * 8, (PHYS + 0x200000) | SECT_KERNEL | SECT_XN,
		 (PHYS + 0x300000) | SECT_KERNEL | SECT_XN);                                /* 0xc0200000: lowmem, XN */
	put_pair(f, pgd + (0xe0000000u >> 21) * 8, 0x40020800u | PMD_TABLE,
		 0x40020c00u | PMD_TABLE);                                                   /* 0xe0000000: vmalloc table */
	put32(f, 0x40020000 + 3 * 4, 0x40555000u | L_PRESENT | L_YOUNG | L_DIRTY | L_XN | L_MT_WRITEALLOC); /* its PTE 3 */
	put32(f, 0x40020800 + 3 * 4, 0x40555032u); /* the hardware PTE: never read */
	put_pair(f, pgd + (0xe0200000u >> 21) * 8, 0x40700000u | SECT_KERNEL,
		 0x40900000u | SECT_KERNEL);                                                 /* 0xe0200000: sections, not one block */
	put32(f, PHYS + 0x10000, PO + 0x400000); /* high_memory at 0xc0010000 */
	put32(f, PHYS + 0x10004, pv_pfn);        /* __pv_phys_pfn_offset at 0xc0010004 */
}

static void test_arm_2level(void)
{
	struct fake *f = calloc(1, sizeof *f);
	vmci(f, "SYMBOL(swapper_pg_dir)", "%x", SWAPPER);
	vmci(f, "SYMBOL(high_memory)", "%x", PO + 0x10000);
	vmci(f, "SYMBOL(__pv_phys_pfn_offset)", "%x", PO + 0x10004);
	arm_kernel(f, PHYS >> 12);
	struct ps_target t = fake_target(f);
	struct ps_core *c = calloc(1, sizeof *c);
	if (!CHECK(ps_core_open(c, &t) == 0, "open: %s", c->err))
		goto out;
	CHECK_U64(c->page_size, 4096); /* the dump did not say: 32-bit ARM has 4K pages */
	CHECK_U64(c->geom.nlevels, 2);
	CHECK_U64(c->geom.levels[0].shift, 21);
	CHECK_U64(c->geom.levels[0].bits, 11);
	CHECK_U64(c->geom.levels[0].entry_size, 8);
	CHECK_U64(c->geom.levels[1].shift, 12);
	CHECK_U64(c->geom.levels[1].bits, 9);
	CHECK_U64(c->geom.levels[1].entry_size, 4);
	CHECK_U64(c->geom.user_va_end, 0xbf000000); /* TASK_SIZE: PAGE_OFFSET - 16M */
	CHECK_U64(c->arch->kernel_pgd(c), SWAPPER_PA);
	uint64_t pa = 0;
	CHECK(c->arch->kvtop_direct(c, 0xc0001234, &pa) && pa == 0x40001234, "lowmem linear: %llx",
	      (unsigned long long)pa);
	CHECK(!c->arch->kvtop_direct(c, 0xc0400000, &pa), "high_memory ends the linear map");
	CHECK_U64(ps_kvtop(c, 0xe0003010, &pa), 0); /* vmalloc: through swapper_pg_dir */
	CHECK_U64(pa, 0x40555010);
	CHECK_U64(ps_pt_translate(c, SWAPPER_PA, 0xc0300008, &pa), 0); /* a section pair as 2M */
	CHECK_U64(pa, 0x40300008);
	CHECK(ps_kvtop(c, 0xe0200000, &pa) != 0, "split section pair does not translate");
	CHECK(ps_kvtop(c, 0xe0400000, &pa) != 0, "unmapped");

	/* User tables: pgd at 0x40100000 (16K), a PTE page at 0x40200000 whose second half holds
	 * the hardware tables. */
	const uint64_t pgd = 0x40100000, pt = 0x40200000;
	for (unsigned k = 1; k < 4; k++)
		fake_page(f, pgd + k * 4096, true); /* the rest of the 16K pgd: empty */
	put_pair(f, pgd + 0 * 8, (pt + 2048) | PMD_USER_TABLE, (pt + 3072) | PMD_USER_TABLE); /* [0] 0-2M: table */
	put_pair(f, pgd + 1 * 8, 0, 0x40201c00u | PMD_USER_TABLE); /* [1] 2M: pmd[0] empty: none to Linux */
	put_pair(f, pgd + 2 * 8, 0x40600000u | PMD_SECT | SECT_AP_WRITE | SECT_AP_READ,
		 0x40700000u | PMD_SECT | SECT_AP_WRITE | SECT_AP_READ);                     /* [2] 4M: a 2M section pair */
	put_pair(f, pgd + 3 * 8, 0x40600000u | PMD_SECT, 0x40900000u | PMD_SECT);         /* [3] 6M: pair not contiguous */
	put_pair(f, pgd + 4 * 8, 0x41000000u | PMD_SECT | SECT_SUPER, 0x41000000u | PMD_SECT | SECT_SUPER); /* [4] 8M: supersection */
	put_pair(f, pgd + 5 * 8, 0x40300000u, 0);                                          /* [5] 10M: fault type, bits set */
	put_pair(f, pgd + 6 * 8, 0x40300003u, 0);                                          /* [6] 12M: reserved type 0b11 */
	put_pair(f, pgd + 7 * 8, 0x7f000800u | PMD_USER_TABLE, 0x7f000c00u | PMD_USER_TABLE); /* [7] 14M: table beyond RAM */
	put_pair(f, pgd + 8 * 8, 0x40210800u | PMD_USER_TABLE, 0x40210c00u | PMD_USER_TABLE); /* [8] 16M: table not in dump */
	put32(f, pt + 1 * 4, 0x40300000u | L_PRESENT | L_YOUNG | L_DIRTY | L_USER | L_XN | L_SHARED); /* PTE 1: rw- young dirty */
	put32(f, pt + 2 * 4, 0x40301000u | L_PRESENT | L_RDONLY | L_USER);                 /* PTE 2: r-x, old, clean */
	put32(f, pt + 3 * 4, 0x40302000u | L_PRESENT | L_YOUNG | L_RDONLY | L_XN | L_NONE); /* PTE 3: PROT_NONE, present */
	put32(f, pt + 4 * 4, (3u << 2) | (0x1234u << 7));                                  /* PTE 4: swap 3/0x1234 */
	put32(f, pt + 5 * 4, (31u << 2) | (0x1ffffffu << 7));                              /* PTE 5: swap 31/0x1ffffff */
	put32(f, pt + 256 * 4, 0x40303000u | L_PRESENT | L_USER | L_YOUNG);                /* PTE 256: 1M, linux pt 1 */
	put32(f, pt + 2048 + 1 * 4, 0x40300032u);                                          /* hw pt 0: never read */
	put32(f, pt + 2048 + 100 * 4, 0x40400032u);                                        /* hw pt 0 [100]: never read */

	struct evlist l = { 0 };
	CHECK_U64(ps_pt_walk(c, pgd, 0, 0xc0000000, record, &l), 0);
	unsigned i = 0;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0x1000, 1, 12);
	CHECK_U64(l.ev[i].e.addr, 0x40300000);
	CHECK_STR(letters(l.ev[i].e.pte), "w-uad???");
	CHECK(!l.ev[i].e.special, "no pte_special on 2-level ARM");
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0x2000, 1, 12);
	CHECK_U64(l.ev[i].e.addr, 0x40301000);
	CHECK_STR(letters(l.ev[i].e.pte), "-xu--???");
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0x3000, 1, 12);
	CHECK_U64(l.ev[i].e.addr, 0x40302000);
	CHECK_STR(letters(l.ev[i].e.pte), "---a-???");
	i++;
	CHECK_EV(l, i, PS_PT_EV_SWAP, 0x4000, 1, 12);
	CHECK_U64(l.ev[i].e.swp_type, 3);
	CHECK_U64(l.ev[i].e.swp_off, 0x1234);
	i++;
	CHECK_EV(l, i, PS_PT_EV_SWAP, 0x5000, 1, 12);
	CHECK_U64(l.ev[i].e.swp_type, 31);
	CHECK_U64(l.ev[i].e.swp_off, 0x1ffffff);
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0x100000, 1, 12);
	CHECK_U64(l.ev[i].e.addr, 0x40303000);
	CHECK_STR(letters(l.ev[i].e.pte), "wxua-???");
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0x400000, 512, 21); /* the section pair */
	CHECK_U64(l.ev[i].e.addr, 0x40600000);
	CHECK_STR(letters(l.ev[i].e.pte), "wxu?????");
	i++;
	CHECK_EV(l, i, PS_PT_EV_BAD, 0x600000, 512, 21);
	CHECK_CONTAINS(l.ev[i].e.why, "2 MiB block");
	i++;
	CHECK_EV(l, i, PS_PT_EV_BAD, 0x800000, 512, 21);
	CHECK_CONTAINS(l.ev[i].e.why, "supersection");
	i++;
	CHECK_EV(l, i, PS_PT_EV_BAD, 0xa00000, 512, 21);
	CHECK_STR(l.ev[i].e.why, "fault descriptor with bits set");
	i++;
	CHECK_EV(l, i, PS_PT_EV_BAD, 0xc00000, 512, 21);
	CHECK_STR(l.ev[i].e.why, "reserved first-level descriptor type");
	i++;
	CHECK_EV(l, i, PS_PT_EV_BAD, 0xe00000, 512, 21);
	CHECK_STR(l.ev[i].e.why, "table beyond memory");
	i++;
	CHECK_EV(l, i, PS_PT_EV_UNREADABLE, 0x1000000, 512, 12);
	i++;
	CHECK_U64(l.n, i);

	/* A range inside the table: only its slice, clipped. */
	l.n = 0;
	CHECK_U64(ps_pt_walk(c, pgd, 0x2000, 0x4000, record, &l), 0);
	CHECK_EV(l, 0, PS_PT_EV_LEAF, 0x2000, 1, 12);
	CHECK_EV(l, 1, PS_PT_EV_LEAF, 0x3000, 1, 12);
	CHECK_U64(l.n, 2);
	CHECK_U64(c->arch->user_pgd(c, 0xc0100000), 0x40100000); /* mm->pgd: lowmem */
out:
	ps_core_close(c);
	free(c);
	free(f);
}

/* PHYS_OFFSET without symbols (the first setup of a dump without VMCOREINFO): the usual
 * places of swapper_pg_dir are tried, and the candidate whose table maps PAGE_OFFSET to
 * itself wins. A __pv_phys_pfn_offset that disagrees with every candidate refuses. */
static void test_arm_phys_offset(void)
{
	struct fake *f = calloc(1, sizeof *f);
	arm_kernel(f, PHYS >> 12);
	put_pair(f, SWAPPER_PA - 0x200000 + 0x1000000 + (PO >> 21) * 8, 0x41000000u | SECT_KERNEL,
		 0x41100000u | SECT_KERNEL); /* a decoy table at PHYS + 16M mapping PAGE_OFFSET to itself */
	struct ps_target t = fake_target(f);
	struct ps_core *c = calloc(1, sizeof *c);
	if (CHECK(ps_core_open(c, &t) == 0, "open: %s", c->err)) {
		CHECK_U64(c->arch->kernel_pgd(c), SWAPPER_PA); /* found at PAGE_OFFSET + 0x204000 */
		uint64_t pa = 0;
		CHECK(c->arch->kvtop_direct(c, 0xc0000010, &pa) && pa == 0x40000010, "linear %llx",
		      (unsigned long long)pa);
		/* high_memory unknown: lowmem as far as section pairs map it linearly */
		CHECK(c->arch->kvtop_direct(c, 0xc03fffff, &pa), "section-mapped lowmem");
		CHECK(!c->arch->kvtop_direct(c, 0xc0400000, &pa), "end of the section map");
	}
	ps_core_close(c);

	vmci(f, "SYMBOL(__pv_phys_pfn_offset)", "%x", PO + 0x10004);
	put32(f, PHYS + 0x10004, 0x12345); /* disagrees */
	memset(c, 0, sizeof *c);
	CHECK(ps_core_open(c, &t) != 0, "a PHYS_OFFSET that contradicts __pv_phys_pfn_offset");
	CHECK_CONTAINS(c->err, "no physical address maps PAGE_OFFSET");
	ps_core_close(c);
	free(c);
	free(f);
}

/* A big-endian (BE8) kernel: pmd[0] is still the first word in memory. */
static void test_arm_big_endian(void)
{
	struct fake *f = calloc(1, sizeof *f);
	f->big_endian = true;
	vmci(f, "SYMBOL(swapper_pg_dir)", "%x", SWAPPER);
	arm_kernel(f, PHYS >> 12);
	struct ps_target t = fake_target(f);
	struct ps_core *c = calloc(1, sizeof *c);
	if (!CHECK(ps_core_open(c, &t) == 0, "open: %s", c->err))
		goto out;
	for (unsigned k = 1; k < 4; k++)
		fake_page(f, 0x40100000 + k * 4096, true);
	put_pair(f, 0x40100000 + 1 * 8, 0x40200800u | PMD_USER_TABLE, 0x40200c00u | PMD_USER_TABLE); /* [1]: table */
	put32(f, 0x40200000 + 7 * 4, 0x40300000u | L_PRESENT | L_USER | L_RDONLY);              /* PTE 7 */
	struct evlist l = { 0 };
	CHECK_U64(ps_pt_walk(c, 0x40100000, 0, 0xbf000000, record, &l), 0);
	CHECK_EV(l, 0, PS_PT_EV_LEAF, 0x207000, 1, 12);
	CHECK_U64(l.ev[0].e.addr, 0x40300000);
	CHECK_U64(l.n, 1);
	uint64_t pa;
	CHECK_U64(ps_kvtop(c, 0xe0003004, &pa), 0);
	CHECK_U64(pa, 0x40555004);
out:
	ps_core_close(c);
	free(c);
	free(f);
}

/* ---- LPAE ------------------------------------------------------------------------------- */

/* arch/arm/include/asm/pgtable-3level.h, -3level-hwdef.h */
#define LP_TABLE 0x3ull
#define LP_BLOCK 0x1ull
#define LP_USER (1ull << 6)
#define LP_AF (1ull << 10)
#define LP_NG (1ull << 11)
#define LP_XN (1ull << 54)
#define LP_DIRTY (1ull << 55)
#define LP_SPECIAL (1ull << 56)
#define LP_NONE (1ull << 57)
#define LP_RDONLY (1ull << 58)

static void test_arm_lpae(void)
{
	struct fake *f = calloc(1, sizeof *f);
	vmci(f, "CONFIG_ARM_LPAE", "y");
	vmci(f, "SYMBOL(swapper_pg_dir)", "%x", PO + 0x3000);
	/* swapper_pg_dir at PA 0x40003000: PGD[3] -> PMD 0x40005000, lowmem in 2M blocks */
	put64(f, PHYS + 0x3000 + 3 * 8, 0x40005000 | LP_TABLE);
	put64(f, 0x40005000 + 0 * 8, 0x40000000 | LP_BLOCK | LP_AF);
	put64(f, 0x40005000 + 1 * 8, 0x40200000 | LP_BLOCK | LP_AF);
	struct ps_target t = fake_target(f);
	struct ps_core *c = calloc(1, sizeof *c);
	if (!CHECK(ps_core_open(c, &t) == 0, "open: %s", c->err))
		goto out;
	CHECK_U64(c->geom.nlevels, 3);
	CHECK_U64(c->geom.levels[0].shift, 30);
	CHECK_U64(c->geom.levels[0].bits, 2);
	CHECK_U64(c->geom.levels[1].shift, 21);
	CHECK_U64(c->geom.levels[2].entry_size, 8);
	CHECK_U64(c->arch->kernel_pgd(c), 0x40003000);
	uint64_t pa;
	CHECK(c->arch->kvtop_direct(c, 0xc0300000, &pa) && pa == 0x40300000, "LPAE lowmem");

	const uint64_t pgd = 0x40100000, pmd = 0x40101000, pt = 0x40102000;
	put64(f, pgd + 0 * 8, pmd | LP_TABLE);                      /* PGD[0]: table -> PMD */
	put64(f, pgd + 1 * 8, 0x80000000 | LP_BLOCK);               /* PGD[1]: 1G block: bad */
	put64(f, pmd + 0 * 8, pt | LP_TABLE);                       /* PMD[0]: table -> PT */
	put64(f, pmd + 1 * 8, 0x40600000 | LP_BLOCK | LP_AF | LP_USER | LP_NG | LP_RDONLY | LP_XN); /* PMD[1]: 2M r-- */
	put64(f, pmd + 2 * 8, 0x40800000 | 0x2);                    /* PMD[2]: 0b10: bad */
	put64(f, pmd + 3 * 8, 0x40a00000 | LP_NONE | LP_AF | LP_USER | LP_NG | LP_RDONLY | LP_XN); /* PMD[3]: PROT_NONE THP: valid bit clear, !pmd_present */
	put64(f, pmd + 4 * 8, 0x40c00000 | LP_AF | LP_USER);        /* PMD[4]: valid bit clear, not PROT_NONE: bad */
	put64(f, pt + 0 * 8, 0x40300000 | 0x3 | LP_AF | LP_USER | LP_NG | LP_XN | LP_DIRTY); /* PT[0]: rw- dirty */
	put64(f, pt + 1 * 8, 0x40301000 | 0x3 | LP_USER | LP_NG | LP_RDONLY | LP_SPECIAL); /* PT[1]: r-x special */
	put64(f, pt + 2 * 8, 0x40302000 | 0x2 | LP_AF | LP_NONE | LP_RDONLY | LP_XN); /* PT[2]: PROT_NONE */
	put64(f, pt + 3 * 8, (5ull << 2) | (0x777ull << 7));       /* PT[3]: swap 5/0x777 */
	put64(f, pt + 4 * 8, 0x0000001234567000ull | 0x3 | LP_AF | LP_USER); /* PT[4]: 40-bit PA */

	struct evlist l = { 0 };
	CHECK_U64(ps_pt_walk(c, pgd, 0, 0xbf000000, record, &l), 0);
	unsigned i = 0;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0, 1, 12);
	CHECK_U64(l.ev[i].e.addr, 0x40300000);
	CHECK_STR(letters(l.ev[i].e.pte), "w-uad???");
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0x1000, 1, 12);
	CHECK_STR(letters(l.ev[i].e.pte), "-xu--???");
	CHECK(l.ev[i].e.special, "LPAE special");
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0x2000, 1, 12);
	CHECK_U64(l.ev[i].e.addr, 0x40302000);
	CHECK_STR(letters(l.ev[i].e.pte), "---a-???");
	i++;
	CHECK_EV(l, i, PS_PT_EV_SWAP, 0x3000, 1, 12);
	CHECK_U64(l.ev[i].e.swp_type, 5);
	CHECK_U64(l.ev[i].e.swp_off, 0x777);
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0x4000, 1, 12);
	CHECK_U64(l.ev[i].e.addr, 0x1234567000);
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0x200000, 512, 21);
	CHECK_U64(l.ev[i].e.addr, 0x40600000);
	CHECK_STR(letters(l.ev[i].e.pte), "--ua-???");
	i++;
	CHECK_EV(l, i, PS_PT_EV_BAD, 0x400000, 512, 21);
	i++;
	/* PMD[3] (0x600000): nothing, as pagemap and smaps */
	CHECK_EV(l, i, PS_PT_EV_BAD, 0x800000, 512, 21);
	CHECK_STR(l.ev[i].e.why, "non-present or reserved PMD entry");
	i++;
	CHECK_EV(l, i, PS_PT_EV_BAD, 0x40000000, 0x40000, 30);
	CHECK_STR(l.ev[i].e.why, "PGD entry that is not a table");
	i++;
	CHECK_U64(l.n, i);
out:
	ps_core_close(c);
	free(c);
	free(f);
}

/* LPAE without CONFIG_ARM_LPAE in VMCOREINFO and before the type information (QEMU dumps
 * of LPAE guests): the kernel's tables fit the 3-level layout only, so it is taken; the
 * type information's sizeof(pte_t), once there, is not second-guessed. */
static void test_arm_lpae_detected(void)
{
	struct fake *f = calloc(1, sizeof *f);
	vmci(f, "SYMBOL(swapper_pg_dir)", "%x", PO + 0x3000);
	put64(f, PHYS + 0x3000 + 3 * 8, 0x40005000 | LP_TABLE);      /* PGD[3] -> lowmem PMD */
	put64(f, 0x40005000 + 0 * 8, 0x40000000 | LP_BLOCK | LP_AF); /* 0xc0000000: 2M block */
	put64(f, 0x40005000 + 1 * 8, 0x40200000 | LP_BLOCK | LP_AF); /* 0xc0200000: 2M block */
	put64(f, 0x40005000 + 2 * 8, 0x40010000 | LP_TABLE);         /* 0xc0400000: a table (lowmem ends) */
	struct ps_target t = fake_target(f);
	struct ps_core *c = calloc(1, sizeof *c);
	if (CHECK(ps_core_open(c, &t) == 0, "LPAE found from the tables: %s", c->err)) {
		CHECK_U64(c->geom.nlevels, 3);
		CHECK_U64(c->geom.levels[2].entry_size, 8);
		CHECK_U64(c->arch->kernel_pgd(c), 0x40003000);
		uint64_t pa = 0;
		CHECK(c->arch->kvtop_direct(c, 0xc03ffff0, &pa) && pa == 0x403ffff0, "LPAE lowmem %llx",
		      (unsigned long long)pa);
		CHECK(!c->arch->kvtop_direct(c, 0xc0400000, &pa), "lowmem: as far as blocks map it");
		/* The type information says 32-bit PTEs: the short-descriptor layout only, which
		 * these tables are not. */
		struct ps_kinfo *ki = calloc(1, sizeof *ki);
		ps_kinfo_init(ki);
		ki->member[PS_KI_VM_FAULT_ORIG_PTE] = (struct ps_kinfo_member){ .offset = 0x20, .size = 4 };
		ki->symbol[PS_KI_INIT_TASK] = PO + 0x20000; /* required by the core */
		CHECK(ps_core_set_kinfo(c, ki) != 0, "sizeof(pte_t) 4 over LPAE tables");
		CHECK_CONTAINS(c->err, "not a short-descriptor kernel as sizeof(pte_t) in the type information says");
		ki->member[PS_KI_VM_FAULT_ORIG_PTE].size = 8;
		CHECK(ps_core_set_kinfo(c, ki) == 0, "sizeof(pte_t) 8: %s", c->err);
		CHECK_U64(c->geom.nlevels, 3);
		free(ki);
	}
	ps_core_close(c);
	/* VMCOREINFO saying CONFIG_ARM_LPAE=n is a statement too. */
	vmci(f, "CONFIG_ARM_LPAE", "n");
	memset(c, 0, sizeof *c);
	CHECK(ps_core_open(c, &t) != 0, "VMCOREINFO says no LPAE");
	CHECK_CONTAINS(c->err, "as VMCOREINFO CONFIG_ARM_LPAE says");
	ps_core_close(c);
	free(c);
	free(f);
}

/* A 64-bit ARM dump, or pointers that are not 4 bytes, are refused by the 32-bit walker. */
static void test_arm_refusals(void)
{
	struct fake *f = calloc(1, sizeof *f);
	struct ps_target t = fake_target(f);
	t.ptr_size = 8;
	struct ps_core *c = calloc(1, sizeof *c);
	CHECK(ps_core_open(c, &t) != 0, "8-byte pointers");
	CHECK_CONTAINS(c->err, "pointer size 8");
	ps_core_close(c);
	t = fake_target(f);
	memset(c, 0, sizeof *c);
	CHECK(ps_core_open(c, &t) != 0, "no kernel tables anywhere");
	CHECK_CONTAINS(c->err, "arm: ");
	ps_core_close(c);
	free(c);
	free(f);
}

/* 6.3 moved the swap offset up one bit for the exclusive marker (20aae9eff5ac): a 6.12
 * kernel's swap PTEs (as Debian's 6.12 armmp writes them: tests/fixtures armhf-trixie)
 * read with the new layout, the same bits under 6.1 with the old one. */
static void test_arm_swap_versions(void)
{
	const char *releases[] = { "6.1.0-50-armmp", "6.12.117+deb13-armmp" };
	for (int v = 0; v < 2; v++) {
		struct fake *f = calloc(1, sizeof *f);
		vmci(f, "OSRELEASE", "%s", releases[v]);
		vmci(f, "SYMBOL(swapper_pg_dir)", "%x", SWAPPER);
		vmci(f, "SYMBOL(high_memory)", "%x", PO + 0x10000);
		vmci(f, "SYMBOL(__pv_phys_pfn_offset)", "%x", PO + 0x10004);
		arm_kernel(f, PHYS >> 12);
		const uint64_t pgd = 0x40100000, pt = 0x40200000;
		for (unsigned k = 1; k < 4; k++)
			fake_page(f, pgd + k * 4096, true);
		put_pair(f, pgd, (pt + 2048) | PMD_USER_TABLE, (pt + 3072) | PMD_USER_TABLE);
		put32(f, pt + 1 * 4, (3u << 2) | (1u << 7) | (0x1234u << 8)); /* 6.12: swap 3/0x1234, exclusive */
		put32(f, pt + 2 * 4, (1u << 2) | (0x40u << 8));               /* 6.12: swap 1/0x40 */
		struct ps_target t = fake_target(f);
		struct ps_core *c = calloc(1, sizeof *c);
		if (CHECK(ps_core_open(c, &t) == 0, "open %s: %s", releases[v], c->err)) {
			struct evlist l = { 0 };
			CHECK_U64(ps_pt_walk(c, pgd, 0, 0x200000, record, &l), 0);
			CHECK_U64(l.n, 2);
			CHECK_EV(l, 0, PS_PT_EV_SWAP, 0x1000, 1, 12);
			CHECK_EV(l, 1, PS_PT_EV_SWAP, 0x2000, 1, 12);
			CHECK_U64(l.ev[0].e.swp_type, 3);
			CHECK_U64(l.ev[1].e.swp_type, 1);
			if (v == 0) { /* 6.1: offset from bit 7, so the marker reads as its low bit */
				CHECK_U64(l.ev[0].e.swp_off, (0x1234u << 1) | 1);
				CHECK_U64(l.ev[1].e.swp_off, 0x40u << 1);
			} else {
				CHECK_U64(l.ev[0].e.swp_off, 0x1234);
				CHECK_U64(l.ev[1].e.swp_off, 0x40);
				const uint8_t excl = 1u << PS_PTE_EXCLUSIVE;
				CHECK((l.ev[0].e.pte.known & excl) && (l.ev[0].e.pte.set & excl), "6.12: exclusive marker read");
				CHECK((l.ev[1].e.pte.known & excl) && !(l.ev[1].e.pte.set & excl), "6.12: not exclusive");
			}
		}
		ps_core_close(c);
		free(c);
		free(f);
	}
	struct ps_arm_swap_layout sl;
	ps_arm_swap_layout(PS_KVER(6, 2, 16), &sl);
	CHECK_U64(sl.offset_shift, 7);
	ps_arm_swap_layout(PS_KVER(6, 3, 0), &sl);
	CHECK_U64(sl.offset_shift, 8);
}

int main(void)
{
	test_arm_2level();
	test_arm_swap_versions();
	test_arm_phys_offset();
	test_arm_big_endian();
	test_arm_lpae();
	test_arm_lpae_detected();
	test_arm_refusals();
	return check_summary("test_arch_arm");
}
