/* typeinfo_btf.c - kernel facts from BTF, through libbpf.
 *
 * BTF comes from the dump's own .BTF section, /sys/kernel/btf/vmlinux, a detached file made
 * with `pahole --btf_encode_detached`, or the .BTF section of a vmlinux ELF file. libbpf
 * byte-swaps BTF of the opposite byte order (a big-endian ppc32 kernel read on x86_64).
 *
 * Lookups go through small indexes built once: struct/union/typedef names (hashed at open:
 * sorting a 6.1 kernel's 48,000 names for bsearch took a tenth of an ELF extraction's
 * start-up) and every enumerator by name (hashed at the first enum lookup: a kinfo fill
 * asks for dozens of PG_ and NR_ values, and a kernel's BTF has tens of thousands of
 * enumerators), so a whole kinfo fill costs a few milliseconds instead of a scan per entry.
 */
#include "kinfo.h"
#include "errmsg.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Dotted paths are short; this only bounds the recursion through anonymous members and
 * typedef chains in malformed BTF. */
#define BTF_MAX_DEPTH 32
/* Composite types visited per member lookup, at most (real kernels need a few dozen). */
#define BTF_MEMBER_BUDGET 4096

struct named_type {
	const char *name; /* NULL: an empty slot */
	uint32_t id;
	uint32_t hash; /* name_hash's low bits: most probes end without a strcmp */
};

struct ps_btf_source {
	struct btf *btf;
	/* struct, union, typedef with a name; open addressing by name, at most half full; equal
	 * names lie along their probe sequence in id order (inserted so), and the lowest id
	 * (first defined) wins */
	struct named_type *types;
	size_t types_mask;
	uint32_t *enums; /* ids of ENUM and ENUM64 types, in id order */
	size_t nenums;
	struct enumerator *enumerators; /* open addressing by name; NULL until the first lookup */
	size_t enumerator_mask;
};

struct enumerator {
	const char *name; /* NULL: an empty slot */
	int64_t value;
};

/* libbpf prints its own diagnostics to stderr; ours are the error values. */
static int quiet_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static uint64_t name_hash(const char *name)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325); /* FNV-1a */
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * UINT64_C(0x100000001b3);
	return h;
}

static int build_indexes(struct ps_btf_source *s, char **err, const char *name)
{
	uint32_t n = btf__type_cnt(s->btf);
	size_t ntypes = 0, nenums = 0;
	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(s->btf, id);
		if (!t)
			continue;
		if ((btf_is_composite(t) || btf_is_typedef(t)) && t->name_off)
			ntypes++;
		else if (btf_is_any_enum(t))
			nenums++;
	}
	size_t size = 16;
	while (size / 2 < ntypes && size < SIZE_MAX / 4 / sizeof(*s->types))
		size *= 2;
	s->types = size / 2 >= ntypes ? calloc(size, sizeof(*s->types)) : NULL;
	s->types_mask = size - 1;
	s->enums = calloc(nenums ? nenums : 1, sizeof(*s->enums));
	if (!s->types || !s->enums) {
		ps_set_err(err, "%s: out of memory indexing BTF", name);
		return -1;
	}
	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(s->btf, id);
		if (!t)
			continue;
		if ((btf_is_composite(t) || btf_is_typedef(t)) && t->name_off) {
			const char *tn = btf__name_by_offset(s->btf, t->name_off);
			if (tn && *tn && ntypes) {
				ntypes--; /* never more than counted: the table stays half empty */
				uint64_t h = name_hash(tn);
				size_t i = h & s->types_mask;
				while (s->types[i].name)
					i = (i + 1) & s->types_mask;
				s->types[i] = (struct named_type){ tn, id, (uint32_t)h };
			}
		} else if (btf_is_any_enum(t) && s->nenums < nenums) {
			s->enums[s->nenums++] = id;
		}
	}
	return 0;
}

static struct ps_btf_source *open_btf(struct btf *btf, const char *name, char **err)
{
	struct ps_btf_source *s = calloc(1, sizeof(*s));
	if (!s) {
		btf__free(btf);
		ps_set_err(err, "%s: out of memory", name);
		return NULL;
	}
	s->btf = btf;
	if (build_indexes(s, err, name) < 0) {
		ps_btf_source_close(s);
		return NULL;
	}
	return s;
}

