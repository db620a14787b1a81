# shellcheck shell=bash
# bench/lib.sh - shared by bench/extract.sh and bench/crash-ext.sh. Source it from the repo
# root (`. bench/lib.sh`); it sets the common settings, a scratch directory $tmp (removed on
# exit) and these functions:
#
#   say TEXT                progress on stderr
#   best_of CMD...          "WALL CPU" seconds of the best of $REPS runs, pinned ($PIN)
#   stat_pages FILE         the page count of an --stats / -S line in FILE
#   big_summary             reads $BIG/summary.txt: sets sumline, rss_pages, vm_pages; sfield KEY
#   find_vmlinux            sets vmlinux: the big dump kernel's DWARF vmlinux (scripts/fetch-dbg.sh),
#                           "" when it cannot be had (crash and drgn rows are then skipped)
#   crash_ext_build         builds pagesleuth.so for $CRASH (`make B=$B crash-ext CRASH=$CRASH`):
#                           sets crash_so ("" and a message on failure); with CRASH_EXT_PROBE=1
#                           also crash_probe_so, see crash_session
#   crash_session NAME DUMP one crash session on DUMP, see below
#   crash_ext_table         prints the crash-extension table of the sessions run so far
#
# Settings (environment): B (build dir, default /tmp/bench-build), BENCH_CPU (default 0,
# "none": no pinning), BENCH_CPUS (the rows of pagesleuth on more than one CPU; default all
# the CPUs this script may use, none on one CPU), BENCH_REPS (default 3), PAGESLEUTH_CACHE, CRASH_TIMEOUT (default 900 s,
# for a whole crash session), CRASH_EXT_PROBE (default 0).
#
# crash_session NAME DUMP runs `crash -s VMLINUX DUMP` once, pinned, stdout to /dev/null
# (buffered, as for a file or a pager; crash's own `> file` would make foreach vm -p's output
# unbuffered) and its messages to a file (`set error FILE`), with
# the commands timed from inside by `!` shell lines that append the wall clock and crash's
# own user+system time (/proc/<crash>/stat) to a file:
#   start        crash startup (vmlinux symbols, gdb, the task table), from the exec
#   extend       pagesleuth.so loaded
#   type         `pagesleuth -P FILE`: the first command takes the type information from
#                gdb (cached for the session's later commands); nothing is walked
#   o1..oN       `pagesleuth -S -o FILE`, warm ($REPS times)
#   r1..rN       `pagesleuth > FILE` (crash's redirection), warm ($REPS times)
#   ptype, p1..pN   the probe (CRASH_EXT_PROBE=1): the same library built from a copy of
#                crash-ext/ whose pfn_status answers "present" without reading (outside the
#                repo; crash_backend.c itself is not touched), after `extend -u`: what the
#                1-byte pc->readmem per mapped page costs. Its records must not change on
#                the big dumps (nothing is excluded there)
#   ki ks kp     crash's `kmem -i`, `kmem -s`, `kmem -p`: its counters, slab caches and one
#                line per page frame of RAM (what extract's counter and frame passes give)
#   vm           `foreach vm -p` (crash's own walk), last: CRASH_TIMEOUT may stop it
# Sets, keyed by NAME: CS_START CS_TYPE CS_O CS_R CS_PTYPE CS_P CS_KI CS_KS CS_KP CS_VM
# ("WALL CPU" seconds; the
# best of the repeated ones; "" when not reached), CS_VM_RAN (seconds vm -p ran, also when
# stopped), CS_PAGES (pages the extension wrote), CS_RC (crash's exit status; 124/137 stopped),
# CS_DIR (o.rec, r.rec, p.rec; msgs: crash's messages, `set error`; err: its stderr, where
# pagesleuth's own messages and -S line go).
# Returns 1 if crash did not get to its first command.
set -euo pipefail
root=$PWD
B=${B:-/tmp/bench-build}
case $B in /*) ;; *) B=$root/$B ;; esac
CPU=${BENCH_CPU:-0}
REPS=${BENCH_REPS:-3}
CACHE=${PAGESLEUTH_CACHE:-/var/cache/pagesleuth}
BIG=$CACHE/bench/bigdump
CRASH=$CACHE/crash-8.0.6/crash
CRASH_TIMEOUT=${CRASH_TIMEOUT:-900}
CRASH_EXT_PROBE=${CRASH_EXT_PROBE:-0}
PIN="taskset -c $CPU"
[ "$CPU" = none ] && PIN=
# BENCH_CPUS: the CPUs of the rows that let pagesleuth use more than one (default: all this
# script may use, when that is more than one; "" for no such rows)
CPUS2=${BENCH_CPUS-$([ "$(nproc)" -gt 1 ] && taskset -pc $$ | sed 's/.*: //')}
CLK_TCK=$(getconf CLK_TCK)

say() { echo "== $*" >&2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { echo "$EPOCHREALTIME"; }
# best_of CMD...: "WALL CPU" seconds of the run with the best wall time over REPS runs (CPU =
# user + system, which the machine's load does not inflate); stdout/stderr of the last run
# in $tmp/out, $tmp/err; fails on exit status > 1 (1 = partial, still timed)
best_of() {
	local best="" t0 t1 rc
	for ((i = 0; i < REPS; i++)); do
		rc=0
		t0=$(now)
		$PIN /usr/bin/time -f '%U %S' -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
		t1=$(now)
		if [ "$rc" -gt 1 ]; then
			echo "bench: $* failed (exit $rc):" >&2
			cat "$tmp/err" >&2
			return 1
		fi
		best=$(awk -v a="$t0" -v b="$t1" -v c="$best" -v cpu="$(tail -1 "$tmp/time")" 'BEGIN {
			split(cpu, u, " "); d = b - a; split(c, o, " ")
			print (c == "" || d < o[1]) ? d " " (u[1] + u[2]) : c }')
	done
	echo "$best"
}
cpu_of() { awk '{ print $1 + $2 }' "$1" | tail -1; }
stat_pages() { sed -n 's/.* vmas, \([0-9]*\) pages in .*/\1/p' "$1" | tail -1; }

