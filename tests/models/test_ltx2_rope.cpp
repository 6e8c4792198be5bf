// rope/models/grid_rope.hpp (G6), (G7): LTX-2's video and audio RoPE read from its config.json
// (LTX2VideoTransformer3DModel), against
// tests/reference/ltx2_rope.py (a NumPy port of transformer_ltx2.py at huggingface/diffusers 58eb52c080, checked
// there against the source's own functions run under torch). The numbers were printed by the port (%.17g): the
// frequencies of pairs 2, 1000 and 2047 with their axes and channels (pair_table, channels), tokens 1 and n − 1 of the
// positions (positions(), audio_positions()). Frequencies agree to 1e-15 relative (pow in double on both sides);
// positions to 1e-15 (the same float64 steps: (start + end)/2 / base, then 2g − 1).
#include <array>
#include <cmath>
#include <gtest/gtest.h>
#include <string>
#include <vector>

#include "rope/core/error.hpp"
#include "rope/models/grid_rope.hpp"
#include "rope/models/model_config.hpp"
#include "rope/models/presets.hpp"
#include "rope/models/rope_spec.hpp"

namespace rope {
namespace {

struct Ltx2Case {
  const char* name;
  const char* config;
  int head_slices;
  Layout layout;
  std::array<int, 3> channels_first;  // the first channel of pairs 2, 1000, 2047
};

// clang-format off
const Ltx2Case kLtx2Cases[] = {
// Lightricks/LTX-2 (scripts/convert_ltx2_to_diffusers.py:299-345): 32 heads × 128, rope_type split
{"split", R"({"_class_name": "LTX2VideoTransformer3DModel", "num_attention_heads": 32, "attention_head_dim": 128, "rope_theta": 10000.0, "rope_type": "split", "pos_embed_max_pos": 20, "base_height": 2048, "base_width": 2048, "vae_scale_factors": [8, 32, 32], "causal_offset": 1})", 32, Layout::Half, {2, 1960, 4031}},
// the class's default rope_type (transformer_ltx2.py:1180)
{"interleaved", R"({"_class_name": "LTX2VideoTransformer3DModel", "num_attention_heads": 32, "attention_head_dim": 128})", 0, Layout::Interleaved, {4, 2000, 4094}},
};
// clang-format on

class Ltx2Port : public ::testing::TestWithParam<Ltx2Case> {};

TEST_P(Ltx2Port, FrequenciesAxesAndChannelsAsThePort) {
  const Ltx2Case& c = GetParam();
  const ModelConfig model = parse_model_config(c.config, std::string(c.name) + ".json");
  ASSERT_TRUE(model.grid.has_value());
  EXPECT_EQ(model.grid->model, GridModel::Ltx2);
  const RopeSpec spec = make_spec(model);
  EXPECT_EQ(spec.rotary_dim, 4096);
  EXPECT_EQ(spec.head_slices, c.head_slices);
  EXPECT_EQ(spec.layout, c.layout);
  ASSERT_EQ(spec.params.inv_freq.size(), 2048);
  ASSERT_TRUE(spec.axes.has_value());
  EXPECT_EQ(spec.axes->padding, 2);  // 4096 − 6 · 682 = 4 channels
  const auto near = [](double a, double b) { return std::abs(a - b) <= 1e-15 * std::max(1.0, std::abs(b)); };
  const std::array<int, 3> pairs{2, 1000, 2047};
  const std::array<double, 3> theta{1.5707963267948966, 140.02103981896775, 15707.963267948966};
  const std::array<int, 3> axis{0, 2, 2};
  for (std::size_t k = 0; k < 3; ++k) {
    SCOPED_TRACE(pairs[k]);
    EXPECT_TRUE(near(spec.params.inv_freq[pairs[k]], theta[k])) << spec.params.inv_freq[pairs[k]];
    EXPECT_EQ(spec.axes->pair_axis[static_cast<std::size_t>(pairs[k])], axis[k]);
    const PairChannels ch = spec_pair_channels(spec, pairs[k]);
    EXPECT_EQ(ch.first, c.channels_first[k]);
    // split: the partner 64 channels on inside its head of 128; interleaved: the next channel
    EXPECT_EQ(ch.second - ch.first, c.head_slices > 0 ? 64 : 1);
  }
}

INSTANTIATE_TEST_SUITE_P(Diffusers, Ltx2Port, ::testing::ValuesIn(kLtx2Cases),
                         [](const auto& info) { return std::string(info.param.name); });

struct Ltx2Positions {
  const char* name;
  const char* config;
  std::array<long, 3> latent;
  double fps;
  std::size_t tokens;
  std::array<double, 3> second, last;  // tokens 1 and n − 1
};

// clang-format off
const Ltx2Positions kPositions[] = {
{"fps24", R"({"_class_name": "LTX2VideoTransformer3DModel", "num_attention_heads": 4, "attention_head_dim": 32, "rope_type": "split"})", {3, 2, 3}, 24, 18, {-0.99791666666666667, -0.984375, -0.953125}, {-0.9458333333333333, -0.953125, -0.921875}},
{"fps25", R"({"_class_name": "LTX2VideoTransformer3DModel", "num_attention_heads": 4, "attention_head_dim": 32, "rope_type": "split"})", {3, 2, 3}, 25, 18, {-0.998, -0.984375, -0.953125}, {-0.94799999999999995, -0.953125, -0.921875}},
{"patch2", R"({"_class_name": "LTX2VideoTransformer3DModel", "rope_type": "split", "patch_size": 2, "patch_size_t": 2})", {4, 4, 2}, 24, 4, {-0.98124999999999996, -0.90625, -0.96875}, {-0.9291666666666667, -0.90625, -0.96875}},
};
// clang-format on

class Ltx2PositionsPort : public ::testing::TestWithParam<Ltx2Positions> {};

TEST_P(Ltx2PositionsPort, PatchMidpointsInSecondsAndPixelsMappedTo2gMinus1) {
  const Ltx2Positions& c = GetParam();
  const ModelConfig model = parse_model_config(c.config, std::string(c.name) + ".json");
  GridRequest r;
  r.latent = c.latent;
  r.fps = c.fps;
  const GridPositions g = grid_positions(*model.grid, r);
  ASSERT_EQ(g.tokens.size(), c.tokens);
  for (std::size_t a = 0; a < 3; ++a) {
    EXPECT_NEAR(g.tokens[1].p[a], c.second[a], 1e-15) << "axis " << a;
    EXPECT_NEAR(g.tokens.back().p[a], c.last[a], 1e-15) << "axis " << a;
  }
}

INSTANTIATE_TEST_SUITE_P(Diffusers, Ltx2PositionsPort, ::testing::ValuesIn(kPositions),
                         [](const auto& info) { return std::string(info.param.name); });

struct Ltx2Audio {
  const char* name;
  const char* config;
  long frames;
  std::size_t tokens;
  double second, last;  // tokens 1 and n − 1
};

// clang-format off
const Ltx2Audio kAudio[] = {
{"defaults", R"({"_class_name": "LTX2VideoTransformer3DModel", "audio_num_attention_heads": 4, "audio_attention_head_dim": 32})", 7, 7, -0.997, -0.97699999999999998},
{"patch2_causal0", R"({"_class_name": "LTX2VideoTransformer3DModel", "audio_patch_size_t": 2, "audio_scale_factor": 2, "causal_offset": 0})", 6, 3, -0.996, -0.99199999999999999},
{"rate24000", R"({"_class_name": "LTX2VideoTransformer3DModel", "audio_sampling_rate": 24000, "audio_hop_length": 240})", 3, 3, -0.997, -0.99299999999999999},
};
// clang-format on

class Ltx2AudioPort : public ::testing::TestWithParam<Ltx2Audio> {};

TEST_P(Ltx2AudioPort, MelFramesInSecondsMappedTo2gMinus1) {
  const Ltx2Audio& c = GetParam();
  const ModelConfig model = parse_model_config(c.config, std::string(c.name) + ".json");
  GridRequest r;
  r.latent = {c.frames, 1, 1};
  r.audio = true;
  const GridPositions g = grid_positions(*model.grid, r);
  EXPECT_TRUE(g.audio);
  ASSERT_EQ(g.tokens.size(), c.tokens);
  EXPECT_NEAR(g.tokens[1].p[0], c.second, 1e-15);
  EXPECT_NEAR(g.tokens.back().p[0], c.last, 1e-15);
}

INSTANTIATE_TEST_SUITE_P(Diffusers, Ltx2AudioPort, ::testing::ValuesIn(kAudio),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(Ltx2, TheAudioStreamIsOneAxisOfDOver2FrequenciesInHeadSlices) {
  // the preset's audio stream: 32 heads × 64, 1024 frequencies over t, no padding; the port's pair_table(axes=1)
  GridRope audio = ltx2_audio_rope(*load_preset("ltx-2").grid);
  EXPECT_TRUE(audio.audio);
  ModelConfig m;
  m.grid = audio;
  m.rope.head_dim = audio.head_dim;
  const RopeSpec spec = make_spec(m);
  EXPECT_EQ(spec.rotary_dim, 2048);
  EXPECT_EQ(spec.head_slices, 32);
  ASSERT_EQ(spec.params.inv_freq.size(), 1024);
  EXPECT_EQ(spec.axes->padding, 0);
  EXPECT_EQ(spec.axes->axes, 1);
  const std::array<int, 3> pairs{0, 500, 1023};
  const std::array<double, 3> theta{1.5707963267948966, 141.62962006920085, 15707.963267948966};
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_NEAR(spec.params.inv_freq[pairs[k]], theta[k], 1e-15 * theta[k]) << pairs[k];
  }
  // audio tokens of another model, and text or fps with them, are refused
  EXPECT_THROW(ltx2_audio_rope(*load_preset("wan2.1-t2v-1.3b").grid), InvalidArgument);
  GridRequest r;
  r.audio = true;
  r.fps = 24;
  EXPECT_THROW(grid_positions(audio, r), InvalidArgument);
}

TEST(Ltx2, ThePresetIsLightricksLtx2) {
  const ModelConfig m = load_preset("ltx-2");
  ASSERT_TRUE(m.grid.has_value());
  EXPECT_EQ(m.grid->model, GridModel::Ltx2);
  EXPECT_EQ(m.grid->head_dim, 4096);
  EXPECT_EQ(m.grid->heads, 32);
  EXPECT_EQ(make_spec(m).head_slices, 32);
}

TEST(Ltx2, RefusesARopeTypeTheClassRefusesAndTextInItsSequence) {
  // transformer_ltx2.py:848-849: "interleaved" or "split"
  EXPECT_THROW(parse_model_config(R"({"_class_name": "LTX2VideoTransformer3DModel", "rope_type": "half"})", "bad.json"),
               InvalidArgument);
  const ModelConfig m = parse_model_config(R"({"_class_name": "LTX2VideoTransformer3DModel"})", "ltx2.json");
  GridRequest r;
  r.text = 3;  // the text reaches the video by cross-attention, not in its sequence
  EXPECT_THROW(grid_positions(*m.grid, r), InvalidArgument);
}

}  // namespace
}  // namespace rope
