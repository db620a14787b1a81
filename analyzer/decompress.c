/* decompress.c - record files compressed with zstd or gzip read as they are: a thread inflates
 * the file (libzstd's streaming API, zlib's gzread) into one end of a socket pair and the
 * record reader reads the other, so memory stays bounded whatever the file's size. A socket
 * pair rather than a pipe: a reader that stops early closes its end, and the thread's
 * send(MSG_NOSIGNAL) then fails instead of raising SIGPIPE in the whole process.
 *
 * Only the analyzer reads this way (report, diff, db import); lib/'s reader stays free of
 * compression libraries, as the static board binary links it.
 */
#include "decompress.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

enum kind { KIND_ZSTD, KIND_GZIP };

struct decompress {
	pthread_t thread;
	int in_fd, out_fd;
	enum kind kind;
	char *path;
	char *err;      /* set by the thread on a decompression error */
	bool reader_gone; /* the reader closed its end: not an error */
};

static bool send_all(struct decompress *d, const void *buf, size_t n)
{
	const char *p = buf;
	while (n) {
		ssize_t k = send(d->out_fd, p, n, MSG_NOSIGNAL);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			d->reader_gone = true; /* EPIPE: the reader stopped; nothing more to do */
			return false;
		}
		p += k, n -= (size_t)k;
	}
	return true;
}

static void run_zstd(struct decompress *d)
{
	ZSTD_DCtx *dctx = ZSTD_createDCtx();
	size_t in_cap = ZSTD_DStreamInSize(), out_cap = ZSTD_DStreamOutSize();
	char *in = malloc(in_cap), *out = malloc(out_cap);
	size_t last = 0; /* ZSTD_decompressStream's last hint: 0 = a frame ended */
	bool any = false;
	if (!dctx || !in || !out) {
		d->err = xasprintf("%s: out of memory", d->path);
		goto done;
	}
	for (;;) {
		ssize_t n = read(d->in_fd, in, in_cap);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			d->err = xasprintf("%s: read: %s", d->path, strerror(errno));
			break;
		}
		if (n == 0) {
			if (last != 0 || !any)
				d->err = xasprintf("%s: zstd: the compressed file is truncated", d->path);
			break;
		}
		any = true;
		ZSTD_inBuffer ib = { in, (size_t)n, 0 };
		while (ib.pos < ib.size) {
			ZSTD_outBuffer ob = { out, out_cap, 0 };
			last = ZSTD_decompressStream(dctx, &ob, &ib);
			if (ZSTD_isError(last)) {
				d->err = xasprintf("%s: zstd: %s", d->path, ZSTD_getErrorName(last));
				goto done;
			}
			if (ob.pos && !send_all(d, out, ob.pos))
				goto done;
		}
	}
done:
	ZSTD_freeDCtx(dctx);
	free(in), free(out);
}

static void run_gzip(struct decompress *d)
{
	int fd = dup(d->in_fd);
	gzFile gz = fd >= 0 ? gzdopen(fd, "rb") : NULL;
	if (!gz) {
		if (fd >= 0)
			close(fd);
		d->err = xasprintf("%s: gzip: cannot open", d->path);
		return;
	}
	char buf[1 << 16];
	for (;;) {
		int n = gzread(gz, buf, sizeof buf);
		if (n < 0) {
			int code;
			const char *msg = gzerror(gz, &code);
			d->err = xasprintf("%s: gzip: %s", d->path, msg ? msg : "read error");
			break;
		}
		if (n == 0) {
			/* zlib: Z_OK = the last stream ended; Z_BUF_ERROR = the input ended inside one */
			int code;
			const char *msg = gzerror(gz, &code);
			if (code == Z_BUF_ERROR)
				d->err = xasprintf("%s: gzip: the compressed file is truncated", d->path);
			else if (code != Z_OK)
				d->err = xasprintf("%s: gzip: %s", d->path, msg ? msg : "read error");
			break;
		}
		if (!send_all(d, buf, (size_t)n))
			break;
	}
	gzclose(gz);
}

static void *run(void *arg)
{
	struct decompress *d = arg;
	if (d->kind == KIND_ZSTD)
		run_zstd(d);
	else
		run_gzip(d);
	shutdown(d->out_fd, SHUT_WR); /* the reader sees the end */
	return NULL;
}

int decompress_open(const char *path, int *read_fd, struct decompress **out, char **err)
{
	*out = NULL;
	*read_fd = -1;
	if (strcmp(path, "-") == 0)
		return 0; /* standard input: read as it is (nothing can be peeked back) */
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* the record reader says why, in its words */
	unsigned char magic[4] = { 0 };
	ssize_t n = pread(fd, magic, sizeof magic, 0);
	enum kind kind;
	if (n == 4 && memcmp(magic, "\x28\xb5\x2f\xfd", 4) == 0)
		kind = KIND_ZSTD;
	else if (n >= 2 && magic[0] == 0x1f && magic[1] == 0x8b)
		kind = KIND_GZIP;
	else {
		close(fd);
		return 0;
	}
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		*err = xasprintf("%s: socketpair: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	struct decompress *d = xcalloc(1, sizeof *d);
	d->in_fd = fd, d->out_fd = sv[1], d->kind = kind, d->path = xstrdup(path);
	int rc = pthread_create(&d->thread, NULL, run, d);
	if (rc != 0) {
		*err = xasprintf("%s: cannot start the decompression thread: %s", path, strerror(rc));
		close(sv[0]), close(sv[1]), close(fd);
		free(d->path), free(d);
		return -1;
	}
	*read_fd = sv[0];
	*out = d;
	return 0;
}

int decompress_close(struct decompress *d, int read_fd, char **err)
{
	if (!d)
		return 0;
	close(read_fd); /* a thread still sending sees the reader gone */
	pthread_join(d->thread, NULL);
	close(d->out_fd), close(d->in_fd);
	int rc = 0;
	if (d->err) {
		*err = d->err;
		rc = -1;
	}
	free(d->path), free(d);
	return rc;
}
