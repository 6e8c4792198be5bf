"""A large failing check is diagnosed on a sample (issue 63, docs/check.md "A failing check of a large dump"): dumps of
[2, 2048, 32, 64] (2^23 elements, above the 2^22 from which rope samples) written by tests/reference/buggy_kernels.py's
NumPy kernels (Hugging Face's rotate_half in float32, llama.cpp's interleaved pairs), not by rope's variant code, name
the variant the same dump names at a size rope diagnoses whole ([2, 64, 32, 64]); the sample's size is in the JSON
(at most 256 indices, every group of each), and the variant named is measured over the whole dump. A dump whose
second batch row alone is shifted is not called a match, and no variant is offered as the closest: where the dump
first departs instead."""
import numpy as np
import pytest

import rope
from buggy_kernels import bf16_round, hf_rope, interleaved_rope, inv_freq

HEADS, D, BASE = 32, 64, 10000.0


def dump(seq, kernel, shift_rows, bf16, seed=63):
    """[2, seq, HEADS, D] before and after: batch row b rotated at positions 0 … seq − 1 plus shift_rows[b]."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, seq, HEADS, D)).astype(np.float32)
    if bf16:
        x = bf16_round(x)
    theta = inv_freq(BASE, D)
    y = np.empty_like(x)
    for b in range(2):
        m = np.arange(seq, dtype=np.float64) + shift_rows[b]
        y[b] = hf_rope(x[b], m, theta) if kernel == "half" else interleaved_rope(x[b], m, theta)
    if bf16:
        bits = lambda a: (bf16_round(a).view(np.uint32) >> 16).astype(np.uint16)
        return bits(x), bits(y)
    return x, y


# (kernel, the shift of each batch row, bf16, the positions given: 0 … seq − 1 plus this)
CASES = {
    "given_one_ahead_f32": ("half", (0, 0), False, 1),  # the dump matches positions shifted by -1
    "given_one_ahead_bf16": ("half", (0, 0), True, 1),
    "interleaved_kernel": ("interleaved", (0, 0), False, 0),  # layout-swapped
    "rotated_one_ahead": ("half", (1, 1), False, 0),  # positions shifted by +1
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_large_dump_names_what_the_small_one_names(name):
    kernel, shifts, bf16, given = CASES[name]
    spec = rope.Spec(base=BASE, head_dim=D, layout="half")
    dtype = "bf16" if bf16 else None
    small = rope.check(*dump(64, kernel, shifts, bf16), np.arange(64) + given, spec, dtype=dtype)
    x, y = dump(2048, kernel, shifts, bf16)
    large = rope.check(x, y, np.arange(2048) + given, spec, dtype=dtype)
    assert not small.passed and not large.passed
    assert "sample" not in small.data["diagnosis"]
    assert small.matches is not None
    assert large.matches == small.matches
    sample = large.data["diagnosis"]["sample"]
    assert 0 < sample["indices"] <= 256 and sample["elements"] == sample["indices"] * 2 * HEADS * D  # every group: batch × heads
    assert sample["total_whole"] == large.total == x.size  # measured over the whole dump: it explains every element
    assert sample["explained_whole"] == large.total
    assert any("diagnosed on a sample of" in n for n in large.notes)


def test_one_row_shifted_is_no_match_of_the_whole_dump():
    # Batch row 1 rotated one position ahead, row 0 right: the sample (the failing indices, every group of each) holds
    # both rows' heads, so no variant matches it; positions shifted by +1 explain about half of the dump without being
    # its whole cause, and are not offered as a closest lead: where the dump first departs instead.
    spec = rope.Spec(base=BASE, head_dim=D, layout="half")
    x, y = dump(2048, "half", (0, 1), False)
    r = rope.check(x, y, np.arange(2048), spec)
    assert not r.passed and r.matches is None
    d = r.data["diagnosis"]
    assert d["closest"] is None and d["departure"] is not None
    assert d["message"].startswith("no known variant explains the dump")
