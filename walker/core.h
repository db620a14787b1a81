/* core.h - the walker's shared state and its typed reads (internal to walker/).
 *
 * struct ps_core is what every walker file works on: the back-end, the architecture and
 * its geometry, the filled kernel facts, runtime symbol addresses, and read helpers that
 * apply the target's byte order and pointer size (never the host's). Errors are values:
 * reads return enum ps_read_status, setup functions return -1 after ps_core_fail().
 */
#ifndef PAGESLEUTH_CORE_H
#define PAGESLEUTH_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "arch.h"
#include "kinfo.h"
#include "target.h"

#define PS_KVTOP_CACHE 512 /* direct-mapped cache of kernel page translations */

struct ps_kallsyms; /* kallsyms.c */

struct ps_core {
	struct ps_target t;
	const struct ps_arch *arch;
	void *arch_priv;              /* the architecture's own parameters (its init allocates) */
	struct ps_pt_geometry geom;   /* user page tables */
	bool big_endian;
	unsigned ptr_size;
	uint32_t page_size;
	unsigned page_shift;
	uint64_t max_pfn;             /* from the kernel's max_pfn, else the target's; 0 unknown */
	int64_t kaslr_offset;         /* VMCOREINFO KERNELOFFSET (0 if absent) */
	char release[65];             /* OSRELEASE, or init_uts_ns once kinfo is known */

	/* Non-NULL: "kobj PA LEN" for every physical read (the walk's trace, while the counter,
	 * slab and log passes run: what the dump mutation campaign aims at) */
	FILE *trace_reads;

	bool have_kinfo;
	struct ps_kinfo ki;
	uint64_t sym[PS_KI_NSYMBOLS]; /* runtime addresses of the kinfo symbols, 0 if unknown */

	struct ps_kallsyms *kallsyms; /* loaded on first need, NULL if the dump has none */
	bool kallsyms_tried;
	char kallsyms_err[512];       /* why kallsyms == NULL after a try */

	struct {
		uint64_t vpage, ppage; /* page-aligned; vpage 0 = empty slot */
	} kvtop_cache[PS_KVTOP_CACHE];

	/* What was read, for bench/ ("within 2x of just reading the bytes"). */
	struct {
		uint64_t pt_bytes, page_struct_bytes, other_bytes, reads;
	} stats;

	char err[512];

	/* Non-NULL: pgtable.c writes "pt ID LEVEL TABLE_PA VA_START" for every table page it
	 * reads in ps_pt_walk (walker.h's trace option; walker.c sets both per mm). */
	FILE *pt_trace;
	uint64_t pt_trace_id;
};

/* Set up from a back-end: architecture, byte order, page size, KASLR offset, then the
 * architecture's init. Returns 0 or -1 (c->err). No type information needed yet. */
int ps_core_open(struct ps_core *c, const struct ps_target *t);
void ps_core_close(struct ps_core *c);
/* Take the kernel facts; resolves every kinfo symbol to a runtime address. 0 or -1. */
int ps_core_set_kinfo(struct ps_core *c, const struct ps_kinfo *ki);

