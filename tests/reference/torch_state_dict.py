#!/usr/bin/python3
"""A real `torch.save(model.state_dict())`, written by PyTorch itself (Debian's python3-torch), for the torch.save
reader (io/torch_file.hpp, issue 77 item 2): a state_dict is an OrderedDict whose `_metadata` (each module's
version) torch.save's pickle sets by BUILD after the items (CPython's Lib/collections/__init__.py,
OrderedDict.__reduce__: the state is vars(self); torch/nn/modules/module.py, Module.state_dict sets
`destination._metadata`), so a reader that refuses BUILD refuses the most common .pt file there is.

Also tests/data/torch/typed_storages.pt (issue 77 item 8): {'q': float32 [2, 2] = 0 1 2 3, 'mask': bool [3],
'z': complex64 [2]}, data that rope lists and refuses by its dtype when read (it called their storages code).

Writes tests/data/torch/state_dict.pt (committed; the fuzz corpus holds a copy, tests/fuzz/corpus_tensor/):
  a two-layer MLP nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2)) with its weights set to
  w[i, j] = (i·cols + j)/8 − 1 and biases b[i] = i/4 (exact in float32): tensors 0.weight [3, 4], 0.bias [3],
  2.weight [2, 3], 2.bias [2]. Checks itself: the pickle holds BUILD on the OrderedDict, and torch.load gives the
  values back with `_metadata` an attribute, not an item.
"""
import collections
import os
import pickletools
import zipfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "data", "torch", "state_dict.pt")


def model():
    m = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    with torch.no_grad():
        for layer in (m[0], m[2]):
            rows, cols = layer.weight.shape
            layer.weight.copy_(torch.arange(rows * cols, dtype=torch.float32).view(rows, cols) / 8 - 1)
            layer.bias.copy_(torch.arange(rows, dtype=torch.float32) / 4)
    return m


if __name__ == "__main__":
    state = model().state_dict()
    assert isinstance(state, collections.OrderedDict) and hasattr(state, "_metadata")
    torch.save(state, OUT)
    with zipfile.ZipFile(OUT) as z:
        pkl = next(n for n in z.namelist() if n.endswith("/data.pkl"))
        ops = [op.name for op, _, _ in pickletools.genops(z.read(pkl))]
    assert "BUILD" in ops, ops
    back = torch.load(OUT)
    assert list(back.keys()) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert "_metadata" not in back and hasattr(back, "_metadata")
    assert back["2.weight"][1, 2].item() == (1 * 3 + 2) / 8 - 1
    print(f"wrote {OUT}: {', '.join(f'{k} {list(v.shape)}' for k, v in back.items())}")
    typed = os.path.join(HERE, "..", "data", "torch", "typed_storages.pt")
    torch.save({"q": torch.arange(4, dtype=torch.float32).view(2, 2), "mask": torch.tensor([True, False, True]),
                "z": torch.tensor([1 + 2j, 3 - 4j], dtype=torch.complex64)}, typed)
    assert torch.load(typed)["mask"].dtype == torch.bool
    print(f"wrote {typed}")
