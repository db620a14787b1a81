#!/usr/bin/env python3
"""mutate_dump.py - a mutation campaign on a real ELF kernel dump: one mutation at a time,
aimed at the bytes a clean `pagesleuth extract` reads, each run checked for what hostile
input must never cause.

  mutate_dump.py --bin EXTRACT --dump ELF --work COPY --trace TRACE --profile PROFILE
                 [--runs N | --seconds S] [--seed N] [--timeout S] [--findings DIR]

EXTRACT is the pagesleuth binary (the ASan+UBSan one in the tests). COPY is a writable copy
of ELF (every mutation is undone after its run; the copy is checked against ELF's size at
the end). TRACE is `extract ELF --trace TRACE` of the clean dump, PROFILE `pagesleuth
profile --btf` of its kernel (struct sizes).

Targets, one chosen per run with equal weight per kind, then an object of that kind, an
offset inside it (for structures, three times in four inside a member the profile lists,
i.e. one the walker reads) and a mutation:
  header    the ELF header, program headers and notes (bytes before the first PT_LOAD data)
  pt        a page-table page the walk read (trace "pt" lines: physical address)
  task      a task_struct on the task list (trace "task" lines, through the direct map)
  mm        an mm_struct            vma  a vm_area_struct            maple  a maple node
  page      a window of struct pages the pass over every frame read (trace "page" lines)
  kobj      the bytes the passes over the kernel's counters, slab caches and log read (trace
            "kobj" lines: zones, vmstat arrays, kmem_cache and kmem_cache_node, the printk
            ring); no member list: any offset
Mutations: a random byte, one bit flipped, a byte set to 0x00 or 0xff, a 64-bit word set to
0, all ones, +1/-1, a pointer to its own address (a self-loop) or to another object of the
same kind.

Each run: `EXTRACT COPY -o OUT` under a time limit (10x the clean run, at least TIMEOUT).
A finding is: a sanitizer report, a signal, a timeout, an exit status other than 0/1/2, exit
2 with other than one error line, exit 1 without `end status=partial` or without a warn
record, exit 0 or 1 with records that do not read back (gtcheck --validate, when GTCHECK is
set in the environment). Findings are written to DIR as one-line recipes (kind, file offset,
old and new bytes in hex) that re-create the input from the clean dump.

Prints one line per kind (runs, exit 0/1/2 counts, findings) and exits 1 if any finding.
python3 stdlib only.
"""
import argparse
import os
import random
import struct
import subprocess
import sys
import time

SANITIZER = (b"ERROR: AddressSanitizer", b"ERROR: LeakSanitizer", b"runtime error:",
             b"SUMMARY: UndefinedBehaviorSanitizer")


