#!/usr/bin/env bash
# The README's main job: set up, build, and report on a bundled real record file.
# Until the kernel-dump reader lands, the bundled records are a live snapshot of a real
# Debian machine (examples/README.md says how it was captured).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
make -s -j"$(nproc)" build/pagesleuth
mkdir -p out
records=out/example.rec
zstd -q -d -f examples/debian12-live.rec.zst -o "$records"
rc=0
build/pagesleuth report -a all --html out/report.html --svg out/svg -o out/report.txt "$records" || rc=$?
# 1 = the records are partial: the report is written and says why; anything else failed.
[ "$rc" -le 1 ] || exit "$rc"
cat out/report.txt
echo
echo "report: out/report.txt, out/report.html (charts and resident maps), out/svg/"
