#!/usr/bin/python3
"""`rope check` of a flat [tokens, heads·d] rotary dump, as vLLM and SGLang hand their rotary embedding q and k
(issue 80): vLLM's RotaryEmbedding.forward_native views them query.view(num_tokens, -1, head_size) (vllm
model_executor/layers/rotary_embedding/base.py), rotates each head, and returns the flat shape. The dump here is
HF's rotate_half (transformers modeling_llama.py apply_rotary_pos_emb) applied per head in float64, flattened, stored
float32 (.npy). rope reads it by the config's head_dim (a Llama config.json of head_dim 16, 4 heads: [tokens, 64] is
[tokens, 4, 16]) and passes, saying so in a note; by --head-dim 16 without a config, the same; with neither it is one
head of 64, which fails. A config whose head_dim is the whole inner dimension (64) decides the other way: the same
file rotated over all 64 channels passes read whole (the config decides, never the shape). --head-dim that does not
divide the last axis, or is odd, is refused (exit 2) naming the option and the value. q [tokens, 64] and k [tokens,
32] together (2 key-value heads) are each read by the config's head_dim before their geometries are compared.

A 3-axis dump [batch, seq, heads·d] with --head-dim d is read [batch, seq, heads, d], as ONNX's RotaryEmbedding reads
a 3-D input with num_heads (onnx/onnx onnx/reference/ops/op_rotary_embedding.py): gathered at position ids of
ONNX's own test cases ([[9, 47, 36], [24, 11, 12]], onnx/backend/test/case/node/rotaryembedding.py) it passes, and the
report lists each batch row's ids as they are (never "9–36"); the same dump checked at 0, 1, 2 in each row fails; a
4-axis dump's d that is not --head-dim, or --axes other than batch,seq,heads,d beside the view, are refused.

Usage: check_flat_heads.py --rope PATH --out DIR   (DIR receives the dumps and configs)
"""
import argparse
import json
import os
import re
import sys

import numpy as np

from rope_run import run, run_json

TOKENS, HEADS, KV_HEADS, D, BASE = 6, 4, 2, 16, 10000.0


