/* slabinfo.c - /proc/slabinfo of a SLUB kernel, read from the dump: every kmem_cache on
 * slab_caches with its object size, objects per slab, pages per slab, and per node the slab
 * and object counts the kernel keeps (kmem_cache_node.nr_slabs and total_objects, which
 * CONFIG_SLUB_DEBUG provides, as /proc/slabinfo needs them too) minus the free objects of
 * the node's partial slabs (count_partial()). As the kernel's own file, a CPU's slabs count
 * as wholly in use. Written as slab records; a kernel without those counters (SLAB, no
 * SLUB_DEBUG) or without slab_caches among its symbols writes none.
 *
 * A slab's inuse and objects are the bitfields `unsigned inuse:16; unsigned objects:15;
 * unsigned frozen:1;` at slab.counters (page.counters before 5.17), unchanged since SLUB
 * began: GCC allocates them from the least significant bit of the first 32-bit unit on a
 * little-endian target and from the most significant on a big-endian one.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mm_internal.h"

#define SI_MAX_CACHES 65536
#define SI_MAX_PARTIAL (1u << 22) /* partial slabs walked in all */

/* The free objects of the partial slabs of one node (a list of slab_list), or false when
 * the list cannot be followed. */
static bool partial_free(struct ps_walker *w, uint64_t head, uint64_t nr_partial, uint64_t *budget,
			 uint64_t *free_objs)
{
	int64_t o_list = mm_has(w, PS_KI_SLAB_SLAB_LIST) ? mm_off(w, PS_KI_SLAB_SLAB_LIST) : mm_off(w, PS_KI_PAGE_SLAB_LIST);
	int64_t o_cnt = mm_has(w, PS_KI_SLAB_COUNTERS) ? mm_off(w, PS_KI_SLAB_COUNTERS) : mm_off(w, PS_KI_PAGE_COUNTERS);
	if (o_list < 0 || o_cnt < 0)
		return false;
	uint64_t pos, n = 0;
	if (!mm_kread_word(w, head, &pos))
		return false;
	while (pos != head) {
		if (n++ > nr_partial || !*budget || !mm_kptr_ok(w, pos, w->c.ptr_size))
			return false; /* longer than the kernel's own count, or a loop */
		(*budget)--;
		uint32_t c;
		if (ps_kread_u32(&w->c, pos - (uint64_t)o_list + (uint64_t)o_cnt, &c) != PS_READ_OK)
			return false;
		uint32_t inuse = w->c.big_endian ? c >> 16 : c & 0xffff;
		uint32_t objects = w->c.big_endian ? (c >> 1) & 0x7fff : (c >> 16) & 0x7fff;
		if (inuse > objects)
			return false;
		*free_objs += objects - inuse;
		if (!mm_kread_word(w, pos, &pos))
			return false;
	}
	return true;
}

/* The counters read as an int or a long: any other size is type information that lies. */
static bool int_or_long(const struct ps_walker *w, enum ps_ki_member id)
{
	uint32_t size = w->c.ki.member[id].size;
	return size == 4 || size == 8;
}

