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

using S = const VariantSaying&;
using E = const RopeExpectation&;

std::string base_of(E e) { return fmt::format("{:g}", e.base()); }
double found_value(S c, std::size_t k = 0) { return c.diagnosis.found.at(k).second; }
/// The groups (batch × heads) where the comparison with the expectation fails.
std::vector<long> failing_groups(S c) {
  std::vector<long> g;
  for (std::size_t i = 0; i < c.comparison.group_failing.size(); ++i) {
    if (c.comparison.group_failing[i] != 0) g.push_back(static_cast<long>(i));
  }
  return g;
}
/// The position just before the dump departs (CheckDiagnosis::correct_until).
std::string correct_until_text(S c) {
  return check_position_text(c.positions[static_cast<std::size_t>(*c.diagnosis.correct_until - 1)]);
}

Message angles_in(S c, const char* type) {
  if (c.diagnosis.correct_until) {
    return msg(
        "correct until position {0}, then drifts: angles computed in {1}? (the dump matches positions and frequencies "
        "cast to {2} before m·θ)",
        correct_until_text(c), type, type);
  }
  return msg("matches angles computed in {0}: positions and frequencies cast to {1} before m·θ", type, type);
}

/// The list the dump matches, the rule's length against L0 at the dump's largest position, and the engines whose rule
/// takes that list there (longrope_engine.hpp).
Message longrope_other_says(S c) {
  const RopeSpec& spec = c.expected.rope;
  double m = 0;
  for (const AxisPosition& p : c.positions) m = std::max(m, p.max_abs());
  const long n = spec.config.seq_len.value_or(0), l0 = spec.params.original_max_position;
  const bool is_short = c.expected.longrope_other && c.expected.longrope_other->is_short;
  const Message engines = longrope_engines_for(is_short, m, l0);
  return is_short ? msg("matches LongRoPE's short factors, not the long ones the rule checked takes (length {0} > L0 "
                        "{1}) at the dump's largest position {2}: {3}",
                        n, l0, fmt::format("{:g}", m), engines)
                  : msg("matches LongRoPE's long factors, not the short ones the rule checked takes (length {0} <= L0 "
                        "{1}) at the dump's largest position {2}: {3}",
                        n, l0, fmt::format("{:g}", m), engines);
}

Message sections_in(S c, bool chunked) {
  const std::string sections = fmt::format("{}", fmt::join(c.expected.rope.axes->source.sections, ", "));
  return chunked ? msg("matches mrope_section [{0}] in chunks, the model's code interleaves them: the axis map is "
                       "the other implementation's (docs/multi-axis.md (A2), (A3))",
                       sections)
                 : msg("matches mrope_section [{0}] interleaved, the model's code chunks them: the axis map is "
                       "the other implementation's (docs/multi-axis.md (A2), (A3))",
                       sections);
}

