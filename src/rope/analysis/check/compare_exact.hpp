/// @file
/// What rope check computes, the exact path, read end to end in compare_exact.cpp:
///   1. the expectation: what one variant needs at every element (make_setup: its pairs' channels, the error model's
///      constants ε_T and ε_A, the factors c_i of (C2), the attention factor a);
///   2. the position each sequence index turns by under the variant (variant_position: restarts, offsets, a cache's
///      length, the axes of a multi-axis position);
///   3. the position table: cos, sin and the angle term of (C1) of every pair at that position (position_table);
///   4. every element against its tolerance, one by one (compare_vector_exact, the line marked (C1)); the pair norms
///      of (N1) for a variant that compares them (compare_norms_exact); FoPE's mixed rotations (F2)–(F4)
///      (compare_position_fope);
///   5. the verdict: the counts, the maxima per index and per channel, the first failure (DumpComparison).
/// compare_exact runs these over a range, one vector at a time on one thread. The check itself runs the fast path
/// (check/fast/check_kernel.hpp: screens, threads, fused passes, streamed blocks), made of the same pieces and held to
/// the same numbers, bit for bit, by tests/cli/test_corpus.cpp on every corpus dump.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "rope/analysis/check/check.hpp"
#include "rope/analysis/check/dump_blocks.hpp"

namespace rope {

/// Compares the range with every variant, element by element (`positions`: one per index of the range), visiting the
/// indices of `pass.only` alone when it names some; the pass's other fields change how the fast path works, not what
/// it computes, and are not read here. The comparisons are those compare_blocks returns.
/// @throws InvalidArgument as compare_dump, or what `fetch` throws.
std::vector<DumpComparison> compare_exact(const BlockShape& shape, const std::vector<AxisPosition>& positions,
                                          const std::vector<Variant>& variants, const BlockFetch& fetch,
                                          const ComparePass& pass = {});

/// The pieces of the exact path, which the fast path calls for what it does not make fast.
namespace exact_path {

/// What one variant needs at every element: channels of each pair, the error model's constants.
struct Setup {
  const Variant* variant = nullptr;
  int d = 0, half = 0;
  double eps_t = 0, eps_a = 0, a = 1;
  Eigen::VectorXd c_i;
  /// Pair i is read at channels (ca, cb) of x and written at (oa, ob) of y: the same, but for de-interleaved
  /// output (check.hpp pair_channels).
  std::vector<int> ca, cb, oa, ob, unrotated;
  const AxisMap* map = nullptr;
  /// HF's XD-RoPE (axes.hpp (A11)): the pair's second channel turns by its own stream, so a position's tables hold
  /// 2·half entries, the second channels' from half on (stride); otherwise half.
  bool split = false;
  bool sin_second = false;  ///< AxisMap::sin_from_second: both channels take the cos of a(j) and the sin of b(j)
  int stride = 0;
  int off = 0;
  /// The pairs are (off + i, off + half + i) (half) or (off + 2i, off + 2i + 1) (interleaved), in place: the form
  /// the fast path's screens read.
  bool half_form = false, interleaved_form = false;
  /// (N1): a pair's norm within norm_rel·a·‖x‖ + norm_floor (Variant::norms).
  double norm_rel = 0, norm_floor = 0;
  /// FoPE (models/fope.hpp): the coefficients, the heads of a batch row and the query heads per matrix (group g's
  /// matrix: (g mod heads) / per_matrix; one shared matrix: per_matrix = heads).
  const FopeCoefficients* fope = nullptr;
  long fope_heads = 1, fope_per_matrix = 1;
  long fope_matrix = -1;  ///< RopeExpectation::fope_matrix: every group on this matrix (−1: by its head's index)
};

/// The variant's setup for a range of `shape`. @throws InvalidArgument when its rotary dimension, axis map or FoPE
/// coefficients do not fit the dump.
Setup make_setup(const Variant& variant, const BlockShape& shape);

/// The position index s of the range turns by under the variant: restarts, the sequence index, the offset.
AxisPosition variant_position(const Variant& v, const std::vector<AxisPosition>& positions, long s);

/// The position table of one position: cos, sin and the angle term of (C1) of every pair at position p, each
/// multiplied by a query's scaling (S21), written at cs[i], sn[i], term[i] (for a split map, HF's XD-RoPE, the pairs'
/// second channels' after them at half + i), and the scaling itself at *scale.
///
/// This is the one place where the reference's cos and sin are made: every comparison, exact or fast, reads them from
/// here. A cos/sin table the user gives (a model's cache) is to plug in at this seam, as a table of rows per position
/// in place of std::cos and std::sin of m·θ_i, with its own term of (C1) (the table's rounding instead of the angle's).
void position_table(const Setup& u, const AxisPosition& p, double* cs, double* sn, double* term, double* scale);

/// The bound of (C1) on the error of pair i's angle at position component m (the pair's own, a latent grid's scale
/// applied): ε_A·(1 + c_i·|m|·θ_i) (C2), and the terms of an angle chain rounded step by step and of fast-math's
/// shortfall where the variant has them.
double angle_bound(const Setup& u, int i, double m);

/// The angle term of (C1) of a pair: scale·(2·ε_T + bound + steps/κ), `bound` its angle_bound, `steps` the steps of a
/// rounded table's type its cos and sin may have moved by, `scale` a query's scaling (S21).
double pair_term(const Setup& u, double bound, double steps, double scale);

/// a·‖(cos_i, sin_i)‖ of each pair at one position (a query's scaling included): the factor (N1) multiplies ‖x‖ by.
void norm_factors(const Setup& u, const double* cs, const double* sn, double* q);

/// One variant's tally over the vectors compared: the counts, the maxima per channel, the first failure.
struct Tally {
  double max_ratio = 0;
  long failing = 0, total = 0;
  std::vector<double> channel;
  std::vector<long> group_failing;
  long first_seq = -1, first_group = -1;
  int first_rank = -1, first_channel = -1;  // rank: the order in which (C1) visits the channels of a vector
  double first_expected = 0, first_got = 0, first_tolerance = 0;
  int first_pair = -1;  // the first failure's pair (−1: a pass-through channel) and its values
  double first_x[2] = {0, 0}, first_y[2] = {0, 0};
  NonFiniteValues before_non_finite, after_non_finite;

