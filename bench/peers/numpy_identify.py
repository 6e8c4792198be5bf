#!/usr/bin/python3
"""The NumPy peer of `rope identify` (bench/identify_bench.py): the same estimation, written the way a NumPy
user writes it. The pair layout (half or interleaved: the one whose pair norms the rotation keeps), each
pair's phasor u_j(m) = Σ_heads conj(z_before)·z_after, θ_j as the peak of the periodogram
|Σ_m u_j(m)·e^(−iθm)| over a grid of θ ∈ [−π, π] fine enough for the positions' spread (as rope's
dense grid: 4π·spread/2 + 1 points, evaluated as one complex matrix product per block of the grid),
refined by least squares through the origin on the unwrapped phases, and the base from ln θ_j = −(2j/d)·ln base
(a line through the origin, as rope's default family).

    numpy_identify.py BEFORE AFTER POSITIONS     prints one JSON object: layout, base, theta0

Dumps: [seq, heads, d] float32; POSITIONS: a .npy of the seq positions.
"""
import json
import math
import sys

import numpy as np


def main():
    x = np.load(sys.argv[1]).astype(np.float64)
    y = np.load(sys.argv[2]).astype(np.float64)
    m = np.load(sys.argv[3]).astype(np.float64)
    seq, heads, d = x.shape
    half = d // 2
    layouts = {"half": (np.arange(half), np.arange(half) + half), "interleaved": (np.arange(0, d, 2), np.arange(1, d, 2))}

    def norm_error(a, b):
        nx = x[..., a] ** 2 + x[..., b] ** 2
        ny = y[..., a] ** 2 + y[..., b] ** 2
        return float(np.max(np.abs(ny - nx) / np.maximum(nx, 1e-30)))

    layout = min(layouts, key=lambda k: norm_error(*layouts[k]))
    a, b = layouts[layout]
    u = np.sum(np.conj(x[..., a] + 1j * x[..., b]) * (y[..., a] + 1j * y[..., b]), axis=1).T  # [pairs, seq]
    centre = np.round((m.min() + m.max()) / 2)
    mc = m - centre
    span = max(1.0, float(np.max(np.abs(mc))))
    grid = int(math.ceil(4 * math.pi * span)) + 1
    best = np.zeros(half)
    best_power = np.full(half, -1.0)
    block = 1 << 16
    for g0 in range(0, grid, block):
        th = -math.pi + 2 * math.pi / grid * np.arange(g0, min(grid, g0 + block))
        p = np.abs(u @ np.exp(-1j * np.outer(mc, th)))  # [pairs, block]
        k = np.argmax(p, axis=1)
        better = p[np.arange(half), k] > best_power
        best[better] = th[k[better]]
        best_power[better] = p[np.arange(half), k][better]
    theta = np.empty(half)
    order = np.argsort(np.abs(m))
    for j in range(half):  # least squares through the origin, unwrapping in order of |m|
        t, smp, smm = best[j], 0.0, 0.0
        for s in order:
            if m[s] == 0:
                continue
            phi = np.angle(u[j, s])
            phi += 2 * math.pi * round((t * m[s] - phi) / (2 * math.pi))
            smp += m[s] * phi
            smm += m[s] * m[s]
            t = smp / smm
        theta[j] = t
    jj = np.arange(half)
    slope = float(np.sum(jj * np.log(theta)) / np.sum(jj * jj))  # ln θ_j = slope·j, slope = −(2/d)·ln base
    print(json.dumps({"layout": layout, "base": math.exp(-slope * d / 2), "theta0": float(theta[0])}))


if __name__ == "__main__":
    main()
