/// @file
/// The options that describe a model's RoPE on every command that takes --dim/--base: --scaling TYPE
/// and its parameters, --partial-rotary-factor, --config FILE (a Hugging Face config.json) and
/// --model NAME (a preset of data/models/). Explicit flags override the file or preset.
#pragma once

#include <Eigen/Core>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "rope/cli/lang.hpp"
#include "rope/models/model_config.hpp"
#include "rope/core/types.hpp"
#include "rope/models/resolve.hpp"
#include "rope/models/rope_spec.hpp"
#include "rope/models/scaling/scaling.hpp"
#include "rope/report/model_text.hpp"  // layout_text
#include "rope/report/rope_text.hpp"   // layer_text

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace rope::cli {

/// The scaling options as the library takes them: the model source and its overrides (models/resolve.hpp),
/// each option bound to its field; the head dimension, base and layout come from the command's own
/// options (DimBase). Three values are parsed by resolve: the lists and --tower.
struct ScalingOptions {
  ModelSource source;                     ///< --model NAME (source.preset), --config FILE (source.file)
  RopeOverrides rope;                     ///< --scaling TYPE, --factor …, --layer-type, --vision, --float32
  std::string short_factor, long_factor;  ///< comma lists or @file
  std::string tower;                      ///< --tower text|vision: which RoPE of a vision-language model's config
  /// --engine NAME, --max-model-len N, --n-ctx N: whose rule picks LongRoPE's list (models/longrope_rule.hpp).
  std::string engine;
  std::optional<long> max_model_len, n_ctx;
  /// The command places the pairs of Gemma 4's vision tower inside each axis's block ((V6), spec.axis_blocks):
  /// apply, check, diff, sections, inspect, frequencies, wavelengths, decay, attention and matrix; resolve refuses
  /// Gemma 4's vision tower (--vision gemma4, or --tower vision of a Gemma 4 config) for the others.
  bool axis_blocks = false;

  /// Whether anything beyond plain RoPE was asked for.
  bool any() const;
};

/// Registers every option of ScalingOptions in the "Scaling" group of `app`.
void add_scaling_options(CLI::App& app, ScalingOptions& options);

/// --float32 and its alias --inv-freq-dtype f32|f64, for the commands that print frequencies, angles or
/// rotated vectors (frequencies, apply, matrix).
void add_float32_options(CLI::App& app, ScalingOptions& options);

/// float32_text (report/rope_text.hpp): "float32 as HF computes it: …", the line a command prints when --float32 is
/// given.
using rope::float32_text;

/// --float32 computes HF's float32 angles at one position m (rope_float32.hpp (F2)); a multi-axis
/// --position t,h,w has no such m.
/// @throws InvalidArgument naming both options when --float32 is given with a position of several components.
void check_float32_position(const ScalingOptions& options, const AxisPosition& position);

/// --dim and --base as typed (nullopt: not typed), and the values a command uses when they are not.
struct DimBase {
  std::optional<int> dim;
  int default_dim = 128;
  std::optional<double> base;
  double default_base = kDefaultBase;
  std::optional<Layout> layout;  ///< --layout as typed (nullopt: not typed)
  Layout default_layout = Layout::Interleaved;
  int max_dim = kMaxDim;  ///< plain RoPE: the command's limit on d, checked first (check_dimension)
};

/// The options as the library's overrides (models/resolve.hpp), the values that need parsing parsed (--tower,
/// --short-factor, --long-factor); head dimension, base and layout are left to the command (DimBase).
/// @throws InvalidArgument for a value that does not parse.
RopeOverrides scaling_overrides(const ScalingOptions& options);

/// "29 kept, 6 ramped, 29 interpolated": how many pairs fall in each band; empty without bands.
std::string band_counts(const RopeParameters& params, const Text& t = Text());
/// A band's name for people ("-" for none).
std::string band_name(Band band, const Text& t = Text());

/// layer_text (report/rope_text.hpp): ", layer type full_attention (layers 5, 11, …)" when the model's layers differ.
using rope::layer_text;

/// spec_summary and print_summary: report/model_text.hpp.
using rope::print_summary;
using rope::spec_summary;

/// The model's name, or "the command line" in the language of t.
std::string model_name(const RopeSpec& spec, const Text& t);

/// The RoPE a command computes with, the library's one resolution (models/resolve.hpp): plain RoPE of --dim
/// and --base (typed or the command's defaults; `plain` set, the layout --layout's or the command's default,
/// said as assumed), or, with --scaling, --config or --model, the model's spec with every flag on top (an
/// explicit --layout overrides the model's).
/// @throws InvalidArgument (bad or contradictory values), IoError (unreadable file).
ModelRope resolve(const ScalingOptions& options, const DimBase& flags);

}  // namespace rope::cli
