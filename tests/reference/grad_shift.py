#!/usr/bin/python3
"""Dumps for `rope check --grad` and `rope check --shift` (issue 66), written by code independent of rope's C++.

Gradients (--grad) come from PyTorch's autograd (Debian's python3-torch 1.13) through a port of the forward of each
framework: the backward is never written here, autograd derives it from the forward.
  - half layout: Hugging Face transformers src/transformers/models/llama/modeling_llama.py at
    5dd4a63548857797727ae73eeb6a6e886ea02a3e: LlamaRotaryEmbedding.forward (inv_freq and positions in float32,
    emb = cat(freqs, freqs), cos and sin times attention_scaling, cast to the input's dtype), rotate_half
    (cat(−x2, x1)) and apply_rotary_pos_emb (q·cos + rotate_half(q)·sin);
  - interleaved layout: transformers src/transformers/models/gptj/modeling_gptj.py at
    cb6cd7e984c1482cfcf62aeb3b2921bfeca71e95: rotate_every_two (stack(−x[..., 1::2], x[..., ::2]).flatten) and
    apply_rotary_pos_emb (sin, cos repeat_interleave'd by 2, x·cos + rotate_every_two(x)·sin);
  - YaRN's frequencies and attention factor: transformers src/transformers/modeling_rope_utils.py
    _compute_yarn_parameters (find_correction_dim, find_correction_range with the range's ends floored/ceiled,
    linear_ramp_factor, get_mscale(f) = 0.1·ln f + 1), ported in make_dumps.inv_freq (the ports of that file).
The upstream gradient g is random; y = apply(x), y.backward(g), x.grad is the dump after; g the dump before. float32
and bf16 (bf16: the model's tensors and cos/sin in bf16, as a bf16 model runs), positions to 131 071. Each planted
backward mistake is written by NumPy from its own formula (float64, stored float32), on the same g.

Shifted K caches (--shift) by NumPy: k = a·R(m)·x in float32 (HF's formulas above, YaRN factor 4 where named), then
the shift k′ = R(δ)·k with cos and sin of δ·θ in float32, δ = −512; bf16 caches rounded after each step. The planted
shift mistakes: the magnitude a applied again (a·R(δ)·k, the hypothesis of issue 66 on llama.cpp's build_rope_shift),
the wrong sign (R(−δ)·k), the pass-through channels of a partial-rotary model turned too, no shift at all, δ applied twice (R(2δ)·k) and δ off
by one (R(δ + 1)·k).

Writes tests/reference/grad_shift/*.npy (bf16 as uint16 bit patterns: --bf16-bits) and the examples of docs/check.md,
data/dumps/grad_*.npy and shift_*.npy. Checks itself: every correct
gradient against the closed form a·R(m)ᵀ·g (G1) at HF's float32 angles (float32 within 1e-5 relative, bf16 within 3 %), every
correct shift's norm against the cache's, and that each planted mistake differs from the correct result.

    /usr/bin/python3 tests/reference/grad_shift.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_dumps import bf16, inv_freq  # noqa: E402  (HF's YaRN, ported there)

try:
    import torch
except ImportError:  # the committed dumps stay; regenerating them needs torch
    sys.exit("grad_shift.py: needs PyTorch (scripts/install-deps.sh torch)")

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "grad_shift")
POSITIONS = np.array([0, 1, 7, 4095, 4096, 32768, 65535, 131071], dtype=np.int64)
HEADS, D = 4, 64
DELTA = -512
YARN = dict(factor=4.0, original=4096, beta_fast=32.0, beta_slow=1.0)


def save(name, array, bits=False):
    os.makedirs(OUT, exist_ok=True)
    a = np.ascontiguousarray(array, dtype=np.float32)
    if bits:
        a = a.view(np.uint32) >> 16
        a = a.astype(np.uint16)
    np.save(os.path.join(OUT, name + ".npy"), a)


def hf_cos_sin(inv, positions, attention, dtype):
    """LlamaRotaryEmbedding.forward: float32 angles, cat(freqs, freqs), times attention_scaling, cast to dtype."""
    inv_t = torch.tensor(inv, dtype=torch.float32)
    freqs = torch.tensor(positions, dtype=torch.float32)[:, None] * inv_t[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    return (emb.cos() * attention).to(dtype), (emb.sin() * attention).to(dtype)


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def rotate_every_two(x):
    return torch.stack((-x[..., 1::2], x[..., ::2]), dim=-1).flatten(-2)


def apply_half(x, cos, sin, rotary):
    """HF's apply_rotary_pos_emb on [seq, heads, d], partial rotary as HF's models do: the first `rotary` channels
    rotated, the rest concatenated unchanged."""
    rot, rest = x[..., :rotary], x[..., rotary:]
    out = rot * cos[:, None, :] + rotate_half(rot) * sin[:, None, :]
    return torch.cat((out, rest), dim=-1)


def apply_interleaved(x, cos, sin, rotary):
    """GPT-J: sin and cos of the pairs repeat_interleave'd by 2, x·cos + rotate_every_two(x)·sin."""
    half = rotary // 2
    c = torch.repeat_interleave(cos[:, :half], 2, dim=-1)[:, None, :]
    s = torch.repeat_interleave(sin[:, :half], 2, dim=-1)[:, None, :]
    rot, rest = x[..., :rotary], x[..., rotary:]
    return torch.cat((rot * c + rotate_every_two(rot) * s, rest), dim=-1)


