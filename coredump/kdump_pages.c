/* kdump_pages.c - see kdump_pages.h. */
#include "kdump_pages.h"
#include "mapped_file.h"

#include <inttypes.h>
#include <libdeflate.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define DESC_SIZE 24u
#define FLAG_ZLIB PS_KDUMP_FLAG_ZLIB
#define FLAG_LZO PS_KDUMP_FLAG_LZO
#define FLAG_SNAPPY PS_KDUMP_FLAG_SNAPPY
#define FLAG_ZSTD PS_KDUMP_FLAG_ZSTD
#define FLAGS_KNOWN PS_KDUMP_FLAGS_KNOWN

/* Decompressed pages kept: 1/32 of the dumped pages, 4..64 MiB. The 2.5 GiB bench dump's
 * extraction reads 14,639 distinct pages ~125,000 times: a 16 MiB cache decompressed 22,260
 * of them, 32 MiB 17,851, 64 MiB 14,868. A slot's page is placed in the pool when the slot
 * is first used, one after the other: the memory touched is what was used, in as few
 * (transparent huge) pages as that takes. Placed where the slot's set lies, each page
 * decompressed cost a page fault (that extraction: 20,720 faults, now 5,166). */
#define CACHE_MIN_BYTES (UINT64_C(4) << 20)
#define CACHE_MAX_BYTES (UINT64_C(64) << 20)
#define RANK_SPAN_WORDS 8u /* one running count per 512 bitmap bits */

/* A run of at least RUN_SPLIT_PAGES pages per thread (ps_kdump_pages_read_run) is shared
 * with up to RUN_HELPERS more threads, when the process may run on more than one CPU: the
 * start-up's BTF and kallsyms tables, 1,426 of the 1,889 pages the 2.5 GiB bench kdump's
 * `-p 1` inflates, at ~11 us a page (the inflate and the fault on the page it lands in);
 * starting a thread costs tens of microseconds. */
#define RUN_SPLIT_PAGES 16u
#define RUN_HELPERS PS_KDUMP_HELPERS_MAX

/* What one thread needs to take a page out of the file: its compressed data, and the
 * decompressors (neither libdeflate's nor zstd's context may be shared between threads). */
struct unpacker {
	unsigned char *packed; /* one page's compressed data, out of the file */
	struct libdeflate_decompressor *inflater;
	ZSTD_DCtx *zstd;
};

/* Pages the walk will read soon (ps_kdump_pages_prefetch), decompressed ahead by one more
 * thread into slots of their own, direct-mapped by file page: the walk's own thread takes a
 * READY page from there (swapping it with its cache slot's page) instead of inflating it.
 * A slot goes FREE -> QUEUED (by
 * the walk's thread, which alone writes its page number) -> BUSY (the prefetcher took it)
 * -> READY or FAILED -> FREE (the walk's thread, taking it or reusing the slot); or QUEUED
 * -> TAKEN by the walk's thread when it needs the page before the prefetcher got to it
 * (the prefetcher then skips it, and it is FREE again once skipped). FAILED: anything the
 * walk's own read must look at (an error, a page stored as it is, LZO or snappy). */
#define PREFETCH_SLOTS 256u
#define PREFETCH_QUEUE 256u /* a power of two; at most PREFETCH_SLOTS queued at once */

enum { PF_FREE, PF_QUEUED, PF_BUSY, PF_READY, PF_FAILED, PF_TAKEN };

#define PREFETCH_SPINS 2000u

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#else
	atomic_signal_fence(memory_order_seq_cst);
#endif
}

struct prefetch_slot {
	_Atomic unsigned state;
	uint64_t idx;
	unsigned char *page;
};

struct prefetcher {
	struct prefetch_slot slot[PREFETCH_SLOTS];
	unsigned char *pages;
	/* The queue of slots: written at tail by the walk's thread, read at head by the
	 * prefetcher (one producer, one consumer). */
	uint32_t queue[PREFETCH_QUEUE];
	_Atomic uint64_t head, tail;
	pthread_mutex_t lock; /* only for sleeping and waking */
	pthread_cond_t wake;
	_Atomic bool sleeping, stop;
	pthread_t thread;
	struct unpacker u;
	_Atomic uint64_t decompressed; /* by the prefetcher, used or not */
	uint64_t used;                 /* pages the walk's thread took from it */
};

