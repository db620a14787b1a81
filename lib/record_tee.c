/* record_tee.c - see record_tee.h. */
#include "record_tee.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

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

/* One whole line (without its newline) that may be a warn record: report it. */
static void look_at_line(struct ps_record_tee *t, const char *line, size_t len)
{
	if (len < 5 || memcmp(line, "warn ", 5) != 0)
		return;
	if (line != t->line) {
		size_t keep = len < sizeof t->line - 1 ? len : sizeof t->line - 1;
		memcpy(t->line, line, keep);
		t->len = keep;
	}
	report_warn(t);
}

/* The line from P to its newline: a line's start, or the rest of the line begun in an
 * earlier write (its start kept in t->line: enough for any warn record's reason). When it
 * does not end before END, what there is of it is kept for the next write. Returns where the
 * next line starts, or END. */
static const char *take_line(struct ps_record_tee *t, const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	if (nl && !t->in_line) { /* whole in this write: looked at where it is */
		look_at_line(t, p, (size_t)(nl - p));
		t->len = 0;
		return nl + 1;
	}
	const char *stop = nl ? nl : end;
	size_t n = (size_t)(stop - p), room = sizeof t->line - 1 - t->len;
	memcpy(t->line + t->len, p, n < room ? n : room);
	t->len += n < room ? n : room;
	t->in_line = !nl;
	if (!nl)
		return end;
	look_at_line(t, t->line, t->len);
	t->len = 0;
	return nl + 1;
}

/* The first line start in [P, END) that begins with 'w' (a warn record, or a swap run), P
 * just after a newline; END if none. Warn records are rare among millions of lines, so
 * lines are not visited one by one: on x86_64, 32 bytes are compared at a time (SSE2, which
 * every x86_64 has); memmem for "\nwarn " had cost twice what finding each line's end did. */
static const char *next_w_line(const char *p, const char *end)
{
	const char *q = p - 1; /* a newline: every line start is right after one */
#ifdef __SSE2__
	const __m128i nl = _mm_set1_epi8('\n'), w = _mm_set1_epi8('w');
	while (end - q >= 33) {
		__m128i a0 = _mm_loadu_si128((const __m128i *)q), b0 = _mm_loadu_si128((const __m128i *)(q + 1));
		__m128i a1 = _mm_loadu_si128((const __m128i *)(q + 16)), b1 = _mm_loadu_si128((const __m128i *)(q + 17));
		__m128i hit = _mm_or_si128(_mm_and_si128(_mm_cmpeq_epi8(a0, nl), _mm_cmpeq_epi8(b0, w)),
					   _mm_and_si128(_mm_cmpeq_epi8(a1, nl), _mm_cmpeq_epi8(b1, w)));
		if (_mm_movemask_epi8(hit))
			break;
		q += 32;
	}
#endif
	for (; end - q >= 2; q++)
		if (q[0] == '\n' && q[1] == 'w')
			return q + 1;
	return end;
}

static ssize_t tee_write(void *cookie, const char *buf, size_t size)
{
	struct ps_record_tee *t = cookie;
	if (!t->out)
		return (ssize_t)size; /* cut off (an abandoned crash command): discard */
	/* Records may be split across writes: the start of a line that does not end in this
	 * write is kept (enough for any warn record's reason) and looked at when it ends. Only
	 * warn records matter here, so whole lines are not visited one by one: only those that
	 * begin with 'w'. This sees every byte extract writes, without a copy. */
	const char *p = buf, *end = buf + size;
	/* P is at a line's start, or inside one begun in an earlier write: that line, then
	 * every line that begins with 'w'. */
	if (p < end)
		p = take_line(t, p, end);
	while (p < end && !t->in_line) {
		const char *w = next_w_line(p, end);
		if (w == end) {
			/* No line in the rest begins with 'w'; its last line may go on in the next
			 * write, and may be a warn record. */
			const char *last = memrchr(p - 1, '\n', (size_t)(end - (p - 1)));
			if (last + 1 < end)
				take_line(t, last + 1, end);
			break;
		}
		p = take_line(t, w, end);
	}
	size_t done = fwrite(buf, 1, size, t->out);
	if (done < size)
		return done ? (ssize_t)done : -1;
	return (ssize_t)size;
}

FILE *ps_record_tee_open(struct ps_record_tee *t)
{
	cookie_io_functions_t io = { .write = tee_write };
	FILE *fp = fopencookie(t, "w", io);
	/* Unbuffered: a record writer gives its lines 64 KiB at a time already (record_write.c),
	 * and a buffer here would copy every byte once more. */
	if (fp)
		setvbuf(fp, NULL, _IONBF, 0);
	return fp;
}
