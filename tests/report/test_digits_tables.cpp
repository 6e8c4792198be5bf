// The number policy (apps/rope/report/digits.hpp, issue 36) on the tables and reports that compare numbers:
// rope verify's errors and tolerances, rope precision's curves at one position, the error-against-tolerance
// lines of apply, layouts, permute, encodings, attention --shift and explain, identify's residuals and
// check's max |Δ|/tolerance. Each shows the significant digits that tell the values it compares apart,
// `--digits N` gives N, and `--digits 0` every digit (the shortest form that reads back).
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "rope/report/digits.hpp"
#include "support/cli_harness.hpp"

namespace rope::test {
namespace {

using ::testing::HasSubstr;

double read(const std::string& text) { return std::strtod(text.c_str(), nullptr); }

/// Significant digits of a number printed in %g or %e form ("1.23e-14": 3, "0.00423": 3, "0": 1).
int significant_digits(const std::string& text) {
  std::string mantissa = text.substr(0, text.find_first_of("eE"));
  std::string digits;
  for (const char c : mantissa) {
    if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
  }
  const auto first = digits.find_first_not_of('0');
  return first == std::string::npos ? 1 : static_cast<int>(digits.size() - first);
}

/// Every match of group 1.. of `pattern` in `text`, in order.
std::vector<std::string> all(const std::string& text, const std::string& pattern) {
  std::vector<std::string> found;
  const std::regex re(pattern);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it) {
    for (std::size_t g = 1; g < it->size(); ++g) found.push_back((*it)[g].str());
  }
  return found;
}

/// `shown` is `full` rounded to the digits `shown` has: within half a unit of its last digit.
void expect_rounded(const std::string& shown, const std::string& full) {
  const double x = read(full), y = read(shown);
  const double unit = x == 0 ? 0 : std::pow(10.0, std::floor(std::log10(std::abs(x))) - significant_digits(shown) + 1);
  EXPECT_LE(std::abs(x - y), 0.5 * unit * (1 + 1e-9)) << shown << " is not " << full << " rounded";
}

TEST(DigitsPolicy, ScientificFormGroupsAndRequestedDigits) {
  EXPECT_EQ(rope::sci_with_digits(1.23456e-14, 3), "1.23e-14");
  EXPECT_EQ(rope::sci_with_digits(0.0, 3), "0.00e+00");
  EXPECT_EQ(rope::sci_with_digits(1e-14, 0), "1e-14");  // every digit: the fewest that read back
  EXPECT_EQ(read(rope::sci_with_digits(M_PI * 1e-14, 0)), M_PI * 1e-14);
  // An error just above its tolerance: 3 digits showed both as 1.23e-14 beside FAIL.
  EXPECT_EQ(rope::compared_sci({1.23412e-14, 1.23398e-14}, std::nullopt),
            (std::vector<std::string>{"1.2341e-14", "1.2340e-14"}));
  EXPECT_EQ(rope::compared_sci({2.8e-17, 2.1e-14}, std::nullopt, 2), (std::vector<std::string>{"2.8e-17", "2.1e-14"}));
  // One count for a table: the most any group (row, column) needs.
  EXPECT_EQ(rope::digits_for({{1.0, 2.0}, {1.0001, 1.0002}}, std::nullopt, 3), 5);
  EXPECT_EQ(rope::digits_for({{1.0001, 1.0002}}, 2, 3), 2);  // --digits N wins
  EXPECT_EQ(rope::digits_for({{1.0001, 1.0002}}, 0, 3), 0);  // --digits 0: every digit
  // A ratio compared with 1 (check's max |Δ|/tolerance): 0.99996 passes and is not shown as 1.
  EXPECT_EQ(rope::compared({0.99996, 1.0}, std::nullopt, 4)[0], "0.99996");
  EXPECT_EQ(rope::compared({1.00004, 1.0}, std::nullopt, 4)[0], "1.00004");
}

/// The max |Δ|/S and tolerance cells of rope verify's narrow table, row by row.
std::vector<std::string> verify_cells(const std::string& out) {
  return all(out, "([-0-9.]+e[-+][0-9]+|inf|nan) +([-0-9.]+e[-+][0-9]+|inf|nan) (?:PASS|FAIL)");
}

TEST(DigitsOnVerify, TheTableHasTheSeparatingDigitsOrDigitsN) {
  const std::vector<std::string> args{"verify", "--trials", "20", "--dtype", "bf16"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = args;
    a.insert(a.end(), extra.begin(), extra.end());
    return rope_cli(a);
  };
  const Result json = with({"--json"});
  ASSERT_EQ(json.code, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  std::vector<double> expected;  // the table's order: the identities, then the contrast rows
  for (const auto& r : j["identities"]) expected.insert(expected.end(), {r["max_rel_error"], r["tolerance"]});
  for (const char* key : {"contrast", "cast_inputs_contrast"}) {
    expected.insert(expected.end(), {j[key]["max_rel_error"], j[key]["tolerance"]});
  }

  const Result full = with({"--digits", "0"});
  ASSERT_EQ(full.code, 0) << full.err;
  const std::vector<std::string> cells = verify_cells(full.out);
  ASSERT_EQ(cells.size(), expected.size()) << full.out;
  for (std::size_t i = 0; i < cells.size(); ++i) EXPECT_EQ(read(cells[i]), expected[i]) << cells[i];  // every digit

  const Result five = with({"--digits", "5"});
  const std::vector<std::string> five_cells = verify_cells(five.out);
  ASSERT_EQ(five_cells.size(), expected.size()) << five.out;
  for (std::size_t i = 0; i < five_cells.size(); ++i) {
    if (expected[i] != 0) {
      EXPECT_EQ(significant_digits(five_cells[i]), 5) << five_cells[i];
    }
    expect_rounded(five_cells[i], cells[i]);
  }

  // The default: one count of digits for the table, at least 3, enough to tell each row's error from its
  // tolerance; the columns keep their width.
  const Result policy = with({});
  const std::vector<std::string> shown = verify_cells(policy.out);
  ASSERT_EQ(shown.size(), expected.size()) << policy.out;
  const int digits = rope::separating_digits({expected[0], expected[1]}, 3);
  for (std::size_t i = 0; i < shown.size(); i += 2) {
    if (expected[i] != 0) {
      EXPECT_GE(significant_digits(shown[i]), 3) << shown[i];
    }
    if (expected[i] != expected[i + 1]) {
      EXPECT_NE(shown[i], shown[i + 1]) << policy.out;
    }
    expect_rounded(shown[i], cells[i]);
    expect_rounded(shown[i + 1], cells[i + 1]);
  }
  EXPECT_GE(significant_digits(shown[0]), expected[0] == 0 ? 1 : digits);

  expect_one_line_error(rope_cli({"verify", "--digits", "18"}), 2, "--digits must be between 0 and 17 (got 18)");
  expect_one_line_error(rope_cli({"verify", "--digits", "-1"}), 2, "--digits must be between 0 and 17 (got -1)");
}

/// rope precision's three error tables: for each, its rows' cells by column (position).
std::vector<std::vector<std::vector<std::string>>> precision_tables(const std::string& out) {
  std::vector<std::vector<std::vector<std::string>>> tables;
  std::istringstream in(out);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind("  position m", 0) == 0) {
      tables.emplace_back();
      inside = true;
      continue;
    }
    if (!inside) continue;
    if (line.empty()) {
      inside = false;
      continue;
    }
    std::istringstream cells(line.substr(20));  // "  " and the curve's name in 18 columns
    std::vector<std::string> row;
    for (std::string c; cells >> c;) row.push_back(c);
    tables.back().push_back(row);
  }
  return tables;
}

