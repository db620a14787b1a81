#!/usr/bin/env bash
# fuzz_dumps.sh - a short mutation campaign on real dumps (tests/tools/mutate_dump.py): the
# x86_64 and arm64 fixtures' QEMU ELF dumps, one mutation at a time aimed at the bytes a
# clean extraction reads (headers and notes, page tables, task_structs, mm_structs, VMAs,
# maple nodes, the struct pages of the frame pass, what the counter, slab and log passes
# read), each run by the ASan+UBSan extract and checked: no sanitizer report, no
# hang, exit 0/1/2 as documented, partial results marked, records that read back.
# PAGESLEUTH_FUZZ_DUMP_SECONDS per dump (default 30) and PAGESLEUTH_FUZZ_DUMP_SEED (default
# 1: the same mutations every run). Long campaigns: make fuzz-dumps SECONDS=3600 SEED=N.
# A finding prints its recipe (kind, file offset, old and new bytes) and fails the test.
set -uo pipefail
cd "${PAGESLEUTH_ROOT:-.}" || exit 1
. tests/cases/lib/fixtures.sh
BIN=${PAGESLEUTH:-build-asan/pagesleuth}
FAST=${PAGESLEUTH_FAST:-build/pagesleuth}
[ -x "$BIN" ] || { echo "FAIL: no pagesleuth at $BIN"; exit 1; }
[ -x "$FAST" ] || FAST=$BIN
secs=${PAGESLEUTH_FUZZ_DUMP_SECONDS:-30} seed=${PAGESLEUTH_FUZZ_DUMP_SEED:-1}
T=$(mktemp -d "${TMPDIR:-/tmp}/fuzz_dumps.XXXXXX")
trap 'rm -rf "$T"' EXIT
GTCHECK=$(fx_gtcheck "$T") || exit 1
export GTCHECK
# A private copy of the binary: a rebuild during a long campaign must not change it.
cp "$BIN" "$T/pagesleuth-under-test" && BIN=$T/pagesleuth-under-test || exit 1
fail=0
for fx in x86_64 arm64; do
	dump=$(fx_dump $fx qemu.elf) && btf=$(fx_btf $fx) || { echo "FAIL: $fx fixture not available"; fail=1; continue; }
	cp "$dump" "$T/work.elf" &&
		"$FAST" extract "$dump" --trace "$T/$fx.trace" -o /dev/null 2>/dev/null &&
		"$FAST" profile --btf "$btf" -o "$T/$fx.profile" 2>/dev/null ||
		{ echo "FAIL: $fx: the clean run, its trace or the profile failed"; fail=1; continue; }
	echo "== $fx ($secs s, seed $seed)"
	python3 tests/tools/mutate_dump.py --bin "$BIN" --dump "$dump" --work "$T/work.elf" \
		--trace "$T/$fx.trace" --profile "$T/$fx.profile" --seconds "$secs" --seed "$seed" \
		--findings "${PAGESLEUTH_FUZZ_DUMP_FINDINGS:-$T/findings}" || fail=1
	cmp -s "$dump" "$T/work.elf" || { echo "FAIL: $fx: the work copy was not restored"; fail=1; }
	rm -f "$T/work.elf"
done
[ $fail -eq 0 ] && echo "fuzz_dumps: OK"
exit $fail
