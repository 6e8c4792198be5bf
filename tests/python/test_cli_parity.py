"""The module and the command line on the same dumps: the same verdicts and the same numbers, key by key of
`rope check --json` and `rope identify --json` (one library computes both, so the numbers are equal, not close)."""
import json
import subprocess

import numpy as np
import pytest

import rope
import rope.testing
from conftest import numpy_rope, pythonic


def cli_json(rope_exe, *args):
    run = subprocess.run([rope_exe, *args, "--json"], capture_output=True, text=True)
    assert run.returncode in (0, 1), run.stderr
    return json.loads(run.stdout)


def same(cli, module):
    """Every key the command line prints has the module's value (the module adds a few of its own)."""
    for key, value in cli.items():
        if isinstance(value, dict) and isinstance(module.get(key), dict):
            same(value, module[key])
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            assert len(value) == len(module[key]), key
            for a, b in zip(value, module[key]):
                same(a, b)
        elif isinstance(value, str):  # the library's sentences name the module's arguments where the CLI's name flags
            assert module[key] == pythonic(value), (key, module[key], value)
        else:
            assert module[key] == value, (key, module[key], value)


def dumps(root):
    d = root / "data" / "dumps"
    return [
        # (before, after, positions for the module, CLI arguments, spec)
        (d / "q.npy", d / "q_rope.npy", np.arange(128), ["--positions", "0:128", "--layout", "half"], rope.Spec(head_dim=64)),
        (d / "q.npy", d / "q_rope_interleaved.npy", np.arange(128), ["--positions", "0:128"], rope.Spec(head_dim=64)),
        (d / "q.npy", d / "q_rope_off_by_one.npy", np.arange(128), ["--positions", "0:128"], rope.Spec(head_dim=64)),
        (d / "q.npy", d / "q_rope_yarn_no_factor.npy", np.arange(128),
         ["--positions", "0:128", "--scaling", "yarn", "--factor", "4", "--original-max-position", "2048"],
         rope.Spec(head_dim=64, scaling="yarn", factor=4, original_max_position_embeddings=2048)),
        (d / "decode_q.npy", d / "decode_q_rope.npy", np.load(d / "decode_positions.npy"),
         ["--positions", str(d / "decode_positions.npy")], rope.Spec(head_dim=64)),
        (d / "decode_q.npy", d / "decode_q_rope_shared_offset.npy", np.load(d / "decode_positions.npy"),
         ["--positions", str(d / "decode_positions.npy")], rope.Spec(head_dim=64)),
    ]


@pytest.mark.parametrize("index", range(6))
def test_check_matches_cli(rope_exe, root, index):
    before, after, positions, args, spec = dumps(root)[index]
    cli = cli_json(rope_exe, "check", "--before", str(before), "--after", str(after), *args)
    module = rope.check(np.load(before), np.load(after), positions, spec)
    same(cli, module.data)
    assert module.passed == cli["passed"]


def test_packed_sequences_match_cli(rope_exe, root):
    d = root / "data" / "dumps"
    cli = cli_json(rope_exe, "check", "--before", str(d / "packed_q.npy"), "--after", str(d / "packed_q_rope.npy"),
                   "--sequence-starts", "0,128")
    module = rope.check(np.load(d / "packed_q.npy"), np.load(d / "packed_q_rope.npy"), None, rope.Spec(head_dim=64),
                        sequence_starts=[0, 128])
    same(cli, module.data)
    assert module.passed
    # Positions that do not restart: the diagnosis names the restart, in both.
    cli = cli_json(rope_exe, "check", "--before", str(d / "packed_q.npy"), "--after", str(d / "packed_q_rope.npy"),
                   "--positions", "0:256")
    module = rope.check(np.load(d / "packed_q.npy"), np.load(d / "packed_q_rope.npy"), np.arange(256), rope.Spec(head_dim=64))
    same(cli, module.data)
    assert module.matches == "positions-restart"


