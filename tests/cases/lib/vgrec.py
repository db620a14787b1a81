#!/usr/bin/env python3
"""vgrec.py - checks on trace records of the Valgrind tool and the Lackey converter, for
tests/cases/valgrind_ws.sh, valgrind_peaks.sh and lackey_vs_tool.sh (python3 stdlib).

  vgrec.py phase FILE START END TID KIND VALUE [SLACK]
      every `ws` sample of thread TID (0 = process) whose window (t - tau, t] lies inside
      the phase between the first `mark` with text START and the next with text END
      (SLACK instructions away from both marks) has KIND (code|data) == VALUE; at least one
      sample must be checked. Prints the number checked; exit 1 on any difference, 3 when no
      sample window fits in the phase.
  vgrec.py common FILE START1,START2,... END TID KIND VALUE [SLACK]
      the same for the phase from the last of the START marks to the first END mark after it.
  vgrec.py same-ws A B KIND [MAXDIFF]
      the process (tid=0) ws series of A and B: same sample times and, for KIND, values
      differing by at most MAXDIFF (default 0) pages. Prints counts; exit 1 otherwise.
  vgrec.py peaks FILE KIND
      prints each peak of KIND: "t start pages fn:line fn:line ..." (innermost first).
  vgrec.py hot FILE KIND
      prints each hot page of KIND: "rank page accesses fn:line".
  vgrec.py lackey-end TRACE EVERY TAU
      from a raw Lackey --trace-mem trace (each I line one instruction, the data lines
      its accesses; 4 KiB pages, an access spanning two touches both): "t partial code
      data" of the final partial sample, counted from the trace itself: the pages touched
      in (k*EVERY - TAU, end], k*EVERY the first sample time after the end; "-" if the run
      ends on a sample.
  vgrec.py prom FILE KIND [MINPCT [MAXN]]
      the peaks of FILE's tid=0 KIND series (samples, the partial one included) by the
      definition of topographic prominence (docs/valgrind.md), computed from scratch:
      "rank t pages prominence repeats" lines, as the tool ranks and groups them.
  vgrec.py ranked FILE KIND
      the same lines from FILE's own peak records.

Malformed input is a Python exception (exit 1)."""
import sys
from urllib.parse import unquote


def records(path):
    with open(path) as f:
        lines = f.read().split("\n")
    if not lines[0].startswith("pagesleuth-records 1."):
        raise SystemExit(f"{path}: not a record file")
    for line in lines[1:]:
        if not line or line.startswith("#"):
            continue
        tag, *fields = line.split(" ")
        kv = {}
        for f in fields:
            k, _, v = f.partition("=")
            kv[k] = unquote(v)
        yield tag, kv


def marks(path):
    return [(int(kv["t"]), kv["text"]) for tag, kv in records(path) if tag == "mark"]


def samples(path, tid):
    out = []
    for tag, kv in records(path):
        if tag == "ws" and kv["tid"] == str(tid) and kv.get("final") != "1":
            out.append((int(kv["t"]), int(kv["tau"]), kv))
    return out


def check_range(path, lo, hi, tid, kind, value, slack, what):
    bad = checked = 0
    for t, tau, kv in samples(path, tid):
        if t - tau >= lo + slack and t <= hi - slack:
            checked += 1
            if int(kv[kind]) != value:
                bad += 1
                if bad <= 3:
                    print(f"{path}: {what}: tid={tid} t={t} {kind}={kv[kind]}, expected {value}")
    if checked == 0:
        print(f"{path}: {what}: no sample window inside [{lo}+{slack}, {hi}-{slack}]")
        return None
    print(f"{what}: tid={tid} {kind}={value} in {checked} samples" + (f", {bad} wrong" if bad else ""))
    return bad == 0


def frames(path):
    return {kv["id"]: kv for tag, kv in records(path) if tag == "frame"}



def lackey_end(path, every, tau):
    """The final partial sample from a raw Lackey trace (see the usage)."""
    acc = []  # (t, page, is_code)
    t = 0
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("I  "):
                t += 1
                a = int(line[3:].split(",")[0], 16)
                acc.append((t, a >> 12, True))
            elif line[:3] in (" L ", " S ", " M "):
                a, size = line[3:].split(",")
                a, size = int(a, 16), int(size)
                for pg in range(a >> 12, ((a + max(size, 1) - 1) >> 12) + 1):
                    acc.append((t, pg, False))
    if t % every == 0:
        return "-"
    k = t // every + 1
    lo = k * every - tau
    code = {pg for tt, pg, c in acc if c and tt > lo}
    data = {pg for tt, pg, c in acc if not c and tt > lo}
    return f"{t} {t - (k - 1) * every} {len(code)} {len(data)}"


