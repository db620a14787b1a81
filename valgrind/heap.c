/* heap.c - the heap side of the tool: options (--objects, --alloc-tree, --alloc-rules,
 * --obj-stack-depth), malloc/calloc/realloc/free/new/delete/memalign replacement, the live
 * block table (an OSet of address ranges: exact lookup for free, containment lookup for
 * per-object accounting), and allocation sites (one per distinct allocation stack).
 *
 * Malloc is replaced only when a heap analysis is asked for (--objects=yes, --alloc-tree=yes
 * or --alloc-rules): otherwise the program runs its own allocator, as it does natively. The
 * core decides neither: it preloads vgpreload_pagesleuth whenever the file exists (before
 * any tool code runs), so without heap analysis the tool blanks its path out of the client's
 * LD_PRELOAD (keep_own_allocator). What must be decided before options are parsed (the
 * replacement, variable debug info for --objects, libc's clean-up at exit) is decided in
 * pre_clo_init, so the command line is read there once. Block contents are copied by the
 * tool (realloc) or zeroed (calloc) outside the client's instructions: those bytes are not
 * counted as client accesses. */
#include <stddef.h>

#include "pub_tool_basics.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_execontext.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_oset.h"
#include "pub_tool_replacemalloc.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_xarray.h"
#include "ps_tool.h"
#include "heap_internal.h"

/* ---- options ----------------------------------------------------------------------------- */
Bool ps_obj_enabled = False;
Bool ps_obj_globals = True;
static Bool var_info; /* variable debug info requested (objects with globals) */
Bool ps_alloc_tree_enabled = False;
static Bool tree_said;  /* --alloc-tree given: --alloc-rules does not turn the tree on */
UInt ps_obj_stack_depth = 0;
static const HChar *rules_path;
static Bool heap_on; /* allocation stacks recorded (objects or tree): malloc replaced */

/* "--objects=yes" or "--pagesleuth:objects=yes" -> "objects=yes"; NULL for other args. */
static const HChar *own_option(const HChar *arg)
{
	if (VG_(strncmp)(arg, "--pagesleuth:", 13) == 0)
		return arg + 13;
	if (arg[0] == '-' && arg[1] == '-')
		return arg + 2;
	return NULL;
}

/* Decide, before option parsing, what the core must provide (malloc replacement, variable
 * debug info); the last occurrence of an option wins, as in normal parsing. Bad values are
 * left to ps_heap_process_cmd_line_option, which reports them. *tree is set only when
 * --alloc-tree is given. */
static void prescan_options(Bool *objects, Bool *globals, Bool *tree, Bool *tree_given, Bool *rules)
{
	XArray *args = VG_(args_for_valgrind);
	Word n = args ? VG_(sizeXA)(args) : 0;
	for (Word i = 0; i < n; i++) {
		const HChar *o = own_option(*(HChar **)VG_(indexXA)(args, i));
		if (!o)
			continue;
		if (VG_STREQ(o, "objects=yes"))
			*objects = True;
		else if (VG_STREQ(o, "objects=no"))
			*objects = False;
		else if (VG_STREQ(o, "obj-globals=yes"))
			*globals = True;
		else if (VG_STREQ(o, "obj-globals=no"))
			*globals = False;
		else if (VG_STREQ(o, "alloc-tree=yes"))
			*tree = *tree_given = True;
		else if (VG_STREQ(o, "alloc-tree=no"))
			*tree = False, *tree_given = True;
		else if (VG_STREQN(12, o, "alloc-rules="))
			*rules = True;
	}
}

/* No heap analysis: the program keeps its own allocator. The core has put this tool's
 * preload into the client's LD_PRELOAD ("core.so:tool.so[:the user's]", on the client's
 * stack, before pre_clo_init); its path is overwritten with spaces, which the dynamic loader
 * skips like the colons, so no string of the environment moves and the program's own
 * getenv and stack see the layout they would with the preload. False if it is not there
 * (the VALGRIND_LIB has no preload: nothing to do). */
