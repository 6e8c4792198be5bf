#!/usr/bin/env python3
"""One voice (docs/architecture.md, "How a report plugs in"), checked on the source tree.

  prints         a command (apps/rope/cli/commands/*.cpp) writes nothing itself: no `out <<`; the report's
                 printers write, through emit_report (apps/rope/cli/report_output.hpp).
  format_switch  a command chooses no format itself: no `Format::Json`, `Format::Text`, `Format::Csv`, no
                 `csv == "-"` / `csv != "-"` (emit_report maps --json, --csv, --lang, --digits).
  web_objects    the live page converts report values and assembles at most MAX_WEB_OBJECTS objects of its own
                 (`val::object()` in web/*.cpp).
  python_json    the Python module serialises no report itself: no `json.dumps(` in apps/python/ (to_json() is
                 the library's JSON text).
  cli_spelling   no string of the library (src/) spells a command-line flag (`"… --name …"`): a setting is named
                 through option_name (core/message.hpp), each front end its own way. Another program's options
                 (LLAMA_CPP_OPTIONS: rope inspect's row "llama.cpp" says how llama.cpp is told the same scaling)
                 are that program's words in every front end, not rope's.
                 A variant file's words in docs/check.md (src/rope/analysis/variants/, under #ifdef
                 ROPE_VARIANT_DOCS) are the docs', which only rope_docgen compiles: they may spell the flags.
  foreign_option none of LLAMA_CPP_OPTIONS is an option of rope's command line (then it would be rope's spelling).
  run_lines      every `run_*` function of a command (apps/rope/cli/commands/*.cpp) is at most MAX_RUN_LINES lines,
                 its signature to its closing brace: a command parses, calls the library once and emits; its rules
                 are the library's.

The parts not yet true are KNOWN: per file, the count of violations today. A file over its count, or a file not
listed, fails; a file under its count fails too, asking to shrink the list, so that the list only shrinks.

Usage: check_voice.py ROOT, or --self-test. Prints each violation and exits 1 if any.
"""

import os
import re
import sys

MAX_WEB_OBJECTS = 2
MAX_RUN_LINES = 16

# rule -> {path relative to the root: violations today}. Shrinks as commands move onto the report layer.
KNOWN = {
    "prints": {},
    "format_switch": {},
    "web_objects": {},
    "python_json": {},
    "cli_spelling": {},
    "foreign_option": {},
    "run_lines": {},
}

# llama.cpp's command-line options (common/arg.cpp), which rope inspect prints as llama.cpp spells them.
LLAMA_CPP_OPTIONS = {"--rope-scale", "--rope-freq-scale", "--rope-scaling", "--yarn-orig-ctx", "--rope-freq-base"}

PRINT = re.compile(r"\bout\s*<<|std::cout\b")
FORMAT = re.compile(r"Format::(Json|Text|Csv)\b|csv\s*[!=]=\s*\"-\"")
WEB_OBJECT = re.compile(r"val::object\(\)")
PY_JSON = re.compile(r"json\.dumps\(")
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]+")


def files(root, folder, suffixes):
    base = os.path.join(root, folder)
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "build")))
        for name in sorted(filenames):
            if name.endswith(suffixes):
                yield os.path.join(dirpath, name)


def code_of(line):
    """The line without its // comment (a // inside a string literal stays)."""
    quoted = False
    i = 0
    while i < len(line):
        c = line[i]
        if c == "\\" and quoted:
            i += 2
            continue
        if c == '"':
            quoted = not quoted
        elif not quoted and line.startswith("//", i):
            return line[:i]
        i += 1
    return line


def strings_of(code):
    """The string literals of a line of code, their quotes removed."""
    return re.findall(r'"((?:[^"\\]|\\.)*)"', code)


def count(root, folder, suffixes, match, comments="//"):
    found = {}
    for path in files(root, folder, suffixes):
        n = 0
        with open(path, encoding="utf-8") as f:
            docs = False  # in a variant file's docs words (#ifdef ROPE_VARIANT_DOCS: rope_docgen's alone)
            for line in f:
                if line.startswith("#ifdef ROPE_VARIANT_DOCS"):
                    docs = True
                elif docs and line.startswith(("#else", "#endif")):
                    docs = False
                if docs:
                    continue
                if comments == "//":
                    line = code_of(line)
                elif line.lstrip().startswith("#"):
                    continue
                n += match(line)
        if n:
            found[os.path.relpath(path, root)] = n
    return found


def rope_flags(text):
    """The flags a string spells, but another program's (LLAMA_CPP_OPTIONS)."""
    return [f for f in FLAG.findall(text) if f not in LLAMA_CPP_OPTIONS]


def foreign_options_defined(root):
    """LLAMA_CPP_OPTIONS that rope's command line defines itself (add_option / add_flag)."""
    found = {}
    for path in files(root, "apps/rope/cli", (".cpp", ".hpp")):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        n = sum(len(re.findall(r'add_(?:option|flag)\w*\(\s*"' + re.escape(flag) + r'[",]', text))
                for flag in LLAMA_CPP_OPTIONS)
        if n:
            found[os.path.relpath(path, root)] = n
    return found


