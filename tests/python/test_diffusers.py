"""diffusers' image and video transformers in Python (issue 79, docs/multi-axis.md §8): rope.Spec of a diffusers
transformer/config.json (by its _class_name), rope.grid_positions against tests/reference/diffusers_rope.py (NumPy
ports of the diffusers modules at 58eb52c080) and rope.check of the port's dumps: each passes as the source computes
it, the named mistakes fail, each named by its row."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import rope

REFERENCE = Path(__file__).resolve().parents[1] / "reference"
sys.path.insert(0, str(REFERENCE))
import diffusers_rope as dr  # noqa: E402


@pytest.fixture(scope="module")
def dumps(tmp_path_factory):
    out = tmp_path_factory.mktemp("diffusers")
    subprocess.run([sys.executable, str(REFERENCE / "diffusers_rope.py"), str(out)], check=True)
    return out, json.loads((out / "manifest.json").read_text())["cases"]


@pytest.mark.parametrize("model", dr.MODELS)
def test_grid_positions_as_the_port(tmp_path, model):
    cfg = dr.config(model, **dr.DUMP_OVERRIDES.get(model, {}))
    path = tmp_path / "config.json"
    path.write_text(json.dumps(dr.diffusers_config(cfg)))
    case = dr.CASES[model]
    fps = 24 if model in ("ltx", "cosmos") else None
    got = rope.grid_positions(rope.Spec(str(path)), case["latent_shape"], text=case.get("text", 0),
                              reference_images=case.get("reference_images", 0), fps=fps)
    want = dr.positions(cfg, case["latent_shape"], text=case.get("text", 0),
                        reference_images=case.get("reference_images", 0), fps=fps)
    assert got.dtype == np.float64 and got.shape == want.shape
    assert np.abs(got - want).max() <= 1e-12


NAMED = {"mistake_hunyuan_base10000_f32": "base-10000", "mistake_cosmos_fps16_f32": "axis-positions-scaled",
         "mistake_wan_split_12538_d64_f32": "axis-widths-other", "mistake_qwenimage_not_centred_f32": "axis-not-centred",
         "mistake_qwenimage_text_start_f32": "text-positions-other", "mistake_cosmos3_chunked_f32": "mrope-chunked"}


def test_dumps_pass_and_mistakes_fail(dumps):
    out, cases = dumps
    for case in cases:
        if case["rope_width"] != case["d"] or case["layout"] != "bshd":
            continue  # LTX's whole-vector dumps and the [b, h, s, d] ones: tests/cli/check_diffusers.py
        if case["name"] == "mistake_wan_split_12538_d64_bf16":
            continue  # the #12538 split stays within bf16's tolerance (C1) there (max ratio 0.51): check passes it
        d = out / case["dir"]
        spec = rope.Spec(str(d / "config.json"))
        rows = (d / "positions.csv").read_text().split("\n")[1:]
        positions = np.array([[float(v) for v in r.split(",")] for r in rows if r]).T  # [axes, seq]
        report = rope.check(np.load(d / "q.npy"), np.load(d / "q_rope.npy"), positions, spec,
                            dtype="bf16" if case["dtype"] == "bf16" else None, axes="batch,seq,heads,d")
        assert report.passed == (case["expect"] == "pass"), (case["name"], report.diagnosis)
        if case["name"] in NAMED:
            assert report.data["diagnosis"]["matches"] == NAMED[case["name"]], report.diagnosis


def test_grid_positions_refuses_another_model(tmp_path):
    with pytest.raises(ValueError, match="no diffusers transformer"):
        rope.grid_positions(rope.Spec("qwen2-vl-7b"), (1, 4, 4))


def test_grid_positions_checks_every_product_and_argument():
    """Each argument by its own name and rule, every product checked before it can overflow: Wan's sides of 2^22
    multiplied to 2^64 (0 after wrapping), text 2^63 − 1 wrapped negative, and floats read by their whole part."""
    wan, flux = rope.Spec("wan2.1-t2v-1.3b"), rope.Spec("flux.1-dev")
    with pytest.raises(ValueError, match="holds more tokens than the limit of 4194304"):
        rope.grid_positions(wan, (2**22, 2**22, 2**22))
    for text in (2**63 - 1, -1):
        with pytest.raises(ValueError, match=rf"text\S* must be between 0 and 4194304 \(got {text}\)"):
            rope.grid_positions(flux, (1, 4, 4), text=text)
    with pytest.raises(TypeError, match=r"latent_shape must be an integer \(got 1.9\)"):
        rope.grid_positions(wan, (1.9, 4.7, 4.2))
    with pytest.raises(TypeError, match=r"text must be an integer \(got 2.9\)"):
        rope.grid_positions(flux, (1, 4, 4), text=2.9)



@pytest.mark.parametrize("scale, attention", [(None, "regular"), ((1, 2, 2), "regular"), ((2, 1.5, 3.16), "nabla")])
def test_grid_positions_kandinsky5_scale_factor_as_the_port(tmp_path, scale, attention):
    # tests/reference/diffusers_rope_2026.py: (f, h, w) / scale_factor, fractal_flatten's order for nabla; without a
    # scale_factor the pipeline's rule for the latent (a 64 x 128-pixel frame: (1, 3.16, 3.16)).
    import diffusers_rope_2026 as d26
    cfg = d26.config("kandinsky5", attention_type=attention)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(d26.diffusers_config(cfg)))
    latent = (3, 16, 32)
    got = rope.grid_positions(rope.Spec(str(path)), latent, scale_factor=scale)
    want = d26.positions(cfg, latent, scale=scale)
    assert got.dtype == np.float64 and got.shape == want.shape == (3 * 8 * 16, 3)
    assert np.abs(got - want).max() <= 1e-15
    with pytest.raises(ValueError, match="scale_factor"):
        rope.grid_positions(rope.Spec(str(path)), latent, scale_factor=(1, 2))
    with pytest.raises(ValueError, match="Kandinsky 5"):
        rope.grid_positions(rope.Spec("wan2.1-t2v-1.3b"), (1, 4, 4), scale_factor=(1, 2, 2))
