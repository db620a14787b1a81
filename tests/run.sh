#!/usr/bin/env bash
# The whole test suite: builds the normal and the ASan+UBSan variants, runs every unit test
# under both, then every tests/cases/*.sh (with the sanitized binary), and ends with the
# line "N passed, N failed". Exit status non-zero on any failure.
#
# A case script gets PAGESLEUTH (the binary), PAGESLEUTH_ROOT (the checkout) and
# PAGESLEUTH_CACHE (a cache for decompressed fixtures); exit 0 = pass, 77 = skipped (it must
# print why), anything else = fail.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export PAGESLEUTH_ROOT=$root
export PAGESLEUTH_CACHE=${PAGESLEUTH_CACHE:-/var/cache/pagesleuth}
mkdir -p "$PAGESLEUTH_CACHE" 2>/dev/null || export PAGESLEUTH_CACHE=$root/.cache
jobs=$(nproc 2>/dev/null || echo 2)

passed=0 failed=0 skipped=0
failures=()
result() { # name status(0/77/other) seconds
	case $2 in
	0) passed=$((passed + 1)); printf 'PASS %-40s %5ss\n' "$1" "$3" ;;
	77) skipped=$((skipped + 1)); printf 'SKIP %-40s %5ss\n' "$1" "$3" ;;
	*) failed=$((failed + 1)); failures+=("$1"); printf 'FAIL %-40s %5ss\n' "$1" "$3" ;;
	esac
}

echo "== build (warnings are errors here)"
if ! make -s -j"$jobs" all CFLAGS="-O2 -g -Werror" || ! make -s -j"$jobs" asan; then
	echo "build failed"
	echo "0 passed, 1 failed"
	exit 1
fi
# The Valgrind tool (valgrind/, mk/valgrind.mk): a failure shows up as the valgrind_* cases
# failing, each naming the build.
make -s -j"$jobs" valgrind-tool CFLAGS="-O2 -g -Werror" || echo "valgrind tool: build failed"

echo "== crash extension: Debian's crash 8.0.2, and crash 8.0.6 and 9.0.2 built from source (cached)"
# crash 8.0.6 (Debian's trixie source) and 9.0.2 (forky's: the one that opens Linux 7.x) are
# built once per machine (~12 and ~23 min cold, cached in $PAGESLEUTH_CACHE/crash-VERSION/);
# tests/cases/crash_ext.sh runs the extension in 8.0.2 and 8.0.6, crash_ext_versions.sh in
# the crash that opens each newer kernel. A failure here shows up as those cases failing or
# skipping (naming the build log), not as a build failure.
# Also an ASan+UBSan variant for 8.0.2 (build-asan/crash-ext/): the bad-input case runs it in
# crash with the sanitizer runtimes preloaded.
asan_cflags="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -Werror"
# No library from an earlier build may stand in for one that fails to build now.
rm -f build/crash-ext/*/pagesleuth.so build-asan/crash-ext/*/pagesleuth.so
make -s crash-ext CFLAGS="-O2 -g -Werror" || echo "crash extension for crash 8.0.2: build failed"
make -s crash-ext B=build-asan CFLAGS="$asan_cflags" || echo "crash extension (ASan) for crash 8.0.2: build failed"
for v in 8.0.6 9.0.2; do
	if crash=$(CRASH_VERSION=$v CRASH_TARGET=X86_64 ./scripts/build-crash.sh) && [ -x "$crash" ]; then
		make -s crash-ext CRASH="$crash" CFLAGS="-O2 -g -Werror" ||
			echo "crash extension for crash $v: build failed"
	else
		echo "crash $v: not built (see $PAGESLEUTH_CACHE/crash-$v/build.log)"
	fi
done
# The cross crashes for arm64 and ppc64le dumps, when `make crash-cross [ARCH=ppc64le]` has
# built them (not here: ~15 and ~36 min).
for t in ARM64 PPC64; do
	cross=$PAGESLEUTH_CACHE/crash-8.0.6-${t,,}/crash
	if [ -x "$cross" ]; then
		make -s crash-ext CRASH="$cross" CRASH_TARGET=$t CFLAGS="-O2 -g -Werror" ||
			echo "crash extension for crash 8.0.6 ($t): build failed"
	fi
done

echo "== unit tests (normal and ASan+UBSan)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for t in build/tests/* build-asan/tests/*; do
	[ -x "$t" ] || continue
	name=unit/$(basename "$t"); [[ $t == build-asan/* ]] && name="$name (asan)"
	log=$(mktemp)
	start=$SECONDS
	"$t" >"$log" 2>&1
	rc=$?
	result "$name" "$rc" $((SECONDS - start))
	[ "$rc" -eq 0 ] || [ "$rc" -eq 77 ] || tail -n 30 "$log" | sed 's/^/    /'
	rm -f "$log"
done

echo "== cases"
export PAGESLEUTH=$root/build-asan/pagesleuth PAGESLEUTH_FAST=$root/build/pagesleuth
for c in tests/cases/*.sh; do
	[ -e "$c" ] || continue
	log=$(mktemp)
	start=$SECONDS
	timeout 600 bash "$c" >"$log" 2>&1
	rc=$?
	result "$(basename "$c" .sh)" "$rc" $((SECONDS - start))
	if [ "$rc" -eq 77 ]; then
		tail -n 3 "$log" | sed 's/^/    /'
	elif [ "$rc" -ne 0 ]; then
		tail -n 40 "$log" | sed 's/^/    /'
	fi
	rm -f "$log"
done

((skipped)) && echo "$skipped skipped"
((failed)) && echo "failed: ${failures[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
