/* objects.c - per-object access counters (--objects=yes): loads, stores and bytes loaded /
 * stored per heap object (the blocks allocated at the same stack, first --obj-stack-depth
 * frames, are one object) and per global/static variable (addresses and sizes from the
 * DWARF variable info of each object Valgrind loads).
 *
 * Per access: a one-entry cache of the last object range hit, then a negative cache of pages
 * known to hold no object (stack accesses, mostly), then the live block table and the global
 * table (both ordered sets of ranges). An access is charged to the object holding its first
 * byte; accesses by system calls (read() into a buffer) are no instructions and not counted. */
#include <stddef.h>

#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_oset.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_xarray.h"
#include "ps_tool.h"
#include "heap_internal.h"

struct ps_obj {
	struct ps_obj *next; /* VgHashNode layout: next, key (stack hash) */
	UWord key;
	struct ps_obj *all_next; /* creation order, for output */
	Bool global;
	UInt nips;
	Addr *ips;           /* heap: the (trimmed) allocation stack */
	Addr addr;           /* global: its address */
	HChar short_name[16];
	SizeT size;          /* heap: largest block; global: the variable's size */
	ULong blocks, loads, stores, bload, bstore;
};

static VgHashTable *heap_objs;
static struct ps_obj *all_first, **all_tail = &all_first;

/* Global variables: ranges in an ordered set (never overlapping: an overlapping later one,
 * e.g. a union member described twice, is dropped). */
struct global_range {
	Addr start;
	SizeT size;
	struct ps_obj *obj;
};
static OSet *globals;

/* ---- fast path ------------------------------------------------------------------------------ */
/* The last object range the helper saw: [cache_lo, cache_lo + cache_len) holds the first
 * bytes of cache_obj, or of no object at all (cache_obj NULL: a page known to be empty).
 * cache_len 0 = empty. The generated code counts accesses in this range itself, into
 * ps_obj_pend (ps_tool.h), flushed into cache_obj before the range changes. */
UWord ps_obj_lo, ps_obj_len;
ULong ps_obj_pend[2];
#define cache_lo ps_obj_lo
#define cache_len ps_obj_len
static struct ps_obj *cache_obj;

/* Add the accesses the generated code counted to their object. */
static void flush_pending(void)
{
	ULong ld = ps_obj_pend[0], st = ps_obj_pend[1];
	if (!(ld | st))
		return;
	ps_obj_pend[0] = ps_obj_pend[1] = 0;
	if (!cache_obj)
		return;
	const ULong bytes = (1ull << PS_OBJ_PEND_SHIFT) - 1;
	cache_obj->loads += ld >> PS_OBJ_PEND_SHIFT;
	cache_obj->bload += ld & bytes;
	cache_obj->stores += st >> PS_OBJ_PEND_SHIFT;
	cache_obj->bstore += st & bytes;
}

/* The range no longer holds what it says (its block was freed, a block or a variable
 * appeared in an empty page, variables were unloaded): forget it. */
static void forget_range(void)
{
	flush_pending();
	cache_len = 0;
	cache_obj = NULL;
}

/* Pages known to hold no object (direct-mapped by page number). An entry is valid while
 * its generation is current: a new heap block forgets the entries of its own pages, new
 * global variables (rare) start a new generation. Generation 0 is never current. */
#define NEG_PAGE_BITS 12
#define NEG_SLOTS 4096
static struct {
	Addr page;
	ULong gen;
} neg[NEG_SLOTS];
static ULong gen = 1;

static void neg_forget(Addr lo, Addr hi)
{
	if (cache_len && !cache_obj && lo < cache_lo + cache_len && cache_lo < hi)
		forget_range(); /* the empty page of the range is no longer empty */
	Addr first = lo >> NEG_PAGE_BITS, last = (hi - 1) >> NEG_PAGE_BITS;
	if (last - first >= NEG_SLOTS) {
		gen++;
		return;
	}
	for (Addr p = first; p <= last; p++) {
		UInt slot = (UInt)(p & (NEG_SLOTS - 1));
		if (neg[slot].page == p)
			neg[slot].gen = 0;
	}
}

