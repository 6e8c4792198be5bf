// rope inspect's computation (inspect.hpp): the numbers of a model's report, apart from the printer so that the
// text, the JSON and the Python module's Spec.data share them.
#include "rope/analysis/inspect.hpp"

#include <algorithm>
#include <cmath>

#include "rope/core/constants.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/io/csv.hpp"
#include "rope/models/rope_spec.hpp"

namespace rope {

namespace {

Eigen::VectorXd safe_wavelengths(const Eigen::VectorXd& theta) {
  Eigen::VectorXd l(theta.size());
  for (Eigen::Index i = 0; i < theta.size(); ++i) l[i] = theta[i] > 0 ? kTwoPi / theta[i] : HUGE_VAL;
  return l;
}

}  // namespace

std::vector<Message> config_warnings(const ModelRope& rr) {
  std::vector<Message> w = rr.model.warnings;
  w.insert(w.end(), rr.spec.params.warnings.begin(), rr.spec.params.warnings.end());
  const RopeConfig& c = rr.spec.config;
  const double longest = wavelengths(rr.spec.original).maxCoeff();
  const bool theta_defaulted = std::any_of(rr.spec.origin.begin(), rr.spec.origin.end(), [](const Message& line) {
    return line.en.rfind("rope_theta:", 0) == 0 && line.en.find("default") != std::string::npos;
  });
  if (c.type == ScalingType::Default && c.max_position_embeddings && *c.max_position_embeddings > 8192 &&
      c.base <= 10000 && theta_defaulted) {
    w.push_back(
        msg("rope_theta is not in the config, so HF's default {0} applies, yet max_position_embeddings is {1} with "
            "no scaling: the longest wavelength is {2:.0f} positions. Long-context models set a larger base (Llama 3: "
            "500000) or a scaling method; check that the config is complete",
            format_number(c.base), *c.max_position_embeddings, longest));
  }
  if (c.type == ScalingType::Default && c.max_position_embeddings && *c.max_position_embeddings > 8192 &&
      c.base <= 10000 && !theta_defaulted) {
    w.push_back(
        msg("rope_theta {0} is small for max_position_embeddings {1} with no scaling: the longest wavelength "
            "is {2:.0f} positions (long-context models use a larger base, Llama 3: 500000, or a scaling method)",
            format_number(c.base), *c.max_position_embeddings, longest));
  }
  if (c.max_position_embeddings && rr.spec.params.original_max_position > 0 &&
      rr.spec.params.original_max_position > *c.max_position_embeddings) {
    w.push_back(msg("original_max_position_embeddings {0} is larger than max_position_embeddings {1}",
                    rr.spec.params.original_max_position, *c.max_position_embeddings));
  }
  return w;
}

InspectNumbers inspect_numbers(const ModelRope& rr) {
  const RopeConfig& c = rr.spec.config;
  const RopeParameters& p = rr.spec.params;
  const RopeSpec& spec = rr.spec;
  InspectNumbers n;
  n.lambda = wavelengths(rr.spec.original);
  n.lambda_scaled = safe_wavelengths(p.inv_freq);
  const auto half = p.inv_freq.size();

  const auto add_fact = [&](const Message& what, double L) {
    // dynamic and longrope: the frequencies HF uses for a sequence of length L (seq_len = L).
    const RopeSpec at = spec_at_position(spec, L - 1);
    const Eigen::VectorXd scaled = safe_wavelengths(at.params.inv_freq);
    Eigen::Index turning = 0;
    for (Eigen::Index i = 0; i < half; ++i) turning += scaled[i] <= L ? 1 : 0;
    Message which;
    if (c.type == ScalingType::LongRope) {
      which = Message::same(at.config.seq_len && *at.config.seq_len > p.original_max_position ? "long_factor"
                                                                                              : "short_factor");
    } else if (c.type == ScalingType::Dynamic) {
      // --seq-len, when given, is the one used (spec_at_position keeps it)
      which =
          msg("base' at seq_len {0}", format_number(at.config.seq_len ? static_cast<double>(*at.config.seq_len) : L));
    }
    n.facts.push_back({what, L, turning, half, which});
  };

  if (p.original_max_position > 0) add_fact(msg("original context L0"), static_cast<double>(p.original_max_position));
  if (c.max_position_embeddings) {
    add_fact(Message::same("max_position_embeddings"), static_cast<double>(*c.max_position_embeddings));
  }
  n.warnings = config_warnings(rr);
  n.train = p.original_max_position > 0 ? static_cast<double>(p.original_max_position)
            : c.max_position_embeddings ? static_cast<double>(*c.max_position_embeddings)
                                        : 0.0;
  // (M16) on both sets of frequencies, at the same length, each named by its set (as `rope wavelengths` does).
  n.critical = n.train > 0 ? first_pair_beyond(n.lambda, n.train) : -1;
  const bool scaled_differ = n.lambda_scaled != n.lambda;
  n.critical_scaled = n.train > 0 && scaled_differ ? first_pair_beyond(n.lambda_scaled, n.train) : -1;
  return n;
}

InspectReport inspect_model(ModelRope rope) {
  InspectReport r{std::move(rope), {}};
  r.numbers = inspect_numbers(r.rope);
  return r;
}

}  // namespace rope
