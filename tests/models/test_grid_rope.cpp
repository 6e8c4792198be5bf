// rope/models/grid_rope.hpp: the RoPE of diffusers' image and video transformers read from their config.json (by
// _class_name), against tests/reference/diffusers_rope.py (NumPy ports of the diffusers modules at 58eb52c080): the
// frequency of pairs 0, d/4 and d/2 − 1 and their axes (pair_table), and tokens 1 and n − 1 of the positions
// (positions()) for each model's case (diffusers_rope.CASES; LTX and Cosmos at fps 24, Cosmos 3 at fps 30, whose
// t = f · 0.8 + 15003 the pipeline rounds to float32: 15004.599609375), and Z-Image, HunyuanVideo 1.5 and Kandinsky 5
// against tests/reference/diffusers_rope_2026.py (CASES there: Z-Image's [image, caption] padded to 64 tokens, its
// last the caption's padding at t = 32; Kandinsky's positions / 3.16). The numbers below were printed
// by the port (%.17g); the frequencies agree to 1e-15 relative (pow in double on both sides), the positions exactly
// except LTX's fractions (1e-12: the product (f · (8/fps) · p_t / 20) is rounded once per factor on both sides).
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "rope/core/error.hpp"
#include "rope/models/grid_rope.hpp"
#include "rope/models/model_config.hpp"
#include "rope/models/presets.hpp"
#include "rope/models/rope_spec.hpp"

