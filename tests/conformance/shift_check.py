"""The conformance tier's context shift (issue 66; check_pipeline.py calls check_shifts): llama.cpp's own K-cache
shift, run by libllama on the tiny models shift-norm, shift-neox and shift-yarn of llama_pipeline_cases.cpp.

The harness (llama_pipeline.cpp, Meta::shift) prefills 600 tokens at positions 0 … 599 into a float32 K cache, removes
the 512 after the first kShiftKeep = 4 (llama_memory_seq_rm) and moves the others back by 512 (llama_memory_seq_add),
then decodes one token, which runs the K-shift graph: per layer one RoPE node on a view of the cache
(build_rope_shift, src/llama-kv-cache.cpp:1924-1973 of ggml-org/llama.cpp at de3ff815ea7d, the node-llama-cpp 3.22.1
bundle), whose input is the cache before, its output the cache after, its positions the shift of every cell. Here the
moved cells (shift −512) are checked with `rope check --shift=-512 --config CASE.gguf`, and the kept ones (shift 0)
with `--shift=0`: a shift only turns a key, so a kept key must come back as it was.
"""
import json
import subprocess

import numpy as np

DELTA = -512
KEEP = 4  # llama_pipeline.hpp kShiftKeep
# What check must say of each model's moved and kept cells: "pass", or the diagnosis (`matches`) and its factor.
# shift-yarn: llama.cpp's build_rope_shift passes cparams.yarn_attn_factor = get_mscale(4)/(1 + 0.1·ln 4) = 1 with
# ext_factor 1 (src/llama-context.cpp:203-211), and ggml's rope_yarn multiplies by 1 + 0.1·ln(1/freq_scale) whenever
# ext_factor is not 0 (ggml/src/ggml-cpu/ops.cpp:5958-5973): the shift applies YaRN's magnitude 1.1386 once more to
# keys that carry it from their forward pass, moved or kept (docs/check.md, "The context shift of llama.cpp").
EXPECT = {
    "shift-norm": ("pass", None),
    "shift-neox": ("pass", None),
    "shift-yarn": ("magnitude-reapplied", 1.0 + 0.1 * np.log(4.0)),
}


def _run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr.strip()}")
    return r.returncode, json.loads(r.stdout)


def _cells(base, rows, tag):
    """The cells `rows` of the node's cache before and after, written beside its dumps."""
    out = []
    for side in ("before", "after"):
        path = f"{base}.{tag}.{side}.npy"
        np.save(path, np.load(f"{base}.{side}.npy")[rows])
        out.append(path)
    return out


def check_shifts(rope, nodes):
    """Checks every K-shift node (case, base, node, gguf, the shift of every cell); returns (checks, failures)."""
    total = failed = 0
    seen = set()
    for case, base, node, gguf, positions in nodes:
        seen.add(case)
        shift = np.array([int(v) for v in positions.split(",")])  # each cell's, pipeline.tsv's positions column
        want, factor = EXPECT.get(case, ("pass", None))
        for delta, rows, tag in ((DELTA, np.flatnonzero(shift == DELTA), "moved"), (0, np.arange(KEEP), "kept")):
            total += 1
            before, after = _cells(base, rows, tag)
            rc, j = _run([rope, "check", f"--shift={delta}", "--before", before, "--after", after, "--config", gguf,
                          "--json"])
            dg = j.get("diagnosis") or {}
            got = "pass" if j["passed"] else dg.get("matches")
            found = dict(dg.get("found") or {}) if isinstance(dg.get("found"), dict) else {}
            ok = got == want and len(rows) > 0 and j.get("mode") == "shift"
            if ok and factor is not None:
                ok = abs(found.get("factor", 0) / factor - 1) < 1e-4
            print(f"{'ok  ' if ok else 'FAIL'} {case:14s} {node:24s} K-shift, {len(rows)} {tag} cells, "
                  f"rope check --shift={delta}: {got} {found or ''} max|delta|/tol {j['max_ratio']:.3g}"
                  + ("" if j["passed"] else f": {dg.get('message', '')}"))
            failed += 0 if ok else 1
    for case in sorted(set(EXPECT) - seen):
        total += 1
        failed += 1
        print(f"FAIL {case:14s} no K-shift node captured in libllama's graph")
    return total, failed
