#!/usr/bin/python3
"""`rope check --vision gemma4` and `rope apply --vision gemma4` against tests/reference/gemma4_vision.py, an
independent NumPy port of Hugging Face's Gemma4VisionRotaryEmbedding and apply_multidimensional_rope
(models/gemma4/modeling_gemma4.py at c308a309e651a7e033f683353f3f75aa66d29502), run at test time.

  check:  the dumps of HF's rotation (float64 and bf16, head_dim 72 as Gemma 4's tower and 64) pass (exit 0) with
          --axis-positions ROW,COL and --angles float32 (HF's rotary class computes the angles, cos and sin in
          float32, "# Force float32"); the planted bugs fail (exit 1): blocks swapped (the row on the first block),
          the interleaved layout inside the blocks (diagnosed as the layout-swapped variant), base 10000 instead of 100, one rotate_half over the whole head.
  diff:   HF's output against the blocks-swapped one: A passes, B fails (exit 1).
  identify: HF's dumps are named Gemma 4's tower (V6) with base 100, base 10000 with 10000, their pairs the half
          layout inside each axis's block (JSON layout "half", axis_blocks true; check's expected layout the same);
          the planted blocks swap matches no vision RoPE, and the interleaved layout inside the blocks is (V4)'s map
          and layout.
  config: --config FILE --tower vision of Gemma 4 configs (tests/reference/gemma4_vision.py CONFIG_CASES: the
          26B-A4B's vision_config, rope_parameters absent, without rope_theta, a legacy rope_scaling, head_dim absent):
          inspect's head_dim, base and every θ_j against the port's vision_config_rope and inv_freq (float64 both:
          within 4 ulps); check passes HF's dumps with the config's tower (d 72, and d 64 from Gemma4VisionConfig's
          default head_dim) and fails them with θ 200; a vision tower's own file (model_type gemma4_vision) is read as
          the tower; a rope_type other than default exits 2.
  apply:  rope's float64 rotation of one head at several patches against the port's rotation with float64 angles
          (the same formula, both float64): every channel within 1e-12·‖x‖, a few roundings of ε = 2^−52 per
          channel with |cos|, |sin| <= 1 (measured about 1e-16).

Usage: check_gemma4_vision.py --rope PATH --out DIR   (DIR receives the dumps)
"""
import csv
import io
import json
import os
import sys

import numpy as np

REFERENCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from manifest_cases import generated_cases, run  # noqa: E402

sys.path.insert(0, REFERENCE)
import gemma4_vision  # noqa: E402  (the port)


def identify_cases(a, failures):
    """identify on the port's dumps: HF's are Gemma 4's tower (V6) with base 100 (float64 within 1e-6 relative, bf16
    within 1e-4: its θ_j are measured from bf16 phases); base 10000 is found as such; blocks swapped match no vision
    RoPE; the interleaved layout inside the blocks is (V4)'s map and layout without its offset."""
    expect = {"gemma4_vision_d72_f64": ("gemma4", 100.0, 1e-6), "gemma4_vision_d72_bf16": ("gemma4", 100.0, 1e-4),
              "gemma4_vision_d64_f64": ("gemma4", 100.0, 1e-6), "bug_base_10000_f64": ("gemma4", 10000.0, 1e-6),
              "bug_interleaved_in_blocks_f64": ("llama4", 100.0, 1e-6), "bug_blocks_swapped_f64": (None, None, None)}
    for name, (kind, base, tol) in expect.items():
        d = os.path.join(a.out, name)
        args = ["identify", "--before", os.path.join(d, "q.npy"), "--after", os.path.join(d, "q_rope.npy"),
                "--axis-positions", os.path.join(d, "positions.csv"), "--json"] + (["--bf16-bits"] if "bf16" in name else [])
        code, out, err = run(a.rope, args)
        if code != 0:
            failures.append(f"identify {name}: exit {code}: {err.strip()}")
            continue
        whole = json.loads(out)
        got = whole.get("vision")
        # The pairs of HF's tower are rotate_half's inside each block: layout half with axis_blocks, not "other".
        if kind == "gemma4" and (whole["layout"] != "half" or whole.get("axis_blocks") is not True):
            failures.append(f"identify {name}: layout {whole['layout']}, axis_blocks {whole.get('axis_blocks')}; "
                            "want half with axis_blocks")
        if name == "bug_interleaved_in_blocks_f64" and (whole["layout"] != "interleaved" or "axis_blocks" in whole):
            failures.append(f"identify {name}: layout {whole['layout']}, axis_blocks {whole.get('axis_blocks')}; "
                            "want interleaved (inside the blocks it is the whole head's)")
        ok = got is None if kind is None else (got is not None and got["kind"] == kind and abs(got["base"] / base - 1) <= tol)
        if not ok:
            failures.append(f"identify {name}: vision {got}, expected {kind} base {base}")
        print(f"identify {name:30} {got['kind'] + ' base ' + format(got['base'], '.8g') if got else 'no vision RoPE'}")


