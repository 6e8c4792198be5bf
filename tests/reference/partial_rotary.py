#!/usr/bin/python3
"""Partial rotary as the two real implementations compute it, ported to NumPy from their code (not from src/), the
permanent rows of the corpus for issue 78 item 1 (identify read GPT-NeoX's and ggml's partial rotary as FoPE):

  HF GPT-NeoX   huggingface/transformers src/transformers/models/gpt_neox/modeling_gpt_neox.py (main @ 357f414cae88):
                GPTNeoXRotaryEmbedding (modeling_rope_utils.py _compute_default_rope_parameters: dim = int(head_dim ·
                partial_rotary_factor), the config's rotary_pct read as partial_rotary_factor by GPTNeoXConfig,
                inv_freq = 1 / base^(arange(0, dim, 2, int64).float() / dim) in float32, freqs = inv_freq ⊗ position
                in float32, emb = cat(freqs, freqs), cos and sin cast to the model's dtype) and apply_rotary_pos_emb:
                rotary_dim = cos.shape[-1]; q_rot, q_pass = q[..., :rotary_dim], q[..., rotary_dim:]; q_embed =
                cat(q_rot · cos + rotate_half(q_rot) · sin, q_pass). GPT-NeoX-20B: hidden_size 6144, 64 heads (head
                96), rotary_pct 0.25 (24 channels, 12 pairs (j, j + 12)), rotary_emb_base 10000.
  HF Phi        models/phi/modeling_phi.py (same commit): PhiAttention.forward splits query_rot, query_pass at
                rotary_ndims = int(head_dim · partial_rotary_factor), apply_rotary_pos_emb on the first, cat with the
                second. Phi-2: hidden_size 2560, 32 heads (head 80), partial_rotary_factor 0.4 (32 channels).
  HF StableLM   models/stablelm/modeling_stablelm.py (same commit): the same split. StableLM-3B-4E1T: hidden_size
                2560, 32 heads (head 80), partial_rotary_factor 0.25 (20 channels).
  ggml NEOX     ggml-org/llama.cpp ggml/src/ggml-cpu/ops.cpp ggml_compute_forward_rope_flt (b6000 and later):
                theta_scale = powf(freq_base, −2/n_dims); ggml_rope_cache_init: theta = p (float), per pair
                rope_yarn(theta, freq_scale 1, ext_factor 0, mscale 1): cos = cosf(theta), sin = sinf(theta), then
                theta *= theta_scale (a float32 running product); rotate_pairs for mode NEOX on i0 < n_dims: x0 =
                src[i0/2], x1 = src[i0/2 + n_dims/2], dst = (x0·cos − x1·sin, x0·sin + x1·cos); channels n_dims …
                ne0 − 1 copied unchanged. Phi-2 in llama.cpp (LLM_ARCH_PHI2): NEOX, n_rot 32 of head 80.

None of these is FoPE: the pass-through channels are the last head_dim − rotary_dim, and each rotated pair is a
rotation on the first rotary_dim channels, (j, j + rotary_dim / 2). Each case: `rope check` passes and `rope identify`
reads the half layout, the rotary dimension, rotary offset 0, the default family at base 10000.

Writes DIR/<case>/{q.npy, q_rope.npy, positions.npy} (and config.json for the HF cases) and DIR/manifest.json: per case
the rope check arguments, the exit code, and what identify must say (`identify`: layout, rotary_dim, rotary_offset,
family, base).

Usage: partial_rotary.py DIR
"""
import json
import os
import sys

import numpy as np

HEADS = 2
# Positions: the first 40, then far ones within the models' contexts (2048 and 4096).
POSITIONS = np.array(list(range(40)) + [100, 511, 1000, 2047], dtype=np.int64)


def rotate_half(x):
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)


def hf_partial(q, positions, head_dim, factor, base, dtype):
    """HF's rotary class and apply_rotary_pos_emb with the pass-through split, q [seq, heads, head_dim] in `dtype`."""
    dim = int(head_dim * factor)
    inv_freq = (np.float32(1.0) / np.power(np.float32(base),
                                            np.arange(0, dim, 2, dtype=np.int64).astype(np.float32) / np.float32(dim)))
    freqs = positions.astype(np.float32)[:, None] * inv_freq.astype(np.float32)[None, :]
    emb = np.concatenate([freqs, freqs], axis=-1)
    cos, sin = np.cos(emb).astype(dtype)[:, None, :], np.sin(emb).astype(dtype)[:, None, :]
    q_rot, q_pass = q[..., :dim], q[..., dim:]
    q_embed = (q_rot * cos).astype(dtype) + (rotate_half(q_rot) * sin).astype(dtype)
    return np.concatenate([q_embed.astype(dtype), q_pass], axis=-1)


