#!/usr/bin/python3
"""Make the figures of docs/gallery.md by running the `rope` commands it shows.

Every line that starts with "rope " inside a fenced ```sh block of the gallery file (--gallery,
default docs/gallery.md of this repository) is a command.
"rope" is replaced by the --rope path, the rest is split with shlex and run without a shell, in the
--out directory (which gets a gallery/ subdirectory), with LC_ALL=C.UTF-8 and a 120 s timeout;
standard output is discarded. The commands are written to run in docs/, so an argument that starts
with "../data/" names a file of the repository's data/ folder wherever --out is. A command must exit 0, and every file named after --png, --svg,
--pdf, -o, --output or --gif must exist and be non-empty; a .png must start with the PNG signature.
--compare DIR also compares each PNG byte for byte with DIR/<same path> (information only).
Exit status 1 if a command or a figure failed, or if no command was found.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys

FENCE = re.compile(r"^(`{3,}|~{3,})\s*(\S*)")
FIGURE_OPTIONS = {"--png", "--svg", "--pdf", "--output", "-o", "--gif"}
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
GIF_SIGNATURE = b"GIF89a"
TIMEOUT_S = 120
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def find_commands(path):
    """Return (line number, command) for each 'rope ' line in the ```sh blocks of a file."""
    commands, fence = [], None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            m = FENCE.match(line)
            if fence is None:
                if m:
                    fence = (m.group(1), m.group(2) == "sh")
            elif m and m.group(1)[0] == fence[0][0] and len(m.group(1)) >= len(fence[0]) \
                    and not m.group(2):
                fence = None
            elif fence[1] and line.startswith("rope "):
                commands.append((number, line.strip()))
    return commands


def figure_files(args):
    """The file arguments of the figure options, for both "--png F" and "--png=F"."""
    files = []
    for i, arg in enumerate(args):
        name, eq, value = arg.partition("=")
        if eq and name in FIGURE_OPTIONS and name.startswith("--"):
            files.append(value)
        elif arg in FIGURE_OPTIONS and i + 1 < len(args):
            files.append(args[i + 1])
    return files


def check_figure(path):
    """Return None if the figure looks right, else what is wrong with it."""
    try:
        with open(path, "rb") as f:
            head = f.read(len(PNG_SIGNATURE))
    except OSError as e:
        return f"missing ({e.strerror})"
    if not head:
        return "empty"
    if path.lower().endswith(".png") and head != PNG_SIGNATURE:
        return "not a PNG (wrong signature)"
    if path.lower().endswith(".gif"):
        with open(path, "rb") as f:
            data = f.read()
        if not data.startswith(GIF_SIGNATURE) or not data.endswith(b"\x3b"):
            return "not a complete GIF (signature GIF89a, trailer 0x3B)"
    return None


def compare(path, other):
    """'identical' or 'differs' (byte for byte), or why the two cannot be compared."""
    try:
        with open(path, "rb") as a, open(other, "rb") as b:
            return "identical" if a.read() == b.read() else "differs"
    except OSError as e:
        return f"not compared: {e.filename}: {e.strerror}"


def run(command, rope, out):
    """Run one command; return (error or None, list of (figure, problem or None))."""
    try:
        args = shlex.split(command, comments=True)
    except ValueError as e:
        return f"cannot split the command: {e}", []
    env = dict(os.environ, LC_ALL="C.UTF-8")
    data = os.path.join(ROOT, "data")
    run_args = [os.path.join(data, a[len("../data/"):]) if a.startswith("../data/") else a for a in args[1:]]
    try:
        proc = subprocess.run([rope] + run_args, cwd=out, env=env, timeout=TIMEOUT_S,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    except subprocess.TimeoutExpired:
        return f"timed out after {TIMEOUT_S} s", []
    except OSError as e:
        return f"cannot run {rope}: {e.strerror}", []
    figures = figure_files(args)
    if proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip()
        return f"exit code {proc.returncode}: {message}", figures
    return None, [(f, check_figure(os.path.join(out, f))) for f in figures]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rope", required=True, help="path to the rope executable")
    parser.add_argument("--out", required=True, help="directory the commands run in (docs)")
    parser.add_argument("--gallery", default=os.path.join(os.path.dirname(
        os.path.abspath(__file__)), os.pardir, "docs", "gallery.md"),
        help="the Markdown file with the commands (default: docs/gallery.md)")
    parser.add_argument("--compare", metavar="DIR", help="compare each PNG with DIR/<same path>")
    args = parser.parse_args()
    rope, out = os.path.abspath(args.rope), os.path.abspath(args.out)
    gallery = os.path.normpath(args.gallery)
    os.makedirs(os.path.join(out, "gallery"), exist_ok=True)
    try:
        commands = find_commands(gallery)
    except OSError as e:
        print(f"{gallery}: cannot read: {e.strerror}")
        return 1
    if not commands:
        print(f"{gallery}: no 'rope ' commands in ```sh blocks")
        return 1
    made = failed = 0
    for number, command in commands:
        error, figures = run(command, rope, out)
        if error:
            failed += max(1, len(figures))
            print(f"{gallery}:{number}: FAILED: {command}\n  {error}")
            continue
        for name, problem in figures:
            if problem:
                failed += 1
                print(f"FAILED  {name}: {problem}")
                continue
            made += 1
            path, note = os.path.join(out, name), ""
            if args.compare and name.lower().endswith(".png"):
                note = "  " + compare(path, os.path.join(args.compare, name))
            print(f"ok      {name} ({os.path.getsize(path)} bytes){note}")
    print(f"{made} figures made, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
