/* errmsg.c - see errmsg.h. */
#include "errmsg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void ps_set_err(char **err, const char *fmt, ...)
{
	if (!err)
		return;
	char *s = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	free(*err);
	*err = s;
}
