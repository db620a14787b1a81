#!/bin/bash
# live_static_cross.sh - the static board build (mk/static.mk, docs/static-build.md).
#
# 1. `make static` builds pagesleuth-live for this machine: a statically linked ELF (no
#    program interpreter, no dynamic section); its `snap` of a stopped process pair
#    (tests/progs/layout.c) writes the same records as the full dynamic pagesleuth, but for the
#    capture times and the vdso's pages (the snapshotting process maps those too, see
#    untimed). Page flags of pages shared with the rest of the system may change between the
#    two snapshots, so a difference is retried a few times.
# 2. `make static-cross` builds every cross target whose compiler is installed, with
#    warnings as errors (32-bit targets catch format and off_t mistakes); each binary must be a
#    static ELF for its machine (readelf -h: class, byte order, machine).
# Exit 0 pass, 77 skip (no cross compiler at all; part 1 still ran), other = fail.
set -u
cd "${PAGESLEUTH_ROOT:-.}" || exit 1
DYN=${PAGESLEUTH_FAST:-${PAGESLEUTH:-build/pagesleuth}}
CC=${CC:-cc}
T=$(mktemp -d /tmp/live_static_cross.XXXXXX)
PIDS=""
cleanup() {
	for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fail() { echo "live_static_cross: FAIL: $*"; exit 1; }
now_ms() { date +%s%3N; }
[ -x "$DYN" ] || fail "no pagesleuth binary at $DYN"

# A static ELF: no program interpreter, no dynamic section.
check_static() { # FILE
	readelf -lW "$1" | grep -q 'Requesting program interpreter' && fail "$1 asks for a program interpreter"
	readelf -dW "$1" | grep -q 'NEEDED' && fail "$1 needs shared libraries: $(readelf -dW "$1" | grep NEEDED)"
	readelf -SW "$1" | grep -q ' \.dynamic ' && fail "$1 has a dynamic section"
	return 0
}

# 1. The host build against the full binary.
t0=$(now_ms)
make -s B="$T/build" static >"$T/make-host.log" 2>&1 || { tail -20 "$T/make-host.log"; fail "make static failed"; }
echo "live_static_cross: make static: $(($(now_ms) - t0)) ms; $(grep '^static-host:' "$T/make-host.log" | sed 's/^static-host: [^:]*: //')"
LIVE=$T/build/static-host/pagesleuth-live
[ -x "$LIVE" ] || fail "make static made no $LIVE"
check_static "$LIVE"
file "$LIVE" | grep -q 'statically linked' || fail "file(1) does not call $LIVE statically linked: $(file "$LIVE")"
"$LIVE" --help | grep -q '^  snap ' || fail "pagesleuth-live --help lists no snap"
"$LIVE" report x >/dev/null 2>&1
[ $? = 2 ] || fail "pagesleuth-live accepted a command it does not have (report)"

CFLAGS="-std=gnu11 -D_GNU_SOURCE -O2 -Wall -Wextra"
$CC $CFLAGS -static -o "$T/layout" tests/progs/layout.c 2>/dev/null ||
	$CC $CFLAGS -o "$T/layout" tests/progs/layout.c || fail "cannot build tests/progs/layout.c"
"$T/layout" 2 2 >"$T/layout.out" 2>&1 &
PIDS=$!
disown
i=0
while ! grep -q '^ready' "$T/layout.out" 2>/dev/null; do
	i=$((i + 1))
	[ $i -le 300 ] || fail "layout did not become ready: $(cat "$T/layout.out")"
	sleep 0.02
done
P=$(sed -n 's/.*parent=\([0-9]*\).*/\1/p' "$T/layout.out")
C=$(sed -n 's/.*child=\([0-9]*\).*/\1/p' "$T/layout.out")
PIDS="$P $C"
kill -STOP $P $C
# The capture times differ; everything else must not, but for the mapcounts of the vdso
# pages: a process maps a vdso page when it first touches it, the dynamic loader touches more
# of them than a static program does, and the snapshotting process is one of the mappers.
# The kernel's counters and slab records are the whole system's at each moment: they are
# compared by name only (both binaries must write the same ones).
untimed() {
	sed -E 's/ (time|uptime_ns)=[^ ]*//g' "$1" |
		awk '/^vma / { vdso = / kind=vdso / } !(vdso && /^(m|sum) /) && !/^(counter|slab) /'
}
counter_names() { sed -nE 's/^(counter|slab) (.* )?name=([^ ]*).*/\1 \3/p' "$1"; }
same=""
for attempt in 1 2 3 4 5; do
	"$LIVE" snap --pid $P --pid $C -o "$T/static.rec" 2>"$T/static.err"; rc_static=$?
	"$DYN" snap --pid $P --pid $C -o "$T/dynamic.rec" 2>"$T/dynamic.err"; rc_dyn=$?
	[ $rc_static = $rc_dyn ] || fail "exit status: static $rc_static, dynamic $rc_dyn ($(head -1 "$T/static.err"))"
	[ $rc_static = 0 ] || fail "static snap exited $rc_static: $(head -1 "$T/static.err")"
	if cmp -s <(untimed "$T/static.rec") <(untimed "$T/dynamic.rec"); then same=$attempt; break; fi
	diff <(untimed "$T/static.rec") <(untimed "$T/dynamic.rec") >"$T/diff.$attempt"
done
[ -n "$same" ] || { head -10 "$T/diff.5"
	fail "static and dynamic snapshots of stopped pids $P $C differ in 5 attempts"; }
grep -q '^end status=complete ' "$T/static.rec" || fail "static snapshot not complete"
cmp -s <(counter_names "$T/static.rec") <(counter_names "$T/dynamic.rec") && [ -s "$T/static.rec" ] &&
	[ "$(counter_names "$T/static.rec" | wc -l)" -gt 100 ] ||
	fail "the static and dynamic snaps write different kernel counters: $(diff <(counter_names "$T/static.rec") <(counter_names "$T/dynamic.rec") | head -3 | tr '\n' ' ')"
echo "live_static_cross: static snap of pids $P $C = dynamic snap: $(wc -l <"$T/static.rec") lines, attempt $same"
[ "$same" = 1 ] || echo "live_static_cross: attempt 1 differed in: $(head -3 "$T/diff.1" | tr '\n' ' ')"

# 2. Cross builds: every target whose compiler is here.
t0=$(now_ms)
make -s -j2 B="$T/build" static-cross >"$T/make-cross.log" 2>&1 || { tail -20 "$T/make-cross.log"; fail "make static-cross failed"; }
echo "live_static_cross: make static-cross: $(($(now_ms) - t0)) ms"
built=0
for spec in ppc32:ELF32:big:PowerPC armhf:ELF32:little:ARM arm64:ELF64:little:AArch64 ppc64le:ELF64:little:PowerPC64; do
	IFS=: read -r arch class order machine <<<"$spec"
	bin=$T/build/static-$arch/pagesleuth-live
	if grep -q "^static-cross: skipped $arch:" "$T/make-cross.log"; then
		echo "live_static_cross: $arch: not built ($(sed -n "s/^static-cross: skipped $arch: //p" "$T/make-cross.log"))"
		continue
	fi
	[ -f "$bin" ] || fail "make static-cross made no $bin"
	h=$(readelf -h "$bin") || fail "readelf -h $bin failed"
	grep -q "Class: *$class\$" <<<"$h" || fail "$arch: not $class: $(grep Class <<<"$h")"
	grep -q "Data: .*$order endian" <<<"$h" || fail "$arch: not $order endian: $(grep Data <<<"$h")"
	grep -q "Machine: *$machine\$" <<<"$h" || fail "$arch: not $machine: $(grep Machine <<<"$h")"
	grep -q "Type: *EXEC" <<<"$h" || fail "$arch: not an executable: $(grep Type <<<"$h")"
	check_static "$bin"
	echo "live_static_cross: $arch: $(grep "^static-$arch:" "$T/make-cross.log" | sed 's/^static-[^:]*: [^:]*: //')"
	built=$((built + 1))
done
if [ $built = 0 ]; then
	echo "live_static_cross: SKIP: no cross compiler installed (part 1 passed)"
	exit 77
fi
echo "live_static_cross: OK"
