#!/usr/bin/env bash
# evidence.sh - no command writes over one of its inputs. For every command that takes files
# (extract, report, diff, profile, lackey, valgrind, db), an output naming an input (directly,
# through a symbolic link, through a hard link), or two outputs naming one file, is refused:
# exit 2, one line on stderr that names the file, nothing written, the input byte-identical
# (sha256 before and after), no *.tmp.* file left. The same outputs at other paths work, and
# /dev/null as an output is written to, never replaced (it stays a character device). A run
# killed by SIGTERM or SIGHUP while writing leaves no temporary file.
# Inputs: a copy of the x86_64 fixture's makedumpfile -c -d 31 kdump (16 MB), its BTF, the
# records extract writes from it, a Lackey trace line, a copy of /bin/true.
# Run from the repository root (tests/run.sh does); ASan binary when $PAGESLEUTH says so.
set -uo pipefail
cd "${PAGESLEUTH_ROOT:-.}" || exit 1
. tests/cases/lib/fixtures.sh
P=$(readlink -f "${PAGESLEUTH:-build-asan/pagesleuth}")
[ -x "$P" ] || { echo "FAIL: no pagesleuth at $P"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/evidence.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0 n=0
bad() { echo "FAIL: $*"; fail=1; }

d31=$(fx_dump x86_64 kdump-d31.kdump) || { echo "FAIL: x86_64 kdump-d31 not available"; exit 1; }
btf=$(fx_btf x86_64) || { echo "FAIL: x86_64 BTF not available"; exit 1; }
cp "$d31" "$T/vmcore" && cp "$btf" "$T/vmlinux.btf" && cp /bin/true "$T/prog" || exit 1
ln -s vmcore "$T/vmcore.link"
ln "$T/vmcore" "$T/vmcore.hard"
"$P" extract "$T/vmcore" -p 1 -o "$T/a.rec" 2>/dev/null && cp "$T/a.rec" "$T/b.rec" ||
	{ echo "FAIL: extract of the copy did not work"; exit 1; }
ln -s a.rec "$T/a.link"
printf 'I  04000000,4\n S 04001000,8\n' >"$T/trace.lk"
sums() { (cd "$T" && sha256sum vmcore vmlinux.btf a.rec b.rec trace.lk prog); }
before=$(sums)

# refused NAME FILE-NAMED -- ARGS...: exit 2, one stderr line naming FILE-NAMED, inputs intact.
refused() {
	local name=$1 named=$2
	shift 3
	n=$((n + 1))
	(cd "$T" && "$P" "$@") >"$T/$name.out" 2>"$T/$name.err"
	local rc=$? lines
	lines=$(grep -c . "$T/$name.err")
	if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q -- "$named" "$T/$name.err"; then
		bad "$name: exit $rc, $lines stderr lines, expected 2 and one naming $named: $(head -3 "$T/$name.err")"
	else
		echo "  $name: $(cat "$T/$name.err")"
	fi
	fx_sanitizer_report "$T/$name.err" && bad "$name: sanitizer report"
	[ "$(sums)" = "$before" ] || { bad "$name: an input changed"; before=$(sums); }
	ls "$T" | grep -q '\.tmp\.' && { bad "$name: a temporary file was left: $(ls "$T" | grep '\.tmp\.')"; rm -f "$T"/*.tmp.*; }
}

echo "== extract"
refused extract-o vmcore -- extract vmcore -o vmcore
refused extract-trace vmcore -- extract vmcore -p 1 --trace vmcore -o x.rec
refused extract-symlink vmcore.link -- extract vmcore -o vmcore.link
refused extract-hardlink vmcore.hard -- extract vmcore -o vmcore.hard
refused extract-btf vmlinux.btf -- extract vmcore --btf vmlinux.btf -o vmlinux.btf
refused extract-same-twice x.rec -- extract vmcore -p 1 --trace x.rec -o x.rec
echo "== report, diff"
refused report-o a.rec -- report a.rec -o a.rec
refused report-html-through-link a.rec -- report a.link --html a.rec
refused report-same-twice out.txt -- report a.rec -o out.txt --html out.txt
refused diff-o-a a.rec -- diff -o a.rec a.rec b.rec
refused diff-o-b b.rec -- diff -o b.rec a.rec b.rec
refused diff-html-a a.rec -- diff --html a.rec a.rec b.rec
echo "== profile, lackey, valgrind"
refused profile-o vmlinux.btf -- profile --btf vmlinux.btf -o vmlinux.btf
refused lackey-o trace.lk -- lackey -o trace.lk trace.lk
refused valgrind-prog prog -- valgrind -o prog -- ./prog
refused valgrind-arg trace.lk -- valgrind -o trace.lk -- ./prog trace.lk

echo "== the same commands with other outputs"
ok() { # NAME -- ARGS...
	local name=$1
	shift 2
	n=$((n + 1))
	(cd "$T" && "$P" "$@") >"$T/$name.out" 2>"$T/$name.err" ||
		bad "$name: exit $?: $(head -2 "$T/$name.err")"
	[ "$(sums)" = "$before" ] || { bad "$name: an input changed"; before=$(sums); }
}
ok extract-elsewhere -- extract vmcore -p 1 --trace t.txt -o c.rec
ok report-elsewhere -- report a.link -o r.txt --html r.html
ok diff-elsewhere -- diff -o d.txt a.rec b.rec
ok profile-elsewhere -- profile --btf vmlinux.btf -o p.profile
ok lackey-elsewhere -- lackey -o l.rec trace.lk
[ -s "$T/c.rec" ] && [ -s "$T/t.txt" ] && [ -s "$T/r.html" ] && [ -s "$T/d.txt" ] && [ -s "$T/l.rec" ] ||
	bad "an output is missing or empty"
if [ -c /dev/null ]; then
	ok extract-dev-null -- extract vmcore -p 1 -o /dev/null
	ok report-dev-null -- report a.rec -o /dev/null
	[ -c /dev/null ] || bad "/dev/null is no longer a character device"
fi
echo "== db"
refused db-import-input a.rec -- db import --db a.rec a.rec
refused db-import-input-link a.link -- db import --db a.link b.rec a.rec
ok db-import -- db import -q --db x.db a.rec
refused db-ls-o-database x.db -- db ls --db x.db -o x.db
refused db-trend-html-database x.db -- db trend --db x.db --html x.db
refused db-same-twice t.out -- db ls --db x.db -o t.out --html t.out
ok db-ls-after -- db ls --db x.db -f csv -o ls.csv
grep -q ',complete,' "$T/ls.csv" || bad "db: the database lost its snapshot"
if [ -c /dev/null ]; then
	ok db-ls-dev-null -- db ls --db x.db -o /dev/null
	[ -c /dev/null ] || bad "/dev/null is no longer a character device"
fi
# A run killed while it writes leaves nothing behind: lackey reading a trace from a pipe that
# stays open has its output's temporary file open; SIGTERM (and SIGHUP) must remove it and
# the process must die of the signal (issue 20: o.rec.tmp.* was left beside the output).
for sig in TERM HUP; do
	n=$((n + 1))
	rm -f "$T"/killed.rec*
	mkfifo "$T/slow.fifo"
	"$P" lackey -o "$T/killed.rec" "$T/slow.fifo" 2>"$T/killed.err" &
	pid=$!
	exec 7>"$T/slow.fifo"
	printf 'I  04000000,4\n' >&7
	for _ in $(seq 200); do compgen -G "$T/killed.rec.tmp.*" >/dev/null && break; sleep 0.02; done
	compgen -G "$T/killed.rec.tmp.*" >/dev/null || bad "SIG$sig: lackey never opened its output"
	kill -$sig $pid
	wait $pid
	rc=$?
	exec 7>&-
	rm -f "$T/slow.fifo"
	[ $rc -eq $((128 + $(kill -l $sig))) ] || bad "SIG$sig: lackey exited $rc, expected death by the signal"
	compgen -G "$T/killed.rec*" >/dev/null && bad "SIG$sig: left $(ls "$T" | grep killed.rec)"
	echo "  SIG$sig while writing: exit $rc, nothing left"
done
echo "evidence: $n runs"
[ $fail -eq 0 ] && echo "evidence: OK"
exit $fail
