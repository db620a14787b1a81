/* ws.c - working set over time in the tool: code and data pages, for the whole process
 * (tid=0, a page shared between threads counted once) and for each thread, on the sampling
 * clock of trace/ws_core, with a final partial sample at the end of the run; peaks of the
 * process series (by prominence, or the paper's online detector) with the running thread's
 * call stack at each peak's onset.
 *
 * Speed: the generated code skips the helpers for accesses to the page the last one touched
 * in the current epoch (a time range in which a touch's expiry sample does not change, at
 * most PS_MAX_EPOCH instructions). In the helpers, a per-thread direct-mapped cache of
 * (page, epoch) catches other pages touched again in the epoch, so only the first touch of
 * a page per epoch reaches the window sets. */
#include "pub_tool_basics.h"
#include "pub_tool_execontext.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_stacktrace.h"
#include "pub_tool_threadstate.h"
#include "ps_tool.h"
#include "ws_core.h"

ULong ps_clo_every = 100000, ps_clo_tau = 0;
UInt ps_clo_page_shift = 12;
Bool ps_clo_peaks = True;
Bool ps_clo_peak_paper = False;
UInt ps_clo_peak_min = 10, ps_clo_peak_max = 10;
UInt ps_clo_peak_window = 30;
double ps_clo_peak_gain = 2.0, ps_clo_peak_adapt = 0.0;
UInt ps_clo_hot = 0;

ULong ps_instr_count;
UInt ps_cur_thread;

enum { CODE, DATA, NKIND };
static const HChar *const kind_name[NKIND] = { "code", "data" };

#define CACHE_BITS 6
#define CACHE_SIZE (1u << CACHE_BITS)
#define MAX_PEAK_IPS 32

struct cache_line {
	ULong page, epoch;
	struct ws_page *proc; /* the page's process-level entry (hot counts) */
};

struct thread_ws {
	UInt num;
	ThreadId vg;
	struct ws_set set[NKIND];
	struct cache_line cache[NKIND][CACHE_SIZE];
	struct thread_ws *next; /* list of live threads */
};

static struct ws_clock clock;
static struct ws_alloc alloc;
static struct ws_set proc[NKIND];
static struct thread_ws **by_vg_tid; /* VG_N_THREADS entries (--max-threads) */
static struct thread_ws *threads; /* live ones, newest first */
static struct thread_ws *cur;
/* Client code runs only after the core said which thread runs it (start_client_code, before
 * the first instruction: the dynamic loader's accesses are the main thread's). Should an
 * access still come without a current thread, it counts for the process. */
static struct thread_ws no_thread;
/* While the process has had one thread only, that thread's sets would equal the process's:
 * they are not kept (half the work per touch) until a second thread starts, when they
 * become a copy of the process's. */
static Bool one_thread = True;
static UInt next_thread_num = 1;
static ULong epoch = 1;
#define epoch_end ps_epoch_end

ULong ps_epoch_end;
UWord ps_last_data_page = ~0UL, ps_last_code_page = ~0UL;
static ULong dummy_count;
ULong *ps_last_data_count = &dummy_count, *ps_last_code_count = &dummy_count;

ULong ps_data_hot_pend;

/* The accesses the generated code counted since ps_last_data_count last changed are that
 * page's: add them before it changes. */
static inline void flush_data_hot(void)
{
	if (ps_data_hot_pend) { /* never without --hot: no store to the page's entry then */
		*ps_last_data_count += ps_data_hot_pend;
		ps_data_hot_pend = 0;
	}
}

/* Nothing is known to be current: the generated code calls the helpers again. */
static void forget_last(void)
{
	flush_data_hot();
	ps_last_data_page = ps_last_code_page = ~0UL;
	ps_last_data_count = ps_last_code_count = &dummy_count;
}

struct peak_state {
	struct ws_peak det;
	Addr ips[MAX_PEAK_IPS]; /* the running thread's stack at the peak's onset */
	UInt n_ips, thread;
	ULong start;            /* the onset sample's time */
};
static struct peak_state peaks[NKIND];
static struct ws_prom prom[NKIND]; /* the default detector */

