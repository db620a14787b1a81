#!/usr/bin/env bash
# crash_ext_arm64.sh - pagesleuth.so inside crash cross-built for arm64 dumps on this x86_64
# host (crash 8.0.6's own `make target=ARM64`: `make crash-cross`, ~15 min once, cached in
# $PAGESLEUTH_CACHE/crash-8.0.6-arm64/), on the arm64 fixture's QEMU ELF with the kernel's
# DWARF vmlinux (Debian's -dbg package, scripts/fetch-dbg.sh):
#   - the records equal `pagesleuth extract`'s for the same dump apart from source=;
#   - every workload process passes gtcheck --referenced against the guest's ground truth;
#   - `pagesleuth summary -K` prints the tables of `pagesleuth report -a pss` on extract's
#     records, and each workload process's VSS/RSS/USS/SWAP equal smaps' (PSS within its
#     1 KiB flooring per VMA) (lib/crashsummary.py).
# Skips (77), naming the command, when the cross crash has not been built or the -dbg
# package has left the archive; tests/run.sh builds the library when the crash is there.
set -uo pipefail
cd "${PAGESLEUTH_ROOT:-.}" || exit 1
. tests/cases/lib/fixtures.sh
. tests/cases/lib/crashrun.sh
FAST=${PAGESLEUTH_FAST:-build/pagesleuth}
CROSS=${PAGESLEUTH_CRASH806_ARM64:-$CR_CACHE/crash-8.0.6-arm64/crash}
SO=$CR_EXT_DIR/8.0.6-ARM64/pagesleuth.so
fail=0
bad() { echo "FAIL: $*"; fail=1; }
[ -x "$CROSS" ] || { echo "SKIP: no crash for arm64 dumps at $CROSS (make crash-cross builds it)"; exit 77; }
[ -f "$SO" ] || { echo "FAIL: $SO not built (make crash-ext CRASH=$CROSS CRASH_TARGET=ARM64)"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/crash_ext_arm64.XXXXXX")
trap 'rm -rf "$T"' EXIT
CR_TMP=$T CR_TARGET=ARM64
log=$T/fetch
CR_VMLINUX=$(scripts/fetch-dbg.sh --fixture arm64 2>"$log" | tail -1)
rc=${PIPESTATUS[0]}
case $rc in
0) ;;
3) echo "SKIP: the arm64 fixture's -dbg package is not available: $(tail -1 "$log")"; exit 77 ;;
*) echo "FAIL: scripts/fetch-dbg.sh --fixture arm64: $(tail -1 "$log")"; exit 1 ;;
esac
dump=$(fx_dump arm64 qemu.elf) || { echo "FAIL: arm64/qemu.elf not available"; exit 1; }
GTCHECK=$(fx_gtcheck "$T") || exit 1
fx_groundtruth arm64 "$T/gt" || { echo "FAIL: arm64 ground truth does not convert"; exit 1; }

echo "== crash 8.0.6 (target ARM64) on arm64/qemu.elf"
printf 'pagesleuth -S -o %s\npagesleuth summary -K > %s\n' "$T/crash.rec" "$T/crash.sum" |
	cr_session arm64 "$CROSS" "$SO" 8.0.6 "$dump" || fail=1
cr_messages arm64 | sed 's/^/  /'
"$FAST" extract "$dump" -o "$T/extract.rec" 2>"$T/extract.err" || bad "extract: $(head -2 "$T/extract.err")"
cr_same_as_extract arm64 "$T/crash.rec" "$T/extract.rec"
cr_check_gt arm64 "$T/crash.rec" "$T/gt"
"$FAST" report -a pss -f csv "$T/extract.rec" >"$T/extract.pss" 2>/dev/null
python3 tests/cases/lib/crashsummary.py report "$T/crash.sum" "$T/extract.pss" | sed 's/^/  summary: /'
[ "${PIPESTATUS[0]}" -eq 0 ] || bad "summary -K differs from report -a pss of extract's records"
python3 tests/cases/lib/crashsummary.py groundtruth "$T/crash.sum" "$T/gt" | sed 's/^/  summary: /'
[ "${PIPESTATUS[0]}" -eq 0 ] || bad "summary -K differs from the guest's smaps"
[ $fail -eq 0 ] && echo "crash_ext_arm64: OK"
exit $fail
