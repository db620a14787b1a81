/* compress_out.c - see compress_out.h: libzstd's streaming API and zlib's deflate (with the
 * gzip wrapper) behind a stdio cookie stream. */
#include "compress_out.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#define CHUNK (1u << 17)

struct zout {
	FILE *raw;
	bool gzip, failed;
	ZSTD_CCtx *zstd;
	z_stream z;
	unsigned char buf[CHUNK];
	char in[CHUNK]; /* the stream's own buffer: glibc ignores setvbuf's size without one */
};

static bool put(struct zout *o, size_t n)
{
	if (n && fwrite(o->buf, 1, n, o->raw) != n)
		o->failed = true;
	return !o->failed;
}

/* Compress LEN bytes at DATA (finishing the stream when END). */
static bool feed(struct zout *o, const void *data, size_t len, bool end)
{
	if (o->gzip) {
		o->z.next_in = (Bytef *)data;
		o->z.avail_in = (uInt)len;
		int rc;
		do {
			o->z.next_out = o->buf;
			o->z.avail_out = CHUNK;
			rc = deflate(&o->z, end ? Z_FINISH : Z_NO_FLUSH);
			if (rc == Z_STREAM_ERROR || !put(o, CHUNK - o->z.avail_out))
				return false;
		} while (o->z.avail_out == 0 || (end && rc != Z_STREAM_END));
		return true;
	}
	ZSTD_inBuffer in = { data, len, 0 };
	for (;;) {
		ZSTD_outBuffer out = { o->buf, CHUNK, 0 };
		size_t left = ZSTD_compressStream2(o->zstd, &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);
		if (ZSTD_isError(left) || !put(o, out.pos))
			return false;
		if (end ? left == 0 : in.pos == in.size)
			return true;
	}
}

static ssize_t zout_write(void *cookie, const char *data, size_t len)
{
	struct zout *o = cookie;
	if (o->failed || !feed(o, data, len, false)) {
		o->failed = true;
		errno = errno ? errno : EIO;
		return -1;
	}
	return (ssize_t)len;
}

static int zout_close(void *cookie)
{
	struct zout *o = cookie;
	bool ok = !o->failed && feed(o, NULL, 0, true);
	if (o->gzip)
		deflateEnd(&o->z);
	else
		ZSTD_freeCCtx(o->zstd);
	free(o);
	if (!ok && !errno)
		errno = EIO;
	return ok ? 0 : -1;
}

FILE *ps_out_compress(FILE *raw, const char *path, char **err)
{
	const char *how = ps_out_compression(path);
	struct zout *o = how ? calloc(1, sizeof *o) : NULL;
	bool ready = false;
	if (o) {
		o->raw = raw;
		o->gzip = !strcmp(how, "gzip");
		if (o->gzip) /* 15 + 16: a gzip header and trailer, as gzip(1) writes */
			ready = deflateInit2(&o->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
					     Z_DEFAULT_STRATEGY) == Z_OK;
		else
			ready = (o->zstd = ZSTD_createCCtx()) &&
				!ZSTD_isError(ZSTD_CCtx_setParameter(o->zstd, ZSTD_c_compressionLevel, 3)) &&
				!ZSTD_isError(ZSTD_CCtx_setParameter(o->zstd, ZSTD_c_checksumFlag, 1));
	}
	FILE *fp = NULL;
	if (ready) {
		cookie_io_functions_t io = { .write = zout_write, .close = zout_close };
		fp = fopencookie(o, "w", io);
	}
	if (!fp) {
		if (o && o->gzip && ready)
			deflateEnd(&o->z);
		else if (o)
			ZSTD_freeCCtx(o->zstd);
		free(o);
		if (err && asprintf(err, "%s: cannot set up %s compression", path, how ? how : "the") < 0)
			*err = NULL;
		return NULL;
	}
	setvbuf(fp, o->in, _IOFBF, CHUNK);
	return fp;
}
