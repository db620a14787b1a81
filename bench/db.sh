#!/usr/bin/env bash
# pagesleuth db: importing many board snapshots into SQLite and PostgreSQL, and querying them,
# beside reading the same record files one by one with `pagesleuth report`. Not part of the
# test suite (nothing here asserts a time); run by hand or with `make bench-db`.
#
#   bench/db.sh           1,000 snapshots of a 200-process board (10 firmware versions x 100)
#   bench/db.sh quick     100 snapshots, to check the script
#
# The snapshots come from bench/gen_records (200 processes, shared libraries with per-page
# mapcounts, 50,000-70,000 mapping records each; deterministic), one seed per snapshot and a
# distinct-PFN target that grows with the firmware version. They are imported with one
# `db import -t firmware=N` per firmware version (100 files each), into a new SQLite file
# and into a private PostgreSQL 15 server (tests/cases/lib/pgserver.sh; fsync on, the
# server's defaults otherwise, a unix socket). Then, BENCH_REPS times each (median):
# `db ls`, `db trend` (total; --by firmware; one process --by firmware), `db compare`,
# `db check --each process`; and `pagesleuth report -a total` over every file, the way the
# same question is answered without a database. Pinned to one core (BENCH_CPU, default 0;
# the PostgreSQL server is not pinned). Prints one markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
B=${B:-/tmp/bench-build}
CPU=${BENCH_CPU:-0}
REPS=${BENCH_REPS:-3}
CACHE=${PAGESLEUTH_CACHE:-/var/cache/pagesleuth}/bench-db
FW=10 PER=100
[ "${1:-}" = quick ] && PER=10
N=$((FW * PER))

command -v taskset >/dev/null || { echo "bench: taskset (util-linux) is missing" >&2; exit 2; }
PIN=(taskset -c "$CPU")
[ "$CPU" = none ] && PIN=()
echo "== build ($B)" >&2
make -s B="$B" "$B/pagesleuth" "$B/libpagesleuth.a" >&2
cc -std=gnu11 -D_GNU_SOURCE -O2 -Ilib bench/gen_records.c "$B/libpagesleuth.a" -lzstd -lz -lm -o "$B/gen_records"
bin=$B/pagesleuth

# ---- inputs: N files, cached by the generator's and the writer's source ------------------
genver=$(cat bench/gen_records.c lib/record_write.c | md5sum | cut -c1-8)
dir=$CACHE/$genver
mkdir -p "$dir"
echo "== $N board snapshots in $dir" >&2
files=()
for fw in $(seq 1 $FW); do
	for j in $(seq 1 $PER); do
		f=$dir/fw$fw-$j.rec
		# (-r is a target: the generator takes the nearest count these processes can reach)
		[ -s "$f" ] && [ -s "$f.info" ] ||
			"$B/gen_records" -o "$f" -p 200 -r 40000 -d $((20000 + 200 * fw)) -s $((fw * 1000 + j)) > "$f.info" 2> /dev/null
		files+=("$f")
	done
done
rec_bytes=$(du -cb "${files[@]}" | tail -1 | cut -f1)
m_records=$(for f in "${files[@]}"; do cat "$f.info"; done | sed -n 's/.* m_records=\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { printf "%.0f", s / NR }')

tmp=$(mktemp -d)
chmod 755 "$tmp"
source "$root/tests/cases/lib/pgserver.sh"
trap 'pg_stop; rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

# timed CMD...: wall seconds of one run (its output discarded)
timed() {
	local t0 t1
	t0=$(now)
	"${PIN[@]}" "$@" > /dev/null 2> "$tmp/err" || { [ $? -le 1 ] || { cat "$tmp/err" >&2; return 1; }; }
	t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'
}
# reps CMD...: the median of REPS runs, in ms
reps() {
	for ((i = 0; i < REPS; i++)); do timed "$@"; done | median | awk '{ printf "%.0f", $1 * 1000 }'
}

rows=()
bench_backend() { # NAME DB SIZE_CMD
	local name=$1 db=$2 t0 t1 secs
	echo "== $name: import" >&2
	t0=$(now)
	for fw in $(seq 1 $FW); do
		"${PIN[@]}" "$bin" db import --db "$db" -q -t firmware=1.$fw "${files[@]:$(((fw - 1) * PER)):$PER}"
	done
	t1=$(now)
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
	local size
	size=$(eval "$3")
	local n
	n=$("$bin" db ls --db "$db" -f csv | grep -c ',complete,')
	[ "$n" = "$N" ] || { echo "bench: $name holds $n snapshots, want $N" >&2; exit 1; }
	echo "== $name: queries" >&2
	local ls trend byfw proc cmp chk
	ls=$(reps "$bin" db ls --db "$db")
	trend=$(reps "$bin" db trend --db "$db")
	byfw=$(reps "$bin" db trend --db "$db" --by firmware)
	proc=$(reps "$bin" db trend --db "$db" --by firmware --process "$(top_process)")
	cmp=$(reps "$bin" db compare --db "$db" firmware=1.1 firmware=1.$FW)
	chk=$(reps "$bin" db check --db "$db" --baseline firmware=1.1 --candidate firmware=1.$FW --max-growth 3% --each process)
	rows+=("| $name | $(awk -v s="$secs" 'BEGIN { printf "%.1f", s }') | $(awk -v n="$N" -v s="$secs" 'BEGIN { printf "%.0f", n / s }') | $(awk -v b="$size" -v n="$N" 'BEGIN { printf "%.0f", b / n / 1024 }') | $ls | $trend | $byfw | $proc | $cmp | $chk |")
}
top_process() { "$bin" report -f csv -a pss "$dir/fw1-1.rec" | awk -F, '/^# table: pss$/ { t = 1; getline; next } t && NF > 1 { print $2; exit }'; }

bench_backend SQLite "$tmp/bench.db" 'stat -c %s "$tmp/bench.db"'
if pg_start "$tmp/pg" ""; then
	bench_backend "PostgreSQL 15" "$PG_URL" 'pg_psql pagesleuth "SELECT pg_database_size(current_database())"'
else
	echo "bench: no PostgreSQL server here: its row is left out" >&2
fi

echo "== report -a total over every file, one by one" >&2
t0=$(now)
for f in "${files[@]}"; do "${PIN[@]}" "$bin" report -a total "$f" > /dev/null || [ $? -le 1 ]; done
t1=$(now)
report_ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", (b - a) * 1000 }')

echo
echo "$N snapshots (200 processes, $m_records mapping records and $((rec_bytes / N / 1024)) KiB of records each on average; $((rec_bytes / 1048576)) MiB in all), $(nproc) CPUs, load before: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| backend | import s | snapshots/s | KiB per snapshot | ls ms | trend ms | trend --by ms | trend --process ms | compare ms | check --each ms |"
echo "|---|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo
echo "Without a database: \`pagesleuth report -a total\` over the $N files one by one: $report_ms ms."
