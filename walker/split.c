/* split.c - the address spaces walked by more than one process at once.
 *
 * Once the task list is read, the mms are independent: each one's VMAs, page tables and
 * struct pages are read and written on their own. mm_write_mms_split forks workers, and
 * the mms not yet taken are one range shared by all: the parent takes them one by one
 * from the front and writes them to its own stream as it goes; each worker takes them from
 * the back and writes them to a memory file of its own, noting where each one's records
 * lie. When the two ends meet, the parent appends the rest, in order, from the workers'
 * files: the records are those of one process walking them all, byte for byte (except
 * where warn records are cut at their cap). What an mm costs is not known before its walk
 * (its pages, how many of its tables and struct pages the cache holds already, how many
 * a kdump must decompress), so the range is shared as it goes rather than cut ahead.
 *
 * A worker reads through its own copy of the walker and the back-end (copy-on-write: the
 * type information, kallsyms and what the caches hold) and leaves its counts in memory
 * shared with the parent. Processes, not threads: the walker's caches and the back-ends'
 * readers (libkdumpfile, the kdump page cache) stay without locks. A worker that fails
 * fails the run (one line naming it), never shortens the records.
 */
#include "mm_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGES_IMPLAUSIBLE (UINT64_C(1) << 40)

/* What a worker hands back. */
struct split_report {
	bool done; /* set last: the worker got to its end */
	int rc;
	char write_error[256]; /* its writer failed: why */
	unsigned warns, warns_written, warn_cap;
	int64_t first; /* taken for it by the parent before the fork */
	struct ps_walk_result res; /* the worker's own: what its mms added */
	uint64_t pt_bytes, page_struct_bytes, other_bytes, reads;
	size_t target_len;
	unsigned char target[PS_TARGET_REPORT_MAX];
};

/* Where one mm's records lie, when a worker walked it. */
struct split_piece {
	unsigned worker; /* 1.. */
	uint64_t off, len;
	struct ps_writer_counts counts;
};

/* In memory shared by the parent and its workers. */
struct split_shared {
	/* The mms not taken yet: [front, back), front in the low half. */
	_Alignas(64) _Atomic uint64_t ends;
	struct split_report rep[PS_WALK_MAX_WORKERS];
	struct split_piece piece[]; /* per mm */
};

/* The next mm to walk from the front (the parent) or the back (a worker), or -1. */
static int64_t take(struct split_shared *sh, bool front)
{
	uint64_t e = atomic_load(&sh->ends);
	for (;;) {
		uint64_t f = e & UINT32_MAX, b = e >> 32;
		if (f >= b)
			return -1;
		uint64_t next = front ? (f + 1) | (b << 32) : f | ((b - 1) << 32);
		if (atomic_compare_exchange_weak(&sh->ends, &e, next))
			return front ? (int64_t)f : (int64_t)(b - 1);
	}
}

