// rope check's verdict on a failing dump (check.hpp): the screens, the known variants compared in one pass, then the
// searches and the measurement in the order of explanations (docs/check.md), the first confirmed over the whole dump
// named, else the measured difference or where the dump departs; and the sentence that says so.
#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "rope/analysis/check/fast/check_sample.hpp"
#include "rope/analysis/check/check_table.hpp"
#include "rope/analysis/check/measured_rope.hpp"
#include "rope/analysis/check/cos_sin_table.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/error.hpp"
#include "rope/models/families/family_table.hpp"

namespace rope {
namespace {

/// Where the dump first departs from `expected` (its comparison `e`) and what it does to that pair there: the angle
/// it turned the pair by and its norm ratio, against RoPE's angle (both in (−π, π]).
CheckDiagnosis::Departure departure_of(const RopeExpectation& expected, const DumpComparison& e,
                                       const std::vector<AxisPosition>& positions) {
  CheckDiagnosis::Departure w;
  w.index = e.first_seq, w.group = e.first_group, w.channel = e.first_channel, w.pair = e.first_pair;
  if (w.pair < 0 || w.index < 0) return w;
  const auto wrap = [](double a) { return std::remainder(a, 2 * M_PI); };
  const std::complex<double> x(e.first_x[0], e.first_x[1]), y(e.first_y[0], e.first_y[1]);
  w.turned = std::abs(x) > 0 && std::abs(y) > 0 ? wrap(std::arg(y) - std::arg(x)) : 0.0;
  w.norm = std::abs(x) > 0 ? std::abs(y) / std::abs(x) : 1.0;
  const AxisPosition& p = positions[static_cast<std::size_t>(w.index)];
  const double m =
      expected.rope.axes
          ? axis_component(*expected.rope.axes, p, expected.rope.axes->pair_axis[static_cast<std::size_t>(w.pair)]) +
                expected.rope.axes->position_offset
          : p[0];
  w.expected = wrap(m * expected.theta()[w.pair] * (expected.mode == CheckMode::Grad ? -1.0 : 1.0));  // (G1): R(−m)
  if (expected.table) w.expected = table_angle(*expected.table, m, w.pair, expected.mode == CheckMode::Grad);
  return w;
}

/// The diagnosis names `kind` with its parameter `found`, in the words of its row of the table (check_table.hpp).
void name_match(CheckReport& report, const DumpSource& source, const std::vector<AxisPosition>& positions,
                VariantId kind, std::vector<std::pair<std::string, double>> found) {
  CheckDiagnosis& dg = report.diagnosis;
  dg.matches = kind;
  dg.found = std::move(found);
  if (const VariantRow& row = variant_row(kind); row.difference && !dg.found.empty())
    dg.difference = row.difference(report.expected, dg.found);
  const VariantSaying saying{report.expected, dg, report.comparison, positions, source.groups(), source.dtype()};
  dg.message = variant_sentence(kind, saying);
}

/// A value of the dump before RoPE that is not a finite number: nothing to compare with, invalid input.
void refuse_non_finite_before(const DumpComparison& e, const std::vector<AxisPosition>& positions,
                              const DumpSource& source) {
  const NonFiniteValues& n = e.before_non_finite;
  if (n.count == 0) return;
  throw InvalidArgument(
      error_msg("{0}: the element at position {1}, group {2}, channel {3} is {4} (elements that are not "
                "finite numbers: {5}): the tensor before RoPE must hold finite numbers",
                option_name(source.before_setting()), check_position_text(positions[static_cast<std::size_t>(n.seq)]),
                n.group, n.channel, check_value_text(n.value), n.count));
}

/// What a failing dump says before any variant is tried: the screened rows (their files' screen, asked in the table's
/// order: angles in float16 overflowing, a bf16 tensor saved as float32, pass-through channels changed), else values
/// after RoPE that are not finite numbers, which the implementation produced. Returns whether the diagnosis is
/// complete.
bool screen_failing(CheckReport& report, const DumpSource& source, long start,
                    const std::vector<AxisPosition>& positions) {
  VariantSearch search{report, source, start, positions};
  for (const VariantRow& row : variant_table()) {
    if (!row.screen || !row.screen(search)) continue;
    name_match(report, source, positions, *report.diagnosis.matches, report.diagnosis.found);
    return true;
  }
  if (const NonFiniteValues& n = report.comparison.after_non_finite; n.count > 0) {  // a finding no variant explains
    report.diagnosis.message =
        msg("the tensor after RoPE holds {0} at position {1}, group {2}, channel {3} (elements that are not finite "
            "numbers: {4}) while the tensor before RoPE is finite: the implementation produced them",
            check_value_text(n.value), check_position_text(positions[static_cast<std::size_t>(n.seq)]), n.group,
            n.channel, n.count);
    return true;
  }
  return false;
}

/// The variants to compare a failing dump with: every row's that applies (check_table.hpp table_variants), built from
/// the expectation and from what the dump shows (its positions, its shape, where it fails; with `norm_scale`, the
/// expectation times that scale, every element off too).
std::vector<Variant> variants_to_try(const RopeExpectation& expected, const std::vector<AxisPosition>& positions,
                                     const DumpComparison& e, const DumpSource& source,
                                     std::optional<double> norm_scale) {
  const bool drifts = e.first_seq > 0 && std::any_of(positions.begin(), positions.begin() + e.first_seq,
                                                     [](const AxisPosition& p) { return p.max_abs() != 0; });
  const VariantDump dump{positions, e, source.groups(), source.d(), drifts ? e.first_seq : -1, norm_scale};
  return table_variants({expected, &dump});
}

/// Compares every variant in one pass, keeps each comparison in the report, the first that passes as the match, and
/// the groups that pass in the other layout while the others pass as expected; returns the index of the closest (the
/// fewest failing elements) in report.variants.
std::size_t compare_variants(CheckReport& report, const DumpSource& source, long start,
                             const std::vector<AxisPosition>& positions, const std::vector<Variant>& variants) {
  CheckDiagnosis& dg = report.diagnosis;
  const DumpComparison& e = report.comparison;
  report.variants.reserve(report.variants.size() + variants.size());  // `closest` is an index into a stable vector
  std::size_t closest = report.variants.size();
  std::vector<DumpComparison> compared = source.compare(start, positions, variants);  // every variant in one pass
  for (std::size_t k = 0; k < variants.size(); ++k) {
    const Variant& v = variants[k];
    report.variants.emplace_back(v.kind, std::move(compared[k]));
    const DumpComparison& c = report.variants.back().second;
    if (c.passed() && !dg.matches) {
      dg.matches = v.kind, dg.found = v.found;
      if (!v.difference.empty())  // the parameters it changes, confirmed over every element compared
        dg.difference = v.difference, dg.difference_explained = c.total - c.failing, dg.difference_total = c.total;
    }
    if (c.failing < report.variants[closest].second.failing) closest = report.variants.size() - 1;
    if (v.kind != known_variant("layout-swapped") || c.passed()) continue;
    // Some groups right, the others right in the other layout: a q/k permutation wrong on some heads.
    std::vector<long> swapped;
    bool rest_expected = true;
    for (long g = 0; g < source.groups(); ++g) {
      const auto gi = static_cast<std::size_t>(g);
      if (e.group_failing[gi] == 0) continue;
      if (c.group_failing[gi] == 0)
        swapped.push_back(g);
      else
        rest_expected = false;
    }
    if (rest_expected && !swapped.empty() && static_cast<long>(swapped.size()) < source.groups())
      dg.swapped_groups = swapped;
  }
  return closest;
}

/// θ of pair i measured from the dump where its angle is largest (a base fitted at the first departing
/// position, m = 1, is off by 0.2 % on a bf16 dump, which fails at m = 131071): from θ₀ ≈ φ/m at the departure, each
/// step takes the dump's largest position m whose predicted angle θ·m is known within half a radian, reads the pair's
/// turn φ there (group g) and unwraps it, θ = (φ + 2πk)/m with k that of the prediction. The angle's error: 4·ε of the
/// dump's type (the pair's rounding) and 2·ε_f32·m·θ (a float32 angle). Returns {θ, its error bound}; {0, 0} when a
/// vector read is zero or not a rotation.
std::pair<double, double> theta_at_largest(const DumpSource& source, long start,
                                           const std::vector<AxisPosition>& positions, const RopeExpectation& expected,
                                           int pair, long group, double theta, double m0) {
  const auto [ca, cb] = pair_channels(expected, pair, true);
  const auto [ia, ib] = pair_channels(expected, pair, false);
  const double eps = epsilon(source.dtype()), eps32 = epsilon(DType::F32);
  const auto noise = [&](double m, double th) { return 4 * eps + 2 * eps32 * m * th; };
  // The indices by increasing position, positive positions only.
  std::vector<std::pair<double, long>> by_m;
  for (std::size_t s = 0; s < positions.size(); ++s) {
    if (positions[s][0] > 0) by_m.emplace_back(positions[s][0], static_cast<long>(s));
  }
  std::sort(by_m.begin(), by_m.end());
  double m = m0, err = noise(m0, theta) / m0;
  for (int step = 0; step < 64 && !by_m.empty(); ++step) {
    const double reach = 0.5 / err;  // the largest position whose predicted angle is within half a radian
    auto at = std::upper_bound(by_m.begin(), by_m.end(), std::pair{reach, std::numeric_limits<long>::max()});
    if (at == by_m.begin()) break;
    --at;
    if (at->first <= m) break;  // no larger position within reach (or the largest reached)
    const auto [x, y] = source.vector_at(start + at->second, group);
    const std::complex<double> zx(x[static_cast<std::size_t>(ia)], x[static_cast<std::size_t>(ib)]),
        zy(y[static_cast<std::size_t>(ca)], y[static_cast<std::size_t>(cb)]);
    if (std::abs(zx) == 0 || !(std::abs(std::abs(zy) / std::abs(zx) - 1) < 0.05)) return {0, 0};
    const double phi = std::arg(zy) - std::arg(zx);
    m = at->first;
    theta = (phi + kTwoPi * std::round((theta * m - phi) / kTwoPi)) / m;
    err = noise(m, theta) / m;
  }
  return {theta, err};
}

/// The base of a measured θ_i (pair i of rotary dimension r, error δθ): the round value that fits, first the family
/// table's rope_theta values (data/families.json), then the measured base to 1, 2, … significant digits, the first
/// within 3 errors (δ base / base = (r/2i)·δθ/θ); else the measured base to 7 digits.
double snap_base(double theta, double err, int pair, int r) {
  const double exponent = -static_cast<double>(r) / (2.0 * pair);
  const double base = std::pow(theta, exponent);
  const double rel = std::max(3 * std::abs(exponent) * err / theta, 1e-12);
  const auto fits = [&](double b) { return b > 1 && std::abs(std::log(b / base)) <= rel; };
  for (const ModelFamily& f : model_families()) {
    for (const std::optional<double>& b : {f.default_theta, f.default_theta_v4}) {
      if (b && fits(*b)) return *b;
    }
  }
  for (int digits = 1; digits <= 7; ++digits) {
    const double b = std::stod(fmt::format("{:.{}g}", base, digits));
    if (fits(b) || digits == 7) return b;
  }
  return base;
}

}  // namespace

std::optional<double> base_at_departure(const CheckReport& report, const DumpSource& source, long start,
                                        const std::vector<AxisPosition>& positions) {
  const RopeExpectation& expected = report.expected;
  if (expected.rope.axes || expected.scaled() || expected.rope.rotary_offset != 0) return std::nullopt;
  const CheckDiagnosis::Departure w = departure_of(expected, report.comparison, positions);
  const double m = w.index >= 0 ? positions[static_cast<std::size_t>(w.index)][0] : 0.0;
  const int r = expected.rotary_dim();
  if (!(w.pair >= 1 && m > 0 && w.turned > 0 && std::abs(w.norm - 1) < 1e-2)) return std::nullopt;
  const auto [theta, err] =
      theta_at_largest(source, start, positions, expected, w.pair, std::max(0L, w.group), w.turned / m, m);
  if (!(theta > 0 && theta < 1)) return std::nullopt;
  const double found = snap_base(theta, err, w.pair, r);
  if (!(std::isfinite(found) && found > 1 && found != expected.base() && found <= 1e12)) return std::nullopt;
  return found;
}

bool confirm_difference(CheckReport& report, const DumpSource& source, long start,
                        const std::vector<AxisPosition>& positions, Variant v,
                        std::vector<CheckDiagnosis::Difference> diff) {
  const VariantId kind = v.kind;
  report.variants.emplace_back(kind, source.compare(start, positions, {v}).front());
  const DumpComparison& c = report.variants.back().second;
  if (!c.passed()) return false;
  CheckDiagnosis& dg = report.diagnosis;
  dg.matches = kind;
  dg.found = v.found;
  dg.difference = std::move(diff);
  dg.difference_explained = c.total - c.failing;
  dg.difference_total = c.total;
  return true;
}

namespace {

/// The measured frequencies against the expected ones, pair by pair (the pairs the same): one constant ratio s for
/// every pair turned by at least a radian at the largest position (each within 4σ of its θ_j and 10⁻⁴), or nullopt.
std::optional<double> constant_ratio(const RopeExpectation& expected, const CheckDiagnosis::Measured& m,
                                     double largest) {
  const int half = expected.rotary_dim() / 2;
  if (m.rotary_dim != expected.rotary_dim() || m.theta.size() != half || m.pairs.size() != std::size_t(half))
    return std::nullopt;
  std::vector<double> ratio, spread;
  for (int j = 0; j < half; ++j) {
    auto [a, b] = pair_channels(expected, j, false);
    if (a > b) std::swap(a, b);
    if (m.pairs[static_cast<std::size_t>(j)] != std::pair{a, b}) return std::nullopt;
    const double te = expected.theta()[j], tm = m.theta[j];
    if (!(te * largest >= 1) || !(tm > 0)) continue;
    ratio.push_back(tm / te);
    spread.push_back(4 * m.theta_sigma[j] / tm + 1e-4);
  }
  if (ratio.size() < 2) return std::nullopt;
  std::vector<double> sorted = ratio;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<long>(sorted.size() / 2), sorted.end());
  const double s = sorted[sorted.size() / 2];
  for (std::size_t k = 0; k < ratio.size(); ++k) {
    if (!(std::abs(ratio[k] / s - 1) <= spread[k])) return std::nullopt;
  }
  return s;
}

}  // namespace

