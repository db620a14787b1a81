#!/usr/bin/env bash
# crash_ext.sh - the `pagesleuth` command of pagesleuth.so inside crash, on the x86_64-selfbuilt
# fixture's dumps (a 6.1 kernel built from linux-source-6.1, its DWARF vmlinux committed with
# it: nothing is downloaded), in Debian's crash 8.0.2 (/usr/bin/crash) and in crash 8.0.6
# (built from source by scripts/build-crash.sh). PAGESLEUTH_CRASH_FIXTURE=x86_64 runs the same
# on Debian's kernel with its -dbg package (lib/crashrun.sh: fetched and cached by
# scripts/fetch-dbg.sh; if that exact package left the archive, an x86_64 fixture is generated
# with the current kernel and used instead). Checked:
#   1. records equal `pagesleuth extract`'s (ASan+UBSan binary) for the same dump byte for
#      byte, the header's source=crash (extract: source=coredump) excepted: qemu.elf (crash
#      8.0.2 only: crash 8.0.6 cannot open the QEMU ELF, its startup `bt` fails to read a
#      stack), kdump-d1 and kdump-d31 under both crashes. Once per crash (kdump-d1):
#      -k (crash's own kernel-virtual translation) writes the same bytes as without it;
#      under 8.0.2: -s == extract --summaries, -v == extract --vmas-only, -p A,B ==
#      extract -p A,B, and -p A,B to crash's output (`> file`) == the same with -o;
#      every clean run prints only the "N processes written" and -S lines, end status=complete;
#   2. the ground truth (tests/tools/gtcheck --referenced, as extract_fixtures.sh) passes on
#      every crash-written record file: for every workload pid, (VA, PFN) == pagemap,
#      mapcount/flags == kpagecount/kpageflags, VMAs and per-VMA Rss/Anonymous/Swap/
#      Referenced/PSS == smaps, one task record per thread;
#   3. under crash 8.0.6, for kdump-d1 and kdump-d31, crash's own view (lib/crashvm.py):
#      `foreach vm` VMAs (start, end, flags, file) and TOTAL_VM, the PIDs per MM, and for every
#      page `foreach vm -p` lists: mapped -> an m/x record with PFN*4096 == its physical
#      address; SWAP: dev OFFSET: n -> a w record with that offset; not mapped/FILE -> no
#      record; and no m/x/w record crash did not list;
#   4. kdump-d31 (makedumpfile -c -d 31): complete records with every workload-region page an
#      `x ... dumplevel` run (records.py region-tags), page by page the kdump-d1 records with x
#      read as m (records.py same-but-excluded), header excluded=dumplevel:31, and the end
#      record's status and tasks/mms/vmas equal kdump-d1's;
#   5. every crash run ends normally: exit 0 under `timeout`, no segmentation violation, the
#      library loads, and `pagesleuth -V` names the crash it was built for;
#   6. `pagesleuth summary` (lib/crashsummary.py), written by crash's `> file`: its -K tables
#      (exact KiB) equal `pagesleuth report -a pss -f csv` of extract's records of the same
#      dump, per process and per mapped object, row for row (qemu.elf and kdump-d1 under
#      8.0.2, kdump-d1 and kdump-d31 under 8.0.6); for every workload process VSS, RSS, USS
#      and SWAP equal the guest's smaps sums and PSS lies within smaps' 1 KiB flooring per VMA
#      (every dump: -d 31 drops the pages, not their struct pages); the default tables are
#      the same numbers in KiB/MiB/GiB; under 8.0.2 on kdump-d1 `summary -K P1,P2` equals report -a pss of extract -p P1,P2, `summary
#      -K -P P1 psshlib` is those rows of the full table, `summary -K psshlib` equals report
#      -a pss of extract -p (psshlib's pids) in both tables, and `summary | grep psworkload >
#      FILE` (crash's pipe) holds exactly the default table's psworkload lines.
# Env: PAGESLEUTH_CRASH_EXT_DIR (default $PAGESLEUTH_ROOT/build/crash-ext),
# PAGESLEUTH_CRASH802/806, PAGESLEUTH_CRASH_FIXTURE, PAGESLEUTH_CRASH_FORCE_REGEN=1 (lib/crashrun.sh).
set -uo pipefail
cd "${PAGESLEUTH_ROOT:-.}" || exit 1
. tests/cases/lib/fixtures.sh
. tests/cases/lib/crashrun.sh
ASAN=${PAGESLEUTH:-build-asan/pagesleuth}
fail=0
bad() { echo "FAIL: $*"; fail=1; }
[ -x "$ASAN" ] || { echo "FAIL: no pagesleuth at $ASAN"; exit 1; }
command -v python3 >/dev/null || { echo "FAIL: python3 not installed"; exit 1; }
[ -x "$CR_CRASH802" ] || { echo "FAIL: no crash 8.0.2 at $CR_CRASH802 (scripts/install-deps.sh installs Debian's crash)"; exit 1; }
[ -x "$CR_CRASH806" ] || { echo "FAIL: no crash 8.0.6 at $CR_CRASH806 (scripts/build-crash.sh builds it)"; exit 1; }
SO802=$(cr_ext 8.0.2) && SO806=$(cr_ext 8.0.6) || { echo "FAIL: pagesleuth.so not built"; exit 1; }
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
T=$(mktemp -d "${TMPDIR:-/tmp}/crash_ext.XXXXXX")
trap 'rm -rf "$T"' EXIT
CR_TMP=$T
REC="python3 tests/cases/lib/records.py"
t_start=$(fx_now)

