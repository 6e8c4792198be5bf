#include "rope/analysis/identify/identify.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <fmt/format.h>
#include <numeric>

#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/core/types.hpp"

namespace rope {
namespace {

double clamp01(double x) { return std::min(1.0, std::max(0.0, x)); }

/// Weight of pair j in the fits: 1/σ² of its ln θ_j, capped so that exact data weighs every pair alike.
double weight(const Eigen::VectorXd& sigma_ln, Eigen::Index j) {
  return 1.0 / std::max(sigma_ln[j] * sigma_ln[j], 1e-12);
}

/// Weighted RMS of ln θ_measured − ln θ_fit.
double log_residual(const Eigen::VectorXd& measured, const Eigen::VectorXd& sigma_ln, const Eigen::VectorXd& fit) {
  double sum = 0, sw = 0;
  for (Eigen::Index j = 0; j < measured.size(); ++j) {
    if (!(measured[j] > 0) || !(fit[j] > 0)) continue;
    const double r = std::log(measured[j]) - std::log(fit[j]);
    sum += weight(sigma_ln, j) * r * r, sw += weight(sigma_ln, j);
  }
  return sw > 0 ? std::sqrt(sum / sw) : INFINITY;
}

}  // namespace

std::pair<double, double> detail::line_fit(const std::vector<double>& x, const std::vector<double>& y,
                                           const std::vector<double>& w) {
  double sw = 0, mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) sw += w[i], mx += w[i] * x[i], my += w[i] * y[i];
  mx /= sw, my /= sw;
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    sxy += w[i] * (x[i] - mx) * (y[i] - my), sxx += w[i] * (x[i] - mx) * (x[i] - mx);
  const double beta = sxx > 0 ? sxy / sxx : 0.0;
  return {my - beta * mx, beta};
}

const char* to_string(PairLayout layout) {
  switch (layout) {
    case PairLayout::Interleaved:
      return "interleaved";
    case PairLayout::Half:
      return "half";
    case PairLayout::Other:
      return "other";
    case PairLayout::None:
      return "none";
  }
  return "?";
}

const char* to_string(Family family) {
  switch (family) {
    case Family::Default:
      return "default";
    case Family::Linear:
      return "linear";
    case Family::Yarn:
      return "yarn";
    case Family::Llama3:
      return "llama3";
    case Family::PerPair:
      return "per-pair";
  }
  return "?";
}

Eigen::VectorXd family_theta(const FamilyFit& fit, int pairs) {
  Eigen::VectorXd t(pairs);
  const double dim = 2.0 * pairs;
  for (int j = 0; j < pairs; ++j) {
    const double td = std::pow(fit.base, -2.0 * j / dim);
    switch (fit.family) {
      case Family::Default:
        t[j] = td;
        break;
      case Family::Linear:
        t[j] = td / fit.factor;
        break;
      case Family::Yarn: {  // HF _compute_yarn_parameters: ramp r_j = clamp((j − low)/(high − low))   (S8)
        const double span = fit.ramp_high - fit.ramp_low;
        const double ramp = span > 0 ? clamp01((j - fit.ramp_low) / span) : (j >= fit.ramp_high ? 1.0 : 0.0);
        t[j] = td / fit.factor * ramp + td * (1 - ramp);
        break;
      }
      case Family::Llama3: {  // HF _compute_llama3_parameters, smooth linear in L0/λ                (S11)
        const double lambda = kTwoPi / td;
        double smooth;
        if (lambda < fit.ramp_low)
          smooth = 1;
        else if (lambda > fit.ramp_high)
          smooth = 0;
        else
          smooth = clamp01((fit.ramp_high / lambda - 1) / (fit.ramp_high / fit.ramp_low - 1));
        t[j] = (1 - smooth) * td / fit.factor + smooth * td;
        break;
      }
      case Family::PerPair:
        t[j] = td;
        break;
    }
  }
  return t;
}

