#!/bin/bash
# DWARF and BTF must give the same kernel-facts table. For x86_64-selfbuilt (its DWARF vmlinux
# is committed with it: always) and every Debian fixture whose kernel's -dbg vmlinux (DWARF) is
# in the cache, fill the kinfo table from that vmlinux and from the fixture's committed BTF
# (made from the same build) and require every member, size and enum entry to be identical. Also: the vmlinux's build id equals the guest's VMCOREINFO BUILD-ID
# and its release the ground truth's (so the comparison is of one kernel), and where the
# kernel's System.map is at hand (the -dbg package's, x86_64-selfbuilt's committed one),
# BTF + System.map gives the same symbols as the ELF symbol table. Prints the DWARF fill time
# per kernel.
#
# Builds nothing and downloads nothing. It needs the kinfo_dump tool (tests/tools/kinfo_dump.c,
# $KINFO_DUMP or build/tools/kinfo_dump) or, failing that, a pagesleuth with the `profile`
# command. The -dbg vmlinux files come from scripts/fetch-dbg.sh (cache dbg/<arch>/) or the
# fixtures' own unpacked -dbg packages (cache fixtures/root/<arch>/); a Debian kernel without
# one is left out with a note (extra coverage); x86_64-selfbuilt must always compare.
set -uo pipefail
root=${PAGESLEUTH_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
cache=${PAGESLEUTH_CACHE:-/var/cache/pagesleuth}
cd "$root" || exit 1
. tests/cases/lib/fixtures.sh
fail() { echo "FAIL: $*"; exit 1; }

# The tool: prints a filled table as profile text. dump_kinfo (btf FILE | vmlinux FILE) [MAP]
tool=${KINFO_DUMP:-}
if [ -z "$tool" ]; then
	for c in "$root/build/tools/kinfo_dump" "$(dirname "${PAGESLEUTH_FAST:-/nonexistent/x}")/tools/kinfo_dump"; do
		[ -x "$c" ] && { tool=$c; break; }
	done
fi
pagesleuth=${PAGESLEUTH_FAST:-${PAGESLEUTH:-$root/build/pagesleuth}}
dump_kinfo() { # KIND FILE [SYSTEM_MAP]
	local kind=$1 file=$2 map=${3:-}
	if [ -n "$tool" ]; then
		"$tool" --"$kind" "$file" ${map:+--system-map "$map"} --time
	elif [ "$kind" = btf ]; then
		"$pagesleuth" profile --btf "$file" ${map:+--system-map "$map"} -o -
	else
		"$pagesleuth" profile "$file" ${map:+--system-map "$map"} -o -
	fi
}
if [ -z "$tool" ] && ! "$pagesleuth" profile --help >/dev/null 2>&1; then
	fail "no kinfo_dump (build it: gcc -std=gnu11 -D_GNU_SOURCE -Ilib -Iwalker -O2 -o build/tools/kinfo_dump tests/tools/kinfo_dump.c walker/kinfo.c walker/typeinfo_btf.c walker/typeinfo_dwarf.c walker/profile.c lib/atomic_file.c lib/compress_out.c lib/errmsg.c -ldw -lelf -lbpf -lzstd -lz) and no 'pagesleuth profile' in $pagesleuth"
fi
command -v zstd >/dev/null || fail "zstd not installed"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# Only the table's entries: header lines and symbols differ by design between the two.
entries() { grep -E '^(member|size|enum) ' "$1"; }

compared=0
for fx in x86_64-selfbuilt:amd64 x86_64:amd64 arm64:arm64 armhf:armhf ppc64le:ppc64el; do
	name=${fx%%:*} debarch=${fx##*:}
	data=tests/fixtures/data/$name
	[ -d "$data" ] || continue
	vmlinux= map=
	if [ -f "$data/vmlinux.zst" ]; then # committed with the fixture (x86_64-selfbuilt)
		vmlinux=$(fx_vmlinux "$name") || fail "$name: the committed vmlinux.zst"
		if [ -f "$data/System.map.zst" ]; then
			map=$T/$name.System.map
			zstd -dcq "$data/System.map.zst" >"$map" || fail "$name: cannot decompress $data/System.map.zst"
		fi
	fi
	# The fixture's own kernel release: the cache may hold -dbg packages of other kernels
	# (other suites' fixtures) for the same architecture.
	rel=$(awk '$1 == "kernel_release" { print $2 }' "$data/MANIFEST")
	for v in "$cache"/dbg/"$debarch"/*/vmlinux-"$rel" \
		"$cache"/fixtures/root/"$debarch"/linux-image-*-dbg*/usr/lib/debug/boot/vmlinux-"$rel"; do
		[ -z "$vmlinux" ] && [ -n "$rel" ] && [ -f "$v" ] && { vmlinux=$v; break; }
	done
	if [ -z "$vmlinux" ]; then
		echo "$name: no -dbg vmlinux in $cache (scripts/fetch-dbg.sh --fixture $name): skipped"
		continue
	fi
	btf=$cache/fixtures/unpacked/$name/vmlinux.btf
	if [ ! -s "$btf" ]; then
		btf=$T/$name.btf
		zstd -dcq "$data/vmlinux.btf.zst" >"$btf" || fail "$name: cannot decompress $data/vmlinux.btf.zst"
	fi

	start=$(date +%s.%N)
	dump_kinfo vmlinux "$vmlinux" >"$T/$name.dwarf" 2>"$T/$name.dwarf.err" ||
		fail "$name: DWARF from $vmlinux: $(cat "$T/$name.dwarf.err")"
	end=$(date +%s.%N)
	dump_kinfo btf "$btf" >"$T/$name.btf.txt" 2>"$T/$name.btf.err" ||
		fail "$name: BTF from $btf: $(cat "$T/$name.btf.err")"
	printf '%s: DWARF fill %s s (%s)\n' "$name" "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')" "$(basename "$vmlinux")"

	# The same kernel: build id and release as the guest itself reported them.
	gt=$data/groundtruth.txt
	bid=$(sed -n 's/^build_id //p' "$T/$name.dwarf")
	gt_bid=$(sed -n 's/^BUILD-ID=//p' "$gt" | head -1)
	if [ -n "$gt_bid" ]; then
		[ "$bid" = "$gt_bid" ] || fail "$name: $vmlinux build id $bid, the guest's VMCOREINFO says $gt_bid"
	fi
	rel=$(sed -n 's/^release //p' "$T/$name.dwarf")
	gt_rel=$(sed -n 's/^release //p' "$gt" | head -1)
	[ -z "$gt_rel" ] || [ "$rel" = "$gt_rel" ] || fail "$name: $vmlinux release '$rel', ground truth '$gt_rel'"

	if ! diff <(entries "$T/$name.dwarf") <(entries "$T/$name.btf.txt") >"$T/$name.diff"; then
		echo "$name: DWARF (<) and BTF (>) differ:"
		head -40 "$T/$name.diff"
		fail "$name: DWARF and BTF tables differ"
	fi
	n=$(entries "$T/$name.dwarf" | wc -l)
	[ "$n" -ge 80 ] || fail "$name: only $n entries filled"
	echo "$name: $n entries identical from DWARF and BTF (build id $bid)"

	# Symbols: the kernel's System.map with the BTF equals the ELF symbol table.
	[ -n "$map" ] || map=$(ls "$(dirname "$vmlinux")"/System.map-* 2>/dev/null | head -1)
	if [ -n "$map" ]; then
		dump_kinfo btf "$btf" "$map" >"$T/$name.map.txt" 2>"$T/$name.map.err" ||
			fail "$name: BTF + $map: $(cat "$T/$name.map.err")"
		diff <(grep '^symbol ' "$T/$name.dwarf") <(grep '^symbol ' "$T/$name.map.txt") >"$T/$name.sdiff" ||
			{ cat "$T/$name.sdiff"; fail "$name: System.map and the ELF symbol table differ"; }
		echo "$name: $(grep -c '^symbol ' "$T/$name.dwarf") symbols identical from .symtab and System.map"
	fi
	compared=$((compared + 1))
	[ "$name" != x86_64-selfbuilt ] || selfbuilt=1
done
[ "${selfbuilt:-0}" = 1 ] || fail "x86_64-selfbuilt (committed DWARF vmlinux) not compared"

if [ "$compared" -eq 0 ]; then
	echo "SKIP: no fixture's -dbg vmlinux is in $cache (scripts/fetch-dbg.sh --fixture NAME fetches one)"
	exit 77
fi
echo "typeinfo_dwarf_vs_btf: $compared kernels identical"
