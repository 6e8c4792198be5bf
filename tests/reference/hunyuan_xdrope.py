#!/usr/bin/python3
"""HunyuanVL's XD-RoPE as HF's and Tencent's code compute it, ported to NumPy from the sources (docs/multi-axis.md
(A11)), written from them, not from src/:

  HF       huggingface/transformers src/transformers/models/hunyuan_vl/modular_hunyuan_vl.py @ 17963211f4
           HunYuanVLDenseV1Attention._normalize_xdrope_section (whole pairs summing to head_dim / 2 as written, else
           ratios <= 1 times head_dim / 2, int() of each), _apply_rotary_pos_emb_xdrope (cos[position_ids] permuted
           to [B, S, x_dim, head_dim]; xdrope_section = [int(section) * 2 for section in xdrope_section]; cos.split(
           xdrope_section, dim=-1), piece i from stream i % x_dim; q * cos + rotate_half(q) * sin in float32),
           forward (XD-RoPE when position_ids is [B, 4, S] and nothing is cached yet: prefill; otherwise
           position_ids[:, 0, :], the stream p), HunYuanVLPreTrainedModel.build_rotary_cache_from_inv_freq (t =
           arange(seq_len) float32, freqs = outer(t, inv_freq), emb = cat(freqs, freqs)) and _init_weights (rope_type
           dynamic with alpha: base = rope_theta * alpha ** (dim / (dim - 2)), inv_freq = 1 / base ** (arange(0, dim,
           2).float() / dim)). configuration_hunyuan_vl.py @ 3aae4b5e4a HunYuanVLTextConfig._normalize_rope_parameters:
           rope_type "xdrope" is rewritten to "dynamic", a missing rope_type read as "default".
  Tencent  Tencent-Hunyuan/HunyuanOCR train/modeling_hunyuan_vl.py @ c55965d3da HunYuanVLRotaryEmbedding.forward
           (section_doubled = xdrope_section * 2, the list repeated; emb = cat of piece i of stream i % x_dim) and
           _compute_inv_freq (the same NTK-alpha base), HunYuanVLAttention.__init__ (ratios when every value <= 1).
  mlx-vlm  Blaizzy/mlx-vlm mlx_vlm/models/hunyuan_vl/language.py @ 17df31698d apply_rotary_pos_emb_xdrope
           (xdrope_section_doubled = xdrope_section * 2: Tencent's) and LanguageModel.get_xdrope_input_positions (the
           position ids: p = w = h = t = the index; an image from its image token + 2 over (grid_w / merge + 1) x
           (grid_h / merge) tokens, w the column (the row's newline token last), h the row, t the image's index).

The dumps: q [38 tokens, 2 heads, 128] float32, xdrope_section [16, 16, 16, 16], rope_theta 1e4, alpha 1000: text,
an image token at index 3, an image of grid (1, 8, 12) (merge 2: 4 rows of 6 + 1 tokens) from index 5, text. Writes
OUT_DIR/<case>/{q,q_rope}.npy, OUT_DIR/positions.csv (rows p,w,h,t, no header), OUT_DIR/decode_positions.csv,
OUT_DIR/hunyuan_vl.json and hunyuan_vl_ratios.json (the configs) and OUT_DIR/manifest.json: each case's config,
map, expected exit, the variant the diagnosis names with its pair, and rope check's arguments. A text-only case (16
tokens, p = w = h = t = the index, OUT_DIR/text_positions.csv) is the same dump in both maps.
Usage: hunyuan_xdrope.py OUT_DIR
       hunyuan_xdrope.py --examples data/dumps   (the example dump of docs/check.md, "3. rope identify")
"""
import json
import os
import sys

import numpy as np

F32 = np.float32
D = 128
THETA, ALPHA = 1e4, 1000.0
SECTIONS = [16, 16, 16, 16]
IMAGE_TOKEN = 120120


def inv_freq(dim=D):
    """_init_weights / _compute_inv_freq: a Python float base, the exponents in float32."""
    base = THETA * ALPHA ** (dim / (dim - 2))
    return (F32(1.0) / (F32(base) ** (np.arange(0, dim, 2).astype(F32) / F32(dim)))).astype(F32)


def normalize_hf(sections, head_dim):
    values = [float(s) for s in sections]
    ints = [int(s) for s in values]
    if all(v.is_integer() for v in values) and sum(ints) * 2 == head_dim:
        return ints
    if all(v <= 1.0 for v in values):
        return [int(v * head_dim / 2) for v in values]
    return ints


def rotate_half(x):
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)


