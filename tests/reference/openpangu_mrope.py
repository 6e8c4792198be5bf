#!/usr/bin/python3
"""openPangu-VL's interleaved M-RoPE against Qwen3-VL's, ported to NumPy from the engines' code (docs/multi-axis.md
(A3), (A10)), written from the sources, not from src/:

  openPangu-VL  vllm-project/vllm vllm/model_executor/layers/rotary_embedding/openpangu_rope.py @ 098d12c28e
                MRotaryEmbeddingInterleaved: __init__ requires sum(mrope_section) == rotary_dim // 2 and
                mrope_interleaved, and for 3 sections calls get_mrope_interleaved_id_list(t, h, w, force_last=True);
                mrope_dim = that list * 2. _rebuild_pos_emb takes cos_sin_cache[positions] ([3, tokens, rotary_dim]),
                splits its last axis into 1-wide chunks and takes chunk i from axis mrope_dim[i]; forward applies
                apply_rotary_emb_torch with is_neox_style. get_rope selects the class for rope_type "openpangu"
                (rotary_embedding/__init__.py, read at 07b12f1b16; is_neox_style defaults to True there).
                The cache: RotaryEmbedding._compute_cos_sin_cache (rotary_embedding/base.py, read at 04458da084):
                inv_freq = 1 / base^(arange(0, rotary_dim, 2, float) / rotary_dim), freqs = t · inv_freq in float32,
                cache = cat(cos, sin).
  Qwen3-VL      huggingface/transformers src/transformers/models/qwen3_vl/modeling_qwen3_vl.py @ 00709b862bb8
                Qwen3VLTextRotaryEmbedding.apply_interleaved_mrope: freqs_t = freqs[0]; for (dim, offset) in
                ((1, 1), (2, 2)): freqs_t[..., offset : 3 * mrope_section[dim] : 3] = freqs[dim, ..., same];
                emb = cat(freqs_t, freqs_t); q * cos + rotate_half(q) * sin, in float32.

The dumps: q [tokens, 2 heads, 128] float32 of text 4, an image 1 × 12 × 12 at t 4 (h, w = 4 + row, 4 + column),
text 4, for the sections [24, 20, 20] (θ 5e6, Qwen3-VL's) and [16, 24, 24] (θ 1e6, Qwen2-VL's). Writes
OUT_DIR/<case>/{q,q_rope}.npy, OUT_DIR/positions.csv (t,h,w), OUT_DIR/<sections>.json (the configs) and
OUT_DIR/manifest.json: each case's config, expected exit and the variant the diagnosis names with its pair.
Usage: openpangu_mrope.py OUT_DIR
"""
import json
import os
import sys

import numpy as np

F32 = np.float32
D = 128


def get_mrope_interleaved_id_list(a, b, c, force_last=False):
    """openpangu_rope.py's static method: the axis of each pair, laid out greedily."""
    if force_last:
        a -= 1
    counts = {0: a, 1: b, 2: c}
    placed = {k: 0 for k in counts}
    rem = dict(counts)
    seq = []
    last = None
    for _ in range(a + b + c):
        cands = [k for k in rem if rem[k] > 0 and k != last]
        if not cands:
            cands = [k for k in rem if rem[k] > 0]
        best = min(cands, key=lambda k: (placed[k] / counts[k], k))
        seq.append(best)
        placed[best] += 1
        rem[best] -= 1
        last = best
    if force_last:
        seq.append(0)
    return seq


def qwen3_axes(sections, pairs):
    """apply_interleaved_mrope's layout as the axis of each pair: t everywhere, h and w overwrite their thirds."""
    axes = [0] * pairs
    for dim, offset in ((1, 1), (2, 2)):
        for j in range(offset, min(3 * sections[dim], pairs), 3):  # a slice stops at the end
            axes[j] = dim
    return axes


