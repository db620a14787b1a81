/* tasks.c - the task list: every user thread, grouped by address space.
 *
 * init_task.tasks links one task_struct per thread group (the leaders); each leader's
 * signal->thread_head links every thread of the group through task->thread_node (Linux
 * 6.1; older kernels too since 3.x). Threads sharing an mm_struct share an address space,
 * so they become one mm record however their thread groups look (vfork, CLONE_VM).
 *
 * Guards: a visited set per list (a cycle is a warn, not a hang), max_tasks over all
 * threads, and a pointer check before every read.
 */
#include "mm_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* include/linux/sched.h; unchanged for many years. Flags are #defines, so no type
 * information source can give them. */
#define PF_EXITING 0x00000004u
#define PF_KTHREAD 0x00200000u

#define DEFAULT_MAX_TASKS (UINT64_C(4) << 20)

/* What the walk saw of a pid asked for with ps_walk_options.pids. */
enum { PID_UNSEEN, PID_EXITED, PID_FOUND };

struct walk {
	struct ps_walker *w;
	struct mm_tasklist *tl;
	size_t tlen;           /* sizeof(struct task_struct) */
	uint8_t *leader_buf, *thread_buf;
	struct mm_set leaders, threads;
	uint64_t budget;       /* threads still allowed (max_tasks) */
	uint8_t *pid_seen;     /* per asked pid: PID_* */
	uint64_t pid_limit;    /* no pid is this large or larger (pid_limit()) */
	bool oom;
};

/* One above the largest pid the kernel can hand out: its pid_max variable where the dump
 * tells it, else PID_MAX_LIMIT (include/linux/threads.h: 4M with 64-bit pointers, 32768
 * with 32-bit ones). A larger pid, tgid or parent's tgid is not a kernel's. */
static uint64_t pid_limit(struct ps_walker *w)
{
	uint64_t limit = w->c.ptr_size == 8 ? UINT64_C(4194304) : UINT64_C(32768), sym;
	uint32_t v;
	if (ps_core_symbol_by_name(&w->c, "pid_max", &sym) == 0 && ps_kread_u32(&w->c, sym, &v) == PS_READ_OK &&
	    v >= 301 && v <= limit) /* RESERVED_PIDS + 1 .. */
		limit = v;
	return limit + 1;
}

/* /proc/PID/stat's letter (fs/proc/array.c task_state_array, 6.1 values of
 * include/linux/sched.h): fls((__state | exit_state) & TASK_REPORT), with TASK_IDLE
 * reported as 'I' and TASK_RTLOCK_WAIT as 'D'. */
static char state_letter(uint64_t state, uint64_t exit_state)
{
	enum {
		TASK_INTERRUPTIBLE = 0x1, TASK_UNINTERRUPTIBLE = 0x2, TASK_REPORT = 0x7f,
		TASK_NOLOAD = 0x400, TASK_RTLOCK_WAIT = 0x1000,
	};
	static const char letters[] = "RSDTtXZPI";
	uint32_t st = (uint32_t)state;
	uint32_t rep = (st | (uint32_t)exit_state) & TASK_REPORT;
	if ((st & (TASK_UNINTERRUPTIBLE | TASK_NOLOAD)) == (TASK_UNINTERRUPTIBLE | TASK_NOLOAD))
		rep = TASK_REPORT + 1; /* TASK_REPORT_IDLE */
	if (st == TASK_RTLOCK_WAIT)
		rep = TASK_UNINTERRUPTIBLE;
	unsigned idx = 0;
	while (rep) {
		idx++;
		rep >>= 1;
	}
	return idx < sizeof letters - 1 ? letters[idx] : '?';
}

static bool pid_selected(const struct walk *k, uint64_t tgid, size_t *which)
{
	const struct ps_walk_options *o = k->w->opt;
	if (!o->npids)
		return true;
	for (size_t i = 0; i < o->npids; i++) {
		if (o->pids[i] == tgid) {
			*which = i;
			return true;
		}
	}
	return false;
}

