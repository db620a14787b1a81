/* trace_model.h - the trace records of a file (docs/record-format.md, "Trace records"),
 * checked and kept for the trace analyses (analyzer/an_trace_*.c, an_wss.c).
 *
 * model_load feeds every trace record to trace_add as it streams past and calls
 * trace_finish at the end of the file. Frames are looked up by id (defined before first
 * use), stacks are indexes into the frame array, the alloc tree is resolved (parents found,
 * cycles refused) by trace_finish. Memory: 24 bytes per ws sample, 8 per stack entry, and
 * about twice the frames' strings (each frame's display label is made once).
 */
#ifndef PAGESLEUTH_TRACE_MODEL_H
#define PAGESLEUTH_TRACE_MODEL_H

#include "records.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TRACE_NONE SIZE_MAX /* no frame / no parent */

/* u64 id -> index, open addressing (ids are the writer's, any decimal). The hash is keyed
 * with random bits per map, so a file cannot choose ids that all land in one probe chain. */
struct trace_idmap {
	uint64_t *keys;
	size_t *vals; /* index + 1; 0 = empty slot */
	size_t cap, n;
	uint64_t seed[2];
};

struct trace_frame {
	uint64_t id, ip, line; /* ip, line: PS_UNKNOWN if "-" */
	char *fn, *file, *obj; /* "" if unknown */
	char *label;           /* trace_frame_label, made once: tables borrow it */
	uint64_t rec_line;
};

struct ws_sample {
	uint64_t t, code, data;
};

/* The working-set samples of one thread (tid 0 = the whole process); n may be 0 when the
 * writer wrote only a final=1 summary for it. */
struct ws_series {
	uint64_t tid, tau;           /* tau of the first sample (PS_UNKNOWN if absent; a
				      * summary's while there is no sample) */
	bool tau_varies;             /* a later sample had another tau */
	struct ws_sample *s;
	size_t n, cap;
	/* The writer's own summary on its final=1 record; PS_UNKNOWN / NAN when absent. */
	bool have_final;
	uint64_t final_line;
	double avg_code, avg_data;
	uint64_t peak_code, peak_data, total_code, total_data, samples;
};

struct trace_stack { /* a slice of trace_model.stack_pool */
	size_t first, n;
};

struct trace_peak {
	uint64_t t, tid, pages;
	/* The prominence detector's (PS_UNKNOWN when absent: the paper's detector): pages above
	 * the higher base, rank per kind (1 = most prominent), near-identical peaks it stands
	 * for, the onset sample. */
	uint64_t prominence, rank, repeats, start;
	bool data; /* kind=data (else code) */
	struct trace_stack stack;
	uint64_t rec_line;
};

struct trace_hot {
	uint64_t page, accesses, rank; /* rank PS_UNKNOWN if absent */
	bool data;
	size_t frame; /* index into frames, TRACE_NONE */
};

struct trace_obj {
	uint64_t id, size, blocks, loads, stores, bload, bstore, line; /* PS_UNKNOWN if "-" */
	bool heap;
	char *name, *file;
	struct trace_stack stack;
};

struct trace_alloc {
	uint64_t id, parent_id; /* parent_id PS_UNKNOWN for a root */
	size_t parent;          /* index, TRACE_NONE for a root (after trace_finish) */
	char *group;
	uint64_t cur, peak, max, total, blocks; /* PS_UNKNOWN if "-" */
	size_t frame;           /* index into frames, TRACE_NONE for a group node */
	uint64_t rec_line;
};

struct trace_mark {
	uint64_t t, tid; /* tid PS_UNKNOWN if absent */
	char *text;
};

enum wss_method { WSS_REFERENCED, WSS_IDLE };
enum wss_mode { WSS_ONCE, WSS_CUMULATIVE, WSS_PROFILE };

struct trace_wss {
	uint64_t pid, seq, rss, pss, ref, t; /* rss, pss, t: PS_UNKNOWN if "-" or absent */
	enum wss_method method;
	enum wss_mode mode;
	double dur, est; /* dur NAN if absent */
};

struct trace_model {
	struct trace_frame *frames;
	size_t nframes, capframes;
	struct trace_idmap frame_ids, obj_ids, alloc_ids, ws_tids;
	size_t *stack_pool; /* frame indexes */
	size_t nstack_pool, capstack_pool;
	struct ws_series *ws; /* by first appearance of the tid */
	size_t nws, capws;
	struct trace_peak *peaks;
	size_t npeaks, cappeaks;
	struct trace_hot *hot;
	size_t nhot, caphot;
	struct trace_obj *objs;
	size_t nobjs, capobjs;
	struct trace_alloc *allocs;
	size_t nallocs, capallocs;
	struct trace_mark *marks;
	size_t nmarks, capmarks;
	struct trace_wss *wss;
	size_t nwss, capwss;
	uint64_t records;   /* trace records read */
	char *warnings;     /* "FILE:LINE: ..." lines: a writer summary that disagrees */
};

/* One trace record (line `line` of `file`). Returns 0, or -1 with *err malloc'd
 * ("FILE:LINE: reason"). */
int trace_add(struct trace_model *tm, const struct ps_kv *kv, const char *file, uint64_t line,
	      char **err);
/* After the last record: resolves alloc parents (unknown parent, cycles) and checks the
 * writers' summaries. Returns 0 or -1 with *err set. */
int trace_finish(struct trace_model *tm, const char *file, char **err);
/* Whether the whole-process working-set series (tid 0) ended with its writer's final=1
 * summary. The Valgrind tool and the Lackey converter write it last, so a series without it
 * was cut short (a dead writer, a broken pipe). True when there is no series. */
bool trace_ws_closed(const struct trace_model *tm);
void trace_free(struct trace_model *tm);

/* "fn file:line" for display: fn (or 0xIP, or "?"), then " file:line", " file" or
 * " (object)" as far as they are known. Returns a malloc'd string. */
char *trace_frame_label(const struct trace_frame *f);
/* The function of a frame for display: fn, else "0xIP", else "?" (in buf if needed). */
const char *trace_frame_fn(const struct trace_frame *f, char buf[24]);
/* The frames of a stack as "label <- label <- ...", innermost first: at most
 * TRACE_STACK_FRAMES frames and about TRACE_STACK_BYTES bytes (a frame that does not fit
 * ends the list, and a first frame longer than that is cut at a character boundary with
 * "..."), then " <- ... N more"; "" for an empty stack. malloc'd. The byte bound keeps a
 * table's memory proportional to the file: a 40-byte peak record may name 64 frames of
 * 64 KB each. */
#define TRACE_STACK_FRAMES 64
#define TRACE_STACK_BYTES 4096
char *trace_stack_label(const struct trace_model *tm, struct trace_stack st);
const struct trace_frame *trace_stack_frame(const struct trace_model *tm, struct trace_stack st,
					    size_t i);
/* The mean number of slots a lookup of a present id inspects (1 = no collision), for the
 * tests: a file must not be able to choose ids that make this grow with their number. */
double trace_idmap_mean_probe(const struct trace_idmap *m);
/* The series of tid, or NULL. */
const struct ws_series *trace_ws_series(const struct trace_model *tm, uint64_t tid);

#endif
