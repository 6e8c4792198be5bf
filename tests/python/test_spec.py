"""rope.Spec: a preset, a config.json path, a dict, a GGUF file or parameters alone, each giving Hugging Face's
frequencies (checked against tests/reference/scaling.py, an independent NumPy port of
transformers' modeling_rope_utils.py), and describe() equal to `rope inspect`."""
import json
import subprocess

import numpy as np
import pytest

import rope
import scaling  # tests/reference/scaling.py
import longrope_engines  # tests/reference/longrope_engines.py
import yarn_variants  # tests/reference/yarn_variants.py
from conftest import pythonic


def test_version_is_the_cli_version(rope_exe):
    out = subprocess.run([rope_exe, "--version"], capture_output=True, text=True, check=True).stdout
    assert out.split()[1] == rope.__version__


def test_llama31_preset_frequencies():
    spec = rope.Spec("llama-3.1-8b")
    p = {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192,
         "max_position_embeddings": 131072}
    want, attention, _ = scaling.compute("llama3", 128, 500000.0, p)
    # Both float64 from the same formula: a few ulps apart at most.
    np.testing.assert_allclose(spec.inv_freq, want, rtol=1e-14, atol=0)
    assert spec.attention_factor == attention == 1.0
    assert (spec.head_dim, spec.rotary_dim, spec.layout, spec.base, spec.scaling) == (128, 128, "half", 500000.0, "llama3")
    assert spec.original_max_position_embeddings == 8192 and spec.max_position_embeddings == 131072


def test_dict_path_and_preset_agree(root, tmp_path):
    config = {k: v for k, v in json.loads((root / "data/models/llama-3.1-8b.json").read_text()).items()
              if not k.startswith("_")}
    from_dict = rope.Spec(config)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    from_path = rope.Spec(str(path))
    preset = rope.Spec("llama-3.1-8b")
    assert np.array_equal(from_dict.inv_freq, preset.inv_freq) and np.array_equal(from_path.inv_freq, preset.inv_freq)
    assert from_dict.name == "config dict" and from_path.name == str(path)


def test_yarn_keywords_and_overrides():
    spec = rope.Spec(head_dim=128, base=10000, scaling="yarn", factor=4, original_max_position_embeddings=2048)
    want, attention, _ = scaling.compute("yarn", 128, 10000.0, {"factor": 4.0, "original_max_position_embeddings": 2048})
    np.testing.assert_allclose(spec.inv_freq, want, rtol=1e-14)
    assert spec.attention_factor == pytest.approx(attention, rel=1e-15)
    on_top = rope.Spec("llama-3.1-8b", base=10000)
    assert on_top.base == 10000 and on_top.scaling == "llama3"


@pytest.mark.parametrize("variant", ["hf", "telechat3", "grok-yarn-log", "grok-theta-scale"])
def test_yarn_variant_keyword_is_the_cli_option(variant):
    # yarn_variant= is --yarn-variant (the same parameter key); the NumPy port of vLLM's classes computes in float32,
    # rope in float64: 4e-6 relative (tests/models/scaling/test_scaling_yarn.cpp states why).
    spec = rope.Spec(head_dim=128, base=5e5, scaling="yarn", factor=4, original_max_position_embeddings=8192,
                     yarn_variant=variant)
    np.testing.assert_allclose(spec.inv_freq, yarn_variants.inv_freq(variant).astype(np.float64), rtol=4e-6)
    assert spec.attention_factor == pytest.approx(yarn_variants.mscale(variant), rel=1e-12)


def test_yarn_variant_errors():
    with pytest.raises(ValueError, match="unknown yarn variant 'grok'"):
        rope.Spec(head_dim=128, scaling="yarn", factor=4, original_max_position_embeddings=8192, yarn_variant="grok")
    with pytest.raises(TypeError, match="yarn_variant cannot be 1"):
        rope.Spec(head_dim=128, scaling="yarn", factor=4, original_max_position_embeddings=8192, yarn_variant=1)


def test_plain_rope_is_rotate_half_unless_told():
    assert rope.Spec(head_dim=64).layout == "half"
    assert rope.Spec(head_dim=64, layout="interleaved").layout == "interleaved"
    np.testing.assert_allclose(rope.Spec(head_dim=64).inv_freq, 10000.0 ** (-np.arange(0, 64, 2) / 64), rtol=1e-15)


def test_partial_rotary_and_offset():
    gptj = rope.Spec("gpt-j-6b")
    assert (gptj.head_dim, gptj.rotary_dim, gptj.layout) == (256, 64, "interleaved")
    deepseek = rope.Spec("deepseek-v3")
    assert deepseek.rotary_offset == deepseek.head_dim - deepseek.rotary_dim > 0


