// The printers of every rank of a run checked in one run, and the merge of its ranks' reports
// (check_ranks_report.hpp).
#include "rope/report/check_ranks_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <system_error>

#include "rope/analysis/dumps/cp_positions.hpp"
#include "rope/core/error.hpp"
#include "rope/io/csv.hpp"
#include "rope/io/text_file.hpp"
#include "rope/io/json_reader.hpp"
#include "rope/core/utf8.hpp"
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

bool RankRow::passed() const {
  const Value* p = check.find("passed");
  return p != nullptr && p->kind() == Value::Kind::Bool && p->boolean();
}

namespace {

/// A number of a row (NaN where missing, null or not a number).
double number_of(const Value& check, const char* key) {
  const Value* m = check.find(key);
  if (m == nullptr) return std::numeric_limits<double>::quiet_NaN();
  switch (m->kind()) {
    case Value::Kind::Double:
      return m->number();
    case Value::Kind::Int:
      return static_cast<double>(m->integer());
    case Value::Kind::UInt:
      return static_cast<double>(m->uinteger());
    default:
      return std::numeric_limits<double>::quiet_NaN();
  }
}

}  // namespace

double RankRow::max_ratio() const { return number_of(check, "max_ratio"); }

std::optional<bool> verdict_from_numbers(const Value& check) {
  const double failing = number_of(check, "failing"), max_ratio = number_of(check, "max_ratio");
  if (!(failing >= 0) || failing != std::floor(failing)) return std::nullopt;
  const Value* equivalent = check.find("equivalent");
  if (equivalent != nullptr && equivalent->kind() == Value::Kind::String) return true;
  return failing == 0 && !(max_ratio > 1);
}

bool CheckRanksReport::passed() const {
  return std::all_of(ranks.begin(), ranks.end(), [](const RankRow& r) { return r.passed(); });
}

std::vector<long> CheckRanksReport::failing_ranks() const {
  std::vector<long> out;
  for (const RankRow& r : ranks) {
    if (!r.passed()) out.push_back(r.rank);
  }
  return out;
}

RankRow rank_row(const CheckedRank& r) {
  RankRow row;
  row.rank = r.rank;
  row.file = r.file;
  row.after_file = r.after_file;
  row.check = check_value(r.run);
  if (!r.run.passed()) row.diagnosis = r.run.report.diagnosis.message;
  row.first_position = r.first_position;
  row.last_position = r.last_position;
  row.matches_rank = r.matches_rank;
  if (r.matches_layout) row.matches_layout = to_string(*r.matches_layout);
  return row;
}

CheckRanksReport ranks_report(const CheckRanksRun& run) {
  CheckRanksReport out;
  out.cp_size = run.batch.cp_size;
  out.layout = to_string(run.batch.layout);
  if (run.positions_from_files) {
    out.positions_tensor = run.positions_tensor;
  } else {
    out.sequence_starts = run.batch.sequence_starts;
  }
  for (const CheckedRank& r : run.ranks) out.ranks.push_back(rank_row(r));
  return out;
}

namespace {

using detail::json;

/// The rank's keys of a row, beside its single check's (check_ranks_value writes them).
constexpr const char* kRowKeys[] = {"rank",          "file",         "after_file",    "first_position",
                                    "last_position", "matches_rank", "matches_layout"};

Value to_value(const json& j) {
  switch (j.type()) {
    case json::value_t::boolean:
      return Value(j.get<bool>());
    case json::value_t::number_integer:
      return Value(j.get<long long>());
    case json::value_t::number_unsigned:
      return Value(j.get<unsigned long long>());
    case json::value_t::number_float:
      return Value(j.get<double>());
    case json::value_t::string:
      return Value(j.get<std::string>());
    case json::value_t::array: {
      Value a = Value::array();
      for (const json& x : j) a.push_back(to_value(x));
      return a;
    }
    case json::value_t::object: {
      Value o = Value::object();
      for (auto it = j.begin(); it != j.end(); ++it) o[it.key()] = to_value(it.value());
      return o;
    }
    default:
      return Value();
  }
}

/// The values `j` holds (itself, and every element and member within), counted up to `budget` + 1.
std::size_t values_in(const json& j, std::size_t budget) {
  std::size_t n = 1;
  if (j.is_array() || j.is_object()) {
    for (const json& x : j) {
      if (n > budget) break;
      n += values_in(x, budget - n);
    }
  }
  return n;
}

[[noreturn]] void not_a_rank_report(const std::string& path, const std::string& what) {
  throw InvalidArgument(error_msg("{0}: not a report of ranks, as rope check {1} {2} writes it: {3}",
                                  escape_controls(path, kQuotedBytes), option_name("rank_files"), option_name("json"),
                                  what));
}

/// A whole number of the report (rank, cp size, a start): 0 … 2^53.
long whole(const json& v, const std::string& path, const std::string& key) {
  if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<long long>() < 0) ||
      v.get<double>() > 9007199254740992.0) {
    not_a_rank_report(path, fmt::format("'{}' is not a whole number", key));
  }
  return static_cast<long>(v.get<long long>());
}

