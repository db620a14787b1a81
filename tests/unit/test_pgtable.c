/* test_pgtable.c - unit tests of the page-table walkers, kernel translation, typed reads and
 * kallsyms decoding, on hand-built page tables (in the style of libkdumpfile's addrxlat
 * tests: every entry is written with a comment saying what it is).
 *
 * A synthetic ps_target holds a few physical pages (some reported EXCLUDED by the "dump")
 * and a minimal fake VMCOREINFO. Each test asserts the exact walk events: kind, VA, number
 * of pages, shift, physical address, PTE letters, swap type/offset.
 *
 * Prints "FAIL: file:line: ..." per failed check and a last line
 * "test_pgtable: N checks, M failed"; exits non-zero if any check failed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "check.h"
#include "pt_harness.h"

/* ---- the synthetic dump and the walk recorder: tests/unit/pt_harness.h ---------------- */

static struct ps_target fake_target(struct fake *f, const char *arch)
{
	struct ps_target t = {
		.ops = &fake_ops, .ctx = f, .arch = arch, .big_endian = f->big_endian,
		.ptr_size = 8, .page_size = 4096, .max_pfn = 0x10000, /* 256 MiB */
	};
	return t;
}

/* ---- x86_64 ---------------------------------------------------------------------------- */

#define P 0x1ull
#define RW 0x2ull
#define US 0x4ull
#define ACC 0x20ull
#define DIRTY 0x40ull
#define PSE 0x80ull
#define GLB 0x100ull
#define PROTNONE 0x100ull
#define SPECIAL 0x200ull
#define SOFTDIRTY 0x800ull
#define PAT_LARGE 0x1000ull
#define NX (1ull << 63)
#define TABLE_FLAGS (P | RW | US | ACC | DIRTY) /* _PAGE_TABLE */
#define PFN_BITS 0x000ffffffffff000ull

static uint64_t x86_swp(uint64_t type, uint64_t off)
{
	/* __swp_entry of 6.1: ~offset << SWP_OFFSET_SHIFT(14) >> SWP_TYPE_BITS(5) | type << 59 */
	return (~off << 14 >> 5) | (type << 59);
}

static uint64_t x86_inverted(uint64_t pa, uint64_t flags)
{
	/* A non-present entry stores its PFN inverted (L1TF). */
	return flags | (~pa & PFN_BITS);
}

/* Kernel layout used by the x86 fake: image at __START_KERNEL_map + phys_base (0x1000000). */
#define X86_IMAGE_VA 0xffffffff81000000ull
#define X86_IMAGE_PA 0x1000000ull
#define X86_POB 0xffff888000000000ull
#define X86_VMEMMAP 0xffffea0000000000ull

static void x86_setup(struct fake *f, bool l5)
{
	memset(f, 0, sizeof *f);
	vmci(f, "OSRELEASE", "6.1.0-test");
	vmci(f, "PAGESIZE", "4096");
	vmci(f, "KERNELOFFSET", "0");
	vmci(f, "NUMBER(phys_base)", "%lld", (long long)(X86_IMAGE_PA - 0x1000000)); /* 0 */
	vmci(f, "NUMBER(pgtable_l5_enabled)", "%d", l5 ? 1 : 0);
	vmci(f, "NUMBER(KERNEL_IMAGE_SIZE)", "1073741824");
	vmci(f, "NUMBER(sme_mask)", "0");
	vmci(f, "SIZE(page)", "64");
	/* init_top_pgt at image +0x10000 = phys 0x1010000 */
	vmci(f, "SYMBOL(init_top_pgt)", "%llx", (unsigned long long)(X86_IMAGE_VA + 0x10000));
	/* the KASLR'd variables, in the image */
	vmci(f, "SYMBOL(page_offset_base)", "%llx", (unsigned long long)(X86_IMAGE_VA + 0x20000));
	vmci(f, "SYMBOL(vmemmap_base)", "%llx", (unsigned long long)(X86_IMAGE_VA + 0x20008));
	put64(f, X86_IMAGE_PA + 0x20000, X86_POB);
	put64(f, X86_IMAGE_PA + 0x20008, X86_VMEMMAP);
	fake_page(f, X86_IMAGE_PA + 0x10000, true); /* empty kernel top table */
}

