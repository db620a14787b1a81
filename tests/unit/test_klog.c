/* test_klog.c - unit tests of walker/klog.c: the kernel log read from synthetic memory.
 *
 * The target is a ps_core over a flat byte image (read_kvirt: no page tables) in each byte
 * order and word size. Both layouts are written the way the kernel writes them:
 *   - the lockless ringbuffer (5.10+): a model that reserves descriptors and data blocks by
 *     the ringbuffer's rules (ids and logical positions starting where the kernel's static
 *     ring starts, just below the top of unsigned long, so both wrap; a block that would
 *     cross the end of the array is stored at its start; pushing the tails recycles the
 *     oldest records), with enough records that both rings wrap several times;
 *   - log_buf (< 5.10): printk_log headers + text + dict, LOG_ALIGN, the zero-length
 *     end-of-buffer marker, the oldest records dropped for room.
 * Each test checks the exact decoded records (seq, time, level, facility, caller, text)
 * against the model's surviving ones, then corrupts one thing at a time: ids that do not
 * match, garbage descriptors, head/tail too far apart, reserved records, text_len beyond the
 * block, bad positions, a block's own id, unreadable pages, implausible ring sizes, missing
 * VMCOREINFO lines; log_buf lengths beyond the buffer, a broken chain, text_len beyond the
 * record. Never a crash (the ASan build runs this too), always the counts expected.
 *
 * Prints "FAIL: file:line: ..." per failed check and "test_klog: N checks, M failed".
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core.h"
#include "klog.h"

/* ---- a flat target --------------------------------------------------------------------- */

#define MEM_SIZE (1u << 20)
#define MAX_VMCI 64

struct mem {
	uint64_t base;             /* kernel-virtual address of img[0] */
	uint8_t img[MEM_SIZE];
	bool bad_page[MEM_SIZE / 4096]; /* reads touching these pages fail */
	bool big_endian;
	unsigned ptr;
	char keys[MAX_VMCI][64], vals[MAX_VMCI][32];
	unsigned nvmci;
};

static enum ps_read_status mem_read_phys(void *ctx, uint64_t pa, void *buf, size_t len)
{
	(void)ctx, (void)pa, (void)buf, (void)len;
	return PS_READ_NODATA; /* everything is read kernel-virtually */
}

static enum ps_read_status mem_read_kvirt(void *ctx, uint64_t va, void *buf, size_t len)
{
	struct mem *m = ctx;
	if (va < m->base || va - m->base > MEM_SIZE || len > MEM_SIZE - (va - m->base))
		return PS_READ_NODATA;
	uint64_t off = va - m->base;
	for (uint64_t p = off / 4096; len && p <= (off + len - 1) / 4096; p++)
		if (m->bad_page[p])
			return PS_READ_EXCLUDED;
	memcpy(buf, m->img + off, len);
	return PS_READ_OK;
}

static const char *mem_vmcoreinfo(void *ctx, const char *key)
{
	struct mem *m = ctx;
	for (unsigned i = 0; i < m->nvmci; i++)
		if (strcmp(m->keys[i], key) == 0)
			return m->vals[i];
	return NULL;
}

static const struct ps_target_ops mem_ops = {
	.read_phys = mem_read_phys,
	.read_kvirt = mem_read_kvirt,
	.vmcoreinfo = mem_vmcoreinfo,
};

static void vmci_set(struct mem *m, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void vmci_set(struct mem *m, const char *key, const char *fmt, ...)
{
	unsigned i = 0;
	while (i < m->nvmci && strcmp(m->keys[i], key) != 0)
		i++;
	if (i == m->nvmci) {
		if (m->nvmci == MAX_VMCI)
			abort();
		m->nvmci++;
	}
	snprintf(m->keys[i], sizeof m->keys[i], "%s", key);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m->vals[i], sizeof m->vals[i], fmt, ap);
	va_end(ap);
}

static void vmci_del(struct mem *m, const char *key)
{
	for (unsigned i = 0; i < m->nvmci; i++)
		if (strcmp(m->keys[i], key) == 0) {
			m->keys[i][0] = 0;
			return;
		}
}

static void put(struct mem *m, uint64_t va, uint64_t v, unsigned size)
{
	uint64_t off = va - m->base;
	if (off + size > MEM_SIZE)
		abort();
	for (unsigned i = 0; i < size; i++)
		m->img[off + i] = (uint8_t)(m->big_endian ? v >> (8 * (size - 1 - i)) : v >> (8 * i));
}

static uint64_t get(const struct mem *m, uint64_t va, unsigned size)
{
	uint64_t off = va - m->base, v = 0;
	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)m->img[off + i] << (8 * (m->big_endian ? size - 1 - i : i));
	return v;
}

static void core_init(struct ps_core *c, struct mem *m)
{
	memset(c, 0, sizeof *c);
	c->t = (struct ps_target){ .ops = &mem_ops, .ctx = m, .arch = m->ptr == 8 ? "x86_64" : "arm",
				   .big_endian = m->big_endian, .ptr_size = m->ptr, .page_size = 4096 };
	c->arch = ps_arch_find(c->t.arch);
	c->big_endian = m->big_endian;
	c->ptr_size = m->ptr;
	c->page_size = 4096;
	c->page_shift = 12;
	c->kallsyms_tried = true; /* no kallsyms: a symbol is in VMCOREINFO or absent */
}

/* ---- what the reader emits ----------------------------------------------------------- */

struct rec {
	uint64_t seq, ts;
	unsigned level, facility;
	uint32_t caller;
	char text[200];
	size_t len;
};

struct got {
	struct rec r[256];
	unsigned n;
	unsigned stop_after; /* emit returns 1 after this many (0: never) */
};

static int collect(void *arg, const struct ps_klog_entry *e)
{
	struct got *g = arg;
	if (g->n < 256 && e->text_len <= sizeof g->r[0].text) {
		struct rec *r = &g->r[g->n];
		r->seq = e->seq, r->ts = e->ts_nsec, r->level = e->level, r->facility = e->facility;
		r->caller = e->caller_id;
		memcpy(r->text, e->text, e->text_len);
		r->len = e->text_len;
	}
	g->n++;
	return g->stop_after && g->n >= g->stop_after;
}

