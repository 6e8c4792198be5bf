"""openPangu-VL's interleaved M-RoPE in Python (issue 67 item 3, docs/multi-axis.md (A10)): rope.Spec of a config with
vLLM's rope_type openpangu says where its greedy order leaves Qwen3-VL's, and rope.check of the dumps of
tests/reference/openpangu_mrope.py (a NumPy port of vLLM's openpangu_rope.py @ 098d12c28e and of HF's Qwen3-VL
apply_interleaved_mrope @ 00709b862bb8) passes each with its own config and names the other order, with the pair,
when read with the other one; in Chinese too."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import rope

SCRIPT = Path(__file__).resolve().parents[1] / "reference" / "openpangu_mrope.py"


@pytest.fixture(scope="module")
def dumps(tmp_path_factory):
    out = tmp_path_factory.mktemp("openpangu_mrope")
    subprocess.run([sys.executable, str(SCRIPT), str(out)], check=True)
    return out, json.loads((out / "manifest.json").read_text())


def positions_of(out):
    rows = (out / "positions.csv").read_text().split("\n")[1:]
    return np.array([[int(x) for x in r.split(",")] for r in rows if r]).T  # [3, seq], HF's position_ids


def test_spec_says_where_the_orders_part(dumps):
    out, manifest = dumps
    for tag, pair in manifest["first_pair"].items():
        spec = rope.Spec(str(out / f"openpangu_{tag}.json"), layout="half")
        assert f"parts from it at pair {pair}" in spec.describe().replace("\n", " ")
        assert f"从第 {pair} 对起分开" in spec.describe(lang="zh").replace("\n", "")


@pytest.mark.parametrize("index", range(8))
def test_each_dump_passes_with_its_order_and_names_the_other(dumps, index):
    out, manifest = dumps
    case = manifest["cases"][index]
    d = out / case["dir"]
    spec = rope.Spec(str(out / case["config"]), layout="half")
    report = rope.check(np.load(d / "q.npy"), np.load(d / "q_rope.npy"), positions_of(out), spec, angles="float32")
    assert report.passed == (case["exit"] == 0), (case["name"], report.diagnosis)
    if case["variant"]:
        diagnosis = report.data["diagnosis"]
        assert diagnosis["matches"] == case["variant"] and diagnosis["found"]["pair"] == case["pair"], diagnosis
        assert f"part at pair {case['pair']}" in report.diagnosis