/* The end of the run (ps_ws_finish): nothing is counted after it (the core may run
 * __libc_freeres in the client before fini: not the program's own work). */
static Bool ended;
static ULong end_t;

static void *vg_alloc(void *ctx, size_t n)
{
	(void)ctx;
	return VG_(malloc)("ps.ws", n);
}

static void vg_release(void *ctx, void *p)
{
	(void)ctx;
	VG_(free)(p);
}

static void set_init(struct ws_set *s)
{
	if (ws_set_init(s, &clock, &alloc) != 0)
		VG_(tool_panic)((HChar *)"pagesleuth: out of memory");
}

void ps_ws_init(void)
{
	alloc.alloc = vg_alloc;
	alloc.release = vg_release;
	alloc.ctx = NULL;
	/* ps_main.c checked the ratio; a failure here is a bug */
	tl_assert(ws_clock_init(&clock, ps_clo_every, ps_clo_tau) == 0);
	for (int k = 0; k < NKIND; k++) {
		set_init(&proc[k]);
		ws_peak_init(&peaks[k].det, ps_clo_peak_window, ps_clo_peak_gain, ps_clo_peak_adapt);
		if (ws_prom_init(&prom[k], &alloc) != 0)
			VG_(tool_panic)((HChar *)"pagesleuth: out of memory");
	}
	by_vg_tid = VG_(calloc)("ps.threads", VG_N_THREADS, sizeof *by_vg_tid);
	for (int k = 0; k < NKIND; k++)
		for (UInt i = 0; i < CACHE_SIZE; i++)
			no_thread.cache[k][i].page = ~0ull;
	epoch_end = clock.switch_t < clock.next_t ? clock.switch_t : clock.next_t;
	if (epoch_end > PS_MAX_EPOCH)
		epoch_end = PS_MAX_EPOCH;
}

void ps_ws_thread_start(ThreadId vg)
{
	tl_assert(vg < VG_N_THREADS);
	if (by_vg_tid[vg])
		ps_ws_thread_exit(vg); /* missed exit: never two states for one ThreadId */
	struct thread_ws *th = VG_(calloc)("ps.thread", 1, sizeof *th);
	th->num = next_thread_num++;
	th->vg = vg;
	for (int k = 0; k < NKIND; k++) {
		set_init(&th->set[k]);
		for (UInt i = 0; i < CACHE_SIZE; i++)
			th->cache[k][i].page = ~0ull;
	}
	if (threads && one_thread) {
		for (int k = 0; k < NKIND; k++)
			for (struct thread_ws *o = threads; o; o = o->next)
				if (ws_set_copy(&o->set[k], &proc[k]) != 0)
					VG_(tool_panic)((HChar *)"pagesleuth: out of memory");
		one_thread = False;
	}
	th->next = threads;
	threads = th;
	by_vg_tid[vg] = th;
}

static void write_summary(UInt tid, const struct ws_set *set)
{
	ps_rec_begin("ws");
	ps_rec_u("t", ended ? end_t : ps_instr_count);
	ps_rec_u("tid", tid);
	ps_rec_raw("code", "-");
	ps_rec_raw("data", "-");
	ps_rec_u("tau", ps_clo_tau);
	ps_rec_u("final", 1);
	ps_rec_u("samples", set[CODE].samples);
	ps_rec_frac("avg_code", set[CODE].sum, set[CODE].samples);
	ps_rec_frac("avg_data", set[DATA].sum, set[DATA].samples);
	ps_rec_u("peak_code", set[CODE].peak);
	ps_rec_u("peak_data", set[DATA].peak);
	ps_rec_u("total_code", set[CODE].pages);
	ps_rec_u("total_data", set[DATA].pages);
	ps_rec_end();
}

