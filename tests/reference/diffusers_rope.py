#!/usr/bin/python3
"""NumPy ports of the RoPE of diffusers' image and video transformers (issue 79), written from the diffusers source
at commit 58eb52c0803ea9af3abec60841c2a093bdf1f951 (huggingface/diffusers, read with `git show`), never from rope's
C++ code in src/. Paths below are under src/diffusers/ of that commit; line numbers are that commit's.

    wan        models/transformers/transformer_wan.py WanRotaryPosEmbed (354-416: widths h = w = 2*(d // 6), t the
               rest, get_1d_rotary_pos_embed per axis in float64, split and expanded over the (f, h, w) patch grid
               from 0) and WanAttnProcessor.__call__'s apply_rotary_emb (104-115: pairs (2i, 2i+1), cos[..., 0::2],
               sin[..., 1::2], computed in float32); WanTransformer3DModel.__init__ defaults (572-597: patch_size
               (1, 2, 2), attention_head_dim 128, rope_max_seq_len 1024, theta 10000 = WanRotaryPosEmbed's default).
               The #12538 mistake (fixed by PR #12594, commit ff263947ad): forward split the tables with
               [d - 2*(d // 3), d // 3, d // 3] while __init__ built them with [d - 4*(d // 6), 2*(d // 6), 2*(d // 6)].
    flux       models/transformers/transformer_flux.py FluxPosEmbed (500-526: one get_1d_rotary_pos_embed per axis,
               float64 frequencies, positions ids.float()), FluxTransformer2DModel.__init__ (617-631: axes_dims_rope
               (16, 56, 56), theta 10000 fixed), forward (749-750: ids = cat(txt_ids, img_ids)), FluxAttnProcessor
               (117-119: embeddings.apply_rotary_emb, sequence_dim=1); pipelines/flux/pipeline_flux.py
               _prepare_latent_image_ids (506-517: (0, h, w)), text_ids = zeros(L, 3) (385), prepare_latents
               (556-574: the VAE latent packed 2 x 2, ids over (H/2, W/2)).
    flux2      models/transformers/transformer_flux2.py Flux2PosEmbed (971-998), Flux2Transformer2DModel.__init__
               (1142-1164: axes_dims_rope (32, 32, 32, 32), rope_theta 2000), forward (1327-1332: text tables before
               the image's); pipelines/flux2/pipeline_flux2.py _prepare_text_ids (356-372: (0, 0, 0, l)),
               _prepare_latent_ids (375-404: (0, h, w, 0)), _prepare_image_ids (407-454: reference i at
               t = 10 + 10 i), prepare_latents (621-652: the latent patchified 2 x 2), __call__ (967-971: latent ids,
               then the references').
    qwenimage  models/transformers/transformer_qwenimage.py QwenEmbedRope (232-358: rope_params in float32, the
               negative-index table, scale_rope centring rows and columns, text from max(H // 2, W // 2) on the three
               axes), apply_rotary_emb_qwen (97-142, use_real=False through ROPE_PER_DEVICE 171-174: complex product
               in float32 of consecutive pairs), the processor (588-600: text then image),
               QwenImageTransformer2DModel.__init__ (860-880: axes_dims_rope (16, 56, 56), theta 10000, scale_rope
               True); pipelines/qwenimage/pipeline_qwenimage.py img_shapes (595: (1, H // 8 // 2, W // 8 // 2)) and
               _pack_latents (333-336: 2 x 2).
    hunyuan    models/transformers/transformer_hunyuan_video.py HunyuanVideoRotaryPosEmbed (478-508: the (f, h, w)
               grid from 0 in float32, get_1d_rotary_pos_embed with its default float32 frequencies), the processor
               (82-110: the video tokens rotated, the text tokens appended after them not rotated),
               HunyuanVideoTransformer3DModel.__init__ (904-946: patch_size 2, patch_size_t 1, rope_theta 256,
               rope_axes_dim (16, 56, 56)); scripts/convert_hunyuan_video_to_diffusers.py TRANSFORMER_CONFIGS
               (145-200: the same values for the published HYVideo-T/2 checkpoints).
    ltx        models/transformers/transformer_ltx.py LTXVideoRotaryPosEmbed (179-278: dim = inner_dim, the grid
               scaled by rope_interpolation_scale * patch / base (20, 2048, 2048), omega_k = theta ** linspace(0, 1,
               dim // 6) * pi / 2 in float32, angle omega_k * (2 g - 1), axes interleaved per frequency, cos 1 / sin 0
               padding at the start), apply_rotary_emb (596-601) applied before the heads are split (processor 89-95),
               LTXVideoTransformer3DModel.__init__ (431-469: 32 heads x 64, theta 10000 fixed);
               pipelines/ltx/pipeline_ltx.py (216-227: VAE ratios 32 and 8, transformer patch sizes; 750-754:
               rope_interpolation_scale = (8 / frame_rate, 32, 32); frame_rate 25 by default, 544);
               models/autoencoders/autoencoder_kl_ltx.py (the ratios patch_size * 2**3 = 32, patch_size_t * 2**3 = 8);
               scripts/convert_ltx_to_diffusers.py get_transformer_config (195-233: 0.9.7 has 32 x 128, the others
               32 x 64).
    cosmos     models/transformers/transformer_cosmos.py CosmosRotaryPosEmbed (457-518: d_h = d_w = d // 6 * 2,
               per-axis NTK bases 10000 * s_a ** (d_a / (d_a - 2)) from rope_scale, t positions / fps * base_fps (24)
               when fps is given, freqs cat([t, h, w] * 2): the half layout), the processor (182-185:
               apply_rotary_emb(use_real_unbind_dim=-2)), CosmosTransformer3DModel.__init__ (605-638) and forward
               (746: rope(hidden_states, fps=fps)); pipelines/cosmos/pipeline_cosmos2_video2world.py (498: fps 16 by
               default, passed at 713; #14768), pipeline_cosmos2_text2image.py (no fps); scripts/
               convert_cosmos_to_diffusers.py (336-395: Cosmos-2.0 (Predict2) rope_scale (1, 4, 4) text2image,
               (1, 3, 3) 2B video2world, (20/24, 2, 2) 14B video2world).
    cosmos3    models/transformers/transformer_cosmos3.py Cosmos3VLTextRotaryEmbedding (129-161: inv_freq = 1 /
               rope_theta ** (arange(0, d, 2) / d) in float32, freqs = inv_freq @ position_ids in float32 per axis,
               apply_interleaved_mrope: t everywhere, h at pairs 1, 4, ... below 3 * s_h, w at 2, 5, ... below
               3 * s_w; emb = cat((freqs, freqs)), cos and sin cast to the model's dtype), Cosmos3AttnProcessor
               (83-92, _rotate_half 118-121: x * cos + rotate_half(x) * sin in that dtype),
               Cosmos3OmniTransformer.__init__ (395-466: head_dim 128, rope_theta 5e6, rope_axes_dim else
               rope_scaling's mrope_section else [24, 20, 20], base_fps 24, enable_fps_modulation True,
               unified_3d_mrope_reset_spatial_ids True, unified_3d_mrope_temporal_modality_margin 15000,
               latent_patch_size 2) and forward (779-792: one table for the joint sequence, text first);
               pipelines/cosmos/pipeline_cosmos3_omni.py get_3d_mrope_ids_text_tokens (102-119: text k at (k, k, k),
               float32 with fps modulation), get_3d_mrope_ids_vae_tokens (122-170: t = (f / (fps / c)) * (base_fps /
               c) + offset in float32 when fps is given and the latent has more than one frame, else f + offset; h
               and w from 0), _prepare_text_segment (542-553: the latent's offset L + margin), _prepare_vision_segment
               (569-600: patch_h = ceil(H / latent_patch_size), fps only with enable_fps_modulation). The published
               nvidia/Cosmos3-Nano transformer/config.json as quoted verbatim by rui-ren/mobius
               src/mobius/models/cosmos3_omni_generator_test.py @ fbcb7b19fdb07b3d7cc96c2edc77526fb363639d
               (PUBLISHED_CONFIG: no rope_axes_dim; rope_scaling {mrope_interleaved, mrope_section [24, 20, 20],
               rope_type default}, model_type qwen3_vl_text, head_dim 128, rope_theta 5000000).
               The planted mistake: the sections read chunked (Qwen2-VL's apply_multimodal_rotary_pos_emb).
    shared     models/embeddings.py get_1d_rotary_pos_embed (1120-1184: theta ** (arange(0, dim, 2) / dim) in
               freqs_dtype, outer(pos, freqs), cos/sin repeat-interleaved, then .float()) and apply_rotary_emb
               (1187-1241: x.float() * cos + x_rotated.float() * sin, back to x's dtype).

API (what rope's C++ and Python must agree with):

    MODELS                                   the seven model keys above
    config(model, **overrides)               the defaults (class defaults / conversion scripts, SOURCES[model]),
                                             overridden by diffusers config keys (attention_head_dim, patch_size,
                                             axes_dims_rope, rope_theta, rope_axes_dim, rope_scale, ...)
    diffusers_config(cfg)                    the transformer/config.json a diffusers checkpoint has (_class_name, keys)
    token_grid(cfg, latent_shape)            (f, h, w) tokens from the VAE latent's (F, H, W)
    positions(cfg, latent_shape=(F, H, W), text=0, reference_images=0, fps=None)
                                             [n, axes] float64, rows in the order of the attention's sequence
    pair_table(cfg)                          per pair p (d/2 of them): axis (-1: padding, never turns), theta (the
                                             float64 frequency), first/second channel
    apply(x, pos, cfg, seq_dim=1)            float64 reference: x [batch, seq, heads, d] (seq_dim 1) or
                                             [batch, heads, seq, d] (seq_dim 2)
    source_apply(x, cfg, latent_shape, text=0, reference_images=0, fps=None, seq_dim=1, dtype="f32")
                                             the diffusers computation itself (its float32/float64 steps, the output
                                             rounded to bf16 for dtype "bf16")
    write_dumps(out)                         the dumps and OUT/manifest.json (python3 diffusers_rope.py OUT)
    self_test()                              each port against a torch transcription of the diffusers functions
                                             (python3 diffusers_rope.py --self-test)

`latent_shape` is the VAE latent's (F, H, W), before any patching: the tensor WanTransformer3DModel,
HunyuanVideoTransformer3DModel and CosmosTransformer3DModel receive (they patchify with the config's patch_size), the
one the Flux.1, Flux.2 and Qwen-Image pipelines pack 2 x 2 before the transformer (their config's patch_size is not
the packing), and LTX's latent (its pipeline packs with the config's patch_size and patch_size_t, 1 and 1).

LTX's positions are the numbers the angle multiplies: angle = omega_k * (2 g - 1), so positions() gives m = 2 g - 1
(in [-1, 1)) and pair_table() gives omega_k = (pi / 2) * theta ** (k / (n - 1)); ltx_grid() gives g itself.
Text tokens: Flux.1 (0, 0, 0) and Flux.2 (0, 0, 0, l) before the image; Qwen-Image (s + j) on the three axes,
s = max(h // 2, w // 2), before the image; HunyuanVideo's text is not rotated, which is position (0, 0, 0) (angle 0:
cos 1, sin 0 exactly), after the video. Wan, LTX and Cosmos have no text in their self-attention (text=N refused).
"""

