#!/usr/bin/python3
"""Dynamic NTK's base as each engine computes it from one config (rope_type "dynamic", f 4, M 4096, rope_theta
10000, head 128), ported to NumPy from the engines' code (float32 as they compute):

  hf    transformers src/transformers/modeling_rope_utils.py @ 5fd7ca7bc9, _compute_dynamic_ntk_parameters and
        dynamic_rope_update: seq_len = max(position_ids) + 1; past M the base is recomputed at
        L = max(seq_len, M): base · (f·L/M − (f − 1))^(r/(r − 2)); at or below M the original inv_freq (guarded)
  vllm  vllm/model_executor/layers/rotary_embedding/dynamic_ntk_scaling_rope.py @ 50feac95f9,
        DynamicNTKScalingRotaryEmbedding._compute_cos_sin_cache: once at start-up, max_len = M·f, base ·
        (f·max_len/M − (f − 1))^(r/(r − 2)); vLLM PR #41277 (merged 2026-04-29) writes the same at the served length N
        (its max_position_embeddings, vLLM's max_model_len) over the trained length: base · (f·N/M − (f − 1))^…, no
        guard below M (vLLM issue #52665: N < M gives a base below rope_theta, and a negative power's NaN below
        (f − 1)/f · M). The cache is t = arange(N) times inv_freq = 1 / base^(arange(0, r, 2)/r) (base.py
        _compute_inv_freq), cos and sin in float32, neox pairs (rotate_half) for Llama.

NomicBert's own module (modeling_hf_nomic_bert.py, NomicBertDynamicNTKRotaryEmbedding._update_cos_sin_cache) is
HF's guarded form at the sequence's length (qkv.shape[1] + offset, the same L for positions 0 … S − 1): its dumps
are HF's, checked with --engine hf.

Writes OUT_DIR/config.json (the config, Llama's keys), OUT_DIR/<case>/{q,q_rope,positions}.npy and
OUT_DIR/manifest.json: each case's rope options, expected exit and
the variant named (with the words its sentence must hold) or the refusal's words.
Usage: dynamic_engines.py OUT_DIR
"""
import json
import os
import sys

import numpy as np

F32 = np.float32
BASE, F, M, D = 10000.0, 4.0, 4096, 128
# The config as a Llama checkpoint ships it (transformers 4 keys): head_dim 1024 / 8 = 128.
CONFIG_JSON = dict(model_type="llama", architectures=["LlamaForCausalLM"], hidden_size=1024, num_attention_heads=8,
                   num_key_value_heads=2, num_hidden_layers=2, max_position_embeddings=M, rope_theta=BASE,
                   rope_scaling=dict(rope_type="dynamic", factor=F))


def ntk_base(length):
    """base · (f·L/M − (f − 1))^(r/(r − 2)), in Python floats as both engines compute it."""
    return BASE * ((F * length / M) - (F - 1)) ** (D / (D - 2))


def inv_freq(base):
    return (F32(1.0) / (F32(base) ** (np.arange(0, D, 2, dtype=np.int64).astype(F32) / F32(D)))).astype(F32)


def hf_theta(positions):
    seq_len = int(np.max(positions)) + 1  # dynamic_rope_update
    return inv_freq(ntk_base(max(seq_len, M))) if seq_len > M else inv_freq(BASE)


def vllm_theta(served=None):
    n = int(M * F) if served is None else served  # max_len = M · f at start-up, or the served length
    return inv_freq(ntk_base(n))


def rotate(q, positions, theta):
    freqs = positions.astype(F32)[:, None] * theta[None, :]
    emb = np.concatenate([freqs, freqs], -1).astype(F32)
    cos, sin = np.cos(emb)[:, None, :], np.sin(emb)[:, None, :]
    h = D // 2
    return (q * cos + np.concatenate([-q[..., h:], q[..., :h]], -1) * sin).astype(F32)


SHORT = np.arange(48)
LONG = np.concatenate([np.arange(40), [5000, 6143]])
VLLM = ["--engine", "vllm"]
# (case, positions, the frequencies the engine turns by, rope's options, exit, variant, words the sentence holds)
CASES = [
    ("hf_short", SHORT, hf_theta(SHORT), [], 0, None, None),
    ("hf_long", LONG, hf_theta(LONG), [], 0, None, None),
    ("vllm_default", SHORT, vllm_theta(), VLLM, 0, None, None),
    ("vllm_served", SHORT, vllm_theta(8192), VLLM + ["--max-model-len", "8192"], 0, None, None),
    ("vllm_served_short", SHORT, vllm_theta(3584), VLLM + ["--max-model-len", "3584"], 0, None, None),
    ("vllm_read_as_hf", SHORT, vllm_theta(), [], 1, "engine-reading-other",
     "matches vLLM's reading of this config, not HF's"),
    ("hf_read_as_vllm", LONG, hf_theta(LONG), VLLM, 1, "engine-reading-other",
     "matches HF's reading of this config, not vLLM's"),
    ("hf_short_read_as_vllm", SHORT, hf_theta(SHORT), VLLM, 1, "engine-reading-other",
     "matches HF's reading of this config, not vLLM's"),
    # vLLM served below M (unguarded): a base below rope_theta, at a length no reading of HF takes: measured
    ("vllm_served_short_read_as_hf", SHORT, vllm_theta(3584), [], 1, "dynamic-length-other", "at length L = 3584"),
]
# Refused (exit 2): the words of the one line on standard error.
REFUSED = [
    ("vllm_negative", VLLM + ["--max-model-len", "2048"], "is not > 0"),
    ("sglang", ["--engine", "sglang"], "as hf or vllm compute it"),
    ("seq_len_and_vllm", VLLM + ["--seq-len", "5000"], "not both"),
]


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    rng = np.random.default_rng(93_1)
    # The readings differ where the test says they do: vLLM at f·M = 16384 (base 10000·13^(128/126)), HF's base
    # unchanged below M; vLLM served at 3584 < M: f·N/M − (f − 1) = 0.5, a base below rope_theta.
    assert abs(ntk_base(16384) / BASE - 13 ** (128 / 126)) < 1e-12 and ntk_base(3584) < BASE
    assert np.array_equal(hf_theta(SHORT), inv_freq(BASE))
    config = os.path.join(out_dir, "config.json")
    with open(config, "w") as f:
        json.dump(CONFIG_JSON, f, indent=1)
    manifest = []
    for name, positions, theta, options, code, variant, words in CASES:
        d = os.path.join(out_dir, name)
        os.makedirs(d, exist_ok=True)
        q = rng.standard_normal((len(positions), 2, D)).astype(F32)
        np.save(os.path.join(d, "q.npy"), q)
        np.save(os.path.join(d, "q_rope.npy"), rotate(q, positions, theta))
        np.save(os.path.join(d, "positions.npy"), positions.astype(np.int64))
        manifest.append(dict(name=name, dir=name, options=["--config", config] + options, exit=code, variant=variant, words=words))
    refused = [dict(name=n, dir="hf_short", options=["--config", config] + o, exit=2, words=w) for n, o, w in REFUSED]
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(dict(cases=manifest, refused=refused, d=D, config=config), f)
    print(f"{len(manifest)} cases, {len(refused)} refusals in {out_dir}")


if __name__ == "__main__":
    main()
