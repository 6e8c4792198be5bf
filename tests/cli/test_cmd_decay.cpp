// rope decay: the bound (M11), the kinds, several bases, ReRoPE, the CSV beside a figure, in-process (moved from
// test_cli.cpp).
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

class CmdDecay : public test::TempDirTest {};

TEST_F(CmdDecay, DecayCsvMatchesNumpyReference) {
  // What `make demo` writes (every integer distance 0 … 256), against tests/reference/decay.py (O(d²) NumPy),
  // 1e-12 relative.
  const std::string target = path("decay.csv");
  const Result r = rope_cli({"decay", "--base", "10000", "--dim", "128", "--csv", target});
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream in(target);
  std::string header;
  std::getline(in, header);
  const auto ref = test::read_reference("decay_d128_base10000.csv");
  EXPECT_EQ(header, "distance,base=10000");
  std::string line;
  std::size_t row = 0;
  while (std::getline(in, line)) {
    ASSERT_LT(row, ref.rows.size());
    const auto cells = test::split(line, ',');
    EXPECT_EQ(std::stod(cells[0]), std::stod(ref.rows[row][0])) << row;
    const double expected = std::stod(ref.rows[row][1]);
    EXPECT_NEAR(std::stod(cells[1]), expected, 1e-12 * expected) << row;
    ++row;
  }
  EXPECT_EQ(row, 257u);  // every integer distance 0 … 256
}

