#!/usr/bin/env python3
"""Records RoPE as a CUDA device computes it, for tests/data/gpu/ (run on a machine with an NVIDIA GPU, nvcc and
PyTorch with CUDA; nothing here runs in CI, which reads the recorded files through tests/reference/gpu_recorded.py).

One input: q [272, 2, 128] float32 (a fixed seed), positions 0 … 15 and 130816 … 131071, θ_i = 1 / 10000^(2i/128) as
Hugging Face's LlamaRotaryEmbedding computes inv_freq (torch, float32, on the CPU), half layout. Outputs:

  cuda_intrinsic         tests/device/fast_math.cu, __sinf/__cosf of the float32 angle
  cuda_fastmath_sincosf  the same file built with --use_fast_math, its sincosf (nvcc makes it __sinf/__cosf)
  cuda_sinpi             sincospif of the angle times fl32(1/π)
  cuda_accurate          sincosf without --use_fast_math
  torch_cuda_f32         transformers' LlamaRotaryEmbedding and apply_rotary_pos_emb on the GPU, float32
  torch_cuda_bf16        the same with q in bfloat16 (its bits as uint16)
  torch_compile_f32      the same function through torch.compile (Inductor's generated Triton kernel) on the GPU

and sass.txt (the intrinsic kernel's machine code, cuobjdump -sass), inductor.txt (the lines of Inductor's code that
take sin and cos), versions.txt. Usage: record.py OUT_DIR
"""
import json
import os
import subprocess
import sys
import tempfile
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
S_SMALL, S_LARGE, H, D, BASE = 16, 256, 2, 128, 10000.0


