#!/usr/bin/python3
"""Seeds of fuzz_weights' two multi-part modes (tests/fuzz/fuzz_weights.cpp), written independently of rope:

  gguf-*       mode 9 (the first byte): a tiny GGUF written by llama.cpp's own gguf-py (GGUFWriter; the conformance
               tier's copy, scripts/install-deps.sh llama, llama.cpp de3ff815ea7d): llama, 2 heads of 4 rows, width
               32, q in Q8_0 (quantized by gguf-py's quants.quantize), k in F16, a norm in F32; and the same cut short
  sharded-*    mode 10: a checkpoint in two shards as one input (a 2-byte little-endian length, transformers'
               model.safetensors.index.json, then per shard, in the order the index first names it, a 4-byte length
               and a safetensors file per huggingface/safetensors README "Format"); and one whose index names a
               tensor its shard lacks

Usage: /usr/bin/python3 tests/fuzz/write_weights_seeds.py   (writes tests/fuzz/corpus_weights/; deterministic)
"""
import json
import os
import struct
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
LLAMA = os.environ.get("ROPE_LLAMA_DIR", os.path.expanduser("~/.cache/rope/llama-npm-3.22.1"))
sys.path.insert(0, os.path.join(LLAMA, "src", "gguf-py"))
import gguf  # noqa: E402  (llama.cpp's gguf-py)
from gguf import quants  # noqa: E402

OUT = os.path.join(HERE, "corpus_weights")


def tiny_gguf():
    rng = np.random.default_rng(9)
    q = rng.normal(0, 0.2, (8, 32)).astype(np.float32)
    k = rng.normal(0, 0.2, (8, 32)).astype(np.float16)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "tiny.gguf")
        w = gguf.GGUFWriter(path, "llama")
        w.add_block_count(1)
        w.add_head_count(2)
        w.add_head_count_kv(2)
        w.add_embedding_length(32)
        w.add_rope_freq_base(10000.0)
        q8 = quants.quantize(q, gguf.GGMLQuantizationType.Q8_0)
        w.add_tensor("blk.0.attn_q.weight", q8, raw_dtype=gguf.GGMLQuantizationType.Q8_0)
        w.add_tensor("blk.0.attn_k.weight", k)
        w.add_tensor("output_norm.weight", np.ones(32, dtype=np.float32))
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_tensors_to_file()
        w.close()
        return open(path, "rb").read()


def safetensors(tensors):
    header, buffer = {}, b""
    for name, value in tensors.items():
        raw = np.ascontiguousarray(value, "<f2").tobytes()
        header[name] = {"dtype": "F16", "shape": list(value.shape), "data_offsets": [len(buffer), len(buffer) + len(raw)]}
        buffer += raw
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + buffer


def sharded(weight_map, shards):
    index = json.dumps({"metadata": {"total_size": 0}, "weight_map": weight_map}).encode()
    out = bytes([10]) + struct.pack("<H", len(index)) + index
    for s in shards:
        out += struct.pack("<I", len(s)) + s
    return out


def main():
    g = tiny_gguf()
    rng = np.random.default_rng(10)
    q, k = rng.normal(0, 1, (8, 4)), rng.normal(0, 1, (8, 4))
    a = safetensors({"model.layers.0.self_attn.q_proj.weight": q})
    b = safetensors({"model.layers.0.self_attn.k_proj.weight": k, "model.norm.weight": np.ones(4)})
    names = {"model.layers.0.self_attn.q_proj.weight": "model-00001-of-00002.safetensors",
             "model.layers.0.self_attn.k_proj.weight": "model-00002-of-00002.safetensors",
             "model.norm.weight": "model-00002-of-00002.safetensors"}
    seeds = {
        "gguf-tiny": bytes([9]) + g,
        "gguf-truncated": bytes([9]) + g[: len(g) - 40],
        "sharded-two": sharded(names, [a, b]),
        "sharded-missing": sharded(dict(names, **{"model.layers.0.self_attn.v_proj.weight":
                                                  "model-00001-of-00002.safetensors"}), [a, b]),
    }
    for name, data in seeds.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
    print("wrote", ", ".join(seeds), "in", OUT)


if __name__ == "__main__":
    main()
