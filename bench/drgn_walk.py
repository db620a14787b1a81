#!/usr/bin/python3
"""drgn baseline for bench/extract.sh: visit every resident user page of a dump through drgn.

    /usr/bin/python3 bench/drgn_walk.py VMLINUX DUMP [--time-limit SECONDS] [--expect-pages N] [--raw-tables]
        [--dump-reads FILE]

For every user process (for_each_task, kernel threads skipped), every VMA (the 6.1 maple
tree, walked here in Python on drgn Objects: drgn 0.0.22 has no maple-tree or VMA helper),
every page of the VMA: the page tables are walked with drgn (each table page read as an
array of the kernel's pgd_t/pud_t/pmd_t/pte_t Objects; --raw-tables: prog.read + unpack),
and for every present PTE the struct page is reached with drgn's pfn_to_page() helper and
its flags and _mapcount are read as drgn Objects. That is what a drgn user would write to
get what `pagesleuth extract` gets; drgn 0.0.22 has no follow_phys()/follow_page() helper,
and its access_remote_vm() reads page contents rather than translating.

--dump-reads FILE writes every physical read the walk needs, in walk order ("t PA 4096" per
page-table page, "p PA SIZE" per struct page) for bench/replay_reads (slows the walk).

x86_64 only (4-level paging; 5-level if the dump's kernel enabled it). Prints one
`drgn_walk:` line with the counts; with --time-limit it stops after that many seconds and
extrapolates the full run's time from the resident pages expected (--expect-pages, e.g. the
guest's smaps_rollup Rss total; else the kernel's own rss counters, which lag), and says so.
"""
import struct
import sys
import time

import drgn
from drgn import Object, cast
from drgn.helpers.linux.mm import pfn_to_page
from drgn.helpers.linux.pid import for_each_task

PTRS = 512
PRESENT, PSE = 0x1, 0x80
PFN_MASK = 0x000FFFFFFFFFF000  # physical address bits of an x86_64 page-table entry
# Maple tree node encoding (include/linux/maple_tree.h, 6.1)
MAPLE_NODE_MASK = 0xFF
MAPLE_NODE_TYPE_SHIFT, MAPLE_NODE_TYPE_MASK = 3, 0x0F
KERNEL_MIN = 0xFFFF800000000000
MAPLE_DENSE, MAPLE_LEAF_64, MAPLE_RANGE_64, MAPLE_ARANGE_64 = 0, 1, 2, 3


def usage():
    sys.exit("usage: drgn_walk.py VMLINUX DUMP [--time-limit SECONDS] [--expect-pages N] "
             "[--raw-tables] [--dump-reads FILE]")


