/// @file
/// The options of `rope check` (cmd_check.cpp), which `rope diff` (cmd_diff.cpp) shares, and the one place
/// where they become the expectation a dump is checked against.
#pragma once

#include <optional>

#include "rope/analysis/check.hpp"
#include "rope/cli/dump_options.hpp"
#include "rope/cli/lang.hpp"
#include "rope/cli/scaling_options.hpp"

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
  std::optional<int> digits;  ///< --digits N: significant digits of the compared numbers (digits.hpp)
  bool query = false;         ///< --query (check): the dump is a query; the model's query scaling (S21) on top
};

/// What the dump should contain, from --model/--config/flags and --layout: the one place where the
/// commands obtain layout, rotary dimension, frequencies and attention factor. `where` says where the layout
/// came from. @throws InvalidArgument (a model whose head does not fit the dump's d, …).
RopeExpectation expectation_from_options(const CheckOptions& opt, int head_dim, bool per_axis, double max_position,
                                         Message& where);

/// The expectation of a layer without RoPE: d channels, none turning (θ_i = 0 for every pair), attention factor 1;
/// with positions of `axis_components` axes (Qwen3.5's linear attention given t,h,w), a map of every pair on t.
RopeExpectation unchanged_expectation(int head_dim, const CheckOptions& opt, int axis_components = 1);

/// For a layer without RoPE: the expectation of the model's first layer type that has RoPE (the model's one RoPE
/// when it has no layer types), to tell what a rotated dump did; nullopt when no layer rotates or that RoPE does
/// not fit a head of `head_dim`.
std::optional<RopeExpectation> rope_of_other_layers(const CheckOptions& opt, int head_dim, bool per_axis, double max_position);

/// The report's "scaling" row: the scaling and its parameters, "none (default RoPE)" for unscaled RoPE, "no RoPE on
/// this layer" for a layer without RoPE.
std::string scaling_text(const RopeExpectation& e, bool no_rope, const Text& t);

}  // namespace rope::cli
