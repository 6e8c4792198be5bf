// Reading a diffusers transformer's config.json (its `_class_name`, grid_rope.hpp): the RoPE keys each class's
// __init__ takes, their defaults from that __init__ where the file has no such key. Every line cites
// huggingface/diffusers at 58eb52c0803ea9af3abec60841c2a093bdf1f951, src/diffusers/models/transformers/ (the
// pipelines' files under src/diffusers/pipelines/).
#include <cmath>
#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/core/message_context.hpp"
#include "rope/models/grid_rope.hpp"
#include "rope/models/hf/hf_config.hpp"

namespace rope::detail {

namespace {

constexpr std::string_view kCommit = "58eb52c0803e";

class DiffusersReader {
 public:
  DiffusersReader(const json& doc, const std::string& name, GridModel model) : doc_(doc), r_(name), name_(name) {
    g_.model = model;
  }

  GridRope read();

 private:
  void read_cosmos3();
  void read_z_image();
  void read_kandinsky5();
  void read_ltx2();
  void read_ltx2_audio(std::string_view init);
  /// A true/false key, or the class's default.
  bool flag(std::string_view key, bool fallback, std::string_view init) {
    const std::optional<bool> v = r_.boolean(doc_, "", key);
    if (v) {
      g_.origin.push_back(
          origin_line(Message::same(std::string(key)), *v ? "true" : "false", Message::same(std::string(key))));
      return *v;
    }
    default_line(key, fallback ? "true" : "false", init);
    return fallback;
  }
  /// A whole number of the config, or the class's default (its __init__ at `init`).
  long whole(std::string_view key, long fallback, std::string_view init) {
    const std::optional<long> v = r_.count(doc_, "", key);
    if (v) {
      g_.origin.push_back(
          origin_line(Message::same(std::string(key)), fmt::format("{}", *v), Message::same(std::string(key))));
      return *v;
    }
    default_line(key, fmt::format("{}", fallback), init);
    return fallback;
  }
  /// A list of positive numbers, or the default.
  std::vector<double> list(std::string_view key, std::vector<double> fallback, std::string_view init) {
    const std::optional<std::vector<double>> v = r_.factors(doc_, "", key);
    const std::vector<double>& out = v ? *v : fallback;
    const std::string shown = fmt::format("({})", fmt::join(out, ", "));
    if (v) {
      g_.origin.push_back(origin_line(Message::same(std::string(key)), shown, Message::same(std::string(key))));
    } else {
      default_line(key, shown, init);
    }
    return out;
  }
  std::vector<int> widths(std::string_view key, std::vector<double> fallback, std::string_view init, std::size_t axes) {
    const std::vector<double> v = list(key, std::move(fallback), init);
    if (v.size() != axes) {
      r_.fail(std::string(key), fmt::format("expected {} axis widths, got {}", axes, v.size()));
    }
    std::vector<int> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (v[i] != std::floor(v[i]) || v[i] > kMaxDim || static_cast<long>(v[i]) % 2 != 0) {
        r_.fail(fmt::format("{}[{}]", key, i), fmt::format("expected an even number of channels, got {}", num(v[i])));
      }
      out.push_back(static_cast<int>(v[i]));
    }
    return out;
  }
  std::array<long, 3> patch3(std::string_view key, std::array<long, 3> fallback, std::string_view init) {
    const std::vector<double> v = list(
        key, {static_cast<double>(fallback[0]), static_cast<double>(fallback[1]), static_cast<double>(fallback[2])},
        init);
    if (v.size() != 3) r_.fail(std::string(key), fmt::format("expected 3 numbers (t, h, w), got {}", v.size()));
    std::array<long, 3> out{};
    for (std::size_t i = 0; i < 3; ++i) {
      if (v[i] != std::floor(v[i]) || v[i] > 1024) {
        r_.fail(fmt::format("{}[{}]", key, i),
                fmt::format("expected a whole number of at most 1024, got {}", num(v[i])));
      }
      out[i] = static_cast<long>(v[i]);
    }
    return out;
  }
  void default_line(std::string_view key, const std::string& value, std::string_view init) {
    g_.origin.push_back(
        Message(msg("{0}: {1} (not in the file: the default of {2}, {3} at diffusers {4})", std::string(key), value,
                    std::string(class_name(g_.model)), std::string(init), std::string(kCommit))));
  }
  void fixed_line(std::string_view what, const std::string& value, std::string_view where) {
    g_.origin.push_back(Message(msg("{0}: {1} (fixed by the code: {2} at diffusers {3})", std::string(what), value,
                                    std::string(where), std::string(kCommit))));
  }
  int head_dim(long fallback, std::string_view init) { return head_dim_key("attention_head_dim", fallback, init); }
  int head_dim_key(std::string_view key, long fallback, std::string_view init) {
    const long d = whole(key, fallback, init);
    if (d < 2 || d > kMaxDim) r_.fail(std::string(key), fmt::format("must be between 2 and {}, got {}", kMaxDim, d));
    return static_cast<int>(d);
  }
  double base_key(std::string_view key, double fallback, std::string_view init) {
    const std::optional<double> v = r_.positive(doc_, "", key);
    if (v) {
      g_.origin.push_back(origin_line(Message::same(std::string(key)), num(*v), Message::same(std::string(key))));
      if (!(*v > 1)) r_.fail(std::string(key), fmt::format("must be above 1, got {}", num(*v)));
      return *v;
    }
    default_line(key, num(fallback), init);
    return fallback;
  }
  /// Wan's and Cosmos's split: h = w = 2⌊d/6⌋ channels, t the rest.
  static std::vector<int> sixths(int d) {
    const int hw = 2 * (d / 6);
    return {d - 2 * hw, hw, hw};
  }