class Walk:
    def __init__(self, prog, raw=False, reads=None):
        self.prog = prog
        self.raw = raw
        self.reads = reads  # file: the physical reads, for bench/replay_reads
        self.kpt_cache = {}
        self.page_offset = prog["page_offset_base"].value_()
        try:
            self.levels = 5 if prog["__pgtable_l5_enabled"].value_() else 4
        except KeyError:
            self.levels = 4
        self.level_types = [("pgd_t", "pgd")] + ([("p4d_t", "p4d")] if self.levels == 5 else []) \
            + [("pud_t", "pud"), ("pmd_t", "pmd"), ("pte_t", "pte")]
        self.page_size = prog.type("struct page").size
        self.pages = self.anon_like = self.mapped_multi = 0
        self.tables = 0
        self.vma_count = 0

    # ---- maple tree (6.1: mm->mm_mt) ----------------------------------------------------
    def vmas(self, mm):
        """VMAs of mm in address order, from the maple tree's leaves."""
        out = []
        root = mm.mm_mt.ma_root.value_()
        if root & 3 == 2 and root >= KERNEL_MIN:  # xa_is_node: MAPLE_ROOT_NODE flag set
            self._maple(root, out, 0)
        elif root >= KERNEL_MIN:  # a single entry stored in the root itself
            out.append(root)
        seen, res = set(), []
        for v in out:
            if v in seen:
                continue
            seen.add(v)
            vma = Object(self.prog, "struct vm_area_struct *", value=v)
            if vma.vm_mm.value_() != mm.value_():
                continue
            res.append(vma)
        res.sort(key=lambda x: x.vm_start.value_())
        return res

    def _maple(self, entry, out, depth):
        """entry: an encoded node (type in bits 3-6); below a non-leaf node every slot
        holds one, in a leaf every slot holds a VMA."""
        if depth > 16:
            return
        ntype = (entry >> MAPLE_NODE_TYPE_SHIFT) & MAPLE_NODE_TYPE_MASK
        node = Object(self.prog, "struct maple_node *", value=entry & ~MAPLE_NODE_MASK)
        if ntype == MAPLE_ARANGE_64:
            slots, pivots = node.ma64.slot, node.ma64.pivot
            nslots = 10
        elif ntype in (MAPLE_LEAF_64, MAPLE_RANGE_64):
            slots, pivots = node.mr64.slot, node.mr64.pivot
            nslots = 16
        else:
            return
        slot_vals = [slots[i].value_() for i in range(nslots)]
        piv_vals = [pivots[i].value_() for i in range(nslots - 1)]
        for i in range(nslots):
            # A zero pivot after slot 0 marks the unused tail of a node that is not full.
            if 0 < i < nslots - 1 and piv_vals[i] == 0:
                break
            v = slot_vals[i]
            # Only kernel pointers: the last slot of a non-full node holds the node's
            # metadata (end, gap) instead.
            if v < KERNEL_MIN:
                continue
            if ntype == MAPLE_LEAF_64:
                out.append(v)
            else:
                self._maple(v, out, depth + 1)

    # ---- page tables ----------------------------------------------------------------------
    def table(self, phys, lvl):
        """The 512 entries of one page-table page. Default: as drgn Objects of the kernel's
        own types (pgd_t/p4d_t/pud_t/pmd_t/pte_t, one read of the page, each entry's value
        taken through its Object); --raw-tables: one prog.read + struct.unpack (what a
        drgn user after speed would write)."""
        self.tables += 1
        if self.reads:
            self.reads.write("t %x 4096\n" % phys)
        if self.raw:
            return struct.unpack("<512Q", self.prog.read(phys, 4096, True))
        tname, member = self.level_types[lvl]
        arr = Object(self.prog, self.prog.array_type(self.prog.type(tname), PTRS),
                     address=phys + self.page_offset).read_()
        return [arr[i].member_(member).value_() for i in range(PTRS)]

    def walk_range(self, pgd_phys, start, end):
        """Visit every present page in [start, end)."""
        shifts = [39, 30, 21, 12] if self.levels == 4 else [48, 39, 30, 21, 12]
        self._walk(pgd_phys, 0, start, end, shifts, 0)

    def _walk(self, tphys, base, start, end, shifts, lvl):
        shift = shifts[lvl]
        span = 1 << shift
        lo = max(start, base)
        hi = min(end, base + span * PTRS)
        if lo >= hi:
            return
        t = self.table(tphys, lvl)
        for idx in range((lo - base) >> shift, ((hi - 1 - base) >> shift) + 1):
            e = t[idx]
            if not (e & PRESENT):
                continue
            va = base + idx * span
            if lvl == len(shifts) - 1:
                self.page(e)
            elif lvl > 0 and (e & PSE):  # 1 GiB / 2 MiB leaf
                first = max(va, start)
                last = min(va + span, end)
                pfn0 = (e & PFN_MASK & ~(span - 1)) >> 12
                for a in range(first, last, 4096):
                    self.page_pfn(pfn0 + ((a - va) >> 12))
            else:
                self._walk(e & PFN_MASK, va, start, end, shifts, lvl + 1)

    def page(self, pte):
        self.page_pfn((pte & PFN_MASK) >> 12)

    def kernel_vtop(self, va):
        """Physical address of a kernel virtual address through the kernel's own page
        tables (for --dump-reads only: where a struct page lives)."""
        vpage = va & ~0xFFF
        hit = self.kpt_cache.get(vpage)
        if hit is None:
            if not hasattr(self, "kpgd"):
                start_kernel_map = 0xFFFFFFFF80000000
                info = self.prog["vmcoreinfo_data"].string_().decode()  # the kernel's own copy
                phys_base = int(info.split("NUMBER(phys_base)=")[1].split()[0])
                self.kpgd = self.prog["init_mm"].pgd.value_() - start_kernel_map + phys_base
            hit = self._translate(self.kpgd, va)
            self.kpt_cache[vpage] = hit
        return hit | (va & 0xFFF)

    def _translate(self, table, va):
        shifts = [39, 30, 21, 12] if self.levels == 4 else [48, 39, 30, 21, 12]
        for lvl, shift in enumerate(shifts):
            e = struct.unpack("<Q", self.prog.read(table + ((va >> shift) & 511) * 8, 8,
                                                   True))[0]
            if not e & PRESENT:
                raise LookupError("kernel address %x not mapped" % va)
            if lvl == len(shifts) - 1 or (lvl > 0 and e & PSE):
                return (e & PFN_MASK & ~((1 << shift) - 1)) + (va & ((1 << shift) - 1) & ~0xFFF)
            table = e & PFN_MASK
        raise LookupError(va)

    def page_pfn(self, pfn):
        page = pfn_to_page(self.prog, pfn)
        if self.reads:
            self.reads.write("p %x %d\n" % (self.kernel_vtop(page.value_()), self.page_size))
        flags = page.flags.value_()
        mapcount = page._mapcount.counter.value_() + 1
        self.pages += 1
        if mapcount > 1:
            self.mapped_multi += 1
        self.anon_like += flags & 1  # touch the value (PG_locked bit): keep it used


