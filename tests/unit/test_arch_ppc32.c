/* test_arch_ppc32.c - unit tests of the 32-bit PowerPC Book-E walker (walker/arch_ppc32.c)
 * on hand-built page tables, in the manner of libkdumpfile's addrxlat tests: every entry is
 * written with a comment saying what it is, and each walk asserts the exact events.
 *
 * e500 with 64-bit PTEs (pte-e500.h), e500 with 32-bit PTEs (pte-85xx.h), 44x (pte-44x.h,
 * 4K and 64K pages): PGD entries holding the kernel-virtual address of the PTE page, PTE
 * letters, special, PROT_NONE, swap, none-with-upper-bits, malformed PGD entries; the
 * flavour from sizeof(pte_t) and the kernel's symbols, or guessed from the kernel's tables;
 * the linear map at its usual and at a relocated place; vmalloc through swapper_pg_dir.
 *
 * Prints "FAIL: file:line: ..." per failed check and "test_arch_ppc32: N checks, M failed".
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

/* A fake ppce500 dump: big-endian everywhere. */
static struct fake *new_fake(void)
{
	struct fake *f = calloc(1, sizeof *f);
	f->big_endian = true;
	return f;
}

static struct ps_target fake_target(struct fake *f)
{
	/* QEMU's ppce500 dumps: big-endian ELF32, no page size, 128 MiB of RAM */
	return (struct ps_target){ .ops = &fake_ops, .ctx = f, .arch = "ppc32", .big_endian = true,
				   .ptr_size = 4, .page_size = 0, .max_pfn = 0x8000 };
}

/* The kernel at 0xc0000000 = PA PHYS: swapper_pg_dir at 0xc0400000, high_memory (0xc8000000:
 * 128 MiB of lowmem) at 0xc0010000, virt_phys_offset (long long) at 0xc0010008. An e500
 * kernel (its loadcam_entry tells) unless a test says otherwise. */
static void kernel_vars_mmu(struct fake *f, uint64_t phys, const char *mmu_symbol)
{
	if (mmu_symbol)
		vmci(f, mmu_symbol, "c0001000");
	vmci(f, "SYMBOL(swapper_pg_dir)", "c0400000");
	vmci(f, "SYMBOL(high_memory)", "c0010000");
	vmci(f, "SYMBOL(virt_phys_offset)", "c0010008");
	vmci(f, "SYMBOL(init_task)", "c0010200");
	put32(f, phys + 0x10000, 0xc8000000);
	put64(f, phys + 0x10008, 0xc0000000 - phys);
	fake_page(f, phys + 0x400000, true); /* swapper_pg_dir: two pages (2048 entries) */
	fake_page(f, phys + 0x401000, true);
}

static void kernel_vars(struct fake *f, uint64_t phys)
{
	kernel_vars_mmu(f, phys, "SYMBOL(loadcam_entry)");
}

/* Change (or add) a VMCOREINFO line. */
static void vmci_set(struct fake *f, const char *key, const char *val)
{
	for (unsigned i = 0; i < f->nvmci; i++)
		if (strcmp(f->vmci[i][0], key) == 0) {
			snprintf(f->strs[i], sizeof f->strs[i], "%s", val);
			return;
		}
	vmci(f, key, "%s", val);
}

/* Type information saying sizeof(pte_t) (vm_fault.orig_pte) and e500 or 44x (their TLB
 * index variables). */
static int set_kinfo(struct ps_core *c, unsigned pte_size, bool is_44x)
{
	struct ps_kinfo *ki = calloc(1, sizeof *ki);
	ps_kinfo_init(ki);
	ki->member[PS_KI_VM_FAULT_ORIG_PTE] = (struct ps_kinfo_member){ .offset = 0x20, .size = pte_size };
	ki->symbol[is_44x ? PS_KI_TLB_44X_INDEX : PS_KI_TLBCAM_INDEX] = 0xc0010100;
	int r = ps_core_set_kinfo(c, ki);
	free(ki);
	return r;
}

/* ---- e500, 64-bit PTEs (nohash/pte-e500.h) --------------------------------------------- */

#define E_PRESENT 0x1ull
#define E_SR 0x4ull
#define E_UR 0x8ull
#define E_SW 0x10ull
#define E_UW 0x20ull
#define E_SX 0x40ull
#define E_UX 0x80ull
#define E_4K 0x200ull /* _PAGE_PSIZE_4K */
#define E_DIRTY 0x1000ull
#define E_SPECIAL 0x2000ull
#define E_ACCESSED 0x40000ull
#define E_BASE (E_PRESENT | E_ACCESSED | E_4K) /* _PAGE_BASE: PAGE_NONE */
#define E_PTE(pfn) ((uint64_t)(pfn) << 24)    /* PTE_RPN_SHIFT 24 */

