#!/usr/bin/python3
"""The llama.cpp rows of data/families.json against llama.cpp's own source (the bundle scripts/install-deps.sh
llama clones), so that a wrong row fails:
- every architecture of llama_model_rope_type() in src/llama-model.cpp, by its name in src/llama-arch.cpp
  LLM_ARCH_NAMES, has a row with that rope type (and the type with use_mrope() sections), and nothing more; the
  row's llm_arch, name_line and rope_type_lines (its case and return lines) point at those lines;
- the rows with "sliding" are exactly the architectures whose load_arch_hparams reads {arch}.rope.freq_base_swa
  (LLM_KV_ROPE_FREQ_BASE_SWA in src/models/*.cpp, a subclass that reuses its parent's loader included), and each
  row's default pattern and dense_first are those of its load_swa_pattern(ml, n[, true]) call (none: 0), and its
  base without the key rope.freq_base where the loader copies it into rope_freq_base_train_swa, else 10000;
- the rows with key_length_mla are exactly the architectures with RoPE whose loader reads attention.key_length_mla;
- every architecture whose graph calls ggml_rope_set_offset or reads MLA heads rotates the last channels in its
  row (rotary_channels "last"; DFlash's DeepSeek-V4 draft: layers_code dflash), and no other row says so;
- the rows with yarn_log_multiplier are exactly the architectures whose loader reads it, each with the loader's
  division by 0.1 or none, and mscale = mscale_all_dim where src/llama-context.cpp says so (DeepSeek-2 alone);
- every graph that leaves layers without RoPE by n_no_rope_layer_step has a row rule for it (nope_every equal to
  the step its loader sets, or a sliding rule of not_every_fourth, not_first_of_four or llama4);
- the lightning indexers that turn the last channels with the model's rope type (ggml_rope_set_offset) are exactly
  the rows whose layers_code models them (deepseek4, hy_v4); those that turn the first channels are exactly the rows
  with an "indexer", whose rope type (its own, or "model"), layers (every, indexer_types with GLM-5.2's default list
  and context bound, not_sliding, compress_ratios), channels and positions (k at other positions: k_positions_source)
  are those of the graph's ggml_rope_ext / ggml_rope_multi calls on the indexer's q and k, at the model's freq_base;
- the hybrids whose loader marks the recurrent (linear-attention) layers by attention.recurrent_layers, else all but
  every full_attention_interval-th layer, and whose graph branches on is_recr(il), are exactly the rows with
  linear_attention_every equal to the loader's default interval (Qwen4-exp: its indexer rule, interval 4).

Usage: llama_rope_types.py --src LLAMA_CPP_SOURCE --table data/families.json
"""
import argparse
import glob
import json
import re
import sys


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


