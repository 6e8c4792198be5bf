#!/usr/bin/python3
"""Dumps of q before and after RoPE as Hugging Face's own code computes them, per model family, by NumPy alone.

An independent port, written from transformers main 357f414cae88d5f592105bd97ec4a24ef7735f9f (5.6.0.dev0,
2026-04-13), paths under src/transformers/:
  - inv_freq: modeling_rope_utils.py _compute_default_rope_parameters (dim = int(head_dim ·
    partial_rotary_factor), inv_freq = 1 / base^(arange(0, dim, 2) / dim) in float32) and
    _compute_yarn_parameters (factor as given, else max_position_embeddings / original; attention factor
    get_mscale(f, mscale) / get_mscale(f, mscale_all_dim) when both are given, else 0.1·ln f + 1;
    find_correction_range floored and ceiled (truncate), the ramp over dim // 2 pairs, low == high widened by
    0.001), _compute_llama3_parameters;
  - the rotary classes' forward: inv_freq ⊗ positions, cos and sin, times the attention factor, all in float32
    ("# Force float32", models/llama/modeling_llama.py LlamaRotaryEmbedding.forward), then cast to the model's
    dtype, except where a family keeps them in float32;
  - the apply functions, per family:
      llama, smollm3, minimax_m2, qwen3_next (rotate_half on the rotary part, the rest passed through:
      models/llama/modeling_llama.py apply_rotary_pos_emb, models/glm4_moe/modeling_glm4_moe.py
      apply_rotary_pos_emb for the partial heads);
      deepseek_v3 and kimi_k2 (models/deepseek_v3/modeling_deepseek_v3.py apply_rotary_pos_emb_interleave:
      q viewed as (d/2, 2), transposed and reshaped, so that pair (2i, 2i+1) moves to (i, i + d/2), then
      rotate_half; q = cat(q_nope, q_pe) with the RoPE part last);
      ernie4_5 (models/ernie4_5/modeling_ernie4_5.py apply_rotary_pos_emb: cos and sin of the first half
      repeat_interleave'd, rotate_half of (2i, 2i+1), computed in float32 and cast back);
      cohere (models/cohere/modeling_cohere.py: freqs repeat_interleave'd, interleaved pairs, q.float(), cast back);
  - OLMo 3 (models/olmo3/modular_olmo3.py Olmo3Model.rotary_embs, as transformers PR #45945 restored it):
    sliding layers the default RoPE at rope_theta, full layers the config's YaRN;
  - Gemma 4 (models/gemma4/configuration_gemma4.py Gemma4TextConfig, modeling_rope_utils.py
    _compute_proportional_rope_parameters): full layers global_head_dim 512, proportional, the first
    int(0.25·512 // 2) = 64 pairs at 1e6^(−2j/512), the other 192 at frequency 0; sliding layers head_dim 256, 1e4;
  - multi-axis text RoPE of vision-language models, run with vision positions (t, h, w differ), read at the
    commits named (paths under src/transformers/models/):
      glm4v (GLM-4.1V, glm4v/modeling_glm4v.py at 03eac6f6d2af, Glm4vTextRotaryEmbedding and
      apply_multimodal_rotary_pos_emb): cos and sin cast to the model's dtype, split by mrope_section · 2, chunk i
      taking axis i mod 3 (pairs j < s_t time, then height, then width), the first half repeat_interleave'd,
      rotate_half_llm on the pairs (2j, 2j+1) of the rotary part, the rest passed through;
      glm4v_moe (GLM-4.5V, glm4v_moe/modeling_glm4v_moe.py at e78010218c7f apply_multimodal_rotary_pos_emb): the
      same chunked map with rotate_half (pairs (j, j + r/2)) on the rotary part; Glm4vMoeTextConfig's
      partial_rotary_factor 0.5 when the key is absent;
      qwen3_5 (Qwen3.5, qwen3_5/modeling_qwen3_5.py at d8c1e2844cbf Qwen3_5TextRotaryEmbedding.apply_interleaved_mrope,
      whatever mrope_interleaved says, mrope_section default [11, 11, 10]; configuration_qwen3_5.py at 8116e632367
      partial_rotary_factor 0.25, head_dim 256, layer_types every 4th full; the linear-attention layers have none);
  - AFMoE (afmoe/modeling_afmoe.py at 0205eec1d869 AfmoeAttention.forward: RoPE only where the layer slides;
    afmoe/configuration_afmoe.py at 053f59efe493: head_dim 128 and global_attn_every_n_layers 4 when absent;
    AfmoeRotaryEmbedding: rotate_half, cos and sin cast to the dtype);
  - class defaults (the config omits the key): rope_theta of SmolLM3Config 2e6, MiniMaxM2Config 5e6,
    Ernie4_5Config 5e5, CohereConfig 5e5; partial_rotary_factor of Glm4MoeConfig 0.5 and Qwen3NextConfig 0.25;
    rope_interleave of DeepseekV3Config true; HunYuan's NTK-α (models/hunyuan_v1_dense/modeling_hunyuan_v1_dense.py:
    base · α^(d / (d − 2))).

Usage: hf_families.py OUT_DIR   writes OUT_DIR/<case>/{config.json,q.npy,q_rope.npy,positions.npy} and
OUT_DIR/manifest.json: per case the files, the expected verdict, θ and the attention factor HF computes, and the
factor its attention puts on the softmax scale (null: none); freq_theta: the rotary class's inv_freq before any
sequence where the dump's differ (HunYuan past max_position_embeddings: the dynamic update's).
"""
import json
import math
import os
import sys

import numpy as np

F32 = np.float32
SEED = 20260413
HEADS = 2
# Positions: the first 40, then far ones (HF's float32 positions hold every integer below 2^24 exactly).
POSITIONS = np.array(list(range(40)) + [511, 4095, 4096, 8191, 32767, 65535, 131071, 163839], dtype=np.int64)


