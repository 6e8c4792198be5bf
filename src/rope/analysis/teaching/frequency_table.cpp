// rope frequencies' table (frequency_table.hpp), in the library so that the live page computes the same.
#include "rope/analysis/teaching/frequency_table.hpp"

#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/models/fope.hpp"
#include "rope/models/rope_float32.hpp"
#include "rope/models/rope_spec.hpp"

namespace rope {

FrequencyTable frequency_table(const FrequenciesRequest& request) {
  const ModelRope& rr = request.rope;
  if (!rr.plain && request.position && rr.spec.axes) {
    throw InvalidArgument(
        error_msg("{0} prints the angles at one position: a model with position axes needs rope apply {1} t,h,w",
                  option_name("position"), option_name("position")));
  }
  FrequencyTable t;
  t.rope = rr;
  t.position = request.position;
  // A model's: dynamic and longrope at the frequencies HF uses at the position (seq_len = m + 1 unless given).
  t.spec = !rr.plain && request.position ? spec_at_position(rr.spec, *request.position) : rr.spec;
  t.theta = t.spec.params.inv_freq;
  t.original = rr.plain ? t.theta : t.spec.original;
  const Eigen::Index half = t.theta.size();
  t.wavelength = wavelengths(t.theta);  // 2π/0 = inf: a zero frequency has no wavelength
  t.original_wavelength = wavelengths(t.original);
  t.ratio.resize(half);
  t.exponent.resize(half);
  for (Eigen::Index i = 0; i < half; ++i) {
    t.ratio[i] = t.theta[i] / t.original[i];
    t.exponent[i] = frequency_exponent(t.spec.rotary_dim, static_cast<int>(i));
  }
  if (request.position) t.angle = *request.position * t.theta;
  if (request.float32 && !rr.plain) t.theta_float32 = inv_freq_float32(t.spec).cast<double>();
  if (t.spec.fope) t.fope_kept = fope_kept_pairs(*t.spec.fope, t.spec.rotary_dim, t.spec.config.base);
  return t;
}

}  // namespace rope
