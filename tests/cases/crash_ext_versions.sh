#!/usr/bin/env bash
# crash_ext_versions.sh - the `pagesleuth` command of pagesleuth.so inside the crash that opens
# each newer Debian kernel, on the x86_64 fixtures of other Debian suites: x86_64-bullseye
# (5.10), x86_64-trixie (6.12; -la57: the same kernel with 5-level paging, QEMU ELF only),
# x86_64-forky (7.2), and x86_64-selfbuilt (6.1 built here, its DWARF vmlinux committed) in
# the newest crash. For each fixture and each crash in the plan below, on its QEMU ELF and
# its makedumpfile -c -d 31 kdump, with the kernel's DWARF vmlinux (Debian's -dbg package of
# the fixture's suite: scripts/fetch-dbg.sh, cached; x86_64-selfbuilt's vmlinux.zst):
#   - crash starts on the dump and ends normally (lib/crashrun.sh cr_session: exit 0, no
#     crash of crash, the library loads, `pagesleuth -V` names the crash it was built for);
#   - the records equal `pagesleuth extract`'s for the same dump (run without any
#     type-information option: BTF from the dump) byte for byte, the header's
#     source=crash (extract: source=coredump) excepted, and both end status=complete;
#   - `pagesleuth summary -K` (exact KiB) prints the tables `pagesleuth report -a pss` makes
#     of extract's records, row for row (lib/crashsummary.py).
# Which crash opens what (the plan; docs/crash-ext.md has the whole table): Debian's crash
# 8.0.2 opens 5.10 (not 6.12 or 7.2); crash 8.0.6 (scripts/build-crash.sh) 5.10's kdump and
# 6.12, but not 5.10's QEMU ELF (its startup `bt` fails, as on the 6.1 fixture) nor 7.2
# (`invalid structure member offset: kmem_cache_s_num`); crash 9.0.2 (CRASH_VERSION=9.0.2
# scripts/build-crash.sh: forky's source, gdb 16.3) every one of them, 7.2 only with
# --no_modules (otherwise `invalid structure member offset: module_num_gpl_syms`). Each dump
# runs in 9.0.2, and 5.10's QEMU ELF and 6.12's dumps also in an older crash (8.0.2, 8.0.6;
# 8.0.6 on 5.10's kdump and on -la57 matched by hand, left out for time: ~25 s a session).
# x86_64-forky's kdump-d31 is compared only while extract reads it completely: sid's
# makedumpfile -d 31 drops 7.2's task_structs (extract reports partial; crash cannot read the
# task list either).
# tests/run.sh builds 8.0.6 and 9.0.2 once (cached) and the library for each.
# Skips (77), with the reason, when a crash has not been built (or could not be: the source
# package left the archive). A -dbg package that cannot be had (left the archive, or the
# archive cannot be reached after fetch-dbg.sh's retries) leaves that fixture out with a note
# (Debian's kernels are extra coverage here; x86_64-selfbuilt needs no download); a fixture
# not (yet) in the checkout is named and left out. Any difference is a failure, also when
# another part had to skip.
# Env: PAGESLEUTH_CRASH806 / PAGESLEUTH_CRASH902 (the crash binaries), PAGESLEUTH_CRASH_EXT_DIR.
set -uo pipefail
cd "${PAGESLEUTH_ROOT:-.}" || exit 1
. tests/cases/lib/fixtures.sh
. tests/cases/lib/crashrun.sh
FAST=${PAGESLEUTH_FAST:-build/pagesleuth}
CR_CRASH902=${PAGESLEUTH_CRASH902:-$CR_CACHE/crash-9.0.2/crash}
# FIXTURE  CRASH-VERSION  DUMPS (comma-separated; DUMP? = only if extract's records are
# complete)  [CRASH OPTIONS]
PLAN="x86_64-bullseye 8.0.2 qemu.elf
x86_64-bullseye 9.0.2 qemu.elf,kdump-d31.kdump
x86_64-trixie 8.0.6 qemu.elf,kdump-d31.kdump
x86_64-trixie 9.0.2 qemu.elf,kdump-d31.kdump
x86_64-trixie-la57 9.0.2 qemu.elf
x86_64-forky 9.0.2 qemu.elf,kdump-d31.kdump? --no_modules
x86_64-selfbuilt 9.0.2 qemu.elf,kdump-d31.kdump"
fail=0 skips=() notes=() checked=0
bad() { echo "FAIL: $*"; fail=1; }
skip() { echo "  skipped: $*"; skips+=("$*"); }
[ -x "$FAST" ] || { echo "FAIL: no pagesleuth at $FAST"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/crash_ext_versions.XXXXXX")
trap 'rm -rf "$T"' EXIT
CR_TMP=$T
t_start=$(fx_now)

crash_of() { # VERSION: the binary
	case $1 in
	8.0.2) echo "$CR_CRASH802" ;;
	8.0.6) echo "$CR_CRASH806" ;;
	9.0.2) echo "$CR_CRASH902" ;;
	esac
}
declare -A VMLINUX=() NOVMLINUX=() EXREC=()
while read -r fx ver dumps opts; do
	[ -n "$fx" ] || continue
	echo "== $fx in crash $ver${opts:+ $opts}: ${dumps//,/, }"
	if [ ! -f "tests/fixtures/data/$fx/MANIFEST" ]; then
		echo "  note: no fixture $fx in this checkout: left out"
		continue
	fi
	crash=$(crash_of "$ver")
	if [ ! -x "$crash" ]; then
		case $ver in
		8.0.2) skip "$fx in crash 8.0.2: no $crash (scripts/install-deps.sh installs Debian's crash)" ;;
		*) skip "$fx in crash $ver: no $crash (CRASH_VERSION=$ver scripts/build-crash.sh; tests/run.sh builds it, see ${crash%/crash}/build.log)" ;;
		esac
		continue
	fi
	if ! so=$(cr_ext "$ver" 2>&1); then
		bad "$fx in crash $ver: $so"
		continue
	fi
	# The fixture's DWARF vmlinux, once per fixture.
	if [ -z "${VMLINUX[$fx]:-}" ] && [ -z "${NOVMLINUX[$fx]:-}" ]; then
		t0=$(fx_now)
		if [ -f "tests/fixtures/data/$fx/vmlinux.zst" ]; then
			v=$(fx_vmlinux "$fx" 2>"$T/fetch.$fx") && echo "committed $fx/vmlinux.zst" >>"$T/fetch.$fx"
		else
			v=$(scripts/fetch-dbg.sh --fixture "$fx" 2>"$T/fetch.$fx")
		fi
		rc=$?
		echo "  vmlinux: exit $rc in $(fx_elapsed "$t0") s: $(tail -1 "$T/fetch.$fx")"
		case $rc in
		0) VMLINUX[$fx]=$v ;;
		3) NOVMLINUX[$fx]="the -dbg package cannot be had: $(tail -1 "$T/fetch.$fx")" ;;
		*) NOVMLINUX[$fx]=failed; bad "$fx: scripts/fetch-dbg.sh --fixture $fx (exit $rc): $(tail -1 "$T/fetch.$fx")" ;;
		esac
	fi
	if [ -n "${NOVMLINUX[$fx]:-}" ]; then
		[ "${NOVMLINUX[$fx]}" = failed ] || { echo "  note: left out: ${NOVMLINUX[$fx]}"; notes+=("$fx in crash $ver: ${NOVMLINUX[$fx]}"); }
		continue
	fi
	CR_VMLINUX=${VMLINUX[$fx]}
	CR_CRASH_OPTS=$opts
	for d in ${dumps//,/ }; do
		ifcomplete=0
		[[ $d == *\? ]] && d=${d%\?} ifcomplete=1
		name=$fx-$d-$ver
		dump=$(fx_dump "$fx" "$d") || { bad "$fx/$d: not available"; continue; }
		# The reference: extract with no type-information option, once per dump.
		key=$fx/$d
		if [ -z "${EXREC[$key]:-}" ]; then
			EXREC[$key]=$T/ex-$fx-$d.rec
			"$FAST" extract "$dump" -o "${EXREC[$key]}" 2>"$T/ex-$fx-$d.err"
			rc=$?
			if grep -q '^end status=complete ' "${EXREC[$key]}" 2>/dev/null && [ $rc -eq 0 ]; then
				:
			elif [ $ifcomplete = 1 ] && [ $rc -eq 1 ] && grep -q '^end status=partial ' "${EXREC[$key]}"; then
				EXREC[$key]=partial
			else
				bad "extract $fx/$d exited $rc, $(grep '^end ' "${EXREC[$key]}" 2>/dev/null || echo 'no end record'): $(head -3 "$T/ex-$fx-$d.err" | tr '\n' ' ')"
			fi
		fi
		if [ "${EXREC[$key]}" = partial ]; then
			echo "  note: $fx/$d not compared: extract reads it partially ($(head -1 "$T/ex-$fx-$d.err")), as known for this dump"
			continue
		fi
		printf 'pagesleuth -S -o %s\npagesleuth summary -K > %s\n' "$T/$name.rec" "$T/$name.sum" |
			cr_session "$name" "$crash" "$so" "$ver" "$dump" ||
			{ bad "crash $ver on $fx/$d did not end normally"; continue; }
		cr_messages "$name" | sed 's/^/    /'
		cr_same_as_extract "$name" "$T/$name.rec" "${EXREC[$key]}"
		[ -s "${EXREC[$key]}.pss" ] || "$FAST" report -a pss -f csv "${EXREC[$key]}" >"${EXREC[$key]}.pss" 2>/dev/null
		python3 tests/cases/lib/crashsummary.py report "$T/$name.sum" "${EXREC[$key]}.pss" | sed "s/^/  $name summary: /"
		[ "${PIPESTATUS[0]}" -eq 0 ] || bad "$name: pagesleuth summary -K differs from report -a pss of extract's records"
		checked=$((checked + 1))
	done
done <<<"$PLAN"

echo "crash_ext_versions: $checked crash sessions compared, $(fx_elapsed "$t_start") s in all"
[ ${#notes[@]} -eq 0 ] || printf 'note: %s\n' "${notes[@]}"
[ $fail -eq 0 ] || exit 1
if [ ${#skips[@]} -gt 0 ]; then
	# tests/run.sh shows a skip's last lines: the distinct reasons, one line each.
	echo "SKIP: ${#skips[@]} of the planned crash runs could not run (the others matched extract):"
	printf '%s\n' "${skips[@]}" | sed 's/^[^:]*: //' | sort -u | sed 's/^/  /'
	exit 77
fi
[ $checked -gt 0 ] || { echo "SKIP: no crash session could run (see the notes above)"; exit 77; }
echo "crash_ext_versions: OK"