def test_model_bf16_bits_and_ggml_angles_match_cli(rope_exe, tmp_path, rng):
    spec = rope.Spec("llama-3.1-8b")
    positions = np.arange(0, 40000, 1000)
    q = rng.standard_normal((len(positions), 2, 128)).astype(np.float32)
    good = numpy_rope(np.swapaxes(q, 0, 1), positions, spec.inv_freq).swapaxes(0, 1)
    bits = lambda x: rope.testing.to_bf16(x).view(np.uint32).__rshift__(16).astype(np.uint16)
    np.save(tmp_path / "q.npy", bits(q))
    np.save(tmp_path / "q_rope.npy", bits(good))
    cli = cli_json(rope_exe, "check", "--before", str(tmp_path / "q.npy"), "--after", str(tmp_path / "q_rope.npy"),
                   "--positions", "0:40000:1000", "--model", "llama-3.1-8b", "--bf16-bits", "--angles", "ggml")
    module = rope.check(bits(q), bits(good), positions, spec, dtype="bf16", angles="ggml")
    same(cli, module.data)
    assert cli["dtype"] == "bf16"


def test_identify_matches_cli(rope_exe, root):
    d = root / "data" / "dumps"
    cli = cli_json(rope_exe, "identify", "--before", str(d / "q.npy"), "--after", str(d / "q_rope_yarn.npy"),
                   "--positions", "0:128")
    module = rope.identify(np.load(d / "q.npy"), np.load(d / "q_rope_yarn.npy"), np.arange(128))
    # One value (report/identify_report.hpp) builds both: the same keys, every one with the same value.
    assert sorted(module) == sorted(cli)
    same(cli, module)


@pytest.mark.parametrize("shape", ["axes_seq", "axes_batch_seq"])
def test_identify_takes_mrope_positions_as_check_does(rope_exe, root, shape):
    """M-RoPE positions (t, h, w per index) as [3, seq] or HF's position_ids [3, batch, seq]: the sections and their
    map, as `rope identify --axis-positions` finds them (the module refused them before)."""
    d = root / "data" / "dumps"
    cli = cli_json(rope_exe, "identify", "--before", str(d / "mrope_q.npy"), "--after", str(d / "mrope_q_rope.npy"),
                   "--axis-positions", str(d / "mrope_positions.csv"))
    thw = np.loadtxt(d / "mrope_positions.csv", delimiter=",", skiprows=1, usecols=(3, 4, 5), dtype=np.int64).T
    positions = thw if shape == "axes_seq" else thw[:, None, :]
    q, q_rope = np.load(d / "mrope_q.npy"), np.load(d / "mrope_q_rope.npy")
    module = rope.identify(q, q_rope, positions)
    assert sorted(module) == sorted(cli)
    same(cli, module)
    assert module["mrope"]["sections"] == [24, 20, 20] and module["mrope"]["order"] == "interleaved"
    # check takes the same arrays.
    assert rope.check(q, q_rope, positions, rope.Spec("qwen3-vl-8b")).passed


def cli_stdout(rope_exe, *args):
    run = subprocess.run([rope_exe, *args], capture_output=True, text=True)
    assert run.returncode in (0, 1), run.stderr
    return run.stdout


@pytest.mark.parametrize("index", range(6))
def test_to_json_and_summary_are_the_cli_text(rope_exe, root, index):
    """to_json() is `rope check --json` byte for byte and summary(lang=) `rope check --lang`'s report: one
    printer, the library's (a setting named as each front end names it, the JSON's only possible difference)."""
    before, after, positions, args, spec = dumps(root)[index]
    cli = ["check", "--before", str(before), "--after", str(after), *args]
    module = rope.check(np.load(before), np.load(after), positions, spec)
    assert module.to_json() + "\n" == pythonic(cli_stdout(rope_exe, *cli, "--json"))
    # The header describes the inputs (a file's stored type and the positions' text on the command line, arrays
    # here); the results below its blank line are the same printer's, word for word, in either language.
    results = lambda text: pythonic(text).split("\n\n", 1)[1]
    for lang in ("en", "zh"):
        assert results(module.summary(lang=lang)) == results(cli_stdout(rope_exe, *cli, "--lang", lang)), lang
    assert results(module.summary(digits=8)) == results(cli_stdout(rope_exe, *cli, "--digits", "8"))
    assert module.summary().startswith("rope check: after against RoPE(before)\n")
