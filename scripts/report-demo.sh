#!/usr/bin/env bash
# The README's main job: set up, build, read a bundled real kernel dump, and report on it.
# The dump is the x86_64 fixture's real kdump (makedumpfile -d 1, taken by the capture kernel
# after a panic, Debian's 6.1 kernel): no vmlinux needed, the type information is the BTF
# inside the dump. The live snapshot in examples/ is reported too, as a second system.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh build
make -s -j"$(nproc)" build/pagesleuth
mkdir -p out
dump=out/x86_64-kdump-d1.kdump
if [ ! -s "$dump" ]; then
	zstd -q -d --long=27 -f tests/fixtures/data/x86_64/kdump-d1.kdump.zst -o "$dump.tmp"
	mv "$dump.tmp" "$dump"
fi
build/pagesleuth extract "$dump" -o out/dump.rec --stats
rc=0
build/pagesleuth report -a all --html out/report.html --svg out/svg -o out/report.txt out/dump.rec || rc=$?
# 1 = the records are partial: the report is written and says why; anything else failed.
[ "$rc" -le 1 ] || exit "$rc"
zstd -q -d -f examples/debian12-live.rec.zst -o out/live-example.rec
rc=0
build/pagesleuth report -o out/live-report.txt out/live-example.rec || rc=$?
[ "$rc" -le 1 ] || exit "$rc"
cat out/report.txt
echo
echo "dump records: out/dump.rec; report: out/report.txt, out/report.html (charts and resident maps), out/svg/"
echo "live example: out/live-report.txt (a snapshot of a running Debian 12 machine, examples/README.md)"