def hf_rotate(q, pos4, sections):
    """_apply_rotary_pos_emb_xdrope on q [S, heads, d] with position_ids [4, S] (batch 1)."""
    seq_len = max(q.shape[0], int(pos4.max()) + 1)
    freqs = np.outer(np.arange(seq_len, dtype=F32), inv_freq()).astype(F32)
    emb = np.concatenate([freqs, freqs], axis=-1)
    cos_t, sin_t = np.cos(emb).astype(F32), np.sin(emb).astype(F32)
    cos = cos_t[pos4].transpose(1, 0, 2)  # [S, 4, d]
    sin = sin_t[pos4].transpose(1, 0, 2)
    doubled = [int(s) * 2 for s in sections]
    assert sum(doubled) == cos.shape[-1]
    edges = np.cumsum([0] + doubled)
    cos = np.concatenate([cos[:, i % 4, edges[i]:edges[i + 1]] for i in range(len(doubled))], axis=-1)
    sin = np.concatenate([sin[:, i % 4, edges[i]:edges[i + 1]] for i in range(len(doubled))], axis=-1)
    return (q * cos[:, None, :] + rotate_half(q) * sin[:, None, :]).astype(F32)


def tencent_rotate(q, pos4, sections):
    """HunYuanVLRotaryEmbedding.forward with xdrope_section, then apply_rotary_pos_emb_xdrope (cos of dim 3)."""
    inv = inv_freq()
    per_dim = []
    for k in range(4):
        f = (pos4[k].astype(F32)[:, None] * inv[None, :]).astype(F32)
        per_dim.append(np.concatenate([f, f], axis=-1))
    section_doubled = list(sections) * 2
    edges = np.cumsum([0] + section_doubled)
    emb = np.concatenate([per_dim[i % 4][:, edges[i]:edges[i + 1]] for i in range(len(section_doubled))], axis=-1)
    cos, sin = np.cos(emb).astype(F32), np.sin(emb).astype(F32)
    return (q * cos[:, None, :] + rotate_half(q) * sin[:, None, :]).astype(F32)


def decode_rotate(q, p):
    """A decode step: position_ids [B, S] (or [:, 0, :], the stream p), apply_rotary_pos_emb of the dense model."""
    freqs = (p.astype(F32)[:, None] * inv_freq()[None, :]).astype(F32)
    emb = np.concatenate([freqs, freqs], axis=-1)
    return (q * np.cos(emb)[:, None, :] + rotate_half(q) * np.sin(emb)[:, None, :]).astype(F32)


def xdrope_positions(tokens, grids, merge=2):
    """mlx-vlm get_xdrope_input_positions: [p, w, h, t] of every token."""
    tokens = np.array(tokens)
    starts = np.where(tokens == IMAGE_TOKEN)[0].tolist()
    n = len(tokens)
    p, w, h, t = (np.arange(n) for _ in range(4))
    for i, start in enumerate(starts):
        pos = start + 2
        _, gh, gw = grids[i]
        gh, gw = gh // merge, gw // merge
        end = min(pos + (gw + 1) * gh, n)
        count = end - pos
        w[pos:end] = np.tile(np.arange(gw + 1), gh)[:count]
        h[pos:end] = np.repeat(np.arange(gh), gw + 1)[:count]
        t[pos:end] = i
    return np.stack([p, w, h, t])


def config(sections):
    return {"model_type": "hunyuan_vl", "architectures": ["HunYuanVLForConditionalGeneration"], "hidden_size": 1024,
            "num_attention_heads": 8, "head_dim": D, "max_position_embeddings": 32768, "rope_theta": THETA,
            "rope_scaling": {"type": "xdrope", "alpha": ALPHA, "factor": 1.0, "xdrope_section": sections}}


