// A cos/sin table a kernel is handed (cos_sin_table.hpp): its forms read into one table of r/2 entries a row, the
// expectation of a kernel that applies it, and its rows at a position, which the position table of the check reads
// in place of cos(m·θ_i) and sin(m·θ_i).
#include "rope/analysis/check/cos_sin_table.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <limits>
#include <utility>

#include "rope/analysis/check/check.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/io/csv.hpp"

namespace rope {
namespace {

/// The coarser of two types (the larger ε).
DType coarser(DType a, DType b) { return epsilon(a) >= epsilon(b) ? a : b; }

/// Whether every row of `v` (rows × w) repeats its first w/2 entries (halves) or each entry of a pair (pairs).
bool repeated(const std::vector<double>& v, long rows, long w, bool pairs) {
  if (w % 2 != 0 || w < 2) return false;
  for (long r = 0; r < rows; ++r) {
    const double* row = v.data() + r * w;
    for (long k = 0; k < w / 2; ++k) {
      const double a = pairs ? row[2 * k] : row[k], b = pairs ? row[2 * k + 1] : row[k + w / 2];
      if (std::memcmp(&a, &b, sizeof a) != 0) return false;  // bit-identical
    }
  }
  return true;
}

/// The table of `cos` and `sin` given as rows × w each (w the stored width).
GivenTable make_table(std::vector<double> cos, std::vector<double> sin, long rows, long w, bool interleaved,
                      std::optional<double> factor, int head_dim, const std::string& name) {
  GivenTable t;
  t.rows = rows;
  t.name = name;
  const bool both = repeated(cos, rows, w, interleaved) && repeated(sin, rows, w, interleaved);
  long half = both ? w / 2 : w;
  if (factor) {  // --partial-rotary-factor: r = int(d·factor), Hugging Face's rotary dimension
    const long r = static_cast<long>(static_cast<double>(head_dim) * *factor);
    if (both && w == r) {
      half = w / 2;
    } else if (2 * w == r) {
      half = w;
    } else {
      throw InvalidArgument(error_msg(
          "{0}: a table {1} wide is neither r/2 nor r (repeated halves or pairs) of the rotary dimension r = {2} "
          "({3} {4} of head size {5})",
          name, w, r, option_name("partial_rotary_factor"), format_number(*factor), head_dim));
    }
  }
  if (half < 1 || 2 * half > head_dim) {
    throw InvalidArgument(
        error_msg("{0}: a table of {1} pairs a row rotates {2} channels, beyond the dump's head size {3}", name, half,
                  2 * half, head_dim));
  }
  t.half = static_cast<int>(half);
  t.form = half == w     ? GivenTable::Form::Half
           : interleaved ? GivenTable::Form::RepeatedPairs
                         : GivenTable::Form::RepeatedHalves;
  t.cos.resize(static_cast<std::size_t>(rows * half));
  t.sin.resize(t.cos.size());
  for (long r = 0; r < rows; ++r) {
    for (long i = 0; i < half; ++i) {  // the first of each repeated entry
      const long at = r * w + (t.form == GivenTable::Form::RepeatedPairs ? 2 * i : i);
      const auto k = static_cast<std::size_t>(r * half + i);
      t.cos[k] = cos[static_cast<std::size_t>(at)], t.sin[k] = sin[static_cast<std::size_t>(at)];
      if (!std::isfinite(t.cos[k]) || !std::isfinite(t.sin[k])) {
        throw InvalidArgument(
            error_msg("{0}: row {1}, pair {2} is not a finite number: a table holds finite cos and sin", name, r, i));
      }
    }
  }
  return t;
}

/// Rows and width of a table tensor: [rows, w], or [batch, seq, w] a row per token.
std::pair<long, long> table_geometry(const TensorData& d, const std::string& name, bool& per_token) {
  if (d.shape.size() != 2 && d.shape.size() != 3) {
    throw InvalidArgument(
        error_msg("{0}: a table of shape {1}: give [max_pos, w] or [batch, seq, w]", name, shape_string(d.shape)));
  }
  per_token = d.shape.size() == 3;
  const long w = d.shape.back();
  const long rows = per_token ? d.shape[0] * d.shape[1] : d.shape[0];
  if (rows < 1 || w < 1) throw InvalidArgument(error_msg("{0}: an empty table ({1})", name, shape_string(d.shape)));
  return {rows, w};
}

}  // namespace

bool GivenTable::has_row(double position) const {
  return position >= 0 && position < static_cast<double>(rows) && position == std::floor(position);
}

const char* to_string(GivenTable::Form form) {
  switch (form) {
    case GivenTable::Form::Half:
      return "r/2";
    case GivenTable::Form::RepeatedHalves:
      return "repeated halves";
    case GivenTable::Form::RepeatedPairs:
      return "repeated pairs";
  }
  return "?";
}

GivenTable given_table(const TensorData& cos, const TensorData& sin, bool interleaved,
                       std::optional<double> partial_rotary_factor, int head_dim, const std::string& name) {
  if (cos.shape != sin.shape) {
    throw InvalidArgument(error_msg("{0}: cos {1} and sin {2} differ in shape: a table's two halves have one", name,
                                    shape_string(cos.shape), shape_string(sin.shape)));
  }
  bool per_token = false;
  const auto [rows, w] = table_geometry(cos, name, per_token);
  GivenTable t = make_table(cos.values, sin.values, rows, w, interleaved, partial_rotary_factor, head_dim, name);
  t.per_token = per_token;
  t.type = coarser(cos.dtype, sin.dtype);
  t.shape = cos.shape;
  return t;
}

GivenTable given_cache_table(const TensorData& cache, bool interleaved, std::optional<double> partial_rotary_factor,
                             int head_dim, const std::string& name) {
  if (cache.shape.size() != 2 || cache.shape[1] % 2 != 0) {
    throw InvalidArgument(error_msg("{0}: a cos_sin_cache of shape {1}: give [max_pos, r], cos then sin (vLLM's)", name,
                                    shape_string(cache.shape)));
  }
  const long rows = cache.shape[0], w = cache.shape[1] / 2;
  if (rows < 1 || w < 1) throw InvalidArgument(error_msg("{0}: an empty table ({1})", name, shape_string(cache.shape)));
  std::vector<double> cos(static_cast<std::size_t>(rows * w)), sin(cos.size());
  for (long r = 0; r < rows; ++r) {
    for (long i = 0; i < w; ++i) {
      cos[static_cast<std::size_t>(r * w + i)] = cache.values[static_cast<std::size_t>(r * 2 * w + i)];
      sin[static_cast<std::size_t>(r * w + i)] = cache.values[static_cast<std::size_t>(r * 2 * w + w + i)];
    }
  }
  GivenTable t =
      make_table(std::move(cos), std::move(sin), rows, w, interleaved, partial_rotary_factor, head_dim, name);
  t.cache = true;
  t.type = cache.dtype;
  t.shape = cache.shape;
  return t;
}

GivenTable read_given_table(const CosSinTableFiles& f, bool interleaved, std::optional<double> partial_rotary_factor,
                            int head_dim) {
  const auto read = [](const std::string& path, const std::string& tensor) {
    TensorReadOptions o;
    o.tensor = tensor;
    return read_tensor_file(path, o);
  };
  const auto named = [](const char* setting, const std::string& path, const std::string& tensor) {
    return fmt::format("{} {}", option_name(setting), path) + (tensor.empty() ? "" : fmt::format(" ({})", tensor));
  };
  if (!f.cache.empty()) {
    if (!f.cos.empty() || !f.sin.empty()) {
      throw InvalidArgument(error_msg("{0} holds cos and sin: leave out {1}", option_name("cos_sin_cache"),
                                      option_name(f.cos.empty() ? "sin" : "cos")));
    }
    return given_cache_table(read(f.cache, f.cache_tensor), interleaved, partial_rotary_factor, head_dim,
                             named("cos_sin_cache", f.cache, f.cache_tensor));
  }
  if (f.cos.empty() || f.sin.empty()) {
    throw InvalidArgument(error_msg("{0} needs {1}: a table is cos and sin (or give {2})",
                                    option_name(f.cos.empty() ? "sin" : "cos"),
                                    option_name(f.cos.empty() ? "cos" : "sin"), option_name("cos_sin_cache")));
  }
  return given_table(read(f.cos, f.cos_tensor), read(f.sin, f.sin_tensor), interleaved, partial_rotary_factor, head_dim,
                     named("cos", f.cos, f.cos_tensor));
}

std::vector<long> given_table_shape(const CosSinTableFiles& f) {
  TensorReadOptions o;
  o.tensor = f.cache.empty() ? f.cos_tensor : f.cache_tensor;
  const std::string& path = f.cache.empty() ? f.cos : f.cache;
  if (path.empty()) return {};
  return read_tensor_file(path, o).shape;
}

void expect_table(RopeExpectation& e, std::shared_ptr<const GivenTable> table) {
  e.set_theta(Eigen::VectorXd::Zero(table->half));  // θ means nothing here: the table is the reference
  e.rope.params.attention_factor = 1;               // any magnitude is in the table's values
  e.rope.rotary_offset = 0;
  e.scaling.clear();
  e.yarn_factor = 0;
  e.longrope_other.reset();
  e.yarn_truncated_theta.resize(0);
  e.error_model = msg("the cos/sin table given as the reference, tolerance (T1)");
  e.table = std::move(table);
}

void table_position(const GivenTable& t, double position, double eps_dump, double scale, bool flipped, bool sin_missing,
                    bool swapped, double* cs, double* sn, double* term) {
  const double units = 2 * eps_dump + 2 * epsilon(t.type);  // (T1)
  if (!t.has_row(position)) {
    for (int i = 0; i < t.half; ++i) {
      cs[i] = sn[i] = std::numeric_limits<double>::quiet_NaN();
      term[i] = 0;
    }
    return;
  }
  const auto row = static_cast<std::size_t>(position) * static_cast<std::size_t>(t.half);
  for (int i = 0; i < t.half; ++i) {
    double c = t.cos[row + static_cast<std::size_t>(i)], s = t.sin[row + static_cast<std::size_t>(i)];
    if (swapped) std::swap(c, s);
    if (sin_missing) s = 0;
    cs[i] = scale * c;
    sn[i] = scale * s * (flipped ? -1.0 : 1.0);
    term[i] = std::abs(scale) * std::hypot(c, s) * units;
  }
}

double table_angle(const GivenTable& t, double position, int pair, bool grad) {
  if (!t.has_row(position) || pair < 0 || pair >= t.half) return std::numeric_limits<double>::quiet_NaN();
  const auto k = static_cast<std::size_t>(position) * static_cast<std::size_t>(t.half) + static_cast<std::size_t>(pair);
  return std::atan2(grad ? -t.sin[k] : t.sin[k], t.cos[k]);
}

std::vector<long> table_rows_turning(const RopeExpectation& e, const std::vector<double>& x,
                                     const std::vector<double>& y, DType dtype, std::size_t at_most) {
  const GivenTable& t = *e.table;
  const double units = 2 * epsilon(dtype) + 2 * epsilon(t.type), sign = e.mode == CheckMode::Grad ? -1.0 : 1.0;
  std::vector<std::array<int, 4>> ch;  // each pair read at (a, b), written at (c, d)
  for (int i = 0; i < t.half; ++i) {
    const auto [a, b] = pair_channels(e, i, false);
    const auto [c, d] = pair_channels(e, i, true);
    if (std::max({a, b, c, d}) >= static_cast<int>(std::min(x.size(), y.size()))) return {};
    ch.push_back({a, b, c, d});
  }
  std::vector<long> rows;
  for (long r = 0; r < t.rows && rows.size() < at_most; ++r) {
    bool fits = true;
    for (int i = 0; i < t.half && fits; ++i) {
      const auto k = static_cast<std::size_t>(r * t.half + i);
      const double c = t.cos[k], s = sign * t.sin[k];
      const auto& [a, b, oa, ob] = ch[static_cast<std::size_t>(i)];
      const double xa = x[static_cast<std::size_t>(a)], xb = x[static_cast<std::size_t>(b)];
      const double tol = kToleranceSafety * std::hypot(c, s) * std::hypot(xa, xb) * units;  // (T1)
      fits = std::abs(y[static_cast<std::size_t>(oa)] - (c * xa - s * xb)) <= tol &&
             std::abs(y[static_cast<std::size_t>(ob)] - (s * xa + c * xb)) <= tol;
    }
    if (fits) rows.push_back(r);
  }
  return rows;
}

bool applies_beside_table(std::string_view name) {
  static constexpr std::array<std::string_view, 22> kRows = {"expected",
                                                             "layout-swapped",
                                                             "output-interleaved",
                                                             "output-deinterleaved",
                                                             "positions-plus-one",
                                                             "positions-minus-one",
                                                             "before-equals-after",
                                                             "rotation-reversed",
                                                             "output-zero",
                                                             "position-ids-ignored",
                                                             "heads-seq-mixed",
                                                             "heads-zeroed",
                                                             "heads-uninitialised",
                                                             "heads-crossed",
                                                             "channels-zeroed",
                                                             "channels-uninitialised",
                                                             "pass-through-changed",
                                                             "positions-restart",
                                                             "table-sin-missing",
                                                             "table-cos-sin-swapped",
                                                             "table-gathered-by-index",
                                                             "norm-scaled"};
  return std::find(kRows.begin(), kRows.end(), name) != kRows.end();
}

}  // namespace rope
