// rope check: is a dumped RoPE right? The dump against the reference of --model/--config/flags, under the
// tolerance model (C1) of rope/analysis/check.hpp, with a diagnosis naming the known bug it matches.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <memory>
#include <nlohmann/json.hpp>

#include "rope/analysis/check.hpp"
#include "rope/analysis/expectation.hpp"
#include "rope/cli/output.hpp"
#include "rope/cli/choice_option.hpp"
#include "rope/cli/axes_text.hpp"
#include "rope/cli/commands.hpp"
#include "rope/cli/commands/check_options.hpp"
#include "rope/cli/digits.hpp"
#include "rope/cli/dump_options.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/printing.hpp"
#include "rope/cli/progress.hpp"
#include "rope/cli/scaling_options.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/io/csv.hpp"
#include "rope/io/gguf.hpp"
#include "rope/models/layer_types.hpp"
#include "rope/models/layers_without_rope.hpp"
#include "rope/models/scaling_table.hpp"

namespace rope::cli {

namespace {

/// "3 of 64 (first: position 5): 5–6, 9"-style summary of the indices whose ratio exceeds 1: the count, the
/// first by `name`, and up to four runs of consecutive indices by `value`.
template <class Name, class Value>
std::string failing_summary(const Eigen::VectorXd& ratio, const Text& t, Name name, Value value) {
  long count = 0, first = -1;
  std::vector<std::pair<long, long>> runs;
  for (Eigen::Index i = 0; i < ratio.size(); ++i) {
    if (ratio[i] <= 1.0) continue;
    ++count;
    if (first < 0) first = i;
    if (!runs.empty() && runs.back().second == i - 1) runs.back().second = i;
    else runs.emplace_back(i, i);
  }
  if (count == 0) return t.tr("0 of {0}", ratio.size());
  std::string list;
  for (std::size_t k = 0; k < runs.size() && k < 4; ++k) {
    list += (k ? ", " : "") + value(runs[k].first) + (runs[k].second > runs[k].first ? "–" + value(runs[k].second) : "");
  }
  if (runs.size() > 4) list += ", …";
  return t.tr("{0} of {1} (first: {2}): {3}", count, ratio.size(), name(first), list);
}

/// max |Δ|/tolerance, compared with 1: the digits that tell it from 1 (digits.hpp: 1.00004 is not "1").
std::string ratio_text(double ratio, const std::optional<int>& digits) { return compared({ratio, 1.0}, digits, 4)[0]; }

/// "57" or "0–127": the positions of a segment, first to last.
std::string segment_positions(const LoadedDumps& dumps, const DumpSegment& g) {
  const auto at = [&](long s) {
    return dumps.axis_positions.empty() ? format_number(dumps.positions[static_cast<std::size_t>(s)])
                                        : dumps.axis_positions[static_cast<std::size_t>(s)].text();
  };
  return g.length == 1 ? at(g.start) : at(g.start) + "–" + at(g.start + g.length - 1);
}

/// Largest number of segments the text report lists (the failing ones first).
constexpr std::size_t kSegmentLines = 16;

/// One line per batch row or packed sequence: its positions, verdict and, failing, its own diagnosis.
void print_segments(std::ostream& out, const LoadedDumps& dumps, const std::vector<SegmentCheck>& segments, const Text& t,
                    const std::optional<int>& digits) {
  std::vector<std::size_t> order;
  for (std::size_t k = 0; k < segments.size(); ++k) {
    if (!segments[k].passed()) order.push_back(k);
  }
  for (std::size_t k = 0; k < segments.size(); ++k) {
    if (segments[k].passed()) order.push_back(k);
  }
  const std::size_t shown = std::min(order.size(), kSegmentLines);
  std::sort(order.begin(), order.begin() + static_cast<long>(shown));
  for (std::size_t n = 0; n < shown; ++n) {
    const std::size_t k = order[n];
    const SegmentCheck& c = segments[k];
    const std::string label = dumps.segments_are_rows ? t.tr("batch row {0}", k) : t.tr("sequence {0}", k);
    std::string line = dumps.segments_are_rows
                           ? t.tr("positions {0}", segment_positions(dumps, c.segment))
                           : t.tr("indices {0}–{1}, positions {2}", c.segment.start, c.segment.start + c.segment.length - 1,
                                  segment_positions(dumps, c.segment));
    line = t.tr("{0}: {1} (max |Δ|/tolerance {2})", line, c.passed() ? t.tr("PASS") : std::string(t("FAIL", "未通过")),
                ratio_text(c.max_ratio, digits));
    if (!c.passed() && !c.report.diagnosis.message.en.empty()) line = t.tr("{0}: {1}", line, c.report.diagnosis.message.in(t.zh()));
    out << fmt::format("  {:<20}{}\n", label, line);
  }
  if (order.size() > shown) out << t.tr("  … and {0} more that pass\n", order.size() - shown);
}

}  // namespace

int run_check(const CheckOptions& opt, std::ostream& out) {
  const Text t(opt.lang);
  LoadedDumps dumps = open_dumps(opt.dumps);
  if (opt.dtype) dumps.after.dtype = dumps.before.dtype = *opt.dtype;
  if (opt.dtype && dumps.stream) dumps.stream->set_dtype(*opt.dtype);
  Message where;
  double max_position = 0;
  for (const double p : dumps.positions) max_position = std::max(max_position, p);
  for (const AxisPosition& p : dumps.axis_positions) max_position = std::max(max_position, p.max_abs());
  // A layer without RoPE (--layer-type naming NoPE or linear-attention layers): its code leaves q and k as they
  // are, so the dump should be unchanged: every pair turns by 0 (θ_i = 0), attention factor 1.
  const std::optional<LayersWithoutRope> nope = layers_without_rope(opt.scaling.source, opt.scaling.rope);
  RopeExpectation e = nope ? unchanged_expectation(dumps.after.d, opt, dumps.axis_positions.empty() ? 1 : dumps.axis_positions[0].count)
                           : expectation_from_options(opt, dumps.after.d, !dumps.axis_positions.empty(), max_position, where);
  if (nope && nope->temperature && opt.query) {  // Llama 4's NoPE layers: q · t(p) (S20), keys unchanged
    e.query_beta = nope->temperature->attn_scale;
    e.query_original = nope->temperature->floor_scale;
    e.query_shift = 1;
  }
  const AngleModel angles = e.angles.value_or(default_angle_model(dumps.after.dtype));
  const std::vector<AxisPosition> positions = positions_as_axes(dumps.positions, dumps.axis_positions);
  std::optional<MemorySource> in_memory;
  if (!dumps.stream) in_memory.emplace(dumps.before, dumps.after);
  const DumpSource& source = dumps.stream ? static_cast<const DumpSource&>(*dumps.stream) : *in_memory;
  ProgressBar bar(dumps.stream ? dumps.stream->data_bytes() : 0, t);
  if (dumps.stream && bar.enabled()) dumps.stream->set_progress([&bar](double done) { bar.update(done); });
  if (static_cast<long>(positions.size()) != source.seq()) {
    throw InvalidArgument(error_msg("{0} positions for a dump of {1} sequence positions", positions.size(), source.seq()));
  }
  CheckReport report = check_source(source, 0, positions, e);
  if (nope && nope->temperature) {
    report.notes.insert(report.notes.begin(),
                        opt.query ? msg("Llama 4's NoPE layers scale the query by t(p) = 1 + attn_scale·ln(1 + ⌊(p + 1) / "
                                        "floor_scale⌋) (S20) (attn_scale {0}, floor_scale {1}): {2} at the largest position {3}",
                                        format_number(e.query_beta), format_number(e.query_original),
                                        format_number(e.query_scale(max_position)), format_number(max_position))
                                  : msg("Llama 4's NoPE layers leave keys unchanged and scale queries by the temperature "
                                        "(S20): checked as a key; give --query for a query dump"));
  }
  if (opt.query && !nope) {
    report.notes.insert(report.notes.begin(),
                        e.query_beta != 0
                            ? msg("query scaling (S21): the dump is a query, so the expectation is RoPE times s(p) = 1 + "
                                  "β·ln(1 + ⌊p / L0⌋) (β = {0}, L0 = {1}): {2} at the largest position {3}",
                                  format_number(e.query_beta), format_number(e.query_original),
                                  format_number(e.query_scale(max_position)), format_number(max_position))
                            : msg("--query: this model does not scale its queries: the expectation is the rotation alone"));
  }
  if (nope && !nope->temperature) {
    report.notes.insert(report.notes.begin(),
                        msg("layers {0} of {1} ({2}) have no RoPE: the model's code uses q and k as projected, so the "
                            "dump after must equal the dump before",
                            describe_layers(nope->layers), escape_controls(nope->model), escape_controls(nope->layer_type)));
  }
  std::vector<SegmentCheck> segments =
      dumps.segments.size() > 1 ? check_segments(source, positions, e, dumps.segments, report.comparison)
                                : std::vector<SegmentCheck>{};
  if (nope && !report.comparison.passed()) {  // a rotated dump of a layer without RoPE: what rotated it, and each part's
    const std::optional<RopeExpectation> other = rope_of_other_layers(opt, dumps.after.d, !dumps.axis_positions.empty(), max_position);
    const std::string model = escape_controls(nope->model), type = escape_controls(nope->layer_type);
    const std::string layers = describe_layers(nope->layers);
    diagnose_no_rope(report, source, positions, other, model, type, layers);
    for (SegmentCheck& g : segments) {
      if (g.passed()) continue;
      const auto from = positions.begin() + g.segment.start;
      diagnose_no_rope(g.report, source, {from, from + g.segment.length}, other, model, type, layers, g.segment.start);
    }
  } else if (dumps.segments_are_rows) {
    diagnose_rows(report, segments, positions);
  }
  bar.finish();
  // A position as the dump gave it: one number, or (t, h, w).
  const auto position = [&](long s) {
    return dumps.axis_positions.empty() ? format_number(dumps.positions[static_cast<std::size_t>(s)])
                                        : dumps.axis_positions[static_cast<std::size_t>(s)].text();
  };
  const DumpComparison& c = report.comparison;
  const int r = e.rotary_dim();
  // Per pair: the larger ratio of its two channels; unrotated channels separately.
  Eigen::VectorXd pair_ratio(r / 2);
  for (int i = 0; i < r / 2; ++i) {  // the channels the pair is written to (de-interleaved output: not those it is read from)
    const auto [a, b] = pair_channels(e, i, true);
    pair_ratio[i] = std::max(c.channel_ratio[a], c.channel_ratio[b]);
  }
  const bool passed = c.passed();
  if (opt.json) {
    nlohmann::json j;
    j["passed"] = passed;
    j["max_ratio"] = c.max_ratio;
    j["failing"] = c.failing;
    j["total"] = c.total;
    j["expected"] = {{"layout", std::string(to_string(e.layout))}, {"rotary_dim", r}, {"head_dim", e.head_dim},
                     {"base", e.base}, {"attention_factor", e.attention_factor}, {"scaling", e.scaling},
                     {"error_model", e.error_model.en}};
    if (e.query_beta != 0) {
      j["expected"]["query_scaling"] = {{"beta", e.query_beta}, {"original_max_position_embeddings", e.query_original},
                                        {"shift", e.query_shift}};
    }
    if (nope) {
      j["expected"]["rotary_dim"] = 0;
      j["expected"]["no_rope"] = {{"layer_type", nope->layer_type}, {"layers", nope->layers}};
    }
    if (e.axes) axes_json(j["expected"], *e.axes);
    j["dtype"] = std::string(to_string(dumps.after.dtype));
    j["angles"] = std::string(to_string(angles));
    j["only_position_zero"] = report.only_position_zero;
    j["notes"] = nlohmann::json::array();
    for (const Message& m : report.notes) j["notes"].push_back(m.en);
    j["segments"] = nlohmann::json::array();
    for (const SegmentCheck& g : segments) {
      nlohmann::json seg = {{"kind", dumps.segments_are_rows ? "batch_row" : "sequence"}, {"start", g.segment.start},
                            {"length", g.segment.length}, {"passed", g.passed()}, {"max_ratio", g.max_ratio},
                            {"failing_positions", g.failing_positions}};
      if (!g.passed()) {
        const CheckDiagnosis& d = g.report.diagnosis;
        seg["diagnosis"] = {{"matches", d.matches ? nlohmann::json(to_string(*d.matches)) : nlohmann::json()},
                            {"message", d.message.en}};
      }
      j["segments"].push_back(seg);
    }
    if (!passed) {
      const auto at = static_cast<std::size_t>(c.first_seq);
      nlohmann::json first_position = dumps.positions[at];
      if (!dumps.axis_positions.empty()) {
        first_position = nlohmann::json::array();
        for (int k = 0; k < dumps.axis_positions[at].count; ++k) first_position.push_back(dumps.axis_positions[at].value[static_cast<std::size_t>(k)]);
      }
      j["first_failure"] = {{"position", first_position},
                            {"group", c.first_group}, {"channel", c.first_channel}, {"expected", c.first_expected},
                            {"got", c.first_got}, {"tolerance", c.first_tolerance}};
      const CheckDiagnosis& dg = report.diagnosis;
      j["diagnosis"] = {{"matches", dg.matches ? nlohmann::json(to_string(*dg.matches)) : nlohmann::json()}, {"message", dg.message.en},
                        {"swapped_groups", dg.swapped_groups}, {"restarts", dg.restarts},
                        {"closest", dg.closest ? nlohmann::json(to_string(*dg.closest)) : nlohmann::json()},
                        {"closest_explained", dg.closest ? nlohmann::json(dg.closest_explained) : nlohmann::json()}};
      if (dg.no_rope) {  // a layer without RoPE, rotated: the model's RoPE as it is ("expected"), a variant of it, or null
        const auto& n = *dg.no_rope;
        j["diagnosis"]["no_rope_rotated"] = {
            {"rope_matches", n.rope_matches ? nlohmann::json(to_string(*n.rope_matches)) : nlohmann::json()}, {"changed", n.changed}};
      }
      nlohmann::json v = nlohmann::json::object();
      for (const auto& [kind, comparison] : report.variants) v[to_string(kind)] = comparison.failing;
      j["variants_failing"] = v;
    }
    out << json_text(j) << '\n';
    return passed ? kOk : kVerifyFailed;
  }
  const auto row = [&](const std::string& label, const std::string& value) { out << fmt::format("  {:<20}{}\n", label, value); };
  out << t.tr("rope check: {0} against RoPE({1})\n", escape_controls(opt.dumps.after), escape_controls(opt.dumps.before));
  row(t.tr("dump"), fmt::format("[{}] = {}, {} ({}), {} {}", to_string(dumps.axes), shape_string(dumps.shape),
                                      to_string(dumps.after.dtype), dumps.stored, t.tr("positions"), positions_text(dumps, t)));
  if (nope && e.query_beta != 0) {
    row(t.tr("expected"), t.tr("the query times t(p) (S20): layers {0} ({1}) of {2} have no RoPE", describe_layers(nope->layers),
                               escape_controls(nope->layer_type), escape_controls(nope->model)));
  } else if (nope) {
    row(t.tr("expected"), t.tr("unchanged: layers {0} ({1}) of {2} have no RoPE", describe_layers(nope->layers),
                               escape_controls(nope->layer_type), escape_controls(nope->model)));
  } else {
    // Gemma 4's vision tower (V6): the layout inside each axis's block.
    row(t.tr("expected"),
        e.axis_blocks
            ? t.tr("{0} layout inside each axis's block of d/2 channels ({1}), rotary dim {2} of {3}, base {4}, attention "
                   "factor {5}",
                   std::string(to_string(e.layout)), where.in(t.zh()), r, e.head_dim, format_number(e.base),
                   format_number(e.attention_factor))
            : t.tr("{0} layout ({1}), rotary dim {2} of {3}, base {4}, attention factor {5}", std::string(to_string(e.layout)),
                   where.in(t.zh()), r, e.head_dim, format_number(e.base), format_number(e.attention_factor)));
  }
  if (e.axes && e.axes->vision()) {
    row(t.tr("2-D vision RoPE"),
        t.tr("{0} ({1}): pair i turns by θ_i·(p_a(i){2}), p the patch's row h or column w",
             e.axes->vision_kind, e.axes->vision_equation,
             e.axes->position_offset != 0 ? " + " + format_number(e.axes->position_offset) : ""));
  } else if (e.axes) {
    // The axis of every pair: rope frequencies --model NAME prints them.
    row("M-RoPE", t.tr("mrope_section [{0}], {1} (docs/multi-axis.md {2}): pair i turns by θ_i·p_a(i)",
                       fmt::join(e.axes->source.sections, ", "), order_name(e.axes->source.order, t),
                       axis_rule(e.axes->source.order)));
  }
  row(t.tr("scaling"), scaling_text(e, nope.has_value(), t));
  row(t.tr("error model"), e.error_model.in(t.zh()));
  row(t.tr("tolerance (C1)"),
      fmt::format("κ·a·‖x‖·(2·ε_T + ε_A·(1 + c_i·{}·θ_i)), ε_T = {} ({}), ε_A = {}, κ = {}", !e.axes ? std::string("|m|") : e.axes->position_offset != 0 ? "|p_a(i) + " + format_number(e.axes->position_offset) + "|" : std::string("|p_a(i)|"),
                  g4(epsilon(dumps.after.dtype)),
                  to_string(dumps.after.dtype), g4(angle_epsilon(angles)),
                  format_number(kToleranceSafety)));
  row(t.tr("angles (C2)"), t.tr("{0}: c_i = {1}", std::string(to_string(angles)), angle_error_formula(angles, e.base, r)));
  out << '\n';
  row(t.tr("max |Δ|/tolerance"), fmt::format("{}  ({})", ratio_text(c.max_ratio, opt.digits), t.tr("<= 1 passes")));
  row(t.tr("elements failing"), t.tr("{0} of {1}", c.failing, c.total));
  row(t.tr("positions failing"), failing_summary(
                                              c.position_ratio, t,
                                              [&](long s) { return t.tr("position {0}", position(s)); }, position));
  row(t.tr("pairs failing"), failing_summary(
                                               pair_ratio, t,
                                               [&](long i) {
                                                 const auto [a, b] = pair_channels(e, static_cast<int>(i), true);
                                                 return t.tr("pair {0}, channels ({1}, {2})", i, a, b);
                                               },
                                               [](long i) { return std::to_string(i); }));
  if (r < e.head_dim) {
    // The channels outside [offset, offset + r): after the rotated ones, or before them (DeepSeek's offset).
    const int first = e.rotary_offset > 0 ? 0 : r;
    const Eigen::VectorXd others = e.rotary_offset > 0 ? Eigen::VectorXd(c.channel_ratio.head(e.rotary_offset))
                                                       : Eigen::VectorXd(c.channel_ratio.tail(e.head_dim - r));
    row(t.tr("unrotated failing"),
        failing_summary(
            others, t, [&](long i) { return t.tr("channel {0}", first + i); },
            [&](long i) { return std::to_string(first + i); }));
  }
  if (!passed) {
    const std::vector<std::string> shown = compared({c.first_expected, c.first_got}, opt.digits, 4);  // digits.hpp: they differ
    row(t.tr("first failure"),
        t.tr("position {0}, {1}, channel {2}: expected {3}, got {4} (tolerance {5})",
             position(c.first_seq),
             vector_name(dumps, c.first_seq, c.first_group, t), c.first_channel, shown[0],
             shown[1], opt.digits ? with_digits(c.first_tolerance, *opt.digits) : g4(c.first_tolerance)));
  }
  // Not the catalog's "FAIL": rope verify, layouts and permute translate that word differently (docs/classroom.zh.md),
  // docs/cli.md quotes this verdict as it is, and an id is its English, which stays "FAIL" in both places.
  if (!segments.empty()) print_segments(out, dumps, segments, t, opt.digits);
  row(t.tr("verdict"), passed ? t.tr("PASS") : t("FAIL", "未通过"));
  if (!passed && !report.diagnosis.message.en.empty()) row(t.tr("diagnosis"), report.diagnosis.message.in(t.zh()));
  for (const Message& note : report.notes) out << t.tr("note: ") << note.in(t.zh()) << '\n';
  if (!passed && e.axes && !e.axes->vision() && dumps.axis_positions.empty()) {
    out << t.tr("note: with M-RoPE one position p is (p, p, p), a text token's; image and video tokens need their\n"
                "  t,h,w: give --axis-positions FILE (rope positions --csv writes one)\n");
  }
  if (report.only_position_zero) {
    out << t.tr("warning: every position is 0, where every layout and base agree: dump positions > 0 too\n");
  }
  return passed ? kOk : kVerifyFailed;
}

Command add_check_command(CLI::App& app) {
  auto opt = std::make_shared<CheckOptions>();
  opt->scaling.axis_blocks = true;  // (V6): the expectation's pairs inside each axis's block
  CLI::App* sub = app.add_subcommand("check", "YOUR implementation, from dumped tensors: its RoPE compared with the reference");
  add_dump_options(*sub, opt->dumps, true);
  add_base_option(*sub, opt->base);
  add_choice_option(*sub, "--layout", opt->layout, kLayoutWords, parse_layout,
                    "the pair layout the dump should have (default: the model's, else half)", "LAYOUT");
  add_choice_option(*sub, "--dtype", opt->dtype, kDTypeWords, parse_dtype,
                    "the type the dump was computed in, for the tolerance (default: the file's)", "TYPE");
  add_choice_option(*sub, "--angles", opt->angles, kAngleModelWords, parse_angle_model,
                    "how the dump's angles were computed, for the tolerance: float64, float32 (PyTorch's) or ggml "
                    "(llama.cpp's; default: ggml for a GGUF, float32 for a Hugging Face config or preset, else float64 for a float64 "
                    "dump and float32 for the others)", "MODEL");
  sub->add_flag("--query", opt->query,
                "the dump is a query: also expect the model's query scaling after RoPE, as its attention does "
                "(Ministral 3 and Mistral 4: 1 + β·ln(1 + ⌊p / L0⌋), docs/scaling.md (S21)); keys are not scaled");
  sub->add_flag("--json", opt->json, "print the report as JSON");
  add_lang_option(*sub, opt->lang);
  add_digits_option(*sub, opt->digits, "4", kDigitsHelp);
  add_scaling_options(*sub, opt->scaling);
  sub->footer("Example:\n  rope check --before data/dumps/q.npy --after data/dumps/q_rope.npy --positions 0:128");
  return {sub, [opt](std::ostream& out) { return run_check(*opt, out); }};
}

}  // namespace rope::cli
