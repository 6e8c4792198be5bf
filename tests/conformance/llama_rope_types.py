#!/usr/bin/python3
"""data/llama/rope_types.tsv against llama.cpp's own source (the bundle scripts/install-deps.sh llama clones):
every architecture of llama_model_rope_type() in src/llama-model.cpp, by its name in src/llama-arch.cpp
LLM_ARCH_NAMES, must have the table's rope type (and the type with use_mrope() sections), and nothing more;
and the per-layer rules of src/rope/models/gguf_config_layer_rules.hpp must have a row for exactly the architectures
whose load_arch_hparams reads {arch}.rope.freq_base_swa (LLM_KV_ROPE_FREQ_BASE_SWA in src/models/*.cpp, a subclass
that reuses its parent's load_arch_hparams included).

and the architectures with RoPE that read attention.key_length_mla must be those gguf_config.cpp reads it for.

Usage: llama_rope_types.py --src LLAMA_CPP_SOURCE --table data/llama/rope_types.tsv --rules gguf_config_layer_rules.hpp
           --gguf-config src/rope/models/gguf_config.cpp
"""
import glob
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


def key_readers(src, kv):
    """The architecture names whose load_arch_hparams reads the key `kv` (LLM_KV_...)."""
    with open(f"{src}/src/llama-arch.cpp") as f:
        arch = f.read()
    body = arch[arch.index("LLM_ARCH_NAMES"):]
    names = dict(re.findall(r'\{\s*(LLM_ARCH_\w+)\s*,\s*"([^"]+)"\s*\}', body[:body.index("};")]))
    readers = set()
    for path in glob.glob(f"{src}/src/models/*.cpp"):
        with open(path) as f:
            text = f.read()
        m = re.search(r"llama_model_(\w+)::load_arch_hparams\(.*?\n\}", text, re.S)
        if m and kv in m.group(0):
            readers.add(m.group(1))
    with open(f"{src}/src/models/models.h") as f:
        header = f.read()
    # A subclass without its own load_arch_hparams reads what its parent reads.
    for m in re.finditer(r"struct llama_model_(\w+) : public llama_model_(\w+) \{(.*?)\n\};", header, re.S):
        if m.group(2) in readers and "void load_arch_hparams" not in m.group(3):
            readers.add(m.group(1))
    with open(f"{src}/src/llama-model.cpp") as f:
        model = f.read()
    out = set()
    for case, cls in re.findall(r"case (LLM_ARCH_\w+):\s*return new llama_model_(\w+)\(", model):
        if cls in readers:
            out.add(names[case])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", required=True)
    ap.add_argument("--table", required=True)
    ap.add_argument("--rules", required=True)
    ap.add_argument("--gguf-config", required=True)
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
    with open(a.rules) as f:
        rules = set(re.findall(r'^\s*\{"([^"]+)", \d+, (?:true|false), Gate::', f.read(), re.M))
    readers = key_readers(a.src, "LLM_KV_ROPE_FREQ_BASE_SWA")
    for name in sorted(readers - rules):
        print(f"{name}: reads rope.freq_base_swa in llama.cpp, no per-layer rule in {a.rules}")
    for name in sorted(rules - readers):
        print(f"{name}: a per-layer rule, but llama.cpp does not read its rope.freq_base_swa")
    print(f"{len(readers)} architectures read rope.freq_base_swa, {len(rules)} per-layer rules, "
          f"{len(readers ^ rules)} differ")
    bad += len(readers ^ rules)
    # MLA heads: the architectures with RoPE whose load_arch_hparams reads attention.key_length_mla must be the list
    # of src/rope/models/gguf_config.cpp reads_key_length_mla.
    with open(a.gguf_config) as f:
        text = f.read()
    listed = set(re.findall(r'"([^"]+)"', re.search(r"bool reads_key_length_mla.*?\{(.*?)\}", text, re.S).group(1)))
    mla = {n for n in key_readers(a.src, "LLM_KV_ATTENTION_KEY_LENGTH_MLA") if want.get(n, ("NONE",))[0] != "NONE"}
    print(f"{len(mla)} architectures with RoPE read attention.key_length_mla, rope lists {len(listed)}: "
          + ("the same" if mla == listed else f"llama.cpp only {sorted(mla - listed)}, rope only {sorted(listed - mla)}"))
    bad += len(mla ^ listed)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
