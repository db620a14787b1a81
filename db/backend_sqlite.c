/* backend_sqlite.c - the embedded backend: one database file, nothing to start.
 *
 * Parameters are written $1..$N in the shared SQL; SQLite reads "$1" as a named parameter,
 * so each is bound by name. Values travel as text both ways, as they do through libpq, so
 * the two backends hand the query code identical rows. Writers wait for each other (a busy
 * timeout) instead of failing: two importers at once queue at BEGIN IMMEDIATE.
 */
#include "db.h"
#include "errmsg.h"
#include "xalloc.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How long a writer waits for another one before giving up. */
#define SQLITE_BUSY_MS (10 * 60 * 1000)

struct sqlite_load {
	sqlite3_stmt *stmt;
	int ncols;
	char *table;
};

static int fail(struct db *db, char **err, const char *what)
{
	ps_set_err(err, "%s: %s: %s", db->target, what, sqlite3_errmsg(db->conn));
	return -1;
}

static int sq_open(struct db *db, const char *target, char **err)
{
	sqlite3 *conn = NULL;
	int rc = sqlite3_open_v2(target, &conn, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
				 SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		ps_set_err(err, "%s: cannot open: %s", target,
			   conn ? sqlite3_errmsg(conn) : sqlite3_errstr(rc));
		sqlite3_close(conn);
		return -1;
	}
	db->conn = conn;
	sqlite3_busy_timeout(conn, SQLITE_BUSY_MS);
	sqlite3_extended_result_codes(conn, 1);
	/* A file that is not a database shows here, on the first read. */
	char *msg = NULL;
	if (sqlite3_exec(conn, "PRAGMA foreign_keys = ON; SELECT count(*) FROM sqlite_master",
			 NULL, NULL, &msg) != SQLITE_OK) {
		ps_set_err(err, "%s: not an SQLite database: %s", target, msg ? msg : "?");
		sqlite3_free(msg);
		sqlite3_close(conn);
		db->conn = NULL;
		return -1;
	}
	return 0;
}

static void sq_close(struct db *db)
{
	sqlite3_close(db->conn);
	db->conn = NULL;
}

static int sq_exec(struct db *db, const char *sql, char **err)
{
	char *msg = NULL;
	if (sqlite3_exec(db->conn, sql, NULL, NULL, &msg) != SQLITE_OK) {
		ps_set_err(err, "%s: %s", db->target, msg ? msg : sqlite3_errmsg(db->conn));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static int bind_params(struct db *db, sqlite3_stmt *st, int nparams, const char *const *params,
		       char **err)
{
	for (int i = 0; i < nparams; i++) {
		char name[16];
		snprintf(name, sizeof name, "$%d", i + 1);
		int idx = sqlite3_bind_parameter_index(st, name);
		if (!idx)
			continue; /* not used by this statement */
		int rc = params[i] ? sqlite3_bind_text(st, idx, params[i], -1, SQLITE_TRANSIENT)
				   : sqlite3_bind_null(st, idx);
		if (rc != SQLITE_OK)
			return fail(db, err, "bind");
	}
	return 0;
}

static int sq_query(struct db *db, const char *sql, int nparams, const char *const *params,
		    db_row_fn fn, void *ctx, char **err)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db->conn, sql, -1, &st, NULL) != SQLITE_OK)
		return fail(db, err, "prepare");
	if (bind_params(db, st, nparams, params, err) < 0) {
		sqlite3_finalize(st);
		return -1;
	}
	int ncols = sqlite3_column_count(st), rc;
	const char **vals = xcalloc((size_t)ncols + 1, sizeof *vals);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int i = 0; i < ncols; i++)
			vals[i] = (const char *)sqlite3_column_text(st, i);
		if (fn && fn(ctx, ncols, vals)) {
			rc = SQLITE_DONE;
			break;
		}
	}
	free(vals);
	if (rc != SQLITE_DONE) {
		fail(db, err, "query");
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	return 0;
}

static int sq_begin_write(struct db *db, char **err)
{
	return sq_exec(db, "BEGIN IMMEDIATE", err);
}

static int sq_load_begin(struct db *db, const char *table, int ncols, const char *const *cols,
			 char **err)
{
	char *sql = xasprintf("INSERT INTO %s (", table);
	for (int i = 0; i < ncols; i++) {
		char *next = xasprintf("%s%s%s", sql, i ? ", " : "", cols[i]);
		free(sql);
		sql = next;
	}
	char *next = xasprintf("%s) VALUES (", sql);
	free(sql);
	sql = next;
	for (int i = 0; i < ncols; i++) {
		next = xasprintf("%s%s$%d", sql, i ? ", " : "", i + 1);
		free(sql);
		sql = next;
	}
	next = xasprintf("%s)", sql);
	free(sql);
	sql = next;
	struct sqlite_load *l = xcalloc(1, sizeof *l);
	if (sqlite3_prepare_v2(db->conn, sql, -1, &l->stmt, NULL) != SQLITE_OK) {
		free(sql), free(l);
		return fail(db, err, "prepare");
	}
	free(sql);
	l->ncols = ncols;
	l->table = xstrdup(table);
	db->load = l;
	return 0;
}

static int sq_load_row(struct db *db, const char *const *values, char **err)
{
	struct sqlite_load *l = db->load;
	for (int i = 0; i < l->ncols; i++) {
		int rc = values[i] ? sqlite3_bind_text(l->stmt, i + 1, values[i], -1, SQLITE_TRANSIENT)
				   : sqlite3_bind_null(l->stmt, i + 1);
		if (rc != SQLITE_OK)
			return fail(db, err, l->table);
	}
	int rc = sqlite3_step(l->stmt);
	sqlite3_reset(l->stmt);
	if (rc != SQLITE_DONE)
		return fail(db, err, l->table);
	return 0;
}

static int sq_load_end(struct db *db, char **err)
{
	(void)err;
	struct sqlite_load *l = db->load;
	if (!l)
		return 0;
	sqlite3_finalize(l->stmt);
	free(l->table), free(l);
	db->load = NULL;
	return 0;
}

static int sq_table_exists(struct db *db, const char *table, bool *exists, char **err)
{
	char *v = NULL;
	const char *p[] = { table };
	if (db_query_value(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = $1",
			   1, p, &v, err) < 0)
		return -1;
	*exists = v && strcmp(v, "0") != 0;
	free(v);
	return 0;
}

const struct db_backend db_backend_sqlite = {
	.name = "sqlite",
	.id_column = "INTEGER PRIMARY KEY",
	.open = sq_open,
	.close = sq_close,
	.exec = sq_exec,
	.query = sq_query,
	.begin_write = sq_begin_write,
	.load_begin = sq_load_begin,
	.load_row = sq_load_row,
	.load_end = sq_load_end,
	.table_exists = sq_table_exists,
};
