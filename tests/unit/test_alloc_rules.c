/* Unit tests for trace/alloc_rules: glob, parsing and its errors, discard, group
 * classification (tree descent, first match in file order, same-frame combinations), and
 * the lazy peak accounting against an eager reference on random alloc/free sequences. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_rules.h"
#include "check.h"

static unsigned live_allocs, fail_after = ~0u;

static void *t_alloc(void *ctx, size_t n)
{
	(void)ctx;
	if (fail_after == 0)
		return NULL;
	fail_after--;
	live_allocs++;
	return malloc(n);
}

static void t_free(void *ctx, void *p)
{
	(void)ctx;
	live_allocs--;
	free(p);
}

static const struct ar_allocator A = { t_alloc, t_free, NULL };

static struct ar_rules *parse(const char *text, struct ar_error *err)
{
	return ar_parse(text, strlen(text), &A, err);
}

/* Expect `text` refused at `line` with a reason containing `what`. */
#define BAD(text, line_, what)                                                                     \
	do {                                                                                       \
		struct ar_error e_;                                                                \
		struct ar_rules *r_ = parse(text, &e_);                                            \
		CHECK(r_ == NULL, "accepted: %s", text);                                           \
		ar_rules_free(r_);                                                                 \
		CHECK_U64(e_.line, line_);                                                         \
		CHECK_CONTAINS(e_.reason, what);                                                   \
	} while (0)

static void test_glob(void)
{
	CHECK(ar_glob("malloc", "malloc"), "exact");
	CHECK(!ar_glob("malloc", "malloc2"), "exact is not a prefix");
	CHECK(!ar_glob("malloc", "xmalloc"), "exact is not a suffix");
	CHECK(ar_glob("x*", "xmalloc"), "star");
	CHECK(ar_glob("*alloc*", "xmalloc_wrapper"), "stars");
	CHECK(ar_glob("operator new*", "operator new(unsigned long)"), "spaces");
	CHECK(ar_glob("a?c", "abc") && !ar_glob("a?c", "ac"), "question mark");
	CHECK(ar_glob("*a*b", "xaab") && !ar_glob("*a*b", "xaabc"), "backtracking");
	CHECK(ar_glob("*", "") && !ar_glob("?", ""), "empty subject");
}

static void test_qualified_name(void)
{
	CHECK_STR(ar_qualified_name("main"), "main");
	CHECK_STR(ar_qualified_name("net::Conn::grow(int)"), "net::Conn::grow(int)");
	CHECK_STR(ar_qualified_name("void std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>(__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, int const&)"),
		  "std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>(__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, int const&)");
	CHECK_STR(ar_qualified_name("std::vector<int, std::allocator<int> >::push_back(int const&)"),
		  "std::vector<int, std::allocator<int> >::push_back(int const&)");
	CHECK_STR(ar_qualified_name("std::pair<int, int> ns::f(long)"), "ns::f(long)");
	CHECK_STR(ar_qualified_name("operator new(unsigned long)"), "operator new(unsigned long)");
	CHECK_STR(ar_qualified_name("bool ns::T::operator<(ns::T const&) const"), "ns::T::operator<(ns::T const&) const");
	CHECK_STR(ar_qualified_name("operators_table"), "operators_table");

	struct ar_error e;
	struct ar_rules *r = parse("discard prefix std::\ngroup n\n prefix net::\n", &e);
	struct ar_frame f[] = {
		{ "void std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>(int const&)", 0, 0 },
		{ "std::vector<int, std::allocator<int> >::push_back(int const&)", 0, 0 },
		{ "net::Conn::grow(int)", 0, 0 },
	};
	CHECK(r && ar_discard(r, f, 3) == 2, "std:: frames with and without return type discarded");
	CHECK(r && ar_classify(r, f + 2, 1) == 1, "net:: prefix");
	ar_rules_free(r);
}

