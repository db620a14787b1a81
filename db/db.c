/* db.c - opening a database, the schema and its migrations, and the calls the rest of db/
 * makes (which only forward to the backend).
 *
 * The schema is one list of migrations; version N of the schema is migrations 1..N applied
 * in order. Opening applies the missing ones inside the writers' lock (so two programs
 * opening a new database at once do not both create it) and refuses a database whose
 * version is newer than this program's: its meaning may have changed under us.
 * docs/database.md describes every table and column.
 */
#include "db.h"
#include "errmsg.h"
#include "records.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Version 1: snapshots, their tags, and the aggregates the analyzer computes per snapshot,
 * per process, per executable unit and per VMA kind. Sizes are bytes, so boards with 4K and
 * 64K pages compare directly. "@ID@" is the backend's generated primary key type. */
static const char schema_v1[] =
	"CREATE TABLE snapshot ("
	" id @ID@,"
	" identity TEXT NOT NULL UNIQUE,"
	" source TEXT NOT NULL, arch TEXT NOT NULL, release TEXT NOT NULL, dump TEXT NOT NULL,"
	" dump_id TEXT NOT NULL, page_size BIGINT NOT NULL, captured TEXT, seq BIGINT NOT NULL,"
	" pids TEXT NOT NULL, excluded TEXT NOT NULL, tool TEXT NOT NULL,"
	" complete INTEGER NOT NULL, partial_why TEXT,"
	" file TEXT NOT NULL, imported TEXT NOT NULL,"
	" processes BIGINT NOT NULL, vmas BIGINT NOT NULL,"
	" user_bytes BIGINT NOT NULL, anon_bytes BIGINT NOT NULL, file_bytes BIGINT NOT NULL,"
	" swapped_bytes BIGINT NOT NULL, excluded_bytes BIGINT NOT NULL,"
	" pfn_hidden_bytes BIGINT NOT NULL, unknown_bytes BIGINT NOT NULL,"
	" vss_bytes BIGINT NOT NULL, rss_bytes BIGINT NOT NULL, pss_bytes BIGINT NOT NULL,"
	" uss_bytes BIGINT NOT NULL, swap_bytes BIGINT NOT NULL);\n"
	"CREATE TABLE tag ("
	" snapshot_id BIGINT NOT NULL REFERENCES snapshot (id),"
	" key TEXT NOT NULL, value TEXT NOT NULL, origin TEXT NOT NULL,"
	" PRIMARY KEY (snapshot_id, key));\n"
	"CREATE TABLE process ("
	" snapshot_id BIGINT NOT NULL REFERENCES snapshot (id), mm BIGINT NOT NULL,"
	" tgid BIGINT NOT NULL, pid BIGINT NOT NULL, comm TEXT NOT NULL, exe TEXT NOT NULL,"
	" threads BIGINT NOT NULL, vmas BIGINT NOT NULL,"
	" vss_bytes BIGINT NOT NULL, rss_bytes BIGINT NOT NULL, pss_bytes BIGINT NOT NULL,"
	" uss_bytes BIGINT NOT NULL, swap_bytes BIGINT NOT NULL, anon_bytes BIGINT NOT NULL,"
	" single_in_shared_bytes BIGINT NOT NULL, minflt BIGINT, majflt BIGINT,"
	" PRIMARY KEY (snapshot_id, mm));\n"
	"CREATE TABLE unit ("
	" snapshot_id BIGINT NOT NULL REFERENCES snapshot (id), unit TEXT NOT NULL,"
	" name TEXT NOT NULL, processes BIGINT NOT NULL,"
	" text_virt_bytes BIGINT NOT NULL, text_phys_bytes BIGINT NOT NULL,"
	" data_virt_bytes BIGINT NOT NULL, data_phys_bytes BIGINT NOT NULL,"
	" bss_virt_bytes BIGINT NOT NULL, bss_phys_bytes BIGINT NOT NULL,"
	" rss_bytes BIGINT NOT NULL, pss_bytes BIGINT NOT NULL, uss_bytes BIGINT NOT NULL,"
	" PRIMARY KEY (snapshot_id, unit));\n"
	"CREATE TABLE kind ("
	" snapshot_id BIGINT NOT NULL REFERENCES snapshot (id), kind TEXT NOT NULL,"
	" vmas BIGINT NOT NULL, vss_bytes BIGINT NOT NULL, rss_bytes BIGINT NOT NULL,"
	" pss_bytes BIGINT NOT NULL, uss_bytes BIGINT NOT NULL, swap_bytes BIGINT NOT NULL,"
	" anon_bytes BIGINT NOT NULL, single_in_shared_bytes BIGINT NOT NULL,"
	" PRIMARY KEY (snapshot_id, kind));\n";

