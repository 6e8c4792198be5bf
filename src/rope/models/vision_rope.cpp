#include "rope/models/vision_rope.hpp"

#include <cmath>
#include <fmt/format.h>

#include "rope/core/apply.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"

namespace rope {

const char* to_string(VisionRope kind) {
  switch (kind) {
    case VisionRope::Qwen2VL:
      return "qwen2-vl";
    case VisionRope::LlamaCpp:
      return "llama.cpp";
    case VisionRope::Pixtral:
      return "pixtral";
    case VisionRope::Llama4:
      return "llama4";
    case VisionRope::Axial:
      return "axial";
    case VisionRope::Gemma4:
      return "gemma4";
  }
  return "?";
}

VisionRope parse_vision_rope(std::string_view word) {
  for (VisionRope k : {VisionRope::Qwen2VL, VisionRope::LlamaCpp, VisionRope::Pixtral, VisionRope::Llama4,
                       VisionRope::Axial, VisionRope::Gemma4}) {
    if (word == to_string(k)) return k;
  }
  throw InvalidArgument(error_msg(
      "vision RoPE must be 'qwen2-vl', 'llama.cpp', 'pixtral', 'llama4', 'axial' or 'gemma4' (got '{0}')", word));
}

VisionPairs vision_pairs(VisionRope kind, int d, double base) {
  if (d < 4 || d % 4 != 0 || d > kMaxDim) {
    throw InvalidArgument(
        error_msg("a 2-D vision RoPE needs d a multiple of 4 between 4 and {0} (got {1})", kMaxDim, d));
  }
  check_base(base);
  VisionPairs p;
  p.kind = kind;
  const int quarter = d / 4;
  p.theta.resize(d / 2);
  p.axis.resize(static_cast<std::size_t>(d / 2));
  for (int j = 0; j < d / 2; ++j) {
    const int k = j % quarter;  // index within the axis's block
    const bool first = j < quarter;
    // (V2), (V4), (V5): each axis the ladder base^(−2k/(d/2)); (V3): the even (row) or odd (column)
    // frequencies of the head's ladder base^(−2i/d), i = 2k or 2k + 1.
    p.theta[j] = kind == VisionRope::Pixtral ? std::pow(base, -2.0 * (2 * k + (first ? 0 : 1)) / d)
                                             : std::pow(base, -2.0 * k / (d / 2));
    // Llama 4 and Gemma 4 give the column x the first block.
    const bool column_first = kind == VisionRope::Llama4 || kind == VisionRope::Gemma4;
    p.axis[static_cast<std::size_t>(j)] = column_first ? (first ? 1 : 0) : (first ? 0 : 1);
  }
  p.layout = kind == VisionRope::Llama4 || kind == VisionRope::Axial ? Layout::Interleaved : Layout::Half;
  p.per_block = kind == VisionRope::Gemma4;
  p.offset = kind == VisionRope::Llama4 ? 1.0 : 0.0;
  return p;
}

AxisMap vision_axis_map(const VisionPairs& pairs) {
  AxisMap map;
  map.axes = 2;
  map.first_axis = 1;
  map.position_offset = pairs.offset;
  map.pair_axis.reserve(pairs.axis.size());
  for (int a : pairs.axis) map.pair_axis.push_back(a + 1);  // row → h (1), column → w (2)
  map.source.order = SectionOrder::Vision;
  map.source.sections = {map.pairs_of(1), map.pairs_of(2)};
  map.vision_kind = to_string(pairs.kind);
  map.vision_equation = pairs.kind == VisionRope::Pixtral  ? "(V3)"
                        : pairs.kind == VisionRope::Llama4 ? "(V4)"
                        : pairs.kind == VisionRope::Axial  ? "(V5)"
                        : pairs.kind == VisionRope::Gemma4 ? "(V6)"
                                                           : "(V2)";
  return map;
}

std::optional<VisionRope> vision_rope_of(std::string_view t) {
  if (t == "pixtral") return VisionRope::Pixtral;
  if (t == "llama4_vision_model") return VisionRope::Llama4;
  if (t == "qwen2_vl" || t == "qwen2_5_vl" || t == "qwen3_vl") return VisionRope::Qwen2VL;
  if (t == "gemma4_vision") return VisionRope::Gemma4;
  return std::nullopt;
}

Eigen::VectorXd vision_angles(const VisionPairs& pairs, double row, double column) {
  Eigen::VectorXd phi(pairs.theta.size());
  for (Eigen::Index j = 0; j < phi.size(); ++j) {
    const double p = pairs.axis[static_cast<std::size_t>(j)] == 0 ? row : column;
    phi[j] = pairs.theta[j] * (p + pairs.offset);  // (V1)
  }
  return phi;
}

Eigen::VectorXd vision_apply(const VisionPairs& pairs, const Eigen::VectorXd& x, double row, double column) {
  const Eigen::VectorXd phi = vision_angles(pairs, row, column);
  if (!pairs.per_block) return apply_rotary<double>(x, phi, 1.0, pairs.layout);
  // (V6): each axis's block of d/2 channels rotated on its own, its d/4 pairs in the block's layout.
  const Eigen::Index half = x.size() / 2, quarter = phi.size() / 2;
  Eigen::VectorXd out(x.size());
  out.head(half) =
      apply_rotary<double>(Eigen::VectorXd(x.head(half)), Eigen::VectorXd(phi.head(quarter)), 1.0, pairs.layout);
  out.tail(half) =
      apply_rotary<double>(Eigen::VectorXd(x.tail(half)), Eigen::VectorXd(phi.tail(quarter)), 1.0, pairs.layout);
  return out;
}

}  // namespace rope
