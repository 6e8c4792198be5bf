#include "rope/analysis/calculators/bound_run.hpp"

#include <utility>
#include <vector>

#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/core/parse.hpp"

namespace rope {

namespace {

std::pair<double, double> parse_base_range(const std::string& text) {
  const std::vector<double> v = parse_real_list(text, option_name("base_range"));
  if (v.size() != 2) {
    throw InvalidArgument(error_msg("{0} must be two numbers LO,HI (got '{1}')", option_name("base_range"), text));
  }
  return {v[0], v[1]};
}

}  // namespace

BoundRun run_bound(const BoundRequest& request) {
  if (request.context < 1 || request.context > kMaxBoundContext) {
    throw InvalidArgument(error_msg("{0} must be between {1} and {2} (got {3})", option_name("context"), 1,
                                    kMaxBoundContext, request.context));
  }
  if (request.per_decade && (*request.per_decade < 1 || *request.per_decade > kMaxPerDecade)) {
    throw InvalidArgument(error_msg("{0} must be between {1} and {2} (got {3})", option_name("per_decade"), 1,
                                    kMaxPerDecade, *request.per_decade));
  }
  BoundRun run;
  run.request = request;
  run.default_range = request.base_range.empty();
  const auto [lo, hi] = run.default_range ? default_base_range(request.context) : parse_base_range(request.base_range);
  const int per_decade = request.per_decade ? *request.per_decade : default_per_decade(request.context);
  if (!run.default_range && !(lo > 1 && hi > lo)) {
    throw InvalidArgument(
        error_msg("{0} LO,HI must have 1 < LO < HI (got {1})", option_name("base_range"), request.base_range));
  }
  run.scan = scan_bound(request.dim, request.context, lo, hi, per_decade);
  return run;
}

}  // namespace rope