static enum ps_read_status read_task(struct walk *k, uint64_t task, uint8_t *buf)
{
	if (!mm_kptr_ok(k->w, task, k->w->c.ptr_size))
		return PS_READ_ERROR;
	enum ps_read_status st = ps_kread(&k->w->c, task, buf, k->tlen);
	if (st == PS_READ_OK && k->w->trace)
		fprintf(k->w->trace, "task %" PRIx64 "\n", task);
	return st;
}

/* The index of the mm at KADDR in tl->mm, reading it the first time. -1: out of memory. */
static int64_t mm_index(struct walk *k, uint64_t kaddr, uint64_t tgid, const char *comm)
{
	struct mm_tasklist *tl = k->tl;
	uint64_t idx;
	if (mm_set_get(&tl->mm_index, kaddr, &idx))
		return (int64_t)idx;
	if (tl->nmm == tl->capmm) {
		size_t ncap = tl->capmm ? tl->capmm * 2 : 64;
		struct mm_space *n = realloc(tl->mm, ncap * sizeof *n);
		if (!n)
			return -1;
		tl->mm = n, tl->capmm = ncap;
	}
	struct mm_space *m = &tl->mm[tl->nmm];
	memset(m, 0, sizeof *m);
	m->kaddr = kaddr;
	m->id = tl->nmm + 1;
	m->tgid = tgid;
	snprintf(m->comm, sizeof m->comm, "%s", comm);
	size_t mlen = (size_t)mm_size(k->w, PS_KI_MM_STRUCT);
	m->buf = malloc(mlen);
	if (!m->buf)
		return -1;
	enum ps_read_status st = ps_kread(&k->w->c, kaddr, m->buf, mlen);
	m->readable = st == PS_READ_OK;
	if (!m->readable)
		mm_warn(k->w, m->id, kaddr, "cannot read mm_struct of pid %" PRIu64 ": %s", tgid,
			ps_read_status_name(st));
	if (mm_set_put(&tl->mm_index, kaddr, tl->nmm, true) < 0) {
		free(m->buf);
		return -1;
	}
	return (int64_t)tl->nmm++;
}

/* The mm's RSS counters as /proc/PID/status shows them (get_mm_counter: negative reads 0).
 * 6.1: struct mm_rss_stat { atomic_long_t count[NR_MM_COUNTERS]; }; 6.2+: struct
 * percpu_counter rss_stat[NR_MM_COUNTERS] (the approximate global count is what status
 * shows). The per-thread SPLIT_RSS caches (< 6.2) are not added, as the kernel does not. */
void mm_rss_counters(struct ps_walker *w, const struct mm_space *mm, struct ps_task *t)
{
	t->rss_file = t->rss_anon = t->rss_shmem = t->rss_swap = PS_UNKNOWN;
	if (!mm->readable || !mm_has(w, PS_KI_MM_RSS_STAT))
		return;
	const struct ps_kinfo_member *rs = &w->c.ki.member[PS_KI_MM_RSS_STAT];
	int64_t nr = mm_enum(w, PS_KI_NR_MM_COUNTERS);
	if (nr == PS_KI_ABSENT || nr <= 0 || nr > 16)
		return;
	uint64_t stride, inner;
	unsigned width;
	if (rs->nelems == 0 && rs->size == (uint64_t)nr * w->c.ptr_size) {
		stride = w->c.ptr_size, inner = 0, width = w->c.ptr_size;
	} else if (rs->nelems == (uint32_t)nr && mm_has(w, PS_KI_PERCPU_COUNTER_COUNT)) {
		stride = rs->size / rs->nelems;
		inner = (uint64_t)mm_off(w, PS_KI_PERCPU_COUNTER_COUNT);
		width = 8; /* s64 count */
	} else {
		return;
	}
	size_t mlen = (size_t)mm_size(w, PS_KI_MM_STRUCT);
	const enum ps_ki_enum ids[4] = { PS_KI_MM_FILEPAGES, PS_KI_MM_ANONPAGES, PS_KI_MM_SHMEMPAGES,
					 PS_KI_MM_SWAPENTS };
	uint64_t *outs[4] = { &t->rss_file, &t->rss_anon, &t->rss_shmem, &t->rss_swap };
	for (int i = 0; i < 4; i++) {
		int64_t e = mm_enum(w, ids[i]);
		if (e == PS_KI_ABSENT || e < 0 || e >= nr)
			continue;
		uint64_t off = (uint64_t)rs->offset + (uint64_t)e * stride + inner;
		if (off + width > mlen)
			continue;
		int64_t v = width == 8 ? (int64_t)ps_load_u64(&w->c, mm->buf + off)
				       : (int64_t)ps_load_s32(&w->c, mm->buf + off);
		*outs[i] = v < 0 ? 0 : (uint64_t)v;
	}
}

