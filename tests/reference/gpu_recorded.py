#!/usr/bin/python3
"""RoPE as an NVIDIA H200 computed it: the dumps of tests/data/gpu/, recorded by tests/device/record.py (CUDA 13.0,
PyTorch 2.11.0+cu130, transformers 5.17.0; tests/data/gpu/README.md), as corpus rows with their truth. Nothing here
needs a GPU: the device's outputs are committed, and this script states what each one is and what check must say.

One input, q [272, 2, 128] float32 at positions 0 … 15 and 130816 … 131071, θ_i = 1 / 10000^(2i/128) as
transformers' LlamaRotaryEmbedding computes inv_freq (float32), half layout:

    cuda_intrinsic    tests/device/fast_math.cu's __sinf/__cosf (sinf/cosf under nvcc --use_fast_math give the same
                      bits): its SASS multiplies the angle by fl32(1/2π) rounding toward zero (FMUL.RZ), then
                      MUFU.SIN/MUFU.COS. Held to --angles float64: angles-fast-math, toward zero, its bias the
                      shortfall measured below; under the float32 angle model it passes
    cuda_sinpi        sincospif of the angle times fl32(1/π), the quotient rounded to nearest: angles-fast-math
                      with the product rounded to nearest (bias fl32(1/π)'s shortfall, −4.03e-8); passes as float32
    cuda_accurate     sincosf without --use_fast_math, bit-equal to transformers' LlamaRotaryEmbedding and
                      apply_rotary_pos_emb on the same GPU in float32: passes as float32; held to --angles float64,
                      angles-float32 (the error is the float32 angle's, nothing else)
    torch_compile     the same PyTorch function through torch.compile (Inductor's Triton kernel: inv_freq by
                      libdevice.pow, sin and cos by libdevice): passes as float32
    torch_bf16        transformers' rotation on the GPU with q in bfloat16 (cos and sin in float32, cast to bfloat16):
                      passes as bf16

Gradients (tests/device/record_grad.py): an upstream gradient g [8, 4, 128] float32 at positions 0, 1, 7, 4095, 4096,
32768, 65535, 131071, through transformers' rotary class and apply_rotary_pos_emb on the GPU, y.backward(g), the dump
x.grad; checked with --grad (each passes):

    grad_llama          LlamaRotaryEmbedding, base 10000, float32
    grad_llama_bf16     the same in bfloat16 (g rounded to bfloat16 to nearest even, as torch's .bfloat16() did)
    grad_qwen2_yarn     Qwen2's rotary class, YaRN factor 4 from 32768 at base 1e6 (its attention scaling 1.1386 in
                        the backward too), checked with the same config
    grad_llama_compile  the forward through torch.compile (Inductor's generated backward kernel)

The bias stated for the fast units is measured here from the dump alone: per pair the least-squares slope, through 0,
of the phase error (the dump's turn of the pair less m·θ_i in float64, wrapped) against m·θ_i over the 256 largest
positions, less θ_i's own float32 rounding (the recorded θ_i over the exact one, less 1); its median over the pairs.

Writes DIR/q_bf16.npy (q rounded to bfloat16, to nearest even, as torch's .bfloat16() did on the device: the same
bits) and DIR/manifest.json. Usage: gpu_recorded.py DIR
"""
import json
import os
import sys

import numpy as np

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "gpu")
BASE, D = 10000.0, 128


