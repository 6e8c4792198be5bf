#!/usr/bin/python3
"""rope's Z-Image, HunyuanVideo 1.5 and Kandinsky 5 (src/rope/models/grid_rope.hpp) against
tests/reference/diffusers_rope_2026.py, NumPy ports of their diffusers modules at 58eb52c080, and Qwen-Image's dumps
with text tokens, run at test time:
  - `rope positions --config CONFIG --latent-shape FxHxW [--text N] [--scale-factor T,H,W] --json`: every token's
    position and kind equal to the port's (Z-Image's [image, caption] padded to multiples of 32; Kandinsky 5's
    (f, h, w) / scale_factor, regular and nabla orders); Z-Image's omni mode with --condition-image,
    --siglip-grid and one --text per prompt segment: every id and kind z_image_omni_ids's;
  - `rope frequencies --json`: every pair's frequency the port's pair_table() (relative 1e-12);
  - `rope check` on each dump the port writes as the source computes it: exit 0; each planted mistake: exit 1, named;
  - `rope identify` on each correct dump: the family named with every preset that fits.

Usage: check_diffusers_2026.py --rope PATH --out DIR
"""
import argparse
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import diffusers_rope as base  # noqa: E402
import diffusers_rope_2026 as dr  # noqa: E402
import rope_run  # noqa: E402

NAMED = {"mistake_zimage_base10000_f32": "base-10000", "mistake_zimage_base10000_bf16": "base-10000",
         "mistake_hunyuan15_hw_swapped_f32": "axes-swapped", "mistake_hunyuan15_hw_swapped_bf16": "axes-swapped",
         "mistake_kandinsky5_scale_ignored_bf16": "axis-scale-ignored",
         "mistake_qwenimage_text_not_centred_f32": "axis-not-centred",
         "mistake_qwenimage_text_not_centred_bf16": "axis-not-centred",
         "mistake_zimage_caption_from_zero_f32": "caption-from-zero"}

# The families identify names on each correct dump, with their presets (HunyuanVideo 1.5's RoPE is HunyuanVideo's).
IDENTIFY = {"zimage_f32_bshd": "Z-Image (z-image-turbo)",
            "hunyuan15_f32_bshd": "HunyuanVideo (hunyuanvideo), HunyuanVideo 1.5 (hunyuanvideo-1.5-720p-t2v)",
            "kandinsky5_bf16_bshd": "Kandinsky 5 (kandinsky-5.0-t2v-lite-sft-5s)"}

# The positions asked of rope: (model, config overrides, latent, text, --scale-factor).
POSITIONS = [("zimage", {}, (1, 10, 6), 5, None), ("zimage", {}, (1, 8, 8), 32, None), ("zimage", {}, (1, 2, 2), 0, None),
             ("hunyuan15", {}, (3, 4, 6), 2, None), ("kandinsky5", {}, (3, 8, 12), 0, None),
             ("kandinsky5", {}, (5, 60, 80), 0, None), ("kandinsky5", {}, (1, 8, 12), 0, None),
             ("kandinsky5", {}, (3, 8, 12), 0, (1.0, 2.0, 2.0)),
             ("kandinsky5", {"attention_type": "nabla"}, (2, 16, 16), 0, None)]

# Z-Image's omni mode: (target latent, condition latents, prompt segments, SigLIP grids or None). The first is the
# self-test's (the source's own method); segment lengths at, under and over multiples of 32; SigLIP grids of one
# row or column (max(R − 1, 1)) and larger than the latent (rows rescaled down); none (--omni: the pipeline's
# text-to-image, one segment, the image at 1 + L).
OMNI = [((1, 4, 6), [(1, 4, 6), (1, 6, 4)], [5, 7, 40, 3], [(3, 4), (2, 5)]),
        ((1, 8, 8), [(1, 4, 6)], [32, 1, 33], [(1, 7)]),
        ((1, 2, 2), [(1, 10, 6), (1, 2, 4), (1, 6, 6)], [31, 64, 2, 9, 17], [(9, 1), (5, 5), (12, 9)]),
        ((1, 6, 4), [(1, 6, 4)], [5, 7, 3], None),
        ((1, 4, 6), [], [5], None), ((1, 8, 8), [], [40], None)]
