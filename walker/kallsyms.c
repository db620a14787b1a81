/* kallsyms.c - the kernel's own symbol table, decoded from the dump.
 *
 * The tables (scripts/kallsyms.c writes them into .rodata, kernel/kallsyms.c reads them):
 *   kallsyms_num_syms     the symbol count (.long, or PTR before 6.x)
 *   kallsyms_names        per symbol: a length byte, then that many token indices. Since
 *                         6.1 (commit 73bbb94466fd) a length with bit 7 set is "big": the
 *                         next byte holds bits 7-14.
 *   kallsyms_markers      the offset in kallsyms_names of every 256th symbol
 *   kallsyms_token_table  NUL-terminated strings; kallsyms_token_index: u16[256] offsets
 *                         into it. The expanded name's first character is the type (T, D..).
 *   and the addresses in one of four forms (struct ksym_form below).
 *
 * Where the tables are: Linux 6.0+ lists them in VMCOREINFO (commit 5fd8fea935a1). Older
 * kernels (5.4-5.19 LTS on boards and distributions) do not, but the tables are in the dump
 * all the same: they are found by their structure from VMCOREINFO's _stext, see
 * locate_by_structure. Either way, the address form is checked against VMCOREINFO's
 * SYMBOL(_stext) and the table's own order (it is sorted by address), so a misread table
 * is refused, never used.
 *
 * Everything read is bounded: symbol count, name length, table sizes, scan length.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

#define KSYMS_MAX_SYMS (1u << 22)          /* 4M: an allmodconfig kernel has ~300k */
#define KSYMS_MAX_NAMES (64u << 20)        /* bytes of compressed names */
#define KSYMS_MAX_NAME 1024                /* expanded; KSYM_NAME_LEN is 512 in 6.1 */
#define TOKEN_COPY 16                      /* see decode_names */
#define KSYMS_MAX_ENTRY 258                /* bytes of one compressed name: 2 + 256 tokens */
#define KSYMS_SCAN_SPAN (UINT64_C(256) << 20) /* from _stext: text, rodata (a big kernel ~60 MiB) */
#define KSYMS_MAX_HOLE (UINT64_C(16) << 20)   /* unmapped bytes that end the image */

struct ps_kallsyms {
	uint32_t nsyms;
	char *arena;        /* "Tname\0" per symbol */
	uint32_t *name_off; /* offset of the type character in arena */
	uint64_t *addr;
	/* Look-ups by name: an extraction makes ~70, so each scans the names' hashes (one
	 * sequential array); a table of them is built only after LINEAR_LOOKUPS (building it
	 * for 150,000 names was a sixth of a kdump extraction's start-up, in cache misses). */
	uint32_t *name_hash; /* per symbol: name_hash() of its name without the type letter */
	uint32_t lookups;
	uint32_t *hash;     /* open addressing: symbol index + 1, 0 = empty */
	uint32_t *hfull;    /* each slot's full name hash: most probes end without a strcmp */
	uint32_t hmask;
};

/* How kallsyms_sym_address() turns a table entry into an address (kernel/kallsyms.c):
 *  - KS_ADDRESSES: kallsyms_addresses[], PTR-sized absolute values (no
 *    KALLSYMS_BASE_RELATIVE; the option is gone since 6.11, commit 64e166099b69);
 *  - KS_BASE_RELATIVE: int kallsyms_offsets[] from kallsyms_relative_base; with
 *    KALLSYMS_ABSOLUTE_PERCPU (x86_64 SMP before 6.15) non-negative entries are absolute
 *    and negative ones mean relative_base - 1 - entry;
 *  - KS_PC_RELATIVE: no relative base (7.0, "kallsyms: Get rid of kallsyms relative base"):
 *    each entry is place-relative, address = &kallsyms_offsets[i] + entry;
 *  - KS_ABSOLUTE_U32: the same kernels when 32-bit and not relocatable store the value. */
enum ksym_addr_kind { KS_ADDRESSES, KS_BASE_RELATIVE, KS_PC_RELATIVE, KS_ABSOLUTE_U32 };

struct ksym_form {
	enum ksym_addr_kind kind;
	uint64_t table; /* kallsyms_addresses or kallsyms_offsets */
	uint64_t base;  /* kallsyms_relative_base (KS_BASE_RELATIVE) */
};

