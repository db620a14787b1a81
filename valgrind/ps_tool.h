/* ps_tool.h - the interface between the modules of the pagesleuth Valgrind tool
 * (--tool=pagesleuth). The tool links against Valgrind's libcoregrind, not libc: only
 * Valgrind's pub_tool_*.h API and the freestanding trace/ws_core.h are available.
 *
 * Modules:
 *   ps_main.c   tool entry: pre_clo_init, options, instrumentation, client requests, fini
 *   ws.c        working set over time (code/data, per thread and whole process) and peaks
 *   hot.c       hot pages (top N by accesses, first toucher's frame)
 *   frames.c    frame interning: `frame` records, stack id lists
 *   out.c       the output file: header, key=value records, percent-encoding
 *   heap.c, objects.c, alloc_tree.c (+ trace/alloc_rules.[ch])  heap blocks, per-object
 *               counters, rule-grouped allocation trees: they implement the ps_heap_* hooks.
 * Every .c file of valgrind/ and every .c file of trace/ but trace/cmd_*.c is linked into the
 * tool, so trace/ helpers used by the tool must be freestanding (no libc headers but
 * <stddef.h>/<stdint.h>/<stdbool.h>).
 *
 * Records are written as docs/record-format.md and docs/valgrind.md say; all output goes
 * through the ps_rec_* helpers so strings are percent-encoded one way. */
#ifndef PAGESLEUTH_PS_TOOL_H
#define PAGESLEUTH_PS_TOOL_H

#include "pub_tool_basics.h"
#include "pub_tool_execontext.h"
#include "pub_tool_libcprint.h"

/* ---- time base ------------------------------------------------------------------------ */

/* Guest instructions executed so far (all threads), updated inline by the instrumentation
 * before every superblock exit. Inside a helper called mid-superblock it lags the current
 * instruction by at most the superblock's length. */
extern ULong ps_instr_count;

/* Tool thread number of the thread running client code: 1 = main thread, then 2, 3, ... in
 * order of creation (never reused, unlike Valgrind's ThreadId). 0 before the first thread. */
extern UInt ps_cur_thread;

/* ---- output (out.c) ------------------------------------------------------------------- */

/* The record file is open from post_clo_init until the end of the run, or until an exec
 * (the records are completed there: the exec'd image is another program). Records written
 * while it is not open are dropped. */
extern const HChar *ps_out_path; /* its final name (written as PATH.tmp, renamed at the end) */

/* One key=value record: ps_rec_begin("obj"); ps_rec_u("id", 3); ...; ps_rec_end(); */
void ps_rec_begin(const HChar *tag);
void ps_rec_u(const HChar *key, ULong value);          /* decimal */
void ps_rec_x(const HChar *key, ULong value);          /* lowercase hex, no 0x */
void ps_rec_s(const HChar *key, const HChar *value);   /* percent-encoded; NULL or "" -> "-" */
void ps_rec_raw(const HChar *key, const HChar *value); /* as is: "-", id lists "3,4,5" */
void ps_rec_frac(const HChar *key, ULong num, ULong den); /* num/den with 3 decimals */
void ps_rec_end(void);

/* ---- frames (frames.c) ---------------------------------------------------------------- */
/* These write `frame` records: call them BEFORE ps_rec_begin of the record that uses the
 * ids, never between ps_rec_begin and ps_rec_end. */

/* Intern the code address ip; the first time, write its `frame` record (id, ip, fn, file,
 * line, obj from debug information; `-` where unknown). Returns the frame id (>= 1).
 * For return addresses pass ip-1 so the line is the call's (ps_stack_ids does that). */
UInt ps_frame_id(Addr ip);

/* "id,id,id" (innermost first) of an ExeContext's stack, each frame interned; "-" if empty.
 * Truncated at a frame boundary if it does not fit in len bytes. */
void ps_stack_ids(ExeContext *ec, HChar *buf, SizeT len);
/* The same for a raw stack trace (ips[0] = current ip, the rest return addresses). */
void ps_stack_ids_ips(const Addr *ips, UInt n, HChar *buf, SizeT len);

/* ---- heap hooks (heap.c, objects.c, alloc_tree.c) ---------------------------------------- */

void ps_heap_pre_clo_init(void);   /* called at the end of the tool's pre_clo_init */
Bool ps_heap_process_cmd_line_option(const HChar *arg); /* True if the option was its */
void ps_heap_print_usage(void);    /* prints its options' --help lines */
void ps_heap_post_clo_init(void);  /* after the record file is open, its header written */
/* Set by its option (e.g. --objects=yes); read by the instrumentation at translation time
 * (so it must not change after post_clo_init). */
extern Bool ps_obj_enabled;
/* A client data access (load, store; a read-modify-write is a load then a store) that
 * reached the data helper while ps_obj_enabled. Called from a helper: keep it fast. The
 * others are counted by the generated code (below). */
void ps_obj_access(Addr a, SizeT size, Bool is_store);
/* The objects fast path: an access whose first byte lies in [ps_obj_lo, ps_obj_lo +
 * ps_obj_len) belongs to the object the helper saw last (or to none: a range holding no
 * object), and the generated code adds it to ps_obj_pend[0] (loads) or [1] (stores) as
 * accesses << PS_OBJ_PEND_SHIFT | bytes; the helper flushes them into that object before it
 * changes the range. The fields cannot overflow: an epoch (ws.c) lasts at most
 * PS_MAX_EPOCH instructions, so at most 8 * PS_MAX_EPOCH accesses (8 for a gather) fall
 * between two helper calls. */
