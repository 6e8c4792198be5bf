// The screen of rope check's kernel (check_screen.hpp): one loop per storage type and pair form, a copy of
// each per x86-64 level (core/simd.hpp), compiled without FMA contraction like the kernel (src/CMakeLists.txt)
// so that screen_exact_ratio computes the bits of the kernel's exact loop.
#include "rope/analysis/check/fast/check_screen.hpp"

#include <cmath>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <limits>

#include "rope/core/simd.hpp"

namespace rope {
namespace {

inline double load(const double* p, long i) { return p[i]; }
inline double load(const float* p, long i) { return static_cast<double>(p[i]); }
inline double load(const std::uint16_t* p, long i) {  // bfloat16: the high half of a float32
  const std::uint32_t bits = static_cast<std::uint32_t>(p[i]) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return static_cast<double>(f);
}

/// The verdicts of (C1) from a vector's q (2·half of them, in cache): failing above 1 + kScreenMargin, passing below
/// 1 − kScreenMargin, uncertain between (or NaN, or not below 10^300). The margin is the screen's for the maxima, 2^18
/// times q's own error: a vector is uncertain only with an element within 10^−9 of its tolerance. Returns whether
/// every verdict is certain; *fails the failing count.
inline bool count_from_q(int half, const double* __restrict q, int* fails) {
  int failing = 0, bad = 0;
  for (int c = 0; c < 2 * half; ++c) {
    const double v = q[c];
    const int f = static_cast<int>(v > 1 + kScreenMargin);
    failing += f;
    bad |= (static_cast<int>(!(v < 1 - kScreenMargin)) & (f ^ 1)) | static_cast<int>(!(v < 1e300));
  }
  *fails = failing;
  return bad == 0;
}

/// Pair i's ‖x‖² and its elements' differences from RoPE's, da and db (the operations of screen and passes, which
/// screen_and_norms writes out itself with y loaded once for the norms too: the same expressions, the same bits). Pair
/// i: (x[ia], x[ib]), ia = i·Step, ib = ia + Other, with Step 1, Other = half (half form) or Step 2, Other 1
/// (interleaved).
struct PairTerms {
  double n2, da, db;
};

template <class E>
inline PairTerms pair_terms(long ia, long ib, int i, double a, const double* cs, const double* sn,
                            const E* __restrict x, const E* __restrict y) {
  const double x1 = load(x, ia), x2 = load(x, ib);
  return {x1 * x1 + x2 * x2, load(y, ia) - a * (x1 * cs[i] - x2 * sn[i]), load(y, ib) - a * (x1 * sn[i] + x2 * cs[i])};
}

/// 1 where a pair's ‖x‖² lies outside [10^−200, 10^200] (or is not a number): its q is not to be trusted.
inline int norm_out_of_range(double n2) { return static_cast<int>(!(n2 >= 1e-200)) | static_cast<int>(!(n2 <= 1e200)); }

/// q of every rotated element, folded into cq. True when the norms are in range and, with QBound, every q lies below
/// 1 − 2^−10.
template <int Step, class E, bool QBound = true>
inline bool screen(int half, double a, const double* cs, const double* sn, const double* kt2, const E* __restrict x,
                   const E* __restrict y, double* __restrict q, double* __restrict cq) {
  const int other = Step == 1 ? half : 1;
  int bad = 0;
  for (int i = 0; i < half; ++i) {
    const long ia = static_cast<long>(Step) * i, ib = ia + other;
    const PairTerms t = pair_terms(ia, ib, i, a, cs, sn, x, y);
    const double inv = 1.0 / (t.n2 * kt2[i]);
    const double qa = t.da * t.da * inv, qb = t.db * t.db * inv;
    bad |= norm_out_of_range(t.n2);
    if (QBound) bad |= static_cast<int>(!(qa < 1 - 0x1p-10)) | static_cast<int>(!(qb < 1 - 0x1p-10));
    q[ia] = qa, q[ib] = qb;
    cq[ia] = std::max(cq[ia], qa);
    cq[ib] = std::max(cq[ib], qb);
  }
  return bad == 0;
}

/// screen's verdict alone (screen_passes): nothing stored, and q < 1 − 2^−10 tested as d² < (1 − 2^−10)·‖x‖²·kt2,
/// without the division (the two differ by a few roundings, far inside the screen's margin).
template <int Step, class E>
inline bool passes(int half, double a, const double* cs, const double* sn, const double* kt2, const E* __restrict x,
                   const E* __restrict y) {
  const int other = Step == 1 ? half : 1;
  int bad = 0;
  for (int i = 0; i < half; ++i) {
    const long ia = static_cast<long>(Step) * i, ib = ia + other;
    const PairTerms t = pair_terms(ia, ib, i, a, cs, sn, x, y);
    const double limit = (1 - 0x1p-10) * (t.n2 * kt2[i]);
    bad |=
        static_cast<int>(!(t.da * t.da < limit)) | static_cast<int>(!(t.db * t.db < limit)) | norm_out_of_range(t.n2);
  }
  return bad == 0;
}

#define ROPE_PASSES(name, step, E)                                                                          \
  ROPE_CLONES bool name(int h, double a, const double* cs, const double* sn, const double* kt2, const E* x, \
                        const E* y) {                                                                       \
    return passes<step>(h, a, cs, sn, kt2, x, y);                                                           \
  }
ROPE_PASSES(passes_half_f64, 1, double)
ROPE_PASSES(passes_half_f32, 1, float)
ROPE_PASSES(passes_half_bf16, 1, std::uint16_t)
ROPE_PASSES(passes_inter_f64, 2, double)
ROPE_PASSES(passes_inter_f32, 2, float)
ROPE_PASSES(passes_inter_bf16, 2, std::uint16_t)
#undef ROPE_PASSES

ROPE_CLONES bool screen_half_f64(int h, double a, const double* cs, const double* sn, const double* kt2,
                                 const double* x, const double* y, double* q, double* cq) {
  return screen<1>(h, a, cs, sn, kt2, x, y, q, cq);
}
ROPE_CLONES bool screen_half_f32(int h, double a, const double* cs, const double* sn, const double* kt2, const float* x,
                                 const float* y, double* q, double* cq) {
  return screen<1>(h, a, cs, sn, kt2, x, y, q, cq);
}
ROPE_CLONES bool screen_half_bf16(int h, double a, const double* cs, const double* sn, const double* kt2,
                                  const std::uint16_t* x, const std::uint16_t* y, double* q, double* cq) {
  return screen<1>(h, a, cs, sn, kt2, x, y, q, cq);
}
ROPE_CLONES bool screen_inter_f64(int h, double a, const double* cs, const double* sn, const double* kt2,
                                  const double* x, const double* y, double* q, double* cq) {
  return screen<2>(h, a, cs, sn, kt2, x, y, q, cq);
}
ROPE_CLONES bool screen_inter_f32(int h, double a, const double* cs, const double* sn, const double* kt2,
                                  const float* x, const float* y, double* q, double* cq) {
  return screen<2>(h, a, cs, sn, kt2, x, y, q, cq);
}
ROPE_CLONES bool screen_inter_bf16(int h, double a, const double* cs, const double* sn, const double* kt2,
                                   const std::uint16_t* x, const std::uint16_t* y, double* q, double* cq) {
  return screen<2>(h, a, cs, sn, kt2, x, y, q, cq);
}

/// The rotated pairs of a vector whose pairs are (xa[i·step], xb[i·step]): each element's ratio folded into
/// the channel maxima cha[i·step], chb[i·step] and the maxima pm[i] of its pair at this position. Returns the number
/// of failing elements, or −1 when an element is not finite, its norm is beyond sqrt's exact range, its tolerance is
/// not finite or its ratio beyond 10^300: the vector is then recorded again by the kernel's exact loop, which computes
/// ‖x‖ as this loop does wherever it returns a count (sqrt of x1² + x2², hypot elsewhere), so that every ratio and
/// every verdict folded or counted here is the exact loop's, bit for bit. Branch-free, so that the compiler
/// vectorizes it (this file is compiled with -fno-math-errno: sqrt sets no errno).
template <int Step>
inline int pair_ratios(int half, double k, double a, const double* cs, const double* sn, const double* term,
                       const double* xa, const double* xb, const double* ya, const double* yb, double* __restrict cha,
                       double* __restrict chb, double* __restrict pm) {
  int bad = 0, fails = 0;
  for (int i = 0; i < half; ++i) {
    const double x1 = xa[Step * i], x2 = xb[Step * i];
    const double n2 = x1 * x1 + x2 * x2;
    const double tol = k * std::sqrt(n2) * term[i];  // (C1), as the kernel's exact loop
    const double da = std::abs(ya[Step * i] - a * (x1 * cs[i] - x2 * sn[i]));
    const double db = std::abs(yb[Step * i] - a * (x1 * sn[i] + x2 * cs[i]));
    fails += static_cast<int>(!(da <= tol)) + static_cast<int>(!(db <= tol));
    const double t = std::max(tol, std::numeric_limits<double>::min());       // tol = 0 passes only da = 0: ratio 0
    const double ra = std::min(da / t, 1e300), rb = std::min(db / t, 1e300);  // a failing element: its ratio
    bad |= static_cast<int>(!(n2 < 1e300)) | (static_cast<int>(n2 <= 1e-300) & static_cast<int>(n2 != 0)) |
           static_cast<int>(!(tol < 1e300)) | static_cast<int>(!(ra < 1e300)) | static_cast<int>(!(rb < 1e300));
    cha[Step * i] = std::max(cha[Step * i], ra);
    chb[Step * i] = std::max(chb[Step * i], rb);
    pm[i] = std::max(pm[i], std::max(ra, rb));
  }
  return bad == 0 ? fails : -1;
}

// A copy of each per x86-64 level, chosen when the program starts (core/simd.hpp); no FMA contraction in this
// file (src/CMakeLists.txt), so that every copy computes the same bits.
ROPE_CLONES int half_ratios(int half, double k, double a, const double* cs, const double* sn, const double* term,
                            const double* x, const double* y, double* ch, double* pm) {
  return pair_ratios<1>(half, k, a, cs, sn, term, x, x + half, y, y + half, ch, ch + half, pm);
}

ROPE_CLONES int interleaved_ratios(int half, double k, double a, const double* cs, const double* sn, const double* term,
                                   const double* x, const double* y, double* ch, double* pm) {
  return pair_ratios<2>(half, k, a, cs, sn, term, x, x + 1, y, y + 1, ch, ch + 1, pm);
}

/// (N1) in squares, pair i = (x[i·Step], x[i·Step + Other]): ‖y‖² within [lo, hi]·w2[i]·‖x‖² (bounds a margin
/// inside (N1)'s, so that the square roots' roundings cannot cross them), every norm in [10^−200, 10^200]; the
/// squares written to sy[i], sx[i].
template <int Step, class E>
inline bool norms(int half, const NormBounds& b, const E* __restrict x, const E* __restrict y, double* __restrict sy,
                  double* __restrict sx) {
  const int other = Step == 1 ? half : 1;
  const double* __restrict w2 = b.w2;
  const double lo = b.lo, hi = b.hi;
  int bad = 0;
  for (int i = 0; i < half; ++i) {
    const long ia = static_cast<long>(Step) * i, ib = ia + other;
    const double x1 = load(x, ia), x2 = load(x, ib), y1 = load(y, ia), y2 = load(y, ib);
    const double nx2 = w2[i] * (x1 * x1 + x2 * x2), ny2 = y1 * y1 + y2 * y2;
    bad |= static_cast<int>(!(ny2 >= lo * nx2)) | static_cast<int>(!(ny2 <= hi * nx2)) |
           static_cast<int>(!(nx2 >= 1e-200)) | static_cast<int>(!(nx2 <= 1e200));
    sy[i] = ny2, sx[i] = nx2;
  }
  return bad == 0;
}

ROPE_CLONES bool norms_half_f64(int h, const NormBounds& b, const double* x, const double* y, double* sy, double* sx) {
  return norms<1>(h, b, x, y, sy, sx);
}
ROPE_CLONES bool norms_half_f32(int h, const NormBounds& b, const float* x, const float* y, double* sy, double* sx) {
  return norms<1>(h, b, x, y, sy, sx);
}
ROPE_CLONES bool norms_half_bf16(int h, const NormBounds& b, const std::uint16_t* x, const std::uint16_t* y, double* sy,
                                 double* sx) {
  return norms<1>(h, b, x, y, sy, sx);
}
ROPE_CLONES bool norms_inter_f64(int h, const NormBounds& b, const double* x, const double* y, double* sy, double* sx) {
  return norms<2>(h, b, x, y, sy, sx);
}
ROPE_CLONES bool norms_inter_f32(int h, const NormBounds& b, const float* x, const float* y, double* sy, double* sx) {
  return norms<2>(h, b, x, y, sy, sx);
}
ROPE_CLONES bool norms_inter_bf16(int h, const NormBounds& b, const std::uint16_t* x, const std::uint16_t* y,
                                  double* sy, double* sx) {
  return norms<2>(h, b, x, y, sy, sx);
}

/// The loops of screen and norms in one (screen_vector_norms): the same operations on the same values, so that q,
/// the verdicts and the squares are theirs bit for bit; the squares added to sy, sx. Without QBound, bit 1 says only
/// that the norms of x are in range.
template <int Step, class E, bool QBound = true>
inline int screen_and_norms(int half, double a, const double* cs, const double* sn, const double* kt2,
                            const NormBounds& b, const E* __restrict x, const E* __restrict y, double* __restrict q,
                            double* __restrict cq, double* __restrict sy, double* __restrict sx) {
  const int other = Step == 1 ? half : 1;
  const double* __restrict w2 = b.w2;
  const double lo = b.lo, hi = b.hi;
  int bad = 0, bad_norm = 0;
  for (int i = 0; i < half; ++i) {
    const long ia = static_cast<long>(Step) * i, ib = ia + other;
    const double x1 = load(x, ia), x2 = load(x, ib), y1 = load(y, ia), y2 = load(y, ib);
    const double n2 = x1 * x1 + x2 * x2;
    const double da = y1 - a * (x1 * cs[i] - x2 * sn[i]);
    const double db = y2 - a * (x1 * sn[i] + x2 * cs[i]);
    const double inv = 1.0 / (n2 * kt2[i]);
    const double qa = da * da * inv, qb = db * db * inv;
    bad |= norm_out_of_range(n2);
    if (QBound) bad |= static_cast<int>(!(qa < 1 - 0x1p-10)) | static_cast<int>(!(qb < 1 - 0x1p-10));
    q[ia] = qa, q[ib] = qb;
    cq[ia] = std::max(cq[ia], qa);
    cq[ib] = std::max(cq[ib], qb);
    const double nx2 = w2[i] * n2, ny2 = y1 * y1 + y2 * y2;
    bad_norm |= static_cast<int>(!(ny2 >= lo * nx2)) | static_cast<int>(!(ny2 <= hi * nx2)) |
                static_cast<int>(!(nx2 >= 1e-200)) | static_cast<int>(!(nx2 <= 1e200));
    sy[i] += ny2, sx[i] += nx2;
  }
  return (bad == 0 ? 1 : 0) | (bad_norm == 0 ? 2 : 0);
}

ROPE_CLONES int both_half_f64(int h, double a, const double* cs, const double* sn, const double* kt2,
                              const NormBounds& b, const double* x, const double* y, double* q, double* cq, double* sy,
                              double* sx) {
  return screen_and_norms<1>(h, a, cs, sn, kt2, b, x, y, q, cq, sy, sx);
}
ROPE_CLONES int both_half_f32(int h, double a, const double* cs, const double* sn, const double* kt2,
                              const NormBounds& b, const float* x, const float* y, double* q, double* cq, double* sy,
                              double* sx) {
  return screen_and_norms<1>(h, a, cs, sn, kt2, b, x, y, q, cq, sy, sx);
}
ROPE_CLONES int both_half_bf16(int h, double a, const double* cs, const double* sn, const double* kt2,
                               const NormBounds& b, const std::uint16_t* x, const std::uint16_t* y, double* q,
                               double* cq, double* sy, double* sx) {
  return screen_and_norms<1>(h, a, cs, sn, kt2, b, x, y, q, cq, sy, sx);
}
ROPE_CLONES int both_inter_f64(int h, double a, const double* cs, const double* sn, const double* kt2,
                               const NormBounds& b, const double* x, const double* y, double* q, double* cq, double* sy,
                               double* sx) {
  return screen_and_norms<2>(h, a, cs, sn, kt2, b, x, y, q, cq, sy, sx);
}
ROPE_CLONES int both_inter_f32(int h, double a, const double* cs, const double* sn, const double* kt2,
                               const NormBounds& b, const float* x, const float* y, double* q, double* cq, double* sy,
                               double* sx) {
  return screen_and_norms<2>(h, a, cs, sn, kt2, b, x, y, q, cq, sy, sx);
}
ROPE_CLONES int both_inter_bf16(int h, double a, const double* cs, const double* sn, const double* kt2,
                                const NormBounds& b, const std::uint16_t* x, const std::uint16_t* y, double* q,
                                double* cq, double* sy, double* sx) {
  return screen_and_norms<2>(h, a, cs, sn, kt2, b, x, y, q, cq, sy, sx);
}

/// screen_and_norms counting (count_screen_norms): the same q, cq and squares, bit for bit, and the elements whose q
/// lies above 1 + kScreenMargin counted as failing. Bit 1 when every element's verdict is certain from q (below
/// 1 − kScreenMargin or above 1 + kScreenMargin, q < 10^300, the norm in [10^−200, 10^200]): its (C1) count is then
/// the exact loop's, since |q / r² − 1| < 2^−48; bit 2 as screen_and_norms's.
template <int Step, class E>
inline int count_screen_and_norms(int half, double a, const double* cs, const double* sn, const double* kt2,
                                  const NormBounds& b, const E* __restrict x, const E* __restrict y,
                                  double* __restrict q, double* __restrict cq, double* __restrict sy,
                                  double* __restrict sx, int* fails) {
  const int both = screen_and_norms<Step, E, false>(half, a, cs, sn, kt2, b, x, y, q, cq, sy, sx);
  // The verdicts from q, in a loop of their own over the vector's q (in cache).
  const bool certain = count_from_q(half, q, fails);
  return (certain && (both & 1) != 0 ? 1 : 0) | (both & 2);
}

#define ROPE_COUNT_SCREEN(name, step, E)                                                                            \
  ROPE_CLONES int name(int h, double a, const double* cs, const double* sn, const double* kt2, const NormBounds& b, \
                       const E* x, const E* y, double* q, double* cq, double* sy, double* sx, int* fails) {         \
    return count_screen_and_norms<step>(h, a, cs, sn, kt2, b, x, y, q, cq, sy, sx, fails);                          \
  }
ROPE_COUNT_SCREEN(count_half_f64, 1, double)
ROPE_COUNT_SCREEN(count_half_f32, 1, float)
ROPE_COUNT_SCREEN(count_half_bf16, 1, std::uint16_t)
ROPE_COUNT_SCREEN(count_inter_f64, 2, double)
ROPE_COUNT_SCREEN(count_inter_f32, 2, float)
ROPE_COUNT_SCREEN(count_inter_bf16, 2, std::uint16_t)
#undef ROPE_COUNT_SCREEN

/// count_screen_and_norms and, in the same loop, passes's verdict for a second variant that turns the same pairs by
/// its own tables (cs2, sn2, kt22) and attention factor a2 (count_screen_norms_verdict): the loads of x and y and the
/// norm ‖x‖² shared, every other operation written as the two loops write it, so that q, cq, the squares, the count
/// and the verdict are theirs bit for bit. *passes2 says whether every element of the second variant certainly passes.
template <int Step, class E>
inline int count_norms_verdict(int half, double a, const double* cs, const double* sn, const double* kt2,
                               const NormBounds& b, double a2, const double* cs2, const double* sn2, const double* kt22,
                               const E* __restrict x, const E* __restrict y, double* __restrict q,
                               double* __restrict cq, double* __restrict sy, double* __restrict sx, int* fails,
                               bool* passes2) {
  const int other = Step == 1 ? half : 1;
  const double* __restrict w2 = b.w2;
  const double lo = b.lo, hi = b.hi;
  int bad = 0, bad_norm = 0, bad2 = 0;
  for (int i = 0; i < half; ++i) {
    const long ia = static_cast<long>(Step) * i, ib = ia + other;
    const double x1 = load(x, ia), x2 = load(x, ib), y1 = load(y, ia), y2 = load(y, ib);
    const double n2 = x1 * x1 + x2 * x2;
    // the first variant: screen_and_norms's operations (without its bound on q)
    const double da = y1 - a * (x1 * cs[i] - x2 * sn[i]);
    const double db = y2 - a * (x1 * sn[i] + x2 * cs[i]);
    const double inv = 1.0 / (n2 * kt2[i]);
    const double qa = da * da * inv, qb = db * db * inv;
    bad |= norm_out_of_range(n2);
    q[ia] = qa, q[ib] = qb;
    cq[ia] = std::max(cq[ia], qa);
    cq[ib] = std::max(cq[ib], qb);
    const double nx2 = w2[i] * n2, ny2 = y1 * y1 + y2 * y2;
    bad_norm |= static_cast<int>(!(ny2 >= lo * nx2)) | static_cast<int>(!(ny2 <= hi * nx2)) |
                static_cast<int>(!(nx2 >= 1e-200)) | static_cast<int>(!(nx2 <= 1e200));
    sy[i] += ny2, sx[i] += nx2;
    // the second: passes's operations
    const double da2 = y1 - a2 * (x1 * cs2[i] - x2 * sn2[i]);
    const double db2 = y2 - a2 * (x1 * sn2[i] + x2 * cs2[i]);
    const double limit2 = (1 - 0x1p-10) * (n2 * kt22[i]);
    bad2 |= static_cast<int>(!(da2 * da2 < limit2)) | static_cast<int>(!(db2 * db2 < limit2)) | norm_out_of_range(n2);
  }
  *passes2 = bad2 == 0;
  const bool certain = count_from_q(half, q, fails);
  return (certain && bad == 0 ? 1 : 0) | (bad_norm == 0 ? 2 : 0);
}

#define ROPE_COUNT_VERDICT(name, step, E)                                                                            \
  ROPE_CLONES int name(int h, double a, const double* cs, const double* sn, const double* kt2, const NormBounds& b,  \
                       double a2, const double* cs2, const double* sn2, const double* kt22, const E* x, const E* y,  \
                       double* q, double* cq, double* sy, double* sx, int* fails, bool* passes2) {                   \
    return count_norms_verdict<step>(h, a, cs, sn, kt2, b, a2, cs2, sn2, kt22, x, y, q, cq, sy, sx, fails, passes2); \
  }
ROPE_COUNT_VERDICT(verdict_half_f64, 1, double)
ROPE_COUNT_VERDICT(verdict_half_f32, 1, float)
ROPE_COUNT_VERDICT(verdict_half_bf16, 1, std::uint16_t)
ROPE_COUNT_VERDICT(verdict_inter_f64, 2, double)
ROPE_COUNT_VERDICT(verdict_inter_f32, 2, float)
ROPE_COUNT_VERDICT(verdict_inter_bf16, 2, std::uint16_t)
#undef ROPE_COUNT_VERDICT

/// count_screen_and_norms without the norms (count_screen_vector): screen's q and cq, bit for bit, and the verdicts
/// from q. True when every verdict is certain and the norm of x in [10^−200, 10^200].
template <int Step, class E>
inline bool count_screen(int half, double a, const double* cs, const double* sn, const double* kt2,
                         const E* __restrict x, const E* __restrict y, double* __restrict q, double* __restrict cq,
                         int* fails) {
  const bool in_range = screen<Step, E, false>(half, a, cs, sn, kt2, x, y, q, cq);
  return count_from_q(half, q, fails) && in_range;
}

#define ROPE_COUNT_ONLY(name, step, E)                                                                      \
  ROPE_CLONES bool name(int h, double a, const double* cs, const double* sn, const double* kt2, const E* x, \
                        const E* y, double* q, double* cq, int* fails) {                                    \
    return count_screen<step>(h, a, cs, sn, kt2, x, y, q, cq, fails);                                       \
  }
ROPE_COUNT_ONLY(count_only_half_f64, 1, double)
ROPE_COUNT_ONLY(count_only_half_f32, 1, float)
ROPE_COUNT_ONLY(count_only_half_bf16, 1, std::uint16_t)
ROPE_COUNT_ONLY(count_only_inter_f64, 2, double)
ROPE_COUNT_ONLY(count_only_inter_f32, 2, float)
ROPE_COUNT_ONLY(count_only_inter_bf16, 2, std::uint16_t)
#undef ROPE_COUNT_ONLY

/// norms, the squares added to sy, sx (add_screened_norms).
template <int Step, class E>
inline bool add_norms(int half, const NormBounds& b, const E* __restrict x, const E* __restrict y,
                      double* __restrict sy, double* __restrict sx) {
  const int other = Step == 1 ? half : 1;
  const double* __restrict w2 = b.w2;
  const double lo = b.lo, hi = b.hi;
  int bad = 0;
  for (int i = 0; i < half; ++i) {
    const long ia = static_cast<long>(Step) * i, ib = ia + other;
    const double x1 = load(x, ia), x2 = load(x, ib), y1 = load(y, ia), y2 = load(y, ib);
    const double nx2 = w2[i] * (x1 * x1 + x2 * x2), ny2 = y1 * y1 + y2 * y2;
    bad |= static_cast<int>(!(ny2 >= lo * nx2)) | static_cast<int>(!(ny2 <= hi * nx2)) |
           static_cast<int>(!(nx2 >= 1e-200)) | static_cast<int>(!(nx2 <= 1e200));
    sy[i] += ny2, sx[i] += nx2;
  }
  return bad == 0;
}

template <class E>
bool add_norms_of(const ScreenPairs& p, const NormBounds& b, const void* x, const void* y, double* sy, double* sx) {
  const auto* ex = static_cast<const E*>(x);
  const auto* ey = static_cast<const E*>(y);
  return p.interleaved ? add_norms<2>(p.half, b, ex, ey, sy, sx) : add_norms<1>(p.half, b, ex, ey, sy, sx);
}

template <class E>
double exact(const ScreenPairs& p, double k, const double* cs, const double* sn, const double* term, const E* x,
             const E* y, int c) {
  const int i = p.interleaved ? c / 2 : c % p.half;
  const bool second = p.interleaved ? (c % 2) == 1 : c >= p.half;
  const long ia = p.interleaved ? 2L * i : i, ib = p.interleaved ? ia + 1 : ia + p.half;
  const double x1 = load(x, ia), x2 = load(x, ib);
  // The operations of the kernel's pair_ratios, in its order.
  const double n2 = x1 * x1 + x2 * x2;
  const double tol = k * std::sqrt(n2) * term[i];
  const double d = second ? std::abs(load(y, ib) - p.a * (x1 * sn[i] + x2 * cs[i]))
                          : std::abs(load(y, ia) - p.a * (x1 * cs[i] - x2 * sn[i]));
  const double t = std::max(tol, std::numeric_limits<double>::min());
  return std::min(d / t, 1e300);
}

}  // namespace

bool screen_vector(const ScreenPairs& p, const double* cs, const double* sn, const double* kt2, const void* x,
                   const void* y, double* q, double* cq) {
  switch (p.type) {
    case BlockElement::F64:
      return p.interleaved ? screen_inter_f64(p.half, p.a, cs, sn, kt2, static_cast<const double*>(x),
                                              static_cast<const double*>(y), q, cq)
                           : screen_half_f64(p.half, p.a, cs, sn, kt2, static_cast<const double*>(x),
                                             static_cast<const double*>(y), q, cq);
    case BlockElement::F32:
      return p.interleaved ? screen_inter_f32(p.half, p.a, cs, sn, kt2, static_cast<const float*>(x),
                                              static_cast<const float*>(y), q, cq)
                           : screen_half_f32(p.half, p.a, cs, sn, kt2, static_cast<const float*>(x),
                                             static_cast<const float*>(y), q, cq);
    case BlockElement::BF16:
      break;
  }
  const auto* bx = static_cast<const std::uint16_t*>(x);
  const auto* by = static_cast<const std::uint16_t*>(y);
  return p.interleaved ? screen_inter_bf16(p.half, p.a, cs, sn, kt2, bx, by, q, cq)
                       : screen_half_bf16(p.half, p.a, cs, sn, kt2, bx, by, q, cq);
}

bool screen_passes(const ScreenPairs& p, const double* cs, const double* sn, const double* kt2, const void* x,
                   const void* y) {
  switch (p.type) {
    case BlockElement::F64: {
      const auto* ex = static_cast<const double*>(x);
      const auto* ey = static_cast<const double*>(y);
      return p.interleaved ? passes_inter_f64(p.half, p.a, cs, sn, kt2, ex, ey)
                           : passes_half_f64(p.half, p.a, cs, sn, kt2, ex, ey);
    }
    case BlockElement::F32: {
      const auto* ex = static_cast<const float*>(x);
      const auto* ey = static_cast<const float*>(y);
      return p.interleaved ? passes_inter_f32(p.half, p.a, cs, sn, kt2, ex, ey)
                           : passes_half_f32(p.half, p.a, cs, sn, kt2, ex, ey);
    }
    case BlockElement::BF16:
      break;
  }
  const auto* bx = static_cast<const std::uint16_t*>(x);
  const auto* by = static_cast<const std::uint16_t*>(y);
  return p.interleaved ? passes_inter_bf16(p.half, p.a, cs, sn, kt2, bx, by)
                       : passes_half_bf16(p.half, p.a, cs, sn, kt2, bx, by);
}

double screen_exact_ratio(const ScreenPairs& p, double k, const double* cs, const double* sn, const double* term,
                          const void* x, const void* y, int c) {
  switch (p.type) {
    case BlockElement::F64:
      return exact(p, k, cs, sn, term, static_cast<const double*>(x), static_cast<const double*>(y), c);
    case BlockElement::F32:
      return exact(p, k, cs, sn, term, static_cast<const float*>(x), static_cast<const float*>(y), c);
    case BlockElement::BF16:
      break;
  }
  return exact(p, k, cs, sn, term, static_cast<const std::uint16_t*>(x), static_cast<const std::uint16_t*>(y), c);
}

int fold_pair_failures(bool interleaved, int half, double k, double a, const double* cs, const double* sn,
                       const double* term, const double* x, const double* y, double* ch, double* pm) {
  return interleaved ? interleaved_ratios(half, k, a, cs, sn, term, x, y, ch, pm)
                     : half_ratios(half, k, a, cs, sn, term, x, y, ch, pm);
}

bool fold_pair_ratios(bool interleaved, int half, double k, double a, const double* cs, const double* sn,
                      const double* term, const double* x, const double* y, double* ch, double* pm) {
  return fold_pair_failures(interleaved, half, k, a, cs, sn, term, x, y, ch, pm) == 0;
}

bool screen_norms(const ScreenPairs& p, const NormBounds& b, const void* x, const void* y, double* sy, double* sx) {
  switch (p.type) {
    case BlockElement::F64:
      return p.interleaved
                 ? norms_inter_f64(p.half, b, static_cast<const double*>(x), static_cast<const double*>(y), sy, sx)
                 : norms_half_f64(p.half, b, static_cast<const double*>(x), static_cast<const double*>(y), sy, sx);
    case BlockElement::F32:
      return p.interleaved
                 ? norms_inter_f32(p.half, b, static_cast<const float*>(x), static_cast<const float*>(y), sy, sx)
                 : norms_half_f32(p.half, b, static_cast<const float*>(x), static_cast<const float*>(y), sy, sx);
    case BlockElement::BF16:
      break;
  }
  const auto* bx = static_cast<const std::uint16_t*>(x);
  const auto* by = static_cast<const std::uint16_t*>(y);
  return p.interleaved ? norms_inter_bf16(p.half, b, bx, by, sy, sx) : norms_half_bf16(p.half, b, bx, by, sy, sx);
}

int screen_vector_norms(const ScreenPairs& p, const double* cs, const double* sn, const double* kt2,
                        const NormBounds& b, const void* x, const void* y, double* q, double* cq, double* sy,
                        double* sx) {
  switch (p.type) {
    case BlockElement::F64: {
      const auto* ex = static_cast<const double*>(x);
      const auto* ey = static_cast<const double*>(y);
      return p.interleaved ? both_inter_f64(p.half, p.a, cs, sn, kt2, b, ex, ey, q, cq, sy, sx)
                           : both_half_f64(p.half, p.a, cs, sn, kt2, b, ex, ey, q, cq, sy, sx);
    }
    case BlockElement::F32: {
      const auto* ex = static_cast<const float*>(x);
      const auto* ey = static_cast<const float*>(y);
      return p.interleaved ? both_inter_f32(p.half, p.a, cs, sn, kt2, b, ex, ey, q, cq, sy, sx)
                           : both_half_f32(p.half, p.a, cs, sn, kt2, b, ex, ey, q, cq, sy, sx);
    }
    case BlockElement::BF16:
      break;
  }
  const auto* bx = static_cast<const std::uint16_t*>(x);
  const auto* by = static_cast<const std::uint16_t*>(y);
  return p.interleaved ? both_inter_bf16(p.half, p.a, cs, sn, kt2, b, bx, by, q, cq, sy, sx)
                       : both_half_bf16(p.half, p.a, cs, sn, kt2, b, bx, by, q, cq, sy, sx);
}

bool add_screened_norms(const ScreenPairs& p, const NormBounds& b, const void* x, const void* y, double* sy,
                        double* sx) {
  switch (p.type) {
    case BlockElement::F64:
      return add_norms_of<double>(p, b, x, y, sy, sx);
    case BlockElement::F32:
      return add_norms_of<float>(p, b, x, y, sy, sx);
    case BlockElement::BF16:
      break;
  }
  return add_norms_of<std::uint16_t>(p, b, x, y, sy, sx);
}

int count_screen_norms(const ScreenPairs& p, const double* cs, const double* sn, const double* kt2, const NormBounds& b,
                       const void* x, const void* y, double* q, double* cq, double* sy, double* sx, int* fails) {
  switch (p.type) {
    case BlockElement::F64: {
      const auto* ex = static_cast<const double*>(x);
      const auto* ey = static_cast<const double*>(y);
      return p.interleaved ? count_inter_f64(p.half, p.a, cs, sn, kt2, b, ex, ey, q, cq, sy, sx, fails)
                           : count_half_f64(p.half, p.a, cs, sn, kt2, b, ex, ey, q, cq, sy, sx, fails);
    }
    case BlockElement::F32: {
      const auto* ex = static_cast<const float*>(x);
      const auto* ey = static_cast<const float*>(y);
      return p.interleaved ? count_inter_f32(p.half, p.a, cs, sn, kt2, b, ex, ey, q, cq, sy, sx, fails)
                           : count_half_f32(p.half, p.a, cs, sn, kt2, b, ex, ey, q, cq, sy, sx, fails);
    }
    case BlockElement::BF16:
      break;
  }
  const auto* bx = static_cast<const std::uint16_t*>(x);
  const auto* by = static_cast<const std::uint16_t*>(y);
  return p.interleaved ? count_inter_bf16(p.half, p.a, cs, sn, kt2, b, bx, by, q, cq, sy, sx, fails)
                       : count_half_bf16(p.half, p.a, cs, sn, kt2, b, bx, by, q, cq, sy, sx, fails);
}

int count_screen_norms_verdict(const ScreenPairs& p, const double* cs, const double* sn, const double* kt2,
                               const NormBounds& b, double a2, const double* cs2, const double* sn2, const double* kt22,
                               const void* x, const void* y, double* q, double* cq, double* sy, double* sx, int* fails,
                               bool* passes2) {
  switch (p.type) {
    case BlockElement::F64: {
      const auto* ex = static_cast<const double*>(x);
      const auto* ey = static_cast<const double*>(y);
      return p.interleaved ? verdict_inter_f64(p.half, p.a, cs, sn, kt2, b, a2, cs2, sn2, kt22, ex, ey, q, cq, sy, sx,
                                               fails, passes2)
                           : verdict_half_f64(p.half, p.a, cs, sn, kt2, b, a2, cs2, sn2, kt22, ex, ey, q, cq, sy, sx,
                                              fails, passes2);
    }
    case BlockElement::F32: {
      const auto* ex = static_cast<const float*>(x);
      const auto* ey = static_cast<const float*>(y);
      return p.interleaved ? verdict_inter_f32(p.half, p.a, cs, sn, kt2, b, a2, cs2, sn2, kt22, ex, ey, q, cq, sy, sx,
                                               fails, passes2)
                           : verdict_half_f32(p.half, p.a, cs, sn, kt2, b, a2, cs2, sn2, kt22, ex, ey, q, cq, sy, sx,
                                              fails, passes2);
    }
    case BlockElement::BF16:
      break;
  }
  const auto* bx = static_cast<const std::uint16_t*>(x);
  const auto* by = static_cast<const std::uint16_t*>(y);
  return p.interleaved ? verdict_inter_bf16(p.half, p.a, cs, sn, kt2, b, a2, cs2, sn2, kt22, bx, by, q, cq, sy, sx,
                                            fails, passes2)
                       : verdict_half_bf16(p.half, p.a, cs, sn, kt2, b, a2, cs2, sn2, kt22, bx, by, q, cq, sy, sx,
                                           fails, passes2);
}

bool count_screen_vector(const ScreenPairs& p, const double* cs, const double* sn, const double* kt2, const void* x,
                         const void* y, double* q, double* cq, int* fails) {
  switch (p.type) {
    case BlockElement::F64: {
      const auto* ex = static_cast<const double*>(x);
      const auto* ey = static_cast<const double*>(y);
      return p.interleaved ? count_only_inter_f64(p.half, p.a, cs, sn, kt2, ex, ey, q, cq, fails)
                           : count_only_half_f64(p.half, p.a, cs, sn, kt2, ex, ey, q, cq, fails);
    }
    case BlockElement::F32: {
      const auto* ex = static_cast<const float*>(x);
      const auto* ey = static_cast<const float*>(y);
      return p.interleaved ? count_only_inter_f32(p.half, p.a, cs, sn, kt2, ex, ey, q, cq, fails)
                           : count_only_half_f32(p.half, p.a, cs, sn, kt2, ex, ey, q, cq, fails);
    }
    case BlockElement::BF16:
      break;
  }
  const auto* bx = static_cast<const std::uint16_t*>(x);
  const auto* by = static_cast<const std::uint16_t*>(y);
  return p.interleaved ? count_only_inter_bf16(p.half, p.a, cs, sn, kt2, bx, by, q, cq, fails)
                       : count_only_half_bf16(p.half, p.a, cs, sn, kt2, bx, by, q, cq, fails);
}

ROPE_CLONES bool screen_reaching(const double* q, const double* near, long n, unsigned char* flags) {
  unsigned char any = 0;
  for (long c = 0; c < n; ++c) {  // branch-free, so that the compiler vectorizes it
    const auto f = static_cast<unsigned char>(static_cast<int>(q[c] > 0) & static_cast<int>(q[c] >= near[c]));
    flags[c] = f;
    any |= f;
  }
  return any != 0;
}

double screen_largest(const double* q, long n) {
  double m[4] = {q[0], q[0], q[0], q[0]};
  long i = 0;
  for (; i + 4 <= n; i += 4) {
    for (int l = 0; l < 4; ++l) m[l] = std::max(m[l], q[i + l]);
  }
  for (; i < n; ++i) m[0] = std::max(m[0], q[i]);
  return std::max(std::max(m[0], m[1]), std::max(m[2], m[3]));
}

}  // namespace rope
