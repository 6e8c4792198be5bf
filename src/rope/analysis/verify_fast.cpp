#include "rope/analysis/verify_fast.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <optional>
#include <type_traits>

#include "rope/analysis/identity_check.hpp"
#include "rope/core/error.hpp"
#include "rope/core/random_lanes.hpp"
#include "rope/core/rotation.hpp"

namespace rope {

AngleTable::AngleTable(const Eigen::VectorXd& theta, double limit) : half_(static_cast<int>(theta.size())) {
  levels_ = 1;
  while (std::ldexp(1.0, kDigitBits * levels_) < limit) ++levels_;
  cos_.resize(static_cast<std::size_t>(levels_) * kDigits * half_);
  sin_.resize(cos_.size());
  for (int l = 0; l < levels_; ++l) {
    for (int j = 0; j < kDigits; ++j) {
      const double p = std::ldexp(static_cast<double>(j), kDigitBits * l);  // exact: < 2^53
      const std::size_t row = (static_cast<std::size_t>(l) * kDigits + j) * half_;
      for (int i = 0; i < half_; ++i) {
        cos_[row + i] = std::cos(p * theta[i]);
        sin_[row + i] = std::sin(p * theta[i]);
      }
    }
  }
}

void AngleTable::at(std::int64_t p, double* c, double* s) const {
  const bool negative = p < 0;
  std::uint64_t u = negative ? static_cast<std::uint64_t>(-p) : static_cast<std::uint64_t>(p);
  const double* c0 = cos_.data() + (u & (kDigits - 1)) * half_;
  const double* s0 = sin_.data() + (u & (kDigits - 1)) * half_;
  std::copy(c0, c0 + half_, c);
  std::copy(s0, s0 + half_, s);
  u >>= kDigitBits;
  for (int l = 1; u != 0 && l < levels_; ++l, u >>= kDigitBits) {
    const std::size_t digit = u & (kDigits - 1);
    if (digit == 0) continue;  // e^{i·0} = 1: nothing to multiply
    const double* cl = cos_.data() + (static_cast<std::size_t>(l) * kDigits + digit) * half_;
    const double* sl = sin_.data() + (static_cast<std::size_t>(l) * kDigits + digit) * half_;
#pragma omp simd
    for (int i = 0; i < half_; ++i) {
      const double a = c[i], b = s[i];
      c[i] = a * cl[i] - b * sl[i];  // (a + ib)(cl + i·sl)
      s[i] = a * sl[i] + b * cl[i];
    }
  }
  if (negative) {
    for (int i = 0; i < half_; ++i) s[i] = -s[i];
  }
}

namespace {

enum RowIndex { kRelative, kOrthogonal, kCompose, kNorm, kShift, kForms, kLayouts, kContrast, kRows };

template <typename T>
double as_double(T x) {
  if constexpr (std::is_same_v<T, double>) return x;
  else return static_cast<double>(static_cast<float>(x));
}

/// Where each pair's cos/sin comes from: the digit tables (float64) or the strategy (P3)–(P5).
template <typename T, typename R>
struct Angles {
  const AngleTable* table = nullptr;  // float64
  const Eigen::VectorXd* theta = nullptr;
  Strategy strategy = Strategy::AngleF32;
  void operator()(double p, R* c, R* s) const {
    if constexpr (std::is_same_v<T, double>) {
      table->at(static_cast<std::int64_t>(p), c, s);
    } else {
      using std::cos;
      using std::sin;
      for (Eigen::Index i = 0; i < theta->size(); ++i) {
        if constexpr (std::is_same_v<R, double>) {  // cast-result (P5): float64 angles and rotation
          c[i] = std::cos(p * (*theta)[i]);
          s[i] = std::sin(p * (*theta)[i]);
        } else if (strategy == Strategy::CastInputs) {  // (P3)
          const T angle = static_cast<T>(p) * static_cast<T>((*theta)[i]);
          c[i] = cos(angle);
          s[i] = sin(angle);
        } else {  // angle-f32 (P4)
          const float angle = static_cast<float>(p) * static_cast<float>((*theta)[i]);
          c[i] = static_cast<T>(std::cos(angle));
          s[i] = static_cast<T>(std::sin(angle));
        }
      }
    }
  }
};

/// The additive sinusoidal encoding p(position) of (M12) in channel order: [sin, cos] per pair.
struct Sinusoid {
  const AngleTable* table = nullptr;  // float64: the digit tables of ω_i
  Eigen::VectorXd divisor;            // otherwise: base^(2i/d), as sinusoidal_encoding divides
  void operator()(double p, double* pe, double* c, double* s) const {
    const auto h = static_cast<int>(divisor.size());
    if (table) {
      table->at(static_cast<std::int64_t>(p), c, s);
    } else {
      for (int i = 0; i < h; ++i) {
        c[i] = std::cos(p / divisor[i]);
        s[i] = std::sin(p / divisor[i]);
      }
    }
    for (int i = 0; i < h; ++i) {
      pe[2 * i] = s[i];
      pe[2 * i + 1] = c[i];
    }
  }
};

/// One thread's buffers and the rows of one trial. T: the type of the vectors; R: the type the
/// rotation is computed in (T, or double for cast-result); P: the type 2×2 block products accumulate
/// in before they are rounded to T (P6).
template <typename T, typename R>
class Trial {
  using A = typename Accumulator<T>::type;
  using P = std::conditional_t<std::is_same_v<R, double>, double, A>;

