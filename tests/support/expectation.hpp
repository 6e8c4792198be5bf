/// @file
/// Test helper: the expectation rope check compares a dump with, for Hugging Face's half layout and
/// θ_j = base^(−2j/r) over the first r of d channels (the shared fixture of the check, stream, diff and
/// llama-variant tests).
#pragma once

#include <cmath>
#include <vector>

#include "rope/analysis/check/check.hpp"
#include "rope/core/constants.hpp"

namespace rope::test {

/// The half layout, head dimension d, rotary dimension r (0: d), the base and the attention factor a.
inline RopeExpectation expect_half(int d, int r = 0, double base = kDefaultBase, double a = 1.0) {
  if (r == 0) r = d;
  RopeExpectation e;
  e.rope.layout = Layout::Half;
  e.rope.head_dim = d;
  e.rope.params.inv_freq.resize(r / 2);
  for (int j = 0; j < r / 2; ++j) e.rope.params.inv_freq[j] = std::pow(base, -2.0 * j / r);
  e.rope.config.base = base;
  e.rope.params.attention_factor = a;
  return e;
}

/// M-RoPE positions as Hugging Face's get_rope_index lays them out (Qwen2-VL): `before` text tokens at (p, p, p), a
/// side × side image at t = before with h, w = before … before + side − 1, then `after` text tokens from before + side.
inline std::vector<AxisPosition> text_image_positions(int before, int side, int after) {
  std::vector<AxisPosition> p;
  const auto add = [&](double t, double h, double w) {
    AxisPosition a;
    a.count = 3, a.value = {t, h, w, 0};
    p.push_back(a);
  };
  for (int k = 0; k < before; ++k) add(k, k, k);
  for (int h = 0; h < side; ++h) {
    for (int w = 0; w < side; ++w) add(before, before + h, before + w);
  }
  for (int k = 0; k < after; ++k) add(before + side + k, before + side + k, before + side + k);
  return p;
}

}  // namespace rope::test
