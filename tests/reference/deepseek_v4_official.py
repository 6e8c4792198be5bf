#!/usr/bin/python3
"""DeepSeek-V4's RoPE per layer as the official inference computes it, by NumPy alone, against Hugging Face's port.

An independent port of deepseek-ai's inference/model.py (DeepSeek-V4-Flash on the Hugging Face Hub; not in the GitHub
index, read through a verbatim copy in a public repository of NPU tests, so cited without a commit):
  - precompute_freqs_cis(dim, seqlen, original_seq_len, base, factor, beta_fast, beta_slow): freqs = 1 / base^(arange(0,
    dim, 2) / dim) in float32; when seqlen > original_seq_len > 0, YaRN's ramp: low = floor(find_correction_dim(
    beta_fast)), high = ceil(find_correction_dim(beta_slow)), clamped to [0, dim − 1], smooth = 1 − clamp((i − low) /
    (high − low), 0, 1), freqs = freqs / factor · (1 − smooth) + freqs · smooth; t = arange(seqlen), the unit complex
    numbers polar(1, t ⊗ freqs): no magnitude;
  - Attention.__init__: a layer whose compress_ratios entry is 0 takes (original_seq_len 0, rope_theta): θ 10000, no
    YaRN; a compressed layer (4 or 128) takes (original_seq_len 65536, compress_rope_theta 160000) with rope_factor 16;
    its freqs_cis turns the queries, the window kv, the compressor's entries and the indexer (Compressor.freqs_cis,
    Indexer.freqs_cis);
  - apply_rotary_emb(x, freqs_cis, inverse): view_as_complex of x.float() unflattened into pairs (2i, 2i + 1) of the
    last rope_head_dim channels (x[..., -rd:]), times freqs_cis (its conjugate when inverse: the attention output is
    turned back by R(−m), Attention.forward's apply_rotary_emb(o[..., -rd:], freqs_cis, True)), copied back;
  - MTPBlock(layer_id = n_layers + k) reads compress_ratios[layer_id]: the list holds one entry per MTP layer after the
    n_layers entries.
HF's port (modular_deepseek_v4.py @ 02356fecf2, DeepseekV4Model.forward) turns every layer's queries with
rope_parameters.main instead (tests/reference/deepseek_v4.py ports it). The port serves max_seq_len 131072 > 65536, so
the compressed layers' YaRN applies (at max_seq_len <= 65536 the official code turns them with θ 160000 alone).

Usage: deepseek_v4_official.py OUT_DIR   writes OUT_DIR/config.json, OUT_DIR/<case>/{q,q_rope,positions}.npy and
OUT_DIR/manifest.json (each case's rope options, exit code, and the variant with words its sentence holds).
"""
import json
import math
import os
import sys

import numpy as np

F32 = np.float32
HEAD, RD, HEADS = 512, 64, 2
ROPE_THETA, COMPRESS_THETA, ORIGINAL, FACTOR, BETA_FAST, BETA_SLOW = 10000.0, 160000.0, 65536, 16.0, 32, 1
MAX_SEQ_LEN = 131072
# 7 layers and one MTP layer (the eighth entry); the shipped configs' legacy keys.
RATIOS = [0, 0, 4, 128, 4, 128, 0, 128]
CONFIG = dict(model_type="deepseek_v4", head_dim=HEAD, qk_rope_head_dim=RD, num_hidden_layers=7,
              num_nextn_predict_layers=1, max_position_embeddings=1048576, rope_theta=ROPE_THETA,
              compress_rope_theta=COMPRESS_THETA, compress_ratios=RATIOS,
              rope_scaling=dict(type="yarn", factor=FACTOR, original_max_position_embeddings=ORIGINAL,
                                beta_fast=BETA_FAST, beta_slow=BETA_SLOW))


