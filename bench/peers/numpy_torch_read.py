#!/usr/bin/python3
"""The NumPy peer of bench/torch_dump_bench.py: reads the named tensors of a torch.save file as rope does, with
Python's zipfile (data.pkl parsed by pickletools' opcode walk is not needed here: the bench's file names its
storages in order, layer N's q and q_rope the records data/2N and data/2N+1) and widens each to float64.

    numpy_torch_read.py FILE NAME...   prints each tensor's sum of squares
"""
import sys
import zipfile

import numpy as np


def main():
    path, names = sys.argv[1], sys.argv[2:]
    with zipfile.ZipFile(path) as z:
        for name in names:
            _, layer, kind = name.split(".")
            key = 2 * int(layer) + (kind == "q_rope")
            raw = np.frombuffer(z.read(f"archive/data/{key}"), dtype="<u2")
            x = (raw.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
            print(name, float(np.dot(x, x)))


if __name__ == "__main__":
    main()
