#!/usr/bin/python3
"""Issue 52: the memory of rope check and rope diff is flat in the number of batch rows or packed sequences, and
their time linear.

Dumps of N batch rows of one position each, every row failing (the dump after equals the dump before: nothing
turned), at two sizes: the peak resident memory (getrusage(RUSAGE_CHILDREN) of a fresh process that runs rope) may
grow by what the input itself takes per row (its vectors, positions and per-index ratios: about 150 bytes at d = 8),
never by a kept diagnosis per failing row
(about 3.5 kB each before the bound of src/rope/analysis/check/check.hpp kDiagnosedSegments: 10^6 rows took 3.2 GB).
rope diff kept every run and every row (2^20 runs: 3.7 GB) and searched every row for every failing run (10^5 packed
sequences: 102 s): its time must grow linearly too.

    bounded_work.py --rope build/bin/rope [--rows N] [--factor K]   exit 0 flat, 1 not (and says by how much)
"""
import argparse
import os
import random
import struct
import subprocess
import sys
import tempfile
import time

# Bytes of peak memory per added row allowed: the input's own share (≈150 at d = 8) with room; a diagnosis per
# failing row is ≈3.5 kB.
MAX_BYTES_PER_ROW = 1024
# Seconds a run may take (a quadratic diff of 40 000 rows took minutes).
TIMEOUT = 60


def write_npy(path, dtype, shape, values):
    """A version-1.0 .npy of `values` (a flat list) in C order: dtype '<f4' or '<i8'."""
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        dtype, ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else ""))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    code = "f" if dtype == "<f4" else "q"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack("<%d%s" % (len(values), code), *values))


def make_rows(dir_, rows, d=8):
    """before = after (rows, 1, 1, d) float32, positions (rows, 1) int64 from 1: every row fails."""
    rng = random.Random(52)
    x = [rng.gauss(0, 1) for _ in range(rows * d)]
    paths = [os.path.join(dir_, f"{rows}_{w}.npy") for w in ("before", "after", "positions")]
    write_npy(paths[0], "<f4", (rows, 1, 1, d), x)
    write_npy(paths[1], "<f4", (rows, 1, 1, d), x)
    write_npy(paths[2], "<i8", (rows, 1), [1 + r % 1000 for r in range(rows)])
    return paths


def sparse_npy(path, shape):
    """A float32 .npy of `shape` whose data is a hole (zeros, no disk): for inputs refused before they are read."""
    write_npy(path, "<f4", shape, [])
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) + 4 * shape[0] * shape[1])


def refusals(rope, tmp):
    """Inputs beyond a limit, refused (exit 2) before the work or the memory they would take: [(name, cmd, most
    seconds, most bytes)]."""
    small = [os.path.join(tmp, f"small_{w}.npy") for w in ("before", "after")]
    for p in small:
        write_npy(p, "<f4", (4, 1, 8), [0.5] * 32)
    zeros = os.path.join(tmp, "zeros.txt")  # 64 MiB of "0\n": 2^25 positions, 8 × the limit
    with open(zeros, "w") as f:
        f.write("0\n" * (1 << 25))
    wide = [os.path.join(tmp, f"wide_{w}.npy") for w in ("before", "after")]  # (2^23, 2): 2 × the limit
    for p in wide:
        sparse_npy(p, (1 << 23, 2))
    huge = os.path.join(tmp, "huge_positions.npy")  # 1 GiB, a hole: 8 × the limit of a positions file
    with open(huge, "wb") as f:
        f.truncate(1 << 30)
    check = [rope, "check", "--before", small[0], "--after", small[1]]
    return [
        # Item 4: a text positions file (and --sequence-starts) split into a vector per line before it was counted:
        # 22 s and 2 GB to be refused. Counted while read: the file (64 MiB) and the 2^22 values before the limit.
        ("a 64 MiB text positions file", check + ["--positions", zeros], 10, (64 + 32 + 64) << 20),
        ("a 64 MiB text --sequence-starts", check + ["--sequence-starts", zeros], 10, (64 + 32 + 64) << 20),
        # Item 3: 2^23 sequence indices without --positions were accepted (531 MB): refused from the shape.
        ("a (2^23, 2) dump without positions", [rope, "check", "--before", wide[0], "--after", wide[1]], 10, 64 << 20),
        # Issue 62: a positions file over 128 MiB was read before it was refused (8 GB: 4.4 s, 267 MB): by its size.
        ("a 1 GiB positions file", check + ["--positions", huge], 10, 32 << 20),
    ]