  bool before(long s, long g, int rank) const {
    return first_seq < 0 || s < first_seq ||
           (s == first_seq && (g < first_group || (g == first_group && rank < first_rank)));
  }
  void fail(long s, long g, int rank, int ch, double expected, double got, double tol) {
    ++failing;
    ++group_failing[static_cast<std::size_t>(g)];
    if (before(s, g, rank)) {
      first_seq = s, first_group = g, first_rank = rank, first_channel = ch;
      first_expected = expected, first_got = got, first_tolerance = tol;
      first_pair = -1;
    }
  }
};

/// One vector x → y at index s of group g under (C1), every element recorded one by one; returns its largest
/// ratio. `cs`, `sn`, `term`, `scale`: position_table's at the vector's position.
double compare_vector_exact(const Setup& u, const double* cs, const double* sn, const double* term, double scale,
                            const double* x, const double* y, long s, long g, Tally& t);

/// Variant::norms: every rotated pair of one vector by its norm (N1), ‖y‖ against a·‖x‖ (`q`: norm_factors); the
/// vector's Σ‖y‖², Σ(a·‖x‖)² added to sy, sx when both are finite. Returns the vector's largest ratio.
double compare_norms_exact(const Setup& u, const double* cs, const double* sn, const double* q, const double* x,
                           const double* y, long s, long g, Tally& t, double& sy, double& sx);

/// HeadsSeqMixed: every vector of index s (block from s0) at its own position; returns the index's largest ratio.
/// `x`, `y`: scratch for one vector widened to double.
double compare_position_mixed(const Setup& u, const BlockShape& shape, const std::vector<AxisPosition>& positions,
                              const BlockView& view, long s, long s0, Tally& t, std::vector<double>& x,
                              std::vector<double>& y);

/// FoPE: every vector of index s (block from s0) against its key-value head's scaled rotations at position p; returns
/// the index's largest ratio.
double compare_position_fope(const Setup& u, const BlockShape& shape, const AxisPosition& p, const BlockView& view,
                             long s, long s0, Tally& t, std::vector<double>& x, std::vector<double>& y);

/// A tally's counts and maxima into the comparison (the first failure aside: finish).
void merge(DumpComparison& c, const Tally& t);

/// The first failure of `first` and the norms' sums per index (added in index order) into the comparison.
void finish(DumpComparison& c, const Tally& first, const std::vector<double>& norm_y2,
            const std::vector<double>& norm_x2);

}  // namespace exact_path
}  // namespace rope
