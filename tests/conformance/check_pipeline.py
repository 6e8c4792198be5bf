#!/usr/bin/python3
"""The conformance tier's pipeline judge: runs llama_pipeline.cpp (tiny random-weight models loaded by the real
libllama, q and k captured around every RoPE node by the eval callback as docs/check.md tells users to), then
for every node:
  - `rope check --config CASE.gguf` must pass at the node's positions (up to 65535), printing its margin
    max |delta|/tolerance; Gemma 3's sliding layers with --layer-type sliding_attention;
  - where ggml ran the RoPE in place (after a q-norm), the "before" a callback reads once the node is done
    equals "after", and check must say so (before-equals-after);
  - `rope identify` must recover, from one node of each model, the scaling family and its parameters;
  - on Llama 4's NoPE layers, q times the temperature (the graph's ggml_mul node) must pass `check --query` and
    fail without it;
the K cache before and after llama.cpp's context shift (the models shift-*) with `rope check --shift` (shift_check.py);
for every model of LAYERED, the layers with a RoPE node must be those llama.cpp's source gives RoPE, and rope must
check each other one as a layer without RoPE (nope.py: the unchanged dump passes, the rotated one fails);
and for every model, `rope inspect CASE.gguf --json` must agree with what libllama reports it loaded (context
length, rope.freq_base, the scaling factor, the rope type's layout), and its softmax scale with the scale libllama's
graph puts on the attention's scores (kq_scale_check.py: relative 1e-6).

Usage: check_pipeline.py --rope ROPE --harness HARNESS --lib LIBDIR --out OUTDIR
"""
import argparse
import concurrent.futures
import json
import math
import os
import re
import subprocess
import sys

from kq_scale_check import check_kq_scales
from nope import check_nope_layer
from shift_check import check_shifts

# The models whose layers differ, as llama.cpp's source decides it (ggml-org/llama.cpp at the node-llama-cpp 3.22.1
# bundle, commit de3ff815ea7d; the models of llama_pipeline_cases.cpp): the layer count and the layers without RoPE.
# Every node of these is checked with --layer-type LAYER (rope's RoPE of that layer index); the layers where libllama's
# graph has a RoPE node must be the others, and rope must check each NoPE layer as unchanged (nope.py).
def every_fourth(n, first):
    return {il for il in range(n) if il % 4 == first}


def sampled(il, n_layer):
    """The layers checked one by one (the first eight and the last two: every pattern above repeats within eight); the
    others count in the comparison of the layers with RoPE only, to keep the tier's time."""
    return il < 8 or il >= n_layer - 2


LAYERED = {
    "gemma3": (6, set()),                        # src/models/gemma3.cpp: il % 6 < 5 slides at freq_base_swa, unscaled
    "cohere2": (8, every_fourth(8, 3)),          # src/models/cohere2.cpp:89: RoPE on the sliding layers only
    "cohere2moe": (8, {4}),                      # src/models/cohere2moe.cpp:184: sliding (il % 4 != 0) or il < 1
    "exaone4-32b": (64, every_fourth(64, 3)),    # src/models/exaone4.cpp:4,111: 64 layers slide, RoPE on those only
    "olmo3": (8, set()),                         # src/models/olmo2.cpp:117: sliding layers without the YaRN
    "mellum": (8, set()),                        # src/models/mellum.cpp:122: as olmo2
    "afmoe": (8, every_fourth(8, 3)),            # src/models/afmoe.cpp:135: (il + 1) % 4 != 0
    "smallthinker": (8, every_fourth(8, 0)),     # src/models/smallthinker.cpp:106: il % 4 != 0
    "llama4": (8, every_fourth(8, 3)),           # src/models/llama4.cpp:143: (il + 1) % 4 != 0
    "smollm3": (8, every_fourth(8, 3)),          # src/models/smollm3.cpp:69: (il + 1) % 4 != 0
    "muse-glimmer": (8, every_fourth(8, 3)),     # src/models/muse-glimmer.cpp:88: RoPE on the sliding layers only
    "gemma2": (4, set()),                        # src/models/gemma2.cpp: il % 2 < 1 slides at freq_base_swa, scaled
    "gpt-oss": (4, set()),                       # src/models/openai-moe.cpp: as gemma2
    "exaone-moe": (8, every_fourth(8, 3)),       # src/models/exaone-moe.cpp:131: RoPE on the sliding layers only
    "laguna": (8, set()),                        # src/models/laguna.cpp:180-189: sliding layers unscaled
    "gemma4": (4, set()),                        # src/models/gemma4.cpp:191-227: sliding layers' own head and n_rot
    "step35": (4, set()),                        # src/models/step35.cpp:244-255: full layers n_rot / 2
    "spark2_5": (4, set()),                      # src/models/spark2-5.cpp:76-87: sliding layers' own head and n_rot
    "deepseek4": (4, set()),                     # src/models/deepseek4.cpp:903-935: compressed layers and the others
    "dots3note": (2, set()),                     # src/models/dots3note.cpp:179-185: a full and a sliding MLA head
    "qwen4exp": (4, {0, 1, 2}),                  # src/models/qwen4exp.cpp:127-135, 411-414: linear attention but il 3
    "qwen35": (4, {0, 1, 2}),                    # src/models/qwen35.cpp:15-23,166-171: gated delta net but il 3
    "qwen3next": (4, {0, 1, 2}),                 # src/models/qwen3next.cpp:16-23,163-168: as qwen35
}
# Nodes of a layer type that is not a layer's (the lightning indexers: DeepSeek-4's q and compressed k, lid_*; the
# others' indexer_q, indexer_k), by name.
NODE_TYPES = {("deepseek4", "lid_"): "indexer", ("deepseek32", "indexer_"): "indexer", ("glm-dsa", "indexer_"): "indexer",
              ("dots3note", "indexer_"): "indexer", ("hy_v4", "indexer_"): "indexer", ("qwen4exp", "indexer_"): "indexer",
              # Qwen4-exp's block keys: the graph names the reshape after their RoPE, which keeps ggml's own name node_N
              # (qwen4exp.cpp:630-634); the only unnamed RoPE node of its graph
              ("qwen4exp", "node_"): "indexer"}
