#!/usr/bin/python3
"""Independent NumPy reference for multi-axis RoPE (docs/multi-axis.md), written from the public model
code, not from the C++ code in src/:

    chunked      Hugging Face transformers src/transformers/models/qwen2_vl/modeling_qwen2_vl.py
                 apply_multimodal_rotary_pos_emb (Qwen2-VL, Qwen2.5-VL): the rotary embedding computes
                 freqs = position_ids[a] * inv_freq for each of the 3 axes a (t, h, w), emb = cat(freqs,
                 freqs), cos = emb.cos(), sin = emb.sin() (times the attention scaling, 1 here); then
                 cos.split(mrope_section * 2, dim=-1) and chunk i is taken from axis i % 3, and
                 q_embed = q * cos + rotate_half(q) * sin.
    interleaved  src/transformers/models/qwen3_vl/modeling_qwen3_vl.py Qwen3VLTextRotaryEmbedding
                 apply_interleaved_mrope: freqs_t = freqs[0]; for dim, offset in ((1, 1), (2, 2)):
                 freqs_t[offset : 3 * mrope_section[dim] : 3] = freqs[dim][same slice]; emb = cat(freqs_t,
                 freqs_t) and the same q * cos + rotate_half(q) * sin.
    llama.cpp    ggml-org/llama.cpp ggml/src/ggml-cpu/ops.cpp ggml_mrope_cache_init: for pair j the
                 sector is j % (s0 + s1 + s2 + s3); MROPE sends sector < s0 to t, < s0+s1 to h,
                 < s0+s1+s2 to w, else to the 4th slot e; IMROPE (qwen3vl) sends sector % 3 == 1 and
                 sector < 3 s1 to h, sector % 3 == 2 and sector < 3 s2 to w, sector % 3 == 0 and
                 sector < 3 s0 to t, else to e.

The head vector is x_j = cos(0.7 j + 0.3) + 0.01 j (j = 0 .. 127), the frequencies are the presets'
(presets.py computes them independently of src/). Writes, next to itself:

    mrope_apply.csv      preset,t,h,w,channel,input,output      (floats as repr())
    mrope_ownership.csv  rule,sections,pair,axis                (axis 0 t, 1 h, 2 w, 3 e)

    mrope_ggml_apply.csv gguf,t,h,w,e,channel,input,output      (llama.cpp's 4 position slots)

and checks itself (a rotation keeps the norm; with t = h = w the result is plain RoPE at that
position; llama.cpp IMROPE with e = t is HF's interleaved M-RoPE; IMROPE [24, 20, 20, 0] turns pairs 61
and 62 by the slot e); exits non-zero if a check fails.

The llama.cpp rotation (ggml_mrope_cache_init + rope_f32, modes MROPE and IMROPE): the 4 positions of a
token are (t, h, w, e); pair j of the n_dims rotated channels takes theta_base of its slot times
freq_base^(-2j/n_dims) (ggml multiplies theta_scale = freq_base^(-2/n_dims) in float32 step by step;
here the exact float64 power, as for every other reference), and turns the channels (j, j + n_dims/2)
(the NEOX pairing, which ggml uses for MROPE and IMROPE). The two GGUF models are
tests/io/write_gguf.py's qwen3-vl-8b.gguf (qwen3vl: freq_base 5e6, key_length 128, sections
[24, 20, 20, 0], IMROPE) and qwen2-vl-7b.gguf (qwen2vl: freq_base 1e6, 3584 / 28 = 128, sections
[16, 24, 24, 0], MROPE).

    /usr/bin/python3 tests/reference/mrope.py
"""

import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import presets  # noqa: E402  (the rope init functions, independent of src/)

POSITIONS = [(7.0, 2.0, 3.0), (100.0, 40.0, 55.0), (3000.0, 3000.0, 3000.0), (12.0, 0.0, -5.0)]


def rotate_half(x):
    h = len(x) // 2
    return np.concatenate([-x[h:], x[:h]])


def hf_chunked(x, inv, sections, pos):
    freqs = np.stack([p * inv for p in pos])  # (3, d/2)
    emb = np.concatenate([freqs, freqs], axis=1)  # (3, d)
    cos, sin = np.cos(emb), np.sin(emb)
    sizes = list(sections) * 2
    edges = np.cumsum([0] + sizes)
    assert edges[-1] == len(x), "HF's split needs sum(mrope_section * 2) == head_dim"
    c = np.concatenate([cos[i % 3, edges[i]:edges[i + 1]] for i in range(len(sizes))])
    s = np.concatenate([sin[i % 3, edges[i]:edges[i + 1]] for i in range(len(sizes))])
    return x * c + rotate_half(x) * s


