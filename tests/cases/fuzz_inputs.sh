#!/usr/bin/env bash
# fuzz_inputs.sh - a short libFuzzer run (ASan + UBSan) of each small input kind a user hands
# over (fuzz/inputs.sh): allocation rules files, Lackey traces, type-information profiles,
# System.map files, BTF, and the first MiB (headers, notes, bitmaps, descriptors) of real
# fixture dumps. Any crash, leak, hang (10 s per input), UBSan report or broken
# invariant (a refusal that is not one printable line, a profile that does not survive being
# printed and read back, lackey records that do not read back) fails.
# PAGESLEUTH_FUZZ_SECONDS per kind (default 10). Long campaigns: make fuzz-inputs SECONDS=N.
set -uo pipefail
cd "${PAGESLEUTH_ROOT:-.}" || exit 1
command -v clang >/dev/null || { echo "skip: clang is not installed (make deps)"; exit 77; }
secs=${PAGESLEUTH_FUZZ_SECONDS:-10}
export B=${PAGESLEUTH_FUZZ_BUILD:-$PWD/build-fuzz}
fail=0
for kind in rules lackey profile sysmap btf dump-headers; do
	fuzz/inputs.sh "$kind" "$secs" || fail=1
done
exit $fail
