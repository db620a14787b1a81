#!/usr/bin/env python3
"""gt2check.py GROUNDTRUTH OUTDIR -- a fixture's ground truth as gtcheck's inputs.

Reads tests/fixtures/data/<fixture>/groundtruth.txt (format: tests/fixtures/README.md,
"Ground-truth format") and writes, for every workload process (`process` line):
  OUTDIR/smaps.PID    the /proc/PID/smaps block, verbatim
  OUTDIR/pages.PID    "VA PFN KPAGECOUNT KPAGEFLAGS PAGEMAP" per `page` line and
                      "VA - - - PAGEMAP" per `swap` line (hex, hex, decimal, hex, hex),
                      ascending VA: gtcheck's PAGES file (tests/tools/gtcheck.c)
  OUTDIR/regions.PID  "START END NAME" (hex, [start, end)) per `region` line
and OUTDIR/procs: "PID ROLE COMM THREADS" per process, in the ground truth's order, and
OUTDIR/info: "release R", "machine M", "page_size N".

[vsyscall] is left out of smaps (gtcap writes no page lines for it, and it is not a VMA of
the mm: the walker cannot see it).

The vdso: gtcap itself runs while it captures, and its own mapping of the vdso page counts
in that page's kpagecount; it has exited when the dump is taken. The pages of every [vdso]
VMA therefore get KPAGECOUNT - 1 when gtcap could have mapped them: when more address
spaces map the page than the workload processes that the ground truth shows mapping it
(gtcap maps the pages its startup reads, as /init did; a page only some workload processes
touched, as 5.10 powerpc's vDSO data page inside [vdso], is not gtcap's). extract_fixtures.sh checks the same fact independently (a 4K page's
mapcount equals the number of PTEs mapping it across all address spaces of the dump).
A note on stderr says how many pages were adjusted.

The vdso's PG_referenced also changes after the capture, and what it becomes depends on how
many processes that touched the vdso exit between the capture and the dump: zap_pte_range()
calls mark_page_accessed() for a young PTE of a file-like page, and folio_mark_accessed()
(6.1, classic LRU) *sets* PG_referenced when it is clear but *clears* it (and activates)
when it is set, so each such exit flips it. The ground truth cannot show those exits (they
happen after it is written), so the flip count is taken from what runs after gtcap, which
the fixture's MANIFEST next to GROUNDTRUTH names: src/psinit.c (`busybox none ... psinit`,
the ppc32 guests) only waits for gtcap, one flip, so every vdso page gtcap mapped is
KPF_REFERENCED in the dump and smaps' [vdso] Referenced is its Rss; scripts/guest-init.sh
(busybox) runs `wc`, `gzip | base64` after gtcap in forked children, an even number of
flips with gtcap's (the dumps show the capture's flags), so nothing is changed there.

python3 stdlib only; exit 1 with one line on bad input.
"""
import os
import re
import sys


def fail(msg):
    sys.stderr.write("gt2check: %s\n" % msg)
    sys.exit(1)


def vdso_flips_after_capture(groundtruth):
    """Whether the vdso pages' PG_referenced flips between the capture and the dump: the
    guest's /init after gtcap, from the MANIFEST beside the ground truth (see the top)."""
    man = os.path.join(os.path.dirname(os.path.abspath(groundtruth)), "MANIFEST")
    try:
        lines = open(man, encoding="utf-8").read().split("\n")
    except OSError:
        fail("%s: no MANIFEST beside the ground truth: cannot tell what ran after gtcap" % man)
    for line in lines:
        if line.startswith("busybox "):
            # psinit: gtcap's exit is the only one (odd); guest-init.sh: even.
            return "psinit" in line
    fail("%s: no busybox line: cannot tell which /init ran after gtcap" % man)


