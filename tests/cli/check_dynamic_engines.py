#!/usr/bin/python3
"""`rope check --engine` on dynamic NTK against tests/reference/dynamic_engines.py, a NumPy port of HF's reading
(_compute_dynamic_ntk_parameters at the dump's length) and vLLM's (dynamic_ntk_scaling_rope.py, once at max_model_len)
of one config: each engine's dump passes with its reading (exit 0); read with the other it fails (exit 1), named
`engine-reading-other` with the engine in its sentence, or `dynamic-length-other` for vLLM served below M (a length
no HF reading takes); refusals (exit 2) for a length with no real base, an engine with no dynamic reading, and
--seq-len with vLLM's length. Also `rope inspect --engine vllm`: the base and the note of the length.

Usage: check_dynamic_engines.py --rope PATH --out DIR   (DIR receives the dumps)
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from manifest_cases import generated_cases, inspect_says, run  # noqa: E402


def dump_args(out, case):
    d = os.path.join(out, case["dir"])
    return ["--before", os.path.join(d, "q.npy"), "--after", os.path.join(d, "q_rope.npy"), "--positions",
            os.path.join(d, "positions.npy")]


def check_cases(a, manifest, failures):
    """Each case of an engine readings' manifest checked: its exit, and the variant named with its words."""
    for case in manifest["cases"]:
        code, out, err = run(a.rope, ["check", "--json"] + dump_args(a.out, case) + case["options"])
        if code != case["exit"]:
            failures.append(f"check {case['name']}: exit {code}, expected {case['exit']}: {err.strip()} {out[:600]}")
            continue
        diagnosis = json.loads(out).get("diagnosis") or {}
        if case["variant"] and (diagnosis.get("matches") != case["variant"]
                                or case["words"] not in diagnosis.get("message", "")):
            failures.append(f"check {case['name']}: matches {diagnosis.get('matches')}, expected {case['variant']} "
                            f"saying '{case['words']}': {diagnosis.get('message')}")
            continue
        print(f"check   {case['name']:34} exit {code}  {diagnosis.get('matches') or ''}")


def main():
    a, manifest = generated_cases("dynamic_engines.py")
    failures = []
    check_cases(a, manifest, failures)
    for case in manifest["refused"]:
        code, out, err = run(a.rope, ["check"] + dump_args(a.out, case) + case["options"])
        if code != 2 or case["words"] not in err or len(err.strip().splitlines()) != 1:
            failures.append(f"refused {case['name']}: exit {code}, expected 2 and '{case['words']}': {err}")
        else:
            print(f"refused {case['name']:30} {err.strip()}")
    inspect_says(a.rope, manifest["config"],
                 [(["--engine", "vllm"], "max_model_len 16384 = f·M"),
                  (["--engine", "vllm", "--max-model-len", "3584"], "below M too, unguarded")], failures)
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
