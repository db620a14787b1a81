/* trace_model.c - check and keep the trace records (ws peak hot obj alloc frame mark wss).
 *
 * Every value is checked as the record streams past, so the analyses never see a frame id
 * that names nothing, a count that is not a number or a negative duration; the one check that
 * needs the whole file (the alloc tree: unknown parents, cycles) runs in trace_finish.
 * Messages are "FILE:LINE: TAG record: reason", like the record reader's.
 */
#include "trace_model.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "xalloc.h"

/* ---- id maps ------------------------------------------------------------------------------- */

/* 64-bit finaliser of MurmurHash3: every input bit changes about half the output bits. */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	return x ^ (x >> 33);
}

/* Two rounds keyed with the map's random seed: without the seed, a file cannot pick ids
 * that share a slot (with an unkeyed hash, 100000 chosen frame ids took 13 s to load, and
 * the time grows with the square of their number). The seed changes only where ids land,
 * never what any output says. */
static size_t id_hash(const struct trace_idmap *m, uint64_t id, size_t cap)
{
	return (size_t)mix64(mix64(id ^ m->seed[0]) ^ m->seed[1]) & (cap - 1);
}

static void idmap_seed(struct trace_idmap *m)
{
	if (getrandom(m->seed, sizeof m->seed, GRND_NONBLOCK) == (ssize_t)sizeof m->seed)
		return;
	/* No entropy yet (early boot): addresses and the clock still vary between runs. */
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	m->seed[0] = mix64((uint64_t)(uintptr_t)m ^ (uint64_t)ts.tv_nsec);
	m->seed[1] = mix64((uint64_t)(uintptr_t)&ts ^ (uint64_t)ts.tv_sec ^ m->seed[0]);
}

static size_t idmap_get(const struct trace_idmap *m, uint64_t id)
{
	if (!m->cap)
		return TRACE_NONE;
	for (size_t h = id_hash(m, id, m->cap);; h = (h + 1) & (m->cap - 1)) {
		if (!m->vals[h])
			return TRACE_NONE;
		if (m->keys[h] == id)
			return m->vals[h] - 1;
	}
}

static void idmap_put(struct trace_idmap *m, uint64_t id, size_t index)
{
	if (!m->cap)
		idmap_seed(m);
	if ((m->n + 1) * 4 > m->cap * 3) {
		size_t ncap = m->cap ? m->cap * 2 : 256;
		uint64_t *nk = xcalloc(ncap, sizeof *nk);
		size_t *nv = xcalloc(ncap, sizeof *nv);
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->vals[i])
				continue;
			size_t h = id_hash(m, m->keys[i], ncap);
			while (nv[h])
				h = (h + 1) & (ncap - 1);
			nk[h] = m->keys[i], nv[h] = m->vals[i];
		}
		free(m->keys), free(m->vals);
		m->keys = nk, m->vals = nv, m->cap = ncap;
	}
	size_t h = id_hash(m, id, m->cap);
	while (m->vals[h])
		h = (h + 1) & (m->cap - 1);
	m->keys[h] = id, m->vals[h] = index + 1;
	m->n++;
}

double trace_idmap_mean_probe(const struct trace_idmap *m)
{
	uint64_t slots = 0;
	for (size_t i = 0; i < m->cap; i++)
		if (m->vals[i])
			slots += ((i - id_hash(m, m->keys[i], m->cap)) & (m->cap - 1)) + 1;
	return m->n ? (double)slots / (double)m->n : 0;
}

static void idmap_free(struct trace_idmap *m)
{
	free(m->keys), free(m->vals);
	memset(m, 0, sizeof *m);
}

/* Room for one more element of an array that grows by doubling. */
#define GROW(arr, n, cap)                                                                          \
	do {                                                                                       \
		if ((n) == (cap)) {                                                                \
			(cap) = (cap) ? (cap) * 2 : 16;                                            \
			(arr) = xrealloc((arr), (cap) * sizeof *(arr));                            \
		}                                                                                  \
	} while (0)

/* ---- one record's keys --------------------------------------------------------------------- */

