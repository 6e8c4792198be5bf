#!/usr/bin/python3
"""RoPE bugs whose cause is a measured difference, not a listed variant: each kernel written here with NumPy alone from
the reported code, not from rope's code in src/, so that `rope check` must measure the dump (positions, base,
magnitude, elements) to name what it does.

The correct kernel is Hugging Face's (transformers src/transformers/models/llama/modeling_llama.py,
LlamaRotaryEmbedding and apply_rotary_pos_emb: inv_freq = 1 / base^(arange(0, r, 2) / r), freqs = m · inv_freq in
float32, emb = cat(freqs, freqs), q · cos + rotate_half(q) · sin); the scaled parameters follow
src/transformers/modeling_rope_utils.py at commit 5fd7ca7bc9 (_compute_dynamic_ntk_parameters,
_compute_yarn_parameters). Each case changes one step:

    positions_doubled   [256, 8, 128], base 5e7: every token turned at 2·m (a position scale of 2 applied where none
                        belongs): named positions-scaled, found scale 2; identify reads linear, factor 0.5
    sin_dropped         [256, 8, 192], base 1e6: out = x·cos, the rotate_half(x)·sin term dropped: named
                        sin-dropped (every rotated channel x·cos)
    half_unstored       [256, 8, 128], base 1e6: an in-place kernel that writes only the first half of each pair:
                        channels 64…127 keep their input: named elements-unrotated, found channel 64, channels 64
    dynamic_at_longest  [512, 12, 64], base 1000, dynamic NTK f 2 from L0 2048: the engine computes the base once at
                        f·L0 = 4096 (_compute_dynamic_ntk_parameters with seq_len 4096) instead of at
                        max(seq_len, L0) = 2048: vLLM's reading of the config (its max_model_len f·L0 at start-up),
                        named engine-reading-other; identify reads base 3108.22
    attention_twice     [256, 8, 128], YaRN f 64 from 4096, base 10000: the attention factor a = 0.1·ln f + 1 =
                        1.41589 fed to the same formula again, 0.1·ln f·a + 1 = 1.58885: named norm-scaled, found
                        factor 1.58885 / 1.41589 = 1.12216 and the formula named

    racing_stores       DeepSeek-V4's kv [1024, 1, 512] at layer 0 (θ 10000, 64 interleaved channels at 448 … 511):
                        1 649 elements of the rotated channels in 31 tokens keep their input (two stores racing):
                        named elements-unrotated, scattered, with their channels, indices and count
    shift_map_one_delta a K cache of 48 keys compacted (the map old → new of tests/reference/shift_map.py), every key
                        re-rotated by one δ, the last survivor's new − old, instead of its own: checked with
                        --shift-map, named shift-map-one-delta, found delta; identify, given each key's new − old as
                        its positions (delta.npy, as shift_map.py's rows give it), reads the one δ and base 10000
    fast_math_toward_zero
                        [272, 4, 128], base 10000, positions 0 … 15 and 130816 … 131071: HF's float32 angles through
                        CUDA's __sinf/__cosf as its SASS computes them, the angle times fl32(1/2π) rounded toward zero
                        (FMUL.RZ), then the sine of those revolutions (MUFU.SIN); held to --angles float64: named
                        angles-fast-math, found bias (the measured shortfall of every angle, about twice fl32(1/2π)'s
                        −4.03e-8) and toward_zero 1
    qk_crossed_modulo   q [8, 8, 128] and k [8, 2, 128], base 10000, positions 0 … 131071 (8 of them): ColossalAI's
                        fused kernel that computes out_q1 from k's halves and out_k0 from q's, its GQA head map the
                        other one, q head h with k head h mod 2 (not h // 4) and k head g with q head g (not 4·g):
                        checked with --k-before/--k-after, named qk-crossed in both, found heads_modulo 1, q_heads 8,
                        k_heads 2
    pie_partial_head_pairs
                        pie-project/pie PR #603: a partial rotary (head 256, rotary 64) paired (i, i + 128) and turned
                        at base^(−2i/256), the first pairs of a RoPE over the whole head: named partial-rotary-pairing,
                        found partner 128, head_frequencies 1
    ferrox_gemma3_sliding_scaled
                        antonellof/ferrox issue #39: Gemma 3 4B's sliding layer (base 10000, unscaled) rotated with the
                        full layers' linear factor 8: named layer-type-other, found layer_type 1 (full_attention,
                        the model's second layer type) and scaling_only 1 (this layer's base with that type's scaling),
                        not the bare measured scale 0.125
    vllm_bailing_mla_rotary_halved
                        vllm-project/vllm PR #41185: BailingMoeV2.5's MLA rope head of 64 rotated with rotary_dim 32
                        (the linear layers' partial_rotary_factor 0.5 applied to it): named rotary-dim-halved
    mlxvlm_gemma3_global_unscaled
                        Blaizzy/mlx-vlm PR #1709: Gemma 3 4B's full-attention layer at base 1e6 without its linear
                        factor 8 (rope_scaling never passed): named scaling-ignored
    candle_phi3_table_bf16
                        huggingface/candle issue #3698: phi3's positions, inv_freq, their product and cos/sin all in
                        BF16 (the table built in the model's dtype): named angles-bf16
    transformers_minimax_m2_rotary_dim_dropped
                        huggingface/transformers issue #48241: MiniMax-M2's rotary_dim 64 of 128 dropped by its config
                        class, the whole head rotated at 5e6^(−2i/128) (as transformers 5.17.0 does): checked with
                        --model minimax-m2, named partial-rotary-whole-head
    cp_rank_numbered_globally
                        rank 2 of a context-parallel run (cp 4, TransformerEngine's zigzag, a packed batch of
                        cu_seqlens 0, 16, 48) turned at 24 … 35, its tokens numbered across the ranks, where its own
                        positions are 4, 5, 10, 11, 8 … 11, 20 … 23: named positions-offset, found order_offset 24
                        (the tokens' order plus one constant), not another rank of another cp size

Writes DIR/<case>/{q.npy, q_rope.npy, positions.npy} and DIR/manifest.json: per case the rope check arguments, the
exit code, the variant named and its parameter (`found`), and identify's truth where the kernel fixes it.

Usage: diagnosis_2026.py DIR
"""
import json
import os
import sys