# Omni requests refused with one line (exit 2): segments not N + 2 (nor one without a condition image), SigLIP
# grids not one per condition, a SigLIP grid without condition images, a side of 0, a condition not a multiple of the
# patch, condition images or --omni on another model.
OMNI_REFUSED = [("zimage", ["--condition-image", "1x4x6", "--text", "5", "--text", "3"]),
                ("zimage", ["--condition-image", "1x4x6", "--siglip-grid", "3x4", "--siglip-grid", "3x4", "--text", "5",
                            "--text", "3", "--text", "2"]),
                ("zimage", ["--condition-image", "1x4x6", "--siglip-grid", "0x4", "--text", "5", "--text", "3",
                            "--text", "2"]),
                ("zimage", ["--condition-image", "1x4x6", "--siglip-grid", "3by4", "--text", "5", "--text", "3",
                            "--text", "2"]),
                ("zimage", ["--condition-image", "1x5x6", "--text", "5", "--text", "3", "--text", "2"]),
                ("hunyuan15", ["--condition-image", "1x4x6", "--text", "5", "--text", "3", "--text", "2"]),
                ("zimage", ["--omni", "--text", "5", "--text", "3"]), ("hunyuan15", ["--omni", "--text", "5"])]


def omni_args(path, lat, conds, caps, sig):
    args = ["positions", "--config", path, "--latent-shape", "x".join(map(str, lat)), "--json"]
    if not conds:
        args.append("--omni")
    for c in conds:
        args += ["--condition-image", "x".join(map(str, c))]
    for g in sig or []:
        args += ["--siglip-grid", "x".join(map(str, g))]
    for n in caps:
        args += ["--text", str(n)]
    return args


def run(rope, args):
    return rope_run.run(rope, args, timeout=60)


