/// @file
/// The options of `rope check` (cmd_check.cpp), which `rope diff` (cmd_diff.cpp) shares, and the one place
/// where they become the library's settings (analysis/check/check_run.hpp).
#pragma once

#include <optional>

#include "rope/analysis/check/check_run.hpp"
#include "rope/cli/dump_options.hpp"
#include "rope/cli/lang.hpp"
#include "rope/cli/scaling_options.hpp"

namespace CLI {
class App;
}

namespace rope::cli {

struct CheckOptions {
  DumpOptions dumps;
  std::optional<double> base;
  std::optional<Layout> layout;
  std::optional<DType> dtype;
  std::optional<AngleModel> angles;
  bool json = false;
  Lang lang = Lang::En;
  ScalingOptions scaling;
  std::optional<int> digits;    ///< --digits N: significant digits of the compared numbers (digits.hpp)
  bool query = false;           ///< --query (check): the dump is a query; the model's query scaling (S21) on top
  bool grad = false;            ///< --grad (check): the dumps are gradients (check_mode.hpp (G1))
  std::optional<double> shift;  ///< --shift DELTA (check): the dumps are a K cache before and after a shift (H1)
  std::optional<std::string>
      shift_map;  ///< --shift-map FILE (check): a K cache, each key moved from its old position to its new (H2)
  bool strict_order = false;    ///< --strict-order (check): a harmless reordering of the output fails
  std::string coefficients;     ///< --coefficients (check, diff): FoPE's checkpoint (cos_coef, sin_coef)
  std::optional<long> kv_head;  ///< --kv-head (check, diff): the key-value head whose coefficients every vector takes
  /// --k-before, --k-after and their tensors (check): k's dumps, checked with q's (CheckRequest::keys).
  KeyDumps keys;
  /// --cos, --sin, --cos-sin-cache and their tensors (check): the table the kernel was handed, the reference.
  CosSinTableFiles table;
};

/// --coefficients FILE, FoPE's checkpoint, of check and diff: the one definition of the option, and the statement that
/// the command computes FoPE (models/fope.hpp FopeUse::Computed: a FoPE model is not refused by the resolution); and
/// --kv-head H, for a dump that holds one key-value head's heads alone (every vector on that head's coefficients).
void add_coefficients_option(CLI::App& app, CheckOptions& opt);

/// The same option for apply and matrix (docs/multi-axis.md §7 "In the commands"): --coefficients FILE into
/// `coefficients` and the statement that the command computes FoPE, and --kv-head H, the key-value head whose
/// coefficients apply (0 when not given).
void add_fope_options(CLI::App& app, std::string& coefficients, std::optional<long>& kv_head, ScalingOptions& scaling);

/// What the dump is checked against, as the library takes it.
/// @throws InvalidArgument for a scaling option that does not parse (--tower, --short-factor, …).
CheckSettings check_settings(const CheckOptions& opt);

}  // namespace rope::cli
