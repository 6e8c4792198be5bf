"""The data of the malformed-input sweep (sweep.py) and of docs/errors.md: which bad values each kind of
option gets, the base command lines, and the few (command, option, value) combinations that are in fact
valid. Adding a command or an option needs nothing here when its options use the usual type names
(INT, NUM, LIST, FILE, ...): a command's base command line is the example of its row of kCommands
(apps/rope/cli/commands.hpp); a new type name needs one line in TYPE_CLASSES.
"""

import os
import re
import shlex

# ---------------------------------------------------------------------------------------------------
# Bad values, by class. Each is (label, value); "{fix}" is replaced by the fixtures directory.
# "bad" values must give exit 2 or 3 with one line; "extreme" values may also be accepted (exit 0 or
# 1) but must not crash, hang or exhaust memory.

NUMBER_BAD = [
    ("NaN", "nan"), ("NaN upper", "NaN"), ("infinity", "inf"), ("-infinity", "-inf"),
    ("infinity word", "+infinity"), ("overflow", "1e400"), ("-overflow", "-1e400"),
    ("hex", "0x10"), ("hex float", "0x1p3"), ("locale decimal comma", "1,5"),
    ("thousands space", "1 000"), ("empty", ""), ("blank", " "), ("trailing junk", "128abc"),
    ("leading junk", "abc128"), ("word", "ten"),
    ("newline", "12\n"), ("fullwidth digits", "１２８"),
    ("dot", "."), ("bare exponent", "1e"), ("two signs", "+-1"), ("NUL-like control", "1\x01"),
    ("terminal escape", "1\x1b]0;pwned\x07\x1b[2J"), ("C1 control", "1\u009b31m"),
]
# Integers only: valid reals that are no integers, and integers beyond 64 bits.
INTEGER_ONLY_BAD = [
    ("fraction", "1.5"), ("exponent", "1e3"), ("huge integer", "99999999999999999999999"),
    ("below long", "-9223372036854775809"),
]
NUMBER_EXTREME = [
    ("negative zero", "-0"), ("zero", "0"), ("negative", "-1"), ("int max", "2147483647"),
    ("long max", "9223372036854775807"), ("huge real", "1e308"), ("-huge real", "-1e308"),
    ("underflow", "1e-400"), ("denormal", "5e-324"),
]

LIST_BAD = [
    ("empty list", ""), ("only comma", ","), ("empty item", "1,,2"), ("trailing comma", "1,0,"),
    ("blank items", " , "), ("NaN item", "1,nan"), ("junk item", "1,2x"), ("hex item", "1,0x1"),
    ("overflow item", "1,1e400"), ("@missing", "@{fix}/missing.txt"), ("@directory", "@{fix}"),
    ("@unreadable", "@/proc/self/mem"), ("@binary", "@{fix}/binary.txt"), ("@huge", "@{fix}/huge.txt"),
    ("@endless", "@/dev/zero"), ("@empty", "@{fix}/empty.txt"), ("@ alone", "@"), ("@FIFO", "@{fix}/fifo"),
    ("@terminal", "@/dev/tty"),
    ("@too many items", "@{fix}/many.txt"),
]
LIST_EXTREME = [("thousands of items", ",".join(["1"] * 60000)), ("spaces", " 1 , 0 , 0 , 1 ")]

STRING_BAD = [
    ("empty", ""), ("unknown word", "bogus"), ("newline", "a\nb"),
    ("gnuplot injection", "x'; system('touch INJECTED'); print '"),
    ("backquote", "`touch INJECTED`"), ("not UTF-8", "\udcff\udcfe"), ("very long", "x" * 100000),
    ("terminal escape", "\x1b]0;pwned\x07\x1b[2J"), ("C1 control", "x\u0085\u009b31m"),
]
STRING_EXTREME = []

OUTPUT_FILE_BAD = [
    ("a directory", "{fix}"), ("missing directory", "no/such/dir/out.csv"),
    ("unwritable directory", "/proc/rope-sweep.out"), ("full disk", "FULL_DISK:out.svg"),
    ("/dev/full", "/dev/full"), ("name too long", "n" * 256),
    ("terminal escape in a missing directory", "no\x1b[2J/out.csv"),
    ("not UTF-8 in a missing directory", "no\udcff\u0085/out.csv"),
]
# A device is written in place (a FIFO too, but it waits up to 10 s for a reader: tests/cli/test_output.cpp).
OUTPUT_FILE_EXTREME = [("/dev/null", "/dev/null")]

