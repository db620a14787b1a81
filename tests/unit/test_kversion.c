/* test_kversion.c - unit tests of walker/kversion.c: kernel releases parsed to versions, the
 * page-type encoding resolved from the type information (enum pagetype: PGTY_* top byte
 * of 6.12+, inverted bits of 6.10-6.11), VMCOREINFO and the version table, with refusals
 * where none says; and the kpageflags rules of each stable_page_flags() generation.
 *
 * Prints "FAIL: file:line: ..." per failed check and "test_kversion: N checks, M failed".
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kinfo.h"
#include "kversion.h"

struct vmci_fake {
	const char *keys[4];
	int64_t vals[4];
};

static bool vmci(void *ctx, const char *key, int64_t *out)
{
	struct vmci_fake *f = ctx;
	for (int i = 0; i < 4 && f->keys[i]; i++)
		if (strcmp(f->keys[i], key) == 0) {
			*out = f->vals[i];
			return true;
		}
	return false;
}

static void test_parse(void)
{
	CHECK_U64(ps_kver_parse("5.10.0-32-cloud-amd64"), PS_KVER(5, 10, 0));
	CHECK_U64(ps_kver_parse("6.12.117+deb13-cloud-amd64"), PS_KVER(6, 12, 117));
	CHECK_U64(ps_kver_parse("7.2.13+deb14-cloud-amd64"), PS_KVER(7, 2, 13));
	CHECK_U64(ps_kver_parse("6.1"), PS_KVER(6, 1, 0));
	CHECK_U64(ps_kver_parse("6.1.999"), PS_KVER(6, 1, 255)); /* sublevel saturates */
	CHECK_U64(ps_kver_parse("linux"), 0);
	CHECK_U64(ps_kver_parse(""), 0);
	CHECK_U64(ps_kver_parse(NULL), 0);
	CHECK_U64(ps_kver_parse("300.1.0"), 0);
}

