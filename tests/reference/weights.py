#!/usr/bin/python3
"""Writes the checkpoints of `rope weights`' tests and examples (data/weights/, committed), independently of rope:
Hugging Face checkpoints with NumPy (safetensors per huggingface/safetensors README "Format"; a sharded one with
model.safetensors.index.json, transformers' weight_map), GGUF files with llama.cpp's own gguf-py (GGUFWriter), the
q/k rows permuted by llama.cpp's own converter function, LlamaModel.permute of conversion/llama.py (read from the
source file and run as written, on NumPy arrays: its reshape/swapaxes work on both), and the quantized copies by
llama.cpp's own code: Q8_0 and Q4_0 by gguf-py's quantizer (gguf-py/gguf/quants.py), Q4_K and Q6_K by ggml's
ggml_quantize_chunk from the conformance tier's prebuilt libggml-base.so (ctypes), since gguf-py only
dequantizes those. gguf-py's dequantizer (quants.dequantize) then writes dequantized.json: the first rows of every
quantized q/k tensor as llama.cpp decodes them, the judge of rope's decoders (tests/io/test_ggml_blocks.cpp).

llama.cpp: the conformance tier's copy (scripts/install-llama.sh: commit de3ff815ea7d559ee917f063901b8986f038abc6).
The mistakes of docs/weights.md are made the way the bug reports describe them: k permuted with the query head
count (llama.cpp #2376, #3018: permute(k, n_head, n_head), before PR #3364's n_head_kv), permuted twice
(onnxruntime/mobius PR #396), the permutation missing on a NORM architecture, and applied to a NEOX one (Qwen2).

Usage: /usr/bin/python3 tests/reference/weights.py [OUTDIR]   (default data/weights; needs `scripts/install-deps.sh
llama` and NumPy; the conformance test conformance.weights_samples writes them again and requires the same bytes)
Deterministic: NumPy's default_rng with fixed seeds.
"""
import ast
import ctypes
import json
import os
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
LLAMA = os.environ.get("ROPE_LLAMA_DIR", os.path.expanduser("~/.cache/rope/llama-npm-3.22.1"))
sys.path.insert(0, os.path.join(LLAMA, "src", "gguf-py"))
import gguf  # noqa: E402  (llama.cpp's gguf-py)
from gguf import quants  # noqa: E402


def converter_permute():
    """LlamaModel.permute of llama.cpp conversion/llama.py, compiled from the file as it is."""
    path = os.path.join(LLAMA, "src", "conversion", "llama.py")
    tree = ast.parse(open(path, encoding="utf-8").read())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "LlamaModel")
    fn = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "permute")
    fn.decorator_list = []
    namespace = {"Tensor": np.ndarray}
    exec(compile(ast.fix_missing_locations(ast.Module(body=[fn], type_ignores=[])), path, "exec"), namespace)
    return namespace["permute"]


PERMUTE = converter_permute()

# ggml's own quantizer for the k-quants (ggml.h: size_t ggml_quantize_chunk(enum ggml_type, const float *src,
# void *dst, int64_t start, int64_t nrows, int64_t n_per_row, const float *imatrix)).
GGML = ctypes.CDLL(os.path.join(LLAMA, "lib", "libggml-base.so"))
GGML.ggml_quantize_chunk.restype = ctypes.c_size_t
GGML.ggml_quantize_chunk.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64,
                                     ctypes.c_int64, ctypes.c_void_p]
GGML.ggml_row_size.restype = ctypes.c_size_t
GGML.ggml_row_size.argtypes = [ctypes.c_int, ctypes.c_int64]

Q = gguf.GGMLQuantizationType


def ggml_quantize(w, qtype):
    w = np.ascontiguousarray(w, dtype=np.float32)
    rows, cols = w.shape
    row_bytes = GGML.ggml_row_size(int(qtype), cols)
    out = np.zeros((rows, row_bytes), dtype=np.uint8)
    got = GGML.ggml_quantize_chunk(int(qtype), w.ctypes.data, out.ctypes.data, 0, rows, cols, None)
    assert got == rows * row_bytes
    return out


