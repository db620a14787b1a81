/* klog.c - the kernel log read from a dump (klog.h): Linux 5.10+'s lockless printk
 * ringbuffer, or the log_buf byte ring of older kernels.
 *
 * The lockless ringbuffer (kernel/printk/printk_ringbuffer.[ch], as its documentation
 * describes it):
 *   - struct printk_ringbuffer holds a descriptor ring {count_bits, descs, infos, head_id,
 *     tail_id} and a text data ring {size_bits, data, head_lpos, tail_lpos};
 *   - a descriptor's state_var (an atomic_long_t) holds its state in the top two bits
 *     (0 reserved, 1 committed, 2 finalized, 3 reusable) and its id in the rest; the
 *     descriptor of id N is descs[N mod 2^count_bits], its struct printk_info infos[same];
 *   - records are read from tail_id to head_id (ids count up, wrapping inside the id bits);
 *     a descriptor whose id is not the one expected has been reused (or is corrupt);
 *   - its text_blk_lpos {begin, next} are logical positions in the data ring: index =
 *     lpos mod 2^size_bits, wrap count = lpos >> size_bits. A block lies at index(begin)
 *     with next - begin bytes when both are in the same wrap; a block that would cross the
 *     end of the array is stored at index 0 instead (begin one wrap behind next) and is
 *     index(next) bytes long. Both positions are aligned to sizeof(unsigned long); a block
 *     starts with the descriptor's id (unsigned long), then the text. Positions with the low
 *     bit set are data-less: begin == next == 3 (NO_LPOS) an empty text, 1 (FAILED_LPOS) a
 *     record the kernel had no room for.
 *   - struct printk_info {u64 seq; u64 ts_nsec; u16 text_len; u8 facility; u8 flags:5,
 *     level:3; u32 caller_id; ...}: VMCOREINFO gives the offsets of seq, ts_nsec, text_len
 *     and caller_id but not of facility and the level byte, which are the two bytes between
 *     text_len and caller_id: taken there only when caller_id sits right after them (4
 *     bytes after text_len), else refused. GCC allocates bitfields from the least
 *     significant bit on little-endian targets and from the most significant on big-endian
 *     ones, so level is the byte's top three bits (LE) or its low three bits (BE).
 *
 * log_buf (kernel/printk/printk.c before 5.10): log_buf_len bytes at log_buf; records from
 * log_first_idx to log_next_idx, each a struct printk_log {u64 ts_nsec; u16 len; u16
 * text_len; u16 dict_len; u8 facility; u8 flags:5, level:3; ...} followed by the text and
 * the dictionary, LEN bytes in all; a header with len 0 marks the end of the used part of
 * the buffer: the next record is at index 0.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "klog.h"
#include "mm_internal.h" /* struct ps_walker (its ps_core) */

#define KLOG_MAX_BITS 28      /* count_bits, size_bits above this: not a real ringbuffer */
#define KLOG_MAX_STRUCT 4096u /* a SIZE()/OFFSET() above this is not one of these structs */
#define KLOG_MAX_LOG_BUF (UINT64_C(1) << KLOG_MAX_BITS)

static const char *const level_names[8] = { "emerg", "alert", "crit", "err",
					    "warn",  "notice", "info", "debug" };

const char *ps_klog_level_name(unsigned level)
{
	return level < 8 ? level_names[level] : NULL;
}

/* ---- shared ------------------------------------------------------------------------- */