static Bool keep_own_allocator(void)
{
	HChar path[4096];
	if (VG_(snprintf)(path, sizeof path, "%s/vgpreload_pagesleuth-%s.so", VG_(libdir),
			  PS_VG_PLATFORM) >= (Int)sizeof path)
		return False;
	SizeT len = VG_(strlen)(path);
	for (HChar **e = VG_(client_envp); e && *e; e++) {
		if (VG_(strncmp)(*e, "LD_PRELOAD=", 11) != 0)
			continue;
		for (HChar *p = *e + 11; *p;) {
			HChar *end = p;
			while (*end && *end != ':' && *end != ' ')
				end++;
			if ((SizeT)(end - p) == len && VG_(strncmp)(p, path, len) == 0) {
				VG_(memset)(p, ' ', len);
				return True;
			}
			p = *end ? end + 1 : end;
		}
		break; /* the loader reads the first LD_PRELOAD only, as the core writes it */
	}
	return False;
}

/* ---- live blocks ---------------------------------------------------------------------------- */
static OSet *blocks; /* struct ps_block, keyed by start, compared as ranges */
static VgHashTable *sites;

static Addr block_end(const struct ps_block *b)
{
	return b->start + (b->size ? b->size : 1);
}

/* key: an Addr; equal when the address lies inside the block. */
static Word cmp_addr_in_block(const void *key, const void *elem)
{
	Addr a = *(const Addr *)key;
	const struct ps_block *b = elem;
	if (a < b->start)
		return -1;
	return a >= block_end(b) ? 1 : 0;
}

struct range {
	Addr lo, hi;
};

static Word cmp_range_overlaps_block(const void *key, const void *elem)
{
	const struct range *r = key;
	const struct ps_block *b = elem;
	if (r->hi <= b->start)
		return -1;
	return r->lo >= block_end(b) ? 1 : 0;
}

struct ps_block *ps_heap_block_at(Addr a)
{
	return VG_(OSetGen_Lookup)(blocks, &a);
}

Bool ps_heap_any_block_in(Addr lo, Addr hi)
{
	struct range r = { lo, hi };
	return VG_(OSetGen_LookupWithCmp)(blocks, &r, cmp_range_overlaps_block) != NULL;
}

/* ---- allocation sites ----------------------------------------------------------------------- */
#define MAX_FRAMES 256

struct collect {
	Addr ips[MAX_FRAMES];
	UInt n;
};

static void collect_ip(UInt n, DiEpoch ep, Addr ip, void *opaque)
{
	struct collect *c = opaque;
	(void)n;
	(void)ep;
	if (c->n < MAX_FRAMES)
		c->ips[c->n++] = ip; /* outer frames already at the call instruction */
}

/* Whether ip is in the malloc replacement (vgpreload_pagesleuth) or the core's preload. */
static Bool in_preload(Addr ip)
{
	const HChar *obj;
	return VG_(get_objname)(VG_(current_DiEpoch)(), ip, &obj) &&
	       VG_(strstr)(obj, "/vgpreload_") != NULL;
}

static struct ps_site *site_of(ExeContext *ec)
{
	UWord ecu = VG_(get_ECU_from_ExeContext)(ec);
	struct ps_site *s = VG_(HT_lookup)(sites, ecu);
	if (s)
		return s;
	s = VG_(malloc)("ps.site", sizeof *s);
	s->ecu = ecu;
	s->ec = ec;
	s->obj = NULL;
	s->path = NULL;
	s->npath = 0;
	struct collect c;
	c.n = 0;
	VG_(apply_ExeContext)(collect_ip, &c, ec);
	/* The allocation function itself (malloc, operator new, ... in the preload) is no
	 * part of the program's stack: drop it. */
	UInt skip = 0;
	while (skip + 1 < c.n && in_preload(c.ips[skip]))
		skip++;
	s->skip = skip;
	/* The rules' discard rules trim the stack for the tree and the objects alike: an
	 * object is named after (and told apart by) the code that asked for the memory, not
	 * the wrapper it went through. */
	UInt discard = 0;
	if (ps_alloc_tree_enabled)
		discard = ps_alloc_tree_site(s, c.ips + skip, c.n - skip);
	if (ps_obj_enabled)
		s->obj = ps_objects_site(c.ips + skip + discard, c.n - skip - discard);
	VG_(HT_add_node)(sites, s);
	return s;
}

