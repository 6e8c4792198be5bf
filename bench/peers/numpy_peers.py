#!/usr/bin/python3
"""The NumPy side of `make bench-compare`: the jobs of bench/ written the way a NumPy user writes them
(vectorized, float64), timed here, with the values they produce so that compare.py can check that
both sides computed the same thing.

    numpy_peers.py [--quick] [--values DIR]     prints one JSON object on stdout

Jobs:
  decay   RoFormer's decay bound (docs/math.md (M11)) at 100 000 evenly spaced distances m <= 10^6,
          d = 128, base 5e5: exp(1j·outer(m, θ)), cumsum over the pairs, |·|, mean.
  verify  the relative-position identity <R_m q, R_n k> = q^T R_{n-m} k (M8) for random pairs
          q, k ~ N(0, I), d = 128, integer positions in [0, 4096): draws, cos/sin, both sides and the
          worst relative error, in batches of 4096 pairs.
Times are the best of several runs (time.perf_counter).
"""
import argparse
import json
import os
import time

import numpy as np


def best_time(fn, repeat):
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def decay(points=100000, stop=1e6, d=128, base=5e5):
    theta = base ** (-2.0 * np.arange(d // 2) / d)
    m = np.linspace(0, stop, points)
    z = np.exp(1j * np.outer(m, theta))            # e^{i m θ_i}, [points, d/2]
    return np.abs(np.cumsum(z, axis=1)).sum(axis=1) / (d / 2)


def rope_interleaved(x, pos, theta):
    angle = pos[:, None] * theta
    c, s = np.cos(angle), np.sin(angle)
    out = np.empty_like(x)
    out[:, 0::2] = x[:, 0::2] * c - x[:, 1::2] * s
    out[:, 1::2] = x[:, 0::2] * s + x[:, 1::2] * c
    return out


def verify(pairs, d=128, base=1e4, max_position=4096, batch=4096, seed=2104):
    theta = base ** (-2.0 * np.arange(d // 2) / d)
    rng = np.random.default_rng(seed)
    worst = 0.0
    for start in range(0, pairs, batch):
        batch = min(batch, pairs - start)
        q = rng.standard_normal((batch, d))
        k = rng.standard_normal((batch, d))
        m = rng.integers(0, max_position, batch).astype(np.float64)
        n = rng.integers(0, max_position, batch).astype(np.float64)
        lhs = np.einsum("ij,ij->i", rope_interleaved(q, m, theta), rope_interleaved(k, n, theta))
        rhs = np.einsum("ij,ij->i", q, rope_interleaved(k, n - m, theta))
        scale = np.linalg.norm(q, axis=1) * np.linalg.norm(k, axis=1)
        worst = max(worst, float(np.max(np.abs(lhs - rhs) / scale)))
    return worst


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="fewer repetitions")
    p.add_argument("--values", help="directory to write decay.npy into")
    p.add_argument("--verify-only", type=int, metavar="PAIRS",
                   help="only check the headline identity on PAIRS draws and print the worst error (timed as a whole "
                        "process by compare.py, as rope verify is)")
    p.add_argument("--verify-rate", type=int, metavar="PAIRS",
                   help="only time the verify job on PAIRS pairs (best of the repetitions) and print its pairs per "
                        "second (compare.py alternates it with rope's benchmark, so both see the same load)")
    p.add_argument("--decay-csv", metavar="FILE",
                   help="only compute the decay job and write it as `rope decay --csv FILE` does (columns distance and "
                        "base=500000, each number in its shortest round-trip form), timed as a whole process against "
                        "rope decay writing the same CSV (issue 78 item 5)")
    a = p.parse_args()
    if a.decay_csv:
        f = decay()
        m = np.linspace(0, 1e6, f.size)
        with open(a.decay_csv, "w") as out:
            out.write("distance,base=500000\n")
            out.write("".join(f"{x!r},{y!r}\n" for x, y in zip(m.tolist(), f.tolist())))
        return
    if a.verify_rate:
        t, worst = best_time(lambda: verify(a.verify_rate), 2 if a.quick else 3)
        print(json.dumps({"verify_pairs_per_second": a.verify_rate / t, "verify_max_rel_error": worst}))
        return
    if a.verify_only:
        print(json.dumps({"verify_pairs": a.verify_only, "verify_max_rel_error": verify(a.verify_only)}))
        return
    repeat = 2 if a.quick else 5
    t_decay, f = best_time(decay, repeat)
    pairs = 4096 * (4 if a.quick else 16)
    t_verify, worst = best_time(lambda: verify(pairs), repeat)
    eps = np.finfo(np.float64).eps
    if a.values:
        np.save(os.path.join(a.values, "decay.npy"), f)
    print(json.dumps({
        "numpy": np.__version__,
        "decay_seconds": t_decay,
        "verify_pairs": pairs,
        "verify_seconds": t_verify,
        "verify_pairs_per_second": pairs / t_verify,
        "verify_max_rel_error": worst,
        "verify_tolerance": 8 * eps * (128 + 2 * 4096),  # (M13), as rope verify and identity_check
    }))


if __name__ == "__main__":
    main()