class Source:
    def __init__(self, src):
        self.src = src
        self.arch_text = read(f"{src}/src/llama-arch.cpp")
        body = self.arch_text[self.arch_text.index("LLM_ARCH_NAMES"):]
        self.names = dict(re.findall(r'\{\s*(LLM_ARCH_\w+)\s*,\s*"([^"]+)"\s*\}', body[:body.index("};")]))
        self.model_text = read(f"{src}/src/llama-model.cpp")
        self.models = {p: read(p) for p in sorted(glob.glob(f"{src}/src/models/*.cpp"))}
        header = read(f"{src}/src/models/models.h")
        # struct llama_model_X : public llama_model_Y { ... }: X's parent, and whether X has its own loader.
        self.parent, self.own_loader = {}, {}
        for m in re.finditer(r"struct llama_model_(\w+) : public llama_model_(\w+) \{(.*?)\n\};", header, re.S):
            self.parent[m.group(1)] = m.group(2)
            self.own_loader[m.group(1)] = "void load_arch_hparams" in m.group(3)
        self.cls = {self.names[case]: cls for case, cls in
                    re.findall(r"case (LLM_ARCH_\w+):\s*return new llama_model_(\w+)\(", self.model_text)}

    def rope_types(self):
        start = self.model_text.index("llama_rope_type llama_model_rope_type(const llama_model * model)")
        first = self.model_text.count("\n", 0, start) + 1
        fn = self.model_text[start:self.model_text.index("\n}\n", start)]
        types, pending = {}, []
        for n, line in enumerate(fn.splitlines(), first):
            m = re.match(r"\s*case (LLM_ARCH_\w+):", line)
            if m:
                if m.group(1) != "LLM_ARCH_UNKNOWN":  # GGML_ABORT: not an architecture
                    pending.append((m.group(1), n))
                continue
            if "return" not in line or not pending:
                continue
            if any(c == "LLM_ARCH_DFLASH" for c, _ in pending) and "dsv4_hc_mult" not in line:
                continue  # its first return: MROPE when it has sections; the row keeps NEOX/MROPE
            t = re.search(r"use_mrope\(\) \? LLAMA_ROPE_TYPE_(\w+) : LLAMA_ROPE_TYPE_(\w+)", line)
            if t:
                value = (t.group(2), t.group(1))
            elif "dsv4_hc_mult" in line:
                value = ("NEOX", "MROPE")
            else:
                r = re.search(r"return LLAMA_ROPE_TYPE_(\w+);", line)
                if not r:
                    continue
                value = (r.group(1), r.group(1))
            for case, case_line in pending:
                types[self.names[case]] = (value, case, case_line, n)
            pending = []
        return types

    def name_line(self, name):
        for n, line in enumerate(self.arch_text.splitlines(), 1):
            if re.search(r'\{\s*LLM_ARCH_\w+\s*,\s*"' + re.escape(name) + r'"\s*\}', line):
                return n
        return None

    def files(self, cls):
        """The sources of class llama_model_CLS and of its parents."""
        out = []
        while cls:
            out += [t for p, t in self.models.items() if f"llama_model_{cls}::" in t]
            cls = self.parent.get(cls) if self.parent.get(cls, "base") != "base" else None
        return out

    def loader(self, name):
        """The load_arch_hparams an architecture runs (its own, else its parent's)."""
        cls = self.cls.get(name)
        while cls:
            for text in self.models.values():
                m = re.search(rf"llama_model_{cls}::load_arch_hparams\(.*?\n\}}", text, re.S)
                if m:
                    return m.group(0)
            cls = self.parent.get(cls) if not self.own_loader.get(cls, True) else None
        return ""

    def graph(self, name):
        return "\n".join(self.files(self.cls[name])) if name in self.cls else ""


def indexer_calls(graph):
    """The graph's RoPE calls on the indexer's q and on its k: (tensor, args) of each `X = ggml_rope_ext/multi(ctx0, Y,
    ARGS);` whose result the graph names indexer_q / indexer_k (cb(X, "indexer_q", il) within the next two statements:
    Qwen4-exp reshapes its k first)."""
    calls = {}
    for m in re.finditer(r"(\w+) = ggml_rope_(?:ext|multi)\(\s*ctx0,\s*(\w+),(.*?)\);(.*?;.*?;)", graph, re.S):
        named = re.search(r'cb\(' + m.group(1) + r', "(indexer_[qk])"', m.group(4))
        if named and named.group(1) not in calls:
            calls[named.group(1)] = [a.strip() for a in m.group(3).split(",")]
    return calls


