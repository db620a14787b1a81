#!/bin/sh
# live_snap.sh - `pagesleuth snap` against the kernel's own view (smaps, pagemap, kpagecount,
# kpageflags) of a process pair with a known layout (tests/progs/layout.c).
#
# Builds layout, gtcapture and gtcheck into a temp dir, captures ground truth before and after
# the snapshot while both processes are blocked in pause(), and checks every page and every VMA
# with gtcheck. Then: a nonexistent --pid gives one message, exit 1 and a partial snapshot that
# still holds the other process; a whole-system snapshot is readable; timings are printed.
# Run from the repo root; exit 0 pass, 77 skip (not root), other = fail with a one-line reason.
set -u
PAGESLEUTH=${PAGESLEUTH:-build/pagesleuth}
CC=${CC:-cc}
T=$(mktemp -d /tmp/live_snap.XXXXXX)
PIDS=""
cleanup() {
	for p in $PIDS; do kill -9 "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() { echo "live_snap: FAIL: $*"; exit 1; }
now_ms() { date +%s%3N; }

[ "$(id -u)" = 0 ] || { echo "live_snap: SKIP: needs root (PFNs, /proc/kpageflags)"; exit 77; }
[ -x "$PAGESLEUTH" ] || fail "no pagesleuth binary at $PAGESLEUTH"
[ -r /proc/kpageflags ] || { echo "live_snap: SKIP: /proc/kpageflags not readable"; exit 77; }

CFLAGS="-std=gnu11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Wshadow -Wformat=2 -Wno-format-nonliteral"
# A static layout shares no libc pages with the rest of the system, so fewer of its pages
# change mapcount under our feet; fall back to dynamic if there is no static libc.
$CC $CFLAGS -static -o "$T/layout" tests/progs/layout.c 2>/dev/null ||
	$CC $CFLAGS -o "$T/layout" tests/progs/layout.c || fail "cannot build tests/progs/layout.c"
$CC $CFLAGS -o "$T/gtcapture" tests/tools/gtcapture.c || fail "cannot build gtcapture"
$CC $CFLAGS -Ilib -o "$T/gtcheck" tests/tools/gtcheck.c lib/*.c -lz -lm || fail "cannot build gtcheck"

# Start a layout pair; sets PARENT, CHILD and LAYOUT_OUT (its "ready" line).
start_layout() { # ARGS...
	out="$T/layout.$1.out"
	LAYOUT_OUT=$out
	"$T/layout" "$@" >"$out" 2>&1 &
	PIDS="$PIDS $!"
	i=0
	while ! grep -q '^ready' "$out" 2>/dev/null; do
		i=$((i + 1))
		[ $i -le 300 ] || fail "layout $* did not become ready: $(cat "$out")"
		kill -0 $! 2>/dev/null || fail "layout $* died: $(cat "$out")"
		sleep 0.02
	done
	PARENT=$(sed -n 's/.*parent=\([0-9]*\).*/\1/p' "$out")
	CHILD=$(sed -n 's/.*child=\([0-9]*\).*/\1/p' "$out")
	PIDS="$PIDS $CHILD"
}

start_layout 4 2
P=$PARENT C=$CHILD PAIR_OUT=$LAYOUT_OUT

# 1. Every page and VMA of both processes against the kernel's view. Pages shared with the
# whole system (the vdso) may change mapcount while we look; gtcheck accepts the value from
# before or after the snapshot, and a value that changed and changed back is retried.
ok=""
for attempt in 1 2 3 4 5; do
	for p in $P $C; do
		"$T/gtcapture" $p "$T/smaps.$p" "$T/pages.$p" || fail "gtcapture $p failed"
	done
	"$PAGESLEUTH" snap --pid $P --pid $C -o "$T/pair.rec" 2>"$T/pair.err"
	rc=$?
	[ $rc = 0 ] || fail "snap --pid $P --pid $C exited $rc: $(head -1 "$T/pair.err")"
	for p in $P $C; do
		"$T/gtcapture" $p "$T/smaps_after.$p" "$T/pages_after.$p" || fail "gtcapture $p failed"
	done
	ok=yes
	for p in $P $C; do
		"$T/gtcheck" $p "$T/pair.rec" "$T/smaps.$p" "$T/pages.$p" "$T/pages_after.$p" \
			>"$T/check.$p" 2>&1 || ok=""
	done
	[ -n "$ok" ] && break
