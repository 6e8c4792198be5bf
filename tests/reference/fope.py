#!/usr/bin/python3
"""FoPE (Fourier Position Embedding, Intern-S1-Pro) ported to NumPy from the engines' code (docs/multi-axis.md,
"FoPE"), written from the sources, not from src/:

  vLLM (now)    vllm-project/vllm vllm/model_executor/layers/rotary_embedding/fope.py @ 151a2c744af6
                FourierRotaryEmbedding: _compute_inv_freq keeps inv_freq = 1 / base^(arange(0, rotary_dim, 2, float32)
                / rotary_dim) for i < num_inv_freq, or, when num_inv_freq is None, where inv_freq > 2π /
                max_position_embeddings (K kept); _compute_cos_sin_cache: freqs = t ⊗ inv_freq in float32, with
                fope_sep_head sin = einsum("htD, hDd -> thd", sin(freqs), sin_coef) (cos the same with cos_coef),
                otherwise the first head's matrix, sin_coef[0]; then F.pad to head_size // 2 with 1 for cos and 0 for
                sin ("Padding sin with 1 instead would mix in rotate_neox()"), cat(x, x), cache = cat(cos, sin);
                forward_native views query [seq, heads, d] as [seq · n_kv, heads / n_kv, d] against cos [seq · n_kv, d]
                (query head j on KV head j // (heads / n_kv)) and applies query · cos + rotate_neox(query) · sin.
  vLLM (before) the same file @ c215d1e62d7394f965f92676143fc9c5b4913ad2: sin padded with 1 too (value=1 in both
                F.pad calls): a padded pair (x1, x2) becomes (x1 − x2, x2 + x1) = √2·R(π/4).
  HF (remote)   Intern-S1-Pro's own modeling_interns1_pro.py (read in muyaostudio/intern-s1-pro-vs-qwen3-235b-a22b @
                4591d649e4, checkpoints/Intern-S1-Pro/): InternS1ProMoeTextFourierEmbedding.forward pads both sin
                and cos with 1 to head_dim // 2, apply_rotary_pos_emb_sep repeats cos and sin per KV head for the
                query heads (repeat_kv: query head j on KV head j // n_rep) and applies q · cos + rotate_half(q) · sin.
                SGLang's FourierRotaryEmbedding (python/sglang/srt/layers/rotary_embedding/rope_variant.py @
                0b1fd02d56f0) pads both with 1 as well.
  Tensor names  the checkpoint's buffers sin_coef and cos_coef of the text model's rotary_emb (HF remote:
                register_buffer(..., persistent=True)): model.language_model.rotary_emb.sin_coef / .cos_coef in
                Intern-S1-Pro's safetensors (vLLM interns1_pro.py load_weights maps model.language_model. to
                language_model.model. and get_frope_params_map finds rotary_emb.sin_coef / cos_coef).

The dumps: q [13 positions, 16 heads, 128] and k [13, 4, 128] float32, positions spread over 0 … 262143, θ 5e6,
max_position_embeddings 262144 (Intern-S1-Pro's text_config): K = 45 kept, 19 padded pairs (computed here). Random
coefficients [4, 45, 45] (identity plus N(0, 0.5²/K)), written as a sharded checkpoint (cos_coef and sin_coef in two
shards and model.safetensors.index.json). A third case keeps num_inv_freq 32 with one shared matrix [1, 32, 32] in a
single .safetensors. For rope diff, vLLM's current query output again in float64 (rounded to float32 at the end:
OUT_DIR/vllm/q_rope_f64.npy). Writes OUT_DIR/<case>/{q,q_rope,k,k_rope}.npy, OUT_DIR/positions.txt, the configs, the
coefficients and OUT_DIR/manifest.json: each case's config, coefficients, expected exit, the variant named, the
key-value heads whose cos and sin differ and rope check's arguments, and the diffs (two outputs of the same query,
which is right, the variant named).
rope apply and rope matrix (--coefficients, --kv-head): OUT_DIR/apply.json, a vector of key-value head 2 at position
4101 rotated by (F2)–(F4) in float64 with the checkpoint's coefficients, the head's tables, R_m (apply_matrix.npy) and
the largest |R_Mᵀ R_N − R_(N−M)| for M = 3, N = 4101.
Usage: fope.py OUT_DIR
       fope.py --examples data/dumps   (the example dump of docs/check.md, "3. rope identify", and the coefficients
                                        of docs/multi-axis.md's apply and matrix example, fope_tiny.safetensors)
"""
import json
import math
import os
import struct
import sys

