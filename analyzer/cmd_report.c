/* cmd_report.c - `pagesleuth report` and `pagesleuth diff`: load records, run the chosen
 * analyses, render. Exit status: 0 complete, 1 the input was partial (the output says so),
 * 2 usage or input error. */
#include "commands.h"
#include "model.h"
#include "atomic_file.h"
#include "xalloc.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum analysis_id { A_RAM, A_LOG, A_OVERVIEW, A_SUMMARY, A_RESMAP, A_UNITMAP, A_UNITS, A_MIXED, A_TOTAL, A_PAGES, A_PSS,
		   A_THRASH, A_WS, A_WS_SERIES, A_PEAKS, A_HOT, A_OBJ, A_ALLOC, A_WSS, A_COUNT };

/* What an analysis reads: a snapshot, or one kind of trace record. */
enum needs { N_SNAPSHOT, N_WS, N_PEAK, N_HOT, N_OBJ, N_ALLOC, N_WSS };

static const struct {
	const char *name;
	bool by_default, in_all;
	enum needs needs;
	const char *what;
} analyses[A_COUNT] = {
	[A_RAM] = { "ram", true, true, N_SNAPSHOT, "all of RAM by the kernel's own counters (dumps): the split of MemTotal, /proc/meminfo, buddyinfo" },
	[A_LOG] = { "log", true, true, N_SNAPSHOT, "the kernel log at the dump (log records): out-of-memory, panic and oops lines, then the last lines" },
	[A_OVERVIEW] = { "overview", true, true, N_SNAPSHOT, "the answer first: total memory, the processes and mapped objects with the most PSS (KiB/MiB/GiB)" },
	[A_SUMMARY] = { "summary", true, true, N_SNAPSHOT, "per process: stack, heap+bss, data, text, library data/text; virtual and resident" },
	[A_RESMAP] = { "resmap", false, true, N_SNAPSHOT, "per process resident maps, 64 pages per line" },
	[A_UNITMAP] = { "unitmap", false, true, N_SNAPSHOT, "resident maps per executable unit across processes" },
	[A_UNITS] = { "units", true, true, N_SNAPSHOT, "per executable unit: text, data, bss; virtual and distinct physical" },
	[A_MIXED] = { "mixed", true, true, N_SNAPSHOT, "VMAs with both single-use and shared pages, COW pages in file mappings" },
	[A_TOTAL] = { "total", true, true, N_SNAPSHOT, "physical pages used by user space, as one number" },
	[A_PAGES] = { "pages", false, false, N_SNAPSHOT, "the physical page dump (large: only when asked for)" },
	[A_PSS] = { "pss", true, true, N_SNAPSHOT, "PSS/USS per process (smem), per object (librank), unit cost split" },
	[A_THRASH] = { "thrash", true, true, N_SNAPSHOT, "thrashing candidates across snapshots of one stream" },
	[A_WS] = { "ws", true, true, N_WS, "trace: working set over time per thread and process (chart in HTML/SVG), marks" },
	[A_WS_SERIES] = { "ws-series", false, false, N_WS, "trace: every working-set sample (large: only when asked for)" },
	[A_PEAKS] = { "peaks", true, true, N_PEAK, "trace: working-set peaks with their call stacks" },
	[A_HOT] = { "hot", true, true, N_HOT, "trace: hot pages with the source line that touched them first" },
	[A_OBJ] = { "obj", true, true, N_OBJ, "trace: loads/stores per heap object and global variable (--sort)" },
	[A_ALLOC] = { "alloc", true, true, N_ALLOC, "trace: allocation groups and call-stack tree (cur, peak, max, total)" },
	[A_WSS] = { "wss", true, true, N_WSS, "live wss measurements: Est(s), RSS, PSS, Ref (chart for cumulative/profile)" },
};

/* Whether the loaded file has what analysis a reads. */
static bool has_input(const struct model *m, enum analysis_id a)
{
	const struct trace_model *tm = &m->trace;
	switch (analyses[a].needs) {
	case N_SNAPSHOT: return m->snapshots > 0;
	case N_WS: return tm->nws > 0 || (a == A_WS && tm->nmarks > 0);
	case N_PEAK: return tm->npeaks > 0;
	case N_HOT: return tm->nhot > 0;
	case N_OBJ: return tm->nobjs > 0;
	case N_ALLOC: return tm->nallocs > 0;
	case N_WSS: return tm->nwss > 0;
	}
	return false;
}


