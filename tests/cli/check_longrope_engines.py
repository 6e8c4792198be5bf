#!/usr/bin/python3
"""`rope check --engine` against tests/reference/longrope_engines.py, a NumPy port of the four engines' rules for
LongRoPE's list (HF longrope_frequency_update, vLLM phi3_long_rope_scaled_rope.py @ 63c2b7abcd, SGLang
rope_variant.py @ 0b1fd02d56, llama.cpp get_rope_factors), run at test time on Phi-3-mini-128k: each engine's dump
passes with its rule (exit 0); read with another rule it fails (exit 1), named `longrope-other-list` where the other
list explains it, the engine that wrote the dump among those the diagnosis says take that list (both boundary cases at
a largest position of L0 included, issue 78 item 6). Also `rope inspect --engine` (the list and
the rule in its notes) and the refusals of a context without its engine.

Usage: check_longrope_engines.py --rope PATH --out DIR   (DIR receives the dumps)
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from manifest_cases import generated_cases, run  # noqa: E402


def main():
    a, manifest = generated_cases("longrope_engines.py")
    failures = []
    for case in manifest["cases"]:
        d = os.path.join(a.out, case["dir"])
        code, out, err = run(a.rope, ["check", "--model", "phi-3-mini-128k", "--before", os.path.join(d, "q.npy"),
                                      "--after", os.path.join(d, "q_rope.npy"), "--positions",
                                      os.path.join(d, "positions.npy"), "--angles", "float32", "--json"]
                             + case["options"])
        if code != case["exit"]:
            failures.append(f"check {case['name']}: exit {code}, expected {case['exit']}: {err.strip()} {out[:600]}")
            continue
        report = json.loads(out)
        diagnosis = report.get("diagnosis") or {}
        named = ""
        if case["diagnosis"]:
            key, variant = case["diagnosis"]  # "matches" or "closest", and the variant
            named = f"{key} {diagnosis.get(key)}"
            if diagnosis.get(key) != variant:
                failures.append(f"check {case['name']}: {named}, expected {key} {variant}: {out[:600]}")
                continue
            # the engine that wrote the dump is among those the diagnosis names (SGLang's short path at L0 alone is
            # SGLang's, issue 78 item 6)
            title = {"hf": "Hugging Face", "vllm": "vLLM", "sglang": "SGLang", "llamacpp": "llama.cpp"}[case["engine"]]
            if key == "matches" and title not in diagnosis.get("message", ""):
                failures.append(f"check {case['name']}: {title} is not named: {diagnosis.get('message')}")
                continue
        print(f"check   {case['name']:28} exit {code}  max ratio {report['max_ratio']:.3g}  {named}")
    # inspect: the list the rule takes, said with the engine's numbers
    for options, words in [(["--engine", "vllm", "--max-model-len", "131072"],
                            "long_factor: vLLM's rule, max_model_len 131072 > L0 4096"),
                           (["--engine", "llamacpp", "--n-ctx", "4096"],
                            "short_factor: llama.cpp's rule, n_ctx per sequence 4096 <= L0 4096")]:
        code, out, err = run(a.rope, ["inspect", "--model", "phi-3-mini-128k"] + options)
        if code != 0 or words not in out:
            failures.append(f"inspect {' '.join(options)}: exit {code}, '{words}' not in: {out} {err}")
        else:
            print(f"inspect {' '.join(options):44} {words}")
    for options, words in [(["--max-model-len", "8192"], "--max-model-len is the context of engine vllm"),
                           (["--engine", "vllm"], "engine vllm chooses LongRoPE's list by its context"),
                           (["--engine", "llamacpp", "--n-ctx", "8192", "--seq-len", "10"], "not both"),
                           (["--engine", "tgi"], "unknown engine 'tgi'")]:
        code, out, err = run(a.rope, ["inspect", "--model", "phi-3-mini-128k"] + options)
        if code != 2 or words not in err:
            failures.append(f"inspect {' '.join(options)}: exit {code}, expected 2 and '{words}': {err}")
        else:
            print(f"refused {' '.join(options):44} {err.strip()}")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
