#!/usr/bin/python3
"""Dumps of q before and after RoPE for `rope check` and `rope identify` tests, by NumPy alone.

Independent of rope's C++: every formula is written here from its source, the way the framework that a
user dumps from computes it:
  - frequencies: Hugging Face transformers, src/transformers/modeling_rope_utils.py
    (_compute_default_rope_parameters, _compute_linear_scaling_rope_parameters,
    _compute_yarn_parameters with find_correction_range / linear_ramp_factor / get_mscale,
    _compute_llama3_parameters); static NTK: base' = base * f**(d/(d-2)) (YaRN paper, arXiv:2309.00071 §3.1);
  - precision: inv_freq, positions and their outer product in float32, cos/sin in float32 times the
    attention factor, cast to the dump's dtype, then q*cos + rotate(q)*sin in that dtype (as
    LlamaRotaryEmbedding + apply_rotary_pos_emb run under torch.autocast / a bf16 model);
  - layouts: half = rotate_half (pairs j, j + r/2), interleaved = pairs (2j, 2j + 1) (GPT-J, Meta);
  - bfloat16 (NumPy has none): float32 rounded to its top 16 bits, round to nearest even, after every
    operation; stored as uint16 bit patterns (`t.view(torch.int16)`), read with --bf16-bits.

Usage: make_dumps.py                        writes the small example dumps of data/dumps/ (and M-RoPE's
                                            mrope_*.npy with mrope_positions.csv);
       make_dumps.py OUT_DIR [--small]   writes OUT_DIR/*.npy (+ one .safetensors, one .csv) and
OUT_DIR/manifest.json: per case the files, the positions, the `rope check` flags, the expected verdict
and diagnosis, and the parameters `rope identify` must recover.
"""
import json
import math
import os
import struct
import sys

import numpy as np


def bf16(x):
    """float32 -> nearest bfloat16 (ties to even), returned as float32."""
    b = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    rounded = (b + (((b >> 16) & 1) + 0x7FFF)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32)


def to_type(x, dtype):
    if dtype == "f32":
        return np.asarray(x, np.float32)
    if dtype == "f16":
        return np.asarray(x, np.float32).astype(np.float16).astype(np.float32)
    return bf16(np.asarray(x, np.float32))


