#!/usr/bin/python3
"""`rope check --coefficients` and `rope inspect` on FoPE (Intern-S1-Pro) against tests/reference/fope.py, a NumPy port
of vLLM's FourierRotaryEmbedding (fope.py @ 151a2c744af6 and @ c215d1e62d) checked against the model's own
modeling_interns1_pro.py, run at test time. The query (16 heads on 4 key-value heads) and key dumps of vLLM's current
code pass with the coefficients read from the sharded checkpoint; those of its earlier code (sin padded with 1) fail
(exit 1) with the diagnosis fope-sin-padded-one and the 19 padded pairs, in English and in Chinese; the shared matrix
with num_inv_freq 32 passes from a single .safetensors file. inspect names K = 45 kept and 19 padded pairs; a FoPE
config without --coefficients is refused (exit 2) naming the option. rope diff --coefficients: vLLM's current output
against its earlier one (A right, B wrong at all 13 positions with fope-sin-padded-one and its 19 padded pairs, the two
differing), and against the same computed in float64 (both right, within (D2) of each other). rope apply and rope
matrix --coefficients --kv-head: a vector, R_m and R_Mᵀ R_N − R_(N−M) against the port's float64 computation.

Usage: check_fope.py --rope PATH --out DIR   (DIR receives the dumps)
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from manifest_cases import checked, generated_cases, run  # noqa: E402


def check_apply_matrix(a):
    """rope apply and rope matrix --coefficients --kv-head (issue 67 item 1) against fope.py's apply.json: the rotated
    vector (each of the three forms), every pair's cos′, sin′, |ζ| and arg ζ, R_m, and R_Mᵀ R_N − R_(N−M)'s largest
    entry. Tolerance: (M13)'s κ·ε·(d + |m|) (κ = 8, float64) times Σ_D (|C_cos[D, j]| + |C_sin[D, j]|) (the largest
    over the pairs: how much the kept frequencies' rounding can grow in cos′ and sin′) and ‖x‖ for the vector; times d
    and that weight again for the product of two matrices."""
    import numpy as np
    failures = []
    case = json.load(open(os.path.join(a.out, "apply.json")))
    eps, kappa, d = np.finfo(np.float64).eps, 8.0, 128
    common = ["--config", os.path.join(a.out, case["config"]), "--coefficients",
              os.path.join(a.out, case["coefficients"]), "--kv-head", str(case["kv_head"])]
    m = case["position"]
    x = np.array([float(v) for v in open(os.path.join(a.out, case["vector"])).read().split(",")])
    code, out, err = run(a.rope, ["apply"] + common + ["--position", str(m), "--vector",
                                                        "@" + os.path.join(a.out, case["vector"]), "--json"])
    tol = kappa * eps * (d + m) * case["weight"]
    if code != 0:
        return [f"apply: exit {code}: {err}"]
    report = json.loads(out)
    worst = max(float(np.max(np.abs(np.array(report[form]) - np.array(case["expected"]))))
                for form in ("matrix", "elementwise", "complex"))
    tables = max(float(np.max(np.abs(np.array(report["fope"][k]) - np.array(case[k])))) for k in ("cos", "sin", "scale"))
    angle = np.angle(np.exp(1j * (np.array(report["fope"]["angle"]) - np.array(case["angle"]))))  # modulo 2π
    if worst > tol * np.linalg.norm(x) or tables > tol or float(np.max(np.abs(angle))) > tol * 10 or not report["agree"]:
        failures.append(f"apply: max |rope − NumPy| {worst:.3g} (tolerance {tol * np.linalg.norm(x):.3g}), tables "
                        f"{tables:.3g}, angles {np.max(np.abs(angle)):.3g}")
    else:
        print(f"apply   kv-head {case['kv_head']} m {m}: max |rope − NumPy| {worst:.3g} "
              f"(tolerance {tol * np.linalg.norm(x):.3g}), tables {tables:.3g}")
    code, out, err = run(a.rope, ["matrix"] + common + ["--position", str(m), "--json"])
    expected = np.load(os.path.join(a.out, case["matrix"]))
    got = np.array(json.loads(out)["matrix"]) if code == 0 else None
    if got is None or float(np.max(np.abs(got - expected))) > tol:
        failures.append(f"matrix --position: exit {code}: {err}")
    else:
        print(f"matrix  R_m: max |rope − NumPy| {float(np.max(np.abs(got - expected))):.3g} (tolerance {tol:.3g})")
    rel = case["relative"]
    code, out, err = run(a.rope, ["matrix"] + common + ["--relative", str(rel["m"]), str(rel["n"]), "--json"])
    rtol = kappa * eps * d * (d + 2 * (rel["m"] + rel["n"])) * case["weight"] ** 2
    if code != 0:
        return failures + [f"matrix --relative: exit {code}: {err}"]
    report = json.loads(out)
    if (abs(report["difference"] - rel["max_difference"]) > rtol or report["equal"]
            or report["largest_entry"] != [rel["row"], rel["column"]]):
        failures.append(f"matrix --relative: {report['difference']} at {report['largest_entry']}, NumPy {rel}")
    else:
        print(f"matrix  R_{rel['m']}ᵀ R_{rel['n']} − R_{rel['n'] - rel['m']}: largest entry {report['difference']:.6g} "
              f"(NumPy {rel['max_difference']:.6g}, tolerance {rtol:.3g}): not equal, exit 0")
    head4 = common[:-1] + ["4"]  # past intern-s1-pro's 4 key-value heads
    code, out, err = run(a.rope, ["apply"] + head4 + ["--position", str(m), "--vector", "1,0"])
    if code != 2 or "--kv-head 4" not in err:
        failures.append(f"apply --kv-head 4: exit {code}: {err}")
    return failures


def main():
    a, manifest = generated_cases("fope.py")
    failures = []
    positions = "@" + os.path.join(a.out, "positions.txt")
    for case in manifest["cases"]:
        d = os.path.join(a.out, case["dir"])
        t = case["tensor"]
        args = ["check", "--config", os.path.join(a.out, case["config"]), "--coefficients",
                os.path.join(a.out, case["coefficients"]), "--before", os.path.join(d, f"{t}.npy"), "--after",
                os.path.join(d, f"{t}_rope.npy"), "--positions", positions, "--angles", "float32"] + case.get("extra", [])
        report, named, failure = checked(a.rope, case, args + ["--json"], "padded" if case["padded"] else "kv_head")
        if failure:
            failures.append(failure)
            continue
        code = case["exit"]
        if case["variant"] and case["padded"]:
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
    failures += check_apply_matrix(a)
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
