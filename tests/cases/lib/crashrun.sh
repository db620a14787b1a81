# shellcheck shell=bash
# shellcheck disable=SC2034 # CR_* variables are for the case that sources this file
# crashrun.sh - shared shell helpers for the cases that run pagesleuth.so inside crash.
# Source it after tests/cases/lib/fixtures.sh, from the repo root:  . tests/cases/lib/crashrun.sh
#
#   CR_CRASH802, CR_CRASH806  Debian's crash 8.0.2 (/usr/bin/crash) and crash 8.0.6 built by
#                            scripts/build-crash.sh ($PAGESLEUTH_CACHE/crash-8.0.6/crash);
#                            env PAGESLEUTH_CRASH802 / PAGESLEUTH_CRASH806 override them
#   cr_ext VERSION           path of pagesleuth.so for that crash version (8.0.2, 8.0.6) in
#                            ${PAGESLEUTH_CRASH_EXT_DIR:-$PAGESLEUTH_ROOT/build/crash-ext}
#                            /VERSION-X86_64/ (tests/run.sh builds both there)
#   cr_asan_ext VERSION      the ASan+UBSan build of pagesleuth.so (tests/run.sh: build-asan/
#                            crash-ext/, env PAGESLEUTH_CRASH_ASAN_EXT_DIR), or fails quietly;
#                            cr_run preloads the sanitizer runtimes it links when CR_SANITIZE=1
#   cr_fixture               chooses the x86_64 fixture and the DWARF vmlinux crash needs. By
#                            default x86_64-selfbuilt, whose vmlinux is committed with it
#                            (fixtures.sh fx_vmlinux): nothing is downloaded.
#                            PAGESLEUTH_CRASH_FIXTURE=x86_64 takes Debian's kernel instead:
#                            scripts/fetch-dbg.sh --fixture x86_64 (Debian's -dbg package of the
#                            fixture's kernel, cached). If that exact package has left the
#                            archive (exit 3), or PAGESLEUTH_CRASH_FORCE_REGEN=1, an x86_64
#                            fixture is generated with the archive's current kernel by
#                            tests/fixtures/scripts/gen.py into $PAGESLEUTH_CACHE/crash-fixture
#                            (PAGESLEUTH_FIXTURE_DATA; gen.py keeps it while its inputs are
#                            unchanged) and its -dbg package fetched. Sets CR_VMLINUX, CR_FX_DIR
#                            (the fixture's MANIFEST, groundtruth.txt, *.zst) and CR_FX_NOTE.
#                            Returns 0, 3 (no vmlinux to be had: the caller skips, with the
#                            reason printed) or 1 (failure, reason printed)
#   cr_dump FILE             the decompressed dump FILE (qemu.elf, kdump-d1.kdump, ...) of that
#                            fixture (fx_dump; a generated fixture unpacks into its own cache dir)
#   cr_groundtruth DIR       tests/tools/gt2check.py's files for that fixture in DIR
#   cr_run NAME CRASH DUMP CMDS   runs `crash -s CR_VMLINUX DUMP` on the command file CMDS
#                            (absolute paths in it; `quit` is appended) under `timeout`
#                            (CR_TIMEOUT, default 300 s), HOME and cwd a scratch dir (no
#                            .crashrc), stdin /dev/null; output in $CR_TMP/NAME.out. Sets CR_RC.
#                            CR_SANITIZE=1: LD_PRELOAD the libasan/libubsan that CR_SANITIZE_SO
#                            links (crash itself is not instrumented: leak detection off, and
#                            alloc_dealloc_mismatch off for crash's own C++ code).
#                            CR_CRASH_OPTS: more options for crash, split at blanks
#                            (e.g. --no_modules).
#                            Returns 0 if crash ended normally: exit 0, not timed out, no
#                            "segmentation violation"/"SIGSEGV"/"Aborted"/"gdb ... internal
#                            error" and no sanitizer report in its output; otherwise prints
#                            why and returns 1
#   cr_messages NAME         the "pagesleuth: ..." lines of $CR_TMP/NAME.out
#   cr_session NAME CRASH SO VERSION DUMP   cr_run with `extend SO` first, the commands read
#                            from stdin, and `pagesleuth -V` last; returns 1 (reason printed)
#                            unless crash ended normally, the library loaded and the final
#                            -V answered "built for crash VERSION (CR_TARGET, default X86_64)"
#                            (crash still answers)
# CR_TMP must be set (a scratch directory) before cr_run. Messages go to stdout.

