"""rope.cp_positions (the positions of one context-parallel rank) against the independent NumPy port of
TransformerEngine's zigzag split and SGLang's round-robin split (tests/reference/cp_positions.py, its CSV), and
its refusals as ValueError naming the Python argument."""
import csv
import os

import numpy as np
import pytest

import rope

CASES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "reference",
                     "cp_positions_cases.csv")


def reference_rows():
    with open(CASES) as f:
        rows = [line for line in f if not line.startswith("#")]
    return list(csv.DictReader(rows))


@pytest.mark.parametrize("row", reference_rows(), ids=lambda r: f"{r['case']}-rank{r['cp_rank']}")
def test_every_rank_matches_the_reference(row):
    starts = [int(v) for v in row["sequence_starts"].split()]
    got = rope.cp_positions(starts, int(row["cp_size"]), int(row["cp_rank"]), row["layout"])
    assert got.dtype == np.int64
    assert got.tolist() == [int(v) for v in row["positions"].split()]


def test_refusals_name_the_argument():
    with pytest.raises(ValueError, match="sequence_starts: sequence 0 has 10 tokens, not divisible by 2 · cp = 4"):
        rope.cp_positions([0, 10], 2, 0, "zigzag")
    with pytest.raises(ValueError, match="cp_rank must be between 0 and 2 − 1 = 1"):
        rope.cp_positions([0, 8], 2, 5)
    with pytest.raises(ValueError, match="layout must be zigzag, round-robin or contiguous"):
        rope.cp_positions([0, 8], 2, 0, "ring")


def test_integers_only_and_in_range():
    # Issue 77 (7): [0, 8.7], 2.9, 0.5 became [0, 8], cp 2, rank 0; 2**63 gave pybind's "incompatible function
    # arguments". Integers as operator.index takes them (NumPy's too), a TypeError otherwise, a ValueError past int64.
    import numpy as np
    with pytest.raises(TypeError, match=r"sequence_starts\[1\] must be an integer \(got 8.7\)"):
        rope.cp_positions([0, 8.7], 2, 0)
    with pytest.raises(TypeError, match=r"cp_size must be an integer \(got 2.9\)"):
        rope.cp_positions([0, 8], 2.9, 0)
    with pytest.raises(TypeError, match=r"cp_rank must be an integer \(got 0.5\)"):
        rope.cp_positions([0, 8], 2, 0.5)
    with pytest.raises(TypeError, match="cp_rank must be an integer, not a bool"):
        rope.cp_positions([0, 8], 2, False)
    with pytest.raises(ValueError, match=r"cp_size must be an integer between -9223372036854775808 and "
                                         r"9223372036854775807 \(got 9223372036854775808\)"):
        rope.cp_positions([0, 8], 2**63, 0)
    assert list(rope.cp_positions(np.array([0, 8]), np.int64(2), np.int32(1))) == \
        list(rope.cp_positions([0, 8], 2, 1))
