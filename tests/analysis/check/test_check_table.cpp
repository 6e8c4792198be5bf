// rope check's known variants as one table and the modes of a check (rope/analysis/check/check_table.hpp): a row per
// VariantKind in its order, unique names, every variant check_variants builds reporting the parameters its row
// declares, the forward mode's expectation unchanged and its sentences the rows' own.
#include <gtest/gtest.h>
#include <memory>
#include <set>
#include <string>

#include "rope/analysis/check/check_table.hpp"
#include "support/expectation.hpp"

namespace rope {
namespace {

TEST(CheckTable, OneRowPerKindInOrder) {
  const std::vector<VariantRow>& table = variant_table();
  ASSERT_EQ(table.size(), static_cast<std::size_t>(VariantKind::FopeSinPaddedOne) + 1);
  std::set<std::string> names;
  const RopeExpectation e = test::expect_half(16);
  for (std::size_t k = 0; k < table.size(); ++k) {
    const VariantRow& row = table[k];
    EXPECT_EQ(static_cast<std::size_t>(row.kind), k);
    EXPECT_TRUE(names.insert(row.name).second) << row.name << " twice";
    EXPECT_EQ(std::string(to_string(row.kind)), row.name);
    EXPECT_FALSE(describe(row.kind, e).en.empty()) << row.name;
    EXPECT_NE(row.says, nullptr) << row.name;
    EXPECT_STRNE(to_string(row.detection), "?") << row.name;
  }
  EXPECT_EQ(std::string(to_string(VariantKind::CacheShort)), "cos-sin-cache-short");
  EXPECT_EQ(describe(VariantKind::LayoutSwapped, e).en, "the interleaved layout");
}

/// "length,wraps" of the found pairs, in order.
std::string keys(const std::vector<std::pair<std::string, double>>& found) {
  std::string out;
  for (const auto& [k, v] : found) out += (out.empty() ? "" : ",") + k;
  return out;
}

struct ExpectationCase {
  const char* name;
  RopeExpectation (*make)();
};

class CheckTableParameters : public testing::TestWithParam<ExpectationCase> {};

// Every variant check_variants builds reports the parameters its row declares (JSON's "found").
TEST_P(CheckTableParameters, VariantsReportTheirRowsParameters) {
  const RopeExpectation e = GetParam().make();
  const std::vector<Variant> variants = check_variants(e);
  ASSERT_FALSE(variants.empty());
  for (const Variant& v : variants) {
    const VariantRow& row = variant_row(v.kind);
    EXPECT_EQ(keys(v.found), row.parameters) << row.name;
    EXPECT_EQ(row.detection, VariantDetection::Compared) << row.name;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Expectations, CheckTableParameters,
    testing::Values(ExpectationCase{"half", [] { return test::expect_half(16); }},
                    ExpectationCase{"partial_scaled",
                                    [] {
                                      RopeExpectation e = test::expect_half(32, 16, 500000, 1.2);
                                      e.rope.config.type = ScalingType::Linear;
                                      e.rope.params.inv_freq /= 4.0;
                                      return e;
                                    }},
                    ExpectationCase{"interleaved_deinterleaved",
                                    [] {
                                      RopeExpectation e = test::expect_half(16);
                                      e.rope.layout = Layout::Interleaved;
                                      e.rope.deinterleaved_output = true;
                                      return e;
                                    }},
                    ExpectationCase{"mrope_decode",
                                    [] {
                                      RopeExpectation e = test::expect_half(16);
                                      e.rope.axes = make_axis_map({{4, 2, 2}, SectionOrder::Chunked}, 8);
                                      e.rope_delta = 7;
                                      return e;
                                    }},
                    // Qwen3-VL's interleave and openPangu-VL's of [2, 3, 3] part at pair 3 (THW·HW… against THW·THW…):
                    // each builds the other order's variant with its pair.
                    ExpectationCase{"mrope_interleaved",
                                    [] {
                                      RopeExpectation e = test::expect_half(16);
                                      e.rope.axes = make_axis_map({{2, 3, 3}, SectionOrder::Interleaved}, 8);
                                      return e;
                                    }},
                    ExpectationCase{"mrope_openpangu",
                                    [] {
                                      RopeExpectation e = test::expect_half(16);
                                      e.rope.axes = make_axis_map({{2, 3, 3}, SectionOrder::PanguGreedy}, 8);
                                      return e;
                                    }},
                    // FoPE (models/fope.hpp): 5 of 8 pairs kept, 3 padded; its own variants, the padding with "padded".
                    ExpectationCase{"fope",
                                    [] {
                                      RopeExpectation e = test::expect_half(16);
                                      FopeCoefficients c;
                                      c.kept = 5;
                                      c.cos.assign(25, 0.0), c.sin.assign(25, 0.0);
                                      e.fope = std::make_shared<const FopeCoefficients>(c);
                                      return e;
                                    }},
                    // HunyuanVL's XD-RoPE: HF's map builds Tencent's variant and the other way, each with its pair.
                    ExpectationCase{"xdrope_hf",
                                    [] {
                                      RopeExpectation e = test::expect_half(16);
                                      e.rope.axes = make_axis_map({{2, 2, 2, 2}, SectionOrder::XdropeHf}, 8);
                                      return e;
                                    }},
                    ExpectationCase{"xdrope_tencent",
                                    [] {
                                      RopeExpectation e = test::expect_half(16);
                                      e.rope.axes = make_axis_map({{2, 2, 2, 2}, SectionOrder::XdropeTencent}, 8);
                                      return e;
                                    }}),
    [](const testing::TestParamInfo<ExpectationCase>& info) { return std::string(info.param.name); });

TEST(CheckTable, TheOtherInterleaveIsTriedWhereTheTwoOrdersPart) {
  // [2, 3, 3] over 8 pairs: openPangu-VL's greedy order parts from Qwen3-VL's at pair 3; [2, 1, 1] over 4 pairs is
  // t h w t in both, so neither variant is built (it would pass wherever the expectation does).
  for (const auto& [order, other] : {std::pair{SectionOrder::Interleaved, VariantKind::SectionsPangu},
                                     std::pair{SectionOrder::PanguGreedy, VariantKind::SectionsQwen3}}) {
    RopeExpectation e = test::expect_half(16);
    e.rope.axes = make_axis_map({{2, 3, 3}, order}, 8);
    int built = 0;
    for (const Variant& v : check_variants(e)) {
      if (v.kind != other) continue;
      ++built;
      ASSERT_EQ(v.found.size(), 1u);
      EXPECT_EQ(v.found.front().second, 3);
    }
    EXPECT_EQ(built, 1) << to_string(other);
    RopeExpectation same = test::expect_half(8);
    same.rope.axes = make_axis_map({{2, 1, 1}, order}, 4);
    for (const Variant& v : check_variants(same)) EXPECT_NE(v.kind, other);
  }
}

TEST(CheckTable, FopeTriesItsPaddingWithTheCountOfPaddedPairs) {
  RopeExpectation e = test::expect_half(16);
  FopeCoefficients c;
  c.kept = 5;
  c.cos.assign(25, 0.0), c.sin.assign(25, 0.0);
  e.fope = std::make_shared<const FopeCoefficients>(c);
  const std::vector<Variant> variants = check_variants(e);
  ASSERT_FALSE(variants.empty());
  EXPECT_EQ(variants.front().kind, VariantKind::FopeSinPaddedOne);
  EXPECT_EQ(variants.front().spec.fope_pad_sin, 1.0);
  ASSERT_EQ(variants.front().found.size(), 1u);
  EXPECT_EQ(variants.front().found.front().second, 3);
  for (const Variant& v : variants) EXPECT_EQ(v.spec.fope, e.fope);  // every one keeps the coefficients
  c.kept = 8;                                                        // nothing padded: no such variant
  e.fope = std::make_shared<const FopeCoefficients>(c);
  for (const Variant& v : check_variants(e)) EXPECT_NE(v.kind, VariantKind::FopeSinPaddedOne);
}

TEST(CheckTable, TheOtherXdropeMapIsTriedAtTheFirstPairTheyPart) {
  // [2, 2, 2, 2] over 8 pairs: HF's pair 0 reads p and h, Tencent's p and p: they part at pair 0.
  for (const auto& [order, other] : {std::pair{SectionOrder::XdropeHf, VariantKind::XdropeTencentMap},
                                     std::pair{SectionOrder::XdropeTencent, VariantKind::XdropeHfMap}}) {
    RopeExpectation e = test::expect_half(16);
    e.rope.axes = make_axis_map({{2, 2, 2, 2}, order}, 8);
    int built = 0;
    for (const Variant& v : check_variants(e)) {
      if (v.kind != other) continue;
      ++built;
      ASSERT_EQ(v.found.size(), 1u);
      EXPECT_EQ(v.found.front().second, 0);
      EXPECT_NE(v.spec.rope.axes->source.order, order);
    }
    EXPECT_EQ(built, 1) << to_string(other);
  }
}

TEST(CheckModeTable, ForwardIsTheDefaultAndChangesNothing) {
  const RopeExpectation e = test::expect_half(16, 8, 500000, 1.5);
  EXPECT_EQ(e.mode, CheckMode::Forward);
  ASSERT_EQ(check_modes().size(), 3u);  // forward, grad, shift
  const CheckModeRow& forward = check_mode(CheckMode::Forward);
  EXPECT_STREQ(forward.name, "forward");
  EXPECT_STREQ(to_string(CheckMode::Forward), "forward");
  EXPECT_EQ(check_mode_named("forward"), CheckMode::Forward);
  EXPECT_EQ(check_mode_named("backward"), std::nullopt);
  EXPECT_FALSE(forward.title(e).en.empty());
  const RopeExpectation f = forward.expectation(e);
  EXPECT_EQ(f.theta(), e.theta());
  EXPECT_EQ(f.attention_factor(), e.attention_factor());
  EXPECT_EQ(f.rope.rotary_offset, e.rope.rotary_offset);
  EXPECT_EQ(f.mode, CheckMode::Forward);
}

// In the forward mode a matched variant's sentence is its row's, with the diagnosis's parameter.
TEST(CheckModeTable, ForwardSaysTheRowsSentence) {
  const RopeExpectation e = test::expect_half(16, 0, 500000);
  CheckDiagnosis dg;
  dg.found = {{"base", 10000}};
  const DumpComparison c;
  const std::vector<AxisPosition> positions{AxisPosition::single(0), AxisPosition::single(1)};
  const VariantSaying saying{e, dg, c, positions, 2, DType::F32};
  EXPECT_EQ(variant_sentence(VariantKind::BaseOther, saying).en, "matches base 10000, not 500000: is rope_theta read?");
  EXPECT_EQ(variant_sentence(VariantKind::Base10000, saying).en, variant_row(VariantKind::Base10000).says(saying).en);
  EXPECT_TRUE(variant_sentence(VariantKind::Expected, saying).en.empty());
}

}  // namespace
}  // namespace rope