def prominence_peaks(xs, ts, min_pct=10, max_n=10):
    """Peaks by prominence from the definition: a maximum (a plateau at its first sample),
    the lowest point on each side up to a strictly higher sample or the run's end (an equal
    maximum ends the search to the right only), the ends counting as 0; kept when at least
    min_pct% of the highest sample; grouped when within 10% of the height and 75% of the
    prominence of a more prominent one."""
    n = len(xs)
    found = []
    for i in range(n):
        if xs[i] == 0 or (i > 0 and xs[i - 1] >= xs[i]):
            continue
        end = i + 1
        while end < n and xs[end] == xs[i]:
            end += 1
        if end < n and xs[end] > xs[i]:
            continue
        j, lo = i - 1, xs[i]
        while j >= 0 and xs[j] <= xs[i]:
            lo = min(lo, xs[j])
            j -= 1
        left = 0 if j < 0 else lo
        j, lo = end, xs[i]
        while j < n and xs[j] < xs[i]:
            lo = min(lo, xs[j])
            j += 1
        right = 0 if j == n else lo
        p = xs[i] - max(left, right)
        if p > 0:
            found.append((p, ts[i], xs[i]))
    found.sort(key=lambda f: (-f[0], f[1]))
    top = max(xs, default=0)
    least = max(1, -(-top * min_pct // 100))
    out = []
    for p, t, pages in found:
        if p < least:
            break
        for o in out:
            if abs(o[2] - pages) * 10 <= o[2] and p * 4 >= o[0] * 3:
                o[3] += 1
                break
        else:
            if len(out) < max_n:
                out.append([p, t, pages, 1])
    return [f"{r + 1} {t} {pages} {p} {rep}" for r, (p, t, pages, rep) in enumerate(out)]


def main():
    cmd = sys.argv[1]
    if cmd in ("phase", "common"):
        path, starts, end, tid, kind, value = sys.argv[2:8]
        slack = int(sys.argv[8]) if len(sys.argv) > 8 else 1000
        ms = marks(path)
        lo = None
        for s in starts.split(","):
            ts = [t for t, text in ms if text == s]
            if not ts:
                raise SystemExit(f"{path}: no mark '{s}'")
            lo = ts[0] if lo is None else max(lo, ts[0])
        ends = [t for t, text in ms if text == end and t > lo]
        if not ends:
            raise SystemExit(f"{path}: no mark '{end}' after '{starts}'")
        ok = check_range(path, lo, ends[0], int(tid), kind, int(value), slack, f"{starts}..{end}")
        sys.exit(3 if ok is None else 0 if ok else 1)
    if cmd == "same-ws":
        a, b, kind = sys.argv[2:5]
        maxdiff = int(sys.argv[5]) if len(sys.argv) > 5 else 0
        sa = [(t, int(kv[kind])) for t, _, kv in samples(a, 0)]
        sb = [(t, int(kv[kind])) for t, _, kv in samples(b, 0)]
        if [t for t, _ in sa] != [t for t, _ in sb]:
            print(f"sample times differ: {len(sa)} samples (last t={sa[-1][0] if sa else '-'}) "
                  f"vs {len(sb)} (last t={sb[-1][0] if sb else '-'})")
            sys.exit(1)
        diffs = [(t, x, y) for (t, x), (_, y) in zip(sa, sb) if x != y]
        worst = max((abs(x - y) for _, x, y in diffs), default=0)
        for t, x, y in diffs[:3]:
            print(f"t={t}: {kind} {x} vs {y}")
        print(f"{kind}: {len(sa)} samples, {len(diffs)} differ, largest difference {worst}")
        sys.exit(0 if worst <= maxdiff and len(sa) > 0 else 1)
    if cmd == "peaks":
        path, kind = sys.argv[2:4]
        fr = frames(path)
        for tag, kv in records(path):
            if tag == "peak" and kv["kind"] == kind:
                st = [] if kv["stack"] == "-" else kv["stack"].split(",")
                where = " ".join(f"{fr[i]['fn']}:{fr[i]['line']}" for i in st)
                print(kv["t"], kv.get("start", "-"), kv["pages"], where)
        return
    if cmd == "hot":
        path, kind = sys.argv[2:4]
        fr = frames(path)
        for tag, kv in records(path):
            if tag == "hot" and kv["kind"] == kind:
                f = fr[kv["frame"]]
                print(kv["rank"], kv["page"], kv["accesses"], f"{f['fn']}:{f['line']}")
        return
    if cmd == "lackey-end":
        print(lackey_end(sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
        return
    if cmd == "prom":
        path, kind = sys.argv[2:4]
        args = [int(a) for a in sys.argv[4:6]]
        ss = list(samples(path, 0))
        for line in prominence_peaks([int(kv[kind]) for _, _, kv in ss], [t for t, _, _ in ss], *args):
            print(line)
        return
    if cmd == "ranked":
        path, kind = sys.argv[2:4]
        for tag, kv in records(path):
            if tag == "peak" and kv["kind"] == kind:
                print(kv["rank"], kv["t"], kv["pages"], kv["prominence"], kv["repeats"])
        return
    raise SystemExit(f"vgrec.py: unknown command {cmd}")


if __name__ == "__main__":
    main()
