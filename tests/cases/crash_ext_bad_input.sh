#!/usr/bin/env bash
# crash_ext_bad_input.sh - the `pagesleuth` command inside Debian's crash 8.0.2 on damaged
# input: a COPY of the x86_64-selfbuilt QEMU ELF fixture (lib/crashrun.sh cr_fixture; never the
# cached file) corrupted in place the way extract_bad_input.sh does it (objects found with `pagesleuth extract --trace`, physical
# addresses mapped to file offsets by lib/elfphys.py, struct offsets from the profile crash's
# own type information gives, `pagesleuth -P`; every patch undone after its crash run):
#   - a bad pid: `pagesleuth -p 99999,REAL` says "pid 99999" in a message and still writes
#     REAL: the same task/mm/vma/page records as `pagesleuth -p REAL` (header pids=, warn and
#     end status aside);
#   - a task exiting mid-dump (refbits' task_struct: PF_EXITING set in flags, exit_state =
#     EXIT_ZOMBIE, mm = NULL): `pagesleuth -p EXITING,REAL` prints a message naming
#     "pid EXITING" and saying it was exiting, and writes REAL as the clean run does; a
#     `pagesleuth` of every process writes no address space for it and every other process's
#     pages exactly as the clean run (records.py same-pages);
#   - an unreadable page-table page (anon-sparse's PMD entry for its workload region pointing
#     4 GiB beyond the dump's last frame): a partial result (a "pagesleuth: partial: ..."
#     message, a warn record, end status=partial, the file reads back with gtcheck --validate),
#     the pages under that PMD entry 'u' (none 'm'), every other page and every task/mm/vma
#     record as the clean run; `pagesleuth summary -K` there says "partial" as the records
#     command does, and its tables equal `pagesleuth report -a pss` of that command's
#     records (lib/crashsummary.py);
#   - a zeroed PTE table (cow-file's workload region): its pages vanish or become 'u', every
#     other page and every task/mm/vma record as the clean run.
# Every crash run is bounded by `timeout` and must end normally: exit 0, no segmentation
# violation, and crash still answers `pagesleuth -V` after the damaged command. The library
# is the ASan+UBSan build (build-asan/crash-ext/, PAGESLEUTH_CRASH_ASAN_EXT_DIR; its absence
# fails), run with the sanitizer runtimes preloaded into crash: a sanitizer report fails.
set -uo pipefail
cd "${PAGESLEUTH_ROOT:-.}" || exit 1
. tests/cases/lib/fixtures.sh
. tests/cases/lib/crashrun.sh
FAST=${PAGESLEUTH_FAST:-build/pagesleuth}
[ -x "$FAST" ] || FAST=${PAGESLEUTH:-build-asan/pagesleuth}
fail=0
bad() { echo "FAIL: $*"; fail=1; }
[ -x "$FAST" ] || { echo "FAIL: no pagesleuth at $FAST"; exit 1; }
command -v python3 >/dev/null || { echo "FAIL: python3 not installed"; exit 1; }
[ -x "$CR_CRASH802" ] || { echo "FAIL: no crash 8.0.2 at $CR_CRASH802 (scripts/install-deps.sh installs Debian's crash)"; exit 1; }
SO=$(cr_ext 8.0.2) || { echo "FAIL: pagesleuth.so for crash 8.0.2 not built"; exit 1; }
# The ASan+UBSan build (tests/run.sh makes it), the runtimes preloaded.
if ASO=$(cr_asan_ext 8.0.2); then
	SO=$ASO CR_SANITIZE=1 CR_SANITIZE_SO=$ASO
	echo "pagesleuth.so: $SO (ASan+UBSan, its runtimes preloaded into crash)"
else
	echo "FAIL: no ASan+UBSan build of pagesleuth.so in $CR_ASAN_EXT_DIR (tests/run.sh makes it)"
	exit 1
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/crash_ext_bad_input.XXXXXX")
trap 'rm -rf "$T"' EXIT
CR_TMP=$T
REC="python3 tests/cases/lib/records.py"
PHYS="python3 tests/cases/lib/elfphys.py"
t_start=$(fx_now)

