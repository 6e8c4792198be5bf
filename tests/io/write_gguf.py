#!/usr/bin/python3
"""Writes GGUF test files for rope's reader (src/rope/io/gguf.hpp) and its mapping to a model
(src/rope/models/gguf/gguf_config.hpp), independently of both and of the `gguf` Python package.

The format follows ggml-org/ggml docs/gguf.md (versions 2 and 3): bytes "GGUF", uint32 version,
uint64 tensor_count, uint64 metadata_kv_count, the key-value pairs {string key; uint32 type; value},
the tensor infos {string name; uint32 n_dims; uint64 dims[]; uint32 ggml_type; uint64 offset},
padding to general.alignment (32), then the tensor data. Strings are uint64 length + UTF-8 bytes.
The metadata of each model follows what llama.cpp's convert_hf_to_gguf.py writes for it (the keys of
gguf-py gguf/constants.py, Keys.Rope: {arch}.rope.freq_base, .dimension_count, .dimension_sections,
.freq_base_swa, .scaling.type/factor/attn_factor/original_context_length/yarn_log_multiplier), with
the values of the models' published config.json files (data/models/README.md has their sources).

The RoPE tensors have llama.cpp's names, `rope_freqs.weight`, `rope_factors_long.weight` and
`rope_factors_short.weight` (gguf-py constants.py TENSOR_NAMES plus the ".weight" every model adds).
The llama3 `rope_freqs` factors are computed here the way convert_hf_to_gguf.py's LlamaModel does
(Llama 3.1's bands, in float64, stored as float32): the C++ test compares rope's own llama3 scaling
with them.

Usage: /usr/bin/python3 tests/io/write_gguf.py OUTDIR     (the build runs it into build/tests/gguf)
(The samples of data/gguf/ are written by llama.cpp's own gguf-py: tests/conformance/write_gguf_samples.py.)
Standard library only; deterministic.
"""
import json
import math
import os
import struct
import sys

TYPES = {"u8": 0, "i8": 1, "u16": 2, "i16": 3, "u32": 4, "i32": 5, "f32": 6, "bool": 7,
         "str": 8, "arr": 9, "u64": 10, "i64": 11, "f64": 12}
PACK = {"u8": "B", "i8": "b", "u16": "H", "i16": "h", "u32": "I", "i32": "i", "f32": "f",
        "bool": "?", "u64": "Q", "i64": "q", "f64": "d"}
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


class Writer:
    """Serializes one file; `e` is '<' (little endian) or '>' (big endian)."""

    def __init__(self, endian="<"):
        self.e = endian
        self.out = bytearray()

    def pack(self, fmt, *v):
        self.out += struct.pack(self.e + fmt, *v)

    def string(self, s):
        b = s.encode("utf-8") if isinstance(s, str) else s
        self.pack("Q", len(b))
        self.out += b

    def value(self, t, v):
        """t is a type name; an array value is (item_type, [items])."""
        if t == "str":
            self.string(v)
        elif t == "arr":
            item_type, items = v
            self.pack("I", TYPES[item_type])
            self.pack("Q", len(items))
            for x in items:
                self.value(item_type, x)
        else:
            self.pack(PACK[t], v)


def gguf(kvs, tensors=(), version=3, endian="<", alignment=32):
    """kvs: [(key, type, value)]; tensors: [(name, dims, ggml_type, data_bytes)] laid out in order."""
    w = Writer(endian)
    w.out += b"GGUF"  # the magic is bytes, the same in both byte orders
    w.pack("I", version)
    w.pack("Q", len(tensors))
    w.pack("Q", len(kvs))
    for key, t, v in kvs:
        w.string(key)
        w.pack("I", TYPES[t])
        w.value(t, v)
    offset = 0
    offsets = []
    for name, dims, ggml_type, data in tensors:
        w.string(name)
        w.pack("I", len(dims))
        for d in dims:
            w.pack("Q", d)
        w.pack("I", ggml_type)
        w.pack("Q", offset)
        offsets.append(offset)
        offset += (len(data) + alignment - 1) // alignment * alignment
    w.out += b"\0" * (-len(w.out) % alignment)
    for (name, dims, ggml_type, data), off in zip(tensors, offsets):
        w.out += data
        w.out += b"\0" * (-len(w.out) % alignment)
    return bytes(w.out)


def f32_tensor(name, values, endian="<"):
    return (name, [len(values)], 0, struct.pack(endian + "%df" % len(values), *values))


def llama3_factors(dim, base, factor, low, high, old_context):
    """convert_hf_to_gguf.py LlamaModel (rope_type llama3): one factor per pair, θ divided by it."""
    out = []
    low_wavelen = old_context / low
    high_wavelen = old_context / high
    for i in range(0, dim, 2):
        freq = 1.0 / (base ** (i / dim))
        wavelen = 2 * math.pi / freq
        if wavelen < high_wavelen:
            out.append(1.0)
        elif wavelen > low_wavelen:
            out.append(factor)
        else:
            smooth = (old_context / wavelen - low) / (high - low)
            out.append(1.0 / ((1 - smooth) / factor + smooth))
    return out


