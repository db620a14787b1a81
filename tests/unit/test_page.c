/* test_page.c - unit tests of walker/page.c (one VMA's pages -> m/u records) on a synthetic
 * 32-bit PowerPC e500 kernel (64-bit PTEs, FLATMEM, 128 MiB of RAM, big-endian), built entry
 * by entry with the page-table harness (tests/unit/pt_harness.h), and the same on 32-bit ARM
 * with short descriptors where the two differ:
 *
 *   - page_ext (PG_idle/PG_young of 32-bit kernels): entries are page_ext_size apart, which
 *     is sizeof(struct page_ext) plus every boot-time user's extension (page_owner: mm/
 *     page_ext.c). With the kernel's page_ext_size the flags come from the right entry;
 *     without it, and with page_owner built in (its ops, or only its functions as kallsyms
 *     without KALLSYMS_ALL has them), nothing is guessed (no bits rather than another
 *     page's) and one warning says why; an implausible page_ext_size is refused the same way.
 *   - VM_MIXEDMAP on 32-bit ARM without LPAE (no pte_special): a normal PTE mapping a frame
 *     beyond max_pfn is a frame without a struct page (vm_normal_page()'s pfn_valid test):
 *     an `m` record with the nopage flag, not counted in the sum, never a bad entry or a
 *     struct page read. Where pte_special exists (ppc32 here) only a special PTE is that;
 *     a normal one is a bad entry, as vm_normal_page() says (print_bad_pte).
 *
 * Prints "FAIL: file:line: ..." per failed check and "test_page: N checks, M failed".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core.h"
#include "mm_internal.h"
#include "pt_harness.h"
#include "records.h"
#include "walker.h"

/* ---- the synthetic kernel ---------------------------------------------------------------- */

#define KVA(pa) (0xc0000000u + (uint32_t)(pa)) /* the linear map: lowmem at PA 0 */
#define MAX_PFN 0x8000u                        /* 128 MiB */

/* e500 64-bit PTE bits (nohash/pte-e500.h) */
#define E_PRESENT 0x1ull
#define E_SR 0x4ull
#define E_UR 0x8ull
#define E_SW 0x10ull
#define E_UW 0x20ull
#define E_4K 0x200ull
#define E_DIRTY 0x1000ull
#define E_ACCESSED 0x40000ull
#define E_SPECIAL 0x2000ull
#define E_USER_RW (E_PRESENT | E_ACCESSED | E_4K | E_SR | E_UR | E_SW | E_UW | E_DIRTY)
#define E_PTE(pfn) ((uint64_t)(pfn) << 24)

/* Physical layout */
#define PA_VARS 0x10000ull      /* high_memory, virt_phys_offset, init_task */
#define PA_PGDAT 0x20000ull     /* contig_page_data */
#define PA_PAGE_EXT_SIZE 0x21000ull
#define PA_PGD 0x40000ull       /* the process's PGD (8 KiB) */
#define PA_PTE_A 0x50000ull     /* PTE page of VA 0x10000000 */
#define PA_PTE_B 0x51000ull     /* PTE page of VA 0x10200000 */
#define PA_MEM_MAP 0x100000ull  /* struct page[MAX_PFN], 32 bytes each */
#define PA_PAGE_EXT 0x300000ull /* struct page_ext entries */

/* struct page (32-bit, 6.1): flags, compound_head, mapping, _mapcount, _refcount */
#define PAGE_SIZEOF 32
#define O_FLAGS 0
#define O_HEAD 4
#define O_MAPPING 12
#define O_MAPCOUNT 24
#define O_REFCOUNT 28

/* enum page_ext_flags with CONFIG_PAGE_OWNER and CONFIG_PAGE_IDLE_FLAG on 32-bit */
#define PAGE_EXT_YOUNG 2
#define PAGE_EXT_IDLE 3

#define USER_PFN 0x400u  /* the anonymous page the process maps */
#define OTHER_PFN 0x100u /* a page whose entry lies where a 4-byte stride finds USER_PFN's */
#define ANON_MAPPING (KVA(0x60000) | 1u)

