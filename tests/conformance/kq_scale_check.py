"""The softmax scale of the pipeline's models (check_pipeline.py): what libllama's graph scales the attention's scores by,
read off its nodes by the harness (OUTDIR/kq_scale.tsv: case, layer, kind, float32 value; llama_pipeline.cpp), against
`rope inspect CASE.gguf --json`'s attention_scale (its value and its cap).

The scores a layer's softmax sees are s · cap·tanh(m · q·k / cap) with a cap, else s · m · q·k, where s is the soft_max's
(or flash attention's) scale, and m the product of the ggml_scale nodes on q (Gemma's f_attention_scale) and, on the
cap's path without flash attention, of the scale before the tanh times the cap (Gemma 2's 1/cap, Grok's
attention.output_scale / cap: src/llama-graph.cpp:2678-2697); flash attention takes the cap as its parameter
(ggml_flash_attn_ext's logit_softcap: the scale divided by the cap before the tanh). rope's value is m · s and its cap the
cap (s must be 1 under a cap: rope has no scale after it).

Tolerance: relative 1e-6. Every factor is a float32 that llama.cpp computed in float32 (1.0f/sqrtf, mscale · mscale /
sqrtf, a key read as float32: each within half an ulp, 6e-8, and at most four of them multiplied); rope computes in
float64 from the same keys, which it reads as float32 too. A wrong rule is off by far more (1/√64 against 1/√128: 41 %).
"""
import collections
import json
import subprocess

TOLERANCE = 1e-6
# Layers whose scale is their own by llama.cpp's rule, where rope's one value is another layer's: dots3note's sliding
# layer 1 divides by √attention.key_length_mla_swa, 128 in llama_pipeline_cases.cpp (src/models/dots3note.cpp:184-188;
# rope's value is the full layers', and its text names the sliding layers' key).
OWN_LAYER_SCALE = {"dots3note": {"1": 128 ** -0.5}}


def llama_scales(path):
    """{case: {layer: (pre-cap factor m·s or m, cap or None, the soft_max's scale after the cap)}} from kq_scale.tsv; a
    layer's ops repeat once per llama_decode (PLM decodes one token at a time): their distinct values count, and a layer
    whose op takes two values is returned as a string saying so."""
    ops = collections.defaultdict(lambda: collections.defaultdict(list))
    with open(path) as f:
        for line in f:
            case, layer, kind, value = line.rstrip("\n").split("\t")[:4]
            ops[case][layer].append((kind, float(value)))
    out = {}
    for case, layers in ops.items():
        out[case] = {}
        for layer, items in layers.items():
            decodes = sum(1 for k, _ in items if k == "softmax")
            if layer == "-1" or decodes == 0:
                continue  # a node of no layer (none in these graphs), or a layer without attention
            # one decode's ops, in graph order: the first 1/decodes of the list, the same values repeated after it
            one = items[:len(items) // decodes]
            if sorted(one * decodes) != sorted(items):
                out[case][layer] = f"the scales differ between decodes: {sorted(set(items))}"
                continue
            s = next(v for k, v in one if k == "softmax")
            q = 1.0
            for k, v in one:
                q *= v if k == "q" else 1.0
            kq = [v for k, v in one if k == "kq"]
            fa_cap = [v for k, v in one if k == "fa_softcap"]
            if len(kq) == 2:  # scale before the tanh, then × cap; the soft_max's scale after
                out[case][layer] = (q * kq[0] * kq[1], kq[1], s)
            elif fa_cap:  # flash attention: the scale inside, the cap its parameter
                out[case][layer] = (q * s, fa_cap[0], 1.0)
            else:
                out[case][layer] = (q * s, None, 1.0)
    return out


def check_kq_scales(rope, out, cases):
    """One line per case of `cases` (with attention in libllama's graph): ok or FAIL; returns (the cases compared,
    failed)."""
    scales = llama_scales(f"{out}/kq_scale.tsv")
    compared, failed = set(), 0
    for case in sorted(cases):
        layers = scales.get(case)
        if not layers:
            continue
        compared.add(case)
        r = subprocess.run([rope, "inspect", f"{out}/{case}.gguf", "--json"], capture_output=True, text=True)
        a = json.loads(r.stdout).get("attention_scale", {}) if r.stdout.strip().startswith("{") else {}
        value, cap = a.get("value"), (a.get("softcap") or {}).get("value")
        problems = []
        for layer, got in sorted(layers.items(), key=lambda x: int(x[0])):
            own = OWN_LAYER_SCALE.get(case, {}).get(layer)
            if own is not None and not isinstance(got, str):
                if abs(got[0] / own - 1) > TOLERANCE or got[1] is not None:
                    problems.append(f"layer {layer}: libllama {got[0]:.9g}, its own head's {own:.9g}")
                continue
            if isinstance(got, str):
                problems.append(f"layer {layer}: {got}")
                continue
            m, llama_cap, after = got
            if value is None or abs(m / value - 1) > TOLERANCE:
                problems.append(f"layer {layer}: libllama {m:.9g}, rope {value}")
            if (llama_cap is None) != (cap is None) or (cap is not None and abs(llama_cap / cap - 1) > TOLERANCE):
                problems.append(f"layer {layer}: libllama caps at {llama_cap}, rope at {cap}")
            if after != 1.0:
                problems.append(f"layer {layer}: libllama scales by {after:.9g} after the cap, which rope does not model")
        some = next((v for v in layers.values() if not isinstance(v, str)), (0.0, None, 1.0))
        print(f"{'ok  ' if not problems else 'FAIL'} {case:14s} softmax scale: libllama {some[0]:.9g}"
              f"{f' capped at {some[1]:g}' if some[1] else ''} ({len(layers)} layers), rope inspect {value}"
              f"{f' capped at {cap:g}' if cap else ''}: {'; '.join(problems[:3]) or 'agree'}")
        failed += 1 if problems else 0
    return compared, failed
