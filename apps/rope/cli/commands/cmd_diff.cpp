// rope diff: two implementations' outputs for the same input and positions, each checked against the reference
// of rope check (check.hpp) and compared with each other under (D1) of rope/analysis/dump_diff.hpp: which one is
// right where, and what separates them, per range of positions.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <fmt/format.h>
#include <array>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>

#include "rope/analysis/dump_diff.hpp"
#include "rope/cli/choice_option.hpp"
#include "rope/cli/commands.hpp"
#include "rope/cli/commands/check_options.hpp"
#include "rope/report/check_report.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/output.hpp"
#include "rope/report/printing.hpp"
#include "rope/core/error.hpp"
#include "rope/io/tensor_stream.hpp"
#include "rope/models/layer_types.hpp"
#include "rope/models/layers_without_rope.hpp"

namespace rope::cli {
namespace {

struct DiffOptions {
  CheckOptions check;  ///< check.dumps.after: --after-a
  std::string after_b;
  std::string name_a = "A", name_b = "B";
};

/// Largest number of ranges the text report lists.
constexpr std::size_t kRangeLines = 16;

/// Both outputs must have one shape: said with the options the user typed, before either is read whole.
void require_same_shape(const DiffOptions& opt) {
  if (!TensorStream::streamable(opt.check.dumps.after) || !TensorStream::streamable(opt.after_b)) return;
  TensorReadOptions read;
  read.bf16_bits = opt.check.dumps.bf16_bits, read.tensor = opt.check.dumps.tensor;
  const std::vector<long> a = TensorStream::open(opt.check.dumps.after, read).header().shape;
  const std::vector<long> b = TensorStream::open(opt.after_b, read).header().shape;
  if (a != b) {
    throw InvalidArgument(error_msg("--after-b '{0}' has shape {1}, --after-a '{2}' has {3}: they must be equal",
                                    escape_for_message(opt.after_b), shape_string(b), escape_for_message(opt.check.dumps.after),
                                    shape_string(a)));
  }
}

nlohmann::json side_json(const std::string& name, const std::string& file, const CheckReport& r) {
  const CheckDiagnosis& d = r.diagnosis;
  nlohmann::json j = {{"name", name}, {"file", file}, {"passed", r.comparison.passed()}, {"max_ratio", r.comparison.max_ratio},
                      {"failing", r.comparison.failing}, {"total", r.comparison.total}};
  j["diagnosis"] = {{"matches", d.matches ? nlohmann::json(to_string(*d.matches)) : nlohmann::json()},
                    {"closest", d.closest ? nlohmann::json(to_string(*d.closest)) : nlohmann::json()},
                    {"message", d.message.en}};
  if (d.no_rope) {
    j["diagnosis"]["no_rope_rotated"] = {
        {"rope_matches", d.no_rope->rope_matches ? nlohmann::json(to_string(*d.no_rope->rope_matches)) : nlohmann::json()},
        {"changed", d.no_rope->changed}};
  }
  j["notes"] = nlohmann::json::array();
  for (const Message& m : r.notes) j["notes"].push_back(m.en);
  return j;
}

/// One side of the diff: its two dumps in memory, or read from their files in pieces (open_dumps).
struct Side {
  Side(const DumpOptions& options, const std::optional<DType>& dtype) : dumps(open_dumps(options)) {
    if (dtype) dumps.after.dtype = dumps.before.dtype = *dtype;
    if (dtype && dumps.stream) dumps.stream->set_dtype(*dtype);
    if (!dumps.stream) memory.emplace(dumps.before, dumps.after);  // refers to `dumps`: a Side is never copied or moved
  }
  Side(const Side&) = delete;
  Side& operator=(const Side&) = delete;
  LoadedDumps dumps;
  std::optional<MemorySource> memory;
  const DumpSource& source() const { return dumps.stream ? static_cast<const DumpSource&>(*dumps.stream) : *memory; }
  /// The dumps at the sequence indices [s0, s1): before and after.
  std::pair<DumpVectors, DumpVectors> read(long s0, long s1) const {
    if (dumps.stream) {
      std::vector<long> indices;
      for (long s = s0; s < s1; ++s) indices.push_back(s);
      return dumps.stream->read(indices, dumps.stream->groups());
    }
    const auto cut = [&](const DumpVectors& v) {
      DumpVectors out = v;
      const long per = v.groups() * v.d;
      out.seq = s1 - s0;
      out.values.assign(v.values.begin() + s0 * per, v.values.begin() + s1 * per);
      return out;
    };
    return {cut(dumps.before), cut(dumps.after)};
  }
};

int run_diff(const DiffOptions& opt, std::ostream& out) {
  const Text t(opt.check.lang);
  require_same_shape(opt);
  DumpOptions b_options = opt.check.dumps;
  b_options.after = opt.after_b;
  // Both sides left on disk when their files allow it (.npy, safetensors): memory holds a block at a time.
  const Side side_a(opt.check.dumps, opt.check.dtype), side_b(b_options, opt.check.dtype);
  const LoadedDumps& a = side_a.dumps;
  double max_position = 0;
  for (const double p : a.positions) max_position = std::max(max_position, p);
  for (const AxisPosition& p : a.axis_positions) max_position = std::max(max_position, p.max_abs());
  Message where;
  // A layer without RoPE (--layer-type of NoPE or linear-attention layers): both outputs should be the input unchanged.
  const std::optional<LayersWithoutRope> nope = layers_without_rope(opt.check.scaling.source, opt.check.scaling.rope);
  const RopeExpectation e = nope ? unchanged_expectation(a.after.d, check_settings(opt.check))
                                 : expectation_from_settings(check_settings(opt.check), a.after.d, !a.axis_positions.empty(), max_position, where);
  const std::vector<AxisPosition> positions = positions_as_axes(a.positions, a.axis_positions);
  const DiffReader read = [&](long s0, long s1) {
    auto [before, after_a] = side_a.read(s0, s1);
    return std::array<DumpVectors, 3>{std::move(before), std::move(after_a), side_b.read(s0, s1).second};
  };
  DumpDiff diff = diff_sources(side_a.source(), side_b.source(), read, positions, e, a.segments, a.segments_are_rows);
  if (nope) {  // what rotated a side that should be unchanged, on the whole and on each run (dump_diff.hpp)
    diagnose_no_rope_diff(diff, side_a.source(), side_b.source(), positions, e,
                          rope_of_other_layers(check_settings(opt.check), a.after.d, !a.axis_positions.empty(), max_position),
                          escape_controls(nope->model), escape_controls(nope->layer_type), describe_layers(nope->layers));
  }
  const DType type_b = side_b.dumps.after.dtype;
  const auto position = [&](long s) {
    return a.axis_positions.empty() ? format_number(a.positions[static_cast<std::size_t>(s)])
                                    : a.axis_positions[static_cast<std::size_t>(s)].text();
  };
  const auto span = [&](long start, long length) {
    return length == 1 ? position(start) : position(start) + "–" + position(start + length - 1);
  };
  const bool passed = diff.passed();
  if (opt.check.json) {
    nlohmann::json j;
    j["passed"] = passed;
    j["expected"] = {{"layout", std::string(to_string(e.layout))}, {"rotary_dim", e.rotary_dim()}, {"head_dim", e.head_dim},
                     {"base", e.base}, {"attention_factor", e.attention_factor}, {"scaling", e.scaling},
                     {"error_model", e.error_model.en}};
    if (nope) {
      j["expected"]["rotary_dim"] = 0;
      j["expected"]["no_rope"] = {{"layer_type", nope->layer_type}, {"layers", nope->layers}};
    }
    j["a"] = side_json(opt.name_a, opt.check.dumps.after, diff.a);
    j["b"] = side_json(opt.name_b, opt.after_b, diff.b);
    j["between"] = {{"agree", diff.between.agree()}, {"max_ratio", diff.between.max_ratio},
                    {"differing", diff.between.differing}, {"total", diff.between.total}};
    j["ranges"] = nlohmann::json::array();
    for (const DiffRange& g : diff.ranges) {
      j["ranges"].push_back({{"start", g.start}, {"length", g.length}, {"positions", span(g.start, g.length)}, {"a_right", g.a_right},
                             {"b_right", g.b_right}, {"agree", g.agree}, {"a_max_ratio", g.a_ratio},
                             {"b_max_ratio", g.b_ratio}, {"between_max_ratio", g.between_ratio},
                             {"a_diagnosis", g.a_diagnosis.en}, {"b_diagnosis", g.b_diagnosis.en}});
    }
    j["segments"] = nlohmann::json::array();
    for (const DiffSegment& g : diff.segments) {
      const auto one = [](const SegmentCheck& c) {
        return nlohmann::json{{"passed", c.passed()}, {"max_ratio", c.max_ratio}, {"failing_positions", c.failing_positions},
                              {"diagnosis", c.passed() ? nlohmann::json() : nlohmann::json(c.report.diagnosis.message.en)}};
      };
      j["segments"].push_back({{"kind", a.segments_are_rows ? "batch_row" : "sequence"}, {"start", g.segment().start},
                               {"length", g.segment().length}, {"positions", span(g.segment().start, g.segment().length)},
                               {"a", one(g.a)}, {"b", one(g.b)}, {"agree", g.differing_positions == 0},
                               {"between_max_ratio", g.between_ratio}});
    }
    out << json_text(j) << '\n';
    return passed ? kOk : kVerifyFailed;
  }
  // At least one space after a long label (a packed sequence's run).
  const auto row = [&](const std::string& label, const std::string& value) { out << fmt::format("  {:<19} {}\n", label, value); };
  // The names and files as typed: control characters escaped as errors escape them (the JSON escapes its own).
  const std::string name_a = escape_controls(opt.name_a), name_b = escape_controls(opt.name_b);
  out << t.tr("rope diff: {0} ({1}) and {2} ({3}) against RoPE({4})\n", name_a, escape_controls(opt.check.dumps.after), name_b,
              escape_controls(opt.after_b), escape_controls(opt.check.dumps.before));
  row(t.tr("dump"), fmt::format("[{}] = {}, {} / {}, {} {}", to_string(a.axes), shape_string(a.shape), to_string(a.after.dtype),
                                to_string(type_b), t.tr("positions"), positions_text(a, t)));
  if (nope) {
    row(t.tr("expected"), t.tr("unchanged: layers {0} ({1}) of {2} have no RoPE", describe_layers(nope->layers),
                               escape_controls(nope->layer_type), escape_controls(nope->model)));
  } else {
    // Gemma 4's vision tower (V6): the layout inside each axis's block.
    row(t.tr("expected"),
        e.axis_blocks
            ? t.tr("{0} layout inside each axis's block of d/2 channels ({1}), rotary dim {2} of {3}, base {4}, attention "
                   "factor {5}",
                   std::string(to_string(e.layout)), where.in(t.lang()), e.rotary_dim(), e.head_dim, format_number(e.base),
                   format_number(e.attention_factor))
            : t.tr("{0} layout ({1}), rotary dim {2} of {3}, base {4}, attention factor {5}", std::string(to_string(e.layout)),
                   where.in(t.lang()), e.rotary_dim(), e.head_dim, format_number(e.base), format_number(e.attention_factor)));
  }
  row(t.tr("scaling"), scaling_text(e, nope.has_value(), t));
  const auto side = [&](const std::string& name, const CheckReport& r) {
    const DumpComparison& c = r.comparison;
    std::string line = t.tr("{0} (max |Δ|/tolerance {1})", c.passed() ? t.tr("PASS") : std::string(t.trc("check verdict", "FAIL")), g4(c.max_ratio));
    if (!c.passed()) line = t.tr("{0}, {1} of {2} elements off", line, c.failing, c.total);
    if (!c.passed() && !r.diagnosis.message.en.empty()) line = t.tr("{0}: {1}", line, r.diagnosis.message.in(t.lang()));
    row(name, line);
    for (const Message& note : r.notes) row("", t.tr("note: ") + note.in(t.lang()));
  };
  side(name_a, diff.a);
  side(name_b, diff.b);
  row(t.tr("between (D1)"), diff.between.agree()
                                ? t.tr("agree within twice the tolerance (max |Δ|/bound {0})", g4(diff.between.max_ratio))
                                : t.tr("differ: {0} of {1} elements (max |Δ|/bound {2})", diff.between.differing,
                                       diff.between.total, g4(diff.between.max_ratio)));
  out << '\n';
  // Who is right on a run or a segment, and what the wrong one does there.
  const auto verdict = [&](bool a_right, bool b_right, bool agree, const Message& a_why, const Message& b_why) {
    std::string line;
    if (a_right && b_right) {
      line = agree ? t.tr("both right") : t.tr("both right, yet they differ beyond (D1)");
    } else if (a_right || b_right) {
      const bool a_wrong = !a_right;
      line = t.tr("{0} right, {1} wrong", a_wrong ? name_b : name_a, a_wrong ? name_a : name_b);
      const Message& why = a_wrong ? a_why : b_why;
      if (!why.en.empty()) line = t.tr("{0}: {1}", line, why.in(t.lang()));
    } else {
      line = agree ? t.tr("both wrong, the same way") : t.tr("both wrong, differently");
      if (!a_why.en.empty()) line = t.tr("{0}; {1}: {2}", line, name_a, a_why.in(t.lang()));
      if (!b_why.en.empty()) line = t.tr("{0}; {1}: {2}", line, name_b, b_why.in(t.lang()));
    }
    return line;
  };
  // Runs that are each a whole segment (a decode batch's rows) are said by the segments' lines below.
  const bool runs_are_segments = !diff.segments.empty() && diff.ranges.size() == diff.segments.size();
  for (std::size_t k = 0; k < diff.ranges.size() && k < kRangeLines && !runs_are_segments; ++k) {
    const DiffRange& g = diff.ranges[k];
    // Packed sequences repeat their positions: the run says which sequence it is in.
    const auto in = std::find_if(diff.segments.begin(), diff.segments.end(), [&](const DiffSegment& d) {
      return d.segment().start <= g.start && g.start < d.segment().start + d.segment().length;
    });
    const std::string label = in != diff.segments.end() && !a.segments_are_rows
                                  ? t.tr("sequence {0}, positions {1}", in - diff.segments.begin(), span(g.start, g.length))
                                  : t.tr("positions {0}", span(g.start, g.length));
    row(label, verdict(g.a_right, g.b_right, g.agree, g.a_diagnosis, g.b_diagnosis));
  }
  if (diff.ranges.size() > kRangeLines && !runs_are_segments) out << t.tr("  … and {0} more ranges (--json lists them all)\n", diff.ranges.size() - kRangeLines);
  // Per batch row or packed sequence, as rope check reports them: the ones where either side fails first.
  std::vector<std::size_t> order;
  for (const bool failing : {true, false}) {
    for (std::size_t k = 0; k < diff.segments.size(); ++k) {
      if ((diff.segments[k].a.passed() && diff.segments[k].b.passed()) != failing) order.push_back(k);
    }
  }
  const std::size_t shown = std::min(order.size(), kRangeLines);
  std::sort(order.begin(), order.begin() + static_cast<long>(shown));
  if (shown > 0 && !runs_are_segments) out << '\n';
  for (std::size_t n = 0; n < shown; ++n) {
    const DiffSegment& g = diff.segments[order[n]];
    const std::string label = a.segments_are_rows ? t.tr("batch row {0}", order[n]) : t.tr("sequence {0}", order[n]);
    const std::string where_text = a.segments_are_rows ? t.tr("positions {0}", span(g.segment().start, g.segment().length))
                                                       : t.tr("indices {0}–{1}, positions {2}", g.segment().start,
                                                              g.segment().start + g.segment().length - 1,
                                                              span(g.segment().start, g.segment().length));
    row(label, t.tr("{0}: {1}", where_text,
                    verdict(g.a.passed(), g.b.passed(), g.differing_positions == 0, g.a.report.diagnosis.message,
                            g.b.report.diagnosis.message)));
  }
  if (order.size() > shown) out << t.tr("  … and {0} more that pass\n", order.size() - shown);
  const bool a_ok = diff.a.comparison.passed(), b_ok = diff.b.comparison.passed();
  row(t.tr("verdict"), passed ? t.tr("PASS") : !a_ok && !b_ok ? t.tr("FAIL: both are wrong")
                                                              : t.tr("FAIL: {0} is wrong", a_ok ? name_b : name_a));
  return passed ? kOk : kVerifyFailed;
}

}  // namespace

Command add_diff_command(CLI::App& app) {
  auto opt = std::make_shared<DiffOptions>();
  opt->check.scaling.axis_blocks = true;  // (V6): the expectation's pairs inside each axis's block
  CLI::App* sub = app.add_subcommand("diff", "two implementations' outputs for the same input: which one is right where, and why");
  add_dump_options(*sub, opt->check.dumps, true, false);
  sub->add_option("--after-a", opt->check.dumps.after, "the first implementation's output (after RoPE), same shape as --before")
      ->required()->type_name("FILE");
  sub->add_option("--after-b", opt->after_b, "the second implementation's output, same shape")->required()->type_name("FILE");
  sub->add_option("--name-a", opt->name_a, "a name for the first implementation in the report (default A)")->type_name("NAME");
  sub->add_option("--name-b", opt->name_b, "a name for the second implementation in the report (default B)")->type_name("NAME");
  add_base_option(*sub, opt->check.base);
  add_choice_option(*sub, "--layout", opt->check.layout, kLayoutWords, parse_layout,
                    "the pair layout the outputs should have (default: the model's, else half)", "LAYOUT");
  add_choice_option(*sub, "--dtype", opt->check.dtype, kDTypeWords, parse_dtype,
                    "the type both outputs were computed in, for the tolerance (default: each file's)", "TYPE");
  add_choice_option(*sub, "--angles", opt->check.angles, kAngleModelWords, parse_angle_model,
                    "how the outputs' angles were computed, for the tolerance (as rope check --angles)", "MODEL");
  sub->add_flag("--json", opt->check.json, "print the report as JSON");
  add_lang_option(*sub, opt->check.lang);
  add_scaling_options(*sub, opt->check.scaling);
  sub->footer("Example:\n  rope diff --before data/dumps/q.npy --after-a data/dumps/q_rope.npy "
              "--after-b data/dumps/q_rope.npy --name-a trainer --name-b rollout");
  return {sub, [opt](std::ostream& out) { return run_diff(*opt, out); }};
}

}  // namespace rope::cli