enum ext_case {
	EXT_SIZE_KNOWN,       /* page_ext_size = 16 (page_owner's extension after the flags) */
	EXT_SIZE_UNKNOWN,     /* no page_ext_size symbol; page_owner_ops exists */
	EXT_SIZE_IMPLAUSIBLE, /* page_ext_size = 5: not a multiple of the flags word */
	EXT_SIZE_UNKNOWN_KALLSYMS, /* neither, nor page_owner_ops: only page_owner's functions
				      (kallsyms without KALLSYMS_ALL) */
	EXT_WINDOW_CUT,       /* page_ext_size 16, the array 2 KiB into a page, and the page
				 after USER_PFN's entry unreadable: its window (256 entries, 4 KiB)
				 cannot be read whole, its entry can */
};

static struct fake *build(enum ext_case ext)
{
	struct fake *f = calloc(1, sizeof *f);
	f->big_endian = true;
	f->ram_end = (uint64_t)MAX_PFN << 12; /* unwritten RAM reads as zeros */
	vmci(f, "SYMBOL(swapper_pg_dir)", "c0400000");
	vmci(f, "SYMBOL(high_memory)", "%x", KVA(PA_VARS));
	vmci(f, "SYMBOL(virt_phys_offset)", "%x", KVA(PA_VARS + 8));
	vmci(f, "SYMBOL(init_task)", "%x", KVA(PA_VARS + 0x200));
	put32(f, PA_VARS, KVA(MAX_PFN << 12));   /* high_memory: all RAM is lowmem */
	put64(f, PA_VARS + 8, 0xc0000000ull);     /* virt_phys_offset: __va(0) = 0xc0000000 */
	fake_page(f, 0x400000, true);             /* swapper_pg_dir (empty) */
	fake_page(f, 0x401000, true);

	/* FLATMEM: contig_page_data's node_mem_map, node_start_pfn, node_spanned_pages,
	 * node_page_ext at offsets 0, 4, 8, 12 (VMCOREINFO gives the first three, the type
	 * information the last). */
	vmci(f, "SYMBOL(contig_page_data)", "%x", KVA(PA_PGDAT));
	vmci(f, "OFFSET(pglist_data.node_mem_map)", "0");
	vmci(f, "OFFSET(pglist_data.node_start_pfn)", "4");
	vmci(f, "OFFSET(pglist_data.node_spanned_pages)", "8");
	put32(f, PA_PGDAT + 0, KVA(PA_MEM_MAP));
	put32(f, PA_PGDAT + 4, 0);
	put32(f, PA_PGDAT + 8, MAX_PFN);
	const uint64_t pe_base = PA_PAGE_EXT + (ext == EXT_WINDOW_CUT ? 0x800 : 0);
	put32(f, PA_PGDAT + 12, KVA(pe_base));

	/* The user page: an order-0 anonymous page, mapped once, one reference. */
	uint64_t pg = PA_MEM_MAP + (uint64_t)USER_PFN * PAGE_SIZEOF;
	put32(f, pg + O_FLAGS, 0);
	put32(f, pg + O_HEAD, 0);
	put32(f, pg + O_MAPPING, ANON_MAPPING);
	put32(f, pg + O_MAPCOUNT, 0); /* _mapcount 0: mapped once */
	put32(f, pg + O_REFCOUNT, 1);

