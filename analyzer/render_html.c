/* render_html.c - the report as ONE self-contained HTML5 page: inline CSS and SVG, no external
 * resources; a few lines of optional JavaScript sort a table when its header is clicked (the
 * page is complete without it).
 *
 * Layout: <h1> and the report identity (<dl>), a red PARTIAL banner listing the reasons when
 * any input was incomplete, the warnings in a <details>, a table of contents, then one
 * <section id="t-ID"> per table: title, note, the rows as an HTML table (numbers right-aligned,
 * empty cells "-"), and the chart SVG right under a table that has one. A STYLE_MAP table
 * becomes, per group, an <h3>, the map SVG, and the text form in a <details> block.
 * Everything is written in one pass over the rows, so the size and time are linear in the
 * report; all text is escaped (see render_xml_escaped). The page is also well-formed XML
 * (void elements self-closed, the script in CDATA), so `xmllint --noout` can check it.
 */
#include "render_common.h"
#include "xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char html_head[] =
	"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
	"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
	"<meta name=\"generator\" content=\"pagesleuth\"/>\n";

static const char html_style[] =
	"<style>\n"
	"body{font-family:sans-serif;margin:1.5em;color:#222;max-width:100%}\n"
	"h2{margin-top:1.8em;border-bottom:1px solid #ccc}\n"
	"dl.identity{display:grid;grid-template-columns:repeat(4,max-content minmax(6em,max-content));"
	"gap:.1em 1em;font-size:13px}\n"
	"dl.identity dt{font-weight:bold}dl.identity dd{margin:0;font-family:monospace}\n"
	".partial{border:3px solid #c00;background:#fee;padding:.6em 1em;margin:1em 0}\n"
	".partial strong{color:#c00;font-size:1.2em}\n"
	"nav ol{columns:3 22em;column-gap:3em;font-size:13px;padding-left:2.2em}nav li{break-inside:avoid}nav h2{font-size:1.1em}\n"
	".glance{margin:.8em 0}.glance p{margin:.3em 0}\n"
	".note{color:#555;font-style:italic;white-space:pre-line}\n"
	".scroll{overflow-x:auto;max-width:100%}\n"
	/* a long table scrolls in a box of its own, its header row on screen (sticky) */
	".tablebox{overflow:auto;max-width:100%;max-height:min(75vh,44em);display:inline-block}\n"
	"table.grid{border-collapse:collapse;font-size:13px}\n"
	"table.grid th,table.grid td{border:1px solid #ccc;padding:2px 6px;white-space:nowrap}\n"
	"table.grid th{background:#eee;position:sticky;top:0;cursor:pointer}\n"
	"table.grid th.n,table.grid td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
	"table.grid tbody tr:nth-child(even){background:#f8f8f8}\n"
	"pre{font-size:12px;line-height:1.15}\n"
	"span.fold{cursor:pointer;color:#555}tr.shut span.fold{color:#000}\n"
	"details.map{margin:.2em 0}details.map>summary{cursor:pointer}\n"
	"</style>\n";

/* Optional: click a header to sort by that column. Hex columns compare as hex numbers, sizes
 * shown as KiB/MiB/GiB by their exact value (data-v). */
