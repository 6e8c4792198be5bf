// rope matrix: the CSV against NumPy, the printed matrix, in-process (moved from test_cli.cpp).
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

class CmdMatrix : public test::TempDirTest {};

TEST_F(CmdMatrix, MatrixCsvMatchesNumpyReference) {
  const Result r = rope_cli({"matrix", "--dim", "8", "--position", "3", "--layout", "half", "--csv", "-"});
  ASSERT_EQ(r.code, 0);
  const Eigen::MatrixXd expected = test::read_reference("rotation_d8_m3_half.csv", false).matrix();
  std::istringstream in(r.out);
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  EXPECT_EQ(line, "col_0,col_1,col_2,col_3,col_4,col_5,col_6,col_7");
  for (int i = 0; i < 8; ++i) {
    ASSERT_TRUE(std::getline(in, line));
    const auto cells = test::split(line, ',');
    ASSERT_EQ(cells.size(), 8u);
    for (int j = 0; j < 8; ++j) EXPECT_NEAR(std::stod(cells[j]), expected(i, j), 4.5e-16) << i << "," << j;
  }
}

TEST_F(CmdMatrix, MatrixPrintsZerosPlainly) {
  const Result r = rope_cli({"matrix", "--dim", "4", "--position", "1"});
  ASSERT_EQ(r.code, 0);
  EXPECT_THAT(r.out, HasSubstr(" 0.540302 -0.841471         0         0\n"));
  const Result rel = rope_cli({"matrix", "--dim", "4", "--relative", "2", "5"});
  EXPECT_EQ(rel.code, 0);
  EXPECT_THAT(rel.out, HasSubstr(": equal"));
}