/* One thread whose task_struct is in BUF. */
static void add_thread(struct walk *k, uint64_t task, const uint8_t *buf)
{
	struct ps_walker *w = k->w;
	uint64_t flags = 0, mm = 0, exit_state = 0, state = 0, pid = 0, tgid = 0;
	mm_get(w, buf, k->tlen, PS_KI_TASK_FLAGS, &flags);
	mm_get(w, buf, k->tlen, PS_KI_TASK_MM, &mm);
	mm_get(w, buf, k->tlen, PS_KI_TASK_EXIT_STATE, &exit_state);
	if (!mm_get(w, buf, k->tlen, PS_KI_TASK_STATE, &state))
		mm_get(w, buf, k->tlen, PS_KI_TASK_STATE_OLD, &state);
	mm_get(w, buf, k->tlen, PS_KI_TASK_PID, &pid);
	mm_get(w, buf, k->tlen, PS_KI_TASK_TGID, &tgid);
	/* Kernel threads have no mm (or borrow one while running: PF_KTHREAD says). A task
	 * that exited far enough to drop its mm has no address space left to describe. */
	size_t which = 0;
	if ((flags & PF_KTHREAD) || !pid_selected(k, tgid, &which))
		return;
	if (!mm) {
		/* Past exit_mm(): remember it, so an asked-for pid gets the right message. */
		if (k->pid_seen && k->pid_seen[which] == PID_UNSEEN && ((flags & PF_EXITING) || exit_state))
			k->pid_seen[which] = PID_EXITED;
		return;
	}
	if (!k->pid_limit)
		k->pid_limit = pid_limit(w);
	if (pid == 0 || tgid == 0 || pid >= k->pid_limit || tgid >= k->pid_limit) {
		mm_warn(w, PS_UNKNOWN, task, "task at %" PRIx64 ": pid %" PRIu64 ", tgid %" PRIu64
			" are not pids a kernel hands out (the limit is %" PRIu64 "): not read", task, pid,
			tgid, k->pid_limit - 1);
		return;
	}
	for (size_t i = which; k->pid_seen && i < k->w->opt->npids; i++)
		if (k->w->opt->pids[i] == tgid) /* a pid asked for twice is found twice */
			k->pid_seen[i] = PID_FOUND;
	if (!mm_kptr_ok(w, mm, w->c.ptr_size)) {
		mm_warn(w, PS_UNKNOWN, task, "task %" PRIu64 ": mm pointer %" PRIx64 " is not a kernel address",
			pid, mm);
		return;
	}
	struct mm_tasklist *tl = k->tl;
	if (tl->n == tl->cap) {
		size_t ncap = tl->cap ? tl->cap * 2 : 256;
		struct mm_thread *n = realloc(tl->t, ncap * sizeof *n);
		if (!n) {
			k->oom = true;
			return;
		}
		tl->t = n, tl->cap = ncap;
	}
	struct mm_thread *th = &tl->t[tl->n];
	memset(th, 0, sizeof *th);
	th->kaddr = task;
	th->mm_kaddr = mm;
	const struct ps_kinfo_member *cm = &w->c.ki.member[PS_KI_TASK_COMM];
	size_t clen = cm->size < MM_COMM_LEN - 1 ? cm->size : MM_COMM_LEN - 1;
	if (cm->offset >= 0 && (uint64_t)cm->offset + clen <= k->tlen)
		memcpy(th->comm, buf + cm->offset, clen);
	th->comm[clen] = 0;
	struct ps_task *t = &th->rec;
	t->pid = (uint32_t)pid;
	t->tgid = (uint32_t)tgid;
	t->ppid = PS_UNKNOWN;
	uint64_t parent;
	if (mm_get(w, buf, k->tlen, PS_KI_TASK_REAL_PARENT, &parent) && mm_kptr_ok(w, parent, 4)) {
		uint32_t ptgid;
		if (ps_kread_u32(&w->c, parent + (uint64_t)mm_off(w, PS_KI_TASK_TGID), &ptgid) == PS_READ_OK) {
			if (ptgid < k->pid_limit)
				t->ppid = ptgid;
			else
				mm_warn(w, PS_UNKNOWN, task, "task %" PRIu64 ": its parent's tgid %" PRIu32
					" is above the kernel's pid limit %" PRIu64 ": parent unknown", pid, ptgid,
					k->pid_limit - 1);
		}
	}
	t->state = state_letter(state, exit_state);
	mm_get(w, buf, k->tlen, PS_KI_TASK_MIN_FLT, &t->minflt);
	mm_get(w, buf, k->tlen, PS_KI_TASK_MAJ_FLT, &t->majflt);
	/* utime/stime are u64 nanoseconds since 4.11 (cputime_t removed), start_time too. */
	mm_get(w, buf, k->tlen, PS_KI_TASK_UTIME, &t->utime);
	mm_get(w, buf, k->tlen, PS_KI_TASK_STIME, &t->stime);
	mm_get(w, buf, k->tlen, PS_KI_TASK_START_TIME, &t->start);
	t->exiting = (flags & PF_EXITING) || exit_state;
	int64_t idx = mm_index(k, mm, t->tgid, th->comm);
	if (idx < 0) {
		k->oom = true;
		return;
	}
	t->mm = (uint64_t)idx;
	mm_rss_counters(w, &tl->mm[idx], t);
	tl->n++;
}

