#!/usr/bin/python3
"""The kq_scale rules of data/families.json's llama.cpp rows against llama.cpp's graphs (src/models/*.cpp of the
bundle scripts/install-deps.sh llama clones), so that an architecture whose attention is scaled otherwise than by
1/sqrt(n_embd_head_k) and has no row rule for it fails.

For every architecture of the table, the graph it runs (its class's files, its parents', and the graph a `using graph
= llama_model_X::graph` borrows, models.h) is read for the scale of its attention: the kq_scale argument of every
build_attn / build_attn_mha / ggml_flash_attn_ext / ggml_soft_max_ext call (a name resolved through its `const float
NAME = ...;` in the same file, a function parameter through the calls that pass it), the factor a graph puts on Qcur
before the scores (ggml_scale(ctx0, Qcur, X)), what the loader sets or reads into hparams.f_attention_scale, and
llama-graph.cpp's branch for Grok. Each expression is classified:
  default                 1/sqrt(n_embd_head) with n_embd_head the key head (asserted or read as n_embd_head_k)
  attention_scale_key     hparams.f_attention_scale unless 0, the loader reading attention.scale
  gemma_27b               Qcur x f_attention_scale, the loader's LLM_TYPE_27B branch, kq_scale 1
  one                     kq_scale 1 and nothing on q (f_attention_scale = 1, or T5)
  mla_mscale              mscale * mscale / sqrt(n_embd_head_k_mla)
  key_length_mla          1/sqrt(n_embd_head_k_mla)
  rotary_dim              1/sqrt(n_rot)
  value_head              1/sqrt(n_embd_head_v) (on kq or on q)
  inverse_head            1/n_embd_head (muP)
  output_scale_key        Grok: kq x attention.output_scale, capped, kq_scale 1
and the set of classes of a graph must be {the row's kq_scale rule, else "default"}; a rule in a row that the graph
does not use fails too, and so does an expression this test cannot read. The scores' cap (Gemma 2's attn_soft_cap,
Grok's branch) must be the row's kq_scale_softcap with the loader's default; Gemma 2/3's 27B layer count and Grok's
attention.output_scale default those of the loader. A graph without attention must be one of NO_ATTENTION.

Usage: llama_kq_scale.py --src LLAMA_CPP_SOURCE --table data/families.json
"""
import re
import sys

from llama_rope_types import read, report_differences, source_and_rows

RULES = {"default", "attention_scale_key", "gemma_27b", "one", "mla_mscale", "key_length_mla", "rotary_dim",
         "value_head", "inverse_head", "output_scale_key"}
# The one graph whose ggml_soft_max_ext is not the token attention: WavTokenizer's PosNet, a block of the audio
# decoder (src/models/wavtokenizer-dec.cpp), which attends over its convolution's channels; no tokens, no RoPE.
NOT_TOKEN_ATTENTION = {"wavtokenizer-dec"}
# The architectures whose graph has no attention: recurrent (RWKV, Mamba), or no graph at all (clip: vision encoders
# are mtmd's; gptj: named in llama-arch.cpp, no model class in src/llama-model.cpp). Any other without one fails: its
# attention is built in a way this test does not read.
NO_ATTENTION = {"arwkv7", "clip", "gptj", "mamba", "mamba2", "rwkv6", "rwkv6qwen2", "rwkv7"}


def call_args(text, open_paren):
    """The top-level arguments of the call whose '(' is at open_paren."""
    depth, cur, out = 0, "", []
    for c in text[open_paren:]:
        if c == "(":
            depth += 1
            if depth == 1:
                continue
        elif c == ")":
            depth -= 1
            if depth == 0:
                return out + [cur.strip()]
        if c == "," and depth == 1:
            out.append(cur.strip())
            cur = ""
        else:
            cur += c
    return out


def squash(expr):
    e = re.sub(r"/\*.*?\*/", "", expr)
    e = re.sub(r"\s+", "", e).replace("hparams.n_embd_head_k()", "n_embd_head_k").replace("std::sqrt(", "sqrtf(")
    e = re.sub(r"\(float\)(\w+)", r"\1", e)
    e = re.sub(r"float\(([\w.]+(?:\(\))?)\)", r"\1", e)
    return e.replace("1.0f*", "")


