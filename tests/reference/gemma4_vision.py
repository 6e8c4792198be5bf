#!/usr/bin/python3
"""Dumps of q before and after the 2-D RoPE of Gemma 4's vision tower, as Hugging Face's code computes them, by
NumPy alone, and the same rotation with planted bugs.

An independent port, written from huggingface/transformers src/transformers/models/gemma4/modeling_gemma4.py at
commit c308a309e651a7e033f683353f3f75aa66d29502:
  - Gemma4VisionRotaryEmbedding.compute_default_rope_parameters: spatial_dim = head_dim // 2, inv_freq =
    1 / base ** (arange(0, spatial_dim, 2) / spatial_dim) in float32 (base = rope_parameters["rope_theta"],
    Gemma4VisionConfig's 100), attention factor 1;
  - Gemma4VisionRotaryEmbedding.forward: for i in (0, 1) the positions position_ids[:, :, i] as float32, freqs =
    inv_freq ⊗ positions, emb = cat(freqs, freqs), cos and sin in float32 ("# Force float32"), then
    cat(all_cos) and cat(all_sin): the first block of channels from component 0, the second from component 1;
    pixel_position_ids are (x, y) per patch (Gemma4VisionPatchEmbedder, Gemma4VisionPooler: x = [..., 0]), so
    the column first; cos and sin cast to the dtype of the states;
  - apply_multidimensional_rope: x split into ndim = 2 blocks of 2 · (head_dim // 4) channels (torch.split), each
    rotated by apply_rotary_pos_emb (x · cos + rotate_half(x) · sin, rotate_half within the block), concatenated.
rope names a patch (row, column): the --axis-positions file holds ROW,COL, and HF's position id is (COL, ROW).

What a config's vision_config gives the tower (vision_config_rope), ported from
huggingface/transformers src/transformers/models/gemma4/configuration_gemma4.py at commit
351f643ab9f582c01026b6d75aab3e2c5a8338cd (the same class at 008e574391258935f3ecc3035c882e73bbcac419):
  - Gemma4VisionConfig: head_dim 64 and default_theta 100 as class attributes; __post_init__ sets rope_parameters to
    {"rope_type": "default", "rope_theta": 100.0} when it is None, then PreTrainedConfig's
    convert_rope_params_to_dict (src/transformers/modeling_rope_utils.py RotaryEmbeddingConfigMixin): a legacy
    rope_scaling dict, when truthy, replaces rope_parameters, and setdefault("rope_theta", the file's top-level
    rope_theta, else default_theta) fills a dict without rope_theta;
  - modeling_gemma4.py (commit above) compute_default_rope_parameters: base = rope_parameters["rope_theta"], dim =
    getattr(config, "head_dim", None) or hidden_size // num_attention_heads (the attribute always exists: 64).

Usage: gemma4_vision.py OUT_DIR   writes OUT_DIR/<case>/{q.npy,q_rope.npy,positions.csv} and OUT_DIR/manifest.json.
"""
import json
import os
import sys

import numpy as np

F32 = np.float32
SEED = 20260402
HEADS = 3
# Patches (row, column): a 6 × 7 grid from (0, 0), then far ones (HF's float32 positions are exact integers).
GRID = [(r, c) for r in range(6) for c in range(7)]
POSITIONS = np.array(GRID + [(0, 41), (37, 0), (63, 47), (100, 3), (255, 254)], dtype=np.int64)  # [seq, 2] row, col


def inv_freq(base, head_dim, t=F32):
    """float32 as HF computes it; t = float64 for the exact ladder (rope apply's float64 reference)."""
    spatial = head_dim // 2
    return (t(1.0) / (t(base) ** (np.arange(0, spatial, 2, dtype=np.int64).astype(t) / t(spatial)))).astype(t)


def vision_config_rope(vc):
    """(base, head_dim) of a vision_config dict as Gemma4VisionConfig and its rotary class settle them."""
    head_dim = vc.get("head_dim")
    if head_dim is None:  # the dataclass default; HF's getattr never reaches hidden_size // num_attention_heads
        head_dim = 64
    params = vc.get("rope_parameters")
    if params is None:
        params = {"rope_type": "default", "rope_theta": 100.0}  # __post_init__, before the mixin
    params = dict(vc.get("rope_scaling") or params)
    params.setdefault("rope_theta", vc.get("rope_theta", 100.0))
    return float(params["rope_theta"]), int(head_dim)


