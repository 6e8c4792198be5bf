/// @file
/// `rope check` as one library call: a dump pair (dump_files.hpp) against the RoPE of a model, a config or plain
/// RoPE of a base (models/resolve.hpp), under the tolerance model (C1) of check.hpp, each batch row or packed
/// sequence on its own, with the diagnosis of the known bug it matches. `rope diff` reads its expectation from
/// the same settings; the Python module checks arrays it arranged (check_arranged). The report's printers are
/// report/check_report.hpp.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rope/analysis/check/check.hpp"
#include "rope/analysis/check/cos_sin_table.hpp"
#include "rope/analysis/check/dump_files.hpp"
#include "rope/analysis/check/fope_coefficients.hpp"
#include "rope/analysis/check/qk_pair.hpp"
#include "rope/analysis/dumps/dump_pair.hpp"
#include "rope/core/dtype.hpp"
#include "rope/models/layers_without_rope.hpp"
#include "rope/models/resolve.hpp"
#include "rope/models/scaling/longrope_engine.hpp"

namespace rope {

/// What a dump is checked against: the model (a preset or a file) or plain RoPE of a base, and how the dump was
/// computed. `rope check` and `rope diff` fill it from the same options.
struct CheckSettings {
  ModelSource source;
  RopeOverrides rope;  ///< the scaling settings and the layer type, parsed (head_dim, base, layout: below)
  std::optional<double> base;
  std::optional<Layout> layout;      ///< the layout the dump should have (default: the model's, else half)
  std::optional<DType> dtype;        ///< the type the dump was computed in (default: the file's)
  std::optional<AngleModel> angles;  ///< how its angles were computed (default: the source's, else the dump's type's)
  bool query = false;                ///< the dump is a query: the model's query scaling (S21) on top
  /// What the dumps are (check_mode.hpp; check_table.hpp check_modes()): RoPE's input and output (forward), the
  /// upstream gradient and the input's gradient (grad), or a K cache before and after a shift by `shift` (shift: no
  /// positions).
  CheckMode mode = CheckMode::Forward;
  double shift = 0;
  /// shift-map (check_mode.hpp (H2)): the file of the map, a row (old, new) per key of the dump
  /// (dump_positions.hpp read_shift_map_file).
  std::string shift_map;
  /// Whose rule picks LongRoPE's list (models/scaling/longrope_engine.hpp): HF's unless the command line names an
  /// engine.
  LongRopeRule longrope;
  /// FoPE's checkpoint (models/fope.hpp): a directory, an index's shards or a .safetensors file holding cos_coef and
  /// sin_coef, with the reader of the front end that hands it over (fope_coefficients.hpp); none by default (a FoPE
  /// model then cannot be checked).
  FopeCheckpoint coefficients;
  /// --kv-head: the key-value head whose coefficients every vector of the dump takes (FoPE only); none: each head its
  /// group's by its index.
  std::optional<long> kv_head;
  /// A cos/sin table the kernel was handed (cos_sin_table.hpp: --cos and --sin, --cos-sin-cache): the reference is
  /// its values at each position's row, under (T1), instead of θ; none by default.
  CosSinTableFiles table;

  /// A dump right up to a harmless reordering of its output (equivalent_reordering, check_table.hpp) fails, as it
  /// would without the reordering (`rope check --strict-order`); otherwise it passes as equivalent.
  bool strict_order = false;
  /// Whether anything beyond plain RoPE of a base was asked for.
  bool any() const;
};

/// What the dump should contain: the one place where check and diff obtain layout, rotary dimension, frequencies
/// and attention factor. `where` says where the layout came from.
/// @throws InvalidArgument (a model whose head does not fit the dump's d, …), IoError (an unreadable file).
RopeExpectation expectation_from_settings(const CheckSettings& settings, int head_dim, bool per_axis,
                                          double max_position, Message& where);

/// The same of a model's RoPE resolved once (`rope`, the run's one resolution or one of its layer types): the one
/// construction check_run uses, and the Python module's rope.check with it (apps/python/check.cpp).
RopeExpectation expectation_of_resolved(const ModelRope& rope, const CheckSettings& settings, int head_dim,
                                        bool per_axis, double max_position, Message& where);

/// The expectation of a layer without RoPE: d channels, none turning (θ_i = 0 for every pair), attention factor 1;
/// with positions of `axis_components` axes (Qwen3.5's linear attention given t,h,w), a map of every pair on t.
RopeExpectation unchanged_expectation(int head_dim, const CheckSettings& settings, int axis_components = 1);

/// For a layer without RoPE: the expectation of the model's first layer type that has RoPE (the model's one RoPE
/// when it has no layer types), to tell what a rotated dump did; nullopt when no layer rotates or that RoPE does
/// not fit a head of `head_dim`.
std::optional<RopeExpectation> rope_of_other_layers(const CheckSettings& settings, int head_dim, bool per_axis,
                                                    double max_position);

/// What a long pass over streamed dumps reports as it goes (the command line draws a bar on a terminal).
class CheckProgress {
 public:
  virtual ~CheckProgress() = default;
  /// The bytes one pass reads; returns whether updates are wanted.
  virtual bool start(std::uint64_t bytes) = 0;
  /// The fraction of the current pass done; a fraction below the last one starts a new pass.
  virtual void update(double done) = 0;
  virtual void finish() = 0;
};

/// The key dumps of a check of q and k together (`--k-before`, `--k-after`, qk_pair.hpp): read as the query's are
/// (the same positions, axes and options), each file's tensor named on its own.
struct KeyDumps {
  std::string before, after;
  std::string before_tensor, after_tensor;  ///< --k-before-tensor, --k-after-tensor ("" : the file's only one)
};

struct CheckRequest {
  DumpFiles dumps;
  CheckSettings settings;
  CheckProgress* progress = nullptr;  ///< none: no progress reported
  /// q and k together: the dumps above are q's, these k's; each checked by the one engine (k without --query's
  /// scaling), then the relative-position identity (Q1) measured on both (qk_pair.hpp).
  std::optional<KeyDumps> keys;
};

/// The report of one check: the dumps as arranged (their values dropped), the expectation and where its layout
/// came from, a layer without RoPE, the comparison with its diagnosis and notes, and the batch rows or packed
/// sequences on their own (bounded whatever their number: SegmentChecks).
struct CheckRun {
  std::string before_file, after_file;  ///< the files as named ("" for arrays handed over)
  LoadedDumps dumps;                    ///< geometry, positions and how they were given; no values
  RopeExpectation expected;
  Message where;  ///< where the layout came from
  std::optional<LayersWithoutRope> nope;
  /// A model of several layer types checked without --layer-type (Gemma 3's sliding and full layers): the layer
  /// types tried when the default one failed, and the one the dump passes as ("" when none does or none was tried).
  std::vector<std::string> layer_types;
  std::string layer_type;
  /// The distinct RoPEs of those types checked beside the default one (names that share one share a try), at most
  /// kMaxLayerTypeTries; the types whose RoPE was left untried beyond that bound (none once one passes).
  std::size_t layer_type_tries = 0;
  std::vector<std::string> layer_types_not_tried;
  AngleModel angles = AngleModel::Float64;
  double max_position = 0;
  CheckReport report;
  /// The batch rows or packed sequences (none for one sequence): counted, the first kListedSegments listed, at
  /// most kDiagnosedSegments failing ones diagnosed (check.hpp).
  SegmentChecks segments;
  /// The dump fails only by a harmless reordering of its output, which passes (equivalent_reordering, check_table.hpp):
  /// the variant it matches (report.diagnosis names it); nullopt otherwise, and with CheckSettings::strict_order.
  std::optional<VariantId> equivalent;