static int read_log(struct mem *m, struct got *g, struct ps_klog_stats *st, char **err)
{
	struct ps_core c;
	core_init(&c, m);
	unsigned stop = g->stop_after;
	memset(g, 0, sizeof *g);
	g->stop_after = stop;
	free(*err);
	*err = NULL;
	return ps_klog_read(&c, collect, g, st, err);
}

/* The message texts: lengths from 0 to ~90 bytes, multi-line ones, control bytes. */
static size_t msg_text(unsigned i, char *buf)
{
	switch (i % 7) {
	case 0: return (size_t)sprintf(buf, "message %u", i);
	case 1: return (size_t)sprintf(buf, "line one of %u\nline two\nline three", i);
	case 2: return (size_t)sprintf(buf, "tab\there, bell \a and escape \x1b[0m in %u", i);
	case 3: return 0; /* an empty message */
	case 4: return (size_t)sprintf(buf, "%u: a longer message that takes a good part of the data ring to store", i);
	case 5: return (size_t)sprintf(buf, "x%u", i);
	default: return (size_t)sprintf(buf, "utf-8 \xc3\xa9t\xc3\xa9 %u", i);
	}
}

static void expect_rec(const struct got *g, unsigned k, const struct rec *want, const char *what)
{
	if (!CHECK(k < g->n, "%s: record %u missing (%u read)", what, k, g->n))
		return;
	const struct rec *r = &g->r[k];
	CHECK(r->seq == want->seq && r->ts == want->ts && r->level == want->level &&
		      r->facility == want->facility && r->caller == want->caller && r->len == want->len &&
		      memcmp(r->text, want->text, r->len) == 0,
	      "%s: record %u: seq %" PRIu64 " ts %" PRIu64 " level %u facility %u caller %#x '%.*s', expected "
	      "seq %" PRIu64 " ts %" PRIu64 " level %u facility %u caller %#x '%.*s'", what, k, r->seq, r->ts,
	      r->level, r->facility, r->caller, (int)r->len, r->text, want->seq, want->ts, want->level,
	      want->facility, want->caller, (int)want->len, want->text);
}

/* ---- the lockless ringbuffer model ------------------------------------------------------ */

/* Layout (the x86_64 6.1 kernel's, scaled to the word size). */
struct prb {
	struct mem *m;
	unsigned ul, count_bits, size_bits;
	uint64_t count, dsize, ulmask, id_mask;
	uint64_t prb_sym, rb, descs, infos, data;
	/* struct offsets */
	unsigned d_size, i_size, o_head, o_tail, o_count_bits, o_descs, o_infos, tr, o_size_bits,
		o_data, o_head_lpos, o_tail_lpos;
	/* the writer's state */
	uint64_t head_id, tail_id, head_lpos, tail_lpos, next_seq;
	unsigned stored_at_start; /* blocks that would have crossed the end of the array */
	struct rec model[1024]; /* by id & (count - 1): what each live descriptor holds */
};

#define I_SEQ 0
#define I_TS 8
#define I_TEXT_LEN 16
#define I_CALLER 20

static uint64_t desc_va(const struct prb *p, uint64_t id) { return p->descs + (id & (p->count - 1)) * p->d_size; }
static uint64_t info_va(const struct prb *p, uint64_t id) { return p->infos + (id & (p->count - 1)) * p->i_size; }

static void prb_vmcoreinfo(struct prb *p)
{
	struct mem *m = p->m;
	unsigned ul = p->ul;
	vmci_set(m, "SYMBOL(prb)", "%" PRIx64, p->prb_sym);
	vmci_set(m, "SIZE(printk_ringbuffer)", "%u", 6 * ul + 4 * ul + ul + 8);
	vmci_set(m, "OFFSET(printk_ringbuffer.desc_ring)", "0");
	vmci_set(m, "OFFSET(printk_ringbuffer.text_data_ring)", "%u", p->tr);
	vmci_set(m, "SIZE(prb_desc_ring)", "%u", 6 * ul);
	vmci_set(m, "OFFSET(prb_desc_ring.count_bits)", "%u", p->o_count_bits);
	vmci_set(m, "OFFSET(prb_desc_ring.descs)", "%u", p->o_descs);
	vmci_set(m, "OFFSET(prb_desc_ring.infos)", "%u", p->o_infos);
	vmci_set(m, "OFFSET(prb_desc_ring.head_id)", "%u", p->o_head);
	vmci_set(m, "OFFSET(prb_desc_ring.tail_id)", "%u", p->o_tail);
	vmci_set(m, "SIZE(prb_desc)", "%u", p->d_size);
	vmci_set(m, "OFFSET(prb_desc.state_var)", "0");
	vmci_set(m, "OFFSET(prb_desc.text_blk_lpos)", "%u", ul);
	vmci_set(m, "SIZE(prb_data_blk_lpos)", "%u", 2 * ul);
	vmci_set(m, "OFFSET(prb_data_blk_lpos.begin)", "0");
	vmci_set(m, "OFFSET(prb_data_blk_lpos.next)", "%u", ul);
	vmci_set(m, "SIZE(printk_info)", "%u", p->i_size);
	vmci_set(m, "OFFSET(printk_info.seq)", "%u", I_SEQ);
	vmci_set(m, "OFFSET(printk_info.ts_nsec)", "%u", I_TS);
	vmci_set(m, "OFFSET(printk_info.text_len)", "%u", I_TEXT_LEN);
	vmci_set(m, "OFFSET(printk_info.caller_id)", "%u", I_CALLER);
	vmci_set(m, "SIZE(prb_data_ring)", "%u", 4 * ul);
	vmci_set(m, "OFFSET(prb_data_ring.size_bits)", "0");
	vmci_set(m, "OFFSET(prb_data_ring.data)", "%u", ul);
	vmci_set(m, "OFFSET(prb_data_ring.head_lpos)", "%u", 2 * ul);
	vmci_set(m, "OFFSET(prb_data_ring.tail_lpos)", "%u", 3 * ul);
	vmci_set(m, "SIZE(atomic_long_t)", "%u", ul);
	vmci_set(m, "OFFSET(atomic_long_t.counter)", "0");
}