/* The threads of the group led by LEADER (task_struct in k->leader_buf). */
static void walk_group(struct walk *k, uint64_t leader)
{
	struct ps_walker *w = k->w;
	uint64_t signal = 0;
	mm_get(w, k->leader_buf, k->tlen, PS_KI_TASK_SIGNAL, &signal);
	uint64_t toff = (uint64_t)mm_off(w, PS_KI_TASK_THREAD_NODE);
	uint64_t head = signal + (uint64_t)mm_off(w, PS_KI_SIGNAL_THREAD_HEAD);
	uint64_t next = 0;
	if (!mm_kptr_ok(w, signal, w->c.ptr_size) || ps_kread_ptr(&w->c, head, &next) != PS_READ_OK) {
		/* No readable thread list (a group being torn down): the leader alone. */
		if (mm_set_put(&k->threads, leader, 0, false) == 1) {
			k->budget -= k->budget > 0;
			add_thread(k, leader, k->leader_buf);
		}
		return;
	}
	while (next != head && !k->oom) {
		if (!k->budget) {
			mm_warn(w, PS_UNKNOWN, leader, "more than %" PRIu64 " threads: task list cut short",
				w->opt->max_tasks ? w->opt->max_tasks : DEFAULT_MAX_TASKS);
			return;
		}
		uint64_t task = next - toff;
		int fresh = mm_set_put(&k->threads, task, 0, false);
		if (fresh < 0) {
			k->oom = true;
			return;
		}
		if (fresh == 0) {
			mm_warn(w, PS_UNKNOWN, task, "thread list of task %" PRIx64 " loops", leader);
			return;
		}
		k->budget--;
		const uint8_t *buf = k->leader_buf;
		if (task != leader) {
			enum ps_read_status st = read_task(k, task, k->thread_buf);
			if (st != PS_READ_OK) {
				mm_warn(w, PS_UNKNOWN, task, "cannot read a thread of task %" PRIx64 ": %s",
					leader, ps_read_status_name(st));
				return;
			}
			buf = k->thread_buf;
		}
		add_thread(k, task, buf);
		uint64_t nx;
		if (!mm_get_ptr(w, buf, k->tlen, PS_KI_TASK_THREAD_NODE, &nx) || !mm_kptr_ok(w, nx, 4)) {
			mm_warn(w, PS_UNKNOWN, task, "thread list of task %" PRIx64 " broken at %" PRIx64,
				leader, task);
			return;
		}
		next = nx;
	}
}

