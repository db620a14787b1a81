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
