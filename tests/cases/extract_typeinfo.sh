#!/usr/bin/env bash
# extract_typeinfo.sh - the type-information sources give identical records, on the QEMU ELF
# dump of every architecture's fixture (x86_64, x86_64-selfbuilt, arm64, ppc64le, armhf, ppc32
# e500 with 64- and with 32-bit PTEs; the e500 one also built from linux-source-5.10 and -6.12).
# The ways, each run when it can be:
#   (a) BTF: found in the dump (x86_64, x86_64-selfbuilt, arm64); the committed detached BTF with --btf for
#       the kernels built without it (ppc64le, armhf: pahole from the -dbg package; ppc32:
#       pahole from the build), plus --system-map for ppc64le (its kallsyms has no data
#       symbols and the dump has no VMCOREINFO symbols for them);
#   (b) --vmlinux: the DWARF vmlinux: x86_64-selfbuilt's, committed with it (vmlinux.zst: no
#       download; this fixture must compare a, b, c and d); Debian's -dbg package for the
#       Debian kernels (scripts/fetch-dbg.sh: downloaded once, only the vmlinux kept, cached;
#       extra coverage: when it cannot be had, a note); the ppc32 kernels' own build when this
#       machine's cache has it (tests/fixtures/scripts/build-ppc32.sh; its build ID must be
#       the fixture's);
#   (c) --profile written by `pagesleuth profile VMLINUX` (under ASan: the DWARF reader);
#   (d) --profile written by `pagesleuth profile --btf` from the committed BTF (no symbols:
#       those come from the dump; ppc64le's from --system-map);
#   (e) ppc32 only: --profile data/FIXTURE/vmlinux.profile.zst, the DWARF profile committed
#       by tests/fixtures/typeinfo/dwarf-profile.sh, so that a machine without the ppc32
#       build still compares DWARF-derived facts with the BTF (and with the build, the
#       regenerated profile must say the same as the committed one);
# must write byte-identical records. The header may differ only in keys that name the type
# source (TYPEKEYS below; stripped before comparing, and listed in the output). Each fixture
# must have at least two ways compared, and says which; a summary table ends the output.
# The download (fetch-dbg) and extraction times are printed. A -dbg package that left Debian's
# archive, or an archive that cannot be reached, is a note (that fixture's b and c not run),
# never a failure or a skip: the DWARF reader is held to x86_64-selfbuilt's committed vmlinux.
set -uo pipefail
cd "${PAGESLEUTH_ROOT:-.}" || exit 1
. tests/cases/lib/fixtures.sh
ASAN=${PAGESLEUTH:-build-asan/pagesleuth}
FAST=${PAGESLEUTH_FAST:-build/pagesleuth}
[ -x "$FAST" ] || FAST=$ASAN
[ -x "$FAST" ] || { echo "FAIL: no pagesleuth binary"; exit 1; }
[ -x "$ASAN" ] || ASAN=$FAST
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
CACHE=${PAGESLEUTH_CACHE:-/var/cache/pagesleuth}
# Header keys allowed to differ between the sources: they say which source was used.
TYPEKEYS='^(typeinfo|types|type_source|kinfo)='
T=$(mktemp -d "${TMPDIR:-/tmp}/extract_typeinfo.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0 skipped="" summary=""
bad() { echo "FAIL: $*"; fail=1; }
t_start=$(fx_now)

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

# Records without the header keys that name the type source, and without what needs the
# kernel's data symbols (vmstat_text, vm_zone_stat, slab_caches, the vmap areas ...), which a
# vmlinux has and BTF-only ways find only in kallsyms with CONFIG_KALLSYMS_ALL: the counters,
# the slab records and the frames (vmalloc frames are "kernel" without the vmap areas).
# Where two ways both have those symbols, those records must be identical too
# (counters_agree below).
normal() {
	awk -v re="$TYPEKEYS" 'NR == 2 && $1 == "header" {
		line = $1; for (i = 2; i <= NF; i++) if ($i !~ re) line = line " " $i; print line; next }
		$1 != "counter" && $1 != "slab" && $1 != "f" && $1 != "owner" { print }' "$1"
}
# counters_agree REF OTHER: when both ways have the kernel's data symbols (counter records),
# their counter, slab, f and owner records are identical; when one lacks them, the counter
# records it has (a profile made before a fact was added to walker/kinfo.h, as the committed
# ppc32 DWARF profiles, lacks the vmstat part lengths) are among the other's.
counters_agree() {
	local a b
	a=$(grep '^counter ' "$1" | sort) b=$(grep '^counter ' "$2" | sort)
	if [ -n "$a" ] && [ -n "$b" ] && [ "$(echo "$a" | wc -l)" = "$(echo "$b" | wc -l)" ]; then
		cmp -s <(grep '^counter \|^slab \|^f \|^owner ' "$1") <(grep '^counter \|^slab \|^f \|^owner ' "$2")
		return
	fi
	[ -z "$(comm -23 <(echo "$a") <(echo "$b"))" ] || [ -z "$(comm -13 <(echo "$a") <(echo "$b"))" ]
}

