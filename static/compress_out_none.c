/* compress_out_none.c - the board binary's lib/compress_out.h: no compressor is linked into
 * pagesleuth-live (libc alone), so an output named .zst or .gz is refused with one line
 * instead of plain text written under that name. */
#include "compress_out.h"

#include <stdlib.h>
#include <string.h>

FILE *ps_out_compress(FILE *raw, const char *path, char **err)
{
	(void)raw;
	if (err && asprintf(err, "%s: this build (pagesleuth-live) writes no %s: name the output "
			    "without the suffix and compress it afterwards, or pipe it (-o - | %s)",
			    path, ps_out_compression(path), !strcmp(ps_out_compression(path), "zstd")
			    ? "zstd" : "gzip") < 0)
		*err = NULL;
	return NULL;
}
