#!/usr/bin/env bash
# Parse/analyse throughput of `pagesleuth report`, and its memory. Not part of the test suite
# (nothing here asserts a time); run by hand or with `make bench`.
#
#   bench/run.sh          the full run: 5M/20M/20M mapping records (~0.3 + 1.1 + 1.1 GB)
#   bench/run.sh quick    a tenth of that, to check the script
# Then bench/extract.sh: dump extraction vs crash and drgn (see there; BENCH_EXTRACT=0 skips).
#
# Builds into $B (default /tmp/bench-build), generates the record files with
# bench/gen_records into ${PAGESLEUTH_CACHE:-/var/cache/pagesleuth}/bench (cached by their
# parameters and the generator's source), then measures pinned to one core (BENCH_CPU,
# default 0), BENCH_REPS times (default 3), and prints one markdown table of medians:
#   read_only   the record reader alone (bench/read_only.c: a loop over ps_read)
#   report      `pagesleuth report FILE` (the default analyses)
#   report -a all   every analysis but the page dump (resident maps included)
# for two files with the same distinct PFNs and 1x / 4x the mapping records, and one with 4x
# the distinct PFNs: peak RSS should follow the distinct PFNs, not the file size.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
B=${B:-/tmp/bench-build}
CPU=${BENCH_CPU:-0}
REPS=${BENCH_REPS:-3}
CACHE=${PAGESLEUTH_CACHE:-/var/cache/pagesleuth}/bench
PROCS=${BENCH_PROCS:-200}
scale=1
[ "${1:-}" = quick ] && scale=10

# name m_records distinct_pfns
files=(
	"A $((5000000 / scale)) $((2000000 / scale))"
	"B $((20000000 / scale)) $((2000000 / scale))"
	"C $((20000000 / scale)) $((8000000 / scale))"
)

# ---- tools ---------------------------------------------------------------------------------
if [ ! -x /usr/bin/time ] || ! /usr/bin/time -f '%e' true >/dev/null 2>&1; then
	echo "== installing GNU time (Debian package 'time')" >&2
	if [ "$(id -u)" = 0 ]; then
		apt-get install -y -q time >&2 || { apt-get update -q >&2 && apt-get install -y -q time >&2; }
	else
		sudo apt-get install -y -q time >&2
	fi
fi
command -v taskset >/dev/null || { echo "bench: taskset (util-linux) is missing" >&2; exit 2; }

echo "== build ($B)" >&2
make -s B="$B" "$B/pagesleuth" "$B/libpagesleuth.a" >&2
CFL=(-std=gnu11 -D_GNU_SOURCE -Wall -Wextra -O2 -g -Ilib)
cc "${CFL[@]}" bench/gen_records.c "$B/libpagesleuth.a" -lzstd -lz -lm -o "$B/gen_records"
cc "${CFL[@]}" bench/read_only.c "$B/libpagesleuth.a" -lzstd -lz -o "$B/read_only"

# ---- inputs --------------------------------------------------------------------------------
mkdir -p "$CACHE" 2>/dev/null || { CACHE=$root/.cache/bench; mkdir -p "$CACHE"; }
genver=$(cat bench/gen_records.c lib/record_write.c | md5sum | cut -c1-8)
declare -A path info
for f in "${files[@]}"; do
	set -- $f
	p=$CACHE/p$PROCS-r$2-d$3-s1-$genver.rec
	if [ ! -s "$p" ] || [ ! -s "$p.info" ]; then
		echo "== generating $p" >&2
		"$B/gen_records" -o "$p" -p "$PROCS" -r "$2" -d "$3" -s 1 >"$p.info"
	fi
	path[$1]=$p
	info[$1]=$(cat "$p.info")
	echo "   $1: ${info[$1]}" >&2
done
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

