#!/usr/bin/python3
"""NumPy ports of the RoPE of three more diffusers transformers, and Qwen-Image's dumps with text tokens, written from
the diffusers source at commit 58eb52c0803ea9af3abec60841c2a093bdf1f951 (huggingface/diffusers, read with
`git show`), never from rope's C++ code in src/. Paths below are under src/diffusers/ of that commit; line numbers are
that commit's. The shared steps (get_1d_rotary_pos_embed, apply_rotary_emb, Qwen-Image's QwenEmbedRope) are
tests/reference/diffusers_rope.py's.

    zimage     models/transformers/transformer_z_image.py: RopeEmbedder (313-356: per axis
               freqs = 1 / theta ** (arange(0, d, 2, float64) / d), a table of axes_lens rows
               outer(arange(e, float64), freqs).float(), torch.polar in complex64, gathered by the ids, the axes
               concatenated), ZSingleStreamAttnProcessor's apply_rotary_emb (112-118: x.float() as complex pairs of
               consecutive channels times freqs_cis, back to x's dtype), ZImageTransformer2DModel.__init__ (366-384:
               dim 3840, n_heads 30, rope_theta 256, axes_dims [32, 48, 48], axes_lens [1024, 512, 512],
               all_patch_size (2,), all_f_patch_size (1,); 476: dim // n_heads == sum(axes_dims)), SEQ_MULTI_OF 32
               (33), create_coordinate_grid (534-540), _pad_with_ids (551-586: the ids of the grid of the size given,
               then (0, 0, 0) for each padding token), patchify_and_embed (588-623: the caption's grid
               (L + (-L) % 32, 1, 1) from (1, 0, 0), so its padding tokens continue 1 + k; the image's (F, H, W)
               tokens from (L' + 1, 0, 0), L' the padded caption; its padding at (0, 0, 0)), _prepare_sequence
               (785-789: the ids past the padded length cut), _build_unified_sequence (855-859: basic mode
               [image, caption]); pipelines/z_image/pipeline_z_image.py (264-265: the latent 2 * (height // 16),
               530-535: the latent given as [C, 1, H, W], forward's patch_size 2 and f_patch_size 1).
               The published Tongyi-MAI/Z-Image-Turbo transformer/config.json as quoted by uqer1244/MLX_z-image
               converting/convert_comfy.py @ 93d989d7c27a49a20f0a6167dfb8e5442e31c7fe (axes_lens [1536, 512, 512]).
               The planted mistakes: base 10000 where rope_theta is 256; the caption numbered from 0 and the image
               from L' (caption_start 0: Lumina 2's ids, transformer_lumina2.py:280-281).
               Omni mode (z_image_omni_ids: several images, each after its prompt segment): patchify_and_embed_omni
               (625-762), _build_unified_sequence (838-851: [captions, images, siglip]), _prepare_sequence (784-788);
               pipelines/z_image/pipeline_z_image_omni.py (229-236: N + 2 prompt segments for N condition images,
               473-535, 595); held equal to the source's own method, executed from the file (--self-test).
    hunyuan15  models/transformers/transformer_hunyuan_video15.py: HunyuanVideo15RotaryPosEmbed (361-391: the grid
               (F // patch_size_t, H // patch_size, W // patch_size) from 0 in float32, get_1d_rotary_pos_embed per
               axis with its default float32 frequencies, use_real), HunyuanVideo15AttnProcessor2_0 (76-99: the latent
               rotated by embeddings.apply_rotary_emb, then the text's q and k appended after it, not rotated),
               HunyuanVideo15Transformer3DModel.__init__ (563-584: 16 heads x 128, patch_size 1, patch_size_t 1,
               rope_theta 256, rope_axes_dim (16, 56, 56)); scripts/convert_hunyuan_video1_5_to_diffusers.py
               TRANSFORMER_CONFIGS (47-77: only target_size, task_type, use_meanflow over those defaults).
               The planted mistake: the grid's h and w exchanged.
    kandinsky5 models/transformers/transformer_kandinsky.py: get_freqs (39-41: exp(-ln(max_period) * arange(n) / n)
               in float32), Kandinsky5RoPE3D (230-260: per axis a table outer(arange(max_pos), freqs) in float32,
               gathered, each axis's rows / scale_factor[a], cos and sin as 2 x 2 matrices [[cos, -sin], [sin, cos]]),
               Kandinsky5AttnProcessor.apply_rotary (309-316: consecutive pairs in float32, (rope * x).sum(-1), cast
               to bfloat16), Kandinsky5Transformer3DModel.__init__ (530-575: axes_dims (16, 24, 24), head_dim =
               sum(axes_dims), patch_size (1, 2, 2)) and forward (643-645: the visual table; fractal_flatten 44-54 with
               local_patching 67-91 for attention_type nabla: 8 x 8 blocks); pipelines/kandinsky5/
               pipeline_kandinsky.py (209-227: _get_scale_factor (1, 2, 2) when 480 <= height, width <= 854, else
               (1, 3.16, 3.16); 854-858: visual_rope_pos the latent's frames and height // 8 // 2, width // 8 // 2),
               pipeline_kandinsky_t2i.py (713: scale_factor [1, 1, 1] for an image). The published
               Kandinsky-5.0-T2V-Lite-sft-5s: ai-forever/Kandinsky-5 configs/config_5s_sft.yaml @
               8ad75bc185e5d43004e1468789a11fc6450cdb2b (model_dim 1792, axes_dims [16, 24, 24], patch (1, 2, 2)).
               The planted mistake: scale_factor not applied (the image pipeline's (1, 1, 1) on the video model).
    qwenimage  (the port of diffusers_rope.py, transformer_qwenimage.py QwenEmbedRope 232-358) with text tokens: the
               joint sequence [text, image] (588-600), written correct and with scale_rope off (rows and columns
               from 0, the text from max(H, W)), the mistake rope names axis-not-centred.

Usage: diffusers_rope_2026.py OUT (the dumps and OUT/manifest.json); --self-test (each port against a torch
transcription of the diffusers functions).
"""

