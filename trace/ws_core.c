/* ws_core.c - working set over time and online peak detection (see ws_core.h). Freestanding:
 * linked into the Valgrind tool, which has neither libc nor libm. */
#include "ws_core.h"

/* ---- clock ------------------------------------------------------------------------------ */

static void clock_bounds(struct ws_clock *c)
{
	/* Touches at t in (next_t - every, next_t] leave at ceil((t + tau) / every). */
	uint64_t first = c->next_t - c->every + 1;
	c->exp_lo = (first + c->tau + c->every - 1) / c->every;
	c->switch_t = c->exp_lo * c->every - c->tau;
}

int ws_clock_init(struct ws_clock *c, uint64_t every, uint64_t tau)
{
	if (every == 0 || tau == 0 || tau / every > WS_MAX_RING - 2)
		return -1;
	c->every = every;
	c->tau = tau;
	c->k = 1;
	c->next_t = every;
	/* Expiry indices of pending touches span at most tau/every + 2 consecutive samples;
	 * a power of two, so a slot is an index & (ring - 1), not a division. */
	c->ring = 1;
	while (c->ring < tau / every + 2)
		c->ring <<= 1;
	clock_bounds(c);
	return 0;
}

void ws_clock_advance(struct ws_clock *c)
{
	c->k++;
	c->next_t += c->every;
	clock_bounds(c);
}

/* ---- window sets ------------------------------------------------------------------------ */

static void zero(void *p, size_t n)
{
	unsigned char *b = p;
	while (n--)
		*b++ = 0;
}

static size_t hash_chunk(uint64_t id, size_t mask)
{
	return (size_t)((id * 0x9e3779b97f4a7c15ull) >> 32) & mask;
}

int ws_set_init(struct ws_set *s, const struct ws_clock *c, const struct ws_alloc *a)
{
	zero(s, sizeof *s);
	s->clock = c;
	s->a = *a;
	s->hash_mask = 63;
	s->hash = a->alloc(a->ctx, (s->hash_mask + 1) * sizeof *s->hash);
	s->ring = a->alloc(a->ctx, c->ring * sizeof *s->ring);
	if (!s->hash || !s->ring) {
		ws_set_free(s);
		return -1;
	}
	zero(s->hash, (s->hash_mask + 1) * sizeof *s->hash);
	zero(s->ring, c->ring * sizeof *s->ring);
	return 0;
}

void ws_set_free(struct ws_set *s)
{
	for (struct ws_chunk *c = s->chunks, *n; c; c = n) {
		n = c->all;
		s->a.release(s->a.ctx, c);
	}
	if (s->hash)
		s->a.release(s->a.ctx, s->hash);
	if (s->ring)
		s->a.release(s->a.ctx, s->ring);
	zero(s, sizeof *s);
}

static int grow_hash(struct ws_set *s)
{
	size_t nmask = s->hash_mask * 2 + 1;
	struct ws_chunk **nh = s->a.alloc(s->a.ctx, (nmask + 1) * sizeof *nh);
	if (!nh)
		return -1;
	zero(nh, (nmask + 1) * sizeof *nh);
	for (struct ws_chunk *c = s->chunks; c; c = c->all) {
		size_t h = hash_chunk(c->id, nmask);
		c->hnext = nh[h];
		nh[h] = c;
	}
	s->a.release(s->a.ctx, s->hash);
	s->hash = nh;
	s->hash_mask = nmask;
	return 0;
}

static inline __attribute__((always_inline)) struct ws_chunk *find_chunk(const struct ws_set *s, uint64_t id)
{
	if (s->last && s->last->id == id)
		return s->last;
	struct ws_chunk *c = s->hash[hash_chunk(id, s->hash_mask)];
	while (c && c->id != id)
		c = c->hnext;
	return c;
}

static struct ws_chunk *new_chunk(struct ws_set *s, uint64_t id)
{
	if (s->nchunks > s->hash_mask && grow_hash(s) < 0)
		return 0;
	struct ws_chunk *c = s->a.alloc(s->a.ctx, sizeof *c);
	if (!c)
		return 0;
	zero(c, sizeof *c);
	c->id = id;
	size_t h = hash_chunk(id, s->hash_mask);
	c->hnext = s->hash[h];
	s->hash[h] = c;
	c->all = s->chunks;
	s->chunks = c;
	s->nchunks++;
	return c;
}

struct ws_page *ws_lookup(const struct ws_set *s, uint64_t page)
{
	struct ws_chunk *c = find_chunk(s, page >> WS_CHUNK_BITS);
	if (!c)
		return 0;
	unsigned i = page & (WS_CHUNK - 1);
	return c->expiry[i] ? &c->p[i] : 0;
}

