/* counters.h - the kernel's own counters of the running system as counter records
 * (docs/record-format.md, 1.2): meminfo, vmstat, zone, buddyinfo, as a dump reader writes. */
#ifndef PAGESLEUTH_LIVE_COUNTERS_H
#define PAGESLEUTH_LIVE_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "records.h"

/* Called per counter: set, node (PS_UNKNOWN: not per node), zone (NULL: not per zone). */
typedef void (*live_counter_fn)(void *arg, const char *set, uint64_t node, const char *zone,
				const char *name, uint64_t value);

/* Parsers of the /proc files' text; each returns the number of counters passed to FN and
 * skips lines it does not understand. */
int live_parse_meminfo(const char *text, live_counter_fn fn, void *arg);
int live_parse_vmstat(const char *text, live_counter_fn fn, void *arg);
int live_parse_buddyinfo(const char *text, live_counter_fn fn, void *arg);
int live_parse_zoneinfo(const char *text, live_counter_fn fn, void *arg);
/* /proc/vmallocinfo (root: others see no file): the pages of each vmalloc'd area (its
 * "pages=N"; ioremap and vm_map_ram areas hold none) summed per caller function, as set
 * "vmallocinfo" counters named after the function. Returns the callers written. */
int live_parse_vmallocinfo(const char *text, live_counter_fn fn, void *arg);

/* /proc/slabinfo (version 2.1): one callback per cache. */
int live_parse_slabinfo(const char *text, void (*fn)(void *arg, const struct ps_slab *s), void *arg);

/* Read PROC_ROOT's (NULL: /proc) meminfo, vmstat, zoneinfo and buddyinfo and write their
 * counters into the current snapshot, and slabinfo's caches as slab records (root only:
 * the file is 0400). 0; 1 when meminfo or vmstat could not be read (WHY
 * says which; the others may be absent); -1 when writing failed. */
int live_write_counters(struct ps_writer *w, const char *proc_root, char *why, size_t whylen);

#endif
