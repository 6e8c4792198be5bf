"""rope.testing.cases of an M-RoPE model (issue 54 item 2): real (t, h, w) position ids of an image grid and a video
grid between text, [3, seq] and [3, batch, seq], and a decode step at index + rope_deltas, as Hugging Face's
get_rope_index builds them (rope.mrope_positions, the numbers of `rope positions`). A NumPy M-RoPE kernel written
here (each pair turned by its axis's id, the model's mrope_section) passes every case; a kernel that reads the t row
for every axis passes the text cases and fails these with the bug named (mrope-t-for-all)."""
import csv
import io
import subprocess

import numpy as np
import pytest

import rope

MROPE = ["qwen2-vl-7b", "qwen2.5-vl-7b", "qwen3-vl-8b", "qwen3.5-9b"]


def mrope_kernel(spec, t_only=False):
    """fn(q, positions) for q [..., seq, heads, d]: pair i turns by θ_i · p[axis(i)] (float32, rotate_half); 1-D
    positions are text's, t = h = w. t_only: the bug, the t row read for every axis."""
    theta = spec.inv_freq.astype(np.float32)
    axis = np.asarray(spec.data["pair_axis"])
    rotary = spec.rotary_dim

    def kernel(q, positions):
        x = np.asarray(q, dtype=np.float32)
        p = np.asarray(positions).astype(np.float32)
        if p.ndim == x.ndim - 2:  # [seq] or [batch, seq]: text
            p = np.broadcast_to(p, (3,) + p.shape)
        if t_only:
            p = np.broadcast_to(p[:1], p.shape)
        angles = np.stack([p[axis[i]] * theta[i] for i in range(len(theta))], -1)  # [..., seq, pairs]
        cos, sin = np.cos(angles)[..., None, :], np.sin(angles)[..., None, :]
        half = rotary // 2
        a, b = x[..., :half], x[..., half:rotary]
        out = np.concatenate([a * cos - b * sin, a * sin + b * cos, x[..., rotary:]], -1)
        return out.astype(np.asarray(q).dtype) if np.asarray(q).dtype == np.float16 else out

    return kernel


@pytest.mark.parametrize("name", MROPE)
def test_mrope_model_has_vision_cases(name):
    spec = rope.Spec(name)
    cases = {c.id: c for c in rope.testing.cases(spec)}
    assert {"mrope-image-video", "mrope-batched", "mrope-decode"} <= set(cases)
    one, batched, step = cases["mrope-image-video"], cases["mrope-batched"], cases["mrope-decode"]
    assert one.positions.shape == (3, one.q.shape[0])
    assert batched.positions.shape == (3, 2, batched.q.shape[1]) and batched.axes == "batch,seq,heads,d"
    assert step.positions.shape == (3, 2, 1) and step.q.shape[:2] == (2, 1)
    for ids in (one.positions, batched.positions[:, 0], batched.positions[:, 1]):
        assert (ids[1] != ids[0]).any() and (ids[2] != ids[0]).any()  # vision tokens: h, w are not t
    assert (step.positions == step.positions[:1]).all()  # decode: the same id on t, h and w
    assert step.positions[0, 0, 0] != step.positions[0, 1, 0]  # each row its own rope_deltas


def test_text_model_has_no_mrope_cases():
    assert not [c.id for c in rope.testing.cases("llama-3.1-8b") if c.id.startswith("mrope")]


@pytest.mark.parametrize("name", MROPE)
def test_mrope_kernel_passes_every_case(name):
    spec = rope.Spec(name)
    result = rope.testing.check_implementation(mrope_kernel(spec), spec)
    assert result.passed, str(result)
    assert "mrope-decode" in result.cases_run


@pytest.mark.parametrize("name", MROPE)
def test_t_row_only_kernel_fails_with_the_bug_named(name):
    spec = rope.Spec(name)
    result = rope.testing.check_implementation(mrope_kernel(spec, t_only=True), spec)
    assert not result.passed
    assert result.case.id == "mrope-image-video"  # every text case before it passed
    assert result.report.matches == "mrope-t-for-all", result.report.data["diagnosis"]
    assert "t row" in result.diagnosis
    batched = next(c for c in rope.testing.cases(spec) if c.id == "mrope-batched")
    report = rope.testing.check_case(mrope_kernel(spec, t_only=True), batched)
    assert report.matches == "mrope-t-for-all", report.data["diagnosis"]


def test_positions_are_rope_positions(rope_exe):
    """rope.mrope_positions gives the ids and rope_deltas `rope positions` prints (the same library function)."""
    segments = [("text", 4), ("image", (1, 4, 6)), ("text", 3), ("video", (2, 4, 4)), ("text", 2)]
    ids, delta = rope.mrope_positions(segments, "qwen2.5-vl-7b", decode=2)
    run = subprocess.run([rope_exe, "positions", "--model", "qwen2.5-vl-7b", "--text", "4", "--image", "1x4x6",
                          "--text", "3", "--video", "2x4x4", "--text", "2", "--decode", "2", "--csv", "-"],
                         capture_output=True, text=True, check=True)
    rows = list(csv.DictReader(io.StringIO(run.stdout)))
    assert ids.tolist() == [[int(r[a]) for r in rows] for a in "thw"]
    assert f"rope_deltas = {delta}:" in subprocess.run(
        [rope_exe, "positions", "--model", "qwen2.5-vl-7b", "--text", "4", "--image", "1x4x6", "--text", "3",
         "--video", "2x4x4", "--text", "2", "--decode", "2"], capture_output=True, text=True, check=True).stdout
    prefill = len(rows) - 2
    assert (ids[:, prefill:] == np.arange(prefill, prefill + 2) + delta).all()


def test_positions_refuse_a_bad_segment():
    with pytest.raises(TypeError, match=r'\("text", n\)'):
        rope.mrope_positions([("audio", 3)])
    with pytest.raises(ValueError, match="image"):
        rope.mrope_positions([("text", 2), ("image", (1, 3, 4))])  # 3 rows do not merge by 2


@pytest.mark.parametrize("config, streams, video", [("hunyuan-vl.json", "pwht", False),
                                                    ("openpangu-vl.json", "thw", True)])
def test_vl_positions_are_rope_positions(rope_exe, root, config, streams, video):
    """HunyuanVL's four streams (p, w, h, t; no rope_deltas) and openPangu-VL's ids (a video split into its frames):
    rope.mrope_positions with their configs gives what `rope positions --config` prints (docs/multi-axis.md (X1),
    (P1))."""
    path = f"{root}/data/configs/{config}"
    segments = [("text", 2), ("image", (1, 4, 6)), ("text", 1)] + ([("video", (2, 4, 4))] if video else [])
    ids, delta = rope.mrope_positions(segments, path, decode=2)
    args = ["--text", "2", "--image", "1x4x6", "--text", "1"] + (["--video", "2x4x4"] if video else [])
    run = subprocess.run([rope_exe, "positions", "--config", path, *args, "--decode", "2", "--csv", "-"],
                         capture_output=True, text=True, check=True)
    rows = list(csv.DictReader(io.StringIO(run.stdout)))
    assert ids.tolist() == [[int(r[a]) for r in rows] for a in streams]
    if not video:
        assert delta == 0 and ids[1, 4] == 0 and ids[1, 7] == 3  # the first row from index 4, its newline column 3
