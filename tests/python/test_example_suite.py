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


@pytest.mark.parametrize("dtype, scale", [("bf16", 1.05), ("f32", 1.05), ("bf16", 1.0)])
def test_each_test_has_its_own_ratio(dtype, scale):
    # Issue 78 item 7: HF's rotate_half in float64 (NumPy alone), the output times `scale`, stored in the dump's type.
    # (N1)'s ratio on every pair is |s − 1|·‖x‖ / (2·(ε_T + ε_A)·‖x‖): 0.05 / (2·(2^-7 + 2^-23)) = 3.2 in bf16, within
    # 0.25 (the bf16 rounding of the output moves a pair's norm by at most 2^-8 of it: 2^-8 / (2·2^-7) = 0.25).
    rng = np.random.default_rng(78)
    d, pos = 64, np.arange(32)
    q = rng.standard_normal((32, 2, d)).astype(np.float32)
    if dtype == "bf16":
        q = to_bf16(q)
    th = 10000.0 ** (-np.arange(0, d, 2) / d)
    ang = pos[:, None] * th[None, :]
    cos, sin = np.cos(np.concatenate([ang, ang], -1))[:, None], np.sin(np.concatenate([ang, ang], -1))[:, None]
    x = q.astype(np.float64)
    y = scale * (x * cos + np.concatenate([-x[..., d // 2:], x[..., :d // 2]], -1) * sin)
    y = to_bf16(y.astype(np.float32)) if dtype == "bf16" else y.astype(np.float32)
    report = rope.check(q, y, pos, {"head_dim": d, "rope_theta": 10000}, dtype=dtype)
    eps = {"bf16": 2.0 ** -7, "f32": 2.0 ** -23}[dtype]
    n1 = abs(scale - 1) / (2 * (eps + 2.0 ** -23))
    if scale == 1.0:
        assert report.passed and report.norm_ratio is None and report.element_ratio == report.max_ratio <= 1
        return
    assert report.norm_ratio == (pytest.approx(n1, abs=0.25) if dtype == "bf16" else pytest.approx(n1, rel=1e-4))
    if dtype == "bf16":  # within (C1) element by element: the pair norms are the comparison
        assert report.element_ratio <= 1 < report.max_ratio == report.norm_ratio
    else:
        assert report.element_ratio == report.max_ratio > 1
    assert report.matches == "norm-scaled"
