#!/usr/bin/env bash
# klog.sh - `pagesleuth log` (the kernel log read from a dump) on every fixture dump, under
# ASan+UBSan, against what the guest printed and what crash reads:
#   1. every dump of every fixture (x86_64*, arm64*, ppc64le*, armhf*, ppc32*; QEMU ELF,
#      QEMU kdump-zlib, makedumpfile kdump) reads completely (exit 0, stderr only the dump
#      file's own warnings), and:
#      - the guest console's timestamped kernel lines ("[    0.000000] ...", found anywhere
#        in a console line: early firmware output may precede one; CR stripped; a line the
#        boot console and the real console both printed during the handover counted once)
#        appear byte for byte and in order in the log. Which console lines a dump must hold
#        follows from when it was taken (tests/fixtures/scripts/gen.py): QEMU's dumps when
#        the guest printed PSLEUTH-READY, so the lines before it, and none printed after it
#        (the panic of the kdump fixtures); makedumpfile's after the panic, so the lines
#        before PSLEUTH-CAPTURE-START up to where the clock restarts (the capture kernel's
#        are not in the panicked kernel's log). Most fixtures boot `quiet loglevel=3` and run
#        `dmesg -n 1` first, so their consoles hold no kernel line before READY; hence also:
#      - the banner "Linux version RELEASE (...) VERSION" with the release and version the
#        guest's uname gave (groundtruth.txt), and "Kernel command line: " + the guest's
#        /proc/cmdline, byte for byte; with -x both at "kern  :notice:" (init/main.c prints
#        them with pr_notice: the level bits of a big-endian ppc32 as of a little-endian one);
#   2. one boot, several dumps: the QEMU ELF's log is a prefix of the same boot's
#      makedumpfile logs (taken later), kdump -d 1 and -c -d 31 give the same log, QEMU ELF
#      and QEMU kdump-zlib (taken together) the same;
#   3. crash's own `log` (and `log -m`, levels) on the same dump, byte for byte: Debian's
#      crash 8.0.2 (x86_64 and x86_64-selfbuilt kdump-d1, bullseye's QEMU ELF), crash 8.0.6
#      (x86_64-selfbuilt's kdump-d31, with its committed vmlinux: always; trixie's kdump),
#      crash 9.0.2 (forky's 7.2 QEMU ELF, --no_modules), the arm64 and ppc64 cross crashes
#      (arm64 QEMU ELF, ppc64le kdump-d1: a multi-line record). A part whose crash is not
#      built or whose DWARF vmlinux is not cached (the crash_ext cases fetch them with
#      scripts/fetch-dbg.sh) is skipped with the reason, never failed; armhf and ppc32 dumps
#      are not compared: the crashes here are built for X86_64, ARM64 and PPC64 only;
#   4. options: -o FILE == standard output; -x == the plain output with the facility:level
#      prefix (continuation lines indented under it); -l per level partitions the records,
#      NAME+ and +NAME ranges; usage errors exit 2 with one line; not-a-dump, missing file:
#      exit 2, one line naming it; `-o` naming the input (by name, symbolic or hard link) is
#      refused before anything is read and the input is unchanged;
#   5. a COPY of the x86_64 QEMU ELF with the ring corrupted in place (the ringbuffer found
#      through groundtruth.txt's VMCOREINFO of the same boot and the program headers;
#      each mutation undone after its run): garbage descriptors, head and tail ids further
#      apart than the ring, every text_len 0xffff, the newest record reserved, count_bits
#      31 -> exit 1 with one "partial" line or exit 2 with one error line, under timeout 60,
#      never a sanitizer report; text bytes made \x01, '\n', UTF-8 and 0xff -> escaped as
#      dmesg does, a continuation line.
# shellcheck disable=SC2034 # CR_TMP, CR_VMLINUX, CR_CRASH_OPTS: read by lib/crashrun.sh's cr_run
set -uo pipefail
cd "${PAGESLEUTH_ROOT:-.}" || exit 1
. tests/cases/lib/fixtures.sh
. tests/cases/lib/crashrun.sh
BIN=${PAGESLEUTH:-build-asan/pagesleuth}
fail=0 notes=()
bad() { echo "FAIL: $*"; fail=1; }
note() { echo "  note: $*"; notes+=("$*"); }
[ -x "$BIN" ] || { echo "FAIL: no pagesleuth at $BIN"; exit 1; }
command -v python3 >/dev/null || { echo "FAIL: python3 not installed"; exit 1; }
"$BIN" log --help 2>/dev/null | grep -q '^usage: pagesleuth log' ||
	{ echo "FAIL: this pagesleuth has no log command"; exit 1; }
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
T=$(mktemp -d "${TMPDIR:-/tmp}/klog.XXXXXX")
trap 'rm -rf "$T"' EXIT
CR_TMP=$T
t_start=$(fx_now)