static uint64_t swp_pte(unsigned type, uint64_t off)
{
	return ((uint64_t)type | off << 5) << 3; /* __swp_entry_to_pte(__swp_entry(type, off)) */
}

static void test_e500_64(void)
{
	struct fake *f = new_fake();
	kernel_vars(f, 0);
	/* vmalloc 0xd1000000: swapper_pg_dir[0x688] -> PTE page 0xc0203000 (PA 0x203000) */
	put32(f, 0x400000 + (0xd1000000 >> 21) * 4, 0xc0203000);
	put64(f, 0x203000 + 0 * 8, E_PTE(0x777) | E_BASE | E_SR | E_SW | E_DIRTY); /* kernel rw page */
	struct ps_target t = fake_target(f);
	struct ps_core *c = calloc(1, sizeof *c);
	if (!CHECK(ps_core_open(c, &t) == 0, "open: %s", c->err) ||
	    !CHECK(set_kinfo(c, 8, false) == 0, "kinfo: %s", c->err))
		goto out;
	CHECK_U64(c->page_size, 4096);
	CHECK_U64(c->geom.nlevels, 2);
	CHECK_U64(c->geom.levels[0].shift, 21);
	CHECK_U64(c->geom.levels[0].bits, 11);
	CHECK_U64(c->geom.levels[0].entry_size, 4);
	CHECK_U64(c->geom.levels[1].bits, 9);
	CHECK_U64(c->geom.levels[1].entry_size, 8);
	CHECK_U64(c->geom.user_va_end, 0xc0000000);
	CHECK(c->geom.entries_big_endian, "big-endian entries");
	CHECK_U64(c->arch->kernel_pgd(c), 0x400000);
	uint64_t pa = 0;
	CHECK(c->arch->kvtop_direct(c, 0xc7ffffff, &pa) && pa == 0x7ffffff, "lowmem %llx", (unsigned long long)pa);
	CHECK(!c->arch->kvtop_direct(c, 0xc8000000, &pa), "high_memory ends lowmem");
	CHECK_U64(ps_kvtop(c, 0xd1000010, &pa), 0); /* PGD entry = kernel VA of the PTE page */
	CHECK_U64(pa, 0x777010);

	/* User pgd at 0x100000 (8K); PTE pages at 0xc0200000 (PA 0x200000). */
	const uint64_t pgd = 0x100000, pt = 0x200000;
	fake_page(f, pgd + 0x1000, true);
	put32(f, pgd + 0 * 4, 0xc0200000);          /* PGD[0] 0-2M: PTE page, kernel VA */
	put32(f, pgd + 1 * 4, 0xc0201004);          /* PGD[1] 2M: low bits set: _PMD_BAD */
	put32(f, pgd + 2 * 4, 0xd0000000);          /* PGD[2] 4M: above high_memory */
	put32(f, pgd + 3 * 4, 0x00345000);          /* PGD[3] 6M: a physical address (or hugepd) */
	put32(f, pgd + 4 * 4, 0xc0206000);          /* PGD[4] 8M: PTE page not in the dump */
	put64(f, pt + 1 * 8, E_PTE(0x300) | E_BASE | E_SR | E_UR | E_SW | E_UW | E_DIRTY); /* [1] rw- dirty */
	put64(f, pt + 2 * 8, E_PTE(0x301) | E_PRESENT | E_4K | E_SR | E_UR | E_SX | E_UX | E_SPECIAL); /* [2] r-x special old */
	put64(f, pt + 3 * 8, E_PTE(0x302) | E_BASE);  /* [3] PAGE_NONE: present, not user */
	put64(f, pt + 4 * 8, swp_pte(7, 0x5555));     /* [4] swap 7/0x5555 */
	put64(f, pt + 5 * 8, 0x1234567800000000ull);  /* [5] upper word only: pte_none */
	put64(f, pt + 6 * 8, E_PTE(0x100123) | E_BASE | E_SR | E_UR); /* [6] r-- above 4G (36-bit) */
	put64(f, pt + 7 * 8, swp_pte(31, 0x7ffffff)); /* [7] swap, largest 32-bit swp_entry_t */
	put64(f, pt + 8 * 8, E_PTE(0x303) | E_BASE | E_SR | E_SW | E_DIRTY); /* [8] kernel-only rw */

	struct evlist l = { 0 };
	CHECK_U64(ps_pt_walk(c, pgd, 0, 0xc0000000, record, &l), 0);
	unsigned i = 0;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0x1000, 1, 12);
	CHECK_U64(l.ev[i].e.addr, 0x300000);
	CHECK_STR(letters(l.ev[i].e.pte), "w-uad???");
	CHECK(!l.ev[i].e.special, "[1] not special");
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0x2000, 1, 12);
	CHECK_U64(l.ev[i].e.addr, 0x301000);
	CHECK_STR(letters(l.ev[i].e.pte), "-xu--???");
	CHECK(l.ev[i].e.special, "[2] special");
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0x3000, 1, 12);
	CHECK_STR(letters(l.ev[i].e.pte), "---a-???");
	i++;
	CHECK_EV(l, i, PS_PT_EV_SWAP, 0x4000, 1, 12);
	CHECK_U64(l.ev[i].e.swp_type, 7);
	CHECK_U64(l.ev[i].e.swp_off, 0x5555);
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0x6000, 1, 12);
	CHECK_U64(l.ev[i].e.addr, 0x100123000);
	CHECK_STR(letters(l.ev[i].e.pte), "--ua-???");
	i++;
	CHECK_EV(l, i, PS_PT_EV_SWAP, 0x7000, 1, 12);
	CHECK_U64(l.ev[i].e.swp_type, 31);
	CHECK_U64(l.ev[i].e.swp_off, 0x7ffffff);
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0x8000, 1, 12);
	CHECK_STR(letters(l.ev[i].e.pte), "w--ad???"); /* SR only: not a user page */
	i++;
	CHECK_EV(l, i, PS_PT_EV_BAD, 0x200000, 512, 21);
	CHECK_CONTAINS(l.ev[i].e.why, "_PMD_BAD");
	i++;
	CHECK_EV(l, i, PS_PT_EV_BAD, 0x400000, 512, 21);
	CHECK_STR(l.ev[i].e.why, "PGD entry pointing outside lowmem");
	i++;
	CHECK_EV(l, i, PS_PT_EV_BAD, 0x600000, 512, 21);
	CHECK_STR(l.ev[i].e.why, "PGD entry pointing outside lowmem");
	i++;
	CHECK_EV(l, i, PS_PT_EV_UNREADABLE, 0x800000, 512, 12);
	i++;
	CHECK_U64(l.n, i);
	CHECK_U64(c->arch->user_pgd(c, 0xc0100000), 0x100000);
	CHECK_U64(ps_pt_translate(c, pgd, 0x2abc, &pa), 0);
	CHECK_U64(pa, 0x301abc);
