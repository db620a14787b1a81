#!/usr/bin/env bash
# kdump_reads.sh - pagesleuth reads the pages of kdump-compressed files itself (coredump/
# kdump_pages.c: descriptors found by rank in the dumped-pages bitmap, zlib inflated with
# libdeflate, zstd with libzstd, a decompressed-page cache; LZO and snappy pages through
# libkdumpfile). Each compression must give exactly what the uncompressed file gives:
#   1. the x86_64 fixture's makedumpfile kdump-d1 (pages stored as they are, which
#      extract_fixtures.sh checks against the guest's own pagemap, kpageflags, meminfo ...)
#      recompressed here by makedumpfile with every compression this makedumpfile has
#      (-c zlib, -l LZO; -p snappy and -z zstd where Debian built them in, else noted) and
#      nothing filtered (-d 0): extract's records (tasks, page tables, struct pages, the
#      frame pass over all of RAM, the counters, slab, the kernel log) are byte for byte
#      those of the original, apart from the header's dump name; under ASan+UBSan;
#   2. --stats says how many pages were decompressed: more than 0 for zlib (read by
#      kdump_pages.c), 0 for LZO (left to libkdumpfile) and for the uncompressed original;
#   3. a zlib page whose data is garbage (in a copy: the compressed bytes of one page
#      the walk reads, found through its descriptor) is an error naming the physical address
#      and the descriptor, a partial result (exit 1), never a crash: the other pages read;
#   4. pages decompressed ahead on another CPU (the prefetcher, and the start-up's shared
#      runs): on the zlib file, extract allowed every CPU and extract pinned to one give
#      the same records (both those of the uncompressed file), --stats says pages were
#      decompressed ahead and read only when more than one CPU was allowed; under ASan+UBSan.
#      On a machine with one CPU only the pinned half runs (said so). Then in a cgroup whose
#      cpu quota gives one CPU's time (v2 cpu.max or v1 cpu.cfs_quota_us; as root where the
#      cgroup file system is writable, else said so): no page decompressed ahead either.
set -uo pipefail
cd "${PAGESLEUTH_ROOT:-.}" || exit 1
. tests/cases/lib/fixtures.sh
BIN=${PAGESLEUTH:-build-asan/pagesleuth}
fail=0
bad() { echo "FAIL: $*"; fail=1; }
[ -x "$BIN" ] || { echo "FAIL: no pagesleuth at $BIN"; exit 1; }
command -v makedumpfile >/dev/null || { echo "FAIL: makedumpfile not installed (make deps)"; exit 1; }
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
T=$(mktemp -d "${TMPDIR:-/tmp}/kdump_reads.XXXXXX")
trap 'rm -rf "$T"' EXIT

orig=$(fx_dump x86_64 kdump-d1.kdump) || { echo "FAIL: x86_64/kdump-d1.kdump not available"; exit 1; }
# records without the header's dump= (the file name) for comparison
strip() { sed -E '/^header /s/ dump=[^ ]*//' "$1"; }
"$BIN" extract "$orig" -o "$T/orig.rec" --stats 2>"$T/orig.err"
rc=$?
[ $rc = 0 ] || bad "original: extract exit $rc: $(grep -v warning "$T/orig.err" | head -2)"
grep -q 'dump pages decompressed' "$T/orig.err" && bad "original (stored pages): --stats says pages were decompressed"
strip "$T/orig.rec" >"$T/orig.cmp"
nrec=$(wc -l <"$T/orig.cmp")

