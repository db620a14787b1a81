#!/usr/bin/env bash
# cli.sh - the command line behaves like the tools people know (git, perf, zstd):
#   - `pagesleuth --version`, `-V` and `version` print the version, exit 0;
#   - `pagesleuth help COMMAND` is COMMAND --help (exit 0), `help NOSUCH` is refused;
#   - a mistyped command is named with the most similar ones (git's "did you mean"), exit 2;
#   - records are never written to a terminal by accident: extract, snap and lackey with
#     standard output a terminal (script(1) gives them one) and no -o refuse with one line
#     (exit 2) and write nothing; `-o -` insists; a pipe gets the records as before;
#   - progress on a terminal only: extract with stderr a terminal shows "processes N/M" and
#     "frames N/M" on one self-erasing line and leaves the screen clean at the end, snap
#     --every counts its snapshots; with stderr a file, no carriage return is written; the
#     records are the same either way;
#   - report and diff --units: a bad name refused in one line; human, kib and pages text
#     within 100 columns and equal to the CSV's exact numbers; CSV and JSON unchanged by it.
set -uo pipefail
cd "${PAGESLEUTH_ROOT:-.}" || exit 1
. tests/cases/lib/fixtures.sh
P=$(readlink -f "${PAGESLEUTH:-build-asan/pagesleuth}")
[ -x "$P" ] || { echo "FAIL: no pagesleuth at $P"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/cli.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

v=$("$P" --version)
[ -n "$v" ] && [ "$("$P" -V)" = "$v" ] && [ "$("$P" version)" = "$v" ] || bad "version forms differ: '$v' '$("$P" -V)' '$("$P" version)'"
echo "cli: version: $v"
"$P" help wss >"$T/help.out" 2>&1 && "$P" wss --help >"$T/help2.out" 2>&1 && cmp -s "$T/help.out" "$T/help2.out" ||
	bad "help wss is not wss --help"
"$P" help nosuch >/dev/null 2>"$T/nosuch.err"; rc=$?
[ $rc -eq 2 ] && grep -q "'nosuch' is not a pagesleuth command" "$T/nosuch.err" || bad "help nosuch: exit $rc: $(head -1 "$T/nosuch.err")"
for typo in extrct:extract rpeort:report snp:snap rep:report; do
	"$P" "${typo%%:*}" >/dev/null 2>"$T/typo.err"; rc=$?
	[ $rc -eq 2 ] && grep -q "is not a pagesleuth command" "$T/typo.err" && grep -q "^	${typo#*:}$" "$T/typo.err" ||
		bad "typo ${typo%%:*}: exit $rc, expected 2 naming ${typo#*:}: $(tr '\n' '|' <"$T/typo.err")"
done
echo "cli: typos: extrct, rpeort, snp, rep: the intended command named"

# --units: a bad name is one line and exit 2; text in every convention fits 100 columns and
# says the numbers CSV holds (KiB exact, pages = KiB / 4 for these 4 KiB records, human
# within its rounding); CSV and JSON are the same whatever --units says.
for cmd in "report --units bogus tests/records/kinds.rec" \
	"diff -u furlongs tests/records/diff_a.rec tests/records/diff_b.rec"; do
	# shellcheck disable=SC2086
	"$P" $cmd >"$T/units.out" 2>"$T/units.err"; rc=$?
	[ $rc -eq 2 ] && [ ! -s "$T/units.out" ] && [ "$(wc -l <"$T/units.err")" -eq 1 ] &&
		grep -q -- "--units .*not one of human, kib, pages" "$T/units.err" ||
		bad "$cmd: exit $rc: $(head -c 200 "$T/units.err")"
done
for c in report diff; do
	"$P" $c --help | grep -q -- "-u, --units UNITS" || bad "$c --help does not describe --units"
done
tr=tests/cases/lib/textreport.py
ex=examples/debian12-live.rec.zst
for u in human kib pages; do
	"$P" report -u "$u" "$ex" >"$T/ex.$u" 2>/dev/null || bad "report -u $u $ex: exit $?"
	"$P" diff -u "$u" tests/records/diff_a.rec tests/records/diff_b.rec >"$T/diff.$u" || bad "diff -u $u: exit $?"
	for f in "$T/ex.$u" "$T/diff.$u"; do
		w=$(python3 "$tr" width "$f")
		[ "$w" -le 100 ] || bad "--units $u: $(basename "$f") has a line of $w columns"
	done
	"$P" report -u "$u" -f csv "$ex" >"$T/ex.$u.csv" 2>/dev/null
	"$P" report -u "$u" -f json "$ex" >"$T/ex.$u.json" 2>/dev/null
done
cmp -s "$T/ex.human.csv" "$T/ex.pages.csv" && cmp -s "$T/ex.kib.csv" "$T/ex.pages.csv" &&
	cmp -s "$T/ex.human.json" "$T/ex.pages.json" && cmp -s "$T/ex.kib.json" "$T/ex.pages.json" ||
	bad "CSV or JSON differ with --units"
n=0
while IFS=, read -r pid _ _ rss pss _ _; do
	[ "$pid" = pid ] && continue
	k=$(python3 "$tr" get "$T/ex.kib" 'PSS and USS per process' PID "$pid" RSS)
	pg=$(python3 "$tr" get "$T/ex.pages" 'PSS and USS per process' PID "$pid" RSS)
	ppss=$(python3 "$tr" get "$T/ex.pages" 'PSS and USS per process' PID "$pid" PSS)
	read -r hb htol <<<"$(python3 "$tr" human "$(python3 "$tr" get "$T/ex.human" 'PSS and USS per process' PID "$pid" RSS)")"
	[ "$k" = "$rss" ] && [ "$pg" = $((rss / 4)) ] &&
		awk -v p="$ppss" -v k="$pss" 'BEGIN { exit !(p * 4 == k) }' &&
		awk -v b="$hb" -v t="$htol" -v k="$rss" 'BEGIN { d = b - k * 1024; exit !(d <= t && d >= -t) }' ||
		bad "pid $pid: CSV rss $rss pss $pss KiB, text kib $k, pages $pg / $ppss, human $hb +- $htol bytes"
	n=$((n + 1))
done < <(awk '/^# table: pss$/ { t = 1; next } /^$/ { t = 0 } t' "$T/ex.kib.csv")
[ "$n" -gt 0 ] || bad "no pss rows in the example's CSV"
d=$(python3 "$tr" get "$T/diff.pages" 'Per-process change' PID 900 RSS_DELTA)
[ "$d" = 8 ] || bad "diff -u pages: grower's RSS_DELTA '$d', the CSV's 32 KiB is 8 pages"
echo "cli: --units: bad names refused; $n processes agree in kib, pages, human; text within 100 columns; CSV/JSON unchanged"

if command -v script >/dev/null; then
	d31=$(fx_dump x86_64 kdump-d31.kdump) || { bad "x86_64 kdump-d31 not available"; d31=; }
	printf 'I  04000000,4\n' >"$T/trace.lk"
	# on_tty NAME CMD...: CMD with a terminal as its standard output; its stdout+stderr in NAME.
	on_tty() { local name=$1; shift; (cd "$T" && script -qec "$(printf '%q ' "$@")" /dev/null) >"$T/$name.tty" 2>&1; }
	for c in "extract:extract $d31 -p 1" "snap:snap --pid $$" "lackey:lackey trace.lk"; do
		name=${c%%:*}
		# shellcheck disable=SC2086
		on_tty "$name" "$P" ${c#*:}
		rc=$?
		lines=$(tr -d '\r' <"$T/$name.tty" | grep -c .)
		[ $rc -eq 2 ] && [ "$lines" -eq 1 ] && grep -q "not writing records to a terminal" "$T/$name.tty" ||
			bad "$name on a terminal: exit $rc, $lines lines: $(head -c 300 "$T/$name.tty")"
		# shellcheck disable=SC2086
		on_tty "$name-insist" "$P" ${c#*:} -o -
		grep -q "^pagesleuth-records " "$T/$name-insist.tty" || bad "$name -o - on a terminal: no records"
		# shellcheck disable=SC2086
		(cd "$T" && "$P" ${c#*:}) 2>/dev/null | cat >"$T/$name.piped"
		[ "$(head -1 "$T/$name.piped" | cut -d' ' -f1)" = pagesleuth-records ] || bad "$name into a pipe: no records"
	done
	echo "cli: extract, snap, lackey on a terminal: refused without -o, written with -o -, piped as before"
	if [ -n "$d31" ]; then
		PAGESLEUTH_PROGRESS_DELAY=0 on_tty progress "$P" extract "$d31" -o tty.rec
		"$P" extract "$d31" -o "$T/file.rec" 2>"$T/file.err"
		grep -q $'\rpagesleuth extract: processes [0-9]*/[0-9]* ([0-9]*%)\e\[K' "$T/progress.tty" &&
			grep -q $'\rpagesleuth extract: frames [0-9]*/[0-9]* ([0-9]*%)\e\[K' "$T/progress.tty" ||
			bad "extract on a terminal: no progress line: $(head -c 200 "$T/progress.tty" | cat -v)"
		[ "$(tail -c 4 "$T/progress.tty" | od -An -c | tr -d ' ')" = '\r033[K' ] ||
			bad "extract on a terminal: the progress line is not erased at the end: $(tail -c 60 "$T/progress.tty" | cat -v)"
		grep -q $'\r' "$T/file.err" && bad "extract with stderr a file: progress written there: $(head -c 200 "$T/file.err" | cat -v)"
		cmp -s "$T/tty.rec" "$T/file.rec" || bad "extract: the records differ with stderr a terminal"
		on_tty every "$P" snap --pid $$ --every 0.2 --count 2 -o every.rec
		grep -q $'\rpagesleuth snap: snapshot 1/2 written, next in' "$T/every.tty" ||
			bad "snap --every on a terminal: no round counter: $(head -c 200 "$T/every.tty" | cat -v)"
		echo "cli: progress lines on a terminal only, erased at the end; records unchanged"
	fi
else
	echo "cli: NOTE: no script(1): the terminal checks were not run"
fi
[ $fail -eq 0 ] && echo "cli: OK"
exit $fail
