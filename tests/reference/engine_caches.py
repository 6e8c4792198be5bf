#!/usr/bin/python3
"""The cos/sin caches engines hand their RoPE kernels, written by NumPy ports of each engine's cache builder, for
models rope knows, and planted wrong ones: what `rope check --cos/--sin` or `--cos-sin-cache` checks against the
model without dumps (src/rope/analysis/check/table_model.hpp).

  vLLM        vllm-project/vllm vllm/model_executor/layers/rotary_embedding/
              base.py @ 072d10a084c2b89e63323c781eacd7d7e218ba2b RotaryEmbeddingBase._compute_inv_freq
              (1 / base^(arange(0, rot, 2, float32) / rot)) and _compute_cos_sin_cache (t = arange(max_pos, float32),
              freqs = einsum("i,j -> ij", t, inv_freq), cat((cos, sin), -1): [max_pos, rot], cos then sin);
              llama3_rope.py @ 045d7575500e01e0f4a7ff84e039a9f7f7dc3bd0 Llama3RotaryEmbedding._compute_inv_freq;
              yarn_scaling_rope.py @ ffdc985737c94233f2c88629c4450022e5bf4925 YaRNScalingRotaryEmbedding
              (_compute_inv_freq, and its _compute_cos_sin_cache: cos and sin times mscale = yarn_get_mscale(f)·
              attn_factor, t = arange(max_position_embeddings·f) where max_position_embeddings is the original
              length), with common.py @ 1593f0c1de61ba1e6efb9315ac8d0a3d2fe14cdd yarn_find_correction_dim,
              yarn_find_correction_range (floor, ceil, clamped), yarn_linear_ramp_mask, yarn_get_mscale.
  FlashInfer  flashinfer-ai/flashinfer tests/test_helpers/rope_reference.py @ 675bb29f546c07a36277d99c55bf182ae8dcb6f3
              generate_cos_sin_f32_cache (float32: position ⊗ cat(freqs, freqs), each entry scaled by apply_scaling,
              Llama 3.1's factor 8, low 1, high 4, 8192; cos and sin [max_seq_len, head_dim] each, repeated halves),
              the cache of its apply_rope_pos_ids_cos_sin_cache tests; apply_rope_with_cos_sin_cache takes vLLM's
              [max_pos, rot] cos-then-sin layout in float32 (its RotaryEmbedding there is vLLM's, above).
  flash-attn  Dao-AILab/flash-attention flash_attn/layers/rotary.py @ 09d422b1adda90f847b16c1a03d0d0dd6208f95f
              RotaryEmbedding._compute_inv_freq and _update_cos_sin_cache (t = arange(seqlen, float32),
              freqs = outer(t, inv_freq), cos(freqs).to(dtype): [seqlen, rot/2]), the tables apply_rotary_emb(x, cos,
              sin) takes.
  HF          huggingface/transformers 357f414cae88d5f592105bd97ec4a24ef7735f9f src/transformers/models/llama/
              modeling_llama.py LlamaRotaryEmbedding.forward (inv_freq ⊗ position_ids in float32, emb = cat(freqs,
              freqs), cos and sin times attention_scaling, cast to the dtype: [batch, seq, d]); inv_freq of
              modeling_rope_utils.py as tests/reference/hf_families.py ports it (default, llama3, yarn).
  ONNX        the cos_cache and sin_cache inputs of RotaryEmbedding (opset 23; tests/reference/onnx_rotary.py):
              [max_pos, rot/2], filled as flash-attn's (cos and sin of position ⊗ inv_freq in float32).

Models (data/models/*.json): Llama 3.1 8B (llama3 scaling: base 500000, factor 8, low 1, high 4, 8192; half layout,
rot 128), Qwen3 8B (plain, base 1e6, rot 128), OLMo 3 7B's full-attention layers (YaRN: base 500000, factor 8, 8192,
attention factor 0.1·ln 8 + 1). Each engine writes a correct cache for each model it serves, then planted mistakes:
another base (10000), the scaling ignored (plain base), the attention factor missing or applied twice (YaRN), cos and
sin swapped, values rounded to bfloat16, repeated pairs where the model splits halves, too few rows for --seq-len,
the whole head's width for Qwen3-Next (partial_rotary_factor 0.25: base 1e7, rot 64 of 256).

Writes DIR/<name>.npy files (and two bfloat16 safetensors) and DIR/manifest.json: rows {name, args (of rope check
beside --json), findings (the names rope must report, [] for a pass), measured_base (the planted base, or null)}.

With --docs, writes the two caches docs/check.md's examples read into data/dumps/ instead: vLLM's cos_sin_cache
[128, 64] of Llama 3.2 1B (llama3: base 500000, factor 32, low 1, high 4, 8192; rot 64), cos_sin_cache_llama32.npy,
and the same builder at base 10000 unscaled, cos_sin_cache_base10000.npy, the table data/dumps/q_rope.npy was turned
by (plain RoPE of base 10000, half layout, positions 0 … 127).

Usage: engine_caches.py DIR
       engine_caches.py --docs
"""
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_families import default_inv_freq, llama3_inv_freq, yarn_inv_freq  # noqa: E402

