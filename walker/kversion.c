/* kversion.c - the kernel facts that change between versions and that neither the type
 * information nor VMCOREINFO carries, in one table each, keyed by kernel version and citing
 * the commit that changed them (as libdrgn does). Everything else the walker needs comes
 * from the type information (kinfo.h) or the dump.
 */
#include "kversion.h"

#include <stdio.h>
#include <stdlib.h>

uint32_t ps_kver_parse(const char *release)
{
	unsigned a = 0, b = 0, c = 0;
	int n = release ? sscanf(release, "%u.%u.%u", &a, &b, &c) : 0;
	if (n < 2 || a > 255 || b > 255)
		return 0;
	return PS_KVER(a, b, c > 255 ? 255 : c);
}

/* The tables below list, in ascending `since`, what changed in which kernel. The row a
 * kernel has: the last one whose `since` it has reached; N (the table's length) when it has
 * reached none. */
static size_t row_reached(const uint32_t *since0, size_t stride, size_t n, uint32_t kver)
{
	size_t found = n;
	for (size_t i = 0; i < n; i++)
		if (kver >= *(const uint32_t *)(const void *)((const char *)since0 + i * stride))
			found = i;
	return found;
}
#define NROWS(rows) (sizeof(rows) / sizeof(rows)[0])
#define ROW_REACHED(rows, kver) row_reached(&(rows)[0].since, sizeof(rows)[0], NROWS(rows), (kver))
/* A table's row for KVER, its first (oldest) row when KVER is older than all. */
static size_t first_if_none(size_t r, size_t n) { return r < n ? r : 0; }
#define ROW_OR_FIRST(rows, kver) (&(rows)[first_if_none(ROW_REACHED(rows, kver), NROWS(rows))])

/* page_type bits while they were #defines (include/linux/page-flags.h), so invisible to
 * BTF and DWARF. Base 0xf0000000 and PAGE_MAPCOUNT_RESERVE -128 throughout. */
static const struct page_type_row {
	uint32_t since; /* first kernel with these values */
	uint32_t buddy, offline, table, guard, hugetlb, unaccepted;
	const char *commit;
} page_type_rows[] = {
	/* PG_buddy 0x80, PG_offline 0x100, PG_kmemcg 0x200, PG_table 0x400 (4.18), PG_guard
	 * 0x800 (5.1, commit 3972f6bb1625). Older kernels are not supported. */
	{ PS_KVER(5, 1, 0), 0x80, 0x100, 0x400, 0x800, 0, 0, "3972f6bb1625" },
	/* PG_kmemcg gone: commit 18b2db3b0385 ("mm: Convert page kmemcg type to a page memcg flag") */
	{ PS_KVER(5, 11, 0), 0x80, 0x100, 0x200, 0x400, 0, 0, "18b2db3b0385" },
	/* PG_unaccepted 0x800: commit dcdfdd40fa82 ("mm: Add support for unaccepted memory") */
	{ PS_KVER(6, 5, 0), 0x80, 0x100, 0x200, 0x400, 0, 0x800, "dcdfdd40fa82" },
	/* PG_hugetlb 0x800, PG_unaccepted 0x1000: commit d99e3140a4d3 ("mm: turn
	 * folio_test_hugetlb into a PageType"); VMCOREINFO also says PAGE_HUGETLB_MAPCOUNT_VALUE */
	{ PS_KVER(6, 9, 0), 0x80, 0x100, 0x200, 0x400, 0x800, 0x1000, "d99e3140a4d3" },
};
/* From 6.10 the types are enumerators (enum pagetype, in BTF and DWARF): the table ends. */
#define PAGE_TYPE_TABLE_END PS_KVER(6, 10, 0)

static int64_t en(const struct ps_kinfo *ki, enum ps_ki_enum id)
{
	return ki->enumval[id];
}

