/// @file
/// Shared vocabulary: Eigen aliases, the pair layout, defaults and the limits every command enforces.
#pragma once

#include <Eigen/Core>
#include <string>
#include <string_view>

namespace rope {

template <typename Scalar>
using Vector = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;
template <typename Scalar>
using Matrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;

/// The base of RoFormer and of most models up to Llama 2 (arXiv:2104.09864 §3.2.2).
inline constexpr double kDefaultBase = 10000.0;

/// Largest head dimension accepted anywhere. Real models use d <= 512; the bound keeps a typo
/// (an extra zero or two) from asking for gigabytes.
inline constexpr int kMaxDim = 65536;

/// Which channels form pair i (docs/math.md (M5), (M6)).
///   Interleaved: channels (2i, 2i+1): RoFormer, Meta's Llama, GPT-J.
///   Half:        channels (i, i + d/2): GPT-NeoX, Hugging Face `rotate_half`.
enum class Layout { Interleaved, Half };

/// "interleaved" or "half".
std::string_view to_string(Layout layout);

/// Parses "interleaved" or "half" (also "neox" and "rotate_half" for half, "gptj" and "meta" for
/// interleaved). @throws InvalidArgument naming the value otherwise.
Layout parse_layout(std::string_view text);

/// The channels (first, second) that form pair i in a d-dimensional vector.
struct PairChannels {
  int first;
  int second;
};
inline PairChannels pair_channels(int d, int i, Layout layout) {
  return layout == Layout::Interleaved ? PairChannels{2 * i, 2 * i + 1} : PairChannels{i, i + d / 2};
}
/// Gemma 4's vision tower ((V6) of docs/multi-axis.md): the d channels in two blocks of d/2, one per axis, pair i
/// in block b = i / (d/4) with the layout applied inside the block: b·d/2 + pair_channels(d/2, i mod d/4, layout).
inline PairChannels axis_block_pair_channels(int d, int i, Layout layout) {
  const int quarter = d / 4, b = i / quarter;
  const PairChannels c = pair_channels(d / 2, i % quarter, layout);
  return {b * (d / 2) + c.first, b * (d / 2) + c.second};
}

/// @throws InvalidArgument unless d is even and 2 <= d <= max_dim. `what` names the quantity.
void check_dimension(int d, int max_dim = kMaxDim, std::string_view what = "dimension d");

/// @throws InvalidArgument unless base is finite and > 1.
void check_base(double base);

/// @throws InvalidArgument unless the position is finite.
void check_position(double position, std::string_view what = "position");

/// Largest |position| whose rotation float64 can still resolve at dimension d: beyond it the tolerance
/// κ·ε·(d + |m|) of (M13) reaches 1, so a check against it accepts any vector of the right norm, and the
/// angle m·θ_0 (θ_0 = 1) carries a rounding error of ε·|m| >= 1/κ rad: no correct digit of cos or sin
/// is left. About 5.6e14 for d = 128.
double max_resolvable_position(int d);
/// @throws InvalidArgument unless |position| <= max_resolvable_position(d) (and finite).
void check_position_resolvable(double position, int d, std::string_view what = "position m");

}  // namespace rope
