/* atomic_file.c - see atomic_file.h. */
#include "atomic_file.h"
#include "compress_out.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define OUT_BUF_SIZE (1u << 20)

/* Temporary files being written: a fatal signal (SIGTERM, SIGINT, SIGHUP) removes them before
 * the process dies the signal's death, so an interrupted run leaves no PATH.tmp.* behind. The
 * handler is installed only where the signal still has its default action: a command with
 * its own handler (wss -C, snap --every stop cleanly on SIGINT and commit) keeps it. */
#define MAX_LIVE_TMP 16
static char *volatile live_tmp[MAX_LIVE_TMP];
static const int cleanup_signals[] = { SIGTERM, SIGINT, SIGHUP };

static void remove_tmp_and_die(int sig)
{
	for (unsigned i = 0; i < MAX_LIVE_TMP; i++) {
		char *p = live_tmp[i];
		if (p)
			unlink(p); /* async-signal-safe */
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void track_tmp(char *path, bool add)
{
	static bool installed;
	if (add && !installed) {
		installed = true;
		for (unsigned i = 0; i < sizeof cleanup_signals / sizeof cleanup_signals[0]; i++) {
			struct sigaction old;
			if (sigaction(cleanup_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL &&
			    !(old.sa_flags & SA_SIGINFO)) {
				struct sigaction sa = { .sa_handler = remove_tmp_and_die };
				sigemptyset(&sa.sa_mask);
				sigaction(cleanup_signals[i], &sa, NULL);
			}
		}
	}
	for (unsigned i = 0; i < MAX_LIVE_TMP; i++) {
		if (add && !live_tmp[i]) {
			live_tmp[i] = path;
			return;
		}
		if (!add && live_tmp[i] == path) {
			live_tmp[i] = NULL;
			return;
		}
	}
}

static void set_err(char **err, const char *path, const char *what, int e)
{
	if (err && asprintf(err, "%s: %s: %s", path, what, strerror(e)) < 0)
		*err = NULL;
}

/* Create a new file "PATH.tmp.<unique>" with O_EXCL and mode 0666, so the umask applies as
 * it does to any file the user creates (mkstemp forces 0600; a later fchmod would ignore
 * the umask and make a private user's outputs world-readable). */
static int create_tmp(const char *path, char **tmp_path)
{
	static unsigned counter;
	for (int tries = 0; tries < 100; tries++) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		unsigned n = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
		if (asprintf(tmp_path, "%s.tmp.%ld.%u.%lx", path, (long)getpid(), n,
			     (unsigned long)ts.tv_nsec) < 0) {
			*tmp_path = NULL;
			errno = ENOMEM;
			return -1;
		}
		int fd = open(*tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST)
			return fd;
		free(*tmp_path);
		*tmp_path = NULL;
	}
	errno = EEXIST;
	return -1;
}

static struct noted_input {
	dev_t dev;
	ino_t ino;
	char *path;
} inputs[64];
static unsigned ninputs;

void ps_input_note(const char *path)
{
	struct stat st;
	if (!path || strcmp(path, "-") == 0 || stat(path, &st) != 0 || ninputs == sizeof inputs / sizeof inputs[0])
		return;
	for (unsigned i = 0; i < ninputs; i++)
		if (inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino)
			return;
	char *copy = strdup(path);
	if (copy)
		inputs[ninputs++] = (struct noted_input){ st.st_dev, st.st_ino, copy };
}

int ps_output_check(const char *path, char **err)
{
	struct stat st;
	if (!path || strcmp(path, "-") == 0 || stat(path, &st) != 0)
		return 0;
	for (unsigned i = 0; i < ninputs; i++) {
		if (inputs[i].dev != st.st_dev || inputs[i].ino != st.st_ino)
			continue;
		if (err && asprintf(err, strcmp(path, inputs[i].path) == 0
					 ? "%s: is an input of this command: refusing to write over it"
					 : "%s: is the input %s (the same file): refusing to write over it",
				    path, inputs[i].path) < 0)
			*err = NULL;
		return -1;
	}
	return 0;
}

int ps_outputs_check(const char *prog, const char *const *outputs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!outputs[i] || strcmp(outputs[i], "-") == 0)
			continue;
		char *err = NULL;
		if (ps_output_check(outputs[i], &err) != 0) {
			fprintf(stderr, "%s: %s\n", prog, err ? err : outputs[i]);
			free(err);
			return -1;
		}
		for (size_t j = 0; j < i; j++)
			if (outputs[j] && strcmp(outputs[j], outputs[i]) == 0) {
				fprintf(stderr, "%s: %s: given for two outputs\n", prog, outputs[i]);
				return -1;
			}
	}
	return 0;
}