struct ksym_tables {
	uint64_t num, names, ttab, tidx;
	struct ksym_form form[10]; /* candidates, tried in order */
	unsigned nforms;
	const char *found_by;     /* "VMCOREINFO" or "a search from _stext" */
};

void ps_kallsyms_free(struct ps_kallsyms *k)
{
	if (!k)
		return;
	free(k->arena);
	free(k->name_off);
	free(k->addr);
	free(k->name_hash);
	free(k->hash);
	free(k->hfull);
	free(k);
}

/* The N bytes of a name, eight at a time (a byte-serial hash was a third of the decode). */
static uint32_t name_hash_n(const char *s, size_t n)
{
	uint64_t h = UINT64_C(0x9e3779b97f4a7c15) ^ n, w;
	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * UINT64_C(0xff51afd7ed558ccd);
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, s, n);
	h = (h ^ w) * UINT64_C(0xc4ceb9fe1a85ec53);
	return (uint32_t)(h ^ h >> 29);
}

static uint32_t name_hash(const char *s)
{
	return name_hash_n(s, strlen(s));
}

static bool sym(struct ps_core *c, const char *name, uint64_t *out)
{
	char key[64];
	snprintf(key, sizeof key, "SYMBOL(%s)", name);
	return ps_core_vmcoreinfo_u64(c, key, out) && *out;
}

static inline uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

static void add_form(struct ksym_tables *t, enum ksym_addr_kind kind, uint64_t table, uint64_t base)
{
	if (t->nforms < sizeof t->form / sizeof t->form[0] && table)
		t->form[t->nforms++] = (struct ksym_form){ kind, table, base };
}

/* ---- where the tables are: VMCOREINFO ------------------------------------------------------ */

/* 1: listed (T filled), 0: not listed, -1: listed but incomplete (c->err). */
static int locate_by_vmcoreinfo(struct ps_core *c, struct ksym_tables *t)
{
	/* Each lookup runs (no short circuit): which of them are missing is said below. */
	int listed = (int)sym(c, "kallsyms_num_syms", &t->num) + (int)sym(c, "kallsyms_names", &t->names) +
		     (int)sym(c, "kallsyms_token_table", &t->ttab) + (int)sym(c, "kallsyms_token_index", &t->tidx);
	if (!listed)
		return 0;
	if (!t->num || !t->names || !t->ttab || !t->tidx)
		return ps_core_fail(c, "kallsyms: VMCOREINFO lists only some of the kallsyms tables");
	uint64_t offs = 0, base = 0, addrs = 0;
	bool have_offs = sym(c, "kallsyms_offsets", &offs);
	bool have_base = sym(c, "kallsyms_relative_base", &base);
	if (have_offs && have_base) {
		add_form(t, KS_BASE_RELATIVE, offs, base);
	} else if (have_offs) {
		add_form(t, KS_PC_RELATIVE, offs, 0);
		if (c->ptr_size == 4)
			add_form(t, KS_ABSOLUTE_U32, offs, 0);
	} else if (sym(c, "kallsyms_addresses", &addrs)) {
		add_form(t, KS_ADDRESSES, addrs, 0);
	} else {
		return ps_core_fail(c, "kallsyms: neither kallsyms_offsets nor kallsyms_addresses in VMCOREINFO");
	}
	t->found_by = "VMCOREINFO";
	return 1;
}

/* ---- where the tables are: their structure ---------------------------------------------------- */

/* Tokens that are single characters keep their character's index (scripts/kallsyms.c
 * starts from one token per character used and only replaces unused indices with
 * pairs), and every kernel's symbols use all ten digits: tokens 0x30-0x39 are "0".."9",
 * consecutive in kallsyms_token_table. */
static const char digit_tokens[20] = "0\0" "1\0" "2\0" "3\0" "4\0" "5\0" "6\0" "7\0" "8\0" "9";

/* Is there a kallsyms_token_index after the digit tokens found at P (BUF holds the
 * target's bytes from BUF_VA, LEN of them)? Fills t->ttab and t->tidx. */
