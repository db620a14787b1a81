/* render_json.c - the whole report as one JSON document (RFC 8259).
 *
 * {"format":"pagesleuth-report","version":1,"source":..,"arch":..,"release":..,"dump":..,
 *  "time":..,"excluded":..,"page_size":N,"snapshot":N,"snapshots":N,"partial":bool,
 *  "partial_why":[..],"warnings":[..],
 *  "tables":[{"id":..,"title":..,"note":..|null,"style":"grid"|"map",
 *             "columns":[{"name":..,"title":..,"type":"str|u64|i64|f64","hex":bool,
 *                         "unit":"bytes"|"pages"|"KiB"|null}],
 *             "chart":null|{"title":..,"unit":..,"label_col":N,
 *                           "series":[{"name":..,"virt_col":N,"phys_col":N}]},
 *             "rows":[[..],..]}]}
 * One key or row per line so the output diffs well. Identity strings that are not set are
 * null. Cells: CELL_NONE is null; integers are JSON numbers when |v| <= 2^53 (exact in every
 * JSON reader) and decimal strings above that, so no reader silently rounds an address; hex
 * columns are still numbers ("hex" tells a consumer how to show them); a size column's "unit"
 * says what its exact numbers count (report --units changes only text and HTML); f64 is the shortest
 * exact form, NaN and infinities are null. Strings: '"' and '\' escaped, control characters
 * as \u00XX, bytes that are not valid UTF-8 as \u00XX of the byte (read as Latin-1), so the
 * document is valid UTF-8 JSON whatever the inspected system's process names contain.
 */
#include "render_common.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#define JSON_EXACT_MAX (UINT64_C(1) << 53)

static void put_string_n(const char *s, size_t len, FILE *out)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	putc('"', out);
	while (p < end) {
		const unsigned char *run = p;
		size_t n;
		while (p < end && (n = utf8_valid_len(p, (size_t)(end - p))) != 0 &&
		       !(n == 1 && (*p < 0x20 || *p == '"' || *p == '\\' || *p == 0x7f)))
			p += n;
		if (p > run)
			fwrite(run, 1, (size_t)(p - run), out);
		if (p == end)
			break;
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else
			fprintf(out, "\\u%04x", *p);
		p++;
	}
	putc('"', out);
}

static void put_string(const char *s, FILE *out)
{
	if (s)
		put_string_n(s, strlen(s), out);
	else
		fputs("null", out);
}

static void put_lines(const char *text, FILE *out)
{
	const char *cursor = text, *line;
	size_t len;
	putc('[', out);
	for (bool first = true; render_next_line(&cursor, &line, &len); first = false) {
		if (!first)
			putc(',', out);
		put_string_n(line, len, out);
	}
	putc(']', out);
}

static void put_cell(const struct table *t, size_t row, size_t col, FILE *out)
{
	const struct cell *c = table_cell_c(t, row, col);
	char buf[RENDER_NUM_MAX];
	switch (c->kind) {
	case CELL_STR:
		put_string(c->s ? c->s : "", out);
		break;
	case CELL_U64:
		fprintf(out, c->u <= JSON_EXACT_MAX ? "%" PRIu64 : "\"%" PRIu64 "\"", c->u);
		break;
	case CELL_I64: {
		bool exact = c->i >= -(int64_t)JSON_EXACT_MAX && c->i <= (int64_t)JSON_EXACT_MAX;
		fprintf(out, exact ? "%" PRId64 : "\"%" PRId64 "\"", c->i);
		break;
	}
	case CELL_F64:
		if (isfinite(c->f))
			fputs(render_number(&t->cols[col], c, buf, FLOAT_EXACT), out);
		else
			fputs("null", out);
		break;
	default:
		fputs("null", out);
	}
}

static const char *type_name(enum cell_kind kind)
{
	switch (kind) {
	case CELL_U64: return "u64";
	case CELL_I64: return "i64";
	case CELL_F64: return "f64";
	default: return "str";
	}
}

