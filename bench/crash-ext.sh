#!/usr/bin/env bash
# pagesleuth inside crash (crash-ext/, `extend pagesleuth.so`) on the big benchmark dump, side
# by side with crash's own `foreach vm -p` and `pagesleuth extract`, in one run. Not part of
# the test suite (nothing asserts a time). bench/extract.sh prints the same table within its
# larger comparison; this script is the quick way (~3-5 min) to just this one.
#
#   bench/crash-ext.sh            both x86_64 big dumps (ELF, kdump-zlib)
#   bench/crash-ext.sh kdump      only one of them (elf | kdump)
#
# Inputs: as bench/extract.sh (make bench-dump): ${PAGESLEUTH_CACHE:-/var/cache/pagesleuth}/
# bench/bigdump/{qemu.elf,qemu.kdump}, crash-8.0.6/crash, the kernel's DWARF vmlinux
# (scripts/fetch-dbg.sh). crash 8.0.6 is built for x86_64 only: the arm64 big dump is not read.
# Builds $B/pagesleuth and pagesleuth.so for that crash (make B=$B crash-ext CRASH=...).
#
# Per dump: `pagesleuth extract DUMP -o /dev/null` (best of BENCH_REPS, default 3; BTF from
# the dump), then one crash session (bench/lib.sh crash_session: startup, the first command's
# type lookup, `pagesleuth -o` and `pagesleuth > file` warm, the pfn_status probe, `foreach vm
# -p`, each timed inside the session), then the records check: the extension's -o file and its
# `> file` output must equal extract's records apart from the header's source=.
# Environment: B, BENCH_CPU, BENCH_REPS, CRASH_TIMEOUT, CRASH_EXT_PROBE=1 (the pfn_status probe): see lib.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

dumps=(qemu.elf qemu.kdump)
case ${1:-} in
"") ;;
elf | kdump) dumps=("qemu.$1") ;;
*) echo "usage: bench/crash-ext.sh [elf|kdump]" >&2; exit 2 ;;
esac
for f in "${dumps[@]}" summary.txt; do
	[ -f "$BIG/$f" ] || { echo "bench/crash-ext.sh: $BIG/$f missing: make bench-dump" >&2; exit 2; }
done
[ -x "$CRASH" ] || { echo "bench/crash-ext.sh: no $CRASH: scripts/build-crash.sh (make bench-dump)" >&2; exit 2; }
find_vmlinux
[ -n "$vmlinux" ] || { echo "bench/crash-ext.sh: no DWARF vmlinux for crash" >&2; exit 2; }

say "build ($B)"
make -s B="$B" "$B/pagesleuth" >&2
PS=$B/pagesleuth
crash_ext_build
[ -n "$crash_so" ] || exit 1
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

for d in "${dumps[@]}"; do
	say "pagesleuth extract $d (x$REPS)"
	CE_EXTRACT[$d]=$(best_of "$PS" extract "$BIG/$d" -o /dev/null --stats)
	"$PS" extract "$BIG/$d" -o "$tmp/extract-$d.rec" 2>/dev/null || true
	say "crash session on $d: startup, type info, pagesleuth -o / > file (x$REPS each)," \
		"probe, foreach vm -p (limit ${CRASH_TIMEOUT}s)"
	crash_session "$d" "$BIG/$d" || { CE_SAME[$d]="crash does not start"; continue; }
	CE_SAME[$d]=$(ce_check "$d" "$tmp/extract-$d.rec")
	say "  $(awk '$1 != "LAST" { printf "%s %s s; ", $1, $2 }' "${CS_DIR[$d]}/deltas")"
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

crash_ext_table
cat <<EOF

Dump: $BIG (2.5 GiB x86_64 guest, 118 workload processes). Machine: $(nproc) CPUs
($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)), shared; load average $load_before before, $load_after after.
EOF