const json& field(const json& obj, const char* key, const std::string& path) {
  const auto it = obj.find(key);
  if (it == obj.end()) not_a_rank_report(path, fmt::format("no '{}'", key));
  return *it;
}

/// The reports' paths: each file as given, each directory's *.json files in name order; at most kMaxMergedReports.
std::vector<std::string> report_paths(const std::vector<std::string>& given) {
  std::vector<std::string> out;
  const auto add = [&](const std::string& p) {
    if (out.size() >= kMaxMergedReports) {
      throw InvalidArgument(error_msg("{0} names more than {1} reports", option_name("merge"), kMaxMergedReports));
    }
    out.push_back(p);
  };
  for (const std::string& g : given) {
    std::error_code ec;
    if (!std::filesystem::is_directory(g, ec)) {
      add(g);
      continue;
    }
    std::vector<std::string> in_dir;
    for (std::filesystem::directory_iterator it(g, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().extension() != ".json") continue;
      if (in_dir.size() >= kMaxMergedReports) {
        throw InvalidArgument(error_msg("{0} names more than {1} reports", option_name("merge"), kMaxMergedReports));
      }
      in_dir.push_back(it->path().string());
    }
    if (ec)
      throw IoError(error_msg("cannot read the directory '{0}': {1}", escape_controls(g, kQuotedBytes), ec.message()));
    std::sort(in_dir.begin(), in_dir.end());
    for (const std::string& p : in_dir) add(p);
  }
  if (out.empty())
    throw InvalidArgument(error_msg("{0} names no report (a directory of no *.json)", option_name("merge")));
  return out;
}

}  // namespace

namespace {

/// The merge of reports, one at a time: each report's text parsed, its rows kept as values, the text and its parse
/// dropped before the next is read (memory: the rows, and one report's parse).
struct Merging {
  CheckRanksReport out;
  std::vector<std::string> rank_path;   // the report each rank's row came from
  std::string first_path, first_check;  // the first report's name; the first row's mode and expectation, as JSON
  std::size_t count = 0, total = 0, values = 0;

  bool plain = false;   // the reports are plain `rope check --json` reports, one rank each
  std::string rank_of;  // the pattern a plain report's rank is read by in its path (rank_of_path); "": its rules

  /// Rank `rank`'s row comes from `path`: refused when another report gave that rank already. Its index in rank_path.
  /// @pre rank < rank_path.size()
  std::size_t claim(const std::string& path, long rank) {
    const auto k = static_cast<std::size_t>(rank);
    if (!rank_path[k].empty()) {
      throw InvalidArgument(error_msg("two reports of rank {0}: '{1}' and '{2}'", rank,
                                      escape_controls(rank_path[k], kQuotedBytes),
                                      escape_controls(path, kQuotedBytes)));
    }
    rank_path[k] = path;
    return k;
  }

  /// One check for every rank: the same mode and expectation (the model, its scaling, layout and dimensions).
  void same_check(const std::string& path, const json& check) {
    json spec = json::object();
    spec["mode"] = check.value("mode", json("forward"));
    spec["expected"] = check.value("expected", json());
    const std::string spec_text = spec.dump();
    if (first_check.empty()) {
      first_check = spec_text;
    } else if (spec_text != first_check) {
      throw InvalidArgument(
          error_msg("'{0}' is a report of another check than '{1}' (its mode or expected RoPE "
                    "differs): merge the reports of one run",
                    escape_controls(path, kQuotedBytes), escape_controls(first_path, kQuotedBytes)));
    }
  }