std::vector<FamilyFit> detail::fit_families(const Eigen::VectorXd& theta, const Eigen::VectorXd& sigma_ln,
                                            std::vector<Message>& notes) {
  const int n = static_cast<int>(theta.size());
  const double dim = 2.0 * n;
  std::vector<FamilyFit> fits;
  // Geometric through θ_0 = 1: ln θ_j = −(2j/D)·ln base, least squares over the pairs j >= 1.   (S1)
  const auto base_from = [&](int first, int last) {
    double num = 0, den = 0;
    for (int j = std::max(1, first); j < last; ++j) {
      if (!(theta[j] > 0)) continue;
      const double u = 2.0 * j / dim, w = weight(sigma_ln, j);
      num += w * u * std::log(theta[j]), den += w * u * u;
    }
    return den > 0 ? std::exp(-num / den) : kDefaultBase;
  };
  FamilyFit g;
  g.base = base_from(1, n);
  g.theta = family_theta(g, n);
  g.residual = log_residual(theta, sigma_ln, g.theta);
  fits.push_back(g);
  if (n >= 2) {  // linear: ln θ_j = −ln f − (2j/D)·ln base                                        (S2)
    std::vector<double> u, y, w;
    for (int j = 0; j < n; ++j) {
      if (theta[j] > 0) u.push_back(2.0 * j / dim), y.push_back(std::log(theta[j])), w.push_back(weight(sigma_ln, j));
    }
    if (u.size() >= 2) {
      const auto [alpha, beta] = detail::line_fit(u, y, w);
      FamilyFit l;
      l.family = Family::Linear;
      l.base = std::exp(-beta);
      l.factor = std::exp(-alpha);
      l.theta = family_theta(l, n);
      l.residual = log_residual(theta, sigma_ln, l.theta);
      fits.push_back(l);
    }
  }
  if (n >= 8) {  // banded: base from the first quarter (kept), f from the last eighth (interpolated)
    const double base = base_from(1, std::max(3, n / 4));
    std::vector<double> ratio(static_cast<std::size_t>(n));
    for (int j = 0; j < n; ++j) ratio[j] = theta[j] > 0 ? std::pow(base, -2.0 * j / dim) / theta[j] : 0;
    std::vector<double> tail;  // the reliable ones among the last eighth (σ of ln θ below 5 %)
    for (int j = n - std::max(2, n / 8); j < n; ++j) {
      if (sigma_ln[j] < 0.05) tail.push_back(ratio[j]);
    }
    if (tail.empty()) tail.assign(ratio.end() - std::max(2, n / 8), ratio.end());
    std::sort(tail.begin(), tail.end());
    const double f = tail[tail.size() / 2];
    if (f > 1.001) {
      std::vector<double> js, tds, ws, weights;
      for (int j = 0; j < n; ++j) {
        if (!(ratio[j] > 0)) continue;
        const double w = (1 / ratio[j] - 1 / f) / (1 - 1 / f);  // 1 kept, 0 interpolated
        if (w > 0.02 && w < 0.98 && sigma_ln[j] < 0.05) {
          js.push_back(j), tds.push_back(std::pow(base, -2.0 * j / dim)), ws.push_back(w),
              weights.push_back(weight(sigma_ln, j));
        }
      }
      FamilyFit y, l3;
      y.family = Family::Yarn, l3.family = Family::Llama3;
      y.base = l3.base = base;
      y.factor = l3.factor = f;
      if (js.size() >= 2) {
        const auto [a, b] = detail::line_fit(js, ws, weights);  // w = 1 − (j − low)/(high − low)
        y.ramp_low = b < 0 ? (1 - a) / b : js.front();
        y.ramp_high = b < 0 ? -a / b : js.back();
        const auto [a3, b3] = detail::line_fit(tds, ws, weights);  // w = smooth, linear in θ_default ∝ L0/λ
        l3.ramp_low = b3 > 0 ? kTwoPi / ((1 - a3) / b3) : kTwoPi / tds.front();       // λ where smooth = 1: L0/hf
        l3.ramp_high = b3 > 0 && a3 < 0 ? kTwoPi / (-a3 / b3) : kTwoPi / tds.back();  // λ where smooth = 0: L0/lf
      } else {
        int last_kept = 0;
        for (int j = 0; j < n; ++j) {
          if (ratio[j] > 0 && ratio[j] < std::sqrt(f)) last_kept = j;
        }
        y.ramp_low = last_kept, y.ramp_high = last_kept + 1;
        l3.ramp_low = kTwoPi / std::pow(base, -2.0 * last_kept / dim) * 1.0000001;
        l3.ramp_high = kTwoPi / std::pow(base, -2.0 * (last_kept + 1) / dim) * 0.9999999;
        notes.push_back(
            {msg("the ramp between kept and interpolated pairs has {0} pair(s): yarn and llama3 "
                 "cannot be told apart",
                 js.size())});
      }
      for (FamilyFit* fit : {&y, &l3}) {
        fit->theta = family_theta(*fit, n);
        fit->residual = log_residual(theta, sigma_ln, fit->theta);
        fits.push_back(*fit);
      }
    }
  }
  std::stable_sort(fits.begin(), fits.end(),
                   [](const FamilyFit& a, const FamilyFit& b) { return a.residual < b.residual; });
  // The simplest family within the noise of the best one (default < linear < yarn, llama3).
  const double best = fits.front().residual, allowed = best + std::max(0.5 * best, 1e-3);
  for (const Family simple : {Family::Default, Family::Linear}) {
    const auto it = std::find_if(fits.begin(), fits.end(), [&](const FamilyFit& f) { return f.family == simple; });
    if (it != fits.end() && it->residual <= allowed) {
      std::rotate(fits.begin(), it, it + 1);
      break;
    }
  }
  if (fits.front().residual > 0.05) {
    FamilyFit p = fits.front();
    p.family = Family::PerPair;
    fits.insert(fits.begin(), p);
    notes.push_back(
        {msg("no family explains the frequencies (best residual {0:.3g} in ln θ): per-pair factors "
             "(longrope?)",
             fits[1].residual)});
  }
  return fits;
}

}  // namespace rope
