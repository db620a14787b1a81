#!/bin/bash
# valgrind-from-source.sh DEBARCH TRIPLET -- Valgrind 3.19 for a target Debian 12 has no
# binary package for (powerpc: no Debian 12 port), built from Debian 12's own source package
# (valgrind 1:3.19.0-1, `apt-get source` with a private deb-src state, never installed) with
# the cross compiler TRIPLET-gcc: VEX, coregrind and default.supp only. Installed into
# ${PAGESLEUTH_CACHE:-/var/cache/pagesleuth}/valgrind-src/root-DEBARCH in the layout of
# Debian's binary package (usr/include/valgrind, usr/lib/TRIPLET/valgrind/*.a,
# usr/libexec/valgrind, usr/bin/valgrind.bin), which mk/valgrind.mk links against as it does
# a fetched package. Cached; prints the root. ~10 min at -j1 the first time.
set -euo pipefail
arch=$1 triplet=$2
ver=1:3.19.0-1
CACHE=${PAGESLEUTH_CACHE:-/var/cache/pagesleuth}/valgrind-src
root=$CACHE/root-$arch
if [ -f "$root/.done" ]; then echo "$root"; exit 0; fi
st=$CACHE/apt
mkdir -p "$st/lists/partial" "$st/archives/partial"
src="deb-src [trusted=yes] http://deb.debian.org/debian bookworm main"
[ "$(cat "$st/sources.list" 2>/dev/null)" = "$src" ] || echo "$src" >"$st/sources.list"
[ -e "$st/status" ] || : >"$st/status"
opts=(-oDir::State::Lists="$st/lists" -oDir::Cache::Archives="$st/archives"
      -oDir::Cache::pkgcache="$st/pkgcache.bin" -oDir::Cache::srcpkgcache="$st/srcpkgcache.bin"
      -oDebug::NoLocking=1 -oDir::Etc::SourceList="$st/sources.list" -oDir::Etc::SourceParts=/dev/null
      -oDir::State::status="$st/status" -qq)
cd "$CACHE"
if [ ! -f valgrind_3.19.0-1.dsc ]; then
	apt-get "${opts[@]}" update >&2 || true
	apt-get "${opts[@]}" source --download-only "valgrind=$ver" >&2 ||
		{ sleep 5; apt-get "${opts[@]}" source --download-only "valgrind=$ver" >&2; }
fi
b=$CACHE/build-$arch
if [ ! -f "$b/.built" ]; then
	rm -rf "$b"; mkdir -p "$b"
	dpkg-source -x valgrind_3.19.0-1.dsc "$b/src" >&2
	cd "$b/src"
	./configure --host="$triplet" --prefix=/usr --libexecdir=/usr/libexec >"$b/configure.log" 2>&1
	make include/vgversion.h default.supp >"$b/make.log" 2>&1   # made by the top level only
	make -j"${JOBS:-1}" -C VEX >>"$b/make.log" 2>&1
	make -j"${JOBS:-1}" -C coregrind >>"$b/make.log" 2>&1
	touch "$b/.built"
fi
s=$b/src
plat=$(sed -n 's/^VGCONF_ARCH_PRI = //p' "$s/coregrind/Makefile")-linux
rm -rf "$root"
mkdir -p "$root/usr/include/valgrind/vki" "$root/usr/lib/$triplet/valgrind" "$root/usr/libexec/valgrind" "$root/usr/bin"
cp "$s"/include/*.h "$s"/VEX/pub/*.h "$s/config.h" "$root/usr/include/valgrind/"
cp "$s"/include/vki/*.h "$root/usr/include/valgrind/vki/"
cp "$s/coregrind/libcoregrind-$plat.a" "$s/VEX/libvex-$plat.a" "$s/coregrind/libgcc-sup-$plat.a" \
	"$s/coregrind/libreplacemalloc_toolpreload-$plat.a" "$root/usr/lib/$triplet/valgrind/"
cp "$s/coregrind/vgpreload_core-$plat.so" "$s/default.supp" "$root/usr/libexec/valgrind/"
cp "$s/coregrind/valgrind" "$root/usr/bin/valgrind.bin"
touch "$root/.done"
echo "$root"
