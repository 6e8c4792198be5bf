#!/usr/bin/env python3
"""Records RoPE's gradient as PyTorch's autograd computes it on a CUDA device through transformers' own rotary code
(run where a GPU, PyTorch and transformers are; CI reads the record, tests/data/gpu/grad_*.npy, through
tests/reference/gpu_recorded.py). One upstream gradient g [8, 4, 128] (a fixed seed) at positions 0, 1, 7, 4095,
4096, 32768, 65535, 131071; x random; y = apply_rotary_pos_emb(x, x, cos, sin)[0] with cos, sin from the model's
rotary class; y.backward(g); the dump is x.grad:

  grad_llama_f32           LlamaRotaryEmbedding (base 10000), float32, eager
  grad_llama_bf16          the same with x in bfloat16 (cos and sin cast to bfloat16), bits as uint16
  grad_qwen2_yarn_f32      Qwen2 with rope_parameters yarn factor 4 from 32768 (attention scaling 0.1·ln 4 + 1)
  grad_llama_compile_f32   the forward through torch.compile (Inductor writes the backward's fused Triton kernel)

Writes OUT_DIR/grad.npz (g, g_bf16 bits, positions and each dump), OUT_DIR/grad.txt. Usage: record_grad.py OUT_DIR
"""
import json
import os
import sys

import numpy as np
import torch

POSITIONS = [0, 1, 7, 4095, 4096, 32768, 65535, 131071]
H, D = 4, 128


def main(out):
    from transformers import LlamaConfig, Qwen2Config
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb
    from transformers.models.qwen2.modeling_qwen2 import Qwen2RotaryEmbedding
    rng = np.random.default_rng(20261130)
    g = rng.standard_normal((len(POSITIONS), H, D)).astype(np.float32)
    x = rng.standard_normal((len(POSITIONS), H, D)).astype(np.float32)
    ids = torch.tensor(POSITIONS)[None].cuda()
    llama = LlamaConfig(hidden_size=H * D, num_attention_heads=H, num_key_value_heads=H, head_dim=D,
                        max_position_embeddings=131072, rope_parameters={"rope_type": "default", "rope_theta": 1e4})
    qwen = Qwen2Config(hidden_size=H * D, num_attention_heads=H, num_key_value_heads=H, max_position_embeddings=131072,
                       rope_parameters={"rope_type": "yarn", "rope_theta": 1e6, "factor": 4.0,
                                        "original_max_position_embeddings": 32768})
    arrays = {"g": g, "positions": np.array(POSITIONS, np.int64)}
    lines = []

    def grad(rope, dtype, compile_it=False):
        xt = torch.from_numpy(x).permute(1, 0, 2)[None].cuda().to(dtype).requires_grad_(True)
        gt = torch.from_numpy(g).permute(1, 0, 2)[None].cuda().to(dtype)

        def forward(t):
            cos, sin = rope(t, ids)
            return apply_rotary_pos_emb(t, t, cos, sin)[0]

        f = torch.compile(forward) if compile_it else forward
        y = f(xt)
        y.backward(gt)
        return xt.grad[0].permute(1, 0, 2).contiguous().cpu(), float(getattr(rope, "attention_scaling", 1.0))

    r_llama = LlamaRotaryEmbedding(llama).cuda()
    r_qwen = Qwen2RotaryEmbedding(qwen).cuda()
    for name, rope, dtype, comp in (("grad_llama_f32", r_llama, torch.float32, False),
                                    ("grad_llama_bf16", r_llama, torch.bfloat16, False),
                                    ("grad_qwen2_yarn_f32", r_qwen, torch.float32, False),
                                    ("grad_llama_compile_f32", r_llama, torch.float32, True)):
        gx, a = grad(rope, dtype, comp)
        arrays[name] = gx.view(torch.int16).numpy().view(np.uint16) if dtype == torch.bfloat16 else gx.numpy()
        lines.append(f"{name}: attention scaling {a}")
    arrays["g_bf16"] = torch.from_numpy(g).bfloat16().view(torch.int16).numpy().view(np.uint16)
    np.savez(os.path.join(out, "grad.npz"), **arrays)
    import transformers
    lines.insert(0, json.dumps({"torch": torch.__version__, "transformers": transformers.__version__,
                                "device": torch.cuda.get_device_name(0)}))
    with open(os.path.join(out, "grad.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1])
