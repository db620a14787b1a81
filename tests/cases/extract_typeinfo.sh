#!/usr/bin/env bash
# extract_typeinfo.sh - the type-information sources give identical records. For the x86_64
# and arm64 QEMU ELF dumps:
#   (a) no option: BTF found in the dump;
#   (b) --vmlinux: the DWARF vmlinux of Debian's -dbg package for that exact kernel
#       (scripts/fetch-dbg.sh: downloaded once, only the vmlinux kept, cached);
#   (c) --profile written by `pagesleuth profile VMLINUX`, and
#   (d) --profile written by `pagesleuth profile --btf` from the committed BTF (no symbols:
#       those come from the dump);
# must write byte-identical records. The header may differ only in keys that name the type
# source (TYPEKEYS below; stripped before comparing, and listed in the output). Also
# `profile VMLINUX` runs under ASan (the DWARF reader), and the download and --vmlinux times
# are printed. Skips (77) if a -dbg package left Debian's archive or the archive is
# unreachable, after running what it can.
set -uo pipefail
cd "${PAGESLEUTH_ROOT:-.}" || exit 1
. tests/cases/lib/fixtures.sh
ASAN=${PAGESLEUTH:-build-asan/pagesleuth}
FAST=${PAGESLEUTH_FAST:-build/pagesleuth}
[ -x "$FAST" ] || FAST=$ASAN
[ -x "$FAST" ] || { echo "FAIL: no pagesleuth binary"; exit 1; }
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Header keys allowed to differ between the sources: they say which source was used.
TYPEKEYS='^(typeinfo|types|type_source|kinfo)='
T=$(mktemp -d "${TMPDIR:-/tmp}/extract_typeinfo.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0 skipped=""
bad() { echo "FAIL: $*"; fail=1; }

# run NAME CMD...: runs, times, fails on a non-zero exit or a sanitizer report.
run() {
	local name=$1 t0 rc
	shift
	t0=$(fx_now)
	"$@" >"$T/$name.out" 2>"$T/$name.err"
	rc=$?
	echo "  $name: exit $rc in $(fx_elapsed "$t0") s"
	if fx_sanitizer_report "$T/$name.err"; then
		bad "$name: sanitizer report"; head -30 "$T/$name.err"; return 1
	fi
	[ $rc -eq 0 ] || { bad "$name: exit $rc: $(head -3 "$T/$name.err")"; return 1; }
}

# Records without the header keys that name the type source.
normal() {
	awk -v re="$TYPEKEYS" 'NR == 2 && $1 == "header" {
		line = $1; for (i = 2; i <= NF; i++) if ($i !~ re) line = line " " $i; print line; next } { print }' "$1"
}

for fx in x86_64 arm64; do
	echo "== $fx"
	dump=$(fx_dump "$fx" qemu.elf) || { bad "$fx: qemu.elf not available"; continue; }
	btf=$(fx_btf "$fx") || { bad "$fx: BTF not available"; continue; }
	t0=$(fx_now)
	vmlinux=$(scripts/fetch-dbg.sh --fixture "$fx" 2>"$T/fetch.$fx.err")
	rc=$?
	echo "  fetch-dbg: exit $rc in $(fx_elapsed "$t0") s: $(tail -1 "$T/fetch.$fx.err")"
	if [ $rc -eq 3 ]; then
		skipped="$skipped $fx"
	elif [ $rc -ne 0 ]; then
		bad "$fx: scripts/fetch-dbg.sh failed: $(tail -1 "$T/fetch.$fx.err")"
	fi

	# Every way is run even when one fails; the first that worked is the reference.
	run "$fx.btf-in-dump" "$FAST" extract "$dump" -o "$T/$fx.a.rec" || rm -f "$T/$fx.a.rec"
	run "$fx.profile-btf" "$FAST" profile --btf "$btf" -o "$T/$fx.btf.profile" &&
		{ run "$fx.extract-profile-btf" "$FAST" extract "$dump" --profile "$T/$fx.btf.profile" -o "$T/$fx.d.rec" ||
			rm -f "$T/$fx.d.rec"; }
	if [ $rc -eq 0 ]; then
		run "$fx.extract-vmlinux" "$FAST" extract "$dump" --vmlinux "$vmlinux" -o "$T/$fx.b.rec" || rm -f "$T/$fx.b.rec"
		run "$fx.profile-vmlinux(asan)" "$ASAN" profile "$vmlinux" -o "$T/$fx.vmlinux.profile" &&
			{ run "$fx.extract-profile-vmlinux" "$FAST" extract "$dump" --profile "$T/$fx.vmlinux.profile" -o "$T/$fx.c.rec" ||
				rm -f "$T/$fx.c.rec"; }
	fi
	ref="" refwhat=""
	for v in a:"BTF from the dump" b:--vmlinux c:"--profile (from vmlinux)" d:"--profile (from BTF)"; do
		x=${v%%:*} what=${v#*:}
		[ -f "$T/$fx.$x.rec" ] || continue
		if [ -z "$ref" ]; then
			ref=$T/$fx.$x.rec refwhat=$what
			normal "$ref" >"$ref.norm"
			echo "  reference: $what ($(stat -c %s "$ref") bytes, $(grep -c '^[mx] ' "$ref") m/x lines)"
		elif cmp -s "$ref" "$T/$fx.$x.rec"; then
			echo "  $what: byte-identical to $refwhat"
		elif normal "$T/$fx.$x.rec" | cmp -s - "$ref.norm"; then
			echo "  $what: identical to $refwhat but for the header's type-source key:"
			diff <(sed -n 2p "$ref" | tr ' ' '\n') <(sed -n 2p "$T/$fx.$x.rec" | tr ' ' '\n') |
				grep '^[<>]' | sed 's/^/      /'
		else
			bad "$fx: $what differs from $refwhat:"
			diff "$ref" "$T/$fx.$x.rec" | head -20 | sed 's/^/    /'
		fi
	done
	[ -n "$ref" ] || bad "$fx: no way of giving type information worked"
done
[ $fail -eq 0 ] || exit 1
if [ -n "$skipped" ]; then
	echo "skip: the -dbg package for$skipped is not available (see fetch-dbg above); --vmlinux not compared there"
	exit 77
fi
echo "extract_typeinfo: OK"
