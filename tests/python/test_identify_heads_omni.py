"""rope.identify and rope.grid_positions as the command line reads them (issue 93): a dump of LTX's table in heads
read with its heads side by side, the family named and the reading given as `heads_together` (the key of
`rope identify --json`); Z-Image's omni positions (`condition_images`, `siglip_grids`, `omni`) equal to
`rope positions --condition-image … --json` and to the NumPy port of diffusers' own methods
(tests/reference/diffusers_rope_2026.py z_image_omni_ids: transformer_z_image.py 625-762, 838-851 at 58eb52c080), and
its bad requests refused with the command's sentences."""
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
import diffusers_rope_2026 as dr26  # noqa: E402
import ltx2_rope as l2  # noqa: E402

# Z-Image's omni requests and their command lines (`rope positions … --json`), those the command's own test runs.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from check_diffusers_2026 import OMNI, omni_args  # noqa: E402


def ltx_video_in_heads():
    """LTX-Video at its released size (transformer_ltx.py:431-469: 32 heads x 64, one table over 2048 channels) on
    diffusers_rope.py's 3 x 2 x 3 latent, float32, as its processor holds q after the split: [1, S, 32, 64]."""
    cfg = dr.config("ltx")
    lat = dr.CASES["ltx"]["latent_shape"]
    pos = dr.positions(cfg, lat)
    x = np.random.default_rng(11).standard_normal((1, len(pos), 32, 64)).astype(np.float32)
    return x, dr.source_apply(x, cfg, lat), pos, 32, 64, ("LTX-Video", "ltx-video"), 10000.0, 0


def ltx2_split_in_heads():
    """LTX-2's split table (transformer_ltx2.py LTX2AudioVideoRotaryPosEmbed, ltx2_rope.py) at ltx2_rope.py's small
    size (4 heads x 32, each head its own slice) on its 3 x 2 x 3 latent, float32, [1, S, 4, 32]."""
    cfg = l2.config(rope_type="split", **l2.SMALL)
    pos = l2.positions(cfg, l2.LATENT)
    h, d = cfg["num_attention_heads"], cfg["attention_head_dim"]
    x = np.random.default_rng(12).standard_normal((1, len(pos), h * d)).astype(np.float32)
    y = l2.source_apply(x, cfg, l2.LATENT)
    return x.reshape(1, -1, h, d), y.reshape(1, -1, h, d), pos, h, d, None, cfg["rope_theta"], h


@pytest.mark.parametrize("dump", [ltx_video_in_heads, ltx2_split_in_heads], ids=lambda f: f.__name__)
def test_identify_reads_heads_side_by_side(tmp_path, rope_exe, dump):
    x, y, pos, heads, head_dim, family, base, grid_heads = dump()
    got = rope.identify(x, y, np.asarray(pos).T, axes="batch,seq,heads,d")
    assert got["heads_together"] == {"heads": heads, "head_dim": head_dim}
    assert got["d"] == heads * head_dim
    grid = got["grid"]
    assert grid["per_frequency"] and grid["heads"] == grid_heads
    assert abs(grid["base"] / base - 1) <= 1e-3, grid["base"]  # float32 angles: the fit is within 1e-6 of it here
    if family:
        assert {"family": family[0], "preset": family[1]} in grid["families"]
    # The command's --json on the same arrays: one reading, every key equal.
    np.save(tmp_path / "q.npy", x)
    np.save(tmp_path / "q_rope.npy", y)
    with open(tmp_path / "positions.csv", "w") as fh:
        fh.write("t,h,w\n" + "".join(",".join(repr(float(v)) for v in row) + "\n" for row in pos))
    cli = subprocess.run([rope_exe, "identify", "--before", str(tmp_path / "q.npy"), "--after",
                          str(tmp_path / "q_rope.npy"), "--axis-positions", str(tmp_path / "positions.csv"), "--axes",
                          "batch,seq,heads,d", "--json"], capture_output=True, text=True, check=True)
    want = json.loads(cli.stdout)
    assert want["heads_together"] == got["heads_together"]
    assert want["grid"] == grid


def test_identify_heads_together_is_none_for_heads_sharing_a_table():
    """A dump whose heads share one table (plain RoPE over 2 heads) is read as such: heads_together None."""
    x = np.random.default_rng(3).standard_normal((16, 2, 32))
    inv = 10000.0 ** (-np.arange(16) / 16)
    ang = np.arange(16)[:, None, None] * inv
    c, s = np.cos(ang), np.sin(ang)
    y = np.concatenate([x[..., :16] * c - x[..., 16:] * s, x[..., 16:] * c + x[..., :16] * s], axis=-1)
    got = rope.identify(x, y, np.arange(16))
    assert got["heads_together"] is None and got["layout"] == "half"