int ps_refuse_records_to_terminal(const char *prog, const char *output)
{
	if (output || !isatty(STDOUT_FILENO))
		return 0;
	fprintf(stderr, "%s: not writing records to a terminal (they are input for `pagesleuth "
			"report`): give -o FILE, or -o - to write them here anyway\n", prog);
	return -1;
}

int atomic_open(struct atomic_file *af, const char *path, char **err)
{
	memset(af, 0, sizeof *af);
	if (ps_output_check(path, err) != 0)
		return -1;
	if (!(af->path = strdup(path))) {
		if (err)
			*err = strdup("out of memory");
		return -1;
	}
	struct stat st;
	bool special = stat(path, &st) == 0 && !S_ISREG(st.st_mode);
	/* The cleanup signals wait while the file is created and registered: one arriving in
	 * between would otherwise leave the new PATH.tmp.* behind (delivered after, it finds the
	 * file registered and removes it). */
	sigset_t cleanup_set, old_mask;
	sigemptyset(&cleanup_set);
	for (unsigned i = 0; i < sizeof cleanup_signals / sizeof cleanup_signals[0]; i++)
		sigaddset(&cleanup_set, cleanup_signals[i]);
	pthread_sigmask(SIG_BLOCK, &cleanup_set, &old_mask);
	int fd = special ? open(path, O_WRONLY | O_CLOEXEC) : create_tmp(path, &af->tmp_path);
	if (fd >= 0 && af->tmp_path)
		track_tmp(af->tmp_path, true);
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	if (fd < 0 || !(af->fp = fdopen(fd, "w"))) {
		if (fd >= 0 && af->tmp_path)
			track_tmp(af->tmp_path, false);
		set_err(err, path, special ? "cannot open" : "cannot create", errno);
		if (fd >= 0 && !special)
			unlink(af->tmp_path);
		if (fd >= 0)
			close(fd);
		free(af->tmp_path), free(af->path);
		return -1;
	}
	/* The buffer is given: without one, glibc keeps its 4 KiB (a write(2) per 4 KiB of
	 * records, 3,370 for the bench kdump's 13.8 MB). */
	if ((af->buf = malloc(OUT_BUF_SIZE)))
		setvbuf(af->fp, af->buf, _IOFBF, OUT_BUF_SIZE);
	af->raw = af->fp;
	if (ps_out_compression(path)) {
		FILE *z = ps_out_compress(af->raw, path, err);
		if (!z) {
			atomic_close(af, false, NULL);
			return -1;
		}
		af->fp = z;
	}
	return 0;
}

int atomic_close(struct atomic_file *af, bool commit, char **err)
{
	int rc = 0;
	/* A compressing stream first: its close writes the end of the compressed data. */
	if (af->raw && af->fp != af->raw) {
		bool bad = ferror(af->fp);
		if ((fclose(af->fp) != 0 || bad) && commit) {
			set_err(err, af->path, "write failed", errno ? errno : EIO);
			commit = false;
			rc = -1;
		}
		af->fp = af->raw;
	}
	/* No fsync: rename alone makes the file appear whole or not at all to every reader,
	 * which is the promise; surviving power loss is not worth seconds on every snapshot
	 * of an output that can be made again. */
	if (commit && (fflush(af->fp) != 0 || ferror(af->fp))) {
		set_err(err, af->path, "write failed", errno ? errno : EIO);
		commit = false;
		rc = -1;
	}
	if (fclose(af->fp) != 0 && commit) {
		set_err(err, af->path, "close failed", errno);
		commit = false;
		rc = -1;
	}
	if (!af->tmp_path)
		; /* written in place: nothing to rename or remove */
	else if (!commit)
		unlink(af->tmp_path);
	else if (rename(af->tmp_path, af->path) != 0) {
		set_err(err, af->path, "rename failed", errno);
		unlink(af->tmp_path);
		rc = -1;
	}
	if (af->tmp_path)
		track_tmp(af->tmp_path, false); /* renamed or removed: no longer the handler's */
	free(af->tmp_path), free(af->path), free(af->buf);
	memset(af, 0, sizeof *af);
	return rc;
}
