#!/usr/bin/env python3
"""crashvm.py - crash's own `foreach vm` / `foreach vm -p` against pagesleuth records
(python3 stdlib; for tests/cases/crash_ext.sh).

  crashvm.py compare RECORDS VM_OUT VMP_OUT
      VM_OUT is crash's `foreach vm` output, VMP_OUT its `foreach vm -p`, RECORDS the
      pagesleuth records of every process of the same dump (first snapshot). Per address
      space (crash's MM address == the mm record's kaddr; threads print the same MM again):
        - the PIDs crash shows with that MM are the task records' pids with that mm;
        - the user address spaces (MM != 0) are the same set on both sides;
        - TOTAL_VM == the mm record's total_vm * page size (RSS is not compared: crash adds
          every thread's unsynced task->rss_stat to the mm's counters, the records hold the
          mm's counters as /proc/PID/status shows them);
        - the VMA list of `foreach vm` equals the records' (start, end, vm_flags, path:
          crash prints no path for an anonymous VMA, the records [heap]/[stack]/[vdso]/- ),
          and `foreach vm -p` lists the same VMAs;
        - every page `foreach vm -p` shows mapped ("VA PA") has an m or x record with
          PFN * page size == PA; every "SWAP: DEV OFFSET: N" line a w record with offset N
          (crash prints it in decimal) and one swap type per device; every "(not mapped)" or
          "FILE: ..." page no m/x/w record; and every m/x/w page of the records is one that
          crash showed mapped or swapped.
      Prints one line per address space and a total; the first 20 differences; exit 1 if any.

Malformed input is a Python exception (exit 1).
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import records  # noqa: E402  (tests/cases/lib/records.py)

PID_RE = re.compile(r'^PID: (\d+)\s+TASK: ([0-9a-f]+)\s+CPU: \S+\s+COMMAND: "(.*)"$')
HEX_RE = re.compile(r'^[0-9a-f]+$')


def parse_vm(path):
    """{mm_kaddr: {"pids": [...], "comm", "rss_k", "total_vm_k", "vmas": [(start, end,
    flags, file)], "pages": {va: ("m", pa) | ("w", dev, off) | ("n", text)}}} (first block
    of each MM only)."""
    out = {}
    cur = None       # the block being filled (None: kernel thread or a repeated MM)
    state = None     # "mmhdr", "mmval", "vmas", "pages"
    pid = comm = None
    with open(path, encoding="utf-8", errors="surrogateescape") as fp:
        for raw in fp:
            line = raw.rstrip("\n")
            s = line.strip()
            if not s:
                continue
            m = PID_RE.match(s)
            if m:
                pid, comm = int(m.group(1)), m.group(3)
                cur, state = None, "mmhdr"
                continue
            if state == "mmhdr":
                if s.split() == ["MM", "PGD", "RSS", "TOTAL_VM"]:
                    state = "mmval"
                continue
            if state == "mmval":
                f = s.split()
                state = "vmas"
                if f[0] == "0":
                    cur, state = None, None  # kernel thread
                    continue
                mm = f[0]
                if mm in out:
                    out[mm]["pids"].append(pid)
                    cur = None               # a thread: the same MM printed again
                    continue
                cur = out[mm] = {"pids": [pid], "comm": comm, "rss_k": f[2], "total_vm_k": f[3],
                                 "vmas": [], "pages": {}}
                continue
            if cur is None:
                continue
            f = s.split()
            if f[:5] == ["VMA", "START", "END", "FLAGS", "FILE"]:
                state = "vmas"
                continue
            if f == ["VIRTUAL", "PHYSICAL"]:
                state = "pages"
                continue
            if state == "vmas":
                if len(f) >= 4 and all(HEX_RE.match(x) for x in f[:4]):
                    cur["vmas"].append((int(f[1], 16), int(f[2], 16), int(f[3], 16),
                                        " ".join(f[4:])))
                    continue
                raise ValueError("%s: unexpected line in a VMA list: %r" % (path, line))
            if state == "pages":
                va = int(f[0], 16)
                rest = s[len(f[0]):].strip()
                if len(f) == 2 and HEX_RE.match(f[1]):
                    cur["pages"][va] = ("m", int(f[1], 16))
                elif rest.startswith("SWAP:"):
                    m = re.match(r'^SWAP: (.*)  OFFSET: (\d+)$', rest)
                    if not m:
                        raise ValueError("%s: unparsed swap line %r" % (path, line))
                    cur["pages"][va] = ("w", m.group(1), int(m.group(2)))
                elif rest.startswith("FILE:") or rest in ("(not mapped)", "(page not available)"):
                    cur["pages"][va] = ("n", rest.split(":")[0])
                else:
                    raise ValueError("%s: unparsed page line %r" % (path, line))
                continue
            raise ValueError("%s: unexpected line %r" % (path, line))
    return out


def unpct(s):
    if s == "-":
        return ""
    return re.sub(r'%([0-9A-Fa-f]{2})', lambda m: chr(int(m.group(1), 16)), s)


def read_structure(path):
    """mm records by kaddr, their VMAs, the leader tasks' RSS counters."""
    mms, vmas, tasks, pids = {}, {}, {}, {}
    with open(path, encoding="utf-8", errors="surrogateescape") as fp:
        for line in fp:
            f = line.rstrip("\n").split(" ")
            if f[0] == "mm":
                kv = records.parse_kv(f[1:])
                mms[kv["kaddr"]] = kv
                vmas[kv["id"]] = []
            elif f[0] == "vma":
                kv = records.parse_kv(f[1:])
                vmas.setdefault(kv["mm"], []).append(
                    (int(kv["start"], 16), int(kv["end"], 16),
                     int(kv["vmflags"], 16) if kv.get("vmflags", "-") != "-" else None,
                     unpct(kv.get("path", "-"))))
            elif f[0] == "task":
                kv = records.parse_kv(f[1:])
                if kv.get("pid") == kv.get("tgid"):
                    tasks[kv["tgid"]] = kv
                pids.setdefault(kv.get("mm"), set()).add(int(kv["pid"]))
            elif f[0] == "end":
                break
    return mms, vmas, tasks, pids