out:
	ps_core_close(c);
	free(c);
	free(f);
}

/* e500 with 64-bit PTEs since 6.11 (6b0e82791bd0): 8-byte PGD entries, the PTE page's
 * kernel address in the low word, and a huge page's PTE (_PAGE_PSIZE set) possible in a PGD
 * entry. Known from sizeof(pmd_t) in the type information (vm_fault.orig_pmd), else from the
 * release; both ways, and the type information winning over a release that says otherwise. */
static void test_e500_64_wide_pgd(void)
{
	for (int way = 0; way < 2; way++) {
		struct fake *f = new_fake();
		kernel_vars(f, 0);
		vmci(f, "OSRELEASE", "%s", way == 0 ? "6.12.117-pagesleuth-e500-64pte" : "6.1.192-patched");
		fake_page(f, 0x402000, true); /* swapper_pg_dir: 16K with 8-byte entries */
		fake_page(f, 0x403000, true);
		put64(f, 0x400000 + (0xd1000000 >> 21) * 8, 0xc0203000);
		put64(f, 0x203000, E_PTE(0x777) | E_BASE | E_SR | E_SW | E_DIRTY);
		struct ps_target t = fake_target(f);
		struct ps_core *c = calloc(1, sizeof *c);
		struct ps_kinfo *ki = calloc(1, sizeof *ki);
		ps_kinfo_init(ki);
		ki->member[PS_KI_VM_FAULT_ORIG_PTE] = (struct ps_kinfo_member){ .offset = 0x20, .size = 8 };
		if (way == 1) /* 6.1's release, but the type information says pmd_t is 8 bytes */
			ki->member[PS_KI_VM_FAULT_ORIG_PMD] = (struct ps_kinfo_member){ .offset = 0x20, .size = 8 };
		ki->symbol[PS_KI_TLBCAM_INDEX] = 0xc0010100;
		if (CHECK(ps_core_open(c, &t) == 0, "open: %s", c->err) &&
		    CHECK(ps_core_set_kinfo(c, ki) == 0, "kinfo: %s", c->err)) {
			CHECK_U64(c->geom.levels[0].entry_size, 8);
			CHECK_U64(c->geom.levels[0].bits, 11);
			uint64_t pa = 0;
			CHECK_U64(ps_kvtop(c, 0xd1000010, &pa), 0);
			CHECK_U64(pa, 0x777010);
			const uint64_t pgd = 0x100000, pt = 0x200000;
			for (unsigned k = 1; k < 4; k++)
				fake_page(f, pgd + k * 0x1000, true);
			put64(f, pgd + 0 * 8, 0xc0200000);                                  /* [0] PTE page */
			put64(f, pgd + 1 * 8, E_PTE(0x4000) | E_BASE | E_SR | E_UR | 0x500); /* [1] a 4M page's PTE */
			put64(f, pt + 1 * 8, E_PTE(0x300) | E_BASE | E_SR | E_UR | E_SW | E_UW | E_DIRTY);
			put64(f, pt + 2 * 8, swp_pte(1, 0x40));
			struct evlist l = { 0 };
			CHECK_U64(ps_pt_walk(c, pgd, 0, 0x400000, record, &l), 0);
			CHECK_U64(l.n, 3);
			CHECK_EV(l, 0, PS_PT_EV_LEAF, 0x1000, 1, 12);
			CHECK_U64(l.ev[0].e.addr, 0x300000);
			CHECK_EV(l, 1, PS_PT_EV_SWAP, 0x2000, 1, 12);
			CHECK_U64(l.ev[1].e.swp_off, 0x40);
			CHECK_EV(l, 2, PS_PT_EV_BAD, 0x200000, 512, 21);
			CHECK_CONTAINS(l.ev[2].e.why, "huge page's PTE");
		}
		free(ki);
		ps_core_close(c);
		free(c);
		free(f);
	}
	const char *commit = NULL;
	CHECK_U64(ps_ppc32_e500_pgd_entry_size(PS_KVER(6, 10, 14), true, &commit), 4);
	CHECK_U64(ps_ppc32_e500_pgd_entry_size(PS_KVER(6, 11, 0), true, &commit), 8);
	CHECK_STR(commit, "6b0e82791bd0");
	CHECK_U64(ps_ppc32_e500_pgd_entry_size(PS_KVER(6, 12, 0), false, NULL), 4);
}

