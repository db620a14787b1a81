#!/bin/sh
# lackey_vs_tool.sh - the two routes to a working set agree: stock Lackey
# (valgrind --tool=lackey --trace-mem=yes) piped into `pagesleuth lackey`, and the pagesleuth
# Valgrind tool, on tests/valgrind/ws_small.c (static: both run the very same instructions).
#   - same sample times and the same data working set in every sample, for two (every, tau);
#     code may differ by one page in a sample (the tool stamps a superblock's run of
#     instructions on a page at its first instruction, Lackey each instruction);
#   - the same summary (final record) for data;
#   - a trace file gives what the pipe gave; the converter's peak RSS does not grow with a
#     synthetic trace 8x longer; malformed traces and options are refused with a message
#     naming the line or option.
# Both runs get the same environment layout: Valgrind prepends its preloads to LD_PRELOAD
# (the tool's one more than Lackey's), so both runs set LD_PRELOAD in the same slot (a
# static program ignores it) and Lackey's value is longer by the tool preload's length.
# Every string then sits at the same address (padding another variable would shift the
# strings between it and LD_PRELOAD, and strncmp in getenv takes page-offset-dependent
# paths: other instruction counts). The program prints its stack address and the test
# checks it. Exit 0 pass, 77 skip (no valgrind), else fail.
set -u
NAME=lackey_vs_tool
T=$(mktemp -d /tmp/lackey_vs_tool.XXXXXX)
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
. "${PAGESLEUTH_ROOT:-.}/tests/cases/lib/vgtool.sh"

vgbuild ws_small -static

pad=0
preload=$VGLIB/vgpreload_pagesleuth-amd64-linux.so
[ -e "$preload" ] && pad=$(printf ':%s' "$preload" | wc -c)
dummy=/pagesleuth-no-such-preload.so
padded=$dummy$(printf "%${pad}s" "" | tr ' ' x)

