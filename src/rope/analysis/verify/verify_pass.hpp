/// @file
/// The inner pass of `rope verify`'s fast path (verify_fast.cpp), for one draw: a single sweep over the
/// d/2 pairs computes the rotations rows 1–6 need (R_m q, R_n k, R_{n−m} k, R_{m+c} q, R_{n+c} k), the
/// sums of their dot products and the largest entry differences of the 2×2 blocks (docs/math.md (M7)–(M10)).
/// The sums run in kPassLanes interleaved partial sums (pair i to partial i mod kPassLanes, combined in
/// lane order at the end), so the order of the additions is fixed whatever the vector width the compiler
/// picks: with FMA contraction off (src/CMakeLists.txt) every x86-64 level of ROPE_CLONES gives the same
/// bits. Internal to verify_fast.cpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "rope/core/dtype.hpp"
#include "rope/core/sanitizer.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace rope::verify_pass {

inline constexpr int kPassLanes = 8;

/// max by value (std::max returns a reference, which keeps loops from vectorizing); NaN is caught by the
/// sums kept next to each maximum.
inline double vmax(double a, double b) { return a > b ? a : b; }

template <typename T>
double as_double(T x) {
  if constexpr (std::is_same_v<T, double>)
    return x;
  else
    return static_cast<double>(static_cast<float>(x));
}

/// q, k as pairs (a, b) in T and the cos/sin of the six positions in R (T, or double for cast-result).
template <typename T, typename R>
struct PassIn {
  const T *qa, *qb, *ka, *kb;
  const R *cm, *sm, *cn, *sn, *cd, *sd, *cmc, *smc, *cnc, *snc, *cmn, *smn;
  int h;
};

/// Sums in A (not yet rounded to T): ‖q‖², ‖k‖², ⟨R_m q, R_n k⟩, ⟨q, R_{n−m} k⟩, ‖R_m q‖², ⟨R_{m+c} q, R_{n+c} k⟩;
/// the largest differences of rows 6, 2, 3 (NaN if one difference is NaN).
template <typename A>
struct PassOut {
  A sums[6] = {};
  double forms = 0, orth = 0, compose = 0;
};

template <typename T, typename R>
inline void rotate_pair(T xa, T xb, R c, R s, T& ya, T& yb) {
  if constexpr (std::is_same_v<T, R>) {
    ya = xa * c - xb * s;  // (M9), each operation rounded to T
    yb = xa * s + xb * c;
  } else {  // cast-result: in R = double, rounded to T once
    const R a = static_cast<R>(xa), b = static_cast<R>(xb);
    ya = static_cast<T>(a * c - b * s);
    yb = static_cast<T>(a * s + b * c);
  }
}

template <typename T>
inline double diff(T a, T b) {
  return std::abs(as_double(a) - as_double(b));
}

