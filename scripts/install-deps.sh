#!/usr/bin/env bash
# Install the Debian 12 packages pagesleuth needs (idempotent: apt runs only when something
# is missing). Why each is there: README.md, "Dependencies".
#   install-deps.sh build   what building pagesleuth and `make report-demo` need
#   install-deps.sh [all]   that and everything the test suite runs (crash, Valgrind, QEMU,
#                           cross compilers, PostgreSQL, clang); `make deps`, `make test`
# Installed size with dependencies, measured on Debian 12 (dpkg's Installed-Size over apt's
# dependency closure, required/important packages left out): build ~370 MiB (mostly gcc),
# all ~2 GiB (~1.6 GiB before chromium, which alone is ~0.35 GiB; the whole not re-measured).
set -euo pipefail
set_name=${1:-all}
case $set_name in build | all) ;; *) echo "usage: install-deps.sh [build|all]" >&2; exit 2 ;; esac
build_packages=(
	build-essential        # gcc, make
	zlib1g-dev             # deflate for compressed outputs and crash's defs.h
	zstd                   # committed fixtures and example records are zstd-compressed
	libzstd-dev            # report, diff and db import read .zst records as they are (zlib: .gz)
	libkdumpfile-dev       # reading kernel dumps (fixture self-check, coredump/)
	libdeflate-dev         # inflating the zlib pages of kdump-compressed dumps (coredump/kdump_pages.c)
	libelf-dev libdw-dev   # ELF and DWARF (coredump/, --vmlinux)
	libbpf-dev             # BTF type information found inside dumps
	libsqlite3-dev         # pagesleuth db: the embedded backend
	libpq-dev              # pagesleuth db: the PostgreSQL backend (the client library)
)
test_packages=(
	clang libclang-rt-14-dev  # libFuzzer harness for the record parser
	libxml2-utils          # xmllint: the tests check that SVG/HTML output is well-formed
	makedumpfile           # kdump_reads.sh recompresses a fixture dump with each compression
	python3                # fixture orchestration (QMP); scripts/help2man.py: man pages and completion from --help
	man-db groff-base      # make man and tests/cases/install.sh: the generated man pages rendered and checked
	sqlite3                # the sqlite3 shell the db tests read the database with
	postgresql             # the db tests start a private PostgreSQL server
	crash                  # Debian's crash 8.0.2: defs.h for crash-ext/, and the tests run the extension in it
	valgrind               # valgrind/: headers and static libraries the out-of-tree tool links; the tests run it, Lackey and DHAT
	qemu-system-ppc        # live_idle_guest.sh: an e500 guest whose kernel has idle page tracking; valgrind_boards.sh: ppc64el and ppc32 guests
	qemu-system-arm        # valgrind_boards.sh: the Valgrind tool run in arm64 and armhf guests
	gcc-powerpc-linux-gnu libc6-dev-powerpc-cross      # static ppc32 pagesleuth-live and the guest's programs
	gcc-arm-linux-gnueabihf libc6-dev-armhf-cross      # make static-cross (armhf)
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross        # make static-cross (arm64)
	gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross  # make static-cross (ppc64le)
	file                   # live_static_cross.sh: checks the static builds are statically linked
	chromium               # report_html.sh: the HTML report rendered headless (height, screenshot, tree)
)
packages=("${build_packages[@]}")
[ "$set_name" = all ] && packages+=("${test_packages[@]}")
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
	echo "install-deps: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
	$SUDO apt-get update -qq || echo "install-deps: apt-get update failed, trying with the cached lists" >&2
	# A transient archive error (a mirror mid-sync, a dropped connection) is retried, with
	# the lists refreshed, before it is a failure.
	for try in 1 2 3 4; do
		$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" && break
		[ "$try" = 4 ] && { echo "install-deps: apt-get install failed 4 times" >&2; exit 1; }
		echo "install-deps: apt-get install failed (try $try of 4); retrying in $((try * 10)) s" >&2
		sleep $((try * 10))
		$SUDO apt-get update -qq || true
	done
fi