def autograd_case(layout, dtype, kind, rotary, seed):
    """(g, x.grad, inv_freq, attention factor) from y = apply(x); y.backward(g)."""
    rng = np.random.default_rng(seed)
    tdtype = torch.float32 if dtype == "f32" else torch.bfloat16
    if kind == "yarn":
        inv, attention = inv_freq("yarn", rotary, 10000.0, **YARN)
    else:
        inv, attention = inv_freq("default", rotary, 10000.0)
    x = torch.tensor(rng.standard_normal((len(POSITIONS), HEADS, D)), dtype=torch.float32).to(tdtype)
    x.requires_grad_(True)
    g = torch.tensor(rng.standard_normal((len(POSITIONS), HEADS, D)), dtype=torch.float32).to(tdtype)
    cos, sin = hf_cos_sin(inv, POSITIONS, attention, tdtype)
    y = (apply_half if layout == "half" else apply_interleaved)(x, cos, sin, rotary)
    y.backward(g)
    return g.detach().float().numpy(), x.grad.detach().float().numpy(), np.asarray(inv, np.float64), attention


def pairs(layout, rotary):
    h = rotary // 2
    return [(i, i + h) if layout == "half" else (2 * i, 2 * i + 1) for i in range(h)]


def turn(v, layout, rotary, inv, angles_of, factor=1.0, angles32=False):
    """factor·R(φ)·v on the rotated pairs in float64 (φ_i = angles_of(s)·θ_i; `angles32`: m·θ rounded as float32
    computes it, as HF's forward does), the other channels as they are."""
    out = np.array(v, dtype=np.float64)
    for s in range(v.shape[0]):
        if angles32:
            phi = (np.float32(angles_of(s)) * inv.astype(np.float32)).astype(np.float64)
        else:
            phi = angles_of(s) * inv
        c, sn = np.cos(phi), np.sin(phi)
        for i, (a, b) in enumerate(pairs(layout, rotary)):
            xa, xb = v[s, :, a].astype(np.float64), v[s, :, b].astype(np.float64)
            out[s, :, a] = factor * (xa * c[i] - xb * sn[i])
            out[s, :, b] = factor * (xa * sn[i] + xb * c[i])
    return out


def closed_form(g, layout, rotary, inv, attention, angles32=False):
    """(G1): a·R(m)ᵀ·g = a·R(−m)·g."""
    return turn(g, layout, rotary, inv, lambda s: -float(POSITIONS[s]), attention, angles32)