static bool check_token_index(struct ps_core *c, const uint8_t *buf, uint64_t buf_va, size_t len,
			      size_t p, struct ksym_tables *t)
{
	/* The index follows the table (ALGN: 2-, 4- or 8-byte aligned); the table is a few
	 * KiB: tokens up to 0x2f before the digits, up to 0xff after. */
	for (size_t q = (p + 20 + 1) & ~(size_t)1; q + 512 <= len && q < p + 32768; q += 2) {
		if (ps_load_u16(c, buf + q) != 0)
			continue;
		uint16_t i30 = ps_load_u16(c, buf + q + 2 * 0x30);
		if (i30 > p)
			continue;
		bool ok = true;
		for (int d = 1; d < 10 && ok; d++)
			ok = ps_load_u16(c, buf + q + 2 * (0x30 + d)) == i30 + 2 * d;
		if (!ok)
			continue;
		size_t ttab = p - i30;
		uint16_t prev = 0;
		for (int i = 1; i < 256 && ok; i++) {
			uint16_t v = ps_load_u16(c, buf + q + 2 * i);
			/* strictly increasing; the previous token ends right before this one */
			ok = v > prev && ttab + v < q && buf[ttab + v - 1] == 0 && buf[ttab + v] != 0;
			prev = v;
		}
		if (!ok)
			continue;
		/* The last token ends at most an alignment's padding before the index. */
		size_t end = ttab + prev;
		while (end < q && buf[end])
			end++;
		if (end >= q || q - (end + 1) >= 8)
			continue;
		t->ttab = buf_va + ttab;
		t->tidx = buf_va + q;
		return true;
	}
	return false;
}

/* Decode COUNT compressed names from P (bounded by END); the position after them, or
 * NULL when the data ends first. */
static const uint8_t *skip_names(const uint8_t *p, const uint8_t *end, uint64_t count)
{
	for (uint64_t i = 0; i < count; i++) {
		if (p >= end)
			return NULL;
		size_t len = *p++;
		if (len & 0x80) {
			if (p >= end)
				return NULL;
			len = (len & 0x7f) | ((size_t)*p++ << 7);
		}
		if (len == 0 || len > (size_t)(end - p))
			return NULL;
		p += len;
	}
	return p;
}

/* kallsyms_markers ends right before kallsyms_token_table (up to 7 bytes of alignment),
 * 4- or PTR-sized entries, the first 0, each next one 256 names further on. Then
 * kallsyms_names lies right before the markers and kallsyms_num_syms right before the
 * names, in every layout of 5.x and 6.x. Fills t->num and t->names. */
static bool locate_names(struct ps_core *c, struct ksym_tables *t)
{
	const size_t mwin = 128 * 1024; /* markers: 4M symbols / 256 * 8 bytes */
	if (t->ttab < mwin)
		return false;
	uint8_t *mb = malloc(mwin);
	if (!mb)
		return false;
	/* Read backwards in whole pages until one is unreadable. */
	size_t have = 0;
	while (have < mwin) {
		size_t n = c->page_size;
		uint64_t va = t->ttab - have - n;
		if (ps_kread(c, va, mb + mwin - have - n, n) != PS_READ_OK)
			break;
		have += n;
	}
	bool found = false;
	uint8_t *nb = NULL;
	for (unsigned es = 4; es <= 8 && !found; es += 4) {
		for (size_t pad = 0; pad < 8 && !found; pad += 4) {
			/* markers[m-1] ends at ttab - pad; walk back to markers[0] == 0 */
			size_t e = mwin - pad, m = 0;
			uint64_t next = UINT64_MAX, last = 0; /* last: markers[m-1] */
			bool ok = false;
			for (size_t pos = e; pos >= mwin - have + es; pos -= es) {
				uint64_t v = es == 4 ? ps_load_u32(c, mb + pos - es) : ps_load_u64(c, mb + pos - es);
				if (next != UINT64_MAX && (v >= next || next - v < 256 * 2 || next - v > 256 * KSYMS_MAX_ENTRY))
					break;
				if (m++ == 0)
					last = v;
				if (v == 0) {
					ok = m >= 1;
					break;
				}
				next = v;
			}
			if (!ok || m < 1)
				continue;
			uint64_t mstart = t->ttab - pad - m * es;
			/* The names: everything up to the markers, read once. */
			uint64_t nlen = last + 256 * KSYMS_MAX_ENTRY + 16;
			if (nlen > KSYMS_MAX_NAMES || mstart < nlen)
				continue;
			free(nb);
			nb = malloc(nlen);
			if (!nb)
				break;
			uint64_t nva = mstart - nlen;
			/* The lowest bytes may lie before an unreadable page: keep what ends at mstart. */
			size_t got = 0;
			while (got < nlen) {
				size_t n = (mstart - got) & (c->page_size - 1); /* down to a page start */
				if (n == 0)
					n = c->page_size;
				if (n > nlen - got)
					n = nlen - got;
				if (ps_kread(c, mstart - got - n, nb + nlen - got - n, n) != PS_READ_OK)
					break;
				got += n;
			}
			const uint8_t *nend = nb + nlen;
			/* Candidate starts S, 4-aligned, with markers[m-1] = S + last inside. */
			const uint64_t readable = nva + (nlen - got);
			for (uint64_t s = (mstart - last - 2) & ~UINT64_C(3); !found && s >= readable + 4 &&
			     mstart - last - s < 256 * KSYMS_MAX_ENTRY; s -= 4) {
				const uint8_t *sp = nb + (s - nva);
				for (unsigned back = 4; back <= 8 && !found && s - back >= readable; back += 4) {
					uint32_t num = ps_load_u32(c, sp - back);
					if (num == 0 || num > KSYMS_MAX_SYMS || (num + 255) / 256 != m)
						continue;
					const uint8_t *tail = skip_names(sp + last, nend, num - 256 * (m - 1));
					if (!tail || nend - tail >= 8)
						continue;
					/* the earlier markers too */
					bool all = true;
					const uint8_t *q = sp;
					for (size_t i = 1; i < m && all; i++) {
						q = skip_names(q, nend, 256);
						uint64_t want = es == 4 ? ps_load_u32(c, mb + mwin - pad - (m - i) * es)
									: ps_load_u64(c, mb + mwin - pad - (m - i) * es);
						all = q && (uint64_t)(q - sp) == want;
					}
					if (!all)
						continue;
					t->names = s;
					t->num = s - back;
					found = true;
				}
			}
		}
	}
	free(nb);
	free(mb);
	return found;
}