/* Format an error into c->err; returns -1 for `return ps_core_fail(...)`. */
int ps_core_fail(struct ps_core *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A VMCOREINFO value (NULL if absent) and its number forms. */
const char *ps_core_vmcoreinfo(const struct ps_core *c, const char *key);
bool ps_core_vmcoreinfo_u64(const struct ps_core *c, const char *key, uint64_t *out); /* hex for SYMBOL()/KERNELOFFSET, decimal (may be negative) for NUMBER() */

/* Runtime address of a symbol by name: VMCOREINFO SYMBOL(name), then the kinfo's
 * link-time address + KASLR offset, then kallsyms in the dump. 0 or -1 (absent). */
int ps_core_symbol_by_name(struct ps_core *c, const char *name, uint64_t *addr);
static inline uint64_t ps_core_sym(const struct ps_core *c, enum ps_ki_symbol id)
{
	return c->sym[id];
}

/* Reads. ps_kread splits at page boundaries and translates each page (back-end's
 * read_kvirt if it has one, else arch kvtop_direct, else the kernel's page tables). */
enum ps_read_status ps_pread(struct ps_core *c, uint64_t pa, void *buf, size_t len);
enum ps_read_status ps_kread(struct ps_core *c, uint64_t va, void *buf, size_t len);
int ps_kvtop(struct ps_core *c, uint64_t va, uint64_t *pa); /* 0 or -1 */

/* The back-end's prefetch_phys hint, when it takes hints. */
static inline void ps_prefetch(struct ps_core *c, uint64_t pa)
{
	if (c->t.ops->prefetch_phys)
		c->t.ops->prefetch_phys(c->t.ctx, pa);
}

/* Typed loads from a buffer holding target memory, in the target's byte order. Inline: the
 * walk makes several per page (struct page members, page-table entries). */
static inline uint16_t ps_load_u16(const struct ps_core *c, const void *p)
{
	uint16_t v;
	memcpy(&v, p, sizeof v);
	return c->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) ? __builtin_bswap16(v) : v;
}

static inline uint32_t ps_load_u32(const struct ps_core *c, const void *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return c->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) ? __builtin_bswap32(v) : v;
}

static inline uint64_t ps_load_u64(const struct ps_core *c, const void *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof v);
	return c->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) ? __builtin_bswap64(v) : v;
}

static inline uint64_t ps_load_ptr(const struct ps_core *c, const void *p) /* ptr_size wide */
{
	return c->ptr_size == 8 ? ps_load_u64(c, p) : ps_load_u32(c, p);
}

static inline int32_t ps_load_s32(const struct ps_core *c, const void *p)
{
	return (int32_t)ps_load_u32(c, p);
}

/* A member of a struct held in BUF (offset from kinfo), sized by the member's size (1, 2,
 * 4 or 8 bytes; signed members are not sign-extended: use ps_load_s32 for _mapcount). */
uint64_t ps_member(const struct ps_core *c, const void *buf, enum ps_ki_member id);

/* Typed kernel-virtual reads. */
enum ps_read_status ps_kread_u32(struct ps_core *c, uint64_t va, uint32_t *out);
enum ps_read_status ps_kread_u64(struct ps_core *c, uint64_t va, uint64_t *out);
enum ps_read_status ps_kread_ptr(struct ps_core *c, uint64_t va, uint64_t *out);
/* A NUL-terminated string of at most cap-1 bytes. */
enum ps_read_status ps_kread_string(struct ps_core *c, uint64_t va, char *out, size_t cap);
/* Up to LEN bytes at VA, stopping at the first unreadable page: the count read (for tables
 * whose exact end is not known, so an upper bound is read). */
size_t ps_kread_upto(struct ps_core *c, uint64_t va, void *buf, size_t len);

const char *ps_read_status_name(enum ps_read_status st); /* "excluded", "not in dump", ... */

/* kallsyms.c: decode the kernel's compressed symbol table through the tables VMCOREINFO
 * lists (kallsyms_names, _token_table, _token_index, _offsets, _relative_base,
 * _num_syms; Linux 6.0+ exports them). */
int ps_kallsyms_load(struct ps_core *c);                /* 0, or -1 (c->err) */
int ps_kallsyms_lookup(struct ps_core *c, const char *name, uint64_t *addr); /* 0/-1 */
/* The same for NAMES[0..N) at once, in one pass over the table: FOUND[i] and ADDRS[i] set
 * for each name kallsyms has (the first of equal names, as ps_kallsyms_lookup finds it). */
void ps_kallsyms_lookup_many(struct ps_core *c, const char *const *names, size_t n,
			     uint64_t *addrs, bool *found);
/* The symbol at or below ADDR (kallsyms loaded): its name and ADDR's offset in it. 0/-1. */
int ps_kallsyms_name_at(struct ps_core *c, uint64_t addr, const char **name, uint64_t *offset);
void ps_kallsyms_free(struct ps_kallsyms *k);

#endif
