#!/usr/bin/env bash
# The analyzer's own output on live records against the kernel's figures: for a parent and
# a forked child with a known layout (tests/progs/layout.c), `pagesleuth report -f csv -a pss`
# must give RSS, USS and swap equal to /proc/PID/smaps_rollup (Rss, Private_Clean +
# Private_Dirty, Swap) and PSS within 1 KiB of its Pss; the records' referenced pages (the
# thrash table's working set) equal its Referenced.
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "skip: needs root to read PFNs and mapcounts"; exit 77; }
bin=${PAGESLEUTH:-build/pagesleuth}
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT

# Static (tests/cases/lib/layout.sh): with a shared libc, other processes move the mapcounts
# of libc's pages between the two reads, and PSS with them (measured: 1-4 KiB).
. tests/cases/lib/layout.sh
layout_build
layout_start root
parent=$layout_parent child=$layout_child

# Both processes are blocked: the kernel's view and the snapshot see the same pages.
for p in "$parent" "$child"; do cp "/proc/$p/smaps_rollup" "$tmp/rollup.$p"; done
"$bin" snap --pid "$parent" --pid "$child" -o "$tmp/rec"
"$bin" report -f csv -a pss "$tmp/rec" > "$tmp/csv"

kb() { awk -v k="$1:" '$1 == k { print $2 }' "$2"; }
# KiB of referenced pages in the sum records of the mm whose tgid is PID
rec_ref_kb() { # RECORDS PID
	awk -v p="$2" '$1 == "mm" { on = ($3 == "tgid=" p); if (on) { id = $2; sub("id=", "", id) } }
		$1 == "sum" && on && $2 == "mm=" id { for (i = 3; i <= NF; i++) if ($i ~ /^referenced=/) { sub("referenced=", "", $i); s += $i } }
		END { print s * 4 }' "$1"
}
fail=0
for p in "$parent" "$child"; do
	line=$(awk -F, -v p="$p" '/^# table: pss$/ { t = 1; next } /^$/ { t = 0 }
		t && $1 == p { print; exit }' "$tmp/csv")
	[ -n "$line" ] || { echo "FAIL: pid $p missing from the pss table"; fail=1; continue; }
	IFS=, read -r _ _ _ rss pss uss swap <<< "$line"
	k_rss=$(kb Rss "$tmp/rollup.$p"); k_pss=$(kb Pss "$tmp/rollup.$p")
	k_uss=$(( $(kb Private_Clean "$tmp/rollup.$p") + $(kb Private_Dirty "$tmp/rollup.$p") ))
	k_swap=$(kb Swap "$tmp/rollup.$p")
	echo "pid $p: rss $rss/$k_rss pss $pss/$k_pss uss $uss/$k_uss swap $swap/$k_swap (ours/kernel, KiB)"
	[ "$rss" -eq "$k_rss" ] || { echo "FAIL: pid $p Rss $rss != $k_rss"; fail=1; }
	[ "$uss" -eq "$k_uss" ] || { echo "FAIL: pid $p USS $uss != Private $k_uss"; fail=1; }
	[ "$swap" -eq "$k_swap" ] || { echo "FAIL: pid $p Swap $swap != $k_swap"; fail=1; }
	ref=$(rec_ref_kb "$tmp/rec" "$p") k_ref=$(kb Referenced "$tmp/rollup.$p")
	echo "pid $p: referenced $ref/$k_ref (ours/kernel, KiB)"
	[ "$ref" -eq "$k_ref" ] || { echo "FAIL: pid $p referenced $ref KiB != Referenced $k_ref"; fail=1; }
	d=$((pss - k_pss)); d=${d#-}
	[ "$d" -le 1 ] || { echo "FAIL: pid $p Pss $pss vs $k_pss (more than 1 KiB apart)"; fail=1; }
done
# Without root (a user snapshotting their own processes): no PFNs or mapcounts, but the
# kernel shows the owner smaps. PSS and USS come from there: PSS equals the sum of the
# per-VMA smaps Pss lines (kB, as the kernel prints each), USS equals Private_Clean +
# Private_Dirty of smaps_rollup, RSS and swap equal the rollup; never 0 for unknown.
user=nobody
if id "$user" >/dev/null 2>&1 && command -v runuser >/dev/null; then
	chmod 755 "$tmp"
	layout_start user "$user"
	uparent=$layout_parent uchild=$layout_child
	for p in "$uparent" "$uchild"; do
		cp "/proc/$p/smaps_rollup" "$tmp/urollup.$p"
		awk '$1 == "Pss:" { s += $2 } END { print s }' "/proc/$p/smaps" > "$tmp/upss.$p"
	done
	bin_abs=$(readlink -f "$bin")
	mkdir "$tmp/u" && chown "$user" "$tmp/u"
	(cd "$tmp/u" && runuser -u "$user" -- "$bin_abs" snap --pid "$uparent" --pid "$uchild" -o "$tmp/u/user.rec" 2>/dev/null) ||
		{ echo "FAIL: snap as $user"; fail=1; }
	grep -q '^header .*excluded=pfn-hidden' "$tmp/u/user.rec" || { echo "FAIL: the snapshot as $user is not pfn-hidden"; fail=1; }
	"$bin" report -f csv -a pss "$tmp/u/user.rec" > "$tmp/user.csv"
	for p in "$uparent" "$uchild"; do
		line=$(awk -F, -v p="$p" '/^# table: pss$/ { t = 1; next } /^$/ { t = 0 } t && $1 == p { print; exit }' "$tmp/user.csv")
		IFS=, read -r _ _ _ rss pss uss swap <<< "$line"
		k_rss=$(kb Rss "$tmp/urollup.$p"); k_pss=$(cat "$tmp/upss.$p")
		k_uss=$(( $(kb Private_Clean "$tmp/urollup.$p") + $(kb Private_Dirty "$tmp/urollup.$p") ))
		k_swap=$(kb Swap "$tmp/urollup.$p")
		ref=$(rec_ref_kb "$tmp/u/user.rec" "$p") k_ref=$(kb Referenced "$tmp/urollup.$p")
		echo "as $user, pid $p: rss $rss/$k_rss pss $pss/$k_pss uss $uss/$k_uss swap $swap/$k_swap referenced $ref/$k_ref (ours/kernel, KiB)"
		[ "$rss" = "$k_rss" ] && [ "$pss" = "$k_pss" ] && [ "$uss" = "$k_uss" ] && [ "$swap" = "$k_swap" ] &&
			[ "$ref" = "$k_ref" ] ||
			{ echo "FAIL: pid $p as $user differs from smaps"; fail=1; }
	done
else
	echo "note: no user $user or no runuser: the snapshot without root is not checked"
fi
exit $fail
