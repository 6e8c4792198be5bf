#!/usr/bin/python3
"""Which of LongRoPE's two lists each engine applies, ported to NumPy from the engines' code (float32 as they compute):

  hf        transformers src/transformers/modeling_rope_utils.py @ ef46806472, dynamic_rope_update's
            longrope_frequency_update: seq_len = max(position_ids) + 1; the long list when seq_len > L0
  vllm      vllm/model_executor/layers/rotary_embedding/phi3_long_rope_scaled_rope.py @ 63c2b7abcd:
            use_long_rope = max_model_len > original_max_position_embeddings at __init__; forward indexes the
            concatenated [short (L0 rows) | long (max_position_embeddings rows)] cache at positions + L0 when it is
            set, at positions otherwise
  sglang    sglang python/sglang/srt/layers/rotary_embedding/rope_variant.py @ 0b1fd02d56, read again at
            6170d9756796c155352a595848308d3380e023a1 (unchanged there), Phi3LongRoPEScaledRotaryEmbedding.forward:
            the same cache at idx = positions + L0·any(positions > L0), the "any" over the whole batch (one long
            request switches every request of the batch: its long path, every token at position + L0, the one at
            L0 included; a position of exactly L0 in a short batch reads row L0, the long list's position 0)
  llamacpp  llama.cpp src/llama-model.cpp get_rope_factors (de3ff815ea7d, lines 2259-2272): rope_long when
            n_ctx_seq > n_ctx_orig_yarn; the rule alone is ported here (ggml's kernel with these factors is the
            conformance tier's phi3 pipeline), the rotation is the same float32 one

The lists, L0 4096 and max_position_embeddings 131072 are Phi-3-mini-128k's (data/models/phi-3-mini-128k.json). Both
caches: inv_freq = 1 / (factors · base^(arange(0, d, 2) / d)), cos and sin of t·inv_freq times
mscale = sqrt(1 + ln(131072 / 4096) / ln 4096) (vLLM's and SGLang's scaling_factor; HF's attention_factor), pairs
rotate_half's. A cache row is computed where it is read (index_select of the cache as the engines build it).
Writes OUT_DIR/<case>/{q,q_rope,positions}.npy and OUT_DIR/manifest.json: each case's rope options and expected exit.
Usage: longrope_engines.py OUT_DIR
"""
import json
import math
import os
import sys

import numpy as np

F32 = np.float32
HERE = os.path.dirname(os.path.abspath(__file__))
PRESET = os.path.join(HERE, "..", "..", "data", "models", "phi-3-mini-128k.json")


def load():
    with open(PRESET) as f:
        c = json.load(f)
    d = c["hidden_size"] // c["num_attention_heads"]
    s = c["rope_scaling"]
    return d, float(c.get("rope_theta", 10000.0)), c["original_max_position_embeddings"], \
        c["max_position_embeddings"], np.array(s["short_factor"]), np.array(s["long_factor"])


D, BASE, L0, M, SHORT, LONG = load()
SCALE = M / L0
MSCALE = 1.0 if SCALE <= 1 else math.sqrt(1 + math.log(SCALE) / math.log(L0))


def inv_freq(factors):
    return (F32(1) / (factors.astype(F32) * (F32(BASE) ** (np.arange(0, D, 2, dtype=F32) / F32(D))))).astype(F32)


def cache_rows(idx):
    """Rows idx of torch.cat([short_cache, long_cache]): row r < L0 is t = r of the short list, else t = r − L0 of
    the long one; each row cos(t·inv_freq)·mscale, sin(t·inv_freq)·mscale in float32."""
    idx = np.asarray(idx)
    short = idx < L0
    t = np.where(short, idx, idx - L0).astype(F32)
    freqs = np.where(short[:, None], t[:, None] * inv_freq(SHORT)[None, :], t[:, None] * inv_freq(LONG)[None, :])
    freqs = freqs.astype(F32)
    return (np.cos(freqs) * F32(MSCALE)).astype(F32), (np.sin(freqs) * F32(MSCALE)).astype(F32)


