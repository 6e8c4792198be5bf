// rope check's known variants as one table (check_table.hpp): its rows are the files of src/rope/analysis/variants/
// (variants.cpp); here what reads them (a variant's row, name, words and sentence, the variants built in the table's
// order) and the modes of a check.
#include "rope/analysis/check/check_table.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <stdexcept>

#include "rope/analysis/check/cos_sin_table.hpp"
#include "rope/analysis/dumps/cp_positions.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/dtype.hpp"
#include "rope/core/error.hpp"
#include "rope/io/csv.hpp"
#include "rope/models/scaling/longrope_engine.hpp"
#include "rope/models/scaling/scaling.hpp"
#include "rope/models/scaling/scaling_table.hpp"

namespace rope {

Variant variant_of(VariantId kind, const RopeExpectation& spec) {
  Variant v;
  v.kind = kind, v.spec = spec;
  return v;
}

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
     [](RopeExpectation e) { return e; }},
    {CheckMode::Grad, "grad", grad_mode_title, grad_mode_expectation},
    {CheckMode::Shift, "shift", shift_mode_title, shift_mode_expectation},
    {CheckMode::ShiftMap, "shift-map", shift_map_mode_title, shift_map_mode_expectation},
};

}  // namespace

double check_norm_bound(const RopeExpectation& expected, DType dtype) {
  if (expected.table) return 2 * (epsilon(dtype) + epsilon(expected.table->type));  // a given table: ε_U for ε_A
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

const VariantRow& variant_row(VariantId kind) {
  const std::vector<VariantRow>& table = variant_table();
  if (kind.index < 0 || static_cast<std::size_t>(kind.index) >= table.size()) {
    throw std::logic_error(fmt::format("the variant table has no row {}", kind.index));
  }
  return table[static_cast<std::size_t>(kind.index)];
}

VariantId known_variant(std::string_view name) {
  for (const VariantRow& row : variant_table()) {
    if (name == row.name) return row.kind;
  }
  throw std::logic_error(fmt::format("the variant table has no row named {}", name));
}

std::vector<Variant> table_variants(const VariantFacts& facts) {
  std::vector<Variant> out;
  // Each builder's variants are its row's: their kind is set here.
  const auto build = [&](const VariantRow& row, const VariantBuild& b) {
    const std::size_t first = out.size();
    if (b && b.applies(facts)) b.build(facts, out);
    for (std::size_t k = first; k < out.size(); ++k) out[k].kind = row.kind;
  };
  // Beside a given cos/sin table only the rows that do not change θ, the angles or the magnitude mean something.
  const auto applies = [&](const VariantRow& row) { return !facts.expected.table || applies_beside_table(row.name); };
  for (const VariantRow& row : variant_table())
    if (applies(row)) build(row, row.from_expectation);
  if (facts.dump == nullptr) return out;
  for (const VariantRow& row : variant_table())
    if (applies(row)) build(row, row.from_dump);
  return out;
}

std::vector<Variant> check_variants(const RopeExpectation& expected) { return table_variants({expected}); }

const char* to_string(VariantId kind) { return variant_row(kind).name; }

const char* equivalent_reordering(VariantId kind) { return variant_row(kind).equivalent; }

Message describe(VariantId kind, const RopeExpectation& expected) { return variant_row(kind).changes(expected); }

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

Message variant_sentence(VariantId kind, const VariantSaying& saying) {
  const VariantRow& row = variant_row(kind);
  if (saying.expected.mode != CheckMode::Forward && row.says_in_mode != nullptr) {
    Message in_mode = row.says_in_mode(saying);
    if (!in_mode.id.empty()) return in_mode;
  }
  return row.says(saying);
}

}  // namespace rope
