"""rope.verify: every identity of `rope verify` on the caller's own q and k, the same report as
`rope verify --q --k` prints (one library computes both: the numbers are equal, not close)."""
import json
import subprocess

import numpy as np
import pytest

import rope
from conftest import numpy_rope


def test_every_identity_holds_on_the_callers_vectors():
    rng = np.random.default_rng(4)
    q, k = rng.uniform(-3, 3, (5, 16)), rng.uniform(-3, 3, (5, 16))
    report = rope.verify(q, k, seed=3)
    assert report.passed and bool(report)
    assert report.data["settings"]["dim"] == 16
    assert report.data["settings"]["vector_pairs"] == 5
    assert report.data["settings"]["trials"] == 1000  # 1000, a multiple of the 5 pairs
    assert [r["samples"] for r in report.identities] == [1000] * 7
    assert not report.contrast["passed"]  # the additive encoding leaks absolute position on these vectors too
    assert "q, k: the 5 pairs of vectors given" in report.summary()
    assert "q、k：给出的 5 对向量" in report.summary(lang="zh")
    assert json.loads(report.to_json())["passed"] is True
    assert report.to_csv().count("\n") == 9


def test_the_identity_is_the_one_numpy_computes(root):
    """(M8) on one pair at given positions, recomputed with the tests' NumPy RoPE (tests/python/conftest.py): both
    sides agree within the reported tolerance, and the report's |Δ| is that small too."""
    q = np.array([1.0, 0.0, 2.0, -1.0, 0.5, 3.0])
    k = np.array([0.5, 1.0, 0.0, 2.0, -2.0, 1.0])
    m, n = 5, 12
    inv_freq = 10000.0 ** (-np.arange(0, 6, 2) / 6)
    left = numpy_rope(q[None], np.array([m]), inv_freq)[0] @ numpy_rope(k[None], np.array([n]), inv_freq)[0]
    right = q @ numpy_rope(k[None], np.array([n - m]), inv_freq)[0]
    report = rope.verify(q, k, rope.Spec(head_dim=6), positions=(m, n, 3))
    row = report.identities[0]
    assert row["name"] == "relative position" and row["samples"] == 1
    scale = np.linalg.norm(q) * np.linalg.norm(k)
    assert abs(left - right) / scale <= row["tolerance"]
    assert row["max_abs_error"] <= row["tolerance"] * scale
    assert report.data["settings"]["layout"] == "half"  # Spec()'s plain RoPE


def test_the_same_report_as_the_command_line(rope_exe, tmp_path):
    q = np.arange(24, dtype=np.float64).reshape(2, 3, 4) / 7 - 1
    k = np.flip(q, axis=2).copy()
    np.save(tmp_path / "q.npy", q)
    np.save(tmp_path / "k.npy", k)
    cli = subprocess.run([rope_exe, "verify", "--q", f"@{tmp_path / 'q.npy'}", "--k", f"@{tmp_path / 'k.npy'}",
                          "--seed", "8", "--layout", "half", "--json"], capture_output=True, text=True)
    assert cli.returncode == 0, cli.stderr
    module = rope.verify(q, k, rope.Spec(head_dim=4, layout="half"), seed=8)
    assert json.loads(cli.stdout) == json.loads(module.to_json())


def test_a_model_takes_its_rotated_channels():
    rng = np.random.default_rng(1)
    q, k = rng.normal(size=128), rng.normal(size=128)
    report = rope.verify(q, k, rope.Spec("llama-3.1-8b"), trials=50)
    assert report.passed
    assert report.data["settings"]["dim"] == 128 and report.data["settings"]["trials"] == 50
    with pytest.raises(ValueError, match="q and k hold 64 numbers per vector, and the model rotates 128 channels"):
        rope.verify(q[:64], k[:64], rope.Spec("llama-3.1-8b"))


def test_numbers_beyond_float64_fail_the_identity():
    q = np.full(4, 1e300)
    report = rope.verify(q, q, positions=(1, 2, 3))
    assert not report.passed
    assert "relative position" in repr(report)


@pytest.mark.parametrize("call, message", [
    (lambda: rope.verify(np.ones(4), np.ones(6)), "q and k must hold 4 numbers per vector"),
    (lambda: rope.verify(np.ones((3, 4)), np.ones((3, 4)), trials=2),
     r"trials must be at least the number of vector pairs, 3, so that each is checked \(got 2\)"),
    (lambda: rope.verify(np.ones(4), np.ones(4), positions=(1, 2)), "positions must be three numbers M,N,C"),
    (lambda: rope.verify(np.ones(4), np.ones(4), positions=(1, -2, 3)), "positions must be integers between 0 and"),
    (lambda: rope.verify(np.ones(5), np.ones(5)), "must be even"),
    (lambda: rope.verify(np.ones(4), np.ones(4), rope.Spec(head_dim=8)), "head_dim 8 does not match the 4 numbers"),
])
def test_bad_input_names_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()
