// `rope layouts` in-process: every number it prints against an independent computation (pairs and θ_i
// from the definitions, scores with the channels of each pair written out), its CSV and figure, exit codes
// and one-line messages. The library itself: test_layouts.cpp.
#include "rope/cli/cli.hpp"

#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <unistd.h>

#include "support/cli_harness.hpp"
#include "support/reference_data.hpp"
#include "rope/core/random.hpp"
#include "rope/core/tolerance.hpp"

namespace rope {
namespace {

using test::expect_one_line_error;
using test::expect_plotted_data_equals_csv;
using test::png_size;
using test::Result;
using test::rope_cli;

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// Helpers copied from test_cli.cpp.

class CmdLayouts : public test::TempDirTest {};

// ---------------------------------------------------------------------------------------------
// The independent computation.

/// What one run computes, rebuilt from the definitions: q, k = the first 2d normals of Random(seed)
/// (the generator is tested in test_random.cpp), θ_i = base^(−2i/d) (M1).
struct Expected {
  int d;
  double base;
  std::uint64_t seed;
  double m;
  double n;
  long max_distance;
  Eigen::VectorXd theta, q, k;

  Expected(int d_, double base_, std::uint64_t seed_, double m_, double n_, long max_distance_)
      : d(d_), base(base_), seed(seed_), m(m_), n(n_), max_distance(max_distance_), theta(d_ / 2), q(d_), k(d_) {
    for (int i = 0; i < d / 2; ++i) theta[i] = std::pow(base, -2.0 * i / d);
    Random rng(seed_);
    for (int c = 0; c < d; ++c) q[c] = rng.normal();
    for (int c = 0; c < d; ++c) k[c] = rng.normal();
  }

  /// Channel c of the half layout holds channel perm(c) of the interleaved one (M6).
  int perm(int c) const { return c < d / 2 ? 2 * c : 2 * (c - d / 2) + 1; }

