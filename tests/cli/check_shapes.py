#!/usr/bin/python3
"""`rope check` and `rope identify` on the shapes real kernels use and on realistic positions (issue 33), with
dumps made here by NumPy alone (the RoPE of tests/reference/make_dumps.py: Hugging Face's default frequencies in
float32, rotate_half, float32 arithmetic), run at test time.

  positions as tensors: .npy int64 [batch, seq] for a decode batch (seq 1, a different offset per row), a
      safetensors I64 [seq], a text file named by its path without @, M-RoPE's [3, batch, seq] as HF builds
      position_ids; a path that does not exist is refused with the way to name a file;
  per batch row / per packed sequence: the report has one entry per row or sequence, and a wrong row is named
      with its own diagnosis; packed sequences by --sequence-starts (a list, and cu_seqlens as an int32 .npy);
  diagnoses: positions that restart (chunked prefill) are "the positions restart at index 128", not a drift; a
      bf16 dump saved as float32 gets "add --dtype bf16"; a dump no variant explains half of says where it first
      departs (no closest hint under half, issue 53), in words (never an internal id), and points to `rope identify`; the
      header names the scaling with its parameters and the error model;
  identify: an off-by-one dump is "positions shifted by +1" (exit 1) with base 10000, not "linear 0.988"; 48
      sparse positions in 1 … 20000 give θ_0 = 1 and the YaRN family; a restart is found at its index; a
      reversed rotation has every θ negative; positions all even cannot determine θ_0 = 1 (θ_0 − π fits as well); a
      24-token bf16 dump (base 10000 and 500000, bf16 bits or float32) gives back the half layout and its base, and
      names the pairs whose partners bf16's rounding hides.
Tolerances: θ_j of the sparse dump to an angle error at the largest position P = 20000 of ε_f32·P = 2.4e-3 rad
(the dump's angles m·θ are computed in float32, each rounded by up to that much; measured 1.1e-4); the base
within 1e-3 relative.

Usage: check_shapes.py --rope PATH --out DIR
"""
import argparse
import json
import math
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
from make_dumps import bf16, inv_freq, rotate  # noqa: E402
from rope_run import run, run_json  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "dumps")
INTERNAL_IDS = ["layout-swapped", "base-10000", "scaling-ignored", "attention-factor-missing", "positions-plus-one",
                "positions-minus-one", "partial-rotary", "angles-bf16", "angles-f16", "mrope-", "positions-restart",
                "bf16-as-float32"]
failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)


def rope_rows(q, positions, theta, layout="half", dtype="f32", sign=1.0):
    """q [rows, seq, heads, d], positions [rows, seq]: each row rotated at its own positions."""
    out = np.empty_like(q)
    for b in range(q.shape[0]):
        out[b] = rotate(q[b], np.asarray(positions[b], np.float64), sign * theta, 1.0, layout, q.shape[-1], dtype)
    return out


