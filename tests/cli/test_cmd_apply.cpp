// rope apply: the three forms agree, bad vectors, in-process (moved from test_cli.cpp).
#include "rope/cli/cli.hpp"

#include <cmath>
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
#include "rope/io/csv.hpp"

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
  expect_one_line_error(rope_cli({"apply", "--position", "1", "--vector", "1,2,x,4"}), 2,
                        "--vector item 3 must be a decimal number (got 'x')");
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
  const Result r = rope_cli({"apply", "--position", "1", "--vector", "1,0,0,1", "--digits", "0"});
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
  for (const auto& c : cols)
    out.push_back(Eigen::Map<const Eigen::VectorXd>(c.data(), static_cast<Eigen::Index>(c.size())));
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
  const Result forced = rope_cli({"apply", "--model", "llama-3.1-8b", "--position", "100000", "--vector", x, "--layout",
                                  "interleaved", "--csv", "-"});
  ASSERT_EQ(forced.code, 0) << forced.err;
  EXPECT_GT((apply_columns(forced.out)[1] - llama.output).cwiseAbs().maxCoeff(), 0.1);  // --layout still overrides

  const auto& oss = cases.at({"gpt-oss-20b", "3000.0"});
  const Result r =
      rope_cli({"apply", "--model", "gpt-oss-20b", "--position", "3000", "--vector", test::comma_list(oss.input)});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("attention factor a = 1.34657 multiplies cos and sin"));
  EXPECT_THAT(r.out, HasSubstr("half layout (model family gpt_oss)"));
  const Result csv = rope_cli(
      {"apply", "--model", "gpt-oss-20b", "--position", "3000", "--vector", test::comma_list(oss.input), "--csv", "-"});
  EXPECT_NEAR(apply_columns(csv.out)[1].norm(), 1.3465735902799727 * oss.input.norm(), 1e-12 * oss.input.norm());
}

