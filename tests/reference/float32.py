#!/usr/bin/python3
"""Independent NumPy reference for --float32 (docs/scaling.md (F1)-(F3)): a preset's inv_freq, angles,
cos, sin and the rotated head vector computed in float32 the way Hugging Face transformers computes them
(src/transformers/modeling_rope_utils.py and the <Family>RotaryEmbedding.forward / apply_rotary_pos_emb
of the modeling files), written from HF's Python, not from the C++ code in src/.

Every tensor operation HF performs is one NumPy float32 operation here, in HF's order:

    default   exponent = arange(0, d, 2).float() / d; inv = 1.0 / (base ** exponent)
    linear    inv / factor
    llama3    wavelen = 2*pi / inv            (PyTorch: inv.reciprocal() * 2*pi, torch/_tensor.py __rdiv__)
              llama = where(wavelen > L0/lf, inv / f, inv)
              smooth = (L0 / wavelen - lf) / (hf - lf)       (L0 / wavelen = wavelen.reciprocal() * L0)
              smoothed = (1 - smooth) * llama / f + smooth * llama
              where(~(wavelen < L0/hf) & ~(wavelen > L0/lf), smoothed, llama)
    yarn      pos = base ** exponent; inv_ext = 1.0 / pos; inv_int = 1.0 / (f * pos)
              ramp = clamp((arange(d/2).float() - low) / (high - low), 0, 1); keep = 1 - ramp
              inv = inv_int * (1 - keep) + inv_ext * keep
    longrope  inv = 1.0 / (ext * base ** exponent), ext = float32(long list if seq_len > L0 else short)
    angle     float32(m) * inv                (HF's matmul of a (d/2 x 1) by a (1 x n) matrix: one product)
    cos, sin  cos(angle) * float32(attention_factor)
    apply     x * cos + rotate(x) * sin in float32 (each product and the sum rounded), in the model's layout

Python scalars enter as float32, as PyTorch converts a Python number to the tensor's dtype. The power
and cos/sin are evaluated in float64 with Python's math module (the C library's pow, cos, sin) and
rounded once to float32: that is what rope does, so the comparison is bitwise (0 ULP); PyTorch's CPU
kernels (Sleef, <= 1 ULP) may differ from both in the last bit.

Writes float32.csv next to itself: header preset,position,kind,index,value with kind inv_freq or
output (the head vector of model_apply.py after the rotation), floats as repr() of the float32 value.

    /usr/bin/python3 tests/reference/float32.py
"""

import json
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import model_apply  # noqa: E402  (layouts of each family's modeling code)
import presets  # noqa: E402  (what HF reads from each config)

OUT = os.path.join(HERE, "float32.csv")
F = np.float32

# (preset, positions): one of each method rope computes in float32, and each layout.
CASES = [
    ("llama-2-7b", [1.0, 3000.0]),            # default, half
    ("llama-3.1-8b", [3000.0, 100000.0]),     # llama3
    ("gpt-oss-20b", [3000.0]),                # yarn, truncate false, attention factor
    ("deepseek-v3", [3000.0]),                # yarn with mscale, de-interleaved output
    ("phi-3-mini-128k", [3000.0, 100000.0]),  # longrope, short and long factors
    ("gemma-3-4b", [3000.0]),                 # linear (full-attention layers)
    ("gpt-j-6b", [3000.0]),                   # default, interleaved, partial
    ("chatglm3-6b", [3000.0]),                # default, interleaved, the first half of the head rotates
    ("llama-4-scout-17b-16e", [100000.0]),    # llama3, interleaved (view_as_complex)
]


def pow32(base, e):
    return F(math.pow(float(F(base)), float(e)))


def exponents(d):
    return np.arange(0, d, 2, dtype=np.int64).astype(np.float32) / F(d)


def default(d, base):
    return np.array([F(1.0) / pow32(base, e) for e in exponents(d)], dtype=np.float32)


def llama3(d, base, f, L0, p):
    inv = default(d, base)
    lf, hf = p["low_freq_factor"], p["high_freq_factor"]
    out = np.empty_like(inv)
    for j, v in enumerate(inv):
        wavelen = (F(1.0) / v) * F(2 * math.pi)
        llama = v / F(f) if wavelen > F(L0 / lf) else v
        smooth = ((F(1.0) / wavelen) * F(L0) - F(lf)) / F(hf - lf)
        smoothed = ((F(1.0) - smooth) * llama) / F(f) + smooth * llama
        medium = not (wavelen < F(L0 / hf)) and not (wavelen > F(L0 / lf))
        out[j] = smoothed if medium else llama
    return out