/* ---- e500, 32-bit PTEs (nohash/32/pte-85xx.h) ------------------------------------------ */

#define P85_PRESENT 0x001u
#define P85_USER 0x002u
#define P85_RW 0x004u
#define P85_DIRTY 0x008u
#define P85_EXEC 0x010u
#define P85_ACCESSED 0x020u
#define P85_SPECIAL 0x800u

static void e500_32_tables(struct fake *f)
{
	/* vmalloc 0xd1000000: swapper_pg_dir[0x344] -> PTE page 0xc0204000 (PA 0x204000) */
	put32(f, 0x400000 + (0xd1000000 >> 22) * 4, 0xc0204000);
	put32(f, 0x204000 + 0 * 4, 0x00777000u | P85_PRESENT | P85_RW | P85_DIRTY | P85_ACCESSED);
	put32(f, 0x204000 + 1 * 4, 0x00778000u | P85_PRESENT | P85_ACCESSED); /* a kernel ro page */
}

static void test_e500_32(void)
{
	struct fake *f = new_fake();
	kernel_vars(f, 0);
	e500_32_tables(f);
	struct ps_target t = fake_target(f);
	struct ps_core *c = calloc(1, sizeof *c);
	if (!CHECK(ps_core_open(c, &t) == 0, "open: %s", c->err) ||
	    !CHECK(set_kinfo(c, 4, false) == 0, "kinfo: %s", c->err))
		goto out;
	CHECK_U64(c->geom.levels[0].shift, 22);
	CHECK_U64(c->geom.levels[0].bits, 10);
	CHECK_U64(c->geom.levels[1].bits, 10);
	CHECK_U64(c->geom.levels[1].entry_size, 4);
	uint64_t pa;
	CHECK_U64(ps_kvtop(c, 0xd1000ff0, &pa), 0);
	CHECK_U64(pa, 0x777ff0);

	const uint64_t pgd = 0x100000, pt = 0x200000;
	put32(f, pgd + 0 * 4, 0xc0200000);   /* PGD[0] 0-4M: PTE page */
	put32(f, pgd + 1 * 4, 0xc0200800);   /* PGD[1] 4M: not page aligned: _PMD_BAD */
	put32(f, pt + 1 * 4, 0x00345000u | P85_PRESENT | P85_USER | P85_RW | P85_ACCESSED | P85_DIRTY); /* [1] rw- */
	put32(f, pt + 2 * 4, 0x00346000u | P85_PRESENT | P85_USER | P85_EXEC | P85_SPECIAL);  /* [2] r-x special */
	put32(f, pt + 3 * 4, (uint32_t)swp_pte(2, 0x99));                                     /* [3] swap 2/0x99 */
	put32(f, pt + 4 * 4, 0x00347000u | P85_PRESENT | P85_ACCESSED);                      /* [4] PAGE_NONE */
	put32(f, pt + 5 * 4, (uint32_t)swp_pte(31, 0xffffff));                               /* [5] swap, all bits */
	put32(f, pt + 1023 * 4, 0x07fff000u | P85_PRESENT | P85_USER);                       /* [1023] last */
	struct evlist l = { 0 };
	CHECK_U64(ps_pt_walk(c, pgd, 0, 0xc0000000, record, &l), 0);
	unsigned i = 0;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0x1000, 1, 12);
	CHECK_U64(l.ev[i].e.addr, 0x345000);
	CHECK_STR(letters(l.ev[i].e.pte), "w-uad???");
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0x2000, 1, 12);
	CHECK_STR(letters(l.ev[i].e.pte), "-xu--???");
	CHECK(l.ev[i].e.special, "[2] special");
	i++;
	CHECK_EV(l, i, PS_PT_EV_SWAP, 0x3000, 1, 12);
	CHECK_U64(l.ev[i].e.swp_type, 2);
	CHECK_U64(l.ev[i].e.swp_off, 0x99);
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0x4000, 1, 12);
	CHECK_STR(letters(l.ev[i].e.pte), "---a-???");
	i++;
	CHECK_EV(l, i, PS_PT_EV_SWAP, 0x5000, 1, 12);
	CHECK_U64(l.ev[i].e.swp_type, 31);
	CHECK_U64(l.ev[i].e.swp_off, 0xffffff);
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0x3ff000, 1, 12);
	CHECK_U64(l.ev[i].e.addr, 0x7fff000);
	i++;
	CHECK_EV(l, i, PS_PT_EV_BAD, 0x400000, 1024, 22);
	i++;
	CHECK_U64(l.n, i);
