"""rope.watch reads a call's positions back from its cos/sin tables (issue 62 item 2): the slowest pair gives a position
known only modulo 2π/θ_min (54 400 at base 10000, d 128), so a correct call at 60 000 was read as 59 994 and blamed
"another base". Each candidate m₀ + k·2π/θ_min is tried and the one whose angles are every pair's is the position;
where several are, the call's cache_position picks one, and without it the watch says so. The tables are built here
as Hugging Face's LlamaRotaryEmbedding builds them (transformers models/llama/modeling_llama.py: inv_freq in float32,
freqs = inv_freq · position in float32, emb = cat(freqs, freqs), cos and sin in float32), with NumPy alone."""
import types

import numpy as np
import pytest

import rope
from rope import _watch


def tables(positions, d=128, base=10000.0, dtype=np.float32):
    inv_freq = (1.0 / base ** (np.arange(0, d, 2, dtype=np.int64).astype(np.float32) / d)).astype(np.float32)
    freqs = (np.asarray(positions, np.float32)[..., None] * inv_freq).astype(np.float32)
    emb = np.concatenate([freqs, freqs], axis=-1)
    return np.cos(emb).astype(dtype), np.sin(emb).astype(dtype)


SPEC = rope.Spec(head_dim=128, base=10000.0)


@pytest.mark.parametrize("positions", [[60000], [500000], [0, 1, 54399, 54400, 59994, 60000, 131071],
                                       list(range(1_000_000, 1_000_016))])
def test_long_positions_read_back(positions):
    cos, sin = tables([positions])
    got, problem = _watch.positions_from_tables(cos, sin, SPEC)
    assert problem == "" and got.tolist() == [positions]


def test_another_base_still_fails():
    cos, sin = tables([[60000]], base=500000.0)
    _, problem = _watch.positions_from_tables(cos, sin, SPEC)
    assert "not the spec's angles at any integer position" in problem


def test_an_ambiguous_table_is_said_or_resolved_by_the_cache_position():
    # One pair of θ = 0.01: positions 100 and 728 turn it by 1 and 7.28 rad, 0.0032 rad apart modulo 2π, within the
    # tables' rounding: both fit.
    spec = types.SimpleNamespace(inv_freq=np.array([0.01]), layout="half")
    cos, sin = np.cos([[[7.28, 7.28]]]), np.sin([[[7.28, 7.28]]])
    _, problem = _watch.positions_from_tables(cos, sin, spec)
    assert "hold the spec's angles at more than one position" in problem and "pass positions=" in problem
    for position in (100, 728):
        got, problem = _watch.positions_from_tables(cos, sin, spec, cache_position=np.array([position]))
        assert problem == "" and got.tolist() == [[position]]