class Graph:
    def __init__(self, name, texts, loader, arch_case):
        self.name, self.loader, self.arch_case = name, loader, arch_case
        self.texts = [re.sub(r"//[^\n]*", "", t) for t in texts]

    def definition(self, text, var):
        """EXPR of `const float|int64_t var = EXPR;` in text (the last before use is not tracked: all of them)."""
        return [m.group(1) for m in re.finditer(rf"const\s+(?:float|int64_t|auto)\s+{var}\s*=\s*(.*?);", text, re.S)]

    def head_meaning(self, text):
        """What n_embd_head is in this file: 'k' (asserted equal to, or read as, the key head) or 'v'."""
        if re.search(r"n_embd_head\s*==\s*(?:hparams\.n_embd_head_k\(\)|n_embd_head_k\b)", text) or \
                re.search(r"n_embd_head\s*=\s*hparams\.n_embd_head_k\(", text):
            return "k"
        return "v" if re.search(r"n_embd_head\s*=\s*hparams\.n_embd_head_v\(\)", text) else "k"

    def classify(self, e, text):
        e = squash(e)
        for var in re.findall(r"\b(qk_head_dim|head_dim_q|n_embd_head_k|n_embd_head_k_mla)\b", e):
            for d in self.definition(text, var):
                d = squash(d)
                if d in ("hparams.n_embd_head_k_mla()", "n_embd_head_k_mla"):
                    e = re.sub(rf"\b{var}\b", "n_embd_head_k_mla", e)
                elif d in ("n_embd_head_k", "hparams.n_embd_head_k(il)"):
                    e = re.sub(rf"\b{var}\b", "n_embd_head_k", e)
        head = "n_embd_head_k" if self.head_meaning(text) == "k" else "n_embd_head_v"
        e = re.sub(r"\bn_embd_head\b", head, e)
        ternary = re.fullmatch(r"hparams\.f_attention_scale(==|!=)0\.0f\?(.*?):(.*)", e)
        if ternary:
            fallback = ternary.group(2) if ternary.group(1) == "==" else ternary.group(3)
            base = self.classify(fallback, text)
            if "LLM_KV_ATTENTION_SCALE" in self.loader:
                return "attention_scale_key"
            return base if "f_attention_scale" not in self.loader else f"unread: {e} (the loader sets f_attention_scale)"
        if e == "hparams.f_attention_scale":
            m = re.search(r"f_attention_scale\s*=\s*([^;]*);", self.loader)
            return "one" if m and squash(m.group(1)) == "1.0f" else f"unread: {e} = {m.group(1) if m else '0'}"
        table = {"1.0f/sqrtf(n_embd_head_k)": "default", "1.0f/sqrtf(n_embd_head_k_mla)": "key_length_mla",
                 "mscale*mscale/sqrtf(n_embd_head_k_mla)": "mla_mscale", "1.0f/sqrtf(n_rot)": "rotary_dim",
                 "1.0f/sqrtf(n_embd_head_v)": "value_head", "1.0f/n_embd_head_k": "inverse_head",
                 "1.0f/n_embd_head_v": "inverse_head"}
        return table.get(e, f"unread: {e}")

    def query_factor(self, text):
        """The classes of what the graph multiplies Qcur by before the scores (ggml_scale(ctx0, Qcur, X))."""
        out = set()
        for m in re.finditer(r"Qcur\s*=\s*ggml_scale\(", text):
            x = squash(call_args(text, m.end() - 1)[2])
            if x == "hparams.f_attention_scale":
                set_to = re.search(r"f_attention_scale\s*=\s*(.*?);", self.loader, re.S)
                value = squash(set_to.group(1)) if set_to else ""
                out.add("gemma_27b" if "LLM_TYPE_27B" in value else
                        "default" if value == "1.0f/sqrtf(n_embd_head_k)" else f"unread: q x {value}")
            else:
                out.add(self.classify(x, text))
        return out

    def scales(self):
        """The classes of every attention of the graph."""
        found = set()
        for text in self.texts:
            calls = [(m, -2) for m in re.finditer(r"\bbuild_attn(?:_mha)?\s*\(", text)]
            calls += [(m, 5) for m in re.finditer(r"\bggml_flash_attn_ext\s*\(", text)]
            calls += [(m, 3) for m in re.finditer(r"\bggml_soft_max_ext\s*\(", text)]
            for m, index in calls:
                args = call_args(text, m.end() - 1)
                if len(args) < 4:
                    continue  # a declaration's or helper's own name
                if args[4 if args[0] == "inp_attn" else 3:][:1] == ["Qr"]:
                    continue  # Granite Switch's adapter router: one synthetic head at layer R, not the model's attention
                arg = re.sub(r"/\*\w+=\*/", "", args[index]).strip()
                if re.fullmatch(r"\w+", arg) and arg not in ("il",):
                    defs = self.definition(text, arg)
                    if not defs and re.search(rf"float\s+{arg}\s*[,)]", text):
                        # a parameter: the calls that pass it end with (..., SCALE, il)
                        passed = re.findall(r",\s*([^,()]*sqrtf\([^;]*?\)\)|kq_scale\w*),\s*il\)", text)
                        defs = [d for p in passed for d in (self.definition(text, p) if "sqrtf" not in p else [p])]
                    if defs:
                        found |= {self.classify(d, text) for d in defs}
                        continue
                c = self.classify(arg, text)
                if c == "one" or squash(arg) == "1.0f":
                    q = self.query_factor(text)
                    c = q.pop() if len(q) == 1 else ("output_scale_key" if self.arch_case == "LLM_ARCH_GROK" else
                                                     "one" if not q else f"unread: q x {sorted(q)}")
                found.add(c)
        return found


