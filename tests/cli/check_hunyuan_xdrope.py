#!/usr/bin/python3
"""`rope check` and `rope inspect` on HunyuanVL's XD-RoPE against tests/reference/hunyuan_xdrope.py, a NumPy port of
HF's HunYuanVLDenseV1Attention._apply_rotary_pos_emb_xdrope (modular_hunyuan_vl.py @ 17963211f4) and of Tencent's
HunYuanVLRotaryEmbedding (HunyuanOCR train/modeling_hunyuan_vl.py @ c55965d3da), run at test time. Each prefill dump
passes with its own map (--xdrope-map hf|tencent; the config alone is HF's); read with the other it fails (exit 1),
the diagnosis naming the other map (xdrope-hf-map or xdrope-tencent-map) at pair 0; a decode step (one position, p)
passes with either; ratios [0.25] x 4 read as [16] x 4. inspect names both maps' words.

Usage: check_hunyuan_xdrope.py --rope PATH --out DIR   (DIR receives the dumps)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from manifest_cases import checked, generated_cases, run  # noqa: E402


def main():
    a, manifest = generated_cases("hunyuan_xdrope.py")
    failures = []
    for case in manifest["cases"]:
        d = os.path.join(a.out, case["dir"])
        args = ["check", "--config", os.path.join(a.out, case["config"]), "--before", os.path.join(d, "q.npy"),
                "--after", os.path.join(d, "q_rope.npy"), "--axis-positions",
                os.path.join(a.out, case.get("positions", "positions.csv")), "--angles", "float32", "--json"]
        if case["map"]:
            args += ["--xdrope-map", case["map"]]
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
        print(f"check   {case['name']:24} exit {code}  max ratio {report['max_ratio']:.3g}  {named}")
    for m, words in (("hf", "HF's map"), ("tencent", "Tencent's map")):
        code, out, err = run(a.rope, ["inspect", "--config", os.path.join(a.out, "hunyuan_vl.json"), "--xdrope-map", m])
        if code != 0 or words not in out or "XD-RoPE" not in out:
            failures.append(f"inspect --xdrope-map {m}: exit {code}, '{words}' not in: {out} {err}")
        else:
            print(f"inspect --xdrope-map {m:8} {words}")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