static Word cmp_addr_in_global(const void *key, const void *elem)
{
	Addr a = *(const Addr *)key;
	const struct global_range *g = elem;
	if (a < g->start)
		return -1;
	return a >= g->start + g->size ? 1 : 0;
}

struct range {
	Addr lo, hi;
};

static Word cmp_range_overlaps_global(const void *key, const void *elem)
{
	const struct range *r = key;
	const struct global_range *g = elem;
	if (r->hi <= g->start)
		return -1;
	return r->lo >= g->start + g->size ? 1 : 0;
}

/* The range becomes the empty page at lo: accesses there need no lookup. */
static void empty_page(Addr lo)
{
	cache_lo = lo;
	cache_len = 1UL << NEG_PAGE_BITS;
	cache_obj = NULL;
}

static struct ps_obj *lookup_slow(Addr a)
{
	Addr page = a >> NEG_PAGE_BITS;
	UInt slot = (UInt)(page & (NEG_SLOTS - 1));
	if (neg[slot].page == page && neg[slot].gen == gen) {
		empty_page(page << NEG_PAGE_BITS);
		return NULL;
	}
	struct ps_block *b = ps_heap_block_at(a);
	if (b) {
		cache_lo = b->start;
		cache_len = b->size ? b->size : 1;
		cache_obj = b->site->obj;
		return cache_obj;
	}
	struct global_range *g = VG_(OSetGen_Lookup)(globals, &a);
	if (g) {
		cache_lo = g->start;
		cache_len = g->size;
		cache_obj = g->obj;
		return cache_obj;
	}
	Addr lo = page << NEG_PAGE_BITS;
	struct range r = { lo, lo + (1UL << NEG_PAGE_BITS) };
	if (!ps_heap_any_block_in(r.lo, r.hi) &&
	    !VG_(OSetGen_LookupWithCmp)(globals, &r, cmp_range_overlaps_global)) {
		neg[slot].page = page;
		neg[slot].gen = gen;
		empty_page(lo);
	}
	return NULL;
}

void ps_obj_access(Addr a, SizeT size, Bool is_store)
{
	struct ps_obj *o;
	flush_pending();
	if (LIKELY(a - cache_lo < cache_len))
		o = cache_obj; /* NULL: a page known to hold no object */
	else
		o = lookup_slow(a);
	if (!o)
		return;
	if (is_store) {
		o->stores++;
		o->bstore += size;
	} else {
		o->loads++;
		o->bload += size;
	}
}

/* ---- heap objects --------------------------------------------------------------------------- */
static struct ps_obj *new_obj(Bool global)
{
	struct ps_obj *o = VG_(calloc)("ps.obj", 1, sizeof *o);
	o->global = global;
	*all_tail = o;
	all_tail = &o->all_next;
	return o;
}

static Word cmp_stack(const void *node1, const void *node2)
{
	const struct ps_obj *a = node1, *b = node2;
	if (a->nips != b->nips)
		return 1;
	for (UInt i = 0; i < a->nips; i++)
		if (a->ips[i] != b->ips[i])
			return 1;
	return 0;
}

struct ps_obj *ps_objects_site(const Addr *ips, UInt n)
{
	if (ps_obj_stack_depth && n > ps_obj_stack_depth)
		n = ps_obj_stack_depth;
	/* FNV-1a over the addresses (the 64- or 32-bit variant, as UWord) */
#if VG_WORDSIZE == 8
	UWord h = 14695981039346656037UL;
	const UWord prime = 1099511628211UL;
#else
	UWord h = 2166136261UL;
	const UWord prime = 16777619UL;
#endif
	for (UInt i = 0; i < n; i++) {
		h ^= ips[i];
		h *= prime;
	}
	struct ps_obj probe;
	probe.key = h;
	probe.nips = n;
	probe.ips = (Addr *)ips;
	struct ps_obj *o = VG_(HT_gen_lookup)(heap_objs, &probe, cmp_stack);
	if (o)
		return o;
	o = new_obj(False);
	o->key = h;
	o->nips = n;
	o->ips = VG_(malloc)("ps.obj.ips", (n ? n : 1) * sizeof *o->ips);
	for (UInt i = 0; i < n; i++)
		o->ips[i] = ips[i];
	VG_(HT_add_node)(heap_objs, o);
	return o;
}

