#include "rope/core/tensor_apply.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/core/simd.hpp"

namespace rope {

namespace {

void check_table_request(const Eigen::VectorXd& theta, long positions) {
  if (theta.size() < 1) throw InvalidArgument(error_msg("a cos/sin table needs at least one frequency"));
  if (positions < 1 || positions > (1L << 31)) {
    throw InvalidArgument(
        error_msg("{0} positions must be between {1} and {2} (got {3})", "table", 1, "2^31", positions));
  }
}

/// Rows [first, last) of the table: row p = A·B as complex numbers (see cos_sin_table).
template <typename Scalar>
inline void table_rows_impl(const double* a_cos, const double* a_sin, const double* b_cos, const double* b_sin,
                            int half, long first, long last, Scalar* out_cos, Scalar* out_sin) {
  for (long p = first; p < last; ++p) {
    const double* ac = a_cos + (p / kTableAnchor) * half;
    const double* as = a_sin + (p / kTableAnchor) * half;
    const double* bc = b_cos + (p % kTableAnchor) * half;
    const double* bs = b_sin + (p % kTableAnchor) * half;
    Scalar* oc = out_cos + p * half;
    Scalar* os = out_sin + p * half;
    for (int i = 0; i < half; ++i) {
      oc[i] = static_cast<Scalar>(ac[i] * bc[i] - as[i] * bs[i]);
      os[i] = static_cast<Scalar>(as[i] * bc[i] + ac[i] * bs[i]);
    }
  }
}
ROPE_CLONES void table_rows(const double* a_cos, const double* a_sin, const double* b_cos, const double* b_sin,
                            int half, long first, long last, float* out_cos, float* out_sin) {
  table_rows_impl(a_cos, a_sin, b_cos, b_sin, half, first, last, out_cos, out_sin);
}
ROPE_CLONES void table_rows(const double* a_cos, const double* a_sin, const double* b_cos, const double* b_sin,
                            int half, long first, long last, double* out_cos, double* out_sin) {
  table_rows_impl(a_cos, a_sin, b_cos, b_sin, half, first, last, out_cos, out_sin);
}

void check_tensor(const TensorShape& shape, const CosSinTable<float>& table) {
  if (shape.seq < 0 || shape.heads < 0 || shape.d < 2 || shape.d % 2 != 0) {
    throw InvalidArgument(error_msg("tensor shape [{0}, {1}, {2}]: need seq, heads >= 0 and an even d >= 2", shape.seq,
                                    shape.heads, shape.d));
  }
  if (table.positions < shape.seq || 2 * table.half != shape.d) {
    throw InvalidArgument(error_msg("cos/sin table [{0} × {1}] does not cover a [{2}, {3}, {4}] tensor",
                                    table.positions, table.half, shape.seq, shape.heads, shape.d));
  }
}

// GCC/Clang vector extensions: a swap of the two channels of every pair is one shuffle, which the
// auto-vectorizer does not find by itself for the interleaved layout.
typedef float V8 __attribute__((vector_size(32)));
typedef int I8 __attribute__((vector_size(32)));
#if defined(__clang__)
#define ROPE_SWAP_PAIRS(x) __builtin_shufflevector(x, x, 1, 0, 3, 2, 5, 4, 7, 6)
#else
#define ROPE_SWAP_PAIRS(x) __builtin_shuffle(x, I8{1, 0, 3, 2, 5, 4, 7, 6})
#endif

// The element-wise kernels (M9) for the rows of positions [first, last); `in` and `out` are either
// equal (in place) or do not overlap. One table row serves every head of a position.
// H2 > 0 fixes d/2 at compile time (d = 128, the common head size, is instantiated: the short
// per-head loops then need no run-time trip count); H2 = 0 takes it from d.
template <int H2>
inline void half_rows_impl(const float* in, float* out, long first, long last, long heads, int d, const float* cos_t,
                           const float* sin_t) {
  const int h2 = H2 > 0 ? H2 : d / 2;
  if (H2 > 0) d = 2 * H2;
  for (long p = first; p < last; ++p) {
    const float* c = cos_t + p * h2;
    const float* s = sin_t + p * h2;
    for (long h = 0; h < heads; ++h) {
      const float* xa = in + (p * heads + h) * d;
      float* ya = out + (p * heads + h) * d;
      int i = 0;
      for (; i + 8 <= h2; i += 8) {  // 8 pairs at a time; all loads before the stores (in place is fine)
        V8 a, b, cv, sv;
        std::memcpy(&a, xa + i, sizeof a);
        std::memcpy(&b, xa + i + h2, sizeof b);
        std::memcpy(&cv, c + i, sizeof cv);
        std::memcpy(&sv, s + i, sizeof sv);
        const V8 ya_v = a * cv - b * sv;
        const V8 yb_v = b * cv + a * sv;
        std::memcpy(ya + i, &ya_v, sizeof ya_v);
        std::memcpy(ya + i + h2, &yb_v, sizeof yb_v);
      }
      for (; i < h2; ++i) {
        const float a = xa[i];
        const float b = xa[i + h2];
        ya[i] = a * c[i] - b * s[i];
        ya[i + h2] = b * c[i] + a * s[i];
      }
    }
  }
}

template <int H2>
inline void interleaved_rows_impl(const float* in, float* out, long first, long last, long heads, int d,
                                  const float* cos_t, const float* sin_t) {
  const int h2 = H2 > 0 ? H2 : d / 2;
  if (H2 > 0) d = 2 * H2;
  // The position's table row spread over the d channels once, for all its heads: cc = [c0, c0, c1,
  // c1, …], ss = [−s0, s0, −s1, s1, …], so that y = x ⊙ cc + swap(x) ⊙ ss (M9) reads every array in
  // order and the swap of the two channels of a pair is one in-register shuffle.
  std::vector<float> spread(2 * static_cast<std::size_t>(d));
  float* cc = spread.data();
  float* ss = cc + d;
  for (long p = first; p < last; ++p) {
    const float* c = cos_t + p * h2;
    const float* s = sin_t + p * h2;
    for (int i = 0; i < h2; ++i) {
      cc[2 * i] = cc[2 * i + 1] = c[i];
      ss[2 * i] = -s[i];
      ss[2 * i + 1] = s[i];
    }
    for (long h = 0; h < heads; ++h) {
      const float* xa = in + (p * heads + h) * d;
      float* ya = out + (p * heads + h) * d;
      int j = 0;
      for (; j + 8 <= d; j += 8) {  // 8 channels = 4 pairs at a time (two SSE or one AVX register)
        V8 x, c, s;
        std::memcpy(&x, xa + j, sizeof x);
        std::memcpy(&c, cc + j, sizeof c);
        std::memcpy(&s, ss + j, sizeof s);
        const V8 y = x * c + ROPE_SWAP_PAIRS(x) * s;
        std::memcpy(ya + j, &y, sizeof y);  // after the loads: in place is fine
      }
      for (; j < d; j += 2) {
        const float a = xa[j];
        const float b = xa[j + 1];
        ya[j] = a * cc[j] + b * ss[j];
        ya[j + 1] = b * cc[j + 1] + a * ss[j + 1];
      }
    }
  }
}

ROPE_CLONES void half_rows(const float* in, float* out, long first, long last, long heads, int d, const float* cos_t,
                           const float* sin_t) {
  if (d == 128) {
    half_rows_impl<64>(in, out, first, last, heads, d, cos_t, sin_t);
  } else {
    half_rows_impl<0>(in, out, first, last, heads, d, cos_t, sin_t);
  }
}

ROPE_CLONES void interleaved_rows(const float* in, float* out, long first, long last, long heads, int d,
                                  const float* cos_t, const float* sin_t) {
  if (d == 128) {
    interleaved_rows_impl<64>(in, out, first, last, heads, d, cos_t, sin_t);
  } else {
    interleaved_rows_impl<0>(in, out, first, last, heads, d, cos_t, sin_t);
  }
}

void apply_rows(const float* in, float* out, const TensorShape& shape, const CosSinTable<float>& table, Layout layout) {
  const auto kernel = layout == Layout::Half ? half_rows : interleaved_rows;
  const long seq = shape.seq;
  // Blocks of positions per thread; the kernels are cloned per ISA, the OpenMP body is not.
  constexpr long kBlock = 16;
#pragma omp parallel for schedule(static)
  for (long first = 0; first < seq; first += kBlock) {
    kernel(in, out, first, std::min(seq, first + kBlock), shape.heads, shape.d, table.cos.data(), table.sin.data());
  }
}

}  // namespace

template <typename Scalar>
CosSinTable<Scalar> cos_sin_table(const Eigen::VectorXd& theta, long positions) {
  check_table_request(theta, positions);
  const int half = static_cast<int>(theta.size());
  const long anchors = (positions + kTableAnchor - 1) / kTableAnchor;
  const long steps = std::min(positions, kTableAnchor);
  std::vector<double> a_cos(anchors * half), a_sin(anchors * half), b_cos(steps * half), b_sin(steps * half);
  for (long a = 0; a < anchors; ++a) {
    const double m = static_cast<double>(a * kTableAnchor);
    for (int i = 0; i < half; ++i) {
      a_cos[a * half + i] = std::cos(m * theta[i]);
      a_sin[a * half + i] = std::sin(m * theta[i]);
    }
  }
  for (long b = 0; b < steps; ++b) {
    for (int i = 0; i < half; ++i) {
      b_cos[b * half + i] = std::cos(static_cast<double>(b) * theta[i]);
      b_sin[b * half + i] = std::sin(static_cast<double>(b) * theta[i]);
    }
  }
  CosSinTable<Scalar> t{positions, half, std::vector<Scalar>(positions * half), std::vector<Scalar>(positions * half)};
  // Threads only for tables of more than ~10^6 entries: below that a second thread costs more than it saves.
#pragma omp parallel for schedule(static) if (static_cast <double>(positions) * half > (1 << 20))
  for (long a = 0; a < anchors; ++a) {
    table_rows(a_cos.data(), a_sin.data(), b_cos.data(), b_sin.data(), half, a * kTableAnchor,
               std::min(positions, (a + 1) * kTableAnchor), t.cos.data(), t.sin.data());
  }
  return t;
}

template <typename Scalar>
CosSinTable<Scalar> cos_sin_table_direct(const Eigen::VectorXd& theta, long positions) {
  check_table_request(theta, positions);
  const int half = static_cast<int>(theta.size());
  CosSinTable<Scalar> t{positions, half, std::vector<Scalar>(positions * half), std::vector<Scalar>(positions * half)};
  for (long p = 0; p < positions; ++p) {
    for (int i = 0; i < half; ++i) {
      const double angle = static_cast<double>(p) * theta[i];
      t.cos[p * half + i] = static_cast<Scalar>(std::cos(angle));
      t.sin[p * half + i] = static_cast<Scalar>(std::sin(angle));
    }
  }
  return t;
}

template CosSinTable<float> cos_sin_table<float>(const Eigen::VectorXd&, long);
template CosSinTable<double> cos_sin_table<double>(const Eigen::VectorXd&, long);
template CosSinTable<float> cos_sin_table_direct<float>(const Eigen::VectorXd&, long);
template CosSinTable<double> cos_sin_table_direct<double>(const Eigen::VectorXd&, long);

void apply_rotary_tensor(const float* x, float* y, const TensorShape& shape, const CosSinTable<float>& table,
                         Layout layout) {
  check_tensor(shape, table);
  apply_rows(x, y, shape, table, layout);
}

void apply_rotary_tensor_inplace(float* x, const TensorShape& shape, const CosSinTable<float>& table, Layout layout) {
  check_tensor(shape, table);
  apply_rows(x, x, shape, table, layout);
}

const char* to_string(LadderForm form) {
  switch (form) {
    case LadderForm::Dense:
      return "dense d×d matrix";
    case LadderForm::Block2x2:
      return "2×2 blocks";
    case LadderForm::Elementwise:
      return "element-wise cos/sin";
    case LadderForm::Complex:
      return "complex numbers";
  }
  return "?";
}

void apply_ladder(LadderForm form, const float* x, float* y, const TensorShape& shape,
                  const CosSinTable<float>& table) {
  check_tensor(shape, table);
  const int d = shape.d;
  const int h2 = d / 2;
  const long heads = shape.heads;
  switch (form) {
    case LadderForm::Dense: {
      Eigen::MatrixXf r(d, d);
      for (long p = 0; p < shape.seq; ++p) {
        // (M5): zeros outside the 2×2 blocks, as a d×d matrix is built.
        r.setZero();
        for (int i = 0; i < h2; ++i) {
          const float c = table.cos[p * h2 + i];
          const float s = table.sin[p * h2 + i];
          r(2 * i, 2 * i) = c;
          r(2 * i, 2 * i + 1) = -s;
          r(2 * i + 1, 2 * i) = s;
          r(2 * i + 1, 2 * i + 1) = c;
        }
        // The heads of position p as the columns of a d × heads matrix.
        const Eigen::Map<const Eigen::MatrixXf> xp(x + p * heads * d, d, heads);
        Eigen::Map<Eigen::MatrixXf> yp(y + p * heads * d, d, heads);
        yp.noalias() = r * xp;
      }
      break;
    }
    case LadderForm::Block2x2:
      for (long p = 0; p < shape.seq; ++p) {
        for (long h = 0; h < heads; ++h) {
          const long base = (p * heads + h) * d;
          for (int i = 0; i < h2; ++i) {
            const float c = table.cos[p * h2 + i];
            const float s = table.sin[p * h2 + i];
            Eigen::Matrix2f block;
            block << c, -s, s, c;  // (M3)
            const Eigen::Vector2f v = block * Eigen::Vector2f(x[base + 2 * i], x[base + 2 * i + 1]);
            y[base + 2 * i] = v[0];
            y[base + 2 * i + 1] = v[1];
          }
        }
      }
      break;
    case LadderForm::Elementwise:
      interleaved_rows(x, y, 0, shape.seq, heads, d, table.cos.data(), table.sin.data());
      break;
    case LadderForm::Complex:
      for (long p = 0; p < shape.seq; ++p) {
        for (long h = 0; h < heads; ++h) {
          const long base = (p * heads + h) * d;
          for (int i = 0; i < h2; ++i) {
            const std::complex<float> z = std::complex<float>(x[base + 2 * i], x[base + 2 * i + 1]) *
                                          std::complex<float>(table.cos[p * h2 + i], table.sin[p * h2 + i]);  // (M10)
            y[base + 2 * i] = z.real();
            y[base + 2 * i + 1] = z.imag();
          }
        }
      }
      break;
  }
}

}  // namespace rope