def cmd_compare(recpath, vmpath, vmppath):
    header, _, pages = records.read(recpath)
    ps = int(header.get("page_size", "4096"))
    mms, rvmas, tasks, tpids = read_structure(recpath)
    vm, vmp = parse_vm(vmpath), parse_vm(vmppath)
    bad = []

    def diff(msg):
        bad.append(msg)

    for name, side in (("foreach vm", vm), ("foreach vm -p", vmp)):
        for k in sorted(set(side) - set(mms)):
            diff("%s: MM %s (pid %s %s) has no mm record" % (name, k, side[k]["pids"][0], side[k]["comm"]))
        for k in sorted(set(mms) - set(side)):
            diff("mm record kaddr=%s (tgid %s) is not a user process in %s" % (k, mms[k]["tgid"], name))
    tot = dict(mms=0, vmas=0, mapped=0, swap=0, absent=0, threads=0)
    swapdev = {}
    for k in sorted(set(vm) & set(mms), key=lambda x: int(mms[x]["tgid"])):
        mrec, c, cp = mms[k], vm[k], vmp.get(k)
        tgid = mrec["tgid"]
        who = "pid %s (%s)" % (tgid, c["comm"])
        tot["mms"] += 1
        tot["threads"] += len(c["pids"])
        # Sizes.
        tvm = int(mrec.get("total_vm", "0")) * ps // 1024
        if c["total_vm_k"] != "%dk" % tvm:
            diff("%s: TOTAL_VM %s, records total_vm=%s (%dk)" % (who, c["total_vm_k"], mrec.get("total_vm"), tvm))
        if tgid not in tasks:
            diff("%s: no task record for the leader" % who)
        if set(c["pids"]) != tpids.get(mrec["id"], set()):
            diff("%s: foreach vm shows pids %s with MM %s, the task records %s" % (
                who, sorted(c["pids"]), k, sorted(tpids.get(mrec["id"], set()))))
        # VMAs.
        rv = rvmas.get(mrec["id"], [])
        cv = c["vmas"]
        nv = 0
        for i in range(max(len(rv), len(cv))):
            a = rv[i] if i < len(rv) else None
            b = cv[i] if i < len(cv) else None
            ok = a is not None and b is not None and a[:3] == b[:3] and (
                a[3] == b[3] or (b[3] == "" and (a[3] == "" or a[3].startswith("["))))
            if ok:
                nv += 1
            else:
                diff("%s: VMA %d: records %s, foreach vm %s" % (
                    who, i, "%x-%x flags %s %s" % (a[0], a[1], "-" if a[2] is None else "%x" % a[2], a[3] or "-") if a else "none",
                    "%x-%x flags %x %s" % (b[0], b[1], b[2], b[3] or "-") if b else "none"))
        tot["vmas"] += nv
        if cp is None:
            continue
        if [v[:3] for v in cp["vmas"]] != [v[:3] for v in cv]:
            diff("%s: foreach vm -p lists other VMAs than foreach vm" % who)
        # Pages.
        nm = nw = na = 0
        seen = set()
        for va in sorted(cp["pages"]):
            cpg = cp["pages"][va]
            r = pages.get((tgid, va))
            rtag = r[1] if r else None
            if cpg[0] == "m":
                seen.add(va)
                if r and (rtag == "m" or rtag.startswith("x:")):
                    pfn = r[0].split(" ")[0]
                    if pfn != "-" and int(pfn, 16) * ps == cpg[1]:
                        nm += 1
                        continue
                diff("%s: %x: crash maps it to physical %x, records: %s" % (
                    who, va, cpg[1], "%s [%s]" % r if r else "no page"))
            elif cpg[0] == "w":
                seen.add(va)
                if r and rtag == "w":
                    _, typ, off, kind = r[0].split(" ")
                    if swapdev.setdefault(cpg[1], typ) != typ:
                        diff("%s: %x: swap device %s is type %s here, type %s elsewhere" % (
                            who, va, cpg[1], typ, swapdev[cpg[1]]))
                    elif off != "-" and int(off, 16) == cpg[2]:
                        nw += 1
                        continue
                diff("%s: %x: crash: SWAP %s offset %d, records: %s" % (
                    who, va, cpg[1], cpg[2], "%s [%s]" % r if r else "no page"))
            else:
                if r and rtag in ("m", "w") or (r and rtag.startswith("x:")):
                    diff("%s: %x: crash: %s, records: %s [%s]" % (who, va, cpg[1], r[0], r[1]))
                else:
                    na += 1
        for (pt, va), r in pages.items():
            if pt == tgid and va not in seen and (r[1] in ("m", "w") or r[1].startswith("x:")):
                diff("%s: %x: records %s [%s], foreach vm -p: %s" % (
                    who, va, r[0], r[1], cp["pages"].get(va, ("not listed",))[-1]))
        tot["mapped"] += nm
        tot["swap"] += nw
        tot["absent"] += na
        print("crashvm: %s: %d VMAs, %d mapped pages, %d swap entries, %d unmapped pages equal%s" % (
            who, nv, nm, nw, na, "" if len(c["pids"]) == 1 else " (%d threads)" % len(c["pids"])))
    for msg in bad[:20]:
        print("crashvm: " + msg)
    if len(bad) > 20:
        print("crashvm: ... %d differences in all" % len(bad))
    ok = not bad and tot["mms"] > 0 and tot["mapped"] > 0
    print("crashvm: %s: %d address spaces (%d tasks), %d VMAs, %d mapped pages (physical "
          "address), %d swap entries, %d unmapped pages compared with crash's foreach vm/vm -p: %s" % (
              os.path.basename(recpath), tot["mms"], tot["threads"], tot["vmas"], tot["mapped"],
              tot["swap"], tot["absent"], "OK" if ok else "FAILED"))
    return 0 if ok else 1


def main():
    a = sys.argv[1:]
    if len(a) == 4 and a[0] == "compare":
        return cmd_compare(*a[1:])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