import json
import math
import os
import sys

import numpy as np

F32 = np.float32
COMMIT = "58eb52c0803ea9af3abec60841c2a093bdf1f951"
MODELS = ("wan", "flux", "flux2", "qwenimage", "hunyuan", "ltx", "cosmos", "cosmos3")

CLASS_NAMES = {
    "wan": "WanTransformer3DModel",
    "flux": "FluxTransformer2DModel",
    "flux2": "Flux2Transformer2DModel",
    "qwenimage": "QwenImageTransformer2DModel",
    "hunyuan": "HunyuanVideoTransformer3DModel",
    "ltx": "LTXVideoTransformer3DModel",
    "cosmos": "CosmosTransformer3DModel",
    "cosmos3": "Cosmos3OmniTransformer",
}

# Each model's defaults, the value and where it is read (class defaults are the published configs' values where the
# conversion script passes them unchanged; otherwise the conversion script's value is the published one).
DEFAULTS = {
    "wan": dict(attention_head_dim=128, num_attention_heads=40, patch_size=(1, 2, 2), rope_max_seq_len=1024,
                theta=10000.0),
    "flux": dict(attention_head_dim=128, num_attention_heads=24, patch_size=1, axes_dims_rope=(16, 56, 56),
                 theta=10000.0, pack=2),
    "flux2": dict(attention_head_dim=128, num_attention_heads=48, patch_size=1, axes_dims_rope=(32, 32, 32, 32),
                  rope_theta=2000.0, pack=2, reference_t_scale=10),
    "qwenimage": dict(attention_head_dim=128, num_attention_heads=24, patch_size=2, axes_dims_rope=(16, 56, 56),
                      theta=10000.0, scale_rope=True, pack=2),
    "hunyuan": dict(attention_head_dim=128, num_attention_heads=24, patch_size=2, patch_size_t=1,
                    rope_theta=256.0, rope_axes_dim=(16, 56, 56)),
    "ltx": dict(attention_head_dim=64, num_attention_heads=32, patch_size=1, patch_size_t=1, theta=10000.0,
                base_num_frames=20, base_height=2048, base_width=2048, vae_spatial_compression_ratio=32,
                vae_temporal_compression_ratio=8, frame_rate=25),
    "cosmos": dict(attention_head_dim=128, num_attention_heads=16, patch_size=(1, 2, 2), max_size=(128, 240, 240),
                   rope_scale=(1.0, 3.0, 3.0), base_fps=24, fps=None),
    # attention_head_dim here is the config's head_dim (Cosmos3OmniTransformer's name for it).
    "cosmos3": dict(attention_head_dim=128, num_attention_heads=32, rope_theta=5000000.0, rope_axes_dim=(24, 20, 20),
                    latent_patch_size=2, base_fps=24, enable_fps_modulation=True, reset_spatial_ids=True,
                    temporal_margin=15000, temporal_compression=4),
}

SOURCES = {
    "wan": "transformer_wan.py WanTransformer3DModel.__init__ (572-597) and WanRotaryPosEmbed(theta=10000.0) (354-360);"
           " scripts/convert_wan_to_diffusers.py get_transformer_config (328-590: attention_head_dim 128, patch_size"
           " [1, 2, 2] for every Wan 2.1/2.2 checkpoint; num_attention_heads 12 for 1.3B, 24 for TI2V-5B, 40 for 14B)",
    "flux": "transformer_flux.py FluxTransformer2DModel.__init__ (617-631); scripts/convert_flux_to_diffusers.py (288:"
            " the class defaults); pipeline_flux.py _pack_latents (520-525: 2 x 2)",
    "flux2": "transformer_flux2.py Flux2Transformer2DModel.__init__ (1142-1164); scripts/convert_flux2_to_diffusers.py"
             " get_flux2_transformer_config (387-450: flux2-dev 48 heads, klein-4b 24, klein-9b 32; axes (32, 32, 32,"
             " 32), rope_theta 2000 for all); pipeline_flux2.py _patchify_latents (456-461: 2 x 2), _prepare_image_ids"
             " (scale=10)",
    "qwenimage": "transformer_qwenimage.py QwenImageTransformer2DModel.__init__ (860-880: QwenEmbedRope(theta=10000,"
                 " scale_rope=True)); no conversion script: class defaults; pipeline_qwenimage.py _pack_latents (333)",
    "hunyuan": "transformer_hunyuan_video.py HunyuanVideoTransformer3DModel.__init__ (904-946);"
               " scripts/convert_hunyuan_video_to_diffusers.py TRANSFORMER_CONFIGS (145-200)",
    "ltx": "transformer_ltx.py LTXVideoTransformer3DModel.__init__ (431-469); scripts/convert_ltx_to_diffusers.py"
           " get_transformer_config (195-233: 32 x 64 before 0.9.7, 32 x 128 for 0.9.7); pipeline_ltx.py 216-227,"
           " 544 (frame_rate 25), 750-754; autoencoder_kl_ltx.py AutoencoderKLLTXVideo (ratios 4 * 2**3, 1 * 2**3)",
    "cosmos": "transformer_cosmos.py CosmosTransformer3DModel.__init__ (605-638: class defaults rope_scale (2, 1, 1),"
              " 32 heads); scripts/convert_cosmos_to_diffusers.py Cosmos-2.0-Diffusion-2B-Video2World (366-372: 16"
              " heads x 128, rope_scale (1, 3, 3)), the preset here; CosmosRotaryPosEmbed base_fps 24 (463)",
    "cosmos3": "transformer_cosmos3.py Cosmos3OmniTransformer.__init__ (395-466); nvidia/Cosmos3-Nano's"
               " transformer/config.json as rui-ren/mobius src/mobius/models/cosmos3_omni_generator_test.py @ fbcb7b19fd"
               " quotes it; pipeline_cosmos3_omni.py vae_scale_factor_temporal 4 (the Wan 2.2 VAE's)",
}

# The published configs beside the defaults (scripts/convert_*_to_diffusers.py at the commit).
PUBLISHED = {
    "wan2.1-t2v-1.3b": ("wan", dict(num_attention_heads=12)),
    "wan2.1-t2v-14b": ("wan", dict(num_attention_heads=40)),
    "wan2.2-ti2v-5b": ("wan", dict(num_attention_heads=24)),
    "flux.1-dev": ("flux", dict()),
    "flux.2-dev": ("flux2", dict(num_attention_heads=48)),
    "qwen-image": ("qwenimage", dict()),
    "hunyuanvideo": ("hunyuan", dict()),
    "ltx-video-0.9.5": ("ltx", dict(attention_head_dim=64)),
    "ltx-video-0.9.7": ("ltx", dict(attention_head_dim=128)),
    "cosmos-predict2-2b-text2image": ("cosmos", dict(rope_scale=(1.0, 4.0, 4.0))),
    "cosmos-predict2-2b-video2world": ("cosmos", dict(rope_scale=(1.0, 3.0, 3.0))),
    "cosmos-predict2-14b-video2world": ("cosmos", dict(num_attention_heads=40, rope_scale=(20 / 24, 2.0, 2.0))),
    "cosmos3-nano": ("cosmos3", dict()),
}


def config(model, **overrides):
    """The model's RoPE configuration: DEFAULTS[model] updated by diffusers config keys."""
    if model not in DEFAULTS:
        raise ValueError(f"unknown model {model!r}; one of {MODELS}")
    cfg = dict(DEFAULTS[model])
    cfg.update(overrides)
    cfg["model"] = model
    return cfg


def diffusers_config(cfg):
    """The transformer/config.json keys of the model that RoPE reads, as diffusers writes them."""
    m = cfg["model"]
    keys = {"wan": ("attention_head_dim", "num_attention_heads", "patch_size", "rope_max_seq_len"),
            "flux": ("attention_head_dim", "num_attention_heads", "patch_size", "axes_dims_rope"),
            "flux2": ("attention_head_dim", "num_attention_heads", "patch_size", "axes_dims_rope", "rope_theta"),
            "qwenimage": ("attention_head_dim", "num_attention_heads", "patch_size", "axes_dims_rope"),
            "hunyuan": ("attention_head_dim", "num_attention_heads", "patch_size", "patch_size_t", "rope_theta",
                        "rope_axes_dim"),
            "ltx": ("attention_head_dim", "num_attention_heads", "patch_size", "patch_size_t"),
            "cosmos": ("attention_head_dim", "num_attention_heads", "patch_size", "max_size", "rope_scale"),
            "cosmos3": ()}[m]
    out = {"_class_name": CLASS_NAMES[m], "_diffusers_version": "0.37.0.dev0"}
    if m == "cosmos3":  # as nvidia/Cosmos3-Nano ships it: the sections in rope_scaling, no rope_axes_dim
        out.update(head_dim=cfg["attention_head_dim"], num_attention_heads=cfg["num_attention_heads"],
                   model_type="qwen3_vl_text", rope_theta=cfg["rope_theta"],
                   rope_scaling={"mrope_interleaved": True, "mrope_section": list(cfg["rope_axes_dim"]),
                                 "rope_type": "default"},
                   latent_patch_size=cfg["latent_patch_size"], base_fps=cfg["base_fps"],
                   enable_fps_modulation=cfg["enable_fps_modulation"],
                   unified_3d_mrope_reset_spatial_ids=cfg["reset_spatial_ids"],
                   unified_3d_mrope_temporal_modality_margin=cfg["temporal_margin"])
        return out
    for k in keys:
        v = cfg[k]
        out[k] = list(v) if isinstance(v, tuple) else v
    return out


def axis_names(cfg):
    return ("t", "h", "w", "l") if cfg["model"] == "flux2" else ("t", "h", "w")


def head_dim(cfg):
    """The width the RoPE spans: the head for all but LTX, whose rope spans inner_dim = heads * head_dim."""
    if cfg["model"] == "ltx":
        return cfg["num_attention_heads"] * cfg["attention_head_dim"]
    return cfg["attention_head_dim"]