  /// ⟨R_a x, R_b y⟩ with pair i on (2i, 2i+1) or (i, i + d/2), each 2×2 rotation written out (M3).
  double score(const Eigen::VectorXd& x, const Eigen::VectorXd& y, double a, double b, bool half) const {
    double sum = 0.0;
    for (int i = 0; i < d / 2; ++i) {
      const int c0 = half ? i : 2 * i;
      const int c1 = half ? i + d / 2 : 2 * i + 1;
      const double xa = x[c0] * std::cos(a * theta[i]) - x[c1] * std::sin(a * theta[i]);
      const double xb = x[c0] * std::sin(a * theta[i]) + x[c1] * std::cos(a * theta[i]);
      const double ya = y[c0] * std::cos(b * theta[i]) - y[c1] * std::sin(b * theta[i]);
      const double yb = y[c0] * std::sin(b * theta[i]) + y[c1] * std::cos(b * theta[i]);
      sum += xa * ya + xb * yb;
    }
    return sum;
  }
  double reference(double a, double b) const { return score(q, k, a, b, false); }
  double mixed(double a, double b) const { return score(q, k, a, b, true); }
  double fixed(double a, double b) const {
    Eigen::VectorXd Pq(d), Pk(d);
    for (int c = 0; c < d; ++c) {
      Pq[c] = q[perm(c)];
      Pk[c] = k[perm(c)];
    }
    return score(Pq, Pk, a, b, true);
  }
  /// (M13) on a score: κ·ε·(d + M)·‖q‖‖k‖.
  double tolerance(double position_budget) const {
    return relative_tolerance(machine_epsilon<double>(), d, position_budget) * q.norm() * k.norm();
  }
  double tolerance(double a, double b) const { return tolerance(std::abs(a) + std::abs(b) + std::abs(b - a)); }
};

// ---------------------------------------------------------------------------------------------
// Reading the output.

std::vector<std::string> layouts_lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

/// The only line that contains `needle`.
std::string line_with(const std::string& text, const std::string& needle) {
  std::string found;
  int count = 0;
  for (const std::string& line : layouts_lines_of(text)) {
    if (line.find(needle) != std::string::npos) {
      found = line;
      ++count;
    }
  }
  EXPECT_EQ(count, 1) << "'" << needle << "' in\n" << text;
  return found;
}

/// The number that follows `key` in `line`.
double layouts_number_after(const std::string& line, const std::string& key) {
  const std::size_t at = line.find(key);
  EXPECT_NE(at, std::string::npos) << "'" << key << "' in '" << line << "'";
  if (at == std::string::npos) return std::nan("");
  return std::stod(line.substr(at + key.size()));
}

/// The text that follows `key` in `line`, up to the next space.
std::string word_after(const std::string& line, const std::string& key) {
  const std::size_t at = line.find(key);
  if (at == std::string::npos) return "";
  const std::size_t start = at + key.size();
  return line.substr(start, line.find(' ', start) - start);
}

// ---------------------------------------------------------------------------------------------

TEST_F(CmdLayouts, HelpShowsAnExample) {
  const Result r = rope_cli({"layouts", "--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_THAT(r.out, HasSubstr("Example:"));
  EXPECT_THAT(r.out, HasSubstr("--position"));
  EXPECT_THAT(rope_cli({"--help"}).out, HasSubstr("layouts"));
}

TEST_F(CmdLayouts, PairTableListsBothPairingsAndTheta) {
  // pair i: θ_i = 10000^(−2i/8), interleaved channels (2i, 2i+1), half channels (i, i + 4)  (docs/math.md §3 table).
  const Result r = rope_cli({"layouts", "--dim", "8"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("rope layouts: d = 8, base = 10000 "));
  const std::vector<std::string> lines = layouts_lines_of(r.out);
  const auto header =
      std::find_if(lines.begin(), lines.end(), [](const std::string& l) { return l.rfind("pair i", 0) == 0; });
  ASSERT_NE(header, lines.end());
  for (int i = 0; i < 4; ++i) {
    std::istringstream row(*(header + 1 + i));
    int index = -1;
    double theta = 0;
    std::string a, b, c, e;
    row >> index >> theta >> a >> b >> c >> e;
    EXPECT_EQ(index, i);
    EXPECT_DOUBLE_EQ(theta, std::pow(10000.0, -2.0 * i / 8)) << i;  // 1, 0.1, 0.01, 0.001
    EXPECT_EQ(a + " " + b, fmt::format("({}, {})", 2 * i, 2 * i + 1)) << i;
    EXPECT_EQ(c + " " + e, fmt::format("({}, {})", i, i + 4)) << i;
  }
  EXPECT_EQ(*(header + 5), "");  // d/2 = 4 rows, no θ_4
}

TEST_F(CmdLayouts, PrintsPermAndTheZeroOneMatrixOfP) {
  // (M6): P[i, 2i] = P[i + d/2, 2i + 1] = 1; perm = [0, 2, 4, 6, 1, 3, 5, 7] for d = 8 (docs/math.md §3).
  const Result r = rope_cli({"layouts", "--dim", "8"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(line_with(r.out, "perm = "), HasSubstr("perm = [0, 2, 4, 6, 1, 3, 5, 7]"));
  const std::vector<std::string> lines = layouts_lines_of(r.out);
  const auto title = std::find(lines.begin(), lines.end(), "  P, with P[c, perm[c]] = 1:");
  ASSERT_NE(title, lines.end());
  for (int row = 0; row < 8; ++row) {
    std::string expected = "   ";
    const int one = row < 4 ? 2 * row : 2 * (row - 4) + 1;
    for (int col = 0; col < 8; ++col) expected += col == one ? " 1" : " 0";
    EXPECT_EQ(*(title + 1 + row), expected) << row;
  }
  EXPECT_EQ(layouts_number_after(line_with(r.out, "R_half = P R_int Pᵀ"), "max |difference| = "), 0.0);

  // The matrix up to d = 32, perm in full up to d = 64, then abbreviated.
  EXPECT_THAT(rope_cli({"layouts", "--dim", "32"}).out, HasSubstr("P, with P[c, perm[c]] = 1:"));
  const Result d64 = rope_cli({"layouts", "--dim", "64"});
  EXPECT_THAT(d64.out, Not(HasSubstr("P, with P[c, perm[c]] = 1:")));
  std::string full;
  for (int c = 0; c < 64; ++c) full += fmt::format("{}{}", c ? ", " : "", c < 32 ? 2 * c : 2 * (c - 32) + 1);
  // The full list, broken into lines of at most 100 columns under its '['.
  std::string shown = d64.out.substr(d64.out.find("  perm = ["));
  shown = shown.substr(0, shown.find("]\n") + 1);
  for (std::size_t start = 0, end = 0; end != std::string::npos; start = end + 1) {
    end = shown.find('\n', start);
    EXPECT_LE((end == std::string::npos ? shown.size() : end) - start, 100u) << shown;  // ASCII: a byte a column
  }
  for (std::size_t at; (at = shown.find("\n          ")) != std::string::npos;) shown.replace(at, 11, " ");
  EXPECT_EQ(shown, "  perm = [" + full + "]");
  EXPECT_THAT(rope_cli({"layouts", "--dim", "128"}).out, HasSubstr("perm = [0, 2, 4, …, 126, 1, 3, 5, …, 127]"));
}

/// The score lines (a), (b), (c) and the change line against Expected.
void expect_scores(const Result& r, const Expected& e) {
  ASSERT_EQ(r.code, 0) << r.err;
  const double a = layouts_number_after(line_with(r.out, "(a) Meta's interleaved kernel"), "= ");
  const double b = layouts_number_after(line_with(r.out, "(b) rotate_half, weights unconverted"), "= ");
  const std::string c_line = line_with(r.out, "(c) rotate_half, weights permuted by P");
  const double c = layouts_number_after(c_line, "= ");
  // The scores are printed with 6 significant digits (report/digits.hpp readable): off by at most half a unit of
  // the last, 5e-6 of the value, beyond the rounding tolerance of the computation.
  const auto printed = [&](double x, double tolerance) { return tolerance + 5e-6 * std::abs(x); };
  const double tol = e.tolerance(e.m, e.n);
  EXPECT_NEAR(a, e.reference(e.m, e.n), printed(e.reference(e.m, e.n), tol));
  EXPECT_NEAR(b, e.mixed(e.m, e.n), printed(e.mixed(e.m, e.n), tol));
  EXPECT_NEAR(c, e.fixed(e.m, e.n), printed(e.fixed(e.m, e.n), tol));
  // The fix is exact: (c) prints the same digits as (a).
  EXPECT_EQ(word_after(c_line, "= "), word_after(line_with(r.out, "(a) Meta's interleaved kernel"), "= "));
  const std::string change = line_with(r.out, "the bug changes the score by |(b) − (a)|");
  const double bug = std::abs(e.mixed(e.m, e.n) - e.reference(e.m, e.n));
  EXPECT_NEAR(layouts_number_after(change, "|(b) − (a)| = "), bug, printed(bug, 2 * tol));
  EXPECT_EQ(layouts_number_after(change, "|(c) − (a)| = "), 0.0);
  EXPECT_THAT(r.out, HasSubstr(fmt::format("the query at m = {} and the key at n = {}:", e.m, e.n)));
}

TEST_F(CmdLayouts, ScoresMatchAnIndependentComputation) {
  expect_scores(rope_cli({"layouts", "--dim", "8"}), Expected(8, 1e4, kDefaultSeed, 5, 12, 64));
  // n < m, a fractional position, another base and seed.
  expect_scores(rope_cli({"layouts", "--dim", "16", "--base", "500000", "--seed", "7", "--position", "100",
                          "--position", "90.5", "--max-distance", "10"}),
                Expected(16, 5e5, 7, 100, 90.5, 10));
  expect_scores(rope_cli({"layouts", "--dim", "128", "--position", "-3", "--position", "4096"}),
                Expected(128, 1e4, kDefaultSeed, -3, 4096, 64));
}

TEST_F(CmdLayouts, SweepStatisticsMatchAnIndependentComputation) {
  for (const Expected& e : {Expected(8, 1e4, kDefaultSeed, 5, 12, 64), Expected(64, 1e4, 3, 0, 1, 300)}) {
    const Result r = rope_cli({"layouts", "--dim", std::to_string(e.d), "--seed", std::to_string(e.seed), "--position",
                               fmt::format("{}", e.m), "--position", fmt::format("{}", e.n), "--max-distance",
                               std::to_string(e.max_distance)});
    ASSERT_EQ(r.code, 0) << r.err;
    double max_change = 0.0, sum = 0.0;
    for (long delta = 0; delta <= e.max_distance; ++delta) {
      const double n = e.m + static_cast<double>(delta);
      const double change = std::abs(e.mixed(e.m, n) - e.reference(e.m, n));
      max_change = std::max(max_change, change);
      sum += change;
    }
    const double mean = sum / static_cast<double>(e.max_distance + 1);
    EXPECT_THAT(r.out, HasSubstr(fmt::format("over n − m = 0 … {} ({} distances, the query at m = {}):", e.max_distance,
                                             e.max_distance + 1, e.m)));
    const std::string line = line_with(r.out, "the bug changes the score by up to");
    // Printed with 6 significant digits: 5e-6 relative covers the rounding of the print.
    EXPECT_NEAR(layouts_number_after(line, "up to "), max_change, 5e-6 * max_change);
    EXPECT_NEAR(layouts_number_after(line, ", by "), mean, 5e-6 * mean);
    EXPECT_NEAR(layouts_number_after(line_with(r.out, "a score itself is of size"), "√d = "), std::sqrt(e.d),
                5e-6 * std::sqrt(e.d));
    EXPECT_EQ(line_with(r.out, "the fix changes it by at most"),
              "  the fix changes it by at most 0: equal bit for bit at every distance");
  }
}

TEST_F(CmdLayouts, IdentityLinesShowTheToleranceOfM13AndPass) {
  // κ·ε·(d + M)·‖q‖‖k‖ with M = max(|m| + |n| + |n − m|, |m| + |m + D| + D) = max(0 + 4000 + 4000, 0 + 100 + 100).
  const Expected e(32, 1e4, kDefaultSeed, 0, -4000, 100);
  const Result r =
      rope_cli({"layouts", "--dim", "32", "--position", "0", "--position", "-4000", "--max-distance", "100"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("(M8) on these 102 pairs of positions"));  // (m, n) and δ = 0 … 100
  for (const std::string layout : {"  interleaved  max |Δ| = ", "  half         max |Δ| = "}) {
    const std::string line = line_with(r.out, layout);
    const double tolerance = layouts_number_after(line, "tolerance ");
    EXPECT_NEAR(tolerance, e.tolerance(8000), 5e-3 * e.tolerance(8000)) << line;  // 3 significant digits
    // The error itself is rounding noise; it must stay below the bound.
    EXPECT_LE(layouts_number_after(line, "max |Δ| = "), tolerance) << line;
    EXPECT_THAT(line, testing::EndsWith("PASS"));
  }
}

TEST_F(CmdLayouts, CsvHasTheThreeScoresAtEveryDistance) {
  const Expected e(16, 1e4, kDefaultSeed, 5, 12, 40);
  const Result r = rope_cli({"layouts", "--dim", "16", "--max-distance", "40", "--csv", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::vector<std::string> lines = layouts_lines_of(r.out);
  ASSERT_EQ(lines.size(), 42u);  // --csv - prints the CSV only: the header and δ = 0 … 40
  EXPECT_EQ(lines[0], "distance,score_interleaved,score_mixed,score_fixed");
  for (long delta = 0; delta <= 40; ++delta) {
    const std::vector<std::string> cells = test::split(lines[static_cast<std::size_t>(delta + 1)], ',');
    ASSERT_EQ(cells.size(), 4u);
    const double n = 5.0 + static_cast<double>(delta);
    EXPECT_EQ(std::stod(cells[0]), static_cast<double>(delta));
    EXPECT_NEAR(std::stod(cells[1]), e.reference(5, n), e.tolerance(5, n)) << delta;
    EXPECT_NEAR(std::stod(cells[2]), e.mixed(5, n), e.tolerance(5, n)) << delta;
    EXPECT_EQ(cells[3], cells[1]) << delta;  // the fix, exactly
  }
}

TEST_F(CmdLayouts, CsvFileAndTheTextTogether) {
  const Result r = rope_cli({"layouts", "--dim", "4", "--max-distance", "3", "--csv", path("s.csv")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("rope layouts: d = 4"));
  EXPECT_THAT(r.out, Not(HasSubstr("--csv FILE")));
  const std::vector<std::string> lines = layouts_lines_of(read(path("s.csv")));
  EXPECT_EQ(lines.size(), 5u);
}

TEST_F(CmdLayouts, ModelPresetUsesItsRotaryDimensionAndFrequencies) {
  // llama-2-7b: head_dim 4096/32 = 128, rope_theta 10000, no scaling (data/models/llama-2-7b.json).
  const Result r = rope_cli({"layouts", "--model", "llama-2-7b"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("rope layouts: d = 128, base = 10000, "));
  EXPECT_THAT(r.out, HasSubstr("llama-2-7b"));
  expect_scores(r, Expected(128, 1e4, kDefaultSeed, 5, 12, 64));
}

TEST_F(CmdLayouts, BadInputExitsTwoNamingTheValueAndRule) {
  expect_one_line_error(rope_cli({"layouts", "--dim", "7"}), 2,
                        "dimension d must be even and between 2 and 1024 (got 7)");
  expect_one_line_error(rope_cli({"layouts", "--dim", "2048"}), 2, "(got 2048)");
  expect_one_line_error(rope_cli({"layouts", "--dim", "8x"}), 2, "--dim must be a decimal integer (got '8x')");
  expect_one_line_error(rope_cli({"layouts", "--base", "0.5"}), 2, "base must be a finite number > 1 (got 0.5)");
  expect_one_line_error(rope_cli({"layouts", "--position", "3"}), 2,
                        "give --position twice, the query's m then the key's n (got 1 value)");
  expect_one_line_error(rope_cli({"layouts", "--position", "1", "--position", "2", "--position", "3"}), 2,
                        "(got 3 values)");
  expect_one_line_error(rope_cli({"layouts", "--position", "nan", "--position", "2"}), 2,
                        "--position must be a finite number (got 'nan')");
  expect_one_line_error(rope_cli({"layouts", "--position", "0", "--position", "2e9"}), 2,
                        "position n must be a finite number between -1e+09 and 1e+09 (got 2000000000)");
  expect_one_line_error(rope_cli({"layouts", "--max-distance", "-1"}), 2,
                        "max-distance must be between 0 and 100000 (got -1)");
  expect_one_line_error(rope_cli({"layouts", "--max-distance", "100001"}), 2, "(got 100001)");
  expect_one_line_error(rope_cli({"layouts", "--seed", "-1"}), 2, "--seed must be >= 0 (got -1)");
  expect_one_line_error(rope_cli({"layouts", "--keep-script", path("a.gp")}), 2, "--keep-script needs a figure");
  expect_one_line_error(rope_cli({"layouts", "--layout", "half"}), 2, "--layout");
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(CmdLayouts, UnwritableOutputExitsThreeAndLeavesNothing) {
  expect_one_line_error(rope_cli({"layouts", "--csv", path("missing/s.csv")}), 3, "cannot write");
  expect_one_line_error(rope_cli({"layouts", "--png", path("missing/s.png")}), 3, "s.png");
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(CmdLayouts, FigureDrawsTheThreeCurvesOfTheCsv) {
  // The kept script's datablocks are what gnuplot draws: (a), (b), (c) in that order, each the CSV's column.
  const Result r = rope_cli({"layouts", "--dim", "8", "--max-distance", "20", "--csv", path("s.csv"), "--png",
                             path("s.png"), "--width", "640", "--height", "480", "--keep-script", path("s.gp")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(png_size(read(path("s.png"))), (std::pair<std::uint32_t, std::uint32_t>{640, 480}));
  const std::string script = read(path("s.gp"));
  expect_plotted_data_equals_csv(script, read(path("s.csv")), 3, 21);
  EXPECT_THAT(script, HasSubstr("the bug"));
  EXPECT_THAT(script, HasSubstr("the fix"));
}

/// One cell of `rope layouts --dim 4 --cache`'s heatmap (θ = 1, 0.01): x the column (0 … 3 the half layout,
/// 5 … 8 the interleaved one, 10 … 11 gpt-oss's half-width table), y the row (position m in the cos band,
/// 17 + m in the sin band, 34 + m the angle over π), and the value the layout puts there.
struct CacheCell {
  int x;
  int y;
  double value;
};

class LayoutsCache : public test::TempDirTest, public ::testing::WithParamInterface<CacheCell> {};

TEST_P(LayoutsCache, EachTableHoldsItsLayoutsFrequencyInEveryChannel) {
  const Result r =
      rope_cli({"layouts", "--dim", "4", "--cache", "--png", path("c.png"), "--keep-script", path("c.gp")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(png_size(read(path("c.png"))), (std::pair<std::uint32_t, std::uint32_t>{1200, 800}));
  const std::string script = read(path("c.gp"));
  EXPECT_THAT(script, HasSubstr("two channels (partners)"));
  EXPECT_THAT(script, HasSubstr("gpt-oss"));
  std::istringstream in(script.substr(script.find("$heat << EOD")));
  std::string line;
  std::getline(in, line);
  std::optional<double> got;
  while (std::getline(in, line) && line != "EOD") {
    std::istringstream cell(line);
    int x = 0, y = 0;
    std::string z;
    if (cell >> x >> y >> z && x == GetParam().x && y == GetParam().y) got = std::stod(z);
  }
  ASSERT_TRUE(got.has_value()) << GetParam().x << ", " << GetParam().y;
  EXPECT_NEAR(*got, GetParam().value, 1e-12);
}

// Position 1: half = cat(freqs, freqs) puts θ_0, θ_1, θ_0, θ_1; interleaved = repeat_interleave(2) puts
// θ_0, θ_0, θ_1, θ_1; the half-width table θ_0, θ_1. Position 3's angle 3 rad is 3/π of a half turn.
INSTANTIATE_TEST_SUITE_P(Cells, LayoutsCache,
                         ::testing::Values(CacheCell{0, 1, std::cos(1.0)}, CacheCell{1, 1, std::cos(0.01)},
                                           CacheCell{2, 1, std::cos(1.0)}, CacheCell{3, 1, std::cos(0.01)},
                                           CacheCell{5, 1, std::cos(1.0)}, CacheCell{6, 1, std::cos(1.0)},
                                           CacheCell{7, 1, std::cos(0.01)}, CacheCell{8, 1, std::cos(0.01)},
                                           CacheCell{10, 1, std::cos(1.0)}, CacheCell{11, 1, std::cos(0.01)},
                                           CacheCell{2, 18, std::sin(1.0)}, CacheCell{6, 18, std::sin(1.0)},
                                           CacheCell{11, 18, std::sin(0.01)},
                                           CacheCell{0, 37, 3.0 / 3.141592653589793}));

TEST_F(CmdLayouts, CacheNeedsAFigure) {
  expect_one_line_error(rope_cli({"layouts", "--cache"}), 2, "--cache draws the figure of the cos/sin cache");
}

// --json goes through the report (report/layouts_report.hpp layouts_value): the settings, the scores at (m, n)
// and the checks, the exit code's verdict.
TEST(CmdLayoutsJson, IsTheReportsValue) {
  const Result r = rope_cli({"layouts", "--dim", "8", "--position", "5", "--position", "12", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["dim"], 8);
  EXPECT_EQ(j["passed"], true);
  EXPECT_TRUE(j.contains("max_mixed_change"));
  const Result zh = rope_cli({"layouts", "--dim", "8", "--json", "--lang", "zh"});
  ASSERT_EQ(zh.code, 0) << zh.err;
  EXPECT_EQ(nlohmann::json::parse(zh.out), j);  // numbers only: the same in every language
}

}  // namespace
}  // namespace rope
