#!/usr/bin/python3
"""The truth-labelled corpus: every dump the NumPy ports of tests/reference/ write with a known truth,
as one table of rows that tests/cli/test_corpus.cpp runs through `rope check` and `rope identify`.

Runs each generator below into DIR/<generator>/ (their own code, their own manifests) and writes DIR/corpus.json: per
row its id ("generator/case"), the `rope check` arguments (as the generator's own check script of tests/cli/ builds
them), the `rope identify` arguments (the dump options of the same: the dumps, their positions, axes and types), and
the truth the generator states:

  check      the exit code, the variant the diagnosis names (`matches`; null: passes or names none) and its parameter
             (`found`), where the generator says;
  identify   layout, rotary_dim, rotary_offset, family and base, where the generator knows them (a correct dump of a
             port whose rotation it computed: make_dumps.py's, partial_rotary.py's, hf_families.py's rotary dimension).

What the table does not state from a generator (identify's reading of a buggy dump, check's closest variant), the test
holds against tests/cli/corpus_answers.json, the answers recorded when the row was added: a change that alters any
answer fails the row, named.

The conformance tier's llama.cpp captures are not here (they need llama.cpp installed): tests/conformance/ holds
their rows.

Usage: corpus.py DIR
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DUMP_OPTIONS = {"--before", "--after", "--positions", "--axis-positions", "--rope-delta", "--axes", "--dtype",
                "--sequence-starts"}
DUMP_FLAGS = {"--bf16-bits"}


def identify_args(check_args):
    """The dump options of check's arguments, which identify takes too."""
    out, i = [], 0
    while i < len(check_args):
        a = check_args[i]
        if a in DUMP_OPTIONS and i + 1 < len(check_args):
            out += [a, check_args[i + 1]]
            i += 2
            continue
        if a in DUMP_FLAGS:
            out.append(a)
        i += 1
    return out