import numpy as np


def inv_freq(base, r):
    return (1.0 / (base ** (np.arange(0, r, 2, dtype=np.int64).astype(np.float32) / r))).astype(np.float32)


def rotate_half(x):
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)


def cos_sin(positions, theta, scale=1.0):
    freqs = positions.astype(np.float32)[:, None] * theta.astype(np.float32)[None, :]
    emb = np.concatenate([freqs, freqs], axis=-1)
    return (np.cos(emb) * scale).astype(np.float32)[:, None, :], (np.sin(emb) * scale).astype(np.float32)[:, None, :]


def hf_rope(q, positions, theta, scale=1.0):
    cos, sin = cos_sin(positions, theta, scale)
    return (q * cos + rotate_half(q) * sin).astype(np.float32)


def dynamic_base(base, r, factor, original, seq_len):
    """_compute_dynamic_ntk_parameters: base · ((f·L / L0) − (f − 1))^(r / (r − 2)), L = max(seq_len, L0)."""
    length = max(seq_len, original)
    return base * ((factor * length / original) - (factor - 1)) ** (r / (r - 2))


def yarn(base, r, factor, original, beta_fast=32.0, beta_slow=1.0):
    """_compute_yarn_parameters: the ramp between the corrected dimensions, and the attention factor 0.1·ln f + 1."""
    def dim(turns):
        return (r * np.log(original / (turns * 2 * np.pi))) / (2 * np.log(base))
    low, high = max(np.floor(dim(beta_fast)), 0), min(np.ceil(dim(beta_slow)), r - 1)
    ramp = np.clip((np.arange(r // 2, dtype=np.float32) - low) / (high - low), 0, 1)
    pos = base ** (np.arange(0, r, 2, dtype=np.float32) / r)
    extrapolation, interpolation = 1.0 / pos, 1.0 / (factor * pos)
    keep = 1 - ramp
    theta = (interpolation * (1 - keep) + extrapolation * keep).astype(np.float32)
    return theta, 0.1 * np.log(factor) + 1


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(2026)
    cases = []

    def save(name, q, y, positions, args, matches, found=None, identify=None, identify_family=None, found_rel=1e-6):
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        np.save(os.path.join(d, "q.npy"), q)
        np.save(os.path.join(d, "q_rope.npy"), y)
        np.save(os.path.join(d, "positions.npy"), np.asarray(positions, np.int64))
        cases.append({"name": name, "args": ["--before", os.path.join(d, "q.npy"), "--after",
                                             os.path.join(d, "q_rope.npy"), "--positions",
                                             os.path.join(d, "positions.npy")] + args,
                      "exit": 1, "matches": matches, "found": found or {}, "found_rel": found_rel,
                      "identify": identify, "identify_family": identify_family})

    def q_of(seq, heads, d):
        return rng.standard_normal((seq, heads, d)).astype(np.float32)

    pos = np.arange(256)
    q = q_of(256, 8, 128)
    save("positions_doubled", q, hf_rope(q, 2 * pos, inv_freq(5e7, 128)), pos,
         ["--base", "5e7", "--layout", "half", "--angles", "float32"], "positions-scaled", {"scale": 2.0},
         {"layout": "half", "rotary_offset": 0, "rotary_dim": 128}, {"family": "linear", "base": 5e7})

    q = q_of(256, 8, 192)
    cos, _ = cos_sin(pos, inv_freq(1e6, 192))
    save("sin_dropped", q, (q * cos).astype(np.float32), pos, ["--base", "1e6", "--layout", "half", "--angles",
                                                               "float32"], "sin-dropped", {"channels": 192.0})

    q = q_of(256, 8, 128)
    y = hf_rope(q, pos, inv_freq(1e6, 128))
    y[..., 64:] = q[..., 64:]
    save("half_unstored", q, y, pos, ["--base", "1e6", "--layout", "half", "--angles", "float32"],
         "elements-unrotated", {"channel": 64.0, "channels": 64.0})

    pos512 = np.arange(512)
    q = q_of(512, 12, 64)
    base = dynamic_base(1000.0, 64, 2.0, 2048, 4096)
    save("dynamic_at_longest", q, hf_rope(q, pos512, inv_freq(base, 64)), pos512,
         ["--base", "1000", "--layout", "half", "--scaling", "dynamic", "--factor", "2", "--max-position-embeddings",
          "2048", "--angles", "float32"], "engine-reading-other",
         identify={"layout": "half", "rotary_offset": 0, "rotary_dim": 64},
         identify_family={"family": "default", "base": float(base)})

    q = q_of(256, 8, 128)
    theta, a = yarn(10000.0, 128, 64.0, 4096)
    twice = 0.1 * np.log(64.0) * a + 1
    save("attention_twice", q, hf_rope(q, pos, theta, twice), pos,
         ["--base", "10000", "--layout", "half", "--scaling", "yarn", "--factor", "64", "--original-max-position",
          "4096", "--angles", "float32"], "norm-scaled", {"factor": float(twice / a)},
         found_rel=1e-5)

    # DeepSeek-V4's kv [1024, 1, 512] at layer 0 (its config.json, the legacy form of tests/reference/deepseek_v4.py:
    # θ 10000, no YaRN on a sliding layer, qk_rope_head_dim 64 on channels 448 … 511, GLM's interleaved rotate_half of
    # DeepseekV4RotaryEmbedding), written by two stores racing: 1 649 elements of the last 64 channels, in 31 of the
    # 1 024 tokens, keep their input.
    cfg = dict(model_type="deepseek_v4", head_dim=512, qk_rope_head_dim=64, num_hidden_layers=7,
               max_position_embeddings=1048576, rope_theta=10000.0, compress_rope_theta=160000.0,
               compress_ratios=[0, 0, 4, 128, 4, 128, 0],
               rope_scaling=dict(type="yarn", factor=16, original_max_position_embeddings=65536, beta_fast=32,
                                 beta_slow=1))
    d = os.path.join(out, "racing_stores")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg, f, indent=1)
    pos1k = np.arange(1024)
    kv = q_of(1024, 1, 512)
    freqs = (pos1k.astype(np.float32)[:, None] * inv_freq(10000.0, 64)[None, :]).astype(np.float32)
    cos, sin = np.repeat(np.cos(freqs), 2, -1)[:, None, :], np.repeat(np.sin(freqs), 2, -1)[:, None, :]
    part = kv[..., 448:]
    glm = np.empty_like(part)
    glm[..., 0::2], glm[..., 1::2] = -part[..., 1::2], part[..., 0::2]
    y = kv.copy()
    y[..., 448:] = (part * cos + glm * sin).astype(np.float32)
    tokens = np.sort(rng.choice(np.arange(1, 1024), 31, False))
    flat = np.array([(t, c) for t in tokens for c in range(448, 512)])
    lost = flat[np.sort(rng.choice(len(flat), 1649, False))]
    y[lost[:, 0], 0, lost[:, 1]] = kv[lost[:, 0], 0, lost[:, 1]]
    save("racing_stores", kv, y, pos1k, ["--config", os.path.join(d, "config.json"), "--layer-type", "0", "--angles",
                                          "float32"], "elements-unrotated",
         {"channel": float(lost[:, 1].min()), "channels": float(len(set(lost[:, 1]))), "elements": 1649.0,
          "indices": 31.0, "groups": 1.0})

    # A K cache compacted after eviction (as tests/reference/shift_map.py builds it: 4 sinks and a sorted sample of a
    # 4096-token context moved to 0 … 47), re-rotated with VeloxQuant-MLX's rope_remap_positions
    # (veloxquant_mlx/quantizers/a2ats_rope.py, PR #139: k' = R(δ)·k, half layout, float32 angles) called with one δ,
    # the last survivor's new − old, for every key instead of each key's own.
    keys, half = 48, 32
    old = np.concatenate([np.arange(4), np.sort(rng.choice(np.arange(4, 4096), keys - 4, False))])
    new = np.arange(keys)
    theta = inv_freq(10000.0, 2 * half)
    x = rng.standard_normal((keys, 2, 2 * half)).astype(np.float32)
    k = hf_rope(x, old, theta)
    delta = int(new[-1] - old[-1])
    moved = hf_rope(k, np.full(keys, delta), theta)
    d = os.path.join(out, "shift_map_one_delta")
    os.makedirs(d, exist_ok=True)
    np.save(os.path.join(d, "k.npy"), k)
    np.save(os.path.join(d, "k_moved.npy"), moved)
    with open(os.path.join(d, "map.csv"), "w") as f:
        f.write("old,new\n" + "".join(f"{o},{n}\n" for o, n in zip(old, new)))
    np.save(os.path.join(d, "delta.npy"), (new - old).astype(np.int64))  # identify's positions: new − old per key
    cases.append({"name": "shift_map_one_delta", "args": ["--before", os.path.join(d, "k.npy"), "--after",
                                                          os.path.join(d, "k_moved.npy"), "--shift-map",
                                                          os.path.join(d, "map.csv"), "--layout", "half", "--base",
                                                          "10000", "--angles", "float32"],
                  "exit": 1, "matches": "shift-map-one-delta", "found": {"delta": float(delta)}, "found_rel": 1e-9,
                  "identify": None, "identify_family": None,
                  "identify_args": ["--before", os.path.join(d, "k.npy"), "--after", os.path.join(d, "k_moved.npy"),
                                    "--positions", os.path.join(d, "delta.npy")]})

    # CUDA's __sinf/__cosf (what sinf/cosf become under nvcc --use_fast_math) compile to FMUL.RZ by fl32(1/2π), then
    # MUFU.SIN/MUFU.COS of the revolutions (cuobjdump -sass of a kernel calling __sinf; the PTX sin.approx.f32 leaves
    # the product's rounding to ptxas): the float32 angle φ (HF's m·inv_freq in float32) times fl32(1/2π) rounded
    # toward zero, emulated in float32 by stepping the round-to-nearest product one ulp toward 0 where its magnitude
    # exceeds the exact product's (exact in float64: 24 × 24 bits). The unit's own error (2^-21.41 on [−π, π]) is not
    # modelled: sin(2πt), cos(2πt) in float64, rounded to float32. The truth is the shortfall measured here: per pair
    # the least-squares slope of (2πt − φ) against φ over the 256 largest positions, its median over pairs.
    posf = np.concatenate([np.arange(16), np.arange(131072 - 256, 131072)])
    th = inv_freq(10000.0, 128)
    qf = q_of(len(posf), 4, 128)
    phi32 = posf.astype(np.float32)[:, None] * th[None, :]
    inv_two_pi = np.float32(1 / (2 * np.pi))
    nearest = (phi32 * inv_two_pi).astype(np.float32)
    exact = phi32.astype(np.float64) * np.float64(inv_two_pi)
    turns = np.where(np.abs(nearest.astype(np.float64)) > np.abs(exact), np.nextafter(nearest, np.float32(0)), nearest)
    assert np.all(np.abs(turns.astype(np.float64)) <= np.abs(exact))
    angle = turns.astype(np.float64) * (2 * np.pi)
    emb = np.concatenate([angle, angle], axis=-1)
    cos_f, sin_f = np.cos(emb).astype(np.float32)[:, None, :], np.sin(emb).astype(np.float32)[:, None, :]
    fast = (qf * cos_f + rotate_half(qf) * sin_f).astype(np.float32)
    big = posf >= 131072 - 256
    phi = phi32[big].astype(np.float64)
    bias = float(np.median(((angle[big] - phi) * phi).sum(0) / (phi * phi).sum(0)))
    save("fast_math_toward_zero", qf, fast, posf, ["--base", "10000", "--layout", "half", "--angles", "float64"],
         "angles-fast-math", {"bias": bias, "toward_zero": 1.0}, found_rel=0.05)

    # ColossalAI issue #6428 / PR #6429 (the Triton fused_rotary_emb computed out_q1 from k's halves and out_k0 from
    # q's), its key-value head for a query head taken as h mod H_k (the head map of a kernel that repeats the k heads
    # with tile/repeat instead of repeat_interleave) where the attention uses h // (H_q / H_k): q head h's second half
    # is k head h mod 2's rotated second half, k head g's first half q head g's rotated first half (the first q head
    # whose h mod 2 is g). HF's half-layout rotation (hf_rope: float32 angles, q·cos + rotate_half(q)·sin).
    hq, hk, dq = 8, 2, 128
    posk = np.array([0, 1, 7, 4095, 4096, 32768, 65535, 131071])
    th = inv_freq(10000.0, dq)
    q = q_of(len(posk), hq, dq)
    k = q_of(len(posk), hk, dq)
    qr, kr = hf_rope(q, posk, th), hf_rope(k, posk, th)
    q_cross = np.concatenate([qr[..., :dq // 2], kr[:, np.arange(hq) % hk, dq // 2:]], axis=-1)
    k_cross = np.concatenate([qr[:, np.arange(hk), :dq // 2], kr[..., dq // 2:]], axis=-1)
    q_div = np.concatenate([qr[..., :dq // 2], kr[:, np.arange(hq) // (hq // hk), dq // 2:]], axis=-1)
    assert not np.array_equal(q_cross, q_div)  # the two head maps read other k heads
    d = os.path.join(out, "qk_crossed_modulo")
    os.makedirs(d, exist_ok=True)
    for name, t in (("q", q), ("q_rope", q_cross), ("k", k), ("k_rope", k_cross)):
        np.save(os.path.join(d, name + ".npy"), t)
    f = lambda name: os.path.join(d, name + ".npy")  # noqa: E731
    cases.append({"name": "qk_crossed_modulo", "args": ["--before", f("q"), "--after", f("q_rope"), "--k-before",
                                                        f("k"), "--k-after", f("k_rope"), "--positions",
                                                        ",".join(str(p) for p in posk), "--base", "10000",
                                                        "--layout", "half", "--angles", "float32"],
                  "exit": 1, "matches": "qk-crossed", "found": {"heads_modulo": 1.0, "q_heads": float(hq), "k_heads": float(hk)},
                  "found_rel": 1e-9,
                  "identify": None, "identify_family": None})

    # A context-parallel rank numbering its tokens across the batch (issue 91 recipe 7): TransformerEngine's zigzag
    # split (tests/reference/cp_positions.py, zigzag_indices: get_batch_on_this_cp_rank's thd layout) of a packed batch
    # of cu_seqlens 0, 16, 48 over cp 4; rank 2's 12 tokens belong at 4, 5, 10, 11, 8, 9, 10, 11, 20 … 23 (its chunks'
    # positions within their sequences) and are turned at 24 … 35 instead, rank × its length plus its tokens' order.
    # Checked as one rank (its own positions and local sequence starts given): named positions-offset, found
    # order_offset 24 (one constant over the tokens' order), not the rank of a batch cut as one sequence of another cp
    # size and layout (contiguous, cp 3) whose positions coincide with 24 … 35.
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from cp_positions import local_starts, positions_of, zigzag_indices
    cu, cp, rank = [0, 16, 48], 4, 2
    own, seqs = positions_of(cu, zigzag_indices(cu, cp, rank))
    n = len(own)
    assert own == [4, 5, 10, 11, 8, 9, 10, 11, 20, 21, 22, 23]
    q = q_of(n, 2, 64)
    y = hf_rope(q, np.arange(rank * n, rank * n + n), inv_freq(10000.0, 64))
    save("cp_rank_numbered_globally", q, y, own,
         ["--sequence-starts", ",".join(str(v) for v in local_starts(seqs)[:-1]), "--base", "10000", "--layout",
          "half", "--angles", "float32"], "positions-offset", {"order_offset": float(rank * n)}, found_rel=1e-9)

    # RoPE bugs of 2026 issue trackers, each ported from the thread's own description of the kernel.
    #
    # pie-project/pie PR #603 (fixes #602): rope_partial rotated the first rotary_dim/2 pairs of a head with
    # frequencies θ^(−2i/head_dim) and pairs (i, i + head_dim/2), where HF pairs (i, i + rotary_dim/2) at
    # θ^(−2i/rotary_dim): a partial rotary paired inside a block of the head's size. Head 256, rotary 64, positions
    # 700 … 2355 (as the PR's test), base 1e6 chosen here.
    pos_p = np.linspace(700, 2355, 48).round().astype(np.int64)
    q = q_of(len(pos_p), 2, 256)
    th = (1.0 / (1e6 ** (np.arange(0, 64, 2, dtype=np.int64).astype(np.float32) / 256))).astype(np.float32)
    ang = (pos_p.astype(np.float32)[:, None] * th[None, :]).astype(np.float32)
    c, sn = np.cos(ang)[:, None, :], np.sin(ang)[:, None, :]
    y = q.copy()
    a, b = q[..., :32], q[..., 128:160]
    y[..., :32], y[..., 128:160] = (a * c - b * sn).astype(np.float32), (b * c + a * sn).astype(np.float32)
    save("pie_partial_head_pairs", q, y, pos_p, ["--base", "1e6", "--layout", "half", "--partial-rotary-factor",
                                                 "0.25", "--angles", "float32"], "partial-rotary-pairing",
         {"partner": 128.0, "head_frequencies": 1.0}, found_rel=1e-9)
    # antonellof/ferrox issue #39: Gemma 3's sliding layers rotated with the global layers' linear scaling (factor 8
    # folded into a global rope_freqs) at their own base 10000, where llama.cpp rotates them unscaled: θ_j / 8, named
    # layer-type-other: the full layers' (layer type 1 of gemma-3-4b) scaling on this layer's base.
    pos_g = np.concatenate([np.arange(32), np.arange(8160, 8192)])
    q = q_of(len(pos_g), 2, 256)
    save("ferrox_gemma3_sliding_scaled", q, hf_rope(q, pos_g, (inv_freq(10000.0, 256) / np.float32(8)).astype(
        np.float32)), pos_g, ["--model", "gemma-3-4b", "--layer-type", "sliding_attention", "--angles", "float32"],
         "layer-type-other", {"layer_type": 1.0, "scaling_only": 1.0})

    # vllm-project/vllm PR #41185: BailingMoeV2.5's MLA attention passed the model's partial_rotary_factor 0.5 (the
    # linear-attention layers') to get_rope with head_size = qk_rope_head_dim = 64, so rotary_dim 32: the first 32
    # channels of the rope head turned at base^(−2i/32), the other 32 passed through, where all 64 rotate. vLLM's
    # RotaryEmbedding with rotary_dim < head_size (rotary_embedding/base.py: query_rot, query_pass); rotate_half
    # (neox) pairs and base 10000 chosen here (the thread names the dimensions only).
    pos_m = np.arange(96)
    q = q_of(len(pos_m), 2, 64)
    y = q.copy()
    y[..., :32] = hf_rope(q[..., :32], pos_m, inv_freq(10000.0, 32))
    save("vllm_bailing_mla_rotary_halved", q, y, pos_m, ["--base", "10000", "--layout", "half", "--angles",
                                                         "float32"], "rotary-dim-halved")

    # Blaizzy/mlx-vlm PR #1709: Gemma 3's Attention built a plain nn.RoPE and never passed rope_scaling, so the
    # global (full-attention) layers ran base 1e6 unscaled where the model divides by the linear factor 8: named
    # scaling-ignored on --layer-type full_attention.
    q = q_of(len(pos_g), 2, 256)
    save("mlxvlm_gemma3_global_unscaled", q, hf_rope(q, pos_g, inv_freq(1e6, 256)), pos_g,
         ["--model", "gemma-3-4b", "--layer-type", "full_attention", "--angles", "float32"], "scaling-ignored")
    # huggingface/candle issue #3698: phi3's RotaryEmbedding::new builds t = arange(max_seq_len) and freqs = t·inv_freq
    # in the model's dtype (BF16), then sin and cos of them in BF16; q·cos + rotate_half(q)·sin in BF16. Phi-3-mini's
    # head 96, base 10000, rotate_half pairs; positions 0, 8, … 4088. Named angles-bf16.
    def bf16(a):
        b = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
        b = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16
        return b.astype(np.uint32).view(np.float32)
    pos_c = np.arange(0, 4096, 8)
    q = bf16(q_of(len(pos_c), 2, 96))
    freqs = bf16(bf16(pos_c.astype(np.float32))[:, None] * bf16(inv_freq(10000.0, 96))[None, :])
    emb = np.concatenate([freqs, freqs], -1)[:, None, :]
    y = bf16(bf16(q * bf16(np.cos(emb))) + bf16(rotate_half(q) * bf16(np.sin(emb))))
    save("candle_phi3_table_bf16", q, y, pos_c, ["--base", "10000", "--layout", "half", "--dtype", "bf16"],
         "angles-bf16")
    # huggingface/transformers issue #48241 (fixed by PR #48486): MiniMaxM2Config keeps the checkpoints' legacy
    # rotary_dim 64 (of head_dim 128) as an opaque attribute, so MiniMaxM2RotaryEmbedding rotates all 128 channels
    # with the full-width ladder 5e6^(−2i/128) and rotate_half pairs (i, i + 64). Seen on transformers 5.17.0 itself
    # (tests/device/record_partial_heads.py: MiniMaxM2Attention's q changed in channels 0 … 127, its cos 128 wide).
    # Checked against the checkpoint's config (data/models/minimax-m2.json, rotary_dim 64): named
    # partial-rotary-whole-head.
    pos_m = np.array([0, 1, 2, 3, 100, 4095, 65535, 196607])
    q = q_of(len(pos_m), 4, 128)
    save("transformers_minimax_m2_rotary_dim_dropped", q, hf_rope(q, pos_m, inv_freq(5e6, 128)), pos_m,
         ["--model", "minimax-m2", "--angles", "float32"], "partial-rotary-whole-head")

    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"cases": cases}, f, indent=1)


if __name__ == "__main__":
    main()
