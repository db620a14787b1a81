#!/bin/bash
# ram.sh - all of RAM from every fixture dump: the kernel's own counters (counter records:
# vmstat, meminfo, zone, buddyinfo) against what the guest's kernel printed in /proc/vmstat
# and /proc/meminfo right before the dump (groundtruth.txt), and the pass over every page
# frame (f records) against those counters in the same dump and against the guest's
# /proc/kpageflags of every page its workload mapped.
#
# The guest kept running between its capture and the dump: gtcap itself (its stack, page
# tables, anonymous memory) and the ground-truth file it wrote to tmpfs after reading
# /proc/meminfo. So the checks are:
#   - vmstat: the counter NAMES (read from the dump's vmstat_text) equal the first lines of
#     the guest's /proc/vmstat, in order, exactly;
#   - meminfo: the fields that gtcap's run cannot move are EQUAL (MemTotal, swap, huge
#     pages, Buffers, Percpu, CommitLimit, Unevictable, ...); Shmem grew by exactly the
#     ground-truth file (its size rounded up to pages, give or take the one page stdio had
#     flushed before reading meminfo), Cached by the same; the rest are printed with their
#     difference;
#   - self-consistency inside the dump: the zones' NR_FREE_PAGES sum to the global counter,
#     and meminfo's split adds up to MemTotal in the report's ram table;
#   - frames: every frame the guest's kpageflags called anonymous, shmem, file or reserved
#     (for the workload's mapped pages, captured before the dump) is in that class, but
#     for those that changed between capture and dump (said how many; at most 1 in 100);
#     inside the dump the walked free, shmem, page-table and page-cache frames equal the
#     kernel's counters (give or take 8 pages: the per-CPU deltas the global counters had
#     not folded in), anonymous frames lie between nr_anon_pages and it plus the swap
#     cache, slab frames are at most the slab counters (which also count large kmalloc),
#     every vmalloc'd page the kernel counts is found in a busy vmap area (VmallocUsed;
#     vmap()ed areas come on top); per slab cache, slabinfo's slabs times pages per slab
#     (the kmem_cache_node counters) are the frames the walk gave that cache; no frame is
#     unknown; the ground-truth file /tmp/gt.txt, still in tmpfs, is named as
#     the owner of exactly its size in page-cache frames;
#   - x86_64-ram (a fixture whose workload makes every class large: tests/fixtures/src/ramload.c),
#     against the guest's own numbers in its ground truth (its "ram-workload" block says what the
#     workload did; /proc/slabinfo, /proc/vmallocinfo, zram's mm_stat were read after gtcap):
#     hugetlb frames = HugePages_Total x pages per huge page (owner "free": HugePages_Free's,
#     "in use" the rest), and the workload's mapped huge pages
#     lie on them; every cache that grew by the leaked socket count (slabinfo before the workload
#     and at capture) has the guest's num_objs/active_objs in the dump's slab records and its
#     slabs x pages per slab in frames (exact; filp/dentry/inode caches, which the console
#     shell's pipes use after the capture, within one slab); the 24 MiB file read from ext2 and
#     mapped by nobody owns exactly its size in file frames; per vmalloc caller the frames equal
#     vmallocinfo's pages= (kernel stacks: up to two 16 KiB stacks fewer, the processes that ran
#     after the capture; modules' callers, which kallsyms does not name, in sum); zsmalloc
#     frames = mm_stat's mem_used_total / page size exactly (nothing swaps after the capture;
#     6.1 has no zsmalloc page type: its pages are found by page->mapping = zsmalloc_mops |
#     PAGE_MAPPING_MOVABLE, zsmalloc_mops inside the zsmalloc module, walker/modules.c);
#   - a kernel whose kallsyms has no data symbols (CONFIG_KALLSYMS_ALL off in the fixture's
#     config) and no System.map given writes no counters and no warning: nothing misread.
set -uo pipefail
cd "${PAGESLEUTH_ROOT:-.}" || exit 1
. tests/cases/lib/fixtures.sh
ASAN=${PAGESLEUTH:-build-asan/pagesleuth}
FAST=${PAGESLEUTH_FAST:-build/pagesleuth}
[ -x "$FAST" ] || FAST=$ASAN
[ -x "$ASAN" ] || ASAN=$FAST
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
T=$(mktemp -d "${TMPDIR:-/tmp}/ram.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0 checked=0
bad() { echo "FAIL: $*"; fail=1; }

# groundtruth.txt's blocks, for both scripts below (python finds it beside them)
cat >"$T/gtsection.py" <<'EOF'
def section(gt, name):
    """The lines of block NAME ("=== begin NAME ..." to "=== end NAME") of ground truth GT."""
    out, on = [], False
    for line in open(gt, errors="replace"):
        if line.startswith("=== begin " + name + " "):
            on = True
            continue
        if line.startswith("=== end " + name):
            break
        if on:
            out.append(line.rstrip("\n"))
    return out

def page_size(gt):
    return int([l.split()[1] for l in open(gt) if l.startswith("page_size ")][0])
EOF

cat >"$T/check.py" <<'EOF'
import sys, math
from gtsection import section as gt_section, page_size as gt_page_size
rec, gt, fixture, kallsyms_all = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
def section(name):
    return gt_section(gt, name)
page_size = gt_page_size(gt)
g_vm = [l.split() for l in section("/proc/vmstat")]
g_mi = {}
for l in section("/proc/meminfo"):
    k, v = l.split(":", 1)
    g_mi[k] = int(v.split()[0])
vmstat, meminfo, zone_free, buddy = [], {}, 0, 0
for line in open(rec):
    if not line.startswith("counter "):
        continue
    kv = dict(f.split("=", 1) for f in line.split()[1:])
    s, n, v = kv["set"], kv["name"], kv["value"]
    if s == "vmstat": vmstat.append((n, int(v)))
    elif s == "meminfo": meminfo[n] = int(v)
    elif s == "zone" and n == "nr_free_pages": zone_free += int(v)
    elif s == "buddyinfo": buddy += int(v) << int(n[5:])
errors = []
gt_pages = math.ceil(sum(len(l) for l in open(gt, "rb")) / page_size)
if not kallsyms_all:
    if vmstat or meminfo:
        errors.append("counters written for a kernel without data symbols in kallsyms")
    print("  no data symbols (CONFIG_KALLSYMS_ALL off, no System.map): no counters, as expected")
else:
    names = [n for n, _ in vmstat]
    gnames = [x[0] for x in g_vm[:len(names)]]
    if not names:
        errors.append("no vmstat counters")
    elif names != gnames:
        errors.append("vmstat names differ from the guest's /proc/vmstat: %s" %
                      [(a, b) for a, b in zip(names, gnames) if a != b][:5])
    same = sum(1 for (n, v), g in zip(vmstat, g_vm) if int(g[1]) == v)
    exact = ["MemTotal", "SwapTotal", "SwapFree", "SwapCached", "Buffers", "CommitLimit", "Percpu",
             "AnonHugePages", "HugePages_Total", "HugePages_Free", "HugePages_Rsvd", "HugePages_Surp",
             "Hugepagesize", "Hugetlb", "Unevictable", "Mlocked", "NFS_Unstable", "Bounce",
             "WritebackTmp", "VmallocChunk", "SecPageTables", "ShmemHugePages", "ShmemPmdMapped",
             "FileHugePages", "FilePmdMapped", "CmaTotal", "HardwareCorrupted", "HighTotal",
             "Active(file)", "Inactive(file)", "Writeback", "Unaccepted", "Balloon", "GPUActive",
             "GPUReclaim"]
    n_exact = 0
    for k in exact:
        if k in g_mi:
            if k not in meminfo:
                errors.append("meminfo %s: the guest printed %d, the dump's counters have none" % (k, g_mi[k]))
            elif meminfo[k] != g_mi[k]:
                errors.append("meminfo %s: dump %d, guest %d" % (k, meminfo[k], g_mi[k]))
            else:
                n_exact += 1
    # tmpfs grew by the ground-truth file after /proc/meminfo was read
    for k in ("Shmem", "Cached"):
        if k in g_mi and k in meminfo:
            grew = (meminfo[k] - g_mi[k]) * 1024 // page_size
            if not (gt_pages - 1 <= grew <= gt_pages):
                errors.append("%s grew by %d pages between capture and dump, the ground-truth file is %d" %
                              (k, grew, gt_pages))
        elif k in g_mi:
            errors.append("meminfo %s missing" % k)
    free = dict(vmstat).get("nr_free_pages")
    if free is not None and zone_free != free:
        errors.append("zones' nr_free_pages sum to %d, the global counter is %d" % (zone_free, free))
    moved = ["%s %+d" % (k, meminfo[k] - g_mi[k]) for k in g_mi if k in meminfo and k not in exact
             and k not in ("Shmem", "Cached") and meminfo[k] != g_mi[k]]
    unread = [k for k in g_mi if k not in meminfo]
    print("  vmstat: %d names as the guest's, %d values equal; meminfo: %d of %d fields written, %d equal "
          "where gtcap cannot move them, Shmem/Cached grew by the %d-page ground-truth file; "
          "buddy lists hold %d free pages, NR_FREE_PAGES %s" %
          (len(names), same, len(meminfo), len(g_mi), n_exact, gt_pages, buddy, free))
    print("  moved by gtcap's run (kB): " + ", ".join(moved))
    print("  not read: " + ", ".join(unread))
# --- the pass over every frame ---
import bisect
starts, ends, cls, fcount = [], [], [], {}
for line in open(rec):
    if line.startswith("f "):
        p = line.split(); a = int(p[1], 16); n = int(p[2])
        starts.append(a); ends.append(a + n); cls.append(p[3])
        fcount[p[3]] = fcount.get(p[3], 0) + n
if not starts:
    errors.append("no f records (the pass over all frames wrote nothing)")
else:
    def klass(pfn):
        i = bisect.bisect_right(starts, pfn) - 1
        return cls[i] if i >= 0 and pfn < ends[i] else None
    agree, changed, seen = 0, {}, set()
    for line in open(gt, errors="replace"):
        if not line.startswith("page "):
            continue
        p = line.split()
        if len(p) < 7 or p[3] == "-" or p[3] in seen:
            continue
        seen.add(p[3])
        pfn, fl = int(p[3], 16), int(p[5], 16)
        exp = ("reserved" if fl >> 32 & 1 or fl >> 24 & 1 else "anon" if fl >> 12 & 1
               else "shmem" if fl >> 14 & 1 else "file")
        got = klass(pfn)
        if got == exp:
            agree += 1
        else:
            changed["%s->%s" % (exp, got)] = changed.get("%s->%s" % (exp, got), 0) + 1
    nchanged = sum(changed.values())
    if not agree or nchanged * 100 > agree + nchanged:
        errors.append("frames: %d of %d workload frames in the class kpageflags gave them: %s" %
                      (agree, agree + nchanged, changed))
    if fcount.get("unknown"):
        errors.append("frames: %d frames unknown" % fcount["unknown"])
    vmd = dict(vmstat)
    def near(what, walked, counted):
        if abs(walked - counted) > 8:
            errors.append("frames: %s %d walked, the kernel counts %d" % (what, walked, counted))
    # free frames inside CMA areas are owned by their area (owner kind cma): the dump's own
    # nr_free_cma at the same moment, exactly, and the guest's CmaFree within the usual drift
    cma_ids, cma_free = set(), 0
    for line in open(rec):
        if line.startswith("owner ") and " kind=cma " in line:
            cma_ids.add(line.split()[1][3:])
        elif line.startswith("f ") and cma_ids:
            p = line.split()
            if p[3] == "free" and p[4] in cma_ids:
                cma_free += int(p[2])
    if "nr_free_cma" in vmd and g_mi.get("CmaTotal"):
        if cma_free != vmd["nr_free_cma"]:
            errors.append("frames: %d free frames in CMA areas, nr_free_cma %d" % (cma_free, vmd["nr_free_cma"]))
        print("  CMA: %d free frames in its areas = nr_free_cma %d (guest CmaFree %d kB)" %
              (cma_free, vmd["nr_free_cma"], g_mi["CmaFree"]))
    if "nr_free_pages" in vmd:
        near("free", fcount.get("free", 0), vmd["nr_free_pages"])
        near("shmem", fcount.get("shmem", 0), vmd["nr_shmem"])
        near("page tables", fcount.get("pgtable", 0), vmd["nr_page_table_pages"])
        if "nr_swapcached" in vmd:
            near("page cache", fcount.get("file", 0), vmd["nr_file_pages"] - vmd["nr_shmem"] - vmd["nr_swapcached"])
            if not (vmd["nr_anon_pages"] - 8 <= fcount.get("anon", 0) <= vmd["nr_anon_pages"] + vmd["nr_swapcached"] + 8):
                errors.append("frames: anon %d outside nr_anon_pages %d .. + nr_swapcached %d" %
                              (fcount.get("anon", 0), vmd["nr_anon_pages"], vmd["nr_swapcached"]))
        # every vmalloc'd page is found in the busy vmap areas (vmap()ed areas come on top:
        # VmallocUsed does not count them)
        vm_counted = vmd.get("nr_vmalloc", meminfo.get("VmallocUsed", -1) * 1024 // page_size if "VmallocUsed" in meminfo else None)
        if vm_counted is not None and fcount.get("vmalloc", 0) < vm_counted - 8:
            errors.append("frames: vmalloc %d walked, the kernel counts %d vmalloc'd pages" % (fcount.get("vmalloc", 0), vm_counted))
        slab_counted = vmd["nr_slab_reclaimable"] + vmd["nr_slab_unreclaimable"]
        if fcount.get("slab", 0) > slab_counted + 8:
            errors.append("frames: slab %d walked, more than the kernel's %d" % (fcount.get("slab", 0), slab_counted))
    # The ground-truth file sat in tmpfs, whole, from its capture to the dump: its page cache
    # owner is named by its path and holds exactly its size in frames.
    owners, by_owner = {}, {}
    for line in open(rec):
        if line.startswith("owner "):
            kv = dict(x.split("=", 1) for x in line.split()[1:])
            owners[kv["name"]] = kv["id"]
        elif line.startswith("f "):
            p = line.split()
            by_owner[p[4]] = by_owner.get(p[4], 0) + int(p[2])
    # slabinfo (the caches' node counters) against the walk (each frame's slab cache): per
    # cache, its slabs times pages per slab are the frames the walk gave it
    slab_pages, owner_name = {}, {}
    for line in open(rec):
        if line.startswith("slab "):
            kv = dict(x.split("=", 1) for x in line.split()[1:])
            slab_pages[kv["name"]] = slab_pages.get(kv["name"], 0) + int(kv["num_slabs"]) * int(kv["pagesperslab"])
        elif line.startswith("owner ") and " kind=slab " in line:
            kv = dict(x.split("=", 1) for x in line.split()[1:])
            owner_name[kv["id"]] = kv["name"]
    walked = {}
    for oid, n in by_owner.items():
        if oid in owner_name:
            walked[owner_name[oid]] = walked.get(owner_name[oid], 0) + n
    if slab_pages:
        off = {k: (v, walked.get(k, 0)) for k, v in slab_pages.items() if v != walked.get(k, 0)}
        if off or sum(slab_pages.values()) != fcount.get("slab", 0):
            errors.append("slabinfo vs the walk: %d caches differ %s; all slabs %d pages, slab frames %d" %
                          (len(off), list(off.items())[:4], sum(slab_pages.values()), fcount.get("slab", 0)))
        print("  slabinfo: %d caches, each one's slabs = the frames the walk gave it (%d pages in all)" %
              (len(slab_pages), sum(slab_pages.values())))
    gt_frames = by_owner.get(owners.get("/tmp/gt.txt"), 0)
    if gt_frames != gt_pages:
        errors.append("frames: /tmp/gt.txt holds %d frames, the file is %d pages" % (gt_frames, gt_pages))
    print("  frames: %s; %d of %d workload frames in kpageflags' class (%s changed)" %
          (", ".join("%s %d" % kv for kv in sorted(fcount.items())), agree, agree + nchanged,
           ", ".join("%s %d" % kv for kv in changed.items()) or "none"))
for e in errors:
    print("FAIL: %s: %s" % (fixture, e))
sys.exit(1 if errors else 0)
EOF

cat >"$T/ramwork.py" <<'EOF'
import sys, re, collections
from gtsection import section as gt_section, page_size as gt_page_size
rec, gt, fixture = sys.argv[1], sys.argv[2], sys.argv[3]
def section(name):
    return gt_section(gt, name)
page_size = gt_page_size(gt)
release = [l.split()[1] for l in open(gt) if l.startswith("release ")][0]
work = {}
for l in section("ram-workload"):
    kv = dict(x.split("=", 1) for x in l.split()[1:])
    work[l.split()[0]] = kv
g_mi = {}
for l in section("/proc/meminfo"):
    k, v = l.split(":", 1)
    g_mi[k] = int(v.split()[0])
def slabinfo(name):
    out = {}
    for l in section(name)[2:]:
        p = l.split()
        out[p[0]] = dict(active_objs=int(p[1]), num_objs=int(p[2]), objsize=int(p[3]), objperslab=int(p[4]),
                         pagesperslab=int(p[5]), num_slabs=int(p[14]))
    return out
# the records
fcls, owner_frames, owners, slabs, tasks, vmas, runs = [], collections.Counter(), {}, {}, {}, [], []
cur_vma = None
for line in open(rec):
    t = line.split(" ", 1)[0]
    if t == "f":
        p = line.split(); fcls.append((int(p[1], 16), int(p[2]), p[3], p[4]))
        owner_frames[(p[3], p[4])] += int(p[2])
    elif t in ("owner", "slab", "task", "vma"):
        kv = dict(x.split("=", 1) for x in line.split()[1:] if "=" in x)
        if t == "owner": owners[kv["id"]] = (kv["kind"], kv["name"])
        elif t == "slab": slabs[kv["name"]] = {k: int(v) for k, v in kv.items() if k != "name"}
        elif t == "task": tasks[kv["pid"]] = kv["mm"]
        else: cur_vma = kv; vmas.append(kv)
    elif t == "m":
        p = line.split(); runs.append((p[1], int(p[2], 16), p[3], int(p[4]), int(p[9]), cur_vma))
fcount = collections.Counter()
for s, n, c, o in fcls:
    fcount[c] += n
import bisect
starts = [s for s, n, c, o in fcls]
def klass(pfn):
    i = bisect.bisect_right(starts, pfn) - 1
    return fcls[i][2] if i >= 0 and pfn < fcls[i][0] + fcls[i][1] else None
def by_name(kind, name):
    return sum(n for (c, o), n in owner_frames.items() if owners.get(o) == (kind, name))
errors, out = [], []
# 1. hugetlb: every frame of the pool (HugePages_Total pages of Hugepagesize), free or used, and
#    the pages the workload maps (HugePages_Total - HugePages_Free of them) are hugetlb frames
per = g_mi["Hugepagesize"] * 1024 // page_size
want = g_mi["HugePages_Total"] * per
if fcount["hugetlb"] != want:
    errors.append("hugetlb: %d frames walked, HugePages_Total %d x %d pages = %d" %
                  (fcount["hugetlb"], g_mi["HugePages_Total"], per, want))
h = work["hugetlb"]
mm = tasks.get(h["pid"])
mapped = [(pfn, n, sh) for m, va, pfn, n, sh, v in runs if m == mm and v and int(v["start"], 16) == int(h["va"], 16)]
used = g_mi["HugePages_Total"] - g_mi["HugePages_Free"]
nmapped = sum(n for pfn, n, sh in mapped)
bad = sum(1 for pfn, n, sh in mapped for i in range(n) if pfn == "-" or klass(int(pfn, 16) + i) != "hugetlb")
if nmapped != used * per or int(h["mapped"]) != used or bad or any(sh != 21 for _, _, sh in mapped):
    errors.append("hugetlb: the workload maps %s huge pages (guest: %d in use), the dump shows %d pages "
                  "(shifts %s) of which %d not in hugetlb frames" %
                  (h["mapped"], used, nmapped, sorted({sh for _, _, sh in mapped}), bad))
out.append("hugetlb %d frames = HugePages_Total %d x %d; the workload's %d huge pages (%d in use, %d free) "
           "mapped by 2M PMDs onto hugetlb frames" % (fcount["hugetlb"], g_mi["HugePages_Total"], per,
                                                     nmapped // per, used, g_mi["HugePages_Free"]))
# ... and the pool's state as the walk names it (owner kind hugetlb): HugePages_Free pages free
hfree, huse = by_name("hugetlb", "free"), by_name("hugetlb", "in%20use")
if hfree != g_mi["HugePages_Free"] * per or huse != used * per:
    errors.append("hugetlb: owners free %d / in use %d frames, HugePages_Free %d, in use %d (x %d)" %
                  (hfree, huse, g_mi["HugePages_Free"], used, per))
out.append("hugetlb pool by state: free %d frames = HugePages_Free %d x %d, in use %d = %d x %d" %
           (hfree, g_mi["HugePages_Free"], per, huse, used, per))
# 2. the slab leak: every cache the workload grew by at least its socket count (the guest's
#    slabinfo before the workload and at capture) as the dump's slab records and the walk give it
before, now = slabinfo("/proc/slabinfo@before-ram-workload"), slabinfo("/proc/slabinfo")
leak = work["slab-leak"]
# (less the free slots the caches' existing slabs had: one slab each)
grown = sorted(k for k in now if now[k]["num_objs"] - before.get(k, {"num_objs": 0})["num_objs"] >=
               int(leak["sockets"]) - now[k]["objperslab"])
named = [c for c in leak["grows"].split(",") if c in now]   # UNIX is merged into another cache
if not set(named) <= set(grown) or len(grown) < len(named):
    errors.append("slab leak: caches %s should have grown by %s objects, grown are %s" % (named, leak["sockets"], grown))
out.append("slab: caches grown by the %s sockets (or more) since before the RAM workload: %s (the workload names %s; "
           "UNIX is merged into another cache)" % (leak["sockets"], ", ".join(grown), ", ".join(named)))
# shell pipes between capture and dump touch filp/dentry/inodes: one slab either way there
shell = {"filp", "dentry", "inode_cache", "kmalloc-64", "kmalloc-192"}
for k in grown:
    g, d = now[k], slabs.get(k)
    walked = by_name("slab", k)
    tol = g["objperslab"] if k in shell else 0
    if (d is None or abs(d["num_objs"] - g["num_objs"]) > tol or abs(d["active_objs"] - g["active_objs"]) > tol
            or abs(walked - g["num_slabs"] * g["pagesperslab"]) > (g["pagesperslab"] if tol else 0)):
        errors.append("slab leak: %s: guest num_objs %d active %d slabs %d x %d pages; dump %s, walked %d frames" %
                      (k, g["num_objs"], g["active_objs"], g["num_slabs"], g["pagesperslab"], d, walked))
    out.append("slab %s: +%d objects; num_objs %d / %d (guest / dump), active %d / %d, %d frames walked = %d slabs x %d" %
               (k, g["num_objs"] - before.get(k, {"num_objs": 0})["num_objs"], g["num_objs"],
                d["num_objs"] if d else -1, g["active_objs"], d["active_objs"] if d else -1, walked,
                g["num_slabs"], g["pagesperslab"]))
# 3. page cache nobody maps: the file the guest read, named as its owner, exactly its size
pc = work["pagecache"]
pages = -(-int(pc["bytes"]) // page_size)
walked = by_name("file", pc["file"])
in_file = sum(n for (c, o), n in owner_frames.items() if owners.get(o) == ("file", pc["file"]) and c == "file")
mapped_by = [v for v in vmas if v.get("path") == pc["file"]]
if walked != pages or in_file != pages or mapped_by:
    errors.append("page cache: %s (%d pages) owns %d frames (%d of class file), mapped by %d VMAs" %
                  (pc["file"], pages, walked, in_file, len(mapped_by)))
out.append("page cache %s: %d frames, class file, = its %s bytes; no VMA maps it" % (pc["file"], walked, pc["bytes"]))
# 4. vmalloc: per caller, /proc/vmallocinfo's pages= against the frames the walk gave the caller
vmi, vmi_mod = collections.Counter(), collections.Counter()
for l in section("/proc/vmallocinfo"):
    m = re.search(r" (\S+)/0x[0-9a-f]+(?: \[(\S+)\])? pages=(\d+) vmalloc", l)
    if m and m.group(2):
        vmi_mod[m.group(2)] += int(m.group(3))
    elif m:
        vmi[m.group(1)] += int(m.group(3))
walked_vm = collections.Counter()
for (c, o), n in owner_frames.items():
    if c == "vmalloc":
        walked_vm[owners.get(o, ("", o))[1]] += n
# modules' callers: the core kernel's kallsyms has no module symbols; the walk names them by
# the module holding them, "[zram]+0xe28", vmallocinfo "disksize_store+0x78/0x140 [zram]"
walked_mod = collections.Counter()
for k, n in walked_vm.items():
    if k.startswith("["):
        walked_mod[k[1:k.index("]")]] += n
off = {k: (vmi[k], walked_vm.get(k, 0)) for k in vmi
       if vmi[k] != walked_vm.get(k, 0) and not (k.startswith("kernel_clone+") and 0 <= vmi[k] - walked_vm.get(k, 0) <= 8)}
if off or vmi_mod != walked_mod:
    errors.append("vmalloc: callers whose pages differ (vmallocinfo, walked): %s; modules' %d, walked %d" % (off, vmi_mod, walked_mod))
bpf = [k for k in vmi if k.startswith("array_map_alloc+")]
need = int(work["vmalloc"]["bytes"]) // page_size
if not bpf or walked_vm.get(bpf[0], 0) < need:
    errors.append("vmalloc: the BPF array map's %d pages not under array_map_alloc (%s)" % (need, bpf))
out.append("vmalloc: %d callers as vmallocinfo (kernel stacks: %d / %d pages, vmallocinfo / walked), the BPF map's "
           "%s %d pages, modules' areas %s / %s" %
           (len(vmi) - len(off), vmi.get("kernel_clone+0xbf", 0), walked_vm.get("kernel_clone+0xbf", 0),
            bpf[0] if bpf else "-", walked_vm.get(bpf[0], 0) if bpf else 0, dict(vmi_mod), dict(walked_mod)))
# 5. zsmalloc: the zram pool's pages (mm_stat's mem_used_total) are zsmalloc frames; nothing
#    swaps between the capture and the dump, so exactly
mm_stat = section("/sys/block/zram0/mm_stat")[0].split()
zs = int(mm_stat[2]) // page_size
if fcount["zsmalloc"] != zs:
    msg = "zsmalloc: %d frames walked, zram's mm_stat mem_used_total %s = %d pages (%d frames of class kernel)" % (
        fcount["zsmalloc"], mm_stat[2], zs, fcount["kernel"])
    errors.append(msg)
else:
    out.append("zsmalloc %d frames = mm_stat mem_used_total %s / %d" % (zs, mm_stat[2], page_size))
for o in out:
    print("  " + o)
for e in errors:
    print("FAIL: %s: %s" % (fixture, e))
sys.exit(1 if errors else 0)
EOF

# run FIXTURE DUMPFILE BIN [TYPE ARGS]
run() {
	local fx=$1 file=$2 bin=$3 dump out rc all=0
	shift 3
	dump=$(fx_dump "$fx" "$file") || { bad "$fx/$file: not available"; return; }
	out=$T/$fx-$file.rec
	"$bin" extract "$dump" -o "$out" "$@" 2>"$out.err"
	rc=$?
	if fx_sanitizer_report "$out.err"; then
		bad "$fx/$file: sanitizer report"; head -20 "$out.err"; return
	fi
	[ $rc -eq 0 ] || { bad "$fx/$file: extract exit $rc: $(head -2 "$out.err")"; return; }
	if grep -q '^warn .*kernel counters' "$out"; then
		bad "$fx/$file: $(grep -m1 '^warn .*kernel counters' "$out")"
	fi
	# (grep -c reads everything: under pipefail, grep -q's early exit fails zstd)
	[ "$(zstd -dc "$FX_DATA/$fx/config.zst" 2>/dev/null | grep -c '^CONFIG_KALLSYMS_ALL=y')" = 1 ] && all=1
	case " $* " in *" --system-map "*) all=1 ;; esac
	echo "$fx/$file ($(basename "$(dirname "$bin")")):"
	python3 "$T/check.py" "$out" "$FX_DATA/$fx/groundtruth.txt" "$fx/$file" $all || fail=1
	checked=$((checked + 1))
	# The report's ram table adds up to MemTotal: its rows, free and unaccounted.
	if [ $all = 1 ]; then
		"$FAST" report -a ram -f csv "$out" >"$out.csv" 2>"$out.csv.err" ||
			{ bad "$fx/$file: report -a ram: $(head -2 "$out.csv.err")"; return; }
		python3 - "$out.csv" "$fx/$file" <<'PY' || fail=1
import csv, sys
rows, on = [], False
for r in csv.reader(open(sys.argv[1])):
    if r and r[0] == "# table: ram":
        on = True
    elif r and r[0].startswith("# table:"):
        on = False
    elif on and r and r[0] != "what":
        rows.append(r)
total = sum_ = None
for r in rows:
    if r[0] == "MemTotal":
        total = int(r[1])
    elif r[0].startswith("reserved at boot"):
        continue
    else:
        sum_ = (sum_ or 0) + (-int(r[1]) if r[0] == "rows overlap by" else int(r[1]))
if total is None or sum_ != total:
    print("FAIL: %s: the ram table's rows sum to %s, MemTotal is %s" % (sys.argv[2], sum_, total))
    sys.exit(1)
PY
	fi
}

sysmap() { # FIXTURE: decompressed System.map path
	# (stdin: ppc64le-hash's is a symbolic link, which zstd skips when named)
	zstd -q -dc <"$FX_DATA/$1/System.map.zst" >"$T/$1.System.map" && echo "$T/$1.System.map"
}

run x86_64 qemu.elf "$ASAN"
run x86_64 kdump-d1.kdump "$FAST"
run x86_64 kdump-d31.kdump "$FAST"
# (x86_64-forky's kdump-d31 is partial by makedumpfile's doing: see extract_fixtures.sh)
for fx in x86_64-bullseye x86_64-trixie x86_64-forky; do
	run $fx qemu.elf "$FAST"
done
run x86_64-bullseye kdump-d31.kdump "$FAST"
run x86_64-trixie kdump-d31.kdump "$FAST"
run x86_64-trixie-la57 qemu.elf "$FAST"
run x86_64-ram qemu.elf "$ASAN"
if [ -s "$T/x86_64-ram-qemu.elf.rec" ]; then
	echo "x86_64-ram/qemu.elf: the RAM workload against the guest's own numbers:"
	python3 "$T/ramwork.py" "$T/x86_64-ram-qemu.elf.rec" "$FX_DATA/x86_64-ram/groundtruth.txt" \
		x86_64-ram/qemu.elf || fail=1
fi
for fx in arm64 arm64-bullseye arm64-trixie arm64-forky; do
	run $fx qemu.elf "$FAST"
done
for fx in ppc64le ppc64le-hash ppc64le-trixie; do
	run $fx qemu.elf "$FAST" --btf "$(fx_btf $fx)" --system-map "$(sysmap $fx)"
done
run ppc64le kdump-d31.kdump "$ASAN" --btf "$(fx_btf ppc64le)" --system-map "$(sysmap ppc64le)"
for fx in armhf armhf-trixie; do
	run $fx qemu.elf "$FAST" --btf "$(fx_btf $fx)"
done
for fx in ppc32-e500-64pte ppc32-mpc8544ds-32pte ppc32-e500-64pte-bullseye ppc32-e500-64pte-trixie; do
	run $fx qemu.elf "$FAST" --btf "$(fx_btf $fx)"
done
run ppc32-e500-64pte qemu-kdump-zlib.kdump "$ASAN" --btf "$(fx_btf ppc32-e500-64pte)"
# The kernel log in the records: as many records as `pagesleuth log` prints, and the panic
# the guest was told to make, at level emerg (the kdump was taken after it).
d31rec=$T/x86_64-kdump-d31.kdump.rec
if [ -s "$d31rec" ]; then
	nlog=$(grep -c '^log ' "$d31rec")
	"$FAST" log "$(fx_dump x86_64 kdump-d31.kdump)" >"$T/log.txt" 2>"$T/log.err" || bad "log: $(head -1 "$T/log.err")"
	nprinted=$(grep -c '^\[' "$T/log.txt")
	[ "$nlog" -gt 100 ] && [ "$nlog" = "$nprinted" ] ||
		bad "log records: $nlog in the records, $nprinted records printed by pagesleuth log"
	grep -q '^log .*level=0 .*text=Kernel%20panic%20-%20not%20syncing:%20sysrq%20triggered%20crash' "$d31rec" ||
		bad "log records: no emerg 'Kernel panic - not syncing: sysrq triggered crash'"
	"$FAST" report -a log "$d31rec" | grep -q 'emerg  Kernel panic - not syncing' ||
		bad "report -a log does not show the panic"
	echo "ram: $nlog log records (= pagesleuth log), the panic at emerg, shown by report -a log"
fi
# diff of two dumps: the frames per class and owner that changed (6.1 and 6.12 running the
# same workload); a dump against itself, or against the kdump of the same moment: none.
elfrec=$T/x86_64-qemu.elf.rec trixierec=$T/x86_64-trixie-qemu.elf.rec
if [ -s "$elfrec" ] && [ -s "$d31rec" ] && [ -s "$trixierec" ]; then
	"$FAST" diff -f csv "$elfrec" "$trixierec" >"$T/diff.csv" 2>/dev/null || bad "diff of two kernels' dumps"
	"$FAST" diff -f csv "$elfrec" "$d31rec" >"$T/diff1.csv" 2>/dev/null || bad "diff of the ELF and the kdump"
	"$FAST" diff -f csv "$elfrec" "$elfrec" >"$T/diff0.csv" 2>/dev/null || bad "diff of a dump with itself"
	python3 - "$T/diff.csv" "$T/diff0.csv" "$T/diff1.csv" <<'PY' || fail=1
import csv, sys
def rows(path):
    out, on = [], False
    for r in csv.reader(open(path)):
        if r and r[0].startswith("# table:"):
            on = r[0] == "# table: diff-frames"
        elif on and r and r[0] != "what":
            out.append(r)
    return out
d, d0, d1 = rows(sys.argv[1]), rows(sys.argv[2]), rows(sys.argv[3])
kinds = sorted(set(r[1] for r in d))
print("ram: diff-frames: %d rows between 6.1 and 6.12 (kinds %s), %d against itself, %d against the kdump "
      "of the same moment" % (len(d), ",".join(kinds), len(d0), len(d1)))
sys.exit(0 if "class" in kinds and "slab" in kinds and "file" in kinds and not d0 and not d1 else 1)
PY
fi
# The picture: report --svg writes the frame map, well-formed, its legend naming each class
# the f records have, with the size the records give it.
x86rec=$T/x86_64-qemu.elf.rec
if [ -s "$x86rec" ]; then
	"$FAST" report -a ram --svg "$T/svg" -o /dev/null "$x86rec" 2>"$T/svg.err" ||
		bad "report --svg: $(head -2 "$T/svg.err")"
	python3 - "$T/svg/frames.svg" "$x86rec" <<'PY' || fail=1
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
texts = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
fr = {}
for line in open(sys.argv[2]):
    if line.startswith("f "):
        p = line.split(); fr[p[3]] = fr.get(p[3], 0) + int(p[2])
missing = [c for c in fr if c + " " not in texts]
cells = sum(1 for _ in root.iter("{http://www.w3.org/2000/svg}rect"))
# hover: each map cell's title is "0xSTART-0xEND: CLASS[, mostly OWNER]", the class one the
# records have in that range, the owner one of the records' owners of that class
owners = {}
for line in open(sys.argv[2]):
    if line.startswith("owner "):
        kv = dict(f.split("=", 1) for f in line.split()[1:])
        owners.setdefault(kv["kind"], set()).add(kv.get("name", "").replace("%20", " "))
import re
titled, named, wrong = 0, 0, []
for rect in root.iter("{http://www.w3.org/2000/svg}rect"):
    t = rect.find("{http://www.w3.org/2000/svg}title")
    m = re.match(r"0x([0-9a-f]+)-0x([0-9a-f]+): (\w+)(?:, mostly (slab cache|file|vmalloc|hugetlb) (.*))?$", t.text if t is not None else "")
    if not m:
        continue
    titled += 1
    if m.group(3) not in fr:
        wrong.append(t.text)
    if m.group(4):
        kind = {"slab cache": "slab"}.get(m.group(4), m.group(4))
        named += 1
        if m.group(5) not in owners.get(kind, ()):
            wrong.append(t.text)
print("ram: frames.svg: %d rects, legend %s; %d map cells titled, %d with their owner%s" % (
    cells, "complete" if not missing else "lacks " + ",".join(missing), titled, named,
    "; WRONG: " + "; ".join(wrong[:3]) if wrong else ""))
sys.exit(1 if missing or cells < 50 or titled < 50 or named < 10 or wrong else 0)
PY
fi
echo "ram: $checked dumps checked"
[ $fail -eq 0 ] || exit 1
echo "ram: OK"
