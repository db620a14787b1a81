#!/usr/bin/env bash
# install.sh - pagesleuth installs like a real tool (mk/install.mk, scripts/help2man.py):
#   - `make install DESTDIR=$T/root PREFIX=/usr` installs the already-built binary (nothing is
#     compiled), which runs from there (--version, help extract);
#   - every command `pagesleuth --help` lists has a man page that man and groff render
#     without a warning, and it names every long option the command's --help names: man
#     pages and --help are one source, so a help text changed without its man page fails here;
#   - the bash completion completes commands (ext -> extract), options (extract --vml ->
#     --vmlinux; db check --max-g -> --max-growth), the options of every command's option
#     lines, the values of report/diff --units and of -f, and file names;
#   - the installed `pagesleuth valgrind` finds the installed Valgrind tool relative to its own
#     file, and a pagesleuth without the tool says in one line how to build it;
#   - the crash extension and the documents the man pages name are installed;
#   - `make uninstall` with the same DESTDIR and PREFIX leaves no file behind.
set -uo pipefail
cd "${PAGESLEUTH_ROOT:-.}" || exit 1
root=$PWD
# The normal build is what gets installed (PAGESLEUTH is the sanitized one in the suite).
P=$(readlink -f "${PAGESLEUTH_FAST:-${PAGESLEUTH:-build/pagesleuth}}")
[ -x "$P" ] || { echo "FAIL: no pagesleuth at $P"; exit 1; }
for tool in make install python3 groff man; do
	command -v "$tool" >/dev/null ||
		{ echo "install: SKIP: no $tool here (make deps installs man-db and groff-base)"; exit 77; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/install.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
D=$T/root
# INSTALL_BIN: the built binary, by a name no rule makes (nothing is rebuilt, whatever the
# sources' times); INSTALL_GEN: the generated man pages and completion, here, not in build/.
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C "$root" INSTALL_BIN="$P" INSTALL_GEN="$T/gen" DESTDIR="$D" PREFIX=/usr "$@"; }

if ! mk install >"$T/install.log" 2>&1; then
	echo "FAIL: make install:"; tail -20 "$T/install.log"; exit 1
fi
grep -Eq '^(gcc|cc|clang|ar) ' "$T/install.log" && bad "make install compiled something: $(grep -E '^(gcc|cc|clang|ar) ' "$T/install.log" | head -2)"
I=$D/usr/bin/pagesleuth
[ -x "$I" ] && cmp -s "$I" "$P" || { echo "FAIL: $I is not $P"; exit 1; }
v=$("$I" --version) && [ "$v" = "$("$P" --version)" ] || bad "installed --version: '$v'"
"$I" help extract | grep -q "^usage: pagesleuth extract" || bad "installed 'help extract'"
echo "install: installed $(find "$D" ! -type d | wc -l) files; $v"