static const char EXAMPLE[] =
	"# allocation rules\n"
	"discard fn xmalloc\n"
	"discard prefix std::\n"
	"discard fn \"operator new*\"\n"
	"\n"
	"group net            # all networking\n"
	"  path src/net/\n"
	"group net/tcp\n"
	"  fn tcp_*\n"
	"group net/udp\n"
	"  fn udp_send path udp.c   # same frame: both must hold\n"
	"group parse\n"
	"  fn parse_*\n"
	"  prefix json::\n"
	"group cache\n"
	"group cache/big\n"
	"  fn big_cache_*\n";

static void test_parse_example(void)
{
	struct ar_error e;
	struct ar_rules *r = parse(EXAMPLE, &e);
	CHECK(r != NULL, "example refused: %u: %s", e.line, e.reason);
	if (!r)
		return;
	CHECK_U64(ar_discard_count(r), 3);
	CHECK_U64(ar_group_count(r), 7);
	static const char *paths[] = { "other", "net", "net/tcp", "net/udp", "parse", "cache", "cache/big" };
	static const int parents[] = { -1, -1, 1, 1, -1, -1, 5 };
	for (unsigned g = 0; g < 7; g++) {
		CHECK_STR(ar_group_path(r, g), paths[g]);
		CHECK(ar_group_parent(r, g) == parents[g], "parent of %s: %d", paths[g], ar_group_parent(r, g));
	}

	/* discard: the leading run of matching frames, never the last frame. */
	struct ar_frame s1[] = {
		{ "xmalloc", "util.c", "/bin/p" },
		{ "std::vector<int>::_M_realloc_insert", "/usr/include/c++/12/bits/vector.tcc", "/bin/p" },
		{ "operator new(unsigned long)", NULL, "/usr/lib/libstdc++.so.6" },
		{ "tcp_connect", "src/net/tcp.c", "/bin/p" },
		{ "xmalloc", "util.c", "/bin/p" }, /* not leading: stays */
		{ "main", "main.c", "/bin/p" },
	};
	CHECK_U64(ar_discard(r, s1, 6), 3);
	struct ar_frame all[] = { { "xmalloc", 0, 0 }, { "std::foo", 0, 0 } };
	CHECK_U64(ar_discard(r, all, 2), 1);
	CHECK_U64(ar_discard(r, all, 0), 0);

	/* classify: net matched (path src/net/), then its first matching child. */
	CHECK_U64(ar_classify(r, s1 + 3, 3), 2); /* net/tcp */
	struct ar_frame s2[] = { { "sock_alloc", "src/net/sock.c", "/bin/p" }, { "main", "main.c", 0 } };
	CHECK_U64(ar_classify(r, s2, 2), 1); /* net, no child matches */
	/* A tcp_ function outside src/net/: net does not match, so net/tcp is never tried. */
	struct ar_frame s3[] = { { "tcp_helper", "lib/misc.c", "/bin/p" } };
	CHECK_U64(ar_classify(r, s3, 1), 0);
	/* net/udp needs fn udp_send AND path udp.c in one frame. */
	struct ar_frame s4[] = { { "udp_send", "src/net/udp.c", 0 } };
	struct ar_frame s5[] = { { "udp_send", "src/net/other.c", 0 }, { "x", "udp.c", 0 } };
	CHECK_U64(ar_classify(r, s4, 1), 3);
	CHECK_U64(ar_classify(r, s5, 2), 1);
	/* path also matches the object path. */
	struct ar_frame s6[] = { { "f", NULL, "/opt/src/net/libnet.so" } };
	CHECK_U64(ar_classify(r, s6, 1), 1);
	/* first match wins in file order: net before parse. */
	struct ar_frame s7[] = { { "parse_header", "src/net/http.c", 0 } };
	CHECK_U64(ar_classify(r, s7, 1), 1);
	struct ar_frame s8[] = { { "json::value::value", "x.cc", 0 } };
	CHECK_U64(ar_classify(r, s8, 1), 4);
	/* container group: cache has no rules of its own, matches through cache/big. */
	struct ar_frame s9[] = { { "big_cache_fill", "c.c", 0 } };
	CHECK_U64(ar_classify(r, s9, 1), 6);
	/* unknown frames match nothing. */
	struct ar_frame s10[] = { { NULL, NULL, NULL }, { "", "", "" } };
	CHECK_U64(ar_classify(r, s10, 2), 0);
	CHECK_U64(ar_discard(r, s10, 2), 0);
	ar_rules_free(r);

	/* Empty and comment-only files: just "other". */
	r = parse("# nothing\n\n   \n", &e);
	CHECK(r && ar_group_count(r) == 1 && ar_discard_count(r) == 0, "comment-only file");
	ar_rules_free(r);
	r = ar_parse("", 0, &A, &e);
	CHECK(r && ar_group_count(r) == 1, "empty file");
	ar_rules_free(r);
	/* No trailing newline, CRLF, quoted escapes. */
	r = parse("group a\r\n fn \"we\\\"ird name\"", &e);
	CHECK(r != NULL, "crlf/quote: %s", e.reason);
	struct ar_frame q[] = { { "we\"ird name", 0, 0 } };
	CHECK(r && ar_classify(r, q, 1) == 1, "quoted escape");
	ar_rules_free(r);
}

