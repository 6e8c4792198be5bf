"""The module with PyTorch tensors (Debian's python3-torch, CPU only): CTest python.torch, registered when the
tree is configured with ROPE_TORCH_TESTS (on by default where torch imports). It requires torch: without it the
test fails, saying what to install, instead of skipping. float32 and float16 tensors are read through NumPy
(__array__, and DLPack for objects that have only __dlpack__); bfloat16, which NumPy has no type for and whose
DLPack export NumPy 1.24 cannot import ("Unsupported dtype in DLTensor"), as its 16-bit patterns, exactly."""
import numpy as np
import pytest

try:
    import torch
except ImportError as error:  # not a skip: this test exists to run the torch paths
    raise ImportError("python.torch needs PyTorch: apt-get install python3-torch (scripts/install-deps.sh torch), "
                      "or configure with -DROPE_TORCH_TESTS=OFF") from error

import rope
import rope.testing
from conftest import numpy_rope

SPEC = rope.Spec("llama-3.1-8b")


class DLPackOnly:
    """A tensor of another framework: only the DLPack protocol, no __array__."""

    def __init__(self, tensor):
        self.tensor = tensor

    def __dlpack__(self, stream=None):
        return self.tensor.__dlpack__()

    def __dlpack_device__(self):
        return self.tensor.__dlpack_device__()


def hf_kernel(q, positions):
    """Hugging Face's LlamaRotaryEmbedding + apply_rotary_pos_emb (transformers v4.46.0,
    src/transformers/models/llama/modeling_llama.py): inv_freq and positions in float32, cos and sin cast to q's
    type, rotate_half."""
    theta = torch.tensor(SPEC.inv_freq, dtype=torch.float32)
    angles = positions.to(torch.float32)[..., None] * theta
    emb = torch.cat([angles, angles], -1)[..., None, :]
    half = q.shape[-1] // 2
    rotated = torch.cat([-q[..., half:], q[..., :half]], -1)
    return q * emb.cos().to(q.dtype) + rotated * emb.sin().to(q.dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.float64])
def test_reference_of_a_tensor_is_the_reference_of_its_values(dtype):
    q = torch.randn(8, 2, 128, generator=torch.Generator().manual_seed(1)).to(dtype)
    want = rope.reference(q.numpy(), np.arange(8), SPEC)
    assert rope.reference(q, torch.arange(8), SPEC).tolist() == want.tolist()
    assert rope.reference(DLPackOnly(q), DLPackOnly(torch.arange(8)), SPEC).tolist() == want.tolist()
    # Hugging Face's formula in float64, the independent check of the values (a few ulps apart).
    np.testing.assert_allclose(want, numpy_rope(q.double().numpy().transpose(1, 0, 2), np.arange(8),
                                                SPEC.inv_freq).transpose(1, 0, 2), rtol=0, atol=1e-12)


def test_strided_and_grad_tensors():
    qkv = torch.randn(16, 2, 3 * 128, requires_grad=True)
    q = qkv[:, :, :128]  # a view with strides, attached to autograd
    assert not q.is_contiguous()
    got = rope.reference(q, torch.arange(16), SPEC)
    assert got.tolist() == rope.reference(q.detach().contiguous().numpy(), np.arange(16), SPEC).tolist()


def test_bf16_tensor_is_read_as_its_bit_patterns():
    x = torch.randn(6, 128, generator=torch.Generator().manual_seed(2)).to(torch.bfloat16)
    bits = x.view(torch.int16).numpy()
    want = rope.reference(bits, np.arange(6), SPEC, dtype="bf16")
    assert rope.reference(x, torch.arange(6), SPEC).tolist() == want.tolist()
    # The values: bf16 is the top half of a float32.
    as_f32 = (bits.astype(np.uint16).astype(np.uint32) << 16).view(np.float32)
    assert want.tolist() == rope.reference(as_f32, np.arange(6), SPEC).tolist()


def test_bf16_through_dlpack_alone_is_a_clear_error():
    x = torch.randn(6, 128).to(torch.bfloat16)
    with pytest.raises(ValueError, match=r'^x: NumPy cannot read this DLPack tensor .*dtype="bf16", or a float32 copy$'):
        rope.reference(DLPackOnly(x), np.arange(6), SPEC)
    with pytest.raises(ValueError, match="^positions: a bfloat16 tensor cannot hold positions exactly"):
        rope.reference(torch.randn(6, 128), torch.arange(6).to(torch.bfloat16), SPEC)


