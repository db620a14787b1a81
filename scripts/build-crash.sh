#!/usr/bin/env bash
# Build crash 8.0.6 (x86_64 target) from Debian trixie's source package, for benchmarks and
# for building crash extensions against a crash that can list tasks on Debian's 6.1.19x
# kernels (bookworm's crash 8.0.2 cannot: see docs / shared notes on crash).
#
#   scripts/build-crash.sh            build if not built; print the binary's path last
#   CRASH_TARGET=ARM64 scripts/build-crash.sh   a cross crash for arm64 dumps on this x86_64
#                                     host (crash's own `make target=ARM64`), in crash-8.0.6-arm64/
#
# Result in ${PAGESLEUTH_CACHE:-/var/cache/pagesleuth}/crash-8.0.6/:
#   crash      the binary          defs.h     its headers for extensions
#   build.log  the build's output  src/       the unpacked source tree
# Idempotent: does nothing when crash-8.0.6/crash exists and runs. Takes ~12 min (it builds
# its bundled gdb 10.2); BUILD_JOBS (default 2) and niceness 10 keep it polite on shared cores.
#
# The source is fetched with a private apt state (a temporary sources file and lists
# directory under the work dir); the host's apt configuration is never modified.
set -euo pipefail

VERSION=8.0.6
DEB_VERSION=8.0.6-1
CACHE=${PAGESLEUTH_CACHE:-/var/cache/pagesleuth}
TARGET=${CRASH_TARGET:-X86_64}
case $TARGET in
X86_64) OUT=$CACHE/crash-$VERSION ;;
ARM64 | PPC64) OUT=$CACHE/crash-$VERSION-$(echo "$TARGET" | tr A-Z a-z) ;;
*) echo "build-crash: CRASH_TARGET must be X86_64, ARM64 or PPC64" >&2; exit 2 ;;
esac
JOBS=${BUILD_JOBS:-2}
LOG=$OUT/build.log

if [ -x "$OUT/crash" ] && "$OUT/crash" --version 2>/dev/null | grep -q "crash $VERSION"; then
	echo "$OUT/crash"
	exit 0
fi

mkdir -p "$OUT"
: >"$LOG"
say() { echo "build-crash: $*" | tee -a "$LOG" >&2; }

# ---- build dependencies (Debian packages on the host) -------------------------------------
need=()
for p in build-essential bison flex texinfo libncurses-dev zlib1g-dev liblzo2-dev \
	libsnappy-dev libzstd-dev wget dpkg-dev; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	say "installing build dependencies: ${need[*]}"
	SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get install -y -q "${need[@]}" >>"$LOG" 2>&1 ||
		{ $SUDO apt-get update -q >>"$LOG" 2>&1 && $SUDO apt-get install -y -q "${need[@]}" >>"$LOG" 2>&1; }
fi

# ---- source: trixie's crash_8.0.6 tarball via a private apt state ---------------------------
work=$CACHE/crash-$VERSION/apt # one source download for every target
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/src"
cat >"$work/trixie-src.sources" <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
APT_OPTS=(
	-o Dir::Etc::sourcelist=/dev/null
	-o Dir::Etc::sourceparts="$work"
	-o Dir::State::Lists="$work/lists"
	-o Dir::Cache="$work/cache"
	-o Debug::NoLocking=1
)
orig=$(ls "$work/src"/crash_"$VERSION"*.orig.tar.* 2>/dev/null | head -1 || true)
if [ -z "$orig" ]; then
	say "fetching crash $DEB_VERSION source (trixie, private apt state in $work)"
	apt-get "${APT_OPTS[@]}" update -q >>"$LOG" 2>&1
	(cd "$work/src" && apt-get "${APT_OPTS[@]}" source --download-only --tar-only \
		"crash=$DEB_VERSION") >>"$LOG" 2>&1
	orig=$(ls "$work/src"/crash_"$VERSION"*.orig.tar.* | head -1)
fi

# ---- build ---------------------------------------------------------------------------------
src=$OUT/src
if [ ! -f "$src/Makefile" ]; then
	rm -rf "$src"
	mkdir -p "$src"
	tar -xf "$orig" -C "$src" --strip-components=1
fi
say "building in $src (make -j$JOBS, nice 10; log $LOG)"
# crash's top-level make downloads gdb unless the tarball is present: Debian's orig tarball
# bundles gdb-10.2.tar.gz, so no network is needed here.
(cd "$src" && nice -n 10 make -j"$JOBS" target="$TARGET") >>"$LOG" 2>&1 ||
	{ say "build failed; tail of $LOG:"; tail -30 "$LOG" >&2; exit 1; }

install -m 0755 "$src/crash" "$OUT/crash.new"
mv "$OUT/crash.new" "$OUT/crash"
install -m 0644 "$src/defs.h" "$OUT/defs.h"
"$OUT/crash" --version 2>/dev/null | head -3 >>"$LOG" || true
say "done: $OUT/crash"
echo "$OUT/crash"
