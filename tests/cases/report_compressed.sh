#!/usr/bin/env bash
# Compressed record files are read as they are (analyzer/decompress.c): report, diff and
# db import on .zst and .gz give exactly what they give on the plain file; a truncated or
# corrupt compressed file is one line naming it and the compression (exit 2); a reader that
# stops early (a malformed line near the start of a big file) does not hang the
# decompressing thread. And written compressed when the output's name ends in .zst or .gz
# (lib/compress_out.c): extract and report -o, checked by zstd(1)/gzip(1) themselves (-t,
# then -d equal to the same command's plain output) and read back by report; the board
# binary (pagesleuth-live, no compressor) and `pagesleuth valgrind` (the tool writes plain
# text itself) refuse such a name with one line and write nothing.
set -uo pipefail
P=${PAGESLEUTH:-build/pagesleuth}
root=${PAGESLEUTH_ROOT:-$PWD}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
command -v zstd >/dev/null && command -v gzip >/dev/null || { echo "skip: zstd or gzip missing"; exit 77; }

zst=$root/examples/debian12-live.rec.zst
zstd -q -d -c "$zst" > "$tmp/plain.rec" || { echo "FAIL: zstd -d of the example"; exit 1; }
gzip -c "$tmp/plain.rec" > "$tmp/live.rec.gz"
"$P" report -a all -f csv "$tmp/plain.rec" > "$tmp/plain.csv" || bad "report of the plain file"
for f in "$zst" "$tmp/live.rec.gz"; do
	"$P" report -a all -f csv "$f" > "$tmp/c.csv" 2> "$tmp/c.err" || bad "report $f: exit $?: $(head -2 "$tmp/c.err")"
	cmp -s "$tmp/c.csv" "$tmp/plain.csv" || bad "report of $f differs from the plain file's"
done
"$P" diff -f csv "$zst" "$tmp/live.rec.gz" > "$tmp/d.csv" || bad "diff .zst .gz: exit $?"
grep -qx '[0-9]*,[0-9]*,0' "$tmp/d.csv" || bad "diff of the same snapshot compressed two ways is not 0: $(head -3 "$tmp/d.csv")"
"$P" db import -q --db "$tmp/z.db" "$zst" "$tmp/live.rec.gz" 2> "$tmp/db.err" || bad "db import of .zst and .gz: $(cat "$tmp/db.err")"
n=$("$P" db ls --db "$tmp/z.db" -f csv | grep -c ',complete,')
[ "$n" = 1 ] || bad "db import: $n snapshots, want 1 (the same snapshot twice)"

# truncated and corrupt: one line naming the file and the compression, exit 2
head -c 30000 "$zst" > "$tmp/trunc.rec.zst"
head -c 100000 "$tmp/live.rec.gz" > "$tmp/trunc.rec.gz"
cp "$zst" "$tmp/corrupt.rec.zst"
printf '\377\377\377\377\377\377\377\377' | dd of="$tmp/corrupt.rec.zst" bs=1 seek=5000 conv=notrunc 2>/dev/null
for c in "trunc.rec.zst:zstd: the compressed file is truncated" "trunc.rec.gz:gzip: the compressed file is truncated" \
	 "corrupt.rec.zst:zstd: "; do
	f=${c%%:*} want=${c#*:}
	rc=0
	"$P" report "$tmp/$f" > /dev/null 2> "$tmp/e" || rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l < "$tmp/e")" = 1 ] && grep -q "^pagesleuth: $tmp/$f: $want" "$tmp/e" ||
		bad "$f: exit $rc (want 2 and one line '$want'): $(cat "$tmp/e")"
done

# the reader stops at line 3 of a big file: the decompressor must not block forever
{ sed -n 1,2p "$tmp/plain.rec"; echo "m 1 zz"; for _ in 1 2 3 4 5 6 7 8; do sed -n '3,$p' "$tmp/plain.rec"; done; } |
	zstd -q -c > "$tmp/early.rec.zst"
