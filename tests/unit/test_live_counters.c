/* test_live_counters.c - live/counters.c's parsers of /proc/meminfo, vmstat, buddyinfo and
 * zoneinfo, on text as Linux 6.1 prints it, and on lines they must skip. */
#include "check.h"
#include "counters.h"
#include "frames.h"

#include <stdlib.h>

struct got {
	char set[16], zone[16], name[64];
	uint64_t node, value;
};
static struct got got[64];
static int ngot;

static void collect(void *arg, const char *set, uint64_t node, const char *zone, const char *name,
		    uint64_t value)
{
	(void)arg;
	if (ngot >= 64)
		return;
	struct got *g = &got[ngot++];
	snprintf(g->set, sizeof g->set, "%s", set);
	snprintf(g->zone, sizeof g->zone, "%s", zone ? zone : "");
	snprintf(g->name, sizeof g->name, "%s", name);
	g->node = node, g->value = value;
}

static int nslab;
static struct { char name[64]; uint64_t active_objs, num_objs, objsize, objperslab, pagesperslab, num_slabs; } slab0;
static void slab_cb(void *arg, const struct ps_slab *s)
{
	(void)arg;
	if (nslab++ == 0) {
		snprintf(slab0.name, sizeof slab0.name, "%s", s->name);
		slab0.active_objs = s->active_objs, slab0.num_objs = s->num_objs, slab0.objsize = s->objsize;
		slab0.objperslab = s->objperslab, slab0.pagesperslab = s->pagesperslab, slab0.num_slabs = s->num_slabs;
	}
}