import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import diffusers_rope as base  # noqa: E402

F32 = np.float32
COMMIT = base.COMMIT
MODELS = ("zimage", "hunyuan15", "kandinsky5")
CLASS_NAMES = {"zimage": "ZImageTransformer2DModel", "hunyuan15": "HunyuanVideo15Transformer3DModel",
               "kandinsky5": "Kandinsky5Transformer3DModel"}
SEQ_MULTI_OF = 32  # transformer_z_image.py:33

DEFAULTS = {
    "zimage": dict(dim=3840, n_heads=30, rope_theta=256.0, axes_dims=(32, 48, 48), axes_lens=(1024, 512, 512),
                   all_patch_size=(2,), all_f_patch_size=(1,)),
    "hunyuan15": dict(attention_head_dim=128, num_attention_heads=16, patch_size=1, patch_size_t=1, rope_theta=256.0,
                      rope_axes_dim=(16, 56, 56)),
    "kandinsky5": dict(axes_dims=(16, 24, 24), model_dim=2048, patch_size=(1, 2, 2), attention_type="regular",
                       max_period=10000.0, max_pos=(128, 128, 128)),
}

# The published configs (the presets data/models/ holds).
PUBLISHED = {
    "z-image-turbo": ("zimage", dict(axes_lens=(1536, 512, 512))),
    "hunyuanvideo-1.5-720p-t2v": ("hunyuan15", dict()),
    "kandinsky-5.0-t2v-lite-sft-5s": ("kandinsky5", dict(model_dim=1792)),
}


def config(model, **overrides):
    cfg = dict(DEFAULTS[model])
    cfg.update(overrides)
    cfg["model"] = model
    return cfg


def diffusers_config(cfg):
    m = cfg["model"]
    keys = {"zimage": ("dim", "n_heads", "rope_theta", "axes_dims", "axes_lens", "all_patch_size", "all_f_patch_size"),
            "hunyuan15": ("attention_head_dim", "num_attention_heads", "patch_size", "patch_size_t", "rope_theta",
                          "rope_axes_dim"),
            "kandinsky5": ("axes_dims", "model_dim", "patch_size", "attention_type")}[m]
    out = {"_class_name": CLASS_NAMES[m], "_diffusers_version": "0.36.0.dev0"}
    for k in keys:
        v = cfg[k]
        out[k] = list(v) if isinstance(v, tuple) else v
    return out


def head_dim(cfg):
    m = cfg["model"]
    if m == "zimage":
        d = cfg["dim"] // cfg["n_heads"]
        assert d == sum(cfg["axes_dims"])  # 476
        return d
    if m == "hunyuan15":
        return cfg["attention_head_dim"]
    return sum(cfg["axes_dims"])  # kandinsky: 559


def axis_widths(cfg):
    return tuple(cfg["rope_axes_dim"] if cfg["model"] == "hunyuan15" else cfg["axes_dims"])


def base_of(cfg):
    return cfg["max_period"] if cfg["model"] == "kandinsky5" else cfg["rope_theta"]