TEST(DigitsOnPrecision, EachColumnTellsItsCurvesApart) {
  const std::vector<std::string> args{"precision", "--dim",    "16", "--max-position", "65536", "--samples",
                                      "20",        "--points", "4",  "--at",           "7",     "1000",
                                      "--dtype",   "f32,bf16"};
  std::vector<std::string> a = args;
  a.insert(a.end(), {"--digits", "0"});
  const Result full = rope_cli(a);
  const Result policy = rope_cli(args);
  ASSERT_EQ(full.code, 0) << full.err;
  ASSERT_EQ(policy.code, 0) << policy.err;
  const auto exact = precision_tables(full.out), shown = precision_tables(policy.out);
  ASSERT_EQ(exact.size(), 3u) << full.out;
  ASSERT_EQ(shown.size(), 3u) << policy.out;
  for (std::size_t t = 0; t < 3; ++t) {
    ASSERT_EQ(exact[t].size(), shown[t].size());
    ASSERT_FALSE(exact[t].empty());
    int digits = -1;
    for (std::size_t c = 0; c < exact[t][0].size(); ++c) {
      for (std::size_t r = 0; r < exact[t].size(); ++r) {
        const std::string& s = shown[t][r][c];
        if (s == "overflow") continue;
        if (read(exact[t][r][c]) != 0) {
          if (digits < 0) digits = significant_digits(s);
          EXPECT_EQ(significant_digits(s), digits) << "one count for the table: " << s << "\n" << policy.out;
        }
        expect_rounded(s, exact[t][r][c]);
        for (std::size_t q = 0; q < r; ++q) {  // different errors at one position are shown different
          if (read(exact[t][r][c]) != read(exact[t][q][c])) {
            EXPECT_NE(s, shown[t][q][c]) << policy.out;
          }
        }
      }
    }
    EXPECT_GE(digits, 3);
  }
  a = args;
  a.insert(a.end(), {"--digits", "2"});
  const auto two = precision_tables(rope_cli(a).out);
  ASSERT_EQ(two.size(), 3u);
  EXPECT_EQ(significant_digits(two[0][0].back()), 2) << two[0][0].back();
}