void ps_ws_thread_exit(ThreadId vg)
{
	struct thread_ws *th = vg < VG_N_THREADS ? by_vg_tid[vg] : NULL;
	if (!th)
		return;
	if (!ended) {
		/* samples due before its exit first, so its series ends at the right place */
		ps_ws_catch_up(ps_instr_count + 1);
		write_summary(th->num, one_thread ? proc : th->set);
	}
	for (struct thread_ws **p = &threads; *p; p = &(*p)->next)
		if (*p == th) {
			*p = th->next;
			break;
		}
	by_vg_tid[vg] = NULL;
	if (cur == th) {
		cur = NULL;
		ps_cur_thread = 0;
		forget_last();
	}
	for (int k = 0; k < NKIND; k++)
		ws_set_free(&th->set[k]);
	VG_(free)(th);
}

void ps_ws_switch_thread(ThreadId vg)
{
	if (vg >= VG_N_THREADS)
		return;
	if (!by_vg_tid[vg])
		ps_ws_thread_start(vg); /* the main thread has no creation event */
	cur = by_vg_tid[vg];
	ps_cur_thread = cur->num;
	forget_last(); /* the fast path's pages are the previous thread's */
}

static void write_peak(int k)
{
	struct peak_state *ps = &peaks[k];
	HChar stack[1024];
	ps_stack_ids_ips(ps->ips, ps->n_ips, stack, sizeof stack);
	ps_rec_begin("peak");
	ps_rec_u("t", ps->det.max_t);
	ps_rec_u("tid", ps->thread);
	ps_rec_raw("kind", kind_name[k]);
	ps_rec_u("pages", ps->det.max_pages);
	ps_rec_raw("stack", stack);
	ps_rec_u("start", ps->start);
	ps_rec_end();
}

static void feed_peak(int k, ULong t, ULong pages)
{
	struct peak_state *ps = &peaks[k];
	switch (ws_peak_feed(&ps->det, t, pages)) {
	case WS_PEAK_START:
		/* The code running when the set first crossed the threshold is what raised
		 * it (at the maximum, later, the program may have moved on). */
		ps->thread = ps_cur_thread;
		ps->start = t;
		ps->n_ips = cur ? VG_(get_StackTrace)(cur->vg, ps->ips, MAX_PEAK_IPS, NULL, NULL, 0) : 0;
		break;
	case WS_PEAK_HIGHER:
		break;
	case WS_PEAK_END:
		write_peak(k);
		break;
	case WS_PEAK_NONE:
		break;
	}
}

/* The tag of a sample for the prominence detector: the running thread and its stack (an
 * ExeContext's unique number), taken only when the sample may be a peak's onset. */
static ULong onset_tag(void)
{
	Bool want = False;
	for (int k = 0; k < NKIND; k++)
		want |= ws_prom_wants_tag(&prom[k]);
	if (!want || !cur)
		return 0;
	ExeContext *ec = VG_(record_ExeContext)(cur->vg, 0);
	return (ULong)cur->num << 32 | VG_(get_ECU_from_ExeContext)(ec);
}

static void write_sample(ULong t, UInt tid, ULong code, ULong data, ULong partial)
{
	ps_rec_begin("ws");
	ps_rec_u("t", t);
	ps_rec_u("tid", tid);
	ps_rec_u("code", code);
	ps_rec_u("data", data);
	ps_rec_u("tau", ps_clo_tau);
	if (partial)
		ps_rec_u("partial", partial);
	ps_rec_end();
}

/* The sample due at clock.next_t, recorded at t: t = next_t, or the end of the run before it
 * (partial = t - the previous sample's time: the pages the sample at next_t would count had
 * the program stopped at t). */
static void take_sample(ULong t, ULong partial)
{
	ULong pages[NKIND];
	for (int k = 0; k < NKIND; k++)
		pages[k] = ws_sample(&proc[k]);
	write_sample(t, 0, pages[CODE], pages[DATA], partial);
	/* While the process has one thread, its samples are the process's: not written twice
	 * (readers take tid 0's, docs/record-format.md). */
	if (!one_thread)
		for (struct thread_ws *th = threads; th; th = th->next) {
			ULong c = ws_sample(&th->set[CODE]);
			write_sample(t, th->num, c, ws_sample(&th->set[DATA]), partial);
		}
	if (!ps_clo_peaks)
		return;
	if (ps_clo_peak_paper) {
		for (int k = 0; k < NKIND; k++)
			feed_peak(k, t, pages[k]);
		return;
	}
	ULong tag = onset_tag();
	for (int k = 0; k < NKIND; k++)
		ws_prom_feed(&prom[k], t, pages[k], tag);
}

