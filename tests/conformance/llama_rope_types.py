#!/usr/bin/python3
"""data/llama/rope_types.tsv against llama.cpp's own source (the bundle scripts/install-deps.sh llama clones):
every architecture of llama_model_rope_type() in src/llama-model.cpp, by its name in src/llama-arch.cpp
LLM_ARCH_NAMES, must have the table's rope type (and the type with use_mrope() sections), and nothing more.

Usage: llama_rope_types.py --src LLAMA_CPP_SOURCE --table data/llama/rope_types.tsv
"""
import argparse
import re
import sys


def source_types(src):
    with open(f"{src}/src/llama-arch.cpp") as f:
        arch = f.read()
    body = arch[arch.index("LLM_ARCH_NAMES"):]
    names = dict(re.findall(r'\{\s*(LLM_ARCH_\w+)\s*,\s*"([^"]+)"\s*\}', body[:body.index("};")]))
    with open(f"{src}/src/llama-model.cpp") as f:
        model = f.read()
    start = model.index("llama_rope_type llama_model_rope_type(const llama_model * model)")
    fn = model[start:model.index("\n}\n", start)]
    types, pending = {}, []
    for line in fn.splitlines():
        m = re.match(r"\s*case (LLM_ARCH_\w+):", line)
        if m:
            if m.group(1) != "LLM_ARCH_UNKNOWN":  # GGML_ABORT: not an architecture
                pending.append(m.group(1))
            continue
        if "return" not in line or not pending:
            continue
        if "LLM_ARCH_DFLASH" in pending and "dsv4_hc_mult" not in line:
            continue  # its first return: MROPE when it has sections; the table keeps NEOX/MROPE
        t = re.search(r"use_mrope\(\) \? LLAMA_ROPE_TYPE_(\w+) : LLAMA_ROPE_TYPE_(\w+)", line)
        if t:
            value = (t.group(2), t.group(1))
        elif "dsv4_hc_mult" in line:
            value = ("NEOX", "MROPE")
        else:
            r = re.search(r"return LLAMA_ROPE_TYPE_(\w+);", line)
            if not r:
                continue
            value = (r.group(1), "-")
        for case in pending:
            types[names[case]] = value
        pending = []
    return types


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", required=True)
    ap.add_argument("--table", required=True)
    a = ap.parse_args()
    want = source_types(a.src)
    have = {}
    with open(a.table) as f:
        rows = [l.rstrip("\n").split("\t") for l in f if not l.startswith("#")]
    for r in rows[1:]:
        have[r[0]] = (r[1], r[2])
    bad = 0
    for name in sorted(set(want) | set(have)):
        if want.get(name) != have.get(name):
            print(f"{name}: llama.cpp {want.get(name)}, table {have.get(name)}")
            bad += 1
    print(f"{len(want)} architectures in llama.cpp, {len(have)} in the table, {bad} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