  bool passed() const { return report.comparison.passed() || equivalent.has_value(); }

  /// q and k together (CheckRequest::keys): this run is q's, `k` the keys' own (the same report), `pair` the identity
  /// (Q1) measured on both. Null and nullopt for one tensor.
  std::shared_ptr<const CheckRun> k;
  std::optional<QkPairCheck> pair;
  /// The verdict of every part: this tensor's, k's and the pair's (the exit code of rope check).
  bool all_passed() const { return passed() && (!k || k->passed()) && (!pair || pair->passed()); }
};

/// Reads the dumps, resolves the expectation and checks. @throws InvalidArgument, IoError as the readers and
/// expectation_from_settings.
CheckRun run_check(const CheckRequest& request);

/// A model of several layer types checked without one given (Gemma 3's sliding_attention and full_attention): the
/// types with RoPE, the one checked by default, and the expectation of each (throwing InvalidArgument where a type
/// does not fit the dump). A dump that passes as the default type is said to; a failing one is checked against each
/// distinct RoPE of the types in turn (at most kMaxLayerTypeTries) and passes as the one it matches
/// (CheckRun::layer_type).
struct LayerTypeTrial {
  std::vector<std::string> types;  ///< empty: one type given, or the model has one
  std::string default_type;        ///< the type of the expectation checked first (the model's default)
  /// The one resolution of the run: each type's spec is read from its layers (never resolved again).
  std::shared_ptr<const ModelRope> model;
  /// The expectation of one layer type's RoPE: `layer` is the model with that type's spec.
  std::function<RopeExpectation(const ModelRope& layer, Message& where)> expectation;
};

/// The distinct RoPEs of a model's layer types that a failing check tries beyond the default one; the types of the
/// others are named as not tried (CheckRun::layer_types_not_tried).
inline constexpr std::size_t kMaxLayerTypeTries = 16;

/// The layer types of a model to try when none was given: those with RoPE, when there are several and `layer_type`
/// is empty (else none); the default type is the model's.
LayerTypeTrial layer_types_to_try(const ModelRope& model, const std::string& layer_type);

/// q and k together: the pair's rules on the two dumps' geometry (k's sequence length, head size and batch rows q's,
/// its heads dividing q's), before either is checked. @throws InvalidArgument naming the rule.
void require_qk_geometry(const DumpVectors& q, const DumpVectors& k);

/// q's run and k's joined (run_check with keys; the Python module's rope.check(k_before=, k_after=)): the identity (Q1)
/// measured on their values (`q_values`, `k_values`: in memory or streamed, positions included, as the runs read
/// them), a mistake found with both (qk_pair.hpp) named in the diagnosis of each run it explains, k's run attached.
CheckRun join_qk(CheckRun q, CheckRun k, const LoadedDumps& q_values, const LoadedDumps& k_values);

/// The same on dumps a front end arranged (dump_pair.hpp) against `expected`: the Python module's check. The
/// variants that need the dump's arrangement (the rope_deltas its positions include, batch rows of equal length)
/// are read from `pair`, as run_check reads them from the files.
CheckRun check_arranged(DumpPair pair, const RopeExpectation& expected, const LayerTypeTrial& trial = {},
                        bool strict_order = false);

/// The same with the values read from `source` a block at a time (`pair` arranged with geometry_only): arrays
/// a front end holds in memory (TensorStream::in_memory), checked in place with bounded memory, as `rope check`
/// streams its files.
CheckRun check_arranged(DumpPair pair, const RopeExpectation& expected, const StreamSource& source,
                        const LayerTypeTrial& trial = {}, bool strict_order = false);

}  // namespace rope
