#include "rope/analysis/calculators/extrapolation_run.hpp"

#include "rope/core/error.hpp"
#include "rope/core/message.hpp"

namespace rope {

ExtrapolationRun run_extrapolation(const ExtrapolationRequest& request) {
  if (request.tune_bases.size() > kMaxTuneBases) {
    throw InvalidArgument(error_msg("at most {0} {1} values (got {2})", kMaxTuneBases, option_name("tune_base"),
                                    request.tune_bases.size()));
  }
  ExtrapolationRun run;
  run.request = request;
  run.critical = critical_dimension(request.dim, request.base, request.train_length);
  run.betas = request.tune_bases.empty() ? std::vector<double>{request.base} : request.tune_bases;
  for (const double beta : run.betas)
    run.bounds.push_back(extrapolation_bound(request.dim, beta, run.critical.dimension));
  if (request.tune_length) {
    run.critical_base = critical_base(request.base, request.train_length, *request.tune_length);
    run.small = small_base_thresholds(*request.tune_length);
  }
  return run;
}

}  // namespace rope
