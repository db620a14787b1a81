/* render_output.c - choosing a renderer by name and writing a rendered report to a file
 * atomically or to standard output: shared by every command that renders (report, diff, db). */
#include "table.h"
#include "atomic_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The renderer for -f NAME, or NULL (after a message naming cmd) if there is none. */
renderer render_format(const char *cmd, const char *name)
{
	if (strcmp(name, "text") == 0)
		return render_text;
	if (strcmp(name, "csv") == 0)
		return render_csv;
	if (strcmp(name, "json") == 0)
		return render_json;
	fprintf(stderr, "pagesleuth %s: unknown format '%s' (text, csv, json)\n", cmd, name);
	return NULL;
}

/* Commit an atomic file just rendered into (RENDER_RC: the renderer's result): 0, or -1
 * after one line naming PATH and why (a full disk's ENOSPC, whether it showed while
 * rendering or at the final flush); nothing is left behind then. */
int render_commit(struct atomic_file *af, const char *path, int render_rc)
{
	int saved = errno;
	bool io = ferror(af->fp) != 0;
	bool ok = render_rc == 0 && !io;
	char *err = NULL;
	if (atomic_close(af, ok, &err) == 0 && ok)
		return 0;
	if (err)
		fprintf(stderr, "pagesleuth: %s\n", err);
	else if (io)
		fprintf(stderr, "pagesleuth: %s: write failed: %s\n", path, strerror(saved ? saved : EIO));
	else
		fprintf(stderr, "pagesleuth: %s: cannot render: %s\n", path, strerror(saved ? saved : ENOMEM));
	free(err);
	return -1;
}

/* Render to PATH atomically, or to stdout when PATH is NULL. */
int render_to_path(const struct report *r, renderer render, const char *path)
{
	if (!path) {
		if (render(r, stdout) < 0 || fflush(stdout) != 0) {
			fprintf(stderr, "pagesleuth: write error on standard output: %s\n", strerror(errno));
			return -1;
		}
		return 0;
	}
	struct atomic_file af;
	char *err = NULL;
	if (atomic_open(&af, path, &err) < 0) {
		fprintf(stderr, "pagesleuth: %s\n", err);
		free(err);
		return -1;
	}
	errno = 0;
	return render_commit(&af, path, render(r, af.fp));
}