 public:
  Trial(int d, Layout layout, const std::vector<int>& perm) : d_(d), h_(d / 2), layout_(layout), perm_(perm) {
    for (auto* v : {&cm_, &sm_, &cn_, &sn_, &cd_, &sd_, &cmc_, &smc_, &cnc_, &snc_, &cmn_, &smn_}) v->resize(h_);
    for (auto* v : {&qa_, &qb_, &ka_, &kb_, &ya_, &yb_, &za_, &zb_, &ua_, &ub_, &va_, &vb_}) v->resize(h_);
    for (auto* v : {&x_, &xp_, &yh_, &yi_, &u_, &v_}) v->resize(d_);
    pe_.resize(d_);
    c64_.resize(h_);
    s64_.resize(h_);
  }

  void run(const Angles<T, R>& angles, const Sinusoid& sinus, const double* q, const double* k, double m, double n,
           double c, Tally* rows) {
    const int h = h_;
    for (int i = 0; i < h; ++i) {
      const int a = layout_ == Layout::Interleaved ? 2 * i : i, b = layout_ == Layout::Interleaved ? 2 * i + 1 : i + h;
      qa_[i] = static_cast<T>(q[a]);
      qb_[i] = static_cast<T>(q[b]);
      ka_[i] = static_cast<T>(k[a]);
      kb_[i] = static_cast<T>(k[b]);
    }
    angles(m, cm_.data(), sm_.data());
    angles(n, cn_.data(), sn_.data());
    angles(n - m, cd_.data(), sd_.data());
    angles(m + c, cmc_.data(), smc_.data());
    angles(n + c, cnc_.data(), snc_.data());
    angles(m + n, cmn_.data(), smn_.data());
    const double q_norm = norm(qa_, qb_), k_norm = norm(ka_, kb_), qk = q_norm * k_norm;

    // (M8) the headline identity: <R_m q, R_n k> against q^T R_{n-m} k.
    rotate(qa_, qb_, cm_, sm_, ya_, yb_);
    rotate(ka_, kb_, cn_, sn_, za_, zb_);
    const double score = dot(ya_, yb_, za_, zb_);
    rotate(ka_, kb_, cd_, sd_, ua_, ub_);
    rows[kRelative].add(std::abs(score - dot(qa_, qb_, ua_, ub_)), qk);
    // (M7) the norm.
    rows[kNorm].add(std::abs(norm(ya_, yb_) - q_norm), q_norm);
    // (M9), (M10) the 2×2 block product and the complex product against the element-wise R_m q.
    double forms = 0;
    for (int i = 0; i < h; ++i) {
      const P cc = static_cast<P>(cm_[i]), ss = static_cast<P>(sm_[i]), xa = static_cast<P>(qa_[i]),
              xb = static_cast<P>(qb_[i]);
      const T ma = static_cast<T>(cc * xa + (-ss) * xb), mb = static_cast<T>(ss * xa + cc * xb);
      T za, zb;
      if constexpr (std::is_same_v<R, float> || std::is_same_v<R, double>) {
        const std::complex<R> z = std::complex<R>(static_cast<R>(qa_[i]), static_cast<R>(qb_[i])) *
                                  std::complex<R>(cm_[i], sm_[i]);
        za = static_cast<T>(z.real());
        zb = static_cast<T>(z.imag());
      } else {  // the product written out in T, as apply_rotary_complex does for the 16-bit types
        za = qa_[i] * cm_[i] - qb_[i] * sm_[i];
        zb = qa_[i] * sm_[i] + qb_[i] * cm_[i];
      }
      forms = std::max({forms, diff(ma, ya_[i]), diff(mb, yb_[i]), diff(za, ya_[i]), diff(zb, yb_[i])});
    }
    rows[kForms].add(forms, q_norm);
    // (M8) shifting both positions by c.
    rotate(qa_, qb_, cmc_, smc_, ua_, ub_);
    rotate(ka_, kb_, cnc_, snc_, va_, vb_);
    rows[kShift].add(std::abs(dot(ua_, ub_, va_, vb_) - score), qk);
    // (M7) R_m^T R_m = I and det R_m = 1, R_m R_n = R_{m+n}: entry by entry of each 2×2 block.
    double orth = 0, compose = 0;
    P det = 1;
    for (int i = 0; i < h; ++i) {
      const P cc = static_cast<P>(cm_[i]), ss = static_cast<P>(sm_[i]);
      const P e00 = cc * cc + ss * ss, e01 = cc * (-ss) + ss * cc, e10 = (-ss) * cc + cc * ss, e11 = ss * ss + cc * cc;
      orth = std::max({orth, diff(static_cast<T>(e00), T(1)), diff(static_cast<T>(e01), T(0)), diff(static_cast<T>(e10), T(0)),
                       diff(static_cast<T>(e11), T(1))});
      det *= cc * cc + ss * ss;  // the product of the blocks' determinants, in P
      const P c2 = static_cast<P>(cn_[i]), s2 = static_cast<P>(sn_[i]);
      const T r00 = static_cast<T>(cc * c2 + (-ss) * s2), r01 = static_cast<T>(cc * (-s2) + (-ss) * c2),
              r10 = static_cast<T>(ss * c2 + cc * s2), r11 = static_cast<T>(ss * (-s2) + cc * c2);
      const T cs = static_cast<T>(cmn_[i]), sn = static_cast<T>(smn_[i]);
      compose = std::max({compose, diff(r00, cs), diff(r01, static_cast<T>(-sn)), diff(r10, sn), diff(r11, cs)});
    }
    rows[kOrthogonal].add(std::max(orth, std::abs(as_double(static_cast<T>(det)) - 1.0)), 1.0);
    rows[kCompose].add(compose, 1.0);
    // (M6) R_half x = P R_interleaved Pᵀ x, exactly: both layouts rotate q at m.
    for (int j = 0; j < d_; ++j) x_[j] = static_cast<T>(q[j]);
    for (int j = 0; j < d_; ++j) xp_[j] = x_[perm_[j]];  // (Pᵀ x)_j = x_{π(j)}
    for (int i = 0; i < h; ++i) {
      rotate_pair(x_[i], x_[i + h], cm_[i], sm_[i], yh_[i], yh_[i + h]);
      rotate_pair(xp_[2 * i], xp_[2 * i + 1], cm_[i], sm_[i], yi_[2 * i], yi_[2 * i + 1]);
    }
    double layouts = 0;
    for (int j = 0; j < d_; ++j) layouts = std::max(layouts, diff(yh_[perm_[j]], yi_[j]));  // (P y)_{π(j)} = y_j
    rows[kLayouts].add(layouts, 1.0);
    // (M12) the contrast: <q + p_{m+c}, k + p_{n+c}> against <q + p_m, k + p_n>.
    rows[kContrast].add(std::abs(additive(sinus, q, k, m + c, n + c) - additive(sinus, q, k, m, n)), qk);
  }

