#!/usr/bin/env python3
"""Which channels transformers' attention rotates, for the configs whose rotary class built alone holds the whole
head's frequencies (MiniMax-M2's rotary_dim, Mistral 4's MLA head): the family's attention module built from the
case's config (one layer, eager attention), its apply_rotary_pos_emb wrapped to record q before and after, run on
one random hidden state. Writes OUT_DIR/partial_heads.json: per case the shapes of q and cos, the channels that
changed and their θ as measured from q before and after (positions 0 … 7). Usage: record_partial_heads.py OUT_DIR
"""
import importlib
import json
import os
import sys
import traceback

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import hf_families  # noqa: E402


def run(name):
    from transformers import AutoConfig
    case = next(c for c in hf_families.CASES if c["name"] == name)
    d = json.loads(json.dumps(hf_families.case_config(case)))
    cfg = AutoConfig.for_model(d.pop("model_type"), **d)
    cfg = cfg.get_text_config()
    cfg._attn_implementation = "eager"
    module = importlib.import_module(type(cfg).__module__.replace(".configuration_", ".modeling_"))
    attn_cls = next(c for n, c in vars(module).items() if n.endswith("Attention") and "Vision" not in n
                    and isinstance(c, type) and issubclass(c, torch.nn.Module))
    rope_cls = next(c for n, c in vars(module).items() if n.endswith("RotaryEmbedding") and "Vision" not in n)
    seen = {}
    original = module.apply_rotary_pos_emb

    def wrapped(q, k, cos, sin, *a, **kw):
        out = original(q, k, cos, sin, *a, **kw)
        seen.update(q=q.detach().double().numpy(), q_out=out[0].detach().double().numpy(), cos=list(cos.shape))
        return out

    module.apply_rotary_pos_emb = wrapped
    torch.manual_seed(0)
    attn = attn_cls(cfg, layer_idx=0).double()
    rope = rope_cls(cfg)
    s = 8
    x = torch.randn(1, s, cfg.hidden_size, dtype=torch.float64)
    pos = torch.arange(s)[None]
    cos, sin = rope(x, pos)
    try:
        attn(hidden_states=x, position_embeddings=(cos, sin), attention_mask=None)
    finally:
        module.apply_rotary_pos_emb = original
    q, y = seen["q"][0], seen["q_out"][0]  # [heads, seq, d]
    changed = np.where(np.abs(q - y).max(axis=(0, 1)) > 1e-9)[0]
    return {"attention": attn_cls.__name__, "q": list(q.shape), "cos": seen["cos"], "changed_channels":
            [int(changed.min()), int(changed.max()), int(len(changed))] if len(changed) else [],
            "q_at_1": q[0, 1].tolist(), "out_at_1": y[0, 1].tolist()}


def main(out):
    res = {}
    for name in ("preset_minimax_m2_f64", "mistral4_class_mla_dims_f64", "minimax_m2_default_theta_f64"):
        try:
            res[name] = run(name)
        except Exception:  # noqa: BLE001
            res[name] = {"error": traceback.format_exc(limit=3)[-800:]}
        print(name, {k: v for k, v in res[name].items() if k not in ("q_at_1", "out_at_1")})
    with open(os.path.join(out, "partial_heads.json"), "w") as f:
        json.dump(res, f)


if __name__ == "__main__":
    main(sys.argv[1])
