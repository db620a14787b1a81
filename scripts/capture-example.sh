#!/usr/bin/env bash
# Regenerate examples/debian12-live.rec.zst: a live snapshot of every process of this
# machine that root can read (in this sandbox pid 1 refuses even root), retried until no
# process exits during the capture, so the example is complete.
set -euo pipefail
cd "$(dirname "$0")/.."
make -s build/pagesleuth
for try in $(seq 10); do
	args=()
	for d in /proc/[0-9]*; do
		head -c1 "$d/maps" >/dev/null 2>&1 && [ -n "$(head -c1 "$d/maps" 2>/dev/null)" ] &&
			args+=(--pid "${d#/proc/}")
	done
	if build/pagesleuth snap "${args[@]}" -o examples/debian12-live.rec; then
		zstd -q -19 -f --rm examples/debian12-live.rec -o examples/debian12-live.rec.zst
		echo "captured $(( ${#args[@]} / 2 )) processes"
		exit 0
	fi
	sleep 1
done
echo "capture-example: every attempt was partial" >&2
exit 1
