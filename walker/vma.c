/* vma.c - the VMAs of one address space.
 *
 * Linux 6.1+ keeps them in a maple tree (mm->mm_mt, lib/maple_tree.c); older kernels in a
 * list (mm->mmap, vm_next). Which one is chosen by the members the type information has.
 *
 * Maple tree facts used (include/linux/maple_tree.h, lib/maple_tree.c of 6.1):
 *   - ma_root is NULL, a direct entry for index 0 only, or an encoded node pointer with
 *     the low bits 10 (xa_is_node: (p & 3) == 2 and p > 4096);
 *   - an encoded node: node address = p & ~0xff (MAPLE_NODE_MASK), type = (p >> 3) & 0xf
 *     (enum maple_type: dense, leaf_64, range_64, arange_64); types below range_64 are
 *     leaves; mm trees use arange_64 inner nodes and leaf_64 leaves;
 *   - slot i of a node covering [min, max] covers [pivot[i-1] + 1, pivot[i]] (slot 0 from
 *     min; the slot past the last pivot ends at max); the last used slot is ma_data_end():
 *     arange_64 from its metadata, range_64/leaf_64 from the last pivot (0: metadata end;
 *     == max: the last pivot's slot; otherwise every slot is used);
 *   - a slot with a pivot of 0 past slot 0 ends the data; a NULL slot is a gap.
 * The array lengths come from the type information (32-bit kernels have other lengths).
 * Guards: depth <= MAPLE_HEIGHT_MAX (31), a node budget, a visited set, pivots checked
 * against the node's range (so an in-order walk can only go up in address).
 */
#include "mm_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MAPLE_HEIGHT_MAX 31
#define MAPLE_NODE_MASK UINT64_C(0xff)
#define MAX_NODES (UINT64_C(1) << 20)
#define MAX_LIST_VMAS (UINT64_C(4) << 20)
#define MAPLE_NODE_BYTES_MAX 4096

struct vwalk {
	struct ps_walker *w;
	const struct mm_space *mm;
	struct mm_vmavec *out;
	size_t vlen;            /* sizeof(struct vm_area_struct) */
	uint8_t *vbuf;
	struct mm_set nodes;
	uint64_t nnodes;
	uint64_t ulong_max;
	bool stop, oom;
	/* maple layout */
	size_t node_len;
	int t_dense, t_leaf, t_range, t_arange;
};

/* Read the VMA at KADDR expected to cover [lo, hi] (hi inclusive; lo > hi: unknown). */
static void add_vma(struct vwalk *k, uint64_t kaddr, uint64_t lo, uint64_t hi, bool check_range)
{
	struct ps_walker *w = k->w;
	if (!mm_kptr_ok(w, kaddr, w->c.ptr_size)) {
		mm_warn(w, k->mm->id, lo, "VMA pointer %" PRIx64 " is not a kernel address", kaddr);
		return;
	}
	enum ps_read_status st = ps_kread(&w->c, kaddr, k->vbuf, k->vlen);
	if (st != PS_READ_OK) {
		mm_warn(w, k->mm->id, check_range ? lo : PS_UNKNOWN, "cannot read vm_area_struct at %" PRIx64 ": %s",
			kaddr, ps_read_status_name(st));
		return;
	}
	struct mm_vma v = { .kaddr = kaddr };
	uint64_t vmm = 0;
	mm_get(w, k->vbuf, k->vlen, PS_KI_VMA_START, &v.start);
	mm_get(w, k->vbuf, k->vlen, PS_KI_VMA_END, &v.end);
	mm_get(w, k->vbuf, k->vlen, PS_KI_VMA_MM, &vmm);
	mm_get(w, k->vbuf, k->vlen, PS_KI_VMA_FLAGS, &v.flags);
	mm_get(w, k->vbuf, k->vlen, PS_KI_VMA_PGOFF, &v.pgoff);
	mm_get(w, k->vbuf, k->vlen, PS_KI_VMA_FILE, &v.file);
	mm_get(w, k->vbuf, k->vlen, PS_KI_VMA_OPS, &v.ops);
	mm_get(w, k->vbuf, k->vlen, PS_KI_VMA_PRIVATE_DATA, &v.priv);
	if (!v.file) /* a union with the file-only shared.rb */
		mm_get(w, k->vbuf, k->vlen, PS_KI_VMA_ANON_NAME, &v.anon_name);
	uint64_t pmask = (uint64_t)w->c.page_size - 1;
	if (vmm != k->mm->kaddr) {
		mm_warn(w, k->mm->id, v.start, "VMA %" PRIx64 " belongs to mm %" PRIx64 ", not this one",
			kaddr, vmm);
		return;
	}
	if (v.start >= v.end || (v.start & pmask) || (v.end & pmask) ||
	    (w->c.geom.user_va_end && v.end > w->c.geom.user_va_end)) {
		mm_warn(w, k->mm->id, v.start, "VMA %" PRIx64 " has a bad range %" PRIx64 "-%" PRIx64,
			kaddr, v.start, v.end);
		return;
	}
	if (check_range && (v.start != lo || v.end - 1 != hi))
		mm_warn(w, k->mm->id, v.start, "VMA %" PRIx64 " is %" PRIx64 "-%" PRIx64
			" but the maple tree files it at %" PRIx64 "-%" PRIx64, kaddr, v.start, v.end, lo, hi + 1);
	struct mm_vmavec *o = k->out;
	if (o->n == o->cap) {
		size_t ncap = o->cap ? o->cap * 2 : 64;
		struct mm_vma *n = realloc(o->v, ncap * sizeof *n);
		if (!n) {
			k->oom = true;
			return;
		}
		o->v = n, o->cap = ncap;
	}
	o->v[o->n++] = v;
}

