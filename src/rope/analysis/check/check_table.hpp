/// @file
/// `rope check`'s known variants as one table, and the modes of a check.
///
/// A row per known variant: its name (JSON's `matches`, the tests'), what it changes (describe()), how check finds it
/// (VariantDetection), the parameter it reports (CheckDiagnosis::found), the sentence the diagnosis says when it
/// matches (a catalog message: its Chinese is po/zh_CN.po's entry of the same English), and how its variants are
/// built and when they apply: from the expectation alone (compared with the dump in the one pass), or from what a
/// failing dump shows (its positions, its shape, where it fails). check_variants and a failing check's variants are
/// the rows' builders run in the table's order, which is the order the variants are compared in: where two pass, the
/// earlier row is the match, and of two equally close the earlier is named.
/// Each row is a file of src/rope/analysis/variants/ (<name>.cpp: the row with named fields, its builders and
/// sentence, its words in docs/check.md's table), and the table is those files in the order of one list,
/// src/rope/analysis/variants/variant_list.hpp, compiled as one translation unit (variants.cpp). Adding a known bug is
/// that file, its line in the list, its sentence's Chinese in po/zh_CN.po and a dump for its test (tests/reference).
///
/// A check has a mode (CheckMode): `forward` compares RoPE(before) with after. Another mode (the gradient through
/// RoPE, a cached key shifted to another position) is a row of check_modes(): the expectation it compares with, made
/// from the forward one, and its own wording of a row's sentence where the forward one does not fit; the report names
/// the mode in its header and JSON (forward, the default, is not named).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rope/analysis/check/check.hpp"
#include "rope/analysis/check/measured_rope.hpp"

