#!/usr/bin/python3
"""The best drgn script for what `pagesleuth extract` does with user pages, for bench/extract.sh.

    /usr/bin/python3 bench/drgn_expert.py VMLINUX DUMP [-o FILE] [--time-limit SECONDS]
        [--expect-pages N]

bench/drgn_walk.py is the straightforward drgn walk; this is the one a drgn expert writes for
speed, computing what extract computes per resident user page. x86_64 (4- or 5-level paging),
the 6.1 kernel's layout (maple tree, compound_mapcount in page[1]), drgn 0.0.22 (Debian 12).

  tasks     for_each_task(); kernel threads (PF_KTHREAD, no mm) skipped; each mm walked once
  VMAs      mm->mm_mt walked node by node as newer drgn's mt_for_each() does (its end-of-node
            rule: meta.end or the last pivot), but each 256-byte maple_node read with one
            prog.read and unpacked with struct (drgn 0.0.22 has no maple-tree helper); each
            VMA's vm_start/vm_end/vm_mm/vm_flags in one read. VM_PFNMAP VMAs are skipped, as
            extract skips them (no struct pages: the kernel's page walks skip them too)
  tables    each page-table page one physical prog.read of 4 KiB unpacked with struct, cached
            per mm (a table shared by neighbouring VMAs is read once); present = P or PROTNONE
            (PFN inverted then, L1TF); 2 MiB / 1 GiB leaves split into their 4 KiB pages
  pages     struct pages read 64 at a time (one 4 KiB vmemmap read, cached for the whole run)
            and unpacked with one struct.iter_unpack; the facts of a window's mapped order-0
            pages computed at once, kept per PFN (shared pages are computed once), the rest
            (compound pages, the zero page, a first sight of some flags) one by one:
            mapcount = /proc/kpagecount (page_mapcount() of 6.1: _mapcount + 1, plus the
            head's compound_mapcount + 1 for anon/hugetlb compound pages, minus one while
            PageDoubleMap; 0 for slab and typed pages), refcount = page_count() (the head's
            _refcount), flags = /proc/kpageflags (stable_page_flags() of 6.1, memoised on its
            inputs)
  runs      contiguous pages (vaddr and PFN, inside one VMA) with the same mapcount, refcount,
            flags and PTE attribute bits, one text line each: the same runs as extract's m/x
            records on the bench dump (extract splits on the PTE letters it derives from these
            bits); a page continuing a run costs one compare of its entry and one dict lookup

Struct offsets and PG_* bit numbers come from drgn's type information (offsetof, enum
pageflags); only what DWARF cannot give is spelled here: the uapi KPF_* numbers, x86 entry
bits, the maple node encoding, PF_KTHREAD, VM_PFNMAP and 6.1's page_type encoding.

Output (-o FILE, default /dev/null; formatted and written either way):
    mm ID KADDR TGID COMM                    one per mm (KADDR: struct mm_struct, hex)
    ID VADDR PFN N MAPCOUNT REFCOUNT FLAGS PTE   one per run (VADDR, PFN, FLAGS, PTE hex)
FLAGS in /proc/kpageflags numbering (as extract's PFLAGS); PTE = the leaf entry's raw x86
bits P RW US A D PSE/PAT G SPECIAL SOFT_DIRTY NX (mask 0x8000000000000be7). A zero-page run
maps every page to the one PFN, as in extract's records.

Prints one line on stdout:
    drgn_expert: N tasks, M mms, P pages, R runs in S s (load L s, walk W s; Z zero-page, T tables)
N = user tasks (threads with an mm), M = the mms walked, P = resident pages as extract's m/x
records minus the zero page (bench/extract.sh rss_check), R = runs written, S = load + walk
(python's startup not included): load = drgn.Program, the dump and the DWARF vmlinux; walk =
the tasks, VMAs, tables, struct pages and writing the file; Z = pages mapping the zero page
(or the huge zero page), T = page-table pages read (distinct per mm); " K bad entries" follows
when present entries named no readable struct page (extract's u records). With
--time-limit the walk stops after that many seconds, at an mm boundary, and the line ends in
" STOPPED at the L s limit: full walk extrapolated to E s extrapolated_seconds E", E being
the walk's time scaled by --expect-pages (or the kernel's rss counters) / pages done.
"""
import struct
import sys
import time
from operator import itemgetter