def expect_close(name, got, want, rel):
    err = np.max(np.abs(got - want)) / max(np.max(np.abs(want)), 1e-30)
    if not err <= rel:
        sys.exit(f"grad_shift.py: {name}: autograd against (G1) {err:.3g} > {rel}")


def gradients():
    for layout, kind, rotary in (("half", "default", D), ("interleaved", "default", D), ("half", "yarn", D),
                                 ("half", "default", D // 2)):
        for dtype in ("f32", "bf16"):
            name = f"{layout}_{kind}" + ("_partial" if rotary < D else "") + f"_{dtype}"
            g, gx, inv, a = autograd_case(layout, dtype, kind, rotary, seed=len(name) * 7 + (dtype == "bf16"))
            # (G1) with HF's float32 angles: the gradient is its forward's transpose to float32's rounding.
            expect_close(name, gx, closed_form(g, layout, rotary, inv, a, True), 1e-5 if dtype == "f32" else 3e-2)
            save(f"grad_{name}_g", g, dtype == "bf16")
            save(f"grad_{name}_gx", gx, dtype == "bf16")
    # The planted backward mistakes, on the float32 upstream gradients above.
    g = np.load(os.path.join(OUT, "grad_half_default_f32_g.npy"))
    inv, _ = inv_freq("default", D, 10000.0)
    inv = np.asarray(inv, np.float64)
    right = closed_form(g, "half", D, inv, 1.0)
    planted = {
        "forward_rotation": turn(g, "half", D, inv, lambda s: float(POSITIONS[s])),  # R(m) for R(m)ᵀ
        "identity": g,  # a backward that returns grad_output
        "all_zero": np.zeros_like(g),  # no backward: nothing written
    }
    heads_zeroed = right.copy()
    heads_zeroed[:, 2, :] = 0
    planted["head_zeroed"] = heads_zeroed
    garbage = right.copy()
    garbage[:, 1, :] = np.random.default_rng(66).standard_normal((len(POSITIONS), D)) * 1e3
    planted["head_uninitialised"] = garbage
    crossed = right.copy()
    crossed[:, 1, :] = right[:, 2, :]  # head 1 reads head 2's pairs, head 3 head 0's: a relayout racing
    crossed[:, 3, :] = right[:, 0, :]
    planted["heads_crossed"] = crossed
    channels = right.copy()
    channels[:, :, 40:48] = 0
    planted["channels_zeroed"] = channels
    for name, v in planted.items():
        if name != "all_zero" and np.array_equal(v, right):
            sys.exit(f"grad_shift.py: planted {name} equals the right gradient")
        save(f"grad_planted_{name}", v)
    gy = np.load(os.path.join(OUT, "grad_half_yarn_f32_g.npy"))
    invy, a = inv_freq("yarn", D, 10000.0, **YARN)
    invy = np.asarray(invy, np.float64)
    save("grad_planted_factor_missing", closed_form(gy, "half", D, invy, 1.0))
    save("grad_planted_factor_twice", closed_form(gy, "half", D, invy, a * a))
    gp = np.load(os.path.join(OUT, "grad_half_default_partial_f32_g.npy"))
    invp, _ = inv_freq("default", D // 2, 10000.0)
    passthrough = closed_form(gp, "half", D // 2, np.asarray(invp, np.float64), 1.0)
    passthrough[:, :, D // 2:] *= 2  # the pass-through channels' gradient scaled, the rotated ones right
    save("grad_planted_passthrough", passthrough)


def cache(kind, rotary, dtype, seed):
    """A K cache k = a·R(m)·x (float32, rounded to bf16 after each step for bf16) and its θ and a."""
    rng = np.random.default_rng(seed)
    inv, a = inv_freq("yarn", rotary, 10000.0, **YARN) if kind == "yarn" else inv_freq("default", rotary, 10000.0)
    x = rng.standard_normal((len(POSITIONS), HEADS, D)).astype(np.float32)
    if dtype == "bf16":
        x = bf16(x)
    k = turn(x, "interleaved", rotary, np.asarray(inv, np.float64), lambda s: float(POSITIONS[s]), a)
    k = k.astype(np.float32)
    return (bf16(k) if dtype == "bf16" else k), np.asarray(inv, np.float32), a


def shift32(k, inv, rotary, delta, factor=1.0):
    """k′ = factor·R(δ)·k with cos and sin of δ·θ in float32, as ggml's rope computes a shift (interleaved, NORM)."""
    phi = (np.float32(delta) * inv).astype(np.float32)
    c, s = np.cos(phi).astype(np.float32), np.sin(phi).astype(np.float32)
    out = k.copy()
    for i, (a, b) in enumerate(pairs("interleaved", rotary)):
        xa, xb = k[:, :, a], k[:, :, b]
        out[:, :, a] = np.float32(factor) * (xa * c[i] - xb * s[i])
        out[:, :, b] = np.float32(factor) * (xa * s[i] + xb * c[i])
    return out


def shifts():
    for kind in ("default", "yarn"):
        for dtype in ("f32", "bf16"):
            k, inv, a = cache(kind, D, dtype, seed=5 + len(kind) + (dtype == "bf16"))
            right = shift32(k, inv, D, DELTA)
            again = shift32(k, inv, D, DELTA, a)
            if dtype == "bf16":
                right, again = bf16(right), bf16(again)
            ratio = np.linalg.norm(right) / np.linalg.norm(k)
            if not abs(ratio - 1) < (1e-5 if dtype == "f32" else 1e-2):
                sys.exit(f"grad_shift.py: shift {kind} {dtype} changed the norm by {ratio}")
            save(f"shift_{kind}_{dtype}_k", k, dtype == "bf16")
            save(f"shift_{kind}_{dtype}_shifted", right, dtype == "bf16")
            if kind == "yarn":
                save(f"shift_{kind}_{dtype}_magnitude_again", again, dtype == "bf16")
            if kind == "yarn" and dtype == "f32":
                save("shift_yarn_f32_wrong_sign", shift32(k, inv, D, -DELTA))
                save("shift_yarn_f32_not_shifted", k)
            if kind == "default" and dtype == "f32":
                # δ applied twice (k′ = R(2δ)·k) and δ off by one (R(δ + 1)·k): said in the shift's words (issue 78).
                save("shift_default_f32_doubled", shift32(k, inv, D, 2 * DELTA))
                save("shift_default_f32_off_by_one", shift32(k, inv, D, DELTA + 1))
    # A partial-rotary cache (the first 32 of 64 channels turn): the shift that turns the pass-through channels too.
    k, inv, _ = cache("default", D // 2, "f32", seed=17)
    save("shift_partial_f32_k", k)
    save("shift_partial_f32_shifted", shift32(k, inv, D // 2, DELTA))
    full, _ = inv_freq("default", D, 10000.0)
    wrong = shift32(k, inv, D // 2, DELTA)
    tail = shift32(k[:, :, D // 2:].copy(), np.asarray(full, np.float32)[: D // 4], D // 2, DELTA)
    wrong[:, :, D // 2:] = tail
    save("shift_partial_f32_passthrough", wrong)


def examples():
    """docs/check.md's examples (docs.examples reads data/dumps/): a gradient and a shifted cache, right and wrong."""
    dumps = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "dumps")
    for name, source in (("grad_g", "grad_half_default_f32_g"), ("grad_gx", "grad_half_default_f32_gx"),
                         ("grad_gx_forward", "grad_planted_forward_rotation"), ("shift_k", "shift_yarn_f32_k"),
                         ("shift_k_shifted", "shift_yarn_f32_shifted"),
                         ("shift_k_magnitude", "shift_yarn_f32_magnitude_again")):
        np.save(os.path.join(dumps, name + ".npy"), np.load(os.path.join(OUT, source + ".npy")))


if __name__ == "__main__":
    torch.manual_seed(0)
    gradients()
    shifts()
    examples()
    print(f"grad_shift.py: wrote {OUT} and data/dumps/grad_*.npy, shift_*.npy")