TEST_F(CmdMatrix, RelativeTakesMultiAxisPositions) {
  // (A5) on Llama 4's vision map, d = 8: M = (1, 2), N = (3, 7) (row, column); N − M = (2, 5) with no offset.
  // By hand: pair 0 (column, θ = 1) turns 5 rad, pair 2 (row, θ = 1) 2 rad; cos 5 = 0.283662, sin 5 = −0.958924,
  // cos 2 = −0.416147, sin 2 = 0.909297.
  const Result v = rope_cli({"matrix", "--vision", "llama4", "--dim", "8", "--relative", "1,2", "3,7"});
  ASSERT_EQ(v.code, 0) << v.err;
  EXPECT_THAT(v.out, HasSubstr("m = (1, 2), n = (3, 7), d = 8"));
  EXPECT_THAT(v.out,
              HasSubstr("per axis (docs/multi-axis.md (A5)): R_p turns pair i by θ_i·(p_a(i) + 1), a(i) its axis: "
                        "WW·HH; n − m = (2, 5) carries no offset\n"));
  EXPECT_THAT(v.out, HasSubstr("R_(1, 2)ᵀ R_(3, 7)"));
  EXPECT_THAT(v.out, HasSubstr("|   R_(2, 5)\n"));
  EXPECT_THAT(v.out, HasSubstr("|    0.283662  0.958924         0"));
  EXPECT_THAT(v.out,
              HasSubstr("|           0         0         0         0 -0.416147 -0.909297         0         0\n"));
  EXPECT_THAT(v.out, HasSubstr(": equal"));
  // M-RoPE: the right side is `matrix --position` at the difference (another path: the spec's angles).
  const Result q = rope_cli({"matrix", "--model", "qwen3-vl-8b", "--relative", "1,2,3", "4,6,9", "--digits", "3"});
  ASSERT_EQ(q.code, 0) << q.err;
  EXPECT_THAT(q.out, HasSubstr("n − m = (3, 4, 6)\n"));
  EXPECT_THAT(q.out, HasSubstr(": equal"));
  const Result at = rope_cli({"matrix", "--model", "qwen3-vl-8b", "--position", "3,4,6", "--digits", "3"});
  ASSERT_EQ(at.code, 0) << at.err;
  std::vector<std::string> right, direct;
  for (const std::string& line : test::split(q.out, '\n')) {
    const std::size_t bar = line.find("   |   ");
    if (bar != std::string::npos && line.find("R_") == std::string::npos) right.push_back(line.substr(bar + 7));
  }
  const std::vector<std::string> lines = test::split(at.out, '\n');
  for (const std::string& line : lines) {
    if (line.size() == right.front().size() && line.find_first_not_of(" -.0123456789") == std::string::npos)
      direct.push_back(line);
  }
  ASSERT_EQ(right.size(), 128u);
  EXPECT_EQ(right, direct);
  // In Chinese; and the refusals: plain RoPE reads one number, M and N of different lengths.
  const Result zh =
      rope_cli({"matrix", "--model", "qwen2-vl-7b", "--relative", "2", "4,6,9", "--digits", "1", "--lang", "zh"});
  ASSERT_EQ(zh.code, 0) << zh.err;
  EXPECT_THAT(zh.out, HasSubstr("按轴（docs/multi-axis.md (A5)）：R_p 将第 i 对转 θ_i·p_a(i)，a(i) 为其所属轴："));
  EXPECT_THAT(zh.out, HasSubstr("n − m = (2, 4, 7)\n"));
  expect_one_line_error(rope_cli({"matrix", "--dim", "8", "--relative", "1,2,3", "4,5,6"}), 2,
                        "the position (1, 2, 3) has 3 components but plain RoPE reads one");
  expect_one_line_error(rope_cli({"matrix", "--model", "qwen2-vl-7b", "--relative", "1,2", "4,5,6"}), 2,
                        "the positions (1, 2) and (4, 5, 6) have different numbers of components");
  expect_one_line_error(rope_cli({"matrix", "--dim", "8", "--relative", "1,x", "2"}), 2, "--relative");
  // M and N each resolve (|p| < 1/(κε) − d ≈ 5.63e14 at d = 4), but the budget 2(|m| + |n|) of the check does
  // not: the tolerance would be 3.98 and any result "equal".
  expect_one_line_error(rope_cli({"matrix", "--dim", "4", "--relative", "5.6e14", "-5.6e14"}), 2,
                        "--relative M N: 2·(|m| + |n|) = 2.24e+15 is beyond what float64 resolves at d = 4");
  expect_one_line_error(rope_cli({"matrix", "--model", "qwen2-vl-7b", "--relative", "5e14,1,1", "-5e14,1,1"}), 2,
                        "--relative M N: 2·(|m| + |n|) = 2e+15 is beyond what float64 resolves at d = 128");
  const Result zh_budget = rope_cli({"matrix", "--dim", "4", "--relative", "5.6e14", "-5.6e14", "--lang", "zh"});
  EXPECT_THAT(zh_budget.err, HasSubstr("超出了 float64 在 d = 4 时的分辨能力"));
  // Just inside: 2(|m| + |n|) = 2.8e14 gives a tolerance of about 0.5, and the rows still agree.
  EXPECT_EQ(rope_cli({"matrix", "--dim", "4", "--relative", "7e13", "-7e13"}).code, 0);
  // A multi-axis position names the component beyond the limit.
  expect_one_line_error(
      rope_cli({"matrix", "--model", "qwen2-vl-7b", "--position", "1,6e14,1"}), 2,
      "--position component 2 of (1, 600000000000000, 1) = 6e+14 is beyond what float64 resolves at d = 128");
  EXPECT_THAT(rope_cli({"matrix", "--model", "qwen2-vl-7b", "--position", "1,6e14,1", "--lang", "zh"}).err,
              HasSubstr("--position (1, 600000000000000, 1) 的第 2 个分量 = 6e+14 超出了 float64"));
}