TEST_F(CmdApply, FlagsAloneSayTheLayoutIsAssumed) {
  const Result r =
      rope_cli({"apply", "--position", "1", "--vector", "1,0,0,1", "--scaling", "linear", "--factor", "2"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("interleaved layout (assumed: --layout default)"));
  const Result h = rope_cli(
      {"apply", "--position", "1", "--vector", "1,0,0,1", "--scaling", "linear", "--factor", "2", "--layout", "half"});
  EXPECT_THAT(h.out, HasSubstr("half layout (--layout on the command line)"));
}

TEST_F(CmdApply, PartialRotaryHeadPassesTheRestThrough) {
  // gpt-neox-20b: head_dim 96, rotary_pct 0.25 → channels 0 … 23 rotate, 24 … 95 pass through.
  Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(96, 1.0, 96.0);
  const Result r =
      rope_cli({"apply", "--model", "gpt-neox-20b", "--position", "7", "--vector", test::comma_list(x), "--csv", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Eigen::VectorXd y = apply_columns(r.out)[1];
  EXPECT_EQ(y.tail(72), x.tail(72));
  EXPECT_GT((y.head(24) - x.head(24)).cwiseAbs().maxCoeff(), 0.1);
  expect_one_line_error(
      rope_cli({"apply", "--model", "gpt-neox-20b", "--position", "7", "--vector", "1,2,3,4"}), 2,
      "--vector has 4 numbers but gpt-neox-20b has head_dim 96 of which d = 24 rotate: give 96 or 24 numbers");
}

TEST_F(CmdApply, MultiAxisPositionEqualsHfMultimodalRotary) {
  // tests/reference/mrope.py: HF's apply_multimodal_rotary_pos_emb for qwen2-vl-7b at (7, 2, 3), read back
  // from --csv with 17 digits; 1e-12 of ‖x‖ (the same products p·θ_j; libm vs NumPy cos/sin, an ulp).
  const test::ReferenceCsv ref = test::read_reference("mrope_apply.csv");
  Eigen::VectorXd x(128), want(128);
  int n = 0;
  for (const auto& row : ref.rows) {
    if (row.at(0) == "qwen2-vl-7b" && row.at(1) == "7.0" && row.at(2) == "2.0" && row.at(3) == "3.0") {
      x[n] = std::stod(row.at(5));
      want[n++] = std::stod(row.at(6));
    }
  }
  ASSERT_EQ(n, 128);
  const Result r = rope_cli(
      {"apply", "--model", "qwen2-vl-7b", "--position", "7,2,3", "--vector", test::comma_list(x), "--csv", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  const test::ReferenceCsv got = test::parse_reference(r.out);
  ASSERT_EQ(got.rows.size(), 128u);
  for (int j = 0; j < 128; ++j) {
    for (int form = 2; form <= 4; ++form) {  // matrix, element-wise, complex
      EXPECT_NEAR(std::stod(got.rows[j].at(form)), want[j], 1e-12 * x.norm()) << j;
    }
  }
  const Result table = rope_cli(
      {"apply", "--model", "qwen3-vl-8b", "--position", "7,2,3", "--vector", test::comma_list(x), "--digits", "0"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("RoPE at position m = (7, 2, 3)"));
  EXPECT_THAT(table.out, HasSubstr("M-RoPE (interleaved sections [24, 20, 20])"));
  EXPECT_THAT(table.out, HasSubstr("    1     (1, 65)     h"));  // (A3): pair 1 turns with the height
  EXPECT_THAT(table.out, HasSubstr("    0     (0, 64)     t                       1                       7\n"));
  expect_one_line_error(rope_cli({"apply", "--position", "7,2,3", "--vector", "1,0,0,1"}), 2,
                        "the position (7, 2, 3) has 3 components but plain RoPE reads one");
  expect_one_line_error(
      rope_cli({"apply", "--model", "qwen2-vl-7b", "--position", "7,2", "--vector", test::comma_list(x)}), 2,
      "the position (7, 2) has 2 components but this model reads 3 axes (t,h,w)");
  expect_one_line_error(rope_cli({"apply", "--position", "1,2,3,4,5", "--vector", "1,0,0,1"}), 2,
                        "--position has 5 components");
  // --float32 computes at one position m: a multi-axis position with it is refused, naming both options.
  expect_one_line_error(
      rope_cli(
          {"apply", "--model", "qwen2-vl-7b", "--position", "7,2,3", "--vector", test::comma_list(x), "--float32"}),
      2,
      "--float32 computes HF's angles at one position m, but --position (7, 2, 3) has 3 components: give a single number with --float32");
  expect_one_line_error(
      rope_cli({"matrix", "--model", "qwen2-vl-7b", "--position", "7,2,3", "--float32"}), 2,
      "--float32 computes HF's angles at one position m, but --position (7, 2, 3) has 3 components: give a single number with --float32");
}

TEST_F(CmdApply, FourSlotPositionOfAGgufEqualsLlamaCppMultiRope) {
  // tests/reference/mrope.py: llama.cpp's IMROPE and MROPE (ggml_mrope_cache_init, 4 slots t,h,w,e, NEOX
  // pairs) for tests/io/write_gguf.py's qwen3-vl-8b.gguf (IMROPE, freq_base 5e6, d = 128, sections
  // [24, 20, 20, 0]) and qwen2-vl-7b.gguf (MROPE, 1e6, [16, 24, 24, 0]) at (7, 2, 3, 5) and
  // (100, 40, 55, −9), read back from --csv; 1e-12 of ‖x‖ (the same products p·θ_j, libm vs NumPy cos/sin).
  const test::ReferenceCsv ref = test::read_reference("mrope_ggml_apply.csv");
  const auto cases = test::group_rows(ref, 5);
  ASSERT_EQ(cases.size(), 4u);
  Eigen::VectorXd x;       // the head of the case checked by hand below, qwen3-vl-8b.gguf at (7, 2, 3, 5)
  test::ReferenceCsv got;  // and rope's output for it
  for (const auto& [key, rows] : cases) {
    ASSERT_EQ(rows.size(), 128u) << key;
    const Eigen::VectorXd in = test::group_column(rows, 6), want = test::group_column(rows, 7);
    const auto& first = *rows.front();
    std::string position;
    for (int k = 1; k <= 4; ++k) position += (k > 1 ? "," : "") + std::to_string(std::lround(std::stod(first.at(k))));
    const Result r = rope_cli({"apply", "--config", std::string(ROPE_GGUF_DIR) + "/" + first.at(0),
                               "--position=" + position, "--vector", test::comma_list(in), "--csv", "-"});
    ASSERT_EQ(r.code, 0) << key << ": " << r.err;
    const test::ReferenceCsv out = test::parse_reference(r.out);
    ASSERT_EQ(out.rows.size(), 128u);
    for (int j = 0; j < 128; ++j) {
      for (int form = 2; form <= 4; ++form) {  // matrix, element-wise, complex
        EXPECT_NEAR(std::stod(out.rows[j].at(form)), want[j], 1e-12 * in.norm()) << key << " channel " << j;
      }
    }
    if (key == "qwen3-vl-8b.gguf,7.0,2.0,3.0,5.0") {
      x = in;
      got = out;
    }
  }
  ASSERT_EQ(x.size(), 128);
  const std::string gguf = std::string(ROPE_GGUF_DIR) + "/qwen3-vl-8b.gguf";
  // By hand: pairs 61 and 62 read the slot e = 5 (A4: sector 61 and 62 are ≥ 3·20 and not ≡ 0 mod 3);
  // pair 60 reads t = 7. Pair j turns channels (j, j + 64) by p·5e6^(−2j/128); 1e-15: a few ulps of
  // |x_j| ≤ 2.3 (the same products, cos and sin an ulp apart).
  for (const auto& [j, p] : std::vector<std::pair<int, double>>{{60, 7.0}, {61, 5.0}, {62, 5.0}}) {
    const double phi = p * std::pow(5e6, -2.0 * j / 128);
    EXPECT_NEAR(std::stod(got.rows[j].at(2)), x[j] * std::cos(phi) - x[j + 64] * std::sin(phi), 1e-15) << j;
    EXPECT_NEAR(std::stod(got.rows[j + 64].at(2)), x[j] * std::sin(phi) + x[j + 64] * std::cos(phi), 1e-15) << j;
  }
  const Result table = rope_cli({"apply", "--config", gguf, "--position", "7,2,3,5", "--vector", test::comma_list(x)});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("RoPE at position m = (7, 2, 3, 5)"));
  EXPECT_THAT(table.out, HasSubstr("M-RoPE (llama.cpp IMROPE sections [24, 20, 20, 0])"));
  EXPECT_THAT(table.out, HasSubstr("   61   (61, 125)     e"));
  EXPECT_THAT(table.out, HasSubstr("   62   (62, 126)     e"));
  // The number of components must be the model's: 4 for a GGUF with 4 sections, 3 for an HF config.
  expect_one_line_error(
      rope_cli({"apply", "--config", gguf, "--position", "7,2,3", "--vector", test::comma_list(x)}), 2,
      "the position (7, 2, 3) has 3 components but this model reads 4 axes (t,h,w,e): give 4 numbers, or one for a text token");
  expect_one_line_error(
      rope_cli({"apply", "--config", gguf, "--position", "7,2,3", "--vector", test::comma_list(x), "--lang", "zh"}), 2,
      "位置 (7, 2, 3) 有 3 个分量，但该模型读取 4 条轴（t,h,w,e）");
  expect_one_line_error(
      rope_cli({"apply", "--model", "qwen3-vl-8b", "--position", "7,2,3,5", "--vector", test::comma_list(x)}), 2,
      "the position (7, 2, 3, 5) has 4 components but this model reads 3 axes (t,h,w): give 3 numbers, or one for a text token");
}

/// tests/reference/float32.py's values of (preset, position, kind), as floats.
std::vector<float> float32_reference(const std::string& preset, const std::string& position, const std::string& kind) {
  std::vector<float> out;
  for (const auto& row : test::read_reference("float32.csv").rows) {
    if (row.at(0) == preset && row.at(1) == position && row.at(2) == kind)
      out.push_back(static_cast<float>(std::stod(row.at(4))));
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
    const Result r = rope_cli({"apply", "--model", preset, "--position", position, "--vector", test::comma_list(x),
                               "--float32", "--csv", "-"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto rows = test::split(r.out, '\n');
    EXPECT_EQ(rows[0], "channel,input,matrix,elementwise,complex,float32");
    const std::vector<float> want = float32_reference(preset, position, "output");
    ASSERT_EQ(rows.size(), want.size() + 1) << preset;
    for (std::size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(static_cast<float>(std::stod(test::split(rows[i + 1], ',').at(5))), want[i])
          << preset << " channel " << i;
    }
  }
  const auto x = test::model_apply_cases().at({"llama-3.1-8b", "100000.0"}).input;
  const Result table = rope_cli({"apply", "--model", "llama-3.1-8b", "--position", "100000", "--vector",
                                 test::comma_list(x), "--inv-freq-dtype", "f32"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("float32 as HF computes it (--float32, docs/scaling.md (F1)–(F3))"));
  EXPECT_THAT(table.out, HasSubstr("float32 (HF)  x ⊙ cos + rotate(x) ⊙ sin = ["));
  expect_one_line_error(
      rope_cli({"apply", "--model", "llama-3.1-8b", "--position", "0.1", "--vector", test::comma_list(x), "--float32"}),
      2, "--float32: position 0.1 is not a float32 value");
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
  for (std::size_t i = 0; i < inv.size(); ++i)
    EXPECT_EQ(j["inv_freq_float32"][i].get<double>(), static_cast<double>(inv[i])) << i;
  const std::vector<float> inv2 = float32_reference("llama-2-7b", "3000.0", "inv_freq");
  const Result m = rope_cli({"matrix", "--model", "llama-2-7b", "--position", "3000", "--float32", "--csv", "-"});
  ASSERT_EQ(m.code, 0) << m.err;
  const auto rows = test::split(m.out, '\n');
  ASSERT_EQ(rows.size(), 129u);
  for (int i : {0, 5, 63}) {
    const float angle = 3000.0f * inv2[static_cast<std::size_t>(i)];
    const auto c = static_cast<float>(std::cos(static_cast<double>(angle)));
    const auto sn = static_cast<float>(std::sin(static_cast<double>(angle)));
    EXPECT_EQ(std::stod(test::split(rows[static_cast<std::size_t>(i) + 1], ',').at(static_cast<std::size_t>(i))),
              static_cast<double>(c))
        << i;
    // half layout: R(i + 64, i) = sin
    EXPECT_EQ(std::stod(test::split(rows[static_cast<std::size_t>(i) + 65], ',').at(static_cast<std::size_t>(i))),
              static_cast<double>(sn))
        << i;
  }
  expect_one_line_error(
      rope_cli({"matrix", "--model", "llama-2-7b", "--relative", "1", "2", "--float32"}), 2,
      "--float32 prints R_m as HF's float32 cos and sin give it: use it with --position, not --relative");
}

TEST_F(CmdApply, XposEqualsTheNumpyPort) {
  // tests/reference/xpos.py (flash-attn's construction: cos·scale for q, cos/scale for k), d = 16, base
  // 10000, every layout, role, s and position of xpos_apply.csv, through the three forms of `rope apply`.
  // Tolerance 1e-12 of ‖x‖ times the largest scale: cos/sin an ulp apart, the power a few ulp (n/s ≤ 15.6).
  const test::ReferenceCsv ref = test::read_reference("xpos_apply.csv");
  const auto cases = test::group_rows(ref, 4);
  ASSERT_EQ(cases.size(), 48u);
  double worst = 0;
  for (const auto& [key, rows] : cases) {
    const auto& first = *rows.front();
    const Eigen::VectorXd x = test::group_column(rows, 5), w = test::group_column(rows, 6);
    ASSERT_EQ(x.size(), 16) << key;
    const Result r =
        rope_cli({"apply", "--position", first.at(2), "--vector", test::comma_list(x), "--layout", first.at(0),
                  "--xpos", "--role", first.at(1), "--xpos-scale-base", first.at(3), "--csv", "-"});
    ASSERT_EQ(r.code, 0) << key << ": " << r.err;
    const double size = x.norm() * std::max(1.0, w.cwiseAbs().maxCoeff());
    for (const Eigen::VectorXd& got : apply_columns(r.out)) {
      const double err = (got - w).cwiseAbs().maxCoeff() / size;
      worst = std::max(worst, err);
      EXPECT_LE(err, 1e-12) << key;
    }
  }
  RecordProperty("worst_relative_error", fmt::format("{:.3g}", worst));
}

TEST_F(CmdApply, XposByHandAndItsErrors) {
  // d = 2, θ_0 = 1, m = s = 512: the query's pair is (2/7)·(cos 512, sin 512), the key's (7/2)·(cos 512, sin 512).
  const Result q = rope_cli({"apply", "--position", "512", "--vector", "1,0", "--xpos", "--csv", "-"});
  ASSERT_EQ(q.code, 0) << q.err;
  EXPECT_NEAR(apply_columns(q.out)[1][0], 2.0 / 7.0 * std::cos(512.0), 1e-15);
  EXPECT_NEAR(apply_columns(q.out)[1][1], 2.0 / 7.0 * std::sin(512.0), 1e-15);
  const Result k = rope_cli({"apply", "--position", "512", "--vector", "1,0", "--xpos", "--role", "k", "--csv", "-"});
  EXPECT_NEAR(apply_columns(k.out)[1][1], 3.5 * std::sin(512.0), 1e-14);
  const Result text = rope_cli({"apply", "--position", "512", "--vector", "1,0,0,1", "--xpos"});
  EXPECT_THAT(text.out, HasSubstr("xPos, s = 512: pair i times ζ_i^(m/s)"));
  EXPECT_THAT(text.out, HasSubstr("they agree"));
  expect_one_line_error(rope_cli({"apply", "--position", "1", "--vector", "1,0", "--role", "k"}), 2,
                        "--role requires --xpos (see 'rope apply --help')");
  expect_one_line_error(rope_cli({"apply", "--position", "1", "--vector", "1,0", "--xpos", "--xpos-scale-base", "0"}),
                        2, "the xPos scale base s must be a finite number > 0 (got 0)");
  expect_one_line_error(rope_cli({"apply", "--position", "1e6", "--vector", "1,0", "--xpos"}), 2,
                        "xPos: |position|/s = 1953.12 is over 500");
  expect_one_line_error(rope_cli({"apply", "--model", "llama-3.1-8b", "--position", "1", "--vector", "1,0", "--xpos"}),
                        2, "--xpos applies to plain RoPE");
}

TEST_F(CmdApply, QueryScalingMultipliesTheRotatedQuery) {
  // Ministral 3's (S21) after RoPE at m = 20000, L0 = 16384: s = 1 + 0.1·ln 2.
  std::ofstream(path("m.json")) << R"({"model_type": "ministral3", "head_dim": 8, "max_position_embeddings": 262144,
      "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0, "original_max_position_embeddings": 16384,
                          "llama_4_scaling_beta": 0.1}})";
  const std::vector<std::string> base{"apply",    "--config",        path("m.json"), "--position", "20000",
                                      "--vector", "1,2,3,4,5,6,7,8", "--digits",     "0"};
  const Result plain = rope_cli(base);
  std::vector<std::string> args = base;
  args.push_back("--query");
  const Result scaled = rope_cli(args);
  ASSERT_EQ(scaled.code, 0) << scaled.err;
  EXPECT_THAT(scaled.out, HasSubstr("= 1.0693147180559945 (β = 0.1, L0 = 16384"));
  const auto first = [](const std::string& out) {
    const auto at = out.find("R_m x = [") + 9;
    return std::stod(out.substr(at, out.find(',', at) - at));
  };
  EXPECT_NEAR(first(scaled.out), (1 + 0.1 * std::log(2.0)) * first(plain.out), 1e-12 * std::abs(first(plain.out)));
  expect_one_line_error(rope_cli({"apply", "--position", "1", "--vector", "1,0", "--query"}), 2,
                        "--query scales a query as a model's attention does: give --model or --config");
}

/// apply's table and vectors follow the one digits policy (report/digits.hpp kTableDigits): 6 digits, --digits N.
struct ApplyDigitsCase {
  std::vector<std::string> digits;  ///< the --digits option, or none
  std::string rotated;              ///< R_m x of x = (1, 2, 3, 4) at m = 3 as printed
};

class ApplyDigits : public ::testing::TestWithParam<ApplyDigitsCase> {};

TEST_P(ApplyDigits, VectorsShowTheDigitsAsked) {
  std::vector<std::string> args{"apply", "--position", "3", "--vector", "1,2,3,4"};
  args.insert(args.end(), GetParam().digits.begin(), GetParam().digits.end());
  const Result r = rope_cli(args);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("R_m x = [" + GetParam().rotated + "]\n"));
}

INSTANTIATE_TEST_SUITE_P(
    Policy, ApplyDigits,
    ::testing::Values(ApplyDigitsCase{{}, "-1.27223, -1.83886, 2.87867, 4.08819"},
                      ApplyDigitsCase{{"--digits", "2"}, "-1.3, -1.8, 2.9, 4.1"},
                      ApplyDigitsCase{{"--digits", "0"},
                                      "-1.27223251272018, -1.8388649851410237, 2.87866810043698, 4.088186635603437"}));

// --json (issue 51: the report pattern): the three forms as --csv writes them, the angles, and the check.
TEST_F(CmdApply, JsonHasTheCsvsFormsAndTheCheck) {
  const Result r = rope_cli({"apply", "--position", "3", "--vector", "1,2,3,4,5,6", "--base", "100", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["dim"], 6);
  EXPECT_EQ(j["position"], "3");
  EXPECT_EQ(j["agree"], true);
  EXPECT_LE(j["difference"].get<double>(), j["tolerance"].get<double>());
  const Eigen::VectorXd theta = frequencies(6, 100);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(j["angle"][i].get<double>(), 3 * theta[i]);
  const Result csv = rope_cli({"apply", "--position", "3", "--vector", "1,2,3,4,5,6", "--base", "100", "--csv", "-"});
  std::istringstream lines(csv.out);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "channel,input,matrix,elementwise,complex");
  for (int c = 0; std::getline(lines, line); ++c) {
    EXPECT_EQ(line,
              fmt::format("{},{},{},{},{}", c, format_number(j["input"][c].get<double>()),
                          format_number(j["matrix"][c].get<double>()), format_number(j["elementwise"][c].get<double>()),
                          format_number(j["complex"][c].get<double>())));
  }
  // A model: its name, scaling and attention factor; xPos: its scale per pair.
  const nlohmann::json x =
      nlohmann::json::parse(rope_cli({"apply", "--position", "100", "--vector", "1,0,0,1", "--xpos", "--json"}).out);
  ASSERT_EQ(x["xpos_scale"].size(), 2u);
  EXPECT_LT(x["xpos_scale"][0].get<double>(), 1.0);
}

}  // namespace
}  // namespace rope
