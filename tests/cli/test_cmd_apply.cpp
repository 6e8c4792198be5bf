// rope apply: the three forms agree, bad vectors, in-process (moved from test_cli.cpp).
#include "rope/cli/cli.hpp"

#include <filesystem>
#include <map>
#include <fmt/format.h>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/cli_harness.hpp"
#include "support/model_apply_reference.hpp"
#include "support/reference_data.hpp"
#include "support/scoped_env.hpp"
#include "rope/core/frequencies.hpp"

namespace rope {
namespace {

using test::expect_one_line_error;
using test::expect_plotted_data_equals_csv;
using test::png_size;
using test::Result;
using test::rope_cli;

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;


class CmdApply : public test::TempDirTest {};

TEST_F(CmdApply, BadVectorsExitTwo) {
  expect_one_line_error(rope_cli({"apply", "--position", "1", "--vector", "1,2,3"}), 2, "vector length d must be even");
  expect_one_line_error(rope_cli({"apply", "--position", "1", "--vector", "1,2,x,4"}), 2, "--vector item 3 must be a decimal number (got 'x')");
  expect_one_line_error(rope_cli({"apply", "--position", "1", "--vector", "1,,2,4"}), 2, "item 2 is empty");
}

TEST_F(CmdApply, PositionsBeyondFloat64ResolutionAreRefused) {
  // At m = 1e300 the tolerance of (M13) was 2.5e285·‖x‖ and the three forms "agreed": a void check.
  expect_one_line_error(rope_cli({"apply", "--position", "1e300", "--vector", "1,0,0,1"}), 2,
                        "position m = 1e+300 is beyond what float64 resolves at d = 4");
  expect_one_line_error(rope_cli({"matrix", "--dim", "4", "--position", "-1e15"}), 2, "--position = -1e+15 is beyond");
  expect_one_line_error(rope_cli({"matrix", "--dim", "4", "--relative", "1", "1e300"}), 2, "--relative N = 1e+300");
  EXPECT_EQ(rope_cli({"apply", "--position", "1e14", "--vector", "1,0,0,1"}).code, 0);
}

TEST_F(CmdApply, ApplyAgreesAcrossForms) {
  const Result r = rope_cli({"apply", "--position", "1", "--vector", "1,0,0,1"});
  EXPECT_EQ(r.code, 0);
  EXPECT_THAT(r.out, HasSubstr("they agree"));
  EXPECT_THAT(r.out, HasSubstr("0.8414709848078965"));  // sin 1
}

/// The three forms' columns (matrix, elementwise, complex) of `apply --csv -`.
std::vector<Eigen::VectorXd> apply_columns(const std::string& csv) {
  std::vector<std::vector<double>> cols(3);
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    const auto cells = test::split(line, ',');
    for (std::size_t c = 0; c < 3; ++c) cols[c].push_back(std::stod(cells.at(2 + c)));
  }
  std::vector<Eigen::VectorXd> out;
  for (const auto& c : cols) out.push_back(Eigen::Map<const Eigen::VectorXd>(c.data(), static_cast<Eigen::Index>(c.size())));
  return out;
}

TEST_F(CmdApply, EveryPresetEqualsHfModelingCode) {
  // tests/reference/model_apply.py: HF's apply (rotate_half, rotate_every_two, DeepSeek's de-interleaving
  // apply_rotary_pos_emb_interleave) with the attention factor in cos and sin, the pass-through channels,
  // and longrope's long factors beyond L0. Both sides float64 from θ that agree to an ulp or so: an ulp of θ
  // moves the angle by |m|·ε·θ, so 1e-12 relative to ‖x‖ up to m = 3000, and (M13)'s κ·ε·(d + |m|) beyond.
  const auto cases = test::model_apply_cases();
  ASSERT_GE(cases.size(), 30u);
  for (const auto& [key, c] : cases) {
    const auto& [preset, position] = key;
    std::vector<std::string> args{"apply", "--position", position, "--vector", test::comma_list(c.input), "--csv", "-"};
    for (const auto& a : test::model_options(preset)) args.push_back(a);
    const Result r = rope_cli(args);
    ASSERT_EQ(r.code, 0) << preset << " " << position << ": " << r.err;
    const double m = std::stod(position);
    const double rtol = m <= 3000 ? 1e-12 : 8 * 2.220446049250313e-16 * (static_cast<double>(c.input.size()) + m);
    for (const Eigen::VectorXd& got : apply_columns(r.out)) {
      ASSERT_EQ(got.size(), c.output.size()) << preset;
      EXPECT_LE((got - c.output).cwiseAbs().maxCoeff(), rtol * c.input.norm()) << preset << " at " << position;
    }
  }
}

TEST_F(CmdApply, ModelLayoutAndAttentionFactorRegressions) {
  // Issue 13: llama-3.1-8b rotated in the interleaved layout (up to 3.49 away from HF at m = 100000), and
  // gpt-oss-20b without yarn's attention factor 0.1·ln 32 + 1 = 1.3465735902799727 (S9).
  const auto cases = test::model_apply_cases();
  const auto& llama = cases.at({"llama-3.1-8b", "100000.0"});
  const std::string x = test::comma_list(llama.input);
  const Result model = rope_cli({"apply", "--model", "llama-3.1-8b", "--position", "100000", "--vector", x});
  EXPECT_THAT(model.out, HasSubstr("half layout (model family llama)"));
  const Result forced = rope_cli({"apply", "--model", "llama-3.1-8b", "--position", "100000", "--vector", x,
                                  "--layout", "interleaved", "--csv", "-"});
  ASSERT_EQ(forced.code, 0) << forced.err;
  EXPECT_GT((apply_columns(forced.out)[1] - llama.output).cwiseAbs().maxCoeff(), 0.1);  // --layout still overrides

  const auto& oss = cases.at({"gpt-oss-20b", "3000.0"});
  const Result r = rope_cli({"apply", "--model", "gpt-oss-20b", "--position", "3000", "--vector", test::comma_list(oss.input)});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("attention factor a = 1.3465735902799727 multiplies cos and sin"));
  EXPECT_THAT(r.out, HasSubstr("half layout (model family gpt_oss)"));
  const Result csv = rope_cli({"apply", "--model", "gpt-oss-20b", "--position", "3000", "--vector", test::comma_list(oss.input), "--csv", "-"});
  EXPECT_NEAR(apply_columns(csv.out)[1].norm(), 1.3465735902799727 * oss.input.norm(), 1e-12 * oss.input.norm());
}

