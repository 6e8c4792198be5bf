#!/usr/bin/python3
"""Files in torch.save's zip layout, written without PyTorch, for the torch.save reader (io/torch_file.hpp).

Independent of rope's C++ and of PyTorch: the layout is written from its description in pytorch/pytorch
torch/serialization.py (commit 000a1a54cb9cfd97fc822c5ef8fe52901c780daa: `_save` writes ARCHIVE/data.pkl, a
pickle of protocol 2 whose storages are persistent ids ('storage', torch.<Type>Storage, key, location, numel),
and each storage's bytes as ARCHIVE/data/KEY; PyTorch 2.x adds ARCHIVE/byteorder, ARCHIVE/.format_version,
ARCHIVE/.storage_alignment and ARCHIVE/.data/serialization_id), the tensors as torch._tensor's
`_reduce_ex_internal` reduces them (torch._utils._rebuild_tensor_v2(storage, storage_offset, size, stride,
requires_grad, backward_hooks)), the pickle opcodes from CPython's Lib/pickletools.py. Every record is stored
(no compression), as PyTorch's writer stores them.

Writes data/dumps/torch/ (the good files; the docs' examples use them) and tests/data/torch/ (the hostile
ones), both committed:
  qkv_bf16.pt         {'q', 'k', 'v'}: bfloat16 views [4, 2, 8] of one fused qkv storage [4, 48]
                      (offsets 0, 16, 32; strides (48, 8, 1)); qkv[t, c] = (t·48 + c)/4 − 3, exact in bf16
  nested.pt           {'layers': [{'q': f32 [2, 4]}, {'q': f16 [2, 4]}], 'step': 3, 'name': 'x'}, an OrderedDict
  positions_i64.pt    {'positions': int64 [6] = 0 1 2 0 1 2, 'mask': int32 [6]}
  layers.pt, layers.safetensors
                      three layers' q and q_rope (layers.N.q, layers.N.q_rope), bf16 [8, 2, 16]; layer 1 rotated
                      with base 500000, the others with 10000 (the safetensors file holds the same bytes)
  rope_before.pt, rope_after.pt
                      {'q': bfloat16 view [8, 2, 16] of a qkv storage}: q before and after HF's RoPE (half
                      layout, base 10000, positions 0..7, bf16 arithmetic as tests/reference/make_dumps.py)
  hostile_*.pt        pickles rope must refuse (their names say why; hostile_build_state.pt: BUILD on an OrderedDict
                      with a state that is no dict, where a state_dict's is; hostile_duplicate_name.pt: {'a.b': x,
                      'a': {'b': y}}; hostile_float_key.pt, hostile_none_key.pt: tensors under the keys 1.5 and
                      None); hostile_system.pt names os.system with a
                      command that would create the file 'torch_marker' in the current directory
Checks itself: every good file reads back (Python's zipfile, pickletools.dis) and the views give the values.
"""
import io
import json
import os
import pickletools
import struct
import sys
import zipfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cp_positions import positions_of, zigzag_indices  # noqa: E402
from make_dumps import bf16, inv_freq, rotate  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "data", "dumps", "torch")  # the good files, also the docs' examples
HOSTILE = os.path.join(HERE, "..", "data", "torch")  # the files rope must refuse


class P:
    """A pickle written opcode by opcode (protocol 2)."""

    def __init__(self):
        self.b = bytearray(b"\x80\x02")
        self.memo = 0

    def op(self, code, data=b""):
        self.b += code + data
        return self

    def put(self):
        self.b += b"q" + bytes([self.memo]) if self.memo < 256 else b"r" + struct.pack("<I", self.memo)
        self.memo += 1
        return self

    def str(self, s):
        raw = s.encode()
        return self.op(b"X", struct.pack("<I", len(raw)) + raw).put()

    def int(self, v):
        if 0 <= v < 256:
            return self.op(b"K", bytes([v]))
        if 0 <= v < 65536:
            return self.op(b"M", struct.pack("<H", v))
        if -2**31 <= v < 2**31:
            return self.op(b"J", struct.pack("<i", v))
        raw = v.to_bytes(8, "little", signed=True)
        return self.op(b"\x8a", bytes([8]) + raw)

    def glob(self, module, name):
        return self.op(b"c", f"{module}\n{name}\n".encode()).put()

    def ints(self, values):
        if len(values) == 0:
            return self.op(b")")
        if len(values) <= 3:
            for v in values:
                self.int(v)
            return self.op(bytes([0x84 + len(values)])).put()
        self.op(b"(")
        for v in values:
            self.int(v)
        return self.op(b"t").put()

    def tensor(self, storage_type, key, numel, offset, size, stride):
        """torch._utils._rebuild_tensor_v2(storage, offset, size, stride, False, OrderedDict())."""
        self.glob("torch._utils", "_rebuild_tensor_v2")
        self.op(b"(")
        self.op(b"(").str("storage").glob("torch", storage_type).str(str(key)).str("cpu").int(numel)
        self.op(b"t").put().op(b"Q")  # TUPLE, BINPERSID
        self.int(offset).ints(size).ints(stride).op(b"\x89")  # NEWFALSE: requires_grad
        self.glob("collections", "OrderedDict").op(b")").op(b"R").put()  # OrderedDict()
        return self.op(b"t").put().op(b"R").put()  # the arguments' TUPLE, REDUCE

    def stop(self):
        return bytes(self.b + b".")


