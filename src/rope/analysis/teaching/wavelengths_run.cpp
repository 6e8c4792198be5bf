// rope wavelengths' computation (wavelengths_run.hpp), for every front end.
#include "rope/analysis/teaching/wavelengths_run.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/types.hpp"
#include "rope/io/csv.hpp"
#include "rope/models/fope.hpp"
#include "rope/models/rope_spec.hpp"

namespace rope {

void check_wavelengths_request(const std::vector<double>& bases, const std::vector<double>& contexts, bool model) {
  if (bases.size() > kMaxWavelengthCurves || contexts.size() > kMaxWavelengthCurves) {
    throw InvalidArgument(error_msg("at most {0} {1} and {2} {3} values", kMaxWavelengthCurves, option_name("base"),
                                    kMaxWavelengthCurves, option_name("context")));
  }
  for (double L : contexts) {
    if (!(L >= 1))
      throw InvalidArgument(error_msg("{0} must be >= {1} (got {2})", option_name("context"), 1, format_number(L)));
  }
  if (model && bases.size() > 1) {
    throw InvalidArgument(error_msg("give one {0} with {1}, {2} or {3}", option_name("base"), option_name("scaling"),
                                    option_name("config"), option_name("model")));
  }
}

WavelengthsRun run_wavelengths(const WavelengthsRequest& request) {
  check_wavelengths_request(request.bases, request.contexts, request.rope.has_value());
  WavelengthsRun run;
  run.contexts = request.contexts;
  run.dim = request.dim;
  if (request.rope) {
    // One model: its original and its scaled wavelengths (docs/scaling.md).
    const ModelRope& rr = *request.rope;
    run.dim = rr.spec.rotary_dim;
    if (rr.spec.axes && rr.spec.axes->vision()) run.vision = rr.spec;
    if (request.named) run.model = rr.spec;
    const RopeParameters& p = rr.spec.params;
    Eigen::VectorXd scaled(p.inv_freq.size());
    for (Eigen::Index i = 0; i < scaled.size(); ++i) scaled[i] = p.inv_freq[i] > 0 ? kTwoPi / p.inv_freq[i] : HUGE_VAL;
    const Eigen::VectorXd original = wavelengths(rr.spec.original);
    if (original == scaled) {
      // No scaling changes them (rope_type default): one column, not two equal ones.
      const std::string base = format_number(rr.spec.config.base);
      run.curves.push_back({Message::same("base = " + base), "base=" + base, original});
    } else {
      run.curves.push_back({msg("original, base = {0}", format_number(rr.spec.config.base)), "original", original});
      run.curves.push_back(
          {Message::same(fmt::format("{} f = {}", to_string(rr.spec.config.type), format_number(p.factor))),
           std::string(to_string(rr.spec.config.type)), scaled});
      run.scaled_pair = true;
    }
    if (run.contexts.empty()) {
      // The model's own lengths: where it was trained and where it is extended to.
      if (p.original_max_position > 0) run.contexts.push_back(static_cast<double>(p.original_max_position));
      if (rr.spec.config.max_position_embeddings && static_cast<double>(*rr.spec.config.max_position_embeddings) !=
                                                        (run.contexts.empty() ? 0.0 : run.contexts.front())) {
        run.contexts.push_back(static_cast<double>(*rr.spec.config.max_position_embeddings));
      }
    }
    run.warnings = p.warnings;
    if (rr.spec.fope) run.fope_kept = fope_kept_pairs(*rr.spec.fope, rr.spec.rotary_dim, rr.spec.config.base);
  } else {
    check_dimension(run.dim);
    for (double base : request.bases) {
      check_base(base);
      run.curves.push_back({Message::same("base = " + format_number(base)), "base=" + format_number(base),
                            wavelengths(frequencies(run.dim, base))});
    }
  }
  for (double L : run.contexts) {
    std::vector<Eigen::Index> first;
    for (const WavelengthsCurve& c : run.curves) first.push_back(first_pair_beyond(c.lambda, L));
    run.first_beyond.push_back(first);
  }
  // The animation: the last curve (a model's scaled one) sweeps to the largest context, else to its longest
  // wavelength.
  const WavelengthsCurve& c = run.curves.back();
  double m_max = run.contexts.empty() ? 1.0 : *std::max_element(run.contexts.begin(), run.contexts.end());
  for (Eigen::Index i = 0; run.contexts.empty() && i < c.lambda.size(); ++i) {
    if (std::isfinite(c.lambda[i])) m_max = std::max(m_max, c.lambda[i]);
  }
  run.sweep_end = std::max(m_max, 2.0);
  return run;
}

}  // namespace rope