supported=$(makedumpfile -v 2>/dev/null)
for c in c l p z; do
	case $c in c) name=zlib ;; l) name=lzo ;; p) name=snappy ;; z) name=zstd ;; esac
	if [ $c != c ] && ! grep -q "^$name[[:space:]]*enabled" <<<"$supported"; then
		[ $name = zstd ] && echo "  note: zstd: this makedumpfile has it disabled; the zlib file is rewritten with libzstd below" ||
			echo "  note: $name: this makedumpfile has it disabled ($(makedumpfile -v | head -1)); not checked"
		continue
	fi
	if ! makedumpfile -$c -d 0 "$orig" "$T/$name.kdump" >"$T/mk.out" 2>&1; then
		bad "$name: makedumpfile -$c failed: $(tail -1 "$T/mk.out")"
		continue
	fi
	"$BIN" extract "$T/$name.kdump" -o "$T/$name.rec" --stats 2>"$T/$name.err"
	rc=$?
	if fx_sanitizer_report "$T/$name.err"; then
		bad "$name: sanitizer report"; head -20 "$T/$name.err"; continue
	fi
	[ $rc = 0 ] || { bad "$name: extract exit $rc: $(grep -v warning "$T/$name.err" | head -2)"; continue; }
	if ! strip "$T/$name.rec" | cmp -s - "$T/orig.cmp"; then
		bad "$name: records differ from the uncompressed file's: $(strip "$T/$name.rec" | diff - "$T/orig.cmp" | head -4 | tr '\n' ' ')"
		continue
	fi
	n=$(sed -n 's/.*: \([0-9]*\) dump pages decompressed.*/\1/p' "$T/$name.err")
	case $name in
	zlib | zstd) [ "${n:-0}" -gt 0 ] || bad "$name: --stats shows no page decompressed by pagesleuth" ;;
	*) [ -z "$n" ] || bad "$name: --stats says $n pages decompressed, but $name is libkdumpfile's" ;;
	esac
	echo "  $name: $(stat -c %s "$T/$name.kdump") bytes, $nrec records identical to the uncompressed file's${n:+, $n pages decompressed}"
done

# 1b. zstd: Debian 12's makedumpfile has no zstd, so the zlib file is rewritten with every
# page compressed by libzstd (python's ctypes; makedumpfile's layout: the same header and
# bitmaps, the descriptors, then the data; a page zstd does not shrink stored as it is).
if [ -f "$T/zlib.kdump" ] && ! grep -q "^zstd[[:space:]]*enabled" <<<"$supported"; then
	if python3 - "$T/zlib.kdump" "$T/zstd.kdump" >"$T/zstd.out" 2>&1 <<'PY'; then
