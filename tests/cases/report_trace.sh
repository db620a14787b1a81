#!/usr/bin/env bash
# report_trace.sh - `pagesleuth report` on trace records (ws peak hot obj alloc frame mark
# wss; docs/record-format.md "Trace records", docs/analyses.md "Trace analyses").
#
# - examples/trace-example.rec: the default report shows the trace tables and says the page
#   analyses have nothing to show; CSV of each table equals the values worked out by hand
#   (the comments below), the HTML report and the SVG charts are well-formed (xmllint).
# - a file with a snapshot AND trace records shows both.
# - malformed trace records: exit 2, one "pagesleuth: FILE:LINE: reason" line, nothing on
#   stdout, no -o file left; a cycle in the alloc tree ends (no hang); no sanitizer report.
# - hostile strings (markup, quotes, control bytes, invalid UTF-8) stay escaped everywhere.
# - 300000 samples: the text stays small, the chart is downsampled, the peak survives.
# Run from the repository root with $PAGESLEUTH set (tests/run.sh does both).
set -uo pipefail
P=${PAGESLEUTH:?PAGESLEUTH is not set}
FAST=${PAGESLEUTH_FAST:-$P}
[ -x "$P" ] || { echo "FAIL: $P is not executable"; exit 1; }
EX=examples/trace-example.rec
[ -f "$EX" ] || { echo "FAIL: run from the repository root ($EX missing)"; exit 1; }

