#!/usr/bin/python3
"""A failing rope check at full size against the passing one, same run (issue 63): a q of [4, 8192, 32, 128]
(Hugging Face's [batch, seq, heads, d]) in float32 (2 × 512 MiB) and in bfloat16 (2 × 256 MiB), checked

- by the command as users run it (`rope check --before … --after … --positions 0:8192 --axes batch,seq,heads,d
  --layout half --json`, bf16 with `--bf16-bits`), whole processes, peak RSS from /usr/bin/time -v;
- by `rope.check` from Python on the arrays loaded whole (np.load, as a caller holds them), the call's wall time
  (the median of three calls in one process) and the process's peak RSS (getrusage);

each at the dump's positions (PASS), at positions off by one (`1:8193`: every element fails, and the diagnosis
names "positions shifted by -1") and at the wrong base (`--base 500000`, Spec(base=500000): every position but 0
fails, and the diagnosis names "matches base 10000": issue 78 item 5). Targets: a failing check within 2× the passing
one (CLI and Python, both types, both mistakes); the variant named over the whole dump. Beside them, the memory floor: `cat` of both files from the page cache,
and, when the environment variable ROPE_PREVIOUS names the previous release's executable (e167177, built as
docs/performance.md says), its passing check of the same files.

Then the measured rows (issue 91: a failing dump is measured before it is named), on a 2 × 1 GiB bf16 pair
([131072, 32, 128], the half layout, base 10^4, `--bf16-bits`): the passing dump, a positions-scaled one (every token
turned at 2·m: check measures a constant ratio of the frequencies and names positions-scaled, scale 2) and an
element-corrupted one (in 1 token of 64, channels 64 … 127 of every head keep their input, as a kernel writing only
the first half of each pair there: check classifies the failing indices' elements and names elements-unrotated),
timed alternately as whole processes, medians. Targets: each failing check within 2× the passing one, and named.

    check_fail_bench.py [--build DIR] [--quick] [--dir DIR]   prints a table; exit 1 if a target is missed

The dumps are generated here (never committed): q ~ N(0, 1), RoPE in float32 as PyTorch computes it (the half
layout, base 10^4), bf16 rounded to nearest even.
"""
import json
import os
import re
import subprocess
import sys
import time

import standalone

PY = "/usr/bin/python3"
SHAPE = (4, 8192, 32, 128)