	/* page_ext entries 16 bytes apart (4-byte flags, then page_owner's 12): USER_PFN's
	 * says idle; the entry a 4-byte stride would take for USER_PFN (OTHER_PFN's, at
	 * 4 * USER_PFN = 16 * OTHER_PFN) says young. */
	put32(f, pe_base + 16ull * USER_PFN, 1u << PAGE_EXT_IDLE);
	put32(f, pe_base + 16ull * OTHER_PFN, 1u << PAGE_EXT_YOUNG);
	if (ext == EXT_WINDOW_CUT) /* USER_PFN's window: pe_base + 0x4000 .. + 0x5000 */
		fake_mark(f, (pe_base + 16ull * USER_PFN + 0x1000) & ~0xfffull, PS_READ_NODATA);
	if (ext == EXT_SIZE_UNKNOWN_KALLSYMS)
		vmci(f, "SYMBOL(__set_page_owner)", "%x", KVA(0x23000));
	else
		vmci(f, "SYMBOL(page_owner_ops)", "%x", KVA(0x22000));
	if (ext == EXT_SIZE_KNOWN || ext == EXT_SIZE_IMPLAUSIBLE || ext == EXT_WINDOW_CUT) {
		vmci(f, "SYMBOL(page_ext_size)", "%x", KVA(PA_PAGE_EXT_SIZE));
		put32(f, PA_PAGE_EXT_SIZE, ext == EXT_SIZE_IMPLAUSIBLE ? 5 : 16);
	}
	if (ext == EXT_SIZE_IMPLAUSIBLE) /* what a stride of 5 finds for USER_PFN (entry 0x140's) */
		put32(f, PA_PAGE_EXT + 5ull * USER_PFN, 1u << PAGE_EXT_YOUNG);

	/* The process: PGD[0x80] (VA 0x10000000) and PGD[0x81] (VA 0x10200000) hold the
	 * kernel-virtual addresses of their PTE pages. */
	fake_page(f, PA_PGD + 0x1000, true);
	put32(f, PA_PGD + 0x80 * 4, KVA(PA_PTE_A));
	put32(f, PA_PGD + 0x81 * 4, KVA(PA_PTE_B));
	put64(f, PA_PTE_A + 0 * 8, E_PTE(USER_PFN) | E_USER_RW);    /* [0] the anonymous page */
	put64(f, PA_PTE_B + 0 * 8, E_PTE(0x9000) | E_USER_RW);      /* [0] PFN 0x9000: beyond RAM,
								       a normal (not special) PTE */
	return f;
}

/* The same RAM, struct pages and process on a 32-bit ARM kernel with short descriptors
 * (little-endian, PHYS_OFFSET 0, no pte_special): swapper_pg_dir maps lowmem with sections;
 * the process's PGD entry for VA 0x10200000 points at PTE_B's hardware half (+0x800), its
 * first Linux PTE maps PFN 0x9000, beyond RAM. */
#define A_PRESENT 0x001u
#define A_YOUNG 0x002u
#define A_DIRTY 0x040u
#define A_USER 0x100u
#define A_SECT_KERNEL 0x40eu /* a section, cached, kernel read-write */
#define A_USER_TABLE 0x31u  /* PMD_TYPE_TABLE | PMD_BIT4 | domain user */

static struct fake *build_arm(void)
{
	struct fake *f = calloc(1, sizeof *f);
	f->big_endian = false;
	f->ram_end = (uint64_t)MAX_PFN << 12;
	vmci(f, "SYMBOL(swapper_pg_dir)", "c0004000");
	vmci(f, "SYMBOL(high_memory)", "%x", KVA(PA_VARS));
	vmci(f, "SYMBOL(init_task)", "%x", KVA(PA_VARS + 0x200));
	put32(f, PA_VARS, KVA(MAX_PFN << 12)); /* high_memory: all RAM is lowmem */
	for (uint64_t pa = 0x4000; pa < 0x8000; pa += 0x1000)
		fake_page(f, pa, true);
	put32(f, 0x4000 + (0xc0000000u >> 21) * 8, 0x000000u | A_SECT_KERNEL); /* lowmem: sections */
	put32(f, 0x4000 + (0xc0000000u >> 21) * 8 + 4, 0x100000u | A_SECT_KERNEL);
	vmci(f, "SYMBOL(contig_page_data)", "%x", KVA(PA_PGDAT));
	vmci(f, "OFFSET(pglist_data.node_mem_map)", "0");
	vmci(f, "OFFSET(pglist_data.node_start_pfn)", "4");
	vmci(f, "OFFSET(pglist_data.node_spanned_pages)", "8");
	put32(f, PA_PGDAT + 0, KVA(PA_MEM_MAP));
	put32(f, PA_PGDAT + 4, 0);
	put32(f, PA_PGDAT + 8, MAX_PFN);
	for (uint64_t pa = PA_PGD; pa < PA_PGD + 0x4000; pa += 0x1000) /* 16 KiB PGD */
		fake_page(f, pa, true);
	put32(f, PA_PGD + (0x10200000u >> 21) * 8, (uint32_t)(PA_PTE_B + 0x800) | A_USER_TABLE);
	put32(f, PA_PGD + (0x10200000u >> 21) * 8 + 4, (uint32_t)(PA_PTE_B + 0xc00) | A_USER_TABLE);
	put32(f, PA_PTE_B + 0 * 4, (0x9000u << 12) | A_PRESENT | A_YOUNG | A_DIRTY | A_USER); /* beyond RAM */
	return f;
}

