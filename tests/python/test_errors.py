"""Bad input raises ValueError with the library's sentence, naming the Python argument where the command line
names its flag; never a crash."""
import numpy as np
import pytest

import rope


def test_unknown_preset():
    with pytest.raises(ValueError, match="llama-3.1-8"):  # the library suggests the preset it resembles
        rope.Spec("llama-3.1-8")


def test_bad_parameter_names_the_argument():
    with pytest.raises(ValueError, match="layer_type"):
        rope.Spec(head_dim=64, layer_type="sliding_attention")
    with pytest.raises(ValueError, match="layer type 'no_such_layers' is not one of gemma-3-27b's"):
        rope.Spec("gemma-3-27b", layer_type="no_such_layers")
    with pytest.raises(ValueError):
        rope.Spec(head_dim=63)
    with pytest.raises(TypeError, match="fator"):
        rope.Spec(head_dim=64, fator=2)
    with pytest.raises(TypeError, match="head_dim cannot be 'x'"):
        rope.Spec(head_dim="x")
    with pytest.raises(ValueError, match=r"factor must be a finite number \(got nan\)"):
        rope.Spec(head_dim=64, scaling="yarn", factor=float("nan"), original_max_position_embeddings=10)


def test_shapes(rng):
    spec = rope.Spec("llama-3.1-8b")
    q = rng.standard_normal((4, 2, 128)).astype(np.float32)
    with pytest.raises(ValueError, match=r"after has shape \(4, 2, 64\), before has \(4, 2, 128\)"):
        rope.check(q, q[..., :64], np.arange(4), spec)
    with pytest.raises(ValueError, match="positions: the number of positions, 5, is not the length"):
        rope.check(q, q, np.arange(5), spec)
    with pytest.raises(ValueError, match="head_dim 128, the dump's last axis is d = 64"):
        rope.reference(q[..., :64], np.arange(4), spec)
    # 4 axes without positions: Hugging Face's [batch, heads, seq, d] (issue 53), said in check's report.
    assert rope.reference(np.zeros((1, 2, 3, 128), np.float32), None, spec).shape == (1, 2, 3, 128)
    assert rope.check(np.zeros((1, 2, 3, 128), np.float32), np.zeros((1, 2, 3, 128), np.float32), None,
                      spec).data["axes_assumed"]
    with pytest.raises(ValueError, match="positions has 2 rows, the dump's batch axis has 1"):
        rope.reference(np.zeros((1, 4, 2, 128), np.float32), np.zeros((2, 4)), spec, axes="batch,seq,heads,d")
    # 3 rows where the batch axis has 1 are M-RoPE's t, h, w, which a model without sections does not read.
    with pytest.raises(ValueError, match="has 3 components but plain RoPE reads one"):
        rope.reference(np.zeros((1, 4, 2, 128), np.float32), np.zeros((3, 4)), spec, axes="batch,seq,heads,d")
    with pytest.raises(ValueError, match="sequence_starts"):
        rope.check(q, q, None, spec, sequence_starts=[1, 3])


def test_nan_and_integers(rng):
    spec = rope.Spec(head_dim=8)
    x = rng.standard_normal((3, 8))
    x[1, 2] = np.nan
    with pytest.raises(ValueError, match="before: the element at position 1, group 0, channel 2 is NaN"):
        rope.check(x, x, np.arange(3), spec)
    with pytest.raises(ValueError, match="x: element 10 is NaN"):
        rope.reference(x, np.arange(3), spec)
    with pytest.raises(ValueError, match="positions"):
        rope.reference(np.ones((3, 8)), np.array([0, np.nan, 2]), spec)
    with pytest.raises(ValueError, match='dtype="bf16"'):  # 16-bit integers need dtype="bf16"
        rope.reference(np.ones((3, 8), np.int16), np.arange(3), spec)
    with pytest.raises(ValueError, match=r"positions: position 30000000 is outside \[-2\^24, 2\^24\]"):
        rope.reference(np.ones((3, 8)), np.array([0, 1, 3e7]), spec)


def test_unreadable_config(tmp_path):
    with pytest.raises(OSError):
        rope.Spec(str(tmp_path / "missing.json"))


def test_a_dict_config_is_named_as_the_argument():
    with pytest.raises(ValueError, match=r"^source \(a config dict\): head_dim: missing"):
        rope.Spec({"rope_theta": 10000.0})


def test_arrays_of_other_types(rng):
    spec = rope.Spec(head_dim=8)
    q = rng.standard_normal((3, 8))
    with pytest.raises(ValueError, match="^before: an array of numbers, not of Python objects$"):
        rope.check(np.array([[1, "a"]], dtype=object), q, None, spec)
    # One-byte types (NumPy's byte order '|'): the library's sentence names the types it reads.
    for bad in (q.astype(np.int8), q > 0):
        with pytest.raises(ValueError, match=r"^before: header .*: rope reads float16, float32, float64"):
            rope.check(bad, q, None, spec)
    # Positions may be any integers, one-byte ones included.
    assert rope.reference(q, np.arange(3, dtype=np.uint8), spec).shape == (3, 8)


@pytest.mark.parametrize("args, kwargs, message", [
    # resolve.cpp's rules between settings name each by its key: tower, vision, head_dim, base here,
    # --tower, --vision, --dim, --base on the command line (tests/cli/test_error_zh.cpp)
    ((), dict(head_dim=64, tower="vision"),
     'tower needs Spec("PRESET") or Spec("config.json") (a vision-language model\'s config)'),
    (("llama-2-7b",), dict(vision="pixtral"),
     'vision builds a 2-D vision RoPE from head_dim and base; for the vision tower of Spec("PRESET") or '
     'Spec("config.json") give tower vision'),
])
def test_a_rule_between_settings_names_the_python_arguments(args, kwargs, message):
    with pytest.raises(ValueError) as e:
        rope.Spec(*args, **kwargs)
    assert str(e.value) == message
