#!/usr/bin/env bash
# pagesleuth db on both backends, SQLite and a private PostgreSQL server (tests/cases/lib/
# pgserver.sh), with the same steps and the same expected numbers; at the end every query's
# CSV output must be byte-identical between the two.
#
# - numbers: synthetic board snapshots with known pages (mkboard below: an app whose heap
#   has APP pages and a library of LIB pages mapped by two processes) give exact medians,
#   changes and check verdicts; a live snapshot of a parent and its forked child gives per
#   process RSS/USS/swap equal to the kernel's smaps_rollup (PSS within 1 KiB), read back
#   with plain SQL;
# - identity and tags: re-importing is a no-op; tags from -t and from the records' header;
# - transactions: an import with a bad file imports nothing; two importers at once give no
#   duplicates and no errors; an importer killed in the middle (blocked on a FIFO with rows
#   already written) leaves the database as it was;
# - schema: a version-1 database is migrated on open; a newer one is refused with one line;
# - partial snapshots are flagged and left out of trends and checks unless asked for;
# - evidence: the database file may not be an input, nor a report output.
set -euo pipefail
bin=${PAGESLEUTH:-build/pagesleuth}
root=${PAGESLEUTH_ROOT:-$PWD}
tmp=$(mktemp -d)
chmod 755 "$tmp"
pids=()
source "$root/tests/cases/lib/pgserver.sh"
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	pg_stop
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM # (so the EXIT trap stops the server when the suite's timeout hits)
command -v sqlite3 >/dev/null || { echo "skip: no sqlite3 shell (Debian package sqlite3)"; exit 77; }
fail=0
bad() { echo "FAIL: $*"; fail=1; }
q() { "$bin" "$@" || bad "exit $?: pagesleuth $*"; } # a query that must succeed

# mkboard FILE DUMP_ID APP LIB [TIME] [partial]: one snapshot of a board: "app" (pid 100)
# with APP heap pages and the library /usr/lib/libfoo.so's LIB text pages, "helper" (pid
# 101) mapping the same LIB pages (mapcount 2). Header tags: board=e500, variant=a.
# Exact: user = APP + LIB pages; app PSS = APP*4 + LIB*2 KiB, helper PSS = LIB*2 KiB;
# libfoo distinct physical = LIB*4 KiB; heap RSS = APP*4 KiB.
mkboard() {
	local f=$1 id=$2 app=$3 lib=$4 time=${5:-2026-11-01T00:00:00Z} partial=${6:-}
	{
		echo "pagesleuth-records 1.0"
		echo "header source=test arch=ppc32 endian=big page_size=4096 release=5.10.0-board dump=board-$id dump_id=$id time=$time excluded=none tool=hand pids=all tags=board%3De500%2Cvariant%3Da"
		echo "snapshot seq=0 time=$time"
		echo "task pid=100 tgid=100 ppid=1 mm=1 comm=app state=S minflt=0 majflt=0 utime=0 stime=0 start=0"
		echo "mm id=1 tgid=100 comm=app exe=/usr/bin/app start_brk=10000000 brk=12000000 start_stack=7ff00000"
		echo "vma mm=1 start=10000000 end=12000000 perm=rw-p vmflags=873 pgoff=0 dev=00:00 inode=0 path=[heap] kind=heap unit=/usr/bin/app"
		printf 'm 1 10000000 100000 %d 1 1 w-u-d--- 5838 12\n' "$app"
		echo "vma mm=1 start=40000000 end=41000000 perm=r-xp vmflags=875 pgoff=0 dev=fe:01 inode=7 path=/usr/lib/libfoo.so kind=libtext unit=/usr/lib/libfoo.so"
		printf 'm 1 40000000 200000 %d 2 2 -xua---- 82c 12\n' "$lib"
		[ -n "$partial" ] && return 0
		echo "task pid=101 tgid=101 ppid=1 mm=2 comm=helper state=S minflt=0 majflt=0 utime=0 stime=0 start=0"
		echo "mm id=2 tgid=101 comm=helper exe=/usr/bin/helper start_brk=10000000 brk=10000000 start_stack=7ff00000"
		echo "vma mm=2 start=40000000 end=41000000 perm=r-xp vmflags=875 pgoff=0 dev=fe:01 inode=7 path=/usr/lib/libfoo.so kind=libtext unit=/usr/lib/libfoo.so"
		printf 'm 2 40000000 200000 %d 2 2 -xua---- 82c 12\n' "$lib"
		echo "end status=complete tasks=2 mms=2 vmas=3 runs=3 pages=$((app + 2 * lib))"
	} > "$f"
}