/* Version 2: page runs for `db import --pages`, and the indexes the trend and check
 * queries look snapshots up by (tag values, process names). */
static const char schema_v2[] =
	"CREATE TABLE page_run ("
	" snapshot_id BIGINT NOT NULL REFERENCES snapshot (id), mm BIGINT NOT NULL,"
	" vaddr BIGINT NOT NULL, pfn BIGINT, pages BIGINT NOT NULL, mapcount BIGINT,"
	" refcount BIGINT, flags BIGINT, pte TEXT NOT NULL, shift INTEGER NOT NULL,"
	" excluded INTEGER NOT NULL);\n"
	"CREATE INDEX page_run_snapshot ON page_run (snapshot_id, mm, vaddr);\n"
	"CREATE INDEX tag_key_value ON tag (key, value);\n"
	"CREATE INDEX process_comm ON process (comm, snapshot_id);\n"
	"CREATE INDEX unit_unit ON unit (unit, snapshot_id);\n";

static const char *const migrations[DB_SCHEMA_VERSION] = { schema_v1, schema_v2 };

bool db_target_is_postgresql(const char *target)
{
	return strncmp(target, "postgresql://", 13) == 0 || strncmp(target, "postgres://", 11) == 0 ||
	       strstr(target, "dbname=") != NULL;
}

int db_exec(struct db *db, const char *sql, char **err)
{
	return db->be->exec(db, sql, err);
}

int db_query(struct db *db, const char *sql, int nparams, const char *const *params,
	     db_row_fn fn, void *ctx, char **err)
{
	return db->be->query(db, sql, nparams, params, fn, ctx, err);
}

static int first_value(void *ctx, int ncols, const char *const *values)
{
	char **out = ctx;
	*out = ncols > 0 && values[0] ? xstrdup(values[0]) : NULL;
	return 1;
}

int db_query_value(struct db *db, const char *sql, int nparams, const char *const *params,
		   char **value, char **err)
{
	*value = NULL;
	return db_query(db, sql, nparams, params, first_value, value, err);
}

int db_schema_version(struct db *db, int *version, char **err)
{
	bool exists;
	if (db->be->table_exists(db, "schema_info", &exists, err) < 0)
		return -1;
	*version = 0;
	if (!exists)
		return 0;
	char *v = NULL;
	if (db_query_value(db, "SELECT max(version) FROM schema_info", 0, NULL, &v, err) < 0)
		return -1;
	*version = v ? atoi(v) : 0;
	free(v);
	return 0;
}

/* A database made by a newer pagesleuth: its tables may mean what this one does not know. */
static int refuse_newer(const struct db *db, int have, char **err)
{
	if (have <= DB_SCHEMA_VERSION)
		return 0;
	ps_set_err(err, "%s: database schema version %d is newer than this pagesleuth's (%d): use a "
		   "newer pagesleuth", db->target, have, DB_SCHEMA_VERSION);
	return -1;
}

/* The version to migrate to: DB_SCHEMA_VERSION, or less for the migration tests. */
static int target_version(void)
{
	const char *e = getenv("PAGESLEUTH_DB_SCHEMA");
	int v = e ? atoi(e) : 0;
	return v >= 1 && v < DB_SCHEMA_VERSION ? v : DB_SCHEMA_VERSION;
}

