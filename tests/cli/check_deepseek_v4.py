#!/usr/bin/python3
"""`rope check --config` and `rope inspect` of DeepSeek-V4 configs (model_type deepseek_v4, Hugging Face's form) against
tests/reference/deepseek_v4.py, an independent NumPy port of HF's DeepseekV4Config and its rotary
(models/deepseek_v4/configuration_deepseek_v4.py @ 015c078164, modular_deepseek_v4.py @ 02356fecf2), run at test time.

  check:   the dumps of HF's rotation pass (exit 0) with each config form (legacy compress_ratios with rope_scaling and
           compress_rope_theta; nested rope_parameters {main, compress} with layer_types): queries at token positions
           with the model's default (main), compressed entries at the block positions i · compress_rate +
           first_pool_position, given as the range --positions FIRST:FIRST+N·RATE:RATE (docs/check.md), with
           --layer-type compress, heavily_compressed_attention or compressed_sparse_attention; float32 and bf16, angles
           float32 as HF computes them. The planted bugs fail (exit 1): the rotary part on the head's first 64 channels,
           YaRN's own attention factor 0.1·ln 16 + 1 kept, compress at main's θ 10000, rotate_half pairs (i, i + 32).
  inspect: each layer type's θ_j and attention factor (--layer-type NAME --json) against the port's inv_freq
           (float64 against HF's float32: within 1e-6 relative), the layer lists against the port's layer_types, and
           the class defaults (a config with model_type alone: 43 layers, no sliding layer, compress default RoPE at
           160000).

Usage: check_deepseek_v4.py --rope PATH --out DIR   (DIR receives the dumps)
"""
import json
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from manifest_cases import generated_cases, run  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
import deepseek_v4  # noqa: E402  (the port)

# --layer-type per pool: every name that gives the compressed entries' RoPE.
POOL_TYPES = {"hca": ["compress", "heavily_compressed_attention"], "csa": ["compress", "compressed_sparse_attention"]}


def layer_lists(a, path):
    """{layer type: its layers} from rope inspect's text ("  main: 7 layers: 0–6")."""
    code, out, err = run(a.rope, ["inspect", "--config", path])
    out_layers = {}
    for m in re.finditer(r"^  (\w+): \d+ layers: (.*)$", out if code == 0 else "", re.M):
        layers = []
        for part in m.group(2).split(", "):
            lo, _, hi = part.partition("–")
            layers += list(range(int(lo), int(hi or lo) + 1))
        out_layers[m.group(1)] = layers
    return out_layers


def check_cases(a, manifest, failures):
    for case in manifest["cases"]:
        d = os.path.join(a.out, case["dir"])
        layer_types = POOL_TYPES[case["pool"]] if case["pool"] else [None, "main", "0", "3"]
        for config in ("legacy", "nested"):
            for lt in layer_types:
                args = ["check", "--before", os.path.join(d, "q.npy"), "--after", os.path.join(d, "q_rope.npy"),
                        "--positions", case["positions"] or os.path.join(d, "positions.npy"),
                        "--config", os.path.join(a.out, f"config_{config}.json"), "--angles", "float32", "--json"]
                args += ["--layer-type", lt] if lt else []
                args += ["--bf16-bits"] if case["dtype"] == "bf16" else []
                code, out, err = run(a.rope, args)
                if code != case["exit"]:
                    failures.append(f"check {case['name']} {config} --layer-type {lt}: exit {code}, expected "
                                    f"{case['exit']}: {err.strip()} {out[:300]}")
                    continue
                ratio = json.loads(out)["max_ratio"]
                print(f"check  {case['name']:38} {config:6} {lt or '(default)':30} exit {code}  max ratio {ratio:.3g}")


def inspect_cases(a, manifest, failures):
    want_types = manifest["layer_types"]
    for config in ("legacy", "nested"):
        path = os.path.join(a.out, f"config_{config}.json")
        for lt, label in (("main", "main"), ("sliding_attention", "main"), ("compress", "compress"),
                          ("heavily_compressed_attention", "compress"), ("compressed_sparse_attention", "compress")):
            code, out, err = run(a.rope, ["inspect", "--config", path, "--layer-type", lt, "--json"])
            if code != 0:
                failures.append(f"inspect {config} --layer-type {lt}: exit {code}: {err.strip()}")
                continue
            j = json.loads(out)
            want = np.array(manifest["inv_freq"][label])
            got = np.array(j["inv_freq"])
            rel = np.max(np.abs(got - want) / want) if got.shape == want.shape else float("inf")
            attn = manifest["attention_factor"][label]
            if rel > 1e-6 or abs(j["attention_factor"] - attn) > 1e-12 or j["rotary_dim"] != 64 or j["head_dim"] != 512:
                failures.append(f"inspect {config} --layer-type {lt}: θ within {rel:.3g}, attention factor "
                                f"{j['attention_factor']} (port {attn}), rotary dim {j['rotary_dim']}, head_dim "
                                f"{j['head_dim']}")
            print(f"inspect {config:6} {lt:30} θ_j within {rel:.2g} of the port, attention factor {j['attention_factor']}")
        layers = layer_lists(a, path)
        for name in deepseek_v4.TYPES:
            want = [i for i, t in enumerate(want_types) if t == name]
            if layers.get(name, []) != want:
                failures.append(f"inspect {config}: layers of {name} {layers.get(name)}, the port {want}")
        if layers.get("main") != list(range(len(want_types))):
            failures.append(f"inspect {config}: main's layers {layers.get('main')}")
    # The class's defaults: 43 layers, 2 × heavily_compressed then alternating, compress = default RoPE at 160000.
    path = os.path.join(a.out, "config_class_defaults.json")
    _, rope_dim, types, blocks = deepseek_v4.config_rope(deepseek_v4.CONFIGS["class_defaults"])
    code, out, err = run(a.rope, ["inspect", "--config", path, "--layer-type", "compress", "--json"])
    j = json.loads(out) if code == 0 else {}
    want = deepseek_v4.block_inv_freq(blocks["compress"], rope_dim)[0]
    if code != 0 or j["base"] != 160000.0 or np.max(np.abs(np.array(j["inv_freq"]) - want) / want) > 1e-6:
        failures.append(f"class defaults: exit {code}, {err.strip()} base {j.get('base')}")
    layers = layer_lists(a, path)
    if "sliding_attention" in layers or layers.get("heavily_compressed_attention") != [
            i for i, t in enumerate(types) if t == "heavily_compressed_attention"]:
        failures.append(f"class defaults: layer types {sorted(layers)}")
    print(f"inspect class defaults: {len(types)} layers, compress base {j.get('base')}")


def main():
    a, manifest = generated_cases("deepseek_v4.py")
    failures = []
    check_cases(a, manifest, failures)
    inspect_cases(a, manifest, failures)
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