tmp=$(mktemp -d /tmp/report_trace.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0 checks=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
have_xmllint=0
command -v xmllint >/dev/null && have_xmllint=1
[ $have_xmllint = 1 ] || echo "note: xmllint (libxml2-utils) missing: HTML/SVG not checked"

# run NAME ARGS...: runs the ASan binary, leaves $tmp/NAME.{out,err,rc}; checks for crashes.
run() {
	local name=$1
	shift
	timeout 120 "$P" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
	checks=$((checks + 1))
	local rc
	rc=$(cat "$tmp/$name.rc")
	if grep -qE 'Sanitizer|runtime error' "$tmp/$name.err"; then
		fail "$name: sanitizer report: $(grep -m1 -E 'Sanitizer|runtime error' "$tmp/$name.err")"
	elif [ "$rc" = 124 ]; then
		fail "$name: did not finish in 120 s (hang?)"
	elif [ "$rc" -ge 128 ] || [ "$rc" -gt 3 ]; then
		fail "$name: crashed (exit $rc): $(head -c 300 "$tmp/$name.err")"
	fi
}
rc_of() { cat "$tmp/$1.rc"; }
xml_ok() { # NAME FILE
	[ $have_xmllint = 1 ] || return 0
	xmllint --noout "$2" 2>"$tmp/xmllint.err" || fail "$1: xmllint rejects $2: $(head -c 300 "$tmp/xmllint.err")"
}
same() { # NAME GOT-FILE WANT-STRING
	if [ "$(cat "$2")" != "$3" ]; then
		fail "$1: output differs"
		diff <(echo "$3") "$2" | head -20
	fi
}

# ---- the example: the default report ------------------------------------------------------
run ex report "$EX"
[ "$(rc_of ex)" = 0 ] || fail "example: exit $(rc_of ex): $(head -c 300 "$tmp/ex.err")"
[ -s "$tmp/ex.err" ] && fail "example: stderr not empty: $(head -c 300 "$tmp/ex.err")"
grep -q '^snapshot:  none (trace records only: the page analyses have nothing to show)$' "$tmp/ex.out" ||
	fail "example: the report does not say the page analyses have nothing to show"
for title in 'Working set over time (pages)' 'Marks (client requests)' 'Working-set peaks' \
	'Hot pages' 'Accesses per object' 'Allocation tree' 'Working-set size measurements (wss)'; do
	grep -qxF "$title" "$tmp/ex.out" || fail "example: no table '$title' in the default report"
done
for title in 'Per-process summary' 'PSS and USS' 'Working-set samples'; do
	grep -q "^$title" "$tmp/ex.out" && fail "example: '$title' shown for a trace file"
done
# short: no sample series; the wide ws, peaks and obj tables come in two blocks of columns each
# to fit 100 columns (docs/analyses.md, "The text layout")
[ "$(wc -l <"$tmp/ex.out")" -lt 110 ] || fail "example: $(wc -l <"$tmp/ex.out") lines of text, expected a short report"
w=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$tmp/ex.out")
[ "$w" -le 100 ] || fail "example: a text line of $w columns"

# ---- CSV of each table, worked out by hand from the example --------------------------------
# ws: tid 0 samples code 3,5,4 (avg 12/3 = 4, peak 5 at 2000), data 4,10,7 (avg 21/3 = 7,
# peak 10 at 2000), totals 6/20 from its final=1 record; tid 1: code 3,5,4, data 4,6,7
# (avg 17/3, peak 7 at 3000); the one peak record (pages=10: the process's data at t=2000,
# the detector watches the whole process) counts on tid 0's row and on tid 1's, the thread
# that was running; tid 2: one sample 1/4; tid 3: a final=1 summary and no sample: only its
# totals.
run ws-csv report -f csv -a ws "$EX"
same ws-csv "$tmp/ws-csv.out" "# table: ws
tid,scope,samples,first_t,last_t,tau,avg_code,avg_data,peak_code,peak_code_t,peak_data,peak_data_t,total_code,total_data,peaks
0,process,3,1000,3000,2000,4,7,5,2000,10,2000,6,20,1
1,thread,3,1000,3000,2000,4,5.666666666666667,5,2000,7,3000,,,1
2,thread,1,2000,2000,2000,1,4,1,2000,4,2000,,,0
3,thread,0,,,2000,,,,,,,2,1,0

# table: marks
t,tid,text
500,1,phase 1
2500,1,phase 2"
# every sample, by tid then time
run series-csv report -f csv -a ws-series "$EX"
same series-csv "$tmp/series-csv.out" "tid,t,code,data
0,1000,3,4
0,2000,5,10
0,3000,4,7
1,1000,3,4
1,2000,5,6
1,3000,4,7
2,2000,1,4"
run peaks-csv report -f csv -a peaks "$EX"
same peaks-csv "$tmp/peaks-csv.out" "peak,t,tid,kind,pages,rank,prominence,repeats,start,fn,file,line,stack
1,2000,1,data,10,,,,,touch,ramp.c,12,touch ramp.c:12 <- main ramp.c:30"
# ranked by the writer: rank 1 code before rank 1 data, then rank 2; frame 3 has no fn
run hot-csv report -f csv -a hot "$EX"
same hot-csv "$tmp/hot-csv.out" "rank,page,kind,accesses,fn,file,line,object
1,401000,code,900,main,ramp.c,30,/tmp/ramp
1,7f0000000000,data,500,touch,ramp.c,12,/tmp/ramp
2,7f0000001000,data,20,0x7f0000001000,,,/lib/x86_64-linux-gnu/libc.so.6"
# accesses = loads + stores: 30 and 8; --sort=name puts counter first
run obj-csv report -f csv -a obj "$EX"
same obj-csv "$tmp/obj-csv.out" "id,kind,name,size_bytes,blocks,loads,stores,accesses,loaded_bytes,stored_bytes,where
1,heap,touch,4096,3,10,20,30,80,160,touch ramp.c:12 <- main ramp.c:30
2,global,counter,8,1,7,1,8,56,8,ramp.c:3"
run obj-sort report -f csv -a obj --sort name "$EX"
[ "$(sed -n 2p "$tmp/obj-sort.out" | cut -d, -f1)" = 2 ] || fail "obj --sort name: first row $(sed -n 2p "$tmp/obj-sort.out")"
run obj-sort-bad report -a obj --sort nosuch "$EX"
[ "$(rc_of obj-sort-bad)" = 2 ] || fail "obj --sort nosuch: exit $(rc_of obj-sort-bad), expected 2"
grep -q 'no such obj column' "$tmp/obj-sort-bad.err" || fail "obj --sort nosuch: no message"
[ -s "$tmp/obj-sort-bad.out" ] && fail "obj --sort nosuch: wrote to stdout"
# preorder, children by bytes at the peak: net (300) > other (50); under net: net/tcp (200)
# before touch (100); the global peak is 300 + 50
run alloc-csv report -f csv -a alloc "$EX"
same alloc-csv "$tmp/alloc-csv.out" "id,parent,depth,node,group,cur_bytes,peak_bytes,max_bytes,total_bytes,blocks
1,,0,net,net,100,300,400,1000,10
2,1,1,net/tcp,net/tcp,60,200,250,600,6
3,2,2,make_table table.c:5,net/tcp,60,200,250,600,6
4,1,1,touch ramp.c:12,net,40,100,150,400,4
5,,0,other,other,0,50,50,50,1"
grep -q 'global heap peak: 350 bytes' "$tmp/ex.out" || fail "alloc: the note does not give the global peak 350"
grep -q '^ 3       2      2      make_table table.c:5 ' "$tmp/ex.out" ||
	fail "alloc: the text tree is not indented by depth"
# A tree too wide for 100 columns (40 levels, 150-character frames): still one block, each
# node's numbers on its own line with its label, the labels last, indented up to 64 spaces
# and cut at 164 characters; blocks of columns would put the numbers 40 lines away.
f=$tmp/deep.rec
{ echo 'pagesleuth-records 1.0'
  echo 'header source=valgrind arch=x86_64 endian=little page_size=4096 release=- dump=deep time=x'
  awk 'BEGIN { pad = "pppppppppppppppppppppppppppppppppppppppppppppppppp"; pad = pad pad pad
	for (i = 1; i <= 40; i++) {
		printf "frame id=%d fn=fn%d_%s\n", i, i, pad
		printf "alloc id=%d parent=%s cur=%d peak=%d max=%d total=%d blocks=1 frame=%d\n", i,
			i == 1 ? "-" : i - 1, 1000 - i, 2000 - i, 3000 - i, 4000 - i, i } }'; } >"$f"
run deep report -a alloc "$f"
[ "$(grep -c 'GROUP_OR_CALL_STACK' "$tmp/deep.out")" = 1 ] || fail "deep: the tree was split into blocks of columns"
grep -q '^ 3       2      2         997 B  2.0 KiB  2.9 KiB  3.9 KiB       1      fn3_ppp' "$tmp/deep.out" ||
	fail "deep: node 3's row is not its numbers, then its label indented by 4"
grep -q "^40      39     39         960 B  1.9 KiB  2.9 KiB  3.9 KiB       1  $(printf '%64s' '')fn40_ppp" "$tmp/deep.out" ||
	fail "deep: node 40's label is not indented by the most (64 spaces)"
[ "$(awk '/GROUP_OR_CALL_STACK/ { label = index($0, "GROUP_OR_CALL_STACK") }
	{ if (length($0) > m) m = length($0) } END { print m - (label - 1) }' "$tmp/deep.out")" = 164 ] ||
	fail "deep: the longest line is not the numbers and 164 characters of label"
# MB = bytes / 2^20: 8388608 -> 8, 4194304 -> 4, 1048576 -> 1, 2097152 -> 2
run wss-csv report -f csv -a wss "$EX"
same wss-csv "$tmp/wss-csv.out" "pid,method,mode,seq,dur_s,est_s,rss_mb,pss_mb,ref_mb,t_ns
4242,referenced,cumulative,0,0.01,0.011,8,4,1,11000000
4242,referenced,cumulative,1,0.01,0.021,8,4,2,21000000"
grep -q '4242  referenced  cumulative    0  0.010  0.011    8.00    4.00    1.00  11000000' "$tmp/ex.out" ||
	fail "wss: the text table does not read as wss prints it (Est 3 decimals, MB 2)"

# JSON is valid and has every table
run ex-json report -f json "$EX"
python3 - "$tmp/ex-json.out" <<'PY' || fail "example json: not valid or tables missing"
import json, sys
d = json.load(open(sys.argv[1]))
ids = [t["id"] for t in d["tables"]]
assert ids == ["ws", "marks", "peaks", "hot", "obj", "alloc", "wss"], ids
assert d["snapshots"] == 0 and d["partial"] is False
PY

# ---- HTML and SVG ----------------------------------------------------------------------------
run ex-html report --html "$tmp/ex.html" --svg "$tmp/svg" "$EX"
[ "$(rc_of ex-html)" = 0 ] || fail "example html: exit $(rc_of ex-html): $(head -c 300 "$tmp/ex-html.err")"
xml_ok ex-html "$tmp/ex.html"
for f in ws wss; do
	[ -s "$tmp/svg/$f.svg" ] || { fail "svg: no $f.svg"; continue; }
	xml_ok "svg $f" "$tmp/svg/$f.svg"
done
grep -q '<g class="peaks">' "$tmp/svg/ws.svg" && grep -q '<circle [^>]*><title>peak data 10 pages at t=2000, tid 1: touch ramp.c:12</title>' "$tmp/svg/ws.svg" ||
	fail "ws.svg: the peak is not marked"
[ "$(grep -c 'class="marks"' "$tmp/svg/ws.svg")" = 1 ] || fail "ws.svg: no marks"
grep -q 'phase 2</text>' "$tmp/svg/ws.svg" || fail "ws.svg: mark label missing"
[ "$(grep -c '<svg ' "$tmp/ex.html")" = 2 ] || fail "example html: $(grep -c '<svg ' "$tmp/ex.html") charts, expected 2 (ws, wss)"

# ---- snapshot and trace records in one file: both ------------------------------------------
mix=$tmp/mix.rec
{ cat tests/records/kinds.rec; grep '^wss ' "$EX"; } >"$mix"
run mix report "$mix"
[ "$(rc_of mix)" = 0 ] || fail "mix: exit $(rc_of mix): $(head -c 300 "$tmp/mix.err")"
grep -q '^Per-process summary' "$tmp/mix.out" || fail "mix: no page analyses"
grep -qxF 'Working-set size measurements (wss)' "$tmp/mix.out" || fail "mix: no wss table"
grep -q '^Hot pages' "$tmp/mix.out" && fail "mix: an empty hot table"
grep -q '^snapshot:  0 (1 in input)' "$tmp/mix.out" || fail "mix: snapshot line"
# a page analysis named on a trace file: its table says why it is empty
run named report -a summary,hot "$EX"
[ "$(rc_of named)" = 0 ] || fail "named: exit $(rc_of named)"
grep -q 'no snapshot in the file' "$tmp/named.out" || fail "named: the summary table does not say there is no snapshot"
run named-obj report -a obj "$mix"
grep -q 'no obj records in the file' "$tmp/named-obj.out" || fail "named-obj: no note on the empty obj table"

# diff needs two snapshots
run diff-trace diff "$EX" tests/records/kinds.rec
[ "$(rc_of diff-trace)" = 2 ] || fail "diff of a trace file: exit $(rc_of diff-trace), expected 2"
grep -q "pagesleuth diff: $EX: no snapshot in the file" "$tmp/diff-trace.err" || fail "diff-trace: '$(cat "$tmp/diff-trace.err")'"

# ---- malformed trace records -------------------------------------------------------------------
HDR='header source=valgrind arch=x86_64 endian=little page_size=4096 release=- dump=bad time=x'
# bad NAME LINE SUBSTRING RECORDS...: a file of these records (line 3 is the first) must
# fail at LINE with SUBSTRING, one stderr line, no stdout, no -o file.
bad() {
	local name=$1 line=$2 want=$3
	shift 3
	local f=$tmp/$name.rec
	{ echo 'pagesleuth-records 1.0'; echo "$HDR"; printf '%s\n' "$@"; } >"$f"
	run "$name" report "$f"
	[ "$(rc_of "$name")" = 2 ] || { fail "$name: exit $(rc_of "$name"), expected 2: $(head -c 300 "$tmp/$name.err")"; return; }
	[ "$(wc -l <"$tmp/$name.err")" = 1 ] || fail "$name: expected one stderr line: $(head -c 400 "$tmp/$name.err")"
	local first
	first=$(head -n1 "$tmp/$name.err")
	case $first in
	"pagesleuth: $f:$line: "*"$want"*) ;;
	*) fail "$name: stderr '$first', expected 'pagesleuth: $f:$line: ...$want...'" ;;
	esac
	[ -s "$tmp/$name.out" ] && fail "$name: wrote to stdout on error"
	mkdir -p "$tmp/out"
	run "$name-o" report -f csv -o "$tmp/out/$name.csv" "$f"
	[ "$(rc_of "$name-o")" = 2 ] || fail "$name -o: exit $(rc_of "$name-o"), expected 2"
	[ -e "$tmp/out/$name.csv" ] && fail "$name -o: a failed run left its output"
	compgen -G "$tmp/out/*.tmp.*" >/dev/null && fail "$name -o: temporary file left"
}
bad frame-undefined 4 'stack refers to frame 2, which no earlier frame record defines' \
	'frame id=1 fn=a' 'peak t=1 tid=0 kind=data pages=1 stack=1,2' 'frame id=2 fn=b'