static void test_x86_4level(void)
{
	struct fake *f = calloc(1, sizeof *f);
	x86_setup(f, false);
	struct ps_target t = fake_target(f, "x86_64");
	struct ps_core *c = calloc(1, sizeof *c);
	if (!CHECK(ps_core_open(c, &t) == 0, "open: %s", c->err))
		goto out;
	CHECK_U64(c->geom.nlevels, 4);
	CHECK_U64(c->geom.levels[0].shift, 39);
	CHECK_U64(c->geom.levels[3].shift, 12);
	CHECK_U64(c->geom.user_va_end, (1ull << 47) - 4096);
	CHECK_STR(c->release, "6.1.0-test");

	/* User tables: PGD 0x100000, PUD 0x101000, PMD 0x103000, PT 0x105000. */
	const uint64_t pgd = 0x100000, pud = 0x101000, pmd = 0x103000, pt = 0x105000;
	put64(f, pgd + 0 * 8, pud | TABLE_FLAGS);                   /* PGD[0]: table -> PUD */
	put64(f, pgd + 1 * 8, 0x7000000000ull | TABLE_FLAGS);      /* PGD[1]: table beyond memory */
	put64(f, pgd + 2 * 8, 0x102000 | TABLE_FLAGS);              /* PGD[2]: table page EXCLUDED */
	fake_page(f, 0x102000, true)->status = PS_READ_EXCLUDED;
	put64(f, pgd + 3 * 8, 0x106000 | TABLE_FLAGS | PSE);        /* PGD[3]: PSE in a PGD: bad */
	put64(f, pud + 0 * 8, pmd | TABLE_FLAGS);                   /* PUD[0]: table -> PMD */
	put64(f, pud + 1 * 8, 0x40000000 | P | RW | US | ACC | DIRTY | PSE | PAT_LARGE); /* PUD[1]: 1G leaf */
	put64(f, pud + 2 * 8, 0x104000 | TABLE_FLAGS);              /* PUD[2]: table page not in dump */
	put64(f, pmd + 0 * 8, pt | TABLE_FLAGS);                    /* PMD[0]: table -> PT */
	put64(f, pmd + 1 * 8, 0x200000 | P | US | ACC | PSE | NX | PAT_LARGE); /* PMD[1]: 2M r-- leaf */
	put64(f, pmd + 2 * 8, x86_swp(31, 0x4321));                 /* PMD[2]: PMD migration entry */
	put64(f, pmd + 3 * 8, x86_inverted(0x600000, PSE | PROTNONE | ACC | US)); /* PMD[3]: PROT_NONE THP */
	put64(f, pt + 0 * 8, 0);                                    /* PT[0]: none */
	put64(f, pt + 1 * 8, 0x300000 | P | RW | US | ACC | DIRTY | NX); /* PT[1]: 4K rw- dirty */
	put64(f, pt + 2 * 8, 0x301000 | P | US | GLB | SPECIAL | SOFTDIRTY); /* PT[2]: r-x global special soft-dirty */
	put64(f, pt + 3 * 8, x86_inverted(0x302000, PROTNONE | ACC | US)); /* PT[3]: PROT_NONE page */
	put64(f, pt + 4 * 8, x86_swp(1, 0x1234));                   /* PT[4]: swap type 1 off 0x1234 */
	put64(f, pt + 5 * 8, x86_swp(2, 0xfffff) | RW);             /* PT[5]: swap, soft-dirty (bit 1) */
	put64(f, pt + 6 * 8, ACC | DIRTY);                          /* PT[6]: KNL erratum: still none */
	put64(f, pt + 511 * 8, 0x3ff000 | P | RW | US);             /* PT[511]: last entry */

	struct evlist l = { 0 };
	f->reads = 0;
	uint64_t ptb = c->stats.pt_bytes;
	int r = ps_pt_walk(c, pgd, 0, 1ull << 47, record, &l);
	CHECK_U64(r, 0);
	unsigned i = 0;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0x1000, 1, 12);
	CHECK_U64(l.ev[i].e.addr, 0x300000);
	CHECK_STR(letters(l.ev[i].e.pte), "w-uad-?-");
	CHECK(!l.ev[i].e.special, "PT[1] not special");
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0x2000, 1, 12);
	CHECK_U64(l.ev[i].e.addr, 0x301000);
	CHECK_STR(letters(l.ev[i].e.pte), "-xu--s?g");
	CHECK(l.ev[i].e.special, "PT[2] special");
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0x3000, 1, 12); /* PROT_NONE: present to the kernel */
	CHECK_U64(l.ev[i].e.addr, 0x302000);
	CHECK_STR(letters(l.ev[i].e.pte), "-xua--?-");
	i++;
	CHECK_EV(l, i, PS_PT_EV_SWAP, 0x4000, 1, 12);
	CHECK_U64(l.ev[i].e.swp_type, 1);
	CHECK_U64(l.ev[i].e.swp_off, 0x1234);
	i++;
	CHECK_EV(l, i, PS_PT_EV_SWAP, 0x5000, 1, 12);
	CHECK_U64(l.ev[i].e.swp_type, 2);
	CHECK_U64(l.ev[i].e.swp_off, 0xfffff);
	CHECK(ps_pte_has(l.ev[i].e.pte, PS_PTE_SOFTDIRTY), "swap soft-dirty");
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0x1ff000, 1, 12);
	CHECK_U64(l.ev[i].e.addr, 0x3ff000);
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0x200000, 512, 21); /* PMD[1]: 2M, PAT bit not in address */
	CHECK_U64(l.ev[i].e.addr, 0x200000);
	CHECK_STR(letters(l.ev[i].e.pte), "--ua--?-");
	i++;
	CHECK_EV(l, i, PS_PT_EV_SWAP, 0x400000, 512, 21);
	CHECK_U64(l.ev[i].e.swp_type, 31);
	CHECK_U64(l.ev[i].e.swp_off, 0x4321);
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0x600000, 512, 21); /* PROT_NONE THP, inverted PFN */
	CHECK_U64(l.ev[i].e.addr, 0x600000);
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 1ull << 30, 1ull << 18, 30); /* PUD[1]: 1G */
	CHECK_U64(l.ev[i].e.addr, 0x40000000);
	CHECK_STR(letters(l.ev[i].e.pte), "wxuad-?-");
	i++;
	CHECK_EV(l, i, PS_PT_EV_UNREADABLE, 2ull << 30, 1ull << 18, 21); /* PUD[2] -> missing PMD;
									 shift: the unreadable table's entries */
	CHECK_STR(l.ev[i].e.why, "not in dump");
	i++;
	CHECK_EV(l, i, PS_PT_EV_BAD, 1ull << 39, 1ull << 27, 39); /* PGD[1] */
	CHECK_STR(l.ev[i].e.why, "table beyond memory");
	i++;
	CHECK_EV(l, i, PS_PT_EV_UNREADABLE, 2ull << 39, 1ull << 27, 30); /* PGD[2] -> excluded PUD page */
	CHECK_STR(l.ev[i].e.why, "excluded");
	i++;
	CHECK_EV(l, i, PS_PT_EV_BAD, 3ull << 39, 1ull << 27, 39); /* PGD[3] */
	CHECK_STR(l.ev[i].e.why, "PSE set in a PGD/P4D entry");
	i++;
	CHECK_U64(l.n, i);
	/* PGD slice (4 entries... up to 256 for the user half), PUD, PMD, PT: one read each. */
	CHECK_U64(f->reads, 6); /* PGD, PUD, PMD, PT, excluded PUD page, missing PMD */
	CHECK_U64(c->stats.pt_bytes - ptb, 256 * 8 + 4096 * 3 + 4096 + 4096);

	/* A range starting inside the 2M leaf: clipped, address advanced. */
	l.n = 0;
	r = ps_pt_walk(c, pgd, 0x200000 + 3 * 4096, 0x200000 + 10 * 4096, record, &l);
	CHECK_U64(r, 0);
	CHECK_EV(l, 0, PS_PT_EV_LEAF, 0x203000, 7, 21);
	CHECK_U64(l.ev[0].e.addr, 0x203000);
	CHECK_U64(l.n, 1);

	/* Only the PT slice that covers the range is read. */
	l.n = 0;
	f->reads = 0;
	ptb = c->stats.pt_bytes;
	r = ps_pt_walk(c, pgd, 0x2000, 0x4000, record, &l);
	CHECK_U64(l.n, 2);
	CHECK_U64(f->reads, 4);
	CHECK_U64(c->stats.pt_bytes - ptb, 4 * 8 + 8);

	/* A visitor's non-zero return stops the walk and is returned. */
	l.n = 0;
	l.stop_after = 2;
	r = ps_pt_walk(c, pgd, 0, 1ull << 47, record, &l);
	CHECK_U64(r, 7);
	CHECK_U64(l.n, 2);

	/* Empty and inverted ranges, ranges above TASK_SIZE: nothing. */
	l.n = 0;
	l.stop_after = 0;
	CHECK_U64(ps_pt_walk(c, pgd, 0x5000, 0x5000, record, &l), 0);
	CHECK_U64(ps_pt_walk(c, pgd, 0x6000, 0x5000, record, &l), 0);
	CHECK_U64(ps_pt_walk(c, pgd, 1ull << 47, UINT64_MAX, record, &l), 0);
	CHECK_U64(l.n, 0);

	/* Kernel translation: image and direct map without tables; vmemmap through them. */
	uint64_t pa = 0;
	CHECK_U64(ps_kvtop(c, X86_IMAGE_VA + 0x1234, &pa), 0);
	CHECK_U64(pa, X86_IMAGE_PA + 0x1234);
	CHECK_U64(ps_kvtop(c, X86_POB + 0x5678, &pa), 0);
	CHECK_U64(pa, 0x5678);
	CHECK_U64(c->arch->pfn_to_page(c, 0x10), X86_VMEMMAP + 0x10 * 64);
	CHECK_U64(c->arch->user_pgd(c, X86_POB + pgd), pgd);
	CHECK_U64(c->arch->kernel_pgd(c), X86_IMAGE_PA + 0x10000);
	/* vmemmap_base's PGD entry (index 468) -> PUD 0x110000 -> 2M leaf for the first struct
	 * pages, and a 4K mapping through a PT for vmalloc. */
	const uint64_t ktop = X86_IMAGE_PA + 0x10000;
	put64(f, ktop + ((X86_VMEMMAP >> 39) & 511) * 8, 0x110000 | P | RW | ACC | DIRTY);
	put64(f, 0x110000, 0x111000 | P | RW | ACC | DIRTY);              /* PUD[0] -> PMD */
	put64(f, 0x111000, 0x800000 | P | RW | ACC | DIRTY | PSE | GLB);  /* PMD[0]: 2M kernel leaf */
	put64(f, 0x111000 + 8, 0x112000 | P | RW | ACC | DIRTY);          /* PMD[1] -> PT */
	put64(f, 0x112000, 0x900000 | P | RW | ACC | DIRTY | GLB | NX);   /* PT[0]: 4K */
	put64(f, 0x112000 + 8, 0x907000 | P | RW | ACC | DIRTY | GLB | NX); /* PT[1]: 4K, not contiguous */
	CHECK_U64(ps_kvtop(c, X86_VMEMMAP + 0x12345, &pa), 0);
	CHECK_U64(pa, 0x812345);
	CHECK_U64(ps_kvtop(c, X86_VMEMMAP + 0x200000 + 0x10, &pa), 0);
	CHECK_U64(pa, 0x900010);
	CHECK(ps_kvtop(c, X86_VMEMMAP + 0x400000, &pa) != 0, "unmapped kernel VA fails");
	/* cached the second time: no back-end read */
	f->reads = 0;
	CHECK_U64(ps_kvtop(c, X86_VMEMMAP + 0x200000 + 0x20, &pa), 0);
	CHECK_U64(pa, 0x900020);
	CHECK_U64(f->reads, 0);
	/* ps_kread across the two non-contiguous pages */
	put64(f, 0x900ff8, 0x1122334455667788ull);
	put64(f, 0x907000, 0x99aabbccddeeff00ull);
	uint8_t buf[16];
	CHECK_U64(ps_kread(c, X86_VMEMMAP + 0x200ff8, buf, 16), PS_READ_OK);
	CHECK_U64(ps_load_u64(c, buf), 0x1122334455667788ull);
	CHECK_U64(ps_load_u64(c, buf + 8), 0x99aabbccddeeff00ull);
	CHECK_U64(ps_kread(c, X86_VMEMMAP + 0x400000, buf, 8), PS_READ_NODATA);
	/* excluded page through the direct map */
	CHECK_U64(ps_kread(c, X86_POB + 0x102000, buf, 8), PS_READ_EXCLUDED);

	/* Strings stop at the NUL even next to an unreadable page. */
	put_bytes(f, 0x3000ffa, "kernel", 7); /* ends 1 byte before the page end */
	char s[64];
	CHECK_U64(ps_kread_string(c, X86_POB + 0x3000ffa, s, sizeof s), PS_READ_OK);
	CHECK_STR(s, "kernel");
	CHECK_U64(ps_kread_string(c, X86_POB + 0x3000ffa, s, 4), PS_READ_OK);
	CHECK_STR(s, "ker");
	put_bytes(f, 0x3001ffc, "abcd", 4); /* no NUL before an absent page */
	CHECK_U64(ps_kread_string(c, X86_POB + 0x3001ffc, s, sizeof s), PS_READ_NODATA);

	/* VMCOREINFO number forms */
	uint64_t v = 0;
	CHECK(ps_core_vmcoreinfo_u64(c, "SYMBOL(init_top_pgt)", &v), "symbol hex");
	CHECK_U64(v, X86_IMAGE_VA + 0x10000);
	CHECK(ps_core_vmcoreinfo_u64(c, "NUMBER(KERNEL_IMAGE_SIZE)", &v), "number decimal");
	CHECK_U64(v, 1073741824);
	CHECK(!ps_core_vmcoreinfo_u64(c, "NUMBER(absent)", &v), "absent key");
	CHECK_U64(ps_core_symbol_by_name(c, "page_offset_base", &v), 0);
	CHECK_U64(v, X86_IMAGE_VA + 0x20000);
	CHECK(ps_core_symbol_by_name(c, "no_such_symbol", &v) != 0, "unknown symbol");
