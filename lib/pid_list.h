/* pid_list.h - the -p PID[,PID...] lists of `pagesleuth extract` and the crash command. */
#ifndef PAGESLEUTH_PID_LIST_H
#define PAGESLEUTH_PID_LIST_H

#include <stddef.h>
#include <stdint.h>

#define PS_MAX_PIDS 65536

/* Append the comma-separated pids in ARG ("412,413"; 1 to 2^32-1 each) to *PIDS (*N of them,
 * realloc'd). 0, or -1 with *WHY a static reason ("not a pid list", ...). */
int ps_pid_list_add(const char *arg, uint64_t **pids, size_t *n, const char **why);

#endif
