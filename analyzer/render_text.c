/* render_text.c - the report as aligned plain-text tables, for a terminal or a pager.
 *
 * Output: an identity block (source, arch, release, dump, time, page size, snapshot), a
 * "PARTIAL:" block when any input was incomplete, the reader's warnings, then each table:
 * its title underlined with '=', its note, a header row, a '-' rule and the rows. Numbers are
 * right-aligned, strings left-aligned, columns separated by two spaces, empty cells shown as
 * "-", hex columns without "0x". STYLE_MAP tables print "[group]" headings, one
 * "  VMA start-end  flags  kind  unit" line per VMA and "    OFFSET  MAPCHARS" per line.
 * Control characters, C1 controls and bytes that are not UTF-8 in strings (process names and
 * paths come from the inspected system) are shown as \xNN so they cannot drive the terminal.
 */
#include "render_common.h"
#include "xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Writes s escaped (if out is not NULL) and returns its width in characters. */
static size_t text_put(const char *s, size_t len, FILE *out)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	size_t width = 0;
	while (p < end) {
		size_t n = utf8_valid_len(p, (size_t)(end - p));
		bool c1_control = n == 2 && p[0] == 0xc2 && p[1] < 0xa0;
		if (n == 0 || (n == 1 && (*p < 0x20 || *p == 0x7f)) || c1_control) {
			size_t bytes = c1_control ? 2 : 1;
			for (size_t i = 0; i < bytes; i++)
				if (out)
					fprintf(out, "\\x%02x", p[i]);
			width += 4 * bytes;
			p += bytes;
			continue;
		}
		if (out)
			fwrite(p, 1, n, out);
		width++;
		p += n;
	}
	return width;
}

static size_t text_put_str(const char *s, FILE *out)
{
	return s ? text_put(s, strlen(s), out) : 0;
}

static void pad(size_t n, FILE *out)
{
	while (n--)
		putc(' ', out);
}

/* The display text of a cell: numbers formatted into buf, strings as they are, "-" if empty. */
static const char *cell_text(const struct table *t, size_t row, size_t col, char *buf)
{
	const struct cell *c = table_cell_c(t, row, col);
	if (c->kind == CELL_STR)
		return c->s ? c->s : "";
	const char *num = render_cell_number(t, col, c, buf, FLOAT_HUMAN);
	return num ? num : "-";
}

static const char *col_title(const struct column *col)
{
	return col->title ? col->title : col->name ? col->name : "";
}

static void put_aligned(const char *s, size_t width, bool right, bool last, FILE *out)
{
	size_t w = text_put_str(s, NULL);
	if (right)
		pad(width - w, out);
	text_put_str(s, out);
	if (!right && !last)
		pad(width - w, out);
}

static void render_grid(const struct table *t, FILE *out)
{
	char buf[RENDER_NUM_MAX];
	size_t *width = xcalloc(t->ncols ? t->ncols : 1, sizeof *width);
	for (size_t c = 0; c < t->ncols; c++)
		width[c] = text_put_str(col_title(&t->cols[c]), NULL);
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < t->ncols; c++) {
			size_t w = render_tree_indent(t, r, c) + text_put_str(cell_text(t, r, c, buf), NULL);
			if (w > width[c])
				width[c] = w;
		}

	for (size_t c = 0; c < t->ncols; c++) {
		if (c)
			fputs("  ", out);
		put_aligned(col_title(&t->cols[c]), width[c], render_col_numeric(&t->cols[c]),
			    c + 1 == t->ncols, out);
	}
	putc('\n', out);
	for (size_t c = 0; c < t->ncols; c++) {
		if (c)
			fputs("  ", out);
		for (size_t i = 0; i < width[c]; i++)
			putc('-', out);
	}
	putc('\n', out);
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t c = 0; c < t->ncols; c++) {
			if (c)
				fputs("  ", out);
			size_t indent = render_tree_indent(t, r, c); /* 0 unless a tree's label */
			pad(indent, out);
			put_aligned(cell_text(t, r, c, buf), width[c] - indent,
				    render_col_numeric(&t->cols[c]), c + 1 == t->ncols, out);
		}
		putc('\n', out);
	}
	if (t->nrows == 0)
		fputs("(no rows)\n", out);
	free(width);
}

static void format_offset(const struct table *t, size_t row, char *buf)
{
	bool hex = MAP_COL_OFFSET < t->ncols && t->cols[MAP_COL_OFFSET].format == COL_HEX;
	snprintf(buf, RENDER_NUM_MAX, hex ? "%" PRIx64 : "%" PRIu64,
		 render_map_u64(t, row, MAP_COL_OFFSET));
}