mkdir -p "$tmp/rec"
# firmware 1.9: APP 1000, 1010, 990 (median 1000); 1.10: 1040, 1050, 1030 (median 1040,
# +4 %), plus a partial 1.10 snapshot with APP 5000 that must not count.
i=0
for app in 1000 1010 990; do i=$((i + 1)); mkboard "$tmp/rec/fw19-$i.rec" "fw19-$i" "$app" 100 "2026-11-0${i}T10:00:00Z"; done
for app in 1040 1050 1030; do i=$((i + 1)); mkboard "$tmp/rec/fw110-$i.rec" "fw110-$i" "$app" 100 "2026-11-0${i}T10:00:00Z"; done
mkboard "$tmp/rec/fw110-partial.rec" fw110-partial 5000 100 2026-11-09T10:00:00Z partial
for n in $(seq 1 40); do mkboard "$tmp/rec/many-$n.rec" "many-$n" $((2000 + n)) 50 2026-10-01T00:00:00Z; done
printf 'pagesleuth-records 1.0\nheader source=test garbage\n' > "$tmp/rec/corrupt.rec"

# Live: a parent and its forked child with a known layout, as live_report_vs_smaps.sh.
live=0
if [ "$(id -u)" -eq 0 ]; then
	. "$root/tests/cases/lib/layout.sh"
	layout_build
	layout_start db
	parent=$layout_parent child=$layout_child
	for p in "$parent" "$child"; do cp "/proc/$p/smaps_rollup" "$tmp/rollup.$p"; done
	"$bin" snap --pid "$parent" --every 0.1 --count 3 -o "$tmp/rec/rounds.rec"
	# tags given to the writer travel in the header (tags=) into the database
	"$bin" snap --pid "$parent" --pid "$child" -t board=host -t site=lab -o "$tmp/rec/live.rec"
	grep -q '^header .* tags=board%3Dhost,site%3Dlab' "$tmp/rec/live.rec" || bad "snap -t: no tags= in the header"
	rc=0; "$bin" snap --pid "$parent" -t 'bad key=1' -o "$tmp/x.rec" 2> "$tmp/badtag.err" || rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l < "$tmp/badtag.err")" = 1 ] && [ ! -e "$tmp/x.rec" ] ||
		{ bad "snap -t with a bad key: exit $rc"; cat "$tmp/badtag.err"; }
	live=1
else
	echo "note: not root: the live snapshot part (PFNs and mapcounts) is skipped"
fi
kb() { awk -v k="$1:" '$1 == k { print $2 }' "$2"; }

# sql BACKEND DB QUERY: one value per line, columns separated by |
sql() {
	if [ "$1" = sqlite ]; then sqlite3 "$2" "$3"; else pg_psql "${2##*/}" "$3"; fi
}

# A private PostgreSQL server (initdb as an unprivileged user, unix socket only).
pg=0
if pg_start "$tmp/pg"; then pg=1; else rc=$?; [ "$rc" -eq 1 ] || exit 1; fi

