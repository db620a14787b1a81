# shellcheck shell=bash
# fixtures.sh - shared shell helpers for the cases that read kernel-dump fixtures.
# Source it from a case script (bash) run from the repo root:  . tests/cases/lib/fixtures.sh
#
#   fx_dump FIXTURE FILE     path of the decompressed dump (qemu.elf, kdump-d1.kdump, ...),
#                            decompressed once into the cache as fixtures_selfcheck.sh does:
#                            <cache>/fixtures/unpacked/FIXTURE/FILE with FILE.ok holding the
#                            MANIFEST's raw_sha256 (the same stamp, so either reuses the other's);
#                            a dump with patch_from=FX/FILE:N was compressed against the first N
#                            bytes of FX's FILE (zstd --patch-from): fx_patch_ref makes that
#   fx_btf FIXTURE           path of the decompressed committed vmlinux.btf
#   fx_vmlinux FIXTURE       path of the decompressed committed DWARF vmlinux (vmlinux.zst of a
#                            self-built kernel: x86_64-selfbuilt), checked against the MANIFEST's
#                            vmlinux_raw_size line's sha256; fails (1) for a fixture without one
#   fx_gtcheck DIR           builds tests/tools/gtcheck into DIR/gtcheck (echoes the path)
#   fx_groundtruth FIXTURE DIR   tests/tools/gt2check.py's files for FIXTURE in DIR
#   fx_sanitizer_report FILE     true if FILE holds an ASan/UBSan/LeakSanitizer report
#   fx_now                   seconds since the epoch with milliseconds (for timings)
# Every function prints its own one-line reason on failure and returns non-zero.

FX_ROOT=${PAGESLEUTH_ROOT:-$(pwd)}
FX_DATA=$FX_ROOT/tests/fixtures/data
FX_CACHE=${PAGESLEUTH_CACHE:-/var/cache/pagesleuth}/fixtures/unpacked
if ! { mkdir -p "$FX_CACHE" 2>/dev/null && [ -w "$FX_CACHE" ]; }; then
	FX_CACHE=${TMPDIR:-/tmp}/pagesleuth-fixtures-unpacked # as fixtures_selfcheck.sh
	mkdir -p "$FX_CACHE"
fi

# fx_manifest_field FIXTURE FILE KEY: KEY=value of FILE.zst's dump line in FIXTURE's MANIFEST.
fx_manifest_field() {
	awk -v f="$2.zst" -v k="$3=" '$1 == "dump" && $3 == f {
		for (i = 4; i <= NF; i++) if (index($i, k) == 1) print substr($i, length(k) + 1) }' \
		"$FX_DATA/$1/MANIFEST"
}

# fx_patch_ref FIXTURE FILE OUT: the --patch-from reference of a dump (nothing to do if none).
fx_patch_ref() {
	local pf want src
	pf=$(fx_manifest_field "$1" "$2" patch_from)
	[ -n "$pf" ] || return 0
	want=$(fx_manifest_field "$1" "$2" patch_from_sha256)
	src=$(fx_dump "${pf%%/*}" "$(basename "${pf%:*}")") || return 1
	head -c "${pf##*:}" "$src" >"$3"
	[ "$(sha256sum "$3" | cut -d' ' -f1)" = "$want" ] ||
		{ echo "fx_dump: $1/$2 was compressed against $pf, which changed since: regenerate $1" >&2; return 1; }
}