static void test_errors(void)
{
	BAD("group a\n  fn x\nbogus y\n", 3, "unknown keyword 'bogus'");
	/* A terminal escape in the file is not echoed raw (issue 20). */
	BAD("group a\n  fn x\ngrou\x1b]0;x\x07p y\n", 3, "unknown keyword 'grou\\x1b]0;x\\x07p'");
	BAD("fn x\n", 1, "outside a group");
	BAD("group a\n fn\n", 2, "'fn' needs a value");
	BAD("group a\n fn x path\n", 2, "'path' needs a value");
	BAD("group a\n fn x where y\n", 2, "unknown rule kind 'where'");
	BAD("discard fn\n", 1, "expected `discard fn|prefix|path VALUE`");
	BAD("discard func x\n", 1, "expected `discard fn|prefix|path VALUE`");
	BAD("discard fn a b\n", 1, "expected `discard");
	BAD("discard fn \"\"\n", 1, "empty value");
	BAD("group\n", 1, "expected `group NAME`");
	BAD("group a b\n", 1, "expected `group NAME`");
	BAD("group a//b\n", 1, "bad group name 'a//b'");
	BAD("group /a\n", 1, "bad group name");
	BAD("group a/\n", 1, "bad group name");
	BAD("group a\n fn x\ngroup a\n fn y\n", 3, "defined twice");
	BAD("group other\n fn x\n", 1, "default group");
	BAD("group other/x\n fn x\n", 1, "'other' is the default group");
	BAD("group net/tcp\n fn x\n", 1, "parent group 'net' must be defined before it");
	BAD("group a\n fn x\ngroup b\ngroup c\n fn y\n", 3, "group 'b' has no rules and no subgroups");
	BAD("group a\n fn \"abc\n", 2, "unterminated quoted string");
	BAD("group a\n fn \"abc\"def\n", 2, "followed by a space");
	BAD("\"group\" a\n", 1, "not a quoted string");
	BAD("group a\n fn 1 fn 2 fn 3 fn 4 fn 5 fn 6 fn 7 fn 8 fn 9\n", 2, "too many words");
	static const char nul[] = "group a\n fn x\0\n";
	struct ar_error e;
	struct ar_rules *r = ar_parse(nul, sizeof nul - 1, &A, &e);
	CHECK(r == NULL && e.line == 2, "NUL byte at line %u", e.line);
	CHECK_CONTAINS(e.reason, "NUL byte");
	ar_rules_free(r);

	/* Out of memory at every possible point: refused cleanly, nothing leaked. */
	unsigned before = live_allocs;
	for (unsigned n = 0; n < 200; n++) {
		fail_after = n;
		r = parse(EXAMPLE, &e);
		fail_after = ~0u;
		if (r) {
			ar_rules_free(r);
			CHECK(n > 20, "parse succeeded with only %u allocations", n);
			break;
		}
		CHECK_CONTAINS(e.reason, "out of memory");
	}
	CHECK_U64(live_allocs, before);
}

