/* kcounters.c - the kernel's own memory counters at the moment of the dump: what
 * /proc/vmstat, /proc/meminfo, /proc/buddyinfo and part of /proc/zoneinfo would have
 * printed, written as `counter` records so that every page the walk finds can be laid
 * beside the kernel's own count, and a meminfo captured on the board beside the dump's.
 *
 * Names come from the kernel itself wherever it keeps them: the counters' names are the
 * dump's own vmstat_text[] (mm/vmstat.c), so a counter that moved between enum
 * zone_stat_item and node_stat_item across versions, or one added later, is named right
 * without a table; zone names are zone->name. /proc/meminfo is computed here with
 * fs/proc/meminfo.c's formulas from those counters (meminfo reads the global atomics
 * without the per-CPU deltas, and so does this). What a kernel does not have is not
 * written; what could not be read is a warn record.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kversion.h"
#include "mm_internal.h"

#define KC_MAX_ITEMS 1024  /* vmstat_text entries read (6.12 has ~200 counters) */
#define KC_MAX_NODES 1024  /* MAX_NUMNODES is at most 1 << 10 */
#define KC_MAX_INODES (1u << 16) /* block-device inodes walked for Buffers (a cyclic list ends) */

struct vmstat_item {
	char name[64];
	int64_t value;
};

struct kc {
	struct ps_walker *w;
	struct vmstat_item *items;
	size_t nitems;
	bool have_vmstat;
	uint64_t hpage_pmd_nr;  /* base pages per PMD-mapped huge page */
	/* Sums over zones. */
	uint64_t wmark_low, high_managed, high_free;
	bool have_wmark, have_high;
};

static void kc_write(struct kc *k, const char *set, uint64_t node, const char *zone,
		     const char *name, uint64_t value)
{
	struct ps_counter c = { .set = set, .name = name, .zone = zone, .node = node, .value = value };
	if (!k->w->write_failed && ps_write_counter(k->w->out, &c) < 0)
		k->w->write_failed = true;
}

/* A signed ptr-sized value (atomic_long_t) at VA; false if unreadable. */
static bool read_long(struct ps_walker *w, uint64_t va, int64_t *out)
{
	uint64_t v;
	if (ps_kread_ptr(&w->c, va, &v) != PS_READ_OK)
		return false;
	*out = w->c.ptr_size == 4 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
	return true;
}

static bool read_int(struct ps_walker *w, uint64_t va, int64_t *out)
{
	uint32_t v;
	if (ps_kread_u32(&w->c, va, &v) != PS_READ_OK)
		return false;
	*out = (int32_t)v;
	return true;
}

static bool sym_long(struct ps_walker *w, enum ps_ki_symbol s, int64_t *out)
{
	uint64_t a = ps_core_sym(&w->c, s);
	return a && read_long(w, a, out);
}

static bool sym_int(struct ps_walker *w, enum ps_ki_symbol s, int64_t *out)
{
	uint64_t a = ps_core_sym(&w->c, s);
	return a && read_int(w, a, out);
}

static bool vmstat_name_ok(const char *s)
{
	if (!s[0])
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_' ||
		      (*s >= 'A' && *s <= 'Z')))
			return false;
	return true;
}

/* /proc/vmstat prints these in huge pages; since 5.13 the kernel counts them in base pages
 * (69473e5de873 and the rest of "Convert all THP vmstat counters to pages"), before it
 * counted huge pages. */
