#!/usr/bin/env bash
# bench/startup.sh [COMMIT] - the fixed cost of an extraction (`extract -p 1` user pages
# only: open, VMCOREINFO, kallsyms, type information, the task list, one small process) in
# instructions, counted by Valgrind's callgrind. Wall time on a shared VM swings by 50 %
# from run to run (bench/extract.sh reports it, best of 3); the instruction count does not
# move, so it shows what a change to the start-up saved whatever the machine's load.
#
#   bench/startup.sh            this checkout, on the bench dumps (make bench-dump) and on
#                               the committed fixtures' dumps that exist in the cache
#   bench/startup.sh COMMIT     the same for COMMIT too (built in a temporary worktree), side
#                               by side
# Prints one markdown table. Not part of the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${B:-/tmp/bench-build}
CACHE=${PAGESLEUTH_CACHE:-/var/cache/pagesleuth}
base=${1:-}
say() { echo "== $*" >&2; }
command -v valgrind >/dev/null || { echo "bench/startup.sh: valgrind is not installed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; [ -n "$base" ] && git worktree remove --force "$tmp/base" 2>/dev/null || true' EXIT

say "build ($B)"
make -s B="$B" "$B/pagesleuth" >&2
bins=("$B/pagesleuth")
names=("this checkout ($(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . || echo +))")
if [ -n "$base" ]; then
	say "build $base"
	git worktree add -q --detach "$tmp/base" "$base" >&2
	make -s -C "$tmp/base" B="$tmp/base-build" "$tmp/base-build/pagesleuth" >&2
	bins=("$tmp/base-build/pagesleuth" "${bins[@]}")
	names=("$(git rev-parse --short "$base")" "${names[@]}")
fi

dumps=()
for d in bench/bigdump/qemu.elf bench/bigdump/qemu.kdump fixtures/unpacked/x86_64/qemu.elf \
	fixtures/unpacked/x86_64/kdump-d31.kdump fixtures/unpacked/arm64/qemu.elf \
	fixtures/unpacked/ppc32-e500-64pte/qemu-kdump-zlib.kdump; do
	[ -f "$CACHE/$d" ] && dumps+=("$CACHE/$d")
done
[ ${#dumps[@]} -gt 0 ] || { echo "bench/startup.sh: no dump in $CACHE (make bench-dump, or the fixtures)" >&2; exit 1; }

# instructions BIN DUMP: callgrind's instruction count of one extract -p 1 (type information:
# the dump's BTF, else the fixture's detached BTF)
instructions() {
	local bin=$1 dump=$2 args=()
	local btf
	btf=$(dirname "$dump")/vmlinux.btf
	if ! "$bin" extract "$dump" -p 1 --no-frames --no-counters --no-log -o /dev/null 2>/dev/null && [ -f "$btf" ]; then
		args=(--btf "$btf")
	fi
	valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$bin" extract "$dump" -p 1 \
		--no-frames --no-counters --no-log "${args[@]}" -o /dev/null 2>"$tmp/err" >/dev/null || true
	sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' "$tmp/err" | tail -1
}

printf '| dump |'; for n in "${names[@]}"; do printf ' %s |' "$n"; done
[ -n "$base" ] && printf ' change |'
printf '\n|---|'; for _ in "${names[@]}"; do printf -- '---|'; done
[ -n "$base" ] && printf -- '---|'
printf '\n'
for d in "${dumps[@]}"; do
	say "$d"
	printf '| %s |' "${d#"$CACHE"/}"
	counts=()
	for b in "${bins[@]}"; do
		n=$(instructions "$b" "$d")
		counts+=("$n")
		awk -v n="$n" 'BEGIN { printf " %.1f M |", n / 1e6 }'
	done
	[ -n "$base" ] && awk -v a="${counts[0]}" -v b="${counts[1]}" 'BEGIN { printf " %+.0f %% |", (b - a) * 100 / a }'
	printf '\n'
done