  /// The row's check kept as a value (the rows bound the memory), its diagnosis, and its verdict held to its numbers.
  void keep(const std::string& path, RankRow& row, const json& check) {
    if (const auto d = check.find("diagnosis"); !check["passed"].get<bool>() && d != check.end() && d->is_object()) {
      if (const auto msg = d->find("message"); msg != d->end() && msg->is_string())
        row.diagnosis = Message::same(msg->get<std::string>());
    }
    values += values_in(check, kMaxMergedValues - std::min(values, kMaxMergedValues));
    if (values > kMaxMergedValues) {
      throw InvalidArgument(error_msg("{0}: the reports' rows hold more than {1} values in all (at rank {2} of '{3}')",
                                      option_name("merge"), kMaxMergedValues, row.rank,
                                      escape_controls(path, kQuotedBytes)));
    }
    row.check = to_value(check);
    // The verdict the row's numbers give, which its "passed" must be (a report edited, or of another check).
    const std::optional<bool> verdict = verdict_from_numbers(row.check);
    if (!verdict)
      not_a_rank_report(path, fmt::format("rank {} without whole 'failing' or numeric 'max_ratio'", row.rank));
    if (*verdict != row.passed()) {
      const std::string name = escape_controls(path, kQuotedBytes), ratio = fmt::format("{:.4g}", row.max_ratio());
      const double failing = number_of(row.check, "failing");
      throw InvalidArgument(row.passed()
                                ? error_msg("{0}: rank {1} says it passed beside numbers that fail ({2} failing, max "
                                            "|Δ|/tolerance {3}): not a report rope check wrote",
                                            name, row.rank, failing, ratio)
                                : error_msg("{0}: rank {1} says it failed beside numbers that pass ({2} failing, max "
                                            "|Δ|/tolerance {3}): not a report rope check wrote",
                                            name, row.rank, failing, ratio));
    }
  }

  void add(const std::string& path, const std::string& text) {
    if (++count > kMaxMergedReports) {
      throw InvalidArgument(error_msg("{0} names more than {1} reports", option_name("merge"), kMaxMergedReports));
    }
    if (text.size() > kMaxRankReportBytes) {
      throw InvalidArgument(error_msg("the report '{0}' is larger than the {1}-byte limit",
                                      escape_controls(path, kQuotedBytes), kMaxRankReportBytes));
    }
    total += text.size();
    if (total > kMaxMergedReportBytes) {
      throw InvalidArgument(error_msg("{0}: the reports are larger than the {1}-byte limit in all",
                                      option_name("merge"), kMaxMergedReportBytes));
    }
    const json j = detail::parse_json(text, escape_controls(path, kQuotedBytes), kMaxRankReportBytes);
    if (!j.is_object()) not_a_rank_report(path, "not an object");
    // A plain `rope check --json` report: one rank's check, its rank read from the report's file name.
    const bool plain_report = !j.contains("ranks") && j.contains("passed");
    if (count > 1 && plain_report != plain) {
      throw InvalidArgument(
          error_msg("'{0}' and '{1}' are reports of two kinds (a plain rope check report and a report of ranks): "
                    "merge the reports of one run, of one kind",
                    escape_controls(first_path, kQuotedBytes), escape_controls(path, kQuotedBytes)));
    }
    plain = plain_report;
    if (!plain && !rank_of.empty()) {
      throw InvalidArgument(
          error_msg("{0}: {1} reads a plain check report's rank from its path, and this report of "
                    "ranks names its ranks: leave out {2}",
                    escape_controls(path, kQuotedBytes), option_name("rank_of"), option_name("rank_of")));
    }
    if (plain) {
      add_plain(path, j);
      return;
    }
    const json& rows = field(j, "ranks", path);
    const json& starts = field(j, "sequence_starts", path);
    const json& layout = field(j, "cp_layout", path);
    if (!rows.is_array() || !starts.is_array() || !layout.is_string())
      not_a_rank_report(path, "'ranks', 'sequence_starts' or 'cp_layout' of another type");
    const long cp = whole(field(j, "cp_size", path), path, "cp_size");
    if (cp < 1 || cp > kMaxRankFiles) not_a_rank_report(path, "'cp_size' out of range");
    if (starts.size() > static_cast<std::size_t>(kMaxCpTokens) + 1)
      not_a_rank_report(path, "more sequence starts than tokens");
    std::vector<long> batch_starts;
    for (const json& s : starts) batch_starts.push_back(whole(s, path, "sequence_starts"));
    std::string tensor;
    if (const auto t = j.find("positions_tensor"); t != j.end() && !t->is_null()) {
      if (!t->is_string() || t->get<std::string>().empty()) not_a_rank_report(path, "'positions_tensor' is not a name");
      tensor = t->get<std::string>();
    }
    // The batch as --rank-files validates it: a layout it names, starts it splits (or none beside a positions tensor).
    const std::optional<CpLayout> parsed = parse_cp_layout(layout.get<std::string>());
    if (!parsed)
      not_a_rank_report(path, fmt::format("the layout '{}' is not zigzag, round-robin or contiguous",
                                          escape_controls(layout.get<std::string>(), kQuotedBytes)));
    if (tensor.empty()) {
      try {
        check_cp_batch({batch_starts, cp, 0, *parsed});
      } catch (const InvalidArgument& e) {
        throw InvalidArgument(error_msg("{0}: {1}", escape_controls(path, kQuotedBytes),
                                        e.message() != nullptr ? *e.message() : Message::same(e.what())));
      }
    } else if (!batch_starts.empty()) {
      not_a_rank_report(path, "sequence starts beside a positions tensor");
    }
    if (first_path.empty()) {
      first_path = path;
      out.cp_size = cp;
      out.layout = layout.get<std::string>();
      out.sequence_starts = batch_starts;
      out.positions_tensor = tensor;
      rank_path.assign(static_cast<std::size_t>(cp), "");
      out.ranks.resize(static_cast<std::size_t>(cp));
    } else if (cp != out.cp_size || layout.get<std::string>() != out.layout || batch_starts != out.sequence_starts ||
               tensor != out.positions_tensor) {
      throw InvalidArgument(
          error_msg("'{0}' is a report of another batch than '{1}' (its cp size, layout or sequence "
                    "starts differ): merge the reports of one run",
                    escape_controls(path, kQuotedBytes), escape_controls(first_path, kQuotedBytes)));
    }
    for (const json& r : rows) {
      if (!r.is_object()) not_a_rank_report(path, "a rank that is not an object");
      RankRow row;
      row.rank = whole(field(r, "rank", path), path, "rank");
      if (row.rank >= cp) not_a_rank_report(path, fmt::format("rank {} beyond its cp size {}", row.rank, cp));
      const json& file = field(r, "file", path);
      if (!file.is_string()) not_a_rank_report(path, "'file' is not a text");
      row.file = file.get<std::string>();
      if (const auto a = r.find("after_file"); a != r.end() && a->is_string()) row.after_file = a->get<std::string>();
      const json& first = field(r, "first_position", path);
      const json& last = field(r, "last_position", path);
      if (!first.is_number() || !last.is_number()) not_a_rank_report(path, "a positions span that is not a number");
      row.first_position = first.get<double>();
      row.last_position = last.get<double>();
      const json& m = field(r, "matches_rank", path);
      if (!m.is_null()) row.matches_rank = whole(m, path, "matches_rank");
      const json& ml = field(r, "matches_layout", path);
      if (ml.is_string()) row.matches_layout = ml.get<std::string>();
      json check = r;
      for (const char* key : kRowKeys) check.erase(key);
      if (!check.contains("passed") || !check["passed"].is_boolean())
        not_a_rank_report(path, "a rank without 'passed'");
      same_check(path, check);
      const std::size_t k = claim(path, row.rank);
      keep(path, row, check);
      out.ranks[k] = std::move(row);
    }
  }

