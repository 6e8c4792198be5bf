// rope check on a layer without RoPE whose dump is not unchanged (check.hpp diagnose_no_rope): the dump checked
// against the RoPE of the model's layers that have one, and the sentence that says which it is.
#include <algorithm>
#include <fmt/format.h>

#include "rope/analysis/check/check.hpp"
#include "rope/models/layout_term.hpp"

namespace rope {

void diagnose_no_rope(CheckReport& report, const DumpSource& source, const std::vector<AxisPosition>& positions,
                      const std::optional<RopeExpectation>& rope, const std::string& model,
                      const std::string& layer_type, const std::string& layers, long start) {
  CheckDiagnosis& dg = report.diagnosis;
  const DumpComparison& c = report.comparison;
  // A value that is not a number, or a bf16 dump that passes unchanged under bf16's tolerance, keep their own words.
  if (c.passed() || c.after_non_finite.count > 0 || dg.matches == known_variant("bf16-as-float32")) return;
  // The variants of "unchanged" (θ = 0 in another layout, at shifted positions, …) are all "unchanged": no words.
  auto& tried = report.variants;
  tried.erase(std::remove_if(tried.begin(), tried.end(),
                             [](const auto& v) { return v.first != known_variant("bf16-as-float32"); }),
              tried.end());
  CheckDiagnosis::NoRope found;
  found.changed = c.failing;
  CheckDiagnosis fresh;
  std::optional<CheckReport> as_rope;
  if (rope) as_rope = check_source(source, start, positions, *rope);
  if (as_rope && as_rope->comparison.passed()) {
    found.rope_matches = known_variant("expected");
    fresh.message =
        msg("this layer has no RoPE in {0} (layer type {1}: layers {2}), but the dump is rotated: it matches "
            "the RoPE of the model's layers that have one ({3} layout, rotary dim {4}, base {5}), which this "
            "layer's code must not apply",
            model, layer_type, layers, layout_term(rope->rope.layout), rope->rotary_dim(),
            fmt::format("{:g}", rope->base()));
  } else if (as_rope && as_rope->diagnosis.matches && *as_rope->diagnosis.matches != known_variant("bf16-as-float32")) {
    found.rope_matches = as_rope->diagnosis.matches;
    fresh.message =
        msg("this layer has no RoPE in {0} (layer type {1}: layers {2}), but the dump is rotated, as the "
            "model's layers with RoPE rotate theirs but for one difference: {3}; this layer's code must not "
            "apply RoPE at all",
            model, layer_type, layers, as_rope->diagnosis.message);
  } else {
    fresh.message =
        msg("this layer has no RoPE in {0} (layer type {1}: layers {2}), but the dump after differs from the "
            "dump before ({3} of {4} elements beyond the tolerance), and the model's RoPE does not explain "
            "it: run `rope identify` to see what the dump does",
            model, layer_type, layers, c.failing, c.total);
  }
  fresh.no_rope = found;
  dg = std::move(fresh);
}

}  // namespace rope
