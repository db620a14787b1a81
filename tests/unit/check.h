/* check.h - the unit tests' shared check framework (header-only: each tests/unit/X.c is one
 * test binary, so the static state below is per test).
 *
 * A failed check prints "FAIL: file:line: [context] message"; check_summary prints
 * "NAME: N checks, M failed" and gives the exit status (1 if any check failed).
 *
 *   CHECK(cond, fmt, ...)   cond is evaluated once, before the message's arguments (so it
 *                           may fill a variable the message prints)
 *   CHECK_U64(a, b)         a == b as uint64_t, each evaluated once
 *   CHECK_STR(a, b)         both non-NULL and equal
 *   CHECK_CONTAINS(h, n)    h non-NULL and contains n
 * Helpers that take the caller's line call check_at(ok, file, line, fmt, ...) directly.
 */
#ifndef PS_TESTS_CHECK_H
#define PS_TESTS_CHECK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static unsigned n_checks, n_failed;

/* Optional: what is under test (e.g. the record file being analysed), printed in brackets
 * after "FAIL: file:line:" when set; NULL or "" prints nothing. */
static const char *check_context;

static inline bool check_at(bool ok, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static inline bool check_at(bool ok, const char *file, int line, const char *fmt, ...)
{
	n_checks++;
	if (ok)
		return true;
	n_failed++;
	printf("FAIL: %s:%d: ", file, line);
	if (check_context && *check_context)
		printf("[%s] ", check_context);
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return false;
}

static inline bool check_u64(const char *file, int line, uint64_t a, uint64_t b, const char *as,
			     const char *bs)
{
	return check_at(a == b, file, line, "%s == %llu (%#llx), expected %s == %llu (%#llx)", as,
			(unsigned long long)a, (unsigned long long)a, bs, (unsigned long long)b,
			(unsigned long long)b);
}

static inline bool check_str(const char *file, int line, const char *a, const char *b,
			     const char *as)
{
	return check_at(a && b && strcmp(a, b) == 0, file, line, "%s == \"%s\", expected \"%s\"",
			as, a ? a : "(null)", b ? b : "(null)");
}

static inline bool check_contains(const char *file, int line, const char *hay, const char *needle,
				  const char *hs)
{
	return check_at(hay && needle && strstr(hay, needle), file, line,
			"%s = \"%s\" does not contain \"%s\"", hs, hay ? hay : "(null)",
			needle ? needle : "(null)");
}

/* Print the summary line and return the exit status. */
static inline int check_summary(const char *name)
{
	printf("%s: %u checks, %u failed\n", name, n_checks, n_failed);
	return n_failed ? 1 : 0;
}

#define CHECK(cond, ...)                                                                           \
	({                                                                                         \
		bool check_ok_ = (cond);                                                           \
		check_at(check_ok_, __FILE__, __LINE__, __VA_ARGS__);                              \
	})
#define CHECK_U64(a, b) check_u64(__FILE__, __LINE__, (a), (b), #a, #b)
#define CHECK_STR(a, b) check_str(__FILE__, __LINE__, (a), (b), #a)
#define CHECK_CONTAINS(hay, needle) check_contains(__FILE__, __LINE__, (hay), (needle), #hay)

#endif
