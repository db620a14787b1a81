/* record_tee.h - a stream in front of a record writer's output that notices what passes.
 *
 * Readers of dumps write records through it so that each warn record also reaches the user
 * as a one-line message (on stderr, for `pagesleuth extract` and the crash command alike),
 * while the walker keeps its one interface: write records to a writer. (Page runs are the
 * writer's to count: ps_writer_counts.)
 */
#ifndef PAGESLEUTH_RECORD_TEE_H
#define PAGESLEUTH_RECORD_TEE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct ps_record_tee {
	FILE *out;                                  /* where the records go; NULL: discard */
	void (*warn)(void *arg, const char *text);  /* "mm 3 at 0x7f00: cannot read ..." */
	void *arg;
	uint64_t warns;                             /* counted so far */
	char line[1024];                            /* private: the current line's start */
	size_t len;
	bool in_line;                               /* private: a write ended inside a line */
};

/* A write-only stream passing everything to T->out (set T->out, warn, arg first; the rest
 * zero). Closing it does not close T->out. NULL when out of memory. */
FILE *ps_record_tee_open(struct ps_record_tee *t);

#endif
