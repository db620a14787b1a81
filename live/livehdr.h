/* livehdr.h - what every live source (snap, wss) writes the same way: the header record of
 * this machine, the ISO time, clocks. libc only, so the static cross builds carry it. */
#ifndef PAGESLEUTH_LIVE_LIVEHDR_H
#define PAGESLEUTH_LIVE_LIVEHDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "records.h"

/* Now as "YYYY-MM-DDTHH:MM:SSZ" (UTC). */
void live_iso_time(char out[32]);

/* The first line of a small file (a /proc or /sys value), newline cut; "" if unreadable. */
void live_read_first_line(const char *path, char *out, size_t len);

/* Option values shared by snap and wss: a decimal number of seconds in [MIN, MAX] (strtod
 * syntax, finite). False when the text is not one. (Counts: ps_parse_count, pid_list.h.) */
bool live_parse_seconds(const char *text, double min, double max, double *out);

/* CLOCK_BOOTTIME in ns (PS_UNKNOWN if unavailable), CLOCK_MONOTONIC in ns. */
uint64_t live_boottime_ns(void);
uint64_t live_monotonic_ns(void);

/* The header of a live record file: source=live, this machine's arch, release, byte order,
 * host name and boot id; PIDS as given ("all", "1,2"); excluded=none, or pfn-hidden when
 * !PFN_VISIBLE; TAGS (NULL: none) as tags=. TIME_OUT receives the time written. Returns ps_write_header's result. */
int live_write_header(struct ps_writer *w, uint32_t page_size, const char *pids, bool pfn_visible,
		      const char *tags, char time_out[32]);

#endif
