#!/usr/bin/python3
"""torch.save dumps of every rank of a context-parallel run over a packed batch, with mistakes planted on chosen ranks.

Independent of rope's C++: the ranks' tokens come from tests/reference/cp_positions.py (TransformerEngine's zigzag
split, SGLang's round-robin split, contiguous slices: each ported there from its source), RoPE is HF's
rotate_half (transformers src/transformers/models/llama/modeling_llama.py, apply_rotary_pos_emb: q·cos +
rotate_half(q)·sin with cos, sin of cat(freqs, freqs), freqs = position·inv_freq, inv_freq = base^(−2i/d)),
computed in float64 and stored in float32.

The mistakes a rank may carry (the issue's three, each a bug seen in a distributed port):
  - "not-offset": the rank's tokens rotated at 0 … n − 1 (positions not offset per rank; Megatron-LM #4977);
  - "contiguous": a zigzag rank's tokens rotated at the positions of a contiguous split (the zigzag chunk taken as
    contiguous);
  - "other-rank": the rank rotated at another rank's positions (it read rank `other`'s sequence starts; SGLang #28463);
  - "one-sequence": the packed batch cut as one sequence (Megatron-LM #5243);
  - "numbered-globally": the rank's tokens numbered across the ranks, rank · n + i (issue 91 recipe 7).

write(dir, layout, cu, cp, planted) writes DIR/rank{r}.pt ({'q': [n, heads, d], 'q_rope': …, 'positions': int64 [n]},
with PyTorch) and returns each rank's true positions; write_npy the same as DIR/rank{r}.q.npy, .q_rope.npy, .pos.npy
(NumPy alone). Run as a script: python3 cp_rank_dumps.py DIR LAYOUT CU CP [RANK=MISTAKE …].
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cp_positions import SPLIT, positions_of  # noqa: E402

HEADS, D, BASE = 2, 16, 10000.0


def rotate(q, pos):
    inv_freq = 1.0 / BASE ** (np.arange(0, D, 2, dtype=np.float64) / D)
    freqs = np.outer(np.asarray(pos, dtype=np.float64), inv_freq)
    emb = np.concatenate([freqs, freqs], axis=-1)[:, None, :]
    half = np.concatenate([-q[..., D // 2:], q[..., :D // 2]], axis=-1)
    return q * np.cos(emb) + half * np.sin(emb)


def rank_positions(layout, cu, cp, rank):
    return positions_of(cu, SPLIT[layout](cu, cp, rank))[0]


def applied_positions(layout, cu, cp, rank, mistake):
    own = rank_positions(layout, cu, cp, rank)
    if mistake is None:
        return own
    if mistake == "not-offset":
        return list(range(len(own)))
    if mistake == "contiguous":
        return rank_positions("contiguous", cu, cp, rank)
    if mistake.startswith("other-rank"):
        return rank_positions(layout, cu, cp, int(mistake.split(":")[1]))
    if mistake == "one-sequence":
        return SPLIT[layout]([0, cu[-1]], cp, rank)
    if mistake == "numbered-globally":  # the rank's tokens numbered across the ranks: rank · n + its order
        return list(range(rank * len(own), (rank + 1) * len(own)))
    raise ValueError(mistake)


def ranks(layout, cu, cp, planted=None, seed=80):
    """Each rank's (q, q_rope, its true positions), float32 and int64."""
    planted = planted or {}
    rng = np.random.default_rng(seed)
    for rank in range(cp):
        own = rank_positions(layout, cu, cp, rank)
        q = rng.standard_normal((len(own), HEADS, D))
        after = rotate(q, applied_positions(layout, cu, cp, rank, planted.get(rank)))
        yield q.astype(np.float32), after.astype(np.float32), np.asarray(own, dtype=np.int64)


def write(out, layout, cu, cp, planted=None, seed=80, name="rank{}.pt"):
    import torch
    truth = []
    for rank, (q, after, own) in enumerate(ranks(layout, cu, cp, planted, seed)):
        torch.save({"q": torch.from_numpy(q), "q_rope": torch.from_numpy(after), "positions": torch.from_numpy(own)},
                   os.path.join(out, name.format(rank)))
        truth.append(list(own))
    return truth


def write_npy(out, layout, cu, cp, planted=None, seed=80):
    truth = []
    for rank, (q, after, own) in enumerate(ranks(layout, cu, cp, planted, seed)):
        for what, a in (("q", q), ("q_rope", after), ("pos", own)):
            np.save(os.path.join(out, f"rank{rank}.{what}.npy"), a)
        truth.append(list(own))
    return truth


if __name__ == "__main__":
    planted = {int(a.split("=")[0]): a.split("=", 1)[1] for a in sys.argv[5:]}
    write(sys.argv[1], sys.argv[2], [int(c) for c in sys.argv[3].split(",")], int(sys.argv[4]), planted)
