#!/usr/bin/python3
"""The NumPy peer of `rope weights` (bench/weights_bench.py): the same matching on two Hugging Face checkpoints
(single model.safetensors each, BF16 or F16), memory-mapped, one layer's q and k at a time: per head block the
normalised row correlation (d × d) and its argmax, then the relative residual ‖C − P·R‖/‖C‖ of each catalog map
(identity, hf-to-gguf, gguf-to-hf, twice, and for k the map with the query head count), in float64.

    numpy_weights.py REFERENCE_DIR CANDIDATE_DIR    prints JSON: {"tensors": [{"name", "map", "residual"}, ...]}
"""
import json
import os
import struct
import sys

import numpy as np


def tensors(directory):
    path = os.path.join(directory, "model.safetensors")
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
    raw = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n)
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        b, end = e["data_offsets"]
        out[name] = (e["dtype"], e["shape"], raw[b:end])
    return out


def as_float(entry):
    dtype, shape, raw = entry
    if dtype == "BF16":
        return (np.frombuffer(raw, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32).reshape(shape)
    return np.frombuffer(raw, dtype=np.float16 if dtype == "F16" else np.float32).astype(np.float32).reshape(shape)


def converter(rows, heads):
    """LlamaModel.permute's map (conversion/llama.py): row h·d + 2j + s holds row h·d + s·d/2 + j."""
    return np.arange(rows).reshape(heads, 2, rows // heads // 2).swapaxes(1, 2).reshape(rows)


def residual(c, r, order):
    diff = c.astype(np.float64) - r[order].astype(np.float64)
    norm = np.sum(c.astype(np.float64) ** 2)
    return float(np.sqrt(np.sum(diff * diff) / norm)) if norm else 0.0


def main():
    ref_dir, cand_dir = sys.argv[1], sys.argv[2]
    config = json.load(open(os.path.join(ref_dir, "config.json")))
    H, Hkv = config["num_attention_heads"], config.get("num_key_value_heads", config["num_attention_heads"])
    ref, cand = tensors(ref_dir), tensors(cand_dir)
    out = []
    for layer in range(config["num_hidden_layers"]):
        for kind, heads in (("q", H), ("k", Hkv)):
            name = f"model.layers.{layer}.self_attn.{kind}_proj.weight"
            r, c = as_float(ref[name]), as_float(cand[name])
            rows = r.shape[0]
            d = rows // heads
            for h in range(heads):  # the measured map, block by block
                cb = c[h * d:(h + 1) * d]
                rb = r[h * d:(h + 1) * d]
                cn = cb / np.maximum(np.linalg.norm(cb, axis=1, keepdims=True), 1e-30)
                rn = rb / np.maximum(np.linalg.norm(rb, axis=1, keepdims=True), 1e-30)
                np.argmax(cn @ rn.T, axis=1)
            fwd = converter(rows, heads)
            inv = np.argsort(fwd)
            maps = {"identity": np.arange(rows), "hf-to-gguf": fwd, "gguf-to-hf": inv, "hf-to-gguf-twice": fwd[fwd]}
            if kind == "k" and rows % (2 * H) == 0:
                maps["hf-to-gguf-k-with-query-heads"] = converter(rows, H)
            scored = sorted((residual(c, r, o), m) for m, o in maps.items())
            out.append({"name": name, "map": scored[0][1], "residual": scored[0][0]})
    print(json.dumps({"tensors": out}))


if __name__ == "__main__":
    main()