@pytest.mark.parametrize("dtype, name", [(torch.float32, "f32"), (torch.float16, "f16"), (torch.bfloat16, "bf16")])
def test_hf_kernel_passes_in_each_type(dtype, name):
    q = torch.randn(64, 2, 128, generator=torch.Generator().manual_seed(3)).to(dtype)
    positions = torch.arange(0, 64 * 509, 509)
    report = rope.check(q, hf_kernel(q, positions), positions, SPEC)
    assert report.passed, report.summary()
    assert report.data["dtype"] == name  # the tolerance of the tensor's own type


def test_bf16_angles_are_caught_by_name():
    """The bf16-angles bug (positions × θ computed in bfloat16): the diagnosis names it."""
    q = torch.randn(64, 2, 128, generator=torch.Generator().manual_seed(4)).to(torch.bfloat16)
    positions = torch.arange(4000, 4064)

    def bf16_angles(q, positions):
        theta = torch.tensor(SPEC.inv_freq, dtype=torch.float32).to(torch.bfloat16)
        angles = (positions.to(torch.bfloat16)[..., None] * theta).float()
        emb = torch.cat([angles, angles], -1)[..., None, :]
        rotated = torch.cat([-q[..., 64:], q[..., :64]], -1)
        return q * emb.cos().to(q.dtype) + rotated * emb.sin().to(q.dtype)

    report = rope.check(q, bf16_angles(q, positions), positions, SPEC)
    assert not report.passed and report.matches == "angles-bf16", report.summary()


def test_check_implementation_with_torch_tensors():
    result = rope.testing.check_implementation(hf_kernel, SPEC, framework="torch")
    assert result.passed, str(result)
    assert "dtype-bf16" in result.cases_run and "dtype-f16" in result.cases_run


def test_a_torch_layout_bug_is_named():
    def interleaved(q, positions):  # GPT-J's pairs (2i, 2i+1) where Llama pairs (i, i + d/2)
        theta = torch.tensor(SPEC.inv_freq, dtype=torch.float32)
        angles = positions.to(torch.float32)[..., None, None] * theta
        x = q.float()
        a, b = x[..., 0::2], x[..., 1::2]
        out = torch.stack([a * angles.cos() - b * angles.sin(), a * angles.sin() + b * angles.cos()], -1)
        return out.flatten(-2).to(q.dtype)

    result = rope.testing.check_implementation(interleaved, SPEC, framework="torch")
    assert not result.passed and result.report.matches == "layout-swapped", str(result)


def test_positions_off_by_one_are_named():
    def off_by_one(q, positions):  # positions counted from 1 (a cache offset added twice)
        return hf_kernel(q, positions + 1)

    result = rope.testing.check_implementation(off_by_one, SPEC, framework="torch")
    assert not result.passed and result.report.matches == "positions-plus-one", str(result)


def test_a_kernel_with_its_table_in_torch_tensors():
    """A kernel handed flash-attn's tables [seq, rot/2] as torch tensors, its dumps in bfloat16: rope.check(...,
    cos=, sin=) reads each tensor as it is (bfloat16 through its 16-bit view) and passes the table's own rotation;
    sin's sign flipped is named."""
    torch.manual_seed(0)
    seq, heads, d = 16, 2, 64
    inv = 1.0 / (10000.0 ** (torch.arange(0, d, 2, dtype=torch.float32) / d))
    freqs = torch.outer(torch.arange(seq, dtype=torch.float32), inv)
    cos, sin = freqs.cos().to(torch.bfloat16), freqs.sin().to(torch.bfloat16)
    x = torch.randn(seq, heads, d).to(torch.bfloat16)

    def apply(x, cos, sin):  # rotate_half on [seq, heads, d], computed in float32 and stored in bfloat16
        c, s = cos.float()[:, None, :], sin.float()[:, None, :]
        x1, x2 = x.float()[..., : d // 2], x.float()[..., d // 2:]
        return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1).to(torch.bfloat16)

    positions = torch.arange(seq)
    assert rope.check(x, apply(x, cos, sin), positions, cos=cos, sin=sin).passed
    report = rope.check(x, apply(x, cos, -sin), positions, cos=cos, sin=sin)
    assert not report.passed and report.data["diagnosis"]["matches"] == "rotation-reversed"