cr_fixture
case $? in
0) ;;
3) echo "SKIP: no DWARF vmlinux for crash: neither the fixture's -dbg package nor the current kernel's is available (PAGESLEUTH_CRASH_FIXTURE=$CR_FX)"; exit 77 ;;
*) echo "FAIL: no fixture/vmlinux for crash"; exit 1 ;;
esac
GTCHECK=$(fx_gtcheck "$T") || exit 1
cr_groundtruth "$T/gt" >"$T/gt.log" 2>&1 || { echo "FAIL: the ground truth does not convert: $(tail -1 "$T/gt.log")"; exit 1; }
ELF=$(cr_dump qemu.elf) || exit 1
work=$T/work.elf
cp "$ELF" "$work" || { echo "FAIL: cannot copy $ELF"; exit 1; }
"$FAST" extract "$work" --trace "$T/trace" -o "$T/ex.rec" 2>"$T/ex.err" ||
	{ echo "FAIL: extract --trace of the clean copy failed: $(head -3 "$T/ex.err")"; exit 1; }
pid_of() { awk -v r="$1" '$2 == r { print $1 }' "$T/gt/procs"; }
mm_of() { # REC TGID: the mm id
	awk -v t="tgid=$2" '$1 == "mm" { id = ""; hit = 0
		for (i = 2; i <= NF; i++) { if ($i ~ /^id=/) id = substr($i, 4); if ($i == t) hit = 1 }
		if (hit) { print id; exit } }' "$1"
}
REAL=$(pid_of threads) EXITING=$(pid_of refbits) PMDPID=$(pid_of anon-sparse) ZPID=$(pid_of cow-file)
[ -n "$REAL" ] && [ -n "$EXITING" ] && [ -n "$PMDPID" ] && [ -n "$ZPID" ] ||
	{ echo "FAIL: the ground truth lacks one of the roles threads, refbits, anon-sparse, cow-file"; exit 1; }
echo "work copy $work; pids: real $REAL (threads), exiting $EXITING (refbits), PMD $PMDPID (anon-sparse), zeroed PTE table $ZPID (cow-file)"