struct ps_btf_source *ps_btf_source_open(const void *data, size_t len, const char *name, char **err)
{
	if (err)
		*err = NULL;
	if (!name)
		name = "BTF";
	if (!data || len < 24 || len > UINT32_MAX) {
		ps_set_err(err, "%s: not BTF (%zu bytes)", name, len);
		return NULL;
	}
	/* btf__new copies the bytes, so the caller's buffer may go away afterwards. */
	errno = 0;
	libbpf_print_fn_t old_print = libbpf_set_print(quiet_libbpf);
	struct btf *btf = btf__new(data, (uint32_t)len);
	libbpf_set_print(old_print);
	if (!btf) { /* libbpf 1.x: NULL and errno on failure */
		ps_set_err(err, "%s: not valid BTF: %s", name, strerror(errno ? errno : EINVAL));
		return NULL;
	}
	return open_btf(btf, name, err);
}

struct ps_btf_source *ps_btf_source_open_file(const char *path, char **err)
{
	if (err)
		*err = NULL;
	FILE *f = fopen(path, "rb");
	if (!f) {
		ps_set_err(err, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	unsigned char magic[4] = { 0 };
	size_t got = fread(magic, 1, sizeof(magic), f);
	fclose(f);
	if (got == 4 && memcmp(magic, "\177ELF", 4) == 0) {
		/* A vmlinux (or any ELF) with a .BTF section. */
		errno = 0;
		libbpf_print_fn_t old_print = libbpf_set_print(quiet_libbpf);
		struct btf *btf = btf__parse_elf(path, NULL);
		libbpf_set_print(old_print);
		if (!btf) {
			ps_set_err(err, "%s: no usable .BTF section (%s)", path,
				errno == ENOENT ? "none" : strerror(errno ? errno : EINVAL));
			return NULL;
		}
		return open_btf(btf, path, err);
	}
	/* Raw BTF: magic 0xeb9f in either byte order. */
	if (got < 2 || !((magic[0] == 0x9f && magic[1] == 0xeb) || (magic[0] == 0xeb && magic[1] == 0x9f))) {
		ps_set_err(err, "%s: not a BTF file (no BTF magic; compressed? decompress it first)", path);
		return NULL;
	}
	errno = 0;
	libbpf_print_fn_t old_print = libbpf_set_print(quiet_libbpf);
	struct btf *btf = btf__parse_raw(path);
	libbpf_set_print(old_print);
	if (!btf) {
		ps_set_err(err, "%s: not valid BTF: %s", path, strerror(errno ? errno : EINVAL));
		return NULL;
	}
	return open_btf(btf, path, err);
}

void ps_btf_source_close(struct ps_btf_source *s)
{
	if (!s)
		return;
	btf__free(s->btf);
	free(s->types);
	free(s->enums);
	free(s->enumerators);
	free(s);
}

/* ---- lookups --------------------------------------------------------------------- */

/* Skip typedef, const, volatile, restrict and type tags. Returns 0 for void/bad. */
static uint32_t strip_modifiers(const struct btf *btf, uint32_t id)
{
	for (int depth = 0; depth < BTF_MAX_DEPTH; depth++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		if (!t)
			return 0;
		if (!btf_is_typedef(t) && !btf_is_mod(t))
			return id;
		id = t->type;
	}
	return 0;
}

/* The first struct/union called NAME (a typedef to one counts too). BTF has no forward
 * declarations of kind STRUCT (those are KIND_FWD), so a match is a complete definition. */
static uint32_t find_composite(const struct ps_btf_source *s, const char *name)
{
	uint64_t h = name_hash(name);
	uint32_t via_typedef = 0;
	for (size_t i = h & s->types_mask; s->types[i].name; i = (i + 1) & s->types_mask) {
		if (s->types[i].hash != (uint32_t)h || strcmp(s->types[i].name, name) != 0)
			continue;
		const struct btf_type *t = btf__type_by_id(s->btf, s->types[i].id);
		if (t && btf_is_composite(t))
			return s->types[i].id;
		if (!via_typedef) {
			uint32_t target = strip_modifiers(s->btf, s->types[i].id);
			const struct btf_type *tt = target ? btf__type_by_id(s->btf, target) : NULL;
			if (tt && btf_is_composite(tt))
				via_typedef = target;
		}
	}
	return via_typedef;
}

/* Find member NAME in composite ID, looking inside anonymous members (C11 anonymous
 * structs/unions: their members belong to the enclosing type). Adds the member's bit
 * offset to *bits, sets its type and bitfield width (0: not a bitfield); 0 or -1. */
static int find_member(const struct btf *btf, uint32_t id, const char *name, uint64_t *bits,
		       uint32_t *type, uint32_t *bitfield, int depth, unsigned *budget)
{
	/* The budget stops malformed BTF whose anonymous members nest into themselves many
	 * times over from costing exponential time. */
	if (depth > BTF_MAX_DEPTH || *budget == 0)
		return -1;
	(*budget)--;
	const struct btf_type *t = btf__type_by_id(btf, id);
	if (!t || !btf_is_composite(t))
		return -1;
	const struct btf_member *m = btf_members(t);
	unsigned vlen = btf_vlen(t);
	for (unsigned i = 0; i < vlen; i++) {
		const char *mn = m[i].name_off ? btf__name_by_offset(btf, m[i].name_off) : NULL;
		if (mn && *mn && strcmp(mn, name) == 0) {
			*bits += btf_member_bit_offset(t, i);
			*type = m[i].type;
			*bitfield = btf_member_bitfield_size(t, i);
			return 0;
		}
	}
	for (unsigned i = 0; i < vlen; i++) {
		const char *mn = m[i].name_off ? btf__name_by_offset(btf, m[i].name_off) : NULL;
		if (mn && *mn)
			continue;
		uint32_t inner = strip_modifiers(btf, m[i].type);
		uint64_t inner_bits = 0;
		if (find_member(btf, inner, name, &inner_bits, type, bitfield, depth + 1, budget) == 0) {
			*bits += btf_member_bit_offset(t, i) + inner_bits;
			return 0;
		}
	}
	return -1;
}

static int btf_member(void *ctx, const char *type, const char *path, struct ps_kinfo_member *out)
{
	const struct ps_btf_source *s = ctx;
	uint32_t id = find_composite(s, type);
	if (!id || !path || !*path)
		return -1;
	uint64_t bits = 0;
	uint32_t mtype = 0, bitfield = 0;
	unsigned budget = BTF_MEMBER_BUDGET;
	const char *p = path;
	for (int depth = 0;; depth++) {
		char comp[128];
		size_t n = strcspn(p, ".");
		if (depth >= BTF_MAX_DEPTH || n == 0 || n >= sizeof(comp))
			return -1;
		memcpy(comp, p, n);
		comp[n] = 0;
		if (find_member(s->btf, id, comp, &bits, &mtype, &bitfield, 0, &budget) < 0)
			return -1;
		p += n;
		if (!*p)
			break;
		p++; /* past '.' */
		id = strip_modifiers(s->btf, mtype);
		if (!id || bitfield)
			return -1;
	}
	/* A bitfield has no byte offset and size of its own; the table cannot describe it. */
	if (bitfield || bits % 8)
		return -1;
	uint32_t stripped = strip_modifiers(s->btf, mtype);
	int64_t size = stripped ? btf__resolve_size(s->btf, stripped) : -1;
	if (size < 0 || size > UINT32_MAX)
		return -1;
	const struct btf_type *mt = btf__type_by_id(s->btf, stripped);
	out->offset = (int64_t)(bits / 8);
	out->size = (uint32_t)size;
	out->nelems = (mt && btf_is_array(mt)) ? btf_array(mt)->nelems : 0;
	return 0;
}

static int btf_type_size(void *ctx, const char *type, int64_t *out)
{
	const struct ps_btf_source *s = ctx;
	uint32_t id = find_composite(s, type);
	if (!id)
		return -1;
	int64_t size = btf__resolve_size(s->btf, id);
	if (size < 0)
		return -1;
	*out = size;
	return 0;
}

/* Call FN(NAME, VALUE, ARG) for every enumerator, in type-id order; stops when FN returns
 * non-zero. kflag marks a signed 32-bit enum (pahole 1.24+); otherwise values are unsigned. */
static int for_each_enumerator(const struct ps_btf_source *s,
			       int (*fn)(const char *name, int64_t value, void *arg), void *arg)
{
	for (size_t i = 0; i < s->nenums; i++) {
		const struct btf_type *t = btf__type_by_id(s->btf, s->enums[i]);
		if (!t)
			continue;
		unsigned vlen = btf_vlen(t);
		bool is_signed = btf_kflag(t);
		for (unsigned j = 0; j < vlen; j++) {
			uint32_t name_off;
			int64_t value;
			if (btf_is_enum(t)) {
				const struct btf_enum *e = btf_enum(t) + j;
				name_off = e->name_off;
				value = is_signed ? (int64_t)e->val : (int64_t)(uint32_t)e->val;
			} else if (btf_is_enum64(t)) {
				const struct btf_enum64 *e = btf_enum64(t) + j;
				name_off = e->name_off;
				value = (int64_t)btf_enum64_value(e);
			} else {
				break;
			}
			const char *n = btf__name_by_offset(s->btf, name_off);
			if (n && *n && fn(n, value, arg))
				return 1;
		}
	}
	return 0;
}

struct enum_search {
	const char *name;
	int64_t *out;
};

static int match_enumerator(const char *name, int64_t value, void *arg)
{
	struct enum_search *q = arg;
	if (strcmp(name, q->name))
		return 0;
	*q->out = value;
	return 1;
}

static int count_enumerator(const char *name, int64_t value, void *arg)
{
	(void)name, (void)value;
	++*(size_t *)arg;
	return 0;
}

static int index_enumerator(const char *name, int64_t value, void *arg)
{
	struct ps_btf_source *s = arg;
	for (size_t i = name_hash(name) & s->enumerator_mask;; i = (i + 1) & s->enumerator_mask) {
		struct enumerator *slot = &s->enumerators[i];
		if (!slot->name) {
			*slot = (struct enumerator){ name, value };
			return 0;
		}
		if (!strcmp(slot->name, name))
			return 0; /* the first (lowest type id) definition wins, as the scan had it */
	}
}

/* The index: a table at most half full, so every probe sequence ends at an empty slot. */
static bool index_enumerators(struct ps_btf_source *s)
{
	size_t n = 0, size = 16;
	for_each_enumerator(s, count_enumerator, &n);
	while (size / 2 < n && size < SIZE_MAX / 4 / sizeof(struct enumerator))
		size *= 2;
	if (size / 2 < n || !(s->enumerators = calloc(size, sizeof(struct enumerator))))
		return false;
	s->enumerator_mask = size - 1;
	for_each_enumerator(s, index_enumerator, s);
	return true;
}

static int btf_enum_value(void *ctx, const char *enumerator, int64_t *out)
{
	struct ps_btf_source *s = ctx;
	if (!s->enumerators && !index_enumerators(s)) {
		struct enum_search q = { enumerator, out }; /* no memory for the index: scan */
		return for_each_enumerator(s, match_enumerator, &q) ? 0 : -1;
	}
	for (size_t i = name_hash(enumerator) & s->enumerator_mask; s->enumerators[i].name;
	     i = (i + 1) & s->enumerator_mask)
		if (!strcmp(s->enumerators[i].name, enumerator)) {
			*out = s->enumerators[i].value;
			return 0;
		}
	return -1;
}

const struct ps_typeinfo_ops ps_btf_typeinfo_ops = {
	.member = btf_member,
	.type_size = btf_type_size,
	.enum_value = btf_enum_value,
	.symbol = NULL, /* BTF has no addresses */
};

/* Fill KI from S (source "btf:NAME") and close S. */
static int fill_and_close(struct ps_kinfo *ki, struct ps_btf_source *s, const char *name,
			  char **err)
{
	ps_kinfo_set_source(ki, "btf", name);
	int rc = ps_kinfo_fill(ki, &ps_btf_typeinfo_ops, s, err);
	ps_btf_source_close(s);
	return rc;
}

int ps_kinfo_fill_from_btf_file(struct ps_kinfo *ki, const char *path, char **err)
{
	struct ps_btf_source *s = ps_btf_source_open_file(path, err);
	return s ? fill_and_close(ki, s, path, err) : -1;
}

int ps_kinfo_fill_from_btf(struct ps_kinfo *ki, const void *data, size_t len, const char *name,
			   char **err)
{
	struct ps_btf_source *s = ps_btf_source_open(data, len, name, err);
	return s ? fill_and_close(ki, s, name, err) : -1;
}