std::optional<ElementClasses> classify_elements(const RopeExpectation& expected, const DumpSource& source, long start,
                                                const std::vector<AxisPosition>& positions, const DumpComparison& whole,
                                                long max_elements) {
  const long seq = static_cast<long>(positions.size());
  const long per_index = source.groups() * source.d();
  std::vector<long> read;  // the sequence indices classified
  bool all = seq * per_index <= max_elements;
  for (long s = 0; s < seq; ++s) {
    if (all || (whole.position_ratio.size() == seq && !(whole.position_ratio[s] <= 1.0))) read.push_back(s);
  }
  if (!all && (whole.position_ratio.size() != seq || static_cast<long>(read.size()) * per_index > max_elements))
    return std::nullopt;
  const int half = expected.rotary_dim() / 2;
  const double a = expected.attention_factor(), eps = epsilon(source.dtype()), eps32 = epsilon(DType::F32);
  ElementClasses out;
  out.channels.assign(static_cast<std::size_t>(source.d()), 0);
  out.indices.assign(static_cast<std::size_t>(seq), 0);
  out.groups.assign(static_cast<std::size_t>(source.groups()), 0);
  // Each pair's channels: read from (ia, ib) of x, written at (oa, ob) of y.
  struct PairChannels {
    int ia, ib, oa, ob;
  };
  std::vector<PairChannels> pairs;
  for (int j = 0; j < half; ++j) {
    const auto [ia, ib] = pair_channels(expected, j, false);
    const auto [oa, ob] = pair_channels(expected, j, true);
    pairs.push_back({ia, ib, oa, ob});
  }
  // Each pair's cos, sin and bound per a·‖x‖ at this index.
  std::vector<double> cosines(static_cast<std::size_t>(half)), sines(cosines), per_norm(cosines);
  for (const long s : read) {
    const double m = positions[static_cast<std::size_t>(s)][0];
    for (int j = 0; j < half; ++j) {
      const auto k = static_cast<std::size_t>(j);
      const double phi = m * expected.theta()[j];
      cosines[k] = std::cos(phi), sines[k] = std::sin(phi);
      per_norm[k] = (8 * eps + 4 * eps32 * (1 + std::abs(phi))) * a;
    }
    for (long g = 0; g < source.groups(); ++g) {
      const auto [x, y] = source.vector_at(start + s, g);
      for (int j = 0; j < half; ++j) {
        const auto [ia, ib, oa, ob] = pairs[static_cast<std::size_t>(j)];
        const double c = cosines[static_cast<std::size_t>(j)], sn = sines[static_cast<std::size_t>(j)];
        const double xa = x[static_cast<std::size_t>(ia)], xb = x[static_cast<std::size_t>(ib)];
        const double bound = per_norm[static_cast<std::size_t>(j)] * std::sqrt(xa * xa + xb * xb);
        const std::array<std::array<double, 3>, 2> el{{{xa * c - xb * sn, xa, xa * c}, {xb * c + xa * sn, xb, xb * c}}};
        const std::array<int, 2> out_ch{oa, ob};
        for (int k = 0; k < 2; ++k) {
          const double got = y[static_cast<std::size_t>(out_ch[static_cast<std::size_t>(k)])];
          const auto& e = el[static_cast<std::size_t>(k)];
          if (std::abs(got - a * e[0]) <= bound) continue;
          ++out.failing;
          const int ch = out_ch[static_cast<std::size_t>(k)];
          if (std::abs(got - a * e[2]) <= bound) ++out.cos_only;
          if (got == 0) ++out.zero;
          if (std::abs(got - e[1]) <= bound) {
            ++out.unrotated;
            out.channels[static_cast<std::size_t>(ch)] = 1;
            out.indices[static_cast<std::size_t>(s)] = 1;
            out.groups[static_cast<std::size_t>(g)] = 1;
            out.first_channel = out.first_channel < 0 ? ch : std::min(out.first_channel, ch);
            out.last_channel = std::max(out.last_channel, ch);
            if (out.first_index < 0) out.first_index = s;
            out.last_index = s;
          }
        }
      }
    }
  }
  // A block: every element of those channels and groups keeps its input at every index (where RoPE turns them too
  // little to fail as well). Classified at the failing indices alone, a passing index at a position other than 0
  // turned its elements: no block.
  out.block = out.unrotated > 0;
  for (long s = 0; s < seq && out.block && !all; ++s) {
    if (whole.position_ratio[s] <= 1.0 && positions[static_cast<std::size_t>(s)][0] != 0) out.block = false;
  }
  for (const long s : read) {
    if (!out.block) break;
    for (long g = 0; g < source.groups() && out.block; ++g) {
      if (!out.groups[static_cast<std::size_t>(g)]) continue;
      const auto [x, y] = source.vector_at(start + s, g);
      for (int ch = 0; ch < source.d() && out.block; ++ch) {
        const auto c = static_cast<std::size_t>(ch);
        if (out.channels[c] && std::abs(y[c] - x[c]) > 8 * eps * std::abs(x[c])) out.block = false;
      }
    }
  }
  return out;
}