namespace rope {

/// How check finds a variant.
enum class VariantDetection {
  Compared,  ///< a variant of the expectation (its row's from_expectation), compared with the dump in the one pass
  FromDump,  ///< built from the positions, the dump's shape or where it fails (its row's from_dump), then compared
  Measured,  ///< a parameter measured where the dump departs (the base of the first departing pair), then compared
  Searched,  ///< searched for, one comparison per step (the indices where the positions start again)
  Screened,  ///< before any variant: the dump's values (not finite, bf16 in float32), its channels or pair norms
  InMode,    ///< by a mode's own diagnosis after the forward one (its row's in_mode: heads or channels of a gradient)
  Paired,    ///< with q and k checked together (qk_pair.hpp): the other tensor's values or head count
};
const char* to_string(VariantDetection detection);

/// What a row's sentence may say: the expectation, the diagnosis so far (its `found`, `correct_until`, restarts),
/// the comparison with the expectation, the positions and the dump's shape and type.
struct VariantSaying {
  const RopeExpectation& expected;
  const CheckDiagnosis& diagnosis;
  const DumpComparison& comparison;
  const std::vector<AxisPosition>& positions;
  long groups = 0;
  DType dtype = DType::F32;
};

/// What a failing dump shows, for the rows whose variants are built from it.
struct VariantDump {
  const std::vector<AxisPosition>& positions;  ///< one per sequence index compared
  const DumpComparison& comparison;            ///< the dump against the expectation
  long groups = 0;                             ///< batch × heads
  int d = 0;                                   ///< the channels of a vector
  /// The dump is right at every index before this one, and some position there is not 0 (it drifts); −1: it does not.
  long first_failing = -1;
  /// The output's norm scaled by this factor beyond (N1)'s bound (check.hpp), every element off too.
  std::optional<double> norm_scale;
};

/// What a row's variants are built from: the expectation, and the failing dump when there is one (nullptr:
/// check_variants, the expectation alone).
struct VariantFacts {
  const RopeExpectation& expected;
  const VariantDump* dump = nullptr;
};

/// How one row's variants are built: when they apply, and the builder, which adds them to the list (none where what
/// it computes turns out equal to the expectation or not computable: the sections that do not fit the other order).
struct VariantBuild {
  bool (*applies)(const VariantFacts& facts) = nullptr;
  void (*build)(const VariantFacts& facts, std::vector<Variant>& out) = nullptr;
  explicit operator bool() const { return applies != nullptr && build != nullptr; }
};

/// What a row found by code reads (VariantRow::screen, search, in_mode): the failing check's report (its comparison,
/// the diagnosis so far, where the row names itself, and the variants tried, which it may add to), the dump and its
/// positions, and what was measured once for several rows (a gradient's failing heads and channels, check_mode.hpp
/// GradientParts; the failing elements classified, measured_rope.hpp ElementClasses).
struct VariantSearch {
  CheckReport& report;
  const DumpSource& source;
  long start = 0;
  const std::vector<AxisPosition>& positions;
  const GradientParts* gradient = nullptr;   ///< a gradient no forward row explains; nullptr otherwise
  const ElementClasses* elements = nullptr;  ///< the failing elements classified (measured_rope.hpp); nullptr: not
};

/// What the measurement of a failing dump found (check_diagnosis.cpp diagnose_measured, identify's engine), for the
/// rows that read it (VariantRow::measured): the expectation, the dump's RoPE measured, the parameters other than the
/// frequencies where it differs from the expected one (rotary_dim, partner, position_offset, attention_factor), and
/// what its frequencies are beside the expected ones.
struct MeasuredFacts {
  const RopeExpectation& expected;
  const CheckDiagnosis::Measured& measured;
  const std::vector<CheckDiagnosis::Difference>& differs;
  /// Every frequency turned by a radian or more at the largest position the expected one times this one constant
  /// (within 4σ and 10⁻⁴ each), not 1; nullopt otherwise.
  std::optional<double> ratio;
  /// Else the dump's frequencies one plain ladder (identify's default family) of this base over the expected rotary
  /// dimension, nothing in `differs`, where the expectation is scaled or of another base; nullopt otherwise.
  std::optional<double> ladder_base;
};

/// A row's reading of the measurement (VariantRow::measured): its variant (its parameters in `found`), compared over
/// the whole dump, and the difference it states (expected → found) beside `differs`.
struct MeasuredReading {
  Variant variant;
  std::vector<CheckDiagnosis::Difference> difference;
};

/// What one pass over q and k together found on its sample (qk_pair.hpp), for the rows that read it
/// (VariantRow::paired): whether each tensor's sampled vectors are the expected rotation, whether they are q and k
/// crossed under either GQA head map (0: q head h with k head h / (H_q / H_k), 1: h mod H_k), whether k's are turned
/// at the positions of k's buffer walked with q's head count, and the two head counts.
struct PairedFacts {
  bool q_expected = true, k_expected = true;
  std::array<bool, 2> crossed{};
  bool k_with_query_heads = false;
  long q_heads = 0, k_heads = 0;
};

/// What a row found by the pair norms reads (VariantRow::by_norms): the check's report, whose elements pass (C1)
/// while the pair norms fail (N1), the dump and its positions, the expectation's pair-norm comparison (a Variant with
/// `norms`) and the norms' energy-weighted ratio, beyond (N1)'s bound.
struct NormsSearch {
  CheckReport& report;
  const DumpSource& source;
  long start = 0;
  const std::vector<AxisPosition>& positions;
  const Variant& norms;
  double scale = 1;
};

/// A row's reading of the pair (VariantRow::paired): the tensors whose diagnosis it names, and its parameters.
struct PairedReading {
  bool names_q = false, names_k = false;
  std::vector<std::pair<std::string, double>> found;
  std::vector<ParameterDifference> difference = {};
};

/// What a row found over a range's parts reads (VariantRow::over_parts): the range's report, its parts' checks (batch
/// rows, or packed sequences), the parts, the dump and the range's positions.
struct PartsSearch {
  CheckReport& report;
  const SegmentChecks& checks;
  const std::vector<DumpSegment>& parts;
  bool rows = false;  ///< the parts are batch rows (else packed sequences)
  const DumpSource& source;
  const std::vector<AxisPosition>& positions;
};

/// The variant of row `kind` that computes `spec` (the other fields at their defaults).
Variant variant_of(VariantId kind, const RopeExpectation& spec);

/// One known way to get RoPE wrong.
struct VariantRow {
  VariantId kind;    ///< its place in the table (set as its file adds it: variants.cpp)
  const char* name;  ///< "layout-swapped", …
  VariantDetection detection;
  /// The keys of CheckDiagnosis::found when it matches, comma-separated ("" when it has none): "length,wraps".
  const char* parameters;
  /// What it changes, in docs/check.md's words: "the interleaved layout", "angles computed in f16".
  Message (*changes)(const RopeExpectation& expected);
  /// The diagnosis's sentence when the dump matches it (empty for the expected RoPE).
  Message (*says)(const VariantSaying& saying);
  /// Its sentence in a mode beyond the forward pass (saying.expected.mode: the gradient, a shift) where the forward
  /// one does not fit (the backward's transpose, a shift's sign); an empty message for a mode, or nullptr: `says`.
  Message (*says_in_mode)(const VariantSaying& saying) = nullptr;
  /// Its variants built from the expectation alone (VariantDetection::Compared; empty for a row found otherwise).
  VariantBuild from_expectation{};
  /// Its variants built from what a failing dump shows (VariantDetection::FromDump, and rotary-offset-other's offset
  /// read from the channels the dump changed, norm-scaled's measured factor).
  VariantBuild from_dump{};
  /// Found by a screen of the failing dump before any variant is compared (VariantDetection::Screened): names its row
  /// in the report's diagnosis (matches, found) and returns true, else returns false (a note it adds stays); the rows
  /// are asked in the table's order, the first that names its row ends the screen; nullptr for a row found otherwise.
  bool (*screen)(VariantSearch& search) = nullptr;
  /// Found by the pair norms of a dump whose elements pass (C1) and whose norms fail (N1) beyond its bound, in the
  /// first pass (VariantDetection::Screened): names its row in the report's diagnosis (matches, found; the report's
  /// comparison may become the norms') and returns true, else returns false; the rows are asked in the table's order;
  /// nullptr for a row found otherwise.
  bool (*by_norms)(NormsSearch& search) = nullptr;
  /// What its parameters change (expected → found), from the expectation and CheckDiagnosis::found, wherever it is
  /// named (the norm's factor as the attention factor); nullptr: the difference the diagnosis states is left as it is.
  std::vector<CheckDiagnosis::Difference> (*difference)(
      const RopeExpectation& expected, const std::vector<std::pair<std::string, double>>& found) = nullptr;
  /// Found by a search or a measurement of a failing dump after the compared variants (VariantDetection::Searched,
  /// Measured): names its row in the report's diagnosis and returns true where the whole dump confirms it, else
  /// returns false (the comparisons it made stay in the report's variants); the rows are asked in the table's order
  /// (the order of explanations, docs/check.md) until one names its row; nullptr for a row found otherwise.
  bool (*search)(VariantSearch& search) = nullptr;
  /// Found by the failing elements classified one by one (VariantSearch::elements, ElementClasses), which the
  /// measurement asks first (a dump whose failing elements are all of one kind is that, whatever the fit of its
  /// pairs): names its row and returns true, else returns false; asked in the table's order; nullptr otherwise.
  bool (*classified)(VariantSearch& search) = nullptr;
  /// Found by the measurement of a failing dump's RoPE (VariantDetection::Measured, after the searches): its reading of
  /// what was measured, or nullopt where the measurement is not its kind; the rows are asked in the table's order,
  /// each reading compared over the whole dump, the first that passes named; where none passes, the difference the
  /// last one stated is the diagnosis's. nullptr for a row found otherwise.
  std::optional<MeasuredReading> (*measured)(const MeasuredFacts& facts) = nullptr;
  /// Found with q and k checked together (VariantDetection::Paired): its reading of the pair's pass, or nullopt where
  /// the pass is not its kind; the rows are asked in the table's order, the first reading names its row in the
  /// diagnoses it says. nullptr for a row found otherwise.
  std::optional<PairedReading> (*paired)(const PairedFacts& facts) = nullptr;
  /// Found over a failing range's parts after each was checked (batch rows, packed sequences): names its row in the
  /// range's diagnosis where the parts show it (the rows are asked in the table's order); nullptr for a row found
  /// otherwise.
  void (*over_parts)(PartsSearch& search) = nullptr;
  /// Found by a mode's own diagnosis after the forward one (VariantDetection::InMode): names its row in the report's
  /// diagnosis and returns true where the dump shows it (the rows are asked in the table's order, the first that
  /// names its row ends the search), else leaves the diagnosis and returns false; nullptr for a row found otherwise.
  bool (*in_mode)(VariantSearch& search) = nullptr;
  /// A harmless reordering of the output, not a bug: its name in JSON's "equivalent" (equivalent_reordering); nullptr
  /// for a bug.
  const char* equivalent = nullptr;
};

/// Every known variant, one row each (a file of src/rope/analysis/variants/), in the order check compares them (the
/// rows found otherwise, by a screen, a search, a measurement or a mode, after those).
const std::vector<VariantRow>& variant_table();
/// The variants of every row that applies, in the table's order: each row's from_expectation, then, with a dump, each
/// row's from_dump. check_variants(e) is table_variants({e}).
std::vector<Variant> table_variants(const VariantFacts& facts);
/// The row of `kind`.
const VariantRow& variant_row(VariantId kind);
/// The variants that are a harmless reordering, not a bug (docs/check.md: "not a bug"): the output right up to the
/// order its channels are written in, q·k the same. A dump that matches one passes as equivalent (CheckRun::equivalent;
/// JSON "equivalent": this name, "interleaved-in-place", "de-interleaved") unless the order is asked for
/// (CheckSettings::strict_order). nullptr for a bug.
const char* equivalent_reordering(VariantId kind);

/// One mode of a check: its name (the report's header and JSON) and the expectation it compares a dump with, made from
/// the forward one (a variant's own wording in the mode is its row's says_in_mode).
struct CheckModeRow {
  CheckMode mode;
  const char* name;  ///< "forward", … (JSON's `mode`)
  /// What the dump is in this mode, for the report's header: "forward: the dump after is RoPE of the dump before"
  /// (a shift's names δ and the magnitude the keys carry).
  Message (*title)(const RopeExpectation& expected);
  /// The expectation of this mode from the forward one (forward: as it is).
  RopeExpectation (*expectation)(RopeExpectation forward);
};

/// The modes beyond forward (check_mode.hpp, check_mode.cpp): the gradient through RoPE (G1), a K cache shifted
/// in place (H1) and one re-rotated key by key (H2): their header line and expectation.
Message grad_mode_title(const RopeExpectation& expected);
RopeExpectation grad_mode_expectation(RopeExpectation forward);
Message shift_mode_title(const RopeExpectation& expected);
RopeExpectation shift_mode_expectation(RopeExpectation forward);
Message shift_map_mode_title(const RopeExpectation& expected);
RopeExpectation shift_map_mode_expectation(RopeExpectation forward);

/// Every mode, in CheckMode's order.
const std::vector<CheckModeRow>& check_modes();
const CheckModeRow& check_mode(CheckMode mode);
const char* to_string(CheckMode mode);
/// The mode of that name, nullopt when none has it.
std::optional<CheckMode> check_mode_named(std::string_view name);

/// The words the sentences share: a position ("63", "(5, 5, 6)"), a value that is not a finite number ("NaN",
/// "+inf", "-inf"), a list of indices (the first 12, then "…").
std::string check_position_text(const AxisPosition& p);
std::string check_value_text(double v);
std::string check_number_list(const std::vector<long>& values);
/// (N1)'s relative bound on a pair's norm for a dump of `dtype` (check.hpp): 2·(ε_T + ε_A).
double check_norm_bound(const RopeExpectation& expected, DType dtype);

/// The diagnosis's sentence for the variant `kind` it matched, in the expectation's mode (its row's says_in_mode
/// beyond the forward pass, where it has words for that mode).
Message variant_sentence(VariantId kind, const VariantSaying& saying);

}  // namespace rope