extern UWord ps_obj_lo, ps_obj_len; /* guest words, as addresses */
extern ULong ps_obj_pend[2];
#define PS_OBJ_PEND_SHIFT 40
#define PS_MAX_EPOCH (1ull << 20)
/* The end of the run (ps_ws_finish): stop counting accesses; blocks are still tracked (the
 * core may run __libc_freeres next, whose frees count). */
void ps_heap_end_of_run(void);
void ps_heap_fini(void);           /* writes obj and alloc records; the file still open */

/* ---- tool core internals (ps_main, ws, hot, frames, out; the heap modules need not use them) */

Bool ps_out_open(const HChar *path);  /* False if the file cannot be created */
const HChar *ps_out_temp_path(void);  /* what is being written: PATH.tmp.PID, or PATH itself */
Bool ps_out_is_open(void);
/* Write what is buffered, sync, rename PATH.tmp to PATH. False (after one line saying why,
 * PATH.tmp removed) if any write, the sync or the rename failed. */
Bool ps_out_close(void);
/* A forked child: drop the inherited file (the parent's) without writing to it. */
void ps_out_abandon(void);
void ps_out_header(const HChar *source, UInt page_size, const HChar *progname, Int pid,
		   ULong every, ULong tau, const HChar *cmdline, ULong now_secs);

/* ws.c: working sets and peaks. Options are parsed by ps_main.c into these. */
extern ULong ps_clo_every, ps_clo_tau;
extern UInt ps_clo_page_shift;
extern Bool ps_clo_peaks;
extern Bool ps_clo_peak_paper;        /* --peak-detector=paper: the online detector */
extern UInt ps_clo_peak_min, ps_clo_peak_max; /* prominence: percent of the highest, lines */
extern UInt ps_clo_peak_window;
extern double ps_clo_peak_gain, ps_clo_peak_adapt;
extern UInt ps_clo_hot;               /* hot pages to report, 0 = off */
void ps_ws_init(void);                /* after options */
void ps_ws_thread_start(ThreadId vg_tid); /* a thread was created / the main thread */
void ps_ws_thread_exit(ThreadId vg_tid);
void ps_ws_switch_thread(ThreadId vg_tid); /* this thread runs client code from now on */
void ps_ws_catch_up(ULong now);       /* take the samples due at or before now-1 */
/* The end of the run (exit_group, the last thread's exit, an exec, or fini): the samples due,
 * the final partial sample, the peaks, live threads' summaries. Nothing is counted after it
 * (the core runs __libc_freeres in the client before fini when the heap modules asked for
 * it: libc's clean-up, not the program's work). Idempotent. */
void ps_ws_finish(void);
ULong ps_ws_end_time(void);           /* instructions of the run (frozen at its end) */
UInt ps_ws_live_threads(void);
/* The tid=0 summary: the file's last record (docs/record-format.md), written by ps_main.c
 * after every other record, hot pages and heap records included. */
void ps_ws_write_process_summary(void);
struct ws_set;
/* The process-level working-set sets (data != 0: data, else code), for hot.c. */
const struct ws_set *ps_ws_proc_set(int data);
/* The instrumentation's helpers (called from generated code). arg packs: bits 0-15 the
 * access size, bit 16 store, bits 17-31 instructions left in the superblock after this
 * one, bits 32-63 instructions since the counter was last updated (this one included).
 * On 32-bit targets (arm, ppc32) those last come as an argument of their own, delta. */
#if VG_WORDSIZE == 8
VG_REGPARM(2) void ps_h_data(Addr a, UWord arg);
VG_REGPARM(3) void ps_h_data_hot(Addr a, UWord arg, Addr ip);
/* A run of instructions on one code page: arg bits 0-15 their number, 17-63 as above. */
VG_REGPARM(2) void ps_h_code(Addr ip, UWord arg);
#else
VG_REGPARM(3) void ps_h_data(Addr a, UWord arg, UWord delta);
void ps_h_data_hot(Addr a, UWord arg, Addr ip, UWord delta);
VG_REGPARM(3) void ps_h_code(Addr ip, UWord arg, UWord delta);
#endif
#define PS_ARG_LEFT_SHIFT 17
#define PS_ARG_LEFT_MAX 0x7fff
/* The generated code's fast path: an access to ps_last_data_page (a one-page access), or a
 * run on ps_last_code_page, changes nothing in the current epoch (ws.c) but its hot count
 * (ps_data_hot_pend += 1, added to *ps_last_data_count by the helper before that pointer
 * changes; *ps_last_code_count += run), so it skips the helper. A superblock that may end
 * after ps_epoch_end calls the code helper at its start. */
extern UWord ps_last_data_page, ps_last_code_page; /* page numbers: guest words */
extern ULong ps_epoch_end, ps_data_hot_pend;
extern ULong *ps_last_data_count, *ps_last_code_count;
void ps_hot_write(void);              /* hot.c: the hot records, at fini */

#endif
