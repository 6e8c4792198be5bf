"""torch.save files written by PyTorch itself (Debian's 1.13, CTest python.torch) read by rope's reader, which runs
nothing (io/torch_file.hpp): bf16 views of a fused qkv, nested dicts and lists, a Parameter, int64 positions,
every layer of a file in one run, and a pickle that would run a command refused with the command not run."""
import json
import os
import subprocess

import numpy as np
import pytest

try:
    import torch
except ImportError as error:  # not a skip: python.torch exists to run with PyTorch
    raise ImportError("python.torch needs PyTorch: apt-get install python3-torch (scripts/install-deps.sh torch)") \
        from error

ROPE = os.environ["ROPE"]


def rope_run(*args, cwd=None):
    return subprocess.run([ROPE, *args], capture_output=True, text=True, cwd=cwd, timeout=120)


def hf_rope_bf16(q, positions, base=10000.0):
    """Hugging Face's apply_rotary_pos_emb (transformers v4.46.0, src/transformers/models/llama/modeling_llama.py):
    inv_freq and the angles in float32, cos and sin cast to q's dtype, rotate_half; q [seq, heads, d]."""
    d = q.shape[-1]
    inv_freq = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.int64).float() / d))
    angles = positions.float()[:, None] * inv_freq[None, :]
    emb = torch.cat((angles, angles), dim=-1)
    cos, sin = emb.cos().to(q.dtype)[:, None, :], emb.sin().to(q.dtype)[:, None, :]
    half = torch.cat((-q[..., d // 2:], q[..., : d // 2]), dim=-1)
    return q * cos + half * sin


def test_a_bf16_view_of_a_fused_qkv_passes(tmp_path):
    torch.manual_seed(0)
    seq, heads, d = 16, 4, 32
    qkv = torch.randn(seq, 3 * heads * d).to(torch.bfloat16)
    q = qkv[:, : heads * d].view(seq, heads, d)  # a view: storage offset 0, strides (3·heads·d, d, 1)
    assert not q.is_contiguous()
    after_qkv = qkv.clone()
    after = after_qkv[:, : heads * d].view(seq, heads, d)
    after.copy_(hf_rope_bf16(q, torch.arange(seq)))
    torch.save({"q": q, "k": qkv[:, heads * d: 2 * heads * d]}, tmp_path / "before.pt")
    torch.save({"q": after}, tmp_path / "after.pt")
    r = rope_run("check", "--before", str(tmp_path / "before.pt"), "--after", str(tmp_path / "after.pt"),
                 "--tensor", "q", "--layout", "half", "--dtype", "bf16", "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(r.stdout)["passed"] is True


def test_views_nesting_parameters_and_integers_list_as_pytorch_sees_them(tmp_path):
    qkv = torch.arange(4 * 48, dtype=torch.float32).view(4, 48).to(torch.bfloat16)
    saved = {"layers": [{"q": qkv[:, 16:32].view(4, 2, 8)}, {"w": torch.nn.Parameter(torch.ones(3, 2))}],
             "positions": torch.arange(6, dtype=torch.int64), "step": 7}
    torch.save(saved, tmp_path / "dump.pt")
    r = rope_run("inspect", "--tensors", str(tmp_path / "dump.pt"), "--json")
    assert r.returncode == 0, r.stderr
    listed = {t["name"]: t for t in json.loads(r.stdout)["tensors"]}
    assert set(listed) == {"layers.0.q", "layers.1.w", "positions"}
    view = saved["layers"][0]["q"]
    assert listed["layers.0.q"]["shape"] == list(view.shape)
    assert listed["layers.0.q"]["strides"] == list(view.stride())
    assert listed["layers.0.q"]["offset"] == view.storage_offset()
    assert listed["layers.0.q"]["dtype"] == "bfloat16"
    assert listed["positions"]["dtype"] == "int64"


def test_a_models_state_dict_lists_its_tensors_and_not_its_metadata(tmp_path):
    # Issue 77 (2): an OrderedDict whose _metadata torch.save sets by BUILD; refused before ("opcode BUILD").
    torch.manual_seed(2)
    model = torch.nn.Sequential(torch.nn.Linear(8, 4), torch.nn.LayerNorm(4), torch.nn.Linear(4, 2))
    state = model.state_dict()
    assert hasattr(state, "_metadata")
    torch.save(state, tmp_path / "model.pt")
    r = rope_run("inspect", "--tensors", str(tmp_path / "model.pt"), "--json")
    assert r.returncode == 0, r.stderr
    listed = {t["name"]: t for t in json.loads(r.stdout)["tensors"]}
    assert set(listed) == set(state.keys())
    for name, tensor in state.items():
        assert listed[name]["shape"] == list(tensor.shape)
        assert listed[name]["dtype"] == "float32"


def test_positions_stored_beside_the_tensors(tmp_path):
    torch.manual_seed(1)
    q = torch.randn(6, 2, 16)
    positions = torch.tensor([0, 1, 2, 0, 1, 2])
    torch.save({"q": q, "q_rope": hf_rope_bf16(q, positions), "position_ids": positions}, tmp_path / "d.pt")
    f = str(tmp_path / "d.pt")
    r = rope_run("check", "--before", f, "--after", f, "--before-tensor", "q", "--after-tensor", "q_rope",
                 "--positions", "@" + f, "--positions-tensor", "position_ids", "--layout", "half")
    assert r.returncode == 0, r.stdout + r.stderr


def test_every_layer_in_one_run(tmp_path):
    torch.manual_seed(2)
    layers = {}
    for n in range(3):
        q = torch.randn(8, 2, 16)
        layers[str(n)] = {"q": q, "q_rope": hf_rope_bf16(q, torch.arange(8), 500000.0 if n == 2 else 10000.0)}
    torch.save({"layers": layers}, tmp_path / "l.pt")
    f = str(tmp_path / "l.pt")
    r = rope_run("check", "--before", f, "--after", f, "--before-tensor", "layers.*.q", "--after-tensor",
                 "layers.*.q_rope", "--layout", "half", "--json")
    assert r.returncode == 1, r.stdout + r.stderr
    report = json.loads(r.stdout)
    verdicts = [(layer["before_tensor"], layer["passed"]) for layer in report["layers"]]
    assert verdicts[0] == ("layers.2.q", False)  # the worst first
    assert sorted(verdicts[1:]) == [("layers.0.q", True), ("layers.1.q", True)]


class RunsACommand:
    def __reduce__(self):
        return (os.system, ("touch torch_marker",))


def test_a_pickle_that_would_run_a_command_is_refused_and_runs_nothing(tmp_path):
    torch.save({"q": torch.zeros(2, 4), "payload": RunsACommand()}, tmp_path / "evil.pt")
    work = tmp_path / "work"
    work.mkdir()
    r = rope_run("inspect", "--tensors", str(tmp_path / "evil.pt"), cwd=work)
    assert r.returncode == 2
    assert "refuses to run `posix.system` named in data.pkl" in r.stderr or \
        "refuses to run `os.system` named in data.pkl" in r.stderr, r.stderr
    assert not (work / "torch_marker").exists()
    assert r.stderr.count("\n") == 1
