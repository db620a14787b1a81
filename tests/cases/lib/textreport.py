#!/usr/bin/env python3
"""Read values back from `pagesleuth report` text output, as a person reads the tables.

  textreport.py get FILE TITLE KEYCOL KEY COL
      the cell COL of the row whose KEYCOL is KEY in the table whose title starts with
      TITLE (the title line is underlined with '='); a table printed in blocks of columns
      (each repeating the key columns) is searched block by block
  textreport.py human TEXT
      a size as the text tables show it ("0", "512 B", "4.0 KiB", "19.1 MiB", "1023 KiB")
      in bytes, and the most it can be off by its rounding: "BYTES TOLERANCE"
  textreport.py width FILE
      the longest line's length in characters

Exit status 1 with a message when the table, row or column is not there.
"""
import re
import sys

UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}


def human(text):
    """(bytes, tolerance) of a human size; tolerance = half a unit of the last digit."""
    text = text.strip()
    if text == "0":
        return 0, 0
    m = re.fullmatch(r"(-?)(\d+)(?:\.(\d+))?\s+(B|KiB|MiB|GiB|TiB)", text)
    if not m:
        raise ValueError("not a human size: %r" % text)
    sign = -1 if m.group(1) else 1
    frac = m.group(3) or ""
    unit = UNITS[m.group(4)]
    value = float(m.group(2) + ("." + frac if frac else ""))
    return sign * value * unit, 0.5 * unit / (10 ** len(frac))


def is_rule(line):
    return line.startswith("-") and set(line) <= {"-", " "}


def blocks(lines, title):
    """The blocks (header, column spans, rows) of the table titled TITLE..."""
    for i in range(len(lines) - 1):
        if lines[i].startswith(title) and lines[i + 1] and set(lines[i + 1]) == {"="}:
            break
    else:
        raise LookupError("no table titled %r" % title)
    i += 2
    while i + 1 < len(lines) and not is_rule(lines[i + 1]):  # the note
        if lines[i] == "":
            raise LookupError("table %r has no header" % title)
        i += 1
    out = []
    while i + 1 < len(lines) and is_rule(lines[i + 1]):
        header, spans = lines[i], [(m.start(), m.end()) for m in re.finditer(r"-+", lines[i + 1])]
        i += 2
        rows = []
        while i < len(lines) and lines[i] != "":
            rows.append(lines[i])
            i += 1
        out.append((header, spans, rows))
        i += 1  # a blank line, then maybe the next block of columns
    if not out:
        raise LookupError("table %r has no header" % title)
    return out


def cell(line, span, last):
    start, end = span
    return (line[start:] if last else line[start:end]).strip()


def get(path, title, keycol, key, col):
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    for header, spans, rows in blocks(lines, title):
        names = [cell(header, s, k == len(spans) - 1) for k, s in enumerate(spans)]
        if keycol not in names or col not in names:
            continue
        ki, ci = names.index(keycol), names.index(col)
        for row in rows:
            if cell(row, spans[ki], ki == len(spans) - 1) == key:
                return cell(row, spans[ci], ci == len(spans) - 1)
        raise LookupError("table %r: no row with %s %s" % (title, keycol, key))
    raise LookupError("table %r: no block with columns %s and %s" % (title, keycol, col))


def main(argv):
    try:
        if argv[1] == "get" and len(argv) == 7:
            print(get(*argv[2:]))
        elif argv[1] == "human" and len(argv) == 3:
            b, tol = human(argv[2])
            print("%.0f %.0f" % (b, tol))
        elif argv[1] == "width" and len(argv) == 3:
            text = open(argv[2], encoding="utf-8", errors="replace").read().split("\n")
            print(max(len(line) for line in text))
        else:
            sys.exit(__doc__)
    except (LookupError, ValueError, OSError) as e:
        print("textreport.py: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