/* Record a touch in the expiry ring; the entry's slot. */
static inline __attribute__((always_inline)) void touch_expiry(struct ws_set *s, uint64_t *expiry,
							       uint64_t x)
{
	uint64_t mask = s->clock->ring - 1;
	if (*expiry >= s->clock->k) /* still counted at its old expiry */
		s->ring[*expiry & mask]--;
	else
		s->live++;
	s->ring[x & mask]++;
	*expiry = x;
}

struct ws_page *ws_touch(struct ws_set *s, uint64_t page, uint64_t t)
{
	uint64_t id = page >> WS_CHUNK_BITS;
	struct ws_chunk *c = find_chunk(s, id);
	if (!c && !(c = new_chunk(s, id)))
		return 0;
	s->last = c;
	unsigned i = page & (WS_CHUNK - 1);
	uint64_t x = ws_clock_expiry(s->clock, t);
	uint64_t *expiry = &c->expiry[i];
	if (*expiry != x) {
		if (!*expiry)
			s->pages++; /* first touch (expiry indices start at 1) */
		touch_expiry(s, expiry, x);
	}
	return &c->p[i];
}

int ws_set_copy(struct ws_set *dst, const struct ws_set *src)
{
	for (const struct ws_chunk *c = src->chunks; c; c = c->all) {
		struct ws_chunk *d = find_chunk(dst, c->id);
		if (!d && !(d = new_chunk(dst, c->id)))
			return -1;
		for (unsigned i = 0; i < WS_CHUNK; i++) {
			if (!c->expiry[i])
				continue;
			if (!d->expiry[i])
				dst->pages++;
			d->expiry[i] = c->expiry[i];
			d->p[i] = c->p[i];
		}
	}
	for (uint32_t i = 0; i < src->clock->ring; i++)
		dst->ring[i] = src->ring[i];
	dst->live = src->live;
	dst->samples = src->samples;
	dst->sum = src->sum;
	dst->peak = src->peak;
	return 0;
}

uint64_t ws_sample(struct ws_set *s)
{
	uint64_t *leaving = &s->ring[s->clock->k & (s->clock->ring - 1)];
	s->live -= *leaving;
	*leaving = 0;
	s->samples++;
	s->sum += s->live;
	if (s->live > s->peak)
		s->peak = s->live;
	return s->live;
}

void ws_for_each(const struct ws_set *s,
		 void (*f)(void *arg, uint64_t page, const struct ws_page *p), void *arg)
{
	for (const struct ws_chunk *c = s->chunks; c; c = c->all)
		for (unsigned i = 0; i < WS_CHUNK; i++)
			if (c->expiry[i])
				f(arg, c->id << WS_CHUNK_BITS | i, &c->p[i]);
}

/* ---- exp without libm --------------------------------------------------------------------- */

double ws_exp(double x)
{
	if (x != x)
		return x;
	if (x < -745.0)
		return 0.0;
	if (x > 709.0)
		return __builtin_inf();
	/* x = n*ln2 + r with |r| <= ln2/2; exp(r) by its Taylor series, then times 2^n. */
	/* ln2 split in a high part with trailing zero bits and the rest (Cody and Waite), so
	 * n*ln2_hi is exact and r keeps its precision for large |x| */
	const double ln2 = 0.69314718055994530942;
	const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
	double nf = x / ln2;
	long n = (long)(nf < 0 ? nf - 0.5 : nf + 0.5);
	double r = (x - (double)n * ln2_hi) - (double)n * ln2_lo;
	double term = 1.0, sum = 1.0;
	for (int i = 1; i < 20; i++) {
		term *= r / i;
		sum += term;
	}
	double two = n < 0 ? 0.5 : 2.0;
	for (long i = n < 0 ? -n : n; i > 0; i--)
		sum *= two;
	return sum;
}

/* ---- peak detection ------------------------------------------------------------------------ */

void ws_peak_init(struct ws_peak *p, uint32_t window, double gain, double adapt)
{
	zero(p, sizeof *p);
	p->window = window ? window : 1;
	p->alpha = 2.0 / ((double)p->window + 1.0);
	p->gain = gain;
	p->adapt = adapt;
}

double ws_peak_threshold(const struct ws_peak *p)
{
	double c = 1.0;
	if (p->mean > 0.0) {
		double fano = p->var / p->mean;
		c = 1.0 - ws_exp(-fano / 2.0);
	}
	if (c < 0.0)
		c = 0.0;
	if (c > 1.0)
		c = 1.0;
	return c * p->gain * p->var + (1.0 - c) * p->gain * p->mean;
}