void ps_heap_stack_ids(const Addr *ips, UInt n, HChar *buf, SizeT len)
{
	SizeT used = 0;
	buf[0] = 0;
	for (UInt i = 0; i < n; i++) {
		HChar one[16];
		VG_(snprintf)(one, sizeof one, "%s%u", i ? "," : "", ps_frame_id(ips[i]));
		SizeT l = VG_(strlen)(one);
		if (used + l + 1 > len)
			break;
		VG_(strcpy)(buf + used, one);
		used += l;
	}
	if (!used && len >= 2)
		VG_(strcpy)(buf, "-");
}

static void add_block(ThreadId tid, Addr p, SizeT size)
{
	struct ps_site *s = heap_on ? site_of(VG_(record_ExeContext)(tid, 0)) : NULL;
	struct ps_block *b = VG_(OSetGen_AllocNode)(blocks, sizeof *b);
	b->start = p;
	b->size = size;
	b->site = s;
	VG_(OSetGen_Insert)(blocks, b);
	if (!s)
		return;
	if (s->obj)
		ps_objects_block_added(s->obj, p, size);
	if (s->npath)
		ps_alloc_tree_alloc(s, size);
}

/* Remove the block starting exactly at p; False if there is none (a bad free). */
static Bool remove_block(Addr p, SizeT *size)
{
	struct ps_block *b = VG_(OSetGen_Lookup)(blocks, &p);
	if (!b || b->start != p)
		return False;
	VG_(OSetGen_Remove)(blocks, &p);
	*size = b->size;
	if (b->site && b->site->obj)
		ps_objects_block_removed(b->start, b->size);
	if (b->site && b->site->npath)
		ps_alloc_tree_free(b->site, b->size);
	VG_(OSetGen_FreeNode)(blocks, b);
	return True;
}

/* ---- the replacement functions ------------------------------------------------------------- */
static void *new_block(ThreadId tid, SizeT size, SizeT align, Bool zero)
{
	if ((SSizeT)size < 0)
		return NULL;
	if (align < VG_(clo_alignment))
		align = VG_(clo_alignment);
	/* Valgrind's allocator panics on an alignment above 16 MiB: the client gets NULL (as
	 * from glibc when it cannot satisfy the request) instead of a dead run. */
	if (align > ((SizeT)16 << 20))
		return NULL;
	while (align & (align - 1)) /* a power of two, as glibc rounds it */
		align = (align | (align - 1)) + 1;
	void *p = VG_(cli_malloc)(align, size);
	if (!p)
		return NULL;
	if (zero)
		VG_(memset)(p, 0, size);
	add_block(tid, (Addr)p, size);
	return p;
}

static void *ps_malloc(ThreadId tid, SizeT n)
{
	return new_block(tid, n, VG_(clo_alignment), False);
}

static void *ps_memalign(ThreadId tid, SizeT align, SizeT n)
{
	return new_block(tid, n, align, False);
}

static void *ps_new_aligned(ThreadId tid, SizeT n, SizeT align)
{
	return new_block(tid, n, align, False);
}

static void *ps_calloc(ThreadId tid, SizeT nmemb, SizeT size1)
{
	if (size1 && nmemb > ~(SizeT)0 / size1)
		return NULL; /* overflow */
	return new_block(tid, nmemb * size1, VG_(clo_alignment), True);
}

