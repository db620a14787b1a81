/* atomic_file.c - see atomic_file.h. */
#include "atomic_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OUT_BUF_SIZE (1u << 20)

static void set_err(char **err, const char *path, const char *what, int e)
{
	if (err && asprintf(err, "%s: %s: %s", path, what, strerror(e)) < 0)
		*err = NULL;
}

int atomic_open(struct atomic_file *af, const char *path, char **err)
{
	memset(af, 0, sizeof *af);
	if (asprintf(&af->tmp_path, "%s.tmp.XXXXXX", path) < 0 || !(af->path = strdup(path))) {
		free(af->tmp_path);
		if (err)
			*err = strdup("out of memory");
		return -1;
	}
	int fd = mkstemp(af->tmp_path);
	if (fd < 0 || !(af->fp = fdopen(fd, "w"))) {
		set_err(err, path, "cannot create", errno);
		if (fd >= 0)
			close(fd), unlink(af->tmp_path);
		free(af->tmp_path), free(af->path);
		return -1;
	}
	fchmod(fd, 0644); /* mkstemp makes 0600; outputs are ordinary files */
	setvbuf(af->fp, NULL, _IOFBF, OUT_BUF_SIZE);
	return 0;
}

int atomic_close(struct atomic_file *af, bool commit, char **err)
{
	int rc = 0;
	if (commit && (fflush(af->fp) != 0 || ferror(af->fp) || fsync(fileno(af->fp)) != 0)) {
		set_err(err, af->path, "write failed", errno ? errno : EIO);
		commit = false;
		rc = -1;
	}
	if (fclose(af->fp) != 0 && commit) {
		set_err(err, af->path, "close failed", errno);
		commit = false;
		rc = -1;
	}
	if (!commit)
		unlink(af->tmp_path);
	else if (rename(af->tmp_path, af->path) != 0) {
		set_err(err, af->path, "rename failed", errno);
		unlink(af->tmp_path);
		rc = -1;
	}
	free(af->tmp_path), free(af->path);
	memset(af, 0, sizeof *af);
	return rc;
}