F32 = np.float32

MODELS = {
    "llama-3.1-8b": {"args": ["--model", "llama-3.1-8b"], "base": 500000.0, "rot": 128,
                     "llama3": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                "original_max_position_embeddings": 8192}},
    "qwen3-8b": {"args": ["--model", "qwen3-8b"], "base": 1000000.0, "rot": 128},
    "qwen3-next-80b-a3b": {"args": ["--model", "qwen3-next-80b-a3b"], "base": 10000000.0, "rot": 64},
    "olmo-3-7b": {"args": ["--model", "olmo-3-7b", "--layer-type", "full_attention"], "base": 500000.0, "rot": 128,
                  "yarn": {"factor": 8.0, "original_max_position_embeddings": 8192, "beta_fast": 32, "beta_slow": 1}},
}


def bf16(x):
    """float32 values rounded to bfloat16 (round to nearest even) and back."""
    b = np.asarray(x, dtype=F32).view(np.uint32).astype(np.uint64)
    b = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16
    return b.astype(np.uint32).view(F32)


# vLLM ---------------------------------------------------------------------------------------------------------------

def vllm_inv_freq(base, rot):
    return (F32(1.0) / (F32(base) ** (np.arange(0, rot, 2, dtype=F32) / F32(rot)))).astype(F32)


def vllm_llama3_inv_freq(base, rot, p):
    inv = vllm_inv_freq(base, rot)
    l0, lf, hf, f = p["original_max_position_embeddings"], p["low_freq_factor"], p["high_freq_factor"], p["factor"]
    low_wl, high_wl = l0 / lf, l0 / hf
    wave_len = (F32(2 * math.pi) / inv).astype(F32)
    smooth = ((F32(l0) / wave_len - F32(lf)) / F32(hf - lf)).astype(F32) if lf != hf else F32(0)
    scaled = (inv / F32(f)).astype(F32)
    mixed = ((F32(1) - smooth) * inv / F32(f) + smooth * inv).astype(F32)
    return np.where(wave_len < high_wl, inv, np.where(wave_len > low_wl, scaled, mixed)).astype(F32)