def main(out):
    import torch

    positions = np.concatenate([np.arange(S_SMALL), np.arange(131072 - S_LARGE, 131072)]).astype(np.int32)
    rng = np.random.default_rng(20261129)
    q = rng.standard_normal((len(positions), H, D)).astype(np.float32)
    theta = (1.0 / (BASE ** (torch.arange(0, D, 2, dtype=torch.int64).float() / D))).numpy().astype(np.float32)
    arrays = {"q": q, "positions": positions.astype(np.int64), "theta": theta}
    log = []

    def step(name, fn):
        try:
            fn()
            log.append(f"{name}: ok")
        except Exception:
            log.append(f"{name}: FAILED\n{traceback.format_exc()}")

    def cuda():
        with tempfile.TemporaryDirectory() as tmp:
            q.tofile(os.path.join(tmp, "q.f32"))
            positions.tofile(os.path.join(tmp, "positions.i32"))
            theta.tofile(os.path.join(tmp, "theta.f32"))
            for flags, tag in (([], "plain"), (["--use_fast_math"], "fast")):
                exe = os.path.join(tmp, f"fast_math_{tag}")
                subprocess.run(["nvcc", "-O3", "-arch=sm_90", *flags, "-o", exe, os.path.join(HERE, "fast_math.cu")],
                               check=True)
                od = os.path.join(tmp, tag)
                os.makedirs(od)
                subprocess.run([exe, tmp, od, str(len(positions)), str(H), str(D)], check=True)
                for kind in ("intrinsic", "sinpi", "accurate"):
                    arrays[f"{tag}_{kind}"] = np.fromfile(os.path.join(od, f"{kind}.f32"), np.float32).reshape(q.shape)
                sass = subprocess.run(["cuobjdump", "-sass", exe], check=True, capture_output=True, text=True).stdout
                with open(os.path.join(out, f"sass_{tag}.txt"), "w") as f:
                    f.write(sass)
        arrays["cuda_intrinsic"] = arrays.pop("plain_intrinsic")
        arrays["cuda_sinpi"] = arrays.pop("plain_sinpi")
        arrays["cuda_accurate"] = arrays.pop("plain_accurate")
        arrays["cuda_fastmath_sincosf"] = arrays.pop("fast_accurate")
        arrays["fast_intrinsic_again"] = arrays.pop("fast_intrinsic")
        arrays["fast_sinpi"] = arrays.pop("fast_sinpi")

    def hf():
        from transformers import LlamaConfig
        from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb
        cfg = LlamaConfig(hidden_size=H * D, num_attention_heads=H, num_key_value_heads=H, head_dim=D,
                          max_position_embeddings=131072,
                          rope_parameters={"rope_type": "default", "rope_theta": BASE})
        cfg.rope_parameters = {"rope_type": "default", "rope_theta": BASE}
        ids = torch.from_numpy(positions.astype(np.int64))[None, :]

        def run(x, dev):
            rope = LlamaRotaryEmbedding(cfg, device=dev)
            cos, sin = rope(x, ids.to(dev))
            return apply_rotary_pos_emb(x, x, cos, sin)[0]

        xt = torch.from_numpy(q).permute(1, 0, 2)[None]  # [1, H, S, D], as the attention layer holds q
        arrays["hf_inv_freq_cuda"] = LlamaRotaryEmbedding(cfg, device="cuda").inv_freq.cpu().numpy()
        arrays["torch_cpu_f32"] = run(xt, "cpu")[0].permute(1, 0, 2).numpy()
        arrays["torch_cuda_f32"] = run(xt.cuda(), "cuda")[0].permute(1, 0, 2).cpu().numpy()
        yb = run(xt.cuda().bfloat16(), "cuda")[0].permute(1, 0, 2).contiguous().cpu()
        arrays["torch_cuda_bf16"] = yb.view(torch.int16).numpy().view(np.uint16)
        arrays["q_bf16"] = xt[0].permute(1, 0, 2).contiguous().bfloat16().view(torch.int16).numpy().view(np.uint16)

        from torch._inductor.utils import run_and_get_code
        compiled = torch.compile(lambda x: run(x, "cuda"))
        y, code = run_and_get_code(compiled, xt.cuda())
        arrays["torch_compile_f32"] = y[0].permute(1, 0, 2).cpu().numpy()
        with open(os.path.join(out, "inductor.txt"), "w") as f:
            f.write("\n\n".join(code))

    step("cuda", cuda)
    step("hf", hf)
    if os.environ.get("RECORD_SELF_TEST"):  # the summary below on a rotation computed here in float64
        ph = positions.astype(np.float64)[:, None] * theta.astype(np.float64)[None, :]
        z = (q[..., :D // 2] + 1j * q[..., D // 2:]) * np.exp(1j * ph)[:, None, :]
        arrays["self_test"] = np.concatenate([z.real, z.imag], axis=-1).astype(np.float32)
    np.savez(os.path.join(out, "recorded.npz"), **arrays)
    try:
        import transformers
        tv = transformers.__version__
    except ImportError:
        tv = None
    versions = {"torch": torch.__version__, "cuda": torch.version.cuda, "transformers": tv,
                "device": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
                "nvcc": subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout.strip()}
    with open(os.path.join(out, "versions.txt"), "w") as f:
        f.write(json.dumps(versions, indent=1) + "\n" + "\n".join(log) + "\n")
    print("\n".join(log))
    print(json.dumps(versions, indent=1))
    # A first look: per output, the largest error against the float64 rotation, and the fast unit's slope statistic.
    pos = positions.astype(np.float64)
    phi = pos[:, None] * theta.astype(np.float64)[None, :]
    big = positions >= 131072 - S_LARGE
    for name, y in arrays.items():
        if name in ("q", "positions", "theta", "q_bf16", "hf_inv_freq_cuda") or y.shape != q.shape:
            continue
        if y.dtype == np.uint16:
            y = (y.astype(np.uint32) << 16).view(np.float32)
        zx = q[..., :D // 2].astype(np.float64) + 1j * q[..., D // 2:]
        zy = y[..., :D // 2].astype(np.float64) + 1j * y[..., D // 2:]
        e = np.angle(zy / zx) - phi[:, None, :]
        e = (e + np.pi) % (2 * np.pi) - np.pi
        eb, pb = e[big], np.broadcast_to(phi[big][:, None, :], e[big].shape)
        slope = (eb * pb).sum((0, 1)) / (pb * pb).sum((0, 1))
        exact = np.exp(1j * phi)[:, None, :] * zx
        print(f"{name:24s} max|y - exact| {np.abs(zy - exact).max():.3e}  median slope {np.median(slope):+.4e}  "
              f"bitwise = cuda_intrinsic: {bool(np.array_equal(y, arrays.get('cuda_intrinsic', y * 0)))}")


if __name__ == "__main__":
    main(sys.argv[1])
