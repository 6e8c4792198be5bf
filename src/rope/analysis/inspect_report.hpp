/// @file
/// The report of `rope inspect` (docs/scaling.md): a model's RoPE from its preset, config.json or GGUF file,
/// resolved once (models/resolve.hpp), in words, in either language. The command line prints it, and the
/// Python module's Spec.describe() returns the same text (docs/python.md).
#pragma once

#include <Eigen/Core>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "rope/core/message.hpp"
#include "rope/models/resolve.hpp"

namespace rope {

/// Significant digits of the report's computed numbers (wavelengths, the yarn range, the attention factor).
inline constexpr int kInspectDigits = 6;

/// What a context length means for a set of frequencies: how many pairs turn at least once in it.
struct ContextFact {
  Message what;          ///< "original context L0" / "max_position_embeddings"
  double length;
  Eigen::Index turning;  ///< pairs with λ <= length
  Eigen::Index pairs;
  Message which;         ///< longrope/dynamic: which frequencies HF uses at that length
};

/// The numbers of the report, computed once for the text and for the JSON of `rope inspect --json`.
struct InspectNumbers {
  Eigen::VectorXd lambda;         ///< the original wavelengths 2π/θ
  Eigen::VectorXd lambda_scaled;  ///< the scaled ones (infinite for a frequency 0)
  std::vector<ContextFact> facts;
  std::vector<Message> warnings;  ///< the model's, the scaling's and config_warnings'
  double train = 0.0;             ///< the trained context: L0, else max_position_embeddings, else 0
  Eigen::Index critical = -1;         ///< (M16) on the original frequencies at `train` (-1: no length)
  Eigen::Index critical_scaled = -1;  ///< the same on the scaled ones, when they differ
};

/// Warnings a config can reveal, beyond the scaling's own: a long context with HF's default base, and an
/// "original" length larger than the trained one (docs/scaling.md).
std::vector<Message> config_warnings(const ModelRope& rr);

InspectNumbers inspect_numbers(const ModelRope& rr);

/// The text report, as `rope inspect` prints it; `digits`: significant digits of the computed numbers
/// (0: every digit), `lang`: in Chinese through the installed translator.
void print_inspect(std::ostream& out, const ModelRope& rr, Lang lang, int digits = kInspectDigits);

/// The same as a string.
std::string inspect_text(const ModelRope& rr, Lang lang, int digits = kInspectDigits);

}  // namespace rope