class Stamped:
    """Records with one fixed time, so that the files are the same bytes on every run."""

    def __init__(self, z):
        self.z = z

    def writestr(self, name, data):
        self.z.writestr(zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0)), data)


def archive(path, pkl, storages, v2=True, name="archive"):
    """The zip as torch.save writes it: NAME/data.pkl, NAME/data/KEY, NAME/version (and 2.x's records)."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as zf:
        z = Stamped(zf)
        z.writestr(f"{name}/data.pkl", pkl)
        if v2:
            z.writestr(f"{name}/.format_version", b"1")
            z.writestr(f"{name}/.storage_alignment", b"64")
            z.writestr(f"{name}/byteorder", b"little")
        for key, raw in storages.items():
            z.writestr(f"{name}/data/{key}", raw)
        z.writestr(f"{name}/version", b"3\n")
        if v2:
            z.writestr(f"{name}/.data/serialization_id", b"1234567890123456789012345678901234567890")


def bf16_bytes(x):
    return (np.ascontiguousarray(x, np.float32).view(np.uint32) >> 16).astype("<u2").tobytes()


def dict_of(p, entries):
    """A dict {key: writer(p)} written as EMPTY_DICT, MARK, key value ..., SETITEMS."""
    p.op(b"}").put().op(b"(")
    for key, write in entries:
        p.str(key)
        write(p)
    return p.op(b"u")


def qkv_views():
    qkv = bf16(((np.arange(4 * 48, dtype=np.float32) / 4) - 3).reshape(4, 48))
    p = P()
    dict_of(p, [(n, lambda p, o=o: p.tensor("BFloat16Storage", 0, qkv.size, o, (4, 2, 8), (48, 8, 1)))
                for n, o in (("q", 0), ("k", 16), ("v", 32))])
    archive(os.path.join(OUT, "qkv_bf16.pt"), p.stop(), {0: bf16_bytes(qkv)})
    return qkv


def nested():
    a = np.arange(8, dtype=np.float32).reshape(2, 4) / 8
    b = (np.arange(8, dtype=np.float32).reshape(2, 4) - 4).astype(np.float16)
    p = P()
    p.glob("collections", "OrderedDict").op(b")").op(b"R").put()
    p.op(b"(").str("layers").op(b"]").put().op(b"(")
    dict_of(p, [("q", lambda p: p.tensor("FloatStorage", 0, 8, 0, (2, 4), (4, 1)))])
    dict_of(p, [("q", lambda p: p.tensor("HalfStorage", 1, 8, 0, (2, 4), (4, 1)))])
    p.op(b"e")  # APPENDS
    p.str("step").int(3).str("name").str("x").op(b"u")
    archive(os.path.join(OUT, "nested.pt"), p.stop(), {0: a.astype("<f4").tobytes(), 1: b.astype("<f2").tobytes()})
    return a, b


def positions():
    pos = np.array([0, 1, 2, 0, 1, 2], dtype="<i8")
    p = P()
    dict_of(p, [("positions", lambda p: p.tensor("LongStorage", 0, 6, 0, (6,), (1,))),
                ("mask", lambda p: p.tensor("IntStorage", 1, 6, 0, (6,), (1,)))])
    archive(os.path.join(OUT, "positions_i64.pt"), p.stop(),
            {0: pos.tobytes(), 1: np.ones(6, dtype="<i4").tobytes()}, v2=False)
    return pos


def rope_pair():
    """q before and after RoPE as a bf16 model computes it, each a view of a fused qkv storage [8, 96]."""
    seq, heads, d = 8, 2, 16
    rng = np.random.default_rng(65)
    q = bf16(rng.standard_normal((seq, heads, d)).astype(np.float32))
    theta, _ = inv_freq("default", d, 10000.0)
    after = rotate(q, np.arange(seq), theta, 1.0, "half", d, "bf16")
    for name, x in (("rope_before.pt", q), ("rope_after.pt", after)):
        qkv = bf16(rng.standard_normal((seq, 3 * heads * d)).astype(np.float32))
        qkv[:, :heads * d] = x.reshape(seq, heads * d)
        p = P()
        dict_of(p, [("q", lambda p: p.tensor("BFloat16Storage", 0, qkv.size, 0, (seq, heads, d), (3 * heads * d, d, 1)))])
        archive(os.path.join(OUT, name), p.stop(), {0: bf16_bytes(qkv)})


def cp_rank():
    """Rank 0 of 2 of a packed batch 0,8,24 split zigzag (TransformerEngine's split, tests/reference/cp_positions.py):
    cp_rank0.pt holds q, q_rope rotated at each token's position within its sequence, and those positions;
    cp_rank0_one_sequence.pt the same q rotated as if the batch were one sequence zigzagged (Megatron-LM PR #5243's
    kind of bug: positions taken from the packed table without each sequence's start)."""
    seq, heads, d = 12, 2, 16
    cu = [0, 8, 24]
    right, _ = positions_of(cu, zigzag_indices(cu, 2, 0))
    wrong = zigzag_indices([0, 24], 2, 0)  # one sequence of 24: its global indices are its positions
    rng = np.random.default_rng(5243)
    q = bf16(rng.standard_normal((seq, heads, d)).astype(np.float32))
    theta, _ = inv_freq("default", d, 10000.0)
    for name, pos in (("cp_rank0.pt", right), ("cp_rank0_one_sequence.pt", wrong)):
        after = rotate(q, np.asarray(pos), theta, 1.0, "half", d, "bf16")
        p = P()
        dict_of(p, [("q", lambda p: p.tensor("BFloat16Storage", 0, q.size, 0, (seq, heads, d), (heads * d, d, 1))),
                    ("q_rope", lambda p: p.tensor("BFloat16Storage", 1, q.size, 0, (seq, heads, d), (heads * d, d, 1))),
                    ("positions", lambda p: p.tensor("LongStorage", 2, seq, 0, (seq,), (1,)))])
        archive(os.path.join(OUT, name), p.stop(),
                {0: bf16_bytes(q), 1: bf16_bytes(after), 2: np.asarray(pos, "<i8").tobytes()})
    assert right == [0, 1, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15] and wrong == [0, 1, 2, 3, 4, 5, 18, 19, 20, 21, 22, 23]


def layers():
    """Three layers' q and q_rope in one file (layers.N.q, layers.N.q_rope); layer 1 rotated with base 500000."""
    seq, heads, d = 8, 2, 16
    rng = np.random.default_rng(3)
    entries, storages = [], {}
    for layer in range(3):
        q = bf16(rng.standard_normal((seq, heads, d)).astype(np.float32))
        theta, _ = inv_freq("default", d, 500000.0 if layer == 1 else 10000.0)
        after = rotate(q, np.arange(seq), theta, 1.0, "half", d, "bf16")
        storages[2 * layer], storages[2 * layer + 1] = bf16_bytes(q), bf16_bytes(after)
        entries.append((layer, 2 * layer, 2 * layer + 1))
    p = P()
    p.op(b"}").put().op(b"(").str("layers").op(b"]").put().op(b"(")
    for layer, kq, kr in entries:
        dict_of(p, [("q", lambda p, k=kq: p.tensor("BFloat16Storage", k, seq * heads * d, 0, (seq, heads, d),
                                                    (heads * d, d, 1))),
                    ("q_rope", lambda p, k=kr: p.tensor("BFloat16Storage", k, seq * heads * d, 0, (seq, heads, d),
                                                         (heads * d, d, 1)))])
    p.op(b"e").op(b"u")
    archive(os.path.join(OUT, "layers.pt"), p.stop(), storages)
    # The same layers as one safetensors file (huggingface/safetensors README "Format": u64 header size, JSON
    # header, buffer), named as the .pt names them.
    header, buffer = {}, b""
    for layer, kq, kr in entries:
        for name, key in (("q", kq), ("q_rope", kr)):
            raw = storages[key]
            header[f"layers.{layer}.{name}"] = {"dtype": "BF16", "shape": [seq, heads, d],
                                                "data_offsets": [len(buffer), len(buffer) + len(raw)]}
            buffer += raw
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(os.path.join(OUT, "layers.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + buffer)


def hostile():
    # os.system('touch torch_marker'): a global outside the subset, refused before REDUCE could run it
    p = P().glob("os", "system").str("touch torch_marker").op(b"\x85").op(b"R")
    archive(os.path.join(HOSTILE, "hostile_system.pt"), p.stop(), {})
    # 100 lists, each in the one before: deeper than the limit of 64
    p = P()
    for _ in range(100):
        p.op(b"]")
    for _ in range(99):
        p.op(b"a")
    archive(os.path.join(HOSTILE, "hostile_deep.pt"), p.stop(), {})
    # a tensor of rank 9 (torch.save writes it; rope lists it and reads at most rank 8)
    p = P()
    dict_of(p, [("q", lambda p: p.tensor("FloatStorage", 0, 1, 0, (1,) * 9, (1,) * 9))])
    archive(os.path.join(HOSTILE, "hostile_rank9.pt"), p.stop(), {0: np.zeros(1, "<f4").tobytes()})
    # a shape of 2^40 elements over a storage of 4
    p = P()
    dict_of(p, [("q", lambda p: p.tensor("FloatStorage", 0, 4, 0, (1 << 40,), (1,)))])
    archive(os.path.join(HOSTILE, "hostile_huge.pt"), p.stop(), {0: np.zeros(4, "<f4").tobytes()})
    # storage key 7, and the archive holds data/0 only
    p = P()
    dict_of(p, [("q", lambda p: p.tensor("FloatStorage", 7, 4, 0, (4,), (1,)))])
    archive(os.path.join(HOSTILE, "hostile_key.pt"), p.stop(), {0: np.zeros(4, "<f4").tobytes()})
    # a list that holds itself: EMPTY_LIST, BINPUT 0, BINGET 0, APPEND
    p = P().op(b"]").put().op(b"h", bytes([0])).op(b"a")
    archive(os.path.join(HOSTILE, "hostile_cycle.pt"), p.stop(), {})
    # a storage whose record is shorter than data.pkl says (numel 1000, 16 bytes)
    p = P()
    dict_of(p, [("q", lambda p: p.tensor("FloatStorage", 0, 1000, 0, (4,), (1,)))])
    archive(os.path.join(HOSTILE, "hostile_numel.pt"), p.stop(), {0: np.zeros(4, "<f4").tobytes()})
    # BUILD (setting an object's state, which may call its __setstate__): an opcode outside the subset
    p = P().op(b"}").op(b"}").op(b"b")
    archive(os.path.join(HOSTILE, "hostile_build.pt"), p.stop(), {})
    # BUILD on an OrderedDict (as a state_dict's _metadata is set) but with a state that is not a dict: a tuple
    # (None, {}), the form that sets an object's slots
    p = P().glob("collections", "OrderedDict").op(b")").op(b"R").put()
    p.op(b"N").op(b"}").op(b"\x86").op(b"b")
    archive(os.path.join(HOSTILE, "hostile_build_state.pt"), p.stop(), {})
    # two tensors joined to one name: {'a.b': x, 'a': {'b': y}}
    four = np.arange(4, dtype="<f4").tobytes()
    p = P()
    dict_of(p, [("a.b", lambda p: p.tensor("FloatStorage", 0, 4, 0, (4,), (1,))),
                ("a", lambda p: dict_of(p, [("b", lambda p: p.tensor("FloatStorage", 0, 4, 0, (4,), (1,)))]))])
    archive(os.path.join(HOSTILE, "hostile_duplicate_name.pt"), p.stop(), {0: four})
    # a tensor under the key 1.5 (BINFLOAT), and one under None inside 'x': no name to type
    p = P().op(b"}").put().op(b"(").op(b"G", struct.pack(">d", 1.5))
    p.tensor("FloatStorage", 0, 4, 0, (4,), (1,)).op(b"u")
    archive(os.path.join(HOSTILE, "hostile_float_key.pt"), p.stop(), {0: four})
    p = P()
    dict_of(p, [("x", lambda p: p.op(b"}").put().op(b"N").tensor("FloatStorage", 0, 4, 0, (4,), (1,)).op(b"s"))])
    archive(os.path.join(HOSTILE, "hostile_none_key.pt"), p.stop(), {0: four})
    # the good qkv file cut in half: no end of central directory
    with open(os.path.join(OUT, "qkv_bf16.pt"), "rb") as f:
        raw = f.read()
    with open(os.path.join(HOSTILE, "hostile_truncated.pt"), "wb") as f:
        f.write(raw[: len(raw) // 2])


def check(qkv):
    with zipfile.ZipFile(os.path.join(OUT, "qkv_bf16.pt")) as z:
        pickletools.dis(z.read("archive/data.pkl"), out=io.StringIO())
        raw = np.frombuffer(z.read("archive/data/0"), dtype="<u2").astype(np.uint32) << 16
    stored = raw.view(np.float32).reshape(4, 48)
    assert np.array_equal(stored, qkv)
    q = np.lib.stride_tricks.as_strided(stored.reshape(-1)[16:], (4, 2, 8), (48 * 4, 8 * 4, 4))
    assert q[1, 1, 2] == (1 * 48 + 16 + 8 + 2) / 4 - 3  # k[1, 1, 2]


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    os.makedirs(HOSTILE, exist_ok=True)
    qkv = qkv_views()
    nested()
    positions()
    rope_pair()
    cp_rank()
    layers()
    hostile()
    check(qkv)
    print("wrote", os.path.normpath(OUT), "and", os.path.normpath(HOSTILE))
