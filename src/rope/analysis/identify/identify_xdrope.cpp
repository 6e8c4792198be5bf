// HunyuanVL's XD-RoPE from a dump and its four position streams p, w, h, t (identify.hpp, docs/multi-axis.md (A11)):
// the stream each channel turns by, measured channel by channel, and the map those streams follow: HF's (each section
// doubled, so the two channels of a pair may read two streams) or Tencent's and mlx-vlm's (the list repeated, both
// channels of a pair on one stream).
#include <algorithm>
#include <cmath>
#include <complex>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <optional>

#include "rope/analysis/identify/identify.hpp"
#include "rope/core/error.hpp"

namespace rope {
namespace {

/// XD-RoPE's position streams: p, w, h, t.
constexpr int kXdropeStreams = 4;

/// Per sequence index, the phasor C + i·S (the attention factor times e^(iα)) that turns one channel of the half pair
/// (a, b), w = x_a + i·x_b: its first channel y_a = Re(w·e^(iα)) = C·Re w − S·Im w, its second y_b = Im(w·e^(iβ)) =
/// C·Im w + S·Re w; least squares over the vectors of that index (heads, batch rows), 0 where they cannot determine it
/// (one vector, or vectors alike).
std::vector<std::complex<double>> xdrope_channel_phasors(const DumpVectors& before, const DumpVectors& after, int a,
                                                         int b, bool first) {
  const long groups = before.groups();
  const long d = before.d;
  std::vector<std::complex<double>> u(static_cast<std::size_t>(before.seq), 0.0);
  for (long s = 0; s < before.seq; ++s) {
    double m00 = 0, m01 = 0, m11 = 0, r0 = 0, r1 = 0;
    for (long g = 0; g < groups; ++g) {
      const std::size_t v = static_cast<std::size_t>((s * groups + g) * d);
      const double re = before.values[v + static_cast<std::size_t>(a)],
                   im = before.values[v + static_cast<std::size_t>(b)];
      const double y = after.values[v + static_cast<std::size_t>(first ? a : b)];
      const double p = first ? re : im, q = first ? -im : re;  // y = C·p + S·q
      m00 += p * p, m01 += p * q, m11 += q * q, r0 += p * y, r1 += q * y;
    }
    const double det = m00 * m11 - m01 * m01;
    if (!(det > 1e-12 * (m00 + m11) * (m00 + m11))) continue;
    u[static_cast<std::size_t>(s)] = {(r0 * m11 - r1 * m01) / det, (r1 * m00 - r0 * m01) / det};
  }
  return u;
}

/// "pwht": one letter per channel, "?" where the positions cannot tell.
std::string xdrope_channel_pattern(const std::vector<int>& streams) {
  std::string out;
  for (const int k : streams) out += k < 0 ? std::string("?") : std::string(xdrope_letter(k));
  return out;
}

/// The run lengths of the streams 0 … 3 over `labels` (−1 where unknown), in units of `unit` slots: the streams must
/// not decrease over the known slots, and each boundary between streams must fall on one multiple of `unit` between
/// the last slot known before it and the first known after it. nullopt when they decrease or a boundary is not
/// determined.
std::optional<std::vector<int>> xdrope_runs(const std::vector<int>& labels, int unit) {
  const int length = static_cast<int>(labels.size());
  int previous = -1;
  for (const int l : labels) {
    if (l < 0) continue;
    if (l < previous) return std::nullopt;
    previous = l;
  }
  std::vector<int> bounds = {0};
  for (int k = 0; k + 1 < kXdropeStreams; ++k) {
    int low = 0, high = length;  // the boundary after stream k lies in [low, high]
    for (int i = 0; i < length; ++i) {
      const int l = labels[static_cast<std::size_t>(i)];
      if (l >= 0 && l <= k) low = i + 1;
      if (l > k && high == length) high = i;
    }
    int found = -1, count = 0;
    for (int b = low; b <= high; ++b) {
      if (b % unit == 0) found = b, ++count;
    }
    if (count != 1) return std::nullopt;
    bounds.push_back(found);
  }
  bounds.push_back(length);
  if (length % unit != 0) return std::nullopt;
  std::vector<int> runs;
  for (int k = 0; k < kXdropeStreams; ++k)
    runs.push_back((bounds[static_cast<std::size_t>(k + 1)] - bounds[static_cast<std::size_t>(k)]) / unit);
  return runs;
}

/// Each channel's stream (and, with `set_theta`, each pair's θ from its two channels), the map they follow, and the
/// notes: id.xdrope.
void measure_xdrope(const DumpVectors& before, const DumpVectors& after, const std::vector<AxisPosition>& positions,
                    Identification& id, bool set_theta) {
  const int d = id.d, n = d / 2;
  std::vector<std::vector<double>> m(kXdropeStreams, std::vector<double>(positions.size()));
  for (std::size_t s = 0; s < positions.size(); ++s) {
    for (int k = 0; k < kXdropeStreams; ++k) m[static_cast<std::size_t>(k)][s] = positions[s][k];
  }
  Identification::Xdrope x;
  x.channel_stream.assign(static_cast<std::size_t>(d), -1);
  std::vector<detail::AxisFit> best(static_cast<std::size_t>(d));
  int unclear = 0;
  for (int c = 0; c < d; ++c) {
    const int j = c % n;
    const std::vector<std::complex<double>> u = xdrope_channel_phasors(before, after, j, j + n, c < n);
    std::vector<detail::AxisFit> fits;
    for (int k = 0; k < kXdropeStreams; ++k) fits.push_back(detail::fit_axis(m[static_cast<std::size_t>(k)], u));
    int b = 0;
    for (int k = 1; k < kXdropeStreams; ++k) {
      if (fits[static_cast<std::size_t>(k)].misfit < fits[static_cast<std::size_t>(b)].misfit) b = k;
    }
    const detail::AxisFit& f = fits[static_cast<std::size_t>(b)];
    bool clear = std::isfinite(f.misfit);
    for (int k = 0; k < kXdropeStreams; ++k) {
      if (k != b && !(fits[static_cast<std::size_t>(k)].misfit > detail::kAxisMargin * f.misfit + 1e-9)) clear = false;
    }
    best[static_cast<std::size_t>(c)] = f;
    if (clear) {
      x.channel_stream[static_cast<std::size_t>(c)] = b;
    } else {
      ++unclear;
    }
  }
  if (set_theta) {  // θ_j from its two channels, each weighted by 1/σ²
    id.theta = Eigen::VectorXd::Zero(n), id.angle_residual = Eigen::VectorXd::Zero(n);
    id.theta_sigma = Eigen::VectorXd::Constant(n, INFINITY);
    for (int j = 0; j < n; ++j) {
      double sw = 0, st = 0, sr = 0;
      for (const int c : {j, j + n}) {
        const detail::AxisFit& f = best[static_cast<std::size_t>(c)];
        if (!std::isfinite(f.residual)) continue;
        const double w = 1 / std::max(f.sigma * f.sigma, 1e-300);
        sw += w, st += w * f.theta, sr = std::max(sr, f.residual);
      }
      if (sw > 0) id.theta[j] = st / sw, id.theta_sigma[j] = 1 / std::sqrt(sw), id.angle_residual[j] = sr;
    }
    id.reversed = n > 0 && (id.theta.array() < 0).all();
  }
  const std::string pattern = xdrope_channel_pattern(x.channel_stream);
  if (unclear == d) {
    id.notes.push_back(
        msg("the four streams p, w, h, t are equal wherever the dump turns (text alone): HF's XD-RoPE map and "
            "Tencent's turn such tokens alike, so the positions cannot tell the maps apart; an image's tokens can"));
    id.xdrope = std::move(x);
    return;
  }
  // Each map's sections from the channels whose stream is known (the slowest may turn too little to tell): HF's over
  // the channels, two per pair of a section; Tencent's over the pairs, both channels of a pair on one stream.
  std::vector<int> pair_stream(static_cast<std::size_t>(n), -1);
  bool pairs_agree = true;
  for (int j = 0; j < n; ++j) {
    const int a = x.channel_stream[static_cast<std::size_t>(j)], b = x.channel_stream[static_cast<std::size_t>(j + n)];
    if (a >= 0 && b >= 0 && a != b) pairs_agree = false;
    pair_stream[static_cast<std::size_t>(j)] = a >= 0 ? a : b;
  }
  std::vector<std::pair<SectionOrder, std::vector<int>>> fitting;
  if (const std::optional<std::vector<int>> s = xdrope_runs(x.channel_stream, 2)) {
    fitting.emplace_back(SectionOrder::XdropeHf, *s);
  }
  if (pairs_agree) {
    if (const std::optional<std::vector<int>> s = xdrope_runs(pair_stream, 1)) {
      fitting.emplace_back(SectionOrder::XdropeTencent, *s);
    }
  }
  // Both fit only where every channel reads one stream, which either code makes: plain RoPE at that stream.
  if (fitting.size() == 1) {
    const AxisMap hf = make_axis_map({fitting.front().second, SectionOrder::XdropeHf}, n);
    const AxisMap tencent = make_axis_map({fitting.front().second, SectionOrder::XdropeTencent}, n);
    x.map = fitting.front().first;
    x.sections = fitting.front().second;
    x.parts_at = first_differing_pair(hf, tencent);
  } else if (fitting.empty()) {
    id.notes.push_back(
        unclear > 0
            ? msg("the positions cannot tell which stream {0} of the {1} channels turn by (they turn too little "
                  "between tokens whose streams differ, or the dump has one vector per position): the streams found "
                  "are {2}; XD-RoPE's map is not named",
                  unclear, d, pattern)
            : msg("the channels' streams follow neither of XD-RoPE's maps (HF's doubled sections, Tencent's repeated "
                  "list): {0}",
                  pattern));
  }
  id.xdrope = std::move(x);
}

}  // namespace

void detail::identify_xdrope(const DumpVectors& before, const DumpVectors& after,
                             const std::vector<AxisPosition>& positions, const std::vector<bool>& moving,
                             Identification& id) {
  const int d = before.d, n = d / 2;
  if (d < 2 || d % 2 != 0 || positions.size() != static_cast<std::size_t>(before.seq)) return;
  std::vector<std::pair<int, int>> half;
  for (int j = 0; j < n; ++j) half.emplace_back(j, j + n);
  if (id.layout == PairLayout::Half && id.pairs == half && id.rotary_offset == 0 && !id.axis_blocks) {
    measure_xdrope(before, after, positions, id, false);
    // The streams' notes replace the M-RoPE ones of three axes t, h, w (identify_axes.cpp) that four streams got.
    const std::vector<std::string> axis_notes = {
        "the pairs' axes follow neither Hugging Face's chunked map (A2) nor the interleaved one (A3): {0}",
        "the positions cannot tell which axis pairs {0} turn by: their components are equal (or one never moves) "
        "wherever the dump turns them; give tokens whose t, h and w differ (an image's or a video's)",
        "the positions cannot tell which axis pairs {0} turn by (they turn too little between tokens whose t, h and "
        "w differ): the axes found are {1}; a larger image or video tells the rest"};
    id.notes.erase(std::remove_if(id.notes.begin(), id.notes.end(),
                                  [&](const Message& m) {
                                    return std::find(axis_notes.begin(), axis_notes.end(), m.id) != axis_notes.end();
                                  }),
                   id.notes.end());
    return;
  }
  if (id.layout != PairLayout::None || id.rotary_dim != d) return;
  // No pairing keeps the norms: HF's map turns a pair's two channels by two streams' positions, no rotation. The half
  // pairs assumed, each channel measured on its own; taken when the channels follow HF's map.
  Identification split = detail::identify_with(
      before, after, moving, [&](Identification& x) { measure_xdrope(before, after, positions, x, true); }, &half);
  if (split.xdrope && split.xdrope->map == SectionOrder::XdropeHf) id = std::move(split);
}

}  // namespace rope
