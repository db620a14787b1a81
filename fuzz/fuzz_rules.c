/* fuzz_rules.c - libFuzzer harness for the allocation-tree rules parser (trace/alloc_rules.c:
 * the rules files `pagesleuth valgrind --alloc-rules` and the Valgrind tool read).
 *
 * Each input is a rules file's text. A refusal must name a line inside the text and give a
 * reason a terminal can print as it is (no control bytes: item 10 of issue 20 was a rules
 * file echoing an escape sequence). Accepted rules are run over a fixed set of stacks (known
 * and unknown frames, deep and empty ones): the discard count leaves at least one frame, the
 * group is inside the table, and every group's parent comes before it. Anything else is the
 * parser's to survive: no crash, leak, hang or UBSan report.
 *
 * Build: make B=DIR DIR/fuzz/fuzz_rules. Run: tests/cases/fuzz_inputs.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_rules.h"

static void *fz_alloc(void *ctx, size_t n)
{
	(void)ctx;
	return malloc(n);
}

static void fz_free(void *ctx, void *p)
{
	(void)ctx;
	free(p);
}

static const struct ar_allocator alloc = { fz_alloc, fz_free, NULL };

#define F(fn, file, obj) { fn, file, obj }
static const struct ar_frame stack_a[] = {
	F("malloc", "malloc.c", "/usr/lib/x86_64-linux-gnu/libc.so.6"),
	F("xmalloc", "util.c", "/usr/bin/app"),
	F("tcp_recv", "net/tcp.c", "/usr/bin/app"),
	F("main", "main.c", "/usr/bin/app"),
};
static const struct ar_frame stack_b[] = {
	F("operator new(unsigned long)", NULL, "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"),
	F(NULL, NULL, NULL),
	F("", "", ""),
	F("std::vector<int>::push_back", "vector.h", "/usr/bin/app"),
	F("cache::fill", "cache.cc", "/usr/lib/libcache.so"),
};
static const struct ar_frame stack_c[] = { F("calloc", NULL, NULL) };
#undef F

static void check_stack(const struct ar_rules *r, const struct ar_frame *f, unsigned n)
{
	unsigned d = ar_discard(r, f, n);
	if (n > 0 && d >= n)
		abort(); /* all frames discarded: the innermost kept must remain */
	unsigned g = ar_classify(r, f + d, n - d);
	if (g >= ar_group_count(r))
		abort();
}

static unsigned count_lines(const uint8_t *data, size_t size)
{
	unsigned lines = 1;
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	return lines;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ar_error err;
	struct ar_rules *r = ar_parse((const char *)data, size, &alloc, &err);
	if (!r) {
		if (err.line > count_lines(data, size))
			abort();
		size_t n = strnlen(err.reason, sizeof err.reason);
		if (n == 0 || n == sizeof err.reason)
			abort(); /* no reason, or not terminated */
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)err.reason[i] < 0x20 || (unsigned char)err.reason[i] == 0x7f)
				abort();
		return 0;
	}
	unsigned groups = ar_group_count(r);
	if (groups < 1 || groups > AR_MAX_GROUPS + 1 || ar_group_parent(r, 0) != -1)
		abort();
	for (unsigned g = 0; g < groups; g++) {
		int parent = ar_group_parent(r, g);
		if (parent >= (int)g || !ar_group_path(r, g))
			abort();
	}
	check_stack(r, stack_a, sizeof stack_a / sizeof stack_a[0]);
	check_stack(r, stack_b, sizeof stack_b / sizeof stack_b[0]);
	check_stack(r, stack_b + 1, 2);
	check_stack(r, stack_c, 1);
	check_stack(r, stack_c, 0);
	ar_rules_free(r);
	return 0;
}
