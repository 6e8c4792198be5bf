/// @file
/// A model's RoPE in words, in either language (core/message.hpp: the English is the catalog's id, the
/// Chinese comes from the translator a front end installed): the bands of the scaling methods, the model's
/// name, and the multimodal sections (models/axes.hpp) as `rope inspect`, `rope frequencies` and
/// `rope sections` print them. The command line's Text version of model_name (apps/rope/cli/scaling_options.hpp)
/// calls these.
#pragma once

#include <Eigen/Core>
#include <ostream>
#include <string>
#include <vector>

#include "rope/core/message.hpp"
#include "rope/models/axes.hpp"
#include "rope/models/model_config.hpp"
#include "rope/models/rope_spec.hpp"
#include "rope/models/scaling/scaling.hpp"

namespace rope {

class Text;  // report/text.hpp

/// A band's name for people ("-" for none).
std::string band_name(Band band, Lang lang);
/// "29 kept, 6 ramped, 29 interpolated": how many pairs fall in each band; empty without bands.
std::string band_counts(const RopeParameters& params, Lang lang);

/// What the front end calls the settings it was given where no model was (model_name's answer for kNoModelName):
/// the command line's "the command line" unless the front end installs another at its start (the Python module:
/// "the settings given", so that its texts name no command line).
void set_no_model_name(Message (*name)());
/// The model's name, or "the command line" (kNoModelName) translated.
std::string model_name(const RopeSpec& spec, Lang lang);

/// Pair indices in short form: runs of a constant step, "0 … 15", "1, 4, …, 58", "0, 3, …, 60; 61 … 63".
std::string pair_list(const std::vector<int>& pairs);

/// "t (time)", "h (height)", …
std::string axis_label(int axis, Lang lang);

/// The section order: "chunked", "interleaved", "2-D vision" (translated), "llama.cpp IMROPE", …
std::string order_name(SectionOrder order, Lang lang);

/// "(A2)", "(A3)" or "(A4)": the equation of docs/multi-axis.md that builds the map.
const char* axis_rule(SectionOrder order);

/// The block:
///   M-RoPE: mrope_section [16, 24, 24], chunked (docs/multi-axis.md (A2))
///     axis          pairs  pair indices     wavelengths (positions)
///     t (time)         16  0 … 15           6.28319 … 160.1
/// `theta` are the frequencies the model uses (λ = 2π/θ).
void print_axis_summary(std::ostream& out, const AxisMap& map, const Eigen::VectorXd& theta, Lang lang);

/// ", layer type full_attention (layers 5, 11, …)" when the model's layers differ, else "".
std::string layer_text(const RopeSpec& spec, const Text& t);

/// "float32 as HF computes it (--float32, …): …", the line a report prints when HF's float32 path was asked for.
std::string float32_text(const Text& t);

/// FoPE's pairs (models/fope.hpp (F1)–(F3)) as rope frequencies and rope wavelengths print them, for a head of `pairs`
/// pairs of which the first `kept` keep their θ: the cell of pair i ("kept: mixed", "padded: not rotated") and the
/// note that no pair turns by m·θ_i.
std::string fope_pair_cell(int kept, int i, const Text& t);
std::string fope_pairs_note(int kept, int pairs, const Text& t);

/// The line apply and matrix print for a vision tower's map: "2-D vision RoPE (pixtral, (V3)): pair i turns by
/// θ_i·(p), p the patch's row h or column w as its axis says: HHHH·WWWW (docs/multi-axis.md (V1))"; for a
/// one-number position m, a second line: "one number m = 3 stands for the patch (row, column) = (3, 3)".
std::string vision_map_line(const AxisMap& map, const AxisPosition& p, const Text& t);

}  // namespace rope
