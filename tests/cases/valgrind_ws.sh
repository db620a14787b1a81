#!/bin/sh
# valgrind_ws.sh - the pagesleuth Valgrind tool's working sets against programs whose
# working sets are known from their own structure (tests/valgrind/ws_*.c):
#   - a page ramp (claim N pages, touch every second one, release; N = 16, 64, 160, 64, 9)
#     gives data = (N+1)/2 + the loop's frame pages and code = 1 in every window inside a
#     phase, for several (every, tau), tau != every included; the samples on the grid, but
#     for a final partial one at the end of the run; a single thread's samples not written
#     twice (the analyzer gives tid 1 tid 0's);
#   - code pages: 3 pages while the loop calls f1, f2; 5 while it calls f1..f4;
#   - two threads sharing 24 pages: per thread shared + own pages, the process counts the
#     shared pages once;
#   - bad options are refused with a message naming them; the record file appears only
#     complete (no PATH.tmp left); `pagesleuth valgrind` runs the tool.
# Exit 0 pass, 77 skip (no valgrind), else fail.
set -u
NAME=valgrind_ws
T=$(mktemp -d /tmp/valgrind_ws.XXXXXX)
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
. "${PAGESLEUTH_ROOT:-.}/tests/cases/lib/vgtool.sh"

vgbuild ws_ramp
vgbuild ws_code
vgbuild ws_threads

