#!/usr/bin/env python3
"""Help fits the terminal it is printed in (issue 68): `rope --help` and `rope check --help`, in English and in
Chinese, run in a pseudo-terminal of 80 columns with COLUMNS unset (an interactive shell does not export it):
every line fits 80 terminal columns (a CJK character counts 2). The same help piped (no terminal) and COLUMNS
unset is broken at 100 columns, the projector's width (a line wider than 80 shows the width came from the
terminal, not from a default of 80); piped with COLUMNS=60 it fits 60.

usage: check_help_terminal.py ROPE
"""
import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
import unicodedata


def width(line):
    return sum(2 if unicodedata.east_asian_width(c) in ("W", "F") else 0 if unicodedata.combining(c) else 1
               for c in line)


def in_terminal(argv, cols, env):
    """argv's output as a terminal of `cols` columns shows it (the pseudo-terminal's lines)."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, cols, 0, 0))
    attrs = termios.tcgetattr(follower)
    attrs[1] &= ~termios.ONLCR  # no \r added to each line
    termios.tcsetattr(follower, termios.TCSANOW, attrs)
    proc = subprocess.Popen(argv, stdout=follower, stderr=follower, stdin=subprocess.DEVNULL, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    if proc.wait(timeout=60) != 0:
        sys.exit(f"{' '.join(argv)} exited {proc.returncode} in a terminal")
    return b"".join(chunks).decode("utf-8").splitlines()


def main():
    rope = sys.argv[1]
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["LC_ALL"] = "C.UTF-8"
    checked = 0
    for args in (["--help"], ["check", "--help"], ["decay", "--help"]):
        for lang in ("en", "zh"):
            argv = [rope, *args, "--lang", lang]
            where = " ".join(argv[1:])
            lines = in_terminal(argv, 80, env)
            wide = [l for l in lines if width(l) > 80]
            if len(lines) < 5 or wide:
                sys.exit(f"{where} in an 80-column terminal: {len(lines)} lines, wider than 80: {wide[:3]}")
            piped = subprocess.run(argv, capture_output=True, text=True, env=env, check=True).stdout.splitlines()
            widest = max(width(l) for l in piped)
            if not 80 < widest <= 100:
                sys.exit(f"{where} piped, COLUMNS unset: widest line {widest} columns (expected 81 … 100)")
            narrow = subprocess.run(argv, capture_output=True, text=True, env={**env, "COLUMNS": "60"},
                                    check=True).stdout.splitlines()
            if max(width(l) for l in narrow) > 60:
                sys.exit(f"{where} piped, COLUMNS=60: a line is wider than 60")
            checked += 1
    print(f"help fits an 80-column terminal, 100 columns piped, $COLUMNS when set: {checked} help pages")


if __name__ == "__main__":
    main()