  const json& doc_;
  Reader r_;
  const std::string& name_;
  GridRope g_;
};

GridRope DiffusersReader::read() {
  g_.axes = {"t", "h", "w"};
  switch (g_.model) {
    case GridModel::Wan: {
      const int d = head_dim(128, "transformer_wan.py:576");
      g_.head_dim = d;
      g_.widths = sixths(d);
      g_.bases.assign(3, 10000.0);
      fixed_line("base", "10000", "WanRotaryPosEmbed(theta=10000.0), transformer_wan.py:360, 597");
      g_.patch = patch3("patch_size", {1, 2, 2}, "transformer_wan.py:574");
      g_.source = "transformer_wan.py:354-416 (WanRotaryPosEmbed), 104-115 (apply_rotary_emb)";
      break;
    }
    case GridModel::Flux:
    case GridModel::Flux2:
    case GridModel::QwenImage: {
      const bool flux2 = g_.model == GridModel::Flux2;
      const bool qwen = g_.model == GridModel::QwenImage;
      const std::string_view init = flux2  ? "transformer_flux2.py:1142-1158"
                                    : qwen ? "transformer_qwenimage.py:860-873"
                                           : "transformer_flux.py:613-625";
      g_.head_dim = head_dim(128, init);
      if (flux2) g_.axes = {"t", "h", "w", "l"};
      g_.widths =
          widths("axes_dims_rope", flux2 ? std::vector<double>{32, 32, 32, 32} : std::vector<double>{16, 56, 56}, init,
                 g_.axes.size());
      const double base = flux2 ? base_key("rope_theta", 2000, init) : 10000.0;
      if (!flux2) {
        fixed_line("base", "10000",
                   qwen ? "QwenEmbedRope(theta=10000), transformer_qwenimage.py:880"
                        : "FluxPosEmbed(theta=10000), transformer_flux.py:631");
      }
      g_.bases.assign(g_.axes.size(), base);
      const long patch = whole("patch_size", qwen ? 2 : 1, init);
      // The pipelines pack 2×2 latent pixels into one token before the transformer (pipeline_flux.py _pack_latents,
      // pipeline_flux2.py _patchify_latents, pipeline_qwenimage.py _pack_latents): the ids count packed tokens.
      g_.pack = 2;
      if (qwen) {
        g_.centred = true;  // QwenEmbedRope(..., scale_rope=True), transformer_qwenimage.py:880
        g_.origin.push_back(
            Message(msg("patch_size {0}: the pipeline's 2×2 packing of the latent (pipeline_qwenimage.py "
                        "_pack_latents), counted once",
                        patch)));
      } else {
        g_.origin.push_back(
            msg("the pipeline packs the latent 2×2 into one token before the transformer ({0}): an "
                "H × W latent is an H/2 × W/2 grid of tokens",
                flux2 ? "pipeline_flux2.py _patchify_latents" : "pipeline_flux.py _pack_latents"));
        if (patch != 1) g_.patch = {1, patch, patch};
      }
      g_.source = flux2  ? "transformer_flux2.py:971-998 (Flux2PosEmbed), pipeline_flux2.py:356-454 (ids)"
                  : qwen ? "transformer_qwenimage.py:232-358 (QwenEmbedRope)"
                         : "transformer_flux.py:500-526 (FluxPosEmbed), pipeline_flux.py:385, 506-517 (ids)";
      break;
    }
    case GridModel::HunyuanVideo:
    case GridModel::HunyuanVideo15: {
      // HunyuanVideo15Transformer3DModel.__init__ (transformer_hunyuan_video15.py:563-604) keeps HunyuanVideo's RoPE
      // (HunyuanVideo15RotaryPosEmbed, 361-391) and its keys, with patch 1 by default
      const bool v15 = g_.model == GridModel::HunyuanVideo15;
      const std::string_view init =
          v15 ? "transformer_hunyuan_video15.py:563-584" : "transformer_hunyuan_video.py:904-923";
      g_.head_dim = head_dim(128, init);
      g_.widths = widths("rope_axes_dim", {16, 56, 56}, init, 3);
      g_.bases.assign(3, base_key("rope_theta", 256.0, init));
      const long p = whole("patch_size", v15 ? 1 : 2, init);
      const long pt = whole("patch_size_t", 1, init);
      g_.patch = {pt, p, p};
      g_.source = v15 ? "transformer_hunyuan_video15.py:361-391 (HunyuanVideo15RotaryPosEmbed), 76-99 (the processor)"
                      : "transformer_hunyuan_video.py:478-508 (HunyuanVideoRotaryPosEmbed)";
      break;
    }
    case GridModel::Ltx: {
      const std::string_view init = "transformer_ltx.py:431-447";
      const long heads = whole("num_attention_heads", 32, init);
      const long d = whole("attention_head_dim", 64, init);
      if (heads < 1 || d < 1 || heads * d > kMaxDim) {
        r_.fail("num_attention_heads", fmt::format("heads × attention_head_dim must be at most {}", kMaxDim));
      }
      g_.head_dim = static_cast<int>(heads * d);  // LTXVideoRotaryPosEmbed(dim=inner_dim), transformer_ltx.py:461
      g_.order = GridOrder::PerFrequency;
      const int f = g_.head_dim / 6;
      g_.widths.assign(3, 2 * f);
      g_.padding = (g_.head_dim % 6) / 2;
      g_.bases = {10000.0};
      fixed_line("base", "10000", "LTXVideoRotaryPosEmbed(theta=10000.0), transformer_ltx.py:468");
      const long p = whole("patch_size", 1, init);
      const long pt = whole("patch_size_t", 1, init);
      g_.patch = {pt, p, p};
      g_.default_fps = 25;  // pipeline_ltx.py:544 frame_rate = 25
      g_.notes.push_back(
          msg("LTX-Video rotates the whole hidden vector of {0} = {1} heads × {2} channels at once, "
              "before it is split into heads (transformer_ltx.py:596-601): a dump is [batch, seq, {0}]",
              g_.head_dim, heads, d));
      g_.source = "transformer_ltx.py:179-278 (LTXVideoRotaryPosEmbed), pipeline_ltx.py:750-754 (positions)";
      break;
    }
    case GridModel::Cosmos: {
      const std::string_view init = "transformer_cosmos.py:605-625";
      const int d = head_dim(128, init);
      g_.head_dim = d;
      g_.widths = sixths(d);
      g_.layout = Layout::Half;
      const std::vector<double> scale = list("rope_scale", {2.0, 1.0, 1.0}, init);
      if (scale.size() != 3) r_.fail("rope_scale", fmt::format("expected 3 numbers (t, h, w), got {}", scale.size()));
      for (std::size_t a = 0; a < 3; ++a) {
        // transformer_cosmos.py:476-478, 485-487: 10000 · rope_scale_a^(d_a / (d_a − 2))
        const double w = g_.widths[a];
        if (w <= 2) r_.fail("attention_head_dim", fmt::format("too small for Cosmos's NTK factors (axis width {})", w));
        g_.bases.push_back(10000.0 * std::pow(scale[a], w / (w - 2)));
      }
      g_.patch = patch3("patch_size", {1, 2, 2}, init);
      g_.base_fps = 24;
      fixed_line("base_fps", "24", "CosmosRotaryPosEmbed(base_fps=24), transformer_cosmos.py:463");
      g_.default_fps = 16;
      g_.notes.push_back(msg(
          "Cosmos's transformer scales the temporal positions by base_fps / fps = 24 / fps when the pipeline passes "
          "fps (transformer_cosmos.py:507-512), and the Video2World pipeline always passes it (fps = 16, "
          "pipeline_cosmos2_video2world.py:498, 713): ×1.5, although the released Predict2 checkpoints' own code "
          "disables that modulation (diffusers issue #14768); the positions rope builds apply it only when fps is given"));
      g_.source = "transformer_cosmos.py:457-518 (CosmosRotaryPosEmbed)";
      break;
    }
    case GridModel::Cosmos3: {
      read_cosmos3();
      break;
    }
    case GridModel::ZImage: {
      read_z_image();
      break;
    }
    case GridModel::Kandinsky5: {
      read_kandinsky5();
      break;
    }
    case GridModel::Ltx2: {
      read_ltx2();
      break;
    }
  }
  return g_;
}

void DiffusersReader::read_z_image() {
  // ZImageTransformer2DModel.__init__ (transformer_z_image.py:366-480): head_dim = dim // n_heads, which must be
  // sum(axes_dims) (476); RopeEmbedder (313-356) builds each axis's table of axes_lens rows in float64, cast to
  // float32, and the processor turns consecutive pairs as complex numbers (112-118).
  const std::string_view init = "transformer_z_image.py:366-384";
  const long dim = whole("dim", 3840, init);
  const long heads = whole("n_heads", 30, init);
  if (heads < 1 || dim < 2 || dim % heads != 0 || dim / heads > kMaxDim) {
    r_.fail("n_heads", fmt::format("dim {} must be a multiple of n_heads {} with heads of at most {} channels", dim,
                                   heads, kMaxDim));
  }
  g_.head_dim = static_cast<int>(dim / heads);
  g_.widths = widths("axes_dims", {32, 48, 48}, init, 3);
  if (g_.widths[0] + g_.widths[1] + g_.widths[2] != g_.head_dim) {
    r_.fail("axes_dims",
            fmt::format("the axes' widths add up to {}, but dim / n_heads = {} (transformer_z_image.py:476 "
                        "asserts they are equal)",
                        g_.widths[0] + g_.widths[1] + g_.widths[2], g_.head_dim));
  }
  g_.bases.assign(3, base_key("rope_theta", 256.0, init));
  const std::vector<double> lens = list("axes_lens", {1024, 512, 512}, init);
  if (lens.size() != 3) r_.fail("axes_lens", fmt::format("expected 3 numbers (t, h, w), got {}", lens.size()));
  for (std::size_t a = 0; a < 3; ++a) {
    if (lens[a] != std::floor(lens[a]) || lens[a] > static_cast<double>(kMaxGridTokens)) {
      r_.fail(fmt::format("axes_lens[{}]", a),
              fmt::format("expected a whole number of at most {}, got {}", kMaxGridTokens, num(lens[a])));
    }
    g_.table_length[a] = static_cast<long>(lens[a]);
  }
  // forward(patch_size=2, f_patch_size=1) (894-904), the pipeline passing neither: the first of all_patch_size and
  // all_f_patch_size, which hold the same values
  const std::vector<double> p = list("all_patch_size", {2}, init);
  const std::vector<double> pf = list("all_f_patch_size", {1}, init);
  if (p.empty() || pf.empty() || p[0] != std::floor(p[0]) || pf[0] != std::floor(pf[0]) || p[0] > 1024 ||
      pf[0] > 1024) {
    r_.fail("all_patch_size", "expected whole numbers of at most 1024");
  }
  g_.patch = {static_cast<long>(pf[0]), static_cast<long>(p[0]), static_cast<long>(p[0])};
  g_.seq_multiple = 32;
  fixed_line("SEQ_MULTI_OF", "32", "transformer_z_image.py:33");
  g_.notes.push_back(
      msg("Z-Image joins [image, caption] in one sequence, each padded to a multiple of 32: caption token k at "
          "(1 + k, 0, 0), the image's (f, h, w) at (L' + 1 + f, h, w) after the padded caption's L' tokens, the "
          "image's padding at (0, 0, 0) (transformer_z_image.py:551-623, 855-859)"));
  g_.source = "transformer_z_image.py:313-356 (RopeEmbedder), 588-623 (ids), 112-118 (apply_rotary_emb)";
}

void DiffusersReader::read_kandinsky5() {
  // Kandinsky5Transformer3DModel.__init__ (transformer_kandinsky.py:530-575): head_dim = sum(axes_dims),
  // Kandinsky5RoPE3D(axes_dims) with max_period 10000 (230-240), the angles in float32 (get_freqs, 39-41), the pairs
  // turned as 2 × 2 matrices of consecutive channels (apply_rotary, 309-312), the output cast to bfloat16.
  const std::string_view init = "transformer_kandinsky.py:530-555";
  g_.widths = widths("axes_dims", {16, 24, 24}, init, 3);
  g_.head_dim = g_.widths[0] + g_.widths[1] + g_.widths[2];
  if (g_.head_dim < 2) r_.fail("axes_dims", "the axes' widths add up to no channel");
  const long model_dim = whole("model_dim", 2048, init);
  if (model_dim % g_.head_dim != 0) {
    r_.fail("model_dim", fmt::format("{} is not a multiple of the head, sum(axes_dims) = {}", model_dim, g_.head_dim));
  }
  g_.bases.assign(3, 10000.0);
  fixed_line("base", "10000", "Kandinsky5RoPE3D(max_period=10000.0), transformer_kandinsky.py:231, 575");
  g_.patch = patch3("patch_size", {1, 2, 2}, init);
  const std::optional<std::string> attention = r_.string(doc_, "", "attention_type");
  g_.fractal = attention && *attention == "nabla";
  if (attention) {
    g_.origin.push_back(origin_line(Message::same("attention_type"), *attention, Message::same("attention_type")));
  }
  g_.notes.push_back(msg(
      "Kandinsky 5 divides each axis's angle by the pipeline's scale_factor: (1, 2, 2) for a video whose frame is "
      "480 … 854 pixels on both sides, else (1, 3.16, 3.16); (1, 1, 1) for an image (pipeline_kandinsky.py:209-227, "
      "pipeline_kandinsky_t2i.py:713); the positions rope builds are (f, h, w) / scale_factor"));
  g_.source = "transformer_kandinsky.py:230-260 (Kandinsky5RoPE3D), 309-316 (apply_rotary)";
}

void DiffusersReader::read_cosmos3() {
  // Cosmos3OmniTransformer.__init__ (transformer_cosmos3.py:395-466); the ids of pipeline_cosmos3_omni.py.
  const std::string_view init = "transformer_cosmos3.py:395-436";
  g_.head_dim = head_dim_key("head_dim", 128, init);
  g_.order = GridOrder::Interleaved;
  g_.layout = Layout::Half;  // cat((freqs, freqs)) and _rotate_half, transformer_cosmos3.py:118-121, 160
  g_.bases = {base_key("rope_theta", 5000000.0, init)};
  // transformer_cosmos3.py:431-434: rope_axes_dim, else rope_scaling's mrope_section, else [24, 20, 20].
  std::vector<double> sections;
  const json* scaling = r_.object(doc_, "", "rope_scaling");
  const std::optional<std::vector<double>> axes = r_.factors(doc_, "", "rope_axes_dim");
  const std::optional<std::vector<double>> mrope =
      scaling ? r_.factors(*scaling, "rope_scaling", "mrope_section") : std::nullopt;
  if (axes) {
    sections = *axes;
    g_.origin.push_back(origin_line(Message::same("rope_axes_dim"), fmt::format("[{}]", fmt::join(sections, ", ")),
                                    Message::same("rope_axes_dim")));
  } else if (mrope) {
    sections = *mrope;
    g_.origin.push_back(origin_line(Message::same("rope_axes_dim"), fmt::format("[{}]", fmt::join(sections, ", ")),
                                    Message::same("rope_scaling.mrope_section")));
  } else {
    sections = {24, 20, 20};
    default_line("rope_axes_dim", "[24, 20, 20]", init);
  }
  const std::string key = axes ? "rope_axes_dim" : mrope ? "rope_scaling.mrope_section" : "rope_axes_dim";
  if (sections.size() != 3) r_.fail(key, fmt::format("expected 3 sections (t, h, w), got {}", sections.size()));
  double sum = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    if (sections[i] != std::floor(sections[i]) || sections[i] > kMaxDim) {
      r_.fail(fmt::format("{}[{}]", key, i), fmt::format("expected a whole number of pairs, got {}", num(sections[i])));
    }
    sum += sections[i];
    g_.widths.push_back(2 * static_cast<int>(sections[i]));
  }
  if (2 * sum != g_.head_dim) {
    // Qwen3-VL's interleave gives each pair one axis when the sections cover the head's pairs.
    r_.fail(key, fmt::format("the sections add up to {} pairs, but head_dim {} has {}", num(sum), g_.head_dim,
                             g_.head_dim / 2));
  }
  const long p = whole("latent_patch_size", 2, init);
  g_.patch = {1, p, p};
  g_.base_fps = static_cast<double>(whole("base_fps", 24, init));
  g_.fps_modulation = flag("enable_fps_modulation", true, init);
  g_.reset_spatial = flag("unified_3d_mrope_reset_spatial_ids", true, init);
  g_.text_margin = whole("unified_3d_mrope_temporal_modality_margin", 15000, init);
  g_.notes.push_back(
      msg("Cosmos 3 turns text and latent tokens in one sequence with Qwen3-VL's interleaved sections: text "
          "token m at (m, m, m), the latent's frame f at t = f + L + {0} after L text tokens (× base_fps / fps "
          "= {1} / fps when fps is given), rows and columns from 0 (pipeline_cosmos3_omni.py:102-170, 542-553)",
          g_.text_margin, num(g_.base_fps)));
  g_.source = "transformer_cosmos3.py:129-161 (Cosmos3VLTextRotaryEmbedding), pipeline_cosmos3_omni.py:102-170 (ids)";
}