static void report_usage(FILE *out)
{
	fprintf(out,
		"usage: pagesleuth report [OPTIONS] RECORDS\n"
		"Analyse a record file (docs/record-format.md); '-' reads standard input; zstd- and\n"
		"gzip-compressed files (.zst, .gz) are read as they are.\n\n"
		"  -a, --analysis LIST  comma-separated analyses, or 'all' (everything but pages and\n"
		"                       ws-series); default: ram,log,overview,total,pss,units,summary,mixed,\n"
		"                       thrash for snapshots and ws,peaks,hot,obj,alloc,wss for trace\n"
		"                       records; the default and 'all' skip analyses whose records\n"
		"                       the file lacks, a named analysis says so in its table\n"
		"  -f, --format FMT     text (default), csv or json\n"
		"  -u, --units UNITS    sizes in text and HTML tables: human (default: B/KiB/MiB/GiB,\n"
		"                       3 digits), kib or pages (exact; a PSS that is no whole page\n"
		"                       has two decimals); CSV and JSON always hold exact numbers in\n"
		"                       the unit their column name ends with (_bytes, _kib, _pages)\n"
		"  -o, --output FILE    write there (atomically) instead of standard output\n"
		"      --html FILE      also write one self-contained HTML report with charts and maps\n"
		"                       (its analyses: the chosen ones plus, for snapshots, resmap\n"
		"                       and unitmap)\n"
		"      --svg DIR        also write each chart and resident map as an SVG file in DIR\n"
		"  -s, --snapshot N     analyse snapshot N of a multi-snapshot stream (default: last)\n"
		"      --sort COL[:asc|:desc]\n"
		"                       order of the obj table: default accesses, descending\n"
		"                       (numbers descending, text ascending); COL is one of\n"
		"                       %s\n"
		"  -h, --help           this text\n\nanalyses:\n", an_trace_obj_columns());
	for (int i = 0; i < A_COUNT; i++)
		fprintf(out, "  %-9s %s\n", analyses[i].name, analyses[i].what);
	fprintf(out, "\nExit status: 0 complete, 1 the records were partial (the output says why),\n"
		     "2 usage or input error.\n");
}

/* --units NAME into *u: 0, or -1 after a message naming CMD. */
static int parse_units(const char *cmd, const char *name, enum size_units *u)
{
	if (size_units_parse(name, u) == 0)
		return 0;
	fprintf(stderr, "pagesleuth %s: --units %s: not one of human, kib, pages\n", cmd, name);
	return -1;
}

/* on[i]: run analysis i; named[i]: asked for by name (run even without its records). */
static int parse_analyses(const char *list, bool on[A_COUNT], bool named[A_COUNT])
{
	memset(on, 0, A_COUNT * sizeof *on);
	memset(named, 0, A_COUNT * sizeof *named);
	char *copy = xstrdup(list), *save = NULL;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (strcmp(tok, "all") == 0) {
			for (int i = 0; i < A_COUNT; i++)
				on[i] |= analyses[i].in_all;
			continue;
		}
		int found = -1;
		for (int i = 0; i < A_COUNT; i++)
			if (strcmp(tok, analyses[i].name) == 0)
				found = i;
		if (found < 0) {
			fprintf(stderr, "pagesleuth report: unknown analysis '%s' (see --help)\n", tok);
			free(copy);
			return -1;
		}
		on[found] = named[found] = true;
	}
	free(copy);
	return 0;
}

/* A snapshot's seq number for --snapshot/--from/--to: 0, or -1 with a message. */
static int parse_snapshot_number(const char *cmd, const char *option, const char *arg,
				 int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(arg, &end, 10);
	if (errno || end == arg || *end || v < 0) {
		fprintf(stderr, "pagesleuth %s: %s needs a snapshot number >= 0, not '%s'\n", cmd,
			option, arg);
		return -1;
	}
	*out = v;
	return 0;
}

/* The page analyses on a file without snapshots: named, so they run, but their tables say
 * why they are empty. */
