#!/usr/bin/env bash
# bench/live.sh - live collection speed: `pagesleuth snap` per GiB of resident memory, and the
# cost of a `pagesleuth wss` measurement of a big process by each method this kernel offers,
# against reading smaps and against the number wss-v2 publishes (0.8 s for a 20 GB process,
# Brendan Gregg, "Working Set Size Estimation", 2018). Not part of the test suite (nothing here
# asserts a time); run by hand as root:
#
#   bench/live.sh           a 3 GiB process (BENCH_LIVE_GIB=N for another size)
#
# Builds pagesleuth into $B (default /tmp/bench-build) and tests/tools/wss_toucher.c, starts
# one toucher with GIB GiB of anonymous memory written (4 KiB pages, THP off), and measures
# wall time, best of BENCH_REPS (default 3):
#   snap --pid P -o FILE      the whole snapshot (pagemap, kpageflags, kpagecount, records)
#   smaps / smaps_rollup      reading the file (cat > /dev/null): the kernel's own page walk
#   clear_refs                writing 1 (the referenced method's reset)
#   wss referenced            the whole `wss -m referenced P 0.001` run; its overhead is the
#                             run minus 1 ms: one clear_refs plus one smaps_rollup read
#   wss idle                  the same with -m idle, when /sys/kernel/mm/page_idle/bitmap exists
# and prints one markdown table for the README, per GiB and scaled to 20 GiB (linear: the
# costs are page walks).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${B:-/tmp/bench-build}
GIB=${BENCH_LIVE_GIB:-3}
REPS=${BENCH_REPS:-3}
[ "$(id -u)" = 0 ] || { echo "bench/live.sh: needs root (PFNs, clear_refs of any process)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/bench-live.XXXXXX)
pid=""
cleanup() { [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

echo "== building pagesleuth in $B" >&2
make -s B="$B" "$B/pagesleuth" >&2
cc -std=gnu11 -D_GNU_SOURCE -O2 -static -o "$tmp/toucher" tests/tools/wss_toucher.c 2>/dev/null ||
	cc -std=gnu11 -D_GNU_SOURCE -O2 -o "$tmp/toucher" tests/tools/wss_toucher.c
pages=$((GIB * 262144))
echo "== starting a process with $GIB GiB written ($pages pages)" >&2
"$tmp/toucher" hot $pages 1 1000 >"$tmp/toucher.out" &
pid=$!
for _ in $(seq 600); do grep -q '^ready' "$tmp/toucher.out" && break; sleep 0.1; done
grep -q '^ready' "$tmp/toucher.out" || { echo "toucher did not start" >&2; exit 1; }
rss_kb=$(awk '$1 == "Rss:" { print $2 }' /proc/$pid/smaps_rollup)
rss_gib=$(awk -v k="$rss_kb" 'BEGIN { printf "%.2f", k / 1048576 }')

now() { date +%s%N; }
best() { # CMD...: best wall seconds of $REPS runs
	local best="" t0 t1 s
	for _ in $(seq "$REPS"); do
		t0=$(now)
		"$@" >/dev/null 2>&1 || true
		t1=$(now)
		s=$(( t1 - t0 ))
		[ -z "$best" ] || [ "$s" -lt "$best" ] && best=$s
	done
	awk -v ns="$best" 'BEGIN { printf "%.3f", ns / 1e9 }'
}
clear_refs() { echo 1 >"/proc/$pid/clear_refs"; }

echo "== measuring (best of $REPS)" >&2
t_snap=$(best "$B/pagesleuth" snap --pid $pid -o "$tmp/snap.rec")
runs=$(grep -c '^m ' "$tmp/snap.rec" || true)
t_smaps=$(best cat /proc/$pid/smaps)
t_rollup=$(best cat /proc/$pid/smaps_rollup)
t_clear=$(best clear_refs)
t_wss_ref=$(best "$B/pagesleuth" wss -m referenced $pid 0.001)
t_wss_idle="n/a"
if [ -w /sys/kernel/mm/page_idle/bitmap ]; then
	t_wss_idle=$(best "$B/pagesleuth" wss -m idle $pid 0.001)
fi

row() { # NAME SECONDS NOTE
	if [ "$2" = n/a ]; then
		printf '| %s | n/a | n/a | n/a | %s |\n' "$1" "$3"
		return
	fi
	awk -v n="$1" -v s="$2" -v g="$rss_gib" -v note="$3" 'BEGIN {
		printf "| %s | %.3f | %.3f | %.2f | %s |\n", n, s, s / g, s / g * 20, note }'
}
echo
echo "Live collection, one process with $rss_gib GiB resident (4 KiB pages), $(uname -r), $(nproc) CPUs, best of $REPS:"
echo
echo "| operation | seconds | s per GiB | s for 20 GiB (scaled) | note |"
echo "|---|---|---|---|---|"
row "pagesleuth snap --pid (whole record file)" "$t_snap" "$runs page runs written"
row "cat smaps" "$t_smaps" "the kernel's walk + text"
row "cat smaps_rollup" "$t_rollup" "one walk, one summary"
row "clear_refs (write 1)" "$t_clear" "referenced method's reset"
row "pagesleuth wss -m referenced P 0.001" "$t_wss_ref" "clear_refs + smaps_rollup + 1 ms"
row "pagesleuth wss -m idle P 0.001" "$t_wss_idle" "$([ "$t_wss_idle" = n/a ] && echo 'no /sys/kernel/mm/page_idle/bitmap on this kernel' || echo 'pagemap twice, bitmap write + read')"
echo "| wss-v2 (published, idle method) | 0.8 | 0.04 | 0.8 | 20 GB process, whole-system bitmap read |"