def rotate(q, pos, d):
    inv_freq = 1.0 / BASE ** (np.arange(0, d, 2, dtype=np.float64) / d)
    freqs = np.outer(np.asarray(pos, dtype=np.float64), inv_freq)
    emb = np.concatenate([freqs, freqs], axis=-1)[:, None, :]
    half = np.concatenate([-q[..., d // 2:], q[..., :d // 2]], axis=-1)
    return q * np.cos(emb) + half * np.sin(emb)


def config(path, head_dim, heads):
    json.dump({"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": head_dim * heads,
               "num_attention_heads": heads, "num_key_value_heads": heads, "head_dim": head_dim,
               "num_hidden_layers": 1, "intermediate_size": 128, "rope_theta": BASE,
               "max_position_embeddings": 4096, "rms_norm_eps": 1e-6, "vocab_size": 32}, open(path, "w"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rope", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    o = lambda n: os.path.join(a.out, n)  # noqa: E731
    rng = np.random.default_rng(80)
    pos = np.arange(3, 3 + TOKENS)
    q = rng.standard_normal((TOKENS, HEADS, D))
    np.save(o("q.npy"), q.reshape(TOKENS, HEADS * D).astype(np.float32))
    np.save(o("q_rope.npy"), rotate(q, pos, D).reshape(TOKENS, HEADS * D).astype(np.float32))
    whole = q.reshape(TOKENS, 1, HEADS * D)
    np.save(o("q_whole_rope.npy"), rotate(whole, pos, HEADS * D).reshape(TOKENS, HEADS * D).astype(np.float32))
    k = rng.standard_normal((TOKENS, KV_HEADS, D))
    np.save(o("k.npy"), k.reshape(TOKENS, KV_HEADS * D).astype(np.float32))
    np.save(o("k_rope.npy"), rotate(k, pos, D).reshape(TOKENS, KV_HEADS * D).astype(np.float32))
    config(o("heads.json"), D, HEADS)
    config(o("whole.json"), HEADS * D, 1)
    common = ["check", "--before", o("q.npy"), "--positions", f"{pos[0]}:{pos[-1] + 1}", "--json"]
    cases = [  # (name, extra arguments, after, exit code, heads and d of the report, a note naming the view)
        ("config head_dim 16", ["--config", o("heads.json")], "q_rope.npy", 0, (HEADS, D), True),
        ("--head-dim 16", ["--head-dim", str(D), "--layout", "half"], "q_rope.npy", 0, (HEADS, D), False),
        # q [6, 64] and k [6, 32] together: each read by the config's head_dim before their geometries are compared
        ("q and k, config head_dim 16", ["--config", o("heads.json"), "--k-before", o("k.npy"), "--k-after",
                                         o("k_rope.npy")], "q_rope.npy", 0, (HEADS, D), True),
        ("neither: one head of 64", ["--layout", "half"], "q_rope.npy", 1, (1, HEADS * D), False),
        ("config head_dim 64 (whole)", ["--config", o("whole.json")], "q_whole_rope.npy", 0, (1, HEADS * D), False),
        ("config head_dim 64, per-head dump", ["--config", o("whole.json")], "q_rope.npy", 1, (1, HEADS * D), False),
        ("--head-dim 12", ["--head-dim", "12"], "q_rope.npy", 2, None, False),
        ("--head-dim 7", ["--head-dim", "7"], "q_rope.npy", 2, None, False),
    ]
    failures = []
    for name, extra, after, code, geometry, note in cases:
        got_code, rep, err = run_json(a.rope, common + ["--after", o(after)] + extra)
        if got_code != code:
            failures.append(f"{name}: exit {got_code}, expected {code}: {err.strip()}")
            continue
        if code == 2:
            if "--head-dim" not in err or len(err.strip().splitlines()) != 1:
                failures.append(f"{name}: the refusal does not name --head-dim in one line: {err!r}")
            continue
        _, text, _ = run(a.rope, common[:-1] + ["--after", o(after)] + extra)
        m = re.search(r"\[seq,heads,d\] = \((\d+), (\d+), (\d+)\)", text) or re.search(r"\[seq,d\] = \((\d+), (\d+)\)", text)
        got = (int(m.group(2)), int(m.group(3))) if m and m.lastindex == 3 else (1, int(m.group(2))) if m else None
        if rep["expected"]["head_dim"] != got[1] if got else True:
            failures.append(f"{name}: expected head_dim {rep['expected']['head_dim']} against the dump line {got}")
        if got != geometry:
            failures.append(f"{name}: read as heads, d = {got}, expected {geometry}")
        said = any("head_dim" in n and "view" in n for n in rep.get("notes", []))
        if said != note:
            failures.append(f"{name}: the view note {'missing' if note else 'said'}: {rep.get('notes')}")
    # ONNX's 3-D input: [batch, seq, heads·d] with num_heads, gathered at per-row position ids.
    ids = np.array([[9, 47, 36], [24, 11, 12]])
    x = rng.standard_normal((2, 3, HEADS, D))
    rotated = np.stack([rotate(x[b], ids[b], D) for b in range(2)])
    np.save(o("x3.npy"), x.reshape(2, 3, HEADS * D).astype(np.float32))
    np.save(o("y3.npy"), rotated.reshape(2, 3, HEADS * D).astype(np.float32))
    np.save(o("x4.npy"), x.astype(np.float32))
    np.save(o("ids.npy"), ids.astype(np.int64))
    np.save(o("ids0.npy"), np.tile(np.arange(3), (2, 1)).astype(np.int64))
    three = ["check", "--before", o("x3.npy"), "--after", o("y3.npy"), "--layout", "half", "--head-dim", str(D)]
    cases3 = [  # (name, arguments, exit code)
        ("3-D, --head-dim 16, ONNX's ids", three + ["--positions", "@" + o("ids.npy")], 0),
        ("3-D, --head-dim 16, ids 0, 1, 2", three + ["--positions", "@" + o("ids0.npy")], 1),
        ("3-D, --head-dim 16, --axes seq,heads,d", three + ["--positions", "@" + o("ids.npy"), "--axes",
                                                             "seq,heads,d"], 2),
        ("4-D, --head-dim 8", ["check", "--before", o("x4.npy"), "--after", o("x4.npy"), "--head-dim", "8"], 2),
    ]
    for name, args, code in cases3:
        got_code, text, err = run(a.rope, args)
        if got_code != code:
            failures.append(f"{name}: exit {got_code}, expected {code}: {err.strip()}")
        elif code == 2 and ("--head-dim" not in err or len(err.strip().splitlines()) != 1):
            failures.append(f"{name}: the refusal does not name --head-dim in one line: {err!r}")
        elif code == 0 and ("9, 47, 36" not in text or "24, 11–12" not in text):
            failures.append(f"{name}: the batch rows' ids are not listed as they are: {text}")
        elif code != 2:
            got_code, rep, err = run_json(a.rope, args + ["--json"])
            if rep["expected"]["head_dim"] != D:
                failures.append(f"{name}: head_dim {rep['expected']['head_dim']}, expected {D}")
    cases += cases3
    for f in failures:
        print("FAIL:", f)
    print(f"{len(cases) - len(failures)} of {len(cases)} cases pass")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