# Runs the command and prints its exit status and peak resident memory in KiB: the peak of this fresh process's one
# child, resource.getrusage(RUSAGE_CHILDREN) (the child is made from this small process, so the test's own memory
# does not count), on any machine: no /usr/bin/time needed.
PEAK_OF_CHILD = """
import resource, subprocess, sys
code = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def measured(cmd):
    """(wall seconds, peak RSS in bytes, exit status) of cmd, its peak from getrusage(RUSAGE_CHILDREN) in a fresh
    Python process that runs it."""
    t0 = time.perf_counter()
    try:
        p = subprocess.run([sys.executable, "-c", PEAK_OF_CHILD] + cmd, capture_output=True, text=True,
                           timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return TIMEOUT, 0, "killed after %d s" % TIMEOUT
    wall = time.perf_counter() - t0
    code, kib = p.stdout.split()
    return wall, int(kib) * 1024, int(code)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rope", required=True)
    ap.add_argument("--rows", type=int, default=5000,
                    help="rows of the small size (above the 4096 listed, so that both sizes list as many)")
    ap.add_argument("--factor", type=int, default=8, help="the large size is factor × rows")
    args = ap.parse_args()
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        sizes = (args.rows, args.rows * args.factor)
        files = {n: make_rows(tmp, n) for n in sizes}
        diff = lambda p: [args.rope, "diff", "--before", p[0], "--after-a", p[1], "--after-b", p[1], "--positions",
                          p[2], "--axes", "batch,heads,seq,d"]
        commands = {
            "diff": diff,
            "diff --json": lambda p: diff(p) + ["--json"],
            "check": lambda p: [args.rope, "check", "--before", p[0], "--after", p[1], "--positions", p[2],
                                "--axes", "batch,heads,seq,d"],
            "check --json": lambda p: [args.rope, "check", "--before", p[0], "--after", p[1], "--positions", p[2],
                                       "--axes", "batch,heads,seq,d", "--json"],
        }
        for name, cmd in commands.items():
            runs = {}
            for n in sizes:
                wall, rss, code = measured(cmd(files[n]))
                if code != 1:
                    print(f"FAIL {name} on {n} rows: exit {code}, expected 1 (every row fails)")
                    failures += 1
                runs[n] = (wall, rss)
            (w0, m0), (w1, m1) = runs[sizes[0]], runs[sizes[1]]
            per_row = (m1 - m0) / (sizes[1] - sizes[0])
            # Linear time: factor × the rows in at most 2·factor × the time (quadratic work makes it factor²), with a
            # second for the start of the process and the load of a shared machine.
            linear = w1 <= 2 * args.factor * w0 + 1.0
            verdict = "ok" if per_row <= MAX_BYTES_PER_ROW and linear else "FAIL"
            print(f"{verdict} {name}: {sizes[0]} rows {w0:.2f} s {m0 / 2**20:.1f} MiB, {sizes[1]} rows {w1:.2f} s "
                  f"{m1 / 2**20:.1f} MiB: {per_row:.0f} bytes per row (at most {MAX_BYTES_PER_ROW}), "
                  f"{w1 / max(w0, 1e-3):.1f}× the time (at most {2 * args.factor}× + 1 s)")
            failures += verdict != "ok"
        for name, cmd, seconds, most in refusals(args.rope, tmp):
            wall, rss, code = measured(cmd)
            verdict = "ok" if code == 2 and wall <= seconds and rss <= most else "FAIL"
            print(f"{verdict} {name}: exit {code} (2 expected) in {wall:.2f} s (at most {seconds}), "
                  f"{rss / 2**20:.1f} MiB (at most {most / 2**20:.0f})")
            failures += verdict != "ok"
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