cr_fixture
case $? in
0) ;;
3) echo "SKIP: no DWARF vmlinux for crash: neither the fixture's -dbg package nor the current kernel's is available (PAGESLEUTH_CRASH_FIXTURE=$CR_FX)"; exit 77 ;;
*) echo "FAIL: no fixture/vmlinux for crash"; exit 1 ;;
esac
GTCHECK=$(fx_gtcheck "$T") || exit 1
cr_groundtruth "$T/gt" >"$T/gt.log" 2>&1 || { echo "FAIL: the ground truth does not convert: $(tail -1 "$T/gt.log")"; exit 1; }
ELF=$(cr_dump qemu.elf) && D1=$(cr_dump kdump-d1.kdump) && D31=$(cr_dump kdump-d31.kdump) || exit 1
# Two workload processes for -p: the first, and the multi-threaded one.
P1=$(awk 'NR == 1 { print $1 }' "$T/gt/procs")
P2=$(awk '$4 > 1 { print $1; exit }' "$T/gt/procs")
[ -n "$P2" ] && [ "$P2" != "$P1" ] || P2=$(awk 'NR == 2 { print $1 }' "$T/gt/procs")

# extract NAME DUMP ARGS...: the reference records, extract under ASan+UBSan, exit 0.
extract() {
	local name=$1 dump=$2 rc
	shift 2
	"$ASAN" extract "$dump" "$@" -o "$T/$name.rec" 2>"$T/$name.err"
	rc=$?
	fx_sanitizer_report "$T/$name.err" && { bad "extract $name: sanitizer report:"; head -20 "$T/$name.err"; return 1; }
	[ $rc -eq 0 ] || { bad "extract $name exited $rc: $(head -3 "$T/$name.err")"; return 1; }
}
echo "== pagesleuth extract (the reference), -p $P1,$P2 for the subsets"
extract ex-elf "$ELF"
extract ex-d1 "$D1"
extract ex-d31 "$D31"
extract ex-d1-sum "$D1" --summaries
extract ex-d1-vmas "$D1" --vmas-only
extract ex-d1-p "$D1" -p "$P1,$P2"
# The processes named psshlib (both share libpstag), for the summary's choice by name.
SHLIB=$(awk '$3 == "psshlib" { print $1 }' "$T/gt/procs" | paste -sd,)
[ -n "$SHLIB" ] || bad "no psshlib process in the ground truth"
extract ex-d1-shlib "$D1" -p "${SHLIB:-1}"