static void worker_main(struct ps_walker *w, struct mm_tasklist *tl, struct split_shared *sh,
			unsigned me, int fd, int ready, pid_t parent)
{
	struct split_report *rep = &sh->rep[me];
	/* The parent's handlers clean up the parent's files; a worker just ends, and ends
	 * with the parent. */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	FILE *fp = fdopen(fd, "w");
	struct ps_writer *part = fp ? ps_writer_open_part(fp, w->out) : NULL;
	if (!part)
		_exit(1);
	struct ps_walk_options opt = *w->opt;
	opt.progress = NULL; /* the parent's terminal line */
	uint64_t pt0 = w->c.stats.pt_bytes, ps0 = w->c.stats.page_struct_bytes;
	uint64_t other0 = w->c.stats.other_bytes, reads0 = w->c.stats.reads;
	w->opt = &opt;
	w->res = &rep->res; /* zero, as the shared mapping came */
	w->out = part;
	w->warns = w->warns_written = 0;
	w->warn_cap = rep->warn_cap;

	int rc = 0;
	for (int64_t i = rep->first; rc == 0 && !w->write_failed && i >= 0; i = take(sh, false)) {
		struct ps_writer_counts before, after;
		ps_writer_counts(part, &before);
		if (ps_writer_flush_lines(part) < 0)
			w->write_failed = true;
		off_t start = ftello(fp);
		rc = mm_write_mms(w, tl, (size_t)i, (size_t)i + 1);
		if (ps_write_flush_run(part) < 0 || ps_writer_flush_lines(part) < 0)
			w->write_failed = true;
		off_t end = ftello(fp);
		ps_writer_counts(part, &after);
		struct split_piece *p = &sh->piece[i];
		p->off = (uint64_t)start;
		p->len = (uint64_t)(end - start);
		p->counts = (struct ps_writer_counts){ after.tasks - before.tasks, after.mms - before.mms,
						       after.vmas - before.vmas, after.runs - before.runs,
						       after.pages - before.pages };
		__atomic_store_n(&p->worker, me, __ATOMIC_RELEASE);
	}
	if (fflush(fp) != 0)
		w->write_failed = true;
	if (w->write_failed)
		snprintf(rep->write_error, sizeof rep->write_error, "%s",
			 ps_writer_error(part)[0] ? ps_writer_error(part) : strerror(errno));
	rep->rc = rc;
	rep->warns = w->warns;
	rep->warns_written = w->warns_written;
	rep->pt_bytes = w->c.stats.pt_bytes - pt0;
	rep->page_struct_bytes = w->c.stats.page_struct_bytes - ps0;
	rep->other_bytes = w->c.stats.other_bytes - other0;
	rep->reads = w->c.stats.reads - reads0;
	rep->target_len = w->c.t.ops->worker_report(w->c.t.ctx, rep->target, sizeof rep->target);
	__atomic_store_n(&rep->done, true, __ATOMIC_RELEASE);
	/* The parent may take the records in now, while the kernel tears this process down. */
	while (write(ready, "", 1) < 0 && errno == EINTR)
		;
	_exit(0); /* not exit: the parent's stdio buffers and atexit handlers are the parent's */
}

/* A worker's counts taken in. 0, or -1 with w->fatal saying why. */
static int take_counts(struct ps_walker *w, const struct split_report *rep, unsigned k)
{
	if (rep->write_error[0]) {
		snprintf(w->fatal, sizeof w->fatal, "worker process %u could not write its records: %s",
			 k, rep->write_error);
		return -1;
	}
	const struct ps_walk_result *r = &rep->res;
	w->res->partial |= r->partial;
	w->res->mms += r->mms, w->res->vmas += r->vmas, w->res->pages += r->pages;
	w->res->swap_entries += r->swap_entries, w->res->unknown_pages += r->unknown_pages;
	w->res->excluded_pages += r->excluded_pages;
	w->c.stats.pt_bytes += rep->pt_bytes, w->c.stats.page_struct_bytes += rep->page_struct_bytes;
	w->c.stats.other_bytes += rep->other_bytes, w->c.stats.reads += rep->reads;
	w->warns += rep->warns;
	w->warns_written += rep->warns_written;
	w->c.t.ops->worker_merge(w->c.t.ctx, rep->target, rep->target_len);
	return rep->rc;
}

static void describe_end(char *buf, size_t cap, int status, const struct split_report *rep)
{
	if (WIFSIGNALED(status))
		snprintf(buf, cap, "was killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
		snprintf(buf, cap, "exited with status %d", WEXITSTATUS(status));
	else if (!rep->done)
		snprintf(buf, cap, "ended before its end");
	else
		buf[0] = 0;
}

/* A worker's memory file, mapped by the parent at its first piece: the pieces go from there
 * to the stream without being copied out first. */
struct part_file {
	unsigned char *map;
	size_t len;
	bool tried;
};

/* Where a piece the mapping cannot give is read back, a buffer's worth at a time. */
static int append_by_pread(struct ps_walker *w, int fd, const struct split_piece *p)
{
	static unsigned char buf[1 << 16];
	uint64_t off = p->off, len = p->len;
	while (len) {
		ssize_t got = pread(fd, buf, len < sizeof buf ? (size_t)len : sizeof buf, (off_t)off);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			if (got == 0)
				errno = 0; /* shorter than the piece said */
			return -1;
		}
		off += (uint64_t)got, len -= (uint64_t)got;
		if (ps_writer_append(w->out, buf, (size_t)got, len ? NULL : &p->counts) < 0) {
			w->write_failed = true;
			return 0;
		}
	}
	if (!p->len && ps_writer_append(w->out, buf, 0, &p->counts) < 0)
		w->write_failed = true;
	return 0;
}

