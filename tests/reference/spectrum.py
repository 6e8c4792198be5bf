#!/usr/bin/python3
"""`rope spectrum` (issue 69, docs/spectrum.md) by NumPy alone: synthetic dumps and their per-pair wavelength, energy
share, frequency entropy and bands, computed here the direct way, independently of rope's C++.

The formulas, as issue 69 states them (docs/spectrum.md (F1)–(F5)):
  - pair j of a head of d channels: channels (j, j + d/2) in the half layout (Hugging Face's rotate_half),
    (2j, 2j + 1) interleaved (GPT-J, Meta); wavelength 2π/θ_j, θ_j = base^(−2j/d);
  - energy share: mean over positions, batch rows and heads of x_a² + x_b², divided by its sum over pairs;
  - frequency entropy of one series (batch row, head, pair): s(t) = ‖x_j(t)‖, P = |rfft(s − mean s)|² at
    f = 1 … T//2 (numpy.fft.rfft, pocketfft: another FFT than rope's), p = P/ΣP, FE = −Σ p ln p (terms with p = 0
    left out); a series is flat, FE 0, when the root mean square of s − mean s is at most 8·ε·mean s (ε the dump's
    machine epsilon) or ΣP is 0; averaged over batch rows and heads (per head: over batch rows);
  - bands: the fewest consecutive pairs whose shares sum to at least 90 % (of equal length the one holding most, then
    the first), found by trying every window; the pairs of lowest and highest FE among those not flat in every
    series (the first on ties).

The dumps: every pair j of every head turns at θ_j·t from a random phase, with a norm r_j(t): pairs 44 … 63 about 4.5
times the others' (about 90 % of the energy), pair 3's norm 1 + 0.5 cos(2πt/8) (period 8: its FE the lowest), the
others' norm 1 + 0.3 u(t) with u white noise (FE high). Cases: half layout [seq, heads, d] float32; interleaved
[batch, heads, seq, d] float64 (Hugging Face's order, read without --axes); half [batch, seq, heads, d] float32 of a
prime length 509 (rope's Bluestein path) with --axes; NoPE-like (every vector the same: norms constant, every FE 0
and flagged); a bf16 dump saved as bit patterns. And bad input, as rope check refuses it.

Usage: spectrum.py                 writes data/dumps/q_spectrum.npy (the small dump of docs/spectrum.md)
       spectrum.py OUT_DIR         writes OUT_DIR/*.npy and OUT_DIR/manifest.json: per case the files, the flags
                                   and the expected numbers.
"""
import json
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
EPS = {"f64": 2.0 ** -52, "f32": 2.0 ** -23, "bf16": 2.0 ** -7}


def bf16(x):
    """float32 -> nearest bfloat16 (ties to even), as float32."""
    b = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    rounded = (b + (((b >> 16) & 1) + 0x7FFF)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32)


def synthetic(seq, heads, batch, d, layout, seed, base=10000.0, nope=False):
    """[batch, seq, heads, d] float64 vectors as the docstring describes."""
    rng = np.random.default_rng(seed)
    half = d // 2
    theta = base ** (-2.0 * np.arange(half) / d)
    t = np.arange(seq, dtype=np.float64)
    x = np.zeros((batch, seq, heads, d))
    for b in range(batch):
        for h in range(heads):
            for j in range(half):
                amp = 4.5 if 44 <= j <= 63 else 1.0
                if nope:
                    r = np.full(seq, amp * (1.0 + 0.1 * j))
                    phi = np.full(seq, rng.uniform(0, 2 * math.pi))
                else:
                    if j == 3:
                        r = amp * (1.0 + 0.5 * np.cos(2 * math.pi * t / 8))
                    else:
                        r = amp * (1.0 + 0.3 * rng.standard_normal(seq))
                    phi = theta[j] * t + rng.uniform(0, 2 * math.pi)
                a, c = (j, j + half) if layout == "half" else (2 * j, 2 * j + 1)
                x[b, :, h, a] = r * np.cos(phi)
                x[b, :, h, c] = r * np.sin(phi)
    return x