def rss_pages(task):
    """Resident pages the kernel counts for task's mm (6.1: mm_struct.rss_stat.count[] plus
    the task's not yet folded SPLIT_RSS_COUNTING deltas)."""
    total = 0
    mm = task.mm
    for i in (0, 1, 3):  # MM_FILEPAGES, MM_ANONPAGES, (MM_SWAPENTS,) MM_SHMEMPAGES
        total += mm.rss_stat.count[i].counter.value_()
        try:
            total += task.rss_stat.count[i].value_()
        except (AttributeError, LookupError):
            pass
    return max(total, 0)


def main():
    args = sys.argv[1:]
    limit = None
    expect = None
    reads = None
    if "--dump-reads" in args:
        i = args.index("--dump-reads")
        if i + 1 >= len(args):
            usage()
        reads = open(args[i + 1], "w")
        del args[i:i + 2]
    raw = "--raw-tables" in args
    if raw:
        args.remove("--raw-tables")
    if "--expect-pages" in args:
        i = args.index("--expect-pages")
        if i + 1 >= len(args):
            usage()
        expect = int(args[i + 1])
        del args[i:i + 2]
    if "--time-limit" in args:
        i = args.index("--time-limit")
        if i + 1 >= len(args):
            usage()
        limit = float(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2:
        usage()
    vmlinux, dump = args
    t0 = time.monotonic()
    prog = drgn.Program()
    prog.set_core_dump(dump)
    prog.load_debug_info([vmlinux], default=False, main=False)
    t_load = time.monotonic() - t0

    w = Walk(prog, raw, reads)
    tasks = [t for t in for_each_task(prog) if t.mm.value_()]
    # Threads share an mm: walk each mm once (like pagesleuth extract and crash per task).
    mms, seen = [], set()
    for t in tasks:
        m = t.mm.value_()
        if m not in seen:
            seen.add(m)
            mms.append(t)
    # What a stopped run extrapolates from: the caller's count of resident pages (the guest's
    # smaps_rollup Rss total), else the kernel's rss counters (these lag: SPLIT_RSS_COUNTING).
    expected = expect if expect is not None else sum(rss_pages(t) for t in mms)
    t1 = time.monotonic()
    done = 0
    stopped = False
    for t in mms:
        if limit is not None and time.monotonic() - t1 > limit:
            stopped = True
            break
        mm = t.mm
        pgd_phys = mm.pgd.value_() - w.page_offset
        for vma in w.vmas(mm):
            w.vma_count += 1
            w.walk_range(pgd_phys, vma.vm_start.value_(), vma.vm_end.value_())
        done += 1
    walk = time.monotonic() - t1
    line = ("drgn_walk: mode %s processes %d/%d vmas %d pages %d (mapcount>1: %d) page_tables %d "
            "load %.2f s walk %.2f s pages/s %.0f expected_pages %d" % (
                "raw-tables" if raw else "objects", done, len(mms), w.vma_count, w.pages, w.mapped_multi, w.tables, t_load, walk,
                w.pages / walk if walk else 0, expected))
    if stopped and w.pages:
        est = walk * expected / w.pages
        line += " STOPPED at the %.0f s limit: full walk extrapolated to %.0f s" \
                " (expected pages / pages per s, %s)" % (
                    limit, est, "given" if expect is not None else "kernel rss counters")
        line += " extrapolated_seconds %.1f" % est
    print(line, flush=True)


if __name__ == "__main__":
    main()