@pytest.fixture(scope="module")
def configs(tmp_path_factory):
    """Z-Image's and HunyuanVideo 1.5's transformer/config.json as diffusers_rope_2026.py writes them."""
    out = {}
    for model in ("zimage", "hunyuan15"):
        cfg = dr26.config(model)
        path = tmp_path_factory.mktemp(model) / "config.json"
        path.write_text(json.dumps(dr26.diffusers_config(cfg)))
        out[model] = (cfg, path)
    return out


@pytest.mark.parametrize("lat,conds,caps,sig", OMNI)
def test_grid_positions_omni_as_the_command(rope_exe, configs, lat, conds, caps, sig):
    cfg, path = configs["zimage"]
    got = rope.grid_positions(rope.Spec(str(path)), lat, text=caps, condition_images=conds, siglip_grids=sig or (),
                              omni=not conds)
    cli = subprocess.run([rope_exe, *omni_args(str(path), lat, conds, caps, sig)], capture_output=True,
                         text=True, check=True)
    want = np.array(json.loads(cli.stdout)["positions"], dtype=np.float64)
    assert got.dtype == np.float64 and got.shape == want.shape
    assert np.array_equal(got, want)
    port, _ = dr26.z_image_omni_ids(cfg, list(conds) + [lat], caps, None if sig is None else list(sig) + [None])
    assert np.array_equal(got, np.asarray(port, dtype=np.float64))


# Bad omni requests: the model, the keywords, and the command line's options for the same request; both refused with
# the library's sentence, the options named as each front end names them.
REFUSED = [
    ("zimage", dict(condition_images=[(1, 4, 6)], text=[5, 3]),
     ["--condition-image", "1x4x6", "--text", "5", "--text", "3"]),
    ("zimage", dict(condition_images=[(1, 4, 6)], siglip_grids=[(3, 4), (3, 4)], text=[5, 3, 2]),
     ["--condition-image", "1x4x6", "--siglip-grid", "3x4", "--siglip-grid", "3x4", "--text", "5", "--text", "3",
      "--text", "2"]),
    ("zimage", dict(condition_images=[(1, 4, 6)], siglip_grids=[(0, 4)], text=[5, 3, 2]),
     ["--condition-image", "1x4x6", "--siglip-grid", "0x4", "--text", "5", "--text", "3", "--text", "2"]),
    ("zimage", dict(condition_images=[(1, 5, 6)], text=[5, 3, 2]),
     ["--condition-image", "1x5x6", "--text", "5", "--text", "3", "--text", "2"]),
    ("zimage", dict(omni=True, text=[5, 3]), ["--omni", "--text", "5", "--text", "3"]),
    ("hunyuan15", dict(condition_images=[(1, 4, 6)], text=[5, 3, 2]),
     ["--condition-image", "1x4x6", "--text", "5", "--text", "3", "--text", "2"]),
    ("hunyuan15", dict(omni=True, text=[5]), ["--omni", "--text", "5"]),
]
NAMES = {"--condition-image": "condition_images", "--siglip-grid": "siglip_grids", "--text": "text",
         "--omni": "omni"}


@pytest.mark.parametrize("model,keywords,options", REFUSED)
def test_grid_positions_omni_refused_as_the_command(rope_exe, configs, model, keywords, options):
    _, path = configs[model]
    cli = subprocess.run([rope_exe, "positions", "--config", str(path), "--latent-shape", "1x4x6", *options],
                         capture_output=True, text=True)
    assert cli.returncode == 2 and cli.stdout == "" and len(cli.stderr.strip().splitlines()) == 1, cli.stderr
    sentence = cli.stderr.strip().split(": ", 1)[1] if cli.stderr.startswith("rope") else cli.stderr.strip()
    for option, keyword in NAMES.items():
        sentence = sentence.replace(option, keyword)
    with pytest.raises(ValueError) as raised:
        rope.grid_positions(rope.Spec(str(path)), (1, 4, 6), **keywords)
    assert str(raised.value) == sentence


@pytest.mark.parametrize("keywords,error", [(dict(condition_images=[(1, 4)]), ValueError),
                                            (dict(siglip_grids=[3]), TypeError),
                                            (dict(text=[5, 0, 2], condition_images=[(1, 4, 6)]), ValueError),
                                            (dict(omni="yes"), TypeError)])
def test_grid_positions_omni_argument_types(configs, keywords, error):
    _, path = configs["zimage"]
    with pytest.raises(error):
        rope.grid_positions(rope.Spec(str(path)), (1, 4, 6), **keywords)
