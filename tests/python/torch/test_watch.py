"""rope.watch (issue 54 item 3) on a tiny model that mirrors Hugging Face's Llama RoPE (tiny_llama.py), with Debian's
PyTorch: the correct model passes every call, each reported with its layer and call site; a planted bug in one layer
is found in that layer alone, at the first failure or with every call collected; positions come from the call's
position_ids, the watch's positions=, or the cos/sin tables; an adapter watches a function of another signature."""
import numpy as np
import pytest
import torch

import rope
import tiny_llama

SPEC = rope.Spec("llama-3.1-8b")


def run(model, seq=24, batch=2, start=0):
    ids = torch.randint(0, 100, (batch, seq), generator=torch.Generator().manual_seed(1))
    positions = torch.arange(start, start + seq)[None].expand(batch, -1)
    with torch.no_grad():
        model(ids, positions)
    return positions


def test_correct_model_passes_every_call():
    model = tiny_llama.TinyModel(SPEC)
    with rope.watch(tiny_llama, "apply_rotary_pos_emb", SPEC) as watch:
        run(model, start=8000)  # past L0 = 8192 within the sequence: llama3's scaled pairs
    assert tiny_llama.apply_rotary_pos_emb.__name__ == "apply_rotary_pos_emb"
    assert not hasattr(tiny_llama.apply_rotary_pos_emb, "__wrapped__")  # restored after the block
    assert watch.passed, watch.summary()
    assert [c.layer for c in watch.calls] == [0, 1, 2, 3]
    assert all(c.positions_from == "cos/sin" and "tiny_llama.py" in c.site and "in forward" in c.site
               for c in watch.calls)
    assert watch.calls[0].positions.tolist() == [list(range(8000, 8024))] * 2
    assert watch.summary().endswith("4 calls, 0 failed")


def test_correct_model_in_bf16_passes():
    model = tiny_llama.TinyModel(SPEC, dtype=torch.bfloat16)
    with rope.watch(tiny_llama, "apply_rotary_pos_emb", SPEC) as watch:
        run(model, start=100)
    assert watch.passed, watch.summary()


def test_whole_model_to_bf16_rounds_inv_freq():
    """model.to(torch.bfloat16) casts the inv_freq buffer too: every layer's table is off (angles of bf16 θ)."""
    model = tiny_llama.TinyModel(SPEC).to(torch.bfloat16)
    with rope.watch(tiny_llama, "apply_rotary_pos_emb", SPEC, collect=True) as watch:
        run(model, start=100)
    assert [c.layer for c in watch.failures] == [0, 1, 2, 3]
    assert "not the spec's angles" in watch.failures[0].problem


def test_planted_bug_stops_at_its_layer():
    model = tiny_llama.TinyModel(SPEC, bug_layer=2)
    with pytest.raises(rope.WatchFailure) as raised:
        with rope.watch(tiny_llama, "apply_rotary_pos_emb", SPEC) as watch:
            run(model)
    assert "FAIL layer 2" in str(raised.value) and "not the spec's angles" in str(raised.value)
    assert [c.passed for c in watch.calls] == [True, True, False]  # stopped at the failing call
    assert not hasattr(tiny_llama.apply_rotary_pos_emb, "__wrapped__")


def test_planted_bug_collected_in_one_layer_alone():
    model = tiny_llama.TinyModel(SPEC, bug_layer=2)
    with rope.watch(tiny_llama, "apply_rotary_pos_emb", SPEC, collect=True) as watch:
        run(model)
    assert [c.layer for c in watch.failures] == [2]
    assert len(watch.calls) == 4 and not watch.passed
    with pytest.raises(AssertionError, match="FAIL layer 2"):
        watch.assert_passed()


def test_positions_given_name_the_bug():
    """The table of layer 1 built at position_ids + 1: consistent tables, so only the positions of the run tell."""
    model = tiny_llama.TinyModel(SPEC, bug_layer=1, bug="plus-one")
    with rope.watch(tiny_llama, "apply_rotary_pos_emb", SPEC, collect=True) as recovered:
        run(model)
    assert recovered.passed  # the function applies its tables as the spec says
    positions = torch.arange(24)[None].expand(2, -1)
    with rope.watch(tiny_llama, "apply_rotary_pos_emb", SPEC, collect=True, positions=positions) as watch:
        run(model)
    assert [c.layer for c in watch.failures] == [1]
    failed = watch.failures[0]
    assert failed.positions_from == "positions="
    assert failed.q.matches == failed.k.matches == "positions-plus-one", failed.q.data["diagnosis"]


def test_position_ids_of_the_call_are_used():
    model = tiny_llama.TinyModel(SPEC, bug_layer=3, bug="plus-one", pass_position_ids=True)
    with rope.watch(tiny_llama, "apply_rotary_pos_emb", SPEC, collect=True) as watch:
        run(model, start=500)
    assert {c.positions_from for c in watch.calls} == {"position_ids"}
    assert [c.layer for c in watch.failures] == [3]
    assert watch.failures[0].q.matches == "positions-plus-one"


def test_adapter_watches_another_signature():
    """Meta's Llama: apply_rotary_emb(xq, xk, freqs_cis) with q [batch, seq, heads, d], interleaved pairs."""
    spec = rope.Spec(head_dim=64, base=10000, layout="interleaved")

    class Meta:
        @staticmethod
        def apply_rotary_emb(xq, xk, freqs_cis):
            def turn(x):
                z = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
                return torch.view_as_real(z * freqs_cis[None, :, None, :]).flatten(3).type_as(x)
            return turn(xq), turn(xk)

    theta = torch.tensor(spec.inv_freq, dtype=torch.float32)
    freqs = torch.polar(torch.ones(16, 32), torch.arange(16)[:, None].float() * theta)

    def adapter(args, kwargs, result):
        return {"q": args[0], "k": args[1], "q_out": result[0], "k_out": result[1], "axes": "batch,seq,heads,d"}

    with rope.watch(Meta, "apply_rotary_emb", spec, adapter=adapter, positions=lambda: torch.arange(16),
                    collect=True) as watch:
        Meta.apply_rotary_emb(torch.randn(1, 16, 4, 64), torch.randn(1, 16, 2, 64), freqs)
        Meta.apply_rotary_emb(torch.randn(1, 16, 4, 64), torch.randn(1, 16, 2, 64), freqs.conj())  # turned backwards
    assert [c.passed for c in watch.calls] == [True, False]
    assert "call 1" in str(watch.calls[1]) and "test_watch.py" in watch.calls[1].site


def test_positions_from_tables_reads_back_long_positions():
    """cos/sin in float32 and bfloat16 give back the positions they were built at, up to 131071."""
    rotary = tiny_llama.RotaryEmbedding(SPEC.inv_freq, SPEC.attention_factor)
    positions = torch.tensor([[0, 1, 255, 256, 8191, 8192, 65535, 131071]])
    for dtype in (torch.float32, torch.bfloat16):
        cos, sin = rotary(torch.zeros(1, dtype=dtype), positions)
        got, problem = rope._watch.positions_from_tables(cos, sin, SPEC)
        assert problem == "" and got.tolist() == positions.tolist(), dtype


def test_watch_refuses_what_it_cannot_watch():
    with pytest.raises(AttributeError, match="no attribute 'apply_rope'"):
        rope.watch(tiny_llama, "apply_rope", SPEC)
    with pytest.raises(TypeError, match="adapter"):
        rope.watch(tiny_llama, "apply_rotary_pos_emb", SPEC, adapter="hf")
