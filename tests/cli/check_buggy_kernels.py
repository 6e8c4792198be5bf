#!/usr/bin/python3
"""`rope check` names every classic RoPE bug (issue 53): tests/reference/buggy_kernels.py, buggy kernels written with
NumPy alone, run at test time. Each buggy dump fails (exit 1) with the named diagnosis (`diagnosis.matches`) and the
parameter it found (`diagnosis.found`: the base, the partner channel, the cache length, the delta, …), in the text
report too where the manifest gives a phrase, and in Chinese (the diagnosis line is translated, never English); the
correct kernels (float32, bf16, float16, positions up to 131071) pass (exit 0).

Usage: check_buggy_kernels.py --rope PATH --out DIR   (DIR receives the dumps)
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from manifest_cases import generated_cases, run  # noqa: E402


def main():
    a, manifest = generated_cases("buggy_kernels.py")
    failures = []
    for case in manifest["cases"]:
        code, out, err = run(a.rope, ["check", "--json"] + case["args"])
        want = case["exit"]
        if code != want:
            failures.append(f"{case['name']}: exit {code}, expected {want}: {err.strip()} {out[-600:]}")
            continue
        r = json.loads(out)
        dg = r["diagnosis"]
        if case.get("layer_type"):  # several layer types, none given: the one it passes as, or none named
            want_lt = case["layer_type"]
            if r.get("layer_type") != want_lt["type"] or r.get("layer_types") != want_lt["types"]:
                failures.append(f"{case['name']}: layer_type {r.get('layer_type')}, layer_types "
                                f"{r.get('layer_types')}, expected {want_lt}")
            code, text, err = run(a.rope, ["check"] + case["args"])
            if case["text"] not in text:
                failures.append(f"{case['name']}: the text report lacks {case['text']!r}: {text[-400:]}")
            code, zh, err = run(a.rope, ["check", "--lang", "zh"] + case["args"])
            if "PASS as" in zh or "matches none" in zh or "sliding_attention" not in zh:
                failures.append(f"{case['name']}: the Chinese report: {zh[-400:]}")
            print(f"layers  {case['name']:20} {r.get('layer_type')} of {r.get('layer_types')}")
            continue
        if case.get("identify_family"):  # one engine: identify fits what check names (issue 63 items 2, 3)
            want_f = dict(case["identify_family"])
            want_exit, want_text = want_f.pop("exit", 0), want_f.pop("text", None)
            given = case["args"][4:6] if case["args"][4] == "--positions" else []
            dumps = case["args"][:4] + given
            code, out, err = run(a.rope, ["identify", "--json"] + dumps)
            fam = json.loads(out)["family"] if out.strip().startswith("{") else {}
            if code != want_exit or fam.get("family") != want_f["family"] or any(
                    abs(fam.get(k, 0) - v) > 0.01 * v for k, v in want_f.items() if k != "family"):
                failures.append(f"{case['name']}: identify exit {code}, fits {fam}, check names {case['matches']}: "
                                f"{err.strip()}")
            if want_text:
                code, text, err = run(a.rope, ["identify"] + dumps)
                if want_text not in text:
                    failures.append(f"{case['name']}: identify's text lacks {want_text!r}: {text[-600:]}")
        if case.get("identify_args"):  # identify reads the same positions file (one reader: check/dump_files.cpp)
            code, out, err = run(a.rope, ["identify", "--json"] + case["identify_args"])
            if code != 0:
                failures.append(f"{case['name']}: identify exit {code}: {err.strip()}")
        if case.get("identify"):  # identify on the same dump: the layout, the rotated block's offset, in words
            ident = case["identify"]
            dumps = case["args"][:case["args"].index("--positions") + 2]
            code, out, err = run(a.rope, ["identify", "--json"] + dumps)
            got = json.loads(out) if code == 0 else {}
            for key in ("layout", "rotary_offset", "rotary_dim"):
                if got.get(key) != ident[key]:
                    failures.append(f"{case['name']}: identify {key} {got.get(key)}, expected {ident[key]}: {err}")
            code, text, err = run(a.rope, ["identify"] + dumps)
            if ident["text"] not in text:
                failures.append(f"{case['name']}: identify's text lacks {ident['text']!r}: {text[:600]}")
            code, zh, err = run(a.rope, ["identify", "--lang", "zh"] + dumps)
            if ident["text"] in zh or f"，偏移 {ident['rotary_offset']}：" not in zh:
                failures.append(f"{case['name']}: identify's Chinese text: {zh[:600]}")
            print(f"ident   {case['name']:20} {got.get('layout')} offset {got.get('rotary_offset')}")
        if r.get("equivalent") != case.get("equivalent") or r["passed"] != (want == 0):
            failures.append(f"{case['name']}: passed {r['passed']}, equivalent {r.get('equivalent')}, expected "
                            f"{case.get('equivalent')}")
        if case.get("equivalent"):  # right up to a harmless reordering: PASS, the reordering named (issue 63 item 4)
            if dg["matches"] != case["matches"]:
                failures.append(f"{case['name']}: equivalent as {dg['matches']}, expected {case['matches']}")
            code, text, err = run(a.rope, ["check"] + case["args"])
            if case["text"] not in text:
                failures.append(f"{case['name']}: the text report lacks {case['text']!r}: {text[-400:]}")
            code, zh, err = run(a.rope, ["check", "--lang", "zh"] + case["args"])
            if "通过，等价：" not in zh or "PASS" in zh:
                failures.append(f"{case['name']}: the Chinese verdict: {zh[-400:]}")
            print(f"equiv   {case['name']:20} {r['equivalent']}")
            continue
        if want == 0:
            print(f"PASS    {case['name']:20} max ratio {r['max_ratio']:.3g}")
            continue
        if case["matches"] is None:  # no variant matches: a closest one that explains most, or the departure
            if dg["matches"] is not None or dg["closest"] != case["closest"]:
                failures.append(f"{case['name']}: matches {dg['matches']}, closest {dg['closest']}: {dg['message']}")
            if case["closest"] and not 2 * dg["closest_explained"] >= r["total"]:
                failures.append(f"{case['name']}: closest explains {dg['closest_explained']} of {r['elements']}")
            for key, value in (case["departure"] or {}).items():
                if not dg["departure"] or dg["departure"].get(key) != value:
                    failures.append(f"{case['name']}: departure {dg['departure']}, expected {key} = {value}")
            if case["departure"] is None and dg["departure"] is not None:
                failures.append(f"{case['name']}: a departure with a closest variant: {dg}")
            code, text, err = run(a.rope, ["check"] + case["args"])
            if case["text"] not in text:
                failures.append(f"{case['name']}: the text report lacks {case['text']!r}: {text[-400:]}")
            print(f"unknown {case['name']:20} closest {dg['closest']}, departure {dg['departure']}")
            continue
        if dg["matches"] != case["matches"]:
            failures.append(f"{case['name']}: matches {dg['matches']}, expected {case['matches']}: {dg['message']}")
            continue
        for key, value in case["found"].items():
            got = dg["found"].get(key)
            if got is None or abs(got - value) > case.get("found_rel", 1e-9) * max(1.0, abs(value)):
                failures.append(f"{case['name']}: found {key} = {got}, expected {value} ({dg['found']})")
        if case["text"]:
            code, text, err = run(a.rope, ["check"] + case["args"])
            if case["text"] not in text:
                failures.append(f"{case['name']}: the text report lacks {case['text']!r}: {text[-400:]}")
            code, zh, err = run(a.rope, ["check", "--lang", "zh"] + case["args"])
            line = [x for x in zh.splitlines() if x.strip().startswith("诊断")]
            if not line or "matches" in line[0]:
                failures.append(f"{case['name']}: no Chinese diagnosis: {line}")
        print(f"named   {case['name']:20} {dg['matches']:28} {dg['found']}")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