TEST(DigitsOnReports, AnErrorAndItsToleranceWithTheirDigits) {
  // rope apply: the tolerance κ·ε·(d + |m|)·‖x‖ of x = (1, 0, 0, 1) at m = 1, d = 4: 8·ε·5·√2.
  const Result apply = rope_cli({"apply", "--position", "1", "--vector", "1,0,0,1", "--digits", "0"});
  ASSERT_EQ(apply.code, 0) << apply.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(apply.out, m, std::regex("three forms = (\\S+) .*‖x‖ = ([^,]+),"))) << apply.out;
  EXPECT_EQ(m[1].str(), "0");
  EXPECT_NEAR(read(m[2].str()), 8 * DBL_EPSILON * 5 * std::sqrt(2.0), 1e-15 * read(m[2].str()));
  EXPECT_GT(significant_digits(m[2].str()), 10) << "every digit";
  const Result apply3 = rope_cli({"apply", "--position", "1", "--vector", "1,0,0,1"});
  EXPECT_THAT(apply3.out, HasSubstr("‖x‖ = 1.26e-14, (M13)): they agree"));  // the README's line

  // rope layouts, rope permute: each error against its tolerance, every digit with --digits 0.
  for (const auto& [args, pattern] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"layouts", "--dim", "8"}, "max \\|Δ\\| = (\\S+)  tolerance (\\S+)  "},
           {{"permute"}, "max \\|\\(b\\) − \\(a\\)\\| = (\\S+) \\(tolerance [^=]+= ([^)]+)\\)"},
           {{"encodings"}, "\\|Δ\\|/S = (\\S+) <= [^=]+= (\\S+) "}}) {
    const Result policy = rope_cli(args);
    std::vector<std::string> a = args;
    a.insert(a.end(), {"--digits", "0"});
    const Result full = rope_cli(a);
    ASSERT_LE(policy.code, 1) << policy.err;
    const std::vector<std::string> shown = all(unwrapped(policy.out), pattern),
                                   exact = all(unwrapped(full.out), pattern);
    ASSERT_FALSE(shown.empty()) << args[0] << ": " << policy.out;
    ASSERT_EQ(shown.size(), exact.size()) << full.out;
    for (std::size_t i = 0; i < shown.size(); ++i) {
      expect_rounded(shown[i], exact[i]);
      if (read(exact[i]) != 0) {
        EXPECT_GE(significant_digits(exact[i]), significant_digits(shown[i])) << args[0];
      }
    }
  }
}

TEST(DigitsOnReports, TheShiftTableAndIdentifysResiduals) {
  const Result five = rope_cli({"attention", "--tokens", "6", "--dim", "8", "--shift", "100", "--digits", "5"});
  ASSERT_EQ(five.code, 0) << five.err;
  const std::vector<std::string> row = all(five.out, "\n  rope +(\\S+) +(\\S+) +(\\S+) +(\\S+) ");
  ASSERT_EQ(row.size(), 4u) << five.out;
  for (const std::string& cell : row) {
    if (cell != "0") {
      EXPECT_EQ(significant_digits(cell), 5) << cell;
    }
  }
  // identify: the family is the simplest fit within the noise of the best one; the residuals compared are
  // shown different (the default's 5.04e-08 beside linear's 5.02e-08 read "5e-08" twice).
  const std::string dumps = std::string(ROPE_REFERENCE_DIR) + "/../../data/dumps/";
  const Result id =
      rope_cli({"identify", "--before", dumps + "q.npy", "--after", dumps + "q_rope.npy", "--positions", "0:128"});
  ASSERT_EQ(id.code, 0) << id.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(id.out, m, std::regex("fit residual +(\\S+) "))) << id.out;
  const std::string best = m[1].str();
  ASSERT_TRUE(std::regex_search(id.out, m, std::regex("other fits +(.*)\n"))) << id.out;
  for (const std::string& other : all(m[1].str(), "[a-z0-9-]+ ([-0-9.e+]+)")) {
    if (read(other) != read(best)) {
      EXPECT_NE(other, best) << id.out;
    }
  }
}

}  // namespace
}  // namespace rope::test