def freqs(dim, seqlen, original_seq_len, base, factor, beta_fast, beta_slow):
    """precompute_freqs_cis's frequencies (float32), before t ⊗ freqs."""
    def correction_dim(rot):
        return dim * math.log(original_seq_len / (rot * 2 * math.pi)) / (2 * math.log(base))

    f = (F32(1.0) / (F32(base) ** (np.arange(0, dim, 2).astype(F32) / F32(dim)))).astype(F32)
    if seqlen > original_seq_len > 0:
        low = max(math.floor(correction_dim(beta_fast)), 0)
        high = min(math.ceil(correction_dim(beta_slow)), dim - 1)
        if low == high:
            high += 0.001
        ramp = np.clip((np.arange(dim // 2, dtype=F32) - F32(low)) / F32(high - low), 0, 1).astype(F32)
        smooth = F32(1) - ramp
        f = (f / F32(factor) * (F32(1) - smooth) + f * smooth).astype(F32)
    return f


def layer_freqs(ratio, theta=None, yarn=True):
    """Attention.__init__'s frequencies of a layer with this compress ratio (theta, yarn: a planted change)."""
    if ratio:
        return freqs(RD, MAX_SEQ_LEN, ORIGINAL if yarn else 0, theta or COMPRESS_THETA, FACTOR, BETA_FAST, BETA_SLOW)
    return freqs(RD, MAX_SEQ_LEN, 0, theta or ROPE_THETA, FACTOR, BETA_FAST, BETA_SLOW)


def apply_rotary_emb(x, positions, f, inverse=False):
    """x [seq, heads, HEAD]: the last RD channels as complex pairs (2i, 2i + 1) times polar(1, m·θ) (conjugated)."""
    angles = (positions.astype(F32)[:, None] * f[None, :]).astype(F32)
    c, s = np.cos(angles).astype(F32), np.sin(angles).astype(F32)
    if inverse:
        s = -s
    out = x.astype(F32).copy()
    re, im = out[..., HEAD - RD::2].copy(), out[..., HEAD - RD + 1::2].copy()
    out[..., HEAD - RD::2] = (re * c[:, None, :] - im * s[:, None, :]).astype(F32)
    out[..., HEAD - RD + 1::2] = (re * s[:, None, :] + im * c[:, None, :]).astype(F32)
    return out


POSITIONS = np.array(list(range(40)) + [1000, 4095, 65535, 65536, 100000, 131071], dtype=np.int64)
OFFICIAL = ["--engine", "official"]
# (case, layer, the frequencies the dump turns by, inverse, rope's options, exit, variant, words of its sentence)
CASES = [
    ("official_layer2", 2, layer_freqs(4), False, OFFICIAL, 0, None, None),
    ("official_layer2_vllm", 2, layer_freqs(4), False, ["--engine", "vllm"], 0, None, None),
    ("official_layer0", 0, layer_freqs(0), False, OFFICIAL, 0, None, None),
    ("official_layer0_read_as_hf", 0, layer_freqs(0), False, [], 0, None, None),
    ("official_mtp_layer7", 7, layer_freqs(128), False, OFFICIAL, 0, None, None),
    ("official_layer3_output_derotated", 3, layer_freqs(128), True, OFFICIAL + ["--grad"], 0, None, None),
    ("official_layer2_read_as_hf", 2, layer_freqs(4), False, [], 1, "engine-reading-other",
     "matches the official inference's reading of layer 2, not HF's port"),
    ("hf_layer2_read_as_official", 2, layer_freqs(0), False, OFFICIAL, 1, "engine-reading-other",
     "matches HF's port's reading of layer 2, not the official inference's"),
    # a planted mistake: a compressed layer at compress_rope_theta without YaRN
    ("bug_layer2_without_yarn", 2, layer_freqs(4, yarn=False), False, OFFICIAL, 1, "scaling-ignored",
     "the scaling is not applied"),
]


def self_check():
    f0, f4 = layer_freqs(0), layer_freqs(4)
    assert f0[0] == 1 and abs(f0[1] - 10000 ** (-2 / 64)) < 1e-7  # θ 10000, no YaRN
    assert abs(f4[0] - 1) < 1e-7 and abs(f4[-1] - 160000 ** (-62 / 64) / 16) < 1e-9  # the slowest pair interpolated
    x = np.random.default_rng(1).standard_normal((3, 1, HEAD)).astype(F32)
    pos = np.array([0, 5, 70000])
    back = apply_rotary_emb(apply_rotary_emb(x, pos, f4), pos, f4, inverse=True)
    assert np.allclose(back, x, atol=1e-5) and np.array_equal(back[..., :HEAD - RD], x[..., :HEAD - RD])


def main():
    self_check()
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    config = os.path.join(out_dir, "config.json")
    with open(config, "w") as f:
        json.dump(CONFIG, f, indent=1)
    rng = np.random.default_rng(93_2)
    manifest = []
    for name, layer, f, inverse, options, code, variant, words in CASES:
        d = os.path.join(out_dir, name)
        os.makedirs(d, exist_ok=True)
        q = rng.standard_normal((len(POSITIONS), HEADS, HEAD)).astype(F32)
        np.save(os.path.join(d, "q.npy"), q)
        np.save(os.path.join(d, "q_rope.npy"), apply_rotary_emb(q, POSITIONS, f, inverse))
        np.save(os.path.join(d, "positions.npy"), POSITIONS)
        manifest.append(dict(name=name, dir=name, options=["--config", config, "--layer-type", str(layer),
                                                           "--angles", "float32"] + options,
                             exit=code, variant=variant, words=words))
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(dict(cases=manifest, config=config), f)
    print(f"{len(manifest)} cases in {out_dir}")


if __name__ == "__main__":
    main()