def quantized(w, qtype):
    """(bytes or values, raw_dtype) for GGUFWriter.add_tensor."""
    if qtype == Q.F32:
        return w.astype(np.float32), None
    if qtype == Q.F16:
        return w.astype(np.float16), None
    if qtype in (Q.Q4_K, Q.Q6_K):
        return ggml_quantize(w, qtype), qtype
    return quants.quantize(w.astype(np.float32), qtype), qtype


class Model:
    """A tiny model: `layers` layers of q (n_head·d × width) and k (n_head_kv·d × width), N(0, 1/width) weights."""

    def __init__(self, seed, n_head, n_head_kv, d, width=256, layers=1, bias=False):
        rng = np.random.default_rng(seed)
        self.n_head, self.n_head_kv, self.d, self.width, self.layers, self.bias = n_head, n_head_kv, d, width, layers, bias
        s = 1 / np.sqrt(width)
        self.q = [rng.normal(0, s, (n_head * d, width)).astype(np.float32) for _ in range(layers)]
        self.k = [rng.normal(0, s, (n_head_kv * d, width)).astype(np.float32) for _ in range(layers)]
        self.qb = [rng.normal(0, 1, n_head * d).astype(np.float32) for _ in range(layers)]
        self.kb = [rng.normal(0, 1, n_head_kv * d).astype(np.float32) for _ in range(layers)]
        self.norm = np.ones(width, dtype=np.float32)


ARCHITECTURES = {"llama": "LlamaForCausalLM", "qwen2": "Qwen2ForCausalLM", "llama4_text": "Llama4ForCausalLM",
                 "deepseek_v2": "DeepseekV2ForCausalLM", "phi3": "Phi3ForCausalLM", "gpt_neox": "GPTNeoXForCausalLM",
                 "falcon": "FalconForCausalLM", "chatglm": "ChatGLMModel"}


# The fused query_key_value of the families whose modeling code splits it by its own row order: q, k and v fused
# here as the inverse of that split, and the split itself ported to NumPy (split_*) and run on the result, so that
# the file holds what the model's code reads as q, k and v. Rows: heads of d rows; H query heads, G KV heads.
def split_gpt_neox(w, H, G, d):
    """transformers models/gpt_neox/modeling_gpt_neox.py @ 006bd23dd0ce, GPTNeoXAttention._attn_projections_and_rope:
    qkv.view(..., num_attention_heads, 3 * head_size); query [..., :head_size], key [head_size:2 * head_size], value
    the rest. The output features are the weight's rows."""
    x = w.reshape(H, 3 * d, -1)
    return x[:, :d].reshape(H * d, -1), x[:, d:2 * d].reshape(H * d, -1), x[:, 2 * d:].reshape(H * d, -1)


