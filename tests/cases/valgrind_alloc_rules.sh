#!/usr/bin/env bash
# valgrind_alloc_rules.sh - rule-grouped allocation trees of the Valgrind tool (issue 7):
# tests/valgrind/alloc_groups.c allocates known sizes on a known timeline; a rules file puts
# them in groups net, net/tcp, net/udp, parse (and "other"); every group's current, peak (its
# share at the heap's peak), maximum, total bytes and blocks must be the hand-computed ones
# (the table in alloc_groups.c), the discard rule must drop the xmalloc wrapper from the tree,
# and malformed rules files and option mistakes must stop the run with one clear line.
# Uses the tool in $(dirname $PAGESLEUTH_FAST)/valgrind-lib (built here when absent).
set -uo pipefail
root=${PAGESLEUTH_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root" || exit 1
name=valgrind_alloc_rules
fail() { echo "$name: FAIL: $*"; exit 1; }
skip() { echo "$name: SKIP: $*"; exit 77; }

[ "$(uname -m)" = x86_64 ] || skip "the tool is built for amd64 only"
command -v valgrind >/dev/null || skip "valgrind not installed"
[ -f /usr/lib/x86_64-linux-gnu/valgrind/libcoregrind-amd64-linux.a ] || skip "no libcoregrind (valgrind package without tool archives)"

build=$(dirname "${PAGESLEUTH_FAST:-$root/build/pagesleuth}")
vglib=$build/valgrind-lib
prog=$build/tests/valgrind/alloc_groups
if [ ! -x "$vglib/pagesleuth-amd64-linux" ] || [ ! -x "$prog" ]; then
	# one build at a time: other valgrind_* cases may be building the same files
	mkdir -p "$build" && flock "$build/.valgrind-build.lock" make -s B="$build" valgrind-tool valgrind-tests >/dev/null ||
		fail "make valgrind-tool valgrind-tests failed"
fi

T=$(mktemp -d /tmp/$name.XXXXXX)
trap 'rm -rf "$T"' EXIT

run() { # OUT ARGS...: the tool on alloc_groups
	local out=$1; shift
	VALGRIND_LIB=$vglib valgrind -q --tool=pagesleuth --out="$out" "$@" "$prog" 2>"$out.err"
}

# The rules of docs/alloc-rules.md's worked example.
cat >"$T/rules" <<'RULES'
# drop the wrapper: the tree starts at xmalloc's caller
discard fn xmalloc

group net                # stacks through a net_* function ...
  prefix net_
group net/tcp            # ... and of those, the ones in tcp_*
  fn tcp_*
group net/udp
  fn udp_send
group parse
  fn parse_doc path alloc_groups.c   # both in one frame
RULES

# groups: FILE then "group cur peak max total blocks" ...; tree checks by TREE= lines
# "group fn total" (a first-level node of the group: the allocating function).
check() {
	python3 - "$@" <<'PY'
import os, sys, urllib.parse
rec = sys.argv[1]
allocs, frames = {}, {}
for line in open(rec):
    f = line.split()
    if not f or f[0] not in ("alloc", "frame"):
        continue
    kv = {k: urllib.parse.unquote(v) for k, v in (x.split("=", 1) for x in f[1:])}
    if f[0] == "frame":
        frames[kv["id"]] = kv
    else:
        if kv["parent"] != "-" and kv["parent"] not in allocs:
            print("  alloc %s: parent %s not defined before it" % (kv["id"], kv["parent"]))
            sys.exit(1)
        if kv["frame"] != "-" and kv["frame"] not in frames:
            print("  alloc %s: frame %s not defined before it" % (kv["id"], kv["frame"]))
            sys.exit(1)
        allocs[kv["id"]] = kv
groups = {a["group"]: a for a in allocs.values() if a["frame"] == "-"}
bad = 0
tops = [a for a in allocs.values() if a["parent"] == "-"]
specs = [s for s in sys.argv[2:] if not s.startswith("TREE ") and not s.startswith("PEAK ")]
if sorted(groups) != sorted(s.split()[0] for s in specs):
    print("  groups %s, expected %s" % (sorted(groups), sorted(s.split()[0] for s in specs))); bad += 1
for s in sys.argv[2:]:
    w = s.split()
    if w[0] == "PEAK":
        # the heap peak = the top-level groups' shares at that instant
        total = sum(int(a["peak"]) for a in tops)
        if total != int(w[1]):
            print("  top-level peaks add up to %d, expected the heap peak %s" % (total, w[1])); bad += 1
        continue
    if w[0] == "TREE":
        g, fn, total = w[1], w[2], w[3]
        gid = groups[g]["id"] if g in groups else None
        firsts = [a for a in allocs.values() if a["parent"] == gid and a["frame"] != "-"]
        hit = [a for a in firsts if frames[a["frame"]]["fn"] == fn and a["total"] == total]
        if not hit:
            print("  group %s: no first-level node %s with total=%s (have %s)" % (
                g, fn, total, [(frames[a["frame"]]["fn"], a["total"]) for a in firsts])); bad += 1
        continue
    g = groups.get(w[0])
    if not g:
        continue
    got = [g["cur"], g["peak"], g["max"], g["total"], g["blocks"]]
    if got != w[1:]:
        print("  group %s: cur peak max total blocks = %s, expected %s" % (w[0], " ".join(got), " ".join(w[1:]))); bad += 1
sys.exit(1 if bad else 0)
PY
}

# 1. The rules regroup the allocations; per group cur / peak / max / total / blocks.
run "$T/r.rec" --alloc-rules="$T/rules" || fail "tool run failed: $(head -3 "$T/r.rec.err")"
check "$T/r.rec" \
	"net 1500 1500 3000 3500 4" \
	"net/tcp 1000 1000 3000 3000 3" \
	"net/udp 500 500 500 500 1" \
	"parse 0 4000 4000 5000 2" \
	"other 500 0 500 500 2" \
	"PEAK 5500" \
	"TREE net/tcp tcp_connect 3000" \
	"TREE net/udp udp_send 500" \
	"TREE parse parse_doc 1000" \
	"TREE parse parse_doc 4000" \
	"TREE other main 200" \
	"TREE other tcp_stats 300" || fail "groups differ from the hand-computed table"

# 2. No rules: one group, every stack kept whole (xmalloc is the allocating function).
run "$T/n.rec" --alloc-tree=yes || fail "tool run failed: $(head -3 "$T/n.rec.err")"
check "$T/n.rec" "other 2000 5500 5500 9000 8" "PEAK 5500" \
	"TREE other xmalloc 4500" "TREE other udp_send 500" "TREE other parse_doc 4000" || fail "the rule-less tree differs"

# 3. --alloc-tree=no, and no heap option at all (the default: the program's own malloc),
# give no alloc records; --alloc-rules alone asks for the tree (case 1).
run "$T/off.rec" --alloc-tree=no || fail "tool run failed: $(head -3 "$T/off.rec.err")"
! grep -q '^alloc ' "$T/off.rec" || fail "alloc records with --alloc-tree=no"
run "$T/def.rec" || fail "tool run failed: $(head -3 "$T/def.rec.err")"
! grep -q '^alloc ' "$T/def.rec" || fail "alloc records without any heap option"

# 4. Heap objects (--objects=yes) follow the discard rules too: named after the wrapper's
# caller, at the line of its call (read from the source), and told apart by the trimmed
# stack; without rules the wrapper is the allocating function. With --obj-stack-depth=1
# the rules decide what merges: every xmalloc block is one object without them, and with
# them one object per calling line.
src=tests/valgrind/alloc_groups.c
line_of() { grep -n -- "$1" "$src" | head -1 | cut -d: -f1; } # first source line with TEXT
objs() { # FILE: "name line blocks" of the heap objects, sorted
	python3 - "$1" <<'PY'
import sys, urllib.parse
out = []
for line in open(sys.argv[1]):
    f = line.split()
    if f and f[0] == "obj":
        kv = {k: urllib.parse.unquote(v) for k, v in (x.split("=", 1) for x in f[1:])}
        if kv["kind"] == "heap":
            out.append("%s %s %s" % (kv["name"], kv["line"], kv["blocks"]))
print("; ".join(sorted(out)))
PY
}
tcp=$(line_of "tcp_blocks\[i\] = xmalloc") udp=$(line_of "udp_block = calloc") doc=$(line_of "doc = xmalloc")
re=$(line_of "realloc(doc") own=$(line_of "sink = xmalloc(200)") stats=$(line_of "return xmalloc(300)")
wrap=$(line_of "void \*p = malloc(n)")
printf 'discard fn xmalloc\n' >"$T/discard.rules"
want_rules="main $own 1; parse_doc $doc 1; parse_doc $re 1; tcp_connect $tcp 3; tcp_stats $stats 1; udp_send $udp 1"
want_plain="parse_doc $re 1; udp_send $udp 1; xmalloc $wrap 1; xmalloc $wrap 1; xmalloc $wrap 1; xmalloc $wrap 3"
run "$T/o1.rec" --objects=yes --obj-globals=no --alloc-rules="$T/discard.rules" || fail "tool run failed: $(head -3 "$T/o1.rec.err")"
[ "$(objs "$T/o1.rec")" = "$want_rules" ] || fail "objects with discard rules: $(objs "$T/o1.rec"), expected $want_rules"
run "$T/o2.rec" --objects=yes --obj-globals=no || fail "tool run failed: $(head -3 "$T/o2.rec.err")"
[ "$(objs "$T/o2.rec")" = "$want_plain" ] || fail "objects without rules: $(objs "$T/o2.rec"), expected $want_plain"
run "$T/o3.rec" --objects=yes --obj-globals=no --obj-stack-depth=1 --alloc-rules="$T/discard.rules" ||
	fail "tool run failed: $(head -3 "$T/o3.rec.err")"
[ "$(objs "$T/o3.rec")" = "$want_rules" ] || fail "objects with discard rules, depth 1: $(objs "$T/o3.rec"), expected $want_rules"
run "$T/o4.rec" --objects=yes --obj-globals=no --obj-stack-depth=1 || fail "tool run failed: $(head -3 "$T/o4.rec.err")"
want="parse_doc $re 1; udp_send $udp 1; xmalloc $wrap 6"
[ "$(objs "$T/o4.rec")" = "$want" ] || fail "objects without rules, depth 1: $(objs "$T/o4.rec"), expected $want"

# 5. Malformed rules files and option mistakes: the exact one-line message, exit 1, the
# program not run, no record file.
bad() { # EXPECTED-LINE OPTION...
	local want=$1; shift
	rm -f "$T/ran" "$T/bad.rec"
	VALGRIND_LIB=$vglib valgrind -q --tool=pagesleuth --out="$T/bad.rec" "$@" /usr/bin/touch "$T/ran" 2>"$T/bad.err"
	local rc=$?
	[ "$rc" = 1 ] || fail "$*: exit status $rc, expected 1"
	grep -qxF -- "$want" "$T/bad.err" || fail "$*: no line '$want' in: $(head -3 "$T/bad.err")"
	[ ! -e "$T/ran" ] || fail "$*: the program ran"
	[ ! -e "$T/bad.rec" ] && ! ls "$T"/bad.rec.tmp* >/dev/null 2>&1 || fail "$*: a record file was written"
}
badrules() { # CONTENT EXPECTED-REASON-WITH-LINE
	printf '%b' "$1" >"$T/bad.rules"
	bad "valgrind: $T/bad.rules:$2" --alloc-rules="$T/bad.rules"
}
badrules 'group a\n  fn x\nbogus y\n' "3: unknown keyword 'bogus' (expected discard, group, fn, prefix or path)"
badrules 'fn x\n' "1: rule 'fn' outside a group (start one with \`group NAME\`)"
badrules 'group a\n  fn\n' "2: 'fn' needs a value (a rule line is KIND VALUE [KIND VALUE ...])"
badrules 'discard function x\n' "1: expected \`discard fn|prefix|path VALUE\`"
badrules 'group net/tcp\n  fn tcp_*\n' "1: group 'net/tcp': its parent group 'net' must be defined before it"
badrules '# ok\ngroup a\n  fn x\ngroup a\n  fn y\n' "4: group 'a' is defined twice"
badrules 'group a\n  fn "x y\n' "2: unterminated quoted string"
badrules 'group a\ngroup b\n  fn x\n' "1: group 'a' has no rules and no subgroups"
badrules 'group a b\n' "1: expected \`group NAME\` (NAME like net or net/tcp)"
badrules 'group a\n  fn x\0\n' "2: NUL byte (not a text file)"
bad "valgrind: $T/none.rules: cannot open the rules file (no such file)" --alloc-rules="$T/none.rules"
bad "valgrind: $T: cannot read the rules file (a directory)" --alloc-rules="$T"
bad "valgrind: --alloc-rules needs a file name" --alloc-rules=
printf 'group a\n  fn x\n' >"$T/good.rules"
bad "valgrind: --alloc-rules needs the allocation tree: drop --alloc-tree=no" --alloc-rules="$T/good.rules" --alloc-tree=no
bad "valgrind: Invalid boolean value 'on' (should be 'yes' or 'no')" --alloc-tree=on

echo "$name: ok (5 groups exact incl. peak shares, discard, rule-less tree, objects named through discard rules, 15 malformed inputs)"