bad frame-dup 4 'frame record: id 1 is defined twice' 'frame id=1 fn=a' 'frame id=1 fn=b'
bad hot-frame 3 'hot record: frame refers to frame 9' 'hot page=1000 kind=code accesses=1 frame=9'
bad alloc-frame 3 'alloc record: frame refers to frame 9' 'alloc id=1 parent=- frame=9'
bad obj-dup 4 'obj record: id 3 is defined twice' 'obj id=3 kind=heap loads=1 stores=1' 'obj id=3 kind=global loads=1 stores=1'
bad alloc-dup 4 'alloc record: id 3 is defined twice' 'alloc id=3 parent=-' 'alloc id=3 parent=-'
bad ws-missing 3 'ws record: missing data=' 'ws t=1 tid=0 code=1'
bad ws-word 3 'ws record: data=many is not a decimal number' 'ws t=1 tid=0 code=1 data=many'
bad ws-unknown 3 'ws record: t=- : this value must be known' 'ws t=- tid=0 code=1 data=1'
bad ws-back 4 'goes back in time' 'ws t=9 tid=3 code=1 data=1' 'ws t=8 tid=3 code=1 data=1'
bad ws-final 3 'ws record: avg_code=x is not a decimal number of seconds' 'ws t=1 tid=0 code=1 data=1 final=1 avg_code=x'
bad ws-final-half 3 'a summary-only record (final=1) has both code= and data= unknown' 'ws t=1 tid=0 code=1 data=- final=1'
bad ws-final-twice 4 'a second final=1 record for tid 0 (the first is on line 3)' 'ws t=1 tid=0 code=- data=- final=1' 'ws t=2 tid=0 code=- data=- final=1'
bad ws-nofinal 3 'ws record: data=- : this value must be known' 'ws t=1 tid=0 code=1 data=-'
bad peak-kind 3 'peak record: kind=heap (expected code|data)' 'peak t=1 tid=0 kind=heap pages=1'
bad peak-stack 3 'is not a comma-separated list of frame ids' 'peak t=1 tid=0 kind=data pages=1 stack=a,b'
bad hot-page 3 'hot record: page=0x10 is not a hexadecimal number' 'hot page=0x10 kind=data accesses=1'
bad obj-kind 3 'obj record: kind=stack (expected heap|global)' 'obj id=1 kind=stack loads=1 stores=1'
bad obj-loads 3 'obj record: missing loads=' 'obj id=1 kind=heap stores=1'
bad mark-text 3 'mark record: missing text=' 'mark t=5 tid=0'
bad wss-nan 3 'wss record: est=nan is not a finite number' 'wss pid=1 method=idle mode=once seq=0 est=nan ref=1'
bad wss-neg 3 'wss record: est=-1.000 is negative' 'wss pid=1 method=idle mode=once seq=0 est=-1.000 ref=1'
bad wss-dur 3 'wss record: dur=inf is not a finite number' 'wss pid=1 method=idle mode=once seq=0 est=1.0 dur=inf ref=1'
bad wss-mode 3 'wss record: mode=twice (expected once|cumulative|profile)' 'wss pid=1 method=idle mode=twice seq=0 est=1.0 ref=1'
bad wss-ref 3 'wss record: ref=1.5 is not a decimal number' 'wss pid=1 method=idle mode=once seq=0 est=1.0 ref=1.5'
bad alloc-parent 4 'alloc record: parent=7 is not the id of any alloc record' 'alloc id=1 parent=-' 'alloc id=2 parent=7'
bad alloc-self 3 'alloc record: id 4 is its own parent' 'alloc id=4 parent=4'
bad alloc-cycle 3 'the parent links of id 1 form a cycle (1 -> 3 -> 2 -> 1)' \
	'alloc id=1 parent=3' 'alloc id=2 parent=1' 'alloc id=3 parent=2'
