"""A vision tower's 2-D RoPE in the module: ``patches`` ([patches, 2] or [batch, patches, 2], the (row, column)
of each patch) for reference, check and identify, against tests/reference/vision_rope.py, the independent NumPy
port of Hugging Face's vision rotary code (Qwen2-VL's VisionRotaryEmbedding and rot_pos_emb, Llama 4's
Llama4VisionRotaryEmbedding). Both compute in float64 from the same θ and angles, so 1e-12 absolute, as
test_reference.py; a dump made by the port passes check, the same dump with rows and columns swapped fails."""
import numpy as np
import pytest

import rope
import vision_rope as vr

ATOL = 1e-12
GRID = np.array([(r, c) for r in range(6) for c in range(7)])  # a 6 × 7 grid of patches, row by row


def rotated(x, rule, rc):
    """x [patches, heads, d] turned per patch by the port's rule at (row, column)."""
    return np.stack([[rule(x[i, h], r, c) for h in range(x.shape[1])] for i, (r, c) in enumerate(rc)])


@pytest.mark.parametrize("spec, rule", [
    (dict(vision="qwen2-vl", head_dim=64), vr.qwen2_vl),
    (dict(vision="llama4", head_dim=64), vr.llama4),
])
def test_reference_and_check_against_the_port(rng, spec, rule):
    s = rope.Spec(**spec)
    x = rng.standard_normal((len(GRID), 3, 64))
    y = rotated(x, rule, GRID)
    np.testing.assert_allclose(rope.reference(x, None, s, patches=GRID), y, rtol=0, atol=ATOL)
    assert rope.check(x, y, None, s, patches=GRID).passed
    swapped = rope.check(x, y, None, s, patches=GRID[:, ::-1])  # rows for columns: a real bug, caught and named
    assert not swapped.passed and swapped.matches == "axes-swapped"
    assert "(column, row) instead of (row, column)" in swapped.diagnosis


def test_a_presets_tower_and_batch_rows(rng):
    # qwen2.5-vl-7b's tower: Qwen2-VL's rule at head_dim 1280 / 16 = 80, θ 10000 (vision_rope.py CLI_CASES).
    s = rope.Spec("qwen2.5-vl-7b", tower="vision")
    x = rng.standard_normal((2, len(GRID), 2, 80))  # [batch, seq, heads, d], each batch row its own patches
    rows = np.stack([GRID, GRID + 3])
    y = np.stack([rotated(x[b], vr.qwen2_vl, rows[b]) for b in range(2)])
    np.testing.assert_allclose(rope.reference(x, None, s, patches=rows, axes="batch,seq,heads,d"), y, rtol=0, atol=ATOL)
    assert rope.check(x, y, None, s, patches=rows, axes="batch,seq,heads,d").passed


def test_identify_names_the_vision_kind(rng):
    x = rng.standard_normal((len(GRID), 2, 64))
    found = rope.identify(x, rotated(x, vr.qwen2_vl, GRID), patches=GRID)
    assert found["layout"] == "half" and found["position_offset"] == 0
    assert any("qwen2-vl" in n for n in found["notes"])


def test_identify_finds_llama4s_patches_counted_from_one(rng):
    # HF's Llama4VisionRotaryEmbedding turns the patch (row, column) by (column + 1, row + 1): one offset on both
    # axes, found from the phases; a port that forgot it is (V4) counted from 0.
    x = rng.standard_normal((len(GRID), 2, 64))
    found = rope.identify(x, rotated(x, vr.llama4, GRID), patches=GRID)
    assert found["layout"] == "interleaved" and found["position_offset"] == 1
    assert any("llama4 (V4)" in n and "as Llama 4 counts them" in n for n in found["notes"])
    np.testing.assert_allclose(found["theta"][:16], 10000.0 ** -(np.arange(0, 32, 2) / 32), rtol=1e-9)
    forgot = rope.identify(x, rotated(x, vr.llama4, GRID - 1), patches=GRID)
    assert forgot["position_offset"] == 0
    assert any("counted from 0, where Llama 4 counts them from 1" in n for n in forgot["notes"])


def test_patches_are_refused_where_they_do_not_belong(rng):
    x = rng.standard_normal((len(GRID), 1, 64))
    tower = rope.Spec(vision="qwen2-vl", head_dim=64)
    with pytest.raises(ValueError, match=r"vision tower's 2-D RoPE.*give patches="):
        rope.check(x, x, np.arange(len(GRID)), tower)
    with pytest.raises(ValueError, match=r"the spec is not a vision tower"):
        rope.check(x, x, None, rope.Spec(head_dim=64), patches=GRID)
    with pytest.raises(ValueError, match=r"not both"):
        rope.check(x, x, np.arange(len(GRID)), tower, patches=GRID)
    with pytest.raises(ValueError, match=r"patches of shape \(42, 3\)"):
        rope.check(x, x, None, tower, patches=np.zeros((42, 3)))
    with pytest.raises(ValueError, match=r"outside \[-2\^24, 2\^24\]"):
        rope.reference(x, None, tower, patches=np.full((42, 2), 2.0 ** 25))