static const char *test_release = "6.1.0"; /* the kernel release the walker is told */

static struct ps_kinfo *kinfo(void)
{
	struct ps_kinfo *ki = calloc(1, sizeof *ki);
	ps_kinfo_init(ki);
	ki->member[PS_KI_VM_FAULT_ORIG_PTE] = (struct ps_kinfo_member){ .offset = 0x20, .size = 8 };
	ki->symbol[PS_KI_TLBCAM_INDEX] = 0xc0010100;
	ki->size[PS_KI_PAGE] = PAGE_SIZEOF;
	ki->member[PS_KI_PAGE_FLAGS] = (struct ps_kinfo_member){ .offset = O_FLAGS, .size = 4 };
	ki->member[PS_KI_PAGE_COMPOUND_HEAD] = (struct ps_kinfo_member){ .offset = O_HEAD, .size = 4 };
	ki->member[PS_KI_PAGE_MAPPING] = (struct ps_kinfo_member){ .offset = O_MAPPING, .size = 4 };
	ki->member[PS_KI_PAGE_MAPCOUNT] = (struct ps_kinfo_member){ .offset = O_MAPCOUNT, .size = 4 };
	ki->member[PS_KI_PAGE_REFCOUNT] = (struct ps_kinfo_member){ .offset = O_REFCOUNT, .size = 4 };
	ki->enumval[PS_KI_PG_LRU] = 4;
	ki->enumval[PS_KI_PG_HEAD] = 16;
	ki->size[PS_KI_PAGE_EXT] = 4;
	ki->member[PS_KI_PAGE_EXT_FLAGS] = (struct ps_kinfo_member){ .offset = 0, .size = 4 };
	ki->member[PS_KI_PGDAT_NODE_PAGE_EXT] = (struct ps_kinfo_member){ .offset = 12, .size = 4 };
	ki->enumval[PS_KI_PAGE_EXT_YOUNG] = PAGE_EXT_YOUNG;
	ki->enumval[PS_KI_PAGE_EXT_IDLE] = PAGE_EXT_IDLE;
	ki->member[PS_KI_FOLIO_LARGE_MAPCOUNT] = (struct ps_kinfo_member){ .offset = PAGE_SIZEOF + 8, .size = 4 };
	ki->member[PS_KI_FOLIO_ENTIRE_MAPCOUNT] = (struct ps_kinfo_member){ .offset = PAGE_SIZEOF + 16, .size = 4 };
	ki->enumval[PS_KI_PG_LARGE_RMAPPABLE] = 9;
	if (strcmp(test_release, "6.1.0") != 0) { /* 6.12+: enum pagetype */
		ki->enumval[PS_KI_PGTY_BUDDY] = 0xf0;
		ki->enumval[PS_KI_PGTY_SLAB] = 0xf5;
	}
	return ki;
}

/* ---- one walk ------------------------------------------------------------------------------ */