static bool thp_counter(const char *name)
{
	static const char *const names[] = { "nr_anon_transparent_hugepages", "nr_shmem_hugepages",
					     "nr_shmem_pmdmapped", "nr_file_hugepages",
					     "nr_file_pmdmapped" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

/* Read ARRAY (atomic_long_t[n]) into items [first, first + n). */
static bool read_counter_array(struct kc *k, enum ps_ki_symbol array, size_t first, size_t n)
{
	struct ps_walker *w = k->w;
	uint64_t a = ps_core_sym(&w->c, array);
	if (!a)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!read_long(w, a + i * w->c.ptr_size, &k->items[first + i].value))
			return false;
	return true;
}

/* The counters of /proc/vmstat's first three parts: zone, NUMA and node items, named by
 * vmstat_text[] in that order (the NUMA part only with CONFIG_NUMA). The event counters
 * after them are per-CPU sums and are not read. */
static void read_vmstat(struct kc *k)
{
	struct ps_walker *w = k->w;
	int64_t nzone = mm_enum(w, PS_KI_NR_VM_ZONE_STAT_ITEMS), nnode = mm_enum(w, PS_KI_NR_VM_NODE_STAT_ITEMS);
	int64_t nnuma = 0;
	enum ps_ki_symbol numa_array = PS_KI_VM_NUMA_EVENT;
	if (mm_enum(w, PS_KI_NR_VM_NUMA_EVENT_ITEMS) != PS_KI_ABSENT && ps_core_sym(&w->c, PS_KI_VM_NUMA_EVENT))
		nnuma = mm_enum(w, PS_KI_NR_VM_NUMA_EVENT_ITEMS);
	else if (mm_enum(w, PS_KI_NR_VM_NUMA_STAT_ITEMS) != PS_KI_ABSENT && ps_core_sym(&w->c, PS_KI_VM_NUMA_STAT))
		nnuma = mm_enum(w, PS_KI_NR_VM_NUMA_STAT_ITEMS), numa_array = PS_KI_VM_NUMA_STAT;
	uint64_t text = ps_core_sym(&w->c, PS_KI_VMSTAT_TEXT);
	if (nzone == PS_KI_ABSENT || nnode == PS_KI_ABSENT || !text || !ps_core_sym(&w->c, PS_KI_VM_ZONE_STAT) ||
	    !ps_core_sym(&w->c, PS_KI_VM_NODE_STAT))
		return; /* not this kernel's, or no symbols: no counters, nothing misread */
	if (nzone <= 0 || nnode <= 0 || nnuma < 0 || nzone + nnuma + nnode > KC_MAX_ITEMS) {
		mm_warn(w, PS_UNKNOWN, PS_UNKNOWN, "kernel counters: implausible item counts (zone %" PRId64
			", numa %" PRId64 ", node %" PRId64 ")", nzone, nnuma, nnode);
		return;
	}
	size_t n = (size_t)(nzone + nnuma + nnode);
	k->items = calloc(n, sizeof *k->items);
	if (!k->items)
		return;
	for (size_t i = 0; i < n; i++) {
		uint64_t p;
		if (ps_kread_ptr(&w->c, text + i * w->c.ptr_size, &p) != PS_READ_OK ||
		    ps_kread_string(&w->c, p, k->items[i].name, sizeof k->items[i].name) != PS_READ_OK ||
		    !vmstat_name_ok(k->items[i].name)) {
			mm_warn(w, PS_UNKNOWN, text + i * w->c.ptr_size,
				"kernel counters: vmstat_text[%zu] unreadable or not a counter name", i);
			return;
		}
	}
	/* NR_FREE_PAGES is 0 in every kernel (and VMCOREINFO says so): the names belong to
	 * these arrays only if the first one is its. */
	if (strcmp(k->items[0].name, "nr_free_pages") != 0) {
		mm_warn(w, PS_UNKNOWN, text, "kernel counters: vmstat_text[0] is '%s', not nr_free_pages",
			k->items[0].name);
		return;
	}
	if (!read_counter_array(k, PS_KI_VM_ZONE_STAT, 0, (size_t)nzone) ||
	    (nnuma && !read_counter_array(k, numa_array, (size_t)nzone, (size_t)nnuma)) ||
	    !read_counter_array(k, PS_KI_VM_NODE_STAT, (size_t)(nzone + nnuma), (size_t)nnode)) {
		mm_warn(w, PS_UNKNOWN, PS_UNKNOWN, "kernel counters: vm_zone_stat/vm_node_stat unreadable");
		return;
	}
	uint32_t kver = ps_kver_parse(w->c.release);
	bool thp_in_pages = kver >= PS_KVER(5, 13, 0);
	for (size_t i = 0; i < n; i++) {
		struct vmstat_item *it = &k->items[i];
		/* Zone and node states are clamped at 0 as the kernel reads them (per-CPU deltas
		 * not yet folded can leave a global sum below zero). */
		if (i < (size_t)nzone || i >= (size_t)(nzone + nnuma)) {
			if (it->value < 0)
				it->value = 0;
			if (thp_in_pages && thp_counter(it->name) && k->hpage_pmd_nr)
				it->value /= (int64_t)k->hpage_pmd_nr;
		}
	}
	k->nitems = n;
	k->have_vmstat = true;
	for (size_t i = 0; i < n; i++)
		kc_write(k, "vmstat", PS_UNKNOWN, NULL, k->items[i].name, (uint64_t)k->items[i].value);
}

/* A vmstat counter by its /proc/vmstat name; false if this kernel has none. */
static bool vm(const struct kc *k, const char *name, int64_t *out)
{
	for (size_t i = 0; i < k->nitems; i++)
		if (strcmp(k->items[i].name, name) == 0) {
			*out = k->items[i].value;
			return true;
		}
	return false;
}

/* ---- zones: buddyinfo, watermarks, highmem ------------------------------------------- */

static void read_zone(struct kc *k, uint64_t node, uint64_t zva)
{
	struct ps_walker *w = k->w;
	char name[32] = "";
	uint64_t name_ptr, present = 0, managed = 0;
	if (!mm_kread_member(w, zva, PS_KI_ZONE_PRESENT_PAGES, &present) ||
	    !mm_kread_member(w, zva, PS_KI_ZONE_NAME, &name_ptr) ||
	    ps_kread_string(&w->c, name_ptr, name, sizeof name) != PS_READ_OK || !vmstat_name_ok(name)) {
		mm_warn(w, PS_UNKNOWN, zva, "kernel counters: zone unreadable");
		return;
	}
	/* A HIGHMEM kernel prints HighTotal/HighFree even with nothing in the zone. */
	if (strcmp(name, "HighMem") == 0)
		k->have_high = true;
	if (!present)
		return; /* not populated: /proc/buddyinfo leaves it out */
	kc_write(k, "zone", node, name, "present", present);
	if (mm_kread_member(w, zva, PS_KI_ZONE_MANAGED_PAGES, &managed))
		kc_write(k, "zone", node, name, "managed", managed);
	int64_t free_pages = -1;
	if (mm_has(w, PS_KI_ZONE_VM_STAT) && read_long(w, zva + (uint64_t)mm_off(w, PS_KI_ZONE_VM_STAT), &free_pages)) {
		if (free_pages < 0)
			free_pages = 0;
		kc_write(k, "zone", node, name, "nr_free_pages", (uint64_t)free_pages);
	}
	/* Low watermark (+ boost, 5.0+), for MemAvailable. */
	enum ps_ki_member wm = mm_has(w, PS_KI_ZONE_WATERMARK) ? PS_KI_ZONE_WATERMARK : PS_KI_ZONE_WATERMARK_OLD;
	int64_t wlow = mm_enum(w, PS_KI_WMARK_LOW);
	if (wlow == PS_KI_ABSENT)
		wlow = 1; /* enum zone_watermarks { WMARK_MIN, WMARK_LOW, ... } since 2.6.x */
	const struct ps_kinfo_member *wmm = &w->c.ki.member[wm];
	uint64_t low, boost = 0;
	if (wmm->offset != PS_KI_ABSENT && wmm->nelems > (uint32_t)wlow && wlow >= 0 &&
	    ps_kread_ptr(&w->c, zva + (uint64_t)wmm->offset + (uint64_t)wlow * w->c.ptr_size, &low) == PS_READ_OK) {
		if (mm_has(w, PS_KI_ZONE_WATERMARK_BOOST))
			mm_kread_member(w, zva, PS_KI_ZONE_WATERMARK_BOOST, &boost);
		kc_write(k, "zone", node, name, "low", low + boost);
		k->wmark_low += low + boost;
		k->have_wmark = true;
	}
	if (strcmp(name, "HighMem") == 0) {
		k->high_managed += managed;
		k->high_free += free_pages > 0 ? (uint64_t)free_pages : 0;
	}
	/* /proc/buddyinfo: free blocks per order. */
	const struct ps_kinfo_member *fa = &w->c.ki.member[PS_KI_ZONE_FREE_AREA];
	int64_t fa_size = mm_size(w, PS_KI_FREE_AREA);
	if (fa->offset == PS_KI_ABSENT || !fa->nelems || fa->nelems > 64 || fa_size <= 0 ||
	    !mm_has(w, PS_KI_FREE_AREA_NR_FREE))
		return;
	for (uint32_t o = 0; o < fa->nelems; o++) {
		uint64_t nr;
		char oname[16];
		if (!mm_kread_member(w, zva + (uint64_t)fa->offset + o * (uint64_t)fa_size, PS_KI_FREE_AREA_NR_FREE, &nr)) {
			mm_warn(w, PS_UNKNOWN, zva, "kernel counters: free_area of zone %s unreadable", name);
			return;
		}
		snprintf(oname, sizeof oname, "order%u", o);
		kc_write(k, "buddyinfo", node, name, oname, nr);
	}
}

static void read_node(struct kc *k, uint64_t node, uint64_t pgdat)
{
	struct ps_walker *w = k->w;
	const struct ps_kinfo_member *zones = &w->c.ki.member[PS_KI_PGDAT_NODE_ZONES];
	int64_t zsize = mm_size(w, PS_KI_ZONE);
	if (zones->offset == PS_KI_ABSENT || !zones->nelems || zones->nelems > 16 || zsize <= 0)
		return;
	for (uint32_t z = 0; z < zones->nelems; z++)
		read_zone(k, node, pgdat + (uint64_t)zones->offset + z * (uint64_t)zsize);
}

static void read_zones(struct kc *k)
{
	struct ps_walker *w = k->w;
	uint64_t contig = ps_core_sym(&w->c, PS_KI_CONTIG_PAGE_DATA);
	uint64_t node_data = ps_core_sym(&w->c, PS_KI_NODE_DATA);
	if (node_data) {
		uint64_t n = KC_MAX_NODES, len;
		if (ps_core_vmcoreinfo_u64(&w->c, "LENGTH(node_data)", &len) && len && len < n)
			n = len;
		int64_t online = 0;
		bool have_online = sym_int(w, PS_KI_NR_ONLINE_NODES, &online) && online > 0;
		int64_t found = 0;
		for (uint64_t i = 0; i < n && (!have_online || found < online); i++) {
			uint64_t pgdat;
			if (ps_kread_ptr(&w->c, node_data + i * w->c.ptr_size, &pgdat) != PS_READ_OK)
				break;
			if (!pgdat)
				continue;
			found++;
			read_node(k, i, pgdat);
		}
	} else if (contig) {
		read_node(k, 0, contig);
	}
}

/* ---- meminfo's other sources ---------------------------------------------------------- */

/* nr_blockdev_pages(): the page cache of block devices (Buffers). */
static bool blockdev_pages(struct kc *k, uint64_t *out)
{
	struct ps_walker *w = k->w;
	uint64_t sbp = ps_core_sym(&w->c, PS_KI_BLOCKDEV_SUPERBLOCK), sb;
	if (!sbp || !mm_has(w, PS_KI_SB_INODES) || !mm_has(w, PS_KI_INODE_SB_LIST) ||
	    !mm_has(w, PS_KI_INODE_MAPPING) || !mm_has(w, PS_KI_ADDRESS_SPACE_NRPAGES))
		return false;
	if (ps_kread_ptr(&w->c, sbp, &sb) != PS_READ_OK || !mm_kptr_ok(w, sb, w->c.ptr_size))
		return false;
	uint64_t head = sb + (uint64_t)mm_off(w, PS_KI_SB_INODES), pos, sum = 0;
	if (ps_kread_ptr(&w->c, head, &pos) != PS_READ_OK)
		return false;
	for (uint32_t n = 0; pos != head; n++) {
		uint64_t inode = pos - (uint64_t)mm_off(w, PS_KI_INODE_SB_LIST), mapping, nr;
		if (n >= KC_MAX_INODES || !mm_kptr_ok(w, pos, w->c.ptr_size) ||
		    !mm_kread_member(w, inode, PS_KI_INODE_MAPPING, &mapping) ||
		    !mm_kptr_ok(w, mapping, w->c.ptr_size) ||
		    !mm_kread_member(w, mapping, PS_KI_ADDRESS_SPACE_NRPAGES, &nr) ||
		    ps_kread_ptr(&w->c, pos, &pos) != PS_READ_OK) {
			mm_warn(w, PS_UNKNOWN, pos, "kernel counters: block-device inode list unreadable after %u inodes", n);
			return false;
		}
		sum += nr;
	}
	*out = sum;
	return true;
}

/* total_swapcache_pages() of kernels without the nr_swapcached counter (before 5.12,
 * b6038942480e): the swap cache's address spaces, nr_swapper_spaces[i] per swap type. */
static bool swapcache_pages(struct kc *k, int64_t *out)
{
	struct ps_walker *w = k->w;
	uint64_t spaces = ps_core_sym(&w->c, PS_KI_SWAPPER_SPACES), counts = ps_core_sym(&w->c, PS_KI_NR_SWAPPER_SPACES);
	int64_t nswap, as_size = mm_size(w, PS_KI_ADDRESS_SPACE);
	if (!spaces || !counts || as_size <= 0 || !mm_has(w, PS_KI_ADDRESS_SPACE_NRPAGES) ||
	    !sym_int(w, PS_KI_NR_SWAPFILES, &nswap) || nswap < 0 || nswap > 64)
		return false;
	uint64_t sum = 0;
	for (int64_t i = 0; i < nswap; i++) {
		uint64_t base, nr;
		uint32_t n;
		if (ps_kread_ptr(&w->c, spaces + (uint64_t)i * w->c.ptr_size, &base) != PS_READ_OK ||
		    ps_kread_u32(&w->c, counts + (uint64_t)i * 4, &n) != PS_READ_OK || n > (1u << 20))
			return false;
		for (uint32_t j = 0; base && j < n; j++) {
			if (!mm_kread_member(w, base + j * (uint64_t)as_size, PS_KI_ADDRESS_SPACE_NRPAGES, &nr))
				return false;
			sum += nr;
		}
	}
	*out = (int64_t)sum;
	return true;
}

struct hugetlb {
	bool have;
	uint64_t total, free, resv, surp, size_kb, all_kb, all_pages;
};

static void read_hugetlb(struct kc *k, struct hugetlb *h)
{
	struct ps_walker *w = k->w;
	uint64_t hs = ps_core_sym(&w->c, PS_KI_HSTATES);
	int64_t size = mm_size(w, PS_KI_HSTATE), nh = 0, def = 0;
	memset(h, 0, sizeof *h);
	if (!hs || size <= 0 || !sym_int(w, PS_KI_HUGETLB_MAX_HSTATE, &nh) || !sym_int(w, PS_KI_DEFAULT_HSTATE_IDX, &def))
		return;
	if (nh < 0 || nh > 16 || def < 0 || def > 16)
		return;
	h->have = true;
	for (int64_t i = 0; i < nh; i++) {
		uint64_t va = hs + (uint64_t)i * (uint64_t)size, order, nr, fr, rs, sp;
		if (!mm_kread_member(w, va, PS_KI_HSTATE_ORDER, &order) || order > 30 ||
		    !mm_kread_member(w, va, PS_KI_HSTATE_NR_HUGE_PAGES, &nr) ||
		    !mm_kread_member(w, va, PS_KI_HSTATE_FREE_HUGE_PAGES, &fr) ||
		    !mm_kread_member(w, va, PS_KI_HSTATE_RESV_HUGE_PAGES, &rs) ||
		    !mm_kread_member(w, va, PS_KI_HSTATE_SURPLUS_HUGE_PAGES, &sp)) {
			mm_warn(w, PS_UNKNOWN, va, "kernel counters: hstates[%" PRId64 "] unreadable", i);
			h->have = false;
			return;
		}
		uint64_t kb = ((uint64_t)w->c.page_size << order) / 1024;
		h->all_kb += nr * kb;
		h->all_pages += nr << order;
		if (i == def) {
			h->total = nr, h->free = fr, h->resv = rs, h->surp = sp, h->size_kb = kb;
		}
	}
	/* No huge page size registered: meminfo still prints the default's size. */
	if (nh == 0)
		h->have = false;
}

/* The kernel's arithmetic on its counters: long wraps (it is built with
 * -fno-strict-overflow), so a corrupt counter gives what its meminfo would have printed
 * rather than undefined behaviour here (fuzz_dump_walk: totalram_pages near 2^62 times
 * sysctl_overcommit_ratio). */
static int64_t wadd(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static int64_t wsub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static int64_t wmul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

/* fs/proc/meminfo.c's meminfo_proc_show(), field by field, in its order. */
static void write_meminfo(struct kc *k)
{
	struct ps_walker *w = k->w;
	const uint64_t kb = w->c.page_size / 1024;
	int64_t v, v2;
	int64_t totalram = -1;
	if (!sym_long(w, PS_KI_TOTALRAM_PAGES, &totalram) && !sym_long(w, PS_KI_TOTALRAM_PAGES_OLD, &totalram))
		totalram = -1;
#define PUT_KB(name, pages) kc_write(k, "meminfo", PS_UNKNOWN, NULL, name, (uint64_t)(pages) * kb)
#define PUT(name, n) kc_write(k, "meminfo", PS_UNKNOWN, NULL, name, (uint64_t)(n))
	if (totalram >= 0)
		PUT_KB("MemTotal", totalram);
	int64_t freep = -1;
	if (vm(k, "nr_free_pages", &freep))
		PUT_KB("MemFree", freep);
	/* si_mem_available() */
	int64_t reserve, afile = 0, ifile = 0, srecl = 0, misc = 0;
	if (freep >= 0 && k->have_wmark && sym_long(w, PS_KI_TOTALRESERVE_PAGES, &reserve) &&
	    vm(k, "nr_active_file", &afile) && vm(k, "nr_inactive_file", &ifile) &&
	    vm(k, "nr_slab_reclaimable", &srecl)) {
		vm(k, "nr_kernel_misc_reclaimable", &misc);
		int64_t low = (int64_t)k->wmark_low;
		int64_t avail = wsub(freep, reserve);
		int64_t pagecache = wadd(afile, ifile);
		pagecache = wsub(pagecache, pagecache / 2 < low ? pagecache / 2 : low);
		avail = wadd(avail, pagecache);
		int64_t recl = wadd(srecl, misc);
		avail = wadd(avail, wsub(recl, recl / 2 < low ? recl / 2 : low));
		PUT_KB("MemAvailable", avail < 0 ? 0 : avail);
	}
	uint64_t buffers = 0;
	bool have_buffers = blockdev_pages(k, &buffers);
	if (have_buffers)
		PUT_KB("Buffers", buffers);
	int64_t file = 0, swapcached = 0;
	bool have_swapcached = vm(k, "nr_swapcached", &swapcached) || swapcache_pages(k, &swapcached);
	if (have_buffers && have_swapcached && vm(k, "nr_file_pages", &file)) {
		int64_t cached = wsub(wsub(file, swapcached), (int64_t)buffers);
		PUT_KB("Cached", cached < 0 ? 0 : cached);
	}
	if (have_swapcached)
		PUT_KB("SwapCached", swapcached);
	int64_t aa = 0, ia = 0;
	if (vm(k, "nr_active_anon", &aa) && vm(k, "nr_active_file", &afile))
		PUT_KB("Active", wadd(aa, afile));
	if (vm(k, "nr_inactive_anon", &ia) && vm(k, "nr_inactive_file", &ifile))
		PUT_KB("Inactive", wadd(ia, ifile));
	if (vm(k, "nr_active_anon", &v))
		PUT_KB("Active(anon)", v);
	if (vm(k, "nr_inactive_anon", &v))
		PUT_KB("Inactive(anon)", v);
	if (vm(k, "nr_active_file", &v))
		PUT_KB("Active(file)", v);
	if (vm(k, "nr_inactive_file", &v))
		PUT_KB("Inactive(file)", v);
	if (vm(k, "nr_unevictable", &v))
		PUT_KB("Unevictable", v);
	if (vm(k, "nr_mlock", &v))
		PUT_KB("Mlocked", v);
	if (k->have_high && totalram >= 0) {
		PUT_KB("HighTotal", k->high_managed);
		PUT_KB("HighFree", k->high_free);
		PUT_KB("LowTotal", (uint64_t)totalram - k->high_managed);
		if (freep >= 0)
			PUT_KB("LowFree", (uint64_t)freep - k->high_free);
	}
	int64_t swap_total = -1, swap_free = -1;
	if (sym_long(w, PS_KI_TOTAL_SWAP_PAGES, &swap_total) && swap_total >= 0)
		PUT_KB("SwapTotal", swap_total);
	if (sym_long(w, PS_KI_NR_SWAP_PAGES, &swap_free) && swap_free >= 0)
		PUT_KB("SwapFree", swap_free);
	if (vm(k, "nr_dirty", &v))
		PUT_KB("Dirty", v);
	if (vm(k, "nr_writeback", &v))
		PUT_KB("Writeback", v);
	if (vm(k, "nr_anon_pages", &v))
		PUT_KB("AnonPages", v);
	if (vm(k, "nr_mapped", &v))
		PUT_KB("Mapped", v);
	if (vm(k, "nr_shmem", &v))
		PUT_KB("Shmem", v);
	int64_t sunrecl;
	if (vm(k, "nr_slab_reclaimable", &srecl)) {
		misc = 0;
		vm(k, "nr_kernel_misc_reclaimable", &misc);
		PUT_KB("KReclaimable", wadd(srecl, misc));
		if (vm(k, "nr_slab_unreclaimable", &sunrecl)) {
			PUT_KB("Slab", wadd(srecl, sunrecl));
			PUT_KB("SReclaimable", srecl);
			PUT_KB("SUnreclaim", sunrecl);
		}
	}
	if (vm(k, "nr_kernel_stack", &v))
		PUT("KernelStack", v); /* kB already */
	if (vm(k, "nr_shadow_call_stack", &v))
		PUT("ShadowCallStack", v);
	if (vm(k, "nr_page_table_pages", &v))
		PUT_KB("PageTables", v);
	if (vm(k, "nr_sec_page_table_pages", &v))
		PUT_KB("SecPageTables", v);
	if (k->have_vmstat)
		PUT("NFS_Unstable", 0); /* always 0 since 5.8 (8d92890bd6b8) */
	/* Both counters were removed in 2025 and meminfo prints 0 for them since: a kernel
	 * whose vmstat_text lacks them prints 0. */
	if (vm(k, "nr_bounce", &v) || (k->have_vmstat && (v = 0, true)))
		PUT_KB("Bounce", v);
	if (vm(k, "nr_writeback_temp", &v) || (k->have_vmstat && (v = 0, true)))
		PUT_KB("WritebackTmp", v);
	/* vm_commit_limit() */
	struct hugetlb h;
	read_hugetlb(k, &h);
	int64_t kbytes = 0, ratio = 0;
	if (totalram >= 0 && swap_total >= 0 && sym_int(w, PS_KI_SYSCTL_OVERCOMMIT_RATIO, &ratio) &&
	    (!ps_core_sym(&w->c, PS_KI_SYSCTL_OVERCOMMIT_KBYTES) || sym_long(w, PS_KI_SYSCTL_OVERCOMMIT_KBYTES, &kbytes))) {
		/* vm_commit_limit(): unsigned long throughout. */
		uint64_t allowed = kbytes ? (uint64_t)kbytes / kb
				  : ((uint64_t)totalram - h.all_pages) * (uint64_t)ratio / 100;
		PUT_KB("CommitLimit", allowed + (uint64_t)swap_total);
	}
	/* percpu_counter_read_positive(&vm_committed_as) */
	uint64_t cas = ps_core_sym(&w->c, PS_KI_VM_COMMITTED_AS);
	if (cas && mm_has(w, PS_KI_PERCPU_COUNTER_COUNT)) {
		uint64_t raw;
		if (mm_kread_member(w, cas, PS_KI_PERCPU_COUNTER_COUNT, &raw)) {
			int64_t c = w->c.ki.member[PS_KI_PERCPU_COUNTER_COUNT].size == 4 ? (int32_t)raw : (int64_t)raw;
			PUT_KB("Committed_AS", c < 0 ? 0 : c);
		}
	}
	/* A node counter since 2025, a static atomic from 5.12 (97105f0ab7b8) to then. */
	if (vm(k, "nr_vmalloc", &v) || sym_long(w, PS_KI_NR_VMALLOC_PAGES, &v))
		PUT_KB("VmallocUsed", v);
	if (k->have_vmstat)
		PUT("VmallocChunk", 0); /* always 0 since 4.4 (a5ad88ce8c7f) */
	if (sym_int(w, PS_KI_PCPU_NR_POPULATED, &v) && sym_int(w, PS_KI_PCPU_NR_UNITS, &v2) && v >= 0 && v2 > 0)
		PUT_KB("Percpu", v * v2);
	if (sym_long(w, PS_KI_NUM_POISONED_PAGES, &v))
		PUT_KB("HardwareCorrupted", v < 0 ? 0 : v);
	if (k->hpage_pmd_nr) {
		if (vm(k, "nr_anon_transparent_hugepages", &v))
			PUT_KB("AnonHugePages", wmul(v, (int64_t)k->hpage_pmd_nr));
		if (vm(k, "nr_shmem_hugepages", &v))
			PUT_KB("ShmemHugePages", wmul(v, (int64_t)k->hpage_pmd_nr));
		if (vm(k, "nr_shmem_pmdmapped", &v))
			PUT_KB("ShmemPmdMapped", wmul(v, (int64_t)k->hpage_pmd_nr));
		if (vm(k, "nr_file_hugepages", &v))
			PUT_KB("FileHugePages", wmul(v, (int64_t)k->hpage_pmd_nr));
		if (vm(k, "nr_file_pmdmapped", &v))
			PUT_KB("FilePmdMapped", wmul(v, (int64_t)k->hpage_pmd_nr));
	}
	if (ps_core_sym(&w->c, PS_KI_CMA_AREAS) && sym_long(w, PS_KI_TOTALCMA_PAGES, &v)) {
		PUT_KB("CmaTotal", v);
		if (vm(k, "nr_free_cma", &v2))
			PUT_KB("CmaFree", v2);
	}
	if (vm(k, "nr_unaccepted", &v))
		PUT_KB("Unaccepted", v);
	if (vm(k, "nr_balloon_pages", &v))
		PUT_KB("Balloon", v);
	if (vm(k, "nr_gpu_active", &v))
		PUT_KB("GPUActive", v);
	if (vm(k, "nr_gpu_reclaim", &v))
		PUT_KB("GPUReclaim", v);
	if (h.have) {
		PUT("HugePages_Total", h.total);
		PUT("HugePages_Free", h.free);
		PUT("HugePages_Rsvd", h.resv);
		PUT("HugePages_Surp", h.surp);
		PUT("Hugepagesize", h.size_kb);
		PUT("Hugetlb", h.all_kb);
	}
#undef PUT
#undef PUT_KB
}

void mm_write_kcounters(struct ps_walker *w)
{
	struct kc k = { .w = w };
	/* Base pages per PMD leaf: the level above the last of the user page tables. */
	const struct ps_pt_geometry *g = &w->c.geom;
	if (g->nlevels >= 2 && w->c.page_shift && g->levels[g->nlevels - 2].shift > w->c.page_shift &&
	    g->levels[g->nlevels - 2].shift - w->c.page_shift < 20)
		k.hpage_pmd_nr = UINT64_C(1) << (g->levels[g->nlevels - 2].shift - w->c.page_shift);
	read_vmstat(&k);
	read_zones(&k);
	write_meminfo(&k);
	free(k.items);
}
