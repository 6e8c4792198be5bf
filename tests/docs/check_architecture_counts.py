#!/usr/bin/env python3
"""docs.architecture_counts: the counts docs/architecture.md states, measured on the tree.

Each claim is a sentence of the page with its number, found by a pattern, and the number the tree gives:
the commands (the rows of kCommands, apps/rope/cli/commands.hpp, as tests/hardening/cases.py reads them),
the lines of `rope check`'s run_check (cmd_check.cpp, its signature to its closing brace), the library's
layers (cmake/library_sources.cmake) and the files the live page leaves out (web/CMakeLists.txt). A sentence
that is gone, or a number that is not the tree's, fails the test naming both.

Usage: check_architecture_counts.py ROOT
"""

import os
import re
import sys

NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
           "ten": 10, "eleven": 11, "twelve": 12}


def read(root, rel):
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        return f.read()


def commands(root):
    sys.path.insert(0, os.path.join(root, "tests", "hardening"))
    import cases  # noqa: E402  (the one reader of kCommands' rows)
    return len(cases.command_rows(root))


def function_lines(root, rel, name):
    """Lines of the function `name` of `rel`, from its signature to its closing brace."""
    lines = read(root, rel).splitlines()
    for i, line in enumerate(lines):
        if re.match(r"^\S.*\b" + re.escape(name) + r"\(", line) and line.rstrip().endswith("{"):
            for j in range(i + 1, len(lines)):
                if lines[j] == "}":
                    return j - i + 1
    raise RuntimeError(f"{rel}: no function {name}")


def layers(root):
    m = re.search(r"set\(ROPE_LAYERS ([a-z ]+)\)", read(root, "cmake/library_sources.cmake"))
    return len(m.group(1).split())


def claims(root):
    """(what, pattern with one number group, the tree's number)."""
    return [
        ("the commands, kCommands' rows", r"building all (\w+) commands' options", commands(root)),
        ("run_check's lines, apps/rope/cli/commands/cmd_check.cpp", r"cmd_check\.cpp's `run_check` is (\w+) lines",
         function_lines(root, "apps/rope/cli/commands/cmd_check.cpp", "run_check")),
        ("the library's layers, cmake/library_sources.cmake ROPE_LAYERS", r"the (\w+) layers are one CMake target each",
         layers(root)),
    ]


def number(word):
    return int(word) if word.isdigit() else NUMBERS.get(word.lower())


def check(root):
    text = re.sub(r"\s+", " ", read(root, "docs/architecture.md"))
    problems = []
    for what, pattern, measured in claims(root):
        m = re.search(pattern, text)
        if not m:
            problems.append(f"docs/architecture.md no longer says {pattern!r} ({what}: {measured})")
        elif number(m.group(1)) != measured:
            problems.append(f"docs/architecture.md says {m.group(0)!r}; the tree has {measured} ({what})")
    return problems


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    problems = check(sys.argv[1])
    for p in problems:
        print(p)
    if problems:
        sys.exit(1)
    print("docs/architecture.md: its counts are the tree's")


if __name__ == "__main__":
    main()
