/* render_text.c - the report as aligned plain-text tables, for a terminal or a pager.
 *
 * Output: an identity block (source, arch, release, dump, time, page size, snapshot), a
 * "PARTIAL:" block when any input was incomplete, the reader's warnings, then each table:
 * its title underlined with '=', its note, a header row, a '-' rule and the rows. Numbers are
 * right-aligned, strings left-aligned, columns separated by two spaces, empty cells shown as
 * "-", hex columns without "0x", sizes in the report's units (--units; a title ends ", in KiB" or
 * ", in pages" when they are exact). Every line of a table fits TEXT_WIDTH columns: notes are
 * wrapped at spaces, the last string column (a path) is shortened in the middle with "..."
 * down to TEXT_MIN_STR characters, and a table still too wide is printed in blocks of columns,
 * each repeating the leading key columns (PID, COMMAND). STYLE_MAP tables print "[group]" headings, one
 * "  VMA start-end  flags  kind  unit" line per VMA and "    OFFSET  MAPCHARS" per line.
 * Control characters, C1 controls and bytes that are not UTF-8 in strings (process names and
 * paths come from the inspected system) are shown as \xNN so they cannot drive the terminal.
 */
#include "render_common.h"
#include "xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Text tables and notes fit this many columns (issue 16: a 100-column terminal). */
#define TEXT_WIDTH 100
/* A string column is not shortened below this (or its title's width). */
#define TEXT_MIN_STR 24

static size_t text_unit(const unsigned char *p, const unsigned char *end, size_t *width);

/* Writes s escaped (if out is not NULL) and returns its width in characters. */
static size_t text_put(const char *s, size_t len, FILE *out)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	size_t width = 0, w;
	while (p < end) {
		size_t n = text_unit(p, end, &w);
		if (out && w == 1)
			fwrite(p, 1, n, out);
		else if (out)
			for (size_t i = 0; i < n; i++)
				fprintf(out, "\\x%02x", p[i]);
		width += w;
		p += n;
	}
	return width;
}

/* The bytes and display width of the character (or escaped byte) at p. */
static size_t text_unit(const unsigned char *p, const unsigned char *end, size_t *width)
{
	size_t n = utf8_valid_len(p, (size_t)(end - p));
	bool c1_control = n == 2 && p[0] == 0xc2 && p[1] < 0xa0;
	if (n == 0 || (n == 1 && (*p < 0x20 || *p == 0x7f)) || c1_control) {
		size_t bytes = c1_control ? 2 : 1;
		*width = 4 * bytes;
		return bytes;
	}
	*width = 1;
	return n;
}

/* Writes s in at most max columns: the start and the end with "..." between (a path keeps
 * its file name); returns the width written. */
static size_t text_put_elided(const char *s, size_t max, FILE *out)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
	size_t total = text_put(s, strlen(s), NULL);
	if (total <= max || max < 8)
		return text_put(s, strlen(s), out);
	size_t head = (max - 3) / 3, tail = max - 3 - head, done = 0, w;
	while (p < end) {
		size_t n = text_unit(p, end, &w);
		if (done + w > head)
			break;
		text_put((const char *)p, n, out);
		done += w, p += n;
	}
	size_t written = done + 3;
	fputs("...", out);
	while (p < end && total - done > tail) { /* skip until the rest fits */
		p += text_unit(p, end, &w);
		done += w;
	}
	return written + text_put((const char *)p, (size_t)(end - p), out);
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
static const char *cell_text(const struct report *rep, const struct table *t, size_t row,
			     size_t col, char *buf)
{
	const struct cell *c = table_cell_c(t, row, col);
	if (c->kind == CELL_STR)
		return c->s ? c->s : "";
	const char *num = render_cell_number(rep, t, col, c, buf, FLOAT_HUMAN);
	return num ? num : "-";
}

static const char *col_title(const struct column *col)
{
	return col->title ? col->title : col->name ? col->name : "";
}

static void put_aligned(const char *s, size_t width, bool right, bool last, FILE *out)
{
	size_t w = text_put_str(s, NULL);
	if (w > width) { /* a string shortened to fit */
		w = text_put_elided(s, width, out);
	} else {
		if (right)
			pad(width - w, out);
		text_put_str(s, out);
	}
	if (!right && !last)
		pad(width - w, out);
}

static size_t grid_width(const size_t *width, const size_t *cols, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		w += width[cols[i]] + (i ? 2 : 0);
	return w;
}

