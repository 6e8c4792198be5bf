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

and checks itself (a rotation keeps the norm; with t = h = w the result is plain RoPE at that
position); exits non-zero if a check fails.

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
    print(f"wrote tests/reference/mrope_apply.csv ({len(rows)} rows) and mrope_ownership.csv")
    for f in failures:
        print("  " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