bad alloc-noparent 3 'alloc record: missing parent=' 'alloc id=1 cur=5'
bad pct 3 'bad %-escape' 'mark t=1 text=50%'
# a ring of 100000 allocs: refused, quickly
f=$tmp/ring.rec
{ echo 'pagesleuth-records 1.0'; echo "$HDR"
  awk 'BEGIN { for (i = 1; i <= 100000; i++) printf "alloc id=%d parent=%d cur=1\n", i, i % 100000 + 1 }'; } >"$f"
run ring report "$f"
[ "$(rc_of ring)" = 2 ] || fail "ring: exit $(rc_of ring), expected 2"
grep -q "^pagesleuth: $f:3: alloc record: the parent links of id 1 form a cycle (1 -> 2 -> 3" "$tmp/ring.err" ||
	fail "ring: '$(head -c 200 "$tmp/ring.err")'"
# a warn record in a trace file: partial (exit 1), said in the output
f=$tmp/warn.rec
{ head -n 20 "$EX"; echo 'warn reason=tool%20ran%20out%20of%20memory'; } >"$f"
run warn report "$f"
[ "$(rc_of warn)" = 1 ] || fail "warn: exit $(rc_of warn), expected 1"
grep -q 'PARTIAL' "$tmp/warn.out" && grep -q 'tool ran out of memory' "$tmp/warn.out" || fail "warn: no PARTIAL notice with the reason"
# a header and nothing else
f=$tmp/nothing.rec
{ echo 'pagesleuth-records 1.0'; echo "$HDR"; } >"$f"
run nothing report "$f"
[ "$(rc_of nothing)" = 2 ] || fail "nothing: exit $(rc_of nothing), expected 2"
grep -q 'no snapshot or trace record' "$tmp/nothing.err" || fail "nothing: '$(cat "$tmp/nothing.err")'"

