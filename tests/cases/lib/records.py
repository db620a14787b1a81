#!/usr/bin/env python3
"""records.py - small record-file comparisons for the extract_* cases (python3 stdlib).

  records.py pages FILE
      every page of the first snapshot, one line each, "TGID VA FIELDS<TAB>TAG":
      m/x: "TGID VA PFN MAPCOUNT REFCOUNT PTE PFLAGS SHIFT", TAG "m" or "x:REASON";
      w: "TGID VA w TYPE OFFSET KIND"; u: "TGID VA u REASON" (TAG "w"/"u")
  records.py same-but-excluded A B
      A and B (two dumps of the same memory, B filtered by makedumpfile) hold the same
      records page by page once `x` is read as `m`: same tasks, mms, VMAs, warns, per-page
      VA, PFN, mapcount, refcount, PTE, flags, shift, and the same sums but for excluded=.
      Prints the first differences; exit 1 if any.
  records.py same-resident A B
      the page part of same-but-excluded only (two dumps of one boot taken moments apart,
      whose tasks' CPU times differ): every page the same once `x` is read as `m`.
  records.py region-tags FILE GTDIR TAG
      every ground-truth page (GTDIR from tests/tools/gt2check.py) inside a workload region
      must be in FILE with tag TAG ("m", "x:dumplevel"); prints counts, exit 1 otherwise.
  records.py vas FILE TGID START END
      the records of TGID's pages in [START, END) (hex), as `pages` prints them.
  records.py special-names FILE GTDIR
      every bracketed mapping name of the workload processes' smaps ([vdso], [vvar],
      [sigpage], [heap], [stack] ...; gate areas that are no VMA left out) is the path
      of FILE's VMA at that start address. Prints mismatches; exit 1 if any.
  records.py mapcounts FILE
      for a snapshot of every process: each small page (SHIFT = the base page, flags known,
      not compound, not the zero page) has MAPCOUNT equal to the number of page-table
      entries mapping its PFN across all address spaces. Prints mismatches; exit 1 if any.
  records.py same-pages CLEAN FILE [TGID [START END]]
      FILE (from a corrupted dump) has exactly CLEAN's pages (fields and tag) outside TGID
      (outside TGID's [START, END) when given), and no tgid has two mm records (a loop
      followed twice). Prints the first differences; exit 1 if any.

Only the first snapshot is read. Malformed input is a Python exception (exit 1).
"""
import difflib
import os
import sys


def parse_kv(fields):
    kv = {}
    for f in fields:
        if "=" in f:
            k, v = f.split("=", 1)
            kv.setdefault(k, v)
    return kv


def read(path):
    """(header kv, structural lines, pages dict (tgid, va) -> (fields, tag))."""
    header, structure, pages = {}, [], {}
    tgid_of = {}
    page_size = 4096
    with open(path, encoding="utf-8", errors="surrogateescape") as fp:
        for line in fp:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            f = line.split(" ")
            tag = f[0]
            if tag == "header":
                header = parse_kv(f[1:])
                page_size = int(header.get("page_size", "4096"))
            elif tag == "mm":
                kv = parse_kv(f[1:])
                tgid_of[kv["id"]] = kv.get("tgid", "?")
                structure.append(line)
            elif tag in ("m", "x"):
                mm, va, pfn, n = f[1], int(f[2], 16), f[3], int(f[4])
                rest = f[5:10]
                pflags = int(rest[3], 16) if rest[3] != "-" else 0
                zero = bool(pflags >> 24 & 1)
                t = "m" if tag == "m" else "x:" + (f[10] if len(f) > 10 else "?")
                for i in range(n):
                    if pfn == "-":
                        p = "-"
                    else:
                        p = "%x" % (int(pfn, 16) + (0 if zero else i))
                    pages[(tgid_of.get(mm, "mm" + mm), va + i * page_size)] = (
                        " ".join([p] + rest), t)
            elif tag == "w":
                mm, va, n, typ, off, kind = f[1], int(f[2], 16), int(f[3]), f[4], f[5], f[6]
                for i in range(n):
                    o = off if off == "-" else "%x" % (int(off, 16) + i)
                    pages[(tgid_of.get(mm, "mm" + mm), va + i * page_size)] = (
                        "w %s %s %s" % (typ, o, kind), "w")
            elif tag == "u":
                mm, va, n, reason = f[1], int(f[2], 16), int(f[3]), f[4]
                for i in range(n):
                    pages[(tgid_of.get(mm, "mm" + mm), va + i * page_size)] = ("u " + reason, "u")
            elif tag == "end":
                structure.append(line)
                break
            elif tag in ("pagesleuth-records",):
                continue
            else:
                structure.append(line)
    return header, structure, pages