import drgn
from drgn import FaultError, offsetof
from drgn.helpers.linux.pid import for_each_task

PF_KTHREAD = 0x00200000
VM_PFNMAP = 0x400
# x86_64 entry bits (arch/x86/include/asm/pgtable_types.h)
X_P, X_RW, X_US, X_A, X_D, X_PSE, X_G, X_SPECIAL, X_SOFTDIRTY = 1, 2, 4, 0x20, 0x40, 0x80, 0x100, 0x200, 0x800
X_PROTNONE = X_G
X_NX = 1 << 63
ATTR = X_P | X_RW | X_US | X_A | X_D | X_PSE | X_G | X_SPECIAL | X_SOFTDIRTY | X_NX
# Maple tree (include/linux/maple_tree.h, lib/maple_tree.c of 6.1)
MAPLE_NODE_MASK = 0xFF
MAPLE_LEAF_64, MAPLE_RANGE_64, MAPLE_ARANGE_64 = 1, 2, 3
XA_ZERO_ENTRY = (257 << 2) | 2
# include/uapi/linux/kernel-page-flags.h (and pagesleuth's 48 young)
KPF = dict(locked=0, error=1, referenced=2, uptodate=3, dirty=4, lru=5, active=6, slab=7,
           writeback=8, reclaim=9, buddy=10, mmap=11, anon=12, swapcache=13, swapbacked=14,
           compound_head=15, compound_tail=16, huge=17, unevictable=18, hwpoison=19,
           nopage=20, ksm=21, thp=22, offline=23, zero_page=24, idle=25, pgtable=26,
           reserved=32, mlocked=33, mappedtodisk=34, private=35, private_2=36,
           owner_private=37, arch=38, uncached=39, arch_2=41, young=48)
# 6.1 include/linux/page-flags.h: page_type shares _mapcount; a type is set when the value
# is below PAGE_MAPCOUNT_RESERVE, and PageType(page, flag) tests (type & (BASE|flag)) == BASE
PAGE_MAPCOUNT_RESERVE = -128
PAGE_TYPE_BASE, PGT_BUDDY, PGT_OFFLINE, PGT_TABLE = 0xF0000000, 0x80, 0x100, 0x200
ZERO_BIT = 1 << KPF["zero_page"]


def usage():
    sys.exit("usage: drgn_expert.py VMLINUX DUMP [-o FILE] [--time-limit SECONDS] [--expect-pages N]")


