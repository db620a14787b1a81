/* backend_pg.c - PostgreSQL through libpq, for a team's or a fleet's database.
 *
 * Statements go through PQexecParams with text parameters and text results (the same text
 * the SQLite backend returns); rows are bulk-loaded with COPY ... FROM STDIN, one round trip
 * per table instead of one per row. Importers serialise on a transaction-level advisory lock,
 * taken before the first row is written: two importers holding different uncommitted
 * snapshots would otherwise wait on each other's unique keys and one would be killed as a
 * deadlock.
 */
#include "db.h"
#include "errmsg.h"
#include "xalloc.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The advisory lock every pagesleuth writer takes ("pgsl" in ASCII). */
#define PG_WRITER_LOCK "1885827948"

/* libpq's messages end in a newline (and may hold several lines): keep the first line. */
static int fail_msg(struct db *db, char **err, const char *what, const char *msg)
{
	size_t n = strcspn(msg ? msg : "", "\n");
	ps_set_err(err, "%s: %s: %.*s", db->target, what, (int)n, msg ? msg : "");
	return -1;
}

static int pg_open(struct db *db, const char *target, char **err)
{
	PGconn *c = PQconnectdb(target);
	if (!c || PQstatus(c) != CONNECTION_OK) {
		fail_msg(db, err, "cannot connect", c ? PQerrorMessage(c) : "out of memory");
		PQfinish(c);
		return -1;
	}
	db->conn = c;
	/* Notices (e.g. "relation already exists, skipping") are not for the user. */
	PQsetNoticeProcessor(c, NULL, NULL);
	PGresult *r = PQexec(c, "SET client_min_messages = warning");
	PQclear(r);
	return 0;
}

static void pg_close(struct db *db)
{
	PQfinish(db->conn);
	db->conn = NULL;
}

static int check(struct db *db, PGresult *r, ExecStatusType want, const char *what, char **err)
{
	if (r && PQresultStatus(r) == want)
		return 0;
	fail_msg(db, err, what, r ? PQresultErrorMessage(r) : PQerrorMessage(db->conn));
	PQclear(r);
	return -1;
}

static int pg_exec(struct db *db, const char *sql, char **err)
{
	PGresult *r = PQexec(db->conn, sql);
	if (check(db, r, PGRES_COMMAND_OK, "statement", err) < 0)
		return -1;
	PQclear(r);
	return 0;
}

static int pg_query(struct db *db, const char *sql, int nparams, const char *const *params,
		    db_row_fn fn, void *ctx, char **err)
{
	PGresult *r = PQexecParams(db->conn, sql, nparams, NULL, params, NULL, NULL, 0);
	if (r && PQresultStatus(r) == PGRES_COMMAND_OK) {
		PQclear(r);
		return 0;
	}
	if (check(db, r, PGRES_TUPLES_OK, "query", err) < 0)
		return -1;
	int ncols = PQnfields(r), nrows = PQntuples(r);
	const char **vals = xcalloc((size_t)ncols + 1, sizeof *vals);
	for (int row = 0; row < nrows; row++) {
		for (int i = 0; i < ncols; i++)
			vals[i] = PQgetisnull(r, row, i) ? NULL : PQgetvalue(r, row, i);
		if (fn && fn(ctx, ncols, vals))
			break;
	}
	free(vals);
	PQclear(r);
	return 0;
}

static int pg_begin_write(struct db *db, char **err)
{
	if (pg_exec(db, "BEGIN", err) < 0)
		return -1;
	return pg_query(db, "SELECT pg_advisory_xact_lock(" PG_WRITER_LOCK ")", 0, NULL, NULL, NULL,
			err);
}

static int pg_load_begin(struct db *db, const char *table, int ncols, const char *const *cols,
			 char **err)
{
	char *sql = xasprintf("COPY %s (", table);
	for (int i = 0; i < ncols; i++) {
		char *next = xasprintf("%s%s%s", sql, i ? ", " : "", cols[i]);
		free(sql);
		sql = next;
	}
	char *next = xasprintf("%s) FROM STDIN", sql);
	free(sql);
	PGresult *r = PQexec(db->conn, next);
	free(next);
	if (check(db, r, PGRES_COPY_IN, table, err) < 0)
		return -1;
	PQclear(r);
	db->load = (void *)(intptr_t)ncols;
	return 0;
}

/* COPY's text format: tab-separated, \N for NULL, backslash escapes inside values. */
struct line_buf {
	char *s;
	size_t len, cap;
};

static void put(struct line_buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
}

static void put_escaped(struct line_buf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '\\': put(b, "\\\\", 2); break;
		case '\t': put(b, "\\t", 2); break;
		case '\n': put(b, "\\n", 2); break;
		case '\r': put(b, "\\r", 2); break;
		default: put(b, s, 1);
		}
	}
}

static int pg_load_row(struct db *db, const char *const *values, char **err)
{
	int ncols = (int)(intptr_t)db->load;
	struct line_buf b = { 0 };
	for (int i = 0; i < ncols; i++) {
		if (i)
			put(&b, "\t", 1);
		if (values[i])
			put_escaped(&b, values[i]);
		else
			put(&b, "\\N", 2);
	}
	put(&b, "\n", 1);
	int rc = PQputCopyData(db->conn, b.s, (int)b.len);
	free(b.s);
	if (rc != 1)
		return fail_msg(db, err, "COPY", PQerrorMessage(db->conn));
	return 0;
}

static int pg_load_end(struct db *db, char **err)
{
	db->load = NULL;
	if (PQputCopyEnd(db->conn, NULL) != 1)
		return fail_msg(db, err, "COPY", PQerrorMessage(db->conn));
	PGresult *r = PQgetResult(db->conn);
	int rc = check(db, r, PGRES_COMMAND_OK, "COPY", err);
	if (rc == 0)
		PQclear(r);
	/* Drain: libpq wants PQgetResult until NULL. */
	while ((r = PQgetResult(db->conn)))
		PQclear(r);
	return rc;
}

/* A scan of the catalog with the statement's snapshot, not to_regclass(): that goes through
 * the backend's catalog cache, which can still hold "no such table" from before another
 * writer created it (an advisory lock, unlike a table lock, does not refresh the cache), and
 * two importers opening a new database at once would both create the schema. */
static int pg_table_exists(struct db *db, const char *table, bool *exists, char **err)
{
	char *v = NULL;
	const char *p[] = { table };
	if (db_query_value(db, "SELECT count(*) FROM pg_catalog.pg_tables WHERE tablename = $1 "
			   "AND schemaname = current_schema()", 1, p, &v, err) < 0)
		return -1;
	*exists = v && strcmp(v, "0") != 0;
	free(v);
	return 0;
}

const struct db_backend db_backend_postgresql = {
	.name = "postgresql",
	.id_column = "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
	.open = pg_open,
	.close = pg_close,
	.exec = pg_exec,
	.query = pg_query,
	.begin_write = pg_begin_write,
	.load_begin = pg_load_begin,
	.load_row = pg_load_row,
	.load_end = pg_load_end,
	.table_exists = pg_table_exists,
};