def elf_layout(path):
    """(endianness, [(paddr, filesz, offset)], first data offset): tests/cases/lib/elfphys.py's
    reading of the program headers."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cases", "lib"))
    from elfphys import Elf
    elf = Elf(path)
    elf.fp.close()
    return elf.end, elf.loads, min((off for _, _, off in elf.loads), default=4096)


def pa_to_off(loads, pa, length):
    for paddr, filesz, off in loads:
        if paddr <= pa and pa + length <= paddr + filesz:
            return off + pa - paddr
    return None


MEMBER_OF = {"task": "task_struct", "mm": "mm_struct", "vma": "vm_area_struct", "maple": "maple_node",
             "page": "page"}


def members(profile):
    """Per target kind, the (offset, size) of the members the walker reads (the profile's)."""
    out = {}
    for line in open(profile):
        f = line.split()
        if len(f) == 5 and f[0] == "member":
            t = f[1].split(".")[0]
            for k, st in MEMBER_OF.items():
                if t == st or (k == "maple" and t.startswith("maple_")):
                    out.setdefault(k, []).append((int(f[2]), int(f[3])))
    return out


def targets(trace, profile, loads, header_end):
    size = {}
    for line in open(profile):
        f = line.split()
        if len(f) == 3 and f[0] == "size":
            size[f[1]] = int(f[2])
    delta = None  # direct map: KVA - PA, from a maple line
    kinds = {"header": [(0, header_end)], "pt": [], "task": [], "mm": [], "vma": [], "maple": [], "page": [],
             "kobj": []}
    kvas = {"task": [], "mm": [], "vma": []}
    for line in open(trace):
        f = line.split()
        if f[0] == "pt" and len(f) == 5:
            kinds["pt"].append((int(f[3], 16), 4096))
        elif f[0] == "page" and len(f) == 3:
            kinds["page"].append((int(f[1], 16), int(f[2])))
        elif f[0] == "kobj" and len(f) == 3 and 0 < int(f[2]) <= 65536:
            kinds["kobj"].append((int(f[1], 16), int(f[2])))
        elif f[0] == "maple" and len(f) == 4:
            kva, pa = int(f[2], 16), int(f[3], 16)
            delta = kva - pa
            kinds["maple"].append((pa & ~255, size.get("maple_node", 256)))
        elif f[0] in kvas and len(f) >= 2:
            kvas[f[0]].append(int(f[-1], 16))
    names = {"task": "task_struct", "mm": "mm_struct", "vma": "vm_area_struct"}
    for k, lst in kvas.items():
        if delta is None or names[k] not in size:
            continue
        for kva in lst:
            kinds[k].append((kva - delta, size[names[k]]))
    out = {}
    for k, objs in kinds.items():
        ok = []
        for pa, n in objs:
            off = pa if k == "header" else pa_to_off(loads, pa, n)
            if off is not None:
                ok.append((off, n))
        if ok:
            out[k] = sorted(set(ok))
    return out


def mutation(rng, e, old, objs, off):
    """New bytes for the 8 (or 1) bytes OLD at file offset OFF."""
    op = rng.randrange(9)
    if op < 4 or len(old) < 8:
        b = bytearray(old[:1])
        b[0] = [rng.randrange(256), b[0] ^ (1 << rng.randrange(8)), 0, 255][op % 4]
        return bytes(b)
    word, = struct.unpack(e + "Q", old)
    if op == 4:
        word = 0
    elif op == 5:
        word = 2**64 - 1
    elif op == 6:
        word = (word + 1) % 2**64
    elif op == 7:
        word = (word - 1) % 2**64
    else:  # a pointer to another object of the kind, or to itself (by its offset's page)
        o2, _ = rng.choice(objs)
        word = (word & ~0xfff) | (o2 & 0xfff) if rng.randrange(2) else (word - (off & 0xfff) + (o2 & 0xfff)) % 2**64
    return struct.pack(e + "Q", word)


def main():
    ap = argparse.ArgumentParser()
    for a in ("--bin", "--dump", "--work", "--trace", "--profile"):
        ap.add_argument(a, required=True)
    ap.add_argument("--runs", type=int, default=0)
    ap.add_argument("--seconds", type=float, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=10)
    ap.add_argument("--findings", default=None)
    a = ap.parse_args()
    if not a.runs and not a.seconds:
        a.runs = 100
    e, loads, header_end = elf_layout(a.dump)
    tg = targets(a.trace, a.profile, loads, header_end)
    read_members = members(a.profile)
    psize = {}
    for line in open(a.profile):
        f = line.split()
        if len(f) == 3 and f[0] == "size" and f[1] == "page":
            psize["page"] = int(f[2])
    if len(tg) < 4:
        sys.exit("mutate_dump: too few target kinds in %s (%s)" % (a.trace, ", ".join(tg)))
    out = a.work + ".mut.rec"
    env = dict(os.environ)
    env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    # libkdumpfile's own leaks on a malformed note (not pagesleuth's memory): see the file.
    env.setdefault("LSAN_OPTIONS", "suppressions=" + os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "lsan-libkdumpfile.supp"))
    t0 = time.time()
    subprocess.run([a.bin, "extract", a.work, "-o", out], env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    limit = max(a.timeout, 10 * (time.time() - t0))
    gtcheck = os.environ.get("GTCHECK")
    rng = random.Random(a.seed)
    stats = {k: [0, 0, 0, 0, 0] for k in tg}  # runs, exit0, exit1, exit2, findings
    findings = 0
    start = time.time()
    n = 0
    with open(a.work, "r+b") as w:
        while (a.runs and n < a.runs) or (a.seconds and time.time() - start < a.seconds):
            n += 1
            kind = rng.choice(sorted(tg))
            objs = tg[kind]
            base, size = rng.choice(objs)
            width = 8 if size >= 8 and rng.randrange(2) else 1
            off = base + (rng.randrange(max(1, size // width)) * width)
            if read_members.get(kind) and rng.randrange(4):  # mostly the members read
                moff, msize = rng.choice(read_members[kind])
                if kind == "page" and "page" in psize and size >= psize["page"]:
                    # a member of one of the window's struct pages
                    moff += psize["page"] * rng.randrange(size // psize["page"])
                if moff + msize <= size:
                    width = 8 if msize >= 8 else 1
                    off = base + moff + (rng.randrange(max(1, msize // width)) * width)
            w.seek(off)
            old = w.read(width)
            if len(old) < width:
                continue
            new = mutation(rng, e, old, objs, off)
            w.seek(off)
            w.write(new)
            w.flush()
            try:
                p = subprocess.run([a.bin, "extract", a.work, "-o", out], env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=limit)
                rc, err = p.returncode, p.stderr
            except subprocess.TimeoutExpired:
                rc, err = "timeout", b""
            finally:
                w.seek(off)
                w.write(old)
                w.flush()
            why = None
            if rc == "timeout":
                why = "no exit within %.1f s" % limit
            elif any(s in err for s in SANITIZER):
                why = "sanitizer report: " + next(l for l in err.decode("latin1").splitlines()
                                                  if any(s.decode() in l for s in SANITIZER))
            elif rc not in (0, 1, 2):
                why = "exit %s" % rc
            elif rc == 2:
                lines = [l for l in err.decode("latin1").splitlines() if l and ": warning: " not in l]
                if len(lines) != 1:
                    why = "exit 2 with %d error lines" % len(lines)
                if os.path.exists(out):
                    why = "exit 2 left the output file"
            else:
                recs = open(out, "rb").read() if os.path.exists(out) else b""
                if rc == 1 and (b"\nend status=partial" not in recs or b"\nwarn " not in recs):
                    why = "exit 1 without a partial end or a warn record"
                elif rc == 0 and b"\nend status=complete" not in recs:
                    why = "exit 0 without a complete end"
                elif gtcheck and subprocess.run([gtcheck, "--validate", out], stdout=subprocess.DEVNULL,
                                                stderr=subprocess.DEVNULL).returncode != 0:
                    why = "the records do not read back"
            if os.path.exists(out):
                os.unlink(out)
            s = stats[kind]
            s[0] += 1
            if rc in (0, 1, 2):
                s[1 + rc] += 1
            if why:
                s[4] += 1
                findings += 1
                recipe = "%s offset=%d old=%s new=%s: %s" % (kind, off, old.hex(), new.hex(), why)
                print("FINDING: " + recipe, flush=True)
                if a.findings:
                    os.makedirs(a.findings, exist_ok=True)
                    with open(os.path.join(a.findings, "recipes.txt"), "a") as fp:
                        fp.write("%s %s\n" % (os.path.basename(a.dump), recipe))
    if os.path.getsize(a.work) != os.path.getsize(a.dump):
        sys.exit("mutate_dump: the work copy changed size")
    for k in sorted(stats):
        r, e0, e1, e2, fi = stats[k]
        print("mutate_dump: %-6s %6d runs: exit 0 %d, exit 1 %d, exit 2 %d; %d findings" % (k, r, e0, e1, e2, fi))
    print("mutate_dump: %d runs in %.0f s (seed %d), %d findings" % (n, time.time() - start, a.seed, findings))
    sys.exit(1 if findings else 0)


if __name__ == "__main__":
    main()
