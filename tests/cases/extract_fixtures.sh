#!/usr/bin/env bash
# extract_fixtures.sh - `pagesleuth extract` on the real kernel dumps against the guest's own
# view (tests/fixtures/data/<fixture>/groundtruth.txt), with the type information found in
# the dump (BTF through kallsyms; no --vmlinux/--btf/--profile):
#   - x86_64 qemu.elf, x86_64 kdump-d1, arm64 qemu.elf (all under ASan+UBSan): each small
#     page's mapcount equals the number of PTEs mapping it in the whole dump; every workload
#     process passes gtcheck --referenced (the vdso's kpagecount less gtcap's own mapping,
#     see tests/tools/gt2check.py): (VA, PFN) set exact, mapcount == kpagecount, flags ==
#     kpageflags, swap entries, VMAs == smaps, per VMA resident/anon/swap/Referenced, PSS
#     within 1 KiB, huge-leaf pages, one task record per thread, special mappings named as
#     maps names them; exit 0, end status=complete;
#   - x86_64 kdump-d31 (makedumpfile -c -d 31 of the same memory as kdump-d1): the same
#     records page by page as kdump-d1 with `x` read as `m` (tasks, mms, VMAs, PFNs,
#     mapcounts, refcounts, PTE bits, flags, sums but for excluded=), every workload-region
#     page an `x ... dumplevel` record (and an `m` record in kdump-d1), header excluded=dumplevel:31;
#   - ppc64le kdump-d1, kdump-d31 and QEMU's ELF of the same boot (--btf + --system-map:
#     Debian's ppc64el kernel has no BTF): gtcheck for every workload process; d31 equals d1
#     with `x` read as `m`, every workload-region page `x`, and the QEMU ELF has the same
#     resident maps as d31 page by page;
#   - ppc64le-hash (the same kernel booted with disable_radix: the hash MMU's page tables),
#     QEMU ELF with ppc64le's BTF + System.map: gtcheck for every workload process, every
#     workload-region page mapped, and console.log shows the kernel chose the hash MMU;
#   - armhf, ppc32 e500 (64-bit PTEs) and e500 (32-bit PTEs) QEMU ELF dumps (no VMCOREINFO
#     note; the committed BTF): gtcheck for every workload process (tests/tools/gt2check.py
#     leaves out ARM's [vectors] gate page and adjusts ppc32's [vdso] for gtcap's own exit),
#     every workload-region page mapped; the e500 kdump-zlib gives the ELF's records;
#   - `pagesleuth report` on every extracted file exits 0 and names the workload's comms; its
#     PSS per process (CSV, and the text tables with --units kib, pages, human) agrees with
#     the guest's smaps, and every text line fits 100 columns.
set -uo pipefail
cd "${PAGESLEUTH_ROOT:-.}" || exit 1
. tests/cases/lib/fixtures.sh
ASAN=${PAGESLEUTH:-build-asan/pagesleuth}
FAST=${PAGESLEUTH_FAST:-build/pagesleuth}
fail=0
bad() { echo "FAIL: $*"; fail=1; }
[ -x "$ASAN" ] || { echo "FAIL: no pagesleuth at $ASAN"; exit 1; }
[ -x "$FAST" ] || FAST=$ASAN
command -v python3 >/dev/null || { echo "FAIL: python3 not installed"; exit 1; }
"$FAST" extract --help >/dev/null 2>&1 || "$FAST" extract 2>&1 | grep -qi usage ||
	{ echo "FAIL: this pagesleuth has no extract command"; exit 1; }

T=$(mktemp -d "${TMPDIR:-/tmp}/extract_fixtures.XXXXXX")
trap 'rm -rf "$T"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
GTCHECK=$(fx_gtcheck "$T") || exit 1