/// The two interleaved orders of one set of sections: the dump's (`pangu` true: openPangu-VL's (A10)) against the
/// model's, with the first pair where they part.
Message interleave_order_in(S c, bool pangu) {
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
Message xdrope_map_in(S c, bool hf) {
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

Message restart_says(S c) {
  std::string starts = "0";
  for (const long r : c.diagnosis.restarts) starts += "," + std::to_string(r);
  return msg(
      "the positions restart at index {0}: the dump matches positions that start again from {1} there "
      "(chunked prefill or packed sequences: give the dump's positions, or {2})",
      check_number_list(c.diagnosis.restarts), check_position_text(c.positions.front()),
      option_name("sequence_starts") + " " + starts);
}

Message e_slot_says(S c) {
  const std::vector<int> hf = llama_cpp_unrotated_pairs(c.expected);
  if (!hf.empty()) {
    return msg(
        "matches pairs {0} left unrotated: llama.cpp feeds them from its fourth position slot, 0 for a text token (p, "
        "p, p, 0), where this map turns them; check a llama.cpp dump with the model's GGUF file",
        check_number_list(std::vector<long>(hf.begin(), hf.end())));
  }
  const std::vector<int> pairs = ggml_fourth_slot_pairs(c.expected);
  return msg(
      "matches pairs {0} left unrotated: they read the fourth position slot, which the dump took as 0 (a text token's "
      "(p, p, p, 0)) where the positions given have a value there",
      check_number_list(std::vector<long>(pairs.begin(), pairs.end())));
}

Message cache_says(S c) {
  const auto L = static_cast<long>(found_value(c));
  const bool wraps = c.diagnosis.found.size() > 1 && found_value(c, 1) != 0;
  return wraps ? msg("matches a cos/sin cache of {0} positions read at p mod {1}: correct below position {2}, wrong "
                     "from it (the cache built for a shorter length and reused)",
                     L, L, L)
               : msg("matches a cos/sin cache of {0} positions clamped to its last row: correct below position {1}, "
                     "every later position turned as {2} (the cache built for a shorter length)",
                     L, L, L - 1);
}

Message overflow_says(S c) {
  const NonFiniteValues& n = c.comparison.after_non_finite;
  return msg(
      "the tensor after RoPE holds {0} from position {1} on (elements that are not finite numbers: {2}): angles "
      "computed in float16, whose largest number is 65504, overflow to inf there and cos, sin give NaN (compute the "
      "angles in float32)",
      check_value_text(n.value), check_position_text(c.positions[static_cast<std::size_t>(n.seq)]), n.count);
}

Message norm_says(S c) {
  const double bound = check_norm_bound(c.expected, c.dtype);
  return msg(
      "the output's norm is scaled by {0}: each rotated pair's norm is that many times a·‖x‖ (attention factor a {1}), "
      "where a rotation keeps it within {2} (an attention factor applied where none belongs, or a wrong one)",
      fmt::format("{:.6g}", found_value(c)), fmt::format("{:.6g}", c.expected.attention_factor()),
      fmt::format("{:.3g} %", 100 * bound));
}

Message offset_says(S c) {
  const int r = c.expected.rotary_dim(), off = static_cast<int>(found_value(c));
  return msg(
      "matches the {0} rotated channels at {1}–{2} (offset {3}) instead of {4}–{5}: the rotary part is taken from the "
      "wrong place in the head (DeepSeek's q = cat(q_nope, q_pe) rotates its last {0} channels, a partial rotary head "
      "its first {0})",
      r, off, off + r - 1, off, c.expected.rope.rotary_offset, c.expected.rope.rotary_offset + r - 1);
}

/// The value of the found parameter `key`, or nullopt.
std::optional<double> found_named(S c, const std::string& key) {
  for (const auto& [k, v] : c.diagnosis.found) {
    if (k == key) return v;
  }
  return std::nullopt;
}

/// --shift (H1): the keys turned by δ + extra where δ is given, in the shift's words (the mode takes no positions).
Message shift_off_says(S c, double extra) {
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

Message positions_offset_says(S c) {
  if (const std::optional<double> cp = found_named(c, "cp_size")) {
    const auto layout = static_cast<CpLayout>(static_cast<int>(*found_named(c, "layout")));
    if (found_named(c, "one_sequence")) {
      return msg(
          "matches context-parallel rank {0}'s positions with the packed batch cut as one sequence ({1}, cp size {2}), "
          "where the positions given restart at each sequence: the batch was split without its sequence starts "
          "(position_ids of the packed sequences ignored for this rank)",
          static_cast<long>(*found_named(c, "cp_rank")), std::string(to_string(layout)), static_cast<long>(*cp));
    }
    return msg(
        "matches context-parallel rank {0}'s positions ({1}, cp size {2}) where rank {3}'s are given: the dump "
        "holds another rank's slice of the sequence (give that rank's positions: rope positions {4})",
        static_cast<long>(*found_named(c, "cp_rank")), std::string(to_string(layout)), static_cast<long>(*cp),
        static_cast<long>(*found_named(c, "given_rank")),
        fmt::format("{} 0,{} {} {} {} {} {} {}", option_name("sequence_starts"),
                    static_cast<long>(*cp) * static_cast<long>(c.positions.size()), option_name("cp_size"),
                    static_cast<long>(*cp), option_name("cp_rank"), static_cast<long>(*found_named(c, "cp_rank")),
                    option_name("cp_layout"), to_string(layout)));
  }
  if (const std::optional<double> heads = found_named(c, "heads")) {  // some heads offset, each its own δ
    std::string shifts;
    const bool batch = found_named(c, "batch").has_value();
    for (int k = 0;; ++k) {
      const std::string n = k == 0 ? "" : "_" + std::to_string(k);
      const std::optional<double> off = found_named(c, "offset" + n), head = found_named(c, "head" + n);
      if (!off || !head) break;
      shifts += batch ? fmt::format("{}{}, {}: {:+}", k ? "; " : "", *found_named(c, "batch" + n), *head, *off)
                      : fmt::format("{}{}: {:+}", k ? ", " : "", *head, *off);
    }
    return batch ? msg("{0} of {1} heads fail, each matching its positions shifted by a constant (batch row, head: "
                       "shift) {2}, the other heads pass: those heads' positions are offset",
                       static_cast<long>(*heads), c.groups, shifts)
                 : msg("{0} of {1} heads fail, each matching its positions shifted by a constant (head: shift) {2}, "
                       "the other heads pass: those heads' positions are offset",
                       static_cast<long>(*heads), c.groups, shifts);
  }
  if (found_named(c, "from_1")) {
    std::string pieces;
    for (int k = 0;; ++k) {
      const std::string n = k == 0 ? "" : "_" + std::to_string(k);
      const std::optional<double> off = found_named(c, "offset" + n), from = found_named(c, "from" + n);
      if (!off || !from) break;
      pieces += fmt::format("{}{}: {:+}", k ? ", " : "", *from, *off);
    }
    return msg(
        "matches the positions shifted by a constant in pieces (from index: shift) {0}: the positions given are "
        "offset differently in each part (another context-parallel rank's chunks? packed sequences whose starts were "
        "left out?)",
        pieces);
  }
  const double delta = found_value(c), first = c.positions.front()[0];
  if (c.expected.mode == CheckMode::Shift) return shift_off_says(c, delta);  // --shift takes no positions
  return msg(
      "matches every position shifted by {0} (the first at {1} where the positions given start at {2}): the "
      "positions are missing or offset; give the dump's own ({3})",
      fmt::format("{:+}", delta), format_number(first + delta), format_number(first), option_name("positions"));
}

Message inv_freq_in(const char* type) {
  return msg(
      "matches inv_freq rounded to {0} with m·θ computed in float32: the frequencies are stored in {0} (a buffer of "
      "the model's dtype) before the product; keep inv_freq in float32",
      type);
}

// How the rows' variants are built (VariantRow::from_expectation, from_dump): the predicates first, then the builders.
using F = const VariantFacts&;
using Out = std::vector<Variant>&;

/// The ladder base^(−2i/r) of r/2 pairs.
Eigen::VectorXd ladder_theta(double base, int rotary_dim) {
  Eigen::VectorXd t(rotary_dim / 2);
  for (int i = 0; i < rotary_dim / 2; ++i) t[i] = std::pow(base, -2.0 * i / rotary_dim);
  return t;
}

/// The ladders of `e` at `base`: a diffusion transformer's latent grid (models/grid_rope.hpp (G2), one block per axis)
/// each axis its own ladder base^(−2i/d_a) over its d_a channels; otherwise ladder_theta.
Eigen::VectorXd model_ladder_theta(const RopeExpectation& e, double base) {
  const std::optional<AxisMap>& map = e.rope.axes;
  if (!map || !map->grid() || map->per_frequency) return ladder_theta(base, e.rotary_dim());
  Eigen::VectorXd t = Eigen::VectorXd::Zero(e.rotary_dim() / 2);
  Eigen::Index at = map->padding;
  for (const int n : map->source.sections) {
    for (int i = 0; i < n && at < t.size(); ++i) t[at++] = std::pow(base, -2.0 * i / (2.0 * n));
  }
  return t;
}

/// A variant of `kind` that computes `spec`, at the positions plus `offset`, its angles cast to `angles`.
Variant& put(Out out, VariantKind kind, RopeExpectation spec, double offset = 0,
             std::optional<DType> angles = std::nullopt) {
  Variant x;
  x.kind = kind, x.spec = std::move(spec), x.position_offset = offset, x.angle_type = angles;
  out.push_back(std::move(x));
  return out.back();
}

/// The expectation with θ replaced (and the rotary dimension with it).
RopeExpectation with_theta(E e, Eigen::VectorXd theta) {
  RopeExpectation s = e;
  s.set_theta(std::move(theta));
  return s;
}

bool always(F) { return true; }
/// Not FoPE, whose own rows are the padding, the layout, the positions off by one and the rotation reversed.
bool not_fope(F f) { return !f.expected.fope; }
bool has_axes(F f) { return not_fope(f) && f.expected.rope.axes; }
/// M-RoPE's text axes (t, h, w[, e]), not a vision tower's (row, column).
bool mrope_axes(F f) { return has_axes(f) && !f.expected.rope.axes->vision() && f.expected.rope.axes->axes >= 3; }
bool axes_order(F f, SectionOrder order) { return has_axes(f) && f.expected.rope.axes->source.order == order; }
/// The interleaved layout, whose pairs are written back in place (llama.cpp) or de-interleaved (HF's DeepSeek-V3).
bool deinterleaving(F f) {
  return not_fope(f) && f.expected.rope.layout == Layout::Interleaved && !f.expected.rope.axis_blocks;
}
/// The pairs (2i, 2i + 1) written back in place, or de-interleaved to (i, i + r/2): HF's DeepSeek-V3
/// (apply_rotary_pos_emb_interleave, transformers src/transformers/models/deepseek_v3/modeling_deepseek_v3.py at
/// 00b676f8f048: view(b, h, s, d/2, 2).transpose(4, 3).reshape, then rotate_half) de-interleaves its output;
/// llama.cpp's (src/models/deepseek2.cpp at 07bede6a8f32: q_pe = ggml_rope_ext(…, rope_type NORM, …)) keeps the
/// channels in their interleaved order. q·k is the same either way; the dumps differ.
RopeExpectation written_in_order(E e, bool deinterleaved) {
  RopeExpectation s = e;
  s.rope.deinterleaved_output = deinterleaved;
  return s;
}
/// One axis, the rotary part narrower than the head (partial rotary).
bool partial(F f) { return not_fope(f) && !f.expected.rope.axes && f.expected.rotary_dim() < f.expected.rope.head_dim; }
/// A failing dump, not FoPE's (whose variants are its expectation's alone, at the positions as given).
bool dump_shown(F f) { return f.dump != nullptr && not_fope(f); }
/// The positions have several components (M-RoPE's, a tower's).
bool multi_positions(F f) { return !f.dump->positions.empty() && f.dump->positions.front().multi(); }

// ---------------------------------------------------------------------------------------------
// Issue 79: the diffusers mistakes of a latent grid (models/grid_rope.hpp), each against the port of its source
// (tests/reference/diffusers_rope.py).

bool grid_of(E e, const char* class_name) {
  return e.rope.model_type == class_name && e.rope.axes && e.rope.axes->grid() && !e.rope.axes->per_frequency;
}

/// diffusers #12538 (transformer_wan.py before PR #12594, ff263947ad): WanRotaryPosEmbed.__init__ builds the tables
/// with the widths t = d − 2h, h = w = 2⌊d/6⌋ channels, its forward split them as d − 2⌊d/3⌋, ⌊d/3⌋, ⌊d/3⌋.
std::array<int, 3> wan_12538_widths(int d) { return {d - 2 * (d / 3), d / 3, d / 3}; }

/// The channels per axis the map was built with (each pair two channels).
std::array<int, 3> built_widths(const AxisMap& map) {
  return {2 * map.pairs_of(0), 2 * map.pairs_of(1), 2 * map.pairs_of(2)};
}

/// The axis map of tables whose columns are read with `widths`: pair j's cos from column 2j (the axis of its block
/// under `widths`), its sin from column 2j + 1 (apply_rotary_emb: cos[..., 0::2], sin[..., 1::2]).
AxisMap map_read_with(const AxisMap& built, const std::array<int, 3>& widths) {
  AxisMap m = built;
  const auto axis_of = [&](int c) { return c < widths[0] ? 0 : c < widths[0] + widths[1] ? 1 : 2; };
  m.second_axis.assign(m.pair_axis.size(), 0);
  for (std::size_t j = 0; j < m.pair_axis.size(); ++j) {
    m.pair_axis[j] = axis_of(static_cast<int>(2 * j));
    m.second_axis[j] = axis_of(static_cast<int>(2 * j + 1));
  }
  m.sin_from_second = m.second_axis != m.pair_axis;
  if (!m.sin_from_second) m.second_axis.clear();
  return m;
}

/// The pairs whose cos or sin reads another axis under `read` than under `built`.
std::vector<long> pairs_read_elsewhere(const AxisMap& built, const AxisMap& read) {
  std::vector<long> out;
  for (std::size_t j = 0; j < built.pair_axis.size(); ++j) {
    if (read.pair_axis[j] != built.pair_axis[j] || read.second_of(j) != built.pair_axis[j])
      out.push_back(static_cast<long>(j));
  }
  return out;
}

bool wan_split_applies(F f) {
  if (!grid_of(f.expected, "WanTransformer3DModel") || !not_fope(f)) return false;
  const std::array<int, 3> built = built_widths(*f.expected.rope.axes);
  return built[0] + built[1] + built[2] == f.expected.rotary_dim() &&
         built != wan_12538_widths(f.expected.rotary_dim());
}

void wan_split_build(F f, Out out) {
  const std::array<int, 3> widths = wan_12538_widths(f.expected.rotary_dim());
  RopeExpectation s = f.expected;
  s.rope.axes = map_read_with(*f.expected.rope.axes, widths);
  put(out, VariantKind::AxisWidthsOther, std::move(s)).found = {{"t", static_cast<double>(widths[0])},
                                                                {"h", static_cast<double>(widths[1])},
                                                                {"w", static_cast<double>(widths[2])}};
}

/// A joint sequence's leading text tokens (every component equal) before an image token (components that differ):
/// how many; 0 without both.
long leading_text_rows(const std::vector<AxisPosition>& positions) {
  long n = 0;
  while (n < static_cast<long>(positions.size())) {
    const AxisPosition& p = positions[static_cast<std::size_t>(n)];
    if (!p.multi() || p.count < 3 || p[1] != p[0] || p[2] != p[0]) break;
    ++n;
  }
  return n < static_cast<long>(positions.size()) ? n : 0;
}

bool qwen_image_positions(F f) {
  return grid_of(f.expected, "QwenImageTransformer2DModel") && dump_shown(f) && multi_positions(f) &&
         f.dump->positions.front().count == 3;
}

/// Qwen-Image without scale_rope (transformer_qwenimage.py QwenEmbedRope.forward, the port's centred=False): the rows
/// and columns from 0 instead of from −(H − H/2) and −(W − W/2), and the text from max(H, W) instead of
/// max(H/2, W/2).
void not_centred_build(F f, Out out) {
  const std::vector<AxisPosition>& p = f.dump->positions;
  const long text = leading_text_rows(p);
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (std::size_t s = static_cast<std::size_t>(text); s < p.size(); ++s) {
    for (int k = 1; k < 3; ++k) lo[k] = std::min(lo[k], p[s][k]), hi[k] = std::max(hi[k], p[s][k]);
  }
  if (!(lo[1] < 0 || lo[2] < 0)) return;  // nothing centred
  Variant& v = put(out, VariantKind::AxisNotCentred, f.expected);
  v.axis_offset = {0.0, -lo[1], -lo[2], 0.0};
  if (text > 0) {
    const double h = hi[1] - lo[1] + 1, w = hi[2] - lo[2] + 1;
    v.text_rows = text;
    v.text_offset = std::max(h, w) - std::max(std::floor(h / 2), std::floor(w / 2));
  }
  v.found = {{"h_start", lo[1]}, {"w_start", lo[2]}};
}

/// The text of a joint sequence from 0 on every axis instead of its place after the image (Qwen-Image: from
/// max(H/2, W/2)).
void text_from_zero_build(F f, Out out) {
  const std::vector<AxisPosition>& p = f.dump->positions;
  const long text = leading_text_rows(p);
  if (text == 0 || p.front()[0] == 0) return;
  Variant& v = put(out, VariantKind::TextPositionsOther, f.expected);
  v.text_rows = text;
  v.text_offset = -p.front()[0];
  v.found = {{"text_start", 0.0}, {"expected_start", p.front()[0]}};
}

/// The pairs of the e slot: llama.cpp's IMROPE pairs HF's map turns, else those of a GGUF's own map.
std::vector<int> e_slot_pairs(E e) {
  std::vector<int> unrotated = llama_cpp_unrotated_pairs(e);
  return unrotated.empty() ? ggml_fourth_slot_pairs(e) : unrotated;
}
/// llama.cpp's e slot: HF's interleaved map against llama.cpp's IMROPE; a GGUF's own map only where some position
/// fills the fourth slot (one number p is (p, p, p, 0) already, the variant the expectation).
bool e_slot_applies(F f) {
  const RopeExpectation& e = f.expected;
  if (!not_fope(f)) return false;
  if (!llama_cpp_unrotated_pairs(e).empty()) return true;
  if (ggml_fourth_slot_pairs(e).empty()) return false;
  const auto fourth = [&](const AxisPosition& p) { return axis_component(*e.rope.axes, p, 3) != 0; };
  return f.dump == nullptr || std::any_of(f.dump->positions.begin(), f.dump->positions.end(), fourth);
}
void e_slot_build(F f, Out out) {
  RopeExpectation s = f.expected;
  for (const int j : e_slot_pairs(f.expected)) s.rope.params.inv_freq[j] = 0;
  put(out, VariantKind::EslotUnrotated, s);
}

/// Height and width exchanged, where some position has h ≠ w (elsewhere the variant is the expectation).
bool axes_swapped_applies(F f) {
  if (!has_axes(f)) return false;
  const auto h_not_w = [](const AxisPosition& p) {
    return p.multi() && p.value[height_component(p)] != p.value[height_component(p) + 1];
  };
  return f.dump == nullptr || std::any_of(f.dump->positions.begin(), f.dump->positions.end(), h_not_w);
}

/// The model's scaling recomputed at base 10000 (models/scaling/scaling.hpp rope_parameters), where Base10000 drops the
/// scaling too.
bool scaled_base_applies(F f) {
  const RopeExpectation& e = f.expected;
  return not_fope(f) && e.scaled() && e.base() != kDefaultBase && e.rope.config.type != ScalingType::LongRope;
}
void scaled_base_build(F f, Out out) {
  RopeConfig c = f.expected.rope.config;
  c.base = kDefaultBase;
  try {
    const RopeParameters p = rope_parameters(c);
    if (p.inv_freq.size() == f.expected.theta().size()) {
      put(out, VariantKind::ScaledBase10000, with_theta(f.expected, p.inv_freq)).found = {{"base", kDefaultBase}};
    }
  } catch (const InvalidArgument&) {
    // the config's scaling does not compute at base 10000: no such variant
  }
}

/// inv_freq stored in a 16-bit type, the product m·θ in float32 (sglang-jax #1472: a bf16 inv_freq buffer); none where
/// the type holds θ exactly.
void inv_freq_rounded(F f, Out out, DType type, VariantKind kind) {
  Eigen::VectorXd rounded = f.expected.theta();
  for (Eigen::Index i = 0; i < rounded.size(); ++i) rounded[i] = round_to(type, rounded[i]);
  if (rounded != f.expected.theta()) put(out, kind, with_theta(f.expected, rounded));
}

/// The scaling's ratio applied twice (GGUF rope_freqs on top of rope_scaling): θ_i · (θ_i / θ0_i).
void scaling_twice_build(F f, Out out) {
  const RopeExpectation& e = f.expected;
  const Eigen::VectorXd plain = ladder_theta(e.base(), e.rotary_dim());
  const RopeExpectation s = with_theta(e, e.theta().cwiseProduct(e.theta()).cwiseQuotient(plain));
  const double factor = (plain.cwiseQuotient(e.theta())).maxCoeff();
  if (s.theta() != e.theta() && std::isfinite(factor)) {
    put(out, VariantKind::ScalingTwice, s).found = {{"factor", factor}};
  }
}

/// Partial rotary paired (i, i + d/2): rotate_half over the head where it belongs over the rotary part.
bool partial_pairing_applies(F f) {
  const RopeExpectation& e = f.expected;
  const int r = e.rotary_dim(), d = e.rope.head_dim;
  return not_fope(f) && !e.rope.axes && e.rope.layout == Layout::Half && r < d && e.rope.rotary_offset == 0 &&
         !e.rope.deinterleaved_output && !e.rope.axis_blocks && r / 2 + d / 2 <= d && r / 2 != d / 2;
}

/// HF's other M-RoPE map of the same sections, (A2) against (A3), where they fit it.
void sections_other(F f, Out out, SectionOrder other, VariantKind kind) {
  try {
    RopeExpectation s = f.expected;
    s.rope.axes = make_axis_map({f.expected.rope.axes->source.sections, other}, f.expected.rotary_dim() / 2);
    put(out, kind, s);
  } catch (const InvalidArgument&) {
    // the sections do not fit the other order: no such variant
  }
}
/// The other interleave or XD-RoPE map of the same sections (docs/multi-axis.md (A3), (A10), (A11)), found at the
/// first pair where the two part; none where they are one.
void order_other(F f, Out out, SectionOrder other, VariantKind kind) {
  try {
    RopeExpectation s = f.expected;
    s.rope.axes = make_axis_map({f.expected.rope.axes->source.sections, other}, f.expected.rotary_dim() / 2);
    const int pair = first_differing_pair(*s.rope.axes, *f.expected.rope.axes);
    if (pair >= 0) put(out, kind, s).found = {{"pair", pair}};
  } catch (const InvalidArgument&) {
    // the sections do not fit the other order: no such variant
  }
}
bool interleave_applies(F f, SectionOrder order) {
  return axes_order(f, order) && f.expected.rope.axes->source.sections.size() == 3;
}

/// The partial rotary factor applied twice: r·r/d rotated (even), where that is a smaller rotary dimension.
int twice_dim(E e) {
  return 2 * static_cast<int>(static_cast<double>(e.rotary_dim()) * e.rotary_dim() / e.rope.head_dim / 2.0);
}
/// The rotated channels from channel 0 (the partial-rotary variants rotate from there).
RopeExpectation at_zero(E e, int rotary_dim) {
  RopeExpectation s = e;
  s.rope.rotary_offset = 0;
  s.set_theta(ladder_theta(e.base(), rotary_dim));
  return s;
}

/// The largest power of two and multiple of 1024 in (low, high], and high itself: the lengths a cos/sin cache
/// built too short may have when the dump is right at `low` and wrong from `high` on.
std::vector<long> cache_lengths(double low, double high) {
  std::vector<long> out{static_cast<long>(high)};
  const auto keep = [&](long L) {
    if (L > low && L <= high && std::find(out.begin(), out.end(), L) == out.end()) out.push_back(L);
  };
  long pow2 = 1;
  while (pow2 * 2 <= high) pow2 *= 2;
  keep(pow2);
  keep(static_cast<long>(std::floor(high / 1024)) * 1024);
  return out;
}
/// A cos/sin cache too short: the dump right up to its first failing index, a whole position ≥ 2 there.
bool cache_applies(F f) {
  if (!dump_shown(f) || f.dump->first_failing <= 0 || multi_positions(f)) return false;
  const auto k = static_cast<std::size_t>(f.dump->first_failing);
  const double high = f.dump->positions[k][0], low = f.dump->positions[k - 1][0];
  return high > low && high >= 2 && high == std::floor(high);
}
void cache_build(F f, Out out) {
  const auto k = static_cast<std::size_t>(f.dump->first_failing);
  for (const long L : cache_lengths(f.dump->positions[k - 1][0], f.dump->positions[k][0])) {
    for (const bool wraps : {false, true}) {
      Variant& v = put(out, VariantKind::CacheShort, f.expected);
      v.cache_length = L, v.cache_wraps = wraps;
      v.found = {{"length", static_cast<double>(L)}, {"wraps", wraps ? 1.0 : 0.0}};
    }
  }
}

/// Packed sequences rotated at their index in the batch, where the positions given restart (the first restart).
void ids_ignored_build(F f, Out out) {
  const std::vector<AxisPosition>& p = f.dump->positions;
  long restart = -1;
  for (std::size_t s = 1; s < p.size() && restart < 0; ++s) {
    if (p[s][0] <= p[s - 1][0]) restart = static_cast<long>(s);
  }
  if (restart <= 0) return;
  Variant& v = put(out, VariantKind::PositionIdsIgnored, f.expected);
  v.sequence_index = true;
  v.found = {{"restart", static_cast<double>(restart)}};
}

/// Batch rows of equal length laid along the sequence axis, with M-RoPE's text axes.
bool mrope_rows(F f) {
  const long B = f.expected.batch_rows, S = f.expected.row_length;
  return dump_shown(f) && S > 0 && static_cast<long>(f.dump->positions.size()) == B * S && f.expected.rope.axes &&
         !f.expected.rope.axes->vision();
}

/// The rotated block where the dump has it, as identify finds it (the channels that change, identify.hpp step 1):
/// where the dump's changed channels begin, read from the channels outside the spec's block that the dump changed
/// (those the expectation copies and the dump does not): the first of them when they lie before the spec's block,
/// else the block of the rotary dimension that ends at the last of them (a block overlapping the spec's, channels
/// 8…23 for a spec of 0…15, changes 16…23 outside it), when it fits and the row's from_expectation does not try that
/// offset already (the head's end, or 0).
bool offset_shown_applies(F f) {
  const RopeExpectation& e = f.expected;
  return dump_shown(f) && !e.rope.axes && !e.rope.axis_blocks && e.rotary_dim() < f.dump->d &&
         f.dump->comparison.channel_ratio.size() == f.dump->d;
}
void offset_shown_build(F f, Out out) {
  const RopeExpectation& e = f.expected;
  const int r = e.rotary_dim(), off = e.rope.rotary_offset, d = f.dump->d;
  const Eigen::VectorXd& ratio = f.dump->comparison.channel_ratio;
  int lowest = -1, highest = -1;
  for (int ch = 0; ch < d; ++ch) {
    if ((ch >= off && ch < off + r) || ratio[ch] <= 1.0) continue;
    if (lowest < 0) lowest = ch;
    highest = ch;
  }
  if (lowest < 0) return;
  const int first = lowest < off ? lowest : highest + 1 - r;
  if (first < 0 || first == off || first + r > d || first == (off == 0 ? d - r : 0)) return;
  Variant& v = put(out, VariantKind::RotaryOffsetOther, e);
  v.spec.rope.rotary_offset = first;
  v.found = {{"offset", first}};
}

/// fope-kv-head-other: the other key-value heads tried (Intern-S1-Pro has 4; a variant each).
constexpr long kMaxFopeKvHeadsTried = 64;

constexpr VariantDetection kCompared = VariantDetection::Compared, kFromDump = VariantDetection::FromDump,
                           kScreened = VariantDetection::Screened, kInMode = VariantDetection::InMode,
                           kPaired = VariantDetection::Paired;

// One row per VariantKind, in the order check compares their variants (table_variants; where two pass the earlier is
// the match): the rows built from the expectation and from the dump, then those found by a screen before any variant,
// a search, a measurement where the dump departs, or a mode's own diagnosis. CheckTable's tests hold every row to
// its builder.
const std::vector<VariantRow> kVariantTable = {
    {VariantKind::Expected, "expected", kCompared, "", [](E) { return msg("RoPE as specified"); },
     [](S) { return Message{}; }},
    {VariantKind::FopeSinPaddedOne,
     "fope-sin-padded-one",
     kCompared,
     "padded",
     [](E) { return msg("FoPE's padded pairs with sin 1"); },
     [](S c) {
       return msg(
           "matches FoPE with its {0} padded pairs (pairs {1} … {2}) padded with sin 1 as well as cos 1, so that "
           "each is √2·R(π/4) (x_a − x_b, x_b + x_a) where vLLM's fope.py @ 151a2c744a pads sin with 0 and lets "
           "them pass through: vLLM @ c215d1e62d, SGLang's FourierRotaryEmbedding and the model's own "
           "modeling_interns1_pro.py pad sin with 1 (docs/multi-axis.md (F3))",
           static_cast<long>(found_value(c)), c.expected.rope.head_dim / 2 - static_cast<long>(found_value(c)),
           c.expected.rope.head_dim / 2 - 1);
     },
     {[](F f) {
        return f.expected.fope && f.expected.rotary_dim() / 2 - f.expected.fope->kept > 0 &&
               f.expected.fope_pad_sin != 1.0;
      },
      [](F f, Out out) {
        RopeExpectation one = f.expected;
        one.fope_pad_sin = 1.0;
        const long padded = f.expected.rotary_dim() / 2 - f.expected.fope->kept;
        put(out, VariantKind::FopeSinPaddedOne, one).found = {{"padded", static_cast<double>(padded)}};
      }}},
    {VariantKind::FopeKvHeadOther,
     "fope-kv-head-other",
     kCompared,
     "kv_head",
     [](E) { return msg("FoPE's other key-value heads"); },
     [](S c) {
       return msg(
           "matches key-value head {0}'s coefficients, not head {1}'s: the dump holds key-value head {0}'s "
           "heads ({2} {0})",
           static_cast<long>(found_value(c)), c.expected.fope_matrix, option_name("kv_head"));
     },
     // --kv-head H with a matrix per key-value head: each other head's (at most kMaxFopeKvHeadsTried of them)
     {[](F f) { return f.expected.fope && f.expected.fope_matrix >= 0 && f.expected.fope->heads > 1; },
      [](F f, Out out) {
        const long heads = std::min<long>(f.expected.fope->heads, kMaxFopeKvHeadsTried);
        for (long h = 0; h < heads; ++h) {
          if (h == f.expected.fope_matrix) continue;
          RopeExpectation other = f.expected;
          other.fope_matrix = h;
          put(out, VariantKind::FopeKvHeadOther, other).found = {{"kv_head", static_cast<double>(h)}};
        }
      }}},
    {VariantKind::LayoutSwapped,
     "layout-swapped",
     kCompared,
     "",
     [](E e) { return e.rope.layout == Layout::Half ? msg("the interleaved layout") : msg("the half layout"); },
     // The layouts by the glossary's names (po/glossary.md): one sentence per order, so that no layout is an English
     // word in a field of a Chinese sentence.
     [](S c) {
       return c.expected.rope.layout == Layout::Half ? msg("matches the interleaved layout; the spec implies half")
                                                     : msg("matches the half layout; the spec implies interleaved");
     },
     {always,
      [](F f, Out out) {
        RopeExpectation s = f.expected;
        s.rope.layout = f.expected.rope.layout == Layout::Half ? Layout::Interleaved : Layout::Half;
        if (!f.expected.fope) s.rope.deinterleaved_output = false;  // the other layout, read and written in place
        put(out, VariantKind::LayoutSwapped, s);
      }}},
    {VariantKind::OutputInterleaved,
     "output-interleaved",
     kCompared,
     "",
     [](E) { return msg("the output in the interleaved order, as llama.cpp writes it"); },
     [](S c) {
       return msg(
           "the output is interleaved, as llama.cpp computes it: pair i is written back at channels (2i, 2i + 1), "
           "where HF's DeepSeek-V3 (apply_rotary_pos_emb_interleave) de-interleaves it to (i, i + {0}); q·k is the "
           "same. Check a llama.cpp dump with the model's GGUF file ({1}), or add {2}",
           c.expected.rotary_dim() / 2, option_name("config") + " model.gguf", option_name("layout") + " interleaved");
     },
     {[](F f) { return deinterleaving(f) && f.expected.rope.deinterleaved_output; },
      [](F f, Out out) { put(out, VariantKind::OutputInterleaved, written_in_order(f.expected, false)); }},
     {},
     "interleaved-in-place"},
    {VariantKind::OutputDeinterleaved,
     "output-deinterleaved",
     kCompared,
     "",
     [](E) { return msg("the output de-interleaved, as HF's DeepSeek-V3 writes it"); },
     [](S c) {
       return msg(
           "the output is de-interleaved, as HF's DeepSeek-V3 computes it (apply_rotary_pos_emb_interleave): pair i, "
           "read at channels (2i, 2i + 1), is written at (i, i + {0}), where the spec (llama.cpp's order) writes it "
           "back in place; q·k is the same. Check an HF dump with the model's config.json or preset ({1}), "
           "without {2}",
           c.expected.rotary_dim() / 2, option_name("model"), option_name("layout"));
     },
     {[](F f) { return deinterleaving(f) && !f.expected.rope.deinterleaved_output; },
      [](F f, Out out) { put(out, VariantKind::OutputDeinterleaved, written_in_order(f.expected, true)); }},
     {},
     "de-interleaved"},
    {VariantKind::Base10000,
     "base-10000",
     kCompared,
     "",
     [](E) { return msg("base 10000"); },
     [](S c) { return msg("matches base 10000, not {0}: is rope_theta read?", base_of(c.expected)); },
     {[](F f) { return not_fope(f) && f.expected.base() != kDefaultBase; },
      [](F f, Out out) {
        put(out, VariantKind::Base10000, with_theta(f.expected, model_ladder_theta(f.expected, kDefaultBase)));
      }}},
    {VariantKind::AxisPositionsScaled,
     "axis-positions-scaled",
     kCompared,
     "scale",
     [](E) { return msg("the time positions × 24/16 (Cosmos's fps modulation)"); },
     [](S c) {
       return msg(
           "matches the time positions scaled by {0} (Cosmos's fps modulation, base_fps / fps = 24 / 16, "
           "diffusers #14768): does the pipeline pass fps to a checkpoint that disables the modulation?",
           fmt::format("{:g}", found_value(c)));
     },
     {[](F f) {
        // models/grid_rope.hpp: CosmosRotaryPosEmbed.forward, t / fps · base_fps (transformer_cosmos.py:512), with the
        // Video2World pipeline's fps 16 (pipeline_cosmos2_video2world.py:498)
        return f.expected.rope.model_type == "CosmosTransformer3DModel" && f.expected.rope.axes &&
               f.expected.rope.axes->grid();
      },
      [](F f, Out out) {
        RopeExpectation s = f.expected;
        s.rope.axes->scale[0] = 24.0 / 16.0;
        put(out, VariantKind::AxisPositionsScaled, std::move(s)).found = {{"scale", 24.0 / 16.0}};
      }}},
    {VariantKind::AxisWidthsOther,
     "axis-widths-other",
     kCompared,
     "t,h,w",
     [](E e) {
       const std::array<int, 3> w = wan_12538_widths(e.rotary_dim());
       return msg("the channels split among the axes as [{0}, {1}, {2}] (diffusers #12538)", w[0], w[1], w[2]);
     },
     [](S c) {
       const AxisMap& built = *c.expected.rope.axes;
       const std::array<int, 3> used{static_cast<int>(found_value(c, 0)), static_cast<int>(found_value(c, 1)),
                                     static_cast<int>(found_value(c, 2))};
       const std::array<int, 3> b = built_widths(built);
       std::vector<long> pairs = pairs_read_elsewhere(built, map_read_with(built, used));
       return msg(
           "matches the tables split among t, h and w as [{0}, {1}, {2}] channels where they were built with "
           "[{3}, {4}, {5}]: pairs {6} read another axis, or take their cos and their sin at two (diffusers #12538: "
           "Wan's forward split ⌊d/3⌋ per axis, its __init__ 2⌊d/6⌋; fixed by PR #12594)",
           used[0], used[1], used[2], b[0], b[1], b[2], check_number_list(pairs));
     },
     {wan_split_applies, wan_split_build}},
    {VariantKind::AxisNotCentred,
     "axis-not-centred",
     kFromDump,
     "h_start,w_start",
     [](E) { return msg("rows and columns from 0, not centred"); },
     [](S c) {
       return msg(
           "matches rows and columns counted from 0 where the model centres them, the rows from {0} and the columns "
           "from {1}, and its text after them: is scale_rope read? (Qwen-Image's QwenEmbedRope)",
           fmt::format("{:g}", found_value(c, 0)), fmt::format("{:g}", found_value(c, 1)));
     },
     {},
     {qwen_image_positions, not_centred_build}},
    {VariantKind::TextPositionsOther,
     "text-positions-other",
     kFromDump,
     "text_start,expected_start",
     [](E) { return msg("the text tokens from position 0"); },
     [](S c) {
       return msg(
           "matches the text tokens at positions from 0 on every axis, where the model places them from {0}, after "
           "the image's rows and columns (Qwen-Image's QwenEmbedRope: max(H/2, W/2) with scale_rope)",
           fmt::format("{:g}", found_value(c, 1)));
     },
     {},
     {qwen_image_positions, text_from_zero_build}},
    {VariantKind::ScaledBase10000,
     "scaled-base-10000",
     kCompared,
     "base",
     [](E e) { return msg("the {0} scaling at base 10000", std::string(to_string(e.rope.config.type))); },
     [](S c) {
       return msg("matches the {0} scaling at base 10000, not {1}: rope_theta is not read while the scaling is kept",
                  std::string(to_string(c.expected.rope.config.type)), base_of(c.expected));
     },
     {scaled_base_applies, scaled_base_build}},
    {VariantKind::InvFreqBf16,
     "inv-freq-bf16",
     kCompared,
     "",
     [](E) { return msg("inv_freq rounded to {0}, m·θ in float32", "bf16"); },
     [](S) { return inv_freq_in("bf16"); },
     {not_fope, [](F f, Out out) { inv_freq_rounded(f, out, DType::BF16, VariantKind::InvFreqBf16); }}},
    {VariantKind::InvFreqF16,
     "inv-freq-f16",
     kCompared,
     "",
     [](E) { return msg("inv_freq rounded to {0}, m·θ in float32", "f16"); },
     [](S) { return inv_freq_in("f16"); },
     {not_fope, [](F f, Out out) { inv_freq_rounded(f, out, DType::F16, VariantKind::InvFreqF16); }}},
    {VariantKind::ScalingIgnored,
     "scaling-ignored",
     kCompared,
     "",
     [](E) { return msg("plain RoPE without the scaling and its attention factor"); },
     [](S c) {
       return msg("matches plain RoPE with base {0} and no attention factor: the scaling is not applied",
                  base_of(c.expected));
     },
     {[](F f) { return not_fope(f) && (f.expected.scaled() || f.expected.attention_factor() != 1.0); },
      [](F f, Out out) {
        RopeExpectation s = with_theta(f.expected, ladder_theta(f.expected.base(), f.expected.rotary_dim()));
        s.rope.params.attention_factor = 1.0;
        put(out, VariantKind::ScalingIgnored, s);
      }}},
    {VariantKind::FactorMissing,
     "attention-factor-missing",
     kCompared,
     "",
     [](E) { return msg("no attention factor"); },
     [](S c) {
       return msg("the attention factor {0} is missing (the dump matches a factor of 1)",
                  fmt::format("{:.6g}", c.expected.attention_factor()));
     },
     {[](F f) { return not_fope(f) && f.expected.attention_factor() != 1.0; },
      [](F f, Out out) {
        RopeExpectation s = f.expected;
        s.rope.params.attention_factor = 1.0;
        put(out, VariantKind::FactorMissing, s);
      }}},
    {VariantKind::PositionsPlusOne,
     "positions-plus-one",
     kCompared,
     "",
     [](E) { return msg("positions shifted by {0}", "+1"); },
     [](S c) {
       return c.expected.mode == CheckMode::Shift ? shift_off_says(c, 1.0)
                                                  : msg("matches positions shifted by {0}: positions off by one", "+1");
     },
     {always, [](F f, Out out) { put(out, VariantKind::PositionsPlusOne, f.expected, 1.0); }}},
    {VariantKind::PositionsMinusOne,
     "positions-minus-one",
     kCompared,
     "",
     [](E) { return msg("positions shifted by {0}", "-1"); },
     [](S c) {
       return c.expected.mode == CheckMode::Shift ? shift_off_says(c, -1.0)
                                                  : msg("matches positions shifted by {0}: positions off by one", "-1");
     },
     {always, [](F f, Out out) { put(out, VariantKind::PositionsMinusOne, f.expected, -1.0); }}},
    {VariantKind::YarnWithoutExtFactor,
     "yarn-without-ext-factor",
     kCompared,
     "",
     [](E) { return msg("YaRN without ext_factor (linear interpolation, no ramp, no magnitude)"); },
     [](S c) {
       return msg(
           "matches linear interpolation by {0} at every pair, without YaRN's ramp and magnitude: YaRN run without "
           "ext_factor (llama.cpp: yarn_ext_factor 0)",
           fmt::format("{:g}", c.expected.yarn_factor));
     },
     {[](F f) { return not_fope(f) && f.expected.yarn_factor > 1; },
      // ggml's rope_yarn with ext_factor 0 interpolates every pair linearly, θ_i/f, and leaves out its magnitude
      // 1 + 0.1·ln f (ggml/src/ggml-cpu/ops.cpp rope_yarn).
      [](F f, Out out) {
        const RopeExpectation& e = f.expected;
        RopeExpectation s = with_theta(e, ladder_theta(e.base(), e.rotary_dim()) / e.yarn_factor);
        s.rope.params.attention_factor = 1.0;
        put(out, VariantKind::YarnWithoutExtFactor, s);
      }}},
    {VariantKind::LongRopeOtherList,
     "longrope-other-list",
     kCompared,
     "",
     [](E) { return msg("LongRoPE's other factor list"); },
     longrope_other_says,
     {[](F f) { return not_fope(f) && f.expected.longrope_other.has_value(); },
      // sglang python/sglang/srt/layers/rotary_embedding/rope_variant.py @ 6170d97567,
      // Phi3LongRoPEScaledRotaryEmbedding.forward: idx = positions + L0·any(positions > L0) into [short | long].
      [](F f, Out out) {
        const RopeExpectation& e = f.expected;
        RopeExpectation other = with_theta(e, e.longrope_other->theta);
        // The long list as SGLang's long path reads it: every token at its position + L0, the one at L0 included.
        other.longrope_l0_unturned = 0;
        put(out, VariantKind::LongRopeOtherList, other);
        // The short list as SGLang's short path reads it: the token at L0 from row L0, the long list's position 0.
        if (e.longrope_other->is_short && e.rope.params.original_max_position > 0) {
          other.longrope_l0_unturned = static_cast<double>(e.rope.params.original_max_position);
          put(out, VariantKind::LongRopeOtherList, other);
        }
      }}},
    {VariantKind::EslotUnrotated,
     "e-slot-unrotated",
     kCompared,
     "",
     [](E) { return msg("llama.cpp's unrotated fourth-slot pairs"); },
     e_slot_says,
     {e_slot_applies, e_slot_build}},
    {VariantKind::BeforeEqualsAfter,
     "before-equals-after",
     kCompared,
     "",
     [](E) { return msg("no rotation at all"); },
     [](S) {
       return msg(
           "the dump after RoPE equals the dump before it: nothing turned. The \"before\" tensor was read after an "
           "in-place RoPE had rotated it (llama.cpp after a q-norm: copy src[0] when the eval callback asks about the "
           "RoPE node, docs/check.md), or RoPE was never applied");
     },
     {not_fope,
      [](F f, Out out) {
        RopeExpectation s = with_theta(f.expected, Eigen::VectorXd::Zero(f.expected.theta().size()));
        s.rope.params.attention_factor = 1.0;
        put(out, VariantKind::BeforeEqualsAfter, s);
      }}},
    {VariantKind::RotationReversed,
     "rotation-reversed",
     kCompared,
     "",
     [](E) { return msg("the rotation reversed"); },
     [](S) {
       return msg(
           "matches the rotation reversed, every pair turned by −m·θ: sin's sign is flipped, or the transpose R(m)ᵀ "
           "is applied (rotate_half's sign, or m − n written as n − m)");
     },
     {always, [](F f, Out out) { put(out, VariantKind::RotationReversed, f.expected).reversed = true; }}},
    {VariantKind::OutputZero,
     "output-zero",
     kCompared,
     "",
     [](E) { return msg("every element 0"); },
     [](S) {
       return msg(
           "every element of the gradient is 0: the backward never wrote it (a fused RoPE without a backward, or "
           "its result dropped)");
     },
     {[](F f) { return not_fope(f) && f.expected.mode == CheckMode::Grad; },
      [](F f, Out out) { put(out, VariantKind::OutputZero, f.expected).zero = true; }}},
    {VariantKind::MagnitudeReapplied,
     "magnitude-reapplied",
     kCompared,
     "factor",
     [](E) { return msg("the magnitude applied again at the shift"); },
     [](S c) {
       const std::string m = fmt::format("{:.6g}", c.expected.shift_magnitude);
       return msg(
           "the magnitude applied again at the shift: every key turned by δ = {0} and scaled by {1} (the "
           "model's attention factor {2}), which the cached keys already carry from their forward pass: "
           "after n shifts a key is {2}^n too long",
           fmt::format("{:g}", c.expected.shift), fmt::format("{:.6g}", found_value(c, 0)), m);
     },
     {[](F f) {
        const CheckMode m = f.expected.mode;
        return not_fope(f) && (m == CheckMode::Shift || m == CheckMode::ShiftMap) && f.expected.shift_magnitude != 1.0;
      },
      [](F f, Out out) {
        RopeExpectation s = f.expected;
        s.rope.params.attention_factor = f.expected.shift_magnitude;
        put(out, VariantKind::MagnitudeReapplied, s).found = {{"factor", f.expected.shift_magnitude}};
      }}},
    {VariantKind::InvFreqIntegerDivision,
     "inv-freq-integer-division",
     kCompared,
     "",
     [](E) { return msg("θ = 1 for every pair"); },
     [](S) {
       return msg(
           "matches θ = 1 for every pair: inv_freq computed with integer division (arange(0, d, 2) // d is 0, base^0 "
           "= 1); divide in floating point");
     },
     {not_fope,
      [](F f, Out out) {
        put(out, VariantKind::InvFreqIntegerDivision,
            with_theta(f.expected, Eigen::VectorXd::Ones(f.expected.theta().size())));
      }}},
    {VariantKind::ScalingTwice,
     "scaling-applied-twice",
     kCompared,
     "factor",
     [](E) { return msg("the scaling applied twice"); },
     [](S c) {
       return msg(
           "matches the scaling applied twice: frequencies divided by up to {0} where the scaling divides by {1} "
           "(GGUF rope_freqs applied on top of the scaling?)",
           fmt::format("{:.6g}", found_value(c) * found_value(c)), fmt::format("{:.6g}", found_value(c)));
     },
     {[](F f) { return not_fope(f) && f.expected.scaled() && f.expected.base() > 0; }, scaling_twice_build}},
    {VariantKind::RopeAppliedTwice,
     "rope-applied-twice",
     kCompared,
     "",
     [](E) { return msg("RoPE applied twice"); },
     [](S c) {
       const double a = c.expected.attention_factor();
       return msg(
           "matches RoPE applied twice: every pair turned by 2·m·θ_i and scaled by a² = {0} (the magnitude {1} applied "
           "twice), the rotation of a fused path and the model's own both applied",
           fmt::format("{:.6g}", a * a), fmt::format("{:.6g}", a));
     },
     // The forward pass's (a shift applied twice is the shift's own sentence: positions-offset in the shift's words),
     // with a magnitude: a² tells it from a dump turned at positions 2m, which a = 1 cannot (that one keeps the
     // departure's sentence, "turns by 2 rad where RoPE turns 1").
     {[](F f) { return not_fope(f) && f.expected.mode == CheckMode::Forward && f.expected.attention_factor() != 1.0; },
      [](F f, Out out) {
        RopeExpectation twice = with_theta(f.expected, 2.0 * f.expected.theta());
        twice.rope.params.attention_factor = f.expected.attention_factor() * f.expected.attention_factor();
        put(out, VariantKind::RopeAppliedTwice, std::move(twice));
      }}},
    {VariantKind::YarnTruncated,
     "yarn-truncated",
     kCompared,
     "",
     [](E) { return msg("YaRN's correction range truncated"); },
     [](S) {
       return msg(
           "matches YaRN's correction range rounded to whole pairs: the config says truncate: false, the code "
           "truncates anyway");
     },
     {[](F f) { return not_fope(f) && f.expected.yarn_truncated_theta.size() == f.expected.theta().size(); },
      [](F f, Out out) {
        put(out, VariantKind::YarnTruncated, with_theta(f.expected, f.expected.yarn_truncated_theta));
      }}},
    {VariantKind::MropeDeltaMissing,
     "mrope-delta-missing",
     kCompared,
     "delta",
     [](E) { return msg("decode tokens without rope_deltas"); },
     [](S c) {
       return msg(
           "matches the decode tokens at their sequence index, without rope_deltas {0}: the kernel drops the M-RoPE "
           "delta (positions index instead of index + rope_deltas)",
           fmt::format("{:g}", c.expected.rope_delta));
     },
     {[](F f) { return not_fope(f) && f.expected.rope_delta != 0; },
      [](F f, Out out) {
        const double delta = f.expected.rope_delta;
        put(out, VariantKind::MropeDeltaMissing, f.expected, -delta).found = {{"delta", delta}};
      }}},
    {VariantKind::MropeTForAll,
     "mrope-t-for-all",
     kCompared,
     "",
     [](E) { return msg("the t position on every axis"); },
     [](S) { return msg("matches the t position on every axis: the M-RoPE kernel reads the t row for h and w too"); },
     {mrope_axes, [](F f, Out out) { put(out, VariantKind::MropeTForAll, f.expected).t_for_all = true; }}},
    {VariantKind::MropeAxesShifted,
     "mrope-axes-shifted",
     kCompared,
     "shift",
     [](E) { return msg("the axis slots shifted"); },
     [](S c) {
       return found_value(c) == 1 ? msg("matches the axis slots shifted by one, (h, w, t) read for (t, h, w): the "
                                        "positions' rows and the sections are out of step")
                                  : msg("matches the axis slots shifted by two, (w, t, h) read for (t, h, w): the "
                                        "positions' rows and the sections are out of step");
     },
     {mrope_axes,
      [](F f, Out out) {
        for (const int k : {1, 2}) {  // (t, h, w) read as (h, w, t) or (w, t, h) (vLLM PR #40680)
          Variant& x = put(out, VariantKind::MropeAxesShifted, f.expected);
          x.axis_shift = k;
          x.found = {{"shift", k}};
        }
      }}},
    {VariantKind::PartialPairing,
     "partial-rotary-pairing",
     kCompared,
     "partner",
     [](E) { return msg("the partial rotary part paired across the head"); },
     [](S c) {
       const int r = c.expected.rotary_dim(), d = c.expected.rope.head_dim;
       return msg(
           "matches pair i rotated with channel i + {0} instead of i + {1}: the partial rotary part is paired across "
           "the whole head (rotate_half over d = {2}, not over the rotary dimension {3})",
           d / 2, r / 2, d, r);
     },
     {partial_pairing_applies,
      [](F f, Out out) {
        Variant& x = put(out, VariantKind::PartialPairing, f.expected);
        x.partner = f.expected.rope.head_dim / 2;
        x.found = {{"partner", f.expected.rope.head_dim / 2}};
      }}},
    {VariantKind::AxesSwapped,
     "axes-swapped",
     kCompared,
     "",
     [](E) { return msg("height and width exchanged"); },
     [](S c) {
       return c.expected.rope.axes && c.expected.rope.axes->vision()
                  ? msg("matches each patch turned by (column, row) instead of (row, column): the tower's height and "
                        "width indices are exchanged")
                  : msg("matches the positions with h and w exchanged, (t, w, h) for (t, h, w): the height and width "
                        "indices are swapped");
     },
     {axes_swapped_applies, [](F f, Out out) { put(out, VariantKind::AxesSwapped, f.expected).swap_hw = true; }}},
    {VariantKind::SectionsChunked,
     "mrope-chunked",
     kCompared,
     "",
     [](E) { return msg("mrope_section in chunks"); },
     [](S c) { return sections_in(c, true); },
     {[](F f) { return axes_order(f, SectionOrder::Interleaved); },
      [](F f, Out out) { sections_other(f, out, SectionOrder::Chunked, VariantKind::SectionsChunked); }}},
    {VariantKind::SectionsInterleaved,
     "mrope-interleaved",
     kCompared,
     "",
     [](E) { return msg("mrope_section interleaved"); },
     [](S c) { return sections_in(c, false); },
     {[](F f) { return axes_order(f, SectionOrder::Chunked); },
      [](F f, Out out) { sections_other(f, out, SectionOrder::Interleaved, VariantKind::SectionsInterleaved); }}},
    {VariantKind::SectionsPangu,
     "mrope-openpangu-order",
     kCompared,
     "pair",
     [](E) { return msg("mrope_section in openPangu-VL's greedy order"); },
     [](S c) { return interleave_order_in(c, true); },
     {[](F f) { return interleave_applies(f, SectionOrder::Interleaved); },
      [](F f, Out out) { order_other(f, out, SectionOrder::PanguGreedy, VariantKind::SectionsPangu); }}},
    {VariantKind::SectionsQwen3,
     "mrope-qwen3-order",
     kCompared,
     "pair",
     [](E) { return msg("mrope_section in Qwen3-VL's interleaved order"); },
     [](S c) { return interleave_order_in(c, false); },
     {[](F f) { return interleave_applies(f, SectionOrder::PanguGreedy); },
      [](F f, Out out) { order_other(f, out, SectionOrder::Interleaved, VariantKind::SectionsQwen3); }}},
    {VariantKind::XdropeHfMap,
     "xdrope-hf-map",
     kCompared,
     "pair",
     [](E) { return msg("xdrope_section in HF's XD-RoPE map"); },
     [](S c) { return xdrope_map_in(c, true); },
     {[](F f) { return has_axes(f) && f.expected.rope.axes->xdrope() && !axes_order(f, SectionOrder::XdropeHf); },
      [](F f, Out out) { order_other(f, out, SectionOrder::XdropeHf, VariantKind::XdropeHfMap); }}},
    {VariantKind::XdropeTencentMap,
     "xdrope-tencent-map",
     kCompared,
     "pair",
     [](E) { return msg("xdrope_section in Tencent's XD-RoPE map"); },
     [](S c) { return xdrope_map_in(c, false); },
     {[](F f) { return has_axes(f) && f.expected.rope.axes->xdrope() && axes_order(f, SectionOrder::XdropeHf); },
      [](F f, Out out) { order_other(f, out, SectionOrder::XdropeTencent, VariantKind::XdropeTencentMap); }}},
    {VariantKind::MropeIgnored,
     "mrope-ignored",
     kCompared,
     "",
     [](E) { return msg("plain RoPE at each token's index in the sequence"); },
     [](S) {
       return msg(
           "matches plain RoPE at each token's index in the sequence: the M-RoPE branch is never reached (1-D "
           "positions; a config whose rope_type is default beside mrope_section?)");
     },
     {[](F f) { return has_axes(f) && !f.expected.rope.axes->vision(); },
      [](F f, Out out) {
        RopeExpectation s = f.expected;
        s.rope.axes.reset();
        put(out, VariantKind::MropeIgnored, s).sequence_index = true;
      }}},
    {VariantKind::RotaryDimHalved,
     "rotary-dim-halved",
     kCompared,
     "",
     [](E) { return msg("the rotary dimension halved"); },
     [](S c) {
       const int r = c.expected.rotary_dim();
       return msg(
           "matches a rotary dimension of {0} instead of {1}: the model rotates the whole head, the code rotated "
           "half of it (n_dims = d/2)",
           r / 2, r);
     },
     {[](F f) {
        const RopeExpectation& e = f.expected;
        const int r = e.rotary_dim();
        return not_fope(f) && !e.rope.axes && r == e.rope.head_dim && r % 4 == 0 && e.rope.rotary_offset == 0;
      },
      [](F f, Out out) {
        const RopeExpectation& e = f.expected;
        put(out, VariantKind::RotaryDimHalved, with_theta(e, ladder_theta(e.base(), e.rotary_dim() / 2)));
      }}},
    {VariantKind::CacheShort,
     "cos-sin-cache-short",
     kFromDump,
     "length,wraps",
     [](E) { return msg("a cos/sin cache built too short"); },
     cache_says,
     {},
     {cache_applies, cache_build}},
    {VariantKind::PositionIdsIgnored,
     "position-ids-ignored",
     kFromDump,
     "restart",
     [](E) { return msg("positions counted across the packed sequences"); },
     [](S c) {
       return msg(
           "matches positions counted across the packed sequences (from {0}, one per index), without their restart "
           "at index {1}: position_ids are ignored (the kernel numbers the tokens by their index in the batch)",
           check_position_text(c.positions.front()), static_cast<long>(found_value(c)));
     },
     {},
     {[](F f) { return dump_shown(f) && !multi_positions(f) && f.dump->positions.size() > 1; }, ids_ignored_build}},
    {VariantKind::MropeBatchRows,
     "mrope-batch-rows",
     kFromDump,
     "batch",
     [](E) { return msg("batch rows read as t, h, w"); },
     [](S c) {
       return msg(
           "matches position_ids [3, batch, seq] read as [batch, 3, seq]: each batch row takes its t, h and w from "
           "the flat rows 3b, 3b + 1, 3b + 2 of the {0} rows' positions (the batch and axis dimensions swapped)",
           c.expected.batch_rows);
     },
     {},
     {[](F f) {
        return mrope_rows(f) && multi_positions(f) && f.dump->positions.front().count >= 3 && f.expected.batch_rows > 1;
      },
      [](F f, Out out) {
        Variant& v = put(out, VariantKind::MropeBatchRows, f.expected);
        v.batch_axes = true;
        v.found = {{"batch", static_cast<double>(f.expected.batch_rows)}};
      }}},
    {VariantKind::MropeTextRowsAsAxes,
     "mrope-text-rows-as-axes",
     kFromDump,
     "batch",
     [](E) { return msg("text positions' batch rows read as t, h, w"); },
     [](S c) {
       return msg(
           "matches text position_ids [batch, seq] read as M-RoPE's [3, seq]: every one of the {0} batch rows is "
           "turned at the t, h and w of rows 0, 1 and 2 of the positions (HF expands text positions to [3, batch, "
           "seq] before the M-RoPE code indexes them)",
           c.expected.batch_rows);
     },
     {},
     {[](F f) { return mrope_rows(f) && !multi_positions(f) && f.expected.batch_rows >= 3; },
      [](F f, Out out) {
        Variant& v = put(out, VariantKind::MropeTextRowsAsAxes, f.expected);
        v.text_rows_as_axes = true;
        v.found = {{"batch", static_cast<double>(f.expected.batch_rows)}};
      }}},
    {VariantKind::HeadsSeqMixed,
     "heads-seq-mixed",
     kFromDump,
     "groups",
     [](E) { return msg("heads and sequence mixed by a reshape"); },
     [](S c) {
       return msg(
           "matches each vector turned at the position of index (s·{0} + h) mod {1}: heads and sequence mixed by a "
           "reshape (view) where a transpose belongs",
           c.groups, c.positions.size());
     },
     {},
     {[](F f) { return dump_shown(f) && f.dump->groups > 1 && f.dump->positions.size() > 1; },
      [](F f, Out out) {
        Variant& v = put(out, VariantKind::HeadsSeqMixed, f.expected);
        v.heads_mixed = true;
        v.found = {{"groups", static_cast<double>(f.dump->groups)}};
      }}},
    {VariantKind::RotaryOffsetOther,
     "rotary-offset-other",
     kCompared,
     "offset",
     [](E) { return msg("the rotated channels at another offset"); },
     offset_says,
     {[](F f) { return partial(f) && !f.expected.rope.axis_blocks; },
      // At its end where the spec has it first (DeepSeek's q = cat(q_nope, q_pe) rotates the last r channels), or
      // first where the spec has it at an offset.
      [](F f, Out out) {
        RopeExpectation s = f.expected;
        s.rope.rotary_offset =
            f.expected.rope.rotary_offset == 0 ? f.expected.rope.head_dim - f.expected.rotary_dim() : 0;
        put(out, VariantKind::RotaryOffsetOther, s).found = {{"offset", s.rope.rotary_offset}};
      }},
     {offset_shown_applies, offset_shown_build}},
    {VariantKind::PartialWholeHead,
     "partial-rotary-whole-head",
     kCompared,
     "",
     [](E) { return msg("RoPE over the whole head"); },
     [](S c) {
       return msg("matches RoPE over the whole head (d = {0}): the partial rotary dimension {1} is ignored",
                  c.expected.rope.head_dim, c.expected.rotary_dim());
     },
     {partial,
      [](F f, Out out) { put(out, VariantKind::PartialWholeHead, at_zero(f.expected, f.expected.rope.head_dim)); }}},
    {VariantKind::PartialTwice,
     "partial-rotary-twice",
     kCompared,
     "",
     [](E) { return msg("the partial rotary factor applied twice"); },
     [](S c) {
       const int r = c.expected.rotary_dim();
       return msg("matches a rotary dimension of {0} instead of {1}: the partial rotary factor is applied twice",
                  2 * static_cast<int>(static_cast<double>(r) * r / c.expected.rope.head_dim / 2.0), r);
     },
     {[](F f) { return partial(f) && twice_dim(f.expected) >= 2 && twice_dim(f.expected) < f.expected.rotary_dim(); },
      [](F f, Out out) { put(out, VariantKind::PartialTwice, at_zero(f.expected, twice_dim(f.expected))); }}},
    {VariantKind::AnglesBf16,
     "angles-bf16",
     kCompared,
     "",
     [](E) { return msg("angles computed in {0}", "bf16"); },
     [](S c) { return angles_in(c, "bf16"); },
     {not_fope,
      [](F f, Out out) {
        Variant& v = put(out, VariantKind::AnglesBf16, f.expected, 0.0, DType::BF16);
        // LTX-Video's chain (transformer_ltx.py:217-233): m = (g·s·p/b)·2 − 1, five roundings, and ω = base^lin·π/2,
        // three, each within ε/2 of its value; m's are relative to |2g| ≤ |m| + 1. Eight half-units, 4ε·(|m| + 1)·θ.
        if (f.expected.rope.axes && f.expected.rope.axes->grid() && f.expected.rope.axes->per_frequency)
          v.angle_chain_units = 4;
      }}},
    {VariantKind::AnglesF16,
     "angles-f16",
     kCompared,
     "",
     [](E) { return msg("angles computed in {0}", "f16"); },
     [](S c) { return angles_in(c, "f16"); },
     {not_fope, [](F f, Out out) { put(out, VariantKind::AnglesF16, f.expected, 0.0, DType::F16); }}},
    {VariantKind::CosSinTableBf16,
     "cos-sin-table-bf16",
     kCompared,
     "",
     [](E) { return msg("a cos/sin table rounded to {0}", "bf16"); },
     [](S) {
       return msg(
           "matches a cos/sin table rounded to {0} after float32 angles: cos and sin are cast to the model's dtype "
           "before they multiply (keep the table in float32)",
           "bf16");
     },
     {not_fope,
      [](F f, Out out) {
        put(out, VariantKind::CosSinTableBf16, f.expected, 0.0, DType::F32).table_type = DType::BF16;
      }}},
    {VariantKind::NormScaled,
     "norm-scaled",
     kScreened,
     "factor",
     [](E) { return msg("the output's norm scaled"); },
     norm_says,
     {},
     {[](F f) { return dump_shown(f) && f.dump->norm_scale.has_value(); },
      [](F f, Out out) {
        Variant& v = put(out, VariantKind::NormScaled, f.expected);
        v.spec.rope.params.attention_factor = f.expected.attention_factor() * *f.dump->norm_scale;
        v.found = {{"factor", *f.dump->norm_scale}};
      }}},
    {VariantKind::AnglesF16Overflow, "angles-f16-overflow", kScreened, "position",
     [](E) { return msg("angles in float16 overflowing"); }, overflow_says},
    {VariantKind::Bf16AsFloat32, "bf16-as-float32", kScreened, "", [](E) { return msg("bf16's tolerance"); },
     [](S) {
       return msg(
           "looks like bf16 saved as float32: add {0} (every value has 16 zero low bits, and under bf16's tolerance "
           "the dump passes)",
           option_name("dtype") + " bf16");
     }},
    {VariantKind::PassThroughChanged, "pass-through-changed", kScreened, "channel,channels",
     [](E) { return msg("pass-through channels changed"); },
     [](S c) {
       return msg(
           "the rotated channels match, but pass-through channels changed ({0}, the first: channel {1}), which RoPE "
           "leaves as they are: the kernel writes beyond the rotary dimension {2} (a fused kernel that ignores "
           "rotary_dim)",
           static_cast<int>(found_value(c, 1)), static_cast<int>(found_value(c)), c.expected.rotary_dim());
     }},
    {VariantKind::PositionsRestart, "positions-restart", VariantDetection::Searched, "",
     [](E) { return msg("positions that start again"); }, restart_says},
    {VariantKind::PositionsOffset, "positions-offset", VariantDetection::Measured, "offset",
     [](E) { return msg("the positions plus a constant offset"); }, positions_offset_says},
    {VariantKind::BaseOther, "base-other", VariantDetection::Measured, "base", [](E) { return msg("another base"); },
     [](S c) {
       return msg("matches base {0}, not {1}: is rope_theta read?", fmt::format("{}", found_value(c)),
                  base_of(c.expected));
     }},
    // Issue 78 item 4 (check_diagnosis.cpp try_fast_math): measured where the angles are held to float64, from the
    // pattern of the phase error (a shortfall of the same share of every angle), then confirmed by a comparison under
    // a float32 angle's tolerance widened by the fast unit's errors (Variant::fast_math).
    {VariantKind::AnglesFastMath, "angles-fast-math", VariantDetection::Measured, "bias",
     [](E) { return msg("sin and cos of float32 angles by a fast unit without range reduction"); },
     [](S c) {
       return msg(
           "matches sin and cos of float32 angles by a fast unit without range reduction, as CUDA's __sinf/__cosf "
           "under nvcc's use_fast_math: every angle falls short by {0} of itself (fl32(1/2π)'s shortfall is {1}), an "
           "error that grows with m·θ (reduce the angle first, or use sinf/cosf without fast math)",
           fmt::format("{:.3g}", -found_value(c)), fmt::format("{:.3g}", -fast_math_shortfall()));
     }},
    {VariantKind::HeadsZeroed, "heads-zeroed", kInMode, "heads,head", [](E) { return msg("some heads 0"); },
     [](S c) {
       const std::vector<long> failing = failing_groups(c);
       return msg(
           "the gradient is 0 on heads {0} ({1} of {2}) and right on the others: those heads were never "
           "written (zeroed, or a launch that skips them)",
           check_number_list(failing), static_cast<long>(failing.size()), c.groups);
     }},
    {VariantKind::HeadsUninitialised, "heads-uninitialised", kInMode, "heads,head",
     [](E) { return msg("some heads left uninitialised"); },
     [](S c) {
       const std::vector<long> failing = failing_groups(c);
       return msg(
           "the gradient is wrong on heads {0} ({1} of {2}), neither 0 nor another head's, and right on "
           "the others: those heads were left uninitialised (torch.empty never written) or written by a "
           "race",
           check_number_list(failing), static_cast<long>(failing.size()), c.groups);
     }},
    {VariantKind::HeadsCrossed, "heads-crossed", kInMode, "heads,head,from",
     [](E) { return msg("some heads reading another head's pairs"); },
     [](S c) {
       const auto& f = c.diagnosis.found;
       if (f.size() == 2 && f[1].first == "offset") {  // every head another's, by one offset
         return msg(
             "every head holds the gradient of the head {0} after it: pairs crossed between heads by a "
             "relayout",
             static_cast<long>(f[1].second));
       }
       const std::vector<long> failing = failing_groups(c);
       return msg(
           "heads {0} ({1} of {2}) hold another head's gradient (head {3} that of head {4}), the others "
           "their own: pairs crossed between heads by a relayout (an in-place split→interleaved copy "
           "racing across warps)",
           check_number_list(failing), static_cast<long>(failing.size()), c.groups, static_cast<long>(f.at(1).second),
           static_cast<long>(f.at(2).second));
     }},
    {VariantKind::ChannelsZeroed, "channels-zeroed", kInMode, "channel,channels",
     [](E) { return msg("a channel range 0"); },
     [](S c) {
       const int first = static_cast<int>(found_value(c, 0)), count = static_cast<int>(found_value(c, 1));
       return msg(
           "the gradient is 0 on channels {0}–{1} ({2} channels) of every vector and right on the others: "
           "that part of the head was never written",
           first, first + count - 1, count);
     }},
    {VariantKind::ChannelsUninitialised, "channels-uninitialised", kInMode, "channel,channels",
     [](E) { return msg("a channel range left uninitialised"); },
     [](S c) {
       const int first = static_cast<int>(found_value(c, 0)), count = static_cast<int>(found_value(c, 1));
       return msg(
           "the gradient is wrong on channels {0}–{1} ({2} channels) of every vector, not 0, and right on "
           "the others: that part of the head was left uninitialised or written by another part of the "
           "kernel",
           first, first + count - 1, count);
     }},
    // Issue 78 item 3: a K cache re-rotated key by key (--shift-map, check_mode.hpp (H2)); check_mode.cpp's
    // diagnose_shift_map names them from the forward rows a per-key δ makes them (the positions offset, no rotation,
    // the rotation reversed).
    {VariantKind::ShiftMapOffset, "shift-map-offset", kInMode, "offset",
     [](E) { return msg("every new position off by a constant"); },
     [](S c) {
       return msg(
           "matches every key turned by new − old {0}: the new positions are all off by {0} (the evicted count "
           "added or left out, VeloxQuant #137), so each key sits {0} from where the map puts it",
           fmt::format("{:+}", found_value(c)));
     }},
    {VariantKind::ShiftMapNotRotated, "shift-map-not-rotated", kInMode, "",
     [](E) { return msg("the keys left at their old angle"); },
     [](S) {
       return msg(
           "the keys after the move equal the keys before: each key was moved to its new slot but left at its old "
           "position's angle (the cache compacted without re-rotating it by new − old)");
     }},
    {VariantKind::ShiftMapSign, "shift-map-sign", kInMode, "", [](E) { return msg("the keys turned by old − new"); },
     [](S) {
       return msg(
           "matches every key turned by old − new instead of new − old: the re-rotation's δ has the wrong sign (the "
           "keys move further from their new positions instead of to them)");
     }},
    {VariantKind::QkCrossed, "qk-crossed", kPaired, "", [](E) { return msg("q and k crossed in a fused kernel"); },
     [](S) {
       return msg(
           "matches q and k crossed: the second element of each of q's rotated pairs is k's pair rotated, the "
           "first of each of k's is q's (a fused q/k kernel that loads the other tensor's half)");
     }},
    {VariantKind::KWithQueryHeads, "k-with-query-heads", kPaired, "q_heads,k_heads",
     [](E) { return msg("k read with q's head count"); },
     [](S c) {
       const auto hq = static_cast<long>(found_value(c, 0)), hk = static_cast<long>(found_value(c, 1));
       return msg(
           "matches k read with q's head count: k has {0} heads, q {1}, and key (t, h) is turned at the position of "
           "index ⌊(t·{0} + h) / {1}⌋, as k's buffer walked as [T·{0}/{1}, {1}, d] puts it (take k's own head count "
           "and stride)",
           hk, hq);
     }},
};

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

const std::vector<VariantRow>& variant_table() { return kVariantTable; }

const VariantRow& variant_row(VariantKind kind) {
  // The table is in the order check compares the variants, not VariantKind's: the row is found by its kind.
  for (const VariantRow& row : kVariantTable) {
    if (row.kind == kind) return row;
  }
  throw std::logic_error(fmt::format("the variant table has no row for variant {}", static_cast<int>(kind)));
}

std::vector<Variant> table_variants(const VariantFacts& facts) {
  std::vector<Variant> out;
  for (const VariantRow& row : kVariantTable) {
    if (row.from_expectation && row.from_expectation.applies(facts)) row.from_expectation.build(facts, out);
  }
  if (facts.dump == nullptr) return out;
  for (const VariantRow& row : kVariantTable) {
    if (row.from_dump && row.from_dump.applies(facts)) row.from_dump.build(facts, out);
  }
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