def generate(generator, out, *extra):
    d = os.path.join(out, generator.replace(".py", ""))
    subprocess.run([sys.executable, os.path.join(HERE, generator), d, *extra], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    with open(os.path.join(d, "manifest.json")) as f:
        return d, json.load(f)


def row(rows, generator, name, check, exit, matches=None, found=None, found_rel=1e-9, identify=None, ident=None):
    rows.append({"id": f"{generator}/{name}", "check": check,
                 "identify": ident if ident is not None else identify_args(check),
                 "truth": {"exit": exit, "matches": matches, "found": found or {}, "found_rel": found_rel,
                           "identify": identify or {}}})


def buggy_kernels(out, rows):
    d, m = generate("buggy_kernels.py", out)
    for c in m["cases"]:
        ident = None
        if c.get("identify_args"):
            ident = identify_args(c["identify_args"])
        truth = {k: c["identify"][k] for k in ("layout", "rotary_offset", "rotary_dim")} if c.get("identify") else None
        if c.get("identify_family"):
            truth = dict(truth or {}, family=c["identify_family"]["family"], base=c["identify_family"]["base"])
        row(rows, "buggy_kernels", c["name"], c["args"], c["exit"], c["matches"], c["found"], c.get("found_rel", 1e-9),
            truth, ident)


def partial_rotary(out, rows):
    d, m = generate("partial_rotary.py", out)
    for c in m["cases"]:
        row(rows, "partial_rotary", c["name"], c["args"], c["exit"], c["matches"], identify=c["identify"])


def make_dumps(out, rows):
    d, m = generate("make_dumps.py", out, "--small")
    for c in m:
        if c["name"] == "bug_theta_bf16":
            continue  # bf16 angles depart from position 64 on: tests/cli/check_dumps.py checks it at 1024 positions
        files = ["--before", os.path.join(d, c["before"]), "--after", os.path.join(d, c["after"])]
        if "axis_positions" in c:
            files += ["--axis-positions", os.path.join(d, c["axis_positions"])]
        else:
            files += ["--positions", c["positions"]]
        ident = c.get("identify") or {}
        truth = {"layout": ident["layout"]} if "layout" in ident else {}
        if "layout" in ident and c["dtype"] != "bf16":  # bf16 at 64 positions leaves base 5e5's slowest pair unturned
            truth["rotary_dim"] = ident["rotary_dim"]
        if ident.get("kind") in ("default", "linear", "yarn", "llama3"):
            truth.update(family=ident["kind"], base=ident["base"])
        flags = [f for f in c["flags"] if f != "--bf16-bits"]
        bits = ["--bf16-bits"] if "--bf16-bits" in c["flags"] else []
        row(rows, "make_dumps", c["name"], files + bits + flags, c["exit"], c.get("matches"), identify=truth)


def hf_families(out, rows):
    d, m = generate("hf_families.py", out)
    for c in m:
        if c.get("refused") is not None:
            continue  # no dump: inspect, frequencies and apply refuse the config (tests/cli/check_hf_families.py)
        dd = os.path.join(d, c["dir"])
        check = ["--before", os.path.join(dd, "q.npy"), "--after", os.path.join(dd, "q_rope.npy")] + c["positions"] + \
            c["source"] + c["flags"]
        # The channels that turn: the rotary dimension where every θ_j > 0 (proportional RoPE's zero frequencies pass
        # through) and the dump keeps the slowest pair's turn (float64; bf16 rounds it away).
        turning = not c["nope"] and c["dtype"] == "f64" and all(t > 0 for t in c["theta"])
        truth = {"rotary_dim": c["rotary_dim"]} if turning else {}
        row(rows, "hf_families", c["name"], check, c["exit"], c["matches"], identify=truth)


def fope(out, rows):
    d, m = generate("fope.py", out)
    for c in m["cases"]:
        row(rows, "fope", c["name"], c["args"], c["exit"], c.get("matches") or c.get("variant") or None,
            identify={"layout": "half"})


def hunyuan_xdrope(out, rows):
    d, m = generate("hunyuan_xdrope.py", out)
    for c in m["cases"]:
        row(rows, "hunyuan_xdrope", c["name"], c["args"], c["exit"], c.get("matches") or c.get("variant") or None,
            identify={"layout": "half"})


def yarn_variants(out, rows):
    d, m = generate("yarn_variants.py", out)
    model = ["--base", f"{m['base']:g}", "--layout", "half", "--scaling", "yarn", "--factor", f"{m['factor']:g}",
             "--original-max-position", str(m["original_max_position"])]
    for c in m["cases"]:
        dd = os.path.join(d, c["dir"])
        check = ["--before", os.path.join(dd, "q.npy"), "--after", os.path.join(dd, "q_rope.npy"), "--positions",
                 os.path.join(dd, "positions.npy"), "--angles", "float32"] + model + ["--yarn-variant", c["variant"]]
        row(rows, "yarn_variants", c["name"], check, c["exit"], identify={"layout": "half", "rotary_dim": m["d"]})


def longrope_engines(out, rows):
    d, m = generate("longrope_engines.py", out)
    for c in m["cases"]:
        dd = os.path.join(d, c["dir"])
        check = ["--model", "phi-3-mini-128k", "--before", os.path.join(dd, "q.npy"), "--after",
                 os.path.join(dd, "q_rope.npy"), "--positions", os.path.join(dd, "positions.npy"), "--angles",
                 "float32"] + c["options"]
        # diagnosis: null (passes), ["matches", variant], or ["closest", variant] (no variant matches)
        named = c["diagnosis"][1] if c["diagnosis"] and c["diagnosis"][0] == "matches" else None
        row(rows, "longrope_engines", c["name"], check, c["exit"], named, identify={"layout": "half", "rotary_dim": m["d"]})


def engine_readings(generator, out, rows):
    """A port of engines reading one config otherwise (dynamic_engines.py, deepseek_v4_official.py): each case's
    options hold the config."""
    d, m = generate(f"{generator}.py", out)
    for c in m["cases"]:
        dd = os.path.join(d, c["dir"])
        check = ["--before", os.path.join(dd, "q.npy"), "--after", os.path.join(dd, "q_rope.npy"), "--positions",
                 os.path.join(dd, "positions.npy")] + c["options"]
        row(rows, generator, c["name"], check, c["exit"], c["variant"])


def dynamic_engines(out, rows):
    engine_readings("dynamic_engines", out, rows)


def deepseek_v4_official(out, rows):
    engine_readings("deepseek_v4_official", out, rows)


def openpangu_mrope(out, rows):
    d, m = generate("openpangu_mrope.py", out)
    for c in m["cases"]:
        dd = os.path.join(d, c["dir"])
        check = ["--config", os.path.join(d, c["config"]), "--layout", "half", "--before", os.path.join(dd, "q.npy"),
                 "--after", os.path.join(dd, "q_rope.npy"), "--axis-positions", os.path.join(d, "positions.csv"),
                 "--angles", "float32"]
        row(rows, "openpangu_mrope", c["name"], check, c["exit"], c["variant"],
            {"pair": c["pair"]} if c["variant"] else None)


def gemma4_vision(out, rows):
    d, m = generate("gemma4_vision.py", out)
    for c in m:
        dd = os.path.join(d, c["dir"])
        check = ["--before", os.path.join(dd, "q.npy"), "--after", os.path.join(dd, "q_rope.npy"), "--axis-positions",
                 os.path.join(dd, "positions.csv"), "--vision", "gemma4", "--base", "100", "--angles", "float32"]
        check += ["--bf16-bits"] if c["dtype"] == "bf16" else []
        row(rows, "gemma4_vision", c["name"], check, c["exit"], c.get("matches"))


def deepseek_v4(out, rows):
    d, m = generate("deepseek_v4.py", out)
    for c in m["cases"]:
        dd = os.path.join(d, c["dir"])
        check = ["--before", os.path.join(dd, "q.npy"), "--after", os.path.join(dd, "q_rope.npy"), "--positions",
                 c["positions"] or os.path.join(dd, "positions.npy"), "--config", os.path.join(d, "config_nested.json"),
                 "--angles", "float32"]
        # The pools' entries by their own layer type (tests/cli/check_deepseek_v4.py's POOL_TYPES).
        pool = {"hca": "heavily_compressed_attention", "csa": "compressed_sparse_attention"}
        check += ["--layer-type", pool[c["pool"]] if c["pool"] else c["label"]]
        check += ["--bf16-bits"] if c["dtype"] == "bf16" else []
        row(rows, "deepseek_v4", c["name"], check, c["exit"])


def shift_map(out, rows):
    # A K cache re-rotated key by key (--shift-map, issue 78 item 3): identify reads the same pair at the map's
    # δ = new − old as positions (k' = R(δ)·k is RoPE at position δ), so a correct move reads as the cache's RoPE.
    d, m = generate("shift_map.py", out)
    for c in m["cases"]:
        truth = {"layout": "half", "rotary_dim": m["d"]} if c["exit"] == 0 else None
        row(rows, "shift_map", c["name"], c["args"], c["exit"], c["matches"], c["found"], identify=truth,
            ident=c["identify_args"])


def qk_pairs(out, rows):
    """q and k checked together (issue 78 item 2): check's verdict of the three, identify on one tensor."""
    d, m = generate("qk_pairs.py", out)
    for c in m["cases"]:
        row(rows, "qk_pairs", c["name"], c["args"], c["exit"], c["matches"], identify=c["identify"],
            ident=c["identify_args"])


def diffusers(out, rows):
    """diffusers' image and video transformers (issue 79): each port's dump as tests/cli/check_diffusers.py checks it,
    the source's computation passing and each named mistake with its row. Wan's #12538 split in bf16 is left out: its
    slow pairs stay within bf16's tolerance, so check passes the mistake (docs/check.md says so)."""
    sys.path.insert(0, HERE)
    import diffusers_rope as dr
    d, m = generate("diffusers_rope.py", out)
    # HunyuanVideo's base 256 read as 10000: the base-10000 row; another base (Wan's 1e6) base-other with its base.
    for c in m["cases"]:
        if c["name"] == "mistake_wan_split_12538_d64_bf16":
            continue
        check = dr.check_args(c, os.path.join(d, c["dir"]))
        failing = c["expect"] != "pass"
        ten = c.get("variant") == "base-other" and c["found"].get("base") == 10000.0
        matches = ("base-10000" if ten else c.get("variant")) if failing else None
        measured = failing and c.get("variant") in ("base-other", "text-ids-counted") and not ten
        found = {k: float(v) for k, v in c["found"].items() if k != "expected"} if measured else None
        row(rows, "diffusers", c["name"], check, 1 if failing else 0, matches, found, identify=c.get("identify"))


def diffusers_2026(out, rows):
    """Z-Image, HunyuanVideo 1.5, Kandinsky 5 and Qwen-Image with text tokens (issue 93, diffusers_rope_2026.py): each
    correct dump passes, each planted mistake named with its parameter where it has one."""
    sys.path.insert(0, HERE)
    import diffusers_rope as dr
    d, m = generate("diffusers_rope_2026.py", out)
    for c in m["cases"]:
        check = dr.check_args(c, os.path.join(d, c["dir"]))
        failing = c["expect"] != "pass"
        ten = c.get("variant") == "base-other" and c["found"].get("base") == 10000.0
        matches = ("base-10000" if ten else c.get("variant")) if failing else None
        measured = failing and c.get("variant") in ("axis-scale-ignored", "axis-not-centred", "caption-from-zero")
        found = {k: float(v) for k, v in c["found"].items()} if measured else None
        row(rows, "diffusers_2026", c["name"], check, 1 if failing else 0, matches, found)


def ltx2_rope(out, rows):
    """LTX-2's video and audio RoPE (ltx2_rope.py): both rope_types, the dump whole or in heads ([b, s, h, d] and
    [b, h, s, d]), each correct one passing and each planted mistake named."""
    d, m = generate("ltx2_rope.py", out)
    for c in m["cases"]:
        row(rows, "ltx2_rope", c["name"], c["args"], c["exit"], c["matches"], identify=c.get("identify"))


def diagnosis_2026(out, rows):
    """Bugs named by a measured difference (diagnosis_2026.py): check names each with its parameter, identify reads
    the pairs (and the family where the kernel fixes it)."""
    d, m = generate("diagnosis_2026.py", out)
    for c in m["cases"]:
        truth = dict(c["identify"] or {})
        if c.get("identify_family"):
            truth.update(family=c["identify_family"]["family"], base=c["identify_family"]["base"])
        row(rows, "diagnosis_2026", c["name"], c["args"], c["exit"], c["matches"], c["found"], c["found_rel"],
            truth or None, ident=c.get("identify_args"))


def gpu_recorded(out, rows):
    """RoPE as an NVIDIA H200 computed it (gpu_recorded.py reads tests/data/gpu/): fast units and float32 angles named
    where held to float64, every dump passing under the angle model it was made with."""
    d, m = generate("gpu_recorded.py", out)
    for c in m["cases"]:
        row(rows, "gpu_recorded", c["name"], c["args"], c["exit"], c["matches"], c["found"], c["found_rel"],
            c["identify"])


GENERATORS = [buggy_kernels, partial_rotary, make_dumps, hf_families, fope, hunyuan_xdrope, yarn_variants,
              longrope_engines, dynamic_engines, openpangu_mrope, gemma4_vision, deepseek_v4, deepseek_v4_official,
              shift_map, qk_pairs, diffusers, ltx2_rope, diagnosis_2026,
              diffusers_2026, gpu_recorded]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rows = []
    for g in GENERATORS:
        g(out, rows)
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids)), "two rows of one id"
    with open(os.path.join(out, "corpus.json"), "w") as f:
        json.dump({"rows": rows}, f, indent=1)
    print(f"{len(rows)} rows in {out}/corpus.json")


if __name__ == "__main__":
    main()
