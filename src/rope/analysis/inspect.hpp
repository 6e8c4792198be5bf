/// @file
/// `rope inspect` as one library call (docs/scaling.md): a model's RoPE, resolved once (models/resolve.hpp), with
/// the numbers its report shows: the wavelengths, how many pairs turn within the model's context lengths, the
/// critical dimension (M16) and the warnings a config can reveal. The command line, the Python module's
/// Spec.describe() and Spec.data print or hand over the same report (report/inspect_report.hpp).
#pragma once

#include <Eigen/Core>
#include <vector>

#include "rope/core/message.hpp"
#include "rope/models/resolve.hpp"

namespace rope {

/// What a context length means for a set of frequencies: how many pairs turn at least once in it.
struct ContextFact {
  Message what;  ///< "original context L0" / "max_position_embeddings"
  double length;
  Eigen::Index turning;  ///< pairs with λ <= length
  Eigen::Index pairs;
  Message which;  ///< longrope/dynamic: which frequencies HF uses at that length
};

/// The numbers of the report, computed once for the text and for the JSON of `rope inspect --json`.
struct InspectNumbers {
  Eigen::VectorXd lambda;         ///< the original wavelengths 2π/θ
  Eigen::VectorXd lambda_scaled;  ///< the scaled ones (infinite for a frequency 0)
  std::vector<ContextFact> facts;
  std::vector<Message> warnings;      ///< the model's, the scaling's and config_warnings'
  double train = 0.0;                 ///< the trained context: L0, else max_position_embeddings, else 0
  Eigen::Index critical = -1;         ///< (M16) on the original frequencies at `train` (-1: no length)
  Eigen::Index critical_scaled = -1;  ///< the same on the scaled ones, when they differ
};

/// The report of one model: its RoPE as resolved and the numbers computed from it.
struct InspectReport {
  ModelRope rope;
  InspectNumbers numbers;
};

/// Warnings a config can reveal, beyond the scaling's own: a long context with HF's default base, and an
/// "original" length larger than the trained one (docs/scaling.md).
std::vector<Message> config_warnings(const ModelRope& rr);

InspectNumbers inspect_numbers(const ModelRope& rr);

/// The report of `rope`, a model's RoPE as the front end resolved it (a preset, a config file, flags on top).
InspectReport inspect_model(ModelRope rope);

}  // namespace rope