namespace {

/// No listed variant matches: the dump measured (measured_rope.hpp, identify's engine), the parameters where its
/// RoPE differs from the expected one stated, and the simplest difference that explains the whole dump named, one
/// parameter at a time: a constant ratio of every frequency (the positions scaled), then a ladder of another base
/// (with dynamic NTK expected, the rule's base at another length first: the one parameter the engine set).
void diagnose_measured(CheckReport& report, const DumpSource& source, long start,
                       const std::vector<AxisPosition>& positions) {
  const RopeExpectation& expected = report.expected;
  if (expected.fope || expected.rope.axes || expected.mode != CheckMode::Forward) return;
  std::optional<CheckDiagnosis::Measured> measured = measure_dump(source, start, positions);
  if (!measured) return;
  CheckDiagnosis& dg = report.diagnosis;
  dg.measured = std::move(measured);
  const CheckDiagnosis::Measured& m = *dg.measured;
  // Elements first: a dump whose failing elements are all of one kind is that, whatever the fit of its pairs says.
  if (const std::optional<ElementClasses> k =
          classify_elements(expected, source, start, positions, report.comparison)) {
    VariantSearch search{report, source, start, positions};
    search.elements = &*k;
    for (const VariantRow& row : variant_table()) {
      if (row.classified && row.classified(search)) return;
    }
  }
  const int r = expected.rotary_dim();
  double largest = 0;
  for (const AxisPosition& p : positions) largest = std::max(largest, std::abs(p[0]));
  // What differs, each parameter with the expected value and the measured one.
  std::vector<CheckDiagnosis::Difference> diff;
  if (m.rotary_dim > 0 && m.rotary_dim != r) diff.push_back({"rotary_dim", double(r), double(m.rotary_dim)});
  const double partner = expected.rope.layout == Layout::Half ? r / 2.0 : 1.0;
  if (!m.pairs.empty() && m.rotary_dim == r) {
    const double found = m.pairs.front().second - m.pairs.front().first;
    if (found != partner) diff.push_back({"partner", partner, found});
  }
  if (m.position_offset != 0) diff.push_back({"position_offset", 0, m.position_offset});
  // The magnitude beyond 1 %: a few elements off (a corrupted block) move the fitted a² by less; an exact magnitude is
  // found by the pair norms (a row's by_norms), named before the measurement.
  if (std::abs(m.attention_factor / expected.attention_factor() - 1) > 1e-2)
    diff.push_back({"attention_factor", expected.attention_factor(), m.attention_factor});
  // What the frequencies are beside the expected ones: one constant ratio, else a plain ladder of another base.
  MeasuredFacts facts{expected, m, diff, std::nullopt, std::nullopt};
  if (const std::optional<double> s = constant_ratio(expected, m, largest); s && std::abs(*s - 1) > 1e-6) {
    facts.ratio = s;
  } else if (m.family == "default" && m.base > 1 && m.rotary_dim == r && diff.empty() &&
             (expected.scaled() || std::abs(m.base / expected.base() - 1) > 1e-6)) {
    facts.ladder_base = m.base;
  }
  // The rows that read the measurement, in the table's order (the simplest difference first), each reading confirmed
  // over the whole dump; the difference the last one stated stays where none is.
  std::optional<std::vector<CheckDiagnosis::Difference>> stated;
  for (const VariantRow& row : variant_table()) {
    if (!row.measured) continue;
    std::optional<MeasuredReading> reading = row.measured(facts);
    if (!reading) continue;
    if (confirm_difference(report, source, start, positions, reading->variant, reading->difference)) return;
    stated = std::move(reading->difference);
  }
  if (stated) diff = std::move(*stated);
  dg.difference = std::move(diff);
}

}  // namespace

