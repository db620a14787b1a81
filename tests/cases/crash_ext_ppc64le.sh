#!/usr/bin/env bash
# crash_ext_ppc64le.sh - pagesleuth.so inside crash cross-built for ppc64(le) dumps on this
# x86_64 host (crash 8.0.6's own `make target=PPC64`: `make crash-cross ARCH=ppc64le`, ~36 min
# once, cached in $PAGESLEUTH_CACHE/crash-8.0.6-ppc64/), on the ppc64le fixture's makedumpfile
# dumps kdump-d1 and kdump-d31 (-c -d 31) with the kernel's DWARF vmlinux (Debian's -dbg
# package, scripts/fetch-dbg.sh, cached):
#   - crash ends normally, the library loads and `pagesleuth -V` names crash 8.0.6 (PPC64);
#   - the records equal `pagesleuth extract --vmlinux VMLINUX`'s for the same dump apart from
#     the header's source=, and end status=complete;
#   - kdump-d1: every workload process passes gtcheck --referenced against the guest's ground
#     truth; kdump-d31: the same tasks, mms and VMAs as kdump-d1, its user pages excluded (x).
# Not here: the fixture's QEMU ELF (crash refuses it: QEMU writes a malformed ELF header for
# ppc64le guests; `pagesleuth extract` repairs and reads it) and 32-bit PowerPC (crash cannot
# be built for it on an x86_64 host).
# Skips (77), naming the command, when the cross crash has not been built or the -dbg
# package has left the archive; tests/run.sh builds the library when the crash is there.
set -uo pipefail
cd "${PAGESLEUTH_ROOT:-.}" || exit 1
. tests/cases/lib/fixtures.sh
. tests/cases/lib/crashrun.sh
FAST=${PAGESLEUTH_FAST:-build/pagesleuth}
CROSS=${PAGESLEUTH_CRASH806_PPC64:-$CR_CACHE/crash-8.0.6-ppc64/crash}
SO=$CR_EXT_DIR/8.0.6-PPC64/pagesleuth.so
fail=0
bad() { echo "FAIL: $*"; fail=1; }
[ -x "$CROSS" ] || { echo "SKIP: no crash for ppc64le dumps at $CROSS (make crash-cross ARCH=ppc64le builds it, ~36 min)"; exit 77; }
[ -f "$SO" ] || { echo "FAIL: $SO not built (make crash-ext CRASH=$CROSS CRASH_TARGET=PPC64)"; exit 1; }
[ -x "$FAST" ] || { echo "FAIL: no pagesleuth at $FAST"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/crash_ext_ppc64le.XXXXXX")
trap 'rm -rf "$T"' EXIT
CR_TMP=$T CR_TARGET=PPC64
t_start=$(fx_now)
log=$T/fetch
CR_VMLINUX=$(scripts/fetch-dbg.sh --fixture ppc64le 2>"$log" | tail -1)
rc=${PIPESTATUS[0]}
case $rc in
0) echo "vmlinux: $CR_VMLINUX ($(tail -1 "$log"))" ;;
3) echo "SKIP: the ppc64le fixture's -dbg package is not available: $(tail -1 "$log")"; exit 77 ;;
*) echo "FAIL: scripts/fetch-dbg.sh --fixture ppc64le: $(tail -1 "$log")"; exit 1 ;;
esac
GTCHECK=$(fx_gtcheck "$T") || exit 1
fx_groundtruth ppc64le "$T/gt" >"$T/gt.log" 2>&1 || { echo "FAIL: ppc64le ground truth does not convert: $(tail -1 "$T/gt.log")"; exit 1; }

for d in kdump-d1 kdump-d31; do
	echo "== crash 8.0.6 (target PPC64) on ppc64le/$d.kdump"
	dump=$(fx_dump ppc64le "$d.kdump") || { bad "ppc64le/$d.kdump not available"; continue; }
	"$FAST" extract "$dump" --vmlinux "$CR_VMLINUX" -o "$T/ex-$d.rec" 2>"$T/ex-$d.err" ||
		bad "extract --vmlinux $d: exit $?: $(head -2 "$T/ex-$d.err" | tr '\n' ' ')"
	echo "pagesleuth -S -o $T/$d.rec" | cr_session "$d" "$CROSS" "$SO" 8.0.6 "$dump" || fail=1
	cr_messages "$d" | sed 's/^/  /'
	cr_same_as_extract "$d" "$T/$d.rec" "$T/ex-$d.rec" &&
		{ grep -q '^end status=complete ' "$T/$d.rec" || bad "$d: not complete: $(grep '^end ' "$T/$d.rec")"; }
done

[ -s "$T/kdump-d1.rec" ] && cr_check_gt kdump-d1 "$T/kdump-d1.rec" "$T/gt"
if [ -s "$T/kdump-d1.rec" ] && [ -s "$T/kdump-d31.rec" ]; then
	e1=$(grep '^end ' "$T/kdump-d1.rec" | grep -oE 'tasks=[0-9]+ mms=[0-9]+ vmas=[0-9]+')
	e31=$(grep '^end ' "$T/kdump-d31.rec" | grep -oE 'tasks=[0-9]+ mms=[0-9]+ vmas=[0-9]+')
	if [ -n "$e1" ] && [ "$e1" = "$e31" ]; then
		echo "  kdump-d31: $e31, as kdump-d1"
	else
		bad "kdump-d31: '$e31', kdump-d1 '$e1' (expected equal)"
	fi
	grep -q '^x ' "$T/kdump-d31.rec" || bad "kdump-d31: no excluded (x) pages"
fi
echo "crash_ext_ppc64le: $(fx_elapsed "$t_start") s in all"
[ $fail -eq 0 ] && echo "crash_ext_ppc64le: OK"
exit $fail