enum ws_peak_event ws_peak_feed(struct ws_peak *p, uint64_t t, uint64_t xi)
{
	double x = (double)xi;
	bool peak = p->n >= p->window && x > p->mean && x - p->mean > ws_peak_threshold(p);
	enum ws_peak_event ev = WS_PEAK_NONE;
	double input = x;
	if (peak) {
		/* A peak longer than the window is a new level: feed it unfiltered so the
		 * averages catch up and the peak ends. */
		if (p->dur < p->window)
			input = p->adapt * x + (1.0 - p->adapt) * p->prev_input;
		p->dur++;
		if (!p->in_peak) {
			p->in_peak = true;
			p->max_pages = xi;
			p->max_t = t;
			ev = WS_PEAK_START;
		} else if (xi > p->max_pages) {
			p->max_pages = xi;
			p->max_t = t;
			ev = WS_PEAK_HIGHER;
		}
	} else {
		p->dur = 0;
		if (p->in_peak) {
			p->in_peak = false;
			ev = WS_PEAK_END;
		}
	}
	if (p->n == 0) {
		p->mean = input;
		p->var = 0.0;
	} else {
		/* variance first: it uses the previous mean */
		double d = input - p->mean;
		p->var = (1.0 - p->alpha) * (p->var + p->alpha * d * d);
		p->mean += p->alpha * d;
	}
	if (p->n < p->window)
		p->n++;
	p->prev_input = input;
	return ev;
}

/* ---- peaks by prominence -------------------------------------------------------------------- */

#define NONE UINT64_MAX

int ws_prom_init(struct ws_prom *p, const struct ws_alloc *a)
{
	zero(p, sizeof *p);
	p->a = *a;
	p->capopen = 64;
	p->open = a->alloc(a->ctx, p->capopen * sizeof *p->open);
	if (!p->open)
		return -1;
	/* The bottom sentinel: never popped; its valley is the left base of everything, the run
	 * starting at 0 pages, and the first sample is the onset after that start. */
	struct ws_prom_open *s = &p->open[0];
	zero(s, sizeof *s);
	s->h = NONE;
	s->pending = true;
	p->nopen = 1;
	return 0;
}

void ws_prom_free(struct ws_prom *p)
{
	if (p->open)
		p->a.release(p->a.ctx, p->open);
	p->open = 0;
}

bool ws_prom_wants_tag(const struct ws_prom *p)
{
	return p->open && p->open[p->nopen - 1].pending;
}

static void prom_swap(struct ws_prom_peak *a, struct ws_prom_peak *b)
{
	struct ws_prom_peak t = *a;
	*a = *b;
	*b = t;
}

/* Less prominent, or as prominent and later: the first to go when the heap is full. */
static bool prom_less(const struct ws_prom_peak *a, const struct ws_prom_peak *b)
{
	return a->prominence < b->prominence || (a->prominence == b->prominence && a->t > b->t);
}

/* A finished maximum whose right base is right: into the heap, with the onset of its rise. */
static void prom_keep(struct ws_prom *p, const struct ws_prom_open *o, uint64_t right)
{
	uint64_t base = o->lmin.v > right ? o->lmin.v : right;
	if (o->h <= base)
		return;
	/* the rise starts after the nearest low at or below half its prominence */
	uint64_t half = base + (o->h - base) / 2;
	struct ws_prom_low on = o->lmin;
	for (uint32_t i = 0; i < o->nstair; i++)
		if (o->stair[i].v <= half) {
			on = o->stair[i];
			break;
		}
	struct ws_prom_peak pk = { o->t, o->h, o->h - base, on.t, on.tag, 1 };
	size_t i;
	if (p->nheap < WS_PROM_CAP) {
		i = p->nheap++;
		p->heap[i] = pk;
		while (i && prom_less(&p->heap[i], &p->heap[(i - 1) / 2])) {
			prom_swap(&p->heap[i], &p->heap[(i - 1) / 2]);
			i = (i - 1) / 2;
		}
		return;
	}
	if (!prom_less(&p->heap[0], &pk))
		return;
	p->heap[0] = pk;
	for (i = 0;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < p->nheap && prom_less(&p->heap[l], &p->heap[m]))
			m = l;
		if (r < p->nheap && prom_less(&p->heap[r], &p->heap[m]))
			m = r;
		if (m == i)
			break;
		prom_swap(&p->heap[i], &p->heap[m]);
		i = m;
	}
}

/* Lows met walking left from a new maximum: the overall lowest (carry) and the staircase. */
struct walk {
	struct ws_prom_low carry;
	struct ws_prom_low stair[WS_PROM_STAIR];
	uint32_t n;
};

