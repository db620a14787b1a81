/* mapped_file.c - see mapped_file.h. */
#include "mapped_file.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static __thread sigjmp_buf *volatile guard_jump; /* the access in progress on this thread */
static __thread volatile uintptr_t guard_lo, guard_hi; /* its source bytes */
static struct sigaction previous_sigbus;
static pthread_mutex_t guard_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned guard_users;

static void on_sigbus(int sig, siginfo_t *si, void *uctx)
{
	sigjmp_buf *jump = guard_jump;
	uintptr_t at = si ? (uintptr_t)si->si_addr : 0;
	if (jump && at >= guard_lo && at < guard_hi) {
		guard_jump = NULL;
		siglongjmp(*jump, 1); /* SA_NODEFER: SIGBUS is not left blocked */
	}
	/* Not a guarded access: what would have happened without this handler. */
	if ((previous_sigbus.sa_flags & SA_SIGINFO) && previous_sigbus.sa_sigaction) {
		previous_sigbus.sa_sigaction(sig, si, uctx);
		return;
	}
	if (previous_sigbus.sa_handler != SIG_DFL && previous_sigbus.sa_handler != SIG_IGN) {
		previous_sigbus.sa_handler(sig);
		return;
	}
	signal(SIGBUS, SIG_DFL);
	raise(SIGBUS);
}

/* false: no handler, so no mapping. */
static bool guard_acquire(void)
{
	bool ok = true;
	pthread_mutex_lock(&guard_lock);
	if (guard_users == 0) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_sigbus;
		sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART;
		sigemptyset(&sa.sa_mask);
		ok = sigaction(SIGBUS, &sa, &previous_sigbus) == 0;
	}
	if (ok)
		guard_users++;
	pthread_mutex_unlock(&guard_lock);
	return ok;
}

static void guard_release(void)
{
	pthread_mutex_lock(&guard_lock);
	if (guard_users && --guard_users == 0)
		sigaction(SIGBUS, &previous_sigbus, NULL);
	pthread_mutex_unlock(&guard_lock);
}

bool ps_mapped_file_map(struct ps_mapped_file *m, int fd, uint64_t size)
{
	m->map = NULL;
	m->size = size;
	if (size == 0 || size > SIZE_MAX || !guard_acquire())
		return false;
	void *p = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		guard_release();
		return false;
	}
	m->map = p;
	return true;
}

void ps_mapped_file_unmap(struct ps_mapped_file *m)
{
	if (!m->map)
		return;
	munmap((void *)m->map, (size_t)m->size);
	m->map = NULL;
	guard_release();
}

/* One access to the mapping at OFF .. OFF + LEN, inside the guard: FN(ARG, bytes, LEN), or
 * when FN is NULL a copy to DST (the hot case: no call through a pointer). false when the
 * range is outside the mapping or the source faulted. No system call on the way: sigsetjmp
 * without the signal mask is a few register stores. */
static bool guarded(const struct ps_mapped_file *m, uint64_t off, size_t len, void *dst,
		    void (*fn)(void *arg, const unsigned char *p, size_t len), void *arg)
{
	if (!ps_mapped_file_has(m, off, len))
		return false;
	const unsigned char *src = m->map + off;
	sigjmp_buf jump;
	if (sigsetjmp(jump, 0))
		return false;
	guard_lo = (uintptr_t)src;
	guard_hi = (uintptr_t)src + len;
	guard_jump = &jump;
	__atomic_signal_fence(__ATOMIC_SEQ_CST); /* the access stays between the guard's ends */
	if (fn)
		fn(arg, src, len);
	else
		memcpy(dst, src, len);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	guard_jump = NULL;
	return true;
}

bool ps_mapped_file_copy(const struct ps_mapped_file *m, void *dst, uint64_t off, size_t len)
{
	return guarded(m, off, len, dst, NULL, NULL);
}

bool ps_mapped_file_scan(const struct ps_mapped_file *m, uint64_t off, size_t len,
			 void (*fn)(void *arg, const unsigned char *p, size_t len), void *arg)
{
	return guarded(m, off, len, NULL, fn, arg);
}

int ps_pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;
	while (done < len) {
		ssize_t r = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			errno = 0;
		if (r <= 0)
			return r < 0 ? -1 : 0;
		done += (size_t)r;
	}
	return 1;
}

