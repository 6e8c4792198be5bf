#include <cmath>
#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/models/scaling/scaling.hpp"
#include "rope/models/scaling/scaling_detail.hpp"

// Llama 3.1's bands as HF's _compute_llama3_parameters computes them: docs/scaling.md §4, (S11).

namespace rope::detail {

void llama3(const RopeConfig& c, const Common& k, RopeParameters& p) {
  warn_unused(c, p);
  // HF: all four keys are required (KeyError), no defaults.
  const double f = require(c.factor, k.type, "factor");
  const long L0 = require(c.original_max_position_embeddings, k.type, "original_max_position_embeddings");
  const double lf = require(c.low_freq_factor, k.type, "low_freq_factor");
  const double hf = require(c.high_freq_factor, k.type, "high_freq_factor");
  check_positive(f, "factor");
  // L0 / 0 is a ZeroDivisionError in HF; a negative one puts a boundary at a negative wavelength.
  check_positive(lf, "llama3 low_freq_factor");
  check_positive(hf, "llama3 high_freq_factor");
  warn_small_factor(f, p);
  if (hf < lf) {
    p.warnings.push_back(
        {msg("llama3 high_freq_factor {0} < low_freq_factor {1} (HF warns: must be greater); not harmless: the bands "
             "cross, every pair with wavelength > L0/{2} is divided by f and none is ramped",
             hf, lf, lf)});
  } else if (hf == lf) {
    // Llama-4-Scout's config: the two boundaries coincide, nothing is ramped, every pair is kept or divided by f.
    p.warnings.push_back(
        {msg("llama3 high_freq_factor = low_freq_factor = {0} (HF warns: must be greater); harmless: the bands "
             "meet at wavelength L0/{1}, no pair is ramped",
             hf, hf)});
  }
  if (c.max_position_embeddings && L0 >= *c.max_position_embeddings) {
    p.warnings.push_back(
        {msg("llama3 original_max_position_embeddings {0} >= max_position_embeddings {1} (HF warns: must be less); "
             "harmless for the frequencies: llama3 does not read max_position_embeddings",
             L0, *c.max_position_embeddings)});
  }
  p.factor = f;
  p.factor_rule = kExplicitFactor;
  p.original_max_position = L0;

  // (S11). HF's order: λ > L0/lf divides by f; otherwise λ < L0/hf keeps θ; the rest (both
  // boundaries inclusive) blends.
  const double low_wavelength = static_cast<double>(L0) / lf;
  const double high_wavelength = static_cast<double>(L0) / hf;
  const Eigen::VectorXd theta = frequencies(k.d, k.base);
  p.inv_freq.resize(theta.size());
  p.bands.resize(static_cast<std::size_t>(theta.size()));
  for (Eigen::Index j = 0; j < theta.size(); ++j) {
    const double lambda = kTwoPi / theta[j];
    Band band;
    if (lambda > low_wavelength) {
      p.inv_freq[j] = theta[j] / f;
      band = Band::Interpolated;
    } else if (lambda < high_wavelength) {
      p.inv_freq[j] = theta[j];
      band = Band::Kept;
    } else {
      if (hf == lf) {
        // HF computes 0/0 here (NaN frequencies): a wavelength exactly on the shared boundary.
        throw InvalidArgument(
            error_msg("llama3 high_freq_factor = low_freq_factor = {0} and pair {1} has wavelength exactly "
                      "L0/{2}: its frequency is 0/0 (HF gives NaN)",
                      hf, j, lf));
      }
      const double s = (static_cast<double>(L0) / lambda - lf) / (hf - lf);
      p.inv_freq[j] = (1.0 - s) * theta[j] / f + s * theta[j];
      band = Band::Ramped;
    }
    p.bands[static_cast<std::size_t>(j)] = band;
  }
  p.attention_rule = {msg("llama3 does not scale attention")};
}

}  // namespace rope::detail
