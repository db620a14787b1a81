#!/usr/bin/env bash
# The analyzer's own output on live records against the kernel's figures: for a parent and
# a forked child with a known layout (tests/progs/layout.c), `pagesleuth report -f csv -a pss`
# must give RSS, USS and swap equal to /proc/PID/smaps_rollup (Rss, Private_Clean +
# Private_Dirty, Swap) and PSS within 1 KiB of its Pss; the records' referenced pages (the
# thrash table's working set) equal its Referenced (when Referenced did not move while the
# snapshot was taken: the processes are blocked, but the kernel itself (DAMON's access
# checks, LRU aging) moves accessed bits into page flags and clears them, so a Referenced
# that differs before and after the snapshot is noted and not compared, as in
# live_every.sh); the text tables say the same with
# --units kib (KiB), pages (Rss / page size) and human (parsed back within its rounding).
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
for p in "$parent" "$child"; do cp "/proc/$p/smaps_rollup" "$tmp/rollup_after.$p"; done
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
	k_ref_after=$(kb Referenced "$tmp/rollup_after.$p")
	if [ "$k_ref" != "$k_ref_after" ]; then
		echo "pid $p: note: smaps Referenced moved while the snapshot was taken ($k_ref -> $k_ref_after KiB; ours $ref): not compared"
	else
		echo "pid $p: referenced $ref/$k_ref (ours/kernel, KiB)"
		[ "$ref" -eq "$k_ref" ] || { echo "FAIL: pid $p referenced $ref KiB != Referenced $k_ref"; fail=1; }
	fi
	d=$((pss - k_pss)); d=${d#-}
	[ "$d" -le 1 ] || { echo "FAIL: pid $p Pss $pss vs $k_pss (more than 1 KiB apart)"; fail=1; }
done
# The text tables in each --units convention against the same kernel figures: exact KiB,
# exact pages (PSS: two decimals of a page), and human sizes parsed back within their
# rounding; every line within 100 columns.
ps=$(getconf PAGESIZE)
tr=tests/cases/lib/textreport.py
for u in kib pages human; do
	"$bin" report -u "$u" -a pss,summary,total "$tmp/rec" > "$tmp/text.$u"
	w=$(python3 "$tr" width "$tmp/text.$u")
	[ "$w" -le 100 ] || { echo "FAIL: --units $u: a text line of $w columns"; fail=1; }
done
for p in "$parent" "$child"; do
	k_rss=$(kb Rss "$tmp/rollup.$p"); k_pss=$(kb Pss "$tmp/rollup.$p")
	k_uss=$(( $(kb Private_Clean "$tmp/rollup.$p") + $(kb Private_Dirty "$tmp/rollup.$p") ))
	k_swap=$(kb Swap "$tmp/rollup.$p")
	get() { python3 "$tr" get "$tmp/text.$1" "$2" PID "$p" "$3"; }
	# KiB: the numbers smaps_rollup prints
	t_rss=$(get kib 'PSS and USS per process' RSS) t_pss=$(get kib 'PSS and USS per process' PSS)
	t_uss=$(get kib 'PSS and USS per process' USS) t_swap=$(get kib 'PSS and USS per process' SWAP)
	s_rss=$(get kib 'Per-process summary' RSS)
	echo "pid $p --units kib: rss $t_rss (summary $s_rss) pss $t_pss uss $t_uss swap $t_swap; kernel $k_rss $k_pss $k_uss $k_swap"
	[ "$t_rss" = "$k_rss" ] && [ "$s_rss" = "$k_rss" ] && [ "$t_uss" = "$k_uss" ] &&
		[ "$t_swap" = "$k_swap" ] && [ $(( t_pss > k_pss ? t_pss - k_pss : k_pss - t_pss )) -le 1 ] ||
		{ echo "FAIL: pid $p --units kib differs from smaps_rollup"; fail=1; }
	# pages: Rss / page size, exactly; PSS as a page fraction within 1 KiB of Pss
	t_rss=$(get pages 'PSS and USS per process' RSS) t_pss=$(get pages 'PSS and USS per process' PSS)
	s_rss=$(get pages 'Per-process summary' RSS)
	echo "pid $p --units pages: rss $t_rss (summary $s_rss) pss $t_pss; kernel $((k_rss * 1024 / ps)) $k_pss KiB"
	[ "$t_rss" = $((k_rss * 1024 / ps)) ] && [ "$s_rss" = $((k_rss * 1024 / ps)) ] &&
		awk -v t="$t_pss" -v k="$k_pss" -v ps="$ps" 'BEGIN { d = t * ps / 1024 - k; exit !(d <= 1 && d >= -1) }' ||
		{ echo "FAIL: pid $p --units pages differs from smaps_rollup"; fail=1; }
	# human: back to bytes within the rounding of the digits shown (PSS: 1 KiB more)
	for c in RSS:$k_rss:0 PSS:$k_pss:1024 USS:$k_uss:0; do
		IFS=: read -r col k slack <<< "$c"
		h=$(get human 'PSS and USS per process' "$col")
		read -r b tol <<< "$(python3 "$tr" human "$h")"
		echo "pid $p --units human: $col '$h' = $b bytes +- $tol; kernel $((k * 1024))"
		awk -v b="$b" -v k="$((k * 1024))" -v t="$((tol + slack))" 'BEGIN { d = b - k; exit !(d <= t && d >= -t) }' ||
			{ echo "FAIL: pid $p --units human $col '$h' is not ${k} KiB"; fail=1; }
	done
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
	for p in "$uparent" "$uchild"; do cp "/proc/$p/smaps_rollup" "$tmp/urollup_after.$p"; done
	grep -q '^header .*excluded=pfn-hidden' "$tmp/u/user.rec" || { echo "FAIL: the snapshot as $user is not pfn-hidden"; fail=1; }
	"$bin" report -f csv -a pss "$tmp/u/user.rec" > "$tmp/user.csv"
	for p in "$uparent" "$uchild"; do
		line=$(awk -F, -v p="$p" '/^# table: pss$/ { t = 1; next } /^$/ { t = 0 } t && $1 == p { print; exit }' "$tmp/user.csv")
		IFS=, read -r _ _ _ rss pss uss swap <<< "$line"
		k_rss=$(kb Rss "$tmp/urollup.$p"); k_pss=$(cat "$tmp/upss.$p")
		k_uss=$(( $(kb Private_Clean "$tmp/urollup.$p") + $(kb Private_Dirty "$tmp/urollup.$p") ))
		k_swap=$(kb Swap "$tmp/urollup.$p")
		ref=$(rec_ref_kb "$tmp/u/user.rec" "$p") k_ref=$(kb Referenced "$tmp/urollup.$p")
		k_ref_after=$(kb Referenced "$tmp/urollup_after.$p")
		echo "as $user, pid $p: rss $rss/$k_rss pss $pss/$k_pss uss $uss/$k_uss swap $swap/$k_swap referenced $ref/$k_ref (ours/kernel, KiB)"
		if [ "$k_ref" != "$k_ref_after" ]; then
			echo "as $user, pid $p: note: smaps Referenced moved while the snapshot was taken ($k_ref -> $k_ref_after KiB): not compared"
			ref=$k_ref
		fi
		[ "$rss" = "$k_rss" ] && [ "$pss" = "$k_pss" ] && [ "$uss" = "$k_uss" ] && [ "$swap" = "$k_swap" ] &&
			[ "$ref" = "$k_ref" ] ||
			{ echo "FAIL: pid $p as $user differs from smaps"; fail=1; }
	done
else
	echo "note: no user $user or no runuser: the snapshot without root is not checked"
fi
exit $fail