def model(arch, ctx, embd, heads, kv, extra=(), name=None, layers=2):
    kvs = [("general.architecture", "str", arch), ("general.name", "str", name or arch),
           (arch + ".context_length", "u32", ctx), (arch + ".embedding_length", "u32", embd),
           (arch + ".block_count", "u32", layers), (arch + ".attention.head_count", "u32", heads),
           (arch + ".attention.head_count_kv", "arr", ("i32", kv)) if isinstance(kv, list)
           else (arch + ".attention.head_count_kv", "u32", kv)]
    return kvs + [(arch + k, t, v) for k, t, v in extra]


def vocabulary(n):
    """A vocabulary longer than the reader keeps (kMaxGgufKeptItems = 4096): it must be skipped."""
    return [("tokenizer.ggml.model", "str", "gpt2"),
            ("tokenizer.ggml.tokens", "arr", ("str", ["tok%d" % i for i in range(n)])),
            ("tokenizer.ggml.scores", "arr", ("f32", [float(-i) for i in range(n)])),
            ("tokenizer.ggml.token_type", "arr", ("i32", [1] * n))]


def phi3_lists():
    with open(os.path.join(ROOT, "data", "models", "phi-3-mini-128k.json")) as f:
        c = json.load(f)
    return c["rope_scaling"]["short_factor"], c["rope_scaling"]["long_factor"]


