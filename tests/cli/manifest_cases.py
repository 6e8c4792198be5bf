"""What the checks of tests/cli that run a NumPy generator share: the command line (--rope PATH --out DIR), the
generator of tests/reference/ run into DIR, its manifest.json of cases, and one rope run with its output."""
import argparse
import json
import os
import subprocess
import sys

REFERENCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference")


def run(rope, args):
    """rope ARGS: (exit code, standard output, standard error)."""
    p = subprocess.run([rope] + args, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def generated_cases(generator):
    """Parses --rope and --out, runs tests/reference/GENERATOR into --out; (the arguments, the manifest's cases)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--rope", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    subprocess.run([sys.executable, os.path.join(REFERENCE, generator), a.out], check=True)
    with open(os.path.join(a.out, "manifest.json")) as f:
        return a, json.load(f)