void DiffusersReader::read_ltx2() {
  // LTX2VideoTransformer3DModel.__init__ (transformer_ltx2.py:1139-1187) builds its self-attention RoPE
  // LTX2AudioVideoRotaryPosEmbed(dim=inner_dim, ...) at 1263-1276 (G6).
  const std::string_view init = "transformer_ltx2.py:1139-1187";
  const long heads = whole("num_attention_heads", 32, init);
  const long d = whole("attention_head_dim", 128, init);
  if (heads < 1 || heads > kMaxDim || d < 2 || d > kMaxDim || heads * d > kMaxDim) {
    r_.fail("num_attention_heads", fmt::format("heads × attention_head_dim must be between 2 and {}", kMaxDim));
  }
  g_.head_dim = static_cast<int>(heads * d);
  g_.order = GridOrder::PerFrequency;
  const int f = g_.head_dim / 6;
  g_.widths.assign(3, 2 * f);
  g_.padding = (g_.head_dim % 6) / 2;  // interleaved: dim % 6 channels; split: dim/2 − 3F pairs (1044-1068)
  g_.bases = {base_key("rope_theta", 10000.0, init)};
  const std::optional<std::string> type = r_.string(doc_, "", "rope_type");
  const std::string rope_type = type.value_or("interleaved");
  if (type) {
    g_.origin.push_back(origin_line(Message::same("rope_type"), rope_type, Message::same("rope_type")));
  } else {
    default_line("rope_type", "interleaved", init);
  }
  if (rope_type == "split") {
    // transformer_ltx2.py:1054-1075 reshapes the dim/2 angles into (heads, dim/(2·heads)); apply_split_rotary_emb
    // (46-82) turns each head's channels (k, k + d/2) by its own slice.
    if (d % 2 != 0) r_.fail("attention_head_dim", fmt::format("split needs an even head, got {}", d));
    g_.heads = static_cast<int>(heads);
    g_.layout = Layout::Half;
  } else if (rope_type != "interleaved") {
    r_.fail("rope_type",
            fmt::format("expected \"interleaved\" or \"split\" (transformer_ltx2.py:848-849), got \"{}\"", rope_type));
  }
  const long pos_max = whole("pos_embed_max_pos", 20, init);
  const long height = whole("base_height", 2048, init);
  const long width = whole("base_width", 2048, init);
  if (pos_max < 1 || height < 1 || width < 1) {
    r_.fail("pos_embed_max_pos", "the base grid (pos_embed_max_pos, base_height, base_width) must be positive");
  }
  g_.ltx_base = {static_cast<double>(pos_max), static_cast<double>(height), static_cast<double>(width)};
  const std::vector<double> vae = list("vae_scale_factors", {8, 32, 32}, init);
  if (vae.size() != 3) r_.fail("vae_scale_factors", fmt::format("expected 3 numbers (t, h, w), got {}", vae.size()));
  g_.ltx_vae = {vae[0], vae[1], vae[2]};
  // causal_offset 1 for a causal VAE, 0 for a non-causal one (transformer_ltx2.py:820-822): 0 is read too.
  const std::optional<double> causal = r_.non_negative(doc_, "", "causal_offset");
  if (causal && (*causal != std::floor(*causal) || *causal > 1024)) {
    r_.fail("causal_offset", fmt::format("expected a whole number between 0 and 1024, got {}", num(*causal)));
  }
  if (causal) {
    g_.origin.push_back(origin_line(Message::same("causal_offset"), num(*causal), Message::same("causal_offset")));
  } else {
    default_line("causal_offset", "1", init);
  }
  g_.causal_offset = causal.value_or(1.0);
  const long p = whole("patch_size", 1, init);
  const long pt = whole("patch_size_t", 1, init);
  if (p < 1 || pt < 1 || p > 1024 || pt > 1024) r_.fail("patch_size", "must be between 1 and 1024");
  g_.patch = {pt, p, p};
  g_.default_fps = 24;  // pipeline_ltx2.py:937 frame_rate = 24.0
  read_ltx2_audio(init);
  if (g_.heads > 0) {
    g_.notes.push_back(
        msg("LTX-2 (rope_type split) builds one table over the {0} channels of {1} heads × {2} and gives head h "
            "its own slice, pairs h·{3} … h·{3} + {4}, rotate_half inside the head (transformer_ltx2.py:1054-1075, "
            "46-82): a dump is [batch, seq, {0}] or its heads apart",
            g_.head_dim, heads, d, d / 2, d / 2 - 1));
  } else {
    g_.notes.push_back(
        msg("LTX-2 (rope_type interleaved) turns the whole hidden vector of {0} = {1} heads × {2} channels at once, "
            "pairs (2i, 2i + 1), before it is split into heads (transformer_ltx2.py:38-43, 193-197): a dump is "
            "[batch, seq, {0}]",
            g_.head_dim, heads, d));
  }
  g_.source = "transformer_ltx2.py:814-1075 (LTX2AudioVideoRotaryPosEmbed), pipeline_ltx2.py:1369-1371 (positions)";
}