static void prb_store_header(struct prb *p)
{
	struct mem *m = p->m;
	put(m, p->rb + p->o_count_bits, p->count_bits, 4);
	put(m, p->rb + p->o_descs, p->descs, p->ul);
	put(m, p->rb + p->o_infos, p->infos, p->ul);
	put(m, p->rb + p->o_head, p->head_id, p->ul);
	put(m, p->rb + p->o_tail, p->tail_id, p->ul);
	put(m, p->rb + p->tr + p->o_size_bits, p->size_bits, 4);
	put(m, p->rb + p->tr + p->o_data, p->data, p->ul);
	put(m, p->rb + p->tr + p->o_head_lpos, p->head_lpos, p->ul);
	put(m, p->rb + p->tr + p->o_tail_lpos, p->tail_lpos, p->ul);
}

static void set_desc(struct prb *p, uint64_t id, unsigned state, uint64_t begin, uint64_t next)
{
	uint64_t d = desc_va(p, id);
	put(p->m, d, (uint64_t)state << (p->ul * 8 - 2) | id, p->ul);
	put(p->m, d + p->ul, begin, p->ul);
	put(p->m, d + 2 * p->ul, next, p->ul);
}

static void prb_init(struct prb *p, struct mem *m, unsigned count_bits, unsigned size_bits)
{
	memset(p, 0, sizeof *p);
	p->m = m;
	p->ul = m->ptr;
	p->count_bits = count_bits, p->size_bits = size_bits;
	p->count = UINT64_C(1) << count_bits, p->dsize = UINT64_C(1) << size_bits;
	p->ulmask = p->ul == 8 ? UINT64_MAX : UINT32_MAX;
	p->id_mask = p->ulmask >> 2;
	p->d_size = 3 * p->ul;
	p->i_size = 88;
	p->o_count_bits = 0, p->o_descs = p->ul, p->o_infos = 2 * p->ul, p->o_head = 3 * p->ul,
	p->o_tail = 4 * p->ul;
	p->tr = 6 * p->ul;
	p->o_size_bits = 0, p->o_data = p->ul, p->o_head_lpos = 2 * p->ul, p->o_tail_lpos = 3 * p->ul;
	p->prb_sym = m->base + 0x100;
	p->rb = m->base + 0x200;
	p->descs = m->base + 0x1000;
	p->infos = p->descs + 0x10000;
	p->data = m->base + 0x40000;
	put(m, p->prb_sym, p->rb, p->ul);
	/* As the kernel's static ring starts: ids just below the top of the id space, the
	 * last descriptor a reusable placeholder, positions one ring below 0. */
	p->head_id = p->tail_id = (UINT64_C(0) - (p->count + 1)) & p->id_mask;
	p->head_lpos = p->tail_lpos = (UINT64_C(0) - p->dsize) & p->ulmask;
	set_desc(p, p->head_id, 3, 1, 1);
	prb_vmcoreinfo(p);
	prb_store_header(p);
}

/* Recycle the oldest record (the kernel pushing the descriptor tail). */
static void push_tail(struct prb *p)
{
	uint64_t d = desc_va(p, p->tail_id);
	uint64_t next = get(p->m, d + 2 * p->ul, p->ul);
	set_desc(p, p->tail_id, 3, get(p->m, d + p->ul, p->ul), next);
	if (!(next & 1))
		p->tail_lpos = next;
	p->tail_id = (p->tail_id + 1) & p->id_mask;
}

/* Append one finalized record as printk would. */
static void prb_add(struct prb *p, const char *text, size_t len, unsigned level, unsigned facility,
		    uint64_t ts, uint32_t caller)
{
	const uint64_t id = (p->head_id + 1) & p->id_mask;
	if (((id - p->count) & p->id_mask) == p->tail_id)
		push_tail(p); /* the descriptor ring is full */
	uint64_t begin = p->head_lpos, next = begin;
	if (len) {
		uint64_t size = (p->ul + len + p->ul - 1) & ~(uint64_t)(p->ul - 1);
		next = (begin + size) & p->ulmask;
		uint64_t off = begin & (p->dsize - 1);
		if ((begin >> p->size_bits) != (next >> p->size_bits)) {
			next = ((next & ~(p->dsize - 1)) + size) & p->ulmask; /* stored at the start */
			off = 0;
			p->stored_at_start++;
		}
		while (((next - p->tail_lpos) & p->ulmask) > p->dsize && p->tail_id != p->head_id)
			push_tail(p); /* make room in the data ring */
		put(p->m, p->data + off, id, p->ul);
		memcpy(p->m->img + (p->data + off + p->ul - p->m->base), text, len);
		p->head_lpos = next;
	}
	set_desc(p, id, 2, len ? begin : 3, len ? next : 3);
	uint64_t info = info_va(p, id);
	memset(p->m->img + (info - p->m->base), 0, p->i_size);
	put(p->m, info + I_SEQ, p->next_seq, 8);
	put(p->m, info + I_TS, ts, 8);
	put(p->m, info + I_TEXT_LEN, len, 2);
	put(p->m, info + I_TEXT_LEN + 2, facility, 1);
	/* flags:5 level:3 as GCC allocates them: from the LSB (LE) or the MSB (BE) */
	put(p->m, info + I_TEXT_LEN + 3, p->m->big_endian ? (0x2u << 3) | level : (level << 5) | 0x2u, 1);
	put(p->m, info + I_CALLER, caller, 4);
	struct rec *r = &p->model[id & (p->count - 1)];
	*r = (struct rec){ .seq = p->next_seq, .ts = ts, .level = level, .facility = facility, .caller = caller,
			   .len = len };
	memcpy(r->text, text, len);
	p->next_seq++;
	p->head_id = id;
	prb_store_header(p);
}

/* The records the model says are readable, oldest first. */
static unsigned prb_expected(const struct prb *p, struct rec *out)
{
	unsigned n = 0;
	for (uint64_t id = p->tail_id;; id = (id + 1) & p->id_mask) {
		uint64_t sv = get(p->m, desc_va(p, id), p->ul);
		if ((sv >> (p->ul * 8 - 2)) == 2)
			out[n++] = p->model[id & (p->count - 1)];
		if (id == p->head_id)
			break;
	}
	return n;
}

