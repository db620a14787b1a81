/* dump_open.c - what every command that reads a dump does first (extract, log): open the
 * dump, say its repairs as warnings, open the walker on it. One line on stderr for a failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "walker.h"

int ps_dump_open_walker(const char *prog, const char *path, struct ps_dump **d, struct ps_walker **w)
{
	char *err = NULL, *warnings = NULL;
	*w = NULL;
	*d = ps_dump_open(path, &warnings, &err);
	for (const char *p = warnings; p && *p;) {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);
		fprintf(stderr, "%s: warning: %.*s\n", prog, len, p);
		p = nl ? nl + 1 : p + len;
	}
	free(warnings);
	if (!*d) {
		fprintf(stderr, "%s: %s\n", prog, err ? err : path);
		free(err);
		return -1;
	}
	*w = ps_walker_open(ps_dump_target(*d), &err);
	if (!*w) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, err ? err : "cannot read the kernel");
		free(err);
		return -1;
	}
	return 0;
}
