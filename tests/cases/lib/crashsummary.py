#!/usr/bin/env python3
"""crashsummary.py - checks of `pagesleuth summary`'s tables (crash-ext/summary.c) as crash
printed them (`> FILE` inside crash).

  crashsummary.py report KIB_OUT REPORT_CSV
      the -K tables (exact KiB) equal `pagesleuth report -a pss -f csv` of records: the
      per-process table row for row (pid, vss, rss, pss, uss, swap, comm; the report's order)
      and the per-object table (procs, vss, rss, pss, uss, object). A table the output lacks
      (-P, -L) is not compared; at least one must be there.
  crashsummary.py human HUMAN_OUT KIB_OUT
      the default tables are the -K ones with every size written as KiB/MiB/GiB to three
      significant digits (the analyzer's bytes_human), row for row.
  crashsummary.py groundtruth KIB_OUT GTDIR
      every workload process of GTDIR (tests/tools/gt2check.py's files) against the guest's
      smaps: VSS == sum of Size, RSS == sum of Rss, USS == sum of Private_Clean +
      Private_Dirty, SWAP == sum of Swap, PSS within [sum of Pss - 1, sum of Pss + VMAs]
      (smaps floors each VMA's Pss to 1 KiB; the 1 KiB the other way is the vdso page gtcap
      still mapped, as extract_fixtures.sh allows).
  crashsummary.py subset PART_OUT FULL_OUT PID|COMM...
      the processes table of PART_OUT is FULL_OUT's rows of those pids and comms, in order.
  crashsummary.py grep GREP_OUT HUMAN_OUT WORD
      GREP_OUT (crash's `| grep WORD > FILE`) holds exactly HUMAN_OUT's lines with WORD.
Exit 0 when equal, 1 with the differences printed; python3 stdlib only.
"""
import csv
import re
import sys

SIZE_HUMAN = r"(?:-|\d+ B|\d+(?:\.\d)? (?:KiB|MiB|GiB|TiB|PiB|EiB))"
SIZE_KIB = r"(?:-|\d+)"


def tables(path, human=False):
    """{'procs': [(pid, vss, rss, pss, uss, swap, comm)], 'objects': [(procs, vss, rss, pss,
    uss, object)]}: the tables of one `pagesleuth summary` output; sizes as printed."""
    size = SIZE_HUMAN if human else SIZE_KIB
    row_p = re.compile(r"^\s*(\d+)" + r"\s+(%s)" % size * 5 + r"  (.*)$")
    row_o = re.compile(r"^\s*(\d+)" + r"\s+(%s)" % size * 4 + r"  (.*)$")
    out, cur, rx = {}, None, None
    for line in open(path, encoding="utf-8", errors="surrogateescape").read().split("\n"):
        if re.match(r"^\s*PID\s+VSS\s+RSS\s+PSS\s+USS\s+SWAP\s+COMM$", line):
            cur, rx = out.setdefault("procs", []), row_p
            continue
        if re.match(r"^\s*PROCS\s+VSS\s+RSS\s+PSS\s+USS\s+MAPPED OBJECT$", line):
            cur, rx = out.setdefault("objects", []), row_o
            continue
        if cur is None:
            continue
        m = rx.match(line)
        if m:
            cur.append(m.groups())
        else:
            cur, rx = None, None  # a blank line or a note ends the table
    return out


def human(kib):
    """bytes_human (analyzer/table.c) of KIB KiB."""
    if kib == "-":
        return "-"
    b = int(kib) * 1024
    if b < 1024:
        return "%d B" % b
    v, k = b / 1024, 0
    units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
    while v >= 1023.5 and k + 1 < len(units):
        v, k = v / 1024, k + 1
    return ("%.1f %s" if v < 99.95 else "%.0f %s") % (v, units[k])


def report_csv(path):
    """The pss and librank tables of `report -a pss -f csv`, ordered as crash prints them."""
    out, name = {}, None
    rows = []
    for line in open(path, encoding="utf-8", errors="surrogateescape"):
        line = line.rstrip("\n")
        if line.startswith("# table: "):
            name, rows = line[9:], []
            out[name] = rows
            continue
        if not line or name is None:
            continue
        rows.append(line)
    res = {}
    for name, key, order in (("pss", "procs", ("pid", "vss_kib", "rss_kib", "pss_kib", "uss_kib", "swap_kib", "comm")),
                             ("librank", "objects", ("procs", "vss_kib", "rss_kib", "pss_kib", "uss_kib", "object"))):
        if name not in out:
            continue
        recs = list(csv.DictReader(out[name]))
        res[key] = [tuple(r[c] if r[c] != "" else "-" for c in order) for r in recs]
    return res


