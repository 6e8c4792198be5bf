/// @file
/// The numbers behind rope's animations (`--gif`): what changes from frame to frame is computed here,
/// the CLI only draws it (rope/plot/animation.hpp). Every frame is a pure function of the options, so
/// the same options give the same GIF, byte for byte.
///
///   explain      frame k moves both positions by c_k = k: pair i of q turns by (M + k)·θ_i (M1), and
///                the angle between R((M+k)θ)q and R((N+k)θ)k stays (N − M)θ + arg k − arg q (M8)
///   wavelengths  position m_k = m_max^(k/(F−1)); pair i has completed a turn when m_k·θ_i >= 2π,
///                i.e. λ_i <= m_k (M2)
///   attention    every position moves by c_k = round(k·C/(F−1)): RoPE's weights stay, an additive
///                encoding's move (M8), (M12)
///   decay        base b_k = b_0·(b_1/b_0)^(k/(F−1))
#pragma once

#include <Eigen/Core>
#include <vector>

#include "rope/analysis/teaching/attention.hpp"

namespace rope::motion {

/// from, …, to in `frames` evenly spaced steps. @throws InvalidArgument unless frames >= 2.
std::vector<double> linear_sweep(double from, double to, int frames);

/// from·(to/from)^(k/(frames − 1)), k = 0 … frames − 1: even steps on a log axis; ends exactly at from
/// and to. @throws InvalidArgument unless frames >= 2 and 0 < from, to are finite.
std::vector<double> geometric_sweep(double from, double to, int frames);

/// Integer positions from `from` to `to` in about even steps on a log axis (geometric_sweep rounded),
/// each at least one more than the one before while the range has room for that, so that no two frames
/// show the same position (rounded alone, 1 … 4096 in 16 frames starts 1, 2, 3, 4, 7: the first frames
/// would repeat 1, 1, 2 for more frames). @throws InvalidArgument as geometric_sweep.
std::vector<long> geometric_integer_sweep(long from, long to, int frames);

/// round(k·to/(frames − 1)) for k = 0 … frames − 1: integer shifts from 0 to `to`.
std::vector<long> integer_sweep(long to, int frames);

/// angle(k, i) = positions[k]·θ_i, rad, not reduced (M1).
Eigen::MatrixXd turn_angles(const Eigen::VectorXd& theta, const std::vector<double>& positions);

/// For each pair i, whether it has completed a full turn by position m: m·θ_i >= 2π (λ_i <= m).
std::vector<bool> completed_turn(const Eigen::VectorXd& theta, double m);

/// One frame of the explain animation: q at M + shift, k at N + shift, both turned by their angles.
struct PlaneFrame {
  double shift = 0.0;
  Eigen::Vector2d q_rotated;
  Eigen::Vector2d k_rotated;
  double angle_between = 0.0;   ///< from R((M+c)θ)q to R((N+c)θ)k, reduced to (−π, π]
  double score = 0.0;           ///< ⟨R((M+c)θ)q, R((N+c)θ)k⟩
  Eigen::VectorXd hand_angles;  ///< (M + c)·θ_i of every pair of `pairs`, the clock hands
};

/// Frames k = 0 … frames − 1 with shift c_k = k. @throws InvalidArgument unless frames >= 2.
std::vector<PlaneFrame> plane_frames(const Eigen::Vector2d& q, const Eigen::Vector2d& k, double m, double n,
                                     double theta, const Eigen::VectorXd& pairs, int frames);

/// attention_weights(q, k, positions + c, settings) for every shift c.
std::vector<Eigen::MatrixXd> shifted_weights(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k,
                                             const Eigen::VectorXd& positions, const AttentionSettings& settings,
                                             const std::vector<long>& shifts);

}  // namespace rope::motion