def first_channels_indexer(n, graph, loader, row):
    """The differences between an indexer on the first channels in llama.cpp's graph and the row's "indexer"."""
    if row is None:
        return [f"{n}: its indexer turns the first channels, the row has no indexer for it"]
    calls, bad = indexer_calls(graph), []
    if set(calls) != {"indexer_q", "indexer_k"}:
        return [f"{n}: the RoPE calls of its indexer's q and k are not found ({sorted(calls)})"]
    for which, args in sorted(calls.items()):
        # (positions, freq_factors, n_dims, [sections,] mode, n_ctx_orig, freq_base, freq_scale, ...)
        mode = args[4] if args[3] == "sections" else args[3]
        base = args[6] if args[3] == "sections" else args[5]
        t = mode.replace("LLAMA_ROPE_TYPE_", "") if mode.startswith("LLAMA_ROPE_TYPE_") else "model"
        if mode not in ("rope_type",) and t == "model":
            bad.append(f"{n}: {which}'s rope type {mode} is not read")
        if t != row["rope_type"]:
            bad.append(f"{n}: {which} turns with rope type {t}, the row says {row['rope_type']}")
        if args[2] != "n_rot" or base != "freq_base":
            bad.append(f"{n}: {which} turns {args[2]} channels at {base}; rope assumes n_rot at the model's freq_base")
        moved = args[0] != "inp_pos"
        if moved != (which == "indexer_k" and "k_positions_source" in row):
            bad.append(f"{n}: {which} turns at positions {args[0]}; the row "
                       f"{'says' if 'k_positions_source' in row else 'does not say'} its k has positions of its own")
    if row.get("rotary_channels") != "first":
        bad.append(f"{n}: its indexer turns the first channels, the row says {row.get('rotary_channels')}")
    before = graph[:graph.index('"indexer_q"')][-600:]
    layers = ("indexer_types" if "is_indexer_full(il)" in before else "not_sliding" if "if (!is_swa)" in before
              else "compress_ratios" if re.search(r"dsv4_compress_ratios\[il\] > 0", graph) and "build_qsa_top_k" in graph
              else "every")
    if layers != row["layers"]:
        bad.append(f"{n}: its indexer's layers are {layers} in llama.cpp's graph, the row says {row['layers']}")
    if layers == "indexer_types":
        m = re.search(r"DEFAULT_INDEXER_TYPES = \{(.*?)\};", graph, re.S)
        listed = [int(x) for x in re.findall(r"\d+", m.group(1))] if m else None
        below = re.search(r"n_ctx_train < (\d+);", loader)
        if listed != row.get("types_default") or not below or int(below.group(1)) != row.get("all_below_context"):
            bad.append(f"{n}: without attention.indexer.types llama.cpp has every layer below context "
                       f"{below.group(1) if below else None}, else {listed}; the row {row.get('all_below_context')}, "
                       f"{row.get('types_default')}")
    if layers == "compress_ratios" and not re.search(r"full_attn_interval = 4;", loader):
        bad.append(f"{n}: the default full_attention_interval is not 4 in llama.cpp's loader")
    return bad


def report_differences(bad):
    """Prints each difference and their count; the exit code: 1 when there is one, else 0."""
    for line in bad:
        print(line)
    print(f"{len(bad)} differences")
    return 1 if bad else 0