# ---- hostile strings ---------------------------------------------------------------------------
f=$tmp/hostile.rec
{ echo 'pagesleuth-records 1.0'; echo "$HDR"
  echo 'frame id=1 ip=10 fn=%3Cscript%3Ealert(1)%3C/script%3E file=a%22b%26c%27.c line=1 obj=%FF%FE%01bin'
  echo 'ws t=1 tid=0 code=1 data=2'
  echo 'peak t=1 tid=0 kind=data pages=2 stack=1'
  echo 'mark t=1 text=%1B%5B31m%3C%2Fsvg%3E%C2%9B'
  echo 'hot page=1000 kind=code accesses=3 frame=1'
  echo 'obj id=1 kind=heap name=%3Cb%3E,%22x loads=1 stores=1 stack=1'
  echo 'alloc id=1 parent=- group=%3Cg%3E%0A cur=1 peak=1 frame=-'
  echo 'alloc id=2 parent=1 group=%3Cg%3E cur=1 peak=1 frame=1'
  echo 'ws t=1 tid=0 code=- data=- final=1'; } >"$f"
run hostile report --html "$tmp/hostile.html" --svg "$tmp/hsvg" "$f"
[ "$(rc_of hostile)" = 0 ] || fail "hostile: exit $(rc_of hostile): $(head -c 300 "$tmp/hostile.err")"
xml_ok hostile-html "$tmp/hostile.html"
xml_ok hostile-svg "$tmp/hsvg/ws.svg"
grep -q '<script>alert' "$tmp/hostile.html" "$tmp/hsvg/ws.svg" && fail "hostile: markup from the input not escaped"
grep -q $'\x1b' "$tmp/hostile.out" && fail "hostile: an escape byte reached the terminal text"
run hostile-json report -f json "$f"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/hostile-json.out" 2>/dev/null ||
	fail "hostile: JSON not valid"
