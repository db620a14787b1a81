/* heap_internal.h - shared by the heap modules of the Valgrind tool only (heap.c, objects.c,
 * alloc_tree.c): the live block table, allocation sites, and what each module offers the
 * others. The rest of the tool sees only the ps_heap_* hooks of ps_tool.h. */
#ifndef PAGESLEUTH_HEAP_INTERNAL_H
#define PAGESLEUTH_HEAP_INTERNAL_H

#include "pub_tool_basics.h"
#include "pub_tool_execontext.h"
#include "alloc_rules.h"

/* ---- options (heap.c) ----------------------------------------------------------------- */
extern Bool ps_alloc_tree_enabled;   /* --alloc-tree=yes (default) */
extern UInt ps_obj_stack_depth;      /* --obj-stack-depth=N; 0 = every frame Valgrind records */
extern Bool ps_obj_globals;          /* --obj-globals=yes (default): global variables too */

/* ---- allocation sites (heap.c) ---------------------------------------------------------
 * One per distinct allocation ExeContext (Valgrind makes them unique per stack), so the
 * expensive work (debug info lookups, rules, tree paths) is done once per stack, and an
 * allocation costs one hash lookup. */
struct ps_obj;
struct ps_site {
	struct ps_site *next; /* VgHashNode layout: next, key */
	UWord ecu;            /* the ExeContext's unique number */
	ExeContext *ec;
	UInt skip;            /* leading frames inside the malloc replacement (vgpreload) */
	struct ps_obj *obj;   /* objects.c: the merged heap object (NULL: objects off) */
	struct ar_counter **path; /* alloc_tree.c: counters charged per block (tree path, groups) */
	UInt npath;
};

/* A live heap block. Blocks never overlap; a zero-size block occupies its address. */
struct ps_block {
	Addr start;
	SizeT size;
	struct ps_site *site;
};

/* The live block containing address a, or NULL. */
struct ps_block *ps_heap_block_at(Addr a);
/* Whether any live block overlaps [lo, hi). */
Bool ps_heap_any_block_in(Addr lo, Addr hi);

/* ---- objects.c ------------------------------------------------------------------------ */
void ps_objects_init(void);
/* The heap object of an allocation site (first ps_obj_stack_depth frames after skip and
 * the frames the discard rules drop). */
struct ps_obj *ps_objects_site(const Addr *ips, UInt n);
void ps_objects_block_added(struct ps_obj *o, Addr start, SizeT size);
void ps_objects_block_removed(Addr start, SizeT size);
void ps_objects_end_of_run(void);
void ps_objects_fini(void);

/* ---- alloc_tree.c --------------------------------------------------------------------- */
/* Read and parse --alloc-rules=FILE; on error print FILE:LINE: reason and exit(1). */
void ps_alloc_rules_load(const HChar *path);
void ps_alloc_tree_init(void);
/* Fill site->path/npath from its stack (frames after site->skip). Returns how many of its
 * top frames the discard rules dropped (0 without rules). */
UInt ps_alloc_tree_site(struct ps_site *site, const Addr *ips, UInt n);
void ps_alloc_tree_alloc(const struct ps_site *site, SizeT size);
void ps_alloc_tree_free(const struct ps_site *site, SizeT size);
void ps_alloc_tree_fini(void);

/* ---- shared helpers (heap.c) ---------------------------------------------------------- */
/* Frame ids "id,id,..." of ips[0..n-1], all return addresses (each looked up at ip-1 so the
 * line is the call's), truncated at a frame boundary to fit len. */
void ps_heap_stack_ids(const Addr *ips, UInt n, HChar *buf, SizeT len);

#endif
