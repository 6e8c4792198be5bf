#include "rope/analysis/teaching/motion.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/core/rotation.hpp"

namespace rope::motion {

namespace {

void check_frames(int frames) {
  if (frames < 2) throw InvalidArgument(error_msg("an animation needs at least 2 frames (got {0})", frames));
}

}  // namespace

std::vector<double> linear_sweep(double from, double to, int frames) {
  check_frames(frames);
  std::vector<double> v(static_cast<std::size_t>(frames));
  for (int k = 0; k < frames; ++k) v[k] = from + (to - from) * k / (frames - 1);
  v.back() = to;
  return v;
}

std::vector<double> geometric_sweep(double from, double to, int frames) {
  check_frames(frames);
  if (!(from > 0) || !(to > 0) || !std::isfinite(from) || !std::isfinite(to)) {
    throw InvalidArgument(error_msg("a geometric sweep needs finite ends > 0 (got {0} and {1})",
                                    fmt::format("{:g}", from), fmt::format("{:g}", to)));
  }
  std::vector<double> v(static_cast<std::size_t>(frames));
  const double ratio = std::log(to / from);
  for (int k = 0; k < frames; ++k) v[k] = from * std::exp(ratio * k / (frames - 1));
  v.front() = from;
  v.back() = to;
  return v;
}

std::vector<long> geometric_integer_sweep(long from, long to, int frames) {
  const std::vector<double> g = geometric_sweep(static_cast<double>(from), static_cast<double>(to), frames);
  std::vector<long> v(g.size());
  for (std::size_t k = 0; k < g.size(); ++k) v[k] = std::lround(g[k]);
  if (to - from + 1 < frames) return v;  // no room for distinct positions: rounded, non-decreasing
  for (std::size_t k = 1; k < v.size(); ++k) v[k] = std::max(v[k], v[k - 1] + 1);
  for (std::size_t k = v.size() - 1; k-- > 0;) v[k] = std::min(v[k], v[k + 1] - 1);  // back below `to`
  return v;
}

std::vector<long> integer_sweep(long to, int frames) {
  check_frames(frames);
  std::vector<long> v(static_cast<std::size_t>(frames));
  for (int k = 0; k < frames; ++k) v[k] = std::lround(static_cast<double>(to) * k / (frames - 1));
  return v;
}

Eigen::MatrixXd turn_angles(const Eigen::VectorXd& theta, const std::vector<double>& positions) {
  Eigen::MatrixXd a(static_cast<Eigen::Index>(positions.size()), theta.size());
  for (std::size_t k = 0; k < positions.size(); ++k)
    a.row(static_cast<Eigen::Index>(k)) = positions[k] * theta.transpose();
  return a;
}

std::vector<bool> completed_turn(const Eigen::VectorXd& theta, double m) {
  std::vector<bool> done(static_cast<std::size_t>(theta.size()));
  for (Eigen::Index i = 0; i < theta.size(); ++i) done[i] = m * theta[i] >= kTwoPi;
  return done;
}

std::vector<PlaneFrame> plane_frames(const Eigen::Vector2d& q, const Eigen::Vector2d& k, double m, double n,
                                     double theta, const Eigen::VectorXd& pairs, int frames) {
  check_frames(frames);
  std::vector<PlaneFrame> out;
  for (int f = 0; f < frames; ++f) {
    PlaneFrame p;
    p.shift = f;
    p.q_rotated = rotation_2d((m + f) * theta) * q;
    p.k_rotated = rotation_2d((n + f) * theta) * k;
    const double between = std::atan2(p.k_rotated[1], p.k_rotated[0]) - std::atan2(p.q_rotated[1], p.q_rotated[0]);
    p.angle_between = std::remainder(between, kTwoPi);
    if (p.angle_between <= -kTwoPi / 2) p.angle_between += kTwoPi;
    p.score = p.q_rotated.dot(p.k_rotated);
    p.hand_angles = (m + f) * pairs;
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<Eigen::MatrixXd> shifted_weights(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k,
                                             const Eigen::VectorXd& positions, const AttentionSettings& settings,
                                             const std::vector<long>& shifts) {
  std::vector<Eigen::MatrixXd> out;
  for (const long c : shifts) {
    out.push_back(attention_weights(q, k, (positions.array() + static_cast<double>(c)).matrix(), settings));
  }
  return out;
}

}  // namespace rope::motion
