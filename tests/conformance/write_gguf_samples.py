#!/usr/bin/python3
"""Writes the sample GGUF files of data/gguf/ with llama.cpp's own writer, gguf-py's GGUFWriter (from the
source scripts/install-deps.sh llama clones: gguf-py needs only NumPy), the way convert_hf_to_gguf.py
writes the same models: the keys of its add_* helpers, the RoPE tensor names of gguf.TENSOR_NAMES with the
".weight" every model adds, Llama 3.1's factors as conversion/llama.py:298-326 computes them (float32
frequencies, as the converter's torch tensors are). No weights: metadata and the RoPE tensors only.

Usage: PYTHONPATH=LLAMA_SRC/gguf-py write_gguf_samples.py OUTDIR
"""
import math
import os
import sys

import numpy as np
import gguf


def llama3_factors(dim, base, factor, low, high, old_context):
    freqs = (np.float32(1.0) / (np.float32(base) ** (np.arange(0, dim, 2, dtype=np.float32) / np.float32(dim)))).astype(np.float32)
    out = []
    for freq in freqs:
        wavelen = 2 * math.pi / float(freq)
        if wavelen < old_context / high:
            out.append(1.0)
        elif wavelen > old_context / low:
            out.append(factor)
        else:
            smooth = (old_context / wavelen - low) / (high - low)
            out.append(1 / ((1 - smooth) / factor + smooth))
    return np.array(out, dtype=np.float32)


def write(path, arch, name, fill, tensors=()):
    w = gguf.GGUFWriter(path, arch)
    w.add_name(name)
    fill(w)
    for tname, data in tensors:
        w.add_tensor(tname, data)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def rope_tensor(t):
    return gguf.TENSOR_NAMES[t] + ".weight"


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)

    def llama(w):  # meta-llama/Llama-3.1-8B config.json
        w.add_context_length(131072)
        w.add_embedding_length(4096)
        w.add_block_count(32)
        w.add_head_count(32)
        w.add_head_count_kv(8)
        w.add_rope_dimension_count(128)
        w.add_rope_freq_base(500000.0)
    write(os.path.join(out, "llama-3.1-8b.gguf"), "llama", "Meta Llama 3.1 8B Instruct", llama,
          [(rope_tensor(gguf.MODEL_TENSOR.ROPE_FREQS), llama3_factors(128, 500000.0, 8.0, 1.0, 4.0, 8192))])

    def qwen3vl(w):  # Qwen/Qwen3-VL-8B-Instruct text_config; mrope_section padded to four
        w.add_context_length(262144)
        w.add_embedding_length(4096)
        w.add_block_count(36)
        w.add_head_count(32)
        w.add_head_count_kv(8)
        w.add_key_length(128)
        w.add_value_length(128)
        w.add_rope_freq_base(5000000.0)
        w.add_rope_dimension_sections([24, 20, 20, 0])
    write(os.path.join(out, "qwen3-vl-8b.gguf"), "qwen3vl", "Qwen3 VL 8B Instruct", qwen3vl)


if __name__ == "__main__":
    main()
