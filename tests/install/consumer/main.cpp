// Uses the installed rope library: the version header, the frequencies (docs/math.md (M1)), a rotation
// (M9), and one resolution of a model's RoPE (models/resolve.hpp): a config.json with an override on top.
// Prints values a reader can check by hand; check_install.sh compares them.
#include <cmath>
#include <cstdio>
#include <fstream>

#include <Eigen/Core>

#include "rope/core/apply.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/models/resolve.hpp"
#include "rope/version.hpp"

int main() {
  std::printf("version %s\n", rope::kVersion);
  // θ_i = 10000^(−2i/8): 1, 0.1, 0.01, 0.001.
  const Eigen::VectorXd theta = rope::frequencies(8, 10000.0);
  for (Eigen::Index i = 0; i < theta.size(); ++i) std::printf("theta %g\n", theta[i]);
  // x = e_0 rotated at position m = 1 in the interleaved layout: (cos 1, sin 1, 0, …, 0).
  Eigen::VectorXd x = Eigen::VectorXd::Zero(8);
  x[0] = 1.0;
  const Eigen::VectorXd y = rope::apply_rotary<double>(x, theta, 1.0, rope::Layout::Interleaved);
  std::printf("rotated %.12f %.12f %g\n", y[0], y[1], y.tail(6).norm());
  // A Llama-like config (head_dim 256 / 32 = 8) with linear scaling f = 2, and the factor overridden to 4:
  // θ_i / 4 = 0.25, 0.025, 0.0025, 0.00025. No front end names the setting, so the origin says "factor".
  std::ofstream("consumer_config.json") << R"({"model_type": "llama", "hidden_size": 256, "num_attention_heads": 32,
      "rope_theta": 10000, "rope_scaling": {"rope_type": "linear", "factor": 2}})";
  rope::RopeOverrides overrides;
  overrides.factor = 4.0;
  const rope::ModelRope model = rope::resolve_model_rope({"", "consumer_config.json"}, overrides);
  for (Eigen::Index i = 0; i < model.spec.params.inv_freq.size(); ++i) {
    std::printf("scaled %g\n", model.spec.params.inv_freq[i]);
  }
  std::printf("%s\n", model.spec.origin.back().en.c_str());
  return 0;
}