import numpy as np

F32 = np.float32
D = 128
BASE = 5e6
L = 262144
N_KV = 4
N_Q = 16
POSITIONS = [0, 1, 2, 3, 5, 8, 13, 4096, 65535, 65536, 131071, 200003, 262143]


def kept_inv_freq(rotary_dim, base, max_pos, num_inv_freq):
    """_compute_inv_freq: float32 inv_freq, the first num_inv_freq, or those > 2π / max_position_embeddings."""
    inv = (F32(1) / (F32(base) ** (np.arange(0, rotary_dim, 2, dtype=F32) / F32(rotary_dim)))).astype(F32)
    if num_inv_freq is not None:
        return inv[:num_inv_freq]
    return inv[inv > F32(2.0 * math.pi / max_pos)]  # a float32 tensor against a Python scalar: compared in float32


def vllm_tables(positions, inv, cos_coef, sin_coef, sep_head, head_size, pad_sin):
    """_compute_cos_sin_cache at the positions (each row is computed on its own): cos, sin [seq, n_kv, head_size]."""
    t = np.asarray(positions, dtype=F32)
    freqs = (t[:, None] * inv[None, :]).astype(F32)  # einsum("j,i -> ji")
    pos_cos, pos_sin = np.cos(freqs).astype(F32), np.sin(freqs).astype(F32)
    if sep_head:
        cos = np.einsum("tD,hDd->thd", pos_cos, cos_coef.astype(F32)).astype(F32)
        sin = np.einsum("tD,hDd->thd", pos_sin, sin_coef.astype(F32)).astype(F32)
    else:  # @151a2c744a: the first head's matrix, broadcast over the KV heads by forward's view
        cos = np.einsum("tD,Dd->td", pos_cos, cos_coef[0].astype(F32)).astype(F32)[:, None, :]
        sin = np.einsum("tD,Dd->td", pos_sin, sin_coef[0].astype(F32)).astype(F32)[:, None, :]
        cos, sin = np.repeat(cos, N_KV, axis=1), np.repeat(sin, N_KV, axis=1)
    pad = head_size // 2 - cos.shape[-1]
    cos = np.pad(cos, ((0, 0), (0, 0), (0, pad)), constant_values=1)
    sin = np.pad(sin, ((0, 0), (0, 0), (0, pad)), constant_values=pad_sin)
    return np.concatenate([cos, cos], axis=-1), np.concatenate([sin, sin], axis=-1)


def rotate_neox(x):
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)