done
if [ -z "$ok" ]; then
	cat "$T/check.$P" "$T/check.$C" | head -40
	fail "snapshot differs from the kernel's view in 5 attempts (see mismatches above)"
fi
tail -1 "$T/check.$P"
tail -1 "$T/check.$C"
[ -s "$T/pair.err" ] && fail "snap printed messages on a clean run: $(head -1 "$T/pair.err")"
grep -q "^end status=complete" "$T/pair.rec" || fail "pair snapshot not complete"
# The layout's known shape, as the records show it.
anon=$(sed -n 's/.* anon=\([0-9a-f]*\).*/\1/p' "$PAIR_OUT")
grep -q "^sum mm=1 start=$anon resident=512 " "$T/pair.rec" ||
	fail "anon region $anon of $P: expected 512 resident pages (every 2nd of 1024), got: $(grep "^sum mm=1 start=$anon " "$T/pair.rec")"
thp=$(sed -n 's/.* thp=\([0-9a-f]*\).*/\1/p' "$PAIR_OUT")
if grep -q "AnonHugePages: *2048 kB" "$T/smaps.$P"; then
	grep -q "^m 1 $thp [0-9a-f]* 1 2 - [^ ]* [0-9a-f]* 21$" "$T/pair.rec" ||
		fail "THP at $thp: expected a run with SHIFT 21"
fi

# 2. A nonexistent pid: one message naming it, a warn record, exit 1, the other pid written.
sh -c 'exit 0' &
DEAD=$!
wait $DEAD
[ -e /proc/$DEAD ] && DEAD=$(($(cat /proc/sys/kernel/pid_max) - 1))
"$PAGESLEUTH" snap --pid $DEAD --pid $P -o "$T/gone.rec" 2>"$T/gone.err"
rc=$?
[ $rc = 1 ] || fail "snap with nonexistent pid $DEAD exited $rc, expected 1"
[ "$(wc -l <"$T/gone.err")" = 1 ] || fail "expected one message for pid $DEAD, got: $(cat "$T/gone.err")"
grep -q "pid $DEAD: /proc/$DEAD/" "$T/gone.err" || fail "message does not name pid $DEAD and file: $(cat "$T/gone.err")"
grep -q "^warn reason=pid%20$DEAD" "$T/gone.rec" || fail "no warn record for pid $DEAD"
grep -q "^mm id=[0-9]* tgid=$P " "$T/gone.rec" || fail "pid $P missing from the partial snapshot"
grep -q "^end status=partial" "$T/gone.rec" || fail "end record not partial"
"$T/gtcheck" --validate "$T/gone.rec" >/dev/null || fail "partial snapshot unreadable: $("$T/gtcheck" --validate "$T/gone.rec")"

# 3. The whole system: readable by ps_reader (0 = complete; 1 = a process vanished meanwhile).
t0=$(now_ms)
"$PAGESLEUTH" snap -o "$T/all.rec" 2>"$T/all.err"
rc=$?
t1=$(now_ms)
[ $rc = 0 ] || [ $rc = 1 ] || fail "whole-system snap exited $rc: $(head -1 "$T/all.err")"
"$T/gtcheck" --validate "$T/all.rec" >"$T/all.check" || fail "whole-system snapshot: $(cat "$T/all.check")"
echo "live_snap: whole system: $((t1 - t0)) ms, $(sed 's/^gtcheck: [^:]*: //' "$T/all.check")"

# 4. Speed: a process with 1 GiB written (plus its child's 512 MiB of COW copies).
start_layout 1024 1
t0=$(now_ms)
"$PAGESLEUTH" snap --pid $PARENT -o "$T/big.rec" 2>"$T/big.err" || fail "snap of the 1 GiB process failed: $(head -1 "$T/big.err")"
t1=$(now_ms)
res=$(awk '/^sum/ { for (i = 1; i <= NF; i++) if ($i ~ /^resident=/) { sub("resident=", "", $i); n += $i } } END { print n }' "$T/big.rec")
[ "$res" -ge 262144 ] || fail "1 GiB process: only $res resident pages recorded"
echo "live_snap: 1 GiB process ($res resident pages): $((t1 - t0)) ms, $(grep -c '^[mw] ' "$T/big.rec") runs"
[ $((t1 - t0)) -lt 3000 ] || fail "snapshot of a 1 GiB process took $((t1 - t0)) ms (should be well under a second)"
echo "live_snap: OK"