/* Take every sample due strictly before now (touches at now come after them). */
static void take_samples(ULong now)
{
	while (clock.next_t < now) {
		take_sample(clock.next_t, 0);
		ws_clock_advance(&clock);
	}
}

void ps_ws_catch_up(ULong now)
{
	if (now <= epoch_end || ended)
		return;
	take_samples(now);
	/* a new epoch: cached pages must be touched again once */
	epoch++;
	forget_last();
	epoch_end = now <= clock.switch_t ? clock.switch_t : clock.next_t;
	/* bounded, so the objects fast path's pending counters cannot overflow (ps_tool.h) */
	if (epoch_end - now > PS_MAX_EPOCH)
		epoch_end = now + PS_MAX_EPOCH;
}

static struct ws_page *touch_slow(struct thread_ws *th, int k, ULong page, ULong now, Addr ip,
				   ULong count, struct cache_line *c)
{
	struct ws_page *pe = ws_touch(&proc[k], page, now);
	if (!pe || (!one_thread && th != &no_thread && !ws_touch(&th->set[k], page, now)))
		VG_(tool_panic)((HChar *)"pagesleuth: out of memory");
	if (ps_clo_hot) {
		if (pe->count == 0)
			pe->user = ps_frame_id(ip);
		pe->count += count;
	}
	c->page = page;
	c->epoch = epoch;
	c->proc = pe;
	return pe;
}

/* Record a touch; returns the page's process-level entry (its hot count). */
static inline struct ws_page *touch(int k, ULong page, ULong now, Addr ip, ULong count)
{
	struct thread_ws *th = LIKELY(cur != NULL) ? cur : &no_thread;
	struct cache_line *c = &th->cache[k][page & (CACHE_SIZE - 1)];
	if (LIKELY(c->page == page && c->epoch == epoch)) {
		c->proc->count += count;
		return c->proc;
	}
	return touch_slow(th, k, page, now, ip, count, c);
}

static inline void data_access(Addr a, UWord arg, UWord delta, Addr ip, ULong count)
{
	/* The helper runs before the client's access to a: start fetching its line now, so
	 * the client's cache miss overlaps the miss on the page's entry here instead of
	 * following it (a prefetch never faults). */
	__builtin_prefetch((const void *)a);
	ULong now = ps_instr_count + delta;
	SizeT size = arg & 0xffff;
	if (UNLIKELY(now > epoch_end)) {
		if (ended)
			return; /* epoch_end is 0 from the end of the run on */
		ps_ws_catch_up(now);
	}
	ULong first = a >> ps_clo_page_shift, last = (a + (size ? size - 1 : 0)) >> ps_clo_page_shift;
	struct ws_page *pe = touch(DATA, first, now, ip, count);
	if (UNLIKELY(last != first)) {
		for (ULong p = first + 1; p <= last; p++)
			touch(DATA, p, now, ip, count);
	} else if (now + ((arg >> PS_ARG_LEFT_SHIFT) & PS_ARG_LEFT_MAX) <= epoch_end) {
		/* the rest of this superblock runs in this epoch: the generated code may skip
		 * further accesses to this page */
		flush_data_hot();
		ps_last_data_page = first;
		ps_last_data_count = (ULong *)&pe->count;
	}
	if (ps_obj_enabled)
		ps_obj_access(a, size, (arg >> 16) & 1);
}

static inline void code_access(Addr ip, UWord arg, UWord delta)
{
	ULong now = ps_instr_count + delta;
	if (UNLIKELY(now > epoch_end)) {
		if (ended)
			return;
		ps_ws_catch_up(now);
	}
	ULong page = ip >> ps_clo_page_shift;
	struct ws_page *pe = touch(CODE, page, now, ip, ps_clo_hot ? (arg & 0xffff) : 0);
	if (now + ((arg >> PS_ARG_LEFT_SHIFT) & PS_ARG_LEFT_MAX) <= epoch_end) {
		ps_last_code_page = page;
		ps_last_code_count = (ULong *)&pe->count;
	} else {
		/* this superblock crosses into the next epoch: every access of it must
		 * reach a helper, which takes the samples at the right instruction */
		forget_last();
	}
}