def fmt_page(key, val):
    return "%s %x %s\t%s" % (key[0], key[1], val[0], val[1])


def sortkey(k):
    return (int(k[0]) if k[0].isdigit() else 1 << 62, k[1])


def cmd_pages(path):
    _, _, pages = read(path)
    for k in sorted(pages, key=sortkey):
        print(fmt_page(k, pages[k]))
    return 0


def strip_sum_excluded(line):
    if line.startswith("sum "):
        return " ".join(f for f in line.split(" ") if not f.startswith("excluded="))
    if line.startswith("end "):  # runs= counts lines after merging: m/x splits differ
        return " ".join(f for f in line.split(" ") if not f.startswith("runs="))
    return line


def cmd_same_but_excluded(a, b, pages_only=False):
    _, sa, pa = read(a)
    _, sb, pb = read(b)
    bad = 0
    la = [strip_sum_excluded(l) for l in sa]
    lb = [strip_sum_excluded(l) for l in sb]
    if pages_only:
        la = lb = []
    if la != lb:
        bad += 1
        print("records.py: task/mm/vma/sum/warn/end lines differ (- %s, + %s):" % (a, b))
        for i, d in enumerate(difflib.unified_diff(la, lb, lineterm="", n=0)):
            if i >= 40:
                print("  ...")
                break
            print("  " + d)
    shown = 0
    for k in sorted(set(pa) | set(pb), key=sortkey):
        va, vb = pa.get(k), pb.get(k)
        if va is not None and vb is not None and va[0] == vb[0]:
            continue
        bad += 1
        if shown < 20:
            print("records.py: page %s %x: %s has %s, %s has %s" % (
                k[0], k[1], os.path.basename(a), "%s [%s]" % va if va else "nothing",
                os.path.basename(b), "%s [%s]" % vb if vb else "nothing"))
        shown += 1
    if shown > 20:
        print("records.py: ... %d page differences in all" % shown)
    print("records.py: %s vs %s: %d pages, %d structural lines: %s" % (
        os.path.basename(a), os.path.basename(b), len(pa), len(la), "FAILED" if bad else "same"))
    return 1 if bad else 0


def cmd_region_tags(path, gtdir, want):
    _, _, pages = read(path)
    bad, total, counts = 0, 0, {}
    with open(os.path.join(gtdir, "procs")) as fp:
        procs = [l.split() for l in fp if l.strip()]
    for pid, role, _, _ in procs:
        regions = []
        with open(os.path.join(gtdir, "regions." + pid)) as fp:
            for l in fp:
                s, e, _ = l.split(" ", 2)
                regions.append((int(s, 16), int(e, 16)))
        with open(os.path.join(gtdir, "pages." + pid)) as fp:
            for l in fp:
                f = l.split()
                va = int(f[0], 16)
                if f[1] == "-" or not any(s <= va < e for s, e in regions):
                    continue
                total += 1
                got = pages.get((pid, va))
                tag = got[1] if got else "absent"
                counts[tag] = counts.get(tag, 0) + 1
                if tag != want:
                    if bad < 20:
                        print("records.py: %s (%s) page %x: expected %s, got %s" % (
                            pid, role, va, want, "%s [%s]" % got if got else "no record"))
                    bad += 1
    print("records.py: %s: %d workload-region pages: %s: %s" % (
        os.path.basename(path), total,
        ", ".join("%s %d" % kv for kv in sorted(counts.items())), "FAILED" if bad or not total else "OK"))
    return 1 if bad or not total else 0


def cmd_vas(path, tgid, start, end):
    _, _, pages = read(path)
    s, e = int(start, 16), int(end, 16)
    for k in sorted(pages, key=sortkey):
        if k[0] == tgid and s <= k[1] < e:
            print(fmt_page(k, pages[k]))
    return 0