for cfg in 2000:5000 3000:3000; do
	every=${cfg%:*} tau=${cfg#*:}
	env LD_PRELOAD="$dummy" VALGRIND_LIB="$VGLIB" valgrind -q --tool=pagesleuth --out="$T/tool.rec" \
		--ws-every="$every" --ws-tau="$tau" "$T/ws_small" >"$T/tool.out" 2>"$T/tool.err" ||
		fail "ws_small under the tool: $(head -3 "$T/tool.err")"
	env LD_PRELOAD="$padded" VALGRIND_LIB="$VGLIB" valgrind --tool=lackey --trace-mem=yes --log-fd=9 \
		"$T/ws_small" 9>&1 >"$T/lackey.out" 2>"$T/lackey.err" |
		"$PAGESLEUTH" lackey --ws-every "$every" --ws-tau="$tau" -o "$T/lackey.rec" 2>"$T/conv.err" ||
		fail "pagesleuth lackey: $(head -3 "$T/conv.err")"
	cmp -s "$T/tool.out" "$T/lackey.out" ||
		fail "the runs' stacks differ ($(cat "$T/tool.out") vs $(cat "$T/lackey.out")): environments of different sizes?"
	vgrec same-ws "$T/tool.rec" "$T/lackey.rec" data 0 || fail "every=$every tau=$tau: data working sets differ"
	vgrec same-ws "$T/tool.rec" "$T/lackey.rec" code 1 || fail "every=$every tau=$tau: code working sets differ by more than a page"
	for k in samples avg_data peak_data total_data t; do
		a=$(awk -v k="$k" '$1 == "ws" && $3 == "tid=0" && /final=1/ { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) print substr($i, length(k) + 2) }' "$T/tool.rec")
		b=$(awk -v k="$k" '$1 == "ws" && /final=1/ { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) print substr($i, length(k) + 2) }' "$T/lackey.rec")
		[ -n "$a" ] && [ "$a" = "$b" ] || fail "every=$every tau=$tau: summary $k: tool $a, lackey $b"
	done
done
head -2 "$T/lackey.rec" | grep -q "^header source=lackey .*page_size=4096 " || fail "lackey header"

# The end of the run and the peaks, on a sawtooth (tests/valgrind/ws_saw.c, static):
#   - the final partial sample (the run ends between two sample times) counted from the raw
#     Lackey trace, not through the converter: the same t, partial length and data pages;
#   - the peaks by prominence, computed from scratch (vgrec.py prom) on the Lackey route's
#     samples: the tool ranks and groups the same ones, and the teeth are one line that
#     stands for all TEETH of them.
vgbuild ws_saw -static
env LD_PRELOAD="$dummy" VALGRIND_LIB="$VGLIB" valgrind -q --tool=pagesleuth --out="$T/saw.rec" \
	--ws-every=2000 --ws-tau=2000 "$T/ws_saw" >"$T/saw.out" 2>"$T/saw.err" ||
	fail "ws_saw under the tool: $(head -3 "$T/saw.err")"
env LD_PRELOAD="$padded" VALGRIND_LIB="$VGLIB" valgrind --tool=lackey --trace-mem=yes --log-fd=9 \
	"$T/ws_saw" 9>"$T/saw.trace" >"$T/saw.lackey.out" 2>"$T/saw.lackey.err" || fail "ws_saw under lackey"
cmp -s "$T/saw.out" "$T/saw.lackey.out" || fail "ws_saw: the runs' stacks differ"
"$PAGESLEUTH" lackey --ws-every=2000 --ws-tau=2000 "$T/saw.trace" -o "$T/saw.lackey.rec" 2>"$T/conv.err" ||
	fail "pagesleuth lackey (saw): $(head -3 "$T/conv.err")"
vgrec same-ws "$T/saw.rec" "$T/saw.lackey.rec" data 0 || fail "saw: data working sets differ"
set -- $(vgrec lackey-end "$T/saw.trace" 2000 2000)
[ $# = 4 ] || fail "saw: the run ended on a sample time ($*): no partial sample to check"
et=$1 el=$2 ec=$3 ed=$4
part=$(awk '$1 == "ws" && $3 == "tid=0" && /partial=/' "$T/saw.rec")
[ "$(printf '%s\n' "$part" | grep -c .)" = 1 ] || fail "saw: expected one partial sample, got: $part"
case "$part" in
"ws t=$et tid=0 code="*" data=$ed tau=2000 partial=$el") ;;
*) fail "saw: final partial sample '$part', the trace says t=$et partial=$el data=$ed" ;;
esac
pc=${part#*code=} pc=${pc%% *}
[ $((pc - ec)) -le 1 ] && [ $((ec - pc)) -le 1 ] || fail "saw: partial sample code=$pc, the trace says $ec"
tail -1 "$T/saw.rec" | grep -q "^ws t=$et tid=0 .*final=1 samples=" || fail "saw: the summary is not at t=$et"
for kind in data code; do
	vgrec prom "$T/saw.lackey.rec" $kind >"$T/prom.$kind"
	vgrec ranked "$T/saw.rec" $kind >"$T/prom.got"
	cmp -s "$T/prom.$kind" "$T/prom.got" ||
		fail "saw: $kind peaks (rank t pages prominence repeats) $(tr '\n' ';' <"$T/prom.got"), by the definition $(tr '\n' ';' <"$T/prom.$kind")"
done
teeth=$(sed -n 's/^#define TEETH \([0-9]*\)$/\1/p' "$ROOT/tests/valgrind/ws_saw.c")
max=$(awk '$1 == "ws" && $3 == "tid=0" && !/final=1/ { sub("data=", "", $5); if ($5 + 0 > m) m = $5 + 0 } END { print m }' "$T/saw.lackey.rec")
set -- $(head -1 "$T/prom.data")
[ "$1" = 1 ] && [ "$3" = "$max" ] && [ "$5" = "$teeth" ] ||
	fail "saw: the first data peak is '$*' (rank t pages prominence repeats); expected the $teeth teeth of $max pages"
echo "saw: final partial sample t=$et partial=$el data=$ed as in the trace; peaks as the definition, $teeth teeth in one line"

# Dynamically linked: the dynamic loader runs ~100k instructions before main, and the tool
# must count them (and their accesses) like Lackey does. A VALGRIND_LIB without the tool's
# malloc-replacement preload, so both runs load the same objects and run the same
# instructions with the same environment: every sample agrees exactly, the samples before
# main's mark included, and so does the instruction count.
${CC:-cc} -std=gnu11 -g -O0 -I"$ROOT/valgrind" -o "$T/ws_dyn" "$ROOT/tests/valgrind/ws_small.c" 2>"$T/dyn.cc.log" ||
	fail "cannot build ws_small.c dynamically: $(head -3 "$T/dyn.cc.log")"
mkdir "$T/vglib"
for f in "$VGLIB"/*; do
	case "$f" in */vgpreload_pagesleuth-*) continue;; esac
	ln -s "$f" "$T/vglib/"
