#!/bin/bash
# fetch-dbg.sh ARCH PACKAGE VERSION   -- the DWARF vmlinux of a Debian kernel, cached
# fetch-dbg.sh --fixture NAME|DIR     -- the same for a fixture (its MANIFEST's debug_package,
#                                        from the MANIFEST's `suite` if it names one)
#
# Downloads Debian's linux-image-<release>-dbg .deb for ARCH (x86_64/amd64, arm64, ppc64le/
# ppc64el, arm/armhf) with the fixtures' private apt state (tests/fixtures/scripts/
# apt-foreign.sh: nothing is installed or configured on the host), extracts only
# usr/lib/debug/boot/vmlinux-<release> from it and drops the .deb: the package is 0.3-0.8 GB
# and everything else in it (modules' debug info) is not needed. Cached in
# ${PAGESLEUTH_CACHE:-/var/cache/pagesleuth}/dbg/<debarch>/<package>_<version>/: nothing is
# fetched twice. PS_SUITE=SUITE (apt-foreign.sh) looks in another suite than bookworm; index
# updates and the download are tried three times (transient archive errors).
#
# Prints the vmlinux path (stdout, last line); on stderr one line with the download and
# extraction times (also kept in the cache as `timing`, so a cached run can still say them).
# Exit: 0 ok; 3 not available (the exact version left the archive, or the archive cannot be
# reached: callers skip); 1 anything else (a broken .deb, no vmlinux in it, disk full).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
apt_foreign=$root/tests/fixtures/scripts/apt-foreign.sh
die() { echo "fetch-dbg: $*" >&2; exit 1; }
unavailable() { echo "fetch-dbg: $*" >&2; exit 3; }

if [ "${1:-}" = --fixture ]; then
	[ $# -eq 2 ] || die "usage: fetch-dbg.sh --fixture NAME|DIR"
	fx=$2
	[ -d "$fx" ] || fx=$root/tests/fixtures/data/$2
	man=$fx/MANIFEST
	[ -f "$man" ] || die "$man: no such file"
	read -r _ pkg ver _ < <(grep '^debug_package ' "$man") || die "$man: no debug_package line"
	arch=$(sed -n 's/^fixture //p' "$man")
	# A fixture of another Debian suite (x86_64-bullseye, -trixie, -forky) names it: its
	# -dbg package is looked up there (apt-foreign.sh's PS_SUITE: own state and lists).
	suite=$(sed -n 's/^suite \([a-z][a-z]*\).*/\1/p' "$man")
	if [ -n "$suite" ]; then export PS_SUITE=$suite; else unset PS_SUITE; fi
	arch=${arch%%-*} # x86_64-trixie, ppc64le-hash: the architecture before the first '-'
else
	[ $# -eq 3 ] || die "usage: fetch-dbg.sh ARCH PACKAGE VERSION | --fixture NAME|DIR"
	arch=$1 pkg=$2 ver=$3
fi
case $arch in
x86_64 | amd64) debarch=amd64 ;;
arm64 | aarch64) debarch=arm64 ;;
ppc64le | ppc64el) debarch=ppc64el ;;
arm | armhf) debarch=armhf ;;
*) die "no Debian architecture for '$arch'" ;;
esac
case $pkg in
linux-image-*-dbg) release=${pkg#linux-image-} release=${release%-dbg} ;;
*) die "$pkg: not a linux-image-RELEASE-dbg package" ;;
esac