CR_ROOT=${PAGESLEUTH_ROOT:-$(pwd)}
CR_CACHE=${PAGESLEUTH_CACHE:-/var/cache/pagesleuth}
CR_CRASH802=${PAGESLEUTH_CRASH802:-/usr/bin/crash}
CR_CRASH806=${PAGESLEUTH_CRASH806:-$CR_CACHE/crash-8.0.6/crash}
CR_EXT_DIR=${PAGESLEUTH_CRASH_EXT_DIR:-$CR_ROOT/build/crash-ext}
CR_ASAN_EXT_DIR=${PAGESLEUTH_CRASH_ASAN_EXT_DIR:-$CR_ROOT/build-asan/crash-ext}
CR_SANITIZE=0
CR_SANITIZE_SO=""
CR_TIMEOUT=${CR_TIMEOUT:-300}
CR_CRASH_OPTS=""
CR_FX=${PAGESLEUTH_CRASH_FIXTURE:-x86_64-selfbuilt}
CR_FX_DIR=$CR_ROOT/tests/fixtures/data/$CR_FX
CR_FX_GEN=$CR_CACHE/crash-fixture
CR_FX_NOTE=""
CR_VMLINUX=""

cr_ext() { # VERSION
	local so=$CR_EXT_DIR/$1-X86_64/pagesleuth.so
	[ -f "$so" ] || { echo "cr_ext: no $so (make crash-ext$([ "$1" = 8.0.2 ] || echo " CRASH=<crash $1>"))" >&2; return 1; }
	echo "$so"
}

cr_asan_ext() { # VERSION
	local so=$CR_ASAN_EXT_DIR/$1-X86_64/pagesleuth.so
	# Not `ldd | grep -q` (under pipefail, grep's early exit can fail ldd with SIGPIPE).
	[ -f "$so" ] || return 1
	case $(ldd "$so" 2>/dev/null) in *libasan*) ;; *) return 1 ;; esac
	echo "$so"
}

cr_fixture() {
	local rc log=${CR_TMP:-${TMPDIR:-/tmp}}/fetch-dbg.$$ t0
	if [ -f "$CR_FX_DIR/vmlinux.zst" ]; then # committed with the fixture: no download
		CR_VMLINUX=$(fx_vmlinux "$CR_FX") || { echo "cr_fixture: no vmlinux for $CR_FX"; return 1; }
		echo "vmlinux: $CR_VMLINUX (committed: $CR_FX/vmlinux.zst, $(grep -m1 '^kernel_release ' "$CR_FX_DIR/MANIFEST"))"
		return 0
	fi
	if [ "${PAGESLEUTH_CRASH_FORCE_REGEN:-0}" = 1 ]; then
		rc=3
		echo "fetch-dbg: PAGESLEUTH_CRASH_FORCE_REGEN=1: taking the path for a -dbg package that left the archive" >"$log"
	else
		CR_VMLINUX=$("$CR_ROOT/scripts/fetch-dbg.sh" --fixture "$CR_FX" 2>"$log")
		rc=$?
	fi
	if [ $rc -eq 0 ]; then
		echo "vmlinux: $CR_VMLINUX ($(tail -1 "$log"))"
		rm -f "$log"
		return 0
	fi
	if [ $rc -ne 3 ]; then
		echo "cr_fixture: scripts/fetch-dbg.sh --fixture $CR_FX failed (exit $rc): $(tail -1 "$log")"
		rm -f "$log"
		return 1
	fi
	# The fixture's exact -dbg package is gone: generate a fixture with the current kernel.
	CR_FX_NOTE="the fixture's -dbg package is not available ($(tail -1 "$log")); an x86_64 fixture was generated with the current kernel in $CR_FX_GEN/$CR_FX"
	echo "cr_fixture: $(tail -1 "$log")"
	echo "cr_fixture: generating an x86_64 fixture with the archive's current kernel into $CR_FX_GEN (gen.py, ~2 min; kept while its inputs are unchanged; log $CR_FX_GEN/gen.log)"
	mkdir -p "$CR_FX_GEN" || { echo "cr_fixture: cannot create $CR_FX_GEN"; return 1; }
	t0=$(date +%s)
	if ! PAGESLEUTH_FIXTURE_DATA=$CR_FX_GEN PAGESLEUTH_CACHE=$CR_CACHE \
		python3 "$CR_ROOT/tests/fixtures/scripts/gen.py" "$CR_FX" >"$CR_FX_GEN/gen.log" 2>&1; then
		echo "cr_fixture: gen.py $CR_FX failed after $(( $(date +%s) - t0 )) s:"
		tail -5 "$CR_FX_GEN/gen.log" | sed 's/^/    /'
		rm -f "$log"
		return 1
	fi
	echo "cr_fixture: gen.py: $(grep -m1 -E ": done in |: up to date" "$CR_FX_GEN/gen.log" | cut -c1-200) ($(( $(date +%s) - t0 )) s)"
	CR_FX_DIR=$CR_FX_GEN/$CR_FX
	[ -f "$CR_FX_DIR/MANIFEST" ] && [ -f "$CR_FX_DIR/groundtruth.txt" ] ||
		{ echo "cr_fixture: gen.py left no MANIFEST/groundtruth.txt in $CR_FX_DIR"; rm -f "$log"; return 1; }
	echo "cr_fixture: $(grep '^kernel_package ' "$CR_FX_DIR/MANIFEST")"
	CR_VMLINUX=$("$CR_ROOT/scripts/fetch-dbg.sh" --fixture "$CR_FX_DIR" 2>"$log")
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "cr_fixture: scripts/fetch-dbg.sh --fixture $CR_FX_DIR (exit $rc): $(tail -1 "$log")"
		rm -f "$log"
		[ $rc -eq 3 ] && return 3
		return 1
	fi
	echo "vmlinux: $CR_VMLINUX ($(tail -1 "$log"))"
	rm -f "$log"
	return 0
}