def write_config(path, vision_config, whole=True):
    doc = dict(model_type="gemma4", text_config=dict(model_type="gemma4_text", hidden_size=2816, num_attention_heads=16),
               vision_config=vision_config) if whole else vision_config
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def config_cases(a, failures):
    """--config FILE --tower vision: the tower's values as the port's config class gives them, and dumps checked."""
    dumps = {"d72_f64": "gemma4_vision_d72_f64", "d72_bf16": "gemma4_vision_d72_bf16", "d64_f64": "gemma4_vision_d64_f64"}
    for name, vc in gemma4_vision.CONFIG_CASES:
        path = write_config(os.path.join(a.out, f"config_{name}.json"), vc)
        base, head_dim = gemma4_vision.vision_config_rope(vc)
        code, out, err = run(a.rope, ["inspect", "--config", path, "--tower", "vision", "--json"])
        if code != 0:
            failures.append(f"config {name}: inspect exit {code}: {err.strip()}")
            continue
        j = json.loads(out)
        want = gemma4_vision.inv_freq(base, head_dim, np.float64)
        got = np.array(j["inv_freq"])
        ulps = np.max(np.abs(np.concatenate([want, want]) - got) / np.spacing(np.concatenate([want, want])))
        if j["head_dim"] != head_dim or j["base"] != base or not j.get("axis_blocks") or ulps > 4:
            failures.append(f"config {name}: head_dim {j['head_dim']} base {j['base']} axis_blocks {j.get('axis_blocks')}, "
                            f"θ within {ulps:.3g} ulps; the port: head_dim {head_dim}, base {base}")
        print(f"config {name:38} head_dim {head_dim} base {base:g}: θ_j within {ulps:.0f} ulps of the port")
    # check with the config's tower: the dumps of HF's code pass with the 26B-A4B's values and with the class's head_dim
    # 64, and fail when the config says θ 200 (the value is the config's, not a constant).
    runs = [("gemma4_26b_a4b", "d72_f64", 0), ("gemma4_26b_a4b", "d72_bf16", 0),
            ("no_head_dim_class_default_64", "d64_f64", 0), ("legacy_rope_scaling", "d72_f64", 1)]
    for name, dump, expected in runs:
        d = os.path.join(a.out, dumps[dump])
        args = ["check", "--before", os.path.join(d, "q.npy"), "--after", os.path.join(d, "q_rope.npy"), "--axis-positions",
                os.path.join(d, "positions.csv"), "--config", os.path.join(a.out, f"config_{name}.json"), "--tower", "vision",
                "--angles", "float32"] + (["--bf16-bits"] if "bf16" in dump else [])
        code, out, err = run(a.rope, args)
        if code != expected:
            failures.append(f"check --config {name} on {dump}: exit {code}, expected {expected}: {err.strip()} {out[:300]}")
        print(f"check  --config {name:30} {dump:9} exit {code}")
    own = write_config(os.path.join(a.out, "vision_only.json"), gemma4_vision.CONFIG_CASES[0][1], whole=False)
    code, out, err = run(a.rope, ["inspect", own, "--json"])
    if code != 0 or json.loads(out)["model_type"] != "gemma4_vision" or json.loads(out)["base"] != 100.0:
        failures.append(f"a gemma4_vision file of its own: exit {code}: {err.strip()} {out[:200]}")
    bad = write_config(os.path.join(a.out, "linear.json"),
                       dict(model_type="gemma4_vision", head_dim=72, rope_parameters=dict(rope_type="linear", factor=2.0)))
    code, out, err = run(a.rope, ["inspect", "--config", bad, "--tower", "vision"])
    if code != 2 or "'linear' is not default" not in err:
        failures.append(f"rope_type linear: exit {code}: {err.strip()}")