# The console, ground truth and log checks of part 1 (prints one summary line, exit 1 and
# the reasons on a mismatch).
cat >"$T/check.py" <<'PY'
import re, sys
con_path, gt_path, kind, log_path, xlog_path = sys.argv[1:6]
TS = re.compile(rb"\[ *(\d+)\.(\d{6})\] ")
problems = []

def ts(line):
    m = TS.match(line)
    return int(m.group(1)) * 1000000 + int(m.group(2))

def stamped(lines):
    out = []
    for l in lines:
        l = l.rstrip(b"\r")
        m = TS.search(l)
        if m:
            out.append(l[m.start():])
    return out

def once(lines):  # boot console + real console printing the same record during the handover
    return [l for i, l in enumerate(lines) if i == 0 or l != lines[i - 1]]

def log_lines(path):
    out, prefix = [], None
    for raw in open(path, "rb").read().split(b"\n")[:-1]:
        m = TS.match(raw)
        if m:
            prefix = m.group(0)
            out.append(raw)
        elif prefix is not None and raw.startswith(b" " * len(prefix)):
            out.append(prefix + raw[len(prefix):])
        else:
            problems.append("log line neither a record nor a continuation: %r" % raw[:80])
    return out

con = open(con_path, "rb").read().split(b"\n")
idx = {l.rstrip(b"\r"): i for i, l in reversed(list(enumerate(con)))}
ready, capture = idx.get(b"PSLEUTH-READY"), idx.get(b"PSLEUTH-CAPTURE-START")
if ready is None:
    print("console.log has no PSLEUTH-READY line"); sys.exit(1)
before = once(stamped(con[:ready]))
after = stamped(con[ready:capture if capture is not None else len(con)])
if kind.startswith("makedumpfile"):
    last, panicked = (ts(before[-1]) if before else 0), []
    for l in after:  # the panicked kernel's, up to where a new kernel's clock starts
        if ts(l) < last:
            break
        panicked.append(l)
        last = ts(l)
    expect, absent, when = once(before + panicked), [], "before the capture kernel"
else:
    expect, absent, when = before, once(after), "before PSLEUTH-READY"

log = log_lines(log_path)
logset = set(log)
i = matched = 0
for c in expect:
    j = i
    while j < len(log) and log[j] != c:
        j += 1
    if j == len(log):
        problems.append("console line missing (or out of order) in the log: %r" % c[:120])
    else:
        matched, i = matched + 1, j + 1
for c in absent:
    if c in logset:
        problems.append("a line printed after the dump was taken is in its log: %r" % c[:120])

gt = open(gt_path, "rb").read().split(b"\n")
field = {l.split(b" ", 1)[0]: l.split(b" ", 1)[1] for l in gt[:8] if b" " in l}
rel, ver = field.get(b"release"), field.get(b"version")
cmdline = gt[gt.index(next(l for l in gt if l.startswith(b"=== begin /proc/cmdline"))) + 1]
banner = [l for l in log if l[TS.match(l).end():].startswith(b"Linux version " + rel + b" (") and l.endswith(b" " + ver)]
cmd = [l for l in log if l[TS.match(l).end():] == b"Kernel command line: " + cmdline]
if len(banner) != 1:
    problems.append("%d banner lines 'Linux version %s (...) %s'" % (len(banner), rel.decode(), ver.decode()))
if len(cmd) != 1:
    problems.append("%d lines 'Kernel command line: %s'" % (len(cmd), cmdline.decode()))
xl = open(xlog_path, "rb").read().split(b"\n")
for what, lines in (("banner", banner), ("command line", cmd)):
    for l in lines:
        if b"kern  :notice: " + l not in xl:
            problems.append("-x: the %s is not at kern:notice" % what)