void DiffusersReader::read_ltx2_audio(std::string_view init) {
  // The audio stream's RoPE, LTX2AudioVideoRotaryPosEmbed(dim=audio_inner_dim, modality="audio", ...)
  // (transformer_ltx2.py:1278-1292), of the same __init__'s keys (1157-1165); its lines of origin kept apart, said
  // when the audio stream is selected (resolve.hpp Tower::Audio).
  std::vector<Message> video_origin = std::move(g_.origin);
  g_.origin.clear();
  GridRope::Ltx2Audio a;
  const long heads = whole("audio_num_attention_heads", 32, init);
  const long d = whole("audio_attention_head_dim", 64, init);
  if (heads < 1 || heads > kMaxDim || d < 2 || d > kMaxDim || heads * d > kMaxDim || d % 2 != 0) {
    r_.fail("audio_num_attention_heads",
            fmt::format("audio heads × an even audio_attention_head_dim must be between 2 and {}", kMaxDim));
  }
  a.heads = static_cast<int>(heads);
  a.head_dim = static_cast<int>(d);
  const long max_pos = whole("audio_pos_embed_max_pos", 20, init);
  const long rate = whole("audio_sampling_rate", 16000, init);
  const long hop = whole("audio_hop_length", 160, init);
  const long scale = whole("audio_scale_factor", 4, init);
  const long pt = whole("audio_patch_size_t", 1, init);
  if (max_pos < 1 || rate < 1 || hop < 1 || scale < 1 || pt < 1 || pt > 1024) {
    r_.fail("audio_sampling_rate",
            "audio_pos_embed_max_pos, audio_sampling_rate, audio_hop_length and audio_scale_factor must be positive, "
            "audio_patch_size_t between 1 and 1024");
  }
  a.max_pos = static_cast<double>(max_pos);
  a.sampling_rate = static_cast<double>(rate);
  a.hop_length = static_cast<double>(hop);
  a.scale_factor = static_cast<double>(scale);
  a.patch_t = pt;
  a.origin = std::move(g_.origin);
  g_.origin = std::move(video_origin);
  g_.ltx2_audio = std::move(a);
}

}  // namespace

std::optional<ModelConfig> parse_diffusers_config(const json& doc, const std::string& name) {
  if (!doc.is_object()) return std::nullopt;
  const auto it = doc.find("_class_name");
  if (it == doc.end() || !it->is_string()) return std::nullopt;
  const std::optional<GridModel> model = grid_model_of_class(it->get<std::string>());
  if (!model) return std::nullopt;
  GridRope g = DiffusersReader(doc, name, *model).read();
  ModelConfig m;
  m.name = name;
  m.model_type = std::string(class_name(*model));
  m.rope.head_dim = g.head_dim;
  m.rope.base = g.bases.at(0);
  m.rope.layout = g.layout;
  m.layout_basis = LayoutBasis::Family;
  m.layout_reason = Message(msg("diffusers {0}: {1}", std::string(class_name(*model)), g.source));
  m.origin.push_back(Message(msg("_class_name: {0} ({1}, diffusers {2})", std::string(class_name(*model)),
                                 std::string(display_name(*model)), std::string(kCommit))));
  for (const Message& o : g.origin) m.origin.push_back(o);
  m.notes = g.notes;
  (void)grid_theta(g);  // refused here, with the file's name, when the widths do not fit
  m.grid = std::move(g);
  return m;
}

}  // namespace rope::detail
