#!/usr/bin/python3
"""Independent NumPy reference: what Hugging Face transformers computes at init for every model preset.

For each data/models/*.json (an HF-style config.json subset; the `_rope_preset` key is ignored) this
script derives the rotary dimension, base, rope type, factor f and original context L0 the way current
HF (v5 `main`, transformers `src/transformers/modeling_rope_utils.py`) does, then evaluates the rope init function in float64,
written from the formulas (not from HF's code or the C++ code in src/):

    head_dim   qk_rope_head_dim (DeepSeek: HF's config sets head_dim to it), else `head_dim`, else
               hidden_size // num_attention_heads (GPT-J: n_embd // n_head); `text_config` if present
    d          int(head_dim * partial_rotary_factor); GPT-NeoX spells the factor `rotary_pct`;
               GPT-J gives `rotary_dim` directly
    base       rope_theta (top level or inside rope_parameters), GPT-NeoX `rotary_emb_base`, else 10000
    scaling    `rope_scaling`, else `rope_parameters`; type = `rope_type`, else legacy `type`;
               "su" = longrope; null/absent = default
    L0         (yarn, longrope, llama3) top-level original_max_position_embeddings (Phi-3; v5's
               standardize_rope_params gives it priority), else the one inside the dict, else M
    f          the explicit `factor`; if absent M / L0 (yarn, longrope); proportional: 1

    theta_j = base ** (-2j/d), j = 0 .. d/2-1, lambda_j = 2 pi / theta_j
    default       inv_j = theta_j, attention 1
    linear        inv_j = theta_j / f, attention 1
    dynamic       at init (seq_len unknown -> M) base' = base, so inv_j = theta_j, attention 1
    yarn          c(r) = d ln(L0/(2 pi r)) / (2 ln base); low = c(beta_fast or 32), high = c(beta_slow or 1);
                  floor/ceil unless truncate is false; low = max(low, 0), high = min(high, d-1);
                  ramp_j = clip((j - low)/(high - low), 0, 1) (high += 0.001 if equal);
                  inv_j = (theta_j / f) ramp_j + theta_j (1 - ramp_j);
                  attention = explicit attention_factor, else mscale(f, mscale)/mscale(f, mscale_all_dim)
                  if both truthy, else mscale(f); mscale(s, m=1) = 1 if s <= 1 else 1 + 0.1 m ln s
    llama3        lambda_j < L0/hf: theta_j; lambda_j > L0/lf: theta_j / f; otherwise
                  s = (L0/lambda_j - lf)/(hf - lf), inv_j = (1 - s) theta_j / f + s theta_j; attention 1
    longrope      at init (seq_len unknown) the short list: inv_j = theta_j / short_factor_j;
                  attention = explicit, else 1 if f <= 1 else sqrt(1 + ln f / ln L0)
    proportional  n = int(partial_rotary_factor * head_dim // 2); inv_j = base ** (-2j/head_dim) / f
                  for j < n, 0 for n <= j < head_dim/2 (head_dim/2 entries); attention 1

Gemma 3 has two RoPEs; the preset (and this file) is the global (full-attention) layers' one, which
reads rope_theta and rope_scaling; the local layers use rope_local_base_freq unscaled (not written).

Writes presets.csv next to itself: header preset,pair,inv_freq,attention_factor, one row per
(preset, pair), presets in file-name order, floats as repr(). Checks itself against published and hand-computed values
(§1, §4, §5, §7) and data/models/README.md's table, and exits non-zero if a check fails.

    /usr/bin/python3 tests/reference/presets.py
"""

import json
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.normpath(os.path.join(HERE, "..", "..", "data", "models"))
OUT = os.path.join(HERE, "presets.csv")
FAILURES = []


# ---------------------------------------------------------------------------------------------
# checks

def fail(msg):
    FAILURES.append(msg)


def check_rel(name, got, want, rtol):
    if not abs(got - want) <= rtol * abs(want):
        fail(f"{name}: got {got!r}, want {want!r} (rtol {rtol})")


def check_abs(name, got, want, atol):
    """For values quoted to a fixed number of decimals: atol is half a unit of the last digit."""
    if not abs(got - want) <= atol:
        fail(f"{name}: got {got!r}, want {want!r} (atol {atol})")