print("%d records; console: %d of %d kernel lines %s, in order%s; banner and command line exact, notice" % (
    sum(1 for l in open(log_path, "rb") if TS.match(l)), matched, len(expect), when,
    "; none of the %d printed after the dump" % len(absent) if absent else ""))
for p in problems[:10]:
    print("  " + p)
sys.exit(1 if problems else 0)
PY

# run NAME ALLOWED ARGS...: `log ARGS` under timeout 60 into $T/NAME.out/.err; RC is the exit
# status. No sanitizer report, an allowed status; exit 2: one line on stderr (after the dump
# file's own warnings); exit 1: one "partial" line.
run() {
	local name=$1 allowed=$2 n
	shift 2
	timeout 60 "$BIN" log "$@" >"$T/$name.out" 2>"$T/$name.err"
	RC=$?
	if fx_sanitizer_report "$T/$name.err"; then
		bad "$name: sanitizer report:"; grep -m1 -A12 -E 'ERROR:|runtime error' "$T/$name.err"; return 1
	fi
	[ $RC -eq 124 ] && { bad "$name: still running after 60 s"; return 1; }
	[[ $allowed == *$RC* ]] || { bad "$name: exit $RC, expected one of ${allowed//?/& }: $(head -2 "$T/$name.err")"; return 1; }
	n=$(grep -vc '^pagesleuth log: warning: ' "$T/$name.err")
	case $RC in
	0) [ "$n" -eq 0 ] || { bad "$name: exit 0 with messages: $(grep -v ': warning: ' "$T/$name.err" | head -2)"; return 1; } ;;
	1) [ "$n" -eq 1 ] && grep -q '^pagesleuth log: .*: partial: ' "$T/$name.err" ||
		{ bad "$name: exit 1 without exactly one 'partial' line: $(head -3 "$T/$name.err")"; return 1; } ;;
	2) [ "$n" -eq 1 ] || { bad "$name: exit 2 with $n lines on stderr: $(head -3 "$T/$name.err")"; return 1; } ;;
	esac
	return 0
}