out:
	ps_core_close(c);
	free(c);
	free(f);
}

static void test_x86_5level(void)
{
	struct fake *f = calloc(1, sizeof *f);
	x86_setup(f, true);
	struct ps_target t = fake_target(f, "amd64"); /* alias */
	struct ps_core *c = calloc(1, sizeof *c);
	if (!CHECK(ps_core_open(c, &t) == 0, "open: %s", c->err))
		goto out;
	CHECK_U64(c->geom.nlevels, 5);
	CHECK_U64(c->geom.levels[0].shift, 48);
	CHECK_U64(c->geom.user_va_end, (1ull << 56) - 4096);
	/* VA = 3<<48 | 5<<39 | 7<<30 | 9<<21 | 11<<12 -> 0x5000 */
	const uint64_t va = (3ull << 48) | (5ull << 39) | (7ull << 30) | (9ull << 21) | (11ull << 12);
	put64(f, 0x100000 + 3 * 8, 0x101000 | TABLE_FLAGS);   /* PGD[3] -> P4D */
	put64(f, 0x101000 + 5 * 8, 0x102000 | TABLE_FLAGS);   /* P4D[5] -> PUD */
	put64(f, 0x102000 + 7 * 8, 0x103000 | TABLE_FLAGS);   /* PUD[7] -> PMD */
	put64(f, 0x103000 + 9 * 8, 0x104000 | TABLE_FLAGS);   /* PMD[9] -> PT */
	put64(f, 0x104000 + 11 * 8, 0x5000 | P | US | ACC);   /* PT[11]: 4K r-x */
	put64(f, 0x101000 + 6 * 8, 0x6000 | P | US | PSE);    /* P4D[6]: PSE in a P4D: bad */
	struct evlist l = { 0 };
	CHECK_U64(ps_pt_walk(c, 0x100000, 0, UINT64_MAX, record, &l), 0);
	CHECK_EV(l, 0, PS_PT_EV_LEAF, va, 1, 12);
	CHECK_U64(l.ev[0].e.addr, 0x5000);
	CHECK_STR(letters(l.ev[0].e.pte), "-xua--?-");
	CHECK_EV(l, 1, PS_PT_EV_BAD, (3ull << 48) | (6ull << 39), 1ull << 27, 39);
	CHECK_U64(l.n, 2);
	uint64_t pa;
	CHECK_U64(ps_pt_translate(c, 0x100000, va + 0x123, &pa), 0);
	CHECK_U64(pa, 0x5123);
out:
	ps_core_close(c);
	free(c);
	free(f);
}

/* The generic walker with 4-byte big-endian entries and kernel-virtual table pointers (as
 * Book-E PGDs hold): a toy two-level format on top of the x86 fake's direct map.
 *   level 0 (shift 22, 1024 entries): non-zero = table at direct-map VA X86_POB + (raw & ~0xfff)
 *   level 1 (shift 12, 1024 entries): bit 0 = page at raw & ~0xfff, bit 1 = swap (type bits
 *   2-6, offset from bit 7), anything else bad. */
static void toy_decode(const struct ps_core *c, unsigned level, uint64_t raw, struct ps_pt_entry *e)
{
	(void)c;
	if (level == 0) {
		e->kind = PS_PT_TABLE;
		e->addr = X86_POB + (raw & ~0xfffull);
		e->next_is_kvaddr = true;
	} else if (raw & 1) {
		e->kind = PS_PT_LEAF;
		e->addr = raw & ~0xfffull;
	} else if (raw & 2) {
		e->kind = PS_PT_SWAP;
		e->swp_type = (raw >> 2) & 0x1f;
		e->swp_off = raw >> 7;
	} else {
		e->kind = PS_PT_BAD;
		e->why = "toy: reserved";
	}
}

static void test_generic_32bit_be_kvaddr(void)
{
	struct fake *f = calloc(1, sizeof *f);
	x86_setup(f, false);
	struct ps_target t = fake_target(f, "x86_64");
	struct ps_core *c = calloc(1, sizeof *c);
	if (!CHECK(ps_core_open(c, &t) == 0, "open: %s", c->err))
		goto out;
	static struct ps_arch toy;
	toy = ps_arch_x86_64;
	toy.decode = toy_decode;
	c->arch = &toy;
	memset(&c->geom, 0, sizeof c->geom);
	c->geom.nlevels = 2;
	c->geom.levels[0] = (struct ps_pt_level){ .shift = 22, .bits = 10, .entry_size = 4 };
	c->geom.levels[1] = (struct ps_pt_level){ .shift = 12, .bits = 10, .entry_size = 4 };
	c->geom.entries_big_endian = true;
	c->geom.user_va_end = 0xc0000000;
	f->big_endian = true; /* entries written big-endian from here on */
	put32(f, 0x200000 + 1 * 4, 0x201000);            /* PGD[1]: table at X86_POB + 0x201000 */
	put32(f, 0x200000 + 2 * 4, 0x202000);            /* PGD[2]: table page not in the dump */
	put32(f, 0x201000 + 3 * 4, 0x00345001);          /* PT[3]: page 0x345000 */
	put32(f, 0x201000 + 4 * 4, (0x777u << 7) | (5u << 2) | 2); /* PT[4]: swap 5/0x777 */
	put32(f, 0x201000 + 5 * 4, 0x4);                 /* PT[5]: reserved */
	put32(f, 0x200000 + 0x300 * 4, 0x201000);        /* PGD[0x300]: above user_va_end */
	struct evlist l = { 0 };
	CHECK_U64(ps_pt_walk(c, 0x200000, 0, UINT64_MAX, record, &l), 0);
	CHECK_EV(l, 0, PS_PT_EV_LEAF, (1u << 22) + 3 * 4096, 1, 12);
	CHECK_U64(l.ev[0].e.addr, 0x345000);
	CHECK_EV(l, 1, PS_PT_EV_SWAP, (1u << 22) + 4 * 4096, 1, 12);
	CHECK_U64(l.ev[1].e.swp_type, 5);
	CHECK_U64(l.ev[1].e.swp_off, 0x777);
	CHECK_EV(l, 2, PS_PT_EV_BAD, (1u << 22) + 5 * 4096, 1, 12);
	CHECK_STR(l.ev[2].e.why, "toy: reserved");
	CHECK_EV(l, 3, PS_PT_EV_UNREADABLE, 2u << 22, 1024, 12);
	CHECK_U64(l.n, 4);
	uint64_t pa;
	CHECK_U64(ps_pt_translate(c, 0x200000, (1u << 22) + 3 * 4096 + 0x10, &pa), 0);
	CHECK_U64(pa, 0x345010);
out:
	ps_core_close(c);
	free(c);
	free(f);
}

