#include "rope/report/dump_text.hpp"

#include "rope/io/utf8.hpp"
#include "rope/report/text.hpp"

namespace rope {

std::string positions_text(const LoadedDumps& dumps, const Text& t) {
  if (!dumps.axis_positions.empty()) {
    return t.tr("per axis ({0} components) from {1}", dumps.axis_positions.front().count,
                escape_controls(dumps.positions_text));
  }
  // As typed (a file's name among them): control characters escaped as errors escape them.
  return dumps.positions_assumed ? dumps.positions_text + t.tr(" (assumed)") : escape_controls(dumps.positions_text);
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
