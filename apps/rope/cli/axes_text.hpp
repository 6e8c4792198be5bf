/// @file
/// How the commands print (through the library's models/rope_text.hpp) a model's multimodal sections
/// (rope/models/axes.hpp): the axis of every pair and, per axis, its pairs and wavelength range (rope frequencies, rope
/// inspect, rope sections).
#pragma once

#include <Eigen/Core>
#include <ostream>
#include <string>
#include <vector>

#include "rope/cli/lang.hpp"
#include "rope/models/axes.hpp"
#include "rope/report/rope_text.hpp"

namespace rope::cli {

/// Pair indices in short form: "0 … 15", "1, 4, …, 58" (models/rope_text.hpp).
using rope::pair_list;

/// "t (time)", "h (height)", … in the language of t.
std::string axis_label(int axis, const Text& t);

/// The block:
///   M-RoPE: mrope_section [16, 24, 24], chunked (docs/multi-axis.md (A2))
///     axis          pairs  pair indices     wavelengths (positions)
///     t (time)         16  0 … 15           6.28319 … 160.1
/// `theta` are the frequencies the model uses (λ = 2π/θ).
void print_axis_summary(std::ostream& out, const AxisMap& map, const Eigen::VectorXd& theta, const Text& t);

/// vision_map_line: report/rope_text.hpp.

/// The section order in the language of t: "chunked", "interleaved", "2-D vision" (translated), "llama.cpp IMROPE", …
std::string order_name(SectionOrder order, const Text& t);

/// "(A2)", "(A3)" or "(A4)": the equation of docs/multi-axis.md that builds the map (models/rope_text.hpp).
using rope::axis_rule;

}  // namespace rope::cli