static const char html_script[] =
	"<script>//<![CDATA[\n"
	"function psKey(tr,i,type){var c=tr.cells[i],d=c.dataset.v;if(d!==undefined)return parseFloat(d);\n"
	" var s=c.textContent.replace(/^[\\u25b8\\u25be] /,'');if(type==='str')return s;\n"
	" if(s==='-')return -Infinity;return type==='hex'?parseInt(s,16):parseFloat(s);}\n"
	/* a tree table (data-d = depth, rows in preorder) sorts each node's children, so it stays a
	 * tree; any other table sorts its rows */
	"function psTree(body){var root={k:[]},st=[root];\n"
	" Array.prototype.forEach.call(body.rows,function(tr){var d=+tr.dataset.d||0,n={tr:tr,k:[]};\n"
	"  while(st.length>d+1)st.pop();st[st.length-1].k.push(n);st.push(n);});return root;}\n"
	"document.querySelectorAll('table.grid th').forEach(function(th){\n"
	" th.title='click to sort';\n"
	" th.addEventListener('click',function(){\n"
	"  var table=th.closest('table'),body=table.tBodies[0],i=th.cellIndex,type=th.dataset.type;\n"
	"  var asc=th.dataset.dir!=='asc';\n"
	"  th.parentNode.querySelectorAll('th').forEach(function(h){delete h.dataset.dir;});\n"
	"  th.dataset.dir=asc?'asc':'desc';\n"
	"  function cmp(a,b){var c=type==='str'?(a[0]<b[0]?-1:a[0]>b[0]?1:0):a[0]-b[0];\n"
	"   if(c!==c)c=0;return asc?c:-c;}\n"
	"  var f=document.createDocumentFragment();\n"
	"  if(table.classList.contains('tree')){\n"
	"   (function walk(n){var ks=n.k.map(function(k){return [psKey(k.tr,i,type),k];});\n"
	"    ks.sort(cmp);ks.forEach(function(k){f.appendChild(k[1].tr);walk(k[1]);});})(psTree(body));\n"
	"  }else{\n"
	"   var rows=Array.prototype.map.call(body.rows,function(tr){return [psKey(tr,i,type),tr];});\n"
	"   rows.sort(cmp);rows.forEach(function(r){f.appendChild(r[1]);});}\n"
	"  body.appendChild(f);\n"
	" });\n"
	"});\n"
	/* a tree node's triangle folds its subtree; a folded node inside stays folded */
	"document.querySelectorAll('table.tree').forEach(function(tb){\n"
	" tb.addEventListener('click',function(e){var s=e.target.closest('span.fold');if(!s)return;\n"
	"  var tr=s.closest('tr'),d=+tr.dataset.d,shut=!tr.classList.contains('shut');\n"
	"  tr.classList.toggle('shut',shut);s.textContent=shut?'\\u25b8 ':'\\u25be ';\n"
	"  for(var n=tr.nextElementSibling;n&&+n.dataset.d>d;){n.hidden=shut;\n"
	"   if(!shut&&n.classList.contains('shut')){var dd=+n.dataset.d;n=n.nextElementSibling;\n"
	"    while(n&&+n.dataset.d>dd)n=n.nextElementSibling;continue;}\n"
	"   n=n.nextElementSibling;}});\n"
	"});\n"
	"//]]></script>\n";

