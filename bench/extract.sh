#!/usr/bin/env bash
# `pagesleuth extract` on the big benchmark dump, side by side with crash, drgn and the
# "just read the bytes" floor, in one run. Not part of the test suite (nothing asserts a
# time); run by hand or by `make bench` (bench/run.sh calls it when the dump exists).
#
#   bench/extract.sh             the full comparison + the per-architecture table + pagesleuth
#                                on the x86_64/arm64 fixtures
#   bench/extract.sh arches      only the per-architecture table: pages/s on the big dump of
#                                each architecture, each checked against its guest's own totals
#                                (exit 1 if one differs)
#   bench/extract.sh fixtures    only the fixture pages/s table
#   bench/extract.sh scale       only the scale table: the 2.5 GiB dump against the same
#                                workload 4x (bench/bigdump/gen.py --scale 4)
#
# Inputs (all cached in ${PAGESLEUTH_CACHE:-/var/cache/pagesleuth}):
#   bench/bigdump/{qemu.elf,qemu.kdump,summary.txt}   bench/bigdump/gen.py (make bench-dump)
#   bench/bigdump-ARCH/{qemu.elf,summary.txt}          bench/bigdump/gen.py --arch ARCH (arm64,
#                                                       ppc64le, armhf, ppc32; optional: a row
#                                                       says when one is missing)
#   the kernel's DWARF vmlinux                          scripts/fetch-dbg.sh (crash, drgn)
#   crash-8.0.6/crash                                   scripts/build-crash.sh (make bench-dump)
#   python3-drgn (Debian, /usr/bin/python3)             installed here when missing
# Missing crash / vmlinux: those rows are skipped and the table says so.
#
# What is timed (wall seconds; best of BENCH_REPS runs, default 3, for the fast tools;
# every process pinned to CPU BENCH_CPU, default 0, "none" for no pinning; page cache warm):
#   pagesleuth   `pagesleuth extract DUMP -o /dev/null --stats`, ELF and kdump; the user pages
#                and -p 1 also on the CPUs BENCH_CPUS (default all, when more than one): a
#                kdump is then read by more than one thread
#   floor        bench/replay_reads: the physical reads of the same walk (list written by
#                drgn_walk.py --dump-reads) through pagesleuth's own dump reader; "distinct"
#                reads each needed dump page once, "walk-order" repeats them as a walk does
#   crash        one `crash -s VMLINUX DUMP` session (crash 8.0.6) per dump, ELF and kdump,
#                output to /dev/null, its commands timed from inside (bench/lib.sh
#                crash_session): startup; pagesleuth.so (crash-ext/, built here with `make
#                crash-ext CRASH=...`): the first command's type lookup, then `pagesleuth -o`
#                and `pagesleuth > file` warm (best of BENCH_REPS), the pfn_status probe, and
#                a records check against extract's; `foreach vm -p` last (row: startup + the
#                command). A second, untimed run counts the pages vm -p prints (a line per
#                virtual page, mapped or not). Bounded by CRASH_TIMEOUT (default 900 s, per
#                session); a stopped run is extrapolated from the virtual pages the counting
#                run had printed by then. The crash-extension table (bench/crash-ext.sh
#                prints the same alone) follows the main one
#   drgn         bench/drgn_walk.py (default: page tables read as drgn Objects; also
#                --raw-tables), bounded by DRGN_TIMEOUT (default 900 s), extrapolated likewise
# "pages" is the resident user pages visited (the same 4 KiB pages for every tool).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh # settings (B, BENCH_CPU, BENCH_REPS, CRASH_TIMEOUT, ...), best_of, crash_session
DRGN_TIMEOUT=${DRGN_TIMEOUT:-900}
PY=/usr/bin/python3 # Debian's python3-drgn lives in the system interpreter
only_fixtures=false
[ "${1:-}" = fixtures ] && only_fixtures=true

# ---- build ---------------------------------------------------------------------------------
say "build ($B)"
dump_objs=("$B/coredump/dump.o" "$B/coredump/elf_segments.o" "$B/coredump/kdump_pages.o" "$B/coredump/mapped_file.o")
make -s B="$B" "$B/pagesleuth" "${dump_objs[@]}" "$B/libpagesleuth.a" >&2
cc -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wformat=2 -O2 -g -Ilib -Iwalker -Icoredump \
	bench/replay_reads.c "${dump_objs[@]}" "$B/libpagesleuth.a" \
	-lkdumpfile -ldeflate -lzstd -ldw -lelf -lz -o "$B/replay_reads"
PS=$B/pagesleuth