/* Columns cols[0..n) of every row: a header, a rule and the rows. */
static void render_block(const struct report *rep, const struct table *t, const size_t *width,
			 const size_t *cols, size_t n, FILE *out)
{
	char buf[RENDER_NUM_MAX];
	for (size_t i = 0; i < n; i++) {
		size_t c = cols[i];
		if (i)
			fputs("  ", out);
		put_aligned(col_title(&t->cols[c]), width[c], render_col_numeric(&t->cols[c]),
			    i + 1 == n, out);
	}
	putc('\n', out);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputs("  ", out);
		for (size_t j = 0; j < width[cols[i]]; j++)
			putc('-', out);
	}
	putc('\n', out);
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t i = 0; i < n; i++) {
			size_t c = cols[i];
			if (i)
				fputs("  ", out);
			size_t indent = render_tree_indent(t, r, c); /* 0 unless a tree's label */
			pad(indent, out);
			put_aligned(cell_text(rep, t, r, c, buf), width[c] - indent,
				    render_col_numeric(&t->cols[c]), i + 1 == n, out);
		}
		putc('\n', out);
	}
}

/* Whether columns a and b are titled alike up to their last '_' (ANON_V, ANON_R). */
static bool same_stem(const struct table *t, size_t a, size_t b)
{
	const char *ta = col_title(&t->cols[a]), *tb = col_title(&t->cols[b]);
	const char *ua = strrchr(ta, '_'), *ub = strrchr(tb, '_');
	return ua && ub && ua - ta == ub - tb && strncmp(ta, tb, (size_t)(ua - ta)) == 0;
}

/* Shortens the string columns among cols[0..n), the last first, each down to TEXT_MIN_STR
 * (or its title), until they fit in room or none can give more. */
static void shrink_strings(const struct table *t, size_t *width, const size_t *cols, size_t n,
			   size_t room)
{
	for (size_t total; (total = grid_width(width, cols, n)) > room;) {
		size_t pick = n, min = 0; /* the column to shorten */
		for (size_t i = n; i-- > 0;) {
			size_t c = cols[i];
			min = text_put_str(col_title(&t->cols[c]), NULL);
			if (min < TEXT_MIN_STR)
				min = TEXT_MIN_STR;
			if (t->cols[c].kind == CELL_STR && width[c] > min) {
				pick = i;
				break;
			}
		}
		if (pick == n)
			return;
		size_t c = cols[pick], over = total - room;
		width[c] = width[c] - min > over ? width[c] - over : min;
	}
}

