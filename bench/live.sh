#!/usr/bin/env bash
# bench/live.sh - live collection speed: `pagesleuth snap` per GiB of resident memory, what it
# is made of (the kernel's own costs, measured alone), and the cost of a `pagesleuth wss`
# measurement of a big process by each method this kernel offers, against reading smaps and
# against the number wss-v2 publishes (0.8 s for a 20 GB process, Brendan Gregg, "Working Set
# Size Estimation", 2018). Not part of the test suite (nothing here asserts a time); run by
# hand as root:
#
#   bench/live.sh           a 3 GiB process (BENCH_LIVE_GIB=N for another size)
#
# Builds pagesleuth into $B (default /tmp/bench-build) and tests/tools/wss_toucher.c, starts
# one toucher with GIB GiB of anonymous memory written (4 KiB pages, THP off), and measures,
# best of BENCH_REPS (default 3), wall seconds and CPU seconds (user + system, all threads):
#   snap --pid P -o FILE      the whole snapshot (pagemap, kpageflags, kpagecount, records),
#                             with its default reader threads and with --jobs 1
#   snap --no-pages           tasks, mm and VMAs only
#   floor: pagemap            pread of every VMA's pagemap range, 512 KiB at a time, alone
#   floor: kpageflags         the process's PFNs, sorted, one pread per window of neighbours
#                             (what snap reads), alone
#   floor: kpagecount         the same for the pages pagemap does not call exclusive
#   formatting                the writer alone: as many single-page `m` records as the
#                             snapshot has pages (the worst case, every frame scattered),
#                             to /dev/null
#   smaps / smaps_rollup      reading the file (cat > /dev/null): the kernel's own page walk
#   clear_refs                writing 1 (the referenced method's reset)
#   wss referenced            the whole `wss -m referenced P 0.001` run; its overhead is the
#                             run minus 1 ms: one clear_refs plus one smaps_rollup read
#   wss idle                  the same with -m idle, when /sys/kernel/mm/page_idle/bitmap exists
# and prints one markdown table for the README, per GiB and scaled to 20 GiB (linear: the
# costs are page walks). On a busy machine wall time is CPU time stretched by waiting for a
# CPU; the CPU column is what the work costs.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${B:-/tmp/bench-build}
GIB=${BENCH_LIVE_GIB:-3}
REPS=${BENCH_REPS:-3}
[ "$(id -u)" = 0 ] || { echo "bench/live.sh: needs root (PFNs, clear_refs of any process)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/bench-live.XXXXXX)
pid=""
cleanup() { [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

echo "== building pagesleuth in $B" >&2
make -s B="$B" "$B/pagesleuth" >&2
cc -std=gnu11 -D_GNU_SOURCE -O2 -static -o "$tmp/toucher" tests/tools/wss_toucher.c 2>/dev/null ||
	cc -std=gnu11 -D_GNU_SOURCE -O2 -o "$tmp/toucher" tests/tools/wss_toucher.c

# The floors: the kernel's costs for this process's pages, each read alone, the way snap
# reads them (same batch size, same PFN windows). Prints "NAME SECONDS" lines (CPU time).
cat >"$tmp/floor.c" <<'FLOOR'
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#define BATCH 65536
#define GAP 8
#define WINDOW 8192
static uint64_t pm[BATCH], win[WINDOW];
static double cpu(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}
static void windows(int fd, const uint64_t *pfn, size_t n)
{
	for (size_t a = 0, b; a < n; a = b) {
		for (b = a + 1; b < n && pfn[b] - pfn[b - 1] <= GAP && pfn[b] - pfn[a] < WINDOW; b++)
			;
		if (pread(fd, win, (pfn[b - 1] - pfn[a] + 1) * 8, (off_t)(pfn[a] * 8)) < 0)
			perror("pread"), exit(1);
	}
}
int main(int argc, char **argv)
{
	char path[64], line[4096];
	long page = sysconf(_SC_PAGESIZE);
	snprintf(path, sizeof path, "/proc/%s/maps", argv[1]);
	FILE *maps = fopen(path, "r");
	snprintf(path, sizeof path, "/proc/%s/pagemap", argv[1]);
	int fd = open(path, O_RDONLY);
	if (!maps || fd < 0)
		return perror(path), 1;
	size_t n = 0, nshared = 0, cap = 1 << 20;
	uint64_t *pfn = malloc(cap * 8), *shared = malloc(cap * 8);
	double t0 = cpu();
	unsigned long long start, end;
	while (fgets(line, sizeof line, maps))
		if (sscanf(line, "%llx-%llx", &start, &end) == 2 && !strstr(line, "[vsyscall]"))
			for (uint64_t va = start; va < end; va += (uint64_t)BATCH * page) {
				size_t k = (end - va) / page < BATCH ? (end - va) / page : BATCH;
				ssize_t got = pread(fd, pm, k * 8, (off_t)(va / page * 8));
				for (ssize_t i = 0; i < got / 8; i++) {
					if (!(pm[i] >> 63))
						continue;
					if (n == cap)
						cap *= 2, pfn = realloc(pfn, cap * 8), shared = realloc(shared, cap * 8);
					pfn[n++] = pm[i] & ((UINT64_C(1) << 55) - 1);
					if (!(pm[i] >> 56 & 1))
						shared[nshared++] = pfn[n - 1];
				}
			}
	double t1 = cpu();
	qsort(pfn, n, 8, cmp);
	qsort(shared, nshared, 8, cmp);
	int flags = open("/proc/kpageflags", O_RDONLY), count = open("/proc/kpagecount", O_RDONLY);
	double t2 = cpu();
	windows(flags, pfn, n);
	double t3 = cpu();
	windows(count, shared, nshared);
	double t4 = cpu();
	printf("pagemap %.4f\nkpageflags %.4f\nkpagecount %.4f\npages %zu\n", t1 - t0, t3 - t2, t4 - t3, n);
	return 0;
}
FLOOR
# The writer alone: N single-page m records (every frame scattered) to /dev/null.
cat >"$tmp/format.c" <<'FORMAT'
#include "records.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv)
{
	(void)argc;
	size_t n = strtoull(argv[1], NULL, 10);
	char *err = NULL;
	struct ps_writer *w = ps_writer_open("/dev/null", &err);
	if (!w)
		return fprintf(stderr, "%s\n", err), 1;
	ps_write_header(w, &(struct ps_header){ .source = "bench", .page_size = 4096 });
	struct timespec a, b;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	struct ps_vma_sum sum = { .mm = 1 };
	for (size_t i = 0; i < n; i++) {
		struct ps_map m = { .mm = 1, .vaddr = 0x7f0000000000 + i * 4096, .npages = 1,
				    .pfn = 0x400000 + i * 7919 % 0x500000, .mapcount = 1,
				    .refcount = PS_UNKNOWN, .pflags = 0x400005828, .shift = 12,
				    .pte = { .set = 1u << PS_PTE_USER | 1u << PS_PTE_EXCLUSIVE,
					     .known = 1u << PS_PTE_USER | 1u << PS_PTE_SOFTDIRTY |
						      1u << PS_PTE_EXCLUSIVE } };
		ps_write_map(w, &m);
		ps_sum_add_map(&sum, &m, 4096);
	}
	ps_write_sum(w, &sum);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	ps_writer_close(w, false, NULL);
	printf("format %.4f\n", (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
	return 0;
}
FORMAT
cc -std=gnu11 -D_GNU_SOURCE -O2 -o "$tmp/floor" "$tmp/floor.c"
cc -std=gnu11 -D_GNU_SOURCE -O2 -Ilib -o "$tmp/format" "$tmp/format.c" "$B"/lib/*.o -lzstd -lz -lm

pages=$((GIB * 262144))
echo "== starting a process with $GIB GiB written ($pages pages)" >&2
"$tmp/toucher" hot $pages 1 1000 >"$tmp/toucher.out" &
pid=$!
for _ in $(seq 600); do grep -q '^ready' "$tmp/toucher.out" && break; sleep 0.1; done
grep -q '^ready' "$tmp/toucher.out" || { echo "toucher did not start" >&2; exit 1; }
rss_kb=$(awk '$1 == "Rss:" { print $2 }' /proc/$pid/smaps_rollup)
rss_gib=$(awk -v k="$rss_kb" 'BEGIN { printf "%.2f", k / 1048576 }')

# best CMD...: "WALL CPU" seconds of the run with the least wall time, of $REPS runs. CPU is
# user + system of the command and its threads (bash's time, millisecond resolution).
best() {
	local bw="" bc="" out w c TIMEFORMAT='%3R %3U %3S'
	for _ in $(seq "$REPS"); do
		out=$( { time "$@" >/dev/null 2>&1; } 2>&1 | tail -1) || true
		w=$(echo "$out" | awk '{ print $1 }')
		c=$(echo "$out" | awk '{ printf "%.3f", $2 + $3 }')
		if [ -z "$bw" ] || awk -v a="$w" -v b="$bw" 'BEGIN { exit !(a < b) }'; then bw=$w bc=$c; fi
	done
	echo "$bw $bc"
}
# best_field NAME CMD...: the least of $REPS values CMD prints on its "NAME SECONDS" line.
best_field() {
	local name=$1 bestv="" v
	shift
	for _ in $(seq "$REPS"); do
		v=$("$@" | awk -v n="$name" '$1 == n { print $2 }')
		if [ -z "$bestv" ] || awk -v a="$v" -v b="$bestv" 'BEGIN { exit !(a < b) }'; then bestv=$v; fi
	done
	echo "$bestv"
}
clear_refs() { echo 1 >"/proc/$pid/clear_refs"; }

echo "== measuring (best of $REPS)" >&2
read -r w_snap c_snap < <(best "$B/pagesleuth" snap --pid $pid -o "$tmp/snap.rec")
runs=$(grep -c '^m ' "$tmp/snap.rec" || true)
read -r w_snap1 c_snap1 < <(best "$B/pagesleuth" snap --jobs 1 --pid $pid -o "$tmp/snap1.rec")
read -r w_nopages c_nopages < <(best "$B/pagesleuth" snap --no-pages --pid $pid -o "$tmp/nopages.rec")
f_pagemap=$(best_field pagemap "$tmp/floor" $pid)
f_flags=$(best_field kpageflags "$tmp/floor" $pid)
f_count=$(best_field kpagecount "$tmp/floor" $pid)
npages=$("$tmp/floor" $pid | awk '$1 == "pages" { print $2 }')
f_format=$(best_field format "$tmp/format" "$npages")
read -r w_smaps c_smaps < <(best cat /proc/$pid/smaps)
read -r w_rollup c_rollup < <(best cat /proc/$pid/smaps_rollup)
read -r w_clear c_clear < <(best clear_refs)
read -r w_wss_ref c_wss_ref < <(best "$B/pagesleuth" wss -m referenced $pid 0.001)
w_wss_idle="n/a" c_wss_idle="n/a"
if [ -w /sys/kernel/mm/page_idle/bitmap ]; then
	read -r w_wss_idle c_wss_idle < <(best "$B/pagesleuth" wss -m idle $pid 0.001)
fi

row() { # NAME WALL CPU NOTE (n/a: not measured; -: no such column)
	if [ "$2" = n/a ]; then
		printf '| %s | n/a | n/a | n/a | n/a | n/a | %s |\n' "$1" "$4"
		return
	fi
	awk -v n="$1" -v w="$2" -v c="$3" -v g="$rss_gib" -v note="$4" 'BEGIN {
		ws = w == "-" ? "-" : sprintf("%.3f", w)
		wg = w == "-" ? "-" : sprintf("%.3f", w / g)
		w20 = w == "-" ? "-" : sprintf("%.2f", w / g * 20)
		printf "| %s | %s | %.3f | %s | %.3f | %s | %s |\n", n, ws, c, wg, c / g, w20, note }'
}
echo
echo "Live collection, one process with $rss_gib GiB resident (4 KiB pages, $npages present), $(uname -r), $(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg), best of $REPS:"
echo
echo "| operation | wall s | CPU s | wall s/GiB | CPU s/GiB | wall s for 20 GiB (scaled) | note |"
echo "|---|---|---|---|---|---|---|"
row "pagesleuth snap --pid (whole record file)" "$w_snap" "$c_snap" "$runs page runs written; reader threads: one per CPU, at most 4"
row "pagesleuth snap --jobs 1 --pid" "$w_snap1" "$c_snap1" "one thread"
row "pagesleuth snap --no-pages --pid" "$w_nopages" "$c_nopages" "tasks, mm, VMAs"
row "floor: pagemap pread alone" - "$f_pagemap" "every VMA, 512 KiB a pread"
row "floor: kpageflags alone" - "$f_flags" "the process's PFNs sorted, one pread per window"
row "floor: kpagecount alone" - "$f_count" "only pages pagemap does not call exclusive"
row "record formatting alone" - "$f_format" "one m record per page (all scattered), to /dev/null"
row "cat smaps" "$w_smaps" "$c_smaps" "the kernel's walk + text"
row "cat smaps_rollup" "$w_rollup" "$c_rollup" "one walk, one summary"
row "clear_refs (write 1)" "$w_clear" "$c_clear" "referenced method's reset"
row "pagesleuth wss -m referenced P 0.001" "$w_wss_ref" "$c_wss_ref" "clear_refs + smaps_rollup + 1 ms"
row "pagesleuth wss -m idle P 0.001" "$w_wss_idle" "$c_wss_idle" "$([ "$w_wss_idle" = n/a ] && echo 'no /sys/kernel/mm/page_idle/bitmap on this kernel' || echo 'pagemap twice, bitmap write + read')"
echo "| wss-v2 (published, idle method) | 0.8 | - | 0.04 | - | 0.8 | 20 GB process, whole-system bitmap read |"