static void test_page_types(void)
{
	struct ps_kinfo *ki = calloc(1, sizeof *ki);
	struct ps_page_types pt;
	const char *why;
	struct vmci_fake none = { 0 };

	/* 6.12+: PGTY_* enumerators; the top byte names the one type. */
	ps_kinfo_init(ki);
	ki->enumval[PS_KI_PGTY_BUDDY] = 0xf0;
	ki->enumval[PS_KI_PGTY_TABLE] = 0xf2;
	ki->enumval[PS_KI_PGTY_HUGETLB] = 0xf4;
	ki->enumval[PS_KI_PGTY_SLAB] = 0xf5;
	CHECK(ps_page_types_resolve(ki, PS_KVER(6, 12, 0), vmci, &none, &pt, &why) == 0, "6.12: %s", why);
	CHECK(pt.top_byte, "top byte");
	CHECK(ps_page_is_type(&pt, 0xf5000000u, pt.slab), "slab");
	CHECK(!ps_page_is_type(&pt, 0xf5000000u, pt.buddy), "slab is not buddy");
	CHECK(ps_page_is_type(&pt, 0xf0000003u, pt.buddy), "buddy with low bits (order)");
	CHECK(ps_page_has_type(&pt, 0xf2000000u), "typed");
	CHECK(!ps_page_has_type(&pt, 0xffffffffu), "_mapcount -1 is no type");
	CHECK(!ps_page_has_type(&pt, 0), "_mapcount 0 is no type");
	CHECK(!ps_page_is_type(&pt, 0xf5000000u, pt.offline), "no offline enumerator: never");

	/* 6.10-6.11: enum pagetype with inverted bits; PG_slab names a type, not a flag. */
	ps_kinfo_init(ki);
	ki->enumval[PS_KI_PAGE_TYPE_BASE] = 0x80000000;
	ki->enumval[PS_KI_PAGE_MAPCOUNT_RESERVE] = ~0xffff;
	ki->enumval[PS_KI_PG_BUDDY_TYPE] = 0x40000000;
	ki->enumval[PS_KI_PG_TABLE_TYPE] = 0x10000000;
	ki->enumval[PS_KI_PG_SLAB] = 0x02000000;
	CHECK(ps_page_types_resolve(ki, PS_KVER(6, 10, 0), vmci, &none, &pt, &why) == 0, "6.10: %s", why);
	CHECK(!pt.top_byte, "bits");
	CHECK_U64(pt.slab, 0x02000000);
	CHECK(ps_page_is_type(&pt, ~0x02000000u, pt.slab), "slab: its bit cleared");
	CHECK(!ps_page_is_type(&pt, ~0x40000000u, pt.slab), "buddy is not slab");
	CHECK(ps_page_has_type(&pt, ~0x40000000u), "typed");
	CHECK(!ps_page_has_type(&pt, 0xffff0000u + 5), "a mapcount underflow is no type");

	/* 5.10: #defines; VMCOREINFO's ~PG_buddy, PG_table from the table (0x400 before 5.11). */
	ps_kinfo_init(ki);
	ki->enumval[PS_KI_PG_SLAB] = 7; /* the page flag */
	struct vmci_fake v510 = { { "NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)", "NUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)" },
				  { -129, -257 } };
	CHECK(ps_page_types_resolve(ki, PS_KVER(5, 10, 0), vmci, &v510, &pt, &why) == 0, "5.10: %s", why);
	CHECK_U64(pt.buddy, 0x80);
	CHECK_U64(pt.offline, 0x100);
	CHECK_U64(pt.table, 0x400);
	CHECK_U64(pt.slab, 0);
	CHECK(ps_page_is_type(&pt, 0xfffffbffu, pt.table), "5.10 page table");
	CHECK(ps_page_types_resolve(ki, PS_KVER(6, 1, 0), vmci, &v510, &pt, &why) == 0, "6.1: %s", why);
	CHECK_U64(pt.table, 0x200);
	CHECK(ps_page_has_type(&pt, 0xffffff7fu), "buddy typed");
	CHECK(!ps_page_has_type(&pt, (uint32_t)-128), "-128 is the reserve, no type");

	/* Refused: an unknown version, a version past the table without enum pagetype, and a
	 * dump whose VMCOREINFO has the PGTY encoding while the type information does not. */
	CHECK(ps_page_types_resolve(ki, 0, vmci, &none, &pt, &why) != 0 && why, "no version");
	CHECK(ps_page_types_resolve(ki, PS_KVER(4, 19, 0), vmci, &none, &pt, &why) != 0, "4.19");
	CHECK(ps_page_types_resolve(ki, PS_KVER(6, 12, 0), vmci, &none, &pt, &why) != 0 &&
	      strstr(why, "outside"), "6.12 without enumerators: %s", why ? why : "");
	struct vmci_fake v612 = { { "NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)" }, { (int32_t)0xf0000000u } };
	CHECK(ps_page_types_resolve(ki, PS_KVER(6, 1, 0), vmci, &v612, &pt, &why) != 0 &&
	      strstr(why, "PGTY"), "PGTY values without enumerators: %s", why ? why : "");
	free(ki);
}

static void test_kpageflags_rules(void)
{
	struct ps_kpageflags_rules r;
	ps_kpageflags_rules(PS_KVER(6, 1, 0), &r);
	CHECK(!r.from_folio && !r.ksm_any_anon, "6.1: the page's own flags");
	ps_kpageflags_rules(PS_KVER(6, 12, 117), &r);
	CHECK(r.from_folio && r.ksm_any_anon && r.thp_rmappable, "6.12: folio flags, KSM on anon");
	ps_kpageflags_rules(PS_KVER(7, 2, 13), &r);
	CHECK(r.from_folio && !r.ksm_any_anon, "7.2: KSM fixed");
}

int main(void)
{
	test_parse();
	test_page_types();
	test_kpageflags_rules();
	return check_summary("test_kversion");
}