def reference(x, layout, dtype, base=10000.0):
    """The report's numbers of x [batch, seq, heads, d] (the values as stored, in float64)."""
    batch, seq, heads, d = x.shape
    half = d // 2
    cols = [(j, j + half) if layout == "half" else (2 * j, 2 * j + 1) for j in range(half)]
    energy = np.zeros((batch, heads, half))
    fe = np.zeros((batch, heads, half))
    flat = np.zeros((batch, heads, half), dtype=bool)
    for b in range(batch):
        for h in range(heads):
            for j, (a, c) in enumerate(cols):
                e = x[b, :, h, a] ** 2 + x[b, :, h, c] ** 2
                energy[b, h, j] = e.sum()
                s = np.sqrt(e)
                m = s.mean()
                dev = s - m
                rms = math.sqrt((dev ** 2).mean())
                if seq < 2 or m == 0 or rms <= 8 * EPS[dtype] * m:
                    flat[b, h, j] = True
                    continue
                P = np.abs(np.fft.rfft(dev)[1:seq // 2 + 1]) ** 2
                if not P.sum() > 0:
                    flat[b, h, j] = True
                    continue
                p = P / P.sum()
                p = p[p > 0]
                fe[b, h, j] = float(-(p * np.log(p)).sum())
    wavelength = [2 * math.pi / base ** (-2.0 * j / d) for j in range(half)]

    def pairs(e, f, fl):
        total = e.sum()
        return [{"pair": j, "wavelength": wavelength[j], "energy_share": float(e[..., j].sum() / total),
                 "frequency_entropy": float(f[..., j].mean()), "flat": bool(fl[..., j].all()),
                 "flat_series": int(fl[..., j].sum())} for j in range(half)]

    pooled = pairs(energy, fe, flat)
    heads_out = [{"head": h, "pairs": pairs(energy[:, h], fe[:, h], flat[:, h])} for h in range(heads)]
    return {"pairs": pooled, "heads": heads_out, "bands": bands(pooled), "frequency_bins": seq // 2}


def bands(pairs):
    share = [p["energy_share"] for p in pairs]
    n, total = len(share), sum(share)
    best = None
    for length in range(1, n + 1):
        for first in range(0, n - length + 1):
            held = sum(share[first:first + length])
            if held >= 0.9 * total * (1 - 1e-12) and (best is None or held > best[2]):
                best = (first, first + length - 1, held)
        if best:
            break
    live = [p for p in pairs if not p["flat"]]
    low = min(live, key=lambda p: (p["frequency_entropy"], p["pair"]))["pair"] if live else None
    high = min(live, key=lambda p: (-p["frequency_entropy"], p["pair"]))["pair"] if live else None
    energy = {"first": best[0], "last": best[1], "pairs": best[1] - best[0] + 1, "share": best[2] / total,
              "target": 0.9} if best else {"first": None, "last": None, "pairs": 0, "share": 0.0, "target": 0.9}
    return {"energy": energy, "lowest_entropy": low, "highest_entropy": high}


def save(out, name, array):
    path = os.path.join(out, name)
    np.save(path, array)
    return path


def cases(out):
    """The dumps written into out and the manifest's cases."""
    result = []

    def add(name, x, layout, dtype, stored, args, check_ok=True):
        # x: [batch, seq, heads, d] float64; `stored` the array as the file holds it (another order or type)
        kept = x if dtype == "f64" else (bf16(x) if dtype == "bf16" else x.astype(np.float32)).astype(np.float64)
        path = save(out, name + ".npy", stored(kept))
        want = reference(kept, layout, dtype)
        assert want["bands"]["lowest_entropy"] in (3, None), (name, want["bands"])
        result.append({"name": name, "file": path, "args": ["--dump", path] + args, "expected": want})

    x = synthetic(512, 4, 1, 128, "half", 1)
    add("half_seq_heads_d_f32", x, "half", "f32", lambda k: k[0].astype(np.float32), [])
    x = synthetic(256, 2, 2, 128, "interleaved", 2)
    add("interleaved_bhsd_f64", x, "interleaved", "f64", lambda k: np.ascontiguousarray(k.transpose(0, 2, 1, 3)),
        ["--layout", "interleaved"])
    x = synthetic(509, 3, 2, 128, "half", 3)
    add("half_bshd_prime_f32", x, "half", "f32", lambda k: k.astype(np.float32), ["--axes", "batch,seq,heads,d"])
    x = synthetic(128, 2, 1, 128, "half", 4)
    add("half_bf16_bits", x, "half", "bf16",
        lambda k: (bf16(k[0]).view(np.uint32) >> 16).astype(np.uint16), ["--bf16-bits"])
    x = synthetic(256, 2, 1, 128, "half", 5, nope=True)
    add("nope_like", x, "half", "f32", lambda k: k[0].astype(np.float32), [])
    for c in result:
        if c["name"] != "nope_like":
            e = c["expected"]
            held = sum(p["energy_share"] for p in e["pairs"][44:64])
            assert 0.85 < held < 0.95, (c["name"], held)
            assert e["bands"]["lowest_entropy"] == 3, c["name"]
        else:
            assert all(p["flat"] and p["frequency_entropy"] == 0 for p in c["expected"]["pairs"])
    # Bad input, as rope check refuses it: the exit code and a phrase of the message rope check gives for the same
    # file (the driver runs rope check --before F --after F and requires the same exit code).
    bad = []
    nan = synthetic(16, 1, 1, 8, "half", 6)[0].astype(np.float32)
    nan[3, 0, 2] = np.nan
    bad.append({"name": "nan", "args": ["--dump", save(out, "bad_nan.npy", nan)], "exit": 2, "phrase": "not finite"})
    bad.append({"name": "odd_d", "args": ["--dump", save(out, "bad_odd.npy", np.zeros((16, 7), np.float32))],
                "exit": 2, "phrase": None})
    bad.append({"name": "rank5", "args": ["--dump", save(out, "bad_rank5.npy", np.zeros((1, 2, 2, 4, 8), np.float32))],
                "exit": 2, "phrase": None})
    bad.append({"name": "positions", "args": ["--dump", save(out, "bad_pos.npy", np.zeros((16, 8), np.float32)),
                                              "--positions", "0:15"], "exit": 2, "phrase": None})
    bad.append({"name": "missing", "args": ["--dump", os.path.join(out, "no_such.npy")], "exit": 3, "phrase": None})
    with open(os.path.join(out, "truncated.npy"), "wb") as f:
        f.write(open(save(out, "whole.npy", np.ones((64, 8), np.float32)), "rb").read()[:200])
    bad.append({"name": "truncated", "args": ["--dump", os.path.join(out, "truncated.npy")], "exit": 2,
                "phrase": None})
    return result, bad


def main():
    if len(sys.argv) == 1:  # the small dump of docs/spectrum.md and the lesson page
        x = synthetic(128, 2, 1, 128, "half", 7)
        np.save(os.path.join(HERE, "..", "..", "data", "dumps", "q_spectrum.npy"), x[0].astype(np.float32))
        return
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    good, bad = cases(out)
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"generator": f"tests/reference/spectrum.py (numpy {np.__version__})", "cases": good, "bad": bad},
                  f, indent=1)


if __name__ == "__main__":
    main()
