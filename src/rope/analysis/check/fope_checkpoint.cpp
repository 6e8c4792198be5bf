// FoPE's coefficients read from a checkpoint (fope_coefficients.hpp): the reader the command line and the Python module
// hand to a computation (fope_checkpoint), apart from the rules of fope_coefficients.cpp, which call it; a build that
// opens no file (the live page, web/) compiles those rules without it.
#include "rope/analysis/check/fope_coefficients.hpp"

#include <cstddef>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <vector>

#include "rope/core/error.hpp"
#include "rope/io/weights_file.hpp"

namespace rope {
namespace {

/// "[4, 45, 45]".
std::string fope_shape_text(const std::vector<long>& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

/// The tensor `which` (cos_coef or sin_coef): the names the model stores it under, else the one name ending in
/// rotary_emb.<which>.
const WeightTensor& fope_tensor(const WeightFile& file, const std::string& which) {
  for (const char* prefix : {"model.language_model.rotary_emb.", "model.rotary_emb.", "rotary_emb."}) {
    if (const WeightTensor* t = file.find(prefix + which)) return *t;
  }
  const std::string suffix = ".rotary_emb." + which;
  const WeightTensor* found = nullptr;
  for (const WeightTensor& t : file.tensors) {
    if (t.name.size() < suffix.size() || t.name.compare(t.name.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    if (found) {
      throw InvalidArgument(
          error_msg("{0}: two tensors end in rotary_emb.{1} ({2}, {3}): which one is FoPE's is not "
                    "known",
                    file.path, which, found->name, t.name));
    }
    found = &t;
  }
  if (!found) {
    throw InvalidArgument(
        error_msg("{0}: no FoPE tensor {1} (looked for it under model.language_model.rotary_emb., "
                  "model.rotary_emb. and any name ending in rotary_emb.)",
                  file.path, which));
  }
  return *found;
}

}  // namespace

FopeCoefficients read_fope_coefficients(const std::string& path, const FopeConfig& fope, int kept) {
  const WeightFile file = open_weights(path);
  FopeCoefficients c;
  c.kept = kept;
  c.heads = fope.sep_head ? fope.kv_heads : 1;
  c.file = path;
  const auto K = static_cast<long>(kept);
  for (const std::string which : {"cos_coef", "sin_coef"}) {
    const WeightTensor& t = fope_tensor(file, which);
    const std::vector<long>& s = t.shape;
    const bool fits = fope.sep_head
                          ? s == std::vector<long>{fope.kv_heads, K, K}
                          : (s == std::vector<long>{K, K} || (s.size() == 3 && s[0] >= 1 && s[1] == K && s[2] == K));
    if (!fits) {
      const std::string want =
          fope.sep_head ? fope_shape_text({fope.kv_heads, K, K})
                        : fope_shape_text({K, K}) + " or [n, " + std::to_string(K) + ", " + std::to_string(K) + "]";
      throw InvalidArgument(error_msg("{0}: {1} has the shape {2}, and the config's FoPE needs {3} ({4} kept pairs{5})",
                                      path, t.name, fope_shape_text(s), want, kept,
                                      fope.sep_head ? msg(", {0} key-value heads", fope.kv_heads) : Message::same("")));
    }
    if (t.elements() > kMaxFopeCoefficientElements) {
      throw InvalidArgument(error_msg("{0}: {1} has {2} elements, more than the limit of {3} for FoPE's coefficients",
                                      path, t.name, t.elements(), kMaxFopeCoefficientElements));
    }
    const std::size_t n = static_cast<std::size_t>(c.heads * K * K);  // the shared matrix: the first one
    const std::vector<float> values = read_finite_weight(file, t, n);
    std::vector<double>& out = which == "cos_coef" ? c.cos : c.sin;
    out.assign(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(n));
    (which == "cos_coef" ? c.cos_name : c.sin_name) = t.name;
  }
  return c;
}

FopeCheckpoint fope_checkpoint(const std::string& path) {
  if (path.empty()) return {};
  return {path, read_fope_coefficients};
}

}  // namespace rope