/* A page type's value from its enumerator, 0 if absent. With BITS_ONLY a value that is a
 * page-flag bit number (6.10-6.11's PG_slab shares the old flag's name) counts as absent. */
static uint32_t type_enum(const struct ps_kinfo *ki, enum ps_ki_enum id, bool bits_only)
{
	int64_t v = en(ki, id);
	return v == PS_KI_ABSENT || (bits_only && v >= 0 && v < 64) ? 0 : (uint32_t)v;
}

int ps_page_types_resolve(const struct ps_kinfo *ki, uint32_t kver,
			  bool (*vmci)(void *ctx, const char *key, int64_t *value), void *ctx,
			  struct ps_page_types *pt, const char **why)
{
	*pt = (struct ps_page_types){ 0 };
	*why = NULL;
	/* 6.12+: enum pagetype { PGTY_buddy = 0xf0, ... } */
	if (en(ki, PS_KI_PGTY_BUDDY) != PS_KI_ABSENT) {
		pt->top_byte = true;
		pt->reserve = (int32_t)(UINT32_C(0xff) << 24); /* PGTY_mapcount_underflow << 24 */
		pt->buddy = type_enum(ki, PS_KI_PGTY_BUDDY, false);
		pt->offline = type_enum(ki, PS_KI_PGTY_OFFLINE, false);
		pt->table = type_enum(ki, PS_KI_PGTY_TABLE, false);
		pt->guard = type_enum(ki, PS_KI_PGTY_GUARD, false);
		pt->hugetlb = type_enum(ki, PS_KI_PGTY_HUGETLB, false);
		pt->slab = type_enum(ki, PS_KI_PGTY_SLAB, false);
		pt->zsmalloc = type_enum(ki, PS_KI_PGTY_ZSMALLOC, false);
		pt->unaccepted = type_enum(ki, PS_KI_PGTY_UNACCEPTED, false);
		pt->source = "type information";
		return 0;
	}
	/* 6.10-6.11: enum pagetype { PG_buddy = 0x40000000, ..., PAGE_TYPE_BASE = 0x80000000,
	 * PAGE_MAPCOUNT_RESERVE = ~0x0000ffff }. Its PG_slab shares the name of the old page
	 * flag; a value that is no bit number tells them apart. */
	if (en(ki, PS_KI_PAGE_TYPE_BASE) != PS_KI_ABSENT && en(ki, PS_KI_PG_BUDDY_TYPE) != PS_KI_ABSENT) {
		pt->base = (uint32_t)en(ki, PS_KI_PAGE_TYPE_BASE);
		pt->reserve = en(ki, PS_KI_PAGE_MAPCOUNT_RESERVE) != PS_KI_ABSENT
				      ? (int32_t)en(ki, PS_KI_PAGE_MAPCOUNT_RESERVE) : (int32_t)~0xffff;
		pt->buddy = type_enum(ki, PS_KI_PG_BUDDY_TYPE, true);
		pt->offline = type_enum(ki, PS_KI_PG_OFFLINE_TYPE, true);
		pt->table = type_enum(ki, PS_KI_PG_TABLE_TYPE, true);
		pt->guard = type_enum(ki, PS_KI_PG_GUARD_TYPE, true);
		pt->hugetlb = type_enum(ki, PS_KI_PG_HUGETLB_TYPE, true);
		pt->slab = type_enum(ki, PS_KI_PG_SLAB, true);
		pt->zsmalloc = type_enum(ki, PS_KI_PG_ZSMALLOC_TYPE, true);
		pt->unaccepted = type_enum(ki, PS_KI_PG_UNACCEPTED_TYPE, true);
		pt->source = "type information";
		return 0;
	}
	/* The #define era: VMCOREINFO's ~PG_buddy (5.x+) and friends, the rest by version. */
	size_t r = ROW_REACHED(page_type_rows, kver);
	const struct page_type_row *row = r < NROWS(page_type_rows) ? &page_type_rows[r] : NULL;
	int64_t v;
	bool have_buddy = vmci && vmci(ctx, "NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)", &v);
	if (have_buddy) {
		uint32_t u = (uint32_t)v;
		if ((u & 0xffffff) == 0 && u >> 24 >= 0xf0) {
			/* a 6.12+ kernel whose type information lacks enum pagetype */
			*why = "page types: VMCOREINFO has 6.12's PGTY encoding but the type information has no PGTY_* enumerators";
			return -1;
		}
		if (~u >= 0x10000) {
			*why = "page types: VMCOREINFO has 6.10's encoding but the type information has no enum pagetype";
			return -1;
		}
	}
	if (!row || kver >= PAGE_TYPE_TABLE_END) {
		*why = kver ? "page types: kernel version outside the known table and no enum pagetype in the type information"
			    : "page types: kernel version unknown and no enum pagetype in the type information";
		return -1;
	}
	pt->base = 0xf0000000u;
	pt->reserve = -128;
	pt->buddy = row->buddy;
	pt->offline = row->offline;
	pt->table = row->table;
	pt->guard = row->guard;
	pt->hugetlb = row->hugetlb;
	pt->unaccepted = row->unaccepted;
	pt->source = "kernel version table";
	/* What the dump states wins over the table. */
	if (have_buddy) {
		pt->buddy = ~(uint32_t)v;
		pt->source = "VMCOREINFO and the kernel version table";
	}
	if (vmci && vmci(ctx, "NUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)", &v))
		pt->offline = ~(uint32_t)v;
	if (vmci && vmci(ctx, "NUMBER(PAGE_HUGETLB_MAPCOUNT_VALUE)", &v))
		pt->hugetlb = ~(uint32_t)v;
	return 0;
}