 private:
  static double diff(T a, T b) { return std::abs(as_double(a) - as_double(b)); }

  static void rotate_pair(T xa, T xb, R c, R s, T& ya, T& yb) {
    if constexpr (std::is_same_v<T, R>) {
      ya = xa * c - xb * s;
      yb = xa * s + xb * c;
    } else {
      const R a = static_cast<R>(xa), b = static_cast<R>(xb);
      ya = static_cast<T>(a * c - b * s);
      yb = static_cast<T>(a * s + b * c);
    }
  }

  void rotate(const std::vector<T>& xa, const std::vector<T>& xb, const std::vector<R>& c, const std::vector<R>& s,
              std::vector<T>& ya, std::vector<T>& yb) const {
#pragma omp simd
    for (int i = 0; i < h_; ++i) rotate_pair(xa[i], xb[i], c[i], s[i], ya[i], yb[i]);
  }

  /// Σ a·b over the pairs accumulated in A, rounded to T (P6).
  double dot(const std::vector<T>& xa, const std::vector<T>& xb, const std::vector<T>& ya, const std::vector<T>& yb) const {
    A sum = 0;
#pragma omp simd reduction(+ : sum)
    for (int i = 0; i < h_; ++i) {
      sum += static_cast<A>(xa[i]) * static_cast<A>(ya[i]) + static_cast<A>(xb[i]) * static_cast<A>(yb[i]);
    }
    return as_double(static_cast<T>(sum));
  }

