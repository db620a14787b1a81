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
#     records are the same either way.
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
