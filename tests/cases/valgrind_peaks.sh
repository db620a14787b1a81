#!/bin/sh
# valgrind_peaks.sh - peak detection and hot pages of the pagesleuth Valgrind tool on
# tests/valgrind/ws_peaks.c: a steady phase on 6 pages, interrupted by spike_big (600 pages)
# and later spike_small (250 pages).
#   - with both detectors (prominence, the default, and --peak-detector=paper): exactly two
#     data peaks, each starting inside its spike (between the spike's marks), attributed to
#     the spike function's loop lines with main's call line as the caller (line numbers read
#     from the source's LOOP_*/CALL_* comments, not from the tool); by prominence the big
#     one ranks first, each stands for itself alone (repeats=1);
#   - --peaks=no writes no peak;
#   - --hot=10: steady's 6 pages are among the 10 hottest data pages with exactly the
#     accesses the program makes (3 x 40000 rounds, a load and a store each), first touched
#     in steady; ranks descend.
# Exit 0 pass, 77 skip (no valgrind), else fail.
set -u
NAME=valgrind_peaks
T=$(mktemp -d /tmp/valgrind_peaks.XXXXXX)
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
. "${PAGESLEUTH_ROOT:-.}/tests/cases/lib/vgtool.sh"

src=$ROOT/tests/valgrind/ws_peaks.c
vgbuild ws_peaks
line_of() { grep -n "$1" "$src" | head -1 | cut -d: -f1; }

check_peak() { # N FN FIRST_MARKER LAST_MARKER CALL_MARKER START_MARK (the peaks in $T/peaks, $rec)
	read -r _ start _ inner caller _ <<EOF
$(sed -n "$1p" "$T/peaks")
EOF
	first=$(line_of "$3") last=$(line_of "$4") call=$(line_of "$5")
	fn=${inner%%:*} line=${inner#*:}
	[ "$fn" = "$2" ] || fail "$det: peak $1: innermost frame $inner, expected $2"
	[ "$line" -ge "$first" ] && [ "$line" -le "$last" ] ||
		fail "$det: peak $1: line $line outside $2's loop (lines $first-$last)"
	[ "$caller" = "main:$call" ] || fail "$det: peak $1: caller $caller, expected main:$call"
	lo=$(awk -v m="$6" '$1 == "mark" && $4 == "text=" m { sub("t=", "", $2); print $2; exit }' "$rec")
	hi=$(awk -v lo="$lo" '$1 == "mark" && $4 == "text=steady" { sub("t=", "", $2); if ($2 + 0 > lo + 0) { print $2; exit } }' "$rec")
	[ -n "$lo" ] && [ -n "$hi" ] && [ "$start" -gt "$lo" ] && [ "$start" -le "$hi" ] ||
		fail "$det: peak $1: onset t=$start outside its spike [$lo, $hi]"
}
for det in prominence paper; do
	rec=$T/pk.$det.rec
	vgrun --out="$rec" --ws-every=10000 --hot=10 --peak-detector=$det "$T/ws_peaks" >"$T/pk.out" 2>"$T/pk.err" ||
		fail "ws_peaks under the tool ($det): $(head -3 "$T/pk.err")"
	vgrec peaks "$rec" data >"$T/peaks.all" || fail "cannot read the peaks"
	cat "$T/peaks.all"
	# the paper's detector may also flag the final partial sample (_exit's pages after the
	# 6-page phase): the end of the run, not a spike of the program's
	end=$(sed -n 's/^ws t=\([0-9]*\) tid=0 .*final=1.*/\1/p' "$rec")
	awk -v e="$end" -v d="$det" '!(d == "paper" && $1 == e)' "$T/peaks.all" >"$T/peaks"
	[ "$(grep -c . "$T/peaks")" = 2 ] || fail "$det: expected exactly 2 data peaks, found $(grep -c . "$T/peaks")"
	check_peak 1 spike_big LOOP_BIG_FIRST LOOP_BIG_LAST CALL_BIG big
	check_peak 2 spike_small LOOP_SMALL_FIRST LOOP_SMALL_LAST CALL_SMALL small
done
[ "$(vgrec ranked "$T/pk.prominence.rec" data | awk '{ print $1, $5 }' | tr '\n' ' ')" = "1 1 2 1 " ] ||
	fail "prominence: ranks and repeats $(vgrec ranked "$T/pk.prominence.rec" data | tr '\n' ';')"
! grep "^peak " "$T/pk.paper.rec" | grep -q "prominence=" || fail "paper: prominence keys written"
cp "$T/pk.prominence.rec" "$T/pk.rec"

vgrun --out="$T/nopk.rec" --ws-every=10000 --peaks=no "$T/ws_peaks" >/dev/null 2>"$T/pk.err" ||
	fail "ws_peaks --peaks=no: $(head -3 "$T/pk.err")"
! grep -q "^peak " "$T/nopk.rec" || fail "--peaks=no wrote peaks"

# hot pages: steady's 6 pages (mapped where nothing was before) get 3 x 40000 rounds of a
# load and a store each, nothing else touches them
vgrec hot "$T/pk.rec" data >"$T/hot" || fail "cannot read the hot pages"
cat "$T/hot"
steady_line=$(awk '/base\[i \* PAGE\] \+= 1/ { print NR; exit }' "$src")
base=$(sed -n 's/^base=\([0-9a-f]*\) pages=6$/\1/p' "$T/pk.out")
[ -n "$base" ] || fail "ws_peaks did not say where its pages are"
[ "$(grep -c . "$T/hot")" = 10 ] || fail "expected 10 hot data pages"
for i in 0 1 2 3 4 5; do
	page=$(printf '%x' $((0x$base + i * 4096)))
	set -- $(awk -v p="$page" '$2 == p' "$T/hot")
	[ $# = 4 ] || fail "steady's page $page is not among the 10 hottest"
	[ "$3" = 240000 ] || fail "hot page $page: $3 accesses, expected 240000"
	[ "$4" = "steady:$steady_line" ] || fail "hot page $page first touched at $4, expected steady:$steady_line"
done
awk 'NR > 1 && $3 > prev { exit 1 } { prev = $3 }' "$T/hot" || fail "hot pages not in descending order"
[ "$(vgrec hot "$T/pk.rec" code | grep -c .)" = 10 ] || fail "expected 10 hot code pages"
echo "valgrind_peaks: ok"