def source_and_rows(doc):
    """The command line's --src and --table (a script's `doc` its help): the source, and the rows by architecture."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--src", required=True)
    ap.add_argument("--table", required=True)
    a = ap.parse_args()
    return Source(a.src), {r["architecture"]: r for r in json.loads(read(a.table))["llama_cpp"]["architectures"]}


def main():
    src, rows = source_and_rows(__doc__)
    bad = []
    want = src.rope_types()
    for name in sorted(set(want) | set(rows)):
        r = rows.get(name)
        if name not in want or r is None:
            bad.append(f"{name}: in {'the table' if r else 'llama.cpp'} only")
            continue
        (types, case, case_line, return_line) = want[name]
        have = (r["rope_type"], r.get("rope_type_with_sections", r["rope_type"]))
        if have != types:
            bad.append(f"{name}: llama.cpp {types}, table {have}")
        if r["llm_arch"] != case or r["rope_type_lines"] != [case_line, return_line]:
            bad.append(f"{name}: llama.cpp {case} at lines {case_line}, {return_line}; table {r['llm_arch']} "
                       f"{r['rope_type_lines']}")
        if r["name_line"] != src.name_line(name):
            bad.append(f"{name}: named at src/llama-arch.cpp:{src.name_line(name)}, table {r['name_line']}")
    print(f"{len(want)} architectures in llama_model_rope_type, {len(rows)} rows")

    def readers(kv):
        return {n for n in rows if kv in src.loader(n)}

    swa = readers("LLM_KV_ROPE_FREQ_BASE_SWA")
    sliding = {n for n, r in rows.items() if "sliding" in r}
    bad += [f"{n}: reads rope.freq_base_swa in llama.cpp, no sliding rule" for n in sorted(swa - sliding)]
    bad += [f"{n}: a sliding rule, but llama.cpp does not read its rope.freq_base_swa" for n in sorted(sliding - swa)]
    for n in sorted(sliding & swa):
        m = re.search(r"load_swa_pattern\(ml,\s*(\d+)(?:,\s*(?:/\*\w+=\*/)?(true|false))?\)", src.loader(n))
        pattern = (int(m.group(1)), m.group(2) == "true") if m else (0, False)
        s = rows[n]["sliding"]
        if pattern != (s["pattern"], s.get("dense_first", False)):
            bad.append(f"{n}: load_swa_pattern {pattern}, table {(s['pattern'], s.get('dense_first', False))}")
        # Without the key, the sliding base is rope.freq_base where the loader copies it
        # (rope_freq_base_train_swa = rope_freq_base_train), else llama.cpp's 10000 (src/llama-hparams.h); a loader
        # that requires the key (no `false` in its get_key) has no fallback to compare.
        optional = re.search(r"get_key\(LLM_KV_ROPE_FREQ_BASE_SWA,[^;]*,\s*false\)", src.loader(n))
        copies = re.search(r"rope_freq_base_train_swa\s*=\s*hparams\.rope_freq_base_train\b", src.loader(n))
        if optional and bool(copies) != (s["base"] != "freq_base_swa_else_10000"):
            bad.append(f"{n}: without rope.freq_base_swa llama.cpp's base is {'rope.freq_base' if copies else '10000'}, "
                       f"table {s['base']}")
    print(f"{len(swa)} architectures read rope.freq_base_swa, {len(sliding)} sliding rules")

    roped = {n for n, (t, *_) in want.items() if t[0] != "NONE"}
    mla = readers("LLM_KV_ATTENTION_KEY_LENGTH_MLA") & roped
    listed = {n for n, r in rows.items() if r.get("key_length_mla")}
    bad += [f"{n}: reads attention.key_length_mla, the row says no" for n in sorted(mla - listed)]
    bad += [f"{n}: key_length_mla in the row, llama.cpp does not read it" for n in sorted(listed - mla)]
    print(f"{len(mla)} architectures with RoPE read attention.key_length_mla, {len(listed)} rows say so")

    # rope.scaling.yarn_log_multiplier: read by exactly the rows' loaders, divided by 0.1 where the loader divides it, and
    # mscale = mscale_all_dim for the architectures src/llama-context.cpp names (DeepSeek-2 alone).
    ylm = readers("LLM_KV_ROPE_SCALING_YARN_LOG_MUL")
    with_rule = {n for n, r in rows.items() if "yarn_log_multiplier" in r}
    bad += [f"{n}: reads rope.scaling.yarn_log_multiplier, the row has no yarn_log_multiplier" for n in sorted(ylm - with_rule)]
    bad += [f"{n}: yarn_log_multiplier in the row, llama.cpp does not read it" for n in sorted(with_rule - ylm)]
    context = read(f"{src.src}/src/llama-context.cpp")
    own_mscale = {src.names[c] for c in re.findall(r"model\.arch == (LLM_ARCH_\w+) && mscale_all_dims", context)}
    for n in sorted(ylm & with_rule):
        y = rows[n]["yarn_log_multiplier"]
        divided = 0.1 if re.search(r"rope_yarn_log_mul\s*/=\s*0\.1f", src.loader(n)) else 1
        if y["divided_by"] != divided or y["mscale_is_mscale_all_dim"] != (n in own_mscale):
            bad.append(f"{n}: llama.cpp divides yarn_log_multiplier by {divided}, mscale = mscale_all_dim "
                       f"{n in own_mscale}; the row {y['divided_by']}, {y['mscale_is_mscale_all_dim']}")
    print(f"{len(ylm)} architectures read rope.scaling.yarn_log_multiplier, {len(with_rule)} rows say how")

    offset = {n for n in roped if "ggml_rope_set_offset" in src.graph(n)} | mla
    last = {n for n, r in rows.items() if r.get("rotary_channels") == "last" or r.get("layers_code") == "dflash"}
    bad += [f"{n}: llama.cpp rotates the last channels, the row says the first" for n in sorted(offset - last)]
    bad += [f"{n}: the row rotates the last channels, llama.cpp's graph the first" for n in sorted(last - offset)]
    print(f"{len(offset)} architectures rotate the last channels, {len(last)} rows say so")

    nope_rules = {"not_every_fourth", "not_first_of_four", "llama4"}
    for n in sorted(roped):
        step = "n_no_rope_layer_step" in src.graph(n)
        r = rows[n]
        rule = r.get("nope_every", 0) > 0 or r.get("sliding", {}).get("rotates") in nope_rules
        if step != rule:
            bad.append(f"{n}: llama.cpp {'uses' if step else 'does not use'} n_no_rope_layer_step, the row "
                       f"{'has' if rule else 'has no'} rule for it")
        if r.get("nope_every"):
            m = re.search(r"n_no_rope_layer_step\s*=\s*(\d+);", src.loader(n))
            if not m or int(m.group(1)) != r["nope_every"]:
                bad.append(f"{n}: nope_every {r['nope_every']}, llama.cpp's step {m.group(1) if m else None}")
    # Lightning indexers: those that turn the last channels with the model's rope type (ggml_rope_set_offset on the
    # indexer's q) are the layer type `indexer` of the rows' layers_code (deepseek4, hy_v4); the others turn the first
    # channels (with a rope type of their own, or the model's) and are listed as not modelled.
    coded = {n for n, r in rows.items() if r.get("layers_code") in ("deepseek4", "hy_v4")}
    last_indexer, other = set(), []
    for n in sorted(roped):
        graph = src.graph(n)
        if '"indexer_q"' not in graph and '"lid_q"' not in graph:
            continue
        if re.search(r"ggml_rope_set_offset\((?:indexer_q|iq),", graph):
            last_indexer.add(n)
        else:
            other.append(n)
            bad += first_channels_indexer(n, graph, src.loader(n), rows[n].get("indexer"))
    bad += [f"{n}: its indexer turns the last channels with the model's rope type, the row has no layers_code for it"
            for n in sorted(last_indexer - coded)]
    bad += [f"{n}: layers_code models an indexer on the last channels, llama.cpp's graph has none"
            for n in sorted(coded - last_indexer)]
    bad += [f"{n}: the row has an indexer, llama.cpp's graph has none on the first channels"
            for n in sorted({n for n, r in rows.items() if "indexer" in r} - set(other))]
    print(f"{len(last_indexer)} indexers turn the last channels with the model's rope type, {len(coded)} rows model them; "
          f"{len(other)} turn the first channels: {', '.join(other) or 'none'}")
    # Linear attention without RoPE: the loader's default full_attn_interval, the graph's is_recr(il) branch.
    hybrid = {}
    for n in sorted(roped):
        m = re.search(r"get_key_or_arr\(LLM_KV_ATTENTION_RECURRENT_LAYERS.*?full_attn_interval = (\d+);"
                      r".*?\(i \+ 1\) % full_attn_interval != 0", src.loader(n), re.S)
        if m:
            hybrid[n] = int(m.group(1))
            if not re.search(r"if \(!?hparams\.is_recr\(il\)\)", src.graph(n)):
                bad.append(f"{n}: its graph does not branch on hparams.is_recr(il)")
    modelled = {n: r["linear_attention_every"] for n, r in rows.items() if r.get("linear_attention_every")}
    modelled |= {n: 4 for n, r in rows.items() if r.get("indexer", {}).get("layers") == "compress_ratios"}
    for n in sorted(set(hybrid) | set(modelled)):
        if hybrid.get(n) != modelled.get(n):
            bad.append(f"{n}: llama.cpp's linear-attention layers: all but every "
                       f"{hybrid.get(n, 'none')}-th without the keys; the row: {modelled.get(n, 'none')}")
    print(f"{len(hybrid)} hybrids have linear-attention layers by full_attention_interval, {len(modelled)} rows model them: "
          f"{', '.join(sorted(hybrid))}")
    return report_differences(bad)


if __name__ == "__main__":
    sys.exit(main())
