/// @file
/// `rope check`: is a dumped RoPE right? The reference is computed in float64 from a RopeExpectation,
/// compared element by element with the dump under the tolerance model (C1) of the dump's dtype, and,
/// when the dump fails, compared again with known wrong variants (layout swapped, base 10000, attention
/// factor missing, positions off by one, partial rotary misapplied, scaling ignored, angles in
/// bfloat16/float16, some heads in the other layout) to name the bug (docs/check.md).
///
/// Pair norms (N1): a rotation keeps each pair's norm, so ‖y‖ = a·‖x‖ up to rounding alone (the angle's error
/// turns the pair but does not stretch it). In the dump's type T (unit roundoff ε_T/2) cos and sin rounded to T
/// change the norm by at most ε_T/2 (ε_A/2 in the angle's type), each component's two products and its sum by at
/// most (|x_a·cos| + |x_b·sin|)·ε_T/2 + |y|·ε_T/2, the store by ε_T/2: to first order at most 1.75·ε_T + ε_A/2
/// of a·‖x‖, so, with a margin,
///
///     |‖y‖ − a·‖x‖| <= 2·(ε_T + ε_A)·a·‖x‖ + 4·(T's smallest subnormal)                (N1)
///
/// (bf16 with float32 angles: 2·7.8e-3 = 1.56 %; float16 0.2 %; float32 4.8e-7). An element within (C1) can still hide
/// a norm scaled by up to 2·κ·ε_T (bf16: 12 %), which (N1) catches.
///
/// Tolerance model (C1), per element of rotated pair i at position m, x the pair of the dump before RoPE,
/// a the attention factor, T the dump's type:
///
///     |y − y_ref| <= κ · a · ‖x‖ · (2·ε_T + ε_A · (1 + c_i·|m|·θ_i))                   (C1)
///
/// 2·ε_T: cos and sin rounded to T, the two products and the sum rounded to T, the result stored in T
/// (each at most ε_T/2 of a term bounded by a·‖x‖); ε_A · (1 + c_i·|m|·θ_i): the angle's error under the
/// error model of the implementation (angle_error.hpp (C2): float64, PyTorch's float32, ggml's float32
/// ladder), plus ε_A for cos and sin; κ = kToleranceSafety (core/constants.hpp). An unrotated channel must
/// come back as it was within κ·ε_T·|x|.
#pragma once

#include <Eigen/Core>
#include <array>
#include <cmath>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rope/analysis/check/angle_error.hpp"
#include "rope/analysis/check/check_mode.hpp"
#include "rope/analysis/dumps/dump.hpp"
#include "rope/analysis/dumps/dump_positions.hpp"
#include "rope/core/message.hpp"
#include "rope/core/types.hpp"
#include "rope/models/axes.hpp"
#include "rope/models/rope_spec.hpp"

namespace rope {

struct GivenTable;

/// The error model of the check: the reference computed in float64, the tolerance (C1) of the dump's type with
/// the angle error (C2) of the implementation (RopeExpectation::angles).
Message default_error_model();

/// A parameter of the dump's RoPE that differs from the expected one: its name, the expected value and the one found
/// (CheckDiagnosis::difference; a variant's own, Variant::difference).
struct ParameterDifference {
  std::string parameter;
  double expected = 0, found = 0;
};

/// What the dump should contain: the one place where layout, rotary dimension, frequencies and attention
/// factor come together (the command line fills it from --model/--config/flags).
struct RopeExpectation {
  /// The model's RoPE as the dump holds it (models/rope_spec.hpp), the one source of its facts: `layout`, `head_dim`
  /// (d of the dump), `rotary_offset` (the first rotated channel of the dump: the pairs lie in [rotary_offset,
  /// rotary_offset + rotary_dim()); llama.cpp's DeepSeek-2 rotates the last channels of the head,
  /// ggml_rope_set_offset; HF's DeepSeek the same), `params.inv_freq` (θ, one per rotated pair; a variant changes it
  /// and `rotary_dim` with it), `params.attention_factor` (multiplies cos and sin), `config` (rope_theta, the
  /// scaling's type), `axes` (M-RoPE: the axis of every pair, models/axes.hpp (A1); the positions then have a
  /// component per axis, or one number for all, and pair i turns by θ_i·p_a(i)), `deinterleaved_output` (HF's
  /// apply_rotary_pos_emb_interleave: pair i read at (2i, 2i + 1), written at (i, i + r/2); only with the
  /// interleaved layout) and `axis_blocks` (Gemma 4's vision tower (V6): the rotary channels in two blocks of r/2,
  /// one per axis, the layout inside each). Plain RoPE of a base (no model) is a spec of that base alone.
  RopeSpec rope;
  const Eigen::VectorXd& theta() const { return rope.params.inv_freq; }
  double attention_factor() const { return rope.params.attention_factor; }
  double base() const { return rope.config.base; }  ///< rope_theta (the variants "base 10000", "scaling ignored")
  bool scaled() const { return rope.config.type != ScalingType::Default; }  ///< θ is not base^(−2i/r)
  /// θ (and the rotary dimension with it): a variant's frequencies.
  void set_theta(Eigen::VectorXd theta);

