#!/usr/bin/python3
"""NumPy port of LTX-2's video RoPE (issue 93), written from the diffusers source at commit
58eb52c0803ea9af3abec60841c2a093bdf1f951 (huggingface/diffusers, read with `git show`), never from rope's C++ code in
src/. Paths are under src/diffusers/ of that commit; line numbers are that commit's.

    models/transformers/transformer_ltx2.py
        apply_interleaved_rotary_emb (38-43): x [B, S, C] in pairs (2i, 2i + 1), x * cos + rotated * sin in float32.
        apply_split_rotary_emb (46-82): x [B, S, H * D] viewed [B, H, S, D], each head's channels (k, k + D/2) a
            pair (rotate_half inside the head), cos and sin [B, H, S, D/2] that head's slice of the table.
        LTX2AttnProcessor (193-197): the rotation on the [B, S, H * D] query before it is split into heads.
        LTX2AudioVideoRotaryPosEmbed.prepare_video_coords (873-941): each patch's [start, end) in latent units
            (index * patch), times the VAE factors (8, 32, 32) in float32; t + causal_offset - 8 clamped at 0, then
            / fps (seconds).
        LTX2AudioVideoRotaryPosEmbed.forward (1003-1078): the midpoint / (pos_embed_max_pos, base_height,
            base_width) = g; F = dim // 6 frequencies theta ** linspace(0, 1, F) in float64 (rope_double_precision)
            times pi / 2, cast to float32; angle (2 g - 1) * freq in float32, [.., 3, F] transposed: index 3 k + a;
            "interleaved": cos/sin repeat-interleaved over dim, dim % 6 channels cos 1 / sin 0 first; "split":
            dim/2 - 3 F pairs cos 1 / sin 0 first, then reshaped (heads, dim / (2 heads)): head h takes pairs
            h * D/2 ... h * D/2 + D/2 - 1.
        LTX2AudioVideoRotaryPosEmbed.prepare_audio_coords (943-995): audio latent frame f (step patch_size_t) spans
            the mel frames [f * s + causal_offset - s, (f + patch_size_t) * s + causal_offset - s] clamped at 0
            (s = scale_factors[0] = audio_scale_factor), * hop_length / sampling_rate: seconds, in float32.
        forward with modality "audio" (1003-1075): num_pos_dims = 1, so F = dim // 2 frequencies over the one axis
            t, g = midpoint / base_num_frames (= audio_pos_embed_max_pos), no padding.
        LTX2VideoTransformer3DModel.__init__ (1139-1187 defaults: 32 heads x 128, rope_theta 10000, rope_type
            "interleaved", pos_embed_max_pos 20, base 2048 x 2048, vae_scale_factors (8, 32, 32), causal_offset 1;
            audio 32 heads x 64, audio_scale_factor 4, audio_pos_embed_max_pos 20, audio_sampling_rate 16000,
            audio_hop_length 160, audio_patch_size_t 1; the rope at 1263-1276 with dim = inner_dim, the audio_rope at
            1278-1292 with dim = audio_inner_dim, the same theta, rope_type and causal_offset).
        LTX2VideoTransformer3DModel.forward (1495-1501): audio_coords = audio_rope.prepare_audio_coords(batch,
            audio_num_frames) unless the pipeline passes them; pipeline_ltx2.py:1372-1374 passes the same call.
    pipelines/ltx2/pipeline_ltx2.py (937: frame_rate 24.0; 1369-1371: prepare_video_coords(..., fps=frame_rate)).
    scripts/convert_ltx2_to_diffusers.py get_ltx2_transformer_config (299-445): Lightricks/LTX-2, LTX-2.3 and
        LTX-2.5 with 32 x 128, rope_type "split", rope_theta 10000, the defaults above.

API:
    config(**overrides)          the class defaults overridden by config.json keys
    positions(cfg, latent, fps)  [n, 3] float64: 2 g - 1 per axis, the numbers the frequencies multiply
    pair_table(cfg)              per pair (dim/2): axis (-1 padding), omega (float64)
    apply(x, pos, cfg)           float64 reference on x [B, S, H * D]
    source_apply(x, cfg, latent, fps, mistake=None)
                                 the diffusers computation in its float32 steps on x [B, S, H * D]
    audio_positions(cfg, frames) [n, 1] float64: the audio tokens' 2 g - 1
    audio_apply(x, pos, cfg)     float64 reference of the audio stream on x [B, S, audio heads * audio D]
    source_apply_audio(x, cfg, frames, mistake=None)
                                 the audio stream's diffusers computation in its float32 steps
    write_dumps(out)             the dumps and OUT/manifest.json (python3 ltx2_rope.py OUT)
    self_test()                  the port against torch transcriptions of the source functions (--self-test)
"""