  /// One rank's plain check report (`rope check … --json`): its rank from the file's name (rank_of_path: the number
  /// after "rank", else the name's only number), its positions not in the report.
  void add_plain(const std::string& path, const json& j) {
    if (first_path.empty()) first_path = path;
    RankRow row;
    row.rank = rank_of_path(path, rank_of);
    if (row.rank >= kMaxRankFiles) not_a_rank_report(path, fmt::format("rank {} beyond the limit", row.rank));
    row.file = path;
    row.positions_known = false;
    if (!j["passed"].is_boolean()) not_a_rank_report(path, "'passed' is not true or false");
    same_check(path, j);
    if (static_cast<std::size_t>(row.rank) >= rank_path.size())
      rank_path.resize(static_cast<std::size_t>(row.rank) + 1);
    const std::size_t k = claim(path, row.rank);
    keep(path, row, j);
    if (out.ranks.size() <= k) out.ranks.resize(k + 1);
    out.ranks[k] = std::move(row);
  }

  CheckRanksReport finish() {
    if (count == 0) throw InvalidArgument(error_msg("no report to merge"));
    if (plain) {  // every rank 0 … n − 1, each with its report
      out.plain = true;
      out.cp_size = static_cast<long>(out.ranks.size());
    }
    for (long r = 0; r < out.cp_size; ++r) {
      if (rank_path[static_cast<std::size_t>(r)].empty()) {
        throw InvalidArgument(error_msg("{0} has no report of rank {1} (cp size {2}: ranks 0 … {3})",
                                        option_name("merge"), r, out.cp_size, out.cp_size - 1));
      }
    }
    return std::move(out);
  }
};

}  // namespace