import ctypes, ctypes.util, struct, sys, zlib
zs = ctypes.CDLL(ctypes.util.find_library("zstd") or "libzstd.so.1")
zs.ZSTD_compressBound.restype = ctypes.c_size_t
zs.ZSTD_compress.restype = ctypes.c_size_t
zs.ZSTD_isError.restype = ctypes.c_uint
src, dst = sys.argv[1:3]
f = open(src, "rb")
h = f.read(4096)
block, sub, bmb = struct.unpack_from("<iiI", h, 428)
status = struct.unpack_from("<I", h, 424)[0]
f.seek(0)
head = bytearray(f.read((1 + sub + bmb) * block))
struct.pack_into("<I", head, 424, (status & ~0x27) | 0x20)  # DUMP_DH_COMPRESSED_ZSTD
dumped = head[(1 + sub + bmb // 2) * block:(1 + sub + bmb) * block]
n = sum(bin(b).count("1") for b in dumped)
descs = [struct.unpack("<qIIQ", f.read(24)) for _ in range(n)]
data_at = len(head) + 24 * n
out_desc, out_data = bytearray(), bytearray()
bound = zs.ZSTD_compressBound(block)
buf = ctypes.create_string_buffer(bound)
for off, size, flags, pflags in descs:
    f.seek(off)
    raw = f.read(size)
    page = zlib.decompress(raw) if flags & 1 else raw
    assert len(page) == block and not flags & ~1, (off, size, flags)
    got = zs.ZSTD_compress(buf, ctypes.c_size_t(bound), page, ctypes.c_size_t(block), 3)
    assert not zs.ZSTD_isError(got)
    if got < block:
        data, fl = buf.raw[:got], 0x20
    else:
        data, fl = page, 0
    out_desc += struct.pack("<qIIQ", data_at + len(out_data), len(data), fl, pflags)
    out_data += data
open(dst, "wb").write(head + out_desc + out_data)
print(n)
PY
		"$BIN" extract "$T/zstd.kdump" -o "$T/zstd.rec" --stats 2>"$T/zstd.err"
		rc=$?
		n=$(sed -n 's/.*: \([0-9]*\) dump pages decompressed.*/\1/p' "$T/zstd.err")
		if fx_sanitizer_report "$T/zstd.err"; then
			bad "zstd: sanitizer report"; head -20 "$T/zstd.err"
		elif [ $rc != 0 ]; then
			bad "zstd: extract exit $rc: $(grep -v warning "$T/zstd.err" | head -2)"
		elif ! strip "$T/zstd.rec" | cmp -s - "$T/orig.cmp"; then
			bad "zstd: records differ from the uncompressed file's: $(strip "$T/zstd.rec" | diff - "$T/orig.cmp" | head -4 | tr '\n' ' ')"
		elif [ "${n:-0}" -le 0 ]; then
			bad "zstd: --stats shows no page decompressed by pagesleuth"
		else
			echo "  zstd (rewritten from zlib, $(cat "$T/zstd.out") pages): $nrec records identical to the uncompressed file's, $n pages decompressed"
		fi
	else
		bad "zstd: cannot rewrite the zlib file: $(tail -1 "$T/zstd.out")"
	fi
fi

# 3. one zlib page's data made garbage: the page descriptor of a page extract reads.
if [ -f "$T/zlib.kdump" ]; then
	cp "$T/zlib.kdump" "$T/bad.kdump"
	# The first struct-page window the frame pass reads (--trace's page lines) names a
	# physical address; its descriptor is found from the header and the bitmap.
	"$BIN" extract "$T/zlib.kdump" -o /dev/null --trace "$T/trace" 2>/dev/null
	pa=$(awk '$1 == "page" { print $2; exit }' "$T/trace")
	python3 tests/tools/kdump_garble_page.py "$T/bad.kdump" "$pa" >"$T/mut.out" 2>&1 ||
		bad "corruption: $(cat "$T/mut.out")"
	read -r bad_pa bad_desc <"$T/mut.out"
	timeout 120 "$BIN" extract "$T/bad.kdump" -o "$T/bad.rec" 2>"$T/bad.err"
	rc=$?
	if fx_sanitizer_report "$T/bad.err"; then
		bad "garbage zlib page: sanitizer report"; head -20 "$T/bad.err"
	elif [ $rc != 1 ]; then
		bad "garbage zlib page 0x$bad_pa: exit $rc, want 1 (partial): $(head -3 "$T/bad.err")"
	elif ! grep -q "physical address 0x$bad_pa.*page descriptor $bad_desc .*zlib data does not inflate" "$T/bad.rec" "$T/bad.err"; then
		bad "garbage zlib page 0x$bad_pa: no warning names it and descriptor $bad_desc: $(grep -h 'zlib\|0x'"$bad_pa" "$T/bad.err" "$T/bad.rec" | head -3)"
	else
		echo "  garbage zlib page at 0x$bad_pa (descriptor $bad_desc): exit 1, named; $(grep -c '^[mx] ' "$T/bad.rec") page runs still written"
	fi
fi
# 4. decompressed ahead on another CPU, or not at all when pinned to one.
if [ -f "$T/zlib.kdump" ]; then
	cpus=$(taskset -pc $$ 2>/dev/null | sed 's/.*: //')
	first_cpu=$(sed 's/[,-].*//' <<<"$cpus")
	ncpus=$(nproc)
	taskset -c "$first_cpu" "$BIN" extract "$T/zlib.kdump" -o "$T/pinned.rec" --stats 2>"$T/pinned.err"
	rc=$?
	ahead() { sed -n 's/.* dump pages decompressed (\([0-9]*\) ahead on another CPU, \([0-9]*\) of them read).*/\1 \2/p' "$1"; }
	read -r p_ahead p_used <<<"$(ahead "$T/pinned.err")"
	if fx_sanitizer_report "$T/pinned.err"; then
		bad "pinned to CPU $first_cpu: sanitizer report"; head -20 "$T/pinned.err"
	elif [ $rc != 0 ] || ! strip "$T/pinned.rec" | cmp -s - "$T/orig.cmp"; then
		bad "pinned to CPU $first_cpu: exit $rc or records differ from the uncompressed file's"
	elif [ "${p_ahead:-x}" != 0 ] || [ "${p_used:-x}" != 0 ]; then
		bad "pinned to CPU $first_cpu: --stats says '${p_ahead:-?}' pages decompressed ahead and '${p_used:-?}' read, want 0 and 0: $(grep decompressed "$T/pinned.err")"
	else
		echo "  pinned to CPU $first_cpu: records identical, no page decompressed ahead"
	fi
	# one CPU's time by a cgroup quota, on every CPU: run "$@" in such a cgroup (exit 125: none could be made)
	in_one_cpu_quota() {
		local d= rc
		if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
			grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null ||
				echo +cpu >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
			d=/sys/fs/cgroup/pagesleuth-kdump-reads.$$
			mkdir "$d" 2>/dev/null && echo "100000 100000" >"$d/cpu.max" 2>/dev/null || { rmdir "$d" 2>/dev/null; return 125; }
		elif [ -d /sys/fs/cgroup/cpu ]; then
			d=/sys/fs/cgroup/cpu/pagesleuth-kdump-reads.$$
			mkdir "$d" 2>/dev/null && echo 100000 >"$d/cpu.cfs_period_us" 2>/dev/null &&
				echo 100000 >"$d/cpu.cfs_quota_us" 2>/dev/null || { rmdir "$d" 2>/dev/null; return 125; }
		else
			return 125
		fi
		sh -c 'echo $$ >"$1/cgroup.procs" || exit 125; shift; exec "$@"' sh "$d" "$@"
		rc=$?
		rmdir "$d" 2>/dev/null
		return $rc
	}
	if [ "$ncpus" -ge 2 ] && [ "$(id -u)" = 0 ]; then
		in_one_cpu_quota "$BIN" extract "$T/zlib.kdump" -o "$T/quota.rec" --stats 2>"$T/quota.err"
		rc=$?
		read -r q_ahead q_used <<<"$(ahead "$T/quota.err")"
		if [ $rc = 125 ]; then
			echo "  note: no cgroup with a cpu quota could be made here: the quota is not checked"
		elif fx_sanitizer_report "$T/quota.err"; then
			bad "one CPU's time by cgroup quota: sanitizer report"; head -20 "$T/quota.err"
		elif [ $rc != 0 ] || ! strip "$T/quota.rec" | cmp -s - "$T/orig.cmp"; then
			bad "one CPU's time by cgroup quota: exit $rc or records differ from the uncompressed file's"
		elif [ "${q_ahead:-x}" != 0 ]; then
			bad "one CPU's time by cgroup quota, $ncpus CPUs: --stats says '${q_ahead:-?}' pages decompressed ahead, want 0: $(grep decompressed "$T/quota.err")"
		else
			echo "  one CPU's time by cgroup quota on $ncpus CPUs: records identical, no page decompressed ahead"
		fi
	fi
	if [ "$ncpus" -lt 2 ]; then
		echo "  note: this machine lets extract run on $ncpus CPU ($cpus): pages decompressed ahead not checked"
	else
		read -r a_ahead a_used <<<"$(ahead "$T/zlib.err")"
		if [ "${a_ahead:-0}" -le 0 ] || [ "${a_used:-0}" -le 0 ]; then
			bad "$ncpus CPUs ($cpus): --stats says '${a_ahead:-?}' pages decompressed ahead and '${a_used:-?}' read, want both above 0: $(grep decompressed "$T/zlib.err")"
		else
			echo "  $ncpus CPUs: records identical (above); ${a_ahead} pages decompressed ahead on another CPU, ${a_used} of them read"
		fi
	fi
fi
[ $fail = 0 ] && echo "kdump_reads: ok"
exit $fail
