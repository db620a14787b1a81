/* kallsyms.c - the kernel's own symbol table, decoded from the dump.
 *
 * Linux 6.0+ lists the kallsyms tables in VMCOREINFO (kernel/crash_core.c), so symbols are
 * found without vmlinux or type information. The format (kernel/kallsyms.c, scripts/
 * kallsyms.c of 6.1):
 *   kallsyms_num_syms     unsigned int
 *   kallsyms_names        per symbol: a length byte, then that many token indices. Since
 *                         6.1 (commit 73bbb94466fd) a length with bit 7 set is "big": the
 *                         next byte holds bits 7-14.
 *   kallsyms_token_table  NUL-terminated strings; kallsyms_token_index: u16[256] offsets
 *                         into it. The expanded name's first character is the type (T, D..).
 *   KALLSYMS_BASE_RELATIVE: kallsyms_offsets int[num] + kallsyms_relative_base; with
 *   KALLSYMS_ABSOLUTE_PERCPU (x86_64 SMP) non-negative offsets are absolute values and
 *   negative ones mean relative_base - 1 - offset. Otherwise kallsyms_addresses[num].
 * Everything read is bounded: symbol count, name length, table sizes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

#define KSYMS_MAX_SYMS (1u << 22)          /* 4M: an allmodconfig kernel has ~300k */
#define KSYMS_MAX_NAMES (64u << 20)        /* bytes of compressed names */
#define KSYMS_MAX_NAME 1024                /* expanded; KSYM_NAME_LEN is 512 in 6.1 */

struct ps_kallsyms {
	uint32_t nsyms;
	char *arena;        /* "Tname\0" per symbol */
	uint32_t *name_off; /* offset of the type character in arena */
	uint64_t *addr;
	uint32_t *hash;     /* open addressing: symbol index + 1, 0 = empty */
	uint32_t hmask;
};

