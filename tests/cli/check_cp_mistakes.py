#!/usr/bin/python3
"""`rope check` of one context-parallel rank over a packed batch of 3 sequences, its dump rotated with a distributed
port's mistake (issue 80's three wrong or missing answers): tests/reference/cp_rank_dumps.py writes each rank's q and
q_rope (HF's rotate_half, float64, stored float32) at the positions of tests/reference/cp_positions.py's independent
ports of the splits, one rank planted with a mistake; rope check is given the rank's true positions and its own
sequence starts (what `rope positions --cp-rank` prints) and must name the mistake, in its found parameters:
  - another rank's slices (zigzag, rank 1 rotated at rank 0's positions, and the reverse): found cp_rank, given_rank;
    never a "constant" offset for a sequence that no constant explains (the per-sequence pieces are −2, −2, +2, +2);
  - positions not offset per rank (zigzag rank 0, round-robin rank 0): found not_offset;
  - the packed batch cut as one sequence (zigzag ranks 0 and 1, round-robin rank 1): found one_sequence, cp_rank;
  - a rank's tokens numbered across the ranks (zigzag rank 1 at 16 + i): found order_offset;
  - the right positions: exit 0.

Usage: check_cp_mistakes.py --rope PATH --out DIR   (DIR receives the dumps)
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
import cp_rank_dumps  # noqa: E402
from cp_positions import SPLIT, local_starts, positions_of  # noqa: E402
from rope_run import run_json  # noqa: E402

CU = [0, 8, 16, 32]
# (layout, cp, planted {rank: mistake}, rank checked, the positions given: that rank's own unless "given" names
#  another rank, exit code, found keys and values expected)
CASES = [
    ("zigzag", 2, {}, 0, None, 0, {}),
    ("zigzag", 2, {}, 1, 0, 1, {"cp_rank": 1, "given_rank": 0, "cp_size": 2, "layout": 0}),
    ("zigzag", 2, {}, 0, 1, 1, {"cp_rank": 0, "given_rank": 1, "cp_size": 2, "layout": 0}),
    ("zigzag", 2, {0: "not-offset"}, 0, None, 1, {"not_offset": 1}),
    ("zigzag", 2, {1: "not-offset"}, 1, None, 1, {"not_offset": 1}),
    ("zigzag", 2, {0: "one-sequence"}, 0, None, 1, {"one_sequence": 1, "cp_rank": 0, "cp_size": 2}),
    ("zigzag", 2, {1: "one-sequence"}, 1, None, 1, {"one_sequence": 1, "cp_rank": 1, "cp_size": 2}),
    ("round-robin", 4, {0: "not-offset"}, 0, None, 1, {"not_offset": 1}),
    ("round-robin", 4, {1: "one-sequence"}, 1, None, 1, {"one_sequence": 1, "cp_rank": 1, "cp_size": 4, "layout": 1}),
    # Rank 1 numbered its tokens across the ranks (16 + i): one constant over the tokens' order, not the rank of a
    # batch cut as one sequence (contiguous) whose positions coincide.
    ("zigzag", 2, {1: "numbered-globally"}, 1, None, 1, {"order_offset": 16}),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rope", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    failures = []
    for k, (layout, cp, planted, rank, given, want_code, want) in enumerate(CASES):
        d = os.path.join(a.out, f"case{k}")
        os.makedirs(d, exist_ok=True)
        cp_rank_dumps.write_npy(d, layout, CU, cp, planted)
        pos, seqs = positions_of(CU, SPLIT[layout](CU, cp, rank if given is None else given))
        if given is not None:
            import numpy as np
            np.save(os.path.join(d, "given.npy"), np.asarray(pos, dtype=np.int64))
        starts = local_starts(positions_of(CU, SPLIT[layout](CU, cp, rank))[1])
        pos_file = os.path.join(d, f"rank{rank}.pos.npy") if given is None else os.path.join(d, "given.npy")
        args = ["check", "--before", os.path.join(d, f"rank{rank}.q.npy"), "--after",
                os.path.join(d, f"rank{rank}.q_rope.npy"), "--axes", "seq,heads,d", "--positions", "@" + pos_file,
                "--sequence-starts", ",".join(map(str, starts)), "--layout", "half", "--json"]
        code, report, err = run_json(a.rope, args)
        name = f"{layout} cp {cp} rank {rank} planted {planted} given {given}"
        if code != want_code:
            failures.append(f"{name}: exit {code}, expected {want_code}: {err.strip()}")
            continue
        if want_code == 0:
            continue
        found = report["diagnosis"]["found"]
        if report["diagnosis"].get("matches") != "positions-offset" or any(found.get(k) != v for k, v in want.items()):
            failures.append(f"{name}: diagnosis {report['diagnosis'].get('matches')} found {found}, expected {want}")
        if "constant" in report["diagnosis"].get("message", "") and not want.get("offset") and \
                not want.get("order_offset"):
            failures.append(f"{name}: a constant named: {report['diagnosis']['message']}")
    for f in failures:
        print("FAIL:", f)
    print(f"{len(CASES) - len(failures)} of {len(CASES)} cases pass")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