# Vision tokens for the multi-axis cases: an image's tokens share t, and h, w are their row and column (HF
# get_rope_index); here every index gets its own (t, h, w), t the position above, h and w small and different.
AXIS_POSITIONS = np.stack([POSITIONS, POSITIONS // 7 + 3, POSITIONS % 13 + 1], axis=1)  # [seq, 3]


def pair_axes(order, sections, pairs):
    """The axis (0 t, 1 h, 2 w) each pair reads: chunked (apply_multimodal_rotary_pos_emb's split by mrope_section,
    chunk i taking axis i mod 3) or interleaved (apply_interleaved_mrope: j mod 3 = 1 below 3·s_h is h, j mod 3 = 2
    below 3·s_w is w, the rest t)."""
    if order == "chunked":
        assert sum(sections) == pairs, (sections, pairs)
        return np.concatenate([np.full(s, k) for k, s in enumerate(sections)]).astype(np.int64)
    a = np.zeros(pairs, dtype=np.int64)
    for k in (1, 2):
        a[k:sections[k] * 3:3] = k
    return a


def default_inv_freq(base, dim):
    return (F32(1.0) / (F32(base) ** (np.arange(0, dim, 2, dtype=np.int64).astype(F32) / F32(dim)))).astype(F32)


def yarn_inv_freq(base, dim, rp, max_pos):
    factor = rp.get("factor")
    original = rp.get("original_max_position_embeddings", max_pos)
    if factor is None:
        factor = max_pos / original
    mscale, mscale_all = rp.get("mscale"), rp.get("mscale_all_dim")

    def get_mscale(scale, m=1.0):
        return 1.0 if scale <= 1 else 0.1 * m * math.log(scale) + 1.0
    attn = rp.get("attention_factor")
    if attn is None:
        attn = get_mscale(factor, mscale) / get_mscale(factor, mscale_all) if mscale and mscale_all else get_mscale(factor)
    beta_fast, beta_slow = rp.get("beta_fast") or 32, rp.get("beta_slow") or 1

    def corr(rot):
        return (dim * math.log(original / (rot * 2 * math.pi))) / (2 * math.log(base))
    low, high = corr(beta_fast), corr(beta_slow)
    if rp.get("truncate", True):  # find_correction_range: floor and ceil unless truncate is False (GPT-OSS)
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001
    ramp = np.clip((np.arange(dim // 2, dtype=F32) - F32(low)) / F32(high - low), 0, 1).astype(F32)
    extrapolation = (F32(1) - ramp).astype(F32)
    pos = (F32(base) ** (np.arange(0, dim, 2).astype(F32) / F32(dim))).astype(F32)
    inter, extra = (F32(1) / (F32(factor) * pos)).astype(F32), (F32(1) / pos).astype(F32)
    inv = (inter * (F32(1) - extrapolation) + extra * extrapolation).astype(F32)
    return inv, attn


def llama3_inv_freq(base, dim, rp):
    inv = default_inv_freq(base, dim)
    f, lf, hf, l0 = rp["factor"], rp["low_freq_factor"], rp["high_freq_factor"], rp["original_max_position_embeddings"]
    low_wl, high_wl = l0 / lf, l0 / hf
    wl = F32(2 * math.pi) / inv
    out = np.where(wl > low_wl, inv / F32(f), inv).astype(F32)
    smooth = ((F32(l0) / wl - F32(lf)) / F32(hf - lf)).astype(F32)
    smoothed = ((F32(1) - smooth) * out / F32(f) + smooth * out).astype(F32)
    medium = ~(wl < high_wl) & ~(wl > low_wl)
    return np.where(medium, smoothed, out).astype(F32)


# Each case: the config.json (keys omitted where the class default is tested), the dump's head dim, and how
# the family's code applies RoPE.
CASES = [
    dict(name="llama31_f64", config=dict(
        model_type="llama", hidden_size=4096, num_attention_heads=32, max_position_embeddings=131072, rope_theta=500000.0,
        rope_scaling=dict(rope_type="llama3", factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                          original_max_position_embeddings=8192)), apply="half", theta=500000.0, head=128),
    dict(name="deepseek_v3_q_pe_f64", config=dict(
        model_type="deepseek_v3", hidden_size=7168, num_attention_heads=128, max_position_embeddings=163840,
        qk_nope_head_dim=128, qk_rope_head_dim=64, rope_theta=10000,
        rope_scaling=dict(type="yarn", factor=40, beta_fast=32, beta_slow=1, mscale=1.0, mscale_all_dim=1.0,
                          original_max_position_embeddings=4096)), apply="deinterleave", theta=10000.0, head=64, rot=64),
    dict(name="deepseek_v3_q_f64", like="deepseek_v3_q_pe_f64", apply="deinterleave", theta=10000.0, head=192, rot=64,
         offset=128),
    dict(name="deepseek_v3_q_pe_bf16", like="deepseek_v3_q_pe_f64", apply="deinterleave", theta=10000.0, head=64,
         rot=64, dtype="bf16"),
    # Kimi K2-0905: β_fast = β_slow = 1, the ramp a hard cut; model_type kimi_k2 runs DeepSeek-V3's code.
    dict(name="kimi_k2_f64", config=dict(
        model_type="kimi_k2", hidden_size=7168, num_attention_heads=64, max_position_embeddings=262144,
        qk_nope_head_dim=128, qk_rope_head_dim=64, rope_theta=50000.0,
        rope_scaling=dict(type="yarn", factor=64.0, beta_fast=1.0, beta_slow=1.0, mscale=1.0, mscale_all_dim=1.0,
                          original_max_position_embeddings=4096)), apply="deinterleave", theta=50000.0, head=64, rot=64),
    # GLM-4.5: partial_rotary_factor omitted, Glm4MoeConfig's 0.5.
    dict(name="glm4_moe_default_partial_f64", config=dict(
        model_type="glm4_moe", hidden_size=5120, num_attention_heads=96, head_dim=128, max_position_embeddings=131072,
        rope_theta=1000000), apply="half", theta=1e6, head=128, rot=64),
    # Qwen3-Next: partial_rotary_factor omitted, 0.25; its full-attention layers.
    dict(name="qwen3_next_default_partial_f64", config=dict(
        model_type="qwen3_next", hidden_size=2048, num_attention_heads=16, head_dim=256,
        max_position_embeddings=262144, rope_theta=10000000), apply="half", theta=1e7, head=256, rot=64,
         flags=["--layer-type", "full_attention"]),
    # Every RoPE key and head_dim omitted (issue 32's audit): the class's own block, class_rp, transcribed from the
    # config class's __post_init__ (models/gpt_oss/configuration_gpt_oss.py GptOssConfig: yarn, factor 32, beta 32 / 1,
    # truncate False, L0 4096, θ default_theta 150000, head_dim 64; GPT-OSS's _apply_rotary_emb splits the head in
    # halves, as rotate_half).
    dict(name="gpt_oss_class_defaults_f64", config=dict(
        model_type="gpt_oss", hidden_size=2880, num_attention_heads=64, max_position_embeddings=131072),
         class_rp=dict(rope_type="yarn", factor=32.0, beta_fast=32.0, beta_slow=1.0, truncate=False,
                       original_max_position_embeddings=4096), apply="half", theta=150000.0, head=64),
    dict(name="gpt_oss_class_defaults_bf16", like="gpt_oss_class_defaults_f64",
         class_rp=dict(rope_type="yarn", factor=32.0, beta_fast=32.0, beta_slow=1.0, truncate=False,
                       original_max_position_embeddings=4096), apply="half", theta=150000.0, head=64, dtype="bf16"),
    # models/ministral3/configuration_ministral3.py Ministral3Config: head_dim 128, yarn θ 1e6, factor 16 from 16384,
    # beta 32 / 1, mscale = mscale_all_dim = 1, llama_4_scaling_beta 0.1; a key dump (no query scaling).
    dict(name="ministral3_class_defaults_f64", config=dict(
        model_type="ministral3", hidden_size=3072, num_attention_heads=32, max_position_embeddings=262144),
         class_rp=dict(rope_type="yarn", rope_theta=1000000.0, factor=16.0, original_max_position_embeddings=16384,
                       beta_fast=32.0, beta_slow=1.0, mscale_all_dim=1.0, mscale=1.0, llama_4_scaling_beta=0.1),
         apply="half", theta=1e6, head=128),
    # Mistral 4 (models/mistral4/configuration_mistral4.py Mistral4Config.__post_init__: head_dim = qk_nope + qk_rope
    # = 128, partial_rotary_factor 0.5 of it; LlamaRotaryEmbedding: dim = int(128 · 0.5) = 64, the yarn ramp over 64;
    # apply_rotary_pos_emb_interleave on q_pe, the last 64 channels).
    dict(name="mistral4_partial_of_qk_head_f64", config=dict(
        model_type="mistral4", hidden_size=4096, num_attention_heads=32, qk_rope_head_dim=64, qk_nope_head_dim=64,
        max_position_embeddings=1048576,
        rope_parameters=dict(rope_type="yarn", rope_theta=10000.0, factor=128.0, original_max_position_embeddings=8192,
                             beta_fast=32.0, beta_slow=1.0, mscale=1.0, mscale_all_dim=1.0, llama_4_scaling_beta=0.1,
                             partial_rotary_factor=0.5)),
         apply="deinterleave", theta=10000.0, head=64, rot=64),
    # A top-level original_max_position_embeddings (2048) and the block's (8192): the top level wins.
    dict(name="llama_yarn_top_level_l0_f64", config=dict(
        model_type="llama", hidden_size=4096, num_attention_heads=32, max_position_embeddings=32768,
        original_max_position_embeddings=2048, rope_theta=10000.0,
        rope_scaling=dict(rope_type="yarn", factor=4.0, original_max_position_embeddings=8192)),
         apply="half", theta=10000.0, head=128),
    # Class-default θ.
    dict(name="smollm3_default_theta_f64", config=dict(
        model_type="smollm3", hidden_size=2048, num_attention_heads=16, max_position_embeddings=65536),
         apply="half", theta=2e6, head=128, flags=["--layer-type", "0"]),
    dict(name="minimax_m2_default_theta_f64", config=dict(
        model_type="minimax_m2", hidden_size=3072, num_attention_heads=48, head_dim=128,
        max_position_embeddings=196608), apply="half", theta=5e6, head=128),
    dict(name="ernie4_5_default_theta_f64", config=dict(
        model_type="ernie4_5", hidden_size=1024, num_attention_heads=16, head_dim=128, max_position_embeddings=131072),
         apply="ernie", theta=5e5, head=128),
    dict(name="cohere_default_theta_f64", config=dict(
        model_type="cohere", hidden_size=8192, num_attention_heads=64, max_position_embeddings=131072),
         apply="cohere", theta=5e5, head=128),
    # HunYuan: rope_scaling {type: dynamic, alpha}: NTK-α, base · α^(d/(d−2)).
    dict(name="hunyuan_ntk_alpha_f64", config=dict(
        model_type="hunyuan_v1_dense", hidden_size=4096, num_attention_heads=32, head_dim=128,
        max_position_embeddings=262144, rope_theta=10000.0, rope_scaling=dict(type="dynamic", alpha=1000.0, factor=1.0)),
         apply="half", theta=10000.0 * 1000.0 ** (128 / 126), head=128),
    # HunYuan past max_position_embeddings (32768, Hunyuan-A13B's): its forward keeps @dynamic_rope_update
    # (modeling_rope_utils.py dynamic_frequency_update), so seq_len = max(position) + 1 = 163840 > M recomputes
    # _compute_dynamic_ntk_parameters: θ·(f·L/M − (f−1))^(d/(d−2)) = 1e4·5^(128/126), α dropped.
    dict(name="hunyuan_past_max_position_f64", config=dict(
        model_type="hunyuan_v1_dense", hidden_size=4096, num_attention_heads=32, head_dim=128,
        max_position_embeddings=32768, rope_theta=10000.0, rope_scaling=dict(type="dynamic", alpha=1000.0, factor=1.0)),
         apply="half", theta=10000.0 * (163840 / 32768) ** (128 / 126), init_theta=10000.0 * 1000.0 ** (128 / 126),
         head=128),
    # HunyuanVL (configuration_hunyuan_vl.py @ 3aae4b5e4a HunYuanVLTextConfig._normalize_rope_parameters): rope_type
    # xdrope is read as dynamic, so NTK-α's base θ·α^(d/(d−2)) (modular_hunyuan_vl.py @ 17963211f4 _init_weights);
    # a block without rope_type is default, α unused. Text tokens: one position on every XD-RoPE stream; M = 262144 as
    # above, since text positions past M take the dynamic update (HunYuanDenseV1RotaryEmbedding).
    dict(name="hunyuan_vl_xdrope_alpha_f64", config=dict(
        model_type="hunyuan_vl", hidden_size=1024, num_attention_heads=8, head_dim=128,
        max_position_embeddings=262144, rope_theta=10000.0,
        rope_scaling=dict(type="xdrope", alpha=1000.0, factor=1.0, xdrope_section=[16, 16, 16, 16])),
         apply="half", theta=10000.0 * 1000.0 ** (128 / 126), head=128),
    dict(name="hunyuan_vl_no_rope_type_f64", config=dict(
        model_type="hunyuan_vl", hidden_size=1024, num_attention_heads=8, head_dim=128,
        max_position_embeddings=32768, rope_theta=10000.0,
        rope_scaling=dict(alpha=1000.0, xdrope_section=[0.25, 0.25, 0.25, 0.25])),
         apply="half", theta=10000.0, head=128),
    # Gemma 4 ignores rope_scaling and a top-level rope_theta (Gemma4TextConfig.convert_rope_params_to_dict at
    # 351f643ab9f5 returns the keys untouched): the class's proportional RoPE at 1e6 on the full layers.
    dict(name="gemma4_rope_scaling_ignored_f64", config=dict(
        model_type="gemma4_text", num_hidden_layers=6, rope_theta=5000.0,
        rope_scaling=dict(rope_type="linear", factor=8.0)),
         apply="half", kind="proportional", theta=1e6, head=512, flags=["--layer-type", "full_attention"]),
    # MLA head dims omitted: DeepseekV3Config's qk_rope 64 and qk_nope 128 (configuration_deepseek_v3.py at
    # 0fc683d1cd94), Mistral4Config's 64 and 64 (configuration_mistral4.py at 454194bd240b, partial 0.5 of 128).
    dict(name="deepseek_v3_class_mla_dims_f64", config=dict(
        model_type="deepseek_v3", hidden_size=7168, num_attention_heads=128, max_position_embeddings=163840),
         apply="deinterleave", theta=10000.0, head=192, rot=64, offset=128),
    dict(name="mistral4_class_mla_dims_f64", config=dict(
        model_type="mistral4", hidden_size=4096, num_attention_heads=32, max_position_embeddings=1048576,
        rope_parameters=dict(rope_type="default", rope_theta=10000.0, partial_rotary_factor=0.5)),
         apply="deinterleave", theta=10000.0, head=128, rot=64, offset=64),
    # OLMo 3 (modular_olmo3.py Olmo3Model.rotary_embs, transformers PR #45945): YaRN on the full layers only.
    dict(name="olmo3_full_yarn_f64", config=dict(
        model_type="olmo3", hidden_size=5120, num_attention_heads=40, max_position_embeddings=65536,
        rope_theta=500000, rope_scaling=dict(rope_type="yarn", factor=8.0, original_max_position_embeddings=8192,
                                             beta_fast=32, beta_slow=1, attention_factor=1.2079441541679836),
        layer_types=["sliding_attention"] * 3 + ["full_attention"]), apply="half", theta=500000.0, head=128,
         flags=["--layer-type", "3"]),
    dict(name="olmo3_sliding_unscaled_f64", like="olmo3_full_yarn_f64", apply="half", theta=500000.0, head=128,
         unscaled=True, flags=["--layer-type", "0"]),
    # Gemma 4 with every RoPE key omitted: Gemma4TextConfig's rope_parameters, head_dim and global_head_dim.
    dict(name="gemma4_full_proportional_f64", config=dict(
        model_type="gemma4", text_config=dict(model_type="gemma4_text", num_hidden_layers=6)),
         apply="half", kind="proportional", theta=1e6, head=512, flags=["--layer-type", "full_attention"]),
    dict(name="gemma4_sliding_f64", like="gemma4_full_proportional_f64", apply="half", theta=1e4, head=256,
         kind="default", flags=["--layer-type", "sliding_attention"]),
    # The presets of data/models/ (data/models/README.md [26]–[32]), read through `--model NAME`, one case per layer
    # kind: the layer's RoPE as its family's code computes it, or the dump unchanged where the layer has none.
    # Command A (cohere2): RoPE only where sliding_window is set (modeling_cohere2.py Cohere2Attention.forward),
    # layers (i + 1) % 4 != 0 slide (configuration_cohere2.py layer_types); interleaved as Cohere.
    dict(name="preset_command_a_sliding_f64", preset="command-a-03-2025", apply="cohere", theta=50000.0, head=128,
         flags=["--layer-type", "0"]),
    dict(name="preset_command_a_full_nope_f64", preset="command-a-03-2025", apply="none", head=128,
         flags=["--layer-type", "3"]),
    # Qwen3-Next 80B-A3B: full attention every 4th layer (full_attention_interval), 64 of 256 channels at 1e7;
    # the linear-attention layers have no RoPE (modeling_qwen3_next.py Qwen3NextDecoderLayer).
    dict(name="preset_qwen3_next_full_f64", preset="qwen3-next-80b-a3b", apply="half", theta=1e7, head=256, rot=64,
         flags=["--layer-type", "3"]),
    dict(name="preset_qwen3_next_linear_nope_f64", preset="qwen3-next-80b-a3b", apply="none", head=256,
         flags=["--layer-type", "0"]),
    # OLMo 3 7B: the config's YaRN on the full layers, the default RoPE at rope_theta on the sliding ones.
    dict(name="preset_olmo3_full_yarn_f64", preset="olmo-3-7b", apply="half", theta=500000.0, head=128,
         flags=["--layer-type", "3"]),
    dict(name="preset_olmo3_sliding_bf16", preset="olmo-3-7b", apply="half", theta=500000.0, head=128,
         unscaled=True, dtype="bf16", flags=["--layer-type", "0"]),
    # MiniMax-M2: rotary_dim 64 of head_dim 128 (configuration_minimax_m2.py convert_rope_params_to_dict at
    # transformers 3e108993: partial_rotary_factor = rotary_dim / head_dim), rotate_half on the first 64 channels.
    dict(name="preset_minimax_m2_f64", preset="minimax-m2", apply="half", theta=5e6, head=128, rot=64),
    # EXAONE 4.0 32B: llama3 f=16 on the sliding layers; the full layers NoPE while sliding_window is set.
    dict(name="preset_exaone4_sliding_f64", preset="exaone-4.0-32b", apply="half", theta=1e6, head=128,
         flags=["--layer-type", "0"]),
    dict(name="preset_exaone4_full_nope_f64", preset="exaone-4.0-32b", apply="none", head=128,
         flags=["--layer-type", "3"]),
    # Gemma 4 26B-A4B: layer 5 full (head 512, proportional), layer 0 sliding (head 256, 1e4).
    dict(name="preset_gemma4_full_f64", preset="gemma-4-26b-a4b", apply="half", kind="proportional", theta=1e6,
         head=512, flags=["--layer-type", "5"]),
    dict(name="preset_gemma4_sliding_bf16", preset="gemma-4-26b-a4b", apply="half", kind="default", theta=1e4,
         head=256, dtype="bf16", flags=["--layer-type", "0"]),
    # SmolLM3 3B: no_rope_layers [1, 1, 1, 0, …]: layer 3 NoPE, layer 0 RoPE at 5e6 (modeling_smollm3.py use_rope).
    dict(name="preset_smollm3_rope_f64", preset="smollm3-3b", apply="half", theta=5e6, head=128,
         flags=["--layer-type", "0"]),
    dict(name="preset_smollm3_nope_f64", preset="smollm3-3b", apply="none", head=128, flags=["--layer-type", "3"]),
    # A planted bug: RoPE applied in a NoPE layer; check against that layer fails (the dump should be unchanged).
    dict(name="bug_smollm3_rope_in_nope_layer_f64", preset="smollm3-3b", apply="half", theta=5e6, head=128,
         flags=["--layer-type", "3"], nope_layer=True, exit=1),
    # The softmax scale (softmax_scale_value below): Gemma 2 without query_pre_attn_scalar (Gemma2Config's 256, not the
    # head's 128), Gemma 3 27B's 168 on a sliding layer (base 1e4), Granite's attention_multiplier.
    dict(name="gemma2_default_scalar_f64", config=dict(
        model_type="gemma2", hidden_size=3584, num_attention_heads=16, head_dim=128, max_position_embeddings=8192,
        rope_theta=10000.0), apply="half", theta=1e4, head=128),
    dict(name="gemma3_text_scalar_168_f64", config=dict(
        model_type="gemma3_text", hidden_size=5376, num_attention_heads=32, head_dim=128, num_hidden_layers=6,
        query_pre_attn_scalar=168, max_position_embeddings=131072), apply="half", theta=1e4, head=128,
         flags=["--layer-type", "sliding_attention"]),
    dict(name="granite_multiplier_f64", config=dict(
        model_type="granite", hidden_size=4096, num_attention_heads=32, max_position_embeddings=131072,
        rope_theta=10000000.0, attention_multiplier=0.0078125), apply="half", theta=1e7, head=128),
    # The presets of data/models/README.md [33]–[36]. GLM-4.5: 64 of 128 channels in half pairs at 1e6.
    dict(name="preset_glm45_f64", preset="glm-4.5", apply="half", theta=1e6, head=128, rot=64),
    dict(name="preset_glm45_bf16", preset="glm-4.5", apply="half", theta=1e6, head=128, rot=64, dtype="bf16"),
    # Kimi K2 Instruct: DeepSeek-V3's code (rope_interleave default true), yarn f=32 from 4096, β 1/1, at 5e4.
    dict(name="preset_kimi_k2_f64", preset="kimi-k2-instruct", apply="deinterleave", theta=50000.0, head=64, rot=64),
    # Qwen3.5 9B: its full-attention layer 3 with vision positions (interleaved sections), its linear layer 0 none.
    dict(name="preset_qwen3_5_full_f64", preset="qwen3.5-9b", apply="half", theta=1e7, head=256, rot=64,
         mrope=("interleaved", [11, 11, 10]), flags=["--layer-type", "3"]),
    dict(name="preset_qwen3_5_linear_nope_bf16", preset="qwen3.5-9b", apply="none", head=256,
         mrope=("interleaved", [11, 11, 10]), flags=["--layer-type", "0"], dtype="bf16"),
    # Devstral Small 2 (ministral3): yarn f=48 from 8192 at 1e8; a key dump, and a query dump with (S21), L0 8192.
    dict(name="preset_devstral_key_bf16", preset="devstral-small-2-24b", apply="half", theta=1e8, head=128,
         dtype="bf16"),
    dict(name="preset_devstral_query_f64", preset="devstral-small-2-24b", apply="half", theta=1e8, head=128,
         query_scaling=(0.1, 8192), flags=["--query"]),
    # ERNIE-4.5-VL (models/ernie4_5_vl_moe/modeling_ernie4_5_vl_moe.py at 4f2fa85af5eb, Ernie4_5_VL_MoeTextRotaryEmbedding
    # and apply_rotary_pos_emb): rope_theta and mrope_section omitted (Ernie4_5_VL_MoeTextConfig's 5e5, the code's
    # [22, 22, 20] as h, w, t), its 3-D code path run with text positions (m, m, m) first.
    dict(name="ernie4_5_vl_3d_f64", config=dict(
        model_type="ernie4_5_vl_moe", text_config=dict(model_type="ernie4_5_vl_moe_text", hidden_size=2560,
                                                      num_attention_heads=20, max_position_embeddings=131072,
                                                      rope_parameters=dict(rope_type="default"))),
         apply="ernie_vl", theta=5e5, head=128, sections=[22, 22, 20]),
    dict(name="ernie4_5_vl_3d_bf16", like="ernie4_5_vl_3d_f64", apply="ernie_vl", theta=5e5, head=128,
         sections=[22, 22, 20], dtype="bf16"),
    # The same code with vision positions (t, h, w differ): (A8) of docs/multi-axis.md, pairs 0-43 alternate h and w,
    # 44-63 turn with t; and a config that gives the sections ([16, 16, 32] of a hypothetical model: 16 pairs each
    # of h and w, 32 of t).
    dict(name="ernie4_5_vl_3d_vision_f64", like="ernie4_5_vl_3d_f64", apply="ernie_vl", theta=5e5, head=128,
         sections=[22, 22, 20], vision=True),
    dict(name="ernie4_5_vl_3d_vision_bf16", like="ernie4_5_vl_3d_f64", apply="ernie_vl", theta=5e5, head=128,
         sections=[22, 22, 20], vision=True, dtype="bf16"),
    dict(name="ernie4_5_vl_3d_sections_f64", config=dict(
        model_type="ernie4_5_vl_moe", text_config=dict(model_type="ernie4_5_vl_moe_text", hidden_size=2560,
                                                      num_attention_heads=20, max_position_embeddings=131072,
                                                      rope_parameters=dict(rope_type="default", rope_theta=500000.0,
                                                                           mrope_section=[16, 16, 32]))),
         apply="ernie_vl", theta=5e5, head=128, sections=[16, 16, 32], vision=True),
    # Any other rope_type: Ernie4_5_VL_MoeTextRotaryEmbedding.__init__ (modeling_ernie4_5_vl_moe.py:66-69 at
    # 4f2fa85af5eb) raises a ValueError, so HF computes nothing: a YaRN block, a legacy rope_scaling of type mrope
    # (Qwen2-VL's config class renames that to default, ERNIE's does not) and a linear one are refused.
    dict(name="ernie4_5_vl_yarn_refused", config=dict(
        model_type="ernie4_5_vl_moe", text_config=dict(model_type="ernie4_5_vl_moe_text", hidden_size=2560,
                                                      num_attention_heads=20, max_position_embeddings=131072,
                                                      rope_parameters=dict(rope_type="yarn", factor=4.0,
                                                                           original_max_position_embeddings=32768))),
         apply="ernie_vl", theta=5e5, head=128, sections=[22, 22, 20]),
    dict(name="ernie4_5_vl_legacy_mrope_refused", config=dict(
        model_type="ernie4_5_vl_moe_text", hidden_size=2560, num_attention_heads=20,
        rope_scaling=dict(type="mrope", mrope_section=[22, 22, 20])),
         apply="ernie_vl", theta=5e5, head=128, sections=[22, 22, 20]),
    dict(name="ernie4_5_vl_linear_refused", config=dict(
        model_type="ernie4_5_vl_moe_text", hidden_size=2560, num_attention_heads=20,
        rope_parameters=dict(rope_type="linear", factor=2.0)),
         apply="ernie_vl", theta=5e5, head=128, sections=[22, 22, 20]),
    # GLM (dense, models/glm/modeling_glm.py apply_rotary_pos_emb, read at b39782da06db): partial_rotary_factor
    # omitted (GlmConfig's 0.5), cos and sin cast to the model's dtype, their first half repeat_interleave'd,
    # rotate_half on the pairs (2i, 2i+1) of the first 64 channels, the rest passed through.
    dict(name="glm_default_partial_f64", config=dict(
        model_type="glm", hidden_size=4096, num_attention_heads=32, head_dim=128, max_position_embeddings=131072,
        rope_theta=10000.0), apply="glm", theta=10000.0, head=128, rot=64),
    dict(name="glm_default_partial_bf16", like="glm_default_partial_f64", apply="glm", theta=10000.0, head=128, rot=64,
         dtype="bf16"),
    # Ministral 3 (v5 rope_parameters: yarn f=16 from 16384, mscale = mscale_all_dim = 1, llama_4_scaling_beta 0.1):
    # a key dump, which the query scaling (S21) leaves alone: RoPE alone, at positions past 16384 too.
    dict(name="ministral3_key_f64", config=dict(
        model_type="mistral3", text_config=dict(
            model_type="ministral3", head_dim=128, hidden_size=5120, num_attention_heads=32,
            max_position_embeddings=262144,
            rope_parameters=dict(rope_type="yarn", factor=16.0, original_max_position_embeddings=16384, beta_fast=32.0,
                                 beta_slow=1.0, mscale=1.0, mscale_all_dim=1.0, llama_4_scaling_beta=0.1,
                                 rope_theta=1000000.0))), apply="half", theta=1e6, head=128),
    # The same model's query dump: HF get_llama_4_attn_scale (models/ministral3/modeling_ministral3.py, after transformers
    # PR #44860: from the position ids) multiplies q after RoPE by 1 + β·ln(1 + ⌊p / L0⌋), in float32, cast to q's
    # dtype; `rope check --query` expects it (1.2773 at 262143; the dump's far positions reach 163839: 1.2303).
    dict(name="ministral3_query_f64", like="ministral3_key_f64", apply="half", theta=1e6, head=128,
         query_scaling=(0.1, 16384), flags=["--query"]),
    dict(name="ministral3_query_bf16", like="ministral3_key_f64", apply="half", theta=1e6, head=128,
         query_scaling=(0.1, 16384), flags=["--query"], dtype="bf16"),
    # A planted bug: the query scaling forgotten; check --query fails at the positions past L0.
    dict(name="bug_ministral3_query_unscaled_f64", like="ministral3_key_f64", apply="half", theta=1e6, head=128,
         flags=["--query"], exit=1),
    # Llama 4 Scout's NoPE layer 3 (no_rope_layers [], interval 4; models/llama4/modeling_llama4.py
    # Llama4TextAttention.forward): keys as projected; queries times attn_scales = log1p(floor((cache_position + 1) /
    # floor_scale)) · attn_scale + 1 in float32 (defaults 8192 and 0.1), the product in q's promoted type.
    dict(name="llama4_nope_key_f64", preset="llama-4-scout-17b-16e", apply="none", head=128, flags=["--layer-type", "3"]),
    dict(name="llama4_nope_query_f64", preset="llama-4-scout-17b-16e", apply="none", head=128, temperature=(0.1, 8192),
         flags=["--layer-type", "3", "--query"]),
    dict(name="llama4_nope_query_bf16", preset="llama-4-scout-17b-16e", apply="none", head=128, temperature=(0.1, 8192),
         flags=["--layer-type", "3", "--query"], dtype="bf16"),
    # AFMoE (Trinity): RoPE on the sliding layers only, the full layers (every 4th) NoPE.
    dict(name="afmoe_sliding_f64", config=dict(
        model_type="afmoe", hidden_size=2048, num_attention_heads=32, head_dim=128, num_hidden_layers=8,
        global_attn_every_n_layers=4, sliding_window=2048, rope_theta=10000.0, max_position_embeddings=131072),
         apply="half", theta=1e4, head=128, flags=["--layer-type", "0"]),
    dict(name="afmoe_full_nope_f64", like="afmoe_sliding_f64", apply="none", head=128, flags=["--layer-type", "3"]),
    # head_dim and rope_theta omitted: AfmoeConfig's 128 (not hidden_size / heads = 192) and 10000.
    dict(name="afmoe_default_head_dim_bf16", config=dict(
        model_type="afmoe", hidden_size=3072, num_attention_heads=16, num_hidden_layers=4,
        max_position_embeddings=131072), apply="half", theta=1e4, head=128, dtype="bf16",
         flags=["--layer-type", "sliding_attention"]),
    # GLM-4.1V: interleaved pairs, mrope_section [8, 12, 12] chunked over the 32 pairs of 64 rotary channels.
    dict(name="glm4v_vision_f64", config=dict(
        model_type="glm4v", text_config=dict(
            model_type="glm4v_text", hidden_size=4096, num_attention_heads=32, partial_rotary_factor=0.5,
            rope_theta=10000.0, max_position_embeddings=65536,
            rope_scaling=dict(type="default", mrope_section=[8, 12, 12])), vision_config=dict(model_type="glm4v")),
         apply="glm", theta=1e4, head=128, rot=64, mrope=("chunked", [8, 12, 12])),
    dict(name="glm4v_vision_bf16", like="glm4v_vision_f64", apply="glm", theta=1e4, head=128, rot=64,
         mrope=("chunked", [8, 12, 12]), dtype="bf16"),
    # GLM-4.5V: partial_rotary_factor omitted (Glm4vMoeTextConfig's 0.5), half pairs, the same sections.
    dict(name="glm4v_moe_vision_f64", config=dict(
        model_type="glm4v_moe", text_config=dict(
            model_type="glm4v_moe_text", hidden_size=4096, num_attention_heads=96, head_dim=128,
            rope_theta=10000.0, max_position_embeddings=65536,
            rope_scaling=dict(rope_type="default", mrope_section=[8, 12, 12])), vision_config=dict(model_type="glm4v_moe")),
         apply="half", theta=1e4, head=128, rot=64, mrope=("chunked", [8, 12, 12])),
    dict(name="glm4v_moe_vision_bf16", like="glm4v_moe_vision_f64", apply="half", theta=1e4, head=128, rot=64,
         mrope=("chunked", [8, 12, 12]), dtype="bf16"),
    # Qwen3.5: 64 of 256 channels at 1e7, sections interleaved (the key says so here); layer 3 full, 0 linear.
    dict(name="qwen3_5_vision_f64", config=dict(
        model_type="qwen3_5", text_config=dict(
            model_type="qwen3_5_text", hidden_size=4096, num_attention_heads=16, head_dim=256, num_hidden_layers=8,
            max_position_embeddings=262144, full_attention_interval=4,
            rope_parameters=dict(rope_type="default", rope_theta=10000000, partial_rotary_factor=0.25,
                                 mrope_section=[11, 11, 10], mrope_interleaved=True))),
         apply="half", theta=1e7, head=256, rot=64, mrope=("interleaved", [11, 11, 10]), flags=["--layer-type", "3"]),
    dict(name="qwen3_5_linear_nope_f64", like="qwen3_5_vision_f64", apply="none", head=256, mrope=("interleaved", [11, 11, 10]),
         flags=["--layer-type", "0"]),
    # Without mrope_interleaved, partial_rotary_factor and head_dim: the code interleaves anyway, the class gives
    # 0.25 of 256.
    dict(name="qwen3_5_interleaved_by_family_bf16", config=dict(
        model_type="qwen3_5", text_config=dict(
            model_type="qwen3_5_text", hidden_size=2048, num_attention_heads=16, num_hidden_layers=4,
            max_position_embeddings=262144,
            rope_parameters=dict(rope_type="default", rope_theta=10000000, mrope_section=[11, 11, 10]))),
         apply="half", theta=1e7, head=256, rot=64, mrope=("interleaved", [11, 11, 10]), dtype="bf16",
         flags=["--layer-type", "full_attention"]),
    # Kimi K2 without qk_rope_head_dim and qk_nope_head_dim: its own configuration_deepseek.py (the config's auto_map;
    # alibaba/rtp-llm rtp_llm/test/model_test/fake_test/testdata/kimi_k2/tokenizer/configuration_deepseek.py at
    # be512b9420495f9994f961a94da24d0405aa4d70, "Copy from" DeepSeek-V3's) defaults them to 64 and 128: q =
    # cat(q_nope, q_pe) 192 wide, the last 64 rotated as DeepSeek-V3's code does (its modeling file has no public copy;
    # models/deepseek_v3/modeling_deepseek_v3.py stands in, as for the preset above).
    dict(name="kimi_k2_class_mla_dims_f64", config=dict(
        model_type="kimi_k2", hidden_size=7168, num_attention_heads=64, max_position_embeddings=131072,
        rope_theta=50000.0, rope_scaling=dict(type="yarn", factor=32.0, beta_fast=1.0, beta_slow=1.0, mscale=1.0,
                                              mscale_all_dim=1.0, original_max_position_embeddings=4096)),
         apply="deinterleave", theta=50000.0, head=192, rot=64, offset=128),
    # Qwen3-Next with legacy layer_types names: Qwen3NextConfig.__post_init__ (configuration_qwen3_next.py at
    # 008e574391258935f3ecc3035c882e73bbcac419) remaps them (configuration_utils.py remap_legacy_layer_types: "mamba"
    # -> "linear_attention", "attention" -> "full_attention"): layer 0 has no RoPE, layer 3 rotates 64 of 256 channels.
    dict(name="qwen3_next_legacy_mamba_nope_f64", config=dict(
        model_type="qwen3_next", hidden_size=2048, num_attention_heads=16, head_dim=256, max_position_embeddings=262144,
        rope_theta=10000000, layer_types=["mamba", "mamba", "mamba", "attention"]), apply="none", head=256,
         flags=["--layer-type", "0"]),
    dict(name="qwen3_next_legacy_attention_f64", like="qwen3_next_legacy_mamba_nope_f64", apply="half", theta=1e7,
         head=256, rot=64, flags=["--layer-type", "3"]),
    # A planted bug still named under the float32 angle model: positions shifted by one.
    dict(name="bug_llama31_plus_one_f64", like="llama31_f64", apply="half", theta=500000.0, head=128, shift=1,
         exit=1, matches="positions-plus-one"),
]


MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "models")


def case_config(case):
    if "config" in case:
        return case["config"]
    if "preset" in case:  # the preset's file without its `_rope_preset` key; the text config of a nested one
        with open(os.path.join(MODELS, case["preset"] + ".json"), encoding="utf-8") as f:
            cfg = {k: v for k, v in json.load(f).items() if k != "_rope_preset"}
        return cfg
    return next(c for c in CASES if c["name"] == case["like"])["config"]


def text_config(cfg):
    return cfg.get("text_config", cfg)


def hf_inv_freq(case):
    cfg = text_config(case_config(case))
    rot = case.get("rot", case["head"])
    rp = cfg.get("rope_scaling") or cfg.get("rope_parameters") or case.get("class_rp") or {}
    kind = case.get("kind") or rp.get("rope_type", rp.get("type", "default"))
    if case.get("unscaled"):  # OLMo 3's sliding layers: rope_type "default" at rope_theta
        kind = "default"
    if kind == "proportional":  # _compute_proportional_rope_parameters: partial 0.25 of head_dim 512, the rest 0
        n = int(0.25 * rot // 2)
        inv = np.zeros(rot // 2, dtype=F32)
        inv[:n] = (F32(1.0) / (F32(case["theta"]) ** (np.arange(0, 2 * n, 2, dtype=np.int64).astype(F32) / F32(rot))))
        return inv.astype(F32), 1.0
    if kind == "yarn":
        # standardize_rope_params, called again by _compute_yarn_parameters once the config's keys are attributes:
        # a top-level original_max_position_embeddings replaces the block's (modeling_rope_utils.py, the newest main).
        if "original_max_position_embeddings" in cfg:
            rp = dict(rp, original_max_position_embeddings=cfg["original_max_position_embeddings"])
        return yarn_inv_freq(case["theta"], rot, rp, cfg["max_position_embeddings"])
    if kind == "llama3":
        return llama3_inv_freq(case["theta"], rot, rp), 1.0
    return default_inv_freq(case["theta"], rot), 1.0


# The attention's softmax scale, outside RoPE: HF's yarn_apply_mscale (read at transformers 0205eec1d869,
# models/deepseek_v3/modeling_deepseek_v3.py DeepseekV3Attention.__init__, the code Kimi K2 runs, and
# models/mistral4/modeling_mistral4.py Mistral4Attention.__init__: self.scaling = yarn_apply_mscale(config.rope_parameters,
# qk_head_dim ** -0.5); the older models/mistral4/modular_mistral4.py at 02075795a3a9, which still expands k before the
# cache and has Mistral4NaiveMoe, set the plain qk_head_dim ** -0.5; 0205eec1d869's latent-KV cache (expand_kv) and
# even/odd apply_rotary_pos_emb_interleave came after it, so the newer code is followed) multiplies qk_head_dim**-0.5 by mscale · mscale,
# mscale = yarn_get_mscale(factor, mscale_all_dim) = 0.1·mscale_all_dim·ln(factor) + 1 (1 when factor <= 1), when
# rope_type is not "default" and mscale_all_dim is not 0. Ministral3Attention (models/ministral3/modeling_ministral3.py)
# and DeepseekV2Attention (models/deepseek_v2/modeling_deepseek_v2.py at 0233e509531a) keep the plain scale.
SOFTMAX_MSCALE_FAMILIES = ("deepseek_v3", "kimi_k2", "mistral4")


def softmax_scale_multiplier(case):
    cfg = text_config(case_config(case))
    if cfg.get("model_type") not in SOFTMAX_MSCALE_FAMILIES:
        return None
    rp = cfg.get("rope_parameters") or cfg.get("rope_scaling") or case.get("class_rp") or {}
    if rp.get("rope_type", rp.get("type", "default")) == "default" or not rp.get("mscale_all_dim", 0):
        return None
    factor = rp["factor"]
    mscale = 1.0 if factor <= 1 else 0.1 * rp["mscale_all_dim"] * math.log(factor) + 1.0
    return mscale * mscale


# The attention's softmax scale, HF's self.scaling of each family's attention class (scores = q·k × scaling), read from:
#   models/gemma2/modeling_gemma2.py Gemma2Attention.__init__ (at 006e86931247): config.query_pre_attn_scalar**-0.5, and
#   Gemma3Attention (models/gemma3/modular_gemma3.py) inherits it; Gemma2Config and Gemma3TextConfig default 256;
#   models/gemma4/modeling_gemma4.py Gemma4TextAttention.__init__ (at 0246b4f33354): 1.0;
#   models/granite/modeling_granite.py GraniteAttention: config.attention_multiplier, GraniteConfig default 1.0;
#   DeepseekV2Attention, DeepseekV3Attention (Kimi K2's code), Mistral4Attention (models/mistral4/modeling_mistral4.py at
#   0205eec1d869): qk_head_dim**-0.5 with qk_head_dim = qk_nope_head_dim + qk_rope_head_dim (config defaults 128 + 64,
#   Kimi K2's own configuration_deepseek.py 128 + 64, Mistral4Config 64 + 64 at 008e57439125), times the multiplier
#   above where the family has it;
#   every other family (LlamaAttention): head_dim**-0.5, head_dim = config.head_dim or hidden_size // num_attention_heads.
QUERY_PRE_ATTN_SCALAR = ("gemma2", "gemma3", "gemma3_text")
QK_HEAD_DIM = {"deepseek_v2": (128, 64), "deepseek_v3": (128, 64), "kimi_k2": (128, 64), "mistral4": (64, 64)}
# head_dim when the config has none, the config classes' own (AfmoeConfig 128; Qwen3NextConfig, Qwen3_5TextConfig,
# Qwen3_5MoeTextConfig 256; GptOssConfig 64; Ministral3Config, Qwen3Config, Llama4TextConfig, Ernie4_5Config,
# GlmConfig, Glm4Config, MiniMaxM2Config, Qwen3VLTextConfig 128: the audit of issue 32), not hidden_size //
# num_attention_heads.
CLASS_HEAD_DIM = {"afmoe": 128, "qwen3_next": 256, "qwen3_5_text": 256, "qwen3_5_moe_text": 256, "gpt_oss": 64,
                  "ministral3": 128, "qwen3": 128, "llama4_text": 128, "ernie4_5": 128, "glm": 128, "glm4": 128,
                  "minimax_m2": 128, "qwen3_vl_text": 128}


def softmax_scale_value(case):
    cfg = text_config(case_config(case))
    t = cfg.get("model_type")
    if t in QUERY_PRE_ATTN_SCALAR:
        scale = cfg.get("query_pre_attn_scalar", 256) ** -0.5
    elif t in ("gemma4", "gemma4_text"):
        scale = 1.0
    elif t == "granite":
        scale = cfg.get("attention_multiplier", 1.0)
    elif t in QK_HEAD_DIM:
        nope, rope = QK_HEAD_DIM[t]
        scale = (cfg.get("qk_nope_head_dim", nope) + cfg.get("qk_rope_head_dim", rope)) ** -0.5
    else:
        head = cfg.get("head_dim") or CLASS_HEAD_DIM.get(t) or cfg["hidden_size"] // cfg["num_attention_heads"]
        scale = head ** -0.5
    return scale * (softmax_scale_multiplier(case) or 1.0)


def bf16(x):
    b = np.ascontiguousarray(x, dtype=F32).view(np.uint32)
    return ((b + (((b >> 16) & 1) + 0x7FFF)) & 0xFFFF0000).astype(np.uint32).view(F32)


def cast(x, dtype):
    return np.asarray(x, np.float64) if dtype == "f64" else bf16(np.asarray(x, F32)).astype(F32)


def rotate_half(x):
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)


def rotate_pairs(x):  # Ernie's and Cohere's rotate_half: (2i, 2i+1) -> (−x_{2i+1}, x_{2i})
    out = np.empty_like(x)
    out[..., 0::2], out[..., 1::2] = -x[..., 1::2], x[..., 0::2]
    return out


class HfRefuses(Exception):
    """HF's own code raises for the case's config (a ValueError in the rotary class): it computes nothing."""


def hf_rope_type(cfg):
    """rope_parameters' rope_type as HF v5's config class leaves it (PreTrainedConfig: rope_scaling or
    rope_parameters; standardize_rope_params: rope_type, else the legacy type, else default)."""
    block = cfg.get("rope_scaling") or cfg.get("rope_parameters") or {}
    return block.get("rope_type", block.get("type", "default"))


def ernie_vl_apply(q, case, positions3, dtype):
    """HF's ERNIE-4.5-VL text RoPE: inv_freq pre-rotated (compute_default_rope_parameters), freqs per position row,
    recomposition_to_3d (h from row 1, w from row 2, t from row 0, h and w stacked pairwise, repeat_interleave(2)),
    then apply_rotary_pos_emb: q.float() * cos + rotate_half_text(q).float() * sin, cast back. The rotary class
    raises a ValueError for a rope_type other than default (__init__, modeling_ernie4_5_vl_moe.py:66-69)."""
    rope_type = hf_rope_type(text_config(case_config(case)))
    if rope_type != "default":
        raise HfRefuses(f"rope_type {rope_type}: Ernie 4.5 VL requires the `default` rope type")
    sh, sw, st = case["sections"]
    inv = default_inv_freq(case["theta"], case["head"])
    hw = sh + sw
    inv3 = np.empty_like(inv)
    inv3[:hw] = np.concatenate([inv[:-st][0::2], inv[:-st][1::2]])
    inv3[-st:] = inv[-st:]
    freqs = (positions3.astype(F32)[:, :, None] * inv3[None, None, :]).astype(F32)  # [seq, row, pair]

    def recomposition(x):
        fh, fw, ft = x[:, 1, :sh], x[:, 2, sh:hw], x[:, 0, hw:]
        fhw = np.stack([fh, fw], axis=-1).reshape(x.shape[0], -1)
        return np.repeat(np.concatenate([fhw, ft], axis=-1), 2, axis=-1)
    cos = recomposition(np.cos(freqs).astype(F32))[:, None, :]
    sin = recomposition(np.sin(freqs).astype(F32))[:, None, :]
    qf = q.astype(F32)
    return cast((qf * cos).astype(F32) + (rotate_pairs(qf) * sin).astype(F32), dtype), inv, 1.0


def hf_apply(q, case, positions):
    """q: [seq, heads, head] in the model's dtype (float64, or bf16 values in float32)."""
    dtype = case.get("dtype", "f64")
    if case["apply"] == "none":  # a layer without RoPE: the attention uses q as projected
        return q.copy(), np.zeros(0, dtype=F32), 1.0
    if case["apply"] == "ernie_vl":
        return ernie_vl_apply(q, case, positions, dtype)
    inv, attn = hf_inv_freq(case)
    if "mrope" in case:  # [seq, 3] positions: pair j turns with the position of its axis
        order, sections = case["mrope"]
        per_pair = positions[:, pair_axes(order, sections, inv.shape[0])]
        freqs = (per_pair.astype(F32) * inv[None, :]).astype(F32)
    else:
        freqs = (positions.astype(F32)[:, None] * inv[None, :]).astype(F32)
    rot, off = case.get("rot", case["head"]), case.get("offset", 0)
    q_rot = q[..., off:off + rot]
    out = q.copy()
    if case["apply"] in ("half", "deinterleave"):
        emb = np.concatenate([freqs, freqs], axis=-1)
        cos = cast((np.cos(emb) * F32(attn)).astype(F32), dtype)[:, None, :]
        sin = cast((np.sin(emb) * F32(attn)).astype(F32), dtype)[:, None, :]
        if case["apply"] == "deinterleave":  # view(d/2, 2).transpose(4, 3).reshape(d)
            q_rot = q_rot.reshape(q_rot.shape[:-1] + (rot // 2, 2)).swapaxes(-1, -2).reshape(q_rot.shape)
        out[..., off:off + rot] = cast(cast(q_rot * cos, dtype) + cast(rotate_half(q_rot) * sin, dtype), dtype)
    elif case["apply"] == "ernie":  # cos, sin kept in float32; cat(freqs, freqs)[..., :d/2] repeat_interleave'd
        emb = np.concatenate([freqs, freqs], axis=-1)
        cos = np.repeat((np.cos(emb) * F32(attn)).astype(F32)[..., : rot // 2], 2, axis=-1)[:, None, :]
        sin = np.repeat((np.sin(emb) * F32(attn)).astype(F32)[..., : rot // 2], 2, axis=-1)[:, None, :]
        qf = q_rot.astype(F32)
        out[..., off:off + rot] = cast((qf * cos).astype(F32) + (rotate_pairs(qf) * sin).astype(F32), dtype)
    elif case["apply"] == "glm":  # cos, sin in the dtype; cat(freqs, freqs)[..., :d/2] repeat_interleave'd; pairs (2i, 2i+1)
        emb = np.concatenate([freqs, freqs], axis=-1)
        cos = np.repeat(cast((np.cos(emb) * F32(attn)).astype(F32), dtype)[..., : rot // 2], 2, axis=-1)[:, None, :]
        sin = np.repeat(cast((np.sin(emb) * F32(attn)).astype(F32), dtype)[..., : rot // 2], 2, axis=-1)[:, None, :]
        out[..., off:off + rot] = cast(cast(q_rot * cos, dtype) + cast(rotate_pairs(q_rot) * sin, dtype), dtype)
    elif case["apply"] == "cohere":  # emb = repeat_interleave(freqs, 2); cos/sin cast to the dtype; q.float()
        emb = np.repeat(freqs, 2, axis=-1)
        cos = cast((np.cos(emb) * F32(attn)).astype(F32), dtype).astype(F32)[:, None, :]
        sin = cast((np.sin(emb) * F32(attn)).astype(F32), dtype).astype(F32)[:, None, :]
        qf = q_rot.astype(F32)
        out[..., off:off + rot] = cast((qf * cos).astype(F32) + (rotate_pairs(qf) * sin).astype(F32), dtype)
    else:
        raise ValueError(case["apply"])
    return out, inv, attn


def self_check():
    # HunYuan's NTK-α base for α = 1000, d = 128 (the 1.116e7).
    assert abs(10000.0 * 1000.0 ** (128 / 126) / 1.1159e7 - 1) < 1e-4
    # apply_rotary_pos_emb_interleave moves pair (2i, 2i+1) to (i, i + d/2): at position 0 the dump is the
    # de-interleaved input.
    q = np.arange(8, dtype=np.float64).reshape(1, 1, 8)
    out, _, _ = hf_apply(q, dict(apply="deinterleave", theta=1e4, head=8, config=dict()), np.array([0]))
    assert list(out[0, 0]) == [0, 2, 4, 6, 1, 3, 5, 7], out
    # DeepSeek-V3's YaRN with mscale = mscale_all_dim: attention factor 1.
    _, attn = yarn_inv_freq(1e4, 64, dict(factor=40, mscale=1.0, mscale_all_dim=1.0,
                                          original_max_position_embeddings=4096), 163840)
    assert attn == 1.0
    # The two multi-axis maps: Qwen3.5's interleaved [11, 11, 10] over 32 pairs ends ...THW·TH (pair 29 w, 30 t,
    # 31 h); GLM's chunked [8, 12, 12] gives pairs 0-7 t, 8-19 h, 20-31 w.
    inter = pair_axes("interleaved", [11, 11, 10], 32)
    assert list(inter[:6]) == [0, 1, 2, 0, 1, 2] and list(inter[29:]) == [2, 0, 1], inter
    chunk = pair_axes("chunked", [8, 12, 12], 32)
    assert list(chunk[[0, 7, 8, 19, 20, 31]]) == [0, 0, 1, 1, 2, 2], chunk


def main():
    self_check()
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    rng = np.random.default_rng(SEED)
    manifest = []
    for case in CASES:
        d = os.path.join(out_dir, case["name"])
        os.makedirs(d, exist_ok=True)
        dtype = case.get("dtype", "f64")
        q = cast(rng.standard_normal((len(POSITIONS), HEADS, case["head"])), dtype)
        positions = POSITIONS + case.get("shift", 0)
        vision = "mrope" in case or case.get("vision", False)
        if vision:  # (t, h, w) per index
            positions = AXIS_POSITIONS + case.get("shift", 0)
        elif case["apply"] == "ernie_vl":  # text tokens: the same position in the t, h and w rows
            positions = np.stack([positions] * 3, axis=1)
        try:
            after, inv, attn = hf_apply(q, case, positions)
        except HfRefuses as e:  # no dump: rope must refuse the config (exit 2) naming the value and HF's source
            with open(os.path.join(d, "config.json"), "w") as f:
                json.dump(case_config(case), f, indent=1)
            manifest.append(dict(name=case["name"], dir=case["name"], refused=str(e),
                                 rope_type=hf_rope_type(text_config(case_config(case))),
                                 source=["--config", os.path.join(d, "config.json")]))
            continue
        if "temperature" in case:  # HF Llama 4: float32 attn_scales, q · attn_scales in the promoted type, cast back
            scale, floor_scale = case["temperature"]
            t = (np.log1p(np.floor((positions.astype(F32) + F32(1)) / F32(floor_scale))) * F32(scale) + F32(1)).astype(F32)
            after = cast(after * t.astype(np.float64)[:, None, None], dtype) if dtype == "f64" else \
                cast((after.astype(F32) * t[:, None, None]).astype(F32), dtype)
        if "query_scaling" in case:  # HF: scaling in float32 from the position ids, cast to q's dtype, q · scaling
            beta, l0 = case["query_scaling"]
            s = (F32(1) + F32(beta) * np.log(F32(1) + np.floor(positions.astype(F32) / F32(l0)))).astype(F32)
            after = cast(after * cast(s, dtype)[:, None, None], dtype)
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump(case_config(case), f, indent=1)
        if dtype == "bf16":
            for name, x in (("q.npy", q), ("q_rope.npy", after)):
                np.save(os.path.join(d, name), (np.ascontiguousarray(x, F32).view(np.uint32) >> 16).astype("<u2"))
        else:
            np.save(os.path.join(d, "q.npy"), q.astype("<f8"))
            np.save(os.path.join(d, "q_rope.npy"), after.astype("<f8"))
        np.save(os.path.join(d, "positions.npy"), POSITIONS)
        position_flags = ["--positions", os.path.join(d, "positions.npy")]
        if vision:  # rows t,h,w, as `rope positions --csv` writes its columns
            with open(os.path.join(d, "axis_positions.txt"), "w") as f:
                f.writelines(f"{t},{h},{w}\n" for t, h, w in AXIS_POSITIONS)
            position_flags = ["--axis-positions", os.path.join(d, "axis_positions.txt")]
        source = ["--model", case["preset"]] if "preset" in case else ["--config", os.path.join(d, "config.json")]
        manifest.append(dict(name=case["name"], dir=case["name"], dtype=dtype, exit=case.get("exit", 0), source=source,
                             positions=position_flags,
                             nope=case.get("nope_layer", case["apply"] == "none"),
                             matches=case.get("matches"), flags=case.get("flags", []) + (["--bf16-bits"] if dtype == "bf16" else []),
                             theta=[float(x) for x in inv], attention_factor=float(attn), rotary_dim=case.get("rot", case["head"]),
                             # the rotary class's inv_freq buffer before any sequence (what `rope frequencies` shows),
                             # where a dynamic update gave the dump other frequencies
                             freq_theta=[float(x) for x in default_inv_freq(case["init_theta"], case["head"])]
                             if "init_theta" in case else None,
                             softmax_scale=softmax_scale_multiplier(case), softmax_scale_value=softmax_scale_value(case)))
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print(f"{len(manifest)} cases in {out_dir}")


if __name__ == "__main__":
    main()