rc=0
timeout 60 "$P" report "$tmp/early.rec.zst" > /dev/null 2> "$tmp/e" || rc=$?
[ "$rc" = 2 ] && grep -q "early.rec.zst:3: " "$tmp/e" || bad "a malformed line in a compressed file: exit $rc: $(cat "$tmp/e")"
# written compressed: the x86_64 fixture's QEMU ELF extracted plain, .zst and .gz
. "$root/tests/cases/lib/fixtures.sh"
if dump=$(fx_dump x86_64 qemu.elf); then
	"$P" extract "$dump" -o "$tmp/x.rec" 2>/dev/null || bad "extract to a plain file"
	"$P" report -a all -f csv "$tmp/x.rec" > "$tmp/x.csv" || bad "report of the extracted plain file"
	for c in zst:zstd gz:gzip; do
		s=${c%%:*} tool=${c#*:}
		"$P" extract "$dump" -o "$tmp/x.rec.$s" 2>/dev/null || bad "extract -o x.rec.$s: exit $?"
		$tool -t -q "$tmp/x.rec.$s" 2>/dev/null || bad "extract -o x.rec.$s: $tool -t says it is not $tool data"
		$tool -d -c "$tmp/x.rec.$s" 2>/dev/null | cmp -s - "$tmp/x.rec" || bad "extract -o x.rec.$s: $tool -d differs from the plain output"
		"$P" report -a all -f csv "$tmp/x.rec.$s" > "$tmp/xc.csv" || bad "report of x.rec.$s"
		cmp -s "$tmp/xc.csv" "$tmp/x.csv" || bad "report of x.rec.$s differs from the plain file's"
		"$P" report -a all -f csv -o "$tmp/r.csv.$s" "$tmp/x.rec" || bad "report -o r.csv.$s"
		$tool -d -c "$tmp/r.csv.$s" 2>/dev/null | cmp -s - "$tmp/x.csv" || bad "report -o r.csv.$s: $tool -d differs from the plain report"
	done
	echo "  extract and report -o x.zst / x.gz: $(stat -c %s "$tmp/x.rec") bytes plain, $(stat -c %s "$tmp/x.rec.zst") zstd, $(stat -c %s "$tmp/x.rec.gz") gzip"
else
	bad "x86_64/qemu.elf fixture not available"
fi
# the Valgrind tool writes its own file, plain: a compressed name is refused before it runs
rc=0
"$P" valgrind -o "$tmp/v.rec.zst" -- /bin/true > /dev/null 2> "$tmp/e" || rc=$?
[ "$rc" = 2 ] && [ "$(wc -l < "$tmp/e")" = 1 ] && grep -q "v.rec.zst: the Valgrind tool writes plain records" "$tmp/e" &&
	! ls "$tmp"/v.rec.zst* >/dev/null 2>&1 || bad "valgrind -o v.rec.zst: exit $rc, want 2, one line, nothing written: $(cat "$tmp/e")"
live=${PAGESLEUTH_STATIC:-}
[ -n "$live" ] || live=$(ls "$root"/build/static-host/pagesleuth-live 2>/dev/null | head -1)
if [ -x "$live" ]; then
	rc=0
	"$live" snap --pid $$ -o "$tmp/s.rec.zst" 2> "$tmp/e" || rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l < "$tmp/e")" = 1 ] && grep -q "s.rec.zst: this build (pagesleuth-live) writes no zstd" "$tmp/e" &&
		! ls "$tmp"/s.rec.zst* >/dev/null 2>&1 || bad "pagesleuth-live snap -o s.rec.zst: exit $rc, want 2, one line, nothing written: $(cat "$tmp/e")"
else
	echo "  note: no pagesleuth-live built (make static): its refusal of -o X.zst not checked"
fi
[ $fail = 0 ] && echo "report_compressed: OK"
exit $fail
