"""rope.check names the classic RoPE bugs as the command line does (issue 53): the same diagnosis (`matches`) and
parameter (`data["diagnosis"]["found"]`) on dumps of tests/reference/buggy_kernels.py's NumPy kernels; no closest
hint under half of the dump; a missing llama3 parameter names the keyword to pass."""
import numpy as np
import pytest

import rope
from buggy_kernels import hf_rope, interleaved_rope, inv_freq, yarn_theta

SPEC = rope.Spec(head_dim=64)  # plain RoPE, rotate_half, base 10000


def dump(positions, theta=None, seq_positions=None, sign=1.0):
    rng = np.random.default_rng(53)
    x = rng.standard_normal((len(positions), 2, 64)).astype(np.float32)
    at = positions if seq_positions is None else seq_positions
    return x, hf_rope(x, np.asarray(at), inv_freq(10000.0, 64) if theta is None else theta, sign=sign)


CASES = [
    ("reversed", dict(sign=-1.0), np.arange(64), "rotation-reversed", {}),
    ("integer division", dict(theta=np.ones(32, np.float32)), np.arange(64), "inv-freq-integer-division", {}),
    ("cache of 512", dict(seq_positions=np.minimum(np.arange(1024), 511)), np.arange(1024), "cos-sin-cache-short",
     {"length": 512, "wraps": 0}),
    ("position_ids ignored", dict(seq_positions=np.arange(256)), np.concatenate([np.arange(128)] * 2),
     "position-ids-ignored", {"restart": 128}),
]


@pytest.mark.parametrize("name, kw, positions, matches, found", CASES, ids=[c[0] for c in CASES])
def test_named(name, kw, positions, matches, found):
    x, y = dump(positions, **kw)
    r = rope.check(x, y, positions, SPEC, angles="float32")
    assert not r.passed
    assert r.matches == matches, r.diagnosis
    assert r.data["diagnosis"]["found"] == found


def test_positions_doubled_are_measured():
    x, y = dump(np.arange(64), seq_positions=2 * np.arange(64))  # positions doubled: measured, then named
    r = rope.check(x, y, np.arange(64), SPEC, angles="float32")
    assert r.matches == "positions-scaled" and r.data["diagnosis"]["found"] == {"scale": 2}
    d = r.data["diagnosis"]
    assert d["closest"] is None and d["measured"]["family"] == "linear"
    assert d["difference"] == [{"parameter": "position_scale", "expected": 1, "found": 2}]
    assert "the dump turns position m at 2·m" in r.diagnosis


def test_a_base_no_code_defaults_to_is_measured():
    x, y = dump(np.arange(64), theta=inv_freq(20000.0, 64))
    r = rope.check(x, y, np.arange(64), SPEC, angles="float32")
    assert r.matches == "base-other" and r.data["diagnosis"]["found"] == {"base": 20000}


def test_missing_llama3_parameter_names_the_keyword():
    with pytest.raises(ValueError, match=r"llama3 needs low_freq_factor: give low_freq_factor= \(Llama 3\.1: 1\)"):
        rope.Spec(head_dim=64, base=500000, scaling="llama3", factor=8, high_freq_factor=4,
                  original_max_position_embeddings=8192).inv_freq


def deepseek_q(d=64):
    """DeepSeek-V3's rope part (YaRN f 40 from 4096, base 10000, attention factor 1) at positions 0 … 255."""
    theta, _ = yarn_theta(10000.0, 64, 40.0, 4096, truncate=True)
    x = np.random.default_rng(7).standard_normal((256, 2, d)).astype(np.float32)
    return x, np.arange(256), theta


def test_llama_cpp_q_pe_against_hf_deepseek_is_named():
    """llama.cpp writes each pair back in place; HF's DeepSeek-V3 de-interleaves its output (issue 53)."""
    x, pos, theta = deepseek_q()
    llama_cpp, hf = interleaved_rope(x, pos, theta), interleaved_rope(x, pos, theta, deinterleave=True)
    r = rope.check(x, llama_cpp, pos, rope.Spec("deepseek-v3"))  # the same rotation in the other order: equivalent
    assert r.passed and r.equivalent == "interleaved-in-place" and r.matches == "output-interleaved"
    assert "the output is interleaved, as llama.cpp computes it" in r.diagnosis
    assert "PASS, equivalent: the output in the interleaved order" in r.summary()
    r = rope.check(x, llama_cpp, pos, rope.Spec("deepseek-v3"), strict_order=True)
    assert not r.passed and r.equivalent is None and r.matches == "output-interleaved"
    assert rope.check(x, llama_cpp, pos, rope.Spec("deepseek-v3", layout="interleaved")).passed
    assert rope.check(x, hf, pos, rope.Spec("deepseek-v3")).passed
    r = rope.check(x, hf, pos, rope.Spec("deepseek-v3", layout="interleaved"), strict_order=True)
    assert not r.passed and r.matches == "output-deinterleaved" and "as HF's DeepSeek-V3 computes it" in r.diagnosis
    assert rope.check(x, hf, pos, rope.Spec("deepseek-v3", layout="interleaved")).equivalent == "de-interleaved"


def test_identify_finds_a_rotated_block_after_pass_through_channels():
    """llama.cpp's legacy DeepSeek-2 q: head 192, the rope part on the last 64 channels, interleaved."""
    x, pos, theta = deepseek_q(192)
    y = x.copy()
    y[..., 128:] = interleaved_rope(x[..., 128:], pos, theta)
    got = rope.identify(x, y, pos)
    assert (got["layout"], got["rotary_offset"], got["rotary_dim"]) == ("interleaved", 128, 64)
    first = x.copy()
    first[..., :64] = interleaved_rope(x[..., :64], pos, theta)
    r = rope.check(x, first, pos, rope.Spec("deepseek-v3", layout="interleaved"))
    assert r.matches == "rotary-offset-other" and r.data["diagnosis"]["found"] == {"offset": 0}
