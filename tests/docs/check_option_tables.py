#!/usr/bin/env python3
"""The option tables of docs/cli.md against the commands' definitions (apps/rope/cli/option_tables.hpp).

  tables    `rope_docgen --print` regenerates every table between the `<!-- rope_docgen: ... -->`
            markers from the CLI11 definitions; the page must be byte for byte what it prints. A
            difference is printed as a unified diff, with the command that fixes it.
  coverage  every option of every command (`rope_docgen --list`) appears in the page as it is: one of
            its names in its command's table, or in the table of its shared group (Scaling, Figure, …)
            when the command's table links that group. This follows from the first check, and is stated
            on its own so that a broken generator cannot hide an option.
  commands  the table of commands at the top of the page has one row per command of the program, no
            more, no fewer, and the page types no count of them ("fifteen subcommands" had drifted to 21):
            the list is checked against the program, the count is not typed (issue 36).

Usage: check_option_tables.py --docgen PATH DOC. Exit status 1 if either check fails.
"""
import argparse
import difflib
import re
import subprocess
import sys

BLOCK = re.compile(r"^<!-- rope_docgen: (options of rope (\S+)|group (.+?)) -->\n(.*?)^<!-- rope_docgen: end -->$",
                   re.M | re.S)
FIX = "make docs   (or: cmake --build build --target rope_docgen && build/tests/rope_docgen --write {doc})"


def check_tables(docgen, doc, text):
    generated = subprocess.run([docgen, "--print", doc], capture_output=True, text=True, check=False)
    if generated.returncode != 0:
        print(f"tables: rope_docgen failed:\n{generated.stderr}")
        return False
    if generated.stdout == text:
        print(f"tables: {doc} has the tables generated from the CLI definitions")
        return True
    diff = difflib.unified_diff(text.splitlines(keepends=True), generated.stdout.splitlines(keepends=True),
                                fromfile=f"{doc} (as committed)", tofile=f"{doc} (generated from the CLI definitions)")
    sys.stdout.writelines(diff)
    print(f"\ntables: {doc} differs from its generated tables (diff above). Fix: {FIX.format(doc=doc)}")
    return False


def check_coverage(docgen, doc, text):
    listed = subprocess.run([docgen, "--list"], capture_output=True, text=True, check=False)
    if listed.returncode != 0:
        print(f"coverage: rope_docgen --list failed:\n{listed.stderr}")
        return False
    commands, groups = {}, {}
    for m in BLOCK.finditer(text):
        if m.group(2):
            commands[m.group(2)] = m.group(4)
        else:
            groups[m.group(3)] = m.group(4)
    missing, count, names = [], 0, set()
    for line in listed.stdout.splitlines():
        command, flags, group = line.split("\t")
        name = command.split(" ", 1)[1]
        count += 1
        names.add(name)
        spans = [f"`{flag}`" for flag in flags.split()] + [f"`{flag} " for flag in flags.split()]
        table = commands.get(name, "")
        if any(s in table for s in spans):
            continue
        shared = groups.get(group, "")
        if f"the [{group} options](#" in table and any(s in shared for s in spans):
            continue
        missing.append(f"  {command}: {flags} (group {group})")
    if missing:
        print(f"coverage: {len(missing)} of {count} options are not in {doc}:")
        print("\n".join(missing))
        print(f"Fix: add a '<!-- rope_docgen: options of rope NAME -->' block where it is missing, then {FIX.format(doc=doc)}")
        return False
    print(f"coverage: every option of every command is in {doc}: {count} options of {len(names)} commands, "
          f"each in its command's table or in the linked table of its group ({', '.join(sorted(groups))})")
    return True


COMMAND_ROW = re.compile(r"^\| \[`rope ([a-z-]+)`\]\(#", re.M)
NUMBER = (r"(\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
          r"seventeen|eighteen|nineteen|twenty[- a-z]*)")
# "fifteen subcommands", "has 21 commands"; not "the four commands that answer …", which names its four.
TYPED_COUNT = re.compile(rf"\b{NUMBER}\s+subcommands\b|\bhas\s+{NUMBER}\s+commands\b", re.I)


def check_commands(docgen, doc, text):
    listed = subprocess.run([docgen, "--list"], capture_output=True, text=True, check=False)
    if listed.returncode != 0:
        print(f"commands: rope_docgen --list failed:\n{listed.stderr}")
        return False
    program = {line.split("\t")[0].split(" ", 1)[1] for line in listed.stdout.splitlines()}
    head = text.split("\n## ", 1)[0]  # the page's introduction, which holds the table of commands
    rows = COMMAND_ROW.findall(head)
    problems = []
    for name in sorted(program - set(rows)):
        problems.append(f"  rope {name} has no row in the table of commands")
    for name in sorted(set(rows) - program):
        problems.append(f"  rope {name} has a row but is no command")
    for name in sorted({n for n in rows if rows.count(n) > 1}):
        problems.append(f"  rope {name} has {rows.count(name)} rows")
    for m in TYPED_COUNT.finditer(head):
        problems.append(f"  a typed count of commands: '{m.group(0)}' (it drifts: say it without the number)")
    if problems:
        print(f"commands: the table of commands of {doc} does not match the program's {len(program)} commands:")
        print("\n".join(problems))
        return False
    print(f"commands: the table of commands of {doc} has a row for each of the program's {len(program)} commands")
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docgen", required=True, help="the rope_docgen executable")
    parser.add_argument("doc", help="docs/cli.md")
    args = parser.parse_args()
    with open(args.doc, encoding="utf-8", newline="") as f:
        text = f.read()
    tables = check_tables(args.docgen, args.doc, text)
    coverage = check_coverage(args.docgen, args.doc, text)
    commands = check_commands(args.docgen, args.doc, text)
    return 0 if tables and coverage and commands else 1


if __name__ == "__main__":
    sys.exit(main())