/* The address table's candidate places around the tables found (t->num, t->tidx known):
 * before kallsyms_num_syms in the layout of Linux up to 6.x (offsets, relative_base,
 * num_syms, names, markers, token_table, token_index), after kallsyms_token_index since
 * scripts/kallsyms.c writes the addresses last (num_syms, names, markers, token_table,
 * token_index, offsets [, relative_base], seqs_of_names). Which one holds is decided by
 * resolve_addresses against _stext and the table's order. */
static void add_structural_forms(const struct ps_core *c, struct ksym_tables *t, uint32_t num)
{
	const uint64_t ps = c->ptr_size;
	/* old layout: ALGN = PTR size */
	uint64_t base = t->num - ps;
	add_form(t, KS_BASE_RELATIVE, base - align_up(4 * (uint64_t)num, ps), base);
	add_form(t, KS_ADDRESSES, t->num - ps * num, 0);
	/* new layout: labels PTR-aligned (ALGN) until 7.0 made them all 4-byte aligned */
	for (uint64_t a = ps; a >= 4; a /= 2) {
		uint64_t offs = align_up(t->tidx + 512, a);
		add_form(t, KS_BASE_RELATIVE, offs, align_up(offs + 4 * (uint64_t)num, a));
		add_form(t, KS_PC_RELATIVE, offs, 0);
		if (a == ps)
			add_form(t, KS_ADDRESSES, offs, 0);
		if (ps == 4) {
			add_form(t, KS_ABSOLUTE_U32, offs, 0);
			break;
		}
	}
}