/* The helpers: on 64-bit targets delta is arg's bits 32-63, on 32-bit ones an argument. */
#if VG_WORDSIZE == 8
VG_REGPARM(2) void ps_h_data(Addr a, UWord arg)
{
	data_access(a, arg, arg >> 32, 0, 0);
}

VG_REGPARM(3) void ps_h_data_hot(Addr a, UWord arg, Addr ip)
{
	data_access(a, arg, arg >> 32, ip, 1);
}

VG_REGPARM(2) void ps_h_code(Addr ip, UWord arg)
{
	code_access(ip, arg, arg >> 32);
}
#else
VG_REGPARM(3) void ps_h_data(Addr a, UWord arg, UWord delta)
{
	data_access(a, arg, delta, 0, 0);
}

void ps_h_data_hot(Addr a, UWord arg, Addr ip, UWord delta)
{
	data_access(a, arg, delta, ip, 1);
}

VG_REGPARM(3) void ps_h_code(Addr ip, UWord arg, UWord delta)
{
	code_access(ip, arg, delta);
}
#endif

const struct ws_set *ps_ws_proc_set(int data)
{
	return &proc[data ? DATA : CODE];
}

static void write_prom_peaks(int k)
{
	struct ws_prom_peak *out = VG_(malloc)("ps.peaks", ps_clo_peak_max * sizeof *out);
	ws_prom_finish(&prom[k]);
	if (prom[k].failed)
		VG_(umsg)("pagesleuth: out of memory in the peak detector: %s peaks are missing\n",
			  kind_name[k]);
	size_t n = ws_prom_result(&prom[k], ps_clo_peak_min, ps_clo_peak_max, out);
	for (size_t i = 0; i < n; i++) {
		HChar stack[1024] = "-";
		UInt tid = (UInt)(out[i].tag >> 32);
		ExeContext *ec = out[i].tag ? VG_(get_ExeContext_from_ECU)((UInt)out[i].tag) : NULL;
		if (ec)
			ps_stack_ids(ec, stack, sizeof stack); /* frame records first */
		ps_rec_begin("peak");
		ps_rec_u("t", out[i].t);
		ps_rec_u("tid", tid);
		ps_rec_raw("kind", kind_name[k]);
		ps_rec_u("pages", out[i].pages);
		ps_rec_raw("stack", stack);
		ps_rec_u("start", out[i].start);
		ps_rec_u("prominence", out[i].prominence);
		ps_rec_u("rank", i + 1);
		ps_rec_u("repeats", out[i].repeats);
		ps_rec_end();
	}
	VG_(free)(out);
	ws_prom_free(&prom[k]);
}

void ps_ws_finish(void)
{
	if (ended)
		return;
	flush_data_hot();
	end_t = ps_instr_count;
	ps_ws_catch_up(end_t + 1); /* the samples due at or before the end */
	ULong last = clock.next_t - clock.every;
	if (end_t > last)
		take_sample(end_t, end_t - last);
	if (ps_clo_peaks && ps_clo_peak_paper) {
		for (int k = 0; k < NKIND; k++)
			if (peaks[k].det.in_peak)
				write_peak(k);
	} else if (ps_clo_peaks) {
		for (int k = 0; k < NKIND; k++)
			write_prom_peaks(k);
	}
	for (struct thread_ws *th = threads; th; th = th->next)
		write_summary(th->num, one_thread ? proc : th->set);
	/* Nothing more is counted: the helpers see every access (no fast path: nothing is
	 * the last page), find the epoch over and return. */
	ended = True;
	forget_last();
	epoch_end = 0;
}

UInt ps_ws_live_threads(void)
{
	UInt n = 0;
	for (struct thread_ws *th = threads; th; th = th->next)
		n++;
	return n;
}

ULong ps_ws_end_time(void)
{
	return ended ? end_t : ps_instr_count;
}

void ps_ws_write_process_summary(void)
{
	write_summary(0, proc);
}