struct ps_kdump_pages {
	struct ps_kdump_layout l;
	uint64_t *rank;             /* set bits before words[i * RANK_SPAN_WORDS] */
	uint64_t nwords;

	/* The cache: 2-way set-associative, the least recently used way replaced. */
	uint64_t *tag;              /* file page + 1 held by each slot, 0: empty */
	uint64_t nslots;            /* a power of two; set S is slots 2S and 2S + 1 */
	unsigned char **page;       /* per slot: its page (in the pool, or once a prefetcher's), NULL: none yet */
	uint32_t pool_used;
	unsigned char *pool;        /* nslots pages, 2 MiB aligned inside pool_map */
	void *pool_map;
	size_t pool_map_len;
	uint8_t *lru;               /* per set: the way to replace next */

	struct unpacker u;          /* the calling thread's */
	struct unpacker helper[RUN_HELPERS]; /* set up at the first run shared with them */
	unsigned nhelpers;          /* how many of them may run: the process's CPUs - 1 */
	struct prefetcher *pf;      /* started at the first hint, when nhelpers > 0 */
	bool pf_failed;             /* it could not be started: hints are ignored */
	z_stream prefix_inflater;   /* for ps_kdump_pages_peek: set up at its first zlib page */
	bool prefix_inflater_ready;
	uint64_t decompressed, hits;
	uint64_t ahead, ahead_used; /* by stopped prefetchers: decompressed, and taken */
};

static uint64_t load(const unsigned char *p, unsigned size, bool be)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)p[be ? i : size - 1 - i] << (8 * (size - 1 - i));
	return v;
}

/* k->pool: reserved, not touched, and huge pages asked for (a hint: where the kernel has
 * none to give, or is told never to, it is ordinary memory). */
