/* test_ws_core.c - trace/ws_core: the incremental working set against a brute-force
 * recount of the definition on random traces (tau below, equal to, above and not a multiple
 * of the sampling interval), exp without libm against libm, and the peak detector on
 * signals with known peaks. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "ws_core.h"

static void *t_alloc(void *ctx, size_t n)
{
	(void)ctx;
	return malloc(n);
}

static void t_release(void *ctx, void *p)
{
	(void)ctx;
	free(p);
}

static const struct ws_alloc alloc = { t_alloc, t_release, NULL };

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

#define NPAGES 3000 /* over several chunks */

/* Random touches over time; at every sample compare with the pages whose last touch is in
 * (t - tau, t], counted from scratch. Touch times: several per instruction, gaps. */
static void random_trace(uint64_t every, uint64_t tau, uint64_t end)
{
	static uint64_t last[NPAGES];
	memset(last, 0, sizeof last);
	struct ws_clock c;
	struct ws_set s;
	CHECK(ws_clock_init(&c, every, tau) == 0, "clock %llu %llu", (unsigned long long)every,
	      (unsigned long long)tau);
	CHECK(ws_set_init(&s, &c, &alloc) == 0, "set init");
	uint64_t samples = 0, mismatches = 0, sum = 0, peak = 0, distinct = 0;
	/* a copy made half-way must go on exactly like the original */
	struct ws_set copy;
	bool copied = false;
	for (uint64_t t = 1; t <= end; t++) {
		if (t == end / 2) {
			CHECK(ws_set_init(&copy, &c, &alloc) == 0 && ws_set_copy(&copy, &s) == 0, "copy");
			copied = true;
		}
		while (c.next_t < t) {
			uint64_t got = ws_sample(&s), want = 0;
			if (copied && ws_sample(&copy) != got && mismatches++ < 3)
				CHECK(false, "the copy differs at t=%llu", (unsigned long long)c.next_t);
			for (int p = 0; p < NPAGES; p++)
				want += last[p] && last[p] + tau > c.next_t;
			if (got != want && mismatches++ < 3)
				CHECK(false, "every=%llu tau=%llu t=%llu: %llu pages, expected %llu",
				      (unsigned long long)every, (unsigned long long)tau,
				      (unsigned long long)c.next_t, (unsigned long long)got,
				      (unsigned long long)want);
			samples++;
			sum += want;
			if (want > peak)
				peak = want;
			ws_clock_advance(&c);
		}
		/* phases: a moving hot region plus random far pages, sometimes idle stretches */
		uint64_t r = next_rand();
		if ((t / 5000) % 4 == 3 && r % 8)
			continue;
		int n = (int)(r % 3);
		for (int k = 0; k < n; k++) {
			uint64_t p = (next_rand() % 16 == 0) ? next_rand() % NPAGES
							      : (t / 97 + next_rand() % 40) % NPAGES;
			if (!last[p])
				distinct++;
			last[p] = t;
			CHECK(ws_touch(&s, p, t) != NULL, "touch");
			if (copied)
				ws_touch(&copy, p, t);
		}
	}
	CHECK(mismatches == 0, "every=%llu tau=%llu: %llu of %llu samples wrong",
	      (unsigned long long)every, (unsigned long long)tau, (unsigned long long)mismatches,
	      (unsigned long long)samples);
	CHECK_U64(s.samples, samples);
	CHECK_U64(s.sum, sum);
	CHECK_U64(s.peak, peak);
	CHECK_U64(s.pages, distinct);
	CHECK_U64(copy.pages, distinct);
	CHECK_U64(copy.peak, peak);
	ws_set_free(&s);
	ws_set_free(&copy);
}

