/// @file
/// The user's own query and key vectors (`--q`, `--k` of rope attention and rope layouts) and the
/// printing of the vectors a command used (`--show-vectors`), so that a printed score can be recomputed
/// by hand from the printed numbers.
#pragma once

#include <Eigen/Core>
#include <optional>
#include <ostream>
#include <string>

#include "rope/report/printing.hpp"  // print_vectors

namespace CLI {
class App;
}  // namespace CLI

namespace rope::cli {

/// Most numbers one --q or --k may hold (a 512 × 512 attention input).
inline constexpr long kMaxVectorValues = 512L * 512L;

/// Vectors from the command line, one per row: "1,0.5,-2" (one vector), "1,0;0,1" (vectors separated
/// by ';'; numbers strictly as rope/core/parse.hpp reads them), or "@FILE": a tensor file as rope check reads
/// it (.npy, .safetensors holding one tensor, torch.save's .pt or .pth; its last axis is d, every index of the
/// axes before it one vector, in C order), else a CSV text file of numbers read as rope/io/tensor_file.hpp
/// parse_csv_tensor does (a row per line; a file of one column holds one vector, one number per line).
/// @throws InvalidArgument naming `what` and the rule (an empty or bad number, rows of different
///         lengths, more than kMaxVectorValues numbers); IoError if the file cannot be read.
Eigen::MatrixXd parse_vectors_argument(const std::string& text, const std::string& what);

/// Adds `--q VECTORS` and `--k VECTORS` (each parsed by parse_vectors_argument when the command runs).
void add_query_key_options(CLI::App& app, std::string& q, std::string& k, const std::string& help_q,
                           const std::string& help_k);

/// The user's q and k, checked as a pair: both given or neither, the same shape, an even dimension of
/// at least 2. `dim` (--dim when given) must equal the vectors' length; `rows` (when set) their count.
/// @throws InvalidArgument naming the option and the rule.
struct QueryKey {
  Eigen::MatrixXd q;
  Eigen::MatrixXd k;
};
std::optional<QueryKey> query_key(const std::string& q_text, const std::string& k_text, std::optional<int> dim,
                                  int max_dim);

// print_vectors: report/printing.hpp.

}  // namespace rope::cli
