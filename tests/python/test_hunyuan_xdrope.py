"""HunyuanVL's XD-RoPE in Python (issue 67 item 2, docs/multi-axis.md (A11)): rope.Spec of a HunyuanVL config names
HF's map by default and Tencent's with xdrope_map="tencent", and rope.check of the dumps of
tests/reference/hunyuan_xdrope.py (a NumPy port of HF's modular_hunyuan_vl.py @ 17963211f4 and of Tencent's
HunyuanOCR train/modeling_hunyuan_vl.py @ c55965d3da) passes each with its own map and names the other, with the
pair, when read with the other one; in Chinese too."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import rope

SCRIPT = Path(__file__).resolve().parents[1] / "reference" / "hunyuan_xdrope.py"


@pytest.fixture(scope="module")
def dumps(tmp_path_factory):
    out = tmp_path_factory.mktemp("hunyuan_xdrope")
    subprocess.run([sys.executable, str(SCRIPT), str(out)], check=True)
    return out, json.loads((out / "manifest.json").read_text())


def positions_of(out, name):
    rows = (out / name).read_text().split("\n")
    arr = np.array([[int(x) for x in r.split(",")] for r in rows if r]).T  # [4, seq]: p, w, h, t
    return arr[0] if arr.shape[0] == 1 else arr  # a decode step: one position per token


def test_spec_names_the_map(dumps):
    out, _ = dumps
    hf = rope.Spec(str(out / "hunyuan_vl.json"))
    tencent = rope.Spec(str(out / "hunyuan_vl.json"), xdrope_map="tencent")
    assert "HF's map" in hf.describe() and "Tencent's map" in tencent.describe()
    assert "腾讯的映射" in tencent.describe(lang="zh")
    with pytest.raises(ValueError, match="must be hf or tencent"):
        rope.Spec(str(out / "hunyuan_vl.json"), xdrope_map="mlx")


@pytest.mark.parametrize("index", range(6))
def test_each_dump_passes_with_its_map_and_names_the_other(dumps, index):
    out, manifest = dumps
    case = manifest["cases"][index]
    d = out / case["dir"]
    spec = rope.Spec(str(out / case["config"]), **({"xdrope_map": case["map"]} if case["map"] else {}))
    positions = positions_of(out, case.get("positions", "positions.csv"))
    report = rope.check(np.load(d / "q.npy"), np.load(d / "q_rope.npy"), positions, spec, angles="float32")
    assert report.passed == (case["exit"] == 0), (case["name"], report.diagnosis)
    if case["variant"]:
        diagnosis = report.data["diagnosis"]
        assert diagnosis["matches"] == case["variant"] and diagnosis["found"]["pair"] == case["pair"], diagnosis
        assert f"part at pair {case['pair']}" in report.diagnosis


@pytest.mark.parametrize("name, expected", [("hf", "hf"), ("tencent", "tencent"), ("text_hf", None)])
def test_identify_names_the_map_without_the_config(dumps, name, expected):
    """rope.identify with the four streams [4, seq] names the dump's map, its sections and the pair where the maps part
    (rope check's found pair); text alone names none."""
    out, manifest = dumps
    case = next(c for c in manifest["cases"] if c["name"] == name)
    d = out / case["dir"]
    result = rope.identify(np.load(d / "q.npy"), np.load(d / "q_rope.npy"),
                           positions_of(out, case.get("positions", "positions.csv")))
    xdrope = result["xdrope"]
    assert xdrope["map"] == expected, result["notes"]
    if expected:
        assert xdrope["sections"] == [16, 16, 16, 16] and xdrope["parts_at"] == 0
    else:
        assert any("cannot tell the maps apart" in n for n in result["notes"])
