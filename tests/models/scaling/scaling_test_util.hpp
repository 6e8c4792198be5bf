/// @file
/// Configurations and checks shared by the scaling tests (tests/models/test_scaling*.cpp). Sources cited:
///   HF test   huggingface/transformers tests/utils/test_modeling_rope_utils.py (LlamaConfig: head_dim 128,
///             base 1e4, max_position_embeddings 2048); its vectors are quoted to 5 significant figures,
///             docs/scaling.md §11 gives the float64 values of the formula, used here.
///   HF code   huggingface/transformers src/transformers/modeling_rope_utils.py (_compute_*_parameters)
///             and RotaryEmbeddingConfigMixin._validate_*_rope_parameters (what HF rejects or warns about).
///   docs/scaling.md §11   the known values of docs/scaling.md ("computed from the formula" unless a source is named).
///   (Sn)      docs/scaling.md.
#pragma once

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <string>
#include <vector>

#include "rope/models/scaling/scaling.hpp"

namespace rope::scaling_test {

inline constexpr double kTwoPi = 6.283185307179586476925286766559;

inline ::testing::AssertionResult RelNear(double got, double want, double rtol) {
  if (std::abs(got - want) <= rtol * std::abs(want)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << got << ", want " << want << " (relative difference "
                                       << std::abs(got - want) / std::abs(want) << " > " << rtol << ")";
}

/// LlamaConfig of the HF tests: head_dim 128, base 1e4, max_position_embeddings 2048.
inline RopeConfig hf_llama(ScalingType type) {
  RopeConfig c;
  c.head_dim = 128;
  c.base = 1e4;
  c.max_position_embeddings = 2048;
  c.type = type;
  return c;
}

inline RopeConfig llama3_config(double factor, long L0, double lf, double hf) {
  RopeConfig c = hf_llama(ScalingType::Llama3);
  c.factor = factor;
  c.original_max_position_embeddings = L0;
  c.low_freq_factor = lf;
  c.high_freq_factor = hf;
  return c;
}

inline RopeConfig longrope_config(int d, long M, long L0) {
  RopeConfig c;
  c.head_dim = d;
  c.base = 1e4;
  c.type = ScalingType::LongRope;
  c.max_position_embeddings = M;
  c.original_max_position_embeddings = L0;
  c.short_factor.assign(static_cast<std::size_t>(d / 2), 2.0);
  for (int j = 0; j < d / 2; ++j) c.long_factor.push_back(j + 1.0);  // HF test: ones(d/2).cumsum()
  return c;
}

inline bool any_contains(const std::vector<std::string>& lines, const std::string& text) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

}  // namespace rope::scaling_test
