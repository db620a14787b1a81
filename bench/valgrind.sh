#!/usr/bin/env bash
# bench/valgrind.sh - slowdown of the pagesleuth Valgrind tool against native, side by side
# in one run with Valgrind's --tool=none, DHAT and the Lackey --trace-mem route, on one
# memory-heavy program (tests/valgrind/bench_mem.c, -O2: a heap array swept sequentially
# read-modify-write, page by page, and at random). Not part of the test suite; prints a
# markdown table for the README.
#
# Time is CPU time (user + system of the whole command, children included), best of
# BENCH_REPS runs (default 3): on a shared machine wall time measures the neighbours. Runs are
# pinned to BENCH_CPU (default 0; "none" = no pinning).
#
# Two programs per configuration:
#   - the benchmark, BENCH_PASSES passes over BENCH_MIB MiB (default 24 x 64: native >= 2 s,
#     so the tool's fixed start-up weighs what it weighs for a program that runs a while);
#   - an empty program (main returns at once): the fixed start-up cost of each
#     configuration (loading the tool, reading debug information), reported separately.
# Columns: CPU seconds of the benchmark, x native, the empty program's CPU seconds, and the
# slowdown with the start-up taken out of both sides ((run - empty) / (native - native empty)),
# what a longer run tends to.
#
# Lackey's route costs ~1000x: it runs on a small instance (LACKEY_PASSES x LACKEY_MIB,
# default 1 x 8) and is extrapolated by guest instructions (its cost is per trace line:
# (small - empty) * instructions(big) / instructions(small) + empty); the table says so.
#
#   bench/valgrind.sh          builds into $B (default /tmp/bench-build) and measures
set -euo pipefail
cd "$(dirname "$0")/.."
B=${B:-/tmp/bench-build}
REPS=${BENCH_REPS:-3}
CPU=${BENCH_CPU:-0}
PASSES=${BENCH_PASSES:-24}
MIB=${BENCH_MIB:-64}
LPASSES=${LACKEY_PASSES:-1}
LMIB=${LACKEY_MIB:-8}
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
printf 'int main(void) { return 0; }\n' >"$tmp/empty.c"
cc -O2 -o "$tmp/empty" "$tmp/empty.c"

# CPU seconds (user + sys, children included) of one run of a shell command line; its
# standard error is kept in $tmp/err
cpu_once() {
	python3 -c '
import resource, subprocess, sys
r = subprocess.run(["bash", "-c", sys.argv[1]], stdout=subprocess.DEVNULL, stderr=open(sys.argv[2], "w"))
u = resource.getrusage(resource.RUSAGE_CHILDREN)
if r.returncode:
    sys.exit(1)
print("%.3f" % (u.ru_utime + u.ru_stime))' "$1" "$tmp/err" || { say "failed: $1: $(tail -2 "$tmp/err")"; return 1; }
}
best() { # COMMAND-LINE [REPS]
	local b="" t
	for _ in $(seq "${2:-$REPS}"); do
		t=$(cpu_once "$1") || return 1
		if [ -z "$b" ] || awk -v t="$t" -v b="$b" 'BEGIN { exit !(t < b) }'; then b=$t; fi
	done
	echo "$b"
}

P=${pin[*]:-}
VG="VALGRIND_LIB=$lib $P valgrind -q"
big="$tmp/bench_mem $PASSES $MIB"
small="$tmp/bench_mem $LPASSES $LMIB"
empty="$tmp/empty"

say "native"
native=$(best "$P $big")
native_empty=$(best "$P $empty")
rows=()
row() { # NAME SECONDS EMPTY-SECONDS [NOTE]
	rows+=("$(awk -v n="$1" -v s="$2" -v e="$3" -v b="$native" -v be="$native_empty" -v note="${4:-}" 'BEGIN {
		printf "| %s | %.2f%s | %.1f× | %.2f | %.1f× |", n, s, note, s / b, e, (s - e) / (b - be) }')")
}
measure() { # NAME TOOL-ARGS (the program is appended)
	say "$1"
	local s e
	s=$(best "$VG $2 $big")
	cp "$tmp/err" "$tmp/err.big"
	e=$(best "$VG $2 $empty")
	row "$1" "$s" "$e"
}
row "native" "$native" "$native_empty"
measure "valgrind --tool=none" "--tool=none"
measure "DHAT (--tool=dhat)" "--tool=dhat --dhat-out-file=$tmp/dhat.json"
measure "pagesleuth: working set (T = τ = 100k)" "--tool=pagesleuth --out=$tmp/ws.rec"
# instructions of the benchmark, for the Lackey extrapolation: the tool reports them at exit,
# but not under -q (VG_(umsg)), hence one more run without it, untimed
instructions() { # PROGRAM-AND-ARGS
	VALGRIND_LIB=$lib valgrind --tool=pagesleuth --out="$tmp/count.rec" $1 2>&1 >/dev/null |
		sed -n 's/.*pagesleuth: \([0-9]*\) instructions.*/\1/p' | tail -1
}
instr_big=$(instructions "$big")
[ -n "$instr_big" ] || { echo "bench/valgrind.sh: the tool reported no instruction count" >&2; exit 1; }
measure "pagesleuth: + hot pages (--hot=20)" "--tool=pagesleuth --hot=20 --out=$tmp/hot.rec"
measure "pagesleuth: + hot pages + objects, heap (--objects=yes --obj-globals=no)" \
	"--tool=pagesleuth --hot=20 --objects=yes --obj-globals=no --out=$tmp/obj.rec"
measure "pagesleuth: + hot pages + objects, heap and globals (--objects=yes)" \
	"--tool=pagesleuth --hot=20 --objects=yes --out=$tmp/objg.rec"

say "Lackey --trace-mem route (small instance, extrapolated)"
instr_small=$(instructions "$small")
[ -n "$instr_small" ] || { echo "bench/valgrind.sh: the tool reported no instruction count" >&2; exit 1; }
lk="VALGRIND_LIB=$lib $P valgrind --tool=lackey --trace-mem=yes --log-fd=9"
conv="$P $B/pagesleuth lackey -o $tmp/lackey.rec"
lackey_small=$(best "$lk $small 9>&1 >/dev/null | $conv" 1)
lackey_empty=$(best "$lk $empty 9>&1 >/dev/null | $conv" 1)
lackey=$(awk -v s="$lackey_small" -v e="$lackey_empty" -v ib="$instr_big" -v is="$instr_small" \
	'BEGIN { printf "%.0f", (s - e) * ib / is + e }')
row "Lackey --trace-mem=yes \\| pagesleuth lackey" "$lackey" "$lackey_empty" " (extrapolated)"

echo "| configuration | CPU s | × native | empty program, CPU s | × native without start-up |"
echo "|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo
echo "bench_mem $PASSES $MIB: $PASSES passes over $MIB MiB, $instr_big guest instructions (native $native s," \
	"best of $REPS). Start-up: an empty program under the same configuration. The Lackey" \
	"row: measured on bench_mem $LPASSES $LMIB ($instr_small instructions: $lackey_small s)" \
	"and extrapolated per guest instruction to the benchmark."