# vision_config variants (name, dict, the top-level file's model_type) for the config cases of check_gemma4_vision.py.
CONFIG_CASES = [
    ("gemma4_26b_a4b", dict(model_type="gemma4_vision", head_dim=72, hidden_size=1152, num_attention_heads=16,
                            rope_parameters=dict(rope_type="default", rope_theta=100.0))),
    ("no_rope_parameters_top_theta_ignored", dict(model_type="gemma4_vision", head_dim=72, rope_theta=50.0)),
    ("dict_without_theta_takes_top", dict(model_type="gemma4_vision", head_dim=72, rope_theta=50.0,
                                          rope_parameters=dict(rope_type="default"))),
    ("dict_without_theta_default", dict(head_dim=72, rope_parameters=dict(rope_type="default"))),
    ("legacy_rope_scaling", dict(model_type="gemma4_vision", head_dim=72, rope_scaling=dict(type="default", rope_theta=200.0),
                                 rope_parameters=dict(rope_type="default", rope_theta=100.0))),
    ("no_head_dim_class_default_64", dict(model_type="gemma4_vision", hidden_size=1152, num_attention_heads=16)),
]


def rotate_half(x):
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)


def rotate_pairs(x):  # a planted bug: pairs (2k, 2k+1) inside the block instead of (k, k + n/2)
    out = np.empty_like(x)
    out[..., 0::2], out[..., 1::2] = -x[..., 1::2], x[..., 0::2]
    return out


def bf16(x):
    b = np.ascontiguousarray(x, dtype=F32).view(np.uint32)
    return ((b + (((b >> 16) & 1) + 0x7FFF)) & 0xFFFF0000).astype(np.uint32).view(F32)


def cos_sin(positions_xy, base, head_dim, angle_dtype=F32, interleave=False):
    """Gemma4VisionRotaryEmbedding.forward: [seq, head_dim] cos and sin, block 0 from component 0 (x).
    interleave (a planted bug's table): each frequency repeated for the channels (2k, 2k+1) of its block."""
    inv = inv_freq(base, head_dim, angle_dtype)
    cos, sin = [], []
    for i in range(2):
        freqs = (positions_xy[:, i].astype(angle_dtype)[:, None] * inv[None, :]).astype(angle_dtype)
        emb = np.repeat(freqs, 2, axis=-1) if interleave else np.concatenate([freqs, freqs], axis=-1)
        cos.append(np.cos(emb).astype(angle_dtype))
        sin.append(np.sin(emb).astype(angle_dtype))
    return np.concatenate(cos, axis=-1), np.concatenate(sin, axis=-1)


