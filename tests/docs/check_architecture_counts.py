#!/usr/bin/env python3
"""docs.architecture_counts: the counts docs/architecture.md and README.md state, measured on the tree.

Each claim is a sentence of the page with its number, found by a pattern, and the number the tree gives:
the commands (the rows of kCommands, apps/rope/cli/commands.hpp, as tests/hardening/cases.py reads them),
the lines of `rope check`'s run_check (cmd_check.cpp, its signature to its closing brace), the library's
layers (cmake/library_sources.cmake), the places a command on the report layer takes (command_places: its run,
its report, its command, its row, its tests, its docs and its Chinese) and how many commands are in all of them,
in all but a report test of their own, and in fewer. README.md's front door: its commands (kCommands' rows), the
class's length wherever it names it (the minutes of docs/classroom.md's timing table, added up, which its heading
states too) and each "N commands" sentence (the distinct `rope NAME` its paragraph names). A sentence
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


def command_places(root, name):
    """{place: whether the tree has it} for command `name`: the 13 places docs/architecture.md lists for a command on
    the report layer ("Adding something")."""
    import glob
    lib, rows, tests, cli, errors, po = (read(root, rel) for rel in (
        "cmake/library_sources.cmake", "apps/rope/cli/commands.hpp", "tests/CMakeLists.txt", "docs/cli.md",
        "docs/errors.md", "po/zh_CN.po"))
    command = os.path.join(root, "apps", "rope", "cli", "commands", f"cmd_{name}.cpp")
    described = None  # the command's description, the first text of `rope --help` a translator sees
    if os.path.exists(command):
        m = re.search(r'add_subcommand\(\s*"' + name + r'",\s*((?:"(?:[^"\\]|\\.)*"\s*)+)\)', read(root, command))
        if m:
            described = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1)))
    return {
        "its run, src/rope/analysis/<folder>/<name>_run.hpp": bool(glob.glob(
            os.path.join(root, "src", "rope", "analysis", "*", f"{name}_run.hpp"))),
        "its run, <name>_run.cpp": bool(glob.glob(os.path.join(root, "src", "rope", "analysis", "*", f"{name}_run.cpp"))),
        "its report, src/rope/report/<name>_report.hpp": os.path.exists(
            os.path.join(root, "src", "rope", "report", f"{name}_report.hpp")),
        "its report, <name>_report.cpp": os.path.exists(os.path.join(root, "src", "rope", "report", f"{name}_report.cpp")),
        "both in cmake/library_sources.cmake": f"/{name}_run.cpp" in lib and f"/{name}_report.cpp" in lib,
        "apps/rope/cli/commands/cmd_<name>.cpp": os.path.exists(command),
        "its row of kCommands": f'{{"{name}",' in rows,
        "tests/cli/test_cmd_<name>.cpp": os.path.exists(os.path.join(root, "tests", "cli", f"test_cmd_{name}.cpp")),
        "tests/report/test_<name>_report.cpp": os.path.exists(
            os.path.join(root, "tests", "report", f"test_{name}_report.cpp")),
        "its line in tests/CMakeLists.txt": f"report/test_{name}_report.cpp" in tests,
        "its section of docs/cli.md": f"<!-- rope_docgen: options of rope {name} -->" in cli,
        "its limits in docs/errors.md": f"rope {name}" in errors,
        "its Chinese in po/zh_CN.po": described is not None and f'msgid "{described}"' in po,
    }


def places_counts(root):
    """(places, commands in all, commands in all but the report test and its line, commands in fewer)."""
    counts = [command_places(root, name) for name in sorted(commands_rows(root))]
    places = len(counts[0])
    missing = [sorted(k for k, v in c.items() if not v) for c in counts]
    report_test = sorted(["its line in tests/CMakeLists.txt", "tests/report/test_<name>_report.cpp"])
    return (places, sum(1 for m in missing if not m), sum(1 for m in missing if m == report_test),
            sum(1 for m in missing if m and m != report_test))


def variant_places(root, name):
    """{place: whether the tree has it} for the known variant `name` of `rope check`: the files docs/architecture.md
    lists for a new known bug ("Adding something"), each a file it touches."""
    import glob
    stem = name.replace("-", "_")
    source = os.path.join(root, "src", "rope", "analysis", "variants", f"{stem}.cpp")
    text = read(root, source) if os.path.exists(source) else ""
    # Its sentences' ids: each msg( call's string, its literals joined (docs words under ROPE_VARIANT_DOCS aside).
    code = text.split("#else", 1)[-1]
    ids = ["".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m))
           for m in re.findall(r'msg\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+)', code)]
    po = read(root, "po/zh_CN.po")
    po_ids = {"".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m))
              for m in re.findall(r'^msgid ((?:"(?:[^"\\]|\\.)*"\s*)+)', po, re.M)}
    answers = read(root, "tests/cli/corpus_answers.json")
    generators = [read(root, g) for g in glob.glob(os.path.join(root, "tests", "reference", "*.py"))]
    return {
        "its file, src/rope/analysis/variants/<name>.cpp": bool(text),
        "its line in src/rope/analysis/variants/variant_list.hpp":
            f'#include "rope/analysis/variants/{stem}.cpp"' in read(root, "src/rope/analysis/variants/variant_list.hpp"),
        "its sentences' Chinese in po/zh_CN.po": bool(ids) and all(i in po_ids for i in ids),
        "its corpus row's dumps, a generator of tests/reference/": any(f'"{name}"' in g for g in generators),
        "its corpus row's answers, tests/cli/corpus_answers.json": f'"matches": "{name}"' in answers,
        "identify's reading of its dump, tests/cli/test_cmd_identify_agrees.cpp":
            f'"{name}"' in read(root, "tests/cli/test_cmd_identify_agrees.cpp"),
        "its row of docs/check.md's table (make docs)": f"`{name}`" in read(root, "docs/check.md"),
    }


def variants_counts(root):
    """The places of a known variant, and how many of the variants of variant_list.hpp are in all of them."""
    names = [m.replace("_", "-") for m in re.findall(r'#include "rope/analysis/variants/(\w+)\.cpp"',
                                                    read(root, "src/rope/analysis/variants/variant_list.hpp"))]
    places = [variant_places(root, n) for n in names]
    return len(places[0]), sum(all(p.values()) for p in places), len(names)


def found_by_code(root):
    """The rows of variant_list.hpp found by code (a detection other than compared or built from the dump), and how
    many of them hold what finds them in their file: a screen, a search, a reading of the failing elements, of the
    measurement, of q and k's pass, of a range's parts or of the pair norms, or a mode's diagnosis."""
    found = held = 0
    for stem in re.findall(r'#include "rope/analysis/variants/(\w+)\.cpp"',
                           read(root, "src/rope/analysis/variants/variant_list.hpp")):
        code = read(root, f"src/rope/analysis/variants/{stem}.cpp").split("#else", 1)[-1]
        detection = re.search(r"VariantDetection::(\w+)", code)
        if not detection or detection.group(1) in ("Compared", "FromDump"):
            continue
        found += 1
        held += bool(re.search(r"\br\.(?:screen|search|classified|measured|paired|over_parts|by_norms|in_mode) =", code))
    return found, held