run hostile-csv report -f csv -a obj "$f"
grep -q '^1,heap,"<b>,""x",' "$tmp/hostile-csv.out" || fail "hostile: CSV quoting: $(sed -n 2p "$tmp/hostile-csv.out")"

# ---- a long trace: 300000 samples, one spike ------------------------------------------------
f=$tmp/long.rec
{ echo 'pagesleuth-records 1.0'; echo "$HDR"; echo 'frame id=1 fn=spike file=s.c line=9'
  awk 'BEGIN { for (i = 1; i <= 300000; i++) {
	d = (i == 123457) ? 9000 : 100 + i % 50
	printf "ws t=%d tid=0 code=%d data=%d tau=4000\n", i * 1000, 20 + i % 7, d
	if (i == 123457) printf "peak t=%d tid=0 kind=data pages=%d stack=1\n", i * 1000, d }
	print "ws t=300000000 tid=0 code=- data=- final=1" }'; } >"$f"
start=$(date +%s%N)
"$FAST" report --html "$tmp/long.html" -o "$tmp/long.txt" "$f" 2>"$tmp/long.err"
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
checks=$((checks + 1))
[ $rc = 0 ] || fail "long: exit $rc: $(head -c 300 "$tmp/long.err")"
echo "long trace (300000 samples): text + HTML in $ms ms, HTML $(stat -c %s "$tmp/long.html") bytes"
[ "$(wc -l <"$tmp/long.txt")" -lt 40 ] || fail "long: $(wc -l <"$tmp/long.txt") lines of text"
[ "$(stat -c %s "$tmp/long.html")" -lt 300000 ] || fail "long: HTML of $(stat -c %s "$tmp/long.html") bytes: not downsampled"
xml_ok long-html "$tmp/long.html"
grep -q '^  0  process   300000     1000  300000000  4000 ' "$tmp/long.txt" || fail "long: ws row: $(grep process "$tmp/long.txt")"
tr=${PAGESLEUTH_ROOT:-.}/tests/cases/lib/textreport.py
[ "$(python3 "$tr" get "$tmp/long.txt" 'Working set over time' TID 0 PEAK_DATA)" = 9000 ] &&
	[ "$(python3 "$tr" get "$tmp/long.txt" 'Working set over time' TID 0 PEAK_DATA_T)" = 123457000 ] ||
	fail "long: peak 9000 at t=123457000 not in the summary"