def good_files():
    weight = ("blk.0.attn_q.weight", [8, 8], 0, b"\0" * 256)  # a small f32 weight, never read
    f = {}
    factors = llama3_factors(128, 500000.0, 8.0, 1.0, 4.0, 8192)
    f["llama-3.1-8b.gguf"] = gguf(
        model("llama", 131072, 4096, 32, 8, [(".rope.dimension_count", "u32", 128), (".rope.freq_base", "f32", 500000.0)],
              "Meta Llama 3.1 8B Instruct") + vocabulary(5000),
        [f32_tensor("rope_freqs.weight", factors), weight])
    # rope's own writer before issue 31 named the tensor without ".weight": llama.cpp does not read it.
    f["llama-3.1-8b-bare-names.gguf"] = gguf(
        model("llama", 131072, 4096, 32, 8, [(".rope.dimension_count", "u32", 128), (".rope.freq_base", "f32", 500000.0)]),
        [f32_tensor("rope_freqs", factors)])
    f["mistral-7b-v0.1.gguf"] = gguf(model("llama", 32768, 4096, 32, 8, [(".rope.freq_base", "f32", 10000.0)]))
    f["qwen2.5-7b.gguf"] = gguf(model("qwen2", 32768, 3584, 28, 4, [(".rope.freq_base", "f32", 1000000.0)]))
    f["qwen2-vl-7b.gguf"] = gguf(model("qwen2vl", 32768, 3584, 28, 4, [
        (".rope.freq_base", "f32", 1000000.0), (".rope.dimension_sections", "arr", ("i32", [16, 24, 24, 0]))]))
    f["qwen3-vl-8b.gguf"] = gguf(model("qwen3vl", 262144, 4096, 32, 8, [
        (".attention.key_length", "u32", 128), (".rope.freq_base", "f32", 5000000.0),
        (".rope.dimension_sections", "arr", ("i32", [24, 20, 20, 0]))]))
    f["gemma-3-4b.gguf"] = gguf(model("gemma3", 131072, 2560, 8, 4, [
        (".attention.key_length", "u32", 256), (".attention.value_length", "u32", 256),
        (".attention.sliding_window", "u32", 1024), (".rope.freq_base", "f32", 1000000.0),
        (".rope.freq_base_swa", "f32", 10000.0), (".rope.scaling.type", "str", "linear"),
        (".rope.scaling.factor", "f32", 8.0)], layers=34))
    # Gemma 3 27B's shape (62 layers, n_embd 5376, 32 heads of 128): llama.cpp's softmax scale 1/√(5376 / 32) =
    # 168^−0.5 (src/models/gemma3.cpp:29-31), HF's query_pre_attn_scalar 168 (convert_gemma3_weights.py).
    f["gemma-3-27b.gguf"] = gguf(model("gemma3", 131072, 5376, 32, 16, [
        (".attention.key_length", "u32", 128), (".attention.value_length", "u32", 128),
        (".attention.sliding_window", "u32", 1024), (".rope.freq_base", "f32", 1000000.0),
        (".rope.freq_base_swa", "f32", 10000.0), (".rope.scaling.type", "str", "linear"),
        (".rope.scaling.factor", "f32", 8.0)], layers=62))
    # Gemma 3 with its sliding layers listed (an array of bools, load_swa_pattern) and no freq_base_swa.
    f["gemma-3-pattern.gguf"] = gguf(model("gemma3", 32768, 1152, 4, 1, [
        (".attention.key_length", "u32", 256), (".attention.sliding_window", "u32", 512),
        (".attention.sliding_window_pattern", "arr", ("bool", [True, False, True, True])),
        (".rope.freq_base", "f32", 1000000.0)], layers=4))
    short, long_ = phi3_lists()
    f["phi-3-mini-128k.gguf"] = gguf(model("phi3", 131072, 3072, 32, 32, [
        (".rope.dimension_count", "u32", 96), (".rope.freq_base", "f32", 10000.0),
        (".rope.scaling.attn_factor", "f32", math.sqrt(1 + math.log(131072 / 4096) / math.log(4096))),
        (".rope.scaling.original_context_length", "u32", 4096)]),
        [f32_tensor("rope_factors_long.weight", long_), f32_tensor("rope_factors_short.weight", short)])
    f["deepseek-v3.gguf"] = gguf(model("deepseek2", 163840, 7168, 128, 128, [
        (".attention.key_length", "u32", 192), (".attention.value_length", "u32", 128),
        (".rope.dimension_count", "u32", 64), (".rope.freq_base", "f32", 10000.0),
        (".rope.scaling.type", "str", "yarn"), (".rope.scaling.factor", "f32", 40.0),
        (".rope.scaling.original_context_length", "u32", 4096),
        (".rope.scaling.yarn_log_multiplier", "f32", 0.1)]))
    # DeepSeek-V3 with MLA keys as the converter writes them now: key_length = kv_lora_rank + rope = 576.
    f["deepseek-v3-mla.gguf"] = gguf(model("deepseek2", 163840, 7168, 128, 1, [
        (".attention.key_length", "u32", 576), (".attention.value_length", "u32", 512),
        (".attention.key_length_mla", "u32", 192), (".attention.value_length_mla", "u32", 128),
        (".rope.dimension_count", "u32", 64), (".rope.freq_base", "f32", 10000.0),
        (".rope.scaling.type", "str", "yarn"), (".rope.scaling.factor", "f32", 40.0),
        (".rope.scaling.original_context_length", "u32", 4096),
        (".rope.scaling.yarn_log_multiplier", "f32", 0.1)]))
    # rope.scaling.yarn_log_multiplier as each loader reads it (src/llama-context.cpp:185-198): DeepSeek-3.2 divides it
    # by 0.1 and keeps mscale 1 (deepseek32.cpp:34-38); Mistral 3 reads mscale_all_dim itself (mistral3.cpp:9); GLM-DSA
    # does not read it.
    yarn40 = [(".rope.dimension_count", "u32", 64), (".rope.freq_base", "f32", 10000.0),
              (".rope.scaling.type", "str", "yarn"), (".rope.scaling.factor", "f32", 40.0),
              (".rope.scaling.original_context_length", "u32", 4096), (".rope.scaling.yarn_log_multiplier", "f32", 1.0)]
    f["deepseek32-log-mul-1.gguf"] = gguf(model("deepseek32", 163840, 7168, 128, 128, [
        (".attention.key_length", "u32", 192)] + yarn40))
    f["ministral3-yarn.gguf"] = gguf(model("mistral3", 262144, 5120, 32, 8, [
        (".attention.key_length", "u32", 128)] + yarn40[1:]))
    f["glm-dsa-yarn-log.gguf"] = gguf(model("glm-dsa", 202752, 6144, 64, 64, [
        (".attention.key_length", "u32", 192)] + yarn40))
    # GLM-4.1V: glm4 with sections, which llama.cpp rotates with MROPE (use_mrope).
    f["glm-4v.gguf"] = gguf(model("glm4", 65536, 4096, 32, 2, [
        (".rope.dimension_count", "u32", 64), (".rope.freq_base", "f32", 10000.0),
        (".rope.dimension_sections", "arr", ("i32", [8, 12, 12, 0]))]))
    # SmolLM3 3B: llama.cpp leaves every fourth layer without RoPE (in code, no key).
    f["smollm3-3b.gguf"] = gguf(model("smollm3", 65536, 2048, 16, 4, [
        (".rope.freq_base", "f32", 5000000.0)], layers=36))
    # Per-layer RoPE decided by llama.cpp's graphs (src/rope/models/gguf/gguf_config_layers.cpp), files as the converter
    # writes them: no sliding_window_pattern, so each architecture's default pattern.
    # Command R7B: RoPE on the sliding layers only (il % 4 < 3); rope.freq_base_swa is read and never used.
    f["command-r7b.gguf"] = gguf(model("cohere2", 131072, 4096, 32, 8, [
        (".attention.key_length", "u32", 128), (".rope.freq_base", "f32", 50000.0),
        (".rope.freq_base_swa", "f32", 10000.0), (".attention.sliding_window", "u32", 4096)], layers=32))
    # OLMo 3 7B: sliding layers (il % 4 < 3) at freq_base without the YaRN of the full ones.
    f["olmo-3-7b.gguf"] = gguf(model("olmo2", 65536, 4096, 32, 32, [
        (".rope.freq_base", "f32", 500000.0), (".attention.sliding_window", "u32", 4096),
        (".rope.scaling.type", "str", "yarn"), (".rope.scaling.factor", "f32", 8.0),
        (".rope.scaling.original_context_length", "u32", 8192)], layers=32))
    # rope.scaling.yarn_ext_factor (ikawrakow/ik_llama.cpp src/llama-hparams.cpp:348, 1724 @ 8337e4cd3861): ggml's
    # rope_yarn weighs the ramp's extrapolation by it, and leaves the magnitude out when it is 0.
    for name, e in (("llama-yarn-ext-0.5.gguf", 0.5), ("llama-yarn-ext-0.gguf", 0.0)):
        f[name] = gguf(model("llama", 131072, 4096, 32, 8, [
            (".rope.freq_base", "f32", 10000.0), (".rope.scaling.type", "str", "yarn"),
            (".rope.scaling.factor", "f32", 4.0), (".rope.scaling.original_context_length", "u32", 32768),
            (".rope.scaling.attn_factor", "f32", 1.0), (".rope.scaling.yarn_ext_factor", "f32", e)]))
    # Llama 4 Scout: chunked attention, no RoPE where (il + 1) % 4 == 0, whose query takes the temperature.
    f["llama-4-scout.gguf"] = gguf(model("llama4", 10485760, 5120, 40, 8, [
        (".rope.freq_base", "f32", 500000.0)], layers=48))
    # Llama 4 with sliding_window 0: no chunks, and n_no_rope_layer_step = 48 leaves the last layer without RoPE.
    f["llama-4-no-chunks.gguf"] = gguf(model("llama4", 131072, 5120, 40, 8, [
        (".rope.freq_base", "f32", 500000.0), (".attention.sliding_window", "u32", 0)], layers=48))
    # SmallThinker: with a sliding window, dense_first pattern 4, no RoPE where il % 4 == 0.
    f["smallthinker-21b.gguf"] = gguf(model("smallthinker", 32768, 2560, 20, 4, [
        (".rope.freq_base", "f32", 1500000.0), (".attention.sliding_window", "u32", 4096)], layers=52))
    # EXAONE 4.0: the sliding pattern for 64 layers only (the 32B), RoPE on those only; the 1.2B turns every layer.
    f["exaone-4-32b.gguf"] = gguf(model("exaone4", 131072, 5120, 40, 8, [
        (".rope.freq_base", "f32", 1000000.0), (".attention.sliding_window", "u32", 4096)], layers=64))
    f["exaone-4-1.2b.gguf"] = gguf(model("exaone4", 65536, 2048, 32, 8, [
        (".rope.freq_base", "f32", 1000000.0), (".attention.sliding_window", "u32", 4096)], layers=30))
    # AFMoE without a sliding window: still no RoPE where (il + 1) % 4 == 0.
    f["afmoe.gguf"] = gguf(model("afmoe", 65536, 2048, 16, 4, [(".rope.freq_base", "f32", 10000.0)], layers=8))
    # Granite 4.0-H: the converter writes rope.scaling.finetuned false (conversion/granite.py:514-519): no RoPE.
    f["granite-4.0-h.gguf"] = gguf(model("granitehybrid", 131072, 1536, 12, 4, [
        (".rope.freq_base", "f32", 10000.0), (".rope.scaling.finetuned", "bool", False)], layers=4))
    # Granite SWA with HF's no_rope_layers as attention.rope_pattern (conversion/granite.py:115-119).
    f["granite-swa.gguf"] = gguf(model("granite_swa", 131072, 2048, 16, 4, [
        (".rope.freq_base", "f32", 10000.0),
        (".attention.rope_pattern", "arr", ("bool", [True, True, True, False]))], layers=4))
    # Granite's attention_multiplier as the converter writes it, attention.scale (src/models/granite-swa.cpp:10, 231).
    f["granite-swa-scale.gguf"] = gguf(model("granite_swa", 131072, 2048, 16, 4, [
        (".rope.freq_base", "f32", 10000.0), (".attention.scale", "f32", 0.015625)], layers=4))
    # Step 3.5: full layers rotate rope.dimension_count / 2 with the first factors of rope_freqs; the sliding
    # ones (listed) the whole at rope.freq_base_swa, unscaled, no factors (src/models/step35.cpp:9,244-255).
    f["step-3.5.gguf"] = gguf(model("step35", 262144, 4096, 32, 8, [
        (".attention.key_length", "u32", 128), (".rope.dimension_count", "u32", 128), (".rope.freq_base", "f32", 5000000.0),
        (".rope.freq_base_swa", "f32", 10000.0), (".attention.sliding_window", "u32", 512),
        (".attention.sliding_window_pattern", "arr", ("bool", [False, True, True, True] * 2))], layers=8),
        [f32_tensor("rope_freqs.weight", [1.0] * 64)])
    # Spark 2.5: sliding layers with their own head and n_rot, rope.freq_base_swa with the model's scaling.
    f["spark-2.5.gguf"] = gguf(model("spark2_5", 32768, 2048, 16, 4, [
        (".attention.key_length", "u32", 128), (".attention.key_length_swa", "u32", 64),
        (".rope.dimension_count", "u32", 128), (".rope.dimension_count_swa", "u32", 64),
        (".rope.freq_base", "f32", 1000000.0), (".rope.freq_base_swa", "f32", 10000.0),
        (".rope.scaling.type", "str", "linear"), (".rope.scaling.factor", "f32", 2.0),
        (".attention.sliding_window", "u32", 1024),
        (".attention.sliding_window_pattern", "arr", ("bool", [True, True, True, False]))], layers=4))
    # dots3note: MLA heads per kind (key_length_mla, key_length_mla_swa), the last 64 channels rotating in both.
    f["dots3note.gguf"] = gguf(model("dots3note", 131072, 4096, 32, 1, [
        (".attention.key_length", "u32", 576), (".attention.key_length_mla", "u32", 192),
        (".attention.key_length_mla_swa", "u32", 128), (".rope.dimension_count", "u32", 64),
        (".rope.freq_base", "f32", 5000000.0), (".rope.freq_base_swa", "f32", 10000.0),
        (".rope.scaling.type", "str", "yarn"), (".rope.scaling.factor", "f32", 4.0),
        (".rope.scaling.original_context_length", "u32", 32768), (".attention.sliding_window", "u32", 4096),
        (".attention.sliding_window_pattern", "arr", ("bool", [False, True, True, True])),
        (".attention.indexer.key_length", "u32", 128)], layers=4))
    # GLM-5 (glm-dsa): an MLA head, key_length_mla, whose last rope.dimension_count channels rotate.
    f["glm-dsa.gguf"] = gguf(model("glm-dsa", 202752, 6144, 64, 1, [
        (".attention.key_length", "u32", 576), (".attention.key_length_mla", "u32", 256),
        (".attention.value_length_mla", "u32", 256), (".rope.dimension_count", "u32", 64),
        (".rope.freq_base", "f32", 1000000.0)]))
    # The lightning indexers whose heads are [rope | nope]: the first 64 of 128 channels turn, with a rope type of their
    # own (DeepSeek-3.2 NEOX, GLM-DSA NORM: src/models/deepseek32.cpp:226-249, glm-dsa.cpp:264-287) or the model's
    # (Qwen4-exp IMROPE on its full-attention layers with a compress ratio: qwen4exp.cpp:626-642, 785-788).
    f["deepseek32.gguf"] = gguf(model("deepseek32", 163840, 7168, 128, 1, [
        (".attention.key_length", "u32", 576), (".attention.key_length_mla", "u32", 192),
        (".attention.value_length_mla", "u32", 128), (".rope.dimension_count", "u32", 64),
        (".rope.freq_base", "f32", 10000.0), (".rope.scaling.type", "str", "yarn"), (".rope.scaling.factor", "f32", 40.0),
        (".rope.scaling.original_context_length", "u32", 4096), (".attention.indexer.head_count", "u32", 64),
        (".attention.indexer.key_length", "u32", 128), (".attention.indexer.top_k", "u32", 2048)], layers=3))
    f["glm-dsa-indexer.gguf"] = gguf(model("glm-dsa", 202752, 6144, 64, 1, [
        (".attention.key_length", "u32", 576), (".attention.key_length_mla", "u32", 256),
        (".attention.value_length_mla", "u32", 256), (".rope.dimension_count", "u32", 64),
        (".rope.freq_base", "f32", 1000000.0), (".attention.indexer.key_length", "u32", 128)], layers=3))
    f["glm-5.2.gguf"] = gguf(model("glm-dsa", 1048576, 6144, 64, 1, [
        (".attention.key_length", "u32", 576), (".attention.key_length_mla", "u32", 256),
        (".attention.value_length_mla", "u32", 256), (".rope.dimension_count", "u32", 64),
        (".rope.freq_base", "f32", 1000000.0), (".attention.indexer.key_length", "u32", 128)], layers=12))
    f["qwen4exp.gguf"] = gguf(model("qwen4exp", 262144, 2048, 16, 2, [
        (".attention.key_length", "u32", 256), (".rope.dimension_count", "u32", 64),
        (".rope.freq_base", "f32", 10000000.0), (".rope.dimension_sections", "arr", ("i32", [11, 11, 10, 0])),
        (".attention.indexer.key_length", "u32", 128), (".attention.compress_ratios", "arr", ("i32", [4, 4, 4, 0, 4, 4, 4, 4])),
        (".full_attention_interval", "u32", 4)], layers=8))
    # Qwen4-exp without compress ratios: no indexer, its linear-attention layers still without RoPE (qwen4exp.cpp:127-135).
    f["qwen4exp-dense.gguf"] = gguf(model("qwen4exp", 262144, 2048, 16, 2, [
        (".attention.key_length", "u32", 256), (".rope.dimension_count", "u32", 64),
        (".rope.freq_base", "f32", 10000000.0), (".rope.dimension_sections", "arr", ("i32", [11, 11, 10, 0])),
        (".attention.indexer.key_length", "u32", 128),
        (".attention.recurrent_layers", "arr", ("i32", [1, 1, 0, 1, 1, 0]))], layers=6))
    # The hybrids' linear-attention layers have no RoPE: attention.recurrent_layers, else all but every
    # full_attention_interval-th (4; MiniMax-01 8), the MTP layers past the trunk full attention (src/models/qwen35.cpp:15-23,
    # qwen35moe.cpp:18-26, qwen3next.cpp:16-23, minimax-01.cpp:11-17).
    f["qwen35.gguf"] = gguf(model("qwen35", 262144, 2560, 16, 4, [
        (".attention.key_length", "u32", 256), (".rope.dimension_count", "u32", 64),
        (".rope.freq_base", "f32", 10000000.0), (".rope.dimension_sections", "arr", ("i32", [11, 11, 10, 0])),
        (".nextn_predict_layers", "u32", 1)], layers=9))
    f["qwen35moe.gguf"] = gguf(model("qwen35moe", 262144, 2048, 16, 2, [
        (".attention.key_length", "u32", 256), (".rope.dimension_count", "u32", 64),
        (".rope.freq_base", "f32", 10000000.0), (".rope.dimension_sections", "arr", ("i32", [11, 11, 10, 0])),
        (".full_attention_interval", "u32", 3)], layers=6))
    f["qwen3next.gguf"] = gguf(model("qwen3next", 262144, 2048, 16, 2, [
        (".attention.key_length", "u32", 256), (".rope.dimension_count", "u32", 64),
        (".rope.freq_base", "f32", 10000000.0),
        (".attention.recurrent_layers", "arr", ("bool", [True, False, True, True, False]))], layers=5))
    # No layer with RoPE, and an interval of 0 (llama.cpp's loader divides by it): rope refuses both.
    f["qwen3next-all-linear.gguf"] = gguf(model("qwen3next", 262144, 2048, 16, 2, [
        (".attention.key_length", "u32", 256), (".rope.dimension_count", "u32", 64),
        (".attention.recurrent_layers", "arr", ("bool", [True, True]))]))
    f["qwen35-interval-0.gguf"] = gguf(model("qwen35", 262144, 2048, 16, 2, [
        (".attention.key_length", "u32", 256), (".rope.dimension_count", "u32", 64),
        (".full_attention_interval", "u32", 0)], layers=4))
    # A layer without key/value heads has no attention, so no RoPE (llama_hparams::n_head_kv(il) == 0: LFM2's short
    # convolutions, src/models/lfm2.cpp:12; head_count_kv one per layer, as convert_hf_to_gguf.py writes LFM2's).
    f["lfm2.gguf"] = gguf(model("lfm2", 128000, 2048, 32, [0, 0, 8, 0, 0, 8], [
        (".rope.freq_base", "f32", 1000000.0)], layers=6))
    f["lfm2-short-array.gguf"] = gguf(model("lfm2", 128000, 2048, 32, [0, 8, 0], [], layers=6))
    f["minimax-01.gguf"] = gguf(model("minimax-01", 1048576, 6144, 64, 8, [
        (".attention.key_length", "u32", 128), (".rope.dimension_count", "u32", 64),
        (".rope.freq_base", "f32", 10000000.0)], layers=16))
    # DeepSeek-V4: compressed layers (ratio 4 and 128) and sliding-only ones; the indexer's heads of 128 on the ratio-4 ones.
    f["deepseek-v4.gguf"] = gguf(model("deepseek4", 1048576, 4096, 64, 1, [
        (".attention.key_length", "u32", 512), (".rope.dimension_count", "u32", 64), (".rope.freq_base", "f32", 10000.0),
        (".rope.scaling.type", "str", "yarn"), (".rope.scaling.factor", "f32", 16.0),
        (".rope.scaling.original_context_length", "u32", 65536),
        (".attention.compress_rope_freq_base", "f32", 160000.0), (".attention.indexer.key_length", "u32", 128),
        (".attention.compress_ratios", "arr", ("i32", [0, 0, 4, 128, 4, 128]))], layers=6))
    # HY-V4: MLA heads (last 64 channels of key_length_mla 192) and the lightning indexer on the layers whose
    # attention.indexer.types entry is 1, heads of 128 whose last 64 channels turn likewise (src/models/hy-v4.cpp:342-375).
    f["hy-v4.gguf"] = gguf(model("hy_v4", 262144, 4096, 32, 32, [
        (".attention.key_length", "u32", 576), (".attention.key_length_mla", "u32", 192),
        (".attention.value_length_mla", "u32", 128), (".rope.dimension_count", "u32", 64),
        (".rope.freq_base", "f32", 10000.0), (".attention.indexer.head_count", "u32", 32),
        (".attention.indexer.key_length", "u32", 128), (".attention.indexer.top_k", "u32", 2048),
        (".attention.indexer.types", "arr", ("i32", [1, 0, 1, 0]))], layers=4))
    # HunYuan-VL: rope.scaling.alpha folded into the base by llama.cpp's loader (src/models/hunyuan-vl.cpp:7-12).
    f["hunyuan-vl.gguf"] = gguf(model("hunyuan_vl", 32768, 2048, 16, 8, [
        (".attention.key_length", "u32", 128), (".rope.freq_base", "f32", 10000.0), (".rope.scaling.alpha", "f32", 1000.0)]))
    # DFlash's DeepSeek-V4 DSpark draft: every stage uncompressed, rope.freq_base unscaled, the last 64 channels.
    f["dflash-dspark.gguf"] = gguf(model("dflash", 1048576, 4096, 64, 1, [
        (".attention.key_length", "u32", 512), (".rope.dimension_count", "u32", 64), (".rope.freq_base", "f32", 10000.0),
        (".rope.scaling.type", "str", "yarn"), (".rope.scaling.factor", "f32", 16.0),
        (".rope.scaling.original_context_length", "u32", 65536), (".hyper_connection.count", "u32", 4)]))
    # The softmax scales of data/families.json's kq_scale rules (llama.cpp's graphs at de3ff815ea7d), each file shaped so
    # that the rule's head differs from 1/√attention.key_length: gpt-oss and Bailing 1/√n_rot (openai-moe.cpp:113,
    # bailingmoe.cpp:111); PLaMo 2 1/√n_embd_head_v (plamo2.cpp:250); Gemma 2's 27B (46 layers) q × 1/√(n_embd / n_head),
    # capped at 50 (gemma2.cpp:17-27, 108); Grok the scores × attention.output_scale, capped (grok.cpp:8-9, 18-19).
    f["gpt-oss-rot32.gguf"] = gguf(model("gpt-oss", 131072, 2880, 64, 8, [
        (".attention.key_length", "u32", 64), (".rope.dimension_count", "u32", 32), (".rope.freq_base", "f32", 150000.0)]))
    f["bailingmoe.gguf"] = gguf(model("bailingmoe", 16384, 2048, 16, 4, [
        (".attention.key_length", "u32", 128), (".rope.dimension_count", "u32", 64), (".rope.freq_base", "f32", 600000.0)]))
    f["plamo2.gguf"] = gguf(model("plamo2", 32768, 2048, 32, 4, [
        (".attention.key_length", "u32", 128), (".attention.value_length", "u32", 96), (".rope.freq_base", "f32", 10000.0)]))
    f["gemma-2-27b.gguf"] = gguf(model("gemma2", 8192, 4608, 32, 16, [
        (".attention.key_length", "u32", 128), (".attention.value_length", "u32", 128),
        (".attention.sliding_window", "u32", 4096), (".rope.freq_base", "f32", 10000.0)], layers=46))
    f["grok.gguf"] = gguf(model("grok", 8192, 6144, 48, 8, [
        (".rope.freq_base", "f32", 10000.0), (".attention.output_scale", "f32", 0.05), (".attn_logit_softcapping", "f32", 20.0)]))
    f["grok-defaults.gguf"] = gguf(model("grok", 8192, 6144, 48, 8, [(".rope.freq_base", "f32", 10000.0)]))
    f["gpt-oss-20b.gguf"] = gguf(model("gpt-oss", 131072, 2880, 64, 8, [
        (".attention.key_length", "u32", 64), (".attention.value_length", "u32", 64),
        (".rope.freq_base", "f32", 150000.0), (".rope.scaling.type", "str", "yarn"),
        (".rope.scaling.factor", "f32", 32.0), (".rope.scaling.original_context_length", "u32", 4096)]))
    f["glm-4-9b.gguf"] = gguf(model("glm4", 131072, 4096, 32, 2, [
        (".rope.dimension_count", "u32", 64), (".rope.freq_base", "f32", 10000.0)]))
    f["command-r.gguf"] = gguf(model("command-r", 131072, 8192, 64, 64, [(".rope.freq_base", "f32", 8000000.0)]))
    f["llama-2-7b-linear.gguf"] = gguf(model("llama", 4096, 4096, 32, 32, [
        (".rope.freq_base", "f32", 10000.0), (".rope.scale_linear", "f32", 4.0)]))
    # Llama 2 7B in big-endian v3, and Qwen3 8B in version 2: the same numbers in other encodings.
    f["llama-2-7b-be.gguf"] = gguf(model("llama", 4096, 4096, 32, 32, [(".rope.freq_base", "f32", 10000.0)]),
                                   [f32_tensor("rope_freqs.weight", [1.0] * 64, ">")], endian=">")
    f["qwen3-8b-v2.gguf"] = gguf(model("qwen3", 40960, 4096, 32, 8, [
        (".attention.key_length", "u32", 128), (".rope.freq_base", "f32", 1000000.0)]), version=2)
    f["mamba.gguf"] = gguf(model("mamba", 2048, 768, 0, 0))
    f["unknown-arch.gguf"] = gguf(model("foonet", 2048, 768, 12, 12))
    return f