def vllm_forward(x, cos, sin):
    """forward_native: x [seq, heads, d] viewed as [seq · n_kv, heads / n_kv, d] against cos [seq · n_kv, d]."""
    seq, heads, d = x.shape
    n_kv = cos.shape[1]
    xv = x.reshape(seq * n_kv, heads // n_kv, d)
    c, s = cos.reshape(seq * n_kv, 1, d), sin.reshape(seq * n_kv, 1, d)
    return (xv * c + rotate_neox(xv) * s).astype(F32).reshape(seq, heads, d)


def hf_remote_forward(q, k, positions, inv, cos_coef, sin_coef, head_dim):
    """modeling_interns1_pro.py: InternS1ProMoeTextFourierEmbedding.forward (batch 1, fope_sep_head) and
    apply_rotary_pos_emb_sep on q, k laid out [batch, heads, seq, d]."""
    pos = np.asarray(positions, dtype=F32)[None, :]  # position_ids [1, seq]
    freqs = (inv[None, :, None] @ pos[:, None, :]).transpose(0, 2, 1).astype(F32)  # [1, seq, K]
    pos_cos = np.broadcast_to(np.cos(freqs)[:, None], (1, N_KV) + freqs.shape[1:]).astype(F32)
    pos_sin = np.broadcast_to(np.sin(freqs)[:, None], (1, N_KV) + freqs.shape[1:]).astype(F32)
    sin = np.einsum("bhtD,hDd->bhtd", pos_sin, sin_coef.astype(F32)).astype(F32)
    cos = np.einsum("bhtD,hDd->bhtd", pos_cos, cos_coef.astype(F32)).astype(F32)
    pad = ((0, 0), (0, 0), (0, 0), (0, head_dim // 2 - sin.shape[-1]))
    sin, cos = np.pad(sin, pad, constant_values=1), np.pad(cos, pad, constant_values=1)
    sin, cos = np.concatenate([sin, sin], axis=-1), np.concatenate([cos, cos], axis=-1)
    qh, kh = q.transpose(1, 0, 2)[None], k.transpose(1, 0, 2)[None]  # [1, heads, seq, d]
    n_rep = qh.shape[1] // cos.shape[1]
    cos_rep, sin_rep = np.repeat(cos, n_rep, axis=1), np.repeat(sin, n_rep, axis=1)  # repeat_kv
    q_embed = qh * cos_rep + rotate_neox(qh) * sin_rep
    k_embed = kh * cos + rotate_neox(kh) * sin
    return q_embed[0].transpose(1, 0, 2).astype(F32), k_embed[0].transpose(1, 0, 2).astype(F32)


def write_safetensors(path, tensors):
    """huggingface/safetensors README "Format": 8-byte little-endian header size, a JSON header, the buffer."""
    header, blobs, offset = {}, [], 0
    for name, array in tensors.items():
        data = np.ascontiguousarray(array, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(array.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def coefficients(rng, heads, k):
    """Random coefficients near HF's initialisation (xavier_normal_ with fope_init_factor, plus the identity)."""
    return (np.eye(k)[None] + rng.standard_normal((heads, k, k)) * (0.5 / math.sqrt(k))).astype(F32)


def config(num_inv_freq, sep_head):
    """Intern-S1-Pro's config.json, its text_config cut down to what RoPE reads (4 KV heads, 16 query heads)."""
    text = {"model_type": "interns1_pro_text", "head_dim": D, "hidden_size": 2048, "num_attention_heads": N_Q,
            "num_key_value_heads": N_KV, "max_position_embeddings": L, "rope_theta": 5000000,
            "rope_scaling": {"rope_type": "default", "fope_init_factor": 0.5, "fope_sep_head": sep_head,
                             "num_inv_freq": num_inv_freq}}
    return {"architectures": ["InternS1ProForConditionalGeneration"], "model_type": "interns1_pro",
            "text_config": text}


def scaled_rotation(x, cos_half, sin_half):
    """(F4) as vLLM's forward_native computes it, in float64: x · cat(cos, cos) + rotate_neox(x) · cat(sin, sin)."""
    return x * np.concatenate([cos_half, cos_half]) + rotate_neox(x) * np.concatenate([sin_half, sin_half])


def head_tables(position, cos_coef, sin_coef, kv_head, kept):
    """_compute_cos_sin_cache of one key-value head at one position, in float64 (θ_i = base^(−2i/d) in float64, the
    checkpoint's float32 coefficients widened), padded as vLLM @ 151a2c744a pads (cos 1, sin 0)."""
    theta = BASE ** (-np.arange(0, D, 2, dtype=np.float64) / D)
    freqs = position * theta[:kept]
    cos = np.cos(freqs) @ cos_coef[kv_head].astype(np.float64)
    sin = np.sin(freqs) @ sin_coef[kv_head].astype(np.float64)
    pad = D // 2 - kept
    return np.concatenate([cos, np.ones(pad)]), np.concatenate([sin, np.zeros(pad)])


def linear_map(cos_half, sin_half):
    """The matrix of scaled_rotation, column c the image of the unit vector e_c (rope matrix's R_m)."""
    return np.stack([scaled_rotation(e, cos_half, sin_half) for e in np.eye(D)], axis=1)


def write_apply_case(out, cos_coef, sin_coef, kept):
    """rope apply and rope matrix with --coefficients (issue 67 item 1): one vector of key-value head 2 at one
    position, rotated by (F2)–(F4) in float64, the head's cos′, sin′, |ζ| and arg ζ per pair, R_m, and for two
    positions M, N the largest |R_Mᵀ R_N − R_(N−M)| (FoPE's blocks are scaled: no relative property)."""
    rng = np.random.default_rng(67_3)
    kv_head, m, rel_m, rel_n = 2, 4101, 3, 4101
    x = rng.standard_normal(D)
    cos, sin = head_tables(m, cos_coef, sin_coef, kv_head, kept)
    r_m = linear_map(cos, sin)
    r_a = linear_map(*head_tables(rel_m, cos_coef, sin_coef, kv_head, kept))
    r_b = linear_map(*head_tables(rel_n, cos_coef, sin_coef, kv_head, kept))
    r_ab = linear_map(*head_tables(rel_n - rel_m, cos_coef, sin_coef, kv_head, kept))
    rel = np.abs(r_a.T @ r_b - r_ab)
    row, col = np.unravel_index(np.argmax(rel), rel.shape)
    # Σ_D |C_cos[h, D, j]| + |C_sin[h, D, j]|, the largest over j: how much a float64 angle error can grow in cos′, sin′
    weight = float(np.max(np.abs(cos_coef[kv_head]).sum(axis=0) + np.abs(sin_coef[kv_head]).sum(axis=0)))
    np.save(os.path.join(out, "apply_matrix.npy"), r_m)
    with open(os.path.join(out, "apply_vector.txt"), "w") as f:
        f.write(",".join(repr(float(v)) for v in x))
    case = dict(config="checkpoint/config.json", coefficients="checkpoint", kv_head=kv_head, position=m,
                vector="apply_vector.txt", expected=scaled_rotation(x, cos, sin).tolist(), cos=cos.tolist(),
                sin=sin.tolist(), scale=np.hypot(cos, sin).tolist(), angle=np.arctan2(sin, cos).tolist(),
                matrix="apply_matrix.npy", weight=weight,
                relative=dict(m=rel_m, n=rel_n, max_difference=float(rel[row, col]), row=int(row), column=int(col)))
    with open(os.path.join(out, "apply.json"), "w") as f:
        json.dump(case, f)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    inv = kept_inv_freq(D, BASE, L, None)
    kept = inv.shape[0]
    # Intern-S1-Pro: θ_i > 2π/262144 for i ≤ 44 (ln(262144/2π)/ln(5e6)·64 = 44.14): 45 kept, 19 padded pairs.
    assert kept == 45 and D // 2 - kept == 19, kept
    with open(os.path.join(out, "positions.txt"), "w") as f:
        f.write("".join(f"{p}\n" for p in POSITIONS))
    rng = np.random.default_rng(67_1)
    cases = []

    # Intern-S1-Pro as it is: fope_sep_head, K 45, the coefficients in two shards with an index.
    cos_coef, sin_coef = coefficients(rng, N_KV, kept), coefficients(rng, N_KV, kept)
    ckpt = os.path.join(out, "checkpoint")
    os.makedirs(ckpt, exist_ok=True)
    names = {"cos": "model.language_model.rotary_emb.cos_coef", "sin": "model.language_model.rotary_emb.sin_coef"}
    write_safetensors(os.path.join(ckpt, "model-00001-of-00002.safetensors"), {names["cos"]: cos_coef})
    write_safetensors(os.path.join(ckpt, "model-00002-of-00002.safetensors"), {names["sin"]: sin_coef})
    with open(os.path.join(ckpt, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {}, "weight_map": {names["cos"]: "model-00001-of-00002.safetensors",
                                                  names["sin"]: "model-00002-of-00002.safetensors"}}, f)
    with open(os.path.join(ckpt, "config.json"), "w") as f:
        json.dump(config(None, True), f)
    write_apply_case(out, cos_coef, sin_coef, kept)
    q = rng.standard_normal((len(POSITIONS), N_Q, D)).astype(F32)
    k = rng.standard_normal((len(POSITIONS), N_KV, D)).astype(F32)
    hf_q, hf_k = hf_remote_forward(q, k, POSITIONS, inv, cos_coef, sin_coef, D)
    for tag, pad_sin, variant in (("vllm", 0, None), ("vllm_c215d1e", 1, "fope-sin-padded-one")):
        cos, sin = vllm_tables(POSITIONS, inv, cos_coef, sin_coef, True, D, pad_sin)
        d = os.path.join(out, tag)
        os.makedirs(d, exist_ok=True)
        q_rope, k_rope = vllm_forward(q, cos, sin), vllm_forward(k, cos, sin)
        if pad_sin == 1:  # the model's own HF code computes what vLLM did before (padding sin with 1)
            assert np.allclose(q_rope, hf_q, rtol=0, atol=1e-5) and np.allclose(k_rope, hf_k, rtol=0, atol=1e-5)
        else:  # the padded pairs pass through: the last 19 pairs of each half unchanged
            assert np.array_equal(q_rope[..., kept:D // 2], q[..., kept:D // 2])
        for name, x, y in (("q", q, q_rope), ("k", k, k_rope)):
            np.save(os.path.join(d, f"{name}.npy"), x)
            np.save(os.path.join(d, f"{name}_rope.npy"), y)
            cases.append(dict(name=f"{tag}_{name}", dir=tag, tensor=name, config="checkpoint/config.json",
                              coefficients="checkpoint", exit=1 if variant else 0, variant=variant,
                              padded=D // 2 - kept if variant else None))
    # One key-value head's heads alone, as a kernel dumps a head (rope check --kv-head): k head 2 and q heads 8 … 11 (its
    # group: q head h on key-value head h // 4) of vLLM's current rotation, sliced from the dumps above.
    cos, sin = vllm_tables(POSITIONS, inv, cos_coef, sin_coef, True, D, 0)
    d = os.path.join(out, "vllm_kv2")
    os.makedirs(d, exist_ok=True)
    group = N_Q // N_KV
    for name, x in (("q", q[:, 2 * group:3 * group]), ("k", k[:, 2:3])):
        y = vllm_forward(q, cos, sin)[:, 2 * group:3 * group] if name == "q" else vllm_forward(k, cos, sin)[:, 2:3]
        np.save(os.path.join(d, f"{name}.npy"), x)
        np.save(os.path.join(d, f"{name}_rope.npy"), y)
    kv2 = [dict(name=f"vllm_kv2_{t}", dir="vllm_kv2", tensor=t, config="checkpoint/config.json",
                coefficients="checkpoint", exit=0, variant=None, padded=None, extra=["--kv-head", "2"])
           for t in ("q", "k")]
    kv2.append(dict(name="vllm_kv2_k_as_head_0", dir="vllm_kv2", tensor="k", config="checkpoint/config.json",
                    coefficients="checkpoint", exit=1, variant="fope-kv-head-other", padded=None, kv_head=2,
                    extra=["--kv-head", "0"]))
    # rope diff's second right implementation: vLLM's current tables and rotation in float64, rounded to float32 once
    # at the end (another order of rounding than vllm/q_rope.npy, both right: they differ within (D2)).
    t64 = np.asarray(POSITIONS, dtype=np.float64)[:, None] * inv.astype(np.float64)[None, :]
    cos64 = np.einsum("tD,hDd->thd", np.cos(t64), cos_coef.astype(np.float64))
    sin64 = np.einsum("tD,hDd->thd", np.sin(t64), sin_coef.astype(np.float64))
    pad = ((0, 0), (0, 0), (0, D // 2 - kept))
    cos64, sin64 = np.pad(cos64, pad, constant_values=1), np.pad(sin64, pad, constant_values=0)
    cos64, sin64 = np.concatenate([cos64, cos64], axis=-1), np.concatenate([sin64, sin64], axis=-1)
    qv = q.astype(np.float64).reshape(len(POSITIONS) * N_KV, N_Q // N_KV, D)
    c64, s64 = cos64.reshape(len(POSITIONS) * N_KV, 1, D), sin64.reshape(len(POSITIONS) * N_KV, 1, D)
    np.save(os.path.join(out, "vllm", "q_rope_f64.npy"),
            (qv * c64 + rotate_neox(qv) * s64).reshape(len(POSITIONS), N_Q, D).astype(F32))
    diffs = [dict(name="current_vs_earlier", a="vllm/q_rope.npy", b="vllm_c215d1e/q_rope.npy", exit=1, a_right=True,
                  b_right=False, b_variant="fope-sin-padded-one", padded=D // 2 - kept),
             dict(name="float32_vs_float64", a="vllm/q_rope.npy", b="vllm/q_rope_f64.npy", exit=0, a_right=True,
                  b_right=True, b_variant=None, padded=None)]
    # One shared matrix (fope_sep_head false) of num_inv_freq 32, in one .safetensors file: vLLM @151a2c744a.
    inv32 = kept_inv_freq(D, BASE, L, 32)
    shared_cos, shared_sin = coefficients(rng, 1, 32), coefficients(rng, 1, 32)
    write_safetensors(os.path.join(out, "shared.safetensors"), {names["cos"]: shared_cos, names["sin"]: shared_sin})
    with open(os.path.join(out, "shared.json"), "w") as f:
        json.dump(config(32, False), f)
    cos, sin = vllm_tables(POSITIONS, inv32, shared_cos, shared_sin, False, D, 0)
    d = os.path.join(out, "shared")
    os.makedirs(d, exist_ok=True)
    np.save(os.path.join(d, "q.npy"), q)
    np.save(os.path.join(d, "q_rope.npy"), vllm_forward(q, cos, sin))
    cases.append(dict(name="shared_q", dir="shared", tensor="q", config="shared.json",
                      coefficients="shared.safetensors", exit=0, variant=None, padded=None))
    cases += kv2  # after the others: the tests that take cases by index keep theirs
    for case in cases:  # rope check's arguments (tests/cli/test_cmd_identify_agrees.cpp runs identify beside it)
        d, t = os.path.join(out, case["dir"]), case["tensor"]
        case["args"] = ["--config", os.path.join(out, case["config"]), "--coefficients",
                        os.path.join(out, case["coefficients"]), "--before", os.path.join(d, f"{t}.npy"), "--after",
                        os.path.join(d, f"{t}_rope.npy"), "--positions", "@" + os.path.join(out, "positions.txt"),
                        "--angles", "float32"] + case.get("extra", [])
        case["kv_heads"] = N_KV if case["config"] != "shared.json" else 1
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(dict(cases=cases, diffs=diffs, kept=kept, padded=D // 2 - kept), f)
    print(f"{len(cases)} cases in {out}: K = {kept} kept, {D // 2 - kept} padded pairs")


def write_examples(out):
    """The example of docs/check.md (rope identify names FoPE and its padding with sin 1): OUT/fope_k.npy and
    fope_k_rope.npy, the keys [13, 4, 128] of Intern-S1-Pro's FoPE (K 45) with random coefficients as vLLM's fope.py @
    c215d1e62d computes them (sin padded with 1), at the positions of OUT/fope_positions.txt."""
    rng = np.random.default_rng(67_10)
    inv = kept_inv_freq(D, BASE, L, None)
    cos_coef, sin_coef = coefficients(rng, N_KV, inv.shape[0]), coefficients(rng, N_KV, inv.shape[0])
    k = rng.standard_normal((len(POSITIONS), N_KV, D)).astype(F32)
    cos, sin = vllm_tables(POSITIONS, inv, cos_coef, sin_coef, True, D, 1)
    np.save(os.path.join(out, "fope_k.npy"), k)
    np.save(os.path.join(out, "fope_k_rope.npy"), vllm_forward(k, cos, sin))
    with open(os.path.join(out, "fope_positions.txt"), "w") as f:
        f.write("".join(f"{p}\n" for p in POSITIONS))
    # rope apply's and rope matrix's example (docs/multi-axis.md §7, "In the commands"): a FoPE head of 8 channels,
    # num_inv_freq 2 of its 4 pairs, 2 key-value heads, their coefficients [2, 2, 2] in one .safetensors file (the
    # config beside it is data/configs/fope-tiny.json).
    tiny = np.random.default_rng(67_11)
    tiny_cos, tiny_sin = coefficients(tiny, 2, 2), coefficients(tiny, 2, 2)
    write_safetensors(os.path.join(out, "fope_tiny.safetensors"),
                      {"model.rotary_emb.cos_coef": tiny_cos, "model.rotary_emb.sin_coef": tiny_sin})
    # rope check --kv-head's example (docs/multi-axis.md): key-value head 1's key alone, [8, 1, 8] at positions 0 … 7,
    # as vLLM's fope.py @ 151a2c744af6 turns it (padded pairs passed through) with that head's coefficients.
    positions = list(range(8))
    k = np.random.default_rng(78_2).standard_normal((len(positions), 2, 8)).astype(F32)
    cos, sin = vllm_tables(positions, kept_inv_freq(8, 10000, 4096, 2), tiny_cos, tiny_sin, True, 8, 0)
    np.save(os.path.join(out, "fope_tiny_k1.npy"), k[:, 1:2])
    np.save(os.path.join(out, "fope_tiny_k1_rope.npy"), vllm_forward(k, cos, sin)[:, 1:2])


if __name__ == "__main__":
    if sys.argv[1:2] == ["--examples"]:  # fope.py --examples data/dumps
        write_examples(sys.argv[2])
    else:
        main()
