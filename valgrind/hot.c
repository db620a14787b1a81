/* hot.c - the hot pages: the N most accessed code and data pages of the whole run, each with
 * the frame of its first access (counted in the process-level working-set entries, see
 * ws.c: data = accesses, code = instructions executed on the page). */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"
#include "ps_tool.h"
#include "ws_core.h"

struct hot_page {
	ULong page, count;
	UInt frame;
};

struct collect {
	struct hot_page *v;
	SizeT n;
};

static void add(void *arg, uint64_t page, const struct ws_page *p)
{
	struct collect *c = arg;
	if (p->count) {
		c->v[c->n].page = page;
		c->v[c->n].count = p->count;
		c->v[c->n].frame = p->user;
		c->n++;
	}
}

static Int by_count_desc(const void *a, const void *b)
{
	const struct hot_page *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->page < y->page ? -1 : x->page > y->page; /* stable output */
}

void ps_hot_write(void)
{
	if (!ps_clo_hot)
		return;
	for (int data = 0; data <= 1; data++) {
		const struct ws_set *s = ps_ws_proc_set(data);
		struct collect c = { VG_(malloc)("ps.hot", (s->pages + 1) * sizeof *c.v), 0 };
		ws_for_each(s, add, &c);
		VG_(ssort)(c.v, c.n, sizeof *c.v, by_count_desc);
		for (SizeT i = 0; i < c.n && i < ps_clo_hot; i++) {
			ps_rec_begin("hot");
			ps_rec_x("page", c.v[i].page << ps_clo_page_shift);
			ps_rec_raw("kind", data ? "data" : "code");
			ps_rec_u("accesses", c.v[i].count);
			ps_rec_u("frame", c.v[i].frame);
			ps_rec_u("rank", i + 1);
			ps_rec_end();
		}
		VG_(free)(c.v);
	}
}