def engine_rows(engine, positions, context=None):
    """The cache rows an engine reads for a batch of positions (HF and llama.cpp keep no such cache: their list,
    taken at the position itself, is written as the same row)."""
    if engine == "sglang":
        return positions + L0 * int(np.any(positions > L0))
    if engine in ("vllm", "llamacpp"):  # use_long_rope / n_ctx_seq > n_ctx_orig_yarn, fixed by the context
        return positions + L0 if context > L0 else positions
    seq_len = int(np.max(positions)) + 1  # hf: longrope_frequency_update
    return positions + L0 if seq_len > L0 else positions


def rotate(q, rows):
    cos, sin = cache_rows(rows)
    cos, sin = np.concatenate([cos, cos], -1)[:, None, :], np.concatenate([sin, sin], -1)[:, None, :]
    h = q.shape[-1] // 2
    return (q * cos + np.concatenate([-q[..., h:], q[..., :h]], -1) * sin).astype(F32)


SHORT_BATCH = np.array([0, 1, 5, 100, 2000, 4095])
AT_L0 = np.array([0, 1, 5, 100, 2000, 4095, 4096])
# (case, engine that wrote the dump and its context, positions, rope's options, expected exit, the diagnosis: the
# variant it matches, or the closest one). The two boundary cases (issue 78 item 6): HF's dump at L0 (the long list at
# every position) read with SGLang's rule is exactly SGLang's long path (every token at idx = position + L0, the one at
# L0 included: what another request of the batch past L0 triggers), so it matches the other list; SGLang's short-path
# dump at L0 (its token at L0 from row L0, unturned) read with HF's rule matches the short list as SGLang's cache
# reads it, and the diagnosis names SGLang.
CASES = [
    ("hf_short", ("hf", None), SHORT_BATCH, [], 0, None),
    ("hf_at_l0", ("hf", None), AT_L0, [], 0, None),
    ("sglang_at_l0", ("sglang", None), AT_L0, ["--engine", "sglang"], 0, None),
    ("sglang_at_l0_read_as_hf", ("sglang", None), AT_L0, [], 1, ("matches", "longrope-other-list")),
    ("hf_at_l0_read_as_sglang", ("hf", None), AT_L0, ["--engine", "sglang"], 1, ("matches", "longrope-other-list")),
    ("vllm_long_at_10", ("vllm", 131072), np.arange(11), ["--engine", "vllm", "--max-model-len", "131072"], 0, None),
    ("vllm_long_at_10_read_as_hf", ("vllm", 131072), np.arange(11), [], 1, ("matches", "longrope-other-list")),
    ("vllm_short", ("vllm", 4096), SHORT_BATCH, ["--engine", "vllm", "--max-model-len", "4096"], 0, None),
    ("llamacpp_long", ("llamacpp", 8192), SHORT_BATCH, ["--engine", "llamacpp", "--n-ctx", "8192"], 0, None),
    ("llamacpp_short_read_long", ("llamacpp", 4096), SHORT_BATCH, ["--engine", "llamacpp", "--n-ctx", "8192"], 1,
     ("matches", "longrope-other-list")),
]


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    rng = np.random.default_rng(67_4)
    assert D == 96 and L0 == 4096 and len(SHORT) == len(LONG) == D // 2
    # The rules at the boundary: max position 4096 is long for HF (4097 > 4096), short for SGLang (4096 > 4096 is
    # false), whose row 4096 is the long list's row 0 (no turn).
    assert engine_rows("hf", AT_L0)[-1] == 4096 + L0 and engine_rows("sglang", AT_L0)[-1] == L0
    assert cache_rows([L0])[1].max() == 0
    # SGLang's long path (another request of the batch past L0) reads every token at position + L0: HF's rows at L0.
    assert np.array_equal(AT_L0 + L0, engine_rows("hf", AT_L0))
    manifest = []
    for name, (engine, context), positions, options, code, variant in CASES:
        d = os.path.join(out_dir, name)
        os.makedirs(d, exist_ok=True)
        q = rng.standard_normal((len(positions), 2, D)).astype(F32)
        np.save(os.path.join(d, "q.npy"), q)
        np.save(os.path.join(d, "q_rope.npy"), rotate(q, engine_rows(engine, positions, context)))
        np.save(os.path.join(d, "positions.npy"), positions.astype(np.int64))
        manifest.append(dict(name=name, dir=name, engine=engine, options=options, exit=code, diagnosis=variant))
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(dict(cases=manifest, d=D, original_max_position=L0), f)
    print(f"{len(manifest)} cases in {out_dir}")


if __name__ == "__main__":
    main()
