"""The example suite of docs/python.md: a rotate_half implementation written here (NumPy, Hugging Face's float32
path: inv_freq and positions in float32, m·θ in float32; with torch: tests/python/torch) passes every case of
rope.testing.cases, and three planted bugs are each caught and named: the layout, positions off by one, and
angles computed in bfloat16."""
import numpy as np
import pytest

import rope
import rope.testing
from rope.testing import to_bf16

SPEC = rope.Spec("llama-3.1-8b")


def numpy_kernel(layout="half", shift=0, bf16_angles=False):
    """q [..., seq, heads, d] and positions [..., seq] -> RoPE(q) in float32 (q's type for float16)."""
    theta = SPEC.inv_freq.astype(np.float32)

    def kernel(q, positions):
        x = np.asarray(q, dtype=np.float32)
        m = np.asarray(positions).astype(np.float32) + np.float32(shift)
        t = theta
        if bf16_angles:  # the bug: m and θ cast to bfloat16, their product rounded to bfloat16
            m, t = to_bf16(m), to_bf16(t)
        angles = m[..., None] * t
        if bf16_angles:
            angles = to_bf16(angles)
        cos, sin = np.cos(angles)[..., None, :], np.sin(angles)[..., None, :]  # over the heads
        half = x.shape[-1] // 2
        if layout == "half":  # rotate_half: pairs (i, i + d/2)
            a, b = x[..., :half], x[..., half:]
            out = np.concatenate([a * cos - b * sin, a * sin + b * cos], -1)
        else:  # the bug: pairs (2i, 2i + 1)
            a, b = x[..., 0::2], x[..., 1::2]
            out = np.empty_like(x)
            out[..., 0::2], out[..., 1::2] = a * cos - b * sin, a * sin + b * cos
        return out.astype(q.dtype) if np.asarray(q).dtype == np.float16 else out

    return kernel


@pytest.mark.parametrize("case", rope.testing.cases(SPEC), ids=str)
def test_correct_kernel_passes_every_case(case):
    rope.testing.assert_case(numpy_kernel(), case)


def test_the_cases_cover_the_public_bugs():
    ids = [str(c) for c in rope.testing.cases(SPEC)]
    assert ids == ["prefill", "long-positions", "batched-decode", "strided-q", "packed-sequences", "dtype-f16", "dtype-bf16"]
    long = next(c for c in rope.testing.cases(SPEC) if c.id == "long-positions")
    assert long.positions.max() > 131072 and 32768 in long.positions and 8192 in long.positions
    assert 65504 in long.positions and 131071 in long.positions and 4095 in long.positions  # issue 78 item 4
    strided = next(c for c in rope.testing.cases(SPEC) if c.id == "strided-q")
    assert not strided.q.flags["C_CONTIGUOUS"]
    gemma = [str(c) for c in rope.testing.cases("gemma-3-27b")]
    assert "layer-type-sliding_attention" in gemma or "layer-type-full_attention" in gemma
    assert "partial-rotary" in [str(c) for c in rope.testing.cases("gpt-j-6b")]


@pytest.mark.parametrize("bug, kernel, name", [
    ("layout", numpy_kernel(layout="interleaved"), "layout-swapped"),
    ("off-by-one positions", numpy_kernel(shift=1), "positions-plus-one"),
    ("bf16 angles", numpy_kernel(bf16_angles=True), "angles-bf16"),
])
def test_planted_bug_is_caught_by_name(bug, kernel, name):
    result = rope.testing.check_implementation(kernel, SPEC)
    assert not result.passed, bug
    assert result.report.matches == name, (bug, result.report.data["diagnosis"])
    assert result.diagnosis == result.report.diagnosis != ""
    with pytest.raises(AssertionError) as raised:
        rope.testing.assert_implementation(kernel, SPEC)
    assert result.report.diagnosis in str(raised.value)


def test_correct_kernel_passes_check_implementation():
    result = rope.testing.check_implementation(numpy_kernel(), SPEC)
    assert result.passed, str(result)