def check_eq(name, got, want):
    if not got == want:
        fail(f"{name}: got {got!r}, want {want!r} (exact)")


# ---------------------------------------------------------------------------------------------
# the formulas

def thetas(d, base):
    """theta_j = base ** (-2j/d), one per pair, float64."""
    out = np.empty(d // 2, dtype=np.float64)
    for j in range(d // 2):
        out[j] = base ** (-2.0 * j / d)
    return out


def mscale(s, m=1.0):
    if s <= 1:
        return 1.0
    return 1.0 + 0.1 * m * math.log(s)


def correction_dim(r, d, base, L0):
    """Pair index whose wavelength makes r full turns over L0 (real-valued)."""
    return d * math.log(L0 / (2.0 * math.pi * r)) / (2.0 * math.log(base))


def yarn_range(d, base, L0, beta_fast, beta_slow, truncate):
    low = correction_dim(beta_fast, d, base, L0)
    high = correction_dim(beta_slow, d, base, L0)
    if truncate:
        low = math.floor(low)
        high = math.ceil(high)
    return max(low, 0), min(high, d - 1)


def yarn(d, base, f, L0, p):
    beta_fast = p.get("beta_fast") or 32
    beta_slow = p.get("beta_slow") or 1
    truncate = p.get("truncate", True)
    low, high = yarn_range(d, base, L0, beta_fast, beta_slow, truncate)
    if low == high:
        high = high + 0.001
    th = thetas(d, base)
    inv = np.empty_like(th)
    for j in range(d // 2):
        ramp = (j - low) / (high - low)
        ramp = min(max(ramp, 0.0), 1.0)
        inv[j] = (th[j] / f) * ramp + th[j] * (1.0 - ramp)
    att = p.get("attention_factor")
    if att is None:
        ms, msa = p.get("mscale"), p.get("mscale_all_dim")
        if ms and msa:
            att = mscale(f, ms) / mscale(f, msa)
        else:
            att = mscale(f)
    return inv, float(att)


def llama3(d, base, f, L0, p):
    lf = p["low_freq_factor"]
    hf = p["high_freq_factor"]
    th = thetas(d, base)
    inv = np.empty_like(th)
    for j in range(d // 2):
        lam = 2.0 * math.pi / th[j]
        if lam < L0 / hf:
            inv[j] = th[j]
        elif lam > L0 / lf:
            inv[j] = th[j] / f
        else:
            s = (L0 / lam - lf) / (hf - lf)
            inv[j] = (1.0 - s) * th[j] / f + s * th[j]
    return inv, 1.0


def longrope(d, base, f, L0, p, seq_len=None):
    ext = p["long_factor"] if (seq_len is not None and seq_len > L0) else p["short_factor"]
    if len(ext) != d // 2:
        raise ValueError(f"longrope list has {len(ext)} entries, want d/2 = {d // 2}")
    th = thetas(d, base)
    inv = np.array([th[j] / float(ext[j]) for j in range(d // 2)], dtype=np.float64)
    att = p.get("attention_factor")
    if att is None:
        att = 1.0 if f <= 1.0 else math.sqrt(1.0 + math.log(f) / math.log(L0))
    return inv, float(att)


def proportional(head_dim, base, f, prf):
    n = int(prf * head_dim // 2)
    inv = np.zeros(head_dim // 2, dtype=np.float64)
    for j in range(n):
        inv[j] = base ** (-2.0 * j / head_dim)
    return inv / f, 1.0


def compute(rt, d, head_dim, base, f, L0, p, prf):
    if rt == "default":
        return thetas(d, base), 1.0
    if rt == "linear":
        return thetas(d, base) / f, 1.0
    if rt == "dynamic":  # seq_len None -> M: base * (f*M/M - (f-1)) ** (d/(d-2)) = base
        return thetas(d, base), 1.0
    if rt == "yarn":
        return yarn(d, base, f, L0, p)
    if rt == "llama3":
        return llama3(d, base, f, L0, p)
    if rt == "longrope":
        return longrope(d, base, f, L0, p)
    if rt == "proportional":
        return proportional(head_dim, base, f, prf)
    raise ValueError(f"unknown rope type {rt!r}")


# ---------------------------------------------------------------------------------------------
# reading a preset the way HF does

LAYER_TYPES = {"full_attention", "sliding_attention", "chunked_attention", "linear_attention"}


def resolve(cfg):
    """Return a dict with everything HF's init function would use for this config."""
    cfg = {k: v for k, v in cfg.items() if k != "_rope_preset"}
    if isinstance(cfg.get("text_config"), dict):
        cfg = cfg["text_config"]
    model_type = cfg.get("model_type", "")

    hidden = cfg.get("hidden_size", cfg.get("n_embd"))
    heads = cfg.get("num_attention_heads", cfg.get("n_head"))
    M = cfg.get("max_position_embeddings", cfg.get("n_positions", cfg.get("seq_length")))
    if M is None and model_type == "gemma3_text":
        M = 131072  # Gemma3TextConfig default (transformers configuration_gemma3.py)
    if model_type == "chatglm":
        # THUDM's modeling_chatglm.py: rotary_dim = kv_channels; RotaryEmbedding(rotary_dim // 2, ...) rotates
        # the first half of each head in pairs (2i, 2i+1); base = 10000 * rope_ratio (default 1).
        head_dim = cfg["kv_channels"]
        base = 10000.0 * float(cfg.get("rope_ratio", 1))
        return dict(head_dim=head_dim, hd_from="kv_channels", d=head_dim // 2, prf=0.5, base=base, type="default",
                    f=1.0, L0=M, M=M, params={})

    scaling = cfg.get("rope_scaling")
    if scaling is None:
        scaling = cfg.get("rope_parameters")
    scaling = dict(scaling) if isinstance(scaling, dict) else {}
    per_layer = bool(scaling) and set(scaling).issubset(LAYER_TYPES)
    if per_layer:  # v5 per-layer-type dicts: global layers
        scaling = dict(scaling.get("full_attention") or {})

    if cfg.get("qk_rope_head_dim"):
        head_dim, hd_from = cfg["qk_rope_head_dim"], "qk_rope_head_dim"
    elif per_layer and cfg.get("global_head_dim"):  # Gemma 4: the full_attention layers' heads are global_head_dim
        head_dim, hd_from = cfg["global_head_dim"], "global_head_dim"
    elif cfg.get("head_dim"):
        head_dim, hd_from = cfg["head_dim"], "head_dim"
    else:
        head_dim, hd_from = hidden // heads, "hidden/heads"

    if "rotary_dim" in cfg:  # GPT-J; MiniMax-M2 (MiniMaxM2Config: partial_rotary_factor = rotary_dim / head_dim)
        d, prf = int(cfg["rotary_dim"]), cfg["rotary_dim"] / head_dim
    else:
        prf = scaling.get("partial_rotary_factor",
                          cfg.get("partial_rotary_factor", cfg.get("rotary_pct", 1.0)))
        d = int(head_dim * prf)

    if "rope_theta" in scaling:
        base = scaling["rope_theta"]
    elif "rope_theta" in cfg:
        base = cfg["rope_theta"]
    elif "rotary_emb_base" in cfg:
        base = cfg["rotary_emb_base"]
    elif model_type == "gemma3_text":
        base = 1e6  # Gemma3TextConfig's rope_theta default (the 27B config.json has no rope_theta)
    else:
        base = 10000.0  # v4 model-config default / v5 default_theta; GPT-J hard-wires 10000
    base = float(base)

    rt = scaling.get("rope_type", scaling.get("type", "default")) if scaling else "default"
    if rt == "su":
        rt = "longrope"
    if rt == "mrope":  # HF configuration_qwen2_vl.py: the legacy type mrope is rewritten to default
        rt = "default"

    L0 = M
    if rt in ("yarn", "longrope", "llama3"):
        if cfg.get("original_max_position_embeddings") is not None:
            L0 = cfg["original_max_position_embeddings"]
        elif scaling.get("original_max_position_embeddings") is not None:
            L0 = scaling["original_max_position_embeddings"]
    if scaling.get("factor") is not None:
        f = float(scaling["factor"])
    elif rt in ("yarn", "longrope"):
        f = M / L0
    else:
        f = 1.0

    return dict(head_dim=head_dim, hd_from=hd_from, d=d, prf=prf, base=base, type=rt, f=f, L0=L0,
                M=M, params=scaling)


# ---------------------------------------------------------------------------------------------
# self-checks of the formulas against published and hand-computed values (independent of the presets)

def formula_checks():
    # §1: theta_1 for d = 128, base 1e4
    check_eq("theta_1 d128 base1e4", thetas(128, 10000.0)[1], 0.8659643233600653)
    check_eq("theta_63 d128 base1e4", thetas(128, 10000.0)[63], 1.1547819846894582e-4)
    # §4: HF golden yarn (factor 10, L0 2048, d 128, base 1e4)
    check_eq("yarn golden range", yarn_range(128, 10000.0, 2048, 32, 1, True), (16, 41))
    inv, att = yarn(128, 10000.0, 10.0, 2048, {})
    check_rel("yarn golden inv[17]", inv[17], 0.0834789608, 1e-9)
    check_rel("yarn golden inv[40]", inv[40], 4.300697618e-4, 1e-9)
    check_rel("yarn golden inv[41]", inv[41], 2.738419634e-4, 1e-9)
    check_rel("yarn golden attention", att, 1.2302585093, 1e-10)
    # §4: HF golden llama3 (factor 10, L0 2048, 1/4)
    inv, att = llama3(128, 10000.0, 10.0, 2048, {"low_freq_factor": 1.0, "high_freq_factor": 4.0})
    check_rel("llama3 golden inv[31]", inv[31], 0.0107302483, 1e-9)
    check_rel("llama3 golden inv[40]", inv[40], 3.453924383e-4, 1e-9)
    check_eq("llama3 golden attention", att, 1.0)
    # §4: longrope attention, s = 10, L0 = 2048
    lists = {"short_factor": [1.0] * 64, "long_factor": [1.0] * 64}
    check_rel("longrope golden attention", longrope(128, 10000.0, 10.0, 2048, lists)[1], 1.1410492817, 1e-10)
    # §5: correction ranges
    check_eq("yarn range llama-2", yarn_range(128, 10000.0, 4096, 32, 1, True), (20, 46))
    check_eq("yarn range qwen3x4", yarn_range(128, 1e6, 32768, 32, 1, True), (23, 40))
    check_rel("yarn d128 f4 attention", yarn(128, 10000.0, 4.0, 4096, {})[1], 1.138629436111989, 1e-15)


# ---------------------------------------------------------------------------------------------
# expectations for the presets: data/models/README.md table and the sources it cites

# preset: (d, base, type, f, L0)
README_TABLE = {
    "chatglm3-6b": (64, 10000.0, "default", 1.0, None),
    "glm-4-9b-chat": (64, 5e6, "default", 1.0, None),
    "mistral-nemo-base-2407": (128, 1e6, "default", 1.0, None),
    "phi-3.5-mini-instruct": (96, 10000.0, "longrope", 32.0, 4096),
    "deepseek-v3": (64, 10000.0, "yarn", 40.0, 4096),
    "gemma-3-27b": (128, 1e6, "linear", 8.0, None),
    "llama-4-scout-17b-16e": (128, 500000.0, "llama3", 8.0, 8192),
    "gemma-3-4b": (256, 1e6, "linear", 8.0, None),
    "gpt-j-6b": (64, 10000.0, "default", 1.0, None),
    "gpt-neox-20b": (24, 10000.0, "default", 1.0, None),
    "gpt-oss-20b": (64, 150000.0, "yarn", 32.0, 4096),
    "llama-2-7b": (128, 10000.0, "default", 1.0, None),
    "llama-3-8b": (128, 500000.0, "default", 1.0, None),
    "llama-3.1-8b": (128, 500000.0, "llama3", 8.0, 8192),
    "llama-3.2-1b": (64, 500000.0, "llama3", 32.0, 8192),
    "mistral-7b-v0.1": (128, 10000.0, "default", 1.0, None),
    "phi-3-mini-128k": (96, 10000.0, "longrope", 32.0, 4096),
    "qwen2.5-7b": (128, 1e6, "default", 1.0, None),
    "qwen3-8b": (128, 1e6, "default", 1.0, None),
    "qwen2-vl-7b": (128, 1e6, "default", 1.0, None),
    "qwen2.5-vl-7b": (128, 1e6, "default", 1.0, None),
    "qwen3-vl-8b": (128, 5e6, "default", 1.0, None),
    # README [26]–[32]: the RoPE layers' spec (Command A and EXAONE 4: sliding; Qwen3-Next, OLMo 3, Gemma 4: full)
    "command-a-03-2025": (128, 50000.0, "default", 1.0, None),
    "qwen3-next-80b-a3b": (64, 1e7, "default", 1.0, None),
    "olmo-3-7b": (128, 500000.0, "yarn", 8.0, 8192),
    "minimax-m2": (64, 5e6, "default", 1.0, None),
    "exaone-4.0-32b": (128, 1e6, "llama3", 16.0, 8192),
    "gemma-4-26b-a4b": (128, 1e6, "proportional", 1.0, None),
    "smollm3-3b": (128, 5e6, "default", 1.0, None),
    # README [33]–[36]
    "glm-4.5": (64, 1e6, "default", 1.0, None),
    "kimi-k2-instruct": (64, 50000.0, "yarn", 32.0, 4096),
    "qwen3.5-9b": (64, 1e7, "default", 1.0, None),
    "devstral-small-2-24b": (128, 1e8, "yarn", 48.0, 8192),
    # README [37]: FoPE's θ_i before it keeps 45 of them (tests/reference/fope.py ports what FoPE does with them)
    "intern-s1-pro": (128, 5e6, "default", 1.0, None),
}


def preset_checks(name, r, inv, att):
    d, base = r["d"], r["base"]
    th = thetas(d, base)
    if name in README_TABLE:
        wd, wbase, wtype, wf, wL0 = README_TABLE[name]
        check_eq(f"{name} d", d, wd)
        check_eq(f"{name} base", base, wbase)
        check_eq(f"{name} type", r["type"], wtype)
        check_eq(f"{name} f", r["f"], wf)
        if wL0 is not None:
            check_eq(f"{name} L0", r["L0"], wL0)
    else:
        print(f"note: preset {name} is not in this script's README table; only generic checks run")
    n = d // 2 if r["type"] != "proportional" else r["head_dim"] // 2
    check_eq(f"{name} rows", len(inv), n)
    if not np.all(np.isfinite(inv)) or np.any(inv < 0):
        fail(f"{name}: non-finite or negative inv_freq")

    if r["type"] == "default":
        # §1: theta_0 = 1 exactly, theta_1 = base^(-2/d)
        check_eq(f"{name} inv[0]", inv[0], 1.0)
        check_eq(f"{name} inv[1] = base**(-2/d)", inv[1], base ** (-2.0 / d))
        check_rel(f"{name} inv[1] = exp(-2 ln(base)/d)", inv[1], math.exp(-2.0 * math.log(base) / d), 4e-16)
        check_eq(f"{name} attention", att, 1.0)
    if r["type"] == "linear":
        check_eq(f"{name} inv = theta/f", bool(np.all(inv == th / r["f"])), True)
        check_eq(f"{name} attention", att, 1.0)

    if name == "llama-3.1-8b":  # §7
        ratio = inv / th
        kept = [j for j in range(n) if ratio[j] == 1.0]
        divided = [j for j in range(n) if ratio[j] == 1.0 / 8.0]
        blended = [j for j in range(n) if j not in kept and j not in divided]
        check_eq("llama-3.1 kept", kept, list(range(0, 29)))
        check_eq("llama-3.1 blended", blended, list(range(29, 35)))
        check_eq("llama-3.1 divided", divided, list(range(35, 64)))
        for j, want in zip(range(29, 35), [0.82817, 0.64374, 0.49351, 0.37112, 0.27143, 0.19021]):
            check_abs(f"llama-3.1 blend ratio j={j}", ratio[j], want, 5e-6)
        check_eq("llama-3.1 attention", att, 1.0)
    if name == "gpt-oss-20b":  # §5
        check_abs("gpt-oss attention", att, 1.34657, 5e-6)
        check_eq("gpt-oss attention = mscale(32)", att, mscale(32.0))
        lo, hi = yarn_range(d, base, r["L0"], 32, 1, False)
        check_abs("gpt-oss raw c(32)", lo, 8.093, 5e-4)
        check_abs("gpt-oss raw c(1)", hi, 17.398, 5e-4)
        inv_t, _ = yarn(d, base, r["f"], r["L0"], dict(r["params"], truncate=True))
        rel = np.abs(inv_t - inv) / inv  # relative to the untruncated values HF uses
        check_eq("gpt-oss truncated vs untruncated: pairs that differ", int(np.sum(rel > 1e-12)), 9)
        check_eq("gpt-oss largest difference at", int(np.argmax(rel)), 17)
        check_abs("gpt-oss largest relative difference", float(np.max(rel)), 0.763, 5e-4)
    if name == "phi-3-mini-128k":  # §5, §10
        check_abs("phi-3 attention", att, 1.19024, 5e-6)
        check_rel("phi-3 attention = sqrt(1 + ln 32/ln 4096)", att, math.sqrt(1.0 + 5.0 / 12.0), 4e-16)
        short = np.array(r["params"]["short_factor"], dtype=np.float64)
        check_eq("phi-3 inv = theta/short_factor", bool(np.all(inv == th / short)), True)
    if name == "phi-3.5-mini-instruct":  # its own lists (hf_phi3/phi3_rope.py's copy of its config.json)
        check_abs("phi-3.5 attention", att, 1.19024, 5e-6)
        short = np.array(r["params"]["short_factor"], dtype=np.float64)
        check_eq("phi-3.5 inv = theta/short_factor", bool(np.all(inv == th / short)), True)
        check_eq("phi-3.5 short_factor[0]", r["params"]["short_factor"][0], 1.0)
        check_eq("phi-3.5 long_factor[0:2]", r["params"]["long_factor"][:2], [1.0800000429153442, 1.1100000143051147])
        check_eq("phi-3.5 long_factor[-1]", r["params"]["long_factor"][-1], 64.83999633789062)
    if name == "mistral-nemo-base-2407":  # the explicit head_dim wins over hidden_size / heads
        check_eq("mistral-nemo head_dim from", r["hd_from"], "head_dim")
        check_eq("mistral-nemo hidden/heads (not used)", 5120 // 32, 160)
    if name == "glm-4-9b-chat":  # base = 10000 * rope_ratio
        check_eq("glm-4 base = 10000 * 500", base, 10000.0 * 500)
    if name == "gemma-4-26b-a4b":  # proportional on head 512: the first int(0.25 · 512 // 2) = 64 pairs turn
        check_eq("gemma-4 head_dim from", r["hd_from"], "global_head_dim")
        check_eq("gemma-4 turning pairs", int(np.count_nonzero(inv)), 64)
        check_eq("gemma-4 inv[1] = 1e6 ** (-2/512)", inv[1], 1e6 ** (-2.0 / 512))
        check_eq("gemma-4 attention", att, 1.0)
    if name == "olmo-3-7b":  # the explicit attention_factor is mscale(8) = 0.1 ln 8 + 1
        check_eq("olmo-3 attention", att, 1.2079441541679836)
        check_rel("olmo-3 attention = mscale(8)", att, mscale(8.0), 4e-16)
        check_eq("olmo-3 range", yarn_range(d, base, r["L0"], 32, 1, True), (18, 35))
    if name == "exaone-4.0-32b":  # llama3 f=16 from 8192: bands 27 kept, 7 blended, 30 divided
        ratio = inv / th
        check_eq("exaone-4 kept", int(np.sum(ratio == 1.0)), 27)
        check_eq("exaone-4 divided", int(np.sum(ratio == 1.0 / 16.0)), 30)
    if name == "minimax-m2":
        check_eq("minimax-m2 d = rotary_dim", d, 64)
    if name == "glm-4.5":  # partial_rotary_factor 0.5 of head_dim 128
        check_eq("glm-4.5 d = 128 * 0.5", d, 64)
        check_eq("glm-4.5 head_dim from", r["hd_from"], "head_dim")
    if name == "kimi-k2-instruct":  # beta_fast = beta_slow = 1: c(1) = 19.17, a hard cut between pairs 19 and 20
        check_abs("kimi-k2 raw c(1)", correction_dim(1, d, base, r["L0"]), 19.165, 5e-4)
        check_eq("kimi-k2 range", yarn_range(d, base, r["L0"], 1, 1, True), (19, 20))
        check_eq("kimi-k2 pairs 0..19 unchanged", bool(np.all(inv[:20] == th[:20])), True)
        check_eq("kimi-k2 pairs 20.. divided", bool(np.all(inv[20:] == th[20:] / 32.0)), True)
        check_eq("kimi-k2 attention = mscale(32, 1) / mscale(32, 1)", att, 1.0)
    if name == "qwen3.5-9b":  # rope_parameters.partial_rotary_factor 0.25 of head_dim 256
        check_eq("qwen3.5 d = 256 * 0.25", d, 64)
    if name == "devstral-small-2-24b":  # mscale = mscale_all_dim = 1: attention 1
        check_eq("devstral attention", att, 1.0)
        # by hand: c(32) = 128 ln(8192 / 64 pi) / (2 ln 1e8) = 12.88, c(1) = 128 ln(8192 / 2 pi) / (2 ln 1e8) = 24.92
        check_abs("devstral raw c(32)", correction_dim(32, d, base, r["L0"]), 12.88, 5e-3)
        check_abs("devstral raw c(1)", correction_dim(1, d, base, r["L0"]), 24.92, 5e-3)
        check_eq("devstral range", yarn_range(d, base, r["L0"], 32, 1, True), (12, 25))
    if name == "deepseek-v3":  # §5
        check_eq("deepseek-v3 attention", att, 1.0)
        check_eq("deepseek-v3 range", yarn_range(d, base, r["L0"], 32, 1, True), (10, 23))
        check_eq("deepseek-v3 M/L0 = factor", r["M"] / r["L0"], r["f"])
        check_eq("deepseek-v3 pairs 0..10 unchanged", bool(np.all(inv[:11] == th[:11])), True)
        check_eq("deepseek-v3 pairs 23.. divided", bool(np.all(inv[23:] == th[23:] / 40.0)), True)


# ---------------------------------------------------------------------------------------------

def main():
    formula_checks()

    names = sorted(fn[:-5] for fn in os.listdir(MODELS) if fn.endswith(".json"))
    rows = []
    summary = []
    for name in names:
        with open(os.path.join(MODELS, name + ".json"), encoding="utf-8") as fh:
            cfg = json.load(fh)
        r = resolve(cfg)
        inv, att = compute(r["type"], r["d"], r["head_dim"], r["base"], r["f"], r["L0"], r["params"], r["prf"])
        preset_checks(name, r, inv, att)
        summary.append((name, r, att, len(inv)))
        for j, v in enumerate(inv):
            rows.append(f"{name},{j},{float(v)!r},{float(att)!r}")

    with open(OUT, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(f"# generated by tests/reference/presets.py (numpy {np.__version__}): "
                 "/usr/bin/python3 tests/reference/presets.py\n")
        fh.write("preset,pair,inv_freq,attention_factor\n")
        for line in rows:
            fh.write(line + "\n")

    # the written file: row count = sum of d/2, every value round-trips
    with open(OUT, encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    data = lines[2:]
    check_eq("csv rows = sum of d/2", len(data), sum(n for _, _, _, n in summary))
    for line in data:
        if "-0.0" in line.split(",")[2:]:
            fail(f"negative zero in {line}")

    print(f"{'preset':17} {'head_dim':>14} {'d':>4} {'base':>9} {'type':9} {'f':>6} {'L0':>7} {'M':>7}  attention_factor")
    for name, r, att, n in summary:
        L0 = r["L0"] if r["type"] in ("yarn", "longrope", "llama3") else "-"
        print(f"{name:17} {str(r['head_dim']) + ' (' + r['hd_from'] + ')':>14} {r['d']:>4} {r['base']:>9g} "
              f"{r['type']:9} {r['f']:>6g} {L0!s:>7} {r['M']:>7}  {att!r}")
    print(f"wrote tests/reference/presets.csv: {len(data)} rows")

    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed:", file=sys.stderr)
        for msg in FAILURES:
            print("  " + msg, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