static int locate_by_structure(struct ps_core *c, struct ksym_tables *t)
{
	uint64_t stext;
	if (!sym(c, "_stext", &stext))
		return ps_core_fail(c, "kallsyms: VMCOREINFO lists neither the kallsyms tables nor _stext to search from");
	const size_t chunk = 1 << 20, keep = 32 * 1024 + 512 + 20; /* a token table + index */
	uint8_t *buf = malloc(chunk + keep);
	if (!buf)
		return ps_core_fail(c, "kallsyms: out of memory");
	uint64_t va = stext & ~((uint64_t)c->page_size - 1);
	const uint64_t end = va + KSYMS_SCAN_SPAN < va ? UINT64_MAX : va + KSYMS_SCAN_SPAN;
	int ret = -1;
	uint64_t hole = 0;
	while (va < end && ret != 0) {
		size_t got = ps_kread_upto(c, va, buf, chunk + keep);
		if (got == 0) {
			/* A hole (freed padding between text and rodata, at most a few MiB); a long
			 * one is the end of the image. */
			va += c->page_size;
			if ((hole += c->page_size) > KSYMS_MAX_HOLE)
				break;
			continue;
		}
		hole = 0;
		size_t limit = got > keep && got == chunk + keep ? chunk : got;
		for (size_t p = 0; p + sizeof digit_tokens <= got && p < limit && ret != 0; p++) {
			const uint8_t *hit = memmem(buf + p, got - p, digit_tokens, sizeof digit_tokens);
			if (!hit)
				break;
			p = (size_t)(hit - buf);
			if (p >= limit)
				break;
			struct ksym_tables cand = { 0 };
			if (check_token_index(c, buf, va, got, p, &cand) && locate_names(c, &cand)) {
				*t = cand;
				ret = 0;
			}
		}
		/* The next window overlaps this one by 16 KiB, so a token table found just
		 * before its index still has its start in the window. */
		if (limit == got)
			va += (got + c->page_size - 1) / c->page_size * c->page_size;
		else
			va += limit - 16 * 1024;
	}
	free(buf);
	if (ret != 0)
		return ps_core_fail(c, "kallsyms: VMCOREINFO does not list the kallsyms tables (Linux < 6.0) "
				    "and none were found in the kernel image after _stext (at most %llu MiB; "
				    "a kernel without CONFIG_KALLSYMS?)", (unsigned long long)(KSYMS_SCAN_SPAN >> 20));
	t->found_by = "a search from _stext";
	return 0;
}

/* ---- decoding ------------------------------------------------------------------------------ */

