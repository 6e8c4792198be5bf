/// @file
/// Reads the CSV files of tests/reference/, made by the NumPy scripts beside them (see their
/// README.md): lines starting with '#' are provenance comments, then an optional header, then rows.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace rope::test {

struct ReferenceCsv {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;

  /// Column `c` of every row, as doubles.
  Eigen::VectorXd column(std::size_t c) const {
    Eigen::VectorXd v(static_cast<Eigen::Index>(rows.size()));
    for (std::size_t r = 0; r < rows.size(); ++r) v[static_cast<Eigen::Index>(r)] = std::stod(rows[r].at(c));
    return v;
  }
  /// Every cell as a double: for the header-less matrix files.
  Eigen::MatrixXd matrix() const {
    Eigen::MatrixXd m(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(rows.at(0).size()));
    for (std::size_t r = 0; r < rows.size(); ++r) {
      for (std::size_t c = 0; c < rows[r].size(); ++c) {
        m(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = std::stod(rows[r][c]);
      }
    }
    return m;
  }
};

inline std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string item;
  while (std::getline(ss, item, sep)) out.push_back(item);
  return out;
}

/// Reads tests/reference/<name>. @param has_header whether the first non-comment line is a header.
inline ReferenceCsv read_reference(const std::string& name, bool has_header = true);

/// The same rules for CSV text already in memory (a command's --csv - output).
inline ReferenceCsv parse_reference(const std::string& text, bool has_header = true) {
  std::istringstream in(text);
  ReferenceCsv csv;
  std::string line;
  bool header_pending = has_header;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header_pending) {
      csv.header = split(line, ',');
      header_pending = false;
    } else {
      csv.rows.push_back(split(line, ','));
    }
  }
  return csv;
}

inline ReferenceCsv read_reference(const std::string& name, bool has_header) {
  const std::string path = std::string(ROPE_REFERENCE_DIR) + "/" + name;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open reference file " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return parse_reference(text.str(), has_header);
}

/// Rows of a reference file, one case's: the files that hold one vector per case list it a channel a row.
using RowGroup = std::vector<const std::vector<std::string>*>;

/// The rows grouped by their first `key_columns` cells joined with ',' (the map's key), in key order.
inline std::map<std::string, RowGroup> group_rows(const ReferenceCsv& csv, std::size_t key_columns) {
  std::map<std::string, RowGroup> groups;
  for (const auto& row : csv.rows) {
    std::string key;
    for (std::size_t c = 0; c < key_columns; ++c) key += (c ? "," : "") + row.at(c);
    groups[key].push_back(&row);
  }
  return groups;
}

/// Column `c` of a group's rows, as doubles.
inline Eigen::VectorXd group_column(const RowGroup& rows, std::size_t c) {
  Eigen::VectorXd v(static_cast<Eigen::Index>(rows.size()));
  for (std::size_t r = 0; r < rows.size(); ++r) v[static_cast<Eigen::Index>(r)] = std::stod(rows[r]->at(c));
  return v;
}

/// tests/reference/presets.csv (presets.py, NumPy): a preset's inv_freq and attention factor.
inline std::pair<Eigen::VectorXd, double> preset_reference(const std::string& preset) {
  std::vector<double> inv;
  double a = 0;
  for (const auto& row : read_reference("presets.csv").rows) {
    if (row.at(0) != preset) continue;
    inv.push_back(std::stod(row.at(2)));
    a = std::stod(row.at(3));
  }
  return {Eigen::Map<const Eigen::VectorXd>(inv.data(), static_cast<Eigen::Index>(inv.size())), a};
}

/// A space-separated list of numbers, as in apply_cases.csv.
inline Eigen::VectorXd parse_vector(const std::string& text) {
  const std::vector<std::string> items = split(text, ' ');
  Eigen::VectorXd v(static_cast<Eigen::Index>(items.size()));
  for (std::size_t i = 0; i < items.size(); ++i) v[static_cast<Eigen::Index>(i)] = std::stod(items[i]);
  return v;
}

}  // namespace rope::test