# Patches of the work copy: patch PA HEX records the old bytes, unpatch_all restores them.
PATCHES=()
patch() {
	local old
	old=$($PHYS "$work" write "$1" "$2") || { bad "cannot patch the copy at $1"; return 1; }
	PATCHES+=("$1 $old")
}
unpatch_all() {
	local i pa old
	for ((i = ${#PATCHES[@]} - 1; i >= 0; i--)); do
		read -r pa old <<<"${PATCHES[$i]}"
		$PHYS "$work" write "$pa" "$old" >/dev/null || { bad "cannot restore the copy at $pa"; exit 1; }
	done
	PATCHES=()
}
hex() { printf %x "$1"; }
le() { python3 -c "import struct, sys; print(struct.pack('<' + sys.argv[1], int(sys.argv[2], 0) & (2**64 - 1)).hex())" "$1" "$2"; }
session() { cr_session "$@" || bad "crash $1: did not end normally"; }
# structure REC: the task/mm/vma/sum lines (no header, warn, end).
structure() { grep -E '^(task|mm|vma|sum) ' "$1"; }
# page_table MM VA DEPTH: "PA VA_START" of the page table DEPTH levels above the last one
# (0 = the PTE table, 1 = the PMD table) that maps VA, from the trace's pt lines.
page_table() {
	python3 - "$T/trace" "$1" "$2" "$3" <<'PY'
import sys
trace, mm, va, depth = sys.argv[1], sys.argv[2], int(sys.argv[3], 16), int(sys.argv[4])
pts = set()
for l in open(trace):
    f = l.split()
    if len(f) == 5 and f[0] == "pt" and f[1] == mm:
        pts.add((int(f[2]), int(f[3], 16), int(f[4], 16)))
if pts:
    last = max(l for l, _, _ in pts)
    level = last - depth
    span = 1 << (12 + 9 * (depth + 1))
    for l, pa, start in sorted(pts):
        if l == level and start <= va < start + span:
            print("%x %x" % (pa, start))
            break
PY
}

echo "== clean copy, and a pid that is not in the dump"
session clean "$CR_CRASH802" "$SO" 8.0.2 "$work" <<EOF
pagesleuth -P $T/crash.profile
pagesleuth -o $T/clean.rec
pagesleuth -p $REAL -o $T/real.rec
pagesleuth -p 99999,$REAL -o $T/badpid.rec
EOF
awk 'NR == 2 && $1 == "header" { for (i = 2; i <= NF; i++) if ($i == "source=crash") $i = "source=coredump" } { print }' \
	"$T/clean.rec" 2>/dev/null | cmp -s - "$T/ex.rec" ||
	bad "the clean copy's records differ from extract's (source= aside): the reference for the damaged runs is wrong"
echo "  clean: $(grep -m1 '^end ' "$T/clean.rec" 2>/dev/null)"
msg=$(cr_messages clean | grep -E 'pid 99999\b')
echo "  -p 99999,$REAL: ${msg:-(no message naming pid 99999)}"
[ -n "$msg" ] || bad "-p 99999,$REAL: no message naming 'pid 99999': $(cr_messages clean | tr '\n' ' ')"
if [ -n "$(mm_of "$T/badpid.rec" "$REAL")" ]; then
	$REC same-pages "$T/real.rec" "$T/badpid.rec" | sed 's/^/  /'
	[ "${PIPESTATUS[0]}" -eq 0 ] || bad "-p 99999,$REAL: pid $REAL's pages differ from -p $REAL"
	cmp -s <(structure "$T/real.rec") <(structure "$T/badpid.rec") ||
		bad "-p 99999,$REAL: task/mm/vma/sum records differ from -p $REAL"
	echo "  -p 99999,$REAL: pid $REAL written, $(structure "$T/badpid.rec" | wc -l) task/mm/vma/sum lines as -p $REAL; $(grep -m1 '^end ' "$T/badpid.rec")"
else
	bad "-p 99999,$REAL: pid $REAL not written"
fi

# The table crash's gdb gave equals the one pagesleuth reads from DWARF itself, build id
# included; only the line naming the source differs.
if "$FAST" profile "$CR_VMLINUX" -o "$T/dwarf.profile" 2>"$T/profile.err"; then
	if cmp -s <(grep -v '^source ' "$T/crash.profile") <(grep -v '^source ' "$T/dwarf.profile"); then
		echo "  pagesleuth -P: $(grep -c . "$T/crash.profile") lines, equal to 'pagesleuth profile VMLINUX' (source line aside)"
	else
		bad "the profile from 'pagesleuth -P' differs from 'pagesleuth profile VMLINUX': $(diff <(grep -v '^source ' "$T/crash.profile") <(grep -v '^source ' "$T/dwarf.profile") | head -5 | tr '\n' ' ')"
	fi
else
	bad "pagesleuth profile $CR_VMLINUX failed: $(head -2 "$T/profile.err")"
fi

member() { awk -v m="$1" '$1 == "member" && $2 == m { print $3 }' "$T/crash.profile"; }
off_tasks=$(member task_struct.tasks) off_pid=$(member task_struct.pid) off_flags=$(member task_struct.flags)
off_exit=$(member task_struct.exit_state) off_mm=$(member task_struct.mm)
[ -n "$off_tasks" ] && [ -n "$off_pid" ] && [ -n "$off_flags" ] && [ -n "$off_exit" ] && [ -n "$off_mm" ] ||
	{ bad "the profile from 'pagesleuth -P' lacks task_struct.tasks/pid/flags/exit_state/mm"; exit 1; }

echo "== a task exiting while the dump was taken (pid $EXITING: PF_EXITING, EXIT_ZOMBIE, mm NULL)"
task_pa=$($PHYS "$work" tasklist "$T/trace" "$(hex "$off_tasks")" | while read -r _ pa _; do
	v=$($PHYS "$work" read "$(hex $((16#$pa + off_pid)))" 4)
	[ $((16#${v:6:2}${v:4:2}${v:2:2}${v:0:2})) -eq "$EXITING" ] && { echo "$pa"; break; }
done)
if [ -z "$task_pa" ]; then
	bad "task_struct of pid $EXITING not found on the task list"
else
	flags=$($PHYS "$work" read "$(hex $((16#$task_pa + off_flags)))" 4)
	flags=$((16#${flags:6:2}${flags:4:2}${flags:2:2}${flags:0:2} | 0x4))
	echo "  task_struct at PA $task_pa: flags -> $(hex $flags), exit_state -> 16, mm -> 0"
	patch "$(hex $((16#$task_pa + off_flags)))" "$(le I $flags)" &&
		patch "$(hex $((16#$task_pa + off_exit)))" "$(le I 16)" &&
		patch "$(hex $((16#$task_pa + off_mm)))" "$(le Q 0)" && {
		session exiting "$CR_CRASH802" "$SO" 8.0.2 "$work" <<EOF
pagesleuth -p $EXITING,$REAL -o $T/exiting-p.rec
pagesleuth -o $T/exiting-all.rec
EOF
		cr_messages exiting | sed 's/^/  /'
		cr_messages exiting | grep -E "pid $EXITING\b" | grep -qi 'exit' ||
			bad "-p $EXITING,$REAL: no message naming 'pid $EXITING' and saying it was exiting"
		if [ -n "$(mm_of "$T/exiting-p.rec" "$REAL")" ]; then
			$REC same-pages "$T/real.rec" "$T/exiting-p.rec" "$EXITING" | sed 's/^/  /'
			[ "${PIPESTATUS[0]}" -eq 0 ] || bad "-p $EXITING,$REAL: pid $REAL's pages differ from the clean run"
			cmp -s <(structure "$T/real.rec") <(structure "$T/exiting-p.rec" | grep -v "^task .*tgid=$EXITING ") ||
				bad "-p $EXITING,$REAL: pid $REAL's task/mm/vma/sum records differ from the clean run"
		else
			bad "-p $EXITING,$REAL: pid $REAL not written"
		fi
		if [ -s "$T/exiting-all.rec" ]; then
			[ -z "$(mm_of "$T/exiting-all.rec" "$EXITING")" ] || bad "all processes: an address space written for the exiting pid $EXITING"
			$REC same-pages "$T/clean.rec" "$T/exiting-all.rec" "$EXITING" | sed 's/^/  /'
			[ "${PIPESTATUS[0]}" -eq 0 ] || bad "all processes: other processes' pages differ from the clean run"
			echo "  all processes: $(grep -c '^mm ' "$T/exiting-all.rec") of $(grep -c '^mm ' "$T/clean.rec") address spaces; $(grep -m1 '^end ' "$T/exiting-all.rec")"
		else
			bad "all processes: nothing written"
		fi
	}
	unpatch_all
fi

echo "== an unreadable page-table page (pid $PMDPID: a PMD entry pointing beyond the dump)"
mm=$(mm_of "$T/clean.rec" "$PMDPID")
read -r rstart _ _ <"$T/gt/regions.$PMDPID"
read -r pmd_pa _ < <(page_table "$mm" "$rstart" 1)
read -r pte_pa pte_start < <(page_table "$mm" "$rstart" 0)
if [ -z "${pmd_pa:-}" ] || [ -z "${pte_pa:-}" ]; then
	bad "no PMD/PTE table of pid $PMDPID (mm $mm) for $rstart in the trace"
else
	ent_pa=$(hex $((16#$pmd_pa + ((16#$rstart >> 21) & 511) * 8)))
	ent=$($PHYS "$work" u64 "$ent_pa")
	vend=$(hex $((16#$pte_start + 0x200000)))
	if [ $(((16#$ent >> 12) & 0xffffffffff)) -ne $((16#$pte_pa >> 12)) ]; then
		bad "PMD entry at PA $ent_pa is $ent, not the PTE table at $pte_pa: layout assumption wrong"
	else
		beyond=$(((16#$($PHYS "$work" maxpa) >> 12) + 0x100000))
		new=$(((16#$ent & ~0x000ffffffffff000) | (beyond << 12)))
		echo "  PMD entry for $pte_start-$vend at PA $ent_pa: $ent -> $(hex $new) (PFN $(hex $beyond), 4 GiB beyond the dump)"
		patch "$ent_pa" "$(le Q $new)" && {
			session pmd "$CR_CRASH802" "$SO" 8.0.2 "$work" <<EOF
pagesleuth -o $T/pmd.rec
pagesleuth -p $PMDPID -o $T/pmd-p.rec
pagesleuth summary -K > $T/pmd.sum
EOF
			cr_messages pmd | sed 's/^/  /'
			cr_messages pmd | grep -q '^pagesleuth: partial: ' || bad "pmd: no 'pagesleuth: partial: ...' message"
			for r in pmd pmd-p; do
				f=$T/$r.rec
				[ -s "$f" ] || { bad "$r: nothing written"; continue; }
				"$GTCHECK" --validate "$f" >"$f.valid" || bad "$r: does not read back: $(cat "$f.valid")"
				grep -q '^end status=partial' "$f" || bad "$r: no 'end status=partial': $(grep '^end' "$f")"
				grep -q '^warn ' "$f" || bad "$r: no warn record"
				$REC vas "$f" "$PMDPID" "$pte_start" "$vend" >"$f.window"
				nu=$(grep -c $'\tu$' "$f.window") nm=$(grep -vc $'\tu$' "$f.window")
				echo "  $r: $(grep -m1 '^warn ' "$f"); under the PMD entry: $nu pages u, $nm other"
				[ "$nm" -eq 0 ] && [ "$nu" -gt 0 ] || bad "$r: expected only u pages in $pte_start-$vend, got: $(grep -vm2 $'\tu$' "$f.window" | tr '\n' ' ')"
			done
			$REC same-pages "$T/clean.rec" "$T/pmd.rec" "$PMDPID" "$pte_start" "$vend" | sed 's/^/  /'
			[ "${PIPESTATUS[0]}" -eq 0 ] || bad "pmd: other pages changed"
			# report exits 1 on partial records; its tables are what the summary must show
			"$FAST" report -a pss -f csv "$T/pmd.rec" >"$T/pmd.pss" 2>/dev/null
			python3 tests/cases/lib/crashsummary.py report "$T/pmd.sum" "$T/pmd.pss" | sed 's/^/  pmd summary: /'
			[ "${PIPESTATUS[0]}" -eq 0 ] || bad "pmd: summary -K differs from report -a pss of the records"
			# the summary's messages: those after the -p command's last one
			cr_messages pmd | sed '1,/pmd-p.rec/d' | grep -q '^pagesleuth: partial: mm [0-9]* at ' ||
				bad "pmd: summary -K said nothing of the unreadable page table: $(cr_messages pmd | sed '1,/pmd-p.rec/d' | tr '\n' ' ')"
			cmp -s <(grep -E '^(task|mm|vma) ' "$T/clean.rec") <(grep -E '^(task|mm|vma) ' "$T/pmd.rec") ||
				bad "pmd: task/mm/vma records differ from the clean run"
		}
		unpatch_all
	fi
fi

echo "== a zeroed PTE table (pid $ZPID)"
mm=$(mm_of "$T/clean.rec" "$ZPID")
read -r rstart _ _ <"$T/gt/regions.$ZPID"
read -r pte_pa pte_start < <(page_table "$mm" "$rstart" 0)
if [ -z "${pte_pa:-}" ]; then
	bad "no PTE table of pid $ZPID (mm $mm) for $rstart in the trace"
else
	vend=$(hex $((16#$pte_start + 0x200000)))
	before=$($REC vas "$T/clean.rec" "$ZPID" "$pte_start" "$vend" | grep -c $'\tm$')
	echo "  PTE table at PA $pte_pa ($pte_start-$vend, $before mapped pages) zeroed"
	patch "$pte_pa" "$(printf '00%.0s' $(seq 4096))" && {
		session zeroed "$CR_CRASH802" "$SO" 8.0.2 "$work" <<EOF
pagesleuth -o $T/zeroed.rec
EOF
		cr_messages zeroed | sed 's/^/  /'
		if [ -s "$T/zeroed.rec" ]; then
			"$GTCHECK" --validate "$T/zeroed.rec" >"$T/zeroed.valid" || bad "zeroed: does not read back: $(cat "$T/zeroed.valid")"
			left=$($REC vas "$T/zeroed.rec" "$ZPID" "$pte_start" "$vend" | grep -vc $'\tu$')
			echo "  zeroed: $left of $before pages still mapped in $pte_start-$vend; $(grep -m1 '^end ' "$T/zeroed.rec")"
			[ "$left" -eq 0 ] || bad "zeroed: $left pages of $ZPID in $pte_start-$vend still mapped"
			$REC same-pages "$T/clean.rec" "$T/zeroed.rec" "$ZPID" "$pte_start" "$vend" | sed 's/^/  /'
			[ "${PIPESTATUS[0]}" -eq 0 ] || bad "zeroed: other pages changed"
			cmp -s <(grep -E '^(task|mm|vma) ' "$T/clean.rec") <(grep -E '^(task|mm|vma) ' "$T/zeroed.rec") ||
				bad "zeroed: task/mm/vma records differ from the clean run"
		else
			bad "zeroed: nothing written"
		fi
	}
	unpatch_all
fi

cmp -s "$work" "$ELF" || bad "the work copy was not restored (the cases above may have interfered)"
[ -n "$CR_FX_NOTE" ] && echo "note: $CR_FX_NOTE"
echo "crash_ext_bad_input: $(fx_elapsed "$t_start") s in all"
[ $fail -eq 0 ] && echo "crash_ext_bad_input: OK"
exit $fail
