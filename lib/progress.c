/* progress.c - see progress.h. */
#include "progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

double ps_monotonic_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void ps_progress_init(struct ps_progress *p, const char *prog, bool on)
{
	p->on = on && isatty(STDERR_FILENO);
	p->shown = false;
	p->last = 0;
	p->prog = prog;
	const char *d = getenv("PAGESLEUTH_PROGRESS_DELAY");
	char *end;
	double v = d ? strtod(d, &end) : 0.1;
	p->delay = d && end != d && v >= 0 && v <= 60 ? v : 0.1;
}

void ps_progress_say(struct ps_progress *p, bool force, const char *fmt, ...)
{
	if (!p->on)
		return;
	double t = ps_monotonic_seconds();
	if (!force && p->shown && t - p->last < p->delay)
		return;
	char text[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\r%s: %s\033[K", p->prog, text); /* ESC[K: erase the old line's rest */
	fflush(stderr);
	p->shown = true;
	p->last = t;
}

void ps_progress_done(struct ps_progress *p)
{
	if (p->on && p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	p->shown = false;
}