static void lost(struct ps_klog_stats *st, uint64_t *counter, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void lost(struct ps_klog_stats *st, uint64_t *counter, const char *fmt, ...)
{
	if (counter)
		++*counter;
	st->skipped++;
	if (st->first_problem[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(st->first_problem, sizeof st->first_problem, fmt, ap);
	va_end(ap);
}

/* A VMCOREINFO OFFSET()/SIZE() value the reader cannot do without. */
static int vmci_need(struct ps_core *c, const char *layout, const char *key, uint64_t *out, char **err)
{
	const char *v = ps_core_vmcoreinfo(c, key);
	if (!v) {
		ps_set_err(err, "kernel log (%s): VMCOREINFO has no %s line", layout, key);
		return -1;
	}
	if (!ps_core_vmcoreinfo_u64(c, key, out)) {
		ps_set_err(err, "kernel log (%s): VMCOREINFO %s=%s is not a number", layout, key, v);
		return -1;
	}
	if (*out > KLOG_MAX_STRUCT) {
		ps_set_err(err, "kernel log (%s): VMCOREINFO %s=%" PRIu64 " is implausible", layout, key, *out);
		return -1;
	}
	return 0;
}

/* One layout fact to check: member MKEY (OFF, WIDTH bytes) inside struct SKEY (SIZE bytes). */
struct fit {
	const char *mkey;
	uint64_t off, width;
	const char *skey;
	uint64_t size;
};

static int check_fits(const char *layout, const struct fit *f, size_t n, char **err)
{
	for (size_t i = 0; i < n; i++) {
		if (f[i].off + f[i].width > f[i].size) {
			ps_set_err(err, "kernel log (%s): VMCOREINFO %s=%" PRIu64 " (%" PRIu64
				   " bytes) lies outside %s=%" PRIu64, layout, f[i].mkey, f[i].off,
				   f[i].width, f[i].skey, f[i].size);
			return -1;
		}
	}
	return 0;
}

/* The symbol's address: VMCOREINFO, else the walker's other sources (kallsyms). */
static int need_symbol(struct ps_core *c, const char *layout, const char *name, uint64_t *addr,
		       char **err)
{
	if (ps_core_symbol_by_name(c, name, addr) == 0 && *addr)
		return 0;
	ps_set_err(err, "kernel log (%s): symbol %s not found (VMCOREINFO SYMBOL(%s), kallsyms)", layout,
		   name, name);
	return -1;
}

static uint64_t load_ulong(const struct ps_core *c, const uint8_t *p)
{
	return ps_load_ptr(c, p); /* unsigned long is pointer-sized on every Linux target */
}

static unsigned level_of(const struct ps_core *c, uint8_t flags_level)
{
	return c->big_endian ? (flags_level & 7u) : (flags_level >> 5);
}

/* ---- the lockless ringbuffer (5.10+) ---------------------------------------------------- */

struct prb_layout {
	uint64_t rb_size, rb_desc_ring, rb_text_ring;
	uint64_t dr_size, dr_count_bits, dr_descs, dr_infos, dr_head_id, dr_tail_id;
	uint64_t d_size, d_state_var, d_text_blk_lpos;
	uint64_t lp_size, lp_begin, lp_next;
	uint64_t i_size, i_seq, i_ts_nsec, i_text_len, i_caller_id;
	uint64_t tr_size, tr_size_bits, tr_data;
	uint64_t al_size, al_counter;
};

static int prb_layout(struct ps_core *c, struct prb_layout *L, char **err)
{
	static const char *const lay = "printk_ringbuffer";
	const struct {
		const char *key;
		uint64_t *out;
	} keys[] = {
		{ "SIZE(printk_ringbuffer)", &L->rb_size },
		{ "OFFSET(printk_ringbuffer.desc_ring)", &L->rb_desc_ring },
		{ "OFFSET(printk_ringbuffer.text_data_ring)", &L->rb_text_ring },
		{ "SIZE(prb_desc_ring)", &L->dr_size },
		{ "OFFSET(prb_desc_ring.count_bits)", &L->dr_count_bits },
		{ "OFFSET(prb_desc_ring.descs)", &L->dr_descs },
		{ "OFFSET(prb_desc_ring.infos)", &L->dr_infos },
		{ "OFFSET(prb_desc_ring.head_id)", &L->dr_head_id },
		{ "OFFSET(prb_desc_ring.tail_id)", &L->dr_tail_id },
		{ "SIZE(prb_desc)", &L->d_size },
		{ "OFFSET(prb_desc.state_var)", &L->d_state_var },
		{ "OFFSET(prb_desc.text_blk_lpos)", &L->d_text_blk_lpos },
		{ "SIZE(prb_data_blk_lpos)", &L->lp_size },
		{ "OFFSET(prb_data_blk_lpos.begin)", &L->lp_begin },
		{ "OFFSET(prb_data_blk_lpos.next)", &L->lp_next },
		{ "SIZE(printk_info)", &L->i_size },
		{ "OFFSET(printk_info.seq)", &L->i_seq },
		{ "OFFSET(printk_info.ts_nsec)", &L->i_ts_nsec },
		{ "OFFSET(printk_info.text_len)", &L->i_text_len },
		{ "OFFSET(printk_info.caller_id)", &L->i_caller_id },
		{ "SIZE(prb_data_ring)", &L->tr_size },
		{ "OFFSET(prb_data_ring.size_bits)", &L->tr_size_bits },
		{ "OFFSET(prb_data_ring.data)", &L->tr_data },
		{ "SIZE(atomic_long_t)", &L->al_size },
		{ "OFFSET(atomic_long_t.counter)", &L->al_counter },
	};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (vmci_need(c, lay, keys[i].key, keys[i].out, err) != 0)
			return -1;
	const uint64_t ul = c->ptr_size, al = L->al_counter + ul;
	const struct fit fits[] = {
		{ "OFFSET(atomic_long_t.counter)", L->al_counter, ul, "SIZE(atomic_long_t)", L->al_size },
		{ "OFFSET(printk_ringbuffer.desc_ring)", L->rb_desc_ring, L->dr_size, "SIZE(printk_ringbuffer)", L->rb_size },
		{ "OFFSET(printk_ringbuffer.text_data_ring)", L->rb_text_ring, L->tr_size, "SIZE(printk_ringbuffer)", L->rb_size },
		{ "OFFSET(prb_desc_ring.count_bits)", L->dr_count_bits, 4, "SIZE(prb_desc_ring)", L->dr_size },
		{ "OFFSET(prb_desc_ring.descs)", L->dr_descs, ul, "SIZE(prb_desc_ring)", L->dr_size },
		{ "OFFSET(prb_desc_ring.infos)", L->dr_infos, ul, "SIZE(prb_desc_ring)", L->dr_size },
		{ "OFFSET(prb_desc_ring.head_id)", L->dr_head_id, al, "SIZE(prb_desc_ring)", L->dr_size },
		{ "OFFSET(prb_desc_ring.tail_id)", L->dr_tail_id, al, "SIZE(prb_desc_ring)", L->dr_size },
		{ "OFFSET(prb_desc.state_var)", L->d_state_var, al, "SIZE(prb_desc)", L->d_size },
		{ "OFFSET(prb_desc.text_blk_lpos)", L->d_text_blk_lpos, L->lp_size, "SIZE(prb_desc)", L->d_size },
		{ "OFFSET(prb_data_blk_lpos.begin)", L->lp_begin, ul, "SIZE(prb_data_blk_lpos)", L->lp_size },
		{ "OFFSET(prb_data_blk_lpos.next)", L->lp_next, ul, "SIZE(prb_data_blk_lpos)", L->lp_size },
		{ "OFFSET(printk_info.seq)", L->i_seq, 8, "SIZE(printk_info)", L->i_size },
		{ "OFFSET(printk_info.ts_nsec)", L->i_ts_nsec, 8, "SIZE(printk_info)", L->i_size },
		/* text_len, then facility and the flags/level byte */
		{ "OFFSET(printk_info.text_len)", L->i_text_len, 4, "SIZE(printk_info)", L->i_size },
		{ "OFFSET(printk_info.caller_id)", L->i_caller_id, 4, "SIZE(printk_info)", L->i_size },
		{ "OFFSET(prb_data_ring.size_bits)", L->tr_size_bits, 4, "SIZE(prb_data_ring)", L->tr_size },
		{ "OFFSET(prb_data_ring.data)", L->tr_data, ul, "SIZE(prb_data_ring)", L->tr_size },
	};
	if (check_fits(lay, fits, sizeof fits / sizeof fits[0], err) != 0)
		return -1;
	if (L->i_caller_id != L->i_text_len + 4) {
		ps_set_err(err, "kernel log (%s): printk_info.caller_id at %" PRIu64 " is not 4 bytes after "
			   "text_len at %" PRIu64 ": facility and level are not where this reader knows them",
			   lay, L->i_caller_id, L->i_text_len);
		return -1;
	}
	if (L->d_size == 0 || L->i_size == 0) {
		ps_set_err(err, "kernel log (%s): VMCOREINFO SIZE(prb_desc) or SIZE(printk_info) is 0", lay);
		return -1;
	}
	return 0;
}

enum blk { BLK_OK, BLK_EMPTY, BLK_NODATA, BLK_BAD };

/* Where the text of a record lies: *off (index in the data array) and *size (block bytes,
 * id included), or why not (WHY). */
static enum blk prb_block(uint64_t begin, uint64_t next, unsigned size_bits, unsigned ul,
			  uint64_t *off, uint64_t *size, const char **why)
{
	const uint64_t ulmask = ul == 8 ? UINT64_MAX : UINT32_MAX, dsize = UINT64_C(1) << size_bits;
	if ((begin & 1) && (next & 1)) {
		if (begin == 3 && next == 3)
			return BLK_EMPTY;
		*why = begin == 1 && next == 1 ? "no data block (the kernel had no room for the text)"
					       : "data-less positions other than NO_LPOS/FAILED_LPOS";
		return BLK_NODATA;
	}
	if ((begin >> size_bits) == (next >> size_bits) && begin < next) {
		*off = begin & (dsize - 1);
		*size = next - begin;
	} else if ((((begin + dsize) & ulmask) >> size_bits) == (next >> size_bits)) {
		*off = 0; /* wrapped: the block is at the start of the array */
		*size = next & (dsize - 1);
	} else {
		*why = "its begin and next positions are not one data block";
		return BLK_BAD;
	}
	if (begin % ul || next % ul) {
		*why = "its data block positions are not aligned to the id size";
		return BLK_BAD;
	}
	if (*size < ul) {
		*why = "its data block is smaller than a block id";
		return BLK_BAD;
	}
	return BLK_OK;
}

static int read_prb(struct ps_core *c, uint64_t prb_sym, ps_klog_emit_fn emit, void *arg,
		    struct ps_klog_stats *st, char **err)
{
	static const char *const lay = "printk_ringbuffer";
	struct prb_layout L;
	if (prb_layout(c, &L, err) != 0)
		return -1;
	const unsigned ul = c->ptr_size;
	const uint64_t ulmask = ul == 8 ? UINT64_MAX : UINT32_MAX;
	const uint64_t id_mask = ulmask >> 2;
	const unsigned state_shift = ul * 8 - 2;

	uint64_t rb;
	enum ps_read_status rs = ps_kread_ptr(c, prb_sym, &rb);
	if (rs != PS_READ_OK) {
		ps_set_err(err, "kernel log (%s): cannot read prb at 0x%" PRIx64 ": %s", lay, prb_sym,
			   ps_read_status_name(rs));
		return -1;
	}
	uint8_t *hdr = malloc(L.rb_size ? L.rb_size : 1);
	uint8_t *dbuf = malloc(L.d_size), *ibuf = malloc(L.i_size);
	uint8_t *text = NULL;
	int ret = -1;
	if (!hdr || !dbuf || !ibuf) {
		ps_set_err(err, "kernel log: out of memory");
		goto out;
	}
	if ((rs = ps_kread(c, rb, hdr, L.rb_size)) != PS_READ_OK) {
		ps_set_err(err, "kernel log (%s): cannot read the ringbuffer at 0x%" PRIx64 " (prb): %s", lay,
			   rb, ps_read_status_name(rs));
		goto out;
	}
	const uint8_t *dr = hdr + L.rb_desc_ring, *tr = hdr + L.rb_text_ring;
	uint32_t count_bits = ps_load_u32(c, dr + L.dr_count_bits);
	uint32_t size_bits = ps_load_u32(c, tr + L.tr_size_bits);
	uint64_t descs = ps_load_ptr(c, dr + L.dr_descs), infos = ps_load_ptr(c, dr + L.dr_infos);
	uint64_t head = load_ulong(c, dr + L.dr_head_id + L.al_counter);
	uint64_t tail = load_ulong(c, dr + L.dr_tail_id + L.al_counter);
	uint64_t data = ps_load_ptr(c, tr + L.tr_data);
	if (count_bits < 1 || count_bits > KLOG_MAX_BITS) {
		ps_set_err(err, "kernel log (%s): implausible descriptor ring size 2^%" PRIu32 " (count_bits)", lay,
			   count_bits);
		goto out;
	}
	if (size_bits < 4 || size_bits > KLOG_MAX_BITS) {
		ps_set_err(err, "kernel log (%s): implausible text ring size 2^%" PRIu32 " (size_bits)", lay,
			   size_bits);
		goto out;
	}
	if ((head & ~id_mask) || (tail & ~id_mask)) {
		ps_set_err(err, "kernel log (%s): head_id 0x%" PRIx64 " or tail_id 0x%" PRIx64
			   " has state bits set: not descriptor ids", lay, head, tail);
		goto out;
	}
	const uint64_t count = UINT64_C(1) << count_bits;
	/* count <= 2^28 and the sizes <= 4096: no product overflows 64 bits. */
	const uint64_t descs_len = count * L.d_size, infos_len = count * L.i_size;
	if (!descs || !infos || !data || descs_len > ulmask || descs > ulmask - descs_len ||
	    infos_len > ulmask || infos > ulmask - infos_len || data > ulmask - (UINT64_C(1) << size_bits)) {
		ps_set_err(err, "kernel log (%s): descs 0x%" PRIx64 ", infos 0x%" PRIx64 " or data 0x%" PRIx64
			   " cannot hold the rings", lay, descs, infos, data);
		goto out;
	}
	/* A text block holds its id and at most text_len (u16) bytes: the largest read. */
	text = malloc(ul + 0x10000);
	if (!text) {
		ps_set_err(err, "kernel log: out of memory");
		goto out;
	}

	uint64_t span = (head - tail) & id_mask;
	if (span >= count) {
		/* The kernel keeps head - tail below the ring's size: read the newest ids only. */
		st->range_clamped = true;
		if (!st->first_problem[0])
			snprintf(st->first_problem, sizeof st->first_problem,
				 "tail_id 0x%" PRIx64 " is %" PRIu64 " ids behind head_id 0x%" PRIx64
				 " in a ring of %" PRIu64, tail, span, head, count);
		span = count - 1;
		tail = (head - span) & id_mask;
	}
	for (uint64_t i = 0; i <= span; i++) {
		const uint64_t id = (tail + i) & id_mask, idx = id & (count - 1);
		rs = ps_kread(c, descs + idx * L.d_size, dbuf, L.d_size);
		if (rs != PS_READ_OK) {
			lost(st, &st->bad_desc, "descriptor %" PRIu64 " unreadable: %s", idx, ps_read_status_name(rs));
			continue;
		}
		const uint64_t sv = load_ulong(c, dbuf + L.d_state_var + L.al_counter);
		if ((sv & id_mask) != id) {
			lost(st, &st->bad_desc, "descriptor %" PRIu64 " holds id 0x%" PRIx64 ", expected 0x%" PRIx64,
			     idx, sv & id_mask, id);
			continue;
		}
		switch ((unsigned)(sv >> state_shift) & 3u) {
		case 0:
			lost(st, &st->reserved, "record id 0x%" PRIx64 " was being written (reserved)", id);
			continue;
		case 3:
			st->free++; /* recycled or never used: not a record */
			continue;
		default: /* committed, finalized */
			break;
		}
		rs = ps_kread(c, infos + idx * L.i_size, ibuf, L.i_size);
		if (rs != PS_READ_OK) {
			lost(st, &st->bad_desc, "printk_info %" PRIu64 " unreadable: %s", idx, ps_read_status_name(rs));
			continue;
		}
		struct ps_klog_entry e = {
			.seq = ps_load_u64(c, ibuf + L.i_seq),
			.ts_nsec = ps_load_u64(c, ibuf + L.i_ts_nsec),
			.facility = ibuf[L.i_text_len + 2],
			.level = level_of(c, ibuf[L.i_text_len + 3]),
			.caller_id = ps_load_u32(c, ibuf + L.i_caller_id),
			.text = "",
		};
		const uint64_t text_len = ps_load_u16(c, ibuf + L.i_text_len);
		const uint8_t *lp = dbuf + L.d_text_blk_lpos;
		const uint64_t begin = load_ulong(c, lp + L.lp_begin), next = load_ulong(c, lp + L.lp_next);
		uint64_t off = 0, size = 0;
		const char *why = "";
		switch (prb_block(begin, next, size_bits, ul, &off, &size, &why)) {
		case BLK_EMPTY:
			if (text_len) {
				lost(st, &st->bad_text, "record seq %" PRIu64 ": text_len %" PRIu64 " but no data block",
				     e.seq, text_len);
				continue;
			}
			break;
		case BLK_NODATA:
			lost(st, &st->no_text, "record seq %" PRIu64 ": %s", e.seq, why);
			continue;
		case BLK_BAD:
			lost(st, &st->bad_text, "record seq %" PRIu64 ": %s (begin 0x%" PRIx64 ", next 0x%" PRIx64 ")",
			     e.seq, why, begin, next);
			continue;
		case BLK_OK:
			if (text_len > size - ul) {
				lost(st, &st->bad_text, "record seq %" PRIu64 ": text_len %" PRIu64
				     " is larger than its %" PRIu64 "-byte data block", e.seq, text_len, size - ul);
				continue;
			}
			rs = ps_kread(c, data + off, text, ul + text_len);
			if (rs != PS_READ_OK) {
				lost(st, &st->bad_text, "record seq %" PRIu64 ": text at 0x%" PRIx64 " unreadable: %s",
				     e.seq, data + off, ps_read_status_name(rs));
				continue;
			}
			if (load_ulong(c, text) != id) {
				lost(st, &st->bad_text, "record seq %" PRIu64 ": its data block holds id 0x%" PRIx64
				     ", expected 0x%" PRIx64, e.seq, load_ulong(c, text), id);
				continue;
			}
			e.text = (const char *)text + ul;
			e.text_len = (size_t)text_len;
			break;
		}
		if (emit(arg, &e) != 0) {
			ps_set_err(err, "stopped");
			goto out;
		}
		st->records++;
	}
	ret = st->skipped || st->range_clamped ? 1 : 0;
out:
	free(hdr);
	free(dbuf);
	free(ibuf);
	free(text);
	return ret;
}

/* ---- log_buf (before 5.10) --------------------------------------------------------------- */

/* log_buf's bytes, read page by page: OK[k] says whether chunk k (page-aligned in the
 * kernel's address space) could be read. */
struct logbuf {
	uint8_t *buf;
	uint64_t len, va;
	uint8_t *ok;
	uint32_t page;
};

static bool lb_readable(const struct logbuf *b, uint64_t off, uint64_t n)
{
	if (n == 0)
		return true;
	uint64_t first = ((b->va & (b->page - 1)) + off) / b->page;
	uint64_t last = ((b->va & (b->page - 1)) + off + n - 1) / b->page;
	for (uint64_t k = first; k <= last; k++)
		if (!b->ok[k])
			return false;
	return true;
}

static int read_log_buf(struct ps_core *c, ps_klog_emit_fn emit, void *arg, struct ps_klog_stats *st,
			char **err)
{
	static const char *const lay = "log_buf";
	uint64_t hsize, o_ts, o_len, o_text;
	if (vmci_need(c, lay, "SIZE(printk_log)", &hsize, err) != 0 ||
	    vmci_need(c, lay, "OFFSET(printk_log.ts_nsec)", &o_ts, err) != 0 ||
	    vmci_need(c, lay, "OFFSET(printk_log.len)", &o_len, err) != 0 ||
	    vmci_need(c, lay, "OFFSET(printk_log.text_len)", &o_text, err) != 0)
		return -1;
	/* text_len is followed by dict_len (u16), facility (u8) and the flags/level byte. */
	const struct fit fits[] = {
		{ "OFFSET(printk_log.ts_nsec)", o_ts, 8, "SIZE(printk_log)", hsize },
		{ "OFFSET(printk_log.len)", o_len, 2, "SIZE(printk_log)", hsize },
		{ "OFFSET(printk_log.text_len)", o_text, 6, "SIZE(printk_log)", hsize },
	};
	if (check_fits(lay, fits, sizeof fits / sizeof fits[0], err) != 0)
		return -1;
	if (o_text != o_len + 2) {
		ps_set_err(err, "kernel log (%s): printk_log.text_len at %" PRIu64 " does not follow len at %" PRIu64
			   ": facility and level are not where this reader knows them", lay, o_text, o_len);
		return -1;
	}
	uint64_t s_buf, s_len, s_first, s_next, s_seq;
	if (need_symbol(c, lay, "log_buf", &s_buf, err) != 0 ||
	    need_symbol(c, lay, "log_buf_len", &s_len, err) != 0 ||
	    need_symbol(c, lay, "log_first_idx", &s_first, err) != 0 ||
	    need_symbol(c, lay, "log_next_idx", &s_next, err) != 0)
		return -1;
	uint64_t va;
	uint32_t len, first, next;
	enum ps_read_status rs;
	if ((rs = ps_kread_ptr(c, s_buf, &va)) != PS_READ_OK || (rs = ps_kread_u32(c, s_len, &len)) != PS_READ_OK ||
	    (rs = ps_kread_u32(c, s_first, &first)) != PS_READ_OK ||
	    (rs = ps_kread_u32(c, s_next, &next)) != PS_READ_OK) {
		ps_set_err(err, "kernel log (%s): cannot read log_buf, log_buf_len, log_first_idx or "
			   "log_next_idx: %s", lay, ps_read_status_name(rs));
		return -1;
	}
	if (len < hsize || len > KLOG_MAX_LOG_BUF || !va || va > UINT64_MAX - len) {
		ps_set_err(err, "kernel log (%s): implausible log_buf 0x%" PRIx64 " of %" PRIu32 " bytes", lay, va, len);
		return -1;
	}
	if (first >= len || next >= len) {
		ps_set_err(err, "kernel log (%s): log_first_idx %" PRIu32 " or log_next_idx %" PRIu32
			   " lies outside log_buf's %" PRIu32 " bytes", lay, first, next, len);
		return -1;
	}
	/* The sequence number of the first record (optional: numbered from 0 without it). */
	uint64_t seq = 0;
	if (ps_core_symbol_by_name(c, "log_first_seq", &s_seq) != 0 || ps_kread_u64(c, s_seq, &seq) != PS_READ_OK)
		seq = 0;

	struct logbuf b = { .len = len, .va = va, .page = c->page_size };
	uint64_t nchunks = ((va & (b.page - 1)) + len + b.page - 1) / b.page;
	b.buf = malloc(len);
	b.ok = calloc(nchunks, 1);
	if (!b.buf || !b.ok) {
		free(b.buf);
		free(b.ok);
		ps_set_err(err, "kernel log: out of memory for log_buf's %" PRIu32 " bytes", len);
		return -1;
	}
	uint64_t readable = 0;
	for (uint64_t off = 0, k = 0; off < len; k++) {
		uint64_t n = b.page - ((va + off) & (b.page - 1));
		if (n > len - off)
			n = len - off;
		b.ok[k] = ps_kread(c, va + off, b.buf + off, n) == PS_READ_OK;
		readable += b.ok[k] ? n : 0;
		off += n;
	}
	if (!readable) {
		ps_set_err(err, "kernel log (%s): none of log_buf's %" PRIu32 " bytes at 0x%" PRIx64
			   " is in the dump", lay, len, va);
		free(b.buf);
		free(b.ok);
		return -1;
	}

	/* From first to next: each record at most once (a record is at least a header long),
	 * at most one wrap to index 0. */
	const uint64_t max_steps = len / hsize + 2;
	uint64_t idx = first, steps = 0;
	bool wrapped = false;
	int ret = -1;
	while (idx != next) {
		if (++steps > max_steps) {
			st->walk_stopped = true;
			lost(st, NULL, "more records than log_buf can hold: the index chain loops");
			break;
		}
		if (idx == len && !wrapped) { /* a record ended at the very end */
			idx = 0;
			wrapped = true;
			continue;
		}
		if (idx + hsize > len || !lb_readable(&b, idx, hsize)) {
			st->walk_stopped = true;
			lost(st, NULL, "record header at log_buf index %" PRIu64 " %s", idx,
			     idx + hsize > len ? "runs past the buffer" : "is not in the dump");
			break;
		}
		const uint8_t *h = b.buf + idx;
		const uint64_t rlen = ps_load_u16(c, h + o_len);
		if (rlen == 0) { /* the end-of-buffer marker: go on at index 0 */
			if (wrapped || first <= next) {
				st->walk_stopped = true;
				lost(st, NULL, "a second end-of-buffer marker at log_buf index %" PRIu64, idx);
				break;
			}
			idx = 0;
			wrapped = true;
			continue;
		}
		if (rlen < hsize || idx + rlen > len || ((wrapped || first <= next) && idx + rlen > next)) {
			st->walk_stopped = true;
			lost(st, NULL, "record at log_buf index %" PRIu64 ": length %" PRIu64 " %s", idx, rlen,
			     rlen < hsize ? "is shorter than its header" :
			     idx + rlen > len ? "runs past the buffer" : "runs past log_next_idx");
			break;
		}
		const uint64_t text_len = ps_load_u16(c, h + o_text);
		struct ps_klog_entry e = {
			.seq = seq++,
			.ts_nsec = ps_load_u64(c, h + o_ts),
			.facility = h[o_text + 4],
			.level = level_of(c, h[o_text + 5]),
			.text = (const char *)h + hsize,
			.text_len = (size_t)text_len,
		};
		if (text_len > rlen - hsize) {
			lost(st, &st->bad_text, "record seq %" PRIu64 ": text_len %" PRIu64 " is larger than its %" PRIu64
			     "-byte record", e.seq, text_len, rlen - hsize);
		} else if (!lb_readable(&b, idx + hsize, text_len)) {
			lost(st, &st->bad_text, "record seq %" PRIu64 ": text not in the dump", e.seq);
		} else {
			if (emit(arg, &e) != 0) {
				ps_set_err(err, "stopped");
				goto out;
			}
			st->records++;
		}
		idx += rlen;
	}
	ret = st->skipped ? 1 : 0;
out:
	free(b.buf);
	free(b.ok);
	return ret;
}

/* ---- entry points ---------------------------------------------------------------------- */

int ps_klog_read(struct ps_core *c, ps_klog_emit_fn emit, void *arg, struct ps_klog_stats *st,
		 char **err)
{
	struct ps_klog_stats local;
	if (!st)
		st = &local;
	memset(st, 0, sizeof *st);
	uint64_t sym;
	/* VMCOREINFO says which layout the kernel has; without either SYMBOL() line, whichever
	 * layout's OFFSET() lines it has, with the symbol from kallsyms. */
	bool prb = ps_core_vmcoreinfo(c, "SYMBOL(prb)") != NULL;
	bool logbuf = !prb && ps_core_vmcoreinfo(c, "SYMBOL(log_buf)") != NULL;
	if (!prb && !logbuf) {
		prb = ps_core_vmcoreinfo(c, "OFFSET(printk_info.seq)") != NULL;
		logbuf = !prb && ps_core_vmcoreinfo(c, "OFFSET(printk_log.len)") != NULL;
	}
	if (prb) {
		st->layout = "printk_ringbuffer";
		if (need_symbol(c, st->layout, "prb", &sym, err) != 0)
			return -1;
		return read_prb(c, sym, emit, arg, st, err);
	}
	if (logbuf) {
		st->layout = "log_buf";
		return read_log_buf(c, emit, arg, st, err);
	}
	if (!ps_core_vmcoreinfo(c, "OSRELEASE") && !ps_core_vmcoreinfo(c, "PAGESIZE"))
		ps_set_err(err, "kernel log: the dump has no VMCOREINFO, which says where the log is and how it is laid out");
	else
		ps_set_err(err, "kernel log: VMCOREINFO has neither SYMBOL(prb) (Linux 5.10+) nor SYMBOL(log_buf) "
			   "(older kernels)");
	return -1;
}

int ps_walker_klog(struct ps_walker *w, ps_klog_emit_fn emit, void *arg, struct ps_klog_stats *st,
		   char **err)
{
	return ps_klog_read(&w->c, emit, arg, st, err);
}
