/* render_common.h - helpers shared by the renderers (analyzer/render_*.c), not part of the
 * table API: cell formatting, escaping for text and XML/HTML, UTF-8 checks, and the pieces
 * render_html reuses from the text and SVG renderers. */
#ifndef PAGESLEUTH_RENDER_COMMON_H
#define PAGESLEUTH_RENDER_COMMON_H

#include "table.h"

/* Big enough for any formatted number (a double with %.17g needs 24 bytes). */
#define RENDER_NUM_MAX 48

/* How a floating-point cell is written: for people (2 decimals) or exactly (shortest
 * string that reads back to the same double). */
enum render_float { FLOAT_HUMAN, FLOAT_EXACT };

/* Formats a numeric cell (U64 honouring col->format (hex), I64, F64) into buf and returns buf.
 * Returns NULL for CELL_NONE and CELL_STR: the caller handles those. */
const char *render_number(const struct column *col, const struct cell *c, char *buf,
			  enum render_float mode);
bool render_col_numeric(const struct column *col);
/* render_number for cell col of t, honouring the table's decimals and, for a size column
 * (COL_BYTES, COL_PAGES, COL_KIB), the report's units (R NULL: human) for FLOAT_HUMAN. */
const char *render_cell_number(const struct report *r, const struct table *t, size_t col,
			       const struct cell *c, char *buf, enum render_float mode);
/* A size cell in R's units (human: "0", "4.0 KiB", "-1.2 MiB"; kib and pages: the exact
 * number, two decimals when it is not whole), or NULL if col is no size column. */
const char *render_size(const struct report *r, const struct column *col, const struct cell *c,
			char *buf);
/* What the title of a table with size columns adds in R's units: ", in KiB", ", in pages", or ""
 * (human units: each cell says its unit). */
const char *render_units_suffix(const struct report *r, const struct table *t);
/* A size cell's value in bytes (the HTML tables' sort key). */
double render_size_bytes(const struct report *r, const struct column *col, const struct cell *c);

/* Length of the valid UTF-8 sequence at s (1..4; 1 for ASCII), or 0 if the bytes there are
 * not valid UTF-8 (stray continuation, overlong form, surrogate, above U+10FFFF, cut off). */
size_t utf8_valid_len(const unsigned char *s, size_t avail);

/* Writes s as XML/HTML character data or attribute value: & < > " ' escaped, control
 * characters shown as the text "\xNN" (XML 1.0 cannot carry them at all), bytes that are not
 * valid UTF-8 written as &#xNN; (read as Latin-1) so the document stays well-formed. */
void render_xml_escaped(const char *s, FILE *out);
/* The same for at most len bytes of s. */
void render_xml_escaped_n(const char *s, size_t len, FILE *out);

/* Iterates over the lines of a multi-line string (partial_why, warnings, notes): returns
 * false at the end; empty lines are skipped. */
bool render_next_line(const char **cursor, const char **line, size_t *len);

/* String cell value of a STYLE_MAP column, "" when the cell is not a string. */
const char *render_map_str(const struct table *t, size_t row, enum map_col col);
uint64_t render_map_u64(const struct table *t, size_t row, enum map_col col);
/* End of the run of rows starting at first that share first's MAP_COL_GROUP. */

/* Spaces before the cell (row, col) of a tree table (table.tree): two per level of depth, at
 * most 64; 0 for any other cell. */
size_t render_tree_indent(const struct table *t, size_t row, size_t col);
/* The deepest indentation it gives: deep recursion (thousands of frames) must not make
 * lines of megabytes. */
#define RENDER_TREE_MAX_INDENT (2 * 32)

/* What the identity block says of a file without snapshots (trace records only). */
#define RENDER_NO_SNAPSHOT "trace records only: the page analyses have nothing to show"

/* Flushes and turns a stream error into -1 with errno set (EIO if the stream did not say). */
int render_finish(FILE *out);

/* render_text.c: S as the text renderer writes strings (controls and bytes that are not
 * UTF-8 as \xNN); returns its width in characters. OUT NULL: only the width. */
size_t render_text_escaped(const char *s, FILE *out);
/* render_text.c: the text form of map rows [first, end) (one group), for render_html. */
void render_text_map_rows(const struct table *t, size_t first, size_t end, FILE *out);
/* render_svg.c: SVG of the rows in [first, end) that share first's MAP_COL_GROUP; standalone
 * adds the XML declaration (inline SVG in HTML must not have it). */
void render_svg_chart(const struct table *t, bool standalone, FILE *out);
void render_svg_lines(const struct table *t, bool standalone, FILE *out);
void render_svg_framemap(const struct table *t, bool standalone, FILE *out);
/* A STYLE_MAP group as one strip per VMA (the HTML report's resident maps), and its counts. */
void render_svg_map_strips(const struct table *t, size_t first, size_t end, uint32_t page_size,
			   bool standalone, FILE *out);
struct map_group_stats {
	uint64_t vmas, pages, resident, swapped; /* over the VMAs, summed */
	uint64_t union_pages, union_resident;   /* the "union" line of a unit (an_resmap.c) */
};
void render_map_group_stats(const struct table *t, size_t first, size_t end,
			    struct map_group_stats *st);
/* A table's change chart (struct delta_chart: diff). */
void render_svg_delta(const struct table *t, FILE *out);
/* The overview table (an_overview.c) as bars of PSS: processes and mapped objects. */
void render_svg_overview(const struct table *t, bool standalone, FILE *out);

#endif
