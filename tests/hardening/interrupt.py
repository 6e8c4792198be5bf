#!/usr/bin/env python3
"""Every catchable signal that ends rope (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGALRM, SIGUSR1,
SIGUSR2, SIGXCPU) while rope waits for gnuplot: rope dies of the signal, and leaves no temporary output
and no running gnuplot behind (src/rope/io/interrupt.hpp). SIGKILL cannot be caught: gnuplot still dies
with rope (its parent-death signal), and the staged outputs, anonymous files (O_TMPFILE), go with it. SIGXFSZ is ignored: a file size limit is an I/O error, exit 3, with
nothing left behind.

gnuplot is replaced (ROPE_GNUPLOT) by a script that records its process id and sleeps, so the signal
arrives while the temporary output and the script exist."""

import argparse
import glob
import os
import resource
import shutil
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


def held_in(pid, directory):
    """The files of `directory` that process `pid` holds open, named or anonymous."""
    held = []
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if link.startswith(directory + "/"):
                held.append(link[len(directory) + 1:])
    except OSError:
        pass
    return held


def one(rope, sig, args, may_leave=False):
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
        # A staged output is an anonymous file (O_TMPFILE) that only rope holds open: seen in /proc, not in
        # the directory (where the file system has no O_TMPFILE, a named one is in the directory).
        left_before = sorted(os.listdir(out)) + sorted(os.listdir(tmp)) + held_in(p.pid, out)
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
        if left and not may_leave:
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


def lesson_dump(rope):
    """rope lesson --html with the real gnuplot, SIGINT while the example dump of `rope spectrum` lies in
    $TMPDIR/rope-lesson-*/ (issue 77 item 9: SIGINT at 4 s left the directory and q_spectrum.npy): nothing left.
    The dump lies there only while `rope spectrum` reads it (no figure is drawn meanwhile), a few milliseconds on an
    idle machine: it is polled without sleeping, and the lesson made again until the signal lands while the dump
    exists (ATTEMPTS at most; a lesson that ran to its end unseen must have left nothing, which is checked too)."""
    gnuplot = os.environ.get("ROPE_GNUPLOT") or shutil.which("gnuplot")
    if not gnuplot:
        return ["lesson dump: needs gnuplot (scripts/install-deps.sh)"]
    attempts = 10
    for _ in range(attempts):
        problems = lesson_dump_once(rope)
        if problems != ["missed"]:
            return problems
    return [f"lesson dump: q_spectrum.npy never seen in $TMPDIR in {attempts} lessons"]


def lesson_dump_once(rope):
    """One lesson: ["missed"] when it ended before the dump was seen and left nothing, else the problems."""
    with tempfile.TemporaryDirectory(prefix="rope-interrupt-") as work:
        out, tmp = os.path.join(work, "out"), os.path.join(work, "tmp")
        os.mkdir(out)
        os.mkdir(tmp)
        p = subprocess.Popen([rope, "lesson", "--html", "lesson.html"], cwd=out, env=dict(os.environ, TMPDIR=tmp),
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 120
        seen = False
        while not seen:
            seen = bool(glob.glob(os.path.join(tmp, "rope-lesson-*", "q_spectrum.npy")))
            if seen or p.poll() is not None or time.monotonic() > deadline:
                break
        if not seen:
            if p.poll() is None:
                p.kill()
            p.wait()
            left = sorted(os.listdir(tmp))
            if p.returncode == 0 and not left:
                return ["missed"]
            return [f"lesson dump: q_spectrum.npy never seen in $TMPDIR (rope exit {p.returncode}, left {left})"]
        p.send_signal(signal.SIGINT)
        p.wait(timeout=30)
        left = sorted(os.listdir(tmp)) + sorted(glob.glob(os.path.join(tmp, "*", "*")))
        print(f"lesson dump: SIGINT while q_spectrum.npy existed; exit {p.returncode}; left {left}")
        problems = []
        if p.returncode != -signal.SIGINT:
            problems.append(f"lesson dump: rope ended with {p.returncode}, not killed by SIGINT")
        if left:
            problems.append(f"lesson dump: left behind {left}")
        return problems


def file_size_limit(rope):
    """rope under a 4 KiB file size limit with SIGXFSZ at its default action (which would kill it):
    exit 3 naming the limit's error, the old CSV intact, nothing else left."""
    with tempfile.TemporaryDirectory(prefix="rope-xfsz-") as work:
        with open(os.path.join(work, "d.csv"), "w") as f:
            f.write("old\n")

        def limit():
            signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
            resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

        p = subprocess.run([rope, "decay", "--csv", "d.csv"], cwd=work, capture_output=True, text=True,
                           preexec_fn=limit, env=dict(os.environ, TMPDIR=work))
        problems = []
        if p.returncode != 3 or "File too large" not in p.stderr:
            problems.append(f"SIGXFSZ: exit {p.returncode}, {p.stderr.strip()!r} (expected 3, File too large)")
        if sorted(os.listdir(work)) != ["d.csv"] or open(os.path.join(work, "d.csv")).read() != "old\n":
            problems.append(f"SIGXFSZ: left {sorted(os.listdir(work))}")
        print(f"SIGXFSZ: exit {p.returncode}: {p.stderr.strip()}")
        return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rope", required=True)
    a = ap.parse_args()
    rope = os.path.abspath(a.rope)
    problems = []
    # A CSV is staged while gnuplot runs (a figure's temporary file is made only after gnuplot is done).
    figure = ["decay", "--csv", "d.csv", "--png", "fig.png", "--svg", "fig.svg"]
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGPIPE, signal.SIGALRM, signal.SIGUSR1,
                signal.SIGUSR2, signal.SIGXCPU):
        problems += one(rope, sig, figure)
    problems += one(rope, signal.SIGTERM, ["matrix", "--dim", "8", "--position", "3", "--output", "m.png",
                                           "--csv", "m.csv"])
    # rope lesson --html draws its figures in $TMPDIR/rope-lesson-*: removed on a signal too (issue 62 item 4).
    problems += one(rope, signal.SIGINT, ["lesson", "--html", "lesson.html"])
    problems += lesson_dump(rope)
    problems += one(rope, signal.SIGKILL, figure)  # staged outputs are anonymous: even SIGKILL leaves none
    problems += file_size_limit(rope)
    for p in problems:
        print("FAIL " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
