/* crash_run.h - one pagesleuth command inside crash (run.c), as pagesleuth.c parsed it. */
#ifndef PAGESLEUTH_CRASH_RUN_H
#define PAGESLEUTH_CRASH_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "walker.h"

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
};

/* 0 complete, 1 partial (messages said why), -1 failed (a message said why). */
int ps_crash_run(const struct ps_crash_request *rq, FILE *crash_out);

/* Free what an abandoned command left (the library's destructor). */
void ps_crash_run_cleanup(void);

#endif