def commands_rows(root):
    sys.path.insert(0, os.path.join(root, "tests", "hardening"))
    import cases  # noqa: E402
    return cases.command_rows(root)


def claims(root):
    """(what, pattern with one number group, the tree's number)."""
    places = places_counts(root)
    variants = variants_counts(root)
    by_code = found_by_code(root)
    return [
        ("the commands, kCommands' rows", r"building all (\w+) commands' options", commands(root)),
        ("run_check's lines, apps/rope/cli/commands/cmd_check.cpp", r"cmd_check\.cpp's `run_check` is (\w+) lines",
         function_lines(root, "apps/rope/cli/commands/cmd_check.cpp", "run_check")),
        ("the library's layers, cmake/library_sources.cmake ROPE_LAYERS", r"the (\w+) layers are one CMake target each",
         layers(root)),
        ("the places of a command on the report layer (command_places)",
         r"A command on the report layer takes up to (\w+) files", places[0]),
        ("the commands in all of them", r"today (\w+) commands \(`diff` and `identify`\) are in all of them", places[1]),
        ("the commands in all but a report test of their own", r"(\w+) are in all but a report test of their own",
         places[2]),
        ("the commands in fewer", r"and (\w+) in fewer", places[3]),
        ("the files a new known variant touches (variant_places)",
         r"A new known bug of `rope check` touches (\w+) files", variants[0]),
        ("the known variants in all of them", r"today (\w+) of the \w+ known variants are in all of them",
         variants[1]),
        ("the known variants, src/rope/analysis/variants/variant_list.hpp", r"today \w+ of the (\w+) known variants",
         variants[2]),
        ("the rows found by code (found_by_code)", r"today \w+ of the (\w+) rows found by code", by_code[0]),
        ("the rows found by code that hold what finds them", r"today (\w+) of the \w+ rows found by code", by_code[1]),
    ]


def lesson_minutes(root):
    """The minutes of docs/classroom.md's timing table, added up; a heading that states another total fails."""
    text = read(root, "docs/classroom.md")
    rows = re.findall(r"^\| \d+:\d\d \|.*\| (\d+) \|$", text, re.M)
    total = sum(int(m) for m in rows)
    heading = re.search(r"^## Timing: (\d+) minutes$", text, re.M)
    if not heading or int(heading.group(1)) != total:
        raise RuntimeError(f"docs/classroom.md: its timing table adds up to {total} minutes, its heading says "
                           f"{heading.group(0) if heading else 'nothing'}")
    return total


def readme_claims(root):
    """(what, sentence found, the number it states, the tree's number) for README.md."""
    text = read(root, "README.md")
    flat = re.sub(r"\s+", " ", text)
    out = []
    m = re.search(r"one C\+\+17 program of (\w+) commands", flat)
    out.append(("the commands, kCommands' rows", m and m.group(0), m and number(m.group(1)), commands(root)))
    minutes = lesson_minutes(root)
    said = re.findall(r"\ba (\w+)-minute (?:class|lesson)", flat)
    if not said:
        out.append(("the class's length, docs/classroom.md's timing table", None, None, minutes))
    for word in said:
        out.append(("the class's length, docs/classroom.md's timing table", f"a {word}-minute", number(word), minutes))
    for paragraph in re.split(r"\n\s*\n", text):
        flat_paragraph = re.sub(r"\s+", " ", paragraph)
        for m in re.finditer(r"\b(\w+) commands (?:sound|are)\b", flat_paragraph):
            if number(m.group(1)) is None:
                continue
            named = set(re.findall(r"`rope ([a-z-]+)", flat_paragraph))
            out.append((f"the commands its paragraph names ({', '.join(sorted(named))})", m.group(0),
                        number(m.group(1)), len(named)))
    return out


def check_readme(root):
    problems = []
    for what, sentence, said, measured in readme_claims(root):
        if sentence is None:
            problems.append(f"README.md no longer states {what} ({measured})")
        elif said != measured:
            problems.append(f"README.md says {sentence!r}; the tree has {measured} ({what})")
    return problems


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
    problems = check(sys.argv[1]) + check_readme(sys.argv[1])
    for p in problems:
        print(p)
    if problems:
        sys.exit(1)
    print("docs/architecture.md and README.md: their counts are the tree's")


if __name__ == "__main__":
    main()