CheckRanksReport merge_rank_reports(const std::vector<std::string>& paths_given, const std::string& rank_of) {
  if (!rank_of.empty()) check_rank_pattern(rank_of);
  const std::vector<std::string> paths = report_paths(paths_given);
  // Every size before any report is read.
  std::uintmax_t total = 0;
  for (const std::string& p : paths) {
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(p, ec);
    if (ec) continue;  // read_text_file names what is wrong with it
    if (size > kMaxRankReportBytes) {
      throw InvalidArgument(error_msg("the report '{0}' is larger than the {1}-byte limit",
                                      escape_controls(p, kQuotedBytes), kMaxRankReportBytes));
    }
    total += size;
    if (total > kMaxMergedReportBytes) {
      throw InvalidArgument(error_msg("{0}: the reports are larger than the {1}-byte limit in all",
                                      option_name("merge"), kMaxMergedReportBytes));
    }
  }
  Merging m;
  m.rank_of = rank_of;
  for (const std::string& path : paths) m.add(path, read_text_file(path, option_name("merge"), kMaxRankReportBytes));
  return m.finish();
}

CheckRanksReport merge_rank_report_texts(const std::vector<RankReportText>& reports) {
  Merging m;
  for (const RankReportText& r : reports) m.add(r.name, r.text);
  return m.finish();
}

Value check_ranks_value(const CheckRanksReport& run) {
  Value v = Value::object();
  v["cp_size"] = run.cp_size;
  v["cp_layout"] = run.plain ? Value() : Value(run.layout);
  Value starts = Value::array();
  for (const long s : run.sequence_starts) starts.push_back(s);
  v["sequence_starts"] = std::move(starts);
  v["positions_tensor"] = run.positions_tensor.empty() ? Value() : Value(run.positions_tensor);
  Value ranks = Value::array();
  for (const RankRow& r : run.ranks) {
    Value one = r.check;
    one["rank"] = r.rank;
    one["file"] = r.file;
    if (!r.after_file.empty()) one["after_file"] = r.after_file;
    one["first_position"] = r.positions_known ? Value(r.first_position) : Value();
    one["last_position"] = r.positions_known ? Value(r.last_position) : Value();
    one["matches_rank"] = r.matches_rank ? Value(*r.matches_rank) : Value();
    one["matches_layout"] = r.matches_layout.empty() ? Value() : Value(r.matches_layout);
    ranks.push_back(std::move(one));
  }
  v["ranks"] = std::move(ranks);
  v["passed"] = run.passed();
  Value failing = Value::array();
  for (const long r : run.failing_ranks()) failing.push_back(r);
  v["failing_ranks"] = std::move(failing);
  return v;
}

void print_check_ranks(std::ostream& out, const CheckRanksReport& run, const Text& t) {
  const std::vector<long> failing = run.failing_ranks();
  if (run.plain) {
    out << t.tr(
        "rope check: {0} ranks' own reports (rope check {1}, each rank read from its report's file name), compared "
        "with no packed batch: a rank checked at wrong positions passes\n",
        run.ranks.size(), option_name("json"));
  } else if (run.positions_tensor.empty()) {
    out << t.tr("rope check: {0} ranks of a packed batch (sequence starts {1}, {2}, cp size {3})\n", run.ranks.size(),
                starts_text(run.sequence_starts), run.layout, run.cp_size);
  } else {
    out << t.tr(
        "rope check: {0} ranks, each at its file's positions (tensor '{1}'), compared with no packed batch: a rank "
        "whose positions are wrong in its file passes\n",
        run.ranks.size(), run.positions_tensor);
  }
  for (const RankRow& r : run.ranks) {
    const std::string verdict = r.passed() ? t.tr("PASS") : t.trc("check verdict", "FAIL");
    std::string line = r.positions_known ? t.tr("  rank {0}  {1}  {2}  positions in [{3}, {4}]  max |Δ|/tolerance {5}",
                                                r.rank, pad(verdict, 4), r.file, format_number(r.first_position),
                                                format_number(r.last_position), fmt::format("{:.4g}", r.max_ratio()))
                                         : t.tr("  rank {0}  {1}  {2}  max |Δ|/tolerance {3}", r.rank, pad(verdict, 4),
                                                r.file, fmt::format("{:.4g}", r.max_ratio()));
    if (r.matches_rank) {
      line = t.tr("{0}: rank {1} matches rank {2}'s positions (the rank holds, or was rotated at, rank {2}'s slice)",
                  line, r.rank, *r.matches_rank);
    } else if (!r.matches_layout.empty()) {
      line = t.tr(
          "{0}: rank {1} matches its own tokens split {2}, not {3} (the rank's chunks taken in the other "
          "layout)",
          line, r.rank, r.matches_layout, run.layout);
    } else if (!r.passed() && !r.diagnosis.en.empty()) {
      line = t.tr("{0}: {1}", line, r.diagnosis.in(t.lang()));
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