struct rec {
	const struct ps_kv *kv;
	const char *file;
	uint64_t line;
	char **err;
};

static int fail(const struct rec *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(const struct rec *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	free(*r->err);
	*r->err = xasprintf("%s:%" PRIu64 ": %s record: %s", r->file, r->line, r->kv->tag, msg);
	free(msg);
	return -1;
}

/* The value of key (the first occurrence), "" for "-", NULL if absent. */
static const char *get(const struct rec *r, const char *key)
{
	for (size_t i = 0; i < r->kv->n; i++)
		if (strcmp(r->kv->kv[i].key, key) == 0)
			return r->kv->kv[i].value;
	return NULL;
}

static const char *str(const struct rec *r, const char *key)
{
	const char *v = get(r, key);
	return v ? v : "";
}

enum need { OPTIONAL, REQUIRED };

/* A decimal (or hex) count. Absent or "-" gives PS_UNKNOWN, which a REQUIRED key refuses.
 * All ones is refused as in every record: it is how unknown is held in memory. */
static int num(const struct rec *r, const char *key, bool hex, enum need need, uint64_t *out)
{
	const char *v = get(r, key);
	*out = PS_UNKNOWN;
	if (!v)
		return need == REQUIRED ? fail(r, "missing %s=", key) : 0;
	if (!*v)
		return need == REQUIRED ? fail(r, "%s=- : this value must be known", key) : 0;
	uint64_t x = 0;
	const char *p = v;
	for (; *p; p++) {
		int d;
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (hex && *p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (hex && *p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			break;
		if (hex ? x >> 60 : x > (UINT64_MAX - 9) / 10)
			return fail(r, "%s=%s is out of range", key, v);
		x = x * (hex ? 16 : 10) + (uint64_t)d;
	}
	if (*p || p == v)
		return fail(r, "%s=%s is not a %s number", key, v, hex ? "hexadecimal" : "decimal");
	if (x == PS_UNKNOWN || (!hex && x >= UINT64_C(18446744073709551610)))
		return fail(r, "%s=%s is out of range", key, v);
	*out = x;
	return 0;
}

/* A duration in seconds: digits with an optional fraction, as "%.3f" writes it. No sign,
 * exponent, hex, inf or nan: a negative or non-finite span is a broken writer. */
static int seconds(const struct rec *r, const char *key, enum need need, double *out)
{
	const char *v = get(r, key);
	*out = NAN;
	if (!v)
		return need == REQUIRED ? fail(r, "missing %s=", key) : 0;
	if (!*v)
		return need == REQUIRED ? fail(r, "%s=- : this value must be known", key) : 0;
	if (v[0] == '-')
		return fail(r, "%s=%s is negative", key, v);
	size_t digits = strspn(v, "0123456789"), frac = 0;
	if (v[digits] == '.')
		frac = strspn(v + digits + 1, "0123456789");
	size_t len = digits + (v[digits] == '.' ? 1 + frac : 0);
	if (v[len] || digits == 0 || (v[digits] == '.' && frac == 0)) {
		char *end;
		double d = strtod(v, &end);
		if (end != v && !*end && !isfinite(d))
			return fail(r, "%s=%s is not a finite number", key, v);
		return fail(r, "%s=%s is not a decimal number of seconds (e.g. 1.250)", key, v);
	}
	*out = strtod(v, NULL);
	if (!isfinite(*out))
		return fail(r, "%s=%s is not a finite number", key, v);
	return 0;
}

/* One of the words in `words` (NULL-terminated); its index in *out. */
static int word(const struct rec *r, const char *key, const char *const *words, int *out)
{
	const char *v = get(r, key);
	if (!v || !*v)
		return fail(r, "missing %s=", key);
	for (int i = 0; words[i]; i++)
		if (strcmp(v, words[i]) == 0) {
			*out = i;
			return 0;
		}
	char expected[128] = "";
	for (int i = 0; words[i]; i++)
		snprintf(expected + strlen(expected), sizeof expected - strlen(expected), "%s%s",
			 i ? "|" : "", words[i]);
	return fail(r, "%s=%s (expected %s)", key, v, expected);
}

static const char *const code_data[] = { "code", "data", NULL };

/* A frame reference: must name a frame record that came before. */
static int frame_ref(struct trace_model *tm, const struct rec *r, const char *key, uint64_t id,
		     size_t *out)
{
	*out = idmap_get(&tm->frame_ids, id);
	if (*out == TRACE_NONE)
		return fail(r, "%s refers to frame %" PRIu64 ", which no earlier frame record "
			    "defines (frames come before their first use)", key, id);
	return 0;
}

static int frame_key(struct trace_model *tm, const struct rec *r, const char *key, size_t *out)
{
	uint64_t id;
	*out = TRACE_NONE;
	if (num(r, key, false, OPTIONAL, &id) < 0)
		return -1;
	return id == PS_UNKNOWN ? 0 : frame_ref(tm, r, key, id, out);
}

/* stack=ID,ID,... (innermost first) into the stack pool; "-" or absent is an empty stack. */
static int stack_key(struct trace_model *tm, const struct rec *r, struct trace_stack *st)
{
	const char *v = str(r, "stack");
	st->first = tm->nstack_pool;
	st->n = 0;
	while (*v) {
		uint64_t id = 0;
		const char *p = v;
		for (; *p >= '0' && *p <= '9'; p++) {
			if (id > (UINT64_MAX - 9) / 10)
				return fail(r, "stack=: frame id out of range");
			id = id * 10 + (uint64_t)(*p - '0');
		}
		if (p == v || (*p && *p != ',') || (*p == ',' && !p[1])) {
			tm->nstack_pool = st->first;
			return fail(r, "stack=%s is not a comma-separated list of frame ids",
				    str(r, "stack"));
		}
		size_t index;
		if (frame_ref(tm, r, "stack", id, &index) < 0) {
			tm->nstack_pool = st->first;
			return -1;
		}
		GROW(tm->stack_pool, tm->nstack_pool, tm->capstack_pool);
		tm->stack_pool[tm->nstack_pool++] = index;
		st->n++;
		v = *p ? p + 1 : p;
	}
	return 0;
}

/* A unique id for frame, obj and alloc records. */
static int unique_id(const struct rec *r, const struct trace_idmap *ids, uint64_t *id)
{
	if (num(r, "id", false, REQUIRED, id) < 0)
		return -1;
	if (idmap_get(ids, *id) != TRACE_NONE)
		return fail(r, "id %" PRIu64 " is defined twice", *id);
	return 0;
}

/* ---- the records --------------------------------------------------------------------------- */

static int add_frame(struct trace_model *tm, const struct rec *r)
{
	struct trace_frame f = { .rec_line = r->line };
	if (unique_id(r, &tm->frame_ids, &f.id) < 0 || num(r, "ip", true, OPTIONAL, &f.ip) < 0 ||
	    num(r, "line", false, OPTIONAL, &f.line) < 0)
		return -1;
	f.fn = xstrdup(str(r, "fn"));
	f.file = xstrdup(str(r, "file"));
	f.obj = xstrdup(str(r, "obj"));
	f.label = trace_frame_label(&f);
	GROW(tm->frames, tm->nframes, tm->capframes);
	tm->frames[tm->nframes] = f;
	idmap_put(&tm->frame_ids, f.id, tm->nframes++);
	return 0;
}

static int add_ws(struct trace_model *tm, const struct rec *r)
{
	struct ws_sample s;
	uint64_t tid, tau, final = 0;
	if (num(r, "final", false, OPTIONAL, &final) < 0)
		return -1;
	/* A final=1 record may be a summary only (code=- data=-, as the Valgrind tool writes
	 * it at a thread's exit): every other ws record is a sample. */
	enum need sample_need = final == 1 ? OPTIONAL : REQUIRED;
	if (num(r, "t", false, REQUIRED, &s.t) < 0 || num(r, "tid", false, REQUIRED, &tid) < 0 ||
	    num(r, "code", false, sample_need, &s.code) < 0 ||
	    num(r, "data", false, sample_need, &s.data) < 0 || num(r, "tau", false, OPTIONAL, &tau) < 0)
		return -1;
	bool is_sample = s.code != PS_UNKNOWN && s.data != PS_UNKNOWN;
	if (!is_sample && (s.code != PS_UNKNOWN || s.data != PS_UNKNOWN))
		return fail(r, "a summary-only record (final=1) has both code= and data= unknown, "
			    "a sample has both known");
	size_t i = idmap_get(&tm->ws_tids, tid);
	if (i == TRACE_NONE) {
		GROW(tm->ws, tm->nws, tm->capws);
		i = tm->nws++;
		struct ws_series *ns = &tm->ws[i];
		memset(ns, 0, sizeof *ns);
		ns->tid = tid, ns->tau = tau;
		ns->avg_code = ns->avg_data = NAN;
		ns->peak_code = ns->peak_data = ns->total_code = ns->total_data = PS_UNKNOWN;
		ns->samples = PS_UNKNOWN;
		idmap_put(&tm->ws_tids, tid, i);
	}
	struct ws_series *ws = &tm->ws[i];
	if (is_sample && ws->n && s.t < ws->s[ws->n - 1].t)
		return fail(r, "t=%" PRIu64 " goes back in time (the previous sample of tid %" PRIu64
			    " is at t=%" PRIu64 ")", s.t, tid, ws->s[ws->n - 1].t);
	/* The samples' windows: the first sample's tau (a summary's only while there is no
	 * sample); a summary that leaves tau out mixes nothing. */
	if (is_sample && ws->n == 0)
		ws->tau = tau;
	else if (is_sample && tau != ws->tau)
		ws->tau_varies = true;
	if (is_sample) {
		GROW(ws->s, ws->n, ws->cap);
		ws->s[ws->n++] = s;
	}
	if (final == 1) {
		/* The writer's summary of the whole run: total distinct pages only it can know. */
		double avg_code, avg_data;
		uint64_t v[5];
		static const char *const keys[5] = { "peak_code", "peak_data", "total_code", "total_data",
						     "samples" };
		for (int k = 0; k < 5; k++)
			if (num(r, keys[k], false, OPTIONAL, &v[k]) < 0)
				return -1;
		if (seconds(r, "avg_code", OPTIONAL, &avg_code) < 0 ||
		    seconds(r, "avg_data", OPTIONAL, &avg_data) < 0)
			return -1;
		if (ws->have_final)
			return fail(r, "a second final=1 record for tid %" PRIu64 " (the first is on line %"
				    PRIu64 ")", tid, ws->final_line);
		ws->have_final = true;
		ws->final_line = r->line;
		ws->avg_code = avg_code, ws->avg_data = avg_data;
		ws->peak_code = v[0], ws->peak_data = v[1], ws->total_code = v[2], ws->total_data = v[3];
		ws->samples = v[4];
	}
	return 0;
}

static int add_peak(struct trace_model *tm, const struct rec *r)
{
	struct trace_peak p = { .rec_line = r->line };
	int kind;
	if (num(r, "t", false, REQUIRED, &p.t) < 0 || num(r, "tid", false, REQUIRED, &p.tid) < 0 ||
	    word(r, "kind", code_data, &kind) < 0 || num(r, "pages", false, REQUIRED, &p.pages) < 0 ||
	    stack_key(tm, r, &p.stack) < 0 || num(r, "prominence", false, OPTIONAL, &p.prominence) < 0 ||
	    num(r, "rank", false, OPTIONAL, &p.rank) < 0 ||
	    num(r, "repeats", false, OPTIONAL, &p.repeats) < 0 ||
	    num(r, "start", false, OPTIONAL, &p.start) < 0)
		return -1;
	p.data = kind == 1;
	GROW(tm->peaks, tm->npeaks, tm->cappeaks);
	tm->peaks[tm->npeaks++] = p;
	return 0;
}

static int add_hot(struct trace_model *tm, const struct rec *r)
{
	struct trace_hot h;
	int kind;
	if (num(r, "page", true, REQUIRED, &h.page) < 0 || word(r, "kind", code_data, &kind) < 0 ||
	    num(r, "accesses", false, REQUIRED, &h.accesses) < 0 ||
	    num(r, "rank", false, OPTIONAL, &h.rank) < 0 || frame_key(tm, r, "frame", &h.frame) < 0)
		return -1;
	if (h.rank == 0)
		return fail(r, "rank=0 (ranks count from 1, the hottest page)");
	h.data = kind == 1;
	GROW(tm->hot, tm->nhot, tm->caphot);
	tm->hot[tm->nhot++] = h;
	return 0;
}

static int add_obj(struct trace_model *tm, const struct rec *r)
{
	static const char *const kinds[] = { "heap", "global", NULL };
	struct trace_obj o;
	int kind;
	if (unique_id(r, &tm->obj_ids, &o.id) < 0 || word(r, "kind", kinds, &kind) < 0 ||
	    num(r, "loads", false, REQUIRED, &o.loads) < 0 ||
	    num(r, "stores", false, REQUIRED, &o.stores) < 0 ||
	    num(r, "size", false, OPTIONAL, &o.size) < 0 ||
	    num(r, "blocks", false, OPTIONAL, &o.blocks) < 0 ||
	    num(r, "bload", false, OPTIONAL, &o.bload) < 0 ||
	    num(r, "bstore", false, OPTIONAL, &o.bstore) < 0 ||
	    num(r, "line", false, OPTIONAL, &o.line) < 0 || stack_key(tm, r, &o.stack) < 0)
		return -1;
	o.heap = kind == 0;
	o.name = xstrdup(str(r, "name"));
	o.file = xstrdup(str(r, "file"));
	GROW(tm->objs, tm->nobjs, tm->capobjs);
	tm->objs[tm->nobjs] = o;
	idmap_put(&tm->obj_ids, o.id, tm->nobjs++);
	return 0;
}

static int add_alloc(struct trace_model *tm, const struct rec *r)
{
	struct trace_alloc a = { .parent = TRACE_NONE, .rec_line = r->line };
	if (unique_id(r, &tm->alloc_ids, &a.id) < 0)
		return -1;
	if (!get(r, "parent"))
		return fail(r, "missing parent= (write parent=- for a root)");
	if (num(r, "parent", false, OPTIONAL, &a.parent_id) < 0 ||
	    num(r, "cur", false, OPTIONAL, &a.cur) < 0 || num(r, "peak", false, OPTIONAL, &a.peak) < 0 ||
	    num(r, "max", false, OPTIONAL, &a.max) < 0 || num(r, "total", false, OPTIONAL, &a.total) < 0 ||
	    num(r, "blocks", false, OPTIONAL, &a.blocks) < 0 || frame_key(tm, r, "frame", &a.frame) < 0)
		return -1;
	if (a.parent_id == a.id)
		return fail(r, "id %" PRIu64 " is its own parent", a.id);
	a.group = xstrdup(str(r, "group"));
	GROW(tm->allocs, tm->nallocs, tm->capallocs);
	tm->allocs[tm->nallocs] = a;
	idmap_put(&tm->alloc_ids, a.id, tm->nallocs++);
	return 0;
}

static int add_mark(struct trace_model *tm, const struct rec *r)
{
	struct trace_mark k;
	if (num(r, "t", false, REQUIRED, &k.t) < 0 || num(r, "tid", false, OPTIONAL, &k.tid) < 0)
		return -1;
	if (!get(r, "text"))
		return fail(r, "missing text=");
	k.text = xstrdup(str(r, "text"));
	GROW(tm->marks, tm->nmarks, tm->capmarks);
	tm->marks[tm->nmarks++] = k;
	return 0;
}

static int add_wss(struct trace_model *tm, const struct rec *r)
{
	static const char *const methods[] = { "referenced", "idle", NULL };
	static const char *const modes[] = { "once", "cumulative", "profile", NULL };
	struct trace_wss w;
	int method, mode;
	if (num(r, "pid", false, REQUIRED, &w.pid) < 0 || word(r, "method", methods, &method) < 0 ||
	    word(r, "mode", modes, &mode) < 0 || num(r, "seq", false, REQUIRED, &w.seq) < 0 ||
	    seconds(r, "est", REQUIRED, &w.est) < 0 || seconds(r, "dur", OPTIONAL, &w.dur) < 0 ||
	    num(r, "ref", false, REQUIRED, &w.ref) < 0 || num(r, "rss", false, OPTIONAL, &w.rss) < 0 ||
	    num(r, "pss", false, OPTIONAL, &w.pss) < 0 || num(r, "t", false, OPTIONAL, &w.t) < 0)
		return -1;
	w.method = (enum wss_method)method;
	w.mode = (enum wss_mode)mode;
	GROW(tm->wss, tm->nwss, tm->capwss);
	tm->wss[tm->nwss++] = w;
	return 0;
}

int trace_add(struct trace_model *tm, const struct ps_kv *kv, const char *file, uint64_t line,
	      char **err)
{
	struct rec r = { kv, file, line, err };
	static const struct {
		const char *tag;
		int (*add)(struct trace_model *, const struct rec *);
	} kinds[] = {
		{ "ws", add_ws }, { "frame", add_frame }, { "peak", add_peak }, { "hot", add_hot },
		{ "obj", add_obj }, { "alloc", add_alloc }, { "mark", add_mark }, { "wss", add_wss },
	};
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
		if (strcmp(kv->tag, kinds[i].tag) == 0) {
			if (kinds[i].add(tm, &r) < 0)
				return -1;
			tm->records++;
			return 0;
		}
	return 0; /* a tag the reader knows and this model does not use */
}

/* ---- whole-file checks ----------------------------------------------------------------------- */

static int finish_alloc_tree(struct trace_model *tm, const char *file, char **err)
{
	for (size_t i = 0; i < tm->nallocs; i++) {
		struct trace_alloc *a = &tm->allocs[i];
		if (a->parent_id == PS_UNKNOWN)
			continue;
		a->parent = idmap_get(&tm->alloc_ids, a->parent_id);
		if (a->parent == TRACE_NONE) {
			*err = xasprintf("%s:%" PRIu64 ": alloc record: parent=%" PRIu64 " is not the id "
					 "of any alloc record", file, a->rec_line, a->parent_id);
			return -1;
		}
	}
	/* Walk up from every node once: 1 = on the current walk, 2 = known to reach a root. */
	unsigned char *state = xcalloc(tm->nallocs ? tm->nallocs : 1, 1);
	for (size_t i = 0; i < tm->nallocs; i++) {
		size_t j = i;
		while (j != TRACE_NONE && state[j] == 0) {
			state[j] = 1;
			j = tm->allocs[j].parent;
		}
		if (j != TRACE_NONE && state[j] == 1) {
			/* j is on this walk again: a cycle through j. Name its ids. */
			char ids[200] = "";
			size_t k = j, n = 0;
			do {
				snprintf(ids + strlen(ids), sizeof ids - strlen(ids), "%" PRIu64 " -> ",
					 tm->allocs[k].id);
				k = tm->allocs[k].parent;
			} while (k != j && ++n < 8);
			snprintf(ids + strlen(ids), sizeof ids - strlen(ids), "%s%" PRIu64,
				 k == j ? "" : "... -> ", tm->allocs[j].id);
			*err = xasprintf("%s:%" PRIu64 ": alloc record: the parent links of id %" PRIu64
					 " form a cycle (%s)", file, tm->allocs[j].rec_line,
					 tm->allocs[j].id, ids);
			free(state);
			return -1;
		}
		for (j = i; j != TRACE_NONE && state[j] == 1; j = tm->allocs[j].parent)
			state[j] = 2;
	}
	free(state);
	return 0;
}

/* While a process has one thread, the Valgrind tool writes no samples for that thread (they
 * equal tid 0's): a thread whose summary counts more samples than it has takes the first
 * ones from tid 0, when tid 0 has them before the thread's first written sample. */
static void restore_thread_samples(struct trace_model *tm)
{
	const struct ws_series *proc = trace_ws_series(tm, 0);
	if (!proc)
		return;
	for (size_t i = 0; i < tm->nws; i++) {
		struct ws_series *ws = &tm->ws[i];
		if (ws->tid == 0 || !ws->have_final || ws->samples == PS_UNKNOWN || ws->samples <= ws->n)
			continue;
		size_t missing = (size_t)(ws->samples - ws->n);
		if (missing > proc->n || (ws->n && proc->s[missing - 1].t >= ws->s[0].t))
			continue; /* not the omitted ones: check_ws_summaries says so */
		struct ws_sample *s = xcalloc(ws->samples, sizeof *s);
		memcpy(s, proc->s, missing * sizeof *s);
		if (ws->n)
			memcpy(s + missing, ws->s, ws->n * sizeof *s);
		free(ws->s);
		ws->s = s;
		ws->n = ws->cap = (size_t)ws->samples;
	}
}

/* A writer's final summary that disagrees with its own samples: say so, keep the samples. */
static void check_ws_summaries(struct trace_model *tm, const char *file)
{
	for (size_t i = 0; i < tm->nws; i++) {
		const struct ws_series *ws = &tm->ws[i];
		if (!ws->have_final)
			continue;
		if (ws->samples != PS_UNKNOWN && ws->samples != ws->n)
			xappendf(&tm->warnings, "%s:%" PRIu64 ": ws final summary of tid %" PRIu64
				 " counts samples=%" PRIu64 ", the file holds %zu", file, ws->final_line,
				 ws->tid, ws->samples, ws->n);
		if (ws->n == 0)
			continue;
		uint64_t max_code = 0, max_data = 0;
		double sum_code = 0, sum_data = 0;
		for (size_t k = 0; k < ws->n; k++) {
			max_code = ws->s[k].code > max_code ? ws->s[k].code : max_code;
			max_data = ws->s[k].data > max_data ? ws->s[k].data : max_data;
			sum_code += (double)ws->s[k].code, sum_data += (double)ws->s[k].data;
		}
		const char *what[2] = { "code", "data" };
		uint64_t said_peak[2] = { ws->peak_code, ws->peak_data }, max[2] = { max_code, max_data };
		double said_avg[2] = { ws->avg_code, ws->avg_data };
		double avg[2] = { sum_code / (double)ws->n, sum_data / (double)ws->n };
		for (int k = 0; k < 2; k++) {
			if (said_peak[k] != PS_UNKNOWN && said_peak[k] != max[k])
				xappendf(&tm->warnings, "%s:%" PRIu64 ": ws final summary of tid %" PRIu64
					 " says peak_%s=%" PRIu64 ", its samples' maximum is %" PRIu64,
					 file, ws->final_line, ws->tid, what[k], said_peak[k], max[k]);
			/* The writer prints a rounded average: half a page is within rounding. */
			if (!isnan(said_avg[k]) && fabs(said_avg[k] - avg[k]) > 0.5)
				xappendf(&tm->warnings, "%s:%" PRIu64 ": ws final summary of tid %" PRIu64
					 " says avg_%s=%.3f, its samples' average is %.3f", file,
					 ws->final_line, ws->tid, what[k], said_avg[k], avg[k]);
		}
	}
}

int trace_finish(struct trace_model *tm, const char *file, char **err)
{
	if (finish_alloc_tree(tm, file, err) < 0)
		return -1;
	restore_thread_samples(tm);
	check_ws_summaries(tm, file);
	return 0;
}

bool trace_ws_closed(const struct trace_model *tm)
{
	if (tm->nws == 0)
		return true;
	for (size_t i = 0; i < tm->nws; i++)
		if (tm->ws[i].tid == 0 && tm->ws[i].have_final)
			return true;
	return false;
}

void trace_free(struct trace_model *tm)
{
	for (size_t i = 0; i < tm->nframes; i++)
		free(tm->frames[i].fn), free(tm->frames[i].file), free(tm->frames[i].obj),
			free(tm->frames[i].label);
	for (size_t i = 0; i < tm->nws; i++)
		free(tm->ws[i].s);
	for (size_t i = 0; i < tm->nobjs; i++)
		free(tm->objs[i].name), free(tm->objs[i].file);
	for (size_t i = 0; i < tm->nallocs; i++)
		free(tm->allocs[i].group);
	for (size_t i = 0; i < tm->nmarks; i++)
		free(tm->marks[i].text);
	free(tm->frames), free(tm->ws), free(tm->peaks), free(tm->hot), free(tm->objs);
	free(tm->allocs), free(tm->marks), free(tm->wss), free(tm->stack_pool), free(tm->warnings);
	idmap_free(&tm->frame_ids), idmap_free(&tm->obj_ids), idmap_free(&tm->alloc_ids);
	idmap_free(&tm->ws_tids);
	memset(tm, 0, sizeof *tm);
}

/* ---- display helpers ------------------------------------------------------------------------ */

char *trace_frame_label(const struct trace_frame *f)
{
	char *where;
	if (*f->file && f->line != PS_UNKNOWN)
		where = xasprintf(" %s:%" PRIu64, f->file, f->line);
	else if (*f->file)
		where = xasprintf(" %s", f->file);
	else if (*f->obj) {
		const char *slash = strrchr(f->obj, '/');
		where = xasprintf(" (%s)", slash && slash[1] ? slash + 1 : f->obj);
	} else
		where = xstrdup("");
	char *label = *f->fn ? xasprintf("%s%s", f->fn, where) :
		      f->ip != PS_UNKNOWN ? xasprintf("0x%" PRIx64 "%s", f->ip, where) :
					    xasprintf("?%s", where);
	free(where);
	return label;
}

const char *trace_frame_fn(const struct trace_frame *f, char buf[24])
{
	if (*f->fn)
		return f->fn;
	if (f->ip == PS_UNKNOWN)
		return "?";
	snprintf(buf, 24, "0x%" PRIx64, f->ip);
	return buf;
}

const struct trace_frame *trace_stack_frame(const struct trace_model *tm, struct trace_stack st,
					    size_t i)
{
	return &tm->frames[tm->stack_pool[st.first + i]];
}

/* Bytes of s that fit in max without cutting a UTF-8 sequence (continuation bytes are
 * 10xxxxxx). */
static size_t utf8_cut(const char *s, size_t max)
{
	size_t n = strlen(s);
	if (n <= max)
		return n;
	while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	return max;
}

char *trace_stack_label(const struct trace_model *tm, struct trace_stack st)
{
	char *out = xrealloc(NULL, TRACE_STACK_BYTES + 80); /* + "..." + " <- ... N more" */
	size_t len = 0, shown = 0;
	out[0] = '\0';
	for (; shown < st.n && shown < TRACE_STACK_FRAMES; shown++) {
		const char *label = trace_stack_frame(tm, st, shown)->label;
		size_t l = strlen(label), sep = shown ? 4 : 0;
		if (len + sep + l > TRACE_STACK_BYTES) {
			if (shown == 0) { /* one huge frame: its beginning */
				l = utf8_cut(label, TRACE_STACK_BYTES);
				memcpy(out, label, l);
				memcpy(out + l, "...", 4);
				len = l + 3;
				shown = 1;
			}
			break;
		}
		if (sep)
			memcpy(out + len, " <- ", 4), len += 4;
		memcpy(out + len, label, l + 1);
		len += l;
	}
	if (shown < st.n)
		len += (size_t)snprintf(out + len, 64, " <- ... %zu more", st.n - shown);
	return xrealloc(out, len + 1);
}

const struct ws_series *trace_ws_series(const struct trace_model *tm, uint64_t tid)
{
	size_t i = idmap_get(&tm->ws_tids, tid);
	return i == TRACE_NONE ? NULL : &tm->ws[i];
}
