#!/usr/bin/python3
"""rope check on a torch.save dump of many layers, whole processes, same run: the reader streams (issue 65: the
archive's directory and data.pkl read once, each tensor's bytes alone by pread, never the whole file) and `--tensor
'*'` reads each file's directory once. The dump is written here (never committed) in torch.save's zip layout by
tests/reference/torch_save_fixtures.py's writer (no PyTorch): LAYERS layers of q and q_rope, bfloat16 [2048, 16, 128]
(8 MiB each; q ~ N(0, 1), q_rope its RoPE, half layout, base 10^4, rounded to bf16). Reported, each the best of a few
runs alternated with its peers:

  - one layer (`--before-tensor layers.0.q --after-tensor layers.0.q_rope`): rope's peak RSS and wall time, against
    the NumPy peer that reads the same two records with Python's zipfile and widens them to float64 as rope does
    (bench/peers/numpy_torch_read.py), and against the previous rope (ROPE_PREVIOUS=BINARY, e.g. main's build),
    which read the whole file before parsing it;
  - every layer (`layers.*.q` → `layers.*.q_rope`): rope's wall time and peak, and the previous rope's.

    torch_dump_bench.py [--build DIR] [--quick] [--dir DIR]   prints a table; exit 1 if a row fails
"""
import os
import sys

import numpy as np

import standalone
from check_bench import timed

PY = "/usr/bin/python3"
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "reference"))
from torch_save_fixtures import P, archive, bf16_bytes, dict_of  # noqa: E402

SEQ, HEADS, D = 2048, 16, 128


def make_dump(dir_, layers):
    path = os.path.join(dir_, "layers.pt")
    rng = np.random.default_rng(65)
    half = D // 2
    inv = (1.0 / (10000.0 ** (np.arange(0, D, 2, dtype=np.float64) / D)))
    ang = np.arange(SEQ, dtype=np.float64)[:, None] * inv
    cos, sin = np.cos(ang)[:, None, :], np.sin(ang)[:, None, :]
    storages, p = {}, P()
    p.op(b"}").put().op(b"(").str("layers").op(b"]").put().op(b"(")
    for layer in range(layers):
        q = rng.standard_normal((SEQ, HEADS, D), dtype=np.float32)
        q = (q.view(np.uint32) & 0xFFFF0000).view(np.float32).astype(np.float64)  # exact in bf16
        x1, x2 = q[..., :half], q[..., half:]
        after = np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1).astype(np.float32)
        storages[2 * layer], storages[2 * layer + 1] = bf16_bytes(q.astype(np.float32)), bf16_bytes(after)
        n = SEQ * HEADS * D
        dict_of(p, [("q", lambda p, k=2 * layer: p.tensor("BFloat16Storage", k, n, 0, (SEQ, HEADS, D),
                                                          (HEADS * D, D, 1))),
                    ("q_rope", lambda p, k=2 * layer + 1: p.tensor("BFloat16Storage", k, n, 0, (SEQ, HEADS, D),
                                                                   (HEADS * D, D, 1)))])
    p.op(b"e").op(b"u")
    archive(path, p.stop(), storages)
    return path


def run(report, rope, tmp, quick):
    layers = 8 if quick else 12
    print(f"torch dump bench: writing {layers} layers of bf16 [{SEQ}, {HEADS}, {D}] …", file=sys.stderr)
    path = make_dump(tmp, layers)
    size = os.path.getsize(path) / 2**20
    previous = os.environ.get("ROPE_PREVIOUS")

    def one(binary):
        return [binary, "check", "--before", path, "--after", path, "--before-tensor", "layers.0.q", "--after-tensor",
                "layers.0.q_rope", "--layout", "half", "--dtype", "bf16", "--json"]

    def every(binary):
        return [binary, "check", "--before", path, "--after", path, "--before-tensor", "layers.*.q", "--after-tensor",
                "layers.*.q_rope", "--layout", "half", "--dtype", "bf16", "--json"]

    jobs = [("one", one(rope)), ("peer", [PY, os.path.join(HERE, "peers", "numpy_torch_read.py"), path, "layers.0.q",
                                          "layers.0.q_rope"]), ("every", every(rope))]
    if previous:
        jobs += [("one_previous", one(previous)), ("every_previous", every(previous))]
    best = {key: (float("inf"), 0) for key, _ in jobs}
    for _ in range(1 if quick else 3):  # alternated: each sees the same minutes of the machine's load
        for key, cmd in jobs:
            w, rss, _ = timed(cmd)
            if w < best[key][0]:
                best[key] = (w, rss)
    (t1, r1), (tp, rp), (te, re_) = best["one"], best["peer"], best["every"]
    # One layer holds its two tensors as float64 (2 × 32 MiB here) and their bf16 bytes, never the file.
    report.target(f"torch.save {size:.0f} MiB, one layer: rope peak RSS (MiB)", r1 / 1024, "<= 160 MiB",
                  r1 <= 160 * 1024, unit=" MiB")
    report.info("torch.save, one layer: NumPy zipfile peer's peak / rope's peak", rp / r1)
    report.target(f"torch.save, every layer ({layers}): rope peak RSS (MiB)", re_ / 1024, "<= 160 MiB",
                  re_ <= 160 * 1024, unit=" MiB")
    notes = [f"torch.save dump {size:.0f} MiB ({layers} layers × 2 × bf16 [{SEQ}, {HEADS}, {D}]): one layer rope "
             f"{t1:.2f} s, {r1 / 1024:.0f} MiB peak; NumPy zipfile peer {tp:.2f} s, {rp / 1024:.0f} MiB; every layer "
             f"rope {te:.2f} s, {re_ / 1024:.0f} MiB"]
    if previous:
        (t1p, r1p), (tep, rep) = best["one_previous"], best["every_previous"]
        report.info("torch.save, one layer: previous rope's peak / rope's peak", r1p / r1)
        report.info("torch.save, every layer: previous rope's time / rope's time", tep / te)
        notes.append(f"previous rope ({previous}): one layer {t1p:.2f} s, {r1p / 1024:.0f} MiB peak; every layer "
                     f"{tep:.2f} s, {rep / 1024:.0f} MiB")
    os.remove(path)
    return notes


if __name__ == "__main__":
    sys.exit(standalone.main(run, __doc__, "rope-torch-dump-bench-"))
