// Step 5 of identify.hpp for a dump with a (row, column) position per patch: the 2-D vision RoPEs of
// models/vision_rope.hpp (docs/multi-axis.md (V2)-(V6)) whose axis map and channel pairs are the ones measured, each
// with the base its ladders fit best.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "rope/analysis/identify/identify.hpp"
#include "rope/core/error.hpp"
#include "rope/core/types.hpp"
#include "rope/models/vision_rope.hpp"

namespace rope {
namespace {

/// The channels of pair j in `kind`'s layout: Gemma 4's inside each axis's block (V6), the others over the head.
std::pair<int, int> vision_channels(const VisionPairs& p, int d, int j) {
  const PairChannels c = p.per_block ? axis_block_pair_channels(d, j, p.layout) : pair_channels(d, j, p.layout);
  return {c.first, c.second};
}

}  // namespace

void detail::match_vision(Identification& id) {
  const int n = static_cast<int>(id.pairs.size());
  const int d = 2 * n;
  if (!id.axes || n == 0 || id.rotary_dim != id.d || d % 4 != 0 || d < 4 || d > kMaxDim) return;
  for (const int a : id.axes->pair_axis) {
    if (a < 0) return;  // an axis the positions cannot tell: no map to compare
  }
  std::optional<VisionMatch> best;
  // llama.cpp's GGML_ROPE_TYPE_VISION is Qwen2-VL's map and ladder (V2): one entry names both.
  for (const VisionRope kind :
       {VisionRope::Qwen2VL, VisionRope::Pixtral, VisionRope::Llama4, VisionRope::Axial, VisionRope::Gemma4}) {
    // θ_j = base^(−x_j): x_j = −ln θ_j at base e, the exponents of the kind's ladders (vision_rope.cpp).
    const VisionPairs p = vision_pairs(kind, d, std::exp(1.0));
    bool same = true;
    for (int j = 0; j < n && same; ++j) {
      same = p.axis[static_cast<std::size_t>(j)] == id.axes->pair_axis[static_cast<std::size_t>(j)] &&
             vision_channels(p, d, j) == id.pairs[static_cast<std::size_t>(j)];
    }
    if (!same) continue;
    // ln θ_j = −x_j·ln base, least squares through the origin weighted by 1/σ² of ln θ_j (floored as fit_families
    // does).
    double sxy = 0, sxx = 0;
    std::vector<double> w(static_cast<std::size_t>(n));
    for (int j = 0; j < n; ++j) {
      const double sigma = id.theta[j] > 0 ? std::max(id.theta_sigma[j] / id.theta[j], 1e-6) : 1.0;
      w[static_cast<std::size_t>(j)] = id.theta[j] > 0 ? 1 / (sigma * sigma) : 0.0;
      const double x = -std::log(p.theta[j]);
      if (id.theta[j] > 0)
        sxy += w[static_cast<std::size_t>(j)] * x * -std::log(id.theta[j]),
            sxx += w[static_cast<std::size_t>(j)] * x * x;
    }
    if (!(sxx > 0)) continue;
    VisionMatch m;
    m.kind = to_string(kind);
    m.equation = vision_axis_map(p).vision_equation;
    m.base = std::exp(sxy / sxx);
    double rss = 0, ws = 0;
    m.theta.resize(n);
    for (int j = 0; j < n; ++j) {
      m.theta[j] = std::pow(m.base, std::log(p.theta[j]));  // base^(−x_j)
      if (id.theta[j] > 0) {
        const double r = std::log(id.theta[j]) - std::log(m.theta[j]);
        rss += w[static_cast<std::size_t>(j)] * r * r, ws += w[static_cast<std::size_t>(j)];
      }
    }
    m.residual = ws > 0 ? std::sqrt(rss / ws) : std::numeric_limits<double>::infinity();
    if (!best || m.residual < best->residual) best = m;
  }
  if (best && best->residual <= 0.05 && best->base > 1) {
    id.vision = best;
    // The 1-D families' "no family explains" is answered by the vision ladders: that note would mislead.
    id.notes.erase(
        std::remove_if(id.notes.begin(), id.notes.end(),
                       [](const Message& note) { return note.en.rfind("no family explains the frequencies", 0) == 0; }),
        id.notes.end());
    id.notes.push_back(
        msg("a 2-D vision RoPE, {0} {1} (docs/multi-axis.md §6): its axis map and channel pairs, each "
            "axis its own ladder with base {2:.6g}{3}",
            best->kind, best->equation, best->base,
            best->kind == "qwen2-vl" ? msg(" (llama.cpp's GGML_ROPE_TYPE_VISION is the same)")
            : best->kind == "llama4" && id.position_offset == 1
                ? msg("; the patches counted from 1, (x + 1, y + 1), as Llama 4 counts them (V4)")
            : best->kind == "llama4"
                ? msg("; the patches turn as counted from {0}, where Llama 4 counts them from 1 (x + 1, y + 1): "
                      "(V4)'s map and layout, its offset off by {1}",
                      fmt::format("{:g}", id.position_offset), fmt::format("{:+g}", id.position_offset - 1))
                : Message::same("")));
  } else {
    std::string pattern;
    for (const int a : id.axes->pair_axis) pattern += a == 0 ? "h" : "w";
    id.notes.push_back(
        msg("the pairs' axes ({0}, h the row, w the column) and channel pairs match none of the 2-D vision "
            "RoPEs rope knows (docs/multi-axis.md §6)",
            pattern));
  }
}

}  // namespace rope
