/* compress_out.h - outputs written compressed when their name says so: PATH ending in ".zst"
 * (zstd, level 3) or ".gz" (gzip, zlib's default level), as `report`, `diff` and `db import`
 * read them back (analyzer/decompress.c). Every output goes through lib/atomic_file.c, which
 * calls this; a name without either suffix is written as it is.
 *
 * The board binary (static/, linked against libc alone) has no compressor: it refuses such a
 * name with one line (static/compress_out_none.c) rather than write plain text under it.
 */
#ifndef PAGESLEUTH_COMPRESS_OUT_H
#define PAGESLEUTH_COMPRESS_OUT_H

#include <stdio.h>
#include <string.h>

/* "zstd", "gzip" or NULL: the compression PATH's name asks for. */
static inline const char *ps_out_compression(const char *path)
{
	size_t n = path ? strlen(path) : 0;
	if (n > 4 && !strcmp(path + n - 4, ".zst"))
		return "zstd";
	if (n > 3 && !strcmp(path + n - 3, ".gz"))
		return "gzip";
	return NULL;
}

/* A stream that compresses what is written to it into RAW, for PATH (ps_out_compression(path)
 * not NULL); fclose() on it ends the compressed stream and leaves RAW open. NULL with *err set
 * (malloc'd, "PATH: reason") when it cannot be made. */
FILE *ps_out_compress(FILE *raw, const char *path, char **err);

#endif