# ---- measuring -----------------------------------------------------------------------------
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run NAME FILE CMD...: REPS runs; prints "wall cpu rss_kib" medians
run() {
	local name=$1 file=$2
	shift 2
	: >"$tmp/$name"
	for ((i = 0; i < REPS; i++)); do
		cat "$file" >/dev/null # page cache warm: we measure parsing, not the disk
		local rc=0
		taskset -c "$CPU" /usr/bin/time -f '%e %U %S %M' -o "$tmp/t" "$@" "$file" \
			>/dev/null 2>"$tmp/err" || rc=$?
		if [ "$rc" -gt 1 ]; then
			echo "bench: $* $file failed (exit $rc):" >&2
			cat "$tmp/err" >&2
			exit 1
		fi
		awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$tmp/t" >>"$tmp/$name"
	done
	echo "$(cut -d' ' -f1 "$tmp/$name" | median) $(cut -d' ' -f2 "$tmp/$name" | median)" \
	     "$(cut -d' ' -f3 "$tmp/$name" | median)"
}

modes=("read_only|$B/read_only" "report|$B/pagesleuth report" "report -a all|$B/pagesleuth report -a all")
rows=()
for f in "${files[@]}"; do
	set -- $f
	name=$1 file=${path[$1]}
	recs=$(field m_records "${info[$name]}")
	pfns=$(field distinct_pfns "${info[$name]}")
	bytes=$(field bytes "${info[$name]}")
	for m in "${modes[@]}"; do
		label=${m%%|*}
		read -r -a cmd <<<"${m#*|}"
		echo "== $name: $label (x$REPS)" >&2
		read -r wall cpu rss < <(run "$name-${label// /_}" "$file" "${cmd[@]}")
		rows+=("$(awk -v n="$name" -v l="$label" -v r="$recs" -v p="$pfns" -v b="$bytes" \
			-v w="$wall" -v c="$cpu" -v k="$rss" 'BEGIN {
			printf "| %s | %.1f M | %.2f M | %.0f MB | `%s` | %.2f | **%.2f** | %.2f | %.2f | %.0f |",
				n, r / 1e6, p / 1e6, b / 1e6, l, w, r / w / 1e6, c, r / (c > 0 ? c : 1e-9) / 1e6,
				k / 1024 }')")
	done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- the table -----------------------------------------------------------------------------
cpu_model=$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)
cat <<EOF

Record parsing throughput (bench/run.sh, $(date -u +%Y-%m-%d); $PROCS processes; median of $REPS runs,
pinned to CPU $CPU with taskset; page cache warm). M rec/s counts m (mapping) records.

| file | m records | distinct PFNs | size | command | wall s | M rec/s (wall) | CPU s | M rec/s (CPU) | peak RSS MiB |
|---|---|---|---|---|---|---|---|---|---|
EOF
printf '%s\n' "${rows[@]}"
cat <<EOF

Machine: $(nproc) CPUs ($cpu_model), shared; load average $load_before before, $load_after after
(1/5/15 min). CPU s = user + system time of the process, which the load does not inflate; wall s
is what the shared core gave us. A and B have the same distinct PFNs and 1x/4x the records;
C has 4x the distinct PFNs of B and the same records.
EOF

# ---- dump extraction -----------------------------------------------------------------------
# `pagesleuth extract` vs crash / drgn / the read floor on the big dump (bench/extract.sh), when
# that dump was generated (make bench-dump: bench/bigdump/gen.py + scripts/build-crash.sh);
# otherwise only pagesleuth's pages/s on the fixture dumps. BENCH_EXTRACT=0 skips both.
if [ "${BENCH_EXTRACT:-1}" != 0 ]; then
	echo "== dump extraction (bench/extract.sh)" >&2
	if [ -f "${PAGESLEUTH_CACHE:-/var/cache/pagesleuth}/bench/bigdump/qemu.kdump" ]; then
		B="$B" bench/extract.sh
	else
		echo "   no big dump (make bench-dump generates it): fixture pages/s only" >&2
		B="$B" bench/extract.sh fixtures
	fi
fi