/* The CPU time a cgroup's quota gives per second, in CPUs (rounded down, at least 1), or 0
 * when FILE says no quota or cannot be read. V2 ("cpu.max": "QUOTA PERIOD" or "max PERIOD")
 * when PERIOD_FILE is NULL, else v1 (cpu.cfs_quota_us, -1: none; cpu.cfs_period_us). */
static unsigned quota_cpus(const char *file, const char *period_file)
{
	char buf[64] = "";
	long long quota = -1, period = 0;
	FILE *f = fopen(file, "re");
	if (!f)
		return 0;
	bool got = fgets(buf, sizeof buf, f) != NULL;
	fclose(f);
	if (!got || (!period_file && strncmp(buf, "max", 3) == 0))
		return 0;
	if (!period_file) {
		if (sscanf(buf, "%lld %lld", &quota, &period) != 2)
			return 0;
	} else {
		quota = strtoll(buf, NULL, 10);
		if (!(f = fopen(period_file, "re")))
			return 0;
		got = fgets(buf, sizeof buf, f) != NULL;
		fclose(f);
		period = got ? strtoll(buf, NULL, 10) : 0;
	}
	if (quota <= 0 || period <= 0)
		return 0;
	return quota / period >= 1 ? (unsigned)(quota / period < 1024 ? quota / period : 1024) : 1;
}

/* The fewest CPUs the cpu quotas of this process's cgroup and its ancestors give, or 0 for
 * none (no quota, or no cgroup file system to say). A container allowed one CPU's time on
 * a machine of many would otherwise run helpers that only take time from the main thread. */
static unsigned cgroup_cpus(void)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return 0;
	char line[4096], v2[4096] = "", v1[4096] = "";
	bool have_v2 = false, have_v1 = false;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		char *ctl = strchr(line, ':'), *path = ctl ? strchr(ctl + 1, ':') : NULL;
		if (!path)
			continue;
		*path++ = 0;
		ctl++;
		if (strcmp(line, "0") == 0 && *ctl == 0)
			snprintf(v2, sizeof v2, "%s", path), have_v2 = true;
		for (char *c = ctl, *save = NULL, *tok; (tok = strtok_r(c, ",", &save)); c = NULL)
			if (strcmp(tok, "cpu") == 0)
				snprintf(v1, sizeof v1, "%s", path), have_v1 = true;
	}
	fclose(f);
	unsigned least = 0;
	for (int v = 0; v < 2; v++) {
		if (!(v == 0 ? have_v2 : have_v1))
			continue;
		char dir[4096];
		snprintf(dir, sizeof dir, "%s", v == 0 ? v2 : v1);
		for (;;) { /* the cgroup, then each ancestor up to the root */
			char file[4200], period[4200];
			unsigned n;
			if (v == 0) {
				snprintf(file, sizeof file, "/sys/fs/cgroup%s/cpu.max", dir);
				n = quota_cpus(file, NULL);
			} else {
				snprintf(file, sizeof file, "/sys/fs/cgroup/cpu%s/cpu.cfs_quota_us", dir);
				snprintf(period, sizeof period, "/sys/fs/cgroup/cpu%s/cpu.cfs_period_us", dir);
				n = quota_cpus(file, period);
			}
			if (n && (!least || n < least))
				least = n;
			char *slash = strrchr(dir, '/');
			if (!slash || slash == dir) {
				if (dir[0] == 0 || strcmp(dir, "/") == 0)
					break;
				strcpy(dir, "/"); /* the root last */
				continue;
			}
			*slash = 0;
		}
	}
	return least;
}

unsigned ps_helper_threads(unsigned max)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) != 0)
		return 0;
	int cpus = CPU_COUNT(&set);
	unsigned quota = cgroup_cpus();
	if (quota && (int)quota < cpus)
		cpus = (int)quota;
	int n = cpus - 1;
	return n <= 0 ? 0 : (unsigned)n < max ? (unsigned)n : max;
}

void ps_run_shares(void *(*fn)(void *), void *shares, size_t size, unsigned n)
{
	pthread_t thread[n ? n : 1];
	bool started[n ? n : 1];
	for (unsigned i = 1; i < n; i++)
		started[i] = pthread_create(&thread[i], NULL, fn, (char *)shares + i * size) == 0;
	for (unsigned i = 0; i < n; i++) {
		if (i > 0 && started[i])
			pthread_join(thread[i], NULL);
		else
			fn((char *)shares + i * size);
	}
}
