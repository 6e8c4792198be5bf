// A cos/sin table against a model's RoPE (rope/analysis/check/table_model.hpp): a table built here from the formula
// a·cos(m·θ_i), a·sin(m·θ_i) in float32 (θ_i = base^(−2i/r), as every engine's cache builder computes it) passes
// against the model it was built for, and each planted mistake is named; (T2) at its bound. The engines' own cache
// builders, ported, are tests/cli/check_engine_caches.py's.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "rope/analysis/check/table_model.hpp"
#include "rope/core/dtype.hpp"
#include "rope/core/error.hpp"

namespace rope {
namespace {

/// A table of `rows` positions: cos and sin [rows, pairs] of plain RoPE of `base` over 2·pairs channels, times `a`,
/// each value computed in float32 (the angle, its cos and sin, the product) and rounded to `type`.
struct Built {
  TensorData cos, sin;
};
Built plain_table(long rows, int pairs, double base, double a = 1, DType type = DType::F32) {
  Built b;
  for (TensorData* t : {&b.cos, &b.sin}) t->shape = {rows, pairs}, t->dtype = DType::F32;
  for (long m = 0; m < rows; ++m) {
    for (int i = 0; i < pairs; ++i) {
      const float theta = 1.0f / std::pow(static_cast<float>(base), static_cast<float>(2 * i) / (2.0f * pairs));
      const float phi = static_cast<float>(m) * theta;
      b.cos.values.push_back(round_to(type, static_cast<float>(std::cos(phi) * static_cast<float>(a))));
      b.sin.values.push_back(round_to(type, static_cast<float>(std::sin(phi) * static_cast<float>(a))));
    }
  }
  return b;
}

/// Qwen3 8B: head 128, base 1e6, half layout, no scaling (data/models/qwen3-8b.json).
CheckSettings qwen3() {
  CheckSettings s;
  s.source.preset = "qwen3-8b";
  return s;
}

TableModelRun check(const Built& b, const CheckSettings& s) {
  return check_table_against_model(
      [&](bool interleaved) { return given_table(b.cos, b.sin, interleaved, std::nullopt, 128, "--cos cos.npy"); }, s);
}

std::vector<std::string> names(const TableModelRun& run) {
  std::vector<std::string> out;
  for (const TableFinding& f : run.findings) out.push_back(f.name);
  return out;
}

TEST(TableModel, TheModelsOwnTablePassesAndItsBaseIsMeasured) {
  const TableModelRun run = check(plain_table(256, 64, 1e6), qwen3());
  EXPECT_TRUE(run.passed()) << (run.findings.empty() ? "" : run.findings[0].says.en);
  EXPECT_EQ(run.compared, 256 * 64);
  EXPECT_LT(run.worst, 1);
  ASSERT_EQ(run.measured_theta.size(), 64);
  // θ measured from the columns: within float32's rounding of the float32 θ the table was built from.
  for (int i = 0; i < 64; ++i) {
    const double want = 1.0f / std::pow(1e6f, static_cast<float>(2 * i) / 128.0f);
    EXPECT_NEAR(run.measured_theta[i], want, 1e-6 * want + 1e-9) << "pair " << i;
  }
}

/// One planted mistake: how the table is built, and the findings named.
struct Planted {
  const char* name;
  std::function<Built()> build;
  std::function<void(CheckSettings&)> settings;
  std::vector<std::string> findings;
};

class TableModelMistake : public ::testing::TestWithParam<Planted> {};

TEST_P(TableModelMistake, IsNamed) {
  const Planted& p = GetParam();
  CheckSettings s = qwen3();
  if (p.settings) p.settings(s);
  const TableModelRun run = check(p.build(), s);
  EXPECT_FALSE(run.passed());
  EXPECT_EQ(names(run), p.findings);
}

Built swapped(Built b) {
  std::swap(b.cos, b.sin);
  return b;
}

/// Every row's entries written twice as neighbouring pairs (repeat_interleave), for a model that splits halves.
Built pairs(const Built& b) {
  Built out;
  for (auto [from, to] : {std::pair{&b.cos, &out.cos}, std::pair{&b.sin, &out.sin}}) {
    to->shape = {from->shape[0], 2 * from->shape[1]}, to->dtype = from->dtype;
    for (double v : from->values) to->values.insert(to->values.end(), {v, v});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(
    Planted, TableModelMistake,
    ::testing::Values(Planted{"base_10000", [] { return plain_table(256, 64, 1e4); }, nullptr, {"base-other"}},
                      Planted{
                          "swapped", [] { return swapped(plain_table(256, 64, 1e6)); }, nullptr, {"cos-sin-swapped"}},
                      Planted{"bf16", [] { return plain_table(256, 64, 1e6, 1, DType::BF16); }, nullptr, {"rounded"}},
                      Planted{"magnitude", [] { return plain_table(256, 64, 1e6, 1.5); }, nullptr, {"magnitude-other"}},
                      Planted{"pairs", [] { return pairs(plain_table(256, 64, 1e6)); }, nullptr, {"other-order"}},
                      Planted{"rows_short",
                              [] { return plain_table(64, 64, 1e6); },
                              [](CheckSettings& s) { s.rope.seq_len = 128; },
                              {"rows-short"}},
                      // The model's base over 64 channels where the model rotates 128: the width alone is named.
                      Planted{"width", [] { return plain_table(256, 32, 1e6); }, nullptr, {"rotary-width"}},
                      // YaRN on top of the model (factor 4 over 32768): the table is plain RoPE of the base.
                      Planted{"scaling_ignored",
                              [] { return plain_table(256, 64, 1e6); },
                              [](CheckSettings& s) {
                                s.rope.scaling = "yarn";
                                s.rope.factor = 4;
                                s.rope.original_max_position_embeddings = 32768;
                              },
                              {"attention-factor-missing", "scaling-ignored"}}),
    [](const ::testing::TestParamInfo<Planted>& info) { return std::string(info.param.name); });

TEST(TableModel, ToleranceT2AtItsBound) {
  // One entry moved by just inside and just outside κ·a·(ε_A·(1 + c_i·m·θ_i) + 2·ε_U) at position 0, pair 0
  // (m·θ_i = 0: the bound is κ·(ε_f32 + 2·ε_f32) = 24·ε_f32).
  const double bound = 8 * 3 * epsilon(DType::F32);
  for (const auto& [by, passes] : {std::pair{0.9 * bound, true}, std::pair{1.1 * bound, false}}) {
    Built b = plain_table(16, 64, 1e6);
    b.cos.values[0] += by;
    EXPECT_EQ(check(b, qwen3()).failed == 0, passes) << by;
  }
}

TEST(TableModel, ATableAloneNeedsAModel) {
  CheckSettings s;
  EXPECT_THROW(check(plain_table(16, 64, 1e6), s), InvalidArgument);
}

}  // namespace
}  // namespace rope