suite() { # suite BACKEND: every step against one backend; outputs in $tmp/out.BACKEND
	local be=$1 db dbname out=$tmp/out.$1
	mkdir -p "$out"
	newdb() { # newdb NAME -> the --db argument of a fresh database
		if [ "$be" = sqlite ]; then echo "$tmp/$1.db"; else pg_newdb "$1"; fi
	}
	db=$(newdb main)
	dbname=$( [ "$be" = sqlite ] && echo "$db" || echo main )
	count() { sql "$be" "$dbname" "SELECT count(*) FROM snapshot"; }

	echo "== $be"
	"$bin" db import --db "$db" -t firmware=1.9 "$tmp"/rec/fw19-*.rec 2> "$out/import1.err" ||
		{ bad "$be: import fw 1.9"; cat "$out/import1.err"; }
	"$bin" db import --db "$db" -t firmware=1.10 "$tmp"/rec/fw110-*.rec 2> "$out/import2.err" ||
		{ bad "$be: import fw 1.10"; cat "$out/import2.err"; }
	grep -q "fw110-partial.rec: snapshot 0 is partial" "$out/import2.err" ||
		bad "$be: the partial snapshot was not reported as such"
	[ "$(count)" = 7 ] || bad "$be: $(count) snapshots, want 7"

	# re-importing is a no-op
	"$bin" db import --db "$db" -t firmware=1.9 "$tmp"/rec/fw19-*.rec 2> "$out/again.err" ||
		bad "$be: re-import failed"
	grep -q "0 snapshots from 3 files.*(3 already there" "$out/again.err" ||
		{ bad "$be: re-import was not a no-op"; cat "$out/again.err"; }
	[ "$(count)" = 7 ] || bad "$be: re-import changed the count to $(count)"

	# tags: -t, the header's tags=, the header's fields
	local tags
	tags=$(sql "$be" "$dbname" "SELECT key || '=' || value || ':' || origin FROM tag t JOIN snapshot s ON s.id = t.snapshot_id WHERE s.dump_id = 'fw19-1' ORDER BY key")
	[ "$tags" = "$(printf 'arch=ppc32:header\nboard=e500:records\nfirmware=1.9:command\nrelease=5.10.0-board:header\nsource=test:header\nvariant=a:records')" ] ||
		{ bad "$be: tags of fw19-1:"; echo "$tags"; }
	q db ls --db "$db" -t variant=a -f csv > "$out/ls.csv"
	q db ls --db "$db" -f json > "$out/ls.json.out"
	python3 -m json.tool "$out/ls.json.out" > /dev/null || bad "$be: db ls -f json is not JSON"
	[ "$(grep -c ',complete,\|,PARTIAL,' "$out/ls.csv")" = 7 ] || bad "$be: ls -t variant=a"
	grep -q ',PARTIAL,board-fw110-partial' "$out/ls.csv" || bad "$be: ls does not flag the partial snapshot"

	# trend by firmware: version order (1.9 before 1.10), exact medians in KiB
	q db trend --db "$db" --by firmware -f csv > "$out/trend-total.csv"
	grep -qx '1.9,3,4400,4360,4440,,' "$out/trend-total.csv" &&
		grep -qx '1.10,3,4560,4520,4600,160,3.6363636363636362' "$out/trend-total.csv" ||
		{ bad "$be: trend of total user by firmware:"; cat "$out/trend-total.csv"; }
	q db trend --db "$db" --by firmware --include-partial -f csv > "$out/trend-partial.csv"
	grep -qx '1.10,4,4580,4520,20400,180,4.090909090909091' "$out/trend-partial.csv" &&
		grep -qx '# PARTIAL: 1 partial snapshots included (--include-partial)' "$out/trend-partial.csv" ||
		{ bad "$be: trend with --include-partial:"; cat "$out/trend-partial.csv"; }
	grep -q PARTIAL "$out/trend-total.csv" && bad "$be: trend without --include-partial says PARTIAL"
	q db compare --db "$db" firmware=1.9 firmware=1.10 --include-partial > "$out/compare-partial.txt"
	grep -q "PARTIAL: 0 of firmware=1.9's and 1 of firmware=1.10's snapshots are partial" "$out/compare-partial.txt" ||
		bad "$be: compare --include-partial does not say so"
	q db trend --db "$db" --by firmware --process app -f csv > "$out/trend-app.csv"
	grep -qx '1.10,3,4360,4320,4400,160,3.8095238095238093' "$out/trend-app.csv" ||
		{ bad "$be: trend of app's PSS:"; cat "$out/trend-app.csv"; }
	q db trend --db "$db" --by firmware --unit libfoo.so -f csv > "$out/trend-lib.csv"
	grep -qx '1.9,3,400,400,400,,' "$out/trend-lib.csv" ||
		{ bad "$be: trend of libfoo's distinct physical pages:"; cat "$out/trend-lib.csv"; }
	q db trend --db "$db" --by firmware --kind heap --metric rss -f csv > "$out/trend-heap.csv"
	grep -qx '1.9,3,4000,3960,4040,,' "$out/trend-heap.csv" ||
		{ bad "$be: trend of heap RSS:"; cat "$out/trend-heap.csv"; }
	q db trend --db "$db" -f csv > "$out/trend-time.csv"
	[ "$(grep -c ' #' "$out/trend-time.csv")" = 6 ] || bad "$be: trend over time: not 6 complete snapshots"
	q db trend --db "$db" --by firmware --html "$out/trend.html" > /dev/null
	xmllint --html --noout "$out/trend.html" 2>/dev/null || bad "$be: trend HTML is not well-formed"
	grep -q '<svg' "$out/trend.html" || bad "$be: trend HTML has no chart"

	# compare: medians per side
	q db compare --db "$db" firmware=1.9 firmware=1.10 -f csv > "$out/compare.csv"
	grep -qx 'app,3,4200,4160,4240,3,4360,4320,4400,160,3.8095238095238093' "$out/compare.csv" &&
		grep -qx 'helper,3,200,200,200,3,200,200,200,0,0' "$out/compare.csv" ||
		{ bad "$be: compare:"; cat "$out/compare.csv"; }

	# check: the CI gate
	local rc=0
	"$bin" db check --db "$db" --baseline firmware=1.9 --candidate firmware=1.10 --max-growth 3% \
		-f csv > "$out/check-3.csv" 2> "$out/check-3.err" || rc=$?
	[ "$rc" = 1 ] || bad "$be: check at 3%: exit $rc, want 1"
	grep -q "total user grew 3.64% (4400.0 KiB -> 4560.0 KiB" "$out/check-3.err" ||
		{ bad "$be: check at 3%: no offender line"; cat "$out/check-3.err"; }
	rc=0
	"$bin" db check --db "$db" --baseline firmware=1.9 --candidate firmware=1.10 --max-growth 5% \
		-f csv > "$out/check-5.csv" 2> "$out/check-5.err" || rc=$?
	[ "$rc" = 0 ] || { bad "$be: check at 5%: exit $rc, want 0"; cat "$out/check-5.err"; }
	rc=0
	"$bin" db check --db "$db" --baseline firmware=1.9 --candidate firmware=1.10 --max-growth 3% \
		--each process -f csv > "$out/check-each.csv" 2> "$out/check-each.err" || rc=$?
	[ "$rc" = 1 ] && [ "$(grep -c 'grew' "$out/check-each.err")" = 1 ] &&
		grep -q "process 'app' pss grew 3.81%" "$out/check-each.err" ||
		{ bad "$be: check --each process (exit $rc):"; cat "$out/check-each.err"; }
	rc=0
	"$bin" db check --db "$db" --baseline firmware=1.9 --candidate firmware=1.10 --max-growth 3% \
		--min-growth 1M -f csv > "$out/check-min.csv" 2> /dev/null || rc=$?
	[ "$rc" = 0 ] || bad "$be: check with --min-growth 1M: exit $rc, want 0 (160 KiB grew)"
	# no --candidate: the newest complete snapshot outside the baseline (fw110-6, APP 1030:
	# 4520 KiB, +2.73 %; the partial one after it does not count)
	rc=0
	"$bin" db check --db "$db" --baseline firmware=1.9 --max-growth 2% -f csv > "$out/check-default.csv" 2> "$out/check-default.err" || rc=$?
	[ "$rc" = 1 ] && grep -q "total user grew 2.73% (4400.0 KiB -> 4520.0 KiB, +120.0 KiB), limit 2.00%: baseline firmware=1.9 (median of 3), candidate snapshot 6 (median of 1)" "$out/check-default.err" ||
		{ bad "$be: check with the default candidate (exit $rc):"; cat "$out/check-default.err"; }
	rc=0
	"$bin" db check --db "$db" --baseline firmware=2.0 --max-growth 3% > /dev/null 2> "$out/check-empty.err" || rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l < "$out/check-empty.err")" = 1 ] ||
		{ bad "$be: check against an empty baseline: exit $rc, want 2 and one line"; cat "$out/check-empty.err"; }

	# all or nothing: a bad file in the list imports nothing
	rc=0
	"$bin" db import --db "$db" "$tmp/rec/many-1.rec" "$tmp/rec/corrupt.rec" 2> "$out/corrupt.err" || rc=$?
	[ "$rc" = 2 ] || bad "$be: import with a corrupt file: exit $rc, want 2"
	grep -q "corrupt.rec:2" "$out/corrupt.err" || { bad "$be: the error does not name the file and line"; cat "$out/corrupt.err"; }
	[ "$(count)" = 7 ] || bad "$be: a failed import left $(count) snapshots, want 7"

	# two importers at once, overlapping: no duplicates, no errors
	local many=("$tmp"/rec/many-*.rec) r1=0 r2=0
	"$bin" db import --db "$db" "${many[@]:0:30}" 2> "$out/conc1.err" & local p1=$!
	"$bin" db import --db "$db" "${many[@]:10:30}" 2> "$out/conc2.err" & local p2=$!
	wait "$p1" || r1=$?
	wait "$p2" || r2=$?
	[ "$r1" = 0 ] && [ "$r2" = 0 ] || { bad "$be: concurrent imports exited $r1 and $r2"; cat "$out/conc1.err" "$out/conc2.err"; }
	[ "$(count)" = 47 ] || bad "$be: concurrent imports left $(count) snapshots, want 47"
	[ "$(sql "$be" "$dbname" "SELECT count(DISTINCT identity) FROM snapshot")" = 47 ] || bad "$be: duplicate identities"

	# three importers at once on a new database: one of them creates the schema, once
	local fresh freshname importers=()
	fresh=$(newdb fresh)
	freshname=$( [ "$be" = sqlite ] && echo "$fresh" || echo fresh )
	for n in 1 2 3; do
		"$bin" db import --db "$fresh" -q "$tmp/rec/fw19-$n.rec" 2> "$out/fresh$n.err" &
		importers+=($!)
	done
	for p in "${importers[@]}"; do wait "$p" || bad "$be: an importer on a new database exited $?"; done
	for n in 1 2 3; do [ ! -s "$out/fresh$n.err" ] || { bad "$be: importers on a new database: $(cat "$out/fresh$n.err")"; }; done
	[ "$(sql "$be" "$freshname" "SELECT count(*) FROM snapshot")" = 3 ] &&
		[ "$(sql "$be" "$freshname" "SELECT count(*) || ' ' || max(version) FROM schema_info")" = "2 2" ] ||
		bad "$be: three importers on a new database: $(sql "$be" "$freshname" "SELECT count(*) FROM snapshot") snapshots"

	# killed in the middle: the importer has written the rows of one file and is blocked
	# reading the next (a FIFO holding half a file); SIGKILL; nothing of it remains.
	mkboard "$tmp/killed-1.rec" killed-1 3000 10
	mkfifo "$tmp/fifo-$be.rec"
	"$bin" db import --db "$db" "$tmp/killed-1.rec" "$tmp/fifo-$be.rec" 2> "$out/killed.err" &
	local pk=$!
	exec 7> "$tmp/fifo-$be.rec"
	mkboard "$tmp/half.rec" killed-2 3000 10
	head -n 5 "$tmp/half.rec" >&7
	local seen=0
	for _ in $(seq 100); do
		if [ "$be" = sqlite ]; then [ -e "$db-journal" ] && seen=1; else
			[ "$(sql "$be" "$dbname" "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted")" != 0 ] && seen=1; fi
		[ "$seen" = 1 ] && break
		sleep 0.05
	done
	sleep 0.3
	kill -0 "$pk" 2>/dev/null || bad "$be: the importer was not running any more when killed"
	[ "$seen" = 1 ] || bad "$be: the importer had not started writing when killed"
	kill -9 "$pk"; wait "$pk" 2>/dev/null || true
	exec 7>&-
	[ "$(count)" = 47 ] || bad "$be: a killed import left $(count) snapshots, want 47"
	"$bin" db import --db "$db" -q "$tmp/killed-1.rec" || bad "$be: import after the killed one failed"
	[ "$(count)" = 48 ] || bad "$be: $(count) snapshots after importing killed-1, want 48"

	# --pages: one page_run row per m record
	"$bin" db import --db "$db" -q --pages "$tmp/rec/many-40.rec" 2>/dev/null || true # already there: no rows
	[ "$(sql "$be" "$dbname" "SELECT count(*) FROM page_run")" = 0 ] || bad "$be: a duplicate wrote page runs"
	mkboard "$tmp/pages.rec" pages-1 7 3
	"$bin" db import --db "$db" -q --pages "$tmp/pages.rec"
	[ "$(sql "$be" "$dbname" "SELECT count(*) || ' ' || sum(pages) FROM page_run")" = "3 13" ] ||
		bad "$be: page_run rows: $(sql "$be" "$dbname" "SELECT count(*) || ' ' || sum(pages) FROM page_run"), want '3 13'"

	# the kernel's own view, through plain SQL on the process table
	if [ "$live" = 1 ]; then
		# a stream of rounds: one snapshot per round
		"$bin" db import --db "$db" -q "$tmp/rec/rounds.rec"
		[ "$(sql "$be" "$dbname" "SELECT count(*) || ' ' || min(seq) || ' ' || max(seq) FROM snapshot WHERE source = 'live' AND pids = '$parent'")" = "3 0 2" ] ||
			bad "$be: a 3-round stream did not give snapshots 0, 1 and 2"
		"$bin" db import --db "$db" -q "$tmp/rec/live.rec"
		for p in "$parent" "$child"; do
			local row
			row=$(sql "$be" "$dbname" "SELECT p.rss_bytes / 1024, p.pss_bytes / 1024, p.uss_bytes / 1024, p.swap_bytes / 1024 FROM process p JOIN tag t ON t.snapshot_id = p.snapshot_id AND t.key = 'board' AND t.value = 'host' WHERE p.tgid = $p")
			IFS='|' read -r rss pss uss swap <<< "$row"
			local k_rss k_pss k_uss k_swap d
			k_rss=$(kb Rss "$tmp/rollup.$p"); k_pss=$(kb Pss "$tmp/rollup.$p")
			k_uss=$(( $(kb Private_Clean "$tmp/rollup.$p") + $(kb Private_Dirty "$tmp/rollup.$p") ))
			k_swap=$(kb Swap "$tmp/rollup.$p")
			echo "$be: pid $p rss $rss/$k_rss pss $pss/$k_pss uss $uss/$k_uss swap $swap/$k_swap (database/kernel, KiB)"
			[ "$rss" = "$k_rss" ] && [ "$uss" = "$k_uss" ] && [ "$swap" = "$k_swap" ] ||
				bad "$be: pid $p differs from smaps_rollup"
			d=$((pss - k_pss)); d=${d#-}
			[ "$d" -le 1 ] || bad "$be: pid $p PSS $pss vs $k_pss"
		done
	fi

	# schema: version 1 is migrated on open; a newer version is refused
	local old
	old=$(newdb old)
	PAGESLEUTH_DB_SCHEMA=1 "$bin" db import --db "$old" -q "$tmp"/rec/fw19-*.rec
	local oldname=$( [ "$be" = sqlite ] && echo "$old" || echo old )
	[ "$(sql "$be" "$oldname" "SELECT max(version) FROM schema_info")" = 1 ] || bad "$be: PAGESLEUTH_DB_SCHEMA=1 did not stop at 1"
	q db ls --db "$old" -f csv > "$out/ls-old.csv"
	[ "$(sql "$be" "$oldname" "SELECT max(version) FROM schema_info")" = 2 ] || bad "$be: version 1 was not migrated"
	[ "$(sql "$be" "$oldname" "SELECT count(*) FROM page_run")" = 0 ] || bad "$be: no page_run table after migrating"
	[ "$(grep -c ',complete,' "$out/ls-old.csv")" = 3 ] || bad "$be: data lost in the migration"
	sql "$be" "$oldname" "INSERT INTO schema_info (version) VALUES (99)" > /dev/null
	rc=0
	"$bin" db ls --db "$old" > /dev/null 2> "$out/newer.err" || rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l < "$out/newer.err")" = 1 ] && grep -q "schema version 99 is newer" "$out/newer.err" ||
		{ bad "$be: a newer schema: exit $rc"; cat "$out/newer.err"; }
}

