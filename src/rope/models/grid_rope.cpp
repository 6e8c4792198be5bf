#include "rope/models/grid_rope.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include "rope/core/constants.hpp"

#include "rope/core/error.hpp"
#include "rope/core/message_context.hpp"

// Every rule here cites huggingface/diffusers at 58eb52c0803ea9af3abec60841c2a093bdf1f951 (grid_rope.hpp).

namespace rope {

namespace {

struct ClassRow {
  GridModel model;
  std::string_view class_name;
  std::string_view display;
};

constexpr std::array<ClassRow, 12> kClasses{{
    {GridModel::Wan, "WanTransformer3DModel", "Wan 2.x"},
    {GridModel::Flux, "FluxTransformer2DModel", "Flux.1"},
    {GridModel::Flux2, "Flux2Transformer2DModel", "Flux.2"},
    {GridModel::QwenImage, "QwenImageTransformer2DModel", "Qwen-Image"},
    {GridModel::HunyuanVideo, "HunyuanVideoTransformer3DModel", "HunyuanVideo"},
    {GridModel::Ltx, "LTXVideoTransformer3DModel", "LTX-Video"},
    {GridModel::Cosmos, "CosmosTransformer3DModel", "Cosmos-Predict2"},
    {GridModel::Cosmos3, "Cosmos3OmniTransformer", "Cosmos 3"},
    {GridModel::ZImage, "ZImageTransformer2DModel", "Z-Image"},
    {GridModel::HunyuanVideo15, "HunyuanVideo15Transformer3DModel", "HunyuanVideo 1.5"},
    {GridModel::Kandinsky5, "Kandinsky5Transformer3DModel", "Kandinsky 5"},
    {GridModel::Ltx2, "LTX2VideoTransformer3DModel", "LTX-2"},
}};

/// A setting in a sentence: 16000, 0.01.
std::string shown(double v) { return fmt::format("{:g}", v); }

const ClassRow& row_of(GridModel m) {
  for (const ClassRow& r : kClasses) {
    if (r.model == m) return r;
  }
  return kClasses[0];
}

}  // namespace

std::string_view class_name(GridModel model) { return row_of(model).class_name; }
std::string_view display_name(GridModel model) { return row_of(model).display; }

std::optional<GridModel> grid_model_of_class(std::string_view name) {
  for (const ClassRow& r : kClasses) {
    if (r.class_name == name) return r.model;
  }
  return std::nullopt;
}

Eigen::VectorXd grid_theta(const GridRope& g) {
  const int pairs = g.head_dim / 2;
  if (g.head_dim < 2 || g.head_dim % 2 != 0 || g.head_dim > kMaxDim) {
    throw InvalidArgument(error_msg("{0}: the rotated dimension {1} must be even and between 2 and {2}",
                                    class_name(g.model), g.head_dim, kMaxDim));
  }
  Eigen::VectorXd theta = Eigen::VectorXd::Zero(pairs);
  if (g.order == GridOrder::PerFrequency) {
    // (G4), transformer_ltx.py:255-278: F = dim // 6 frequencies theta ** linspace(log_theta(1), log_theta(theta), F)
    // times π/2, each times (2p − 1) for the axes f, h, w in turn; D mod 6 channels of cos 1, sin 0 first.
    const int axes = static_cast<int>(g.axes.size());
    const int f = g.head_dim / (2 * axes);
    const double base = g.bases.at(0);
    if (f < 2 || !(base > 1)) {
      throw InvalidArgument(
          error_msg("{0}: {1} channels give {2} frequencies per axis, and base {3}: (G4) needs two "
                    "frequencies or more and a base above 1",
                    class_name(g.model), g.head_dim, f, base));
    }
    for (int k = 0; k < f; ++k) {
      const double omega = kPi / 2 * std::pow(base, static_cast<double>(k) / static_cast<double>(f - 1));
      for (int a = 0; a < axes; ++a) theta[g.padding + axes * k + a] = omega;
    }
    return theta;
  }
  if (g.order == GridOrder::Interleaved) {
    // (G5), transformer_cosmos3.py:130-134: inv_freq = 1 / rope_theta ** (arange(0, d, 2) / d), one ladder.
    const double base = g.bases.at(0);
    if (!(base > 1)) throw InvalidArgument(error_msg("{0}: base {1} must be above 1", class_name(g.model), base));
    for (int j = 0; j < pairs; ++j) theta[j] = std::pow(base, -2.0 * j / static_cast<double>(g.head_dim));
    return theta;
  }
  // (G2), (G3): each axis's own ladder base_a^(−2i/d_a) (diffusers get_1d_rotary_pos_embed), blocks in axis order.
  int at = g.padding;
  for (std::size_t a = 0; a < g.widths.size(); ++a) {
    const int w = g.widths[a];
    const double base = g.bases.at(a);
    if (w < 0 || w % 2 != 0 || at + w / 2 > pairs) {
      throw InvalidArgument(error_msg("{0}: the axis widths {1} must be even and sum to at most {2} channels",
                                      class_name(g.model), fmt::format("{}", fmt::join(g.widths, ", ")), g.head_dim));
    }
    if (!(base > 1)) throw InvalidArgument(error_msg("{0}: base {1} must be above 1", class_name(g.model), base));
    for (int i = 0; i < w / 2; ++i) {
      theta[at + i] = std::pow(base, -2.0 * i / static_cast<double>(w));
    }
    at += w / 2;
  }
  if (at != pairs) {
    throw InvalidArgument(error_msg("{0}: the axis widths {1} sum to {2} channels, but the head rotates {3}",
                                    class_name(g.model), fmt::format("{}", fmt::join(g.widths, ", ")), 2 * at,
                                    g.head_dim));
  }
  return theta;
}

AxisMap grid_axis_map(const GridRope& g) {
  if (g.order == GridOrder::Interleaved) {
    // (G5): Qwen3-VL's map (A3) itself, transformer_cosmos3.py:136-144 (apply_interleaved_mrope)
    MropeSections s{{}, SectionOrder::Interleaved};
    for (const int w : g.widths) s.sections.push_back(w / 2);
    return make_axis_map(s, g.head_dim / 2);
  }
  AxisMap map;
  map.source.order = SectionOrder::Grid;
  const int axes = static_cast<int>(g.axes.size());
  const int pairs = g.head_dim / 2;
  map.axes = axes;
  map.names = g.axes;
  map.scale = g.scale;
  map.padding = g.padding;
  map.per_frequency = g.order == GridOrder::PerFrequency;
  map.position_offset = g.offset;
  map.pair_axis.assign(static_cast<std::size_t>(pairs), 0);
  if (map.per_frequency) {
    for (int j = g.padding; j < pairs; ++j) map.pair_axis[static_cast<std::size_t>(j)] = (j - g.padding) % axes;
    const int per_axis = (pairs - g.padding) / axes;
    map.source.sections.assign(static_cast<std::size_t>(axes), per_axis);
    return map;
  }
  int at = g.padding;
  for (int a = 0; a < axes && a < static_cast<int>(g.widths.size()); ++a) {
    const int n = g.widths[static_cast<std::size_t>(a)] / 2;
    for (int i = 0; i < n && at < pairs; ++i) map.pair_axis[static_cast<std::size_t>(at++)] = a;
    map.source.sections.push_back(n);
  }
  return map;
}

namespace {

/// (G5): a latent token's ids, pipeline_cosmos3_omni.py get_3d_mrope_ids_vae_tokens (122-170) with the offset of
/// _prepare_text_segment (542-553), L + margin: t = (f / (fps / c)) · (base_fps / c) + offset in float32 (c the VAE's
/// temporal compression, which cancels, each step rounded as the pipeline's float32 tensor rounds it) when the
/// config enables the modulation, fps is given and the latent has more than one frame; else f + offset. h and w
/// from 0 (unified_3d_mrope_reset_spatial_ids), else from the offset too.
std::array<double, kMaxAxes> cosmos3_latent(const GridRope& g, const GridRequest& r, long f, long h, long w, long nf) {
  const long offset = r.text + g.text_margin;
  std::array<double, kMaxAxes> p{static_cast<double>(f + offset), static_cast<double>(h), static_cast<double>(w), 0};
  if (r.fps && g.fps_modulation && nf > 1) {
    // pipeline_cosmos3_omni.py:142-146 with temporal_compression_factor 4 (the pipeline's vae_scale_factor_temporal)
    const float tps = static_cast<float>(*r.fps / 4.0);
    const float base_tps = static_cast<float>(g.base_fps / 4.0);
    const float t = static_cast<float>(f) / tps * base_tps + static_cast<float>(offset);
    p[0] = static_cast<double>(t);
  }
  if (!g.reset_spatial) {
    p[1] += static_cast<double>(offset);
    p[2] += static_cast<double>(offset);
  }
  return p;
}

/// (G6): a video token's position 2g − 1, transformer_ltx2.py prepare_video_coords (873-941) and forward (1003-1024):
/// the patch's [start, end) in latent units (index · patch), times the VAE's factors (8, 32, 32); t shifted by
/// causal_offset − 8 and clamped at 0, then ÷ fps (seconds); the midpoint ÷ (pos_embed_max_pos, base_height,
/// base_width) is g.
std::array<double, kMaxAxes> ltx2_video(const GridRope& g, long f, long h, long w, double fps) {
  const std::array<long, 3> index{f, h, w};
  std::array<double, kMaxAxes> p{};
  for (std::size_t a = 0; a < 3; ++a) {
    const double patch = static_cast<double>(g.patch[a]);
    double start = static_cast<double>(index[a]) * patch * g.ltx_vae[a];
    double end = (static_cast<double>(index[a]) * patch + patch) * g.ltx_vae[a];
    if (a == 0) {
      start = std::max(start + g.causal_offset - g.ltx_vae[0], 0.0) / fps;
      end = std::max(end + g.causal_offset - g.ltx_vae[0], 0.0) / fps;
    }
    p[a] = 2 * ((start + end) / 2 / g.ltx_base[a]) - 1;
  }
  return p;
}

/// (G7): an audio token's position 2g − 1, transformer_ltx2.py prepare_audio_coords (943-995, shift 0 as the pipeline
/// calls it, pipeline_ltx2.py:1372-1374) and forward (1003-1038): latent frame f spans the mel frames
/// [f·pt·s + c − s, (f·pt + pt)·s + c − s], each end clamped at 0, × hop_length / sampling_rate seconds; the
/// midpoint ÷ audio_pos_embed_max_pos is g.
double ltx2_audio(const GridRope& g, long f) {
  const GridRope::Ltx2Audio& a = *g.ltx2_audio;
  const double pt = static_cast<double>(a.patch_t);
  const double start_mel =
      std::max(static_cast<double>(f) * pt * a.scale_factor + g.causal_offset - a.scale_factor, 0.0);
  const double end_mel =
      std::max((static_cast<double>(f) * pt + pt) * a.scale_factor + g.causal_offset - a.scale_factor, 0.0);
  const double mid = (start_mel * a.hop_length / a.sampling_rate + end_mel * a.hop_length / a.sampling_rate) / 2;
  return 2 * (mid / a.max_pos) - 1;
}

long tokens_of(const GridRope& g, const GridRequest& r, std::array<long, 3>& grid) {
  const std::array<long, 3> per{g.patch[0], g.patch[1] * g.pack, g.patch[2] * g.pack};
  static constexpr std::array<const char*, 3> kSide{"F", "H", "W"};
  for (std::size_t k = 0; k < 3; ++k) {
    if (r.latent[k] < 1 || r.latent[k] > kMaxGridTokens) {
      throw InvalidArgument(error_msg("{0}: {1} = {2} must be between 1 and {3}", option_name("latent_shape"), kSide[k],
                                      r.latent[k], kMaxGridTokens));
    }
    if (r.latent[k] % per[k] != 0) {
      throw InvalidArgument(error_msg("{0}: {1} = {2} is not a multiple of {3}, the {4} patch per side ({5})",
                                      option_name("latent_shape"), kSide[k], r.latent[k], per[k], display_name(g.model),
                                      k == 0 ? "patch_size_t" : "patch_size × the pipeline's packing"));
    }
    grid[k] = r.latent[k] / per[k];
  }
  if ((g.model == GridModel::Flux || g.model == GridModel::Flux2) && grid[0] != 1) {
    throw InvalidArgument(error_msg("{0}: {1} is an image model: F must be 1 (got {2})", option_name("latent_shape"),
                                    display_name(g.model), r.latent[0]));
  }
  if (r.text < 0 || r.text > kMaxGridTokens) {
    throw InvalidArgument(
        error_msg("{0} must be between 0 and {1} (got {2})", option_name("text"), kMaxGridTokens, r.text));
  }
  if (r.reference_images < 0 || r.reference_images > 64) {
    throw InvalidArgument(
        error_msg("{0} must be between 0 and {1} (got {2})", option_name("reference_images"), 64, r.reference_images));
  }
  // Every product checked against the limit before it is made (sides of 2^22 multiply past 2^63).
  long total = 1;
  for (const long n : {grid[0], grid[1], grid[2], 1 + r.reference_images}) {
    if (n > kMaxGridTokens / total) {
      throw InvalidArgument(
          error_msg("the latent {0} × {1} × {2} (× {3} images) holds more tokens than the limit of {4}", grid[0],
                    grid[1], grid[2], 1 + r.reference_images, kMaxGridTokens));
    }
    total *= n;
  }
  if (g.seq_multiple > 0) {  // Z-Image: image and caption each padded to a multiple of SEQ_MULTI_OF
    total += (g.seq_multiple - total % g.seq_multiple) % g.seq_multiple;
  }
  const long text = g.seq_multiple > 0 ? r.text + (g.seq_multiple - r.text % g.seq_multiple) % g.seq_multiple : r.text;
  if (total + text > kMaxGridTokens) {
    throw InvalidArgument(error_msg("{0} tokens (latent, text and reference images) exceed the limit of {1}",
                                    total + text, kMaxGridTokens));
  }
  return total + text;
}

/// Z-Image's joint sequence, ZImageTransformer2DModel in basic mode (the ZImagePipeline): patchify_and_embed
/// (transformer_z_image.py:588-623) pads the caption's L tokens to L' = L + (−L mod 32) and numbers all L' from
/// (1, 0, 0) (_pad_with_ids with the padded size, 551-586; the ids past L' are cut at 789); the image's grid from
/// (L' + 1, 0, 0), its padding to a multiple of 32 at (0, 0, 0); _build_unified_sequence (855-859) joins
/// [image, caption].
void z_image_tokens(const GridRope& g, const GridRequest& r, const std::array<long, 3>& grid, GridPositions& out) {
  const long m = g.seq_multiple;
  const long caption = r.text + (m - r.text % m) % m;
  const auto [nf, nh, nw] = grid;
  // RopeEmbedder.__call__ (339-356) gathers each id from a table of axes_lens rows: an id past it has no row.
  const std::array<long, 3> last{caption + nf, nh - 1, nw - 1};
  static constexpr std::array<const char*, 3> kAxis{"t", "h", "w"};
  for (std::size_t a = 0; a < 3; ++a) {
    if (g.table_length[a] > 0 && last[a] >= g.table_length[a]) {
      throw InvalidArgument(
          error_msg("{0}: Z-Image's {1} ids reach {2}, past the {3} rows of its table (axes_lens[{4}], RopeEmbedder)",
                    option_name("latent_shape"), kAxis[a], last[a], g.table_length[a], a));
    }
  }
  for (long f = 0; f < nf; ++f) {
    for (long h = 0; h < nh; ++h) {
      for (long w = 0; w < nw; ++w) {
        out.tokens.push_back(
            GridToken{{static_cast<double>(caption + 1 + f), static_cast<double>(h), static_cast<double>(w), 0}, 0});
      }
    }
  }
  const long image = nf * nh * nw;
  for (long k = 0; k < (m - image % m) % m; ++k) out.tokens.push_back(GridToken{{0, 0, 0, 0}, 3});
  for (long k = 0; k < caption; ++k) {
    out.tokens.push_back(GridToken{{static_cast<double>(1 + k), 0, 0, 0}, k < r.text ? 1 : 3});
  }
  out.notes.push_back(
      msg("the image first, then the caption (Z-Image's [image, caption]), each padded to a multiple of {0}: "
          "caption token k at (1 + k, 0, 0), the image from t = {1}, its padding at (0, 0, 0)",
          m, caption + 1));
}

/// Z-Image's omni mode (G8), as ZImageTransformer2DModel.patchify_and_embed_omni computes the ids
/// (transformer_z_image.py:625-762) and _build_unified_sequence joins them [captions, images, SigLIP] (838-851).
/// Every count and side is checked before a token is made; the ids are then held to the table's rows.
void z_image_omni_tokens(const GridRope& g, const GridRequest& r, GridPositions& out) {
  const long m = g.seq_multiple;
  const auto padded = [m](long n) { return n + (m - n % m) % m; };
  const std::size_t n_cond = r.condition_images.size();
  if (n_cond > 64) {
    throw InvalidArgument(
        error_msg("{0}: at most {1} condition images (got {2})", option_name("condition_image"), 64, n_cond));
  }
  // pipeline_z_image_omni.py:229-236: N condition images take N + 2 prompt segments, segment j before image j; no
  // condition image, one segment.
  if (n_cond == 0 && r.captions.size() != 1) {
    throw InvalidArgument(
        error_msg("{0}: Z-Image's omni pipeline without a condition image takes the prompt as one segment: one {1} "
                  "option (got {2})",
                  option_name("omni"), option_name("text"), r.captions.size()));
  }
  if (n_cond > 0 && r.captions.size() != n_cond + 2) {
    throw InvalidArgument(
        error_msg("{0}: Z-Image's omni pipeline splits the prompt in N + 2 segments for N condition images: {1} "
                  "condition images take {2} {3} options (got {4})",
                  option_name("condition_image"), n_cond, n_cond + 2, option_name("text"), r.captions.size()));
  }
  if (!r.siglip.empty() && r.siglip.size() != n_cond) {
    throw InvalidArgument(error_msg("{0}: one SigLIP grid per condition image: {1} condition images, {2} grids",
                                    option_name("siglip_grid"), n_cond, r.siglip.size()));
  }
  std::vector<std::array<long, 3>> images = r.condition_images;  // the pipeline's conditions, then the target
  images.push_back(r.latent);
  std::vector<std::array<long, 3>> grids;
  long total = 0;
  const auto add = [&total](long n) {
    if (n > kMaxGridTokens - total) {
      throw InvalidArgument(
          error_msg("Z-Image's omni sequence (captions, images and SigLIP tokens) holds more tokens "
                    "than the limit of {0}",
                    kMaxGridTokens));
    }
    total += n;
  };
  for (const long n : r.captions) {
    if (n < 1 || n > kMaxGridTokens) {
      throw InvalidArgument(
          error_msg("{0} must be between 1 and {1} tokens (got {2})", option_name("text"), kMaxGridTokens, n));
    }
    add(padded(n));
  }
  static constexpr std::array<const char*, 3> kSide{"F", "H", "W"};
  for (const auto& lat : images) {
    std::array<long, 3> grid{};
    for (std::size_t k = 0; k < 3; ++k) {
      if (lat[k] < 1 || lat[k] > kMaxGridTokens || lat[k] % g.patch[k] != 0) {
        throw InvalidArgument(
            error_msg("{0}: {1} = {2} must be between 1 and {3} and a multiple of {4}, the "
                      "Z-Image patch per side",
                      option_name("condition_image"), kSide[k], lat[k], kMaxGridTokens, g.patch[k]));
      }
      grid[k] = lat[k] / g.patch[k];
    }
    if (grid[1] > kMaxGridTokens / grid[0] || grid[2] > kMaxGridTokens / (grid[0] * grid[1])) add(kMaxGridTokens + 1);
    add(padded(grid[0] * grid[1] * grid[2]));
    grids.push_back(grid);
  }
  for (const auto& sg : r.siglip) {
    if (sg[0] < 1 || sg[1] < 1 || sg[0] > kMaxGridTokens || sg[1] > kMaxGridTokens / sg[0]) {
      throw InvalidArgument(error_msg("{0}: a SigLIP grid RxC must have R, C ≥ 1 and R × C ≤ {1} (got {2}x{3})",
                                      option_name("siglip_grid"), kMaxGridTokens, sg[0], sg[1]));
    }
    add(padded(sg[0] * sg[1]));
  }
  if (!r.siglip.empty()) add(m);  // the target's SigLIP entry, None: one multiple of padding (pipeline 595)
  out.tokens.reserve(static_cast<std::size_t>(total));
  const auto push = [&out](long t, long h, long w, int kind) {
    out.tokens.push_back(GridToken{{static_cast<double>(t), static_cast<double>(h), static_cast<double>(w), 0}, kind});
  };
  // Captions (625-676): caption j's _pad_with_ids gives its L_j' grid ids from c_j and L_j' − L_j more at (0, 0, 0);
  // the captions' ids are joined and cut at Σ L_j' (784-788), so the surplus shifts every later caption's ids.
  std::vector<long> ids;
  std::vector<long> cap_end;
  long cu = 1;
  for (const long n : r.captions) {
    for (long k = 0; k < padded(n); ++k) ids.push_back(cu + k);
    ids.insert(ids.end(), static_cast<std::size_t>(padded(n) - n), 0);
    cu += n;
    cap_end.push_back(cu);
    cu += 2;  // image j's VAE and SigLIP tokens
  }
  std::size_t next = 0;
  for (const long n : r.captions) {
    for (long k = 0; k < padded(n); ++k) push(ids[next++], 0, 0, k < n ? 1 : 3);
  }
  // Images (678-708): image j's token grid from (c_j + L_j, 0, 0), its padding at (0, 0, 0).
  for (std::size_t j = 0; j < grids.size(); ++j) {
    const auto [nf, nh, nw] = grids[j];
    for (long f = 0; f < nf; ++f)
      for (long h = 0; h < nh; ++h)
        for (long w = 0; w < nw; ++w) push(cap_end[j] + f, h, w, 0);
    for (long k = padded(nf * nh * nw) - nf * nh * nw; k > 0; --k) push(0, 0, 0, 3);
  }
  // SigLIP (710-749): grid (1, R, C) from (c_j + L_j + 1, 0, 0), rows and columns rescaled in float32 to the
  // unpatched latent's H − 1 and W − 1 and truncated to int32; the target's None entry is padding.
  for (std::size_t j = 0; j < r.siglip.size(); ++j) {
    const auto [rows, cols] = r.siglip[j];
    const float sh = static_cast<float>(std::max(rows - 1, 1L)), sw = static_cast<float>(std::max(cols - 1, 1L));
    const float xh = static_cast<float>(images[j][1] - 1), xw = static_cast<float>(images[j][2] - 1);
    for (long h = 0; h < rows; ++h) {
      for (long w = 0; w < cols; ++w) {
        const float ph = static_cast<float>(h) / sh * xh, pw = static_cast<float>(w) / sw * xw;
        push(cap_end[j] + 1, static_cast<long>(ph), static_cast<long>(pw), 5);
      }
    }
    for (long k = padded(rows * cols) - rows * cols; k > 0; --k) push(0, 0, 0, 3);
  }
  if (!r.siglip.empty()) {
    for (long k = 0; k < m; ++k) push(0, 0, 0, 3);
  }
  // RopeEmbedder.__call__ (339-356) gathers each id from a table of axes_lens rows: an id past it has no row.
  static constexpr std::array<const char*, 3> kAxis{"t", "h", "w"};
  for (std::size_t a = 0; a < 3; ++a) {
    double last = 0;
    for (const GridToken& tok : out.tokens) last = std::max(last, tok.p[a]);
    if (g.table_length[a] > 0 && last >= static_cast<double>(g.table_length[a])) {
      throw InvalidArgument(
          error_msg("{0}: Z-Image's {1} ids reach {2}, past the {3} rows of its table (axes_lens[{4}], RopeEmbedder)",
                    option_name("latent_shape"), kAxis[a], last, g.table_length[a], a));
    }
  }
  out.notes.push_back(
      msg("Z-Image's omni mode: [captions, images, SigLIP], each part padded to a multiple of {0}; caption j from t "
          "= c_j (c_0 = 1, c_(j+1) = c_j + L_j + 2), image j from c_j + L_j, its SigLIP tokens at c_j + L_j + 1 "
          "with rows and columns scaled to the latent's; later captions read the earlier captions' surplus padding "
          "ids, as transformer_z_image.py:625-762 computes them",
          m));
}

/// Kandinsky 5's visual tokens (Kandinsky5RoPE3D.forward, transformer_kandinsky.py:242-260): (f, h, w) with each
/// axis's angle divided by scale_factor, here the position p / scale_factor; attention_type "nabla" flattens them in
/// 8 × 8 blocks of rows and columns (fractal_flatten, local_patching 44-92: t, block row, block column, then the
/// block's rows and columns).
void kandinsky5_tokens(const GridRope& g, const GridRequest& r, const std::array<long, 3>& grid, GridPositions& out) {
  const std::array<double, 3> sf = r.scale_factor.value_or(kandinsky5_scale_factor(r.latent));
  const auto [nf, nh, nw] = grid;
  auto push = [&](long f, long h, long w) {
    out.tokens.push_back(GridToken{
        {static_cast<double>(f) / sf[0], static_cast<double>(h) / sf[1], static_cast<double>(w) / sf[2], 0}, 0});
  };
  if (!g.fractal) {
    for (long f = 0; f < nf; ++f)
      for (long h = 0; h < nh; ++h)
        for (long w = 0; w < nw; ++w) push(f, h, w);
  } else {
    if (nh % 8 != 0 || nw % 8 != 0) {
      throw InvalidArgument(error_msg(
          "{0}: Kandinsky 5's nabla attention groups the tokens in 8 × 8 blocks: {1} × {2} tokens per frame are not "
          "multiples of 8",
          option_name("latent_shape"), nh, nw));
    }
    for (long f = 0; f < nf; ++f)
      for (long bh = 0; bh < nh / 8; ++bh)
        for (long bw = 0; bw < nw / 8; ++bw)
          for (long ih = 0; ih < 8; ++ih)
            for (long iw = 0; iw < 8; ++iw) push(f, 8 * bh + ih, 8 * bw + iw);
  }
  out.notes.push_back(
      msg("Kandinsky 5 divides each axis's angle by the pipeline's scale_factor ({0}, {1}, {2}): the "
          "positions here are (f, h, w) / scale_factor",
          fmt::format("{:g}", sf[0]), fmt::format("{:g}", sf[1]), fmt::format("{:g}", sf[2])));
  if (g.fractal) {
    out.notes.push_back(
        msg("attention_type nabla: the tokens in 8 × 8 blocks of rows and columns, as "
            "fractal_flatten orders them"));
  }
}

}  // namespace

GridRope ltx2_audio_rope(const GridRope& video) {
  if (video.model != GridModel::Ltx2 || !video.ltx2_audio) {
    throw InvalidArgument(
        error_msg("{0} has no audio stream: LTX-2 (LTX2VideoTransformer3DModel) alone turns audio "
                  "tokens",
                  display_name(video.model)));
  }
  if (video.audio) return video;
  const GridRope::Ltx2Audio& a = *video.ltx2_audio;
  GridRope g = video;
  g.audio = true;
  // LTX2VideoTransformer3DModel.__init__ (transformer_ltx2.py:1278-1292): dim = audio_inner_dim, the video's theta,
  // rope_type and causal_offset; forward's num_pos_dims = 1 (1009, 1030-1036): F = dim // 2, no padding.
  g.head_dim = a.heads * a.head_dim;
  g.axes = {"t"};
  g.widths = {2 * (g.head_dim / 2)};
  g.padding = 0;
  g.heads = video.heads > 0 ? a.heads : 0;
  g.patch = {a.patch_t, 1, 1};
  g.ltx_base = {a.max_pos, 1, 1};
  g.ltx_vae = {a.scale_factor, 1, 1};
  g.default_fps = 0;
  g.notes.clear();
  g.notes.push_back(msg(
      "LTX-2's audio stream: one axis t over {0} = {1} heads × {2} channels, {3} frequencies, the latent frame's "
      "midpoint in seconds (mel frames × {4} / {5}) over {6} s mapped to 2g − 1 (transformer_ltx2.py:943-995, "
      "1003-1075, 1278-1292)",
      g.head_dim, a.heads, a.head_dim, g.head_dim / 2, shown(a.hop_length), shown(a.sampling_rate), shown(a.max_pos)));
  g.source = "transformer_ltx2.py:943-1075 (LTX2AudioVideoRotaryPosEmbed, modality audio), 1278-1292 (audio_rope)";
  return g;
}

std::array<double, 3> kandinsky5_scale_factor(const std::array<long, 3>& latent) {
  if (latent[0] <= 1) return {1.0, 1.0, 1.0};
  const auto between_480p = [](long x) { return 480 <= x && x <= 854; };
  if (between_480p(8 * latent[1]) && between_480p(8 * latent[2])) return {1.0, 2.0, 2.0};
  return {1.0, 3.16, 3.16};
}

GridPositions grid_positions(const GridRope& g, const GridRequest& r) {
  if (r.audio && !g.audio) return grid_positions(ltx2_audio_rope(g), r);
  if (g.audio) {
    if (r.text > 0 || r.reference_images > 0 || r.scale_factor || r.fps || r.latent[1] != 1 || r.latent[2] != 1) {
      throw InvalidArgument(
          error_msg("{0}: LTX-2's audio tokens take their latent frames alone (no text, fps, "
                    "reference images, scale factor or rows)",
                    option_name("audio_frames")));
    }
    GridPositions out;
    out.audio = true;
    out.axes = g.axes;
    tokens_of(g, r, out.grid);
    for (long f = 0; f < out.grid[0]; ++f) out.tokens.push_back(GridToken{{ltx2_audio(g, f), 0, 0, 0}, 4});
    const GridRope::Ltx2Audio& a = *g.ltx2_audio;
    out.notes.push_back(msg(
        "audio latent frame f spans the mel frames [{0}·f {1}, {0}·f {2}] clamped at 0, × {3} / {4} s; t = "
        "2g − 1 of the midpoint over {5} s (transformer_ltx2.py:943-995, 1011-1038)",
        shown(a.scale_factor * static_cast<double>(a.patch_t)), fmt::format("{:+g}", g.causal_offset - a.scale_factor),
        fmt::format("{:+g}", a.scale_factor * static_cast<double>(a.patch_t) + g.causal_offset - a.scale_factor),
        shown(a.hop_length), shown(a.sampling_rate), shown(a.max_pos)));
    return out;
  }
  const bool hunyuan = g.model == GridModel::HunyuanVideo || g.model == GridModel::HunyuanVideo15;
  const bool text_joint = g.model == GridModel::Flux || g.model == GridModel::Flux2 ||
                          g.model == GridModel::QwenImage || hunyuan || g.model == GridModel::Cosmos3 ||
                          g.model == GridModel::ZImage;
  if (r.text > 0 && !text_joint) {
    throw InvalidArgument(
        error_msg("{0}: {1} gives its text tokens no RoPE position (Flux.1, Flux.2, Qwen-Image, HunyuanVideo, "
                  "HunyuanVideo 1.5, Cosmos 3 and Z-Image place text in the sequence)",
                  option_name("text"), display_name(g.model)));
  }
  if (r.scale_factor && g.model != GridModel::Kandinsky5) {
    throw InvalidArgument(error_msg("{0}: only Kandinsky 5 divides its angles by a scale factor (not {1})",
                                    option_name("scale_factor"), display_name(g.model)));
  }
  if (r.scale_factor &&
      !std::all_of(r.scale_factor->begin(), r.scale_factor->end(), [](double v) { return v > 0 && v <= 1e6; })) {
    throw InvalidArgument(error_msg("{0}: each factor must be positive and at most 1000000 (got {1})",
                                    option_name("scale_factor"), fmt::format("{}", fmt::join(*r.scale_factor, ","))));
  }
  if (r.reference_images > 0 && g.model != GridModel::Flux2) {
    throw InvalidArgument(
        error_msg("{0}: only Flux.2's pipeline places reference images in the "
                  "sequence (not {1})",
                  option_name("reference_images"), display_name(g.model)));
  }
  if (r.fps && g.model != GridModel::Ltx && g.model != GridModel::Ltx2 && g.model != GridModel::Cosmos &&
      g.model != GridModel::Cosmos3) {
    throw InvalidArgument(error_msg("{0}: only LTX-Video, LTX-2 and Cosmos scale positions by a frame rate (not {1})",
                                    option_name("fps"), display_name(g.model)));
  }
  if (r.fps && !(*r.fps > 0 && *r.fps <= 1e6)) {
    throw InvalidArgument(error_msg("{0} must be positive and at most 1000000 (got {1})", option_name("fps"), *r.fps));
  }
  if ((r.omni || !r.condition_images.empty() || !r.siglip.empty()) && g.model != GridModel::ZImage) {
    throw InvalidArgument(
        error_msg("{0}: only Z-Image's omni pipeline places condition images and SigLIP tokens in "
                  "its sequence (not {1})",
                  option_name(r.condition_images.empty() ? "omni" : "condition_image"), display_name(g.model)));
  }
  if (!r.siglip.empty() && r.condition_images.empty()) {
    throw InvalidArgument(error_msg("{0} gives the condition images' SigLIP grids: it needs {1}",
                                    option_name("siglip_grid"), option_name("condition_image")));
  }
  GridPositions out;
  out.axes = g.axes;
  tokens_of(g, r, out.grid);
  if (g.model == GridModel::ZImage && (r.omni || !r.condition_images.empty())) {
    z_image_omni_tokens(g, r, out);
    return out;
  }
  if (g.model == GridModel::ZImage) {
    z_image_tokens(g, r, out.grid, out);
    return out;
  }
  if (g.model == GridModel::Kandinsky5) {
    kandinsky5_tokens(g, r, out.grid, out);
    return out;
  }
  const auto [nf, nh, nw] = out.grid;
  const std::size_t axes = g.axes.size();
  auto push = [&](std::array<double, kMaxAxes> p, int kind) { out.tokens.push_back(GridToken{p, kind}); };
  // Text first where the model joins it to the latent: Flux ids = cat(txt_ids, img_ids) (transformer_flux.py:749),
  // Flux.2 cat([text, image]) (transformer_flux2.py:1329-1332), Qwen-Image [text, image]
  // (transformer_qwenimage.py:599).
  if (r.text > 0 && !hunyuan) {
    for (long l = 0; l < r.text; ++l) {
      std::array<double, kMaxAxes> p{};
      if (g.model == GridModel::Flux2) {
        p[3] = static_cast<double>(l);  // pipeline_flux2.py _prepare_text_ids: (0, 0, 0, l)
      } else if (g.model == GridModel::QwenImage) {
        // transformer_qwenimage.py:320-330: text at max_vid_index + l on every axis, max_vid_index =
        // max(height // 2, width // 2) with scale_rope
        const long start = g.centred ? std::max(nh / 2, nw / 2) : std::max(nh, nw);
        for (std::size_t a = 0; a < axes; ++a) p[a] = static_cast<double>(start + l);
      } else if (g.model == GridModel::Cosmos3) {
        // pipeline_cosmos3_omni.py:102-119 (get_3d_mrope_ids_text_tokens from 0): (l, l, l)
        for (std::size_t a = 0; a < axes; ++a) p[a] = static_cast<double>(l);
      }  // Flux.1: text ids zeros (pipeline_flux.py:385)
      push(p, 1);
    }
    out.notes.push_back(msg("text first, as the transformer joins [text, latent]"));
  }
  const double fps = r.fps.value_or(g.default_fps);
  for (long image = 0; image <= r.reference_images; ++image) {
    for (long f = 0; f < nf; ++f) {
      for (long h = 0; h < nh; ++h) {
        for (long w = 0; w < nw; ++w) {
          std::array<double, kMaxAxes> p{static_cast<double>(f), static_cast<double>(h), static_cast<double>(w), 0};
          if (g.centred) {
            // transformer_qwenimage.py:349-352: rows −(H − H//2) … H//2 − 1, likewise columns
            p[1] = static_cast<double>(h - (nh - nh / 2));
            p[2] = static_cast<double>(w - (nw - nw / 2));
          }
          if (g.model == GridModel::Flux) p = {0, static_cast<double>(h), static_cast<double>(w), 0};
          if (g.model == GridModel::Flux2) {
            // pipeline_flux2.py _prepare_latent_ids (0, h, w, 0); _prepare_image_ids t = 10 + 10·i
            p = {image == 0 ? 0.0 : static_cast<double>(10 * image), static_cast<double>(h), static_cast<double>(w), 0};
          }
          if (g.model == GridModel::Ltx) {
            // transformer_ltx.py:217-220 with pipeline_ltx.py:750-754: rope_interpolation_scale =
            // (vae_temporal / frame_rate, vae_spatial, vae_spatial); p = index · scale · patch / base
            // the positions the angles multiply: 2·g − 1 (transformer_ltx.py:266)
            p[0] =
                2 * (static_cast<double>(f) * (g.ltx_vae[0] / fps) * static_cast<double>(g.patch[0]) / g.ltx_base[0]) -
                1;
            p[1] = 2 * (static_cast<double>(h) * g.ltx_vae[1] * static_cast<double>(g.patch[1]) / g.ltx_base[1]) - 1;
            p[2] = 2 * (static_cast<double>(w) * g.ltx_vae[2] * static_cast<double>(g.patch[2]) / g.ltx_base[2]) - 1;
          }
          if (g.model == GridModel::Ltx2) p = ltx2_video(g, f, h, w, fps);
          if (g.model == GridModel::Cosmos && r.fps) {
            p[0] = static_cast<double>(f) / *r.fps * g.base_fps;  // transformer_cosmos.py:512
          }
          if (g.model == GridModel::Cosmos3) p = cosmos3_latent(g, r, f, h, w, nf);
          push(p, image == 0 ? 0 : 2);
        }
      }
    }
  }
  if (r.text > 0 && hunyuan) {
    // transformer_hunyuan_video.py:82-110, transformer_hunyuan_video15.py:76-99: the text tokens after the video's,
    // not rotated (position 0)
    for (long l = 0; l < r.text; ++l) push(std::array<double, kMaxAxes>{}, 1);
    out.notes.push_back(msg("text after the latent, not rotated (position 0), as HunyuanVideo's processor leaves it"));
  }
  return out;
}

}  // namespace rope
