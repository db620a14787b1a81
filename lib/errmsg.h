/* errmsg.h - error messages as values: the `char **err` convention of the walker and the
 * dump reader (on failure *err is a malloc'd one-line message the caller frees). */
#ifndef PAGESLEUTH_ERRMSG_H
#define PAGESLEUTH_ERRMSG_H

/* Replace *err (freed; NULL or a message from this call chain) with the formatted message.
 * No-op when err is NULL; *err is NULL when out of memory. */
void ps_set_err(char **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