/* Decode the names (arena, name_off, nsyms) from the tables T. */
static int decode_names(struct ps_core *c, const struct ksym_tables *t, struct ps_kallsyms *k)
{
	uint32_t num;
	enum ps_read_status st = ps_kread_u32(c, t->num, &num);
	if (st != PS_READ_OK)
		return ps_core_fail(c, "kallsyms: kallsyms_num_syms at 0x%llx: %s",
				    (unsigned long long)t->num, ps_read_status_name(st));
	if (num == 0 || num > KSYMS_MAX_SYMS)
		return ps_core_fail(c, "kallsyms: implausible kallsyms_num_syms %u", num);

	uint8_t tidx_raw[512], *ttab = NULL, *names = NULL;
	int ret = -1;
	st = ps_kread(c, t->tidx, tidx_raw, sizeof tidx_raw);
	if (st != PS_READ_OK)
		return ps_core_fail(c, "kallsyms: kallsyms_token_index: %s", ps_read_status_name(st));
	uint16_t tidx[256];
	uint32_t max_idx = 0;
	for (int i = 0; i < 256; i++) {
		tidx[i] = ps_load_u16(c, tidx_raw + 2 * i);
		if (tidx[i] > max_idx)
			max_idx = tidx[i];
	}
	/* The token table ends with the last token; token_index follows it in the image. */
	size_t ttab_len = max_idx + 256;
	if (t->tidx > t->ttab && t->tidx - t->ttab < ttab_len && t->tidx - t->ttab > max_idx)
		ttab_len = t->tidx - t->ttab;
	ttab = calloc(ttab_len + TOKEN_COPY, 1); /* zeroed slack: tokens are copied 16 bytes at a time */
	if (!ttab) {
		ps_core_fail(c, "kallsyms: out of memory");
		goto out;
	}
	ttab_len = ps_kread_upto(c, t->ttab, ttab, ttab_len);
	ttab[ttab_len] = 0;
	if (ttab_len <= max_idx) {
		ps_core_fail(c, "kallsyms: kallsyms_token_table unreadable");
		goto out;
	}

	/* kallsyms_markers and the token table follow the names: a tight bound when it fits. */
	uint64_t bound = (uint64_t)num * KSYMS_MAX_ENTRY + 4096;
	size_t names_len = bound > KSYMS_MAX_NAMES ? KSYMS_MAX_NAMES : (size_t)bound;
	if (t->ttab > t->names && t->ttab - t->names < names_len)
		names_len = t->ttab - t->names;
	names = malloc(names_len);
	k->name_off = malloc((size_t)num * sizeof *k->name_off);
	size_t arena_cap = (size_t)num * 24 + 4096, arena_len = 0;
	k->arena = malloc(arena_cap);
	if (!names || !k->name_off || !k->arena) {
		ps_core_fail(c, "kallsyms: out of memory");
		goto out;
	}
	names_len = ps_kread_upto(c, t->names, names, names_len);

	/* Each token's length once: names are then copied a token at a time (the decode is
	 * most of the time of a small extraction's start-up). */
	uint16_t tlen[256];
	for (int i = 0; i < 256; i++)
		tlen[i] = (uint16_t)strnlen((const char *)ttab + tidx[i], ttab_len - tidx[i]);
	size_t pos = 0;
	uint32_t n;
	for (n = 0; n < num; n++) {
		if (pos >= names_len)
			break;
		size_t len = names[pos++];
		if (len & 0x80) {
			if (pos >= names_len)
				break;
			len = (len & 0x7f) | ((size_t)names[pos++] << 7);
		}
		if (len > names_len - pos)
			break;
		if (arena_cap - arena_len < KSYMS_MAX_NAME + TOKEN_COPY + 2) {
			size_t ncap = arena_cap * 2;
			char *na = realloc(k->arena, ncap);
			if (!na) {
				ps_core_fail(c, "kallsyms: out of memory");
				goto out;
			}
			k->arena = na;
			arena_cap = ncap;
		}
		char *dst = k->arena + arena_len;
		size_t out_len = 0;
		for (size_t j = 0; j < len && out_len < KSYMS_MAX_NAME; j++) {
			uint8_t tk = names[pos + j];
			size_t tl = tlen[tk] < KSYMS_MAX_NAME - out_len ? tlen[tk] : KSYMS_MAX_NAME - out_len;
			/* Most tokens are a few bytes: a fixed 16-byte copy (the bytes past the token
			 * are overwritten by the next one, or by the NUL) instead of a call per token. */
			if (tl <= TOKEN_COPY)
				memcpy(dst + out_len, ttab + tidx[tk], TOKEN_COPY);
			else
				memcpy(dst + out_len, ttab + tidx[tk], tl);
			out_len += tl;
		}
		pos += len;
		dst[out_len] = 0;
		k->name_off[n] = (uint32_t)arena_len;
		arena_len += out_len + 1;
		if (arena_len > UINT32_MAX - KSYMS_MAX_NAME - 2)
			break;
	}
	if (n == 0) {
		ps_core_fail(c, "kallsyms: kallsyms_names unreadable or malformed");
		goto out;
	}
	k->nsyms = n; /* a truncated table still gives the symbols before the damage */
	ret = 0;
out:
	free(ttab);
	free(names);
	return ret;
}

/* Addresses of the N decoded symbols in form F, into ADDR. 0, or -1 (unreadable). */
static int form_addresses(struct ps_core *c, const struct ksym_form *f, uint32_t n, uint64_t *addr)
{
	size_t esz = f->kind == KS_ADDRESSES ? c->ptr_size : 4;
	uint8_t *raw = malloc((size_t)n * esz);
	if (!raw)
		return -1;
	uint64_t base = 0;
	if (ps_kread(c, f->table, raw, (size_t)n * esz) != PS_READ_OK ||
	    (f->kind == KS_BASE_RELATIVE && ps_kread_ptr(c, f->base, &base) != PS_READ_OK)) {
		free(raw);
		return -1;
	}
	/* Without absolute per-CPU symbols, offsets are u32 distances from a base below every
	 * symbol, so none has bit 31 set on a kernel smaller than 2 GiB; with it, ordinary
	 * (relocatable) symbols are all negative. */
	bool absolute_percpu = false;
	if (f->kind == KS_BASE_RELATIVE)
		for (uint32_t i = 0; i < n && !absolute_percpu; i++)
			absolute_percpu = ps_load_s32(c, raw + 4 * (size_t)i) < 0;
	for (uint32_t i = 0; i < n; i++) {
		int32_t o = f->kind == KS_ADDRESSES ? 0 : ps_load_s32(c, raw + 4 * (size_t)i);
		switch (f->kind) {
		case KS_ADDRESSES:
			addr[i] = ps_load_ptr(c, raw + esz * i);
			break;
		case KS_BASE_RELATIVE:
			if (!absolute_percpu)
				addr[i] = base + (uint32_t)o;
			else if (o >= 0)
				addr[i] = (uint64_t)o;
			else
				addr[i] = base - 1 - (uint64_t)(int64_t)o;
			break;
		case KS_PC_RELATIVE:
			addr[i] = f->table + 4 * (uint64_t)i + (uint64_t)(int64_t)o;
			break;
		case KS_ABSOLUTE_U32:
			addr[i] = (uint32_t)o;
			break;
		}
		if (c->ptr_size == 4)
			addr[i] &= UINT32_MAX; /* unsigned long arithmetic of a 32-bit kernel */
	}
	free(raw);
	return 0;
}