/* Piece P of worker K's file FD appended to the parent's stream. 0, or -1 with w->fatal
 * saying why; a failed write sets w->write_failed. */
static int append_piece(struct ps_walker *w, struct part_file *f, int fd, const struct split_piece *p,
			unsigned k)
{
	if (!f->tried) {
		f->tried = true;
		struct stat st;
		if (fstat(fd, &st) == 0 && st.st_size > 0 && (uint64_t)st.st_size <= SIZE_MAX) {
			void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
			if (m != MAP_FAILED) {
				f->map = m;
				f->len = (size_t)st.st_size;
			}
		}
	}
	if (f->map && p->off <= f->len && p->len <= f->len - p->off) {
		if (ps_writer_append(w->out, f->map + p->off, (size_t)p->len, &p->counts) < 0)
			w->write_failed = true;
		return 0;
	}
	if (append_by_pread(w, fd, p) == 0)
		return 0;
	snprintf(w->fatal, sizeof w->fatal, "cannot read back the records of worker process %u: %s", k,
		 errno ? strerror(errno) : "its file is shorter than it said");
	return -1;
}

/* Resident pages by the mms' own counters (unreadable or absurd ones count 0). */
static uint64_t resident_pages(struct ps_walker *w, const struct mm_tasklist *tl)
{
	uint64_t pages = 0;
	for (size_t i = 0; i < tl->nmm; i++) {
		struct ps_task t;
		mm_rss_counters(w, &tl->mm[i], &t);
		const uint64_t c[3] = { t.rss_file, t.rss_anon, t.rss_shmem };
		for (int j = 0; j < 3; j++)
			if (c[j] != PS_UNKNOWN && c[j] < PAGES_IMPLAUSIBLE) /* percpu counters may be < 0 */
				pages += c[j];
	}
	return pages;
}