def hf_interleaved(x, inv, sections, pos):
    freqs = np.stack([p * inv for p in pos])
    freqs_t = freqs[0].copy()
    for dim, offset in ((1, 1), (2, 2)):
        idx = slice(offset, sections[dim] * 3, 3)
        freqs_t[idx] = freqs[dim][idx]
    emb = np.concatenate([freqs_t, freqs_t])
    return x * np.cos(emb) + rotate_half(x) * np.sin(emb)


def owner_hf_chunked(pairs, sections):
    # which axis's cos lands on channel j < d/2 after the split: chunk i covers [edges[i], edges[i+1])
    out = []
    edges = np.cumsum([0] + list(sections) * 2)
    for j in range(pairs):
        i = int(np.searchsorted(edges, j, side="right")) - 1
        out.append(i % 3)
    return out


def owner_hf_interleaved(pairs, sections):
    axis = np.zeros(pairs, dtype=int)  # freqs_t starts as t everywhere
    for dim, offset in ((1, 1), (2, 2)):
        axis[offset:sections[dim] * 3:3] = dim
    return [int(a) for a in axis]


def owner_ggml(pairs, sections, imrope):
    s = list(sections) + [0] * (4 - len(sections))
    total = sum(s)
    out = []
    for j in range(pairs):
        sector = j % total
        if imrope:
            if sector % 3 == 1 and sector < 3 * s[1]:
                a = 1
            elif sector % 3 == 2 and sector < 3 * s[2]:
                a = 2
            elif sector % 3 == 0 and sector < 3 * s[0]:
                a = 0
            else:
                a = 3
        else:
            if sector < s[0]:
                a = 0
            elif sector < s[0] + s[1]:
                a = 1
            elif sector < s[0] + s[1] + s[2]:
                a = 2
            else:
                a = 3
        out.append(a)
    return out


# tests/io/write_gguf.py's multimodal models: (file, freq_base, n_dims, sections, IMROPE?)
GGML_MODELS = [("qwen3-vl-8b.gguf", 5000000.0, 128, [24, 20, 20, 0], True),
               ("qwen2-vl-7b.gguf", 1000000.0, 128, [16, 24, 24, 0], False)]
GGML_POSITIONS = [(7.0, 2.0, 3.0, 5.0), (100.0, 40.0, 55.0, -9.0)]


