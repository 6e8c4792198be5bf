"""Shared fixtures of the Python module's tests (tests/python, CTest python.*): the module is imported from
the build tree (PYTHONPATH=BUILD/python, set by CTest) or from where pip installed it."""
import os
import pathlib
import re
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
# The independent NumPy references of tests/reference (scaling.py: Hugging Face's inv_freq of every method).
sys.path.insert(0, str(ROOT / "tests" / "reference"))


@pytest.fixture(scope="session")
def rope_exe():
    """The rope executable of the same build (CTest sets ROPE); the module's numbers are compared with it."""
    exe = os.environ.get("ROPE")
    if not exe:
        pytest.skip("ROPE (the rope executable) is not set: CTest sets it")
    return exe


@pytest.fixture(scope="session")
def root():
    return ROOT


def numpy_rope(x, positions, inv_freq, attention_factor=1.0, layout="half", offset=0):
    """RoPE in float64 written from Hugging Face transformers v4.46.0
    src/transformers/models/llama/modeling_llama.py (rotate_half, apply_rotary_pos_emb: q·cos + rotate_half(q)·sin,
    cos = cat(freqs, freqs).cos() · attention_scaling) for layout "half", and from the GPT-J layout (pairs
    (2i, 2i+1), src/transformers/models/gptj/modeling_gptj.py rotate_every_two) for "interleaved". x is
    [..., seq, d] along with positions [seq] (or broadcastable to x's leading axes); channels outside
    [offset, offset + 2·len(inv_freq)) pass through."""
    x = np.asarray(x, dtype=np.float64)
    pos = np.asarray(positions, dtype=np.float64)
    r = 2 * len(inv_freq)
    angles = pos[..., None] * np.asarray(inv_freq, dtype=np.float64)  # [..., r/2]
    cos, sin = np.cos(angles) * attention_factor, np.sin(angles) * attention_factor
    out = x.copy()
    part = x[..., offset:offset + r]
    if layout == "half":
        a, b = part[..., : r // 2], part[..., r // 2:]
        out[..., offset:offset + r // 2] = a * cos - b * sin
        out[..., offset + r // 2:offset + r] = a * sin + b * cos
    else:
        a, b = part[..., 0::2], part[..., 1::2]
        out[..., offset:offset + r:2] = a * cos - b * sin
        out[..., offset + 1:offset + r:2] = a * sin + b * cos
    return out


# The command line's flags and the module's arguments for the same setting (apps/python/module.cpp).
_ARGUMENTS = {"--dim": "head_dim", "--model": 'Spec("PRESET")', "--config": 'Spec("config.json")',
              "--bf16-bits": 'dtype="bf16"', "--original-max-position": "original_max_position_embeddings"}


# Another command's option and the module's function for it; one the module has none for stays the command to run
# ("rope apply --query").
_COMMANDS = {"rope inspect --list": "rope.presets()", "rope positions --csv": "rope.mrope_positions()",
             "rope --scaling": "scaling="}


def pythonic(text):
    """A sentence of the command line with its flags named as the module names its arguments."""
    text = re.sub("|".join(re.escape(c) for c in _COMMANDS), lambda m: _COMMANDS[m.group(0)], text)

    def argument(m):
        if re.search(r"\brope [a-z]+ $", m.string[:m.start()]):
            return m.group(0)  # "rope apply --query": a command to run
        return _ARGUMENTS.get(m.group(0), m.group(0)[2:].replace("-", "_"))
    return re.sub(r"--[a-z][a-z0-9-]*", argument, text)


@pytest.fixture
def rng():
    return np.random.default_rng(20261125)