def two_token_example():
    """docs/multi-axis.md (A11): pair 0 (θ_0 = 1 before alpha, here inv_freq[0] = 1) of x = (x_0, x_64) = (1, 0) at
    a text token (3, 3, 3, 3) and an image token (5, 1, 0, 0); HF's turns x_0 by p and x_64 by h."""
    out = {}
    for name, rotate in (("hf", hf_rotate), ("tencent", tencent_rotate)):
        q = np.zeros((2, 1, D), dtype=F32)
        q[:, 0, 0] = 1
        pos = np.array([[3, 5], [3, 1], [3, 0], [3, 0]])
        y = rotate(q, pos, SECTIONS)
        out[name] = [(float(y[s, 0, 0]), float(y[s, 0, 64]), float(np.linalg.norm(y[s, 0]))) for s in range(2)]
    return out


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    assert normalize_hf(SECTIONS, D) == SECTIONS and normalize_hf([0.25] * 4, D) == SECTIONS
    tokens = [11, 12, 13, IMAGE_TOKEN, 120118] + [0] * 28 + [120119, 14, 15, 16, 17]
    pos4 = xdrope_positions(tokens, [(1, 8, 12)])
    assert pos4.shape == (4, 38) and pos4[1, 5:12].tolist() == list(range(7)) and pos4[2, 12] == 1
    with open(os.path.join(out, "positions.csv"), "w") as f:
        f.write("".join(f"{p},{w},{h},{t}\n" for p, w, h, t in pos4.T))
    with open(os.path.join(out, "decode_positions.csv"), "w") as f:
        f.write("".join(f"{p}\n" for p in range(38, 42)))
    for name, sections in (("hunyuan_vl", SECTIONS), ("hunyuan_vl_ratios", [0.25] * 4)):
        with open(os.path.join(out, f"{name}.json"), "w") as f:
            json.dump(config(sections), f)
    rng = np.random.default_rng(67_2)
    manifest = []
    for engine, rotate, other in (("hf", hf_rotate, "tencent"), ("tencent", tencent_rotate, "hf")):
        q = rng.standard_normal((38, 2, D)).astype(F32)
        y = rotate(q, pos4, SECTIONS)
        norms = np.linalg.norm(y, axis=-1) / np.linalg.norm(q, axis=-1)
        # Tencent's turns each pair by one angle (norms kept); HF's image tokens are no rotation, text tokens are.
        assert (np.abs(norms - 1).max() < 1e-5) == (engine == "tencent"), (engine, np.abs(norms - 1).max())
        assert np.abs(norms[:3] - 1).max() < 1e-5
        d = os.path.join(out, engine)
        os.makedirs(d, exist_ok=True)
        np.save(os.path.join(d, "q.npy"), q)
        np.save(os.path.join(d, "q_rope.npy"), y)
        manifest.append(dict(name=f"{engine}", dir=engine, config="hunyuan_vl.json", map=engine, exit=0,
                             variant=None, pair=None))
        manifest.append(dict(name=f"{engine}_as_{other}", dir=engine, config="hunyuan_vl.json", map=other, exit=1,
                             variant=f"xdrope-{engine}-map", pair=0))
    manifest.append(dict(name="hf_ratios_default", dir="hf", config="hunyuan_vl_ratios.json", map=None, exit=0,
                         variant=None, pair=None))
    manifest.append(dict(name="tencent_as_default", dir="tencent", config="hunyuan_vl.json", map=None, exit=1,
                         variant="xdrope-tencent-map", pair=0))
    # Text alone (p = w = h = t = the index): both maps turn every pair by one angle, the same one.
    q = rng.standard_normal((16, 2, D)).astype(F32)
    text4 = np.stack([np.arange(16)] * 4)
    y = hf_rotate(q, text4, SECTIONS)
    assert np.abs(y - tencent_rotate(q, text4, SECTIONS)).max() < 1e-5
    with open(os.path.join(out, "text_positions.csv"), "w") as f:
        f.write("".join(f"{i},{i},{i},{i}\n" for i in range(16)))
    d = os.path.join(out, "text")
    os.makedirs(d, exist_ok=True)
    np.save(os.path.join(d, "q.npy"), q)
    np.save(os.path.join(d, "q_rope.npy"), y)
    for m in ("hf", "tencent"):
        manifest.append(dict(name=f"text_{m}", dir="text", config="hunyuan_vl.json", map=m, exit=0, variant=None,
                             pair=None, positions="text_positions.csv"))
    q = rng.standard_normal((4, 2, D)).astype(F32)
    d = os.path.join(out, "decode")
    os.makedirs(d, exist_ok=True)
    np.save(os.path.join(d, "q.npy"), q)
    np.save(os.path.join(d, "q_rope.npy"), decode_rotate(q, np.arange(38, 42)))
    for m in ("hf", "tencent"):
        manifest.append(dict(name=f"decode_{m}", dir="decode", config="hunyuan_vl.json", map=m, exit=0, variant=None,
                             pair=None, positions="decode_positions.csv"))
    for case in manifest:  # rope check's arguments (tests/cli/test_cmd_identify_agrees.cpp runs identify beside it)
        d = os.path.join(out, case["dir"])
        case["args"] = ["--config", os.path.join(out, case["config"]), "--before", os.path.join(d, "q.npy"),
                        "--after", os.path.join(d, "q_rope.npy"), "--axis-positions",
                        os.path.join(out, case.get("positions", "positions.csv")), "--angles", "float32"]
        case["args"] += ["--xdrope-map", case["map"]] if case["map"] else []
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(dict(cases=manifest, example=two_token_example()), f, indent=1)
    print(f"{len(manifest)} cases in {out}")


def write_examples(out):
    """The example of docs/check.md (rope identify names HF's map): OUT/xdrope_q.npy, xdrope_q_rope.npy (HF's code,
    the dump above's tokens, 2 heads) and xdrope_positions.csv (rows p,w,h,t)."""
    tokens = [11, 12, 13, IMAGE_TOKEN, 120118] + [0] * 28 + [120119, 14, 15, 16, 17]
    pos4 = xdrope_positions(tokens, [(1, 8, 12)])
    q = np.random.default_rng(67_20).standard_normal((38, 2, D)).astype(F32)
    np.save(os.path.join(out, "xdrope_q.npy"), q)
    np.save(os.path.join(out, "xdrope_q_rope.npy"), hf_rotate(q, pos4, SECTIONS))
    with open(os.path.join(out, "xdrope_positions.csv"), "w") as f:
        f.write("".join(f"{p},{w},{h},{t}\n" for p, w, h, t in pos4.T))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--examples"]:  # hunyuan_xdrope.py --examples data/dumps
        write_examples(sys.argv[2])
    else:
        main()
