#!/usr/bin/env bash
# Build crash from a Debian source package, for benchmarks and for building crash extensions
# against a crash that can read newer kernels than bookworm's crash 8.0.2 (which cannot list
# tasks on Debian's 6.1.19x kernels: see docs/crash-ext.md and the shared notes on crash).
#
#   scripts/build-crash.sh            crash 8.0.6 (trixie's source): build if not built; print
#                                     the binary's path last
#   CRASH_VERSION=9.0.2 scripts/build-crash.sh   crash 9.0.2 (forky's/sid's source, gdb 16.3):
#                                     opens Linux 7.x, which 8.0.6 cannot; ~30 min
#   CRASH_TARGET=ARM64|PPC64 scripts/build-crash.sh   a cross crash for arm64 or ppc64(le)
#                                     dumps on this x86_64 host (crash's own `make target=`),
#                                     in crash-VERSION-arm64/ or crash-VERSION-ppc64/
#
# Versions: 8.0.6 (the default) and 9.0.2 are known; any other CRASH_VERSION is looked up in
# trixie, forky and sid (the Debian source version VERSION-N or VERSION+~GDB-N).
# Result in ${PAGESLEUTH_CACHE:-/var/cache/pagesleuth}/crash-VERSION[-target]/:
#   crash      the binary          defs.h     its headers for extensions
#   build.log  the build's output  src/       the unpacked source tree
# Idempotent: does nothing when that crash exists and runs. 8.0.6 takes ~12 min (x86_64; its
# bundled gdb 10.2), ~36 min for PPC64; 9.0.2 (gdb 16.3, C++) longer. BUILD_JOBS (default 2)
# and niceness 10 keep it polite on shared cores.
#
# The source is fetched with a private apt state (a temporary sources file and lists
# directory under the work dir); the host's apt configuration is never modified.
# Exit: 0 built (or cached); 3 the source cannot be had (not in the archive, or the archive
# cannot be reached: callers skip); 1 the build failed; 2 usage.
set -euo pipefail

VERSION=${CRASH_VERSION:-8.0.6}
case $VERSION in
8.0.6) DEB_VERSION=8.0.6-1 SUITES="trixie" ;;
9.0.2) DEB_VERSION=9.0.2+~16.3-1 SUITES="forky sid" ;;
[0-9]*.[0-9]*) DEB_VERSION="" SUITES="trixie forky sid" ;; # looked up below
*) echo "build-crash: CRASH_VERSION must look like 9.0.2" >&2; exit 2 ;;
esac
DEB_VERSION=${CRASH_DEB_VERSION:-$DEB_VERSION}
CACHE=${PAGESLEUTH_CACHE:-/var/cache/pagesleuth}
TARGET=${CRASH_TARGET:-X86_64}
case $TARGET in
X86_64) OUT=$CACHE/crash-$VERSION ;;
ARM64 | PPC64) OUT=$CACHE/crash-$VERSION-$(echo "$TARGET" | tr A-Z a-z) ;;
*) echo "build-crash: CRASH_TARGET must be X86_64, ARM64 or PPC64" >&2; exit 2 ;;
esac
JOBS=${BUILD_JOBS:-2}
LOG=$OUT/build.log

built_version() { "$1" --version 2>/dev/null | awk '/^crash /{ print $2; exit }'; }
if [ -x "$OUT/crash" ] && [ "$(built_version "$OUT/crash")" = "$VERSION" ]; then
	echo "$OUT/crash"
	exit 0
fi

mkdir -p "$OUT"
: >"$LOG"
say() { echo "build-crash: $*" | tee -a "$LOG" >&2; }
unavailable() { say "$*"; exit 3; }

# ---- build dependencies (Debian packages on the host) -------------------------------------
deps=(build-essential bison flex texinfo libncurses-dev zlib1g-dev liblzo2-dev libsnappy-dev
	libzstd-dev wget dpkg-dev)
case $VERSION in 8.*) ;; *) deps+=(libgmp-dev libmpfr-dev) ;; esac # gdb >= 11 needs GMP, MPFR
need=()
for p in "${deps[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	say "installing build dependencies: ${need[*]}"
	SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get install -y -q "${need[@]}" >>"$LOG" 2>&1 ||
		{ $SUDO apt-get update -q >>"$LOG" 2>&1 && $SUDO apt-get install -y -q "${need[@]}" >>"$LOG" 2>&1; } ||
		{ say "cannot install ${need[*]}"; exit 1; }
fi

