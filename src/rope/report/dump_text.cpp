#include "rope/report/dump_text.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "rope/io/csv.hpp"
#include "rope/core/utf8.hpp"
#include "rope/core/message.hpp"
#include "rope/report/text.hpp"
#include "rope/report/value.hpp"

namespace rope {

std::string positions_text(const LoadedDumps& dumps, const Text& t) {
  if (dumps.positions_text.empty()) {  // given as an array (the Python module): said from its numbers
    const std::vector<double>& p = dumps.positions;
    if (dumps.positions_assumed || p.empty()) return fmt::format("0:{}", dumps.after.seq) + t.tr(" (assumed)");
    bool run = true;  // 0, 1, 2, … from its first
    for (std::size_t i = 1; i < p.size() && run; ++i) run = p[i] == p[0] + static_cast<double>(i);
    if (run)
      return fmt::format("{}:{}", format_number(p.front()), format_number(p.front() + static_cast<double>(p.size())));
    const auto [low, high] = std::minmax_element(p.begin(), p.end());
    return t.tr("an array of {0}, from {1} to {2}", p.size(), format_number(*low), format_number(*high));
  }
  if (!dumps.axis_positions.empty()) {
    return t.tr("per axis ({0} components) from {1}", dumps.axis_positions.front().count,
                escape_controls(dumps.positions_text));
  }
  // As typed (a file's name among them): control characters escaped as errors escape them.
  return dumps.positions_assumed ? dumps.positions_text + t.tr(" (assumed)") : escape_controls(dumps.positions_text);
}

bool position_follows(const LoadedDumps& dumps, long last, long next) {
  if (!dumps.axis_positions.empty() || dumps.positions.empty()) return true;
  return dumps.positions[static_cast<std::size_t>(next)] == dumps.positions[static_cast<std::size_t>(last)] + 1.0;
}

std::string position_span(const LoadedDumps& dumps, long start, long length) {
  const auto at = [&](long s) {
    return dumps.axis_positions.empty() ? format_number(dumps.positions[static_cast<std::size_t>(s)])
                                        : dumps.axis_positions[static_cast<std::size_t>(s)].text();
  };
  constexpr int kRuns = 4;
  std::string text;
  int runs = 0;
  for (long first = start, end = start + length; first < end; ++runs) {
    long last = first;
    while (last + 1 < end && position_follows(dumps, last, last + 1)) ++last;
    if (runs == kRuns) return text + ", …";
    text += (runs ? ", " : "") + at(first) + (last > first ? "–" + at(last) : "");
    first = last + 1;
  }
  return text;
}

std::string axes_assumed_text(const LoadedDumps& dumps, const Text& t) {
  if (!dumps.axes_assumed) return "";
  if (dumps.axes == DumpAxes::BatchSeqHeadsD) {  // the assumed reading failed, the other one fit (run_check, identify)
    return t.tr(
        "{0}, read as [batch, seq, heads, d]: as [batch, heads, seq, d] (Hugging Face's q and k where "
        "apply_rotary_pos_emb runs, assumed first) the dump does not fit; give {1} {0}",
        to_string(dumps.axes), option_name("axes"));
  }
  return t.tr(
      "{0} assumed, the shape of Hugging Face's q and k where apply_rotary_pos_emb runs; give {1} {2} to "
      "read the dump as [batch, seq, heads, d]",
      to_string(dumps.axes), option_name("axes"), to_string(DumpAxes::BatchSeqHeadsD));
}

void axes_assumed_value(Value& j, const LoadedDumps& dumps) {
  if (!dumps.axes_assumed) return;
  j["axes"] = std::string(to_string(dumps.axes));
  j["axes_assumed"] = true;
}

std::string vector_name(const LoadedDumps& dumps, long s, long group, const Text& t) {
  if (dumps.segments_are_rows && !dumps.segments.empty()) {
    return t.tr("batch {0}, head {1}", s / dumps.segments.front().length, group);
  }
  return group_name(dumps.after, group, t);
}

std::string group_name(const DumpVectors& dump, long group, const Text& t) {
  if (dump.batch > 1) return t.tr("batch {0}, head {1}", group / dump.heads, group % dump.heads);
  return t.tr("head {0}", group);
}

}  // namespace rope