def long_runs(root):
    """{file: the run_* functions over MAX_RUN_LINES lines} of apps/rope/cli/commands."""
    found = {}
    for path in files(root, "apps/rope/cli/commands", (".cpp",)):
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        n = 0
        for i, line in enumerate(lines):
            if re.match(r"^\S.*\brun_\w+\(", line) and line.rstrip().endswith("{"):
                end = next((j for j in range(i + 1, len(lines)) if lines[j] == "}"), len(lines) - 1)
                n += end - i + 1 > MAX_RUN_LINES
        if n:
            found[os.path.relpath(path, root)] = n
    return found


def measure(root):
    """rule -> {file: violations}."""
    return {
        "prints": count(root, "apps/rope/cli/commands", (".cpp", ".hpp"), lambda l: len(PRINT.findall(l))),
        "format_switch": count(root, "apps/rope/cli/commands", (".cpp", ".hpp"), lambda l: len(FORMAT.findall(l))),
        "web_objects": count(root, "web", (".cpp", ".hpp"), lambda l: len(WEB_OBJECT.findall(l))),
        "python_json": count(root, "apps/python", (".py",), lambda l: len(PY_JSON.findall(l)), comments="#"),
        "cli_spelling": count(root, "src", (".cpp", ".hpp"),
                              lambda l: sum(len(rope_flags(s)) for s in strings_of(l))),
        "foreign_option": foreign_options_defined(root),
        "run_lines": long_runs(root),
    }


def check(root, known):
    problems = []
    for rule, found in measure(root).items():
        allowed = known.get(rule, {})
        for path in sorted(set(found) | set(allowed)):
            n, k = found.get(path, 0), allowed.get(path, 0)
            if rule == "web_objects":  # up to MAX_WEB_OBJECTS is the rule itself, not an exception to shrink
                if n <= MAX_WEB_OBJECTS:
                    if path in allowed:
                        problems.append(f"{path}: {rule}: {n} now, within the rule: remove it from KNOWN")
                    continue
                k = max(k, MAX_WEB_OBJECTS)
            if n > k:
                problems.append(f"{path}: {rule}: {n} (known exceptions: {k}); see docs/architecture.md, one voice")
            elif n < k:
                problems.append(f"{path}: {rule}: {n}, fewer than the {k} known: shrink KNOWN in check_voice.py")
    return problems


def self_test():
    """Each rule finds a planted violation, and a clean tree passes."""
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        def write(rel, text):
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                f.write(text)
        write("apps/rope/cli/commands/cmd_x.cpp", "int run_x() {\n  emit_report(out, run, {opt.json, opt.lang});\n"
              "  // out << a comment is not a print\n}\n")
        write("web/rope_web.cpp", "val a = val::object();\nval b = val::object();\n")
        write("web/one.cpp", "val a = val::object();\n")
        write("apps/python/rope/__init__.py", "# json.dumps( in a comment\nx = 1\n")
        write("src/rope/core/m.cpp", '// "--flag" in a comment\nauto m = error_msg("{0} must be 1", option_name("x"));'
              '\nauto u = "https://example.org//x";\nauto l = "llama.cpp: --rope-freq-base 1e6";\n')
        clean = check(root, {})
        write("apps/rope/cli/commands/cmd_y.cpp", 'void f() { out << "x"; if (opt.csv != "-") g(Format::Json); }\n')
        write("web/rope_web.cpp", "val a = val::object();\nval b = val::object();\nval c = val::object();\n")
        write("apps/python/rope/__init__.py", "import json\ns = json.dumps(data)\n")
        write("src/rope/core/n.cpp", 'throw InvalidArgument(error_msg("add --xpos to it"));\n')
        write("apps/rope/cli/o.cpp", 'app.add_option("--rope-freq-base", base, "the base");\n')
        write("apps/rope/cli/commands/cmd_z.cpp", "int run_z(int a) {\n" + "  a += 1;\n" * 15 + "}\n")
        found = check(root, {})
        # A known exception passes at its count, fails over it and asks to shrink under it.
        known = {"prints": {"apps/rope/cli/commands/cmd_y.cpp": 1}, "format_switch":
                 {"apps/rope/cli/commands/cmd_y.cpp": 3}, "web_objects": {"web/rope_web.cpp": 3},
                 "python_json": {"apps/python/rope/__init__.py": 1}, "cli_spelling": {"src/rope/core/n.cpp": 1},
                 "foreign_option": {"apps/rope/cli/o.cpp": 1}, "run_lines": {"apps/rope/cli/commands/cmd_z.cpp": 1}}
        listed = check(root, known)
    expected = ["cmd_y.cpp: prints: 1", "cmd_y.cpp: format_switch: 2", "rope_web.cpp: web_objects: 3",
                "__init__.py: python_json: 1", "n.cpp: cli_spelling: 1", "o.cpp: foreign_option: 1",
                "cmd_z.cpp: run_lines: 1"]
    missed = [e for e in expected if not any(e in f for f in found)]
    shrink = ["fewer than the 3 known"]
    if clean or missed or len(found) != len(expected) or len(listed) != 1 or shrink[0] not in listed[0]:
        print(f"self-test failed: clean tree gave {clean}; missed {missed}; found {found}; with KNOWN {listed}")
        return 1
    print(f"architecture.voice_self_test: the {len(expected)} planted violations found, none on the clean tree, "
          "KNOWN honoured and shrinking")
    return 0


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    problems = check(sys.argv[1], KNOWN)
    for p in problems:
        print(p)
    print(f"architecture.voice: {len(problems)} violation(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