cr_dump() { # FILE
	if [ "$CR_FX_DIR" = "$CR_ROOT/tests/fixtures/data/$CR_FX" ]; then
		fx_dump "$CR_FX" "$1"
	else # a generated fixture: its own data and unpack directories
		FX_DATA=$(dirname "$CR_FX_DIR") FX_CACHE=$CR_FX_GEN/unpacked fx_dump "$CR_FX" "$1"
	fi
}

cr_groundtruth() { # DIR
	python3 "$CR_ROOT/tests/tools/gt2check.py" "$CR_FX_DIR/groundtruth.txt" "$1"
}

cr_run() { # NAME CRASH DUMP CMDS
	local name=$1 crash=$2 dump=$3 cmds=$4 out t0 why=""
	out=$CR_TMP/$name.out
	mkdir -p "$CR_TMP/home"
	{ cat "$cmds"; echo quit; } >"$CR_TMP/$name.cmds"
	local envs=(ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:alloc_dealloc_mismatch=0
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1)
	if [ "$CR_SANITIZE" = 1 ]; then
		envs+=("LD_PRELOAD=$(ldd "$CR_SANITIZE_SO" | awk '$1 ~ /^lib(asan|ubsan)\.so/ { print $3 }' | paste -sd' ')")
	fi
	t0=$(date +%s.%N)
	# shellcheck disable=SC2086 # CR_CRASH_OPTS: several options, split on purpose
	(cd "$CR_TMP/home" && HOME=$CR_TMP/home timeout -k 10 "$CR_TIMEOUT" env "${envs[@]}" \
		"$crash" -s ${CR_CRASH_OPTS:-} "$CR_VMLINUX" "$dump" -i "$CR_TMP/$name.cmds" </dev/null >"$out" 2>&1)
	CR_RC=$?
	echo "  crash $name: $(basename "$(dirname "$crash")")/$(basename "$crash") $(basename "$dump"):" \
		"exit $CR_RC in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s," \
		"$(grep -c '^pagesleuth: ' "$out") pagesleuth messages"
	if [ $CR_RC -eq 124 ] || [ $CR_RC -eq 137 ]; then
		why="still running after $CR_TIMEOUT s (killed)"
	elif fx_sanitizer_report "$out"; then
		why="sanitizer report: $(grep -m1 -E 'ERROR: |runtime error' "$out")"
		grep -m1 -A14 -E 'ERROR: |runtime error' "$out" | sed 's/^/      /'
	elif grep -qiE 'segmentation violation|SIGSEGV|Aborted|internal-error|internal error' "$out"; then
		why="crash died: $(grep -m1 -iE 'segmentation violation|SIGSEGV|Aborted|internal-error|internal error' "$out")"
	elif [ $CR_RC -ne 0 ]; then
		why="crash exited $CR_RC: $(grep -v '^$' "$out" | tail -2 | tr '\n' ' ')"
	fi
	if [ -n "$why" ]; then
		echo "  crash $name: $why"
		return 1
	fi
	return 0
}

cr_messages() { # NAME
	grep '^pagesleuth: ' "$CR_TMP/$1.out"
}