static void walk_low(struct walk *w, const struct ws_prom_low *l)
{
	if (l->v == NONE)
		return;
	if (l->v < w->carry.v)
		w->carry = *l; /* ties: the later (met first) stays */
	if (w->n < WS_PROM_STAIR && (w->n == 0 || l->v < w->stair[w->n - 1].v))
		w->stair[w->n++] = *l;
}

void ws_prom_feed(struct ws_prom *p, uint64_t t, uint64_t x, uint64_t tag)
{
	if (!p->open)
		return;
	struct ws_prom_open *top = &p->open[p->nopen - 1];
	if (top->pending) {
		top->v.t = t, top->v.tag = tag;
		top->pending = false;
	}
	/* x is higher ground to the right of every maximum not above it: their right bases
	 * are known; walking left through them collects the lows left of x. */
	struct walk w;
	w.carry.v = NONE;
	w.n = 0;
	bool popped = false;
	uint64_t first_t = t;
	while (top->h <= x) {
		if (top->v.v != NONE)
			prom_keep(p, top, top->v.v < w.carry.v ? top->v.v : w.carry.v);
		else if (top->h == x)
			first_t = top->t; /* a plateau: the maximum is its first sample */
		walk_low(&w, &top->v);
		for (uint32_t i = 0; i < top->nstair; i++)
			walk_low(&w, &top->stair[i]);
		walk_low(&w, &top->lmin);
		p->nopen--;
		top = &p->open[p->nopen - 1];
		popped = true;
	}
	if (x > p->prev || popped) {
		/* a maximum candidate: its left base is the lowest point back to the new top */
		walk_low(&w, &top->v);
		if (p->nopen == p->capopen) {
			struct ws_prom_open *n = p->a.alloc(p->a.ctx, 2 * p->capopen * sizeof *n);
			if (!n) {
				p->a.release(p->a.ctx, p->open);
				p->open = 0;
				p->failed = true;
				return;
			}
			for (size_t i = 0; i < p->nopen; i++)
				n[i] = p->open[i];
			p->a.release(p->a.ctx, p->open);
			p->open = n;
			p->capopen *= 2;
		}
		struct ws_prom_open *o = &p->open[p->nopen++];
		o->h = x, o->t = first_t;
		o->lmin = w.carry;
		o->v.v = NONE;
		o->pending = false;
		o->nstair = w.n;
		for (uint32_t i = 0; i < w.n; i++)
			o->stair[i] = w.stair[i];
	} else if (x <= top->v.v) {
		top->v.v = x;
		top->pending = true;
	}
	p->prev = x;
	if (x > p->max)
		p->max = x;
}

void ws_prom_finish(struct ws_prom *p)
{
	if (!p->open)
		return;
	/* The run ends at 0 pages: every open maximum's right base is 0. */
	while (p->nopen > 1) {
		prom_keep(p, &p->open[p->nopen - 1], 0);
		p->nopen--;
	}
}

size_t ws_prom_result(struct ws_prom *p, unsigned min_pct, size_t max_n, struct ws_prom_peak *out)
{
	/* most prominent first (ties: earlier): heap sort of the min-heap, in place */
	size_t n = p->nheap;
	for (size_t end = n; end > 1; end--) {
		prom_swap(&p->heap[0], &p->heap[end - 1]);
		for (size_t i = 0;;) {
			size_t l = 2 * i + 1, r = l + 1, m = i;
			if (l < end - 1 && prom_less(&p->heap[l], &p->heap[m]))
				m = l;
			if (r < end - 1 && prom_less(&p->heap[r], &p->heap[m]))
				m = r;
			if (m == i)
				break;
			prom_swap(&p->heap[i], &p->heap[m]);
			i = m;
		}
	}
	p->nheap = 0; /* no longer a heap */
	uint64_t min = p->max * min_pct / 100;
	if (min * 100 < p->max * min_pct)
		min++; /* at least min_pct percent: rounded up */
	if (min < 1)
		min = 1;
	size_t nout = 0;
	for (size_t i = 0; i < n; i++) {
		const struct ws_prom_peak *c = &p->heap[i];
		if (c->prominence < min)
			break;
		size_t j = 0;
		for (; j < nout; j++) {
			const struct ws_prom_peak *r = &out[j];
			uint64_t dh = r->pages > c->pages ? r->pages - c->pages : c->pages - r->pages;
			if (dh * 10 <= r->pages && c->prominence * 4 >= r->prominence * 3)
				break;
		}
		if (j < nout)
			out[j].repeats++; /* listed once: the most prominent of them */
		else if (nout < max_n)
			out[nout++] = *c;
	}
	return nout;
}