/* Without init_task in VMCOREINFO or kallsyms (no CONFIG_KALLSYMS_ALL), set_kinfo finds it
 * by its name near the .data symbols VMCOREINFO lists, checking pid, mm, real_parent and the
 * tasks list; a decoy named like it is rejected. */
static void test_init_task_scan(void)
{
	struct fake *f = calloc(1, sizeof *f);
	x86_setup(f, false);
	vmci(f, "SYMBOL(init_uts_ns)", "%llx", (unsigned long long)(X86_IMAGE_VA + 0x30000));
	struct ps_kinfo *ki = calloc(1, sizeof *ki);
	ps_kinfo_init(ki);
	ki->member[PS_KI_TASK_TASKS] = (struct ps_kinfo_member){ .offset = 0x10, .size = 16 };
	ki->member[PS_KI_TASK_PID] = (struct ps_kinfo_member){ .offset = 0x20, .size = 4 };
	ki->member[PS_KI_TASK_MM] = (struct ps_kinfo_member){ .offset = 0x28, .size = 8 };
	ki->member[PS_KI_TASK_REAL_PARENT] = (struct ps_kinfo_member){ .offset = 0x30, .size = 8 };
	ki->member[PS_KI_TASK_COMM] = (struct ps_kinfo_member){ .offset = 0x40, .size = 16 };
	const uint64_t decoy = X86_IMAGE_VA + 0x2f000, task = X86_IMAGE_VA + 0x31000,
		       other = X86_POB + 0x500000;
	const uint64_t decoy_pa = X86_IMAGE_PA + 0x2f000, task_pa = X86_IMAGE_PA + 0x31000;
	put_bytes(f, decoy_pa + 0x40, "swapper/0", 10); /* decoy: pid 7 */
	put32(f, decoy_pa + 0x20, 7);
	put64(f, decoy_pa + 0x30, decoy);
	put_bytes(f, task_pa + 0x40, "swapper/0", 10);
	put32(f, task_pa + 0x20, 0);
	put64(f, task_pa + 0x28, 0);
	put64(f, task_pa + 0x30, task);                 /* real_parent = itself */
	put64(f, task_pa + 0x10, other + 0x10);         /* tasks.next -> other task */
	put64(f, 0x500000 + 0x10 + 8, task + 0x10);     /* other's tasks.prev -> init_task.tasks */
	struct ps_target t = fake_target(f, "x86_64");
	struct ps_core *c = calloc(1, sizeof *c);
	if (CHECK(ps_core_open(c, &t) == 0, "open: %s", c->err)) {
		CHECK(ps_core_set_kinfo(c, ki) == 0, "set_kinfo: %s", c->err);
		CHECK_U64(ps_core_sym(c, PS_KI_INIT_TASK), task);
		CHECK_U64(ps_core_sym(c, PS_KI_PAGE_OFFSET_BASE), X86_IMAGE_VA + 0x20000);
		/* broken back link: not init_task, and set_kinfo says which symbol is missing */
		put64(f, 0x500000 + 0x10 + 8, 0);
		CHECK(ps_core_set_kinfo(c, ki) != 0 && strstr(c->err, "init_task"), "no init_task: %s", c->err);
	}
	ps_core_close(c);
	free(c);
	free(ki);
	free(f);
}

static int count_events(void *arg, enum ps_pt_event ev, uint64_t va, uint64_t npages,
			unsigned shift, const struct ps_pt_entry *e)
{
	uint64_t *n = arg;
	(void)va, (void)npages, (void)shift;
	n[ev]++;
	if (ev == PS_PT_EV_BAD && e->why && strstr(e->why, "cyclic"))
		n[4]++;
	return 0;
}

/* A corrupt dump whose table points to itself at every level must not walk 512^4 entries:
 * the walk stops after as many table pages as memory has and says so. */
static void test_cyclic_tables(void)
{
	struct fake *f = calloc(1, sizeof *f);
	x86_setup(f, false);
	struct ps_target t = fake_target(f, "x86_64");
	t.max_pfn = 0x100; /* 1 MiB of "memory": at most 0x110 table pages per walk */
	struct ps_core *c = calloc(1, sizeof *c);
	if (CHECK(ps_core_open(c, &t) == 0, "open: %s", c->err)) {
		c->max_pfn = 0x100; /* the fake has no max_pfn symbol: the target's */
		for (int i = 0; i < 512; i++)
			put64(f, 0x10000 + 8 * i, 0x10000 | TABLE_FLAGS); /* every entry -> this page */
		uint64_t n[5] = { 0 };
		CHECK_U64(ps_pt_walk(c, 0x10000, 0, 1ull << 47, count_events, n), 0);
		CHECK_U64(n[4], 1);
		CHECK(n[PS_PT_EV_LEAF] <= 0x110 * 512, "leaves bounded: %llu", (unsigned long long)n[PS_PT_EV_LEAF]);
		CHECK(n[PS_PT_EV_LEAF] > 0, "some leaves before the stop");
	}
	ps_core_close(c);
	free(c);
	free(f);
}

/* ---- arm64 ----------------------------------------------------------------------------- */

#define A_VALID 0x1ull
#define A_TABLE 0x3ull /* valid + table (levels 0-2) / page (level 3) */
#define A_BLOCK 0x1ull
#define A_USER (1ull << 6)
#define A_RDONLY (1ull << 7)
#define A_AF (1ull << 10)
#define A_NG (1ull << 11)
#define A_DBM (1ull << 51)
#define A_PXN (1ull << 53)
#define A_UXN (1ull << 54)
#define A_DIRTY (1ull << 55)
#define A_SPECIAL (1ull << 56)
#define A_PROT_NONE (1ull << 58)
#define A_PRESENT_INVALID (1ull << 59)

#define A64_PHYS_OFFSET 0x40000000ull
#define A64_KIMAGE_VOFFSET 0xffff7fffc0000000ull /* image VA - PA */