static void fill_prb(struct prb *p, unsigned nrec)
{
	char text[200];
	for (unsigned i = 0; i < nrec; i++) {
		size_t len = msg_text(i, text);
		prb_add(p, text, len, i % 8, i % 11 == 10 ? 1 : 0, UINT64_C(1000000) * i + 123456789u * (i % 3),
			i % 5 ? 0x80000000u | (i % 4) : i);
	}
}

static void check_all(const struct prb *p, const struct got *g, const char *what)
{
	struct rec *want = calloc(1024, sizeof *want);
	unsigned n = prb_expected(p, want);
	CHECK(g->n == n, "%s: %u records read, the model has %u", what, g->n, n);
	for (unsigned k = 0; k < n && k < g->n; k++)
		expect_rec(g, k, &want[k], what);
	free(want);
}

static void test_prb_layout(bool be, unsigned ptr)
{
	char what[64];
	snprintf(what, sizeof what, "prb %s %u-bit", be ? "BE" : "LE", ptr * 8);
	struct mem *m = calloc(1, sizeof *m);
	struct prb *p = calloc(1, sizeof *p);
	struct got *g = calloc(1, sizeof *g);
	struct ps_klog_stats st;
	char *err = NULL;
	m->base = ptr == 8 ? UINT64_C(0xffffffff81000000) : UINT64_C(0xc1000000);
	m->big_endian = be;
	m->ptr = ptr;

	/* A fresh ring: nothing but the placeholder. */
	prb_init(p, m, 4, 10); /* 16 descriptors, 1 KiB of text */
	CHECK(read_log(m, g, &st, &err) == 0 && g->n == 0 && st.free == 1 && st.skipped == 0,
	      "%s: empty ring: %u records, free %" PRIu64 ", err %s", what, g->n, st.free, err ? err : "-");
	CHECK_STR(st.layout, "printk_ringbuffer");

	/* Not yet wrapped: every record. */
	fill_prb(p, 9);
	int rc = read_log(m, g, &st, &err);
	CHECK(rc == 0, "%s: 9 records: rc %d (%s)", what, rc, err ? err : st.first_problem);
	CHECK(g->n == 9 && st.records == 9 && st.free == 1, "%s: %u records, free %" PRIu64, what, g->n, st.free);
	check_all(p, g, what);

	/* Up to the first block stored at the start of the array: its begin is in the ring's
	 * first lap, just below 2^(word size), its next past 0. */
	char text[200];
	unsigned added = 9;
	while (!p->stored_at_start && added < 100) {
		size_t len = msg_text(4, text); /* the long one */
		prb_add(p, text, len, 4, 0, UINT64_C(1000000) * added, 0);
		added++;
	}
	rc = read_log(m, g, &st, &err);
	CHECK(p->stored_at_start == 1 && rc == 0 && st.skipped == 0 && g->n > 0 && g->r[g->n - 1].seq == added - 1,
	      "%s: first wrapped block: rc %d, %u records, the last seq %" PRIu64 " (%s)", what, rc, g->n,
	      g->n ? g->r[g->n - 1].seq : 0, err ? err : st.first_problem);
	check_all(p, g, what);

	/* Many more: both rings wrap several times, the positions and ids past 2^bits. */
	fill_prb(p, 200);
	rc = read_log(m, g, &st, &err);
	CHECK(rc == 0 && st.skipped == 0, "%s: wrapped: rc %d (%s)", what, rc, err ? err : st.first_problem);
	CHECK(p->head_id < 256, "%s: the ids did not wrap (head 0x%" PRIx64 ")", what, p->head_id);
	CHECK(p->head_lpos < p->dsize * 64, "%s: the positions did not wrap past 0 (0x%" PRIx64 ")", what,
	      p->head_lpos);
	CHECK(p->stored_at_start > 2, "%s: only %u blocks were stored at the start of the array", what,
	      p->stored_at_start);
	CHECK(g->n >= 8, "%s: only %u records survive", what, g->n);
	check_all(p, g, what);
	CHECK(g->n > 0 && g->r[g->n - 1].seq == added + 199, "%s: the last record is seq %" PRIu64, what,
	      g->n ? g->r[g->n - 1].seq : 0);

	/* The emit callback stops the read. */
	g->stop_after = 2;
	rc = read_log(m, g, &st, &err);
	CHECK(rc == -1 && g->n == 2 && err && strcmp(err, "stopped") == 0, "%s: stop: rc %d n %u", what, rc, g->n);
	g->stop_after = 0;

	/* Corruptions, one at a time, each undone. The oldest live id, and a middle one. */
	const uint64_t t = p->tail_id, h = p->head_id;
	uint64_t mid = (t + ((h - t) & p->id_mask) / 2) & p->id_mask;
	rc = read_log(m, g, &st, &err);
	const unsigned base_n = g->n;
	uint64_t dmid = desc_va(p, mid), imid = info_va(p, mid);
	uint64_t sv = get(m, dmid, ptr);

	/* 1. The descriptor holds another id (recycled, or garbage). */
	put(m, dmid, (sv & ~p->id_mask) | ((mid + 5 * p->count) & p->id_mask), ptr);
	rc = read_log(m, g, &st, &err);
	CHECK(rc == 1 && st.bad_desc == 1 && st.skipped == 1 && g->n == base_n - 1,
	      "%s: id mismatch: rc %d bad_desc %" PRIu64 " n %u/%u", what, rc, st.bad_desc, g->n, base_n);
	CHECK_CONTAINS(st.first_problem, "expected");
	/* 2. Reserved (a writer in progress). */
	put(m, dmid, mid, ptr);
	rc = read_log(m, g, &st, &err);
	CHECK(rc == 1 && st.reserved == 1 && g->n == base_n - 1, "%s: reserved: rc %d", what, rc);
	/* 3. Committed (not yet finalized) is a record. */
	put(m, dmid, (UINT64_C(1) << (ptr * 8 - 2)) | mid, ptr);
	rc = read_log(m, g, &st, &err);
	CHECK(rc == 0 && g->n == base_n, "%s: committed: rc %d n %u", what, rc, g->n);
	put(m, dmid, sv, ptr);
	/* 4. text_len larger than the block, or than any block. */
	uint64_t tl = get(m, imid + I_TEXT_LEN, 2);
	uint64_t b = get(m, dmid + ptr, ptr), nx = get(m, dmid + 2 * ptr, ptr);
	if (!(b & 1)) {
		put(m, imid + I_TEXT_LEN, tl + 2 * ptr, 2);
		rc = read_log(m, g, &st, &err);
		CHECK(rc == 1 && st.bad_text == 1 && g->n == base_n - 1, "%s: text_len > block: rc %d bad_text %" PRIu64,
		      what, rc, st.bad_text);
		put(m, imid + I_TEXT_LEN, 0xffff, 2);
		rc = read_log(m, g, &st, &err);
		CHECK(rc == 1 && st.bad_text == 1, "%s: text_len 0xffff: rc %d", what, rc);
		put(m, imid + I_TEXT_LEN, tl, 2);
		/* 5. Positions that are not one block; unaligned; the block's id. */
		put(m, dmid + ptr, (nx + p->dsize * 3) & p->ulmask, ptr);
		rc = read_log(m, g, &st, &err);
		CHECK(rc == 1 && st.bad_text == 1, "%s: begin after next: rc %d", what, rc);
		put(m, dmid + ptr, b + 2, ptr);
		rc = read_log(m, g, &st, &err);
		CHECK(rc == 1 && st.bad_text == 1, "%s: unaligned: rc %d", what, rc);
		CHECK_CONTAINS(st.first_problem, "aligned");
		put(m, dmid + ptr, b, ptr);
		uint64_t off = (b >> p->size_bits) == (nx >> p->size_bits) ? (b & (p->dsize - 1)) : 0;
		uint64_t bid = get(m, p->data + off, ptr);
		put(m, p->data + off, bid ^ 0x40, ptr);
		rc = read_log(m, g, &st, &err);
		CHECK(rc == 1 && st.bad_text == 1, "%s: block id: rc %d", what, rc);
		CHECK_CONTAINS(st.first_problem, "data block holds id");
		put(m, p->data + off, bid, ptr);
		/* 6. No data block: the kernel had no room (FAILED_LPOS). */
		put(m, dmid + ptr, 1, ptr);
		put(m, dmid + 2 * ptr, 1, ptr);
		rc = read_log(m, g, &st, &err);
		CHECK(rc == 1 && st.no_text == 1, "%s: FAILED_LPOS: rc %d no_text %" PRIu64, what, rc, st.no_text);
		/* NO_LPOS with a text length: invalid. */
		put(m, dmid + ptr, 3, ptr);
		put(m, dmid + 2 * ptr, 3, ptr);
		rc = read_log(m, g, &st, &err);
		CHECK(rc == (tl ? 1 : 0) && st.bad_text == (tl ? 1u : 0u), "%s: NO_LPOS, text_len %" PRIu64 ": rc %d",
		      what, tl, rc);
		put(m, dmid + ptr, b, ptr);
		put(m, dmid + 2 * ptr, nx, ptr);
	}
	/* 7. Unreadable pages: the text ring, the descriptors. */
	m->bad_page[(p->data - m->base) / 4096] = true;
	rc = read_log(m, g, &st, &err);
	CHECK(rc == 1 && st.bad_text > 0 && st.bad_text + g->n == base_n, "%s: text unreadable: rc %d", what, rc);
	CHECK_CONTAINS(st.first_problem, "unreadable");
	m->bad_page[(p->data - m->base) / 4096] = false;
	m->bad_page[(p->descs - m->base) / 4096] = true;
	rc = read_log(m, g, &st, &err);
	CHECK(rc == 1 && g->n == 0 && st.bad_desc == p->count, "%s: descs unreadable: rc %d n %u bad %" PRIu64, what,
	      rc, g->n, st.bad_desc);
	m->bad_page[(p->descs - m->base) / 4096] = false;
	/* 8. Head and tail further apart than the ring (a cyclic or garbage tail): the newest
	 *    count ids are read, flagged. */
	put(m, p->rb + p->o_tail, (h + 1) & p->id_mask, ptr);
	rc = read_log(m, g, &st, &err);
	CHECK(rc == 1 && st.range_clamped && g->n <= base_n + 1 && st.records + st.skipped + st.free == p->count,
	      "%s: tail ahead of head: rc %d n %u clamped %d", what, rc, g->n, st.range_clamped);
	put(m, p->rb + p->o_tail, t, ptr);
	/* 9. Every descriptor garbage: nothing read, everything counted, no hang. */
	uint8_t *saved = malloc(p->count * p->d_size);
	memcpy(saved, m->img + (p->descs - m->base), p->count * p->d_size);
	srand(7);
	for (uint64_t i = 0; i < p->count * p->d_size; i++)
		m->img[p->descs - m->base + i] = (uint8_t)rand();
	rc = read_log(m, g, &st, &err);
	CHECK(rc == 1 && st.records + st.skipped + st.free == ((h - t) & p->id_mask) + 1,
	      "%s: garbage descriptors: rc %d records %" PRIu64 " skipped %" PRIu64, what, rc, st.records, st.skipped);
	memcpy(m->img + (p->descs - m->base), saved, p->count * p->d_size);
	free(saved);
	/* 10. Implausible sizes, ids with state bits, pointers that cannot hold the rings. */
	put(m, p->rb + p->o_count_bits, 29, 4);
	rc = read_log(m, g, &st, &err);
	CHECK(rc == -1 && err && strstr(err, "count_bits"), "%s: count_bits 29: rc %d %s", what, rc, err ? err : "");
	put(m, p->rb + p->o_count_bits, p->count_bits, 4);
	put(m, p->rb + p->tr + p->o_size_bits, 40, 4);
	rc = read_log(m, g, &st, &err);
	CHECK(rc == -1 && err && strstr(err, "size_bits"), "%s: size_bits 40: rc %d", what, rc);
	put(m, p->rb + p->tr + p->o_size_bits, p->size_bits, 4);
	put(m, p->rb + p->o_head, h | ~p->id_mask, ptr);
	rc = read_log(m, g, &st, &err);
	CHECK(rc == -1 && err && strstr(err, "state bits"), "%s: head_id with state bits: rc %d", what, rc);
	put(m, p->rb + p->o_head, h, ptr);
	put(m, p->rb + p->o_descs, p->ulmask - 8, ptr);
	rc = read_log(m, g, &st, &err);
	CHECK(rc == -1 && err && strstr(err, "cannot hold"), "%s: descs at the top: rc %d", what, rc);
	put(m, p->rb + p->o_descs, p->descs, ptr);
	put(m, p->prb_sym, m->base + MEM_SIZE + 0x1000, ptr);
	rc = read_log(m, g, &st, &err);
	CHECK(rc == -1 && err && strstr(err, "not in dump"), "%s: prb pointing outside: rc %d %s", what, rc,
	      err ? err : "");
	put(m, p->prb_sym, p->rb, ptr);
	/* 11. VMCOREINFO: a missing line is named; a member outside its struct; the facility
	 *     and level bytes where this reader does not know them. */
	vmci_del(m, "OFFSET(printk_info.seq)");
	rc = read_log(m, g, &st, &err);
	CHECK(rc == -1 && err && strstr(err, "no OFFSET(printk_info.seq) line"), "%s: missing line: %s", what,
	      err ? err : "");
	vmci_set(m, "OFFSET(printk_info.seq)", "%d", I_SEQ);
	vmci_set(m, "OFFSET(prb_desc.text_blk_lpos)", "%u", 2 * ptr);
	rc = read_log(m, g, &st, &err);
	CHECK(rc == -1 && err && strstr(err, "lies outside SIZE(prb_desc)"), "%s: member outside: %s", what,
	      err ? err : "");
	vmci_set(m, "OFFSET(prb_desc.text_blk_lpos)", "%u", ptr);
	vmci_set(m, "OFFSET(printk_info.caller_id)", "24");
	rc = read_log(m, g, &st, &err);
	CHECK(rc == -1 && err && strstr(err, "facility and level"), "%s: caller_id moved: %s", what, err ? err : "");
	vmci_set(m, "OFFSET(printk_info.caller_id)", "%d", I_CALLER);
	vmci_set(m, "SIZE(printk_info)", "99999");
	rc = read_log(m, g, &st, &err);
	CHECK(rc == -1 && err && strstr(err, "implausible"), "%s: SIZE 99999: %s", what, err ? err : "");
	vmci_set(m, "SIZE(printk_info)", "%u", p->i_size);
	/* All restored: the same records as before. */
	rc = read_log(m, g, &st, &err);
	CHECK(rc == 0 && g->n == base_n, "%s: restored: rc %d n %u/%u (%s)", what, rc, g->n, base_n,
	      err ? err : st.first_problem);
	check_all(p, g, what);

	free(err);
	free(g);
	free(p);
	free(m);
}