out:
	ps_core_close(c);
	free(c);
	free(f);
}

/* ---- 44x (nohash/32/pte-44x.h) --------------------------------------------------------- */

#define P44_PRESENT 0x01ull
#define P44_RW 0x02ull
#define P44_EXEC 0x04ull
#define P44_ACCESSED 0x08ull
#define P44_DIRTY 0x10ull
#define P44_SPECIAL 0x20ull
#define P44_USER 0x40ull

static void test_44x(void)
{
	struct fake *f = new_fake();
	kernel_vars_mmu(f, 0, "SYMBOL(finish_tlb_load_44x)");
	vmci(f, "PAGESIZE", "4096"); /* 44x pages are 4K to 256K: the dump must say */
	struct ps_target t = fake_target(f);
	struct ps_core *c = calloc(1, sizeof *c);
	if (!CHECK(ps_core_open(c, &t) == 0, "open: %s", c->err) ||
	    !CHECK(set_kinfo(c, 8, true) == 0, "kinfo: %s", c->err))
		goto out;
	CHECK_U64(c->geom.levels[0].shift, 21);
	CHECK_U64(c->geom.levels[1].entry_size, 8);
	const uint64_t pgd = 0x100000, pt = 0x200000;
	fake_page(f, pgd + 0x1000, true);
	put32(f, pgd + 0 * 4, 0xc0200000); /* PGD[0]: PTE page */
	put64(f, pt + 1 * 8, 0x123456000ull | P44_PRESENT | P44_RW | P44_USER | P44_ACCESSED | P44_DIRTY); /* [1] rw-, PA > 4G */
	put64(f, pt + 2 * 8, 0x00346000ull | P44_PRESENT | P44_USER | P44_EXEC | P44_SPECIAL); /* [2] r-x special */
	put64(f, pt + 3 * 8, swp_pte(1, 0x4242));                                                /* [3] swap 1/0x4242 */
	put64(f, pt + 4 * 8, 0x00347000ull | P44_PRESENT | P44_ACCESSED);                       /* [4] PAGE_NONE */
	put64(f, pt + 5 * 8, 0x0000000100000000ull);                                             /* [5] upper word: none */
	struct evlist l = { 0 };
	CHECK_U64(ps_pt_walk(c, pgd, 0, 0xc0000000, record, &l), 0);
	unsigned i = 0;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0x1000, 1, 12);
	CHECK_U64(l.ev[i].e.addr, 0x123456000);
	CHECK_STR(letters(l.ev[i].e.pte), "w-uad???");
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0x2000, 1, 12);
	CHECK_U64(l.ev[i].e.addr, 0x346000);
	CHECK_STR(letters(l.ev[i].e.pte), "-xu--???");
	CHECK(l.ev[i].e.special, "[2] special");
	i++;
	CHECK_EV(l, i, PS_PT_EV_SWAP, 0x3000, 1, 12);
	CHECK_U64(l.ev[i].e.swp_type, 1);
	CHECK_U64(l.ev[i].e.swp_off, 0x4242);
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0x4000, 1, 12);
	CHECK_STR(letters(l.ev[i].e.pte), "---a-???");
	i++;
	CHECK_U64(l.n, i);
	ps_core_close(c);

	/* 44x with 64K pages (VMCOREINFO PAGESIZE): PTE_SHIFT 13, PGDIR_SHIFT 29. */
	vmci_set(f, "PAGESIZE", "65536");
	memset(c, 0, sizeof *c);
	if (!CHECK(ps_core_open(c, &t) == 0, "open 64K: %s", c->err) ||
	    !CHECK(set_kinfo(c, 8, true) == 0, "kinfo 64K: %s", c->err))
		goto out;
	CHECK_U64(c->geom.levels[0].shift, 29);
	CHECK_U64(c->geom.levels[0].bits, 3);
	CHECK_U64(c->geom.levels[1].shift, 16);
	CHECK_U64(c->geom.levels[1].bits, 13);
	put32(f, pgd + 1 * 4, 0xc0210000);                                 /* PGD[1] 512M: PTE page (64K) */
	for (unsigned k = 0; k < 16; k++)
		fake_page(f, 0x210000 + k * 4096, true);
	put64(f, 0x210000 + 2 * 8, 0x40000000ull | P44_PRESENT | P44_USER | P44_ACCESSED); /* [2]: 64K page */
	put32(f, pgd + 2 * 4, 0xc0218000);                                 /* PGD[2] 1G: not 64K aligned */
	l.n = 0;
	CHECK_U64(ps_pt_walk(c, pgd, 0x20000000, 0x60000000, record, &l), 0);
	CHECK_EV(l, 0, PS_PT_EV_LEAF, 0x20020000, 1, 16);
	CHECK_U64(l.ev[0].e.addr, 0x40000000);
	CHECK_EV(l, 1, PS_PT_EV_BAD, 0x40000000, 0x2000, 29);
	CHECK_U64(l.n, 2);
