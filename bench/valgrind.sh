#!/usr/bin/env bash
# bench/valgrind.sh - slowdown of the pagesleuth Valgrind tool against native, side by side
# with Valgrind's own --tool=none, DHAT and the Lackey --trace-mem route, on one memory-heavy
# program (tests/valgrind/bench_mem.c: a 64 MiB heap array swept sequentially, page by page
# and at random, ~1.8e8 data accesses, -O2). Not part of the test suite; prints a markdown
# table for the README.
#
# Time is CPU time (user + system of the whole command, children included): on a shared
# machine wall time measures the neighbours. Best of BENCH_REPS runs (default 3), pinned to
# BENCH_CPU (default 0; "none" = no pinning). Lackey's route costs ~600x or more, so it runs
# on a small instance (1 pass over 8 MiB) and its ratio is against native on that instance.
# The objects row needs the heap modules (valgrind/heap.c); it is left out without them.
#
#   bench/valgrind.sh          builds into $B (default /tmp/bench-build) and measures
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
B=${B:-/tmp/bench-build}
REPS=${BENCH_REPS:-3}
CPU=${BENCH_CPU:-0}
tmp=$(mktemp -d /tmp/bench-valgrind.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

say() { echo "$*" >&2; }
command -v valgrind >/dev/null || { say "valgrind is not installed"; exit 1; }
pin=()
if [ "$CPU" != none ] && command -v taskset >/dev/null; then pin=(taskset -c "$CPU"); fi

say "building the tool and pagesleuth into $B"
make -s B="$B" valgrind-tool "$B/pagesleuth" >&2
lib=$B/valgrind-lib
cc -O2 -g -o "$tmp/bench_mem" tests/valgrind/bench_mem.c

# CPU seconds (user + sys, children included, microsecond resolution) of one run of a
# shell command line
cpu_once() {
	python3 -c '
import resource, subprocess, sys
r = subprocess.run(["bash", "-c", sys.argv[1]], stdout=subprocess.DEVNULL, stderr=open(sys.argv[2], "w"))
u = resource.getrusage(resource.RUSAGE_CHILDREN)
if r.returncode:
    sys.exit(1)
print("%.3f" % (u.ru_utime + u.ru_stime))' "$1" "$tmp/err" || { say "failed: $1: $(tail -2 "$tmp/err")"; return 1; }
}
best() { # COMMAND-LINE
	local b="" t
	for _ in $(seq "$REPS"); do
		t=$(cpu_once "$1") || return 1
		if [ -z "$b" ] || awk -v t="$t" -v b="$b" 'BEGIN { exit !(t < b) }'; then b=$t; fi
	done
	echo "$b"
}

P=${pin[*]:-}
VG="VALGRIND_LIB=$lib $P valgrind -q"
big="$tmp/bench_mem"
small="$tmp/bench_mem 1 8"
objects=""
if VALGRIND_LIB=$lib valgrind --tool=pagesleuth --help 2>/dev/null | grep -q -- "--objects"; then
	objects=yes
fi

say "native"
native=$(best "$P $big")
native_small=$(best "$P $small")
rows=()
row() { # NAME SECONDS BASE
	rows+=("$(awk -v n="$1" -v s="$2" -v b="$3" 'BEGIN { printf "| %s | %.3f | %.1f× |", n, s, s / b }')")
}
row "native" "$native" "$native"
say "--tool=none"
row "valgrind --tool=none" "$(best "$VG --tool=none $big")" "$native"
say "dhat"
row "DHAT (--tool=dhat)" "$(best "$VG --tool=dhat --dhat-out-file=$tmp/dhat.json $big")" "$native"
say "pagesleuth: working set"
row "pagesleuth: working set (T = τ = 100k)" \
	"$(best "$VG --tool=pagesleuth --out=$tmp/ws.rec $big")" "$native"
say "pagesleuth: working set + hot pages"
row "pagesleuth: + hot pages (--hot=20)" \
	"$(best "$VG --tool=pagesleuth --hot=20 --out=$tmp/hot.rec $big")" "$native"
if [ -n "$objects" ]; then
	say "pagesleuth: working set + hot pages + objects"
	row "pagesleuth: + hot pages + objects (--objects=yes)" \
		"$(best "$VG --tool=pagesleuth --hot=20 --objects=yes --out=$tmp/obj.rec $big")" "$native"
fi
say "Lackey --trace-mem route (small instance)"
lackey=$(REPS=1 best "VALGRIND_LIB=$lib $P valgrind --tool=lackey --trace-mem=yes --log-fd=9 $small 9>&1 >/dev/null | $P $B/pagesleuth lackey -o $tmp/lackey.rec")
row "Lackey --trace-mem \\| pagesleuth lackey (1 pass, 8 MiB)" "$lackey" "$native_small"

echo "| configuration | CPU s | × native |"
echo "|---|---|---|"
printf '%s\n' "${rows[@]}"
echo
echo "bench_mem: 6 passes over 64 MiB (native $native s); the Lackey row: 1 pass over 8 MiB (native $native_small s)."