def save_safetensors_i64(path, values):
    raw = np.asarray(values, "<i8").tobytes()
    header = json.dumps({"position_ids": {"dtype": "I64", "shape": [len(values)], "data_offsets": [0, len(raw)]}}).encode()
    header += b" " * (-len(header) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(header)) + header + raw)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rope", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    out = lambda name: os.path.join(a.out, name)  # noqa: E731
    rng = np.random.default_rng(33)
    d, heads = 64, 2
    theta, _ = inv_freq("default", d, 10000.0)

    def check(before, after, *extra):
        return run_json(a.rope, ["check", "--before", before, "--after", after, "--json", *extra])

    # 1. Decode batch: 4 rows, one token each, at positions 57, 12, 300, 4095; HF's q [batch, heads, seq, d].
    rows = np.array([[57], [12], [300], [4095]], np.int64)
    q = rng.standard_normal((4, 1, heads, d)).astype(np.float32)       # [batch, seq, heads, d]
    good = rope_rows(q, rows, theta)
    np.save(out("decode_q.npy"), q.transpose(0, 2, 1, 3))
    np.save(out("decode_q_rope.npy"), good.transpose(0, 2, 1, 3))
    np.save(out("decode_positions.npy"), rows)
    code, r, err = check(out("decode_q.npy"), out("decode_q_rope.npy"), "--positions", out("decode_positions.npy"))
    expect(code == 0 and r and len(r["segments"]) == 4 and all(s["passed"] for s in r["segments"]),
           f"decode batch: exit {code}, {err.strip()} {r and r.get('segments')}")
    bad = good.copy()
    bad[2] = rope_rows(q[2:3], rows[2:3] + 1, theta)[0]                  # row 2 rotated at 301
    np.save(out("decode_q_rope_row2.npy"), bad.transpose(0, 2, 1, 3))
    code, r, err = check(out("decode_q.npy"), out("decode_q_rope_row2.npy"), "--positions", "@" + out("decode_positions.npy"))
    segs = r["segments"] if r else []
    expect(code == 1 and [s["passed"] for s in segs] == [True, True, False, True]
           and segs[2]["diagnosis"]["matches"] == "positions-plus-one",
           f"decode batch, row 2 off by one: exit {code}, {err.strip()} {segs}")

    # 2. A prefill of 256 positions, safetensors I64 positions [seq] and a text list named by its path.
    q = rng.standard_normal((1, 256, heads, d)).astype(np.float32)
    pos = np.arange(256)[None, :]
    np.save(out("q.npy"), q[0])
    np.save(out("q_rope.npy"), rope_rows(q, pos, theta)[0])
    save_safetensors_i64(out("positions.safetensors"), list(range(256)))
    code, r, err = check(out("q.npy"), out("q_rope.npy"), "--positions", out("positions.safetensors"))
    expect(code == 0, f"safetensors positions: exit {code} {err.strip()}")
    with open(out("positions.txt"), "w") as f:
        f.write("\n".join(str(p) for p in range(256)) + "\n")
    code, r, err = check(out("q.npy"), out("q_rope.npy"), "--positions", out("positions.txt"))
    expect(code == 0, f"text positions by path: exit {code} {err.strip()}")
    code, _, err = run(a.rope, ["check", "--before", out("q.npy"), "--after", out("q_rope.npy"), "--positions", out("nosuch.npy")])
    expect(code == 2 and "@FILE" in err and err.count("\n") == 1, f"missing positions file: exit {code}, {err!r}")

    # 3. Packed sequences and chunked prefill: positions 0 … 127 then 0 … 127 again.
    restart = np.concatenate([np.arange(128), np.arange(128)])[None, :]
    np.save(out("packed_q_rope.npy"), rope_rows(q, restart, theta)[0])
    np.save(out("cu_seqlens.npy"), np.array([0, 128, 256], np.int32))
    for starts in ("0,128", out("cu_seqlens.npy")):
        code, r, err = check(out("q.npy"), out("packed_q_rope.npy"), "--sequence-starts", starts)
        expect(code == 0 and r and [s["start"] for s in r["segments"]] == [0, 128],
               f"packed, --sequence-starts {starts}: exit {code} {err.strip()}")
    code, r, err = check(out("q.npy"), out("packed_q_rope.npy"), "--positions", "0:256")
    dg = r["diagnosis"] if r else {}
    expect(code == 1 and dg.get("matches") == "positions-restart" and dg.get("restarts") == [128]
           and "the positions restart at index 128" in dg.get("message", "") and "drift" not in dg.get("message", ""),
           f"restart: exit {code} {dg}")

    # 4. A bf16 model's q saved with .float(): bf16 arithmetic, stored as float32.
    qb = bf16(q)
    np.save(out("bf16_q.npy"), qb[0])
    np.save(out("bf16_q_rope.npy"), rope_rows(qb, pos, theta, dtype="bf16")[0])
    code, r, err = check(out("bf16_q.npy"), out("bf16_q_rope.npy"))
    dg = r["diagnosis"] if r else {}
    expect(code == 1 and dg.get("matches") == "bf16-as-float32"
           and "looks like bf16 saved as float32: add --dtype bf16" in dg.get("message", ""), f"bf16 as f32: {code} {dg}")
    code, r, err = check(out("bf16_q.npy"), out("bf16_q_rope.npy"), "--dtype", "bf16")
    expect(code == 0, f"bf16 with --dtype bf16: exit {code} {err.strip()}")

    # 5. Base 20000 where 10000 is expected: the base the first departing pair's angle gives, named (issue 53).
    theta2, _ = inv_freq("default", d, 20000.0)
    np.save(out("base20k_q_rope.npy"), rope_rows(q, pos, theta2)[0])
    code, r, err = check(out("q.npy"), out("base20k_q_rope.npy"), "--positions", "0:256")
    dg = r["diagnosis"] if r else {}
    expect(code == 1 and dg.get("matches") == "base-other" and dg.get("found") == {"base": 20000}
           and "matches base 20000, not 10000: is rope_theta read?" in dg.get("message", ""), f"base 20000: {code} {dg}")
    # Positions doubled: the dump measured (identify's engine), every frequency twice the expected one, confirmed
    # over the whole dump: positions-scaled, scale 2, the difference with its expected and found value.
    np.save(out("doubled_q_rope.npy"), rope_rows(q, 2 * pos, theta)[0])
    code, r, err = check(out("q.npy"), out("doubled_q_rope.npy"), "--positions", "0:256")
    dg = r["diagnosis"] if r else {}
    expect(code == 1 and dg.get("matches") == "positions-scaled" and dg.get("found") == {"scale": 2}
           and dg.get("closest") is None and dg.get("difference") == [
               {"parameter": "position_scale", "expected": 1, "found": 2}]
           and dg.get("difference_explained") == dg.get("difference_total") == r["total"]
           and dg["measured"]["family"] == "linear"
           and not any(i in dg.get("message", "") for i in INTERNAL_IDS), f"positions doubled: {code} {dg}")
    code, stdout, err = run(a.rope, ["check", "--before", out("q.npy"), "--after", out("doubled_q_rope.npy")])
    expect("the dump turns position m at 2·m" in stdout, f"positions doubled, text: {stdout}")

    # 6. The header: scaling with its parameters, and the error model.
    code, r, err = check(os.path.join(DATA, "q.npy"), os.path.join(DATA, "q_rope_yarn.npy"), "--scaling", "yarn",
                         "--factor", "4", "--original-max-position", "2048")
    expect(code == 0 and r["expected"]["scaling"] == "yarn: factor 4, original_max_position_embeddings 2048"
           and r["expected"]["error_model"] == "float64 reference, tolerance (C1) with the angle error of (C2)", f"header: {code} {r and r['expected']}")

    # 7. M-RoPE positions as HF's position_ids [3, batch, seq] in a .npy.
    t_h_w = np.loadtxt(os.path.join(DATA, "mrope_positions.csv"), delimiter=",", skiprows=1, usecols=(3, 4, 5), dtype=np.int64)
    np.save(out("mrope_position_ids.npy"), np.ascontiguousarray(t_h_w.T[:, None, :]))
    code, r, err = check(os.path.join(DATA, "mrope_q.npy"), os.path.join(DATA, "mrope_q_rope.npy"), "--positions",
                         out("mrope_position_ids.npy"), "--model", "qwen3-vl-8b")
    expect(code == 0, f"M-RoPE position_ids [3, 1, 24]: exit {code} {err.strip()}")

    # identify.
    def identify(before, after, *extra):
        return run_json(a.rope, ["identify", "--before", before, "--after", after, "--json", *extra])

    code, r, err = identify(os.path.join(DATA, "q.npy"), os.path.join(DATA, "q_rope_off_by_one.npy"), "--positions", "0:128")
    expect(code == 1 and r and r["position_offset"] == 1 and r["family"]["family"] == "default"
           and abs(r["family"]["base"] / 10000 - 1) < 1e-3, f"identify off by one: exit {code} {r and (r['position_offset'], r['family'])}")
    # 48 sparse positions in 1 … 20000, YaRN f = 4 from 2048, float32, 2 heads.
    sparse = np.sort(rng.choice(np.arange(1, 20001), 48, replace=False))[None, :]
    thy, attn = inv_freq("yarn", d, 10000.0, factor=4.0, original=2048)
    qs = rng.standard_normal((1, 48, heads, d)).astype(np.float32)
    ys = np.empty_like(qs)
    ys[0] = rotate(qs[0], sparse[0].astype(np.float64), thy, attn, "half", d, "f32")
    np.save(out("sparse_q.npy"), qs[0])
    np.save(out("sparse_q_rope.npy"), ys[0])
    np.save(out("sparse_positions.npy"), sparse)
    code, r, err = identify(out("sparse_q.npy"), out("sparse_q_rope.npy"), "--positions", out("sparse_positions.npy"))
    if r:
        worst = max(abs(m - t) for m, t in zip(r["theta"], thy)) * 20000
        expect(code == 0 and worst < 1.1920929e-07 * 20000 and r["family"]["family"] == "yarn" and not r["undetermined"],
               f"identify sparse: exit {code}, angle error {worst:.3g}, {r['family']}, {r['notes']}")
    else:
        expect(False, f"identify sparse: exit {code} {err.strip()}")
    code, r, err = identify(out("q.npy"), out("packed_q_rope.npy"), "--positions", "0:256")
    expect(code == 1 and r and r["jumps"] == [128] and r["family"]["family"] == "default"
           and abs(r["family"]["base"] / 10000 - 1) < 1e-3, f"identify restart: exit {code} {r and (r['jumps'], r['family'], r['notes'])}")
    np.save(out("reversed_q_rope.npy"), rope_rows(q, pos, theta, sign=-1.0)[0])
    code, r, err = identify(out("q.npy"), out("reversed_q_rope.npy"))
    expect(code == 1 and r and r["reversed"] and all(t < 0 for t in r["theta"]) and abs(r["theta"][0] + 1) < 1e-6,
           f"identify reversed (exit 1, issue 53): exit {code} {r and (r['theta'][:2], r['notes'])}")
    even = (2 * np.arange(128))[None, :]
    np.save(out("even_q_rope.npy"), rope_rows(q[:, :128], even, theta)[0])
    np.save(out("even_q.npy"), q[0, :128])
    code, r, err = identify(out("even_q.npy"), out("even_q_rope.npy"), "--positions", "0:256:2")
    expect(r and 0 in r["undetermined"], f"identify even positions: {r and (r['undetermined'], r['notes'])}")

    # A short bf16 dump (24 tokens, 8 heads, d 128): q in bf16, HF's RoPE (half layout) computed in float32 and the
    # result rounded to bf16, saved as bf16 bits (<u2, --bf16-bits) and as float32 of the bf16 values. The pairs whose
    # turn over 23 positions is below bf16's rounding cannot show their partners; the layout and the base come from
    # the others: the base within 1e-3 (measured 1e-5 for 10000, 1.0e-4 for 500000: the low pairs' angles are rounded
    # to bf16 relative to the values, 2^-9, and weigh little in the fit).
    for base in (10000.0, 500000.0):
        thb, _ = inv_freq("default", 128, base)
        qb = bf16(rng.standard_normal((24, 8, 128)).astype(np.float32))
        yb = bf16(rotate(qb, np.arange(24, dtype=np.float64), thb, 1.0, "half", 128, "f32"))
        tag = f"short_bf16_{int(base)}"
        np.save(out(tag + "_q.npy"), qb)
        np.save(out(tag + "_q_rope.npy"), yb)
        np.save(out(tag + "_q_bits.npy"), (qb.view(np.uint32) >> 16).astype("<u2"))
        np.save(out(tag + "_q_rope_bits.npy"), (yb.view(np.uint32) >> 16).astype("<u2"))
        for stored, extra in (("", []), ("_bits", ["--bf16-bits"])):
            code, r, err = identify(out(tag + "_q" + stored + ".npy"), out(tag + "_q_rope" + stored + ".npy"), *extra)
            ok = (code == 0 and r and r["layout"] == "half" and r["pairs"][0] == [0, 64] and r["family"]["family"] == "default"
                  and abs(r["family"]["base"] / base - 1) < 1e-3 and not r["reversed"])
            if ok and base == 500000.0:  # assumed from pair 43 on (23·θ_43 = 3.4e-3 rad < bf16's 2^-8 = 3.9e-3); the
                # sure pairs reach at least pair 35 (23·θ_35 = 1.8e-2 rad, several roundings)
                ok = (r["pairing_assumed"] and min(r["pairing_assumed"]) >= 35 and r["pairing_assumed"][-1] == len(r["pairs"]) - 1
                      and any("turn too little at these positions for their partners to show" in n for n in r["notes"]))
            expect(ok, f"identify short bf16 dump, base {base:g}{stored}: exit {code} {err.strip()} "
                       f"{r and (r['layout'], r['family'], r['pairing_assumed'], r['notes'])}")

    for f in failures:
        print("FAIL:", f)
    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
