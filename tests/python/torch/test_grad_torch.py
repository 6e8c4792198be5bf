"""rope.testing.assert_rope_grad on autograd tensors (issue 66; CTest python.torch): a RoPE written as HF writes it
(modeling_llama.py rotate_half and apply_rotary_pos_emb, transformers at 5dd4a63548857797727ae73eeb6a6e886ea02a3e), its
gradient from PyTorch's autograd, float32 and bfloat16, positions to 131 071: passes. A custom autograd Function whose
backward applies the forward rotation, and one with no backward, fail with their diagnosis."""
import numpy as np
import pytest

try:
    import torch
except ImportError as error:  # not a skip: this test exists to run the torch paths
    raise ImportError("python.torch needs PyTorch: apt-get install python3-torch (scripts/install-deps.sh torch), "
                      "or configure with -DROPE_TORCH_TESTS=OFF") from error

import rope
import rope.testing

SPEC = rope.Spec(head_dim=64, base=10000, layout="half")
POSITIONS = torch.tensor([0, 1, 7, 4095, 4096, 32768, 65535, 131071])


def cos_sin(dtype):
    inv = 1.0 / (10000 ** (torch.arange(0, 64, 2, dtype=torch.int64).float() / 64))
    freqs = POSITIONS.float()[:, None] * inv[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().to(dtype)[:, None, :], emb.sin().to(dtype)[:, None, :]


def rotate_half(x):
    return torch.cat((-x[..., 32:], x[..., :32]), dim=-1)


def hf_rope(x):
    cos, sin = cos_sin(x.dtype)
    return x * cos + rotate_half(x) * sin


class ForwardAsBackward(torch.autograd.Function):
    """A fused kernel whose backward turns the gradient by R(m) instead of R(m)ᵀ (sin's sign not flipped)."""

    @staticmethod
    def forward(ctx, x):
        return hf_rope(x)

    @staticmethod
    def backward(ctx, g):
        return hf_rope(g)


class Detached(torch.autograd.Function):
    """A kernel registered without a gradient for its input (candle #3568's fused rope)."""

    @staticmethod
    def forward(ctx, x):
        return hf_rope(x)

    @staticmethod
    def backward(ctx, g):
        return None


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["f32", "bf16"])
def test_autograd_gradient_passes(dtype):
    torch.manual_seed(66)
    x = torch.randn(8, 4, 64).to(dtype).requires_grad_()
    g = torch.randn(8, 4, 64).to(dtype)
    hf_rope(x).backward(g)
    report = rope.testing.assert_rope_grad(g, x.grad, SPEC, POSITIONS)
    assert report.data["mode"] == "grad"
    assert report.data["dtype"] == ("f32" if dtype == torch.float32 else "bf16")


def test_forward_rotation_as_backward_is_named():
    torch.manual_seed(5)
    x = torch.randn(8, 4, 64).requires_grad_()
    g = torch.randn(8, 4, 64)
    ForwardAsBackward.apply(x).backward(g)
    with pytest.raises(AssertionError, match="forward rotation"):
        rope.testing.assert_rope_grad(g, x.grad, SPEC, POSITIONS)


def test_missing_gradient_is_named():
    x = torch.randn(8, 4, 64).requires_grad_()
    Detached.apply(x).backward(torch.randn(8, 4, 64))
    with pytest.raises(AssertionError, match="None"):
        rope.testing.assert_rope_grad(torch.randn(8, 4, 64), x.grad, SPEC, POSITIONS)
