/* cmd_db.c - `pagesleuth db`: record files into a database of snapshots, and the questions a
 * team asks of many snapshots (ls, trend, compare, check). Exit status: 0 done (check: within
 * the limits), 1 check: a limit was exceeded, 2 usage, input or database error. */
#include "commands.h"
#include "db_query.h"
#include "atomic_file.h"
#include "xalloc.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TAGS 16

static void db_usage(FILE *out)
{
	fprintf(out,
		"usage: pagesleuth db import [--db DB] [-t KEY=VALUE]... [--pages] [-q] FILE...\n"
		"       pagesleuth db ls [--db DB] [-t KEY=VALUE]... [OUTPUT]\n"
		"       pagesleuth db trend [--db DB] [--by KEY [--time-order]] [SUBJECT] [--metric M]\n"
		"                           [-t KEY=VALUE]... [--include-partial] [OUTPUT]\n"
		"       pagesleuth db compare [--db DB] KEY=A KEY=B [SUBJECT] [--metric M] [OUTPUT]\n"
		"       pagesleuth db check [--db DB] --baseline KEY=VALUE [--candidate KEY=VALUE]\n"
		"                           --max-growth PCT[%%] [--min-growth SIZE] [SUBJECT | --each S]\n"
		"                           [--metric M] [OUTPUT]\n\n"
		"Snapshots in a database: SQLite (a file; the default) or PostgreSQL (--db\n"
		"postgresql://USER@HOST/DBNAME, or a libpq 'host=... dbname=...' string). DB is --db,\n"
		"else $PAGESLEUTH_DB, else ./pagesleuth.db. The schema is created and migrated on\n"
		"open; docs/database.md documents it for plain SQL.\n\n"
		"import   load record files (extract, the crash extension, snap, pagesleuth-live) in\n"
		"         one transaction: all or nothing. Tags (board, firmware, ...) come from -t,\n"
		"         the records' header tags=, and the header's arch, release and source. A\n"
		"         snapshot already in the database is skipped; a partial one is flagged.\n"
		"         --pages also stores every page run (large).\n"
		"ls       one row per snapshot; -t filters\n"
		"trend    a measure over snapshots: per value of tag --by (in version order, or in\n"
		"         capture order with --time-order; median, min, max, change), or per snapshot\n"
		"         in capture order; default: total user memory\n"
		"compare  the snapshots tagged A against those tagged B: the total, every process and\n"
		"         every unit (or only SUBJECT), median and spread per side\n"
		"check    a CI gate: exit 1, with one line per offender on stderr, when the candidate\n"
		"         (--candidate, else the newest snapshot outside the baseline) grew more than\n"
		"         --max-growth over the baseline's median (and at least --min-growth bytes,\n"
		"         with K/M/G suffixes)\n\n"
		"SUBJECT: --process COMM | --unit PATH|FILENAME | --kind KIND (default: the total);\n"
		"--each process|unit|kind checks every one. Measures (--metric):\n");
	db_measures_help(out);
	fprintf(out,
		"\nOUTPUT: -f text|csv|json (default text), -o FILE, --html FILE (with a chart).\n"
		"Partial snapshots are left out of trend, compare and check unless --include-partial.\n"
		"Exit status: 0 ok, 1 check failed, 2 usage, input or database error.\n");
}

enum { OPT_DB = 256, OPT_PAGES, OPT_BY, OPT_TIME_ORDER, OPT_PROCESS, OPT_UNIT, OPT_KIND,
       OPT_METRIC, OPT_PARTIAL, OPT_HTML, OPT_BASELINE, OPT_CANDIDATE, OPT_MAX_GROWTH,
       OPT_MIN_GROWTH, OPT_EACH };

