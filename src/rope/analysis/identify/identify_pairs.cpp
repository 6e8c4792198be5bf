// Steps 1–4 of identify.hpp: rotated channels, attention factor, pairing, per-pair frequencies.
#include <algorithm>
#include <functional>
#include <cmath>
#include <complex>
#include <fmt/format.h>
#include <numeric>

#include "rope/analysis/check/check.hpp"
#include "rope/analysis/identify/identify.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/io/csv.hpp"

namespace rope {

detail::FastMathBias detail::fast_math_bias(const Identification& id) {
  // rope check's angles-fast-math (variants/angles_fast_math.cpp) from identify's own measure: a fast unit takes the
  // float32 angle to revolutions t by fl32(1/2π), δ of itself short, so every θ_j measured falls short of the kernel's
  // float32 θ_j by δ of itself; a float32 product's rounding goes either way (its median 0). Pairs measured within
  // |δ|/8 (σ of θ_j over θ_j).
  const double delta = fast_math_shortfall();
  if (id.fit.family == Family::PerPair || id.fit.theta.size() != id.theta.size() || id.axes || id.grid) return {};
  const auto c32 = static_cast<float>(1.0 / kTwoPi);
  std::vector<double> short_by, truncated;  // v_j, and v_j − δ + ζ_j (a truncated product's residual)
  for (Eigen::Index j = 0; j < id.theta.size(); ++j) {
    const double measured = id.theta[j], ladder = static_cast<float>(id.fit.theta[j]);
    if (!(measured > 0 && ladder > 0 && id.theta_sigma[j] < std::abs(delta) / 8 * measured)) continue;
    // SASS's FMUL.RZ truncates t and loses half an ulp of it on average, π·ulp(t) of the angle: ζ_j is that loss's
    // least-squares slope against m·θ_j over the dump's positions, as θ_j is fitted (3·10⁻⁸ to 6·10⁻⁸ by t's binade).
    double lost = 0, mm = 0;
    for (const double m : id.dump_positions) {
      const auto t = static_cast<float>(std::abs(m * measured) * c32);
      lost += std::abs(m) * kPi * (std::nextafter(t, INFINITY) - t), mm += m * m;
    }
    short_by.push_back(measured / ladder - 1);
    truncated.push_back(mm > 0 ? short_by.back() - delta + lost / (measured * mm) : INFINITY);
  }
  // Where the kernel's float32 θ_j is fl32 of the ladder's, a pair's residual (v_j − δ rounded to nearest, v_j − δ +
  // ζ_j truncated) is 0, a float32 product's 0 − δ; a pair whose float32 θ_j is an ulp off (PyTorch's float32 power,
  // on up to half the pairs) is off by 6·10⁻⁸ or more, a base fitted a little off (static NTK's) or a bf16 table's
  // rounding spreads them apart. Each rounding's pairs are those whose residual lies within |δ|/4 of 0; the rounding
  // with more of them is the measured one, named where at least 8 pairs are and more than twice as many as within
  // |δ|/4 of 0 in v_j (a float32 product's); the bias is the median of v_j over them.
  std::vector<double> near_delta, near_truncated;
  long near_zero = 0;
  for (std::size_t k = 0; k < short_by.size(); ++k) {
    const double v = short_by[k];
    if (std::abs(v - delta) <= std::abs(delta) / 4) near_delta.push_back(v);
    if (std::abs(truncated[k]) <= std::abs(delta) / 4) near_truncated.push_back(v);
    if (std::abs(v) <= std::abs(delta) / 4) ++near_zero;
  }
  const bool rz = near_truncated.size() > near_delta.size();
  std::vector<double>& near = rz ? near_truncated : near_delta;
  if (near.size() < 8 || static_cast<long>(near.size()) <= 2 * near_zero) return {};
  std::sort(near.begin(), near.end());
  const std::size_t n = near.size();
  return {n % 2 ? near[n / 2] : (near[n / 2 - 1] + near[n / 2]) / 2, rz};
}
namespace {

/// Vectors used to find the pairing (spread over the dump): enough to see every pair move.
constexpr long kPairingSample = 256;

PairLayout classify(const std::vector<std::pair<int, int>>& pairs, const std::vector<int>& rotated, int d,
                    int& family_dim, bool& axis_blocks, int& offset, std::vector<Message>& notes) {
  const int r = static_cast<int>(rotated.size());
  family_dim = r;
  // The rotated channels one block [o, o + r): from channel 0 (o = 0, a partial rotary tail after it), or after
  // pass-through channels (DeepSeek's q = cat(q_nope, q_pe): o = qk_nope_head_dim).
  const int o = rotated.empty() ? 0 : rotated.front();
  bool block = true;
  for (int i = 0; i < r; ++i) block = block && rotated[i] == o + i;
  const bool prefix = block && o == 0;
  bool interleaved = true, half = true, whole_half = true, blocks = r % 4 == 0 && r >= 4;
  for (std::size_t j = 0; j < pairs.size(); ++j) {
    const auto [a, b] = pairs[j];
    interleaved = interleaved && a == o + 2 * static_cast<int>(j) && b == a + 1;
    half = half && a == o + static_cast<int>(j) && b == a + r / 2;
    whole_half = whole_half && a == static_cast<int>(j) && b == a + d / 2;
    if (blocks) {  // (V6): rotate_half inside each axis's block (interleaved inside the blocks is plain interleaved)
      const PairChannels c = axis_block_pair_channels(r, static_cast<int>(j), Layout::Half);
      blocks = a == c.first && b == c.second;
    }
  }
  if (block && (interleaved || half)) {
    offset = o;
    return interleaved ? PairLayout::Interleaved : PairLayout::Half;
  }
  if (prefix && blocks && static_cast<int>(pairs.size()) == r / 2) {
    axis_blocks = true;
    return PairLayout::Half;
  }
  if (whole_half) {
    family_dim = d;
    notes.push_back(
        {msg("pairs (j, j + {0}) over the whole head: pairs {1} to {2} keep frequency 0 (proportional "
             "RoPE, or partial rotary in the half layout of the whole head)",
             d / 2, pairs.size(), d / 2 - 1)});
    return PairLayout::Half;
  }
  return PairLayout::Other;
}

/// "3, 7–9, 12": increasing pair indices, runs joined.
std::string pair_ranges(const std::vector<int>& js) {
  std::string out;
  for (std::size_t k = 0; k < js.size();) {
    std::size_t e = k;
    while (e + 1 < js.size() && js[e + 1] == js[e] + 1) ++e;
    out += (out.empty() ? "" : ", ") + (e > k ? fmt::format("{}–{}", js[k], js[e]) : std::to_string(js[k]));
    k = e + 1;
  }
  return out;
}

}  // namespace

namespace {

/// The checks both forms share; the indices whose position is not 0.
std::vector<bool> moving_indices(const DumpVectors& before, const DumpVectors& after, std::size_t count,
                                 const std::function<bool(std::size_t)>& nonzero) {
  if (before.seq != after.seq || before.groups() != after.groups() || before.d != after.d) {
    throw InvalidArgument(error_msg("the dumps before and after differ in shape"));
  }
  if (static_cast<long>(count) != before.seq) {
    throw InvalidArgument(error_msg("{0} positions for a dump of {1} sequence positions", count, before.seq));
  }
  std::vector<bool> moving(count);
  for (std::size_t s = 0; s < count; ++s) moving[s] = nonzero(s);
  if (std::none_of(moving.begin(), moving.end(), [](bool m) { return m; })) {
    throw InvalidArgument(error_msg("every position is 0, where RoPE is the identity: nothing can be identified"));
  }
  return moving;
}

}  // namespace

namespace {

/// The largest |‖y‖ − a‖x‖| / ‖x‖ over the vectors `sample` of the pairs `layout` makes of the rotated channels (a
/// block of an even count: pairs (o + j, o + j + r/2) or (o + 2j, o + 2j + 1)); infinity when they are no such block.
double layout_norm_residual(const DumpVectors& before, const DumpVectors& after, const std::vector<int>& rotated,
                            PairLayout layout, double a, const std::vector<long>& sample) {
  const int r = static_cast<int>(rotated.size());
  if (r < 2 || r % 2 != 0 || rotated.back() - rotated.front() != r - 1) return INFINITY;
  const int o = rotated.front(), d = before.d;
  double worst = 0;
  for (const long v : sample) {
    const double* x = before.values.data() + v * d;
    const double* y = after.values.data() + v * d;
    for (int j = 0; j < r / 2; ++j) {
      const int ca = layout == PairLayout::Half ? o + j : o + 2 * j,
                cb = layout == PairLayout::Half ? ca + r / 2 : ca + 1;
      const double nx = std::hypot(x[ca], x[cb]), ny = std::hypot(y[ca], y[cb]);
      if (nx > 0) worst = std::max(worst, std::abs(ny - a * nx) / nx);
    }
  }
  return worst;
}

/// The vectors of a de-interleaved output read back in place: channel j to 2j, channel j + d/2 to 2j + 1.
DumpVectors reinterleaved(const DumpVectors& after) {
  DumpVectors out = after;
  const int h = after.d / 2;
  for (long v = 0; v < after.seq * after.groups(); ++v) {
    const double* y = after.values.data() + v * after.d;
    double* z = out.values.data() + v * after.d;
    for (int j = 0; j < h; ++j) z[2 * j] = y[j], z[2 * j + 1] = y[j + h];
  }
  return out;
}

}  // namespace

void require_identify_dim(int d) {
  if (d > kMaxIdentifyDim) {
    throw InvalidArgument(
        error_msg("the head dimension d = {0} is above the {1} rope identify pairs up", d, kMaxIdentifyDim));
  }
}

Identification identify_rope(const DumpVectors& before, const DumpVectors& after,
                             const std::vector<double>& positions) {
  // Values that are not finite numbers after RoPE (m·θ overflowing float16 from 65520 on: gpt-oss) carry no angle:
  // refused, naming where they start, as rope check names them (angles-f16-overflow).
  const long groups = after.groups();
  for (std::size_t k = 0; k < after.values.size() && static_cast<long>(positions.size()) == after.seq; ++k) {
    if (std::isfinite(after.values[k])) continue;
    const long s = static_cast<long>(k) / (groups * after.d);
    throw InvalidArgument(error_msg(
        "{0}: the element at position {1}, sequence index {2} is {3}: identify reads angles from finite numbers only "
        "(rope check names where they come from)",
        option_name("after"), format_number(positions[static_cast<std::size_t>(s)]), s,
        std::isnan(after.values[k]) ? "NaN"
        : after.values[k] > 0       ? "+inf"
                                    : "-inf"));
  }
  const auto identify_as = [&](const DumpVectors& out) {
    const std::vector<bool> moving =
        moving_indices(before, out, positions.size(), [&](std::size_t s) { return positions[s] != 0; });
    return detail::identify_with(before, out, moving, [&](Identification& id) {
      detail::measure_frequencies(before, out, positions, id);
      detail::find_group_offsets(before, out, id);  // heads turned at positions of their own
    });
  };
  // FoPE's signature (identify_fope.cpp): the padded pairs at the end of the head, the others scaled rotations whose
  // norms are not one number, shared by the heads of a key-value head; no rotation of pairs to measure then.
  if (std::optional<Identification> fope = detail::identify_fope(before, after)) return std::move(*fope);
  Identification id = identify_as(after);
  if (id.layout != PairLayout::None || after.d < 4 || after.d % 2 != 0) return id;
  // No pairing keeps norms in place: the output may be de-interleaved, pair j read at (2j, 2j + 1) and written at
  // (j, j + d/2), as Hugging Face's DeepSeek-V3 returns it (modeling_deepseek_v3.py apply_rotary_pos_emb_interleave),
  // the same RoPE as llama.cpp's interleaved pairs in place (rope check's output-deinterleaved). Read back in place.
  Identification in_place = identify_as(reinterleaved(after));
  if (in_place.layout != PairLayout::Interleaved || in_place.rotary_offset != 0) return id;
  in_place.output_deinterleaved = true;
  in_place.notes.push_back(
      {msg("the output is de-interleaved: pair j is read at channels (2j, 2j + 1) and written at (j, j + {0}), as "
           "Hugging Face's DeepSeek-V3 returns it; the pairs above are the output read back in place, interleaved as "
           "llama.cpp writes them (the same RoPE: q·k does not change)",
           after.d / 2)});
  return in_place;
}

Identification identify_rope(const DumpVectors& before, const DumpVectors& after,
                             const std::vector<AxisPosition>& positions) {
  if (!positions.empty() && !positions.front().multi()) {
    std::vector<double> single;
    for (const AxisPosition& p : positions) single.push_back(p.value[0]);
    Identification id = identify_rope(before, after, single);
    if (id.layout != PairLayout::None) detail::match_per_frequency_one_axis(id, positions);  // LTX-2's audio stream
    return id;
  }
  const std::vector<bool> moving =
      moving_indices(before, after, positions.size(), [&](std::size_t s) { return positions[s].max_abs() != 0; });
  Identification id = detail::identify_with(before, after, moving, [&](Identification& id) {
    detail::measure_axis_frequencies(before, after, positions, id);
  });
  if (!positions.empty() && positions.front().count == 2) detail::match_vision(id);  // (row, column): a vision tower
  if (!positions.empty() && positions.front().count == 3) detail::match_grid(id);    // (t, h, w): a latent grid?
  if (!positions.empty() && positions.front().count == 3 && !id.grid)
    detail::match_per_frequency(id, positions);  // LTX's
  if (!positions.empty() && positions.front().count == 3 && !id.grid) detail::match_mrope_presets(id);
  // Four streams: HunyuanVL's XD-RoPE (p, w, h, t), HF's map or Tencent's.
  if (!positions.empty() && positions.front().count == 4) detail::identify_xdrope(before, after, positions, moving, id);
  if (!positions.empty() && positions.front().count == 4 && !id.xdrope) detail::match_grid(id);  // Flux.2's 4 axes
  return id;
}

Identification detail::identify_with(const DumpVectors& before, const DumpVectors& after,
                                     const std::vector<bool>& moving_at,
                                     const std::function<void(Identification&)>& measure,
                                     const std::vector<std::pair<int, int>>* assumed_pairs) {
  Identification id;
  const int d = before.d;
  require_identify_dim(d);
  id.d = d;
  const long vectors = before.seq * before.groups();
  DType dtype = epsilon(after.dtype) > epsilon(before.dtype) ? after.dtype : before.dtype;
  if (dtype == DType::F32 && !before.dtype_stated && !after.dtype_stated && looks_like_bf16(before) &&
      looks_like_bf16(after)) {
    dtype = DType::BF16;  // a bf16 model's tensors saved with .float(): their rounding is bf16's
    id.notes.push_back({msg("every value is a bf16 number saved as float32: identified with bf16's rounding")});
  }
  const double eps = kToleranceSafety * epsilon(dtype);
  id.rounding = eps;
  // 1. Rotated channels.
  std::vector<char> moved(static_cast<std::size_t>(d), 0);
  for (long v = 0; v < vectors; ++v) {
    const double* x = before.values.data() + v * d;
    const double* y = after.values.data() + v * d;
    for (int c = 0; c < d; ++c) {
      if (std::abs(y[c] - x[c]) > eps * std::max(std::abs(x[c]), std::abs(y[c]))) moved[c] = 1;
    }
  }
  for (int c = 0; c < d; ++c) {
    if (moved[c]) id.rotated.push_back(c);
  }
  id.rotary_dim = static_cast<int>(id.rotated.size());
  if (id.rotated.empty()) {
    id.notes.push_back({msg("no channel changes: the dump after equals the dump before")});
    return id;
  }
  // 2. Attention factor.
  double sx = 0, sy = 0;
  for (long v = 0; v < vectors; ++v) {
    for (const int c : id.rotated) {
      const double x = before.values[static_cast<std::size_t>(v * d + c)],
                   y = after.values[static_cast<std::size_t>(v * d + c)];
      sx += x * x, sy += y * y;
    }
  }
  id.attention_factor = sx > 0 ? std::sqrt(sy / sx) : 1.0;
  // 3. Pairing, on a sample of the vectors at non-zero positions.
  std::vector<long> sample;
  {
    std::vector<long> moving;
    for (long s = 0; s < before.seq; ++s) {
      if (moving_at[static_cast<std::size_t>(s)]) moving.push_back(s);
    }
    const long per = std::max(1L, static_cast<long>(moving.size()) * before.groups() / kPairingSample);
    for (long k = 0; k < static_cast<long>(moving.size()) * before.groups(); k += per) {
      sample.push_back(moving[static_cast<std::size_t>(k / before.groups())] * before.groups() + k % before.groups());
    }
  }
  int r = id.rotary_dim;
  // The partner of each rotated channel over the sampled vectors; empty unless every partner is mutual.
  const auto pair_up = [&](const std::vector<long>& vs) {
    return detail::pair_channels(detail::pairing_costs(before, after, id.attention_factor, vs), id.rotated).pairs;
  };
  {
    const Eigen::MatrixXd cost = detail::pairing_costs(before, after, id.attention_factor, sample);
    const detail::Pairing found = detail::pair_channels(cost, id.rotated);
    if (found.pairs.empty() || found.confident.size() < found.pairs.size()) {
      // Rounding hides the partners of the slowest pairs (a short 16-bit dump): the layout the sure pairs follow,
      // if every pair of it keeps its norm within the dump's rounding.
      const double bound = eps * eps;
      if (auto by_layout = detail::pair_by_layout(cost, id.rotated, d, found.confident, bound)) {
        id.pairs = std::move(by_layout->pairs);
        id.pairing_assumed = std::move(by_layout->unresolved);
        id.rotated.clear();
        for (const auto& [a, b] : id.pairs) id.rotated.push_back(a), id.rotated.push_back(b);
        std::sort(id.rotated.begin(), id.rotated.end());
        r = id.rotary_dim = static_cast<int>(id.rotated.size());
      }
    }
    if (id.pairs.empty()) id.pairs = found.pairs;
  }
  if (id.pairs.empty() && r % 2 == 0 && before.groups() > 1) {
    // Heads in different layouts (a q/k permutation wrong on some heads): each head paired on its own.
    for (long g = 0; g < before.groups(); ++g) {
      std::vector<long> own;
      for (long s = 0; s < before.seq; s += std::max(1L, before.seq / 64)) {
        if (moving_at[static_cast<std::size_t>(s)]) own.push_back(s * before.groups() + g);
      }
      id.group_pairs.push_back(pair_up(own));
      if (id.group_pairs.back().empty()) {
        id.group_pairs.clear();
        break;
      }
    }
    if (!id.group_pairs.empty()) {
      // The pairing of most heads is the dump's; the heads paired otherwise are listed.
      std::vector<long> count(id.group_pairs.size(), 0);
      for (std::size_t g = 0; g < count.size(); ++g) {
        for (const auto& other : id.group_pairs) count[g] += other == id.group_pairs[g];
      }
      const auto most = static_cast<std::size_t>(std::max_element(count.begin(), count.end()) - count.begin());
      id.pairs = id.group_pairs[most];
      std::vector<long> others;
      for (std::size_t g = 0; g < count.size(); ++g) {
        if (id.group_pairs[g] != id.pairs) others.push_back(static_cast<long>(g));
      }
      id.heads_paired_otherwise = others;
      if (others.empty()) id.group_pairs.clear();  // every head alike after all
    }
  }
  if (id.pairs.empty() && assumed_pairs) id.pairs = *assumed_pairs;  // a map known to break norms (HF's XD-RoPE)
  if (id.pairs.empty()) {
    id.layout = PairLayout::None;
    // The pairing is sought as one turn per sequence index; whether the pairs of a layout keep their norms is a
    // question of its own, asked before anything is said of norms.
    const double bound = std::sqrt(eps);
    for (const PairLayout layout : {PairLayout::Half, PairLayout::Interleaved}) {
      const double worst = layout_norm_residual(before, after, id.rotated, layout, id.attention_factor, sample);
      if (worst <= bound) {
        id.norms_kept_by = layout;
        id.norm_residual = worst;
        break;
      }
    }
    // No rotation mixes channels where every rotated channel is its input times a factor of its own per sequence index,
    // the same for every group (least squares over the groups, the misfit within the dump's rounding: (8·ε)² of the
    // squares) and within [−1, 1]: x·cos alone, the sin term dropped (rope check's sin-dropped).
    if (!id.norms_kept_by && before.groups() > 1 && !id.rotated.empty()) {
      bool scaled = true, some = false;
      for (long s = 0; s < before.seq && scaled; ++s) {
        for (const int c : id.rotated) {
          double xy = 0, xx = 0, yy = 0;
          for (long g = 0; g < before.groups(); ++g) {
            const double x = before.value(s, g, c), y = after.value(s, g, c);
            xy += x * y, xx += x * x, yy += y * y;
          }
          if (xx == 0) continue;
          const double k = xy / xx, misfit = std::max(0.0, yy - k * xy);
          if (misfit > 64 * eps * eps * (xx + yy) || std::abs(k) > 1 + 8 * eps) {
            scaled = false;
            break;
          }
          some = some || std::abs(k - 1) > 8 * eps;
        }
      }
      id.channels_scaled = scaled && some;
    }
    id.notes.push_back(
        id.channels_scaled
            ? msg("no pairing: each changed channel is its input times a factor of its own at each sequence index, the "
                  "same for every head and within [−1, 1], no channel mixed with another: x·cos alone, the sin term "
                  "dropped (rope check names it sin-dropped)")
        : id.norms_kept_by
            ? msg("no pairing turns the vectors of a sequence index alike, though the {0} pairs keep every norm "
                  "within {1:.2g}: the vectors of one sequence index are turned by different angles (are the axes "
                  "right?)",
                  to_string(*id.norms_kept_by), id.norm_residual)
            : msg("no pairing of the rotated channels keeps every pair's norm: this is not a rotation of pairs"));
    if (!id.channels_scaled && !id.norms_kept_by) {
      // What one tensor cannot tell: values taken from another tensor break the norms as this does, and only a check
      // given both names that.
      id.notes.push_back(
          msg("identify reads this one tensor: values taken from another one (q's and k's halves crossed in a fused "
              "q/k kernel) break the pairs' norms as these do, and only rope check given both tensors ({0}, {1}) "
              "can name that",
              option_name("k-before"), option_name("k-after")));
    }
    return id;
  }
  int family_dim = r;
  const std::size_t zero_note = id.notes.size();  // where classify says that pairs keep frequency 0
  id.layout = classify(id.pairs, id.rotated, d, family_dim, id.axis_blocks, id.rotary_offset, id.notes);
  id.family_dim = family_dim;
  if (id.pairing_assumed.size() == 1) {
    id.notes.push_back(
        msg("pair {0} turns too little at these positions for its partner to show above the dump's rounding: it "
            "is paired as the others ({1}), and its θ is uncertain",
            id.pairing_assumed.front(), to_string(id.layout)));
  } else if (!id.pairing_assumed.empty()) {
    id.notes.push_back(
        msg("pairs {0} turn too little at these positions for their partners to show above the dump's rounding: "
            "they are paired as the others ({1}), and their θ is uncertain",
            pair_ranges(id.pairing_assumed), to_string(id.layout)));
  }
  if (!id.heads_paired_otherwise.empty()) {
    std::vector<Message> ignored;
    int dim = r;
    bool blocks = false;
    int offset = 0;
    const PairLayout other = classify(id.group_pairs[static_cast<std::size_t>(id.heads_paired_otherwise.front())],
                                      id.rotated, d, dim, blocks, offset, ignored);
    std::string heads;
    for (std::size_t k = 0; k < id.heads_paired_otherwise.size() && k < 12; ++k)
      heads += (k ? ", " : "") + std::to_string(id.heads_paired_otherwise[k]);
    if (id.heads_paired_otherwise.size() > 12) heads += ", …";
    id.notes.push_back(
        msg("heads {0} pair their channels as {1} while the others pair as {2}: the q/k permutation is wrong on "
            "some heads (GQA: permuted with the wrong number of heads?)",
            heads, to_string(other), to_string(id.layout)));
  }
  const auto pairs_of = [&](long v) -> const std::vector<std::pair<int, int>>& {
    return id.group_pairs.empty() ? id.pairs : id.group_pairs[static_cast<std::size_t>(v % before.groups())];
  };
  // Each vector's largest departure of a pair's norm from a_v, the median over the vectors of each one's own
  // attention factor (a vector with some elements departed moves the factor of them all: not this one); the vectors
  // beyond 4× the dump's rounding, when they are at most a quarter of them, are left out of the fit (identify.hpp,
  // left_out): some of their elements departed, which a rotation at another position or frequency would not do. The
  // attention factor is then that of the others.
  std::vector<double> own(static_cast<std::size_t>(vectors), 0.0);
  for (long v = 0; v < vectors; ++v) {
    double vx = 0, vy = 0;
    for (const int c : id.rotated) {
      const double x = before.values[static_cast<std::size_t>(v * d + c)],
                   y = after.values[static_cast<std::size_t>(v * d + c)];
      vx += x * x, vy += y * y;
    }
    own[static_cast<std::size_t>(v)] = vx > 0 ? std::sqrt(vy / vx) : id.attention_factor;
  }
  std::nth_element(own.begin(), own.begin() + vectors / 2, own.end());
  const double a_v = own[static_cast<std::size_t>(vectors / 2)];
  std::vector<double> worst(static_cast<std::size_t>(vectors), 0.0), against_a(worst);
  long departing = 0;
  for (long v = 0; v < vectors; ++v) {
    const double* x = before.values.data() + v * d;
    const double* y = after.values.data() + v * d;
    double &w = worst[static_cast<std::size_t>(v)], &wa = against_a[static_cast<std::size_t>(v)];
    for (const auto& [a, b] : pairs_of(v)) {
      const double nx = std::hypot(x[a], x[b]), ny = std::hypot(y[a], y[b]);
      if (nx > 0)
        w = std::max(w, std::abs(ny - a_v * nx) / nx), wa = std::max(wa, std::abs(ny - id.attention_factor * nx) / nx);
    }
    departing += w > 4 * eps;
  }
  if (departing > 0 && 4 * departing <= vectors) {
    id.left_out.assign(static_cast<std::size_t>(vectors), 0);
    double kx = 0, ky = 0;
    for (long v = 0; v < vectors; ++v) {
      id.left_out[static_cast<std::size_t>(v)] = worst[static_cast<std::size_t>(v)] > 4 * eps;
      if (id.left_out[static_cast<std::size_t>(v)]) continue;
      id.norm_residual = std::max(id.norm_residual, worst[static_cast<std::size_t>(v)]);
      for (const int c : id.rotated) {
        const double x = before.values[static_cast<std::size_t>(v * d + c)],
                     y = after.values[static_cast<std::size_t>(v * d + c)];
        kx += x * x, ky += y * y;
      }
    }
    if (kx > 0) id.attention_factor = std::sqrt(ky / kx);
  } else {
    for (const double w : against_a) id.norm_residual = std::max(id.norm_residual, w);
  }
  // 4. Frequencies (identify_theta.cpp).
  measure(id);
  const int n = static_cast<int>(id.pairs.size());
  // 5. Family, over the pairs of the family's dimension (zero-frequency pairs of a proportional head added).
  const Eigen::VectorXd measured = id.theta.cwiseAbs();
  Eigen::VectorXd sigma_ln(n);
  for (int j = 0; j < n; ++j) sigma_ln[j] = measured[j] > 0 ? id.theta_sigma[j] / measured[j] : INFINITY;
  if (family_dim != r) {  // proportional: fit only the rotated pairs, over the whole head's ladder
    id.fits = detail::fit_families(measured, sigma_ln, id.notes);
    for (FamilyFit& f : id.fits) {  // the ladder of the whole head: base^(−2j/d)
      f.base = std::pow(f.base, static_cast<double>(family_dim) / (2.0 * n));
      f.theta = family_theta(f, family_dim / 2).head(n);
    }
  } else {
    id.fits = detail::fit_families(measured, sigma_ln, id.notes);
  }
  if (id.fits.front().family == Family::PerPair && n >= 2 && std::abs(measured[0] - 2) < 0.02 &&
      std::abs(id.attention_factor - 1) > 1e-3) {
    // θ_0 = 2 and a magnitude: RoPE applied twice (TensorRT-LLM PR #16378), every pair turned by 2·m·θ_j and the
    // factor squared. A family that explains half the frequencies is the answer, said so (rope check's
    // rope-applied-twice). Without a magnitude the dump is one turned at positions 2m, as check reads it too.
    std::vector<Message> halved_notes;
    std::vector<FamilyFit> halved = detail::fit_families(measured / 2, sigma_ln, halved_notes);
    if (halved.front().family != Family::PerPair) {
      for (FamilyFit& f : halved) f.theta *= 2;  // the fitted column beside the measured one
      id.fits = std::move(halved);
      id.notes.erase(
          std::remove_if(id.notes.begin(), id.notes.end(),
                         [](const Message& m) { return m.en.rfind("no family explains the frequencies", 0) == 0; }),
          id.notes.end());
      id.notes.insert(id.notes.end(), halved_notes.begin(), halved_notes.end());
      id.applied_twice = true;
      id.notes.push_back(
          msg("RoPE applied twice: θ_0 = 2 and every frequency is twice {0}'s, the attention factor "
              "{1} = {2}²: every pair turned by 2·m·θ_j and the magnitude applied twice (rope check "
              "names it rope-applied-twice)",
              to_string(id.fits.front().family), fmt::format("{:.4g}", id.attention_factor),
              fmt::format("{:.4g}", std::sqrt(id.attention_factor))));
    }
  }
  id.fit = id.fits.front();
  {
    // Pairs whose phases no frequency fits (an angle RMS above 0.5 rad where a dump's rounding leaves hundredths):
    // their angles are not m·θ of one θ. In a 16-bit dump, angles computed in its type err by 2⁻⁹ (bf16) or 2⁻¹²
    // (f16) of m·θ, beyond π from m·θ = 1608 (bf16): rope check compares those angles (angles-bf16, angles-f16).
    std::vector<int> unfit;
    for (int j = 0; j < n; ++j) {
      if (id.angle_residual[j] > 0.5) unfit.push_back(j);
    }
    if (!unfit.empty()) {
      id.notes.push_back(
          dtype == DType::BF16 || dtype == DType::F16
              ? msg("pairs {0} fit no frequency (angle RMS above 0.5 rad): their angles are not m·θ of one θ; "
                    "angles computed in {1} err by {2} of m·θ, more than π at these positions? rope check compares "
                    "the angles computed in bf16 and f16 (angles-bf16, angles-f16), which one tensor's phases cannot "
                    "tell from another frequency",
                    pair_ranges(unfit), to_string(dtype), dtype == DType::BF16 ? "2⁻⁹" : "2⁻¹²")
              : msg("pairs {0} fit no frequency (angle RMS above 0.5 rad): their angles are not m·θ of one θ",
                    pair_ranges(unfit)));
    }
  }
  if (!id.left_out.empty() && id.dump_positions.size() == static_cast<std::size_t>(before.seq)) {
    // The left-out vectors element by element against the rotation identified: each element off its pair's rotation
    // at the dump's position by more than 4× the dump's rounding, 4× the pair's angle residual over the vectors kept
    // (the kernel's own angle rounding, float32's at large m·θ) and 3σ of θ_j times |m|.
    Identification::Departed dep;
    std::vector<char> channel(static_cast<std::size_t>(d), 0), group(static_cast<std::size_t>(before.groups()), 0);
    for (long v = 0; v < vectors; ++v) {
      if (!id.left_out[static_cast<std::size_t>(v)]) continue;
      const long s = v / before.groups(), g = v % before.groups();
      const double m = id.dump_positions[static_cast<std::size_t>(s)];
      const double* x = before.values.data() + v * d;
      const double* y = after.values.data() + v * d;
      bool any = false;
      for (std::size_t j = 0; j < pairs_of(v).size(); ++j) {
        const auto [a, b] = pairs_of(v)[j];
        const std::complex<double> z(x[a], x[b]);
        const std::complex<double> w = id.attention_factor * z * std::polar(1.0, id.theta[static_cast<long>(j)] * m);
        const double tol = id.attention_factor * std::abs(z) *
                           (4 * eps + 4 * id.angle_residual[static_cast<long>(j)] +
                            3 * id.theta_sigma[static_cast<long>(j)] * std::abs(m));
        for (const auto& [c, want] : {std::pair<int, double>{a, w.real()}, std::pair<int, double>{b, w.imag()}}) {
          if (!(std::abs(y[c] - want) > tol)) continue;
          ++dep.elements, dep.kept_input += y[c] == x[c], any = true;
          channel[static_cast<std::size_t>(c)] = 1, group[static_cast<std::size_t>(g)] = 1;
        }
      }
      if (any && (dep.indices.empty() || dep.indices.back() != s)) dep.indices.push_back(s);
    }
    if (dep.elements > 0) {
      const auto first = std::find(channel.begin(), channel.end(), 1);
      dep.channel = static_cast<int>(first - channel.begin());
      dep.channel_last = static_cast<int>(channel.rend() - std::find(channel.rbegin(), channel.rend(), 1)) - 1;
      dep.channels = std::count(channel.begin(), channel.end(), 1);
      dep.groups = std::count(group.begin(), group.end(), 1);
      id.departed = std::move(dep);
    }
  }
  const detail::FastMathBias fast = detail::fast_math_bias(id);
  id.fast_math_bias = fast.bias;
  id.fast_math_toward_zero = fast.toward_zero;
  double span = 0;  // the largest |position| of the dump (empty with positions per axis)
  for (const double m : id.dump_positions) span = std::max(span, std::abs(m));
  if (id.layout == PairLayout::Interleaved && r < d && id.rotary_offset == 0 && !id.dump_positions.empty()) {
    // An unmoved tail in the interleaved layout: partial rotary, or the whole head's ladder too slow to show there?
    const double turn = span / id.fit.base;  // pair r/2 on the ladder found, continued past the rotated channels
    if (turn < eps) {
      id.notes.push_back(
          msg("channels {0}–{1} do not move: rotary_dim {0} with base {2}, or all {3} channels with base {4}, whose "
              "pairs {5}–{6} would turn by at most {7:.2g} rad at these positions, below the dump's rounding: the "
              "positions cannot tell them apart",
              r, d - 1, fmt::format("{:.6g}", id.fit.base), d,
              fmt::format("{:.6g}", std::pow(id.fit.base, static_cast<double>(d) / r)), r / 2, d / 2 - 1, turn));
    }
  }
  if (family_dim != r && !id.dump_positions.empty()) {
    // Pairs that do not move: frequency 0, or the ladder's own frequencies too low for these positions to show?
    const double turn = family_theta(id.fit, family_dim / 2)[n] * span;
    if (turn < eps) {
      std::vector<int> still(static_cast<std::size_t>(family_dim / 2 - n));
      std::iota(still.begin(), still.end(), n);
      id.notes[zero_note] =
          still.size() == 1
              ? msg("pair {0} does not move: with the ladder found it would turn by at most {1:.2g} rad at these positions, below "
                    "the dump's rounding, so the positions cannot tell frequency 0 (proportional RoPE, partial rotary) from the "
                    "ladder's low frequencies",
                    still.front(), turn)
              : msg("pairs {0} do not move: with the ladder found they would turn by at most {1:.2g} rad at these positions, "
                    "below the dump's rounding, so the positions cannot tell frequency 0 (proportional RoPE, partial rotary) from "
                    "the ladder's low frequencies",
                    pair_ranges(still), turn);
    }
  }
  if (id.fit.family == Family::Yarn && std::abs(id.attention_factor - (0.1 * std::log(id.fit.factor) + 1)) < 2e-3) {
    id.notes.push_back({msg("the attention factor {0:.4f} is YaRN's default 0.1·ln f + 1 for f = {1:.4g}",
                            id.attention_factor, id.fit.factor)});
  }
  return id;
}

}  // namespace rope
