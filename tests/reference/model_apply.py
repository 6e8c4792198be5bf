#!/usr/bin/python3
"""Independent NumPy reference: a model preset's RoPE applied to one head vector, as Hugging Face's
modeling code applies it (docs/scaling.md (S19)).

The frequencies and the attention factor come from presets.py (the independent reference of HF's
rope init functions). What this file adds is written from the HF modeling code of each family
(transformers src/transformers/models/<family>/modeling_<family>.py), not from the C++ code in src/:

    cos, sin   cos(m * inv_freq) * attention_factor, sin(...) * attention_factor (HF multiplies the
               attention scaling into cos and sin in every <Family>RotaryEmbedding.forward)
    half       (llama, mistral, qwen2, qwen3, gemma3, phi3, gpt_neox, gpt_oss) q_rot = q[:d], q_pass = q[d:];
               cos = cat(c, c); q_rot * cos + rotate_half(q_rot) * sin, rotate_half(x) = cat(-x[d/2:], x[:d/2])
    gptj       rotate_every_two: cos = repeat_interleave(c, 2); x * cos + stack(-x[1::2], x[0::2]) * sin
    chatglm    (THUDM modeling_chatglm.py apply_rotary_pos_emb) the first half of the head (kv_channels/2
               channels) as pairs (2i, 2i+1): the same interleaved rotation, the second half passes through
    llama4_text  (modeling_llama4.py) view_as_complex of pairs (2i, 2i+1) times e^(i m theta): interleaved
    deepseek_v3 with rope_interleave (HF default true): q = q_pass (qk_nope_head_dim) then q_rot
               (qk_rope_head_dim); apply_rotary_pos_emb_interleave views q_rot as (d/2, 2), transposes it
               to (2, d/2) (de-interleaves) and applies rotate_half with cos = cat(c, c)
    proportional  (gemma) half layout over the whole head (inv_freq has head_dim/2 entries)

The vector is x_j = cos(0.7 j + 0.3) + 0.01 j, j = 0 .. head-1, at positions 1, 3000 and, for
llama-3.1-8b, phi-3-mini-128k, llama-4-scout-17b-16e, phi-3.5-mini-instruct and glm-4-9b-chat, 100000 (issue 13's cases; longrope with seq_len = m + 1 as HF's
dynamic update takes max(position_ids) + 1, so the long factors beyond L0). Gemma 3's sliding layers
(rope_local_base_freq, unscaled) are the case "gemma-3-4b@sliding_attention". Writes model_apply.csv next to itself: header
preset,position,channel,input,output, floats as repr(). Also checks itself: the output norm of the
rotating channels equals attention_factor times their input norm, and the pass-through channels are
unchanged; exits non-zero if a check fails.

    /usr/bin/python3 tests/reference/model_apply.py
"""

import json
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import presets  # noqa: E402  (the rope init functions, independent of src/)

OUT = os.path.join(HERE, "model_apply.csv")

# The pair layout of each family's HF modeling code (see the docstring).
HALF = {"llama", "mistral", "qwen2", "qwen3", "gemma3", "gemma3_text", "phi3", "gpt_neox", "gpt_oss"}
INTERLEAVED = {"gptj", "chatglm", "llama4_text"}  # rotate_every_two, ChatGLM's pairs, Llama 4's view_as_complex


def rotate_half(x):
    h = len(x) // 2
    return np.concatenate([-x[h:], x[:h]])


def rotate_every_two(x):
    out = np.empty_like(x)
    out[0::2] = -x[1::2]
    out[1::2] = x[0::2]
    return out


