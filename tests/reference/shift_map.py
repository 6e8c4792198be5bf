#!/usr/bin/python3
"""Dumps for `rope check --shift-map` (issue 78 item 3), written by NumPy independently of rope's C++.

A K cache after KV eviction with compaction: each surviving key, cached as k = R(old)·x at its old position, moves to
its new slot and is re-rotated there, k' = R(new − old)·k (check_mode.hpp (H2)). The re-rotation is a port of
VeloxQuant-MLX's `rope_remap_positions` (veloxquant_mlx/quantizers/a2ats_rope.py, the de-rotate/re-rotate primitive
of its PR #139, fixing issue #137): one rotation by new − old, half layout (x1·cos − x2·sin, x1·sin + x2·cos over the
halves), inv_freq = 1 / base^(arange(0, d/2) / (d/2)) and the angles δ·inv_freq in float32; its float16 path casts
cos, sin and the keys to float16 before the product, as that function does. The float32 and bf16 caches take the
product in float32 and round the result to the cache's type.

Each mistake of the map by its own formula on the same cache:
  offset       every new position off by the evicted count c (the positions counted with the evicted tokens left
               in: VeloxQuant-MLX #137): k' = R(new + c − old)·k
  not-rotated  the keys moved to their slots and left at their old angle: k' = k
  sign         turned by old − new: k' = R(old − new)·k

The drift of successive re-rotations (vLLM RFC #57672: "10 iterative in-place corrections vs. one direct rotation to
the same target position differ by ~6e-6 max abs diff (fp32)"): each key reaches its new position through n
compactions, positions old = p_0 > p_1 > … > p_n = new, each step k ← R(p_j − p_(j−1))·k computed as above and
rounded to the cache's type; checked against the one rotation by the sum, new − old, with the same map.

Writes DIR/manifest.json (the cases: files, check arguments, the exit and variant check must give) and the dumps
(bf16 as uint16 bit patterns: --bf16-bits); DIR defaults to tests/reference/shift_map. --docs also writes the example
of docs/check.md: data/dumps/shift_map_k.npy (the float32 cache), shift_map_k_moved.npy, shift_map_k_offset.npy and
shift_map.csv. Checks itself: every correct
re-rotation against R(new − old)·k in float64 (the norm of each pair kept within the type's rounding), and each
mistake differs from the correct result.

    /usr/bin/python3 tests/reference/shift_map.py [DIR] [--docs]
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_dumps import bf16  # noqa: E402  (float32 -> bfloat16, ties to even)

D, HEADS, KEYS, BASE, CONTEXT, SINKS = 64, 2, 48, 10000.0, 4096, 4
DRIFT_STEPS = (8, 64)
# check's exit on n successive re-rotations against the one rotation by the sum, as measured (docs/check.md, "A K cache
# re-rotated key by key"): max |Δ|/tolerance 0.113, 0.190, 0.410 at n = 8 (float32, bf16, float16), 1.65, 1.27, 2.14
# at n = 64; the drift passes up to n = 48 in float32, 32 in bf16, 24 in float16 on this cache.
DRIFT = {("f32", 8): 0, ("f32", 64): 1, ("bf16", 8): 0, ("bf16", 64): 1, ("f16", 8): 0, ("f16", 64): 1}


def inv_freq32():
    half = D // 2
    return (1.0 / (np.float32(BASE) ** (np.arange(0, half, dtype=np.float32) / np.float32(half)))).astype(np.float32)


def to_type(x, dtype):
    x = np.asarray(x, dtype=np.float32)
    if dtype == "bf16":
        return bf16(x)
    if dtype == "f16":
        return x.astype(np.float16).astype(np.float32)
    return x


def rotate64(k, positions):
    """R(p)·k in float64, half layout, p per key (the reference the port is checked against)."""
    half = D // 2
    theta = 1.0 / (BASE ** (np.arange(0, half, dtype=np.float64) / half))
    phi = np.asarray(positions, dtype=np.float64)[:, None] * theta[None, :]
    c, s = np.cos(phi)[:, None, :], np.sin(phi)[:, None, :]
    x1, x2 = k[..., :half].astype(np.float64), k[..., half:].astype(np.float64)
    return np.concatenate([x1 * c - x2 * s, x1 * s + x2 * c], axis=-1)


def remap(k, old, new, dtype):
    """rope_remap_positions: k turned by new − old, float32 angles; float16: cos, sin and k cast to float16 first."""
    half = D // 2
    delta = (np.asarray(new, dtype=np.float32) - np.asarray(old, dtype=np.float32)).astype(np.float32)
    angles = delta[:, None] * inv_freq32()[None, :]
    cos, sin = np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)
    if dtype == "f16":
        cos, sin = cos.astype(np.float16), sin.astype(np.float16)
        k = k.astype(np.float16)
    else:
        k = k.astype(np.float32)
    cos, sin = cos[:, None, :], sin[:, None, :]
    x1, x2 = k[..., :half], k[..., half:]
    out = np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)
    return to_type(out.astype(np.float32), dtype)


def save(out, name, array, dtype):
    a = np.ascontiguousarray(array, dtype=np.float32)
    if dtype == "bf16":
        a = (a.view(np.uint32) >> 16).astype(np.uint16)
    elif dtype == "f16":
        a = a.astype(np.float16)
    path = os.path.join(out, name + ".npy")
    np.save(path, a)
    return path


def main():
    docs = "--docs" in sys.argv[1:]
    args = [a for a in sys.argv[1:] if a != "--docs"]
    out = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "shift_map")
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(78)
    # The survivors: the sinks and a sorted sample of the rest of a 4096-token context; compacted to 0 … KEYS − 1.
    old = np.concatenate([np.arange(SINKS), np.sort(rng.choice(np.arange(SINKS, CONTEXT), KEYS - SINKS, False))])
    new = np.arange(KEYS)
    evicted = int(old[-1]) + 1 - KEYS  # the tokens dropped before the last survivor
    with open(os.path.join(out, "map.csv"), "w") as f:
        f.write("old,new\n" + "".join(f"{o},{n}\n" for o, n in zip(old, new)))
    np.save(os.path.join(out, "map.npy"), np.stack([old, new], axis=1).astype(np.int64))
    np.save(os.path.join(out, "delta.npy"), (new - old).astype(np.int64))  # identify's positions: δ per key
    x = rng.standard_normal((KEYS, HEADS, D))
    cases = []

    def case(name, dtype, after, exit, matches=None, found=None, map_file="map.csv"):
        before = os.path.join(out, f"k_{dtype}.npy")
        args = ["--before", before, "--after", save(out, name, after, dtype), "--shift-map",
                os.path.join(out, map_file), "--layout", "half", "--base", "10000", "--angles", "float32"]
        if dtype == "bf16":
            args.append("--bf16-bits")
        cases.append({"name": name, "dtype": dtype, "args": args, "exit": exit, "matches": matches,
                      "found": found or {}, "identify_args": ["--before", before, "--after",
                                                              os.path.join(out, name + ".npy"), "--positions",
                                                              os.path.join(out, "delta.npy")]
                      + (["--bf16-bits"] if dtype == "bf16" else [])})

    for dtype in ("f32", "bf16", "f16"):
        k = to_type(rotate64(x, old), dtype)  # the cache as stored: each key at its old position
        save(out, f"k_{dtype}", k, dtype)
        moved = remap(k, old, new, dtype)
        want = rotate64(k, new - old)
        # float32 angles at |δ| < 4096 are off by up to 4096·2^-24 rad (a float32 product), the types round after
        rel = {"f32": 4096 * 2 ** -23, "bf16": 2 ** -7, "f16": 2 ** -8}[dtype]
        err = np.abs(moved - want).max() / np.abs(want).max()
        assert err < rel, (dtype, err)
        case(f"{dtype}_correct", dtype, moved, 0, map_file="map.csv" if dtype != "f16" else "map.npy")
        if dtype == "f16":
            continue
        for name, after, found, variant in (
                ("offset", remap(k, old, new + evicted, dtype), {"offset": float(evicted)}, "shift-map-offset"),
                ("not_rotated", k, None, "shift-map-not-rotated"),
                ("sign", remap(k, new, old, dtype), None, "shift-map-sign")):
            assert np.abs(after - moved).max() > 0.1, name
            case(f"{dtype}_{name}", dtype, after, 1, variant, found, "map.npy" if name == "sign" else "map.csv")
    # Successive re-rotations: n compactions from old to new, each rounded to the cache's type, checked against the one
    # rotation by the sum (the same map): what check says of each is DRIFT's.
    drift = {}
    for dtype in ("f32", "bf16", "f16"):
        k = to_type(rotate64(x, old), dtype)
        once = remap(k, old, new, dtype)  # one rotation by the sum, in the cache's type
        for n in DRIFT_STEPS:
            steps = [np.round(old - (old - new) * j / n).astype(np.int64) for j in range(n + 1)]
            cur = k
            for a, b in zip(steps[:-1], steps[1:]):
                cur = remap(cur, a, b, dtype)
            drift[f"{dtype}_{n}"] = float(np.abs(cur - once).max() / np.abs(once).max())
            case(f"{dtype}_drift_{n}", dtype, cur, DRIFT[(dtype, n)], map_file="map.csv")
    if docs:  # docs/check.md's example: the float32 cache, its correct move and the move off by the evicted count
        dumps = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "dumps")
        for src, dst in (("k_f32.npy", "shift_map_k.npy"), ("f32_correct.npy", "shift_map_k_moved.npy"),
                         ("f32_offset.npy", "shift_map_k_offset.npy"), ("map.csv", "shift_map.csv")):
            with open(os.path.join(out, src), "rb") as a, open(os.path.join(dumps, dst), "wb") as b:
                b.write(a.read())
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"keys": KEYS, "heads": HEADS, "d": D, "evicted": evicted, "cases": cases, "drift": drift}, f,
                  indent=1)


if __name__ == "__main__":
    main()