struct walked {
	char out[8192]; /* the records written */
	struct ps_walk_result res;
};

/* Walk the VMA [START, END) with VM_FLAGS of the process above, pages and sum written. */
static bool walk_vma(struct fake *f, uint64_t start, uint64_t end, uint64_t vm_flags, struct walked *r)
{
	const char *arch = f->big_endian ? "ppc32" : "arm"; /* build() or build_arm() */
	struct ps_target t = { .ops = &fake_ops, .ctx = f, .arch = arch, .big_endian = f->big_endian,
			       .ptr_size = 4, .page_size = 0, .max_pfn = MAX_PFN };
	char *err = NULL;
	struct ps_walker *w = ps_walker_open(&t, &err);
	if (!CHECK(w != NULL, "walker: %s", err ? err : "?")) {
		free(err);
		return false;
	}
	struct ps_kinfo *ki = kinfo();
	if (!f->big_endian) /* sizeof(pte_t): ARM's short descriptors */
		ki->member[PS_KI_VM_FAULT_ORIG_PTE].size = 4;
	bool ok = CHECK(ps_core_set_kinfo(&w->c, ki) == 0, "kinfo: %s", w->c.err);
	free(ki);
	snprintf(w->c.release, sizeof w->c.release, "%s", test_release); /* kversion.c's rows */
	FILE *fp = tmpfile();
	struct ps_writer *out = fp ? ps_writer_open_stream(fp, "test") : NULL;
	struct ps_walk_options opt = { .detail = PS_DETAIL_PAGES };
	memset(r, 0, sizeof *r);
	struct ps_header h = { .source = "test", .arch = arch, .endian = f->big_endian ? "big" : "little",
			       .page_size = 4096, .big_endian = f->big_endian };
	ok = ok && CHECK(out && ps_write_header(out, &h) == 0, "writer");
	if (ok) {
		w->out = out;
		w->opt = &opt;
		w->res = &r->res;
		const char *why;
		ok = CHECK(mm_pages_init(w, &why) == 0, "mm_pages_init: %s", why ? why : "");
	}
	if (ok) {
		struct mm_space mm = { .id = 1, .tgid = 100, .readable = true };
		struct mm_vma v = { .start = start, .end = end, .flags = vm_flags };
		ok = CHECK(mm_walk_vma_pages(w, &mm, PA_PGD, &v) == 0, "walk: %s", w->c.err);
	}
	if (out)
		ps_write_flush_run(out), ps_writer_flush_lines(out);
	if (fp) {
		fflush(fp);
		rewind(fp);
		size_t n = fread(r->out, 1, sizeof r->out - 1, fp);
		r->out[n] = 0;
		fclose(fp);
	}
	if (out)
		ps_writer_close(out, false, NULL);
	ps_walker_close(w);
	return ok;
}

/* The PFLAGS field of the first m record at VA, or UINT64_MAX. */
static uint64_t m_flags(const char *out, uint64_t va, uint64_t *pfn)
{
	char want[40];
	snprintf(want, sizeof want, "\nm 1 %llx ", (unsigned long long)va);
	const char *p = strstr(out, want);
	unsigned long long mva, mpfn, n, flags;
	char mc[24], rc[24], pte[16];
	unsigned shift;
	if (!p || sscanf(p + 1, "m 1 %llx %llx %llu %23s %23s %15s %llx %u", &mva, &mpfn, &n, mc, rc, pte,
			 &flags, &shift) != 8)
		return UINT64_MAX;
	if (pfn)
		*pfn = mpfn;
	return flags;
}

#define KPF_ANON (1ull << 12)
#define KPF_NOPAGE (1ull << 20)
#define KPF_IDLE (1ull << 25)
#define KPF_YOUNG (1ull << 48)

