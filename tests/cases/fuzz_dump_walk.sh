#!/usr/bin/env bash
# fuzz_dump_walk.sh - a short libFuzzer run (ASan + UBSan) of fuzz/fuzz_dump_walk.c: the walk
# `pagesleuth extract` does, in process, over real fixture dumps (x86_64 kdump -d 31 and arm64
# ELF with the BTF inside them, ppc32 e500 ELF with its profile), with patches over the bytes a
# clean walk read. Any crash, leak, hang, UBSan report or broken invariant (a failure without
# a one-line reason, records that do not read back, a partial walk without a warn record or a
# complete one with one, counts that are not the records', a walk of one process writing
# another, a struct page read beyond max_pfn) fails; so does a run that did not get through
# its seeds (3 dumps x 13 walks). Then the same for the pass over every frame of RAM
# (fuzz/inputs.sh dump-frames: patches over the struct pages of all of RAM, the slab caches,
# what the pass read). PAGESLEUTH_FUZZ_SECONDS (default 5) each. Campaigns:
# fuzz/inputs.sh dump-walk|dump-frames SECONDS.
set -uo pipefail
cd "${PAGESLEUTH_ROOT:-.}" || exit 1
command -v clang >/dev/null || { echo "skip: clang is not installed (make deps)"; exit 77; }
. tests/cases/lib/fixtures.sh
for fd in x86_64:kdump-d31.kdump arm64:qemu.elf ppc32-e500-64pte:qemu.elf; do
	fx_dump "${fd%%:*}" "${fd#*:}" >/dev/null || { echo "skip: fixture dump $fd not available"; exit 77; }
done
export B=${PAGESLEUTH_FUZZ_BUILD:-$PWD/build-fuzz}
out=$(fuzz/inputs.sh dump-walk "${PAGESLEUTH_FUZZ_SECONDS:-5}") || exit 1
echo "$out"
runs=$(echo "$out" | sed -n 's/^dump-walk: \([0-9]*\) runs.*/\1/p')
[ "${runs:-0}" -ge 39 ] || { echo "FAIL: ${runs:-no} runs: the 39 seeds did not all run"; exit 1; }
out=$(fuzz/inputs.sh dump-frames "${PAGESLEUTH_FUZZ_SECONDS:-5}") || exit 1
echo "$out"
runs=$(echo "$out" | sed -n 's/^dump-frames: \([0-9]*\) runs.*/\1/p')
[ "${runs:-0}" -ge 39 ] || { echo "FAIL: ${runs:-no} frame-pass runs: the 39 seeds did not all run"; exit 1; }