def token_grid(cfg, latent_shape):
    f, h, w = (int(v) for v in latent_shape)
    m = cfg["model"]
    if m == "zimage":
        p, pf = cfg["all_patch_size"][0], cfg["all_f_patch_size"][0]
        return (f // pf, h // p, w // p)
    if m == "hunyuan15":
        return (f // cfg["patch_size_t"], h // cfg["patch_size"], w // cfg["patch_size"])
    pt, ph, pw = cfg["patch_size"]
    return (f // pt, h // ph, w // pw)


def scale_factor(latent_shape):
    """The Kandinsky 5 pipeline's scale_factor: the video pipeline's _get_scale_factor on the frame 8 H x 8 W pixels
    (pipeline_kandinsky.py:209-227), the image pipeline's (1, 1, 1) for one frame (pipeline_kandinsky_t2i.py:713)."""
    f, h, w = latent_shape
    if f <= 1:
        return (1.0, 1.0, 1.0)
    if 480 <= 8 * h <= 854 and 480 <= 8 * w <= 854:
        return (1, 2, 2)
    return (1, 3.16, 3.16)


def _padded(n):
    return n + (-n) % SEQ_MULTI_OF


def z_image_ids(cfg, latent_shape, text, caption_start=1):
    """patchify_and_embed's ids in the order _build_unified_sequence joins them (basic mode: image, then caption),
    int [n, 3], and each token's kind ("latent", "padding", "text")."""
    f, h, w = token_grid(cfg, latent_shape)
    lc = _padded(text)  # 599: the caption's grid (L + (-L) % 32, 1, 1)
    cap = np.zeros((lc, 3), dtype=np.int64)
    cap[:, 0] = caption_start + np.arange(lc)  # from (1, 0, 0); the pad ids of _pad_with_ids cut at 789
    img = base._grid(f, h, w).astype(np.int64)
    img[:, 0] += lc + caption_start  # 607-609: start (cap_len + 1, 0, 0)
    pad = np.zeros(((-len(img)) % SEQ_MULTI_OF, 3), dtype=np.int64)  # 566-572: (0, 0, 0)
    kinds = ["latent"] * len(img) + ["padding"] * len(pad) + ["text"] * text + ["padding"] * (lc - text)
    return np.concatenate([img, pad, cap]), kinds


def z_image_omni_ids(cfg, images, captions, siglip=None):
    """Omni mode's ids (transformer_z_image.py: patchify_and_embed_omni 625-762, joined in _build_unified_sequence's
    omni order [captions, images, siglip] 838-851, each part's ids cut at its features' length by _prepare_sequence
    784-788), int [n, 3], and each token's kind. `images`: each latent's (F, H, W) in the order of x (the pipeline's
    N condition images, then the target: pipeline_z_image_omni.py 473-535); `captions`: each prompt segment's token
    count (the pipeline's N + 2 segments, 229-236; segment j is followed by image j); `siglip`: per image its SigLIP
    grid (sig_H, sig_W) or None (the pipeline's conditions, then None for the target: 595), or None for no SigLIP.

    As the source computes them: caption j's grid (L_j + (-L_j) % 32, 1, 1) from (c_j, 0, 0), c_0 = 1, c_{j+1} = c_j +
    L_j + 2 (the 2 for image j's VAE and SigLIP tokens), followed by (-L_j) % 32 padding ids (0, 0, 0) that
    _pad_with_ids appends beyond the grid (566-572); the captions' ids are concatenated and cut once at the captions'
    total padded length, so from caption 1 on a caption's tokens read the previous captions' surplus padding ids
    first (caption 1's first tokens at (0, 0, 0) where caption 0's length is not a multiple of 32). Image j: its
    token grid from (c_j + L_j, 0, 0), padding (0, 0, 0). SigLIP j: the grid (1, sig_H, sig_W) from (c_j + L_j + 1, 0,
    0), rows and columns rescaled in float32 to the latent's H − 1 and W − 1 (x_size: the unpatched latent, 707-711)
    and truncated to int32; a None entry is 32 padding tokens at (0, 0, 0)."""
    pf, p = cfg["all_f_patch_size"][0], cfg["all_patch_size"][0]
    cap_ids, kinds_cap, cap_end, cu = [], [], [], 1
    for n in captions:
        lc = _padded(n)
        grid = np.zeros((lc, 3), dtype=np.int64)
        grid[:, 0] = cu + np.arange(lc)
        cap_ids += [grid, np.zeros((lc - n, 3), dtype=np.int64)]
        kinds_cap += ["text"] * n + ["padding"] * (lc - n)
        cu += n
        cap_end.append(cu)
        cu += 2
    cap = np.concatenate(cap_ids)[: len(kinds_cap)]
    x_ids, kinds_x = [], []
    for j, (F, H, W) in enumerate(images):
        g = base._grid(F // pf, H // p, W // p).astype(np.int64)
        g[:, 0] += cap_end[j]
        pad = (-len(g)) % SEQ_MULTI_OF
        x_ids += [g, np.zeros((pad, 3), dtype=np.int64)]
        kinds_x += ["latent"] * len(g) + ["padding"] * pad
    parts, kinds = [cap, np.concatenate(x_ids)], kinds_cap + kinds_x
    if siglip is not None:
        for j, sg in enumerate(siglip):
            if sg is None:
                parts.append(np.zeros((SEQ_MULTI_OF, 3), dtype=np.int64))
                kinds += ["padding"] * SEQ_MULTI_OF
                continue
            sh, sw = sg
            g = base._grid(1, sh, sw).astype(np.int64)
            pad = (-len(g)) % SEQ_MULTI_OF
            g = np.concatenate([g + np.array([cap_end[j] + 1, 0, 0]), np.zeros((pad, 3), dtype=np.int64)])
            if images[j] is not None:
                gf = g.astype(F32)
                _, H, W = images[j]
                g[:, 1] = (gf[:, 1] / F32(max(sh - 1, 1)) * F32(H - 1)).astype(np.int32)
                g[:, 2] = (gf[:, 2] / F32(max(sw - 1, 1)) * F32(W - 1)).astype(np.int32)
            parts.append(g)
            kinds += ["siglip"] * (sh * sw) + ["padding"] * pad
    return np.concatenate(parts), kinds


def z_image_omni_own_padding(cfg, images, captions, siglip=None):
    """The planted omni mistake: z_image_omni_ids with each caption's ids cut at its own padded length (the surplus
    padding ids _pad_with_ids appends dropped per caption), where the source cuts the joined ids once, so that every
    caption j > 0 reads c_j + k instead of the previous captions' surplus ids first."""
    ids, kinds = z_image_omni_ids(cfg, images, captions, siglip)
    ids = ids.copy()
    cu, at = 1, 0
    for n in captions:
        lc = _padded(n)
        ids[at:at + lc, 0] = cu + np.arange(lc)
        at, cu = at + lc, cu + n + 2
    return ids, kinds


def positions(cfg, latent_shape=(1, 1, 1), text=0, scale=None):
    """Every token's position as the pipeline and the transformer build them, [n, 3] float64, rows in the order of
    the sequence the attention turns. Kandinsky 5: (f, h, w) / scale_factor (the angle divided by it)."""
    m = cfg["model"]
    f, h, w = token_grid(cfg, latent_shape)
    if m == "zimage":
        return z_image_ids(cfg, latent_shape, text)[0].astype(np.float64)
    grid = base._grid(f, h, w)
    if m == "hunyuan15":
        return np.concatenate([grid, np.zeros((text, 3))])
    if text:
        raise ValueError("Kandinsky 5's visual self-attention has no text tokens")
    sf = scale_factor(latent_shape) if scale is None else scale
    order = kandinsky_order(cfg, f, h, w)
    return (grid / np.array(sf, dtype=np.float64))[order]


def kandinsky_order(cfg, f, h, w):
    """The token order of fractal_flatten: f-major for regular attention; nabla's local_patching (1, 8, 8): t, block
    row, block column, then the block's rows and columns."""
    idx = np.arange(f * h * w).reshape(f, h, w)
    if cfg["attention_type"] != "nabla":
        return idx.reshape(-1)
    b = idx.reshape(f, h // 8, 8, w // 8, 8).transpose(0, 1, 3, 2, 4)
    return b.reshape(-1)


def pair_table(cfg):
    """Per pair of the head: axis, theta (float64), the two channels it turns (consecutive: all three interleave)."""
    axis, theta = [], []
    b = base_of(cfg)
    for a, wa in enumerate(axis_widths(cfg)):
        for k in range(wa // 2):
            axis.append(a)
            theta.append(b ** (-2.0 * k / wa))
    p = np.arange(len(axis))
    return dict(axis=np.array(axis), theta=np.array(theta), first=2 * p, second=2 * p + 1)


def angles(cfg, pos):
    t = pair_table(cfg)
    return pos[:, t["axis"]] * t["theta"][None, :]


def apply(x, pos, cfg):
    """The float64 reference on x [batch, seq, heads, d]."""
    x = np.asarray(x, np.float64)
    t = pair_table(cfg)
    ang = angles(cfg, pos)[None, :, None, :]
    c, s = np.cos(ang), np.sin(ang)
    a, b = x[..., t["first"]], x[..., t["second"]]
    y = x.copy()
    y[..., t["first"]] = a * c - b * s
    y[..., t["second"]] = a * s + b * c
    return y


# ---------------------------------------------------------------------------------------------------------------
# The diffusers computation itself, in its dtypes.

def _complex_apply(x, ang, out_round):
    """x.float() as complex pairs times polar(1, ang) in complex64 (cos and sin of the float32 angles), back to x's
    dtype by out_round."""
    c, s = np.cos(ang.astype(F32)).astype(F32), np.sin(ang.astype(F32)).astype(F32)
    x = x.astype(F32)
    a, b = x[..., 0::2], x[..., 1::2]
    cc, ss = c[None, :, None, :], s[None, :, None, :]
    out = np.empty_like(x)
    out[..., 0::2] = a * cc - b * ss
    out[..., 1::2] = a * ss + b * cc
    return out_round(out)


def z_image_apply(x, cfg, latent_shape, text, bf16=False, theta=None, caption_start=1):
    """RopeEmbedder.precompute_freqs_cis and __call__, then apply_rotary_emb (the ids of z_image_ids)."""
    ids, _ = z_image_ids(cfg, latent_shape, text, caption_start)
    return z_image_apply_ids(x, cfg, ids, bf16, theta)


def z_image_apply_ids(x, cfg, ids, bf16=False, theta=None):
    """RopeEmbedder's tables gathered at the int ids [n, 3] (331-356), then apply_rotary_emb (112-118)."""
    th = cfg["rope_theta"] if theta is None else theta
    cols = []
    for i, (d, e) in enumerate(zip(cfg["axes_dims"], cfg["axes_lens"])):
        freqs = 1.0 / (th ** (np.arange(0, d, 2, dtype=np.float64) / d))  # 331
        table = np.outer(np.arange(e, dtype=np.float64), freqs).astype(F32)  # 332-333
        cols.append(table[ids[:, i]])
    ang = np.concatenate(cols, axis=1)
    return _complex_apply(x, ang, base.bf16_round if bf16 else (lambda v: v))


def hunyuan15_apply(x, cfg, latent_shape, text, swap_hw=False):
    f, h, w = token_grid(cfg, latent_shape)
    g = base._grid(f, h, w).astype(F32)
    if swap_hw:
        g = g[:, [0, 2, 1]]
    cs = [base._rope_1d(wa, g[:, i], cfg["rope_theta"], F32) for i, wa in enumerate(cfg["rope_axes_dim"])]
    c = np.concatenate([c for c, _ in cs], axis=1)
    s = np.concatenate([s for _, s in cs], axis=1)
    n = len(c)
    out = x.astype(F32).copy()
    out[:, :n] = base._apply_real(x[:, :n], c, s)  # the text's q after the latent's, not rotated (97)
    return out


def kandinsky5_apply(x, cfg, latent_shape, scale=None):
    """Kandinsky5RoPE3D.forward and the processor's apply_rotary; the output in bfloat16."""
    f, h, w = token_grid(cfg, latent_shape)
    sf = scale_factor(latent_shape) if scale is None else scale
    cols = []
    g = base._grid(f, h, w).astype(np.int64)
    for a, (d, e) in enumerate(zip(cfg["axes_dims"], cfg["max_pos"])):
        n = d // 2
        freqs = np.exp((F32(-math.log(cfg["max_period"])) * np.arange(n, dtype=F32)).astype(F32) / F32(n)).astype(F32)
        table = np.outer(np.arange(e, dtype=F32), freqs).astype(F32)
        cols.append((table[g[:, a]] / F32(sf[a])).astype(F32))
    ang = np.concatenate(cols, axis=1)[kandinsky_order(cfg, f, h, w)]
    c, s = np.cos(ang).astype(F32), np.sin(ang).astype(F32)
    x = x.astype(F32)
    a, b = x[..., 0::2], x[..., 1::2]
    cc, ss = c[None, :, None, :], s[None, :, None, :]
    out = np.empty_like(x)
    out[..., 0::2] = (cc * a + (-ss) * b).astype(F32)  # (rope * x_).sum(-1): row (cos, -sin)
    out[..., 1::2] = (ss * a + cc * b).astype(F32)
    return base.bf16_round(out)


# ---------------------------------------------------------------------------------------------------------------
# Dumps.

# Z-Image omni: the target 1 x 4 x 6, one condition 1 x 6 x 4 with a SigLIP grid 3 x 2, the prompt's three
# segments of 5, 7 and 3 tokens (caption 1's tokens read caption 0's 27 surplus padding ids, (0, 0, 0); caption 2
# starts at t = 13 where c_2 = 17).
OMNI_CASE = dict(latent_shape=(1, 4, 6), conditions=[(1, 6, 4)], siglip=[(3, 2)], captions=[5, 7, 3], text=15)

CASES = {
    "zimage": dict(latent_shape=(1, 10, 6), text=5),    # 5 x 3 image tokens + 17 padding, caption 5 + 27 padding
    "hunyuan15": dict(latent_shape=(3, 4, 6), text=2),
    "kandinsky5": dict(latent_shape=(3, 8, 12)),         # 3 x 4 x 6 tokens; frame 64 x 96 pixels: scale (1, 3.16, 3.16)
}
QWEN_TEXT_CASE = dict(latent_shape=(1, 10, 6), text=3)


def write_dumps(out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(93)
    manifest = []

    def save(name, cfg, case, y_of, dtype, expect, variant=None, found=None, note=None, pos=None, model=None,
             heads=2, ref_cfg=None):
        lat = case["latent_shape"]
        model = model or cfg["model"]
        d = head_dim(cfg) if model != "qwenimage" else cfg["attention_head_dim"]
        x = rng.standard_normal((1, len(pos), heads, d)).astype(F32)
        if dtype == "bf16":
            x = base.bf16_round(x)
        y = y_of(x)
        if dtype == "bf16":
            y = base.bf16_round(y)
        ref = apply(x, pos, cfg) if model != "qwenimage" else base.apply(x, pos, cfg)
        ddir = os.path.join(out, name)
        os.makedirs(ddir, exist_ok=True)
        np.save(os.path.join(ddir, "q.npy"), np.ascontiguousarray(x))
        np.save(os.path.join(ddir, "q_rope.npy"), np.ascontiguousarray(y))
        with open(os.path.join(ddir, "positions.csv"), "w") as fh:
            fh.write("t,h,w\n")
            for row in pos:
                fh.write(",".join(base._fmt(v) for v in row) + "\n")
        conf = diffusers_config(cfg) if model != "qwenimage" else base.diffusers_config(cfg)
        with open(os.path.join(ddir, "config.json"), "w") as fh:
            json.dump(conf, fh, indent=1)
        entry = dict(name=name, dir=name, model=model, class_name=conf["_class_name"], dtype=dtype, layout="bshd",
                     shape=list(x.shape), d=d, rope_width=d, latent_shape=list(lat), text=case.get("text", 0),
                     axes=["t", "h", "w"], expect=expect, variant=variant, found=found or {}, note=note,
                     max_err_vs_float64=float(np.abs(y.astype(np.float64) - ref).max()))
        manifest.append(entry)
        return entry

    z = config("zimage")
    zc = CASES["zimage"]
    zpos = positions(z, zc["latent_shape"], zc["text"])
    for dtype in ("f32", "bf16"):
        save(f"zimage_{dtype}_bshd", z, zc, lambda x, b=dtype == "bf16": z_image_apply(x, z, zc["latent_shape"],
                                                                                          zc["text"], b),
             dtype, "pass", pos=zpos)
    for dtype in ("f32", "bf16"):
        save(f"mistake_zimage_base10000_{dtype}", z, zc,
             lambda x, b=dtype == "bf16": z_image_apply(x, z, zc["latent_shape"], zc["text"], b, theta=10000.0),
             dtype, "fail", variant="base-other", found={"base": 10000.0, "expected": 256.0},
             note="RopeEmbedder built with theta 10000 where rope_theta is 256", pos=zpos)
    hy = config("hunyuan15")
    hc = CASES["hunyuan15"]
    hpos = positions(hy, hc["latent_shape"], hc["text"])
    for dtype in ("f32", "bf16"):
        save(f"hunyuan15_{dtype}_bshd", hy, hc, lambda x: hunyuan15_apply(x, hy, hc["latent_shape"], hc["text"]),
             dtype, "pass", pos=hpos)
    for dtype in ("f32", "bf16"):
        save(f"mistake_hunyuan15_hw_swapped_{dtype}", hy, hc,
             lambda x: hunyuan15_apply(x, hy, hc["latent_shape"], hc["text"], swap_hw=True), dtype, "fail",
             variant="axes-swapped", note="the grid read as (t, w, h): rows turned by the column index", pos=hpos)
    k = config("kandinsky5")
    kc = CASES["kandinsky5"]
    kpos = positions(k, kc["latent_shape"])
    save("kandinsky5_bf16_bshd", k, kc, lambda x: kandinsky5_apply(x, k, kc["latent_shape"]), "bf16", "pass",
         pos=kpos)
    kn = config("kandinsky5", attention_type="nabla")
    kcn = dict(latent_shape=(2, 16, 16))
    save("kandinsky5_nabla_bf16_bshd", kn, kcn, lambda x: kandinsky5_apply(x, kn, kcn["latent_shape"]), "bf16",
         "pass", pos=positions(kn, kcn["latent_shape"]))
    save("mistake_kandinsky5_scale_ignored_bf16", k, kc,
         lambda x: kandinsky5_apply(x, k, kc["latent_shape"], scale=(1.0, 1.0, 1.0)), "bf16", "fail",
         variant="axis-scale-ignored", found={"scale": 3.16},
         note="scale_factor (1, 3.16, 3.16) not applied: rows and columns turned 3.16 times too fast", pos=kpos)
    # Qwen-Image with text tokens, as its processor joins them ([text, image]): correct, and scale_rope off.
    q = base.config("qwenimage")
    lat, text = QWEN_TEXT_CASE["latent_shape"], QWEN_TEXT_CASE["text"]
    qpos = base.positions(q, lat, text=text)
    f, h, w = base.token_grid(q, lat)
    for dtype in ("f32", "bf16"):
        rnd = base.bf16_round if dtype == "bf16" else (lambda v: v)
        save(f"qwenimage_text_{dtype}_bshd", q, QWEN_TEXT_CASE,
             lambda x, rnd=rnd: rnd(base._qwen_apply(x, q, f, h, w, text)), dtype, "pass", pos=qpos,
             model="qwenimage")
        save(f"mistake_qwenimage_text_not_centred_{dtype}", q, QWEN_TEXT_CASE,
             lambda x, rnd=rnd: rnd(base._qwen_apply(x, q, f, h, w, text, centred=False)), dtype, "fail",
             variant="axis-not-centred", found={"h_start": -(h - h // 2), "w_start": -(w - w // 2)},
             note="rows and columns from 0 and the text from max(H, W), where scale_rope centres them", pos=qpos,
             model="qwenimage")
    # Lumina 2's numbering (transformer_lumina2.py:280-281, caption from 0, image from L'): caption_start 0; last, so
    # that the dumps before it keep their inputs.
    save("mistake_zimage_caption_from_zero_f32", z, zc,
         lambda x: z_image_apply(x, z, zc["latent_shape"], zc["text"], False, caption_start=0), "f32", "fail",
         variant="caption-from-zero", found={"offset": -1.0, "tokens": float(_padded(zc["text"])), "image": 1.0},
         note="the caption numbered from 0 and the image from L' (Lumina 2's ids), where Z-Image starts them at 1 and "
              "L' + 1", pos=zpos)
    # Omni mode, last so that the dumps before it keep their inputs: one condition image with its SigLIP grid, three
    # prompt segments (pipeline_z_image_omni.py:229-236), text, image, SigLIP and padding tokens all in the dump.
    oc = OMNI_CASE
    oimgs, osig = list(oc["conditions"]) + [oc["latent_shape"]], list(oc["siglip"]) + [None]
    oids = z_image_omni_ids(z, oimgs, oc["captions"], osig)[0]
    for dtype in ("f32", "bf16"):
        save(f"zimage_omni_{dtype}_bshd", z, oc, lambda x, b=dtype == "bf16": z_image_apply_ids(x, z, oids, b), dtype,
             "pass", pos=oids.astype(np.float64))
    own = z_image_omni_own_padding(z, oimgs, oc["captions"], osig)[0]
    save("mistake_zimage_omni_own_padding_f32", z, oc, lambda x: z_image_apply_ids(x, z, own), "f32", "fail",
         note="each caption's ids cut at its own padded length: captions 1 and 2 from c_j, where the source's one cut "
              "gives them the previous captions' surplus padding ids first", pos=oids.astype(np.float64))
    with open(os.path.join(out, "manifest.json"), "w") as fh:
        json.dump(dict(source=f"huggingface/diffusers@{COMMIT}", script="tests/reference/diffusers_rope_2026.py",
                       cases=manifest), fh, indent=1)
    return manifest


# ---------------------------------------------------------------------------------------------------------------
# Self-test: each port against a torch transcription of the diffusers functions (Debian's torch).

def self_test():
    import torch
    failures = []

    def check(what, a, b, tol):
        err = float(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64)).max())
        print(f"{what:44} max |diff| {err:.3g}")
        if not err <= tol:
            failures.append(what)

    rng = np.random.default_rng(1)
    # Z-Image: transformer_z_image.py 327-356 and 112-118, the ids of 534-623.
    z = config("zimage")
    lat, text = (1, 10, 6), 5

    def grid(size, start):
        axes = [torch.arange(x0, x0 + span, dtype=torch.int32) for x0, span in zip(start, size)]
        return torch.stack(torch.meshgrid(axes, indexing="ij"), dim=-1)

    def pad_ids(n, size, start):
        ori = grid(size, start).flatten(0, 2)
        p = (-n) % 32
        return torch.cat([ori, grid((1, 1, 1), (0, 0, 0)).flatten(0, 2).repeat(p, 1)]) if p else ori
    lc = text + (-text) % 32
    cap_ids = pad_ids(text, (lc, 1, 1), (1, 0, 0))[:lc]
    img_ids = pad_ids(15, (1, 5, 3), (lc + 1, 0, 0))
    ids = torch.cat([img_ids, cap_ids])
    check("zimage ids", ids.numpy(), z_image_ids(z, lat, text)[0], 0)
    tables = []
    for d, e in zip(z["axes_dims"], z["axes_lens"]):
        freqs = 1.0 / (z["rope_theta"] ** (torch.arange(0, d, 2, dtype=torch.float64) / d))
        fr = torch.outer(torch.arange(e, dtype=torch.float64), freqs).float()
        tables.append(torch.polar(torch.ones_like(fr), fr).to(torch.complex64))
    fc = torch.cat([tables[i][ids[:, i].long()] for i in range(3)], dim=-1)
    x = rng.standard_normal((1, len(ids), 2, 128)).astype(F32)
    xt = torch.view_as_complex(torch.from_numpy(x).float().reshape(1, len(ids), 2, -1, 2))
    want = torch.view_as_real(xt * fc.unsqueeze(0).unsqueeze(2)).flatten(3).numpy()
    check("zimage apply (float32)", want, z_image_apply(x, z, lat, text), 2e-6)
    # HunyuanVideo 1.5: embeddings.get_1d_rotary_pos_embed (float32) and apply_rotary_emb(sequence_dim=1).
    hy = config("hunyuan15")
    f, h, w = 3, 4, 6
    g = torch.stack(torch.meshgrid(*[torch.arange(0, n, dtype=torch.float32) for n in (f, h, w)], indexing="ij"))
    cos, sin = [], []
    for i in range(3):
        dim = hy["rope_axes_dim"][i]
        freqs = 1.0 / (hy["rope_theta"] ** (torch.arange(0, dim, 2, dtype=torch.float32)[: dim // 2] / dim))
        fr = torch.outer(g[i].reshape(-1), freqs)
        cos.append(fr.cos().repeat_interleave(2, dim=1).float())
        sin.append(fr.sin().repeat_interleave(2, dim=1).float())
    c, s = torch.cat(cos, 1)[None, :, None, :], torch.cat(sin, 1)[None, :, None, :]
    x = rng.standard_normal((1, f * h * w + 2, 2, 128)).astype(F32)
    xt = torch.from_numpy(x[:, : f * h * w])
    xr, xi = xt.reshape(*xt.shape[:-1], -1, 2).unbind(-1)
    rot = torch.stack([-xi, xr], dim=-1).flatten(3)
    want = np.concatenate([(xt.float() * c + rot.float() * s).numpy(), x[:, f * h * w:]], axis=1)
    check("hunyuan15 apply (float32)", want, hunyuan15_apply(x, hy, (f, h, w), 2), 2e-6)
    # Kandinsky 5: get_freqs, Kandinsky5RoPE3D.forward, apply_rotary (bf16 out), regular and nabla orders.
    for att, lat in (("regular", (3, 8, 12)), ("nabla", (2, 16, 16))):
        k = config("kandinsky5", attention_type=att)
        ft, ht, wt = token_grid(k, lat)
        sf = scale_factor(lat)
        args = []
        for i, (d, e) in enumerate(zip(k["axes_dims"], k["max_pos"])):
            fr = torch.exp(-math.log(10000.0) * torch.arange(start=0, end=d // 2, dtype=torch.float32) / (d // 2))
            args.append(torch.outer(torch.arange(e, dtype=fr.dtype), fr))
        a_t = args[0][torch.arange(ft)] / sf[0]
        a_h = args[1][torch.arange(ht)] / sf[1]
        a_w = args[2][torch.arange(wt)] / sf[2]
        full = torch.cat([a_t.view(1, ft, 1, 1, -1).repeat(1, 1, ht, wt, 1),
                          a_h.view(1, 1, ht, 1, -1).repeat(1, ft, 1, wt, 1),
                          a_w.view(1, 1, 1, wt, -1).repeat(1, ft, ht, 1, 1)], dim=-1)
        rope = torch.stack([full.cos(), -full.sin(), full.sin(), full.cos()], dim=-1)
        rope = rope.view(*rope.shape[:-1], 2, 2).unsqueeze(-4)  # [1, F, H, W, 1, d/2, 2, 2]
        if att == "nabla":
            r = rope.reshape(1, ft, 1, ht // 8, 8, wt // 8, 8, *rope.shape[4:])
            r = r.permute(0, 1, 3, 5, 2, 4, 6, *range(7, r.dim())).flatten(1, 3).flatten(2, 4)
            rope = r.flatten(1, 2)
        else:
            rope = rope.flatten(1, 3)
        n = ft * ht * wt
        x = base.bf16_round(rng.standard_normal((1, n, 2, 64)).astype(F32))
        x_ = torch.from_numpy(x).reshape(1, n, 2, -1, 1, 2).float()
        want = (rope * x_).sum(dim=-1).reshape(1, n, 2, 64).to(torch.bfloat16).float().numpy()
        check(f"kandinsky5 apply {att} (bf16)", want, kandinsky5_apply(x, k, lat), 0)
    # Z-Image omni mode: the source's own patchify_and_embed_omni (its methods executed from the file at COMMIT),
    # its caption ids cut as _prepare_sequence cuts them, against z_image_omni_ids.
    om = _omni_source()
    if om is None:
        print("zimage omni ids: the diffusers mirror is not here, skipped")
    else:
        imgs, caps, sigs = [(1, 4, 6), (1, 6, 4), (1, 4, 6)], [5, 7, 40, 3], [(3, 4), (2, 5), None]
        x = [[torch.zeros(16, *i) for i in imgs]]
        c = [[torch.zeros(n, 4) for n in caps]]
        sg = [[None if q is None else torch.zeros(q[0], q[1], 8) for q in sigs]]
        out = om.patchify_and_embed_omni(x, c, sg, 2, 1, [[0, 0, 1]])
        got = torch.cat([out[5][0][: len(out[1][0])], out[4][0][: len(out[0][0])], out[6][0][: len(out[2][0])]])
        check("zimage omni ids", got.numpy(), z_image_omni_ids(z, imgs, caps, sigs)[0], 0)
        # The pipeline without a condition image: one segment, the target, no SigLIP (all_siglip_feats [None]).
        out = om.patchify_and_embed_omni([[torch.zeros(16, 1, 4, 6)]], [[torch.zeros(5, 4)]], [None], 2, 1, [[1]])
        got = torch.cat([out[5][0][: len(out[1][0])], out[4][0][: len(out[0][0])]])
        check("zimage omni ids, no condition image", got.numpy(), z_image_omni_ids(z, [(1, 4, 6)], [5])[0], 0)
    for fl in failures:
        print("FAIL", fl)
    return 1 if failures else 0


def _omni_source():
    """ZImageTransformer2DModel's create_coordinate_grid, _patchify_image, _pad_with_ids and patchify_and_embed_omni
    from transformer_z_image.py at COMMIT (the diffusers mirror, DIFFUSERS_GIT), executed with torch on an object
    of their own; None without the mirror."""
    import ast
    import subprocess

    import torch
    try:
        text = subprocess.run(["git", "--git-dir", os.environ.get("DIFFUSERS_GIT",
                                                                  "/work/.mirror/huggingface+diffusers/repo"),
                               "show", f"{COMMIT}:src/diffusers/models/transformers/transformer_z_image.py"],
                              check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    cls = next(n for n in ast.parse(text).body if isinstance(n, ast.ClassDef) and n.name == "ZImageTransformer2DModel")
    keep = {"create_coordinate_grid", "_patchify_image", "_pad_with_ids", "patchify_and_embed_omni"}
    body = [f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name in keep]
    module = ast.Module(body=[ast.ClassDef(name="Omni", bases=[], keywords=[], body=body, decorator_list=[])],
                        type_ignores=[])
    ns = {"torch": torch, "SEQ_MULTI_OF": SEQ_MULTI_OF, "X_PAD_DIM": 64}
    exec(compile(ast.fix_missing_locations(module), "transformer_z_image.py", "exec"), ns)
    obj = ns["Omni"]()
    obj.config = type("Config", (), {"siglip_feat_dim": 8})()
    return obj


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__.splitlines()[-2], file=sys.stderr)
        return 2
    m = write_dumps(sys.argv[1])
    for c in m:
        print(f"{c['name']:44} {c['expect']:5} err vs float64 {c['max_err_vs_float64']:.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
