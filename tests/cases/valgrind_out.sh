#!/bin/sh
# valgrind_out.sh - the Valgrind tool's record file when things go wrong (issue 7):
#   - a write error (a full device) is detected: one line naming the file and the reason,
#     exit status 1 although the program succeeded, and no record file left, neither the
#     final name nor PATH.tmp. Two ways: PATH.tmp a symlink to /dev/full (always), and a
#     64 KiB tmpfs filled by the records (root with mount namespaces only; else that part is
#     skipped with a note);
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

# ---- a full device: PATH.tmp is a symlink to /dev/full ----------------------------------------
if [ -w /dev/full ]; then
	mkdir "$T/full"
	ln -s /dev/full "$T/full/r.rec.tmp"
	vgrun --out="$T/full/r.rec" "$T/ws_ramp" >/dev/null 2>"$T/full.err"
	rc=$?
	[ $rc = 1 ] || fail "/dev/full: exit status $rc, expected 1 ($(head -3 "$T/full.err"))"
	grep -q "pagesleuth: cannot write the record file $T/full/r.rec.tmp: no space left on device" "$T/full.err" ||
		fail "/dev/full: no clear message: $(head -3 "$T/full.err")"
	[ "$(grep -c pagesleuth "$T/full.err")" = 1 ] || fail "/dev/full: more than one line: $(cat "$T/full.err")"
	[ -z "$(ls -A "$T/full")" ] || fail "/dev/full: files left: $(ls -A "$T/full")"
	echo "/dev/full: refused with one line, nothing left"
else
	echo "/dev/full not writable: that part skipped"
fi

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
	grep -q "pagesleuth: cannot write the record file $T/mnt/r.rec.tmp: no space left on device" "$T/tmpfs.err" ||
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
vgrun --out="$T/ex/e.rec" --hot=4 --ws-every=1000 --ws-tau=1000000 "$T/exec_after" /bin/sh -c "echo ran >'$T/ran'" \
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
vgrun --out="$T/fk/f.rec" "$T/fork_child" /bin/true >/dev/null 2>"$T/fk.err" ||
	fail "fork_child under the tool: $(head -3 "$T/fk.err")"
[ "$(ls -A "$T/fk")" = f.rec ] || fail "fork: files: $(ls -A "$T/fk")"
[ "$(grep -c pagesleuth "$T/fk.err")" = 1 ] || fail "fork: messages: $(cat "$T/fk.err")"
awk '$1 == "mark" && $4 == "text=parent" { split($2, t, "="); m = t[2] }
     $1 == "ws" && /final=1/ { split($2, t, "="); f[$3] = t[2]; n++ }
     END { if (!m || n != 2 || f["tid=0"] < m || f["tid=1"] != f["tid=0"]) { print "mark", m, "summaries", n; exit 1 } }' \
	"$T/fk/f.rec" || fail "fork: the parent's records are not complete, or the children's are in them"
tail -1 "$T/fk/f.rec" | grep -q "^ws t=[0-9]* tid=0 .*final=1" ||
	fail "fork: the last record is not the tid=0 summary: $(tail -1 "$T/fk/f.rec")"
echo "fork: the children left the parent's record file alone"
echo "valgrind_out: ok"