def inv_freq(kind, dim, base, **p):
    exps = np.arange(0, dim, 2, dtype=np.int64).astype(np.float32) / np.float32(dim)
    default = (1.0 / (np.float32(base) ** exps)).astype(np.float32)
    if kind == "default":
        return default, 1.0
    if kind == "linear":
        return (default / np.float32(p["factor"])).astype(np.float32), 1.0
    if kind == "ntk":
        b2 = base * p["factor"] ** (dim / (dim - 2))
        return (1.0 / (np.float32(b2) ** exps)).astype(np.float32), 1.0
    if kind == "yarn":
        f, l0 = p["factor"], p["original"]
        beta_fast, beta_slow = p.get("beta_fast", 32.0), p.get("beta_slow", 1.0)

        def corr_dim(rot):
            return (dim * math.log(l0 / (rot * 2 * math.pi))) / (2 * math.log(base))
        low = max(math.floor(corr_dim(beta_fast)), 0)
        high = min(math.ceil(corr_dim(beta_slow)), dim - 1)
        if low == high:
            high += 0.001
        ramp = np.clip((np.arange(dim // 2, dtype=np.float32) - low) / (high - low), 0, 1)
        extrapolation = 1 - ramp
        pos_freqs = np.float32(base) ** exps
        inter, extra = 1.0 / (f * pos_freqs), 1.0 / pos_freqs
        attn = p.get("attention_factor", 0.1 * math.log(f) + 1.0)
        return (inter * (1 - extrapolation) + extra * extrapolation).astype(np.float32), attn
    if kind == "llama3":
        f, lf, hf, l0 = p["factor"], p["low_freq_factor"], p["high_freq_factor"], p["original"]
        low_wl, high_wl = l0 / lf, l0 / hf
        wl = 2 * math.pi / default
        out = np.where(wl > low_wl, default / f, default)
        smooth = (l0 / wl - lf) / (hf - lf)
        smoothed = (1 - smooth) * out / f + smooth * out
        medium = ~(wl < high_wl) & ~(wl > low_wl)
        return np.where(medium, smoothed, out).astype(np.float32), 1.0
    raise ValueError(kind)


def rotate(q, positions, theta, attn, layout, rotary, dtype, angle_dtype=None):
    """q: [seq, heads, d] float32 values of `dtype`; RoPE on the first `rotary` channels."""
    pos = positions.astype(np.float32)
    th = theta.astype(np.float32)
    if angle_dtype == "bf16":  # positions and inv_freq cast to bf16, their product rounded to bf16
        ang = bf16(bf16(pos)[:, None] * bf16(th)[None, :])
    else:
        ang = (pos[:, None] * th[None, :]).astype(np.float32)
    cos = to_type(np.cos(ang) * np.float32(attn), dtype)[:, None, :]
    sin = to_type(np.sin(ang) * np.float32(attn), dtype)[:, None, :]
    half = rotary // 2
    out = q.copy()
    if layout == "half":
        a, b = q[..., :half], q[..., half:rotary]
        out[..., :half] = to_type(to_type(a * cos, dtype) - to_type(b * sin, dtype), dtype)
        out[..., half:rotary] = to_type(to_type(b * cos, dtype) + to_type(a * sin, dtype), dtype)
    else:
        a, b = q[..., 0:rotary:2], q[..., 1:rotary:2]
        out[..., 0:rotary:2] = to_type(to_type(a * cos, dtype) - to_type(b * sin, dtype), dtype)
        out[..., 1:rotary:2] = to_type(to_type(b * cos, dtype) + to_type(a * sin, dtype), dtype)
    return out


def save_npy(path, x, dtype):
    if dtype == "bf16":
        np.save(path, (np.ascontiguousarray(x, np.float32).view(np.uint32) >> 16).astype("<u2"))
    elif dtype == "f16":
        np.save(path, x.astype("<f2"))
    else:
        np.save(path, x.astype("<f4"))


def save_safetensors(path, x):
    """BF16 safetensors, per the huggingface/safetensors README "Format"."""
    raw = (np.ascontiguousarray(x, np.float32).view(np.uint32) >> 16).astype("<u2").tobytes()
    header = json.dumps({"q": {"dtype": "BF16", "shape": list(x.shape), "data_offsets": [0, len(raw)]}}).encode()
    header += b" " * (-len(header) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(header)) + header + raw)


# name: (dtype, layout, rotary (of head 64), kind, params, check flags, planted bug, identify expectations)
D, HEADS = 64, 2
CASES = [
    # correct dumps
    dict(name="half_f32", dtype="f32", layout="half", kind="default", base=10000.0, flags=["--layout", "half"]),
    dict(name="interleaved_f32", dtype="f32", layout="interleaved", kind="default", base=10000.0,
         flags=["--layout", "interleaved"]),
    dict(name="half_f16", dtype="f16", layout="half", kind="default", base=10000.0, flags=["--layout", "half"]),
    dict(name="interleaved_bf16", dtype="bf16", layout="interleaved", kind="default", base=10000.0,
         flags=["--layout", "interleaved"]),
    dict(name="partial_half_f32", dtype="f32", layout="half", kind="default", base=10000.0, rotary=32,
         flags=["--layout", "half", "--partial-rotary-factor", "0.5"]),
    dict(name="base500k_bf16", dtype="bf16", layout="half", kind="default", base=500000.0,
         flags=["--layout", "half", "--base", "500000"]),
    dict(name="linear_f32", dtype="f32", layout="half", kind="linear", base=10000.0, p=dict(factor=4.0),
         flags=["--layout", "half", "--scaling", "linear", "--factor", "4"]),
    dict(name="ntk_f32", dtype="f32", layout="half", kind="ntk", base=10000.0, p=dict(factor=4.0),
         flags=["--layout", "half", "--scaling", "ntk", "--factor", "4"]),
    dict(name="yarn_f32", dtype="f32", layout="half", kind="yarn", base=10000.0, p=dict(factor=4.0, original=2048),
         flags=["--layout", "half", "--scaling", "yarn", "--factor", "4", "--original-max-position", "2048"]),
    dict(name="yarn_bf16", dtype="bf16", layout="interleaved", kind="yarn", base=10000.0,
         p=dict(factor=4.0, original=2048),
         flags=["--layout", "interleaved", "--scaling", "yarn", "--factor", "4", "--original-max-position", "2048"]),
    dict(name="llama3_f32", dtype="f32", layout="half", kind="llama3", base=500000.0,
         p=dict(factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0, original=8192),
         flags=["--layout", "half", "--base", "500000", "--scaling", "llama3", "--factor", "8",
                "--low-freq-factor", "1", "--high-freq-factor", "4", "--original-max-position", "8192"]),
    dict(name="factor_f32", dtype="f32", layout="half", kind="yarn", base=10000.0,
         p=dict(factor=4.0, original=2048, attention_factor=1.3466),
         flags=["--layout", "half", "--scaling", "yarn", "--factor", "4", "--original-max-position", "2048",
                "--attention-factor", "1.3466"]),
    # planted bugs: the dump is computed with `bug`, checked against `flags`
    dict(name="bug_layout_swapped", dtype="f32", layout="interleaved", kind="default", base=10000.0,
         flags=["--layout", "half"], matches="layout-swapped"),
    dict(name="bug_gqa_permute", dtype="f32", layout="half", kind="default", base=10000.0, heads=4,
         swapped_heads=[2, 3], flags=["--layout", "half"], swapped=[2, 3]),
    dict(name="bug_partial_twice", dtype="f32", layout="half", kind="default", base=10000.0, rotary=16,
         flags=["--layout", "half", "--partial-rotary-factor", "0.5"], matches="partial-rotary-twice"),
    dict(name="bug_partial_whole_head", dtype="f32", layout="half", kind="default", base=10000.0,
         flags=["--layout", "half", "--partial-rotary-factor", "0.5"], matches="partial-rotary-whole-head"),
    dict(name="bug_factor_ignored", dtype="f32", layout="half", kind="yarn", base=10000.0,
         p=dict(factor=4.0, original=2048, attention_factor=1.0),
         flags=["--layout", "half", "--scaling", "yarn", "--factor", "4", "--original-max-position", "2048",
                "--attention-factor", "1.3466"], matches="attention-factor-missing"),
    dict(name="bug_scaling_ignored", dtype="f32", layout="half", kind="default", base=10000.0,
         flags=["--layout", "half", "--scaling", "linear", "--factor", "8"], matches="scaling-ignored"),
    dict(name="bug_theta_bf16", dtype="bf16", layout="half", kind="default", base=10000.0, angle_dtype="bf16",
         flags=["--layout", "half"], matches="angles-bf16"),
    dict(name="bug_positions_off_by_one", dtype="f32", layout="half", kind="default", base=10000.0, offset=1,
         flags=["--layout", "half"], matches="positions-plus-one"),
    dict(name="bug_base_wrong", dtype="f32", layout="half", kind="default", base=10000.0,
         flags=["--layout", "half", "--base", "500000"], matches="base-10000"),
]


# M-RoPE (docs/multi-axis.md): q [seq, 2 heads, 128] float32 rotated as HF's Qwen2-VL and Qwen3-VL code does.
#   positions, as modeling_qwen2_vl.py Qwen2VLModel.get_rope_index builds them for text 4, an image of grid
#   1x8x8 (spatial_merge_size 2: 1x4x4 tokens), text 4: text tokens (p, p, p); the image starting at s = 4 gets
#   (s + t, s + h, s + w); the text after it resumes at the largest id + 1;
#   chunked (modeling_qwen2_vl.py apply_multimodal_rotary_pos_emb): cos and sin [3, seq, d] split along the
#   last axis into mrope_section * 2, chunk i taken from axis i % 3;
#   interleaved (modeling_qwen3_vl.py Qwen3VLTextRotaryEmbedding.apply_interleaved_mrope): freqs [3, seq, d/2],
#   t's everywhere, then pairs j % 3 == 1 with j < 3·s_h from h and j % 3 == 2 with j < 3·s_w from w;
#   emb = cat(freqs, freqs); inv_freq, freqs, cos and sin in float32; rotate_half.
def mrope_positions():
    rows = [(p, p, p, "text", 0) for p in range(4)]
    rows += [(4, 4 + h, 4 + w, "image", 1) for h in range(4) for w in range(4)]
    nxt = max(max(r[:3]) for r in rows) + 1
    rows += [(p, p, p, "text", 2) for p in range(nxt, nxt + 4)]
    return rows


def mrope_rotate(q, pos3, base, sections, order):
    d = q.shape[-1]
    inv = (1.0 / (np.float32(base) ** (np.arange(0, d, 2, dtype=np.int64).astype(np.float32) / np.float32(d))))
    freqs = (pos3.astype(np.float32)[:, :, None] * inv.astype(np.float32)[None, None, :]).astype(np.float32)
    if order == "interleaved":
        f = freqs[0].copy()
        for dim, offset in ((1, 1), (2, 2)):
            idx = slice(offset, sections[dim] * 3, 3)
            f[..., idx] = freqs[dim, ..., idx]
        emb = np.concatenate([f, f], axis=-1)
        cos, sin = np.cos(emb), np.sin(emb)
    else:
        emb = np.concatenate([freqs, freqs], axis=-1)
        cuts = np.cumsum(sections * 2)[:-1]
        cos = np.concatenate([c[i % 3] for i, c in enumerate(np.split(np.cos(emb), cuts, axis=-1))], axis=-1)
        sin = np.concatenate([c[i % 3] for i, c in enumerate(np.split(np.sin(emb), cuts, axis=-1))], axis=-1)
    cos, sin = cos.astype(np.float32)[:, None, :], sin.astype(np.float32)[:, None, :]
    rot = np.concatenate([-q[..., d // 2:], q[..., :d // 2]], axis=-1)
    return (q * cos + rot * sin).astype(np.float32)


def vision_cases(out, manifest):
    """Vision towers (docs/multi-axis.md §6) through tests/reference/vision_rope.py's ports of HF's code: Llama 4's
    tower of the preset (head 88, HF's own angle table of side 24, 1-based) and Pixtral (head 64), on a 6 × 6 block
    of patches given as (row, column); and Llama 4 with 0-based patches (the +1 forgotten)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import vision_rope
    patches = [(h, w) for h in range(0, 24, 4) for w in range(1, 24, 4)]
    with open(os.path.join(out, "vision_positions.csv"), "w") as f:
        f.write("h,w\n" + "".join(f"{h},{w}\n" for h, w in patches))
    cases = [("vision_llama4", 88, lambda x, h, w: vision_rope.llama4_grid(x, h, w), ["--model", "llama-4-scout-17b-16e",
              "--tower", "vision"], None),
             ("vision_pixtral", 64, lambda x, h, w: vision_rope.pixtral(x, h, w), ["--vision", "pixtral"], None),
             ("bug_vision_zero_based", 88, lambda x, h, w: vision_rope.llama4(x, h - 1, w - 1),
              ["--model", "llama-4-scout-17b-16e", "--tower", "vision"], "positions-minus-one"),
             # --vision KIND without a model: the kind's own layout (interleaved for Llama 4 and axial).
             ("vision_llama4_kind", 88, lambda x, h, w: vision_rope.llama4_grid(x, h, w), ["--vision", "llama4"], None),
             ("vision_axial_kind", 64, lambda x, h, w: vision_rope.axial(x, h, w), ["--vision", "axial"], None)]
    for i, (name, d, rotate_one, flags, matches) in enumerate(cases):
        q = np.random.default_rng(3000 + i).standard_normal((len(patches), 2, d)).astype(np.float32)
        after = np.empty_like(q)
        for s, (h, w) in enumerate(patches):
            for g in range(2):
                after[s, g] = rotate_one(q[s, g].astype(np.float64), h, w).astype(np.float32)
        save_npy(os.path.join(out, f"{name}_q.npy"), q, "f32")
        save_npy(os.path.join(out, f"{name}_q_rope.npy"), after, "f32")
        manifest.append(dict(name=name, before=f"{name}_q.npy", after=f"{name}_q_rope.npy",
                             axis_positions="vision_positions.csv", flags=flags, dtype="f32",
                             exit=1 if matches else 0, matches=matches))


def mrope_cases(out, manifest):
    rows = mrope_positions()
    pos3 = np.array([r[:3] for r in rows], dtype=np.int64).T
    with open(os.path.join(out, "mrope_positions.csv"), "w") as f:  # as `rope positions --csv` writes it
        f.write("token,segment,kind,t,h,w\n")
        for i, (t, h, w, kind, segment) in enumerate(rows):
            f.write(f"{i},{segment},{kind},{t},{h},{w}\n")
    seq = len(rows)
    qwen2 = (1000000.0, [16, 24, 24], ["--model", "qwen2-vl-7b"])
    qwen3 = (5000000.0, [24, 20, 20], ["--model", "qwen3-vl-8b"])
    cases = [("mrope_qwen2vl", qwen2, "chunked", None), ("mrope_qwen3vl", qwen3, "interleaved", None),
             ("bug_mrope_chunked", qwen3, "chunked", "mrope-chunked"),
             ("bug_mrope_ignored", qwen2, "1-D", "mrope-ignored")]
    for i, (name, (base, sections, flags), order, matches) in enumerate(cases):
        q = np.random.default_rng(2000 + i).standard_normal((seq, 2, 128)).astype(np.float32)
        if order == "1-D":  # the multimodal branch never reached: every token at its index in the sequence
            after = rotate(q, np.arange(seq), inv_freq("default", 128, base)[0], 1.0, "half", 128, "f32")
        else:
            after = mrope_rotate(q, pos3, base, sections, order)
        save_npy(os.path.join(out, f"{name}_q.npy"), q, "f32")
        save_npy(os.path.join(out, f"{name}_q_rope.npy"), after, "f32")
        manifest.append(dict(name=name, before=f"{name}_q.npy", after=f"{name}_q_rope.npy",
                             axis_positions="mrope_positions.csv", flags=flags, dtype="f32",
                             exit=1 if matches else 0, matches=matches))


def mrope_decode_cases(out, manifest):
    """M-RoPE decoding (docs/check.md): after the prefill of mrope_positions() (24 tokens, ids up to 11), HF's
    forward puts decode token i at i + rope_deltas on t, h and w, rope_deltas = 11 + 1 - 24 = -12 from
    tests/reference/positions.py's port of get_rope_index; q of 4 decode tokens (indices 24 ... 27) rotated as
    Qwen3-VL does, and the bug of a kernel that drops the delta (every decode token at its plain index)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import positions as port
    segments = [("text", 4), ("image", (1, 8, 8)), ("text", 4)]
    prefill = port.get_rope_index(segments, 2, None, 1.0)
    assert prefill.T.tolist() == [list(r[:3]) for r in mrope_positions()]
    delta = port.rope_deltas(prefill)
    steps, length = 4, prefill.shape[1]
    decoded = port.decode_ids(length, delta, steps)
    base, sections, flags = 5000000.0, [24, 20, 20], ["--model", "qwen3-vl-8b"]
    cases = [("mrope_decode_qwen3vl", decoded, 0), ("bug_mrope_decode_no_delta", decoded - delta, 1)]
    for i, (name, pos3, code) in enumerate(cases):
        q = np.random.default_rng(2100 + i).standard_normal((steps, 2, 128)).astype(np.float32)
        save_npy(os.path.join(out, f"{name}_q.npy"), q, "f32")
        save_npy(os.path.join(out, f"{name}_q_rope.npy"), mrope_rotate(q, pos3, base, sections, "interleaved"), "f32")
        manifest.append(dict(name=name, before=f"{name}_q.npy", after=f"{name}_q_rope.npy",
                             positions=f"{length}:{length + steps}", flags=flags + ["--rope-delta", str(delta)],
                             dtype="f32", exit=code, matches=None))


def bailing_rotate(q, pos3, base, sections, swap_hw=False):
    """Bailing (Ling/Ming) M-RoPE, ported from vllm-project/vllm vllm/model_executor/layers/rotary_embedding/
    bailing_mrope.py @ 9c5b71639542 (BailingMRotaryEmbedding.select_cos_sin, forward_native) with the cache of
    RotaryEmbedding._compute_cos_sin_cache: inv_freq = 1 / base^(arange(0, r, 2) / r), freqs = t · inv_freq, all
    float32; cos_sin_cache[positions] per axis; the first spatial_size = H + W pairs take h where the pair index is
    even and w where odd (torch.where(arange % 2 == 0, cos[1], cos[2])), the rest t (cos[0]); GPT-J pairs
    (is_neox_style false: x[..., ::2], x[..., 1::2], stacked back). `swap_hw` plants the bug of h on the odd pairs."""
    r = q.shape[-1]
    t_sec, h_sec, w_sec = sections
    assert h_sec == w_sec and t_sec + h_sec + w_sec == r // 2
    inv = (1.0 / (np.float32(base) ** (np.arange(0, r, 2, dtype=np.float32) / np.float32(r)))).astype(np.float32)
    freqs = (pos3.astype(np.float32)[:, :, None] * inv[None, None, :]).astype(np.float32)  # [3, seq, r/2]
    cos, sin = np.cos(freqs).astype(np.float32), np.sin(freqs).astype(np.float32)
    spatial = h_sec + w_sec
    even = (np.arange(spatial) % 2 == 0)[None, :]
    if swap_hw:
        even = ~even
    c = np.concatenate([np.where(even, cos[1, :, :spatial], cos[2, :, :spatial]), cos[0, :, spatial:]], axis=-1)
    s = np.concatenate([np.where(even, sin[1, :, :spatial], sin[2, :, :spatial]), sin[0, :, spatial:]], axis=-1)
    c, s = c[:, None, :], s[:, None, :]
    x1, x2 = q[..., ::2], q[..., 1::2]
    return np.stack([x1 * c - x2 * s, x2 * c + x1 * s], axis=-1).reshape(q.shape).astype(np.float32)


def bailing_cases(out, manifest):
    """Bailing M-RoPE (docs/multi-axis.md (A9)) on the rotary part of its MLA head (qk_rope_head_dim 64), q [24, 2, 64]
    of text 4, an image 1x8x8, text 4 (mrope_positions.csv), θ 600000, sections [12, 10, 10] as
    data/configs/bailing-moe-v3-vl.json gives them: vLLM's map passes; h and w exchanged, and Qwen2-VL's chunks over
    the same sections (the generic M-RoPE class), fail."""
    config = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "configs",
                          "bailing-moe-v3-vl.json")
    pos3 = np.array([r[:3] for r in mrope_positions()], dtype=np.int64).T
    flags = ["--config", os.path.abspath(config)]
    cases = [("mrope_bailing", dict()), ("bug_bailing_hw_swapped", dict(swap_hw=True)),
             ("bug_bailing_chunked", None)]
    for i, (name, how) in enumerate(cases):
        q = np.random.default_rng(2200 + i).standard_normal((pos3.shape[1], 2, 64)).astype(np.float32)
        if how is None:  # the chunked map (A2) over interleaved pairs: as GLM-4.1V lays its sections
            half = mrope_rotate(deinterleave(q), pos3, 600000.0, [12, 10, 10], "chunked")
            after = reinterleave(half)
        else:
            after = bailing_rotate(q, pos3, 600000.0, [12, 10, 10], **how)
        save_npy(os.path.join(out, f"{name}_q.npy"), q, "f32")
        save_npy(os.path.join(out, f"{name}_q_rope.npy"), after, "f32")
        manifest.append(dict(name=name, before=f"{name}_q.npy", after=f"{name}_q_rope.npy",
                             axis_positions="mrope_positions.csv", flags=flags, dtype="f32",
                             exit=0 if name == "mrope_bailing" else 1, matches=None))


def deinterleave(x):
    """Channels (2i, 2i+1) -> (i, i + d/2): the half layout's order of the same pairs."""
    return np.concatenate([x[..., ::2], x[..., 1::2]], axis=-1)


def reinterleave(x):
    d = x.shape[-1]
    return np.stack([x[..., :d // 2], x[..., d // 2:]], axis=-1).reshape(x.shape)


def examples(out):
    """The small example dumps of data/dumps/ (README.md, docs/check.md): q [seq 128, heads 1, d 64] float32
    and q after RoPE (half layout, base 10000), correct and with planted bugs."""
    os.makedirs(out, exist_ok=True)
    seq, positions = 128, np.arange(128)
    q = np.random.default_rng(15).standard_normal((seq, 1, D)).astype(np.float32)
    theta, _ = inv_freq("default", D, 10000.0)
    yarn, attn = inv_freq("yarn", D, 10000.0, factor=4.0, original=2048)
    np.save(os.path.join(out, "q.npy"), q)
    files = {
        "q_rope.npy": rotate(q, positions, theta, 1.0, "half", D, "f32"),
        "q_rope_interleaved.npy": rotate(q, positions, theta, 1.0, "interleaved", D, "f32"),
        "q_rope_off_by_one.npy": rotate(q, positions + 1, theta, 1.0, "half", D, "f32"),
        "q_rope_yarn.npy": rotate(q, positions, yarn, attn, "half", D, "f32"),
        "q_rope_yarn_no_factor.npy": rotate(q, positions, yarn, 1.0, "half", D, "f32"),
    }
    # M-RoPE (docs/check.md): q [24, 1, 128] of text 4, an image 1x8x8, text 4, with the positions rope positions
    # writes, rotated as Qwen3-VL does (mrope_section [24, 20, 20] interleaved, base 5e6) and in chunks (a bug).
    rows = mrope_positions()
    with open(os.path.join(out, "mrope_positions.csv"), "w") as f:
        f.write("token,segment,kind,t,h,w\n")
        for i, (t, h, w, kind, segment) in enumerate(rows):
            f.write(f"{i},{segment},{kind},{t},{h},{w}\n")
    pos3 = np.array([r[:3] for r in rows], dtype=np.int64).T
    mq = np.random.default_rng(16).standard_normal((len(rows), 1, 128)).astype(np.float32)
    np.save(os.path.join(out, "mrope_q.npy"), mq)
    files["mrope_q_rope.npy"] = mrope_rotate(mq, pos3, 5000000.0, [24, 20, 20], "interleaved")
    files["mrope_q_rope_chunked.npy"] = mrope_rotate(mq, pos3, 5000000.0, [24, 20, 20], "chunked")
    # Decoding after that prefill (docs/check.md): q [4, 1, 128] of the decode tokens at indices 24 … 27, rotated as
    # Qwen3-VL does at index + rope_deltas (−12: the prefill's ids end at 11), and without the delta (a bug).
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import positions as port
    delta = port.rope_deltas(pos3)
    decoded = port.decode_ids(pos3.shape[1], delta, 4)
    dq = np.random.default_rng(19).standard_normal((4, 1, 128)).astype(np.float32)
    np.save(os.path.join(out, "mrope_decode_q.npy"), dq)
    files["mrope_decode_q_rope.npy"] = mrope_rotate(dq, decoded, 5000000.0, [24, 20, 20], "interleaved")
    files["mrope_decode_q_rope_no_delta.npy"] = mrope_rotate(dq, decoded - delta, 5000000.0, [24, 20, 20],
                                                             "interleaved")
    # A decode batch (docs/check.md): HF's q [batch 4, heads 2, seq 1, d 64], one token per row at the positions
    # 57, 12, 300, 4095 (position_ids [4, 1], int64 as PyTorch makes them); and the batched-decode bug of
    # rotating every row at the first row's offset.
    rows = np.array([[57], [12], [300], [4095]], dtype=np.int64)
    dq = np.random.default_rng(17).standard_normal((4, 2, 1, D)).astype(np.float32)
    np.save(os.path.join(out, "decode_q.npy"), dq)
    np.save(os.path.join(out, "decode_positions.npy"), rows)
    files["decode_q_rope.npy"] = np.stack([rotate(dq[b, :, :, :].transpose(1, 0, 2), rows[b], theta, 1.0, "half", D, "f32")
                                           .transpose(1, 0, 2) for b in range(4)])
    files["decode_q_rope_shared_offset.npy"] = np.stack(
        [rotate(dq[b].transpose(1, 0, 2), rows[0], theta, 1.0, "half", D, "f32").transpose(1, 0, 2) for b in range(4)])
    # Two packed sequences of 128 tokens (positions 0 … 127 twice): q [256, 1, 64].
    pq = np.random.default_rng(18).standard_normal((256, 1, D)).astype(np.float32)
    np.save(os.path.join(out, "packed_q.npy"), pq)
    files["packed_q_rope.npy"] = rotate(pq, np.concatenate([positions, positions]), theta, 1.0, "half", D, "f32")
    # A flat rotary input as vLLM and SGLang hand it (docs/check.md): q [8 tokens, 4 heads · 16] at positions 0 … 7,
    # each head rotated (half layout, base 10000) as their forward views it, query.view(num_tokens, -1, head_size).
    fq = np.random.default_rng(80).standard_normal((8, 4, 16)).astype(np.float32)
    np.save(os.path.join(out, "flat_q.npy"), fq.reshape(8, 64))
    theta16, _ = inv_freq("default", 16, 10000.0)
    files["flat_q_rope.npy"] = rotate(fq, np.arange(8), theta16, 1.0, "half", 16, "f32").reshape(8, 64)
    for name, x in files.items():
        np.save(os.path.join(out, name), x.astype("<f4"))
    print(f"{len(files) + 8} files in {out}")


def self_check():
    """Hand-derivable values: bfloat16 rounding ties to even; YaRN's correction range for d = 64, base 10^4,
    L0 = 2048 is [floor(64·ln(2048/(64π))/(2 ln 10^4)), ceil(64·ln(2048/(2π))/(2 ln 10^4))] = [8, 21], so
    pair 8 keeps θ and pair 21 has θ/f."""
    assert bf16(np.float32(1 + 2 ** -8)) == 1.0 and bf16(np.float32(1 + 3 * 2 ** -8)) == np.float32(1 + 2 ** -6)
    theta, attn = inv_freq("yarn", 64, 10000.0, factor=4.0, original=2048)
    default, _ = inv_freq("default", 64, 10000.0)
    assert theta[8] == default[8] and abs(theta[21] * 4 / default[21] - 1) < 1e-6 and abs(attn - 1.1386294361) < 1e-9


def main():
    self_check()
    if len(sys.argv) == 1:  # the committed examples, next to the repository's data/
        examples(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "dumps"))
        return
    if sys.argv[1] == "--examples":
        examples(sys.argv[2])
        return
    out = sys.argv[1]
    small = "--small" in sys.argv
    os.makedirs(out, exist_ok=True)
    seq = 64 if small else 1024
    positions = np.arange(seq, dtype=np.int64)
    manifest = []
    for i, c in enumerate(CASES):
        rng = np.random.default_rng(1000 + i)
        heads = c.get("heads", HEADS)
        rotary = c.get("rotary", D)
        theta, attn = inv_freq(c["kind"], rotary, c["base"], **c.get("p", {}))
        q = to_type(rng.standard_normal((seq, heads, D)).astype(np.float32), c["dtype"])
        pos = positions + c.get("offset", 0)
        after = rotate(q, pos, theta, attn, c["layout"], rotary, c["dtype"], c.get("angle_dtype"))
        for h in c.get("swapped_heads", []):
            other = "interleaved" if c["layout"] == "half" else "half"
            after[:, h:h + 1] = rotate(q[:, h:h + 1], pos, theta, attn, other, rotary, c["dtype"])
        before_file, after_file = f"{c['name']}_q.npy", f"{c['name']}_q_rope.npy"
        save_npy(os.path.join(out, before_file), q, c["dtype"])
        save_npy(os.path.join(out, after_file), after, c["dtype"])
        planted = "matches" in c or "swapped" in c
        entry = dict(name=c["name"], before=before_file, after=after_file, positions=f"0:{seq}",
                     flags=c["flags"] + (["--bf16-bits"] if c["dtype"] == "bf16" else []),
                     dtype=c["dtype"], exit=1 if planted else 0, matches=c.get("matches"), swapped=c.get("swapped"))
        if not planted:
            entry["identify"] = dict(layout=c["layout"], rotary_dim=rotary, attention_factor=attn, kind=c["kind"],
                                     base=c["base"], theta=[float(t) for t in theta],
                                     **{k: v for k, v in c.get("p", {}).items() if k != "attention_factor"})
        manifest.append(entry)
    # The same correct dump in the other containers and axis orders.
    rng = np.random.default_rng(7)
    q = bf16(rng.standard_normal((seq, HEADS, D)).astype(np.float32))
    theta, _ = inv_freq("default", D, 10000.0)
    after = rotate(q, positions, theta, 1.0, "half", D, "bf16")
    save_safetensors(os.path.join(out, "st_q.safetensors"), q)
    save_safetensors(os.path.join(out, "st_q_rope.safetensors"), after)
    manifest.append(dict(name="safetensors_bf16", before="st_q.safetensors", after="st_q_rope.safetensors",
                         positions=f"0:{seq}", flags=["--layout", "half"], dtype="bf16", exit=0))
    bhsd_q, bhsd_after = q.transpose(1, 0, 2)[None], after.transpose(1, 0, 2)[None]  # [1, heads, seq, d]
    save_npy(os.path.join(out, "bhsd_q.npy"), np.ascontiguousarray(bhsd_q), "f32")
    save_npy(os.path.join(out, "bhsd_q_rope.npy"), np.ascontiguousarray(bhsd_after), "f32")
    manifest.append(dict(name="axes_bhsd", before="bhsd_q.npy", after="bhsd_q_rope.npy", positions=f"0:{seq}",
                         flags=["--layout", "half", "--dtype", "bf16"], dtype="bf16", exit=0))
    save_npy(os.path.join(out, "bshd_q.npy"), np.ascontiguousarray(q[None]), "f32")
    save_npy(os.path.join(out, "bshd_q_rope.npy"), np.ascontiguousarray(after[None]), "f32")
    manifest.append(dict(name="axes_bshd", before="bshd_q.npy", after="bshd_q_rope.npy", positions=f"0:{seq}",
                         flags=["--layout", "half", "--dtype", "bf16"], dtype="bf16", exit=0))
    mrope_cases(out, manifest)
    mrope_decode_cases(out, manifest)
    bailing_cases(out, manifest)
    vision_cases(out, manifest)
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print(f"{len(manifest)} cases in {out}")


if __name__ == "__main__":
    main()
