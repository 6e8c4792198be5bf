#!/usr/bin/python3
"""The PyTorch side of `make bench-compare`: RoPE on a [seq 4096, heads 32, head_dim 128] float32
tensor the way PyTorch code does it, timed here (CPU, torch's default threads):

  half         Hugging Face transformers' apply_rotary_pos_emb: q * cos + rotate_half(q) * sin, with
               cos, sin = cat(freqs, freqs) broadcast over the heads (GPT-NeoX / Llama-HF layout);
  interleaved  Meta's Llama: view_as_complex(q.reshape(..., -1, 2)) * freqs_cis, view_as_real,
               flatten (interleaved pairs).

Both out of place, as those functions are. GB/s counts bytes read + written (2 × 64 MiB), as bench/
does. The cos/sin (and freqs_cis) tables are built once outside the timing, in float64 and rounded to
float32 as rope builds its own, so that the values can be compared with rope's at float rounding
(Hugging Face builds them in float32: near position 4096 that moves angles by ~2e-4).
The input is the closed form x[p, h, c] = sin(0.001·(p·32·128 + h·128 + c) + 0.5) in float32; the
values printed are y at the indices SAMPLES of the flattened output, for compare.py.

    torch_peers.py [--quick]     prints one JSON object on stdout
"""
import argparse
import json
import time

import numpy as np
import torch

SEQ, HEADS, DIM, BASE = 4096, 32, 128, 10000.0
SAMPLES = [(j * 7919 * 4099 + j) % (SEQ * HEADS * DIM) for j in range(16)]


def closed_form_input():
    i = np.arange(SEQ * HEADS * DIM, dtype=np.float64)
    return np.sin(0.001 * i + 0.5).astype(np.float32).reshape(SEQ, HEADS, DIM)


def angles():
    theta = BASE ** (-2.0 * np.arange(DIM // 2) / DIM)
    return np.outer(np.arange(SEQ, dtype=np.float64), theta)  # [seq, d/2], float64


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, cos, sin):
    return (q * cos) + (rotate_half(q) * sin)


def apply_rotary_emb(xq, freqs_cis):
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    return torch.view_as_real(xq_ * freqs_cis).flatten(-2).type_as(xq)


def best_time(fn, repeat):
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true")
    a = p.parse_args()
    repeat = 3 if a.quick else 10
    x = torch.from_numpy(closed_form_input())
    ang = angles()
    c = torch.from_numpy(np.cos(ang).astype(np.float32))
    s = torch.from_numpy(np.sin(ang).astype(np.float32))
    cos = torch.cat((c, c), dim=-1).unsqueeze(1)  # [seq, 1, d]: broadcast over the heads
    sin = torch.cat((s, s), dim=-1).unsqueeze(1)
    freqs_cis = torch.complex(c, s).unsqueeze(1)  # [seq, 1, d/2]
    nbytes = 2 * x.numel() * 4
    with torch.no_grad():
        t_half, y_half = best_time(lambda: apply_rotary_pos_emb(x, cos, sin), repeat)
        t_inter, y_inter = best_time(lambda: apply_rotary_emb(x, freqs_cis), repeat)
    fh, fi = y_half.reshape(-1), y_inter.reshape(-1)
    print(json.dumps({
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "half_seconds": t_half,
        "half_gb_per_s": nbytes / t_half / 1e9,
        "interleaved_seconds": t_inter,
        "interleaved_gb_per_s": nbytes / t_inter / 1e9,
        "half_samples": [float(fh[i]) for i in SAMPLES],
        "interleaved_samples": [float(fi[i]) for i in SAMPLES],
    }))


if __name__ == "__main__":
    main()