namespace rope {
namespace {

struct GridCase {
  const char* name;
  const char* config;
  std::array<long, 3> latent;
  long text, reference_images;
  std::optional<double> fps;
  int pairs, middle;
  double theta_first, theta_middle, theta_last;
  int axis_first, axis_middle, axis_last;  // -1: a padding pair (θ 0)
  std::size_t tokens;
  std::vector<double> second, last;  // tokens 1 and n − 1
};

// clang-format off
const GridCase kCases[] = {
{"wan", R"({"_class_name": "WanTransformer3DModel", "_diffusers_version": "0.37.0.dev0", "attention_head_dim": 128, "num_attention_heads": 40, "patch_size": [1, 2, 2], "rope_max_seq_len": 1024})", {3, 4, 6}, 0, 0, std::nullopt, 64, 32, 1, 0.012451970847350332, 0.00015505157798326253, 0, 1, 2, 18, {0, 0, 1}, {2, 1, 2}},
{"flux", R"({"_class_name": "FluxTransformer2DModel", "_diffusers_version": "0.37.0.dev0", "attention_head_dim": 128, "num_attention_heads": 24, "patch_size": 1, "axes_dims_rope": [16, 56, 56]})", {1, 6, 4}, 2, 0, std::nullopt, 64, 32, 1, 0.00037275937203149417, 0.00013894954943731373, 0, 1, 2, 8, {0, 0, 0}, {0, 2, 1}},
{"flux2", R"({"_class_name": "Flux2Transformer2DModel", "_diffusers_version": "0.37.0.dev0", "attention_head_dim": 128, "num_attention_heads": 48, "patch_size": 1, "axes_dims_rope": [32, 32, 32, 32], "rope_theta": 2000.0})", {1, 4, 6}, 3, 1, std::nullopt, 64, 32, 1, 1, 0.0008040524490142266, 0, 2, 3, 15, {0, 0, 0, 1}, {10, 1, 2, 0}},
{"qwenimage", R"({"_class_name": "QwenImageTransformer2DModel", "_diffusers_version": "0.37.0.dev0", "attention_head_dim": 128, "num_attention_heads": 24, "patch_size": 2, "axes_dims_rope": [16, 56, 56]})", {1, 10, 6}, 3, 0, std::nullopt, 64, 32, 1, 0.00037275937203149417, 0.00013894954943731373, 0, 1, 2, 18, {3, 3, 3}, {0, 1, 0}},
{"hunyuan", R"({"_class_name": "HunyuanVideoTransformer3DModel", "_diffusers_version": "0.37.0.dev0", "attention_head_dim": 128, "num_attention_heads": 24, "patch_size": 2, "patch_size_t": 1, "rope_theta": 256.0, "rope_axes_dim": [16, 56, 56]})", {3, 4, 6}, 2, 0, std::nullopt, 64, 32, 1, 0.0086256993255766617, 0.004761772086736232, 0, 1, 2, 20, {0, 0, 1}, {0, 0, 0}},
{"ltx", R"({"_class_name": "LTXVideoTransformer3DModel", "_diffusers_version": "0.37.0.dev0", "attention_head_dim": 64, "num_attention_heads": 2, "patch_size": 1, "patch_size_t": 1})", {3, 2, 3}, 0, 0, std::optional<double>(24), 64, 32, 0, 157.07963267948966, 15707.963267948966, -1, 1, 2, 18, {-1, -1, -0.96875}, {-0.93333333333333335, -0.96875, -0.9375}},
{"cosmos", R"({"_class_name": "CosmosTransformer3DModel", "_diffusers_version": "0.37.0.dev0", "attention_head_dim": 128, "num_attention_heads": 16, "patch_size": [1, 2, 2], "max_size": [128, 240, 240], "rope_scale": [1.0, 3.0, 3.0]})", {3, 4, 6}, 0, 0, std::optional<double>(24), 64, 32, 1, 0.0071891487206590865, 5.1683859327754177e-05, 0, 1, 2, 18, {0, 0, 1}, {2, 1, 2}},
{"cosmos3", R"({"_class_name": "Cosmos3OmniTransformer", "_diffusers_version": "0.37.0.dev0", "head_dim": 128, "num_attention_heads": 32, "model_type": "qwen3_vl_text", "rope_theta": 5000000.0, "rope_scaling": {"mrope_interleaved": true, "mrope_section": [24, 20, 20], "rope_type": "default"}, "latent_patch_size": 2, "base_fps": 24, "enable_fps_modulation": true, "unified_3d_mrope_reset_spatial_ids": true, "unified_3d_mrope_temporal_modality_margin": 15000})", {3, 8, 12}, 3, 0, std::optional<double>(30), 64, 32, 1, 0.00044721359549995795, 2.5450797880376062e-07, 0, 2, 0, 75, {1, 1, 1}, {15004.599609375, 3, 5}},
{"zimage", R"({"_class_name": "ZImageTransformer2DModel", "_diffusers_version": "0.36.0.dev0", "dim": 3840, "n_heads": 30, "rope_theta": 256.0, "axes_dims": [32, 48, 48], "axes_lens": [1024, 512, 512], "all_patch_size": [2], "all_f_patch_size": [1]})", {1, 10, 6}, 5, 0, std::nullopt, 64, 32, 1, 0.024803141437003122, 0.0049215666011518475, 0, 1, 2, 64, {33, 0, 1}, {32, 0, 0}},
{"hunyuan15", R"({"_class_name": "HunyuanVideo15Transformer3DModel", "_diffusers_version": "0.36.0.dev0", "attention_head_dim": 128, "num_attention_heads": 16, "patch_size": 1, "patch_size_t": 1, "rope_theta": 256.0, "rope_axes_dim": [16, 56, 56]})", {3, 4, 6}, 2, 0, std::nullopt, 64, 32, 1, 0.0086256993255766617, 0.004761772086736232, 0, 1, 2, 74, {0, 0, 1}, {0, 0, 0}},
{"kandinsky5", R"({"_class_name": "Kandinsky5Transformer3DModel", "_diffusers_version": "0.36.0.dev0", "axes_dims": [16, 24, 24], "model_dim": 2048, "patch_size": [1, 2, 2], "attention_type": "regular"})", {3, 8, 12}, 0, 0, std::nullopt, 32, 16, 1, 0.0021544346900318843, 0.00021544346900318845, 0, 1, 2, 72, {0, 0, 0.31645569620253161}, {2, 0.94936708860759489, 1.5822784810126582}},
};
// clang-format on

class GridRopePort : public ::testing::TestWithParam<GridCase> {};

TEST_P(GridRopePort, FrequenciesAxesAndPositionsAsThePort) {
  const GridCase& c = GetParam();
  const ModelConfig model = parse_model_config(c.config, std::string(c.name) + ".json");
  ASSERT_TRUE(model.grid.has_value());
  const RopeSpec spec = make_spec(model);
  ASSERT_TRUE(spec.axes.has_value());
  ASSERT_EQ(spec.params.inv_freq.size(), c.pairs);
  const auto near = [](double a, double b) { return std::abs(a - b) <= 1e-15 * std::max(1.0, std::abs(b)); };
  EXPECT_TRUE(near(spec.params.inv_freq[0], c.theta_first)) << spec.params.inv_freq[0];
  EXPECT_TRUE(near(spec.params.inv_freq[c.middle], c.theta_middle)) << spec.params.inv_freq[c.middle];
  EXPECT_TRUE(near(spec.params.inv_freq[c.pairs - 1], c.theta_last)) << spec.params.inv_freq[c.pairs - 1];
  const auto axis_of = [&](int j) {
    return j < spec.axes->padding ? -1 : spec.axes->pair_axis[static_cast<std::size_t>(j)];
  };
  EXPECT_EQ(axis_of(0), c.axis_first);
  EXPECT_EQ(axis_of(c.middle), c.axis_middle);
  EXPECT_EQ(axis_of(c.pairs - 1), c.axis_last);
  GridRequest r;
  r.latent = c.latent;
  r.text = c.text;
  r.reference_images = c.reference_images;
  r.fps = c.fps;
  const GridPositions g = grid_positions(*model.grid, r);
  ASSERT_EQ(g.tokens.size(), c.tokens);
  for (std::size_t a = 0; a < c.second.size(); ++a) {
    EXPECT_NEAR(g.tokens[1].p[a], c.second[a], 1e-12) << "axis " << a;
    EXPECT_NEAR(g.tokens.back().p[a], c.last[a], 1e-12) << "axis " << a;
  }
}

INSTANTIATE_TEST_SUITE_P(Diffusers, GridRopePort, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

// Kandinsky 5's scale_factor as its pipelines pick it from the frame of 8·H × 8·W pixels
// (pipeline_kandinsky.py:209-227, pipeline_kandinsky_t2i.py:713): the image pipeline's (1, 1, 1) for one frame; a
// video's (1, 2, 2) only when both sides are within 480 … 854.
struct ScaleCase {
  std::array<long, 3> latent;
  std::array<double, 3> factor;
};

class Kandinsky5Scale : public ::testing::TestWithParam<ScaleCase> {};

TEST_P(Kandinsky5Scale, AsThePipelinePicksIt) {
  EXPECT_EQ(kandinsky5_scale_factor(GetParam().latent), GetParam().factor);
}

INSTANTIATE_TEST_SUITE_P(Frames, Kandinsky5Scale,
                         ::testing::Values(ScaleCase{{1, 60, 80}, {1, 1, 1}}, ScaleCase{{31, 60, 80}, {1, 2, 2}},
                                           ScaleCase{{31, 60, 106}, {1, 2, 2}},
                                           ScaleCase{{31, 60, 107}, {1, 3.16, 3.16}},
                                           ScaleCase{{31, 59, 80}, {1, 3.16, 3.16}},
                                           ScaleCase{{31, 90, 160}, {1, 3.16, 3.16}}));

// What the models' own code cannot take is refused before a token is made: Z-Image's ids past its tables (axes_lens,
// RopeEmbedder; in the omni mode too), Kandinsky's nabla blocks on a frame not of 8 × 8 tokens, a scale factor or text
// a model has no use for.
TEST(GridRope, RefusesWhatTheModelCannotTake) {
  const ModelConfig z =
      parse_model_config(R"({"_class_name": "ZImageTransformer2DModel", "axes_lens": [33, 512, 512]})", "z.json");
  GridRequest r;
  r.latent = {1, 8, 8};
  r.text = 5;  // the caption padded to 32: the image at t = 33, the table's 34th row
  EXPECT_THROW(grid_positions(*z.grid, r), InvalidArgument);
  r.text = 0;
  EXPECT_EQ(grid_positions(*z.grid, r).tokens.size(), 32u);
  r.scale_factor = std::array<double, 3>{1, 2, 2};
  EXPECT_THROW(grid_positions(*z.grid, r), InvalidArgument);
  const ModelConfig k =
      parse_model_config(R"({"_class_name": "Kandinsky5Transformer3DModel", "attention_type": "nabla"})", "k.json");
  GridRequest kr;
  kr.latent = {2, 16, 24};  // 8 × 12 tokens per frame
  EXPECT_THROW(grid_positions(*k.grid, kr), InvalidArgument);
  kr.latent = {2, 16, 16};
  EXPECT_EQ(grid_positions(*k.grid, kr).tokens.size(), 128u);
  kr.text = 3;
  EXPECT_THROW(grid_positions(*k.grid, kr), InvalidArgument);
  // Z-Image's omni mode: a condition 6 × 4 before the 4 × 6 target, segments 5, 7, 3: 96 caption ids and 2 × 32 image
  // ids, caption 2 reaching t = 39 (caption 1's grid ids after caption 0's surplus padding), past a table of 33 rows;
  // segments not N + 2; two latents of 2^21 tokens each (the target alone within the limit of 2^22, the sequence
  // with its captions past it), refused before a token is made.
  const ModelConfig zd = parse_model_config(R"({"_class_name": "ZImageTransformer2DModel"})", "z.json");
  GridRequest o;
  o.latent = {1, 4, 6};
  o.condition_images = {{1, 6, 4}};
  o.captions = {5, 7, 3};
  o.text = 15;
  EXPECT_EQ(grid_positions(*zd.grid, o).tokens.size(), 160u);
  EXPECT_EQ(grid_positions(*zd.grid, o).tokens[95].p[0], 0.0);
  EXPECT_EQ(grid_positions(*zd.grid, o).tokens[90].p[0], 39.0);
  EXPECT_THROW(grid_positions(*z.grid, o), InvalidArgument);
  o.captions = {5, 7};
  EXPECT_THROW(grid_positions(*zd.grid, o), InvalidArgument);
  o.captions = {5, 7, 3};
  o.latent = {1, 2048, 4096};
  o.condition_images = {{1, 4096, 2048}};
  EXPECT_THROW(grid_positions(*zd.grid, o), InvalidArgument);
}

TEST(GridRope, ClassNamesAndPresets) {
  for (const char* name :
       {"WanTransformer3DModel", "FluxTransformer2DModel", "Flux2Transformer2DModel", "QwenImageTransformer2DModel",
        "HunyuanVideoTransformer3DModel", "LTXVideoTransformer3DModel", "CosmosTransformer3DModel",
        "Cosmos3OmniTransformer", "ZImageTransformer2DModel", "HunyuanVideo15Transformer3DModel",
        "Kandinsky5Transformer3DModel"}) {
    ASSERT_TRUE(grid_model_of_class(name).has_value()) << name;
    EXPECT_EQ(class_name(*grid_model_of_class(name)), name);
  }
  EXPECT_FALSE(grid_model_of_class("UNet2DConditionModel").has_value());
  for (const char* preset : {"wan2.1-t2v-14b", "wan2.1-t2v-1.3b", "flux.1-dev", "flux.2-dev", "qwen-image",
                             "hunyuanvideo", "ltx-video", "cosmos-predict2-2b", "cosmos3-nano", "z-image-turbo",
                             "hunyuanvideo-1.5-720p-t2v", "kandinsky-5.0-t2v-lite-sft-5s"}) {
    const ModelConfig m = load_preset(preset);
    ASSERT_TRUE(m.grid.has_value()) << preset;
    EXPECT_NO_THROW(make_spec(m)) << preset;
  }
  // Wan at d 64 (the #12538 case): widths 24, 20, 20 (WanRotaryPosEmbed.__init__, transformer_wan.py:366-367).
  const ModelConfig wan64 =
      parse_model_config(R"({"_class_name": "WanTransformer3DModel", "attention_head_dim": 64})", "wan64.json");
  EXPECT_EQ(wan64.grid->widths, (std::vector<int>{24, 20, 20}));
  // LTX at 32 × 64: 341 frequencies per axis, one padding pair (2048 mod 6 = 2 channels).
  const ModelConfig ltx = load_preset("ltx-video");
  EXPECT_EQ(ltx.grid->head_dim, 2048);
  EXPECT_EQ(ltx.grid->padding, 1);
}

// Cosmos 3 reads its sections in each spelling Cosmos3OmniTransformer.__init__ takes (transformer_cosmos3.py:431-434),
// always as Qwen3-VL's interleave (A3): rope_axes_dim, else rope_scaling's mrope_section (with or without
// mrope_interleaved), else [24, 20, 20].
TEST(GridRope, Cosmos3InterleavesItsSectionsHoweverTheConfigSpellsThem) {
  for (const char* config :
       {R"({"_class_name": "Cosmos3OmniTransformer", "rope_axes_dim": [24, 20, 20]})",
        R"({"_class_name": "Cosmos3OmniTransformer", "rope_scaling": {"mrope_section": [24, 20, 20]}})",
        R"({"_class_name": "Cosmos3OmniTransformer"})"}) {
    SCOPED_TRACE(config);
    const RopeSpec spec = make_spec(parse_model_config(config, "cosmos3.json"));
    ASSERT_TRUE(spec.axes.has_value());
    EXPECT_EQ(spec.axes->source.order, SectionOrder::Interleaved);
    EXPECT_EQ(spec.axes->source.sections, (std::vector<int>{24, 20, 20}));
    EXPECT_EQ(spec.layout, Layout::Half);
    EXPECT_EQ(spec.params.inv_freq[1], std::pow(5e6, -2.0 / 128));
  }
  // rope_axes_dim wins over rope_scaling's mrope_section; sections that do not cover the head are refused.
  const ModelConfig both = parse_model_config(
      R"({"_class_name": "Cosmos3OmniTransformer", "rope_axes_dim": [32, 16, 16], "rope_scaling": {"mrope_section": [24, 20, 20]}})",
      "both.json");
  EXPECT_EQ(make_spec(both).axes->source.sections, (std::vector<int>{32, 16, 16}));
  EXPECT_THROW(
      parse_model_config(R"({"_class_name": "Cosmos3OmniTransformer", "rope_axes_dim": [24, 20, 16]})", "x.json"),
      InvalidArgument);
  // Text first at (m, m, m); the latent after L + margin; fps scales t only with more than one frame and only when
  // the config enables the modulation; h and w from the offset when the config does not reset them.
  const ModelConfig m = load_preset("cosmos3-nano");
  GridRequest r;
  r.latent = {1, 2, 2};
  r.text = 2;
  r.fps = 16;
  const GridPositions one = grid_positions(*m.grid, r);
  ASSERT_EQ(one.tokens.size(), 3u);
  EXPECT_EQ(one.tokens[1].p[0], 1);
  EXPECT_EQ(one.tokens[2].p[0], 15002);  // one frame: no modulation
  const ModelConfig off = parse_model_config(
      R"({"_class_name": "Cosmos3OmniTransformer", "enable_fps_modulation": false, "unified_3d_mrope_reset_spatial_ids": false})",
      "off.json");
  r.latent = {2, 4, 4};
  const GridPositions g = grid_positions(*off.grid, r);
  EXPECT_EQ(g.tokens.back().p[0], 15003);  // f + L + margin: fps ignored
  EXPECT_EQ(g.tokens.back().p[1], 15003);  // h + L + margin
}

TEST(GridRope, RefusesWhatThePipelineCannotBuild) {
  const ModelConfig wan = load_preset("wan2.1-t2v-1.3b");
  GridRequest odd;
  odd.latent = {3, 5, 6};  // H = 5 is no multiple of the patch 2
  EXPECT_THROW(grid_positions(*wan.grid, odd), InvalidArgument);
  GridRequest text;
  text.latent = {1, 4, 4};
  text.text = 3;  // Wan's text is cross-attention
  EXPECT_THROW(grid_positions(*wan.grid, text), InvalidArgument);
  GridRequest huge;
  huge.latent = {4096, 4096, 4096};
  EXPECT_THROW(grid_positions(*wan.grid, huge), InvalidArgument);
  EXPECT_THROW(parse_model_config(R"({"_class_name": "FluxTransformer2DModel", "axes_dims_rope": [16, 56]})", "x.json"),
               InvalidArgument);
  EXPECT_THROW(
      parse_model_config(R"({"_class_name": "FluxTransformer2DModel", "axes_dims_rope": [16, 56, 58]})", "x.json"),
      InvalidArgument);
}

// Every product checked against the limit before it is made: sides of 2^22 with Wan's patch multiply to 2^64
// (0 after wrapping), text 2^63 − 1 wrapped the sum negative; both passed the limit and allocated without end.
TEST(GridRope, ChecksEveryProductBeforeItCanOverflow) {
  const ModelConfig wan = load_preset("wan2.1-t2v-1.3b"), flux = load_preset("flux.1-dev");
  const auto refused = [](const GridRope& g, const GridRequest& r, const std::string& words) {
    try {
      grid_positions(g, r);
      ADD_FAILURE() << "accepted: " << words;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  GridRequest sides;
  sides.latent = {kMaxGridTokens, kMaxGridTokens, kMaxGridTokens};
  refused(*wan.grid, sides, "the latent 4194304 × 2097152 × 2097152 (× 1 images) holds more tokens than the limit");
  for (const long text : {std::numeric_limits<long>::max(), -1L}) {
    GridRequest r;
    r.latent = {1, 4, 4};
    r.text = text;
    refused(*flux.grid, r, "must be between 0 and 4194304 (got " + std::to_string(text) + ")");
  }
  GridRequest images;
  images.latent = {1, 4, 4};
  images.reference_images = -1;
  refused(*flux.grid, images, "must be between 0 and 64 (got -1)");
}

}  // namespace
}  // namespace rope