# ---- the page ramp: expected values from the program's own report ----------------------
"$T/ws_ramp" >"$T/ramp.native" || fail "ws_ramp failed natively"
for cfg in 5000:20000 7000:50000 3000:3000 10000:100000; do
	every=${cfg%:*} tau=${cfg#*:}
	out=$T/ramp.$every.$tau.rec
	vgrun --out="$out" --ws-every="$every" --ws-tau="$tau" "$T/ws_ramp" >"$T/ramp.out" 2>"$T/ramp.err" ||
		fail "ws_ramp under the tool: $(head -3 "$T/ramp.err")"
	cmp -s "$T/ramp.out" "$T/ramp.native" || fail "ws_ramp printed something else under the tool"
	! ls "$out".tmp* >/dev/null 2>&1 || fail "$(ls "$out".tmp*) left behind"
	checked=0
	while read -r _ n _ fr; do
		p=${n#phase=}
		touched=$(awk -v p="$p" '$1 == "phase=" p { sub("touched=", "", $3); print $3 }' "$T/ramp.native")
		frame=${fr#frame_pages=}
		# short phases hold no window of a long tau (exit 3): skipped, but >= 3 phases count
		vgrec phase "$out" "phase $p" "end $p" 0 data $((touched + frame)) >>"$T/ramp.check"
		rc=$?
		[ $rc = 3 ] && continue
		[ $rc = 0 ] || fail "ramp every=$every tau=$tau phase $p: $(tail -3 "$T/ramp.check")"
		vgrec phase "$out" "phase $p" "end $p" 0 code 1 >>"$T/ramp.check" ||
			fail "ramp every=$every tau=$tau phase $p code: $(tail -3 "$T/ramp.check")"
		checked=$((checked + 1))
	done <<EOF
$(awk '{ print $1, $1, $3, $4 }' "$T/ramp.native")
EOF
	[ "$checked" -ge 3 ] || fail "ramp every=$every tau=$tau: only $checked phases checked"
	# one thread: its samples are the process's and are not written twice (issue 17); its
	# summary counts them, and the analyzer gives it tid 0's samples
	! awk '$1 == "ws" && $3 == "tid=1" && !/final=1/' "$out" | grep -q . || fail "ramp every=$every tau=$tau: tid=1 samples written for a single-threaded run"
	n0=$(sed -n 's/^ws .* tid=0 .*final=1 samples=\([0-9]*\) .*/\1/p' "$out")
	n1=$(sed -n 's/^ws .* tid=1 .*final=1 samples=\([0-9]*\) .*/\1/p' "$out")
	[ -n "$n0" ] && [ "$n0" = "$n1" ] || fail "ramp every=$every tau=$tau: summaries count $n0 and $n1 samples"
	"$PAGESLEUTH" report -f csv -a ws-series "$out" >"$T/series.csv" 2>"$T/series.err" || fail "report ws-series: $(head -2 "$T/series.err")"
	[ "$(awk -F, '$1 == 0 { print $2, $3, $4 }' "$T/series.csv")" = "$(awk -F, '$1 == 1 { print $2, $3, $4 }' "$T/series.csv")" ] &&
		[ "$(awk -F, '$1 == 1' "$T/series.csv" | grep -c .)" = "$n0" ] ||
		fail "ramp every=$every tau=$tau: the analyzer's tid 1 series is not tid 0's"
	! grep -q "counts samples=" "$T/series.err" || fail "ramp: the analyzer warns: $(head -2 "$T/series.err")"
	# the samples fall on multiples of every, each with tau; the last one, at the end of the
	# run between two of them, is partial: partial = its distance from the one before
	awk -v e="$every" -v tau="$tau" '$1 == "ws" && !/final=1/ {
		split($2, a, "="); split($6, b, "="); last = $0
		if (b[2] != tau || (a[2] % e != 0 && $7 != "partial=" a[2] % e)) { print "bad sample " $0; exit 1 }
		if (seen_partial) { print "a sample after the partial one: " $0; exit 1 }
		if ($7 ~ /^partial=/) seen_partial = 1 }
		$1 == "ws" && /final=1/ { split($2, f, "=") }
		END { split(last, l, " "); split(l[2], lt, "=")
		      if (f[2] % e != 0 && !(lt[2] == f[2] && seen_partial)) { print "no partial sample at the end t=" f[2]; exit 1 } }' "$out" ||
		fail "ramp every=$every tau=$tau: samples off the grid"
done
echo "ramp: $(grep -c . "$T/ramp.check") phase checks passed"

# ---- code pages ----------------------------------------------------------------------------
vgrun --out="$T/code.rec" --ws-every=10000 --ws-tau=30000 "$T/ws_code" 2>"$T/code.err" ||
	fail "ws_code under the tool: $(head -3 "$T/code.err")"
vgrec phase "$T/code.rec" two "end two" 0 code 3 || fail "code pages while calling f1, f2"
vgrec phase "$T/code.rec" four "end four" 0 code 5 || fail "code pages while calling f1..f4"

# ---- two threads sharing pages --------------------------------------------------------
# Valgrind runs one thread at a time; --fair-sched=yes hands the lock round robin (by default
# a busy thread may keep it for its whole run). tau spans many time slices, so both threads
# run in every window of the common phase.
"$T/ws_threads" >"$T/thr.native" || fail "ws_threads failed natively"
vgrun --fair-sched=yes --out="$T/thr.rec" --ws-every=1000000 --ws-tau=12000000 "$T/ws_threads" >"$T/thr.out" 2>"$T/thr.err" ||
	fail "ws_threads under the tool: $(head -3 "$T/thr.err")"
# The frames' page spans are the program's own view of its stack under the tool: Valgrind
# places the main thread's stack elsewhere than a native run does, so a frame may straddle a
# page boundary in one run and not in the other.
grep -q "^shared=" "$T/thr.out" || fail "ws_threads printed no page counts under the tool"
eval "$(tr ' ' '\n' <"$T/thr.out" | sed -n 's/^\([a-z_]*\)=\([0-9]*\)$/\1=\2/p')"
# shellcheck disable=SC2154 # set by the eval: shared a_priv b_priv a_frame b_frame
vgrec common "$T/thr.rec" "start a,start b" done 0 data $((shared + a_priv + b_priv + a_frame + b_frame)) 2000 ||
	fail "process working set of two threads sharing $shared pages"
vgrec common "$T/thr.rec" "start a,start b" done 1 data $((shared + a_priv + a_frame)) 2000 ||
	fail "thread a's working set"
vgrec common "$T/thr.rec" "start a,start b" done 2 data $((shared + b_priv + b_frame)) 2000 ||
	fail "thread b's working set"

# ---- summaries: the final record of the process agrees with its samples -------------------
out=$T/ramp.5000.20000.rec
awk '$1 == "ws" && $3 == "tid=0" {
	if ($0 ~ /final=1/) { for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } next }
	split($5, d, "="); split($4, c, "="); n++; sd += d[2]; sc += c[2]
	if (d[2] > pd) pd = d[2]; if (c[2] > pc) pc = c[2] }
	END { if (f["samples"] != n || f["peak_data"] != pd || f["peak_code"] != pc ||
		  f["avg_data"] != sprintf("%.3f", sd / n)) { print "summary", f["samples"], n, f["peak_data"], pd, f["avg_data"], sd / n; exit 1 } }' "$out" ||
	fail "the final summary does not match the samples"

