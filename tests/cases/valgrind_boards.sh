#!/usr/bin/env bash
# valgrind_boards.sh - the pagesleuth Valgrind tool on boards (issue 17, "On the boards"):
# cross-built for arm64, armhf and ppc64el (`make valgrind-tool ARCH=...` against Debian 12's
# valgrind:ARCH package contents) and 32-bit PowerPC (Valgrind built from Debian 12's source
# package: no Debian 12 powerpc port; skipped until built once) and run for real inside a QEMU TCG guest of that
# architecture (a Debian kernel, as the kernel-dump fixtures boot it; an initramfs with
# busybox-static, glibc, the tool's directory and the test programs: tests/cases/lib/vgboard.py).
# In the guest the same known-behaviour programs as on amd64 (tests/valgrind/*.c, -O0 -g)
# are checked against the same expected numbers as valgrind_ws.sh and valgrind_objects.sh
# assert (per-object sizes and bytes follow the target's `long`):
#   - the page ramp (ws_ramp): data = (N+1)/2 + frame pages, code = 1 in every window inside
#     each phase, for two (every, tau);
#   - two threads sharing 24 pages (ws_threads): the process counts them once, each thread
#     shared + its own + its frame;
#   - per-object counts (obj_counts, --objects=yes): the hand counts, the 100-block merge, and
#     the depth-1 merge;
# and the records, written on the board, are read on this (x86) host by `pagesleuth report`
# like any others. PS_BOARDS="arm64 armhf" picks architectures (default: all four).
# An architecture whose cross compiler, QEMU or Debian packages are unavailable (and cannot
# be fetched: a download is retried) is skipped with the reason; all skipped = exit 77.
# Exit 0 pass, 77 skip, else fail.
set -uo pipefail
NAME=valgrind_boards
ROOT=${PAGESLEUTH_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$ROOT" || exit 1
PAGESLEUTH=${PAGESLEUTH:-$ROOT/build/pagesleuth}
PAGESLEUTH_FAST=${PAGESLEUTH_FAST:-$PAGESLEUTH}
T=$(mktemp -d /tmp/$NAME.XXXXXX)
[ -n "${PS_KEEP:-}" ] || trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
fail() { echo "$NAME: FAIL: $*"; exit 1; }
command -v python3 >/dev/null || fail "python3 is needed"
B=$(mkdir -p "$(dirname "$PAGESLEUTH_FAST")" && cd "$(dirname "$PAGESLEUTH_FAST")" && pwd)
vgrec() { python3 "$ROOT/tests/cases/lib/vgrec.py" "$@"; }

declare -A TRIPLET=([arm64]=aarch64-linux-gnu [armhf]=arm-linux-gnueabihf [ppc64el]=powerpc64le-linux-gnu [powerpc]=powerpc-linux-gnu)
declare -A QEMU=([arm64]=qemu-system-aarch64 [armhf]=qemu-system-arm [ppc64el]=qemu-system-ppc64 [powerpc]=qemu-system-ppc)
declare -A QEMUPKG=([arm64]=qemu-system-arm [armhf]=qemu-system-arm [ppc64el]=qemu-system-ppc [powerpc]=qemu-system-ppc)
declare -A PLAT=([arm64]=arm64-linux [armhf]=arm-linux [ppc64el]=ppc64le-linux [powerpc]=ppc32-linux)
declare -A RECARCH=([arm64]=arm64 [armhf]=arm [ppc64el]=ppc64le [powerpc]=ppc32)
declare -A ENDIAN=([arm64]=little [armhf]=little [ppc64el]=little [powerpc]=big)
declare -A WORD=([arm64]=8 [armhf]=4 [ppc64el]=8 [powerpc]=4)
passed=() skipped=()

# The guest's jobs: NAME COMMAND (busybox sh, VALGRIND_LIB=/vg; records in /tmp/NAME.rec)
cat >"$T/jobs" <<'EOF'
ramp_native /t/ws_ramp
ramp_a valgrind -q --tool=pagesleuth --out=/tmp/ramp_a.rec --ws-every=5000 --ws-tau=20000 /t/ws_ramp
ramp_b valgrind -q --tool=pagesleuth --out=/tmp/ramp_b.rec --ws-every=3000 --ws-tau=3000 /t/ws_ramp
thr valgrind -q --tool=pagesleuth --fair-sched=yes --out=/tmp/thr.rec --ws-every=1000000 --ws-tau=12000000 /t/ws_threads
obj valgrind -q --tool=pagesleuth --out=/tmp/obj.rec --objects=yes /t/obj_counts
objd valgrind -q --tool=pagesleuth --out=/tmp/objd.rec --objects=yes --obj-stack-depth=1 /t/obj_counts
hot valgrind -q --tool=pagesleuth --out=/tmp/hot.rec --ws-every=5000 --hot=4 /t/ws_ramp
EOF

# check_objs FILE DEPTH1 "kind name size blocks loads stores bload bstore line count"...
# (valgrind_objects.sh's check: the heap objects' stacks start at the allocating function and
# end in main, or are that function alone at depth 1; no other heap object)
check_objs() {
	python3 - "$@" <<'PY'
import sys, urllib.parse
rec, depth1 = sys.argv[1], sys.argv[2] == "1"
objs, frames = [], {}
for line in open(rec):
    f = line.split()
    if not f or f[0] not in ("obj", "frame"):
        continue
    kv = {k: urllib.parse.unquote(v) for k, v in (x.split("=", 1) for x in f[1:])}
    (objs.append(kv) if f[0] == "obj" else frames.__setitem__(kv["id"], kv))
bad = 0
for spec in sys.argv[3:]:
    kind, name, size, blocks, loads, stores, bload, bstore, line, count = spec.split()
    hits = [o for o in objs if o["kind"] == kind and o["name"] == name]
    if len(hits) != int(count):
        print("  %s %s: %d objects, expected %s" % (kind, name, len(hits), count)); bad += 1
        continue
    for o in hits:
        got = [o["size"], o["blocks"], o["loads"], o["stores"], o["bload"], o["bstore"], o["line"]]
        exp = [size, blocks, loads, stores, bload, bstore, line]
        if got != exp:
            print("  %s %s: size blocks loads stores bload bstore line = %s, expected %s"
                  % (kind, name, " ".join(got), " ".join(exp))); bad += 1
        if not o["file"].endswith("obj_counts.c"):
            print("  %s %s: file=%s" % (kind, name, o["file"])); bad += 1
        if kind == "heap":
            fns = [frames[i]["fn"] if i in frames else "?" for i in o["stack"].split(",")]
            if fns[0] != name or (depth1 and len(fns) != 1) or (not depth1 and fns[-1] != "main"):
                print("  heap %s: stack %s" % (name, fns)); bad += 1
# the malloc replacement's own variables are not the program's (a Valgrind built from source
# has their debug information: powerpc)
for o in objs:
    if "vg_replace_malloc" in o["file"]:
        print("  %s %s of the malloc replacement (%s)" % (o["kind"], o["name"], o["file"])); bad += 1
names = sorted(o["name"] for o in objs if o["kind"] == "heap")
want = sorted(s.split()[1] for s in sys.argv[3:] for _ in range(int(s.split()[9])) if s.split()[0] == "heap")
if names != want:
    print("  heap objects %s, expected %s" % (names, want)); bad += 1
sys.exit(1 if bad else 0)
PY
}

board() { # ARCH: "ok" / "skip: reason" on stdout's last line; fails the case on a wrong result
	local a=$1 w=$T/$a cc=${TRIPLET[$a]}-gcc plat=${PLAT[$a]}
	mkdir -p "$w/progs"
	command -v "$cc" >/dev/null || { echo "skip: no $cc (apt-get install gcc-${TRIPLET[$a]})"; return; }
	command -v "${QEMU[$a]}" >/dev/null || { echo "skip: no ${QEMU[$a]} (apt-get install ${QEMUPKG[$a]})"; return; }
	# the package first, so that a download failure (retried) is a skip, not a build failure;
	# powerpc: Valgrind built from Debian's source package (mk/valgrind-from-source.sh,
	# ~10 min once), not within this case's time
	local f=tests/fixtures/scripts/fetch-deb.sh got=""
	if [ "$a" = powerpc ]; then
		[ -f "${PAGESLEUTH_CACHE:-/var/cache/pagesleuth}/valgrind-src/root-powerpc/.done" ] ||
			{ echo "skip: no Valgrind for powerpc yet (Debian 12 has no powerpc port: make valgrind-tool ARCH=powerpc builds it from Debian's source package, ~10 min once)"; return; }
		got=built
	fi
	for i in 1 2 3; do
		[ -z "$got" ] || break
		got=$($f "$a" valgrind 1:3.19.0-1 2>"$w/fetch.err") && break
		got=""
		[ $i = 1 ] && tests/fixtures/scripts/apt-foreign.sh "$a" update >/dev/null 2>&1
		sleep $((3 * i))
	done
	[ -n "$got" ] || { echo "skip: valgrind:$a cannot be fetched ($(tail -1 "$w/fetch.err"))"; return; }
	flock "$B/.valgrind-tool-$a.lock" make -s -j1 -C "$ROOT" valgrind-tool ARCH="$a" B="$B" >"$w/make.log" 2>&1 ||
		fail "$a: make valgrind-tool ARCH=$a failed: $(grep -m3 -E 'error|Error' "$w/make.log")"
	local lib=$B/valgrind-lib-$a
	for x in "pagesleuth-$plat" "vgpreload_pagesleuth-$plat.so" "vgpreload_core-$plat.so" default.supp bin/valgrind; do
		[ -f "$lib/$x" ] || fail "$a: $lib/$x missing after make valgrind-tool ARCH=$a"
	done
	for p in ws_ramp ws_threads obj_counts; do
		$cc -std=gnu11 -g -O0 -I"$ROOT/valgrind" -isystem "$B/valgrind-pkg-$a/usr/include" -pthread \
			-o "$w/progs/$p" "$ROOT/tests/valgrind/$p.c" 2>"$w/$p.cc.log" ||
			fail "$a: cannot cross-compile tests/valgrind/$p.c: $(head -3 "$w/$p.cc.log")"
	done
	local left=$((t0 + BUDGET - $(date +%s)))
	[ "$left" -ge 90 ] || { echo "skip: the case's time budget (${BUDGET} s) is spent"; return; }
	[ "$left" -le 200 ] || left=200
	python3 "$ROOT/tests/cases/lib/vgboard.py" "$a" "$lib" "$w/progs" "$T/jobs" "$w/out" "$left" >"$w/vgboard.log" 2>&1
	case $? in
	0) ;;
	2) echo "skip: $(tail -1 "$w/vgboard.log")"; return ;;
	*) fail "$a: the guest run failed: $(tail -2 "$w/vgboard.log")" ;;
	esac
	local o=$w/out
	for j in ramp_native ramp_a ramp_b thr obj objd hot; do
		[ "$(cat "$o/$j.rc" 2>/dev/null)" = 0 ] ||
			fail "$a: $j exited ${rc:-$(cat "$o/$j.rc" 2>/dev/null || echo '(not run)')} in the guest: $(head -c 600 "$o/$j.err" 2>/dev/null)"
		[ "$j" = ramp_native ] || [ -s "$o/$j.rec" ] || fail "$a: $j wrote no record file"
	done
	head -2 "$o/ramp_a.rec" | grep -q "^header source=valgrind arch=${RECARCH[$a]} endian=${ENDIAN[$a]} page_size=4096 " ||
		fail "$a: record header: $(sed -n 2p "$o/ramp_a.rec")"
	# 1. the page ramp
	local n=0
	for rec in ramp_a ramp_b; do
		# the same pages as natively; the frame's span is the run's own (a native stack is
		# placed at random in its page: its frame may straddle a boundary there and not here)
		[ "$(sed 's/ frame_pages=.*//' "$o/$rec.out")" = "$(sed 's/ frame_pages=.*//' "$o/ramp_native.out")" ] ||
			fail "$a: ws_ramp printed something else under the tool"
		while read -r p touched frame; do
			vgrec phase "$o/$rec.rec" "phase $p" "end $p" 0 data $((touched + frame)) >>"$w/check.log"
			case $? in 3) continue ;; 0) ;; *) fail "$a: $rec phase $p data: $(tail -3 "$w/check.log")" ;; esac
			vgrec phase "$o/$rec.rec" "phase $p" "end $p" 0 code 1 >>"$w/check.log" ||
				fail "$a: $rec phase $p code: $(tail -3 "$w/check.log")"
			n=$((n + 1))
		done < <(sed -n 's/^phase=\([0-9]*\) npages=[0-9]* touched=\([0-9]*\) frame_pages=\([0-9]*\)$/\1 \2 \3/p' "$o/$rec.out")
	done
	[ "$n" -ge 8 ] || fail "$a: only $n ramp phases checked"
	# 2. two threads sharing pages
	grep -q "^shared=" "$o/thr.out" || fail "$a: ws_threads printed no page counts"
	local shared a_priv b_priv a_frame b_frame
	eval "$(tr ' ' '\n' <"$o/thr.out" | sed -n 's/^\(shared\|a_priv\|b_priv\|a_frame\|b_frame\)=\([0-9]*\)$/\1=\2/p')"
	vgrec common "$o/thr.rec" "start a,start b" done 0 data $((shared + a_priv + b_priv + a_frame + b_frame)) 2000 >>"$w/check.log" ||
		fail "$a: process working set of two threads sharing $shared pages: $(tail -3 "$w/check.log")"
	vgrec common "$o/thr.rec" "start a,start b" done 1 data $((shared + a_priv + a_frame)) 2000 >>"$w/check.log" ||
		fail "$a: thread a's working set: $(tail -3 "$w/check.log")"
	vgrec common "$o/thr.rec" "start a,start b" done 2 data $((shared + b_priv + b_frame)) 2000 >>"$w/check.log" ||
		fail "$a: thread b's working set: $(tail -3 "$w/check.log")"
	# 3. per-object counts: obj_counts.c's hand counts; `long` is WORD bytes
	local L=${WORD[$a]}
	check_objs "$o/obj.rec" 0 \
		"heap fill_heap 4000 1 500 1000 $((500 * L)) 4000 24 1" \
		"heap make_many 163 100 0 100 0 400 55 2" \
		"global garr 4000 1 500 1000 $((500 * L)) 4000 17 1" \
		"global gcount $L 1 10 10 $((10 * L)) $((10 * L)) 18 1" \
		"global sink $L 1 0 1 0 $L 19 1" >"$w/obj.check" || fail "$a: object counters differ (--objects=yes): $(cat "$w/obj.check")"
	check_objs "$o/objd.rec" 1 \
		"heap fill_heap 4000 1 500 1000 $((500 * L)) 4000 24 1" \
		"heap make_many 163 200 0 200 0 800 55 1" >"$w/objd.check" || fail "$a: object counters differ (--obj-stack-depth=1): $(cat "$w/objd.check")"
	# 4. hot pages: the hottest code page is ws_ramp's loop page (ramp is page-aligned; its
	# first toucher may be main, on the same page, or a linker stub: ppc64le's PLT call
	# stubs follow the code), with at least the loop's 62,800 iterations of >= 5 instructions
	grep -q '^hot .*kind=data' "$o/hot.rec" || fail "$a: no data hot page records with --hot=4"
	awk '$1 == "frame" { split($2, i, "="); for (k = 3; k <= NF; k++) if ($k ~ /^obj=/) obj[i[2]] = substr($k, 5) }
	     $1 == "hot" && / kind=code / && / rank=1$/ { for (k = 2; k <= NF; k++) { split($k, kv, "="); h[kv[1]] = kv[2] } }
	     END { exit !(h["accesses"] >= 314000 && obj[h["frame"]] == "/t/ws_ramp") }' "$o/hot.rec" ||
		fail "$a: the hottest code page is not ws_ramp's loop page: $(grep -m2 '^hot .*kind=code' "$o/hot.rec")"
	# 5. the records read on this host as any others
	if [ -x "$PAGESLEUTH" ]; then
		for rec in ramp_a thr obj hot; do
			"$PAGESLEUTH" report "$o/$rec.rec" >"$w/$rec.report" 2>"$w/$rec.report.err" ||
				fail "$a: pagesleuth report $rec.rec: $(head -2 "$w/$rec.report.err")"
			grep -q "^arch: *${RECARCH[$a]}$" "$w/$rec.report" || fail "$a: report of $rec.rec does not say arch ${RECARCH[$a]}"
		done
		"$PAGESLEUTH" report -f csv -a ws-series "$o/ramp_a.rec" >"$w/series.csv" 2>"$w/series.err" ||
			fail "$a: report ws-series: $(head -2 "$w/series.err")"
		[ "$(awk -F, '$1 == 0' "$w/series.csv" | grep -c .)" = "$(sed -n 's/^ws .* tid=0 .*final=1 samples=\([0-9]*\) .*/\1/p' "$o/ramp_a.rec")" ] ||
			fail "$a: the analyzer's series has not the record file's samples"
	fi
	echo "$a: $(cat "$w/vgboard.log" | tail -1); $(grep -c . "$w/check.log") ws checks; tool runs $(cat "$o"/{ramp_a,ramp_b,thr,obj,objd,hot}.secs | awk '{ s += $1 } END { printf "%.0f", s }') s in the guest" >"$w/summary"
	echo ok
}

# Bounded: each guest gets at most 200 s (35-65 s here: Valgrind under TCG), the whole case
# PS_BOARDS_BUDGET s (default 290); an architecture that would start with less than 90 s
# left is skipped, saying so.
BUDGET=${PS_BOARDS_BUDGET:-290}
t0=$(date +%s)
for a in ${PS_BOARDS:-arm64 armhf ppc64el powerpc}; do
	[ -n "${TRIPLET[$a]:-}" ] || fail "unknown board architecture $a (arm64 armhf ppc64el powerpc)"
	r=$(board "$a") || { echo "$r"; exit 1; }
	case ${r##*$'\n'} in
	ok) passed+=("$a"); echo "$NAME: $(cat "$T/$a/summary")" ;;
	skip:*) skipped+=("$a"); echo "$NAME: $a: ${r##*$'\n'}" ;;
	*) echo "$r"; exit 1 ;;
	esac
done
[ ${#passed[@]} -gt 0 ] || { echo "$NAME: SKIP: no board architecture could run (${skipped[*]})"; exit 77; }
echo "$NAME: ok (${passed[*]}$([ ${#skipped[@]} = 0 ] || echo "; skipped ${skipped[*]}"); $(($(date +%s) - t0)) s)"
