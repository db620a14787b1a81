/* atomic_file.h - create an output file atomically: write a temporary file beside it and
 * rename it into place only when everything was written. Inputs are never touched.
 * A path that exists and is not a regular file (/dev/null, a FIFO, a terminal) is written
 * directly: renaming over it would replace the device with a file. */
#ifndef PAGESLEUTH_ATOMIC_FILE_H
#define PAGESLEUTH_ATOMIC_FILE_H

#include <stdbool.h>
#include <stdio.h>

struct atomic_file {
	FILE *fp;
	char *path, *tmp_path; /* tmp_path NULL: writing PATH itself (not a regular file) */
};

/* Returns 0, or -1 with *err set (malloc'd "PATH: cannot create: reason"). */
int atomic_open(struct atomic_file *af, const char *path, char **err);
/* Flush and rename into place (commit) or remove the temporary file (!commit).
 * Returns 0, or -1 with *err set if committing failed (the target is then untouched). */
int atomic_close(struct atomic_file *af, bool commit, char **err);

#endif