# ---- options ---------------------------------------------------------------------------
for bad in --ws-every=0 --ws-every=abc --ws-tau=0 --page-size=1000 --page-size=256 \
	--peak-adapt=2 --peak-gain=0 --hot=-1 --ws-tau=999999999999 --peaks=maybe; do
	if vgrun --out="$T/bad.rec" "$bad" "$T/ws_code" >"$T/bad.out" 2>&1; then
		fail "option $bad accepted"
	fi
	opt=${bad%%=*}
	grep -q -- "$opt" "$T/bad.out" || fail "no message naming $bad: $(head -2 "$T/bad.out")"
	[ ! -e "$T/bad.rec" ] && ! ls "$T"/bad.rec.tmp* >/dev/null 2>&1 || fail "a record file written despite $bad"
done
# --ws-tau's bound (it depends on --ws-every, in either order) stops the run before
# Valgrind's banner, as other bad options do
for args in "--ws-every=10 --ws-tau=20000000" "--ws-tau=20000000 --ws-every=10"; do
	# shellcheck disable=SC2086 # two options
	VALGRIND_LIB=$VGLIB valgrind --tool=pagesleuth --out="$T/bad.rec" $args "$T/ws_code" >"$T/bad.out" 2>&1 &&
		fail "$args accepted"
	[ "$(head -1 "$T/bad.out")" = "valgrind: Bad option: --ws-tau=20000000: --ws-tau may be at most 1048574 times --ws-every" ] ||
		fail "$args: first line '$(head -1 "$T/bad.out")', expected the bound's message (before the banner)"
done
VALGRIND_LIB=$VGLIB valgrind -q --tool=pagesleuth --out="$T/ok.rec" --ws-tau=20000000 --ws-every=20 "$T/ws_code" >/dev/null 2>&1 ||
	fail "--ws-tau at 1000000 times --ws-every refused"
vgrun --out="$T/dir-that-does-not-exist/x.rec" "$T/ws_code" >"$T/bad.out" 2>&1 &&
	fail "an uncreatable --out accepted"
grep -q "cannot create" "$T/bad.out" || fail "no message for an uncreatable --out"

# ---- the wrapper command ---------------------------------------------------------------------
"$PAGESLEUTH" valgrind -o "$T/wrap.rec" --ws-every=10000 -- "$T/ws_code" >"$T/wrap.out" 2>&1 ||
	fail "pagesleuth valgrind: $(head -3 "$T/wrap.out")"
head -2 "$T/wrap.rec" | grep -q "^header source=valgrind .*ws_every=10000 " ||
	fail "pagesleuth valgrind: unexpected header"
"$PAGESLEUTH" valgrind --ws-every=10 >"$T/wrap.out" 2>&1 && fail "pagesleuth valgrind without a program accepted"
grep -q "no program" "$T/wrap.out" || fail "pagesleuth valgrind without a program: no clear message"
PAGESLEUTH_VALGRIND_LIB=$T "$PAGESLEUTH" valgrind -- /bin/true >"$T/wrap.out" 2>&1 &&
	fail "pagesleuth valgrind with a directory without the tool accepted"
grep -q "has no pagesleuth-amd64-linux" "$T/wrap.out" || fail "no message for a missing tool"
echo "valgrind_ws: ok"