# extract BIN FIXTURE DUMPFILE OUT [TYPE-INFO ARGS]: a clean extraction (exit 0, complete;
# stderr only for the dump's own repairs, shown as a NOTE).
extract() {
	local bin=$1 fx=$2 file=$3 out=$4 dump t0 rc
	shift 4
	dump=$(fx_dump "$fx" "$file") || { bad "$fx/$file: not available"; return 1; }
	t0=$(fx_now)
	"$bin" extract "$dump" -o "$out" "$@" 2>"$out.err"
	rc=$?
	echo "$fx/$file: extract ($(basename "$(dirname "$bin")")) exit $rc in $(fx_elapsed "$t0") s," \
		"$(stat -c %s "$out" 2>/dev/null || echo 0) bytes, $(grep -c '^[mx] ' "$out" 2>/dev/null) m/x lines"
	if fx_sanitizer_report "$out.err"; then
		bad "$fx/$file: sanitizer report:"; head -30 "$out.err"; return 1
	fi
	[ $rc -eq 0 ] || { bad "$fx/$file: extract exited $rc: $(head -3 "$out.err")"; return 1; }
	[ -s "$out.err" ] && echo "NOTE: $fx/$file: stderr on a clean extraction: $(head -3 "$out.err")"
	grep -q '^end status=complete ' "$out" || bad "$fx/$file: no 'end status=complete' line"
	"$GTCHECK" --validate "$out" >/dev/null || bad "$fx/$file: $("$GTCHECK" --validate "$out")"
	# Independent of the ground truth: every small page's mapcount is its number of PTEs.
	python3 tests/cases/lib/records.py mapcounts "$out" || fail=1
	return 0
}

# check_gt FIXTURE OUT: gtcheck every workload process of the ground truth.
check_gt() {
	local fx=$1 out=$2 gt=$T/gt.$1 pid role comm threads n=0 nfail=0
	[ -f "$gt/procs" ] || fx_groundtruth "$fx" "$gt" || { bad "$fx: ground truth does not convert"; return; }
	while read -r pid role comm threads; do
		n=$((n + 1))
		if ! "$GTCHECK" --referenced "$pid" "$out" "$gt/smaps.$pid" "$gt/pages.$pid" >"$out.gt.$pid" 2>&1; then
			nfail=$((nfail + 1))
			bad "$(basename "$out"): pid $pid ($role):"
			head -20 "$out.gt.$pid" | sed 's/^/    /'
		fi
		# Threads: one task record per tid of the ground truth.
		local tasks
		tasks=$(awk -v t="tgid=$pid" '$1 == "task" { for (i = 2; i <= NF; i++) if ($i == t) n++ } END { print n + 0 }' "$out")
		[ "$tasks" -eq "$threads" ] || bad "$(basename "$out"): pid $pid ($role): $tasks task records, ground truth has $threads threads"
	done <"$gt/procs"
	echo "$(basename "$out"): gtcheck: $((n - nfail)) of $n workload processes OK"
	# Special mappings read as maps names them ([sigpage] of ARM, [vvar] ...).
	python3 tests/cases/lib/records.py special-names "$out" "$gt" || fail=1
}

