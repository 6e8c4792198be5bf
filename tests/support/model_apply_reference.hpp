/// @file
/// tests/reference/model_apply.csv (written by model_apply.py: every preset's RoPE applied to one head
/// vector as HF's modeling code applies it, (S19)) grouped by case.
#pragma once

#include <Eigen/Core>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "support/reference_data.hpp"

namespace rope::test {

struct ModelApplyCase {
  Eigen::VectorXd input;
  Eigen::VectorXd output;
};

/// (preset, position as written) → the head vector and HF's output.
inline std::map<std::pair<std::string, std::string>, ModelApplyCase> model_apply_cases() {
  const ReferenceCsv ref = read_reference("model_apply.csv");
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<double, double>>> rows;
  for (const auto& row : ref.rows) rows[{row.at(0), row.at(1)}].push_back({std::stod(row.at(3)), std::stod(row.at(4))});
  std::map<std::pair<std::string, std::string>, ModelApplyCase> out;
  for (const auto& [key, values] : rows) {
    ModelApplyCase c{Eigen::VectorXd(static_cast<Eigen::Index>(values.size())),
                     Eigen::VectorXd(static_cast<Eigen::Index>(values.size()))};
    for (std::size_t j = 0; j < values.size(); ++j) {
      c.input[static_cast<Eigen::Index>(j)] = values[j].first;
      c.output[static_cast<Eigen::Index>(j)] = values[j].second;
    }
    out.emplace(key, std::move(c));
  }
  return out;
}

/// The rope options of a case's name: "gemma-3-4b@sliding_attention" → --model gemma-3-4b --layer-type
/// sliding_attention.
inline std::vector<std::string> model_options(const std::string& name) {
  const auto at = name.find('@');
  if (at == std::string::npos) return {"--model", name};
  return {"--model", name.substr(0, at), "--layer-type", name.substr(at + 1)};
}

/// "a,b,c" with every digit of each number (repr-like, 17 significant digits).
inline std::string comma_list(const Eigen::VectorXd& v) {
  std::string s;
  char buf[40];
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%.17g", v[i]);
    s += (i ? "," : "") + std::string(buf);
  }
  return s;
}

}  // namespace rope::test
