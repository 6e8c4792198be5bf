#!/usr/bin/python3
"""Dumps of DeepSeek-V4's heads before and after RoPE as Hugging Face's code computes them, by NumPy alone, and the
same rotation with planted bugs.

An independent port, written from huggingface/transformers (paths under src/transformers/models/deepseek_v4/):
  - configuration_deepseek_v4.py at 015c078164151a049126942989817713e83a8f3e, DeepseekV4Config: head_dim 512,
    rope_theta 10000, compress_rope_theta 160000, num_hidden_layers 43, default_partial_rotary_factor 64 / 512,
    compress_rates {compressed_sparse_attention: 4, heavily_compressed_attention: 128}; __post_init__:
    partial_rotary_factor = the config's, else the legacy qk_rope_head_dim / head_dim, else 64 / 512, and
    qk_rope_head_dim = int(head_dim · partial_rotary_factor); layer_types = the config's, else the legacy
    compress_ratios through _COMPRESS_RATIO_TO_LAYER_TYPE {0: sliding_attention, 4: compressed_sparse_attention,
    128: heavily_compressed_attention}, else 2 × heavily_compressed_attention then compressed_sparse_attention for
    odd i and heavily_compressed_attention for even i, cut to num_hidden_layers; rope_parameters kept when it holds
    the dicts "main" and "compress", else built from the flat block (rope_scaling or rope_parameters, after
    standardize_rope_params gave it rope_type from the legacy type): main = {rope_type default, rope_theta}, compress
    = {**flat, rope_theta: compress_rope_theta}, rope_type default when absent, and setdefault("attention_factor", 1.0)
    when rope_type is yarn;
  - modular_deepseek_v4.py at 02356fecf28001ff562e25a05cfc43f31ed5f892: DeepseekV4RotaryEmbedding.forward
    (inv_freq of the layer type ⊗ positions in float32, cos and sin times that type's attention_scaling, cast to the
    states' dtype); apply_rotary_pos_emb (cos and sin repeat_interleave(2); the LAST rope_dim channels
    x[..., -rope_dim:] rotated as rope.float() · cos + rotate_half(rope).float() · sin with GLM's rotate_half, pairs
    (2i, 2i+1), cast back; the first channels passed through); DeepseekV4Model.forward turns every layer's queries and
    keys with layer_type "main"; the compressors' _rope_pool turns pooled entry i at position
    i · compress_rate + first_pool_position with "compress".
The inverse frequencies of the layer types: _compute_default_rope_parameters and _compute_yarn_parameters as
tests/reference/hf_families.py ports them (transformers 357f414cae88, the yarn the class calls through
ROPE_INIT_FUNCTIONS with the compress block: dim 64, its rope_theta, factor, original_max_position_embeddings,
beta_fast, beta_slow, attention_factor).

Usage: deepseek_v4.py OUT_DIR   writes OUT_DIR/<case>/{q.npy,q_rope.npy} and OUT_DIR/config_<name>.json, and
OUT_DIR/manifest.json.
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_families import bf16, default_inv_freq, yarn_inv_freq  # noqa: E402  (the ports of the v5 ladders)

F32 = np.float32
SEED = 20261127
HEADS = 2
TYPES = ("sliding_attention", "compressed_sparse_attention", "heavily_compressed_attention")
RATIO_TO_TYPE = {0: TYPES[0], 4: TYPES[1], 128: TYPES[2]}

# A shipped config's RoPE keys (DeepSeek-V4-Flash's config.json as the model zoo notes of issue 50 quote it: the legacy
# form, compress_ratios with rope_scaling and compress_rope_theta at the top level), 7 layers.
LEGACY = dict(model_type="deepseek_v4", head_dim=512, qk_rope_head_dim=64, num_hidden_layers=7,
              max_position_embeddings=1048576, rope_theta=10000.0, compress_rope_theta=160000.0,
              compress_ratios=[0, 0, 4, 128, 4, 128, 0],
              rope_scaling=dict(type="yarn", factor=16, original_max_position_embeddings=65536, beta_fast=32,
                                beta_slow=1))
CONFIGS = {
    "legacy": LEGACY,
    # What HF v5 writes back: rope_parameters keyed by the labels, layer_types, partial_rotary_factor.
    "nested": dict(model_type="deepseek_v4", head_dim=512, partial_rotary_factor=0.125, num_hidden_layers=7,
                   max_position_embeddings=1048576, rope_theta=10000.0, compress_rope_theta=160000.0,
                   layer_types=[RATIO_TO_TYPE[r] for r in LEGACY["compress_ratios"]],
                   rope_parameters=dict(main=dict(rope_type="default", rope_theta=10000.0, partial_rotary_factor=0.125),
                                        compress=dict(rope_type="yarn", rope_theta=160000.0, factor=16.0,
                                                      original_max_position_embeddings=65536, beta_fast=32, beta_slow=1,
                                                      attention_factor=1.0, partial_rotary_factor=0.125))),
    # Nothing but the model type: the class's defaults (no scaling block: compress is default RoPE at 160000).
    "class_defaults": dict(model_type="deepseek_v4"),
}


def config_rope(cfg):
    """DeepseekV4Config.__post_init__'s RoPE: (head_dim, rope_dim, layer_types, {label: block})."""
    head_dim = cfg.get("head_dim", 512)
    n = cfg.get("num_hidden_layers", 43)
    partial = cfg.get("partial_rotary_factor")
    if partial is None:
        partial = cfg["qk_rope_head_dim"] / head_dim if "qk_rope_head_dim" in cfg else 64 / 512
    rope_dim = int(head_dim * partial)
    layer_types = cfg.get("layer_types")
    if layer_types is None and cfg.get("compress_ratios") is not None:
        layer_types = [RATIO_TO_TYPE[r] for r in cfg["compress_ratios"]]
    if layer_types is None:
        layer_types = [TYPES[2]] * min(n, 2) + [TYPES[1] if i % 2 else TYPES[2] for i in range(max(n - 2, 0))]
    layer_types = list(layer_types[:n])
    theta = cfg.get("rope_theta", 10000.0)
    rp = dict(cfg.get("rope_scaling") or cfg.get("rope_parameters") or {})
    if isinstance(rp.get("main"), dict) and isinstance(rp.get("compress"), dict):
        blocks = {"main": dict(rp["main"]), "compress": dict(rp["compress"])}
    else:
        rp.setdefault("rope_type", rp.get("type", "default"))  # standardize_rope_params
        flat = {k: v for k, v in rp.items() if k not in ("main", "compress")}
        main = {"rope_type": "default", "rope_theta": theta}
        compress = {**flat, "rope_theta": cfg.get("compress_rope_theta", 160000.0)}
        compress.setdefault("rope_type", "default")
        if compress["rope_type"] == "yarn":
            compress.setdefault("attention_factor", 1.0)
            compress.setdefault("original_max_position_embeddings", cfg.get("max_position_embeddings", 1048576))
        blocks = {"main": main, "compress": compress}
    return head_dim, rope_dim, layer_types, blocks