template <typename T, typename R, typename A = typename Accumulator<T>::type>
__attribute__((always_inline)) inline void fused_pass(const PassIn<T, R>& in, PassOut<A>& out) {
  using P = std::conditional_t<std::is_same_v<R, double>, double, A>;  // 2×2 block products accumulate in P
  constexpr int L = kPassLanes;
  A acc[6][L] = {};
  double mx[3][L] = {}, nan[3][L] = {};
  const auto body = [&](int i, int l) __attribute__((always_inline)) {
    T ya, yb, za, zb, ua, ub, va, vb, wa, wb;
    const T qa = in.qa[i], qb = in.qb[i], ka = in.ka[i], kb = in.kb[i];
    rotate_pair(qa, qb, in.cm[i], in.sm[i], ya, yb);    // R_m q      (M8)
    rotate_pair(ka, kb, in.cn[i], in.sn[i], za, zb);    // R_n k
    rotate_pair(ka, kb, in.cd[i], in.sd[i], ua, ub);    // R_{n−m} k
    rotate_pair(qa, qb, in.cmc[i], in.smc[i], va, vb);  // R_{m+c} q
    rotate_pair(ka, kb, in.cnc[i], in.snc[i], wa, wb);  // R_{n+c} k
    const auto dot = [](T x1, T y1, T x2, T y2) {
      return static_cast<A>(x1) * static_cast<A>(y1) + static_cast<A>(x2) * static_cast<A>(y2);
    };
    acc[0][l] += dot(qa, qa, qb, qb);
    acc[1][l] += dot(ka, ka, kb, kb);
    acc[2][l] += dot(ya, za, yb, zb);
    acc[3][l] += dot(qa, ua, qb, ub);
    acc[4][l] += dot(ya, ya, yb, yb);
    acc[5][l] += dot(va, wa, vb, wb);
    // (M9), (M10): the 2×2 block product (in P, rounded to T) and the complex product (x_a + i·x_b)·(c + i·s)
    // written out in R (std::complex's operator* adds a NaN recovery call that keeps the loop scalar;
    // --dense uses std::complex), against the element-wise R_m q.
    const P cc = static_cast<P>(in.cm[i]), ss = static_cast<P>(in.sm[i]), xa = static_cast<P>(qa),
            xb = static_cast<P>(qb);
    const T ma = static_cast<T>(cc * xa + (-ss) * xb), mb = static_cast<T>(ss * xa + cc * xb);
    const T zr = static_cast<T>(static_cast<R>(qa) * in.cm[i] - static_cast<R>(qb) * in.sm[i]);
    const T zi = static_cast<T>(static_cast<R>(qa) * in.sm[i] + static_cast<R>(qb) * in.cm[i]);
    const double ef = vmax(vmax(diff(ma, ya), diff(mb, yb)), vmax(diff(zr, ya), diff(zi, yb)));
    // (M7) R_m^T R_m = I entry by entry, and det R_m = Π_i det B_i = 1 block by block (c·c − (−s)·s): the
    // product of the d/2 of them would add d/2 roundings of cos/sin in T that no tolerance models
    // (docs/precision.md §5).
    const P e00 = cc * cc + ss * ss, e01 = cc * (-ss) + ss * cc, e10 = (-ss) * cc + cc * ss, e11 = ss * ss + cc * cc;
    const T det = static_cast<T>(cc * cc - (-ss) * ss);
    const double eo = vmax(vmax(vmax(diff(static_cast<T>(e00), T(1)), diff(static_cast<T>(e01), T(0))),
                                vmax(diff(static_cast<T>(e10), T(0)), diff(static_cast<T>(e11), T(1)))),
                           diff(det, T(1)));
    // (M7) R_m R_n = R_{m+n}: the four entries of each block product.
    const P c2 = static_cast<P>(in.cn[i]), s2 = static_cast<P>(in.sn[i]);
    const T r00 = static_cast<T>(cc * c2 + (-ss) * s2), r01 = static_cast<T>(cc * (-s2) + (-ss) * c2),
            r10 = static_cast<T>(ss * c2 + cc * s2), r11 = static_cast<T>(ss * (-s2) + cc * c2);
    const T cs = static_cast<T>(in.cmn[i]), sn = static_cast<T>(in.smn[i]);
    const double ec = vmax(vmax(diff(r00, cs), diff(r01, static_cast<T>(-sn))), vmax(diff(r10, sn), diff(r11, cs)));
    const double e[3] = {ef, eo, ec};
    for (int r = 0; r < 3; ++r) {
      mx[r][l] = vmax(mx[r][l], e[r]);
      nan[r][l] += e[r];
    }
  };
  int i0 = 0;
  for (; i0 + L <= in.h; i0 += L) {
    for (int l = 0; l < L; ++l) body(i0 + l, l);
  }
  for (int i = i0; i < in.h; ++i) body(i, i - i0);  // d/2 not a multiple of L
  for (int j = 0; j < 6; ++j) {
    for (int l = 0; l < L; ++l) out.sums[j] += acc[j][l];
  }
  double* m[3] = {&out.forms, &out.orth, &out.compose};
  for (int r = 0; r < 3; ++r) {
    double total = 0;
    for (int l = 0; l < L; ++l) {
      *m[r] = vmax(*m[r], mx[r][l]);
      total += nan[r][l];
    }
    if (std::isnan(total)) *m[r] = total;
  }
}

