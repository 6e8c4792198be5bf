/// @file
/// Helpers shared by the tests of rope/plot: small figures, and reading back scripts and files.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <initializer_list>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "rope/plot/plot.hpp"

namespace rope::plot::plot_test {

namespace fs = std::filesystem;

inline Eigen::VectorXd vec(std::initializer_list<double> values) {
  Eigen::VectorXd v(static_cast<Eigen::Index>(values.size()));
  Eigen::Index i = 0;
  for (const double x : values) v[i++] = x;
  return v;
}

/// Two labelled curves, as a command would draw them.
inline Figure two_curves() {
  Figure f;
  f.title = "Decay <&> d_i^2";
  f.xlabel = "distance";
  f.ylabel = "bound";
  Series a;
  a.label = "base = 10000";
  a.x = vec({0, 1, 2, 3});
  a.y = vec({40, 20, 10, 5});
  Series b;
  b.label = "base = 500000";
  b.x = vec({0, 1, 2, 3});
  b.y = vec({40, 30, 25, 20});
  f.series = {a, b};
  return f;
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

/// The first line starting with `prefix`, or "" if none.
inline std::string line_starting(const std::string& script, const std::string& prefix) {
  for (const std::string& line : lines_of(script)) {
    if (line.rfind(prefix, 0) == 0) return line;
  }
  return "";
}

/// The rows of datablock `name` ("$series0"), each split into numbers read back with strtod.
inline std::vector<std::vector<double>> datablock(const std::string& script, const std::string& name) {
  std::vector<std::vector<double>> rows;
  bool inside = false;
  for (const std::string& line : lines_of(script)) {
    if (line == name + " << EOD") {
      inside = true;
    } else if (inside && line == "EOD") {
      return rows;
    } else if (inside && !line.empty()) {
      std::vector<double> row;
      std::istringstream words(line);
      for (std::string word; words >> word;) row.push_back(std::strtod(word.c_str(), nullptr));
      rows.push_back(row);
    }
  }
  ADD_FAILURE() << "no datablock " << name;
  return rows;
}

inline std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

inline std::set<std::string> entries(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

inline std::uint32_t big_endian(const std::string& bytes, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(bytes.at(at + i));
  return v;
}

/// The five predefined XML entities and &#39;, decoded, so a test can look for the text as typed.
inline std::string xml_unescape(std::string s) {
  const std::pair<const char*, const char*> entities[] = {{"&lt;", "<"},   {"&gt;", ">"},  {"&quot;", "\""},
                                                          {"&apos;", "'"}, {"&#39;", "'"}, {"&amp;", "&"}};
  for (const auto& [from, to] : entities) {
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + 1)) {
      s.replace(at, std::strlen(from), to);
    }
  }
  return s;
}

inline const std::vector<Output> kPng = {{"out.png", Format::Png}};

}  // namespace rope::plot::plot_test
