// The expectation side of rope check (rope/analysis/check/check.hpp): de-interleaved output, as HF's
// apply_rotary_pos_emb_interleave (models/deepseek_v3/modeling_deepseek_v3.py) returns DeepSeek-V3's, Kimi K2's
// and Mistral 4's rotated pairs: q viewed as (d/2, 2), transposed and reshaped, so pair (2i, 2i+1) moves to
// (i, i + d/2), then rotate_half. The dump is built here from that description with the fixtures' independent
// complex rotation.
#include <cmath>
#include <gtest/gtest.h>

#include <memory>

#include "analysis/dumps/test_dump_fixtures.hpp"
#include "rope/analysis/check/check.hpp"
#include "rope/analysis/check/check_run.hpp"
#include "rope/analysis/check/expectation.hpp"
#include "rope/core/constants.hpp"

namespace rope {
namespace {

/// x with the channels of its last `r` moved as HF's view(d/2, 2).transpose(4, 3).reshape(d) moves them.
DumpVectors deinterleave(const DumpVectors& x, int r) {
  DumpVectors y = x;
  const int off = x.d - r;
  for (long s = 0; s < x.seq; ++s) {
    for (long g = 0; g < x.groups(); ++g) {
      for (int i = 0; i < r / 2; ++i) {
        y.values[static_cast<std::size_t>((s * x.groups() + g) * x.d + off + i)] = x.value(s, g, off + 2 * i);
        y.values[static_cast<std::size_t>((s * x.groups() + g) * x.d + off + r / 2 + i)] =
            x.value(s, g, off + 2 * i + 1);
      }
    }
  }
  return y;
}

RopeExpectation interleaved(int d, int r, int offset) {
  RopeExpectation e;
  e.rope.layout = Layout::Interleaved;
  e.rope.head_dim = d;
  e.rope.rotary_offset = offset;
  e.rope.params.inv_freq.resize(r / 2);
  for (int j = 0; j < r / 2; ++j) e.rope.params.inv_freq[j] = std::pow(kDefaultBase, -2.0 * j / r);
  return e;
}

TEST(CheckExpectation, DeinterleavedOutputIsReadInterleavedAndWrittenHalf) {
  const DumpVectors x = test::random_dump(32, 2, 16);
  const DumpVectors y = test::rotate_dump(deinterleave(x, 16), true, 16, kDefaultBase);
  const auto p = test::range_positions(32);
  RopeExpectation e = interleaved(16, 16, 0);
  e.rope.deinterleaved_output = true;
  const CheckReport ok = check_dump(x, y, p, e);
  EXPECT_TRUE(ok.comparison.passed()) << ok.comparison.max_ratio;
  EXPECT_LT(ok.comparison.max_ratio, 1e-3);
  // Pair 3 is read at (6, 7) and written at (3, 11).
  EXPECT_EQ(pair_channels(e, 3, false), std::make_pair(6, 7));
  EXPECT_EQ(pair_channels(e, 3, true), std::make_pair(3, 11));
  // Without the de-interleaving the same dump fails, from position 0 (the channels moved).
  e.rope.deinterleaved_output = false;
  const CheckReport bad = check_dump(x, y, p, e);
  EXPECT_FALSE(bad.comparison.passed());
  EXPECT_EQ(bad.comparison.first_seq, 0);
  // and is named: HF's DeepSeek-V3 order where the spec (llama.cpp's) writes the pairs back in place.
  EXPECT_EQ(bad.diagnosis.matches, known_variant("output-deinterleaved"));
  // The reverse: a dump in place against the de-interleaving spec (a llama.cpp q_pe checked as HF's).
  e.rope.deinterleaved_output = true;
  const CheckReport in_place = check_dump(x, test::rotate_dump(x, false, 16, kDefaultBase), p, e);
  EXPECT_EQ(in_place.diagnosis.matches, known_variant("output-interleaved"));
}

TEST(CheckExpectation, DeinterleavedOutputAfterTheNopeChannels) {
  // DeepSeek-V3's q = cat(q_nope, q_pe): the RoPE part is the last 8 of 24 channels, the rest pass through.
  const DumpVectors x = test::random_dump(16, 1, 24);
  DumpVectors y = deinterleave(x, 8);
  // The fixtures rotate the first r channels: the last 8 are rotated as a dump of their own and put back.
  DumpVectors tail = x;
  tail.d = 8;
  tail.values.assign(static_cast<std::size_t>(16 * 8), 0.0);
  for (long s = 0; s < 16; ++s) {
    for (int c = 0; c < 8; ++c) tail.values[static_cast<std::size_t>(s * 8 + c)] = y.value(s, 0, 16 + c);
  }
  const DumpVectors tail_rot = test::rotate_dump(tail, true, 8, kDefaultBase);
  for (long s = 0; s < 16; ++s) {
    for (int c = 0; c < 8; ++c) y.values[static_cast<std::size_t>(s * 24 + 16 + c)] = tail_rot.value(s, 0, c);
  }
  RopeExpectation e = interleaved(24, 8, 16);
  e.rope.deinterleaved_output = true;
  const CheckReport ok = check_dump(x, y, test::range_positions(16), e);
  EXPECT_TRUE(ok.comparison.passed()) << ok.comparison.max_ratio;
  EXPECT_EQ(pair_channels(e, 1, false), std::make_pair(18, 19));
  EXPECT_EQ(pair_channels(e, 1, true), std::make_pair(17, 21));
}

TEST(CheckExpectation, TheSwappedLayoutVariantIsNotDeinterleaved) {
  RopeExpectation e = interleaved(16, 16, 0);
  e.rope.deinterleaved_output = true;
  for (const Variant& v : check_variants(e)) {
    if (v.kind == known_variant("layout-swapped")) {
      EXPECT_EQ(v.spec.rope.layout, Layout::Half);
      EXPECT_FALSE(v.spec.rope.deinterleaved_output);
    }
  }
}

TEST(CheckExpectation, QueryScalingMultipliesEveryChannelFromL0On) {
  // (S21): s(p) = 1 + β·ln(1 + ⌊p / L0⌋); Ministral 3's β 0.1, L0 16384: 1 below L0, 1 + 0.1·ln 16 = 1.27726 at 262143.
  RopeExpectation e = interleaved(24, 16, 0);  // 8 channels pass through: they are scaled too
  e.query_beta = 0.1;
  e.query_original = 4;
  EXPECT_EQ(e.query_scale(3), 1.0);
  EXPECT_DOUBLE_EQ(e.query_scale(4), 1.0 + 0.1 * std::log(2.0));
  EXPECT_DOUBLE_EQ(e.query_scale(15), 1.0 + 0.1 * std::log(4.0));
  RopeExpectation ministral = e;
  ministral.query_original = 16384;
  EXPECT_NEAR(ministral.query_scale(262143), 1.27726, 5e-6);
  // The reference (expected_dump) passes check; the same dump unscaled fails from position 4 on, every channel.
  const DumpVectors x = test::random_dump(12, 2, 24);
  const auto p = test::range_positions(12);
  std::vector<AxisPosition> axis_p;
  for (const double m : p) axis_p.push_back(AxisPosition::single(m));
  const DumpVectors y = expected_dump(x, axis_p, e);
  EXPECT_NEAR(y.value(9, 1, 20), e.query_scale(9) * x.value(9, 1, 20), 1e-15);
  const CheckReport ok = check_dump(x, y, p, e);
  EXPECT_TRUE(ok.comparison.passed()) << ok.comparison.max_ratio;
  RopeExpectation plain = e;
  plain.query_beta = 0;
  const CheckReport bad = check_dump(x, y, p, plain);
  EXPECT_FALSE(bad.comparison.passed());
  EXPECT_EQ(bad.comparison.first_seq, 4);
}

TEST(CheckExpectation, GemmaFourVisionPairsSitInsideEachAxisBlock) {
  // HF apply_multidimensional_rope (models/gemma4/modeling_gemma4.py at c308a309e651): torch.split into blocks of
  // 2·(d // 4) channels, rotate_half inside each: pair j of block b = j / (r/4) on b·r/2 + (k, k + r/4), k = j mod r/4.
  RopeExpectation e;
  e.rope.layout = Layout::Half;
  e.rope.axis_blocks = true;
  e.rope.head_dim = 72;
  e.set_theta(Eigen::VectorXd::Ones(36));
  EXPECT_EQ(pair_channels(e, 0, false), (std::pair{0, 18}));
  EXPECT_EQ(pair_channels(e, 17, true), (std::pair{17, 35}));
  EXPECT_EQ(pair_channels(e, 18, false), (std::pair{36, 54}));
  EXPECT_EQ(pair_channels(e, 35, true), (std::pair{53, 71}));
  // The layout-swapped variant keeps the blocks: the interleaved layout inside each, (36 + 2k, 36 + 2k + 1).
  for (const Variant& v : check_variants(e)) {
    if (v.kind != known_variant("layout-swapped")) continue;
    EXPECT_TRUE(v.spec.rope.axis_blocks);
    EXPECT_EQ(pair_channels(v.spec, 19, false), (std::pair{38, 39}));
  }
}

/// Plain RoPE of d channels, the half layout, at `base`.
RopeExpectation half_at(int d, double base) {
  RopeExpectation e;
  e.rope.layout = Layout::Half;
  e.rope.head_dim = d;
  e.rope.config.base = base;
  e.rope.params.inv_freq.resize(d / 2);
  for (int j = 0; j < d / 2; ++j) e.rope.params.inv_freq[j] = std::pow(base, -2.0 * j / d);
  return e;
}

struct LayerTypeCase {
  double dump_base;
  const char* passes_as;  ///< "": fails
};

class CheckArrangedLayerTypes : public ::testing::TestWithParam<LayerTypeCase> {};

TEST_P(CheckArrangedLayerTypes, ADumpPassesAsTheTypeItMatches) {
  // A model of two layer types (Gemma 3's full_attention at base 1e6, the default, and sliding_attention at 10000),
  // checked without one given (the Python module's check_arranged, as run_check): the type the dump passes as.
  const LayerTypeCase& c = GetParam();
  const DumpVectors x = test::random_dump(16, 2, 32);
  DumpPair pair;
  pair.before = x;
  pair.after = test::rotate_dump(x, true, 32, c.dump_base);
  pair.positions = test::range_positions(16);
  pair.axes = DumpAxes::SeqHeadsD;
  pair.shape = {16, 2, 32};
  LayerTypeTrial trial;
  trial.types = {"sliding_attention", "full_attention"};
  trial.default_type = "full_attention";
  // The one resolution the types' RoPEs are read from (check_run.hpp): each type's spec, here its base alone.
  auto model = std::make_shared<ModelRope>();
  for (const auto& [type, base] : {std::pair{"sliding_attention", 10000.0}, std::pair{"full_attention", 1e6}}) {
    RopeSpec spec;
    spec.config.base = base;
    model->layers.push_back({type, {}, spec, {}});
  }
  trial.model = model;
  trial.expectation = [](const ModelRope& layer, Message&) { return half_at(32, layer.spec.config.base); };
  const CheckRun run = check_arranged(pair, half_at(32, 1e6), trial);
  EXPECT_EQ(run.passed(), *c.passes_as != '\0');
  EXPECT_EQ(run.layer_type, c.passes_as);
  EXPECT_EQ(run.layer_types, trial.types);
  const std::string said = run.passed() ? run.report.notes.at(0).en : run.report.diagnosis.message.en;
  EXPECT_NE(said.find(run.passed() ? "PASS as a" : "matches none of the model's layer types"), std::string::npos)
      << said;
  // One type given (no trial): the default expectation alone, no layer type named.
  const CheckRun one = check_arranged(pair, half_at(32, 1e6));
  EXPECT_TRUE(one.layer_types.empty());
  EXPECT_EQ(one.passed(), c.dump_base == 1e6);
}

INSTANTIATE_TEST_SUITE_P(Bases, CheckArrangedLayerTypes,
                         ::testing::Values(LayerTypeCase{10000.0, "sliding_attention"},
                                           LayerTypeCase{1e6, "full_attention"}, LayerTypeCase{20000.0, ""}));

}  // namespace
}  // namespace rope
