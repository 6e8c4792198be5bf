#!/usr/bin/python3
"""rope spectrum's peer as a NumPy user writes it (bench/spectrum_bench.py): the dump [seq, heads, d] loaded whole
(np.load), the pair norms of the half layout, np.fft.rfft of each norm minus its mean along the sequence, the
entropy of |X|² at f = 1 … seq//2, the energy shares; prints JSON {"energy_share": […], "frequency_entropy": […]}
(pooled over the heads) for the bench to compare with rope's.

    numpy_spectrum.py DUMP.npy
"""
import json
import sys

import numpy as np


def main():
    x = np.load(sys.argv[1]).astype(np.float64)  # [seq, heads, d]
    seq, heads, d = x.shape
    half = d // 2
    e = x[..., :half] ** 2 + x[..., half:] ** 2  # [seq, heads, pairs]
    energy = e.sum(axis=(0, 1))
    s = np.sqrt(e)
    dev = s - s.mean(axis=0)
    p = np.abs(np.fft.rfft(dev, axis=0)[1:seq // 2 + 1]) ** 2  # [f, heads, pairs]
    p = p / p.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        fe = -np.where(p > 0, p * np.log(p), 0.0).sum(axis=0)  # [heads, pairs]
    print(json.dumps({"energy_share": (energy / energy.sum()).tolist(), "frequency_entropy": fe.mean(axis=0).tolist()}))


if __name__ == "__main__":
    main()
