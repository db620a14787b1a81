#!/usr/bin/env python3
"""help2man.py - pagesleuth's man pages and bash completion from its own --help.

One source: what `pagesleuth --help` and `pagesleuth CMD --help` print is what the man pages
say and what the completion offers, so they cannot disagree (tests/cases/install.sh checks
that every long option of every --help is in the man page).

  help2man.py man [--docdir DIR] [-o OUTDIR] BINARY
      pagesleuth.1 and pagesleuth-CMD.1 for every command `BINARY --help` lists
  help2man.py completion [--template FILE] [-o FILE] BINARY
      the bash completion: FILE.in's @DATA@ replaced by the commands and each command's
      options

The help texts are plain text laid out the way the commands print them; what is read:
  - "usage: pagesleuth ..." and its continuation lines (indented; a line starting with
    "pagesleuth" is another form): SYNOPSIS
  - paragraphs separated by blank lines; an indented line under a paragraph is literal
    (an example command line)
  - entries "  TERM  description" (TERM an option, a word or a metavariable; the
    description continues on deeper-indented lines; a deeper entry nests): .TP lists.
    A list holding options goes to OPTIONS, others stay where they are
  - a short heading line "word(s):" or "word(s) (remark):" before a list: a section
    (ANALYSES, COMMANDS) or, for options, a subsection
  - "Exit status: ...": EXIT STATUS
Python 3 standard library only.
"""
import argparse
import datetime
import os
import re
import subprocess
import sys

PROG = "pagesleuth"
# Manual pages of other programs a help text may name (by the word), for SEE ALSO.
EXTERNAL = [("valgrind", "valgrind(1)"), ("dmesg", "dmesg(1)"),
            ("makedumpfile", "makedumpfile(8)"), ("crash", "crash(8)")]


def die(msg):
    sys.stderr.write("help2man.py: %s\n" % msg)
    sys.exit(1)


def run_help(binary, *args):
    cmd = [binary] + list(args) + ["--help"]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, check=False)
    except OSError as e:
        die("cannot run %s: %s" % (binary, e))
    if p.returncode != 0 or not p.stdout.strip():
        die("`%s` exited %d%s" % (" ".join(cmd), p.returncode,
                                  (": " + p.stderr.strip().splitlines()[0]) if p.stderr.strip() else ""))
    return p.stdout


def version(binary):
    p = subprocess.run([binary, "--version"], stdout=subprocess.PIPE, universal_newlines=True,
                       check=False)
    v = p.stdout.strip().splitlines()
    # "pagesleuth 0.1 (record format 1.2)": the page footer has room for "pagesleuth 0.1"
    return re.sub(r"\s*\(.*", "", v[0]) if p.returncode == 0 and v else PROG