# the data line reaches the spike: the y axis ends at 10000 (ticks of 2000), the plot is
# y 64..344, so 9000 pages is at 344 - 0.9 * 280 = 92
grep -q 'stroke="#f28e2b" stroke-width="1.5" stroke-linejoin="round" d="[^"]* 92.0L' "$tmp/long.html" ||
	fail "long: the data line does not reach the spike"

# ---- hostile sizes: time and memory must stay proportional to the file -------------------------
# bounded NAME SECONDS MEMORY_MB ARGS...: the -O2 binary (ulimit -v works without ASan) must
# finish ARGS in SECONDS within MEMORY_MB of address space, exit 0.
bounded() {
	local name=$1 secs=$2 mb=$3
	shift 3
	local start rc ms
	start=$(date +%s%N)
	(ulimit -v $((mb * 1024)); exec timeout "$secs" "$FAST" "$@") >/dev/null 2>"$tmp/$name.err"
	rc=$?
	ms=$((($(date +%s%N) - start) / 1000000))
	checks=$((checks + 1))
	echo "$name: $ms ms"
	[ $rc = 0 ] || fail "$name: exit $rc (124: over $secs s; memory: over $mb MB): $(head -c 300 "$tmp/$name.err")"
}
# 64 frames of 60000 bytes (fn and file) named by 300 peak, obj and hot records each, and 300 alloc nodes:
# a 4 MB file whose tables once held every frame once per row (1.1 GB for the peaks alone).
f=$tmp/amplify.rec
{ echo 'pagesleuth-records 1.0'; echo "$HDR"
  awk 'BEGIN { fn = "ffffffffff"; while (length(fn) < 30000) fn = fn fn; fn = substr(fn, 1, 30000)
	for (i = 1; i <= 64; i++) printf "frame id=%d fn=%s%d file=%s.c\n", i, fn, i, fn
	st = "1"; for (i = 2; i <= 64; i++) st = st "," i
	for (i = 1; i <= 300; i++) {
		printf "peak t=%d tid=0 kind=data pages=1 stack=%s\n", i, st
		printf "obj id=%d kind=heap loads=1 stores=1 stack=%s\n", i, st
		printf "hot page=%x kind=data accesses=1 frame=%d\n", i * 4096, i % 64 + 1
		printf "alloc id=%d parent=- peak=1 frame=%d\n", i, i % 64 + 1 } }'; } >"$f"