session() { cr_session "$@" || bad "crash $1: did not end normally"; }
# clean_messages NAME: a clean run says only "N processes written to" and the -S counts.
clean_messages() {
	local other
	other=$(cr_messages "$1" | grep -vE '^pagesleuth: [0-9]+ processes written to [^ ]+$|^pagesleuth: [0-9]+ tasks, [0-9]+ mms, ')
	[ -z "$other" ] || bad "crash $1: unexpected messages on clean dumps: $(echo "$other" | head -3 | tr '\n' ' ')"
	cr_messages "$1" | grep -E ' tasks, ' | sed "s/^/    $1: /"
}
# same_as_extract CRASHREC EXREC, check_gt REC: lib/crashrun.sh's, on $T/NAME.rec files.
same_as_extract() { cr_same_as_extract "$1 (extract $2)" "$T/$1.rec" "$T/$2.rec"; }
# identical A B WHAT: byte-equal record files.
identical() {
	[ -s "$T/$1.rec" ] || { bad "$1: no records written"; return 1; }
	if cmp -s "$T/$1.rec" "$T/$2.rec"; then
		echo "  $1 == $2 ($3): $(wc -l <"$T/$1.rec") lines identical"
	else
		bad "$1 differs from $2 ($3):"
		diff "$T/$2.rec" "$T/$1.rec" | head -8 | sed 's/^/    /'
	fi
}
check_gt() { [ -s "$T/$1.rec" ] || return; cr_check_gt "$1" "$T/$1.rec" "$T/gt"; }
# pss REC: `pagesleuth report -a pss -f csv` of $T/REC.rec, in $T/REC.pss.
pss() {
	[ -s "$T/$1.pss" ] || "$ASAN" report -a pss -f csv "$T/$1.rec" >"$T/$1.pss" 2>"$T/$1.pss.err" ||
		bad "report -a pss $1 failed: $(head -2 "$T/$1.pss.err")"
}
SUM="python3 tests/cases/lib/crashsummary.py"
# summary NAME EXREC [gt]: $T/NAME.sum (-K) and NAME.sumh (default) against report -a pss of
# EXREC, each other, and (gt) the ground truth.
summary() {
	local name=$1 ex=$2
	[ -s "$T/$name.sum" ] && [ -s "$T/$name.sumh" ] || { bad "$name: pagesleuth summary wrote nothing"; return; }
	pss "$ex"
	$SUM report "$T/$name.sum" "$T/$ex.pss" | sed "s/^/  $name: /"
	[ "${PIPESTATUS[0]}" -eq 0 ] || bad "$name: summary -K differs from report -a pss of $ex"
	$SUM human "$T/$name.sumh" "$T/$name.sum" | sed "s/^/  $name: /"
	[ "${PIPESTATUS[0]}" -eq 0 ] || bad "$name: the KiB/MiB/GiB tables differ from the -K ones"
	if [ "${3:-}" = gt ]; then
		$SUM groundtruth "$T/$name.sum" "$T/gt" >"$T/$name.sumgt"
		rc=$?
		sed "s/^/  $name: /" "$T/$name.sumgt"
		[ $rc -eq 0 ] || bad "$name: summary differs from the guest's smaps"
	fi
}
complete() { # REC
	grep -q '^end status=complete ' "$T/$1.rec" 2>/dev/null || bad "$1: no 'end status=complete': $(grep '^end ' "$T/$1.rec" 2>/dev/null)"
}

echo "== crash 8.0.2 (Debian), qemu.elf"
session 802-elf "$CR_CRASH802" "$SO802" 8.0.2 "$ELF" <<EOF
pagesleuth -o $T/802-elf.rec -S
pagesleuth summary -K > $T/802-elf.sum
pagesleuth summary > $T/802-elf.sumh
EOF
clean_messages 802-elf
complete 802-elf
same_as_extract 802-elf ex-elf
check_gt 802-elf
summary 802-elf ex-elf gt

echo "== crash 8.0.2 (Debian), kdump-d1: -k, -s, -v, -p, output to crash's fp"
session 802-d1 "$CR_CRASH802" "$SO802" 8.0.2 "$D1" <<EOF
pagesleuth -o $T/802-d1.rec -S
pagesleuth -k -o $T/802-d1-k.rec -S
pagesleuth -s -o $T/802-d1-sum.rec
pagesleuth -v -o $T/802-d1-vmas.rec
pagesleuth -p $P1,$P2 -o $T/802-d1-p.rec
pagesleuth -p $P1 -p $P2 > $T/802-d1-p-fp.rec
pagesleuth summary -K > $T/802-d1.sum
pagesleuth summary > $T/802-d1.sumh
pagesleuth summary -K $P1,$P2 > $T/802-d1-p.sum
pagesleuth summary -K -P $P1 psshlib > $T/802-d1-sel.sum
pagesleuth summary -K psshlib > $T/802-d1-shlib.sum
pagesleuth summary | grep psworkload > $T/802-d1.sumgrep
EOF
clean_messages 802-d1
complete 802-d1
same_as_extract 802-d1 ex-d1
identical 802-d1-k 802-d1 "-k: crash's kernel-virtual translation"
same_as_extract 802-d1-sum ex-d1-sum
same_as_extract 802-d1-vmas ex-d1-vmas
same_as_extract 802-d1-p ex-d1-p
identical 802-d1-p-fp 802-d1-p "-p $P1 -p $P2 to crash's output vs -p $P1,$P2 -o"
check_gt 802-d1
summary 802-d1 ex-d1 gt
for s in p:ex-d1-p shlib:ex-d1-shlib; do
	pss "${s#*:}"
	$SUM report "$T/802-d1-${s%%:*}.sum" "$T/${s#*:}.pss" | sed "s/^/  802-d1-${s%%:*}: /"
	[ "${PIPESTATUS[0]}" -eq 0 ] || bad "802-d1-${s%%:*}: summary -K differs from report -a pss of ${s#*:}"
