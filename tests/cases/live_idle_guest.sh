#!/bin/bash
# live_idle_guest.sh - the static ppc32 pagesleuth-live on a 32-bit big-endian PowerPC e500
# guest (QEMU TCG) whose kernel has CONFIG_IDLE_PAGE_TRACKING, checked against that kernel's
# own view. This host has no idle page bitmap; the guest does.
#
# The guest (tests/fixtures/guest-live/: init.c runs the steps below, toucher.c is the
# workload, run-guest.py boots it and collects the files sent over the console) runs
#   a) `snap` of a layout pair (tests/progs/layout.c) and the stopped toucher and its child,
#      with gtcapture (tests/tools/) capturing
#      pagemap, kpagecount, kpageflags and smaps before and after; gtcheck compares the
#      records with them on the host, page by page and VMA by VMA, exactly; and the full
#      pagesleuth's report on those records gives the guest's smaps_rollup RSS/PSS/USS/swap;
#   b) `wss` by the idle-page method and c) by the referenced method on the running toucher,
#      which writes K of its N pages every interval: each must find the K pages and at most
#      a few more;
#   d) in a) too: swapped-out shared memory. The guest swaps to zram (shmswap.c makes it a
#      swap device); shmswap maps SN pages MAP_SHARED|MAP_ANONYMOUS, SN of a tmpfs file and
#      SN private, writes them and pages SOUT of each out (MADV_PAGEOUT). Pagemap shows the
#      shmem ones as neither present nor swapped; smaps' Swap counts them. The snapshot's
#      per-VMA swap (w records + the sum's shmem_swap) must equal smaps' Swap of each VMA, and
#      the report's per-process SWAP smaps_rollup's Swap, exactly.
# The kernel is the committed tests/fixtures/guest-live/kernel/ image (make-kernel.sh), checked
# against its MANIFEST and unpacked once into $PAGESLEUTH_CACHE/live-idle-guest/.
# Set PAGESLEUTH_LIVE_PPC32 to test a ready-made static ppc32 binary instead of building one.
# Exit 0 pass, 77 skip (no qemu-system-ppc or ppc32 cross compiler), other = fail.
set -u
cd "${PAGESLEUTH_ROOT:-.}" || exit 1
CACHE=${PAGESLEUTH_CACHE:-/var/cache/pagesleuth}
PAGESLEUTH=${PAGESLEUTH:-build/pagesleuth}
GL=tests/fixtures/guest-live
T=$(mktemp -d /tmp/live_idle_guest.XXXXXX)
trap '[ -n "${PAGESLEUTH_KEEP:-}" ] && echo "live_idle_guest: kept $T" || rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
fail() { echo "live_idle_guest: FAIL: $*"; exit 1; }
skip() { echo "live_idle_guest: SKIP: $*"; exit 77; }
now_ms() { date +%s%3N; }
t_case=$(now_ms)

# The toucher: N pages, K written every MS milliseconds; wss measures over WSS_SECONDS.
N=1024 K=200 MS=100 WSS_SECONDS=1
# Every one of the K pages is written in each interval, so a measurement must find all K; on
# top of them, up to SLACK more: the pages of the toucher's own text, stack and data its loop
# uses (6 here), and for the idle method the frames the kernel cannot track (the 2 vdso pages),
# which live/wss.c counts as not idle.
SLACK=12
# shmswap: pages per region, and how many of them are paged out.
SN=256 SOUT=192

command -v qemu-system-ppc >/dev/null || skip "no qemu-system-ppc (apt-get install qemu-system-ppc)"
command -v powerpc-linux-gnu-gcc >/dev/null ||
	skip "no powerpc-linux-gnu-gcc (apt-get install gcc-powerpc-linux-gnu libc6-dev-powerpc-cross)"
command -v zstd >/dev/null || fail "no zstd"
[ -x "$PAGESLEUTH" ] || fail "no pagesleuth binary at $PAGESLEUTH"