def cmd_same_pages(clean, path, tgid=None, start=None, end=None):
    _, _, pc = read(clean)
    _, sf, pf = read(path)
    s = int(start, 16) if start else 0
    e = int(end, 16) if end else 1 << 64

    def skip(k):
        return tgid is not None and k[0] == tgid and s <= k[1] < e
    bad = 0
    for k in sorted(set(pc) | set(pf), key=sortkey):
        if skip(k) or pc.get(k) == pf.get(k):
            continue
        if bad < 20:
            print("records.py: page %s %x: clean %s, corrupted %s" % (
                k[0], k[1], "%s [%s]" % pc[k] if k in pc else "nothing",
                "%s [%s]" % pf[k] if k in pf else "nothing"))
        bad += 1
    seen = {}
    for line in sf:
        if line.startswith("mm "):
            t = parse_kv(line.split(" ")[1:]).get("tgid")
            seen[t] = seen.get(t, 0) + 1
    dups = sorted(t for t, n in seen.items() if n > 1)
    if dups:
        print("records.py: tgids with more than one mm record: %s" % " ".join(dups[:20]))
        bad += 1
    print("records.py: %s vs clean: %d pages compared%s: %s" % (
        os.path.basename(path), sum(1 for k in pc if not skip(k)),
        "" if tgid is None else " (leaving out %s%s)" % (tgid, " %s-%s" % (start, end) if start else ""),
        "FAILED" if bad else "same"))
    return 1 if bad else 0


def cmd_mapcounts(path):
    header, _, pages = read(path)
    shift = int(header.get("page_size", "4096")).bit_length() - 1
    maps, claimed = {}, {}
    for k, (fields, tag) in pages.items():
        if tag not in ("m",) and not tag.startswith("x:"):
            continue
        pfn, mapcount, _, _, pflags, sh = fields.split(" ")
        if pfn == "-" or mapcount == "-" or pflags == "-" or int(sh) != shift:
            continue
        fl = int(pflags, 16)
        if fl >> 15 & 1 or fl >> 16 & 1 or fl >> 24 & 1:
            continue
        maps[pfn] = maps.get(pfn, 0) + 1
        claimed.setdefault(pfn, set()).add(int(mapcount))
    bad = 0
    for pfn in sorted(maps, key=lambda p: int(p, 16)):
        if claimed[pfn] != {maps[pfn]}:
            if bad < 20:
                print("records.py: PFN %s: mapcount %s, mapped by %d page-table entries" % (
                    pfn, "/".join(str(c) for c in sorted(claimed[pfn])), maps[pfn]))
            bad += 1
    print("records.py: %s: %d small pages: mapcount == mappings in the dump: %s" % (
        os.path.basename(path), len(maps), "%d differ: FAILED" % bad if bad else "OK"))
    return 1 if bad else 0


def cmd_special_names(path, gtdir):
    mm_tgid, vma_path = {}, {}
    with open(path, encoding="utf-8", errors="surrogateescape") as fp:
        for line in fp:
            f = line.rstrip("\n").split(" ")
            if f[0] == "mm":
                kv = parse_kv(f[1:])
                mm_tgid[kv["id"]] = kv.get("tgid", "?")
            elif f[0] == "vma":
                kv = parse_kv(f[1:])
                vma_path[(mm_tgid.get(kv["mm"], "?"), int(kv["start"], 16))] = kv.get("path", "-")
            elif f[0] == "end":
                break
    bad = n = 0
    for line in open(os.path.join(gtdir, "procs")):
        pid = line.split()[0]
        for l in open(os.path.join(gtdir, "smaps." + pid)):
            f = l.split()
            if len(f) < 6 or "-" not in f[0] or not f[5].startswith("["):
                continue
            if f[5] in ("[vsyscall]", "[vectors]"):  # gate areas: no VMA in the mm
                continue
            start = int(f[0].split("-")[0], 16)
            got = vma_path.get((pid, start))
            n += 1
            if got != f[5]:
                bad += 1
                print("records.py: %s: pid %s %x: smaps says %s, the record %s" % (
                    os.path.basename(path), pid, start, f[5], got))
    print("records.py: %s: %d special mapping names: %s" % (os.path.basename(path), n, "MISMATCH" if bad else "OK"))
    return 1 if bad or n == 0 else 0


def main():
    a = sys.argv[1:]
    if len(a) == 3 and a[0] == "special-names":
        return cmd_special_names(a[1], a[2])
    if len(a) == 2 and a[0] == "pages":
        return cmd_pages(a[1])
    if len(a) == 3 and a[0] == "same-but-excluded":
        return cmd_same_but_excluded(a[1], a[2])
    if len(a) == 3 and a[0] == "same-resident":
        return cmd_same_but_excluded(a[1], a[2], pages_only=True)
    if len(a) == 4 and a[0] == "region-tags":
        return cmd_region_tags(a[1], a[2], a[3])
    if len(a) in (3, 4, 6) and a[0] == "same-pages":
        return cmd_same_pages(*a[1:])
    if len(a) == 2 and a[0] == "mapcounts":
        return cmd_mapcounts(a[1])
    if len(a) == 5 and a[0] == "vas":
        return cmd_vas(*a[1:])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
