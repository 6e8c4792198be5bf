// The printers of rope diff's report (diff_report.hpp): the text a person reads and the value JSON writes.
#include "rope/report/diff_report.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "rope/io/csv.hpp"
#include "rope/io/tensor_file.hpp"
#include "rope/core/utf8.hpp"
#include "rope/models/layer_types.hpp"
#include "rope/report/check_report.hpp"
#include "rope/report/dump_text.hpp"
#include "rope/report/json.hpp"
#include "rope/report/printing.hpp"
#include "rope/report/text.hpp"

namespace rope {
namespace {

/// Largest number of ranges (and of segments) the text report lists.
constexpr std::size_t kRangeLines = 16;

Value diff_kind_value(const std::optional<VariantId>& k) { return k ? Value(to_string(*k)) : Value(); }

Value side_value(const std::string& name, const std::string& file, const CheckReport& r) {
  const CheckDiagnosis& d = r.diagnosis;
  Value j;
  j["name"] = name;
  j["file"] = file;
  j["passed"] = r.comparison.passed();
  j["max_ratio"] = r.comparison.max_ratio;
  j["failing"] = r.comparison.failing;
  j["total"] = r.comparison.total;
  Value& diagnosis = j["diagnosis"];
  diagnosis["matches"] = diff_kind_value(d.matches);
  diagnosis["closest"] = diff_kind_value(d.closest);
  diagnosis["message"] = d.message.en;
  if (d.no_rope) {
    diagnosis["no_rope_rotated"]["rope_matches"] = diff_kind_value(d.no_rope->rope_matches);
    diagnosis["no_rope_rotated"]["changed"] = d.no_rope->changed;
  }
  j["notes"] = english(r.notes);
  return j;
}

Value segment_side_value(const SegmentCheck& c) {
  Value v;
  v["passed"] = c.passed();
  v["max_ratio"] = c.max_ratio;
  v["failing_positions"] = c.failing_positions;
  v["diagnosis"] = c.diagnosed() ? Value(c.report->diagnosis.message.en) : Value();
  return v;
}

}  // namespace

Value diff_value(const DiffRun& run) {
  const RopeExpectation& e = run.expected;
  const DumpDiff& diff = run.diff;
  const LoadedDumps& a = run.dumps;
  Value j;
  j["passed"] = diff.passed();
  axes_assumed_value(j, a);
  Value& x = j["expected"];
  x["layout"] = std::string(to_string(e.rope.layout));
  x["rotary_dim"] = run.nope ? 0 : e.rotary_dim();
  x["head_dim"] = e.rope.head_dim;
  x["base"] = e.base();
  x["attention_factor"] = e.attention_factor();
  x["scaling"] = e.scaling;
  x["error_model"] = e.error_model.en;
  if (run.nope) {
    x["no_rope"]["layer_type"] = run.nope->layer_type;
    x["no_rope"]["layers"] = run.nope->layers;
  }
  fope_value(x, e);
  j["a"] = side_value(run.name_a, run.after_a_file, diff.a);
  j["b"] = side_value(run.name_b, run.after_b_file, diff.b);
  Value& between = j["between"];
  between["agree"] = diff.between.agree();
  between["max_ratio"] = diff.between.max_ratio;
  between["differing"] = diff.between.differing;
  between["total"] = diff.between.total;
  Value& ranges = j["ranges"] = Value::array();
  for (const DiffRange& g : diff.ranges) {
    Value r;
    r["start"] = g.start;
    r["length"] = g.length;
    r["positions"] = position_span(a, g.start, g.length);
    r["a_right"] = g.a_right;
    r["b_right"] = g.b_right;
    r["agree"] = g.agree;
    r["a_max_ratio"] = g.a_ratio;
    r["b_max_ratio"] = g.b_ratio;
    r["between_max_ratio"] = g.between_ratio;
    r["a_diagnosis"] = g.a_diagnosis.en;
    r["b_diagnosis"] = g.b_diagnosis.en;
    ranges.push_back(std::move(r));
  }
  j["range_count"] = diff.range_count;
  Value& segments = j["segments"] = Value::array();
  for (const DiffSegment& g : diff.segments) {
    if (static_cast<std::size_t>(g.a.index) >= kListedSegments) continue;  // a diagnosed one past the first
    Value s;
    s["kind"] = a.segments_are_rows ? "batch_row" : "sequence";
    s["index"] = g.a.index;
    s["start"] = g.segment().start;
    s["length"] = g.segment().length;
    s["positions"] = position_span(a, g.segment().start, g.segment().length);
    s["a"] = segment_side_value(g.a);
    s["b"] = segment_side_value(g.b);
    s["agree"] = g.differing_positions == 0;
    s["between_max_ratio"] = g.between_ratio;
    segments.push_back(std::move(s));
  }
  j["segment_count"] = diff.segment_count;
  j["failing_segment_count"] = diff.failing_segment_count;
  return j;
}

void print_diff(std::ostream& out, const DiffRun& run, const Text& t) {
  const DumpDiff& diff = run.diff;
  const LoadedDumps& a = run.dumps;
  const RopeExpectation& e = run.expected;
  const auto& nope = run.nope;
  const bool passed = diff.passed();
  // At least one space after a long label (a packed sequence's run).
  const auto row = [&](const std::string& label, const std::string& value) {
    out << fmt::format("  {:<19} {}\n", label, value);
  };
  // The names and files as typed: control characters escaped as errors escape them (the JSON escapes its own).
  const std::string name_a = escape_controls(run.name_a), name_b = escape_controls(run.name_b);
  out << t.tr("rope diff: {0} ({1}) and {2} ({3}) against RoPE({4})\n", name_a, escape_controls(run.after_a_file),
              name_b, escape_controls(run.after_b_file), escape_controls(run.before_file));
  row(t.tr("dump"),
      t.tr("[{0}] = {1}, {2} / {3}, positions {4}", std::string(to_string(a.axes)), shape_string(a.shape),
           std::string(to_string(a.after.dtype)), std::string(to_string(run.b_type)), positions_text(a, t)));
  if (a.axes_assumed) row(t.tr("axes"), axes_assumed_text(a, t));
  if (nope) {
    row(t.tr("expected"), t.tr("unchanged: layers {0} ({1}) of {2} have no RoPE", describe_layers(nope->layers),
                               escape_controls(nope->layer_type), escape_controls(nope->model)));
  } else {
    row(t.tr("expected"), expected_text(e, run.where, t));
  }
  if (e.fope) row("FoPE", fope_text(e, t));
  row(t.tr("scaling"), scaling_text(e, nope.has_value(), t));
  const auto side = [&](const std::string& name, const CheckReport& r) {
    const DumpComparison& c = r.comparison;
    std::string line = t.tr("{0} (max |Δ|/tolerance {1})",
                            c.passed() ? t.tr("PASS") : std::string(t.trc("check verdict", "FAIL")), g4(c.max_ratio));
    if (!c.passed()) line = t.tr("{0}, {1} of {2} elements off", line, c.failing, c.total);
    if (!c.passed() && !r.diagnosis.message.en.empty()) line = t.tr("{0}: {1}", line, r.diagnosis.message.in(t.lang()));
    row(name, line);
    for (const Message& note : r.notes) row("", t.tr("note: ") + note.in(t.lang()));
  };
  side(name_a, diff.a);
  side(name_b, diff.b);
  row(e.fope ? t.tr("between (D2)") : t.tr("between (D1)"),  // FoPE: the pairs' scaled rotations (dump_diff.hpp)
      diff.between.agree() ? t.tr("agree within twice the tolerance (max |Δ|/bound {0})", g4(diff.between.max_ratio))
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
  const bool runs_are_segments = diff.segment_count > 0 && diff.range_count == diff.segment_count;
  for (std::size_t k = 0; k < diff.ranges.size() && k < kRangeLines && !runs_are_segments; ++k) {
    const DiffRange& g = diff.ranges[k];
    // Packed sequences repeat their positions: the run says which sequence it is in (the last that starts at or
    // before it).
    const auto in = std::upper_bound(a.segments.begin(), a.segments.end(), g.start,
                                     [](long start, const DumpSegment& d) { return start < d.start; });
    const std::string label =
        diff.segment_count > 0 && in != a.segments.begin() && !a.segments_are_rows
            ? t.tr("sequence {0}, positions {1}", in - a.segments.begin() - 1, position_span(a, g.start, g.length))
            : t.tr("positions {0}", position_span(a, g.start, g.length));
    row(label, verdict(g.a_right, g.b_right, g.agree, g.a_diagnosis, g.b_diagnosis));
  }
  const auto range_count = static_cast<std::size_t>(diff.range_count);
  if (range_count > kRangeLines && !runs_are_segments) {
    out << (range_count <= kListedDiffRuns
                ? t.tr("  … and {0} more ranges ({1} lists them all)\n", range_count - kRangeLines, option_name("json"))
                : t.tr("  … and {0} more ranges ({1} lists the first {2})\n", range_count - kRangeLines,
                       option_name("json"), kListedDiffRuns));
  }
  // Per batch row or packed sequence, as rope check reports them, of the kept ones (the first kListedSegments and
  // the diagnosed): the diagnosed first, then the other failing ones.
  std::vector<std::size_t> order;
  for (const int pass : {0, 1, 2}) {
    for (std::size_t k = 0; k < diff.segments.size(); ++k) {
      const DiffSegment& g = diff.segments[k];
      const bool diagnosed = g.a.diagnosed() || g.b.diagnosed(), passed = g.a.passed() && g.b.passed();
      if ((pass == 0 && diagnosed) || (pass == 1 && !passed && !diagnosed) || (pass == 2 && passed)) order.push_back(k);
    }
  }
  const std::size_t shown = std::min(order.size(), kRangeLines);
  std::sort(order.begin(), order.begin() + static_cast<long>(shown));
  if (shown > 0 && !runs_are_segments) out << '\n';
  for (std::size_t n = 0; n < shown; ++n) {
    const DiffSegment& g = diff.segments[order[n]];
    const std::string label = a.segments_are_rows ? t.tr("batch row {0}", g.a.index) : t.tr("sequence {0}", g.a.index);
    const std::string where_text =
        a.segments_are_rows
            ? t.tr("positions {0}", position_span(a, g.segment().start, g.segment().length))
            : t.tr("indices {0}–{1}, positions {2}", g.segment().start, g.segment().start + g.segment().length - 1,
                   position_span(a, g.segment().start, g.segment().length));
    row(label, t.tr("{0}: {1}", where_text,
                    verdict(g.a.passed(), g.b.passed(), g.differing_positions == 0,
                            g.a.diagnosed() ? g.a.report->diagnosis.message : Message(),
                            g.b.diagnosed() ? g.b.report->diagnosis.message : Message())));
  }
  long failing = diff.failing_segment_count;
  for (std::size_t n = 0; n < shown; ++n) {
    const DiffSegment& g = diff.segments[order[n]];
    failing -= g.a.passed() && g.b.passed() ? 0 : 1;
  }
  out << more_segments_text(diff.segment_count - static_cast<long>(shown), failing, t);
  const bool a_ok = diff.a.comparison.passed(), b_ok = diff.b.comparison.passed();
  row(t.tr("verdict"), passed           ? t.tr("PASS")
                       : !a_ok && !b_ok ? t.tr("FAIL: both are wrong")
                                        : t.tr("FAIL: {0} is wrong", a_ok ? name_b : name_a));
}

}  // namespace rope