out:
	ps_core_close(c);
	free(c);
	free(f);
}

/* ---- setup without type information, and relocated kernels ------------------------------ */

/* Before type information (a dump opened with VMCOREINFO only), sizeof(pte_t) is guessed
 * from the kernel's own PTEs: e500's 64-bit ones carry the 4K page-size field. */
static void test_guess_flavour(void)
{
	struct fake *f = new_fake();
	kernel_vars(f, 0);
	put32(f, 0x400000 + (0xd1000000 >> 21) * 4, 0xc0203000);
	put64(f, 0x203000, E_PTE(0x777) | E_BASE | E_SR | E_SW);
	struct ps_target t = fake_target(f);
	struct ps_core *c = calloc(1, sizeof *c);
	if (CHECK(ps_core_open(c, &t) == 0, "open: %s", c->err))
		CHECK_U64(c->geom.levels[1].entry_size, 8);
	ps_core_close(c);
	free(f);

	f = new_fake();
	kernel_vars(f, 0);
	e500_32_tables(f);
	t = fake_target(f);
	memset(c, 0, sizeof *c);
	if (CHECK(ps_core_open(c, &t) == 0, "open: %s", c->err)) {
		CHECK_U64(c->geom.levels[1].entry_size, 4);
		CHECK_U64(c->geom.levels[0].shift, 22);
	}
	ps_core_close(c);
	free(c);
	free(f);
}

/* A kernel relocated to 64 MiB: lowmem starts there (virt_phys_offset says so, and holds
 * PAGE_OFFSET - 64M only when read from there); a wrong virt_phys_offset refuses. */
static void test_relocated(void)
{
	struct fake *f = new_fake();
	kernel_vars(f, 0x4000000);
	/* vmalloc 0xd1000000 -> PTE page 0xc0203000 (PA 0x4203000): a kernel PTE with e500's
	 * 4K size field, so the PTE width is known without type information */
	put32(f, 0x4400000 + (0xd1000000 >> 21) * 4, 0xc0203000);
	put64(f, 0x4203000, E_PTE(0x4777) | E_BASE | E_SR | E_SW);
	struct ps_target t = fake_target(f);
	t.max_pfn = 0x10000;
	struct ps_core *c = calloc(1, sizeof *c);
	if (CHECK(ps_core_open(c, &t) == 0, "open: %s", c->err)) {
		uint64_t pa = 0;
		CHECK(c->arch->kvtop_direct(c, 0xc0001000, &pa) && pa == 0x4001000, "relocated lowmem %llx",
		      (unsigned long long)pa);
		CHECK_U64(c->arch->kernel_pgd(c), 0x4400000);
	}
	ps_core_close(c);
	put64(f, 0x4000000 + 0x10008, 0x12345678); /* virt_phys_offset matching no place */
	memset(c, 0, sizeof *c);
	CHECK(ps_core_open(c, &t) != 0, "a contradicting virt_phys_offset");
	CHECK_CONTAINS(c->err, "ppc32: no physical address holds the kernel's lowmem");
	ps_core_close(c);

	/* Little-endian or 64-bit dumps are not Book-E ppc32. */
	t.big_endian = false;
	memset(c, 0, sizeof *c);
	CHECK(ps_core_open(c, &t) != 0, "little-endian");
	CHECK_CONTAINS(c->err, "little-endian");
	ps_core_close(c);
	free(c);
	free(f);
}

