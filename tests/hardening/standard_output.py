#!/usr/bin/env python3
"""Standard output that cannot be written (issue 19, item 4): `rope … > /dev/full` and `rope … >&-`
exit 3 with "cannot write standard output: <reason>" and write no output file; with standard output
closed, a file rope opens never takes its descriptor (the table must not land in the CSV)."""

import argparse
import os
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rope", required=True)
    a = ap.parse_args()
    rope = os.path.abspath(a.rope)
    problems = []
    with tempfile.TemporaryDirectory(prefix="rope-stdout-") as work:
        csv = os.path.join(work, "f.csv")
        cases = [
            ("> /dev/full", ["frequencies"], open("/dev/full", "w"), "No space left on device"),
            ("--csv - > /dev/full", ["frequencies", "--csv", "-"], open("/dev/full", "w"), "No space left on device"),
            (">&-", ["frequencies"], None, "Bad file descriptor"),
            (">&- with --csv FILE", ["frequencies", "--csv", csv], None, "Bad file descriptor"),
        ]
        for name, args, stdout, reason in cases:
            with open(csv, "w") as f:
                f.write("old\n")
            pass_fds = ()
            preexec = (lambda: os.close(1)) if stdout is None else None
            p = subprocess.run([rope] + args, stdout=stdout if stdout else None, stderr=subprocess.PIPE,
                               text=True, preexec_fn=preexec, pass_fds=pass_fds)
            line = p.stderr.strip()
            print(f"rope {' '.join(args)} ({name}): exit {p.returncode}: {line}")
            if p.returncode != 3 or line != f"rope: cannot write standard output: {reason}":
                problems.append(f"{name}: exit {p.returncode}, {line!r}")
            if open(csv).read() != "old\n":
                problems.append(f"{name}: {csv} changed")
            if stdout:
                stdout.close()
        # Closed stdout and nothing printed (--csv - is the only output, and it is a file): fine.
        p = subprocess.run([rope, "frequencies", "--csv", csv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if p.returncode != 0 or not open(csv).read().startswith("pair,"):
            problems.append(f"plain --csv FILE: exit {p.returncode}")
    for p in problems:
        print("FAIL " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