# ---- source: Debian's crash source package via a private apt state ------------------------
work=$CACHE/crash-$VERSION/apt # one source download for every target
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/src"
# The sources file is named after its suites, so apt never mixes two versions' lists.
rm -f "$work"/*-src.sources
cat >"$work/${SUITES// /-}-src.sources" <<EOT
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $SUITES
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOT
APT_OPTS=(
	-o Dir::Etc::sourcelist=/dev/null
	-o Dir::Etc::sourceparts="$work"
	-o Dir::State::Lists="$work/lists"
	-o Dir::Cache="$work/cache"
	-o Debug::NoLocking=1
)
# retry CMD...: the archive now and then answers a transient error (a mirror sync, a reset
# connection): three tries, 10 s apart.
retry() {
	local i
	for i in 1 2 3; do
		"$@" && return 0
		[ $i -lt 3 ] && { say "transient failure? retrying in 10 s: $*"; sleep 10; }
	done
	return 1
}
have_source() { # the unpacked-source inputs are in $work/src
	if [ "$VERSION" = 8.0.6 ]; then
		ls "$work/src/crash_$VERSION"*.orig.tar.* >/dev/null 2>&1
	else
		ls "$work/src/crash_$VERSION"*.dsc >/dev/null 2>&1
	fi
}
if ! have_source; then
	say "fetching crash ${DEB_VERSION:-$VERSION} source ($SUITES; private apt state in $work)"
	# apt-get update only warns when the archive cannot be reached: the index decides.
	update_ok() {
		apt-get "${APT_OPTS[@]}" update -q >>"$LOG" 2>&1 &&
			ls "$work/lists/"*_Sources* >/dev/null 2>&1
	}
	retry update_ok || unavailable "apt-get update for $SUITES deb-src failed (the archive cannot be reached?); see $LOG"
	listed=$(apt-cache "${APT_OPTS[@]}" showsrc crash 2>/dev/null | sed -n 's/^Version: //p' | sort -u || true)
	if [ -z "$DEB_VERSION" ]; then
		DEB_VERSION=$(echo "$listed" | grep -E "^${VERSION//./\\.}(\+~[^-]*)?-[^-]+\$" | sort -V | tail -1 || true)
		[ -n "$DEB_VERSION" ] || unavailable "no crash $VERSION source in $SUITES (have: ${listed//$'\n'/ })"
	fi
	echo "$listed" | grep -qxF "$DEB_VERSION" ||
		unavailable "crash $DEB_VERSION is not in $SUITES any more (have: ${listed//$'\n'/ }); set CRASH_VERSION (and CRASH_DEB_VERSION) to one of those"
	if [ "$VERSION" = 8.0.6 ]; then
		# Its orig tarball bundles gdb-10.2.tar.gz; Debian's patches are not needed.
		(cd "$work/src" && retry apt-get "${APT_OPTS[@]}" source --download-only --tar-only \
			"crash=$DEB_VERSION") >>"$LOG" 2>&1 || unavailable "downloading crash $DEB_VERSION failed; see $LOG"
	else
		# 9.x: gdb comes as a second (component) tarball, and Debian's patches make crash's
		# Makefile use it instead of downloading gdb: the whole source package.
		(cd "$work/src" && retry apt-get "${APT_OPTS[@]}" source --download-only \
			"crash=$DEB_VERSION") >>"$LOG" 2>&1 || unavailable "downloading crash $DEB_VERSION failed; see $LOG"
	fi
fi

# ---- build ---------------------------------------------------------------------------------
src=$OUT/src
# A build interrupted inside gdb's (configured, crash.target not yet written) cannot resume:
# crash's Makefile then asks for a fresh gdb tree. Start over.
for cfg in "$src"/gdb-*/config.status; do
	if [ -f "$cfg" ] && [ ! -f "$(dirname "$cfg")/crash.target" ]; then
		say "an earlier build of $src was interrupted in gdb's: starting over"
		rm -rf "$src"
	fi
done
if [ ! -f "$src/Makefile" ]; then
	rm -rf "$src"
	if [ "$VERSION" = 8.0.6 ]; then
		orig=$(ls "$work/src/crash_$VERSION"*.orig.tar.* | head -1)
		mkdir -p "$src"
		tar -xf "$orig" -C "$src" --strip-components=1
	else
		dsc=$(ls "$work/src/crash_$VERSION"*.dsc | sort -V | tail -1)
		# The archive's signed index vouched for these files' checksums (apt checked them);
		# dpkg-source checks them against the .dsc and applies debian/patches.
		dpkg-source --no-check -x "$dsc" "$src" >>"$LOG" 2>&1 ||
			{ rm -rf "$src"; say "dpkg-source -x $dsc failed; see $LOG"; exit 1; }
		# dpkg-source leaves copies of the orig tarballs beside $src: the ones in $work do.
		rm -f "$OUT/crash_$VERSION"*.orig*.tar.*
	fi
fi
say "building crash $VERSION for $TARGET in $src (make -j$JOBS, nice 10; log $LOG)"
# crash's top-level make downloads gdb unless its source is present: Debian's 8.0.6 orig
# tarball bundles gdb-10.2.tar.gz, 9.x's source package has gdb-16.3 as a component (gdb/),
# so no network is needed here.
t0=$(date +%s)
(cd "$src" && nice -n 10 make -j"$JOBS" target="$TARGET") >>"$LOG" 2>&1 ||
	{ say "build failed; tail of $LOG:"; tail -30 "$LOG" >&2; exit 1; }

install -m 0755 "$src/crash" "$OUT/crash.new"
mv "$OUT/crash.new" "$OUT/crash"
install -m 0644 "$src/defs.h" "$OUT/defs.h"
"$OUT/crash" --version 2>/dev/null | head -3 >>"$LOG" || true
say "done in $(( ($(date +%s) - t0) / 60 )) min: $OUT/crash"
echo "$OUT/crash"