def compare(what, got, want):
    bad = 0
    if len(got) != len(want):
        print("%s: %d rows, expected %d" % (what, len(got), len(want)))
        bad = 1
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            print("%s row %d: %s, expected %s" % (what, i + 1, " ".join(g), " ".join(w)))
            bad = 1
    return bad


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "report":
        got, want = tables(args[0]), report_csv(args[1])
        if not got:
            print("%s: no table of pagesleuth summary in it" % args[0])
            return 1
        bad = 0
        for key in got:
            bad |= compare(key, got[key], want.get(key, []))
        if not bad:
            print("== report -a pss: " + ", ".join("%d %s rows" % (len(got[k]), k) for k in sorted(got)))
        return bad
    if cmd == "human":
        got, kib = tables(args[0], human=True), tables(args[1])
        if not got or sorted(got) != sorted(kib):
            print("%s has tables %s, %s has %s" % (args[0], sorted(got), args[1], sorted(kib)))
            return 1
        bad = 0
        for key in got:
            sizes = range(1, 6) if key == "procs" else range(1, 5)
            want = [tuple(human(v) if i in sizes else v for i, v in enumerate(r)) for r in kib[key]]
            bad |= compare(key + " (KiB/MiB/GiB)", got[key], want)
        if not bad:
            print("KiB/MiB/GiB tables == the -K tables, %d sizes" %
                  sum(len(r) - 2 for k in got for r in got[k]))
        return bad
    if cmd == "groundtruth":
        got = {r[0]: r for r in tables(args[0]).get("procs", [])}
        bad = n = 0
        for line in open(args[1] + "/procs"):
            pid, role, comm = line.split()[:3]
            n += 1
            sm = {"Size": 0, "Rss": 0, "Pss": 0, "Private_Clean": 0, "Private_Dirty": 0, "Swap": 0}
            nvma = 0
            for l in open("%s/smaps.%s" % (args[1], pid)):
                f = l.split()
                if len(f) == 3 and f[0][:-1] in sm and f[2] == "kB":
                    sm[f[0][:-1]] += int(f[1])
                    nvma += f[0] == "Pss:"
            r = got.get(pid)
            if not r:
                print("pid %s (%s): not in the table" % (pid, role))
                bad = 1
                continue
            _, vss, rss, pss, uss, swap, c = r
            want = (sm["Size"], sm["Rss"], sm["Private_Clean"] + sm["Private_Dirty"], sm["Swap"])
            ok = (c == comm and "-" not in (vss, rss, pss, uss, swap) and
                  (int(vss), int(rss), int(uss), int(swap)) == want and
                  sm["Pss"] - 1 <= int(pss) <= sm["Pss"] + nvma)
            print("pid %s (%s): VSS %s RSS %s PSS %s USS %s SWAP %s KiB; smaps %d %d %d (%d VMAs) %d %d%s" %
                  (pid, role, vss, rss, pss, uss, swap, sm["Size"], sm["Rss"], sm["Pss"], nvma,
                   want[2], sm["Swap"], "" if ok else "  <-- MISMATCH"))
            bad |= not ok
        if not n:
            print("no workload processes in %s" % args[1])
            return 1
        return bad
    if cmd == "subset":
        part, full = tables(args[0]).get("procs", []), tables(args[1]).get("procs", [])
        keys = set(args[2:])
        want = [r for r in full if r[0] in keys or r[6] in keys]
        bad = compare("procs of " + " ".join(args[2:]), part, want) or not want
        if not bad:
            print("%s: the %d rows of the full table" % (" ".join(args[2:]), len(want)))
        return bad
    if cmd == "grep":
        got = open(args[0], encoding="utf-8", errors="surrogateescape").read().split("\n")
        want = [l for l in open(args[1], encoding="utf-8", errors="surrogateescape").read().split("\n")
                if args[2] in l]
        got = [l for l in got if l]
        if not want or got != want:
            print("| grep %s: %d lines, expected %d:" % (args[2], len(got), len(want)))
            for l in got[:3]:
                print("  got  " + l)
            for l in want[:3]:
                print("  want " + l)
            return 1
        print("| grep %s: the %d lines of the table with %s" % (args[2], len(got), args[2]))
        return 0
    sys.stderr.write("crashsummary.py: unknown command %s\n" % cmd)
    return 2


if __name__ == "__main__":
    sys.exit(main())
