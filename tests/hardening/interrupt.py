#!/usr/bin/env python3
"""Ctrl-C (SIGINT) and SIGTERM while rope waits for gnuplot: rope dies of the signal, and leaves no
temporary output, no gnuplot script and no running gnuplot behind (src/rope/io/interrupt.hpp).

gnuplot is replaced (ROPE_GNUPLOT) by a script that records its process id and sleeps, so the signal
arrives while the temporary output and the script exist."""

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time

FAKE_GNUPLOT = """#!/bin/sh
echo $$ > "{marker}"
exec sleep 120
"""


def alive(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            return "State:\tZ" not in f.read()
    except FileNotFoundError:
        return False


def one(rope, sig, args):
    with tempfile.TemporaryDirectory(prefix="rope-interrupt-") as work:
        out, tmp, aux = (os.path.join(work, d) for d in ("out", "tmp", "aux"))
        for d in (out, tmp, aux):
            os.mkdir(d)
        marker = os.path.join(aux, "gnuplot.pid")
        fake = os.path.join(aux, "gnuplot")
        with open(fake, "w") as f:
            f.write(FAKE_GNUPLOT.format(marker=marker))
        os.chmod(fake, 0o755)
        env = dict(os.environ, ROPE_GNUPLOT=fake, TMPDIR=tmp)
        p = subprocess.Popen([rope] + args, cwd=out, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while not (os.path.exists(marker) and open(marker).read().strip()):
            if p.poll() is not None or time.monotonic() > deadline:
                p.kill()
                return [f"{sig.name}: gnuplot never started (rope exit {p.returncode}: {p.stderr.read()!r})"]
            time.sleep(0.02)
        gnuplot_pid = int(open(marker).read())
        left_before = sorted(os.listdir(out)) + sorted(os.listdir(tmp))
        p.send_signal(sig)
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            return [f"{sig.name}: rope did not stop"]
        problems = []
        if not left_before:
            problems.append(f"{sig.name}: no temporary file existed while gnuplot ran (test does not test)")
        if p.returncode != -sig:
            problems.append(f"{sig.name}: rope ended with {p.returncode}, not killed by the signal")
        left = sorted(os.listdir(out)) + sorted(os.listdir(tmp))
        if left:
            problems.append(f"{sig.name}: left behind {left}")
        for _ in range(100):
            if not alive(gnuplot_pid):
                break
            time.sleep(0.05)
        else:
            os.kill(gnuplot_pid, signal.SIGKILL)
            problems.append(f"{sig.name}: gnuplot (pid {gnuplot_pid}) still running")
        print(f"{sig.name}: temporary files while gnuplot ran: {left_before}; after: {left}; exit {p.returncode}")
        return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rope", required=True)
    a = ap.parse_args()
    rope = os.path.abspath(a.rope)
    problems = []
    problems += one(rope, signal.SIGINT, ["decay", "--png", "fig.png", "--svg", "fig.svg"])
    problems += one(rope, signal.SIGTERM, ["matrix", "--dim", "8", "--position", "3", "--output", "m.png"])
    for p in problems:
        print("FAIL " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