/* ---- maple tree ----------------------------------------------------------------------- */

static int enum_or(const struct ps_walker *w, enum ps_ki_enum id, int dflt)
{
	int64_t v = mm_enum(w, id);
	return v == PS_KI_ABSENT || v < 0 || v > 15 ? dflt : (int)v;
}

struct node_layout {
	int64_t piv_off, slot_off, meta_off; /* meta_off -1: none */
	unsigned npiv, nslot;
};

static bool layout_of(const struct vwalk *k, int type, struct node_layout *l)
{
	const struct ps_walker *w = k->w;
	enum ps_ki_member piv, slot, meta;
	if (type == k->t_arange) {
		piv = PS_KI_MAPLE_ARANGE64_PIVOT, slot = PS_KI_MAPLE_ARANGE64_SLOT,
		meta = PS_KI_MAPLE_ARANGE64_META;
	} else if (type == k->t_leaf || type == k->t_range) {
		piv = PS_KI_MAPLE_RANGE64_PIVOT, slot = PS_KI_MAPLE_RANGE64_SLOT,
		meta = PS_KI_MAPLE_RANGE64_META;
	} else {
		return false; /* maple_dense: never used by mm trees */
	}
	const struct ps_kinfo_member *p = &w->c.ki.member[piv], *s = &w->c.ki.member[slot];
	if (p->offset == PS_KI_ABSENT || s->offset == PS_KI_ABSENT || !p->nelems || !s->nelems ||
	    s->nelems != p->nelems + 1 || s->nelems > 64)
		return false;
	unsigned ps = w->c.ptr_size;
	if ((uint64_t)p->offset + (uint64_t)p->nelems * ps > k->node_len ||
	    (uint64_t)s->offset + (uint64_t)s->nelems * ps > k->node_len)
		return false;
	l->piv_off = p->offset, l->slot_off = s->offset;
	l->npiv = p->nelems, l->nslot = s->nelems;
	l->meta_off = mm_has(w, meta) && (uint64_t)mm_off(w, meta) < k->node_len ? mm_off(w, meta) : -1;
	return true;
}

