"""FoPE (Intern-S1-Pro) in Python (issue 67 item 1, docs/multi-axis.md §7): rope.Spec of its config says the kept and
padded pairs, and rope.check(coefficients=) of the dumps of tests/reference/fope.py (a NumPy port of vLLM's
FourierRotaryEmbedding, fope.py @ 151a2c744af6 and @ c215d1e62d) passes vLLM's current computation and names the
earlier padding (sin 1) with its 19 padded pairs, in Chinese too; a FoPE spec without coefficients is refused."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import rope

SCRIPT = Path(__file__).resolve().parents[1] / "reference" / "fope.py"


@pytest.fixture(scope="module")
def fope_dumps(tmp_path_factory):
    out = tmp_path_factory.mktemp("fope")
    subprocess.run([sys.executable, str(SCRIPT), str(out)], check=True)
    return out, json.loads((out / "manifest.json").read_text())


def fope_positions(out):
    return np.array([int(x) for x in (out / "positions.txt").read_text().split()])


def test_spec_says_the_kept_and_padded_pairs(fope_dumps):
    out, manifest = fope_dumps
    text = " ".join(rope.Spec(str(out / "checkpoint" / "config.json")).describe().split())
    assert f"{manifest['kept']} pairs keep their θ" in text
    assert f"the other {manifest['padded']} of the head's 64 pairs are padded" in text


@pytest.mark.parametrize("index", range(5))
def test_each_dump_against_its_coefficients(fope_dumps, index):
    out, manifest = fope_dumps
    case = manifest["cases"][index]
    d = out / case["dir"]
    spec = rope.Spec(str(out / case["config"]))
    t = case["tensor"]
    report = rope.check(np.load(d / f"{t}.npy"), np.load(d / f"{t}_rope.npy"), fope_positions(out), spec,
                        angles="float32", coefficients=out / case["coefficients"])
    assert report.passed == (case["exit"] == 0), (case["name"], report.diagnosis)
    if case["variant"]:
        diagnosis = report.data["diagnosis"]
        assert diagnosis["matches"] == case["variant"] and diagnosis["found"]["padded"] == case["padded"], diagnosis
        zh = rope.check(np.load(d / f"{t}.npy"), np.load(d / f"{t}_rope.npy"), fope_positions(out), spec,
                        angles="float32", coefficients=out / case["coefficients"], lang="zh")
        assert "√2·R(π/4)" in zh.diagnosis and "填充" in zh.diagnosis


def test_refused_without_coefficients(fope_dumps):
    out, manifest = fope_dumps
    d = out / manifest["cases"][0]["dir"]
    with pytest.raises(ValueError, match="give the checkpoint with coefficients FILE"):
        rope.check(np.load(d / "q.npy"), np.load(d / "q_rope.npy"), fope_positions(out),
                   rope.Spec(str(out / "checkpoint" / "config.json")))


@pytest.mark.parametrize("tensor, kv_head, passed", [("k", 2, True), ("q", 2, True), ("k", 1, False)])
def test_one_key_value_heads_dump_with_kv_head(fope_dumps, tensor, kv_head, passed):
    """kv_head= (rope check --kv-head): vllm_kv2 holds key-value head 2's heads alone (k head 2, q heads 8 … 11), every
    vector on that head's coefficients; another head's fail, named fope-kv-head-other with head 2; a bool is refused."""
    out, _ = fope_dumps
    d = out / "vllm_kv2"
    spec = rope.Spec(str(out / "checkpoint" / "config.json"))
    x, y = np.load(d / f"{tensor}.npy"), np.load(d / f"{tensor}_rope.npy")
    report = rope.check(x, y, fope_positions(out), spec, angles="float32", coefficients=out / "checkpoint",
                        kv_head=kv_head)
    assert report.passed == passed, report.diagnosis
    assert report.data["expected"]["fope"]["matrix"] == kv_head
    if not passed:  # named: the dump is head 2's
        diagnosis = report.data["diagnosis"]
        assert diagnosis["matches"] == "fope-kv-head-other" and diagnosis["found"]["kv_head"] == 2, diagnosis
    with pytest.raises(TypeError, match="kv_head must be an integer, not a bool"):
        rope.check(x, y, fope_positions(out), spec, coefficients=out / "checkpoint", kv_head=True)


@pytest.mark.parametrize("index", range(5))
def test_identify_recognises_fope_without_the_coefficients(fope_dumps, index):
    """rope.identify names FoPE from the dumps alone (docs/multi-axis.md §7): the kept and padded pairs, the padding
    (sin 1: check's fope-sin-padded-one in its words), the key-value heads; no θ_j fitted."""
    out, manifest = fope_dumps
    case = manifest["cases"][index]
    d = out / case["dir"]
    t = case["tensor"]
    x, y = np.load(d / f"{t}.npy"), np.load(d / f"{t}_rope.npy")
    result = rope.identify(x, y, fope_positions(out))
    fope = result["fope"]
    assert fope["kept"] + fope["padded"] == 64 and fope["padding"] == ("sin 1" if case["variant"] else "sin 0")
    assert fope["kv_heads"] == case["kv_heads"] and fope["group_heads"] == x.shape[1] // case["kv_heads"]
    assert result["family"] is None and result["theta"] == []
    if case["variant"]:
        assert fope["padded"] == case["padded"]
        assert result["notes"][0].startswith(f"matches FoPE with its {case['padded']} padded pairs")


@pytest.mark.parametrize("call", ["reference", "spectrum"])
def test_rotations_of_a_fope_spec_are_refused(fope_dumps, call):
    """rope.reference and rope.spectrum compute rotations by m·θ_i: a FoPE Spec is refused as the command line's
    commands refuse it (docs/multi-axis.md §7, "In the commands"), naming rope.check(coefficients=)."""
    out, manifest = fope_dumps
    q = np.load(out / manifest["cases"][0]["dir"] / "q.npy")
    spec = rope.Spec(str(out / "checkpoint" / "config.json"))
    with pytest.raises(ValueError) as raised:
        getattr(rope, call)(q, spec=spec, positions=fope_positions(out))
    assert "has FoPE" in str(raised.value) and "rope.check(coefficients=) FILE, rope.diff(coefficients=) FILE" in str(
        raised.value), raised.value


def test_diff_names_the_earlier_padding(fope_dumps):
    """rope.diff(coefficients=), as rope diff --coefficients (tests/cli/check_fope.py): vLLM's current output right,
    its earlier one wrong with fope-sin-padded-one at all 13 positions, the two differing; against the same computed in
    float64 both right and within (D2) of each other."""
    out, manifest = fope_dumps
    spec = rope.Spec(str(out / "checkpoint" / "config.json"))
    q = np.load(out / "vllm" / "q.npy")
    for case in manifest["diffs"]:
        report = rope.diff(q, np.load(out / case["a"]), np.load(out / case["b"]), fope_positions(out), spec,
                           angles="float32", coefficients=out / "checkpoint", name_a="vllm", name_b="other")
        data = report.data
        assert data["a"]["passed"] == case["a_right"] and data["b"]["passed"] == case["b_right"], repr(report)
        assert data["b"]["diagnosis"]["matches"] == case["b_variant"], data["b"]["diagnosis"]
        assert data["between"]["agree"] == (case["b_variant"] is None), data["between"]
        assert data["expected"]["fope"]["padded"] == manifest["padded"]
        assert report.passed == (case["exit"] == 0) and report.to_json().startswith("{")
        if case["b_variant"]:
            assert f"{case['padded']} padded pairs" in data["b"]["diagnosis"]["message"]
            zh = rope.diff(q, np.load(out / case["a"]), np.load(out / case["b"]), fope_positions(out), spec,
                           angles="float32", coefficients=out / "checkpoint", lang="zh")
            assert "√2·R(π/4)" in "".join(zh.text.split()) and "两者之间 (D2)" in zh.text
