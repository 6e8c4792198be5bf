/// @file
/// The additive sinusoidal position encoding of the original Transformer (Vaswani et al. 2017,
/// arXiv:1706.03762 §3.5), kept as the contrast RoPE is measured against (docs/math.md (M12)):
/// ⟨q + p_m, k + p_n⟩ depends on m and n, not only on n − m.
#pragma once

#include <Eigen/Core>

#include "rope/core/types.hpp"

namespace rope {

/// p_pos with  p(pos, 2i) = sin(pos / base^(2i/d)),  p(pos, 2i+1) = cos(pos / base^(2i/d))      (M12)
/// @throws InvalidArgument for a bad d, base or a non-finite position.
Eigen::VectorXd sinusoidal_encoding(int d, double position, double base = kDefaultBase);

}  // namespace rope
