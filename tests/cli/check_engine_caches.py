#!/usr/bin/python3
"""`rope check` of a cos/sin table against its model, without dumps (--cos/--sin or --cos-sin-cache with --model), on
the caches engines build, written by tests/reference/engine_caches.py (NumPy ports of vLLM's _compute_cos_sin_cache
with its llama3 and YaRN subclasses, FlashInfer's generate_cos_sin_f32_cache, flash-attn's _update_cos_sin_cache,
Hugging Face's LlamaRotaryEmbedding.forward, and ONNX's cos_cache/sin_cache inputs; files and commits there):

  - each engine's cache for each model it serves passes (exit 0, no finding);
  - each planted mistake fails (exit 1) with exactly the findings its manifest row names (JSON findings[].name):
    another base, the scaling ignored, the attention factor missing or applied twice, cos and sin swapped, values
    rounded to bfloat16, repeated pairs for a half-layout model, too few rows for --seq-len, the whole head rotated
    where the model rotates a quarter of it; a planted base is the measured_base reported, bfloat16 caches included;
  - the text report prints in English and Chinese, its verdict row FAIL;
  - refused with exit 2 and one line: a table without a model, naming --model; --positions without dumps, naming it.

Usage: check_engine_caches.py --rope PATH --out DIR
"""
import re
import sys

from manifest_cases import generated_cases
from rope_run import run, run_json


def main():
    a, rows = generated_cases("engine_caches.py")
    failures, count = [], 0
    for r in rows:
        count += 1
        code, rep, err = run_json(a.rope, ["check", "--json"] + r["args"])
        want = 1 if r["findings"] else 0
        if code != want or rep is None:
            failures.append(f"{r['name']}: exit {code}, expected {want}: {err.strip()}")
            continue
        if r["measured_base"] is not None and rep["measured_base"] != r["measured_base"]:
            failures.append(f"{r['name']}: measured_base {rep['measured_base']}, expected {r['measured_base']}")
        got = [x["name"] for x in rep["findings"]]
        if got != r["findings"] or rep["passed"] != (want == 0):
            failures.append(f"{r['name']}: findings {got}, expected {r['findings']}: "
                            f"{[x['message'] for x in rep['findings']]}")
    bad = next(r for r in rows if r["findings"])
    for lang, verdict in (("en", r"verdict +FAIL"), ("zh", r"结论 +未通过")):
        count += 1
        code, out, err = run(a.rope, ["check", "--lang", lang] + bad["args"])
        if code != 1 or not re.search(verdict, out):
            failures.append(f"text in {lang}: exit {code}, no '{verdict}' in {out!r} {err.strip()}")
    count += 1
    table = next(x for x in bad["args"] if x.endswith(".npy"))
    code, out, err = run(a.rope, ["check", "--cos-sin-cache", table])
    if code != 2 or len(err.strip().splitlines()) != 1 or "--model" not in err:
        failures.append(f"a table without a model: exit {code}, {err.strip()!r}")
    count += 1
    code, out, err = run(a.rope, ["check", "--cos-sin-cache", table, "--model", "qwen3-8b", "--positions", "0:8"])
    if code != 2 or len(err.strip().splitlines()) != 1 or "--positions" not in err:
        failures.append(f"--positions without dumps: exit {code}, {err.strip()!r}")
    for f in failures:
        print("FAIL:", f)
    print(f"{count - len(failures)} of {count} cases pass")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
