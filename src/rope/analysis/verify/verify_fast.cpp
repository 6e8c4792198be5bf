#include "rope/analysis/verify/verify_fast.hpp"

#include "rope/analysis/check/angle_table.hpp"
#include "rope/analysis/verify/verify_pass.hpp"
#include "rope/core/simd.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

#include "rope/analysis/verify/identity_check.hpp"
#include "rope/core/error.hpp"
#include "rope/core/random_lanes.hpp"
#include "rope/core/rotation.hpp"

namespace rope {

namespace {

enum RowIndex { kRelative, kOrthogonal, kCompose, kNorm, kShift, kForms, kLayouts, kContrast, kRows };

using verify_pass::as_double;
using verify_pass::fused_pass;
using verify_pass::PassIn;
using verify_pass::PassOut;
using verify_pass::vmax;

/// The pass of float64 compiled for several x86-64 levels (simd.hpp); its partial sums have a fixed
/// order and the file is compiled without FMA contraction, so every level gives the same bits.
ROPE_CLONES void fused_pass_f64(const PassIn<double, double>& in, PassOut<double>& out) { fused_pass(in, out); }
ROPE_CLONES double layouts_pass_f64(const double* q, const int* perm, const double* cm, const double* sm, double* yh,
                                    double* yi, int h) {
  return verify_pass::layouts_pass(q, perm, cm, sm, yh, yi, h);
}
ROPE_CLONES double additive_pass_f64(const double* q, const double* k, const double* cp, const double* sp,
                                     const double* cq, const double* sq, int h) {
  return verify_pass::additive_pass<double>(q, k, cp, sp, cq, sq, h);
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

/// The additive sinusoidal encoding p(position) of (M12), [sin, cos] per pair: its cos/sin of p·ω_i.
struct Sinusoid {
  const AngleTable* table = nullptr;  // float64 (unless same_as_rope): the digit tables of ω_i
  Eigen::VectorXd divisor;            // otherwise: base^(2i/d), as sinusoidal_encoding divides
  bool same_as_rope = false;          // ω = θ bit for bit (float64): the rows' cos/sin serve both
  // float64, when ω_i ≠ θ_i for at most half of the pairs (the last bit of base^(-2i/d) and 1/base^(2i/d)
  // may differ): those i, and `table` holds the digit tables of those ω_i only. An AngleTable computes
  // each entry from its own ω_i alone, so where ω_i = θ_i the rows' cos/sin are the encoding's bit for
  // bit, and the others come from the small table.
  std::vector<int> differ;
  void operator()(double p, double* c, double* s) const {
    if (table) {
      table->at(static_cast<std::int64_t>(p), c, s);
    } else {
      for (Eigen::Index i = 0; i < divisor.size(); ++i) {
        c[i] = std::cos(p / divisor[i]);
        s[i] = std::sin(p / divisor[i]);
      }
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
    for (auto* v : {&qa_, &qb_, &ka_, &kb_}) v->resize(h_);
    for (auto* v : {&dc_, &ds_}) v->resize(h_);
    for (auto* v : {&yh_, &yi_}) v->resize(d_);
    for (int i = 0; i < h_; ++i) {
      pa_.push_back(perm[2 * i]);
      pb_.push_back(perm[2 * i + 1]);
    }
    for (int j = 0; j < 4; ++j) {
      pec_[j].resize(h_);
      pes_[j].resize(h_);
    }
  }

  void run(const Angles<T, R>& angles, const Sinusoid& sinus, const double* q, const double* k, double m, double n,
           double c, Tally* rows) {
    const int h = h_;
    const int step = layout_ == Layout::Interleaved ? 2 : 1, second = layout_ == Layout::Interleaved ? 1 : h;
    for (int i = 0; i < h; ++i) {  // pair i on (step·i, step·i + second)
      qa_[i] = static_cast<T>(q[step * i]);
      qb_[i] = static_cast<T>(q[step * i + second]);
      ka_[i] = static_cast<T>(k[step * i]);
      kb_[i] = static_cast<T>(k[step * i + second]);
    }
    angles(m, cm_.data(), sm_.data());
    angles(n, cn_.data(), sn_.data());
    angles(n - m, cd_.data(), sd_.data());
    angles(m + c, cmc_.data(), smc_.data());
    angles(n + c, cnc_.data(), snc_.data());
    angles(m + n, cmn_.data(), smn_.data());
    // One pass over the pairs for rows 1 to 6 (verify_pass.hpp).
    const PassIn<T, R> in{qa_.data(),  qb_.data(),  ka_.data(), kb_.data(),  cm_.data(),  sm_.data(),  cn_.data(),
                          sn_.data(),  cd_.data(),  sd_.data(), cmc_.data(), smc_.data(), cnc_.data(), snc_.data(),
                          cmn_.data(), smn_.data(), h};
    PassOut<A> out;
    if constexpr (std::is_same_v<T, double>) {
      fused_pass_f64(in, out);
    } else {
      fused_pass(in, out);
    }
    const auto [qq, kk, lhs, rhs, yy, moved] = out.sums;
    const double forms = out.forms, orth = out.orth, compose = out.compose;
    const auto in_t = [](A x) { return as_double(static_cast<T>(x)); };  // a sum rounded to T (P6)
    const double q_norm = in_t(std::sqrt(qq)), k_norm = in_t(std::sqrt(kk)), qk = q_norm * k_norm;
    const double score = in_t(lhs);
    rows[kRelative].add(std::abs(score - in_t(rhs)), qk);             // (M8)
    rows[kNorm].add(std::abs(in_t(std::sqrt(yy)) - q_norm), q_norm);  // (M7)
    rows[kForms].add(forms, q_norm);                                  // (M9), (M10)
    rows[kShift].add(std::abs(in_t(moved) - score), qk);              // (M8)
    rows[kOrthogonal].add(orth, 1.0);
    rows[kCompose].add(compose, 1.0);
    // (M6) R_half x = P R_interleaved Pᵀ x, exactly: both layouts rotate q at m (verify_pass.hpp).
    double layouts;
    if constexpr (std::is_same_v<T, double> && std::is_same_v<R, double>) {
      if (gather_ && h % 8 == 0) {
        layouts = verify_pass::layouts_gather(q, pa_.data(), pb_.data(), cm_.data(), sm_.data(), yh_.data(), h);
      } else {
        layouts = layouts_pass_f64(q, perm_.data(), cm_.data(), sm_.data(), yh_.data(), yi_.data(), h);
      }
    } else {
      layouts = verify_pass::layouts_pass(q, perm_.data(), cm_.data(), sm_.data(), yh_.data(), yi_.data(), h);
    }
    rows[kLayouts].add(layouts, 1.0);
    // (M12) the contrast: <q + p_{m+c}, k + p_{n+c}> against <q + p_m, k + p_n>.
    const double* pc[4] = {};
    const double* ps[4] = {};
    if constexpr (std::is_same_v<R, double> && std::is_same_v<T, double>) {
      double* c4[] = {cm_.data(), cn_.data(), cmc_.data(), cnc_.data()};
      double* s4[] = {sm_.data(), sn_.data(), smc_.data(), snc_.data()};
      if (sinus.same_as_rope) {
        std::copy(c4, c4 + 4, pc);
        std::copy(s4, s4 + 4, ps);
      } else if (!sinus.differ.empty()) {
        // The rows' arrays of m, n, m + c, n + c are not read after this point: patched in place.
        const double at[] = {m, n, m + c, n + c};
        double* __restrict dc = dc_.data();
        double* __restrict ds = ds_.data();
        const int* __restrict differ = sinus.differ.data();
        const int count = static_cast<int>(sinus.differ.size());
        for (int j = 0; j < 4; ++j) {
          sinus.table->at(static_cast<std::int64_t>(at[j]), dc, ds);
          double* __restrict cj = c4[j];
          double* __restrict sj = s4[j];
          for (int e = 0; e < count; ++e) {
            cj[differ[e]] = dc[e];
            sj[differ[e]] = ds[e];
          }
          pc[j] = cj;
          ps[j] = sj;
        }
      }
    }
    if (!pc[0]) {
      const double at[] = {m, n, m + c, n + c};
      for (int j = 0; j < 4; ++j) {
        sinus(at[j], pec_[j].data(), pes_[j].data());
        pc[j] = pec_[j].data();
        ps[j] = pes_[j].data();
      }
    }
    const double shifted = additive(q, k, pc[2], ps[2], pc[3], ps[3]),
                 plain = additive(q, k, pc[0], ps[0], pc[1], ps[1]);
    rows[kContrast].add(std::abs(shifted - plain), qk);
  }

 private:
  /// <q + p, k + p'> with p, p' from their cos/sin (verify_pass.hpp).
  double additive(const double* q, const double* k, const double* cp, const double* sp, const double* cq,
                  const double* sq) const {
    if constexpr (std::is_same_v<T, double>) {
      return additive_pass_f64(q, k, cp, sp, cq, sq, h_);
    } else {
      return verify_pass::additive_pass<T>(q, k, cp, sp, cq, sq, h_);
    }
  }

  int d_, h_;
  Layout layout_;
  const std::vector<int>& perm_;
  std::vector<int> pa_, pb_;  // π(2i), π(2i + 1)
  bool gather_ = verify_pass::has_gather_avx512();
  std::vector<R> cm_, sm_, cn_, sn_, cd_, sd_, cmc_, smc_, cnc_, snc_, cmn_, smn_;
  std::vector<T> qa_, qb_, ka_, kb_, yh_, yi_;
  std::vector<double> pec_[4], pes_[4], dc_, ds_;  // the encoding's cos/sin; the ω table's entries
};

/// Batches per chunk between two progress calls (and Ctrl-C checks): about 2^24 channel-trials, 0.1 to
/// 0.2 s of one core, at least one batch.
long chunk_batches(int d) { return std::max(1L, (1L << 24) / (kVerifyBatch * d)); }

/// What every trial of a run shares: the layout permutation and the angle tables.
template <typename T, typename R>
struct Setup {
  std::vector<int> perm;
  std::optional<AngleTable> table, sinus_table;
  Angles<T, R> angles;
  Sinusoid sinus;

  Setup(const VerifySettings& s, const Eigen::VectorXd& theta) : perm(s.dim) {
    const int d = s.dim;
    const Eigen::PermutationMatrix<Eigen::Dynamic> P = layout_permutation(d);
    for (int j = 0; j < d; ++j) perm[j] = P.indices()[j];  // (P x)_{π(j)} = x_j, so (Pᵀ x)_j = x_{π(j)}
    Eigen::VectorXd divisor(d / 2), omega(d / 2);
    for (int i = 0; i < d / 2; ++i) {
      divisor[i] = std::pow(s.base, 2.0 * i / d);  // as sinusoidal_encoding (M12)
      omega[i] = 1.0 / divisor[i];
    }
    if constexpr (std::is_same_v<T, double>) {
      table.emplace(theta, 2 * s.max_position);  // positions up to m + c, n + c, m + n < 2P
      std::vector<int> differ;
      for (int i = 0; i < d / 2; ++i) {
        if (omega[i] != theta[i]) differ.push_back(i);
      }
      if (2 * differ.size() <= static_cast<std::size_t>(d / 2) && !differ.empty()) {
        Eigen::VectorXd some(static_cast<Eigen::Index>(differ.size()));
        for (std::size_t e = 0; e < differ.size(); ++e) some[static_cast<Eigen::Index>(e)] = omega[differ[e]];
        sinus_table.emplace(some, 2 * s.max_position);
        sinus.differ = differ;
      } else if (!differ.empty()) {
        sinus_table.emplace(omega, 2 * s.max_position);
      }
    }
    angles = Angles<T, R>{table ? &*table : nullptr, &theta, s.strategy};
    sinus.table = sinus_table ? &*sinus_table : nullptr;
    sinus.divisor = divisor;
    sinus.same_as_rope = std::is_same_v<T, double> && omega == theta;
  }
  Setup(const Setup&) = delete;  // angles and sinus point into the tables
  Setup& operator=(const Setup&) = delete;
};

VerifyReport make_report(const VerifySettings& s, const Tally* total, long done, bool stopped) {
  std::vector<IdentityResult> rows = suite_rows(s);
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

/// The user's pairs in place of a batch's drawn q and k (trial `first` + t checks pair (first + t) mod pairs), and
/// their given positions in place of the drawn ones.
void use_vectors(const VerifyVectors& v, long first, long count, int d, double* q, double* k, std::uint64_t* m,
                 std::uint64_t* n, std::uint64_t* c) {
  for (long t = 0; t < count; ++t) {
    const Eigen::Index pair = static_cast<Eigen::Index>((first + t) % v.pairs());
    std::copy_n(v.q.col(pair).data(), d, q + t * d);
    std::copy_n(v.k.col(pair).data(), d, k + t * d);
    if (v.at) {
      m[t] = static_cast<std::uint64_t>((*v.at)[0]);
      n[t] = static_cast<std::uint64_t>((*v.at)[1]);
      c[t] = static_cast<std::uint64_t>((*v.at)[2]);
    }
  }
}

template <typename T, typename R>
VerifyReport run_fast(const VerifySettings& s, const Eigen::VectorXd& theta, const VerifyProgress& progress) {
  const int d = s.dim;
  const Setup<T, R> setup(s, theta);
  Tally total[kRows];
  const long batches = (s.trials + kVerifyBatch - 1) / kVerifyBatch;
  const long chunk = chunk_batches(d);
  long done = 0;
  bool stopped = false;
  for (long b0 = 0; b0 < batches && !stopped; b0 += chunk) {
    const long b1 = std::min(batches, b0 + chunk);
    // A second thread only for enough work: waking it costs about a millisecond on an idle machine and
    // tens on a loaded one, more than 2^20 channel-trials (8192 trials at d = 128) take on one core.
    const bool both_cores = static_cast<double>(b1 - b0) * kVerifyBatch * d >= 1048576.0;
#pragma omp parallel if (both_cores)
    {
      Trial<T, R> trial(d, s.layout, setup.perm);
      std::vector<double> q(kVerifyBatch * d), k(kVerifyBatch * d);
      std::uint64_t m[kVerifyBatch], n[kVerifyBatch], c[kVerifyBatch];
      Tally local[kRows];
#pragma omp for schedule(dynamic)  // a thread the machine delays does not hold the other back
      for (long b = b0; b < b1; ++b) {
        RandomLanes rng(batch_seed(s.seed, b));
        rng.fill_normal(q.data(), q.size());
        rng.fill_normal(k.data(), k.size());
        const auto below = static_cast<std::uint64_t>(s.max_position);
        for (long t = 0; t < kVerifyBatch; t += RandomLanes::kLanes) rng.below_step(below, m + t);
        for (long t = 0; t < kVerifyBatch; t += RandomLanes::kLanes) rng.below_step(below, n + t);
        for (long t = 0; t < kVerifyBatch; t += RandomLanes::kLanes) rng.below_step(below, c + t);
        const long count = std::min(kVerifyBatch, s.trials - b * kVerifyBatch);
        if (s.vectors) use_vectors(*s.vectors, b * kVerifyBatch, count, d, q.data(), k.data(), m, n, c);
        for (long t = 0; t < count; ++t) {
          trial.run(setup.angles, setup.sinus, q.data() + t * d, k.data() + t * d, static_cast<double>(m[t]),
                    static_cast<double>(n[t]), static_cast<double>(c[t]), local);
        }
      }
#pragma omp critical
      for (int r = 0; r < kRows; ++r) total[r].merge(local[r]);  // maxima and counts: any order gives the same
    }
    done = std::min(s.trials, b1 * kVerifyBatch);
    if (progress && !progress(done, s.trials)) stopped = b1 < batches;
  }
  return make_report(s, total, done, stopped);
}

template <typename T, typename R>
VerifyReport run_draws(const VerifySettings& s, const Eigen::VectorXd& theta, const std::vector<VerifyDraw>& draws) {
  const Setup<T, R> setup(s, theta);
  Trial<T, R> trial(s.dim, s.layout, setup.perm);
  Tally total[kRows];
  for (const VerifyDraw& draw : draws)
    trial.run(setup.angles, setup.sinus, draw.q.data(), draw.k.data(), draw.m, draw.n, draw.c, total);
  return make_report(s, total, static_cast<long>(draws.size()), false);
}

template <template <typename, typename> class Run, typename... Args>
VerifyReport dispatch(const VerifySettings& s, Args&&... args) {
  const bool wide = s.strategy == Strategy::CastResult;
  switch (s.dtype) {
    case DType::F64:
      return Run<double, double>::go(s, args...);
    case DType::F32:
      return wide ? Run<float, double>::go(s, args...) : Run<float, float>::go(s, args...);
    case DType::F16:
      return wide ? Run<Eigen::half, double>::go(s, args...) : Run<Eigen::half, Eigen::half>::go(s, args...);
    case DType::BF16:
      return wide ? Run<Eigen::bfloat16, double>::go(s, args...)
                  : Run<Eigen::bfloat16, Eigen::bfloat16>::go(s, args...);
  }
  throw InvalidArgument(error_msg("verify: unknown dtype"));
}

template <typename T, typename R>
struct Fast {
  static VerifyReport go(const VerifySettings& s, const Eigen::VectorXd& theta, const VerifyProgress& p) {
    return run_fast<T, R>(s, theta, p);
  }
};
template <typename T, typename R>
struct OnDraws {
  static VerifyReport go(const VerifySettings& s, const Eigen::VectorXd& theta, const std::vector<VerifyDraw>& draws) {
    return run_draws<T, R>(s, theta, draws);
  }
};

}  // namespace

VerifyReport verify_fast(const VerifySettings& s, const Eigen::VectorXd& theta, const VerifyProgress& progress) {
  return dispatch<Fast>(s, theta, progress);
}

VerifyReport verify_fast_draws(const VerifySettings& s, const Eigen::VectorXd& theta,
                               const std::vector<VerifyDraw>& draws) {
  return dispatch<OnDraws>(s, theta, draws);
}

}  // namespace rope
