#!/usr/bin/env bash
# Short libFuzzer runs (ASan + UBSan) of the walker core over synthetic kernel memory, one per
# architecture family, so a regression in any of them shows:
#   x86_64  fuzz/fuzz_walker.c: a small consistent x86_64 kernel patched by the input, and the
#           page-table walker on x86_64 and arm64 geometries;
#   ppc64, arm, ppc32  fuzz/fuzz_walker_arch.c: the whole walk (tasks, VMAs, page tables,
#           struct pages) on ppc64 radix/hash 4K/64K LE/BE, 32-bit ARM short/LPAE, ppc32
#           e500 (64/32-bit PTEs) and 44x (4K-256K pages); FUZZ_WALKER_ARCH picks the family.
# Any crash, leak, hang (10 s per input) or UBSan report fails (exit 1: libFuzzer's default
# crash status 77 would read as a skip); the reproducer is left in $B/fuzz/artifacts/.
# PAGESLEUTH_FUZZ_SECONDS is per run (default 15: four runs, about a minute in all). Longer:
# PAGESLEUTH_FUZZ_SECONDS=600 bash tests/cases/fuzz_walker.sh
set -euo pipefail
cd "${PAGESLEUTH_ROOT:-.}"
command -v clang >/dev/null || { echo "skip: clang is not installed (make deps)"; exit 77; }
B=${PAGESLEUTH_FUZZ_BUILD:-$PWD/build-fuzz}
secs=${PAGESLEUTH_FUZZ_SECONDS:-15}
make -s B="$B" "$B/fuzz/fuzz_walker" "$B/fuzz/fuzz_walker_arch"

work=$(mktemp -d "${TMPDIR:-/tmp}/fuzz_walker.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
# The kernel facts of the x86_64 harness: it bakes in the x86_64 profile; when the suite's
# pagesleuth is there, use a fresh one from the committed BTF so new kinfo entries reach the
# fuzzer too. (fuzz_walker_arch builds its own type information per configuration.)
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

# fuzz HARNESS SEEDS_DIR NAME: one run on a copy of the committed seeds (which never grow).
fuzz() {
	local harness=$1 seeds=$2 name=$3
	mkdir "$work/$name"
	cp "$seeds"/* "$work/$name/" 2>/dev/null || true
	echo "fuzz_walker: $name, $secs s"
	"$B/fuzz/$harness" "$work/$name" -max_total_time="$secs" -max_len=2048 -len_control=0 -timeout=10 \
		-rss_limit_mb=2048 -error_exitcode=1 -timeout_exitcode=1 \
		-artifact_prefix="$B/fuzz/artifacts/$name-" -print_final_stats=1 2>"$work/$name.log" || {
		grep -v '^#[0-9]' "$work/$name.log" | tail -60
		echo "FAIL: fuzz_walker $name: see the reproducer in $B/fuzz/artifacts/$name-*"
		return 1
	}
	{ grep -E '^(Done|stat::average_exec_per_sec)' "$work/$name.log" | tr '\n' ' '
	  grep -Eo 'cov: [0-9]+' "$work/$name.log" | tail -1; } || true
}

fuzz fuzz_walker fuzz/corpus/walker x86_64
for arch in ppc64 arm ppc32; do
	FUZZ_WALKER_ARCH=$arch fuzz fuzz_walker_arch fuzz/corpus/walker_arch "$arch"
done
