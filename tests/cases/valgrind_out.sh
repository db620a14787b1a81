#!/bin/sh
# valgrind_out.sh - the Valgrind tool's record file when things go wrong (issue 7):
#   - a write error (a full device) is detected: one line naming the file and the reason,
#     exit status 1 although the program succeeded, and no record file left, neither the
#     final name nor PATH.tmp.PID. Two ways: --out=/dev/full (written in place, as every
#     device), and a 64 KiB tmpfs filled by the records (root with mount namespaces only;
#     else that part is skipped with a note);
#   - a device node and a FIFO given as the output (made with mknod and mkfifo here) are
#     written to and are still a device and a FIFO afterwards (issue 17: as root the tool
#     once renamed its file over /dev/null);
#   - --trace-children=yes with a fixed -o: the program keeps the name, every traced child
#     writes NAME.PID.rec and says so; each file is complete and reads back;
#   - an exec (without --trace-children=yes) completes the records there, as if the program
#     ended: the file is complete (summary records, both marks), no PATH.tmp is left, and the
#     exec'd program ran. Execs that fail (no such file, not executable) do not end the
#     records: the program goes on and the mark after them is recorded;
#   - forked children (one exits, one execs) leave the parent's record file alone.
# Exit 0 pass, 77 skip (no valgrind), else fail.
set -u
NAME=valgrind_out
T=$(mktemp -d /tmp/valgrind_out.XXXXXX)
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
. "${PAGESLEUTH_ROOT:-.}/tests/cases/lib/vgtool.sh"

vgbuild ws_ramp
vgbuild exec_after
vgbuild fork_child

# ---- a full device: /dev/full as the output ---------------------------------------------------
if [ -w /dev/full ] && [ -c /dev/full ]; then
	(cd "$T" && vgrun --out=/dev/full "$T/ws_ramp" >/dev/null 2>"$T/full.err")
	rc=$?
	[ $rc = 1 ] || fail "/dev/full: exit status $rc, expected 1 ($(head -3 "$T/full.err"))"
	grep -q "pagesleuth: cannot write the record file /dev/full: no space left on device" "$T/full.err" ||
		fail "/dev/full: no clear message: $(head -3 "$T/full.err")"
	[ "$(grep -c pagesleuth "$T/full.err")" = 1 ] || fail "/dev/full: more than one line: $(cat "$T/full.err")"
	[ -c /dev/full ] || fail "/dev/full is no longer a character device"
	echo "/dev/full: refused with one line, still a device"
else
	echo "/dev/full not writable: that part skipped"
fi

# ---- a device node and a FIFO as the output: written to, never replaced ---------------------------
if [ "$(id -u)" = 0 ] && mknod "$T/null" c 1 3 2>/dev/null; then
	vgrun --out="$T/null" "$T/ws_ramp" >/dev/null 2>"$T/null.err" || fail "a device as the output: $(head -3 "$T/null.err")"
	[ -c "$T/null" ] || fail "the device node given as the output is no longer a device: $(ls -l "$T/null")"
	ls "$T" | grep -q 'null\.tmp' && fail "a temporary file was left beside the device"
	echo "device node: written to, still a device"
else
	echo "not root (or no mknod): the device-node part skipped"
fi
mkfifo "$T/fifo"
cat "$T/fifo" >"$T/fifo.out" &
reader=$!
vgrun --out="$T/fifo" "$T/ws_ramp" >/dev/null 2>"$T/fifo.err" || fail "a FIFO as the output: $(head -3 "$T/fifo.err")"
wait $reader
[ -p "$T/fifo" ] || fail "the FIFO given as the output is no longer a FIFO"
tail -1 "$T/fifo.out" | grep -q "^ws t=[0-9]* tid=0 .*final=1" || fail "the FIFO's reader did not get complete records"
echo "FIFO: written to, still a FIFO, the reader got complete records"

# ---- --trace-children=yes with a fixed name: one complete file per process ---------------------
mkdir "$T/tc"
P_ABS=$(readlink -f "$PAGESLEUTH")
(cd "$T/tc" && "$P_ABS" valgrind --trace-children=yes -o out.rec -- \
	sh -c 'ls /usr/bin >/dev/null; true' >/dev/null 2>"$T/tc.err")
rc=$?
[ $rc = 0 ] || fail "trace-children: exit status $rc ($(head -3 "$T/tc.err"))"
children=$(ls "$T/tc" | grep -c '^out\.[0-9]*\.rec$')
[ -f "$T/tc/out.rec" ] && [ "$children" -ge 1 ] || fail "trace-children: files: $(ls -A "$T/tc")"
ls "$T/tc" | grep -q tmp && fail "trace-children: temporary files left: $(ls -A "$T/tc")"
for f in "$T"/tc/out*.rec; do
	"$PAGESLEUTH" report "$f" >/dev/null 2>"$T/tc.report" || fail "trace-children: $f does not read back: $(head -2 "$T/tc.report")"
	tail -1 "$f" | grep -q "^ws t=[0-9]* tid=0 .*final=1" || fail "trace-children: $f is not complete"
done
grep -q "traced process [0-9]* (ls): its records go to $T/tc/out\.[0-9]*\.rec" "$T/tc.err" ||
	fail "trace-children: the child's file was not named on stderr: $(cat "$T/tc.err")"
echo "trace-children: out.rec and $children child file(s), each complete"