std::optional<double> grid_base_at_departure(const CheckReport& report, const std::vector<AxisPosition>& positions) {
  const RopeExpectation& e = report.expected;
  const AxisMap& map = *e.rope.axes;
  const CheckDiagnosis::Departure w = departure_of(e, report.comparison, positions);
  if (map.per_frequency || !(e.base() > 1) || w.pair < 0 || w.index < 0) return std::nullopt;
  const auto j = static_cast<std::size_t>(w.pair);
  const double m =
      axis_component(map, positions[static_cast<std::size_t>(w.index)], map.pair_axis[j]) + map.position_offset;
  const double te = e.theta()[w.pair], tm = m != 0 ? w.turned / m : 0;
  if (!(tm > 0) || !(te > 0) || te == 1) return std::nullopt;
  const double read = std::pow(e.base(), std::log(tm) / std::log(te));
  if (!std::isfinite(read) || !(read > 1)) return std::nullopt;
  return read;
}

namespace {

/// No variant matches: the measured difference where there is one, else where the dump first departs and what it does
/// there (never a closest variant that is not the cause).
void say_nothing_matches(CheckReport& report, const DumpComparison& nearest,
                         const std::vector<AxisPosition>& positions) {
  const RopeExpectation& expected = report.expected;
  CheckDiagnosis& dg = report.diagnosis;
  if (!dg.difference.empty()) {
    // Measured, and no one difference explains the whole dump: what differs is the diagnosis, no closest variant
    // (one that is not the cause is no lead).
    std::vector<std::string> items;
    for (const CheckDiagnosis::Difference& c : dg.difference)
      items.push_back(fmt::format("{} {:.7g} → {:.7g}", c.parameter, c.expected, c.found));
    // The pairing alone differs: the other layout is that difference, and its comparison the share it explains.
    if (dg.difference.size() == 1 && dg.difference.front().parameter == "partner") {
      for (const auto& [kind, c] : report.variants) {
        if (kind != known_variant("layout-swapped") || c.total == 0) continue;
        dg.difference_explained = c.total - c.failing;
        dg.difference_total = c.total;
        const double share = 100.0 * static_cast<double>(dg.difference_explained) / static_cast<double>(c.total);
        dg.message = msg(
            "no known variant explains the dump; measured, its RoPE differs from the expected one in {0} (expected → "
            "found), which explains {1} of {2} elements ({3:.3g} %): the others are not RoPE's; run `rope identify` "
            "to see what the dump does",
            fmt::format("{}", fmt::join(items, ", ")), dg.difference_explained, c.total, share);
        return;
      }
    }
    dg.message =
        msg("no known variant explains the dump; measured, its RoPE differs from the expected one in {0} (expected → "
            "found), which does not explain every element: run `rope identify` to see what the dump does",
            fmt::format("{}", fmt::join(items, ", ")));
    return;
  }
  // No closest variant: one that explains most of the dump and is not its cause is no lead (a precision variant
  // near a positional bug would send the reader the wrong way). Where the dump first departs instead, and what it does
  // there; "comes close" only where no variant explains half of the dump.
  // The channels a partial rotation passes through, where the dump leaves them right, are explained by every variant
  // that leaves them alone: "half of the dump" counts the rotated channels' elements alone.
  const int d = expected.rope.head_dim, r = expected.rotary_dim();
  const Eigen::VectorXd& channels = report.comparison.channel_ratio;
  long shared = 0;
  if (r < d && d > 0 && channels.size() == d && nearest.total % d == 0) {
    const int first = expected.rope.rotary_offset;
    bool right = true;
    for (int c = 0; c < d && right; ++c) right = (c >= first && c < first + r) || channels[c] <= 1;
    if (right) shared = nearest.total / d * (d - r);
  }
  const long explained = std::max(0L, nearest.total - nearest.failing - shared), counted = nearest.total - shared;
  const bool half_explained = counted > 0 && 2 * explained >= counted;
  const auto at = [&](long index) { return check_position_text(positions[static_cast<std::size_t>(index)]); };
  // A shift map's keys are each turned by their own δ, in no order: "correct until" one of them says nothing.
  if (expected.mode == CheckMode::ShiftMap) dg.correct_until.reset();
  dg.departure = departure_of(expected, report.comparison, positions);
  const CheckDiagnosis::Departure& w = *dg.departure;
  const Message where =
      w.pair >= 0
          ? msg("the dump first departs at position {0}, pair {1} (channels {2}, {3}): it turns that pair by {4} "
                "rad where RoPE turns it by {5} rad, its norm ×{6}",
                at(w.index), w.pair, pair_channels(expected, w.pair, true).first,
                pair_channels(expected, w.pair, true).second, fmt::format("{:.4g}", w.turned),
                fmt::format("{:.4g}", w.expected), fmt::format("{:.4g}", w.norm))
          : msg("the dump first departs at position {0}, channel {1}, which RoPE leaves as it is", at(w.index),
                w.channel);
  if (half_explained) {
    dg.message =
        dg.correct_until
            ? msg("correct until position {0}, then departs; no known variant explains it; {1}: run `rope "
                  "identify` to see what the dump does",
                  at(*dg.correct_until - 1), where)
            : msg("no known variant explains the dump; {0}: run `rope identify` to see what the dump does", where);
    return;
  }
  dg.message = dg.correct_until
                   ? msg("correct until position {0}, then drifts; no known variant comes close (none explains half "
                         "of the dump); {1}: run `rope identify` to see what the dump does",
                         at(*dg.correct_until - 1), where)
                   : msg("no known variant comes close (none explains half of the dump); {0}: run `rope identify` "
                         "to see what the dump does",
                         where);
}
}  // namespace