def main():
    src, rows = source_and_rows(__doc__)
    header = read(f"{src.src}/src/models/models.h")
    borrowed = {}
    for m in re.finditer(r"struct llama_model_(\w+) : public llama_model_\w+ \{(.*?)\n\};", header, re.S):
        using = re.search(r"using graph\s*=\s*llama_model_(\w+)::graph", m.group(2))
        if using:
            borrowed[m.group(1)] = using.group(1)
    cases = {v: k for k, v in src.names.items()}
    hparams_h = read(f"{src.src}/src/llama-hparams.h")
    bad, counts, without = [], {}, []
    for name in sorted(rows):
        r = rows[name]
        rule = r.get("kq_scale", "default")
        if rule not in RULES - {"default"} and "kq_scale" in r:
            bad.append(f"{name}: unknown kq_scale rule {rule}")
        if "kq_scale" in r and not r.get("kq_scale_source"):
            bad.append(f"{name}: a kq_scale rule without kq_scale_source")
        cls, texts = src.cls.get(name), []
        while cls:
            texts += src.files(cls)
            cls = borrowed.get(cls)
        if name in NOT_TOKEN_ATTENTION:
            continue
        g = Graph(name, texts, src.loader(name), cases.get(name))
        found = g.scales()
        if not found:
            without.append(name)
            if "kq_scale" in r:
                bad.append(f"{name}: a kq_scale rule, but llama.cpp's graph has no attention")
            continue
        counts[rule] = counts.get(rule, 0) + 1
        if found != {rule}:
            bad.append(f"{name}: llama.cpp's graph scales its attention as {sorted(found)}, the row says {rule}")
        # Capped scores: attn_soft_cap (Gemma 2), or Grok's branch of llama-graph.cpp; the cap without the key is the
        # loader's f_attn_logit_softcapping, else llama_hparams' default.
        cap = None
        if "attn_soft_cap = true" in g.loader or g.arch_case == "LLM_ARCH_GROK":
            m = re.search(r"f_attn_logit_softcapping\s*=\s*([\d.]+)f;", g.loader) or \
                re.search(r"f_attn_logit_softcapping\s*=\s*([\d.]+)f;", hparams_h)
            cap = float(m.group(1))
        if cap != r.get("kq_scale_softcap"):
            bad.append(f"{name}: llama.cpp caps its scores at {cap} without the key, the row {r.get('kq_scale_softcap')}")
        if rule == "output_scale_key":
            m = re.search(r"f_attn_out_scale\s*=\s*([\d.]+)f;", g.loader)
            if not m or float(m.group(1)) != r.get("kq_scale_default") or "LLM_KV_ATTENTION_OUTPUT_SCALE" not in g.loader:
                bad.append(f"{name}: llama.cpp's attention.output_scale default {m.group(1) if m else None}, the row "
                           f"{r.get('kq_scale_default')}")
        if rule == "gemma_27b":
            m = re.search(r"case (\d+): type = LLM_TYPE_27B", g.loader)
            if not m or int(m.group(1)) != r.get("kq_scale_layers_27b"):
                bad.append(f"{name}: llama.cpp's 27B has {m.group(1) if m else None} layers, the row "
                           f"{r.get('kq_scale_layers_27b')}")
    print(", ".join(f"{n} {k}" for k, n in sorted(counts.items())) + " architectures with attention; without: "
          + ", ".join(without))
    bad += [f"{n}: no attention found in llama.cpp's graph" for n in sorted(set(without) - NO_ATTENTION)]
    bad += [f"{n}: listed without attention, but its graph has one" for n in sorted(NO_ATTENTION - set(without))]
    return report_differences(bad)


if __name__ == "__main__":
    sys.exit(main())