int main(void)
{
	ngot = 0;
	CHECK(live_parse_meminfo("MemTotal:         172012 kB\nActive(anon):       4248 kB\n"
				 "HugePages_Total:       0\nbroken line\nBad Name: 3 kB\nEmpty:\n",
				 collect, NULL) == 3, "meminfo: %d counters", ngot);
	CHECK_STR(got[0].set, "meminfo");
	CHECK_STR(got[0].name, "MemTotal");
	CHECK_U64(got[0].value, 172012);
	CHECK_U64(got[0].node, PS_UNKNOWN);
	CHECK_STR(got[1].name, "Active(anon)");
	CHECK_U64(got[1].value, 4248);
	CHECK_STR(got[2].name, "HugePages_Total");
	CHECK_U64(got[2].value, 0);

	ngot = 0;
	CHECK(live_parse_vmstat("nr_free_pages 30569\nnr_zone_inactive_anon 3041\nnr_neg -5\n"
				"x\nnuma_hit 19858", collect, NULL) == 4, "vmstat: %d", ngot);
	CHECK_STR(got[0].name, "nr_free_pages");
	CHECK_U64(got[0].value, 30569);
	CHECK_U64(got[2].value, 0); /* negative: clamped */
	CHECK_STR(got[3].name, "numa_hit");
	CHECK_U64(got[3].value, 19858);

	ngot = 0;
	CHECK(live_parse_buddyinfo("Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      1      3 \n"
				   "Node 1, zone   Normal   4687   2414\ngarbage\n", collect, NULL) == 13,
	      "buddyinfo: %d", ngot);
	CHECK_STR(got[0].set, "buddyinfo");
	CHECK_STR(got[0].zone, "DMA");
	CHECK_STR(got[10].name, "order10");
	CHECK_U64(got[10].value, 3);
	CHECK_U64(got[11].node, 1);
	CHECK_STR(got[11].zone, "Normal");
	CHECK_U64(got[12].value, 2414);

	ngot = 0;
	const char *zi = "Node 0, zone      DMA\n"
			 "  per-node stats\n"
			 "      nr_inactive_anon 3041\n"
			 "  pages free     3808\n"
			 "        boost    0\n"
			 "        min      177\n"
			 "        low      236\n"
			 "        high     295\n"
			 "        spanned  4095\n"
			 "        present  3998\n"
			 "        managed  3840\n"
			 "      nr_free_pages 3808\n"
			 "  pagesets\n"
			 "Node 0, zone    DMA32\n"
			 "  pages free     26742\n"
			 "        low      2415\n"
			 "        present  77783\n"
			 "        managed  39163\n";
	CHECK(live_parse_zoneinfo(zi, collect, NULL) == 8, "zoneinfo: %d", ngot);
	CHECK_STR(got[0].name, "nr_free_pages");
	CHECK_U64(got[0].value, 3808);
	CHECK_STR(got[1].name, "low");
	CHECK_U64(got[1].value, 236);
	CHECK_STR(got[2].name, "present");
	CHECK_STR(got[3].name, "managed");
	CHECK_U64(got[3].value, 3840);
	CHECK_STR(got[4].zone, "DMA32");
	CHECK_U64(got[7].value, 39163);
	/* /proc/slabinfo 2.1 */
	nslab = 0;
	CHECK(live_parse_slabinfo("slabinfo - version: 2.1\n"
				  "# name            <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : slabdata <active_slabs> <num_slabs> <sharedavail>\n"
				  "inode_cache        10428  10428    640   12    2 : tunables    0    0    0 : slabdata    869    869      0\n"
				  "kmalloc-8         4096   4096      8  512    1 : tunables    0    0    0 : slabdata      8      8      0\n"
				  "broken 1 2\n", slab_cb, NULL) == 2, "slabinfo: %d", nslab);
	CHECK_STR(slab0.name, "inode_cache");
	CHECK(slab0.active_objs == 10428 && slab0.num_objs == 10428 && slab0.objsize == 640 &&
	      slab0.objperslab == 12 && slab0.pagesperslab == 2 && slab0.num_slabs == 869, "inode_cache fields");
	CHECK(live_parse_slabinfo("slabinfo - version: 1.1\nx 1 2 3 4 5 : tunables 0 0 0 : slabdata 1 1 0\n",
				  slab_cb, NULL) == 0, "another version is not guessed at");

	/* live/frames.c: kpageflags + kpagecount -> the frame classes */
	CHECK_U64(live_frame_class(1u << 10, 0), PS_FC_FREE);
	CHECK_U64(live_frame_class(1u << 7 | 1u << 15, 1), PS_FC_SLAB);
	/* /proc/vmallocinfo as 6.1 prints it: pages summed per caller function; ioremap and
	 * vm_map_ram areas (no pages=) and lines without a caller are skipped or "(unknown)". */
	ngot = 0;
	CHECK(live_parse_vmallocinfo(
		      "0x0000000097c2c8d4-0x00000000f1cd0a6d   20480 kernel_clone+0xb8/0x400 pages=4 vmalloc N0=4\n"
		      "0x00000000e0ac8d22-0x000000009a0fa7fc    8192 acpi_os_map_iomem+0x1bc/0x1e0 phys=0x00000000000a0000 ioremap\n"
		      "0x0000000050d44bf8-0x000000005b50bf2b   20480 kernel_clone+0xb8/0x400 pages=4 vmalloc N0=4\n"
		      "0x00000000e3a42b4a-0x0000000026c7d5e0 2101248 alloc_large_system_hash+0x177/0x280 pages=512 vmalloc vpages N0=512\n"
		      "0x00000000e3a42b4a-0x0000000026c7d5e0   8192 bpf_jit.constprop.0+0x1/0x2 pages=1 vmalloc N0=1\n"
		      "0x000000004c9f3db8-0x00000000fb4a5b74    8192 unpurged vm_area\n"
		      "0x000000004c9f3db8-0x00000000fb4a5b74    8192 pages=1 vmalloc\n"
		      "garbage\n", collect, NULL) == 4, "vmallocinfo: %d callers", ngot);
	CHECK_STR(got[0].set, "vmallocinfo");
	CHECK_STR(got[0].name, "kernel_clone");
	CHECK_U64(got[0].value, 8);
	CHECK_STR(got[1].name, "alloc_large_system_hash");
	CHECK_U64(got[1].value, 512);
	CHECK_STR(got[2].name, "bpf_jit.constprop.0");
	CHECK_U64(got[2].value, 1);
	CHECK_STR(got[3].name, "(unknown)");
	CHECK_U64(got[3].value, 1);

	CHECK_U64(live_frame_class(1u << 12 | 1u << 5 | 1u << 11, 1), PS_FC_ANON);
	CHECK_U64(live_frame_class(1u << 5 | 1u << 14, 1), PS_FC_SHMEM);
	CHECK_U64(live_frame_class(1u << 5 | 1u << 3, 1), PS_FC_FILE);
	CHECK_U64(live_frame_class(UINT64_C(1) << 32, 1), PS_FC_RESERVED);
	CHECK_U64(live_frame_class(1u << 24, 1), PS_FC_RESERVED);
	CHECK_U64(live_frame_class(1u << 26, 1), PS_FC_PGTABLE);
	CHECK_U64(live_frame_class(1u << 17 | 1u << 15, 0), PS_FC_HUGETLB);
	CHECK_U64(live_frame_class(1u << 23, 0), PS_FC_OFFLINE);
	CHECK_U64(live_frame_class(0, 0), PS_FC_UNUSED);
	CHECK_U64(live_frame_class(0, 3), PS_FC_KERNEL);
	return check_summary("test_live_counters");
}