def ggml_neox(q, positions, n_dims, base):
    """ggml's CPU rope, mode NEOX, float32, on the first n_dims channels of q [seq, heads, ne0]."""
    theta_scale = np.float32(base) ** np.float32(-2.0 / n_dims)
    out = q.astype(np.float32).copy()
    for s, p in enumerate(positions):
        theta = np.float32(p)
        cache = []
        for _ in range(0, n_dims, 2):
            cache.append((np.cos(theta, dtype=np.float32), np.sin(theta, dtype=np.float32)))
            theta = np.float32(theta * theta_scale)
        for i0 in range(0, n_dims, 2):
            c, sn = cache[i0 // 2]
            x0, x1 = q[s, :, i0 // 2].astype(np.float32), q[s, :, i0 // 2 + n_dims // 2].astype(np.float32)
            out[s, :, i0 // 2] = x0 * c - x1 * sn
            out[s, :, i0 // 2 + n_dims // 2] = x0 * sn + x1 * c
    return out


# name: the model's config.json (HF; None: ggml with check flags), head dim, rotary dim, dtype
CASES = [
    dict(name="gpt_neox_20b_f32", head=96, rotary=24, dtype=np.float32,
         config=dict(model_type="gpt_neox", hidden_size=6144, num_attention_heads=64, rotary_pct=0.25,
                     rotary_emb_base=10000, max_position_embeddings=2048)),
    dict(name="gpt_neox_20b_f16", head=96, rotary=24, dtype=np.float16,
         config=dict(model_type="gpt_neox", hidden_size=6144, num_attention_heads=64, rotary_pct=0.25,
                     rotary_emb_base=10000, max_position_embeddings=2048)),
    dict(name="phi2_f32", head=80, rotary=32, dtype=np.float32,
         config=dict(model_type="phi", hidden_size=2560, num_attention_heads=32, partial_rotary_factor=0.4,
                     rope_theta=10000.0, max_position_embeddings=2048)),
    dict(name="stablelm_3b_f32", head=80, rotary=20, dtype=np.float32,
         config=dict(model_type="stablelm", hidden_size=2560, num_attention_heads=32, partial_rotary_factor=0.25,
                     rope_theta=10000, max_position_embeddings=4096)),
    dict(name="ggml_neox_phi2_f32", head=80, rotary=32, dtype=np.float32, config=None,
         flags=["--base", "10000", "--layout", "half", "--partial-rotary-factor", "0.4"]),
    dict(name="ggml_neox_gpt_neox_f32", head=96, rotary=24, dtype=np.float32, config=None,
         flags=["--base", "10000", "--layout", "half", "--partial-rotary-factor", "0.25"]),
]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(78)
    cases = []
    for c in CASES:
        d = os.path.join(out, c["name"])
        os.makedirs(d, exist_ok=True)
        q = rng.standard_normal((len(POSITIONS), HEADS, c["head"])).astype(c["dtype"])
        if c["config"] is not None:
            y = hf_partial(q, POSITIONS, c["head"], c["rotary"] / c["head"], 10000.0, c["dtype"])
            config = os.path.join(d, "config.json")
            with open(config, "w") as f:
                json.dump(c["config"], f, indent=1)
            flags = ["--config", config]
        else:
            y = ggml_neox(q, POSITIONS, c["rotary"], 10000.0)
            flags = c["flags"]
        # What the rotated channels must be: the first `rotary`, the rest exactly as they came in.
        assert np.array_equal(y[..., c["rotary"]:], q[..., c["rotary"]:])
        assert not np.allclose(y[1:, :, :c["rotary"]], q[1:, :, :c["rotary"]])
        np.save(os.path.join(d, "q.npy"), q)
        np.save(os.path.join(d, "q_rope.npy"), y.astype(c["dtype"]))
        np.save(os.path.join(d, "positions.npy"), POSITIONS)
        args = ["--before", os.path.join(d, "q.npy"), "--after", os.path.join(d, "q_rope.npy"),
                "--positions", os.path.join(d, "positions.npy")]
        cases.append({"name": c["name"], "args": args + flags, "exit": 0, "matches": None,
                      "identify": {"layout": "half", "rotary_dim": c["rotary"], "rotary_offset": 0,
                                   "family": "default", "base": 10000.0}})
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"cases": cases}, f, indent=1)
    print(f"{len(cases)} cases in {out}")


if __name__ == "__main__":
    main()
