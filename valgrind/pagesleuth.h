/* pagesleuth.h - client requests of the pagesleuth Valgrind tool (--tool=pagesleuth).
 *
 *   #include "pagesleuth.h"
 *   PAGESLEUTH_MARK("parse input");   // a `mark` record at this instant of the time axis
 *
 * Outside Valgrind (or under another tool) the request costs a few instructions and does
 * nothing. Needs valgrind.h from the valgrind package (/usr/include/valgrind). */
#ifndef PAGESLEUTH_CLIENT_H
#define PAGESLEUTH_CLIENT_H

#include <valgrind/valgrind.h>

enum {
	PAGESLEUTH_USERREQ_MARK = VG_USERREQ_TOOL_BASE('P', 'S'), /* arg: NUL-terminated text */
};

#define PAGESLEUTH_MARK(text) \
	VALGRIND_DO_CLIENT_REQUEST_STMT(PAGESLEUTH_USERREQ_MARK, (const char *)(text), 0, 0, 0, 0)

#endif