suite sqlite
if [ "$pg" = 1 ]; then
	suite postgresql
	# The same questions give the same answers on both.
	for f in "$tmp"/out.sqlite/*.csv; do
		cmp -s "$f" "$tmp/out.postgresql/${f##*/}" ||
			{ bad "sqlite and postgresql disagree on ${f##*/}:"; diff "$f" "$tmp/out.postgresql/${f##*/}" | head -5; }
	done
	echo "sqlite and postgresql: $(ls "$tmp"/out.sqlite/*.csv | wc -l) query outputs compared"
fi

# Evidence: the database is never an input, nor an output of a query.
rc=0
"$bin" db import --db "$tmp/rec/fw19-1.rec" "$tmp/rec/fw19-1.rec" 2> "$tmp/ev.err" || rc=$?
[ "$rc" = 2 ] && grep -q "refusing to write over it" "$tmp/ev.err" || { bad "db import over its input: exit $rc"; cat "$tmp/ev.err"; }
cmp -s "$tmp/rec/fw19-1.rec" <(mkboard /dev/stdout fw19-1 1000 100 2026-11-01T10:00:00Z) || bad "the input was modified"
rc=0
"$bin" db ls --db "$tmp/main.db" -o "$tmp/main.db" 2> "$tmp/ev2.err" || rc=$?
[ "$rc" = 2 ] || bad "db ls -o DATABASE: exit $rc, want 2"
sqlite3 "$tmp/main.db" "SELECT count(*) FROM snapshot" > /dev/null || bad "the database was damaged by -o"
[ "$pg" = 1 ] || { echo "skip (part): PostgreSQL could not be started here"; }
exit $fail
