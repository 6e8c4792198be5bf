#!/usr/bin/python3
"""The conformance tier's judge: runs the harness (ggml_rope_cases.cpp: the real ggml kernels, GGUF files
written by ggml's gguf API), then `rope check --config CASE.gguf` on every dump, and `rope inspect` on every
GGUF file. A correct dump must pass, printing its margin (max |delta|/tolerance); a planted bug must fail
with the variant cases.tsv names; on a NoPE layer (expected "no-rope") the unchanged dump must pass and the rotated
one fail (nope.py).

Usage: check_cases.py --rope ROPE --harness HARNESS --lib LIBDIR --out OUTDIR
"""
import argparse
import json
import os
import subprocess
import sys

from nope import check_nope_layer

# The corpus's rows of this tier (issue 76 item 2): `rope identify` on ggml's own partial-rotary captures reads what the
# kernel was called with (ggml_rope_cases.cpp, ggml_rope_indexer_cases.cpp: the mode's layout, n_dims, the block's
# first channel), as check does; GPT-NeoX-shaped ones (NEOX, n_dims < head_dim) were read as FoPE (issue 78 item 1).
IDENTIFY = {
    "phi2-partial": ("half", 32, 0),  # NEOX, n_dims 32 of head 80
    "deepseek32-indexer": ("half", 64, 0),  # NEOX on the first 64 of 128
    "glm-dsa-indexer": ("interleaved", 64, 0),  # NORM on the first 64 of 128
    "dots3note-indexer": ("half", 64, 0),  # NEOX on the first 64 of 128
}


def identify_row(rope, base, positions, truth):
    """identify on one capture: (ok, the line printed)."""
    r = subprocess.run([rope, "identify", "--before", base + ".before.npy", "--after", base + ".after.npy",
                        "--positions", positions, "--json"], capture_output=True, text=True)
    if r.returncode not in (0, 1):
        return False, f"identify exit {r.returncode}: {r.stderr.strip()}"
    j = json.loads(r.stdout)
    got = (j.get("layout"), j.get("rotary_dim"), j.get("rotary_offset", 0))
    fope = " (read as FoPE)" if j.get("fope") else ""
    return got == truth, f"identify {got[0]}, rotary dim {got[1]}, offset {got[2]}{fope}; the kernel's {truth}"


def main():
    # One OpenMP thread per rope process: the tier runs them one or two at a time on CI's two cores, where idle OpenMP
    # threads only spin (a third of a check's CPU time); every number rope prints is the same with any thread count.
    os.environ["OMP_NUM_THREADS"] = "1"
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rope", required=True)
    ap.add_argument("--harness", required=True)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    failed, rows = 0, []
    # The best CPU variant of this machine (FMA), and the portable one without FMA: their last bits differ.
    for variant, extra in (("best", []), ("x64", [os.path.join(a.lib, "libggml-cpu-x64.so")])):
        out = os.path.join(a.out, variant)
        os.makedirs(out, exist_ok=True)
        subprocess.run([a.harness, a.lib, out] + extra, check=True)
        with open(os.path.join(out, "cases.tsv")) as f:
            rows += [[os.path.join(out, line.split("\t")[0])] + line.rstrip("\n").split("\t")
                     for line in f if line.strip()]
    total, identified = 0, set()
    for base, name, positions, args, expected in rows:
        name = os.path.relpath(base, a.out)
        # The portable variant re-runs the kernel cases only: a layer's case tests how rope reads the file, and its
        # kernel call is one of those already run on both variants.
        if name.startswith("x64" + os.sep) and "--layer-type" in args:
            continue
        # A model named by its arguments (a vision kind, a preset) is checked without the case's GGUF file; the
        # positions of a vision tower come as rows ROW,COL (--axis-positions).
        own = "--vision" in args or "--model" in args
        total += 1
        cmd = [a.rope, "check", "--before", base + ".before.npy", "--after", base + ".after.npy", "--json"]
        cmd += ([] if "--axis-positions" in args else ["--positions", positions])
        cmd += ([] if own else ["--config", base + ".gguf"]) + args.split()
        if expected == "no-rope":  # a NoPE layer: the unchanged dump passes, the rotated one fails
            at = args.split()
            layer = int(at[at.index("--layer-type") + 1])
            rest = at[:at.index("--layer-type")] + at[at.index("--layer-type") + 2:]
            ok, text = check_nope_layer(a.rope, base + ".before.npy", base + ".after.npy", ["--positions", positions],
                                        ([] if own else ["--config", base + ".gguf"]) + rest, layer)
            print(f"{'ok  ' if ok else 'FAIL'} {name:28s} expected {expected:20s} {text}")
            failed += 0 if ok else 1
            continue
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode not in (0, 1):
            print(f"FAIL {name}: exit {r.returncode}: {r.stderr.strip()}")
            failed += 1
            continue
        j = json.loads(r.stdout)
        got = "pass" if j["passed"] else (j.get("diagnosis", {}).get("matches") or "unnamed: " +
                                           j.get("diagnosis", {}).get("message", ""))
        ok = got == expected and j.get("angles") == "ggml"  # a GGUF (or --angles ggml) gives ggml's error model
        print(f"{'ok  ' if ok else 'FAIL'} {name:28s} expected {expected:20s} got {got:20s} "
              f"max|delta|/tol {j['max_ratio']:.3g} angles {j.get('angles')}")
        failed += 0 if ok else 1
        if os.path.basename(base) in IDENTIFY and not name.startswith("x64" + os.sep):
            identified.add(os.path.basename(base))
            ok, text = identify_row(a.rope, base, positions, IDENTIFY[os.path.basename(base)])
            print(f"{'ok  ' if ok else 'FAIL'} {name:28s} {text}")
            failed += 0 if ok else 1
        if own or name.startswith("x64" + os.sep):
            continue  # the same file as the best variant's
        # rope inspect reads every file ggml's writer wrote.
        i = subprocess.run([a.rope, "inspect", base + ".gguf"], capture_output=True, text=True)
        if i.returncode != 0:
            print(f"FAIL {name}: rope inspect exit {i.returncode}: {i.stderr.strip()}")
            failed += 1
    for missing in sorted(set(IDENTIFY) - identified):
        print(f"FAIL {missing}: a row of IDENTIFY the harness no longer writes")
        failed += 1
    print(f"{total - failed} of {total} cases as expected")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
