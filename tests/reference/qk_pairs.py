#!/usr/bin/python3
"""q and k dumps for `rope check --k-before --k-after` (issue 78 item 2), written by NumPy alone (never rope's C++).

The correct pairs port the two layouts of Hugging Face transformers, q and k rotated by the same cos and sin:
  - half: src/transformers/models/llama/modeling_llama.py at 5dd4a63548857797727ae73eeb6a6e886ea02a3e,
    LlamaRotaryEmbedding.forward (inv_freq and positions in float32, emb = cat(freqs, freqs), cos and sin times
    attention_scaling) and apply_rotary_pos_emb (q·cos + rotate_half(q)·sin, rotate_half = cat(−x2, x1));
  - interleaved: src/transformers/models/gptj/modeling_gptj.py at cb6cd7e984c1482cfcf62aeb3b2921bfeca71e95,
    rotate_every_two and apply_rotary_pos_emb (sin, cos repeat_interleave'd by 2);
  - YaRN's frequencies and attention factor: modeling_rope_utils.py _compute_yarn_parameters, ported in
    make_dumps.inv_freq.
Under GQA: 8 query heads, 2 key-value heads (q head h attends with k head h // 4), d = 64, [seq, heads, d], positions
0, 1, 7, 4095, 4096, 32768, 65535, 131071, float32.

The planted mistakes, each from its source:
  - crossed: ColossalAI issue #6428 / PR #6429 (and PR #6444's table): the Triton fused_rotary_emb computed out_q1
    from k's halves (k_0, k_1) and out_k0 from q's (q_0, q_1); here q head h's second half is k head h // 4's rotated
    second half and k head g's first half is q head 4·g's rotated first half, half layout.
  - k with q's heads: the same PR (`k_head_num = q.shape[1]`, `off_k1` with q's token stride): k's buffer
    [T, H_k, d] walked as [T·H_k/H_q, H_q, d], so key (t, g), flat vector t·H_k + g, is turned at the position of
    index (t·H_k + g) // H_q; q right.
  - applied twice: NVIDIA/TensorRT-LLM PR #16378 (with rope_fusion=False YaRN was missing from is_rope(), so q and k
    were rotated by the fused path and again): HF's apply_rotary_pos_emb run twice on q and k with YaRN's cos and sin
    (factor 4, original 4096), each time times its attention factor, so 2·m·θ and a².

Checks itself: every correct pair's scores against a²·qᵀ R_(n−m) k (float64 at HF's float32 angles, relative 1e-5);
every planted dump differs from the correct one. Writes tests/reference/qk_pairs/*.npy (qk_half.pt: the four
tensors by name; qk_layers.pt: two layers, the second's k walked with q's head count) and, for docs/check.md's
examples, data/dumps/qk_{q,k,q_half,k_half,q_crossed,k_crossed}.npy; given DIR, writes the dumps there instead with
DIR/manifest.json, the cases of the corpus (tests/reference/corpus.py: each case's `rope check` arguments, its exit
code, the variant named, what identify reads on q, or on k where the mistake is k's).

    /usr/bin/python3 tests/reference/qk_pairs.py [DIR]
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_dumps import inv_freq  # noqa: E402  (HF's default and YaRN frequencies, ported there)

DEFAULT_OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "qk_pairs")
OUT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_OUT
POSITIONS = np.array([0, 1, 7, 4095, 4096, 32768, 65535, 131071], dtype=np.int64)
HQ, HK, D = 8, 2, 64
BASE = 10000.0
YARN = dict(factor=4.0, original=4096, beta_fast=32.0, beta_slow=1.0)


def cos_sin(kind, layout, **p):
    """HF's cos and sin per position, float32, [seq, 1, d], times the attention factor."""
    theta, a = inv_freq(kind, D, BASE, **p)
    freqs = (POSITIONS.astype(np.float32)[:, None] * theta[None, :]).astype(np.float32)
    emb = np.concatenate([freqs, freqs], axis=-1) if layout == "half" else np.repeat(freqs, 2, axis=-1)
    cos = (np.cos(emb) * np.float32(a)).astype(np.float32)
    sin = (np.sin(emb) * np.float32(a)).astype(np.float32)
    return cos[:, None, :], sin[:, None, :], theta, a


