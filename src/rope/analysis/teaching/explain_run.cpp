#include "rope/analysis/teaching/explain_run.hpp"

#include <algorithm>

#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/types.hpp"

namespace rope {

bool ExplainRun::passed() const {
  const std::vector<Check> all = explain::checks(walkthrough, step);
  return std::all_of(all.begin(), all.end(), [](const Check& c) { return c.passed(); });
}

ExplainRun run_explain(const ExplainRequest& request) {
  if (request.positions.size() != 2) {
    throw InvalidArgument(error_msg("{0} takes two positions, M of q and N of k (got {1})", option_name("position"),
                                    request.positions.size()));
  }
  if (request.step && (*request.step < 1 || *request.step > explain::kSteps)) {
    throw InvalidArgument(
        error_msg("{0} must be between {1} and {2} (got {3})", option_name("step"), 1, explain::kSteps, *request.step));
  }
  explain::Setup s;
  s.q = request.q;
  s.k = request.k;
  s.m = request.positions[0], s.n = request.positions[1];
  s.shift = request.shift, s.d = request.dim, s.base = request.base;
  ExplainRun run;
  if (request.pair) {
    const int pair = *request.pair;
    check_dimension(s.d, explain::kMaxDim);
    check_base(s.base);
    if (pair < 0 || pair >= s.d / 2) {
      throw InvalidArgument(
          error_msg("{0} must be between {1} and d/2 − 1 = {2} (got {3})", option_name("pair"), 0, s.d / 2 - 1, pair));
    }
    s.theta = frequencies(s.d, s.base)[pair];
    run.theta_source = ThetaSource::Pair;
    run.pair = pair;
  } else if (request.theta) {
    s.theta = *request.theta;
    run.theta_source = ThetaSource::Given;
  }
  run.walkthrough = explain::explain(s);
  run.step = request.step.value_or(0);
  run.quiet = request.quiet;
  return run;
}

}  // namespace rope
