#!/usr/bin/python3
"""`rope check` and `rope inspect` on openPangu-VL's interleaved M-RoPE against tests/reference/openpangu_mrope.py, a
NumPy port of vLLM's MRotaryEmbeddingInterleaved (openpangu_rope.py @ 098d12c28e) and of HF's Qwen3-VL
apply_interleaved_mrope (modeling_qwen3_vl.py @ 00709b862bb8), run at test time. Each dump passes with its own
config (rope_type openpangu, or Qwen3-VL's default interleaved); read with the other it fails (exit 1), the
diagnosis naming the other order (mrope-openpangu-order or mrope-qwen3-order) and the first pair where the two
part (23 for [24, 20, 20], 3 for [16, 24, 24]). inspect says the same pair.

Usage: check_openpangu_mrope.py --rope PATH --out DIR   (DIR receives the dumps)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from manifest_cases import checked, generated_cases, run  # noqa: E402


def main():
    a, manifest = generated_cases("openpangu_mrope.py")
    failures = []
    for case in manifest["cases"]:
        d = os.path.join(a.out, case["dir"])
        args = ["check", "--config", os.path.join(a.out, case["config"]), "--layout", "half", "--before",
                os.path.join(d, "q.npy"), "--after", os.path.join(d, "q_rope.npy"), "--axis-positions",
                os.path.join(a.out, "positions.csv"), "--angles", "float32", "--json"]
        report, named, failure = checked(a.rope, case, args, "pair")
        if failure:
            failures.append(failure)
            continue
        code = case["exit"]
        if case["variant"]:
            diagnosis = report["diagnosis"]
            if f"part at pair {case['pair']}" not in diagnosis.get("message", ""):
                failures.append(f"check {case['name']}: the pair is not said: {diagnosis.get('message')}")
                continue
        print(f"check   {case['name']:36} exit {code}  max ratio {report['max_ratio']:.3g}  {named}")
    for tag, pair in manifest["first_pair"].items():
        words = f"parts from it at pair {pair}"
        code, out, err = run(a.rope, ["inspect", "--config", os.path.join(a.out, f"openpangu_{tag}.json")])
        if code != 0 or words not in out.replace("\n", " "):
            failures.append(f"inspect openpangu_{tag}: exit {code}, '{words}' not in: {out} {err}")
        else:
            print(f"inspect openpangu_{tag:12} {words}")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
