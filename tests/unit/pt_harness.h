/* pt_harness.h - the synthetic dump and the walk recorder shared by the page-table unit tests
 * (test_pgtable.c, and one test_arch_*.c per MMU file).
 *
 * A fake dump is a set of 4 KiB physical pages written entry by entry (each test says what
 * every entry is), VMCOREINFO lines, and per-page read statuses; it serves struct
 * ps_target_ops. The recorder keeps the events of ps_pt_walk so a test can assert each one
 * (kind, VA, pages, span) with CHECK_EV. Each test file still builds its own ps_target: the
 * architecture, word size and page size are what the file tests.
 */
#ifndef PAGESLEUTH_PT_HARNESS_H
#define PAGESLEUTH_PT_HARNESS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "arch.h"
#include "check.h"
#include "target.h"

/* ---- the synthetic dump ---------------------------------------------------------------- */

#define FAKE_PAGES 256

struct fake_page {
	uint64_t pa;
	enum ps_read_status status; /* OK, EXCLUDED or NODATA */
	uint8_t data[4096];
};

struct fake {
	struct fake_page pages[FAKE_PAGES];
	unsigned npages;
	uint64_t ram_end;   /* pages never written below this read as zeros; 0: as not in the dump */
	const char *vmci[48][2];
	char strs[48][64];
	unsigned nvmci;
	bool big_endian;    /* the byte order fake_put writes in */
	unsigned reads;     /* read_phys calls */
	uint64_t bytes_read;
};

/* The page holding PA; CREATE adds it (zeroed, readable) when missing. */
static inline struct fake_page *fake_page(struct fake *f, uint64_t pa, bool create)
{
	pa &= ~UINT64_C(0xfff);
	for (unsigned i = 0; i < f->npages; i++)
		if (f->pages[i].pa == pa)
			return &f->pages[i];
	if (!create || f->npages == FAKE_PAGES)
		return NULL;
	struct fake_page *p = &f->pages[f->npages++];
	memset(p, 0, sizeof *p);
	p->pa = pa;
	p->status = PS_READ_OK;
	return p;
}

static inline void put_bytes(struct fake *f, uint64_t pa, const void *src, size_t len)
{
	const uint8_t *s = src;
	while (len) {
		struct fake_page *p = fake_page(f, pa, true);
		size_t n = 4096 - (pa & 0xfff);
		if (n > len)
			n = len;
		memcpy(p->data + (pa & 0xfff), s, n);
		pa += n, s += n, len -= n;
	}
}

/* A SIZE-byte value at PA in f->big_endian order. */
static inline void fake_put(struct fake *f, uint64_t pa, uint64_t v, unsigned size)
{
	uint8_t b[8];
	for (unsigned i = 0; i < size; i++)
		b[i] = (uint8_t)(f->big_endian ? v >> (8 * (size - 1 - i)) : v >> (8 * i));
	put_bytes(f, pa, b, size);
}
#define put32(f, pa, v) fake_put(f, pa, v, 4)
#define put64(f, pa, v) fake_put(f, pa, v, 8)

/* Reads of the page at PA answer ST (EXCLUDED, NODATA) instead of its bytes. */
static inline void fake_mark(struct fake *f, uint64_t pa, enum ps_read_status st)
{
	fake_page(f, pa, true)->status = st;
}

static inline void vmci(struct fake *f, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline void vmci(struct fake *f, const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->strs[f->nvmci], sizeof f->strs[0], fmt, ap);
	va_end(ap);
	f->vmci[f->nvmci][0] = key;
	f->vmci[f->nvmci][1] = f->strs[f->nvmci];
	f->nvmci++;
}

static inline enum ps_read_status fake_read_phys(void *ctx, uint64_t pa, void *buf, size_t len)
{
	struct fake *f = ctx;
	uint8_t *out = buf;
	f->reads++;
	f->bytes_read += len;
	while (len) {
		size_t n = 4096 - (pa & 0xfff);
		if (n > len)
			n = len;
		struct fake_page *p = fake_page(f, pa, false);
		if (p && p->status != PS_READ_OK)
			return p->status;
		if (p)
			memcpy(out, p->data + (pa & 0xfff), n);
		else if (pa < f->ram_end)
			memset(out, 0, n);
		else
			return PS_READ_NODATA;
		pa += n, out += n, len -= n;
	}
	return PS_READ_OK;
}

static inline const char *fake_vmcoreinfo(void *ctx, const char *key)
{
	struct fake *f = ctx;
	for (unsigned i = 0; i < f->nvmci; i++)
		if (strcmp(f->vmci[i][0], key) == 0)
			return f->vmci[i][1];
	return NULL;
}

static const struct ps_target_ops fake_ops = {
	.read_phys = fake_read_phys,
	.vmcoreinfo = fake_vmcoreinfo,
};

/* ---- recording walk events ------------------------------------------------------------- */

struct ev {
	enum ps_pt_event ev;
	uint64_t va, npages;
	unsigned shift;
	struct ps_pt_entry e;
};

struct evlist {
	struct ev ev[64];
	unsigned n;
	unsigned stop_after; /* > 0: the visit stops the walk (returns 7) after this many */
};

static inline int record(void *arg, enum ps_pt_event ev, uint64_t va, uint64_t npages,
			 unsigned shift, const struct ps_pt_entry *e)
{
	struct evlist *l = arg;
	if (l->n < 64)
		l->ev[l->n++] = (struct ev){ ev, va, npages, shift, *e };
	if (l->stop_after && l->n >= l->stop_after)
		return 7;
	return 0;
}

/* The PTE letters of P ("wxuad-e-"), in one of 8 rotating buffers. */
static char letters_buf[8][PS_PTE_NBITS + 1];
static unsigned letters_next;
static inline const char *letters(struct ps_pte p)
{
	char *b = letters_buf[letters_next++ % 8];
	ps_pte_format(p, b);
	return b;
}

#define CHECK_EV(l, i, kind, va_, np, sh)                                                      \
	do {                                                                                   \
		if (CHECK((i) < (l).n, "event %u missing (only %u)", (unsigned)(i), (l).n)) {    \
			CHECK_U64((l).ev[i].ev, kind);                                         \
			CHECK_U64((l).ev[i].va, va_);                                          \
			CHECK_U64((l).ev[i].npages, np);                                       \
			CHECK_U64((l).ev[i].shift, sh);                                        \
		}                                                                              \
	} while (0)

#endif