Message default_error_model() { return msg("float64 reference, tolerance (C1) with the angle error of (C2)"); }

bool looks_like_bf16(const DumpVectors& dump) {
  bool nonzero = false;
  for (const double v : dump.values) {
    const auto f = static_cast<float>(v);
    if (static_cast<double>(f) != v) return false;
    std::uint32_t bits;
    std::memcpy(&bits, &f, 4);
    if ((bits & 0xffffu) != 0) return false;
    nonzero = nonzero || v != 0;
  }
  return nonzero;
}

CheckReport check_dump(const DumpVectors& before, const DumpVectors& after, const std::vector<double>& positions,
                       const RopeExpectation& expected) {
  std::vector<AxisPosition> single;
  single.reserve(positions.size());
  for (const double p : positions) single.push_back(AxisPosition::single(p));
  return check_dump(before, after, single, expected);
}

CheckReport check_dump(const DumpVectors& before, const DumpVectors& after, const std::vector<AxisPosition>& positions,
                       const RopeExpectation& expected) {
  const MemorySource source(before, after);
  if (static_cast<long>(positions.size()) != before.seq) {
    throw InvalidArgument(
        error_msg("{0} positions for a dump of {1} sequence positions", positions.size(), before.seq));
  }
  return check_source(source, 0, positions, expected);
}