# ---- a full file system: a 64 KiB tmpfs in a private mount namespace ------------------------
# (--ws-every=200: ws_ramp then writes far more than 64 KiB of records)
mkdir "$T/mnt"
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null &&
	unshare -m sh -c "mount -t tmpfs -o size=64k tmpfs '$T/mnt'" 2>/dev/null; then
	unshare -m sh -c "mount -t tmpfs -o size=64k tmpfs '$T/mnt' &&
		VALGRIND_LIB='$VGLIB' valgrind -q --tool=pagesleuth --ws-every=200 --out='$T/mnt/r.rec' '$T/ws_ramp' >/dev/null 2>'$T/tmpfs.err'
		echo \$? >'$T/tmpfs.rc'; ls -A '$T/mnt' >'$T/tmpfs.ls'"
	rc=$(cat "$T/tmpfs.rc")
	[ "$rc" = 1 ] || fail "full tmpfs: exit status $rc, expected 1 ($(head -3 "$T/tmpfs.err"))"
	grep -q "pagesleuth: cannot write the record file $T/mnt/r.rec.tmp.[0-9]*: no space left on device" "$T/tmpfs.err" ||
		fail "full tmpfs: no clear message: $(head -3 "$T/tmpfs.err")"
	[ ! -s "$T/tmpfs.ls" ] || fail "full tmpfs: files left: $(cat "$T/tmpfs.ls")"
	# the same run with room: a complete file (so the failure above was the space)
	vgrun --ws-every=200 --out="$T/room.rec" "$T/ws_ramp" >/dev/null 2>"$T/room.err" ||
		fail "ws_ramp with room: $(head -3 "$T/room.err")"
	size=$(wc -c <"$T/room.rec")
	[ "$size" -gt 65536 ] || fail "the records ($size bytes) would have fitted in the tmpfs"
	echo "full tmpfs: refused with one line, nothing left ($size bytes of records)"
else
	echo "no root or mount namespaces: the tmpfs part skipped"
fi

# ---- exec -------------------------------------------------------------------------------------
mkdir "$T/ex"
# (without -q: the tool's messages are asked for; -q leaves only errors, checked below)
vgloud() { VALGRIND_LIB="$VGLIB" valgrind --tool=pagesleuth "$@"; }
vgloud --out="$T/ex/e.rec" --hot=4 --ws-every=1000 --ws-tau=1000000 "$T/exec_after" /bin/sh -c "echo ran >'$T/ran'" \
	>/dev/null 2>"$T/ex.err" || fail "exec_after under the tool: $(head -3 "$T/ex.err")"
[ "$(cat "$T/ran" 2>/dev/null)" = ran ] || fail "exec: the exec'd program did not run"
[ "$(ls -A "$T/ex")" = e.rec ] || fail "exec: files left: $(ls -A "$T/ex")"
grep -q "pagesleuth: [0-9]* instructions until exec; records in $T/ex/e.rec" "$T/ex.err" ||
	fail "exec: no message: $(head -3 "$T/ex.err")"
# complete: both marks (the failed execs did not end the records), then the summaries of
# thread 1 and the process at the exec, after the mark "after"; the last sample holds the
# 50 pages the program touched (tau spans the whole run)
awk '$1 == "mark" { split($2, t, "="); m[$4] = t[2] }
     $1 == "ws" && /final=1/ { split($2, t, "="); f[$3] = t[2]; n++ }
     $1 == "ws" && !/final=1/ && $3 == "tid=0" { split($5, d, "="); last = d[2] }
     END { if (!m["text=before"] || !m["text=after"] || n != 2 || f["tid=0"] < m["text=after"] || f["tid=1"] != f["tid=0"] || last < 50) {
		print "marks", m["text=before"], m["text=after"], "summaries", n, f["tid=0"], f["tid=1"], "last sample", last; exit 1 } }' \
	"$T/ex/e.rec" || fail "exec: the records are not complete"
# The process's summary closes the trace: the last record, after the hot pages.
grep -q "^hot " "$T/ex/e.rec" || fail "exec: no hot records"
tail -1 "$T/ex/e.rec" | grep -q "^ws t=[0-9]* tid=0 .*final=1" ||
	fail "exec: the last record is not the tid=0 summary: $(tail -1 "$T/ex/e.rec")"
echo "exec: records complete at the exec, nothing left behind"

# ---- forked children (one exits, one execs, as system() does) leave the parent's file alone:
# one file, the parent's records only (one summary per tid, the parent's mark before them),
# one message, exit status 0
mkdir "$T/fk"
vgloud --out="$T/fk/f.rec" "$T/fork_child" /bin/true >/dev/null 2>"$T/fk.err" ||
	fail "fork_child under the tool: $(head -3 "$T/fk.err")"
[ "$(ls -A "$T/fk")" = f.rec ] || fail "fork: files: $(ls -A "$T/fk")"
[ "$(grep -c 'pagesleuth: ' "$T/fk.err")" = 1 ] || fail "fork: messages: $(cat "$T/fk.err")"
# -q: a run that goes well says nothing (issue 17: the summary line ignored -q)
vgrun --out="$T/fk/q.rec" "$T/fork_child" /bin/true >/dev/null 2>"$T/q.err" || fail "fork_child -q: $(head -3 "$T/q.err")"
[ ! -s "$T/q.err" ] || fail "-q: the tool still printed: $(cat "$T/q.err")"
awk '$1 == "mark" && $4 == "text=parent" { split($2, t, "="); m = t[2] }
     $1 == "ws" && /final=1/ { split($2, t, "="); f[$3] = t[2]; n++ }
     END { if (!m || n != 2 || f["tid=0"] < m || f["tid=1"] != f["tid=0"]) { print "mark", m, "summaries", n; exit 1 } }' \
	"$T/fk/f.rec" || fail "fork: the parent's records are not complete, or the children's are in them"
tail -1 "$T/fk/f.rec" | grep -q "^ws t=[0-9]* tid=0 .*final=1" ||
	fail "fork: the last record is not the tid=0 summary: $(tail -1 "$T/fk/f.rec")"
echo "fork: the children left the parent's record file alone"
echo "valgrind_out: ok"