static void render_grid(const struct report *rep, const struct table *t, FILE *out)
{
	char buf[RENDER_NUM_MAX];
	size_t n = t->ncols ? t->ncols : 1;
	size_t *width = xcalloc(n, sizeof *width), *all = xcalloc(n, sizeof *all);
	for (size_t c = 0; c < t->ncols; c++) {
		all[c] = c;
		width[c] = text_put_str(col_title(&t->cols[c]), NULL);
	}
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < t->ncols; c++) {
			size_t w = render_tree_indent(t, r, c) +
				   text_put_str(cell_text(rep, t, r, c, buf), NULL);
			if (w > width[c])
				width[c] = w;
		}
	/* Too wide: shorten the last string column (the least telling: a path, a counter's
	 * name) down to TEXT_MIN_STR, if that makes the table fit. */
	size_t *natural = xcalloc(n, sizeof *natural);
	memcpy(natural, width, n * sizeof *width);
	size_t last_str = t->ncols;
	for (size_t c = 0; c < t->ncols; c++)
		if (t->cols[c].kind == CELL_STR)
			last_str = c;
	if (last_str < t->ncols) {
		size_t others = grid_width(width, all, t->ncols) - width[last_str];
		if (others < TEXT_WIDTH)
			shrink_strings(t, width, &last_str, 1, TEXT_WIDTH - others);
	}
	if (grid_width(width, all, t->ncols) <= TEXT_WIDTH) {
		render_block(rep, t, width, all, t->ncols, out);
	} else if (t->tree && t->tree_label_col < t->ncols) {
		/* A tree too wide (deep, long call stacks): one block all the same, its indented
		 * labels last, where a long one only makes its own line longer; blocks of columns
		 * would put a node's numbers thousands of lines away from its name. */
		memcpy(width, natural, n * sizeof *width);
		size_t label = t->tree_label_col, nb = 0;
		if (width[label] > RENDER_TREE_MAX_INDENT + TEXT_WIDTH)
			width[label] = RENDER_TREE_MAX_INDENT + TEXT_WIDTH;
		for (size_t c = 0; c < t->ncols; c++)
			if (c != label)
				all[nb++] = c;
		all[nb++] = label;
		render_block(rep, t, width, all, nb, out);
	} else {
		/* It does not: blocks of columns, each after the key columns (up to the first
		 * string column when it is among the first three: PID COMMAND, OBJECT), every
		 * string as whole as its block allows (a stack gets a block of its own). */
		memcpy(width, natural, n * sizeof *width);
		size_t nkey = 1;
		for (size_t c = 0; c < t->ncols && c < 3; c++)
			if (t->cols[c].kind == CELL_STR) {
				nkey = c + 1;
				break;
			}
		shrink_strings(t, width, all, nkey, TEXT_WIDTH / 2);
		size_t keyw = grid_width(width, all, nkey);
		for (size_t c = nkey; c < t->ncols; c++)
			if (t->cols[c].kind == CELL_STR && keyw + 2 + width[c] > TEXT_WIDTH)
				width[c] = keyw + 2 + TEXT_MIN_STR <= TEXT_WIDTH ? TEXT_WIDTH - keyw - 2
										 : TEXT_MIN_STR;
		size_t *block = xcalloc(n, sizeof *block);
		for (size_t c = nkey; c < t->ncols;) {
			size_t nb = 0;
			for (size_t k = 0; k < nkey; k++)
				block[nb++] = k;
			do
				block[nb++] = c++;
			while (c < t->ncols && grid_width(width, block, nb) + 2 + width[c] <= TEXT_WIDTH);
			/* keep a pair (ANON_V ANON_R) in one block */
			while (c < t->ncols && nb > nkey + 1 && same_stem(t, c - 1, c))
				c--, nb--;
			if (c - nb + nkey > nkey) /* not the first block */
				putc('\n', out);
			render_block(rep, t, width, block, nb, out);
		}
		free(block);
	}
	free(natural);
	if (t->nrows == 0)
		fputs("(no rows)\n", out);
	free(width);
	free(all);
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
			size_t used = 6 + text_put_str(vma, out);
			static const enum map_col fields[] = { MAP_COL_FLAGS, MAP_COL_KIND, MAP_COL_UNIT };
			for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
				const char *s = render_map_str(t, r, fields[i]);
				if (*s) {
					fputs("  ", out);
					used += 2;
					/* the unit (a path) last: shortened to the line's room */
					used += fields[i] == MAP_COL_UNIT && used + TEXT_MIN_STR <= TEXT_WIDTH
							? text_put_elided(s, TEXT_WIDTH - used, out)
							: text_put_str(s, out);
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
		text_put_elided(render_map_str(t, first, MAP_COL_GROUP), TEXT_WIDTH - 2, out);
		fputs("]\n", out);
		render_text_map_rows(t, first, end, out);
	}
}

/* One line of text wrapped at spaces to TEXT_WIDTH columns, each piece after prefix. */
static void put_wrapped(const char *line, size_t len, const char *prefix, FILE *out)
{
	size_t room = TEXT_WIDTH - strlen(prefix);
	while (len) {
		size_t cut = len;
		if (text_put(line, len, NULL) > room) {
			/* the last space that leaves the piece within room, else the first one */
			size_t best = 0;
			for (size_t i = 1; i < len; i++)
				if (line[i] == ' ') {
					if (text_put(line, i, NULL) > room && best)
						break;
					best = i;
					if (text_put(line, i, NULL) > room)
						break;
				}
			if (best)
				cut = best;
		}
		fputs(prefix, out);
		text_put(line, cut, out);
		putc('\n', out);
		while (cut < len && line[cut] == ' ')
			cut++;
		line += cut, len -= cut;
	}
}

static void render_lines(const char *text, const char *prefix, FILE *out)
{
	const char *cursor = text, *line;
	size_t len;
	while (render_next_line(&cursor, &line, &len))
		put_wrapped(line, len, prefix, out);
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
identity_done:;
	bool sizes = false; /* the line only where a table shows sizes */
	for (size_t i = 0; i < r->ntables; i++)
		sizes |= *render_units_suffix(&(struct report){ .units = UNITS_KIB }, r->tables[i]) != 0;
	if (sizes)
		fprintf(out, "units:     %s\n", r->units == UNITS_KIB ? "KiB (exact)" :
			r->units == UNITS_PAGES ? "pages (exact, of the page size above)" :
			"B/KiB/MiB/GiB (1024-based, 3 digits; --units kib|pages: exact)");

	if (r->headline) {
		putc('\n', out);
		render_lines(r->headline, "", out);
	}
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
		w += text_put_str(render_units_suffix(r, t), out);
		putc('\n', out);
		for (size_t j = 0; j < w; j++)
			putc('=', out);
		putc('\n', out);
		render_lines(t->note, "", out);
		if (t->style == STYLE_MAP)
			render_map(t, out);
		else
			render_grid(r, t, out);
	}
	return render_finish(out);
}

size_t render_text_escaped(const char *s, FILE *out)
{
	return text_put_str(s, out);
}