def ggml_multi(x, freq_base, n_dims, sections, imrope, pos4):
    """llama.cpp's MROPE / IMROPE on one head: a loop over the pairs, as ggml_mrope_cache_init fills its
    cache, then the NEOX rotation of channels (j, j + n_dims/2)."""
    axes = owner_ggml(n_dims // 2, sections, imrope)
    y = np.array(x, dtype=np.float64)
    half = n_dims // 2
    for j in range(half):
        angle = pos4[axes[j]] * freq_base ** (-2.0 * j / n_dims)
        c, s_ = np.cos(angle), np.sin(angle)
        a, b = x[j], x[j + half]
        y[j] = a * c - b * s_
        y[j + half] = a * s_ + b * c
    return y


def main():
    failures = []
    rows = []
    for name in ("qwen2-vl-7b", "qwen2.5-vl-7b", "qwen3-vl-8b"):
        with open(os.path.join(presets.MODELS, name + ".json"), encoding="utf-8") as fh:
            cfg = json.load(fh)
        r = presets.resolve(cfg)
        inv, att = presets.compute(r["type"], r["d"], r["head_dim"], r["base"], r["f"], r["L0"], r["params"], r["prf"])
        assert att == 1.0
        block = cfg.get("text_config", cfg)["rope_scaling"]
        sections = block["mrope_section"]
        interleaved = block.get("mrope_interleaved", False)
        n = r["head_dim"]
        x = np.array([np.cos(0.7 * j + 0.3) + 0.01 * j for j in range(n)])
        for pos in POSITIONS:
            y = (hf_interleaved if interleaved else hf_chunked)(x, inv, sections, pos)
            if not np.isclose(np.linalg.norm(y), np.linalg.norm(x), rtol=1e-13):
                failures.append(f"{name} {pos}: norm changed")
            if pos[0] == pos[1] == pos[2]:
                plain = x * np.cos(pos[0] * np.concatenate([inv, inv])) + rotate_half(x) * np.sin(
                    pos[0] * np.concatenate([inv, inv]))
                if not np.allclose(y, plain, rtol=0, atol=1e-13):
                    failures.append(f"{name} {pos}: t = h = w is not plain RoPE")
            for j in range(n):
                rows.append(f"{name},{pos[0]!r},{pos[1]!r},{pos[2]!r},{j},{float(x[j])!r},{float(y[j])!r}")
    with open(os.path.join(HERE, "mrope_apply.csv"), "w", encoding="utf-8", newline="\n") as fh:
        fh.write(f"# generated by tests/reference/mrope.py (numpy {np.__version__}): /usr/bin/python3 tests/reference/mrope.py\n")
        fh.write("preset,t,h,w,channel,input,output\n")
        for line in rows:
            fh.write(line + "\n")

    ggml_rows = []
    for name, freq_base, n_dims, sections, imrope in GGML_MODELS:
        x = np.array([np.cos(0.7 * j + 0.3) + 0.01 * j for j in range(n_dims)])
        for pos in GGML_POSITIONS:
            y = ggml_multi(x, freq_base, n_dims, sections, imrope, pos)
            if not np.isclose(np.linalg.norm(y), np.linalg.norm(x), rtol=1e-13):
                failures.append(f"{name} {pos}: norm changed")
            for j in range(n_dims):
                ggml_rows.append(f"{name},{pos[0]!r},{pos[1]!r},{pos[2]!r},{pos[3]!r},{j},{float(x[j])!r},{float(y[j])!r}")
    # llama.cpp IMROPE with e = t is HF's interleaved M-RoPE at (t, h, w) (the same Qwen3-VL frequencies:
    # rope_theta 5e6, head_dim 128); with e != t exactly pairs 61 and 62 (channels 61, 62, 125, 126) move.
    x = np.array([np.cos(0.7 * j + 0.3) + 0.01 * j for j in range(128)])
    inv = 5000000.0 ** (-np.arange(0, 128, 2, dtype=np.float64) / 128)
    hf = hf_interleaved(x, inv, [24, 20, 20], (7.0, 2.0, 3.0))
    if not np.allclose(ggml_multi(x, 5000000.0, 128, [24, 20, 20, 0], True, (7.0, 2.0, 3.0, 7.0)), hf, rtol=0, atol=1e-15):
        failures.append("IMROPE with e = t is not HF's interleaved M-RoPE")
    # (the same angles up to an ulp of the power: compare to 1e-15, well below the moves of ~1e-6)
    moved = np.nonzero(np.abs(ggml_multi(x, 5000000.0, 128, [24, 20, 20, 0], True, (7.0, 2.0, 3.0, 5.0)) - hf) > 1e-15)[0]
    if list(moved) != [61, 62, 125, 126]:
        failures.append(f"IMROPE at e = 5 moves channels {list(moved)}, not 61, 62, 125, 126")
    with open(os.path.join(HERE, "mrope_ggml_apply.csv"), "w", encoding="utf-8", newline="\n") as fh:
        fh.write(f"# generated by tests/reference/mrope.py (numpy {np.__version__}): /usr/bin/python3 tests/reference/mrope.py\n")
        fh.write("gguf,t,h,w,e,channel,input,output\n")
        for line in ggml_rows:
            fh.write(line + "\n")

    owners = []
    for sections in ([16, 24, 24], [24, 20, 20]):
        owners.append(("chunked", sections, owner_hf_chunked(64, sections)))
        owners.append(("interleaved", sections, owner_hf_interleaved(64, sections)))
    for sections in ([16, 24, 24, 0], [24, 20, 20, 0]):
        owners.append(("ggml-mrope", sections, owner_ggml(64, sections, False)))
        owners.append(("ggml-imrope", sections, owner_ggml(64, sections, True)))
    with open(os.path.join(HERE, "mrope_ownership.csv"), "w", encoding="utf-8", newline="\n") as fh:
        fh.write("# generated by tests/reference/mrope.py: /usr/bin/python3 tests/reference/mrope.py\n")
        fh.write("rule,sections,pair,axis\n")
        for rule, sections, axes in owners:
            for j, a in enumerate(axes):
                fh.write(f"{rule},{' '.join(map(str, sections))},{j},{a}\n")
    # The documented cases: Qwen3-VL [24, 20, 20] interleaved (t 24, h 20, w 20), and llama.cpp IMROPE
    # [24, 20, 20, 0] sending pairs 61 and 62 to the 4th slot where HF sends them to t.
    q3 = owner_hf_interleaved(64, [24, 20, 20])
    if [q3.count(a) for a in range(3)] != [24, 20, 20]:
        failures.append("Qwen3-VL interleaved counts")
    im = owner_ggml(64, [24, 20, 20, 0], True)
    if [j for j in range(64) if im[j] != q3[j]] != [61, 62]:
        failures.append("IMROPE vs HF differ elsewhere than pairs 61, 62")
    print(f"wrote tests/reference/mrope_apply.csv ({len(rows)} rows), mrope_ggml_apply.csv ({len(ggml_rows)} rows) and mrope_ownership.csv")
    for f in failures:
        print("  " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
