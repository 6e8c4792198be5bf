/// @file
/// Every layer of a dump checked in one run (docs/check.md "Every layer at once"): a `*` in the tensor names
/// (`--tensor 'layers.*.q'`, or `--before-tensor 'layers.*.q' --after-tensor 'layers.*.q_rope'`) pairs each tensor
/// of the before file that matches with the after file's tensor named by the same runs, and each pair is one
/// `rope check` (check_run.hpp) with the same settings (with k, `--k-before-tensor 'layers.*.k'`, each layer's q and
/// k together, k named by the same runs); a model of several layer types passes each layer as the
/// type it matches. The report lists the layers the worst first (report/check_layers_report.hpp).
#pragma once

#include <string>
#include <vector>

#include "rope/analysis/check/check_run.hpp"

namespace rope {

/// Most layers checked in one run.
inline constexpr std::size_t kMaxCheckedLayers = 1024;
/// Most '*' in one tensor name.
inline constexpr int kMaxTensorPatternStars = 4;

struct CheckedLayer {
  std::string before_tensor, after_tensor;
  CheckRun run;
  std::string k_before_tensor, k_after_tensor;  ///< with k: its tensors of the layer
};

struct CheckLayersRun {
  std::string before_file, after_file;
  std::string before_pattern, after_pattern;
  std::vector<CheckedLayer> layers;  ///< the failing first, each group by its largest |Δ|/tolerance, descending
  bool passed() const;
};

/// A layer's largest |Δ|/tolerance: q's, or with k the larger of q's and k's (the order of the report).
double layer_ratio(const CheckRun& run);

/// Whether the request names its tensors with a '*' (then run_check_layers checks them all).
bool names_layers(const DumpFiles& dumps);

/// Checks every pair of layers; with k (CheckRequest::keys) each layer's q and k together, k's tensors named by k's
/// patterns filled with the runs of its q's '*'. @throws InvalidArgument: no tensor of the before file matches, a
/// pattern with more than kMaxTensorPatternStars stars or a different number of them on the two sides (k's included),
/// more than kMaxCheckedLayers matches, the after file without the tensor a match names; as run_check for each pair.
CheckLayersRun run_check_layers(const CheckRequest& request);

}  // namespace rope
