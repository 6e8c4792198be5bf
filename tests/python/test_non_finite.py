"""NaN and infinity, one rule for the module and the command line (the library's check says it,
src/rope/analysis/check/check_diagnosis.cpp check_source): in the tensor before RoPE they are invalid input (nothing to
compare with: ValueError naming `before`, exit 2 naming --before, nothing printed on stdout); in the tensor after
RoPE they are a finding (FAIL, exit 1, with a diagnosis naming the first such element and how many there are),
whatever the tensor's type."""
import json
import subprocess

import numpy as np
import pytest

import rope
from conftest import numpy_rope, pythonic

SPEC = rope.Spec(head_dim=16)  # plain RoPE, rotate_half, base 10000


def dumps(tmp_path, rng, dtype, where, value):
    x = rng.standard_normal((6, 2, 16)).astype(dtype)
    y = numpy_rope(x.transpose(1, 0, 2), np.arange(6), SPEC.inv_freq).transpose(1, 0, 2).astype(dtype)
    if where == "before":
        x[4, 1, 3] = value
        x[5, 0, 0] = value
    else:
        y[4, 1, 3] = value
        y[5, 0, 0] = value
    np.save(tmp_path / "b.npy", x)
    np.save(tmp_path / "a.npy", y)
    return x, y


def cli(rope_exe, tmp_path, *extra):
    return subprocess.run([rope_exe, "check", "--before", str(tmp_path / "b.npy"), "--after", str(tmp_path / "a.npy"),
                           "--positions", "0:6", "--layout", "half", *extra], capture_output=True, text=True)


VALUES = [(np.nan, "NaN"), (np.inf, "+inf"), (-np.inf, "-inf")]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("value, shown", VALUES)
def test_before_is_invalid_input_in_both(rope_exe, tmp_path, rng, dtype, value, shown):
    x, y = dumps(tmp_path, rng, dtype, "before", value)
    run = cli(rope_exe, tmp_path)
    assert run.returncode == 2 and run.stdout == ""
    sentence = (f"the element at position 4, group 1, channel 3 is {shown} (elements that are not finite numbers: 2): "
                "the tensor before RoPE must hold finite numbers")
    assert run.stderr.strip().endswith(f"--before: {sentence}"), run.stderr
    with pytest.raises(ValueError) as error:
        rope.check(x, y, np.arange(6), SPEC)
    assert str(error.value) == f"before: {sentence}"


def test_k_before_is_named_as_k_before_in_both(rope_exe, tmp_path, rng):
    """q and k together: a value of k before RoPE that is not finite is refused in k's own name."""
    x, y = dumps(tmp_path, rng, np.float32, "after", 0.0)  # q: right
    k = rng.standard_normal((6, 1, 16)).astype(np.float32)
    k_after = numpy_rope(k.transpose(1, 0, 2), np.arange(6), SPEC.inv_freq).transpose(1, 0, 2).astype(np.float32)
    k[2, 0, 7] = np.nan
    np.save(tmp_path / "b.npy", x), np.save(tmp_path / "a.npy", y)
    np.save(tmp_path / "kb.npy", k), np.save(tmp_path / "ka.npy", k_after)
    run = cli(rope_exe, tmp_path, "--k-before", str(tmp_path / "kb.npy"), "--k-after", str(tmp_path / "ka.npy"))
    sentence = ("the element at position 2, group 0, channel 7 is NaN (elements that are not finite numbers: 1): "
                "the tensor before RoPE must hold finite numbers")
    assert run.returncode == 2 and run.stdout == "", run.stderr
    assert run.stderr.strip().endswith(f"--k-before: {sentence}"), run.stderr
    with pytest.raises(ValueError) as error:
        rope.check(x, y, np.arange(6), SPEC, k_before=k, k_after=k_after)
    assert str(error.value) == f"k_before: {sentence}"


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("value, shown", VALUES)
def test_after_is_a_finding_in_both(rope_exe, tmp_path, rng, dtype, value, shown):
    x, y = dumps(tmp_path, rng, dtype, "after", value)
    run = cli(rope_exe, tmp_path, "--json")
    assert run.returncode == 1, run.stderr
    cli_report = json.loads(run.stdout)
    report = rope.check(x, y, np.arange(6), SPEC)
    assert not report.passed and not cli_report["passed"]
    want = (f"the tensor after RoPE holds {shown} at position 4, group 1, channel 3 (elements that are not finite "
            "numbers: 2) while the tensor before RoPE is finite: the implementation produced them")
    assert report.diagnosis == pythonic(cli_report["diagnosis"]["message"]) == want
    # JSON has no NaN or infinity: the command line writes null where the module keeps Python's floats.
    assert report.failing == cli_report["failing"] == 2 and report.max_ratio == np.inf and cli_report["max_ratio"] is None
    got = report.data["first_failure"]
    assert {k: got[k] if np.isfinite(got[k]) else None for k in cli_report["first_failure"]} == cli_report["first_failure"]
    assert (got["position"], got["group"], got["channel"]) == (4, 1, 3)


def test_after_in_bf16_bits(tmp_path, rng):
    """A bf16 NaN (0x7fc0) in 16-bit patterns is found the same way."""
    x = rng.standard_normal((6, 16)).astype(np.float32)
    y = numpy_rope(x, np.arange(6), SPEC.inv_freq).astype(np.float32)
    bits = lambda a: (np.ascontiguousarray(a, np.float32).view(np.uint32) >> 16).astype(np.uint16)
    yb = bits(y)
    yb[2, 5] = 0x7FC0
    report = rope.check(bits(x), yb, np.arange(6), SPEC, dtype="bf16")
    assert not report.passed and "holds NaN at position 2, group 0, channel 5" in report.diagnosis


def test_reference_and_identify_refuse_it(rng):
    x = rng.standard_normal((3, 16))
    x[1, 2] = np.inf
    with pytest.raises(ValueError, match="x: element 18 is infinite"):
        rope.reference(x, np.arange(3), SPEC)
    with pytest.raises(ValueError, match="before: element 18 is infinite"):
        rope.identify(x, x, np.arange(3))