def bf16_bits(x):
    u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def shortfall(q, y, positions):
    """The median over pairs of the phase error's slope against m·θ_i (float64 θ), less θ_i's float32 rounding."""
    exact = 1.0 / BASE ** (np.arange(0, D, 2) / D)
    theta32 = (1.0 / (BASE ** (np.arange(0, D, 2, dtype=np.int64).astype(np.float32) / D))).astype(np.float32)
    big = positions >= positions.max() - 255
    phi = positions[big].astype(np.float64)[:, None, None] * exact[None, None, :]
    zx = q[big][..., :D // 2].astype(np.float64) + 1j * q[big][..., D // 2:]
    zy = y[big][..., :D // 2].astype(np.float64) + 1j * y[big][..., D // 2:]
    e = np.remainder(np.angle(zy / zx) - phi + np.pi, 2 * np.pi) - np.pi
    phi = np.broadcast_to(phi, e.shape)
    slope = (e * phi).sum((0, 1)) / (phi * phi).sum((0, 1))
    return float(np.median(slope - (theta32.astype(np.float64) / exact - 1)))


def main(out):
    os.makedirs(out, exist_ok=True)
    path = lambda name: os.path.abspath(os.path.join(DATA, name + ".npy"))
    q, positions = np.load(path("q")), np.load(path("positions"))
    np.save(os.path.join(out, "q_bf16.npy"), bf16_bits(q))
    common = ["--positions", path("positions"), "--base", "10000", "--layout", "half"]
    half = {"layout": "half", "rotary_offset": 0, "rotary_dim": 128}
    cases = []

    def case(name, after, args, exit, matches=None, found=None, before=None, identify=None):
        cases.append({"name": name, "args": ["--before", before or path("q"), "--after", after] + common + args,
                      "exit": exit, "matches": matches, "found": found or {}, "found_rel": 0.05,
                      "identify": identify})

    intrinsic, sinpi = np.load(path("cuda_intrinsic")), np.load(path("cuda_sinpi"))
    case("cuda_intrinsic_float64", path("cuda_intrinsic"), ["--angles", "float64"], 1, "angles-fast-math",
         {"bias": shortfall(q, intrinsic, positions), "toward_zero": 1.0})
    case("cuda_intrinsic", path("cuda_intrinsic"), ["--angles", "float32"], 0, identify=half)
    case("cuda_sinpi_float64", path("cuda_sinpi"), ["--angles", "float64"], 1, "angles-fast-math",
         {"bias": shortfall(q, sinpi, positions)})
    case("cuda_sinpi", path("cuda_sinpi"), ["--angles", "float32"], 0, identify=half)
    case("cuda_accurate_float64", path("cuda_accurate"), ["--angles", "float64"], 1, "angles-float32")
    case("cuda_accurate", path("cuda_accurate"), ["--angles", "float32"], 0, identify=half)
    case("torch_compile", path("torch_compile_f32"), [], 0, identify=half)
    case("torch_bf16", path("torch_cuda_bf16"), ["--bf16-bits"], 0, before=os.path.join(out, "q_bf16.npy"),
         identify=half)
    grad_positions = ["--positions", "0,1,7,4095,4096,32768,65535,131071"]
    g_bf16 = os.path.join(out, "grad_g_bf16.npy")
    np.save(g_bf16, bf16_bits(np.load(path("grad_g"))))
    qwen = os.path.join(out, "qwen2_yarn.json")
    with open(qwen, "w") as f:
        json.dump({"model_type": "qwen2", "hidden_size": 512, "num_attention_heads": 4, "num_key_value_heads": 4,
                   "max_position_embeddings": 131072,
                   "rope_parameters": {"rope_type": "yarn", "rope_theta": 1000000.0, "factor": 4.0,
                                       "original_max_position_embeddings": 32768}}, f)
    for name, after, before, args in (
            ("grad_llama", "grad_llama_f32", path("grad_g"), ["--base", "10000", "--layout", "half"]),
            ("grad_llama_bf16", "grad_llama_bf16", g_bf16, ["--base", "10000", "--layout", "half", "--bf16-bits"]),
            ("grad_qwen2_yarn", "grad_qwen2_yarn_f32", path("grad_g"), ["--config", qwen]),
            ("grad_llama_compile", "grad_llama_compile_f32", path("grad_g"), ["--base", "10000", "--layout", "half"])):
        cases.append({"name": name, "args": ["--grad", "--before", before, "--after", path(after)] + grad_positions
                      + args, "exit": 0, "matches": None, "found": {}, "found_rel": 0.05, "identify": None})
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"cases": cases}, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