static void note_no_snapshot(const struct model *m, struct report *r, size_t first_table)
{
	if (m->snapshots)
		return;
	for (size_t i = first_table; i < r->ntables; i++)
		table_set_note(r->tables[i], "no snapshot in the file (%s)", "trace records only");
}

static int run_analyses(const struct model *m, const bool on[A_COUNT], const char *sort,
			struct report *r)
{
	size_t first_table = r->ntables;
	/* the answer first, then the detail */
	if (on[A_RAM])
		an_ram(m, r);
	if (on[A_LOG])
		an_log(m, r);
	if (on[A_OVERVIEW])
		an_overview(m, r);
	if (on[A_TOTAL])
		an_total(m, r);
	if (on[A_PSS])
		an_pss(m, r);
	if (on[A_UNITS])
		an_unit_totals(m, r);
	if (on[A_SUMMARY])
		an_summary(m, r);
	if (on[A_MIXED])
		an_mixed(m, r);
	if (on[A_THRASH])
		an_thrash(m, r);
	if (on[A_RESMAP])
		an_resmap(m, r);
	if (on[A_UNITMAP])
		an_unitmap(m, r);
	note_no_snapshot(m, r, first_table);
	if (on[A_WS])
		an_trace_ws(m, r);
	if (on[A_WS_SERIES])
		an_trace_ws_series(m, r);
	if (on[A_PEAKS])
		an_trace_peaks(m, r);
	if (on[A_HOT])
		an_trace_hot(m, r);
	if (on[A_OBJ] && an_trace_obj(m, sort, r) < 0)
		return -1;
	if (on[A_ALLOC])
		an_trace_alloc(m, r);
	if (on[A_WSS])
		an_wss(m, r);
	return 0;
}


/* One SVG per chart (ID.svg) and per map group (ID-N.svg, in table order) in DIR. */
static int write_svgs(const struct report *r, const char *dir)
{
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "pagesleuth: %s: cannot create: %s\n", dir, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < r->ntables; i++) {
		const struct table *t = r->tables[i];
		if (t->chart || t->lines || t->fmap) {
			char *path = xasprintf("%s/%s.svg", dir, t->id);
			struct atomic_file af;
			char *err = NULL;
			int rc = atomic_open(&af, path, &err);
			if (rc < 0) {
				fprintf(stderr, "pagesleuth: %s\n", err ? err : path);
				free(err);
			} else {
				errno = 0;
				rc = render_commit(&af, path, t->chart ? render_chart_svg(t, af.fp)
								      : t->fmap ? render_framemap_svg(t, af.fp)
										: render_lines_svg(t, af.fp));
			}
			free(path);
			if (rc < 0)
				return -1;
		}
		if (t->style != STYLE_MAP)
			continue;
		unsigned n = 0;
		for (size_t first = 0; first < t->nrows; first = render_map_group_end(t, first)) {
			char *path = xasprintf("%s/%s-%u.svg", dir, t->id, n++);
			struct atomic_file af;
			char *err = NULL;
			int rc = atomic_open(&af, path, &err);
			if (rc < 0) {
				fprintf(stderr, "pagesleuth: %s\n", err ? err : path);
				free(err);
			} else {
				errno = 0;
				rc = render_commit(&af, path, render_map_svg(t, first, r->page_size, af.fp));
			}
			free(path);
			if (rc < 0)
				return -1;
		}
	}
	return 0;
}

static void print_warnings(const struct report *r)
{
	if (r->warnings)
		fprintf(stderr, "%s", r->warnings);
}

