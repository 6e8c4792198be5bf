/// @file
/// What a variant file of src/rope/analysis/variants/ sees: the variant table's types (check_table.hpp), the shorthands
/// of its rows (E, S, F, Out), the helpers several rows share, and Registered, which adds a file's row to the table.
/// variants.cpp includes it once, before the files (variant_list.hpp): the files compile as one translation unit.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "rope/analysis/check/check_table.hpp"
#include "rope/analysis/check/cos_sin_table.hpp"
#include "rope/analysis/check/measured_rope.hpp"
#include "rope/analysis/check/position_offset.hpp"
#include "rope/analysis/dumps/cp_positions.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/dtype.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/io/csv.hpp"
#include "rope/models/scaling/longrope_engine.hpp"
#include "rope/models/scaling/scaling.hpp"
#include "rope/models/scaling/scaling_table.hpp"

namespace rope::variants {

/// Adds a variant file's row to the table, after the rows of the files included before it.
struct Registered {
  explicit Registered(const VariantRow& row);
};

using S = const VariantSaying&;

using E = const RopeExpectation&;

inline std::string base_of(E e) { return fmt::format("{:g}", e.base()); }

inline double found_value(S c, std::size_t k = 0) { return c.diagnosis.found.at(k).second; }

/// The value of the found parameter `name`, or `otherwise`.
inline double found_or(const std::vector<std::pair<std::string, double>>& found, const char* name, double otherwise) {
  for (const auto& [key, value] : found) {
    if (key == name) return value;
  }
  return otherwise;
}
inline double found_or(S c, const char* name, double otherwise) { return found_or(c.diagnosis.found, name, otherwise); }
/// The groups (batch × heads) where the comparison with the expectation fails.
inline std::vector<long> failing_groups(S c) {
  std::vector<long> g;
  for (std::size_t i = 0; i < c.comparison.group_failing.size(); ++i) {
    if (c.comparison.group_failing[i] != 0) g.push_back(static_cast<long>(i));
  }
  return g;
}

/// The position just before the dump departs (CheckDiagnosis::correct_until).
inline std::string correct_until_text(S c) {
  return check_position_text(c.positions[static_cast<std::size_t>(*c.diagnosis.correct_until - 1)]);
}

inline Message angles_in(S c, const char* type) {
  if (c.diagnosis.correct_until) {
    return msg(
        "correct until position {0}, then drifts: angles computed in {1}? (the dump matches positions and frequencies "
        "cast to {2} before m·θ)",
        correct_until_text(c), type, type);
  }
  return msg("matches angles computed in {0}: positions and frequencies cast to {1} before m·θ", type, type);
}

inline Message sections_in(S c, bool chunked) {
  const std::string sections = fmt::format("{}", fmt::join(c.expected.rope.axes->source.sections, ", "));
  if (chunked && c.expected.rope.axes->source.order == SectionOrder::Bailing) {
    return msg(
        "matches mrope_section [{0}] in chunks as Qwen2-VL lays them (docs/multi-axis.md (A2)), where the "
        "model's code alternates them as Bailing does ((A9)): the axis map is another implementation's",
        sections);
  }
  return chunked ? msg("matches mrope_section [{0}] in chunks, the model's code interleaves them: the axis map is "
                       "the other implementation's (docs/multi-axis.md (A2), (A3))",
                       sections)
                 : msg("matches mrope_section [{0}] interleaved, the model's code chunks them: the axis map is "
                       "the other implementation's (docs/multi-axis.md (A2), (A3))",
                       sections);
}

/// The two interleaved orders of one set of sections: the dump's (`pangu` true: openPangu-VL's (A10)) against the
/// model's, with the first pair where they part.
inline Message interleave_order_in(S c, bool pangu) {
  const std::string sections = fmt::format("{}", fmt::join(c.expected.rope.axes->source.sections, ", "));
  const auto pair = static_cast<long>(found_value(c));
  return pangu ? msg("matches mrope_section [{0}] in openPangu-VL's greedy order (vLLM rope_type openpangu), where the "
                     "model interleaves them as Qwen3-VL does: the two orders agree on pairs 0 … {1} and part at pair "
                     "{2} (docs/multi-axis.md (A3), (A10))",
                     sections, pair - 1, pair)
               : msg("matches mrope_section [{0}] in Qwen3-VL's interleaved order, where the model lays them out "
                     "greedily as openPangu-VL does (vLLM rope_type openpangu): the two orders agree on pairs 0 … {1} "
                     "and part at pair {2} (docs/multi-axis.md (A3), (A10))",
                     sections, pair - 1, pair);
}

/// HunyuanVL's two XD-RoPE maps (A11): the dump's (`hf` true: HF's doubled sections) against the model's, with the
/// first pair where they part and the setting that chooses the map.
inline Message xdrope_map_in(S c, bool hf) {
  const std::string sections = fmt::format("{}", fmt::join(c.expected.rope.axes->source.sections, ", "));
  const auto pair = static_cast<long>(found_value(c));
  return hf ? msg("matches xdrope_section [{0}] in HF's XD-RoPE map (each section doubled: the two channels of a "
                  "pair read two streams), where the model repeats the list as Tencent's code does (both channels on "
                  "one stream): the maps part at pair {1} (docs/multi-axis.md (A11); {2} hf)",
                  sections, pair, option_name("xdrope_map"))
            : msg("matches xdrope_section [{0}] in Tencent's XD-RoPE map (the list repeated: both channels of a pair "
                  "on one stream, as mlx-vlm too), where the model doubles each section as HF's code does: the maps "
                  "part at pair {1} (docs/multi-axis.md (A11); {2} tencent)",
                  sections, pair, option_name("xdrope_map"));
}

/// --shift (H1): the keys turned by δ + extra where δ is given, in the shift's words (the mode takes no positions).
inline Message shift_off_says(S c, double extra) {
  const double delta = c.expected.shift, got = delta + extra;
  if (delta != 0 && got == 2 * delta)
    return msg("matches a shift of {0} = 2δ where δ = {1}: the shift is applied twice", format_number(got),
               format_number(delta));
  if (std::abs(extra) == 1)
    return msg("matches a shift of {0} where δ = {1}: the shift is off by one ({2})", format_number(got),
               format_number(delta), fmt::format("{:+}", extra));
  return msg(
      "matches a shift of {0} where δ = {1} ({2}): δ is computed from other positions than the keys' old and new "
      "ones",
      format_number(got), format_number(delta), fmt::format("{:+}", extra));
}

inline Message inv_freq_in(const char* type) {
  return msg(
      "matches inv_freq rounded to {0} with m·θ computed in float32: the frequencies are stored in {0} (a buffer of "
      "the model's dtype) before the product; keep inv_freq in float32",
      type);
}

// How the rows found by code name themselves (VariantRow::screen, search, in_mode).
using M = VariantSearch&;

/// The mode's diagnosis names the row `name` with `found`, in place of the forward one's finding (its closest, its
/// departure and where it drifts no longer said). Returns true: the row is found.
inline bool name_in_mode(M m, const char* name, std::vector<std::pair<std::string, double>> found) {
  CheckDiagnosis& dg = m.report.diagnosis;
  dg.matches = known_variant(name);
  dg.found = std::move(found);
  dg.closest.reset(), dg.departure.reset(), dg.correct_until.reset();
  return true;
}

/// The diagnosis so far names the row `name`.
inline bool diagnosis_names(M m, const char* name) {
  return m.report.diagnosis.matches && *m.report.diagnosis.matches == known_variant(name);
}

/// The row `name` named with its parameters and the difference, confirmed over the whole dump: its share every element
/// of the dump's comparison (a search's confirming comparison covers the same elements).
inline bool name_confirmed(M m, const char* name, std::vector<std::pair<std::string, double>> found,
                           std::vector<CheckDiagnosis::Difference> diff) {
  CheckDiagnosis& dg = m.report.diagnosis;
  dg.matches = known_variant(name);
  dg.found = std::move(found);
  dg.difference = std::move(diff);
  dg.difference_explained = m.report.comparison.total;
  dg.difference_total = m.report.comparison.total;
  return true;
}

/// The failing elements all of one kind (ElementClasses) explain the whole dump: the row `name` named so.
inline bool explain_elements(M m, const char* name, std::vector<std::pair<std::string, double>> found,
                             std::vector<CheckDiagnosis::Difference> diff) {
  return name_confirmed(m, name, std::move(found), std::move(diff));
}

/// Elements were classified, and some fail.
inline bool elements_fail(M m) {
  return m.elements != nullptr && m.elements->failing != 0 && m.report.comparison.failing != 0;
}

/// A gradient no forward row explains, on some heads and not others (GradientParts).
inline bool some_heads_fail(M m) {
  const GradientParts* p = m.gradient;
  return p != nullptr && !p->failing.empty() && static_cast<long>(p->failing.size()) < p->groups;
}

/// A gradient no forward row explains, failing on every head; not 0, nor another head's by one offset.
inline bool every_head_fails_on_channels(M m) {
  const GradientParts* p = m.gradient;
  return p != nullptr && !p->failing.empty() && static_cast<long>(p->failing.size()) == p->groups && !p->zero_passes &&
         p->offset == 0 && p->channel >= 0;
}

// How the rows' variants are built (VariantRow::from_expectation, from_dump): the predicates first, then the builders.
using F = const VariantFacts&;

using Out = std::vector<Variant>&;

/// The ladder base^(−2i/r) of r/2 pairs.
inline Eigen::VectorXd ladder_theta(double base, int rotary_dim) {
  Eigen::VectorXd t(rotary_dim / 2);
  for (int i = 0; i < rotary_dim / 2; ++i) t[i] = std::pow(base, -2.0 * i / rotary_dim);
  return t;
}

/// A variant that computes `spec`, at the positions plus `offset`, its angles cast to `angles` (the row whose
/// builder adds it is its kind: table_variants sets it).
inline Variant& put(Out out, RopeExpectation spec, double offset = 0, std::optional<DType> angles = std::nullopt) {
  Variant x;
  x.spec = std::move(spec), x.position_offset = offset, x.angle_type = angles;
  out.push_back(std::move(x));
  return out.back();
}

/// The expectation with θ replaced (and the rotary dimension with it).
inline RopeExpectation with_theta(E e, Eigen::VectorXd theta) {
  RopeExpectation s = e;
  s.set_theta(std::move(theta));
  return s;
}

inline bool always(F) { return true; }

/// Not FoPE, whose own rows are the padding, the layout, the positions off by one and the rotation reversed.
inline bool not_fope(F f) { return !f.expected.fope; }

inline bool has_axes(F f) { return not_fope(f) && f.expected.rope.axes; }

/// M-RoPE's text axes (t, h, w[, e]), not a vision tower's (row, column).
inline bool mrope_axes(F f) {
  return has_axes(f) && !f.expected.rope.axes->vision() && f.expected.rope.axes->axes >= 3;
}

inline bool axes_order(F f, SectionOrder order) { return has_axes(f) && f.expected.rope.axes->source.order == order; }

/// The interleaved layout, whose pairs are written back in place (llama.cpp) or de-interleaved (HF's DeepSeek-V3).
inline bool deinterleaving(F f) {
  return not_fope(f) && f.expected.rope.layout == Layout::Interleaved && !f.expected.rope.axis_blocks;
}

/// The pairs (2i, 2i + 1) written back in place, or de-interleaved to (i, i + r/2): HF's DeepSeek-V3
/// (apply_rotary_pos_emb_interleave, transformers src/transformers/models/deepseek_v3/modeling_deepseek_v3.py at
/// 00b676f8f048: view(b, h, s, d/2, 2).transpose(4, 3).reshape, then rotate_half) de-interleaves its output;
/// llama.cpp's (src/models/deepseek2.cpp at 07bede6a8f32: q_pe = ggml_rope_ext(…, rope_type NORM, …)) keeps the
/// channels in their interleaved order. q·k is the same either way; the dumps differ.
inline RopeExpectation written_in_order(E e, bool deinterleaved) {
  RopeExpectation s = e;
  s.rope.deinterleaved_output = deinterleaved;
  return s;
}

/// One axis, the rotary part narrower than the head (partial rotary).
inline bool partial(F f) {
  return not_fope(f) && !f.expected.rope.axes && f.expected.rotary_dim() < f.expected.rope.head_dim;
}

/// A failing dump, not FoPE's (whose variants are its expectation's alone, at the positions as given).
inline bool dump_shown(F f) { return f.dump != nullptr && not_fope(f); }

/// The positions have several components (M-RoPE's, a tower's).
inline bool multi_positions(F f) { return !f.dump->positions.empty() && f.dump->positions.front().multi(); }

// ---------------------------------------------------------------------------------------------
// The diffusers mistakes of a latent grid (models/grid_rope.hpp), each against the port of its source
// (tests/reference/diffusers_rope.py).

inline bool grid_of(E e, const char* class_name) {
  return e.rope.model_type == class_name && e.rope.axes && e.rope.axes->grid() && !e.rope.axes->per_frequency;
}

/// A joint sequence's leading text tokens (every component equal) before an image token (components that differ):
/// how many; 0 without both.
inline long leading_text_rows(const std::vector<AxisPosition>& positions) {
  long n = 0;
  while (n < static_cast<long>(positions.size())) {
    const AxisPosition& p = positions[static_cast<std::size_t>(n)];
    if (!p.multi() || p.count < 3 || p[1] != p[0] || p[2] != p[0]) break;
    ++n;
  }
  return n < static_cast<long>(positions.size()) ? n : 0;
}

inline bool qwen_image_positions(F f) {
  return grid_of(f.expected, "QwenImageTransformer2DModel") && dump_shown(f) && multi_positions(f) &&
         f.dump->positions.front().count == 3;
}

/// inv_freq stored in a 16-bit type, the product m·θ in float32 (sglang-jax #1472: a bf16 inv_freq buffer); none where
/// the type holds θ exactly.
inline void inv_freq_rounded(F f, Out out, DType type) {
  Eigen::VectorXd rounded = f.expected.theta();
  for (Eigen::Index i = 0; i < rounded.size(); ++i) rounded[i] = round_to(type, rounded[i]);
  if (rounded != f.expected.theta()) put(out, with_theta(f.expected, rounded));
}

/// HF's other M-RoPE map of the same sections, (A2) against (A3), where they fit it.
inline void sections_other(F f, Out out, SectionOrder other) {
  try {
    RopeExpectation s = f.expected;
    s.rope.axes = make_axis_map({f.expected.rope.axes->source.sections, other}, f.expected.rotary_dim() / 2);
    put(out, s);
  } catch (const InvalidArgument&) {
    // the sections do not fit the other order: no such variant
  }
}

/// The other interleave or XD-RoPE map of the same sections (docs/multi-axis.md (A3), (A10), (A11)), found at the
/// first pair where the two part; none where they are one.
inline void order_other(F f, Out out, SectionOrder other) {
  try {
    RopeExpectation s = f.expected;
    s.rope.axes = make_axis_map({f.expected.rope.axes->source.sections, other}, f.expected.rotary_dim() / 2);
    const int pair = first_differing_pair(*s.rope.axes, *f.expected.rope.axes);
    if (pair >= 0) put(out, s).found = {{"pair", pair}};
  } catch (const InvalidArgument&) {
    // the sections do not fit the other order: no such variant
  }
}

inline bool interleave_applies(F f, SectionOrder order) {
  return axes_order(f, order) && f.expected.rope.axes->source.sections.size() == 3;
}

/// The rotated channels from channel 0 (the partial-rotary variants rotate from there).
inline RopeExpectation at_zero(E e, int rotary_dim) {
  RopeExpectation s = e;
  s.rope.rotary_offset = 0;
  s.set_theta(ladder_theta(e.base(), rotary_dim));
  return s;
}

/// Batch rows of equal length laid along the sequence axis, with M-RoPE's text axes.
inline bool mrope_rows(F f) {
  const long B = f.expected.batch_rows, S = f.expected.row_length;
  return dump_shown(f) && S > 0 && static_cast<long>(f.dump->positions.size()) == B * S && f.expected.rope.axes &&
         !f.expected.rope.axes->vision();
}

}  // namespace rope::variants
