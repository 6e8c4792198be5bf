/// @file
/// Test helper: the expectation rope check compares a dump with, for Hugging Face's half layout and
/// θ_j = base^(−2j/r) over the first r of d channels (the shared fixture of the check, stream, diff and
/// llama-variant tests).
#pragma once

#include <cmath>

#include "rope/analysis/check.hpp"
#include "rope/core/constants.hpp"

namespace rope::test {

/// The half layout, head dimension d, rotary dimension r (0: d), the base and the attention factor a.
inline RopeExpectation expect_half(int d, int r = 0, double base = kDefaultBase, double a = 1.0) {
  if (r == 0) r = d;
  RopeExpectation e;
  e.layout = Layout::Half;
  e.head_dim = d;
  e.theta.resize(r / 2);
  for (int j = 0; j < r / 2; ++j) e.theta[j] = std::pow(base, -2.0 * j / r);
  e.base = base;
  e.attention_factor = a;
  return e;
}

}  // namespace rope::test