int mm_collect_tasks(struct ps_walker *w, struct mm_tasklist *tl)
{
	struct walk k = { .w = w, .tl = tl, .tlen = (size_t)mm_size(w, PS_KI_TASK_STRUCT) };
	k.budget = w->opt->max_tasks ? w->opt->max_tasks : DEFAULT_MAX_TASKS;
	k.leader_buf = malloc(k.tlen);
	k.thread_buf = malloc(k.tlen);
	if (w->opt->npids)
		k.pid_seen = calloc(w->opt->npids, sizeof *k.pid_seen);
	if (!k.leader_buf || !k.thread_buf || (w->opt->npids && !k.pid_seen)) {
		free(k.leader_buf), free(k.thread_buf), free(k.pid_seen);
		return -1;
	}
	uint64_t init_task = ps_core_sym(&w->c, PS_KI_INIT_TASK);
	uint64_t toff = (uint64_t)mm_off(w, PS_KI_TASK_TASKS);
	uint64_t head = init_task + toff, next = 0;
	enum ps_read_status st = init_task ? ps_kread_ptr(&w->c, head, &next) : PS_READ_ERROR;
	if (st != PS_READ_OK) {
		mm_warn(w, PS_UNKNOWN, init_task, "cannot read init_task.tasks: %s", ps_read_status_name(st));
		next = head;
	}
	while (next != head && !k.oom) {
		/* The budget counts threads (leaders included), which is what memory scales with. */
		if (k.budget == 0) {
			mm_warn(w, PS_UNKNOWN, PS_UNKNOWN, "more than %" PRIu64 " tasks: task list cut short",
				w->opt->max_tasks ? w->opt->max_tasks : DEFAULT_MAX_TASKS);
			break;
		}
		uint64_t task = next - toff;
		int fresh = mm_set_put(&k.leaders, task, 0, false);
		if (fresh < 0) {
			k.oom = true;
			break;
		}
		if (fresh == 0) {
			mm_warn(w, PS_UNKNOWN, task, "task list loops back to task %" PRIx64, task);
			break;
		}
		st = read_task(&k, task, k.leader_buf);
		if (st != PS_READ_OK) {
			mm_warn(w, PS_UNKNOWN, task, "cannot read task_struct at %" PRIx64 " (task list): %s",
				task, ps_read_status_name(st));
			break;
		}
		uint64_t nx = 0;
		if (!mm_get_ptr(w, k.leader_buf, k.tlen, PS_KI_TASK_TASKS, &nx) || !mm_kptr_ok(w, nx, 4)) {
			mm_warn(w, PS_UNKNOWN, task, "task list broken after task %" PRIx64, task);
			walk_group(&k, task);
			break;
		}
		walk_group(&k, task);
		next = nx;
	}
	for (size_t i = 0; i < w->opt->npids && !k.oom; i++) {
		if (k.pid_seen[i] == PID_UNSEEN)
			mm_warn(w, PS_UNKNOWN, PS_UNKNOWN, "pid %" PRIu64 ": no such user process in the dump",
				w->opt->pids[i]);
		else if (k.pid_seen[i] == PID_EXITED)
			mm_warn(w, PS_UNKNOWN, PS_UNKNOWN,
				"pid %" PRIu64 ": exiting when the dump was taken; its address space is already gone",
				w->opt->pids[i]);
	}
	free(k.leader_buf), free(k.thread_buf), free(k.pid_seen);
	mm_set_free(&k.leaders);
	mm_set_free(&k.threads);
	return k.oom ? -1 : 0;
}

void mm_tasklist_free(struct mm_tasklist *tl)
{
	for (size_t i = 0; i < tl->nmm; i++)
		free(tl->mm[i].buf);
	free(tl->mm);
	free(tl->t);
	mm_set_free(&tl->mm_index);
	memset(tl, 0, sizeof *tl);
}
