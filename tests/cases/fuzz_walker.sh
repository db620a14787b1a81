#!/usr/bin/env bash
# A short libFuzzer run (ASan + UBSan) of the walker core over synthetic kernel memory
# (fuzz/fuzz_walker.c: a small consistent x86_64 kernel image patched by the fuzz input, and
# the page-table walker on x86_64 and arm64 geometries): any crash, leak, hang (10 s per
# input) or UBSan report fails (exit 1: libFuzzer's default crash status 77 would read as a
# skip). Longer: PAGESLEUTH_FUZZ_SECONDS=600 bash tests/cases/fuzz_walker.sh
set -euo pipefail
cd "${PAGESLEUTH_ROOT:-.}"
command -v clang >/dev/null || { echo "skip: clang is not installed (make deps)"; exit 77; }
B=${PAGESLEUTH_FUZZ_BUILD:-/tmp/pagesleuth-fuzz}
secs=${PAGESLEUTH_FUZZ_SECONDS:-20}
make -s B="$B" "$B/fuzz/fuzz_walker"

work=$(mktemp -d "${TMPDIR:-/tmp}/fuzz_walker.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
# The committed seeds (modes and options); the harness's built-in kernel is under every input.
mkdir "$work/corpus"
cp fuzz/corpus/walker/* "$work/corpus/" 2>/dev/null || true
# The kernel facts: the harness bakes in the x86_64 profile; when the suite's pagesleuth is
# there, use a fresh one from the committed BTF so new kinfo entries reach the fuzzer too.
bin=${PAGESLEUTH_FAST:-${PAGESLEUTH:-}}
if [ -n "$bin" ] && [ -x "$bin" ] && . tests/cases/lib/fixtures.sh && btf=$(fx_btf x86_64) &&
	"$bin" profile --btf "$btf" -o "$work/x86_64.profile" 2>/dev/null; then
	export PAGESLEUTH_FUZZ_PROFILE=$work/x86_64.profile
	echo "fuzz_walker: kernel facts from $btf"
else
	echo "fuzz_walker: kernel facts: the harness's built-in x86_64 profile"
fi
mkdir -p "$B/fuzz/artifacts"
# UBSan only reports and goes on unless told to stop (tests/run.sh says so; standalone too).
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
"$B/fuzz/fuzz_walker" "$work/corpus" -max_total_time="$secs" -max_len=2048 -len_control=0 -timeout=10 \
	-rss_limit_mb=2048 -error_exitcode=1 -timeout_exitcode=1 \
	-artifact_prefix="$B/fuzz/artifacts/walker-" -print_final_stats=1
