"""rope.check(grad=True), rope.check(shift=δ) and rope.testing.assert_rope_grad (issue 66) on the dumps of
tests/reference/grad_shift.py: gradients of PyTorch's autograd through HF's rotate_half, K caches shifted by NumPy, and
the planted mistakes, each written by code independent of rope's. The same verdicts as rope check --grad / --shift
(tests/analysis/check/test_check_mode.cpp)."""
import numpy as np
import pytest

import rope
import rope.testing

POSITIONS = np.array([0, 1, 7, 4095, 4096, 32768, 65535, 131071])
YARN = dict(scaling="yarn", factor=4, original_max_position_embeddings=4096)


@pytest.fixture(scope="module")
def dumps(root):
    folder = root / "tests" / "reference" / "grad_shift"
    return lambda name: np.load(folder / f"{name}.npy")


def test_grad_passes_autograd_and_names_the_forward_rotation(dumps):
    spec = rope.Spec(head_dim=64, base=10000, layout="half")
    g = dumps("grad_half_default_f32_g")
    report = rope.check(g, dumps("grad_half_default_f32_gx"), POSITIONS, spec, grad=True)
    assert report.passed, report.summary()
    assert report.data["mode"] == "grad"
    wrong = rope.check(g, dumps("grad_planted_forward_rotation"), POSITIONS, spec, grad=True)
    assert not wrong.passed
    assert wrong.data["diagnosis"]["matches"] == "rotation-reversed"
    assert "transpose" in wrong.diagnosis
    zh = rope.check(g, dumps("grad_planted_forward_rotation"), POSITIONS, spec, grad=True, lang="zh")
    assert "转置" in zh.diagnosis


def test_grad_in_bf16_bit_patterns(dumps):
    spec = rope.Spec(head_dim=64, base=10000, layout="half")
    g, gx = dumps("grad_half_default_bf16_g"), dumps("grad_half_default_bf16_gx")
    assert rope.check(g, gx, POSITIONS, spec, dtype="bf16", grad=True).passed


def test_assert_rope_grad(dumps):
    spec = rope.Spec(head_dim=64, base=10000, layout="half")
    g = dumps("grad_half_default_f32_g")
    rope.testing.assert_rope_grad(g, dumps("grad_half_default_f32_gx"), spec, POSITIONS)
    with pytest.raises(AssertionError, match="heads 2"):
        rope.testing.assert_rope_grad(g, dumps("grad_planted_head_zeroed"), spec, POSITIONS)
    with pytest.raises(AssertionError, match="None"):
        rope.testing.assert_rope_grad(g, None, spec, POSITIONS)


def test_shift_takes_no_positions_and_names_the_magnitude(dumps):
    spec = rope.Spec(head_dim=64, base=10000, layout="interleaved", **YARN)
    k = dumps("shift_yarn_f32_k")
    report = rope.check(k, dumps("shift_yarn_f32_shifted"), None, spec, shift=-512)
    assert report.passed, report.summary()
    assert report.data["mode"] == "shift" and report.data["shift"] == -512
    again = rope.check(k, dumps("shift_yarn_f32_magnitude_again"), None, spec, shift=-512)
    assert again.data["diagnosis"]["matches"] == "magnitude-reapplied"
    assert again.data["diagnosis"]["found"]["factor"] == pytest.approx(1 + 0.1 * np.log(4), rel=1e-4)


def test_modes_refuse_what_does_not_fit(dumps):
    spec = rope.Spec(head_dim=64, base=10000, layout="interleaved")
    k = dumps("shift_default_f32_k")
    with pytest.raises(ValueError, match="positions"):
        rope.check(k, k, POSITIONS, spec, shift=-512)
    with pytest.raises(ValueError, match="excludes"):
        rope.check(k, k, POSITIONS, spec, grad=True, shift=-512)


def test_shift_map_moves_each_key_by_its_own_delta(root):
    # rope.check(shift_map=) is rope check --shift-map (issue 78 item 3) on docs/check.md's example, written by
    # tests/reference/shift_map.py (a NumPy port of VeloxQuant-MLX's rope_remap_positions): the correct move passes, the
    # one with every new position off by the evicted count is named with it.
    folder = root / "data" / "dumps"
    spec = rope.Spec(head_dim=64, base=10000, layout="half")
    k = np.load(folder / "shift_map_k.npy")
    table = np.loadtxt(folder / "shift_map.csv", delimiter=",", skiprows=1, dtype=np.int64)
    report = rope.check(k, np.load(folder / "shift_map_k_moved.npy"), None, spec, shift_map=table)
    assert report.passed, report.summary()
    assert report.data["mode"] == "shift-map"
    off = rope.check(k, np.load(folder / "shift_map_k_offset.npy"), None, spec, shift_map=table)
    assert off.data["diagnosis"]["matches"] == "shift-map-offset"
    assert off.data["diagnosis"]["found"]["offset"] == 3775
    with pytest.raises(ValueError, match="positions"):
        rope.check(k, k, np.arange(48), spec, shift_map=table)
    with pytest.raises(ValueError, match="excludes"):
        rope.check(k, k, None, spec, shift=-3, shift_map=table)
    with pytest.raises(ValueError, match=r"not \[n, 2\]"):
        rope.check(k, k, None, spec, shift_map=table[:, :1])