  double norm(const std::vector<T>& xa, const std::vector<T>& xb) const {
    A sum = 0;
#pragma omp simd reduction(+ : sum)
    for (int i = 0; i < h_; ++i) sum += static_cast<A>(xa[i]) * static_cast<A>(xa[i]) + static_cast<A>(xb[i]) * static_cast<A>(xb[i]);
    return as_double(static_cast<T>(std::sqrt(sum)));
  }

  double additive(const Sinusoid& sinus, const double* q, const double* k, double m, double n) {
    sinus(m, pe_.data(), c64_.data(), s64_.data());
    for (int j = 0; j < d_; ++j) u_[j] = static_cast<T>(q[j]) + static_cast<T>(pe_[j]);
    sinus(n, pe_.data(), c64_.data(), s64_.data());
    for (int j = 0; j < d_; ++j) v_[j] = static_cast<T>(k[j]) + static_cast<T>(pe_[j]);
    A sum = 0;
#pragma omp simd reduction(+ : sum)
    for (int j = 0; j < d_; ++j) sum += static_cast<A>(u_[j]) * static_cast<A>(v_[j]);
    return as_double(static_cast<T>(sum));
  }

  int d_, h_;
  Layout layout_;
  const std::vector<int>& perm_;
  std::vector<R> cm_, sm_, cn_, sn_, cd_, sd_, cmc_, smc_, cnc_, snc_, cmn_, smn_;
  std::vector<T> qa_, qb_, ka_, kb_, ya_, yb_, za_, zb_, ua_, ub_, va_, vb_, x_, xp_, yh_, yi_, u_, v_;
  std::vector<double> pe_, c64_, s64_;
};

/// Trials per chunk between two progress calls: about 2^22 channel-trials, at least one batch.
long chunk_batches(int d) { return std::max(1L, (1L << 22) / (kVerifyBatch * d)); }

template <typename T, typename R>
VerifyReport run_fast(const VerifySettings& s, const Eigen::VectorXd& theta, const VerifyProgress& progress) {
  const int d = s.dim;
  const double pmax = s.max_position;
  std::vector<int> perm(d);
  const Eigen::PermutationMatrix<Eigen::Dynamic> P = layout_permutation(d);
  for (int j = 0; j < d; ++j) perm[j] = P.indices()[j];  // (P x)_{π(j)} = x_j, so (Pᵀ x)_j = x_{π(j)}
  Eigen::VectorXd divisor(d / 2), omega(d / 2);
  for (int i = 0; i < d / 2; ++i) {
    divisor[i] = std::pow(s.base, 2.0 * i / d);  // as sinusoidal_encoding (M12)
    omega[i] = 1.0 / divisor[i];
  }
  std::optional<AngleTable> table, sinus_table;
  if constexpr (std::is_same_v<T, double>) {
    table.emplace(theta, 2 * pmax);  // positions up to m + c, n + c, m + n < 2P
    sinus_table.emplace(omega, 2 * pmax);
  }
  Angles<T, R> angles{table ? &*table : nullptr, &theta, s.strategy};
  Sinusoid sinus{sinus_table ? &*sinus_table : nullptr, divisor};

  std::vector<IdentityResult> rows = suite_rows(s);
  Tally total[kRows];
  const long batches = (s.trials + kVerifyBatch - 1) / kVerifyBatch;
  const long chunk = chunk_batches(d);
  long done = 0;
  bool stopped = false;
  for (long b0 = 0; b0 < batches && !stopped; b0 += chunk) {
    const long b1 = std::min(batches, b0 + chunk);
#pragma omp parallel
    {
      Trial<T, R> trial(d, s.layout, perm);
      std::vector<double> q(kVerifyBatch * d), k(kVerifyBatch * d);
      std::uint64_t m[kVerifyBatch], n[kVerifyBatch], c[kVerifyBatch];
      Tally local[kRows];
#pragma omp for schedule(static)
      for (long b = b0; b < b1; ++b) {
        RandomLanes rng(batch_seed(s.seed, b));
        rng.fill_normal(q.data(), q.size());
        rng.fill_normal(k.data(), k.size());
        const auto below = static_cast<std::uint64_t>(pmax);
        for (long t = 0; t < kVerifyBatch; t += RandomLanes::kLanes) rng.below_step(below, m + t);
        for (long t = 0; t < kVerifyBatch; t += RandomLanes::kLanes) rng.below_step(below, n + t);
        for (long t = 0; t < kVerifyBatch; t += RandomLanes::kLanes) rng.below_step(below, c + t);
        const long count = std::min(kVerifyBatch, s.trials - b * kVerifyBatch);
        for (long t = 0; t < count; ++t) {
          trial.run(angles, sinus, q.data() + t * d, k.data() + t * d, static_cast<double>(m[t]),
                    static_cast<double>(n[t]), static_cast<double>(c[t]), local);
        }
      }
#pragma omp critical
      for (int r = 0; r < kRows; ++r) total[r].merge(local[r]);  // maxima and counts: any order gives the same
    }
    done = std::min(s.trials, b1 * kVerifyBatch);
    if (progress && !progress(done, s.trials)) stopped = b1 < batches;
  }
  for (int r = 0; r < kRows; ++r) total[r].apply(rows[r]);
  VerifyReport report;
  report.settings = s;
  report.completed = done;
  report.interrupted = stopped;
  report.identities.assign(rows.begin(), rows.begin() + kContrast);
  report.contrast = rows[kContrast];
  report.contrast.expected_to_fail = true;
  return report;
}

}  // namespace

VerifyReport verify_fast(const VerifySettings& s, const Eigen::VectorXd& theta, const VerifyProgress& progress) {
  const bool wide = s.strategy == Strategy::CastResult;
  switch (s.dtype) {
    case DType::F64: return run_fast<double, double>(s, theta, progress);
    case DType::F32: return wide ? run_fast<float, double>(s, theta, progress) : run_fast<float, float>(s, theta, progress);
    case DType::F16:
      return wide ? run_fast<Eigen::half, double>(s, theta, progress) : run_fast<Eigen::half, Eigen::half>(s, theta, progress);
    case DType::BF16:
      return wide ? run_fast<Eigen::bfloat16, double>(s, theta, progress)
                  : run_fast<Eigen::bfloat16, Eigen::bfloat16>(s, theta, progress);
  }
  throw InvalidArgument("verify: unknown dtype");
}

StrategyContrast cast_inputs_contrast(const VerifySettings& settings) {
  VerifySettings s = settings;
  s.strategy = Strategy::CastInputs;
  s.dense = false;
  StrategyContrast out{verify(s).identities[0], std::nullopt};
  VerifySettings probe = s;
  probe.trials = std::min(s.trials, 256L);
  const auto fails = [&](double max_position) {
    probe.max_position = max_position;
    return !verify(probe).identities[0].check.passed();
  };
  double passes = 1, fail = 2;  // max-position 1: m = n = 0, R_0 = I in any type
  while (fail < s.max_position && !fails(fail)) {
    passes = fail;
    fail *= 2;
  }
  if (fail >= s.max_position) {
    fail = s.max_position;
    if (fail <= passes || !fails(fail)) return out;
  }
  while (fail - passes > 1) {
    const double mid = std::floor((passes + fail) / 2);
    (fails(mid) ? fail : passes) = mid;
  }
  out.fails_from = fail;
  return out;
}

}  // namespace rope