cr_session() { # NAME CRASH SO VERSION DUMP, the commands on stdin
	local name=$1 crash=$2 so=$3 ver=$4 dump=$5 ok=0
	{ echo "extend $so"; cat; echo "pagesleuth -V"; } >"$CR_TMP/$name.in"
	cr_run "$name" "$crash" "$dump" "$CR_TMP/$name.in" || return 1
	grep -q 'pagesleuth.so: shared object loaded' "$CR_TMP/$name.out" ||
		{ echo "  crash $name: the library did not load: $(grep -m2 -i 'pagesleuth' "$CR_TMP/$name.out" | tr '\n' ' ')"; ok=1; }
	tail -n 3 "$CR_TMP/$name.out" | grep -q "^pagesleuth .* built for crash $ver (${CR_TARGET:-X86_64})" ||
		{ echo "  crash $name: the last command (pagesleuth -V) did not answer 'built for crash $ver': $(tail -n 2 "$CR_TMP/$name.out" | tr '\n' ' ')"; ok=1; }
	return $ok
}

# cr_same_as_extract NAME CRASHREC EXREC: the crash command's records equal extract's for the
# same dump but for the header's source=crash (source=coredump in extract's). Calls the
# test's bad() otherwise; returns 1 when a file is missing.
cr_same_as_extract() {
	local name=$1 c=$2 e=$3
	[ -s "$c" ] || { bad "$name: crash wrote no records"; return 1; }
	[ -s "$e" ] || { bad "$name: no extract records to compare with ($e)"; return 1; }
	sed -n 2p "$c" | grep -q '^header .*\bsource=crash\b' || { bad "$name: header has no source=crash: $(sed -n 2p "$c")"; return 1; }
	awk 'NR == 2 && $1 == "header" { for (i = 2; i <= NF; i++) if ($i == "source=crash") $i = "source=coredump" } { print }' \
		"$c" >"$c.norm"
	if cmp -s "$c.norm" "$e"; then
		echo "  $name == extract: $(wc -l <"$e") lines, $(grep -c '^[mxwu] ' "$e") page runs ($(grep -c '^x ' "$e") x), $(grep -c '^vma ' "$e") VMAs identical (source= aside); $(grep '^end ' "$e" | cut -d' ' -f2-4)"
	elif [ "$(grep -c '^counter ' "$e")" = 0 ] &&
		cmp -s <(grep -v '^counter \|^slab \|^f \|^owner ' "$c.norm") <(grep -v '^f \|^owner ' "$e"); then
		# crash knows every symbol of its vmlinux; extract with the dump's BTF finds the
		# kernel's data symbols only with CONFIG_KALLSYMS_ALL: the counters and slab records
		# are crash's alone, and its frames name vmalloc areas extract cannot find.
		echo "  $name == extract but for what needs the kernel's data symbols, which only crash had ($(grep -c '^counter \|^slab ' "$c.norm") counter and slab lines; frames not compared): $(grep -c '^[mxwu] ' "$e") page runs, $(grep -c '^vma ' "$e") VMAs identical"
	else
		bad "$name differs from extract (beyond source=): $(diff "$e" "$c.norm" | grep -c '^[<>]') lines:"
		diff "$e" "$c.norm" | head -12 | sed 's/^/    /'
	fi
}

# cr_check_gt NAME REC GTDIR: gtcheck --referenced ($GTCHECK) of every workload process of
# GTDIR (cr_groundtruth or fx_groundtruth's output) against REC, and one task record per
# thread. Calls the test's bad() for each failure.
cr_check_gt() {
	local name=$1 out=$2 gt=$3 pid role threads n=0 nfail=0 pages=0 tasks
	[ -s "$out" ] || { bad "$name: no records to check against the ground truth"; return; }
	while read -r pid role _ threads; do
		n=$((n + 1))
		if "$GTCHECK" --referenced "$pid" "$out" "$gt/smaps.$pid" "$gt/pages.$pid" >"$out.gt.$pid" 2>&1; then
			pages=$((pages + $(sed -n 's/.* VMAs, \([0-9]*\) pages: OK$/\1/p' "$out.gt.$pid" | tail -1)))
		else
			nfail=$((nfail + 1))
			bad "$name: gtcheck pid $pid ($role):"
			head -12 "$out.gt.$pid" | sed 's/^/    /'
		fi
		tasks=$(awk -v t="tgid=$pid" '$1 == "task" { for (i = 2; i <= NF; i++) if ($i == t) k++ } END { print k + 0 }' "$out")
		[ "$tasks" -eq "$threads" ] || bad "$name: pid $pid ($role): $tasks task records, ground truth has $threads threads"
	done <"$gt/procs"
	[ "$n" -gt 0 ] || bad "$name: no workload processes in the ground truth"
	echo "  $name: gtcheck --referenced: $((n - nfail)) of $n workload processes OK ($pages pages)"
}
