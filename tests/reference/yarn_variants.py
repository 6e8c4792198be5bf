#!/usr/bin/python3
"""YaRN with other engines' constants, ported to NumPy from vLLM (formulas only, float32 as the engines compute):

  telechat3:        vllm/model_executor/layers/rotary_embedding/telechat3_scaling_rope.py @ d5a17e0517 (YaRN's ramp,
                    truncate default true; mscale = (0.07·ln f + 1)·attn_factor multiplies cos and sin)
  grok-yarn-log:    vllm/model_executor/layers/rotary_embedding/grok1_scaling_rope.py @ e443db5afd, extra_method
                    yarn_log: inv_freq = exp(ln θ_extrapolation · mask + ln θ_interpolation · (1 − mask)); mscale is
                    computed and not applied (cos and sin unscaled)
  grok-theta-scale: the same file, extra_method theta_scale: base' = base^(ln(L0·f/2π)/ln(L0/2π)), θ_j = base'^(−2j/d)

The correction range is vLLM's yarn_find_correction_range (rotary_embedding/common.py): floor/ceil, clamped to
[0, d − 1]; the ramp yarn_linear_ramp_mask over d/2 pairs. Pairs are rotate_half's (neox style).
Writes OUT_DIR/<case>/{q,q_rope,positions}.npy and OUT_DIR/manifest.json: each case's rope options and expected exit.
Usage: yarn_variants.py OUT_DIR
"""
import json
import math
import os
import sys

import numpy as np

F32 = np.float32
D, BASE, L0, FACTOR = 128, 500000.0, 8192, 4.0
POSITIONS = np.array([0, 1, 5, 100, 4095, 8191, 8192, 20000, 32767], dtype=np.int64)


def correction_range(beta_fast, beta_slow, d, base, l0):
    dim = lambda r: d * math.log(l0 / (r * 2 * math.pi)) / (2 * math.log(base))  # noqa: E731
    return max(math.floor(dim(beta_fast)), 0), min(math.ceil(dim(beta_slow)), d - 1)


def ramp(low, high, n):
    if low == high:
        high += 0.001
    return np.clip((np.arange(n, dtype=F32) - F32(low)) / F32(high - low), 0, 1).astype(F32)


def inv_freq(variant, d=D, base=BASE, l0=L0, f=FACTOR):
    pos = (F32(base) ** (np.arange(0, d, 2, dtype=F32) / F32(d))).astype(F32)
    extra, inter = (F32(1) / pos).astype(F32), (F32(1) / (F32(f) * pos)).astype(F32)
    low, high = correction_range(32, 1, d, base, l0)
    mask = (F32(1) - ramp(low, high, d // 2)).astype(F32)  # inv_freq_mask (extrapolation_factor 1)
    if variant == "grok-yarn-log":
        return np.exp(np.log(extra) * mask + np.log(inter) * (F32(1) - mask)).astype(F32)
    if variant == "grok-theta-scale":
        b = base ** (math.log(l0 * f / (2 * math.pi)) / math.log(l0 / (2 * math.pi)))
        return (F32(1) / (F32(b) ** (np.arange(0, d, 2, dtype=F32) / F32(d)))).astype(F32)
    return (inter * (F32(1) - mask) + extra * mask).astype(F32)  # YaRN's linear blend (telechat3, hf)


def mscale(variant, f=FACTOR):
    if variant == "telechat3":
        return 1.0 if f <= 1 else 0.07 * math.log(f) + 1.0
    if variant == "hf":  # standard YaRN's get_mscale: a planted bug for TeleChat3
        return 1.0 if f <= 1 else 0.1 * math.log(f) + 1.0
    return 1.0  # Grok: computed, not applied


def rotate(q, positions, inv, scale):
    ang = (positions.astype(F32)[:, None] * inv[None, :]).astype(F32)
    cos, sin = (np.cos(ang) * F32(scale)).astype(F32), (np.sin(ang) * F32(scale)).astype(F32)
    cos, sin = np.concatenate([cos, cos], -1)[:, None, :], np.concatenate([sin, sin], -1)[:, None, :]
    h = q.shape[-1] // 2
    rot = np.concatenate([-q[..., h:], q[..., :h]], -1)
    return (q * cos + rot * sin).astype(F32)


# (case, the variant rope is told, the inv_freq of the dump, the attention factor of the dump, expected exit)
CASES = [
    ("telechat3", "telechat3", "telechat3", "telechat3", 0),
    ("telechat3_with_hf_mscale", "telechat3", "telechat3", "hf", 1),  # planted: standard YaRN's 0.1·ln f + 1
    ("grok_yarn_log", "grok-yarn-log", "grok-yarn-log", "grok-yarn-log", 0),
    ("grok_yarn_log_mscale_applied", "grok-yarn-log", "grok-yarn-log", "hf", 1),  # planted: mscale applied
    ("grok_linear_blend", "grok-yarn-log", "telechat3", "grok-yarn-log", 1),  # planted: YaRN's linear blend
    ("grok_theta_scale", "grok-theta-scale", "grok-theta-scale", "grok-theta-scale", 0),
]


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    rng = np.random.default_rng(50_3)
    t = inv_freq("telechat3")
    assert abs(mscale("telechat3") - (0.07 * math.log(4) + 1)) < 1e-15 and t[0] == F32(1)  # first pair kept
    g = inv_freq("grok-yarn-log")
    assert np.allclose(g[-1], t[-1], rtol=1e-6) and g[30] < t[30]  # same ends, geometric blend below linear
    manifest = []
    for name, told, freq, scale, code in CASES:
        d = os.path.join(out_dir, name)
        os.makedirs(d, exist_ok=True)
        q = rng.standard_normal((len(POSITIONS), 2, D)).astype(F32)
        np.save(os.path.join(d, "q.npy"), q)
        np.save(os.path.join(d, "q_rope.npy"), rotate(q, POSITIONS, inv_freq(freq), mscale(scale)))
        np.save(os.path.join(d, "positions.npy"), POSITIONS)
        manifest.append(dict(name=name, dir=name, variant=told, exit=code, attention_factor=mscale(told),
                             inv_freq=[float(x) for x in inv_freq(told)]))
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(dict(cases=manifest, d=D, base=BASE, original_max_position=L0, factor=FACTOR), f)
    print(f"{len(manifest)} cases in {out_dir}")


if __name__ == "__main__":
    main()
