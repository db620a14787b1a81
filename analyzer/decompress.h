/* decompress.h - zstd- and gzip-compressed record files read transparently (decompress.c). */
#ifndef PAGESLEUTH_DECOMPRESS_H
#define PAGESLEUTH_DECOMPRESS_H

#include <stdbool.h>

struct decompress;

/* If PATH starts like a zstd or gzip stream, start inflating it: *READ_FD is then where the
 * records can be read and *OUT the decompressor; else *OUT is NULL (read PATH itself). -1
 * with *ERR only when decompression could not be started. */
int decompress_open(const char *path, int *read_fd, struct decompress **out, char **err);
/* Close READ_FD and stop the decompressor: 0, or -1 with *ERR (malloc'd "PATH: zstd: ...")
 * if the compressed data was corrupt or truncated (whatever the reader made of it). */
int decompress_close(struct decompress *d, int read_fd, char **err);

#endif
