// A cos/sin table against a model's RoPE (table_model.hpp): every entry under (T2), then what a failing table is.
#include "rope/analysis/check/table_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "rope/analysis/check/angle_error.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/dtype.hpp"
#include "rope/core/error.hpp"
#include "rope/io/csv.hpp"

namespace rope {
namespace {

/// What is compared: θ of the pairs, the magnitude a, the table's cos and sin exchanged or not, ε_U.
struct Reference {
  Eigen::VectorXd theta;
  double a = 1;
  bool swapped = false;
  double eps_u = 0;
};

struct Comparison {
  long compared = 0, failed = 0;
  double worst = 0;
  long worst_position = 0;
  int worst_pair = 0;
  int first_pair = std::numeric_limits<int>::max();  ///< the lowest pair with an entry beyond (T2)
};

/// The position of each row: its index for a table gathered by position ids, the token's index in its sequence
/// for a table of a row per token (position ids 0 … seq − 1, every batch row alike).
long row_position(const GivenTable& t, long row) { return t.per_token && t.shape.size() == 3 ? row % t.shape[1] : row; }

/// The rows a position has (a table of a row per token: one sequence's).
long position_rows(const GivenTable& t) { return t.per_token && t.shape.size() == 3 ? t.shape[1] : t.rows; }

/// Every entry of the first θ.size() pairs (at most the table's) under (T2).
Comparison compare(const GivenTable& t, const Reference& ref, AngleModel angles, double base) {
  Comparison c;
  const int n = std::min(static_cast<int>(ref.theta.size()), t.half);
  if (n == 0) return c;
  const Eigen::VectorXd ci =
      angle_error_factors(angles, ref.theta.head(n), base, 2 * static_cast<int>(ref.theta.size()));
  const double eps_a = angle_epsilon(angles);
  for (long r = 0; r < t.rows; ++r) {
    const auto m = static_cast<double>(row_position(t, r));
    for (int i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(r) * static_cast<std::size_t>(t.half) + static_cast<std::size_t>(i);
      double cs = t.cos[k], sn = t.sin[k];
      if (ref.swapped) std::swap(cs, sn);
      const double phi = m * ref.theta[i];
      const double tol =
          kToleranceSafety * std::abs(ref.a) * (eps_a * (1 + ci[i] * std::abs(phi)) + 2 * ref.eps_u);  // (T2)
      const double err = std::max(std::abs(cs - ref.a * std::cos(phi)), std::abs(sn - ref.a * std::sin(phi)));
      const double ratio = tol > 0 ? err / tol : (err > 0 ? std::numeric_limits<double>::infinity() : 0.0);
      ++c.compared;
      if (!(ratio <= 1)) {
        ++c.failed;
        c.first_pair = std::min(c.first_pair, i);
      }
      if (ratio > c.worst || std::isnan(ratio)) {
        c.worst = std::isnan(ratio) ? std::numeric_limits<double>::infinity() : ratio;
        c.worst_position = static_cast<long>(m);
        c.worst_pair = i;
      }
    }
  }
  return c;
}

/// θ_i of every pair measured from the rows of positions 1, 2, 4, …: atan2 at position 1, then at each doubling the
/// whole turns k that m·θ_i predicted from the row before added (exact while the prediction is within π).
Eigen::VectorXd measure_theta(const GivenTable& t, bool swapped) {
  const long rows = position_rows(t);
  Eigen::VectorXd theta = Eigen::VectorXd::Constant(t.half, std::numeric_limits<double>::quiet_NaN());
  if (rows < 2) return theta;
  const auto angle = [&](long row, int i) {
    const auto k = static_cast<std::size_t>(row) * static_cast<std::size_t>(t.half) + static_cast<std::size_t>(i);
    return swapped ? std::atan2(t.cos[k], t.sin[k]) : std::atan2(t.sin[k], t.cos[k]);
  };
  for (int i = 0; i < t.half; ++i) {
    double th = angle(1, i);
    for (long m = 2; m < rows; m *= 2) {
      const double phi = angle(m, i);
      const double turns = std::round((static_cast<double>(m) * th - phi) / (2 * kPi));
      th = (phi + 2 * kPi * turns) / static_cast<double>(m);
    }
    theta[i] = th;
  }
  return theta;
}

/// Plain RoPE's θ_i = base^(−2i/r) of `pairs` pairs (r = 2·pairs).
Eigen::VectorXd plain_theta(double base, int pairs) {
  Eigen::VectorXd theta(pairs);
  for (int i = 0; i < pairs; ++i) theta[i] = std::pow(base, -2.0 * i / (2.0 * pairs));
  return theta;
}

/// The base b whose plain θ_i = b^(−2i/r) the measured ones fit best on pairs 1 … last (least squares on
/// ln θ_i = −(2i/r)·ln b, r = 2·θ.size()); 0 where no pair is measured.
double fit_base(const Eigen::VectorXd& theta, int last) {
  const double r = 2.0 * static_cast<double>(theta.size());
  double num = 0, den = 0;
  for (int i = 1; i <= last && i < theta.size(); ++i) {
    if (!(theta[i] > 0)) continue;
    const double x = 2.0 * i / r;
    num += x * std::log(theta[i]);
    den += x * x;
  }
  return den > 0 ? std::exp(-num / den) : 0.0;
}

/// `x` rounded to `digits` significant digits.
double significant(double x, int digits) {
  if (!(x > 0)) return x;
  const double scale = std::pow(10.0, digits - 1 - static_cast<int>(std::floor(std::log10(x))));
  return std::round(x * scale) / scale;
}

/// The bases tried for a fitted one: rounded to 1, 2, … 6 significant digits, the roundest first (each is compared
/// with the whole table under (T2) before it is named), then the fit itself.
std::vector<double> candidates(double fitted) {
  std::vector<double> out;
  for (int digits = 1; digits <= 6; ++digits) {
    const double b = significant(fitted, digits);
    if (out.empty() || b != out.back()) out.push_back(b);
  }
  out.push_back(fitted);
  return out;
}

/// Whether every value of the table lies on `type`'s grid.
bool on_grid(const GivenTable& t, DType type) {
  const auto on = [type](double v) { return round_to(type, v) == v; };
  return std::all_of(t.cos.begin(), t.cos.end(), on) && std::all_of(t.sin.begin(), t.sin.end(), on);
}

/// The median |c + i·s| and the smallest and largest.
struct Magnitude {
  double median = 0, low = 0, high = 0;
};
Magnitude magnitudes(const GivenTable& t) {
  std::vector<double> m(t.cos.size());
  for (std::size_t k = 0; k < m.size(); ++k) m[k] = std::hypot(t.cos[k], t.sin[k]);
  if (m.empty()) return {};
  const auto [lo, hi] = std::minmax_element(m.begin(), m.end());
  Magnitude out{0, *lo, *hi};
  std::nth_element(m.begin(), m.begin() + static_cast<std::ptrdiff_t>(m.size() / 2), m.end());
  out.median = m[m.size() / 2];
  return out;
}

/// The table read with the model's layout, or with the other one where only that reading fits the model's pairs
/// (a finding then).
GivenTable read_for_model(const TableReader& read, bool interleaved, int model_pairs,
                          std::vector<TableFinding>& findings) {
  std::optional<GivenTable> own, other;
  std::optional<InvalidArgument> error;
  try {
    own = read(interleaved);
  } catch (const InvalidArgument& e) {
    error = e;
  }
  if (own && (own->form != GivenTable::Form::Half || own->half == model_pairs)) return std::move(*own);
  try {
    other = read(!interleaved);
  } catch (const InvalidArgument&) {
  }
  if (other && other->form != GivenTable::Form::Half && other->half == model_pairs) {
    findings.push_back(
        {"other-order",
         other->form == GivenTable::Form::RepeatedPairs
             ? msg("the table repeats each entry in neighbouring pairs (the interleaved layout's form) where the model "
                   "splits halves: a kernel of the model reads its entries in the other order")
             : msg("the table repeats each entry in its two halves (the half layout's form) where the model pairs "
                   "neighbours: a kernel of the model reads its entries in the other order")});
    return std::move(*other);
  }
  if (own) return std::move(*own);
  throw *error;
}

/// The model's RoPE with the settings' overrides, --base among them (check's resolve_for, its head size the model's).
ModelRope resolve_table_model(const CheckSettings& s) {
  if (!s.source.any()) {
    throw InvalidArgument(
        error_msg("a table alone is checked against a model: give {0} or {1} (or {2} and {3} to "
                  "check a kernel with it)",
                  option_name("model"), option_name("config"), option_name("before"), option_name("after")));
  }
  RopeOverrides r = s.rope;
  if (s.base) r.base = s.base;
  r.layout = std::nullopt;
  return resolve_model_rope(s.source, r);
}

}  // namespace

TableModelRun check_table_against_model(const TableReader& read, const CheckSettings& s) {
  TableModelRun run;
  run.model = resolve_table_model(s);
  const int d = run.model.spec.head_dim;
  const Layout layout = s.layout.value_or(run.model.spec.layout);
  const int model_pairs = run.model.spec.rotary_dim / 2;
  run.table = read_for_model(read, layout == Layout::Interleaved, model_pairs, run.findings);
  GivenTable& t = run.table;
  run.positions = position_rows(t);
  run.seq_len = s.rope.seq_len.value_or(0);
  Message where;
  const double max_position = static_cast<double>(std::max(run.seq_len, run.positions) - 1);
  run.expected = expectation_of_resolved(run.model, s, d, false, max_position, where);
  const RopeExpectation& e = run.expected;
  run.angles = s.angles.value_or(default_angle_model(t.type));
  const double eps_u = epsilon(t.type), base = e.base();
  const int n = std::min(t.half, static_cast<int>(e.theta().size()));

  if (t.half != static_cast<int>(e.theta().size())) {
    run.findings.push_back({"rotary-width", msg("the table holds {0} pairs a row, {1} rotated channels; the model "
                                                "rotates {2} of its head of {3}",
                                                t.half, 2 * t.half, e.rotary_dim(), d)});
  }
  if (run.seq_len > run.positions) {
    run.findings.push_back({"rows-short", msg("the table has rows for positions 0 … {0}: the {1} positions of the "
                                              "sequence need {1} rows",
                                              run.positions - 1, run.seq_len)});
  }
  const Reference model{e.theta().head(n), e.attention_factor(), false, eps_u};
  const Comparison as_is = compare(t, model, run.angles, base);
  run.compared = as_is.compared, run.failed = as_is.failed, run.worst = as_is.worst;
  run.worst_position = as_is.worst_position, run.worst_pair = as_is.worst_pair;
  const Magnitude mag = magnitudes(t);
  run.magnitude = mag.median;
  run.measured_theta = measure_theta(t, false);
  if (as_is.failed == 0) return run;

  // What a failing table is: each finding fixes what it names, the next looks at what is left.
  Reference ref = model;
  // Values stored wider than they were rounded (bfloat16 values in a float32 file): that type's ε where they lie.
  DType grid = t.type;
  for (DType coarse : {DType::BF16, DType::F16}) {
    if (epsilon(coarse) > eps_u && on_grid(t, coarse)) {
      grid = coarse;
      break;
    }
  }
  const double eps_mag = kToleranceSafety * (2 * epsilon(grid) + 2 * angle_epsilon(run.angles));
  bool swapped = false;
  if (mag.median > 0) {  // position 0 turns by nothing: (a, 0) in every pair, whatever θ
    swapped = true;
    for (int i = 0; i < t.half && swapped; ++i) {
      swapped = std::abs(t.cos[static_cast<std::size_t>(i)]) <= eps_mag * mag.median &&
                std::abs(t.sin[static_cast<std::size_t>(i)]) >= 0.5 * mag.median;
    }
  }
  if (swapped) {
    ref.swapped = true;
    run.findings.push_back(
        {"cos-sin-swapped", msg("cos and sin are swapped: position 0 holds (0, {0}) where it turns by nothing, "
                                "({0}, 0)",
                                format_number(mag.median))});
    run.measured_theta = measure_theta(t, true);
  }
  const double a = e.attention_factor();
  if (mag.high - mag.low > eps_mag * mag.high) {
    run.findings.push_back({"not-rotation", msg("|c + i·s| ranges from {0} to {1}: not a rotation times one factor",
                                                format_number(mag.low), format_number(mag.high))});
  } else if (std::abs(mag.median - a) > eps_mag * std::max(a, mag.median)) {
    const bool one = std::abs(mag.median - 1) <= eps_mag, twice = std::abs(mag.median - a * a) <= eps_mag * a * a;
    if (one) {
      run.findings.push_back(
          {"attention-factor-missing", msg("the attention factor {0} is missing: |c + i·s| is 1", format_number(a))});
    } else if (twice) {
      run.findings.push_back(
          {"attention-factor-doubled", msg("the attention factor {0} is applied twice: |c + i·s| is {1} = {0}²",
                                           format_number(a), format_number(mag.median))});
    } else {
      run.findings.push_back({"magnitude-other", msg("|c + i·s| is {0} where the model's attention factor is {1}",
                                                     format_number(mag.median), format_number(a))});
    }
    ref.a = mag.median;
  }
  if (compare(t, ref, run.angles, base).failed == 0) return run;
  if (grid != t.type) {
    ref.eps_u = epsilon(grid);
    run.findings.push_back({"rounded", msg("the table's values are rounded to {0} (stored as {1}): within (T2) of "
                                           "{0}, not of {1}",
                                           to_string(grid), to_string(t.type))});
    if (compare(t, ref, run.angles, base).failed == 0) return run;
  }

  // θ measured from the columns: which RoPE the table is.
  const Eigen::VectorXd& measured = run.measured_theta;
  const auto passes = [&](const Eigen::VectorXd& theta, double of_base) {
    Reference alt = ref;
    alt.theta = theta.head(std::min<Eigen::Index>(theta.size(), t.half));
    return compare(t, alt, run.angles, of_base).failed == 0;
  };
  const double all = fit_base(measured, t.half - 1);
  const std::optional<double> plain = [&]() -> std::optional<double> {
    for (double b : candidates(all)) {
      if (b > 1 && passes(plain_theta(b, t.half), b)) return b;
    }
    return std::nullopt;
  }();
  run.measured_base = plain.value_or(all);
  if (plain && e.scaled() && significant(*plain, 6) == significant(base, 6)) {
    run.findings.push_back({"scaling-ignored", msg("the table is plain RoPE of base {0}: the model's scaling ({1}) is "
                                                   "not applied",
                                                   format_number(*plain), e.scaling)});
    return run;
  }
  if (plain && t.half != static_cast<int>(e.theta().size()) &&
      significant(*plain, 6) == significant(base, 6)) {  // the model's base, another width
    for (TableFinding& f : run.findings) {
      if (f.name != "rotary-width") continue;
      f.says =
          msg("the table is RoPE of the model's base {0} over {1} channels ({2} pairs a row); the model rotates "
              "{3} of its head of {4}",
              format_number(base), 2 * t.half, t.half, e.rotary_dim(), d);
    }
    return run;
  }
  if (plain) {
    run.findings.push_back(
        {"base-other", e.scaled() ? msg("the table is plain RoPE of base {0}: the model's is base {1} with {2}",
                                        format_number(*plain), format_number(base), e.scaling)
                                  : msg("the table is RoPE of base {0} over {1} channels: the model's base is {2}",
                                        format_number(*plain), 2 * t.half, format_number(base))});
    return run;
  }
  if (e.scaled() && n >= 8) {  // the fastest pairs are not scaled (YaRN, llama3): the base from the first quarter
    const double high = fit_base(measured, std::max(1, n / 4));
    for (double b : candidates(high)) {
      if (!(b > 1)) continue;
      CheckSettings other = s;
      other.base = b;
      try {
        const ModelRope scaled = resolve_table_model(other);
        Message w;
        const RopeExpectation oe = expectation_of_resolved(scaled, other, d, false, max_position, w);
        if (oe.theta().size() >= n && passes(oe.theta().head(n), b)) {
          run.measured_base = b;
          run.findings.push_back({"scaled-base-other", msg("the table is the model's scaling ({0}) of base {1}: the "
                                                           "model's base is {2}",
                                                           e.scaling, format_number(b), format_number(base))});
          return run;
        }
      } catch (const InvalidArgument&) {
      }
    }
  }
  const Comparison left = compare(t, ref, run.angles, base);
  const int i = std::min(left.first_pair, n - 1);
  run.findings.push_back(
      {"theta-other", msg("θ departs from pair {0} on: {1} measured, the model's {2} (the plain "
                          "base the measured θ fit best: {3})",
                          i, format_number(measured[i]), format_number(e.theta()[i]), format_number(all))});
  return run;
}

TableModelRun run_table_model(const CheckSettings& settings) {
  const ModelRope rope = resolve_table_model(settings);
  return check_table_against_model(
      [&](bool interleaved) {
        return read_given_table(settings.table, interleaved, settings.rope.partial_rotary_factor, rope.spec.head_dim);
      },
      settings);
}

}  // namespace rope