  // What only a dump adds:
  /// How the dump's angles were computed (angle_error.hpp); nullopt: default_angle_model of the dump's type.
  std::optional<AngleModel> angles;
  /// The scaling the reference uses and its parameters, for the report's header: "yarn: factor 4,
  /// original_max_position_embeddings 2048"; empty for plain RoPE (models/scaling/scaling_table.hpp writes it).
  std::string scaling;
  /// YaRN's factor f (0 when the scaling is not YaRN): the variant "YaRN without ext_factor" turns every pair by θ_i/f.
  double yarn_factor = 0;
  /// LongRoPE: the frequencies of the factor list rope did not choose from the dump's positions, and whether that
  /// list is the short one (llama.cpp chooses by its context size: the variant "the other LongRoPE list").
  struct OtherList {
    Eigen::VectorXd theta;
    bool is_short = false;
  };
  std::optional<OtherList> longrope_other;
  /// Where engines read one config otherwise (longrope_engine.hpp: dynamic NTK's length; DeepSeek-V4's RoPE per
  /// layer): the frequencies and attention factor of the reading not checked, and the sentence that names it (the
  /// variant "another engine's reading").
  struct EngineOther {
    Eigen::VectorXd theta;
    double attention_factor = 1.0;
    Message says;
    /// The parameters of that reading (dynamic NTK: its length and base) and how they differ from the one checked.
    std::vector<std::pair<std::string, double>> found = {};
    std::vector<ParameterDifference> difference = {};
  };
  std::optional<EngineOther> engine_other;
  /// A model of several layer types checked as one of them: the RoPE of each other type with RoPE and the same rotary
  /// dimension (`scaling_only` false), and this layer's unscaled frequencies under that type's scaling (θ_i of this
  /// layer times that type's θ_i over its unscaled θ_i, its attention factor; `scaling_only` true), where they differ
  /// from the expectation (the variant layer-type-other, expectation.cpp).
  struct OtherLayerType {
    std::string type;
    int index = 0;  ///< the type's place among the model's layer types (ModelRope::layers)
    Eigen::VectorXd theta;
    double attention_factor = 1.0;
    bool scaling_only = false;
    int checked = -1;  ///< the checked layer type's place among them
  };
  std::vector<OtherLayerType> other_layer_types;
  /// SGLang's short batch whose largest position is exactly L0 (this value; 0: none): the token at L0 reads row L0 of
  /// its [short | long] cache, the long list's position 0, and does not turn (engine_cache_positions, expectation.hpp).
  double longrope_l0_unturned = 0;
  /// YaRN's θ with the correction range's ends rounded to whole pairs, when the config says truncate: false (the
  /// variant "YaRN correction range truncated", vLLM #27722); empty otherwise.
  Eigen::VectorXd yarn_truncated_theta;
  double rope_delta = 0;  ///< M-RoPE decode: rope_deltas δ the positions include (--rope-delta); 0: none
  /// Batch rows of `row_length` indices each laid along the sequence axis (0: not a batch of equal rows): the variant
  /// "M-RoPE batch rows read as t, h, w" reads HF's position_ids [3, batch, seq] as [batch, 3, seq].
  long batch_rows = 0, row_length = 0;
  /// The error model: how the reference is computed and where the tolerance comes from, named in the report's
  /// header. compare_dump computes the tolerance at one place, the line marked (C1); another error model
  /// (llama.cpp's kernels) changes that computation there and names itself here.
  Message error_model = default_error_model();
  /// The dump is a query of a model that scales its queries after RoPE on every channel (docs/scaling.md (S21),
  /// Ministral 3 and Mistral 4, `rope check --query`): s(p) = 1 + β·ln(1 + ⌊(p + query_shift) / L0⌋) at the
  /// position's first component; β = 0: no scaling. Llama 4's NoPE layers ((S20)): β = attn_scale,
  /// L0 = floor_scale, query_shift 1.
  double query_beta = 0;
  double query_original = 1;
  double query_shift = 0;
  double query_scale(double position) const;
  /// What the dump after is (check_mode.hpp; each mode a row of check_table.hpp's check_modes()): RoPE of the dump
  /// before (forward), the gradient of the input given the upstream gradient (grad: s(p)·a·R(m)ᵀ, sin's sign flipped
  /// (G1)), or a K cache turned by δ (shift (H1): every position δ, attention_factor 1).
  CheckMode mode = CheckMode::Forward;
  double shift = 0;            ///< shift: δ
  double shift_magnitude = 1;  ///< shift: the model's attention factor, which the cached keys already carry
  /// FoPE (models/fope.hpp (F2)–(F4); rope.fope says the model has it): the checkpoint's coefficients, and the sin of
  /// the padded pairs (0 as vLLM pads it now; 1 for the variant "sin padded with 1"). Null: the pairs are rotations.
  std::shared_ptr<const FopeCoefficients> fope;
  double fope_pad_sin = 0;
  /// --kv-head: every vector of the dump on this matrix of the coefficients (the dump holds that key-value head's
  /// heads alone: one key head, or a query head of its group); −1: each head on its group's by its index (F4).
  long fope_matrix = -1;
  /// A cos/sin table the kernel was handed (analysis/check/cos_sin_table.hpp): the reference's cos and sin are the
  /// table's at the row of each position, under (T1); null: cos(m·θ_i) and sin(m·θ_i) under (C1).
  std::shared_ptr<const GivenTable> table;
  int rotary_dim() const { return 2 * static_cast<int>(rope.params.inv_freq.size()); }
};

/// The channels of the dump that hold rotated pair i, offset included: where compare_dump reads it in the
/// dump before RoPE (`output` false) and where it expects it after (`output` true; they differ only with
/// deinterleaved_output).
std::pair<int, int> pair_channels(const RopeExpectation& expected, int i, bool output);

/// A known way to get RoPE wrong, and the expectation that reproduces it: a row of the variant table
/// (check_table.hpp variant_table(), a file of src/rope/analysis/variants/ each), by its place there, which is the
/// order check compares the variants in. Row 0 is RoPE as expected. Code names a variant by its `matches` name:
/// known_variant("layout-swapped").
struct VariantId {
  int index = 0;
  friend bool operator==(VariantId a, VariantId b) { return a.index == b.index; }
  friend bool operator!=(VariantId a, VariantId b) { return a.index != b.index; }
  friend bool operator<(VariantId a, VariantId b) { return a.index < b.index; }
};
/// The variant whose row is named `name` ("layout-swapped"). @throws std::logic_error: no row has that name.
VariantId known_variant(std::string_view name);
/// The relative shortfall of an angle taken to revolutions by a float32 1/2π: fl32(1/2π)·2π − 1 = −4.03·10⁻⁸.
double fast_math_shortfall();
/// "expected", "layout-swapped", "base-10000", … (the names of the JSON output and of the tests).
const char* to_string(VariantId kind);
/// The variant in the words of docs/check.md's table, for people: "the interleaved layout", "base 10000",
/// "angles computed in f16", "positions shifted by +1", ….
Message describe(VariantId kind, const RopeExpectation& expected);

struct Variant {
  VariantId kind = known_variant("expected");
  RopeExpectation spec;
  double position_offset = 0;
  std::optional<DType> angle_type;  ///< m and θ cast to this type and m·θ computed in it (precision.hpp cast-inputs)
  bool sequence_index =
      false;  ///< mrope-ignored: sequence index s has the 1-D position t_0 + s (t_0 the first row's t)
  /// cos-sin-table-bf16: cos and sin rounded to this type after the angle (angle_type float32), before they multiply.
  std::optional<DType> table_type;
  /// angles-fast-math: the tolerance of a float32 angle (the variant's spec under --angles float32) widened by the
  /// fast unit's errors: the shortfall, the rounding of the angle in revolutions and the unit's absolute error.
  bool fast_math = false;
  std::optional<DType> dump_type;  ///< bf16-as-float32: the tolerance of this type instead of the dump's
  std::vector<long> restarts;      ///< positions-restart: from each index r on, p(s) − p(r) + p(0)
  bool swap_hw = false;            ///< axes-swapped: components h and w exchanged (height_component)
  bool reversed = false;           ///< rotation-reversed: sin's sign flipped (every pair turned by −m·θ)
  int partner = 0;                 ///< partial-rotary-pairing: pair i read and written at (off + i, off + i + partner)
  long cache_length = 0;  ///< cos-sin-cache-short: positions ≥ cache_length taken as cache_length − 1 (or wrapped)
  bool cache_wraps = false;  ///< cos-sin-cache-short: position p taken as p mod cache_length instead
  bool t_for_all = false;    ///< mrope-t-for-all: every component replaced by t
  int axis_shift = 0;        ///< mrope-axes-shifted: component a read from component (a + shift) mod 3
  bool heads_mixed = false;  ///< heads-seq-mixed: group g at index s turns at index (s·groups + g) mod seq
  bool batch_axes = false;   ///< mrope-batch-rows: component a of row b read from [3, B, S] at flat row 3b + a
  bool text_rows_as_axes =
      false;  ///< mrope-text-rows-as-axes: index i of every row at (rows 0, 1, 2 at i) as (t, h, w)
  /// axis-not-centred, text-positions-other: the first text_rows indices (a joint sequence's text) turn at their
  /// position plus text_offset on every component, the others at their position plus axis_offset[k] on component k.
  long text_rows = 0;
  double text_offset = 0;
  /// angles-bf16 of LTX-Video's chain (transformer_ltx.py LTXVideoRotaryPosEmbed.forward): its positions and
  /// frequencies each rounded step by step in the type, not cast once, so the angle differs from the one-cast angle by
  /// up to this many units ε of the type times (|m| + 1)·θ (kLtxChainUnits).
  double angle_chain_units = 0;
  std::array<double, kMaxAxes> axis_offset{};
  /// Pair norms on their own (N1): each rotated pair's ‖y‖ against a·‖x‖ (the rotation keeps the norm) within
  /// kNormUlps·(ε_T + ε_A) relative, instead of each element under (C1); the comparison sums ‖y‖² and (a·‖x‖)².
  bool norms = false;
  bool zero = false;      ///< output-zero and the zeroed heads and channels: every element expected 0, exactly
  long group_offset = 0;  ///< heads-crossed: group g's input read from group (g + group_offset) mod groups
  /// A given cos/sin table (RopeExpectation::table) misapplied: its sin left out (table-sin-missing), its cos and sin
  /// exchanged (table-cos-sin-swapped), its rows gathered by the token's index in its batch row instead of its
  /// position id (table-gathered-by-index).
  bool table_sin_missing = false, table_swapped = false, table_by_index = false;
  /// The parameter the variant stands for, for the diagnosis (CheckDiagnosis::found): {"length", 8192}, ….
  std::vector<std::pair<std::string, double>> found;
  /// The parameters the variant changes, expected and found (CheckDiagnosis::difference where it is named).
  std::vector<ParameterDifference> difference;
};

/// The component of a position that is its height; the width is the next one: 0 of a vision tower's
/// (row, column), 1 of M-RoPE's (t, h, w[, e]). @pre p.multi().
std::size_t height_component(const AxisPosition& p);

/// The pairs a llama.cpp IMROPE text token (p, p, p, 0) leaves unrotated where Hugging Face's interleaved
/// M-RoPE map (A3) turns them (Qwen3-VL's sections [24, 20, 20]: pairs 61, 62); empty for any other map.
std::vector<int> llama_cpp_unrotated_pairs(const RopeExpectation& expected);

/// The pairs of llama.cpp's own MROPE or IMROPE map (a GGUF's) that read the fourth position slot (e): what a dump
/// made with 0 in that slot, a text token's (p, p, p, 0), leaves unrotated where the positions given have a value
/// there (Qwen4-exp's indexer keys at (b, b, b, b)); empty for any other map.
std::vector<int> ggml_fourth_slot_pairs(const RopeExpectation& expected);

/// The variants worth trying for `expected` (those that differ from it): the builders of the variant table's rows
/// that apply to it, in the table's order (check_table.hpp table_variants).
std::vector<Variant> check_variants(const RopeExpectation& expected);

/// The values of one tensor that are not finite numbers (NaN, ±infinity): how many, and the first in (sequence
/// index, group, channel) order. In the tensor before RoPE they are invalid input (nothing to compare with); in
/// the tensor after RoPE a finding, which the diagnosis names (docs/check.md).
struct NonFiniteValues {
  long count = 0;
  long seq = -1, group = -1;
  int channel = -1;
  double value = 0;
  /// Counts one at (s, g, ch), kept as the first when it comes before the first so far.
  void add(long s, long g, int ch, double v) {
    if (count++ == 0 || s < seq || (s == seq && (g < group || (g == group && ch < channel))))
      seq = s, group = g, channel = ch, value = v;
  }
  /// Another tally's values (one thread's) into these.
  void merge(const NonFiniteValues& o) {
    if (o.count == 0) return;
    const long n = count;
    add(o.seq, o.group, o.channel, o.value);
    count = n + o.count;
  }
};

/// A dump against one variant.
struct DumpComparison {
  double max_ratio = 0;  ///< max over elements of |Δ| / tolerance (C1); <= 1 passes
  long failing = 0;      ///< elements with |Δ| > tolerance (or not finite)
  long total = 0;
  Eigen::VectorXd position_ratio;   ///< per sequence index: max |Δ|/tolerance
  Eigen::VectorXd channel_ratio;    ///< per channel
  std::vector<long> group_failing;  ///< per group (batch × heads): failing elements
  // The first failing element in (sequence, group, channel) order.
  long first_seq = -1, first_group = -1;
  int first_channel = -1;
  double first_expected = 0, first_got = 0, first_tolerance = 0;
  /// The pair of the first failing element (−1: a pass-through channel) and its values before and after.
  int first_pair = -1;
  double first_x[2] = {0, 0}, first_y[2] = {0, 0};
  NonFiniteValues before_non_finite, after_non_finite;  ///< counted on every vector compared (each fails)
  /// A Variant::norms comparison: Σ‖y‖² and Σ(a·‖x‖)² over the rotated pairs (summed in index order); their
  /// ratio's square root is the scale s of the output's norm.
  double norm_after2 = 0, norm_expected2 = 0;
  double norm_scale() const { return norm_expected2 > 0 ? std::sqrt(norm_after2 / norm_expected2) : 1.0; }
  bool passed() const { return failing == 0; }
};

/// What one pass of DumpSource::compare visits and how.
struct ComparePass {
  /// Only these ranges [first, second) of the compared range's indices (counted from its start; increasing and
  /// disjoint): a diagnosis's sample (check_sample.hpp). Empty: every index. The comparisons count the indices
  /// visited; a variant's positions are those of the whole range, so that a variant that depends on the index (a
  /// restart, heads and sequence mixed) turns each index as it would in a pass over the whole.
  std::vector<std::pair<long, long>> only;
  /// Variant::norms: every pair's ratio of (N1) computed (the report shows the norms' comparison); otherwise pairs
  /// that pass (N1) by a margin are counted and summed, and only the others' ratios computed.
  bool exact_norms = false;
  /// Each Variant::norms variant turns every index as the variant before it in the list does (check_source's
  /// expected variant and its pair norms, made from one expectation): the cos and sin computed for that one serve it.
  bool norms_as_previous = false;
  /// The variants from this index on are compared for their counts alone (failing, total, group_failing and the
  /// values that are not finite): a variant measured over a whole range after a sample named it (check_sample.hpp).
  /// Their maxima, position ratios and first failure are not computed (what the exact path records of a failing
  /// vector aside).
  std::size_t counts_from = static_cast<std::size_t>(-1);
};

/// Where a check reads its two dumps: in memory (MemorySource) or from their files in pieces
/// (analysis/check/fast/dump_stream.hpp). Every comparison runs the fast path, analysis/check/fast/check_kernel.hpp,
/// which computes what the exact path, analysis/check/compare_exact.hpp, computes.
class DumpSource {
 public:
  virtual ~DumpSource() = default;
  virtual long seq() const = 0;
  virtual long groups() const = 0;
  /// The heads of a group index: group g is batch row g / heads(), head g % heads() (a report names them so).
  virtual long heads() const { return groups(); }
  virtual int d() const = 0;
  /// The type whose tolerance applies (the after dump's, or the one the caller set).
  virtual DType dtype() const = 0;
  /// Compares the sequence indices [start, start + positions.size()) with every variant in one pass over them
  /// (`positions`: one per index of the range; the comparisons count indices from `start`).
  virtual std::vector<DumpComparison> compare(long start, const std::vector<AxisPosition>& positions,
                                              const std::vector<Variant>& variants,
                                              const ComparePass& pass = {}) const = 0;
  /// looks_like_bf16 of the after dump.
  virtual bool after_looks_like_bf16() const = 0;
  /// Whether the comparisons visit a sample of the range only (check_sample.hpp SampledSource).
  virtual bool sampled() const { return false; }
  /// The setting that gave the tensor before RoPE ("before", "k_before", "dump"): what a refusal of its values names.
  virtual std::string before_setting() const { return "before"; }
  /// The d channels of group `group` at sequence index `index` before and after RoPE (a diagnosis reads one vector's
  /// angles: position_offset.hpp).
  virtual std::pair<std::vector<double>, std::vector<double>> vector_at(long index, long group) const = 0;
};

/// Two dumps in memory. @throws InvalidArgument if their shapes differ.
class MemorySource final : public DumpSource {
 public:
  MemorySource(const DumpVectors& before, const DumpVectors& after);
  long seq() const override { return before_.seq; }
  long groups() const override { return before_.groups(); }
  long heads() const override { return before_.heads; }
  int d() const override { return before_.d; }
  DType dtype() const override { return after_.dtype; }
  std::vector<DumpComparison> compare(long start, const std::vector<AxisPosition>& positions,
                                      const std::vector<Variant>& variants,
                                      const ComparePass& pass = {}) const override;
  bool after_looks_like_bf16() const override;
  std::pair<std::vector<double>, std::vector<double>> vector_at(long index, long group) const override;

