#include "rope/core/types.hpp"

#include <cmath>
#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/core/tolerance.hpp"

namespace rope {

std::string_view to_string(Layout layout) { return layout == Layout::Interleaved ? "interleaved" : "half"; }

Layout parse_layout(std::string_view text) {
  if (text == "interleaved" || text == "gptj" || text == "meta") return Layout::Interleaved;
  if (text == "half" || text == "neox" || text == "rotate_half") return Layout::Half;
  throw InvalidArgument(error_msg("layout must be 'interleaved' or 'half' (got '{0}')", text));
}

void check_dimension(int d, int max_dim, std::string_view what) {
  if (d < 2 || d % 2 != 0 || d > max_dim) {
    throw InvalidArgument(error_msg("{0} must be even and between {1} and {2} (got {3})", what, 2, max_dim, d));
  }
}

void check_base(double base) {
  if (!std::isfinite(base) || !(base > 1.0)) {
    throw InvalidArgument(error_msg("base must be a finite number > {0} (got {1})", 1, base));
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
    throw InvalidArgument(error_msg(
        "{0} = {1} is beyond what {2} resolves at d = {3}: |position| must be below {4}, where the tolerance κ·ε·(d + |m|) of ({5}) reaches {6} and m·θ has no correct digit left",
        what, fmt::format("{:g}", position), "float64", d, fmt::format("{:.3g}", limit), "M13", 1));
  }
}

}  // namespace rope
