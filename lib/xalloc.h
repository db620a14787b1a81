/* xalloc.h - allocation that exits with a message instead of returning NULL. For the
 * command-line tools only; the record library itself returns errors as values. */
#ifndef PAGESLEUTH_XALLOC_H
#define PAGESLEUTH_XALLOC_H

#include <stdarg.h>
#include <stddef.h>

void *xrealloc(void *p, size_t n);
void *xcalloc(size_t n, size_t size);
char *xstrdup(const char *s); /* NULL becomes "" */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap);
/* Append a line (fmt + "\n") to a malloc'd string (*s may be NULL). */
void xappendf(char **s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
