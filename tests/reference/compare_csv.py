#!/usr/bin/env python3
"""Compare a CSV written by rope with a reference CSV, number by number.

    compare_csv.py [--rtol R] [--atol A] [--run "ROPE ARGS"] REFERENCE.csv [CANDIDATE.csv]

With --run, runs `$ROPE ROPE_ARGS --csv FILE` in a temporary directory and compares FILE; otherwise
compares CANDIDATE. Lines starting with '#' are comments. Headers must be equal; every number must
satisfy |a − b| <= atol + rtol·|b| (b the reference). Exit 0 if all do, 1 otherwise. Standard
library only (no NumPy), so it checks rope's output independently of the scripts that made the
reference.
"""
import argparse
import os
import shlex
import subprocess
import sys
import tempfile


def read(path):
    with open(path, encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f if not line.startswith("#")]
    return lines[0], [row.split(",") for row in lines[1:] if row]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rtol", type=float, default=1e-12)
    p.add_argument("--atol", type=float, default=0.0)
    p.add_argument("--run")
    p.add_argument("reference")
    p.add_argument("candidate", nargs="?")
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        candidate = a.candidate
        if a.run:
            candidate = os.path.join(tmp, "out.csv")
            cmd = [os.environ["ROPE"], *shlex.split(a.run), "--csv", candidate]
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        ref_header, ref_rows = read(a.reference)
        got_header, got_rows = read(candidate)
    if ref_header != got_header:
        print(f"header differs: reference {ref_header!r}, got {got_header!r}")
        return 1
    if len(ref_rows) != len(got_rows):
        print(f"row count differs: reference {len(ref_rows)}, got {len(got_rows)}")
        return 1
    worst, where = 0.0, None
    for r, (ref, got) in enumerate(zip(ref_rows, got_rows)):
        for c, (x, y) in enumerate(zip(ref, got)):
            b, v = float(x), float(y)
            excess = abs(v - b) - (a.atol + a.rtol * abs(b))
            rel = abs(v - b) / abs(b) if b else abs(v - b)
            if rel > worst:
                worst, where = rel, (r, c, b, v)
            if excess > 0:
                print(f"row {r + 1} column {c + 1}: reference {b!r}, got {v!r} (|Δ| = {abs(v - b):.3g})")
                return 1
    print(f"{len(ref_rows)} rows equal within rtol {a.rtol:g}, atol {a.atol:g}; worst relative difference "
          f"{worst:.3g}" + (f" at row {where[0] + 1} column {where[1] + 1}" if where else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