done
VALGRIND_LIB="$T/vglib" valgrind -q --tool=pagesleuth --out="$T/dtool.rec" --ws-every=2000 --ws-tau=5000 \
	"$T/ws_dyn" >"$T/dtool.out" 2>"$T/dtool.err" || fail "ws_dyn under the tool: $(head -3 "$T/dtool.err")"
VALGRIND_LIB="$T/vglib" valgrind --tool=lackey --trace-mem=yes --log-fd=9 "$T/ws_dyn" 9>&1 >"$T/dlackey.out" 2>"$T/dlackey.err" |
	"$PAGESLEUTH" lackey --ws-every 2000 --ws-tau=5000 -o "$T/dlackey.rec" 2>"$T/dconv.err" ||
	fail "pagesleuth lackey (dynamic): $(head -3 "$T/dconv.err")"
cmp -s "$T/dtool.out" "$T/dlackey.out" || fail "dynamic: the runs' stacks differ"
main_t=$(awk '$1 == "mark" && $4 == "text=main" { sub("t=", "", $2); print $2 }' "$T/dtool.rec")
[ -n "$main_t" ] || fail "dynamic: no mark at main"
before=$(awk -v m="$main_t" '$1 == "ws" && $3 == "tid=0" && !/final=1/ { split($2, t, "="); split($5, d, "=")
	if (t[2] < m && d[2] > 0) n++ } END { print n + 0 }' "$T/dtool.rec")
[ "$before" -ge 20 ] || fail "dynamic: only $before samples with data pages before main (t=$main_t)"
vgrec same-ws "$T/dtool.rec" "$T/dlackey.rec" data 0 || fail "dynamic: data working sets differ"
vgrec same-ws "$T/dtool.rec" "$T/dlackey.rec" code 1 || fail "dynamic: code working sets differ by more than a page"
for k in t samples total_data; do
	a=$(awk -v k="$k" '$1 == "ws" && $3 == "tid=0" && /final=1/ { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) print substr($i, length(k) + 2) }' "$T/dtool.rec")
	b=$(awk -v k="$k" '$1 == "ws" && /final=1/ { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) print substr($i, length(k) + 2) }' "$T/dlackey.rec")
	[ -n "$a" ] && [ "$a" = "$b" ] || fail "dynamic: summary $k: tool $a, lackey $b"
done
echo "dynamic: $before samples before main (t=$main_t), all samples equal"

# Malloc (issue 17): without heap analysis the program runs glibc's allocator, as natively.
# ws_saw built dynamically, the tool from the standard VALGRIND_LIB (its malloc preload
# there): the tool blanks the preload's path out of LD_PRELOAD with spaces, so Lackey gets
# the very same environment when its own LD_PRELOAD value is that many spaces (the dynamic
# loader skips them): every sample and the instruction count agree with Lackey, which never
# replaces malloc. With --alloc-tree=yes malloc is Valgrind's: other instructions.
${CC:-cc} -std=gnu11 -g -O0 -o "$T/saw_dyn" "$ROOT/tests/valgrind/ws_saw.c" 2>"$T/dyn.cc.log" ||
	fail "cannot build ws_saw.c dynamically: $(head -3 "$T/dyn.cc.log")"
[ -e "$preload" ] || fail "no malloc preload in $VGLIB"
blank=$(printf "%$((pad - 1))s" "")
env LD_PRELOAD=" " VALGRIND_LIB="$VGLIB" valgrind -q --tool=pagesleuth --out="$T/mtool.rec" \
	--ws-every=2000 "$T/saw_dyn" >"$T/mtool.out" 2>"$T/mtool.err" || fail "saw_dyn under the tool: $(head -3 "$T/mtool.err")"
env LD_PRELOAD="$blank: " VALGRIND_LIB="$VGLIB" valgrind --tool=lackey --trace-mem=yes --log-fd=9 \
	"$T/saw_dyn" 9>&1 >"$T/mlackey.out" 2>"$T/mlackey.err" |
	"$PAGESLEUTH" lackey --ws-every 2000 -o "$T/mlackey.rec" 2>"$T/mconv.err" ||
	fail "pagesleuth lackey (saw_dyn): $(head -3 "$T/mconv.err")"
