# pgserver.sh - a private PostgreSQL server for one test: initdb into a temporary directory,
# run as an unprivileged user, listening only on a unix socket in that directory, stopped by
# pg_stop (call it from the test's EXIT trap). Source it, then:
#   pg_start DIR [OPTS]         # returns 1 (after saying why) when no server can be run
#                               # here (no binaries, initdb or start refused by the machine)
#                               # (OPTS: server options; default "-c fsync=off", for tests)
#   $PG_URL                     # postgresql:///pagesleuth?host=DIR/sock&user=...
#   pg_stop
# Debian's postgresql package puts the server binaries in /usr/lib/postgresql/N/bin.

pg_bindir() {
	local d
	for d in /usr/lib/postgresql/*/bin; do
		[ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && { echo "$d"; return 0; }
	done
	return 1
}

# The user the server runs as: initdb refuses root. Debian's package creates "postgres".
pg_user() {
	if [ "$(id -u)" -ne 0 ]; then id -un; return 0; fi
	id postgres >/dev/null 2>&1 && { echo postgres; return 0; }
	id nobody >/dev/null 2>&1 && { echo nobody; return 0; }
	return 1
}

pg_as() { # run "$@" as the server's user
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u "$PG_USER" -- "$@"
	else
		"$@"
	fi
}

pg_start() {
	PG_DIR=$1
	local opts=${2--c fsync=off}
	local bin
	bin=$(pg_bindir) || { echo "skip: no PostgreSQL server binaries (Debian package postgresql)"; return 1; }
	PG_USER=$(pg_user) || { echo "skip: no unprivileged user to run PostgreSQL as"; return 1; }
	PG_BIN=$bin
	mkdir -p "$PG_DIR/sock"
	[ "$(id -u)" -eq 0 ] && chown -R "$PG_USER" "$PG_DIR"
	# The parent directories must let the server's user reach its data and socket.
	chmod 755 "$PG_DIR"
	if ! pg_as "$bin/initdb" -D "$PG_DIR/data" -U "$PG_USER" --auth=trust -E UTF8 \
		--locale=C.UTF-8 >"$PG_DIR/initdb.log" 2>&1; then
		echo "skip (PostgreSQL part): initdb failed here:"; tail -5 "$PG_DIR/initdb.log"; return 1
	fi
	if ! pg_as "$bin/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
		-o "-k $PG_DIR/sock -c listen_addresses='' $opts" start >/dev/null 2>&1; then
		echo "skip (PostgreSQL part): the server did not start here:"; tail -5 "$PG_DIR/server.log"; return 1
	fi
	PG_STARTED=1
	pg_as "$bin/createdb" -h "$PG_DIR/sock" -U "$PG_USER" pagesleuth || { echo "FAIL: createdb on the private server"; return 2; }
	PG_URL="postgresql:///pagesleuth?host=$PG_DIR/sock&user=$PG_USER"
	export PG_URL
}

# A fresh database on the same server: echoes its URL.
pg_newdb() {
	pg_as "$PG_BIN/createdb" -h "$PG_DIR/sock" -U "$PG_USER" "$1" || return 1
	echo "postgresql:///$1?host=$PG_DIR/sock&user=$PG_USER"
}

pg_psql() { # pg_psql DBNAME SQL
	pg_as "$PG_BIN/../bin/psql" -h "$PG_DIR/sock" -U "$PG_USER" -d "$1" -qAt -v ON_ERROR_STOP=1 -c "$2" 2>/dev/null ||
		psql -h "$PG_DIR/sock" -U "$PG_USER" -d "$1" -qAt -v ON_ERROR_STOP=1 -c "$2"
}

pg_stop() {
	[ -n "${PG_STARTED:-}" ] || return 0
	pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
	PG_STARTED=
}