void ps_kallsyms_free(struct ps_kallsyms *k)
{
	if (!k)
		return;
	free(k->arena);
	free(k->name_off);
	free(k->addr);
	free(k->hash);
	free(k);
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

static bool sym(struct ps_core *c, const char *name, uint64_t *out)
{
	char key[64];
	snprintf(key, sizeof key, "SYMBOL(%s)", name);
	return ps_core_vmcoreinfo_u64(c, key, out) && *out;
}

int ps_kallsyms_load(struct ps_core *c)
{
	if (c->kallsyms)
		return 0;
	uint64_t a_num, a_names, a_ttab, a_tidx, a_offs = 0, a_base = 0, a_addrs = 0;
	if (!sym(c, "kallsyms_num_syms", &a_num) || !sym(c, "kallsyms_names", &a_names) ||
	    !sym(c, "kallsyms_token_table", &a_ttab) || !sym(c, "kallsyms_token_index", &a_tidx))
		return ps_core_fail(c, "kallsyms: VMCOREINFO does not list the kallsyms tables (Linux < 6.0 or no CONFIG_KALLSYMS)");
	bool relative = sym(c, "kallsyms_offsets", &a_offs) && sym(c, "kallsyms_relative_base", &a_base);
	if (!relative && !sym(c, "kallsyms_addresses", &a_addrs))
		return ps_core_fail(c, "kallsyms: neither kallsyms_offsets nor kallsyms_addresses in VMCOREINFO");

	uint32_t num;
	enum ps_read_status st = ps_kread_u32(c, a_num, &num);
	if (st != PS_READ_OK)
		return ps_core_fail(c, "kallsyms: kallsyms_num_syms at 0x%llx: %s",
				    (unsigned long long)a_num, ps_read_status_name(st));
	if (num == 0 || num > KSYMS_MAX_SYMS)
		return ps_core_fail(c, "kallsyms: implausible kallsyms_num_syms %u", num);

	struct ps_kallsyms *k = calloc(1, sizeof *k);
	uint8_t tidx_raw[512];
	uint8_t *ttab = NULL, *names = NULL, *offs = NULL;
	size_t ttab_len = 0, names_len = 0;
	int ret = -1;
	if (!k) {
		ps_core_fail(c, "kallsyms: out of memory");
		goto out;
	}
	k->nsyms = num;

	st = ps_kread(c, a_tidx, tidx_raw, sizeof tidx_raw);
	if (st != PS_READ_OK) {
		ps_core_fail(c, "kallsyms: kallsyms_token_index: %s", ps_read_status_name(st));
		goto out;
	}
	uint16_t tidx[256];
	uint32_t max_idx = 0;
	for (int i = 0; i < 256; i++) {
		tidx[i] = ps_load_u16(c, tidx_raw + 2 * i);
		if (tidx[i] > max_idx)
			max_idx = tidx[i];
	}
	/* The token table ends with the last token; token_index follows it in the image. */
	ttab_len = max_idx + 256;
	if (a_tidx > a_ttab && a_tidx - a_ttab < ttab_len && a_tidx - a_ttab > max_idx)
		ttab_len = a_tidx - a_ttab;
	ttab = malloc(ttab_len + 1);
	if (!ttab) {
		ps_core_fail(c, "kallsyms: out of memory");
		goto out;
	}
	ttab_len = ps_kread_upto(c, a_ttab, ttab, ttab_len);
	ttab[ttab_len] = 0;
	if (ttab_len <= max_idx) {
		ps_core_fail(c, "kallsyms: kallsyms_token_table unreadable");
		goto out;
	}

	/* kallsyms_markers and the token table follow the names: a tight bound when it fits. */
	uint64_t bound = (uint64_t)num * 258 + 4096; /* length bytes + 255 tokens each */
	names_len = bound > KSYMS_MAX_NAMES ? KSYMS_MAX_NAMES : (size_t)bound;
	if (a_ttab > a_names && a_ttab - a_names < names_len)
		names_len = a_ttab - a_names;
	names = malloc(names_len);
	if (!names) {
		ps_core_fail(c, "kallsyms: out of memory");
		goto out;
	}
	names_len = ps_kread_upto(c, a_names, names, names_len);

	size_t esz = relative ? 4 : c->ptr_size;
	offs = malloc((size_t)num * esz);
	k->name_off = malloc((size_t)num * sizeof *k->name_off);
	k->addr = malloc((size_t)num * sizeof *k->addr);
	size_t arena_cap = (size_t)num * 24 + 4096, arena_len = 0;
	k->arena = malloc(arena_cap);
	if (!offs || !k->name_off || !k->addr || !k->arena) {
		ps_core_fail(c, "kallsyms: out of memory");
		goto out;
	}
	st = ps_kread(c, relative ? a_offs : a_addrs, offs, (size_t)num * esz);
	if (st != PS_READ_OK) {
		ps_core_fail(c, "kallsyms: symbol address table: %s", ps_read_status_name(st));
		goto out;
	}
	uint64_t base = 0;
	bool absolute_percpu = false;
	if (relative) {
		st = ps_kread_ptr(c, a_base, &base);
		if (st != PS_READ_OK) {
			ps_core_fail(c, "kallsyms: kallsyms_relative_base: %s", ps_read_status_name(st));
			goto out;
		}
		/* Without absolute per-CPU symbols, offsets are u32 distances from a base below
		 * every symbol, so none has bit 31 set on a kernel smaller than 2 GiB; with it,
		 * ordinary (relocatable) symbols are all negative. */
		for (uint32_t i = 0; i < num && !absolute_percpu; i++)
			if (ps_load_s32(c, offs + 4 * (size_t)i) < 0)
				absolute_percpu = true;
	}

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
		if (arena_cap - arena_len < KSYMS_MAX_NAME + 2) {
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
		for (size_t j = 0; j < len; j++) {
			const char *tok = (const char *)ttab + tidx[names[pos + j]];
			for (; *tok && out_len < KSYMS_MAX_NAME; tok++)
				dst[out_len++] = *tok;
		}
		pos += len;
		dst[out_len] = 0;
		k->name_off[n] = (uint32_t)arena_len;
		arena_len += out_len + 1;

		if (relative) {
			int32_t o = ps_load_s32(c, offs + 4 * (size_t)n);
			if (!absolute_percpu)
				k->addr[n] = base + (uint32_t)o;
			else if (o >= 0)
				k->addr[n] = (uint64_t)o;
			else
				k->addr[n] = base - 1 - (uint64_t)(int64_t)o;
		} else {
			k->addr[n] = ps_load_ptr(c, offs + esz * n);
		}
		if (c->ptr_size == 4)
			k->addr[n] &= UINT32_MAX; /* unsigned long arithmetic of a 32-bit kernel */
		if (arena_len > UINT32_MAX - KSYMS_MAX_NAME - 2)
			break;
	}
	if (n == 0) {
		ps_core_fail(c, "kallsyms: kallsyms_names unreadable or malformed");
		goto out;
	}
	k->nsyms = n; /* a truncated table still gives the symbols before the damage */

	uint32_t hsize = 1;
	while (hsize < 2 * n)
		hsize <<= 1;
	k->hash = calloc(hsize, sizeof *k->hash);
	if (!k->hash) {
		ps_core_fail(c, "kallsyms: out of memory");
		goto out;
	}
	k->hmask = hsize - 1;
	for (uint32_t i = 0; i < n; i++) {
		const char *name = k->arena + k->name_off[i];
		if (!name[0] || !name[1])
			continue;
		uint32_t h = name_hash(name + 1) & k->hmask;
		bool dup = false;
		while (k->hash[h]) {
			if (strcmp(k->arena + k->name_off[k->hash[h] - 1] + 1, name + 1) == 0) {
				dup = true; /* the first of equal names wins, as a linear search would */
				break;
			}
			h = (h + 1) & k->hmask;
		}
		if (!dup)
			k->hash[h] = i + 1;
	}
	c->kallsyms = k;
	k = NULL;
	ret = 0;
out:
	ps_kallsyms_free(k);
	free(ttab);
	free(names);
	free(offs);
	return ret;
}

int ps_kallsyms_lookup(struct ps_core *c, const char *name, uint64_t *addr)
{
	struct ps_kallsyms *k = c->kallsyms;
	if (!k || !k->hash || !name || !name[0])
		return -1;
	uint32_t h = name_hash(name) & k->hmask;
	for (uint32_t probes = 0; k->hash[h] && probes <= k->hmask; probes++) {
		uint32_t i = k->hash[h] - 1;
		if (strcmp(k->arena + k->name_off[i] + 1, name) == 0) {
			*addr = k->addr[i];
			return 0;
		}
		h = (h + 1) & k->hmask;
	}
	return -1;
}