/* Anchor of table i: "t-" and its id reduced to safe characters, made unique. */
static char *table_anchor(const struct report *r, size_t i)
{
	const char *id = r->tables[i]->id;
	size_t dups = 0;
	for (size_t j = 0; j < i; j++)
		dups += strcmp(r->tables[j]->id, id) == 0;
	char *anchor = dups ? xasprintf("t-%s-%zu", id, dups + 1) : xasprintf("t-%s", id);
	for (char *p = anchor + 2; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-", *p))
			*p = '_';
	return anchor;
}

static void put_lines_as_items(const char *text, FILE *out)
{
	const char *cursor = text, *line;
	size_t len;
	while (render_next_line(&cursor, &line, &len)) {
		fputs("<li>", out);
		render_xml_escaped_n(line, len, out);
		fputs("</li>\n", out);
	}
}

/* Escaped text that keeps its line breaks (render_xml_escaped shows '\n' as "\x0a"). */
static void put_escaped_keeping_lines(const char *text, size_t len, FILE *out)
{
	const char *end = text + len;
	while (text < end) {
		const char *nl = memchr(text, '\n', (size_t)(end - text));
		size_t n = nl ? (size_t)(nl - text) : (size_t)(end - text);
		render_xml_escaped_n(text, n, out);
		if (!nl)
			break;
		putc('\n', out);
		text = nl + 1;
	}
}

static size_t count_lines(const char *text)
{
	const char *cursor = text, *line;
	size_t len, n = 0;
	while (render_next_line(&cursor, &line, &len))
		n++;
	return n;
}

static void put_identity(const struct report *r, FILE *out)
{
	static const char *const labels[] = { "source", "arch", "release", "dump", "time", "excluded" };
	const char *values[] = { r->source, r->arch, r->release, r->dump, r->time, r->excluded };
	fputs("<dl class=\"identity\">\n", out);
	if (r->database) {
		static const char *const db_labels[] = { "database", "query", "time" };
		const char *db_values[] = { r->database, r->query, r->time };
		for (size_t i = 0; i < 3; i++) {
			fprintf(out, "<dt>%s</dt><dd>", db_labels[i]);
			render_xml_escaped(db_values[i] && *db_values[i] ? db_values[i] : "-", out);
			fputs("</dd>\n", out);
		}
		fputs("</dl>\n", out);
		return;
	}
	for (size_t i = 0; i < sizeof labels / sizeof *labels; i++) {
		fprintf(out, "<dt>%s</dt><dd>", labels[i]);
		render_xml_escaped(values[i] && *values[i] ? values[i] : "-", out);
		fputs("</dd>\n", out);
	}
	fprintf(out, "<dt>page size</dt><dd>%" PRIu32 "</dd>\n", r->page_size);
	fprintf(out, "<dt>units</dt><dd>%s</dd>\n", r->units == UNITS_KIB ? "KiB (exact)" :
		r->units == UNITS_PAGES ? "pages (exact)" : "B/KiB/MiB/GiB (1024-based, 3 digits)");
	if (r->snapshots)
		fprintf(out, "<dt>snapshot</dt><dd>%" PRIu64 " (%" PRIu64 " in input)</dd>\n</dl>\n",
			r->snapshot_seq, r->snapshots);
	else
		fputs("<dt>snapshot</dt><dd>none (" RENDER_NO_SNAPSHOT ")</dd>\n</dl>\n", out);
}

static uint64_t tree_depth(const struct table *t, size_t row)
{
	const struct cell *c = table_cell_c(t, row, t->tree_depth_col);
	return c->kind == CELL_U64 ? c->u : 0;
}

static void put_grid(const struct report *rep, const struct table *t, FILE *out)
{
	char buf[RENDER_NUM_MAX];
	bool tree = t->tree && t->tree_depth_col < t->ncols && t->tree_label_col < t->ncols;
	fprintf(out, "<div class=\"tablebox\"><table class=\"grid%s\">\n<thead><tr>", tree ? " tree" : "");
	for (size_t c = 0; c < t->ncols; c++) {
		const struct column *col = &t->cols[c];
		bool num = render_col_numeric(col);
		fprintf(out, "<th%s data-type=\"%s\">", num ? " class=\"n\"" : "",
			!num ? "str" : col->format == COL_HEX && col->kind == CELL_U64 ? "hex" : "num");
		render_xml_escaped(col->title ? col->title : col->name, out);
		fputs("</th>", out);
	}
	fputs("</tr></thead>\n<tbody>\n", out);
	for (size_t r = 0; r < t->nrows; r++) {
		uint64_t depth = tree ? tree_depth(t, r) : 0;
		bool parent = tree && r + 1 < t->nrows && tree_depth(t, r + 1) > depth;
		if (tree)
			fprintf(out, "<tr data-d=\"%" PRIu64 "\">", depth);
		else
			fputs("<tr>", out);
		for (size_t c = 0; c < t->ncols; c++) {
			const struct cell *cell = table_cell_c(t, r, c);
			size_t indent = render_tree_indent(t, r, c);
			if (indent)
				fprintf(out, "<td style=\"padding-left:%.1fem\">", 0.4 + 0.5 * (double)indent);
			else if (column_unit(&t->cols[c]) && (cell->kind == CELL_U64 || cell->kind == CELL_I64))
				fprintf(out, "<td class=\"n\" data-v=\"%.17g\">",
					render_size_bytes(rep, &t->cols[c], cell));
			else
				fputs(render_col_numeric(&t->cols[c]) ? "<td class=\"n\">" : "<td>", out);
			if (parent && c == t->tree_label_col)
				fputs("<span class=\"fold\" title=\"fold or unfold\">\xe2\x96\xbe </span>", out);
			if (cell->kind == CELL_STR)
				render_xml_escaped(cell->s, out);
			else if (cell->kind == CELL_NONE)
				putc('-', out);
			else
				fputs(render_cell_number(rep, t, c, cell, buf, FLOAT_HUMAN), out);
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table></div>\n", out);
	if (t->nrows == 0)
		fputs("<p>(no rows)</p>\n", out);
}

/* A resident map: per group (a process, a unit) a <details> whose summary line gives its
 * size, with one strip per VMA and the text form inside; the group with the most resident
 * pages is open. Closed groups keep the page short: 12 processes are 12 lines. */
static void put_map(const struct table *t, uint32_t page_size, FILE *out)
{
	if (t->nrows == 0)
		fputs("<p>(no rows)</p>\n", out);
	size_t open_first = SIZE_MAX;
	uint64_t most = 0;
	struct map_group_stats st;
	for (size_t first = 0; first < t->nrows; first = render_map_group_end(t, first)) {
		render_map_group_stats(t, first, render_map_group_end(t, first), &st);
		uint64_t resident = st.union_pages ? st.union_resident : st.resident;
		if (open_first == SIZE_MAX || resident > most)
			open_first = first, most = resident;
	}
	char b1[BYTES_HUMAN_MAX], b2[BYTES_HUMAN_MAX];
	for (size_t first = 0, end; first < t->nrows; first = end) {
		end = render_map_group_end(t, first);
		render_map_group_stats(t, first, end, &st);
		fprintf(out, "<details class=\"map\"%s><summary><strong>", first == open_first ? " open=\"open\"" : "");
		render_xml_escaped(render_map_str(t, first, MAP_COL_GROUP), out);
		if (st.union_pages) /* a unit: its file pages resident in any process, then the sum */
			fprintf(out, "</strong>: %s of its file pages resident (in any process), "
				"%s summed over its processes' %" PRIu64 " VMA%s",
				bytes_human(st.union_resident * page_size, b1),
				bytes_human(st.resident * page_size, b2), st.vmas, st.vmas == 1 ? "" : "s");
		else
			fprintf(out, "</strong>: %s resident of %s mapped in %" PRIu64 " VMA%s",
				bytes_human(st.resident * page_size, b1), bytes_human(st.pages * page_size, b2),
				st.vmas, st.vmas == 1 ? "" : "s");
		if (st.swapped)
			fprintf(out, ", %s swapped", bytes_human(st.swapped * page_size, b1));
		fputs("</summary>\n<div class=\"scroll\">", out);
		render_svg_map_strips(t, first, end, page_size, false, out);
		fputs("</div>\n<details><summary>text form (64 pages per line)</summary><pre>", out);
		/* The text renderer's form, escaped for HTML; one group at a time keeps memory small. */
		char *text = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&text, &len);
		if (!mem) {
			fputs("pagesleuth: out of memory\n", stderr);
			exit(3);
		}
		render_text_map_rows(t, first, end, mem);
		if (fclose(mem) != 0) {
			fputs("pagesleuth: out of memory\n", stderr);
			exit(3);
		}
		put_escaped_keeping_lines(text, len, out);
		free(text);
		fputs("</pre></details></details>\n", out);
	}
}

/* The first screen's answer for processes: their total and the processes and mapped objects
 * with the most PSS as bars, from the overview table (the detail stays in its section). */
static void put_glance(const struct report *r, FILE *out)
{
	const struct table *t = NULL;
	for (size_t i = 0; i < r->ntables && !t; i++)
		if (strcmp(r->tables[i]->id, "overview") == 0 && r->tables[i]->nrows)
			t = r->tables[i];
	if (!t)
		return;
	fputs("<div class=\"glance\">\n", out);
	/* the total row: the NAME says what it counts, then the sizes by column title */
	const struct cell *what = table_cell_c(t, 0, 0);
	if (what->kind == CELL_STR && what->s && strcmp(what->s, "total") == 0 && t->ncols > 2) {
		char buf[RENDER_NUM_MAX];
		fputs("<p><strong>", out);
		const struct cell *name = table_cell_c(t, 0, 1);
		render_xml_escaped(name->kind == CELL_STR && name->s ? name->s : "all processes", out);
		fputs(":", out);
		const char *sep = " ";
		for (size_t c = 2; c < t->ncols; c++) {
			const struct cell *cell = table_cell_c(t, 0, c);
			if (t->cols[c].format != COL_BYTES || cell->kind != CELL_U64)
				continue;
			fputs(sep, out);
			render_xml_escaped(t->cols[c].title ? t->cols[c].title : t->cols[c].name, out);
			putc(' ', out);
			fputs(render_cell_number(NULL, t, c, cell, buf, FLOAT_HUMAN), out); /* human: a sentence */
			sep = ", ";
		}
		fputs("</strong> (<a href=\"#t-overview\">the table</a>)</p>\n", out);
	}
	render_svg_overview(t, false, out);
	fputs("</div>\n", out);
}

int render_html(const struct report *r, FILE *out)
{
	fputs(html_head, out);
	fputs(r->database ? "<title>pagesleuth db" : r->diff_a ? "<title>pagesleuth diff" : "<title>pagesleuth report", out);
	if (r->database || (r->dump && *r->dump)) {
		fputs(": ", out);
		render_xml_escaped(r->database ? r->query : r->dump, out);
	}
	fputs(r->partial ? " (PARTIAL)</title>\n" : "</title>\n", out);
	fputs(html_style, out);
	fputs(r->database ? "</head>\n<body>\n<h1>pagesleuth db</h1>\n"
	      : r->diff_a ? "</head>\n<body>\n<h1>pagesleuth diff: what changed from A to B</h1>\n"
			  : "</head>\n<body>\n<h1>pagesleuth report</h1>\n", out);
	if (r->diff_a && r->diff_b) {
		fputs("<dl class=\"identity\"><dt>A</dt><dd>", out);
		render_xml_escaped(r->diff_a, out);
		fputs("</dd><dt>B</dt><dd>", out);
		render_xml_escaped(r->diff_b, out);
		fputs("</dd></dl>\n<p>B's identity:</p>\n", out);
	}
	put_identity(r, out);

	if (r->headline) {
		fputs("<p class=\"headline\"><strong>", out);
		render_xml_escaped(r->headline, out);
		fputs("</strong></p>\n", out);
	}
	if (r->partial) {
		fputs("<div class=\"partial\" role=\"alert\"><strong>PARTIAL:</strong> the input was "
		      "incomplete; the numbers below are NOT complete.\n<ul>\n", out);
		if (count_lines(r->partial_why) == 0)
			fputs("<li>(no reason recorded)</li>\n", out);
		put_lines_as_items(r->partial_why, out);
		fputs("</ul></div>\n", out);
	}
	put_glance(r, out); /* after the PARTIAL banner: the numbers are read knowing it */
	size_t nwarnings = count_lines(r->warnings);
	if (nwarnings) {
		fprintf(out, "<details class=\"warnings\"><summary>%zu warning%s</summary><ul>\n",
			nwarnings, nwarnings == 1 ? "" : "s");
		put_lines_as_items(r->warnings, out);
		fputs("</ul></details>\n", out);
	}

	char **anchors = xcalloc(r->ntables ? r->ntables : 1, sizeof *anchors);
	fputs("<nav><h2>Contents</h2><ol>\n", out);
	for (size_t i = 0; i < r->ntables; i++) {
		anchors[i] = table_anchor(r, i);
		fprintf(out, "<li><a href=\"#%s\">", anchors[i]);
		render_xml_escaped(r->tables[i]->title, out);
		fputs("</a></li>\n", out);
	}
	fputs("</ol></nav>\n", out);

	for (size_t i = 0; i < r->ntables; i++) {
		const struct table *t = r->tables[i];
		fprintf(out, "<section id=\"%s\">\n<h2>", anchors[i]);
		render_xml_escaped(t->title, out);
		fputs(render_units_suffix(r, t), out);
		fputs("</h2>\n", out);
		if (t->note) {
			fputs("<p class=\"note\">", out);
			put_escaped_keeping_lines(t->note, strlen(t->note), out);
			fputs("</p>\n", out);
		}
		if (t->style == STYLE_MAP) {
			put_map(t, r->page_size ? r->page_size : 4096, out);
		} else {
			put_grid(r, t, out);
			if (t->chart) {
				fputs("<div class=\"scroll chart\">", out);
				render_svg_chart(t, false, out);
				fputs("</div>\n", out);
			}
			if (t->lines) {
				fputs("<div class=\"scroll chart\">", out);
				render_svg_lines(t, false, out);
				fputs("</div>\n", out);
			}
			if (t->delta) {
				fputs("<div class=\"scroll chart\">", out);
				render_svg_delta(t, out);
				fputs("</div>\n", out);
			}
			if (t->fmap) {
				fputs("<div class=\"scroll chart\">", out);
				render_svg_framemap(t, false, out);
				fputs("</div>\n", out);
			}
		}
		fputs("</section>\n", out);
		free(anchors[i]);
	}
	free(anchors);
	fputs(html_script, out);
	fputs("</body>\n</html>\n", out);
	return render_finish(out);
}