# Models whose RoPE nodes cannot be far out: Qwen4-exp's indexer pools whole blocks of the cache's cell window, and a
# block past it aborts libllama (GGML_ASSERT "qsa: cell position runs past the cell window",
# src/llama-memory-hybrid-idx.cpp:456): one sequence from position 0 (the kernel cases take it to 65 535).
NEAR = {"qwen4exp", "shift-norm", "shift-neox", "shift-yarn"}  # and the context shift's prefill of 600 tokens
# The indexers whose rope type is their own, checked once more with the model's layout imposed (rope's reading before
# it knew the indexer's own, deepseek32.cpp:233-248, glm-dsa.cpp:271-286, dots3note.cpp:214-229): check must fail and
# name the swapped layout.
OWN_LAYOUT = {"deepseek32": "interleaved", "dots3note": "interleaved", "glm-dsa": "half"}
# The layers with an indexer RoPE node in libllama's graph, as rope's layer type indexer lists them (inspect).
INDEXER_LAYERS = {"deepseek32": {0, 1}, "glm-dsa": {0}, "dots3note": {0}, "hy_v4": {0}, "qwen4exp": {3}}
# The models whose only layers with RoPE slide, at rope.freq_base_swa: inspect reports their values (None: the model's
# scaling; 1: unscaled, muse-glimmer.cpp:9 leaves rope_freq_scale_train_swa at 1).
ONLY_SLIDING_TURN = {"afmoe": None, "muse-glimmer": 1}
# Models whose base is not rope.freq_base: DeepSeek-4's values are its compressed layers'
# (attention.compress_rope_freq_base, gguf_config_deepseek4.cpp); HunYuan-VL's base is rope.freq_base · alpha^(d/(d − 2)) in
# float32 (src/models/hunyuan-vl.cpp:7-12; the value libllama's RoPE nodes carry).
DEFAULT_BASE = {"deepseek4": 160000, "hunyuan-vl-alpha": 11158844.0}
# Correct llama.cpp dumps checked against a Hugging Face preset whose output order differs, and what check must name,
# then what must PASS once the layout is given: llama.cpp's deepseek2 graph rotates q_pe in place (ggml rope mode
# NORM), HF's DeepSeek-V3 de-interleaves it (apply_rotary_pos_emb_interleave): the same rotation, PASS as equivalent
# there with the order named, FAIL with --strict-order.
AGAINST_PRESET = {("deepseek2-mla", "q_pe-0"): ("deepseek-v3", "output-interleaved", ["--layout", "interleaved"])}
# Dumps correct for llama.cpp that rope, choosing LongRoPE's list from the positions as Hugging Face does, must name:
# Phi-3 run with n_ctx 256 takes the short factors at every position (llama_model::get_rope_factors).
EXPECT = {"phi3-short": "longrope-other-list"}
# What identify must recover from one node of each model (base and factor within 1 %, the attention factor
# within 0.1 %): the parameters the model was built with (llama_pipeline.cpp). Qwen3-VL's text leaves pairs 61, 62
# unrotated, which no family has: not asked.
IDENTIFY = {
    ("llama3", "Qcur-0"): {"family": "llama3", "base": 500000, "factor": 8},
    ("qwen2-yarn", "Qcur-0"): {"family": "yarn", "base": 1e6, "factor": 4},
    ("qwen3", "Qcur-0"): {"family": "default", "base": 1e6},
    ("phi3-long", "Qcur-0"): {"family": "per-pair", "attention_factor": math.sqrt(1 + math.log(32) / math.log(4096))},
    # The legacy q: 128 pass-through channels, then the 64 rotated in place (interleaved pairs at offset 128).
    ("deepseek2", "Qcur-0"): {"family": "yarn", "base": 10000, "factor": 40, "rotary_dim": 64,
                              "layout": "interleaved", "rotary_offset": 128},
    ("deepseek2-mla", "q_pe-0"): {"family": "yarn", "base": 10000, "factor": 40, "rotary_dim": 64},
    ("gemma3", "Qcur-0"): {"family": "default", "base": 10000},
    ("gemma3", "Qcur-5"): {"family": "linear", "base": 1e6, "factor": 8},
    ("qwen2vl", "Qcur-0"): {"family": "default", "base": 1e6},
    ("gemma4", "Qcur_pos-0"): {"family": "default", "base": 10000},
    ("step35", "Qcur_pos-1"): {"family": "default", "base": 10000},
    ("spark2_5", "Qcur_rope-0"): {"family": "linear", "base": 10000, "factor": 2},
    ("deepseek4", "q-0"): {"family": "default", "base": 10000, "rotary_dim": 64},
}
# llama_model_rope_type (include/llama.h enum llama_rope_type): NORM 0 pairs (2j, 2j+1), the others (j, j + r/2).
LAYOUT = {0: "interleaved", 2: "half", 8: "half", 40: "half"}


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr.strip()}")
    return r.returncode, json.loads(r.stdout) if r.stdout.strip().startswith("{") else r.stdout