/* Hostile sizes: deep nesting and very many groups are refused quickly (group lookup is
 * linear and matching recurses per level); the limits themselves are accepted. */
static void test_limits(void)
{
	static char text[600000];
	size_t n = 0;
	char path[200] = "g";
	for (unsigned d = 1; d <= 33; d++) {
		if (d > 1)
			strcat(path, "/g");
		n += (size_t)snprintf(text + n, sizeof text - n, "group %s\n fn f%u\n", path, d);
		struct ar_error e;
		struct ar_rules *r = ar_parse(text, n, &A, &e);
		if (d <= 32) {
			CHECK(r != NULL, "depth %u refused: %u: %s", d, e.line, e.reason);
			CHECK(r && ar_classify(r, (struct ar_frame[]){ { "f1", 0, 0 } }, 1) == 1,
			      "depth %u: classify", d);
		} else {
			CHECK(r == NULL && e.line == 2 * d - 1, "depth %u: line %u", d, e.line);
			CHECK_CONTAINS(e.reason, "nested too deeply");
		}
		ar_rules_free(r);
	}
	n = 0;
	for (unsigned g = 1; g <= 10001; g++)
		n += (size_t)snprintf(text + n, sizeof text - n, "group g%u\n fn f\n", g);
	struct ar_error e;
	struct ar_rules *r = ar_parse(text, n, &A, &e);
	CHECK(r == NULL && e.line == 2 * 10001 - 1, "10001 groups: line %u", e.line);
	CHECK_CONTAINS(e.reason, "too many groups");
	ar_rules_free(r);
	n -= strlen("group g10001\n fn f\n");
	r = ar_parse(text, n, &A, &e);
	CHECK(r != NULL && ar_group_count(r) == 10001, "10000 groups refused: %s", e.reason);
	ar_rules_free(r);
}

/* Lazy peak accounting vs. an eager reference that copies every counter at each new heap
 * maximum. Counters: 4 "leaves" and a "parent" over leaves 0 and 1. */