def main():
    if len(sys.argv) != 3:
        fail("usage: gt2check.py GROUNDTRUTH OUTDIR")
    src, out = sys.argv[1], sys.argv[2]
    try:
        lines = open(src, encoding="utf-8", errors="surrogateescape").read().split("\n")
    except OSError as e:
        fail("%s: %s" % (src, e.strerror))
    if not lines or lines[0] != "pagesleuth-ground-truth 1":
        fail("%s:1: not a version 1 ground truth" % src)
    os.makedirs(out, exist_ok=True)
    procs = []          # (pid, role, comm, threads)
    smaps = {}          # pid -> lines
    pages = {}          # pid -> [(va, text)]
    regions = {}        # pid -> lines
    info = {}
    i = 1
    while i < len(lines):
        line = lines[i]
        m = re.match(r"=== begin (\S+) lines=(\d+)$", line)
        if m:
            name, n = m.group(1), int(m.group(2))
            if i + 1 + n >= len(lines) or lines[i + 1 + n] != "=== end " + name:
                fail("%s:%d: block %s: line count wrong" % (src, i + 1, name))
            sm = re.match(r"/proc/(\d+)/smaps$", name)
            if sm:
                smaps[int(sm.group(1))] = [l for l in lines[i + 1:i + 1 + n]]
            i += n + 2
            continue
        f = line.split(" ")
        try:
            if f[0] in ("release", "machine", "page_size"):
                info[f[0]] = f[1]
            elif f[0] == "process":
                kv = dict(x.split("=", 1) for x in f[2:])
                procs.append((int(f[1]), kv["role"], kv.get("comm", "-"), kv.get("threads", "1")))
            elif f[0] == "region":
                regions.setdefault(int(f[1]), []).append(
                    "%x %x %s" % (int(f[2], 16), int(f[3], 16), " ".join(f[4:])))
            elif f[0] == "page":
                pid, va = int(f[1]), int(f[2], 16)
                pages.setdefault(pid, []).append(
                    (va, "%x %x %d %x %x" % (va, int(f[3], 16), int(f[4]), int(f[5], 16), int(f[6], 16))))
            elif f[0] == "swap":
                pid, va = int(f[1]), int(f[2], 16)
                pages.setdefault(pid, []).append((va, "%x - - - %x" % (va, int(f[5], 16))))
        except (IndexError, ValueError, KeyError):
            fail("%s:%d: malformed %s line" % (src, i + 1, f[0]))
        i += 1
    if not procs:
        fail("%s: no process lines" % src)
    # The vdso pages of each process: its [vdso] VMAs from smaps. Whether PG_referenced
    # flipped after the capture: an odd number of vdso-touching exits (see the top).
    vdso_referenced_flips = vdso_flips_after_capture(src)
    adjusted = 0
    mappers = {}  # PFN -> the workload processes mapping it
    for pid in pages:
        for va, text in pages[pid]:
            pfn = text.split(" ")[1]
            if pfn != "-":
                mappers.setdefault(pfn, set()).add(pid)
    for pid in pages:
        vdso = []
        for l in smaps.get(pid, []):
            m = re.match(r"([0-9a-f]+)-([0-9a-f]+) .*\[vdso\]$", l)
            if m:
                vdso.append((int(m.group(1), 16), int(m.group(2), 16)))
        fixed = []
        for va, text in pages[pid]:
            f = text.split(" ")
            if f[1] != "-" and any(s <= va < e for s, e in vdso) and int(f[2]) > len(mappers[f[1]]):
                f[2] = "%d" % (int(f[2]) - 1)
                if vdso_referenced_flips:
                    if int(f[3], 16) & 4:
                        # The flip would clear it and activate the page: not modelled.
                        fail("%s: pid %d: vdso page %x already KPF_REFERENCED at the capture"
                             % (src, pid, va))
                    f[3] = "%x" % (int(f[3], 16) | 4)  # KPF_REFERENCED: set by the flip
                adjusted += 1
            fixed.append((va, " ".join(f)))
        pages[pid] = fixed
    if adjusted:
        sys.stderr.write("gt2check: %d vdso pages: kpagecount - 1 (gtcap's own mapping)\n" % adjusted)
    with open(os.path.join(out, "procs"), "w") as fp:
        for pid, role, comm, threads in procs:
            fp.write("%d %s %s %s\n" % (pid, role, comm, threads))
    with open(os.path.join(out, "info"), "w") as fp:
        for k in ("release", "machine", "page_size"):
            fp.write("%s %s\n" % (k, info.get(k, "-")))
    for pid, _, _, _ in procs:
        if pid not in smaps:
            fail("%s: no /proc/%d/smaps block" % (src, pid))
        with open(os.path.join(out, "smaps.%d" % pid), "w") as fp:
            skip = False
            invdso = False
            rss = None
            # [vdso] Referenced = Rss once the flip has set PG_referenced on its pages.
            vdso_flipped = vdso_referenced_flips
            for l in smaps[pid]:
                if re.match(r"[0-9a-f]+-[0-9a-f]+ ", l):
                    skip = l.endswith("[vsyscall]") or l.endswith("[vectors]")
                    invdso = l.endswith("[vdso]")
                if invdso and vdso_flipped and l.startswith("Rss:"):
                    rss = l.split()[1]
                if invdso and vdso_flipped and l.startswith("Referenced:"):
                    l = "Referenced:     %8s kB" % rss
                if not skip:
                    fp.write(l + "\n")
        with open(os.path.join(out, "pages.%d" % pid), "w") as fp:
            for _, text in sorted(pages.get(pid, []), key=lambda p: p[0]):
                fp.write(text + "\n")
        with open(os.path.join(out, "regions.%d" % pid), "w") as fp:
            for r in regions.get(pid, []):
                fp.write(r + "\n")


if __name__ == "__main__":
    main()