# The kernel: committed, compressed; unpacked once per content.
sum=$(sed -n 's/^raw_sha256 //p' $GL/kernel/MANIFEST)
release=$(sed -n 's/^kernel_release //p' $GL/kernel/MANIFEST)
[ ${#sum} = 64 ] || fail "$GL/kernel/MANIFEST: no raw_sha256 line"
kernel=$CACHE/live-idle-guest/vmlinux-${sum:0:16}
if [ ! -f "$kernel" ]; then
	mkdir -p "$CACHE/live-idle-guest" || fail "cannot create $CACHE/live-idle-guest"
	zstd -dq $GL/kernel/vmlinux-ppc32-e500-64pte.zst -o "$kernel.tmp.$$" || fail "cannot unpack the guest kernel"
	[ "$(sha256sum <"$kernel.tmp.$$" | cut -d' ' -f1)" = "$sum" ] ||
		{ rm -f "$kernel.tmp.$$"; fail "guest kernel does not match the sha256 in $GL/kernel/MANIFEST"; }
	mv "$kernel.tmp.$$" "$kernel"
fi

# The programs: pagesleuth-live for ppc32 as `make static-cross` builds it, and the guest's own.
t0=$(now_ms)
if [ -n "${PAGESLEUTH_LIVE_PPC32:-}" ]; then
	live=$PAGESLEUTH_LIVE_PPC32
else
	make -s B="$T/build" static-cross ARCH=ppc32 >"$T/make.log" 2>&1 ||
		{ tail -20 "$T/make.log"; fail "make static-cross ARCH=ppc32 failed"; }
	live=$T/build/static-ppc32/pagesleuth-live
fi
[ -x "$live" ] || fail "no static ppc32 pagesleuth-live at $live"
GCFLAGS="-std=gnu11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -O2 -Wall -Wextra -Werror -static"
for p in $GL/init.c $GL/toucher.c $GL/shmswap.c tests/progs/layout.c tests/tools/gtcapture.c; do
	powerpc-linux-gnu-gcc $GCFLAGS -o "$T/$(basename "$p" .c)" "$p" || fail "cannot build $p for ppc32"
done
cc -std=gnu11 -D_GNU_SOURCE -O2 -Wall -Wextra -Ilib -o "$T/gtcheck" tests/tools/gtcheck.c lib/*.c -lzstd -lz -lm ||
	fail "cannot build gtcheck"
t_build=$(($(now_ms) - t0))

# The guest's steps (init.c). @NAME@ is a started program's pid, @NAME.child@ its child's.
{
	echo "run swapon /bin/shmswap swapon"
	echo "start layout /bin/layout 2 2"
	echo "start toucher /bin/toucher $N $K $MS"
	echo "start shmswap /bin/shmswap $SN $SOUT"
	echo "stop toucher"
	echo "stop shmswap"
	for p in layout layout.child toucher toucher.child shmswap; do
		echo "run gt_$p /bin/gtcapture @$p@ /tmp/smaps.$p /tmp/pages.$p"
		echo "send /proc/@$p@/smaps_rollup rollup.$p"
	done
	# Again for shmswap: its swap must stay put (checked below). And an even number of
	# programs must exit between the captures and the snapshot: each exit of a program that
	# used the vdso marks its pages accessed, which on pages already PG_referenced (and not
	# on an LRU) clears the flag; with an even count every capture before or after the
	# snapshot sees the flags it saw (measured: with 5 captures, the layout's 2 referenced
	# vdso pages read 804 before and after, 800 in the snapshot).
	echo "run gt_again_shmswap /bin/gtcapture @shmswap@ /tmp/smaps_again.shmswap /tmp/pages_again.shmswap"
	echo "send /tmp/smaps_again.shmswap"
	echo "run snap /bin/pagesleuth-live snap --pid @layout@ --pid @layout.child@ --pid @toucher@ --pid @toucher.child@ --pid @shmswap@ -o /tmp/snap.rec"
	for p in layout layout.child toucher toucher.child shmswap; do
		echo "run gt_after_$p /bin/gtcapture @$p@ /tmp/smaps_after.$p /tmp/pages_after.$p"
		echo "send /tmp/smaps.$p"
		echo "send /tmp/pages.$p"
		echo "send /tmp/pages_after.$p"
	done
	echo "send /tmp/snap.rec"
	echo "cont toucher"
	# Let the toucher run a few intervals before it is measured.
	echo "sleep $((3 * MS))"
	echo "run wss_idle /bin/pagesleuth-live wss --method idle -o - @toucher@ $WSS_SECONDS"
	echo "run wss_referenced /bin/pagesleuth-live wss --method referenced -o - @toucher@ $WSS_SECONDS"
} >"$T/pslive.conf"

t0=$(now_ms)
python3 $GL/run-guest.py "$kernel" "$T/out" "$T/pslive.conf" \
	"$T/init=/init" "$T/toucher=/bin/toucher" "$T/layout=/bin/layout" "$T/gtcapture=/bin/gtcapture" \
	"$T/shmswap=/bin/shmswap" \
	"$live=/bin/pagesleuth-live" >"$T/run.log" 2>&1 || { cat "$T/run.log"; fail "guest run failed"; }
t_guest=$(($(now_ms) - t0))
O=$T/out
boot=$(sed -n 's/^boot_seconds //p' "$O/info.txt")
grep -q "^PSLIVE-BOOT release=$release machine=ppc idle_bitmap=yes$" "$O/info.txt" ||
	fail "guest is not the $release kernel with an idle page bitmap: $(head -1 "$O/info.txt")"
started() { # NAME FIELD -> the value of the first FIELD= of its PSLIVE-STARTED line
	awk -v n="$1" -v f="$2=" '$1 == "PSLIVE-STARTED" && $2 == n {
		for (i = 3; i <= NF; i++) if (index($i, f) == 1) { print substr($i, length(f) + 1); exit } }' "$O/info.txt"
}
declare -A pid_of
pid_of[layout]=$(started layout pid) pid_of[layout.child]=$(started layout child)
pid_of[toucher]=$(started toucher pid) pid_of[toucher.child]=$(started toucher child)
pid_of[shmswap]=$(started shmswap pid)
region=$(started toucher region) anon=$(started layout anon) shm=$(started layout shared)
for p in layout layout.child toucher toucher.child shmswap; do
	[ -n "${pid_of[$p]}" ] || fail "no pid for $p in: $(cat "$O/info.txt")"
done
[ -n "$region" ] && [ -n "$anon" ] && [ -n "$shm" ] || fail "ready lines lack addresses: $(cat "$O/info.txt")"
rc_of() { awk -v n="$1" '$1 == n { print $2 }' "$O/rc.txt"; }
ms_of() { awk -v n="$1" '$1 == n { print $3 }' "$O/rc.txt"; }

# a) snap against the guest kernel's view.
[ "$(rc_of swapon)" = 0 ] || fail "no swap in the guest: shmswap swapon exited $(rc_of swapon): $(cat "$O/swapon.err")"
[ "$(rc_of snap)" = 0 ] || fail "snap in the guest exited $(rc_of snap): $(head -3 "$O/snap.err")"
[ -s "$O/snap.err" ] && fail "snap printed messages on a clean run: $(head -1 "$O/snap.err")"
grep -q '^header source=live arch=ppc endian=big page_size=4096 ' "$O/snap.rec" ||
	fail "unexpected header: $(sed -n 2p "$O/snap.rec")"
grep -q '^end status=complete ' "$O/snap.rec" || fail "guest snapshot not complete: $(tail -1 "$O/snap.rec")"
for p in layout layout.child toucher toucher.child shmswap; do
	for f in smaps pages pages_after; do [ -s "$O/$f.$p" ] || fail "guest sent no $f.$p"; done
	"$T/gtcheck" ${pid_of[$p]} "$O/snap.rec" "$O/smaps.$p" "$O/pages.$p" "$O/pages_after.$p" >"$T/check.$p" 2>&1 ||
		{ head -30 "$T/check.$p"; fail "guest snapshot of $p (pid ${pid_of[$p]}) differs from the guest kernel's view"; }
	echo "live_idle_guest: $p: $(tail -1 "$T/check.$p")"
done
# The known shapes. layout 2 2: 2 MiB anonymous, every 2nd page written before fork, the
# child rewrote the first half (COW): in the parent 256 resident, 128 of them still shared;
# 64 shmem pages written by both (mapcount 2). toucher: N private pages all written.
mm_of() { awk -v p="$1" '/^mm / && $3 == "tgid=" p { sub("id=", "", $2); print $2; exit }' "$O/snap.rec"; }
lm=$(mm_of ${pid_of[layout]}) tm=$(mm_of ${pid_of[toucher]})
grep -q "^sum mm=$lm start=$anon resident=256 .* single=128 shared=128 " "$O/snap.rec" ||
	fail "layout anon $anon: expected 256 resident, 128 shared, got: $(grep "^sum mm=$lm start=$anon " "$O/snap.rec")"
grep -q "^sum mm=$lm start=$shm resident=64 .* single=0 shared=64 " "$O/snap.rec" ||
	fail "layout shmem $shm: expected 64 pages of mapcount 2, got: $(grep "^sum mm=$lm start=$shm " "$O/snap.rec")"
grep -q "^sum mm=$tm start=$region resident=$N .* single=$N shared=0 .* anon=$N " "$O/snap.rec" ||
	fail "toucher region $region: expected $N resident single anon pages, got: $(grep "^sum mm=$tm start=$region " "$O/snap.rec")"

# d) Swapped-out shared memory, region by region, against smaps as captured before the
# snapshot (and again, unchanged, right before it).
sm=$(mm_of ${pid_of[shmswap]})
smaps_kb() { # START FIELD -> FIELD in kB of the VMA at START in shmswap's smaps
	awk -v s="$1" -v f="$2:" '$1 ~ /^[0-9a-f]+-[0-9a-f]+$/ { split($1, a, "-"); on = (a[1] == s) }
		on && $1 == f { print $2; exit }' "$O/smaps.shmswap"
}
sum_of() { # START KEY -> KEY= of shmswap's sum record for the VMA at START ("" if absent)
	sed -n "s/^sum mm=$sm start=$1 .*[ ]$2=\([0-9-]*\).*/\1/p" "$O/snap.rec"
}
in_pagemap_swap() { # START -> swap entries gtcapture saw in pagemap for the SN pages at START
	local n=0 va
	for va in $(awk '$2 == "-" { print $1 }' "$O/pages.shmswap"); do
		[ $((16#$va)) -ge $((16#$1)) ] && [ $((16#$va)) -lt $((16#$1 + SN * 4096)) ] && n=$((n + 1))
	done
	echo $n
}
cmp -s <(grep -E '^[0-9a-f]+-|^(Rss|Swap):' "$O/smaps.shmswap") <(grep -E '^[0-9a-f]+-|^(Rss|Swap):' "$O/smaps_again.shmswap") ||
	fail "shmswap's Rss or Swap moved between two captures: the kernel is still swapping"
swap_note="" shmem_kb=0
for r in shared tmpfs private; do
	a=$(started shmswap $r)
	[ -n "$a" ] || fail "shmswap's ready line lacks $r=: $(grep shmswap "$O/info.txt")"
	k_swap=$(smaps_kb "$a" Swap) k_rss=$(smaps_kb "$a" Rss)
	[ -n "$k_swap" ] && [ "$k_swap" -gt 0 ] ||
		fail "shmswap $r region $a: smaps Swap '$k_swap' kB: MADV_PAGEOUT paged nothing out, nothing to check"
	[ $((k_swap / 4 + k_rss / 4)) = $SN ] ||
		fail "shmswap $r region $a: smaps Rss $k_rss + Swap $k_swap kB is not the $SN pages written"
	swapped=$(sum_of "$a" swapped) shmem=$(sum_of "$a" shmem_swap) pm=$(in_pagemap_swap "$a")
	if [ $r = private ]; then
		# Swap entries in the page table: w records, nothing from smaps.
		[ "$pm" = $((k_swap / 4)) ] && [ "$swapped" = "$pm" ] && [ -z "$shmem" ] ||
			fail "private region $a: smaps Swap $k_swap kB, pagemap $pm swap entries; sum swapped=$swapped shmem_swap=$shmem"
	else
		# The kernel's own view: no swap entry in pagemap, smaps counts them.
		[ "$pm" = 0 ] || fail "$r region $a: pagemap shows $pm swap entries (this kernel was expected to show none)"
		[ "$swapped" = 0 ] && [ "$shmem" = $((k_swap / 4)) ] ||
			fail "$r region $a: smaps Swap $k_swap kB, sum swapped=$swapped shmem_swap=$shmem pages"
		# ... and not in SwapPss (docs/record-format.md says so: shmem_swap is not shared out).
		[ "$(smaps_kb "$a" SwapPss)" = 0 ] || fail "$r region $a: smaps SwapPss $(smaps_kb "$a" SwapPss) kB, expected 0"
		shmem_kb=$((shmem_kb + k_swap))
	fi
	swap_note="$swap_note $r $k_swap kB;"
done
echo "live_idle_guest: shmswap per-VMA swap = smaps Swap:${swap_note%;}"

# The workstation side: the full pagesleuth's analyzer on the board's records, against the
# guest kernel's smaps_rollup: RSS, USS and swap exact, PSS within 1 KiB (as
# live_report_vs_smaps.sh does on this host).
"$PAGESLEUTH" report -f csv -a pss "$O/snap.rec" >"$T/pss.csv" 2>"$T/report.err" ||
	fail "pagesleuth report on the guest's records failed: $(head -2 "$T/report.err")"
kb() { awk -v k="$1:" '$1 == k { print $2 }' "$2"; }
for p in layout layout.child toucher toucher.child shmswap; do
	r=$O/rollup.$p
	[ -s "$r" ] || fail "guest sent no smaps_rollup of $p"
	line=$(awk -F, -v p="${pid_of[$p]}" '/^# table: pss$/ { t = 1; next } /^$/ { t = 0 } t && $1 == p { print; exit }' "$T/pss.csv")
	[ -n "$line" ] || fail "$p (pid ${pid_of[$p]}) missing from the report's pss table"
	IFS=, read -r _ _ _ rss pss uss swap <<<"$line"
	k_uss=$(($(kb Private_Clean "$r") + $(kb Private_Dirty "$r")))
	[ "$rss" = "$(kb Rss "$r")" ] && [ "$uss" = "$k_uss" ] && [ "$swap" = "$(kb Swap "$r")" ] &&
		[ $((pss - $(kb Pss "$r"))) -le 1 ] && [ $(($(kb Pss "$r") - pss)) -le 1 ] ||
		fail "$p: report rss/pss/uss/swap $rss/$pss/$uss/$swap KiB, guest smaps_rollup $(kb Rss "$r")/$(kb Pss "$r")/$k_uss/$(kb Swap "$r")"
done
[ "$(kb Swap "$O/rollup.shmswap")" -gt 0 ] || fail "shmswap's smaps_rollup shows no swap"
# The table says how much of that swap came from smaps: the two shmem regions' Swap.
"$PAGESLEUTH" report -a pss "$O/snap.rec" >"$T/pss.txt" 2>/dev/null
grep -q "SWAP includes $shmem_kb KiB of shmem/tmpfs pages swapped out (1 process), from smaps' Swap" "$T/pss.txt" ||
	fail "the pss table does not say that $shmem_kb KiB of swap is shmem from smaps: $(grep -i swap "$T/pss.txt" | head -3)"
echo "live_idle_guest: report -a pss on the board's records = the guest's smaps_rollup for 5 processes (shmswap: swap $(kb Swap "$O/rollup.shmswap") kB)"

# b), c) wss on the running toucher: K pages, and at most SLACK more.
wss_field() { # NAME FIELD -> FIELD= of the wss record in NAME's output (records on stdout)
	awk -v f="$2=" '$1 == "wss" { for (i = 2; i <= NF; i++) if (index($i, f) == 1) v = substr($i, length(f) + 1) }
		END { print v }' "$O/$1.out"
}
wss_note=""
for m in idle referenced; do
	[ "$(rc_of wss_$m)" = 0 ] || fail "wss --method $m in the guest exited $(rc_of wss_$m): $(head -3 "$O/wss_$m.err")"
	[ "$(wss_field wss_$m method)" = $m ] || fail "wss --method $m: no wss record of method $m: $(head -5 "$O/wss_$m.out")"
	ref=$(wss_field wss_$m ref)
	[ -n "$ref" ] && [ $((ref % 4096)) = 0 ] || fail "wss --method $m: ref=$ref is not a whole number of pages"
	got=$((ref / 4096))
	[ "$got" -ge $K ] && [ "$got" -le $((K + SLACK)) ] ||
		fail "wss --method $m: $got pages, expected $K to $((K + SLACK))"
	wss_note="$wss_note wss $m: $got pages (K=$K) in $(ms_of wss_$m) ms;"
done

echo "live_idle_guest: build $t_build ms, guest boot ${boot} s, guest run $t_guest ms (snap $(ms_of snap) ms), case $(($(now_ms) - t_case)) ms"
echo "live_idle_guest: ${wss_note# }"
echo "live_idle_guest: OK"