import json
import math
import os
import sys

import numpy as np

F32 = np.float32
COMMIT = "58eb52c0803ea9af3abec60841c2a093bdf1f951"
CLASS_NAME = "LTX2VideoTransformer3DModel"

DEFAULTS = dict(num_attention_heads=32, attention_head_dim=128, rope_theta=10000.0, rope_type="interleaved",
                pos_embed_max_pos=20, base_height=2048, base_width=2048, vae_scale_factors=[8, 32, 32],
                causal_offset=1, patch_size=1, patch_size_t=1, audio_num_attention_heads=32,
                audio_attention_head_dim=64, audio_scale_factor=4, audio_pos_embed_max_pos=20,
                audio_sampling_rate=16000, audio_hop_length=160, audio_patch_size_t=1)


def config(**overrides):
    cfg = dict(DEFAULTS)
    cfg.update(overrides)
    return cfg


def diffusers_config(cfg):
    return dict(_class_name=CLASS_NAME, _diffusers_version="0.37.0.dev0", **cfg)


def inner_dim(cfg):
    return cfg["num_attention_heads"] * cfg["attention_head_dim"]


def _torch_linspace_f64(steps):
    """torch.linspace(0, 1, steps) in float64: start + step * i below the halfway point, end - step * (steps - 1 - i)
    from it (aten/src/ATen/native/cpu/RangeFactoriesKernel.cpp)."""
    if steps == 1:
        return np.zeros(1)
    step = 1.0 / (steps - 1)
    half = steps // 2
    i = np.arange(steps, dtype=np.float64)
    return np.where(i < half, step * i, 1.0 - step * (steps - 1 - i))


def token_grid(cfg, latent):
    f, h, w = latent
    return f // cfg["patch_size_t"], h // cfg["patch_size"], w // cfg["patch_size"]


def _grid(f, h, w):
    ff, hh, ww = np.meshgrid(np.arange(f), np.arange(h), np.arange(w), indexing="ij")
    return np.stack([ff.ravel(), hh.ravel(), ww.ravel()], axis=-1)


def _bounds(cfg, latent, fps, dtype):
    """prepare_video_coords (873-941): [n, 3, 2] start and end per axis, in `dtype` (float32: the source's)."""
    f, h, w = token_grid(cfg, latent)
    patch = np.array([cfg["patch_size_t"], cfg["patch_size"], cfg["patch_size"]], dtype=dtype)
    start = (_grid(f, h, w) * patch).astype(dtype)  # arange(0, n, patch): index * patch
    end = (start + patch).astype(dtype)
    scale = np.array(cfg["vae_scale_factors"], dtype=dtype)
    c = np.stack([start * scale, end * scale], axis=-1).astype(dtype)  # [n, 3, 2]
    t = np.maximum(c[:, 0, :] + dtype(cfg["causal_offset"]) - dtype(cfg["vae_scale_factors"][0]), dtype(0))
    c[:, 0, :] = (t / dtype(fps)).astype(dtype)
    return c


def positions(cfg, latent, fps=24.0, mapped=True):
    """The numbers the frequencies multiply, float64: 2 g - 1 (mapped=False: g itself)."""
    c = _bounds(cfg, latent, fps, np.float64)
    mid = (c[..., 0] + c[..., 1]) / 2.0
    g = mid / np.array([cfg["pos_embed_max_pos"], cfg["base_height"], cfg["base_width"]], dtype=np.float64)
    return 2.0 * g - 1.0 if mapped else g