INPUT_FILE_BAD = [
    ("missing", "{fix}/missing.json"), ("a directory", "{fix}"), ("unreadable", "/proc/self/mem"),
    ("binary", "{fix}/binary.txt"), ("huge", "{fix}/huge.txt"), ("endless", "/dev/zero"),
    ("empty", "{fix}/empty.txt"), ("invalid JSON", "{fix}/invalid.json"),
    ("deep nesting", "{fix}/deep.json"), ("huge number", "{fix}/huge_number.json"),
    ("wrong type", "{fix}/wrong_type.json"), ("duplicate key", "{fix}/duplicate.json"),
    ("empty name", ""), ("FIFO", "{fix}/fifo"), ("terminal", "/dev/tty"),
]
OUTPUT_FILE_BAD.append(("empty name", ""))
INPUT_FILE_EXTREME = []

CLASSES = {
    "integer": (NUMBER_BAD + INTEGER_ONLY_BAD, NUMBER_EXTREME),
    "number": (NUMBER_BAD, NUMBER_EXTREME + [v for v in INTEGER_ONLY_BAD if v[0] != "fraction"]),
    "list": ([v for v in NUMBER_BAD if v[0] != "locale decimal comma"] + LIST_BAD, LIST_EXTREME),
    "string": (STRING_BAD, STRING_EXTREME),
    "output": (OUTPUT_FILE_BAD, OUTPUT_FILE_EXTREME),
    "input": (INPUT_FILE_BAD, INPUT_FILE_EXTREME),
}

# CLI11 type name (as --help shows it) -> class. Unknown type names are swept as "string".
TYPE_CLASSES = {
    "INT": "integer", "NUM": "number", "K": "number", "W": "number", "M": "number",
    "LIST": "list", "a,b": "list",
    "FILE": "output",
    "TEXT": "string", "LANG": "string", "LAYOUT": "string", "KIND": "string", "ENC": "string",
    "NAME": "string", "TYPE": "string", "BOOL": "string",
    "POS": "list", "AXES": "string",
}
# Options whose FILE is read, not written: "command option" or "* option".
INPUT_FILES = {"* --config", "inspect file", "check --before", "check --after", "check --k-before", "check --k-after",
               "identify --before", "identify --after"}

# ---------------------------------------------------------------------------------------------------
# The command line each command's cases start from (the swept option replaces the one of the same name): the
# example of its row of kCommands (apps/rope/cli/commands.hpp), which says why each is what it is, read there so
# that a new command needs nothing here. Paths in the examples are relative to the repository.
_ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
_DUMPS = os.path.join(_ROOT, "data", "dumps", "")
# How messages naming those files appear in docs/errors.md: relative to the repository, the same in every clone.
SHOWN_DUMPS = "data/dumps/"


def command_rows(root=_ROOT):
    """{name: (group, example)} of every row of kCommands."""
    with open(os.path.join(root, "apps", "rope", "cli", "commands.hpp"), encoding="utf-8") as f:
        text = f.read()
    table = text[text.index("kCommands[] = {"):]
    rows = re.findall(r'\{"([a-z]+)",\s*"[^"]*",\s*HelpGroup::(\w+),\s*"([^"]*)",\s*add_\w+_command\}', table)
    if not rows:
        raise RuntimeError("no rows of kCommands found in apps/rope/cli/commands.hpp")
    return {name: (group, example) for name, group, example in rows}


def _base_args():
    base = {}
    for name, (_, example) in command_rows().items():
        words = shlex.split(example)
        if words[:2] != ["rope", name]:
            raise RuntimeError(f"kCommands: the example of {name} does not start with 'rope {name}': {example}")
        args = [_DUMPS + w[len(SHOWN_DUMPS):] if w.startswith(SHOWN_DUMPS) else w for w in words[2:]]
        if args:
            base[name] = args
    return base


BASE_ARGS = _base_args()

# Values that are in fact valid for an option (the sweep then also accepts exit 0 or 1, and checks the
# rest: no crash, one line, no partial file). Keys "command option" ("*" for any command); value: the
# labels, or "*" for all, and why.
ACCEPTED = {
    "* --title": ("*", "any text is a title (the sweep gives it without a figure: refused as needing one)"),
    "diff --name-a": ("*", "any text names an implementation in the report"),
    "diff --name-b": ("*", "any text names an implementation in the report"),
}
