#!/usr/bin/env python3
"""Run the `rope` examples shown in Markdown files and compare their output.

An example is in a fenced code block with the info string `console`. A line
"$ rope ..." is a command (a trailing "# exits N" gives the expected exit code,
default 0); the lines after it, up to the next "$ " line or the block end, are
its expected output: stdout, then stderr. "rope" is replaced by the --rope path;
the rest is split with shlex and run without a shell. The commands of one file
run in order in one new temporary directory holding an empty out/ and data/ (a link
to the repository's data/, so `data/dumps/q.npy` reads as from the repository root), with
LC_ALL=C.UTF-8. Trailing whitespace and trailing blank lines are ignored.
--update rewrites the shown outputs from real runs (not for a wrong exit code).

Quotes in prose: a lesson points at strings of rope's output in inline code spans ("the summary
`7 of 7 identities passed`"). After a line "<!-- quotes: rope ... -->" every inline code span up to
the next such marker, "<!-- end quotes -->" or heading must appear in that command's output (stdout
and stderr, runs of white space read as one space), except spans that are commands themselves
(starting "rope ") or options (starting "--"). "<!-- quotes: rope ... | FILE ... -->" also searches
the files the command wrote (a --keep-script gnuplot script holds the figure's labels), so quoted figure
labels are checked too. The command runs like an example, in the same directory.
Exit status 1 if an example fails, a file is missing or has no examples.
"""
import argparse
import difflib
import os
import re
import shlex
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^(`{3,}|~{3,})\s*(\S*)")
EXITS = re.compile(r"\s+#\s*exits\s+(\d+)\s*$")
QUOTES = re.compile(r"^<!--\s*quotes:\s*(rope\b[^|]*?)\s*(?:\|\s*(.*?))?\s*-->\s*$")
END_QUOTES = re.compile(r"^<!--\s*end quotes\s*-->\s*$|^#")
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
TIMEOUT_S = 120
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Example:
    def __init__(self, line, command):
        self.line = line      # 0-based index of the "$ " line in the file
        self.command = command
        self.output = []      # expected output lines
        self.end = line + 1   # index one past the last output line
        self.actual = None    # new output, set by --update


def normalise(lines):
    lines = [line.rstrip() for line in lines]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def find_examples(lines):
    """Return (examples, problems) for the console blocks of a Markdown file."""
    examples, problems, fence, current = [], [], None, None
    for i, line in enumerate(lines):
        m = FENCE.match(line)
        if fence is None:
            if m:
                fence = (m.group(1), m.group(2) == "console")
            continue
        if m and m.group(1)[0] == fence[0][0] and len(m.group(1)) >= len(fence[0]) \
                and not m.group(2):
            fence, current = None, None     # closing fence
            continue
        if not fence[1]:
            continue
        if line.startswith("$ "):
            current = Example(i, line[2:])
            examples.append(current)
        elif current is not None:
            current.output.append(line)
            current.end = i + 1
        elif line.strip():
            problems.append(f"line {i + 1}: output without a '$ ' command before it")
    if fence is not None:
        problems.append("a code block is not closed")
    return examples, problems


def run(example, rope, workdir):
    """Run one example; return (expected exit code, exit code, output lines, error)."""
    command, expected_code = example.command, 0
    m = EXITS.search(command)
    if m:
        command, expected_code = command[:m.start()], int(m.group(1))
    try:
        args = shlex.split(command)
    except ValueError as e:
        return expected_code, None, [], f"cannot split the command: {e}"
    if not args or args[0] != "rope":
        return expected_code, None, [], "the command must start with 'rope '"
    env = dict(os.environ, LC_ALL="C.UTF-8")
    try:
        proc = subprocess.run([rope] + args[1:], cwd=workdir, env=env, timeout=TIMEOUT_S,
                              capture_output=True)
    except subprocess.TimeoutExpired:
        return expected_code, None, [], f"timed out after {TIMEOUT_S} s"
    except OSError as e:
        return expected_code, None, [], f"cannot run {rope}: {e.strerror}"
    output = (proc.stdout + proc.stderr).decode("utf-8", "replace")  # stderr after stdout
    return expected_code, proc.returncode, output.splitlines(), None


def find_quote_blocks(lines):
    """[(line index, command, [files], [(line index, quoted text)])] of the quote markers; a code span
    may run over a line break."""
    blocks, current, fence = [], None, False
    for i, line in enumerate(lines):
        if FENCE.match(line):
            fence = not fence
            continue
        if fence:
            continue
        m = QUOTES.match(line)
        if m:
            current = (i, m.group(1), (m.group(2) or "").split(), [], [])
            blocks.append(current)
        elif END_QUOTES.match(line):
            current = None
        elif current is not None:
            current[4].append((i, line))
    result = []
    for start, command, files, quotes, text_lines in blocks:
        text = "\n".join(line for _, line in text_lines)
        starts = [0]
        for _, line in text_lines:
            starts.append(starts[-1] + len(line) + 1)
        for span in CODE_SPAN.finditer(text):
            quoted = " ".join(span.group(2).split()).replace("\\|", "|")  # a '|' escaped in a table
            if not quoted.startswith(("rope ", "--")):
                row = max(k for k, at in enumerate(starts) if at <= span.start())
                quotes.append((text_lines[min(row, len(text_lines) - 1)][0], quoted))
        result.append((start, command, files, quotes))
    return result


def squeeze(text):
    return " ".join(text.split())


def check_quotes(path, lines, rope, workdir):
    """(passed, failed) for the quote blocks of one file: every quoted string is in its output."""
    passed = failed = 0
    for line, command, files, quotes in find_quote_blocks(lines):
        want_code, code, actual, error = run(Example(line, command), rope, workdir)
        if error or code != want_code:
            failed += 1
            print(f"{path}:{line + 1}: FAILED: quotes of $ {command}: {error or f'exit code {code}'}")
            continue
        text = "\n".join(actual)
        for name in files:
            try:
                with open(os.path.join(workdir, name), encoding="utf-8", errors="replace") as f:
                    text += "\n" + f.read()
            except OSError as e:
                print(f"{path}:{line + 1}: cannot read {name}: {e.strerror}")
                failed += 1
        text = squeeze(text)
        for at, quote in quotes:
            if squeeze(quote) in text:
                passed += 1
            else:
                failed += 1
                print(f"{path}:{at + 1}: FAILED: `{quote}` is not in the output of $ {command}")
        if not quotes:
            failed += 1
            print(f"{path}:{line + 1}: FAILED: a quotes marker with no quoted string after it")
    return passed, failed


def check_file(path, rope, update):
    """Check (or update) one file; return (passed, failed, file_ok)."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        print(f"{path}: cannot read: {e.strerror}")
        return 0, 0, False
    examples, problems = find_examples(lines)
    if not examples:
        problems.append("no ```console examples found")
    for problem in problems:
        print(f"{path}: {problem}")
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="rope-docs-") as workdir:
        os.mkdir(os.path.join(workdir, "out"))
        os.symlink(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data"),
                   os.path.join(workdir, "data"))
        for ex in examples:
            want_code, code, actual, error = run(ex, rope, workdir)
            expected, actual = normalise(ex.output), normalise(actual)
            ok = error is None and code == want_code
            if ok and (expected == actual or update):
                passed += 1
                if expected != actual:
                    ex.actual = actual      # only real, successful runs are written back
                    print(f"{path}:{ex.line + 1}: updated: $ {ex.command}")
                continue
            failed += 1
            print(f"{path}:{ex.line + 1}: FAILED: $ {ex.command}")
            if error:
                print(f"  {error}")
                continue
            if code != want_code:
                print(f"  exit code {code}, expected {want_code}")
            if expected != actual:
                sys.stdout.writelines(difflib.unified_diff(
                    [s + "\n" for s in expected], [s + "\n" for s in actual],
                    "shown in " + path, "actual output"))
        q_passed, q_failed = check_quotes(path, lines, rope, workdir)
        passed, failed = passed + q_passed, failed + q_failed
    if update and any(ex.actual is not None for ex in examples):
        for ex in reversed(examples):   # from the bottom, so earlier indices stay valid
            if ex.actual is not None:
                lines[ex.line + 1:ex.end] = ex.actual
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    return passed, failed, not problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rope", required=True, help="path to the rope executable")
    parser.add_argument("--update", action="store_true",
                        help="rewrite the shown outputs in place from real runs")
    parser.add_argument("files", nargs="+", metavar="FILE.md")
    args = parser.parse_args()
    rope = os.path.abspath(args.rope)   # the commands run in a temporary directory
    passed = failed = bad_files = 0
    for path in args.files:
        p, f, file_ok = check_file(path, rope, args.update)
        passed, failed, bad_files = passed + p, failed + f, bad_files + (not file_ok)
    summary = f"{passed + failed} examples checked, {passed} passed, {failed} failed"
    if bad_files:
        summary += f"; {bad_files} file(s) with problems (see above)"
    print(summary)
    return 1 if failed or bad_files else 0


if __name__ == "__main__":
    sys.exit(main())
