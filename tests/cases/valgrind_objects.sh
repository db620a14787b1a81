#!/usr/bin/env bash
# valgrind_objects.sh - per-object counters of the Valgrind tool (--objects=yes, issue 7)
# against hand-counted loads and stores of tests/valgrind/obj_counts.c, merging of heap blocks
# by allocation stack (and --obj-stack-depth), and clear errors for bad option values.
#
# The expected numbers come from the program's source and its -O0 code, not from the tool:
# the script first checks that the compiler generated exactly the object accesses the counts
# assume (one memory instruction per C access; loop counters and pointers on the stack).
# Uses the tool in $(dirname $PAGESLEUTH_FAST)/valgrind-lib (built here when absent).
set -uo pipefail
root=${PAGESLEUTH_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root" || exit 1
name=valgrind_objects
fail() { echo "$name: FAIL: $*"; exit 1; }
skip() { echo "$name: SKIP: $*"; exit 77; }

[ "$(uname -m)" = x86_64 ] || skip "the tool is built for amd64 only"
command -v valgrind >/dev/null || skip "valgrind not installed"
[ -f /usr/lib/x86_64-linux-gnu/valgrind/libcoregrind-amd64-linux.a ] || skip "no libcoregrind (valgrind package without tool archives)"
command -v objdump >/dev/null || skip "objdump (binutils) not installed"

build=$(dirname "${PAGESLEUTH_FAST:-$root/build/pagesleuth}")
vglib=$build/valgrind-lib
prog=$build/tests/valgrind/obj_counts
if [ ! -x "$vglib/pagesleuth-amd64-linux" ] || [ ! -x "$prog" ]; then
	# one build at a time: other valgrind_* cases may be building the same files
	mkdir -p "$build" && flock "$build/.valgrind-build.lock" make -s B="$build" valgrind-tool valgrind-tests >/dev/null ||
		fail "make valgrind-tool valgrind-tests failed"
fi
[ -f "$vglib/vgpreload_pagesleuth-amd64-linux.so" ] || fail "no malloc-replacement preload in $vglib"

T=$(mktemp -d /tmp/$name.XXXXXX)
trap 'rm -rf "$T"' EXIT

# 1. The code has the accesses the expected counts assume. Memory operands not relative to
# rbp (the -O0 frame: locals, counters, pointers) per function, lea excluded (no access):
#   fill_heap   mov [rdx],eax            p[i] = i            (heap, 4-byte store) x1000
#   read_heap   mov rax,[rax]            sum += q[i]         (heap, 8-byte load)  x500
#   use_globals mov [rcx+rdx],eax        garr[i] = i         (4-byte store)       x1000
#               mov rax,[rax]            sum += q[i]         (garr, 8-byte load)  x500
#               mov rax,[rip+gcount]; mov [rip+gcount],rax  gcount++ (load+store) x10
#   make_many   mov [rax],edx            *b = i              (block, 4-byte store) x100
#               mov [rdx],rax            blocks[i] = b       (main's stack array, no object)
objdump -d --no-show-raw-insn -M intel "$prog" > "$T/dis" || fail "objdump failed"
python3 - "$T/dis" <<'PY' || fail "the compiler's code differs from what the counts assume (see above)"
import re, sys
want = {"fill_heap": ["mov DWORD PTR [rdx],eax"],
        "read_heap": ["mov rax,QWORD PTR [rax]"],
        "use_globals": ["mov DWORD PTR [rcx+rdx*1],eax", "mov rax,QWORD PTR [rax]",
                        "mov rax,QWORD PTR [rip+X]", "mov QWORD PTR [rip+X],rax"],
        "make_many": ["mov DWORD PTR [rax],edx", "mov QWORD PTR [rdx],rax"]}
got, fn = {}, None
for line in open(sys.argv[1]):
    m = re.match(r"^[0-9a-f]+ <(\w+)>:", line)
    if m:
        fn = m.group(1); continue
    if fn in want and "PTR [" in line:
        ins = line.split("\t", 1)[1].split("#")[0].strip()
        ins = re.sub(r"\s+", " ", ins)
        if ins.startswith("lea ") or "[rbp" in ins:
            continue
        got.setdefault(fn, []).append(re.sub(r"rip\+0x[0-9a-f]+", "rip+X", ins))
ok = True
for f, w in want.items():
    if got.get(f, []) != w:
        print("  %s: %s, expected %s" % (f, got.get(f, []), w)); ok = False
sys.exit(0 if ok else 1)
PY

run() { # OUT ARGS...: the tool on obj_counts
	local out=$1; shift
	VALGRIND_LIB=$vglib valgrind -q --tool=pagesleuth --out="$out" "$@" "$prog" 2>"$out.err"
}

# 2. Counts. Per object: kind name size blocks loads stores bload bstore (line: global
# declaration / heap allocating line). Heap objects at the two make_many calls are two.
run "$T/o.rec" --objects=yes || fail "tool run failed: $(head -3 "$T/o.rec.err")"
check() { # FILE then lines "kind name size blocks loads stores bload bstore line count"
	python3 - "$@" <<'PY'
import os, sys, urllib.parse
rec = sys.argv[1]
objs, frames = [], {}
for line in open(rec):
    f = line.split()
    if not f or f[0] not in ("obj", "frame"):
        continue
    kv = dict(x.split("=", 1) for x in f[1:])
    kv = {k: urllib.parse.unquote(v) for k, v in kv.items()}
    if f[0] == "frame":
        frames[kv["id"]] = kv
    else:
        objs.append(kv)
bad = 0
for spec in sys.argv[2:]:
    kind, name, size, blocks, loads, stores, bload, bstore, line, count = spec.split()
    hits = [o for o in objs if o["kind"] == kind and o["name"] == name]
    if len(hits) != int(count):
        print("  %s %s: %d objects, expected %s" % (kind, name, len(hits), count)); bad += 1
        continue
    for o in hits:
        got = [o["size"], o["blocks"], o["loads"], o["stores"], o["bload"], o["bstore"], o["line"]]
        exp = [size, blocks, loads, stores, bload, bstore, line]
        if got != exp:
            print("  %s %s: size blocks loads stores bload bstore line = %s, expected %s"
                  % (kind, name, " ".join(got), " ".join(exp))); bad += 1
        if not o["file"].endswith("obj_counts.c"):
            print("  %s %s: file=%s" % (kind, name, o["file"])); bad += 1
        if kind == "heap":
            # the stack: the allocating function first, main last (just the allocating
            # function with --obj-stack-depth=1)
            fns = [frames[i]["fn"] if i in frames else "?" for i in o["stack"].split(",")]
            depth1 = os.environ.get("DEPTH1") == "1"
            if fns[0] != name or (depth1 and len(fns) != 1) or (not depth1 and fns[-1] != "main"):
                print("  heap %s: stack %s" % (name, fns)); bad += 1
heap = [o for o in objs if o["kind"] == "heap"]
names = sorted(o["name"] for o in heap)
want = sorted(s.split()[1] for s in sys.argv[2:] for _ in range(int(s.split()[9])) if s.split()[0] == "heap")
if names != want:
    print("  heap objects %s, expected %s (no other allocation in the program)" % (names, want)); bad += 1
sys.exit(1 if bad else 0)
PY
}
check "$T/o.rec" \
	"heap fill_heap 4000 1 500 1000 4000 4000 24 1" \
	"heap make_many 163 100 0 100 0 400 55 2" \
	"global garr 4000 1 500 1000 4000 4000 17 1" \
	"global gcount 8 1 10 10 80 80 18 1" \
	"global sink 8 1 0 1 0 8 19 1" || fail "object counters differ (--objects=yes)"

# 3. --obj-stack-depth=1: the make_many blocks of both call sites are one object.
run "$T/d.rec" --objects=yes --obj-stack-depth=1 || fail "tool run failed: $(head -3 "$T/d.rec.err")"
DEPTH1=1 check "$T/d.rec" \
	"heap fill_heap 4000 1 500 1000 4000 4000 24 1" \
	"heap make_many 163 200 0 200 0 800 55 1" || fail "object counters differ (--obj-stack-depth=1)"

# 4. Without --objects there are no obj records.
run "$T/n.rec" || fail "tool run failed: $(head -3 "$T/n.rec.err")"
! grep -q '^obj ' "$T/n.rec" || fail "obj records without --objects=yes"

# 5. Bad option values: one clear message naming the option, exit status 1, program not run.
bad() { # EXPECTED-TEXT OPTION...
	local want=$1; shift
	rm -f "$T/ran"
	VALGRIND_LIB=$vglib valgrind -q --tool=pagesleuth --out="$T/bad.rec" "$@" /usr/bin/touch "$T/ran" 2>"$T/bad.err"
	local rc=$?
	[ "$rc" = 1 ] || fail "$*: exit status $rc, expected 1"
	grep -qF -- "$want" "$T/bad.err" || fail "$*: message lacks '$want': $(head -3 "$T/bad.err")"
	[ ! -e "$T/ran" ] || fail "$*: the program ran"
	[ ! -e "$T/bad.rec" ] || fail "$*: a record file was written"
}
bad "Invalid boolean value 'maybe' (should be 'yes' or 'no')" --objects=maybe
bad "Bad option: --alloc-tree=sometimes" --alloc-tree=sometimes
bad "'--obj-stack-depth' argument must be between 1 and 256" --obj-stack-depth=0
bad "Invalid integer value 'two'" --obj-stack-depth=two
bad "Unknown option: --objects" --objects

echo "$name: ok (hand counts: heap 500 loads/1000 stores, globals garr/gcount/sink, 100-block merge, depth-1 merge, 5 bad options)"
