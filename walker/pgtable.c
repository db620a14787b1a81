/* pgtable.c - the generic page-table range walker and single kernel translations.
 *
 * ps_pt_walk visits [start, end) of one address space. For every table it reads only the
 * slice of entries covering the range, with one back-end read per table page of that slice,
 * into a buffer allocated once per walk; empty entries cost one compare. Events are clipped
 * to [start, end): a huge leaf that straddles START is reported from START with its
 * physical address advanced to match, so e->addr is always the address of VA.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

struct walk {
	struct ps_core *c;
	ps_pt_visit_fn visit;
	void *arg;
	uint8_t *buf[PS_PT_MAX_LEVELS]; /* one table's worth per level */
	uint64_t budget;                /* table pages still allowed (see ps_pt_walk) */
	uint64_t last;                  /* the walk's last VA */
};

#define WALK_ABORTED INT_MIN /* private: unwinds after the budget ran out */

static inline uint64_t load_entry(bool swap, const uint8_t *p, unsigned esz)
{
	if (esz == 8) {
		uint64_t v;
		memcpy(&v, p, 8);
		return swap ? __builtin_bswap64(v) : v;
	}
	uint32_t v;
	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

/* The walk buffers are 8-byte aligned (malloc, table-sized slots); the scan reads them as
 * words without breaking aliasing rules. */
typedef uint64_t aliased_u64 __attribute__((may_alias, aligned(8)));

/* The first non-zero entry in [i, end) of a table slice, or end. Most entries of a
 * process's tables are empty, so test 32 bytes at a time (byte order does not matter for
 * zero). */
static inline uint64_t next_used(const uint8_t *buf, uint64_t i, uint64_t end, unsigned esz)
{
	uint64_t byte = i * esz, end_byte = end * esz;
	for (; byte < end_byte && (byte & 31); byte += esz)
		if (load_entry(false, buf + byte, esz))
			return byte / esz;
	for (; byte + 32 <= end_byte; byte += 32) {
		const aliased_u64 *w = (const aliased_u64 *)(const void *)(buf + byte);
		if (w[0] | w[1] | w[2] | w[3])
			break;
	}
	for (; byte < end_byte; byte += esz)
		if (load_entry(false, buf + byte, esz))
			return byte / esz;
	return end;
}

/* Whether table entries need a byte swap to host order. */
static inline bool entries_swapped(const struct ps_core *c)
{
	return c->geom.entries_big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
}

/* Base pages in [s, last] (inclusive last, so a range ending at 2^64 needs no overflow). */
static inline uint64_t pages_in(const struct ps_core *c, uint64_t s, uint64_t last)
{
	return ((last - s) >> c->page_shift) + 1;
}

/* Physical address of the table bytes at OFF, or -1 when a kernel-virtual table pointer
 * does not translate. */
static int table_pa(struct ps_core *c, uint64_t table, bool is_kv, uint64_t off, uint64_t *pa)
{
	if (!is_kv) {
		*pa = table + off;
		return 0;
	}
	return ps_kvtop(c, table + off, pa);
}

/* Before the walk goes down into one entry's table: the table of the next used entry in
 * [i, end) is what it reads after that subtree, so the back-end may fetch it meanwhile. */
static inline void hint_next_table(struct ps_core *c, unsigned level, const uint8_t *buf,
				   uint64_t i, uint64_t end, unsigned esz, bool swap)
{
	if (!c->t.ops->prefetch_phys)
		return;
	uint64_t j = next_used(buf, i, end, esz);
	if (j >= end)
		return;
	struct ps_pt_entry e;
	memset(&e, 0, sizeof e);
	c->arch->decode(c, level, load_entry(swap, buf + j * esz, esz), &e);
	if (e.kind == PS_PT_TABLE && !e.next_is_kvaddr)
		ps_prefetch(c, e.addr);
}

/* Walk one table mapping [base, base + entries << shift) restricted to [start, last]. */
static int walk_table(struct walk *w, unsigned level, uint64_t table, bool is_kv, uint64_t base,
		      uint64_t start, uint64_t last)
{
	struct ps_core *c = w->c;
	const struct ps_pt_level *L = &c->geom.levels[level];
	const unsigned shift = L->shift, esz = L->entry_size;
	const uint64_t span_m1 = (shift >= 64) ? UINT64_MAX : ((UINT64_C(1) << shift) - 1);
	const uint64_t i0 = (start - base) >> shift, i1 = (last - base) >> shift;
	uint8_t *buf = w->buf[level];
	const uint64_t psz = c->page_size;
	const bool swap = entries_swapped(c);

	if (w->budget == 0) {
		/* A tree holds each table page once, so more table pages than memory has means
		 * entries pointing back up (a corrupt dump): report the rest as bad, stop. */
		struct ps_pt_entry e = { .kind = PS_PT_BAD, .why = "more page-table pages than memory (cyclic tables?)" };
		int r = w->visit(w->arg, PS_PT_EV_BAD, start, pages_in(c, start, w->last), shift, &e);
		return r ? r : WALK_ABORTED;
	}
	w->budget--;

	if (c->pt_trace)
		fprintf(c->pt_trace, "pt %" PRIu64 " %u 0x%" PRIx64 " 0x%" PRIx64 "\n", c->pt_trace_id,
			level, table, base);

	/* Tables are at least entry-aligned in hardware; an unaligned pointer from the dump
	 * would also let a read piece hold less than one entry. */
	if (table & (esz - 1)) {
		struct ps_pt_entry e = { .kind = PS_PT_BAD, .addr = table, .why = "misaligned page-table pointer" };
		return w->visit(w->arg, PS_PT_EV_BAD, start, pages_in(c, start, last), shift, &e);
	}
	uint64_t off = i0 * esz, off_end = (i1 + 1) * esz;
	while (off < off_end) {
		/* One read per page of the table (the piece up to the next page boundary). */
		uint64_t pa = 0;
		uint64_t piece = off_end - off;
		enum ps_read_status st;
		if (table_pa(c, table, is_kv, off, &pa) != 0) {
			st = PS_READ_NODATA;
			uint64_t room = psz - ((table + off) & (psz - 1));
			if (piece > room)
				piece = room;
		} else {
			uint64_t room = psz - (pa & (psz - 1));
			if (piece > room)
				piece = room;
			st = ps_pread(c, pa, buf + off, piece);
			c->stats.pt_bytes += piece;
		}
		uint64_t first = off / esz, end_i = (off + piece) / esz; /* entries [first, end_i) */
		if (st != PS_READ_OK) {
			uint64_t s = base + (first << shift), l = base + ((end_i - 1) << shift) + span_m1;
			if (s < start)
				s = start;
			if (l > last)
				l = last;
			struct ps_pt_entry e = { .kind = PS_PT_TABLE, .addr = pa,
						 .next_is_kvaddr = false, .why = ps_read_status_name(st) };
			int r = w->visit(w->arg, PS_PT_EV_UNREADABLE, s, pages_in(c, s, l), shift, &e);
			if (r)
				return r;
			off += piece;
			continue;
		}
		/* Zero is pte_none on every architecture: skipped without decoding. */
		for (uint64_t i = next_used(buf, first, end_i, esz); i < end_i;
		     i = next_used(buf, i + 1, end_i, esz)) {
			uint64_t raw = load_entry(swap, buf + i * esz, esz);
			struct ps_pt_entry e;
			memset(&e, 0, sizeof e);
			c->arch->decode(c, level, raw, &e);
			if (e.kind == PS_PT_NONE)
				continue;
			uint64_t eva = base + (i << shift), elast = eva + span_m1;
			uint64_t s = eva < start ? start : eva, l = elast > last ? last : elast;
			int r = 0;
			switch (e.kind) {
			case PS_PT_TABLE:
				if (level + 1 >= c->geom.nlevels) {
					e.kind = PS_PT_BAD;
					e.why = "table entry at the last level";
					r = w->visit(w->arg, PS_PT_EV_BAD, s, pages_in(c, s, l), shift, &e);
				} else if (!e.next_is_kvaddr && c->max_pfn &&
					   (e.addr >> c->page_shift) >= c->max_pfn) {
					e.kind = PS_PT_BAD;
					e.why = "table beyond memory";
					r = w->visit(w->arg, PS_PT_EV_BAD, s, pages_in(c, s, l), shift, &e);
				} else {
					hint_next_table(c, level, buf, i + 1, end_i, esz, swap);
					r = walk_table(w, level + 1, e.addr, e.next_is_kvaddr, eva, s, l);
				}
				break;
			case PS_PT_LEAF:
				e.addr += s - eva;
				r = w->visit(w->arg, PS_PT_EV_LEAF, s, pages_in(c, s, l), shift, &e);
				break;
			case PS_PT_SWAP:
				r = w->visit(w->arg, PS_PT_EV_SWAP, s, pages_in(c, s, l), shift, &e);
				break;
			default:
				if (!e.why)
					e.why = "malformed entry";
				e.kind = PS_PT_BAD;
				r = w->visit(w->arg, PS_PT_EV_BAD, s, pages_in(c, s, l), shift, &e);
				break;
			}
			if (r)
				return r;
		}
		off += piece;
	}
	return 0;
}

int ps_pt_walk(struct ps_core *c, uint64_t top, uint64_t start, uint64_t end,
	       ps_pt_visit_fn visit, void *arg)
{
	const struct ps_pt_geometry *g = &c->geom;
	if (g->nlevels == 0 || g->nlevels > PS_PT_MAX_LEVELS || !c->arch->decode)
		return 0;
	/* What the top table can address at all, and what the walker may visit. */
	unsigned top_bits = g->levels[0].shift + g->levels[0].bits;
	uint64_t limit_last = top_bits >= 64 ? UINT64_MAX : (UINT64_C(1) << top_bits) - 1;
	if (g->user_va_end && g->user_va_end - 1 < limit_last)
		limit_last = g->user_va_end - 1;
	if (end == 0 || start >= end || start > limit_last)
		return 0;
	uint64_t last = end - 1 > limit_last ? limit_last : end - 1;

	struct walk w = { .c = c, .visit = visit, .arg = arg, .last = last };
	w.budget = c->max_pfn ? c->max_pfn + 16 : UINT64_C(1) << 26;
	size_t total = 0, sizes[PS_PT_MAX_LEVELS];
	for (unsigned l = 0; l < g->nlevels; l++) {
		const struct ps_pt_level *L = &g->levels[l];
		if ((L->entry_size != 4 && L->entry_size != 8) || L->bits == 0 || L->bits > 20)
			return ps_core_fail(c, "pgtable: bad geometry at level %u", l);
		sizes[l] = ((size_t)1 << L->bits) * L->entry_size;
		total += sizes[l];
	}
	uint8_t *mem = malloc(total);
	if (!mem)
		return ps_core_fail(c, "pgtable: out of memory");
	size_t pos = 0;
	for (unsigned l = 0; l < g->nlevels; l++) {
		w.buf[l] = mem + pos;
		pos += sizes[l];
	}
	int r = walk_table(&w, 0, top, false, 0, start, last);
	free(mem);
	return r == WALK_ABORTED ? 0 : r;
}

int ps_pt_translate(struct ps_core *c, uint64_t top, uint64_t va, uint64_t *pa)
{
	const struct ps_pt_geometry *g = &c->geom;
	uint64_t table = top;
	bool is_kv = false;
	for (unsigned level = 0; level < g->nlevels && level < PS_PT_MAX_LEVELS; level++) {
		const struct ps_pt_level *L = &g->levels[level];
		unsigned esz = L->entry_size;
		if (esz != 4 && esz != 8)
			return -1;
		uint64_t idx = (va >> L->shift) & ((UINT64_C(1) << L->bits) - 1);
		uint64_t epa;
		if (is_kv) {
			/* Only the architecture's linear rules: a kernel-virtual table pointer that
			 * needed page tables itself would recurse. */
			if (!c->arch->kvtop_direct || !c->arch->kvtop_direct(c, table + idx * esz, &epa))
				return -1;
		} else {
			epa = table + idx * esz;
		}
		uint8_t b[8];
		if (ps_pread(c, epa, b, esz) != PS_READ_OK)
			return -1;
		c->stats.pt_bytes += esz;
		uint64_t raw = load_entry(entries_swapped(c), b, esz);
		if (raw == 0)
			return -1;
		struct ps_pt_entry e;
		memset(&e, 0, sizeof e);
		c->arch->decode(c, level, raw, &e);
		if (e.kind == PS_PT_LEAF) {
			uint64_t span_m1 = L->shift >= 64 ? UINT64_MAX : (UINT64_C(1) << L->shift) - 1;
			*pa = (e.addr & ~span_m1) | (va & span_m1);
			return 0;
		}
		if (e.kind != PS_PT_TABLE)
			return -1;
		table = e.addr;
		is_kv = e.next_is_kvaddr;
	}
	return -1;
}
