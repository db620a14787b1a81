/* kversion.h - kernel facts that no type information carries, in one table keyed by kernel
 * version (kversion.c), and the page-type encoding resolved from the type information, the
 * dump's VMCOREINFO or, last, that table.
 */
#ifndef PAGESLEUTH_KVERSION_H
#define PAGESLEUTH_KVERSION_H

#include <stdbool.h>
#include <stdint.h>

#include "kinfo.h"

#define PS_KVER(a, b, c) (((uint32_t)(a) << 16) | ((uint32_t)(b) << 8) | (uint32_t)(c))

/* "5.10.0-32-cloud-amd64" -> PS_KVER(5, 10, 0); 0 if RELEASE does not start with a version. */
uint32_t ps_kver_parse(const char *release);

/* How page->page_type (in _mapcount's place) marks a page that is not mapped to user space
 * (include/linux/page-flags.h):
 *  - up to 6.11 a type CLEARS its bit from an all-ones value: PageFoo(page) is
 *    (page_type & (BASE | PG_foo)) == BASE; page_has_type() is page_type < RESERVE;
 *  - since 6.12 (commit 4ffca5a96678, "mm: support only one page_type per page") the top
 *    byte names the one type: PageFoo(page) is page_type >> 24 == PGTY_foo, and
 *    page_has_type() is page_type < PGTY_mapcount_underflow << 24.
 * A value of 0 means the kernel has no such type. */
struct ps_page_types {
	bool top_byte;
	uint32_t base;
	int32_t reserve;
	uint32_t buddy, offline, table, guard, hugetlb, slab, zsmalloc, unaccepted;
	const char *source; /* "type information", "VMCOREINFO", "kernel version table" */
};

/* Resolve the encoding of KI's kernel: enumerators in the type information first (enum
 * pagetype: PGTY_* since 6.12, PG_* bits in 6.9-6.11), then VMCOREINFO's
 * PAGE_*_MAPCOUNT_VALUE numbers (VMCI(ctx, key, &value) answers them), then the version
 * table for what neither says. 0, or -1 when KVER is unknown/newer than the table and
 * nothing else says (*why names the missing fact). */
int ps_page_types_resolve(const struct ps_kinfo *ki, uint32_t kver,
			  bool (*vmci)(void *ctx, const char *key, int64_t *value), void *ctx,
			  struct ps_page_types *out, const char **why);

/* What /proc/kpageflags (fs/proc/page.c stable_page_flags()) reports, where it changed
 * without a trace in the type information. */
struct ps_kpageflags_rules {
	bool from_folio;   /* flags are the folio's (head page's), not the page's own */
	bool ksm_any_anon; /* KPF_KSM on every anonymous folio ("mapping & PAGE_MAPPING_KSM") */
	bool thp_rmappable; /* KPF_THP: any large rmappable folio, else the zero folios */
	const char *commit;
};
void ps_kpageflags_rules(uint32_t kver, struct ps_kpageflags_rules *out);

/* arm64's VMEMMAP_START where VMCOREINFO does not state it (before 5.12). */
enum ps_arm64_vmemmap { PS_A64_VMEMMAP_UNKNOWN, PS_A64_VMEMMAP_BELOW_2M, PS_A64_VMEMMAP_PROJECTION };
enum ps_arm64_vmemmap ps_arm64_vmemmap_layout(uint32_t kver);

/* arm64 software PTE layout (arch/arm64/include/asm/pgtable{,-prot}.h): where a swap
 * entry keeps its type and offset, and how a PROT_NONE (or mid-split THP) entry that is
 * not valid still counts as present. */
struct ps_arm64_pte_layout {
	unsigned swp_type_shift, swp_type_bits, swp_offset_shift;
	int swp_exclusive_bit;      /* -1: none */
	uint64_t present_invalid;   /* PTE (and PMD) bit making an invalid entry present */
	uint64_t pmd_present_invalid; /* additionally for PMDs (6.1's bit 59), 0: none */
	const char *commit;
};
void ps_arm64_pte_layout(uint32_t kver, struct ps_arm64_pte_layout *out);

/* 32-bit arm swap PTEs (arch/arm/include/asm/pgtable.h; short descriptors and LPAE's low
 * word alike): where the type and offset sit, and the exclusive marker where there is one. */
struct ps_arm_swap_layout {
	unsigned type_shift, type_bits, offset_shift;
	int exclusive_bit; /* -1: none */
	const char *commit;
};
void ps_arm_swap_layout(uint32_t kver, struct ps_arm_swap_layout *out);

/* Bytes of a 32-bit PowerPC e500 PGD entry when the type information does not say
 * (sizeof(pmd_t), vm_fault.orig_pmd): with 64-bit PTEs 8 since 6.11, else 4. */
unsigned ps_ppc32_e500_pgd_entry_size(uint32_t kver, bool pte_64bit, const char **commit);

static inline bool ps_page_is_type(const struct ps_page_types *pt, uint32_t page_type, uint32_t type)
{
	if (!type)
		return false;
	if (pt->top_byte)
		return page_type >> 24 == type;
	return (page_type & (pt->base | type)) == pt->base;
}

static inline bool ps_page_has_type(const struct ps_page_types *pt, uint32_t page_type)
{
	return (int32_t)page_type < pt->reserve;
}

#endif