void ps_objects_block_added(struct ps_obj *o, Addr start, SizeT size)
{
	o->blocks++;
	if (size > o->size)
		o->size = size;
	neg_forget(start, start + (size ? size : 1)); /* its pages are no longer empty */
}

void ps_objects_block_removed(Addr start, SizeT size)
{
	(void)size;
	if (cache_len && cache_lo == start && cache_obj)
		forget_range();
}

/* ---- global variables ----------------------------------------------------------------------- */
static void add_globals(ULong di_handle)
{
	if (!di_handle)
		return;
	XArray *gbs = VG_(di_get_global_blocks_from_dihandle)(di_handle, False);
	Word n = VG_(sizeXA)(gbs);
	for (Word i = 0; i < n; i++) {
		const GlobalBlock *gb = VG_(indexXA)(gbs, i);
		/* the variables of the preloads (the malloc replacement's own, when its objects
		 * carry debug information, as a Valgrind built from source has) are not the
		 * program's: their soname (mk/valgrind.mk sets the tool's) says whose they are */
		if (!gb->szB || VG_(strncmp)(gb->soname, "vgpreload_", 10) == 0)
			continue;
		struct range r = { gb->addr, gb->addr + gb->szB };
		if (VG_(OSetGen_LookupWithCmp)(globals, &r, cmp_range_overlaps_global))
			continue;
		struct ps_obj *o = new_obj(True);
		o->addr = gb->addr;
		o->size = gb->szB;
		VG_(strncpy)(o->short_name, gb->name, sizeof o->short_name - 1);
		struct global_range *g = VG_(OSetGen_AllocNode)(globals, sizeof *g);
		g->start = gb->addr;
		g->size = gb->szB;
		g->obj = o;
		VG_(OSetGen_Insert)(globals, g);
	}
	VG_(deleteXA)(gbs);
	gen++;
	forget_range(); /* an empty page of the range may hold variables now */
}

static void new_mem_startup(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di_handle)
{
	(void)a, (void)len, (void)rr, (void)ww, (void)xx;
	add_globals(di_handle);
}

static void die_mem_munmap(Addr a, SizeT len)
{
	/* An unloaded object's variables stop being objects (their counts stay). */
	struct range r = { a, a + len };
	struct global_range *g;
	while ((g = VG_(OSetGen_LookupWithCmp)(globals, &r, cmp_range_overlaps_global))) {
		Addr key = g->start;
		VG_(OSetGen_FreeNode)(globals, VG_(OSetGen_Remove)(globals, &key));
	}
	forget_range();
}

void ps_objects_init(void)
{
	heap_objs = VG_(HT_construct)("ps.objs");
	globals = VG_(OSetGen_Create)(offsetof(struct global_range, start), cmp_addr_in_global,
				      VG_(malloc), "ps.globals", VG_(free));
	if (ps_obj_globals) {
		VG_(track_new_mem_startup)(new_mem_startup);
		VG_(track_new_mem_mmap)(new_mem_startup);
		VG_(track_die_mem_munmap)(die_mem_munmap);
	}
}

/* ---- output --------------------------------------------------------------------------------- */
/* Text between <tag> and </tag> in s, XML entities of the five kinds undone. */
static Bool xml_field(const HChar *s, const HChar *open, const HChar *close, HChar *out,
		      SizeT len)
{
	const HChar *a = VG_(strstr)(s, open), *b;
	if (!a || !(b = VG_(strstr)(a += VG_(strlen)(open), close)))
		return False;
	static const struct { const HChar *ent; HChar c; } ents[] = {
		{ "&amp;", '&' }, { "&lt;", '<' }, { "&gt;", '>' }, { "&quot;", '"' }, { "&apos;", '\'' },
	};
	SizeT o = 0;
	while (a < b && o + 1 < len) {
		HChar c = *a++;
		if (c == '&')
			for (UInt i = 0; i < sizeof ents / sizeof ents[0]; i++) {
				SizeT l = VG_(strlen)(ents[i].ent);
				if (VG_(strncmp)(a - 1, ents[i].ent, l) == 0) {
					c = ents[i].c;
					a += l - 1;
					break;
				}
			}
		out[o++] = c;
	}
	out[o] = 0;
	return o > 0;
}

