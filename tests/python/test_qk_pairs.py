"""rope.check(..., k_before=, k_after=) (issue 78 item 2) on the dumps of tests/reference/qk_pairs.py (NumPy alone: HF's
half and GPT-J's interleaved pairs under GQA, 8 query heads and 2 key-value heads, and the planted mistakes of
ColossalAI PR #6429 and TensorRT-LLM PR #16378): the same verdicts as rope check --k-before --k-after
(tests/analysis/check/test_qk_pair.cpp), with Report.k and Report.pair."""
import numpy as np
import pytest

import rope

POSITIONS = np.array([0, 1, 7, 4095, 4096, 32768, 65535, 131071])


@pytest.fixture(scope="module")
def dumps(root):
    folder = root / "tests" / "reference" / "qk_pairs"
    return lambda name: np.load(folder / f"{name}.npy")


def test_a_correct_pair_passes_three_verdicts(dumps):
    spec = rope.Spec(head_dim=64, base=10000, layout="half")
    r = rope.check(dumps("q"), dumps("q_half"), POSITIONS, spec, k_before=dumps("k"), k_after=dumps("k_half"))
    assert r.passed and r.k.passed and r.pair.passed and bool(r), r.summary()
    assert r.pair.pairs_sampled == 64
    assert r.pair.max_score_error <= r.pair.tolerance
    assert r.pair.matches is None
    assert r.k.total == 8 * 2 * 64 and r.total == 8 * 8 * 64
    assert "rope check: q and k together" in r.summary()
    one = rope.check(dumps("q"), dumps("q_half"), POSITIONS, spec)
    assert one.k is None and one.pair is None
    assert set(one.data) <= set(r.data) and set(one.data) <= set(r.data["k"])


def test_crossed_kernel_named_in_both(dumps):
    spec = rope.Spec(head_dim=64, base=10000, layout="half")
    r = rope.check(dumps("q"), dumps("q_crossed"), POSITIONS, spec, k_before=dumps("k"), k_after=dumps("k_crossed"),
                   lang="zh")
    assert not r and not r.pair
    assert r.matches == "qk-crossed" and r.k.matches == "qk-crossed" and r.pair.matches == "qk-crossed"
    assert "符合 q 与 k 交叉" in r.k.diagnosis


def test_k_with_query_heads_and_applied_twice(dumps):
    spec = rope.Spec(head_dim=64, base=10000, layout="half")
    r = rope.check(dumps("q"), dumps("q_half"), POSITIONS, spec, k_before=dumps("k"), k_after=dumps("k_query_heads"))
    assert r.passed and not r
    assert r.k.matches == "k-with-query-heads"
    assert r.k.data["diagnosis"]["found"] == {"q_heads": 8, "k_heads": 2}
    yarn = rope.Spec(head_dim=64, base=10000, layout="half", scaling="yarn", factor=4,
                     original_max_position_embeddings=4096)
    twice = rope.check(dumps("q"), dumps("q_yarn_twice"), POSITIONS, yarn, k_before=dumps("k"),
                       k_after=dumps("k_yarn_twice"))
    assert twice.matches == "rope-applied-twice" and twice.k.matches == "rope-applied-twice"
    assert twice.pair.matches == "rope-applied-twice"


def test_bad_pairs_are_refused(dumps):
    spec = rope.Spec(head_dim=64, base=10000, layout="half")
    with pytest.raises(ValueError, match="needs"):
        rope.check(dumps("q"), dumps("q_half"), POSITIONS, spec, k_after=dumps("k_half"))
    with pytest.raises(ValueError, match="do not divide"):
        rope.check(dumps("k"), dumps("k_half"), POSITIONS, spec, k_before=dumps("q"), k_after=dumps("q_half"))


def test_the_pair_report_says_its_diagnosis_and_names_its_dumps(dumps):
    spec = rope.Spec(head_dim=64, base=10000, layout="half")
    r = rope.check(dumps("q"), dumps("q_crossed"), POSITIONS, spec, k_before=dumps("k"), k_after=dumps("k_crossed"))
    assert r.pair.diagnosis.startswith("the scores depart from the relative-position identity: ")
    assert r.pair.diagnosis == r.pair.data["diagnosis"]
    zh = rope.check(dumps("q"), dumps("q_crossed"), POSITIONS, spec, k_before=dumps("k"), k_after=dumps("k_crossed"),
                    lang="zh")
    assert zh.pair.diagnosis and zh.pair.diagnosis != r.pair.diagnosis
    text = r.summary()
    assert "rope check: after against RoPE(before)" in text
    assert "rope check: k_after against RoPE(k_before)" in text
    assert "half layout ()" not in text and "against RoPE()" not in text
    assert "expected            half layout, rotary dim 64 of 64" in text
    good = rope.check(dumps("q"), dumps("q_half"), POSITIONS, spec, k_before=dumps("k"), k_after=dumps("k_half"))
    assert good.pair.diagnosis == ""


def _fused(spec, k_positions_shift=0):
    """A fused q+k kernel written with the float64 reference: q and k turned in one call."""
    def fn(q, k, positions):
        axes = "batch,seq,heads,d" if q.ndim == 4 else None
        return (rope.reference(q, positions, spec, axes=axes),
                rope.reference(k, np.asarray(positions) + k_positions_shift, spec, axes=axes))
    return fn


def test_fused_cases_carry_k_with_fewer_heads():
    spec = rope.Spec("llama-3.1-8b")
    cases = list(rope.testing.cases(spec, heads=4, kv_heads=2))
    assert cases and all(c.k is not None and c.k.shape[-2] == 2 and c.q.shape[-2] == 4 for c in cases)
    assert all(c.k.shape[:-2] == c.q.shape[:-2] and c.k.dtype == c.q.dtype for c in cases)
    strided = next(c for c in cases if c.id == "strided-q")
    assert not strided.k.flags["C_CONTIGUOUS"]
    assert all(c.k is None for c in rope.testing.cases(spec, heads=4))
    # The batch-row cases (positions per row) are q's alone: the pair reads k at one sequence of positions.
    assert "batched-decode" in {c.id for c in rope.testing.cases(spec, heads=4)}
    assert "batched-decode" not in {c.id for c in cases}
    with pytest.raises(ValueError, match="kv_heads must be a whole number that divides heads=4"):
        list(rope.testing.cases(spec, heads=4, kv_heads=3))


def test_a_fused_kernel_passes_and_one_that_moves_k_is_named():
    spec = rope.Spec("llama-3.1-8b")
    result = rope.testing.check_implementation(_fused(spec), spec, heads=4, kv_heads=2)
    assert result.passed, str(result)
    bad = rope.testing.check_implementation(_fused(spec, k_positions_shift=1), spec, heads=4, kv_heads=2)
    assert not bad.passed and bad.case.id == "prefill"
    assert bad.report.passed and not bad.report.k.passed
    assert bad.diagnosis.startswith("k: ")
    with pytest.raises(AssertionError, match="case prefill"):
        rope.testing.assert_case(_fused(spec, k_positions_shift=1), bad.case)