def yarn(d, base, f, L0, p):
    low, high = presets.yarn_range(d, base, L0, p.get("beta_fast") or 32, p.get("beta_slow") or 1,
                                   p.get("truncate", True))
    if low == high:
        high = high + 0.001
    out = np.empty(d // 2, dtype=np.float32)
    for j, e in enumerate(exponents(d)):
        pos = pow32(base, e)
        ext = F(1.0) / pos
        interp = F(1.0) / (F(f) * pos)
        ramp = min(max((F(j) - F(low)) / F(high - low), F(0.0)), F(1.0))
        keep = F(1.0) - ramp
        out[j] = interp * (F(1.0) - keep) + ext * keep
    return out


def longrope(d, base, L0, p, seq_len):
    ext = p["long_factor"] if seq_len > L0 else p["short_factor"]
    return np.array([F(1.0) / (F(ext[j]) * pow32(base, e)) for j, e in enumerate(exponents(d))], dtype=np.float32)


def main():
    rows = []
    for name, positions in CASES:
        with open(os.path.join(presets.MODELS, name + ".json"), encoding="utf-8") as fh:
            cfg = json.load(fh)
        r = presets.resolve(cfg)
        d, base, f, L0, p, rt = r["d"], r["base"], r["f"], r["L0"], r["params"], r["type"]
        n = model_apply.head_size(cfg, r)
        x = np.array([np.cos(0.7 * j + 0.3) + 0.01 * j for j in range(n)])
        for m in positions:
            _, att = presets.compute(rt, d, r["head_dim"], base, f, L0, p, r["prf"])
            if rt == "default":
                inv = default(d, base)
            elif rt == "linear":
                inv = default(d, base) / F(f)
            elif rt == "llama3":
                inv = llama3(d, base, f, L0, p)
            elif rt == "yarn":
                inv = yarn(d, base, f, L0, p)
            elif rt == "longrope":
                inv = longrope(d, base, L0, p, int(m) + 1)
                _, att = presets.longrope(d, base, f, L0, p, seq_len=int(m) + 1)
            else:
                raise ValueError(f"{name}: no float32 reference for {rt}")
            angle = F(m) * inv
            c = np.array([F(math.cos(float(a))) * F(att) for a in angle], dtype=np.float32)
            s = np.array([F(math.sin(float(a))) * F(att) for a in angle], dtype=np.float32)
            y = apply32(cfg, x.astype(np.float32), c, s)
            for j, v in enumerate(inv):
                rows.append(f"{name},{m!r},inv_freq,{j},{float(v)!r}")
            for j, v in enumerate(y):
                rows.append(f"{name},{m!r},output,{j},{float(v)!r}")
    with open(OUT, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(f"# generated by tests/reference/float32.py (numpy {np.__version__}): /usr/bin/python3 tests/reference/float32.py\n")
        fh.write("preset,position,kind,index,value\n")
        for line in rows:
            fh.write(line + "\n")
    print(f"wrote tests/reference/float32.csv: {len(rows)} rows")
    return 0


def apply32(cfg, x, c, s):
    """model_apply.apply's layouts, every operation in float32 (c and s carry the attention factor)."""
    model_type = cfg.get("text_config", {}).get("model_type", cfg.get("model_type"))
    if model_type == "deepseek_v3":
        nope = cfg["qk_nope_head_dim"]
        q_pass, q_rot = x[:nope], x[nope:]
        d = len(q_rot)
        q_rot = q_rot.reshape(d // 2, 2).T.reshape(d)
        cos, sin = np.concatenate([c, c]), np.concatenate([s, s])
        return np.concatenate([q_pass, q_rot * cos + model_apply.rotate_half(q_rot) * sin])
    d = 2 * len(c)
    q_rot, q_pass = x[:d], x[d:]
    if model_type in model_apply.INTERLEAVED:
        cos, sin = np.repeat(c, 2), np.repeat(s, 2)
        return np.concatenate([q_rot * cos + model_apply.rotate_every_two(q_rot) * sin, q_pass])
    cos, sin = np.concatenate([c, c]), np.concatenate([s, s])
    return np.concatenate([q_rot * cos + model_apply.rotate_half(q_rot) * sin, q_pass])


if __name__ == "__main__":
    sys.exit(main())
