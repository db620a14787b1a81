#!/bin/bash
# fuzz/inputs.sh KIND [SECONDS [RUNS]] -- libFuzzer (ASan + UBSan) on one kind of small input a
# user hands over:
#   rules    allocation-tree rules files   (fuzz/fuzz_rules.c)
#   lackey   Lackey traces                 (fuzz/fuzz_lackey.c)
#   profile  type-information profiles    (fuzz/fuzz_typeinfo.c)
#   sysmap   System.map files              (fuzz/fuzz_typeinfo.c, added to a fixture's profile)
#   btf      BTF: patches over a real kernel's BTF (fuzz/corpus/btf/README, fuzz/fuzz_typeinfo.c)
#   dump-headers  patches over the first MiB of real fixture dumps (the ppc32 kdump and ELF,
#            the x86_64 kdump -d 31 and QEMU ELF: headers, notes, bitmaps, descriptors;
#            fuzz_dump_header.c)
#   dump-walk  the walk over real fixture dumps (x86_64 kdump -d 31 and arm64 ELF with their
#            BTF, ppc32 e500 ELF with its profile), patches over the bytes a clean walk
#            read: task_structs, mms, maple nodes, VMAs, page tables, struct pages, the
#            counters' and log's objects (fuzz_dump_walk.c)
#   dump-frames  the same dumps and harness, every input the pass over every frame of RAM
#            (with the first process alone): patches over the struct pages of all of RAM,
#            the slab caches and whatever else that pass read (PAGESLEUTH_FUZZ_FRAMES=1)
# for SECONDS (default 20), or until RUNS inputs have run. Seeds: fuzz/corpus/KIND. The
# corpus grows in a copy, or in $PAGESLEUTH_FUZZ_CORPUS/KIND when that is set (a long
# campaign resumed across runs; PAGESLEUTH_FUZZ_LOG names a file for libFuzzer's log, to
# follow it). The last line says how many inputs ran ("KIND: N runs").
# Exits non-zero on a crash, leak, hang (PAGESLEUTH_FUZZ_TIMEOUT s per input, default 10: more
# for a campaign niced on a busy machine, where a starved input is no hang), UBSan report or
# broken invariant,
# the reproducer left in $B/fuzz/artifacts/.
# B: build directory (default build-fuzz/ in this checkout: another checkout's harnesses, newer than
# these sources, would otherwise be taken as up to date).
set -eu
cd "$(dirname "$0")/.."
kind=${1:?usage: fuzz/inputs.sh rules|lackey|profile|sysmap|btf|dump-headers|dump-walk|dump-frames [SECONDS [RUNS]]}
secs=${2:-20}
runs=${3:--1}
B=${B:-$PWD/build-fuzz}
extra=
case $kind in
rules | lackey) harness=fuzz_$kind max_len=4096 ;;
profile | sysmap) harness=fuzz_typeinfo max_len=8192 ;;
btf) harness=fuzz_typeinfo max_len=1024 ;;
dump-headers) harness=fuzz_dump_header max_len=512 ;;
# A walk of every process costs 10-40 times one of a single process: inputs are scheduled by
# their speed as well (290 instead of 167 runs/s on the same corpus).
dump-walk) harness=fuzz_dump_walk max_len=512 extra=-entropic_scale_per_exec_time=1 ;;
dump-frames) harness=fuzz_dump_walk max_len=512 ;;
*) echo "fuzz/inputs.sh: unknown kind '$kind'" >&2; exit 2 ;;
esac
make -s B="$B" "$B/fuzz/$harness"

work=$(mktemp -d "${TMPDIR:-/tmp}/fuzz_$kind.XXXXXX")
scratch=
trap 'rm -rf "$work" ${scratch:+"$scratch"}' EXIT INT TERM
if [ -n "${PAGESLEUTH_FUZZ_CORPUS:-}" ]; then
	corpus=$PAGESLEUTH_FUZZ_CORPUS/$kind
	mkdir -p "$corpus"
else
	corpus=$work/corpus
	mkdir "$corpus"
fi
mkdir -p "$B/fuzz/artifacts"
export PAGESLEUTH_FUZZ_KIND=$kind
export PAGESLEUTH_FUZZ_PROFILE=$PWD/fuzz/corpus/profile/ppc32-e500-64pte
if [ "$kind" = btf ]; then
	zstd -dqc fuzz/corpus/btf/ppc32-e500-64pte-subset.btf.zst >"$work/base.btf"
	export PAGESLEUTH_FUZZ_BTF=$work/base.btf
	# Seeds: no patch, and one patch at each of the header's fields.
	seeds=$work/seeds
	mkdir "$seeds"
	: >"$seeds/none"
	for off in 0 2 4 8 12 16 20; do
		printf "\\$(printf %o "$off")\\000\\000\\000\\004\\377\\377\\377\\177" >"$seeds/$off"
	done