def named_of(code, out):
    return (json.loads(out).get("diagnosis") or {}).get("matches") if code in (0, 1) and out.strip() else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rope", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    failures = []
    for i, (m, over, lat, text, sf) in enumerate(POSITIONS):
        cfg = dr.config(m, **over)
        path = os.path.join(a.out, f"{m}_{i}.json")
        with open(path, "w") as fh:
            json.dump(dr.diffusers_config(cfg), fh)
        args = ["positions", "--config", path, "--latent-shape", "x".join(str(v) for v in lat), "--json"]
        if text:
            args += ["--text", str(text)]
        if sf:
            args += ["--scale-factor", ",".join(str(v) for v in sf)]
        want = dr.positions(cfg, lat, text, scale=sf)
        code, out, err = run(a.rope, args)
        if code != 0:
            failures.append(f"positions {m} {lat}: exit {code}: {err.strip()}")
            continue
        got = json.loads(out)
        pos = np.array(got["positions"], dtype=np.float64)
        kinds_ok = m != "zimage" or got["kinds"] == dr.z_image_ids(cfg, lat, text)[1]
        if pos.shape != want.shape or np.abs(pos - want).max() > 1e-12 or not kinds_ok:
            failures.append(f"positions {m} {lat} text {text} sf {sf}: differ from the port (shapes {pos.shape} "
                            f"{want.shape}, kinds {kinds_ok})")
        else:
            print(f"positions {m:10} {str(lat):12} text {text:2} sf {str(sf):16} {len(pos):4} tokens as the port's")
    z = dr.config("zimage")
    zpath = os.path.join(a.out, "zimage_omni.json")
    with open(zpath, "w") as fh:
        json.dump(dr.diffusers_config(z), fh)
    for lat, conds, caps, sig in OMNI:
        sigs = None if sig is None else list(sig) + [None]
        want, kinds = dr.z_image_omni_ids(z, list(conds) + [lat], caps, sigs)
        code, out, err = run(a.rope, omni_args(zpath, lat, conds, caps, sig))
        got = json.loads(out) if code == 0 else {}
        pos = np.array(got.get("positions", []), dtype=np.float64)
        if code != 0 or pos.shape != want.shape or np.abs(pos - want).max() > 0 or got["kinds"] != kinds:
            failures.append(f"positions zimage omni {lat} {conds} {caps} {sig}: exit {code}, not the port's ids "
                            f"({pos.shape} {want.shape}): {err.strip()}")
        else:
            print(f"positions zimage omni {len(conds)} conditions, segments {caps}: {len(pos)} ids as the port's")
    for m, extra in OMNI_REFUSED:
        cpath = os.path.join(a.out, f"{m}_omni_refused.json")
        with open(cpath, "w") as fh:
            json.dump(dr.diffusers_config(dr.config(m)), fh)
        code, _, err = run(a.rope, ["positions", "--config", cpath, "--latent-shape", "1x8x8"] + extra)
        if code != 2 or len(err.strip().splitlines()) != 1:
            failures.append(f"positions {m} {extra}: exit {code}, expected 2 with one line: {err.strip()}")
        else:
            print(f"refused   {m} {' '.join(extra)}: {err.strip()}")
    for m in dr.MODELS:
        cfg = dr.config(m)
        path = os.path.join(a.out, f"{m}.json")
        with open(path, "w") as fh:
            json.dump(dr.diffusers_config(cfg), fh)
        code, out, err = run(a.rope, ["frequencies", "--config", path, "--json"])
        theta = dr.pair_table(cfg)["theta"]
        inv = np.array(json.loads(out).get("inv_freq", []) if code == 0 else [], dtype=np.float64)
        if inv.shape != theta.shape or np.abs(inv - theta).max() > 1e-12:
            failures.append(f"frequencies {m}: exit {code}, not the port's pair_table: {err.strip()}")
        else:
            print(f"frequencies {m:10} {len(theta)} pairs as the port's pair_table")
    # data/families.json's rows of these classes (docs/families.md): each layout as rope inspect reads the class.
    families = json.load(open(os.path.join(HERE, "..", "..", "data", "families.json"), encoding="utf-8"))
    by_class = {dr.CLASS_NAMES[m]: m for m in dr.MODELS}
    for row in families["diffusers"]["classes"]:
        m = by_class.get(row["class_name"])
        if m is None:
            continue
        code, text, err = run(a.rope, ["inspect", "--config", os.path.join(a.out, f"{m}.json")])
        layout = next((line for line in text.splitlines() if line.strip().startswith("layout")), "")
        if code != 0 or f"layout                   {row['layout']}" not in layout or row["class_name"] not in text:
            failures.append(f"families.json {row['class_name']}: layout {row['layout']} not in rope inspect's: {layout}")
        else:
            print(f"families  {row['class_name']:36} {row['layout']}")
    # The text a model does not place in its sequence, and a scale factor on another model, are refused.
    for m, extra in (("kandinsky5", ["--text", "3"]), ("zimage", ["--scale-factor", "1,2,2"])):
        code, _, err = run(a.rope, ["positions", "--config", os.path.join(a.out, f"{m}.json"), "--latent-shape",
                                    "1x8x8"] + extra)
        if code != 2 or len(err.strip().splitlines()) != 1:
            failures.append(f"positions {m} {extra}: exit {code}, expected 2 with one line: {err.strip()}")
    manifest_dir = os.path.join(a.out, "dumps")
    cases = dr.write_dumps(manifest_dir)
    for c in cases:
        d = os.path.join(manifest_dir, c["dir"])
        args = base.check_args(c, d)
        code, out, err = run(a.rope, ["check"] + args + ["--json"])
        want = 0 if c["expect"] == "pass" else 1
        named = named_of(code, out)
        if code != want:
            failures.append(f"check {c['name']}: exit {code}, expected {want}: {err.strip()[:300]} {out[:300]}")
        elif c["name"] in NAMED and named != NAMED[c["name"]]:
            failures.append(f"check {c['name']}: named {named}, expected {NAMED[c['name']]}")
        else:
            print(f"check     {c['name']:44} exit {code}  {named or ''}")
        if c["name"] in IDENTIFY:
            ident = [x for i, x in enumerate(args) if x != "--config" and (i == 0 or args[i - 1] != "--config")]
            _, text, _ = run(a.rope, ["identify"] + ident)
            if IDENTIFY[c["name"]] not in " ".join(text.split()):
                failures.append(f"identify {c['name']}: not '{IDENTIFY[c['name']]}': {text}")
            else:
                print(f"identify  {c['name']:44} {IDENTIFY[c['name']]}")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
