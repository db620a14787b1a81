/* crash_run.h - one pagesleuth command inside crash (run.c), as pagesleuth.c parsed it. */
#ifndef PAGESLEUTH_CRASH_RUN_H
#define PAGESLEUTH_CRASH_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "walker.h"

/* `pagesleuth summary`: the analyzer's tables (analyzer/an_pss.c) instead of the records. */
struct ps_crash_summary {
	bool processes, objects;   /* which tables: per process, per mapped object */
	bool kib;                  /* -K: exact KiB (as `pagesleuth report -a pss`), not KiB/MiB/GiB */
	char *const *comms;        /* processes chosen by name, besides the request's pids */
	size_t ncomms;
};

struct ps_crash_request {
	const uint64_t *pids;      /* thread groups; npids 0 = every user process */
	size_t npids;
	const char *output;        /* -o FILE (atomic); NULL: crash's output stream */
	const char *trace;         /* -t FILE: the walker's trace of kernel objects */
	const char *profile;       /* -P FILE: write the type information as a profile, no walk */
	const char *tags;          /* -T KEY=VALUE...: the header's tags= */
	enum ps_walk_detail detail;
	bool crash_kvaddr;         /* -k: kernel-virtual reads by crash's translation */
	bool stats;                /* -S */
	const struct ps_crash_summary *summary; /* non-NULL: print its tables, write no records */
};

/* 0 complete, 1 partial (messages said why), -1 failed (a message said why). */
int ps_crash_run(const struct ps_crash_request *rq, FILE *crash_out);

/* summary.c: the records in FD (a complete walk's, from offset 0) through the analyzer, its
 * tables printed to OUT in crash's style. *STATE holds the model and tables while they exist,
 * so a command crash abandons in the middle leaves them for ps_crash_summary_free. 0, or -1
 * with *err. */
struct ps_crash_summary_state;
int ps_crash_summary_print(int fd, const char *name, const struct ps_crash_request *rq,
			   FILE *out, struct ps_crash_summary_state **state, char **err);
void ps_crash_summary_free(struct ps_crash_summary_state *state);

/* Free what an abandoned command left (the library's destructor). */
void ps_crash_run_cleanup(void);

#endif