namespace {

CheckReport check_source_forward(const DumpSource& source, long start, const std::vector<AxisPosition>& positions,
                                 const RopeExpectation& expected) {
  CheckReport report;
  report.expected = expected;
  report.only_position_zero = true;
  for (const AxisPosition& p : positions) report.only_position_zero = report.only_position_zero && p.max_abs() == 0;
  // The elements under (C1) and, in the same pass, the pair norms under (N1) (check.hpp).
  Variant by_norm = variant_of(known_variant("expected"), expected);
  by_norm.norms = true;
  ComparePass together;
  together.norms_as_previous = true;
  // A large range's diagnosis is made on a sample (check_sample.hpp), predicted before this pass: the variant it
  // names is compared in this pass too, for its counts (its share of the whole range) alone.
  const bool sampled =
      !source.sampled() && diagnosed_on_sample(static_cast<long>(positions.size()), source.groups(), source.d());
  std::optional<SampleDiagnosis> predicted =
      sampled ? predicted_diagnosis(source, start, positions, expected) : std::nullopt;
  // FoPE's pairs are scaled rotations (models/fope.hpp (F4)): (N1) does not hold, and (C1) alone compares them.
  std::vector<Variant> compared{variant_of(known_variant("expected"), expected)};
  if (!expected.fope) compared.push_back(by_norm);
  ComparePass pass = expected.fope ? ComparePass{} : together;
  pass.counts_from = compared.size();
  if (predicted && predicted->named) compared.push_back(*predicted->named);
  std::vector<DumpComparison> first = source.compare(start, positions, compared, pass);
  std::optional<DumpComparison> measured;
  if (compared.size() > pass.counts_from) {
    measured = std::move(first.back());
    first.pop_back();
  }
  report.comparison = std::move(first[0]);
  if (expected.fope) first.emplace_back();  // no norm failing: passed
  const DumpComparison& norms = first[1];
  report.element_ratio = report.comparison.max_ratio;
  if (!expected.fope && !norms.passed()) report.norm_ratio = norms.max_ratio;
  // The output's norm scaled by s: the pairs fail (N1) and their mean norm ratio s is itself beyond (N1)'s bound,
  // so it is no rounding (an attention factor applied where none belongs, or a wrong one).
  const double s = norms.norm_scale();
  const bool norm_scaled = !norms.passed() && norms.before_non_finite.count == 0 && norms.after_non_finite.count == 0 &&
                           std::abs(s - 1) > check_norm_bound(expected, source.dtype());
  if (report.comparison.passed() && norm_scaled) {
    // Within (C1) element by element (bf16 lets a norm off by up to 12 % through), but not a rotation: the rows found
    // by the pair norms, in the table's order.
    NormsSearch search{report, source, start, positions, by_norm, s};
    for (const VariantRow& row : variant_table()) {
      if (!row.by_norms || !row.by_norms(search)) continue;
      name_match(report, source, positions, *report.diagnosis.matches, report.diagnosis.found);
      return report;
    }
  }
  refuse_non_finite_before(report.comparison, positions, source);
  if (report.comparison.passed()) return report;
  if (sampled && report.comparison.after_non_finite.count == 0) {  // a large dump
    return diagnose_on_sample(source, start, positions, expected, std::move(report), std::move(predicted),
                              measured ? &*measured : nullptr);
  }
  if (screen_failing(report, source, start, positions)) return report;
  CheckDiagnosis& dg = report.diagnosis;
  const DumpComparison& e = report.comparison;
  const auto moved = [](const AxisPosition& p) { return p.max_abs() != 0; };
  if (e.first_seq > 0 && std::any_of(positions.begin(), positions.begin() + e.first_seq, moved))
    dg.correct_until = e.first_seq;
  const std::vector<Variant> variants =
      variants_to_try(expected, positions, e, source, norm_scaled ? std::optional<double>(s) : std::nullopt);
  const std::size_t closest = compare_variants(report, source, start, positions, variants);
  if (!dg.swapped_groups.empty()) {
    const std::string heads = check_number_list(dg.swapped_groups);
    dg.message = expected.rope.layout == Layout::Half
                     ? msg("heads {0} match the interleaved layout while the others match half: the q/k "
                           "permutation is wrong on some heads (GQA: permuted with the wrong number of heads?)",
                           heads)
                     : msg("heads {0} match the half layout while the others match interleaved: the q/k "
                           "permutation is wrong on some heads (GQA: permuted with the wrong number of heads?)",
                           heads);
    return report;
  }
  // The searched rows, asked in the table's order (the order of explanations, docs/check.md) until one names its row;
  // then the measurement, whose rows fit angles m·θ, which a given table has not.
  VariantSearch search{report, source, start, positions};
  for (const VariantRow& row : variant_table()) {
    if (row.search && row.search(search)) break;
  }
  if (!dg.matches && !expected.table) diagnose_measured(report, source, start, positions);
  if (dg.matches) {
    name_match(report, source, positions, *dg.matches, dg.found);
  } else {
    say_nothing_matches(report, report.variants[closest].second, positions);
  }
  return report;
}

}  // namespace

