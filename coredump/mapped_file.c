/* mapped_file.c - see mapped_file.h. */
#include "mapped_file.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
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

/* No system call on the way: sigsetjmp without the signal mask is a few register stores. */
bool ps_mapped_file_copy(const struct ps_mapped_file *m, void *dst, uint64_t off, size_t len)
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
	__atomic_signal_fence(__ATOMIC_SEQ_CST); /* the copy stays between the guard's ends */
	memcpy(dst, src, len);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	guard_jump = NULL;
	return true;
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

unsigned ps_helper_threads(unsigned max)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) != 0)
		return 0;
	int n = CPU_COUNT(&set) - 1;
	return n <= 0 ? 0 : (unsigned)n < max ? (unsigned)n : max;
}
