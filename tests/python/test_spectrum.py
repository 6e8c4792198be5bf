"""rope.spectrum (issue 69) against the independent NumPy reference of tests/reference/spectrum.py, on arrays held in
memory (both layouts, two axis orders, a NoPE-like array), the same numbers as `rope spectrum --json` on the file, and
bad input refused as rope.check refuses it (ValueError). Tolerance as tests/cli/check_spectrum.py: 1e-9 relative,
1e-12 absolute (the order of sums and the FFT's rounding, some 1e-14)."""
import json
import math
import subprocess

import numpy as np
import pytest

import rope
import spectrum as ref


def _close(got, want):
    for g, w in zip(got, want):
        assert g["pair"] == w["pair"] and g["flat"] == w["flat"]
        for key in ("wavelength", "energy_share", "frequency_entropy"):
            assert math.isclose(g[key], w[key], rel_tol=1e-9, abs_tol=1e-12), (w["pair"], key, g[key], w[key])


@pytest.mark.parametrize("layout,order,nope", [("half", "seq,heads,d", False),
                                               ("interleaved", "batch,heads,seq,d", False),
                                               ("half", "batch,seq,heads,d", False),
                                               ("half", "seq,heads,d", True)])
def test_against_numpy(layout, order, nope):
    x = ref.synthetic(96, 2, 2 if order.startswith("batch") else 1, 128, layout, 11, nope=nope)  # [b, s, h, d]
    want = ref.reference(x, layout, "f64")
    arr = {"seq,heads,d": lambda k: k[0], "batch,heads,seq,d": lambda k: k.transpose(0, 2, 1, 3),
           "batch,seq,heads,d": lambda k: k}[order](x)
    spec = rope.Spec(head_dim=128, base=10000, layout=layout)
    got = rope.spectrum(np.ascontiguousarray(arr), spec, axes=order)
    _close(got.pairs, want["pairs"])
    for g, w in zip(got.heads, want["heads"]):
        _close(g["pairs"], w["pairs"])
    assert got.bands["energy"]["first"] == want["bands"]["energy"]["first"]
    assert got.bands["energy"]["last"] == want["bands"]["energy"]["last"]
    assert got.bands["lowest_entropy"] == want["bands"]["lowest_entropy"]
    assert got.bands["highest_entropy"] == want["bands"]["highest_entropy"]


def test_same_as_the_command(rope_exe, root):
    dump = root / "data" / "dumps" / "q_spectrum.npy"
    cli = json.loads(subprocess.run([rope_exe, "spectrum", "--dump", str(dump), "--json"], check=True,
                                    capture_output=True, text=True).stdout)
    got = rope.spectrum(np.load(dump))
    assert got.data["pairs"] == cli["pairs"]
    assert got.data["bands"] == cli["bands"]
    assert got.notes and "base 10000" in got.notes[0]
    assert "44 … 63" in rope.spectrum(np.load(dump), lang="zh").text


def test_bad_input_as_check():
    x = np.zeros((16, 8), np.float32)
    x[3, 2] = np.nan
    with pytest.raises(ValueError, match="not finite"):
        rope.spectrum(x)
    with pytest.raises(ValueError):
        rope.spectrum(np.zeros((16, 7)))
    with pytest.raises(ValueError):
        rope.spectrum(np.zeros((16, 8)), positions=np.arange(15))