void diagnose_unconfirmed(CheckReport& report, const DumpSource& source, long start,
                          const std::vector<AxisPosition>& positions, const DumpComparison& nearest) {
  CheckDiagnosis& dg = report.diagnosis;
  dg.matches.reset(), dg.closest.reset(), dg.departure.reset(), dg.correct_until.reset(), dg.measured.reset();
  dg.closest_explained = 0, dg.difference_explained = 0, dg.difference_total = 0;
  dg.found.clear(), dg.restarts.clear(), dg.difference.clear();
  const DumpComparison& e = report.comparison;
  const auto moved = [](const AxisPosition& p) { return p.max_abs() != 0; };
  if (e.first_seq > 0 && std::any_of(positions.begin(), positions.begin() + e.first_seq, moved))
    dg.correct_until = e.first_seq;
  // The measurement, its difference confirmed over the whole dump; a given table has no ladder to measure.
  if (!report.expected.table) diagnose_measured(report, source, start, positions);
  if (dg.matches) {
    name_match(report, source, positions, *dg.matches, dg.found);
  } else {
    say_nothing_matches(report, nearest, positions);
  }
}

CheckReport check_source(const DumpSource& source, long start, const std::vector<AxisPosition>& positions,
                         const RopeExpectation& expected) {
  CheckReport report = check_source_forward(source, start, positions, expected);
  if (expected.mode != CheckMode::Forward) diagnose_mode(report, source, start, positions);
  return report;
}

long SegmentChecks::diagnosed() const {
  return static_cast<long>(
      std::count_if(listed.begin(), listed.end(), [](const SegmentCheck& c) { return c.diagnosed(); }));
}