done
$SUM subset "$T/802-d1-sel.sum" "$T/802-d1.sum" "$P1" psshlib | sed 's/^/  802-d1-sel: /'
[ "${PIPESTATUS[0]}" -eq 0 ] || bad "802-d1-sel: summary -K -P $P1 psshlib is not those rows of the full table"
$SUM grep "$T/802-d1.sumgrep" "$T/802-d1.sumh" psworkload | sed 's/^/  802-d1: /'
[ "${PIPESTATUS[0]}" -eq 0 ] || bad "802-d1: summary | grep psworkload is not the table's psworkload lines"

echo "== crash 8.0.2 (Debian), kdump-d31"
session 802-d31 "$CR_CRASH802" "$SO802" 8.0.2 "$D31" <<EOF
pagesleuth -o $T/802-d31.rec -S
EOF
clean_messages 802-d31
same_as_extract 802-d31 ex-d31
check_gt 802-d31

echo "== crash 8.0.6, kdump-d1 (crash 8.0.6 cannot open the QEMU ELF: not run there)"
session 806-d1 "$CR_CRASH806" "$SO806" 8.0.6 "$D1" <<EOF
pagesleuth -o $T/806-d1.rec -S
pagesleuth -k -o $T/806-d1-k.rec
foreach vm > $T/806-d1.vm
foreach vm -p > $T/806-d1.vmp
kmem -i > $T/806-d1.kmem
kmem -s > $T/806-d1.kmems
pagesleuth summary -K > $T/806-d1.sum
pagesleuth summary > $T/806-d1.sumh
EOF
clean_messages 806-d1
summary 806-d1 ex-d1 gt
complete 806-d1
same_as_extract 806-d1 ex-d1
identical 806-d1-k 806-d1 "-k: crash's kernel-virtual translation"
check_gt 806-d1
python3 tests/cases/lib/crashvm.py compare "$T/806-d1.rec" "$T/806-d1.vm" "$T/806-d1.vmp" >"$T/806-d1.cmp" 2>&1 ||
	bad "806-d1: records differ from crash's foreach vm / vm -p:"
sed 's/^/    /' "$T/806-d1.cmp"
# The kernel's counters in the records against crash's own `kmem -i` (pages) on the same
# dump: the same counters read by another reader.
python3 - "$T/ex-d1.rec" "$T/806-d1.kmem" <<'PY' || bad "806-d1: meminfo counters differ from crash's kmem -i"
import re, sys
mi = {}
for line in open(sys.argv[1]):
    if line.startswith("counter set=meminfo "):
        kv = dict(f.split("=", 1) for f in line.split()[1:])
        mi[kv["name"]] = int(kv["value"])
kmem = {}
for line in open(sys.argv[2]):
    m = re.match(r"\s*([A-Z][A-Z ]*[A-Z])\s+(\d+)\s", line)
    if m:
        kmem[m.group(1)] = int(m.group(2))
pairs = [("TOTAL MEM", "MemTotal"), ("FREE", "MemFree"), ("BUFFERS", "Buffers"), ("CACHED", "Cached"),
         ("SLAB", "Slab"), ("TOTAL SWAP", "SwapTotal"), ("SWAP FREE", "SwapFree"),
         ("COMMIT LIMIT", "CommitLimit"), ("COMMITTED", "Committed_AS")]
same = 0
for k, f in pairs:
    if k not in kmem or f not in mi:
        print("    kmem -i %s / meminfo %s: missing in %s" % (k, f, "crash's output" if k not in kmem else "the records"))
    elif kmem[k] * 4 != mi[f]:
        print("    kmem -i %s = %d pages, the records' %s = %d kB" % (k, kmem[k], f, mi[f]))
    else:
        same += 1
