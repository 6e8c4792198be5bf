#!/usr/bin/python3
"""Buggy RoPE kernels (issue 53), each written here with NumPy alone from the bug class of a public thread, not from
rope's variant code in src/: the dumps a kernel author gets when RoPE goes wrong in one classic way, and correct
kernels in float32, bf16 and float16 at positions up to 131071 that must stay PASS.

The correct kernel is Hugging Face's: inv_freq = 1 / base^(arange(0, r, 2) / r) in float32, freqs = m · inv_freq in
float32, emb = cat(freqs, freqs), q · cos + rotate_half(q) · sin (transformers modeling_llama.py
LlamaRotaryEmbedding / apply_rotary_pos_emb); the scaled frequencies follow modeling_rope_utils.py
(_compute_llama3_parameters, _compute_yarn_parameters). Each bug changes one step:

    reversed            q · cos − rotate_half(q) · sin (sin's sign flipped: m − n written as n − m)
    base_not_read       the config's rope_theta 500000 ignored, 1e6 (a code base's default) used
    integer_division    inv_freq = 1 / base^(arange(0, r, 2) // r): every exponent 0, θ = 1
    partial_pairing     partial_rotary_factor 0.5: the rotary half paired (i, i + d/2) instead of (i, i + r/2)
    scaling_twice       llama3: GGUF rope_freqs (θ0 / θ_llama3) applied on top of the llama3 frequencies
    llama3_base_not_read  llama3 (factor 8, from 8192) at base 10000 where the config says 500000: scaled-base-10000;
                        identify fits the same llama3 at base 10000, factor 8
    inv_freq_bf16       inv_freq rounded to bf16, m·θ in float32 (sglang-jax #1472): inv-freq-bf16; inv_freq_f16 the same
                        in float16
    cache_short         the cos/sin cache built for 512 positions, index clamped to its last row
    cache_wrapped       the same cache read at p mod 512 (positions from 256)
    f16_overflow        positions and inv_freq cast to float16 before m · θ (gpt-oss): inf at 65520, NaN
    packed_ignored      two packed sequences (positions 0 … 127 twice) rotated at 0 … 255
    heads_seq_mixed     q [seq, heads, d] viewed as [heads, seq, d] around RoPE (a reshape, not a transpose)
    batch_seq_heads_assumed  a correct [1, 8, 8, d] dump in [batch, seq, heads, d] without --axes: [batch, heads,
                        seq, d] is assumed first, fails, and the other reading passes
    mrope_t_for_all     Qwen3-VL's interleaved M-RoPE with the t row for h and w
    mrope_npy_thw_3_seq (and _3_1_seq) the correct Qwen3-VL dump, its t, h, w as HF's position_ids in a .npy given to
                        --axis-positions ([3, seq], [3, 1, seq]): PASS
    mrope_shifted       the same with (t, h, w) read as (h, w, t) (axis slots shifted by one)
    mrope_batch_rows    a batch of 2: HF's position_ids [3, batch, seq] read as [batch, 3, seq]
    mrope_text_rows     text only, 3 batch rows at their own positions, position_ids [batch, seq] read as [3, seq] by
                        the kernel: every row at (row 0, row 1, row 2): mrope-text-rows-as-axes, batch 3
    mrope_no_delta      decode tokens rotated at their index, rope_deltas −12 dropped
    pass_through        partial 0.5, the rotated channels right, the pass-through channels overwritten
    rotary_block_overlapping  partial 0.5, channels 16…47 rotated instead of 0…31: rotary-offset-other, offset 16 (where
                        the dump's changed channels begin)
    yarn_truncated      YaRN with truncate: false in the config, the correction range floored/ceiled anyway
    closest_hint        the interleaved layout and 40 wrong elements: no variant matches; the dump measured, its
                        pairing (partner 1) is the difference, with the share of the dump it explains, no closest
    departure           positions doubled: measured, every frequency twice the expected one: positions-scaled, scale 2
    base_unknown        base 20000 where 10000 is expected: the base the first departing pair's angle gives
    norm_bf16           a correct bf16 kernel whose output is multiplied by 1.05 (an attention factor where none
                        belongs): within (C1) element by element, caught by the pair norms (N1): found factor 1.05
    norm_f32            the same in float32
    gemma3_sliding      Gemma 3 (data/models/gemma-3-4b.json) without --layer-type, a sliding layer's dump (base
                        10000, unscaled): PASS as sliding_attention (the default type, full_attention, is base 1e6
                        with linear 8)
    gemma3_none         the same model, a dump at base 20000: FAIL naming both layer types
    gemma3_gguf_sliding a Gemma 3 GGUF with gemma3.attention.sliding_window set and no rope.freq_base_swa (written
                        here by tests/io/write_gguf.py's writer, docs/gguf.md's format): llama.cpp turns its sliding
                        layers (il % 6 < 5) at base 10000 unscaled, its full layers at rope.freq_base 1e6 with the
                        linear scaling 8; layer 0's q without --layer-type: PASS as sliding_attention
    gemma3_gguf_full    the same file, layer 5's q (a full layer, base 1e6 with the linear scaling 8): PASS as the
                        default type, full_attention, said so
    deepseek_llama_cpp  DeepSeek-V3's q_pe (YaRN f 40) as llama.cpp computes it (ggml rope mode NORM: pairs (2i, 2i + 1)
                        written back in place) checked against the deepseek-v3 preset, HF's, which de-interleaves its
                        output: PASS as equivalent (interleaved-in-place), named output-interleaved; FAIL with
                        --strict-order; PASS with --layout interleaved
    deepseek_hf         the same q_pe as HF's DeepSeek-V3 returns it (apply_rotary_pos_emb_interleave: de-interleaved to
                        (i, i + 32)): PASS with the preset; with --layout interleaved PASS as equivalent (de-interleaved), FAIL
                        with --strict-order, named output-deinterleaved
    deepseek2_legacy    llama.cpp's legacy DeepSeek-2 q, head 192 = 128 pass-through channels + 64 rotated at the end
                        (interleaved, in place): PASS with the preset and --layout interleaved; `rope identify` finds
                        interleaved pairs on the last 64 channels (offset 128)
    deepseek2_first     the same q with the first 64 channels rotated instead: named rotary-offset-other, offset 0
    positions_forgotten a correct dump at 40000 + i checked without --positions: positions-offset, offset 40000
    row_offset          a batch of 2 rows at position_ids 0 … 63, row 1 turned at 5000 + i: that row named, offset 5000
    packed_offset       two packed sequences given as 0 … 127 twice, the second turned at 3000 + i: offset 3000
    cp_rank_zigzag      context-parallel rank 1 of 2 (zigzag: chunks 1 and 2 of 256 tokens) checked at rank 0's positions:
                        two pieces of offsets, named as rank 1's positions (found cp_size 2, cp_rank 1, given_rank 0)
    head_offset         q [64, 4, 64], head 3 turned at 5000 + i, the other heads right: positions-offset per head,
                        found offset 5000, head 3
    cp_rank_contiguous  context-parallel rank 1 of 2 (contiguous: tokens 128 … 255) checked at rank 0's 0 … 127: +128
    cos_sin_table_bf16  float32 angles, the cos/sin table rounded to bf16 before it multiplies a float32 q (SGLang PR
                        #33117), positions 130816 … 131071: cos-sin-table-bf16; the same table in a bf16
                        dump (cos_sin_table_bf16_in_bf16): PASS, its rounding within bf16's tolerance
    angles_fast_math    HF's float32 angles taken in turns through fl32(1/2π), the product rounded to nearest (x =
                        fl32(φ·fl32(1/2π)), sin(2πx): what a sinpi of a float32 quotient does; CUDA's __sinf truncates
                        the product instead; imp PR #1325), positions 0 … 15 and 130816 … 131071, checked with
                        --angles float64: angles-fast-math, found bias −4.03e-8 (fl32(1/2π)'s shortfall); under the
                        default float32 angle model (angles_fast_math_float32): PASS; HF's plain float32 product at the
                        same positions under --angles float64 (angles_float32_product): angles-float32, not
                        angles-fast-math
    deepseek2_middle    the same q with channels 64…127 rotated: rotary-offset-other, offset 64 (where the dump's changed
                        channels begin); identify: interleaved pairs on channels 64–127 (offset 64)

Writes DIR/<case>/{q.npy, q_rope.npy, positions.npy or positions.csv} and DIR/manifest.json: per case the rope check
arguments, the exit code, the diagnosis expected (`matches`) and its parameter (`found`), or the closest variant, or
where the dump first departs.

Usage: buggy_kernels.py DIR
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "io"))
import write_gguf  # noqa: E402  (the GGUF writer of the tests, independent of rope's reader)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cp_positions as cp_ref  # noqa: E402  (the context-parallel splits ported from TransformerEngine and SGLang)

D, HEADS = 64, 2


def inv_freq(base, r, dtype=np.float32):
    exponent = np.arange(0, r, 2, dtype=np.int64).astype(np.float32) / np.float32(r)
    return (np.float32(1.0) / np.power(np.float32(base), exponent)).astype(dtype)


def rotate_half(x):
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)


def hf_rope(q, positions, theta, sign=1.0, out_dtype=np.float32, angle_dtype=np.float32):
    """q [seq, heads, d] (float64 values), positions [seq]: HF's apply_rotary_pos_emb on the first 2·len(theta)
    channels, computed in float32 (angles in angle_dtype), the rest passed through."""
    r = 2 * len(theta)
    freqs = positions.astype(angle_dtype)[:, None] * theta.astype(angle_dtype)[None, :]
    emb = np.concatenate([freqs, freqs], axis=-1).astype(np.float32)
    with np.errstate(invalid="ignore"):
        cos, sin = np.cos(emb)[:, None, :], np.sin(emb)[:, None, :]
    x = q.astype(np.float32)
    rot = x[..., :r]
    y = x.copy()
    y[..., :r] = rot * cos + sign * rotate_half(rot) * sin
    return y.astype(out_dtype)


def interleaved_rope(x, positions, theta, deinterleave=False):
    """The pairs (2i, 2i + 1) of x [seq, heads, r] turned by m·θ_i, angles in float32: written back in place, as
    llama.cpp's ggml_rope (mode NORM) leaves them, or de-interleaved to (i, i + r/2), as HF's DeepSeek-V3 returns them
    (apply_rotary_pos_emb_interleave: view(…, r/2, 2).transpose(4, 3).reshape, then rotate_half)."""
    freqs = positions.astype(np.float32)[:, None] * theta.astype(np.float32)[None, :]
    cos, sin = np.cos(freqs)[:, None, :], np.sin(freqs)[:, None, :]
    v = x.astype(np.float32)
    a, b = v[..., 0::2], v[..., 1::2]
    ya, yb = a * cos - b * sin, a * sin + b * cos
    y = np.empty_like(v)
    if deinterleave:
        h = v.shape[-1] // 2
        y[..., :h], y[..., h:] = ya, yb
    else:
        y[..., 0::2], y[..., 1::2] = ya, yb
    return y


def bf16_round(a):
    """float32 values rounded to bfloat16 (round to nearest even), kept as float32."""
    b = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    b = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16
    return b.astype(np.uint32).view(np.float32)


def llama3_theta(base, r, factor, low, high, original):
    """transformers _compute_llama3_parameters."""
    theta = inv_freq(base, r).astype(np.float64)
    wavelen = 2 * np.pi / theta
    low_wl, high_wl = original / low, original / high
    scaled = np.where(wavelen > low_wl, theta / factor, theta)
    smooth = (original / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    mid = ~(wavelen < high_wl) & ~(wavelen > low_wl)
    return np.where(mid, smoothed, scaled)


def yarn_theta(base, r, factor, original, truncate, beta_fast=32.0, beta_slow=1.0):
    """transformers _compute_yarn_parameters (the frequencies; the attention factor 0.1·ln f + 1 apart)."""
    def dim(turns):
        return (r * np.log(original / (turns * 2 * np.pi))) / (2 * np.log(base))
    low, high = dim(beta_fast), dim(beta_slow)
    if truncate:
        low, high = np.floor(low), np.ceil(high)
    low, high = max(low, 0), min(high, r - 1)
    if low == high:
        high += 0.001
    ramp = np.clip((np.arange(r // 2, dtype=np.float64) - low) / (high - low), 0, 1)
    pos = base ** (np.arange(0, r, 2, dtype=np.float64) / r)
    extrapolation, interpolation = 1.0 / pos, 1.0 / (factor * pos)
    extrapolation_factor = 1 - ramp
    return interpolation * (1 - extrapolation_factor) + extrapolation * extrapolation_factor, 0.1 * np.log(factor) + 1


def mrope_rope(q, thw, theta, sections, axes_of=None):
    """Qwen3-VL's interleaved M-RoPE (apply_interleaved_mrope): pair j takes h when j % 3 == 1 and j < 3·s_h, w when
    j % 3 == 2 and j < 3·s_w, else t. thw [seq, 3]; axes_of(thw) gives the rows the kernel reads."""
    rows = thw if axes_of is None else axes_of(thw)
    freqs = [rows[:, a].astype(np.float32)[:, None] * theta.astype(np.float32)[None, :] for a in range(3)]
    ft = freqs[0].copy()
    for a, off in ((1, 1), (2, 2)):
        ft[:, off:3 * sections[a]:3] = freqs[a][:, off:3 * sections[a]:3]
    emb = np.concatenate([ft, ft], axis=-1)
    cos, sin = np.cos(emb)[:, None, :], np.sin(emb)[:, None, :]
    x = q.astype(np.float32)
    return (x * cos + rotate_half(x) * sin).astype(np.float32)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(53)
    cases = []

    def save(name, q, y, positions, args, matches, found=None, text=None, positions_csv=None, closest=None,
             departure=None, exit=1, layer_type=None, found_rel=1e-9, identify=None, equivalent=None,
             identify_family=None):
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        np.save(os.path.join(d, "q.npy"), q)
        np.save(os.path.join(d, "q_rope.npy"), y)
        pos_args = []
        if positions_csv is not None:
            with open(os.path.join(d, "positions.csv"), "w") as f:
                f.write("t,h,w\n" + "".join(f"{t},{h},{w}\n" for t, h, w in positions_csv))
            pos_args = ["--axis-positions", os.path.join(d, "positions.csv")]
        elif positions is not None:
            np.save(os.path.join(d, "positions.npy"), np.asarray(positions, np.int64))
            pos_args = ["--positions", os.path.join(d, "positions.npy")]
        cases.append({"name": name, "args": ["--before", os.path.join(d, "q.npy"), "--after",
                                             os.path.join(d, "q_rope.npy")] + pos_args + args,
                      "matches": matches, "found": found or {}, "text": text, "closest": closest,
                      "departure": departure, "exit": exit, "layer_type": layer_type,
                      "found_rel": found_rel, "identify": identify, "equivalent": equivalent,
                      "identify_family": identify_family})

    def q_of(seq, d=D, heads=HEADS):
        return rng.standard_normal((seq, heads, d)).astype(np.float32)

    plain = ["--base", "10000", "--layout", "half", "--angles", "float32"]
    pos = np.arange(256)
    th = inv_freq(10000.0, D)
    q = q_of(256)
    save("reversed", q, hf_rope(q, pos, th, sign=-1.0), pos, plain, "rotation-reversed",
         text="matches the rotation reversed")
    save("base_not_read", q, hf_rope(q, pos, inv_freq(1e6, D)), pos,
         ["--base", "500000", "--layout", "half", "--angles", "float32"], "base-other", {"base": 1e6},
         text="matches base 1000000, not 500000: is rope_theta read?")
    save("integer_division", q, hf_rope(q, pos, np.ones(D // 2, np.float32)), pos, plain,
         "inv-freq-integer-division")
    # partial_rotary_factor 0.5 (r = 32 of d = 64): pair i with channel i + d/2 instead of i + r/2.
    r = D // 2
    thp = inv_freq(10000.0, r).astype(np.float32)
    x = q.astype(np.float32)
    freqs = pos.astype(np.float32)[:, None] * thp[None, :]
    cos, sin = np.cos(freqs)[:, None, :], np.sin(freqs)[:, None, :]
    y = x.copy()
    a, b = x[..., :r // 2], x[..., D // 2:D // 2 + r // 2]
    y[..., :r // 2] = a * cos - b * sin
    y[..., D // 2:D // 2 + r // 2] = a * sin + b * cos
    partial = plain + ["--partial-rotary-factor", "0.5"]
    save("partial_pairing", q, y.astype(np.float32), pos, partial, "partial-rotary-pairing", {"partner": D // 2},
         text="matches pair i rotated with channel i + 32 instead of i + 16")
    # pass-through channels overwritten by a fused kernel that ignores rotary_dim (vLLM PR #43676)
    y = hf_rope(q, pos, thp)
    y[..., r + 5] = y[..., r + 5] * 0.5 + 0.25
    save("pass_through", q, y, pos, partial, "pass-through-changed", {"channel": r + 5, "channels": 1})
    # The rotary block moved by half its width: channels 16…47 rotated where partial 0.5 rotates 0…31 (issue 62 item 9:
    # the variant started at channel 32, the first changed one outside the spec's block).
    y = q.astype(np.float32).copy()
    y[..., r // 2:r // 2 + r] = hf_rope(q[..., r // 2:r // 2 + r], pos, thp)
    save("rotary_block_overlapping", q, y, pos, partial, "rotary-offset-other", {"offset": r // 2},
         text="matches the 32 rotated channels at 16–47 (offset 16) instead of 0–31")
    # llama3 scaling applied twice: GGUF rope_freqs (θ0 / θ_llama3) divided into the llama3 frequencies.
    pos512 = np.arange(512)
    q512 = q_of(512)
    l3 = llama3_theta(500000.0, D, 8.0, 1.0, 4.0, 8192)
    rope_freqs = inv_freq(500000.0, D).astype(np.float64) / l3
    save("scaling_twice", q512, hf_rope(q512, pos512, (l3 / rope_freqs).astype(np.float32)), pos512,
         ["--base", "500000", "--layout", "half", "--angles", "float32", "--scaling", "llama3", "--factor", "8",
          "--low-freq-factor", "1", "--high-freq-factor", "4", "--original-max-position", "8192"],
         "scaling-applied-twice", {"factor": 8.0})
    # One engine (issue 63 item 3): what identify fits, check names with its parameter. llama3's scaling kept with
    # rope_theta not read (its frequencies at base 10000 where the config says 500000), and inv_freq stored in bf16 or
    # float16 with m·θ in float32 (sglang-jax #1472).
    save("llama3_base_not_read", q512, hf_rope(q512, pos512, llama3_theta(10000.0, D, 8.0, 1.0, 4.0, 8192)
                                               .astype(np.float32)), pos512,
         ["--base", "500000", "--layout", "half", "--angles", "float32", "--scaling", "llama3", "--factor", "8",
          "--low-freq-factor", "1", "--high-freq-factor", "4", "--original-max-position", "8192"],
         "scaled-base-10000", {"base": 10000},
         text="matches the llama3 scaling at base 10000, not 500000: rope_theta is not read while the scaling is kept",
         identify_family={"family": "llama3", "base": 10000, "factor": 8})
    save("inv_freq_bf16", q, hf_rope(q, pos, bf16_round(th)), pos, plain, "inv-freq-bf16",
         text="matches inv_freq rounded to bf16 with m·θ computed in float32")
    save("inv_freq_f16", q, hf_rope(q, pos, th.astype(np.float16).astype(np.float32)), pos, plain, "inv-freq-f16",
         text="matches inv_freq rounded to f16 with m·θ computed in float32")
    # A cos/sin cache of 512 rows, read at positions up to 1023: clamped, or wrapped.
    pos1k = np.arange(1024)
    q1k = q_of(1024)
    save("cache_short", q1k, hf_rope(q1k, np.minimum(pos1k, 511), th), pos1k, plain, "cos-sin-cache-short",
         {"length": 512, "wraps": 0}, text="matches a cos/sin cache of 512 positions clamped")
    # Wrapped from position 0 it is positions restarting at 512 (that diagnosis); from 256 it is not.
    pos_w = np.arange(256, 1280)
    save("cache_wrapped", q1k, hf_rope(q1k, pos_w % 512, th), pos_w, plain, "cos-sin-cache-short",
         {"length": 512, "wraps": 1})
    # gpt-oss: m and θ in float16, m·θ = inf from 65520 on, cos/sin NaN.
    posf = np.arange(65500, 65564)
    qf = q_of(len(posf))
    save("f16_overflow", qf, hf_rope(qf, posf, th, angle_dtype=np.float16), posf, plain, "angles-f16-overflow",
         {"position": 65520})
    # Packed sequences: position_ids 0 … 127, 0 … 127 ignored, the kernel counts 0 … 255.
    packed = np.concatenate([np.arange(128), np.arange(128)])
    save("packed_ignored", q, hf_rope(q, pos, th), packed, plain, "position-ids-ignored", {"restart": 128})
    # [seq, heads, d] viewed as [heads, seq, d] (a reshape where a transpose belongs), RoPE, viewed back.
    qm = q_of(16, heads=4)
    view = qm.reshape(4, 16, D)  # [heads', seq', d]: the data in place, the index read the other way
    ym = np.stack([hf_rope(view[h][:, None, :], np.arange(16), th)[:, 0, :] for h in range(4)]).reshape(16, 4, D)
    save("heads_seq_mixed", qm, ym, np.arange(16), plain, "heads-seq-mixed", {"groups": 4})
    # A correct [batch, seq, heads, d] dump (q.view(b, s, h, d) before HF's transpose) with 8 heads and 8 positions:
    # both 4-axis orders fit, [batch, heads, seq, d] is assumed, fails, and the other reading passes (issue 62 item 3).
    q8 = q_of(8, heads=8)
    save("batch_seq_heads_assumed", q8[None], hf_rope(q8, np.arange(8), th)[None], np.arange(8), plain, None, exit=0)
    # Qwen3-VL (base 5e6, d 128, sections [24, 20, 20] interleaved): text, a 4 × 4 image, text.
    thw = [(p, p, p) for p in range(4)] + [(4, 4 + i // 4, 4 + i % 4) for i in range(16)] + \
        [(p, p, p) for p in range(8, 12)]
    thw_a = np.asarray(thw, np.int64)
    th_vl = inv_freq(5e6, 128)
    qv = q_of(len(thw), d=128, heads=1)
    vl = ["--model", "qwen3-vl-8b"]
    save("mrope_t_for_all", qv, mrope_rope(qv, thw_a, th_vl, (24, 20, 20), lambda p: p[:, [0, 0, 0]]), None, vl,
         "mrope-t-for-all", positions_csv=thw)
    # The same correct dump with its positions as HF's position_ids in a .npy given to --axis-positions (issue 63
    # item 5): [3, seq] and [3, 1, seq] read as t, h, w per index, as --positions reads [3, batch, seq]; identify too.
    d_n = os.path.join(out, "mrope_npy_positions")
    os.makedirs(d_n, exist_ok=True)
    np.save(os.path.join(d_n, "thw_3_seq.npy"), thw_a.T.copy())
    np.save(os.path.join(d_n, "thw_3_1_seq.npy"), thw_a.T[:, None, :].copy())
    save("mrope_npy_thw_3_seq", qv, mrope_rope(qv, thw_a, th_vl, (24, 20, 20)), None,
         vl + ["--axis-positions", os.path.join(d_n, "thw_3_seq.npy")], None, exit=0)
    cases[-1]["identify_args"] = cases[-1]["args"][:4] + cases[-1]["args"][6:8]  # the dumps, --axis-positions
    save("mrope_npy_thw_3_1_seq", qv, mrope_rope(qv, thw_a, th_vl, (24, 20, 20)), None,
         vl + ["--axis-positions", os.path.join(d_n, "thw_3_1_seq.npy")], None, exit=0)
    cases[-1]["identify_args"] = cases[-1]["args"][:4] + cases[-1]["args"][6:8]
    save("mrope_shifted", qv, mrope_rope(qv, thw_a, th_vl, (24, 20, 20), lambda p: p[:, [1, 2, 0]]), None, vl,
         "mrope-axes-shifted", {"shift": 1}, positions_csv=thw)
    # A batch of 2 with HF's position_ids [3, batch, seq], read by the kernel as [batch, 3, seq] (the same buffer).
    row1 = [(p, p, p) for p in range(6)] + [(6, 6 + i // 4, 6 + i % 4) for i in range(16)] + [(10, 10, 10), (11, 11, 11)]
    pid = np.stack([thw_a.T, np.asarray(row1, np.int64).T], axis=1)  # [3, 2, 24]
    misread = np.ascontiguousarray(pid).reshape(2, 3, 24)  # [batch, 3, seq]
    qb = rng.standard_normal((2, 1, 24, 128)).astype(np.float32)  # [batch, heads, seq, d]
    yb = np.stack([mrope_rope(qb[b].transpose(1, 0, 2), misread[b].T, th_vl, (24, 20, 20)).transpose(1, 0, 2)
                   for b in range(2)])
    d_b = os.path.join(out, "mrope_batch_rows")
    os.makedirs(d_b, exist_ok=True)
    np.save(os.path.join(d_b, "position_ids.npy"), pid)
    save("mrope_batch_rows", qb, yb, None, vl + ["--positions", os.path.join(d_b, "position_ids.npy"), "--axes",
                                                  "batch,heads,seq,d"], "mrope-batch-rows", {"batch": 2})
    # Text only, a batch of 3 rows at their own positions (left padding: rows start at 0, 7 and 40), HF's position_ids
    # [batch, seq] given to an M-RoPE kernel that indexes them as [3, seq] (position_ids[0], [1], [2] as t, h, w)
    # where HF's get_rope_index expands text positions to [3, batch, seq]: every row turned at (row 0, row 1, row 2).
    text_pos = np.stack([np.arange(24), 7 + np.arange(24), 40 + np.arange(24)])  # [batch, seq]
    qt = rng.standard_normal((3, 1, 24, 128)).astype(np.float32)  # [batch, heads, seq, d]
    yt = np.stack([mrope_rope(qt[b].transpose(1, 0, 2), text_pos.T, th_vl, (24, 20, 20)).transpose(1, 0, 2)
                   for b in range(3)])
    save("mrope_text_rows", qt, yt, text_pos, vl + ["--axes", "batch,heads,seq,d"], "mrope-text-rows-as-axes",
         {"batch": 3}, text="matches text position_ids [batch, seq] read as M-RoPE's [3, seq]")
    # Decode after a 24-token prefill whose ids end at 11: rope_deltas = 12 − 24 = −12 (TensorRT-LLM PR #15661).
    qd = q_of(4, d=128, heads=1)
    idx = np.arange(24, 28)
    yd = mrope_rope(qd, np.stack([idx] * 3, axis=1), th_vl, (24, 20, 20))  # index, not index + rope_deltas
    d_dir = "mrope_no_delta"
    save(d_dir, qd, yd, None, vl + ["--positions", "24:28", "--rope-delta", "-12"], "mrope-delta-missing",
         {"delta": -12})
    # YaRN with truncate: false (gpt-oss) whose code rounds the correction range anyway (vLLM #27722).
    thy, attn = yarn_theta(150000.0, D, 32.0, 4096, truncate=True)
    yy = (hf_rope(q512, pos512, thy.astype(np.float32)).astype(np.float64) * attn).astype(np.float32)
    save("yarn_truncated", q512, yy, pos512,
         ["--base", "150000", "--layout", "half", "--angles", "float32", "--scaling", "yarn", "--factor", "32",
          "--original-max-position", "4096", "--truncate", "false"], "yarn-truncated")
    # Unknown bugs (issue 53 item 2): a closest variant only when it explains at least half of the dump.
    x = q.astype(np.float32)
    freqs = pos.astype(np.float32)[:, None] * th[None, :]
    cos, sin = np.cos(freqs)[:, None, :], np.sin(freqs)[:, None, :]
    yi = x.copy()  # the interleaved layout, (2i, 2i + 1)
    yi[..., 0::2] = x[..., 0::2] * cos - x[..., 1::2] * sin
    yi[..., 1::2] = x[..., 0::2] * sin + x[..., 1::2] * cos
    yi[100:140, 0, 5] += 1.0  # and 40 elements wrong besides
    save("closest_hint", q, yi, pos, plain, None,
         text="measured, its RoPE differs from the expected one in partner 32 → 1 (expected → found), which explains")
    save("departure", q, hf_rope(q, 2 * pos, th), pos, plain, "positions-scaled", {"scale": 2},
         text="the dump turns position m at 2·m: every frequency is the expected one times 2")
    save("base_unknown", q, hf_rope(q, pos, inv_freq(20000.0, D)), pos, plain, "base-other", {"base": 20000},
         text="matches base 20000, not 10000: is rope_theta read?")
    # Positions forgotten (issue 63 item 2): a correct kernel's dump at 40000 + i checked without --positions (0 … 255
    # assumed): every position shifted by +40000, found from the pairs' angles.
    save("positions_forgotten", q, hf_rope(q, 40000 + pos, th), None, plain, "positions-offset", {"offset": 40000},
         text="matches every position shifted by +40000 (the first at 40000 where the positions given start at 0)",
         identify_family={"family": "default", "base": 10000, "exit": 1,
                          "text": "the angles look like 40000 + index, far beyond the positions given (from 0)"})
    # A batch of 2 rows, HF's q [batch, heads, seq, d], position_ids 0 … 63 for both, while the kernel turned row 1 at
    # 5000 + i (its start left out of position_ids): row 0 passes, row 1 is named with its offset.
    qr = rng.standard_normal((2, HEADS, 64, D)).astype(np.float32)
    yr = np.stack([hf_rope(qr[b].transpose(1, 0, 2), np.arange(64) + 5000 * b, th).transpose(1, 0, 2)
                   for b in range(2)])
    save("row_offset", qr, yr, np.stack([np.arange(64)] * 2), plain, "positions-offset", {"offset": 5000},
         text="1 of 2 batch rows fail, each matching its positions shifted by a constant (row: shift) 1: +5000")
    # Two packed sequences of 128 tokens given as 0 … 127 twice (--sequence-starts 0,128,256), the second turned at
    # 3000 + i, and a context-parallel rank: the contiguous layout's rank 1 of 2 holds tokens 128 … 255 of one
    # sequence, checked with rank 0's positions 0 … 127.
    save("packed_offset", q, hf_rope(q, np.concatenate([pos[:128], 3000 + pos[:128]]), th),
         np.concatenate([pos[:128], pos[:128]]), plain + ["--sequence-starts", "0,128,256"], "positions-offset",
         {"offset": 3000},
         text="1 of 2 packed sequences fail, each matching its positions shifted by a constant (sequence: shift) "
              "1: +3000")
    q128 = q[:128]
    # Zigzag (Megatron/TransformerEngine, tests/reference/cp_positions.py's port): rank 1 of 2 holds chunks 1 and 2 of
    # one sequence of 256 (positions 64 … 191), checked at rank 0's (chunks 0 and 3: 0 … 63, 192 … 255): two pieces
    # of offsets, named as the rank (issue 65's leftover).
    cu = [0, 256]
    rank0, _ = cp_ref.positions_of(cu, cp_ref.zigzag_indices(cu, 2, 0))
    rank1, _ = cp_ref.positions_of(cu, cp_ref.zigzag_indices(cu, 2, 1))
    save("cp_rank_zigzag", q128, hf_rope(q128, np.asarray(rank1), th), np.asarray(rank0), plain, "positions-offset",
         {"cp_size": 2, "cp_rank": 1, "given_rank": 0},
         text="matches context-parallel rank 1's positions (zigzag, cp size 2) where rank 0's are given")
    # One head offset (issue 63 item 2): q [seq, heads, d] with heads 0 … 2 turned at their positions, head 3 at
    # 5000 + i (a per-head position table indexed wrong): that head named with its offset, the others pass.
    qh4 = q_of(64, heads=4)
    yh4 = hf_rope(qh4, pos[:64], th)
    yh4[:, 3:4] = hf_rope(qh4[:, 3:4], 5000 + pos[:64], th)
    save("head_offset", qh4, yh4, pos[:64], plain, "positions-offset", {"offset": 5000, "head": 3, "heads": 1},
         text="1 of 4 heads fail, each matching its positions shifted by a constant (head: shift) 3: +5000")
    save("cp_rank_contiguous", q128, hf_rope(q128, 128 + pos[:128], th), pos[:128], plain, "positions-offset",
         {"offset": 128}, text="matches every position shifted by +128")
    # Correct kernels: float32, bf16 and float16 at consecutive and sparse positions up to 131071 stay PASS.
    long_pos = np.concatenate([np.arange(64), np.sort(rng.choice(np.arange(64, 131072), 47, replace=False)),
                               [131071]])
    ql = q_of(len(long_pos), d=128, heads=4)
    th128 = inv_freq(500000.0, 128)
    correct = ["--base", "500000", "--layout", "half", "--angles", "float32"]
    save("correct_f32", ql, hf_rope(ql, long_pos, th128), long_pos, correct, None, exit=0)
    save("correct_bf16", bf16_round(ql), bf16_round(hf_rope(bf16_round(ql), long_pos, th128)), long_pos,
         correct + ["--dtype", "bf16"], None, exit=0)
    qh = ql.astype(np.float16)
    save("correct_f16", qh, hf_rope(qh.astype(np.float32), long_pos, th128, out_dtype=np.float16), long_pos,
         correct, None, exit=0)
    # The output's norm scaled by 1.05 (a wrong attention factor): bf16 lets it through element by element.
    save("norm_bf16", bf16_round(ql), bf16_round(hf_rope(bf16_round(ql), long_pos, th128) * np.float32(1.05)),
         long_pos, correct + ["--dtype", "bf16"], "norm-scaled", {"factor": 1.05}, found_rel=2e-3,
         text="the output's norm is scaled by 1.0")
    save("norm_f32", ql, hf_rope(ql, long_pos, th128) * np.float32(1.05), long_pos, correct, "norm-scaled",
         {"factor": 1.05}, found_rel=1e-6, text="the output's norm is scaled by 1.05")
    # Gemma 3 checked without --layer-type: its layer 0 is sliding_attention (rope_local_base_freq 10000, no
    # scaling), not the default full_attention (rope_theta 1e6, linear 8): transformers modeling_gemma3.py keeps a
    # rotary_emb_local of base rope_local_base_freq for the sliding layers.
    gemma3 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "models",
                          "gemma-3-4b.json")
    qg = q_of(128, d=256)
    posg = np.arange(128)
    save("gemma3_sliding", qg, hf_rope(qg, posg, inv_freq(10000.0, 256)), posg, ["--config", gemma3], None, exit=0,
         layer_type={"type": "sliding_attention", "types": ["sliding_attention", "full_attention"]},
         text="PASS as a sliding_attention layer")
    save("gemma3_none", qg, hf_rope(qg, posg, inv_freq(20000.0, 256)), posg, ["--config", gemma3], None,
         layer_type={"type": None, "types": ["sliding_attention", "full_attention"]},
         text="matches none of the model's layer types (sliding_attention, full_attention)")
    # The same model as a GGUF whose layers slide: llama.cpp's gemma3 loader (LLM_ARCH_GEMMA3, src/llama-model.cpp)
    # has a sliding window pattern of 6 (layer il slides when il % 6 < 5), its sliding layers turn at
    # rope_freq_base_train_swa 10000 with freq_scale 1, the full ones at rope.freq_base with the linear scaling.
    gguf = os.path.join(out, "gemma-3-4b-sliding.gguf")
    with open(gguf, "wb") as f:
        f.write(write_gguf.gguf(write_gguf.model("gemma3", 131072, 2560, 8, 4, [
            (".attention.key_length", "u32", 256), (".attention.value_length", "u32", 256),
            (".attention.sliding_window", "u32", 1024), (".rope.freq_base", "f32", 1000000.0),
            (".rope.scaling.type", "str", "linear"), (".rope.scaling.factor", "f32", 8.0)], layers=34)))
    save("gemma3_gguf_sliding", qg, hf_rope(qg, posg, inv_freq(10000.0, 256)), posg, ["--config", gguf], None,
         exit=0, layer_type={"type": "sliding_attention", "types": ["sliding_attention", "full_attention"]},
         text="PASS as a sliding_attention layer")
    save("gemma3_gguf_full", qg, hf_rope(qg, posg, (inv_freq(1e6, 256) / 8).astype(np.float32)), posg,
         ["--config", gguf], None, exit=0,
         layer_type={"type": "full_attention", "types": ["sliding_attention", "full_attention"]},
         text="PASS as a full_attention layer")
    # DeepSeek-V3's rope part (data/models/deepseek-v3.json: qk_rope_head_dim 64, YaRN f 40 from 4096, base 10000,
    # mscale = mscale_all_dim, so the attention factor is 1; llama.cpp's deepseek2 graph cancels its own the same way).
    thd, _ = yarn_theta(10000.0, 64, 40.0, 4096, truncate=True)
    qp = q_of(256)
    ds = ["--model", "deepseek-v3"]
    # The two orders are the same RoPE (q·k is the same): equivalent, exit 0 (issue 63 item 4); --strict-order fails.
    save("deepseek_llama_cpp", qp, interleaved_rope(qp, pos, thd), pos, ds, "output-interleaved", exit=0,
         equivalent="interleaved-in-place",
         text="PASS, equivalent: the output in the interleaved order, as llama.cpp writes it")
    save("deepseek_llama_cpp_strict", qp, interleaved_rope(qp, pos, thd), pos, ds + ["--strict-order"],
         "output-interleaved", text="the output is interleaved, as llama.cpp computes it")
    save("deepseek_llama_cpp_layout", qp, interleaved_rope(qp, pos, thd), pos, ds + ["--layout", "interleaved"], None,
         exit=0)
    save("deepseek_hf", qp, interleaved_rope(qp, pos, thd, deinterleave=True), pos, ds, None, exit=0)
    save("deepseek_hf_as_llama_cpp", qp, interleaved_rope(qp, pos, thd, deinterleave=True), pos,
         ds + ["--layout", "interleaved"], "output-deinterleaved", exit=0, equivalent="de-interleaved",
         text="PASS, equivalent: the output de-interleaved, as HF's DeepSeek-V3 writes it")
    save("deepseek_hf_as_llama_cpp_strict", qp, interleaved_rope(qp, pos, thd, deinterleave=True), pos,
         ds + ["--layout", "interleaved", "--strict-order"], "output-deinterleaved",
         text="the output is de-interleaved, as HF's DeepSeek-V3 computes it")
    # llama.cpp's legacy DeepSeek-2 q: cat(q_nope, q_pe), the rope part rotated at the end of the head.
    q192 = q_of(256, d=192)
    y192 = q192.copy()
    y192[..., 128:] = interleaved_rope(q192[..., 128:], pos, thd)
    save("deepseek2_legacy", q192, y192, pos, ds + ["--layout", "interleaved"], None, exit=0,
         identify={"layout": "interleaved", "rotary_offset": 128, "rotary_dim": 64,
                   "text": "interleaved pairs on the last 64 channels (offset 128)"})
    y192 = q192.copy()
    y192[..., :64] = interleaved_rope(q192[..., :64], pos, thd)
    save("deepseek2_first", q192, y192, pos, ds + ["--layout", "interleaved"], "rotary-offset-other", {"offset": 0},
         text="matches the 64 rotated channels at 0–63 (offset 0) instead of 128–191")
    y192 = q192.copy()
    y192[..., 64:128] = interleaved_rope(q192[..., 64:128], pos, thd)
    save("deepseek2_middle", q192, y192, pos, ds + ["--layout", "interleaved"], "rotary-offset-other", {"offset": 64},
         text="matches the 64 rotated channels at 64–127 (offset 64) instead of 128–191",
         identify={"layout": "interleaved", "rotary_offset": 64, "rotary_dim": 64,
                   "text": "interleaved pairs on channels 64–127 (offset 64)"})
    # SGLang PR #33117 (MRotaryEmbedding calls _match_cos_sin_cache_dtype(query), which casts the float32 cos/sin cache
    # to the query's bf16 in place): angles m·θ in float32, cos and sin rounded to bf16, then q·cos + rotate_half(q)·sin
    # in float32, at the last 256 positions below 131072. In a bf16 dump the same table is within bf16's
    # tolerance (2^-9 of ‖x‖ at most against 16·2^-8): PASS.
    post = np.arange(131072 - 256, 131072)
    qt = q_of(len(post))
    freqs = post.astype(np.float32)[:, None] * th[None, :]
    emb = np.concatenate([freqs, freqs], axis=-1)
    cos_t, sin_t = bf16_round(np.cos(emb))[:, None, :], bf16_round(np.sin(emb))[:, None, :]
    save("cos_sin_table_bf16", qt, (qt * cos_t + rotate_half(qt) * sin_t).astype(np.float32), post, plain,
         "cos-sin-table-bf16", text="matches a cos/sin table rounded to bf16 after float32 angles")
    qt16 = bf16_round(qt)
    save("cos_sin_table_bf16_in_bf16", qt16, bf16_round(qt16 * cos_t + rotate_half(qt16) * sin_t), post,
         plain + ["--dtype", "bf16"], None, exit=0)
    # imp PR #1325: sin and cos of the float32 angle by CUDA's fast intrinsics (__sinf/__cosf, what sinf/cosf become
    # under --use_fast_math), which carry no range reduction of their own. The PTX sin instruction (__sinf) is two
    # hardware instructions, RRO (range reduction and conversion to fixed point) and the special function unit's SIN
    # (https://forums.developer.nvidia.com/t/arithmetical-functions-various/10624), and the error of __sincosf "seems
    # to be linear in the argument", removed by a correction of 4.07e-8 of the angle
    # (https://forums.developer.nvidia.com/t/improving-the-accuracy-of-the-sincosf-function/11631): the size of
    # fl32(1/2π)'s shortfall, 4.03e-8 of itself. Emulated here as that reduction: φ (HF's float32 m·inv_freq) taken
    # to revolutions as x = fl32(φ·fl32(1/2π)) in float32, then sin(2πx), cos(2πx); every angle falls short by 4.03e-8
    # of itself (5.3e-3 rad at 131071) and x rounds to float32 (an ulp of x is 2π·2^-9 = 0.012 rad near 1.3e5 rad).
    # The unit's own absolute error (2^-21.41 on [−π, π] in the CUDA C++ Programming Guide's Intrinsic Functions, as
    # NVIDIA's forums quote it) is not modelled: sin(2πx), cos(2πx) exact, then rounded to float32. Positions 0 … 15
    # and 130816 … 131071. Held to angles reduced in double (--angles float64) the dump fails and is named
    # angles-fast-math, its measured bias the shortfall; under the default float32 angle model (whose product rounds
    # as much) it passes; a plain float32 product at the same positions, held to float64 (angles_float32_product),
    # fails and is named angles-float32 (within the float32 angle model's tolerance, no bias). The product rounded to
    # nearest is what a sinpi of a float32 quotient does (sincospif(φ·fl32(1/π)), recorded on an NVIDIA H200:
    # tests/data/gpu/cuda_sinpi.npy); __sinf itself, on that GPU, truncates the product (FMUL.RZ: diagnosis_2026.py's
    # fast_math_toward_zero, tests/data/gpu/cuda_intrinsic.npy).
    posf = np.concatenate([np.arange(16), np.arange(131072 - 256, 131072)])
    qf = q_of(len(posf))
    phi32 = posf.astype(np.float32)[:, None] * th[None, :]
    inv_two_pi = np.float32(1 / (2 * np.pi))
    turns = (phi32 * inv_two_pi).astype(np.float32)
    emb = np.concatenate([turns, turns], axis=-1).astype(np.float64) * (2 * np.pi)
    cos_f, sin_f = np.cos(emb).astype(np.float32)[:, None, :], np.sin(emb).astype(np.float32)[:, None, :]
    fast = (qf * cos_f + rotate_half(qf) * sin_f).astype(np.float32)
    shortfall = float(np.float64(inv_two_pi) * 2 * np.pi - 1)  # −4.0342e-8
    f64 = plain[:-1] + ["float64"]
    save("angles_fast_math", qf, fast, posf, f64, "angles-fast-math", {"bias": shortfall}, found_rel=0.05,
         text="matches sin and cos of float32 angles by a fast unit without range reduction")
    save("angles_fast_math_float32", qf, fast, posf, plain, None, exit=0)
    save("angles_float32_product", qf, hf_rope(qf, posf, th), posf, f64, "angles-float32",
         text="matches RoPE with its angles m·θ computed in float32")
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"cases": cases}, f, indent=1)


if __name__ == "__main__":
    main()