cmp -s "$T/mtool.out" "$T/mlackey.out" || fail "saw_dyn: the runs' stacks differ"
vgrec same-ws "$T/mtool.rec" "$T/mlackey.rec" data 0 || fail "saw_dyn: data working sets differ (malloc replaced?)"
vgrec same-ws "$T/mtool.rec" "$T/mlackey.rec" code 1 || fail "saw_dyn: code working sets differ"
for k in t total_data; do
	a=$(awk -v k="$k" '$1 == "ws" && $3 == "tid=0" && /final=1/ { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) print substr($i, length(k) + 2) }' "$T/mtool.rec")
	b=$(awk -v k="$k" '$1 == "ws" && /final=1/ { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) print substr($i, length(k) + 2) }' "$T/mlackey.rec")
	[ -n "$a" ] && [ "$a" = "$b" ] || fail "saw_dyn: summary $k: tool $a, lackey $b"
	eval "own_$k=\$a"
done
! grep -q "^alloc " "$T/mtool.rec" || fail "saw_dyn: alloc records without heap analysis"
env LD_PRELOAD=" " VALGRIND_LIB="$VGLIB" valgrind -q --tool=pagesleuth --out="$T/mheap.rec" --alloc-tree=yes \
	--ws-every=2000 "$T/saw_dyn" >/dev/null 2>"$T/mheap.err" || fail "saw_dyn --alloc-tree=yes: $(head -3 "$T/mheap.err")"
heap_t=$(sed -n 's/^ws t=\([0-9]*\) tid=0 .*final=1.*/\1/p' "$T/mheap.rec")
heap_d=$(sed -n 's/^ws t=.* tid=0 .*final=1.* total_data=\([0-9]*\).*/\1/p' "$T/mheap.rec")
[ -n "$heap_t" ] && [ "$heap_t" != "$own_t" ] || fail "saw_dyn --alloc-tree=yes: $heap_t instructions, as many as without"
grep -q "^alloc id=1 parent=- group=other cur=0 " "$T/mheap.rec" || fail "saw_dyn --alloc-tree=yes: no tree, or blocks live at exit"
# libc's clean-up (__libc_freeres) runs after the program's end, before the heap records:
# ws_saw frees every block it allocates, so nothing is live at exit but for stdio's buffer
# without the clean-up; the clean-up's instructions are not the program's (same count).
env LD_PRELOAD=" " VALGRIND_LIB="$VGLIB" valgrind -q --tool=pagesleuth --out="$T/mkeep.rec" --alloc-tree=yes \
	--run-libc-freeres=no --ws-every=2000 "$T/saw_dyn" >/dev/null 2>"$T/mkeep.err" ||
	fail "saw_dyn --run-libc-freeres=no: $(head -3 "$T/mkeep.err")"
keep_cur=$(sed -n 's/^alloc id=1 parent=- group=other cur=\([0-9]*\) .*/\1/p' "$T/mkeep.rec")
[ -n "$keep_cur" ] && [ "$keep_cur" -gt 0 ] || fail "saw_dyn --run-libc-freeres=no: cur=$keep_cur, expected stdio's buffer"
grep -q "^ws t=$heap_t tid=0 .*final=1" "$T/mkeep.rec" || fail "saw_dyn: libc's clean-up counted as the program's instructions"
echo "malloc: own allocator $own_t instructions, $own_total_data data pages (= Lackey); replaced (--alloc-tree=yes) $heap_t, $heap_d; live at exit 0 bytes, $keep_cur without libc's clean-up"

# the same trace from a file
env LD_PRELOAD="$padded" VALGRIND_LIB="$VGLIB" valgrind --tool=lackey --trace-mem=yes --log-fd=9 \
	"$T/ws_small" 9>"$T/trace" >"$T/lackey.out" 2>&1 || fail "lackey to a file"
"$PAGESLEUTH" lackey --ws-every=3000 --ws-tau=3000 "$T/trace" -o "$T/file.rec" 2>"$T/conv.err" ||
	fail "pagesleuth lackey FILE: $(head -3 "$T/conv.err")"
[ "$(grep -v '^header' "$T/file.rec")" = "$(grep -v '^header' "$T/lackey.rec")" ] ||
	fail "a trace file and the pipe give different records"

# the same trace with CRLF line ends (a log copied through a Windows machine), and with a
# 3 MB line of program output in it (longer than the read buffer: skipped, counted)
sed 's/$/\r/' "$T/trace" >"$T/trace.crlf"
"$PAGESLEUTH" lackey --ws-every=3000 --ws-tau=3000 "$T/trace.crlf" -o "$T/crlf.rec" 2>"$T/conv.err" ||
	fail "pagesleuth lackey on CRLF lines: $(head -3 "$T/conv.err")"