def test_layer_types():
    gemma = rope.Spec("gemma-3-27b")
    names = [name for name, _, _ in gemma.layer_types]
    assert "sliding_attention" in names and "full_attention" in names
    sliding = gemma.with_layer_type("sliding_attention")
    full = gemma.with_layer_type("full_attention")
    assert sliding.base != full.base
    assert sliding.layer_type == "sliding_attention"


@pytest.mark.parametrize("model", ["llama-3.1-8b", "qwen2.5-vl-7b", "phi-3-mini-128k", "gemma-3-27b", "deepseek-v3"])
def test_spec_is_rope_inspect(rope_exe, model):
    """The spec's numbers and sentences are `rope inspect --json`'s (one resolution computes both)."""
    cli = json.loads(subprocess.run([rope_exe, "inspect", "--model", model, "--json"], capture_output=True, text=True,
                                    check=True).stdout)
    spec = rope.Spec(model)
    assert spec.inv_freq.tolist() == cli["inv_freq"] and spec.original_inv_freq.tolist() == cli["original_inv_freq"]
    assert (spec.head_dim, spec.rotary_dim, spec.layout, spec.base, spec.scaling, spec.attention_factor) == (
        cli["head_channels"], cli["rotary_dim"], cli["layout"], cli["base"], cli["rope_type"], cli["attention_factor"])
    assert spec.rotary_offset == cli["rotating_channels"][0]
    # The same sentences, naming the module's arguments where the command line names its flags.
    assert spec.origin == [pythonic(line) for line in cli["origin"]]
    assert spec.notes == [pythonic(line) for line in cli["notes"]]
    text = spec.describe()
    assert text.startswith(f"RoPE of {model}") and all(line in text for line in cli["origin"])


def test_gguf(root):
    spec = rope.Spec(str(root / "data/gguf/llama-3.1-8b.gguf"))
    assert spec.scaling == "llama3" and spec.head_dim == 128


def test_presets():
    assert "llama-3.1-8b" in rope.presets()


@pytest.mark.parametrize("engine, context, dump_engine, passes", [
    ("vllm", {"max_model_len": 131072}, ("vllm", 131072), True),
    (None, {}, ("vllm", 131072), False),  # HF's rule at position 10: the short list, the dump has the long one
    ("llamacpp", {"n_ctx": 8192}, ("llamacpp", 8192), True),
])
def test_engine_keyword_is_the_cli_option(engine, context, dump_engine, passes):
    # engine=, max_model_len=, n_ctx= are --engine, --max-model-len, --n-ctx: the dump written by the NumPy port of
    # the engine's rule (tests/reference/longrope_engines.py) passes with that rule, and fails with HF's, named.
    positions = np.arange(11)
    q = np.random.default_rng(67).standard_normal((len(positions), 2, longrope_engines.D)).astype(np.float32)
    after = longrope_engines.rotate(q, longrope_engines.engine_rows(dump_engine[0], positions, dump_engine[1]))
    spec = rope.Spec("phi-3-mini-128k", engine=engine, **context)
    report = rope.check(q, after, positions, spec, angles="float32")
    assert report.passed == passes, report.summary()
    if not passes:
        assert report.matches == "longrope-other-list"
    if engine == "vllm":
        assert any("vLLM's rule, max_model_len 131072 > L0 4096" in n for n in spec.notes)


def test_engine_errors():
    with pytest.raises(ValueError, match="max_model_len is the context of engine vllm"):
        rope.Spec("phi-3-mini-128k", max_model_len=8192)
    with pytest.raises(ValueError, match="unknown engine 'tgi'"):
        rope.Spec("phi-3-mini-128k", engine="tgi")
    with pytest.raises(TypeError, match="n_ctx cannot be"):
        rope.Spec("phi-3-mini-128k", engine="llamacpp", n_ctx="8192")


def test_numbers_no_cpp_type_holds_are_a_value_error_naming_the_argument():
    # Issue 77 (7): pybind's "Unable to cast Python instance" before.
    with pytest.raises(ValueError, match=r"Spec\(\): base must be a float64 number, at most about 1.8e308"):
        rope.Spec(base=10**400)
    with pytest.raises(ValueError, match=r"Spec\(\): short_factor must be a float64 number"):
        rope.Spec(head_dim=4, scaling="longrope", short_factor=[1, 10**400], long_factor=[1, 1])
