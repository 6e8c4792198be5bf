/// @file
/// `rope layouts` as one call (the report pattern of check_run.hpp): the request of the command's options,
/// the demonstration of layouts.hpp and, with `cache`, the cos/sin cache tables of the figure.
#pragma once

#include <Eigen/Core>
#include <optional>
#include <vector>

#include "rope/analysis/teaching/layouts.hpp"
#include "rope/models/resolve.hpp"

namespace rope {

struct LayoutsRequest {
  LayoutsSettings settings;             ///< seed, max_distance; dim, base, m, n and q, k are set from the fields below
  std::vector<double> positions;        ///< the query's m, then the key's n: exactly two
  ModelRope rope;                       ///< the resolved RoPE: its rotary dimension and base, or a model's frequencies
  std::optional<Eigen::VectorXd> q, k;  ///< the user's query and key (d numbers each); nullopt: drawn
  bool cache = false;                   ///< also the cos/sin cache of each layout (layout_cache)
  bool wide = false;                    ///< text: each score with its formula on its line
  bool show_vectors = false;            ///< text: q and k in full
  bool csv = false;                     ///< the scores go to a CSV file (the text then does not point at --csv)
};

struct LayoutsRun {
  LayoutsDemo demo;
  ModelRope rope;
  bool user_vectors = false;
  std::optional<LayoutCache> cache;
  bool wide = false, show_vectors = false, csv = false;
};

/// @throws InvalidArgument for two positions not given, vectors of another length than the rotary dimension,
/// or a setting layouts_demo refuses.
LayoutsRun run_layouts(const LayoutsRequest& request);

}  // namespace rope