echo "== 1. every fixture dump: console lines, banner, command line, levels"
declare -A LOG=()
nd=0
for man in tests/fixtures/data/*/MANIFEST; do
	fx=$(basename "$(dirname "$man")")
	while read -r _ kind file _; do
		file=${file%.zst}
		dump=$(fx_dump "$fx" "$file") || { bad "$fx/$file: not available"; continue; }
		nd=$((nd + 1))
		name=$fx.$file
		run "$name" 0 "$dump" || continue
		run "$name.x" 0 -x "$dump" || continue
		LOG[$fx/$file]=$T/$name.out
		if out=$(python3 "$T/check.py" "tests/fixtures/data/$fx/console.log" "tests/fixtures/data/$fx/groundtruth.txt" \
			"$kind" "$T/$name.out" "$T/$name.x.out"); then
			echo "  $fx/$file: $out"
		else
			bad "$fx/$file: $out"
		fi
	done < <(grep '^dump ' "$man")
done
[ "$nd" -ge 28 ] || bad "only $nd fixture dumps found (28 expected)"

echo "   ($(fx_elapsed "$t_start") s)"; echo "== 2. one boot, several dumps"
same_boot() { # FX A B: A's log is a prefix of B's (A == B with "same")
	local a=${LOG[$1/$2]:-} b=${LOG[$1/$3]:-} n
	[ -n "$a" ] && [ -n "$b" ] || { bad "$1: no logs of $2 and $3 to compare"; return; }
	n=$(wc -l <"$a")
	if [ "${4:-}" = same ]; then
		cmp -s "$a" "$b" && echo "  $1: $2 == $3 ($n lines)" || bad "$1: $2 and $3 logs differ"
	elif head -n "$n" "$b" | cmp -s - "$a"; then
		echo "  $1: $2 ($n lines) is the start of $3 ($(wc -l <"$b") lines)"
	else
		bad "$1: $2's log is not the start of $3's"
	fi
}
for fx in x86_64 x86_64-selfbuilt x86_64-bullseye x86_64-trixie x86_64-forky ppc64le; do
	for k in kdump-d1.kdump kdump-d31.kdump; do
		[ -n "${LOG[$fx/$k]:-}" ] && same_boot "$fx" qemu.elf "$k"
	done
done
same_boot x86_64 kdump-d1.kdump kdump-d31.kdump same
same_boot ppc64le kdump-d1.kdump kdump-d31.kdump same
for fx in ppc32-e500-64pte ppc32-e500-64pte-bullseye ppc32-e500-64pte-trixie; do
	same_boot "$fx" qemu.elf qemu-kdump-zlib.kdump same
done

echo "   ($(fx_elapsed "$t_start") s)"; echo "== 3. crash's own log and log -m"
# cached_vmlinux FIXTURE: the fixture's committed vmlinux (x86_64-selfbuilt), or the -dbg
# vmlinux scripts/fetch-dbg.sh keeps for it, if it is there.
cached_vmlinux() {
	local man=tests/fixtures/data/$1/MANIFEST pkg ver arch debarch release dir
	if [ -f "tests/fixtures/data/$1/vmlinux.zst" ]; then
		fx_vmlinux "$1"
		return
	fi
	read -r _ pkg ver _ < <(grep '^debug_package ' "$man") || return 1
	arch=$(sed -n 's/^fixture //p' "$man")
	case ${arch%%-*} in
	x86_64) debarch=amd64 ;; arm64) debarch=arm64 ;; ppc64le) debarch=ppc64el ;; armhf) debarch=armhf ;; *) return 1 ;;
	esac
	release=${pkg#linux-image-} release=${release%-dbg}
	dir=$CR_CACHE/dbg/$debarch/${pkg}_${ver//:/%3a}
	[ -f "$dir/.ok" ] && [ -f "$dir/vmlinux-$release" ] && echo "$dir/vmlinux-$release"
}
ncrash=0
while read -r fx crash file opts; do
	[ -n "${LOG[$fx/$file]:-}" ] || continue
	case $crash in
	8.0.2) cbin=$CR_CRASH802 ;; 8.0.6) cbin=$CR_CRASH806 ;;
	9.0.2) cbin=${PAGESLEUTH_CRASH902:-$CR_CACHE/crash-9.0.2/crash} ;;
	*) cbin=$CR_CACHE/crash-$crash/crash ;;
	esac
	[ -x "$cbin" ] || { note "$fx/$file: no crash $crash at $cbin (scripts/build-crash.sh, make crash-cross)"; continue; }
	CR_VMLINUX=$(cached_vmlinux "$fx") ||
		{ note "$fx/$file: no cached DWARF vmlinux for crash (scripts/fetch-dbg.sh --fixture $fx fetches it)"; continue; }
	printf 'log > %s\nlog -m > %s\n' "$T/crash.$fx.log" "$T/crash.$fx.m" >"$T/in.$fx.cmds"
	CR_CRASH_OPTS=$opts
	if ! cr_run "crash.$fx" "$cbin" "$(fx_dump "$fx" "$file")" "$T/in.$fx.cmds" >"$T/crash.$fx.run"; then
		note "$fx/$file: crash $crash did not end normally: $(tail -1 "$T/crash.$fx.run")"
		continue
	fi
	CR_CRASH_OPTS=""
	ncrash=$((ncrash + 1))
	if cmp -s "$T/crash.$fx.log" "${LOG[$fx/$file]}"; then
		echo "  $fx/$file: crash $crash log == pagesleuth log ($(wc -l <"$T/crash.$fx.log") lines)"
	else
		bad "$fx/$file: crash $crash's log differs from pagesleuth log:"
		diff "$T/crash.$fx.log" "${LOG[$fx/$file]}" | head -6 | sed 's/^/    /'
	fi
	# Levels: crash's "[ts] <L>text" against -x's "facility:level: [ts] text" (first lines).
	python3 - "$T/crash.$fx.m" "$T/$fx.$file.x.out" <<'PY' && echo "  $fx/$file: crash $crash log -m: the same level for every record" || bad "$fx/$file: levels differ from crash's log -m"
import re, sys
names = ["emerg", "alert", "crit", "err", "warn", "notice", "info", "debug"]
c = [l for l in open(sys.argv[1], "rb").read().split(b"\n") if l.startswith(b"[")]
x = []
for l in open(sys.argv[2], "rb").read().split(b"\n"):
    m = re.match(rb"[a-z0-9]+ *:([a-z]+) *: (\[ *\d+\.\d+\] )", l)
    if m:
        x.append(m.group(2) + b"<%d>" % names.index(m.group(1).decode()) + l[m.end():])
bad = [(a, b) for a, b in zip(c, x) if a != b]
for a, b in bad[:3]:
    print("    crash: %r\n    ours:  %r" % (a[:100], b[:100]))
sys.exit(1 if bad or len(c) != len(x) or not c else 0)
PY
done <<'PLAN'
x86_64 8.0.2 kdump-d1.kdump
x86_64-selfbuilt 8.0.2 kdump-d1.kdump
x86_64-selfbuilt 8.0.6 kdump-d31.kdump
x86_64-bullseye 8.0.2 qemu.elf
x86_64-trixie 8.0.6 kdump-d31.kdump
x86_64-forky 9.0.2 qemu.elf --no_modules
arm64 8.0.6-arm64 qemu.elf
ppc64le 8.0.6-ppc64 kdump-d1.kdump
PLAN
CR_CRASH_OPTS=""
echo "  $ncrash crash comparisons run (no crash here is built for armhf or ppc32 dumps)"

echo "   ($(fx_elapsed "$t_start") s)"; echo "== 4. options and usage"
D1=$(fx_dump x86_64 kdump-d1.kdump) || exit 1
run o 0 "$D1" -o "$T/o.log" && { cmp -s "$T/o.log" "${LOG[x86_64/kdump-d1.kdump]}" && echo "  -o FILE == standard output" ||
	bad "-o FILE differs from standard output"; }
python3 - "${LOG[x86_64/kdump-d1.kdump]}" "$T/x86_64.kdump-d1.kdump.x.out" <<'PY' && echo "  -x == the plain log with the facility:level prefix" || bad "-x output is not the plain log with a prefix"
import re, sys
plain = open(sys.argv[1], "rb").read().split(b"\n")[:-1]
x = open(sys.argv[2], "rb").read().split(b"\n")[:-1]
ok = len(plain) == len(x)
for p, l in zip(plain, x):
    m = re.match(rb"(kern|user) *:(emerg|alert|crit|err|warn|notice|info|debug) *: ", l)
    if m and len(m.group(0)) == 15:
        ok = ok and l[15:] == p
    else:  # a continuation line: 15 more spaces
        ok = ok and l == b" " * 15 + p
sys.exit(0 if ok else 1)
PY
total=$(grep -c '^kern\|^user' "$T/x86_64.kdump-d1.kdump.x.out")
sum=0
declare -A per_level=()
for l in emerg alert crit err warn notice info debug; do
	run "l-$l" 0 -x -l "$l" "$D1" || continue
	n=$(grep -c '^[a-z]* *:' "$T/l-$l.out")
	sum=$((sum + n))
	other=$(grep '^[a-z]* *:' "$T/l-$l.out" | grep -vc "^[a-z]* *:$l *: ")
	[ "$other" -eq 0 ] || bad "-l $l printed $other records of other levels"
	per_level[$l]=$n
done
[ "$sum" -eq "$total" ] && echo "  -l per level: $sum records in all, each of its own level" ||
	bad "-l per level: $sum records, the log has $total"
run l-range 0 -l err+,+warn "$D1" && cmp -s "$T/l-range.out" "${LOG[x86_64/kdump-d1.kdump]}" &&
	echo "  -l err+,+warn == every level" || bad "-l err+,+warn is not every level"
run l-emerg-3 0 -l 0,alert,2 "$D1" && [ "$(grep -c '^\[' "$T/l-emerg-3.out")" -eq $((per_level[emerg] + per_level[alert] + per_level[crit])) ] ||
	bad "-l 0,alert,2 is not emerg+alert+crit"
grep -q '^kern  :emerg : \[    9\.847301\] Kernel panic - not syncing: sysrq triggered crash$' "$T/l-emerg.out" &&
	grep -q '^kern  :info  : \[    9\.845896\] sysrq: Trigger a crash$' "$T/l-info.out" &&
	echo "  the panic at emerg (pr_emerg), sysrq's message at info (pr_info)" || bad "the panic or sysrq line at the wrong level"
run usage-none 2 && grep -q 'which dump' "$T/usage-none.err" || bad "no dump: $(cat "$T/usage-none.err")"
run usage-two 2 "$D1" "$D1" && grep -q 'one dump at a time' "$T/usage-two.err" || bad "two dumps: $(cat "$T/usage-two.err")"
run usage-level 2 -l loud "$D1" && grep -q "unknown level 'loud'" "$T/usage-level.err" || bad "-l loud: $(cat "$T/usage-level.err")"
timeout 60 "$BIN" log --bogus "$D1" >"$T/bogus.out" 2>"$T/bogus.err"
[ $? -eq 2 ] && grep -q '^usage: pagesleuth log' "$T/bogus.err" || bad "--bogus: not exit 2 with the usage"
"$BIN" help log | grep -q '^usage: pagesleuth log' && "$BIN" --help | grep -q '^  log ' ||
	bad "'pagesleuth help log' or the command list does not know log"
run missing 2 "$T/no-such.elf" && grep -q "^pagesleuth log: $T/no-such.elf: " "$T/missing.err" || bad "missing file: $(cat "$T/missing.err")"
python3 -c 'import random, sys; sys.stdout.buffer.write(random.Random(4).randbytes(1 << 20))' >"$T/garbage.elf"
run garbage 2 "$T/garbage.elf" && grep -q "garbage.elf" "$T/garbage.err" || bad "not a dump: $(cat "$T/garbage.err")"
echo "  usage errors, a missing file and a non-dump: exit 2, one line each"
# Evidence: the input as the output, by name and through links: refused, input unchanged.
small=$(fx_dump ppc32-e500-64pte qemu-kdump-zlib.kdump) || exit 1
cp "$small" "$T/in.kdump" && ln -s "$T/in.kdump" "$T/in-sym" && ln "$T/in.kdump" "$T/in-hard" || exit 1
for o in "$T/in.kdump" "$T/in-sym" "$T/in-hard"; do
	run evidence 2 "$T/in.kdump" -o "$o" && grep -q 'refusing to write over it' "$T/evidence.err" ||
		bad "-o $(basename "$o") (the input): $(cat "$T/evidence.err")"
done
run evidence-sym-in 2 "$T/in-sym" -o "$T/in.kdump" || bad "the input through a symbolic link as -o"
cmp -s "$small" "$T/in.kdump" && echo "  -o naming the input (by name, symbolic and hard link): refused, input unchanged" ||
	bad "the input changed"
run no-dir 2 "$small" -o "$T/no/such/dir/x.log" || bad "-o in a missing directory"

echo "   ($(fx_elapsed "$t_start") s)"; echo "== 5. a copy of the x86_64 QEMU ELF with its ring corrupted"
X86=$(fx_dump x86_64 qemu.elf) || exit 1
work=$T/work.elf
cp "$X86" "$work" || { bad "cannot copy $X86"; exit 1; }
# The ring through the program headers: VMCOREINFO of the same boot (groundtruth.txt), the
# kernel image mapped at __START_KERNEL_map + phys_base; the reading is checked (prb must
# point at printk_rb_static) before anything is written.
python3 - "$work" tests/fixtures/data/x86_64/groundtruth.txt >"$T/ring.sh" <<'PY' || { bad "cannot locate the ring: $(cat "$T/ring.sh")"; exit 1; }
import re, struct, sys
sys.path.insert(0, "tests/cases/lib")
from elfphys import Elf
elf = Elf(sys.argv[1])
vi, on = {}, False
for line in open(sys.argv[2], errors="replace"):
    line = line.rstrip("\n")
    if line.startswith("=== begin vmcoreinfo"):
        on = True
    elif line.startswith("=== end vmcoreinfo"):
        break
    elif on and "=" in line:
        k, v = line.split("=", 1)
        vi[k] = v
sym = lambda n: int(vi["SYMBOL(%s)" % n], 16)
num = lambda k: int(vi[k])
pa = lambda va: (va - 0xffffffff80000000 + num("NUMBER(phys_base)")) % 2**64
u64 = lambda va: struct.unpack("<Q", elf.read(pa(va), 8))[0]
u32 = lambda va: struct.unpack("<I", elf.read(pa(va), 4))[0]
rb = u64(sym("prb"))
if rb != sym("printk_rb_static"):
    print("prb -> %#x, not printk_rb_static %#x" % (rb, sym("printk_rb_static"))); sys.exit(1)
dr, tr = rb + num("OFFSET(printk_ringbuffer.desc_ring)"), rb + num("OFFSET(printk_ringbuffer.text_data_ring)")
cb = u32(dr + num("OFFSET(prb_desc_ring.count_bits)"))
count = 1 << cb
descs, infos = u64(dr + num("OFFSET(prb_desc_ring.descs)")), u64(dr + num("OFFSET(prb_desc_ring.infos)"))
head_va = dr + num("OFFSET(prb_desc_ring.head_id)")
sb = u32(tr + num("OFFSET(prb_data_ring.size_bits)"))
data = u64(tr + num("OFFSET(prb_data_ring.data)"))
ring = elf.read(pa(data), 1 << sb)
m = list(re.finditer(rb"Adding \d+k swap on /dev/vda\.", ring))
if len(m) != 1:
    print("%d swap messages in the text ring" % len(m)); sys.exit(1)
head = u64(head_va)
print("COUNT_BITS_PA=%x COUNT=%d DESCS_PA=%x D_SIZE=%d INFOS_PA=%x I_SIZE=%d TEXT_LEN=%d HEAD_PA=%x TAIL_PA=%x HEAD=%x "
      "HEAD_DESC_PA=%x SWAP_PA=%x" % (
      pa(dr + num("OFFSET(prb_desc_ring.count_bits)")), count, pa(descs), num("SIZE(prb_desc)"), pa(infos),
      num("SIZE(printk_info)"), num("OFFSET(printk_info.text_len)"), pa(head_va),
      pa(dr + num("OFFSET(prb_desc_ring.tail_id)")), head, pa(descs + (head % count) * num("SIZE(prb_desc)")),
      pa(data) + m[0].start()))
PY
. "$T/ring.sh"
echo "  ring: $COUNT descriptors at PA $DESCS_PA, head id $HEAD, the swap message at PA $SWAP_PA"
# put PA FILE [SAVE]: the bytes of FILE written at PA of the copy (the old ones into SAVE).
put() {
	python3 - "$work" "$1" "$2" "${3:-}" <<'PY'
import sys
sys.path.insert(0, "tests/cases/lib")
from elfphys import Elf
old = Elf(sys.argv[1], write=True).write(int(sys.argv[2], 16), open(sys.argv[3], "rb").read())
if sys.argv[4]:
    open(sys.argv[4], "wb").write(old)
PY
}
# patch PA FILE / unpatch: one mutation at a time, undone after its run.
patch() { put "$1" "$2" "$T/saved.bin" || { bad "cannot patch the copy at $1"; return 1; }; PATCH_PA=$1; }
unpatch() { put "$PATCH_PA" "$T/saved.bin" || { bad "cannot restore the copy"; exit 1; }; }
bytes() { python3 -c "import sys; sys.stdout.buffer.write(bytes.fromhex(sys.argv[1]))" "$1" >"$T/p.bin"; echo "$T/p.bin"; }
le64() { python3 -c "import struct, sys; sys.stdout.buffer.write(struct.pack('<Q', int(sys.argv[1], 16) % 2**64))" "$1" >"$T/p.bin"; echo "$T/p.bin"; }
clean_n=$(grep -c '^\[' "${LOG[x86_64/qemu.elf]}")
# mutant NAME ALLOWED: run the copy, print the outcome.
mutant() {
	run "$1" "$2" "$work" -o "$T/$1.log" || return 1
	local n
	n=$(grep -c '^\[' "$T/$1.log" 2>/dev/null)
	printf '  %-22s exit %s: %s records printed; %s\n' "$1" "$RC" "${n:-0}" \
		"$(grep -v ': warning: ' "$T/$1.err" | head -1 | sed "s|$work|COPY|" | cut -c1-170)"
	[ $RC -eq 2 ] && [ -e "$T/$1.log" ] && bad "$1: exit 2 left an output file"
	return 0
}
python3 -c "import random, sys; sys.stdout.buffer.write(random.Random(5).randbytes($COUNT * $D_SIZE))" >"$T/garbage.bin"
patch "$DESCS_PA" "$T/garbage.bin" && { mutant garbage-descriptors 12; unpatch; }
patch "$TAIL_PA" "$(le64 "$(printf %x $((16#$HEAD + 1)))")" && {
	mutant tail-past-head 12 && [ $RC -eq 1 ] && ! grep -q 'further apart' "$T/tail-past-head.err" &&
		bad "tail-past-head: the message does not say the ids are too far apart"
	unpatch
}
python3 - "$work" "$INFOS_PA" "$COUNT" "$I_SIZE" "$TEXT_LEN" "$T/infos.bin" <<'PY' || bad "cannot build the text_len mutation"
import sys
sys.path.insert(0, "tests/cases/lib")
from elfphys import Elf
path, pa, count, size, off, out = sys.argv[1], int(sys.argv[2], 16), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
b = bytearray(Elf(path).read(pa, count * size))
for i in range(count):
    b[i * size + off:i * size + off + 2] = b"\xff\xff"
open(out, "wb").write(b)
PY
patch "$INFOS_PA" "$T/infos.bin" && {
	mutant text-len-ffff 12 && [ $RC -eq 1 ] && [ "$(grep -c '^\[' "$T/text-len-ffff.log")" -ne 0 ] &&
		bad "text-len-ffff: records printed although no text_len fits"
	unpatch
}
patch "$HEAD_DESC_PA" "$(le64 "$HEAD")" && { # state bits 0: reserved
	mutant newest-reserved 1 && [ "$(grep -c '^\[' "$T/newest-reserved.log")" -eq $((clean_n - 1)) ] ||
		bad "newest-reserved: not every other record printed"
	grep -q 'partial: 1 of .* (1 being written' "$T/newest-reserved.err" || bad "newest-reserved: $(cat "$T/newest-reserved.err")"
	unpatch
}
patch "$COUNT_BITS_PA" "$(bytes 1f000000)" && {
	mutant count-bits-31 2 && grep -q 'count_bits' "$T/count-bits-31.err" || bad "count-bits-31: $(cat "$T/count-bits-31.err")"
	unpatch
}
# Text bytes as dmesg shows them. "Adding" is 6 bytes: the space after it, then it all.
swap_line=$(grep -m1 '\] Adding [0-9]*k swap on /dev/vda\.' "${LOG[x86_64/qemu.elf]}")
prefix=${swap_line%%Adding*} rest=${swap_line#*Adding }
patch "$(printf %x $((16#$SWAP_PA + 6)))" "$(bytes 01)" && {
	mutant text-control 0 && grep -qxF "${prefix}Adding\\x01$rest" "$T/text-control.log" &&
		echo "    the control byte written as \\x01" || bad "text-control: no '${prefix}Adding\\x01...' line"
	unpatch
}
patch "$SWAP_PA" "$(bytes 416464c3a9ff)" && {
	mutant text-utf8 0 && grep -qxF "${prefix}Add$(printf '\xc3\xa9')\\xff $rest" "$T/text-utf8.log" &&
		echo "    UTF-8 kept, the stray 0xff written as \\xff" || bad "text-utf8: not as expected: $(grep -a 'k swap on' "$T/text-utf8.log")"
	unpatch
}
after_swap=${rest#*swap }
off_on=$(( ${#rest} - ${#after_swap} )) # where "on" starts
patch "$(printf %x $((16#$SWAP_PA + 7 + off_on - 1)))" "$(bytes 0a)" && {
	mutant text-newline 0
	first="${prefix}Adding ${rest%% on *}" second="$(printf '%*s' ${#prefix} '')on ${rest#* on }"
	grep -A1 -xF "$first" "$T/text-newline.log" | tail -1 | grep -qxF "$second" &&
		echo "    a newline in the text: a continuation line indented under the text" ||
		bad "text-newline: expected '$first' then '$second'"
	unpatch
}
cmp -s "$X86" "$work" || bad "the copy was not restored"
rm -f "$work"

echo "klog: $nd dumps, $ncrash crash comparisons in $(fx_elapsed "$t_start") s"
[ ${#notes[@]} -eq 0 ] || printf 'klog: note: %s\n' "${notes[@]}"
[ $fail -eq 0 ] && echo "klog: OK"
exit $fail
