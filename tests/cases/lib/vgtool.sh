# vgtool.sh - shared set-up of the Valgrind tool cases (sourced by valgrind_ws.sh,
# valgrind_peaks.sh, lackey_vs_tool.sh; the caller sets NAME and T, a temp dir).
#
# Sets VGLIB, the private VALGRIND_LIB directory with the tool (`make valgrind-tool`):
# $PAGESLEUTH_VALGRIND_LIB, else valgrind-lib/ beside $PAGESLEUTH_FAST or $PAGESLEUTH, else
# it is built beside $PAGESLEUTH_FAST (or in build/). Defines:
#   fail MSG          print "NAME: FAIL: MSG", exit 1
#   vgbuild PROG [CFLAGS...]  compile tests/valgrind/PROG.c -g -O0 into $T/PROG
#   vgrun ARGS...     VALGRIND_LIB=$VGLIB valgrind -q --tool=pagesleuth ARGS
#   vgrec ARGS...     tests/cases/lib/vgrec.py ARGS
ROOT=${PAGESLEUTH_ROOT:-$PWD}
PAGESLEUTH=${PAGESLEUTH:-$ROOT/build/pagesleuth}
PAGESLEUTH_FAST=${PAGESLEUTH_FAST:-$PAGESLEUTH}

fail() { echo "$NAME: FAIL: $*"; exit 1; }

command -v valgrind >/dev/null || { echo "$NAME: SKIP: valgrind is not installed (apt-get install valgrind)"; exit 77; }
command -v python3 >/dev/null || fail "python3 is needed"
[ -x "$PAGESLEUTH" ] || fail "no pagesleuth binary at $PAGESLEUTH"

VGLIB=${PAGESLEUTH_VALGRIND_LIB:-}
if [ -z "$VGLIB" ]; then
	for d in "$(dirname "$PAGESLEUTH_FAST")" "$(dirname "$PAGESLEUTH")"; do
		if [ -x "$d/valgrind-lib/pagesleuth-amd64-linux" ]; then
			VGLIB=$(cd "$d/valgrind-lib" && pwd)
			break
		fi
	done
fi
if [ -z "$VGLIB" ]; then
	# several cases may get here at once: one builds, the others wait for it
	b=$(cd "$(dirname "$PAGESLEUTH_FAST")" && pwd)
	flock "$b/.valgrind-tool.lock" make -s -C "$ROOT" valgrind-tool B="$b" >"$T/make.log" 2>&1 ||
		fail "make valgrind-tool failed: $(tail -3 "$T/make.log")"
	VGLIB=$b/valgrind-lib
fi
[ -x "$VGLIB/pagesleuth-amd64-linux" ] || fail "no tool in $VGLIB"
export PAGESLEUTH_VALGRIND_LIB=$VGLIB

vgbuild() { # PROG [CFLAGS...]
	p=$1
	shift
	${CC:-cc} -std=gnu11 -g -O0 -I"$ROOT/valgrind" -pthread "$@" -o "$T/$p" \
		"$ROOT/tests/valgrind/$p.c" 2>"$T/$p.cc.log" || fail "cannot build tests/valgrind/$p.c: $(head -3 "$T/$p.cc.log")"
}

vgrun() {
	VALGRIND_LIB=$VGLIB valgrind -q --tool=pagesleuth "$@"
}

vgrec() {
	python3 "$ROOT/tests/cases/lib/vgrec.py" "$@"
}
