#!/usr/bin/env bash
# crash_ext_interrupt.sh - ^C in the middle of a `pagesleuth -o FILE` command inside crash
# 8.0.2 (the ASan+UBSan build of pagesleuth.so, sanitizer runtimes preloaded). crash
# longjmps out of the command and calls the extension's abort hook; then:
#   - crash answers the next commands (`pagesleuth -v > FILE2`, `pagesleuth -V`, `quit`) and
#     exits 0, with no sanitizer report and no segmentation violation;
#   - FILE2 equals `pagesleuth extract --vmas-only` (source= aside): nothing of the abandoned
#     command's records leaks into a later output;
#   - no file is left under the interrupted command's -o name, nor a temporary beside it.
# Then the same for `pagesleuth summary` held in its walk: the next `pagesleuth summary -K > FILE`
# equals `pagesleuth report -a pss` of extract's records (lib/crashsummary.py), and crash's
# TMPDIR (a directory of the test's) is empty: the summary's records file had no name.
# The command is held mid-walk deterministically: its --trace goes to a FIFO whose reader
# never reads (pipe buffer shrunk to 4 KiB), so it blocks in write(2) until the SIGINT.
set -uo pipefail
cd "${PAGESLEUTH_ROOT:-.}" || exit 1
. tests/cases/lib/fixtures.sh
. tests/cases/lib/crashrun.sh
FAST=${PAGESLEUTH_FAST:-build/pagesleuth}
fail=0
bad() { echo "FAIL: $*"; fail=1; }
[ -x "$CR_CRASH802" ] || { echo "FAIL: no crash 8.0.2 at $CR_CRASH802"; exit 1; }
SO=$(cr_asan_ext 8.0.2) || { echo "FAIL: no ASan+UBSan pagesleuth.so in $CR_ASAN_EXT_DIR (tests/run.sh makes it)"; exit 1; }
cr_fixture
case $? in 0) ;; 3) exit 77 ;; *) exit 1 ;; esac
dump=$(cr_dump qemu.elf) || { echo "FAIL: qemu.elf not available"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/crash_ext_interrupt.XXXXXX")
cpid="" rpid=""
cleanup() {
	[ -n "$rpid" ] && kill "$rpid" 2>/dev/null
	[ -n "$cpid" ] && kill "$cpid" 2>/dev/null
	exec 5>&- 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
mkdir -p "$T/home" "$T/out" "$T/tmp"
mkfifo "$T/in.fifo" "$T/trace.fifo" "$T/trace2.fifo"
pre=$(ldd "$SO" | awk '$1 ~ /^lib(asan|ubsan)\.so/ { print $3 }' | paste -sd' ')
# wait_for PATTERN SECONDS: until crash's output shows PATTERN.
wait_for() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		grep -q -- "$1" "$T/crash.out" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

exec 5<>"$T/in.fifo"
(cd "$T/home" && HOME=$T/home ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:alloc_dealloc_mismatch=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 LD_PRELOAD="$pre" TMPDIR="$T/tmp" \
	exec timeout -k 10 240 "$CR_CRASH802" -s "$CR_VMLINUX" "$dump" <"$T/in.fifo" >"$T/crash.out" 2>&1) &
cpid=$!
echo "extend $SO" >&5
echo "pagesleuth -v -o $T/out/warm.rec" >&5 # the type information, before the timed part
wait_for "processes written to $T/out/warm.rec" 120 || { bad "crash did not get through a first command"; tail -5 "$T/crash.out"; exit 1; }

# interrupt FIFO COMMAND: send COMMAND (its -t goes to FIFO, whose reader never reads) and
# SIGINT crash once the command blocks writing its trace.
interrupt() {
	local fifo=$1 cmd=$2 i
	python3 -c "
import fcntl, os, time
fd = os.open('$fifo', os.O_RDWR)
fcntl.fcntl(fd, 1031, 4096)  # F_SETPIPE_SZ
time.sleep(120)" &
	rpid=$!
	sleep 0.5
	echo "$cmd" >&5
	crash_pid=""
	for ((i = 0; i < 200; i++)); do
		crash_pid=$(pgrep -P "$cpid" -x crash || pgrep -f "^$CR_CRASH802 -s $CR_VMLINUX" | head -1)
		[ -n "$crash_pid" ] && grep -q pipe_write "/proc/$crash_pid/wchan" 2>/dev/null && break
		sleep 0.1
	done
	if [ -n "$crash_pid" ] && grep -q pipe_write "/proc/$crash_pid/wchan" 2>/dev/null; then
		echo "  $cmd: blocked writing its trace (crash pid $crash_pid): SIGINT"
		kill -INT "$crash_pid"
	else
		bad "$cmd: never blocked on its FIFO (crash pid ${crash_pid:-?})"
	fi
	sleep 1
	kill "$rpid" 2>/dev/null
	rpid=""
}
interrupt "$T/trace.fifo" "pagesleuth -t $T/trace.fifo -o $T/out/interrupted.rec"
echo "pagesleuth -v > $T/out/after.rec" >&5
interrupt "$T/trace2.fifo" "pagesleuth summary -t $T/trace2.fifo"
echo "pagesleuth summary -K > $T/out/after.sum" >&5
echo "pagesleuth -V" >&5
echo "quit" >&5
wait "$cpid"
rc=$?
cpid=""
echo "  crash exit $rc; its last lines:"
tail -n 3 "$T/crash.out" | sed 's/^/    /'
[ $rc -eq 0 ] || bad "crash exited $rc"
fx_sanitizer_report "$T/crash.out" && { bad "sanitizer report:"; grep -m1 -A12 -E 'ERROR: |runtime error' "$T/crash.out"; }
grep -qiE 'segmentation violation|SIGSEGV' "$T/crash.out" && bad "crash died: $(grep -m1 -iE 'segmentation|SIGSEGV' "$T/crash.out")"
grep -q "^pagesleuth .* built for crash 8.0.2" "$T/crash.out" || bad "crash did not answer pagesleuth -V after the interrupt"
"$FAST" extract "$dump" --vmas-only 2>/dev/null | sed '2s/ source=coredump / source=crash /' >"$T/want.rec"
if cmp -s "$T/want.rec" "$T/out/after.rec"; then
	echo "  the next command's records equal extract --vmas-only ($(wc -l <"$T/want.rec") lines)"
else
	bad "the records after the interrupt differ from extract --vmas-only"
	diff "$T/want.rec" "$T/out/after.rec" | head -5
fi
left=$(ls "$T/out" | grep -v -e '^warm.rec$' -e '^after.rec$' -e '^after.sum$')
[ -z "$left" ] || bad "files left by the interrupted command: $left"
"$FAST" extract "$dump" -o "$T/ex.rec" 2>/dev/null && "$FAST" report -a pss -f csv "$T/ex.rec" >"$T/ex.pss" ||
	bad "extract/report -a pss of $dump failed"
python3 tests/cases/lib/crashsummary.py report "$T/out/after.sum" "$T/ex.pss" | sed 's/^/  summary after the interrupt: /'
[ "${PIPESTATUS[0]}" -eq 0 ] || bad "the summary after the interrupted one differs from report -a pss"
left=$(ls -A "$T/tmp")
[ -z "$left" ] || bad "files left in crash's TMPDIR: $left"
[ $fail -eq 0 ] && echo "crash_ext_interrupt: OK"
exit $fail