TEST_F(CmdDecay, DistancesAreIntegersUnlessPointsAsksOtherwise) {
  // The bound is defined on integer distances: by default every one of 0 … max-distance (it was 1000
  // points 0, 0.256, 0.512, …, distances that no two positions have).
  const Result r = rope_cli({"decay", "--dim", "8", "--max-distance", "10", "--csv", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream in(r.out);
  std::string line;
  std::getline(in, line);
  for (int m = 0; m <= 10; ++m) {
    ASSERT_TRUE(std::getline(in, line));
    EXPECT_EQ(test::split(line, ',')[0], std::to_string(m));
  }
  EXPECT_FALSE(std::getline(in, line));
  EXPECT_THAT(rope_cli({"decay", "--dim", "8"}).out,
              HasSubstr("(every integer distance from 0 to 256, 257 points: --csv FILE)"));
  // Fractional only when asked for: --points N gives N evenly spaced distances.
  EXPECT_THAT(rope_cli({"decay", "--dim", "8", "--max-distance", "1", "--points", "3", "--csv", "-"}).out,
              HasSubstr("\n0.5,"));
  expect_one_line_error(rope_cli({"decay", "--max-distance", "100.5"}), 2,
                        "--max-distance must be a whole number when every integer distance is computed (got 100.5)");
  expect_one_line_error(rope_cli({"decay", "--max-distance", "1e8"}), 2, "more integer distances than");
  EXPECT_EQ(rope_cli({"decay", "--max-distance", "1e8", "--points", "100"}).code, 0);
}

TEST_F(CmdDecay, DecayWithSeveralBasesNamesEachColumn) {
  const Result r = rope_cli(
      {"decay", "--base", "10000", "--base", "1000000", "--max-distance", "1000", "--points", "101", "--csv", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("distance,base=10000,base=1000000\n0,32.5,32.5\n10,"));
}

TEST_F(CmdDecay, DecayKinds) {
  // --kind ones at m = 0 is d (M14); --kind random reports mean ± sd with sd near √d (M15).
  const Result ones =
      rope_cli({"decay", "--kind", "ones", "--dim", "8", "--points", "3", "--max-distance", "2", "--csv", "-"});
  ASSERT_EQ(ones.code, 0) << ones.err;
  EXPECT_THAT(ones.out, StartsWith("distance,base=10000\n0,8\n1,"));
  const Result random = rope_cli({"decay", "--kind", "random", "--samples", "50", "--points", "11", "--csv", "-"});
  ASSERT_EQ(random.code, 0) << random.err;
  EXPECT_THAT(random.out, StartsWith("distance,base=10000_mean,base=10000_sd\n"));
  const Result norm = rope_cli({"decay", "--normalize", "--points", "2", "--csv", "-"});
  EXPECT_THAT(norm.out, StartsWith("distance,base=10000\n0,1\n"));  // f(0)/f(0)
  const Result logx = rope_cli({"decay", "--log-x", "--max-distance", "1000000", "--points", "7", "--csv", "-"});
  ASSERT_EQ(logx.code, 0) << logx.err;
  EXPECT_THAT(logx.out, StartsWith("distance,base=10000\n1,"));
  EXPECT_THAT(logx.out, HasSubstr("\n1000000,"));
}

TEST_F(CmdDecay, DecayRejectsContradictoryOptions) {
  expect_one_line_error(rope_cli({"decay", "--kind", "spiral"}), 2,
                        "--kind must be 'bound', 'ones' or 'random' (got 'spiral')");
  expect_one_line_error(rope_cli({"decay", "--kind", "random", "--normalize"}), 2,
                        "--normalize does not apply to --kind random");
  expect_one_line_error(rope_cli({"decay", "--log-x", "--max-distance", "1"}), 2, "--log-x needs");
  expect_one_line_error(rope_cli({"decay", "--kind", "ones", "--log-y"}), 2, "--log-y needs positive values");
  expect_one_line_error(rope_cli({"decay", "--kind", "random", "--samples", "1"}), 2, "samples must be >= 2");
  expect_one_line_error(rope_cli({"decay", "--seed", "-1"}), 2, "--seed must be >= 0");
}

TEST_F(CmdDecay, CsvBesideAFigureHoldsExactlyThePlottedData) {
  // The kept script's datablock is what gnuplot draws; every line must be the CSV row, as text.
  const Result r = rope_cli({"decay", "--base", "10000", "--base", "500000", "--points", "300", "--csv", path("d.csv"),
                             "--png", path("d.png"), "--keep-script", path("d.gp")});
  ASSERT_EQ(r.code, 0) << r.err;
  expect_plotted_data_equals_csv(read(path("d.gp")), read(path("d.csv")), 2, 300);
}

TEST_F(CmdDecay, DecayUnderReRoPESeesMappedDistances) {
  // ReRoPE w = 100: distance 300 is seen as 100; Leaky ReRoPE w = 100, k = 4: 300 → 100 + 200/4 = 150.
  // f(100) = 10.227 and f(150) = 7.588 for d = 128, base 1e4 (docs/math.md (M11), 3 decimals).
  const Result re = rope_cli({"decay", "--rerope", "100", "--points", "4", "--max-distance", "300", "--csv", "-"});
  ASSERT_EQ(re.code, 0) << re.err;
  const auto rows = test::split(re.out, '\n');
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_NEAR(std::stod(test::split(rows[4], ',')[1]), 10.227, 5e-4);
  const Result leaky =
      rope_cli({"decay", "--rerope", "100", "--leaky-k", "4", "--points", "4", "--max-distance", "300", "--csv", "-"});
  ASSERT_EQ(leaky.code, 0) << leaky.err;
  EXPECT_NEAR(std::stod(test::split(test::split(leaky.out, '\n')[4], ',')[1]), 7.588, 5e-4);
  expect_one_line_error(rope_cli({"decay", "--leaky-k", "4"}), 2,
                        "--leaky-k requires --rerope (see 'rope decay --help')");
  expect_one_line_error(rope_cli({"decay", "--rerope", "-5"}), 2, "--rerope W must be >= 0 (got -5)");
  expect_one_line_error(rope_cli({"decay", "--rerope", "10", "--leaky-k", "0.5"}), 2, "--leaky-k K must be >= 1");
}

TEST_F(CmdDecay, ModelScoresCarryTheAttentionFactorSquared) {
  // Issue 13: under --model the scaled curve is the model's: gpt-oss-20b's yarn attention factor a is in
  // cos and sin, so q·k (here q = k = all ones over the 64 rotating channels) is a²·2Σcos(m·θ_i). Against
  // presets.py's θ_i and a, 1e-12 relative (a sum of 32 cosines: rounding ~1e-15).
  const auto [theta, a] = test::preset_reference("gpt-oss-20b");
  ASSERT_EQ(theta.size(), 32);
  const Result r = rope_cli(
      {"decay", "--model", "gpt-oss-20b", "--kind", "ones", "--max-distance", "300", "--points", "4", "--csv", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto rows = test::split(r.out, '\n');
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0], "distance,original,yarn");
  for (std::size_t k = 1; k < rows.size(); ++k) {
    const auto cells = test::split(rows[k], ',');
    const double m = std::stod(cells[0]);
    double want = 0;
    for (Eigen::Index i = 0; i < theta.size(); ++i) want += 2 * std::cos(m * theta[i]);
    want *= a * a;
    EXPECT_NEAR(std::stod(cells[2]), want, 1e-12 * 64 * a * a) << "m = " << m;
  }
  EXPECT_NEAR(std::stod(test::split(rows[1], ',')[2]), 64 * a * a, 1e-12 * 64 * a * a);  // m = 0: a²·d
  // The table says where the numbers come from: the spec, its layout and the factor.
  const Result table = rope_cli({"decay", "--model", "gpt-oss-20b", "--max-distance", "10"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_THAT(
      test::unwrapped(table.out),
      HasSubstr(
          "RoPE of gpt-oss-20b: head_dim 64, channels 0 … 63 rotate (d = 64); half layout (model family gpt_oss)"));
  EXPECT_THAT(test::unwrapped(table.out),
              HasSubstr("attention factor a = " + with_digits(a, 6) + " in cos and sin (as HF): scores × a² = "));
  EXPECT_THAT(table.out, HasSubstr("the pair layout does not change them"));
}

TEST_F(CmdDecay, ModelPartialRotaryAndNopeLayersAreSaid) {
  // GPT-NeoX rotates 24 of its 96 channels; a Llama 4 text config has NoPE layers (every 4th by default)
  // whose scores do not depend on distance, and a query temperature (S20) of 1.0693 from position 8191.
  const Result neox = rope_cli({"decay", "--model", "gpt-neox-20b", "--max-distance", "10"});
  ASSERT_EQ(neox.code, 0) << neox.err;
  EXPECT_THAT(neox.out, HasSubstr("head_dim 96, channels 0 … 23 rotate (d = 24), the other 72 pass through"));
  const std::string cfg = path("llama4.json");
  std::ofstream(cfg)
      << R"({"model_type": "llama4_text", "head_dim": 128, "num_hidden_layers": 8, "rope_theta": 500000.0})";
  const Result l4 = rope_cli({"decay", "--config", cfg, "--max-distance", "10"});
  ASSERT_EQ(l4.code, 0) << l4.err;
  EXPECT_THAT(test::unwrapped(l4.out), HasSubstr("layer type rope (layers 0–2, 4–6)"));
  EXPECT_THAT(test::unwrapped(l4.out), HasSubstr("interleaved layout (model family llama4_text)"));
  EXPECT_THAT(test::unwrapped(l4.out),
              HasSubstr("layers 3, 7 (nope) are NoPE layers: no rotation, their scores do not depend on position; "
                        "the query is multiplied by the temperature (S20), 1 below position 8191 and 1.0693"));
  test::expect_one_line_error(rope_cli({"decay", "--config", cfg, "--layer-type", "nope"}), 2,
                              "are NoPE layers, they rotate nothing");
}

// Memory is bounded by points × columns (issue 19, item 6): 16 bases at 10^7 points used to peak at
// 7 GB; now exit 2 naming the limit, before anything is computed.
TEST_F(CmdDecay, PointsTimesColumnsIsBounded) {
  std::vector<std::string> args = {"decay", "--points", "10000000"};
  for (int b = 1; b <= 16; ++b) args.insert(args.end(), {"--base", std::to_string(10000 * b)});
  test::expect_one_line_error(rope_cli(args), 2,
                              "--points 10000000 × 17 columns is 1.7e+08 values, over the limit of 2e+07 (kMaxCells)");
  args[2] = "1176471";  // one point over: 1 176 471 × 17 > 2·10^7
  test::expect_one_line_error(rope_cli(args), 2, "over the limit of 2e+07");
}

// The work of every curve, GIF frames included, is bounded before any is computed (issue 52, item 7):
// d = 65536 at 10^6 points over a 36-frame GIF would have run for hours.
TEST_F(CmdDecay, WorkOfEveryCurveIsBounded) {
  const std::string gif = path("never.gif");
  test::expect_one_line_error(
      rope_cli({"decay", "--dim", "65536", "--points", "1000000", "--gif", gif}), 2,
      "--points 1000000 × d/2 = 32768 pairs × 37 curves is 1.21e+12 units of work, over the limit of 5e+09 "
      "(kMaxDecayWork, about 30 s): use fewer points, a smaller --dim, or fewer curves (--base values, --frames)");
  EXPECT_FALSE(std::filesystem::exists(gif));
  // The direct path (log-x) costs 10 units a term: 4096/2 pairs × 500 000 points × 10 = 1.02e10.
  test::expect_one_line_error(
      rope_cli({"decay", "--dim", "4096", "--points", "500000", "--log-x", "--max-distance", "1e6"}), 2,
      "is 1.02e+10 units of work");
}

TEST_F(CmdDecay, XposCurvesEqualTheNumpyPort) {
  // xpos_bound.csv (the direct double loop of (X5), d = 128, base 10000, s = 512) divided by f(0) = 32.5;
  // ζ_0^(m/s) = (2/7)^(m/512) by hand. Tolerance 1e-12 relative (sums of 64 terms, cos/sin an ulp apart).
  const Result r = rope_cli({"decay", "--xpos", "--max-distance", "4096", "--csv", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::map<double, std::vector<double>> rows;
  std::istringstream in(r.out);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "distance,bound,xpos_bound,zeta_first,zeta_mean,zeta_last");
  while (std::getline(in, line)) {
    std::vector<double> v;
    for (const auto& cell : test::split(line, ',')) v.push_back(std::stod(cell));
    rows[v.at(0)] = v;
  }
  ASSERT_EQ(rows.size(), 4097u);
  const test::ReferenceCsv ref = test::read_reference("xpos_bound.csv");
  for (const auto& row : ref.rows) {
    const double t = std::stod(row.at(0)), want = std::stod(row.at(1)) / 32.5;
    EXPECT_LE(std::abs(rows.at(t).at(2) - want), 1e-12 * want) << t;
    EXPECT_NEAR(rows.at(t).at(3), std::pow(2.0 / 7.0, t / 512), 1e-15) << t;
  }
  EXPECT_EQ(rows.at(0).at(1), 1.0);
  const Result text = rope_cli({"decay", "--xpos"});
  EXPECT_THAT(text.out, HasSubstr("from 0.285714 to 0.988839"));
  expect_one_line_error(rope_cli({"decay", "--xpos", "--kind", "ones"}), 2,
                        "--xpos draws plain RoPE's bound with one --base");
  expect_one_line_error(rope_cli({"decay", "--xpos-scale-base", "64"}), 2,
                        "--xpos-scale-base requires --xpos (see 'rope decay --help')");
  expect_one_line_error(rope_cli({"decay", "--xpos", "--max-distance", "1e6", "--points", "10"}), 2,
                        "--max-distance 1000000 over --xpos-scale-base 512 is over 500");
  // The work bound of (X5): 65 536 distances × 32 768 pairs = 2.1e9 terms (it took 10 minutes before).
  expect_one_line_error(
      rope_cli({"decay", "--xpos", "--dim", "65536", "--max-distance", "65535"}), 2,
      "--xpos: 65536 distances × d/2 = 32768 pairs is 2.14748e+09 terms of (X5), over the limit of 1e+08");
  const Result zh = rope_cli({"decay", "--xpos", "--dim", "65536", "--max-distance", "65535", "--lang", "zh"});
  EXPECT_THAT(zh.err, HasSubstr("超过上限 1e+08"));
}

// --xpos --json is its report's value (report/decay_xpos_report.hpp), where it printed the text before.
TEST_F(CmdDecay, XposJsonIsTheReportsValue) {
  const Result r = rope_cli({"decay", "--xpos", "--max-distance", "10", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"distances\": [\n    0.0,\n    1.0,\n    2.0,\n    5.0,\n    10.0\n  ]"));
  EXPECT_THAT(r.out, HasSubstr("\"scale_base\": 512.0"));
  EXPECT_EQ(r.out.find("xPos, d ="), std::string::npos);
}

// --json goes through the report (report/decay_report.hpp decay_value): the table's round distances and each
// curve's values there, the same numbers the text prints (6 digits) and the CSV holds (full precision).
TEST_F(CmdDecay, JsonIsTheReportsValue) {
  const Result r =
      rope_cli({"decay", "--base", "10000", "--base", "500000", "--dim", "16", "--max-distance", "64", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["kind"], "bound");
  EXPECT_EQ(j["dim"], 16);
  EXPECT_EQ(j["points"], 65);
  EXPECT_EQ(j["distances"], nlohmann::json::parse("[0, 1, 2, 5, 10, 20, 50, 64]"));
  ASSERT_EQ(j["curves"].size(), 2u);
  EXPECT_EQ(j["curves"][1]["name"], "base=500000");
  const std::string csv = path("decay.csv");
  ASSERT_EQ(
      rope_cli({"decay", "--base", "10000", "--base", "500000", "--dim", "16", "--max-distance", "64", "--csv", csv})
          .code,
      0);
  std::ifstream in(csv);
  std::string line;
  std::vector<std::vector<std::string>> rows;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::istringstream fields(line);
    for (std::string cell; std::getline(fields, cell, ',');) cells.push_back(cell);
    rows.push_back(cells);
  }
  const std::vector<double> values = j["curves"][0]["values"];
  const std::vector<int> at = j["distances"];
  for (std::size_t k = 0; k < at.size(); ++k) {
    EXPECT_DOUBLE_EQ(values[k], std::stod(rows.at(static_cast<std::size_t>(at[k]) + 1).at(1))) << at[k];
  }
  // The random kind: mean and sd per curve, with its seed and samples.
  const Result random = rope_cli({"decay", "--kind", "random", "--samples", "50", "--dim", "8", "--json"});
  ASSERT_EQ(random.code, 0) << random.err;
  const auto jr = nlohmann::json::parse(random.out);
  EXPECT_EQ(jr["samples"], 50);
  EXPECT_EQ(jr["seed"], 2104);
  EXPECT_EQ(jr["curves"][0]["mean"].size(), jr["curves"][0]["sd"].size());
}

}  // namespace
}  // namespace rope
