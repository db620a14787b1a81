/* db.h - snapshots in a database: one schema and one set of queries over two backends,
 * SQLite (embedded, one file) and PostgreSQL (libpq, for a team or a fleet).
 *
 * Data flows one way: record files -> analyzer model -> rows (db/import.c) -> queries
 * (db/query.c) -> report tables -> the analyzer's renderers. The SQL is written once, in the
 * subset both engines run identically (INSERT ... ON CONFLICT DO NOTHING RETURNING, $N
 * parameters, integer arithmetic in BIGINT); a backend (db/backend_*.c) supplies only the
 * connection, text-in/text-out statements, bulk loading and two dialect strings. Medians and
 * spreads are computed in C from the per-snapshot values, so both backends give the same
 * numbers by construction. docs/database.md documents the schema for plain SQL access.
 *
 * Errors are values: every function returning int gives 0 or -1 with *err set to a malloc'd
 * one-line message.
 */
#ifndef PAGESLEUTH_DB_H
#define PAGESLEUTH_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct db;

/* One result row: NCOLS values as text, NULL for SQL NULL. Return non-zero to stop. */
typedef int (*db_row_fn)(void *ctx, int ncols, const char *const *values);

struct db_backend {
	const char *name; /* "sqlite", "postgresql" */
	/* The column type of a generated primary key. */
	const char *id_column;
	int (*open)(struct db *db, const char *target, char **err);
	void (*close)(struct db *db);
	/* Statements without parameters or results (DDL, COMMIT, ...). */
	int (*exec)(struct db *db, const char *sql, char **err);
	/* A statement with NPARAMS text parameters $1..$N (NULL = SQL NULL), FN per row. */
	int (*query)(struct db *db, const char *sql, int nparams, const char *const *params,
		     db_row_fn fn, void *ctx, char **err);
	/* Start the one writing transaction: writers queue here, so two importers never
	 * interleave (SQLite: BEGIN IMMEDIATE; PostgreSQL: BEGIN and a transaction-level
	 * advisory lock), which is what makes concurrent imports free of duplicates and of
	 * deadlocks. */
	int (*begin_write)(struct db *db, char **err);
	/* Bulk loading of one table: COPY on PostgreSQL, a prepared INSERT on SQLite. */
	int (*load_begin)(struct db *db, const char *table, int ncols, const char *const *cols,
			  char **err);
	int (*load_row)(struct db *db, const char *const *values, char **err);
	int (*load_end)(struct db *db, char **err);
	/* Whether a table exists. */
	int (*table_exists)(struct db *db, const char *table, bool *exists, char **err);
};

struct db {
	const struct db_backend *be;
	char *target; /* what --db named, for messages (a password in a URL is not kept) */
	void *conn;   /* the backend's */
	void *load;   /* the backend's state between load_begin and load_end */
};

extern const struct db_backend db_backend_sqlite, db_backend_postgresql;

/* The schema version this program writes; db_open migrates older databases to it and
 * refuses newer ones. PAGESLEUTH_DB_SCHEMA=N (tests only) stops migrating at version N. */
#define DB_SCHEMA_VERSION 2

/* Open TARGET ("postgresql://..." or "postgres://..." or a libpq "host=... dbname=..."
 * string: PostgreSQL; anything else: an SQLite file, created if missing) and bring its
 * schema up to date (CREATE is false: a missing database or schema is an error, for the
 * query commands). */
int db_open(struct db *db, const char *target, bool create, char **err);
void db_close(struct db *db);
/* The schema version found in the database (after db_open: the current one). */
int db_schema_version(struct db *db, int *version, char **err);

int db_exec(struct db *db, const char *sql, char **err);
int db_query(struct db *db, const char *sql, int nparams, const char *const *params,
	     db_row_fn fn, void *ctx, char **err);
/* The first column of the first row as text (NULL if no row or SQL NULL), malloc'd. */
int db_query_value(struct db *db, const char *sql, int nparams, const char *const *params,
		   char **value, char **err);

/* Whether TARGET names a PostgreSQL database. */
bool db_target_is_postgresql(const char *target);

/* ---- import (db/import.c) ------------------------------------------------------------- */

struct db_tag {
	char *key, *value;
};

struct db_import_options {
	struct db_tag *tags; /* from the command line; they override the records' own */
	size_t ntags;
	bool pages;          /* also store every page run (large) */
	bool quiet;
};

struct db_import_stats {
	uint64_t files, snapshots, duplicates, partial, rows;
};

/* Import record FILES in one transaction: all of them or, on any error, none. A snapshot
 * already in the database (same identity) is skipped and counted as a duplicate. */
int db_import(struct db *db, char *const *files, size_t nfiles,
	      const struct db_import_options *opt, struct db_import_stats *stats, char **err);

/* Parse "KEY=VALUE" into *tag (malloc'd copies); -1 with *err if malformed (the rules of
 * ps_tag_check: the same as the records' header tags=). */
int db_parse_tag(const char *text, struct db_tag *tag, char **err);
void db_tags_free(struct db_tag *tags, size_t n);

#endif