static void test_arm64(void)
{
	struct fake *f = calloc(1, sizeof *f);
	vmci(f, "OSRELEASE", "6.1.0-arm64-test");
	vmci(f, "PAGESIZE", "4096");
	vmci(f, "NUMBER(VA_BITS)", "48");
	vmci(f, "NUMBER(PHYS_OFFSET)", "0x%llx", (unsigned long long)A64_PHYS_OFFSET);
	vmci(f, "NUMBER(kimage_voffset)", "0x%llx", (unsigned long long)A64_KIMAGE_VOFFSET);
	vmci(f, "KERNELOFFSET", "0");
	/* swapper_pg_dir at PA 0x41000000 */
	vmci(f, "SYMBOL(swapper_pg_dir)", "%llx", (unsigned long long)(0x41000000 + A64_KIMAGE_VOFFSET));
	fake_page(f, 0x41000000, true);
	struct ps_target t = fake_target(f, "aarch64");
	t.max_pfn = 0x50000; /* RAM 0x40000000-0x4fffffff */
	struct ps_core *c = calloc(1, sizeof *c);
	if (!CHECK(ps_core_open(c, &t) == 0, "open: %s", c->err))
		goto out;
	CHECK_U64(c->geom.nlevels, 4);
	CHECK_U64(c->geom.levels[0].shift, 39);
	CHECK_U64(c->geom.levels[0].bits, 9);
	CHECK_U64(c->geom.user_va_end, 1ull << 48);
	CHECK_U64(c->arch->kernel_pgd(c), 0x41000000);

	const uint64_t l0 = 0x40100000, l1 = 0x40101000, l2 = 0x40102000, l3 = 0x40103000;
	put64(f, l0 + 0 * 8, l1 | A_TABLE);                 /* L0[0]: table -> L1 */
	put64(f, l0 + 1 * 8, 0x40000000 | A_BLOCK | A_AF);  /* L0[1]: block at level 0: bad */
	put64(f, l0 + 2 * 8, 0x40000000 | A_AF);            /* L0[2]: invalid, non-zero: bad */
	put64(f, l1 + 0 * 8, l2 | A_TABLE);                 /* L1[0]: table -> L2 */
	put64(f, l1 + 1 * 8, 0x80000000 | A_BLOCK | A_AF | A_USER | A_NG | A_UXN | A_PXN | A_RDONLY); /* L1[1]: 1G r-- */
	put64(f, l2 + 0 * 8, l3 | A_TABLE);                 /* L2[0]: table -> L3 */
	put64(f, l2 + 1 * 8, 0x40200000 | A_BLOCK | A_AF | A_USER | A_NG | A_DBM | A_PXN); /* L2[1]: 2M rwx, hw dirty */
	put64(f, l2 + 2 * 8, (30ull << 3) | (0x555ull << 8)); /* L2[2]: PMD migration swap entry */
	put64(f, l2 + 3 * 8, 0x40400000 | A_PRESENT_INVALID | A_AF | A_USER | A_NG); /* L2[3]: THP mid-split */
	put64(f, l2 + 4 * 8, 0x40600000 | 0x3ull);          /* L2[4]: table beyond memory? no: in RAM */
	put64(f, l2 + 5 * 8, 0x90000000 | A_TABLE);         /* L2[5]: table beyond memory */
	put64(f, l3 + 0 * 8, 0x40300000 | A_TABLE | A_AF | A_USER | A_NG | A_RDONLY | A_DBM | A_PXN); /* L3[0]: w clean */
	put64(f, l3 + 1 * 8, 0x40301000 | A_TABLE | A_USER | A_NG | A_RDONLY | A_DIRTY | A_SPECIAL | A_UXN | A_PXN); /* L3[1]: sw dirty, special */
	put64(f, l3 + 2 * 8, 0x40302000 | A_PROT_NONE | A_AF | A_USER | A_NG | A_RDONLY | A_UXN | A_PXN); /* L3[2]: PROT_NONE */
	put64(f, l3 + 3 * 8, (2ull << 3) | (0xabcdeull << 8) | (1ull << 2)); /* L3[3]: swap 2/0xabcde, exclusive */
	put64(f, l3 + 4 * 8, 0x40304000 | A_BLOCK | A_AF);  /* L3[4]: 0b01 at level 3: reserved */
	fake_page(f, 0x40600000, true);                     /* the empty table of L2[4] */

	struct evlist l = { 0 };
	CHECK_U64(ps_pt_walk(c, l0, 0, 1ull << 48, record, &l), 0);
	unsigned i = 0;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0, 1, 12);
	CHECK_U64(l.ev[i].e.addr, 0x40300000);
	CHECK_STR(letters(l.ev[i].e.pte), "wxua-?" "?-");
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0x1000, 1, 12);
	CHECK_U64(l.ev[i].e.addr, 0x40301000);
	CHECK_STR(letters(l.ev[i].e.pte), "--u-d?" "?-");
	CHECK(l.ev[i].e.special, "L3[1] special");
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0x2000, 1, 12);
	CHECK_U64(l.ev[i].e.addr, 0x40302000);
	CHECK_STR(letters(l.ev[i].e.pte), "--ua-?" "?-");
	i++;
	CHECK_EV(l, i, PS_PT_EV_SWAP, 0x3000, 1, 12);
	CHECK_U64(l.ev[i].e.swp_type, 2);
	CHECK_U64(l.ev[i].e.swp_off, 0xabcde);
	CHECK(ps_pte_has(l.ev[i].e.pte, PS_PTE_EXCLUSIVE), "swap exclusive");
	i++;
	CHECK_EV(l, i, PS_PT_EV_BAD, 0x4000, 1, 12);
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0x200000, 512, 21);
	CHECK_U64(l.ev[i].e.addr, 0x40200000);
	CHECK_STR(letters(l.ev[i].e.pte), "wxuad?" "?-");
	i++;
	CHECK_EV(l, i, PS_PT_EV_SWAP, 0x400000, 512, 21);
	CHECK_U64(l.ev[i].e.swp_type, 30);
	CHECK_U64(l.ev[i].e.swp_off, 0x555);
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 0x600000, 512, 21);
	CHECK_U64(l.ev[i].e.addr, 0x40400000);
	i++;
	CHECK_EV(l, i, PS_PT_EV_BAD, 0xa00000, 512, 21);
	CHECK_STR(l.ev[i].e.why, "table beyond memory");
	i++;
	CHECK_EV(l, i, PS_PT_EV_LEAF, 1ull << 30, 1ull << 18, 30);
	CHECK_U64(l.ev[i].e.addr, 0x80000000);
	CHECK_STR(letters(l.ev[i].e.pte), "--ua-?" "?-");
	i++;
	CHECK_EV(l, i, PS_PT_EV_BAD, 1ull << 39, 1ull << 27, 39);
	CHECK_STR(l.ev[i].e.why, "block descriptor at a level without blocks");
	i++;
	CHECK_EV(l, i, PS_PT_EV_BAD, 2ull << 39, 1ull << 27, 39);
	i++;
	CHECK_U64(l.n, i);

	/* Kernel: linear map directly, everything else through swapper_pg_dir. */
	uint64_t pa;
	const uint64_t page_offset = 0xffff000000000000ull;
	CHECK_U64(ps_kvtop(c, page_offset + 0x1234, &pa), 0);
	CHECK_U64(pa, A64_PHYS_OFFSET + 0x1234);
	CHECK_U64(c->arch->user_pgd(c, page_offset + (l0 - A64_PHYS_OFFSET)), l0);
	/* vmemmap: VMEMMAP_START = -(1 << (48 - 6)); struct page of the first RAM PFN first */
	CHECK_U64(c->arch->pfn_to_page(c, A64_PHYS_OFFSET >> 12), 0xfffffc0000000000ull);
	CHECK_U64(c->arch->pfn_to_page(c, (A64_PHYS_OFFSET >> 12) + 3), 0xfffffc0000000000ull + 3 * 64);
	/* the image (kimage_voffset) through the tables: map VA 0xffff800010000000 */
	const uint64_t kva = 0xffff800010000000ull;
	const uint64_t sw = 0x41000000;
	put64(f, sw + ((kva >> 39) & 511) * 8, 0x41001000 | A_TABLE);
	put64(f, 0x41001000 + ((kva >> 30) & 511) * 8, 0x41002000 | A_TABLE);
	put64(f, 0x41002000 + ((kva >> 21) & 511) * 8, 0x48000000 | A_BLOCK | A_AF); /* 2M block */
	CHECK_U64(ps_kvtop(c, kva + 0x1f0010, &pa), 0);
	CHECK_U64(pa, 0x481f0010);
	CHECK(ps_kvtop(c, kva + 0x200000, &pa) != 0, "unmapped");
out:
	ps_core_close(c);
	free(c);
	free(f);
}

/* The layout facts of other kernel generations, 4K pages:
 *  - 52-bit VA kernels (6.12, 7.x of Debian) on a CPU with 48-bit VAs: TCR_EL1.T1SZ 16
 *    gives 4 levels of 48 bits, while PAGE_OFFSET stays -(1 << 52);
 *  - 5.10 states no VMEMMAP_START: -VMEMMAP_SIZE - 2M with VMEMMAP_SIZE = (PAGE_END -
 *    PAGE_OFFSET) >> 6, checked on Debian's 5.10 (arm64-bullseye);
 *  - 6.1 states none either: -(1 << (VA_BITS - 6));
 *  - a release that says nothing is refused. */