def axis_widths(cfg):
    """Channels per axis (t, h, w[, l]) as the source computes them; LTX: (pad, per-axis channels)."""
    m, d = cfg["model"], head_dim(cfg)
    if m == "wan":  # transformer_wan.py 368-369
        hw = 2 * (d // 6)
        return (d - 2 * hw, hw, hw)
    if m in ("flux", "flux2", "qwenimage"):
        return tuple(cfg["axes_dims_rope"])
    if m == "hunyuan":
        return tuple(cfg["rope_axes_dim"])
    if m == "cosmos":  # transformer_cosmos.py 472-474
        hw = d // 6 * 2
        return (d - 2 * hw, hw, hw)
    if m == "ltx":  # transformer_ltx.py 261, 272: dim // 6 frequencies per axis, the dim % 6 channels padded
        n = d // 6
        return (2 * n, 2 * n, 2 * n)
    if m == "cosmos3":  # the channels of the pairs each axis's sections interleave
        return tuple(2 * s for s in cfg["rope_axes_dim"])
    raise ValueError(m)


def _patch(cfg):
    """(pt, ph, pw): how many latent cells make one token along each axis."""
    m = cfg["model"]
    if m in ("wan", "cosmos"):
        return tuple(cfg["patch_size"])
    if m in ("hunyuan", "ltx"):
        return (cfg["patch_size_t"], cfg["patch_size"], cfg["patch_size"])
    if m == "cosmos3":
        return (1, cfg["latent_patch_size"], cfg["latent_patch_size"])
    return (1, cfg["pack"], cfg["pack"])  # flux, flux2, qwenimage: the pipeline packs 2 x 2


def token_grid(cfg, latent_shape):
    f, h, w = (int(v) for v in latent_shape)
    pt, ph, pw = _patch(cfg)
    if cfg["model"] in ("flux", "flux2") and f != 1:
        raise ValueError(f"{cfg['model']} is an image model: F must be 1, not {f}")
    return (f // pt, h // ph, w // pw)


def _ltx_nums(cfg, fps):
    """The rope_interpolation_scale * patch / base factors of LTXVideoRotaryPosEmbed._prepare_video_coords (218-220),
    float64: g_t = f * (vae_t / frame_rate) * patch_size_t / base_num_frames, g_h = h * vae_s * patch / base_height."""
    rate = cfg["frame_rate"] if fps is None else fps
    return ((cfg["vae_temporal_compression_ratio"] / rate) * cfg["patch_size_t"] / cfg["base_num_frames"],
            cfg["vae_spatial_compression_ratio"] * cfg["patch_size"] / cfg["base_height"],
            cfg["vae_spatial_compression_ratio"] * cfg["patch_size"] / cfg["base_width"])


def _grid(f, h, w):
    """The (f, h, w) index of every token, f-major (meshgrid indexing="ij" then flatten), [f*h*w, 3] float64."""
    g = np.stack(np.meshgrid(np.arange(f), np.arange(h), np.arange(w), indexing="ij"), axis=-1)
    return g.reshape(-1, 3).astype(np.float64)


def ltx_grid(cfg, latent_shape, fps=None):
    """LTX's fractional grid g (before 2 g - 1), [n, 3] float64."""
    f, h, w = token_grid(cfg, latent_shape)
    return _grid(f, h, w) * np.array(_ltx_nums(cfg, fps))


def positions(cfg, latent_shape=(1, 1, 1), text=0, reference_images=0, fps=None):
    """Every token's position as the model's pipeline and transformer build them, [n, axes] float64, rows in the
    order of the joint sequence the attention rotates."""
    m = cfg["model"]
    f, h, w = token_grid(cfg, latent_shape)
    if text and m in ("wan", "ltx", "cosmos"):
        raise ValueError(f"{m} has no text in its self-attention (the text is cross-attention, not rotated)")
    if reference_images and m != "flux2":
        raise ValueError("reference images are Flux.2's")
    if fps is not None and m not in ("ltx", "cosmos", "cosmos3"):
        raise ValueError("fps is LTX's and Cosmos's")
    grid = _grid(f, h, w)
    if m == "wan":
        if max(f, h, w) > cfg["rope_max_seq_len"]:
            raise ValueError("the grid exceeds rope_max_seq_len")
        return grid
    if m == "flux":
        return np.concatenate([np.zeros((text, 3)), grid])
    if m == "flux2":
        txt = np.zeros((text, 4))
        txt[:, 3] = np.arange(text)
        img = np.concatenate([grid, np.zeros((len(grid), 1))], axis=1)
        refs = []
        for i in range(reference_images):  # pipeline_flux2.py 442: t = scale + scale * i
            r = img.copy()
            r[:, 0] = cfg["reference_t_scale"] + cfg["reference_t_scale"] * i
            refs.append(r)
        return np.concatenate([txt, img] + refs)
    if m == "qwenimage":
        img = grid.copy()
        if cfg["scale_rope"]:  # 349-352: rows -(H - H // 2) ... H // 2 - 1
            img[:, 1] -= h - h // 2
            img[:, 2] -= w - w // 2
            start = max(h // 2, w // 2)
        else:
            start = max(h, w)
        txt = np.repeat((start + np.arange(text, dtype=np.float64))[:, None], 3, axis=1)
        return np.concatenate([txt, img])
    if m == "hunyuan":
        return np.concatenate([grid, np.zeros((text, 3))])
    if m == "ltx":
        return 2.0 * (grid * np.array(_ltx_nums(cfg, fps))) - 1.0
    if m == "cosmos":
        out = grid.copy()
        if fps is not None:  # 512: seq / fps * base_fps
            out[:, 0] = out[:, 0] / fps * cfg["base_fps"]
        return out
    if m == "cosmos3":
        txt = np.repeat(np.arange(text, dtype=F32)[:, None], 3, axis=1).astype(np.float64)  # 112-117
        offset = text + cfg["temporal_margin"]  # 552: next offset + margin
        img = grid.copy()
        if fps is not None and cfg["enable_fps_modulation"] and f > 1:  # 142-146, float32 tensors
            c = cfg["temporal_compression"]
            tps, base_tps = F32(fps / c), F32(cfg["base_fps"] / c)
            t = (np.arange(f, dtype=F32) / tps).astype(F32) * base_tps + F32(offset)
            img[:, 0] = t.astype(F32)[grid[:, 0].astype(np.int64)]
        else:
            img[:, 0] += offset
        if not cfg["reset_spatial_ids"]:  # 158-161
            img[:, 1:] += offset
        return np.concatenate([txt, img])
    raise ValueError(m)


def pair_table(cfg):
    """Per pair p of the RoPE's width: axis (index into positions' columns; -1 for a padding pair, which never
    turns), theta (float64), and the two channels it turns (first, second)."""
    m, d = cfg["model"], head_dim(cfg)
    half = d // 2
    axis, theta = [], []
    if m == "cosmos3":
        sec = cfg["rope_axes_dim"]
        for j in range(half):  # apply_interleaved_mrope (136-144)
            axis.append(1 if j % 3 == 1 and j < 3 * sec[1] else 2 if j % 3 == 2 and j < 3 * sec[2] else 0)
            theta.append(cfg["rope_theta"] ** (-2.0 * j / d))
    elif m == "ltx":
        n, pad = d // 6, (d % 6) // 2
        k = np.arange(n, dtype=np.float64)
        omega = (math.pi / 2.0) * cfg["theta"] ** (k / (n - 1))  # theta ** linspace(log_theta 1, log_theta theta, n)
        axis += [-1] * pad
        theta += [0.0] * pad
        for j in range(n):
            for a in range(3):
                axis.append(a)
                theta.append(omega[j])
    else:
        if m == "cosmos":
            s = cfg["rope_scale"]
            widths = axis_widths(cfg)
            bases = [10000.0 * s[a] ** (widths[a] / (widths[a] - 2)) for a in range(3)]
        else:
            widths = axis_widths(cfg)
            base = {"wan": cfg.get("theta"), "flux": cfg.get("theta"), "qwenimage": cfg.get("theta"),
                    "flux2": cfg.get("rope_theta"), "hunyuan": cfg.get("rope_theta")}[m]
            bases = [base] * len(widths)
        if sum(widths) != d:
            raise ValueError(f"axis widths {widths} do not sum to {d}")
        for a, wa in enumerate(widths):
            for k in range(wa // 2):
                axis.append(a)
                theta.append(bases[a] ** (-2.0 * k / wa))
    p = np.arange(half)
    if m in ("cosmos", "cosmos3"):
        first, second = p, p + half  # half layout (use_real_unbind_dim=-2; Cosmos 3's _rotate_half)
    else:
        first, second = 2 * p, 2 * p + 1  # interleaved
    return dict(axis=np.array(axis), theta=np.array(theta, dtype=np.float64), first=first, second=second)


def angles(cfg, pos):
    """[n, d/2] float64: the angle of every pair at every row."""
    t = pair_table(cfg)
    a = np.where(t["axis"][None, :] >= 0, pos[:, np.maximum(t["axis"], 0)], 0.0)
    return a * t["theta"][None, :]


def apply(x, pos, cfg, seq_dim=1):
    """The float64 reference: x [batch, seq, heads, d] (seq_dim 1) or [batch, heads, seq, d] (seq_dim 2)."""
    x = np.asarray(x, np.float64)
    if seq_dim == 2:
        return np.swapaxes(apply(np.swapaxes(x, 1, 2), pos, cfg, 1), 1, 2)
    d = x.shape[-1]
    if cfg["model"] == "ltx" and d != head_dim(cfg):  # the rope spans heads * head_dim, before the heads split
        b, s, hh, _ = x.shape
        return apply(x.reshape(b, s, 1, hh * d), pos, cfg, 1).reshape(x.shape)
    t = pair_table(cfg)
    ang = angles(cfg, pos)[None, :, None, :]
    c, s = np.cos(ang), np.sin(ang)
    a, b = x[..., t["first"]], x[..., t["second"]]
    y = x.copy()
    y[..., t["first"]] = a * c - b * s
    y[..., t["second"]] = a * s + b * c
    return y


# ---------------------------------------------------------------------------------------------------------------
# The diffusers computation itself, step by step in its dtypes (float32 unless the source says float64).

def bf16_round(a):
    """float32 values rounded to bfloat16 (round to nearest even), kept as float32."""
    b = np.asarray(a, F32).view(np.uint32).astype(np.uint64)
    b = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16
    return b.astype(np.uint32).view(F32)


def _rope_1d(dim, pos, theta, freqs_dtype):
    """embeddings.get_1d_rotary_pos_embed(use_real=True, repeat_interleave_real=True): [S, dim] cos and sin, float32.
    outer(pos, freqs) promotes to the wider of the two dtypes; cos/sin in it, then .float()."""
    freqs = 1.0 / (np.asarray(theta, freqs_dtype) ** (np.arange(0, dim, 2).astype(freqs_dtype) / freqs_dtype(dim)))
    freqs = freqs.astype(freqs_dtype)
    pos = np.asarray(pos)
    wide = np.result_type(pos.dtype if pos.dtype != np.int64 else freqs_dtype, freqs_dtype)
    ang = np.outer(pos.astype(wide), freqs.astype(wide))
    return np.repeat(np.cos(ang), 2, axis=1).astype(F32), np.repeat(np.sin(ang), 2, axis=1).astype(F32)


def _apply_real(x, cos, sin, unbind_dim=-1):
    """embeddings.apply_rotary_emb(use_real=True) on x [batch, seq, heads, d] (float32 values), cos/sin [S, d]."""
    x = x.astype(F32)
    if unbind_dim == -1:
        xr, xi = x[..., 0::2], x[..., 1::2]
        rot = np.stack([-xi, xr], axis=-1).reshape(x.shape)
    else:
        h = x.shape[-1] // 2
        rot = np.concatenate([-x[..., h:], x[..., :h]], axis=-1)
    c, s = cos[None, :, None, :], sin[None, :, None, :]
    return (x * c + rot * s).astype(F32)


def _wan_tables(cfg, split=None):
    """WanRotaryPosEmbed.__init__: the [max_seq_len, d] tables, float64 angles, .float(); forward's split sizes."""
    d = cfg["attention_head_dim"]
    widths = axis_widths(cfg)
    cos, sin = zip(*[_rope_1d(w, np.arange(cfg["rope_max_seq_len"]), cfg["theta"], np.float64) for w in widths])
    return np.concatenate(cos, axis=1), np.concatenate(sin, axis=1), (list(widths) if split is None else split), d


def _wan_forward(cfg, f, h, w, split=None):
    cos, sin, sizes, _ = _wan_tables(cfg, split)
    edges = np.cumsum([0] + sizes)
    g = _grid(f, h, w).astype(np.int64)
    c = np.concatenate([cos[g[:, a], edges[a]:edges[a + 1]] for a in range(3)], axis=1)
    s = np.concatenate([sin[g[:, a], edges[a]:edges[a + 1]] for a in range(3)], axis=1)
    return c, s


def _wan_apply(x, c, s):
    """WanAttnProcessor's apply_rotary_emb: cos = freqs_cos[..., 0::2], sin = freqs_sin[..., 1::2]."""
    x = x.astype(F32)
    x1, x2 = x[..., 0::2], x[..., 1::2]
    cc, ss = c[None, :, None, 0::2], s[None, :, None, 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = x1 * cc - x2 * ss
    out[..., 1::2] = x1 * ss + x2 * cc
    return out


def _flux_tables(cfg, ids):
    """FluxPosEmbed / Flux2PosEmbed.forward: pos = ids.float(), float64 frequencies per axis."""
    theta = cfg["theta"] if cfg["model"] == "flux" else cfg["rope_theta"]
    pos = ids.astype(F32)
    cs = [_rope_1d(wa, pos[:, i], theta, np.float64) for i, wa in enumerate(cfg["axes_dims_rope"])]
    return np.concatenate([c for c, _ in cs], axis=1), np.concatenate([s for _, s in cs], axis=1)


def _qwen_apply(x, cfg, f, h, w, text, centred=None, text_start=None):
    """QwenEmbedRope (rope_params in float32, polar) and apply_rotary_emb_qwen(use_real=False)."""
    axes = cfg["axes_dims_rope"]
    theta = cfg["theta"]

    def rope_params(index, dim):  # 258-266: outer(int64 index, float32 freqs) is float32
        fr = (F32(1.0) / np.power(F32(theta), (np.arange(0, dim, 2).astype(F32) / F32(dim)))).astype(F32)
        return np.outer(index.astype(F32), fr).astype(F32)

    scale = cfg["scale_rope"] if centred is None else centred
    fa = rope_params(np.arange(f), axes[0])
    if scale:
        hh = np.concatenate([np.arange(-(h - h // 2), 0), np.arange(h // 2)])
        ww = np.concatenate([np.arange(-(w - w // 2), 0), np.arange(w // 2)])
    else:
        hh, ww = np.arange(h), np.arange(w)
    ha, wa = rope_params(hh, axes[1]), rope_params(ww, axes[2])
    g = _grid(f, h, w).astype(np.int64)
    img = np.concatenate([fa[g[:, 0]], ha[g[:, 1]], wa[g[:, 2]]], axis=1)
    start = (max(h // 2, w // 2) if scale else max(h, w)) if text_start is None else text_start
    tidx = np.arange(start, start + text)
    txt = np.concatenate([rope_params(tidx, a) for a in axes], axis=1)
    ang = np.concatenate([txt, img])  # the joint sequence: text, then image (599)
    c, s = np.cos(ang).astype(F32), np.sin(ang).astype(F32)  # torch.polar in complex64
    x = x.astype(F32)
    a, b = x[..., 0::2], x[..., 1::2]
    cc, ss = c[None, :, None, :], s[None, :, None, :]
    out = np.empty_like(x)
    out[..., 0::2] = a * cc - b * ss
    out[..., 1::2] = a * ss + b * cc
    return out


def _torch_linspace_f32(start, end, steps):
    """torch.linspace in float32 (ATen's range kernel: start + step * i below steps / 2, end - step * (steps - 1 - i)
    from there)."""
    step = F32((F32(end) - F32(start)) / F32(steps - 1))
    i = np.arange(steps)
    half = steps // 2
    lo = (F32(start) + step * i.astype(F32)).astype(F32)
    hi = (F32(end) - step * (steps - 1 - i).astype(F32)).astype(F32)
    return np.where(i < half, lo, hi).astype(F32)


def _ltx_angles(cfg, f, h, w, fps, step=None):
    """LTXVideoRotaryPosEmbed.forward in float32 (every step rounded by `step`: float32, or bf16 for the mistake),
    [n, 3n] angles in the per-frequency interleaved order, and the padding channel count."""
    rnd = (lambda v: np.asarray(v, F32)) if step is None else step
    d = head_dim(cfg)
    n = d // 6
    rate = cfg["frame_rate"] if fps is None else fps
    scale = (cfg["vae_temporal_compression_ratio"] / rate, cfg["vae_spatial_compression_ratio"],
             cfg["vae_spatial_compression_ratio"])
    pt, p = cfg["patch_size_t"], cfg["patch_size"]
    g = rnd(_grid(f, h, w).astype(F32))
    # 218-220: grid * scale * patch / base, left to right, each a float32 tensor op with a Python scalar
    g0 = rnd(rnd(rnd(g[:, 0] * F32(scale[0])) * F32(pt)) / F32(cfg["base_num_frames"]))
    g1 = rnd(rnd(rnd(g[:, 1] * F32(scale[1])) * F32(p)) / F32(cfg["base_height"]))
    g2 = rnd(rnd(rnd(g[:, 2] * F32(scale[2])) * F32(p)) / F32(cfg["base_width"]))
    grid = np.stack([g0, g1, g2], axis=1)
    lin = _torch_linspace_f32(math.log(1.0, cfg["theta"]), math.log(cfg["theta"], cfg["theta"]), n)
    freqs = rnd(np.power(F32(cfg["theta"]), rnd(lin)))
    freqs = rnd(freqs * F32(math.pi / 2.0))
    m = rnd(rnd(grid * F32(2)) - F32(1))  # grid.unsqueeze(-1) * 2 - 1
    ang = rnd(freqs[None, None, :] * m[:, :, None])  # [n_tok, 3, n]
    ang = np.swapaxes(ang, 1, 2).reshape(len(grid), 3 * n)  # transpose(-1, -2).flatten(2)
    return ang, d % 6


def _ltx_apply(x, cfg, f, h, w, fps, step=None):
    ang, pad = _ltx_angles(cfg, f, h, w, fps, step)
    c = np.repeat(np.cos(ang.astype(F32)), 2, axis=1).astype(F32)
    s = np.repeat(np.sin(ang.astype(F32)), 2, axis=1).astype(F32)
    if pad:
        c = np.concatenate([np.ones((len(c), pad), F32), c], axis=1)
        s = np.concatenate([np.zeros((len(s), pad), F32), s], axis=1)
    b, sq, hh, dh = x.shape  # the processor applies it to [batch, seq, inner_dim], then unflattens the heads
    flat = x.reshape(b, sq, 1, hh * dh)
    return _apply_real(flat, c, s).reshape(x.shape)


def _cosmos_tables(cfg, f, h, w, fps):
    """CosmosRotaryPosEmbed.forward, float32 (the NTK factors in Python floats, 476-478)."""
    d = cfg["attention_head_dim"]
    dim_h = dim_w = d // 6 * 2
    dim_t = d - dim_h - dim_w
    s = cfg["rope_scale"]
    hth = 10000.0 * s[1] ** (dim_h / (dim_h - 2))
    wth = 10000.0 * s[2] ** (dim_w / (dim_w - 2))
    tth = 10000.0 * s[0] ** (dim_t / (dim_t - 2))
    max_size = [sz // pa for sz, pa in zip(cfg["max_size"], cfg["patch_size"])]
    seq = np.arange(max(max_size)).astype(F32)

    def rng(dim):
        return (np.arange(0, dim, 2).astype(F32)[: dim // 2] / F32(dim)).astype(F32)

    hf = (F32(1.0) / np.power(F32(hth), rng(dim_h))).astype(F32)
    wf = (F32(1.0) / np.power(F32(wth), rng(dim_w))).astype(F32)
    tf = (F32(1.0) / np.power(F32(tth), rng(dim_t))).astype(F32)
    tseq = seq[:f] if fps is None else ((seq[:f] / F32(fps)).astype(F32) * F32(cfg["base_fps"])).astype(F32)
    g = _grid(f, h, w).astype(np.int64)
    et = np.outer(tseq, tf).astype(F32)[g[:, 0]]
    eh = np.outer(seq[:h], hf).astype(F32)[g[:, 1]]
    ew = np.outer(seq[:w], wf).astype(F32)[g[:, 2]]
    freqs = np.concatenate([et, eh, ew] * 2, axis=1)
    return np.cos(freqs).astype(F32), np.sin(freqs).astype(F32)


def _cosmos3_apply(x, cfg, pos, bf16=False, chunked=False):
    """Cosmos3VLTextRotaryEmbedding.forward in float32 on the ids pos [n, 3] (float32 values), then the processor in
    x's dtype: cos and sin cast to it, x * cos + rotate_half(x) * sin, each product and the sum rounded to it (bf16
    tensors compute each op in float32 and round). `chunked`: the sections read as Qwen2-VL's chunks (the mistake)."""
    d = cfg["attention_head_dim"]
    inv = (F32(1.0) / (F32(cfg["rope_theta"]) ** (np.arange(0, d, 2).astype(F32) / F32(d)))).astype(F32)
    freqs = (np.asarray(pos, F32).T[:, :, None] * inv[None, None, :]).astype(F32)  # [3, n, d/2]
    sec = cfg["rope_axes_dim"]
    if chunked:
        axis = np.repeat(np.arange(3), sec)
    else:
        axis = np.zeros(d // 2, dtype=np.int64)
        for dim, offset in ((1, 1), (2, 2)):  # 139-143
            axis[offset:sec[dim] * 3:3] = dim
    f = freqs[axis, :, np.arange(d // 2)].T  # [n, d/2]
    emb = np.concatenate([f, f], axis=-1)
    rnd = bf16_round if bf16 else (lambda a: np.asarray(a, F32))
    c, s = rnd(np.cos(emb).astype(F32)), rnd(np.sin(emb).astype(F32))
    x = np.asarray(x, F32)
    h = d // 2
    rot = np.concatenate([-x[..., h:], x[..., :h]], axis=-1)
    return rnd(rnd(x * c[None, :, None, :]) + rnd(rot * s[None, :, None, :]))


def source_apply(x, cfg, latent_shape, text=0, reference_images=0, fps=None, seq_dim=1, dtype="f32"):
    """RoPE as the diffusers source computes it, on x (float32 values; bf16-representable for dtype "bf16"), in the
    processor's shape; the output rounded to bf16 for dtype "bf16"."""
    if seq_dim == 2:
        return np.swapaxes(source_apply(np.swapaxes(x, 1, 2), cfg, latent_shape, text, reference_images, fps, 1,
                                        dtype), 1, 2)
    out = _source(np.asarray(x, F32), cfg, latent_shape, text, reference_images, fps, bf16=dtype == "bf16")
    return bf16_round(out) if dtype == "bf16" else out


def _source(x, cfg, latent_shape, text, reference_images, fps, mistake=None, bf16=False):
    m = cfg["model"]
    if m == "cosmos3":
        return _cosmos3_apply(x, cfg, positions(cfg, latent_shape, text, 0, fps), bf16, chunked=mistake == "chunked")
    f, h, w = token_grid(cfg, latent_shape)
    if m == "wan":
        c, s = _wan_forward(cfg, f, h, w, split=mistake)
        return _wan_apply(x, c, s)
    if m in ("flux", "flux2"):
        ids = positions(cfg, latent_shape, text, reference_images)  # the pipeline's integer ids
        if mistake == "text_counted":  # txt_ids an arange on t, where FluxPipeline._prepare_text_ids makes zeros
            ids[:text, 0] = np.arange(text)
        c, s = _flux_tables(cfg, ids)
        return _apply_real(x, c, s)
    if m == "qwenimage":
        kw = mistake or {}
        return _qwen_apply(x, cfg, f, h, w, text, **kw)
    if m == "hunyuan":
        theta = cfg["rope_theta"] if mistake is None else mistake
        g = _grid(f, h, w).astype(F32)
        cs = [_rope_1d(wa, g[:, i], theta, F32) for i, wa in enumerate(cfg["rope_axes_dim"])]
        c = np.concatenate([c for c, _ in cs], axis=1)
        s = np.concatenate([s for _, s in cs], axis=1)
        n = len(c)
        out = x.copy()
        out[:, :n] = _apply_real(x[:, :n], c, s)  # the text after the video, not rotated
        return out
    if m == "ltx":
        return _ltx_apply(x, cfg, f, h, w, fps, step=mistake)
    if m == "cosmos":
        c, s = _cosmos_tables(cfg, f, h, w, fps)
        return _apply_real(x, c, s, unbind_dim=-2)
    raise ValueError(m)


# ---------------------------------------------------------------------------------------------------------------
# Dumps.

# The small grids of the dumps (latent (F, H, W), text, reference images): H != W everywhere, F > 1 for video.
CASES = {
    "wan": dict(latent_shape=(3, 4, 6)),
    "flux": dict(latent_shape=(1, 6, 4), text=2),
    "flux2": dict(latent_shape=(1, 4, 6), text=3, reference_images=1),
    "qwenimage": dict(latent_shape=(1, 10, 6), text=3),
    "hunyuan": dict(latent_shape=(3, 4, 6), text=2),
    "ltx": dict(latent_shape=(3, 2, 3)),
    "cosmos": dict(latent_shape=(3, 4, 6)),
    "cosmos3": dict(latent_shape=(3, 8, 12), text=3),
}

# The dumps' configs: the defaults but LTX small (2 heads x 64: one RoPE over 128 channels, 21 frequencies per axis,
# one padding pair) so that its dump stays a few kilobytes.
DUMP_OVERRIDES = {"ltx": dict(num_attention_heads=2, attention_head_dim=64)}
WAN_12538_LATENT = (1, 512, 2)


def _fmt(v):
    v = float(v)
    if v == int(v) and abs(v) < 2 ** 53:
        return str(int(v))
    return repr(v)


def write_positions_csv(path, cfg, pos):
    with open(path, "w") as f:
        f.write(",".join(axis_names(cfg)) + "\n")
        for row in pos:
            f.write(",".join(_fmt(v) for v in row) + "\n")


def check_args(case, ddir):
    """The `rope check` arguments of one dump of write_dumps (without the command and --json), as its processor holds
    the tensors: q and q_rope with the config and positions.csv, the dump's axis order, --dtype bf16 for bf16 values
    stored as float32. LTX's one rotation over all heads is checked on [batch, seq, 1, heads·d]: those files are
    written here (q_flat.npy, q_rope_flat.npy)."""
    before, after = os.path.join(ddir, "q.npy"), os.path.join(ddir, "q_rope.npy")
    flat = case["rope_width"] != case["d"]
    if flat:
        for name in ("q", "q_rope"):
            x = np.load(os.path.join(ddir, f"{name}.npy"))
            if case["layout"] == "bhsd":
                x = np.swapaxes(x, 1, 2)
            np.save(os.path.join(ddir, f"{name}_flat.npy"), np.ascontiguousarray(x.reshape(x.shape[0], x.shape[1], 1, -1)))
        before, after = os.path.join(ddir, "q_flat.npy"), os.path.join(ddir, "q_rope_flat.npy")
    args = ["--config", os.path.join(ddir, "config.json"), "--before", before, "--after", after,
            "--axis-positions", os.path.join(ddir, "positions.csv"),
            "--axes", "batch,heads,seq,d" if case["layout"] == "bhsd" and not flat else "batch,seq,heads,d"]
    return args + (["--dtype", "bf16"] if case["dtype"] == "bf16" else [])


def write_dumps(out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(79)
    manifest = []

    def save(name, cfg, case, y_of, dtype, seq_dim, expect, variant=None, found=None, note=None, pos=None, heads=2):
        lat = case["latent_shape"]
        kw = dict(text=case.get("text", 0), reference_images=case.get("reference_images", 0), fps=case.get("fps"))
        p = positions(cfg, lat, **kw) if pos is None else pos
        d = cfg["attention_head_dim"]
        x = rng.standard_normal((1, len(p), heads, d)).astype(F32)
        if dtype == "bf16":
            x = bf16_round(x)
        y = y_of(x)
        if dtype == "bf16":
            y = bf16_round(y)
        ref = apply(x, p, cfg)
        if seq_dim == 2:
            x, y = np.swapaxes(x, 1, 2), np.swapaxes(y, 1, 2)
            ref = np.swapaxes(ref, 1, 2)
        ddir = os.path.join(out, name)
        os.makedirs(ddir, exist_ok=True)
        np.save(os.path.join(ddir, "q.npy"), np.ascontiguousarray(x))
        np.save(os.path.join(ddir, "q_rope.npy"), np.ascontiguousarray(y))
        write_positions_csv(os.path.join(ddir, "positions.csv"), cfg, p)
        with open(os.path.join(ddir, "config.json"), "w") as fh:
            json.dump(diffusers_config(cfg), fh, indent=1)
        err = float(np.abs(y.astype(np.float64) - ref).max())  # a mistake's departure from the truth
        entry = dict(name=name, dir=name, model=cfg["model"], class_name=CLASS_NAMES[cfg["model"]], dtype=dtype,
                     layout="bshd" if seq_dim == 1 else "bhsd", shape=list(x.shape), d=d,
                     rope_width=head_dim(cfg), latent_shape=list(lat), **kw, axes=list(axis_names(cfg)),
                     expect=expect, variant=variant, found=found or {}, note=note,
                     max_abs_angle=float(np.abs(angles(cfg, p)).max()), max_err_vs_float64=err)
        manifest.append(entry)
        return entry

    def model_dumps(m):
        cfg = config(m, **DUMP_OVERRIDES.get(m, {}))
        case = CASES[m]
        for dtype in ("f32", "bf16"):
            for seq_dim in (1, 2):
                kw = dict(text=case.get("text", 0), reference_images=case.get("reference_images", 0),
                          fps=case.get("fps"))
                entry = save(f"{m}_{dtype}_{'bshd' if seq_dim == 1 else 'bhsd'}", cfg, case,
                             lambda x, cfg=cfg, case=case, kw=kw: source_apply(x, cfg, case["latent_shape"], **kw),
                             dtype, seq_dim, "pass")
                if m == "ltx":
                    # LTX's table over the 2 heads' 128 channels (1 padding pair, 21 frequencies per axis), base 10000:
                    # read in bf16 too, where on this 3 x 2 x 3 latent pairs 46 and 61 (omega_15 = 500 pi, omega_20 =
                    # 5000 pi) turn by whole turns at every t = -1 + 0.032 f, so no channel of theirs changes.
                    entry["identify"] = dict(grid_widths=[42, 42, 42], grid_base=10000.0, grid_heads=0)
                    if dtype == "bf16":
                        entry["identify"]["grid_whole_turns"] = [46, 61]

    # The random inputs are drawn in one sequence: Cosmos 3's dumps come last, so that the earlier dumps keep theirs.
    for m in MODELS:
        if m != "cosmos3":
            model_dumps(m)
    # d = 64 (Wan 1.3B-like heads of 64: widths t 24, h 20, w 20), f32 and bf16.
    wan64 = config("wan", attention_head_dim=64)
    for dtype in ("f32", "bf16"):
        save(f"wan_d64_{dtype}_bshd", wan64, CASES["wan"],
             lambda x: source_apply(x, wan64, CASES["wan"]["latent_shape"]), dtype, 1, "pass")
    # LTX at fps 24 (the time axis scaled by 8/24): passes with its positions.
    ltx = config("ltx", **DUMP_OVERRIDES["ltx"])
    c24 = dict(CASES["ltx"], fps=24)
    save("ltx_fps24_f32_bshd", ltx, c24, lambda x: source_apply(x, ltx, c24["latent_shape"], fps=24), "f32", 1, "pass")
    # Cosmos given fps 24 = base_fps: the same positions as no fps.
    cos = config("cosmos")
    c24 = dict(CASES["cosmos"], fps=24)
    save("cosmos_fps24_f32_bshd", cos, c24, lambda x: source_apply(x, cos, c24["latent_shape"], fps=24), "f32", 1,
         "pass")

    # The named mistakes: the dump is computed wrongly; positions.csv and config.json are the truth.
    # The #12538 split touches only each axis's slowest pair (pair 11: t's last frequency read at the h position;
    # pair 21: cos at h, sin at w), 10000^(-0.9) ~ 2.5e-4 rad per position: a tall grid (h up to 255) makes it show.
    lat = WAN_12538_LATENT
    for dtype in ("f32", "bf16"):
        save(f"mistake_wan_split_12538_d64_{dtype}", wan64, dict(latent_shape=lat),
             lambda x: _source(x, wan64, lat, 0, 0, None, mistake=[64 - 2 * (64 // 3), 64 // 3, 64 // 3]), dtype, 1,
             "fail", variant="axis-widths-other",
             found={"widths_used": [22, 21, 21], "widths_built": [24, 20, 20]},
             note="diffusers #12538: __init__ builds the tables with widths (24, 20, 20), forward splits them "
                  "(22, 21, 21); pairs 11, 21 and 31 take cos and sin from different columns")
    cosf = config("cosmos")
    lat = CASES["cosmos"]["latent_shape"]
    for dtype in ("f32", "bf16"):
        save(f"mistake_cosmos_fps16_{dtype}", cosf, CASES["cosmos"],
             lambda x: _source(x, cosf, lat, 0, 0, 16), dtype, 1, "fail", variant="axis-positions-scaled",
             found={"axis": "t", "scale": 1.5},
             note="diffusers #14768: Cosmos2VideoToWorldPipeline passes fps=16, so the t positions are x 24/16; "
                  "positions.csv has the unscaled ones")
    q = config("qwenimage")
    lat = CASES["qwenimage"]["latent_shape"]
    c0 = dict(CASES["qwenimage"], text=0)
    save("mistake_qwenimage_not_centred_f32", q, c0, lambda x: _source(x, q, lat, 0, 0, None,
                                                                     mistake=dict(centred=False)),
         "f32", 1, "fail", variant="axis-not-centred", found={"axes": ["h", "w"], "offsets": [-3, -2]},
         note="rows and columns from 0 where scale_rope centres them at -(H - H // 2) and -(W - W // 2)")
    save("mistake_qwenimage_text_start_f32", q, CASES["qwenimage"],
         lambda x: _source(x, q, lat, 3, 0, None, mistake=dict(text_start=0)), "f32", 1, "fail",
         variant="text-positions-other", found={"text_start": 0, "expected_start": 2},
         note="text at 0, 1, 2 on the three axes instead of from max(H // 2, W // 2) = 2")
    hy = config("hunyuan")
    lat = CASES["hunyuan"]["latent_shape"]
    for dtype in ("f32", "bf16"):
        save(f"mistake_hunyuan_base10000_{dtype}", hy, CASES["hunyuan"],
             lambda x: _source(x, hy, lat, 2, 0, None, mistake=10000.0), dtype, 1, "fail", variant="base-other",
             found={"base": 10000.0, "expected": 256.0}, note="rope_theta 256 read as the usual 10000")
    lat = CASES["ltx"]["latent_shape"]
    save("mistake_ltx_angles_bf16", ltx, CASES["ltx"], lambda x: _source(x, ltx, lat, 0, 0, None, mistake=bf16_round),
         "bf16", 1, "fail", variant="angles-bf16",
         note="openvino PR #36719: LTXVideoRotaryPosEmbed's angle chain evaluated in bf16 (every step rounded), "
              "angles up to 1.6e4 rad where a bf16 step is 64")
    model_dumps("cosmos3")
    # Cosmos 3 given fps 16: the latent's t at f * 1.5 + L + 15000 (float32), the table still Qwen3-VL's.
    c3 = config("cosmos3")
    c16 = dict(CASES["cosmos3"], fps=16)
    save("cosmos3_fps16_f32_bshd", c3, c16, lambda x: source_apply(x, c3, c16["latent_shape"], text=3, fps=16),
         "f32", 1, "pass")
    lat = CASES["cosmos3"]["latent_shape"]
    for dtype in ("f32", "bf16"):
        save(f"mistake_cosmos3_chunked_{dtype}", c3, CASES["cosmos3"],
             lambda x: _source(x, c3, lat, 3, 0, None, mistake="chunked", bf16=dtype == "bf16"), dtype, 1, "fail",
             variant="mrope-chunked",
             note="rope_axes_dim [24, 20, 20] read as Qwen2-VL's chunks (pairs 0-23 t, 24-43 h, 44-63 w) where "
                  "Cosmos3VLTextRotaryEmbedding interleaves them as Qwen3-VL does")
    # Wan run at base 1e6 where its config says 10000 (WanRotaryPosEmbed's default theta; issue 91 recipe 8): the
    # widths (44, 42, 42) Wan's, every axis's ladder of the other base. Drawn last, so the dumps above keep their inputs.
    wan, wan_big = config("wan"), config("wan", theta=1e6)
    lat = CASES["wan"]["latent_shape"]
    for dtype in ("f32", "bf16"):
        save(f"mistake_wan_base_1e6_{dtype}", wan, CASES["wan"], lambda x: source_apply(x, wan_big, lat), dtype, 1,
             "fail", variant="base-other", found={"base": 1e6, "expected": 10000.0},
             note="WanRotaryPosEmbed built with theta 1e6 where the transformer's config gives 10000")
    # Flux's text ids counted 0, 1, 2 on the t axis, where the pipeline gives every text token (0, 0, 0) (issue 91
    # recipe 11): positions.csv holds the pipeline's zeros.
    fl = config("flux")
    c3 = dict(CASES["flux"], text=3)
    for dtype in ("f32", "bf16"):
        save(f"mistake_flux_text_counted_{dtype}", fl, c3,
             lambda x, dtype=dtype: _source(x, fl, c3["latent_shape"], 3, 0, None, mistake="text_counted",
                                            bf16=dtype == "bf16"),
             dtype, 1, "fail", variant="text-ids-counted", found={"axis": 0, "tokens": 3},
             note="txt_ids counted 0, 1, 2 on t where every text token is at (0, 0, 0)")
    # LTX-Video at its released size (transformer_ltx.py:431-469, 32 heads x 64: one table over 2048 channels, 341
    # frequencies per axis, one padding pair), read whole; rope identify names the preset of that size and base.
    ltx_full = config("ltx")
    lat = CASES["ltx"]["latent_shape"]
    entry = save("ltx_full_f32_bshd", ltx_full, CASES["ltx"], lambda x: source_apply(x, ltx_full, lat), "f32", 1,
                 "pass", heads=ltx_full["num_attention_heads"])
    entry["identify"] = dict(grid_families=["LTX-Video"], grid_base=10000.0, grid_heads=0)
    with open(os.path.join(out, "manifest.json"), "w") as fh:
        json.dump(dict(source=f"huggingface/diffusers@{COMMIT}", script="tests/reference/diffusers_rope.py",
                       cases=manifest), fh, indent=1)
    return manifest


# ---------------------------------------------------------------------------------------------------------------
# Self-test: each port against a torch transcription of the diffusers functions (Debian's torch 1.13).

def _torch_ports():
    import torch

    def get_1d_rotary_pos_embed(dim, pos, theta=10000.0, use_real=False, linear_factor=1.0, ntk_factor=1.0,
                                repeat_interleave_real=True, freqs_dtype=torch.float32):
        # embeddings.py 1120-1184
        assert dim % 2 == 0
        if isinstance(pos, int):
            pos = torch.arange(pos)
        if isinstance(pos, np.ndarray):
            pos = torch.from_numpy(pos)
        theta = theta * ntk_factor
        freqs = 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=freqs_dtype) / dim)) / linear_factor
        freqs = torch.outer(pos, freqs)
        if use_real and repeat_interleave_real:
            freqs_cos = freqs.cos().repeat_interleave(2, dim=1).float()
            freqs_sin = freqs.sin().repeat_interleave(2, dim=1).float()
            return freqs_cos, freqs_sin
        elif use_real:
            return torch.cat([freqs.cos(), freqs.cos()], dim=-1).float(), torch.cat([freqs.sin(), freqs.sin()],
                                                                                    dim=-1).float()
        return torch.polar(torch.ones_like(freqs), freqs)

    def apply_rotary_emb(x, freqs_cis, use_real=True, use_real_unbind_dim=-1, sequence_dim=2):
        # embeddings.py 1187-1241
        cos, sin = freqs_cis
        if sequence_dim == 2:
            cos, sin = cos[None, None, :, :], sin[None, None, :, :]
        else:
            cos, sin = cos[None, :, None, :], sin[None, :, None, :]
        if use_real_unbind_dim == -1:
            x_real, x_imag = x.reshape(*x.shape[:-1], -1, 2).unbind(-1)
            x_rotated = torch.stack([-x_imag, x_real], dim=-1).flatten(3)
        else:
            x_real, x_imag = x.reshape(*x.shape[:-1], 2, -1).unbind(-2)
            x_rotated = torch.cat([-x_imag, x_real], dim=-1)
        return (x.float() * cos + x_rotated.float() * sin).to(x.dtype)

    def wan(x, cfg, f, h, w, split=None):
        # transformer_wan.py WanRotaryPosEmbed 354-416 and the processor's apply_rotary_emb 104-115
        d = cfg["attention_head_dim"]
        h_dim = w_dim = 2 * (d // 6)
        t_dim = d - h_dim - w_dim
        fc, fs = [], []
        for dim in [t_dim, h_dim, w_dim]:
            c, s = get_1d_rotary_pos_embed(dim, cfg["rope_max_seq_len"], cfg["theta"], use_real=True,
                                           repeat_interleave_real=True, freqs_dtype=torch.float64)
            fc.append(c)
            fs.append(s)
        freqs_cos, freqs_sin = torch.cat(fc, dim=1), torch.cat(fs, dim=1)
        split_sizes = [t_dim, h_dim, w_dim] if split is None else split
        fc, fs = freqs_cos.split(split_sizes, dim=1), freqs_sin.split(split_sizes, dim=1)
        cf = fc[0][:f].view(f, 1, 1, -1).expand(f, h, w, -1)
        ch = fc[1][:h].view(1, h, 1, -1).expand(f, h, w, -1)
        cw = fc[2][:w].view(1, 1, w, -1).expand(f, h, w, -1)
        sf = fs[0][:f].view(f, 1, 1, -1).expand(f, h, w, -1)
        sh = fs[1][:h].view(1, h, 1, -1).expand(f, h, w, -1)
        sw = fs[2][:w].view(1, 1, w, -1).expand(f, h, w, -1)
        freqs_cos = torch.cat([cf, ch, cw], dim=-1).reshape(1, f * h * w, 1, -1)
        freqs_sin = torch.cat([sf, sh, sw], dim=-1).reshape(1, f * h * w, 1, -1)
        x1, x2 = x.unflatten(-1, (-1, 2)).unbind(-1)
        cos = freqs_cos[..., 0::2]
        sin = freqs_sin[..., 1::2]
        out = torch.empty_like(x)
        out[..., 0::2] = x1 * cos - x2 * sin
        out[..., 1::2] = x1 * sin + x2 * cos
        return out.type_as(x)

    def flux_ids(h, w, text):
        # pipeline_flux.py _prepare_latent_image_ids 506-517, text_ids 385; transformer_flux.py 749
        ids = torch.zeros(h, w, 3)
        ids[..., 1] = ids[..., 1] + torch.arange(h)[:, None]
        ids[..., 2] = ids[..., 2] + torch.arange(w)[None, :]
        ids = ids.reshape(h * w, 3)
        return torch.cat((torch.zeros(text, 3), ids), dim=0)

    def flux2_ids(h, w, text, refs):
        # pipeline_flux2.py _prepare_text_ids, _prepare_latent_ids, _prepare_image_ids (scale 10); 1327-1332, 971
        txt = torch.cartesian_prod(torch.arange(1), torch.arange(1), torch.arange(1), torch.arange(text))
        lat = torch.cartesian_prod(torch.arange(1), torch.arange(h), torch.arange(w), torch.arange(1))
        t_coords = [10 + 10 * t for t in torch.arange(0, refs)]
        img = [lat] + [torch.cartesian_prod(t.view(-1), torch.arange(h), torch.arange(w), torch.arange(1))
                       for t in t_coords]
        return txt, torch.cat(img, dim=0)

    def flux_pos_embed(ids, theta, axes_dim, n_axes):
        # FluxPosEmbed / Flux2PosEmbed.forward
        cos_out, sin_out = [], []
        pos = ids.float()
        for i in range(n_axes):
            c, s = get_1d_rotary_pos_embed(axes_dim[i], pos[:, i], theta=theta, repeat_interleave_real=True,
                                           use_real=True, freqs_dtype=torch.float64)
            cos_out.append(c)
            sin_out.append(s)
        return torch.cat(cos_out, dim=-1), torch.cat(sin_out, dim=-1)

    def qwen(x, cfg, f, h, w, text):
        # transformer_qwenimage.py QwenEmbedRope 232-358, apply_rotary_emb_qwen(use_real=False) 137-142
        axes_dim, theta = cfg["axes_dims_rope"], cfg["theta"]

        def rope_params(index, dim):
            freqs = torch.outer(index, 1.0 / torch.pow(theta, torch.arange(0, dim, 2).to(torch.float32).div(dim)))
            return torch.polar(torch.ones_like(freqs), freqs)

        pos_index = torch.arange(4096)
        neg_index = torch.arange(4096).flip(0) * -1 - 1
        pos_freqs = torch.cat([rope_params(pos_index, a) for a in axes_dim], dim=1)
        neg_freqs = torch.cat([rope_params(neg_index, a) for a in axes_dim], dim=1)
        fp = pos_freqs.split([a // 2 for a in axes_dim], dim=1)
        fn = neg_freqs.split([a // 2 for a in axes_dim], dim=1)
        ff = fp[0][0:f].view(f, 1, 1, -1).expand(f, h, w, -1)
        fh = torch.cat([fn[1][-(h - h // 2):], fp[1][: h // 2]], dim=0).view(1, h, 1, -1).expand(f, h, w, -1)
        fw = torch.cat([fn[2][-(w - w // 2):], fp[2][: w // 2]], dim=0).view(1, 1, w, -1).expand(f, h, w, -1)
        vid = torch.cat([ff, fh, fw], dim=-1).reshape(f * h * w, -1)
        start = max(h // 2, w // 2)
        txt = pos_freqs[start: start + text, ...]

        def rot(xx, freqs_cis):
            xr = torch.view_as_complex(xx.float().reshape(*xx.shape[:-1], -1, 2))
            return torch.view_as_real(xr * freqs_cis.unsqueeze(1)).flatten(3).type_as(xx)

        return torch.cat([rot(x[:, :text], txt), rot(x[:, text:], vid)], dim=1)

    def hunyuan(x, cfg, f, h, w, text):
        # transformer_hunyuan_video.py HunyuanVideoRotaryPosEmbed 478-508, the processor 82-105
        axes = [torch.arange(0, n, dtype=torch.float32) for n in (f, h, w)]
        grid = torch.stack(torch.meshgrid(*axes, indexing="ij"), dim=0)
        freqs = [get_1d_rotary_pos_embed(cfg["rope_axes_dim"][i], grid[i].reshape(-1), cfg["rope_theta"],
                                         use_real=True) for i in range(3)]
        emb = (torch.cat([fr[0] for fr in freqs], dim=1), torch.cat([fr[1] for fr in freqs], dim=1))
        n = f * h * w
        return torch.cat([apply_rotary_emb(x[:, :n], emb, sequence_dim=1), x[:, n:]], dim=1)

    def ltx(x, cfg, f, h, w, fps):
        # transformer_ltx.py LTXVideoRotaryPosEmbed 200-278 and apply_rotary_emb 596-601 on [B, S, inner_dim]
        dim = cfg["num_attention_heads"] * cfg["attention_head_dim"]
        rate = cfg["frame_rate"] if fps is None else fps
        ris = (cfg["vae_temporal_compression_ratio"] / rate, cfg["vae_spatial_compression_ratio"],
               cfg["vae_spatial_compression_ratio"])
        grid = torch.meshgrid(torch.arange(f, dtype=torch.float32), torch.arange(h, dtype=torch.float32),
                              torch.arange(w, dtype=torch.float32), indexing="ij")
        grid = torch.stack(grid, dim=0).unsqueeze(0)
        grid[:, 0:1] = grid[:, 0:1] * ris[0] * cfg["patch_size_t"] / cfg["base_num_frames"]
        grid[:, 1:2] = grid[:, 1:2] * ris[1] * cfg["patch_size"] / cfg["base_height"]
        grid[:, 2:3] = grid[:, 2:3] * ris[2] * cfg["patch_size"] / cfg["base_width"]
        grid = grid.flatten(2, 4).transpose(1, 2)
        theta = cfg["theta"]
        freqs = theta ** torch.linspace(math.log(1.0, theta), math.log(theta, theta), dim // 6, dtype=torch.float32)
        freqs = freqs * math.pi / 2.0
        freqs = freqs * (grid.unsqueeze(-1) * 2 - 1)
        freqs = freqs.transpose(-1, -2).flatten(2)
        cos_freqs = freqs.cos().repeat_interleave(2, dim=-1)
        sin_freqs = freqs.sin().repeat_interleave(2, dim=-1)
        if dim % 6 != 0:
            cos_freqs = torch.cat([torch.ones_like(cos_freqs[:, :, : dim % 6]), cos_freqs], dim=-1)
            sin_freqs = torch.cat([torch.zeros_like(cos_freqs[:, :, : dim % 6]), sin_freqs], dim=-1)
        xx = x.flatten(2)
        x_real, x_imag = xx.unflatten(2, (-1, 2)).unbind(-1)
        x_rotated = torch.stack([-x_imag, x_real], dim=-1).flatten(2)
        out = (xx.float() * cos_freqs + x_rotated.float() * sin_freqs).to(x.dtype)
        return out.unflatten(2, (cfg["num_attention_heads"], -1))

    def cosmos(x, cfg, f, h, w, fps):
        # transformer_cosmos.py CosmosRotaryPosEmbed 457-518; the processor 184
        d = cfg["attention_head_dim"]
        max_size = [s // p for s, p in zip(cfg["max_size"], cfg["patch_size"])]
        dim_h = d // 6 * 2
        dim_w = d // 6 * 2
        dim_t = d - dim_h - dim_w
        rs = cfg["rope_scale"]
        h_theta = 10000.0 * rs[1] ** (dim_h / (dim_h - 2))
        w_theta = 10000.0 * rs[2] ** (dim_w / (dim_w - 2))
        t_theta = 10000.0 * rs[0] ** (dim_t / (dim_t - 2))
        seq = torch.arange(max(max_size), dtype=torch.float32)
        dhr = torch.arange(0, dim_h, 2, dtype=torch.float32)[: (dim_h // 2)] / dim_h
        dwr = torch.arange(0, dim_w, 2, dtype=torch.float32)[: (dim_w // 2)] / dim_w
        dtr = torch.arange(0, dim_t, 2, dtype=torch.float32)[: (dim_t // 2)] / dim_t
        hfr, wfr, tfr = 1.0 / (h_theta ** dhr), 1.0 / (w_theta ** dwr), 1.0 / (t_theta ** dtr)
        emb_h = torch.outer(seq[:h], hfr)[None, :, None, :].repeat(f, 1, w, 1)
        emb_w = torch.outer(seq[:w], wfr)[None, None, :, :].repeat(f, h, 1, 1)
        if fps is None:
            emb_t = torch.outer(seq[:f], tfr)
        else:
            emb_t = torch.outer(seq[:f] / fps * cfg["base_fps"], tfr)
        emb_t = emb_t[:, None, None, :].repeat(1, h, w, 1)
        freqs = torch.cat([emb_t, emb_h, emb_w] * 2, dim=-1).flatten(0, 2).float()
        return apply_rotary_emb(x, (torch.cos(freqs), torch.sin(freqs)), use_real=True, use_real_unbind_dim=-2,
                                sequence_dim=1)

    def cosmos3_ids(cfg, f, h, w, text, fps):
        # pipeline_cosmos3_omni.py get_3d_mrope_ids_text_tokens (102-119), get_3d_mrope_ids_vae_tokens (122-170),
        # _prepare_text_segment (542-553), _prepare_vision_segment (591-600)
        use_float = cfg["enable_fps_modulation"]
        if use_float:
            ids = torch.arange(text, dtype=torch.float32) + 0
        else:
            ids = torch.arange(text, dtype=torch.long) + int(0)
        text_ids = ids.unsqueeze(0).expand(3, -1).contiguous()
        offset = 0 + text + cfg["temporal_margin"]
        fps = fps if cfg["enable_fps_modulation"] else None
        tcf = cfg["temporal_compression"]
        if fps is not None and f > 1:
            tps = fps / tcf
            base_tps = float(cfg["base_fps"]) / tcf
            frame_indices = torch.arange(f, dtype=torch.float32)
            t_index = ((frame_indices + 0) / tps * base_tps + offset).view(-1, 1).expand(-1, h * w).flatten()
        else:
            t_index = torch.arange(f, dtype=torch.long).view(-1, 1).expand(-1, h * w).flatten() + int(offset) + 0
        h_index = torch.arange(h, dtype=torch.long).view(1, -1, 1).expand(f, -1, w).flatten()
        w_index = torch.arange(w, dtype=torch.long).view(1, 1, -1).expand(f, h, -1).flatten()
        if not cfg["reset_spatial_ids"]:
            h_index = h_index + int(offset)
            w_index = w_index + int(offset)
        if fps is not None and f > 1:
            vae = torch.stack([t_index, h_index.to(torch.float32), w_index.to(torch.float32)], dim=0)
        else:
            vae = torch.stack([t_index, h_index, w_index], dim=0)
        return torch.cat([text_ids, vae], dim=1)

    def cosmos3(x, cfg, f, h, w, text, fps):
        # transformer_cosmos3.py Cosmos3VLTextRotaryEmbedding (129-161), forward (779-788), the processor (83-92)
        d, theta, rope_axes_dim = cfg["attention_head_dim"], cfg["rope_theta"], cfg["rope_axes_dim"]
        inv_freq = 1.0 / (theta ** (torch.arange(0, d, 2, dtype=torch.float32) / d))
        position_ids = cosmos3_ids(cfg, f, h, w, text, fps).unsqueeze(1)  # [3, 1, N]
        inv_freq_expanded = inv_freq[None, None, :, None].float().expand(3, position_ids.shape[1], -1, 1)
        position_ids_expanded = position_ids[:, :, None, :].float()
        freqs = inv_freq_expanded @ position_ids_expanded
        freqs = freqs.transpose(2, 3)
        freqs_t = freqs[0]
        for dim, offset in enumerate((1, 2), start=1):
            length = rope_axes_dim[dim] * 3
            idx = slice(offset, length, 3)
            freqs_t[..., idx] = freqs[dim, ..., idx]
        emb = torch.cat((freqs_t, freqs_t), dim=-1)
        cos, sin = emb.cos().to(dtype=x.dtype), emb.sin().to(dtype=x.dtype)
        cos, sin = cos.squeeze(0).unsqueeze(1), sin.squeeze(0).unsqueeze(1)  # [N, 1, d]
        half = x.shape[-1] // 2

        def rotate_half(v):
            return torch.cat((-v[..., half:], v[..., :half]), dim=-1)

        xs = x[0]  # [N, heads, d], the processor's unbatched q
        return (xs * cos + rotate_half(xs) * sin).unsqueeze(0), position_ids.squeeze(1).T.double()

    return dict(torch=torch, rope1d=get_1d_rotary_pos_embed, apply=apply_rotary_emb, wan=wan, flux_ids=flux_ids,
                flux2_ids=flux2_ids, flux_pos_embed=flux_pos_embed, qwen=qwen, hunyuan=hunyuan, ltx=ltx,
                cosmos=cosmos, cosmos3=cosmos3)


def self_test():
    T = _torch_ports()
    torch = T["torch"]
    rng = np.random.default_rng(7)
    failures = []

    def check(what, ok, detail=""):
        print(("ok    " if ok else "FAIL  ") + what + (f"  ({detail})" if detail else ""))
        if not ok:
            failures.append(what)

    def torch_run(m, x, cfg, lat, kw, split=None, bf16=False):
        f, h, w = token_grid(cfg, lat)
        xt = torch.from_numpy(x).to(torch.bfloat16) if bf16 else torch.from_numpy(x)
        out = _torch_run(m, xt, cfg, f, h, w, kw, split)
        if isinstance(out, tuple):
            return out[0].float().numpy(), out[1].numpy()
        return out.float().numpy()

    def _torch_run(m, xt, cfg, f, h, w, kw, split):
        if m == "wan":
            return T["wan"](xt, cfg, f, h, w, split)
        if m == "flux":
            ids = T["flux_ids"](h, w, kw["text"])
            emb = T["flux_pos_embed"](ids, cfg["theta"], cfg["axes_dims_rope"], 3)
            return T["apply"](xt, emb, sequence_dim=1), ids
        if m == "flux2":
            txt, img = T["flux2_ids"](h, w, kw["text"], kw["reference_images"])
            te = T["flux_pos_embed"](txt, cfg["rope_theta"], cfg["axes_dims_rope"], 4)
            ie = T["flux_pos_embed"](img, cfg["rope_theta"], cfg["axes_dims_rope"], 4)
            emb = (torch.cat([te[0], ie[0]], dim=0), torch.cat([te[1], ie[1]], dim=0))
            return T["apply"](xt, emb, sequence_dim=1), torch.cat([txt, img])
        if m == "qwenimage":
            return T["qwen"](xt, cfg, f, h, w, kw["text"])
        if m == "hunyuan":
            return T["hunyuan"](xt, cfg, f, h, w, kw["text"])
        if m == "ltx":
            return T["ltx"](xt, cfg, f, h, w, kw["fps"])
        if m == "cosmos":
            return T["cosmos"](xt, cfg, f, h, w, kw["fps"])
        if m == "cosmos3":
            return T["cosmos3"](xt, cfg, f, h, w, kw["text"], kw["fps"])

    for m in MODELS:
        cfg = config(m, **DUMP_OVERRIDES.get(m, {}))
        case = CASES[m]
        kw = dict(text=case.get("text", 0), reference_images=case.get("reference_images", 0), fps=case.get("fps"))
        lat = case["latent_shape"]
        pos = positions(cfg, lat, **kw)
        x = rng.standard_normal((1, len(pos), 2, cfg["attention_head_dim"])).astype(F32)
        got = torch_run(m, x, cfg, lat, kw)
        if isinstance(got, tuple):
            got, ids = got
            check(f"{m}: positions = the pipeline's ids", np.array_equal(ids.astype(np.float64), pos))
        mine = source_apply(x, cfg, lat, **kw)
        diff = float(np.abs(mine - got).max())
        # float32 angles: an ulp of torch's linspace or powf moves an angle of 1.6e4 rad (LTX) by ~1e-3; elsewhere
        # the angles stay below 10 rad and the two agree to a few float32 ulps.
        tol = 4e-6 + 3e-7 * float(np.abs(angles(cfg, pos)).max())
        check(f"{m}: source_apply = torch transcription (float32)", diff <= tol, f"max |diff| {diff:.2e}")
        ref = apply(x, pos, cfg)
        # The float64 reference against the float32 source: float32 angle error |angle| * 2^-24 plus rounding.
        e64 = float(np.abs(ref - got).max())
        check(f"{m}: float64 apply = torch transcription", e64 <= tol, f"max |diff| {e64:.2e}, tolerance {tol:.1e}")
        e2 = float(np.abs(apply(np.swapaxes(x, 1, 2), pos, cfg, seq_dim=2) - np.swapaxes(ref, 1, 2)).max())
        check(f"{m}: [batch, heads, seq, d] = [batch, seq, heads, d]", e2 == 0.0)
        # bf16: the torch transcription on a bf16 tensor against source_apply(dtype="bf16").
        xb = bf16_round(x)
        tb = torch_run(m, xb, cfg, lat, kw, bf16=True)
        tb = tb[0] if isinstance(tb, tuple) else tb
        sb = source_apply(xb, cfg, lat, dtype="bf16", **kw)
        eb = float(np.abs(sb - tb).max())
        same = float(np.mean(sb == tb))
        check(f"{m}: bf16 source_apply = torch on a bf16 tensor", eb <= 2 ** -7 * max(1.0, float(np.abs(tb).max())),
              f"max |diff| {eb:.2e}, {100 * same:.1f}% identical")
    # Positions against first principles.
    q = config("qwenimage")
    p = positions(q, (1, 10, 6), text=2)
    check("qwenimage: rows -3..1, columns -2..0, text from 2 on the three axes",
          p[2:, 1].min() == -3 and p[2:, 1].max() == 1 and p[2:, 2].min() == -2 and p[2:, 2].max() == 0
          and p[:2].tolist() == [[2, 2, 2], [3, 3, 3]])
    f2 = positions(config("flux2"), (1, 4, 6), text=3, reference_images=2)
    check("flux2: references at t = 10 and 20", sorted(set(f2[3 + 6:, 0].tolist())) == [10.0, 20.0])
    lt = config("ltx")
    pl = positions(lt, (3, 2, 2))
    exp = 2 * np.array([2 * (8 / 25) / 20, 1 * 32 / 2048, 1 * 32 / 2048]) - 1
    check("ltx: the last token at 2 g - 1 with g = (2 * 8/25 / 20, 32/2048, 32/2048)",
          np.abs(pl[-1] - exp).max() <= 1e-15)
    check("ltx: 2048 channels = 1 padding pair + 341 frequencies x 3 axes",
          (pair_table(lt)["axis"] == -1).sum() == 1 and len(pair_table(lt)["axis"]) == 1024)
    cs = config("cosmos")
    check("cosmos: fps 16 scales t by 1.5", positions(cs, (3, 2, 2), fps=16)[-1, 0] == 3.0)
    c3 = config("cosmos3")
    for fps in (None, 16, 30):
        x = rng.standard_normal((1, 3 + 3 * 4 * 6, 2, 128)).astype(F32)
        tout, ids = T["cosmos3"](torch.from_numpy(x), c3, 3, 4, 6, 3, fps)
        pos = positions(c3, (3, 8, 12), text=3, fps=fps)
        check(f"cosmos3 fps {fps}: positions = the pipeline's ids", np.array_equal(ids.numpy(), pos),
              f"last t {pos[-1, 0]!r}")
        tol = 4e-6 + 3e-7 * float(np.abs(angles(c3, pos)).max())
        e = float(np.abs(apply(x, pos, c3) - tout.numpy()).max())
        check(f"cosmos3 fps {fps}: float64 apply = torch transcription", e <= tol, f"{e:.2e}, tolerance {tol:.1e}")
    check("cosmos3: text (0, 0, 0), (1, 1, 1), (2, 2, 2); the latent from t = 3 + 15000",
          positions(c3, (1, 2, 2), text=3)[:4].tolist() == [[0, 0, 0], [1, 1, 1], [2, 2, 2], [15003, 0, 0]])
    t3 = pair_table(c3)
    check("cosmos3: pairs 1, 4, ..., 58 h, 2, 5, ..., 59 w, the others t (24 pairs)",
          t3["axis"][1:60:3].tolist() == [1] * 20 and t3["axis"][2:60:3].tolist() == [2] * 20
          and (t3["axis"] == 0).sum() == 24)
    w64 = config("wan", attention_head_dim=64)
    check("wan d 64: widths (24, 20, 20), #12538's forward (22, 21, 21)",
          axis_widths(w64) == (24, 20, 20) and [64 - 2 * (64 // 3), 64 // 3, 64 // 3] == [22, 21, 21])
    x = rng.standard_normal((1, 256, 1, 64)).astype(F32)
    bug = _source(x, w64, WAN_12538_LATENT, 0, 0, None, mistake=[22, 21, 21])
    tb = T["wan"](torch.from_numpy(x), w64, 1, 256, 1, split=[22, 21, 21]).numpy()
    check("wan #12538: the mistaken split = torch's", float(np.abs(bug - tb).max()) <= 2e-6)
    good = source_apply(x, w64, WAN_12538_LATENT)
    moved = np.nonzero(np.abs(bug - good).max(axis=(0, 1, 2)) > 1e-5)[0].tolist()
    check("wan #12538: the mistaken split changes channels 22, 23, 42, 43 alone, by up to 0.02 or more",
          moved == [22, 23, 42, 43] and float(np.abs(bug - good).max()) > 2e-2,
          f"channels {moved}, max |diff| {float(np.abs(bug - good).max()):.3f}")
    # A rotation keeps each pair's norm (the float64 reference), padding pairs untouched.
    xl = rng.standard_normal((1, 12, 2, 64))
    yl = apply(xl, positions(config("ltx", num_attention_heads=2), (3, 2, 2)), config("ltx", num_attention_heads=2))
    check("ltx: the padding pair (channels 0, 1) untouched", np.array_equal(yl[..., 0, :2], xl[..., 0, :2]))
    norms = []
    for mm in MODELS:
        cc = config(mm)
        pp = positions(cc, (1, 4, 6) if mm in ("flux", "flux2", "qwenimage") else (2, 4, 6))
        xx = rng.standard_normal((1, len(pp), 1, head_dim(cc)))
        norms.append(float(np.abs(np.linalg.norm(apply(xx, pp, cc), axis=-1) - np.linalg.norm(xx, axis=-1)).max()))
    check("every model: the float64 reference keeps each token's norm", max(norms) <= 1e-12, f"{max(norms):.1e}")
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all checks passed")
    return 0


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        return self_test()
    if len(sys.argv) != 2:
        print("usage: diffusers_rope.py OUT_DIR | --self-test", file=sys.stderr)
        return 2
    write_dumps(sys.argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