static void put_chart(const struct chart *ch, FILE *out)
{
	if (!ch) {
		fputs("null", out);
		return;
	}
	fputs("{\"title\":", out);
	put_string(ch->title, out);
	fputs(",\"unit\":", out);
	put_string(ch->unit, out);
	fprintf(out, ",\"label_col\":%zu,\"series\":[", ch->label_col);
	size_t nseries = ch->nseries < 16 ? ch->nseries : 16;
	for (size_t i = 0; i < nseries; i++) {
		fputs(i ? ",{\"name\":" : "{\"name\":", out);
		put_string(ch->series[i].name, out);
		fprintf(out, ",\"virt_col\":%zu,\"phys_col\":%zu}", ch->series[i].virt_col,
			ch->series[i].phys_col);
	}
	fputs("]}", out);
}

static void put_table(const struct table *t, FILE *out)
{
	fputs("    {\n      \"id\": ", out);
	put_string(t->id, out);
	fputs(",\n      \"title\": ", out);
	put_string(t->title, out);
	fputs(",\n      \"note\": ", out);
	put_string(t->note, out);
	fprintf(out, ",\n      \"style\": \"%s\",\n      \"columns\": [",
		t->style == STYLE_MAP ? "map" : "grid");
	for (size_t c = 0; c < t->ncols; c++) {
		const struct column *col = &t->cols[c];
		fputs(c ? ",\n        {\"name\": " : "\n        {\"name\": ", out);
		put_string(col->name ? col->name : "", out);
		fputs(", \"title\": ", out);
		put_string(col->title ? col->title : "", out);
		fprintf(out, ", \"type\": \"%s\", \"hex\": %s, \"unit\": ", type_name(col->kind),
			col->format == COL_HEX ? "true" : "false");
		if (column_unit(col))
			put_string(column_unit(col), out);
		else
			fputs("null", out);
		putc('}', out);
	}
	fputs(t->ncols ? "\n      ],\n      \"chart\": " : "],\n      \"chart\": ", out);
	put_chart(t->chart, out);
	fputs(",\n      \"rows\": [", out);
	for (size_t r = 0; r < t->nrows; r++) {
		fputs(r ? ",\n        [" : "\n        [", out);
		for (size_t c = 0; c < t->ncols; c++) {
			if (c)
				fputs(", ", out);
			put_cell(t, r, c, out);
		}
		putc(']', out);
	}
	fputs(t->nrows ? "\n      ]\n    }" : "]\n    }", out);
}

int render_json(const struct report *r, FILE *out)
{
	fputs("{\n  \"format\": \"pagesleuth-report\",\n  \"version\": 1", out);
	static const char *const keys[] = { "source", "arch", "release", "dump", "time", "excluded" };
	const char *values[] = { r->source, r->arch, r->release, r->dump, r->time, r->excluded };
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
		fprintf(out, ",\n  \"%s\": ", keys[i]);
		put_string(values[i], out);
	}
	if (r->database) {
		fputs(",\n  \"database\": ", out);
		put_string(r->database, out);
		fputs(",\n  \"query\": ", out);
		put_string(r->query, out);
	}
	fprintf(out, ",\n  \"page_size\": %" PRIu32 ",\n  \"snapshot\": %" PRIu64
		",\n  \"snapshots\": %" PRIu64 ",\n  \"partial\": %s,\n  \"partial_why\": ",
		r->page_size, r->snapshot_seq, r->snapshots, r->partial ? "true" : "false");
	put_lines(r->partial_why, out);
	fputs(",\n  \"warnings\": ", out);
	put_lines(r->warnings, out);
	fputs(",\n  \"tables\": [", out);
	for (size_t i = 0; i < r->ntables; i++) {
		fputs(i ? ",\n" : "\n", out);
		put_table(r->tables[i], out);
	}
	fputs(r->ntables ? "\n  ]\n}\n" : "]\n}\n", out);
	return render_finish(out);
}
