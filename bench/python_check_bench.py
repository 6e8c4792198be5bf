#!/usr/bin/python3
"""rope.check (the Python module) at full size against a plain NumPy float64 check, same run: the issue's targets
(issue 53, item 6): one call on a [4, 8192, 32, 128] float32 q (Hugging Face's [batch, seq, heads, d] of a 32-head
model at 8192 positions; 512 MiB an array) >= 5x faster than NumPy, and its peak memory below NumPy's. Each side
runs in a fresh process that loads both arrays whole (as a caller holds them: np.load, not mapped), then checks;
the peak RSS (getrusage) and the growth of the RSS over the loaded arrays are reported. The dumps are generated
here (never committed): q ~ N(0, 1) in float32, RoPE in float32 as PyTorch computes it (the half layout, base
10^4), positions 0 ... 8191 in every batch row.

    python_check_bench.py [--build DIR] [--quick] [--dir DIR]   prints a table; exit 1 if a target is missed

`make bench-compare` (bench/compare.py) runs the same `run` as one of its rows.

The NumPy side is bench/peers/numpy_check.py's computation (the same float64 reference and tolerance (C1) with the
float32 angle model (C2)), by blocks of 1024 positions of one batch row (the whole array in float64 is 1 GiB
per operand).
"""
import json
import os
import subprocess
import sys

import standalone

PY = "/usr/bin/python3"
HERE = os.path.dirname(os.path.abspath(__file__))
SHAPE = (4, 8192, 32, 128)

RUN = r"""
import json, resource, sys, time
import numpy as np
def rss_kib():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmRSS:"))
side, before_path, after_path, module = sys.argv[1:5]
before, after = np.load(before_path), np.load(after_path)
loaded = rss_kib()
t0 = time.perf_counter(); c0 = time.process_time()
if side == "rope":
    sys.path.insert(0, module)
    import rope
    r = rope.check(before, after, np.arange(before.shape[1]), rope.Spec(base=10000))
    out = {"failing": r.failing, "total": r.total, "max_ratio": r.max_ratio}
else:
    sys.path.insert(0, module)
    from numpy_check_blocks import check
    out = check(before, after, 10000.0)
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
out.update(wall=wall, cpu=cpu, loaded_kib=loaded, peak_kib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
print(json.dumps(out))
"""

PEER = r'''
import numpy as np
KAPPA = 8.0  # kToleranceSafety (src/rope/core/constants.hpp)
def check(xb, yb, base, block=1024):
    """bench/peers/numpy_check.py's float64 check (C1, C2 float32) of [batch, seq, heads, d] float32 arrays."""
    batch, seq, heads, d = xb.shape
    half = d // 2
    theta = base ** (-2.0 * np.arange(half) / d)
    eps_t, eps_a = 2.0 ** -23, 2.0 ** -23
    c = 1.5 + np.abs(np.log(theta)) / 2
    failing, worst = 0, 0.0
    for b in range(batch):
        for s0 in range(0, seq, block):
            s1 = min(seq, s0 + block)
            m = np.arange(s0, s1, dtype=np.float64)[:, None, None]
            x = xb[b, s0:s1].astype(np.float64)
            y = yb[b, s0:s1].astype(np.float64)
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
    return {"failing": failing, "total": batch * seq * heads * d, "max_ratio": worst}
'''


def make_dump(dir_, seed=54):
    """Writes big_before.npy and big_after.npy, SHAPE float32, by blocks of 1024 positions."""
    import numpy as np
    from numpy.lib.format import open_memmap
    paths = [os.path.join(dir_, f"big_{w}.npy") for w in ("before", "after")]
    xs = [open_memmap(p, mode="w+", dtype=np.float32, shape=SHAPE) for p in paths]
    batch, seq, heads, d = SHAPE
    half = d // 2
    inv = (1.0 / (10000.0 ** (np.arange(0, d, 2, dtype=np.float32) / d))).astype(np.float32)
    rng = np.random.default_rng(seed)
    for b in range(batch):
        for s0 in range(0, seq, 1024):
            s1 = min(seq, s0 + 1024)
            x = rng.standard_normal((s1 - s0, heads, d), dtype=np.float32)
            ang = (np.arange(s0, s1, dtype=np.float32)[:, None] * inv)[:, None, :]  # float32, as HF
            cos, sin = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
            x1, x2 = x[..., :half], x[..., half:]
            xs[0][b, s0:s1] = x
            xs[1][b, s0:s1] = np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)
    for x in xs:
        x.flush()
    del xs
    return paths


def run(report, build, tmp, quick):
    """Adds the rows to a Report (compare.py's or the table below); returns the notes."""
    print("python check bench: generating [4, 8192, 32, 128] float32 …", file=sys.stderr)
    paths = make_dump(tmp)
    with open(os.path.join(tmp, "numpy_check_blocks.py"), "w") as f:
        f.write(PEER)
    module = os.path.join(build, "python")
    best = {}
    for _ in range(1 if quick else 2):  # alternated, so that both see the same minutes of the machine's load
        for side, where in (("rope", module), ("numpy", tmp)):
            p = subprocess.run([PY, "-c", RUN, side, paths[0], paths[1], where], capture_output=True, text=True)
            if p.returncode != 0:
                raise RuntimeError(f"{side}: exit {p.returncode}: {p.stderr[-800:]}")
            r = json.loads(p.stdout)
            if side not in best or r["wall"] < best[side]["wall"]:
                best[side] = r
    ours, theirs = best["rope"], best["numpy"]
    ratio = theirs["wall"] / ours["wall"]
    report.target("rope.check [4, 8192, 32, 128] float32, one call: NumPy float64 time / rope time", ratio, ">= 5",
                  ratio >= 5)
    report.target("rope.check full size: peak RSS, rope / NumPy", ours["peak_kib"] / theirs["peak_kib"], "< 1",
                  ours["peak_kib"] < theirs["peak_kib"])
    same = ours["failing"] == theirs["failing"] == 0
    report.check("rope.check full size: rope and NumPy both pass every element", same,
                 f"failing {ours['failing']} / {theirs['failing']}, max ratio {ours['max_ratio']:.3g} / "
                 f"{theirs['max_ratio']:.3g}")
    mib = lambda k: k / 1024
    notes = [f"rope.check full size: rope {ours['wall']:.2f} s ({ours['cpu']:.2f} s CPU), peak RSS "
             f"{mib(ours['peak_kib']):.0f} MiB, {mib(ours['peak_kib'] - ours['loaded_kib']):.0f} MiB over the loaded "
             f"arrays; NumPy {theirs['wall']:.2f} s ({theirs['cpu']:.2f} s CPU), peak RSS {mib(theirs['peak_kib']):.0f} "
             f"MiB, {mib(theirs['peak_kib'] - theirs['loaded_kib']):.0f} MiB over them"]
    for p in paths:
        os.remove(p)
    return notes


if __name__ == "__main__":
    sys.exit(standalone.main(run, __doc__, "rope-python-check-bench-", lambda build: os.path.abspath(build)))