 private:
  const DumpVectors& before_;
  const DumpVectors& after_;
};

/// Compares `after` with RoPE(before) as `variant` computes it. @pre the two dumps have the same
/// shape and positions.size() == before.seq (throws InvalidArgument otherwise). A position of several
/// components needs the expectation's axes (axis_angles' rule).
DumpComparison compare_dump(const DumpVectors& before, const DumpVectors& after,
                            const std::vector<AxisPosition>& positions, const Variant& variant);

/// The diagnosis of a failing dump.
struct CheckDiagnosis {
  std::optional<VariantId> matches;   ///< a variant that passes everywhere
  std::optional<VariantId> closest;   ///< when none does: the one with the fewest failing elements
  long closest_explained = 0;         ///< the elements within tolerance under `closest`
  std::vector<long> restarts;         ///< positions-restart: the indices where the positions start again
  std::vector<long> swapped_groups;   ///< groups that pass with the other layout while the others pass as expected
  std::optional<long> correct_until;  ///< the expected variant passes at every sequence index before this one
  /// The parameter of the variant matched, by name: {"base", 500000}, {"length", 8192}, {"partner", 64}, … (JSON
  /// "found").
  std::vector<std::pair<std::string, double>> found;
  /// Where the dump first departs from the expectation (no variant comes close): sequence index, pair (−1 for a
  /// pass-through channel), and what the dump does to that pair there (the angle it turned it by, and its norm
  /// ratio), against RoPE's angle.
  struct Departure {
    long index = -1;
    long group = -1;
    int pair = -1;
    int channel = -1;
    double turned = 0, expected = 0, norm = 1;
  };
  std::optional<Departure> departure;
  /// A layer without RoPE whose dump is not unchanged (diagnose_no_rope).
  struct NoRope {
    /// The model's RoPE (of its layers that have one) as it is (expected), a known variant of it, or nullopt: neither.
    std::optional<VariantId> rope_matches;
    long changed = 0;  ///< elements that differ from the dump before beyond the tolerance
  };
  std::optional<NoRope> no_rope;
  /// A large failing dump diagnosed on a sample of its failing indices (check_sample.hpp): the sample's sequence
  /// indices and elements, and the variant named measured over the whole dump: the elements it explains of all
  /// (total 0: not measured).
  struct Sample {
    long indices = 0, elements = 0;
    long explained = 0, total = 0;
  };
  std::optional<Sample> sample;
  /// The dump's RoPE as measured on a failing dump that no listed variant matches (measured_rope.hpp, identify's
  /// engine): its pairs, frequencies (θ_j per pair and the family fitted to them), magnitude and positions.
  struct Measured {
    std::string layout;  ///< "interleaved", "half", "other", "none"
    int rotary_dim = 0, rotary_offset = 0;
    std::vector<std::pair<int, int>> pairs;
    std::string family;  ///< the family fitted to θ_j: "default", "linear", "yarn", "llama3", "per-pair"
    double base = 0, factor = 1;
    double attention_factor = 1;
    double position_offset = 0;  ///< k: the dump turned position m by (m + k)·θ
    long restarts = 0;           ///< indices where the dump's positions restart or jump
    bool reversed = false;
    Eigen::VectorXd theta, theta_sigma;  ///< per pair: θ_j and its standard error
    long indices = 0, groups = 0;        ///< the sequence indices and groups measured
  };
  std::optional<Measured> measured;
  /// A parameter of the dump's RoPE that differs from the expected one (JSON "difference"): "position_scale",
  /// "base", "length", "attention_factor", "magnitude", "rotary_dim", "partner", "position_offset", "channels", ….
  using Difference = ParameterDifference;
  std::vector<Difference> difference;
  /// The share of the dump's elements the difference explains, confirmed over the whole dump (explained of total);
  /// total 0: none confirmed.
  long difference_explained = 0, difference_total = 0;
  Message message;  ///< one sentence, empty when there is nothing to say
};

struct CheckReport {
  RopeExpectation expected;
  DumpComparison comparison;                                   ///< against the expected variant
  std::vector<std::pair<VariantId, DumpComparison>> variants;  ///< the others tried (on failure only)
  CheckDiagnosis diagnosis;
  bool only_position_zero = false;  ///< every position is 0: every layout agrees there
  std::vector<Message> notes;       ///< what else the dump says (a bf16 dump saved as float32)
  /// Each test's own ratio beside comparison.max_ratio: the element test's (C1), and the pair-norm
  /// test's (N1) where it fails (a pair that passes (N1) by a margin is screened without its ratio, so a passing
  /// test's largest is not computed: then none) or was compared pair by pair; none for FoPE, which has no (N1).
  double element_ratio = 0;
  std::optional<double> norm_ratio;
  /// `comparison` is the pair norms' (N1), not the elements' (C1): within (C1), the norm scaled (norm-scaled).
  bool comparison_is_norms = false;
};

/// One part of the sequence axis checked on its own: a batch row (laid along the sequence axis) or one of
/// packed sequences.
struct SegmentCheck {
  DumpSegment segment;
  long index = 0;              ///< its number among the segments (batch row k, sequence k)
  double max_ratio = 0;        ///< from the whole dump's comparison
  long failing_positions = 0;  ///< sequence indices with a failing element
  /// The segment checked alone, with its diagnosis (≈3.5 kB): only for a diagnosed segment (SegmentChecks),
  /// else null.
  std::shared_ptr<CheckReport> report;
  bool passed() const { return failing_positions == 0; }
  bool diagnosed() const { return report != nullptr; }
};

/// Segments whose verdicts a check keeps, in order: the first kListedSegments (a report lists no more).
inline constexpr std::size_t kListedSegments = 4096;
/// Failing segments diagnosed, each checked again alone: all of them when at most kDiagnosedSegments fail, else
/// the first kDiagnosedSegments / 2 and the kDiagnosedSegments / 2 worst (largest max |Δ|/tolerance; the
/// earlier of equal ones) among the others. Memory and time of the diagnoses do not grow with the number of
/// segments (10^6 failing rows each kept ≈3.5 kB: 3.2 GB before this bound).
inline constexpr std::size_t kDiagnosedSegments = 16;

/// Every batch row or packed sequence checked, kept bounded: their counts, and the verdicts of the first
/// kListedSegments and of the diagnosed ones.
struct SegmentChecks {
  long count = 0;    ///< segments checked
  long failing = 0;  ///< of them, the failing ones
  /// In index order: the first kListedSegments segments, then the diagnosed ones past them.
  std::vector<SegmentCheck> listed;
  bool empty() const { return count == 0; }
  /// The diagnosed segments (at most kDiagnosedSegments).
  long diagnosed() const;
  /// Segment `index` when listed, else nullptr.
  const SegmentCheck* find(long index) const;
};

/// The verdict of segment `index` (`g`) read from `whole` (the comparison of the whole dump with the expected
/// variant), undiagnosed.
SegmentCheck segment_verdict(const DumpSegment& g, long index, const DumpComparison& whole);

/// Each segment's result, read from `whole` (the comparison of the whole dump with the expected variant); the
/// failing segments chosen as kDiagnosedSegments says are checked again alone (check_dump on their slices), for
/// their own diagnoses.
SegmentChecks check_segments(const DumpVectors& before, const DumpVectors& after,
                             const std::vector<AxisPosition>& positions, const RopeExpectation& expected,
                             const std::vector<DumpSegment>& segments, const DumpComparison& whole);

/// With batch rows laid along the sequence axis (`rows`, dump_positions.hpp): a dump whose positions
/// "restart" at every row's start is every row rotated at the first row's positions, and the diagnosis says
/// so in those words (batched decode with one offset for the whole batch).
/// The diagnosed rows' own diagnoses then say it too.
void diagnose_rows(CheckReport& report, const std::vector<DumpSegment>& rows, SegmentChecks& checks,
                   const std::vector<AxisPosition>& positions);

/// A failing check of a layer without RoPE (`report` against the unchanged expectation): the dump is checked
/// against `rope`, the RoPE of the model's layers that have one (nullopt when the model has none to offer), and the
/// diagnosis says "this layer has no RoPE in <model> (layer type <type>: layers <layers>), but the dump is rotated:
/// …", in report.diagnosis.no_rope too. A non-finite value or a bf16 dump saved as float32 keeps its own diagnosis.
/// `positions` are those of the sequence indices [start, start + positions.size()) of `source` (a run, a segment).
void diagnose_no_rope(CheckReport& report, const DumpSource& source, const std::vector<AxisPosition>& positions,
                      const std::optional<RopeExpectation>& rope, const std::string& model,
                      const std::string& layer_type, const std::string& layers, long start = 0);

/// Whether every value of `dump` is a bfloat16 number (float32 with 16 zero low bits) and one is not zero:
/// a bf16 tensor saved with .float().
bool looks_like_bf16(const DumpVectors& dump);

/// The check of the sequence indices [start, start + positions.size()) of `source`: the expected variant, and
/// on failure every variant (in one pass), the restarts and the diagnosis.
CheckReport check_source(const DumpSource& source, long start, const std::vector<AxisPosition>& positions,
                         const RopeExpectation& expected);

/// The expectation of a mode (check_mode.hpp): grad turns by R(m)ᵀ (G1); shift keeps the model's attention factor as
/// shift_magnitude and expects a = 1 and no query scaling (H1). @throws InvalidArgument: |δ| beyond kMaxDumpPosition.
void set_mode(RopeExpectation& e, CheckMode mode, double shift = 0);

/// The positions of a shift check: δ at every one of `seq` sequence indices.
std::vector<AxisPosition> shift_positions(long seq, double shift);

/// A check of --grad or --shift (report.expected.mode, check_mode.hpp) after the forward check's diagnosis: the
/// diagnosis in the mode's words (the forward rotation where the backward applies its transpose, the shift with the
/// wrong sign, the magnitude applied again, …) and, for a gradient no row explains, the heads or channel ranges
/// that are 0, left uninitialised or read from another head.
void diagnose_mode(CheckReport& report, const DumpSource& source, long start,
                   const std::vector<AxisPosition>& positions);

/// check_segments on a source: a diagnosed segment is checked again alone (check_source on its range).
SegmentChecks check_segments(const DumpSource& source, const std::vector<AxisPosition>& positions,
                             const RopeExpectation& expected, const std::vector<DumpSegment>& segments,
                             const DumpComparison& whole);

/// Checks `after` against `before` and the expectation; on failure tries every variant.
CheckReport check_dump(const DumpVectors& before, const DumpVectors& after, const std::vector<AxisPosition>& positions,
                       const RopeExpectation& expected);
/// The same with one number per sequence index.
CheckReport check_dump(const DumpVectors& before, const DumpVectors& after, const std::vector<double>& positions,
                       const RopeExpectation& expected);

}  // namespace rope
