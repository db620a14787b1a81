/* alloc_rules - the allocation-tree rules file (freya style) and the byte accounting of the
 * allocation tree: parse a rules file, drop the top frames of a stack that match `discard`
 * rules, put a stack into a named group, and keep current / peak / maximum / total bytes per
 * group or tree node, with "peak" meaning the bytes held at the instant the whole heap peaked.
 *
 * Freestanding on purpose: the Valgrind tool (valgrind/alloc_tree.c) links it where there is
 * no libc, and the normal build unit-tests it (tests/unit/test_alloc_rules.c). So: no libc
 * calls, no Valgrind headers; memory comes from the caller's allocator. Syntax and semantics
 * are documented in docs/alloc-rules.md.
 */
#ifndef PS_ALLOC_RULES_H
#define PS_ALLOC_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Memory for the parsed rules. alloc may return NULL (the parse then fails with "out of
 * memory"); the returned memory need not be zeroed. */
struct ar_allocator {
	void *(*alloc)(void *ctx, size_t bytes);
	void (*free)(void *ctx, void *p);
	void *ctx;
};

/* One frame of a stack as the rules see it; NULL (or "") = unknown, which no rule matches.
 * fn is the demangled function name, file the source file path, obj the ELF object path. */
struct ar_frame {
	const char *fn;
	const char *file;
	const char *obj;
};

/* Why a rules file was refused: line (1-based; 0 = not tied to a line) and a one-line reason
 * without the file name (the caller prints FILE:LINE: reason). */
struct ar_error {
	unsigned line;
	char reason[200];
};

struct ar_rules;

/* Parse a rules file's text (len bytes, need not be NUL-terminated). NULL on error, with
 * *err filled. An empty text (or only comments) gives rules with no discards and only the
 * default group. */
struct ar_rules *ar_parse(const char *text, size_t len, const struct ar_allocator *a,
			  struct ar_error *err);
void ar_rules_free(struct ar_rules *r);

/* How many of the top (innermost-first) frames[0..n-1] the discard rules drop: the leading
 * run of frames each matching some discard rule, but never all of them (at least the last
 * frame is kept when n > 0). */
unsigned ar_discard(const struct ar_rules *r, const struct ar_frame *frames, unsigned n);

/* The group of a stack (frames innermost first, after discarding): index into the group
 * table. Descends the group tree: the first top-level group in file order that matches, then
 * its first matching child, and so on; AR_GROUP_OTHER when no top-level group matches. */
#define AR_GROUP_OTHER 0u
/* Limits that keep a hostile rules file cheap: group lookup is a linear search and matching
 * recurses once per nesting level (on Valgrind's small tool stack). */
#define AR_MAX_GROUPS 10000u
#define AR_MAX_GROUP_DEPTH 32u
unsigned ar_classify(const struct ar_rules *r, const struct ar_frame *frames, unsigned n);

/* The group table: index 0 is the default group "other" (top level); 1.. are the file's
 * groups in file order. path is the full name ("net/tcp"); parent is -1 for a top-level
 * group. */
unsigned ar_group_count(const struct ar_rules *r);
const char *ar_group_path(const struct ar_rules *r, unsigned g);
int ar_group_parent(const struct ar_rules *r, unsigned g);
unsigned ar_discard_count(const struct ar_rules *r);

/* ---- byte accounting with peak snapshots ---------------------------------------------------
 * A counter per group or tree node. A block of B bytes charged to a set of counters (a tree
 * path and its groups) adds B to each. "peak" is the counter's value at the instant the whole
 * heap (ar_heap.cur) reached its highest value (the first instant, if reached again); "max"
 * is the counter's own highest value.
 *
 * Cost: a new heap maximum is not snapshotted at once (a growing heap would snapshot on
 * every allocation); the snapshot is taken lazily at the first release after it, when the
 * state is still the peak state, and copies only counters changed since the previous
 * snapshot (the others' values have not moved since then, so their peak is still right). */
struct ar_counter {
	uint64_t cur, max, peak, total, blocks;
	struct ar_counter *next_dirty; /* changed since the last snapshot (intrusive list) */
	bool dirty;
};

struct ar_heap {
	uint64_t cur, max;        /* whole heap: live bytes now, highest ever */
	uint64_t total, blocks;   /* bytes and blocks ever allocated */
	bool snapshot_pending;    /* cur == max was reached and not yet snapshotted */
	struct ar_counter *dirty; /* counters changed since the last snapshot */
};

/* Charge a new block of `bytes` to counters c[0..n-1] (each counter at most once). */
void ar_heap_alloc(struct ar_heap *h, struct ar_counter *const *c, unsigned n, uint64_t bytes);
/* Release a block charged earlier to the same counters. */
void ar_heap_free(struct ar_heap *h, struct ar_counter *const *c, unsigned n, uint64_t bytes);
/* Settle the peak at the end of the run (before reading counters' peak). */
void ar_heap_finish(struct ar_heap *h);

/* The name `prefix` rules look at: a demangled C++ name without a leading return type
 * ("void std::vector<int>::push_back(int const&)" -> "std::vector<int>::push_back(...)").
 * Exposed for the unit test. */
const char *ar_qualified_name(const char *fn);

/* Glob match used by `fn` rules: `*` any run of characters, `?` any one character, no other
 * special characters. Exposed for the unit test. */
bool ar_glob(const char *pattern, const char *s);

#endif