/* fs/proc/page.c stable_page_flags() generations. */
static const struct kpf_row {
	uint32_t since;
	struct ps_kpageflags_rules rules;
} kpf_rows[] = {
	{ 0, { false, false, false, "(5.x: the page's own flags; KSM, THP by PageKsm/PageTransCompound)" } },
	/* commit dee3d0bef2b0 ("proc: rewrite stable_page_flags()"): the folio's flags, and
	 * KSM tested as mapping & PAGE_MAPPING_KSM inside the anonymous case, which is true
	 * for every anonymous folio (PAGE_MAPPING_KSM includes PAGE_MAPPING_ANON); checked
	 * against kpageflags of Debian's 6.12 (tests/fixtures/data/x86_64-trixie). */
	{ PS_KVER(6, 10, 0), { true, true, true, "dee3d0bef2b0" } },
	/* commit 81401cebfc15 ("fs/proc: fix KPF_KSM reported for all anonymous pages", merged
	 * after 7.2-rc2; Debian's 7.2.13 has it). Stable backports may have fixed some
	 * 6.12.y/6.18.y releases later than the 6.12.117 checked here; those are not known. */
	{ PS_KVER(7, 2, 0), { true, false, true, "81401cebfc15" } },
};

void ps_kpageflags_rules(uint32_t kver, struct ps_kpageflags_rules *out)
{
	*out = ROW_OR_FIRST(kpf_rows, kver)->rules;
}

/* arm64 VMEMMAP_START (arch/arm64/include/asm/memory.h). From 5.4 ("arm64: mm: Flip kernel
 * VA space", 14c127c957c1) to 5.10: -VMEMMAP_SIZE - SZ_2M; since 5.11 a projection of the
 * linear region, -(1 << (VA_BITS - VMEMMAP_SHIFT)) (8c96400d6a39, "arm64: mm: make vmemmap
 * region a projection of the linear region"); VMCOREINFO states it itself since 5.12. The
 * 5.10 row is checked against Debian's 5.10 (tests/fixtures/data/arm64-bullseye). */