def apply(cfg, r, inv, att, x, m):
    model_type = cfg.get("text_config", {}).get("model_type", cfg.get("model_type"))
    c = np.cos(m * inv) * att
    s = np.sin(m * inv) * att
    if model_type == "deepseek_v3":
        nope = cfg["qk_nope_head_dim"]
        q_pass, q_rot = x[:nope], x[nope:]
        d = len(q_rot)
        q_rot = q_rot.reshape(d // 2, 2).T.reshape(d)  # de-interleave, as HF does
        cos, sin = np.concatenate([c, c]), np.concatenate([s, s])
        return np.concatenate([q_pass, q_rot * cos + rotate_half(q_rot) * sin])
    d = 2 * len(inv)
    q_rot, q_pass = x[:d], x[d:]
    if model_type in INTERLEAVED:
        cos, sin = np.repeat(c, 2), np.repeat(s, 2)
        return np.concatenate([q_rot * cos + rotate_every_two(q_rot) * sin, q_pass])
    if model_type in HALF:
        cos, sin = np.concatenate([c, c]), np.concatenate([s, s])
        return np.concatenate([q_rot * cos + rotate_half(q_rot) * sin, q_pass])
    raise ValueError(f"no layout known for model_type {model_type!r}: add it from its HF modeling code")


def head_size(cfg, r):
    inner = cfg.get("text_config", cfg)
    if "qk_nope_head_dim" in inner:
        return inner["qk_nope_head_dim"] + inner["qk_rope_head_dim"]
    return r["head_dim"]


def nope_temperature(p, floor_scale=8192.0, attn_scale=0.1):
    """Llama 4's query scale on NoPE layers (modeling_llama4.py Llama4TextAttention): (S20)."""
    return math.log1p(math.floor((p + 1.0) / floor_scale)) * attn_scale + 1.0


def main():
    failures = []
    names = sorted(fn[:-5] for fn in os.listdir(presets.MODELS) if fn.endswith(".json"))
    rows = []
    for name in names:
        with open(os.path.join(presets.MODELS, name + ".json"), encoding="utf-8") as fh:
            cfg = json.load(fh)
        r = presets.resolve(cfg)
        inv, att = presets.compute(r["type"], r["d"], r["head_dim"], r["base"], r["f"], r["L0"], r["params"], r["prf"])
        n = head_size(cfg, r)
        x = np.array([np.cos(0.7 * j + 0.3) + 0.01 * j for j in range(n)])
        long = ("llama-3.1-8b", "phi-3-mini-128k", "llama-4-scout-17b-16e", "phi-3.5-mini-instruct", "glm-4-9b-chat")
        positions = [1.0, 3000.0] + ([100000.0] if name in long else [])
        for m in positions:
            if r["type"] == "longrope":  # HF's dynamic update: seq_len = max(position_ids) + 1
                inv, att = presets.longrope(r["d"], r["base"], r["f"], r["L0"], r["params"], seq_len=int(m) + 1)
            y = apply(cfg, r, inv, att, x, m)
            d = 2 * len(inv)
            rot = slice(n - d, n) if "qk_nope_head_dim" in cfg else slice(0, d)
            if not np.isclose(np.linalg.norm(y[rot]), att * np.linalg.norm(x[rot]), rtol=1e-13):
                failures.append(f"{name} m={m}: |y_rot| != a |x_rot|")
            keep = np.ones(n, bool)
            keep[rot] = False
            if not np.array_equal(y[keep], x[keep]):
                failures.append(f"{name} m={m}: a pass-through channel changed")
            for j in range(n):
                rows.append(f"{name},{m!r},{j},{float(x[j])!r},{float(y[j])!r}")
    # Gemma 3's sliding layers (HF Gemma3TextConfig, modeling_gemma3.py rotary_emb_local): base
    # rope_local_base_freq, no scaling, same head and layout; the case is named preset@layer_type.
    with open(os.path.join(presets.MODELS, "gemma-3-4b.json"), encoding="utf-8") as fh:
        cfg = json.load(fh)
    tc = cfg["text_config"]
    n = tc["head_dim"]
    inv = presets.thetas(n, float(tc["rope_local_base_freq"]))
    x = np.array([np.cos(0.7 * j + 0.3) + 0.01 * j for j in range(n)])
    for m in (1.0, 3000.0):
        y = apply(cfg, None, inv, 1.0, x, m)
        for j in range(n):
            rows.append(f"gemma-3-4b@sliding_attention,{m!r},{j},{float(x[j])!r},{float(y[j])!r}")
    # Gemma 3 27B's sliding layers, as gemma-3-4b's (base 10000: Gemma3TextConfig's rope_local_base_freq
    # default; the 27B config.json gives none).
    inv = presets.thetas(128, 10000.0)
    x = np.array([np.cos(0.7 * j + 0.3) + 0.01 * j for j in range(128)])
    for m in (1.0, 3000.0):
        y = apply({"model_type": "gemma3_text"}, None, inv, 1.0, x, m)
        for j in range(128):
            rows.append(f"gemma-3-27b@sliding_attention,{m!r},{j},{float(x[j])!r},{float(y[j])!r}")
    # Llama 4's NoPE layers: no rotation; the query is scaled by (S20), 1 up to p = 8190, 1 + 0.1 ln 2 from 8191.
    for p, want in ((0, 1.0), (8190, 1.0), (8191, 1.0 + 0.1 * math.log(2.0)), (16383, 1.0 + 0.1 * math.log(3.0))):
        if not math.isclose(nope_temperature(p), want, rel_tol=1e-15):
            failures.append(f"NoPE temperature at {p}: {nope_temperature(p)!r} != {want!r}")
    with open(os.path.join(HERE, "nope_temperature.csv"), "w", encoding="utf-8", newline="\n") as fh:
        fh.write("# generated by tests/reference/model_apply.py: Llama 4's NoPE query temperature (S20), floor_scale 8192, attn_scale 0.1\n")
        fh.write("position,temperature\n")
        for p in (0, 1, 8190, 8191, 8192, 16382, 16383, 100000, 10485759):
            fh.write(f"{p},{nope_temperature(p)!r}\n")
    with open(OUT, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(f"# generated by tests/reference/model_apply.py (numpy {np.__version__}): "
                 "/usr/bin/python3 tests/reference/model_apply.py\n")
        fh.write("preset,position,channel,input,output\n")
        for line in rows:
            fh.write(line + "\n")
    print(f"wrote tests/reference/model_apply.csv: {len(rows)} rows")
    for f in failures:
        print("  " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