def pair_table(cfg, axes=3):
    """Per pair of the table (dim/2): axis (-1: padding) and omega (float64); axes 1: the audio stream's table over
    audio_view(cfg)."""
    dim = inner_dim(cfg)
    n = dim // (2 * axes)
    pad = dim // 2 - axes * n  # = (dim % 6) / 2 for both rope_types; 0 for one axis
    omega = cfg["rope_theta"] ** (np.arange(n) / (n - 1)) * math.pi / 2
    axis = np.full(dim // 2, -1)
    theta = np.zeros(dim // 2)
    for k in range(n):
        for a in range(axes):
            axis[pad + axes * k + a] = a
            theta[pad + axes * k + a] = omega[k]
    return axis, theta


def audio_view(cfg):
    """The audio stream's RoPE as a config of its own: audio heads x audio head dim, the video's theta and rope_type
    (transformer_ltx2.py:1278-1292)."""
    view = dict(cfg)
    view.update(num_attention_heads=cfg["audio_num_attention_heads"],
                attention_head_dim=cfg["audio_attention_head_dim"])
    return view


def _audio_bounds(cfg, frames, dtype):
    """prepare_audio_coords (943-995), shift 0: [n, 2] start and end in seconds, in `dtype` (float32: the
    source's)."""
    s = dtype(cfg["audio_scale_factor"])
    pt = cfg["audio_patch_size_t"]
    f = np.arange(0, frames, pt).astype(dtype)
    c = dtype(cfg["causal_offset"])
    start = np.maximum((f * s).astype(dtype) + c - s, dtype(0)).astype(dtype)
    end = np.maximum(((f + dtype(pt)).astype(dtype) * s).astype(dtype) + c - s, dtype(0)).astype(dtype)
    hop, rate = dtype(cfg["audio_hop_length"]), dtype(cfg["audio_sampling_rate"])
    start_s = ((start * hop).astype(dtype) / rate).astype(dtype)
    end_s = ((end * hop).astype(dtype) / rate).astype(dtype)
    return np.stack([start_s, end_s], axis=-1)


def audio_positions(cfg, frames, mapped=True):
    """The numbers the audio frequencies multiply, float64 [n, 1]: 2 g - 1 (mapped=False: g itself)."""
    b = _audio_bounds(cfg, frames, np.float64)
    g = (b[:, 0] + b[:, 1]) / 2.0 / cfg["audio_pos_embed_max_pos"]
    return (2.0 * g - 1.0 if mapped else g)[:, None]


def audio_apply(x, pos, cfg):
    """float64 reference of the audio stream: x [B, S, audio heads * audio D], pos [S, 1]."""
    return apply(x, pos, audio_view(cfg), axes=1)


def channels(cfg, p):
    """The channels of table pair p: (2p, 2p + 1) interleaved; split: head h = p // (D/2), (h D + k, h D + k + D/2)."""
    if cfg["rope_type"] == "interleaved":
        return 2 * p, 2 * p + 1
    d = cfg["attention_head_dim"]
    h, k = divmod(p, d // 2)
    return h * d + k, h * d + k + d // 2


def apply(x, pos, cfg, axes=3):
    """float64 reference: x [B, S, dim], pos [S, axes]."""
    axis, theta = pair_table(cfg, axes)
    y = np.array(x, dtype=np.float64)
    xs = np.asarray(x, dtype=np.float64)
    for p in range(len(axis)):
        if axis[p] < 0:
            continue
        ang = theta[p] * pos[:, axis[p]]
        a, b = channels(cfg, p)
        c, s = np.cos(ang)[None, :], np.sin(ang)[None, :]
        y[..., a] = xs[..., a] * c - xs[..., b] * s
        y[..., b] = xs[..., b] * c + xs[..., a] * s
    return y


def _tables(cfg, latent, fps, mistake=None):
    """forward (1003-1078) in float32: cos, sin as the processor receives them ([1, S, dim] interleaved; [1, H, S,
    D/2] split). mistake "g": the angles take g, not 2 g - 1."""
    c = _bounds(cfg, latent, fps, F32)
    mid = ((c[..., 0] + c[..., 1]) / F32(2.0)).astype(F32)
    base = np.array([cfg["pos_embed_max_pos"], cfg["base_height"], cfg["base_width"]], dtype=F32)
    grid = (mid / base).astype(F32)  # [S, 3]
    return _tables_of(cfg, grid, mistake)


def _tables_of(cfg, grid, mistake=None, elems=None):
    """forward (1009-1075) from g ([S, num_pos_dims], float32): F = dim // elems frequencies, elems = num_pos_dims * 2
    (the mistake "video_table": 6, the video's, for a one-axis grid)."""
    elems = elems or 2 * grid.shape[1]
    dim = inner_dim(cfg)
    n = dim // elems
    freqs = (cfg["rope_theta"] ** _torch_linspace_f64(n) * math.pi / 2.0).astype(F32)
    m = grid if mistake == "g" else (grid * F32(2) - F32(1)).astype(F32)
    ang = (m[:, :, None] * freqs[None, None, :]).astype(F32)  # [S, axes, F]
    ang = np.swapaxes(ang, -1, -2).reshape(len(m), -1)  # [S, axes F], index axes k + a
    cos, sin = np.cos(ang).astype(F32), np.sin(ang).astype(F32)
    if cfg["rope_type"] == "interleaved":
        cos, sin = np.repeat(cos, 2, axis=-1), np.repeat(sin, 2, axis=-1)
        pad = dim % elems
        cos = np.concatenate([np.ones((len(m), pad), F32), cos], axis=-1)
        sin = np.concatenate([np.zeros((len(m), pad), F32), sin], axis=-1)
        return cos[None], sin[None]
    pad = dim // 2 - ang.shape[-1]
    cos = np.concatenate([np.ones((len(m), pad), F32), cos], axis=-1)
    sin = np.concatenate([np.zeros((len(m), pad), F32), sin], axis=-1)
    h = cfg["num_attention_heads"]
    cos = np.swapaxes(cos.reshape(1, len(m), h, -1), 1, 2)  # (B, H, T, D/2)
    sin = np.swapaxes(sin.reshape(1, len(m), h, -1), 1, 2)
    if mistake == "first_slice":  # every head given head 0's slice
        cos = np.repeat(cos[:, :1], h, axis=1)
        sin = np.repeat(sin[:, :1], h, axis=1)
    return cos, sin


def _audio_tables(cfg, frames, mistake=None):
    """forward (1003-1075) with modality "audio" in float32 over audio_view(cfg). mistake "video_table": F = dim // 6
    frequencies, the video's count (num_rope_elems fixed at 6), dim/2 - F pairs padded first (split)."""
    b = _audio_bounds(cfg, frames, F32)
    mid = ((b[:, 0] + b[:, 1]) / F32(2.0)).astype(F32)
    grid = (mid / F32(cfg["audio_pos_embed_max_pos"])).astype(F32)[:, None]  # [S, 1]
    return _tables_of(audio_view(cfg), grid, mistake, 6 if mistake == "video_table" else None)


def source_apply_audio(x, cfg, frames, mistake=None):
    """The audio processor's rotation of x [B, S, audio heads * audio D] (float32 in, float32 out)."""
    return _rotate(x, audio_view(cfg), *_audio_tables(cfg, frames, mistake))


def source_apply(x, cfg, latent, fps=24.0, mistake=None):
    """The processor's rotation of x [B, S, H * D] (float32 in, float32 out)."""
    return _rotate(x, cfg, *_tables(cfg, latent, fps, mistake))


def _rotate(x, cfg, cos, sin):
    """apply_interleaved_rotary_emb (38-43) or apply_split_rotary_emb (46-82) by cfg's rope_type."""
    x = np.asarray(x, dtype=F32)
    if cfg["rope_type"] == "interleaved":
        re, im = x[..., 0::2], x[..., 1::2]
        rot = np.stack([-im, re], axis=-1).reshape(x.shape)
        return (x * cos + rot * sin).astype(F32)
    b, t, _ = x.shape
    h = cos.shape[1]
    xh = np.swapaxes(x.reshape(b, t, h, -1), 1, 2)  # (b, h, t, D)
    r = xh.shape[-1] // 2
    first, second = xh[..., :r], xh[..., r:]
    out_first = (first * cos - sin * second).astype(F32)
    out_second = (second * cos + sin * first).astype(F32)
    out = np.concatenate([out_first, out_second], axis=-1)
    return np.swapaxes(out, 1, 2).reshape(b, t, -1).astype(F32)


def bf16_round(a):
    a = np.ascontiguousarray(a, dtype=F32)
    u = a.view(np.uint32).astype(np.uint64)
    u = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16
    return u.astype(np.uint32).view(F32)


# The dumps: 4 heads x 32 (inner 128: 21 frequencies per axis, one padding pair), a latent of 3 x 2 x 3, 24 fps; the
# audio stream 4 heads x 32 (64 frequencies over t), 7 audio latent frames.
SMALL = dict(num_attention_heads=4, attention_head_dim=32, audio_num_attention_heads=4, audio_attention_head_dim=32)
LATENT = (3, 2, 3)
AUDIO_FRAMES = 7


def _fmt(v):
    v = float(v)
    if v == int(v) and abs(v) < 2 ** 53:
        return str(int(v))
    return repr(v)


def write_dumps(out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(93)
    cases = []

    def save(name, cfg, layout, y_of, dtype, exit, variant=None, note=None, fps=24.0, audio=False):
        if audio:
            pos, view = audio_positions(cfg, AUDIO_FRAMES), audio_view(cfg)
        else:
            pos, view = positions(cfg, LATENT, fps), cfg
        dim = inner_dim(view)
        h, d = view["num_attention_heads"], view["attention_head_dim"]
        x = rng.standard_normal((1, len(pos), dim)).astype(F32)
        if dtype == "bf16":
            x = bf16_round(x)
        y = y_of(x)
        if dtype == "bf16":
            y = bf16_round(y)
        ref = audio_apply(x, pos, cfg) if audio else apply(x, pos, cfg)
        err = float(np.abs(y.astype(np.float64) - ref).max())
        ddir = os.path.join(out, name)
        os.makedirs(ddir, exist_ok=True)
        if layout == "flat":  # [batch, seq, 1, heads * d]: the processor's [B, S, inner_dim]
            xs, ys, axes = x.reshape(1, -1, 1, dim), y.reshape(1, -1, 1, dim), "batch,seq,heads,d"
        elif layout == "bshd":  # query.unflatten(2, (heads, -1)) (transformer_ltx2.py:200-202)
            xs, ys, axes = x.reshape(1, -1, h, d), y.reshape(1, -1, h, d), "batch,seq,heads,d"
        else:  # bhsd: the attention's view, heads first
            xs = np.swapaxes(x.reshape(1, -1, h, d), 1, 2)
            ys = np.swapaxes(y.reshape(1, -1, h, d), 1, 2)
            axes = "batch,heads,seq,d"
        np.save(os.path.join(ddir, "q.npy"), np.ascontiguousarray(xs))
        np.save(os.path.join(ddir, "q_rope.npy"), np.ascontiguousarray(ys))
        with open(os.path.join(ddir, "positions.csv"), "w") as fh:
            fh.write("t\n" if audio else "t,h,w\n")
            for row in pos:
                fh.write(",".join(_fmt(v) for v in row) + "\n")
        with open(os.path.join(ddir, "config.json"), "w") as fh:
            json.dump(diffusers_config(cfg), fh, indent=1)
        args = ["--config", os.path.join(ddir, "config.json"), "--before", os.path.join(ddir, "q.npy"), "--after",
                os.path.join(ddir, "q_rope.npy"), "--axis-positions", os.path.join(ddir, "positions.csv"), "--axes",
                axes]
        args += ["--dtype", "bf16"] if dtype == "bf16" else []
        args += ["--tower", "audio"] if audio else []
        stream = dict(audio_frames=AUDIO_FRAMES) if audio else dict(latent_shape=list(LATENT), fps=fps)
        # What rope identify must read of a correct dump, whole or in heads (the heads side by side, identify's
        # heads_together the dump's head count): the table's base (rope_theta) and its pairing, each head its own slice
        # (split: the head count) or pairs over the whole vector.
        truth = dict(grid_base=cfg["rope_theta"], grid_heads=h if cfg["rope_type"] == "split" else 0) if exit == 0 \
            else None
        if truth is not None and layout != "flat":
            truth["heads_together"] = h
        cases.append(dict(name=name, dir=name, rope_type=cfg["rope_type"], layout=layout, dtype=dtype,
                          shape=list(xs.shape), **stream, exit=exit, matches=variant, note=note, args=args,
                          max_err_vs_float64=err, identify=truth))
        return cases[-1]

    split = config(rope_type="split", **SMALL)
    inter = config(rope_type="interleaved", **SMALL)
    for layout in ("flat", "bshd", "bhsd"):
        save(f"ltx2_split_f32_{layout}", split, layout, lambda x: source_apply(x, split, LATENT), "f32", 0)
    save("ltx2_split_bf16_bshd", split, "bshd", lambda x: source_apply(x, split, LATENT), "bf16", 0)
    save("ltx2_interleaved_f32_flat", inter, "flat", lambda x: source_apply(x, inter, LATENT), "f32", 0)
    save("ltx2_interleaved_f32_bhsd", inter, "bhsd", lambda x: source_apply(x, inter, LATENT), "f32", 0)
    save("ltx2_split_fps25_f32_bshd", split, "bshd", lambda x: source_apply(x, split, LATENT, 25.0), "f32", 0,
         fps=25.0)
    # The planted mistakes: the dump computed wrongly, config.json and positions.csv the truth.
    save("mistake_ltx2_heads_first_slice_f32", split, "bshd",
         lambda x: source_apply(x, split, LATENT, mistake="first_slice"), "f32", 1, variant="heads-first-slice",
         note="every head turned by head 0's slice of the split table (a table built for one head)")
    save("mistake_ltx2_positions_g_f32", split, "bshd", lambda x: source_apply(x, split, LATENT, mistake="g"),
         "f32", 1, variant="positions-unmapped", note="the angles take g = midpoint / base, not 2 g - 1")
    # The audio stream (--tower audio): its tokens' one axis t in seconds.
    for layout in ("flat", "bshd"):
        save(f"ltx2_audio_split_f32_{layout}", split, layout, lambda x: source_apply_audio(x, split, AUDIO_FRAMES),
             "f32", 0, audio=True)
    save("ltx2_audio_split_bf16_bhsd", split, "bhsd", lambda x: source_apply_audio(x, split, AUDIO_FRAMES), "bf16",
         0, audio=True)
    save("ltx2_audio_interleaved_f32_flat", inter, "flat", lambda x: source_apply_audio(x, inter, AUDIO_FRAMES),
         "f32", 0, audio=True)
    save("mistake_ltx2_audio_video_table_f32", split, "bshd",
         lambda x: source_apply_audio(x, split, AUDIO_FRAMES, mistake="video_table"), "f32", 1,
         variant="audio-video-table", audio=True,
         note="the audio turned by dim // 6 frequencies (num_rope_elems fixed at the video's 6), the rest padded")[
        "identify"] = dict(grid_widths=[2 * (inner_dim(audio_view(split)) // 6)], grid_heads=4)
    # The released checkpoints' size (32 heads x 128, scripts/convert_ltx2_to_diffusers.py:299-345), last so that
    # the dumps before it keep their inputs: check and identify read the 4096-wide table, identify naming the preset.
    full = config(rope_type="split")
    save("ltx2_split_full_f32_flat", full, "flat", lambda x: source_apply(x, full, LATENT), "f32", 0)[
        "identify"].update(grid_families=["LTX-2"])
    with open(os.path.join(out, "manifest.json"), "w") as fh:
        json.dump(dict(source=f"huggingface/diffusers@{COMMIT}", script="tests/reference/ltx2_rope.py", cases=cases),
                  fh, indent=1)
    return cases


# ---------------------------------------------------------------------------------------------------------------
# Self-test: the port against torch transcriptions of the source's functions (Debian's torch).

DIFFUSERS_GIT = os.environ.get("DIFFUSERS_GIT", "/work/.mirror/huggingface+diffusers/repo")


def _source_module():
    """transformer_ltx2.py's two apply functions and its RoPE class, executed from the source at COMMIT with torch
    (the rest of the file, which imports diffusers, left out); None without the mirror."""
    import ast
    import subprocess

    import torch
    try:
        text = subprocess.run(["git", "--git-dir", DIFFUSERS_GIT, "show",
                               f"{COMMIT}:src/diffusers/models/transformers/transformer_ltx2.py"],
                              check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    tree = ast.parse(text)
    keep = [n for n in tree.body if getattr(n, "name", None) in
            ("apply_interleaved_rotary_emb", "apply_split_rotary_emb", "LTX2AudioVideoRotaryPosEmbed")]
    ns = {"torch": torch, "nn": torch.nn}
    exec(compile(ast.Module(body=keep, type_ignores=[]), "transformer_ltx2.py", "exec"), ns)
    return ns


def self_test():
    import torch

    failures = []

    def check(what, ok, detail=""):
        print(("ok   " if ok else "FAIL ") + what + (f" ({detail})" if detail else ""))
        if not ok:
            failures.append(what)

    def t_video_coords(cfg, nf, h, w, fps):  # transformer_ltx2.py:901-941
        grid_f = torch.arange(0, nf, cfg["patch_size_t"], dtype=torch.float32)
        grid_h = torch.arange(0, h, cfg["patch_size"], dtype=torch.float32)
        grid_w = torch.arange(0, w, cfg["patch_size"], dtype=torch.float32)
        grid = torch.stack(torch.meshgrid(grid_f, grid_h, grid_w, indexing="ij"), dim=0)
        ps = torch.tensor((cfg["patch_size_t"], cfg["patch_size"], cfg["patch_size"]), dtype=grid.dtype)
        ends = grid + ps.view(3, 1, 1, 1)
        lc = torch.stack([grid, ends], dim=-1).flatten(1, 3).unsqueeze(0)
        sc = torch.tensor(cfg["vae_scale_factors"])
        pc = lc * sc.view(1, -1, 1, 1)
        sf0 = cfg["vae_scale_factors"][0]
        pc[:, 0, ...] = (pc[:, 0, ...] + cfg["causal_offset"] - sf0).clamp(min=0)
        pc[:, 0, ...] = pc[:, 0, ...] / fps
        return pc

    def t_forward(cfg, coords):  # transformer_ltx2.py:1003-1078
        dim = inner_dim(cfg)
        start, end = coords.chunk(2, dim=-1)
        coords = ((start + end) / 2.0).squeeze(-1)
        mx = (cfg["pos_embed_max_pos"], cfg["base_height"], cfg["base_width"])
        grid = torch.stack([coords[:, i] / mx[i] for i in range(3)], dim=-1)
        pw = torch.pow(cfg["rope_theta"], torch.linspace(0.0, 1.0, steps=dim // 6, dtype=torch.float64))
        freqs = (pw * torch.pi / 2.0).to(torch.float32)
        freqs = (grid.unsqueeze(-1) * 2 - 1) * freqs
        freqs = freqs.transpose(-1, -2).flatten(2)
        if cfg["rope_type"] == "interleaved":
            cf, sf = freqs.cos().repeat_interleave(2, dim=-1), freqs.sin().repeat_interleave(2, dim=-1)
            if dim % 6:
                cf = torch.cat([torch.ones_like(cf[:, :, : dim % 6]), cf], dim=-1)
                sf = torch.cat([torch.zeros_like(cf[:, :, : dim % 6]), sf], dim=-1)
            return cf, sf
        pad = dim // 2 - freqs.shape[-1]
        cf, sf = freqs.cos(), freqs.sin()
        if pad:
            cf = torch.cat([torch.ones_like(cf[:, :, :pad]), cf], dim=-1)
            sf = torch.cat([torch.zeros_like(sf[:, :, :pad]), sf], dim=-1)
        b, t = cf.shape[0], cf.shape[1]
        h = cfg["num_attention_heads"]
        return (torch.swapaxes(cf.reshape(b, t, h, -1), 1, 2), torch.swapaxes(sf.reshape(b, t, h, -1), 1, 2))

    def t_interleaved(x, cos, sin):  # 38-43
        xr, xi = x.unflatten(2, (-1, 2)).unbind(-1)
        rot = torch.stack([-xi, xr], dim=-1).flatten(2)
        return (x.float() * cos + rot.float() * sin).to(x.dtype)

    def t_split(x, cos, sin):  # 46-82
        b, h, t, _ = cos.shape
        x = x.reshape(b, t, h, -1).swapaxes(1, 2)
        last = x.shape[-1]
        r = last // 2
        sx = x.reshape(*x.shape[:-1], 2, r).float()
        fx, sx2 = sx[..., :1, :], sx[..., 1:, :]
        cu, su = cos.unsqueeze(-2), sin.unsqueeze(-2)
        out = sx * cu
        fo, so = out[..., :1, :], out[..., 1:, :]
        fo.addcmul_(-su, sx2)
        so.addcmul_(su, fx)
        out = out.reshape(*out.shape[:-2], last)
        return out.swapaxes(1, 2).reshape(b, t, -1)

    rng = np.random.default_rng(1)
    for rope_type in ("split", "interleaved"):
        for heads, d in ((4, 32), (32, 128), (2, 64)):
            cfg = config(rope_type=rope_type, num_attention_heads=heads, attention_head_dim=d)
            for fps in (24.0, 25.0):
                lat = (3, 4, 5)
                x = rng.standard_normal((1, 60, heads * d)).astype(F32)
                cos, sin = t_forward(cfg, t_video_coords(cfg, *lat, fps))
                fn = t_split if rope_type == "split" else t_interleaved
                yt = fn(torch.from_numpy(x), cos, sin).numpy()
                yp = source_apply(x, cfg, lat, fps)
                err = float(np.abs(yt - yp).max())
                check(f"{rope_type} {heads}x{d} fps {fps:g}: port = torch transcription", err <= 1e-6, f"{err:.2e}")
                ref = apply(x, positions(cfg, lat, fps), cfg)
                e64 = float(np.abs(ref - yt).max())
                # float32 angles of up to pi/2 * 1e4 rad: an ulp of the angle is ~1e-3 rad
                check(f"{rope_type} {heads}x{d} fps {fps:g}: float64 reference within 5e-3", e64 <= 5e-3, f"{e64:.2e}")
    # The source's own functions, where the diffusers mirror is here: apply_interleaved_rotary_emb,
    # apply_split_rotary_emb and LTX2AudioVideoRotaryPosEmbed taken from transformer_ltx2.py at COMMIT by `git show`
    # and run as they are.
    src = _source_module()
    if src is None:
        print("skip the source's own module: no diffusers mirror at DIFFUSERS_GIT")
    else:
        for rope_type in ("split", "interleaved"):
            cfg = config(rope_type=rope_type, num_attention_heads=4, attention_head_dim=32)
            rope = src["LTX2AudioVideoRotaryPosEmbed"](dim=inner_dim(cfg), rope_type=rope_type,
                                                       num_attention_heads=4, modality="video")
            lat = (3, 2, 3)
            coords = rope.prepare_video_coords(1, *lat, device=torch.device("cpu"), fps=24.0)
            cos, sin = rope(coords)
            x = rng.standard_normal((1, 18, inner_dim(cfg))).astype(F32)
            fn = src["apply_split_rotary_emb" if rope_type == "split" else "apply_interleaved_rotary_emb"]
            y = fn(torch.from_numpy(x), (cos, sin)).numpy()
            err = float(np.abs(y - source_apply(x, cfg, lat)).max())
            check(f"{rope_type} 4x32: port = the source's own module", err <= 1e-6, f"{err:.2e}")
    # The audio stream: the port against the source's own class with modality "audio", as the transformer builds
    # its audio_rope (1278-1292).
    if src is not None:
        for rope_type, heads, d, frames in (("split", 4, 32, 7), ("interleaved", 4, 32, 7), ("split", 32, 64, 126)):
            cfg = config(rope_type=rope_type, audio_num_attention_heads=heads, audio_attention_head_dim=d)
            rope = src["LTX2AudioVideoRotaryPosEmbed"](
                dim=heads * d, patch_size=1, patch_size_t=cfg["audio_patch_size_t"],
                base_num_frames=cfg["audio_pos_embed_max_pos"], sampling_rate=cfg["audio_sampling_rate"],
                hop_length=cfg["audio_hop_length"], scale_factors=[cfg["audio_scale_factor"]],
                theta=cfg["rope_theta"], causal_offset=cfg["causal_offset"], modality="audio",
                rope_type=rope_type, num_attention_heads=heads)
            coords = rope.prepare_audio_coords(1, frames, torch.device("cpu"))
            mid = coords.numpy()[0, 0].mean(axis=-1)
            e_pos = float(np.abs(2 * mid / cfg["audio_pos_embed_max_pos"] - 1 - audio_positions(cfg, frames)[:, 0]).max())
            check(f"audio {rope_type} {heads}x{d}: positions = the source's coords", e_pos <= 1e-6, f"{e_pos:.2e}")
            cos, sin = rope(coords)
            x = rng.standard_normal((1, frames, heads * d)).astype(F32)
            fn = src["apply_split_rotary_emb" if rope_type == "split" else "apply_interleaved_rotary_emb"]
            y = fn(torch.from_numpy(x), (cos, sin)).numpy()
            err = float(np.abs(y - source_apply_audio(x, cfg, frames)).max())
            check(f"audio {rope_type} {heads}x{d}: port = the source's own module", err <= 1e-6, f"{err:.2e}")
            e64 = float(np.abs(audio_apply(x, audio_positions(cfg, frames), cfg) - y).max())
            check(f"audio {rope_type} {heads}x{d}: float64 reference within 5e-3", e64 <= 5e-3, f"{e64:.2e}")
    cfg = config()
    p = audio_positions(cfg, 3)
    check("audio frame 0: mel [0, 1] -> 0.005 s / 20", abs(p[0, 0] - (2 * (0.005 / 20) - 1)) < 1e-15)
    check("audio frame 2: mel [5, 9] -> 0.07 s / 20", abs(p[2, 0] - (2 * (0.07 / 20) - 1)) < 1e-15)
    axis, theta = pair_table(audio_view(cfg), axes=1)
    check("audio 32 x 64: 1024 frequencies over t, no padding", len(axis) == 1024 and (axis == 0).all())
    cfg = config(rope_type="split", num_attention_heads=32, attention_head_dim=128)
    axis, theta = pair_table(cfg)
    check("32 x 128: 2 padding pairs, 682 frequencies x 3 axes", (axis[:2] == -1).all() and (axis[2:5] == [0, 1, 2]).all()
          and len(axis) == 2048, "")
    p = positions(cfg, (2, 1, 1), 24.0)
    check("the first frame's t midpoint: (0 + 1) / 2 / 24 / 20 -> 2 g - 1", abs(p[0, 0] - (2 * (0.5 / 24 / 20) - 1)) < 1e-15)
    check("the second frame's t midpoint: (1 + 9) / 2 / 24 / 20", abs(p[1, 0] - (2 * (5 / 24 / 20) - 1)) < 1e-15)
    check("a row's midpoint 16 / 2048", abs(p[0, 1] - (2 * (16 / 2048) - 1)) < 1e-15)
    return 1 if failures else 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--self-test":
        sys.exit(self_test())
    out = sys.argv[1] if len(sys.argv) > 1 else "ltx2_dumps"
    cases = write_dumps(out)
    print(f"{len(cases)} dumps in {out}")


if __name__ == "__main__":
    main()