/* The first candidate form whose addresses put _stext where VMCOREINFO says and keep the
 * table's order (scripts/kallsyms.c sorts it by address). */
static int resolve_addresses(struct ps_core *c, const struct ksym_tables *t, struct ps_kallsyms *k)
{
	uint64_t want_stext = 0;
	bool have_stext = sym(c, "_stext", &want_stext);
	int64_t stext_idx = -1;
	for (uint32_t i = 0; i < k->nsyms && stext_idx < 0; i++)
		if (strcmp(k->arena + k->name_off[i] + 1, "_stext") == 0)
			stext_idx = i;
	k->addr = malloc((size_t)k->nsyms * sizeof *k->addr);
	if (!k->addr)
		return ps_core_fail(c, "kallsyms: out of memory");
	const char *why = "unreadable";
	for (unsigned f = 0; f < t->nforms; f++) {
		if (form_addresses(c, &t->form[f], k->nsyms, k->addr) != 0)
			continue;
		if (have_stext && stext_idx >= 0 && k->addr[stext_idx] != want_stext) {
			why = "_stext is elsewhere";
			continue;
		}
		uint32_t down = 0;
		for (uint32_t i = 1; i < k->nsyms; i++)
			down += k->addr[i] < k->addr[i - 1];
		if (down > 1 + k->nsyms / 1000) {
			why = "not in address order";
			continue;
		}
		return 0;
	}
	return ps_core_fail(c, "kallsyms: tables found by %s, but no address table fits them (%s)",
			    t->found_by, why);
}

int ps_kallsyms_load(struct ps_core *c)
{
	if (c->kallsyms)
		return 0;
	struct ksym_tables t = { 0 };
	int listed = locate_by_vmcoreinfo(c, &t);
	if (listed < 0)
		return -1;
	if (!listed) {
		if (locate_by_structure(c, &t) != 0)
			return -1;
	}
	struct ps_kallsyms *k = calloc(1, sizeof *k);
	if (!k)
		return ps_core_fail(c, "kallsyms: out of memory");
	if (decode_names(c, &t, k) != 0)
		goto fail;
	if (!listed)
		add_structural_forms(c, &t, k->nsyms);
	if (resolve_addresses(c, &t, k) != 0)
		goto fail;

	k->name_hash = malloc((size_t)k->nsyms * sizeof *k->name_hash);
	if (!k->name_hash) {
		ps_core_fail(c, "kallsyms: out of memory");
		goto fail;
	}
	for (uint32_t i = 0; i < k->nsyms; i++) {
		/* Names are consecutive in the arena: a name's length from the next one's offset. */
		const char *name = k->arena + k->name_off[i];
		size_t len = i + 1 < k->nsyms ? k->name_off[i + 1] - k->name_off[i] - 1 : strlen(name);
		k->name_hash[i] = name[0] ? name_hash_n(name + 1, len - 1) : 0;
	}
	c->kallsyms = k;
	return 0;
fail:
	ps_kallsyms_free(k);
	return -1;
}

#define LINEAR_LOOKUPS 256

/* The table of names for many look-ups; false when out of memory (scans go on). */
static bool build_hash(struct ps_kallsyms *k)
{
	uint32_t n = k->nsyms, hsize = 1;
	while (hsize < 2 * n)
		hsize <<= 1;
	k->hash = calloc(hsize, sizeof *k->hash);
	k->hfull = malloc(hsize * sizeof *k->hfull);
	if (!k->hash || !k->hfull) {
		free(k->hash), free(k->hfull);
		k->hash = k->hfull = NULL;
		return false;
	}
	k->hmask = hsize - 1;
	for (uint32_t i = 0; i < n; i++) {
		const char *name = k->arena + k->name_off[i];
		if (!name[0] || !name[1])
			continue;
		uint32_t full = k->name_hash[i], h = full & k->hmask;
		bool dup = false;
		while (k->hash[h]) {
			if (k->hfull[h] == full &&
			    strcmp(k->arena + k->name_off[k->hash[h] - 1] + 1, name + 1) == 0) {
				dup = true; /* the first of equal names wins, as the scan finds it */
				break;
			}
			h = (h + 1) & k->hmask;
		}
		if (!dup) {
			k->hash[h] = i + 1;
			k->hfull[h] = full;
		}
	}
	return true;
}