def vllm_pangu_rotate(q, pos3, base, sections):
    rd = q.shape[-1]
    assert sum(sections) == rd // 2
    mrope_dim = get_mrope_interleaved_id_list(*sections, force_last=True) * 2
    inv = (F32(1) / (F32(base) ** (np.arange(0, rd, 2, dtype=F32) / F32(rd)))).astype(F32)
    freqs = (pos3.astype(F32)[..., None] * inv).astype(F32)  # [3, tokens, rd/2]
    cache = np.concatenate([np.cos(freqs), np.sin(freqs)], axis=-1).astype(F32)  # cos_sin_cache[positions]
    cos_sin = np.stack([cache[mrope_dim[i], :, i] for i in range(rd)], axis=-1)  # chunk i from axis mrope_dim[i]
    cos, sin = cos_sin[:, None, :rd // 2], cos_sin[:, None, rd // 2:]
    x1, x2 = q[..., :rd // 2], q[..., rd // 2:]  # apply_rotary_emb_torch, is_neox_style
    return np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=-1).astype(F32)


def hf_qwen3_rotate(q, pos3, base, sections):
    d = q.shape[-1]
    inv = (1.0 / (base ** (np.arange(0, d, 2, dtype=np.int64).astype(F32) / d))).astype(F32)
    freqs = (pos3.astype(F32)[..., None] * inv).astype(F32)
    freqs_t = freqs[0].copy()
    for dim, offset in ((1, 1), (2, 2)):
        idx = slice(offset, sections[dim] * 3, 3)
        freqs_t[..., idx] = freqs[dim, ..., idx]
    emb = np.concatenate([freqs_t, freqs_t], axis=-1)
    cos, sin = np.cos(emb).astype(F32)[:, None, :], np.sin(emb).astype(F32)[:, None, :]
    rot = np.concatenate([-q[..., d // 2:], q[..., :d // 2]], axis=-1)
    return (q * cos + rot * sin).astype(F32)


def positions():
    rows = [(p, p, p) for p in range(4)]
    rows += [(4, 4 + h, 4 + w) for h in range(12) for w in range(12)]
    nxt = max(max(r) for r in rows) + 1
    rows += [(p, p, p) for p in range(nxt, nxt + 4)]
    return np.array(rows, dtype=np.int64).T  # [3, tokens]


def config(sections, base, rope_type):
    block = {"rope_type": rope_type, "rope_theta": base, "mrope_section": sections, "mrope_interleaved": True}
    return {"model_type": "openpangu_vl_text" if rope_type == "openpangu" else "qwen3_vl_text", "hidden_size": 2048,
            "num_attention_heads": 16, "head_dim": D, "max_position_embeddings": 32768, "rope_parameters": block}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    # The first pair where the two orders part, computed from the two layouts (the claim: 23 and 3).
    first = {}
    for sections in ([24, 20, 20], [16, 24, 24]):
        g, q3 = get_mrope_interleaved_id_list(*sections, force_last=True), qwen3_axes(sections, D // 2)
        assert len(g) == D // 2 and [g.count(k) for k in range(3)] == sections
        first[tuple(sections)] = next(j for j in range(D // 2) if g[j] != q3[j])
    assert first == {(24, 20, 20): 23, (16, 24, 24): 3}, first
    # With [22, 21, 21] the two orders are the same: no variant to name.
    assert get_mrope_interleaved_id_list(22, 21, 21, force_last=True) == qwen3_axes([22, 21, 21], 64)
    pos3 = positions()
    with open(os.path.join(out, "positions.csv"), "w") as f:
        f.write("t,h,w\n" + "".join(f"{t},{h},{w}\n" for t, h, w in pos3.T))
    rng = np.random.default_rng(67_3)
    manifest = []
    for sections, base in (([24, 20, 20], 5e6), ([16, 24, 24], 1e6)):
        tag = "_".join(map(str, sections))
        for rope_type in ("openpangu", "default"):
            with open(os.path.join(out, f"{rope_type}_{tag}.json"), "w") as f:
                json.dump(config(sections, base, rope_type), f)
        pair = first[tuple(sections)]
        for engine, rotate in (("pangu", vllm_pangu_rotate), ("qwen3", hf_qwen3_rotate)):
            q = rng.standard_normal((pos3.shape[1], 2, D)).astype(F32)
            d = os.path.join(out, f"{engine}_{tag}")
            os.makedirs(d, exist_ok=True)
            np.save(os.path.join(d, "q.npy"), q)
            np.save(os.path.join(d, "q_rope.npy"), rotate(q, pos3, base, sections))
            own = "openpangu" if engine == "pangu" else "default"
            other = "default" if engine == "pangu" else "openpangu"
            manifest.append(dict(name=f"{engine}_{tag}", dir=f"{engine}_{tag}", config=f"{own}_{tag}.json", exit=0,
                                 variant=None, pair=None))
            manifest.append(dict(name=f"{engine}_{tag}_as_{other}", dir=f"{engine}_{tag}",
                                 config=f"{other}_{tag}.json", exit=1,
                                 variant="mrope-openpangu-order" if engine == "pangu" else "mrope-qwen3-order",
                                 pair=pair))
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(dict(cases=manifest, first_pair={"_".join(map(str, k)): v for k, v in first.items()}), f)
    print(f"{len(manifest)} cases in {out}")


if __name__ == "__main__":
    main()