/* ---- log_buf (before 5.10) ------------------------------------------------------------- */

#define LB_HDR 16   /* struct printk_log without caller_id */
#define LB_ALIGN 8

struct lb {
	struct mem *m;
	uint64_t buf, len, sym_buf, sym_len, sym_first, sym_next, sym_seq;
	uint32_t first, next;
	uint64_t first_seq, next_seq;
	struct rec live[256];
	uint32_t live_idx[256];
	unsigned nlive;
};

static void lb_store(struct lb *l)
{
	put(l->m, l->sym_first, l->first, 4);
	put(l->m, l->sym_next, l->next, 4);
	put(l->m, l->sym_seq, l->first_seq, 8);
}

static void lb_init(struct lb *l, struct mem *m, uint32_t len)
{
	memset(l, 0, sizeof *l);
	l->m = m;
	l->len = len;
	l->buf = m->base + 0x8000;
	l->sym_buf = m->base + 0x100, l->sym_len = m->base + 0x110, l->sym_first = m->base + 0x120;
	l->sym_next = m->base + 0x130, l->sym_seq = m->base + 0x140;
	put(m, l->sym_buf, l->buf, m->ptr);
	put(m, l->sym_len, len, 4);
	vmci_set(m, "SYMBOL(log_buf)", "%" PRIx64, l->sym_buf);
	vmci_set(m, "SYMBOL(log_buf_len)", "%" PRIx64, l->sym_len);
	vmci_set(m, "SYMBOL(log_first_idx)", "%" PRIx64, l->sym_first);
	vmci_set(m, "SYMBOL(log_next_idx)", "%" PRIx64, l->sym_next);
	vmci_set(m, "SYMBOL(log_first_seq)", "%" PRIx64, l->sym_seq);
	vmci_set(m, "SIZE(printk_log)", "%d", LB_HDR);
	vmci_set(m, "OFFSET(printk_log.ts_nsec)", "0");
	vmci_set(m, "OFFSET(printk_log.len)", "8");
	vmci_set(m, "OFFSET(printk_log.text_len)", "10");
	lb_store(l);
}

