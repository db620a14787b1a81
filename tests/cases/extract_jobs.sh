#!/usr/bin/env bash
# extract_jobs.sh - the walk of the address spaces split across processes (extract -j N,
# walker/split.c) writes what one process writes, byte for byte, on real dumps:
#   1. x86_64 QEMU ELF and makedumpfile -d 31 kdump (excluded pages), arm64 ELF, armhf ELF
#      and the ppc32 e500 QEMU kdump-zlib (their committed BTF): the records of -j 2
#      (ASan+UBSan: the forked workers too), -j 3 and -j 64 (more processes than mms) are
#      those of -j 1 (whose records extract_fixtures.sh checks against the guest), stderr
#      the same, exit 0; --stats counts the same tasks, mms, VMAs, pages and runs. The
#      fixtures are too small for the default (one process per 64 MiB resident), so -j is
#      given.
#   2. a read error in a worker: x86_64 kdump-d1 recompressed with zlib (makedumpfile -c),
#      one page table of the last mm (which the first worker always walks first) made
#      garbage: -j 1 and -j 3 both exit 1 with the same records and the same stderr: the
#      walk's warns for the table, and the closing "N reads failed; the first: physical
#      address ...: page descriptor ..." (a warn record too), which with -j 3 only the
#      worker's copy of the dump reader saw.
#   3. -j 0, 65, -1, x: refused with one line, exit 2, nothing written.
set -uo pipefail
cd "${PAGESLEUTH_ROOT:-.}" || exit 1
. tests/cases/lib/fixtures.sh
ASAN=${PAGESLEUTH:-build-asan/pagesleuth}
FAST=${PAGESLEUTH_FAST:-build/pagesleuth}
fail=0
bad() { echo "FAIL: $*"; fail=1; }
[ -x "$ASAN" ] || { echo "FAIL: no pagesleuth at $ASAN"; exit 1; }
[ -x "$FAST" ] || FAST=$ASAN
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
T=$(mktemp -d "${TMPDIR:-/tmp}/extract_jobs.XXXXXX")
trap 'rm -rf "$T"' EXIT

# --stats' lines differ by design: time, bytes read and pages decompressed (a worker reads
# again what another one read; the prefetcher stops where workers keep the CPUs busy) ...
stats_lines='^pagesleuth extract: [0-9]* \(tasks\|dump pages decompressed\)'
# ... but not in what they count
counts() { sed -n 's/^\(pagesleuth extract: [0-9]* tasks, .* unknown)\).*/\1/p' "$1"; }

# same FIXTURE FILE [TYPE-INFO ARGS]: -j 2/3/64 against -j 1
same() {
	local fx=$1 file=$2 dump rc j bin
	shift 2
	dump=$(fx_dump "$fx" "$file") || { bad "$fx/$file: not available"; return; }
	"$FAST" extract "$dump" -j 1 -o "$T/j1.rec" --stats "$@" 2>"$T/j1.err"
	rc=$?
	[ $rc = 0 ] || { bad "$fx/$file -j 1: exit $rc: $(head -2 "$T/j1.err")"; return; }
	for j in 2 3 64; do
		bin=$FAST
		[ $j = 2 ] && bin=$ASAN
		"$bin" extract "$dump" -j $j -o "$T/j$j.rec" --stats "$@" 2>"$T/j$j.err"
		rc=$?
		if fx_sanitizer_report "$T/j$j.err"; then
			bad "$fx/$file -j $j: sanitizer report"; head -20 "$T/j$j.err"
		elif [ $rc != 0 ]; then
			bad "$fx/$file -j $j: exit $rc: $(head -2 "$T/j$j.err")"
		elif ! cmp -s "$T/j1.rec" "$T/j$j.rec"; then
			bad "$fx/$file -j $j: records differ from -j 1's: $(diff "$T/j1.rec" "$T/j$j.rec" | head -4 | tr '\n' ' ')"
		elif ! diff -q <(grep -v "$stats_lines" "$T/j1.err") <(grep -v "$stats_lines" "$T/j$j.err") >/dev/null; then
			bad "$fx/$file -j $j: stderr differs from -j 1's: $(diff "$T/j1.err" "$T/j$j.err" | head -4 | tr '\n' ' ')"
		elif [ "$(counts "$T/j1.err")" != "$(counts "$T/j$j.err")" ] || [ -z "$(counts "$T/j1.err")" ]; then
			bad "$fx/$file -j $j: --stats counts '$(counts "$T/j$j.err")', -j 1 '$(counts "$T/j1.err")'"
		fi
	done
	echo "  $fx/$file: -j 2, 3, 64 give -j 1's $(wc -l <"$T/j1.rec") records ($(grep -c '^mm ' "$T/j1.rec") mms) byte for byte"
}

