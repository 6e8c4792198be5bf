#!/usr/bin/env python3
"""Comments teach the code as it is (docs/architecture.md, "Comments"), checked on the source tree.

  own_issue   no comment of src/ or apps/ names one of rope's own issues ("issue 78", "Issue 79 item 2"): the
              comment says what the code does and why, now; the history is git's. rope's issues are cited by number
              alone, another project's with its name and '#' ("ColossalAI issue #6428", "PR #6429"), which stay.
  moved       no comment says where its code came from ("moved from …", "moved out of …", "moved verbatim …"); a
              thing the code moves ("each key moved from its old position") is no history.
  round       no comment names a round of the project's work ("round 5's item").

Only comments are read: C++'s // and /* */ (a // inside a string literal is code), Python's # (tokenize's
comments; docstrings are the module's documentation, not comments). The files being reworked elsewhere are KNOWN:
per file, the count of violations today. A file over its count, or a file not listed, fails; a file under its
count fails too, asking to shrink the list, so that the list only shrinks.

Usage: check_comments.py ROOT, or --self-test. Prints each violation and exits 1 if any.
"""

import io
import os
import re
import sys
import tokenize

RULES = {
    "own_issue": re.compile(r"\b[Ii]ssues? \d+"),
    "moved": re.compile(r"\b[Mm]oved(?: verbatim| here)? (?:from|out of)\b(?! (?:its|their) )"),
    "round": re.compile(r"\b[Rr]ound \d+'s\b"),
}

# path relative to the root -> violations kept for now (all rules); empty: every comment teaches the code as it is.
# Shrinks only.
KNOWN = {}

SUFFIXES = (".cpp", ".hpp", ".h", ".hpp.in", ".py")


def files(root):
    for folder in ("src", "apps"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, folder)):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "build", "__pycache__")))
            for name in sorted(filenames):
                if name.endswith(SUFFIXES):
                    yield os.path.join(dirpath, name)


def cpp_comments(text):
    """(line number, text) of every comment of a C++ source: // to the end of the line, /* */ line by line."""
    out = []
    block = False
    for number, line in enumerate(text.split("\n"), 1):
        i, quoted = 0, None
        while i < len(line):
            if block:
                end = line.find("*/", i)
                out.append((number, line[i:end if end >= 0 else len(line)]))
                if end < 0:
                    break
                block, i = False, end + 2
                continue
            c = line[i]
            if quoted:
                if c == "\\":
                    i += 2
                    continue
                if c == quoted:
                    quoted = None
            elif c in "\"'":
                # A raw string R"(...)" on one line: skipped whole; a digit separator 1'000 is no quote.
                if c == '"' and line[i - 1:i] == "R":
                    close = line.find(')"', i)
                    i = close + 2 if close >= 0 else len(line)
                    continue
                if c == "'" and line[i - 1:i].isalnum():
                    i += 1
                    continue
                quoted = c
            elif line.startswith("//", i):
                out.append((number, line[i:]))
                break
            elif line.startswith("/*", i):
                block, i = True, i + 2
                continue
            i += 1
    return out


def python_comments(text):
    try:
        return [(tok.start[0], tok.string) for tok in tokenize.generate_tokens(io.StringIO(text).readline)
                if tok.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError):
        return [(n, line[line.index("#"):]) for n, line in enumerate(text.split("\n"), 1) if "#" in line]


def violations(root):
    found = {}
    for path in files(root):
        rel = os.path.relpath(path, root).replace(os.sep, "/")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        comments = python_comments(text) if rel.endswith(".py") else cpp_comments(text)
        for number, comment in comments:
            for rule, pattern in RULES.items():
                m = pattern.search(comment)
                if m:
                    found.setdefault(rel, []).append(f"{rel}:{number}: {rule}: '{m.group(0)}' in {comment.strip()[:100]!r}")
    return found


def check(root, known=None):
    known = KNOWN if known is None else known
    problems = []
    found = violations(root)
    for rel, lines in sorted(found.items()):
        allowed = known.get(rel, 0)
        if len(lines) > allowed:
            problems += lines if not allowed else [f"{rel}: {len(lines)} comments with history, KNOWN allows {allowed}:"] + lines
    for rel, allowed in sorted(known.items()):
        if len(found.get(rel, [])) < allowed:
            problems.append(f"{rel}: {len(found.get(rel, []))} comments with history, fewer than KNOWN's {allowed}: "
                            "lower its count in tests/architecture/check_comments.py (or remove the line at 0)")
    return problems


def self_test():
    """The check finds what it should: a tree with one violation of each kind, and what must not be flagged."""
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        def write(rel, text):
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                f.write(text)
        write("src/rope/core/clean.cpp",
              '// ColossalAI issue #6428 and PR #6429: another project\'s, cited\n'
              'const char* s = "issue 12 // moved from x";  // a key moved to its new position\n'
              'const char* r = R"(// issue 5)";\nint n = 1\'000;  // (C1) element by element\n'
              '// each key moved from its old position to its new one\n')
        write("apps/python/rope/clean.py", 's = "# issue 9"\n"""issue 10, moved from here: a docstring."""\n')
        write("src/rope/analysis/check/known.cpp", "// issue 1\n// issue 2\n")
        known = {"src/rope/analysis/check/known.cpp": 2}
        clean = check(root, known)
        write("src/rope/core/a.cpp", "int a;  // the bound (issue 52, item 8)\n")
        write("src/rope/core/b.hpp", "/// Moved from the command line's options.\n")
        write("src/rope/core/c.cpp", "/* a block\n   moved out of cmd_x.cpp */\nint c;\n")
        write("apps/python/rope/d.py", "x = 1  # Issue 78 item 2: the pair\n")
        write("src/rope/core/e.cpp", "// round 5's item\n")
        write("src/rope/analysis/check/known.cpp", "// issue 1\n")
        found = check(root, known)
    expected = ["a.cpp:1: own_issue", "b.hpp:1: moved", "c.cpp:2: moved", "d.py:1: own_issue", "e.cpp:1: round",
                "known.cpp: 1 comments with history, fewer than KNOWN's 2"]
    missed = [e for e in expected if not any(e in f for f in found)]
    if clean or missed or len(found) != len(expected):
        print(f"self-test failed: clean tree gave {clean}; missed {missed}; found {found}")
        return 1
    print(f"architecture.comments_self_test: the {len(expected)} planted violations found, none on the clean tree")
    return 0


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    problems = check(sys.argv[1])
    for p in problems:
        print(p)
    print(f"architecture.comments: {len(problems)} violation(s), {sum(KNOWN.values())} known in {len(KNOWN)} files")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
