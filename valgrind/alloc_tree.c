/* alloc_tree.c - allocation trees (--alloc-tree=yes): current, peak, maximum and total bytes
 * per call-stack tree node, under the groups of the --alloc-rules file (trace/alloc_rules:
 * discard rules trim the top of each stack, group rules pick the group; docs/alloc-rules.md).
 *
 * Tree shape (as Massif's): under each group, the first level is the allocating function
 * (after discarding), its children are its callers, and so on down to main. A node counts
 * every block whose stack begins with the node's path; a group counts its own stacks and its
 * subgroups'. Each allocation site (distinct stack) is resolved once to the list of counters
 * it charges (tree path + group + parent groups), so an allocation costs that many adds. */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vki.h"
#include "ps_tool.h"
#include "heap_internal.h"

struct anode {
	struct ar_counter c;
	Addr ip;                          /* 0 for a group node */
	struct anode *child, *sibling;   /* children in creation order via child_tail */
	struct anode **child_tail;
};

static struct ar_rules *rules;
static struct ar_heap heap;
static struct anode *group_nodes; /* one per group, index = group */
static unsigned ngroups;
static HChar *rules_text;
static const HChar *rules_file;

static void *tool_alloc(void *ctx, size_t n)
{
	(void)ctx;
	return VG_(malloc)("ps.rules", n);
}

static void tool_free(void *ctx, void *p)
{
	(void)ctx;
	VG_(free)(p);
}

static const struct ar_allocator allocator = { tool_alloc, tool_free, NULL };

static void parse_or_exit(const HChar *name, const HChar *text, SizeT len)
{
	struct ar_error err;
	if (rules)
		ar_rules_free(rules);
	rules = ar_parse(text, len, &allocator, &err);
	if (!rules) {
		if (err.line)
			VG_(fmsg)("%s:%u: %s\n", name, err.line, err.reason);
		else
			VG_(fmsg)("%s: %s\n", name, err.reason);
		VG_(exit)(1);
	}
}

#define MAX_RULES_BYTES (16 << 20)

void ps_alloc_rules_load(const HChar *path)
{
	SysRes sr = VG_(open)(path, VKI_O_RDONLY, 0);
	if (sr_isError(sr)) {
		UWord e = sr_Err(sr);
		VG_(fmsg)("%s: cannot open the rules file (%s)\n", path,
			  e == VKI_ENOENT ? "no such file" : e == VKI_EACCES ? "permission denied"
			  : "open failed");
		VG_(exit)(1);
	}
	Int fd = (Int)sr_Res(sr);
	SizeT cap = 4096, len = 0;
	HChar *buf = VG_(malloc)("ps.rules.text", cap);
	for (;;) {
		if (len == cap) {
			if (cap >= MAX_RULES_BYTES) {
				VG_(fmsg)("%s: rules file larger than %d bytes\n", path, MAX_RULES_BYTES);
				VG_(exit)(1);
			}
			cap *= 2;
			buf = VG_(realloc)("ps.rules.text", buf, cap);
		}
		Int got = VG_(read)(fd, buf + len, (Int)(cap - len));
		if (got < 0) {
			VG_(fmsg)("%s: cannot read the rules file%s\n", path,
				  got == -VKI_EISDIR ? " (a directory)" : "");
			VG_(exit)(1);
		}
		if (got == 0)
			break;
		len += (SizeT)got;
	}
	VG_(close)(fd);
	parse_or_exit(path, buf, len);
	if (rules_text)
		VG_(free)(rules_text);
	rules_text = buf;
	rules_file = path;
}

void ps_alloc_tree_init(void)
{
	if (!rules)
		parse_or_exit("(no rules)", "", 0); /* no rules: everything in "other" */
	ngroups = ar_group_count(rules);
	group_nodes = VG_(calloc)("ps.groups", ngroups, sizeof *group_nodes);
	for (unsigned g = 0; g < ngroups; g++)
		group_nodes[g].child_tail = &group_nodes[g].child;
}

static struct anode *child_of(struct anode *parent, Addr ip)
{
	for (struct anode *c = parent->child; c; c = c->sibling)
		if (c->ip == ip)
			return c;
	struct anode *c = VG_(calloc)("ps.anode", 1, sizeof *c);
	c->ip = ip;
	c->child_tail = &c->child;
	*parent->child_tail = c;
	parent->child_tail = &c->sibling;
	return c;
}

/* What the rules see of a frame: copies, as debug-info strings are overwritten by the next
 * lookup. */