def node_check(rope, out, row):
    """The `rope check` of one RoPE node (a row of pipeline.tsv), or None when it is not checked one by one."""
    case, base, node, layer, positions, mode = row[0], row[1], row[2], row[3], row[10], row[5]
    shift = len(row) > 20 and row[20] == "shift"  # a K-shift node: shift_check.py checks it
    if mode == "-1" or shift or (case in LAYERED and not sampled(int(layer), LAYERED[case][0])):
        return None
    extra = ["--layer-type", layer] if case in LAYERED else []
    if node_type(case, node):
        extra = ["--layer-type", node_type(case, node)]
    # Positions with a fourth slot of their own (Qwen4-exp's block keys) as the harness wrote them, all four slots.
    axes = base + ".axis-positions.csv"
    where = ["--axis-positions", axes] if os.path.exists(axes) else ["--positions", positions]
    return [rope, "check", "--before", base + ".before.npy", "--after", base + ".after.npy"] + where + [
        "--config", os.path.join(out, case + ".gguf"), "--json"] + extra


def node_type(case, node):
    """The layer type of a node that is not its layer's (NODE_TYPES), or None."""
    return next((name for (c, prefix), name in NODE_TYPES.items() if case == c and node.startswith(prefix)), None)


def main():
    # One OpenMP thread per rope process: the tier runs them one or two at a time on CI's two cores, where idle OpenMP
    # threads only spin (a third of a check's CPU time); every number rope prints is the same with any thread count.
    os.environ["OMP_NUM_THREADS"] = "1"
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for k in ("rope", "harness", "lib", "out"):
        ap.add_argument("--" + k, required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    if os.path.exists(os.path.join(a.out, "norope.tsv")):
        os.remove(os.path.join(a.out, "norope.tsv"))
    subprocess.run([a.harness, a.out, a.lib], check=True)
    failed, total, models, turned, dumps, temperatures, indexed, shifts = 0, 0, {}, {}, {}, 0, {}, []
    with open(os.path.join(a.out, "pipeline.tsv")) as f:
        rows = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    # The nodes' checks, two at a time (CI's two cores); their answers are read in order below.
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=2)
    checks = {}
    for row in rows:
        cmd = node_check(a.rope, a.out, row)
        if cmd:
            checks[tuple(cmd)] = pool.submit(run, cmd)
    for (case, base, node, layer, n_dims, mode, freq_base, freq_scale, ext, attn, positions, slot_e,
         n_ctx_train, rope_type, scale_train, key_base, key_type, key_factor, key_base_swa, in_place, phase) in rows:
        gguf = os.path.join(a.out, case + ".gguf")
        if phase == "shift":  # the K-shift graph's nodes: the cache before and after the shift (shift_check.py)
            shifts.append((case, base, node, gguf, positions))
            continue
        swa = float(key_base_swa) if key_base_swa != "-" else None
        factor = float(key_factor) if key_factor != "-" else 0.0  # no key (a file the harness wrote: no_save)
        models[case] = (gguf, int(n_ctx_train), int(rope_type), float(key_base), key_type, factor, swa)
        if mode == "-1":
            # Llama 4's NoPE layer: q times the temperature t(p) in libllama's graph (llama_pipeline.cpp). check --query
            # must pass it; without --query (a key, unchanged) it must fail.
            for query, want in ((["--query"], True), ([], False)):
                total += 1
                rc, j = run([a.rope, "check", "--before", base + ".before.npy", "--after", base + ".after.npy",
                             "--positions", positions, "--config", gguf, "--layer-type", layer, "--json"] + query)
                ok = j["passed"] == want
                print(f"{'ok  ' if ok else 'FAIL'} {case:14s} {node:8s} query temperature of NoPE layer {layer}, "
                      f"check {' '.join(query) or 'without --query'}: {'pass' if j['passed'] else 'fails'} "
                      f"max|delta|/tol {j['max_ratio']:.3g}")
                failed += 0 if ok else 1
            temperatures = temperatures + 1
            continue
        if not node_type(case, node):
            turned.setdefault(case, set()).add(int(layer))
        dumps.setdefault(case, (base, positions))
        check = node_check(a.rope, a.out, (case, base, node, layer, n_dims, mode, freq_base, freq_scale, ext, attn,
                                           positions))
        if not check:
            continue
        extra = check[check.index("--json") + 1:]
        total += 1
        try:
            rc, j = checks[tuple(check)].result()
        except RuntimeError as e:
            print(f"FAIL {case} {node}: {e}")
            failed += 1
            continue
        far = sum(1 for p in positions.split(",") if int(p) >= 30000)
        expected = EXPECT.get(case, "pass")
        matched = "pass" if j["passed"] else j.get("diagnosis", {}).get("matches")
        ok = matched == expected and j.get("angles") == "ggml" and (far > 0 or case in NEAR)
        got = "pass" if j["passed"] else f"{matched}: " + j.get("diagnosis", {}).get("message", "")
        print(f"{'ok  ' if ok else 'FAIL'} {case:14s} {node:8s} n_dims {n_dims:>3s} base {freq_base:>8s} "
              f"{' '.join(extra):32s} {got:4s} max|delta|/tol {j['max_ratio']:.3g} ({far} positions >= 30000)")
        failed += 0 if ok else 1
        if in_place == "in-place":
            total += 1
            naive = check[:]
            naive[3] = base + ".naive-before.npy"
            rc, j = run(naive)
            got = "pass" if j["passed"] else j.get("diagnosis", {}).get("matches")
            ok = got == "before-equals-after"
            print(f"{'ok  ' if ok else 'FAIL'} {case:14s} {node:8s} before read after the in-place RoPE: {got}")
            failed += 0 if ok else 1
        if "--axis-positions" in check:
            # The fourth slot is read (Qwen4-exp's block keys at (b, b, b, b)): a text token's (b, b, b, 0) must fail.
            total += 1
            text = check[:check.index("--axis-positions")] + ["--positions", positions] + check[check.index("--axis-positions") + 2:]
            rc, j = run(text)
            ok = not j["passed"]
            print(f"{'ok  ' if ok else 'FAIL'} {case:14s} {node:8s} at a text token's (p, p, p, 0): "
                  f"{'fails' if not j['passed'] else 'passes'}, max|delta|/tol {j['max_ratio']:.3g}")
            failed += 0 if ok else 1
        if case in OWN_LAYOUT and node.startswith("indexer_"):
            total += 1
            wrong = check + ["--layout", OWN_LAYOUT[case]]
            rc, j = run(wrong)
            got = "pass" if j["passed"] else j.get("diagnosis", {}).get("matches")
            ok = got == "layout-swapped"
            print(f"{'ok  ' if ok else 'FAIL'} {case:14s} {node:8s} with the model's layout {OWN_LAYOUT[case]}: {got}")
            failed += 0 if ok else 1
        if node.startswith("indexer_"):
            indexed.setdefault(case, set()).add(int(layer))
        preset = AGAINST_PRESET.get((case, node))
        if preset:
            model, variant, fix = preset
            total += 2
            cmd = [a.rope, "check", "--before", base + ".before.npy", "--after", base + ".after.npy", "--positions",
                   positions, "--model", model, "--json"]
            # The same rotation in the other order passes as equivalent (issue 63 item 4); --strict-order fails it.
            total += 1
            rc, j = run(cmd)
            named = (j.get("diagnosis") or {}).get("matches")
            ok = rc == 0 and j["passed"] and named == variant and j.get("equivalent")
            print(f"{'ok  ' if ok else 'FAIL'} {case:14s} {node:8s} against --model {model}: exit {rc}, named {named}, "
                  f"equivalent {j.get('equivalent')} (expected exit 0, {variant})")
            failed += 0 if ok else 1
            cmd = cmd + ["--strict-order"]
            rc, j = run(cmd)
            named = (j.get("diagnosis") or {}).get("matches")
            ok = rc == 1 and named == variant
            print(f"{'ok  ' if ok else 'FAIL'} {case:14s} {node:8s} against --model {model} --strict-order: exit {rc}, "
                  f"named {named} (expected exit 1, {variant})")
            failed += 0 if ok else 1
            rc, j = run(cmd + fix)
            ok = rc == 0 and j["passed"]
            print(f"{'ok  ' if ok else 'FAIL'} {case:14s} {node:8s} against --model {model} {' '.join(fix)}: exit {rc}")
            failed += 0 if ok else 1
        want = IDENTIFY.get((case, node))
        if want:
            # identify, from the two dumps alone, must recover the scaling family and its parameters.
            total += 1
            rc, j = run([a.rope, "identify", "--before", base + ".before.npy", "--after", base + ".after.npy",
                         "--positions", positions, "--json"])
            fam = j.get("family") or {}
            got = {"family": fam.get("family"), "base": fam.get("base"), "factor": fam.get("factor"),
                   "attention_factor": j.get("attention_factor"), "rotary_dim": j.get("rotary_dim"),
                   "layout": j.get("layout"), "rotary_offset": j.get("rotary_offset")}
            ok = all(got[k] == v if isinstance(v, str) or k in ("rotary_dim", "rotary_offset") else
                     got[k] is not None and abs(got[k] / v - 1) < (1e-3 if k == "attention_factor" else 0.01)
                     for k, v in want.items())
            print(f"{'ok  ' if ok else 'FAIL'} {case:14s} {node:8s} identify: "
                  + ", ".join(f"{k} {got[k]:.6g}" if isinstance(got[k], float) else f"{k} {got[k]}" for k in want)
                  + f" (expected {want})")
            failed += 0 if ok else 1
    for case, (n_layer, nope) in sorted(LAYERED.items()):
        # The layers with a RoPE node in libllama's graph, and rope's answer for every layer without one.
        total += 1
        got = turned.get(case, set())
        ok = got == set(range(n_layer)) - nope
        print(f"{'ok  ' if ok else 'FAIL'} {case:14s} layers with RoPE in libllama's graph: {len(got)} of {n_layer}, "
              f"NoPE {sorted(set(range(n_layer)) - got)} (expected {sorted(nope)})")
        failed += 0 if ok else 1
        if case not in dumps:
            continue
        base, positions = dumps[case]
        for il in sorted(il for il in nope if sampled(il, n_layer)):
            total += 1
            ok, text = check_nope_layer(a.rope, base + ".before.npy", base + ".after.npy", ["--positions", positions],
                                        ["--config", models[case][0]], il)
            print(f"{'ok  ' if ok else 'FAIL'} {case:14s} layer {il}: rope check --layer-type {il}: {text}")
            failed += 0 if ok else 1
    for case, layers in sorted(INDEXER_LAYERS.items()):
        # The indexer's layers in libllama's graph, and in rope's reading of the file.
        total += 1
        rc, j = run([a.rope, "inspect", os.path.join(a.out, case + ".gguf"), "--layer-type", "indexer", "--json"])
        line = next((o for o in j.get("origin", []) if o.startswith("layer type: indexer (layers ")), "")
        listed = set()
        for part in re.findall(r"(\d+)(?:\u2013(\d+))?", line[len("layer type: indexer (layers "):].split(";")[0]):
            listed |= set(range(int(part[0]), int(part[1] or part[0]) + 1))
        ok = indexed.get(case) == layers and listed == layers
        print(f"{'ok  ' if ok else 'FAIL'} {case:14s} indexer layers in libllama's graph {sorted(indexed.get(case, []))}, "
              f"rope's {sorted(listed)} (expected {sorted(layers)})")
        failed += 0 if ok else 1
    # Models whose graph has no RoPE node (the harness lists them): rope must refuse them, saying llama.cpp applies none.
    norope = os.path.join(a.out, "norope.tsv")
    for case in (open(norope).read().split() if os.path.exists(norope) else []):
        total += 1
        r = subprocess.run([a.rope, "inspect", os.path.join(a.out, case + ".gguf")], capture_output=True, text=True)
        ok = r.returncode == 2 and "applies no RoPE" in r.stderr
        print(f"{'ok  ' if ok else 'FAIL'} {case:14s} no RoPE node in libllama's graph; rope inspect: exit {r.returncode}, "
              f"{r.stderr.strip()}")
        failed += 0 if ok else 1
    for case, (gguf, n_ctx_train, rope_type, key_base, key_type, key_factor, key_base_swa) in sorted(models.items()):
        total += 1
        # Where only the sliding layers turn, inspect's values are theirs: their base, their scaling.
        if case in ONLY_SLIDING_TURN:
            key_base = key_base_swa
            key_factor = ONLY_SLIDING_TURN[case] or key_factor
        key_base = DEFAULT_BASE.get(case, key_base)
        rc, j = run([a.rope, "inspect", gguf, "--json"])
        problems = []
        if j.get("max_position_embeddings") != n_ctx_train:
            problems.append(f"context {j.get('max_position_embeddings')} against libllama's n_ctx_train {n_ctx_train}")
        if abs(j.get("base", 0) / key_base - 1) > 1e-6:
            problems.append(f"base {j.get('base')} against libllama's {key_base}")
        if key_type in ("linear", "yarn") and key_factor > 0 and abs(j.get("factor", 0) / key_factor - 1) > 1e-6:
            problems.append(f"factor {j.get('factor')} against libllama's {key_factor}")
        if LAYOUT.get(rope_type) and j.get("layout") != LAYOUT[rope_type]:
            problems.append(f"layout {j.get('layout')} against libllama's rope type {rope_type}")
        print(f"{'ok  ' if not problems else 'FAIL'} {case:14s} inspect agrees with libllama: {'; '.join(problems) or 'yes'}")
        failed += 1 if problems else 0
    # The softmax scale of every model with RoPE (and attention): libllama's graph against rope inspect (kq_scale_check.py).
    without_rope = set(open(norope).read().split()) if os.path.exists(norope) else set()
    compared, bad = check_kq_scales(a.rope, a.out, set(models) - without_rope)
    total, failed = total + len(compared), failed + bad
    for case in ("granite-scale", "gemma2-head", "gemma2-27b", "gemma3-27b", "grok", "gemma3n", "gemma4", "deepseek2",
                 "deepseek2-mla", "glm-dsa", "llama3", "gpt-oss"):
        total += 1  # the models of the kq_scale rules (granite, the Gemmas 27B-shaped and not, Grok, MLA) must be compared
        ok = case in compared
        failed += 0 if ok else 1
        if not ok:
            print(f"FAIL {case:14s} softmax scale: no attention scale captured in libllama's graph")
    # llama.cpp's context shift: the K cache before and after it, checked with rope check --shift (shift_check.py).
    checked, bad = check_shifts(a.rope, shifts)
    total, failed = total + checked, failed + bad
    # Llama 4's NoPE layers (3 and 7 of 8) each scale the query by the temperature: both must have been captured.
    total += 1
    ok = temperatures == 2
    print(f"{'ok  ' if ok else 'FAIL'} llama4         query temperature nodes captured: {temperatures} (expected 2)")
    failed += 0 if ok else 1
    print(f"{total - failed} of {total} pipeline checks as expected")
    pool.shutdown()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
