/// @file
/// Printing helpers shared by several commands: the one matrix printer (rope matrix, explain, attention,
/// layouts), the width of a text on a terminal, and the 6-decimal form of a computed number.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace rope {

/// How print_matrix writes the entries. Every entry is right-aligned in a column as wide as the widest
/// one; an exact 0 is a plain 0, so that the blocks and the causal mask stand out.
struct MatrixFormat {
  int digits = 6;         ///< decimals of a non-zero entry
  bool shortest = false;  ///< the shortest exact form instead, while every entry has one of at most 9 characters
  bool no_negative_zero = false;  ///< "-0.000000" (a tiny negative entry) as "0.000000"; only with 6 digits
  std::size_t min_width = 1;      ///< the narrowest column
  std::string separator = " ";    ///< between columns
  bool brackets = false;          ///< each row as "[ … ]"
  bool indices = false;           ///< a first line "i\j 0 1 …" and the row index before each row, 4 wide
};

/// An Eigen vector as the plain list a report's JSON value takes.
inline std::vector<double> as_list(const Eigen::VectorXd& v) {
  return std::vector<double>(v.data(), v.data() + v.size());
}

/// The lines of the matrix, without line ends.
std::vector<std::string> matrix_lines(const Eigen::MatrixXd& m, const MatrixFormat& format = {});

/// Writes matrix_lines, each after `indent` and ended by '\n'.
void print_matrix(std::ostream& out, const Eigen::MatrixXd& m, const MatrixFormat& format = {},
                  const std::string& indent = "");

/// Columns a terminal gives the text: 2 for CJK characters, 0 for combining marks, else 1
/// (rope/core/utf8.hpp display_width).
std::size_t columns(std::string_view s);

/// `s` followed by spaces up to `width` terminal columns.
std::string pad(std::string s, std::size_t width);

/// `s` itself where it fits `width` terminal columns, else its beginning and end joined by "…" in `width`
/// columns (a tensor's name keeps its layer and its kind: "model.layers.3…q_proj.weight").
std::string shorten_middle(std::string_view s, std::size_t width);

/// The projector width: the default output of every command fits this many terminal columns (`--wide`
/// prints the wider tables of before; tests/docs/check_width.py checks it).
inline constexpr std::size_t kProjectorColumns = 100;

/// `prefix` followed by "[a, b, …]", broken after a comma wherever a line would exceed `width` terminal
/// columns (columns()); each further line is indented to the column after '['. Lines without ends.
std::vector<std::string> wrapped_list(const std::string& prefix, const std::vector<std::string>& items,
                                      std::size_t width = kProjectorColumns);

/// `text` with every line wider than `width` terminal columns broken at its last space that fits; the
/// rest continues under the text after the line's last run of two spaces (a table's last column), or
/// two columns right of the line's indentation. A word wider than the line stays whole.
std::string wrap_lines(std::string_view text, std::size_t width = kProjectorColumns);

/// Writes "  name = [x0, x1, …]" with every number in its shortest round-trip form (format_number), one
/// line per vector ("name_0", "name_1", … when there are several), broken to the projector width.
void print_vectors(std::ostream& out, const std::string& name, const Eigen::MatrixXd& rows);

/// A computed number as explain prints it: 6 decimals, trailing zeros dropped, so cos 2 is -0.416147 and
/// 0.5 stays 0.5; "-0" is "0".
std::string fx(double x);

/// A number in a check or diff report's prose: 4 significant digits, `{:.4g}` (the digits policy of
/// digits.hpp decides where a value is compared with another).
std::string g4(double x);

}  // namespace rope