print("    kmem -i: %d of %d figures equal the records' meminfo" % (same, len(pairs)))
sys.exit(0 if same == len(pairs) else 1)
PY
# The slab records (/proc/slabinfo's view) against crash's kmem -s: every cache with the
# same total objects and slabs (crash's ALLOCATED walks the CPU slabs too, and its OBJSIZE is
# object_size where slabinfo shows the slot size: those two are not compared).
python3 - "$T/ex-d1.rec" "$T/806-d1.kmems" <<'PY' || bad "806-d1: slab records differ from crash's kmem -s"
import sys
rec = {}
for line in open(sys.argv[1]):
    if line.startswith("slab "):
        kv = dict(f.split("=", 1) for f in line.split()[1:]); rec[kv["name"]] = kv
n = same = 0
for line in open(sys.argv[2]):
    p = line.split()
    if len(p) != 7 or not p[1].isdigit():
        continue
    n += 1
    r = rec.get(p[6])
    if r and (int(r["num_objs"]), int(r["num_slabs"])) == (int(p[3]), int(p[4])):
        same += 1
    else:
        print("    kmem -s %s: TOTAL %s SLABS %s, records %s" % (p[6], p[3], p[4], r and (r["num_objs"], r["num_slabs"])))
print("    kmem -s: %d of %d caches with the records' total objects and slabs (%d slab records)" % (same, n, len(rec)))
sys.exit(0 if n and same == n and len(rec) == n else 1)
PY

echo "== crash 8.0.6, kdump-d31"
session 806-d31 "$CR_CRASH806" "$SO806" 8.0.6 "$D31" <<EOF
pagesleuth -o $T/806-d31.rec -S
foreach vm > $T/806-d31.vm
foreach vm -p > $T/806-d31.vmp
pagesleuth summary -K > $T/806-d31.sum
pagesleuth summary > $T/806-d31.sumh
EOF
clean_messages 806-d31
summary 806-d31 ex-d31 gt
same_as_extract 806-d31 ex-d31
check_gt 806-d31
if python3 tests/cases/lib/crashvm.py compare "$T/806-d31.rec" "$T/806-d31.vm" "$T/806-d31.vmp" >"$T/806-d31.cmp" 2>&1; then
	tail -1 "$T/806-d31.cmp" | sed 's/^/    /' # per process as for kdump-d1 above
else
	bad "806-d31: records differ from crash's foreach vm / vm -p:"
	sed 's/^/    /' "$T/806-d31.cmp"
fi

echo "== -d 31: complete, excluded pages marked x, the same snapshot as -d 1"
for v in 802 806; do
	d31=$T/$v-d31.rec d1=$T/$v-d1.rec
	[ -s "$d31" ] && [ -s "$d1" ] || { bad "$v-d31: records missing"; continue; }
	grep -q '^header .*excluded=[^ ]*dumplevel:31' "$d31" ||
		bad "$v-d31: header does not say excluded=dumplevel:31: $(grep -m1 '^header' "$d31")"
	e1=$(grep '^end ' "$d1" | grep -oE 'status=[a-z]+ tasks=[0-9]+ mms=[0-9]+ vmas=[0-9]+')
	e31=$(grep '^end ' "$d31" | grep -oE 'status=[a-z]+ tasks=[0-9]+ mms=[0-9]+ vmas=[0-9]+')
	if [ -n "$e1" ] && [ "$e1" = "$e31" ] && [[ $e1 == status=complete* ]]; then
		echo "  $v-d31: end $e31, as $v-d1; $(grep -c '^x ' "$d31") x runs ($(awk '$1 == "x" { n += $5 } END { print n + 0 }' "$d31") pages, reasons: $(awk '$1 == "x" { print $11 }' "$d31" | sort -u | paste -sd,))"
	else
		bad "$v-d31: end record '$e31', kdump-d1's '$e1' (expected equal and complete)"
	fi
	$REC region-tags "$d31" "$T/gt" x:dumplevel | sed 's/^/  /'
	[ "${PIPESTATUS[0]}" -eq 0 ] || bad "$v-d31: workload pages not all x:dumplevel"
	$REC same-but-excluded "$d1" "$d31" | tail -3 | sed 's/^/  /'
	[ "${PIPESTATUS[0]}" -eq 0 ] || bad "$v-d31: not the kdump-d1 snapshot with x read as m"
done

[ -n "$CR_FX_NOTE" ] && echo "note: $CR_FX_NOTE"
echo "crash_ext: $(fx_elapsed "$t_start") s in all"
[ $fail -eq 0 ] && echo "crash_ext: OK"
exit $fail