/* Room for SIZE bytes plus an end marker at next, as the kernel checks. */
static bool lb_room(const struct lb *l, uint64_t size)
{
	if (l->nlive == 0)
		return true;
	uint64_t free_bytes;
	if (l->next > l->first)
		free_bytes = l->len - l->next > l->first ? l->len - l->next : l->first;
	else
		free_bytes = l->first - l->next;
	return free_bytes >= size + LB_HDR;
}

static void lb_drop_oldest(struct lb *l)
{
	uint64_t rlen = get(l->m, l->buf + l->first + 8, 2);
	if (rlen == 0) { /* the marker: the oldest is at 0 */
		l->first = 0;
		rlen = get(l->m, l->buf + 8, 2);
	}
	l->first += (uint32_t)rlen;
	l->first_seq++;
	memmove(l->live, l->live + 1, (l->nlive - 1) * sizeof l->live[0]);
	memmove(l->live_idx, l->live_idx + 1, (l->nlive - 1) * sizeof l->live_idx[0]);
	l->nlive--;
	if (l->nlive == 0)
		l->first = l->next;
}

static void lb_add(struct lb *l, const char *text, size_t len, unsigned level, uint64_t ts)
{
	const char dict[] = "SUBSYSTEM=test";
	size_t dlen = level % 2 ? sizeof dict - 1 : 0;
	uint64_t size = (LB_HDR + len + dlen + LB_ALIGN - 1) & ~(uint64_t)(LB_ALIGN - 1);
	while (!lb_room(l, size))
		lb_drop_oldest(l);
	if (l->next + size + LB_HDR > l->len) {
		memset(l->m->img + (l->buf - l->m->base) + l->next, 0, LB_HDR); /* end marker */
		l->next = 0;
		while (l->nlive && !lb_room(l, size))
			lb_drop_oldest(l);
	}
	uint64_t at = l->buf + l->next;
	memset(l->m->img + (at - l->m->base), 0xee, size); /* padding the kernel leaves alone */
	put(l->m, at, ts, 8);
	put(l->m, at + 8, size, 2);
	put(l->m, at + 10, len, 2);
	put(l->m, at + 12, dlen, 2);
	put(l->m, at + 14, 0, 1);
	put(l->m, at + 15, l->m->big_endian ? (0x2u << 3) | level : (level << 5) | 0x2u, 1);
	memcpy(l->m->img + (at - l->m->base) + LB_HDR, text, len);
	memcpy(l->m->img + (at - l->m->base) + LB_HDR + len, dict, dlen);
	if (l->nlive == 0)
		l->first = l->next;
	l->live_idx[l->nlive] = l->next;
	struct rec *r = &l->live[l->nlive++];
	*r = (struct rec){ .seq = l->next_seq++, .ts = ts, .level = level, .len = len };
	memcpy(r->text, text, len);
	l->next += (uint32_t)size;
	lb_store(l);
}