TEST_F(CmdApply, FlagsAloneSayTheLayoutIsAssumed) {
  const Result r = rope_cli({"apply", "--position", "1", "--vector", "1,0,0,1", "--scaling", "linear", "--factor", "2"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("interleaved layout (assumed: --layout default)"));
  const Result h = rope_cli({"apply", "--position", "1", "--vector", "1,0,0,1", "--scaling", "linear", "--factor", "2", "--layout", "half"});
  EXPECT_THAT(h.out, HasSubstr("half layout (--layout on the command line)"));
}

TEST_F(CmdApply, PartialRotaryHeadPassesTheRestThrough) {
  // gpt-neox-20b: head_dim 96, rotary_pct 0.25 → channels 0 … 23 rotate, 24 … 95 pass through.
  Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(96, 1.0, 96.0);
  const Result r = rope_cli({"apply", "--model", "gpt-neox-20b", "--position", "7", "--vector", test::comma_list(x), "--csv", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Eigen::VectorXd y = apply_columns(r.out)[1];
  EXPECT_EQ(y.tail(72), x.tail(72));
  EXPECT_GT((y.head(24) - x.head(24)).cwiseAbs().maxCoeff(), 0.1);
  expect_one_line_error(rope_cli({"apply", "--model", "gpt-neox-20b", "--position", "7", "--vector", "1,2,3,4"}), 2,
                        "--vector has 4 numbers but gpt-neox-20b has head_dim 96 of which d = 24 rotate: give 96 or 24 numbers");
}

/// tests/reference/float32.py's values of (preset, position, kind), as floats.
std::vector<float> float32_reference(const std::string& preset, const std::string& position, const std::string& kind) {
  std::vector<float> out;
  for (const auto& row : test::read_reference("float32.csv").rows) {
    if (row.at(0) == preset && row.at(1) == position && row.at(2) == kind) out.push_back(static_cast<float>(std::stod(row.at(4))));
  }
  return out;
}

TEST_F(CmdApply, Float32IsHfsFloat32Bitwise) {
  // --float32: inv_freq, angles, cos·a and sin·a and the rotation in float32 as HF computes them, against
  // the NumPy float32 reimplementation (tests/reference/float32.py): the same bits (its docstring says
  // why 0 ULP). llama3 beyond L0 and longrope's long factors.
  for (const auto& [preset, position] : std::vector<std::pair<std::string, std::string>>{
           {"llama-3.1-8b", "100000.0"}, {"phi-3-mini-128k", "100000.0"}, {"deepseek-v3", "3000.0"}}) {
    const auto x = test::model_apply_cases().at({preset, position}).input;
    const Result r = rope_cli({"apply", "--model", preset, "--position", position, "--vector", test::comma_list(x), "--float32", "--csv", "-"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto rows = test::split(r.out, '\n');
    EXPECT_EQ(rows[0], "channel,input,matrix,elementwise,complex,float32");
    const std::vector<float> want = float32_reference(preset, position, "output");
    ASSERT_EQ(rows.size(), want.size() + 1) << preset;
    for (std::size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(static_cast<float>(std::stod(test::split(rows[i + 1], ',').at(5))), want[i]) << preset << " channel " << i;
    }
  }
  const auto x = test::model_apply_cases().at({"llama-3.1-8b", "100000.0"}).input;
  const Result table = rope_cli({"apply", "--model", "llama-3.1-8b", "--position", "100000", "--vector", test::comma_list(x), "--inv-freq-dtype", "f32"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("float32 as HF computes it (--float32, docs/scaling.md (F1)–(F3))"));
  EXPECT_THAT(table.out, HasSubstr("float32 (HF)  x ⊙ cos + rotate(x) ⊙ sin = ["));
  expect_one_line_error(rope_cli({"apply", "--model", "llama-3.1-8b", "--position", "0.1", "--vector", test::comma_list(x), "--float32"}), 2,
                        "--float32: position 0.1 is not a float32 value");
  expect_one_line_error(rope_cli({"apply", "--position", "1", "--vector", "1,0", "--inv-freq-dtype", "bf16"}), 2,
                        "--inv-freq-dtype must be f32 or f64 (got 'bf16')");
}

TEST_F(CmdApply, Float32FrequenciesAndMatrix) {
  // frequencies --json carries inv_freq_float32; matrix --float32 has HF's float32 cos and sin entries.
  const std::vector<float> inv = float32_reference("llama-3.1-8b", "3000.0", "inv_freq");
  const Result f = rope_cli({"frequencies", "--model", "llama-3.1-8b", "--float32", "--json"});
  ASSERT_EQ(f.code, 0) << f.err;
  const auto j = nlohmann::json::parse(f.out);
  ASSERT_EQ(j["inv_freq_float32"].size(), inv.size());
  for (std::size_t i = 0; i < inv.size(); ++i) EXPECT_EQ(j["inv_freq_float32"][i].get<double>(), static_cast<double>(inv[i])) << i;
  const std::vector<float> inv2 = float32_reference("llama-2-7b", "3000.0", "inv_freq");
  const Result m = rope_cli({"matrix", "--model", "llama-2-7b", "--position", "3000", "--float32", "--csv", "-"});
  ASSERT_EQ(m.code, 0) << m.err;
  const auto rows = test::split(m.out, '\n');
  ASSERT_EQ(rows.size(), 129u);
  for (int i : {0, 5, 63}) {
    const float angle = 3000.0f * inv2[static_cast<std::size_t>(i)];
    const auto c = static_cast<float>(std::cos(static_cast<double>(angle)));
    const auto sn = static_cast<float>(std::sin(static_cast<double>(angle)));
    EXPECT_EQ(std::stod(test::split(rows[static_cast<std::size_t>(i) + 1], ',').at(static_cast<std::size_t>(i))), static_cast<double>(c)) << i;
    // half layout: R(i + 64, i) = sin
    EXPECT_EQ(std::stod(test::split(rows[static_cast<std::size_t>(i) + 65], ',').at(static_cast<std::size_t>(i))), static_cast<double>(sn)) << i;
  }
  expect_one_line_error(rope_cli({"matrix", "--model", "llama-2-7b", "--relative", "1", "2", "--float32"}), 2,
                        "--float32 prints R_m as HF's float32 cos and sin give it: use it with --position, not --relative");
}

}  // namespace
}  // namespace rope
