#!/usr/bin/python3
"""rope spectrum against its NumPy peer (bench/peers/numpy_spectrum.py), whole processes, same run, on a
[8192, 32, 128] float32 dump (128 MiB) generated here (never committed): q ~ N(0, 1) with the norms of pairs 44 … 63
doubled, rotated by RoPE in float32 (the half layout, base 10^4). Reported: the peer's time over rope's, both peak
RSS as /usr/bin/time -v reports them (rope's bound: the norms of as many heads as 2^23 norms hold, 64 MiB, plus one
block; the peer holds the dump in float64), and that both give the same shares and entropies (1e-9).

    spectrum_bench.py [--build DIR] [--quick] [--dir DIR]   prints a table; exit 1 if a row fails
"""
import json
import os
import sys

import standalone
from check_bench import timed

PY = "/usr/bin/python3"
HERE = os.path.dirname(os.path.abspath(__file__))


def make_dump(dir_, seq=8192, heads=32, d=128, seed=69):
    import numpy as np
    from numpy.lib.format import open_memmap
    path = os.path.join(dir_, "spectrum_q.npy")
    out = open_memmap(path, mode="w+", dtype=np.float32, shape=(seq, heads, d))
    half = d // 2
    inv = (1.0 / (10000.0 ** (np.arange(0, d, 2, dtype=np.float32) / d))).astype(np.float32)
    rng = np.random.default_rng(seed)
    for s0 in range(0, seq, 2048):
        s1 = min(seq, s0 + 2048)
        x = rng.standard_normal((s1 - s0, heads, d), dtype=np.float32)
        x[..., 44:64] *= 2
        x[..., half + 44:half + 64] *= 2
        ang = (np.arange(s0, s1, dtype=np.float32)[:, None] * inv)[:, None, :]
        cos, sin = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
        x1, x2 = x[..., :half], x[..., half:]
        out[s0:s1] = np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)
    out.flush()
    del out
    return path


def run(report, rope, tmp, quick):
    print("rope spectrum bench: generating [8192, 32, 128] float32 …", file=sys.stderr)
    path = make_dump(tmp)
    rope_cmd = [rope, "spectrum", "--dump", path, "--json"]
    peer_cmd = [PY, os.path.join(HERE, "peers", "numpy_spectrum.py"), path]
    best = {"rope": (float("inf"), 0, ""), "peer": (float("inf"), 0, "")}
    for _ in range(2 if quick else 3):  # alternated: both see the same minutes of the machine's load
        for key, cmd in (("rope", rope_cmd), ("peer", peer_cmd)):
            w, rss, out = timed(cmd)
            if w < best[key][0]:
                best[key] = (w, rss, out)
    (tr, rss_r, out_r), (tp, rss_p, out_p) = best["rope"], best["peer"]
    ours, theirs = json.loads(out_r), json.loads(out_p)
    report.info("spectrum [8192, 32, 128] f32: NumPy time / rope time, whole processes", tp / tr)
    report.target("spectrum [8192, 32, 128] f32: rope peak RSS (MiB)", rss_r / 1024, "<= 96 MiB", rss_r <= 96 * 1024,
                  unit=" MiB")
    worst = 0.0
    for j, p in enumerate(ours["pairs"]):
        for key in ("energy_share", "frequency_entropy"):
            worst = max(worst, abs(p[key] - theirs[key][j]) / max(1e-300, abs(theirs[key][j])))
    report.check("spectrum: rope and NumPy give the same shares and entropies", worst <= 1e-9,
                 f"largest relative difference {worst:.2g}")
    os.remove(path)
    return [f"spectrum [8192, 32, 128] f32 (128 MiB): rope {tr:.2f} s, {rss_r / 1024:.1f} MiB peak RSS; NumPy "
            f"{tp:.2f} s, {rss_p / 1024:.0f} MiB"]


if __name__ == "__main__":
    sys.exit(standalone.main(run, __doc__, "rope-spectrum-bench-"))
