/// @file
/// Comma-separated output. Every number is written in the shortest form that reads back as the same
/// double (fmt's default, independent of the locale), so another program can check it exactly.
#pragma once

#include <Eigen/Core>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace rope {

/// Shortest round-trip decimal form of x ("1", "0.8659643233600653", "1.1547819846894582e-04").
/// Negative zero is written as 0.
std::string format_number(double x);

/// `x` with `digits` significant digits (%g form); 0: the shortest form that reads back as `x` (format_number).
/// The number policy of the reports (apps/rope/report/digits.hpp).
std::string with_digits(double x, int digits);

/// A table of named numeric columns of equal length: the ones it holds, then the ones it only points to.
struct Table {
  std::vector<std::string> header;
  std::vector<Eigen::VectorXd> columns;
  /// Columns read where they are, after `columns`: a run's own vectors, which outlive the table made of them (rope
  /// decay's 100 000-point curves, 800 KB each, are not copied to be written).
  std::vector<const Eigen::VectorXd*> views = {};
  /// Every column in order: its own, then its views.
  std::vector<const Eigen::VectorXd*> all_columns() const {
    std::vector<const Eigen::VectorXd*> out;
    for (const Eigen::VectorXd& c : columns) out.push_back(&c);
    out.insert(out.end(), views.begin(), views.end());
    return out;
  }
};

/// The header line, then one line per row. @throws InvalidArgument if the columns differ in length
/// or do not match the header.
std::string to_csv(const Table& table);

/// The same text in pieces of about 64 KiB handed to `write`, so a large table never exists as one
/// string (rope decay with 10^7 points).
void write_csv(const Table& table, const std::function<void(std::string_view)>& write);

/// A header line naming the columns `prefix0,prefix1,…`, then one line per matrix row
/// (e.g. prefix "key_" for an attention matrix whose column j is key j).
std::string to_csv(const Eigen::MatrixXd& matrix, const std::string& column_prefix);

}  // namespace rope