static void test_window(void)
{
	static const uint64_t cases[][2] = {
		{ 1000, 1000 }, { 1000, 250 }, { 1000, 1 }, { 1000, 3500 }, { 777, 10000 },
		{ 1, 1 }, { 1, 17 }, { 64, 63 }, { 5000, 100000 }, { 333, 334 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		random_trace(cases[i][0], cases[i][1], 60000);
}

static void test_edges(void)
{
	struct ws_clock c;
	CHECK(ws_clock_init(&c, 0, 5) < 0, "every 0 refused");
	CHECK(ws_clock_init(&c, 5, 0) < 0, "tau 0 refused");
	CHECK(ws_clock_init(&c, 1, WS_MAX_RING) < 0, "tau/every too large refused");
	CHECK(ws_clock_init(&c, 1, WS_MAX_RING - 2) == 0, "largest ratio accepted");

	/* exactly at the window's edges: (t - tau, t] */
	struct ws_set s;
	CHECK(ws_clock_init(&c, 10, 10) == 0, "clock");
	CHECK(ws_set_init(&s, &c, &alloc) == 0, "set");
	ws_touch(&s, 1, 1);  /* leaves at sample 10+... : in (0,10] yes, in (10,20] no */
	ws_touch(&s, 2, 10); /* last instruction of the first interval */
	CHECK_U64(ws_sample(&s), 2);
	ws_clock_advance(&c);
	ws_touch(&s, 3, 11);
	CHECK_U64(ws_sample(&s), 1); /* t=20: (10,20] holds page 3 only */
	ws_clock_advance(&c);
	CHECK_U64(ws_sample(&s), 0); /* t=30 */
	ws_clock_advance(&c);
	ws_touch(&s, 3, 31);
	CHECK_U64(ws_sample(&s), 1);
	CHECK_U64(s.pages, 3);
	CHECK(ws_lookup(&s, 2) != NULL && ws_lookup(&s, 4) == NULL, "lookup");
	ws_set_free(&s);

	/* many chunks far apart (the chunk table grows), all in one window */
	CHECK(ws_clock_init(&c, 1000000, 1000000) == 0, "clock");
	CHECK(ws_set_init(&s, &c, &alloc) == 0, "set");
	for (uint64_t i = 0; i < 5000; i++) {
		ws_touch(&s, i * 1000003 + (UINT64_C(1) << 40), 1 + i);
		ws_touch(&s, i * 1000003 + (UINT64_C(1) << 40), 2 + i); /* again: no change */
	}
	CHECK_U64(ws_sample(&s), 5000);
	CHECK_U64(s.pages, 5000);
	CHECK(ws_lookup(&s, UINT64_C(4999) * 1000003 + (UINT64_C(1) << 40)) != NULL, "far lookup");
	ws_set_free(&s);
}

static void test_exp(void)
{
	static const double xs[] = { 0, 1, -1, 0.5, -0.5, 3.25, -7.5, 20, -20, 100, -100, 700, -700,
				     1e-9, -1e-9, 0.6931471805599453 };
	for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
		double got = ws_exp(xs[i]), want = exp(xs[i]);
		CHECK(fabs(got - want) <= 1e-14 * want, "ws_exp(%g) = %.17g, libm %.17g", xs[i], got,
		      want);
	}
	CHECK(ws_exp(-1000) == 0.0, "underflow to 0");
	CHECK(isinf(ws_exp(1000)), "overflow to inf");
}

static void test_threshold(void)
{
	struct ws_peak p;
	ws_peak_init(&p, 30, 2.0, 0.25);
	p.mean = 10;
	p.var = 10; /* F = 1: c = 1 - exp(-1/2) */
	double c = 1 - exp(-0.5);
	double want = c * 2 * 10 + (1 - c) * 2 * 10;
	CHECK(fabs(ws_peak_threshold(&p) - want) < 1e-9, "threshold F=1: %g, expected %g",
	      ws_peak_threshold(&p), want);
	p.var = 40; /* F = 4 */
	c = 1 - exp(-2.0);
	want = c * 2 * 40 + (1 - c) * 2 * 10;
	CHECK(fabs(ws_peak_threshold(&p) - want) < 1e-9, "threshold F=4: %g, expected %g",
	      ws_peak_threshold(&p), want);
	p.mean = 0;
	p.var = 0;
	CHECK(ws_peak_threshold(&p) == 0.0, "zero signal: any rise is a peak");
}

/* A noisy baseline with injected peaks: exactly those are found, each once, at its onset;
 * a second, smaller peak right after a huge one is still found (the filter). */
static void test_peaks(void)
{
	struct ws_peak p;
	ws_peak_init(&p, 20, 2.0, 0.0);
	uint64_t starts[8], n = 0, ends = 0;
	for (uint64_t k = 0; k < 400; k++) {
		uint64_t x = 50 + next_rand() % 7; /* 50..56 */
		if (k >= 100 && k < 104)
			x = 5000; /* huge */
		if (k >= 110 && k < 113)
			x = 400; /* moderate, soon after */
		if (k >= 300 && k < 302)
			x = 300;
		enum ws_peak_event e = ws_peak_feed(&p, k * 10, x);
		if (e == WS_PEAK_START && n < 8)
			starts[n++] = k;
		if (e == WS_PEAK_END)
			ends++;
	}
	CHECK_U64(n, 3);
	CHECK(n == 3 && starts[0] == 100 && starts[1] == 110 && starts[2] == 300,
	      "peak onsets at samples 100, 110, 300");
	CHECK_U64(ends, 3);

	/* unfiltered (adapt 1), the huge peak's variance hides the moderate one */
	ws_peak_init(&p, 20, 2.0, 1.0);
	rng = 42;
	n = 0;
	for (uint64_t k = 0; k < 200; k++) {
		uint64_t x = 50 + next_rand() % 7;
		if (k >= 100 && k < 104)
			x = 5000;
		if (k >= 110 && k < 113)
			x = 400;
		n += ws_peak_feed(&p, k, x) == WS_PEAK_START;
	}
	CHECK_U64(n, 1);

	/* a lasting level shift is one peak that ends after the window */
	ws_peak_init(&p, 20, 2.0, 0.0);
	uint64_t first_start = 0, first_end = 0;
	n = 0;
	for (uint64_t k = 0; k < 300; k++) {
		enum ws_peak_event e = ws_peak_feed(&p, k, k < 100 ? 50 + next_rand() % 7 : 500);
		if (e == WS_PEAK_START && n++ == 0)
			first_start = k;
		if (e == WS_PEAK_END && !first_end)
			first_end = k;
	}
	CHECK_U64(n, 1);
	CHECK_U64(first_start, 100);
	CHECK(first_end > 100 && first_end <= 125, "level shift ends after the window (%llu)",
	      (unsigned long long)first_end);

	/* during the warm-up window nothing is a peak */
	ws_peak_init(&p, 20, 2.0, 0.0);
	bool any = false;
	for (uint64_t k = 0; k < 20; k++)
		any |= ws_peak_feed(&p, k, k == 10 ? 1000 : 10) != WS_PEAK_NONE;
	CHECK(!any, "no peak in the first window");

	/* maximum of a peak: HIGHER events and max_pages/max_t */
	ws_peak_init(&p, 5, 2.0, 0.0);
	for (uint64_t k = 0; k < 10; k++)
		ws_peak_feed(&p, k, 10);
	CHECK(ws_peak_feed(&p, 10, 100) == WS_PEAK_START, "start");
	CHECK(ws_peak_feed(&p, 11, 300) == WS_PEAK_HIGHER, "higher");
	CHECK(ws_peak_feed(&p, 12, 200) == WS_PEAK_NONE, "lower, still a peak (%g)",
	      ws_peak_threshold(&p));
	CHECK(ws_peak_feed(&p, 13, 10) == WS_PEAK_END, "end");
	CHECK_U64(p.max_pages, 300);
	CHECK_U64(p.max_t, 11);
}

/* Prominence by the definition, offline: for each local maximum (a plateau is one, at its
 * first sample), the lowest point on each side up to a strictly higher sample (an equal one
 * on the right ends the left one's search: the earlier of two equal maxima stops at the
 * later), the run's ends counting as 0. Onsets are checked on signals of known shape. */
static uint64_t brute_prominence(const uint64_t *x, size_t n, size_t i)
{
	uint64_t lmin = 0, rmin = 0, lo = x[i];
	size_t j;
	for (j = i; j-- > 0 && x[j] <= x[i];)
		lo = x[j] < lo ? x[j] : lo;
	lmin = j == (size_t)-1 ? 0 : lo;
	lo = x[i];
	size_t end = i + 1;
	while (end < n && x[end] == x[i])
		end++; /* the plateau */
	for (j = end; j < n && x[j] < x[i]; j++)
		lo = x[j] < lo ? x[j] : lo;
	rmin = j == n ? 0 : lo;
	uint64_t base = lmin > rmin ? lmin : rmin;
	return x[i] - base;
}

static void test_prominence(void)
{
	for (int round = 0; round < 200; round++) {
		size_t n = 1 + next_rand() % 300;
		uint64_t x[300];
		uint64_t range = 1 + next_rand() % 40;
		for (size_t i = 0; i < n; i++)
			x[i] = next_rand() % range;
		struct ws_prom p;
		CHECK(ws_prom_init(&p, &alloc) == 0, "prom init");
		for (size_t i = 0; i < n; i++)
			ws_prom_feed(&p, i + 1, x[i], ws_prom_wants_tag(&p) ? 1000 + i : 0);
		ws_prom_finish(&p);
		/* every maximum with a prominence is kept, with the definition's value */
		uint64_t want = 0, bad = 0;
		for (size_t i = 0; i < n; i++) {
			if ((i > 0 && x[i - 1] >= x[i]) || x[i] == 0)
				continue; /* not the first sample of a maximum or plateau */
			size_t end = i + 1;
			while (end < n && x[end] == x[i])
				end++;
			if (end < n && x[end] > x[i])
				continue; /* a step on the way up */
			uint64_t pr = brute_prominence(x, n, i);
			if (!pr)
				continue;
			want++;
			size_t k = 0;
			while (k < p.nheap && p.heap[k].t != i + 1)
				k++;
			if (k == p.nheap || p.heap[k].prominence != pr || p.heap[k].pages != x[i])
				bad++;
			/* an onset is a sample the detector asked the tag of, before the maximum */
			else if (p.heap[k].tag != 1000 + p.heap[k].start - 1 || p.heap[k].start > i + 1)
				bad++;
		}
		CHECK(p.nheap == want && bad == 0, "round %d (n=%zu): %zu peaks kept, %llu by the definition, %llu wrong",
		      round, n, p.nheap, (unsigned long long)want, (unsigned long long)bad);
		ws_prom_free(&p);
	}

	/* onsets: after the nearest low at or below half the prominence, not the run's start
	 * or a deeper dip further left; the highest peak's too */
	{
		static const uint64_t sig[] = { 3, 9, 6, 6, 7, 8, 6, 6, 30, 40, 35, 7, 6, 2, 2, 5, 20, 4 };
		struct ws_prom q;
		CHECK(ws_prom_init(&q, &alloc) == 0, "prom init");
		for (size_t i = 0; i < sizeof sig / sizeof sig[0]; i++)
			ws_prom_feed(&q, i + 1, sig[i], ws_prom_wants_tag(&q) ? 1000 + i + 1 : 0);
		ws_prom_finish(&q);
		struct ws_prom_peak o[4];
		size_t m = ws_prom_result(&q, 0, 4, o);
		CHECK(m == 4, "4 peaks (%zu)", m);
		/* 40 (t=10): prominence 40 (both bases the run's ends), half 20: the 6 at t=8 */
		CHECK(m == 4 && o[0].t == 10 && o[0].prominence == 40 && o[0].start == 9 && o[0].tag == 1009,
		      "the highest: t=10 prominence 40 onset 9");
		/* 20 (t=17): bases 2 and 0 (the end), half 11: the later 2, at t=15 */
		CHECK(m == 4 && o[1].t == 17 && o[1].prominence == 18 && o[1].start == 16 && o[1].tag == 1016,
		      "t=17 prominence 18 onset 16");
		/* 9 (t=2): bases 0 (the start) and 6, half 7: the start (the 3 is on the rise) */
		CHECK(m == 4 && o[2].t == 2 && o[2].prominence == 3 && o[2].start == 1 && o[2].tag == 1001,
		      "t=2 onset 1");
		/* 8 (t=6): bases 6 and 6, half 7: the later 6, at t=4 */
		CHECK(m == 4 && o[3].t == 6 && o[3].prominence == 2 && o[3].start == 5 && o[3].tag == 1005,
		      "t=6 prominence 2 onset 5");
		ws_prom_free(&q);
	}

	/* a sawtooth of equal teeth: one line standing for every tooth; a recurring spike
	 * above a baseline is one line too, below the run's real peak */
	struct ws_prom p;
	CHECK(ws_prom_init(&p, &alloc) == 0, "prom init");
	uint64_t t = 0;
	for (int tooth = 0; tooth < 5; tooth++)
		for (uint64_t v = 10; v <= 100; v += 10)
			ws_prom_feed(&p, ++t, v, 0);
	ws_prom_finish(&p);
	struct ws_prom_peak out[10];
	size_t n = ws_prom_result(&p, 10, 10, out);
	CHECK_U64(n, 1);
	CHECK_U64(out[0].pages, 100);
	CHECK_U64(out[0].repeats, 5);
	CHECK_U64(out[0].t, 50); /* the last: the earlier teeth's right bases are the dips (10) */
	CHECK_U64(out[0].prominence, 100);
	ws_prom_free(&p);

	CHECK(ws_prom_init(&p, &alloc) == 0, "prom init");
	t = 0;
	for (int k = 0; k < 400; k++)
		ws_prom_feed(&p, ++t, k == 3 ? 80 : k % 40 == 20 ? 18 : 5 + (uint64_t)(k % 2), 0);
	ws_prom_finish(&p);
	n = ws_prom_result(&p, 10, 10, out);
	CHECK_U64(n, 2);
	CHECK(n == 2 && out[0].pages == 80 && out[0].repeats == 1 && out[1].pages == 18 &&
	      out[1].repeats == 10 && out[1].t == 21, "the real peak, then the recurring spike x10");
	ws_prom_free(&p);
}

int main(void)
{
	test_window();
	test_edges();
	test_exp();
	test_threshold();
	test_peaks();
	test_prominence();
	return check_summary("test_ws_core");
}