static void walk_node(struct vwalk *k, uint64_t enode, uint64_t min, uint64_t max, unsigned depth)
{
	struct ps_walker *w = k->w;
	uint64_t mmid = k->mm->id;
	if (k->stop || k->oom)
		return;
	if (depth > MAPLE_HEIGHT_MAX) {
		mm_warn(w, mmid, min, "maple tree deeper than %d levels at node %" PRIx64, MAPLE_HEIGHT_MAX, enode);
		k->stop = true;
		return;
	}
	if (++k->nnodes > MAX_NODES) {
		mm_warn(w, mmid, min, "maple tree has more than %" PRIu64 " nodes", MAX_NODES);
		k->stop = true;
		return;
	}
	uint64_t node = enode & ~MAPLE_NODE_MASK;
	int type = (int)((enode >> 3) & 0xf);
	struct node_layout l;
	if (!layout_of(k, type, &l)) {
		mm_warn(w, mmid, min, "maple node %" PRIx64 " has type %d, which the walker cannot read", node, type);
		return;
	}
	if (!mm_kptr_ok(w, node, 256)) {
		mm_warn(w, mmid, min, "maple node pointer %" PRIx64 " is not a kernel address", enode);
		return;
	}
	int fresh = mm_set_put(&k->nodes, node, 0, false);
	if (fresh < 0) {
		k->oom = true;
		return;
	}
	if (fresh == 0) {
		mm_warn(w, mmid, min, "maple tree visits node %" PRIx64 " twice (a cycle)", node);
		return;
	}
	uint8_t buf[MAPLE_NODE_BYTES_MAX];
	enum ps_read_status st = ps_kread(&w->c, node, buf, k->node_len);
	if (w->trace) {
		uint64_t pa = 0;
		if (ps_kvtop(&w->c, node, &pa) != 0)
			pa = 0;
		fprintf(w->trace, "maple %" PRIu64 " %" PRIx64 " %" PRIx64 "\n", mmid, node, pa);
	}
	if (st != PS_READ_OK) {
		mm_warn(w, mmid, min, "cannot read maple node %" PRIx64 ": %s", node, ps_read_status_name(st));
		return;
	}
	/* A dead node (being freed) points to itself as its parent. The offset comes from the
	 * type information: one outside the node read is not checked. */
	int64_t poff = mm_has(w, PS_KI_MAPLE_NODE_PARENT) ? mm_off(w, PS_KI_MAPLE_NODE_PARENT) : 0;
	if (poff >= 0 && (uint64_t)poff + w->c.ptr_size <= k->node_len &&
	    (ps_load_ptr(&w->c, buf + poff) & ~MAPLE_NODE_MASK) == node) {
		mm_warn(w, mmid, min, "maple node %" PRIx64 " is dead (being freed)", node);
		return;
	}
	unsigned ps = w->c.ptr_size;
	uint64_t piv[64];
	for (unsigned i = 0; i < l.npiv; i++)
		piv[i] = ps_load_ptr(&w->c, buf + l.piv_off + (uint64_t)i * ps);
	unsigned end;
	if (type == k->t_arange) {
		end = l.meta_off >= 0 ? buf[l.meta_off] : l.npiv; /* meta.end is the first byte */
	} else if (piv[l.npiv - 1] == 0) {
		if (l.meta_off >= 0) {
			end = buf[l.meta_off];
		} else { /* no metadata known: the last non-zero pivot */
			end = 0;
			for (unsigned i = 1; i < l.npiv && piv[i]; i++)
				end = i;
		}
	} else if (piv[l.npiv - 1] == max) {
		end = l.npiv - 1;
	} else {
		end = l.npiv;
	}
	if (end >= l.nslot) {
		mm_warn(w, mmid, min, "maple node %" PRIx64 ": data end %u beyond its %u slots", node, end, l.nslot);
		end = l.nslot - 1;
	}
	bool leaf = type < k->t_range;
	uint64_t lo = min;
	for (unsigned i = 0; i <= end && !k->stop && !k->oom; i++) {
		uint64_t hi = i < l.npiv ? piv[i] : max;
		if (i > 0 && hi == 0)
			break; /* unused pivot: end of data */
		if (hi < lo || hi > max) {
			mm_warn(w, mmid, lo, "maple node %" PRIx64 ": pivot %u (%" PRIx64 ") outside %" PRIx64 "-%" PRIx64,
				node, i, hi, lo, max);
			return; /* the rest of this node is out of reach; its siblings are not */
		}
		uint64_t slot = ps_load_ptr(&w->c, buf + l.slot_off + (uint64_t)i * ps);
		if (slot) {
			if (leaf) {
				if ((slot & 3) == 2 && slot < 4096)
					mm_warn(w, mmid, lo, "maple leaf %" PRIx64 " holds a reserved value %" PRIx64, node, slot);
				else
					add_vma(k, slot, lo, hi, true);
			} else {
				walk_node(k, slot, lo, hi, depth + 1);
			}
		}
		if (hi >= max)
			break;
		lo = hi + 1;
	}
}