static const struct option long_opts[] = {
	{ "db", required_argument, NULL, OPT_DB },
	{ "tag", required_argument, NULL, 't' },
	{ "pages", no_argument, NULL, OPT_PAGES },
	{ "quiet", no_argument, NULL, 'q' },
	{ "by", required_argument, NULL, OPT_BY },
	{ "time-order", no_argument, NULL, OPT_TIME_ORDER },
	{ "process", required_argument, NULL, OPT_PROCESS },
	{ "unit", required_argument, NULL, OPT_UNIT },
	{ "kind", required_argument, NULL, OPT_KIND },
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "include-partial", no_argument, NULL, OPT_PARTIAL },
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "html", required_argument, NULL, OPT_HTML },
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "candidate", required_argument, NULL, OPT_CANDIDATE },
	{ "max-growth", required_argument, NULL, OPT_MAX_GROWTH },
	{ "min-growth", required_argument, NULL, OPT_MIN_GROWTH },
	{ "each", required_argument, NULL, OPT_EACH },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct db_args {
	const char *sub, *db, *out, *html, *name, *each;
	struct db_tag tags[MAX_TAGS];
	size_t ntags;
	struct db_tag baseline, candidate;
	bool have_baseline, have_candidate, have_max_growth, subject_given;
	bool pages, quiet;
	double max_growth;
	uint64_t min_growth;
	struct db_series_spec spec;
	renderer render;
};

static int usage_error(const char *sub, const char *fmt, const char *arg)
{
	fprintf(stderr, "pagesleuth db%s%s: ", sub ? " " : "", sub ? sub : "");
	fprintf(stderr, fmt, arg);
	fputs(" (see 'pagesleuth db --help')\n", stderr);
	return 2;
}

static int parse_tag_arg(struct db_args *a, const char *arg, struct db_tag *out)
{
	char *err = NULL;
	if (db_parse_tag(arg, out, &err) < 0) {
		fprintf(stderr, "pagesleuth db %s: %s\n", a->sub, err);
		free(err);
		return -1;
	}
	return 0;
}

static int parse_percent(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (*end == '%')
		end++;
	if (errno || end == s || *end || !isfinite(v) || v < 0)
		return -1;
	*out = v;
	return 0;
}

static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || s[0] == '-')
		return -1;
	unsigned shift = 0;
	switch (*end) {
	case 'K': case 'k': shift = 10, end++; break;
	case 'M': case 'm': shift = 20, end++; break;
	case 'G': case 'g': shift = 30, end++; break;
	}
	if (*end == 'i' && shift)
		end++;
	if ((*end == 'B' || *end == 'b') && end[1] == 0)
		end++;
	if (*end || (shift && v > (UINT64_MAX >> shift)))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

static int set_subject(struct db_args *a, enum db_subject s, const char *name)
{
	if (a->subject_given)
		return usage_error(a->sub, "give one of --process, --unit, --kind, --each%s", "");
	a->subject_given = true;
	a->spec.subject = s;
	a->name = name;
	return 0;
}