# The DWARF vmlinux of FIXTURE on stdout; exit 0, 3 (not available: skip that way), 1.
vmlinux_of() {
	local fx=$1 v
	case $fx in
	x86_64-selfbuilt)
		v=$(fx_vmlinux "$fx") || return 1
		echo "committed $fx/vmlinux.zst -> $v" >&2
		echo "$v"
		;;
	ppc32-*)
		v=$CACHE/fixtures/ppc32/build-${fx#ppc32-}/vmlinux
		if [ ! -f "$v" ]; then
			echo "no $v on this machine (tests/fixtures/scripts/build-ppc32.sh ${fx#ppc32-} builds it)" >&2
			return 3
		fi
		echo "self-built $v" >&2
		echo "$v"
		;;
	*) scripts/fetch-dbg.sh --fixture "$fx" ;;
	esac
}

for fx in x86_64 x86_64-selfbuilt arm64 ppc64le armhf ppc32-e500-64pte ppc32-mpc8544ds-32pte ppc32-e500-64pte-bullseye \
	ppc32-e500-64pte-trixie; do
	echo "== $fx"
	dump=$(fx_dump "$fx" qemu.elf) || { bad "$fx: qemu.elf not available"; continue; }
	btf=$(fx_btf "$fx") || { bad "$fx: BTF not available"; continue; }
	build_id=$(sed -n 's/^BUILD-ID=//p' "tests/fixtures/data/$fx/groundtruth.txt" | head -1)
	# (a)'s options, and what `profile --btf` needs besides the BTF.
	case $fx in
	x86_64 | x86_64-selfbuilt | arm64) btf_way=(); btf_what="BTF from the dump"; pbtf=() ;;
	ppc64le)
		zstd -q -dc "tests/fixtures/data/$fx/System.map.zst" >"$T/$fx.System.map" ||
			{ bad "$fx: System.map.zst does not decompress"; continue; }
		btf_way=(--btf "$btf" --system-map "$T/$fx.System.map")
		btf_what="--btf (detached) --system-map"
		pbtf=(--system-map "$T/$fx.System.map") ;;
	*) btf_way=(--btf "$btf"); btf_what="--btf (detached)"; pbtf=() ;;
	esac
	t0=$(fx_now)
	vmlinux=$(vmlinux_of "$fx" 2>"$T/fetch.$fx.err")
	rc=$?
	echo "  vmlinux: exit $rc in $(fx_elapsed "$t0") s: $(tail -1 "$T/fetch.$fx.err")"
	if [ $rc -eq 3 ]; then
		case $fx in ppc32-*) ;; *) skipped="$skipped $fx" ;; esac
	elif [ $rc -ne 0 ]; then
		bad "$fx: the DWARF vmlinux: $(tail -1 "$T/fetch.$fx.err")"
	fi

	# Every way is run even when one fails; the first that worked is the reference.
	rm -f "$T/$fx".?.rec
	run "$fx.a.btf" "$FAST" extract "$dump" "${btf_way[@]}" -o "$T/$fx.a.rec" || rm -f "$T/$fx.a.rec"
	run "$fx.profile-btf" "$FAST" profile --btf "$btf" "${pbtf[@]}" -o "$T/$fx.btf.profile" &&
		{ run "$fx.d.extract-profile-btf" "$FAST" extract "$dump" --profile "$T/$fx.btf.profile" -o "$T/$fx.d.rec" ||
			rm -f "$T/$fx.d.rec"; }
	if [ $rc -eq 0 ]; then
		if run "$fx.profile-vmlinux(asan)" "$ASAN" profile "$vmlinux" -o "$T/$fx.vmlinux.profile"; then
			got=$(sed -n 's/^build_id //p' "$T/$fx.vmlinux.profile")
			if [ -n "$build_id" ] && [ "$got" != "$build_id" ]; then
				# Another build of the kernel (the ppc32 cache rebuilt since): not the
				# fixture's DWARF, so not compared.
				echo "  NOTE: $vmlinux has build ID $got, the fixture's kernel $build_id: DWARF not compared"
				rc=3
			else
				run "$fx.c.extract-profile-vmlinux" "$FAST" extract "$dump" --profile "$T/$fx.vmlinux.profile" \
					-o "$T/$fx.c.rec" || rm -f "$T/$fx.c.rec"
			fi
		fi
		[ $rc -eq 0 ] &&
			{ run "$fx.b.extract-vmlinux" "$FAST" extract "$dump" --vmlinux "$vmlinux" -o "$T/$fx.b.rec" ||
				rm -f "$T/$fx.b.rec"; }
	fi
	committed=tests/fixtures/data/$fx/vmlinux.profile.zst
	case $fx in
	ppc32-*)
		if [ ! -f "$committed" ]; then
			bad "$fx: $committed missing (tests/fixtures/typeinfo/dwarf-profile.sh $fx makes it)"
		elif zstd -q -dc "$committed" >"$T/$fx.committed.profile"; then
			run "$fx.e.extract-profile-committed" "$FAST" extract "$dump" --profile "$T/$fx.committed.profile" \
				-o "$T/$fx.e.rec" || rm -f "$T/$fx.e.rec"
			# With the build at hand, the committed profile must be what it makes now.
			if [ -f "$T/$fx.c.rec" ]; then
				if cmp -s "$T/$fx.committed.profile" "$T/$fx.vmlinux.profile"; then
					echo "  committed profile: identical to the one made from the build's vmlinux now"
				else
					bad "$fx: $committed differs from \`profile VMLINUX\` now (walker/kinfo.h changed?" \
						"regenerate: tests/fixtures/typeinfo/dwarf-profile.sh $fx):"
					diff "$T/$fx.committed.profile" "$T/$fx.vmlinux.profile" | head -10 | sed 's/^/    /'
				fi
			fi
		else
			bad "$fx: $committed does not decompress"
		fi ;;
	esac

	ref="" refwhat="" ncmp=0 ways=""
	for v in a:"$btf_what" b:--vmlinux c:"--profile (from vmlinux)" d:"--profile (from BTF)" \
		e:"--profile (committed, from DWARF)"; do
		x=${v%%:*} what=${v#*:}
		[ -f "$T/$fx.$x.rec" ] || continue
		if [ -z "$ref" ]; then
			ref=$T/$fx.$x.rec refwhat=$what ncmp=1 ways=$x
			normal "$ref" >"$ref.norm"
			echo "  reference: $what ($(wc -l <"$ref") lines, $(grep -c '^[mx] ' "$ref") m/x lines)"
		elif cmp -s "$ref" "$T/$fx.$x.rec"; then
			echo "  $what: byte-identical to $refwhat"
			ncmp=$((ncmp + 1)) ways="$ways,$x"
		elif [ "$x" = e ] && cmp -s <(normal "$T/$fx.$x.rec") "$ref.norm"; then
			# The committed DWARF profiles predate the facts of the pass over all of RAM
			# (vmap areas, address_space.host, slab_cache, kmem_cache ...: walker/kinfo.h):
			# their f, owner and slab records say less. Regenerated from the ppc32 build
			# (above), they match.
			echo "  $what: identical to $refwhat but for the f/owner/slab records and counters of" \
				"facts this older profile lacks ($(grep -c '^owner ' "$T/$fx.$x.rec") and" \
				"$(grep -c '^owner ' "$ref") owners)"
			ncmp=$((ncmp + 1)) ways="$ways,$x"
		elif normal "$T/$fx.$x.rec" | cmp -s - "$ref.norm" && counters_agree "$ref" "$T/$fx.$x.rec"; then
			echo "  $what: identical to $refwhat but for the header's type-source key or the" \
				"kernel counters one of them lacks ($(grep -c '^counter ' "$ref") and" \
				"$(grep -c '^counter ' "$T/$fx.$x.rec") counter lines):"
			diff <(sed -n 2p "$ref" | tr ' ' '\n') <(sed -n 2p "$T/$fx.$x.rec" | tr ' ' '\n') |
				grep '^[<>]' | sed 's/^/      /'
			ncmp=$((ncmp + 1)) ways="$ways,$x"
		else
			bad "$fx: $what differs from $refwhat:"
			diff "$ref.norm" <(normal "$T/$fx.$x.rec") | head -20 | sed "s/^/    /"
		fi
	done
	if [ -z "$ref" ]; then
		bad "$fx: no way of giving type information worked"
	elif [ $ncmp -lt 2 ]; then
		bad "$fx: only one way ($refwhat) worked: nothing compared"
	fi
	# The fixture whose DWARF vmlinux is committed: the DWARF ways always run there.
	[ "$fx" != x86_64-selfbuilt ] || [ "$ways" = a,b,c,d ] ||
		bad "$fx: ways a,b,c,d (BTF, --vmlinux, profile from vmlinux, from BTF) must all agree; agreed: ${ways:-none}"
	[ -n "$ref" ] && summary="$summary$(printf '%-24s %-10s %6s %6s' "$fx" "$ways" "$(wc -l <"$ref")" \
		"$(grep -c '^[mx] ' "$ref")")"$'\n'
done
echo "== summary: ways with identical records (a BTF, b --vmlinux, c profile from vmlinux," \
	"d profile from BTF, e committed DWARF profile)"
printf '%-24s %-10s %6s %6s\n' fixture ways lines m/x
printf '%s' "$summary"
echo "extract_typeinfo: $(fx_elapsed "$t_start") s in all"
[ $fail -eq 0 ] || exit 1
if [ -n "$skipped" ]; then
	echo "note: the -dbg package for$skipped is not available (see vmlinux above); --vmlinux not compared" \
		"there (x86_64-selfbuilt's committed vmlinux was)"
fi
echo "extract_typeinfo: OK"
