// The printers of every rank of a run checked in one run (check_ranks_report.hpp).
#include "rope/report/check_ranks_report.hpp"

#include <fmt/format.h>

#include "rope/io/csv.hpp"
#include "rope/report/check_report.hpp"
#include "rope/report/json.hpp"
#include "rope/report/printing.hpp"
#include "rope/report/text.hpp"

namespace rope {

namespace {

std::string starts_text(const std::vector<long>& starts) {
  std::string out;
  for (const long v : starts) out += (out.empty() ? "" : ",") + std::to_string(v);
  return out;
}

}  // namespace

Value check_ranks_value(const CheckRanksRun& run) {
  Value v = Value::object();
  v["cp_size"] = run.batch.cp_size;
  v["cp_layout"] = std::string(to_string(run.batch.layout));
  Value starts = Value::array();
  for (const long s : run.batch.sequence_starts) starts.push_back(s);
  v["sequence_starts"] = std::move(starts);
  Value ranks = Value::array();
  for (const CheckedRank& r : run.ranks) {
    Value one = check_value(r.run);
    one["rank"] = r.rank;
    one["file"] = r.file;
    if (!r.after_file.empty()) one["after_file"] = r.after_file;
    one["first_position"] = r.first_position;
    one["last_position"] = r.last_position;
    one["matches_rank"] = r.matches_rank ? Value(*r.matches_rank) : Value();
    one["matches_layout"] = r.matches_layout ? Value(std::string(to_string(*r.matches_layout))) : Value();
    ranks.push_back(std::move(one));
  }
  v["ranks"] = std::move(ranks);
  v["passed"] = run.passed();
  Value failing = Value::array();
  for (const long r : run.failing_ranks()) failing.push_back(r);
  v["failing_ranks"] = std::move(failing);
  return v;
}

void print_check_ranks(std::ostream& out, const CheckRanksRun& run, const Text& t) {
  const std::vector<long> failing = run.failing_ranks();
  out << t.tr("rope check: {0} ranks of a packed batch (sequence starts {1}, {2}, cp size {3})\n", run.ranks.size(),
              starts_text(run.batch.sequence_starts), to_string(run.batch.layout), run.batch.cp_size);
  for (const CheckedRank& r : run.ranks) {
    const std::string verdict = r.run.passed() ? t.tr("PASS") : t.trc("check verdict", "FAIL");
    std::string line = t.tr("  rank {0}  {1}  {2}  positions {3}–{4}  max |Δ|/tolerance {5}", r.rank, pad(verdict, 4),
                            r.file, format_number(r.first_position), format_number(r.last_position),
                            fmt::format("{:.4g}", r.run.report.comparison.max_ratio));
    if (r.matches_rank) {
      line = t.tr("{0}: rank {1} matches rank {2}'s positions (the rank holds, or was rotated at, rank {2}'s slice)",
                  line, r.rank, *r.matches_rank);
    } else if (r.matches_layout) {
      line = t.tr(
          "{0}: rank {1} matches its own tokens split {2}, not {3} (the rank's chunks taken in the other "
          "layout)",
          line, r.rank, to_string(*r.matches_layout), to_string(run.batch.layout));
    } else if (!r.run.passed() && !r.run.report.diagnosis.message.en.empty()) {
      line = t.tr("{0}: {1}", line, r.run.report.diagnosis.message.in(t.lang()));
    }
    out << line << '\n';
  }
  if (failing.empty()) {
    out << t.tr("  verdict  PASS: every rank of {0} passes\n", run.ranks.size());
  } else {
    out << t.tr("  verdict  FAIL: {0} of {1} ranks fail (ranks {2})\n", failing.size(), run.ranks.size(),
                starts_text(failing));
  }
}

}  // namespace rope
