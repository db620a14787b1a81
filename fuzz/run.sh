#!/bin/sh
# fuzz/run.sh [SECONDS] [extra libFuzzer args...]
#
# Build the record-reader fuzzer (libFuzzer + ASan + UBSan, needs clang and
# libclang-rt-14-dev) and run it for SECONDS (default 20) on a copy of the committed seed
# corpus, so the committed corpus never grows. Exits non-zero if the fuzzer found a crash,
# leak, hang or UBSan report; the reproducer is left in $B/fuzz/artifacts/.
# B: build directory (default build-fuzz/ in this checkout: another checkout's harnesses, newer than
# these sources, would otherwise be taken as up to date).
set -eu
cd "$(dirname "$0")/.."
secs=${1:-20}
[ $# -gt 0 ] && shift
B=${B:-$PWD/build-fuzz}

make -s B="$B" "$B/fuzz/fuzz_records"

work=$(mktemp -d "${TMPDIR:-/tmp}/fuzz_records.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
cp fuzz/corpus/records/* "$work/"
mkdir -p "$B/fuzz/artifacts"

# -timeout: a single input taking 10 s is a hang. -rss_limit_mb bounds memory. A crash must
# not exit 77 (libFuzzer's default), which tests/run.sh would read as a skip.
"$B/fuzz/fuzz_records" "$work" \
	-max_total_time="$secs" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
	-error_exitcode=1 -timeout_exitcode=1 \
	-dict=fuzz/records.dict -artifact_prefix="$B/fuzz/artifacts/" -print_final_stats=1 "$@"
