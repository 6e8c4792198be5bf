/// @file
/// The printers of `rope inspect`'s report (analysis/inspect.hpp, docs/scaling.md): a model's RoPE in words, in
/// either language, and its value, which the JSON printer writes (`--json`) and the Python module hands over
/// (Spec.data); the Python module's Spec.describe() returns the same text. Also the list of the model presets
/// (`rope inspect --list`). The report's lists (inv_freq, pair_axis) have one entry per pair.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "rope/analysis/inspect.hpp"
#include "rope/core/message.hpp"
#include "rope/models/presets.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;  // report/text.hpp

/// Significant digits of the report's computed numbers (wavelengths, the yarn range, the attention factor).
inline constexpr int kInspectDigits = 6;

/// The text report, as `rope inspect` prints it; `digits`: significant digits of the computed numbers
/// (0: every digit), `lang`: in Chinese through the installed translator.
void print_inspect(std::ostream& out, const InspectReport& report, Lang lang, int digits = kInspectDigits);

/// The text report of a resolved model as a string (Spec.describe()).
std::string inspect_text(const ModelRope& rr, Lang lang, int digits = kInspectDigits);

/// The report's fields: the model, its head and rotating channels, layout, base, scaling and attention factor
/// with their rules, the softmax and query scaling, the bands and critical dimensions, inv_freq and
/// original_inv_freq, the axes, where each value came from, notes and warnings.
Value inspect_value(const InspectReport& report);

/// The report of `rope inspect` (`how.digits`: kInspectDigits when not given): report/emit.hpp.
template <>
struct Report<InspectReport> {
  static Value value(const InspectReport& run) { return inspect_value(run); }
  static void text(std::ostream& out, const InspectReport& run, const Printing& how) {
    print_inspect(out, run, how.lang, how.digits.value_or(kInspectDigits));
  }
};

/// The presets as a list of {name, description}.
Value presets_value(const std::vector<PresetInfo>& presets);

/// "N model presets (…):", then one line per preset, its description in the language of t.
void print_presets(std::ostream& out, const std::vector<PresetInfo>& presets, const Text& t);

/// The preset list of `rope inspect --list`: report/emit.hpp.
template <>
struct Report<std::vector<PresetInfo>> {
  static Value value(const std::vector<PresetInfo>& run) { return presets_value(run); }
  static void text(std::ostream& out, const std::vector<PresetInfo>& run, const Printing& how) {
    print_presets(out, run, Text(how.lang));
  }
};

}  // namespace rope
