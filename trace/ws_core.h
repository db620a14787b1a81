/* ws_core.h - working set over time and online peak detection, shared by the Valgrind tool
 * (valgrind/ws.c) and the Lackey converter (trace/cmd_lackey.c).
 *
 * Freestanding C: no libc, no Valgrind headers (the tool links neither libc nor libm); the
 * caller supplies memory through struct ws_alloc.
 *
 * Definition. Time t counts instructions (the first instruction is t = 1; an access made by
 * instruction number t happens at t). Samples are taken at t = k*every, k = 1, 2, ...; the
 * working set of a sample is the set of distinct pages whose last touch lies in
 * (t - tau, t]. every and tau are independent.
 *
 * Incremental: every page knows the sample index at which it leaves the window
 * (ceil((last_touch + tau) / every)), and a ring counts the pages leaving at each pending
 * sample, so a touch changes two counters and a sample subtracts one: O(1) both, and no
 * list of pages to relink (a linked expiry list cost a cache miss per neighbour). */
#ifndef PAGESLEUTH_WS_CORE_H
#define PAGESLEUTH_WS_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ws_alloc {
	void *(*alloc)(void *ctx, size_t size); /* NULL when out of memory */
	void (*release)(void *ctx, void *p);
	void *ctx;
};

/* Largest tau/every: the expiry ring has tau/every + 2 counters per set. */
#define WS_MAX_RING (1u << 20)

/* The sampling clock every window set of one run shares. */
struct ws_clock {
	uint64_t every, tau;
	uint64_t k;        /* index of the next sample */
	uint64_t next_t;   /* its time, k * every */
	uint64_t exp_lo;   /* touches at t <= switch_t (before next_t) expire at sample exp_lo, */
	uint64_t switch_t; /* later ones at exp_lo + 1 */
	uint32_t ring;     /* expiry ring size: a power of two >= tau/every + 2 */
};

/* 0, or -1 if every or tau is 0 or tau/every exceeds WS_MAX_RING - 2. */
int ws_clock_init(struct ws_clock *c, uint64_t every, uint64_t tau);
/* Call after every set of the clock was sampled at next_t. */
void ws_clock_advance(struct ws_clock *c);
/* Sample index at which a touch at time t (previous sample < t <= next_t) leaves. */
static inline uint64_t ws_clock_expiry(const struct ws_clock *c, uint64_t t)
{
	return t <= c->switch_t ? c->exp_lo : c->exp_lo + 1;
}

/* What the caller keeps per page (hot pages: accesses and the first toucher's frame). The
 * window state (the expiry index) is kept apart, in an array of its own per chunk, so the
 * working set alone touches 8 bytes per page: far fewer cache misses on random pages. */
struct ws_page {
	uint64_t count; /* free for the caller (hot pages: accesses) */
	uint32_t user;  /* free for the caller (hot pages: first toucher's frame) */
};

/* Pages live in chunks of WS_CHUNK consecutive pages (found through a small hash table of
 * chunks), so neighbouring pages' entries are neighbours in memory. expiry[i] is the sample
 * index at which page id*WS_CHUNK+i leaves the window (in it while >= clock->k); 0 = never
 * touched (indices start at 1). */
#define WS_CHUNK_BITS 9
#define WS_CHUNK (1u << WS_CHUNK_BITS)
struct ws_chunk {
	uint64_t id; /* page >> WS_CHUNK_BITS */
	struct ws_chunk *hnext, *all;
	uint64_t expiry[WS_CHUNK];
	struct ws_page p[WS_CHUNK];
};

struct ws_set {
	const struct ws_clock *clock;
	struct ws_alloc a;
	struct ws_chunk **hash, *chunks, *last; /* chunk hash table, list of all, last used */
	size_t hash_mask, nchunks;
	size_t pages;                /* distinct pages ever touched */
	uint64_t *ring;              /* clock->ring counters: pages leaving at sample i */
	uint64_t live;               /* pages in the window */
	/* statistics over the samples taken */
	uint64_t samples, sum, peak;
};

/* 0, or -1 when out of memory. */
int ws_set_init(struct ws_set *s, const struct ws_clock *c, const struct ws_alloc *a);
void ws_set_free(struct ws_set *s);
/* Record a touch of page at time t (previous sample < t <= clock->next_t). Returns the
 * page's entry (count/user are the caller's), NULL when out of memory. */
struct ws_page *ws_touch(struct ws_set *s, uint64_t page, uint64_t t);
/* The page's entry if it was ever touched, else NULL. */
struct ws_page *ws_lookup(const struct ws_set *s, uint64_t page);
/* Take the sample at clock->next_t: expire, count, update the statistics. Returns the
 * working-set size in pages. */
uint64_t ws_sample(struct ws_set *s);
/* Make the empty set dst (ws_set_init'ed on the same clock) a copy of src: same pages,
 * counts, window and statistics. 0, or -1 when out of memory. */
int ws_set_copy(struct ws_set *dst, const struct ws_set *src);
/* Call f for every page ever touched (any order), with its page number. */
void ws_for_each(const struct ws_set *s,
		 void (*f)(void *arg, uint64_t page, const struct ws_page *p), void *arg);

