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

#include <dlfcn.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libpq is opened when a postgresql:// target is first used, not linked: with its TLS,
 * Kerberos and LDAP libraries it brought 22 of the binary's 41 shared objects, and loading them
 * cost every command ~9 ms of CPU at start-up (perf stat, an empty main linked both ways),
 * a tenth of extract's fixed cost on the bench kdump, for a backend most runs never touch. */
#define LIBPQ_FUNCTIONS(X)                                                                     \
	X(PQclear) X(PQconnectdb) X(PQerrorMessage) X(PQexec) X(PQexecParams) X(PQfinish)      \
	X(PQgetResult) X(PQgetisnull) X(PQgetvalue) X(PQnfields) X(PQntuples) X(PQputCopyData) \
	X(PQputCopyEnd) X(PQresultErrorMessage) X(PQresultStatus) X(PQsetNoticeProcessor)      \
	X(PQstatus)
#define LIBPQ_POINTER(f) __typeof__(f) *f;
static struct {
	LIBPQ_FUNCTIONS(LIBPQ_POINTER)
} libpq;

/* Load libpq.so.5 (Debian's libpq5) once: 0, or -1 with *err naming what is missing. */
static int libpq_load(const char *target, char **err)
{
	static void *handle;
	if (handle)
		return 0;
	void *h = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		ps_set_err(err, "%s: the PostgreSQL backend needs libpq.so.5 (Debian: libpq5): %s", target,
			   dlerror());
		return -1;
	}
#define LIBPQ_RESOLVE(f)                                                                         \
	if (!(*(void **)&libpq.f = dlsym(h, #f))) {                                                \
		ps_set_err(err, "%s: libpq.so.5 has no %s", target, #f);                          \
		dlclose(h);                                                                        \
		return -1;                                                                         \
	}
	LIBPQ_FUNCTIONS(LIBPQ_RESOLVE)
#undef LIBPQ_RESOLVE
	handle = h;
	return 0;
}

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
	if (libpq_load(target, err) < 0)
		return -1;
	PGconn *c = libpq.PQconnectdb(target);
	if (!c || libpq.PQstatus(c) != CONNECTION_OK) {
		fail_msg(db, err, "cannot connect", c ? libpq.PQerrorMessage(c) : "out of memory");
		libpq.PQfinish(c);
		return -1;
	}
	db->conn = c;
	/* Notices (e.g. "relation already exists, skipping") are not for the user. */
	libpq.PQsetNoticeProcessor(c, NULL, NULL);
	PGresult *r = libpq.PQexec(c, "SET client_min_messages = warning");
	libpq.PQclear(r);
	return 0;
}

static void pg_close(struct db *db)
{
	libpq.PQfinish(db->conn);
	db->conn = NULL;
}

static int check(struct db *db, PGresult *r, ExecStatusType want, const char *what, char **err)
{
	if (r && libpq.PQresultStatus(r) == want)
		return 0;
	fail_msg(db, err, what, r ? libpq.PQresultErrorMessage(r) : libpq.PQerrorMessage(db->conn));
	libpq.PQclear(r);
	return -1;
}

static int pg_exec(struct db *db, const char *sql, char **err)
{
	PGresult *r = libpq.PQexec(db->conn, sql);
	if (check(db, r, PGRES_COMMAND_OK, "statement", err) < 0)
		return -1;
	libpq.PQclear(r);
	return 0;
}

static int pg_query(struct db *db, const char *sql, int nparams, const char *const *params,
		    db_row_fn fn, void *ctx, char **err)
{
	PGresult *r = libpq.PQexecParams(db->conn, sql, nparams, NULL, params, NULL, NULL, 0);
	if (r && libpq.PQresultStatus(r) == PGRES_COMMAND_OK) {
		libpq.PQclear(r);
		return 0;
	}
	if (check(db, r, PGRES_TUPLES_OK, "query", err) < 0)
		return -1;
	int ncols = libpq.PQnfields(r), nrows = libpq.PQntuples(r);
	const char **vals = xcalloc((size_t)ncols + 1, sizeof *vals);
	for (int row = 0; row < nrows; row++) {
		for (int i = 0; i < ncols; i++)
			vals[i] = libpq.PQgetisnull(r, row, i) ? NULL : libpq.PQgetvalue(r, row, i);
		if (fn && fn(ctx, ncols, vals))
			break;
	}
	free(vals);
	libpq.PQclear(r);
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
	PGresult *r = libpq.PQexec(db->conn, next);
	free(next);
	if (check(db, r, PGRES_COPY_IN, table, err) < 0)
		return -1;
	libpq.PQclear(r);
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
	int rc = libpq.PQputCopyData(db->conn, b.s, (int)b.len);
	free(b.s);
	if (rc != 1)
		return fail_msg(db, err, "COPY", libpq.PQerrorMessage(db->conn));
	return 0;
}

static int pg_load_end(struct db *db, char **err)
{
	db->load = NULL;
	if (libpq.PQputCopyEnd(db->conn, NULL) != 1)
		return fail_msg(db, err, "COPY", libpq.PQerrorMessage(db->conn));
	PGresult *r = libpq.PQgetResult(db->conn);
	int rc = check(db, r, PGRES_COMMAND_OK, "COPY", err);
	if (rc == 0)
		libpq.PQclear(r);
	/* Drain: libpq wants PQgetResult until NULL. */
	while ((r = libpq.PQgetResult(db->conn)))
		libpq.PQclear(r);
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