fx_dump() { # FIXTURE FILE
	local name=$1 file=$2 man sum raw ref pf_arg=()
	man=$FX_DATA/$name/MANIFEST
	[ -f "$man" ] || { echo "fx_dump: $man: no such fixture" >&2; return 1; }
	sum=$(fx_manifest_field "$name" "$file" raw_sha256)
	[ -n "$sum" ] || { echo "fx_dump: $name: $file.zst is not a dump in its MANIFEST" >&2; return 1; }
	raw=$FX_CACHE/$name/$file
	if [ "$(cat "$raw.ok" 2>/dev/null)" != "$sum" ] || [ ! -f "$raw" ]; then
		command -v zstd >/dev/null || { echo "fx_dump: zstd not installed" >&2; return 1; }
		mkdir -p "$FX_CACHE/$name"
		rm -f "$raw.ok"
		ref=$raw.ref$$
		fx_patch_ref "$name" "$file" "$ref" || { rm -f "$ref"; return 1; }
		# --long=31: a --patch-from frame's window spans the whole dump.
		[ -f "$ref" ] && pf_arg=(--patch-from="$ref")
		zstd -q -d --long=31 -f "${pf_arg[@]}" "$FX_DATA/$name/$file.zst" -o "$raw.tmp$$" ||
			{ rm -f "$raw.tmp$$" "$ref"; echo "fx_dump: $name/$file.zst does not decompress" >&2; return 1; }
		rm -f "$ref"
		[ "$(sha256sum "$raw.tmp$$" | cut -d' ' -f1)" = "$sum" ] ||
			{ rm -f "$raw.tmp$$"; echo "fx_dump: $name/$file: sha256 differs from the MANIFEST" >&2; return 1; }
		mv -f "$raw.tmp$$" "$raw"
		echo "$sum" > "$raw.ok"
	fi
	echo "$raw"
}

fx_btf() { # FIXTURE
	local name=$1 out
	out=$FX_CACHE/$name/vmlinux.btf
	if [ ! -s "$out" ] || [ "$FX_DATA/$name/vmlinux.btf.zst" -nt "$out" ]; then
		mkdir -p "$FX_CACHE/$name"
		zstd -q -d -f "$FX_DATA/$name/vmlinux.btf.zst" -o "$out.tmp$$" &&
			mv -f "$out.tmp$$" "$out" ||
			{ rm -f "$out.tmp$$"; echo "fx_btf: $name/vmlinux.btf.zst does not decompress" >&2; return 1; }
	fi
	echo "$out"
}

fx_vmlinux() { # FIXTURE
	local name=$1 out sum
	out=$FX_CACHE/$name/vmlinux
	sum=$(awk '$1 == "vmlinux_raw_size" { print $4 }' "$FX_DATA/$name/MANIFEST" 2>/dev/null)
	[ -n "$sum" ] && [ -f "$FX_DATA/$name/vmlinux.zst" ] ||
		{ echo "fx_vmlinux: $name has no committed vmlinux (vmlinux.zst, MANIFEST vmlinux_raw_size)" >&2; return 1; }
	if [ "$(cat "$out.ok" 2>/dev/null)" != "$sum" ] || [ ! -f "$out" ]; then
		mkdir -p "$FX_CACHE/$name"
		rm -f "$out.ok"
		zstd -q -d -f "$FX_DATA/$name/vmlinux.zst" -o "$out.tmp$$" ||
			{ rm -f "$out.tmp$$"; echo "fx_vmlinux: $name/vmlinux.zst does not decompress" >&2; return 1; }
		[ "$(sha256sum "$out.tmp$$" | cut -d' ' -f1)" = "$sum" ] ||
			{ rm -f "$out.tmp$$"; echo "fx_vmlinux: $name/vmlinux: sha256 differs from the MANIFEST" >&2; return 1; }
		mv -f "$out.tmp$$" "$out"
		echo "$sum" >"$out.ok"
	fi
	echo "$out"
}

fx_gtcheck() { # DIR
	local cflags="-std=gnu11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Wshadow -Wformat=2 -Wno-format-nonliteral"
	# shellcheck disable=SC2086
	${CC:-cc} $cflags -I"$FX_ROOT/lib" -o "$1/gtcheck" "$FX_ROOT/tests/tools/gtcheck.c" \
		"$FX_ROOT"/lib/*.c -lzstd -lz -lm || { echo "fx_gtcheck: gtcheck does not build" >&2; return 1; }
	echo "$1/gtcheck"
}

fx_groundtruth() { # FIXTURE DIR
	python3 "$FX_ROOT/tests/tools/gt2check.py" "$FX_DATA/$1/groundtruth.txt" "$2"
}

fx_sanitizer_report() { # FILE
	grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: (Address|Undefined|Leak)' "$1"
}

fx_now() { date +%s.%3N; }
fx_elapsed() { awk -v a="$1" -v b="$(fx_now)" 'BEGIN { printf "%.1f", b - a }'; }
