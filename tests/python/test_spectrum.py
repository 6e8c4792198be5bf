"""rope.spectrum (issue 69) against the independent NumPy reference of tests/reference/spectrum.py, on arrays held in
memory (both layouts, two axis orders, a NoPE-like array), the same numbers as `rope spectrum --json` on the file, and
bad input refused as rope.check refuses it (ValueError). Tolerance as tests/cli/check_spectrum.py: 1e-9 relative,
1e-12 absolute (the order of sums and the FFT's rounding, some 1e-14)."""
import json
import math
import re
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


# Python's texts carry no command line's words and no blanks (issue 81 item 5): an array has no file name, its
# positions are said from their numbers, a Spec of plain settings is not "the model's class", and a Spec without a
# model is not "the command line".
CLI_WORDS = ("--", "the command line", "命令行")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_texts_without_command_line_words(lang):
    x = ref.synthetic(32, 1, 1, 16, "half", 3)[0]  # [seq, heads, d]
    for spec, positions in ((None, None), (rope.Spec(head_dim=16, base=10000), np.arange(5, 37)),
                            (rope.Spec(head_dim=16, base=10000, layout="half"), np.array([0, 3] + list(range(4, 34))))):
        text = rope.spectrum(np.ascontiguousarray(x), spec, positions=positions, lang=lang).text
        first = text.splitlines()[0]
        assert first.split("：" if lang == "zh" else ": ", 1)[1].strip(), text  # the file name is never blank
        for word in CLI_WORDS:
            assert word not in text, (word, text)
        assert "the model's class" not in text and "模型的类" not in text, text
        assert re.search(r"positions \S|位置 ?\S", text), text
    en = rope.spectrum(np.ascontiguousarray(x), rope.Spec(head_dim=16, base=10000), positions=np.arange(5, 37)).text
    assert "an array held in memory" in en and "positions 5:37" in en, en
    assert "assumed: Hugging Face's rotate_half; give layout" in en, en
    odd = rope.spectrum(np.ascontiguousarray(x), positions=np.array([0, 3] + list(range(4, 34)))).text
    assert "an array of 32, from 0 to 33" in odd, odd


def test_spec_names_no_command_line():
    spec = rope.Spec(head_dim=64, base=10000)
    assert spec.name == "the settings given"
    assert "command line" not in repr(spec), repr(spec)