elif [ "$kind" = dump-headers ]; then
	. tests/cases/lib/fixtures.sh
	dumps=
	# The x86_64 ELF is the one libkdumpfile reads (its program headers and notes); QEMU's
	# ppc32 ELF is read by pagesleuth's own ELF reader.
	for fd in ppc32-e500-64pte:qemu-kdump-zlib.kdump x86_64:kdump-d31.kdump ppc32-e500-64pte:qemu.elf x86_64:qemu.elf; do
		d=$(fx_dump "${fd%%:*}" "${fd#*:}") || { echo "fuzz/inputs.sh: fixture dump $fd not available" >&2; exit 1; }
		dumps=$dumps${dumps:+:}$d
	done
	export PAGESLEUTH_FUZZ_DUMPS=$dumps
	export LSAN_OPTIONS=suppressions=$PWD/tests/tools/lsan-libkdumpfile.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}
	# libkdumpfile sizes a buffer by VMCOREINFO's PAGESIZE when it opens a file: a mangled
	# "PAGESIZE=" asks malloc for 2^63 bytes. malloc's NULL is handled (extract exits 2:
	# "corrupt kdump file (libkdumpfile: ... Cannot allocate buffer for compressed data)");
	# only ASan's allocator would abort on the request itself.
	# The open's probe forks the harness once per run, and a fork costs in proportion to what
	# is resident. ASan's 256 MiB quarantine kept one input's 256 MiB ELF note buffer resident
	# (RSS 127 -> 463 MB at once); with 16 MiB such a buffer goes at once, and every smaller
	# freed block is still held and checked. (Until the probe reported a failed open, the
	# libkdumpfile context of every failed kdump open stayed too, ~15-25 MB per 1,000 runs,
	# and the rate fell from 40 to 8 runs/s over 30,000 runs.)
	export ASAN_OPTIONS=allocator_may_return_null=1:quarantine_size_mb=16${ASAN_OPTIONS:+:$ASAN_OPTIONS}
	# Seeds: each dump as it is.
	seeds=$work/seeds
	mkdir "$seeds"
	for i in 0 1 2 3; do printf "\\$(printf %o "$i")" >"$seeds/$i"; done
	# and the inputs of past findings (fuzz/corpus/dump-headers), replayed at the start.
	find fuzz/corpus/dump-headers -type f ! -name README -exec cp {} "$seeds"/ \;
elif [ "$kind" = dump-walk ] || [ "$kind" = dump-frames ]; then
	[ "$kind" = dump-frames ] && export PAGESLEUTH_FUZZ_FRAMES=1
	. tests/cases/lib/fixtures.sh
	dumps=
	for fd in x86_64:kdump-d31.kdump arm64:qemu.elf ppc32-e500-64pte:qemu.elf=fuzz/corpus/profile/ppc32-e500-64pte; do
		spec=${fd#*:}
		d=$(fx_dump "${fd%%:*}" "${spec%%=*}") || { echo "fuzz/inputs.sh: fixture dump ${fd%%=*} not available" >&2; exit 1; }
		case $spec in *=*) d=$d=$PWD/${spec#*=} ;; esac
		dumps=$dumps${dumps:+:}$d
	done
	export PAGESLEUTH_FUZZ_DUMPS=$dumps
	export LSAN_OPTIONS=suppressions=$PWD/tests/tools/lsan-libkdumpfile.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}
	# Seeds: no patch, each dump, each of its first processes alone and (0xff) every one.
	seeds=$work/seeds
	mkdir "$seeds"
	for i in 0 1 2; do
		for p in 0 1 2 3 4 5 6 7 8 9 10 11 255; do
			printf "\\$(printf %o "$i")\\$(printf %o "$p")" >"$seeds/$i-$p"
		done
	done
else
	seeds=fuzz/corpus/$kind
fi
# The harness writes its inputs to files: on tmpfs they cost no disk (in a private directory,
# removed at the end like the rest).
if [ -d /dev/shm ] && [ -w /dev/shm ] && scratch=$(mktemp -d /dev/shm/pagesleuth-fuzz.XXXXXX); then
	export TMPDIR=$scratch
else
	export TMPDIR=$work
fi
# -close_fd_mask=3: the code under test prints its refusals, millions of times.
# A crash must not exit 77 (libFuzzer's default), which tests/run.sh would read as a skip.
# PAGESLEUTH_FUZZ_LOG: where libFuzzer's own log goes (a long campaign's progress, kept
# where a reboot leaves it); by default in the work directory, removed at the end.
log=${PAGESLEUTH_FUZZ_LOG:-$work/log}
rc=0
# Run in the work directory, every path absolute: what the harness leaves where it runs (the
# probe child's ASan warnings were found as ".PID" files in the checkout) goes with it.
abs() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }
babs=$(abs "$B") corpus=$(abs "$corpus") seeds=$(abs "$seeds")
(cd "$work" && exec "$babs/fuzz/$harness" "$corpus" "$seeds" -max_total_time="$secs" -runs="$runs" -max_len="$max_len" \
	-timeout="${PAGESLEUTH_FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 -error_exitcode=1 -timeout_exitcode=1 -close_fd_mask=3 \
	-artifact_prefix="$babs/fuzz/artifacts/$kind-" -print_final_stats=1 ${extra:+"$extra"}) >"$log" 2>&1 || rc=$?
n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
if [ "$rc" -ne 0 ]; then
	cp "$log" "$B/fuzz/artifacts/$kind.log"
	grep -aE '^(==|SUMMARY|ERROR|Direct leak|Indirect leak|    #[0-9]+ )' "$log" | head -60 >&2
	echo "$kind: FAILED after ${n:-?} runs (exit $rc); reproducer and the whole log in $B/fuzz/artifacts/" >&2
	exit 1
fi
echo "$kind: ${n:-?} runs, 0 findings"