def block_inv_freq(block, rope_dim, max_pos=1048576):
    """(inv_freq float32, attention_scaling) of one label's block (ROPE_INIT_FUNCTIONS or the default)."""
    if block.get("rope_type", "default") == "yarn":
        return yarn_inv_freq(block["rope_theta"], rope_dim, block, max_pos)
    return default_inv_freq(block["rope_theta"], rope_dim), 1.0


def rotate_half_glm(x):
    """GLM's rotate_half: (x_2i, x_2i+1) -> (−x_2i+1, x_2i)."""
    out = np.empty_like(x)
    out[..., 0::2], out[..., 1::2] = -x[..., 1::2], x[..., 0::2]
    return out


def rotate_half_llama(x):  # a planted bug: pairs (i, i + d/2)
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)


def hf_rotate(x, positions, inv, scaling, dtype, bug=None):
    """apply_rotary_pos_emb of DeepseekV4RotaryEmbedding.forward's cos and sin: x [seq, heads, head_dim]."""
    freqs = (positions.astype(F32)[:, None] * inv[None, :]).astype(F32)
    cos = (np.cos(freqs) * F32(scaling)).astype(F32)
    sin = (np.sin(freqs) * F32(scaling)).astype(F32)
    if dtype == "bf16":
        cos, sin = bf16(cos), bf16(sin)  # .to(dtype=x.dtype)
    rot = rotate_half_glm
    if bug == "half_pairs":
        cos, sin, rot = np.concatenate([cos, cos], -1), np.concatenate([sin, sin], -1), rotate_half_llama
    else:
        cos, sin = np.repeat(cos, 2, axis=-1), np.repeat(sin, 2, axis=-1)
    r = cos.shape[-1]
    if bug == "first_channels":  # the rotary part taken from the head's first channels
        rope, nope = x[..., :r], x[..., r:]
    else:
        nope, rope = x[..., :-r], x[..., -r:]
    rope32 = rope.astype(F32)
    rotated = (rope32 * cos[:, None, :] + rot(rope32) * sin[:, None, :]).astype(F32)
    if dtype == "bf16":
        rotated = bf16(rotated)
    return np.concatenate([rotated, nope] if bug == "first_channels" else [nope, rotated], axis=-1)


# Token positions of the queries and keys (main), up to 131071; the compressed entries' block positions
# i · compress_rate + first_pool_position (compress).
TOKENS = np.array(list(range(40)) + [1000, 4095, 65535, 65536, 100000, 131071], dtype=np.int64)
POOLS = {"hca": (128, 256, 12), "csa": (4, 40, 32)}  # rate, first_pool_position, entries

CASES = [
    dict(name="main_f32", label="main", dtype="f32", exit=0),
    dict(name="main_bf16", label="main", dtype="bf16", exit=0),
    dict(name="compress_hca_f32", label="compress", pool="hca", dtype="f32", exit=0),
    dict(name="compress_csa_bf16", label="compress", pool="csa", dtype="bf16", exit=0),
    # planted bugs
    dict(name="bug_first_channels_f32", label="compress", pool="hca", dtype="f32", exit=1, bug="first_channels"),
    dict(name="bug_main_first_channels_f32", label="main", dtype="f32", exit=1, bug="first_channels"),
    dict(name="bug_attention_factor_not_forced_f32", label="compress", pool="hca", dtype="f32", exit=1,
         bug="attention_factor"),
    dict(name="bug_compress_at_main_theta_f32", label="compress", pool="hca", dtype="f32", exit=1, bug="main_theta"),
    dict(name="bug_half_pairs_f32", label="main", dtype="f32", exit=1, bug="half_pairs"),
]