static void frame_info(Addr ip, struct ar_frame *f)
{
	DiEpoch ep = VG_(current_DiEpoch)();
	const HChar *fn, *file, *dir, *obj;
	UInt line;
	f->fn = VG_(get_fnname)(ep, ip, &fn) ? VG_(strdup)("ps.fr", fn) : NULL;
	if (VG_(get_filename_linenum)(ep, ip, &file, &dir, &line)) {
		SizeT n = VG_(strlen)(file) + VG_(strlen)(dir) + 2;
		HChar *p = VG_(malloc)("ps.fr", n);
		if (*dir && file[0] != '/')
			VG_(snprintf)(p, n, "%s/%s", dir, file);
		else
			VG_(snprintf)(p, n, "%s", file);
		f->file = p;
	} else {
		f->file = NULL;
	}
	f->obj = VG_(get_objname)(ep, ip, &obj) ? VG_(strdup)("ps.fr", obj) : NULL;
}

UInt ps_alloc_tree_site(struct ps_site *site, const Addr *ips, UInt n)
{
	struct ar_frame *frames = VG_(malloc)("ps.frames", (n ? n : 1) * sizeof *frames);
	for (UInt i = 0; i < n; i++)
		frame_info(ips[i], &frames[i]);
	UInt k = ar_discard(rules, frames, n);
	unsigned g = ar_classify(rules, frames + k, n - k);
	for (UInt i = 0; i < n; i++) {
		if (frames[i].fn)
			VG_(free)((void *)frames[i].fn);
		if (frames[i].file)
			VG_(free)((void *)frames[i].file);
		if (frames[i].obj)
			VG_(free)((void *)frames[i].obj);
	}
	VG_(free)(frames);

	UInt depth = 0;
	for (int p = (int)g; p >= 0; p = ar_group_parent(rules, (unsigned)p))
		depth++;
	site->npath = (n - k) + depth;
	site->path = VG_(malloc)("ps.path", site->npath * sizeof *site->path);
	UInt at = 0;
	struct anode *node = &group_nodes[g];
	for (UInt i = k; i < n; i++) {
		node = child_of(node, ips[i]);
		site->path[at++] = &node->c;
	}
	for (int p = (int)g; p >= 0; p = ar_group_parent(rules, (unsigned)p))
		site->path[at++] = &group_nodes[p].c;
	tl_assert(at == site->npath);
	return k;
}

void ps_alloc_tree_alloc(const struct ps_site *site, SizeT size)
{
	ar_heap_alloc(&heap, site->path, site->npath, size);
}

void ps_alloc_tree_free(const struct ps_site *site, SizeT size)
{
	ar_heap_free(&heap, site->path, site->npath, size);
}

/* ---- output ---------------------------------------------------------------------------------- */
static UInt next_id = 1;

static void write_record(UInt id, UInt parent, const HChar *group, const struct ar_counter *c,
			 UInt frame)
{
	HChar pbuf[16], fbuf[16];
	VG_(snprintf)(pbuf, sizeof pbuf, "%u", parent);
	VG_(snprintf)(fbuf, sizeof fbuf, "%u", frame);
	ps_rec_begin("alloc");
	ps_rec_u("id", id);
	ps_rec_raw("parent", parent ? pbuf : "-");
	ps_rec_s("group", group);
	ps_rec_u("cur", c->cur);
	ps_rec_u("peak", c->peak);
	ps_rec_u("max", c->max);
	ps_rec_u("total", c->total);
	ps_rec_u("blocks", c->blocks);
	ps_rec_raw("frame", frame ? fbuf : "-");
	ps_rec_end();
}

/* A tree node, then its callers; frame records are written before the alloc record. */
static void write_node(const struct anode *n, UInt parent, const HChar *group)
{
	UInt frame = ps_frame_id(n->ip);
	UInt id = next_id++;
	write_record(id, parent, group, &n->c, frame);
	for (const struct anode *c = n->child; c; c = c->sibling)
		write_node(c, id, group);
}

/* A group, its subgroups (file order), then its own stacks. */
static void write_group(unsigned g, UInt parent)
{
	const HChar *path = ar_group_path(rules, g);
	UInt id = next_id++;
	write_record(id, parent, path, &group_nodes[g].c, 0);
	for (unsigned s = 0; s < ngroups; s++)
		if (ar_group_parent(rules, s) == (int)g)
			write_group(s, id);
	for (const struct anode *c = group_nodes[g].child; c; c = c->sibling)
		write_node(c, id, path);
}

void ps_alloc_tree_fini(void)
{
	ar_heap_finish(&heap);
	for (unsigned g = 0; g < ngroups; g++)
		if (ar_group_parent(rules, g) < 0)
			write_group(g, 0);
}
