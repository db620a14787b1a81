/* progress.h - one self-erasing progress line on stderr, only when stderr is a terminal
 * (perf, git and dd style): long commands say how far they are; logs and pipes stay clean.
 * Updates are throttled to 10 a second; ps_progress_done erases the line before anything
 * else is printed. */
#ifndef PAGESLEUTH_PROGRESS_H
#define PAGESLEUTH_PROGRESS_H

#include <stdbool.h>

struct ps_progress {
	bool on;      /* stderr is a terminal (and not silenced) */
	bool shown;   /* a line is on the screen */
	double last;  /* when it was last drawn */
	double delay; /* seconds between updates: 0.1, or PAGESLEUTH_PROGRESS_DELAY (as git's
		       * GIT_PROGRESS_DELAY; the tests set 0 to see every update of a small dump) */
	const char *prog;
};

/* ON false (-q): never draws. */
void ps_progress_init(struct ps_progress *p, const char *prog, bool on);
/* Draw "PROG: TEXT" over the previous line, unless one was drawn less than the delay ago
 * (FORCE: draw anyway). */
void ps_progress_say(struct ps_progress *p, bool force, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Erase the line, if one is shown. */
void ps_progress_done(struct ps_progress *p);

/* CLOCK_MONOTONIC in seconds: for rates and rate limits. */
double ps_monotonic_seconds(void);

#endif