/* ---- online peak detection --------------------------------------------------------------
 * Exponential moving average mu and variance var of the signal x (alpha = 2/(window+1)),
 * distance e = |x - mu|, Fano factor F = var/mu, threshold E = c*g*var + (1-c)*g*mu with
 * c = 1 - exp(-F/2) clamped to [0,1] (low dispersion: relative to the mean; high
 * dispersion: relative to the variance). x is a peak when x > mu and e > E, after the first
 * `window` samples. While a peak lasts the detector is fed adapt*x + (1-adapt)*previous
 * input instead of x (adapt 0: the peak does not move mu and var at all), so one huge peak
 * does not raise var -- and with it the threshold -- enough to hide the next; a peak that
 * lasts longer than `window` samples is a new level and is fed unfiltered from then on, so
 * the averages catch up and it ends. */
struct ws_peak {
	double alpha, gain, adapt;
	uint32_t window, n, dur; /* dur: samples of the current peak */
	double mean, var, prev_input;
	bool in_peak;
	uint64_t max_pages, max_t; /* of the current peak */
};

enum ws_peak_event { WS_PEAK_NONE, WS_PEAK_START, WS_PEAK_HIGHER, WS_PEAK_END };

void ws_peak_init(struct ws_peak *p, uint32_t window, double gain, double adapt);
/* Feed the sample (t, x). START: x begins a peak; HIGHER: x is a new maximum of the current
 * peak; END: the peak that was in progress ended before this sample (its maximum is in
 * max_pages/max_t until the next call). */
enum ws_peak_event ws_peak_feed(struct ws_peak *p, uint64_t t, uint64_t x);
/* The detector's threshold for the next sample, for tests and debugging. */
double ws_peak_threshold(const struct ws_peak *p);

/* ---- peaks by prominence ----------------------------------------------------------------
 * The peaks a person points at on a chart. A maximum's prominence is how far it rises above
 * the higher of its two bases: the lowest point between it and higher ground (or the end of
 * the run) on either side, the run being taken to start and end at 0 pages. A maximum not
 * separated from a higher one by a dip deeper than the threshold is part of that one, so
 * adjacent maxima merge; of two equal maxima, the earlier one's right base is the dip
 * between them. Online, with a stack of the maxima still waiting for higher ground to their
 * right (heights strictly decreasing from the bottom): O(1) amortized per sample, memory
 * bounded by the number of distinct heights on that stack. Each maximum carries its onset,
 * the start of its rise: the first sample after the nearest low on its left at or below
 * half its prominence (the run's start a low of 0), with the caller's tag of that sample
 * (the tool: the running thread and its stack). The lows are the staircase on its left:
 * the lowest point of each stretch between maxima, each lower than the one nearer to it
 * (the latest of equals), the WS_PROM_STAIR nearest ones; past them the onset is the one
 * after its left base. Finished peaks go into a min-heap of the WS_PROM_CAP most
 * prominent; ws_prom_result ranks them. */
#define WS_PROM_CAP 1024u
#define WS_PROM_STAIR 16u

struct ws_prom_peak {
	uint64_t t, pages;      /* the maximum: its first sample at that height */
	uint64_t prominence;    /* pages above the higher base */
	uint64_t start, tag;    /* onset: the first sample of the rise, and its tag */
	uint64_t repeats;       /* ws_prom_result: near-identical peaks this one stands for */
};

struct ws_prom_low {
	uint64_t v, t, tag;         /* a low and the sample after it */
};

struct ws_prom_open {
	uint64_t h, t;              /* the maximum (h = UINT64_MAX: the bottom sentinel) */
	struct ws_prom_low lmin;    /* left base */
	struct ws_prom_low v;       /* lowest since the maximum (v.v UINT64_MAX: no sample yet) */
	struct ws_prom_low stair[WS_PROM_STAIR]; /* lows on the left, nearest first */
	uint32_t nstair;
	bool pending;               /* v was just set: the next sample is its onset */
};

struct ws_prom {
	struct ws_alloc a;
	struct ws_prom_open *open;
	size_t nopen, capopen;
	struct ws_prom_peak heap[WS_PROM_CAP]; /* min-heap by prominence */
	size_t nheap;
	uint64_t prev, max;         /* the previous sample (0 before the first), the highest */
	bool failed;                /* out of memory: the peaks from then on are lost */
};

/* 0, or -1 when out of memory. */
int ws_prom_init(struct ws_prom *p, const struct ws_alloc *a);
void ws_prom_free(struct ws_prom *p);
/* Whether the next sample's tag is kept (it may be a peak's onset): callers whose tags cost
 * something (a stack trace) pass 0 when it is not. */
bool ws_prom_wants_tag(const struct ws_prom *p);
void ws_prom_feed(struct ws_prom *p, uint64_t t, uint64_t x, uint64_t tag);
/* End of the series: finish the open maxima (the run ends at 0 pages). */
void ws_prom_finish(struct ws_prom *p);
/* The peaks to report, most prominent first (ties: earlier first): prominence at least
 * min_pct percent of the highest sample (and at least one page); a peak within 10% of the
 * height and 75% of the prominence of a more prominent one is counted in its repeats
 * instead of listed (a recurring spike is one line: the most prominent occurrence, the
 * earliest of equals); at most max_n. Returns how many were
 * written to out (max_n entries). Call after ws_prom_finish. */
size_t ws_prom_result(struct ws_prom *p, unsigned min_pct, size_t max_n, struct ws_prom_peak *out);

/* exp(x) without libm: the tool has none. Relative error below 1e-15 for |x| < 700. */
double ws_exp(double x);

#endif
