"""Errors speak Python (issue 54 item 5): a refused shape names axes= and its accepted spellings, a limit says the
limit and how to split, a missing parameter names the keyword of rope.Spec; the library's sentence stays first."""
import subprocess

import numpy as np
import pytest

import rope

SPEC = rope.Spec("llama-3.1-8b")
SPELLINGS = '"seq,d", "seq,heads,d", "batch,heads,seq,d" or "batch,seq,heads,d"'


@pytest.mark.parametrize("what, call, says", [
    # Two orders that both fit are read as Hugging Face's [batch, heads, seq, d] (issue 53, item 3): no error.
    ("no 4-axis order fits", lambda: rope.reference(np.zeros((4, 5, 6, 128), np.float32), np.arange(7), SPEC),
     "neither [batch, heads, seq, d] nor [batch, seq, heads, d] fits"),
    ("rank 5", lambda: rope.reference(np.zeros((2, 3, 4, 5, 128), np.float32), np.arange(3), SPEC),
     f"x.reshape(batch, seq, -1, d) joins the kv_heads and groups of [batch, seq, kv_heads, groups, d] into heads) "
     f"and name the order with axes=: {SPELLINGS}"),
    ("an unknown order", lambda: rope.check(np.zeros((8, 2, 128)), np.zeros((8, 2, 128)), np.arange(8), SPEC,
                                            axes="seq,batch"),
     f"axes= must be one of {SPELLINGS} (got 'seq,batch')"),
    # More than 2^24 elements is cut along the heads or the batch rows (dump_slices.hpp); one head of one row is not.
    ("too many elements", lambda: rope.reference(np.zeros((1, 131073, 1, 128), np.float16), np.arange(131073), SPEC),
     "x: shape (1, 131073, 1, 128) (axes batch,seq,heads,d) has 16777344 elements, more than the 16777216 one slice "
     "of it may hold, and no cut along its heads (or its batch rows, when they share the positions) is that small: "
     "call it on slices of the sequence axis, each with its own positions"),
    ("a scaling without its factor", lambda: rope.Spec(head_dim=64, scaling="linear"),
     "linear needs factor: give factor="),
    ("llama3 without its context", lambda: rope.Spec(head_dim=64, scaling="llama3", factor=8),
     "llama3 needs original_max_position_embeddings: give original_max_position_embeddings= (Llama 3.1: 8192)"),
    ("longrope without its lists", lambda: rope.Spec(head_dim=64, scaling="longrope"),
     "longrope needs short_factor: give rope.Spec the keyword short_factor="),
    ("an odd head_dim", lambda: rope.Spec(head_dim=7), "head_dim must be even and between 2 and 65536 (got 7)"),
    # Issue 62 item 6: an integer beyond its field's range was narrowed (2**32 + 64 read as 64), or pybind11's
    # "Unable to cast": refused naming the value typed.
    ("head_dim 2**32 + 64", lambda: rope.Spec(head_dim=2 ** 32 + 64),
     "head_dim must be an integer between -2147483648 and 2147483647 (got 4294967360)"),
    ("head_dim 2**64 + 64", lambda: rope.Spec(head_dim=2 ** 64 + 64),
     "head_dim must be an integer between -2147483648 and 2147483647 (got 18446744073709551680)"),
    ("a context of 2**64", lambda: rope.Spec(head_dim=64, scaling="yarn", factor=4,
                                             original_max_position_embeddings=2 ** 64),
     "original_max_position_embeddings must be an integer between -9223372036854775808 and 9223372036854775807 "
     "(got 18446744073709551616)"),
    ("max_position_embeddings -2**70", lambda: rope.Spec(head_dim=64, max_position_embeddings=-2 ** 70),
     "max_position_embeddings must be an integer between"),
    ("seq_len 2**63", lambda: rope.Spec(head_dim=64, scaling="dynamic", factor=2, max_position_embeddings=4096,
                                        seq_len=2 ** 63), "(got 9223372036854775808)"),
    # Issue 61 item 8: the library names another command's option through option_name too (`rope inspect --list`).
    ("a preset's near name", lambda: rope.Spec("llama3.1-8b"),
     "unknown model preset 'llama3.1-8b'; did you mean llama-3.1-8b? (rope.presets())"),
    ("Qwen3-VL's video", lambda: rope.mrope_positions([("text", 2), ("video", (2, 4, 4))], "qwen3-vl-8b"),
     "give frame_text N, the timestamp's tokens before each frame, or each frame as image 1xHxW after text N"),
])
def test_error_speaks_python(what, call, says):
    with pytest.raises(ValueError) as raised:
        call()
    assert says in str(raised.value), (what, str(raised.value))
    assert raised.value.__cause__ is None and "--" not in str(raised.value)


def test_the_wrappers_keep_signatures():
    import inspect
    assert list(inspect.signature(rope.check).parameters)[:4] == ["before", "after", "positions", "spec"]
    assert rope.reference.__name__ == "reference" and "float64" in rope.reference.__doc__


def _cli(rope_exe, *args):
    return subprocess.run([rope_exe, *args], capture_output=True, text=True)


# Issue 61 item 8: the library's texts name a setting through option_name, each front end in its own words: the
# module its keyword, the command line its flag, from the same sentence of the catalog (in either language).
@pytest.mark.parametrize("what, module_text, cli_args, module_says, cli_says", [
    ("describe's layer types", lambda: rope.Spec("gemma-3-27b").describe(),
     ["inspect", "--model", "gemma-3-27b"], "(other commands: layer_type NAME or a layer index;",
     "(other commands: --layer-type NAME or a layer index;"),
    ("the same in Chinese", lambda: rope.Spec("gemma-3-27b").describe(lang="zh"),
     ["inspect", "--model", "gemma-3-27b", "--lang", "zh"], "（其他命令：layer_type 名称或层号；",
     "（其他命令：--layer-type 名称或层号；"),
    ("an unknown preset", lambda: _raised(lambda: rope.Spec("llama3.1-8b")),
     ["inspect", "--model", "llama3.1-8b"], "did you mean llama-3.1-8b? (rope.presets())",
     "did you mean llama-3.1-8b? (rope inspect --list)"),
])
def test_texts_name_each_front_ends_words(rope_exe, what, module_text, cli_args, module_says, cli_says):
    text = module_text()
    run = _cli(rope_exe, *cli_args)
    assert module_says in text and cli_says not in text, (what, text)
    assert cli_says in run.stdout + run.stderr, (what, run.stdout, run.stderr)


def _raised(call):
    with pytest.raises(ValueError) as raised:
        call()
    return str(raised.value)
