/// @file
/// Test helpers for running the command line in-process: rope::cli::run with captured output, the
/// one-line error check, a PNG's size, and a fixture with a private temporary directory.
#pragma once

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

#include "support/temp_dir_test.hpp"
#include "support/reference_data.hpp"
#include "rope/cli/cli.hpp"

namespace rope::test {

struct Result {
  int code;
  std::string out;
  std::string err;
};

/// |printed − exact| <= half a unit of the last printed digit of "%.2e" (3 significant digits), plus ε.
inline void expect_sci(double printed, double exact, const std::string& what) {
  EXPECT_NEAR(printed, exact, 0.005 * std::abs(exact) + 1e-300) << what;
}

/// A GoogleTest name for a table's case: `text` with every character other than a letter or a digit replaced
/// by '_' ("llama-3.1-8b" → "llama_3_1_8b"), for the name generator of INSTANTIATE_TEST_SUITE_P.
inline std::string case_name(std::string text) {
  for (char& c : text) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return text;
}

/// Runs `rope ARGS…` in-process.
inline Result rope_cli(std::vector<std::string> args) {
  args.insert(args.begin(), "rope");
  std::ostringstream out, err;
  const int code = cli::run(args, out, err);
  return {code, out.str(), err.str()};
}

/// `out` with the continuation lines of wrap_lines (a line break and at least 4 spaces) joined to the line
/// before by one space, for checks of a sentence that a 100-column output breaks.
inline std::string unwrapped(const std::string& out) {
  std::string s;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] == '\n' && out.compare(i + 1, 4, "    ") == 0) {
      s += ' ';
      i += 4;
      while (i + 1 < out.size() && out[i + 1] == ' ') ++i;
      continue;
    }
    s += out[i];
  }
  return s;
}

/// The exit code is `code`, stderr is exactly one line "rope: …" containing `substring`, and nothing
/// went to stdout.
inline void expect_one_line_error(const Result& r, int code, const std::string& substring) {
  EXPECT_EQ(r.code, code) << r.err;
  EXPECT_THAT(r.err, ::testing::StartsWith("rope: "));
  EXPECT_THAT(r.err, ::testing::HasSubstr(substring));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.out, "");
}

/// Width and height from a PNG's IHDR chunk, after checking the 8-byte signature; {0, 0} if not a PNG.
inline std::pair<std::uint32_t, std::uint32_t> png_size(const std::string& bytes) {
  if (bytes.size() < 24 || bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) return {0, 0};
  const auto be = [&](std::size_t at) {
    std::uint32_t v = 0;
    for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
    return v;
  };
  return {be(16), be(20)};
}

/// The figure holds exactly the CSV's data: in the gnuplot script kept with --keep-script, datablock
/// $series<s> is, line by line, "x y" with x the CSV's first column and y its column 1 + s, as text.
inline void expect_plotted_data_equals_csv(const std::string& script, const std::string& csv_text, int series_count,
                                           std::size_t expected_rows) {
  std::istringstream csv(csv_text);
  std::string header;
  std::getline(csv, header);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(csv, line);) rows.push_back(split(line, ','));
  ASSERT_EQ(rows.size(), expected_rows);
  for (int series = 0; series < series_count; ++series) {
    const std::string start = "$series" + std::to_string(series) + " << EOD\n";
    const std::size_t at = script.find(start);
    ASSERT_NE(at, std::string::npos) << series;
    std::istringstream block(script.substr(at + start.size()));
    std::size_t row = 0;
    for (std::string line; std::getline(block, line) && line != "EOD"; ++row) {
      ASSERT_LT(row, rows.size());
      EXPECT_EQ(line, rows[row][0] + " " + rows[row][1 + static_cast<std::size_t>(series)]) << series << " " << row;
    }
    EXPECT_EQ(row, rows.size()) << series;
  }
}

// TempDirTest: support/temp_dir_test.hpp (included above).

}  // namespace rope::test