static void test_peaks(void)
{
	srand(7);
	for (int round = 0; round < 50; round++) {
		struct ar_heap h = { 0 };
		struct ar_counter c[5] = { { 0 } };
		uint64_t ref_cur[5] = { 0 }, ref_peak[5] = { 0 }, ref_max[5] = { 0 }, ref_hmax = 0, hcur = 0;
		struct { unsigned leaf; uint64_t bytes; } live[64];
		unsigned nlive = 0;
		for (int step = 0; step < 400; step++) {
			bool do_alloc = nlive == 0 || (nlive < 64 && rand() % 100 < 55);
			unsigned leaf;
			uint64_t bytes;
			if (do_alloc) {
				leaf = (unsigned)rand() % 4;
				bytes = (uint64_t)(rand() % 1000);
				live[nlive].leaf = leaf;
				live[nlive].bytes = bytes;
				nlive++;
			} else {
				unsigned k = (unsigned)rand() % nlive;
				leaf = live[k].leaf;
				bytes = live[k].bytes;
				live[k] = live[--nlive];
			}
			struct ar_counter *path[2] = { &c[leaf], &c[4] };
			unsigned n = leaf < 2 ? 2 : 1;
			if (do_alloc)
				ar_heap_alloc(&h, path, n, bytes);
			else
				ar_heap_free(&h, path, n, bytes);
			int64_t d = do_alloc ? (int64_t)bytes : -(int64_t)bytes;
			ref_cur[leaf] += (uint64_t)d;
			if (leaf < 2)
				ref_cur[4] += (uint64_t)d;
			hcur += (uint64_t)d;
			for (int i = 0; i < 5; i++)
				if (ref_cur[i] > ref_max[i])
					ref_max[i] = ref_cur[i];
			if (hcur > ref_hmax) {
				ref_hmax = hcur;
				for (int i = 0; i < 5; i++)
					ref_peak[i] = ref_cur[i];
			}
		}
		ar_heap_finish(&h);
		CHECK_U64(h.cur, hcur);
		CHECK_U64(h.max, ref_hmax);
		uint64_t sum_peak = 0;
		for (int i = 0; i < 5; i++) {
			CHECK_U64(c[i].cur, ref_cur[i]);
			CHECK_U64(c[i].peak, ref_peak[i]);
			CHECK_U64(c[i].max, ref_max[i]);
			if (i < 4)
				sum_peak += c[i].peak;
		}
		CHECK_U64(sum_peak, h.max); /* the leaves' peaks add up to the heap peak */
	}

	/* A hand-made case: a grows to 300, is freed to 100, b then grows to 250 (heap peak 350
	 * with a=100, b=250), b released. a: max 300, peak 100; b: max 250, peak 250. */
	struct ar_heap h = { 0 };
	struct ar_counter a = { 0 }, b = { 0 };
	struct ar_counter *pa[] = { &a }, *pb[] = { &b };
	ar_heap_alloc(&h, pa, 1, 100);
	ar_heap_alloc(&h, pa, 1, 200);
	ar_heap_free(&h, pa, 1, 200);
	ar_heap_alloc(&h, pb, 1, 250);
	ar_heap_free(&h, pb, 1, 250);
	ar_heap_finish(&h);
	CHECK_U64(h.max, 350);
	CHECK_U64(a.max, 300);
	CHECK_U64(a.peak, 100);
	CHECK_U64(b.max, 250);
	CHECK_U64(b.peak, 250);
	CHECK_U64(a.total, 300);
	CHECK_U64(a.blocks, 2);
	CHECK_U64(b.cur, 0);
}

/* Random texts made of the syntax's pieces: parse never crashes (ASan build) and either
 * succeeds or names a line within the text. */
static void test_random_texts(void)
{
	static const char *const pieces[] = {
		"group ", "discard ", "fn ", "prefix ", "path ", "a", "a/b", "net", "net/tcp", "*", "?",
		"\"", "\\", " ", "\t", "\n", "#", "x y", "std::", "/", "//", "other", "\r\n", "\0",
	};
	srand(11);
	char buf[512];
	for (int round = 0; round < 3000; round++) {
		size_t len = 0;
		unsigned lines = 1;
		int n = rand() % 40;
		for (int i = 0; i < n; i++) {
			const char *p = pieces[rand() % (int)(sizeof pieces / sizeof pieces[0])];
			size_t l = strcmp(p, "\0") ? strlen(p) : 1;
			if (len + l >= sizeof buf)
				break;
			memcpy(buf + len, p, l);
			len += l;
		}
		for (size_t i = 0; i < len; i++)
			lines += buf[i] == '\n';
		struct ar_error e;
		struct ar_rules *r = ar_parse(buf, len, &A, &e);
		if (!r) {
			if (!CHECK(e.line >= 1 && e.line <= lines && e.reason[0], "round %d: line %u of %u, reason '%s'", round, e.line, lines, e.reason))
				break;
			continue;
		}
		struct ar_frame f[] = { { "net_open", "src/net/a.c", "/bin/x" }, { "std::x", "a", "b" }, { "main", 0, 0 } };
		unsigned k = ar_discard(r, f, 3);
		unsigned g = ar_classify(r, f + k, 3 - k);
		CHECK(k < 3 && g < ar_group_count(r), "round %d: discard %u group %u", round, k, g);
		ar_rules_free(r);
	}
}

int main(void)
{
	test_glob();
	test_qualified_name();
	test_parse_example();
	test_errors();
	test_limits();
	test_peaks();
	test_random_texts();
	CHECK_U64(live_allocs, 0);
	return check_summary("test_alloc_rules");
}
