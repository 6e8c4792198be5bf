#!/usr/bin/python3
"""rope identify against its NumPy peer (bench/peers/numpy_identify.py), whole processes, same run: the
issue's target (rope identify <= 1 s on a Hugging Face spot-check: 48 sparse positions up to 131071, 4 heads
of d = 128, float32, about 100 KB a dump), CPU and wall time and peak RSS as /usr/bin/time -v reports them.
The dump is generated here (never committed): q ~ N(0, 1) in float32, RoPE in float32 as PyTorch computes it
(inv_freq and the angles m·inv_freq in float32, the half layout, base 500000), at 48 random positions in
1 … 131071 (131071 among them).

    identify_bench.py [--build DIR] [--quick] [--dir DIR]   prints a table; exit 1 if a target is missed

compare.py (make bench-compare) runs the same through run().
"""
import json
import os
import re
import subprocess
import sys

import standalone

PY = "/usr/bin/python3"
HERE = os.path.dirname(os.path.abspath(__file__))
BASE = 500000.0


def make_dump(dir_, seq=48, heads=4, d=128, top=131071, seed=53):
    """Writes spot_before.npy, spot_after.npy ([seq, heads, d] float32) and spot_positions.npy."""
    import numpy as np
    rng = np.random.default_rng(seed)
    pos = np.sort(np.concatenate([rng.choice(np.arange(1, top), seq - 1, replace=False), [top]])).astype(np.int64)
    x = rng.standard_normal((seq, heads, d), dtype=np.float32)
    inv = (1.0 / (np.float32(BASE) ** (np.arange(0, d, 2, dtype=np.float32) / d))).astype(np.float32)
    ang = (pos.astype(np.float32)[:, None] * inv)[:, None, :]  # float32, as HF
    cos, sin = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
    x1, x2 = x[..., :d // 2], x[..., d // 2:]
    y = np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1).astype(np.float32)
    paths = [os.path.join(dir_, f"spot_{w}.npy") for w in ("before", "after", "positions")]
    for p, a in zip(paths, (x, y, pos)):
        np.save(p, a)
    return paths


def timed(cmd):
    """Wall seconds, CPU seconds (user + system), peak RSS in KiB (/usr/bin/time -v), stdout, exit status."""
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True)
    field = lambda name: re.search(name + r": ([\d.:]+)", p.stderr).group(1)
    clock = [float(v) for v in field(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\)").split(":")]
    wall = sum(v * 60 ** k for k, v in enumerate(reversed(clock)))
    cpu = float(field("User time \(seconds\)")) + float(field("System time \(seconds\)"))
    rss = int(field(r"Maximum resident set size \(kbytes\)"))
    if p.returncode not in (0, 1):
        raise RuntimeError(f"{cmd}: exit {p.returncode}: {p.stderr[-500:]}")
    return wall, cpu, rss, p.stdout


def run(report, rope, tmp, quick):
    """Adds the rows to compare.py's Report; returns the notes."""
    before, after, positions = make_dump(tmp)
    size = os.path.getsize(before)
    rope_cmd = [rope, "identify", "--before", before, "--after", after, "--positions", positions, "--json"]
    peer_cmd = [PY, os.path.join(HERE, "peers", "numpy_identify.py"), before, after, positions]
    best = {}
    for _ in range(2 if quick else 3):  # alternated, so that both see the same minutes of the machine's load
        for key, cmd in (("rope", rope_cmd), ("peer", peer_cmd)):
            r = timed(cmd)
            if key not in best or r[1] < best[key][1]:
                best[key] = r
    (wr, cr, rss_r, out_r), (wp, cp, rss_p, out_p) = best["rope"][:4], best["peer"][:4]
    ours, theirs = json.loads(out_r), json.loads(out_p)
    report.target("identify 48 sparse positions to 131071 (4 heads, d = 128): rope CPU time (s)", cr, "<= 1 s",
                  cr <= 1.0, unit=" s")
    report.info("identify sparse: NumPy CPU time / rope CPU time, whole processes", cp / cr)
    base = ours["family"]["base"]
    same = ours["layout"] == theirs["layout"] == "half" and abs(base / BASE - 1) < 1e-3 and \
        abs(theirs["base"] / BASE - 1) < 1e-3
    report.check("identify sparse: rope and NumPy find the half layout and base 500000", same,
                 f"{ours['layout']} {base:.6g} / {theirs['layout']} {theirs['base']:.6g}")
    return [f"identify sparse: two dumps of {size / 1024:.0f} KiB; rope {cr:.3f} s CPU ({wr:.2f} s wall), "
            f"{rss_r / 1024:.1f} MiB peak RSS; NumPy {cp:.2f} s CPU ({wp:.2f} s wall), {rss_p / 1024:.0f} MiB"]


if __name__ == "__main__":
    sys.exit(standalone.main(run, __doc__, "rope-identify-bench-"))