def rotate_half(x):
    return np.concatenate([-x[..., D // 2:], x[..., :D // 2]], axis=-1)


def rotate_every_two(x):
    out = np.empty_like(x)
    out[..., ::2] = -x[..., 1::2]
    out[..., 1::2] = x[..., ::2]
    return out


def apply(x, cos, sin, layout):
    r = rotate_half(x) if layout == "half" else rotate_every_two(x)
    return (x * cos + r * sin).astype(np.float32)


DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "data", "dumps")
# docs/check.md's examples read these from data/dumps/ as qk_<name>.npy
DOCS_DUMPS = ("q", "k", "q_half", "k_half", "q_crossed", "k_crossed")


def save(name, array):
    os.makedirs(OUT, exist_ok=True)
    a = np.ascontiguousarray(array, dtype=np.float32)
    np.save(os.path.join(OUT, name + ".npy"), a)
    if name in DOCS_DUMPS and OUT == DEFAULT_OUT:
        np.save(os.path.join(DOCS, "qk_" + name + ".npy"), a)


def manifest():
    """The corpus's cases: q and k checked together; identify on q (on k for k's own mistake)."""
    positions = ",".join(str(p) for p in POSITIONS)
    f = lambda name: os.path.join(OUT, name + ".npy")  # noqa: E731
    yarn = ["--scaling", "yarn", "--factor", "4", "--original-max-position", "4096"]
    default = {"family": "default", "base": BASE}

    def case(name, q_after, k_after, layout, exit, matches, identify, extra=(), ident_on_k=False):
        args = ["--before", f("q"), "--after", f(q_after), "--k-before", f("k"), "--k-after", f(k_after),
                "--positions", positions, "--layout", layout, *extra]
        ident = (["--before", f("k"), "--after", f(k_after), "--positions", positions] if ident_on_k else
                 ["--before", f("q"), "--after", f(q_after), "--positions", positions])
        return {"name": name, "args": args, "identify_args": ident, "exit": exit, "matches": matches,
                "identify": identify}

    return {"cases": [
        case("half", "q_half", "k_half", "half", 0, None, dict(layout="half", rotary_dim=D, **default)),
        case("interleaved", "q_interleaved", "k_interleaved", "interleaved", 0, None,
             dict(layout="interleaved", rotary_dim=D, **default)),
        case("yarn", "q_yarn", "k_yarn", "half", 0, None, dict(layout="half", family="yarn", base=BASE), yarn),
        case("crossed", "q_crossed", "k_crossed", "half", 1, "qk-crossed", {}),
        # q passes: the top-level diagnosis is q's (none); k's names k-with-query-heads (tests/cli/test_cmd_check_qk.cpp);
        # identify on k alone reads k's buffer walked with q's 8 heads (query_heads) and the default ladder there
        case("k_query_heads", "q_half", "k_query_heads", "half", 1, None,
             dict(layout="half", query_heads=HQ, **default), ident_on_k=True),
        case("applied_twice_yarn", "q_yarn_twice", "k_yarn_twice", "half", 1, "rope-applied-twice",
             dict(layout="half", family="yarn", base=BASE), yarn),
    ]}


def scores_hold(q, k, qr, kr, theta, a, layout):
    """⟨R_m q, R_n k⟩ = a²·qᵀ R_(n−m) k for every (m, n) and q head, float64 at HF's float32 angles, within 1e-5 of
    a²·Σ|q||k| (float32's cos, sin and products)."""
    q, k, qr, kr = (np.asarray(t, np.float64) for t in (q, k, qr, kr))
    half = D // 2
    ia = np.arange(half) if layout == "half" else np.arange(0, D, 2)
    ib = ia + half if layout == "half" else ia + 1
    for m in range(len(POSITIONS)):
        for n in range(len(POSITIONS)):
            # the angles as HF's float32 product has them (its own rounding, up to 131071·2⁻²⁴ rad, is the
            # tolerance's angle term in rope, not this check's)
            freqs = (POSITIONS.astype(np.float32)[:, None] * theta[None, :]).astype(np.float64)
            delta = freqs[n] - freqs[m]
            c, s = np.cos(delta), np.sin(delta)
            for h in range(HQ):
                x, u = q[m, h], k[n, h // (HQ // HK)]
                ref = a * a * np.sum(c * (x[ia] * u[ia] + x[ib] * u[ib]) + s * (x[ib] * u[ia] - x[ia] * u[ib]))
                got = np.dot(qr[m, h], kr[n, h // (HQ // HK)])
                if abs(got - ref) > 1e-5 * np.sum(np.abs(x) * np.abs(u)) * a * a:
                    return False
    return True


def main():
    rng = np.random.default_rng(78)
    q = rng.standard_normal((len(POSITIONS), HQ, D)).astype(np.float32)
    k = rng.standard_normal((len(POSITIONS), HK, D)).astype(np.float32)
    save("q", q)
    save("k", k)
    save("k_short", k[:-1])  # a k of 7 positions against q's 8: refused
    for layout in ("half", "interleaved"):
        cos, sin, theta, a = cos_sin("default", layout)
        qr, kr = apply(q, cos, sin, layout), apply(k, cos, sin, layout)
        assert scores_hold(q, k, qr, kr, theta, a, layout), layout
        save(f"q_{layout}", qr)
        save(f"k_{layout}", kr)
        if layout != "half":
            continue
        try:  # the four tensors in one torch.save file, read by name (--before-tensor, --k-before-tensor, …)
            import torch
            torch.save({"q": torch.from_numpy(q), "k": torch.from_numpy(k), "q_rope": torch.from_numpy(qr),
                        "k_rope": torch.from_numpy(kr)}, os.path.join(OUT, "qk_half.pt"))
        except ImportError:  # the committed file stays
            pass
        # crossed (ColossalAI PR #6429): out_q1 from k's halves, out_k0 from q's; GQA: k head h // 4, q head 4·g.
        share = HQ // HK
        k_for_q = kr[:, np.arange(HQ) // share, :]
        q_for_k = qr[:, np.arange(HK) * share, :]
        q_crossed = np.concatenate([qr[..., :D // 2], k_for_q[..., D // 2:]], axis=-1)
        k_crossed = np.concatenate([q_for_k[..., :D // 2], kr[..., D // 2:]], axis=-1)
        assert not np.array_equal(q_crossed, qr) and not np.array_equal(k_crossed, kr)
        save("q_crossed", q_crossed)
        save("k_crossed", k_crossed)
        # k walked with q's head count: key (t, g) at the position of index (t·H_k + g) // H_q.
        at = (np.arange(len(POSITIONS))[:, None] * HK + np.arange(HK)[None, :]) // HQ
        k_heads = np.empty_like(kr)
        for t in range(len(POSITIONS)):
            for g in range(HK):
                k_heads[t, g] = apply(k[t, g][None, :], cos[at[t, g]], sin[at[t, g]], layout)[0]
        assert not np.array_equal(k_heads, kr)
        save("k_query_heads", k_heads)
        try:  # two layers in one torch.save file (--before-tensor 'layers.*.q', --k-before-tensor 'layers.*.k'): layer 0
            # right, layer 1's k walked with q's head count
            import torch
            t = torch.from_numpy
            torch.save({"layers": [{"q": t(q), "k": t(k), "q_rope": t(qr), "k_rope": t(kr)},
                                   {"q": t(q), "k": t(k), "q_rope": t(qr), "k_rope": t(np.ascontiguousarray(k_heads))}]},
                       os.path.join(OUT, "qk_layers.pt"))
        except ImportError:  # the committed file stays
            pass
    # applied twice (TensorRT-LLM PR #16378) with YaRN's cos and sin: a²·R(2m).
    cos, sin, theta, a = cos_sin("yarn", "half", **YARN)
    qy, ky = apply(q, cos, sin, "half"), apply(k, cos, sin, "half")
    assert scores_hold(q, k, qy, ky, theta, a, "half")
    save("q_yarn", qy)
    save("k_yarn", ky)
    q2, k2 = apply(qy, cos, sin, "half"), apply(ky, cos, sin, "half")
    assert not scores_hold(q, k, q2, k2, theta, a, "half")
    save("q_yarn_twice", q2)
    save("k_yarn_twice", k2)
    if OUT != DEFAULT_OUT:
        with open(os.path.join(OUT, "manifest.json"), "w") as out:
            json.dump(manifest(), out, indent=1)
    print(f"qk_pairs.py: wrote {len(os.listdir(OUT))} files to {OUT}")


if __name__ == "__main__":
    main()
