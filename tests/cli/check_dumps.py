#!/usr/bin/python3
"""`rope check` and `rope identify` on the dumps of tests/reference/make_dumps.py (independent NumPy), run at test time.

  check:    every correct dump passes (exit 0); every planted bug fails (exit 1) and the diagnosis names it
            (`diagnosis.matches` in the JSON, or the heads in the other layout for the GQA case).
  identify: every correct dump gives back its parameters, within these tolerances (per dump dtype):
            layout and rotary dimension exactly; the scaling family by name (NTK-aware shows as default
            with base' = base·f^(d/(d−2))); each θ_j within an angle error at the largest position P,
            |θ_measured − θ_true|·P <= 1e-4 rad (f32), 5e-3 (f16), 2e-2 (bf16): the dump's own rounding of a
            unit-scale vector (ε/2 per element, ~√2 ε per pair angle, averaged over heads) leaves this;
            the base within 1e-4 relative (f32) or 1e-2 (f16, bf16); the factor within 1e-3 (f32) or 2e-2;
            the attention factor within 1e-5 (f32) or 1e-2; YaRN's ramp ends within 0.5 pair of HF's
            integer low/high; llama3's band wavelengths within 1% of L0/high_freq_factor and
            L0/low_freq_factor.

Usage: check_dumps.py --rope PATH --out DIR   (DIR receives the dumps)
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from manifest_cases import generated_cases, run  # noqa: E402

ANGLE_TOL = {"f32": 1e-4, "f16": 5e-3, "bf16": 2e-2}
BASE_TOL = {"f32": 1e-4, "f16": 1e-2, "bf16": 1e-2}
FACTOR_TOL = {"f32": 1e-3, "f16": 2e-2, "bf16": 2e-2}
ATTN_TOL = {"f32": 1e-5, "f16": 1e-2, "bf16": 1e-2}


def main():
    a, manifest = generated_cases("make_dumps.py")
    failures = []

    def fail(case, what):
        failures.append(f"{case['name']}: {what}")

    for case in manifest:
        files = ["--before", os.path.join(a.out, case["before"]), "--after", os.path.join(a.out, case["after"])]
        if "axis_positions" in case:  # M-RoPE: one t,h,w row per sequence index
            files += ["--axis-positions", os.path.join(a.out, case["axis_positions"])]
        else:
            files += ["--positions", case["positions"]]
        code, out, err = run(a.rope, ["check"] + files + case["flags"] + ["--json"])
        if code != case["exit"]:
            fail(case, f"check exit {code}, expected {case['exit']}: {err.strip()}")
            continue
        report = json.loads(out)
        if case.get("matches") and report["diagnosis"]["matches"] != case["matches"]:
            fail(case, f"diagnosis {report['diagnosis']}, expected {case['matches']}")
        if case.get("swapped") and report["diagnosis"]["swapped_groups"] != case["swapped"]:
            fail(case, f"swapped heads {report['diagnosis']['swapped_groups']}, expected {case['swapped']}")
        if case.get("swapped"):  # identify: mixed layouts across heads are a failed check too (issue 63 item 5)
            code, text, err = run(a.rope, ["identify"] + files)
            heads = ", ".join(str(h) for h in case["swapped"])
            if code != 1 or f"another pairing on heads {heads}" not in text:
                fail(case, f"identify exit {code}, expected 1 with the heads {heads} in its headline: {text[:400]}")
        print(f"check    {case['name']:28} exit {code}  max ratio {report['max_ratio']:.3g}  "
              f"{(report.get('diagnosis') or {}).get('message', '')}")
        want = case.get("identify")
        if not want:
            continue
        flags = ["--bf16-bits"] if case["dtype"] == "bf16" else []
        code, out, err = run(a.rope, ["identify"] + files + flags + ["--json"])
        if code != 0:
            fail(case, f"identify exit {code}: {err.strip()}")
            continue
        got = json.loads(out)
        t = case["dtype"]
        last = int(case["positions"].split(":")[1]) - 1
        if got["layout"] != want["layout"] or got["rotary_dim"] != want["rotary_dim"]:
            fail(case, f"layout {got['layout']} rotary {got['rotary_dim']}, expected {want['layout']} {want['rotary_dim']}")
            continue
        worst = max(abs(g - w) * last for g, w in zip(got["theta"], want["theta"]))
        if worst > ANGLE_TOL[t]:
            fail(case, f"θ angle error {worst:.3g} rad at position {last} > {ANGLE_TOL[t]}")
        if abs(got["attention_factor"] - want["attention_factor"]) > ATTN_TOL[t] * want["attention_factor"]:
            fail(case, f"attention factor {got['attention_factor']} vs {want['attention_factor']}")
        fam = got["family"]
        kind = {"ntk": "default"}.get(want["kind"], want["kind"])
        base = want["base"]
        if want["kind"] == "ntk":
            d = want["rotary_dim"]
            base = want["base"] * want["factor"] ** (d / (d - 2))
        if fam["family"] != kind:
            fail(case, f"family {fam['family']}, expected {kind}")
            continue
        if abs(fam["base"] - base) > BASE_TOL[t] * base:
            fail(case, f"base {fam['base']} vs {base}")
        if kind in ("linear", "yarn", "llama3") and abs(fam["factor"] - want["factor"]) > FACTOR_TOL[t] * want["factor"]:
            fail(case, f"factor {fam['factor']} vs {want['factor']}")
        if kind == "yarn":
            d, l0 = want["rotary_dim"], want["original"]

            def corr(rot):
                return d * math.log(l0 / (rot * 2 * math.pi)) / (2 * math.log(want["base"]))
            low, high = max(math.floor(corr(32)), 0), min(math.ceil(corr(1)), d - 1)
            if abs(fam["ramp_low"] - low) > 0.5 or abs(fam["ramp_high"] - high) > 0.5:
                fail(case, f"yarn ramp {fam['ramp_low']:.2f}–{fam['ramp_high']:.2f}, expected {low}–{high}")
        if kind == "llama3":
            hi, lo = want["original"] / want["high_freq_factor"], want["original"] / want["low_freq_factor"]
            if abs(fam["ramp_low"] - hi) > 0.01 * hi or abs(fam["ramp_high"] - lo) > 0.01 * lo:
                fail(case, f"llama3 bands {fam['ramp_low']:.1f}, {fam['ramp_high']:.1f}, expected {hi}, {lo}")
        print(f"identify {case['name']:28} {got['layout']} r={got['rotary_dim']} {fam['family']} base {fam['base']:.6g} "
              f"factor {fam['factor']:.4g} a {got['attention_factor']:.5f} θ err {worst:.2g} rad")
    for f in failures:
        print("FAIL", f)
    print(f"{len(manifest)} cases, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