static void test_page_ext_stride(void)
{
	struct walked r;
	struct fake *f;
	/* Known: the page's own entry, read with its window or, where the window cannot be read
	 * whole, alone. */
	static const struct {
		enum ext_case ext;
		const char *what;
	} known[] = {
		{ EXT_SIZE_KNOWN, "page_ext_size 16" },
		{ EXT_WINDOW_CUT, "page_ext_size 16, the window unreadable, the entry readable" },
	};
	for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
		f = build(known[i].ext);
		check_context = known[i].what;
		if (walk_vma(f, 0x10000000, 0x10001000, 0x73 /* rw-p, VM_MAYREAD|MAYWRITE */, &r)) {
			uint64_t fl = m_flags(r.out, 0x10000000, NULL);
			CHECK(fl != UINT64_MAX, "no m record:\n%s", r.out);
			CHECK(fl & KPF_ANON, "anon %llx", (unsigned long long)fl);
			CHECK(fl & KPF_IDLE, "idle from the page's own entry: %llx", (unsigned long long)fl);
			CHECK(!(fl & KPF_YOUNG), "young from another page's entry: %llx", (unsigned long long)fl);
			CHECK(!strstr(r.out, "\nwarn ") && !r.res.partial, "a warning:\n%s", r.out);
		}
		free(f);
	}

	/* Not known: no bits rather than a neighbour's, and a warning (one) that says why. */
	static const struct {
		enum ext_case ext;
		const char *what, *why; /* why: as the record writes it (%20 for a space) */
	} unknown[] = {
		{ EXT_SIZE_UNKNOWN, "page_ext_size unknown, page_owner_ops", "page_owner%20may%20enlarge" },
		{ EXT_SIZE_UNKNOWN_KALLSYMS, "page_ext_size unknown, __set_page_owner", "page_owner%20may%20enlarge" },
		{ EXT_SIZE_IMPLAUSIBLE, "page_ext_size 5", "page_ext_size%20is%20implausible" },
	};
	for (size_t i = 0; i < sizeof unknown / sizeof *unknown; i++) {
		f = build(unknown[i].ext);
		check_context = unknown[i].what;
		if (walk_vma(f, 0x10000000, 0x10001000, 0x73, &r)) {
			uint64_t fl = m_flags(r.out, 0x10000000, NULL);
			CHECK(fl != UINT64_MAX, "no m record:\n%s", r.out);
			CHECK(!(fl & (KPF_YOUNG | KPF_IDLE)), "page_ext bits guessed: %llx", (unsigned long long)fl);
			const char *warn = strstr(r.out, "\nwarn ");
			CHECK(warn && strstr(warn, "page_ext%20not%20read") && strstr(warn, unknown[i].why) &&
				      !strstr(warn + 1, "\nwarn "),
			      "one warning saying why:\n%s", r.out);
			CHECK(r.res.partial, "not partial");
		}
		free(f);
	}
	check_context = NULL;
}

/* The m record of a frame without a struct page at 0x10200000: PFN 0x9000, nopage, not
 * resident in the sum, no bad entry. */
static void check_nopage_frame(const struct walked *r)
{
	uint64_t pfn = 0, fl = m_flags(r->out, 0x10200000, &pfn);
	CHECK(fl != UINT64_MAX, "no m record for the mixed-map frame:\n%s", r->out);
	CHECK_U64(pfn, 0x9000);
	CHECK(fl & KPF_NOPAGE, "nopage: %llx", (unsigned long long)fl);
	CHECK(!strstr(r->out, "\nu ") && !strstr(r->out, "\nwarn "), "a bad entry:\n%s", r->out);
	CHECK(strstr(r->out, " resident=0 ") != NULL, "not resident in the sum (smaps):\n%s", r->out);
	CHECK(!r->res.partial, "partial");
}

/* vm_normal_page() of 6.1 on a PTE beyond the memory map: with pte_special (ppc32, ARM LPAE,
 * every 64-bit one) only a special PTE maps a frame without a page there, and a normal one
 * is a bad PTE whatever the VMA; without it (ARM short descriptors) VM_MIXEDMAP's frames
 * are normal PTEs that pfn_valid() refuses. */