enum ps_arm64_vmemmap ps_arm64_vmemmap_layout(uint32_t kver)
{
	if (kver >= PS_KVER(5, 11, 0))
		return PS_A64_VMEMMAP_PROJECTION;
	if (kver >= PS_KVER(5, 4, 0))
		return PS_A64_VMEMMAP_BELOW_2M;
	return PS_A64_VMEMMAP_UNKNOWN;
}

/* arm64 swap entries and not-valid-but-present entries, by kernel version. */
static const struct a64_pte_row {
	uint32_t since;
	struct ps_arm64_pte_layout l;
} a64_pte_rows[] = {
	/* 5.x: type bits 2-7, offset 8-57; PTE_PROT_NONE bit 58, PMD_PRESENT_INVALID bit 59
	 * (checked on Debian's 5.10: arm64-bullseye) */
	{ 0, { 2, 6, 8, -1, UINT64_C(1) << 58, UINT64_C(1) << 59, "(5.x)" } },
	/* 6.0: bit 2 remembers PG_anon_exclusive, the type moves to bits 3-7 (570ef363509b,
	 * "arm64/pgtable: support __HAVE_ARCH_PTE_SWP_EXCLUSIVE") */
	{ PS_KVER(6, 0, 0), { 3, 5, 8, 2, UINT64_C(1) << 58, UINT64_C(1) << 59, "570ef363509b" } },
	/* 6.10: PTE_PROT_NONE removed, PTE_PRESENT_INVALID overlays nG (bit 11) for PTEs and
	 * PMDs; swap type bits 6-10, offset 12-61, bit 3 uffd-wp ("arm64/mm: Remove
	 * PTE_PROT_NONE bit", "arm64/mm: Move PTE_PRESENT_INVALID to overlay PTE_NG"; checked
	 * on Debian's 6.12: arm64-trixie) */
	{ PS_KVER(6, 10, 0), { 6, 5, 12, 2, UINT64_C(1) << 11, 0, "6.10 PTE_PRESENT_INVALID" } },
};

void ps_arm64_pte_layout(uint32_t kver, struct ps_arm64_pte_layout *out)
{
	*out = ROW_OR_FIRST(a64_pte_rows, kver)->l;
}

/* 32-bit arm swap entries, by kernel version. Until 6.2: type bits 2-6, offset from bit 7
 * (checked on Debian's 6.1: armhf). 6.3: bit 7 remembers PG_anon_exclusive and the offset
 * starts at bit 8 (20aae9eff5ac, "arm/mm: support __HAVE_ARCH_PTE_SWP_EXCLUSIVE"; checked on
 * Debian's 6.12: armhf-trixie). */
static const struct arm_swap_row {
	uint32_t since;
	struct ps_arm_swap_layout l;
} arm_swap_rows[] = {
	{ 0, { 2, 5, 7, -1, "(before 6.3)" } },
	{ PS_KVER(6, 3, 0), { 2, 5, 8, 7, "20aae9eff5ac" } },
};

void ps_arm_swap_layout(uint32_t kver, struct ps_arm_swap_layout *out)
{
	*out = ROW_OR_FIRST(arm_swap_rows, kver)->l;
}

/* 32-bit PowerPC e500 (85xx) with 64-bit PTEs: pgd_t became 64 bits in 6.11 (6b0e82791bd0,
 * "powerpc/e500: switch to 64 bits PGD on 85xx (32 bits)"), so that a PGD entry can hold a
 * huge page's PTE ("powerpc/e500: Use contiguous PMD instead of hugepd"); checked on 6.12
 * built from Debian's linux-source-6.12 (tests/fixtures ppc32-e500-64pte-trixie). 32-bit
 * PTEs and 44x keep 4-byte entries. */
unsigned ps_ppc32_e500_pgd_entry_size(uint32_t kver, bool pte_64bit, const char **commit)
{
	bool wide = pte_64bit && kver >= PS_KVER(6, 11, 0);
	if (commit)
		*commit = wide ? "6b0e82791bd0" : "(before 6.11)";
	return wide ? 8 : 4;
}
