// rope check's verdict on a failing dump: the known variants tried, the one that matches or the closest, a
// restart of the positions, a bf16 tensor saved as float32, and the sentence that says so (check.hpp).
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "rope/analysis/check.hpp"
#include "rope/analysis/check_sample.hpp"
#include "rope/core/error.hpp"

namespace rope {
namespace {

/// "63" or "(5, 5, 6)"; one number as before positions had axes ({:g}).
std::string position_text(const AxisPosition& p) { return p.multi() ? p.text() : fmt::format("{:g}", p.value[0]); }

/// A value that is not a finite number: "NaN", "+inf" or "-inf".
std::string value_text(double v) { return std::isnan(v) ? "NaN" : v > 0 ? "+inf" : "-inf"; }

std::string list_numbers(const std::vector<long>& values) {
  std::string s;
  for (std::size_t i = 0; i < values.size() && i < 12; ++i) s += (i ? ", " : "") + std::to_string(values[i]);
  return values.size() > 12 ? s + ", …" : s;
}

Variant variant_of(VariantKind kind, const RopeExpectation& spec) {
  Variant v;
  v.kind = kind, v.spec = spec;
  return v;
}

/// Largest number of restarts searched for (each costs one comparison of the whole dump).
constexpr int kMaxRestarts = 64;

/// The restarts that explain a dump correct up to `first` failing index: from each failing index on, the
/// positions start again from the first; none when that does not end in a pass.
std::vector<long> find_restarts(const DumpSource& source, long start, const std::vector<AxisPosition>& positions,
                                const RopeExpectation& expected, long first) {
  Variant v = variant_of(VariantKind::PositionsRestart, expected);
  for (int k = 0; k < kMaxRestarts && first > 0; ++k) {
    if (!v.restarts.empty() && first <= v.restarts.back()) return {};
    v.restarts.push_back(first);
    const DumpComparison c = source.compare(start, positions, {v}).front();
    if (c.passed()) return v.restarts;
    first = c.first_seq;
  }
  return {};
}

/// The smallest position float16 rounds to inf (its largest number is 65504; 65520 and above round up).
constexpr double kF16Overflow = 65520;

/// The rotated channels all within tolerance and some pass-through channel not: (first changed channel, how many).
std::optional<std::pair<int, int>> pass_through_changed(const RopeExpectation& expected, const DumpComparison& e,
                                                        int d) {
  if (e.channel_ratio.size() != d) return std::nullopt;
  std::vector<char> rotated(static_cast<std::size_t>(d), 0);
  for (int i = 0; i < expected.rotary_dim() / 2; ++i) {
    const auto [a, b] = pair_channels(expected, i, true);
    if (!(e.channel_ratio[a] <= 1.0) || !(e.channel_ratio[b] <= 1.0)) return std::nullopt;
    rotated[static_cast<std::size_t>(a)] = rotated[static_cast<std::size_t>(b)] = 1;
  }
  int first = -1, count = 0;
  for (int ch = 0; ch < d; ++ch) {
    if (rotated[static_cast<std::size_t>(ch)] || e.channel_ratio[ch] <= 1.0) continue;
    if (first < 0) first = ch;
    ++count;
  }
  if (count == 0) return std::nullopt;
  return std::pair{first, count};
}

/// The largest power of two and multiple of 1024 in (low, high], and high itself: the lengths a cos/sin cache
/// built too short may have when the dump is right at `low` and wrong from `high` on.
std::vector<long> cache_lengths(double low, double high) {
  std::vector<long> out{static_cast<long>(high)};
  const auto keep = [&](long L) {
    if (L > low && L <= high && std::find(out.begin(), out.end(), L) == out.end()) out.push_back(L);
  };
  long pow2 = 1;
  while (pow2 * 2 <= high) pow2 *= 2;
  keep(pow2);
  keep(static_cast<long>(std::floor(high / 1024)) * 1024);
  return out;
}

/// The variants that depend on the positions and the dump's shape: a cos/sin cache too short (when the dump is
/// right up to index `first_failing`), packed sequences rotated at their index in the batch, heads and sequence
/// mixed by a reshape.
void add_position_variants(std::vector<Variant>& variants, const RopeExpectation& expected,
                           const std::vector<AxisPosition>& positions, long first_failing, long groups) {
  const bool multi = !positions.empty() && positions.front().multi();
  if (first_failing > 0 && !multi) {
    const double high = positions[static_cast<std::size_t>(first_failing)][0];
    const double low = positions[static_cast<std::size_t>(first_failing - 1)][0];
    if (high > low && high >= 2 && high == std::floor(high)) {
      for (const long L : cache_lengths(low, high)) {
        for (const bool wraps : {false, true}) {
          Variant v = variant_of(VariantKind::CacheShort, expected);
          v.cache_length = L, v.cache_wraps = wraps;
          v.found = {{"length", static_cast<double>(L)}, {"wraps", wraps ? 1.0 : 0.0}};
          variants.push_back(std::move(v));
        }
      }
    }
  }
  if (!multi && positions.size() > 1) {
    long restart = -1;
    for (std::size_t s = 1; s < positions.size() && restart < 0; ++s) {
      if (positions[s][0] <= positions[s - 1][0]) restart = static_cast<long>(s);
    }
    if (restart > 0) {
      Variant v = variant_of(VariantKind::PositionIdsIgnored, expected);
      v.sequence_index = true;
      v.found = {{"restart", static_cast<double>(restart)}};
      variants.push_back(std::move(v));
    }
  }
  const long B = expected.batch_rows, S = expected.row_length;
  if (multi && positions.front().count >= 3 && B > 1 && S > 0 && static_cast<long>(positions.size()) == B * S &&
      expected.axes && !expected.axes->vision()) {
    Variant v = variant_of(VariantKind::MropeBatchRows, expected);
    v.batch_axes = true;
    v.found = {{"batch", static_cast<double>(B)}};
    variants.push_back(std::move(v));
  }
  if (groups > 1 && positions.size() > 1) {
    Variant v = variant_of(VariantKind::HeadsSeqMixed, expected);
    v.heads_mixed = true;
    v.found = {{"groups", static_cast<double>(groups)}};
    variants.push_back(std::move(v));
  }
}

/// The rotated block where the dump has it, as identify finds it (the channels that change, identify.hpp step 1):
/// where the dump's changed channels begin, read from the channels outside the spec's block that the dump changed
/// (those the expectation copies and the dump does not): the first of them when they lie before the spec's block,
/// else the block of the rotary dimension that ends at the last of them (a block overlapping the spec's, channels
/// 8…23 for a spec of 0…15, changes 16…23 outside it), when it fits and check_variants does not try that offset
/// already (the head's end, or 0).
void add_offset_variant(std::vector<Variant>& variants, const RopeExpectation& expected, const DumpComparison& e,
                        int d) {
  const int r = expected.rotary_dim(), off = expected.rotary_offset;
  if (expected.axes || expected.axis_blocks || r >= d || e.channel_ratio.size() != d) return;
  int lowest = -1, highest = -1;
  for (int ch = 0; ch < d; ++ch) {
    if ((ch >= off && ch < off + r) || e.channel_ratio[ch] <= 1.0) continue;
    if (lowest < 0) lowest = ch;
    highest = ch;
  }
  if (lowest < 0) return;
  const int first = lowest < off ? lowest : highest + 1 - r;
  if (first < 0 || first == off || first + r > d || first == (off == 0 ? d - r : 0)) return;
  Variant v = variant_of(VariantKind::RotaryOffsetOther, expected);
  v.spec.rotary_offset = first;
  v.found = {{"offset", first}};
  variants.push_back(std::move(v));
}

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
  const double m = expected.axes
                       ? axis_component(*expected.axes, p, expected.axes->pair_axis[static_cast<std::size_t>(w.pair)]) +
                             expected.axes->position_offset
                       : p[0];
  w.expected = wrap(m * expected.theta[w.pair]);
  return w;
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

CheckReport check_source(const DumpSource& source, long start, const std::vector<AxisPosition>& positions,
                         const RopeExpectation& expected) {
  CheckReport report;
  report.expected = expected;
  report.only_position_zero = true;
  for (const AxisPosition& p : positions) report.only_position_zero = report.only_position_zero && p.max_abs() == 0;
  // The elements under (C1) and, in the same pass, the pair norms under (N1) (check.hpp).
  Variant by_norm = variant_of(VariantKind::NormScaled, expected);
  by_norm.norms = true;
  ComparePass together;
  together.norms_as_previous = true;
  std::vector<DumpComparison> first =
      source.compare(start, positions, {variant_of(VariantKind::Expected, expected), by_norm}, together);
  report.comparison = std::move(first[0]);
  const DumpComparison& norms = first[1];
  const double s = norms.norm_scale();
  // The output's norm scaled by s: the pairs fail (N1) and their mean norm ratio s is itself beyond (N1)'s bound,
  // so it is no rounding (an attention factor applied where none belongs, or a wrong one).
  const double norm_bound =  // (N1)'s relative bound
      2 * (epsilon(source.dtype()) + angle_epsilon(expected.angles.value_or(default_angle_model(source.dtype()))));
  const bool norm_scaled = !norms.passed() && norms.before_non_finite.count == 0 && norms.after_non_finite.count == 0 &&
                           std::abs(s - 1) > norm_bound;
  const auto name_norm = [&](CheckReport& r) {
    r.diagnosis.matches = VariantKind::NormScaled;
    r.diagnosis.found = {{"factor", s}};
    r.diagnosis.message =
        msg("the output's norm is scaled by {0}: each rotated pair's norm is that many times a·‖x‖ (attention factor a "
            "{1}), where a rotation keeps it within {2} (an attention factor applied where none belongs, or a wrong "
            "one)",
            fmt::format("{:.6g}", s), fmt::format("{:.6g}", expected.attention_factor),
            fmt::format("{:.3g} %", 100 * norm_bound));
  };
  if (report.comparison.passed() && norm_scaled) {
    // Within (C1) element by element (bf16 lets a norm off by up to 12 % through), but not a rotation: the pair
    // norms are the comparison, every pair's ratio computed.
    ComparePass exact;
    exact.exact_norms = true;
    report.comparison = source.compare(start, positions, {by_norm}, exact).front();
    name_norm(report);
    return report;
  }
  const DumpComparison& e = report.comparison;
  if (const NonFiniteValues& n = e.before_non_finite; n.count > 0) {  // nothing to compare with: invalid input
    throw InvalidArgument(
        error_msg("{0}: the element at position {1}, group {2}, channel {3} is {4} (elements that are not "
                  "finite numbers: {5}): the tensor before RoPE must hold finite numbers",
                  option_name("before"), position_text(positions[static_cast<std::size_t>(n.seq)]), n.group, n.channel,
                  value_text(n.value), n.count));
  }
  if (e.passed()) return report;
  if (!source.sampled() && e.after_non_finite.count == 0 &&
      diagnosed_on_sample(static_cast<long>(positions.size()), source.groups(), source.d())) {
    return diagnose_on_sample(source, start, positions, expected, std::move(report));  // a large dump
  }
  CheckDiagnosis& dg = report.diagnosis;
  if (const NonFiniteValues& n = e.after_non_finite; n.count > 0) {  // a finding no variant explains
    const AxisPosition& at = positions[static_cast<std::size_t>(n.seq)];
    if (at.max_abs() >= kF16Overflow) {
      // m·θ in float16: a position of 65520 or more is inf there, and cos(inf), sin(inf) are NaN (gpt-oss).
      dg.matches = VariantKind::AnglesF16Overflow;
      dg.found = {{"position", at.max_abs()}};
      dg.message = msg(
          "the tensor after RoPE holds {0} from position {1} on (elements that are not finite numbers: {2}): angles "
          "computed in float16, whose largest number is 65504, overflow to inf there and cos, sin give NaN (compute "
          "the angles in float32)",
          value_text(n.value), position_text(at), n.count);
      return report;
    }
    dg.message = msg(
        "the tensor after RoPE holds {0} at position {1}, group {2}, channel {3} (elements that are not finite "
        "numbers: {4}) while the tensor before RoPE is finite: the implementation produced them",
        value_text(n.value), position_text(positions[static_cast<std::size_t>(n.seq)]), n.group, n.channel, n.count);
    return report;
  }
  if (source.dtype() == DType::F32 && source.after_looks_like_bf16()) {
    // Every value a bfloat16: a bf16 model's tensor saved with .float(); its tolerance is bf16's.
    Variant v = variant_of(VariantKind::Bf16AsFloat32, expected);
    v.dump_type = DType::BF16;
    report.variants.emplace_back(v.kind, source.compare(start, positions, {v}).front());
    if (report.variants.back().second.passed()) {
      dg.matches = VariantKind::Bf16AsFloat32;
      dg.message =
          msg("looks like bf16 saved as float32: add {0} (every value has 16 zero low bits, and under bf16's "
              "tolerance the dump passes)",
              option_name("dtype") + " bf16");
      return report;
    }
    report.notes.push_back(msg("looks like bf16 saved as float32: add {0} (every value has 16 zero low bits)",
                               option_name("dtype") + " bf16"));
  }
  if (const std::optional<std::pair<int, int>> pass = pass_through_changed(expected, e, source.d())) {
    dg.matches = VariantKind::PassThroughChanged;
    dg.found = {{"channel", pass->first}, {"channels", pass->second}};
    dg.message =
        msg("the rotated channels match, but pass-through channels changed ({0}, the first: channel {1}), which RoPE "
            "leaves as they are: the kernel writes beyond the rotary dimension {2} (a fused kernel that ignores "
            "rotary_dim)",
            pass->second, pass->first, expected.rotary_dim());
    return report;
  }
  const auto moved = [](const AxisPosition& p) { return p.max_abs() != 0; };
  if (e.first_seq > 0 && std::any_of(positions.begin(), positions.begin() + e.first_seq, moved))
    dg.correct_until = e.first_seq;
  std::vector<Variant> variants = check_variants(expected);
  // Variants that equal the expectation at these positions are not compared: llama.cpp's e slot taken as 0 where no
  // position fills it (one number p is (p, p, p, 0) already), h and w exchanged where every position has h = w.
  const auto drop = [&variants](VariantKind kind) {
    variants.erase(
        std::remove_if(variants.begin(), variants.end(), [kind](const Variant& v) { return v.kind == kind; }),
        variants.end());
  };
  const auto fourth = [&](const AxisPosition& p) { return axis_component(*expected.axes, p, 3) != 0; };
  if (!ggml_fourth_slot_pairs(expected).empty() && std::none_of(positions.begin(), positions.end(), fourth)) {
    drop(VariantKind::EslotUnrotated);
  }
  const auto h_not_w = [](const AxisPosition& p) {
    return p.multi() && p.value[height_component(p)] != p.value[height_component(p) + 1];
  };
  if (std::none_of(positions.begin(), positions.end(), h_not_w)) drop(VariantKind::AxesSwapped);
  add_position_variants(variants, expected, positions, dg.correct_until ? e.first_seq : -1, source.groups());
  add_offset_variant(variants, expected, e, source.d());
  if (norm_scaled) {  // every element off too (float32): the expectation times s, after the named factors
    Variant v = variant_of(VariantKind::NormScaled, expected);
    v.spec.attention_factor = expected.attention_factor * s;
    v.found = {{"factor", s}};
    variants.push_back(std::move(v));
  }
  report.variants.reserve(report.variants.size() +
                          variants.size());  // `closest` is an index: no pointer into a growing vector
  const std::size_t first_variant = report.variants.size();
  std::size_t closest = first_variant;
  std::vector<DumpComparison> compared = source.compare(start, positions, variants);  // every variant in one pass
  for (std::size_t k = 0; k < variants.size(); ++k) {
    const Variant& v = variants[k];
    report.variants.emplace_back(v.kind, std::move(compared[k]));
    const DumpComparison& c = report.variants.back().second;
    if (c.passed() && !dg.matches) dg.matches = v.kind, dg.found = v.found;
    if (c.failing < report.variants[closest].second.failing) closest = report.variants.size() - 1;
    if (v.kind == VariantKind::LayoutSwapped && !c.passed()) {
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
  }
  // The layouts by the glossary's names (po/glossary.md): one sentence per order, so that no layout is an English
  // word in a field of a Chinese sentence (相邻配对（interleaved）, 前后半配对（half）).
  const bool half_expected = expected.layout == Layout::Half;
  const std::string base = fmt::format("{:g}", expected.base);
  const std::string factor = fmt::format("{:.6g}", expected.attention_factor);
  if (!dg.swapped_groups.empty()) {
    const std::string heads = list_numbers(dg.swapped_groups);
    dg.message = {half_expected
                      ? msg("heads {0} match the interleaved layout while the others match half: the q/k "
                            "permutation is wrong on some heads (GQA: permuted with the wrong number of heads?)",
                            heads)
                      : msg("heads {0} match the half layout while the others match interleaved: the q/k "
                            "permutation is wrong on some heads (GQA: permuted with the wrong number of heads?)",
                            heads)};
    return report;
  }
  // A cos/sin cache read at p mod L from position 0 is the positions starting again at L, 2L, …: the restart says it
  // in the words of packed sequences and chunked prefill, which are the likelier cause.
  const bool wrapped = dg.matches == VariantKind::CacheShort && dg.found.size() > 1 && dg.found[1].second != 0;
  if ((!dg.matches || wrapped) && dg.correct_until) {
    // A restart is not a drift: the positions may start again where the dump stops matching.
    dg.restarts = find_restarts(source, start, positions, expected, *dg.correct_until);
    if (!dg.restarts.empty()) {
      dg.matches = VariantKind::PositionsRestart;
      dg.found.clear();
      dg.correct_until.reset();
      const std::string first = position_text(positions.front());
      std::string starts = "0";
      for (const long r : dg.restarts) starts += "," + std::to_string(r);
      dg.message =
          msg("the positions restart at index {0}: the dump matches positions that start again from {1} there "
              "(chunked prefill or packed sequences: give the dump's positions, or {2})",
              list_numbers(dg.restarts), first, option_name("sequence_starts") + " " + starts);
      return report;
    }
  }
  if (!dg.matches && !expected.axes && !expected.scaled && expected.rotary_offset == 0) {
    // rope_theta not read, a base no code defaults to: the base the first departing pair's angle gives (θ_i = φ/m,
    // base = θ_i^(−r/(2i))), as identify measures it there, tried as a variant.
    const CheckDiagnosis::Departure w = departure_of(expected, e, positions);
    const double m = w.index >= 0 ? positions[static_cast<std::size_t>(w.index)][0] : 0.0;
    const int r = expected.rotary_dim();
    if (w.pair >= 1 && m > 0 && w.turned > 0 && std::abs(w.norm - 1) < 1e-2) {
      const double theta = w.turned / m;
      const double found = std::pow(theta, -static_cast<double>(r) / (2.0 * w.pair));
      const double rounded = std::isfinite(found) && found > 1 ? std::stod(fmt::format("{:.3g}", found)) : 0.0;
      if (rounded > 1 && rounded != expected.base && rounded <= 1e12) {
        Variant v = variant_of(VariantKind::BaseOther, expected);
        v.spec.theta.resize(r / 2);
        for (int i = 0; i < r / 2; ++i) v.spec.theta[i] = std::pow(rounded, -2.0 * i / r);
        report.variants.emplace_back(v.kind, source.compare(start, positions, {v}).front());
        if (report.variants.back().second.passed()) dg.matches = VariantKind::BaseOther, dg.found = {{"base", rounded}};
      }
    }
  }
  if (!dg.matches) {
    const DumpComparison& nearest = report.variants[closest].second;
    dg.closest = report.variants[closest].first;
    dg.closest_explained = nearest.total - nearest.failing;
    const Message words = describe(*dg.closest, expected);
    const double share = nearest.total > 0
                             ? 100.0 * static_cast<double>(dg.closest_explained) / static_cast<double>(nearest.total)
                             : 0.0;
    if (2 * dg.closest_explained < nearest.total) {
      // No hint that explains less than half of the dump: where it first departs instead, and what it does there.
      dg.closest.reset();
      dg.closest_explained = 0;
      dg.departure = departure_of(expected, e, positions);
      const CheckDiagnosis::Departure& w = *dg.departure;
      const std::string p = position_text(positions[static_cast<std::size_t>(w.index)]);
      const Message where =
          w.pair >= 0
              ? msg("the dump first departs at position {0}, pair {1} (channels {2}, {3}): it turns that pair by {4} "
                    "rad where RoPE turns it by {5} rad, its norm ×{6}",
                    p, w.pair, pair_channels(expected, w.pair, true).first,
                    pair_channels(expected, w.pair, true).second, fmt::format("{:.4g}", w.turned),
                    fmt::format("{:.4g}", w.expected), fmt::format("{:.4g}", w.norm))
              : msg("the dump first departs at position {0}, channel {1}, which RoPE leaves as it is", p, w.channel);
      dg.message =
          dg.correct_until
              ? msg("correct until position {0}, then drifts; no known variant comes close (none explains half "
                    "of the dump); {1}: run `rope identify` to see what the dump does",
                    position_text(positions[static_cast<std::size_t>(*dg.correct_until - 1)]), where)
              : msg("no known variant comes close (none explains half of the dump); {0}: run `rope identify` "
                    "to see what the dump does",
                    where);
    } else if (dg.correct_until) {
      const std::string p = position_text(positions[static_cast<std::size_t>(*dg.correct_until - 1)]);
      dg.message =
          msg("correct until position {0}, then drifts; no known variant explains it (the closest, {1}, explains "
              "{2} of {3} elements, {4:.3g} %): run `rope identify` to see what the dump does",
              p, words, dg.closest_explained, nearest.total, share);
    } else {
      dg.message =
          msg("no known variant explains the dump (the closest, {0}, explains {1} of {2} elements, {3:.3g} %): "
              "run `rope identify` to see what the dump does",
              words, dg.closest_explained, nearest.total, share);
    }
    return report;
  }
  const int r = expected.rotary_dim();
  switch (*dg.matches) {
    case VariantKind::LayoutSwapped:
      dg.message = {half_expected ? msg("matches the interleaved layout; the spec implies half")
                                  : msg("matches the half layout; the spec implies interleaved")};
      break;
    case VariantKind::Base10000:
      dg.message = {msg("matches base 10000, not {0}: is rope_theta read?", base)};
      break;
    case VariantKind::ScalingIgnored:
      dg.message = {msg("matches plain RoPE with base {0} and no attention factor: the scaling is not applied", base)};
      break;
    case VariantKind::FactorMissing:
      dg.message = {msg("the attention factor {0} is missing (the dump matches a factor of 1)", factor)};
      break;
    case VariantKind::PositionsPlusOne:
    case VariantKind::PositionsMinusOne: {
      const char* sign = *dg.matches == VariantKind::PositionsPlusOne ? "+1" : "-1";
      dg.message = {msg("matches positions shifted by {0}: positions off by one", sign)};
      break;
    }
    case VariantKind::PartialWholeHead:
      dg.message = {msg("matches RoPE over the whole head (d = {0}): the partial rotary dimension {1} is ignored",
                        expected.head_dim, r)};
      break;
    case VariantKind::PartialTwice:
      dg.message = {msg("matches a rotary dimension of {0} instead of {1}: the partial rotary factor is applied twice",
                        2 * static_cast<int>(static_cast<double>(r) * r / expected.head_dim / 2.0), r)};
      break;
    case VariantKind::AnglesBf16:
    case VariantKind::AnglesF16: {
      const char* type = *dg.matches == VariantKind::AnglesBf16 ? "bf16" : "f16";
      if (dg.correct_until) {
        const std::string p = position_text(positions[static_cast<std::size_t>(*dg.correct_until - 1)]);
        dg.message = {
            msg("correct until position {0}, then drifts: angles computed in {1}? (the dump matches "
                "positions and frequencies cast to {2} before m·θ)",
                p, type, type)};
      } else {
        dg.message = {
            msg("matches angles computed in {0}: positions and frequencies cast to {1} before m·θ", type, type)};
      }
      break;
    }
    case VariantKind::SectionsChunked:
    case VariantKind::SectionsInterleaved: {
      const bool chunked = *dg.matches == VariantKind::SectionsChunked;
      const std::string sections = fmt::format("{}", fmt::join(expected.axes->source.sections, ", "));
      dg.message =
          chunked ? msg("matches mrope_section [{0}] in chunks, the model's code interleaves them: the axis map is "
                        "the other implementation's (docs/multi-axis.md (A2), (A3))",
                        sections)
                  : msg("matches mrope_section [{0}] interleaved, the model's code chunks them: the axis map is "
                        "the other implementation's (docs/multi-axis.md (A2), (A3))",
                        sections);
      break;
    }
    case VariantKind::MropeIgnored:
      dg.message = {
          msg("matches plain RoPE at each token's index in the sequence: the M-RoPE branch is never reached "
              "(1-D positions; a config whose rope_type is default beside mrope_section?)")};
      break;
    case VariantKind::YarnWithoutExtFactor:
      dg.message = {
          msg("matches linear interpolation by {0} at every pair, without YaRN's ramp and magnitude: YaRN run "
              "without ext_factor (llama.cpp: yarn_ext_factor 0)",
              fmt::format("{:g}", expected.yarn_factor))};
      break;
    case VariantKind::RotaryDimHalved:
      dg.message = {
          msg("matches a rotary dimension of {0} instead of {1}: the model rotates the whole head, the code "
              "rotated half of it (n_dims = d/2)",
              r / 2, r)};
      break;
    case VariantKind::EslotUnrotated: {
      const std::vector<int> hf = llama_cpp_unrotated_pairs(expected);
      if (!hf.empty()) {
        dg.message = {
            msg("matches pairs {0} left unrotated: llama.cpp feeds them from its fourth position slot, 0 for a text "
                "token (p, p, p, 0), where this map turns them; check a llama.cpp dump with the model's GGUF file",
                list_numbers(std::vector<long>(hf.begin(), hf.end())))};
      } else {
        const std::vector<int> pairs = ggml_fourth_slot_pairs(expected);
        dg.message = {
            msg("matches pairs {0} left unrotated: they read the fourth position slot, which the dump took as 0 (a "
                "text token's (p, p, p, 0)) where the positions given have a value there",
                list_numbers(std::vector<long>(pairs.begin(), pairs.end())))};
      }
      break;
    }
    case VariantKind::BeforeEqualsAfter:
      dg.message = {
          msg("the dump after RoPE equals the dump before it: nothing turned. The \"before\" tensor was read after "
              "an in-place RoPE had rotated it (llama.cpp after a q-norm: copy src[0] when the eval callback asks "
              "about the RoPE node, docs/check.md), or RoPE was never applied")};
      break;
    case VariantKind::AxesSwapped:
      dg.message = {
          expected.axes && expected.axes->vision()
              ? msg("matches each patch turned by (column, row) instead of (row, column): the tower's height and "
                    "width indices are exchanged")
              : msg("matches the positions with h and w exchanged, (t, w, h) for (t, h, w): the height and width "
                    "indices are swapped")};
      break;
    case VariantKind::LongRopeOtherList:
      dg.message = {
          expected.longrope_other && expected.longrope_other->is_short
              ? msg("matches LongRoPE's short factors, not the long ones the positions call for: llama.cpp "
                    "chooses the list by its context size (long only when n_ctx exceeds the original context), "
                    "Hugging Face by max(position) + 1")
              : msg("matches LongRoPE's long factors, not the short ones the positions call for: llama.cpp "
                    "chooses the list by its context size (long when n_ctx exceeds the original context), "
                    "Hugging Face by max(position) + 1")};
      break;
    case VariantKind::RotationReversed:
      dg.message = {
          msg("matches the rotation reversed, every pair turned by −m·θ: sin's sign is flipped, or the transpose "
              "R(m)ᵀ is applied (rotate_half's sign, or m − n written as n − m)")};
      break;
    case VariantKind::BaseOther:
      dg.message = {
          msg("matches base {0}, not {1}: is rope_theta read?", fmt::format("{}", dg.found.front().second), base)};
      break;
    case VariantKind::InvFreqIntegerDivision:
      dg.message = {
          msg("matches θ = 1 for every pair: inv_freq computed with integer division (arange(0, d, 2) // d is 0, "
              "base^0 = 1); divide in floating point")};
      break;
    case VariantKind::PartialPairing:
      dg.message = {
          msg("matches pair i rotated with channel i + {0} instead of i + {1}: the partial rotary part is paired "
              "across the whole head (rotate_half over d = {2}, not over the rotary dimension {3})",
              expected.head_dim / 2, r / 2, expected.head_dim, r)};
      break;
    case VariantKind::ScalingTwice:
      dg.message = {
          msg("matches the scaling applied twice: frequencies divided by up to {0} where the scaling divides by {1} "
              "(GGUF rope_freqs applied on top of the scaling?)",
              fmt::format("{:.6g}", dg.found.front().second * dg.found.front().second),
              fmt::format("{:.6g}", dg.found.front().second))};
      break;
    case VariantKind::CacheShort: {
      const auto L = static_cast<long>(dg.found.front().second);
      const bool wraps = dg.found.size() > 1 && dg.found[1].second != 0;
      dg.message = {wraps
                        ? msg("matches a cos/sin cache of {0} positions read at p mod {1}: correct below position {2}, "
                              "wrong from it (the cache built for a shorter length and reused)",
                              L, L, L)
                        : msg("matches a cos/sin cache of {0} positions clamped to its last row: correct below "
                              "position {1}, every later position turned as {2} (the cache built for a shorter "
                              "length)",
                              L, L, L - 1)};
      break;
    }
    case VariantKind::PositionIdsIgnored: {
      const auto at = static_cast<long>(dg.found.front().second);
      dg.message = {
          msg("matches positions counted across the packed sequences (from {0}, one per index), without their "
              "restart at index {1}: position_ids are ignored (the kernel numbers the tokens by their index in the "
              "batch)",
              position_text(positions.front()), at)};
      break;
    }
    case VariantKind::HeadsSeqMixed:
      dg.message = {
          msg("matches each vector turned at the position of index (s·{0} + h) mod {1}: heads and sequence mixed by a "
              "reshape (view) where a transpose belongs",
              source.groups(), positions.size())};
      break;
    case VariantKind::MropeTForAll:
      dg.message = {msg("matches the t position on every axis: the M-RoPE kernel reads the t row for h and w too")};
      break;
    case VariantKind::MropeAxesShifted:
      dg.message = {dg.found.front().second == 1
                        ? msg("matches the axis slots shifted by one, (h, w, t) read for (t, h, w): the positions' "
                              "rows and the sections are out of step")
                        : msg("matches the axis slots shifted by two, (w, t, h) read for (t, h, w): the positions' "
                              "rows and the sections are out of step")};
      break;
    case VariantKind::MropeDeltaMissing:
      dg.message = {
          msg("matches the decode tokens at their sequence index, without rope_deltas {0}: the kernel drops the "
              "M-RoPE delta (positions index instead of index + rope_deltas)",
              fmt::format("{:g}", expected.rope_delta))};
      break;
    case VariantKind::MropeBatchRows:
      dg.message = {
          msg("matches position_ids [3, batch, seq] read as [batch, 3, seq]: each batch row takes its t, h and w from "
              "the flat rows 3b, 3b + 1, 3b + 2 of the {0} rows' positions (the batch and axis dimensions swapped)",
              expected.batch_rows)};
      break;
    case VariantKind::YarnTruncated:
      dg.message = {
          msg("matches YaRN's correction range rounded to whole pairs: the config says truncate: false, the code "
              "truncates anyway")};
      break;
    case VariantKind::NormScaled:
      name_norm(report);
      break;
    case VariantKind::OutputInterleaved:
      dg.message = {
          msg("the output is interleaved, as llama.cpp computes it: pair i is written back at channels (2i, 2i + 1), "
              "where HF's DeepSeek-V3 (apply_rotary_pos_emb_interleave) de-interleaves it to (i, i + {0}); q·k is the "
              "same. Check a llama.cpp dump with the model's GGUF file ({1}), or add {2}",
              r / 2, option_name("config") + " model.gguf", option_name("layout") + " interleaved")};
      break;
    case VariantKind::OutputDeinterleaved:
      dg.message = {msg(
          "the output is de-interleaved, as HF's DeepSeek-V3 computes it (apply_rotary_pos_emb_interleave): pair i, "
          "read at channels (2i, 2i + 1), is written at (i, i + {0}), where the spec (llama.cpp's order) writes it "
          "back in place; q·k is the same. Check an HF dump with the model's config.json or preset ({1}), "
          "without {2}",
          r / 2, option_name("model"), option_name("layout"))};
      break;
    case VariantKind::RotaryOffsetOther: {
      const int off = static_cast<int>(dg.found.front().second);
      dg.message = {
          msg("matches the {0} rotated channels at {1}–{2} (offset {3}) instead of {4}–{5}: the rotary part is taken "
              "from the wrong place in the head (DeepSeek's q = cat(q_nope, q_pe) rotates its last {0} channels, a "
              "partial rotary head its first {0})",
              r, off, off + r - 1, off, expected.rotary_offset, expected.rotary_offset + r - 1)};
      break;
    }
    case VariantKind::Expected:
    case VariantKind::PositionsRestart:
    case VariantKind::Bf16AsFloat32:
    case VariantKind::AnglesF16Overflow:
    case VariantKind::PassThroughChanged:
      break;
  }
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
  if (rows.size() < 2 || dg.matches != VariantKind::PositionsRestart || positions.empty()) return;
  if (dg.restarts.size() != rows.size() - 1) return;
  for (std::size_t k = 1; k < rows.size(); ++k) {
    if (dg.restarts[k - 1] != rows[k].start) return;
  }
  const std::string first = position_text(positions.front());
  dg.message =
      msg("every batch row matches the first row's positions (from {0}): the whole batch is rotated at one "
          "offset (batched decode with a position per row?)",
          first);
  for (SegmentCheck& row : checks.listed) {
    if (row.diagnosed()) row.report->diagnosis.message = msg("rotated at the first row's positions (from {0})", first);
  }
}

}  // namespace rope
