#!/usr/bin/env python3
"""Projector width: no line rope prints by default is wider than 100 terminal columns.

Runs, in English and with --lang zh,
  - every command of the classroom lessons (docs/classroom.md, docs/classroom.zh.md): each inline code
    span or console line that starts with "rope " (spans with a placeholder "…" are skipped);
  - every command with no options (its default output; a command that needs an input prints its error);
and fails on any line of stdout or stderr wider than 100 columns. Width is counted as a terminal shows
it: a wide or full-width character (East Asian Width W or F, e.g. CJK) takes 2 columns, a combining
mark none, everything else 1. `--wide` (today's wide tables) is not checked.
The commands run in a scratch directory where `data` links to the repository's data/ folder.

Usage: check_width.py --rope build/bin/rope --data data docs/classroom.md docs/classroom.zh.md
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
import unicodedata

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hardening"))
import sweep  # noqa: E402

LIMIT = 100
TIMEOUT_S = 120


def width(line):
    w = 0
    for ch in line:
        if unicodedata.combining(ch):
            continue
        w += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return w


def lesson_commands(path):
    """The `rope ...` commands of a Markdown lesson: inline code spans (joined across line breaks) and
    console lines."""
    text = open(path, encoding="utf-8").read()
    commands = []
    for line in text.splitlines():
        if line.startswith("$ rope ") and "--wide" not in line:
            commands.append(line[2:])
    flat = re.sub(r"\s*\n\s*", " ", re.sub(r"```.*?```", "", text, flags=re.S))
    for span in re.findall(r"`(rope [^`]*)`", flat):
        # `rope --help` is left to the help formatter (CLI11 lays out the option descriptions), and
        # `--wide` asks for the wide tables.
        if "…" not in span and "..." not in span and "--help" not in span and "--wide" not in span:
            commands.append(span)
    return commands


def with_zh(args):
    return args if "--lang" in args else args + ["--lang", "zh"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rope", required=True)
    ap.add_argument("--data", required=True, help="the repository's data/ folder")
    ap.add_argument("lessons", nargs="+")
    args = ap.parse_args()
    rope = os.path.abspath(args.rope)
    runs = []
    for lesson in args.lessons:
        for command in lesson_commands(lesson):
            runs.append((f"{os.path.basename(lesson)}", shlex.split(command)[1:]))
    commands = list(sweep.discover(rope))
    if len(commands) < 10:
        print(f"found only {len(commands)} commands in 'rope --help': {commands}")
        return 1
    for command in commands:
        runs.append(("default output", [command]))
    seen, failures, count = set(), 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        os.symlink(os.path.abspath(args.data), os.path.join(tmp, "data"))
        for origin, argv in runs:
            for variant in (argv, with_zh(argv)):
                key = tuple(variant)
                if key in seen:
                    continue
                seen.add(key)
                count += 1
                p = subprocess.run([rope] + variant, cwd=tmp, capture_output=True, timeout=TIMEOUT_S,
                                   env=dict(os.environ, LC_ALL="C.UTF-8"))
                if p.returncode not in (0, 1, 2):
                    print(f"{origin}: rope {shlex.join(variant)}: exit {p.returncode}")
                    failures += 1
                for stream in (p.stdout, p.stderr):
                    for line in stream.decode("utf-8", "replace").splitlines():
                        if width(line) > LIMIT:
                            print(f"{origin}: rope {shlex.join(variant)}: {width(line)} columns: {line}")
                            failures += 1
    print(f"{count} runs, {failures} lines wider than {LIMIT} columns or failed runs")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