TEST_F(CmdMatrix, EveryPresetsMatrixTimesAHeadEqualsHfModelingCode) {
  // tests/reference/model_apply.py's head vectors at positions 1 and 3000: the printed head_dim×head_dim
  // matrix (a·R_m on the rotating channels, identity elsewhere, (S19)) times x equals HF's apply to 1e-12
  // relative (both float64; entries written with 17 digits; an ulp of θ moves an angle by |m|·ε·θ).
  const auto cases = test::model_apply_cases();
  int checked = 0;
  for (const auto& [key, c] : cases) {
    const auto& [preset, position] = key;
    if (std::stod(position) > 3000) continue;
    std::vector<std::string> args{"matrix", "--position", position, "--csv", "-"};
    for (const auto& a : test::model_options(preset)) args.push_back(a);
    const Result r = rope_cli(args);
    ASSERT_EQ(r.code, 0) << preset << ": " << r.err;
    std::istringstream in(r.out);
    std::string line;
    std::vector<double> cells;
    ASSERT_TRUE(std::getline(in, line));  // the header col_0,…
    ASSERT_EQ(line.rfind("col_0,", 0), 0u) << line;
    while (std::getline(in, line)) {
      for (const auto& cell : test::split(line, ',')) cells.push_back(std::stod(cell));
    }
    const auto n = c.input.size();
    ASSERT_EQ(static_cast<Eigen::Index>(cells.size()), n * n) << preset;
    const Eigen::MatrixXd m =
        Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(cells.data(), n, n);
    EXPECT_LE((m * c.input - c.output).cwiseAbs().maxCoeff(), 1e-12 * c.input.norm()) << preset << " at " << position;
    ++checked;
  }
  EXPECT_GE(checked, 28);
}

