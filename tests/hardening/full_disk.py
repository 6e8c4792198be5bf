#!/usr/bin/env python3
"""A full disk (issue 19, item 1): rope writes a CSV and figures into a 64 KiB tmpfs that already holds
good old files. A figure does not fit: rope must exit 3 with one line naming the full disk ("No space
left on device"), keep every old file byte for byte, and leave no temporary file; a figure that fits
must be complete (PNG IEND, SVG </svg>, PDF %%EOF).

Mounting needs root (and a CI container may refuse it even then): without a mount the same checks run
under a file size limit (RLIMIT_FSIZE, SIGXFSZ ignored as a shell's `ulimit -f` user would have it),
where the message is "File too large"."""

import argparse
import os
import resource
import signal
import subprocess
import sys
import tempfile

OLD = {"d.csv": b"old csv\n", "fig.png": b"old png", "fig.svg": b"old svg", "fig.pdf": b"old pdf"}


def mount_tmpfs(path, size):
    if os.geteuid() != 0:
        return False
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", path], capture_output=True)
    return r.returncode == 0


def run(rope, args, cwd, limit):
    def apply():
        if limit:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return subprocess.run([rope] + args, cwd=cwd, capture_output=True, text=True, preexec_fn=apply,
                          env=dict(os.environ, TMPDIR=cwd))


def check(rope, work, limit, expected_reason):
    problems = []
    for name, data in OLD.items():
        with open(os.path.join(work, name), "wb") as f:
            f.write(data)
    cases = [
        ["decay", "--dim", "128", "--csv", "d.csv", "--png", "fig.png", "--width", "2000", "--height", "1500"],
        ["decay", "--dim", "128", "--svg", "fig.svg", "--points", "100000"],
        ["decay", "--dim", "128", "--pdf", "fig.pdf", "--csv", "d.csv", "--points", "100000"],
    ]
    for args in cases:
        p = run(rope, args, work, limit)
        line = p.stderr.strip()
        print(f"rope {' '.join(args)}: exit {p.returncode}: {line}")
        if p.returncode != 3 or p.stderr.count("\n") != 1 or expected_reason not in line:
            problems.append(f"{args}: exit {p.returncode}, {line!r} (expected 3 and {expected_reason!r})")
        for name, data in OLD.items():
            if open(os.path.join(work, name), "rb").read() != data:
                problems.append(f"{args}: {name} changed")
        extra = sorted(set(os.listdir(work)) - set(OLD) - {"lost+found"})
        if extra:
            problems.append(f"{args}: left {extra}")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rope", required=True)
    a = ap.parse_args()
    rope = os.path.abspath(a.rope)
    with tempfile.TemporaryDirectory(prefix="rope-full-disk-") as work:
        if mount_tmpfs(work, "64k"):
            try:
                print("on a 64 KiB tmpfs")
                problems = check(rope, work, 0, "No space left on device")
            finally:
                subprocess.run(["umount", work])
        else:
            print("no tmpfs (mount refused): under a 64 KiB file size limit instead")
            problems = []
        problems += check(rope, work, 64 << 10, "File too large")
    for p in problems:
        print("FAIL " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