echo "1. -j N against -j 1"
same x86_64 qemu.elf
same x86_64 kdump-d31.kdump
same arm64 qemu.elf
same armhf qemu.elf --btf "$(fx_btf armhf)"
same ppc32-e500-64pte qemu-kdump-zlib.kdump --btf "$(fx_btf ppc32-e500-64pte)"

echo "2. a read error in a worker's stretch"
orig=$(fx_dump x86_64 kdump-d1.kdump) || bad "x86_64/kdump-d1.kdump: not available"
if [ -n "${orig:-}" ] && command -v makedumpfile >/dev/null; then
	if ! makedumpfile -c -d 0 "$orig" "$T/zlib.kdump" >"$T/mk.out" 2>&1; then
		bad "makedumpfile -c failed: $(tail -1 "$T/mk.out")"
	else
		"$FAST" extract "$T/zlib.kdump" -j 1 -o /dev/null --trace "$T/trace" 2>/dev/null
		# the last mm's last page table: "mm ID KVA" and "pt ID LEVEL TABLE_PA VA_START"
		last=$(awk '$1 == "mm" { id = $2 } END { print id }' "$T/trace")
		pa=$(awk -v id="$last" '$1 == "pt" && $2 == id { pa = $4 } END { print pa }' "$T/trace")
		cp "$T/zlib.kdump" "$T/bad.kdump"
		if [ -z "$pa" ] || ! python3 tests/tools/kdump_garble_page.py "$T/bad.kdump" "$pa" >"$T/mut.out" 2>&1; then
			bad "no page table of mm $last to make garbage: ${pa:-none in the trace} $(cat "$T/mut.out" 2>/dev/null)"
		else
			read -r bad_pa bad_desc <"$T/mut.out"
			for j in 1 3; do
				"$ASAN" extract "$T/bad.kdump" -j $j -o "$T/bad$j.rec" 2>"$T/bad$j.err"
				echo $? >"$T/bad$j.rc"
			done
			if fx_sanitizer_report "$T/bad3.err" || fx_sanitizer_report "$T/bad1.err"; then
				bad "garbage page table: sanitizer report"; head -20 "$T/bad3.err" "$T/bad1.err"
			elif [ "$(cat "$T/bad1.rc") $(cat "$T/bad3.rc")" != "1 1" ]; then
				bad "garbage page table 0x$bad_pa of mm $last: exit $(cat "$T/bad1.rc") (-j 1) and $(cat "$T/bad3.rc") (-j 3), want 1 and 1"
			elif ! grep -q "^warn .*failed;%20the%20first:%20physical%20address%200x$bad_pa:%20page%20descriptor%20$bad_desc%20" "$T/bad3.rec"; then
				bad "garbage page table 0x$bad_pa: no warn record names it and descriptor $bad_desc: $(grep '^warn' "$T/bad3.rec" | tail -1)"
			elif ! cmp -s "$T/bad1.rec" "$T/bad3.rec"; then
				bad "garbage page table: -j 3's records differ from -j 1's: $(diff "$T/bad1.rec" "$T/bad3.rec" | head -4 | tr '\n' ' ')"
			elif ! cmp -s "$T/bad1.err" "$T/bad3.err" || ! grep -q "reads\? failed; the first: physical address 0x$bad_pa: page descriptor $bad_desc " "$T/bad3.err"; then
				bad "garbage page table: stderr of -j 3 is not -j 1's, or lacks the read failure: $(diff "$T/bad1.err" "$T/bad3.err" | head -4 | tr '\n' ' ') / $(tail -2 "$T/bad3.err")"
			else
				echo "  page table 0x$bad_pa of mm $last (descriptor $bad_desc) garbage: -j 1 and -j 3 exit 1, same records and stderr ($(grep -c '^warn' "$T/bad3.rec") warn records)"
			fi
		fi
	fi
else
	bad "makedumpfile not installed (make deps)"
fi

echo "3. bad -j values"
dump=$(fx_dump x86_64 qemu.elf) || dump=/nonexistent
for v in 0 65 -1 x; do
	"$FAST" extract "$dump" -j "$v" -o "$T/refused.rec" 2>"$T/refused.err"
	rc=$?
	if [ $rc != 2 ] || [ "$(wc -l <"$T/refused.err")" != 1 ] || [ -e "$T/refused.rec" ]; then
		bad "-j $v: exit $rc, $(wc -l <"$T/refused.err") stderr lines, $( [ -e "$T/refused.rec" ] && echo written || echo 'not written'): $(head -2 "$T/refused.err")"
	fi
done
echo "  -j 0, 65, -1, x: refused, one line each ($(head -1 "$T/refused.err"))"
exit $fail
