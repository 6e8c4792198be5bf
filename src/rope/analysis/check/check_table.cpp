// rope check's known variants as one table (check_table.hpp): per VariantKind its name, what it changes, how it is
// found, its parameter and its sentence; and the modes of a check.
#include "rope/analysis/check/check_table.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <stdexcept>

#include "rope/analysis/dumps/cp_positions.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/dtype.hpp"
#include "rope/core/error.hpp"
#include "rope/io/csv.hpp"
#include "rope/models/scaling/longrope_engine.hpp"
#include "rope/models/scaling/scaling.hpp"
#include "rope/models/scaling/scaling_table.hpp"

namespace rope {

std::string check_position_text(const AxisPosition& p) {
  return p.multi() ? p.text() : format_number(p.value[0]);  // an integer as an integer, 2000000 not 2e+06
}

std::string check_value_text(double v) { return std::isnan(v) ? "NaN" : v > 0 ? "+inf" : "-inf"; }

std::string check_number_list(const std::vector<long>& values) {
  std::string s;
  for (std::size_t i = 0; i < values.size() && i < 12; ++i) s += (i ? ", " : "") + std::to_string(values[i]);
  return values.size() > 12 ? s + ", …" : s;
}

namespace {

using E = const RopeExpectation&;

const std::vector<CheckModeRow> kCheckModes = {
    {CheckMode::Forward, "forward", [](E) { return msg("forward: the dump after is RoPE of the dump before"); },
     [](RopeExpectation e) { return e; }, nullptr},
    {CheckMode::Grad, "grad", grad_mode_title, grad_mode_expectation, grad_mode_says},
    {CheckMode::Shift, "shift", shift_mode_title, shift_mode_expectation, shift_mode_says},
    {CheckMode::ShiftMap, "shift-map", shift_map_mode_title, shift_map_mode_expectation, shift_map_mode_says},
};

}  // namespace

double check_norm_bound(const RopeExpectation& expected, DType dtype) {
  return 2 * (epsilon(dtype) + angle_epsilon(expected.angles.value_or(default_angle_model(dtype))));
}

const char* to_string(VariantDetection detection) {
  switch (detection) {
    case VariantDetection::Compared:
      return "compared";
    case VariantDetection::FromDump:
      return "from-dump";
    case VariantDetection::Measured:
      return "measured";
    case VariantDetection::Searched:
      return "searched";
    case VariantDetection::Screened:
      return "screened";
    case VariantDetection::InMode:
      return "in-mode";
    case VariantDetection::Paired:
      return "paired";
  }
  return "?";
}

const VariantRow& variant_row(VariantKind kind) {
  // The table is in the order check compares the variants, not VariantKind's: the row is found by its kind.
  for (const VariantRow& row : variant_table()) {
    if (row.kind == kind) return row;
  }
  throw std::logic_error(fmt::format("the variant table has no row for variant {}", static_cast<int>(kind)));
}

std::vector<Variant> table_variants(const VariantFacts& facts) {
  std::vector<Variant> out;
  // Each builder's variants are its row's: their kind is set here.
  const auto build = [&](const VariantRow& row, const VariantBuild& b) {
    const std::size_t first = out.size();
    if (b && b.applies(facts)) b.build(facts, out);
    for (std::size_t k = first; k < out.size(); ++k) out[k].kind = row.kind;
  };
  for (const VariantRow& row : variant_table()) build(row, row.from_expectation);
  if (facts.dump == nullptr) return out;
  for (const VariantRow& row : variant_table()) build(row, row.from_dump);
  return out;
}

std::vector<Variant> check_variants(const RopeExpectation& expected) { return table_variants({expected}); }

const char* to_string(VariantKind kind) { return variant_row(kind).name; }

const char* equivalent_reordering(VariantKind kind) { return variant_row(kind).equivalent; }

Message describe(VariantKind kind, const RopeExpectation& expected) { return variant_row(kind).changes(expected); }

const std::vector<CheckModeRow>& check_modes() { return kCheckModes; }

const CheckModeRow& check_mode(CheckMode mode) {
  const auto k = static_cast<std::size_t>(mode);
  if (k >= kCheckModes.size() || kCheckModes[k].mode != mode) {
    throw std::logic_error(fmt::format("the check modes have no row {} in its place", k));
  }
  return kCheckModes[k];
}

const char* to_string(CheckMode mode) { return check_mode(mode).name; }

std::optional<CheckMode> check_mode_named(std::string_view name) {
  for (const CheckModeRow& m : kCheckModes) {
    if (name == m.name) return m.mode;
  }
  return std::nullopt;
}

Message variant_sentence(VariantKind kind, const VariantSaying& saying) {
  const VariantRow& row = variant_row(kind);
  const CheckModeRow& mode = check_mode(saying.expected.mode);
  return mode.says != nullptr ? mode.says(row, saying) : row.says(saying);
}

}  // namespace rope
