/* frames.h - every page frame of the running system from /proc/kpageflags and
 * /proc/kpagecount, as f records (docs/record-format.md, 1.2). */
#ifndef PAGESLEUTH_LIVE_FRAMES_H
#define PAGESLEUTH_LIVE_FRAMES_H

#include <stddef.h>
#include <stdint.h>

#include "records.h"

/* The class of a frame from its kpageflags and kpagecount (a tail's own; the caller gives
 * tails their head's class). */
enum ps_frame_class live_frame_class(uint64_t flags, uint64_t count);

/* Write the f records of every PFN PROC_ROOT's (NULL: /proc) kpageflags covers. 0; 1 when
 * the files cannot be read (WHY says why: not root, no such file); -1 when writing failed. */
int live_write_frames(struct ps_writer *w, const char *proc_root, char *why, size_t whylen);

#endif