RUN = r"""
import json, resource, sys, time
import numpy as np
before_path, after_path, module, shift, bf16, base = sys.argv[1:7]
before, after = np.load(before_path), np.load(after_path)
sys.path.insert(0, module)
import rope
walls = []
for _ in range(3):  # the median of three calls: the first pays the threads' and the pages' first touches
    t0 = time.perf_counter()
    r = rope.check(before, after, np.arange(before.shape[1]) + int(shift), rope.Spec(base=float(base)),
                   dtype="bf16" if bf16 == "1" else None)
    walls.append(time.perf_counter() - t0)
wall = sorted(walls)[1]
print(json.dumps({"failing": r.failing, "total": r.total, "matches": r.matches, "wall": wall,
                  "peak_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def make_dump(dir_, name, bf16, seed=63):
    """Writes name_before.npy and name_after.npy, SHAPE, by blocks of 1024 positions of one batch row."""
    import numpy as np
    from numpy.lib.format import open_memmap
    dtype = np.uint16 if bf16 else np.float32
    paths = [os.path.join(dir_, f"{name}_{w}.npy") for w in ("before", "after")]
    xs = [open_memmap(p, mode="w+", dtype=dtype, shape=SHAPE) for p in paths]
    batch, seq, heads, d = SHAPE
    half = d // 2
    inv = (1.0 / (10000.0 ** (np.arange(0, d, 2, dtype=np.float32) / d))).astype(np.float32)
    rng = np.random.default_rng(seed)

    def to_bf16(f):  # round to nearest even, as torch's .to(torch.bfloat16)
        u = f.view(np.uint32)
        return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)

    for b in range(batch):
        for s0 in range(0, seq, 1024):
            s1 = min(seq, s0 + 1024)
            x = rng.standard_normal((s1 - s0, heads, d), dtype=np.float32)
            if bf16:
                xb = to_bf16(x)
                x = (xb.astype(np.uint32) << 16).view(np.float32)
            ang = (np.arange(s0, s1, dtype=np.float32)[:, None] * inv)[:, None, :]  # float32, as HF
            cos, sin = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
            x1, x2 = x[..., :half], x[..., half:]
            y = np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1).astype(np.float32)
            xs[0][b, s0:s1] = xb if bf16 else x
            xs[1][b, s0:s1] = to_bf16(y) if bf16 else y
    for x in xs:
        x.flush()
    del xs
    return paths


LONG = (131072, 32, 128)


def make_long_dumps(dir_, seed=91):
    """Writes the measured rows' bf16 pair ([131072, 32, 128] as <u2, 1 GiB each) by blocks of 4096 positions: the
    before dump, and three after dumps: RoPE at the positions (pass), at twice them (scaled) and RoPE with channels
    64 … 127 of every 64th token left as their input (corrupted)."""
    import numpy as np
    from numpy.lib.format import open_memmap
    seq, heads, d = LONG
    half = d // 2
    names = ("before", "pass", "scaled", "corrupted")
    paths = {n: os.path.join(dir_, f"long-{n}.npy") for n in names}
    xs = {n: open_memmap(paths[n], mode="w+", dtype=np.uint16, shape=LONG) for n in names}
    inv = (1.0 / (10000.0 ** (np.arange(0, d, 2, dtype=np.float32) / d))).astype(np.float32)
    rng = np.random.default_rng(seed)

    def to_bf16(f):
        u = f.view(np.uint32)
        return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)

    def rope_at(x, m):
        ang = (m.astype(np.float32)[:, None] * inv)[:, None, :]
        cos, sin = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
        x1, x2 = x[..., :half], x[..., half:]
        return np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1).astype(np.float32)

    for s0 in range(0, seq, 4096):
        s1 = min(seq, s0 + 4096)
        xb = to_bf16(rng.standard_normal((s1 - s0, heads, d), dtype=np.float32))
        x = (xb.astype(np.uint32) << 16).view(np.float32)
        m = np.arange(s0, s1)
        y = to_bf16(rope_at(x, m))
        xs["before"][s0:s1] = xb
        xs["pass"][s0:s1] = y
        xs["scaled"][s0:s1] = to_bf16(rope_at(x, 2 * m))
        bad = (m % 64) == 63
        y[bad, :, half:] = xb[bad, :, half:]
        xs["corrupted"][s0:s1] = y
    for x in xs.values():
        x.flush()
    del xs
    return paths


def measured_rows(report, rope, tmp, quick):
    """The measured rows: passing, positions-scaled and element-corrupted checks of the 2 × 1 GiB bf16 pair, alternated,
    medians; returns the notes."""
    print("check fail bench: generating the measured rows' 2 × 1 GiB bf16 dumps …", file=sys.stderr)
    paths = make_long_dumps(tmp)
    seq = LONG[0]
    cmd = lambda after: [rope, "check", "--before", paths["before"], "--after", paths[after], "--positions",  # noqa: E731
                         f"0:{seq}", "--axes", "seq,heads,d", "--layout", "half", "--base", "10000", "--bf16-bits",
                         "--json"]
    subprocess.run(["cat"] + list(paths.values()), stdout=subprocess.DEVNULL, check=True)  # into the page cache
    runs = {k: [] for k in ("pass", "scaled", "corrupted")}
    outs = {}
    for _ in range(3 if quick else 5):  # alternated, so that all see the same minutes of the machine's load
        for key in runs:
            w, rss, out = timed(cmd(key))
            runs[key].append((w, rss))
            outs[key] = json.loads(out)
    med = {k: sorted(w for w, _ in v)[len(v) // 2] for k, v in runs.items()}
    notes = []
    for key, want in (("scaled", "positions-scaled"), ("corrupted", "elements-unrotated")):
        ratio = med[key] / med["pass"]
        report.target(f"check 2 × 1 GiB bf16, {key}, CLI: failing / passing time (median)", ratio, "<= 2", ratio <= 2)
        dg = outs[key]["diagnosis"]
        if want:
            report.check(f"check 2 × 1 GiB bf16, {key}: names {want}", dg.get("matches") == want,
                         f"named {dg.get('matches')} {dg.get('found')}")
        notes.append(f"check 2 × 1 GiB bf16 [131072, 32, 128], {key}: median {med[key]:.3f} s against passing "
                     f"{med['pass']:.3f} s ({ratio:.2f}×), peak RSS {max(r for _, r in runs[key]) / 1024:.0f} MiB; "
                     f"diagnosis: matches {dg.get('matches')}, found {dg.get('found')}: {dg.get('message', '')[:160]}")
    report.check("check 2 × 1 GiB bf16: the passing dump passes", outs["pass"]["passed"], f"passed {outs['pass']['passed']}")
    for p in paths.values():
        os.remove(p)
    return notes


def timed(cmd):
    """Wall seconds, peak RSS in KiB (/usr/bin/time -v), stdout."""
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1))
    if p.returncode not in (0, 1):
        raise RuntimeError(f"{cmd}: exit {p.returncode}: {p.stderr[-800:]}")
    return wall, rss, p.stdout


def cli(rope, paths, shift, bf16, base=10000):
    seq = SHAPE[1]
    return [rope, "check", "--before", paths[0], "--after", paths[1], "--positions", f"{shift}:{seq + shift}",
            "--axes", "batch,seq,heads,d", "--layout", "half", "--json", "--base", str(base)] + \
        (["--bf16-bits"] if bf16 else [])


def run(report, build, tmp, quick):
    """Adds the rows to a Report (compare.py's or the table below); returns the notes."""
    rope = os.path.join(build, "bin", "rope")
    module = os.path.join(build, "python")
    previous = os.environ.get("ROPE_PREVIOUS")
    notes = []
    reps = 2 if quick else 3
    for name, bf16 in (("f32", False), ("bf16", True)):
        print(f"check fail bench: generating [4, 8192, 32, 128] {name} …", file=sys.stderr)
        paths = make_dump(tmp, f"full-{name}", bf16)
        size = sum(os.path.getsize(p) for p in paths)
        subprocess.run(["cat"] + paths, stdout=subprocess.DEVNULL, check=True)  # into the page cache
        jobs = {"pass": cli(rope, paths, 0, bf16), "fail": cli(rope, paths, 1, bf16),
                "base": cli(rope, paths, 0, bf16, 500000),
                "cat": ["sh", "-c", f"cat {paths[0]} {paths[1]} > /dev/null"]}
        if previous:
            jobs["previous"] = cli(previous, paths, 0, bf16)
        best = {k: (float("inf"), 0, "") for k in jobs}
        for _ in range(reps):  # alternated, so that all see the same minutes of the machine's load
            for key, cmd in jobs.items():
                w, rss, out = timed(cmd)
                if w < best[key][0]:
                    best[key] = (w, rss, out)
        py = {}
        for _ in range(1 if quick else 2):
            for key, shift, base in (("pass", 0, 10000), ("fail", 1, 10000), ("base", 0, 500000)):
                p = subprocess.run([PY, "-c", RUN, paths[0], paths[1], module, str(shift), "1" if bf16 else "0",
                                    str(base)],
                                   capture_output=True, text=True)
                if p.returncode != 0:
                    raise RuntimeError(f"rope.check {key}: exit {p.returncode}: {p.stderr[-800:]}")
                r = json.loads(p.stdout)
                if key not in py or r["wall"] < py[key]["wall"]:
                    py[key] = r
        (tp, rp, op), (tf, rf, of), (tc, _, _) = best["pass"], best["fail"], best["cat"]
        passed, failed = json.loads(op), json.loads(of)
        ratio = tf / tp
        report.target(f"check [4, 8192, 32, 128] {name}, CLI: failing / passing time", ratio, "<= 2", ratio <= 2)
        pratio = py["fail"]["wall"] / py["pass"]["wall"]
        report.target(f"rope.check [4, 8192, 32, 128] {name}: failing / passing time", pratio, "<= 2", pratio <= 2)
        tb, rb, ob = best["base"]
        based = json.loads(ob)
        bratio = tb / tp
        report.target(f"check [4, 8192, 32, 128] {name} at the wrong base, CLI: failing / passing time", bratio, "<= 2",
                      bratio <= 2)
        pbratio = py["base"]["wall"] / py["pass"]["wall"]
        report.target(f"rope.check [4, 8192, 32, 128] {name} at the wrong base: failing / passing time", pbratio,
                      "<= 2", pbratio <= 2)
        # base 10000 is a row of its own (base-10000, the base in its name); any other base is base-other's found base
        found = dict(based["diagnosis"].get("found") or {}).get("base")
        names_10000 = based["diagnosis"]["matches"] == "base-10000" or (
            based["diagnosis"]["matches"] == "base-other" and found == 10000)
        report.check(f"check {name} full size at base 500000: names base 10000 over the whole dump",
                     names_10000 and py["base"]["matches"] == based["diagnosis"]["matches"],
                     f"named {based['diagnosis']['matches']} (base {found}) / Python {py['base']['matches']}")
        named = failed["diagnosis"]["matches"]
        report.check(f"check {name} full size: passes at the positions, names the shift at positions + 1",
                     passed["passed"] and named == "positions-minus-one" and py["fail"]["matches"] == named
                     and py["pass"]["failing"] == 0,
                     f"pass {passed['passed']}, named {named} / Python {py['fail']['matches']}")
        line = (f"check {name} [4, 8192, 32, 128] ({size / 2**20:.0f} MiB read): CLI pass {tp:.3f} s "
                f"({rp / 1024:.0f} MiB peak RSS), fail {tf:.3f} s ({rf / 1024:.0f} MiB), wrong base {tb:.3f} s "
                f"({rb / 1024:.0f} MiB); cat {tc:.3f} s (pass / cat "
                f"{tp / tc:.2f}×); rope.check pass {py['pass']['wall']:.3f} s, fail {py['fail']['wall']:.3f} s, wrong base "
                f"{py['base']['wall']:.3f} s (peak RSS {py['pass']['peak_kib'] / 1024:.0f} / "
                f"{py['fail']['peak_kib'] / 1024:.0f} / {py['base']['peak_kib'] / 1024:.0f} MiB, the "
                f"arrays loaded whole: {size / 2**20:.0f} MiB)")
        if previous:
            tv, rv, _ = best["previous"]
            line += f"; previous release pass {tv:.3f} s ({rv / 1024:.0f} MiB)"
        sample = failed["diagnosis"].get("sample") or {}
        line += (f"; the failing diagnosis's sample: {sample.get('indices')} sequence indices, "
                 f"{sample.get('elements')} elements")
        notes.append(line)
        for p in paths:
            os.remove(p)
    notes.extend(measured_rows(report, rope, tmp, quick))
    return notes


if __name__ == "__main__":
    sys.exit(standalone.main(run, __doc__, "rope-check-fail-bench-", lambda build: os.path.abspath(build)))