TEST_F(CmdMatrix, HeaderSaysTheModelsLayoutAndFactor) {
  const Result r = rope_cli({"matrix", "--model", "gpt-oss-20b", "--position", "1", "--digits", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("half layout (model family gpt_oss)"));
  EXPECT_THAT(r.out, HasSubstr("the attention factor a = 1.34657 multiplies cos and sin"));
  const Result ds = rope_cli({"matrix", "--model", "deepseek-v3", "--position", "1", "--digits", "1"});
  EXPECT_THAT(ds.out, HasSubstr("interleaved layout (model family deepseek_v3)"));
  EXPECT_THAT(ds.out, HasSubstr("head_dim 192: the rotating channels are 128 … 191"));
}

TEST_F(CmdMatrix, MultiAxisPositionTurnsEachBlockByItsAxis) {
  // qwen2-vl-7b at (7, 2, 3): block 0 (axis t, θ_0 = 1) is R(7), block 16 (h, θ_16 = 1e6^(-32/128)) is
  // R(2·θ_16), block 40 (w) is R(3·θ_40): the entries (0, 0), (16, 16), (40, 40) of the half layout.
  const Result r = rope_cli({"matrix", "--model", "qwen2-vl-7b", "--position", "7,2,3", "--csv", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  const test::ReferenceCsv m = test::parse_reference(r.out);
  ASSERT_EQ(m.rows.size(), 128u);
  EXPECT_NEAR(std::stod(m.rows[0].at(0)), std::cos(7.0), 1e-15);
  EXPECT_NEAR(std::stod(m.rows[16].at(16)), std::cos(2 * std::pow(1e6, -32.0 / 128)), 1e-15);
  EXPECT_NEAR(std::stod(m.rows[40].at(40)), std::cos(3 * std::pow(1e6, -80.0 / 128)), 1e-15);
  EXPECT_NEAR(std::stod(m.rows[104].at(40)), std::sin(3 * std::pow(1e6, -80.0 / 128)), 1e-15);
  const Result text = rope_cli({"matrix", "--model", "qwen3-vl-8b", "--position", "7,2,3", "--digits", "1"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("m = (7, 2, 3)"));
  EXPECT_THAT(
      text.out,
      HasSubstr(
          "M-RoPE (interleaved sections [24, 20, 20]): block i is R(θ_i·p_a(i)), p_a(i) the position of its axis: THW·THW"));
  expect_one_line_error(rope_cli({"matrix", "--dim", "4", "--position", "1,2"}), 2,
                        "the position (1, 2) has 2 components but plain RoPE reads one");
}

TEST_F(CmdMatrix, FourSlotPositionOfAGgufTurnsPairs61And62ByTheSlotE) {
  // tests/io/write_gguf.py's qwen3-vl-8b.gguf (llama.cpp IMROPE, freq_base 5e6, d = 128, sections
  // [24, 20, 20, 0]) at (7, 2, 3, 5): by (A4) pairs 61 and 62 read the slot e = 5, pair 60 reads t = 7;
  // block j is R(p·5e6^(−2j/128)) on channels (j, j + 64). The matrix times tests/reference/mrope.py's
  // head equals its llama.cpp IMROPE port to 1e-12 of ‖x‖.
  const std::string gguf = std::string(ROPE_GGUF_DIR) + "/qwen3-vl-8b.gguf";
  const Result r = rope_cli({"matrix", "--config", gguf, "--position", "7,2,3,5", "--csv", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  const test::ReferenceCsv csv = test::parse_reference(r.out);
  ASSERT_EQ(csv.rows.size(), 128u);
  for (const auto& [j, p] : std::vector<std::pair<int, double>>{{60, 7.0}, {61, 5.0}, {62, 5.0}}) {
    const double phi = p * std::pow(5e6, -2.0 * j / 128);
    EXPECT_NEAR(std::stod(csv.rows[j].at(j)), std::cos(phi), 1e-15) << j;
    EXPECT_NEAR(std::stod(csv.rows[j + 64].at(j)), std::sin(phi), 1e-15) << j;
  }
  const Eigen::MatrixXd m = csv.matrix();
  Eigen::VectorXd x(128), want(128);
  int n = 0;
  for (const auto& row : test::read_reference("mrope_ggml_apply.csv").rows) {
    if (row.at(0) == "qwen3-vl-8b.gguf" && row.at(1) == "7.0" && row.at(2) == "2.0" && row.at(3) == "3.0" &&
        row.at(4) == "5.0") {
      x[n] = std::stod(row.at(6));
      want[n++] = std::stod(row.at(7));
    }
  }
  ASSERT_EQ(n, 128);
  EXPECT_LE((m * x - want).cwiseAbs().maxCoeff(), 1e-12 * x.norm());
  expect_one_line_error(rope_cli({"matrix", "--config", gguf, "--position", "7,2,3"}), 2,
                        "the position (7, 2, 3) has 3 components but this model reads 4 axes (t,h,w,e)");
  expect_one_line_error(rope_cli({"matrix", "--model", "qwen2-vl-7b", "--position", "7,2,3,5"}), 2,
                        "the position (7, 2, 3, 5) has 4 components but this model reads 3 axes (t,h,w)");
}

/// The d×d block rotation with pair j on channels `channels[j]` turned by `angle[j]`, entry by entry.
Eigen::MatrixXd blocks_by_hand(const std::vector<std::pair<int, int>>& channels, const std::vector<double>& angle) {
  Eigen::MatrixXd r = Eigen::MatrixXd::Zero(8, 8);
  for (std::size_t j = 0; j < channels.size(); ++j) {
    const auto [a, b] = channels[j];
    r(a, a) = r(b, b) = std::cos(angle[j]);
    r(a, b) = -std::sin(angle[j]);
    r(b, a) = std::sin(angle[j]);
  }
  return r;
}

TEST_F(CmdMatrix, VisionTowerBlocksByHandInBothLayouts) {
  // d = 8, base 10000, patch (row 2, column 3). Pixtral (V3): freqs 10000^(-2i/8) = 1, 0.1, 0.01, 0.001; the
  // row h takes the even ones (pairs 0, 1: 1, 0.01), the column w the odd ones (pairs 2, 3: 0.1, 0.001);
  // half layout (channels (j, j + 4)), or interleaved (2j, 2j + 1) with --layout. Llama 4 (V4): rope_freq
  // (1, 0.01) per axis, the column w first (pairs 0, 1), the row h after (pairs 2, 3), interleaved, every
  // position + 1: angles 4, 0.04, 3, 0.03. Every entry, zeros included; 1e-15: one product and cos/sin, an ulp.
  const std::vector<double> pixtral{2.0, 0.02, 0.3, 0.003}, llama4{4.0, 0.04, 3.0, 0.03};
  const std::vector<std::pair<int, int>> half{{0, 4}, {1, 5}, {2, 6}, {3, 7}},
      interleaved{{0, 1}, {2, 3}, {4, 5}, {6, 7}};
  const std::vector<std::tuple<std::vector<std::string>, Eigen::MatrixXd>> cases{
      {{"--vision", "pixtral"}, blocks_by_hand(half, pixtral)},
      {{"--vision", "pixtral", "--layout", "interleaved"}, blocks_by_hand(interleaved, pixtral)},
      {{"--vision", "llama4"}, blocks_by_hand(interleaved, llama4)},
      {{"--vision", "llama4", "--layout", "half"}, blocks_by_hand(half, llama4)}};
  for (const auto& [flags, want] : cases) {
    std::vector<std::string> args{"matrix", "--dim", "8", "--position", "2,3", "--csv", "-"};
    args.insert(args.end(), flags.begin(), flags.end());
    const Result r = rope_cli(args);
    ASSERT_EQ(r.code, 0) << r.err;
    const Eigen::MatrixXd got = test::parse_reference(r.out).matrix();
    ASSERT_EQ(got.rows(), 8);
    EXPECT_LE((got - want).cwiseAbs().maxCoeff(), 1e-15) << flags.back() << "\n" << got;
  }
  // One number is the patch (m, m): pixtral at 2 turns pair 2 by 0.1·2.
  const Result one = rope_cli({"matrix", "--vision", "pixtral", "--dim", "8", "--position", "2", "--csv", "-"});
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_NEAR(test::parse_reference(one.out).matrix()(6, 2), std::sin(0.2), 1e-15);
  const Result text = rope_cli({"matrix", "--vision", "llama4", "--dim", "8", "--position", "2,3", "--digits", "2"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("m = (2, 3)"));
  EXPECT_THAT(text.out, HasSubstr("2-D vision RoPE (llama4, (V4)): pair i turns by θ_i·(p + 1)"));
  EXPECT_THAT(text.out, HasSubstr(": WW·HH"));
}

// --json (issue 51: the report pattern): R_m's rows as --csv writes them; with --relative both matrices and the
// check the text prints.
TEST_F(CmdMatrix, JsonHasTheCsvsRowsAndTheRelativeCheck) {
  const Result r = rope_cli({"matrix", "--dim", "4", "--position", "1", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["dim"], 4);
  EXPECT_EQ(j["position"], "1");
  const Result csv = rope_cli({"matrix", "--dim", "4", "--position", "1", "--csv", "-"});
  std::istringstream lines(csv.out);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "col_0,col_1,col_2,col_3");
  for (int i = 0; std::getline(lines, line); ++i) {
    std::string row;
    for (int c = 0; c < 4; ++c) row += (c ? "," : "") + format_number(j["matrix"][i][c].get<double>());
    EXPECT_EQ(line, row);
  }
  const Result rel = rope_cli({"matrix", "--dim", "4", "--relative", "2", "5", "--json"});
  ASSERT_EQ(rel.code, 0) << rel.err;
  const nlohmann::json k = nlohmann::json::parse(rel.out);
  EXPECT_EQ(k["delta"], "3");
  EXPECT_EQ(k["equal"], true);
  EXPECT_LE(k["difference"].get<double>(), k["tolerance"].get<double>());
  ASSERT_EQ(k["product"].size(), 4u);
  EXPECT_TRUE(k.find("matrix") == k.end());
}

}  // namespace
}  // namespace rope