# ---- man pages: one per command, rendered without warnings, every long option of --help ----
mapfile -t cmds < <("$P" --help | awk '/^commands:/ { f = 1; next } f && /^  [a-z]/ { print $1 } f && /^$/ { exit }')
[ ${#cmds[@]} -ge 5 ] || bad "pagesleuth --help lists ${#cmds[@]} commands: ${cmds[*]}"
M=$D/usr/share/man/man1
checked=0
for c in "" "${cmds[@]}"; do
	page=pagesleuth${c:+-$c}
	f=$M/$page.1
	[ -f "$f" ] || { bad "no man page $page.1"; continue; }
	groff -man -Tutf8 -ww -z "$f" >"$T/groff.err" 2>&1
	[ -s "$T/groff.err" ] && bad "$page.1: groff -ww: $(head -3 "$T/groff.err")"
	MANWIDTH=80 man -l "$f" >"$T/$page.txt" 2>"$T/man.err"
	[ -s "$T/man.err" ] && bad "$page.1: man -l: $(head -3 "$T/man.err")"
	# hyphen (U+2010) and minus (U+2212) as the ASCII the help prints
	sed -i 's/\xe2\x80\x90/-/g; s/\xe2\x88\x92/-/g' "$T/$page.txt"
	grep -q "^NAME" "$T/$page.txt" && grep -q "^       $page - " "$T/$page.txt" || bad "$page.1: no NAME '$page - '"
	grep -q "^SYNOPSIS" "$T/$page.txt" || bad "$page.1: no SYNOPSIS"
	# shellcheck disable=SC2086
	"$P" $c --help >"$T/$page.help" || bad "pagesleuth $c --help failed"
	for o in $(grep -o -- '--[a-z][a-z0-9-]*' "$T/$page.help" | sort -u); do
		grep -Eq -- "(^|[^a-z0-9-])$o([^a-z0-9-]|\$)" "$T/$page.txt" || bad "$page.1 lacks $o, which '$page --help' names"
		checked=$((checked + 1))
	done
	grep -q "^EXIT STATUS" "$T/$page.txt" || ! grep -q "^Exit status:" "$T/$page.help" || bad "$page.1: no EXIT STATUS"
	# the documents SEE ALSO names are where it says
	for doc in $(grep -o '/usr/share/doc/pagesleuth/[^ ]*\.md' "$T/$page.txt" | sort -u); do
		[ -f "$D$doc" ] || bad "$page.1 names $doc, not installed"
	done
done
for c in "${cmds[@]}"; do
	grep -Eq "^       $c( |$)" "$T/pagesleuth.txt" || bad "pagesleuth.1 does not list $c"
done
MANPATH=$D/usr/share/man man -w pagesleuth-extract >/dev/null 2>&1 || bad "man -w pagesleuth-extract with MANPATH=$D/usr/share/man"
echo "install: ${#cmds[@]} commands + pagesleuth(1): man pages render without warnings; $checked long options of --help all in them"

# ---- bash completion ------------------------------------------------------------------------
C=$D/usr/share/bash-completion/completions/pagesleuth
[ -f "$C" ] || { bad "no completion at $C"; C=/dev/null; }
touch "$T/dump-one.vmcore"
# complete WORD...: what _pagesleuth offers for the last WORD (the cursor at its end).
complete_words() {
	bash --norc --noprofile -c '. "$1" || exit 1; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_pagesleuth; printf "%s\n" "${COMPREPLY[@]}"' complete "$C" pagesleuth "$@" 2>&1
}
expect() { # WORDS... = EXPECTED (the offers, sorted, space-separated)
	local words=() got
	while [ "$1" != "=" ]; do words+=("$1"); shift; done
	shift
	got=$(complete_words "${words[@]}" | sort | tr '\n' ' ' | sed 's/ $//')
	[ "$got" = "$*" ] || bad "completion of 'pagesleuth ${words[*]}': '$got', expected '$*'"
}
expect ext = extract
expect extract --vml = --vmlinux
expect extract --vm = --vmas-only --vmlinux
expect help rep = report
expect db ch = check
expect db check --max-g = --max-growth
expect valgrind --ou = --out=
expect report --units "" = human kib pages
expect diff -u k = kib
expect db ls -f c = csv
expect report "$T/dump-o" = "$T/dump-one.vmcore"
expect extract "$T/dump-one.vmcore" -p 1 --vmlinux "$T/dump-" = "$T/dump-one.vmcore"
# every long option of each command's option lines ("  -o, --output FILE  ...") is offered
for c in "${cmds[@]}"; do
	offered=" $(complete_words "$c" -- | tr '\n' ' ') "
	[[ $c == valgrind ]] && offered=${offered//=/}
	for o in $("$P" "$c" --help | sed -nE 's/^ {1,8}(-[A-Za-z0-9], )?(--[a-z][a-z0-9-]*).*/\2/p' | sort -u); do
		[[ $offered == *" $o "* ]] || bad "completion of 'pagesleuth $c --' lacks $o"
	done
done
echo "install: completion: commands, options (every command's option lines), file names"

# ---- the Valgrind tool, found relative to the installed binary ------------------------------
VL=$D/usr/libexec/pagesleuth/valgrind-lib
if [ -x "$root/build/valgrind-lib/pagesleuth-amd64-linux" ]; then
	[ -x "$VL/pagesleuth-amd64-linux" ] && [ -f "$VL/vgpreload_pagesleuth-amd64-linux.so" ] &&
		[ -e "$VL/vgpreload_core-amd64-linux.so" ] || bad "the Valgrind tool not installed in $VL"
	if command -v valgrind >/dev/null; then
		(cd "$T" && env -u PAGESLEUTH_VALGRIND_LIB "$I" valgrind -o "$T/true.rec" -- /bin/true) >"$T/vg.out" 2>&1 ||
			bad "installed pagesleuth valgrind: $(head -3 "$T/vg.out")"
		grep -q "^header source=valgrind " "$T/true.rec" 2>/dev/null || bad "installed pagesleuth valgrind wrote no trace records"
		echo "install: the installed pagesleuth valgrind runs the installed tool ($VL)"
	else
		echo "install: NOTE: no valgrind here: the installed tool was not run"
	fi
else
	grep -q "Valgrind tool is not built.*make valgrind-tool" "$T/install.log" || bad "make install did not say the Valgrind tool is not built"
	echo "install: NOTE: the Valgrind tool is not built (make valgrind-tool): its installation was not checked"
fi
mkdir -p "$T/alone/bin" && cp "$P" "$T/alone/bin/pagesleuth"
env -u PAGESLEUTH_VALGRIND_LIB "$T/alone/bin/pagesleuth" valgrind -- /bin/true >"$T/alone.out" 2>&1; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$T/alone.out")" -eq 1 ] && grep -q "not built.*make valgrind-tool" "$T/alone.out" ||
	bad "pagesleuth valgrind without the tool: exit $rc, $(head -3 "$T/alone.out")"
echo "install: without the tool: $(cat "$T/alone.out")"

# ---- the crash extension, the documents ------------------------------------------------------
if grep -q "^install: the crash extension for crash " "$T/install.log"; then
	ver=$(sed -n 's/^install: the crash extension for crash \([^ ]*\) .*/\1/p' "$T/install.log")
	so=$D/usr/lib/pagesleuth/pagesleuth.so
	[ -f "$so" ] && for b in "$root"/build/crash-ext/"$ver"-*/pagesleuth.so; do cmp -s "$b" "$so" && break; done ||
		bad "$so is not build/crash-ext/$ver-*/pagesleuth.so"
	echo "install: the crash extension for crash $ver: /usr/lib/pagesleuth/pagesleuth.so"
else
	grep -q "crash extension .* not built.*make crash-ext" "$T/install.log" || bad "make install did not say the crash extension is not built"
	echo "install: NOTE: the crash extension is not built (make crash-ext)"
fi
[ -f "$D/usr/share/doc/pagesleuth/README.md" ] &&
	[ "$(ls "$D/usr/share/doc/pagesleuth/docs" | wc -l)" -eq "$(ls "$root"/docs/*.md | wc -l)" ] ||
	bad "the documents are not all in /usr/share/doc/pagesleuth"

# ---- uninstall --------------------------------------------------------------------------------
mk uninstall >"$T/uninstall.log" 2>&1 || bad "make uninstall: $(tail -3 "$T/uninstall.log")"
left=$(find "$D" ! -type d)
[ -z "$left" ] || bad "make uninstall left $(echo "$left" | wc -l) files: $(echo "$left" | head -5 | tr '\n' ' ')"
echo "install: make uninstall: no file left"

[ $fail -eq 0 ] && echo "install: OK"
exit $fail
