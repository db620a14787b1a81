/* render_csv.c - the report's tables as CSV (RFC 4180 quoting, '\n' line ends).
 *
 * Output: for a partial report, first one "# PARTIAL: reason" line per reason. A report with
 * one table is plain CSV: a header row of column names, then the rows. With several tables,
 * each is preceded by "# table: ID" and tables are separated by a blank line. Fields that
 * contain ',', '"', CR or LF are quoted with '"' doubled, and so is a first field starting
 * with '#' (it would read as one of our comment lines). Numbers are written plain (hex columns
 * as hex without "0x", floats as the shortest exact form, "nan"/"inf" as printf spells them),
 * CELL_NONE as an empty field. Strings are written byte for byte.
 */
#include "render_common.h"

#include <string.h>

static void put_field(const char *s, bool first_field, FILE *out)
{
	if (!s[strcspn(s, ",\"\r\n")] && !(first_field && s[0] == '#')) {
		fputs(s, out);
		return;
	}
	putc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', out);
		putc(*s, out);
	}
	putc('"', out);
}

/* Comment lines must stay one line: control characters become spaces. */
static void put_comment(const char *prefix, const char *s, size_t len, FILE *out)
{
	fputs(prefix, out);
	for (size_t i = 0; i < len; i++)
		putc((unsigned char)s[i] < 0x20 ? ' ' : s[i], out);
	putc('\n', out);
}

static void render_table(const struct table *t, FILE *out)
{
	char buf[RENDER_NUM_MAX];
	for (size_t c = 0; c < t->ncols; c++) {
		if (c)
			putc(',', out);
		put_field(t->cols[c].name ? t->cols[c].name : "", c == 0, out);
	}
	putc('\n', out);
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t c = 0; c < t->ncols; c++) {
			if (c)
				putc(',', out);
			const struct cell *cell = table_cell_c(t, r, c);
			if (cell->kind == CELL_STR)
				put_field(cell->s ? cell->s : "", c == 0, out);
			else if (cell->kind != CELL_NONE)
				fputs(render_number(&t->cols[c], cell, buf, FLOAT_EXACT), out);
		}
		putc('\n', out);
	}
}

int render_csv(const struct report *r, FILE *out)
{
	if (r->partial) {
		const char *cursor = r->partial_why, *line;
		size_t len;
		bool any = false;
		while (render_next_line(&cursor, &line, &len)) {
			put_comment("# PARTIAL: ", line, len, out);
			any = true;
		}
		if (!any)
			fputs("# PARTIAL: (no reason recorded)\n", out);
	}
	for (size_t i = 0; i < r->ntables; i++) {
		const struct table *t = r->tables[i];
		if (r->ntables > 1) {
			if (i)
				putc('\n', out);
			put_comment("# table: ", t->id, strlen(t->id), out);
		}
		render_table(t, out);
	}
	return render_finish(out);
}
