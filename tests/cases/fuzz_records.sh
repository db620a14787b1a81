#!/usr/bin/env bash
# A short libFuzzer run of the record reader (ASan + UBSan) on the committed seed corpus:
# any crash, leak, hang or UBSan report fails. Longer runs: fuzz/run.sh SECONDS.
set -euo pipefail
command -v clang >/dev/null || { echo "skip: clang is not installed (make deps)"; exit 77; }
B=${PAGESLEUTH_FUZZ_BUILD:-$PWD/build-fuzz} exec fuzz/run.sh "${PAGESLEUTH_FUZZ_SECONDS:-20}"
