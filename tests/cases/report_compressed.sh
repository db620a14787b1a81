#!/usr/bin/env bash
# Compressed record files are read as they are (analyzer/decompress.c): report, diff and
# db import on .zst and .gz give exactly what they give on the plain file; a truncated or
# corrupt compressed file is one line naming it and the compression (exit 2); a reader that
# stops early (a malformed line near the start of a big file) does not hang the
# decompressing thread.
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
[ $fail = 0 ] && echo "report_compressed: OK"
exit $fail
