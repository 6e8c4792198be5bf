#!/usr/bin/python3
"""`rope check --coefficients` and `rope inspect` on FoPE (Intern-S1-Pro) against tests/reference/fope.py, a NumPy port
of vLLM's FourierRotaryEmbedding (fope.py @ 151a2c744af6 and @ c215d1e62d) checked against the model's own
modeling_interns1_pro.py, run at test time. The query (16 heads on 4 key-value heads) and key dumps of vLLM's current
code pass with the coefficients read from the sharded checkpoint; those of its earlier code (sin padded with 1) fail
(exit 1) with the diagnosis fope-sin-padded-one and the 19 padded pairs, in English and in Chinese; the shared matrix
with num_inv_freq 32 passes from a single .safetensors file. inspect names K = 45 kept and 19 padded pairs; a FoPE
config without --coefficients is refused (exit 2) naming the option. rope diff --coefficients: vLLM's current output
against its earlier one (A right, B wrong at all 13 positions with fope-sin-padded-one and its 19 padded pairs, the two
differing), and against the same computed in float64 (both right, within (D2) of each other).

Usage: check_fope.py --rope PATH --out DIR   (DIR receives the dumps)
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from manifest_cases import checked, generated_cases, run  # noqa: E402


def main():
    a, manifest = generated_cases("fope.py")
    failures = []
    positions = "@" + os.path.join(a.out, "positions.txt")
    for case in manifest["cases"]:
        d = os.path.join(a.out, case["dir"])
        t = case["tensor"]
        args = ["check", "--config", os.path.join(a.out, case["config"]), "--coefficients",
                os.path.join(a.out, case["coefficients"]), "--before", os.path.join(d, f"{t}.npy"), "--after",
                os.path.join(d, f"{t}_rope.npy"), "--positions", positions, "--angles", "float32"]
        report, named, failure = checked(a.rope, case, args + ["--json"], "padded")
        if failure:
            failures.append(failure)
            continue
        code = case["exit"]
        if case["variant"]:
            code, out, err = run(a.rope, args + ["--lang", "zh"])
            joined = "".join(out.split())  # a Chinese line may break between any two characters
            if code != 1 or "√2·R(π/4)" not in joined or "填充" not in joined:
                failures.append(f"check {case['name']} --lang zh: exit {code}: {out} {err}")
                continue
        print(f"check   {case['name']:20} exit {code}  max ratio {report['max_ratio']:.3g}  {named}")
    # rope diff --coefficients (issue 67): two implementations' outputs of the same query against FoPE's expectation.
    for case in manifest["diffs"]:
        args = ["diff", "--config", os.path.join(a.out, "checkpoint", "config.json"), "--coefficients",
                os.path.join(a.out, "checkpoint"), "--before", os.path.join(a.out, "vllm", "q.npy"), "--after-a",
                os.path.join(a.out, case["a"]), "--after-b", os.path.join(a.out, case["b"]), "--positions", positions,
                "--angles", "float32", "--name-a", "vllm", "--name-b", "other"]
        code, out, err = run(a.rope, args + ["--json"])
        if code != case["exit"]:
            failures.append(f"diff {case['name']}: exit {code}, expected {case['exit']}: {err} {out[:600]}")
            continue
        report = json.loads(out)
        side_b = report["b"]
        named = side_b["diagnosis"]["matches"]
        runs = report["ranges"]
        wrong = [f"{k} {report[k]['passed']}" for k, want in (("a", case["a_right"]), ("b", case["b_right"]))
                 if report[k]["passed"] != want]
        if wrong or named != case["b_variant"] or report["expected"]["fope"]["padded"] != manifest["padded"]:
            failures.append(f"diff {case['name']}: passed {wrong}, b matches {named}: {out[:800]}")
            continue
        if case["b_variant"]:  # what separates them: the padded pairs, named with their count, at every position
            message = side_b["diagnosis"]["message"]
            if (f"{case['padded']} padded pairs" not in message or report["between"]["agree"] or len(runs) != 1
                    or runs[0]["length"] != 13 or not runs[0]["a_right"] or runs[0]["b_right"]):
                failures.append(f"diff {case['name']}: {message}; runs {runs}")
                continue
            code, out, err = run(a.rope, args + ["--lang", "zh"])
            joined = "".join(out.split())
            if code != 1 or "√2·R(π/4)" not in joined or "other" not in joined:
                failures.append(f"diff {case['name']} --lang zh: exit {code}: {out} {err}")
                continue
        elif not report["between"]["agree"]:  # both right: within (D2) of each other
            failures.append(f"diff {case['name']}: both right and yet they differ beyond (D2): {out[:800]}")
            continue
        print(f"diff    {case['name']:20} exit {code}  b matches {named}  between max ratio "
              f"{report['between']['max_ratio']:.3g}")
    words = f"{manifest['kept']} pairs keep their θ"
    code, out, err = run(a.rope, ["inspect", "--config", os.path.join(a.out, "checkpoint", "config.json")])
    flat = " ".join(out.split())
    if code != 0 or words not in flat or f"other {manifest['padded']} of the head's 64 pairs are padded" not in flat:
        failures.append(f"inspect: exit {code}, '{words}' not in: {out} {err}")
    else:
        print(f"inspect {words}, {manifest['padded']} padded")
    case = manifest["cases"][0]
    d = os.path.join(a.out, case["dir"])
    code, out, err = run(a.rope, ["check", "--config", os.path.join(a.out, case["config"]), "--before",
                                  os.path.join(d, "q.npy"), "--after", os.path.join(d, "q_rope.npy"), "--positions",
                                  positions])
    if code != 2 or "--coefficients" not in err:
        failures.append(f"check without --coefficients: exit {code}: {err}")
    else:
        print("check without --coefficients: exit 2, refused")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