void render_text_map_rows(const struct table *t, size_t first, size_t end, FILE *out)
{
	char buf[RENDER_NUM_MAX];
	size_t offset_width = 0;
	for (size_t r = first; r < end; r++) {
		format_offset(t, r, buf);
		if (strlen(buf) > offset_width)
			offset_width = strlen(buf);
	}
	const char *vma = NULL;
	for (size_t r = first; r < end; r++) {
		const char *this_vma = render_map_str(t, r, MAP_COL_VMA);
		if (!vma || strcmp(vma, this_vma) != 0) {
			vma = this_vma;
			fputs("  VMA ", out);
			text_put_str(vma, out);
			static const enum map_col fields[] = { MAP_COL_FLAGS, MAP_COL_KIND, MAP_COL_UNIT };
			for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
				const char *s = render_map_str(t, r, fields[i]);
				if (*s) {
					fputs("  ", out);
					text_put_str(s, out);
				}
			}
			putc('\n', out);
		}
		uint64_t skip = render_map_u64(t, r, MAP_COL_SKIP);
		if (skip > 0 && *render_map_str(t, r, MAP_COL_MAP)) {
			fprintf(out, "    ... %" PRIu64 " line%s of '%c' (%" PRIu64 " pages)\n", skip,
				skip == 1 ? "" : "s", *render_map_str(t, r, MAP_COL_MAP), skip * 64);
		} else if (skip > 0) {
			fprintf(out, "    ... %" PRIu64 " empty line%s (%" PRIu64 " pages)\n", skip,
				skip == 1 ? "" : "s", skip * 64);
			continue;
		}
		format_offset(t, r, buf);
		fputs("    ", out);
		pad(offset_width - strlen(buf), out);
		fputs(buf, out);
		fputs("  ", out);
		text_put_str(render_map_str(t, r, MAP_COL_MAP), out);
		putc('\n', out);
	}
}

static void render_map(const struct table *t, FILE *out)
{
	if (t->nrows == 0)
		fputs("(no rows)\n", out);
	for (size_t first = 0, end; first < t->nrows; first = end) {
		end = render_map_group_end(t, first);
		if (first)
			putc('\n', out);
		putc('[', out);
		text_put_str(render_map_str(t, first, MAP_COL_GROUP), out);
		fputs("]\n", out);
		render_text_map_rows(t, first, end, out);
	}
}

static void render_lines(const char *text, const char *prefix, FILE *out)
{
	const char *cursor = text, *line;
	size_t len;
	while (render_next_line(&cursor, &line, &len)) {
		fputs(prefix, out);
		text_put(line, len, out);
		putc('\n', out);
	}
}

static void identity_line(const char *label, const char *value, FILE *out)
{
	fputs(label, out);
	text_put_str(value && *value ? value : "-", out);
	putc('\n', out);
}

int render_text(const struct report *r, FILE *out)
{
	if (r->database) {
		fputs("pagesleuth db\n", out);
		identity_line("database:  ", r->database, out);
		identity_line("query:     ", r->query, out);
		identity_line("time:      ", r->time, out);
		goto identity_done;
	}
	fputs("pagesleuth report\n", out);
	identity_line("source:    ", r->source, out);
	identity_line("arch:      ", r->arch, out);
	identity_line("release:   ", r->release, out);
	identity_line("dump:      ", r->dump, out);
	identity_line("time:      ", r->time, out);
	fprintf(out, "page size: %" PRIu32 "\n", r->page_size);
	if (r->snapshots)
		fprintf(out, "snapshot:  %" PRIu64 " (%" PRIu64 " in input)\n", r->snapshot_seq,
			r->snapshots);
	else
		fprintf(out, "snapshot:  none (%s)\n", RENDER_NO_SNAPSHOT);
	identity_line("excluded:  ", r->excluded, out);
identity_done:

	if (r->headline)
		fprintf(out, "\n%s\n", r->headline);
	if (r->partial) {
		fputs("\nPARTIAL: the input was incomplete; the numbers below are NOT complete.\n", out);
		const char *cursor = r->partial_why, *line;
		size_t len;
		if (!render_next_line(&cursor, &line, &len))
			fputs("  (no reason recorded)\n", out);
		render_lines(r->partial_why, "  ", out);
	}
	if (r->warnings) {
		const char *cursor = r->warnings, *line;
		size_t len;
		if (render_next_line(&cursor, &line, &len)) {
			fputs("\nwarnings:\n", out);
			render_lines(r->warnings, "  ", out);
		}
	}

	for (size_t i = 0; i < r->ntables; i++) {
		const struct table *t = r->tables[i];
		putc('\n', out);
		size_t w = text_put_str(t->title, out);
		putc('\n', out);
		for (size_t j = 0; j < w; j++)
			putc('=', out);
		putc('\n', out);
		render_lines(t->note, "", out);
		if (t->style == STYLE_MAP)
			render_map(t, out);
		else
			render_grid(t, out);
	}
	return render_finish(out);
}

size_t render_text_escaped(const char *s, FILE *out)
{
	return text_put_str(s, out);
}
