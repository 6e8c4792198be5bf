"""rope.check with the table a kernel was handed (cos=, sin=, cos_sin_cache=): ONNX's RotaryEmbedding as its reference
computes it (tests/reference/onnx_rotary.py, a NumPy port of onnx/onnx onnx/reference/ops/op_rotary_embedding.py
@ 6be0677f) on random caches gathered by position ids, in ONNX's op shapes ([batch, heads, seq, head] in, position
ids [batch, seq]): each passes against its own table, with or without a spec (the pairing from layout=); a planted
mistake fails with the diagnosis check names; a table without positions for a row, or half a table, is refused."""
import numpy as np
import pytest

import rope
from onnx_rotary import rotary_embedding

RNG = np.random.default_rng(92)


def onnx_case(interleaved=False, rotary_dim=None, heads=2, seq=3, head=8, max_pos=50):
    """x [2, heads, seq, head], random caches [max_pos, rot/2], position ids [2, seq], and ONNX's output."""
    rot = rotary_dim or head
    x = RNG.random((2, heads, seq, head), dtype=np.float32)
    cos = RNG.random((max_pos, rot // 2), dtype=np.float32)
    sin = RNG.random((max_pos, rot // 2), dtype=np.float32)
    ids = RNG.integers(0, max_pos, (2, seq)).astype(np.int64)
    y = rotary_embedding(x, cos, sin, ids, interleaved=int(interleaved), rotary_embedding_dim=rotary_dim or 0)
    return x, y.astype(np.float32), cos, sin, ids


@pytest.mark.parametrize("interleaved", [False, True])
@pytest.mark.parametrize("rotary_dim", [None, 4])
def test_onnx_cases_pass_against_their_own_cache(interleaved, rotary_dim):
    x, y, cos, sin, ids = onnx_case(interleaved, rotary_dim)
    layout = "interleaved" if interleaved else "half"
    report = rope.check(x, y, ids, cos=cos, sin=sin, layout=layout)
    assert report.passed, report
    assert report.data["expected"]["rotary_dim"] == (rotary_dim or 8)
    # The same with a spec giving the pairing.
    assert rope.check(x, y, ids, rope.Spec(head_dim=8, layout=layout), cos=cos, sin=sin).passed


def test_vllm_cache_is_cos_then_sin():
    x, y, cos, sin, ids = onnx_case()
    assert rope.check(x, y, ids, cos_sin_cache=np.concatenate([cos, sin], axis=-1)).passed
    swapped = np.concatenate([sin, cos], axis=-1)
    report = rope.check(x, y, ids, cos_sin_cache=swapped)
    assert not report.passed
    assert report.data["diagnosis"]["matches"] == "table-cos-sin-swapped"


def test_a_planted_mistake_is_named():
    x, y, cos, sin, ids = onnx_case()
    wrong = rotary_embedding(x, cos, -sin, ids, interleaved=0, rotary_embedding_dim=0).astype(np.float32)
    report = rope.check(x, wrong, ids, cos=cos, sin=sin)
    assert not report.passed
    assert report.data["diagnosis"]["matches"] == "rotation-reversed"


def test_refusals():
    x, y, cos, sin, ids = onnx_case()
    with pytest.raises(ValueError, match="spec"):
        rope.check(x, y, ids)
    with pytest.raises(ValueError, match="sin"):
        rope.check(x, y, ids, cos=cos)
    with pytest.raises(ValueError, match="no row"):
        rope.check(x, y, ids, cos=cos[:10], sin=sin[:10])


def onnx_kernel(flip_sin=False):
    """A kernel handed a table, fn(x, cos, sin, positions), x [batch, seq, heads, d]: ONNX's reference op (its input
    [batch, heads, seq, head]); flip_sin plants the sign mistake."""
    def fn(x, cos, sin, positions):
        y = rotary_embedding(np.transpose(x, (0, 2, 1, 3)), cos, -sin if flip_sin else sin, positions, interleaved=0,
                             rotary_embedding_dim=2 * cos.shape[-1])
        return np.transpose(y, (0, 2, 1, 3)).astype(np.float32)
    return fn


@pytest.mark.parametrize("spec", [None, "qwen3-8b"])
def test_testing_cache_cases_pass_a_right_kernel_and_name_a_wrong_one(spec):
    import rope.testing
    cases = list(rope.testing.cache_cases(spec))
    assert [c.id for c in cases][:2] == ["cache-random", "cache-ids-unordered"]
    for case in cases:
        rope.testing.assert_case(onnx_kernel(), case)
        report = rope.testing.check_case(onnx_kernel(flip_sin=True), case)
        assert not report.passed and report.data["diagnosis"]["matches"] == "rotation-reversed", case.id


@pytest.mark.parametrize("interleaved", [False, True])
def test_onnx_caches_of_a_row_per_token(interleaved):
    """ONNX's caches without position_ids: [batch, seq, rot/2], each token its own row; positions None."""
    x = RNG.random((2, 4, 3, 8), dtype=np.float32)
    cos, sin = RNG.random((2, 3, 4), dtype=np.float32), RNG.random((2, 3, 4), dtype=np.float32)
    y = rotary_embedding(x, cos, sin, None, interleaved=int(interleaved)).astype(np.float32)
    layout = "interleaved" if interleaved else "half"
    assert rope.check(x, y, None, cos=cos, sin=sin, layout=layout).passed
    wrong = rotary_embedding(x, cos, np.zeros_like(sin), None, interleaved=int(interleaved)).astype(np.float32)
    report = rope.check(x, wrong, None, cos=cos, sin=sin, layout=layout)
    assert not report.passed and report.data["diagnosis"]["matches"] == "table-sin-missing"


def test_onnx_3d_input_with_num_heads():
    """ONNX's 3-D input [batch, seq, hidden] with num_heads 4: head_dim=8 reads it as [batch, seq, 4, 8]."""
    x = RNG.random((2, 3, 32), dtype=np.float32)
    cos, sin = RNG.random((50, 4), dtype=np.float32), RNG.random((50, 4), dtype=np.float32)
    ids = RNG.integers(0, 50, (2, 3)).astype(np.int64)
    y = rotary_embedding(x, cos, sin, ids, num_heads=4).astype(np.float32)
    report = rope.check(x, y, ids, cos=cos, sin=sin, head_dim=8)
    assert report.passed, report
    assert report.data["expected"]["rotary_dim"] == 8 and report.total == 2 * 3 * 32
    with pytest.raises(ValueError, match="head_dim"):
        rope.check(x, y, ids, cos=cos, sin=sin, head_dim=5)