def apply_multidimensional_rope(q, cos, sin, dtype, rot=rotate_half, blocks=2):
    """q [seq, heads, d]; cos, sin [seq, d] already in q's dtype. Each op rounded to bf16 for a bf16 model."""
    d = q.shape[-1]
    per = 2 * (d // (2 * blocks))
    parts = []
    for k in range(blocks):
        x = q[..., k * per:(k + 1) * per]
        c, s = cos[:, None, k * per:(k + 1) * per], sin[:, None, k * per:(k + 1) * per]
        if dtype == "bf16":
            parts.append(bf16(bf16(x * c) + bf16(rot(x) * s)))
        else:
            parts.append(x * c + rot(x) * s)
    return np.concatenate(parts, axis=-1)


def hf_rotate(q, positions_rc, base, dtype, bug=None):
    """HF's rotation of q at the patches (row, column), or a planted bug's."""
    xy = positions_rc[:, ::-1]  # HF's pixel_position_ids: (x, y) = (column, row)
    if bug == "blocks_swapped":  # the row on the first block, the column on the second
        xy = positions_rc
    cos, sin = cos_sin(xy, 10000.0 if bug == "base_10000" else base, q.shape[-1], interleave=bug == "interleaved")
    if bug == "one_block":  # rotate_half over the whole head, as a 1-D RoPE with these angles would
        half = q.shape[-1] // 2
        cos = np.concatenate([cos[:, :half // 2], cos[:, half:half + half // 2]] * 2, axis=-1)
        sin = np.concatenate([sin[:, :half // 2], sin[:, half:half + half // 2]] * 2, axis=-1)
    t = np.float64 if dtype == "f64" else F32
    cos, sin = cos.astype(t), sin.astype(t)
    if dtype == "bf16":
        cos, sin = bf16(cos), bf16(sin)
    return apply_multidimensional_rope(q, cos, sin, dtype, rot=rotate_pairs if bug == "interleaved" else rotate_half,
                                       blocks=1 if bug == "one_block" else 2)


CASES = [
    dict(name="gemma4_vision_d72_f64", d=72, dtype="f64", exit=0),
    dict(name="gemma4_vision_d72_bf16", d=72, dtype="bf16", exit=0),
    dict(name="gemma4_vision_d64_f64", d=64, dtype="f64", exit=0),
    dict(name="bug_blocks_swapped_f64", d=72, dtype="f64", exit=1, bug="blocks_swapped"),
    dict(name="bug_interleaved_in_blocks_f64", d=72, dtype="f64", exit=1, bug="interleaved", matches="layout-swapped"),
    dict(name="bug_base_10000_f64", d=72, dtype="f64", exit=1, bug="base_10000"),
    dict(name="bug_one_block_f64", d=72, dtype="f64", exit=1, bug="one_block"),
]


def self_check():
    assert vision_config_rope(CONFIG_CASES[0][1]) == (100.0, 72)
    assert vision_config_rope(CONFIG_CASES[1][1]) == (100.0, 72)  # the class's dict comes before the mixin
    assert vision_config_rope(CONFIG_CASES[2][1]) == (50.0, 72)
    assert vision_config_rope(CONFIG_CASES[4][1]) == (200.0, 72)
    assert vision_config_rope(CONFIG_CASES[5][1]) == (100.0, 64)  # not 1152 // 16 = 72
    # Each block of a rotation keeps its norm (the per-axis rotations are orthogonal), and at (0, 0) nothing turns.
    rng = np.random.default_rng(1)
    q = rng.standard_normal((2, 1, 72))
    out = hf_rotate(q, np.array([[0, 0], [5, 9]]), 100.0, "f64")
    assert np.allclose(out[0], q[0])
    for k in (0, 1):
        assert np.isclose(np.linalg.norm(out[1, 0, 36 * k:36 * (k + 1)]), np.linalg.norm(q[1, 0, 36 * k:36 * (k + 1)]))
    # A patch that moves along the row only turns the second block (the row's) and leaves the first alone.
    a, b = hf_rotate(q[1:], np.array([[3, 4]]), 100.0, "f64"), hf_rotate(q[1:], np.array([[8, 4]]), 100.0, "f64")
    assert np.allclose(a[..., :36], b[..., :36]) and not np.allclose(a[..., 36:], b[..., 36:])


def main():
    self_check()
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    rng = np.random.default_rng(SEED)
    manifest = []
    for case in CASES:
        d = os.path.join(out_dir, case["name"])
        os.makedirs(d, exist_ok=True)
        q = rng.standard_normal((len(POSITIONS), HEADS, case["d"]))
        if case["dtype"] == "bf16":
            q = bf16(q.astype(F32))
        after = hf_rotate(q, POSITIONS, 100.0, case["dtype"], case.get("bug"))
        if case["dtype"] == "bf16":
            for name, x in (("q.npy", q), ("q_rope.npy", after)):
                np.save(os.path.join(d, name), (np.ascontiguousarray(x, F32).view(np.uint32) >> 16).astype("<u2"))
        else:
            np.save(os.path.join(d, "q.npy"), q.astype("<f8"))
            np.save(os.path.join(d, "q_rope.npy"), after.astype("<f8"))
        with open(os.path.join(d, "positions.csv"), "w") as f:
            f.write("h,w\n")
            f.writelines(f"{r},{c}\n" for r, c in POSITIONS)
        manifest.append(dict(name=case["name"], dir=case["name"], d=case["d"], dtype=case["dtype"], exit=case["exit"],
                             matches=case.get("matches")))
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print(f"{len(manifest)} cases in {out_dir}")


if __name__ == "__main__":
    main()
