#!/usr/bin/python3
"""rope's diffusers transformers (issue 79, src/rope/models/grid_rope.hpp) against tests/reference/diffusers_rope.py,
the NumPy ports of Wan, Flux.1, Flux.2, Qwen-Image, HunyuanVideo, LTX-Video, Cosmos-Predict2 and Cosmos 3 at diffusers
58eb52c080, run at test time:
  - `rope positions --config CONFIG --latent-shape FxHxW [--text N] [--reference-images K] [--fps R] --json`: the
    axes' names and every token's position equal to the port's positions() within 1e-12 (integers exactly), and the
    CSV (--csv) read back to the same float64 numbers (%.17g);
  - `rope inspect --config CONFIG`: the latent-grid summary and the class; `rope frequencies --json`: the frequency of every pair equal to the port's pair_table() (relative
    1e-12; padding pairs 0), the axis of every pair the port's;
  - data/families.json's diffusers rows: each class's layout as `rope inspect` gives it;
  - `rope check` on each dump the port writes as the source computes it (f32 and bf16, [batch, seq, heads, d] and
    [batch, heads, seq, d]; LTX's [batch, seq, heads·d], the shape its processor rotates, and its [batch, seq,
    heads, d] read whole, each head its slice of the wide table): exit 0;
    each named mistake's dump: exit 1, named where the variant table has its row (NAMED).

Usage: check_diffusers.py --rope PATH --out DIR
"""
import argparse
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import diffusers_rope as dr  # noqa: E402
import diffusers_rope_2026 as dr2026  # noqa: E402
import rope_run  # noqa: E402


# The named mistakes, each by its row of rope's variant table.
NAMED = {"mistake_hunyuan_base10000_f32": "base-10000", "mistake_hunyuan_base10000_bf16": "base-10000",
         "mistake_cosmos_fps16_f32": "axis-positions-scaled", "mistake_cosmos_fps16_bf16": "axis-positions-scaled",
         "mistake_wan_split_12538_d64_f32": "axis-widths-other",
         "mistake_qwenimage_not_centred_f32": "axis-not-centred",
         "mistake_qwenimage_text_start_f32": "text-positions-other",
         "mistake_ltx_angles_bf16": "angles-bf16",
         "mistake_cosmos3_chunked_f32": "mrope-chunked", "mistake_cosmos3_chunked_bf16": "mrope-chunked"}

# Their parameters (`found`), from the ports' own values: the widths forward used at d = 64, the centred first row and
# column of Qwen-Image's 5 × 3 patches (−(H − H // 2), −(W − W // 2)), the text start max(H // 2, W // 2).
FOUND = {"mistake_wan_split_12538_d64_f32": {"t": 22, "h": 21, "w": 21},
         "mistake_qwenimage_not_centred_f32": {"h_start": -3, "w_start": -2},
         "mistake_qwenimage_text_start_f32": {"text_start": 0, "expected_start": 2}}


# The #12538 split turns only each axis's slowest pair wrong (about 2.5e-4 rad per row); in the bf16 dump that stays
# within bf16's tolerance (C1) (check passes it, exit 0), in the float32 one it fails.
WITHIN_TOLERANCE = {"mistake_wan_split_12538_d64_bf16": "the #12538 split within bf16's tolerance (C1)"}


