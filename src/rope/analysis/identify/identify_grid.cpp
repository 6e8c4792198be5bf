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

#include "rope/analysis/check/check_table.hpp"
#include "rope/analysis/identify/identify.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
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

/// LTX's table over `A` axes (3: the video's t, h, w; 1: LTX-2's audio stream's t): match_per_frequency and
/// match_per_frequency_one_axis.
void per_frequency(Identification& id, int A) {
  // LTX's table over the whole vector (grid_rope.hpp (G4), (G6), (G7)): P = d/2 pairs, F = ⌊P/A⌋ frequencies, the
  // P − A·F padding pairs first (they do not turn, so the n measured pairs are the rest), pair A·k + a of the rest on
  // axis a.
  // One axis: LTX-2's audio stream has F = P, no padding; its table built with the video's count (audio-video-table,
  // num_rope_elems 6: F = ⌊d/6⌋ frequencies, the P − F others padded first) turns the last F pairs alone.
  const int n = static_cast<int>(id.pairs.size());
  const int P = id.d / 2, F = A == 1 && n == id.d / 6 ? n : P / A, pad = P - A * F;
  const bool video_count = A == 1 && F < P;
  if ((A > 1 && !id.axes) || id.d % 2 != 0 || F < 3 || n != A * F || static_cast<int>(id.theta.size()) != n ||
      (A > 1 && static_cast<int>(id.axes->pair_axis.size()) != n))
    return;
  // The pairs whose axis the positions tell, each the axis j mod A, the first two frequencies' among them. The fast
  // ones alias: on a small grid their axis is unknown; on a large one (thousands of tokens, the released 4096
  // channels) an alias fits the positions too, its θ another, or not forward at all. The pairs are read from the
  // slowest up to the first whose axis is another or whose θ does not turn forward: the aliases lie beyond it.
  std::vector<int> known;
  for (int j = 0; j < n; ++j) {
    const int a = A > 1 ? id.axes->pair_axis[static_cast<std::size_t>(j)] : 0;
    if (a < 0) continue;
    if (a != j % A || !(id.theta[j] > 0)) break;
    if (weight(id, j) > 0) known.push_back(j);
  }
  if (known.size() < 6 || known[5] != 5) return;
  // ln(θ_j / (π/2)) = x_j·ln base, x_j = ⌊j/A⌋/(F − 1): least squares through the origin over the known pairs.
  const auto x = [F, A](int j) { return static_cast<double>(j / A) / static_cast<double>(F - 1); };
  double sxy = 0, sxx = 0;
  for (const int j : known) {
    const double w = weight(id, j);
    sxy += w * x(j) * std::log(id.theta[j] / (kPi / 2)), sxx += w * x(j) * x(j);
  }
  const double base = std::exp(sxy / sxx);
  if (!(base > 1)) return;
  const auto ladder = [&](double b) {
    Eigen::VectorXd theta(n);
    for (int j = 0; j < n; ++j) theta[j] = kPi / 2 * std::pow(b, x(j));
    return theta;
  };
  const auto residual_known = [&](const Eigen::VectorXd& fit) {
    double rss = 0, ws = 0;
    for (const int j : known) {
      const double r = std::log(id.theta[j]) - std::log(fit[j]);
      rss += weight(id, j) * r * r, ws += weight(id, j);
    }
    return std::sqrt(rss / ws);
  };
  Identification::GridMatch g;
  g.per_frequency = true;
  g.padding = pad;
  g.widths.assign(static_cast<std::size_t>(A), 2 * F);
  g.base = base;
  g.bases.assign(static_cast<std::size_t>(A), base);
  g.theta = ladder(base);
  g.residual = residual_known(g.theta);
  if (!(g.residual <= 0.05)) return;
  // The pairing: (2i, 2i + 1) over the whole vector (LTX-Video; LTX-2's rope_type interleaved), or each head of d_h
  // channels its slice of the table, table pair p at (h·d_h + k, h·d_h + k + d_h/2), h = p / (d_h/2) (LTX-2's split).
  const auto pairs_are = [&](int head) {
    for (int j = 0; j < n; ++j) {
      const int p = pad + j;
      std::pair<int, int> c{2 * p, 2 * p + 1};
      if (head > 0) c = {(p / (head / 2)) * head + p % (head / 2), (p / (head / 2)) * head + p % (head / 2) + head / 2};
      if (id.pairs[static_cast<std::size_t>(j)] != c) return false;
    }
    return true;
  };
  if (!pairs_are(0)) {
    for (int head = 2; head < id.d && g.heads == 0; head += 2) {
      if (id.d % head == 0 && pairs_are(head)) g.heads = id.d / head;
    }
    if (g.heads == 0) return;
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
    if (residual_known(spec.params.inv_freq.segment(pad, n)) <= 0.05) {
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
    id.notes.push_back(
        msg("LTX's table fitted on the {0} pairs whose axis the positions tell (the first {1} frequencies); the "
            "faster ones turn too far between tokens to be measured",
            known.size(), known.back() / A + 1));
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

void detail::match_per_frequency(Identification& id) { per_frequency(id, 3); }

void detail::match_per_frequency_one_axis(Identification& id) { per_frequency(id, 1); }

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
