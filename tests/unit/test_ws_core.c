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

int main(void)
{
	test_window();
	test_edges();
	test_exp();
	test_threshold();
	test_peaks();
	return check_summary("test_ws_core");
}