const SegmentCheck* SegmentChecks::find(long index) const {
  const auto at =
      std::lower_bound(listed.begin(), listed.end(), index, [](const SegmentCheck& c, long k) { return c.index < k; });
  return at != listed.end() && at->index == index ? &*at : nullptr;
}

SegmentCheck segment_verdict(const DumpSegment& g, long index, const DumpComparison& whole) {
  SegmentCheck c;
  c.segment = g;
  c.index = index;
  for (long s = g.start; s < g.start + g.length; ++s) {
    c.max_ratio = std::max(c.max_ratio, whole.position_ratio[s]);
    if (!(whole.position_ratio[s] <= 1.0)) ++c.failing_positions;
  }
  return c;
}

SegmentChecks check_segments(const DumpVectors& before, const DumpVectors& after,
                             const std::vector<AxisPosition>& positions, const RopeExpectation& expected,
                             const std::vector<DumpSegment>& segments, const DumpComparison& whole) {
  return check_segments(MemorySource(before, after), positions, expected, segments, whole);
}

SegmentChecks check_segments(const DumpSource& source, const std::vector<AxisPosition>& positions,
                             const RopeExpectation& expected, const std::vector<DumpSegment>& segments,
                             const DumpComparison& whole) {
  constexpr std::size_t half = kDiagnosedSegments / 2;
  SegmentChecks out;
  std::vector<SegmentCheck> first;  // the first kDiagnosedSegments failing ones
  std::vector<SegmentCheck> worst;  // a heap of the `half` worst failing ones past first's first `half`, least on top
  // Worse: a larger ratio, or an equal one earlier (the heap's top is the one to drop: the least bad).
  const auto worse = [](const SegmentCheck& x, const SegmentCheck& y) {
    return x.max_ratio > y.max_ratio || (x.max_ratio == y.max_ratio && x.index < y.index);
  };
  for (std::size_t k = 0; k < segments.size(); ++k) {
    const DumpSegment& g = segments[k];
    if (g.start < 0 || g.length < 1 || g.start + g.length > source.seq()) {
      throw InvalidArgument(error_msg("segment [{0}, {1}) is outside the sequence axis of {2}", g.start,
                                      g.start + g.length, source.seq()));
    }
    SegmentCheck c = segment_verdict(g, static_cast<long>(k), whole);
    ++out.count;
    if (k < kListedSegments) out.listed.push_back(c);
    if (c.passed()) continue;
    ++out.failing;
    if (first.size() < kDiagnosedSegments) first.push_back(c);
    if (static_cast<std::size_t>(out.failing) <= half) continue;  // among the first: diagnosed anyway
    if (worst.size() < half) {
      worst.push_back(c);
      std::push_heap(worst.begin(), worst.end(), worse);
    } else if (worse(c, worst.front())) {
      std::pop_heap(worst.begin(), worst.end(), worse);
      worst.back() = c;
      std::push_heap(worst.begin(), worst.end(), worse);
    }
  }
  // The ones to diagnose, in index order.
  std::vector<SegmentCheck> chosen;
  if (static_cast<std::size_t>(out.failing) <= kDiagnosedSegments) {
    chosen = std::move(first);
  } else {
    chosen.assign(first.begin(), first.begin() + static_cast<long>(half));
    chosen.insert(chosen.end(), worst.begin(), worst.end());
    std::sort(chosen.begin(), chosen.end(),
              [](const SegmentCheck& x, const SegmentCheck& y) { return x.index < y.index; });
  }
  for (SegmentCheck& c : chosen) {
    const DumpSegment& g = c.segment;
    const std::vector<AxisPosition> p(positions.begin() + g.start, positions.begin() + g.start + g.length);
    const bool sample = !source.sampled() && whole.after_non_finite.count == 0 &&
                        diagnosed_on_sample(g.length, source.groups(), source.d());
    c.report = std::make_shared<CheckReport>(
        sample
            ? diagnose_segment_on_sample(source, g.start, p, expected, whole.position_ratio.segment(g.start, g.length))
            : check_source(source, g.start, p, expected));
    if (static_cast<std::size_t>(c.index) < kListedSegments) {
      out.listed[static_cast<std::size_t>(c.index)].report = c.report;
    } else {
      out.listed.push_back(c);
    }
  }
  return out;
}

void diagnose_rows(CheckReport& report, const std::vector<DumpSegment>& rows, SegmentChecks& checks,
                   const std::vector<AxisPosition>& positions) {
  CheckDiagnosis& dg = report.diagnosis;
  if (rows.size() < 2 || dg.matches != known_variant("positions-restart") || positions.empty()) return;
  if (dg.restarts.size() != rows.size() - 1) return;
  for (std::size_t k = 1; k < rows.size(); ++k) {
    if (dg.restarts[k - 1] != rows[k].start) return;
  }
  const std::string first = check_position_text(positions.front());
  dg.message =
      msg("every batch row matches the first row's positions (from {0}): the whole batch is rotated at one "
          "offset (batched decode with a position per row?)",
          first);
  for (SegmentCheck& row : checks.listed) {
    if (row.diagnosed()) row.report->diagnosis.message = msg("rotated at the first row's positions (from {0})", first);
  }
}

}  // namespace rope
