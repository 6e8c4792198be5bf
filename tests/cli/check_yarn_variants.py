#!/usr/bin/python3
"""`rope check` and `rope inspect` with --yarn-variant against tests/reference/yarn_variants.py, a NumPy port of vLLM's
TeleChat3 (telechat3_scaling_rope.py @ d5a17e0517) and Grok-1 (grok1_scaling_rope.py @ e443db5afd) YaRN, run at
test time. check: the engines' dumps pass (exit 0), the planted bugs fail (exit 1): TeleChat3 with standard YaRN's
0.1·ln f + 1, Grok with its mscale applied, Grok with YaRN's linear blend.

Usage: check_yarn_variants.py --rope PATH --out DIR   (DIR receives the dumps)
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from manifest_cases import generated_cases, run  # noqa: E402


def main():
    a, manifest = generated_cases("yarn_variants.py")
    model = ["--base", f"{manifest['base']:g}", "--layout", "half", "--scaling", "yarn",
             "--factor", f"{manifest['factor']:g}", "--original-max-position", str(manifest["original_max_position"])]
    failures = []
    for case in manifest["cases"]:
        d = os.path.join(a.out, case["dir"])
        variant = ["--yarn-variant", case["variant"]]
        code, out, err = run(a.rope, ["check", "--before", os.path.join(d, "q.npy"), "--after",
                                      os.path.join(d, "q_rope.npy"), "--positions", os.path.join(d, "positions.npy"),
                                      "--angles", "float32", "--json"] + model + variant)
        if code != case["exit"]:
            failures.append(f"check {case['name']}: exit {code}, expected {case['exit']}: {err.strip()} {out[:400]}")
        else:
            print(f"check   {case['name']:32} exit {code}  max ratio {json.loads(out)['max_ratio']:.3g}")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
