"""rope.reference against an independent NumPy RoPE (conftest.numpy_rope, from Hugging Face's
apply_rotary_pos_emb), for every shape rope check takes. Both compute in float64 from the same θ_i
and the same angles m·θ_i; np.cos/np.sin and the C library's cos/sin differ by a few ulps at most, so
1e-12 absolute on values of order 1 (‖pair‖ ≲ 6 for N(0, 1) inputs, a ≤ 1.1)."""
import numpy as np
import pytest

import rope
from conftest import numpy_rope

ATOL = 1e-12


def test_seq_heads_d_long_positions(rng):
    spec = rope.Spec("llama-3.1-8b")
    positions = np.arange(0, 131072 + 4099, 4099)
    q = rng.standard_normal((len(positions), 4, 128)).astype(np.float32)
    got = rope.reference(q, positions, spec)
    want = numpy_rope(np.swapaxes(q, 0, 1), positions, spec.inv_freq, spec.attention_factor)
    assert got.dtype == np.float64 and got.shape == q.shape
    np.testing.assert_allclose(got, np.swapaxes(want, 0, 1), rtol=0, atol=ATOL)


def test_seq_d_and_batch_heads_seq_d(rng):
    spec = rope.Spec("qwen2.5-7b")
    x = rng.standard_normal((10, spec.head_dim))
    np.testing.assert_allclose(rope.reference(x, np.arange(10), spec), numpy_rope(x, np.arange(10), spec.inv_freq),
                               rtol=0, atol=ATOL)
    q = rng.standard_normal((2, 3, 10, spec.head_dim))  # HF's [batch, heads, seq, d]
    positions = np.arange(5, 15)
    np.testing.assert_allclose(rope.reference(q, positions, spec), numpy_rope(q, positions, spec.inv_freq),
                               rtol=0, atol=ATOL)


def test_batch_rows_with_their_own_positions(rng):
    spec = rope.Spec(head_dim=64)
    q = rng.standard_normal((3, 1, 2, 64))  # [batch, seq, heads, d]: batched decode
    positions = np.array([[7], [100], [5000]])
    got = rope.reference(q, positions, spec, axes="batch,seq,heads,d")
    want = np.stack([numpy_rope(q[b].transpose(1, 0, 2), positions[b], spec.inv_freq).transpose(1, 0, 2) for b in range(3)])
    np.testing.assert_allclose(got, want, rtol=0, atol=ATOL)


def test_partial_interleaved_and_offset(rng):
    gptj = rope.Spec("gpt-j-6b")  # 64 of 256 channels, pairs (2i, 2i+1)
    x = rng.standard_normal((6, 256))
    want = numpy_rope(x, np.arange(6), gptj.inv_freq, layout="interleaved")
    np.testing.assert_allclose(rope.reference(x, np.arange(6), gptj), want, rtol=0, atol=ATOL)
    assert np.array_equal(rope.reference(x, np.arange(6), gptj)[:, 64:], x[:, 64:])
    ds = rope.Spec("deepseek-v3")  # YaRN with its attention factor; the rotary part alone (HF's q_pe)
    x = rng.standard_normal((6, ds.rotary_dim))
    want = numpy_rope(x, np.arange(6), ds.inv_freq, ds.attention_factor, layout=ds.layout)
    # HF's apply_rotary_pos_emb_interleave (modeling_deepseek_v3.py) reads the pairs at (2i, 2i+1) and writes them
    # de-interleaved, at (i, i + r/2): the interleaved rotation with its output channels regrouped.
    r = ds.rotary_dim
    want = np.concatenate([want[:, 0:r:2], want[:, 1:r:2]], axis=1)
    np.testing.assert_allclose(rope.reference(x, np.arange(6), ds), want, rtol=0, atol=ATOL)


def test_more_than_2_24_elements_are_cut_along_the_heads(rng):
    # issue 63 item 5: refused before. [2, 8200, 8, 128] (2^24 + 2^17 elements): four heads a slice.
    spec = rope.Spec("llama-3.1-8b")
    x = rng.standard_normal((2, 8200, 8, 128), dtype=np.float32).astype(np.float16)
    assert x.size > 2 ** 24
    positions = np.arange(8200) + 100000  # beyond llama3's original context: every band turns
    got = rope.reference(x, positions, spec)
    assert got.dtype == np.float64 and got.shape == x.shape
    for h in range(8):  # the NumPy RoPE one head at a time (memory)
        np.testing.assert_allclose(got[:, :, h, :], numpy_rope(x[:, :, h, :], positions, spec.inv_freq,
                                                               spec.attention_factor), rtol=0, atol=1e-11)


@pytest.mark.parametrize("shape, positions, cut", [
    ((2, 30, 6, 96), np.arange(30), 2),  # [batch, seq, heads, d]: a head a slice
    ((7, 1, 40, 96), np.arange(40) * 997, 0),  # one head larger than a slice: batch rows sharing the positions
    ((3, 5, 20, 96), np.array([np.arange(20), np.arange(20) + 9, np.arange(20) * 3]), 1),  # rows' own: heads
])
def test_slices_turn_with_the_positions_of_the_whole(rng, monkeypatch, shape, positions, cut):
    # The slicing at a small limit (rope._REFERENCE_SLICE is the library's 2^24), against the whole array computed
    # in one call: the same numbers, bit for bit.
    spec = rope.Spec("phi-3-mini-128k")  # LongRoPE: the largest position picks the factors, kept by every slice
    x = rng.standard_normal(shape)
    whole = rope.reference(x, positions, spec)
    monkeypatch.setattr(rope, "_REFERENCE_SLICE", 6000)
    cuts = rope._rope.reference_slices(list(shape), np.asarray(positions, dtype=np.float64), "", 6000)[1]
    assert len(cuts) > 1 and all(axis == cut for axis, _, _ in cuts)
    assert np.array_equal(rope.reference(x, positions, spec), whole)
