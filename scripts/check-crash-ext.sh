#!/usr/bin/env bash
# check-crash-ext.sh SO CRASH - every symbol pagesleuth.so needs must be defined by crash or
# by a library the .so links. A shared object may be linked with undefined symbols (crash's
# own functions are, on purpose), so a missing object file only shows when crash loads the
# library ("undefined symbol"); this makes it a build error instead.
set -euo pipefail
so=$1 crash=$2
defined=$(mktemp)
trap 'rm -f "$defined"' EXIT
{
	nm -D --defined-only "$crash" | awk '{ print $NF }'
	# The libraries the .so links, and the dynamic loader (it defines __tls_get_addr, which
	# thread-local variables in a -fPIC object call).
	ldd "$so" | awk '$3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | while read -r lib; do
		nm -D --defined-only "$lib" | awk '{ print $NF }'
	done
} | sed 's/@.*//' | sort -u >"$defined"
missing=$(nm -D --undefined-only "$so" | awk '$1 == "U" { print $2 }' | sed 's/@.*//' | sort -u |
	comm -23 - "$defined")
if [ -n "$missing" ]; then
	echo "$so: symbols neither crash ($crash) nor its libraries define:" $missing >&2
	exit 1
fi
