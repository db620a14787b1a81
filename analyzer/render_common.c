/* render_common.c - helpers shared by the renderers: number formatting, UTF-8 validation,
 * XML/HTML escaping and line iteration. Produces no output format of its own. */
#include "render_common.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

bool render_col_numeric(const struct column *col)
{
	return col->kind == CELL_U64 || col->kind == CELL_I64 || col->kind == CELL_F64;
}

/* Shortest %.*g that reads back to the same double, so CSV/JSON consumers get the exact
 * value without the noise %.17g adds to numbers like 0.1. */
static void format_double_exact(double v, char *buf)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, RENDER_NUM_MAX, "%.*g", prec, v);
		if (prec == 17 || strtod(buf, NULL) == v)
			return;
	}
}

const char *render_number(const struct column *col, const struct cell *c, char *buf,
			  enum render_float mode)
{
	switch (c->kind) {
	case CELL_U64:
		snprintf(buf, RENDER_NUM_MAX, col->format == COL_HEX ? "%" PRIx64 : "%" PRIu64, c->u);
		return buf;
	case CELL_I64:
		snprintf(buf, RENDER_NUM_MAX, "%" PRId64, c->i);
		return buf;
	case CELL_F64:
		if (mode == FLOAT_EXACT && isfinite(c->f))
			format_double_exact(c->f, buf);
		else
			snprintf(buf, RENDER_NUM_MAX, "%.2f", c->f);
		return buf;
	default:
		return NULL;
	}
}

size_t utf8_valid_len(const unsigned char *s, size_t avail)
{
	if (avail == 0)
		return 0;
	unsigned char b = s[0];
	if (b < 0x80)
		return 1;
	size_t len;
	unsigned char lo = 0x80, hi = 0xbf; /* allowed range of the second byte */
	if (b >= 0xc2 && b <= 0xdf) {
		len = 2;
	} else if (b >= 0xe0 && b <= 0xef) {
		len = 3;
		if (b == 0xe0)
			lo = 0xa0; /* overlong */
		else if (b == 0xed)
			hi = 0x9f; /* UTF-16 surrogates */
	} else if (b >= 0xf0 && b <= 0xf4) {
		len = 4;
		if (b == 0xf0)
			lo = 0x90; /* overlong */
		else if (b == 0xf4)
			hi = 0x8f; /* above U+10FFFF */
	} else {
		return 0;
	}
	if (avail < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

void render_xml_escaped_n(const char *s, size_t len, FILE *out)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	while (p < end) {
		/* Copy the longest run that needs no escaping in one call. */
		const unsigned char *run = p;
		size_t n;
		while (p < end && (n = utf8_valid_len(p, (size_t)(end - p))) != 0 &&
		       !(n == 1 && (*p < 0x20 || *p == 0x7f || strchr("&<>\"'", *p))) &&
		       /* U+FFFE and U+FFFF are not XML characters */
		       !(n == 3 && p[0] == 0xef && p[1] == 0xbf && p[2] >= 0xbe))
			p += n;
		if (p > run)
			fwrite(run, 1, (size_t)(p - run), out);
		if (p == end)
			break;
		switch (*p) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(out, "\\x%02x", *p);
			else
				fprintf(out, "&#x%02X;", *p);
		}
		p++;
	}
}

void render_xml_escaped(const char *s, FILE *out)
{
	if (s)
		render_xml_escaped_n(s, strlen(s), out);
}

bool render_next_line(const char **cursor, const char **line, size_t *len)
{
	const char *p = *cursor;
	if (!p)
		return false;
	while (*p == '\n')
		p++;
	if (!*p) {
		*cursor = p;
		return false;
	}
	const char *nl = strchr(p, '\n');
	*line = p;
	*len = nl ? (size_t)(nl - p) : strlen(p);
	*cursor = p + *len;
	return true;
}

const char *render_map_str(const struct table *t, size_t row, enum map_col col)
{
	if ((size_t)col >= t->ncols)
		return "";
	const struct cell *c = table_cell_c(t, row, col);
	return c->kind == CELL_STR && c->s ? c->s : "";
}

uint64_t render_map_u64(const struct table *t, size_t row, enum map_col col)
{
	if ((size_t)col >= t->ncols)
		return 0;
	const struct cell *c = table_cell_c(t, row, col);
	if (c->kind == CELL_U64)
		return c->u;
	if (c->kind == CELL_I64 && c->i > 0)
		return (uint64_t)c->i;
	return 0;
}

size_t render_map_group_end(const struct table *t, size_t first)
{
	const char *group = render_map_str(t, first, MAP_COL_GROUP);
	size_t end = first + 1;
	while (end < t->nrows && strcmp(render_map_str(t, end, MAP_COL_GROUP), group) == 0)
		end++;
	return end;
}

