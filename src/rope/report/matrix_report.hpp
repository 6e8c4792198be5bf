/// @file
/// The printers of `rope matrix` (analysis/teaching/matrix_run.hpp): the text for people (in either language), the CSV
/// (`--csv`: the header col_0,…,col_(d−1) and the rows of R_m), the value the JSON printer writes (`--json`) and
/// the heat map of R_m. The matrix is size × size, size at most kMaxMatrixDim.
#pragma once

#include <ostream>
#include <string>

#include "rope/analysis/teaching/matrix_run.hpp"
#include "rope/plot/figure.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;

/// dim, head_dim, base, layout, model (or null), attention_factor; one position: position and matrix (rows of
/// numbers); two: m, n, delta, product and rotation (rows), difference, tolerance and equal.
Value matrix_value(const MatrixRun& run);

/// R_m as CSV, its header col_0,…; empty for --relative.
std::string matrix_csv(const MatrixRun& run);

/// The matrix (or the two beside each other) for people, each entry with run.digits decimals.
void print_matrix(std::ostream& out, const MatrixRun& run, const Text& t);

/// The report of `rope matrix`: report/emit.hpp.
template <>
struct Report<MatrixRun> {
  static Value value(const MatrixRun& run) { return matrix_value(run); }
  static void text(std::ostream& out, const MatrixRun& run, const Printing& how) {
    print_matrix(out, run, Text(how.lang));
  }
  static std::string csv(const MatrixRun& run) { return matrix_csv(run); }
};

/// The heat map of R_m (one position), titled with the RoPE it comes from.
plot::Figure matrix_figure(const MatrixRun& run, const Text& t);

}  // namespace rope
