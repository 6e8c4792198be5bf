#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <pybind11/stl.h>

#include "rope/core/dtype.hpp"

namespace rope::python {

namespace py = pybind11;

namespace {

py::object kind_or_none(const std::optional<VariantKind>& k) { return k ? py::cast(std::string(to_string(*k))) : py::none(); }

py::object position_at(const DumpPair& pair, long s) {
  const auto at = static_cast<std::size_t>(s);
  if (pair.axis_positions.empty()) return py::cast(pair.positions[at]);
  py::list p;
  for (int k = 0; k < pair.axis_positions[at].count; ++k) p.append(pair.axis_positions[at].value[static_cast<std::size_t>(k)]);
  return p;
}

py::dict diagnosis_dict(const CheckDiagnosis& d) {
  py::dict out;
  out["matches"] = kind_or_none(d.matches);
  out["message"] = d.message.en;
  out["swapped_groups"] = d.swapped_groups;
  out["restarts"] = d.restarts;
  out["closest"] = kind_or_none(d.closest);
  out["closest_explained"] = d.closest ? py::cast(d.closest_explained) : py::none();
  out["correct_until"] = d.correct_until ? py::cast(*d.correct_until) : py::none();
  return out;
}

}  // namespace

py::dict report_dict(const DumpPair& pair, const RopeExpectation& e) {
  const std::vector<AxisPosition> positions = pair.check_positions();
  CheckReport report = check_dump(pair.before, pair.after, positions, e);
  std::vector<SegmentCheck> segments = pair.segments.size() > 1
                                           ? check_segments(pair.before, pair.after, positions, e, pair.segments, report.comparison)
                                           : std::vector<SegmentCheck>{};
  if (pair.segments_are_rows) diagnose_rows(report, segments, positions);
  const DumpComparison& c = report.comparison;
  const int r = e.rotary_dim();
  const AngleModel angles = e.angles.value_or(default_angle_model(pair.after.dtype));
  py::dict j;
  j["passed"] = c.passed();
  j["max_ratio"] = c.max_ratio;
  j["failing"] = c.failing;
  j["total"] = c.total;
  py::dict expected;
  expected["layout"] = std::string(to_string(e.layout));
  expected["rotary_dim"] = r;
  expected["rotary_offset"] = e.rotary_offset;
  expected["head_dim"] = e.head_dim;
  expected["base"] = e.base;
  expected["attention_factor"] = e.attention_factor;
  expected["scaling"] = e.scaling;
  expected["error_model"] = e.error_model.en;
  j["expected"] = expected;
  j["dtype"] = std::string(to_string(pair.after.dtype));
  j["angles"] = std::string(to_string(angles));
  j["only_position_zero"] = report.only_position_zero;
  py::list notes;
  for (const Message& n : report.notes) notes.append(n.en);
  j["notes"] = notes;
  py::list segs;
  for (const SegmentCheck& g : segments) {
    py::dict seg;
    seg["kind"] = pair.segments_are_rows ? "batch_row" : "sequence";
    seg["start"] = g.segment.start;
    seg["length"] = g.segment.length;
    seg["passed"] = g.passed();
    seg["max_ratio"] = g.max_ratio;
    seg["failing_positions"] = g.failing_positions;
    if (!g.passed()) seg["diagnosis"] = diagnosis_dict(g.report.diagnosis);
    segs.append(seg);
  }
  j["segments"] = segs;
  // The sequence indices (with their positions) and the pairs (with their channels) where some element fails.
  py::list failing_positions, failing_pairs;
  for (Eigen::Index s = 0; s < c.position_ratio.size(); ++s) {
    if (c.position_ratio[s] > 1.0) failing_positions.append(py::make_tuple(s, position_at(pair, s)));
  }
  for (int i = 0; i < r / 2; ++i) {  // the channels the pair is written to (de-interleaved output: not those it is read from)
    const auto [a, b] = pair_channels(e, i, true);
    if (std::max(c.channel_ratio[a], c.channel_ratio[b]) > 1.0) failing_pairs.append(py::make_tuple(i, a, b));
  }
  j["failing_positions"] = failing_positions;
  j["failing_pairs"] = failing_pairs;
  if (!c.passed()) {
    py::dict first;
    first["position"] = position_at(pair, c.first_seq);
    first["index"] = c.first_seq;
    first["group"] = c.first_group;
    first["channel"] = c.first_channel;
    first["expected"] = c.first_expected;
    first["got"] = c.first_got;
    first["tolerance"] = c.first_tolerance;
    j["first_failure"] = first;
    j["diagnosis"] = diagnosis_dict(report.diagnosis);
    py::dict v;
    for (const auto& [kind, comparison] : report.variants) v[to_string(kind)] = comparison.failing;
    j["variants_failing"] = v;
  } else {
    j["diagnosis"] = py::none();
  }
  return j;
}

py::dict identification_dict(const Identification& id) {
  py::dict j;
  j["d"] = id.d;
  j["rotary_dim"] = id.rotary_dim;
  j["layout"] = std::string(to_string(id.layout));
  j["pairs"] = id.pairs;
  j["attention_factor"] = id.attention_factor;
  j["norm_residual"] = id.norm_residual;
  j["theta"] = std::vector<double>(id.theta.data(), id.theta.data() + id.theta.size());
  j["angle_residual"] = std::vector<double>(id.angle_residual.data(), id.angle_residual.data() + id.angle_residual.size());
  py::list fits;
  for (const FamilyFit& f : id.fits) {
    py::dict fit;
    fit["family"] = std::string(to_string(f.family));
    fit["base"] = f.base;
    fit["factor"] = f.factor;
    fit["ramp_low"] = f.ramp_low;
    fit["ramp_high"] = f.ramp_high;
    fit["residual"] = f.residual;
    fits.append(fit);
  }
  j["family"] = fits.empty() ? py::object(py::none()) : py::object(fits[0]);
  j["fits"] = fits;
  py::list notes;
  for (const Message& n : id.notes) notes.append(n.en);
  j["notes"] = notes;
  j["position_offset"] = id.position_offset;
  j["jumps"] = id.jumps;
  j["undetermined"] = id.undetermined;
  j["reversed"] = id.reversed;
  j["heads_paired_otherwise"] = id.heads_paired_otherwise;
  j["pairing_assumed"] = id.pairing_assumed;
  if (id.axes) {
    py::dict mrope;
    mrope["pair_axis"] = id.axes->pair_axis;
    mrope["sections"] = id.axes->sections.empty() ? py::object(py::none()) : py::cast(id.axes->sections);
    mrope["order"] = id.axes->order ? py::object(py::str(to_string(*id.axes->order))) : py::object(py::none());
    j["mrope"] = mrope;
  }
  return j;
}

}  // namespace rope::python
