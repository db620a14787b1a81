/* klog.h - the kernel log (what dmesg shows) read from a kernel dump through the walker.
 *
 * Two layouts, chosen by what VMCOREINFO lists:
 *   - Linux 5.10+: the lockless printk ringbuffer (SYMBOL(prb)): a descriptor ring (state,
 *     data-block positions), a parallel ring of struct printk_info (sequence, time, level,
 *     text length) and a text data ring of blocks that each start with their descriptor's id;
 *   - older kernels: log_buf (SYMBOL(log_buf)), a byte ring of struct printk_log headers each
 *     followed by its text, from log_first_idx to log_next_idx.
 * Every offset and size comes from VMCOREINFO's OFFSET()/SIZE() lines; one that is missing
 * is an error naming it. Every address, length, id and position read from the dump is
 * checked before it is used, and the walk is bounded by the ring sizes, so a corrupt log
 * gives skipped records (counted in struct ps_klog_stats), never a crash or a loop.
 */
#ifndef PAGESLEUTH_KLOG_H
#define PAGESLEUTH_KLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ps_core;
struct ps_walker;

/* One record, valid during the emit call only. TEXT is TEXT_LEN bytes as the kernel stored
 * them (not NUL-terminated; may hold any byte, and '\n' between the lines of a multi-line
 * message). */
struct ps_klog_entry {
	uint64_t seq;       /* the kernel's sequence number */
	uint64_t ts_nsec;   /* local_clock() at the message, nanoseconds since boot */
	unsigned level;     /* 0 (emerg) .. 7 (debug) */
	unsigned facility;  /* syslog facility: 0 kern, 1 user, ... */
	uint32_t caller_id; /* CONFIG_PRINTK_CALLER's thread/CPU id (0x80000000 | cpu), 0 unknown */
	const char *text;
	size_t text_len;
};

struct ps_klog_stats {
	const char *layout;  /* "printk_ringbuffer" or "log_buf" (static strings) */
	uint64_t records;    /* records emitted */
	/* Not records, never a loss: descriptors the ringbuffer had recycled or never used
	 * (state reusable), e.g. the placeholder a fresh ring's tail points at. */
	uint64_t free;
	/* Records lost: each makes the result partial. */
	uint64_t reserved;   /* a writer had reserved the descriptor and not committed it */
	uint64_t bad_desc;   /* unreadable descriptor or info, or its id is not the one expected */
	uint64_t bad_text;   /* text block unreadable or invalid (positions, alignment, the
			      * block's own id, text_len larger than the block) */
	uint64_t no_text;    /* committed without a data block: the kernel had no room for it */
	bool range_clamped;  /* head_id - tail_id spans more than the ring: only the last
			      * count_bits worth of ids were read */
	bool walk_stopped;   /* log_buf: a header could not be followed (length 0 twice, past
			      * the buffer or past log_next_idx, a loop): the rest is lost */
	uint64_t skipped;    /* reserved + bad_desc + bad_text + no_text (+1 for a stopped walk) */
	char first_problem[200]; /* the first lost record's reason, "" if none */
};

/* Called once per readable record, in the kernel's order (oldest first). Return 0 to go on;
 * anything else stops the read (ps_klog_read then returns -1 with *err "stopped"). */
typedef int (*ps_klog_emit_fn)(void *arg, const struct ps_klog_entry *e);

/* Read the kernel log of the dump behind C. Returns 0 when every record was read, 1 when
 * some were skipped (ST says how many and why), -1 on an error (*err, malloc'd: no
 * VMCOREINFO line for a needed offset, the ring's header unreadable or implausible).
 * ST may be NULL. */
int ps_klog_read(struct ps_core *c, ps_klog_emit_fn emit, void *arg, struct ps_klog_stats *st,
		 char **err);

/* The same on an open walker (ps_walker_open; no type information needed). */
int ps_walker_klog(struct ps_walker *w, ps_klog_emit_fn emit, void *arg, struct ps_klog_stats *st,
		   char **err);

/* Level names as dmesg --level takes them: "emerg" .. "debug"; NULL beyond 7. */
const char *ps_klog_level_name(unsigned level);

#endif
