#!/usr/bin/python3
"""rope.distributed.check_ranks (issue 80 item 3): 4 processes of one job, gloo on the CPU, each checking its own
rank's q of a packed batch (3 sequences, cu_seqlens 0, 8, 16, 32, zigzag) in-process, rank 2 planted with positions
not offset per rank (tests/reference/cp_rank_dumps.py, from tests/reference/cp_positions.py's independent port of
the split); rank 0 holds the merged report, which names rank 2 and its mistake, the others None; with all_ranks=True
every rank holds it; rope.testing.assert_ranks raises on rank 0 with the report; a rank raising TypeError reaches
rank 0 as ValueError naming it (no rank waits out the group's timeout), and a fraction among the sequence starts is
refused. The merged report's rows are the
rows `rope check --rank-files` gives for the same tensors' dumps, field for field (their file names aside).

The processes are started with torch.multiprocessing (spawn) and init_process_group("gloo", file://): Debian 12's
torch 1.13 `torchrun` fails at start under Python 3.11 (`Std.from_str("0")` returns None, AttributeError in
`to_map`), so the test does what torchrun does for one node itself (docs/check.md says which recipe ran where).

Usage: check_distributed.py --rope PATH --out DIR   (PYTHONPATH: the module's build tree)
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "reference"))

CU = [0, 8, 16, 32]
SIZE = 4
PLANTED = {2: "not-offset"}


def worker(rank, init, out):
    import torch
    import torch.distributed as dist

    import cp_rank_dumps
    import rope
    import rope.distributed
    import rope.testing

    dist.init_process_group("gloo", init_method=f"file://{init}", rank=rank, world_size=SIZE)
    q, after, _ = list(cp_rank_dumps.ranks("zigzag", CU, SIZE, PLANTED))[rank]
    spec = rope.Spec(head_dim=cp_rank_dumps.D, base=cp_rank_dumps.BASE, layout="half")
    q, after = torch.from_numpy(q), torch.from_numpy(after)
    got = {}
    report = rope.distributed.check_ranks(q, after, spec=spec, layout="zigzag", sequence_starts=CU)
    got["to_rank_0"] = None if report is None else json.loads(report.to_json())
    got["text"] = None if report is None else report.summary()
    every = rope.distributed.check_ranks(q, after, spec=spec, layout="zigzag", sequence_starts=CU, all_ranks=True)
    got["all_ranks_failing"] = every.failing_ranks
    try:
        rope.testing.assert_ranks(q, after, spec=spec, layout="zigzag", sequence_starts=CU)
        got["raised"] = None
    except AssertionError as e:
        got["raised"] = str(e)
    # A rank whose check raises something other than ValueError (here rank 1's TypeError: lang=5, no str) still
    # reaches the collective: rank 0 raises ValueError naming rank 1, rank 1 its own; a fraction among the sequence
    # starts is refused on every rank, not read as its whole part.
    for key, lang, starts in (("type_error", 5 if rank == 1 else "en", CU), ("fraction", "en", [0, 8.7, 16, 32])):
        try:
            rope.distributed.check_ranks(q, after, spec=spec, layout="zigzag", sequence_starts=starts, lang=lang)
            got[key] = None
        except ValueError as e:
            got[key] = str(e)
    with open(os.path.join(out, f"rank{rank}.json"), "w") as f:
        json.dump(got, f)
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rope", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    import torch.multiprocessing as mp

    import cp_rank_dumps
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(os.path.join(a.out, "dumps"))
    init = os.path.join(a.out, "init")
    mp.spawn(worker, args=(init, a.out), nprocs=SIZE, join=True)
    got = []
    for r in range(SIZE):
        with open(os.path.join(a.out, f"rank{r}.json")) as f:
            got.append(json.load(f))
    failures = []
    merged = got[0]["to_rank_0"]
    if merged is None or any(g["to_rank_0"] is not None for g in got[1:]):
        failures.append("the merged report is not on rank 0 alone")
    elif merged["failing_ranks"] != [2] or merged["passed"]:
        failures.append(f"failing ranks {merged['failing_ranks']}, expected [2]")
    elif (merged["ranks"][2]["diagnosis"] or {}).get("found", {}).get("not_offset") != 1.0:
        failures.append(f"rank 2's mistake not named: {merged['ranks'][2]['diagnosis']}")
    if any(g["all_ranks_failing"] != [2] for g in got):
        failures.append(f"all_ranks=True: {[g['all_ranks_failing'] for g in got]}")
    if got[0]["raised"] is None or "rank 2" not in got[0]["raised"] or any(g["raised"] for g in got[1:]):
        failures.append(f"assert_ranks: {[g['raised'] for g in got]}")
    errors = [g["type_error"] for g in got]
    if (errors[2:] != [None, None] or any(e is None or "rank 1: TypeError" not in e for e in errors[:2])):
        failures.append(f"a rank's TypeError: {errors}")
    if any(g["fraction"] is None or "sequence_starts must be an integer (got 8.7)" not in g["fraction"] for g in got):
        failures.append(f"a fraction among the sequence starts: {[g['fraction'] for g in got]}")
    # The same tensors dumped and checked by the command line: the same rows, their file names aside.
    d = os.path.join(a.out, "dumps")
    cp_rank_dumps.write(d, "zigzag", CU, SIZE, PLANTED)
    r = subprocess.run([a.rope, "check", "--before-tensor", "q", "--after-tensor", "q_rope", "--sequence-starts",
                        ",".join(map(str, CU)), "--layout", "half", "--rank-files", os.path.join(d, "rank*.pt"),
                        "--cp-size", str(SIZE), "--cp-layout", "zigzag", "--json"], capture_output=True, text=True)
    one = json.loads(r.stdout) if r.stdout else None
    if merged is not None and one is not None:
        for row in merged["ranks"] + one["ranks"]:
            row.pop("file")
        if merged != one:
            failures.append("in-process rows differ from rope check --rank-files':\n"
                            f"{json.dumps(merged, sort_keys=True)}\n{json.dumps(one, sort_keys=True)}")
    elif merged is not None:
        failures.append(f"rope check --rank-files: exit {r.returncode} {r.stderr}")
    for f in failures:
        print("FAIL:", f)
    print(f"{SIZE} processes, {len(failures)} failures")
    if got[0]["text"]:
        print(got[0]["text"], end="")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
