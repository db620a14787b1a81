#!/usr/bin/env bash
# live_every.sh - `pagesleuth snap --every S --count N`: one stream, one snapshot per round,
# each equal to the kernel's own view at that round.
#
# A test program (tests/tools/wss_toucher.c, steps mode) writes 64 new pages per step and
# stops itself (SIGSTOP) after each. While it is stopped, this script captures the kernel's
# view with tests/tools/gtcapture (smaps, pagemap, kpagecount, kpageflags; its own reader,
# no pagesleuth code) and its minflt from /proc/PID/stat; then waits for snap's round, captures
# again, and lets the program take its next step (SIGCONT). Checked per round: every page and
# VMA (gtcheck --referenced, on that round's snapshot cut out of the stream: per VMA also
# referenced = smaps Referenced), the task's minflt equal to /proc's and growing by the 64
# faults of a step; then `report -a thrash` on the stream (working set = smaps Referenced,
# RSS = Rss, first and last rounds) and `diff` of the first and last rounds against the
# captured Rss (CSV, and its text with --units kib, pages, human); then SIGINT in the middle of a
# repeated snapshot with -o: the file appears whole, its last snapshot closed as partial.
# Exit 0 pass, 77 skip (not root), 1 fail.
set -u
PAGESLEUTH=${PAGESLEUTH:-build/pagesleuth}
CC=${CC:-cc}
T=$(mktemp -d /tmp/live_every.XXXXXX)
PIDS=""
cleanup() {
	for p in $PIDS; do kill -9 "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fail() { echo "live_every: FAIL: $*"; exit 1; }

[ "$(id -u)" = 0 ] || { echo "live_every: SKIP: needs root (PFNs, /proc/kpageflags)"; exit 77; }
[ -r /proc/kpageflags ] || { echo "live_every: SKIP: /proc/kpageflags not readable"; exit 77; }
[ -x "$PAGESLEUTH" ] || fail "no pagesleuth binary at $PAGESLEUTH"

CFLAGS="-std=gnu11 -D_GNU_SOURCE -O2 -g -Wall -Wextra"
# Static: no shared libc pages whose mapcounts other processes move while we look.
$CC $CFLAGS -static -o "$T/toucher" tests/tools/wss_toucher.c 2>/dev/null ||
	$CC $CFLAGS -o "$T/toucher" tests/tools/wss_toucher.c || fail "cannot build wss_toucher"
$CC $CFLAGS -o "$T/gtcapture" tests/tools/gtcapture.c || fail "cannot build gtcapture"
$CC $CFLAGS -Ilib -o "$T/gtcheck" tests/tools/gtcheck.c lib/*.c -lzstd -lz -lm || fail "cannot build gtcheck"

state() { awk '{ sub(/.*\) /, ""); print $1 }' "/proc/$1/stat" 2>/dev/null; }
minflt() { awk '{ sub(/.*\) /, ""); print $8 }' "/proc/$1/stat"; } # field 10 = 8th after comm
wait_for() { # FILE PATTERN WHAT
	for _ in $(seq 500); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.01; done
	fail "timed out waiting for $3"
}
wait_stopped() {
	for _ in $(seq 500); do [ "$(state "$1")" = T ] && return 0; sleep 0.01; done
	fail "pid $1 did not stop (state $(state "$1"))"
}
rss_kb() { awk '$1 == "Rss:" { s += $2 } END { print s + 0 }' "$1"; }
ref_kb() { awk '$1 == "Referenced:" { s += $2 } END { print s + 0 }' "$1"; }

ROUNDS=4 K=64
"$T/toucher" steps 1024 $K fresh >"$T/toucher.out" 2>&1 &
P=$!
PIDS="$P"
wait_for "$T/toucher.out" '^step 0 ' "step 0"
wait_stopped $P

# Round 0's ground truth, then the stream (stdout, so its rounds can be watched as they end).
"$T/gtcapture" $P "$T/smaps.0" "$T/pages.0" || fail "gtcapture failed"
minflt $P >"$T/minflt.0"
"$PAGESLEUTH" snap --pid $P --every 1 --count $ROUNDS >"$T/stream.rec" 2>"$T/snap.err" &
SNAP=$!
PIDS="$PIDS $SNAP"
for r in $(seq 0 $((ROUNDS - 1))); do
	for _ in $(seq 600); do
		[ "$(grep -c '^end ' "$T/stream.rec")" -gt $r ] && break
		sleep 0.01
	done
	[ "$(grep -c '^end ' "$T/stream.rec")" -gt $r ] || fail "round $r did not end within 6 s"
	"$T/gtcapture" $P "$T/smaps_after.$r" "$T/pages_after.$r" || fail "gtcapture failed"
	[ "$(minflt $P)" = "$(cat "$T/minflt.$r")" ] || fail "pid $P ran during round $r"
	[ $r = $((ROUNDS - 1)) ] && break
	kill -CONT $P
	wait_for "$T/toucher.out" "^step $((r + 1)) " "step $((r + 1))"
	wait_stopped $P
	"$T/gtcapture" $P "$T/smaps.$((r + 1))" "$T/pages.$((r + 1))" || fail "gtcapture failed"
	minflt $P >"$T/minflt.$((r + 1))"
done
wait $SNAP
rc=$?
[ $rc = 0 ] || fail "snap --every exited $rc: $(head -1 "$T/snap.err")"
[ -s "$T/snap.err" ] && fail "snap printed messages on a clean run: $(head -1 "$T/snap.err")"
[ "$(grep -c '^snapshot ' "$T/stream.rec")" = $ROUNDS ] || fail "expected $ROUNDS snapshots"
"$T/gtcheck" --validate "$T/stream.rec" >"$T/validate" || fail "stream: $(cat "$T/validate")"

# Each round cut out of the stream (magic, header, its snapshot..end) against its own capture.
prev_flt=""
prev_up=""
for r in $(seq 0 $((ROUNDS - 1))); do
	awk -v r=$r 'NR <= 2 { print; next } $1 == "snapshot" { on = ($2 == "seq=" r) } on { print }
		$1 == "end" { on = 0 }' "$T/stream.rec" >"$T/round.$r"
	# The vdso is mapped by every process: its mapcount (and referenced flag) moves whenever
	# any process starts or exits, and can change and change back while a round is taken (a
	# round cannot be taken again, as live_snap.sh's attempts are). Such mismatches alone are
	# reported, not failed.
	if ! "$T/gtcheck" --referenced $P "$T/round.$r" "$T/smaps.$r" "$T/pages.$r" "$T/pages_after.$r" >"$T/check.$r" 2>&1; then
		vdso=$(awk '$NF == "[vdso]" || $NF == "[vvar]" || $NF == "[vvar_vclock]" { print $1 }' "$T/smaps.$r" | tr '\n' ' ')
		other=$(grep 'mismatch' "$T/check.$r" | while read -r line; do
			ok=""
			for v in $vdso; do
				case $line in *"VMA $v: page "*": mapcount expected"* | *"VMA $v: page "*": kpageflags expected"*) ok=1 ;; esac
			done
			[ -n "$ok" ] || echo "$line"
		done)
		[ -z "$other" ] || { head -20 "$T/check.$r"; fail "round $r differs from the kernel's view"; }
		echo "live_every: round $r: all pages equal but $(grep -c mismatch "$T/check.$r") vdso page(s) whose mapcount/flags other processes moved meanwhile"
	else
		echo "live_every: round $r: $(tail -1 "$T/check.$r")"
	fi
	flt=$(sed -n "s/^task pid=$P .* minflt=\([0-9]*\) .*/\1/p" "$T/round.$r")
	[ "$flt" = "$(cat "$T/minflt.$r")" ] || fail "round $r: minflt $flt, /proc/$P/stat says $(cat "$T/minflt.$r")"
	up=$(sed -n 's/^snapshot seq=[0-9]* .*uptime_ns=\([0-9]*\).*/\1/p' "$T/round.$r")
	if [ -n "$prev_flt" ]; then
		d=$((flt - prev_flt))
		[ $d -ge $K ] && [ $d -le $((K + 8)) ] ||
			fail "round $r: minflt grew by $d, expected $K (one fault per new page) + at most 8"
		gap=$(( (up - prev_up) / 1000000 ))
		[ $gap -ge 900 ] && [ $gap -le 1500 ] || fail "round $r: $gap ms after the previous one (--every 1)"
	fi
	prev_flt=$flt prev_up=$up
done

# The analyzer on the stream: thrash sees every round with the captured RSS; diff of the
# first and last rounds gives the RSS growth smaps shows.
"$PAGESLEUTH" report -a thrash -f csv "$T/stream.rec" >"$T/thrash.csv" || fail "report -a thrash failed"
row=$(awk -F, -v p=$P '$1 == p' "$T/thrash.csv")
[ -n "$row" ] || fail "pid $P not in the thrash table: $(cat "$T/thrash.csv")"
IFS=, read -r _ _ snaps _ _ _ ws0 ws1 rss0 rss1 _ <<<"$row"
last=$((ROUNDS - 1))
want0=$(($(rss_kb "$T/smaps.0") / 4)) want1=$(($(rss_kb "$T/smaps.$last") / 4))
[ "$snaps" = $ROUNDS ] && [ "$rss0" = "$want0" ] && [ "$rss1" = "$want1" ] ||
	fail "thrash row '$row': expected $ROUNDS snapshots, RSS $want0 -> $want1 pages (smaps)"
# The working set is smaps' Referenced (docs/analyses.md), the same before and after the round
# (the program was stopped; reclaim could clear bits meanwhile: then it is said, not failed).
ref0=$(ref_kb "$T/smaps.0") ref1=$(ref_kb "$T/smaps.$last")
if [ "$ref0" = "$(ref_kb "$T/smaps_after.0")" ] && [ "$ref1" = "$(ref_kb "$T/smaps_after.$last")" ]; then
	[ "$ws0" = $((ref0 / 4)) ] && [ "$ws1" = $((ref1 / 4)) ] ||
		fail "thrash row '$row': working set $ws0 -> $ws1 pages, smaps Referenced $((ref0 / 4)) -> $((ref1 / 4))"
	[ $((ws1 - ws0)) -ge $((last * K)) ] ||
		fail "thrash: working set grew by $((ws1 - ws0)) pages, the program wrote $((last * K)) new ones"
else
	echo "live_every: note: smaps Referenced moved while a round was taken ($ref0/$(ref_kb "$T/smaps_after.0"), $ref1/$(ref_kb "$T/smaps_after.$last") kB): working set not compared"
fi
echo "live_every: thrash: $ROUNDS snapshots, RSS $rss0 -> $rss1 pages (smaps: $want0 -> $want1), working set $ws0 -> $ws1 pages (smaps Referenced: $((ref0 / 4)) -> $((ref1 / 4)))"
"$PAGESLEUTH" diff -f csv "$T/round.0" "$T/round.$last" >"$T/diff.csv" || fail "diff failed"
drss=$(awk -F, -v p=$P '/^# table: diff-procs/ { t = 1; next } t && $1 == p { print $6; exit }' "$T/diff.csv")
want=$(($(rss_kb "$T/smaps.$last") - $(rss_kb "$T/smaps.0")))
[ "$drss" = "$want" ] && [ "$want" = $((last * K * 4)) ] ||
	fail "diff round 0 -> $last: RSS+- '$drss' KiB, smaps says $want, the program wrote $((last * K * 4))"
echo "live_every: diff round 0 -> $last: RSS +$drss KiB (smaps +$want)"
# The text of the same diff in each --units convention says the smaps growth too.
TR=${PAGESLEUTH_ROOT:-.}/tests/cases/lib/textreport.py
for u in kib pages human; do
	"$PAGESLEUTH" diff -u "$u" "$T/round.0" "$T/round.$last" >"$T/diff.$u" || fail "diff -u $u failed"
	[ "$(python3 "$TR" width "$T/diff.$u")" -le 100 ] || fail "diff -u $u: a line wider than 100 columns"
done
tdk=$(python3 "$TR" get "$T/diff.kib" 'Per-process change' PID "$P" RSS_DELTA)
tdp=$(python3 "$TR" get "$T/diff.pages" 'Per-process change' PID "$P" RSS_DELTA)
tdh=$(python3 "$TR" get "$T/diff.human" 'Per-process change' PID "$P" RSS_DELTA)
read -r hb htol <<<"$(python3 "$TR" human "$tdh")"
[ "$tdk" = "$want" ] && [ "$tdp" = $((want * 1024 / $(getconf PAGESIZE))) ] &&
	awk -v b="$hb" -v t="$htol" -v k="$want" 'BEGIN { d = b - k * 1024; exit !(d <= t && d >= -t) }' ||
	fail "diff text RSS_DELTA: kib '$tdk', pages '$tdp', human '$tdh'; smaps says +$want KiB"
echo "live_every: diff text: RSS_DELTA $tdk KiB, $tdp pages, $tdh (smaps +$want KiB)"
# The same two rounds chosen inside the one stream.
"$PAGESLEUTH" diff -f csv --from 0 --to "$last" "$T/stream.rec" "$T/stream.rec" >"$T/diff2.csv" ||
	fail "diff --from 0 --to $last failed"
drss2=$(awk -F, -v p=$P '/^# table: diff-procs/ { t = 1; next } t && $1 == p { print $6; exit }' "$T/diff2.csv")
[ "$drss2" = "$want" ] || fail "diff --from 0 --to $last of the stream: RSS+- '$drss2' KiB, smaps says $want"
"$PAGESLEUTH" diff --from "$ROUNDS" "$T/stream.rec" "$T/stream.rec" >/dev/null 2>"$T/diff3.err"
rc=$?
[ $rc -eq 2 ] && grep -q "no such snapshot" "$T/diff3.err" ||
	fail "diff --from $ROUNDS (no such round): exit $rc, '$(head -1 "$T/diff3.err")'"
echo "live_every: diff --from 0 --to $last of the stream: RSS +$drss2 KiB; --from $ROUNDS: $(head -1 "$T/diff3.err")"

# SIGINT during a repeated snapshot with -o: nothing at the path until the end; then the file
# is whole and valid, its last snapshot partial (the second process not read), exit 1.
kill -CONT $P
"$T/toucher" hot 131072 1 1000 >"$T/big.out" 2>&1 &
BIG=$!
PIDS="$PIDS $BIG"
wait_for "$T/big.out" '^ready' "the 512 MiB toucher"
hit=""
for attempt in 1 2 3 4 5; do
	rm -f "$T/int.rec"
	"$PAGESLEUTH" snap --pid $BIG --pid $P --every 0.001 -o "$T/int.rec" 2>"$T/int.err" &
	S=$!
	sleep 0.5
	[ -e "$T/int.rec" ] && fail "-o file visible before snap finished"
	kill -INT $S
	wait $S
	rc=$?
	"$T/gtcheck" --validate "$T/int.rec" >"$T/int.check" || fail "interrupted stream invalid: $(cat "$T/int.check")"
	tail -1 "$T/int.rec" | grep -q '^end status=' || fail "interrupted stream does not end with an end record"
	if [ $rc = 1 ]; then
		tail -1 "$T/int.rec" | grep -q '^end status=partial' || fail "exit 1 but the last snapshot is complete"
		grep -q '^warn reason=snapshot%20[0-9]*%20interrupted%20by%20SIGINT' "$T/int.rec" ||
			fail "no warn record naming the interruption"
		grep -q 'interrupted by SIGINT' "$T/int.err" || fail "no message naming the interruption: $(cat "$T/int.err")"
		hit=yes
		break
	fi
	[ $rc = 0 ] || fail "interrupted snap exited $rc: $(head -1 "$T/int.err")"
	grep -q 'stopped after' "$T/int.err" || fail "no stop message: $(cat "$T/int.err")"
done
[ -n "$hit" ] || fail "SIGINT never landed inside a snapshot in 5 attempts"
"$PAGESLEUTH" report -a total "$T/int.rec" >/dev/null 2>"$T/int.report"
[ $? = 1 ] || fail "report on the interrupted stream should say partial (exit 1)"
echo "live_every: SIGINT: $(sed 's/^gtcheck: [^:]*: //' "$T/int.check"), last snapshot partial"
echo "live_every: OK"
