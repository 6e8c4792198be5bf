// The printers of rope identify's report (identify_report.hpp): the text a person reads and the value JSON and
// Python share.
#include "rope/report/printing.hpp"
#include "rope/report/identify_report.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "rope/analysis/check/check_table.hpp"
#include "rope/io/tensor_file.hpp"
#include "rope/core/utf8.hpp"
#include "rope/report/rope_text.hpp"
#include "rope/report/digits.hpp"
#include "rope/report/dump_text.hpp"
#include "rope/report/json.hpp"
#include "rope/report/text.hpp"

namespace rope {
namespace {

/// "t 44, h 42, w 42" (Flux.2's fourth axis l): one value per axis of a latent grid.
template <typename T>
std::string grid_axes_text(const std::vector<T>& values) {
  static const char* const names[] = {"t", "h", "w", "l"};
  std::string s;
  for (std::size_t a = 0; a < values.size() && a < 4; ++a)
    s += fmt::format("{}{} {}", a ? ", " : "", names[a], values[a]);
  return s;
}

std::string g6(double x) { return fmt::format("{:.6g}", x); }

std::string family_text(const FamilyFit& f, const Text& t) {
  switch (f.family) {
    case Family::Default:
      return t.tr("default: base {0} (static NTK-aware scaling is this with another base)", g6(f.base));
    case Family::Linear:
      return t.tr("linear: base {0}, factor {1}", g6(f.base), g6(f.factor));
    case Family::Yarn:
      return t.tr("yarn: base {0}, factor {1}, ramp from pair {2} (kept) to pair {3} (divided by the factor)",
                  g6(f.base), g6(f.factor), fmt::format("{:.2f}", f.ramp_low), fmt::format("{:.2f}", f.ramp_high));
    case Family::Llama3:
      return t.tr(
          "llama3: base {0}, factor {1}, bands at wavelengths {2} (L0/high_freq_factor) and {3} (L0/low_freq_factor)",
          g6(f.base), g6(f.factor), fmt::format("{:.1f}", f.ramp_low), fmt::format("{:.1f}", f.ramp_high));
    case Family::PerPair:
      return t.tr("per-pair factors: no family explains the frequencies");
  }
  return "";
}

std::string layout_text(const Identification& id, const Text& t) {
  const int n = static_cast<int>(id.pairs.size());
  if (id.rotary_offset > 0 && (id.layout == PairLayout::Interleaved || id.layout == PairLayout::Half)) {
    // A rotated block after pass-through channels (llama.cpp's legacy DeepSeek-2 q: channels 128…191 of 192).
    const int o = id.rotary_offset, r = id.rotary_dim;
    const bool interleaved = id.layout == PairLayout::Interleaved;
    if (o + r == id.d) {
      return interleaved
                 ? t.tr("interleaved pairs on the last {0} channels (offset {1}): pairs ({1} + 2j, {1} + 2j + 1)", r, o)
                 : t.tr("half pairs on the last {0} channels (offset {1}): pairs ({1} + j, {1} + j + {2})", r, o,
                        r / 2);
    }
    return interleaved ? t.tr("interleaved pairs on channels {0}–{1} (offset {0}): pairs ({0} + 2j, {0} + 2j + 1)", o,
                              o + r - 1)
                       : t.tr("half pairs on channels {0}–{1} (offset {0}): pairs ({0} + j, {0} + j + {2})", o,
                              o + r - 1, r / 2);
  }
  switch (id.layout) {
    case PairLayout::Interleaved:
      if (id.output_deinterleaved) {
        return t.tr(
            "interleaved: pairs (2j, 2j + 1), the output de-interleaved to (j, j + {0}) as Hugging Face's "
            "DeepSeek-V3 writes it",
            id.d / 2);
      }
      return t.tr("interleaved: pairs (2j, 2j + 1)");
    case PairLayout::Half:
      if (id.axis_blocks) {
        return t.tr("half inside each axis's block of {0} channels: pair j = b·{1} + k on b·{0} + (k, k + {1}) (V6)",
                    id.rotary_dim / 2, id.rotary_dim / 4);
      }
      return t.tr("half: pairs (j, j + {0})", id.pairs.empty() ? 0 : id.pairs[0].second - id.pairs[0].first);
    case PairLayout::None:  // never a claim about norms that the pairs of a layout keep
      if (id.channels_scaled) return t.tr("none: each changed channel is its input times a factor (see the note)");
      return id.norms_kept_by ? t.tr(
                                    "none: no pairing turns a sequence index's vectors alike, though the {0} pairs "
                                    "keep their norms (see the note)",
                                    to_string(*id.norms_kept_by))
                              : t.tr("none: no pairing keeps every pair's norm");
    case PairLayout::Other:
      break;
  }
  std::string list;
  for (int j = 0; j < n && j < 8; ++j)
    list += fmt::format("{}({}, {})", j ? " " : "", id.pairs[j].first, id.pairs[j].second);
  return t.tr("another permutation: {0}{1}", list, n > 8 ? " …" : "");
}

/// The sections the pairs' axes make: "mrope_section [16, 24, 24], chunked (docs/multi-axis.md (A2))".
std::string sections_text(const Identification::Axes& axes, const Text& t) {
  if (axes.sections.empty()) return t.tr("undetermined: the positions cannot tell the axes apart (see the note)");
  const std::string list = fmt::format("{}", fmt::join(axes.sections, ", "));
  if (!axes.order) return t.tr("mrope_section [{0}] in neither map (see the note)", list);
  return t.tr("mrope_section [{0}], {1} (docs/multi-axis.md {2}): pair j turns by θ_j·p_a(j)", list,
              order_name(*axes.order, t.lang()), axis_rule(*axes.order));
}

/// HunyuanVL's XD-RoPE map the channels' streams follow (docs/multi-axis.md (A11)).
std::string xdrope_text(const Identification::Xdrope& x, const Text& t) {
  if (!x.map) return t.tr("four streams p, w, h, t: the map is undetermined (see the note)");
  const std::string list = fmt::format("{}", fmt::join(x.sections, ", "));
  return *x.map == SectionOrder::XdropeHf
             ? t.tr(
                   "xdrope_section [{0}] over the streams p, w, h, t in HF's map (each section doubled: the two "
                   "channels of a pair read two streams); Tencent's map parts from it at pair {1} "
                   "(docs/multi-axis.md (A11))",
                   list, x.parts_at)
             : t.tr(
                   "xdrope_section [{0}] over the streams p, w, h, t in Tencent's map (the list repeated: both "
                   "channels of a pair on one stream, as mlx-vlm too); HF's map parts from it at pair {1} "
                   "(docs/multi-axis.md (A11))",
                   list, x.parts_at);
}

/// FoPE's kept and padded pairs (docs/multi-axis.md (F1)–(F4)).
std::string fope_text(const Identification::Fope& f, int d, const Text& t) {
  const std::string low = fmt::format("{:.4g}", f.norm_min), high = fmt::format("{:.4g}", f.norm_max);
  return f.sin_padded_one
             ? t.tr(
                   "{0} kept pairs (0 … {1}), each turned and scaled by a cos′ and sin′ that are not those of one "
                   "angle (norms ×{2} … ×{3}); {4} padded pairs ({5} … {6}) turned into √2·R(π/4) (sin 1 as well as "
                   "cos 1: see the note)",
                   f.kept, f.kept - 1, low, high, f.padded, f.kept, d / 2 - 1)
             : t.tr(
                   "{0} kept pairs (0 … {1}), each turned and scaled by a cos′ and sin′ that are not those of one "
                   "angle (norms ×{2} … ×{3}); {4} padded pairs ({5} … {6}) pass through unrotated (cos 1, sin 0)",
                   f.kept, f.kept - 1, low, high, f.padded, f.kept, d / 2 - 1);
}

/// The heads that share FoPE's cos′ and sin′: GQA's groups on their key-value heads (F4).
std::string fope_heads_text(const Identification::Fope& f, long heads, const Text& t) {
  if (heads < 2) return t.tr("one head: the dump cannot show which heads share cos′ and sin′");
  if (f.group_heads == heads) {
    return t.tr(
        "every one of the {0} heads has the same cos′ and sin′: one key-value head, or one coefficient matrix "
        "shared by all (fope_sep_head false)",
        heads);
  }
  if (f.group_heads == 1) {
    return t.tr("each of the {0} heads has its own cos′ and sin′: a key-value head each (a key dump, or no GQA)",
                heads);
  }
  return t.tr("{0} key-value heads: the {1} query heads share cos′ and sin′ in GQA groups of {2} consecutive heads",
              f.kv_heads, heads, f.group_heads);
}

Value fit_value(const FamilyFit& f) {
  Value v;
  v["family"] = to_string(f.family);
  v["base"] = f.base;
  v["factor"] = f.factor;
  v["ramp_low"] = f.ramp_low;
  v["ramp_high"] = f.ramp_high;
  v["residual"] = f.residual;
  return v;
}

}  // namespace

Value identify_value(const IdentifyRun& run) {
  const Identification& id = run.id;
  Value j;
  j["d"] = id.d;
  j["dtype"] =
      std::string(to_string(run.dumps.after.dtype));  // the rounding identified with: the stated type, else the file's
  axes_assumed_value(j, run.dumps);
  j["rotary_dim"] = id.rotary_dim;
  j["layout"] = to_string(id.layout);
  // The order the output's channels are written in: "in place", or "de-interleaved" (rope check's equivalent order).
  j["output_order"] = id.output_deinterleaved ? "de-interleaved" : "in place";
  if (id.axis_blocks) j["axis_blocks"] = true;  // (V6): the layout inside each axis's block of d/2 channels
  if (id.rotary_offset > 0) j["rotary_offset"] = id.rotary_offset;  // the rotated block's first channel
  Value& pairs = j["pairs"] = Value::array();
  for (const auto& [a, b] : id.pairs) pairs.push_back(std::vector<int>{a, b});
  j["heads_paired_otherwise"] = id.heads_paired_otherwise;
  j["attention_factor"] = id.attention_factor;
  if (id.applied_twice) j["applied_twice"] = true;  // θ = 2·(the family's), the factor squared (rope-applied-twice)
  // rope check's angles-fast-math: every angle short by `bias` of itself (a fast sin/cos unit); null otherwise.
  j["angles_fast_math"] = Value();
  if (id.fast_math_bias) j["angles_fast_math"]["bias"] = *id.fast_math_bias;
  if (id.fast_math_bias) j["angles_fast_math"]["toward_zero"] = id.fast_math_toward_zero;  // SASS's FMUL.RZ
  j["norm_residual"] = id.norm_residual;
  // The vectors left out of the fit, element by element (rope check's elements-unrotated, its found names); null when
  // none is.
  j["departed"] = Value();
  if (id.departed) {
    const Identification::Departed& e = *id.departed;
    j["departed"]["elements"] = e.elements;
    j["departed"]["kept_input"] = e.kept_input;
    j["departed"]["channel"] = e.channel;
    j["departed"]["channel_last"] = e.channel_last;
    j["departed"]["channels"] = e.channels;
    j["departed"]["indices"] = static_cast<long>(e.indices.size());
    j["departed"]["index_list"] = e.indices;
    j["departed"]["groups"] = e.groups;
  }
  if (id.norms_kept_by) j["norms_kept_by"] = to_string(*id.norms_kept_by);  // no pairing, yet these pairs keep norms
  j["channels_scaled"] = id.channels_scaled;  // no pairing: each changed channel its input times a factor (x·cos)
  j["theta"] = as_list(id.theta);
  j["angle_residual"] = as_list(id.angle_residual);
  Value& fits = j["fits"] = Value::array();
  for (const FamilyFit& f : id.fits) fits.push_back(fit_value(f));
  j["family"] = id.fits.empty() ? Value() : fit_value(id.fits[0]);
  // θ of plain RoPE with the fitted base over θ measured: the per-pair factor (LongRoPE's ext_factors,
  // a llama3/YaRN band's f) of each pair.
  std::vector<double> per_pair;
  for (Eigen::Index k = 0; k < id.theta.size(); ++k) {
    const double plain = std::pow(id.fit.base, -2.0 * static_cast<double>(k) / std::max(id.family_dim, 2));
    per_pair.push_back(id.theta[k] != 0 ? plain / std::abs(id.theta[k]) : 0.0);
  }
  j["factor_per_pair"] = per_pair;
  j["notes"] = english(id.notes);
  j["position_offset"] = id.position_offset;
  j["jumps"] = id.jumps;
  // The dump's positions the tokens' order plus one constant where the given ones need jumps (rope check's
  // positions-offset, found order_offset); null otherwise.
  j["order_offset"] = id.order_offset ? Value(*id.order_offset) : Value();
  // position_ids [3, batch, seq] read as [batch, 3, seq]: the batch rows (rope check's mrope-batch-rows, found batch).
  j["mrope_batch_rows"] = run.mrope_batch_rows > 0 ? Value(run.mrope_batch_rows) : Value();
  j["query_heads"] = run.query_heads > 0 ? Value(run.query_heads) : Value();
  // A latent grid's text tokens counted 0, 1, 2, … (rope check's text-ids-counted): the axis (−1 every axis) and count.
  j["text_ids_counted"] = Value();
  if (run.text_counted) {
    j["text_ids_counted"]["axis"] = run.text_counted->axis;
    j["text_ids_counted"]["tokens"] = run.text_counted->tokens;
  }
  // Every key turned by one δ where the positions given differ (rope check's shift-map-one-delta, found delta).
  j["one_turn"] = Value();
  if (run.one_turn) {
    j["one_turn"]["delta"] = run.one_turn->delta;
    j["one_turn"]["base"] = run.one_turn->base;
    j["one_turn"]["misfit"] = run.one_turn->misfit;
  }
  // A dump in heads read with its heads side by side (LTX's table over every head's channels): the heads and each
  // one's channels.
  j["heads_together"] = Value();
  if (run.heads_together) {
    j["heads_together"]["heads"] = run.heads_together->heads;
    j["heads_together"]["head_dim"] = run.heads_together->head_dim;
  }
  // Heads turned at positions shifted by a constant of their own: each one's batch row (where the dump has several),
  // head and shift.
  Value& heads = j["head_offsets"] = Value::array();
  for (const Identification::GroupOffset& o : id.group_offsets) {
    Value v;
    if (run.dumps.after.batch > 1) v["batch"] = o.group / run.dumps.after.heads;
    v["head"] = o.group % run.dumps.after.heads;
    v["offset"] = o.offset;
    heads.push_back(v);
  }
  // Batch rows or packed sequences shifted by a constant of their own: each one's number, first index and shift.
  Value& segments = j["segment_offsets"] = Value::array();
  for (const SegmentOffset& o : run.segment_offsets) {
    Value v;
    v[run.dumps.segments_are_rows ? "row" : "sequence"] = o.segment;
    v["start"] = o.start;
    v["offset"] = o.offset;
    segments.push_back(v);
  }
  // Positions held from an index on (a cos/sin cache clamped to its last row): the index and the position held.
  j["held_from"] = id.held_from >= 0 ? Value(id.held_from) : Value();
  j["held_position"] = id.held_from >= 0 ? Value(id.held_position + id.position_offset) : Value();
  j["undetermined"] = id.undetermined;
  j["pairing_assumed"] = id.pairing_assumed;
  j["reversed"] = id.reversed;
  if (id.vision) {
    Value& v = j["vision"];
    v["kind"] = id.vision->kind;
    v["equation"] = id.vision->equation;
    v["base"] = id.vision->base;
    v["residual"] = id.vision->residual;
  }
  if (id.grid) {  // a diffusion transformer's latent grid: widths, one base over the per-axis ladders, presets that fit
    Value& g = j["grid"];
    g["widths"] = id.grid->widths;
    g["base"] = id.grid->base > 0 ? Value(id.grid->base) : Value();
    g["bases"] = id.grid->bases;
    g["residual"] = id.grid->residual;
    Value families = Value::array();
    for (const auto& [family, preset] : id.grid->families) {
      Value f = Value::object();
      f["family"] = family;
      f["preset"] = preset;
      families.push_back(f);
    }
    g["families"] = families;
    Value widths_fit = Value::array();
    for (const Identification::GridMatch::WidthsFit& w : id.grid->widths_fit) {
      Value f = Value::object();
      f["family"] = w.family;
      f["preset"] = w.preset;
      f["base"] = w.base;
      widths_fit.push_back(f);
    }
    g["widths_fit"] = widths_fit;
    if (id.grid->per_frequency) {  // LTX's table: its padding pairs and, with per-head slices, its heads
      g["per_frequency"] = true;
      g["padding"] = id.grid->padding;
      g["heads"] = id.grid->heads;
      // The table pairs that turned by whole turns at every position (no channel of theirs changed) and the base
      // that says so; empty and null where every pair turned.
      g["whole_turns"] = id.grid->whole_turns;
      g["whole_turns_base"] = id.grid->whole_turns.empty() ? Value() : Value(id.grid->whole_turns_base);
    }
  }
  if (id.xdrope) {  // HunyuanVL's XD-RoPE: each channel's stream (p, w, h, t) and the map they follow
    Value& x = j["xdrope"];
    x["channel_stream"] = id.xdrope->channel_stream;
    x["map"] = !id.xdrope->map ? Value() : *id.xdrope->map == SectionOrder::XdropeHf ? Value("hf") : Value("tencent");
    x["sections"] = id.xdrope->map ? Value(id.xdrope->sections) : Value();
    x["parts_at"] = id.xdrope->map && id.xdrope->parts_at >= 0 ? Value(id.xdrope->parts_at) : Value();
  }
  if (id.fope) {  // FoPE's signature: kept and padded pairs, the padding, the heads that share cos′ and sin′
    Value& f = j["fope"];
    f["kept"] = id.fope->kept;
    f["padded"] = id.fope->padded;
    f["padding"] = id.fope->sin_padded_one ? "sin 1" : "sin 0";
    f["kv_heads"] = id.fope->kv_heads;
    f["group_heads"] = id.fope->group_heads;
    f["norm_min"] = id.fope->norm_min;
    f["norm_max"] = id.fope->norm_max;
  }
  if (id.axes) {
    Value& m = j["mrope"];
    m["pair_axis"] = id.axes->pair_axis;
    m["sections"] = id.axes->sections.empty() ? Value() : Value(id.axes->sections);
    m["order"] = id.axes->order ? Value(std::string(to_string(*id.axes->order))) : Value();
    Value presets = Value::array();
    for (const auto& [family, preset] : id.axes->presets) {
      Value f = Value::object();
      f["family"] = family;
      f["preset"] = preset;
      presets.push_back(f);
    }
    m["presets"] = presets;
  }
  return j;
}

void print_identify(std::ostream& out, const IdentifyRun& run, const Text& t, const std::optional<int>& digits) {
  const LoadedDumps& dumps = run.dumps;
  const Identification& id = run.id;
  // The attention factor and θ_j at the report's digits (`--digits`, default 4; 0 every digit), an integer as it is.
  const auto at_digits = [&](double x) {
    return x == std::floor(x) && std::abs(x) < 1e15 ? format_number(x) : with_digits(x, digits.value_or(4));
  };
  const auto row = [&](const std::string& label, const std::string& value) {
    out << fmt::format("  {:<20}{}\n", label, value);
  };
  out << t.tr("rope identify: {0} from {1}\n", escape_controls(run.after_file), escape_controls(run.before_file));
  row(t.tr("dump"),
      t.tr("[{0}] = {1}, {2} ({3}), positions {4}", std::string(to_string(dumps.axes)), shape_string(dumps.shape),
           std::string(to_string(dumps.after.dtype)), dumps.stored, positions_text(dumps, t)));
  if (dumps.axes_assumed) row(t.tr("axes"), axes_assumed_text(dumps, t));
  if (id.position_offset != 0 || !id.jumps.empty()) {
    std::string jumps;
    for (std::size_t k = 0; k < id.jumps.size() && k < 8; ++k) jumps += (k ? ", " : "") + std::to_string(id.jumps[k]);
    if (id.jumps.size() > 8) jumps += ", …";
    // The positions read in the tokens' order from one constant k where the given ones need jumps (a context-parallel
    // rank that numbered its tokens across the ranks): the constant, as check names it (found order_offset).
    const std::vector<double>& used = id.dump_positions;
    row(t.tr("dump's positions"),
        id.order_offset    ? t.tr("{0} … {1}, the tokens' order plus {0}: one constant offset over the tokens' order",
                                  format_number(used.front()), format_number(used.back()))
        : id.jumps.empty() ? t.tr("the given ones shifted by {0:+g}", id.position_offset)
        : id.position_offset == 0
            ? t.tr("restart or jump at index {0}", jumps)
            : t.tr("the given ones shifted by {0:+g}, restart or jump at index {1}", id.position_offset, jumps));
  }
  if (!run.segment_offsets.empty()) {  // "row 1 fits positions + 5000", as check names it
    std::string list;
    for (std::size_t k = 0; k < run.segment_offsets.size() && k < 8; ++k)
      list += fmt::format("{}{}: {:+}", k ? ", " : "", run.segment_offsets[k].segment, run.segment_offsets[k].offset);
    if (run.segment_offsets.size() > 8) list += ", …";
    const std::size_t n = run.segment_offsets.size(), all = run.dumps.segments.size();
    row(t.tr("dump's positions"),
        run.dumps.segments_are_rows
            ? t.tr("{0} of {1} batch rows at their positions shifted by a constant (row: shift) {2}", n, all, list)
            : t.tr("{0} of {1} packed sequences at their positions shifted by a constant (sequence: shift) {2}", n, all,
                   list));
  }
  if (run.mrope_batch_rows > 0) {
    row(t.tr("dump's positions"),
        t.tr("position_ids [3, batch, seq] read as [batch, 3, seq] ({0} batch rows)", run.mrope_batch_rows));
  }
  if (id.fast_math_bias) {  // rope check's angles-fast-math
    row(t.tr("angles"),
        id.fast_math_toward_zero
            ? t.tr(
                  "every angle falls short by {0:.3g} of itself (fl32(1/2π)'s shortfall is {1:.3g}, and the product "
                  "rounded toward zero): sin and cos by CUDA's fast unit, as __sinf/__cosf compute them (and sinf/cosf "
                  "under nvcc's use_fast_math): FMUL.RZ by fl32(1/2π), then MUFU.SIN, which rope check names "
                  "angles-fast-math under {2} float64",
                  -*id.fast_math_bias, -fast_math_shortfall(), option_name("angles"))
            : t.tr(
                  "every angle falls short by {0:.3g} of itself (fl32(1/2π)'s shortfall is {1:.3g}): sin and cos of the "
                  "angle taken in turns through a float32 constant (a sinpi of the angle times fl32(1/π), as CUDA's "
                  "sincospif of a float32 quotient), which rope check names angles-fast-math under {2} float64",
                  -*id.fast_math_bias, -fast_math_shortfall(), option_name("angles")));
  }
  if (run.text_counted) {  // rope check's text-ids-counted
    const long n = run.text_counted->tokens;
    row(t.tr("dump's positions"),
        run.text_counted->axis < 0
            ? t.tr("the first {0} tokens (text) at their order 0 … {1} on every axis, where the given ones are all at "
                   "one position",
                   n, n - 1)
            : t.tr("the first {0} tokens (text) at their order 0 … {1} on axis {2}, where the given ones are all at "
                   "one position",
                   n, n - 1, std::string(1, "thwe"[std::min(run.text_counted->axis, 3)])));
  }
  if (run.one_turn) {  // rope check's shift-map-one-delta
    row(t.tr("dump's positions"),
        t.tr("every key turned by one δ = {0}, where the positions given differ: each pair turns by the same angle at "
             "every index, δ·θ_j of base {1}'s ladder within {2:.2g} rad (a cache moved as by one shift; rope check "
             "{3} names it shift-map-one-delta)",
             format_number(run.one_turn->delta), with_digits(run.one_turn->base, 6), run.one_turn->misfit,
             option_name("shift_map")));
  }
  if (run.query_heads > 0) {  // rope check's k-with-query-heads
    row(t.tr("dump's positions"), t.tr("k's {0} heads walked with q's head count {1}: key (t, h) at the position of "
                                       "index ⌊(t·{0} + h) / {1}⌋",
                                       run.dumps.after.heads, run.query_heads));
  }
  if (!id.group_offsets.empty()) {  // "head 3 fits positions + 5000", as check names it
    const bool rows = run.dumps.after.batch > 1;
    const long heads = std::max<long>(1, run.dumps.after.heads);
    std::string list;
    for (std::size_t k = 0; k < id.group_offsets.size(); ++k) {
      const Identification::GroupOffset& o = id.group_offsets[k];
      list += k ? ", " : "";
      list += rows ? fmt::format("{}, {}: {:+}", o.group / heads, o.group % heads, o.offset)
                   : fmt::format("{}: {:+}", o.group % heads, o.offset);
    }
    const std::size_t n = id.group_offsets.size();
    const long all = run.dumps.after.groups();
    row(t.tr("dump's positions"),
        rows ? t.tr("{0} of {1} heads at their positions shifted by a constant (batch row, head: shift) {2}", n, all,
                    list)
             : t.tr("{0} of {1} heads at their positions shifted by a constant (head: shift) {2}", n, all, list));
  }
  if (id.held_from >= 0) {
    row(t.tr("dump's positions"),
        t.tr("held at {0} from index {1} on", format_number(id.held_position + id.position_offset), id.held_from));
  }
  row(t.tr("rotated channels"), t.tr("{0} of {1}", id.rotary_dim, id.d));
  if (id.heads_paired_otherwise.empty()) {
    row(t.tr("pair layout"), layout_text(id, t));
  } else {  // mixed across heads: the headline says so (and the exit is a failed check's, IdentifyRun::failed)
    row(t.tr("pair layout"), t.tr("mixed: {0} on most heads, another pairing on heads {1} (see the note)",
                                  layout_text(id, t), check_number_list(id.heads_paired_otherwise)));
  }
  if (id.fope) {  // no θ per pair: FoPE's cos′ and sin′ are sums over the kept frequencies (F2)
    row("FoPE", fope_text(*id.fope, id.d, t));
    row(t.tr("heads"), fope_heads_text(*id.fope, run.dumps.after.heads, t));
  } else if (!id.pairs.empty()) {
    // HF's XD-RoPE map keeps no norm where a pair's two streams differ: no attention factor to read from them.
    if (!id.xdrope || id.xdrope->map != SectionOrder::XdropeHf) {
      row(t.tr("attention factor"), t.tr("{0} (pair norms kept within {1})", at_digits(id.attention_factor),
                                         fmt::format("{:.2g}", id.norm_residual)));
    }
    if (id.departed) {  // rope check's elements-unrotated: some elements of some vectors, not their positions
      const Identification::Departed& e = *id.departed;
      std::string indices;
      for (std::size_t k = 0; k < e.indices.size() && k < 8; ++k)
        indices += (k ? ", " : "") + std::to_string(e.indices[k]);
      if (e.indices.size() > 8) indices += ", …";
      row(t.tr("not a rotation"),
          t.tr("{0} elements are no rotation of their pair, {1} of them their input unchanged: in {2} channels from "
               "channel {3} to {4}, {5} sequence indices ({6}) and {7} of {8} groups; those vectors are left out of "
               "the fit",
               e.elements, e.kept_input, e.channels, e.channel, e.channel_last, e.indices.size(), indices, e.groups,
               run.dumps.after.groups()));
    }
    if (id.vision) {  // (row, column) positions whose map, pairs and ladders are a vision tower's (V2)-(V6)
      row(t.tr("family"), t.tr("2-D vision RoPE {0} {1}: each axis its own ladder, base {2} (docs/multi-axis.md §6)",
                               id.vision->kind, id.vision->equation, g6(id.vision->base)));
    } else {
      if (id.xdrope) {
        row("XD-RoPE", xdrope_text(*id.xdrope, t));
      } else if (id.grid && id.grid->per_frequency && id.grid->widths.size() == 1) {
        row(t.tr("latent grid"),
            id.grid->heads > 0
                ? t.tr("LTX-2's audio table (docs/multi-axis.md (W14)): {0} frequencies over one axis t, in seconds; "
                       "each of {1} heads its own slice of it",
                       id.grid->widths[0] / 2, id.grid->heads)
                : t.tr("LTX-2's audio table (docs/multi-axis.md (W14)): {0} frequencies over one axis t, in seconds, "
                       "pairs over the whole vector",
                       id.grid->widths[0] / 2));
      } else if (id.grid && id.grid->per_frequency) {
        row(t.tr("latent grid"),
            id.grid->heads > 0
                ? t.tr("LTX's table (docs/multi-axis.md (W10)): {0} padding pairs, then {1} frequencies, the axes t, "
                       "h, w in turn per frequency; each of {2} heads its own slice of it",
                       id.grid->padding, id.grid->widths[0] / 2, id.grid->heads)
                : t.tr("LTX's table (docs/multi-axis.md (W7)): {0} padding pairs, then {1} frequencies, the axes t, "
                       "h, w in turn per frequency, pairs over the whole vector",
                       id.grid->padding, id.grid->widths[0] / 2));
      } else if (id.grid) {
        row(t.tr("latent grid"), t.tr("channels per axis {0}, one block per axis, each its own ladder "
                                      "(docs/multi-axis.md (G1), (G2))",
                                      grid_axes_text(id.grid->widths)));
      } else if (id.axes) {
        row("M-RoPE", sections_text(*id.axes, t));
      }
      if (id.grid) {
        // Each family once, with every preset of it that fits: "Wan (wan2.1-t2v-1.3b, wan2.1-t2v-14b)".
        const auto grouped = [](const std::vector<std::pair<std::string, std::string>>& presets) {
          std::vector<std::pair<std::string, std::vector<std::string>>> by_family;
          for (const auto& fit : presets) {  // a pair, not a binding: a lambda may not capture a binding (C++17)
            const std::string& family = fit.first;
            auto at =
                std::find_if(by_family.begin(), by_family.end(), [&](const auto& f) { return f.first == family; });
            if (at == by_family.end()) at = by_family.insert(by_family.end(), {family, {}});
            at->second.push_back(fit.second);
          }
          std::vector<std::string> out;
          for (const auto& [family, names] : by_family)
            out.push_back(fmt::format("{} ({})", family, fmt::join(names, ", ")));
          return fmt::format("{}", fmt::join(out, ", "));
        };
        std::vector<std::string> each;
        for (const double b : id.grid->bases) each.push_back(g6(b));
        const std::string base = id.grid->base > 0 ? g6(id.grid->base) : grid_axes_text(each);
        std::vector<std::pair<std::string, std::string>> widths_only;
        std::vector<std::string> preset_bases;
        for (const Identification::GridMatch::WidthsFit& w : id.grid->widths_fit) {
          widths_only.push_back({w.family, w.preset});
          if (std::find(preset_bases.begin(), preset_bases.end(), g6(w.base)) == preset_bases.end())
            preset_bases.push_back(g6(w.base));
        }
        if (id.grid->per_frequency) {
          row(t.tr("family"),
              !id.grid->families.empty()
                  ? t.tr("ω_k = (π/2)·base^(k/(F−1)), base {0}: {1}", base, grouped(id.grid->families))
              : !widths_only.empty()
                  ? t.tr("ω_k = (π/2)·base^(k/(F−1)), base {0}: the size and pairing fit {1}, whose base is {2}: the "
                         "base differs",
                         base, grouped(widths_only), fmt::format("{}", fmt::join(preset_bases, ", ")))
              : id.grid->heads > 0
                  ? t.tr("ω_k = (π/2)·base^(k/(F−1)), base {0}: LTX-2's table, rope_type split; no preset has {1} "
                         "channels in {2} heads",
                         base, id.d, id.grid->heads)
                  : t.tr("ω_k = (π/2)·base^(k/(F−1)), base {0}: LTX-Video's or LTX-2's table (rope_type "
                         "interleaved); no preset has {1} channels",
                         base, id.d));
        } else
          row(t.tr("family"),
              !id.grid->families.empty() ? t.tr("per-axis ladders, base {0}: {1}", base, grouped(id.grid->families))
              : !widths_only.empty()
                  ? t.tr("per-axis ladders, base {0}: the widths {1} fit {2}, whose base is {3}: the base differs",
                         base, grid_axes_text(id.grid->widths), grouped(widths_only),
                         fmt::format("{}", fmt::join(preset_bases, ", ")))
                  : t.tr("per-axis ladders, base {0}: no diffusers preset has these widths", base));
      } else {
        row(t.tr("family"), family_text(id.fit, t));
        if (id.axes && !id.axes->presets.empty()) {
          std::vector<std::string> names;
          for (const auto& [family, preset] : id.axes->presets) {
            names.push_back(family == preset ? preset : fmt::format("{} ({})", family, preset));
          }
          row(t.tr("presets that fit"), fmt::format("{}", fmt::join(names, ", ")));
        }
      }
    }
    // The family is the simplest fit within the noise of the smallest residual (analysis/identify/identify.cpp): the
    // residuals are compared, and shown with the digits that tell them apart (digits.hpp, at least 2).
    const bool other = id.vision || id.grid;  // a 2-D or grid ladder chosen: every 1-D family is another fit
    std::vector<double> residuals{id.vision ? id.vision->residual : id.grid ? id.grid->residual : id.fit.residual};
    for (std::size_t i = other ? 0 : 1; i < id.fits.size(); ++i) residuals.push_back(id.fits[i].residual);
    const std::vector<std::string> shown = compared(residuals, digits, 4);
    row(t.tr("fit residual"), t.tr("{0} (RMS of ln θ_measured − ln θ_family)", shown[0]));
    std::string others;
    // With a vision match every 1-D family is another fit (shown[k + 1] for fits[k]); else fits[0] is the chosen one.
    const std::size_t first = other ? 0 : 1;
    for (std::size_t i = first; i < id.fits.size(); ++i) {
      others += fmt::format("{}{} {}", i > first ? ", " : "", to_string(id.fits[i].family), shown[i + 1 - first]);
    }
    if (!others.empty()) row(t.tr("other fits"), others);
    const int n = static_cast<int>(id.theta.size());
    out << '\n'
        << fmt::format("  {:>5}  {:>14}  {:>14}  {:>12}\n", t.tr("pair"), t.tr("θ measured"), t.tr("θ fitted"),
                       t.tr("angle RMS"));
    for (int j = 0; j < n; ++j) {
      if (n > 12 && j == 4) out << "  …\n";
      if (n > 12 && j >= 4 && j < n - 4) continue;
      out << fmt::format("  {:>5}  {:>14}  {:>14}  {:>12.2g}\n", j, at_digits(id.theta[j]),
                         at_digits(id.vision                 ? id.vision->theta[j]
                                   : id.grid                 ? id.grid->theta[j]
                                   : j < id.fit.theta.size() ? id.fit.theta[j]
                                                             : 0.0),
                         id.angle_residual[j]);
    }
  }
  for (const Message& note : id.notes) out << t.tr("note: ") << note.in(t.lang()) << '\n';
}

}  // namespace rope