# check_report OUT FIXTURE: the analyzer reads it and names the workload's comms.
check_report() {
	local out=$1 fx=$2 comm
	"$FAST" report "$out" >"$out.report" 2>"$out.report.err" ||
		{ bad "report $(basename "$out") exited $?: $(head -3 "$out.report.err")"; return; }
	for comm in $(awk '{ print $3 }' "$T/gt.$fx/procs" | sort -u); do
		grep -q -- "$comm" "$out.report" || bad "report $(basename "$out") does not mention $comm"
	done
	# The analyzer's own PSS per process (from the m/x records, not the writer's sums)
	# against the sum of smaps Pss: each smaps VMA line is floored to 1 KiB, so the sum may
	# lie below the exact total by less than 1 KiB per VMA; 1 KiB of slack the other way
	# for the vdso page, which gtcap itself still mapped when smaps was read.
	"$FAST" report -a pss -f csv "$out" >"$out.pss" 2>&1 || { bad "report -a pss $(basename "$out") failed"; return; }
	python3 - "$out.pss" "$T/gt.$fx" <<'PY' || bad "$(basename "$out"): analyzer PSS differs from smaps"
import glob, os, sys
pss = {}
for line in open(sys.argv[1]):
    f = line.strip().split(",")
    if len(f) >= 5 and f[0].isdigit():
        pss[f[0]] = int(f[4])
bad = 0
for sm in sorted(glob.glob(os.path.join(sys.argv[2], "smaps.*"))):
    pid = sm.rsplit(".", 1)[1]
    total = nvma = 0
    for line in open(sm):
        if line.startswith("Pss:"):
            total += int(line.split()[1]); nvma += 1
    got = pss.get(pid)
    ok = got is not None and total - 1 <= got <= total + nvma
    if not ok:
        bad = 1
    print("  pid %s: analyzer PSS %s KiB, smaps Pss sum %d KiB over %d VMAs%s" % (pid, got, total, nvma, "" if ok else "  <-- MISMATCH"))
sys.exit(bad)
PY
	# The text tables in each --units convention against the same smaps: PSS in KiB within
	# the bounds above, RSS in pages = the smaps Rss sum / the page size exactly, human sizes
	# parsed back within their rounding; every line of every table within 100 columns.
	local u
	for u in kib pages human; do
		"$FAST" report -a all -u "$u" "$out" >"$out.text.$u" 2>/dev/null ||
			{ bad "report -a all -u $u $(basename "$out") failed"; return; }
	done
	python3 - "$out.text" "$T/gt.$fx" <<'PY' || bad "$(basename "$out"): text tables (--units) differ from smaps"
import glob, os, re, sys
sys.path.insert(0, "tests/cases/lib")
import textreport
base, gt = sys.argv[1], sys.argv[2]
bad = 0
for u in ("kib", "pages", "human"):
    w = max(len(l) for l in open("%s.%s" % (base, u), encoding="utf-8", errors="replace").read().split("\n"))
    if w > 100:
        print("  --units %s: a line of %d columns  <-- TOO WIDE" % (u, w)); bad = 1
ps = int(re.search(r"^page size: (\d+)$", open(base + ".kib").read(), re.M).group(1))
for sm in sorted(glob.glob(os.path.join(gt, "smaps.*"))):
    pid = sm.rsplit(".", 1)[1]
    pss = rss = nvma = 0
    for line in open(sm):
        if line.startswith("Pss:"):
            pss += int(line.split()[1]); nvma += 1
        elif line.startswith("Rss:"):
            rss += int(line.split()[1])
    def get(u, title, col):
        return textreport.get("%s.%s" % (base, u), title, "PID", pid, col)
    try:
        kib_pss = int(get("kib", "PSS and USS per process", "PSS"))
        pages_rss = get("pages", "PSS and USS per process", "RSS")
        sum_rss = get("pages", "Per-process summary", "RSS")
        h_rss, h_pss = get("human", "PSS and USS per process", "RSS"), get("human", "PSS and USS per process", "PSS")
    except LookupError as e:
        print("  pid %s: %s  <-- MISSING" % (pid, e)); bad = 1; continue
    (hr, tr), (hp, tp) = textreport.human(h_rss), textreport.human(h_pss)
    ok = (pss - 1 <= kib_pss <= pss + nvma and pages_rss == sum_rss == str(rss * 1024 // ps)
          and abs(hr - rss * 1024) <= tr and (pss - 1) * 1024 - tp <= hp <= (pss + nvma) * 1024 + tp)
    bad |= not ok
    print("  pid %s: --units kib PSS %d (smaps %d); pages RSS %s, summary %s (smaps %d KiB / %d); "
          "human RSS %s, PSS %s%s" % (pid, kib_pss, pss, pages_rss, sum_rss, rss, ps, h_rss, h_pss,
                                      "" if ok else "  <-- MISMATCH"))
sys.exit(bad)
PY
}

t_start=$(fx_now)
# 1. x86_64 QEMU ELF (every extraction runs under ASan+UBSan: they take well under a second).
if extract "$ASAN" x86_64 qemu.elf "$T/x86_64-elf.rec"; then
	check_gt x86_64 "$T/x86_64-elf.rec"
	check_report "$T/x86_64-elf.rec" x86_64
fi
# 2. x86_64 makedumpfile -d 1 (kdump-compressed format, zero pages filtered).
if extract "$ASAN" x86_64 kdump-d1.kdump "$T/x86_64-d1.rec"; then
	check_gt x86_64 "$T/x86_64-d1.rec"
	check_report "$T/x86_64-d1.rec" x86_64
	python3 tests/cases/lib/records.py region-tags "$T/x86_64-d1.rec" "$T/gt.x86_64" m || fail=1
fi
# 3. x86_64 makedumpfile -c -d 31: user pages filtered out, everything else identical.
if extract "$ASAN" x86_64 kdump-d31.kdump "$T/x86_64-d31.rec"; then
	grep -q '^header .*excluded=[^ ]*dumplevel:31' "$T/x86_64-d31.rec" ||
		bad "x86_64-d31.rec: header does not say excluded=dumplevel:31: $(grep -m1 '^header' "$T/x86_64-d31.rec")"
	python3 tests/cases/lib/records.py region-tags "$T/x86_64-d31.rec" "$T/gt.x86_64" x:dumplevel || fail=1
	if [ -s "$T/x86_64-d1.rec" ]; then
		python3 tests/cases/lib/records.py same-but-excluded "$T/x86_64-d1.rec" "$T/x86_64-d31.rec" || fail=1
	fi
	# The mappings are known, only the contents are not: gtcheck passes as on -d 1.
	check_gt x86_64 "$T/x86_64-d31.rec"
	check_report "$T/x86_64-d31.rec" x86_64
fi
# 4. arm64 QEMU ELF.
if extract "$ASAN" arm64 qemu.elf "$T/arm64-elf.rec"; then
	check_gt arm64 "$T/arm64-elf.rec"
	check_report "$T/arm64-elf.rec" arm64
fi
# 5. ppc64le (radix MMU, 64K pages, big-endian page-table entries on a little-endian
#    kernel). Debian's ppc64el kernel has no BTF: the committed detached BTF and System.map.
ppc64_ti=(--btf "$(fx_btf ppc64le)" --system-map "$T/ppc64le.System.map")
zstd -q -dc tests/fixtures/data/ppc64le/System.map.zst >"$T/ppc64le.System.map" ||
	bad "ppc64le: System.map.zst does not decompress"
if extract "$ASAN" ppc64le kdump-d1.kdump "$T/ppc64le-d1.rec" "${ppc64_ti[@]}"; then
	check_gt ppc64le "$T/ppc64le-d1.rec"
	check_report "$T/ppc64le-d1.rec" ppc64le
fi
if extract "$ASAN" ppc64le kdump-d31.kdump "$T/ppc64le-d31.rec" "${ppc64_ti[@]}"; then
	python3 tests/cases/lib/records.py region-tags "$T/ppc64le-d31.rec" "$T/gt.ppc64le" x:dumplevel || fail=1
	[ -s "$T/ppc64le-d1.rec" ] &&
		{ python3 tests/cases/lib/records.py same-but-excluded "$T/ppc64le-d1.rec" "$T/ppc64le-d31.rec" || fail=1; }
	check_gt ppc64le "$T/ppc64le-d31.rec"
fi
#    QEMU's ELF of the same boot (a header QEMU writes wrong, VMCOREINFO from guest RAM).
if extract "$ASAN" ppc64le qemu.elf "$T/ppc64le-elf.rec" "${ppc64_ti[@]}"; then
	check_gt ppc64le "$T/ppc64le-elf.rec"
	grep -q "QEMU's ppc64 ELF header" "$T/ppc64le-elf.rec.err" ||
		bad "ppc64le qemu.elf: the header repair is not named on stderr"
	# The same resident maps as the real kdump -d 31 of that boot, its data pages `x`.
	[ -s "$T/ppc64le-d31.rec" ] &&
		{ python3 tests/cases/lib/records.py same-resident "$T/ppc64le-elf.rec" "$T/ppc64le-d31.rec" || fail=1; }
fi
#    ppc64le-hash: the same kernel package booted with disable_radix, so the walker reads
#    the hash MMU's Linux page tables (64K: 8/10/10/8 index bits, PTE fragments twice the
#    table). QEMU ELF; its BTF and System.map are the ppc64le fixture's (linked files).
grep -q 'hash-mmu: Initializing hash mmu' tests/fixtures/data/ppc64le-hash/console.log ||
	bad "ppc64le-hash: console.log does not show the kernel choosing the hash MMU"
ppc64h_ti=(--btf "$(fx_btf ppc64le-hash)" --system-map "$T/ppc64le-hash.System.map")
# (a symbolic link: zstd skips those given by name unless forced, so read it from stdin)
zstd -q -dc <tests/fixtures/data/ppc64le-hash/System.map.zst >"$T/ppc64le-hash.System.map" ||
	bad "ppc64le-hash: System.map.zst does not decompress"
if extract "$ASAN" ppc64le-hash qemu.elf "$T/ppc64le-hash-elf.rec" "${ppc64h_ti[@]}"; then
	check_gt ppc64le-hash "$T/ppc64le-hash-elf.rec"
	check_report "$T/ppc64le-hash-elf.rec" ppc64le-hash
	python3 tests/cases/lib/records.py region-tags "$T/ppc64le-hash-elf.rec" "$T/gt.ppc64le-hash" m || fail=1
fi
# 6. armhf (ARMv7 short descriptors, HIGHMEM kernel; 6.1 and 6.12) and ppc32 Book-E (e500 with 64- and
#    32-bit PTEs, PG_idle/PG_young in page_ext): QEMU ELF dumps without a VMCOREINFO note
#    (it is found in guest RAM); the committed detached BTF, symbols from kallsyms.
#    armhf-trixie: Debian 13's 6.12 armmp. Debian's armhf kernels carry no BTF: with no
#    option, extract must say exactly that (found after kallsyms, which arm's setup looks in
#    before kernel addresses translate), naming the kernel.
for fx in armhf armhf-trixie; do
	rel=$(sed -n 's/^kernel_release //p' "tests/fixtures/data/$fx/MANIFEST")
	dump=$(fx_dump $fx qemu.elf) || { bad "$fx/qemu.elf: not available"; continue; }
	"$FAST" extract "$dump" -o "$T/$fx-none.rec" 2>"$T/$fx-none.err"
	rc=$?
	[ $rc -eq 2 ] && grep -q "no BTF in the dump: no __start_BTF symbol and no BTF header after _etext (a kernel without CONFIG_DEBUG_INFO_BTF); pass --vmlinux, --btf or --profile (kernel $rel)" "$T/$fx-none.err" ||
		bad "$fx: without type information: exit $rc, $(tail -1 "$T/$fx-none.err")"
	[ -e "$T/$fx-none.rec" ] && bad "$fx: a refused extraction left $T/$fx-none.rec"
done
#    ppc32-e500-64pte-bullseye/-trixie: the same e500 kernel built from linux-source-5.10
#    and -6.12.
PPC32_E500="ppc32-e500-64pte ppc32-e500-64pte-bullseye ppc32-e500-64pte-trixie"
for fx in armhf armhf-trixie $PPC32_E500 ppc32-mpc8544ds-32pte; do
	if extract "$ASAN" $fx qemu.elf "$T/$fx-elf.rec" --btf "$(fx_btf $fx)"; then
		check_gt $fx "$T/$fx-elf.rec"
		check_report "$T/$fx-elf.rec" $fx
		python3 tests/cases/lib/records.py region-tags "$T/$fx-elf.rec" "$T/gt.$fx" m || fail=1
	fi
done
#    QEMU's kdump-zlib of the e500 guests: the same records as their ELF.
for fx in $PPC32_E500; do
	if extract "$ASAN" $fx qemu-kdump-zlib.kdump "$T/$fx-kdump.rec" --btf "$(fx_btf $fx)"; then
		check_gt $fx "$T/$fx-kdump.rec"
		[ -s "$T/$fx-elf.rec" ] &&
			{ cmp -s <(grep -v '^header ' "$T/$fx-kdump.rec") <(grep -v '^header ' "$T/$fx-elf.rec") ||
				bad "$fx: kdump-zlib and ELF records differ"; }
	fi
done
# 7. Other kernel generations (Debian 11's 5.10, 13's 6.12, the newest in sid), x86_64 and
#    arm64 (arm64: 5.10 without VMEMMAP_START in VMCOREINFO, 6.12/7.2 built for 52-bit VAs on
#    a 48-bit CPU): every dump with no type-information option at all (5.10 lists no kallsyms in VMCOREINFO:
#    found by their structure; 7.x has place-relative kallsyms offsets; 6.10+ page types),
#    then with the committed BTF given: the same records. x86_64-ram (6.1 with the RAM
#    workload beside the usual one: its swap is zram, hugetlb, BPF, 8000 sockets) and
#    x86_64-selfbuilt (6.1 built here: allnoconfig + a fragment, the kernel whose DWARF
#    vmlinux is committed) too.
for fx in x86_64-bullseye x86_64-trixie x86_64-trixie-la57 x86_64-forky arm64-bullseye arm64-trixie arm64-forky \
	ppc64le-trixie x86_64-ram x86_64-selfbuilt; do
	[ -f "tests/fixtures/data/$fx/MANIFEST" ] || { bad "$fx: fixture missing"; continue; }
	if extract "$ASAN" $fx qemu.elf "$T/$fx-elf.rec"; then
		check_gt $fx "$T/$fx-elf.rec"
		check_report "$T/$fx-elf.rec" $fx
		python3 tests/cases/lib/records.py region-tags "$T/$fx-elf.rec" "$T/gt.$fx" m || fail=1
		if extract "$FAST" $fx qemu.elf "$T/$fx-elf-btf.rec" --btf "$(fx_btf $fx)"; then
			cmp -s <(grep -v '^header ' "$T/$fx-elf.rec") <(grep -v '^header ' "$T/$fx-elf-btf.rec") ||
				bad "$fx: records with --btf differ from those with the dump's own type information"
		fi
	fi
	grep -q ' kdump-d31.kdump.zst ' "tests/fixtures/data/$fx/MANIFEST" || continue # QEMU ELF only
	if [ $fx = x86_64-forky ]; then
		# sid's makedumpfile 1.7.8 ("kernel version is not supported") drops slab pages of
		# 7.2 at -d 31: the task list ends at an excluded task_struct. The walker must say
		# so (exit 1, partial, the excluded kernel structures named), never write a
		# complete-looking snapshot.
		d31=$(fx_dump $fx kdump-d31.kdump) || { bad "$fx/kdump-d31.kdump: not available"; continue; }
		"$ASAN" extract "$d31" -o "$T/$fx-d31.rec" 2>"$T/$fx-d31.err"
		rc=$?
		fx_sanitizer_report "$T/$fx-d31.err" && { bad "$fx-d31: sanitizer report"; head -20 "$T/$fx-d31.err"; }
		echo "$fx/kdump-d31.kdump: extract exit $rc: $(head -1 "$T/$fx-d31.err")"
		[ $rc -eq 1 ] && grep -q '^end status=partial ' "$T/$fx-d31.rec" &&
			grep -q '^warn .*task_struct.*excluded' "$T/$fx-d31.rec" ||
			bad "$fx-d31: expected exit 1 and a partial snapshot naming the excluded task_struct"
		continue
	fi
	if extract "$ASAN" $fx kdump-d31.kdump "$T/$fx-d31.rec"; then
		grep -q '^header .*excluded=[^ ]*dumplevel:31' "$T/$fx-d31.rec" ||
			bad "$fx-d31.rec: header does not say excluded=dumplevel:31"
		python3 tests/cases/lib/records.py region-tags "$T/$fx-d31.rec" "$T/gt.$fx" x:dumplevel || fail=1
		check_gt $fx "$T/$fx-d31.rec"
		[ -s "$T/$fx-elf.rec" ] &&
			{ python3 tests/cases/lib/records.py same-resident "$T/$fx-elf.rec" "$T/$fx-d31.rec" || fail=1; }
	fi
done
echo "extract_fixtures: $(fx_elapsed "$t_start") s in all"
[ $fail -eq 0 ] && echo "extract_fixtures: OK"
exit $fail