/// (M6) R_half x = P R_interleaved Pᵀ x, exactly: q rotated at m in both layouts (half: pair i on
/// (i, i + d/2); interleaved on Pᵀ q, (Pᵀ q)_j = q_{π(j)}), and the largest |(P y_interleaved)_{π(j)} −
/// (y_half)_{π(j)}| (NaN if one is NaN). yh, yi: d entries of scratch. A maximum: the order of the
/// comparisons, hence the vector width, does not change the result.
template <typename T, typename R>
__attribute__((always_inline)) inline double layouts_pass(const double* __restrict q, const int* __restrict perm,
                                                          const R* __restrict cm, const R* __restrict sm,
                                                          T* __restrict yh, T* __restrict yi, int h) {
  T* __restrict ya = yi;      // y_interleaved's entries 2i and 2i + 1 in two arrays: stored interleaved,
  T* __restrict yb = yi + h;  // GCC fused x·c − y·s, x·s + y·c into vfmaddsub despite -ffp-contract=off
  for (int i = 0; i < h; ++i) {
    rotate_pair(static_cast<T>(q[i]), static_cast<T>(q[i + h]), cm[i], sm[i], yh[i], yh[i + h]);
    rotate_pair(static_cast<T>(q[perm[2 * i]]), static_cast<T>(q[perm[2 * i + 1]]), cm[i], sm[i], ya[i], yb[i]);
  }
  // (P y)_{π(j)} = y_j. kPassLanes maxima and NaN sums side by side (as fused_pass): independent lanes
  // that vectorize, where one running maximum and one running sum are chains of dependent operations.
  constexpr int L = kPassLanes;
  double mx[L] = {}, nan[L] = {};
  const auto body = [&](int i, int l) __attribute__((always_inline)) {
    const double ea = diff(yh[perm[2 * i]], ya[i]), eb = diff(yh[perm[2 * i + 1]], yb[i]);
    mx[l] = vmax(vmax(mx[l], ea), eb);
    nan[l] += ea + eb;
  };
  int i0 = 0;
  for (; i0 + L <= h; i0 += L) {
    for (int l = 0; l < L; ++l) body(i0 + l, l);
  }
  for (int i = i0; i < h; ++i) body(i, i - i0);
  double layouts = 0, total = 0;
  for (int l = 0; l < L; ++l) {
    layouts = vmax(layouts, mx[l]);
    total += nan[l];
  }
  return std::isnan(total) ? total : layouts;
}

/// <q + p, k + p'> (M12) with p = [sin, cos] per pair from (cp, sp), p' from (cq, sq): the sums in T,
/// accumulated in A (P6) in kPassLanes interleaved partial sums (as fused_pass), so that the order of
/// the additions, hence the bits, does not depend on the vector width.
template <typename T, typename A = typename Accumulator<T>::type>
__attribute__((always_inline)) inline double additive_pass(const double* q, const double* k, const double* cp,
                                                           const double* sp, const double* cq, const double* sq,
                                                           int h) {
  constexpr int L = kPassLanes;
  A acc[L] = {};
  const auto body = [&](int i, int l) __attribute__((always_inline)) {
    const T u0 = static_cast<T>(q[2 * i]) + static_cast<T>(sp[i]),
            u1 = static_cast<T>(q[2 * i + 1]) + static_cast<T>(cp[i]);
    const T v0 = static_cast<T>(k[2 * i]) + static_cast<T>(sq[i]),
            v1 = static_cast<T>(k[2 * i + 1]) + static_cast<T>(cq[i]);
    acc[l] += static_cast<A>(u0) * static_cast<A>(v0) + static_cast<A>(u1) * static_cast<A>(v1);
  };
  int i0 = 0;
  for (; i0 + L <= h; i0 += L) {
    for (int l = 0; l < L; ++l) body(i0 + l, l);
  }
  for (int i = i0; i < h; ++i) body(i, i - i0);
  A sum = 0;
  for (int l = 0; l < L; ++l) sum += acc[l];
  return as_double(static_cast<T>(sum));
}

