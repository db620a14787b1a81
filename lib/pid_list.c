/* pid_list.c - see pid_list.h. */
#include "pid_list.h"

#include <errno.h>
#include <stdlib.h>

int ps_pid_list_add(const char *arg, uint64_t **pids, size_t *n, const char **why)
{
	const char *p = arg;
	do {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(p, &end, 10);
		if (end == p || errno || v == 0 || v > 0xffffffffull || (*end && *end != ',')) {
			*why = "not a pid list";
			return -1;
		}
		if (*n >= PS_MAX_PIDS) {
			*why = "more than 65536 pids";
			return -1;
		}
		uint64_t *grown = realloc(*pids, (*n + 1) * sizeof *grown);
		if (!grown) {
			*why = "out of memory";
			return -1;
		}
		*pids = grown;
		(*pids)[(*n)++] = v;
		p = *end ? end + 1 : end;
	} while (*p);
	return 0;
}

bool ps_parse_count(const char *text, uint64_t max, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long n = strtoull(text, &end, 10);
	if (!*text || *end || errno || n == 0 || n > max || text[0] == '-')
		return false;
	*out = n;
	return true;
}