export PAGESLEUTH_CACHE=${PAGESLEUTH_CACHE:-/var/cache/pagesleuth}
fver=${ver//:/%3a} # apt-get download URL-encodes the epoch colon
dir=$PAGESLEUTH_CACHE/dbg/$debarch/${pkg}_$fver
vmlinux=$dir/vmlinux-$release
if [ -f "$dir/.ok" ] && [ -f "$vmlinux" ]; then
	echo "fetch-dbg: cached $vmlinux ($(cat "$dir/timing" 2>/dev/null || echo 'timing unknown'))" >&2
	echo "$vmlinux"
	exit 0
fi
command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null || die "needs apt-get and dpkg-deb (Debian)"
[ -x "$apt_foreign" ] || [ -f "$apt_foreign" ] || die "$apt_foreign missing"

# The index: refreshed at most daily by apt-foreign.sh. The exact version must be listed.
# An update that failed (a transient archive error) leaves no fresh index, so apt-foreign.sh
# tries again on the next call: three tries, 15 s apart.
for try in 1 2 3; do
	bash "$apt_foreign" "$debarch" update || true
	bash "$apt_foreign" "$debarch" apt-cache show "$pkg" 2>/dev/null | grep -q '^Package:' && break
	[ $try -lt 3 ] && { echo "fetch-dbg: $pkg not in the index ($debarch${PS_SUITE:+, $PS_SUITE}); updating again in 15 s" >&2; sleep 15; }
done
if ! bash "$apt_foreign" "$debarch" apt-cache show "$pkg=$ver" 2>/dev/null | grep '^Package:' >/dev/null; then
	have=$(bash "$apt_foreign" "$debarch" apt-cache show "$pkg" 2>/dev/null | sed -n 's/^Version: //p' | paste -sd, - || true)
	[ -n "$have" ] && have="it has $have" || have="nor is any version of it"
	# No index at all (not even base-files): the archive could not be reached.
	bash "$apt_foreign" "$debarch" apt-cache show base-files 2>/dev/null | grep -q '^Package:' ||
		unavailable "no package index for $debarch${PS_SUITE:+ ($PS_SUITE)}: the archive cannot be reached (3 tries)"
	unavailable "$pkg $ver ($debarch${PS_SUITE:+, $PS_SUITE}) is not in the archive ($have); snapshot.debian.org keeps old versions"
fi

mkdir -p "$dir"
tmp=$(mktemp -d "$dir/tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

t0=$(date +%s.%N)
# A download can fail transiently (a reset connection, a mirror sync): three tries.
for try in 1 2 3; do
	rm -f "$tmp"/*.deb
	(cd "$tmp" && bash "$apt_foreign" "$debarch" apt-get download "$pkg=$ver" >"$tmp/apt.log" 2>&1) && break
	[ $try -lt 3 ] || unavailable "apt-get download $pkg=$ver ($debarch) failed 3 times: $(grep -v unsandboxed "$tmp/apt.log" | tail -1)"
	echo "fetch-dbg: apt-get download $pkg=$ver failed ($(grep -v unsandboxed "$tmp/apt.log" | tail -1)); retrying in 15 s" >&2
	sleep 15
done
deb=$(ls "$tmp"/*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || die "apt-get download $pkg=$ver left no .deb"
t1=$(date +%s.%N)
size_mb=$(( $(stat -c %s "$deb") / 1000000 ))

# Only the vmlinux: data.tar is sorted, usr/lib/debug/boot/ comes before lib/modules/, and
# --occurrence=1 lets tar stop there instead of decompressing the whole package (dpkg-deb
# then dies of SIGPIPE, which is expected; tar's status and the file decide).
member=./usr/lib/debug/boot/vmlinux-$release
set +o pipefail
dpkg-deb --fsys-tarfile "$deb" 2>/dev/null | tar -x -C "$tmp" --occurrence=1 "$member"
# Since Linux 7.x Debian's package keeps the vmlinux in usr/lib/debug/lib/modules/<release>/
# and boot/vmlinux-<release> is a symbolic link to it (after the modules in the tar): the
# link's target, in a second pass.
if [ -L "$tmp/$member" ]; then
	link=$(readlink "$tmp/$member")
	case $link in
	/*) target=.$link ;;
	*) target=$(realpath -m --relative-to=/ "/$(dirname "${member#./}")/$link") target=./$target ;;
	esac
	rm -f "$tmp/$member"
	dpkg-deb --fsys-tarfile "$deb" 2>/dev/null | tar -x -C "$tmp" --occurrence=1 "$target"
	[ -f "$tmp/$target" ] && [ ! -L "$tmp/$target" ] && mkdir -p "$(dirname "$tmp/$member")" &&
		mv "$tmp/$target" "$tmp/$member"
fi
set -o pipefail
[ -s "$tmp/$member" ] && [ ! -L "$tmp/$member" ] || die "$deb: no $member in the package"
mv "$tmp/$member" "$vmlinux.new"
t2=$(date +%s.%N)
timing=$(awk -v a="$t0" -v b="$t1" -v c="$t2" -v mb="$size_mb" \
	'BEGIN { printf "download %d MB in %.1f s, vmlinux extracted in %.1f s", mb, b - a, c - b }')
mv "$vmlinux.new" "$vmlinux"
echo "$timing" > "$dir/timing"
echo "$pkg $ver" > "$dir/.ok"
echo "fetch-dbg: $pkg $ver: $timing -> $vmlinux ($(( $(stat -c %s "$vmlinux") / 1000000 )) MB)" >&2
echo "$vmlinux"