def run(rope, args):
    return rope_run.run(rope, args, timeout=60)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rope", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    failures = []
    for m in dr.MODELS:
        cfg = dr.config(m, **dr.DUMP_OVERRIDES.get(m, {}))
        path = os.path.join(a.out, f"{m}.json")
        with open(path, "w") as fh:
            json.dump(dr.diffusers_config(cfg), fh)
        case = dr.CASES[m]
        fps_list = [None, 24] if m in ("ltx", "cosmos") else [None, 16, 30] if m == "cosmos3" else [None]
        for fps in fps_list:
            lat = case["latent_shape"]
            args = ["positions", "--config", path, "--latent-shape", "x".join(str(v) for v in lat)]
            if case.get("text"):
                args += ["--text", str(case["text"])]
            if case.get("reference_images"):
                args += ["--reference-images", str(case["reference_images"])]
            if fps is not None:
                args += ["--fps", str(fps)]
            want = dr.positions(cfg, lat, text=case.get("text", 0), reference_images=case.get("reference_images", 0),
                                fps=fps)
            code, out, err = run(a.rope, args + ["--json"])
            if code != 0:
                failures.append(f"positions {m} fps {fps}: exit {code}: {err.strip()}")
                continue
            got = json.loads(out)
            pos = np.array(got["positions"], dtype=np.float64)
            if got["axes"] != list(dr.axis_names(cfg)):
                failures.append(f"positions {m}: axes {got['axes']} != {list(dr.axis_names(cfg))}")
            elif pos.shape != want.shape or np.abs(pos - want).max() > 1e-12:
                failures.append(f"positions {m} fps {fps}: differ from the port (shapes {pos.shape} {want.shape})")
            else:
                csv_path = os.path.join(a.out, f"{m}_positions.csv")
                code, _, err = run(a.rope, args + ["--csv", csv_path])
                rows = [line.split(",") for line in open(csv_path).read().splitlines()]
                back = np.array([[float(v) for v in r[2:]] for r in rows[1:]])
                if code != 0 or rows[0][2:] != got["axes"] or not np.array_equal(back, pos):
                    failures.append(f"positions {m}: the CSV does not read back to the JSON's numbers")
                else:
                    print(f"positions {m:10} fps {str(fps):5} {len(pos):4} tokens  max |diff| "
                          f"{np.abs(pos - want).max():.3g}")
        code, text, err = run(a.rope, ["inspect", "--config", path])
        # Cosmos 3's table is Qwen3-VL's interleaved M-RoPE over the head (inspect's M-RoPE summary).
        summary = "mrope_section [24, 20, 20], interleaved" if m == "cosmos3" else "latent-grid RoPE"
        if code != 0 or summary not in text or dr.CLASS_NAMES[m] not in text:
            failures.append(f"inspect {m}: exit {code}, no latent-grid summary or class name: {err.strip()}")
        code, out, err = run(a.rope, ["frequencies", "--config", path, "--json"])
        if code != 0:
            failures.append(f"frequencies {m}: exit {code}: {err.strip()}")
            continue
        table = dr.pair_table(cfg)
        theta = np.asarray(table["theta"], dtype=np.float64)
        got = json.loads(out)
        inv = np.array(got.get("inv_freq", []), dtype=np.float64)
        if inv.shape != theta.shape or np.abs(inv - theta).max() > 1e-12 * max(1.0, np.abs(theta).max()):
            failures.append(f"inspect {m}: the frequencies differ from the port's pair_table")
        else:
            print(f"frequencies {m:8} {len(theta)} pairs as the port's pair_table")
    # data/families.json's diffusers rows (docs/families.md): each class's layout as rope inspect reads the class.
    families = json.load(open(os.path.join(HERE, "..", "..", "data", "families.json"), encoding="utf-8"))
    by_class = {dr.CLASS_NAMES[m]: m for m in dr.MODELS}
    # LTX-2, ported in ltx2_rope.py: its released checkpoints' rope_type split.
    import ltx2_rope
    with open(os.path.join(a.out, "ltx2.json"), "w") as fh:
        json.dump(ltx2_rope.diffusers_config(ltx2_rope.config(rope_type="split")), fh)
    by_class[ltx2_rope.CLASS_NAME] = "ltx2"
    for row in families["diffusers"]["classes"]:
        m = by_class.get(row["class_name"])
        if row["class_name"] in dr2026.CLASS_NAMES.values():
            continue  # Z-Image, HunyuanVideo 1.5, Kandinsky 5: check_diffusers_2026.py
        code, text, err = run(a.rope, ["inspect", "--config", os.path.join(a.out, f"{m}.json")]) if m else (2, "", "")
        layout = next((line for line in text.splitlines() if line.strip().startswith("layout")), "")
        if code != 0 or f"layout                   {row['layout']}" not in layout:
            failures.append(f"families.json {row['class_name']}: layout {row['layout']} not in rope inspect's: {layout}")
        else:
            print(f"families  {row['class_name']:32} {row['layout']}")
    manifest_dir = os.path.join(a.out, "dumps")
    cases = dr.write_dumps(manifest_dir)
    for c in cases:
        if c["name"] in WITHIN_TOLERANCE:
            print(f"check     {c['name']:36} not asserted: {WITHIN_TOLERANCE[c['name']]}")
            continue
        d = os.path.join(manifest_dir, c["dir"])
        args = ["check"] + dr.check_args(c, d)
        code, out, err = run(a.rope, args + ["--json"])
        want = 0 if c["expect"] == "pass" else 1
        named = (json.loads(out).get("diagnosis") or {}).get("matches") if code in (0, 1) and out.strip() else None
        if code != want:
            failures.append(f"check {c['name']}: exit {code}, expected {want}: {err.strip()[:300]}")
        elif c["name"] in NAMED and named != NAMED[c["name"]]:
            failures.append(f"check {c['name']}: named {named}, expected {NAMED[c['name']]}")
        elif c["name"] in FOUND and (json.loads(out).get("diagnosis") or {}).get("found") != FOUND[c["name"]]:
            failures.append(f"check {c['name']}: found {json.loads(out).get('diagnosis', {}).get('found')}, "
                            f"expected {FOUND[c['name']]}")
        else:
            print(f"check     {c['name']:36} exit {code}  {named or ''}")
        if c["name"] in ("mistake_wan_base_1e6_f32", "mistake_wan_base_1e6_bf16", "wan_f32_bshd"):
            # identify: every Wan preset of these widths named; where the base differs, the widths fit and it says so
            # (in bf16 too, where the w block's slowest pairs turn by less than the rounding at base 1e6).
            dump = sum(([k, v] for k, v in zip(args, args[1:]) if k in ("--before", "--after", "--axis-positions",
                                                                         "--axes")), [])
            _, text, _ = run(a.rope, ["identify"] + dump)
            want = ("the widths t 44, h 42, w 42 fit Wan 2.x (wan2.1-t2v-1.3b, wan2.1-t2v-14b), whose base is 10000: "
                    "the base differs" if c["name"].startswith("mistake") else
                    "Wan 2.x (wan2.1-t2v-1.3b, wan2.1-t2v-14b)")
            if want not in " ".join(text.split()):
                failures.append(f"identify {c['name']}: not '{want}': {text}")
        if c["name"] == "mistake_flux_text_counted_f32":
            # Text tokens share (0, 0, 0): the failing ones are listed by index, not as "(0, 0, 0)–(0, 0, 0)".
            _, text, _ = run(a.rope, args)
            if "(first: index 1, position (0, 0, 0)): 1–2" not in text or "(0, 0, 0)–(0, 0, 0)" in text:
                failures.append(f"check {c['name']}: the failing text tokens not listed by index: {text}")
        if c["rope_width"] != c["d"] and c["layout"] == "bshd":
            # LTX's dump in heads, [batch, seq, heads, d] as the attention holds q after the split: read as the one
            # [batch, seq, heads·d] vector the model turns, each head its slice of the wide table; the same answer.
            heads = args[:]
            heads[heads.index("--before") + 1] = os.path.join(d, "q.npy")
            heads[heads.index("--after") + 1] = os.path.join(d, "q_rope.npy")
            code_h, out_h, err_h = run(a.rope, heads + ["--json"])
            named_h = (json.loads(out_h).get("diagnosis") or {}).get("matches") if code_h in (0, 1) else None
            notes = " ".join(json.loads(out_h).get("notes", [])) if code_h in (0, 1) else ""
            if code_h != code or named_h != named or "heads of d =" not in notes:
                failures.append(f"check {c['name']} in heads: exit {code_h} named {named_h}, expected {code} {named}, "
                                f"a note of the heads read whole: {err_h.strip()[:300]} {notes[:300]}")
            else:
                print(f"check     {c['name'] + ' in heads':36} exit {code_h}  {named_h or ''}")
    # identify names Cosmos 3 among the presets whose M-RoPE map, layout and frequencies its dump has (Qwen3-VL's
    # interleave at θ 5e6: qwen3-vl-8b computes the same pairs).
    case = next(c for c in cases if c["name"] == "cosmos3_f32_bshd")
    cdir = os.path.join(manifest_dir, case["dir"])
    ident = ["identify"] + [x for i, x in enumerate(dr.check_args(case, cdir))
                            if x != "--config" and (i == 0 or dr.check_args(case, cdir)[i - 1] != "--config")]
    code, out, err = run(a.rope, ident + ["--json"])
    presets = [p["family"] for p in json.loads(out).get("mrope", {}).get("presets", [])] if code in (0, 1) else []
    if "Cosmos 3" not in presets:
        failures.append(f"identify cosmos3_f32_bshd: exit {code}, Cosmos 3 not among the presets {presets}: {err[:200]}")
    else:
        print(f"identify  cosmos3_f32_bshd                     presets {', '.join(presets)}")
    # Cosmos 3's sections in each spelling Cosmos3OmniTransformer.__init__ reads (transformer_cosmos3.py:431-434):
    # rope_axes_dim; rope_scaling's mrope_section without mrope_interleaved (the class interleaves whatever that key
    # says); neither (the default [24, 20, 20]). Each reads Qwen3-VL's interleave: the dump passes, the chunked
    # mistake is named.
    published = json.load(open(os.path.join(manifest_dir, "cosmos3_f32_bshd", "config.json")))
    forms = {"rope_axes_dim": {"rope_axes_dim": [24, 20, 20]}, "mrope_section alone": {"rope_scaling": {
        "mrope_section": [24, 20, 20]}}, "default": {}}
    for form, keys in forms.items():
        cfg = {k: v for k, v in published.items() if k not in ("rope_scaling", "model_type")}
        cfg.update(keys)
        path = os.path.join(a.out, f"cosmos3_{form.replace(' ', '_')}.json")
        with open(path, "w") as fh:
            json.dump(cfg, fh)
        for name, want, named_want in (("cosmos3_f32_bshd", 0, None),
                                       ("mistake_cosmos3_chunked_f32", 1, "mrope-chunked")):
            case = next(c for c in cases if c["name"] == name)
            args = dr.check_args(case, os.path.join(manifest_dir, case["dir"]))
            args[args.index("--config") + 1] = path
            code, out, err = run(a.rope, ["check"] + args + ["--json"])
            named = (json.loads(out).get("diagnosis") or {}).get("matches") if code in (0, 1) and out.strip() else None
            if code != want or named != named_want:
                failures.append(f"check {name} with Cosmos 3's {form}: exit {code} named {named}, expected {want} "
                                f"{named_want}: {err.strip()[:200]}")
            else:
                print(f"check     {name:36} {form:20} exit {code}  {named or ''}")
    # --grad on a latent grid (issue 79 item 4): the backward of y = R·x is g_x = Rᵀ·g, the port's own apply with sin's
    # sign flipped (Wan's apply_rotary_emb and Flux's apply_rotary_emb alike); a fused kernel that drops the gradient
    # returns 0, output-zero.
    rng = np.random.default_rng(79)
    for model in ("wan", "flux"):
        case = next(c for c in cases if c["name"] == f"{model}_f32_bshd")
        d = os.path.join(manifest_dir, case["dir"])
        cfg = dr.config(model)
        lat = dr.CASES[model]["latent_shape"]
        g = rng.standard_normal(np.load(os.path.join(d, "q.npy")).shape).astype(np.float32)
        if model == "wan":
            c_, s_ = dr._wan_forward(cfg, *dr.token_grid(cfg, lat))
            gx = dr._wan_apply(g, c_, -s_)
        else:
            c_, s_ = dr._flux_tables(cfg, dr.positions(cfg, lat, dr.CASES[model].get("text", 0), 0))
            gx = dr._apply_real(g, c_, -s_)
        np.save(os.path.join(d, "grad_g.npy"), g)
        np.save(os.path.join(d, "grad_gx.npy"), gx)
        np.save(os.path.join(d, "grad_zero.npy"), np.zeros_like(gx))
        base = ["check", "--grad", "--config", os.path.join(d, "config.json"), "--before", os.path.join(d, "grad_g.npy"),
                "--axis-positions", os.path.join(d, "positions.csv"), "--json"]
        for after, want, name in (("grad_gx.npy", 0, None), ("grad_zero.npy", 1, "output-zero")):
            code, out, err = run(a.rope, base + ["--after", os.path.join(d, after)])
            named = (json.loads(out).get("diagnosis") or {}).get("matches") if code in (0, 1) and out.strip() else None
            if code != want or named != name:
                failures.append(f"check --grad {model} {after}: exit {code} named {named}, expected {want} {name}: "
                                f"{err.strip()[:200]}")
            else:
                print(f"grad      {model:8} {after:36} exit {code}  {named or ''}")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
