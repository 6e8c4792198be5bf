#!/usr/bin/python3
"""`rope check --coefficients` and `rope inspect` on FoPE (Intern-S1-Pro) against tests/reference/fope.py, a NumPy port
of vLLM's FourierRotaryEmbedding (fope.py @ 151a2c744af6 and @ c215d1e62d) checked against the model's own
modeling_interns1_pro.py, run at test time. The query (16 heads on 4 key-value heads) and key dumps of vLLM's current
code pass with the coefficients read from the sharded checkpoint; those of its earlier code (sin padded with 1) fail
(exit 1) with the diagnosis fope-sin-padded-one and the 19 padded pairs, in English and in Chinese; the shared matrix
with num_inv_freq 32 passes from a single .safetensors file. inspect names K = 45 kept and 19 padded pairs; a FoPE
config without --coefficients is refused (exit 2) naming the option.

Usage: check_fope.py --rope PATH --out DIR   (DIR receives the dumps)
"""
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