def one_pair(key, type_number, value_bytes):
    """A little-endian v3 file with one pair whose type number and value bytes are given raw."""
    w = Writer()
    w.string(key)
    w.pack("I", type_number)
    return b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + bytes(w.out) + value_bytes


def bad_files(good):
    """Each breaks one rule; the C++ test expects InvalidArgument naming it."""
    llama = good["llama-2-7b-be.gguf"]
    b = {}
    b["truncated.gguf"] = good["qwen2.5-7b.gguf"][:200]  # inside the metadata
    b["bad-magic.gguf"] = b"GGML" + good["qwen2.5-7b.gguf"][4:]
    b["version-1.gguf"] = gguf([], version=1)
    b["version-4.gguf"] = gguf([], version=4)
    b["huge-kv-count.gguf"] = b"GGUF" + struct.pack("<IQQ", 3, 0, 1 << 62)
    b["huge-tensor-count.gguf"] = b"GGUF" + struct.pack("<IQQ", 3, 1 << 40, 0)
    b["counts-past-end.gguf"] = b"GGUF" + struct.pack("<IQQ", 3, 0, 1000)
    w = Writer()
    w.string("general.architecture")
    w.pack("I", 8)
    w.pack("Q", 1 << 40)  # a string length past the end
    b["string-past-end.gguf"] = b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + bytes(w.out) + b"llama"
    w = Writer()
    w.string("tokenizer.ggml.scores")
    w.pack("I", 9)
    w.pack("I", 6)
    w.pack("Q", 1 << 60)  # an array count past the end
    b["array-past-end.gguf"] = b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + bytes(w.out)
    b["bad-value-type.gguf"] = one_pair("general.architecture", 13, struct.pack("<Q", 5) + b"llama")
    nested = ("i32", [1])
    for _ in range(10):
        nested = ("arr", [nested])
    b["deep-nesting.gguf"] = gguf([("general.architecture", "str", "llama"), ("x.deep", "arr", nested)])
    b["duplicate-key.gguf"] = gguf([("general.architecture", "str", "llama"), ("general.architecture", "str", "qwen2")])
    b["bad-bool.gguf"] = one_pair("x.flag", 7, b"\x02")
    b["alignment-u64.gguf"] = gguf([("general.alignment", "u64", 32)])
    b["rope-freqs-f16.gguf"] = gguf(model("llama", 4096, 4096, 32, 32), [("rope_freqs.weight", [64], 1, b"\0" * 128)])
    b["rope-freqs-past-end.gguf"] = gguf(model("llama", 4096, 4096, 32, 32), [f32_tensor("rope_freqs.weight", [1.0] * 64)])[:-64]
    b["dims-overflow.gguf"] = gguf([], [("w", [1 << 40, 1 << 40], 0, b"")])
    # Readable files whose RoPE keys are wrong: the mapping refuses them.
    b["arch-not-string.gguf"] = gguf([("general.architecture", "u32", 7)])
    b["freq-base-string.gguf"] = gguf(model("llama", 4096, 4096, 32, 32, [(".rope.freq_base", "str", "10000")]))
    b["freq-base-nan.gguf"] = gguf(model("llama", 4096, 4096, 32, 32, [(".rope.freq_base", "f32", float("nan"))]))
    b["no-architecture.gguf"] = gguf([("general.name", "str", "x")])
    b["one-section.gguf"] = gguf(model("qwen2vl", 32768, 3584, 28, 4, [
        (".rope.dimension_sections", "arr", ("i32", [64]))]))
    b["bad-sections.gguf"] = gguf(model("qwen2vl", 32768, 3584, 28, 4, [
        (".rope.dimension_sections", "arr", ("i32", [16, 24, 20, 0]))]))
    b["rope-freqs-wrong-length.gguf"] = gguf(model("llama", 4096, 4096, 32, 32), [f32_tensor("rope_freqs.weight", [1.0] * 63)])
    # DeepSeek-3.2's loader divides yarn_log_multiplier by 0.1 in float32: 1e38 gives an infinite mscale_all_dim.
    b["yarn-log-mul-huge.gguf"] = gguf(model("deepseek32", 163840, 7168, 128, 128, [
        (".attention.key_length", "u32", 192), (".rope.dimension_count", "u32", 64),
        (".rope.freq_base", "f32", 10000.0), (".rope.scaling.type", "str", "yarn"),
        (".rope.scaling.factor", "f32", 40.0), (".rope.scaling.original_context_length", "u32", 4096),
        (".rope.scaling.yarn_log_multiplier", "f32", 1e38)]))
    assert llama[:4] == b"GGUF"
    return b


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: write_gguf.py OUTDIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    good = good_files()
    files = dict(good)
    files.update(bad_files(good))
    # Self-checks: the Llama 3.1 factors of the Llama 3 paper's bands (kept: 1, interpolated: 8).
    factors = llama3_factors(128, 500000.0, 8.0, 1.0, 4.0, 8192)
    assert factors[0] == 1.0 and factors[-1] == 8.0 and all(1.0 <= x <= 8.0 for x in factors)
    assert good["llama-2-7b-be.gguf"][4:8] == struct.pack(">I", 3)
    for name, data in sorted(files.items()):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