/* ---- which MMU: the kernel's symbols (review: decided, never guessed) -------------------- */

/* book3s32 (hash MMU) is refused by name; a kernel with no MMU symbol opens provisionally
 * (linear map only, nothing walked) and is refused once the type information brings none;
 * two families at once are refused; a 44x symbol that only the type information has
 * (System.map, DWARF) is found at the second setup. */
static void test_mmu_family(void)
{
	struct fake *f = new_fake();
	kernel_vars_mmu(f, 0, "SYMBOL(hash_page)");
	put32(f, 0x400000 + (0xd1000000 >> 21) * 4, 0xc0203000);
	put64(f, 0x203000, E_PTE(0x777) | E_BASE | E_SR | E_SW); /* e500-looking PTEs: not asked */
	struct ps_target t = fake_target(f);
	struct ps_core *c = calloc(1, sizeof *c);
	CHECK(ps_core_open(c, &t) != 0, "a book3s32 kernel opens");
	CHECK_CONTAINS(c->err, "book3s32 (hash MMU) is not supported");
	CHECK_CONTAINS(c->err, "hash_page");
	ps_core_close(c);
	free(f);

	/* No MMU symbol at all. */
	f = new_fake();
	kernel_vars_mmu(f, 0, NULL);
	put32(f, 0x400000 + (0xd1000000 >> 21) * 4, 0xc0203000);
	put64(f, 0x203000, E_PTE(0x777) | E_BASE | E_SR | E_SW);
	put32(f, 0x100000, 0xc0200000); /* a user PGD entry */
	t = fake_target(f);
	memset(c, 0, sizeof *c);
	if (CHECK(ps_core_open(c, &t) == 0, "provisional open: %s", c->err)) {
		uint64_t pa = 0;
		CHECK(c->arch->kvtop_direct(c, 0xc0001000, &pa) && pa == 0x1000, "linear map while provisional");
		CHECK_U64(c->arch->kernel_pgd(c), 0);  /* no table walks with an unknown MMU */
		CHECK_U64(c->geom.nlevels, 0);
		CHECK(ps_kvtop(c, 0xd1000000, &pa) != 0, "vmalloc not translated while provisional");
		struct evlist l = { 0 };
		CHECK_U64(ps_pt_walk(c, 0x100000, 0, 0xc0000000, record, &l), 0);
		CHECK_U64(l.n, 0); /* nothing walked while provisional */
		CHECK(set_kinfo(c, 8, false) == 0, "kinfo naming tlbcam_index: %s", c->err); /* e500 */
		CHECK_U64(c->geom.levels[1].entry_size, 8);
		CHECK_U64(c->arch->kernel_pgd(c), 0x400000);
	}
	ps_core_close(c);
	memset(c, 0, sizeof *c);
	if (CHECK(ps_core_open(c, &t) == 0, "provisional open: %s", c->err)) {
		struct ps_kinfo *ki = calloc(1, sizeof *ki);
		ps_kinfo_init(ki);
		ki->member[PS_KI_VM_FAULT_ORIG_PTE] = (struct ps_kinfo_member){ .offset = 0x20, .size = 8 };
		CHECK(ps_core_set_kinfo(c, ki) != 0, "type information without an MMU symbol");
		CHECK_CONTAINS(c->err, "ppc32: MMU not recognised");
		/* 44x's head_44x.S label, known from System.map/DWARF only */
		ki->symbol[PS_KI_FINISH_TLB_LOAD_44X] = 0xc0002000;
		vmci(f, "PAGESIZE", "4096");
		CHECK(ps_core_set_kinfo(c, ki) == 0, "44x from the type information: %s", c->err);
		CHECK_U64(c->geom.levels[0].shift, 21);
		/* 44x bits: 0x40 is USER there (e500's 64-bit PTEs would say UR|SR = 0xc) */
		put64(f, 0x200000 + 8, 0x345000ull | P44_PRESENT | P44_USER | P44_ACCESSED);
		struct evlist l = { 0 };
		CHECK_U64(ps_pt_walk(c, 0x100000, 0, 0x400000, record, &l), 0);
		CHECK_EV(l, 0, PS_PT_EV_LEAF, 0x1000, 1, 12);
		CHECK_U64(l.ev[0].e.addr, 0x345000);
		CHECK_STR(letters(l.ev[0].e.pte), "--ua-???");
		free(ki);
	}
	ps_core_close(c);
	free(f);

	/* e500 and 44x symbols in one kernel: not one known MMU. */
	f = new_fake();
	kernel_vars(f, 0);
	vmci(f, "SYMBOL(ppc44x_pin_tlb)", "c0003000");
	t = fake_target(f);
	memset(c, 0, sizeof *c);
	CHECK(ps_core_open(c, &t) != 0, "two MMU families");
	CHECK_CONTAINS(c->err, "both e500 (loadcam_entry) and 44x (ppc44x_pin_tlb)");
	ps_core_close(c);
	free(c);
	free(f);
}

