#include "rope/core/types.hpp"

#include <cmath>
#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/core/tolerance.hpp"

namespace rope {

std::string_view to_string(Layout layout) {
  return layout == Layout::Interleaved ? "interleaved" : "half";
}

Layout parse_layout(std::string_view text) {
  if (text == "interleaved" || text == "gptj" || text == "meta") return Layout::Interleaved;
  if (text == "half" || text == "neox" || text == "rotate_half") return Layout::Half;
  throw InvalidArgument(error_msg("layout must be 'interleaved' or 'half' (got '{0}')", text));
}

void check_dimension(int d, int max_dim, std::string_view what) {
  if (d < 2 || d % 2 != 0 || d > max_dim) {
    throw InvalidArgument(
        fmt::format("{} must be even and between 2 and {} (got {})", what, max_dim, d));
  }
}

void check_base(double base) {
  if (!std::isfinite(base) || !(base > 1.0)) {
    throw InvalidArgument(fmt::format("base must be a finite number > 1 (got {})", base));
  }
}

void check_position(double position, std::string_view what) {
  if (!std::isfinite(position)) {
    throw InvalidArgument(error_msg("{0} must be a finite number (got {1})", what, position));
  }
}

double max_resolvable_position(int d) {
  // relative_tolerance(ε, d, M) = κ·ε·(d + M) < 1  <=>  M < 1/(κ·ε) − d                       (M13)
  return 1.0 / (kToleranceSafety * machine_epsilon<double>()) - d;
}

void check_position_resolvable(double position, int d, std::string_view what) {
  check_position(position, what);
  const double limit = max_resolvable_position(d);
  if (std::abs(position) >= limit) {
    throw InvalidArgument(fmt::format(
        "{} = {:g} is beyond what float64 resolves at d = {}: |position| must be below {:.3g}, where the tolerance κ·ε·(d + |m|) "
        "of (M13) reaches 1 and m·θ has no correct digit left",
        what, position, d, limit));
  }
}

}  // namespace rope