rows=()
# row TOOL DUMP "WALL CPU" PAGES "REF_WALL REF_CPU" NOTE
row() {
	rows+=("$(awk -v t="$1" -v d="$2" -v s="$3" -v p="$4" -v r="$5" -v n="$6" 'BEGIN {
		split(s, a, " "); split(r, b, " ")
		cpu = (a[2] != "") ? sprintf("%.2f", a[2]) : "-"
		xc = (a[2] != "" && b[2] > 0) ? sprintf("%.1fx", a[2] / b[2]) : "-"
		printf "| %s | %s | %.3f | %s | %d | %.0f | %s | %s | %s |", t, d, a[1], cpu, p,
			(a[1] > 0 ? p / a[1] : 0), (b[1] > 0 ? sprintf("%.1fx", a[1] / b[1]) : "-"), xc, n }')")
}

# ---- fixtures: pagesleuth pages/s per architecture -----------------------------------------
fixture_table() {
	local frows=() f d secs pages
	for f in x86_64 arm64; do
		for d in "$CACHE/fixtures/unpacked/$f"/*.elf "$CACHE/fixtures/unpacked/$f"/*.kdump; do
			[ -f "$d" ] || continue
			say "fixture $f $(basename "$d") (x$REPS)"
			note=
			if ! secs=$(best_of "$PS" extract "$d" -o /dev/null --stats 2>/dev/null); then
				# no BTF found inside the dump: the fixture's own copy
				[ -f "$(dirname "$d")/vmlinux.btf" ] || continue
				note="--btf vmlinux.btf; "
				secs=$(best_of "$PS" extract "$d" --btf "$(dirname "$d")/vmlinux.btf" -o /dev/null --stats) || continue
			fi
			pages=$(stat_pages "$tmp/err")
			frows+=("$(awk -v f="$f" -v d="$(basename "$d")" -v s="$secs" -v p="${pages:-0}" \
				-v st="$note$(grep -o 'in [0-9.]* s, [0-9]* pages/s' "$tmp/err" | tail -1)" 'BEGIN {
				split(s, a, " ")
				printf "| %s | %s | %d | %.3f | %.2f | %.0f | %s |", f, d, p, a[1], a[2],
					(a[1] > 0 ? p / a[1] : 0), st }')")
		done
	done
	cat <<EOF

pagesleuth extract on the fixture dumps (small guests: startup dominates; best of $REPS, wall).

| arch | dump | pages | wall s | CPU s | pages/s (wall) | extract's own --stats |
|---|---|---|---|---|---|---|
EOF
	printf '%s\n' "${frows[@]}"
}

# ---- the big dumps of every architecture: pages/s and a check against the guest -------------
# arch_dump ARCH: sets adir (the dump's directory), adumps (its dump files), aargs (the type
# information extract needs, as tests/cases/extract_fixtures.sh gives it for that fixture:
# no VMCOREINFO note on pseries/ppce500/armhf; Debian's ppc64el and armmp kernels have no BTF,
# the ppc32 one is self-built: the fixture's detached BTF, and ppc64le's System.map;
# ppc64le-nomap: the same dump without --system-map, the kallsyms in the dump being enough:
# the records are the same, the difference is the System.map parse).
arch_dump() {
	local fx
	aargs=()
	case $1 in
	x86_64) adir=$BIG adumps=(qemu.elf qemu.kdump) fx= ;;
	arm64) adir=$CACHE/bench/bigdump-arm64 adumps=(qemu.elf) fx=arm64 ;;
	ppc64le | ppc64le-nomap) adir=$CACHE/bench/bigdump-ppc64le adumps=(qemu.elf) fx=ppc64le ;;
	armhf) adir=$CACHE/bench/bigdump-armhf adumps=(qemu.elf) fx=armhf ;;
	ppc32) adir=$CACHE/bench/bigdump-ppc32 adumps=(qemu.elf) fx=ppc32-e500-64pte ;;
	esac
	[ -n "$fx" ] || return 0
	if [ ! -s "$tmp/$fx.btf" ]; then
		zstd -q -dc "tests/fixtures/data/$fx/vmlinux.btf.zst" >"$tmp/$fx.btf" || return 1
	fi
	aargs=(--btf "$tmp/$fx.btf")
	if [ "$1" = ppc64le ]; then
		[ -s "$tmp/$fx.map" ] || zstd -q -dc "tests/fixtures/data/$fx/System.map.zst" >"$tmp/$fx.map" || return 1
		aargs+=(--system-map "$tmp/$fx.map")
	fi
}

# rss_check RECORDS SUMMARY: the pages extract found against the guest's own smaps_rollup
# totals (summary.txt: Rss summed over the bigload processes, and over every user process),
# zero-page runs left out as smaps does. Prints "ok ..." or "MISMATCH ...".
rss_check() {
	awk -v sumfile="$2" '
	BEGIN { while ((getline l < sumfile) > 0) if (l ~ /^BIGDUMP-SUMMARY /) {
			n = split(l, f, " "); for (i = 2; i <= n; i++) { split(f[i], kv, "="); s[kv[1]] = kv[2] } } }
	$1 == "header" { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "page_size") kb = kv[2] / 1024 } }
	$1 == "mm" { for (i = 2; i <= NF; i++) { split($i, kv, "=")
			if (kv[1] == "id") id = kv[2]; if (kv[1] == "comm") c = kv[2] }; comm[id] = c }
	$1 == "m" || $1 == "x" { zero = length($9) > 6 && index("13579bdfBDF", substr($9, length($9) - 6, 1))
		if (!zero) { all += $5; if (comm[$2] == "bigload") big += $5 } }
	END { gb = s["rss_kb"] / kb; ga = s["all_rss_kb"] / kb
		printf "%s bigload %d pages (guest %d), all %d (guest %d)\n",
			(big == gb && all == ga && kb > 0) ? "ok" : "MISMATCH", big, gb, all, ga }' "$1"
}

arch_rows=()
arch_bad=0
arch_table() {
	local a d secs start pages ref_rate="" ref_crate ref_wrate rate crate wrate check psz note
	for a in x86_64 arm64 ppc64le ppc64le-nomap armhf ppc32; do
		arch_dump "$a" || { arch_rows+=("| $a | - | - | - | - | - | - | - | - | - | - | - | fixture BTF missing |"); continue; }
		for d in "${adumps[@]}"; do
			if [ ! -f "$adir/$d" ] || [ ! -f "$adir/summary.txt" ]; then
				arch_rows+=("| $a | $d | - | - | - | - | - | - | - | - | - | - | not generated: bench/bigdump/gen.py --arch ${a%-nomap} |")
				continue
			fi
			say "arch $a $d: check against the guest, then extract x$REPS and -p 1 x$REPS"
			"$PS" extract "$adir/$d" "${aargs[@]}" -o "$tmp/arch.rec" 2>"$tmp/arch.err" ||
				{ arch_rows+=("| $a | $d | - | - | - | - | - | - | - | - | - | - | extract failed: $(grep -v warning "$tmp/arch.err" | head -1 | tr '|' '/') |"); arch_bad=1; continue; }
			check=$(rss_check "$tmp/arch.rec" "$adir/summary.txt")
			[ "${check%% *}" = ok ] || arch_bad=1
			psz=$(sed -n '2s/.* page_size=\([0-9]*\).*/\1/p' "$tmp/arch.rec")
			secs=$(best_of "$PS" extract "$adir/$d" "${aargs[@]}" -o /dev/null --stats) || continue
			pages=$(stat_pages "$tmp/err")
			# the fixed costs: open, VMCOREINFO, type information, task list; one small process
			start=$(best_of "$PS" extract "$adir/$d" "${aargs[@]}" -p 1 -o /dev/null) || start="0 0"
			rate=$(awk -v s="$secs" -v p="$pages" 'BEGIN { split(s, a, " "); print (a[1] > 0 ? p / a[1] : 0) }')
			crate=$(awk -v s="$secs" -v p="$pages" 'BEGIN { split(s, a, " "); print (a[2] > 0 ? p / a[2] : 0) }')
			wrate=$(awk -v s="$secs" -v t="$start" -v p="$pages" 'BEGIN { split(s, a, " "); split(t, b, " ")
				w = a[1] - b[1]; print (w > 0 ? p / w : 0) }')
			[ -n "$ref_rate" ] || { ref_rate=$rate; ref_crate=$crate; ref_wrate=$wrate; }
			note="${aargs[*]:+${aargs[*]//$tmp\//}; }$check"
			arch_rows+=("$(awk -v a="$a" -v d="${adir##*/}/$d" -v ps="$psz" -v p="$pages" -v s="$secs" \
				-v t="$start" -v r="$rate" -v c="$crate" -v w="$wrate" -v rr="$ref_rate" -v rc="$ref_crate" \
				-v rw="$ref_wrate" -v n="$note" 'BEGIN {
				split(s, x, " "); split(t, y, " ")
				printf "| %s | %s | %d K | %d | %.3f | %.3f | %.0f | %.2fx | %.2fx | %.3f | %.0f | %.2fx | %s |",
					a, d, ps / 1024, p, x[1], x[2], r, (r > 0 ? rr / r : 0), (c > 0 ? rc / c : 0),
					y[1], w, (w > 0 ? rw / w : 0), n }')")
		done
	done
	cat <<EOF

pagesleuth extract per architecture on the big dumps (bench/bigdump/gen.py [--arch ARCH]: the
same workload on each fixture's kernel and QEMU machine; $(date -u +%Y-%m-%d)). Wall seconds,
best of $REPS, pinned to CPU $CPU, page cache warm; CPU s = user + system of that run (the
machine's load does not inflate it). "x x86_64" = how many times slower per page than x86_64's
ELF (above 1.00x: slower), by wall and by CPU time. "fixed s" = the same command with -p 1 (open,
VMCOREINFO, type information, task list, one small process); "walk" = pages / (wall - fixed).
Every dump is first extracted to a file and its resident pages (m/x records, zero page left
out) compared with the guest's own smaps_rollup Rss totals in its summary.txt.

| arch | dump | page | pages | wall s | CPU s | pages/s | x x86_64 | x x86_64 (CPU) | fixed s | walk pages/s | walk x x86_64 | type information; check against the guest |
|---|---|---|---|---|---|---|---|---|---|---|---|---|
EOF
	printf '%s\n' "${arch_rows[@]}"
}
# ---- scale: the same workload 4x (bench/bigdump/gen.py --scale 4) against the 2.5 GiB dump ----
scale_table() {
	local srows=() dir d secs all pages check rate arate rr rar
	declare -A base_rate base_arate
	for dir in "$BIG" "$CACHE/bench/bigdump-x4"; do
		for d in qemu.elf qemu.kdump; do
			if [ ! -f "$dir/$d" ] || [ ! -f "$dir/summary.txt" ]; then
				srows+=("| ${dir##*/} | $d | - | - | - | - | - | - | - | not generated: bench/bigdump/gen.py --scale 4 |")
				continue
			fi
			say "scale ${dir##*/} $d: check against the guest, then user pages and everything x$REPS"
			"$PS" extract "$dir/$d" -o "$tmp/scale.rec" 2>/dev/null || true
			check=$(rss_check "$tmp/scale.rec" "$dir/summary.txt")
			secs=$(best_of "$PS" extract "$dir/$d" -o /dev/null --stats "${USER_ONLY[@]}") || continue
			pages=$(stat_pages "$tmp/err")
			all=$(best_of "$PS" extract "$dir/$d" -o /dev/null) || continue
			rate=$(awk -v s="$secs" -v p="$pages" 'BEGIN { split(s, a, " "); print (a[1] > 0 ? p / a[1] : 0) }')
			arate=$(awk -v s="$all" -v p="$pages" 'BEGIN { split(s, a, " "); print (a[1] > 0 ? p / a[1] : 0) }')
			if [ "$dir" = "$BIG" ]; then
				base_rate[$d]=$rate base_arate[$d]=$arate
			fi
			rr=${base_rate[$d]:-0} rar=${base_arate[$d]:-0}
			srows+=("$(awk -v n="${dir##*/}" -v d="$d" -v p="$pages" -v s="$secs" -v a="$all" -v r="$rate" 				-v ar="$arate" -v rr="$rr" -v rar="$rar" -v sz="$(stat -c %s "$dir/$d")" -v c="$check" '
				BEGIN { split(s, x, " "); split(a, y, " ")
				printf "| %s | %s (%.1f GB) | %d | %.3f | %.0f | %.2f | %.3f | %.0f | %.2f | %s |",
					n, d, sz / 1e9, p, x[1], r, (rr > 0 ? r / rr : 0), y[1], ar, (rar > 0 ? ar / rar : 0), c }')")
		done
	done
	cat <<EOF

Scale: the same workload 4x (bench/bigdump/gen.py --scale 4: 4x the processes in a 10 GiB
guest) against the 2.5 GiB dump; wall seconds, best of $REPS, pinned to CPU $CPU. "rate
vs 2.5 GiB" = pages/s over the same file format's pages/s on the 2.5 GiB dump (1.00:
linear). "everything" adds the counters, every frame of RAM (4x the RAM: 4x the frames) and
the log; its pages/s is still user pages per second.

| dump | file | pages | user pages s | pages/s | rate vs 2.5 GiB | everything s | pages/s | rate vs 2.5 GiB | check against the guest |
|---|---|---|---|---|---|---|---|---|---|
EOF
	printf '%s
' "${srows[@]}"
}

only_arches=false
[ "${1:-}" = arches ] && only_arches=true
if [ "${1:-}" = scale ]; then
	USER_ONLY=(--no-frames --no-counters --no-log)
	scale_table
	exit 0
fi
if $only_arches; then
	arch_table
	exit $arch_bad
fi
if $only_fixtures; then
	fixture_table
	exit 0
fi

# ---- the big dump --------------------------------------------------------------------------
for f in qemu.elf qemu.kdump summary.txt; do
	if [ ! -f "$BIG/$f" ]; then
		echo "bench/extract.sh: $BIG/$f missing: generate the dump with bench/bigdump/gen.py" \
			"(make bench-dump); showing the fixture table only" >&2
		fixture_table
		exit 0
	fi
done
big_summary
say "big dump: $(sfield bigload_procs) workload processes, Rss $((rss_pages / 256)) MiB ($rss_pages pages), VmSize $((vm_pages / 262144)) GiB"

find_vmlinux
if ! $PY -c 'import drgn' 2>/dev/null; then
	say "installing python3-drgn"
	SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get install -y -q python3-drgn >&2 || true
fi
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

# pagesleuth. The reference of every "x": the user pages alone (--no-frames --no-counters
# --no-log), what crash's foreach vm -p and the drgn scripts compute; then everything extract
# writes by default; the fixed cost (-p 1: open, VMCOREINFO, type information, task list, one
# small process); the pass over every frame of RAM and the kernel's counters, each as -p 1
# with it (so: fixed cost + that pass), beside crash's kmem -p, kmem -i and kmem -s below.
declare -A ref ref_frames ref_counters nframes
USER_ONLY=(--no-frames --no-counters --no-log)
for d in qemu.elf qemu.kdump; do
	say "pagesleuth extract $d: user pages, everything, -p 1, -p 1 + frames, -p 1 + counters (x$REPS each)"
	secs=$(best_of "$PS" extract "$BIG/$d" -o /dev/null --stats "${USER_ONLY[@]}")
	pages=$(stat_pages "$tmp/err")
	ref[$d]=$secs
	row "pagesleuth extract ${USER_ONLY[*]}" "$d" "$secs" "$pages" "$secs" "$(grep -o 'read [0-9]* bytes of page tables, [0-9]* of struct pages' "$tmp/err")$(sed -n 's/.*: \([0-9]*\) dump pages decompressed (.*), \([0-9]*\) reads.*/; \1 dump pages decompressed, \2 reads from the cache/p' "$tmp/err")"
	ps_pages=$pages
	all=$(best_of "$PS" extract "$BIG/$d" -o /dev/null --stats)
	CE_EXTRACT[$d]=$all
	row "pagesleuth extract (everything)" "$d" "$all" "$(stat_pages "$tmp/err")" "$secs" \
		"+ the kernel's counters, slab caches, every frame of RAM, the kernel log"
	# The fixed cost is ~50 ms: best of at least 10 (best of 3 was off by 10-20 % here).
	fixed=$(REPS=$((REPS > 10 ? REPS : 10)) best_of "$PS" extract "$BIG/$d" -o /dev/null -p 1 "${USER_ONLY[@]}")
	row "pagesleuth extract -p 1 (fixed cost)" "$d" "$fixed" 0 "$secs" "open, VMCOREINFO, type information, task list, one small process"
	"$PS" extract "$BIG/$d" -o "$tmp/frames.rec" -p 1 --no-counters --no-log 2>/dev/null || true
	frames=$(awk '$1 == "f" { n += $3 } END { print n + 0 }' "$tmp/frames.rec")
	nframes[$d]=$frames
	ref_frames[$d]=$(best_of "$PS" extract "$BIG/$d" -o /dev/null -p 1 --no-counters --no-log)
	row "pagesleuth extract -p 1 --no-counters --no-log" "$d" "${ref_frames[$d]}" "$frames" "$secs" \
		"fixed cost + the pass over every frame of RAM; pages = frames; $(awk -v a="${ref_frames[$d]}" -v b="$fixed" -v n="$frames" \
		'BEGIN { split(a, x, " "); split(b, y, " "); w = x[1] - y[1]; printf "the pass alone %.3f s, %.0f frames/s", w, (w > 0 ? n / w : 0) }')"
	ref_counters[$d]=$(best_of "$PS" extract "$BIG/$d" -o /dev/null -p 1 --no-frames --no-log)
	row "pagesleuth extract -p 1 --no-frames --no-log" "$d" "${ref_counters[$d]}" 0 "$secs" \
		"fixed cost + the kernel's counters (meminfo, vmstat, zones, buddyinfo) and slab caches"
	# The same on more than one CPU (BENCH_CPUS): a kdump's start-up runs and page
	# descriptors are then shared between threads; the walk is shared by worker processes
	# (the default -j), or, with -j 1, a kdump's next pages are decompressed ahead by one
	# more thread.
	if [ -n "$CPUS2" ]; then
		multi=$(PIN="taskset -c $CPUS2" best_of "$PS" extract "$BIG/$d" -o /dev/null --stats "${USER_ONLY[@]}")
		row "pagesleuth extract ${USER_ONLY[*]}, CPUs $CPUS2" "$d" "$multi" "$(stat_pages "$tmp/err")" "$secs" \
			"CPU s = all processes'; the walk shared by one process per CPU (-j's default)"
		multi1=$(PIN="taskset -c $CPUS2" best_of "$PS" extract "$BIG/$d" -j 1 -o /dev/null --stats "${USER_ONLY[@]}")
		row "pagesleuth extract -j 1 ${USER_ONLY[*]}, CPUs $CPUS2" "$d" "$multi1" "$(stat_pages "$tmp/err")" "$secs" \
			"CPU s = all threads'$(sed -n 's/.*decompressed (\([0-9]*\) ahead on another CPU, \([0-9]*\) of them read).*/; \1 pages decompressed ahead on another CPU, \2 of them read/p' "$tmp/err")"
		multi_fixed=$(PIN="taskset -c $CPUS2" REPS=$((REPS > 10 ? REPS : 10)) best_of "$PS" extract "$BIG/$d" -o /dev/null -p 1 "${USER_ONLY[@]}")
		row "pagesleuth extract -p 1 (fixed cost), CPUs $CPUS2" "$d" "$multi_fixed" 0 "$secs" "CPU s = all threads'"
	fi
done

# arm64: the same workload on the arm64 fixture's kernel (gen.py --arch arm64), ELF only;
# that kernel's BTF is not found inside the dump, the arm64 fixture's copy is the same build's
ARM=$CACHE/bench/bigdump-arm64
if [ -f "$ARM/qemu.elf" ]; then
	say "pagesleuth extract arm64 qemu.elf (x$REPS)"
	note=
	if ! secs=$(best_of "$PS" extract "$ARM/qemu.elf" -o /dev/null --stats 2>/dev/null); then
		note="--btf (fixture's vmlinux.btf); "
		secs=$(best_of "$PS" extract "$ARM/qemu.elf" --btf "$CACHE/fixtures/unpacked/arm64/vmlinux.btf" \
			-o /dev/null --stats) || secs=
	fi
	if [ -n "$secs" ]; then
		arm_rss=$(($(sed -n 's/.* all_rss_kb=\([0-9]*\).*/\1/p' "$ARM/summary.txt") / 4))
		row "pagesleuth extract (arm64)" "arm64 qemu.elf" "$secs" "$(stat_pages "$tmp/err")" "$secs" \
			"${note}guest Rss $arm_rss pages; $(grep -o 'read [0-9]* bytes of page tables, [0-9]* of struct pages' "$tmp/err")"
	fi
fi

# floor: the reads list comes from one drgn walk (cached next to the dump)
reads=$BIG/reads.txt
if [ -n "$vmlinux" ] && { [ ! -s "$reads" ] || [ "$reads" -ot "$BIG/qemu.kdump" ]; }; then
	say "writing the walk's physical reads (drgn_walk.py --dump-reads)"
	$PY bench/drgn_walk.py "$vmlinux" "$BIG/qemu.kdump" --raw-tables --dump-reads "$reads.new" >&2
	mv "$reads.new" "$reads"
fi
if [ -s "$reads" ]; then
	for d in qemu.elf qemu.kdump; do
		say "floor: replay_reads $d"
		$PIN "$B/replay_reads" "$BIG/$d" "$reads" "$REPS" >"$tmp/replay"
		while read -r _ kind _ n _ bytes _ failed _ secs; do
			row "floor: read the bytes ($kind)" "$d" "$secs" "$ps_pages" "${ref[$d]}" \
				"$n reads, $bytes bytes, $failed failed"
		done < <(sed 's/://' "$tmp/replay")
	done
else
	rows+=("| floor | - | - | - | - | - | - | - | skipped: no vmlinux for the reads list |")
fi

# crash: one session per dump (bench/lib.sh crash_session): startup, pagesleuth.so inside
# crash (its first command's type lookup, then -o and `> file` warm, the pfn_status probe) and
# `foreach vm -p` last, each timed inside the session; then an untimed run counting vm -p's pages
if [ -n "$vmlinux" ] && [ -x "$CRASH" ]; then
	crash_ext_build
	printf 'foreach vm -p\nquit\n' >"$tmp/vm.cmd"
	for d in qemu.elf qemu.kdump; do
		say "crash session on $d: startup,${crash_so:+ pagesleuth in crash (x$REPS -o, x$REPS > file, probe),}" \
			"foreach vm -p > /dev/null (limit ${CRASH_TIMEOUT}s)"
		if ! crash_session "$d" "$BIG/$d"; then
			rows+=("| crash 8.0.6 foreach vm -p | $d | - | - | - | - | - | - | crash does not start on it |")
			CE_SAME[$d]="crash does not start"
			continue
		fi
		crash_start=${CS_START[$d]}
		# crash's own views of all of RAM, each with crash's startup (as pagesleuth's rows
		# include theirs), against the -p 1 rows above
		for k in i s p; do
			case $k in i) t=${CS_KI[$d]} r=${ref_counters[$d]} ;; s) t=${CS_KS[$d]} r=${ref_counters[$d]} ;; p) t=${CS_KP[$d]} r=${ref_frames[$d]} ;; esac
			if [ -z "$t" ]; then
				rows+=("| crash 8.0.6 kmem -$k | $d | - | - | - | - | - | - | not reached (timeout ${CRASH_TIMEOUT}s) |")
				continue
			fi
			row "crash 8.0.6 kmem -$k" "$d" "$(awk -v a="$crash_start" -v b="$t" 'BEGIN { split(a, x, " "); split(b, y, " "); print x[1] + y[1], x[2] + y[2] }')" \
				"$([ $k = p ] && echo "${nframes[$d]}" || echo 0)" "$r" \
				"startup ${crash_start%% *} s + the command ${t%% *} s; x against pagesleuth's -p 1 $([ $k = p ] && echo "+ frames" || echo "+ counters") row"
		done
		if [ -n "$crash_so" ]; then
			"$PS" extract "$BIG/$d" -o "$tmp/extract-$d.rec" 2>/dev/null || true
			CE_SAME[$d]=$(ce_check "$d" "$tmp/extract-$d.rec")
			if [ -n "${CS_O[$d]}" ]; then
				pcost=$(awk -v o="${CS_O[$d]}" -v p="${CS_P[$d]}" 'BEGIN { split(o, a, " "); split(p, b, " ")
					if (p != "") printf "; %.2f s of it the 1-byte pfn_status reads", a[1] - b[1] }')
				row "pagesleuth in crash 8.0.6 (-o, warm)" "$d" "${CS_O[$d]}" "${CS_PAGES[$d]:-0}" "${ref[$d]}" \
					"not included: crash startup ${crash_start%% *} s, the first command's type lookup ${CS_TYPE[$d]%% *} s$pcost; records: ${CE_SAME[$d]}"
				row "pagesleuth in crash 8.0.6 (> file)" "$d" "${CS_R[$d]}" "${CS_PAGES[$d]:-0}" "${ref[$d]}" \
					"crash's redirection (unbuffered); warm"
			else
				rows+=("| pagesleuth in crash 8.0.6 | $d | - | - | - | - | - | - | did not run: $(grep -m1 . "${CS_DIR[$d]}/msgs" 2>/dev/null | tr '|' '/') |")
			fi
		fi
		# Counting run (not timed): vm -p prints one line per virtual page of every VMA;
		# "(not mapped)" lines are dropped by grep before awk counts the rest.
		say "crash foreach vm -p, counting its pages, $d (timeout ${CRASH_TIMEOUT}s)"
		set +o pipefail
		timeout -k 10 "$CRASH_TIMEOUT" "$CRASH" -s "$vmlinux" "$BIG/$d" -i "$tmp/vm.cmd" 2>/dev/null </dev/null |
			tee >(LC_ALL=C grep -c -F '(not mapped)' >"$tmp/crash.nm") |
			LC_ALL=C grep -v -F '(not mapped)' |
			LC_ALL=C awk '/^PID:/ { procs++ } /^ *[0-9a-f]+ +[0-9a-f]+$/ { mapped++ }
				/^[0-9a-f]+  +(FILE:|SWAP:)/ { other++ }
				END { printf "%d %d %d\n", procs, mapped, other }' >"$tmp/crash.count"
		set -o pipefail
		sleep 1 # the tee'd grep -c may finish after the pipeline
		read -r cprocs cmapped cother <"$tmp/crash.count"
		cvirt=$((cmapped + cother + $(cat "$tmp/crash.nm" 2>/dev/null || echo 0)))
		if [ "${cmapped:-0}" = 0 ]; then
			rows+=("| crash 8.0.6 foreach vm -p | $d | - | - | 0 | - | - | - | printed no pages |")
			continue
		fi
		if [ -z "${CS_VM[$d]}" ]; then
			# stopped: extrapolate from the virtual pages (vm -p's lines) the counting run
			# had printed by its own timeout, after its startup; that run is slower (a
			# pipe), so this errs long
			est=$(awk -v t="$CRASH_TIMEOUT" -v st="${crash_start%% *}" -v done="$cvirt" -v all="$vm_pages" \
				'BEGIN { printf "%.0f", st + (t - st) * all / (done > 0 ? done : 1) }')
			row "crash 8.0.6 foreach vm -p" "$d" "$est" "$rss_pages" "${ref[$d]}" \
				"EXTRAPOLATED: stopped at ${CRASH_TIMEOUT} s; the counting run had printed $cvirt of $vm_pages virtual pages ($cmapped resident) by then; startup ${crash_start%% *} s"
		else
			total=$(awk -v a="$crash_start" -v b="${CS_VM[$d]}" 'BEGIN { split(a, x, " "); split(b, y, " ")
				print x[1] + y[1], x[2] + y[2] }')
			row "crash 8.0.6 foreach vm -p" "$d" "$total" "$cmapped" "${ref[$d]}" \
				"$cprocs tasks; prints every virtual page ($vm_pages, mapped or not); startup ${crash_start%% *} s wall, ${crash_start#* } s CPU + the command ${CS_VM[$d]%% *} s"
		fi
	done
else
	rows+=("| crash 8.0.6 foreach vm -p | qemu.kdump | - | - | - | - | - | - | skipped: $([ -x "$CRASH" ] || echo "no $CRASH (scripts/build-crash.sh)") $([ -n "$vmlinux" ] || echo "no vmlinux") |")
fi

# drgn
if [ -n "$vmlinux" ] && $PY -c 'import drgn' 2>/dev/null; then
	for mode in objects raw-tables; do
		extra=()
		[ $mode = raw-tables ] && extra=(--raw-tables)
		say "drgn_walk.py $mode (limit ${DRGN_TIMEOUT}s)"
		t0=$(now)
		$PIN /usr/bin/time -f '%U %S' -o "$tmp/drgn.time" $PY bench/drgn_walk.py "$vmlinux" "$BIG/qemu.kdump" \
			--time-limit "$DRGN_TIMEOUT" --expect-pages "$rss_pages" "${extra[@]}" >"$tmp/drgn" 2>&1 ||
			{ cat "$tmp/drgn" >&2; continue; }
		t1=$(now)
		secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
		line=$(grep '^drgn_walk:' "$tmp/drgn")
		dcpu=$(cpu_of "$tmp/drgn.time")
		pages=$(sed -n 's/.* pages \([0-9]*\) .*/\1/p' <<<"$line")
		walk=$(sed -n 's/.* walk \([0-9.]*\) s.*/\1/p' <<<"$line")
		load=$(sed -n 's/.* load \([0-9.]*\) s.*/\1/p' <<<"$line")
		if grep -q STOPPED <<<"$line"; then
			est=$(sed -n 's/.*extrapolated_seconds \([0-9.]*\).*/\1/p' <<<"$line")
			row "drgn 0.0.22 walk ($mode)" qemu.kdump "$(awk -v e="$est" -v s="$secs" -v w="$walk" 'BEGIN { print e + s - w }')" \
				"$rss_pages" "${ref[qemu.kdump]}" "EXTRAPOLATED from $pages pages in $walk s"
		else
			row "drgn 0.0.22 walk ($mode)" qemu.kdump "$secs $dcpu" "$pages" "${ref[qemu.kdump]}" \
				"walk $walk s + load $load s + python startup"
		fi
	done
	# The script a drgn expert would write (bench/drgn_expert.py): raw table reads cached per
	# mm, struct pages 64 at a time, mapcount, refcount and kpageflags, runs written
	say "drgn_expert.py (limit ${DRGN_TIMEOUT}s)"
	best=""
	for ((i = 0; i < REPS; i++)); do
		t0=$(now)
		$PIN /usr/bin/time -f '%U %S' -o "$tmp/drgn.time" $PY bench/drgn_expert.py "$vmlinux" "$BIG/qemu.kdump" \
			--time-limit "$DRGN_TIMEOUT" --expect-pages "$rss_pages" >"$tmp/drgn" 2>&1 || { cat "$tmp/drgn" >&2; break; }
		t1=$(now)
		secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
		if [ -z "$best" ] || awk -v a="$secs" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
			best="$secs $(cpu_of "$tmp/drgn.time")"
			line=$(grep '^drgn_expert:' "$tmp/drgn")
		fi
	done
	if [ -n "$best" ]; then
		pages=$(sed -n 's/.* mms, \([0-9]*\) pages,.*/\1/p' <<<"$line")
		walk=$(sed -n 's/.* walk \([0-9.]*\) s;.*/\1/p' <<<"$line")
		load=$(sed -n 's/.*(load \([0-9.]*\) s,.*/\1/p' <<<"$line")
		row "drgn 0.0.22 expert script (bench/drgn_expert.py)" qemu.kdump "$best" "$pages" "${ref[qemu.kdump]}" \
			"best of $REPS; walk $walk s + vmlinux load $load s + python startup; the same pages and runs as extract"
	fi
else
	rows+=("| drgn walk | qemu.kdump | - | - | - | - | - | - | skipped: no drgn or no vmlinux |")
fi
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

cpu_model=$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)
cat <<EOF

