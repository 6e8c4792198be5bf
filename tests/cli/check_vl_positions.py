#!/usr/bin/python3
"""`rope positions --csv -` of HunyuanVL (four streams p, w, h, t) and openPangu-VL (t, h, w) against
tests/reference/vl_positions.py, the NumPy ports of vLLM's get_xdrope_input_positions (hunyuan_vision.py @ 1c1b86e166)
and openPangu-VL's get_mrope_input_positions (openpangu_vl.py @ 00d1d4c552), run at test time on the token lists
vLLM's processors build: every id of every case equal, the decode rows included.

Usage: check_vl_positions.py --rope PATH --configs DIR   (DIR: data/configs)
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import vl_positions as port  # noqa: E402


def args_of(segments, merge, decode):
    a = []
    for kind, size in segments:
        a += ["--text", str(size)] if kind == "text" else [f"--{kind}", "x".join(str(v) for v in size)]
    if merge != 2:
        a += ["--merge-size", str(merge)]
    if decode:
        a += ["--decode", str(decode)]
    return a


def rope_ids(rope, args, columns):
    r = subprocess.run([rope, "positions", *args, "--csv", "-"], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        return None, f"exit {r.returncode}: {r.stderr.strip()}"
    lines = r.stdout.strip().split("\n")
    header = lines[0].split(",")
    if header[3:] != columns:
        return None, f"header {header}"
    return [[int(v) for v in line.split(",")[3:]] for line in lines[1:]], ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rope", required=True)
    ap.add_argument("--configs", required=True)
    a = ap.parse_args()
    failures = []
    hunyuan = os.path.join(a.configs, "hunyuan-vl.json")
    for name, (segments, merge, decode) in port.HUNYUAN_CASES.items():
        want = port.hunyuan_case(segments, merge, decode).T.tolist()
        got, why = rope_ids(a.rope, ["--config", hunyuan, *args_of(segments, merge, decode)], ["p", "w", "h", "t"])
        if got != want:
            failures.append(f"{name}: {why or 'ids differ'}\n  rope {got}\n  port {want}")
            continue
        print(f"{name:52} {len(want):4} tokens equal")
    pangu = os.path.join(a.configs, "openpangu-vl.json")
    for name, (segments, merge, tps, decode) in port.PANGU_CASES.items():
        want = port.pangu_case(segments, merge, tps, decode)[0].T.tolist()
        extra = ["--tokens-per-second", f"{tps:g}"] if tps != 1.0 else []
        got, why = rope_ids(a.rope, ["--config", pangu, *args_of(segments, merge, decode), *extra], ["t", "h", "w"])
        if got != want:
            failures.append(f"{name}: {why or 'ids differ'}\n  rope {got}\n  port {want}")
            continue
        print(f"{name:52} {len(want):4} tokens equal")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
