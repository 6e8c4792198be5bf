/// @file
/// The screen of rope check's kernel (check_kernel.hpp, docs/check.md "Streaming: dumps of any size"): the vectors of a
/// block read as stored (float64, float32 or bfloat16: no widened copy), each element's ratio |Δ|/tolerance of (C1)
/// estimated without a square root and with one division per pair, so that only the few elements whose exact ratio can
/// be a maximum (of its position or of its channel) or a failure are computed exactly, by the same operations
/// as before. The estimate is q = Δ² / (‖x‖²·(κ·a·T_i)²) where (C1)'s ratio is r = Δ / (κ·a·‖x‖·T_i): a few
/// roundings of double precision, |q / r² − 1| < 2^−48 (kScreenMargin leaves 2^−30), so that the maxima and
/// the verdict are those of the exact ratios, bit for bit.
#pragma once

#include "rope/analysis/check/dump_blocks.hpp"

namespace rope {

/// The relative margin of the screen's thresholds (far above its own error, far below any gap that matters).
inline constexpr double kScreenMargin = 0x1p-30;

/// The pairs of one vector, at the rotary offset: (x[i], x[half + i]) (half form) or (x[2i], x[2i + 1])
/// (interleaved); `x`, `y` point at the vector's first rotated channel, in `type`.
struct ScreenPairs {
  BlockElement type = BlockElement::F64;
  bool interleaved = false;
  int half = 0;
  double a = 1;  ///< the attention factor
};

/// Writes q of the vector's 2·half rotated channels (in channel order) into `q` and folds them into the
/// channel maxima `cq`. Returns false when some element may fail (q ≥ 1 − 2^−10, or not finite) or its norm
/// is outside [10^−200, 10^200]: the caller then checks the vector exactly and must not trust what was folded.
/// `kt2[i]` = (κ·a·T_i)².
bool screen_vector(const ScreenPairs& p, const double* cs, const double* sn, const double* kt2, const void* x,
                   const void* y, double* q, double* cq);

/// screen_vector's verdict alone, for a comparison that counts failures and keeps no maxima (ComparePass::
/// counts_from): true when every element certainly passes (q < 1 − 2^−10, tested without q) and the norm of each pair
/// of x lies in [10^−200, 10^200]; nothing is written.
bool screen_passes(const ScreenPairs& p, const double* cs, const double* sn, const double* kt2, const void* x,
                   const void* y);

/// The exact ratio of (C1) of rotated channel c (0 … 2·half − 1, channel order) of the vector: the operations of
/// the kernel's exact loop, `k` = κ·a, `term` the angle terms T_i.
double screen_exact_ratio(const ScreenPairs& p, double k, const double* cs, const double* sn, const double* term,
                          const void* x, const void* y, int c);

/// The kernel's fast path on float64 vectors (before the screen, and for the vectors it flags): each rotated
/// element's ratio of (C1) folded into the channel maxima `ch` (from the rotary offset) and the pair maxima
/// `pm`; false when an element fails, is not finite or its norm is beyond sqrt's exact range (the vector is then
/// checked element by element, whose ratios for the elements that pass are these). `k` = κ·a.
bool fold_pair_ratios(bool interleaved, int half, double k, double a, const double* cs, const double* sn,
                      const double* term, const double* x, const double* y, double* ch, double* pm);

/// The kernel's fast path, counting: as fold_pair_ratios, and the number of failing elements (whose ratios, folded,
/// are the exact loop's), or −1 when an element is not finite, a norm is beyond sqrt's exact range or a tolerance or
/// ratio is not finite: the vector is then checked element by element.
int fold_pair_failures(bool interleaved, int half, double k, double a, const double* cs, const double* sn,
                       const double* term, const double* x, const double* y, double* ch, double* pm);

/// The pair norms' bounds of (N1) at one position, in squares: ‖y‖² within [lo, hi] · w2[i] · ‖x‖², w2[i] = (a·‖(cos,
/// sin)‖)² of pair i (a query's scaling included).
struct NormBounds {
  const double* w2 = nullptr;
  double lo = 0, hi = 0;
};

/// The screen of Variant::norms (N1) on one vector, read as stored: true when every rotated pair's norm lies within
/// the bounds and in [10^−200, 10^200] (the caller counts the vector's pairs as passing), false when some pair may
/// not (the caller checks the vector's pairs one by one). Writes each pair's ‖y‖² and w2·‖x‖² to sy[i] and sx[i].
bool screen_norms(const ScreenPairs& p, const NormBounds& b, const void* x, const void* y, double* sy, double* sx);

/// screen_vector and screen_norms on one vector in one loop, its elements loaded once (the passing path of a check
/// screens both, check_kernel.cpp): q and cq as screen_vector; each pair's ‖y‖² and w2·‖x‖², computed as
/// screen_norms computes them, added to sy[i] and sx[i] (a position's sums over its vectors, in the order of the
/// calls). Returns bit 1 when the (C1) screen passes the vector (screen_vector's true), bit 2 when the (N1) screen
/// does (screen_norms's true; otherwise the sums are not to be trusted).
int screen_vector_norms(const ScreenPairs& p, const double* cs, const double* sn, const double* kt2,
                        const NormBounds& b, const void* x, const void* y, double* q, double* cq, double* sy,
                        double* sx);

/// screen_norms with each pair's ‖y‖² and w2·‖x‖² added to sy[i] and sx[i] instead of written there.
bool add_screened_norms(const ScreenPairs& p, const NormBounds& b, const void* x, const void* y, double* sy,
                        double* sx);

/// The counting path of a failing vector (check_kernel.cpp: a thread's vectors after its first failure):
/// screen_vector_norms, and the elements whose q lies above 1 + kScreenMargin counted in *fails. Returns bit 1 when
/// every element's verdict is certain from its q (below 1 − kScreenMargin or above 1 + kScreenMargin, below 10^300, the
/// norm in [10^−200, 10^200]): *fails is then the exact loop's count of (C1)'s failures, and q, folded into cq, stands
/// for the vector's ratios as the screen's does (the maxima computed exactly from it); otherwise the vector is to be
/// checked element by element. Bit 2 as screen_vector_norms's.
int count_screen_norms(const ScreenPairs& p, const double* cs, const double* sn, const double* kt2, const NormBounds& b,
                       const void* x, const void* y, double* q, double* cq, double* sy, double* sx, int* fails);

/// count_screen_norms and, in the same loop over the vector's elements (loaded once), screen_passes's verdict for a
/// second variant that turns the same pairs (the same form, offset and count) by its own tables cs2, sn2, kt22 and
/// attention factor a2: a failing check that compares a named variant for its counts alone (ComparePass::
/// counts_from) beside the expected RoPE. Returns count_screen_norms's bits and *fails, bit for bit; *passes2 is
/// screen_passes's result for the second variant.
int count_screen_norms_verdict(const ScreenPairs& p, const double* cs, const double* sn, const double* kt2,
                               const NormBounds& b, double a2, const double* cs2, const double* sn2, const double* kt22,
                               const void* x, const void* y, double* q, double* cq, double* sy, double* sx, int* fails,
                               bool* passes2);

/// count_screen_norms without (N1): the counting path of a failing vector of a variant compared without its pair
/// norms (a diagnosis's variants). Returns true when every element's verdict is certain from its q, as
/// count_screen_norms's bit 1: *fails is then the exact loop's count.
bool count_screen_vector(const ScreenPairs& p, const double* cs, const double* sn, const double* kt2, const void* x,
                         const void* y, double* q, double* cq, int* fails);

/// flags[c] = 1 where q[c] > 0 and q[c] ≥ near[c], else 0, for c in [0, n); returns whether any is 1.
bool screen_reaching(const double* q, const double* near, long n, unsigned char* flags);

/// The largest of q[0 … n−1] (n ≥ 1, none NaN), with independent lanes.
double screen_largest(const double* q, long n);

}  // namespace rope
