#include "rope/cli/vector_options.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <string_view>
#include <vector>

#include "rope/report/printing.hpp"
#include "rope/core/error.hpp"
#include "rope/core/parse.hpp"
#include "rope/io/csv.hpp"
#include "rope/io/tensor_file.hpp"
#include "rope/core/utf8.hpp"
#include "rope/io/text_file.hpp"

namespace rope::cli {

namespace {

Eigen::MatrixXd from_rows(const std::vector<std::vector<double>>& rows, const std::string& what) {
  const std::size_t cols = rows.front().size();
  long total = 0;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (rows[r].size() != cols) {
      throw InvalidArgument(
          error_msg("{0}: vector {1} has {2} numbers, vector 1 has {3}: every vector must have the same length", what,
                    r + 1, rows[r].size(), cols));
    }
    total += static_cast<long>(cols);
  }
  if (total > kMaxVectorValues) {
    throw InvalidArgument(error_msg("{0} must hold at most {1} numbers (got {2})", what, kMaxVectorValues, total));
  }
  Eigen::MatrixXd m(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(cols));
  for (std::size_t r = 0; r < rows.size(); ++r) {
    for (std::size_t c = 0; c < cols; ++c) m(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = rows[r][c];
  }
  return m;
}

}  // namespace

namespace {

bool has_suffix(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// A tensor file as check reads it (.npy, .safetensors, torch.save's .pt): its last axis is d, every index of the
/// axes before it one vector (a [heads, seq, d] dump: heads × seq vectors, in C order).
Eigen::MatrixXd vectors_of_tensor_file(const std::string& path, const std::string& what) {
  const TensorData t = read_tensor_file(path);
  const std::string name = fmt::format("{} file '{}'", what, escape_controls(path, kQuotedBytes));
  if (t.shape.empty() || t.size() == 0) {
    throw InvalidArgument(error_msg("{0} holds no vector (shape {1})", name, shape_string(t.shape)));
  }
  if (t.size() > kMaxVectorValues) {
    throw InvalidArgument(error_msg("{0} must hold at most {1} numbers (got {2})", name, kMaxVectorValues, t.size()));
  }
  const auto cols = static_cast<Eigen::Index>(t.shape.back());
  const Eigen::Index rows = static_cast<Eigen::Index>(t.size()) / cols;
  Eigen::MatrixXd m(rows, cols);
  for (Eigen::Index r = 0; r < rows; ++r) {
    for (Eigen::Index c = 0; c < cols; ++c) m(r, c) = t.values[static_cast<std::size_t>(r * cols + c)];
  }
  return m;
}

}  // namespace

Eigen::MatrixXd parse_vectors_argument(const std::string& text, const std::string& what) {
  if (!text.empty() && text[0] == '@') {
    const std::string path = text.substr(1);
    for (const std::string_view suffix : {".npy", ".safetensors", ".pt", ".pth"}) {
      if (has_suffix(path, suffix)) return vectors_of_tensor_file(path, what);
    }
    const std::string content = read_text_file(path, what + " file", kMaxListFileBytes);
    const TensorData t =
        parse_csv_tensor(content, fmt::format("{} file '{}'", what, escape_controls(path, kQuotedBytes)));
    if (t.size() > kMaxVectorValues) {
      throw InvalidArgument(
          error_msg("{0} file '{1}' must hold at most {2} numbers (got {3})", what, path, kMaxVectorValues, t.size()));
    }
    const bool column = t.shape.size() == 2 && t.shape[1] == 1;
    const Eigen::Index rows = column ? 1 : static_cast<Eigen::Index>(t.shape[0]);
    const Eigen::Index cols = column ? static_cast<Eigen::Index>(t.shape[0]) : static_cast<Eigen::Index>(t.shape[1]);
    Eigen::MatrixXd m(rows, cols);
    for (Eigen::Index r = 0; r < rows; ++r) {
      for (Eigen::Index c = 0; c < cols; ++c) m(r, c) = t.values[static_cast<std::size_t>(r * cols + c)];
    }
    return m;
  }
  std::vector<std::vector<double>> rows;
  std::size_t start = 0;
  for (int r = 1;; ++r) {
    const std::size_t end = text.find(';', start);
    const std::string row = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    rows.push_back(parse_real_list(
        row, rows.size() == 0 && end == std::string::npos ? what : fmt::format("{} vector {}", what, r)));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return from_rows(rows, what);
}

void add_query_key_options(CLI::App& app, std::string& q, std::string& k, const std::string& help_q,
                           const std::string& help_k) {
  app.add_option("--q", q, help_q)->type_name("VECTORS");
  app.add_option("--k", k, help_k)->type_name("VECTORS");
}

std::optional<QueryKey> query_key(const std::string& q_text, const std::string& k_text, std::optional<int> dim,
                                  int max_dim) {
  if (q_text.empty() && k_text.empty()) return std::nullopt;
  // Each given value is read first, so that a bad one is named even when its partner is missing.
  QueryKey qk;
  if (!q_text.empty()) qk.q = parse_vectors_argument(q_text, "--q");
  if (!k_text.empty()) qk.k = parse_vectors_argument(k_text, "--k");
  if (q_text.empty() != k_text.empty()) {
    throw InvalidArgument(
        error_msg("give both --q and --k, or neither (got only {0})", q_text.empty() ? "--k" : "--q"));
  }
  const Eigen::Index d = qk.q.cols();
  if (d < 2 || d % 2 != 0 || d > max_dim) {
    throw InvalidArgument(
        error_msg("--q: the dimension d must be even, 2 … {0} (got {1} numbers per vector)", max_dim, d));
  }
  if (qk.k.cols() != d) {
    throw InvalidArgument(error_msg("--k must have as many numbers per vector as --q ({0}, got {1})", d, qk.k.cols()));
  }
  if (qk.k.rows() != qk.q.rows()) {
    throw InvalidArgument(error_msg("--k must have as many vectors as --q ({0}, got {1})", qk.q.rows(), qk.k.rows()));
  }
  if (dim && *dim != d) {
    throw InvalidArgument(
        error_msg("--dim {0} does not match the {1} numbers per vector of --q and --k: leave out --dim "
                  "or give vectors of length {2}",
                  *dim, d, *dim));
  }
  return qk;
}

}  // namespace rope::cli
