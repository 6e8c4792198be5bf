"""Spec.describe() is the report of `rope inspect` for the same source: the library prints both
(src/rope/report/inspect_report.hpp), so the text is compared whole, in English and in Chinese, for every
preset, config files with layer types, the GGUF files of data/gguf, and parameters on top of a source. The
module names its arguments where the command line names its flags (conftest.pythonic), as in its errors."""
import subprocess

import pytest

import rope
from conftest import pythonic


def inspect(rope_exe, *args):
    return subprocess.run([rope_exe, "inspect", *args], capture_output=True, text=True, check=True).stdout


def same_text(got, cli):
    """describe()'s text against the command line's, line by line (a failure shows the first line that differs)."""
    assert pythonic(got).splitlines() == pythonic(cli).splitlines()
    assert got.endswith("\n") and len(got.splitlines()) == len(cli.splitlines())


@pytest.mark.parametrize("preset", rope.presets())
def test_every_preset(rope_exe, preset):
    same_text(rope.Spec(preset).describe(), inspect(rope_exe, "--model", preset, "--lang", "en"))


@pytest.mark.parametrize("preset", ["llama-3.1-8b", "gemma-3-27b", "qwen2.5-vl-7b", "phi-3-mini-128k", "gpt-oss-20b"])
def test_chinese(rope_exe, preset):
    text = rope.Spec(preset).describe(lang="zh")
    same_text(text, inspect(rope_exe, "--model", preset, "--lang", "zh"))
    assert text != rope.Spec(preset).describe()  # translated, not the English again


@pytest.mark.parametrize("config", ["data/models/gemma-3-27b.json", "data/models/llama-4-scout-17b-16e.json",
                                    "data/models/qwen3-vl-8b.json"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_config_files_with_layer_types(rope_exe, root, monkeypatch, config, lang):
    monkeypatch.chdir(root)  # the same path text, so the same model name
    spec = rope.Spec(config)
    assert spec.layer_types or spec.multi_axis
    same_text(spec.describe(lang=lang), inspect(rope_exe, config, "--lang", lang))


def test_layer_type_selected(rope_exe):
    spec = rope.Spec("gemma-3-27b", layer_type="sliding_attention")
    same_text(spec.describe(), inspect(rope_exe, "--model", "gemma-3-27b", "--layer-type", "sliding_attention"))


@pytest.mark.parametrize("gguf", ["data/gguf/llama-3.1-8b.gguf", "data/gguf/qwen3-vl-8b.gguf"])
def test_gguf(rope_exe, root, monkeypatch, gguf):
    monkeypatch.chdir(root)
    same_text(rope.Spec(gguf).describe(), inspect(rope_exe, gguf, "--lang", "en"))
    same_text(rope.Spec(gguf).describe("zh"), inspect(rope_exe, gguf, "--lang", "zh"))


@pytest.mark.parametrize("params, flags", [
    ({"factor": 16.0}, ["--factor", "16"]),
    ({"scaling": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768},
     ["--scaling", "yarn", "--factor", "4", "--original-max-position", "32768"]),
    ({"partial_rotary_factor": 0.5}, ["--partial-rotary-factor", "0.5"]),
])
def test_parameters_on_a_source(rope_exe, params, flags):
    same_text(rope.Spec("qwen2.5-7b", **params).describe(), inspect(rope_exe, "--model", "qwen2.5-7b", *flags))


def test_digits(rope_exe):
    same_text(rope.Spec("deepseek-v3").describe(digits=0), inspect(rope_exe, "--model", "deepseek-v3", "--digits", "0"))
    same_text(rope.Spec("deepseek-v3").describe(digits=3), inspect(rope_exe, "--model", "deepseek-v3", "--digits", "3"))


@pytest.mark.parametrize("bad, words", [({"lang": "fr"}, "lang must be 'en' or 'zh'"),
                                        ({"digits": 18}, "digits must be between 0 and 17"),
                                        ({"digits": -1}, "digits must be between 0 and 17")])
def test_bad_arguments(bad, words):
    with pytest.raises(ValueError, match=words):
        rope.Spec("llama-3.1-8b").describe(**bad)
