#!/usr/bin/env bash
# fuzz_trace.sh - a short libFuzzer run (ASan + UBSan) of trace records through the analyzer:
# model_load, every trace analysis, every renderer (fuzz/fuzz_trace.c). Seeds: the trace
# lines of examples/trace-example.rec and a few hostile ones; a dictionary of the trace tags
# and keys. Any crash, leak, hang (10 s per input), UBSan report or broken invariant fails.
# PAGESLEUTH_FUZZ_SECONDS (default 20) sets the length (PAGESLEUTH_FUZZ_RUNS: at most that many inputs); the reproducer is left in
# $B/fuzz/artifacts/. Run from the repository root.
set -euo pipefail
command -v clang >/dev/null || { echo "skip: clang is not installed (make deps)"; exit 77; }
secs=${PAGESLEUTH_FUZZ_SECONDS:-20}
B=${PAGESLEUTH_FUZZ_BUILD:-$PWD/build-fuzz}
bin=$B/fuzz/fuzz_trace
mkdir -p "$B/fuzz/artifacts"

# The Makefile's rule (ASan, UBSan fatal so libFuzzer sees its reports); make rebuilds it
# when a source changed.
make -s B="$B" "$bin" >/dev/null || { echo "FAIL: cannot build $bin"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/fuzz_trace.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
mkdir "$work/corpus"
# seeds: the example's trace lines (the harness adds magic and header), each kind alone
grep -vE '^(#|pagesleuth-records|header)' examples/trace-example.rec >"$work/corpus/example"
for tag in frame ws peak hot obj alloc mark wss; do
	grep -E "^(frame|$tag) " examples/trace-example.rec >"$work/corpus/$tag" || true
done
printf '%s\n' 'frame id=1 ip=10 fn=%3Cs%3E file=a%22b%26c%27.c line=1 obj=%FF%FE%01bin' \
	'ws t=1 tid=0 code=1 data=2' 'ws t=1 tid=0 code=1 data=2' 'peak t=1 tid=0 kind=data pages=2 stack=1,1' \
	'mark t=1 text=%1B%5B31m%3C%2Fsvg%3E%C2%9B' 'alloc id=2 parent=1 frame=1' \
	'alloc id=1 parent=- group=%0A peak=18446744073709551609' >"$work/corpus/hostile"
{
	for w in frame ws peak hot obj alloc mark wss; do printf '"%s "\n' "$w"; done
	for k in id ip fn file line obj t tid code data tau final samples avg_code avg_data peak_code \
		peak_data total_code total_data kind pages stack page accesses frame rank name size \
		blocks loads stores bload bstore parent group cur peak max total text pid method mode \
		seq dur est rss pss ref; do printf '" %s="\n' "$k"; done
	for v in code data heap global referenced idle once cumulative profile - 0 1 0.000 \
		18446744073709551609 18446744073709551610 ffffffffffffffff %00 %0A %3C %C3%A9 ,; do
		printf '"%s"\n' "$v"
	done
	printf '"\\x0a"\n'
} >"$work/dict"

# -timeout: one input taking 10 s is a hang. A crash must not exit 77 (a skip to tests/run.sh).
"$bin" "$work/corpus" -max_total_time="$secs" -runs="${PAGESLEUTH_FUZZ_RUNS:--1}" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
	-error_exitcode=1 -timeout_exitcode=1 -dict="$work/dict" \
	-artifact_prefix="$B/fuzz/artifacts/" -print_final_stats=1 2>"$work/log" || {
	tail -40 "$work/log"
	echo "FAIL: fuzz_trace found a problem; reproducer in $B/fuzz/artifacts/"
	exit 1
}
grep -E '^stat::number_of_executed_units|^Done' "$work/log" | tr '\n' ' '
echo
echo "fuzz_trace: no crash, leak, hang or broken invariant"