[ "$(grep -v '^header' "$T/crlf.rec")" = "$(grep -v '^header' "$T/file.rec")" ] ||
	fail "CRLF line ends give different records"
{ head -5 "$T/trace"; head -c 3000000 /dev/zero | tr '\0' x; echo; tail -n +6 "$T/trace"; } >"$T/trace.long"
"$PAGESLEUTH" lackey --ws-every=3000 --ws-tau=3000 "$T/trace.long" -o "$T/long.rec" 2>"$T/conv.err" ||
	fail "pagesleuth lackey with a 3 MB line: $(head -3 "$T/conv.err")"
[ "$(grep -v '^header' "$T/long.rec")" = "$(grep -v '^header' "$T/file.rec")" ] ||
	fail "a 3 MB line of program output changes the records"
tail -1 "$T/long.rec" | grep -q "^ws t=[0-9]* tid=0 .*final=1" || fail "lackey: the last record is not the tid=0 summary"

# streamed: the converter's memory does not grow with the trace (same pages, 8x the lines)
cat >"$T/gen.awk" <<'AWK'
BEGIN {
	print "==7== Lackey"
	for (i = 0; i < n; i++)
		printf "I  %08x,3\n L %08x,8\n", 4194304 + (i % 64) * 4096 + i % 4000, 268435456 + (i * 7 % 512) * 4096
}
AWK
maxrss() { # INSTRUCTIONS: peak RSS (KiB) of awk and the converter reading its trace from a pipe
	python3 - "$1" "$T/gen.awk" "$PAGESLEUTH_FAST" "$T/stream.rec" <<'PY'
import resource, subprocess, sys
n, script, conv, out = sys.argv[1:]
gen = subprocess.Popen(["awk", "-v", "n=" + n, "-f", script], stdout=subprocess.PIPE)
r = subprocess.run([conv, "lackey", "-o", out], stdin=gen.stdout)
gen.stdout.close()
if gen.wait() or r.returncode:
    sys.exit(1)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}
small_rss=$(maxrss 250000) || fail "converter on a synthetic trace"
big_rss=$(maxrss 2000000) || fail "converter on a synthetic trace"
[ $((big_rss - small_rss)) -lt 2048 ] ||
	fail "the converter's memory grows with the trace: $small_rss KiB for 250k, $big_rss KiB for 2M instructions"
echo "converter peak RSS: $small_rss KiB (250k instructions), $big_rss KiB (2M)"

# bad input and options: refused, with the line or option named, no output file left
printf '==1== Lackey\nI  0040a000,3\n L 1fff0000,8\nI  00zz,3\n' >"$T/bad1"
printf '==1== Lackey\nhello\n' >"$T/bad2"
printf ' L 1fff0000,8\n' >"$T/bad3"
printf 'I  0040a000,3\n S 1fff0000,\n' >"$T/bad4"
printf 'I  0040a000,3\nI  0040' >"$T/bad5" # cut short in the middle of a line
printf 'I  0040a000,3\n L 1fff\0000,8\n' >"$T/bad6"
for case in "bad1:bad1:4: malformed" "bad2:no Lackey trace lines" "bad3:before the first instruction" "bad4:bad4:2: malformed" \
	"bad5:bad5:2: malformed Lackey trace line 'I  0040'" "bad6:bad6:2: malformed Lackey trace line ' L 1fff?0,8'"; do
	f=${case%%:*} msg=${case#*:}
	if "$PAGESLEUTH" lackey "$T/$f" -o "$T/bad.rec" >"$T/bad.out" 2>&1; then
		fail "malformed trace $f accepted"
	fi
	grep -q "$msg" "$T/bad.out" || fail "trace $f: expected '$msg', got: $(head -2 "$T/bad.out")"
	[ ! -e "$T/bad.rec" ] || fail "trace $f: an output file was left"
done
for bad in --ws-every=0 --ws-tau=x --page-size=3000 --peaks=maybe --frobnicate; do
	"$PAGESLEUTH" lackey "$bad" "$T/trace" -o "$T/bad.rec" >"$T/bad.out" 2>&1
	[ $? = 2 ] || fail "option $bad: exit status not 2"
	grep -q -- "${bad%%=*}" "$T/bad.out" || fail "option $bad: no message naming it"
done
"$PAGESLEUTH" lackey "$T/no-such-trace" >"$T/bad.out" 2>&1 && fail "a missing trace accepted"
grep -q "no-such-trace" "$T/bad.out" || fail "a missing trace: no message naming it"
echo "lackey_vs_tool: ok"
