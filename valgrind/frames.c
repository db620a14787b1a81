/* frames.c - frame interning: each code address gets a small id and one `frame` record
 * (function, source file and line, ELF object from Valgrind's debug information) written
 * before the first record that uses it. */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_execontext.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_stacktrace.h"
#include "ps_tool.h"

struct frame_node {
	VgHashNode top; /* key: the code address */
	UInt id;
};

static VgHashTable *frames;
static UInt next_id = 1;

UInt ps_frame_id(Addr ip)
{
	if (!frames)
		frames = VG_(HT_construct)("ps.frames");
	struct frame_node *f = VG_(HT_lookup)(frames, ip);
	if (f)
		return f->id;
	f = VG_(malloc)("ps.frame", sizeof *f);
	f->top.key = ip;
	f->id = next_id++;
	VG_(HT_add_node)(frames, f);

	DiEpoch ep = VG_(current_DiEpoch)();
	const HChar *fn = NULL, *file = NULL, *dir = NULL, *obj = NULL;
	UInt line = 0;
	HChar path[1024];
	if (!VG_(get_fnname)(ep, ip, &fn))
		fn = NULL;
	Bool has_line = VG_(get_filename_linenum)(ep, ip, &file, &dir, &line);
	if (has_line && dir && *dir && file && file[0] != '/')
		VG_(snprintf)(path, sizeof path, "%s/%s", dir, file);
	else
		VG_(snprintf)(path, sizeof path, "%s", has_line && file ? file : "");
	if (!VG_(get_objname)(ep, ip, &obj))
		obj = NULL;

	ps_rec_begin("frame");
	ps_rec_u("id", f->id);
	ps_rec_x("ip", ip);
	ps_rec_s("fn", fn);
	ps_rec_s("file", path);
	if (has_line)
		ps_rec_u("line", line);
	else
		ps_rec_raw("line", "-");
	ps_rec_s("obj", obj);
	ps_rec_end();
	return f->id;
}

struct ids_buf {
	HChar *buf;
	SizeT len, used;
	Bool full;
};

static void add_frame(UInt n, DiEpoch ep, Addr ip, void *opaque)
{
	struct ids_buf *b = opaque;
	HChar one[16];
	(void)n;
	(void)ep;
	if (b->full)
		return;
	/* ip is already adjusted to the call instruction for outer frames */
	VG_(snprintf)(one, sizeof one, "%s%u", b->used ? "," : "", ps_frame_id(ip));
	SizeT l = VG_(strlen)(one);
	if (b->used + l + 1 > b->len) {
		b->full = True;
		return;
	}
	VG_(strcpy)(b->buf + b->used, one);
	b->used += l;
}

static void finish(struct ids_buf *b)
{
	if (b->used == 0 && b->len >= 2)
		VG_(strcpy)(b->buf, "-");
}

void ps_stack_ids(ExeContext *ec, HChar *buf, SizeT len)
{
	struct ids_buf b = { buf, len, 0, False };
	if (len)
		buf[0] = 0;
	if (ec)
		VG_(apply_ExeContext)(add_frame, &b, ec);
	finish(&b);
}

void ps_stack_ids_ips(const Addr *ips, UInt n, HChar *buf, SizeT len)
{
	struct ids_buf b = { buf, len, 0, False };
	if (len)
		buf[0] = 0;
	if (n)
		VG_(apply_StackTrace)(add_frame, &b, VG_(current_DiEpoch)(), (StackTrace)ips, n);
	finish(&b);
}