/* A global's declaration (file as DWARF names it, line) from Valgrind's description of the
 * address. Asked in XML form: the file and line come as separate fields, and the core's
 * warnings about thread-local variables' locations (DW_OP_form_tls_address, printed for
 * every description in the text form) stay quiet. */
static Bool declared_at(Addr a, HChar *file, SizeT flen, UInt *line)
{
	XArray *d1 = VG_(newXA)(VG_(malloc), "ps.descr1", VG_(free), sizeof(HChar));
	XArray *d2 = VG_(newXA)(VG_(malloc), "ps.descr2", VG_(free), sizeof(HChar));
	Bool xml = VG_(clo_xml);
	VG_(clo_xml) = True;
	Bool ok = VG_(get_data_description)(d1, d2, VG_(current_DiEpoch)(), a);
	VG_(clo_xml) = xml;
	HChar num[32];
	if (ok) {
		const HChar *s = VG_(indexXA)(d2, 0);
		ok = xml_field(s, "<file>", "</file>", file, flen) &&
		     xml_field(s, "<line>", "</line>", num, sizeof num);
		if (ok) {
			*line = (UInt)VG_(strtoll10)(num, NULL);
			ok = *line > 0;
		}
	}
	VG_(deleteXA)(d1);
	VG_(deleteXA)(d2);
	return ok;
}

static void write_obj(struct ps_obj *o, UInt id)
{
	DiEpoch ep = VG_(current_DiEpoch)();
	HChar stack[2048], file[1024], name[512];
	const HChar *s;
	UInt line = 0;
	Bool has_line = False;
	name[0] = file[0] = 0;
	if (o->global) {
		PtrdiffT off;
		if (VG_(get_datasym_and_offset)(ep, o->addr, &s, &off) && off == 0)
			VG_(strncpy)(name, s, sizeof name - 1);
		else
			VG_(strcpy)(name, o->short_name);
		name[sizeof name - 1] = 0;
		has_line = declared_at(o->addr, file, sizeof file, &line);
		VG_(strcpy)(stack, "-");
	} else {
		ps_heap_stack_ids(o->ips, o->nips, stack, sizeof stack);
		if (o->nips) {
			if (VG_(get_fnname)(ep, o->ips[0], &s))
				VG_(strncpy)(name, s, sizeof name - 1);
			name[sizeof name - 1] = 0;
			const HChar *f, *dir;
			if (VG_(get_filename_linenum)(ep, o->ips[0], &f, &dir, &line)) {
				has_line = True;
				if (dir && *dir && f[0] != '/')
					VG_(snprintf)(file, sizeof file, "%s/%s", dir, f);
				else
					VG_(snprintf)(file, sizeof file, "%s", f);
			}
		}
	}
	ps_rec_begin("obj");
	ps_rec_u("id", id);
	ps_rec_raw("kind", o->global ? "global" : "heap");
	ps_rec_s("name", name);
	ps_rec_u("size", o->size);
	ps_rec_u("blocks", o->global ? 1 : o->blocks);
	ps_rec_u("loads", o->loads);
	ps_rec_u("stores", o->stores);
	ps_rec_u("bload", o->bload);
	ps_rec_u("bstore", o->bstore);
	ps_rec_raw("stack", stack);
	ps_rec_s("file", file);
	if (has_line)
		ps_rec_u("line", line);
	else
		ps_rec_raw("line", "-");
	ps_rec_end();
}

void ps_objects_end_of_run(void)
{
	/* counts kept so far go to their object; the generated code's range is emptied, so
	 * every later access reaches the helper, which counts nothing more */
	forget_range();
}

void ps_objects_fini(void)
{
	/* Every heap object (they were allocated, even if never touched); global variables only
	 * when accessed (a program with debug info has thousands, libc's included). */
	flush_pending();
	UInt id = 1;
	for (struct ps_obj *o = all_first; o; o = o->all_next)
		if (!o->global)
			write_obj(o, id++);
	for (struct ps_obj *o = all_first; o; o = o->all_next)
		if (o->global && (o->loads || o->stores))
			write_obj(o, id++);
}
