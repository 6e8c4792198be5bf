#!/usr/bin/env python3
"""The same command and seed give byte-identical output: every command below is run twice, each time in
a fresh directory, and its stdout and every file it wrote (CSV, JSON, SVG, PNG) are compared byte for
byte. PDF is left out: cairo writes the creation time into it.

One line per command line in RUNS: a new command that writes data or a figure adds its line."""

import argparse
import os
import subprocess
import sys
import tempfile

RUNS = [
    "frequencies --dim 64 --base 500000 --csv f.csv --png f.png --svg f.svg",
    "frequencies --model llama-3.1-8b --json",
    "matrix --dim 8 --position 3 --csv m.csv --png m.png --svg m.svg",
    "apply --position 2 --vector 1,2,3,4 --csv a.csv",
    "verify --dim 32 --trials 50 --seed 11 --csv v.csv",
    "verify --dim 32 --trials 50 --seed 11 --json",
    "decay --kind random --samples 200 --seed 5 --csv d.csv --png d.png --svg d.svg",
    "decay --base 10000 --base 500000 --max-distance 4096 --csv b.csv --png b.png",
    "wavelengths --dim 128 --base 10000 --context 4096 --csv w.csv --png w.png --svg w.svg",
    "inspect --model phi-3-mini-128k --json",
    "attention --tokens 12 --dim 16 --seed 3 --csv at.csv --png at.png --svg at.svg",
    "encodings --seed 9",
    "layouts --dim 16 --seed 4 --csv l.csv --png l.png",
    "explain --png e.png --svg e.svg",
    "explain --lang zh --png ez.png",
    "verify --dim 32 --trials 50 --seed 11 --dtype f32 --json",
    "precision --max-position 70000 --samples 4 --seed 6 --csv p.csv --png p.png --svg p.svg",
    "bound --context 1024 --csv bo.csv --png bo.png --svg bo.svg",
    "extrapolation --train-length 4096 --tune-length 16384 --png x.png --svg x.svg",
    "decay --lang zh --kind ones --csv dz.csv --png dz.png",
]


def run(rope, line, directory):
    p = subprocess.run([rope] + line.split(), cwd=directory, capture_output=True,
                       env=dict(os.environ, LC_ALL="C.UTF-8"), timeout=300)
    files = {name: open(os.path.join(directory, name), "rb").read() for name in sorted(os.listdir(directory))}
    return p.returncode, p.stdout, p.stderr, files


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rope", required=True)
    a = ap.parse_args()
    rope = os.path.abspath(a.rope)
    problems = []
    for line in RUNS:
        with tempfile.TemporaryDirectory() as d1, tempfile.TemporaryDirectory() as d2:
            first = run(rope, line, d1)
            second = run(rope, line, d2)
        code, out, err, files = first
        if code != 0:
            problems.append(f"rope {line}: exit {code}: {err.decode(errors='replace').strip()}")
            continue
        if first != second:
            what = [n for n in set(first[3]) | set(second[3]) if first[3].get(n) != second[3].get(n)]
            if first[1] != second[1]:
                what.append("stdout")
            problems.append(f"rope {line}: differs between two runs: {sorted(what)}")
        print(f"same bytes twice: rope {line} (stdout {len(out)} bytes, files {sorted(files)})")
    for p in problems:
        print("FAIL " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
