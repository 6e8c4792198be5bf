/// @file
/// The report of `rope inspect` on a resolved model's RoPE, text or JSON: what the command prints, and what the
/// Python module's Spec.describe() returns (apps/python/), so that both show one text.
#pragma once

#include <optional>
#include <ostream>

#include "rope/cli/lang.hpp"
#include "rope/models/resolve.hpp"

namespace rope::cli {

/// Prints the report of `rr` in `lang`: as JSON (every digit) or as text with `digits` significant digits of
/// the computed numbers (nullopt: inspect's default 6; 0: every digit). Returns the exit code (0).
int print_inspect(const ModelRope& rr, bool json, std::optional<int> digits, Lang lang, std::ostream& out);

}  // namespace rope::cli