static void test_mixedmap_beyond_max_pfn(void)
{
	struct walked r;
	const uint64_t VM_MIXEDMAP = 0x10000000;
	struct fake *f = build_arm();
	check_context = "arm, short descriptors, VM_MIXEDMAP";
	if (walk_vma(f, 0x10200000, 0x10201000, 0x73 | VM_MIXEDMAP, &r))
		check_nopage_frame(&r);
	check_context = "arm, short descriptors, not VM_MIXEDMAP";
	if (walk_vma(f, 0x10200000, 0x10201000, 0x73, &r))
		CHECK(strstr(r.out, "\nu 1 10200000 1 bad-entry") != NULL, "bad entry expected:\n%s", r.out);
	free(f);

	f = build(EXT_SIZE_KNOWN);
	check_context = "ppc32 (pte_special), normal PTE, VM_MIXEDMAP";
	if (walk_vma(f, 0x10200000, 0x10201000, 0x73 | VM_MIXEDMAP, &r))
		CHECK(strstr(r.out, "\nu 1 10200000 1 bad-entry") != NULL, "bad entry expected:\n%s", r.out);
	check_context = "ppc32 (pte_special), normal PTE";
	if (walk_vma(f, 0x10200000, 0x10201000, 0x73, &r))
		CHECK(strstr(r.out, "\nu 1 10200000 1 bad-entry") != NULL, "bad entry expected:\n%s", r.out);
	put64(f, PA_PTE_B, E_PTE(0x9000) | E_USER_RW | E_SPECIAL); /* as insert_pfn() writes it */
	check_context = "ppc32 (pte_special), special PTE, VM_MIXEDMAP";
	if (walk_vma(f, 0x10200000, 0x10201000, 0x73 | VM_MIXEDMAP, &r))
		check_nopage_frame(&r);
	free(f);
	check_context = NULL;
}

/* ---- large folios -------------------------------------------------------------------------- */

/* An order-2 anonymous folio at PFN FOLIO_PFN, its four pages mapped by PTE_A[1..4] (VA
 * 0x10001000-0x10005000). Folio members as offsets from the head's struct page: page[1]'s
 * flags (order in the low byte, PG_large_rmappable = bit 9), _large_mapcount at 40 and
 * _entire_mapcount at 48 (both in page[1]). */
#define FOLIO_PFN 0x800u
#define O_LARGE_MAPCOUNT (PAGE_SIZEOF + 8)
#define O_ENTIRE_MAPCOUNT (PAGE_SIZEOF + 16)
#define PG_LARGE_RMAPPABLE 9
#define KPF_COMPOUND_HEAD (1ull << 15)
#define KPF_COMPOUND_TAIL (1ull << 16)
#define KPF_KSM (1ull << 21)
#define KPF_THP (1ull << 22)
#define KPF_MMAP (1ull << 11)

enum folio_case {
	FOLIO_POINTER,    /* 6.12: tails point at the head (+1), per-page _mapcount 0 each */
	FOLIO_MASK,       /* 7.2: compound_info is a mask of the head's address (+1) */
	FOLIO_NO_PAGE_MAPCOUNT, /* no per-page mapcounts: tails' _mapcount -1, 10 PTE mappings */
};