int mm_write_mms_split(struct ps_walker *w, struct mm_tasklist *tl)
{
	const struct ps_walk_options *opt = w->opt;
	const struct ps_target_ops *ops = w->c.t.ops;
	size_t nmm = tl->nmm;
	unsigned n = opt->workers < PS_WALK_MAX_WORKERS ? opt->workers : PS_WALK_MAX_WORKERS;
	if (n > nmm)
		n = (unsigned)nmm;
	if (opt->worker_min_pages && n > 1) {
		uint64_t enough = resident_pages(w, tl) / opt->worker_min_pages;
		if (enough < n)
			n = (unsigned)enough;
	}
	if (n <= 1 || nmm > UINT32_MAX || opt->trace || !ops->fork_prepare || !ops->worker_report ||
	    !ops->worker_merge)
		return mm_write_mms(w, tl, 0, nmm);

	size_t size = sizeof(struct split_shared) + nmm * sizeof(struct split_piece);
	struct split_shared *sh = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
				       -1, 0);
	if (sh == MAP_FAILED)
		return mm_write_mms(w, tl, 0, nmm);
	if (ops->fork_prepare(w->c.t.ctx) != 0) {
		munmap(sh, size);
		return mm_write_mms(w, tl, 0, nmm);
	}
	atomic_store(&sh->ends, (uint64_t)nmm << 32);

	/* Each process a share of the warn records' cap, so that all together keep to it. */
	unsigned share = w->warns_written < w->warn_cap ? (w->warn_cap - w->warns_written) / n : 0;
	unsigned cap = w->warn_cap;
	pid_t pid[PS_WALK_MAX_WORKERS] = { 0 };
	int fd[PS_WALK_MAX_WORKERS], ready[PS_WALK_MAX_WORKERS];
	pid_t self = getpid();
	/* Each worker's first mm is taken for it before it starts, from the back: every worker
	 * walks at least one (the last for the first worker), whatever the parent's pace. A
	 * worker that cannot be started leaves it unwalked: then the parent walks them all. */
	for (unsigned k = 1; k < n; k++) {
		sh->rep[k].warn_cap = share;
		sh->rep[k].first = take(sh, false);
		/* Its "records written" pipe: a byte when they are, the end of the pipe when it
		 * ended before (only the worker holds the writing end). */
		int pipe_ends[2] = { -1, -1 };
		fd[k] = memfd_create("pagesleuth-walk", MFD_CLOEXEC);
		pid[k] = fd[k] < 0 || pipe2(pipe_ends, O_CLOEXEC) < 0 ? -1 : fork();
		if (pid[k] == 0) {
			close(pipe_ends[0]);
			worker_main(w, tl, sh, k, fd[k], pipe_ends[1], self);
		}
		if (pipe_ends[1] >= 0)
			close(pipe_ends[1]);
		ready[k] = pipe_ends[0];
		if (pid[k] < 0) {
			if (fd[k] >= 0)
				close(fd[k]);
			if (ready[k] >= 0)
				close(ready[k]);
			for (unsigned j = 1; j < k; j++) {
				kill(pid[j], SIGKILL);
				while (waitpid(pid[j], NULL, 0) < 0 && errno == EINTR)
					;
				close(fd[j]);
				close(ready[j]);
			}
			munmap(sh, size);
			return mm_write_mms(w, tl, 0, nmm);
		}
	}
	w->warn_cap = w->warns_written + share;

	/* The front, written straight to the stream as in one process. */
	int rc = 0;
	int64_t i;
	size_t front = 0;
	while (rc == 0 && !w->write_failed && (i = take(sh, true)) >= 0) {
		rc = mm_write_mms(w, tl, (size_t)i, (size_t)i + 1);
		front = (size_t)i + 1;
		uint64_t e = atomic_load(&sh->ends);
		mm_progress(w, "processes", (e & UINT32_MAX) + nmm - (e >> 32), nmm);
	}
	if (rc != 0 || w->write_failed)
		for (unsigned k = 1; k < n; k++)
			kill(pid[k], SIGKILL); /* their records are not wanted any more */
	/* Each worker's word that its records are written: they are taken in then, while the
	 * kernel still tears the worker down, and its exit is waited for after. */
	bool all_written = true;
	for (unsigned k = 1; k < n; k++) {
		char byte;
		ssize_t got;
		while ((got = read(ready[k], &byte, 1)) < 0 && errno == EINTR)
			;
		close(ready[k]);
		const struct split_report *r = &sh->rep[k];
		if (got != 1 || !__atomic_load_n(&r->done, __ATOMIC_ACQUIRE) || r->rc != 0 || r->write_error[0])
			all_written = false; /* its exit or its report says why, below */
	}
	/* The back, from the workers' files. */
	struct part_file part[PS_WALK_MAX_WORKERS] = { 0 };
	for (size_t m = front; m < nmm && all_written && rc == 0 && !w->write_failed; m++) {
		const struct split_piece *p = &sh->piece[m];
		if (p->worker < 1 || p->worker >= n) {
			snprintf(w->fatal, sizeof w->fatal, "no worker process wrote address space %zu of %zu",
				 m + 1, nmm);
			rc = -1;
			break;
		}
		rc = append_piece(w, &part[p->worker], fd[p->worker], p, p->worker);
	}
	for (unsigned k = 1; k < n; k++) {
		int status;
		while (waitpid(pid[k], &status, 0) < 0 && errno == EINTR)
			;
		if (rc == 0 && !w->write_failed) {
			char how[96];
			describe_end(how, sizeof how, status, &sh->rep[k]);
			if (how[0]) {
				snprintf(w->fatal, sizeof w->fatal, "worker process %u of %u %s", k, n, how);
				rc = -1;
			} else {
				rc = take_counts(w, &sh->rep[k], k);
			}
		}
	}
	if (!all_written && rc == 0 && !w->write_failed) { /* it ended well but never said so */
		snprintf(w->fatal, sizeof w->fatal, "a worker process did not say its records were written");
		rc = -1;
	}
	for (unsigned k = 1; k < n; k++) {
		if (part[k].map)
			munmap(part[k].map, part[k].len);
		close(fd[k]);
	}
	w->warn_cap = cap;
	munmap(sh, size);
	return rc;
}
