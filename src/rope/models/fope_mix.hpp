/// @file
/// The one computation of FoPE's (F2) (fope.hpp, docs/multi-axis.md §7): a kept pair's cos′ and sin′ from the kept
/// frequencies' cos and sin at a position, mixed by one matrix of the checkpoint's coefficients. rope check's kernel
/// (with its tolerance, (D2)), rope apply and rope matrix (analysis/teaching/fope_apply.hpp) all call it.
#pragma once

#include <cmath>

#include "rope/models/fope.hpp"

namespace rope {

/// Kept pair j's cos′ = Σ_D cos(t·θ_D)·C_cos[h, D, j] and sin′ = Σ_D sin(t·θ_D)·C_sin[h, D, j] (F2), h a matrix of the
/// coefficients (a key-value head, or 0 for one shared matrix), from cos_t[D] = cos(t·θ_D), sin_t[D] = sin(t·θ_D),
/// D < K; with `weight`, also Σ_D (|C_cos[h, D, j]| + |C_sin[h, D, j]|)·weight[D] (rope check's tolerance of the
/// pair).
struct FopePair {
  double cos = 1, sin = 0, weighted = 0;
};
inline FopePair fope_pair(const FopeCoefficients& c, long h, int j, const double* cos_t, const double* sin_t,
                          const double* weight = nullptr) {
  FopePair p{0, 0, 0};
  for (int D = 0; D < c.kept; ++D) {
    const double wc = c.cos_at(h, D, j), ws = c.sin_at(h, D, j);
    p.cos += cos_t[D] * wc, p.sin += sin_t[D] * ws;
    if (weight != nullptr) p.weighted += (std::abs(wc) + std::abs(ws)) * weight[D];
  }
  return p;
}

}  // namespace rope
