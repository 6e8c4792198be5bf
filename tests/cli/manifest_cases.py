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


def checked(rope, case, args, key):
    """rope ARGS (a check with --json) for a manifest case with "name", "exit", "variant" and the found parameter
    under `key`: (the report, what its diagnosis named, a failure or None). A failure: another exit code, or, where
    the case names a variant, a diagnosis that matches another one or finds another value of `key`."""
    code, out, err = run(rope, args)
    if code != case["exit"]:
        return None, "", f"check {case['name']}: exit {code}, expected {case['exit']}: {err.strip()} {out[:600]}"
    report = json.loads(out)
    if not case["variant"]:
        return report, "", None
    diagnosis = report.get("diagnosis") or {}
    found = diagnosis.get("found", {}).get(key)
    named = f"matches {diagnosis.get('matches')} {key} {found}"
    if diagnosis.get("matches") != case["variant"] or found != case[key]:
        expected = f"expected {case['variant']} {key} {case[key]}"
        return report, named, f"check {case['name']}: {named}, {expected}: {out[:800]}"
    return report, named, None


def inspect_says(rope, config, expectations, failures):
    """`rope inspect CONFIG OPTIONS` for each (options, words) of `expectations`: exit 0 and the words in its output,
    else a failure appended."""
    for options, words in expectations:
        code, out, err = run(rope, ["inspect", config] + options)
        if code != 0 or words not in out:
            failures.append(f"inspect {' '.join(options)}: exit {code}, '{words}' not in: {out} {err}")
        else:
            print(f"inspect {' '.join(options):44} {words}")
