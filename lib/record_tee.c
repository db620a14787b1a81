/* record_tee.c - see record_tee.h. */
#include "record_tee.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* "warn mm=3 at=7f00 reason=cannot%20read" -> "mm 3 at 0x7f00: cannot read". */
static void report_warn(struct ps_record_tee *t)
{
	t->warns++;
	if (!t->warn)
		return;
	t->line[t->len] = '\0';
	char where[96] = "", reason[1024] = "", text[1200];
	char *save = NULL;
	for (char *tok = strtok_r(t->line + 5, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (!strncmp(tok, "mm=", 3) && strcmp(tok + 3, "-"))
			snprintf(where + strlen(where), sizeof where - strlen(where), "mm %.20s ", tok + 3);
		else if (!strncmp(tok, "at=", 3) && strcmp(tok + 3, "-"))
			snprintf(where + strlen(where), sizeof where - strlen(where), "at 0x%.20s ", tok + 3);
		else if (!strncmp(tok, "reason=", 7)) {
			size_t o = 0;
			for (const char *p = tok + 7; *p && o + 1 < sizeof reason; p++) {
				int hi, lo;
				if (*p == '%' && (hi = hexval(p[1])) >= 0 && (lo = hexval(p[2])) >= 0) {
					int ch = hi * 16 + lo;
					reason[o++] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
					p += 2;
				} else {
					reason[o++] = *p;
				}
			}
			reason[o] = '\0';
		}
	}
	size_t wl = strlen(where);
	if (wl)
		where[wl - 1] = '\0';
	snprintf(text, sizeof text, "%s%s%s", where, wl ? ": " : "", reason[0] ? reason : "(no reason given)");
	t->warn(t->arg, text);
}

/* One whole line (without its newline): count a page run, report a warn record. */
static void look_at_line(struct ps_record_tee *t, const char *line, size_t len)
{
	if (len >= 2 && line[1] == ' ' &&
	    (line[0] == 'm' || line[0] == 'x' || line[0] == 'w' || line[0] == 'u')) {
		t->runs++; /* a page run: m x w u */
	} else if (len >= 5 && memcmp(line, "warn ", 5) == 0) {
		if (line != t->line) {
			size_t keep = len < sizeof t->line - 1 ? len : sizeof t->line - 1;
			memcpy(t->line, line, keep);
			t->len = keep;
		}
		report_warn(t);
	}
}

static ssize_t tee_write(void *cookie, const char *buf, size_t size)
{
	struct ps_record_tee *t = cookie;
	if (!t->out)
		return (ssize_t)size; /* cut off (an abandoned crash command): discard */
	/* Records may be split across writes: the start of a line that does not end in this
	 * write is kept (enough for any warn record's reason) and looked at when it ends. A
	 * line wholly inside the write is looked at where it is. This sees every byte extract
	 * writes, hence no copy of the lines that are whole. */
	const char *p = buf, *end = buf + size;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *stop = nl ? nl : end;
		size_t n = (size_t)(stop - p);
		if (t->len || !nl) {
			size_t room = sizeof t->line - 1 - t->len;
			memcpy(t->line + t->len, p, n < room ? n : room);
			t->len += n < room ? n : room;
			if (!nl)
				break;
			look_at_line(t, t->line, t->len);
		} else {
			look_at_line(t, p, n);
		}
		t->len = 0;
		p = nl + 1;
	}
	size_t done = fwrite(buf, 1, size, t->out);
	if (done < size)
		return done ? (ssize_t)done : -1;
	return (ssize_t)size;
}

static int tee_close(void *cookie)
{
	struct ps_record_tee *t = cookie;
	free(t->iobuf); /* fclose has flushed it and no longer looks at it */
	t->iobuf = NULL;
	return 0;
}

FILE *ps_record_tee_open(struct ps_record_tee *t)
{
	cookie_io_functions_t io = { .write = tee_write, .close = tee_close };
	FILE *fp = fopencookie(t, "w", io);
	/* 1 MiB through tee_write at a time, not 4 KiB (glibc's own buffer): the buffer is
	 * given, since glibc ignores setvbuf's size without one. */
	enum { TEE_BUF = 1 << 20 };
	if (fp && (t->iobuf = malloc(TEE_BUF)))
		setvbuf(fp, t->iobuf, _IOFBF, TEE_BUF);
	return fp;
}
