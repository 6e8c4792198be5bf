"""rope.check names every bug `rope check` names on tests/reference/buggy_kernels.py's dumps (issue 53): the same
NumPy kernels, written by that script at test time (its manifest gives each case's `rope check` arguments), checked
through the Python module with the keywords that stand for the flags: each buggy dump fails with the named diagnosis
(`matches`) and its parameter (`data["diagnosis"]["found"]`: the delta of a decode without rope_deltas, the batch of
M-RoPE batch rows read as t, h, w, the base, the cache length, ...), in English and with lang="zh"; the dumps no
variant explains give the closest variant or where they depart; Gemma 3 without layer_type passes as its sliding
layer type; the correct kernels pass."""
import json
import re
import subprocess
import sys

import numpy as np
import pytest

import rope
from conftest import ROOT

SCRIPT = ROOT / "tests" / "reference" / "buggy_kernels.py"

# The flags of the manifests' cases and the keywords of rope.Spec that give the same setting.
SPEC_KEYWORDS = {"--base": ("base", float), "--layout": ("layout", str),
                 "--partial-rotary-factor": ("partial_rotary_factor", float), "--scaling": ("scaling", str),
                 "--factor": ("factor", float), "--low-freq-factor": ("low_freq_factor", float),
                 "--high-freq-factor": ("high_freq_factor", float),
                 "--original-max-position": ("original_max_position_embeddings", int),
                 "--attention-factor": ("attention_factor", float), "--truncate": ("truncate", lambda v: v == "true"),
                 "--tower": ("tower", str), "--vision": ("vision", str)}


@pytest.fixture(scope="module")
def manifest(tmp_path_factory):
    out = tmp_path_factory.mktemp("buggy_kernels")
    subprocess.run([sys.executable, str(SCRIPT), str(out)], check=True)
    with open(out / "manifest.json") as f:
        return {c["name"]: c for c in json.load(f)["cases"]}


def positions_of(value):
    """--positions as rope check reads it: a range A:B, or a .npy file."""
    if ":" in value and not value.endswith(".npy"):
        a, b = value.split(":")
        return np.arange(int(a), int(b))
    return np.load(value)


def axis_positions_of(path):
    """--axis-positions FILE (CSV with a header): M-RoPE's t,h,w as [3, seq] (HF's position_ids of one row), or a
    vision tower's h,w as patches [patches, 2]."""
    with open(path) as f:
        names = f.readline().strip().split(",")
        rows = [line.strip().split(",") for line in f if line.strip()]
    if "t" in names:
        return "positions", np.array([[int(r[names.index(k)]) for r in rows] for k in ("t", "h", "w")])
    return "patches", np.array([[int(r[names.index("h")]), int(r[names.index("w")])] for r in rows])


def call(args, lang="en"):
    """rope.check with the keywords of `rope check ARGS`'s flags."""
    source, spec, kw, positions = None, {}, {}, None
    before = after = None
    i = 0
    while i < len(args):
        flag = args[i]
        if flag == "--bf16-bits":  # 16-bit integers holding bfloat16 bit patterns
            kw["dtype"] = "bf16"
            i += 1
            continue
        if flag == "--strict-order":  # a harmless reordering of the output fails (issue 63 item 4)
            kw["strict_order"] = True
            i += 1
            continue
        value = args[i + 1]
        i += 2
        if flag == "--before":
            before = np.load(value)
        elif flag == "--after":
            after = np.load(value)
        elif flag == "--positions":
            positions = positions_of(value)
        elif flag == "--axis-positions" and value.endswith(".npy"):  # HF's position_ids [3, (batch,) seq]
            positions = np.load(value)
        elif flag == "--sequence-starts":
            kw["sequence_starts"] = [int(x) for x in value.split(",")]
        elif flag == "--axis-positions":
            key, table = axis_positions_of(value)
            if key == "positions":
                positions = table
            else:
                kw["patches"] = table
        elif flag in ("--model", "--config"):
            source = value
        elif flag in SPEC_KEYWORDS:
            key, kind = SPEC_KEYWORDS[flag]
            spec[key] = kind(value)
        elif flag == "--rope-delta":
            kw["rope_delta"] = int(value)
        elif flag in ("--angles", "--dtype", "--axes"):
            kw[flag[2:]] = value
        else:
            raise AssertionError(f"no keyword for {flag}")
    if source is None:  # no model: rope check takes d from the dump, rope.Spec from head_dim
        spec["head_dim"] = before.shape[-1]
    return rope.check(before, after, positions, rope.Spec(source, **spec), lang=lang, **kw)


