#!/usr/bin/python3
"""`rope spectrum` against tests/reference/spectrum.py (issue 69), run at test time: for every synthetic dump (both
layouts, three axis orders, float32, float64 and bf16 bits, a prime length, a NoPE-like dump) every number of
`--json` equals NumPy's within 1e-9 relative (1e-12 absolute): both compute in float64 from the same stored values,
and differ only in the order of sums and in the FFT (rope: kissfft or Bluestein's chirp over it; NumPy: pocketfft),
whose rounding is a few ε·log2(T) of the largest bin, some 1e-14 here. The text report names the band and the lowest
pair in English and in Chinese. Bad input exits as `rope check` exits on the same file (2 or 3), with one line on
stderr, and creates no output file.

Usage: check_spectrum.py --rope PATH --out DIR   (DIR receives the dumps)
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from manifest_cases import generated_cases, run  # noqa: E402

RTOL, ATOL = 1e-9, 1e-12


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, float) and math.isinf(a):
        return a == b
    return abs(a - b) <= ATOL + RTOL * abs(b)


def compare_pairs(name, got, want, failures):
    if len(got) != len(want):
        failures.append(f"{name}: {len(got)} pairs, expected {len(want)}")
        return
    for g, w in zip(got, want):
        for key in ("wavelength", "energy_share", "frequency_entropy"):
            if not close(g[key], w[key]):
                failures.append(f"{name}: pair {w['pair']} {key} {g[key]!r}, NumPy {w[key]!r}")
        for key in ("pair", "flat", "flat_series"):
            if g[key] != w[key]:
                failures.append(f"{name}: pair {w['pair']} {key} {g[key]!r}, NumPy {w[key]!r}")


def main():
    a, manifest = generated_cases("spectrum.py")
    failures = []
    for case in manifest["cases"]:
        name, want = case["name"], case["expected"]
        code, out, err = run(a.rope, ["spectrum", "--json"] + case["args"])
        if code != 0:
            failures.append(f"{name}: exit {code}: {err.strip()}")
            continue
        r = json.loads(out)
        compare_pairs(name, r["pairs"], want["pairs"], failures)
        if len(r["heads"]) != len(want["heads"]):
            failures.append(f"{name}: {len(r['heads'])} heads, expected {len(want['heads'])}")
        for g, w in zip(r["heads"], want["heads"]):
            compare_pairs(f"{name} head {w['head']}", g["pairs"], w["pairs"], failures)
        gb, wb = r["bands"], want["bands"]
        for key in ("first", "last", "pairs"):
            if gb["energy"][key] != wb["energy"][key]:
                failures.append(f"{name}: energy band {key} {gb['energy'][key]}, NumPy {wb['energy'][key]}")
        if not close(gb["energy"]["share"], wb["energy"]["share"]):
            failures.append(f"{name}: energy band share {gb['energy']['share']}, NumPy {wb['energy']['share']}")
        for key in ("lowest_entropy", "highest_entropy"):
            if gb[key] != wb[key]:
                failures.append(f"{name}: {key} {gb[key]}, NumPy {wb[key]}")
        if r["frequency_bins"] != want["frequency_bins"]:
            failures.append(f"{name}: frequency_bins {r['frequency_bins']}, NumPy {want['frequency_bins']}")
        # The text in both languages: the band, and the lowest pair (or the flat note).
        _, text, _ = run(a.rope, ["spectrum"] + case["args"])
        _, zh, _ = run(a.rope, ["spectrum", "--lang", "zh"] + case["args"])
        e = wb["energy"]
        if f"pairs {e['first']} … {e['last']} hold" not in text:
            failures.append(f"{name}: the text lacks the band {e['first']} … {e['last']}: {text[:800]}")
        if f"{e['first']} … {e['last']}" not in zh or "hold" in zh or "pairs" in zh:
            failures.append(f"{name}: the Chinese text: {zh[:800]}")
        if wb["lowest_entropy"] is not None and f"lowest pair {wb['lowest_entropy']} " not in text:
            failures.append(f"{name}: the text lacks the lowest pair {wb['lowest_entropy']}: {text[:800]}")
        if wb["lowest_entropy"] is None and "flat" not in text:
            failures.append(f"{name}: the text does not flag the flat pairs: {text[:800]}")
        print(f"PASS    {name:24} band {e['first']} … {e['last']} ({e['share']:.3f}), lowest FE pair "
              f"{wb['lowest_entropy']}")
    for case in manifest["bad"]:
        name = case["name"]
        before = set(os.listdir(a.out))
        code, out, err = run(a.rope, ["spectrum"] + case["args"] + ["--png", os.path.join(a.out, "bad.png")])
        dump = case["args"][1]
        ccode, _, cerr = run(a.rope, ["check", "--before", dump, "--after", dump] + case["args"][2:])
        lines = err.strip().splitlines()
        if code != case["exit"] or ccode != code:
            failures.append(f"{name}: exit {code} (rope check {ccode}), expected {case['exit']}: {err.strip()}")
        if len(lines) != 1 or out:
            failures.append(f"{name}: expected one line on stderr and nothing on stdout: {err!r} {out!r}")
        if case["phrase"] and case["phrase"] not in err:
            failures.append(f"{name}: the message lacks {case['phrase']!r}: {err.strip()}")
        if set(os.listdir(a.out)) != before:
            failures.append(f"{name}: files created: {set(os.listdir(a.out)) - before}")
        print(f"BAD     {name:24} exit {code}: {err.strip()[:100]}")
    if failures:
        print("\n".join(failures[:40]), file=sys.stderr)
        print(f"{len(failures)} failure(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
