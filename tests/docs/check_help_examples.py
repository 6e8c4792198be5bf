#!/usr/bin/env python3
"""Runs every example of every command's --help, as written, and fails unless each exits 0.

The examples are the lines of the form "  rope ..." after "Example:" or "Examples:" in
`rope COMMAND --help`. They run in a scratch directory where `data` is the repository's data/
folder, so an example may name a file of data/ (e.g. data/models/qwen2.5-7b.json) the way a user in a
clone would. An example that fails as written (a placeholder path, a removed option) fails the test.

Usage: check_help_examples.py --rope build/bin/rope --data data
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

# The command list comes from the malformed-input sweep's reading of `rope --help` (one parser of it).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hardening"))
import sweep  # noqa: E402


def examples(rope, command):
    # unbroken: each example on one line (help_pages.hpp help_width)
    text = subprocess.run([rope, command, "--help"], capture_output=True, text=True, check=True,
                          env=dict(os.environ, COLUMNS="100000")).stdout
    lines = text.splitlines()
    out = []
    started = False
    for line in lines:
        if re.match(r"^Examples?:", line):
            started = True
            continue
        if started and line.startswith("  rope "):
            out.append(line.strip())
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rope", required=True)
    ap.add_argument("--data", required=True, help="the repository's data/ folder")
    args = ap.parse_args()
    rope = os.path.abspath(args.rope)
    cmds = list(sweep.discover(rope))
    if len(cmds) < 10:
        print(f"found only {len(cmds)} commands in 'rope --help': {cmds}")
        return 1
    failures = 0
    count = 0
    for command in cmds:
        found = examples(rope, command)
        if not found:
            print(f"FAIL: 'rope {command} --help' shows no example")
            failures += 1
        for example in found:
            count += 1
            argv = shlex.split(example)
            with tempfile.TemporaryDirectory(prefix="rope-help-") as work:
                os.symlink(os.path.abspath(args.data), os.path.join(work, "data"))
                r = subprocess.run([rope] + argv[1:], cwd=work, capture_output=True, text=True, timeout=300)
            if r.returncode != 0:
                failures += 1
                print(f"FAIL: {example}\n  exit {r.returncode}: {r.stderr.strip()}")
    print(f"{count - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