int ps_kallsyms_name_at(struct ps_core *c, uint64_t addr, const char **name, uint64_t *offset)
{
	struct ps_kallsyms *k = c->kallsyms;
	if (!k || !k->nsyms || addr < k->addr[0])
		return -1;
	/* The table is in address order (checked when it was taken): the last symbol at or
	 * below ADDR, as the kernel's own kallsyms_lookup finds it. */
	uint32_t lo = 0, hi = k->nsyms - 1;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo + 1) / 2;
		if (k->addr[mid] <= addr)
			lo = mid;
		else
			hi = mid - 1;
	}
	*name = k->arena + k->name_off[lo] + 1;
	*offset = addr - k->addr[lo];
	return 0;
}

int ps_kallsyms_lookup(struct ps_core *c, const char *name, uint64_t *addr)
{
	struct ps_kallsyms *k = c->kallsyms;
	if (!k || !k->name_hash || !name || !name[0])
		return -1;
	uint32_t full = name_hash(name);
	if (!k->hash && (k->lookups++ < LINEAR_LOOKUPS || !build_hash(k))) {
		for (uint32_t i = 0; i < k->nsyms; i++)
			if (k->name_hash[i] == full && strcmp(k->arena + k->name_off[i] + 1, name) == 0 &&
			    k->arena[k->name_off[i]]) {
				*addr = k->addr[i];
				return 0;
			}
		return -1;
	}
	uint32_t h = full & k->hmask;
	for (uint32_t probes = 0; k->hash[h] && probes <= k->hmask; probes++) {
		uint32_t i = k->hash[h] - 1;
		if (k->hfull[h] == full && strcmp(k->arena + k->name_off[i] + 1, name) == 0) {
			*addr = k->addr[i];
			return 0;
		}
		h = (h + 1) & k->hmask;
	}
	return -1;
}

void ps_kallsyms_lookup_many(struct ps_core *c, const char *const *names, size_t n,
			     uint64_t *addrs, bool *found)
{
	struct ps_kallsyms *k = c->kallsyms;
	for (size_t j = 0; j < n; j++)
		found[j] = false;
	if (!k || !k->name_hash || n == 0)
		return;
	/* The names wanted, by hash (open addressing, at most a quarter full: most symbols'
	 * probes end at an empty slot at once). A table built already answers them one by one. */
	uint32_t size = 16;
	while (size < 4 * n && size < (UINT32_C(1) << 30))
		size <<= 1;
	uint32_t *want = k->hash ? NULL : calloc(size, sizeof *want), *want_hash = NULL;
	if (want)
		want_hash = malloc(size * sizeof *want_hash);
	if (!want || !want_hash || size < 2 * n) {
		free(want), free(want_hash);
		for (size_t j = 0; j < n; j++)
			found[j] = ps_kallsyms_lookup(c, names[j], &addrs[j]) == 0;
		return;
	}
	const uint32_t mask = size - 1;
	for (size_t j = 0; j < n; j++) {
		if (!names[j] || !names[j][0])
			continue;
		uint32_t full = name_hash(names[j]), h = full & mask;
		while (want[h])
			h = (h + 1) & mask;
		want[h] = (uint32_t)j + 1;
		want_hash[h] = full;
	}
	for (uint32_t i = 0; i < k->nsyms; i++) {
		uint32_t full = k->name_hash[i];
		for (uint32_t h = full & mask; want[h]; h = (h + 1) & mask) {
			size_t j = want[h] - 1;
			if (want_hash[h] != full || found[j])
				continue;
			const char *name = k->arena + k->name_off[i];
			if (name[0] && strcmp(name + 1, names[j]) == 0) {
				found[j] = true;
				addrs[j] = k->addr[i];
			}
		}
	}
	free(want);
	free(want_hash);
}