static char *expand_schema(const struct db *db, const char *sql)
{
	char *out = xstrdup(sql), *at;
	while ((at = strstr(out, "@ID@"))) {
		char *next = xasprintf("%.*s%s%s", (int)(at - out), out, db->be->id_column, at + 4);
		free(out);
		out = next;
	}
	return out;
}

static int migrate(struct db *db, int want, char **err)
{
	if (db->be->begin_write(db, err) < 0)
		return -1;
	int have;
	if (db_schema_version(db, &have, err) < 0)
		goto fail;
	if (refuse_newer(db, have, err) < 0)
		goto fail;
	if (have == 0 && db_exec(db, "CREATE TABLE schema_info (version INTEGER NOT NULL)", err) < 0)
		goto fail;
	for (int v = have + 1; v <= want; v++) {
		char *sql = expand_schema(db, migrations[v - 1]);
		int rc = db_exec(db, sql, err);
		free(sql);
		if (rc < 0)
			goto fail;
		char num[16];
		snprintf(num, sizeof num, "%d", v);
		const char *p[] = { num };
		if (db_query(db, "INSERT INTO schema_info (version) VALUES ($1)", 1, p, NULL, NULL, err) < 0)
			goto fail;
	}
	return db_exec(db, "COMMIT", err);
fail:;
	char *ignored = NULL;
	db_exec(db, "ROLLBACK", &ignored);
	free(ignored);
	return -1;
}

/* A connection string without its password, for messages. */
static char *target_for_messages(const char *target)
{
	const char *at = strchr(target, '@'), *scheme = strstr(target, "://");
	if (scheme && at && at > scheme) {
		const char *colon = memchr(scheme + 3, ':', (size_t)(at - scheme - 3));
		if (colon)
			return xasprintf("%.*s:***%s", (int)(colon - target), target, at);
	}
	if (strstr(target, "password="))
		return xstrdup("(the PostgreSQL database named by --db)");
	return xstrdup(target);
}

int db_open(struct db *db, const char *target, bool create, char **err)
{
	memset(db, 0, sizeof *db);
	db->be = db_target_is_postgresql(target) ? &db_backend_postgresql : &db_backend_sqlite;
	db->target = target_for_messages(target);
	if (!create && db->be == &db_backend_sqlite && access(target, F_OK) != 0) {
		ps_set_err(err, "%s: no such database (create one with 'pagesleuth db import')", target);
		goto fail;
	}
	if (db->be->open(db, target, err) < 0)
		goto fail;
	int have;
	if (db_schema_version(db, &have, err) < 0)
		goto fail_open;
	if (refuse_newer(db, have, err) < 0)
		goto fail_open;
	if (have == 0 && !create) {
		ps_set_err(err, "%s: not a pagesleuth database (no schema_info table; 'pagesleuth db "
			   "import' creates one)", db->target);
		goto fail_open;
	}
	int want = target_version();
	if (have < want && migrate(db, want, err) < 0)
		goto fail_open;
	return 0;
fail_open:
	db->be->close(db);
fail:
	free(db->target);
	db->target = NULL;
	return -1;
}

void db_close(struct db *db)
{
	if (db->conn)
		db->be->close(db);
	free(db->target);
	db->target = NULL;
}

/* ---- tags ---------------------------------------------------------------------------- */

int db_parse_tag(const char *text, struct db_tag *tag, char **err)
{
	const char *why;
	size_t klen = ps_tag_check(text, &why);
	if (!klen) {
		ps_set_err(err, "tag '%s': %s", text, why);
		return -1;
	}
	tag->key = xasprintf("%.*s", (int)klen, text);
	tag->value = xstrdup(text + klen + 1);
	return 0;
}

void db_tags_free(struct db_tag *tags, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(tags[i].key), free(tags[i].value);
	free(tags);
}
