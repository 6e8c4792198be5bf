#!/usr/bin/env python3
"""rope verify as a process (what an in-process test cannot see): the same output for 1 and 2 OpenMP
threads and for the same --seed; no progress bar when stderr is not a terminal, a bar when it is (a
pseudo-terminal); Ctrl-C (SIGINT) prints the result so far and exits 130.

    verify_process.py --rope PATH
"""
import argparse
import os
import pty
import select
import signal
import subprocess
import sys
import time


def run(rope, args, threads=None):
    env = dict(os.environ, LC_ALL="C.UTF-8")
    if threads:
        env["OMP_NUM_THREADS"] = str(threads)
    return subprocess.run([rope, "verify"] + args, capture_output=True, text=True, env=env, timeout=300)


def drain(master):
    """What is left to read on a pseudo-terminal's master once its process has ended; closes it."""
    data = b""
    while select.select([master], [], [], 0.2)[0]:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        data += chunk
    os.close(master)
    return data


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rope", required=True)
    rope = p.parse_args().rope
    failures = []

    def check(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    # Threads and seeds: byte-identical stdout (several chunks, a last batch that is not full).
    for args in (["--trials", "70001", "--seed", "5"], ["--trials", "3000", "--dim", "256", "--dtype", "bf16"],
                 ["--trials", "2000", "--layout", "half", "--json"]):
        one, two, again = run(rope, args, 1), run(rope, args, 2), run(rope, args, 2)
        check(one.returncode == 0 and one.stdout == two.stdout == again.stdout,
              f"verify {' '.join(args)}: identical for OMP_NUM_THREADS=1, 2 and a second run")
    check(run(rope, ["--trials", "2000", "--seed", "6"]).stdout != run(rope, ["--trials", "2000", "--seed", "7"]).stdout,
          "another seed, other draws")

    # stderr not a terminal: nothing on it.
    r = run(rope, ["--trials", "300000"])
    check(r.returncode == 0 and r.stderr == "", f"no progress bar on a pipe (stderr {r.stderr[:60]!r})")

    # stderr a terminal: the bar, and it is erased before the table is printed on stdout.
    master, slave = pty.openpty()
    proc = subprocess.Popen([rope, "verify", "--trials", "300000"], stdout=subprocess.PIPE, stderr=slave,
                            env=dict(os.environ, LC_ALL="C.UTF-8"))
    os.close(slave)
    out = proc.communicate(timeout=300)[0].decode()
    seen = drain(master)
    check(proc.returncode == 0 and b"trials" in seen and b"%" in seen and b"\x1b[K" in seen,
          f"progress bar on a terminal ({seen[-80:]!r})")
    check("7 of 7 identities passed" in out and "trials" not in out.split("\n")[-2], "the table on stdout, no bar in it")

    # Ctrl-C: the result so far, exit 130. The signal is sent once the progress bar on the terminal shows
    # that trials are running (no fixed sleep: under a sanitizer or a loaded machine start-up is slow).
    master, slave = pty.openpty()
    proc = subprocess.Popen([rope, "verify", "--trials", "1000000000"], stdout=subprocess.PIPE, stderr=slave,
                            env=dict(os.environ, LC_ALL="C.UTF-8"))
    os.close(slave)
    bar = b""
    deadline = time.monotonic() + 120
    while b"%" not in bar and time.monotonic() < deadline and proc.poll() is None:
        ready, _, _ = select.select([master], [], [], 1.0)
        if ready:
            try:
                bar += os.read(master, 4096)
            except OSError:
                break
    check(b"%" in bar, f"the progress bar shows before Ctrl-C ({bar[-80:]!r})")
    proc.send_signal(signal.SIGINT)
    out = proc.communicate(timeout=60)[0].decode()
    err = drain(master)
    check(proc.returncode == 130, f"Ctrl-C exits 130 (got {proc.returncode}, stderr {err[:80]!r})")
    check("interrupted (Ctrl-C) after " in out and "of 1000000000 trials" in out
          and "7 of 7 identities passed in the trials done (interrupted)" in out and "FAILED" not in out,
          "Ctrl-C prints the table of the trials done")
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
