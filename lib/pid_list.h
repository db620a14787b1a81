/* pid_list.h - numbers given on the command line: the -p PID[,PID...] lists of `pagesleuth
 * extract` and the crash command, and the counts of --jobs and --count. */
#ifndef PAGESLEUTH_PID_LIST_H
#define PAGESLEUTH_PID_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PS_MAX_PIDS 65536

/* Append the comma-separated pids in ARG ("412,413"; 1 to 2^32-1 each) to *PIDS (*N of them,
 * realloc'd). 0, or -1 with *WHY a static reason ("not a pid list", ...). */
int ps_pid_list_add(const char *arg, uint64_t **pids, size_t *n, const char **why);

/* A positive decimal count, at most MAX, in TEXT (no sign, nothing after it): true and
 * *OUT, or false. */
bool ps_parse_count(const char *text, uint64_t max, uint64_t *out);

#endif