int ps_cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "analysis", required_argument, NULL, 'a' }, { "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' }, { "html", required_argument, NULL, 'H' },
		{ "svg", required_argument, NULL, 'S' }, { "snapshot", required_argument, NULL, 's' },
		{ "sort", required_argument, NULL, 'O' }, { "units", required_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	bool on[A_COUNT], named[A_COUNT] = { 0 };
	for (int i = 0; i < A_COUNT; i++)
		on[i] = analyses[i].by_default;
	renderer render = render_text;
	const char *out_path = NULL, *html_path = NULL, *svg_dir = NULL, *sort = NULL;
	struct model_options opt = { .snapshot = -1 };
	enum size_units units = UNITS_HUMAN;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "a:f:o:s:u:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'u':
			if (parse_units("report", optarg, &units) < 0)
				return 2;
			break;
		case 'a':
			if (parse_analyses(optarg, on, named) < 0)
				return 2;
			break;
		case 'O': sort = optarg; break;
		case 'f':
			if (!(render = render_format("report", optarg)))
				return 2;
			break;
		case 'o': out_path = optarg; break;
		case 'H': html_path = optarg; break;
		case 'S': svg_dir = optarg; break;
		case 's':
			if (parse_snapshot_number("report", "--snapshot", optarg, &opt.snapshot) < 0)
				return 2;
			break;
		case 'h': report_usage(stdout); return 0;
		default: report_usage(stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		report_usage(stderr);
		return 2;
	}
	const char *input = argv[optind];
	ps_input_note(input); /* evidence first: no output may be the input */
	const char *outputs[] = { out_path, html_path };
	if (ps_outputs_check("pagesleuth report", outputs, 2) != 0)
		return 2;
	if (sort) { /* checked before reading: a typo should not cost a large file's load */
		struct model empty = { 0 };
		struct report probe = { 0 };
		int bad = an_trace_obj(&empty, sort, &probe);
		report_free(&probe);
		if (bad < 0) {
			fprintf(stderr, "pagesleuth report: --sort %s: no such obj column "
				"(columns: %s; optional :asc or :desc)\n", sort, an_trace_obj_columns());
			return 2;
		}
	}
	bool want_html = html_path != NULL || svg_dir != NULL;
	opt.keep_maps = on[A_RESMAP] || on[A_UNITMAP] || want_html;
	struct pages_dump *pages = NULL;
	if (on[A_PAGES]) {
		pages = an_pages_begin();
		opt.on_run = an_pages_on_run;
		opt.on_run_ctx = pages;
	}

	struct model m;
	char *err = NULL;
	if (model_load(&m, input, &opt, &err) < 0) {
		fprintf(stderr, "pagesleuth: %s\n", err ? err : "cannot read records");
		free(err);
		if (pages) {
			struct report tmp = { 0 };
			an_pages_finish(pages, &tmp);
			report_free(&tmp);
		}
		return 2;
	}
	/* The default and 'all' show what the file has: no empty page tables for a trace, no
	 * empty trace tables for a snapshot. */
	for (int i = 0; i < A_COUNT; i++)
		if (on[i] && !named[i] && !has_input(&m, (enum analysis_id)i))
			on[i] = false;
	struct report rep = { 0 };
	model_describe(&m, &rep);
	rep.units = units;
	if (pages)
		an_pages_finish(pages, &rep);
	run_analyses(&m, on, sort, &rep);
	print_warnings(&rep);

	int rc = render_to_path(&rep, render, out_path) < 0 ? 2 : 0;
	if (rc == 0 && want_html) {
		/* The HTML report and SVGs always carry the charts and both map views. */
		bool extra[A_COUNT] = { 0 };
		extra[A_RESMAP] = !on[A_RESMAP] && m.snapshots;
		extra[A_UNITMAP] = !on[A_UNITMAP] && m.snapshots;
		run_analyses(&m, extra, sort, &rep);
		if (html_path && render_to_path(&rep, render_html, html_path) < 0)
			rc = 2;
		if (rc == 0 && svg_dir && write_svgs(&rep, svg_dir) < 0)
			rc = 2;
	}
	if (rc == 0 && rep.partial) {
		fprintf(stderr, "pagesleuth: the records are partial:\n%s", rep.partial_why);
		rc = 1;
	}
	report_free(&rep);
	model_free(&m);
	return rc;
}

static void diff_usage(FILE *out)
{
	fprintf(out, "usage: pagesleuth diff [OPTIONS] A B\n"
		     "What grew and shrank from snapshot A to snapshot B: the total, per process\n"
		     "(matched by command and executable, so two boots' pids need not agree), per\n"
		     "VMA kind and per unit.\n"
		     "A and B are record files; each contributes its last snapshot unless --from/--to\n"
		     "choose another. Two rounds of one `snap --every` stream: diff --from 0 --to 3 F F\n\n"
		     "  -f, --format FMT   text (default), csv or json\n"
		     "  -u, --units UNITS  sizes in text and HTML: human (default), kib or pages, as\n"
		     "                     for report; CSV and JSON hold exact numbers (KiB, bytes)\n"
		     "  -o, --output FILE  write there (atomically)\n"
		     "      --html FILE    also write the diff as one self-contained HTML page\n"
		     "      --from N       snapshot N (its seq=) of A instead of the last\n"
		     "      --to N         snapshot N of B instead of the last\n"
		     "  -h, --help         this text\n");
}

int ps_cmd_diff(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' }, { "output", required_argument, NULL, 'o' },
		{ "from", required_argument, NULL, 'F' }, { "to", required_argument, NULL, 'T' },
		{ "html", required_argument, NULL, 'H' }, { "units", required_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	renderer render = render_text;
	const char *out_path = NULL, *html_path = NULL;
	struct model_options opt_a = { .snapshot = -1 }, opt_b = { .snapshot = -1 };
	enum size_units units = UNITS_HUMAN;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:o:u:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'u':
			if (parse_units("diff", optarg, &units) < 0)
				return 2;
			break;
		case 'f':
			if (!(render = render_format("diff", optarg)))
				return 2;
			break;
		case 'o': out_path = optarg; break;
		case 'H': html_path = optarg; break;
		case 'F':
			if (parse_snapshot_number("diff", "--from", optarg, &opt_a.snapshot) < 0)
				return 2;
			break;
		case 'T':
			if (parse_snapshot_number("diff", "--to", optarg, &opt_b.snapshot) < 0)
				return 2;
			break;
		case 'h': diff_usage(stdout); return 0;
		default: diff_usage(stderr); return 2;
		}
	}
	if (optind != argc - 2) {
		diff_usage(stderr);
		return 2;
	}
	ps_input_note(argv[optind]);
	ps_input_note(argv[optind + 1]);
	if (ps_outputs_check("pagesleuth diff", (const char *const[]){ out_path, html_path }, 2) != 0)
		return 2;
	struct model a, b;
	char *err = NULL;
	if (model_load(&a, argv[optind], &opt_a, &err) < 0) {
		fprintf(stderr, "pagesleuth: %s\n", err);
		free(err);
		return 2;
	}
	if (model_load(&b, argv[optind + 1], &opt_b, &err) < 0) {
		fprintf(stderr, "pagesleuth: %s\n", err);
		free(err);
		model_free(&a);
		return 2;
	}
	if (!a.snapshots || !b.snapshots) { /* trace files load without one */
		fprintf(stderr, "pagesleuth diff: %s: no snapshot in the file (trace records only)\n",
			argv[optind + (a.snapshots ? 1 : 0)]);
		model_free(&a);
		model_free(&b);
		return 2;
	}
	struct report rep = { 0 };
	model_describe(&b, &rep);
	rep.diff_a = xasprintf("%s: %s, snapshot %llu", argv[optind], a.dump ? a.dump : "-",
			       (unsigned long long)a.seq);
	rep.diff_b = xasprintf("%s: %s, snapshot %llu", argv[optind + 1], b.dump ? b.dump : "-",
			       (unsigned long long)b.seq);
	rep.units = units;
	if (a.warnings)
		xappendf(&rep.warnings, "%.*s", (int)strlen(a.warnings) - 1, a.warnings);
	if (!a.complete || a.partial_why)
		report_set_partial(&rep, "A (%s) is partial: %s", argv[optind],
				   a.partial_why ? a.partial_why : "incomplete");
	if (a.page_size != b.page_size)
		report_set_partial(&rep, "A and B have different page sizes (%u, %u)", a.page_size,
				   b.page_size);
	an_diff(&a, &b, &rep);
	print_warnings(&rep);
	int rc = render_to_path(&rep, render, out_path) < 0 ||
			 (html_path && render_to_path(&rep, render_html, html_path) < 0) ? 2 :
		 rep.partial ? 1 : 0;
	if (rep.partial && rc == 1)
		fprintf(stderr, "pagesleuth: the records are partial:\n%s", rep.partial_why);
	report_free(&rep);
	model_free(&a);
	model_free(&b);
	return rc;
}