def main():
    a, manifest = generated_cases("gemma4_vision.py")
    failures = []
    for case in manifest:
        d = os.path.join(a.out, case["dir"])
        args = ["check", "--before", os.path.join(d, "q.npy"), "--after", os.path.join(d, "q_rope.npy"),
                "--axis-positions", os.path.join(d, "positions.csv"), "--vision", "gemma4", "--base", "100", "--angles", "float32", "--json"]
        if case["dtype"] == "bf16":
            args.append("--bf16-bits")
        code, out, err = run(a.rope, args)
        if code != case["exit"]:
            failures.append(f"{case['name']}: check exit {code}, expected {case['exit']}: {err.strip()} {out[:300]}")
            continue
        report = json.loads(out)
        # (V6) is named as what it is: the half layout inside each axis's block (issue 50 item 6).
        if report["expected"]["layout"] != "half" or report["expected"].get("axis_blocks") is not True:
            failures.append(f"{case['name']}: check's expected layout {report['expected']['layout']}, axis_blocks "
                            f"{report['expected'].get('axis_blocks')}; want half with axis_blocks")
        if case["matches"] and report["diagnosis"]["matches"] != case["matches"]:
            failures.append(f"{case['name']}: diagnosis {report['diagnosis']}, expected {case['matches']}")
        print(f"check  {case['name']:32} exit {code}  max ratio {report['max_ratio']:.3g}  "
              f"{report['diagnosis'].get('message', '') if code else ''}")
    # diff: HF's output (A) against the blocks-swapped one (B) at the same inputs: A passes, B fails, exit 1.
    good, bad = os.path.join(a.out, "gemma4_vision_d72_f64"), os.path.join(a.out, "bug_blocks_swapped_f64")
    code, out, err = run(a.rope, ["diff", "--before", os.path.join(good, "q.npy"), "--after-a", os.path.join(good, "q_rope.npy"),
                                  "--after-b", os.path.join(bad, "q_rope.npy"), "--axis-positions",
                                  os.path.join(good, "positions.csv"), "--vision", "gemma4", "--base", "100",
                                  "--angles", "float32", "--json"])
    verdict = json.loads(out) if code in (0, 1) else {}
    if code != 1 or not verdict["a"]["passed"] or verdict["b"]["passed"]:
        failures.append(f"diff: exit {code}, A passed {verdict.get('a', {}).get('passed')}, "
                        f"B passed {verdict.get('b', {}).get('passed')}: {err.strip()}")
    print(f"diff   HF against blocks swapped: exit {code}")
    identify_cases(a, failures)
    config_cases(a, failures)
    rng = np.random.default_rng(7)
    worst = 0.0
    for dim in (8, 72):
        x = rng.standard_normal(dim)
        for row, col in ((0, 0), (0, 1), (1, 0), (3, 5), (63, 47), (255, 254)):
            code, out, err = run(a.rope, ["apply", "--vision", "gemma4", "--base", "100", "--position", f"{row},{col}",
                                          "--vector", ",".join(repr(float(v)) for v in x), "--csv", "-"])
            if code != 0:
                failures.append(f"apply d {dim} at ({row}, {col}): exit {code}: {err.strip()}")
                continue
            rows = list(csv.DictReader(io.StringIO(out)))
            cos, sin = gemma4_vision.cos_sin(np.array([[col, row]]), 100.0, dim, np.float64)
            want = gemma4_vision.apply_multidimensional_rope(x[None, None, :], cos, sin, "f64")[0, 0]
            for form in ("matrix", "elementwise", "complex"):
                got = np.array([float(r[form]) for r in rows])
                err_rel = np.max(np.abs(got - want)) / np.linalg.norm(x)
                worst = max(worst, err_rel)
                if err_rel > 1e-12:
                    failures.append(f"apply d {dim} at ({row}, {col}) {form}: off by {err_rel:.3g}·‖x‖")
    print(f"apply  d 8 and 72 at 6 patches: within {worst:.3g}·‖x‖ of the port (bound 1e-12)")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