static void ps_free(ThreadId tid, void *p)
{
	SizeT size;
	(void)tid;
	if (p && remove_block((Addr)p, &size))
		VG_(cli_free)(p);
}

static void ps_delete_aligned(ThreadId tid, void *p, SizeT align)
{
	(void)align;
	ps_free(tid, p);
}

static void *ps_realloc(ThreadId tid, void *old, SizeT n)
{
	if (!old)
		return ps_malloc(tid, n);
	if ((SSizeT)n < 0)
		return NULL;
	struct ps_block *b = VG_(OSetGen_Lookup)(blocks, &old);
	if (!b || b->start != (Addr)old)
		return NULL; /* not a block of ours: leave it alone */
	void *p = VG_(cli_malloc)(VG_(clo_alignment), n);
	if (!p)
		return NULL;
	VG_(memcpy)(p, old, b->size < n ? b->size : n);
	/* Accounting: the old block is released before the new one counts, as glibc's
	 * in-place growth would; the new block belongs to realloc's caller's stack. */
	SizeT old_size;
	remove_block((Addr)old, &old_size);
	VG_(cli_free)(old);
	add_block(tid, (Addr)p, n);
	return p;
}

static SizeT ps_usable_size(ThreadId tid, void *p)
{
	(void)tid;
	struct ps_block *b = VG_(OSetGen_Lookup)(blocks, &p);
	return b && b->start == (Addr)p ? b->size : 0;
}

/* ---- hooks (ps_tool.h) ---------------------------------------------------------------------- */
void ps_heap_pre_clo_init(void)
{
	Bool objects = False, globals = True, tree = False, tree_given = False, rules = False;
	prescan_options(&objects, &globals, &tree, &tree_given, &rules);
	if (rules && tree_given && !tree) {
		VG_(fmsg)("--alloc-rules needs the allocation tree: drop --alloc-tree=no\n");
		VG_(exit)(1);
	}
	tree = tree || rules;
	heap_on = objects || tree;
	if (heap_on) {
		VG_(needs_malloc_replacement)(ps_malloc, ps_malloc, ps_new_aligned, ps_malloc,
					      ps_new_aligned, ps_memalign, ps_calloc, ps_free,
					      ps_free, ps_delete_aligned, ps_free, ps_delete_aligned,
					      ps_realloc, ps_usable_size, 0);
		/* The blocks live at exit are the program's: libc's and libstdc++'s own buffers
		 * (stdio's, locale data) are freed first by __libc_freeres and
		 * __gnu_cxx::__freeres, which the core runs in the client before fini (as for
		 * memcheck and DHAT; --run-libc-freeres=no keeps them). Their instructions are
		 * not the program's: the working set ends before (ps_ws_finish). */
		VG_(needs_libc_freeres)();
		VG_(needs_cxx_freeres)();
	} else if (!keep_own_allocator()) {
		/* No preload was found to remove. Should the core load one after all, its
		 * functions find the tool's behind them: malloc replaced, nothing recorded. */
		VG_(needs_malloc_replacement)(ps_malloc, ps_malloc, ps_new_aligned, ps_malloc,
					      ps_new_aligned, ps_memalign, ps_calloc, ps_free,
					      ps_free, ps_delete_aligned, ps_free, ps_delete_aligned,
					      ps_realloc, ps_usable_size, 0);
	}
	/* Global variables' addresses and sizes come from the DWARF variable info, which the
	 * core reads only when a tool asks for it before option parsing. Reading it is a fixed
	 * start-up cost (1.7 s of CPU with Debian's libc6-dbg installed): --obj-globals=no
	 * skips it when heap objects are enough. */
	var_info = objects && globals;
	if (var_info)
		VG_(needs_var_info)();
}

