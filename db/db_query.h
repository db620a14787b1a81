/* db_query.h - the questions `pagesleuth db` answers (db/query.c), as report tables the
 * analyzer's renderers draw (text, CSV, JSON, HTML). */
#ifndef PAGESLEUTH_DB_QUERY_H
#define PAGESLEUTH_DB_QUERY_H

#include "db.h"
#include "table.h"

#include <stdio.h>

/* What a number is about. */
enum db_subject {
	DB_SUBJECT_TOTAL,   /* the whole snapshot */
	DB_SUBJECT_PROCESS, /* processes of one name (comm), summed per snapshot */
	DB_SUBJECT_UNIT,    /* an executable unit or mapped file, by path or file name */
	DB_SUBJECT_KIND,    /* a VMA kind (heap, stack, libtext, ...) over all processes */
};

struct db_series_spec {
	enum db_subject subject;
	const char *measure;          /* NULL: the subject's default (db_default_measure) */
	const char *by;               /* group by this tag's value; NULL: per snapshot */
	bool by_time;                 /* groups in capture-time order, not version order */
	const struct db_tag *filters; /* only snapshots carrying all of these tags */
	size_t nfilters;
	bool include_partial;
};

const char *db_subject_name(enum db_subject s);
const char *db_default_measure(enum db_subject s);
/* The measures of every subject, for --help. */
void db_measures_help(FILE *out);

/* One row per snapshot (id, capture time, source, release, tags, processes, user memory,
 * complete or partial). */
int db_ls(struct db *db, const struct db_tag *filters, size_t nfilters, struct report *r,
	  char **err);
/* The measure of NAME (NULL for the total) per tag value (median, min, max, change) or per
 * snapshot, with a line chart. */
int db_trend(struct db *db, const struct db_series_spec *spec, const char *name,
	     struct report *r, char **err);
/* For each of SPECS (a subject and measure each), every name's statistics over the
 * snapshots tagged A and over those tagged B, largest change first. */
int db_compare(struct db *db, const struct db_series_spec *specs, size_t nspecs,
	       const struct db_tag *a, const struct db_tag *b, struct report *r, char **err);

struct db_check_spec {
	struct db_series_spec series;
	const char *name;             /* one process/unit/kind; NULL with each or the total */
	bool each;                    /* every name of the subject */
	struct db_tag baseline;
	const struct db_tag *candidate; /* NULL: the newest complete snapshot outside the baseline */
	double max_growth_pct;
	uint64_t min_growth_bytes;    /* growth smaller than this never fails */
};

/* Compare the candidate's median with the baseline's: *offenders counts the names whose
 * growth exceeds both limits; each gets one line on stderr. */
int db_check(struct db *db, const struct db_check_spec *c, struct report *r, size_t *offenders,
	     char **err);

#endif