def case_names():
    """The cases of buggy_kernels.py, in its order (read from its source: the manifest is written at test time;
    test_every_case_is_run compares the two)."""
    return re.findall(r'save\(\s*"(\w+)"', SCRIPT.read_text()) + ["mrope_no_delta"]


@pytest.mark.parametrize("name", case_names())
def test_case_as_the_command_line(manifest, name):
    case = manifest[name]
    r = call(case["args"])
    if case["exit"] == 0:
        assert r.passed, r.summary()
    else:
        assert not r.passed
    dg = r.data["diagnosis"]
    if case["layer_type"]:  # several layer types and none given: the one it passes as, or none named
        assert r.layer_type == case["layer_type"]["type"]
        assert r.data["layer_types"] == case["layer_type"]["types"]
        said = " ".join(r.notes) if r.passed else r.diagnosis
        assert case["text"] in said
        assert "give layer_type= to check one type" in said or "as the default one" in said
        zh = call(case["args"], lang="zh")
        said_zh = " ".join(zh.notes) if zh.passed else zh.diagnosis
        assert "sliding_attention" in said_zh and "PASS as" not in said_zh and "matches none" not in said_zh
        return
    if case["exit"] == 0:
        return
    if case["matches"] is None:  # no variant matches: the closest one that explains most, or where it departs
        assert dg["matches"] is None and dg["closest"] == case["closest"], r.diagnosis
        for key, value in (case["departure"] or {}).items():
            assert dg["departure"][key] == value
        assert case["text"] in r.diagnosis
        return
    assert r.matches == case["matches"], r.diagnosis
    for key, value in case["found"].items():
        assert dg["found"][key] == pytest.approx(value, rel=case["found_rel"]), dg["found"]
    if case["text"]:
        assert case["text"] in r.diagnosis
    zh = call(case["args"], lang="zh")
    assert zh.matches == r.matches and zh.data["diagnosis"]["found"] == dg["found"]
    assert zh.data["diagnosis"]["message"] == r.diagnosis  # the data stay the JSON's, in English
    assert zh.diagnosis and zh.diagnosis != r.diagnosis and "matches" not in zh.diagnosis
    assert any("\u4e00" <= c <= "\u9fff" for c in zh.diagnosis), zh.diagnosis


def test_every_case_is_run(manifest):
    assert sorted(case_names()) == sorted(manifest)


@pytest.mark.parametrize("lang, words", [("en", "without rope_deltas -12"), ("zh", "rope_deltas -12")])
def test_decode_without_rope_deltas(manifest, lang, words):
    r = call(manifest["mrope_no_delta"]["args"], lang=lang)
    assert r.matches == "mrope-delta-missing" and r.data["diagnosis"]["found"] == {"delta": -12}
    assert words in r.diagnosis


@pytest.mark.parametrize("lang, words", [("en", "read as [batch, 3, seq]"), ("zh", "[batch, 3, seq]")])
def test_batch_rows_read_as_thw(manifest, lang, words):
    r = call(manifest["mrope_batch_rows"]["args"], lang=lang)
    assert r.matches == "mrope-batch-rows" and r.data["diagnosis"]["found"] == {"batch": 2}
    assert words in r.diagnosis