Bool ps_heap_process_cmd_line_option(const HChar *arg)
{
	Bool b;
	if VG_BOOL_CLO(arg, "--objects", b)
		ps_obj_enabled = b;
	else if VG_BOOL_CLO(arg, "--obj-globals", b)
		ps_obj_globals = b;
	else if VG_BOOL_CLO(arg, "--alloc-tree", b)
		ps_alloc_tree_enabled = b, tree_said = True;
	else if VG_BINT_CLO(arg, "--obj-stack-depth", ps_obj_stack_depth, 1, MAX_FRAMES)
		{}
	else if VG_STR_CLO(arg, "--alloc-rules", rules_path) {
		if (!*rules_path)
			VG_(fmsg_bad_option)(arg, "--alloc-rules needs a file name\n");
		/* Read now: a bad file stops the run before the output file is created. */
		ps_alloc_rules_load(rules_path);
	} else
		return False;
	return True;
}

void ps_heap_print_usage(void)
{
	VG_(printf)(
"    --objects=yes|no          per-object loads/stores: heap blocks merged by allocation\n"
"                              stack, global variables from debug info [no]\n"
"    --obj-globals=yes|no      with --objects: global variables too; reading their\n"
"                              debug info costs start-up time [yes]\n"
"    --obj-stack-depth=N       frames of the allocation stack that tell heap objects\n"
"                              apart (1..%d) [all Valgrind records, see --num-callers]\n"
"    --alloc-tree=yes|no       allocation tree: current/peak bytes per stack and group\n"
"                              [no; yes with --alloc-rules]\n"
"    --alloc-rules=FILE        group and trim allocation stacks by rules\n"
"                              (docs/alloc-rules.md)\n"
"    Any of --objects=yes, --alloc-tree=yes, --alloc-rules replaces malloc by the tool's\n"
"    (Valgrind's allocator: other code, other addresses); without them the program runs\n"
"    its own.\n", MAX_FRAMES);
}

#if defined(VGA_arm)
/* The core's --unw-stack-scan-thresh (ARM only; pub_core_options.h, not in the tool API, but
 * in the libcoregrind the tool links statically). Debian's armhf
 * libreplacemalloc_toolpreload has no unwind information Valgrind reads (no .eh_frame or
 * .debug_frame, only .ARM.exidx): the CFI unwinder stops in the replacement malloc, and
 * every block would be malloc's own object, its stack that one frame. Stack scanning (the
 * words of the stack that are return addresses after a call instruction) recovers the
 * callers; with the heap modules it is on when the stack has fewer than 2 frames, unless
 * the option set it (to anything but its default 0). */
extern UInt VG_(clo_unw_stack_scan_thresh);
#endif

void ps_heap_post_clo_init(void)
{
#if defined(VGA_arm)
	if (heap_on && VG_(clo_unw_stack_scan_thresh) == 0)
		VG_(clo_unw_stack_scan_thresh) = 2;
#endif
	/* rules group the tree: asking for them asks for it (with --alloc-tree=no the prescan
	 * stopped the run) */
	if (rules_path && !tree_said)
		ps_alloc_tree_enabled = True;
	/* The prescan and the parsed options agree (same arguments, same last-one-wins). */
	tl_assert(heap_on == (ps_obj_enabled || ps_alloc_tree_enabled));
	tl_assert(var_info == (ps_obj_enabled && ps_obj_globals));
	blocks = VG_(OSetGen_Create)(offsetof(struct ps_block, start), cmp_addr_in_block,
				     VG_(malloc), "ps.blocks", VG_(free));
	sites = VG_(HT_construct)("ps.sites");
	if (ps_obj_enabled)
		ps_objects_init();
	if (ps_alloc_tree_enabled)
		ps_alloc_tree_init();
}

void ps_heap_end_of_run(void)
{
	if (ps_obj_enabled)
		ps_objects_end_of_run();
}

void ps_heap_fini(void)
{
	if (ps_obj_enabled)
		ps_objects_fini();
	if (ps_alloc_tree_enabled)
		ps_alloc_tree_fini();
}