static void put_folio(struct fake *f, enum folio_case fc)
{
	const uint64_t head_pa = PA_MEM_MAP + (uint64_t)FOLIO_PFN * PAGE_SIZEOF;
	for (unsigned i = 0; i < 4; i++) {
		uint64_t pg = head_pa + i * PAGE_SIZEOF;
		put32(f, pg + O_FLAGS, i == 0 ? 1u << 16 /* PG_head */ : 0);
		uint32_t info = i == 0 ? 0 : fc == FOLIO_MASK ? (uint32_t)~(4u * PAGE_SIZEOF - 1) | 1u
							    : KVA(head_pa) + 1u;
		put32(f, pg + O_HEAD, info);
		put32(f, pg + O_MAPPING, i == 0 ? ANON_MAPPING : 0);
		put32(f, pg + O_MAPCOUNT, fc == FOLIO_NO_PAGE_MAPCOUNT ? (uint32_t)-1 : 0);
		put32(f, pg + O_REFCOUNT, i == 0 ? 4 : 0);
		put64(f, PA_PTE_A + (1 + i) * 8, E_PTE(FOLIO_PFN + i) | E_USER_RW);
	}
	put32(f, head_pa + PAGE_SIZEOF + O_FLAGS, 2u /* order */ | 1u << PG_LARGE_RMAPPABLE);
	put32(f, head_pa + O_LARGE_MAPCOUNT, fc == FOLIO_NO_PAGE_MAPCOUNT ? 9 : 3);
	put32(f, head_pa + O_ENTIRE_MAPCOUNT, (uint32_t)-1);
}

/* MAPCOUNT, count and PFLAGS of the m record at VA. */
static bool m_record(const char *out, uint64_t va, unsigned long long *n, unsigned long long *mc,
		     uint64_t *flags)
{
	char want[40];
	snprintf(want, sizeof want, "\nm 1 %llx ", (unsigned long long)va);
	const char *p = strstr(out, want);
	unsigned long long mva, mpfn, fl;
	char rc[24], pte[16];
	unsigned shift;
	if (!p || sscanf(p + 1, "m 1 %llx %llx %llu %llu %23s %15s %llx %u", &mva, &mpfn, n, mc, rc, pte,
			 &fl, &shift) != 8)
		return false;
	*flags = fl;
	return true;
}

static void test_large_folio(void)
{
	static const struct {
		enum folio_case fc;
		const char *release, *what;
		unsigned long long mapcount;
		bool ksm;
	} cases[] = {
		{ FOLIO_POINTER, "6.12.117", "6.12: tails point at the head", 1, true },
		{ FOLIO_MASK, "7.2.13", "7.2: compound_info holds a mask", 1, false },
		/* (10 + 4/2) >> 2 = 3: folio_average_page_mapcount() */
		{ FOLIO_NO_PAGE_MAPCOUNT, "7.2.13", "no per-page mapcounts: the folio's average", 3, false },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct fake *f = build(EXT_SIZE_KNOWN);
		put_folio(f, cases[i].fc);
		check_context = cases[i].what;
		test_release = cases[i].release;
		struct walked r;
		if (walk_vma(f, 0x10001000, 0x10005000, 0x73, &r)) {
			unsigned long long n = 0, mc = 0;
			uint64_t fl = 0;
			bool want_ksm = cases[i].ksm;
			if (CHECK(m_record(r.out, 0x10001000, &n, &mc, &fl), "no head record:\n%s", r.out)) {
				CHECK_U64(n, 1);
				CHECK_U64(mc, cases[i].mapcount);
				CHECK(fl & KPF_COMPOUND_HEAD && fl & KPF_THP && fl & KPF_ANON && fl & KPF_MMAP,
				      "head flags %llx", (unsigned long long)fl);
				CHECK(!(fl & KPF_KSM) == !want_ksm, "KSM %llx", (unsigned long long)fl);
			}
			if (CHECK(m_record(r.out, 0x10002000, &n, &mc, &fl), "no tail record:\n%s", r.out)) {
				CHECK_U64(n, 3);
				CHECK_U64(mc, cases[i].mapcount);
				CHECK(fl & KPF_COMPOUND_TAIL && fl & KPF_THP && fl & KPF_ANON && fl & KPF_MMAP,
				      "tail flags %llx", (unsigned long long)fl);
			}
			CHECK(!strstr(r.out, "\nu ") && !r.res.partial, "a bad entry:\n%s", r.out);
		}
		free(f);
	}
	test_release = "6.1.0";
	check_context = NULL;
}

int main(void)
{
	test_large_folio();
	test_page_ext_stride();
	test_mixedmap_beyond_max_pfn();
	return check_summary("test_page");
}
