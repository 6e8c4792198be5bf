#!/usr/bin/python3
"""The NumPy peer of `rope check` (bench/check_bench.py): the same float64 reference and the same tolerance
(C1) with the float32 angle model (C2) (docs/check.md), written the way a NumPy user writes it: np.load with
mmap_mode="r" and a vectorized pass over blocks of positions (a whole 1 GiB bf16 dump in float64 would not fit
in memory); bf16 read as 16-bit integers shifted into float32 (NumPy has no bfloat16).

    numpy_check.py BEFORE AFTER [--bf16] [--base B]     prints one JSON object: failing, total, max_ratio

Dumps: [seq, heads, d], positions 0 … seq−1, the half layout (Hugging Face's rotate_half), rotary dim d.
"""
import argparse
import json
import math

import numpy as np

KAPPA = 8.0  # kToleranceSafety (src/rope/core/constants.hpp)


def as_float(a, bf16):
    if bf16:  # 16-bit integers shifted into the high half of a float32
        return (a.astype(np.uint32) << 16).view(np.float32)
    return a


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("before")
    p.add_argument("after")
    p.add_argument("--bf16", action="store_true", help="the files hold bfloat16 bits as <u2")
    p.add_argument("--base", type=float, default=10000.0)
    p.add_argument("--block", type=int, default=1024, help="positions per block")
    a = p.parse_args()
    xb = np.load(a.before, mmap_mode="r")
    yb = np.load(a.after, mmap_mode="r")
    seq, heads, d = xb.shape
    half = d // 2
    theta = a.base ** (-2.0 * np.arange(half) / d)
    eps_t = 2.0 ** -7 if a.bf16 else 2.0 ** -23          # (P1): bf16 and float32
    eps_a = 2.0 ** -23                                   # (C2) float32: ε_f32
    c = 1.5 + np.abs(np.log(theta)) / 2                  # (C2) float32: c_i
    failing, worst = 0, 0.0
    for s0 in range(0, seq, a.block):
        s1 = min(seq, s0 + a.block)
        m = np.arange(s0, s1, dtype=np.float64)[:, None, None]
        x = as_float(np.asarray(xb[s0:s1]), a.bf16).astype(np.float64)
        y = as_float(np.asarray(yb[s0:s1]), a.bf16).astype(np.float64)
        ang = m * theta
        cos, sin = np.cos(ang), np.sin(ang)
        x1, x2 = x[..., :half], x[..., half:]
        tol = KAPPA * np.hypot(x1, x2) * (2 * eps_t + eps_a * (1 + c * np.abs(m) * theta))
        d1 = np.abs(y[..., :half] - (x1 * cos - x2 * sin))
        d2 = np.abs(y[..., half:] - (x1 * sin + x2 * cos))
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.maximum(np.where(d1 == 0, 0.0, d1 / tol), np.where(d2 == 0, 0.0, d2 / tol))
        failing += int(np.count_nonzero(d1 > tol) + np.count_nonzero(d2 > tol))
        worst = max(worst, float(r.max()))
    print(json.dumps({"failing": failing, "total": seq * heads * d, "max_ratio": worst if math.isfinite(worst) else None}))


if __name__ == "__main__":
    main()