class Expert:
    def __init__(self, prog, out):
        self.prog = prog
        self.out = out  # list of lines
        P = prog.type("struct page")
        self.psize = P.size
        self.win_pages = 4096 // self.psize if 4096 % self.psize == 0 else 1
        self.win_bytes = self.win_pages * self.psize
        # flags, compound_head, mapping, _mapcount, _refcount of one struct page
        fields = [("flags", "Q"), ("compound_head", "Q"), ("mapping", "Q"), ("_mapcount", "i"),
                  ("_refcount", "i")]
        offs = [offsetof(P, n) for n, _ in fields]
        if offs != sorted(offs):
            sys.exit("drgn_expert: struct page members in an unexpected order: %s" % offs)
        self.page_unpack, _, fmt = self._struct(P, fields)  # in FIELDS' order, checked above
        self.page_iter = struct.Struct(fmt + "%dx" % (P.size - offs[-1] - 4)).iter_unpack  # consecutive pages
        self.o_flags = offsetof(P, "flags")
        self.o_cdtor = offsetof(P, "compound_dtor")      # members of page[1] in 6.1
        self.o_corder = offsetof(P, "compound_order")
        self.o_cmap = offsetof(P, "compound_mapcount")
        self.hugetlb_dtor = prog["HUGETLB_PAGE_DTOR"].value_()
        pg = {e.name: e.value for e in prog.type("enum pageflags").enumerators}
        self.PG_head = 1 << pg["PG_head"]
        self.PG_slab = 1 << pg["PG_slab"]
        self.PG_lru = 1 << pg["PG_lru"]
        self.PG_double_map = (1 << pg["PG_double_map"]) if "PG_double_map" in pg else 0
        # kpageflags bits copied from page->flags (stable_page_flags(), 6.1)
        copy = [("PG_locked", "locked"), ("PG_slab", "slab"), ("PG_error", "error"),
                ("PG_dirty", "dirty"), ("PG_uptodate", "uptodate"), ("PG_writeback", "writeback"),
                ("PG_lru", "lru"), ("PG_referenced", "referenced"), ("PG_active", "active"),
                ("PG_reclaim", "reclaim"), ("PG_swapbacked", "swapbacked"),
                ("PG_unevictable", "unevictable"), ("PG_mlocked", "mlocked"),
                ("PG_hwpoison", "hwpoison"), ("PG_uncached", "uncached"),
                ("PG_reserved", "reserved"), ("PG_mappedtodisk", "mappedtodisk"),
                ("PG_private", "private"), ("PG_private_2", "private_2"),
                ("PG_owner_priv_1", "owner_private"), ("PG_arch_1", "arch"), ("PG_arch_2", "arch_2")]
        self.copy = [(pg[k], KPF[u]) for k, u in copy if k in pg]
        self.PG_swapcache = 1 << pg["PG_swapcache"]
        self.PG_swapbacked = 1 << pg["PG_swapbacked"]
        self.PG_idle = (1 << pg["PG_idle"]) if "PG_idle" in pg else 0
        self.PG_young = (1 << pg["PG_young"]) if "PG_young" in pg else 0

        # maple_node: mr64 (range/leaf) and ma64 (allocation range) views, from the types
        N = prog.type("struct maple_node")
        self.node_size = N.size
        self.mr_npiv = prog.type("struct maple_range_64").member("pivot").type.length
        self.mr_nslot = prog.type("struct maple_range_64").member("slot").type.length
        self.ma_npiv = prog.type("struct maple_arange_64").member("pivot").type.length
        self.ma_nslot = prog.type("struct maple_arange_64").member("slot").type.length
        self.mr_piv, self.mr_slot, self.mr_end = (offsetof(N, "mr64.pivot"), offsetof(N, "mr64.slot"),
                                                  offsetof(N, "mr64.meta.end"))
        self.ma_piv, self.ma_slot, self.ma_end = (offsetof(N, "ma64.pivot"), offsetof(N, "ma64.slot"),
                                                  offsetof(N, "ma64.meta.end"))
        self.mr_fmt = struct.Struct("<%dQ" % self.mr_npiv), struct.Struct("<%dQ" % self.mr_nslot)
        self.ma_fmt = struct.Struct("<%dQ" % self.ma_npiv), struct.Struct("<%dQ" % self.ma_nslot)
        M = prog.type("struct mm_struct")
        self.o_ma_root = offsetof(M, "mm_mt") + offsetof(prog.type("struct maple_tree"), "ma_root")
        V = prog.type("struct vm_area_struct")
        self.vma_struct = self._struct(V, [("vm_start", "Q"), ("vm_end", "Q"), ("vm_mm", "Q"),
                                           ("vm_flags", "Q")])
        self.vma_len = max(offsetof(V, n) for n in ("vm_start", "vm_end", "vm_mm", "vm_flags")) + 8

        self.page_offset = prog["page_offset_base"].value_()
        self.vmemmap = prog["vmemmap_base"].value_()
        self.max_pfn = prog["max_pfn"].value_()
        self.zero_pfn = prog["zero_pfn"].value_()
        try:
            hz = prog["huge_zero_page"].value_()
        except KeyError:
            hz = 0
        self.huge_zero_head = (hz - self.vmemmap) // self.psize if hz else -1
        try:
            sme = prog["sme_me_mask"].value_()
        except KeyError:
            sme = 0
        self.pfn_mask = ((1 << 52) - 1) & ~0xFFF & ~sme
        try:
            l5 = prog["__pgtable_l5_enabled"].value_()
        except KeyError:
            l5 = 0
        self.shifts = [48, 39, 30, 21, 12] if l5 else [39, 30, 21, 12]

        self.windows = {}  # window number -> bytes (win_pages struct pages)
        self.facts = {}    # pfn -> pack(mapcount, refcount, kpageflags)
        self.kpf_memo = {}
        self.suffix = {}   # (facts, PTE bits) -> the end of a run's line
        self.t512 = struct.Struct("<512Q")
        self.tasks = self.mms = self.pages = self.zero_pages = self.runs = 0
        self.tables = self.vmas_seen = self.bad = 0

    @staticmethod
    def _struct(T, fields):
        """(unpack_from, reorder, format): unpack_from(buf, off) reads FIELDS (name, code) at
        their offsets in type T, in offset order; reorder(tuple) puts them in FIELDS' order."""
        byoff = sorted((offsetof(T, n), i, c) for i, (n, c) in enumerate(fields))
        fmt, pos = "<", 0
        for off, _, c in byoff:
            if off > pos:
                fmt += "%dx" % (off - pos)
            fmt += c
            pos = off + struct.calcsize("<" + c)
        perm = [0] * len(fields)
        for j, (_, i, _) in enumerate(byoff):
            perm[i] = j
        return struct.Struct(fmt).unpack_from, itemgetter(*perm), fmt

    # ---- struct pages ----------------------------------------------------------------------
    def window(self, w):
        """Read struct pages w * win_pages ... in one read, and the facts of its common pages
        at once: mapped order-0 pages whose flags the memo knows (the rest: page_facts())."""
        try:
            buf = self.prog.read(self.vmemmap + w * self.win_bytes, self.win_bytes)
        except FaultError:
            buf = b""
        self.windows[w] = buf
        if not buf:
            return
        memo = self.kpf_memo.get
        rare = self.PG_head | self.PG_slab
        pfn = w * self.win_pages - 1
        zero = self.zero_pfn
        new = {}
        for flags, head, mapping, mc, ref in self.page_iter(buf):
            pfn += 1
            if head & 1 or flags & rare or mc < 0 or ref < 0 or pfn == zero:
                continue
            u = memo(flags | (mapping & 3) << 64)
            if u is not None:
                new[pfn] = u | (mc + 1) << 64 | ref << 96
        self.facts.update(new)

    def page_bytes(self, pfn):
        """(buffer, offset) of pfn's struct page, through the window cache."""
        w = pfn // self.win_pages
        if w not in self.windows:
            self.window(w)
        buf = self.windows[w]
        if buf:
            return buf, (pfn % self.win_pages) * self.psize
        try:  # the window straddles an unreadable part: this page alone
            return self.prog.read(self.vmemmap + pfn * self.psize, self.psize), 0
        except FaultError:
            return None, 0

    def load(self, pfn):
        buf, off = self.page_bytes(pfn)
        if buf is None:
            return None
        return self.page_unpack(buf, off)

    def field(self, pfn, off, code):
        buf, o = self.page_bytes(pfn)
        return None if buf is None else struct.unpack_from("<" + code, buf, o + off)[0]

    def miss(self, pfn, pte):
        """The facts of pfn (see pack()) the first time it is seen; None for a bad entry."""
        if pfn >= self.max_pfn:
            if pte & X_SPECIAL:  # a PFN map of memory without struct pages
                return pack(0, -1, 1 << KPF["nopage"])
            self.bad += 1
            return None
        f = self.page_facts(pfn)
        if f is None:
            self.bad += 1
            return None
        f = self.facts[pfn] = pack(*f)
        return f

    def page_facts(self, pfn):
        p = self.load(pfn)
        if p is None:
            return None
        flags, head, mapping, mc, ref = p
        tail = head & 1
        headflag = flags & self.PG_head
        if not tail and not headflag:  # order 0, the common case
            mapcount = mc + 1
            if mapcount < 0 or flags & self.PG_slab:
                mapcount = 0
            # _ptes() looks up the common case (mapped: mc >= 0) by this int itself
            key = flags | (mapping & 3) << 64 if mc >= 0 and pfn != self.zero_pfn else \
                (flags, mapping & 3, mc, pfn == self.zero_pfn)
            u = self.kpf_memo.get(key)
            if u is None:
                u = self.kpf_memo[key] = self.kpf(flags, flags, mapping & 1, (mapping & 3) == 3, 0, 0,
                                                  False, mc >= 0, False, pfn == self.zero_pfn, mc)
            return mapcount, ref, u
        # a compound page: the head's flags, mapping, refcount; page[1]'s dtor and mapcount
        hpfn = pfn
        h = p
        if tail:
            hpfn = (head - 1 - self.vmemmap) // self.psize
            if not 0 <= hpfn < pfn:
                return None
            h = self.load(hpfn)
            if h is None:
                return None
        hflags, _, hmapping, _, href = h
        dtor = self.field(hpfn + 1, self.o_cdtor, "B")
        cmap = self.field(hpfn + 1, self.o_cmap, "i")
        f1 = self.field(hpfn + 1, self.o_flags, "Q")
        if dtor is None or cmap is None or f1 is None:
            return None
        hugetlb = dtor == self.hugetlb_dtor
        anon = hmapping & 1
        double_map = bool(f1 & self.PG_double_map)
        # page_mapcount(), 6.1 mm/util.c __page_mapcount()
        mapcount = mc + 1
        if anon or hugetlb:
            mapcount += cmap + 1
            if double_map:
                mapcount -= 1
        if mapcount < 0 or hflags & self.PG_slab or mc < PAGE_MAPCOUNT_RESERVE:
            mapcount = 0
        # folio_mapped()
        if mc >= 0 or cmap >= 0:
            mapped = True
        elif hugetlb:
            mapped = False
        else:
            order = self.field(hpfn + 1, self.o_corder, "B") or 0
            mapped = False
            for i in range(1 << order):
                s = self.load(hpfn + i)
                if s and s[3] >= 0:
                    mapped = True
                    break
        key = (flags, hflags, hmapping & 3, headflag, tail, hugetlb, mapped, hpfn == self.huge_zero_head,
               mc if mc < 0 else 0)
        u = self.kpf_memo.get(key)
        if u is None:
            u = self.kpf_memo[key] = self.kpf(flags, hflags, anon, (hmapping & 3) == 3, headflag, tail,
                                              hugetlb, mapped, hpfn == self.huge_zero_head, False, mc)
        return mapcount, href, u

    def kpf(self, k, hk, anon, ksm, headflag, tail, hugetlb, mapped, huge_zero, zero, ptype):
        """stable_page_flags() of 6.1 fs/proc/page.c: K the page's flags, HK its head's."""
        B = KPF
        u = 0
        slab = hk & self.PG_slab  # PageSlab: PF_NO_TAIL
        if not slab and mapped:
            u |= 1 << B["mmap"]
        if anon:
            u |= 1 << B["anon"]
        if ksm:
            u |= 1 << B["ksm"]
        if headflag:
            u |= 1 << B["compound_head"]
        if tail:
            u |= 1 << B["compound_tail"]
        if hugetlb:
            u |= 1 << B["huge"]
        elif headflag or tail:
            if hk & self.PG_lru or anon:
                u |= 1 << B["thp"]
            elif huge_zero:
                u |= 1 << B["zero_page"] | 1 << B["thp"]
        elif zero:
            u |= 1 << B["zero_page"]
        t = ptype & 0xFFFFFFFF
        if ptype < PAGE_MAPCOUNT_RESERVE:
            if t & (PAGE_TYPE_BASE | PGT_BUDDY) == PAGE_TYPE_BASE:
                u |= 1 << B["buddy"]
            if t & (PAGE_TYPE_BASE | PGT_OFFLINE) == PAGE_TYPE_BASE:
                u |= 1 << B["offline"]
            if t & (PAGE_TYPE_BASE | PGT_TABLE) == PAGE_TYPE_BASE:
                u |= 1 << B["pgtable"]
        if hk & self.PG_idle:
            u |= 1 << B["idle"]
        if hk & self.PG_young:
            u |= 1 << B["young"]
        for kb, ub in self.copy:
            if k >> kb & 1:
                u |= 1 << ub
        if tail and slab:
            u |= 1 << B["slab"]
        if hk & self.PG_swapbacked and hk & self.PG_swapcache:
            u |= 1 << B["swapcache"]
        return u

    # ---- VMAs: the maple tree ----------------------------------------------------------------
    def vmas(self, mm):
        """(vm_start, vm_end, vm_flags) of mm's VMAs in address order."""
        prog = self.prog
        root = struct.unpack("<Q", prog.read(mm + self.o_ma_root, 8))[0]
        entries = []
        if root & 3 == 2 and root > 4096:  # xa_is_node()
            self._node(root, (1 << 64) - 1, entries)
        elif root:
            entries.append(root)
        unpack, order, _ = self.vma_struct
        out = []
        for v in entries:
            start, end, vm_mm, flags = order(unpack(prog.read(v, self.vma_len)))
            if vm_mm == mm:
                out.append((start, end, flags))
        return out

    def _node(self, entry, mx, out):
        """Depth first, so leaves come in order. End of node as mt_for_each() computes it."""
        addr = entry & ~MAPLE_NODE_MASK
        ntype = (entry >> 3) & 0xF
        buf = self.prog.read(addr, self.node_size)
        if ntype == MAPLE_ARANGE_64:
            pivots = self.ma_fmt[0].unpack_from(buf, self.ma_piv)
            slots = self.ma_fmt[1].unpack_from(buf, self.ma_slot)
            end = buf[self.ma_end]
        elif ntype in (MAPLE_RANGE_64, MAPLE_LEAF_64):
            pivots = self.mr_fmt[0].unpack_from(buf, self.mr_piv)
            slots = self.mr_fmt[1].unpack_from(buf, self.mr_slot)
            last = pivots[-1]
            end = buf[self.mr_end] if not last else (len(pivots) - 1 if last == mx else len(pivots))
        else:
            raise NotImplementedError("maple node type %d" % ntype)
        leaf = ntype < MAPLE_RANGE_64
        for off in range(end + 1):
            piv = pivots[off] if off < end else mx
            v = slots[off]
            if leaf:
                if v and v != XA_ZERO_ENTRY:
                    out.append(v)
            else:
                self._node(v, piv, out)

    # ---- page tables ------------------------------------------------------------------------
    def walk_mm(self, mmid, mm, pgd_phys):
        tables = {}
        prog, t512 = self.prog, self.t512

        def table(phys):
            t = tables.get(phys)
            if t is None:
                t = tables[phys] = t512.unpack(prog.read(phys, 4096, True))
            return t

        st = [0, 0, 0, -1, -1, None, 0]  # run: va, pfn, n, end, next pfn, facts, attr
        for start, end, flags in self.vmas(mm):
            self.vmas_seen += 1
            if flags & VM_PFNMAP:
                continue
            self._walk(table, pgd_phys, 0, start, end, mmid, st)
            self._flush(mmid, st)  # runs end at a VMA's end, as extract's
        self.tables += len(tables)

    def _walk(self, table, tphys, lvl, va, end, mmid, st):
        t = table(tphys)
        shift = self.shifts[lvl]
        last = lvl == len(self.shifts) - 1
        mask = self.pfn_mask
        if last:  # a PTE table: all of [va, end) that it covers
            base = va & ~((1 << 21) - 1)
            hi = min(end, base + (1 << 21))
            self._ptes(t, (va - base) >> 12, (hi - base + 4095) >> 12, base, mmid, st)
            return
        while va < end:
            nxt = ((va >> shift) + 1) << shift
            e = t[(va >> shift) & 511]
            if e & ~(X_A | X_D):
                if shift <= 30 and e & X_PSE and e & (X_P | X_PROTNONE):  # 1 GiB / 2 MiB leaf
                    span = 1 << shift
                    pfn0 = ((e if e & X_P else ~e) & mask & ~(span - 1)) >> 12
                    lo, hi = va, min(end, nxt)
                    a0 = va & ~(span - 1)
                    while lo < hi:  # through the PTE loop, 512 pages at a time
                        cbase = lo & ~((1 << 21) - 1)
                        chi = min(hi, cbase + (1 << 21))
                        first = pfn0 + ((cbase - a0) >> 12)
                        attr = e & ~mask
                        if e & X_P:
                            syn = [attr | ((first + i) << 12) for i in range(512)]
                        else:
                            syn = [attr | (~((first + i) << 12) & mask) for i in range(512)]
                        self._ptes(syn, (lo - cbase) >> 12, (chi - cbase + 4095) >> 12, cbase, mmid, st)
                        lo = chi
                elif e & X_P:
                    self._walk(table, e & mask, lvl + 1, va, min(end, nxt), mmid, st)
                # else: swap or migration entry at PMD level, or a bad entry: no resident page
            va = nxt

    def _ptes(self, pt, lo, hi, base, mmid, st):
        """The leaves pt[lo:hi] mapping base + i * 4096: extend or start runs. The hot loop:
        a page continuing the run costs a compare of its entry and one dict lookup; an
        order-0 page seen for the first time is done inline (window, unpack, memo); a run's
        line is its start, length and the (facts, PTE bits) suffix, formatted once per pair."""
        facts = self.facts
        windows = self.windows
        fget, sget = facts.get, self.suffix.get
        wp, max_pfn = self.win_pages, self.max_pfn
        mask, zero = self.pfn_mask, self.zero_pfn
        out = self.out.append
        r_va, r_pfn, r_n, r_end, r_next, r_f, r_a = st
        pages = zpages = runs = 0
        # The next entry that continues the run as it is: the same bits, the next PFN.
        nxt_e = (r_a | r_next << 12) if r_n and r_a & 1 and r_pfn != zero and base + (lo << 12) == r_end else -1
        i = lo - 1
        for e in pt[lo:hi]:
            i += 1
            if e == nxt_e:
                f = fget((e & mask) >> 12)
                if f == r_f:
                    r_n += 1
                    nxt_e += 4096
                    continue
            if not e:
                nxt_e = -1
                continue
            if e & 1:
                pfn = (e & mask) >> 12
            elif e & 0x100:  # PROT_NONE: present to the kernel, PFN inverted
                pfn = (~e & mask) >> 12
            else:  # swap or migration entry
                nxt_e = -1
                continue
            f = fget(pfn)
            if f is None:
                if pfn // wp not in windows and pfn < max_pfn:
                    self.window(pfn // wp)
                    f = fget(pfn)
                if f is None:
                    f = self.miss(pfn, e)
                    if f is None:
                        nxt_e = -1
                        continue
            va = base + (i << 12)
            a = e & ATTR
            if r_n:
                if va == r_va + (r_n << 12) and f == r_f and a == r_a and (
                        pfn == r_pfn + r_n or pfn == zero and r_pfn == zero):
                    r_n += 1  # (every page of a zero-page run maps the one PFN)
                    nxt_e = e + 4096 if e & 1 and pfn != zero else -1
                    continue
                sfx = sget((r_f, r_a)) or self.new_suffix(r_f, r_a)
                out("%d %x %x %d %s" % (mmid, r_va, r_pfn, r_n, sfx))
                runs += 1
                if r_f & ZERO_BIT:
                    zpages += r_n
                else:
                    pages += r_n
            r_va, r_pfn, r_n, r_f, r_a = va, pfn, 1, f, a
            nxt_e = e + 4096 if e & 1 and pfn != zero else -1
        st[:] = r_va, r_pfn, r_n, r_va + (r_n << 12), r_pfn + r_n, r_f, r_a
        self.pages += pages
        self.zero_pages += zpages
        self.runs += runs

    def new_suffix(self, f, a):
        """MAPCOUNT REFCOUNT FLAGS PTE of a run with facts F and PTE bits A."""
        sfx = self.suffix[(f, a)] = "%d %d %x %x" % (f >> 64 & 0xFFFFFFFF, ((f >> 96) ^ 0x80000000) - 0x80000000,
                                                   f & 0xFFFFFFFFFFFFFFFF, a)
        return sfx

    def _flush(self, mmid, st):
        """End the current run (at a VMA's end: runs never cross VMAs, as extract's)."""
        r_va, r_pfn, r_n, _, _, r_f, r_a = st
        if r_n:
            sfx = self.suffix.get((r_f, r_a)) or self.new_suffix(r_f, r_a)
            self.out.append("%d %x %x %d %s" % (mmid, r_va, r_pfn, r_n, sfx))
            self.runs += 1
            if r_f & ZERO_BIT:
                self.zero_pages += r_n
            else:
                self.pages += r_n
        st[:] = [0, 0, 0, -1, -1, None, 0]


def pack(mapcount, refcount, kpageflags):
    """A page's facts as one int (cheap to compare and to keep per PFN)."""
    return kpageflags | mapcount << 64 | (refcount & 0xFFFFFFFF) << 96


def rss_pages(mm):
    """The kernel's resident counters of mm (6.1 mm_struct.rss_stat; they lag: split counting)."""
    return max(0, sum(mm.rss_stat.count[i].counter.value_() for i in (0, 1, 3)))


def main():
    args = sys.argv[1:]
    opts = {"-o": "/dev/null", "--time-limit": None, "--expect-pages": None}
    for k in list(opts):
        if k in args:
            i = args.index(k)
            if i + 1 >= len(args):
                usage()
            opts[k] = args[i + 1]
            del args[i:i + 2]
    if len(args) != 2:
        usage()
    vmlinux, dump = args
    limit = float(opts["--time-limit"]) if opts["--time-limit"] else None
    expect = int(opts["--expect-pages"]) if opts["--expect-pages"] else None

    t0 = time.monotonic()
    prog = drgn.Program()
    prog.set_core_dump(dump)
    prog.load_debug_info([vmlinux], default=False, main=False)
    t_load = time.monotonic() - t0

    t1 = time.monotonic()
    lines = []
    x = Expert(prog, lines)
    mms, seen = [], set()
    for task in for_each_task(prog):
        mm = task.mm.value_()
        if not mm or task.flags.value_() & PF_KTHREAD:
            continue
        x.tasks += 1
        if mm not in seen:
            seen.add(mm)
            mms.append((mm, task))
    stopped = False
    for mmid, (mm, task) in enumerate(mms):
        if limit is not None and time.monotonic() - t1 > limit:
            stopped = True
            break
        lines.append("mm %d %x %d %s" % (mmid, mm, task.tgid.value_(),
                                          task.comm.string_().decode(errors="replace").replace(" ", "_")))
        x.walk_mm(mmid, mm, task.mm.pgd.value_() - x.page_offset)
        x.mms += 1
    with open(opts["-o"], "w") as f:
        f.write("\n".join(lines))
        f.write("\n")
    t_walk = time.monotonic() - t1
    line = "drgn_expert: %d tasks, %d mms, %d pages, %d runs in %.2f s (load %.2f s, walk %.2f s; " \
           "%d zero-page, %d tables)" % (x.tasks, x.mms, x.pages, x.runs, t_load + t_walk, t_load, t_walk,
                                         x.zero_pages, x.tables)
    if x.bad:
        line += " %d bad entries" % x.bad
    if stopped and x.pages:
        expected = expect if expect is not None else sum(rss_pages(t.mm) for _, t in mms)
        est = t_walk * expected / x.pages
        line += " STOPPED at the %g s limit: full walk extrapolated to %.1f s extrapolated_seconds %.1f" % (
            limit, est, est)
    print(line, flush=True)


if __name__ == "__main__":
    main()