int render_finish(FILE *out)
{
	/* A write that failed while rendering left the stream's error flag and its errno (a full
	 * disk's ENOSPC); the final flush may then have nothing left to write and say nothing:
	 * keep that errno rather than a vague EIO. */
	int earlier = ferror(out) ? errno : 0;
	errno = 0;
	if (fflush(out) != 0 || ferror(out)) {
		if (errno == 0)
			errno = earlier ? earlier : EIO;
		return -1;
	}
	return 0;
}

size_t render_tree_indent(const struct table *t, size_t row, size_t col)
{
	if (!t->tree || col != t->tree_label_col || t->tree_depth_col >= t->ncols)
		return 0;
	const struct cell *c = table_cell_c(t, row, t->tree_depth_col);
	if (c->kind != CELL_U64)
		return 0;
	return c->u < RENDER_TREE_MAX_INDENT / 2 ? 2 * (size_t)c->u : RENDER_TREE_MAX_INDENT;
}

/* An exact quotient: an integer when DEN divides NUM, else two decimals. */
static void put_ratio(uint64_t num, uint64_t den, bool negative, char *buf)
{
	const char *sign = negative ? "-" : "";
	if (num % den == 0)
		snprintf(buf, RENDER_NUM_MAX, "%s%" PRIu64, sign, num / den);
	else
		snprintf(buf, RENDER_NUM_MAX, "%s%.2f", sign, (double)num / (double)den);
}

const char *render_size(const struct report *r, const struct column *col, const struct cell *c,
			char *buf)
{
	uint64_t per; /* bytes per counted unit */
	switch (col->format) {
	case COL_BYTES: per = 1; break;
	case COL_KIB: per = 1024; break;
	case COL_PAGES: per = r ? r->page_size : 0; break;
	default: return NULL;
	}
	uint64_t n;
	bool negative = false;
	if (c->kind == CELL_U64)
		n = c->u;
	else if (c->kind == CELL_I64)
		negative = c->i < 0, n = negative ? 0 - (uint64_t)c->i : (uint64_t)c->i;
	else
		return NULL;
	enum size_units units = r ? r->units : UNITS_HUMAN;
	if (per == 0) { /* pages of an unknown size: the count itself */
		snprintf(buf, RENDER_NUM_MAX, "%s%" PRIu64, negative ? "-" : "", n);
		return buf;
	}
	uint64_t bytes = n * per;
	if (units == UNITS_HUMAN) {
		char h[BYTES_HUMAN_MAX];
		if (n == 0)
			snprintf(buf, RENDER_NUM_MAX, "0");
		else
			snprintf(buf, RENDER_NUM_MAX, "%s%s", negative ? "-" : "", bytes_human(bytes, h));
	} else if (units == UNITS_KIB) {
		put_ratio(bytes, 1024, negative, buf);
	} else if (col->format == COL_PAGES) {
		snprintf(buf, RENDER_NUM_MAX, "%s%" PRIu64, negative ? "-" : "", n);
	} else {
		put_ratio(bytes, r->page_size ? r->page_size : 4096, negative, buf);
	}
	return buf;
}

double render_size_bytes(const struct report *r, const struct column *col, const struct cell *c)
{
	double per = col->format == COL_KIB ? 1024 : col->format == COL_PAGES && r ? r->page_size : 1;
	double v = c->kind == CELL_U64 ? (double)c->u : c->kind == CELL_I64 ? (double)c->i : 0;
	return v * per;
}

const char *render_cell_number(const struct report *r, const struct table *t, size_t col,
			       const struct cell *c, char *buf, enum render_float mode)
{
	unsigned decimals = t->decimals && col < t->ncols ? t->decimals[col] : 0;
	if (mode == FLOAT_HUMAN && col < t->ncols && column_unit(&t->cols[col])) {
		const char *s = render_size(r, &t->cols[col], c, buf);
		if (s)
			return s;
	}
	if (mode == FLOAT_HUMAN && c->kind == CELL_F64 && decimals) {
		snprintf(buf, RENDER_NUM_MAX, "%.*f", (int)decimals, c->f);
		return buf;
	}
	return render_number(&t->cols[col], c, buf, mode);
}

const char *render_units_suffix(const struct report *r, const struct table *t)
{
	if (!r || r->units == UNITS_HUMAN)
		return "";
	for (size_t c = 0; c < t->ncols; c++)
		if (column_unit(&t->cols[c]))
			return r->units == UNITS_KIB ? ", in KiB" : ", in pages";
	return "";
}
