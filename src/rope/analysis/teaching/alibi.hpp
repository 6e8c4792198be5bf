/// @file
/// ALiBi, Attention with Linear Biases (Press, Smith & Lewis 2021, "Train Short, Test Long",
/// arXiv:2108.12409 §3): no position vector at all; each head h adds a fixed penalty −m_h·|i − j| to
/// the score of query i and key j. The penalty depends on i − j only, so ALiBi is shift-invariant
/// exactly, and it has no trainable parameter.
#pragma once

#include <Eigen/Core>
#include <vector>

namespace rope {

/// Largest number of heads accepted (real models use at most a few hundred).
inline constexpr int kMaxAlibiHeads = 1024;

/// The slopes m_1 … m_n of n heads, in head order, as the paper's code computes them
/// (ofirpress/attention_with_linear_biases, fairseq/models/transformer.py, get_slopes):
///
///   - n a power of two: the geometric sequence that starts at 2^(−8/n) with ratio 2^(−8/n),
///     m_h = 2^(−8h/n), h = 1 … n. For 8 heads: 1/2, 1/4, …, 1/256 (§3).
///   - otherwise, with c the largest power of two below n: the c slopes of c heads, then the first
///     n − c of every other slope (the 1st, 3rd, 5th, …) of 2c heads, m = 2^(−4k/c) for k = 1, 3, 5, ….
///     For 12 heads: 2^−1 … 2^−8, then 2^−0.5, 2^−1.5, 2^−2.5, 2^−3.5. The sequence is then not sorted.
///
/// Each slope is computed as exp2(exponent): exact for the powers of two. The paper's code multiplies
/// start·ratio^i and so differs from the exact value by a few ulps for n = 16 (0.5000000000000001).
/// @throws InvalidArgument unless 1 <= heads <= kMaxAlibiHeads.
std::vector<double> alibi_slopes(int heads);

/// The bias of one head: b_ij = −slope·|p_i − p_j| for the positions p of the tokens (queries and keys
/// share positions). The paper's language models are causal and use only j <= i, where |p_i − p_j| =
/// p_i − p_j; this matrix also fills j > i symmetrically, as a bidirectional use of ALiBi would.
/// @throws InvalidArgument if slope is negative or not finite, or a position is not finite.
Eigen::MatrixXd alibi_bias(const Eigen::VectorXd& positions, double slope);

}  // namespace rope
