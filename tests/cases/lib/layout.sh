# layout.sh - start tests/progs/layout.c (a parent and a forked child with a known memory
# layout, blocked until killed) for the live cases. Source it; the caller has $tmp (a temp
# dir) and an array pids (killed by its EXIT trap).
#   layout_build                 compile it statically into $tmp/layout (static: with a shared
#                                libc, other processes move the mapcounts of libc's pages
#                                between two reads, and PSS with them)
#   layout_start NAME [USER]     run it (as USER if given) and wait until it is ready: sets
#                                layout_parent and layout_child; its output is $tmp/NAME.ready
layout_build() {
	cc -std=gnu11 -O1 -static -o "$tmp/layout" "${PAGESLEUTH_ROOT:-.}/tests/progs/layout.c"
}

layout_start() {
	local name=$1 user=${2:-}
	if [ -n "$user" ]; then
		runuser -u "$user" -- "$tmp/layout" 8 2 > "$tmp/$name.ready" &
	else
		"$tmp/layout" 8 2 > "$tmp/$name.ready" &
	fi
	pids+=($!)
	for _ in $(seq 100); do grep -q '^ready' "$tmp/$name.ready" 2>/dev/null && break; sleep 0.1; done
	read -r _ layout_parent layout_child _ < <(sed -e 's/parent=//' -e 's/child=//' "$tmp/$name.ready")
	pids+=("$layout_parent" "$layout_child")
}