static void map_pool(struct ps_kdump_pages *k)
{
	const size_t huge = (size_t)2 << 20;
	size_t len = (size_t)k->nslots * k->l.block_size;
	k->pool_map_len = len + huge;
	void *m = mmap(NULL, k->pool_map_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return;
	k->pool_map = m;
	k->pool = (unsigned char *)(((uintptr_t)m + huge - 1) & ~(uintptr_t)(huge - 1));
#ifdef MADV_HUGEPAGE
	madvise(k->pool, len, MADV_HUGEPAGE);
#endif
}

/* The page of cache slot SLOT. */
static unsigned char *slot_page(struct ps_kdump_pages *k, uint64_t slot)
{
	if (!k->page[slot])
		k->page[slot] = k->pool + (size_t)k->pool_used++ * k->l.block_size;
	return k->page[slot];
}

static bool unpacker_init(struct unpacker *u, uint32_t block_size)
{
	u->packed = malloc(block_size);
	u->inflater = libdeflate_alloc_decompressor();
	u->zstd = ZSTD_createDCtx();
	return u->packed && u->inflater && u->zstd;
}

static void unpacker_fini(struct unpacker *u)
{
	free(u->packed);
	if (u->inflater)
		libdeflate_free_decompressor(u->inflater);
	ZSTD_freeDCtx(u->zstd);
	memset(u, 0, sizeof *u);
}

struct ps_kdump_pages *ps_kdump_pages_open(const struct ps_kdump_layout *l)
{
	struct ps_kdump_pages *k = calloc(1, sizeof *k);
	if (!k)
		return NULL;
	k->l = *l;
	k->nwords = (l->npages + 63) / 64;
	uint64_t nranks = (k->nwords + RANK_SPAN_WORDS - 1) / RANK_SPAN_WORDS;
	k->rank = malloc((nranks ? nranks : 1) * sizeof *k->rank);
	uint64_t count = 0;
	for (uint64_t w = 0; k->rank && w < k->nwords; w++) {
		if (w % RANK_SPAN_WORDS == 0)
			k->rank[w / RANK_SPAN_WORDS] = count;
		count += (uint64_t)__builtin_popcountll(l->words[w]);
	}
	uint64_t want = count / 32 * l->block_size;
	want = want < CACHE_MIN_BYTES ? CACHE_MIN_BYTES : want > CACHE_MAX_BYTES ? CACHE_MAX_BYTES : want;
	k->nslots = 16;
	while (k->nslots * 2 * l->block_size <= want)
		k->nslots *= 2;
	k->tag = calloc(k->nslots, sizeof *k->tag);
	k->lru = calloc(k->nslots / 2, 1);
	k->page = calloc(k->nslots, sizeof *k->page);
	map_pool(k);
	bool unpacker_ready = unpacker_init(&k->u, l->block_size);
	if (!k->rank || !k->tag || !k->lru || !k->page || !k->pool || !unpacker_ready) {
		ps_kdump_pages_close(k);
		return NULL;
	}
	k->nhelpers = l->helpers < RUN_HELPERS ? l->helpers : RUN_HELPERS;
	return k;
}

static void prefetcher_stop(struct ps_kdump_pages *k);

void ps_kdump_pages_close(struct ps_kdump_pages *k)
{
	if (!k)
		return;
	prefetcher_stop(k);
	free(k->rank);
	free(k->tag);
	free(k->lru);
	free(k->page);
	if (k->pool_map)
		munmap(k->pool_map, k->pool_map_len);
	unpacker_fini(&k->u);
	for (unsigned i = 0; i < RUN_HELPERS; i++)
		unpacker_fini(&k->helper[i]);
	if (k->prefix_inflater_ready)
		inflateEnd(&k->prefix_inflater);
	free(k);
}

bool ps_kdump_pages_present(const struct ps_kdump_pages *k, uint64_t idx)
{
	return idx < k->l.npages && (k->l.words[idx / 64] >> (idx % 64) & 1);
}

/* The descriptor number of present page IDX: its rank among the set bits. */
static uint64_t desc_index(const struct ps_kdump_pages *k, uint64_t idx)
{
	uint64_t w = idx / 64, span = w / RANK_SPAN_WORDS;
	uint64_t n = k->rank[span];
	for (uint64_t i = span * RANK_SPAN_WORDS; i < w; i++)
		n += (uint64_t)__builtin_popcountll(k->l.words[i]);
	uint64_t below = idx % 64 ? k->l.words[w] & ((UINT64_C(1) << (idx % 64)) - 1) : 0;
	return n + (uint64_t)__builtin_popcountll(below);
}

/* LEN bytes of the file at OFF (inside it) into DST: from the mapping, else with pread.
 * false when the file no longer holds them. */
static bool fetch(const struct ps_kdump_pages *k, uint64_t off, void *dst, size_t len)
{
	if (k->l.file && ps_mapped_file_has(k->l.file, off, len))
		return ps_mapped_file_copy(k->l.file, dst, off, len);
	return ps_pread_full(k->l.fd, dst, len, off) == 1;
}


/* The cache slot holding file page IDX, or NULL. */
static const unsigned char *cached(struct ps_kdump_pages *k, uint64_t idx)
{
	uint64_t set = idx & (k->nslots / 2 - 1), slot = 2 * set;
	for (unsigned way = 0; way < 2; way++)
		if (k->tag[slot + way] == idx + 1) {
			k->hits++;
			k->lru[set] = (uint8_t)!way;
			return slot_page(k, slot + way);
		}
	return NULL;
}

static const char desc_past_end[] = "past the end of the file";

/* Descriptor DI, checked: NULL, or why not (with the descriptor's file offset AT, SIZE,
 * OFF and FLAGS for the message). Reads K only: any thread. */
static const char *fetch_desc(const struct ps_kdump_pages *k, uint64_t di, uint64_t *at,
			      uint64_t *size, uint64_t *off, uint64_t *flags)
{
	*at = k->l.desc_off + di * DESC_SIZE;
	*size = *off = *flags = 0;
	unsigned char desc[DESC_SIZE];
	if (di > (UINT64_MAX - k->l.desc_off) / DESC_SIZE || *at > k->l.file_size ||
	    DESC_SIZE > k->l.file_size - *at || !fetch(k, *at, desc, DESC_SIZE))
		return desc_past_end;
	*off = load(desc, 8, k->l.big_endian);
	*size = load(desc + 8, 4, k->l.big_endian);
	*flags = load(desc + 12, 4, k->l.big_endian);
	return ps_kdump_desc_problem(*off, *size, *flags, k->l.block_size, k->l.file_size);
}

static const char data_unreadable[] = "its data cannot be read";

/* SIZE bytes compressed with zlib or zstd (FLAGS) at PACKED, into PAGE: NULL, or why not. */
static const char *decompress(const struct ps_kdump_pages *k, struct unpacker *u,
			      const unsigned char *packed, size_t size, uint64_t flags,
			      unsigned char *page)
{
	uint32_t bs = k->l.block_size;
	if (flags & FLAG_ZLIB) {
		size_t out = 0;
		if (!u->inflater)
			return "out of memory";
		return libdeflate_zlib_decompress(u->inflater, packed, size, page, bs, &out) ==
				       LIBDEFLATE_SUCCESS && out == bs
			       ? NULL : "zlib data does not inflate to a page";
	}
	size_t out = ZSTD_decompressDCtx(u->zstd, page, bs, packed, size);
	return !ZSTD_isError(out) && out == bs ? NULL : "zstd data does not decompress to a page";
}

struct in_place {
	const struct ps_kdump_pages *k;
	struct unpacker *u;
	uint64_t flags;
	unsigned char *page;
	const char *why;
};

static void decompress_in_place(void *arg, const unsigned char *p, size_t len)
{
	struct in_place *q = arg;
	q->why = decompress(q->k, q->u, p, len, q->flags, q->page);
}

/* The page whose data a checked descriptor (SIZE bytes at file offset OFF, FLAGS zlib or
 * zstd) gives, into PAGE: NULL, or why not. Decompressed straight out of the mapped file
 * (a fault there, the file cut short since it was mapped, is a failed read), else out of
 * U->packed after fetch() read it. Reads K only: any thread, with its own U. */
static const char *unpack(const struct ps_kdump_pages *k, struct unpacker *u, uint64_t off,
			  uint64_t size, uint64_t flags, unsigned char *page)
{
	if (k->l.file && ps_mapped_file_has(k->l.file, off, size)) {
		struct in_place q = { k, u, flags, page, data_unreadable };
		if (ps_mapped_file_scan(k->l.file, off, (size_t)size, decompress_in_place, &q))
			return q.why;
		/* Left in the middle of a page: what the decompressors keep from call to call
		 * (libdeflate's static Huffman tables) is made afresh. */
		if (u->inflater)
			libdeflate_free_decompressor(u->inflater);
		u->inflater = libdeflate_alloc_decompressor();
		ZSTD_DCtx_reset(u->zstd, ZSTD_reset_session_and_parameters);
		return data_unreadable;
	}
	if (!fetch(k, off, u->packed, (size_t)size))
		return data_unreadable;
	return decompress(k, u, u->packed, (size_t)size, flags, page);
}

static void describe(char *err, size_t errlen, uint64_t di, uint64_t at, uint64_t size,
		     uint64_t off, uint64_t flags, const char *why)
{
	if (why != desc_past_end)
		snprintf(err, errlen, "page descriptor %" PRIu64 " at file offset %" PRIu64
			 " (%" PRIu64 " bytes at %" PRIu64 ", flags 0x%" PRIx64 "): %s",
			 di, at, size, off, flags, why);
	else
		snprintf(err, errlen, "page descriptor %" PRIu64 " at file offset %" PRIu64 ": %s",
			 di, at, why);
}

/* ---- the prefetcher ------------------------------------------------------------------- */

static void *prefetcher_main(void *arg)
{
	struct ps_kdump_pages *k = arg;
	struct prefetcher *pf = k->pf;
	for (;;) {
		uint64_t h = atomic_load_explicit(&pf->head, memory_order_relaxed);
		/* A walk hints every few microseconds: a wake-up through the kernel costs both
		 * threads more than a while of looking (PREFETCH_SPINS, ~50 us) before sleeping. */
		for (unsigned spins = 0; spins < PREFETCH_SPINS && h == atomic_load_explicit(&pf->tail, memory_order_acquire); spins++)
			cpu_relax();
		if (h == atomic_load(&pf->tail)) {
			atomic_store(&pf->sleeping, true);
			pthread_mutex_lock(&pf->lock);
			while (h == atomic_load(&pf->tail) && !atomic_load(&pf->stop))
				pthread_cond_wait(&pf->wake, &pf->lock);
			pthread_mutex_unlock(&pf->lock);
			atomic_store(&pf->sleeping, false);
			if (h == atomic_load(&pf->tail))
				return NULL; /* stopped */
			continue;
		}
		struct prefetch_slot *s = &pf->slot[pf->queue[h % PREFETCH_QUEUE]];
		atomic_store_explicit(&pf->head, h + 1, memory_order_release);
		unsigned expect = PF_QUEUED;
		if (!atomic_compare_exchange_strong(&s->state, &expect, PF_BUSY)) {
			atomic_store(&s->state, PF_FREE); /* TAKEN: the walk's thread read it itself */
			continue;
		}
		uint64_t at, size, off, flags;
		unsigned state = PF_FAILED;
		if (!fetch_desc(k, desc_index(k, s->idx), &at, &size, &off, &flags) &&
		    (flags & (FLAG_ZLIB | FLAG_ZSTD)) && !(flags & (FLAG_LZO | FLAG_SNAPPY)) &&
		    !unpack(k, &pf->u, off, size, flags, s->page)) {
			state = PF_READY;
			atomic_fetch_add_explicit(&pf->decompressed, 1, memory_order_relaxed);
		}
		atomic_store_explicit(&s->state, state, memory_order_release);
	}
}

/* What prefetcher_start made, its thread gone or never started. */
static void prefetcher_free(struct prefetcher *pf)
{
	pthread_mutex_destroy(&pf->lock);
	pthread_cond_destroy(&pf->wake);
	unpacker_fini(&pf->u);
	free(pf->pages);
	free(pf);
}

static bool prefetcher_start(struct ps_kdump_pages *k)
{
	struct prefetcher *pf = calloc(1, sizeof *pf);
	if (!pf)
		return false;
	pthread_mutex_init(&pf->lock, NULL);
	pthread_cond_init(&pf->wake, NULL);
	pf->pages = malloc((size_t)PREFETCH_SLOTS * k->l.block_size);
	if (!pf->pages || !unpacker_init(&pf->u, k->l.block_size)) {
		prefetcher_free(pf);
		return false;
	}
	for (unsigned i = 0; i < PREFETCH_SLOTS; i++)
		pf->slot[i].page = pf->pages + (size_t)i * k->l.block_size;
	k->pf = pf;
	if (pthread_create(&pf->thread, NULL, prefetcher_main, k) != 0) {
		k->pf = NULL;
		prefetcher_free(pf);
		return false;
	}
	return true;
}

static void prefetcher_stop(struct ps_kdump_pages *k)
{
	struct prefetcher *pf = k->pf;
	if (!pf)
		return;
	pthread_mutex_lock(&pf->lock);
	atomic_store(&pf->stop, true);
	pthread_cond_signal(&pf->wake);
	pthread_mutex_unlock(&pf->lock);
	pthread_join(pf->thread, NULL);
	k->decompressed += atomic_load(&pf->decompressed);
	k->ahead += atomic_load(&pf->decompressed);
	k->ahead_used += pf->used;
	prefetcher_free(pf);
	k->pf = NULL;
}

/* File page IDX out of the prefetcher into cache slot SLOT, waiting while it is being
 * decompressed: the two swap pages (no copy). false when the walk's thread must read it
 * itself (not asked for, not yet started, or FAILED). */
static bool take_prefetched(struct ps_kdump_pages *k, uint64_t idx, uint64_t slot)
{
	struct prefetcher *pf = k->pf;
	struct prefetch_slot *s = &pf->slot[idx % PREFETCH_SLOTS];
	if (s->idx != idx)
		return false;
	unsigned st = atomic_load_explicit(&s->state, memory_order_acquire);
	if (st == PF_QUEUED) {
		if (atomic_compare_exchange_strong(&s->state, &st, PF_TAKEN))
			return false; /* not started: quicker to inflate it here than to wait */
		/* it started meanwhile: st now says how far */
	}
	for (unsigned spins = 0; st == PF_BUSY; spins++) {
		if (spins > 64)
			sched_yield();
		st = atomic_load_explicit(&s->state, memory_order_acquire);
	}
	if (st == PF_READY) {
		unsigned char *mine = slot_page(k, slot);
		k->page[slot] = s->page;
		s->page = mine; /* the prefetcher sees it after the slot's next QUEUED (release) */
		atomic_store_explicit(&s->state, PF_FREE, memory_order_relaxed);
		pf->used++;
		return true;
	}
	if (st == PF_FAILED)
		atomic_store_explicit(&s->state, PF_FREE, memory_order_relaxed);
	return false;
}

bool ps_kdump_pages_prefetches(const struct ps_kdump_pages *k)
{
	return k->nhelpers > 0;
}

void ps_kdump_pages_prefetch(struct ps_kdump_pages *k, uint64_t idx)
{
	if (!k->pf) {
		if (k->pf_failed || !k->nhelpers)
			return;
		if (!prefetcher_start(k)) {
			k->pf_failed = true;
			return;
		}
	}
	if (!ps_kdump_pages_present(k, idx))
		return;
	uint64_t set = idx & (k->nslots / 2 - 1);
	if (k->tag[2 * set] == idx + 1 || k->tag[2 * set + 1] == idx + 1)
		return; /* decompressed already */
	struct prefetcher *pf = k->pf;
	struct prefetch_slot *s = &pf->slot[idx % PREFETCH_SLOTS];
	unsigned st = atomic_load_explicit(&s->state, memory_order_acquire);
	if (s->idx == idx && (st == PF_QUEUED || st == PF_BUSY || st == PF_READY))
		return;
	if (st != PF_FREE && st != PF_READY && st != PF_FAILED)
		return; /* the slot is in the queue for another page: this hint is dropped */
	s->idx = idx;
	atomic_store_explicit(&s->state, PF_QUEUED, memory_order_release);
	uint64_t t = atomic_load_explicit(&pf->tail, memory_order_relaxed);
	pf->queue[t % PREFETCH_QUEUE] = (uint32_t)(s - pf->slot);
	atomic_store(&pf->tail, t + 1);
	if (atomic_load(&pf->sleeping)) {
		pthread_mutex_lock(&pf->lock);
		pthread_cond_signal(&pf->wake);
		pthread_mutex_unlock(&pf->lock);
	}
}

enum ps_kdump_page_status ps_kdump_pages_read(struct ps_kdump_pages *k, uint64_t idx,
					      uint32_t offset, void *buf, size_t len,
					      char *err, size_t errlen)
{
	const unsigned char *hit = cached(k, idx);
	if (hit) {
		memcpy(buf, hit + offset, len);
		return KP_OK;
	}
	uint64_t set = idx & (k->nslots / 2 - 1), slot = 2 * set + k->lru[set];
	if (k->pf && take_prefetched(k, idx, slot)) {
		k->tag[slot] = idx + 1;
		k->lru[set] = (uint8_t)(slot % 2 == 0);
		memcpy(buf, k->page[slot] + offset, len);
		return KP_OK;
	}
	unsigned char *page = slot_page(k, slot);
	uint64_t di = desc_index(k, idx), at, size, off, flags;
	const char *why = fetch_desc(k, di, &at, &size, &off, &flags);
	if (!why && (flags & (FLAG_LZO | FLAG_SNAPPY)))
		return KP_FOREIGN;
	if (!why && !(flags & (FLAG_ZLIB | FLAG_ZSTD))) {
		/* stored as it is (SIZE is the block size): nothing to keep */
		if (fetch(k, off + offset, buf, len))
			return KP_OK;
		why = data_unreadable;
	}
	if (!why) {
		k->tag[slot] = 0;
		why = unpack(k, &k->u, off, size, flags, page);
	}
	if (why) {
		describe(err, errlen, di, at, size, off, flags, why);
		return KP_ERROR;
	}
	k->decompressed++;
	k->tag[slot] = idx + 1;
	k->lru[set] = (uint8_t)(slot % 2 == 0);
	memcpy(buf, page + offset, len);
	return KP_OK;
}

/* One thread's share of a run: whole pages (present; their descriptors consecutive from
 * FIRST_DESC) decompressed straight into OUT. ok false at the first page that is not zlib,
 * zstd or stored whole, or does not come out whole; decompressed counts the pages inflated.
 * Reads K only. */
struct run_share {
	const struct ps_kdump_pages *k;
	struct unpacker *u;
	uint64_t first_desc, n;
	unsigned char *out;
	uint64_t decompressed;
	bool ok;
};

static void *read_share(void *arg)
{
	struct run_share *r = arg;
	uint32_t bs = r->k->l.block_size;
	r->ok = false;
	for (uint64_t i = 0; i < r->n; i++) {
		uint64_t at, size, off, flags;
		unsigned char *page = r->out + i * bs;
		if (fetch_desc(r->k, r->first_desc + i, &at, &size, &off, &flags) ||
		    (flags & (FLAG_LZO | FLAG_SNAPPY)))
			return NULL;
		if (!(flags & (FLAG_ZLIB | FLAG_ZSTD))) {
			if (!fetch(r->k, off, page, bs))
				return NULL;
			continue;
		}
		if (unpack(r->k, r->u, off, size, flags, page))
			return NULL;
		r->decompressed++;
	}
	r->ok = true;
	return NULL;
}

bool ps_kdump_pages_read_run(struct ps_kdump_pages *k, uint64_t first, uint64_t n, void *buf)
{
	if (n == 0 || first > UINT64_MAX - n)
		return n == 0;
	for (uint64_t i = 0; i < n; i++)
		if (!ps_kdump_pages_present(k, first + i))
			return false;
	/* Consecutive present pages have consecutive descriptors. The run is cut into equal
	 * shares, the calling thread's first; a helper that cannot start leaves its share to
	 * the calling thread. */
	uint64_t first_desc = desc_index(k, first);
	unsigned nshares = 1; /* each helper's share needs a decompressor of its own */
	while (nshares <= k->nhelpers && n / (nshares + 1) >= RUN_SPLIT_PAGES) {
		struct unpacker *h = &k->helper[nshares - 1];
		if (!h->packed && !unpacker_init(h, k->l.block_size)) {
			unpacker_fini(h);
			break;
		}
		nshares++;
	}
	struct run_share share[1 + RUN_HELPERS];
	uint64_t per = n / nshares;
	for (unsigned i = 0; i < nshares; i++) {
		uint64_t from = i * per, count = i + 1 < nshares ? per : n - from;
		share[i] = (struct run_share){ .k = k, .u = i ? &k->helper[i - 1] : &k->u,
					       .first_desc = first_desc + from, .n = count,
					       .out = (unsigned char *)buf + from * k->l.block_size };
	}
	ps_run_shares(read_share, share, sizeof share[0], nshares);
	bool ok = true;
	for (unsigned i = 0; i < nshares; i++) {
		k->decompressed += share[i].decompressed;
		ok = ok && share[i].ok;
	}
	return ok;
}

enum ps_kdump_page_status ps_kdump_pages_peek(struct ps_kdump_pages *k, uint64_t idx, void *buf,
					      size_t len, char *err, size_t errlen)
{
	const unsigned char *hit = cached(k, idx);
	if (hit) {
		memcpy(buf, hit, len);
		return KP_OK;
	}
	uint64_t di = desc_index(k, idx), at, size, off, flags;
	const char *why = fetch_desc(k, di, &at, &size, &off, &flags);
	if (!why && !(flags & FLAG_ZLIB)) /* zstd decodes a page-sized block whole anyway */
		return ps_kdump_pages_read(k, idx, 0, buf, len, err, errlen);
	if (!why && !k->prefix_inflater_ready) {
		if (inflateInit(&k->prefix_inflater) != Z_OK)
			return ps_kdump_pages_read(k, idx, 0, buf, len, err, errlen);
		k->prefix_inflater_ready = true;
	}
	if (!why && !fetch(k, off, k->u.packed, (size_t)size))
		why = data_unreadable;
	if (!why) {
		z_stream *z = &k->prefix_inflater;
		if (inflateReset(z) != Z_OK)
			return ps_kdump_pages_read(k, idx, 0, buf, len, err, errlen);
		z->next_in = k->u.packed;
		z->avail_in = (uInt)size;
		z->next_out = buf;
		z->avail_out = (uInt)len;
		int zr = inflate(z, Z_SYNC_FLUSH);
		/* Only the prefix is checked: what a scan needs. A read of the page says more. */
		if (z->avail_out != 0 || (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR))
			why = "zlib data does not inflate to a page";
	}
	if (why) {
		memset(buf, 0, len);
		describe(err, errlen, di, at, size, off, flags, why);
		return KP_ERROR;
	}
	return KP_OK;
}

void ps_kdump_pages_counts(const struct ps_kdump_pages *k, uint64_t *decompressed, uint64_t *hits,
			   uint64_t *ahead, uint64_t *ahead_used)
{
	uint64_t pf = k && k->pf ? atomic_load(&k->pf->decompressed) : 0;
	*decompressed = k ? k->decompressed + pf : 0;
	*hits = k ? k->hits : 0;
	*ahead = k ? k->ahead + pf : 0;
	*ahead_used = k ? k->ahead_used + (k->pf ? k->pf->used : 0) : 0;
}

void ps_kdump_pages_add_counts(struct ps_kdump_pages *k, uint64_t decompressed, uint64_t hits)
{
	if (k)
		k->decompressed += decompressed, k->hits += hits;
}

void ps_kdump_pages_stop_helpers(struct ps_kdump_pages *k)
{
	if (!k)
		return;
	prefetcher_stop(k);
	k->nhelpers = 0;
}