static void lb_check(const struct lb *l, const struct got *g, const char *what)
{
	CHECK(g->n == l->nlive, "%s: %u records read, the model has %u", what, g->n, l->nlive);
	for (unsigned k = 0; k < l->nlive && k < g->n; k++)
		expect_rec(g, k, &l->live[k], what);
}

static void test_log_buf(bool be, unsigned ptr)
{
	char what[64];
	snprintf(what, sizeof what, "log_buf %s %u-bit", be ? "BE" : "LE", ptr * 8);
	struct mem *m = calloc(1, sizeof *m);
	struct lb *l = calloc(1, sizeof *l);
	struct got *g = calloc(1, sizeof *g);
	struct ps_klog_stats st;
	char *err = NULL, text[200];
	m->base = ptr == 8 ? UINT64_C(0xffffffff81000000) : UINT64_C(0xc1000000);
	m->big_endian = be;
	m->ptr = ptr;
	lb_init(l, m, 512);

	int rc = read_log(m, g, &st, &err);
	CHECK(rc == 0 && g->n == 0, "%s: empty: rc %d n %u %s", what, rc, g->n, err ? err : "");
	CHECK_STR(st.layout, "log_buf");
	for (unsigned i = 0; i < 5; i++)
		lb_add(l, text, msg_text(i, text), i % 8, 1000u * i);
	rc = read_log(m, g, &st, &err);
	CHECK(rc == 0, "%s: 5 records: rc %d (%s)", what, rc, err ? err : st.first_problem);
	lb_check(l, g, what);
	/* Wrapped many times; the walk crosses the end marker. */
	unsigned nadd = 5;
	for (; nadd < 60 || (l->first < l->next && nadd < 300); nadd++) /* until it ends wrapped */
		lb_add(l, text, msg_text(nadd, text), nadd % 8, 1000u * nadd);
	CHECK(l->first > l->next, "%s: the model did not end wrapped (first %u next %u)", what, l->first, l->next);
	rc = read_log(m, g, &st, &err);
	CHECK(rc == 0 && st.skipped == 0, "%s: wrapped: rc %d (%s)", what, rc, err ? err : st.first_problem);
	lb_check(l, g, what);
	CHECK(g->n && g->r[g->n - 1].seq == nadd - 1, "%s: last seq", what);
	const unsigned base_n = g->n;

	/* Corruptions. A record in the middle (after the wrap when there is one). */
	uint32_t at = l->live_idx[l->nlive - 2];
	uint64_t hdr = l->buf + at, rlen = get(m, hdr + 8, 2), tl = get(m, hdr + 10, 2);
	/* text_len beyond the record: that record skipped, the walk goes on. */
	put(m, hdr + 10, rlen, 2);
	rc = read_log(m, g, &st, &err);
	CHECK(rc == 1 && st.bad_text == 1 && g->n == base_n - 1 && !st.walk_stopped, "%s: text_len > len: rc %d", what,
	      rc);
	put(m, hdr + 10, tl, 2);
	/* A length past the buffer, shorter than a header, past log_next_idx: the walk stops. */
	put(m, hdr + 8, 0xfff8, 2);
	rc = read_log(m, g, &st, &err);
	CHECK(rc == 1 && st.walk_stopped && g->n == base_n - 2, "%s: len past the buffer: rc %d n %u", what, rc, g->n);
	CHECK_CONTAINS(st.first_problem, "runs past");
	put(m, hdr + 8, 4, 2);
	rc = read_log(m, g, &st, &err);
	CHECK(rc == 1 && st.walk_stopped, "%s: len < header: rc %d", what, rc);
	put(m, hdr + 8, rlen, 2);
	uint64_t last = l->buf + l->live_idx[l->nlive - 1], lastlen = get(m, last + 8, 2);
	put(m, last + 8, lastlen + LB_ALIGN, 2);
	rc = read_log(m, g, &st, &err);
	CHECK(rc == 1 && st.walk_stopped && g->n == base_n - 1, "%s: record past log_next_idx: rc %d n %u", what,
	      rc, g->n);
	put(m, last + 8, lastlen, 2);
	/* log_next_idx not on a record: stopped at the record that crosses it. */
	put(m, l->sym_next, l->next - LB_ALIGN, 4);
	rc = read_log(m, g, &st, &err);
	CHECK(rc == 1 && st.walk_stopped && g->n == base_n - 1, "%s: next inside a record: rc %d n %u", what, rc, g->n);
	/* Indices outside the buffer; log_buf_len implausible: errors. */
	put(m, l->sym_next, 4096, 4);
	rc = read_log(m, g, &st, &err);
	CHECK(rc == -1 && err && strstr(err, "outside"), "%s: next outside: rc %d", what, rc);
	put(m, l->sym_next, l->next, 4);
	put(m, l->sym_len, 0x40000000, 4);
	rc = read_log(m, g, &st, &err);
	CHECK(rc == -1 && err && strstr(err, "implausible"), "%s: log_buf_len 1 GiB: rc %d", what, rc);
	put(m, l->sym_len, l->len, 4);
	/* Garbage everywhere: a bounded walk, never a crash. */
	uint8_t saved[512];
	memcpy(saved, m->img + (l->buf - m->base), sizeof saved);
	srand(11);
	for (unsigned round = 0; round < 200; round++) {
		for (unsigned i = 0; i < 512; i++)
			m->img[l->buf - m->base + i] = (uint8_t)(rand() % 4 ? rand() % 24 : rand());
		rc = read_log(m, g, &st, &err);
		CHECK(rc == 0 || rc == 1, "%s: garbage round %u: rc %d", what, round, rc);
	}
	/* A chain of zero-length markers (a loop through index 0) stops. */
	memset(m->img + (l->buf - m->base), 0, 512);
	put(m, l->sym_first, 256, 4);
	put(m, l->sym_next, 128, 4);
	rc = read_log(m, g, &st, &err);
	CHECK(rc == 1 && st.walk_stopped && g->n == 0, "%s: markers only: rc %d", what, rc);
	CHECK_CONTAINS(st.first_problem, "second end-of-buffer marker");
	memcpy(m->img + (l->buf - m->base), saved, sizeof saved);
	lb_store(l);
	/* Hand-made: a record that ends exactly at the end of the buffer (no room for a marker;
	 * the kernel always leaves some, a reader must not depend on it), then one at 0. */
	memset(m->img + (l->buf - m->base), 0, 512);
	put(m, l->buf + 448, 777, 8);
	put(m, l->buf + 448 + 8, 64, 2);
	put(m, l->buf + 448 + 10, 5, 2);
	memcpy(m->img + (l->buf - m->base) + 448 + LB_HDR, "at448", 5);
	put(m, l->buf + 0, 778, 8);
	put(m, l->buf + 8, 24, 2);
	put(m, l->buf + 10, 3, 2);
	put(m, l->buf + 15, be ? 3 : 3u << 5, 1);
	memcpy(m->img + (l->buf - m->base) + LB_HDR, "at0", 3);
	put(m, l->sym_first, 448, 4);
	put(m, l->sym_next, 24, 4);
	rc = read_log(m, g, &st, &err);
	CHECK(rc == 0 && g->n == 2 && g->r[0].ts == 777 && g->r[0].len == 5 && memcmp(g->r[0].text, "at448", 5) == 0 &&
		      g->r[1].ts == 778 && g->r[1].level == 3 && memcmp(g->r[1].text, "at0", 3) == 0,
	      "%s: record ending at the end: rc %d n %u (%s)", what, rc, g->n, st.first_problem);
	memcpy(m->img + (l->buf - m->base), saved, sizeof saved);
	lb_store(l);
	/* The log_buf page unreadable: an error when nothing of it is in the dump. */
	m->bad_page[(l->buf - m->base) / 4096] = true;
	rc = read_log(m, g, &st, &err);
	CHECK(rc == -1 && err && strstr(err, "none of log_buf"), "%s: unreadable: rc %d", what, rc);
	m->bad_page[(l->buf - m->base) / 4096] = false;
	/* Missing VMCOREINFO line; a symbol missing. */
	vmci_del(m, "OFFSET(printk_log.text_len)");
	rc = read_log(m, g, &st, &err);
	CHECK(rc == -1 && err && strstr(err, "OFFSET(printk_log.text_len)"), "%s: missing line: %s", what,
	      err ? err : "");
	vmci_set(m, "OFFSET(printk_log.text_len)", "10");
	vmci_del(m, "SYMBOL(log_next_idx)");
	rc = read_log(m, g, &st, &err);
	CHECK(rc == -1 && err && strstr(err, "log_next_idx not found"), "%s: missing symbol: %s", what, err ? err : "");
	vmci_set(m, "SYMBOL(log_next_idx)", "%" PRIx64, l->sym_next);
	/* Without log_first_seq: numbered from 0. */
	vmci_del(m, "SYMBOL(log_first_seq)");
	rc = read_log(m, g, &st, &err);
	CHECK(rc == 0 && g->n == base_n && g->r[0].seq == 0, "%s: no log_first_seq: rc %d seq %" PRIu64, what, rc,
	      g->n ? g->r[0].seq : 99);
	vmci_set(m, "SYMBOL(log_first_seq)", "%" PRIx64, l->sym_seq);
	rc = read_log(m, g, &st, &err);
	CHECK(rc == 0, "%s: restored: rc %d", what, rc);
	lb_check(l, g, what);

	free(err);
	free(g);
	free(l);
	free(m);
}

/* No layout at all: one clear line. */
static void test_no_log(void)
{
	struct mem *m = calloc(1, sizeof *m);
	struct got g = { .n = 0 };
	struct ps_klog_stats st;
	char *err = NULL;
	m->ptr = 8;
	m->base = UINT64_C(0xffffffff81000000);
	CHECK(read_log(m, &g, &st, &err) == -1 && err && strstr(err, "no VMCOREINFO"), "no VMCOREINFO: %s",
	      err ? err : "");
	vmci_set(m, "OSRELEASE", "6.1.0");
	CHECK(read_log(m, &g, &st, &err) == -1 && err && strstr(err, "neither SYMBOL(prb)"), "no layout: %s",
	      err ? err : "");
	free(err);
	free(m);
}

int main(void)
{
	for (int be = 0; be <= 1; be++)
		for (unsigned ptr = 4; ptr <= 8; ptr += 4) {
			test_prb_layout(be, ptr);
			test_log_buf(be, ptr);
		}
	test_no_log();
	CHECK_STR(ps_klog_level_name(4), "warn");
	CHECK(ps_klog_level_name(8) == NULL, "level 8 has no name");
	return check_summary("test_klog");
}