big_summary() {
	sumline=$(grep '^BIGDUMP-SUMMARY' "$BIG/summary.txt")
	rss_pages=$(($(sfield all_rss_kb) / 4))
	vm_pages=$(($(sfield vmsize_kb) / 4))
}
sfield() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$sumline"; }

find_vmlinux() {
	vmlinux=$(scripts/fetch-dbg.sh x86_64 linux-image-6.1.0-56-cloud-amd64-dbg 6.1.192-2 2>"$tmp/fetch") ||
		{ cat "$tmp/fetch" >&2; vmlinux=; }
}

# ---- pagesleuth.so for crash ----------------------------------------------------------------
crash_so=
crash_probe_so=
crash_ext_build() {
	local ver
	ver=$("$CRASH" --version 2>/dev/null | awk '/^crash /{ print $2; exit }') || ver=
	if [ -z "$ver" ]; then
		say "cannot run $CRASH --version: no crash-extension rows"
		return 0
	fi
	say "build pagesleuth.so for crash $ver ($B)"
	if ! make -s B="$B" crash-ext CRASH="$CRASH" >&2; then
		say "make crash-ext failed: no crash-extension rows"
		return 0
	fi
	crash_so=$B/crash-ext/$ver-X86_64/pagesleuth.so
	[ "$CRASH_EXT_PROBE" = 1 ] || return 0
	# The probe: a copy of crash-ext/ in $tmp whose crash_pfn_status returns at once; the
	# rest of the tree is symlinked, so make reuses $B/pic (same sources, same B).
	local t=$tmp/probe-tree f
	mkdir -p "$t"
	for f in Makefile lib walker coredump analyzer cli live tests; do ln -s "$root/$f" "$t/$f"; done
	cp -r crash-ext "$t/"
	awk '/^static enum ps_read_status crash_pfn_status\(/ { infn = 1 }
		{ print }
		infn && /^\{/ { print "\t(void)ctx; (void)pfn;\n\treturn PS_READ_OK; /* bench probe */"; infn = 0; n++ }
		END { exit n == 1 ? 0 : 1 }' crash-ext/crash_backend.c >"$t/crash-ext/crash_backend.c" ||
		{ say "probe: no crash_pfn_status() in crash-ext/crash_backend.c to stub: no probe"; return 0; }
	if make -s -C "$t" B="$B" CRASH="$CRASH" CRASH_EXT_DIR="$tmp/probe-build" crash-ext >&2; then
		crash_probe_so=$tmp/probe-build/pagesleuth.so
	else
		say "probe build failed: no probe"
	fi
}

declare -A CS_START CS_TYPE CS_O CS_R CS_PTYPE CS_P CS_KI CS_KS CS_KP CS_VM CS_VM_RAN CS_PAGES CS_RC CS_DIR
cs_names=()

# crash_session NAME DUMP: see the top of the file.
crash_session() {
	local name=$1 dump=$2 d=$tmp/cs-$1 i
	mkdir -p "$d"
	CS_DIR[$name]=$d
	cs_names+=("$name")
	# one timing line: LABEL WALL UTICKS STICKS (crash is the popen'd shell's parent)
	_cs_mark() { printf '!echo %s $(date +%%s.%%N) $(cut -d" " -f14,15 /proc/$PPID/stat) >>%s\n' "$1" "$d/marks"; }
	{
		_cs_mark start
		echo "set error $d/msgs"
		if [ -n "$crash_so" ]; then
			echo "extend $crash_so"
			_cs_mark extend
			echo "pagesleuth -P $d/profile"
			_cs_mark type
			for ((i = 1; i <= REPS; i++)); do
				echo "pagesleuth -S -o $d/o.rec"
				_cs_mark "o$i"
			done
			for ((i = 1; i <= REPS; i++)); do
				echo "pagesleuth > $d/r.rec"
				_cs_mark "r$i"
			done
			if [ -n "$crash_probe_so" ]; then
				echo "extend -u $crash_so"
				echo "extend $crash_probe_so"
				echo "pagesleuth -P $d/profile"
				_cs_mark ptype
				for ((i = 1; i <= REPS; i++)); do
					echo "pagesleuth -o $d/p.rec"
					_cs_mark "p$i"
				done
			fi
		fi
		echo "kmem -i"
		_cs_mark ki
		echo "kmem -s"
		_cs_mark ks
		echo "kmem -p"
		_cs_mark kp
		echo "foreach vm -p"
		_cs_mark vm
		echo quit
	} >"$d/cmds"
	: >"$d/marks"
	local t0 t1 rc=0
	t0=$(now)
	# HOME and cwd: no .crashrc
	(cd "$d" && HOME=$d timeout -s KILL "$CRASH_TIMEOUT" $PIN "$CRASH" -s "$vmlinux" "$dump" -i "$d/cmds" \
		</dev/null >/dev/null 2>"$d/err") 2>/dev/null || rc=$?
	t1=$(now)
	CS_RC[$name]=$rc
	# "LABEL WALL CPU" deltas from the previous mark (start: from the exec)
	awk -v t0="$t0" -v hz="$CLK_TCK" '{ w = $2; c = ($3 + $4) / hz
		printf "%s %.3f %.3f\n", $1, w - (NR == 1 ? t0 : pw), c - (NR == 1 ? 0 : pc); pw = w; pc = c }
		END { if (NR) printf "LAST %s\n", pw }' "$d/marks" >"$d/deltas"
	if ! grep -q '^start ' "$d/deltas"; then
		say "crash did not start on $dump (exit $rc): $(grep -m1 . "$d/err" || true)"
		return 1
	fi
	# best (lowest wall) of the labels PREFIX1..PREFIXn
	_cs_best() { awk -v p="$1" '$1 ~ "^" p "[0-9]+$" && (b == "" || $2 < b) { b = $2; c = $3 }
		END { if (b != "") print b, c }' "$d/deltas"; }
	_cs_one() { awk -v l="$1" '$1 == l { print $2, $3 }' "$d/deltas"; }
	CS_START[$name]=$(_cs_one start)
	CS_TYPE[$name]=$(_cs_one type)
	CS_O[$name]=$(_cs_best o)
	CS_R[$name]=$(_cs_best r)
	CS_PTYPE[$name]=$(_cs_one ptype)
	CS_P[$name]=$(_cs_best p)
	CS_KI[$name]=$(_cs_one ki)
	CS_KS[$name]=$(_cs_one ks)
	CS_KP[$name]=$(_cs_one kp)
	CS_VM[$name]=$(_cs_one vm)
	CS_VM_RAN[$name]=$(awk -v t1="$t1" '$1 == "vm" { print $2; f = 1 } $1 == "LAST" && !f { print t1 - $2 }' "$d/deltas")
	CS_PAGES[$name]=$(cat "$d/msgs" "$d/err" 2>/dev/null | sed -n 's/.* vmas, \([0-9]*\) pages in .*/\1/p' | tail -1)
	# a command that wrote nothing (the library did not load, the walk failed) has no time
	[ -s "$d/o.rec" ] || { CS_TYPE[$name]=; CS_O[$name]=; }
	[ -s "$d/r.rec" ] || CS_R[$name]=
	[ -s "$d/p.rec" ] || { CS_PTYPE[$name]=; CS_P[$name]=; }
	return 0
}

# ce_check NAME EXTRACT_RECORDS: the session's -o and `> file` records against extract's
# (only the header's source= may differ), and the probe's against the -o ones. One line.
ce_check() {
	local d=${CS_DIR[$1]} ref=$2 f out=() n
	[ -s "$ref" ] || { echo "no extract records"; return 0; }
	sed '2s/ source=coredump / source=crash /' "$ref" >"$d/extract-as-crash.rec"
	n=$(wc -l <"$ref")
	for f in o r; do
		if [ ! -s "$d/$f.rec" ]; then
			out+=("$([ $f = o ] && echo -o || echo '> file'): nothing written: $(grep -m1 -E '^(extend|pagesleuth|crash):' "$d/msgs" "$d/err" 2>/dev/null | head -1 | cut -d: -f2- | tr '|' '/' || true)")
		elif ! cmp -s "$d/$f.rec" "$d/extract-as-crash.rec"; then
			out+=("$([ $f = o ] && echo -o || echo '> file') DIFFERS: $(cmp "$d/$f.rec" "$d/extract-as-crash.rec" 2>&1 | head -1)")
		fi
	done
	[ ${#out[@]} = 0 ] && out+=("equal apart from source= ($n lines; -o and > file)")
	if [ -s "$d/p.rec" ] && ! cmp -s "$d/p.rec" "$d/o.rec"; then
		out+=("probe records differ (excluded or missing frames in this dump)")
	fi
	local line="" x
	for x in "${out[@]}"; do line+="${line:+; }$x"; done
	echo "$line"
}

# ---- the crash-extension table --------------------------------------------------------------
# CE_EXTRACT[NAME]: "WALL CPU" of `pagesleuth extract` on the same dump; CE_SAME[NAME]: the
# records check (set by the caller).
declare -A CE_EXTRACT CE_SAME
# awk: "WALL CPU" as "wall (cpu)"
_ce_awk='function cell(s,  a) { if (s == "") return "-"; split(s, a, " ")
		return sprintf("%.2f (%.2f)", a[1], a[2]) }'
crash_ext_table() {
	local n rows=() srows=()
	for n in "${cs_names[@]}"; do
		rows+=("$(awk -v n="$n" -v o="${CS_O[$n]:-}" -v r="${CS_R[$n]:-}" -v vm="${CS_VM[$n]:-}" \
			-v ran="${CS_VM_RAN[$n]:-0}" -v x="${CE_EXTRACT[$n]:-}" -v p="${CS_PAGES[$n]:-0}" "$_ce_awk"'
			function rate(s,  a) { if (s == "" || p == 0) return "-"; split(s, a, " ")
				return a[1] > 0 ? sprintf("%.0f", p / a[1]) : "-" }
			BEGIN { vmc = vm != "" ? cell(vm) : ran > 0 ? sprintf("> %.0f (stopped)", ran) : "-"
			printf "| %s | %s | %s | %s | %s | %s / %s / %s |", n, cell(o), cell(r), vmc, cell(x),
				rate(o), rate(vm), rate(x) }')")
		srows+=("$(awk -v n="$n" -v st="${CS_START[$n]:-}" -v ty="${CS_TYPE[$n]:-}" -v o="${CS_O[$n]:-}" \
			-v pr="${CS_P[$n]:-}" -v same="${CE_SAME[$n]:--}" "$_ce_awk"'
			BEGIN { split(o, a, " "); split(pr, b, " ")
			cost = (o != "" && pr != "" && a[1] > 0) ? sprintf("%.2f (%.2f), %.0f %%", a[1] - b[1],
				a[2] - b[2], 100 * (a[1] - b[1]) / a[1]) : "-"
			printf "| %s | %s | %s | %s | %s | %s |", n, cell(st), cell(ty), cell(pr), cost, same }')")
	done
	cat <<EOF

pagesleuth inside crash $("$CRASH" --version 2>/dev/null | awk '/^crash /{ print $2; exit }') vs crash's \`foreach vm -p\` and \`pagesleuth extract\`, all reading
every resident user page (pagesleuth also reads each page's struct page). Wall seconds
(CPU seconds = user + system, which the machine's load does not inflate); crash commands
timed inside one crash session per dump, warm (crash startup and pagesleuth's first-command
type lookup excluded, see below), best of $REPS; foreach vm -p once; pinned to CPU $CPU.
pages/s: pagesleuth in crash (-o) / foreach vm -p / extract, over the ${CS_PAGES[${cs_names[0]}]:-?} pages
pagesleuth writes (foreach vm -p finds the same resident pages and prints every virtual page).

| input | pagesleuth in crash (warm, -o) | pagesleuth in crash (> redirect) | crash foreach vm -p | pagesleuth extract | pages/s |
|---|---|---|---|---|---|
EOF
	printf '%s\n' "${rows[@]}"
	cat <<EOF

| input | crash startup | type info (first pagesleuth command) | walk with pfn_status not reading | 1-byte pfn_status reads cost | records vs extract |
|---|---|---|---|---|---|
EOF
	printf '%s\n' "${srows[@]}"
}