def case_rotation(case, q, positions):
    head_dim, rope_dim, _, blocks = config_rope(LEGACY)
    block = dict(blocks[case["label"]])
    if case.get("bug") == "attention_factor":  # yarn's own 0.1·ln f + 1 kept
        block.pop("attention_factor")
    if case.get("bug") == "main_theta":
        block["rope_theta"] = blocks["main"]["rope_theta"]
    inv, scaling = block_inv_freq(block, rope_dim)
    return hf_rotate(q, positions, inv, scaling, case["dtype"], case.get("bug"))


def self_check():
    head_dim, rope_dim, types, blocks = config_rope(LEGACY)
    assert (head_dim, rope_dim) == (512, 64)
    assert types == [TYPES[0], TYPES[0], TYPES[1], TYPES[2], TYPES[1], TYPES[2], TYPES[0]]
    assert blocks["compress"]["rope_theta"] == 160000.0 and blocks["compress"]["attention_factor"] == 1.0
    assert blocks["main"] == {"rope_type": "default", "rope_theta": 10000.0}
    _, _, types_n, blocks_n = config_rope(CONFIGS["nested"])
    assert types_n == types and blocks_n["compress"]["factor"] == 16.0
    _, _, types_d, blocks_d = config_rope(CONFIGS["class_defaults"])
    assert len(types_d) == 43 and types_d[:4] == [TYPES[2], TYPES[2], TYPES[2], TYPES[1]]
    assert blocks_d["compress"] == {"rope_type": "default", "rope_theta": 160000.0}
    # yarn with attention_factor 1: cos and sin of magnitude 1; without it, 0.1·ln 16 + 1.
    _, s = block_inv_freq(blocks["compress"], 64)
    assert s == 1.0
    _, s = block_inv_freq({k: v for k, v in blocks["compress"].items() if k != "attention_factor"}, 64)
    assert abs(s - (0.1 * np.log(16) + 1)) < 1e-12
    # Only the last 64 channels move, each pair keeps its norm, and at position 0 nothing turns.
    rng = np.random.default_rng(3)
    q = rng.standard_normal((2, 1, 512)).astype(F32)
    inv, _ = block_inv_freq(blocks["main"], 64)
    out = hf_rotate(q, np.array([0, 7]), inv, 1.0, "f32")
    assert np.array_equal(out[0], q[0]) and np.array_equal(out[1, :, :448], q[1, :, :448])
    assert np.allclose(np.hypot(out[1, 0, 448::2], out[1, 0, 449::2]), np.hypot(q[1, 0, 448::2], q[1, 0, 449::2]),
                       rtol=1e-6)


def main():
    self_check()
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    rng = np.random.default_rng(SEED)
    manifest = []
    for name, cfg in CONFIGS.items():
        with open(os.path.join(out_dir, f"config_{name}.json"), "w") as f:
            json.dump(cfg, f, indent=1)
    for case in CASES:
        d = os.path.join(out_dir, case["name"])
        os.makedirs(d, exist_ok=True)
        if "pool" in case:
            rate, first, count = POOLS[case["pool"]]
            positions = np.arange(count, dtype=np.int64) * rate + first
            position_flag = f"{first}:{first + count * rate}:{rate}"
        else:
            positions, position_flag = TOKENS, None
        q = rng.standard_normal((len(positions), HEADS, 512)).astype(F32)
        if case["dtype"] == "bf16":
            q = bf16(q)
        after = case_rotation(case, q, positions)
        if case["dtype"] == "bf16":
            for fname, x in (("q.npy", q), ("q_rope.npy", after)):
                np.save(os.path.join(d, fname), (np.ascontiguousarray(x, F32).view(np.uint32) >> 16).astype("<u2"))
        else:
            np.save(os.path.join(d, "q.npy"), q.astype("<f4"))
            np.save(os.path.join(d, "q_rope.npy"), after.astype("<f4"))
        np.save(os.path.join(d, "positions.npy"), positions)
        manifest.append(dict(name=case["name"], dir=case["name"], label=case["label"], pool=case.get("pool"),
                             dtype=case["dtype"], exit=case["exit"], positions=position_flag))
    _, rope_dim, types, blocks = config_rope(LEGACY)
    reference = {label: [float(x) for x in block_inv_freq(b, rope_dim)[0]] for label, b in blocks.items()}
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(dict(cases=manifest, inv_freq=reference, layer_types=types,
                       attention_factor={k: block_inv_freq(b, rope_dim)[1] for k, b in blocks.items()}), f, indent=1)
    print(f"{len(manifest)} cases in {out_dir}")


if __name__ == "__main__":
    main()
