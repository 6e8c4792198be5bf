// rope check's modes (rope/analysis/check/check_mode.hpp, issue 66) on dumps written by independent code
// (tests/reference/grad_shift.py): gradients from PyTorch's autograd through HF's rotate_half and GPT-J's interleaved
// forward, float32 and bf16, positions to 131 071; shifted K caches by NumPy (HF's YaRN frequencies); each planted
// backward and shift mistake by NumPy from its own formula. A correct dump passes in every dtype; a planted one is
// named with its parameter.
#include <gtest/gtest.h>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "rope/analysis/check/check_run.hpp"
#include "rope/core/error.hpp"
#include "support/cli_harness.hpp"

namespace rope {
namespace {

const std::string kGradShift = std::string(ROPE_REFERENCE_DIR) + "/grad_shift/";

struct ModeCase {
  const char* name;
  CheckMode mode;
  const char* before;
  const char* after;
  const char* model;  ///< "plain-half", "plain-interleaved", "yarn-half", "yarn-interleaved", "partial-half",
                      ///< "partial-interleaved"
  bool bits;          ///< bf16 bit patterns
  const char* kind;   ///< "expected": passes; else the diagnosis's variant (to_string)
  const char* found;  ///< the parameter named ("" none)
  double value;
};

// The positions of grad_shift.py (POSITIONS), δ = −512.
constexpr const char* kModePositions = "0,1,7,4095,4096,32768,65535,131071";
constexpr double kModeDelta = -512;
constexpr double kYarnMagnitude = 1.1386294361119891;  // 0.1·ln 4 + 1 (HF get_mscale(4))

const ModeCase kCases[] = {
    // --grad: PyTorch's autograd, every dtype and layout passes.
    {"GradHalfF32", CheckMode::Grad, "grad_half_default_f32_g", "grad_half_default_f32_gx", "plain-half", false,
     "expected", "", 0},
    {"GradHalfBf16", CheckMode::Grad, "grad_half_default_bf16_g", "grad_half_default_bf16_gx", "plain-half", true,
     "expected", "", 0},
    {"GradInterleavedF32", CheckMode::Grad, "grad_interleaved_default_f32_g", "grad_interleaved_default_f32_gx",
     "plain-interleaved", false, "expected", "", 0},
    {"GradInterleavedBf16", CheckMode::Grad, "grad_interleaved_default_bf16_g", "grad_interleaved_default_bf16_gx",
     "plain-interleaved", true, "expected", "", 0},
    {"GradYarnF32", CheckMode::Grad, "grad_half_yarn_f32_g", "grad_half_yarn_f32_gx", "yarn-half", false, "expected",
     "", 0},
    {"GradYarnBf16", CheckMode::Grad, "grad_half_yarn_bf16_g", "grad_half_yarn_bf16_gx", "yarn-half", true, "expected",
     "", 0},
    {"GradPartialF32", CheckMode::Grad, "grad_half_default_partial_f32_g", "grad_half_default_partial_f32_gx",
     "partial-half", false, "expected", "", 0},
    {"GradPartialBf16", CheckMode::Grad, "grad_half_default_partial_bf16_g", "grad_half_default_partial_bf16_gx",
     "partial-half", true, "expected", "", 0},
    // --grad: the planted backward mistakes.
    {"GradForwardRotation", CheckMode::Grad, "grad_half_default_f32_g", "grad_planted_forward_rotation", "plain-half",
     false, "rotation-reversed", "", 0},
    {"GradIdentity", CheckMode::Grad, "grad_half_default_f32_g", "grad_planted_identity", "plain-half", false,
     "before-equals-after", "", 0},
    {"GradAllZero", CheckMode::Grad, "grad_half_default_f32_g", "grad_planted_all_zero", "plain-half", false,
     "output-zero", "", 0},
    {"GradHeadZeroed", CheckMode::Grad, "grad_half_default_f32_g", "grad_planted_head_zeroed", "plain-half", false,
     "heads-zeroed", "head", 2},
    {"GradHeadUninitialised", CheckMode::Grad, "grad_half_default_f32_g", "grad_planted_head_uninitialised",
     "plain-half", false, "heads-uninitialised", "head", 1},
    {"GradHeadsCrossed", CheckMode::Grad, "grad_half_default_f32_g", "grad_planted_heads_crossed", "plain-half", false,
     "heads-crossed", "from", 2},
    {"GradChannelsZeroed", CheckMode::Grad, "grad_half_default_f32_g", "grad_planted_channels_zeroed", "plain-half",
     false, "channels-zeroed", "channel", 40},
    {"GradFactorMissing", CheckMode::Grad, "grad_half_yarn_f32_g", "grad_planted_factor_missing", "yarn-half", false,
     "attention-factor-missing", "", 0},
    {"GradFactorTwice", CheckMode::Grad, "grad_half_yarn_f32_g", "grad_planted_factor_twice", "yarn-half", false,
     "norm-scaled", "factor", kYarnMagnitude},
    {"GradPassThrough", CheckMode::Grad, "grad_half_default_partial_f32_g", "grad_planted_passthrough", "partial-half",
     false, "pass-through-changed", "channel", 32},
    // --shift: a correct shift passes in every dtype, with YaRN's frequencies and no magnitude.
    {"ShiftPlainF32", CheckMode::Shift, "shift_default_f32_k", "shift_default_f32_shifted", "plain-interleaved", false,
     "expected", "", 0},
    {"ShiftPlainBf16", CheckMode::Shift, "shift_default_bf16_k", "shift_default_bf16_shifted", "plain-interleaved",
     true, "expected", "", 0},
    {"ShiftYarnF32", CheckMode::Shift, "shift_yarn_f32_k", "shift_yarn_f32_shifted", "yarn-interleaved", false,
     "expected", "", 0},
    {"ShiftYarnBf16", CheckMode::Shift, "shift_yarn_bf16_k", "shift_yarn_bf16_shifted", "yarn-interleaved", true,
     "expected", "", 0},
    {"ShiftPartialF32", CheckMode::Shift, "shift_partial_f32_k", "shift_partial_f32_shifted", "partial-interleaved",
     false, "expected", "", 0},
    // --shift: the planted mistakes.
    {"ShiftMagnitudeAgainF32", CheckMode::Shift, "shift_yarn_f32_k", "shift_yarn_f32_magnitude_again",
     "yarn-interleaved", false, "magnitude-reapplied", "factor", kYarnMagnitude},
    {"ShiftMagnitudeAgainBf16", CheckMode::Shift, "shift_yarn_bf16_k", "shift_yarn_bf16_magnitude_again",
     "yarn-interleaved", true, "magnitude-reapplied", "factor", kYarnMagnitude},
    {"ShiftWrongSign", CheckMode::Shift, "shift_yarn_f32_k", "shift_yarn_f32_wrong_sign", "yarn-interleaved", false,
     "rotation-reversed", "", 0},
    {"ShiftNotApplied", CheckMode::Shift, "shift_yarn_f32_k", "shift_yarn_f32_not_shifted", "yarn-interleaved", false,
     "before-equals-after", "", 0},
    {"ShiftPassThrough", CheckMode::Shift, "shift_partial_f32_k", "shift_partial_f32_passthrough",
     "partial-interleaved", false, "pass-through-changed", "channel", 32},
    // --shift: δ applied twice and δ off by one (issue 78), said in the shift's words (ShiftMistakesInTheShiftsWords).
    {"ShiftDoubled", CheckMode::Shift, "shift_default_f32_k", "shift_default_f32_doubled", "plain-interleaved", false,
     "positions-offset", "offset", kModeDelta},
    {"ShiftOffByOne", CheckMode::Shift, "shift_default_f32_k", "shift_default_f32_off_by_one", "plain-interleaved",
     false, "positions-plus-one", "", 0},
};

CheckRequest mode_request(const ModeCase& c) {
  CheckRequest q;
  q.dumps.before = kGradShift + c.before + ".npy";
  q.dumps.after = kGradShift + c.after + ".npy";
  q.dumps.bf16_bits = c.bits;
  if (c.mode != CheckMode::Shift) q.dumps.positions = kModePositions;
  CheckSettings& s = q.settings;
  const std::string model = c.model;
  s.layout = model.find("interleaved") != std::string::npos ? Layout::Interleaved : Layout::Half;
  if (model.rfind("yarn", 0) == 0) {  // grad_shift.py's YARN: HF's YaRN, factor 4 over 4096 positions
    s.rope.scaling = "yarn";
    s.rope.factor = 4;
    s.rope.original_max_position_embeddings = 4096;
  }
  if (model.rfind("partial", 0) == 0) s.rope.partial_rotary_factor = 0.5;
  s.mode = c.mode;
  s.shift = c.mode == CheckMode::Shift ? kModeDelta : 0;
  return q;
}

class CheckModes : public ::testing::TestWithParam<ModeCase> {};

TEST_P(CheckModes, PassesTheRightOneAndNamesThePlantedMistake) {
  const ModeCase& c = GetParam();
  const CheckRun run = run_check(mode_request(c));
  EXPECT_EQ(run.expected.mode, c.mode);
  const CheckDiagnosis& dg = run.report.diagnosis;
  if (std::string(c.kind) == "expected") {
    EXPECT_TRUE(run.passed()) << run.report.comparison.max_ratio << ": " << dg.message.en;
    return;
  }
  ASSERT_FALSE(run.passed());
  ASSERT_TRUE(dg.matches.has_value()) << dg.message.en;
  EXPECT_STREQ(to_string(*dg.matches), c.kind) << dg.message.en;
  EXPECT_FALSE(dg.message.en.empty());
  if (*c.found != '\0') {
    bool named = false;
    for (const auto& [key, value] : dg.found) {
      if (key != c.found) continue;
      named = true;
      EXPECT_NEAR(value, c.value, 1e-3 * std::max(1.0, c.value)) << dg.message.en;
    }
    EXPECT_TRUE(named) << c.found << " not in the diagnosis: " << dg.message.en;
  }
}

INSTANTIATE_TEST_SUITE_P(Dumps, CheckModes, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<ModeCase>& i) { return std::string(i.param.name); });

TEST(CheckModes, ShiftTakesNoPositionsAndExpectsNoMagnitude) {
  CheckRequest q = mode_request(kCases[20]);  // ShiftYarnF32
  const CheckRun run = run_check(q);
  EXPECT_TRUE(run.passed());
  EXPECT_DOUBLE_EQ(run.expected.attention_factor(), 1.0);
  EXPECT_NEAR(run.expected.shift_magnitude, kYarnMagnitude, 1e-12);
  EXPECT_DOUBLE_EQ(run.expected.shift, kModeDelta);
  q.dumps.positions = "0:8";
  EXPECT_THROW(run_check(q), InvalidArgument);
  q.dumps.positions.clear();
  q.settings.shift = 1e9;  // |δ| bounded as positions are (kMaxDumpPosition)
  EXPECT_THROW(run_check(q), InvalidArgument);
}

// --shift takes no positions: its mistakes are said as shifts, not as positions to give (issue 78).
TEST(CheckModes, ShiftMistakesInTheShiftsWords) {
  const std::size_t n = sizeof(kCases) / sizeof(kCases[0]);
  ASSERT_STREQ(kCases[n - 2].name, "ShiftDoubled");
  const std::string doubled = run_check(mode_request(kCases[n - 2])).report.diagnosis.message.en;
  EXPECT_EQ(doubled, "matches a shift of -1024 = 2δ where δ = -512: the shift is applied twice");
  const std::string off = run_check(mode_request(kCases[n - 1])).report.diagnosis.message.en;
  EXPECT_EQ(off, "matches a shift of -511 where δ = -512: the shift is off by one (+1)");
  for (const std::string& said : {doubled, off}) {
    EXPECT_EQ(said.find("--positions"), std::string::npos);
    EXPECT_EQ(said.find("positions off by one"), std::string::npos);
  }
}

// --shift-map (issue 78 item 3, check_mode.hpp (H2)) on the corpus's dumps of tests/reference/shift_map.py: a K cache
// of 48 keys kept out of 4096 positions, compacted to 0 … 47 and re-rotated key by key by a NumPy port of VeloxQuant's
// rope_remap_positions; each mistake by its own formula. A correct move passes in float32, bf16 and float16; each
// mistake is named, the offset with the evicted count (3775: the survivors' last old position 3822 + 1 − 48).
const std::string kShiftMap = std::string(ROPE_VARIANT_DUMPS) + "/../corpus/shift_map/";

struct ShiftMapCase {
  const char* name;  ///< the dump after (shift_map.py's case)
  const char* dtype;
  const char* map;   ///< map.csv (header old,new) or map.npy ([48, 2] int64)
  const char* kind;  ///< "expected" or the variant named
  double offset;     ///< shift-map-offset's found offset
};

const ShiftMapCase kShiftMapCases[] = {
    {"f32_correct", "f32", "map.csv", "expected", 0},
    {"bf16_correct", "bf16", "map.csv", "expected", 0},
    {"f16_correct", "f16", "map.npy", "expected", 0},
    {"f32_offset", "f32", "map.csv", "shift-map-offset", 3775},
    {"bf16_offset", "bf16", "map.csv", "shift-map-offset", 3775},
    {"f32_not_rotated", "f32", "map.csv", "shift-map-not-rotated", 0},
    {"bf16_not_rotated", "bf16", "map.npy", "shift-map-not-rotated", 0},
    {"f32_sign", "f32", "map.npy", "shift-map-sign", 0},
    {"bf16_sign", "bf16", "map.csv", "shift-map-sign", 0},
};

CheckRequest shift_map_request(const ShiftMapCase& c) {
  CheckRequest q;
  const std::string dtype = c.dtype;
  q.dumps.before = kShiftMap + "k_" + dtype + ".npy";
  q.dumps.after = kShiftMap + c.name + ".npy";
  q.dumps.bf16_bits = dtype == "bf16";
  q.settings.layout = Layout::Half;
  q.settings.base = 10000;
  q.settings.angles = AngleModel::Float32;
  q.settings.mode = CheckMode::ShiftMap;
  q.settings.shift_map = kShiftMap + c.map;
  return q;
}

class CheckShiftMap : public ::testing::TestWithParam<ShiftMapCase> {};

TEST_P(CheckShiftMap, PassesTheRightMoveAndNamesEachMistake) {
  const ShiftMapCase& c = GetParam();
  const CheckRun run = run_check(shift_map_request(c));
  EXPECT_EQ(run.expected.mode, CheckMode::ShiftMap);
  EXPECT_DOUBLE_EQ(run.expected.attention_factor(), 1.0);
  const CheckDiagnosis& dg = run.report.diagnosis;
  if (std::string(c.kind) == "expected") {
    EXPECT_TRUE(run.passed()) << run.report.comparison.max_ratio << ": " << dg.message.en;
    return;
  }
  ASSERT_FALSE(run.passed());
  ASSERT_TRUE(dg.matches.has_value()) << dg.message.en;
  EXPECT_STREQ(to_string(*dg.matches), c.kind) << dg.message.en;
  if (std::string(c.kind) == "shift-map-offset") {
    ASSERT_EQ(dg.found.size(), 1u) << dg.message.en;
    EXPECT_EQ(dg.found[0].first, "offset");
    EXPECT_EQ(dg.found[0].second, c.offset) << dg.message.en;
    EXPECT_NE(dg.message.en.find("+3775"), std::string::npos) << dg.message.en;
  }
  EXPECT_EQ(dg.message.en.find("--positions"), std::string::npos) << dg.message.en;  // the map's words, not positions
}

INSTANTIATE_TEST_SUITE_P(Dumps, CheckShiftMap, ::testing::ValuesIn(kShiftMapCases),
                         [](const ::testing::TestParamInfo<ShiftMapCase>& i) { return std::string(i.param.name); });

TEST(CheckShiftMap, OneShiftIsTheMapOfOneDelta) {
  // --shift δ is the map whose every row is (p, p + δ): the same dump, the same verdict, the same max ratio.
  CheckRequest shift = mode_request(kCases[20]);  // ShiftYarnF32: 8 keys, δ = −512
  const CheckRun one = run_check(shift);
  const std::string map = ::testing::TempDir() + "shift_map_one_delta.csv";
  {
    std::ofstream f(map);
    f << "old,new\n";
    for (int i = 0; i < 8; ++i) f << 1000 + i << "," << 1000 + i - 512 << "\n";
  }
  CheckRequest q = shift;
  q.settings.mode = CheckMode::ShiftMap;
  q.settings.shift = 0;
  q.settings.shift_map = map;
  const CheckRun mapped = run_check(q);
  EXPECT_TRUE(one.passed());
  EXPECT_TRUE(mapped.passed());
  EXPECT_DOUBLE_EQ(mapped.report.comparison.max_ratio, one.report.comparison.max_ratio);
  EXPECT_DOUBLE_EQ(mapped.expected.shift_magnitude, one.expected.shift_magnitude);
  std::remove(map.c_str());
}

TEST(CheckShiftMap, RefusesAMapThatIsNotOneRowPerKey) {
  CheckRequest q = shift_map_request(kShiftMapCases[0]);
  const std::string dir = ::testing::TempDir();
  std::ofstream(dir + "shift_map_short.csv") << "old,new\n0,0\n5,1\n";  // 2 rows for 48 keys
  std::ofstream(dir + "shift_map_three.csv") << "1,2,3\n4,5,6\n";       // [2, 3]
  std::ofstream(dir + "shift_map_words.csv") << "old,new\n0,zero\n";
  for (const char* bad : {"shift_map_short.csv", "shift_map_three.csv", "shift_map_words.csv"}) {
    q.settings.shift_map = dir + bad;
    EXPECT_THROW(run_check(q), InvalidArgument) << bad;
    std::remove((dir + bad).c_str());
  }
  q.settings.shift_map = dir + "shift_map_absent.csv";
  EXPECT_THROW(run_check(q), IoError);
  q = shift_map_request(kShiftMapCases[0]);
  q.dumps.positions = "0:48";  // the map gives each key its δ
  EXPECT_THROW(run_check(q), InvalidArgument);
  q.dumps.positions.clear();
  q.settings.query = true;  // keys are never query-scaled
  EXPECT_THROW(run_check(q), InvalidArgument);
  try {
    q.settings.query = false;
    q.settings.shift_map = dir + "shift_map_short2.csv";
    std::ofstream(q.settings.shift_map) << "0,0\n1,1\n";
    run_check(q);
    ADD_FAILURE() << "a map of 2 rows for 48 keys passed";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("holds 2 rows (old, new) for a dump of 48 keys"), std::string::npos)
        << e.what();
  }
  std::remove(q.settings.shift_map.c_str());
}

TEST(CheckModes, TheForwardCheckOfAGradientFails) {
  // The gradient is not RoPE of the upstream gradient: without the mode the same dumps fail, reversed.
  CheckRequest q = mode_request(kCases[0]);  // GradHalfF32
  q.settings.mode = CheckMode::Forward;
  const CheckRun run = run_check(q);
  EXPECT_FALSE(run.passed());
  ASSERT_TRUE(run.report.diagnosis.matches.has_value());
  EXPECT_EQ(*run.report.diagnosis.matches, known_variant("rotation-reversed"));
}

}  // namespace
}  // namespace rope