def man_date():
    """SOURCE_DATE_EPOCH (reproducible builds), else the last commit's date, else today."""
    sde = os.environ.get("SOURCE_DATE_EPOCH")
    if sde and sde.isdigit():
        return datetime.datetime.fromtimestamp(int(sde), datetime.timezone.utc).strftime("%Y-%m-%d")
    try:
        p = subprocess.run(["git", "log", "-1", "--format=%cs"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, universal_newlines=True, check=False,
                           cwd=os.path.dirname(os.path.abspath(__file__)))
        if p.returncode == 0 and re.match(r"^\d{4}-\d\d-\d\d$", p.stdout.strip()):
            return p.stdout.strip()
    except OSError:
        pass
    return datetime.date.today().isoformat()


# ---- parsing ---------------------------------------------------------------------------

class Entry:
    def __init__(self, indent, term, desc, desc_col):
        self.indent, self.term, self.desc, self.desc_col = indent, term, desc, desc_col
        self.children = []

    def has_option(self):
        return self.term.startswith("-") or any(c.has_option() for c in self.children)


class Para:
    def __init__(self, literal=False, exit_status=False):
        self.lines, self.literal, self.exit_status = [], literal, exit_status


class Block:
    def __init__(self):
        self.items, self.heading = [], None

    def has_options(self):
        return any(isinstance(i, Entry) and i.has_option() for i in self.items)


class Help:
    def __init__(self, synopsis, blocks):
        self.synopsis, self.blocks = synopsis, blocks


def indent_of(line):
    return len(line) - len(line.lstrip(" "))


ENTRY_RE = re.compile(r"^( *)(\S.*?)( {2,})(\S.*)$")


def entry_split(line, desc_col):
    """(indent, term, description, description column) if LINE starts a list entry."""
    ind = indent_of(line)
    if ind > 12:
        return None
    m = ENTRY_RE.match(line)
    if m:
        term = m.group(2)
        ok = (re.match(r"^[a-z][\w-]*$", term) if ind == 0 else
              term.startswith("-") or " " not in term)
        if ok:
            return ind, term, m.group(4), m.start(4)
    # a term reaching the list's description column with one space ("--system-map FILE
    # take ...", "valgrind run ...")
    if desc_col and 0 < ind <= 8 and len(line) > desc_col and line[desc_col - 1] == " " \
            and line[desc_col] != " " and line[desc_col - 2] != " ":
        term = line[ind:desc_col - 1]
        if (term.startswith("-") and "  " not in term) or " " not in term:
            return ind, term, line[desc_col:], desc_col
    return None


def term_alone(line, nxt):
    """A term alone on its line ("--sort COL[:asc|:desc]", a sub-list's "total:"), its
    description or entries on the deeper-indented lines below."""
    ind, s = indent_of(line), line.strip()
    if 0 < ind <= 8 and (s.startswith("-") or s.endswith(":")) and "  " not in s \
            and nxt.strip() and indent_of(nxt) > ind:
        return ind, s, None, None
    return None


def parse_help(text):
    lines = [l.rstrip() for l in text.expandtabs(8).rstrip("\n").split("\n")]
    synopsis, i = [], 0
    if lines and lines[0].startswith("usage: "):
        synopsis.append(lines[0][len("usage: "):].strip())
        i = 1
        while i < len(lines) and lines[i].startswith(" ") and lines[i].strip():
            s = lines[i].strip()
            if s.startswith(PROG + " ") or s == PROG:
                synopsis.append(s)
            else:
                synopsis[-1] += " " + s
            i += 1
    raw_blocks, cur = [], []
    for line in lines[i:]:
        if line.strip():
            cur.append(line)
        elif cur:
            raw_blocks.append(cur)
            cur = []
    if cur:
        raw_blocks.append(cur)
    return Help(synopsis, [parse_block(b) for b in raw_blocks])


def parse_block(lines):
    blk = Block()
    stack = []          # open entries, outermost first
    desc_col = None     # the description column of the block's entries
    para = None
    for n, line in enumerate(lines):
        ind = indent_of(line)
        top = stack[-1] if stack else None
        nxt = lines[n + 1] if n + 1 < len(lines) else ""
        e = None
        if not (top and top.desc_col is not None and ind >= top.desc_col):
            e = entry_split(line, desc_col) or term_alone(line, nxt)
        if top and ind > top.indent and not e:
            # the open entry's description goes on
            if top.desc_col is None:
                top.desc_col = ind
            top.desc.append(line.strip())
            continue
        if e:
            ind, term, desc, col = e
            if desc is not None and ind > 0:
                desc_col = desc_col or col
            entry = Entry(ind, term, [desc] if desc is not None else [], col)
            # entries nest only under a sub-list's "heading:" term
            while stack and (stack[-1].indent >= ind or not stack[-1].term.endswith(":")):
                stack.pop()
            (stack[-1].children if stack else blk.items).append(entry)
            stack.append(entry)
            para = None
            continue
        stack = []
        if ind == 0:
            exit_line = line.startswith("Exit status:")
            if para is None or para.literal or exit_line:
                para = Para(exit_status=exit_line)
                blk.items.append(para)
            para.lines.append(line)
        else:
            if para is None or not para.literal:
                para = Para(literal=True)
                blk.items.append(para)
            para.lines.append(line)
    # a leading "heading:" (or "heading (remark):") paragraph followed by a list
    if len(blk.items) >= 2 and isinstance(blk.items[0], Para) and not blk.items[0].literal \
            and not blk.items[0].exit_status and isinstance(blk.items[1], Entry):
        text = " ".join(blk.items[0].lines)
        m = re.match(r"^([A-Za-z][\w -]*?)\s*(?:\((.*)\))?:$", text, re.S)
        if m and len(m.group(1).split()) <= 4:
            blk.heading = m.group(1)
            if m.group(2):
                blk.items[0].lines = [m.group(2)[0].upper() + m.group(2)[1:] + "."]
            else:
                blk.items.pop(0)
    return blk


# ---- groff -----------------------------------------------------------------------------

def esc(s):
    """Text for groff: backslashes, hyphen-minus (options and paths copy and paste as typed),
    non-ASCII characters."""
    out = []
    for c in s:
        if c == "\\":
            out.append("\\e")
        elif c == "-":
            out.append("\\-")
        elif ord(c) > 126:
            out.append("\\[u%04X]" % ord(c))
        else:
            out.append(c)
    return "".join(out)


def text_line(s):
    s = esc(s)
    return "\\&" + s if s[:1] in (".", "'") else s


def fmt_term(s):
    """An option term or a synopsis: options bold, METAVARS italic, the rest roman."""
    out, pos = [], 0
    for m in re.finditer(r"(?<![\w-])(--?[A-Za-z0-9][\w-]*)|(?<![\w-])([A-Z][A-Z0-9_]*)(?![\w-])", s):
        out.append(esc(s[pos:m.start()]))
        if m.group(1):
            out.append("\\fB%s\\fR" % esc(m.group(1)))
        else:
            out.append("\\fI%s\\fR" % esc(m.group(2)))
        pos = m.end()
    out.append(esc(s[pos:]))
    t = "".join(out)
    return "\\&" + t if t[:1] in (".", "'") else t


def quote_arg(s):
    return '"%s"' % esc(s).replace('"', "\\(dq")


def render_entries(entries, out):
    for e in entries:
        out.append(".TP")
        # options and METAVARS as in a synopsis; a name (an analysis, a subcommand) bold
        out.append(fmt_term(e.term) if not re.match(r"^[a-z][\w-]*:?$", e.term) else
                   "\\fB%s\\fR%s" % (esc(e.term.rstrip(":")), ":" if e.term.endswith(":") else ""))
        if e.desc:
            out.extend(text_line(d) for d in e.desc)
        if e.children:
            if not e.desc:
                out.append(".br")
            out.append(".RS")
            render_entries(e.children, out)
            out.append(".RE")


def render_items(items, out):
    """Paragraphs, literal lines and entry lists, in order."""
    pending = []
    for it in items + [None]:
        if isinstance(it, Entry):
            pending.append(it)
            continue
        if pending:
            render_entries(pending, out)
            pending = []
        if it is None:
            break
        out.append(".PP")
        if it.literal:
            base = min(indent_of(l) for l in it.lines)
            out.append(".RS 4")
            out.append(".nf")
            out.extend(text_line(l[base:]) for l in it.lines)
            out.append(".fi")
            out.append(".RE")
        else:
            out.extend(text_line(l.strip()) for l in it.lines)


def synopsis_lines(synopsis):
    out = []
    for s in synopsis:
        words = s.split()
        k = 0
        while k < len(words) and re.match(r"^[a-z][\w-]*$", words[k]):
            k += 1
        k = max(k, 1)
        out.append(".SY %s" % quote_arg(" ".join(words[:k])))
        if words[k:]:
            # an optional part breaks across lines only as a whole: "[-t K=V]"
            rest, depth, chars = " ".join(words[k:]), 0, []
            for ch in rest:
                depth += (ch == "[") - (ch == "]")
                chars.append("\x00" if ch == " " and depth > 0 else ch)
            out.append(fmt_term("".join(chars)).replace("\x00", "\\~"))
        out.append(".YS")
    return out


def all_text(h):
    parts = list(h.synopsis)

    def walk(items):
        for it in items:
            if isinstance(it, Entry):
                parts.append(it.term)
                parts.extend(it.desc)
                walk(it.children)
            else:
                parts.extend(it.lines)
    for b in h.blocks:
        if b.heading:
            parts.append(b.heading)
        walk(b.items)
    return "\n".join(parts)


def man_page(name, summary, h, commands, cmd, docdir, ver, date):
    out = ['.\\" Generated by scripts/help2man.py from `%s --help`: edit that text, not this '
           'file.' % " ".join([PROG] + ([cmd] if cmd else [])),
           ".nr HY 0",  # no hyphenation: options, paths and file names stay whole
           ".TH %s 1 %s %s %s" % (esc(name.upper()), date, quote_arg(ver),
                                    quote_arg("pagesleuth manual")),
           ".ad l", ".nh", ".SH NAME", "%s \\- %s" % (esc(name), esc(summary))]
    if h.synopsis:
        out.append(".SH SYNOPSIS")
        out.extend(synopsis_lines(h.synopsis))
    # sections in the order the help has them; EXIT STATUS last
    sections, exits = [], []   # [(title, [(subtitle, items)])]
    state = "DESCRIPTION"
    for b in h.blocks:
        body = [it for it in b.items if not (isinstance(it, Para) and it.exit_status)]
        exits.extend(it for it in b.items if isinstance(it, Para) and it.exit_status)
        if not body:
            continue
        sub = None
        if b.has_options():
            title = "OPTIONS"
            if b.heading and b.heading.lower() != "options":
                sub = b.heading[0].upper() + b.heading[1:]
        elif b.heading:
            title = b.heading.upper()
        else:
            title = "NOTES" if state == "OPTIONS" else state
        state = title
        if sections and sections[-1][0] == title:
            sections[-1][1].append((sub, body))
        else:
            sections.append((title, [(sub, body)]))
    for title, parts in sections:
        out.append(".SH %s" % esc(title))
        for sub, body in parts:
            if sub:
                out.append(".SS %s" % quote_arg(sub))
            render_items(body, out)
    if exits:
        out.append(".SH EXIT STATUS")
        for p in exits:
            lines = list(p.lines)
            lines[0] = lines[0][len("Exit status:"):].strip()
            if not lines[0]:
                lines.pop(0)
            out.extend(text_line(l.strip()) for l in lines)
    # SEE ALSO: the commands and documents the help names, the manual pages of the others
    text = all_text(h)
    see = []
    if cmd:
        see.append(PROG)
    for c in commands:
        if c != cmd and (cmd is None or re.search(r"\b%s %s\b" % (PROG, re.escape(c)), text)):
            see.append("%s-%s" % (PROG, c))
    refs = ["\\fB%s\\fR(1)" % esc(s) for s in see]
    refs += ["\\fB%s\\fR(%s)" % (esc(w[:-3]), w[-2]) for word, w in EXTERNAL
             if re.search(r"\b%s\b" % word, text, re.I) and word != cmd]
    docs = sorted(set(re.findall(r"\bdocs/[\w.-]+\.md\b", text)))
    if refs or docs:
        out.append(".SH SEE ALSO")
        if refs:
            out.append(",\n".join(refs))
        for d in docs:
            out.append(".PP")
            out.append("%s: \\fI%s\\fR" % (esc(d), esc(docdir.rstrip("/") + "/" + d)))
    return "\n".join(out) + "\n"


def top_commands(h):
    """[(name, summary)] from the top-level help's "commands:" list."""
    for b in h.blocks:
        if b.heading == "commands":
            return [(e.term, " ".join(e.desc)) for e in b.items if isinstance(e, Entry)]
    die("`%s --help` lists no commands (no \"commands:\" list)" % PROG)


def gather(binary):
    top = parse_help(run_help(binary))
    cmds = top_commands(top)
    helps = {c: parse_help(run_help(binary, c)) for c, _ in cmds}
    return top, cmds, helps


def cmd_man(args):
    top, cmds, helps = gather(args.binary)
    ver, date = version(args.binary), man_date()
    os.makedirs(args.outdir, exist_ok=True)
    names = [c for c, _ in cmds]
    first = next((" ".join(p.lines) for b in top.blocks for p in b.items
                  if isinstance(p, Para) and not p.literal), PROG)
    summary = re.split(r"(?<=[.?!])\s", first, maxsplit=1)[0].rstrip(".")
    pages = {PROG + ".1": man_page(PROG, summary, top, names, None, args.docdir, ver, date)}
    for c, s in cmds:
        pages["%s-%s.1" % (PROG, c)] = man_page("%s-%s" % (PROG, c), s, helps[c], names, c,
                                                args.docdir, ver, date)
    for f in os.listdir(args.outdir):  # pages of commands that are gone
        if re.match(r"^%s(-.*)?\.1$" % PROG, f) and f not in pages:
            os.remove(os.path.join(args.outdir, f))
    for f, text in pages.items():
        path = os.path.join(args.outdir, f)
        with open(path + ".tmp", "w") as fp:
            fp.write(text)
        os.replace(path + ".tmp", path)
    return 0


# ---- bash completion -------------------------------------------------------------------

OPT_RE = re.compile(r"(?<![\w-])(--?[A-Za-z0-9][\w-]*=?)")


def options_in(s):
    return OPT_RE.findall(s)


def command_options(h):
    """(all options, {subcommand: options}) of one command: its option entries, its
    synopsis forms, and the options a metavariable of the synopsis stands for
    ("OUTPUT: -f text|csv|json, -o FILE, --html FILE")."""
    opts = ["--help"]
    metavars = {}

    def walk(items):
        for it in items:
            if isinstance(it, Entry):
                if it.term.startswith("-"):
                    opts.extend(options_in(it.term))
                walk(it.children)
            elif not it.literal:
                m = re.match(r"^([A-Z][A-Z_]+): ", it.lines[0])
                if m:
                    metavars[m.group(1)] = options_in(" ".join(it.lines))
    for b in h.blocks:
        walk(b.items)
    subs = {}
    for s in h.synopsis:
        words = s.split()
        found = options_in(s)
        for mv, o in metavars.items():
            if re.search(r"\b%s\b" % mv, s):
                found.extend(o)
        opts.extend(found)
        if len(words) > 2 and re.match(r"^[a-z][\w-]*$", words[2]):
            subs.setdefault(words[2], ["--help"]).extend(found)

    def uniq(lst):
        seen = []
        for o in lst:
            if o not in seen and o not in ("-", "--"):
                seen.append(o)
        return seen
    return uniq(opts), {k: uniq(v) for k, v in subs.items()}


def var(name):
    return re.sub(r"\W", "_", name)


def cmd_completion(args):
    top, cmds, helps = gather(args.binary)
    data = ["# Generated by scripts/help2man.py from `%s --help` and each command's --help."
            % PROG,
            "_pagesleuth_commands='%s'" % " ".join(c for c, _ in cmds)]
    for c, _ in cmds:
        opts, subs = command_options(helps[c])
        data.append("_pagesleuth_opts_%s='%s'" % (var(c), " ".join(opts)))
        if subs:
            data.append("_pagesleuth_subs_%s='%s'" % (var(c), " ".join(subs)))
            for s, o in subs.items():
                data.append("_pagesleuth_opts_%s_%s='%s'" % (var(c), var(s), " ".join(o)))
    with open(args.template) as fp:
        tmpl = fp.read()
    lines = tmpl.split("\n")
    if lines.count("@DATA@") != 1:
        die("%s: no line @DATA@ (or more than one)" % args.template)
    lines[lines.index("@DATA@")] = "\n".join(data)
    text = "\n".join(lines)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
        with open(args.output + ".tmp", "w") as fp:
            fp.write(text)
        os.replace(args.output + ".tmp", args.output)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sp = ap.add_subparsers(dest="what")
    m = sp.add_parser("man", help="man pages into OUTDIR")
    m.add_argument("--docdir", default="/usr/local/share/doc/pagesleuth",
                   help="where the documentation is installed (named in SEE ALSO)")
    m.add_argument("-o", "--outdir", default="build/man")
    m.add_argument("binary")
    c = sp.add_parser("completion", help="the bash completion script")
    c.add_argument("--template", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "completion", "pagesleuth.bash.in"))
    c.add_argument("-o", "--output", default="-")
    c.add_argument("binary")
    args = ap.parse_args()
    if args.what == "man":
        return cmd_man(args)
    if args.what == "completion":
        return cmd_completion(args)
    ap.print_help(sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