bounded amplify 60 250 report -f csv -a peaks,obj,hot,alloc "$f"
# 200000 threads and 200000 peaks; 200000 wss runs; 150000 frame ids that all shared one
# slot of the old unkeyed hash: each took time quadratic in the count (30 s, 16 s, 30 s).
f=$tmp/tids.rec
{ echo 'pagesleuth-records 1.0'; echo "$HDR"
  awk 'BEGIN { for (i = 1; i <= 200000; i++) printf "ws t=0 tid=%d code=1 data=1\n", i
	for (i = 1; i <= 200000; i++) print "peak t=0 tid=1 kind=code pages=1"
	print "ws t=0 tid=0 code=- data=- final=1" }'; } >"$f"
bounded tids-peaks 10 1000 report -f csv -a ws "$f"
f=$tmp/runs.rec
{ echo 'pagesleuth-records 1.0'; echo "$HDR"
  awk 'BEGIN { for (i = 1; i <= 200000; i++)
	printf "wss pid=%d method=idle mode=cumulative seq=0 est=0.1 ref=1\n", i }'; } >"$f"
bounded wss-runs 10 1000 report -f csv -a wss "$f"
f=$tmp/collide.rec
{ echo 'pagesleuth-records 1.0'; echo "$HDR"
  python3 -c 'inv = pow(0x9E3779B97F4A7C15, -1, 1 << 64)
for j in range(1, 150001): print("frame id=%d fn=f" % (((j << 40) * inv) % (1 << 64)))
print("ws t=1 tid=0 code=1 data=1")
print("ws t=1 tid=0 code=- data=- final=1")'; } >"$f"
bounded collide 10 1000 report -f csv -a ws "$f"

# ---- a trace cut short: samples but no final summary ------------------------------------------
f=$tmp/cut.rec
{ echo 'pagesleuth-records 1.0'; echo "$HDR"
  echo 'ws t=1000 tid=0 code=1 data=2'; echo 'ws t=2000 tid=0 code=1 data=3'; } >"$f"
run cut report "$f"
[ "$(rc_of cut)" = 1 ] || fail "cut: exit $(rc_of cut), expected 1 (partial)"
grep -q 'PARTIAL' "$tmp/cut.out" && grep -q 'no final summary' "$tmp/cut.err" ||
	fail "cut: no PARTIAL notice naming the missing final summary: $(head -c 300 "$tmp/cut.err")"

if [ "$fails" -ne 0 ]; then
	echo "report_trace: $fails of $checks checks failed"
	exit 1
fi
echo "report_trace: $checks runs, all as specified"
exit 0