static void test_arm64_versions(void)
{
	static const struct {
		const char *release;
		unsigned va_bits, t1sz, nlevels;
		uint64_t vmemmap; /* pfn_to_page(PHYS_OFFSET's PFN); 0: open must fail */
	} cases[] = {
		{ "6.12.117+deb13-arm64", 52, 16, 4, 0xffffc1ffc0000000ull },
		{ "5.10.0-32-arm64", 48, 16, 4, -(1ull << 41) - (2ull << 20) },
		{ "6.1.0-27-arm64", 48, 0, 4, -(1ull << 42) },
		{ "", 48, 0, 0, 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct fake *f = calloc(1, sizeof *f);
		if (cases[i].release[0])
			vmci(f, "OSRELEASE", "%s", cases[i].release);
		vmci(f, "PAGESIZE", "4096");
		vmci(f, "NUMBER(VA_BITS)", "%u", cases[i].va_bits);
		if (cases[i].t1sz)
			vmci(f, "NUMBER(TCR_EL1_T1SZ)", "0x%x", cases[i].t1sz);
		if (cases[i].va_bits == 52)
			vmci(f, "NUMBER(VMEMMAP_START)", "0x%llx", (unsigned long long)cases[i].vmemmap);
		vmci(f, "NUMBER(PHYS_OFFSET)", "0x40000000");
		vmci(f, "NUMBER(kimage_voffset)", "0x%llx", (unsigned long long)A64_KIMAGE_VOFFSET);
		vmci(f, "SYMBOL(swapper_pg_dir)", "%llx", (unsigned long long)(0x41000000 + A64_KIMAGE_VOFFSET));
		struct ps_target t = fake_target(f, "arm64");
		t.page_size = 4096;
		t.max_pfn = 0x50000;
		struct ps_core *c = calloc(1, sizeof *c);
		int rc = ps_core_open(c, &t);
		if (!cases[i].vmemmap) {
			CHECK(rc != 0 && strstr(c->err, "VMEMMAP_START"), "%s: refused: %s", cases[i].release, c->err);
		} else if (CHECK(rc == 0, "%s: open: %s", cases[i].release, c->err)) {
			CHECK_U64(c->geom.nlevels, cases[i].nlevels);
			CHECK_U64(c->geom.levels[0].shift + c->geom.levels[0].bits, 48);
			CHECK_U64(c->geom.user_va_end, 1ull << 48);
			CHECK_U64(c->arch->pfn_to_page(c, 0x40000), cases[i].vmemmap);
			uint64_t pa = 0;
			/* the linear map from PAGE_OFFSET = -(1 << VA_BITS) */
			CHECK(c->arch->kvtop_direct(c, -(1ull << cases[i].va_bits) + 0x1000, &pa) && pa == 0x40001000,
			      "%s: linear map %llx", cases[i].release, (unsigned long long)pa);
			/* Swap type 3, offset 0x1234, PG_anon_exclusive where the kernel keeps it, and
			 * a PROT_NONE page (not valid, present), in the kernel's own layout. */
			bool v510 = cases[i].release[0] == '5', v612 = cases[i].va_bits == 52;
			uint64_t swp = v612 ? (3ull << 6) | (0x1234ull << 12) | 4
				       : v510 ? (3ull << 2) | (0x1234ull << 8) : (3ull << 3) | (0x1234ull << 8) | 4;
			struct ps_pt_entry e = { 0 };
			unsigned last = c->geom.nlevels - 1;
			c->arch->decode(c, last, swp, &e);
			CHECK(e.kind == PS_PT_SWAP && e.swp_type == 3 && e.swp_off == 0x1234, "%s: swap %d %llx/%llx",
			      cases[i].release, (int)e.kind, (unsigned long long)e.swp_type, (unsigned long long)e.swp_off);
			CHECK(!!(e.pte.known & (1u << PS_PTE_EXCLUSIVE)) == !v510, "%s: exclusive known", cases[i].release);
			memset(&e, 0, sizeof e);
			c->arch->decode(c, last, 0x40050000 | (v612 ? 1ull << 11 : 1ull << 58) | A_AF, &e);
			CHECK(e.kind == PS_PT_LEAF && e.addr == 0x40050000, "%s: PROT_NONE present: %d", cases[i].release,
			      (int)e.kind);
		}
		ps_core_close(c);
		free(c);
		free(f);
	}
}

/* 16K and 64K granules: the geometry from PAGESIZE and VA_BITS, and a 64K walk. */
static void test_arm64_granules(void)
{
	static const struct {
		unsigned page_size, va_bits, nlevels, top_shift, top_bits;
	} geo[] = {
		{ 4096, 39, 3, 30, 9 },   { 4096, 48, 4, 39, 9 },   { 16384, 36, 2, 25, 11 },
		{ 16384, 47, 3, 36, 11 }, { 16384, 48, 4, 47, 1 },  { 65536, 42, 2, 29, 13 },
		{ 65536, 48, 3, 42, 6 },  { 65536, 52, 3, 42, 10 },
	};
	for (size_t g = 0; g < sizeof geo / sizeof geo[0]; g++) {
		struct fake *f = calloc(1, sizeof *f);
		vmci(f, "OSRELEASE", "6.1.0");
		vmci(f, "PAGESIZE", "%u", geo[g].page_size);
		vmci(f, "NUMBER(VA_BITS)", "%u", geo[g].va_bits);
		vmci(f, "NUMBER(PHYS_OFFSET)", "0x40000000");
		vmci(f, "NUMBER(kimage_voffset)", "0x%llx", (unsigned long long)A64_KIMAGE_VOFFSET);
		vmci(f, "SYMBOL(swapper_pg_dir)", "%llx", (unsigned long long)(0x41000000 + A64_KIMAGE_VOFFSET));
		struct ps_target t = fake_target(f, "arm64");
		t.page_size = geo[g].page_size;
		t.max_pfn = 0x50000000ull / geo[g].page_size;
		struct ps_core *c = calloc(1, sizeof *c);
		if (CHECK(ps_core_open(c, &t) == 0, "open %u/%u: %s", geo[g].page_size, geo[g].va_bits, c->err)) {
			CHECK_U64(c->geom.nlevels, geo[g].nlevels);
			CHECK_U64(c->geom.levels[0].shift, geo[g].top_shift);
			CHECK_U64(c->geom.levels[0].bits, geo[g].top_bits);
			CHECK_U64(c->geom.levels[c->geom.nlevels - 1].shift, c->page_shift);
		}
		if (geo[g].page_size == 65536 && geo[g].va_bits == 42) {
			/* L2 (top, 8192 entries of 64 KiB tables) -> L3; a 512M block at L2[1]. */
			const uint64_t top = 0x40000000, l3 = 0x40010000;
			fake_page(f, top + 0xfff8, true); /* the top table's last page: zero */
			put64(f, top + 0 * 8, l3 | A_TABLE);                                 /* L2[0] -> L3 */
			put64(f, top + 1 * 8, 0x60000000 | A_BLOCK | A_AF | A_USER | A_NG); /* L2[1]: 512M */
			for (uint64_t off = 0x1000; off < 0x10000; off += 0x1000) {
				fake_page(f, top + off, true);
				fake_page(f, l3 + off, true);
			}
			put64(f, l3 + 5 * 8, 0x40050000 | A_TABLE | A_AF | A_USER | A_NG);  /* L3[5]: 64K page */
			struct evlist l = { 0 };
			CHECK_U64(ps_pt_walk(c, top, 0, 1ull << 42, record, &l), 0);
			CHECK_EV(l, 0, PS_PT_EV_LEAF, 5 * 65536, 1, 16);
			CHECK_U64(l.ev[0].e.addr, 0x40050000);
			CHECK_EV(l, 1, PS_PT_EV_LEAF, 1ull << 29, 8192, 29);
			CHECK_U64(l.ev[1].e.addr, 0x60000000);
			CHECK_U64(l.n, 2);
		}
		ps_core_close(c);
		free(c);
		free(f);
	}
}

/* ---- kallsyms -------------------------------------------------------------------------- */

/* A tiny kallsyms: tokens 0..255 where token 'x' (< 128) is the character itself, and
 * token 200 = "per", 201 = "cpu_". Symbols (type char first):
 *   "Tstart_kernel" (relative), "Dinit_task" (relative), "Afixed_percpu_" (absolute 0x1000),
 *   a 200-character name (big length form), "dinit_task" (a duplicate, loses). */
static void test_kallsyms(void)
{
	struct fake *f = calloc(1, sizeof *f);
	x86_setup(f, false);
	const uint64_t base_va = X86_IMAGE_VA + 0x40000, base_pa = X86_IMAGE_PA + 0x40000;
	/* token table and index */
	char ttab[2048];
	size_t tlen = 0;
	uint16_t tidx[256];
	for (int i = 0; i < 256; i++) {
		tidx[i] = (uint16_t)tlen;
		if (i == 200) {
			memcpy(ttab + tlen, "per", 4);
			tlen += 4;
		} else if (i == 201) {
			memcpy(ttab + tlen, "cpu_", 5);
			tlen += 5;
		} else {
			ttab[tlen++] = (char)(i > 0 && i < 128 ? i : 'z');
			ttab[tlen++] = 0;
		}
	}
	uint8_t names[1024];
	size_t nlen = 0;
	const char *plain[] = { "Tstart_kernel", "Dinit_task" };
	for (int s = 0; s < 2; s++) {
		names[nlen++] = (uint8_t)strlen(plain[s]);
		for (const char *p = plain[s]; *p; p++)
			names[nlen++] = (uint8_t)*p;
	}
	/* "Afixed_" + token 200 + token 201 -> "Afixed_percpu_" */
	names[nlen++] = 9;
	memcpy(names + nlen, "Afixed_", 7);
	nlen += 7;
	names[nlen++] = 200;
	names[nlen++] = 201;
	/* a 200-token name: big length (bit 7 set, next byte bits 7-14) */
	names[nlen++] = (uint8_t)(0x80 | (200 & 0x7f));
	names[nlen++] = (uint8_t)(200 >> 7);
	names[nlen++] = 't';
	for (int i = 1; i < 200; i++)
		names[nlen++] = 'l';
	names[nlen++] = 10;
	memcpy(names + nlen, "dinit_task", 10);
	nlen += 10;
	/* layout: offsets @0, relative_base @0x100, num_syms @0x108, names @0x200,
	 * token_table @0x800, token_index @0x1000 */
	int32_t offs[5] = { -1 - 0x10, -1 - 0x2000, 0x1000, -1 - 0x3000, -1 - 0x4000 };
	for (int i = 0; i < 5; i++)
		put32(f, base_pa + 4 * i, (uint32_t)offs[i]);
	const uint64_t rel_base = 0xffffffff81000000ull;
	put64(f, base_pa + 0x100, rel_base);
	put32(f, base_pa + 0x108, 5);
	put_bytes(f, base_pa + 0x200, names, nlen);
	put_bytes(f, base_pa + 0x800, ttab, tlen);
	for (int i = 0; i < 256; i++) {
		uint8_t b[2] = { (uint8_t)tidx[i], (uint8_t)(tidx[i] >> 8) };
		put_bytes(f, base_pa + 0x1000 + 2 * i, b, 2);
	}
	vmci(f, "SYMBOL(kallsyms_offsets)", "%llx", (unsigned long long)base_va);
	vmci(f, "SYMBOL(kallsyms_relative_base)", "%llx", (unsigned long long)(base_va + 0x100));
	vmci(f, "SYMBOL(kallsyms_num_syms)", "%llx", (unsigned long long)(base_va + 0x108));
	vmci(f, "SYMBOL(kallsyms_names)", "%llx", (unsigned long long)(base_va + 0x200));
	vmci(f, "SYMBOL(kallsyms_token_table)", "%llx", (unsigned long long)(base_va + 0x800));
	vmci(f, "SYMBOL(kallsyms_token_index)", "%llx", (unsigned long long)(base_va + 0x1000));

	struct ps_target t = fake_target(f, "x86_64");
	struct ps_core *c = calloc(1, sizeof *c);
	if (!CHECK(ps_core_open(c, &t) == 0, "open: %s", c->err))
		goto out;
	uint64_t a = 0;
	CHECK_U64(ps_core_symbol_by_name(c, "start_kernel", &a), 0);
	CHECK_U64(a, rel_base + 0x10); /* absolute-percpu form: base - 1 - offset */
	CHECK_U64(ps_core_symbol_by_name(c, "init_task", &a), 0);
	CHECK_U64(a, rel_base + 0x2000); /* the first of two equal names */
	CHECK_U64(ps_core_symbol_by_name(c, "fixed_percpu_", &a), 0);
	CHECK_U64(a, 0x1000);
	char longname[200];
	memset(longname, 'l', 199); /* 200 tokens: the type 't' and 199 'l' */
	longname[199] = 0;
	CHECK_U64(ps_core_symbol_by_name(c, longname, &a), 0);
	CHECK_U64(a, rel_base + 0x3000);
	CHECK(ps_core_symbol_by_name(c, "absent", &a) != 0, "absent symbol");
	CHECK(ps_core_symbol_by_name(c, "Tstart_kernel", &a) != 0, "type char is not part of the name");

	/* Implausible counts are refused without reading further. */
	ps_core_close(c);
	put32(f, base_pa + 0x108, 0x7fffffff);
	if (CHECK(ps_core_open(c, &t) == 0, "open: %s", c->err)) {
		CHECK(ps_kallsyms_load(c) != 0, "huge kallsyms_num_syms refused");
		CHECK(strstr(c->err, "implausible") != NULL, "message: %s", c->err);
	}
out:
	ps_core_close(c);
	free(c);
	free(f);
}

/* The kallsyms tables of other kernel generations, built as scripts/kallsyms.c lays them
 * out, with 600 symbols (three markers) "T_text", "T_stext", "Tsym_0002".. 16 bytes apart
 * from 0xffffffff81000000, and a decoy "0\01\0..9\0" string before the real token table:
 *   OLD_LAYOUT (Linux 5.x, VMCOREINFO lists nothing: found by structure): offsets,
 *     relative_base, num_syms (PTR), names, markers (PTR), token_table, token_index, each
 *     label 8-byte aligned;
 *   PC_RELATIVE (7.0+): num_syms (.long), names, markers (.long), token_table,
 *     token_index, offsets (place-relative), 4-byte aligned; once listed in VMCOREINFO
 *     without kallsyms_relative_base, once found by structure. */
enum ksym_layout { OLD_LAYOUT, PC_RELATIVE_LISTED, PC_RELATIVE_FOUND };

static uint64_t ksym_addr(int i) { return 0xffffffff81000000ull + 16 * (uint64_t)i; }

static void test_kallsyms_layouts(void)
{
	enum { N = 600 };
	for (int layout = OLD_LAYOUT; layout <= PC_RELATIVE_FOUND; layout++) {
		struct fake *f = calloc(1, sizeof *f);
		x86_setup(f, false);
		vmci(f, "SYMBOL(_stext)", "%llx", (unsigned long long)ksym_addr(1));
		const uint64_t va0 = X86_IMAGE_VA + 0x100000, pa0 = X86_IMAGE_PA + 0x100000;
		/* a decoy digit run that is not followed by a token index */
		put_bytes(f, pa0 - 0x8000, "0\0" "1\0" "2\0" "3\0" "4\0" "5\0" "6\0" "7\0" "8\0" "9\0", 20);
		static uint8_t img[64 * 1024];
		memset(img, 0, sizeof img);
		size_t at = 0;
		const bool old = layout == OLD_LAYOUT;
		const size_t al = old ? 8 : 4;
#define ALIGN_AT() (at = (at + al - 1) & ~(al - 1))
		size_t offs_at = 0, base_at = 0, num_at;
		if (old) {
			offs_at = at;
			for (int i = 0; i < N; i++) /* positive distances from the base */
				memcpy(img + at + 4 * i, &(uint32_t){ (uint32_t)(ksym_addr(i) - ksym_addr(0)) }, 4);
			at += 4 * N;
			ALIGN_AT();
			base_at = at;
			memcpy(img + at, &(uint64_t){ ksym_addr(0) }, 8);
			at += 8;
		}
		ALIGN_AT();
		num_at = at;
		memcpy(img + at, &(uint32_t){ N }, 4);
		at += old ? 8 : 4;
		ALIGN_AT();
		size_t names_at = at;
		uint64_t markers[(N + 255) / 256];
		for (int i = 0; i < N; i++) {
			if (i % 256 == 0)
				markers[i / 256] = at - names_at;
			char name[16];
			if (i < 2)
				snprintf(name, sizeof name, "T%s", i == 0 ? "_text" : "_stext");
			else
				snprintf(name, sizeof name, "Tsym_%04d", i);
			img[at++] = (uint8_t)strlen(name);
			memcpy(img + at, name, strlen(name)); /* token c = character c */
			at += strlen(name);
		}
		ALIGN_AT();
		size_t markers_at = at;
		for (int m = 0; m < (N + 255) / 256; m++) {
			if (old)
				memcpy(img + at, &markers[m], 8);
			else
				memcpy(img + at, &(uint32_t){ (uint32_t)markers[m] }, 4);
			at += old ? 8 : 4;
		}
		ALIGN_AT();
		size_t ttab_at = at;
		uint16_t tidx[256];
		for (int i = 0; i < 256; i++) {
			tidx[i] = (uint16_t)(at - ttab_at);
			img[at++] = (char)(i > 0 && i < 128 ? i : 'z');
			img[at++] = 0;
		}
		ALIGN_AT();
		size_t tidx_at = at;
		memcpy(img + at, tidx, sizeof tidx);
		at += sizeof tidx;
		if (!old) {
			ALIGN_AT();
			offs_at = at;
			for (int i = 0; i < N; i++) {
				int64_t rel = (int64_t)(ksym_addr(i) - (va0 + at + 4 * (uint64_t)i));
				memcpy(img + at + 4 * i, &(int32_t){ (int32_t)rel }, 4);
			}
			at += 4 * N;
		}
#undef ALIGN_AT
		put_bytes(f, pa0, img, at);
		(void)markers_at;
		if (layout == PC_RELATIVE_LISTED) {
			vmci(f, "SYMBOL(kallsyms_num_syms)", "%llx", (unsigned long long)(va0 + num_at));
			vmci(f, "SYMBOL(kallsyms_names)", "%llx", (unsigned long long)(va0 + names_at));
			vmci(f, "SYMBOL(kallsyms_token_table)", "%llx", (unsigned long long)(va0 + ttab_at));
			vmci(f, "SYMBOL(kallsyms_token_index)", "%llx", (unsigned long long)(va0 + tidx_at));
			vmci(f, "SYMBOL(kallsyms_offsets)", "%llx", (unsigned long long)(va0 + offs_at));
		}
		(void)base_at;
		struct ps_target t = fake_target(f, "x86_64");
		struct ps_core *c = calloc(1, sizeof *c);
		if (CHECK(ps_core_open(c, &t) == 0, "layout %d: open: %s", layout, c->err)) {
			uint64_t a = 0;
			CHECK(ps_kallsyms_load(c) == 0, "layout %d: load: %s", layout, c->err);
			CHECK_U64(ps_core_symbol_by_name(c, "_text", &a), 0);
			CHECK_U64(a, ksym_addr(0));
			CHECK_U64(ps_core_symbol_by_name(c, "sym_0599", &a), 0);
			CHECK_U64(a, ksym_addr(599));
			CHECK_U64(ps_core_symbol_by_name(c, "sym_0257", &a), 0);
			CHECK_U64(a, ksym_addr(257));
		}
		ps_core_close(c);
		/* A table whose addresses do not put _stext where VMCOREINFO says is refused. */
		if (layout == PC_RELATIVE_LISTED) {
			put32(f, pa0 + offs_at + 4, 0x12345);
			if (CHECK(ps_core_open(c, &t) == 0, "open: %s", c->err)) {
				CHECK(ps_kallsyms_load(c) != 0, "wrong _stext refused");
				CHECK(strstr(c->err, "_stext") != NULL, "message: %s", c->err);
			}
			ps_core_close(c);
		}
		free(c);
		free(f);
	}
}

/* ---- typed loads ----------------------------------------------------------------------- */

static void test_loads(void)
{
	struct ps_core *c = calloc(1, sizeof *c);
	const uint8_t b[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	c->big_endian = true;
	c->ptr_size = 4;
	CHECK_U64(ps_load_u16(c, b), 0x0102);
	CHECK_U64(ps_load_u32(c, b), 0x01020304);
	CHECK_U64(ps_load_u64(c, b), 0x0102030405060708ull);
	CHECK_U64(ps_load_ptr(c, b), 0x01020304);
	c->big_endian = false;
	c->ptr_size = 8;
	CHECK_U64(ps_load_u16(c, b), 0x0201);
	CHECK_U64(ps_load_u32(c, b), 0x04030201);
	CHECK_U64(ps_load_ptr(c, b), 0x0807060504030201ull);
	const uint8_t m[4] = { 0xff, 0xff, 0xff, 0xff };
	CHECK(ps_load_s32(c, m) == -1, "s32");
	/* members sized by kinfo */
	for (int i = 0; i < PS_KI_NMEMBERS; i++)
		c->ki.member[i].offset = PS_KI_ABSENT;
	c->ki.member[PS_KI_TASK_PID] = (struct ps_kinfo_member){ .offset = 2, .size = 4 };
	c->ki.member[PS_KI_DENTRY_NAME_LEN] = (struct ps_kinfo_member){ .offset = 1, .size = 1 };
	c->ki.member[PS_KI_PAGE_FLAGS] = (struct ps_kinfo_member){ .offset = 0, .size = 8 };
	CHECK_U64(ps_member(c, b, PS_KI_TASK_PID), 0x06050403);
	CHECK_U64(ps_member(c, b, PS_KI_DENTRY_NAME_LEN), 2);
	CHECK_U64(ps_member(c, b, PS_KI_PAGE_FLAGS), 0x0807060504030201ull);
	CHECK_U64(ps_member(c, b, PS_KI_TASK_MM), 0); /* absent */
	CHECK_STR(ps_read_status_name(PS_READ_EXCLUDED), "excluded");
	CHECK_STR(ps_read_status_name(PS_READ_NODATA), "not in dump");
	CHECK(ps_arch_find("x86_64") == &ps_arch_x86_64, "x86_64");
	CHECK(ps_arch_find("aarch64") == &ps_arch_arm64, "aarch64 alias");
	CHECK(ps_arch_find("arm64") == &ps_arch_arm64, "arm64");
	CHECK(ps_arch_find("vax") == NULL, "unknown arch");
	free(c);
}

/* Open failures say why. */
static void test_open_errors(void)
{
	struct fake *f = calloc(1, sizeof *f);
	struct ps_core *c = calloc(1, sizeof *c);
	vmci(f, "PAGESIZE", "4096");
	struct ps_target t = fake_target(f, "vax");
	CHECK(ps_core_open(c, &t) != 0 && strstr(c->err, "vax"), "unknown arch: %s", c->err);
	ps_core_close(c);
	t = fake_target(f, "arm64"); /* no VA_BITS */
	CHECK(ps_core_open(c, &t) != 0 && strstr(c->err, "VA_BITS"), "arm64 without VA_BITS: %s", c->err);
	ps_core_close(c);
	t = fake_target(f, "x86_64"); /* no init_top_pgt */
	CHECK(ps_core_open(c, &t) != 0 && strstr(c->err, "init_top_pgt"), "x86 without pgd: %s", c->err);
	ps_core_close(c);
	t.page_size = 8192;
	CHECK(ps_core_open(c, &t) != 0 && strstr(c->err, "PAGESIZE"), "page size mismatch: %s", c->err);
	ps_core_close(c);
	free(c);
	free(f);
}

int main(void)
{
	test_loads();
	test_open_errors();
	test_x86_4level();
	test_x86_5level();
	test_generic_32bit_be_kvaddr();
	test_init_task_scan();
	test_cyclic_tables();
	test_arm64();
	test_arm64_granules();
	test_arm64_versions();
	test_kallsyms();
	test_kallsyms_layouts();
	return check_summary("test_pgtable");
}
