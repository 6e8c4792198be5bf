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


Q = np.zeros((4, 8), dtype=np.float32)
SPEC8 = rope.Spec(head_dim=8)


@pytest.mark.parametrize("call, keyword, rule", [
    (lambda: rope.check(Q, Q, np.arange(4), SPEC8, dtype=16), "dtype", "must be a str"),
    (lambda: rope.check(Q, Q, np.arange(4), SPEC8, axes=4), "axes", "must be a str"),
    (lambda: rope.check(Q, Q, np.arange(4), SPEC8, lang=1), "lang", "must be a str"),
    (lambda: rope.check(Q, Q, np.arange(4), SPEC8, kv_head=1.5), "kv_head", "must be an integer"),
    (lambda: rope.diff(Q, Q, Q, np.arange(4), SPEC8, angles=5), "angles", "must be a str"),
    (lambda: rope.diff(Q, Q, Q, np.arange(4), SPEC8, name_a=7), "name_a", "must be a str"),
    (lambda: rope.identify(Q, Q, np.arange(4), axes=3), "axes", "must be a str"),
    (lambda: rope.reference(Q, np.arange(4), SPEC8, axes=3), "axes", "must be a str"),
    (lambda: rope.spectrum(Q, SPEC8, np.arange(4), axes=3), "axes", "must be a str"),
])
def test_every_call_reads_its_keywords_by_one_rule(call, keyword, rule):
    """check, diff, identify, reference and spectrum read their keywords through one settings value: a keyword of
    the wrong type is named with its rule in every call (rope.diff once printed pybind11's signature for angles=5)."""
    with pytest.raises(TypeError, match=f"^{keyword} {rule}"):
        call()


def test_shift_map_nan_is_no_position():
    """A NaN in a shift map is no position (it was told "beyond 2^24")."""
    k = np.zeros((2, 8), dtype=np.float32)
    with pytest.raises(ValueError, match=r"row 0 is \(0, nan\): old and new are finite positions"):
        rope.check(k, k, None, rope.Spec(head_dim=8), shift_map=np.array([[0.0, np.nan], [1.0, 1.0]]))