def split_falcon(w, H, G, d, new_decoder_architecture, multi_query):
    """transformers models/falcon/modeling_falcon.py @ 00dcc6dda6f6, FalconAttention._split_heads:
    new_decoder_architecture: view(..., -1, num_heads // num_kv_heads + 2, head_dim), query [:, :-2], key [[-2]],
    value [[-1]]; not multi_query: view(..., num_heads, 3, head_dim), [..., 0/1/2, :]; multi_query:
    view(..., num_heads + 2, head_dim), query [:-2], key [[-2]], value [[-1]]."""
    if new_decoder_architecture:
        x = w.reshape(-1, H // G + 2, d, w.shape[-1])
        return x[:, :-2].reshape(H * d, -1), x[:, -2].reshape(G * d, -1), x[:, -1].reshape(G * d, -1)
    if not multi_query:
        x = w.reshape(H, 3, d, w.shape[-1])
        return x[:, 0].reshape(H * d, -1), x[:, 1].reshape(H * d, -1), x[:, 2].reshape(H * d, -1)
    x = w.reshape(H + 2, d, w.shape[-1])
    return x[:-2].reshape(H * d, -1), x[-2], x[-1]


def split_chatglm(w, H, G, d):
    """THUDM modeling_chatglm.py SelfAttention.forward (as THUDM/LongAlign @ 21d6e8451ba2 holds it), under
    multi_query_attention: mixed_x_layer.split([H·d, G·d, G·d], dim=-1)."""
    return w[:H * d], w[H * d:(H + G) * d], w[(H + G) * d:]


def fuse(m, family, q, k, v):
    """q, k and v (rows: output features; a bias is one column) fused as `family`'s checkpoint holds them, checked
    by the family's split."""
    H, G, d = m.n_head, m.n_head_kv, m.d
    q2, k2, v2 = (x.reshape(x.shape[0], -1) for x in (q, k, v))
    if family == "gpt_neox":  # per head [q_h; k_h; v_h]
        w = np.concatenate([q2.reshape(H, d, -1), k2.reshape(H, d, -1), v2.reshape(H, d, -1)], axis=1)
        split = split_gpt_neox
    elif family == "falcon" and m.falcon_new:  # per KV group [its H/G q heads; its k; its v]
        w = np.concatenate([q2.reshape(G, H // G * d, -1), k2.reshape(G, d, -1), v2.reshape(G, d, -1)], axis=1)
        split = lambda w, H, G, d: split_falcon(w, H, G, d, True, True)  # noqa: E731
    elif family == "falcon":  # multi_query: [all q; k; v]
        w = np.concatenate([q2, k2, v2])
        split = lambda w, H, G, d: split_falcon(w, H, G, d, False, True)  # noqa: E731
    else:  # chatglm under multi_query_attention: [all q; all k; all v]
        w = np.concatenate([q2, k2, v2])
        split = split_chatglm
    w = w.reshape(-1, q2.shape[1])
    for part, want in zip(split(w, H, G, d), (q2, k2, v2)):
        assert np.array_equal(part, want)
    return w.reshape(-1) if q.ndim == 1 else w


FUSED_NAMES = {"gpt_neox": "gpt_neox.layers.{}.attention.query_key_value",
               "falcon": "transformer.h.{}.self_attention.query_key_value",
               "chatglm": "transformer.encoder.layers.{}.self_attention.query_key_value"}


def hf_config(m, model_type):
    if model_type in FUSED_NAMES:
        return fused_hf_config(m, model_type)
    c = {"model_type": model_type, "architectures": [ARCHITECTURES[model_type]],
         "hidden_size": m.width, "num_attention_heads": m.n_head, "num_key_value_heads": m.n_head_kv,
         "head_dim": m.d, "num_hidden_layers": m.layers, "intermediate_size": 512, "rope_theta": 10000.0,
         "max_position_embeddings": 4096, "rms_norm_eps": 1e-6, "vocab_size": 32}
    if model_type == "deepseek_v2":  # DeepSeek-V2-Lite's keys (q_lora_rank null: one q_proj), at this size
        del c["head_dim"]
        c.update({"qk_nope_head_dim": m.d // 2, "qk_rope_head_dim": m.d // 2, "v_head_dim": m.d, "kv_lora_rank": 16,
                  "q_lora_rank": None})
    return c


def fused_hf_config(m, model_type):
    """The keys each family's config class reads (head_dim = hidden_size / heads there)."""
    c = {"model_type": model_type, "architectures": [ARCHITECTURES[model_type]], "hidden_size": m.n_head * m.d,
         "num_attention_heads": m.n_head, "vocab_size": 32, "max_position_embeddings": 2048}
    if model_type == "gpt_neox":
        c.update({"num_hidden_layers": m.layers, "intermediate_size": 512, "rotary_pct": 0.25,
                  "rotary_emb_base": 10000, "layer_norm_eps": 1e-5, "use_parallel_residual": True})
    elif model_type == "falcon":
        c.update({"num_hidden_layers": m.layers, "rope_theta": 10000.0, "alibi": False, "bias": False,
                  "parallel_attn": True})
        if m.falcon_new:
            c.update({"new_decoder_architecture": True, "num_kv_heads": m.n_head_kv})
        # else: multi_query left to FalconConfig's default (True): one k and one v head
    else:  # chatglm (THUDM's ChatGLMConfig keys)
        c.update({"num_layers": m.layers, "kv_channels": m.d, "multi_query_attention": True,
                  "multi_query_group_num": m.n_head_kv, "seq_length": 2048, "padded_vocab_size": 32,
                  "add_qkv_bias": m.bias, "rmsnorm": True, "layernorm_epsilon": 1e-5})
    return c


def fused_hf_tensors(m, model_type):
    t = {}
    for i in range(m.layers):
        name = FUSED_NAMES[model_type].format(i)
        t[name + ".weight"] = fuse(m, model_type, m.q[i], m.k[i], m.v[i])
        if m.bias:
            t[name + ".bias"] = fuse(m, model_type, m.qb[i], m.kb[i], m.vb[i])
    t["final_norm.weight"] = m.norm
    return t


def hf_tensors(m):
    if getattr(m, "family", None) in FUSED_NAMES:
        return fused_hf_tensors(m, m.family)
    t = {}
    for i in range(m.layers):
        p = f"model.layers.{i}.self_attn."
        t[p + "q_proj.weight"] = m.q[i]
        t[p + "k_proj.weight"] = m.k[i]
        if m.bias:
            t[p + "q_proj.bias"] = m.qb[i]
            t[p + "k_proj.bias"] = m.kb[i]
        if hasattr(m, "v"):  # Phi-3: q, k and v fused in one qkv_proj, their rows one after the other
            t[p + "qkv_proj.weight"] = np.concatenate([t.pop(p + "q_proj.weight"), t.pop(p + "k_proj.weight"), m.v[i]])
        if hasattr(m, "kva"):  # DeepSeek's MLA: no k_proj, the latent and k_pe projected together
            del t[p + "k_proj.weight"]
            t[p + "kv_a_proj_with_mqa.weight"] = m.kva[i]
    t["model.norm.weight"] = m.norm
    return t


def write_safetensors(path, tensors, dtype=np.float16):
    """huggingface/safetensors README "Format": u64 header size, JSON header, buffer."""
    names = {np.float16: "F16", np.float32: "F32"}
    header, blobs, offset = {}, [], 0
    for name, value in tensors.items():
        b = np.ascontiguousarray(value.astype(dtype)).tobytes()
        header[name] = {"dtype": names[dtype], "shape": list(value.shape), "data_offsets": [offset, offset + len(b)]}
        blobs.append(b)
        offset += len(b)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def write_hf(directory, m, model_type, shards=1):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "config.json"), "w") as f:
        json.dump(hf_config(m, model_type), f, indent=1)
    tensors = hf_tensors(m)
    if shards == 1:
        write_safetensors(os.path.join(directory, "model.safetensors"), tensors)
        return
    names = list(tensors)
    weight_map = {}
    for s in range(shards):
        part = {n: tensors[n] for n in names[s::shards]}
        file = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        write_safetensors(os.path.join(directory, file), part)
        weight_map.update({n: file for n in part})
    with open(os.path.join(directory, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": 0}, "weight_map": weight_map}, f, indent=1)


def write_gguf(path, m, arch, q_map, k_map, types=(Q.F16, Q.F16)):
    """A GGUF of `arch` whose q and k rows are q_map(w) and k_map(w) of the model's, of types (q's, k's)."""
    w = gguf.GGUFWriter(path, arch)
    w.add_context_length(4096)
    w.add_embedding_length(m.width)
    w.add_block_count(m.layers)
    w.add_feed_forward_length(512)
    w.add_head_count(m.n_head)
    w.add_head_count_kv(m.n_head_kv)
    w.add_key_length(m.d)
    w.add_value_length(m.d)
    w.add_rope_dimension_count(m.d // 2 if arch == "deepseek2" else m.d)  # DeepSeek: qk_rope_head_dim
    w.add_rope_freq_base(10000.0)
    w.add_layer_norm_rms_eps(1e-6)
    if arch == "deepseek2":  # llama.cpp's MLA key (DeepseekV2Model.set_gguf_parameters), at this size
        w.add_kv_lora_rank(16)
    for i in range(m.layers):
        k_name, k_value = (f"blk.{i}.attn_kv_a_mqa.weight", m.kva[i]) if hasattr(m, "kva") else \
            (f"blk.{i}.attn_k.weight", m.k[i])
        parts = ((f"blk.{i}.attn_q.weight", q_map(m.q[i]), types[0]), (k_name, k_map(k_value), types[1]))
        if hasattr(m, "v"):  # llama.cpp keeps Phi-3's qkv_proj fused as attn_qkv (build_qkv splits it q, k, v)
            parts = ((f"blk.{i}.attn_qkv.weight", np.concatenate([parts[0][1], parts[1][1], m.v[i]]), types[0]),)
        for name, value, t in parts:
            data, raw = quantized(value, t)
            w.add_tensor(name, data, raw_dtype=raw)
        if m.bias and hasattr(m, "v"):  # the fused bias, q then k then v as the weight's rows
            w.add_tensor(f"blk.{i}.attn_qkv.bias",
                         np.concatenate([q_map(m.qb[i]), k_map(m.kb[i]), m.vb[i]]).astype(np.float32))
        elif m.bias:
            w.add_tensor(f"blk.{i}.attn_q.bias", q_map(m.qb[i]).astype(np.float32))
            w.add_tensor(f"blk.{i}.attn_k.bias", k_map(m.kb[i]).astype(np.float32))
    w.add_tensor("output_norm.weight", m.norm)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.dirname(HERE)), "data", "weights")
    os.makedirs(out, exist_ok=True)
    same = lambda w: w  # noqa: E731
    # Llama, GQA (8 query heads, 2 KV heads, d = 16), the HF side sharded in two files (q; k and the norm).
    llama = Model(1, 8, 2, 16)
    H, Hkv = llama.n_head, llama.n_head_kv
    q_fwd = lambda w: PERMUTE(w, H, H)  # noqa: E731  (the converter: q with n_head)
    k_fwd = lambda w: PERMUTE(w, H, Hkv)  # noqa: E731  (k with n_head_kv)
    write_hf(os.path.join(out, "llama-hf"), llama, "llama", shards=2)
    write_gguf(os.path.join(out, "llama-f16.gguf"), llama, "llama", q_fwd, k_fwd)
    write_gguf(os.path.join(out, "llama-k-query-heads.gguf"), llama, "llama", q_fwd,
               lambda w: PERMUTE(w, H, H))  # k with the query head count (#2376)
    write_gguf(os.path.join(out, "llama-twice.gguf"), llama, "llama", lambda w: q_fwd(q_fwd(w)),
               lambda w: k_fwd(k_fwd(w)))
    write_gguf(os.path.join(out, "llama-missing.gguf"), llama, "llama", same, same)
    write_gguf(os.path.join(out, "llama-q8_0.gguf"), llama, "llama", q_fwd, k_fwd, (Q.Q8_0, Q.Q8_0))
    write_gguf(os.path.join(out, "llama-q4_0.gguf"), llama, "llama", q_fwd, k_fwd, (Q.Q4_0, Q.Q4_0))
    # A Q4_K_M-like mix: q in Q4_K, k in Q6_K.
    write_gguf(os.path.join(out, "llama-q4_k_m.gguf"), llama, "llama", q_fwd, k_fwd, (Q.Q4_K, Q.Q6_K))
    write_gguf(os.path.join(out, "llama-bf16-f32.gguf"), llama, "llama", q_fwd, k_fwd, (Q.BF16, Q.F32))
    # GQA 32/8 at d = 4 (hf-to-gguf = gguf-to-hf, twice = identity) and MHA 8/8 (the k bug = hf-to-gguf).
    gqa = Model(2, 32, 8, 4)
    write_hf(os.path.join(out, "gqa32-hf"), gqa, "llama")
    write_gguf(os.path.join(out, "gqa32.gguf"), gqa, "llama", lambda w: PERMUTE(w, 32, 32), lambda w: PERMUTE(w, 32, 8))
    mha = Model(3, 8, 8, 16)
    write_hf(os.path.join(out, "mha-hf"), mha, "llama")
    write_gguf(os.path.join(out, "mha-k-query-heads.gguf"), mha, "llama", lambda w: PERMUTE(w, 8, 8),
               lambda w: PERMUTE(w, 8, 8))
    # Qwen2 (NEOX: the converter does not permute), with q and k biases; and the permutation wrongly applied.
    qwen = Model(4, 8, 2, 16, bias=True)
    write_hf(os.path.join(out, "qwen2-hf"), qwen, "qwen2")
    write_gguf(os.path.join(out, "qwen2.gguf"), qwen, "qwen2", same, same)
    write_gguf(os.path.join(out, "qwen2-permuted.gguf"), qwen, "qwen2", lambda w: PERMUTE(w, 8, 8),
               lambda w: PERMUTE(w, 8, 2))
    # NORM in llama.cpp and never permuted by its converter, since Hugging Face already pairs them interleaved
    # (conversion/llama.py: Llama4Model sets undo_permute = False; conversion/deepseek.py: DeepseekV2Model's
    # modify_tensors never permutes q_proj nor kv_a_proj_with_mqa; llama.cpp de3ff815ea7d): the GGUF rows are the
    # HF rows, and the Llama permutation applied to them is the mistake.
    llama4 = Model(5, 8, 2, 16)
    write_hf(os.path.join(out, "llama4-hf"), llama4, "llama4_text")
    write_gguf(os.path.join(out, "llama4.gguf"), llama4, "llama4", same, same)
    write_gguf(os.path.join(out, "llama4-permuted.gguf"), llama4, "llama4", lambda w: PERMUTE(w, 8, 8),
               lambda w: PERMUTE(w, 8, 2))
    # DeepSeek-V2-Lite's shape (no q_lora_rank): q_proj holds per head qk_nope_head_dim then qk_rope_head_dim rows,
    # kv_a_proj_with_mqa kv_lora_rank rows then the shared k_pe's qk_rope_head_dim.
    ds = Model(6, 4, 4, 16)
    ds.kva = [np.random.default_rng(7).normal(0, 1 / np.sqrt(ds.width), (16 + 8, ds.width)).astype(np.float32)]
    write_hf(os.path.join(out, "deepseek2-hf"), ds, "deepseek_v2")
    write_gguf(os.path.join(out, "deepseek2.gguf"), ds, "deepseek2", same, same)
    write_gguf(os.path.join(out, "deepseek2-permuted.gguf"), ds, "deepseek2", lambda w: PERMUTE(w, 4, 4), same)
    # Phi-3 (NEOX in llama.cpp, rotate_half in HF: no permutation), q, k and v fused in one tensor on both sides
    # (HF qkv_proj, GGUF attn_qkv, rows q then k then v): split by the head counts; the Llama permutation applied
    # to its q and k rows is the mistake.
    phi3 = Model(8, 8, 2, 16)
    phi3.v = [np.random.default_rng(11).normal(0, 1 / np.sqrt(phi3.width), (2 * 16, phi3.width)).astype(np.float32)]
    write_hf(os.path.join(out, "phi3-hf"), phi3, "phi3")
    write_gguf(os.path.join(out, "phi3.gguf"), phi3, "phi3", same, same)
    write_gguf(os.path.join(out, "phi3-permuted.gguf"), phi3, "phi3", lambda w: PERMUTE(w, 8, 8),
               lambda w: PERMUTE(w, 8, 2))
    # query_key_value fused in each family's own row order on the Hugging Face side (fuse, checked by the family's
    # split ported above); on the GGUF side all q, then all k, then all v in attn_qkv, as llama.cpp's converter
    # writes them (conversion/gptneox.py GPTNeoXModel.modify_tensors and conversion/falcon.py
    # FalconModel.modify_tensors rewrite the rows so; conversion/chatglm.py keeps ChatGLM's, already so). All three
    # pair alike on both sides (NEOX and half; NORM and interleaved): no permutation expected. The "-k-permuted"
    # files have the Llama permutation applied to k's rows only.
    def fused_model(seed, family, H, G, bias=False, falcon_new=False):
        m = Model(seed, H, G, 16, width=H * 16, bias=bias)
        rng = np.random.default_rng(seed + 100)
        m.v = [rng.normal(0, 1 / np.sqrt(m.width), (G * 16, m.width)).astype(np.float32) for _ in range(m.layers)]
        m.vb = [rng.normal(0, 1, G * 16).astype(np.float32) for _ in range(m.layers)]
        m.family, m.falcon_new = family, falcon_new
        return m
    for name, m, arch in (("gptneox", fused_model(12, "gpt_neox", 8, 8, bias=True), "gptneox"),
                          ("falcon", fused_model(13, "falcon", 8, 2, falcon_new=True), "falcon"),
                          ("falcon-mq", fused_model(14, "falcon", 8, 1), "falcon"),
                          ("chatglm", fused_model(15, "chatglm", 8, 2, bias=True), "chatglm")):
        write_hf(os.path.join(out, f"{name}-hf"), m, m.family)
        write_gguf(os.path.join(out, f"{name}.gguf"), m, arch, same, same)
        write_gguf(os.path.join(out, f"{name}-k-permuted.gguf"), m, arch, same,
                   lambda w, G=m.n_head_kv: PERMUTE(w, G, G))
    # A query_key_value in a family whose table row says no order of its rows (Persimmon's name in a llama
    # checkpoint): refused, naming the tensor.
    unknown = fused_model(16, "gpt_neox", 8, 8)
    write_hf(os.path.join(out, "fused-unknown-hf"), unknown, "gpt_neox")
    with open(os.path.join(out, "fused-unknown-hf", "config.json"), "w") as f:
        json.dump(hf_config(Model(16, 8, 8, 16, width=128), "llama"), f, indent=1)
    tensors = fused_hf_tensors(unknown, "gpt_neox")
    write_safetensors(os.path.join(out, "fused-unknown-hf", "model.safetensors"),
                      {k.replace("gpt_neox.layers.", "model.layers.").replace(".attention.", ".self_attn."): v
                       for k, v in tensors.items()})
    # The judge of rope's decoders: gguf-py's dequantizer on the first two rows of every quantized q/k tensor.
    judge = {}
    for file in ("llama-q8_0.gguf", "llama-q4_0.gguf", "llama-q4_k_m.gguf", "llama-bf16-f32.gguf"):
        reader = gguf.GGUFReader(os.path.join(out, file))
        for t in reader.tensors:
            if t.name not in ("blk.0.attn_q.weight", "blk.0.attn_k.weight"):
                continue
            values = quants.dequantize(t.data, t.tensor_type).reshape(-1, llama.width)[:1].astype(np.float32)
            judge[f"{file}:{t.name}"] = {"type": t.tensor_type.name,
                                         "values": [float(x) for x in values.reshape(-1)]}
    with open(os.path.join(out, "dequantized.json"), "w") as f:
        json.dump(judge, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