pagesleuth extract vs crash, drgn and the read floor (bench/extract.sh, $(date -u +%Y-%m-%d)).
Dump: $BIG ($(sfield bigload_procs) workload processes on a $(sed -n 's/^guest_ram_mib //p' "$BIG/summary.txt") MiB
x86_64 guest; Rss summed over processes $((rss_pages / 256)) MiB = $rss_pages pages; VmSize
$((vm_pages / 262144)) GiB, mostly sparse reservations). Wall seconds including each tool's
startup (the floor: its read loop only); pagesleuth and the floor: best of $REPS; pinned to
CPU: $CPU; page cache warm. CPU s = user + system of the process (the load does not inflate it).
"x" = seconds / pagesleuth's seconds on the same dump (drgn reads the kdump only: on QEMU's
ELF drgn 0.0.22 fails, "recursive address translation").

| tool | dump | wall s | CPU s | pages | pages/s (wall) | x pagesleuth (wall) | x pagesleuth (CPU) | notes |
|---|---|---|---|---|---|---|---|---|
EOF
printf '%s\n' "${rows[@]}"
cat <<EOF

Machine: $(nproc) CPUs ($cpu_model), shared; load average $load_before before, $load_after after.
EOF
if [ ${#cs_names[@]} -gt 0 ] && [ -n "$crash_so" ]; then crash_ext_table; fi
scale_table
arch_table
fixture_table
exit $arch_bad