def vllm_yarn(base, rot, p):
    """inv_freq and mscale of YaRNScalingRotaryEmbedding (extrapolation_factor 1, attn_factor 1)."""
    f, l0 = p["factor"], p["original_max_position_embeddings"]

    def corr_dim(n):
        return (rot * math.log(l0 / (n * 2 * math.pi))) / (2 * math.log(base))
    low = max(math.floor(corr_dim(p["beta_fast"])), 0)
    high = min(math.ceil(corr_dim(p["beta_slow"])), rot - 1)
    if low == high:
        high += 0.001
    ramp = np.clip((np.arange(rot // 2, dtype=F32) - F32(low)) / F32(high - low), 0, 1).astype(F32)
    mask = (F32(1) - ramp).astype(F32)
    pos_freqs = (F32(base) ** (np.arange(0, rot, 2, dtype=F32) / F32(rot))).astype(F32)
    extra, inter = (F32(1) / pos_freqs).astype(F32), (F32(1) / (F32(f) * pos_freqs)).astype(F32)
    inv = (inter * (F32(1) - mask) + extra * mask).astype(F32)
    mscale = 1.0 if f <= 1 else 0.1 * math.log(f) + 1.0
    return inv, mscale


def vllm_cos_sin_cache(inv, rows, mscale=1.0):
    t = np.arange(rows, dtype=F32)
    freqs = np.outer(t, inv).astype(F32)
    return np.concatenate([(np.cos(freqs) * F32(mscale)).astype(F32), (np.sin(freqs) * F32(mscale)).astype(F32)],
                          axis=-1)


def vllm_model_cache(m, rows, base=None, plain=False, mscale=None):
    base = m["base"] if base is None else base
    if "llama3" in m and not plain:
        return vllm_cos_sin_cache(vllm_llama3_inv_freq(base, m["rot"], m["llama3"]), rows)
    if "yarn" in m and not plain:
        inv, ms = vllm_yarn(base, m["rot"], m["yarn"])
        return vllm_cos_sin_cache(inv, rows, ms if mscale is None else mscale)
    return vllm_cos_sin_cache(vllm_inv_freq(base, m["rot"]), rows)


# FlashInfer ---------------------------------------------------------------------------------------------------------

def flashinfer_apply_scaling(freqs):
    """rope_reference.py apply_scaling: Llama 3.1's constants, entry by entry (Python floats of float32 values)."""
    scale_factor, low_freq_factor, high_freq_factor, old_context_len = 8, 1, 4, 8192
    low_wl, high_wl = old_context_len / low_freq_factor, old_context_len / high_freq_factor
    out = []
    for freq in freqs.astype(np.float64):
        wavelen = 2 * math.pi / freq
        if wavelen < high_wl:
            out.append(freq)
        elif wavelen > low_wl:
            out.append(freq / scale_factor)
        else:
            smooth = (old_context_len / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
            out.append((1 - smooth) * freq / scale_factor + smooth * freq)
    return np.array(out, dtype=F32)


def flashinfer_cos_sin_f32_cache(rows, head_dim, theta, use_scaled):
    position = np.arange(rows, dtype=F32)[:, None]
    freqs = (F32(1.0) / (F32(theta) ** (np.arange(0, head_dim, 2, dtype=F32) / F32(head_dim)))).astype(F32)
    freqs = np.concatenate([freqs, freqs])
    if use_scaled:
        freqs = flashinfer_apply_scaling(freqs)
    args = (position * freqs).astype(F32)
    return np.cos(args).astype(F32), np.sin(args).astype(F32)


# flash-attn and ONNX ------------------------------------------------------------------------------------------------

def flash_attn_cos_sin(seqlen, inv, dtype="f32"):
    t = np.arange(seqlen, dtype=F32)
    freqs = np.outer(t, inv).astype(F32)
    cos, sin = np.cos(freqs).astype(F32), np.sin(freqs).astype(F32)
    return (bf16(cos), bf16(sin)) if dtype == "bf16" else (cos, sin)


# Hugging Face -------------------------------------------------------------------------------------------------------

def hf_inv(m, base=None, plain=False):
    base = m["base"] if base is None else base
    if "llama3" in m and not plain:
        return llama3_inv_freq(base, m["rot"], m["llama3"]), 1.0
    if "yarn" in m and not plain:
        return yarn_inv_freq(base, m["rot"], m["yarn"], 65536)
    return default_inv_freq(base, m["rot"]), 1.0


def hf_cos_sin(inv, attn, batch, seq, pairs=False):
    """LlamaRotaryEmbedding.forward for position_ids arange(seq) in every batch row; `pairs`: the planted
    repeat_interleave (GPT-J's order) in place of cat(freqs, freqs)."""
    pos = np.broadcast_to(np.arange(seq, dtype=F32), (batch, seq))
    freqs = (pos[..., None] * inv[None, None, :]).astype(F32)
    emb = np.repeat(freqs, 2, axis=-1) if pairs else np.concatenate([freqs, freqs], axis=-1)
    return (np.cos(emb) * F32(attn)).astype(F32), (np.sin(emb) * F32(attn)).astype(F32)


def docs():
    dumps = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "dumps")
    llama32 = {"factor": 32.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
               "original_max_position_embeddings": 8192}
    np.save(os.path.join(dumps, "cos_sin_cache_llama32.npy"),
            vllm_cos_sin_cache(vllm_llama3_inv_freq(500000.0, 64, llama32), 128))
    np.save(os.path.join(dumps, "cos_sin_cache_base10000.npy"), vllm_cos_sin_cache(vllm_inv_freq(10000.0, 64), 128))


def main():
    if sys.argv[1] == "--docs":
        return docs()
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rows = []

    def save(name, **arrays):
        paths = {}
        for key, a in arrays.items():
            paths[key] = os.path.join(out, f"{name}.{key}.npy")
            np.save(paths[key], np.ascontiguousarray(a))
        return paths

    def save_bf16(name, a):
        """A safetensors file (huggingface/safetensors README, "Format") of one BF16 tensor "cache": the float32
        values rounded to bfloat16 (bf16 above), their top 16 bits, as vLLM's cache.to(torch.bfloat16) holds them."""
        path = os.path.join(out, f"{name}.safetensors")
        raw = (bf16(a).view(np.uint32) >> 16).astype("<u2").tobytes()
        header = json.dumps({"cache": {"dtype": "BF16", "shape": list(a.shape), "data_offsets": [0, len(raw)]}})
        header = header.encode() + b" " * ((8 - len(header) % 8) % 8)
        with open(path, "wb") as f:
            f.write(len(header).to_bytes(8, "little") + header + raw)
        return path

    def row(name, model, args, findings):
        """A case; a planted base (10000) is the measured_base rope must report."""
        base = 10000.0 if {"base-other", "scaled-base-other"} & set(findings) else None
        rows.append({"name": name, "args": MODELS[model]["args"] + args, "findings": findings, "measured_base": base})

    # vLLM's cos_sin_cache [max_pos, rot], cos then sin (the cache FlashInfer's apply_rope_with_cos_sin_cache takes).
    n = 512
    for model in ("llama-3.1-8b", "qwen3-8b", "olmo-3-7b"):
        m = MODELS[model]
        p = save(f"vllm-{model}", cache=vllm_model_cache(m, n))
        row(f"vllm {model}", model, ["--cos-sin-cache", p["cache"]], [])
        p = save(f"vllm-{model}-base", cache=vllm_model_cache(m, n, base=10000.0))
        row(f"vllm {model}, base 10000", model, ["--cos-sin-cache", p["cache"]],
            ["scaled-base-other"] if ("llama3" in m or "yarn" in m) else ["base-other"])
        p = save(f"vllm-{model}-bf16", cache=bf16(vllm_model_cache(m, n)))
        row(f"vllm {model}, bf16 values in float32", model, ["--cos-sin-cache", p["cache"]], ["rounded"])
    # vLLM casts its cache to the model's dtype (base.py: cache.to(dtype)): a bfloat16 model's cache is bfloat16.
    p = save_bf16("vllm-llama-bf16", vllm_model_cache(MODELS["llama-3.1-8b"], n))
    row("vllm llama-3.1-8b, the cache in bfloat16", "llama-3.1-8b", ["--cos-sin-cache", p], [])
    p = save_bf16("vllm-qwen3-bf16-base", vllm_model_cache(MODELS["qwen3-8b"], n, base=10000.0))
    row("vllm qwen3-8b, the cache in bfloat16, base 10000", "qwen3-8b", ["--cos-sin-cache", p], ["base-other"])
    m = MODELS["llama-3.1-8b"]
    p = save("vllm-llama-plain", cache=vllm_model_cache(m, n, plain=True))
    row("vllm llama-3.1-8b, llama3 scaling left out", "llama-3.1-8b", ["--cos-sin-cache", p["cache"]],
        ["scaling-ignored"])
    c = vllm_model_cache(m, n)
    p = save("vllm-llama-swapped", cache=np.concatenate([c[:, 64:], c[:, :64]], axis=-1))
    row("vllm llama-3.1-8b, sin then cos", "llama-3.1-8b", ["--cos-sin-cache", p["cache"]], ["cos-sin-swapped"])
    p = save("vllm-llama-short", cache=c[:256])
    row("vllm llama-3.1-8b, 256 rows for 512 positions", "llama-3.1-8b",
        ["--cos-sin-cache", p["cache"], "--seq-len", "512"], ["rows-short"])
    m = MODELS["qwen3-next-80b-a3b"]  # partial_rotary_factor 0.25: 64 of 256 channels
    p = save("vllm-qwen3-next", cache=vllm_model_cache(m, n))
    row("vllm qwen3-next-80b-a3b (rotary_dim 64 of 256)", "qwen3-next-80b-a3b", ["--cos-sin-cache", p["cache"]], [])
    p = save("vllm-qwen3-next-whole-head", cache=vllm_cos_sin_cache(vllm_inv_freq(m["base"], 256), n))
    row("vllm qwen3-next-80b-a3b, rotary_dim the whole head", "qwen3-next-80b-a3b", ["--cos-sin-cache", p["cache"]],
        ["rotary-width"])
    m = MODELS["olmo-3-7b"]
    p = save("vllm-olmo-no-mscale", cache=vllm_model_cache(m, n, mscale=1.0))
    row("vllm olmo-3-7b, mscale left out", "olmo-3-7b", ["--cos-sin-cache", p["cache"]], ["attention-factor-missing"])
    ms = 0.1 * math.log(8.0) + 1.0
    p = save("vllm-olmo-mscale-twice", cache=vllm_model_cache(m, n, mscale=ms * ms))
    row("vllm olmo-3-7b, mscale applied twice", "olmo-3-7b", ["--cos-sin-cache", p["cache"]],
        ["attention-factor-doubled"])

    # FlashInfer's float32 cos and sin [max_seq_len, head_dim], repeated halves (Llama 3.1's scaling built in).
    m = MODELS["llama-3.1-8b"]
    cos, sin = flashinfer_cos_sin_f32_cache(n, 128, 500000.0, True)
    p = save("flashinfer-llama", cos=cos, sin=sin)
    row("flashinfer llama-3.1-8b", "llama-3.1-8b", ["--cos", p["cos"], "--sin", p["sin"]], [])
    cos, sin = flashinfer_cos_sin_f32_cache(n, 128, 500000.0, False)
    p = save("flashinfer-llama-unscaled", cos=cos, sin=sin)
    row("flashinfer llama-3.1-8b, use_scaled False", "llama-3.1-8b", ["--cos", p["cos"], "--sin", p["sin"]],
        ["scaling-ignored"])
    cos, sin = flashinfer_cos_sin_f32_cache(n, 128, 1000000.0, False)
    p = save("flashinfer-qwen3", cos=cos, sin=sin)
    row("flashinfer qwen3-8b", "qwen3-8b", ["--cos", p["cos"], "--sin", p["sin"]], [])
    cos, sin = flashinfer_cos_sin_f32_cache(n, 128, 10000.0, False)
    p = save("flashinfer-qwen3-base", cos=cos, sin=sin)
    row("flashinfer qwen3-8b, base 10000", "qwen3-8b", ["--cos", p["cos"], "--sin", p["sin"]], ["base-other"])

    # flash-attn's cos and sin [seqlen, rot/2].
    for model in ("qwen3-8b", "llama-3.1-8b"):
        inv, _ = hf_inv(MODELS[model])
        cos, sin = flash_attn_cos_sin(n, inv)
        p = save(f"flash-attn-{model}", cos=cos, sin=sin)
        row(f"flash-attn {model}", model, ["--cos", p["cos"], "--sin", p["sin"]], [])
    inv, _ = hf_inv(MODELS["qwen3-8b"], base=10000.0)
    cos, sin = flash_attn_cos_sin(n, inv)
    p = save("flash-attn-qwen3-base", cos=cos, sin=sin)
    row("flash-attn qwen3-8b, base 10000", "qwen3-8b", ["--cos", p["cos"], "--sin", p["sin"]], ["base-other"])
    inv, _ = hf_inv(MODELS["qwen3-8b"])
    cos, sin = flash_attn_cos_sin(n, inv)
    p = save("flash-attn-qwen3-swapped", cos=sin, sin=cos)
    row("flash-attn qwen3-8b, cos and sin swapped", "qwen3-8b", ["--cos", p["cos"], "--sin", p["sin"]],
        ["cos-sin-swapped"])

    # Hugging Face's (cos, sin) [batch, seq, d], repeated halves, times the attention factor.
    s = 256
    for model in ("llama-3.1-8b", "qwen3-8b", "olmo-3-7b"):
        inv, attn = hf_inv(MODELS[model])
        cos, sin = hf_cos_sin(inv, attn, 2, s)
        p = save(f"hf-{model}", cos=cos, sin=sin)
        row(f"hf {model}", model, ["--cos", p["cos"], "--sin", p["sin"]], [])
    inv, attn = hf_inv(MODELS["olmo-3-7b"])
    cos, sin = hf_cos_sin(inv, 1.0, 2, s)
    p = save("hf-olmo-no-attention", cos=cos, sin=sin)
    row("hf olmo-3-7b, attention_scaling left out", "olmo-3-7b", ["--cos", p["cos"], "--sin", p["sin"]],
        ["attention-factor-missing"])
    inv, attn = hf_inv(MODELS["qwen3-8b"])
    cos, sin = hf_cos_sin(inv, attn, 2, s, pairs=True)
    p = save("hf-qwen3-pairs", cos=cos, sin=sin)
    row("hf qwen3-8b, repeat_interleave for a half-layout model", "qwen3-8b", ["--cos", p["cos"], "--sin", p["sin"]],
        ["other-order"])

    # ONNX's cos_cache and sin_cache [max_pos, rot/2].
    for model in ("qwen3-8b", "olmo-3-7b"):
        inv, attn = hf_inv(MODELS[model])
        cos, sin = flash_attn_cos_sin(n, inv)
        cos, sin = (cos * F32(attn)).astype(F32), (sin * F32(attn)).astype(F32)
        p = save(f"onnx-{model}", cos=cos, sin=sin)
        row(f"onnx {model}", model, ["--cos", p["cos"], "--sin", p["sin"]], [])
    inv, _ = hf_inv(MODELS["olmo-3-7b"], plain=True)
    cos, sin = flash_attn_cos_sin(n, inv)
    p = save("onnx-olmo-plain", cos=cos, sin=sin)
    row("onnx olmo-3-7b, plain RoPE of the base", "olmo-3-7b", ["--cos", p["cos"], "--sin", p["sin"]],
        ["attention-factor-missing", "scaling-ignored"])

    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