/* Page sizes: e500 has 4K pages only, 44x four sizes the dump must state (the core's 4K
 * default for ppc32 dumps that say none is e500's). */
static void test_page_size(void)
{
	struct fake *f = new_fake();
	kernel_vars_mmu(f, 0, "SYMBOL(finish_tlb_load_44x)");
	struct ps_target t = fake_target(f);
	struct ps_core *c = calloc(1, sizeof *c);
	CHECK(ps_core_open(c, &t) != 0, "44x without a stated page size");
	CHECK_CONTAINS(c->err, "neither the dump nor VMCOREINFO (PAGESIZE) says which");
	ps_core_close(c);
	t.page_size = 16384; /* the dump's own page size (a kdump header) */
	memset(c, 0, sizeof *c);
	if (CHECK(ps_core_open(c, &t) == 0, "44x, 16K pages from the dump: %s", c->err)) {
		CHECK_U64(c->geom.levels[1].shift, 14);
		CHECK_U64(c->geom.levels[1].bits, 11);
		CHECK_U64(c->geom.levels[0].shift, 25);
	}
	ps_core_close(c);
	free(f);

	f = new_fake();
	kernel_vars(f, 0);
	vmci(f, "PAGESIZE", "65536");
	t = fake_target(f);
	memset(c, 0, sizeof *c);
	CHECK(ps_core_open(c, &t) != 0, "e500 with 64K pages");
	CHECK_CONTAINS(c->err, "e500 kernel (loadcam_entry), which has 4K pages only");
	ps_core_close(c);
	free(c);
	free(f);
}

/* Lowmem's end without high_memory: max_pfn (the kernel's variable, else the dump's
 * extent), and never past a swapper_pg_dir slot that maps non-linearly (vmalloc). */
static void test_lowmem_from_max_pfn(void)
{
	struct fake *f = new_fake();
	vmci(f, "SYMBOL(loadcam_entry)", "c0001000");
	vmci(f, "SYMBOL(swapper_pg_dir)", "c0400000");
	vmci(f, "SYMBOL(max_pfn)", "c0010010");
	put32(f, 0x10010, 0x6000); /* max_pfn: 96 MiB */
	fake_page(f, 0x400000, true);
	fake_page(f, 0x401000, true);
	put32(f, 0x400000 + (0xd1000000 >> 21) * 4, 0xc0203000); /* vmalloc */
	put64(f, 0x203000, E_PTE(0x777) | E_BASE | E_SR | E_SW);
	struct ps_target t = fake_target(f);
	struct ps_core *c = calloc(1, sizeof *c);
	uint64_t pa = 0;
	if (CHECK(ps_core_open(c, &t) == 0, "open: %s", c->err)) {
		CHECK(c->arch->kvtop_direct(c, 0xc5ffffff, &pa) && pa == 0x5ffffff, "lowmem below max_pfn");
		CHECK(!c->arch->kvtop_direct(c, 0xc6000000, &pa), "max_pfn ends lowmem");
	}
	ps_core_close(c);

	/* The dump's extent (128 MiB) when the kernel's max_pfn is unknown; the TLB1 CAMs
	 * mapped only 112 MiB, so vmalloc starts at 0xc8000000... */
	vmci_set(f, "SYMBOL(max_pfn)", "0");
	put32(f, 0x400000 + (0xc7000000 >> 21) * 4, 0xc0204000); /* lowmem mapped by a table: linear */
	put64(f, 0x204000, E_PTE(0x7000) | E_BASE | E_SR | E_SW);
	put32(f, 0x400000 + (0xc7e00000 >> 21) * 4, 0xc0205000); /* vmalloc below the extent's end */
	put64(f, 0x205000, E_PTE(0x123) | E_BASE | E_SR | E_SW);
	memset(c, 0, sizeof *c);
	if (CHECK(ps_core_open(c, &t) == 0, "open: %s", c->err)) {
		CHECK(c->arch->kvtop_direct(c, 0xc7dfffff, &pa) && pa == 0x7dfffff, "table-mapped lowmem is linear");
		CHECK(!c->arch->kvtop_direct(c, 0xc7e00000, &pa), "a non-linear slot ends lowmem");
		CHECK_U64(ps_kvtop(c, 0xc7e00010, &pa), 0);
		CHECK_U64(pa, 0x123010);
	}
	ps_core_close(c);
	free(c);
	free(f);
}

int main(void)
{
	test_e500_64_wide_pgd();
	test_e500_64();
	test_e500_32();
	test_44x();
	test_guess_flavour();
	test_relocated();
	test_mmu_family();
	test_page_size();
	test_lowmem_from_max_pfn();
	return check_summary("test_arch_ppc32");
}