#if defined(__x86_64__) && defined(__GNUC__)
/// layouts_pass for float64 with the AVX-512 gather instruction through the permutation (pa[i] = π(2i),
/// pb[i] = π(2i + 1)), which GCC does not emit for generic x86-64 (the whole run is 6% faster): the
/// same operations entry by entry (products, differences, sums, maxima; no FMA contraction in
/// verify_fast.cpp), so the same bits. h % 8 == 0. The masked forms of gather and max: the unmasked
/// ones of GCC 12's headers warn about their own uninitialized placeholder.
__attribute__((target("avx512f"))) inline double layouts_gather(const double* q, const int* pa, const int* pb,
                                                                const double* cm, const double* sm, double* yh, int h) {
  for (int i = 0; i < h; i += 8) {  // half: pair i on (i, i + d/2)
    const __m512d c = _mm512_loadu_pd(cm + i), s = _mm512_loadu_pd(sm + i);
    const __m512d a = _mm512_loadu_pd(q + i), b = _mm512_loadu_pd(q + i + h);
    _mm512_storeu_pd(yh + i, _mm512_sub_pd(_mm512_mul_pd(a, c), _mm512_mul_pd(b, s)));
    _mm512_storeu_pd(yh + i + h, _mm512_add_pd(_mm512_mul_pd(a, s), _mm512_mul_pd(b, c)));
  }
  const __m512d zero = _mm512_setzero_pd();
  __m512d mx = zero, nan = zero;
  for (int i = 0; i < h; i += 8) {  // interleaved on Pᵀ q, against y_half at π(2i), π(2i + 1)
    const __m256i ia = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pa + i));
    const __m256i ib = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pb + i));
    const __m512d c = _mm512_loadu_pd(cm + i), s = _mm512_loadu_pd(sm + i);
    const __m512d xa = _mm512_mask_i32gather_pd(zero, 0xFF, ia, q, 8),
                  xb = _mm512_mask_i32gather_pd(zero, 0xFF, ib, q, 8);
    const __m512d ya = _mm512_sub_pd(_mm512_mul_pd(xa, c), _mm512_mul_pd(xb, s));
    const __m512d yb = _mm512_add_pd(_mm512_mul_pd(xa, s), _mm512_mul_pd(xb, c));
    const __m512d ea = _mm512_abs_pd(_mm512_sub_pd(_mm512_mask_i32gather_pd(zero, 0xFF, ia, yh, 8), ya));
    const __m512d eb = _mm512_abs_pd(_mm512_sub_pd(_mm512_mask_i32gather_pd(zero, 0xFF, ib, yh, 8), yb));
    mx = _mm512_mask_max_pd(mx, 0xFF, mx, ea);  // vmax (a > b ? a : b); NaN is caught by the sum
    mx = _mm512_mask_max_pd(mx, 0xFF, mx, eb);
    nan = _mm512_add_pd(nan, _mm512_add_pd(ea, eb));
  }
  double m[8], n[8];
  _mm512_storeu_pd(m, mx);
  _mm512_storeu_pd(n, nan);
  double layouts = 0, total = 0;
  for (int l = 0; l < 8; ++l) {
    layouts = vmax(layouts, m[l]);
    total += n[l];
  }
  return std::isnan(total) ? total : layouts;
}
/// Whether the CPU runs layouts_gather (AVX-512F); __builtin_cpu_init first, as GCC asks of a check that
/// may run before the constructors.
inline bool has_gather_avx512() {
#if ROPE_ADDRESS_SANITIZER
  // Under GCC 12's AddressSanitizer this target("avx512f") function faults on its own stack stores
  // (_mm512_storeu_pd into m[8]); the portable pass computes the same bits, so sanitized builds use it.
  return false;
#endif
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f");
}
#else
inline bool has_gather_avx512() { return false; }
inline double layouts_gather(const double*, const int*, const int*, const double*, const double*, double*, int) {
  return 0;
}
#endif

}  // namespace rope::verify_pass
