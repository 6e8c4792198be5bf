"""rope.weights: `rope weights` in-process (docs/weights.md), on the checkpoints of data/weights/ written by llama.cpp's
own code (tests/reference/weights.py): the same fields as `rope weights --json`, the verdicts, the text in both
languages, and bad input as ValueError / OSError."""
import json
import subprocess

import pytest

import rope


@pytest.fixture(scope="module")
def weights_dir(root):
    return root / "data" / "weights"


def test_converter_permutation_passes(weights_dir):
    r = rope.weights(weights_dir / "llama-hf", weights_dir / "llama-q4_k_m.gguf")
    assert r.passed and bool(r)
    assert r.expected == "hf-to-gguf"
    assert [t["map"] for t in r.tensors] == ["hf-to-gguf", "hf-to-gguf"]
    assert all(t["runner_up_residual"] >= 10 * t["residual"] for t in r.tensors)
    assert "the candidate's engine expects: hf-to-gguf" in r.text


def test_k_bug_named(weights_dir):
    r = rope.weights(weights_dir / "llama-hf", weights_dir / "llama-k-query-heads.gguf", lang="zh")
    assert not r.passed
    assert r.tensors[1]["map"] == "hf-to-gguf-k-with-query-heads"
    assert "候选" in r.text


def test_same_as_the_command_line(weights_dir, rope_exe):
    args = [str(weights_dir / "qwen2-hf"), str(weights_dir / "qwen2-permuted.gguf")]
    run = subprocess.run([rope_exe, "weights", *args, "--json"], capture_output=True, text=True)
    assert run.returncode == 1, run.stderr
    assert json.loads(run.stdout) == rope.weights(*args).data


def test_bad_input(weights_dir, tmp_path):
    with pytest.raises(OSError):
        rope.weights(weights_dir / "llama-hf", tmp_path / "none.gguf")
    with pytest.raises(ValueError, match="the shapes differ"):
        rope.weights(weights_dir / "llama-hf", weights_dir / "mha-k-query-heads.gguf")


def test_a_path_with_a_nul_is_refused_as_open_refuses_it(weights_dir):
    # Issue 77 (7): the library read the file named by the part before the NUL (model.safetensors\0.gguf passed).
    hf = weights_dir / "llama-hf" / "model-00001-of-00002.safetensors"
    with pytest.raises(ValueError, match="candidate: embedded null byte"):
        rope.weights(weights_dir / "llama-hf", str(hf) + "\0.gguf")
    with pytest.raises(ValueError, match="reference: embedded null byte"):
        rope.weights(str(weights_dir / "llama-hf") + "\0x", weights_dir / "llama-f16.gguf")
    with pytest.raises(ValueError, match="config: embedded null byte"):
        rope.weights(weights_dir / "llama-hf", weights_dir / "llama-f16.gguf", config="c.json\0")
    with pytest.raises(ValueError, match=r"Spec\(source\): embedded null byte"):
        rope.Spec(str(weights_dir / "llama-hf" / "config.json") + "\0junk")


def test_a_config_neither_side_needs_is_refused(weights_dir, tmp_path):
    # Issue 77 (6): it was ignored, even when it did not exist.
    with pytest.raises(ValueError, match="would not be read: both sides say their model"):
        rope.weights(weights_dir / "llama-hf", weights_dir / "llama-f16.gguf", config=tmp_path / "none.json")
