#!/usr/bin/python3
"""`rope check --config`, `rope frequencies --config` and `rope inspect --config` on the dumps and configs of
tests/reference/hf_families.py (an independent NumPy port of Hugging Face's rotary code per family), run at
test time.

  check:        every dump of a family's own code passes (exit 0), float64 ones included (HF's angles are
                float32 whatever the model's dtype); the planted bug fails (exit 1) and is named.
  frequencies:  θ_i of rope (float64) against the port's float32 inv_freq: |Δθ_i| <= 2·(1.5 + |ln θ_i|/2)·ε_f32·θ_i,
                twice the bound (C2) of PyTorch's float32 inv_freq (src/rope/analysis/check/angle_error.hpp), the 2 for
                YaRN's and llama3's mixing, a few more float32 roundings of the same size.
  inspect:      the attention factor within 1e-12 relative (both float64), the rotary dimension exactly, and the
                softmax scale's multiplier (HF yarn_apply_mscale) within 1e-12 relative, absent where HF has none,
                and the softmax scale itself (HF's self.scaling, the port's softmax_scale_value) within 1e-14 relative.
  no RoPE:      a layer without RoPE (NoPE, linear attention, Cohere2's full layers): its unchanged dump passes
                check, and frequencies and inspect refuse the layer (exit 2) saying it has no RoPE.
  refused:      a config HF's own code raises for (ERNIE-4.5-VL's rotary class and a rope_type other than default):
                inspect, frequencies and apply refuse it (exit 2), naming the rope_type, the ValueError and HF's file.
  transformers: rope's θ and attention factor against what transformers 5.17.0 itself holds for the same config
                (tests/data/transformers/rotary.json, recorded by tests/device/record_transformers.py: the config class
                of the case's config.json and its modeling module's rotary class, its inv_freq buffer and
                attention_scaling), within the same float32 bound and 1e-6 relative. Where the class keeps one buffer
                per layer type, the case's (sliding or full); ERNIE-4.5-VL's buffer holds the same θ in the order
                of its 3-D sections, compared as sets. Not judged there: cases the record lacks (no class built from
                the config alone, a layer without RoPE), a layer given by its index where the config lists no
                layer_types, and two configs whose class built from the config alone holds base^(−2j/head_dim)
                over the whole head (rope's θ are its even entries): MiniMax-M2's, where transformers 5.17.0's own
                attention rotates all 128 channels (tests/device/record_partial_heads.py) because its config class
                drops the checkpoints' rotary_dim 64 (transformers issue #48241, fixed by PR #48486; rope follows
                the checkpoints, and names transformers' reading partial-rotary-whole-head), and Mistral 4's MLA
                head (its attention was not run).
Presets (data/models/) are read through --model NAME, the other cases through --config FILE.

Usage: check_hf_families.py --rope PATH --out DIR   (DIR receives the dumps)
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from manifest_cases import generated_cases, run  # noqa: E402

EPS_F32 = 2.0 ** -23


HERE = os.path.dirname(os.path.abspath(__file__))
NOT_JUDGED = {"preset_minimax_m2_f64", "mistral4_class_mla_dims_f64"}
with open(os.path.join(HERE, "..", "data", "transformers", "rotary.json")) as _f:
    TRANSFORMERS_RECORD = json.load(_f)["cases"]


def transformers_theta(case):
    """transformers' own inv_freq and attention scaling for the case (tests/data/transformers/rotary.json), or None;
    where the class keeps one per layer type, the case's layer type (its --layer-type, else sliding or full by its
    name)."""
    name = case["name"]
    rec = TRANSFORMERS_RECORD.get(name)
    if rec is None or name in NOT_JUDGED:
        return None
    bufs, scaling = rec["inv_freq"], rec["attention_scaling"]
    if "inv_freq" in bufs:
        return bufs["inv_freq"], scaling.get("attention_scaling", 1.0), rec["config_class"].startswith("Ernie4_5_VL")
    flags = case.get("flags", [])
    layer = flags[flags.index("--layer-type") + 1] if "--layer-type" in flags else (
        "sliding_attention" if "sliding" in name else "full_attention")
    if layer.isdigit():  # a layer's index: its type in the config's layer_types, where the config lists them
        config = case["source"][1] if case["source"][0] == "--config" else None
        with open(config) if config else open(os.devnull) as f:
            cfg = json.load(f) if config else {}
        types = cfg.get("text_config", cfg).get("layer_types")
        if not types:
            return None
        layer = types[int(layer)]
    if layer + "_inv_freq" not in bufs:
        return None
    return bufs[layer + "_inv_freq"], scaling.get(layer + "_attention_scaling", 1.0), False


def main():
    a, manifest = generated_cases("hf_families.py")
    failures = []
    judged = 0
    for case in manifest:
        if "refused" in case:
            for command in (["inspect"], ["frequencies"], ["apply", "--position", "1", "--vector", ",".join(["1"] * 128)]):
                code, out, err = run(a.rope, command + case["source"])
                if code != 2 or out or f"rope_type '{case['rope_type']}'" not in err or "ValueError" not in err \
                        or "modeling_ernie4_5_vl_moe.py:66-69" not in err or len(err.strip().splitlines()) != 1:
                    failures.append(f"{case['name']}: {command[0]} exit {code}, expected 2 and one line naming rope_type "
                                    f"'{case['rope_type']}' and HF's ValueError ({case['refused']}): {err.strip()} {out[:200]}")
            print(f"refused      {case['name']:34} inspect, frequencies and apply refuse it, as HF's code does")
            continue
        d = os.path.join(a.out, case["dir"])
        cfg = case["source"]  # --config FILE, or --model NAME for a preset of data/models/
        layer = [f for f in case["flags"] if f not in ("--bf16-bits", "--query")]  # check's own flags
        code, out, err = run(a.rope, ["check", "--before", os.path.join(d, "q.npy"), "--after", os.path.join(d, "q_rope.npy")]
                             + case["positions"] + cfg + case["flags"] + ["--json"])
        if code != case["exit"]:
            failures.append(f"{case['name']}: check exit {code}, expected {case['exit']}: {err.strip()} {out[:400]}")
            continue
        report = json.loads(out)
        if case["matches"] and report["diagnosis"]["matches"] != case["matches"]:
            failures.append(f"{case['name']}: diagnosis {report['diagnosis']}, expected {case['matches']}")
        print(f"check        {case['name']:34} exit {code}  max ratio {report['max_ratio']:.3g}  angles {report['angles']}")
        if case["nope"]:
            # A layer without RoPE: its dump is unchanged; frequencies and inspect refuse the layer, saying why.
            for command in ("frequencies", "inspect"):
                code, out, err = run(a.rope, [command] + cfg + layer + ["--json"])
                if code != 2 or ("have no RoPE" not in err and "are NoPE layers" not in err):
                    failures.append(f"{case['name']}: {command} exit {code}, expected 2 naming the layers without RoPE: {err.strip()}")
            print(f"no RoPE      {case['name']:34} frequencies and inspect refuse the layer")
            continue
        code, out, err = run(a.rope, ["frequencies"] + cfg + layer + ["--json"])
        if code != 0:
            failures.append(f"{case['name']}: frequencies exit {code}: {err.strip()}")
            continue
        got = json.loads(out)["inv_freq"]
        want = case.get("freq_theta") or case["theta"]  # frequencies: the model's before any sequence
        if len(got) != len(want):
            failures.append(f"{case['name']}: {len(got)} frequencies, HF {len(want)}")
            continue
        # A zero frequency (proportional's unrotated pairs) must be zero.
        worst = max(abs(g - w) / (2 * (1.5 + abs(math.log(w)) / 2) * EPS_F32 * w) if w > 0 else (0 if g == 0 else math.inf)
                    for g, w in zip(got, want))
        if worst > 1:
            failures.append(f"{case['name']}: θ off by {worst:.3g} of the float32 bound")
        real = transformers_theta(case)
        if real is not None:
            theirs, their_factor, as_sets = real
            mine = sorted(got, reverse=True) if as_sets else got
            theirs = sorted(theirs, reverse=True) if as_sets else theirs
            off = len(mine) != len(theirs) or any(
                abs(g - w) > 2 * (1.5 + abs(math.log(w)) / 2) * EPS_F32 * w if w > 0 else g != 0
                for g, w in zip(mine, theirs))
            if off:
                failures.append(f"{case['name']}: θ is not what transformers 5.17.0 holds for this config")
            judged += 1
        code, out, err = run(a.rope, ["inspect"] + cfg + layer + ["--json"])
        if code != 0:
            failures.append(f"{case['name']}: inspect exit {code}: {err.strip()}")
            continue
        info = json.loads(out)
        if abs(info["attention_factor"] - case["attention_factor"]) > 1e-12 * case["attention_factor"]:
            failures.append(f"{case['name']}: attention factor {info['attention_factor']}, HF {case['attention_factor']}")
        if real is not None and abs(info["attention_factor"] - real[1]) > 1e-6 * real[1]:
            failures.append(f"{case['name']}: attention factor {info['attention_factor']}, transformers {real[1]}")
        if info["rotary_dim"] != case["rotary_dim"]:
            failures.append(f"{case['name']}: rotary dim {info['rotary_dim']}, HF {case['rotary_dim']}")
        # The softmax scale × mscale² of the family's attention (HF yarn_apply_mscale): the multiplier within 1e-12
        # relative (both float64 from one log), and neither field nor note where the family's attention has none.
        want, got = case["softmax_scale"], info.get("softmax_scale")
        if want is None and (got is not None or any("softmax" in n for n in info["notes"])):
            failures.append(f"{case['name']}: softmax scale {got} reported, HF's attention has none")
        if want is not None and (got is None or abs(got["multiplier"] - want) > 1e-12 * want):
            failures.append(f"{case['name']}: softmax scale {got}, HF × {want}")
        # The softmax scale of the family's attention (HF's self.scaling, × the multiplier): within 1e-14 relative (both
        # float64, a power against a square root).
        want, got = case["softmax_scale_value"], info.get("attention_scale", {}).get("value")
        if got is None or abs(got - want) > 1e-14 * want:
            failures.append(f"{case['name']}: attention softmax scale {got}, HF {want}")
        print(f"frequencies  {case['name']:34} θ within {worst:.3g} of the bound, attention factor {info['attention_factor']:.6g}")
    print(f"transformers 5.17.0's own θ and attention factor: {judged} cases judged")
    if judged < 53:
        failures.append(f"only {judged} cases judged against transformers' record (53 when it was recorded)")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