void mm_write_slabinfo(struct ps_walker *w)
{
	uint64_t head = ps_core_sym(&w->c, PS_KI_SLAB_CACHES);
	/* node[] of kmem_cache_node pointers; since 2025 per_node[] of {barn, node} pairs */
	const struct ps_kinfo_member *nodes = &w->c.ki.member[PS_KI_KMEM_CACHE_NODE];
	uint64_t stride = w->c.ptr_size, in_elem = 0;
	if (nodes->offset == PS_KI_ABSENT && mm_has(w, PS_KI_KMEM_CACHE_PER_NODE) && mm_has(w, PS_KI_PER_NODE_PTRS_NODE)) {
		nodes = &w->c.ki.member[PS_KI_KMEM_CACHE_PER_NODE];
		int64_t esize = mm_size(w, PS_KI_KMEM_CACHE_PER_NODE_PTRS);
		stride = nodes->nelems ? nodes->size / nodes->nelems : esize > 0 ? (uint64_t)esize : 0;
		in_elem = (uint64_t)mm_off(w, PS_KI_PER_NODE_PTRS_NODE);
		if (!stride || in_elem + w->c.ptr_size > stride)
			return;
	}
	/* the array's length: its element count, or (a DWARF bound given as DW_AT_count, which
	 * the type information may not carry) its size over the element's */
	uint64_t node_slots = nodes->nelems ? nodes->nelems : stride ? nodes->size / stride : 0;
	if (!head || !mm_has(w, PS_KI_KMEM_CACHE_LIST) || !mm_has(w, PS_KI_KMEM_CACHE_NAME) ||
	    !mm_has(w, PS_KI_KMEM_CACHE_SIZE) || !mm_has(w, PS_KI_KMEM_CACHE_OO) ||
	    nodes->offset == PS_KI_ABSENT || !node_slots || node_slots > 1024 || !stride ||
	    !mm_has(w, PS_KI_KMEM_CACHE_NODE_NR_SLABS) || !mm_has(w, PS_KI_KMEM_CACHE_NODE_TOTAL_OBJECTS) ||
	    !mm_has(w, PS_KI_KMEM_CACHE_NODE_PARTIAL) || !mm_has(w, PS_KI_KMEM_CACHE_NODE_NR_PARTIAL))
		return; /* not SLUB with its debug counters, or no symbols: nothing guessed */
	if (!int_or_long(w, PS_KI_KMEM_CACHE_SIZE) || !int_or_long(w, PS_KI_KMEM_CACHE_NODE_NR_SLABS) ||
	    !int_or_long(w, PS_KI_KMEM_CACHE_NODE_TOTAL_OBJECTS) || !int_or_long(w, PS_KI_KMEM_CACHE_NODE_NR_PARTIAL)) {
		mm_warn(w, PS_UNKNOWN, PS_UNKNOWN, "slabinfo: kmem_cache.size or a kmem_cache_node counter is "
			"neither an int nor a long in the type information: no slab records");
		return;
	}
	const uint64_t o_list = (uint64_t)mm_off(w, PS_KI_KMEM_CACHE_LIST);
	/* A kmem_cache is allocated with nr_node_ids entries of node[], not MAX_NUMNODES:
	 * the rest is the next object. Without NUMA (no nr_node_ids) there is one. */
	uint32_t nnodes = 1, v32;
	if (ps_core_sym(&w->c, PS_KI_NR_NODE_IDS) &&
	    ps_kread_u32(&w->c, ps_core_sym(&w->c, PS_KI_NR_NODE_IDS), &v32) == PS_READ_OK && v32 >= 1)
		nnodes = v32;
	if (nnodes > node_slots)
		nnodes = (uint32_t)node_slots;
	uint64_t pos, budget = SI_MAX_PARTIAL, bad = 0;
	unsigned ncaches = 0;
	if (!mm_kread_word(w, head, &pos))
		return;
	while (pos != head && !w->write_failed) {
		if (++ncaches > SI_MAX_CACHES || !mm_kptr_ok(w, pos, w->c.ptr_size)) {
			mm_warn(w, PS_UNKNOWN, pos, "slabinfo: the kmem_cache list does not end (after %u caches)", ncaches - 1);
			return;
		}
		uint64_t cache = pos - o_list, np, size = 0;
		uint32_t oo = 0; /* struct kmem_cache_order_objects: order << 16 | objects */
		char name[64];
		struct ps_slab sl = { .name = name };
		bool ok = mm_kread_word(w, cache + (uint64_t)mm_off(w, PS_KI_KMEM_CACHE_NAME), &np) &&
			  ps_kread_string(&w->c, np, name, sizeof name) == PS_READ_OK && name[0] &&
			  mm_kread_member(w, cache, PS_KI_KMEM_CACHE_SIZE, &size) &&
			  ps_kread_u32(&w->c, cache + (uint64_t)mm_off(w, PS_KI_KMEM_CACHE_OO), &oo) == PS_READ_OK;
		uint64_t slabs = 0, objs = 0, free_objs = 0;
		for (uint32_t n = 0; ok && n < nnodes; n++) {
			uint64_t node, v1, v2, nr_partial;
			if (!mm_kread_word(w, cache + (uint64_t)nodes->offset + n * stride + in_elem, &node)) {
				ok = false;
				break;
			}
			if (!node)
				continue;
			if (!mm_kptr_ok(w, node, w->c.ptr_size) || !mm_kread_member(w, node, PS_KI_KMEM_CACHE_NODE_NR_SLABS, &v1) ||
			    !mm_kread_member(w, node, PS_KI_KMEM_CACHE_NODE_TOTAL_OBJECTS, &v2) ||
			    !mm_kread_member(w, node, PS_KI_KMEM_CACHE_NODE_NR_PARTIAL, &nr_partial) ||
			    !partial_free(w, node + (uint64_t)mm_off(w, PS_KI_KMEM_CACHE_NODE_PARTIAL), nr_partial, &budget,
					  &free_objs)) {
				ok = false;
				break;
			}
			slabs += v1, objs += v2;
		}
		if (ok && free_objs <= objs && size && size < (1u << 30)) {
			sl.active_objs = objs - free_objs, sl.num_objs = objs, sl.objsize = size;
			sl.objperslab = oo & 0xffff, sl.pagesperslab = UINT64_C(1) << ((oo >> 16) & 31);
			sl.num_slabs = slabs;
			if (ps_write_slab(w->out, &sl) < 0)
				w->write_failed = true;
		} else {
			bad++;
		}
		if (!mm_kread_word(w, pos, &pos)) {
			mm_warn(w, PS_UNKNOWN, pos, "slabinfo: the kmem_cache list breaks off after %u caches", ncaches);
			break;
		}
	}
	if (bad)
		mm_warn(w, PS_UNKNOWN, PS_UNKNOWN, "slabinfo: %" PRIu64 " caches unreadable (left out)", bad);
}