def test_rope_delta_right_passes(manifest):
    """The decode dump at index + rope_deltas, as the model computes it: PASS (no false alarm from the keyword)."""
    case = manifest["mrope_no_delta"]
    q = np.load(case["args"][1])
    spec = rope.Spec("qwen3-vl-8b")
    at = np.arange(24, 28)
    ok = rope.reference(q, np.stack([at - 12] * 3), spec).astype(np.float32)
    assert rope.check(q, ok, at, spec, rope_delta=-12).passed
    assert not rope.check(q, ok, at, spec).passed
    # identify takes the keyword as rope identify --rope-delta: the positions shifted by it
    assert rope.identify(q, ok, at, rope_delta=-12) == rope.identify(q, ok, at - 12)


@pytest.mark.parametrize("bad, error, words", [
    (2.5, ValueError, "rope_delta must be a whole number"),
    (np.array([1, 2]), ValueError, "rope_delta: one number"),
    ("12", ValueError, "rope_delta: one number"),
])
def test_rope_delta_refused(manifest, bad, error, words):
    case = manifest["mrope_no_delta"]
    q = np.load(case["args"][1])
    with pytest.raises(error, match=words):
        rope.check(q, q, np.arange(24, 28), rope.Spec("qwen3-vl-8b"), rope_delta=bad)


def test_rope_delta_needs_positions(manifest):
    q = np.load(manifest["mrope_no_delta"]["args"][1])
    with pytest.raises(ValueError, match=r"rope_delta needs the decode tokens' sequence indices: give positions"):
        rope.check(q, q, None, rope.Spec("qwen3-vl-8b"), rope_delta=-12)


def test_the_variants_of_make_dumps(tmp_path):
    """tests/reference/make_dumps.py's dumps (rope check's older variants: the layout, partial rotary twice or over
    the whole head, the attention factor or the scaling ignored, angles in bf16, positions off by one, base 10000, the
    heads in the other layout, M-RoPE chunked or ignored, a vision tower's positions 0-based, decoding without
    rope_deltas, Bailing's h and w swapped) through rope.check: the verdict and the variant rope check gives (the
    safetensors cases aside: Python takes arrays)."""
    subprocess.run([sys.executable, str(ROOT / "tests" / "reference" / "make_dumps.py"), str(tmp_path)], check=True,
                   stdout=subprocess.DEVNULL)
    with open(tmp_path / "manifest.json") as f:
        cases = json.load(f)
    failures, named = [], set()
    for case in cases:
        if case["before"].endswith(".safetensors"):
            continue
        args = ["--before", str(tmp_path / case["before"]), "--after", str(tmp_path / case["after"])]
        if "axis_positions" in case:
            args += ["--axis-positions", str(tmp_path / case["axis_positions"])]
        else:
            args += ["--positions", case["positions"]]
        r = call(args + case["flags"])
        dg = r.data["diagnosis"] or {}
        if r.passed != (case["exit"] == 0):
            failures.append(f"{case['name']}: passed {r.passed}, rope check exits {case['exit']}: {r.diagnosis}")
        elif case.get("matches") and dg["matches"] != case["matches"]:
            failures.append(f"{case['name']}: matches {dg['matches']}, expected {case['matches']}: {r.diagnosis}")
        elif case.get("swapped") and dg["swapped_groups"] != case["swapped"]:
            failures.append(f"{case['name']}: swapped heads {dg['swapped_groups']}, expected {case['swapped']}")
        named.add(dg.get("matches"))
    assert not failures, "\n".join(failures)
    assert {"layout-swapped", "partial-rotary-twice", "partial-rotary-whole-head", "attention-factor-missing",
            "scaling-ignored", "angles-bf16", "positions-plus-one", "base-10000", "mrope-chunked", "mrope-ignored",
            "positions-minus-one", "mrope-delta-missing", "axes-swapped"} <= named, named
