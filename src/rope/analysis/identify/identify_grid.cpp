// Step 5 of identify.hpp for a dump with a (t, h, w) position per token whose pairs read the axes in blocks: a
// diffusion transformer's latent grid (models/grid_rope.hpp (G1), (G2)), each axis its own ladder base^(−2k/d_a) over
// its own width d_a, where M-RoPE's chunked map (A2) keeps one ladder over the head. The widths are the measured
// axes' blocks; the base is fitted to every pair; the presets rope knows with the same widths, layout and
// frequencies are named as the families that fit (Flux.1 and Qwen-Image share them).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "rope/analysis/check/check_table.hpp"
#include "rope/analysis/identify/identify.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/io/csv.hpp"
#include "rope/models/grid_rope.hpp"
#include "rope/models/presets.hpp"
#include "rope/models/resolve.hpp"
#include "rope/models/rope_spec.hpp"

namespace rope {
namespace {

/// The weight of pair j's ln θ in a fit: 1/σ² of ln θ_j, floored as fit_families and match_vision floor it; 0 for a
/// pair that does not turn forward.
double weight(const Identification& id, int j) {
  if (!(id.theta[j] > 0)) return 0.0;
  const double sigma = std::max(id.theta_sigma[j] / id.theta[j], 1e-6);
  return 1 / (sigma * sigma);
}

/// The weighted RMS of ln θ_measured − ln θ_fit.
double residual_of(const Identification& id, const Eigen::VectorXd& fit) {
  double rss = 0, ws = 0;
  for (Eigen::Index j = 0; j < id.theta.size(); ++j) {
    const double w = weight(id, static_cast<int>(j));
    if (w == 0 || !(fit[j] > 0)) continue;
    const double r = std::log(id.theta[j]) - std::log(fit[j]);
    rss += w * r * r, ws += w;
  }
  return ws > 0 ? std::sqrt(rss / ws) : std::numeric_limits<double>::infinity();
}

}  // namespace

void detail::match_grid(Identification& id) {
  const int n = static_cast<int>(id.pairs.size());
  // Every channel accounted for: a block of rotated pairs up to the last channel, or followed by channels that do not
  // change where the block's last pair already turns too little to show its partner (a 16-bit dump at a large base:
  // the last axis's slowest pairs, slower still, turn by less than the dump's rounding).
  const int after_block = id.d - id.rotary_offset - id.rotary_dim;
  const auto too_little = [&id](int j) {
    return std::find(id.pairing_assumed.begin(), id.pairing_assumed.end(), j) != id.pairing_assumed.end() ||
           std::find(id.undetermined.begin(), id.undetermined.end(), j) != id.undetermined.end();
  };
  if (!id.axes || n == 0 || static_cast<int>(id.theta.size()) != n ||
      static_cast<int>(id.axes->pair_axis.size()) != n || after_block < 0 || after_block % 2 != 0 ||
      (after_block > 0 && !too_little(n - 1)))
    return;
  const int trail = after_block / 2;  // the last axis's unmeasured slowest pairs
  // The pairs must read the axes in blocks, in order (Flux.2's four axes too, which no M-RoPE map takes). A block's
  // slowest pairs may turn too little for the positions to tell their axis (a small bf16 grid): those after a known
  // pair are taken as its block, the one they end.
  std::vector<int> pair_axis = id.axes->pair_axis;
  std::vector<long> assumed;
  if (pair_axis.front() < 0) return;
  for (std::size_t j = 1; j < pair_axis.size(); ++j) {
    if (pair_axis[j] < 0) pair_axis[j] = pair_axis[j - 1], assumed.push_back(static_cast<long>(j));
  }
  const int K = pair_axis.back() + 1;
  if ((K != 3 && K != 4) || !std::is_sorted(pair_axis.begin(), pair_axis.end())) return;
  std::vector<int> sections(static_cast<std::size_t>(K), 0);
  for (const int a : pair_axis) ++sections[static_cast<std::size_t>(a)];
  if (std::find(sections.begin() + 1, sections.end(), 0) != sections.end()) return;  // every axis but t has pairs
  // Flux's t pairs never turn when every token's t is 0 (an image's latent, its text ids): the unrotated channels
  // before the rotated block are then the t block, its pairs unmeasured.
  const int lead = sections[0] == 0 && id.rotary_offset > 0 && id.rotary_offset % 2 == 0 ? id.rotary_offset / 2 : 0;
  sections[0] += lead;
  sections.back() += trail;
  // The exponent of measured pair j in its axis's ladder: θ_j = base_a^(−k/n_a), k its index in the axis's block of
  // n_a pairs (the lead and trailing pairs unmeasured), a its axis.
  Eigen::VectorXd x(n);
  std::vector<int> axis_of(static_cast<std::size_t>(n));
  std::vector<int> widths;
  for (int a = 0, j = 0; a < K; ++a) {
    widths.push_back(2 * sections[static_cast<std::size_t>(a)]);
    const int measured = sections[static_cast<std::size_t>(a)] - (a == K - 1 ? trail : 0);
    for (int k = a == 0 ? lead : 0; k < measured; ++k, ++j) {
      x[j] = static_cast<double>(k) / sections[static_cast<std::size_t>(a)];
      axis_of[static_cast<std::size_t>(j)] = a;
    }
  }
  // ln θ_j = −x_j·ln base: least squares through the origin, weighted; one base for every axis (or per axis).
  const auto fit = [&](int only) {
    double sxy = 0, sxx = 0;
    for (int j = 0; j < n; ++j) {
      const double w = weight(id, j);
      if (w > 0 && (only < 0 || axis_of[static_cast<std::size_t>(j)] == only))
        sxy += w * x[j] * -std::log(id.theta[j]), sxx += w * x[j] * x[j];
    }
    return sxx > 0 ? std::exp(sxy / sxx) : std::numeric_limits<double>::quiet_NaN();
  };
  const auto ladders = [&](const std::vector<double>& bases) {
    Eigen::VectorXd theta(n);
    for (int j = 0; j < n; ++j)
      theta[j] = std::pow(bases[static_cast<std::size_t>(axis_of[static_cast<std::size_t>(j)])], -x[j]);
    return theta;
  };
  Identification::GridMatch g;
  g.widths = widths;
  g.base = fit(-1);
  g.bases.assign(static_cast<std::size_t>(K), g.base);
  g.theta = ladders(g.bases);
  g.residual = residual_of(id, g.theta);
  if (!(g.residual <= 0.05)) {  // each axis its own base (Cosmos's NTK-scaled ones)
    std::vector<double> own;
    for (int a = 0; a < K; ++a) own.push_back(fit(a));
    const Eigen::VectorXd theta = ladders(own);
    const double r = residual_of(id, theta);
    if (r < g.residual) g.bases = own, g.theta = theta, g.residual = r, g.base = 0;
  }
  // A latent grid only where its ladders fit (within match_vision's 0.05) and better than one ladder over the head.
  const bool bases_ok = std::all_of(g.bases.begin(), g.bases.end(), [](double b) { return b > 1; });
  if (!(g.residual <= 0.05) || !bases_ok || (!id.fits.empty() && id.fit.residual <= g.residual)) return;
  // The presets with the same widths, layout and frequencies (each within the same 0.05), and those with the same
  // widths and layout alone.
  for (const PresetInfo& p : list_presets()) {
    const RopeSpec spec = make_spec(load_preset(p.name));
    if (!spec.axes || !spec.axes->grid() || spec.axes->per_frequency || spec.axes->axes != K) continue;
    if (spec.params.inv_freq.size() != n + lead + trail) continue;
    std::vector<int> preset;
    for (int a = 0; a < K; ++a) preset.push_back(spec.axes->pairs_of(a));
    const bool same_layout = (spec.layout == Layout::Interleaved) == (id.layout == PairLayout::Interleaved);
    if (preset != sections || !same_layout) continue;
    const std::optional<GridModel> model = grid_model_of_class(spec.model_type);
    const std::string family = model ? std::string(display_name(*model)) : spec.model_type;
    // Every preset that fits (its head count is no part of its RoPE: Wan's 1.3B, 5B and 14B share one); the widths
    // and layout alone where the frequencies differ, with the preset's base (the dump's is another).
    if (residual_of(id, spec.params.inv_freq.segment(lead, n)) <= 0.05) {
      g.families.push_back({family, p.name});
    } else {
      g.widths_fit.push_back({family, p.name, spec.config.base});
    }
  }
  g.unturned = lead;
  id.grid = g;
  // The 1-D families' "no family explains" and M-RoPE's "neither map" are answered by the grid: they would mislead.
  id.notes.erase(std::remove_if(id.notes.begin(), id.notes.end(),
                                [](const Message& note) {
                                  return note.en.rfind("no family explains the frequencies", 0) == 0 ||
                                         note.en.rfind("the pairs' axes follow neither", 0) == 0;
                                }),
                 id.notes.end());
  if (!assumed.empty()) {
    id.notes.push_back(
        msg("pairs {0} turn too little for the positions to tell their axis: taken as the block they "
            "end, its slowest pairs",
            check_number_list(assumed)));
  }
  if (trail > 0) {
    id.notes.push_back(
        msg("the last {0} pairs do not turn at these positions: taken as the last axis's slowest pairs, slower than "
            "pair {1}, which already turns too little to show its partner",
            trail, n - 1));
  }
  if (lead > 0) {
    id.notes.push_back(
        msg("the first {0} pairs do not turn: every token's t is 0, so the t block's ladder is not "
            "measured (taken as {1} pairs, the channels before the rotated block)",
            lead, lead));
  }
}

namespace {

/// The table pair of each measured pair of LTX's table after `pad` padding pairs: (2p, 2p + 1) over the whole vector
/// (head 0), or each head of `head` channels its slice, table pair p at (h·head + k, h·head + k + head/2), h =
/// p / (head/2); empty where a measured pair is no table pair (or a padding pair).
std::vector<int> table_pairs(const Identification& id, int pad, int head) {
  std::vector<int> out;
  for (const auto& [a, b] : id.pairs) {
    int p = -1;
    if (head == 0 && a % 2 == 0 && b == a + 1) p = a / 2;
    if (head > 0 && a % head < head / 2 && b == a + head / 2) p = (a / head) * (head / 2) + a % head;
    if (p < pad || (!out.empty() && p - pad <= out.back())) return {};
    out.push_back(p - pad);
  }
  return out;
}

/// LTX's table over `A` axes (3: the video's t, h, w; 1: LTX-2's audio stream's t): match_per_frequency and
/// match_per_frequency_one_axis.
void per_frequency(Identification& id, int A, const std::vector<AxisPosition>& positions) {
  // LTX's table over the whole vector (grid_rope.hpp (G4), (G6), (G7)): P = d/2 pairs, F = ⌊P/A⌋ frequencies, the
  // P − A·F padding pairs first (they do not turn, so the n measured pairs are the rest), pair A·k + a of the rest on
  // axis a.
  // One axis: LTX-2's audio stream has F = P, no padding; its table built with the video's count (audio-video-table,
  // num_rope_elems 6: F = ⌊d/6⌋ frequencies, the P − F others padded first) turns the last F pairs alone.
  const int n = static_cast<int>(id.pairs.size());
  const int P = id.d / 2, F = A == 1 && n == id.d / 6 ? n : P / A, pad = P - A * F;
  const bool video_count = A == 1 && F < P;
  if ((A > 1 && !id.axes) || id.d % 2 != 0 || F < 3 || n > A * F || static_cast<int>(id.theta.size()) != n ||
      (A > 1 && static_cast<int>(id.axes->pair_axis.size()) != n))
    return;
  // The pairing: (2i, 2i + 1) over the whole vector (LTX-Video; LTX-2's rope_type interleaved), or each head of d_h
  // channels its slice of the table (LTX-2's split): measured pair i is table pair at[i]. Table pairs not measured
  // (no channel of theirs changed) are read below as the table's only where it turns them by whole turns.
  Identification::GridMatch g;
  std::vector<int> at = table_pairs(id, pad, 0);
  for (int head = 4; head < id.d && at.empty(); head += 2) {
    if (id.d % head == 0 && !(at = table_pairs(id, pad, head)).empty()) g.heads = id.d / head;
  }
  if (at.empty()) return;
  // The pairs whose axis the positions tell, each the axis j mod A of its table pair j, the first two frequencies'
  // among them. The fast ones alias: on a small grid their axis is unknown; on a large one (thousands of tokens, the
  // released 4096 channels) an alias fits the positions too, its θ another, or not forward at all. The pairs are read
  // from the slowest up to the first whose axis is another or whose θ does not turn forward: the aliases lie beyond.
  std::vector<int> known;
  for (int i = 0; i < n; ++i) {
    const int a = A > 1 ? id.axes->pair_axis[static_cast<std::size_t>(i)] : 0;
    if (a < 0) continue;
    if (a != at[static_cast<std::size_t>(i)] % A || !(id.theta[i] > 0)) break;
    if (weight(id, i) > 0) known.push_back(i);
  }
  if (known.size() < 6) return;
  for (std::size_t k = 0; k < 6; ++k) {
    if (at[static_cast<std::size_t>(known[k])] != static_cast<int>(k)) return;
  }
  // ln(θ_j / (π/2)) = x_j·ln base, x_j = ⌊j/A⌋/(F − 1) of table pair j: least squares through the origin over the
  // known pairs.
  const auto x = [&](int i) {
    return static_cast<double>(at[static_cast<std::size_t>(i)] / A) / static_cast<double>(F - 1);
  };
  double sxy = 0, sxx = 0;
  for (const int i : known) {
    const double w = weight(id, i);
    sxy += w * x(i) * std::log(id.theta[i] / (kPi / 2)), sxx += w * x(i) * x(i);
  }
  const double base = std::exp(sxy / sxx);
  if (!(base > 1)) return;
  const auto ladder = [&](double b) {
    Eigen::VectorXd theta(n);
    for (int i = 0; i < n; ++i) theta[i] = kPi / 2 * std::pow(b, x(i));
    return theta;
  };
  const auto residual_known = [&](const Eigen::VectorXd& fit) {
    double rss = 0, ws = 0;
    for (const int i : known) {
      const double r = std::log(id.theta[i]) - std::log(fit[i]);
      rss += weight(id, i) * r * r, ws += weight(id, i);
    }
    return std::sqrt(rss / ws);
  };
  g.per_frequency = true;
  g.padding = pad;
  g.widths.assign(static_cast<std::size_t>(A), 2 * F);
  g.base = base;
  g.bases.assign(static_cast<std::size_t>(A), base);
  g.theta = ladder(base);
  g.residual = residual_known(g.theta);
  if (!(g.residual <= 0.05)) return;
  // Table pairs no channel of which changed (a small latent's positions, 2g − 1 of a few patches, can turn a pair by
  // whole turns at every token): read as the table's where, at the base of a preset of LTX's table that fits the
  // known pairs (the fitted base, uncertain by far more than a turn at the fast pairs, cannot say), the table turns
  // each of them within the dump's rounding κ·ε of a whole turn at every position: a turn by φ moves each element of a
  // pair by at most |φ|·‖z‖, within κ·ε of the pair's norm, the scale of the change step 1 counts (κ·ε of an
  // element's own magnitude). The first such base; none: not LTX's table.
  for (int j = 0, i = 0; j < A * F; ++j) {
    if (i < n && at[static_cast<std::size_t>(i)] == j) {
      ++i;
    } else {
      g.whole_turns.push_back(pad + j);
    }
  }
  if (!g.whole_turns.empty()) {
    if (positions.empty() || !(id.rounding > 0)) return;
    for (const PresetInfo& p : list_presets()) {
      const RopeSpec spec = make_spec(load_preset(p.name));
      if (!spec.axes || !spec.axes->per_frequency || spec.axes->axes != A) continue;
      const double b = spec.config.base;
      if (!(b > 1) || !(residual_known(ladder(b)) <= 0.05)) continue;
      // The largest distance (rad) of such a pair's angle from a whole turn, and of it less the float64 error of the
      // angle computed here (pow and the product, 2 ulps each of ω·m at most).
      double off = 0, beyond = 0;
      for (const int p_table : g.whole_turns) {
        const int j = p_table - pad;
        const double omega = kPi / 2 * std::pow(b, static_cast<double>(j / A) / static_cast<double>(F - 1));
        for (const AxisPosition& m : positions) {
          const double angle = omega * m[j % A], dist = std::abs(std::remainder(angle, 2 * kPi));
          off = std::max(off, dist);
          beyond = std::max(beyond, dist - 4 * std::numeric_limits<double>::epsilon() * std::abs(angle));
        }
      }
      if (beyond <= id.rounding) {
        g.whole_turns_base = b, g.whole_turns_off = off;
        break;
      }
    }
    if (g.whole_turns_base == 0) return;
  }
  // Every preset of this size and pairing whose frequencies fit (LTX-Video's fixed 10000, LTX-2's rope_theta).
  for (const PresetInfo& p : list_presets()) {
    if (video_count) break;  // the audio's own table has P frequencies: no preset's
    // The video's table is the preset's own; the audio stream's its --tower audio (LTX-2's, grid_rope.hpp (G7)).
    const ModelConfig preset = load_preset(p.name);
    if (A == 1 && !(preset.grid && preset.grid->ltx2_audio)) continue;
    RopeOverrides audio;
    audio.tower = Tower::Audio;
    const RopeSpec spec = A == 1 ? resolve_model_rope({p.name, ""}, audio).spec : make_spec(preset);
    if (!spec.axes || !spec.axes->grid() || !spec.axes->per_frequency || spec.axes->axes != A ||
        spec.rotary_dim != id.d || spec.head_slices != g.heads || (g.heads == 0 && spec.layout != Layout::Interleaved))
      continue;
    const std::optional<GridModel> model = grid_model_of_class(spec.model_type);
    const std::string family = model ? std::string(display_name(*model)) : spec.model_type;
    Eigen::VectorXd preset_theta(n);  // the preset's ω of each measured pair's table pair
    for (int i = 0; i < n; ++i) preset_theta[i] = spec.params.inv_freq[pad + at[static_cast<std::size_t>(i)]];
    if (residual_known(preset_theta) <= 0.05) {
      g.families.push_back({family, p.name});
    } else {
      g.widths_fit.push_back({family, p.name, spec.config.base});
    }
  }
  id.grid = g;
  id.notes.erase(std::remove_if(id.notes.begin(), id.notes.end(),
                                [](const Message& note) {
                                  return note.en.rfind("no family explains the frequencies", 0) == 0 ||
                                         note.en.rfind("the pairs' axes follow neither", 0) == 0 ||
                                         note.en.rfind("the positions cannot tell which axis", 0) == 0;
                                }),
                 id.notes.end());
  if (static_cast<int>(known.size()) < n) {
    // The per-pair fit's "pairs … fit no frequency" (identify_pairs.cpp) is this aliasing where every pair it names
    // is one of the faster ones: the table read explains them, and its guess of a precision cause would mislead.
    bool unfit_known = false;
    for (const int i : known) unfit_known = unfit_known || id.angle_residual[i] > 0.5;
    if (!unfit_known) {
      id.notes.erase(std::remove_if(id.notes.begin(), id.notes.end(),
                                    [](const Message& note) {
                                      return note.en.rfind("pairs ", 0) == 0 &&
                                             note.en.find(" fit no frequency (angle RMS above 0.5 rad)") !=
                                                 std::string::npos;
                                    }),
                     id.notes.end());
    }
    id.notes.push_back(
        msg("LTX's table fitted on the {0} pairs whose axis the positions tell (the first {1} frequencies); the "
            "faster ones turn too far between tokens to be measured",
            known.size(), at[static_cast<std::size_t>(known.back())] / A + 1));
  }
  if (!g.whole_turns.empty()) {
    std::string pairs, channels;
    for (std::size_t k = 0; k < g.whole_turns.size(); ++k) {
      const int p = g.whole_turns[k], head = g.heads > 0 ? id.d / g.heads : 0;
      const int a = head > 0 ? (p / (head / 2)) * head + p % (head / 2) : 2 * p, b = head > 0 ? a + head / 2 : a + 1;
      pairs += fmt::format("{}{}", k ? ", " : "", p);
      channels += fmt::format("{}({}, {})", k ? ", " : "", a, b);
    }
    id.notes.push_back(
        msg("table pairs {0} (channels {1}) change no channel beyond the dump's rounding: at base {2}, the base of "
            "LTX's presets, which fits the pairs measured, the table turns them by whole turns at every position "
            "given (within {3:.2g} rad), so they read as unturned; LTX's table explains them",
            pairs, channels, format_number(g.whole_turns_base), g.whole_turns_off));
  }
  if (video_count) {
    id.notes.push_back(msg(
        "one axis t turned by {0} = ⌊d/6⌋ frequencies after {1} unturned pairs, where LTX-2's audio table has d/2 = "
        "{2}: the audio stream's table built with the video's count of frequencies (rope check names it "
        "audio-video-table)",
        F, pad, P));
  }
}

}  // namespace

void detail::match_per_frequency(Identification& id, const std::vector<AxisPosition>& positions) {
  per_frequency(id, 3, positions);
}

void detail::match_per_frequency_one_axis(Identification& id, const std::vector<AxisPosition>& positions) {
  per_frequency(id, 1, positions);
}

void detail::match_mrope_presets(Identification& id) {
  // One ladder over the head, its pairs read by an M-RoPE map (Qwen3-VL's interleave, Cosmos 3's the same): the
  // presets with that map, pair layout and frequencies name the families it may be.
  if (!id.axes || !id.axes->order || id.axes->sections.empty() || id.fits.empty()) return;
  const Eigen::Index n = id.theta.size();
  for (const PresetInfo& p : list_presets()) {
    const RopeSpec spec = make_spec(load_preset(p.name));
    if (!spec.axes || spec.axes->source.sections != id.axes->sections || spec.axes->source.order != *id.axes->order)
      continue;
    const bool same_layout = (spec.layout == Layout::Interleaved) == (id.layout == PairLayout::Interleaved);
    if (spec.params.inv_freq.size() != n || !same_layout || residual_of(id, spec.params.inv_freq) > 0.05) continue;
    const std::optional<GridModel> model = grid_model_of_class(spec.model_type);
    id.axes->presets.push_back({model ? std::string(display_name(*model)) : p.name, p.name});
  }
}

}  // namespace rope