static void walk_maple(struct vwalk *k)
{
	struct ps_walker *w = k->w;
	size_t mlen = (size_t)mm_size(w, PS_KI_MM_STRUCT);
	if (!mm_has(w, PS_KI_MAPLE_TREE_ROOT)) {
		mm_warn(w, k->mm->id, PS_UNKNOWN, "type information lacks maple_tree.ma_root");
		return;
	}
	uint64_t off = (uint64_t)mm_off(w, PS_KI_MM_MT) + (uint64_t)mm_off(w, PS_KI_MAPLE_TREE_ROOT);
	if (off + w->c.ptr_size > mlen) {
		mm_warn(w, k->mm->id, PS_UNKNOWN, "mm_struct.mm_mt.ma_root lies outside mm_struct");
		return;
	}
	int64_t nsz = mm_size(w, PS_KI_MAPLE_NODE);
	k->node_len = nsz == PS_KI_ABSENT || nsz <= 0 || nsz > MAPLE_NODE_BYTES_MAX ? 256 : (size_t)nsz;
	k->t_dense = enum_or(w, PS_KI_MAPLE_DENSE, 0);
	k->t_leaf = enum_or(w, PS_KI_MAPLE_LEAF_64, 1);
	k->t_range = enum_or(w, PS_KI_MAPLE_RANGE_64, 2);
	k->t_arange = enum_or(w, PS_KI_MAPLE_ARANGE_64, 3);
	uint64_t root = ps_load_ptr(&w->c, k->mm->buf + off);
	if (!root)
		return;
	bool is_node = (root & 3) == 2 && root > 4096;
	if (!is_node) {
		/* A single entry stored in the root covers index 0 only: no VMA can be there, but
		 * take what the kernel stored. */
		add_vma(k, root, 0, 0, false);
		return;
	}
	walk_node(k, root & ~UINT64_C(2), 0, k->ulong_max, 0);
}

/* ---- the list of older kernels ------------------------------------------------------------ */

static void walk_list(struct vwalk *k)
{
	struct ps_walker *w = k->w;
	size_t mlen = (size_t)mm_size(w, PS_KI_MM_STRUCT);
	uint64_t p;
	if (!mm_get(w, k->mm->buf, mlen, PS_KI_MM_MMAP, &p)) {
		mm_warn(w, k->mm->id, PS_UNKNOWN, "mm_struct.mmap lies outside mm_struct");
		return;
	}
	uint64_t n = 0;
	while (p && !k->oom) {
		if (++n > MAX_LIST_VMAS) {
			mm_warn(w, k->mm->id, PS_UNKNOWN, "VMA list longer than %" PRIu64, MAX_LIST_VMAS);
			return;
		}
		int fresh = mm_set_put(&k->nodes, p, 0, false);
		if (fresh < 0) {
			k->oom = true;
			return;
		}
		if (fresh == 0) {
			mm_warn(w, k->mm->id, PS_UNKNOWN, "VMA list loops back to %" PRIx64, p);
			return;
		}
		size_t before = k->out->n;
		add_vma(k, p, 1, 0, false);
		if (k->out->n == before)
			return; /* unreadable: the rest of the list is out of reach */
		uint64_t next = 0;
		mm_get(w, k->vbuf, k->vlen, PS_KI_VMA_NEXT, &next);
		p = next;
	}
}

static int cmp_vma(const void *a, const void *b)
{
	const struct mm_vma *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

int mm_collect_vmas(struct ps_walker *w, const struct mm_space *mm, struct mm_vmavec *out)
{
	out->n = 0;
	if (!mm->readable)
		return 0;
	struct vwalk k = { .w = w, .mm = mm, .out = out, .vlen = (size_t)mm_size(w, PS_KI_VM_AREA_STRUCT) };
	k.ulong_max = w->c.ptr_size == 8 ? UINT64_MAX : UINT32_MAX;
	k.vbuf = malloc(k.vlen);
	if (!k.vbuf)
		return -1;
	if (mm_has(w, PS_KI_MM_MT))
		walk_maple(&k);
	else
		walk_list(&k);
	free(k.vbuf);
	mm_set_free(&k.nodes);
	if (k.oom)
		return -1;
	/* Both structures are ordered; sort anyway and drop overlaps, which only a corrupt
	 * dump can have, so the records stay well-formed. */
	if (out->n > 1)
		qsort(out->v, out->n, sizeof *out->v, cmp_vma);
	size_t j = 0;
	for (size_t i = 0; i < out->n; i++) {
		if (j && out->v[i].start < out->v[j - 1].end) {
			mm_warn(w, mm->id, out->v[i].start, "VMA %" PRIx64 "-%" PRIx64 " overlaps the one before; left out",
				out->v[i].start, out->v[i].end);
			continue;
		}
		out->v[j++] = out->v[i];
	}
	out->n = j;
	uint64_t map_count;
	if (mm_get(w, mm->buf, (size_t)mm_size(w, PS_KI_MM_STRUCT), PS_KI_MM_MAP_COUNT, &map_count) &&
	    (uint32_t)map_count != out->n)
		mm_warn(w, mm->id, PS_UNKNOWN, "found %zu VMAs, mm->map_count says %u", out->n,
			(uint32_t)map_count);
	return 0;
}