static int parse_args(int argc, char **argv, struct db_args *a)
{
	a->render = render_text;
	a->db = getenv("PAGESLEUTH_DB");
	if (!a->db || !*a->db)
		a->db = "pagesleuth.db";
	int c;
	optind = 1;
	opterr = 0; /* our own messages, naming the subcommand */
	while ((c = getopt_long(argc, argv, ":t:qf:o:h", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_DB: a->db = optarg; break;
		case 't':
			if (a->ntags == MAX_TAGS)
				return usage_error(a->sub, "at most %s tags", "16");
			if (parse_tag_arg(a, optarg, &a->tags[a->ntags]) < 0)
				return 2;
			a->ntags++;
			break;
		case OPT_PAGES: a->pages = true; break;
		case 'q': a->quiet = true; break;
		case OPT_BY: a->spec.by = optarg; break;
		case OPT_TIME_ORDER: a->spec.by_time = true; break;
		case OPT_PROCESS: if (set_subject(a, DB_SUBJECT_PROCESS, optarg)) return 2; break;
		case OPT_UNIT: if (set_subject(a, DB_SUBJECT_UNIT, optarg)) return 2; break;
		case OPT_KIND: if (set_subject(a, DB_SUBJECT_KIND, optarg)) return 2; break;
		case OPT_EACH:
			if (strcmp(optarg, "process") && strcmp(optarg, "unit") && strcmp(optarg, "kind"))
				return usage_error(a->sub, "--each %s: one of process, unit, kind", optarg);
			if (set_subject(a, strcmp(optarg, "process") == 0 ? DB_SUBJECT_PROCESS :
					   strcmp(optarg, "unit") == 0 ? DB_SUBJECT_UNIT : DB_SUBJECT_KIND,
					NULL))
				return 2;
			a->each = optarg;
			break;
		case OPT_METRIC: a->spec.measure = optarg; break;
		case OPT_PARTIAL: a->spec.include_partial = true; break;
		case 'f':
			if (!(a->render = render_format("db", optarg)))
				return 2;
			break;
		case 'o': a->out = optarg; break;
		case OPT_HTML: a->html = optarg; break;
		case OPT_BASELINE:
			if (parse_tag_arg(a, optarg, &a->baseline) < 0)
				return 2;
			a->have_baseline = true;
			break;
		case OPT_CANDIDATE:
			if (parse_tag_arg(a, optarg, &a->candidate) < 0)
				return 2;
			a->have_candidate = true;
			break;
		case OPT_MAX_GROWTH:
			if (parse_percent(optarg, &a->max_growth) < 0)
				return usage_error(a->sub, "--max-growth %s: want a percentage such as 3%%",
						   optarg);
			a->have_max_growth = true;
			break;
		case OPT_MIN_GROWTH:
			if (parse_size(optarg, &a->min_growth) < 0)
				return usage_error(a->sub, "--min-growth %s: want a size such as 64K", optarg);
			break;
		case 'h': db_usage(stdout); return 3;
		case ':': return usage_error(a->sub, "%s needs a value", argv[optind - 1]);
		default:
			return usage_error(a->sub, "unknown option '%s'", argv[optind - 1]);
		}
	}
	a->spec.filters = a->tags;
	a->spec.nfilters = a->ntags;
	return 0;
}

static void free_args(struct db_args *a)
{
	for (size_t i = 0; i < a->ntags; i++)
		free(a->tags[i].key), free(a->tags[i].value);
	free(a->baseline.key), free(a->baseline.value);
	free(a->candidate.key), free(a->candidate.value);
}

static int open_db(const struct db_args *a, struct db *db, bool create)
{
	char *err = NULL;
	if (db_open(db, a->db, create, &err) < 0) {
		fprintf(stderr, "pagesleuth db %s: %s\n", a->sub, err);
		free(err);
		return -1;
	}
	return 0;
}

/* Outputs may not be the database or any input file (evidence), nor each other. */
static int check_outputs(const struct db_args *a)
{
	if (!db_target_is_postgresql(a->db))
		ps_input_note(a->db);
	const char *outs[] = { a->out, a->html };
	char *prog = xasprintf("pagesleuth db %s", a->sub);
	int rc = ps_outputs_check(prog, outs, 2);
	free(prog);
	return rc;
}

static int render_outputs(const struct db_args *a, const struct report *r)
{
	if (render_to_path(r, a->render, a->out) < 0)
		return -1;
	if (a->html && render_to_path(r, render_html, a->html) < 0)
		return -1;
	return 0;
}

static int cmd_import(int argc, char **argv, struct db_args *a)
{
	if (optind >= argc)
		return usage_error("import", "no record file given%s", "");
	if (a->out || a->html)
		return usage_error("import", "writes no report (-o, --html)%s", "");
	/* The database file must not be one of the record files it is loaded from. */
	for (int i = optind; i < argc; i++) {
		if (strcmp(argv[i], "-") == 0)
			return usage_error("import", "reads files, not standard input ('%s')", argv[i]);
		ps_input_note(argv[i]);
	}
	if (!db_target_is_postgresql(a->db)) {
		char *err = NULL;
		if (ps_output_check(a->db, &err) < 0) {
			fprintf(stderr, "pagesleuth db import: %s\n", err);
			free(err);
			return 2;
		}
	}
	struct db db;
	if (open_db(a, &db, true) < 0)
		return 2;
	struct db_import_options opt = { .tags = a->tags, .ntags = a->ntags, .pages = a->pages,
					 .quiet = a->quiet };
	struct db_import_stats st;
	char *err = NULL;
	int rc = db_import(&db, argv + optind, (size_t)(argc - optind), &opt, &st, &err);
	if (rc < 0) {
		fprintf(stderr, "pagesleuth db import: %s\npagesleuth db import: nothing imported (the "
			"database is as it was)\n", err);
		free(err);
	} else if (!a->quiet) {
		fprintf(stderr, "pagesleuth db import: %llu snapshots from %llu files into %s (%llu "
			"already there, %llu partial)\n", (unsigned long long)st.snapshots,
			(unsigned long long)st.files, db.target, (unsigned long long)st.duplicates,
			(unsigned long long)st.partial);
	}
	db_close(&db);
	return rc < 0 ? 2 : 0;
}

static int cmd_query(int argc, char **argv, struct db_args *a)
{
	const char *sub = a->sub;
	bool is_compare = strcmp(sub, "compare") == 0, is_check = strcmp(sub, "check") == 0;
	int npos = argc - optind;
	if (is_compare ? npos != 2 : npos != 0)
		return usage_error(sub, is_compare ? "want two tags KEY=A KEY=B%s"
						   : "unexpected argument%s", is_compare ? "" : "s");
	if (is_check && (!a->have_baseline || !a->have_max_growth))
		return usage_error(sub, "--baseline KEY=VALUE and --max-growth PCT are needed%s", "");
	if (a->each && !is_check)
		return usage_error(sub, "--each is for check%s", "");
	if (a->spec.by && strcmp(sub, "trend") != 0)
		return usage_error(sub, "--by is for trend%s", "");
	if (a->pages || a->quiet)
		return usage_error(sub, "--pages and -q are for import%s", "");
	struct db_tag ta = { 0 }, tb = { 0 };
	if (is_compare && (parse_tag_arg(a, argv[optind], &ta) < 0 ||
			   parse_tag_arg(a, argv[optind + 1], &tb) < 0)) {
		free(ta.key), free(ta.value);
		return 2;
	}
	int rc = 2;
	struct db db;
	struct report r = { 0 };
	char *err = NULL;
	if (check_outputs(a) < 0 || open_db(a, &db, false) < 0)
		goto out;
	int qrc;
	size_t offenders = 0;
	if (strcmp(sub, "ls") == 0) {
		qrc = db_ls(&db, a->tags, a->ntags, &r, &err);
	} else if (strcmp(sub, "trend") == 0) {
		qrc = db_trend(&db, &a->spec, a->name, &r, &err);
	} else if (is_compare) {
		/* the subject asked for, or the total, the processes and the units */
		struct db_series_spec specs[3] = { a->spec, a->spec, a->spec };
		size_t n = 1;
		if (!a->subject_given) {
			specs[0].subject = DB_SUBJECT_TOTAL;
			specs[1].subject = DB_SUBJECT_PROCESS, specs[1].measure = NULL;
			specs[2].subject = DB_SUBJECT_UNIT, specs[2].measure = NULL;
			n = 3;
		}
		qrc = db_compare(&db, specs, n, &ta, &tb, &r, &err);
	} else {
		struct db_check_spec c = { .series = a->spec, .name = a->name, .each = a->each != NULL,
					   .baseline = a->baseline,
					   .candidate = a->have_candidate ? &a->candidate : NULL,
					   .max_growth_pct = a->max_growth,
					   .min_growth_bytes = a->min_growth };
		qrc = db_check(&db, &c, &r, &offenders, &err);
	}
	if (qrc < 0) {
		fprintf(stderr, "pagesleuth db %s: %s\n", sub, err);
		free(err);
	} else if (render_outputs(a, &r) == 0) {
		rc = offenders ? 1 : 0;
		if (is_check && !offenders)
			fprintf(stderr, "pagesleuth db check: ok: %s\n", r.query);
	}
	db_close(&db);
out:
	report_free(&r);
	free(ta.key), free(ta.value), free(tb.key), free(tb.value);
	return rc;
}

int ps_cmd_db(int argc, char **argv)
{
	static const char *const subs[] = { "import", "ls", "trend", "compare", "check" };
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		db_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	struct db_args a = { .sub = NULL };
	for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
		if (strcmp(argv[1], subs[i]) == 0)
			a.sub = subs[i];
	if (!a.sub)
		return usage_error(NULL, "'%s' is not a db command (import, ls, trend, compare, check)",
				   argv[1]);
	int rc = parse_args(argc - 1, argv + 1, &a);
	if (rc == 0)
		rc = strcmp(a.sub, "import") == 0 ? cmd_import(argc - 1, argv + 1, &a)
						  : cmd_query(argc - 1, argv + 1, &a);
	else if (rc == 3)
		rc = 0; /* --help */
	free_args(&a);
	return rc;
}
