"""rope.check's arguments checked by their own names and rules before the library reads them: a choice of the
wrong type named with its rule (not pybind11's internal signature), a NaN in a shift map refused as no position."""
import numpy as np
import pytest

import rope


def test_check_names_a_choice_of_the_wrong_type():
    """angles=5 names angles and its rule, not pybind11's internal signature."""
    q = np.zeros((4, 8), dtype=np.float32)
    with pytest.raises(TypeError, match=r"angles must be a str \(got 5\)"):
        rope.check(q, q, np.arange(4), rope.Spec(head_dim=8), angles=5)


def test_shift_map_nan_is_no_position():
    """A NaN in a shift map is no position (it was told "beyond 2^24")."""
    k = np.zeros((2, 8), dtype=np.float32)
    with pytest.raises(ValueError, match=r"row 0 is \(0, nan\): old and new are finite positions"):
        rope.check(k, k, None, rope.Spec(head_dim=8), shift_map=np.array([[0.0, np.nan], [1.0, 1.0]]))
