// The corpus: every dump the NumPy ports of tests/reference/ write with a known truth (tests/reference/corpus.py: the
// variant dumps, make_dumps.py's, every port's, the partial-rotary rows of partial_rotary.py), each through check and
// identify, one row each: the truth its generator states, and the answers recorded in tests/cli/corpus_answers.json
// (check's verdict, the diagnosis with its found parameter, identify's layout, rotary dimension, family and base). A
// change that alters any answer fails the row, named; a deliberate one is recorded again with ROPE_CORPUS_WRITE=1 (the
// diff then shows every answer it moved).
//
// Each row also holds check's fast path to its exact one: every comparison the check makes by the fast path
// (compare_blocks: the dumps in memory, streamed from their files, a diagnosis's samples) is made again by the exact
// path (compare_exact) on the same inputs, and the two compared field by field, bit for bit: the counts, the values
// that are not finite, the first failure, the maxima per index and per channel, the verdict. What a pass asks the fast
// path not to compute is not compared (ComparePass): the maxima of the variants compared for their counts alone
// (counts_from), and the ratios of the pairs a norms variant's screen passes (without exact_norms: its maxima are then
// those of the pairs it checks one by one); the sums of a norms variant's squares add the same terms in another order
// where the screen passes them (per pair over the vectors, then per index), so they are compared within 2^−40
// relative, far above a few roundings of a sum of at most 2^20 terms.
//
// Which rows (corpus_cases, tests/cli/corpus.hpp): every one in rope_answer_tests (ROPE_CORPUS_EVERY_ROW; CI's
// end-to-end tier, in Release), one row of each kind of check answer in rope_tests (the sanitizer tree).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "rope/analysis/check/compare_exact.hpp"
#include "rope/analysis/check/fast/check_kernel.hpp"
#include "cli/corpus.hpp"
#include "support/cli_harness.hpp"

namespace rope {
namespace {

using Json = nlohmann::json;
using test::corpus_cases;
using test::corpus_rows;
using test::kCorpus;
using test::kCorpusAnswers;
using test::read_json;
using test::rope_cli;

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// The differences between the fast path's comparison `f` and the exact path's `e` of variant `v`, one line each.
std::vector<std::string> differences(const Variant& v, bool counts_only, bool exact_norms, const DumpComparison& f,
                                     const DumpComparison& e) {
  std::vector<std::string> out;
  const auto number = [&](const char* what, double a, double b) {
    if (!same_bits(a, b)) out.push_back(fmt::format("{}: fast {:a}, exact {:a}", what, a, b));
  };
  const auto count = [&](const char* what, long a, long b) {
    if (a != b) out.push_back(fmt::format("{}: fast {}, exact {}", what, a, b));
  };
  count("failing", f.failing, e.failing);
  count("total", f.total, e.total);
  count("passed", f.passed(), e.passed());
  if (f.group_failing != e.group_failing) out.push_back("group_failing");
  for (const auto& [name, a, b] : {std::tuple{"before", &f.before_non_finite, &e.before_non_finite},
                                   std::tuple{"after", &f.after_non_finite, &e.after_non_finite}}) {
    if (a->count != b->count || a->seq != b->seq || a->group != b->group || a->channel != b->channel ||
        !same_bits(a->value, b->value)) {
      out.push_back(fmt::format("{} non-finite: fast {} at ({}, {}, {}), exact {} at ({}, {}, {})", name, a->count,
                                a->seq, a->group, a->channel, b->count, b->seq, b->group, b->channel));
    }
  }
  count("first_seq", f.first_seq, e.first_seq);
  count("first_group", f.first_group, e.first_group);
  count("first_channel", f.first_channel, e.first_channel);
  count("first_pair", f.first_pair, e.first_pair);
  number("first_expected", f.first_expected, e.first_expected);
  number("first_got", f.first_got, e.first_got);
  number("first_tolerance", f.first_tolerance, e.first_tolerance);
  for (int i = 0; i < 2; ++i)
    number("first_x", f.first_x[i], e.first_x[i]), number("first_y", f.first_y[i], e.first_y[i]);
  if (v.norms) {
    const double rel = exact_norms ? 0.0 : 0x1p-40;
    for (const auto& [what, a, b] : {std::tuple{"norm_after2", f.norm_after2, e.norm_after2},
                                     std::tuple{"norm_expected2", f.norm_expected2, e.norm_expected2}}) {
      if (!(a == b || std::abs(a - b) <= rel * std::abs(b)))
        out.push_back(fmt::format("{}: fast {:a}, exact {:a}", what, a, b));
    }
  }
  if (counts_only || (v.norms && !exact_norms)) return out;
  number("max_ratio", f.max_ratio, e.max_ratio);
  for (Eigen::Index s = 0; s < f.position_ratio.size(); ++s) {
    if (!same_bits(f.position_ratio[s], e.position_ratio[s])) {
      number(fmt::format("position_ratio[{}]", s).c_str(), f.position_ratio[s], e.position_ratio[s]);
      break;
    }
  }
  for (Eigen::Index c = 0; c < f.channel_ratio.size(); ++c) {
    if (!same_bits(f.channel_ratio[c], e.channel_ratio[c])) {
      number(fmt::format("channel_ratio[{}]", c).c_str(), f.channel_ratio[c], e.channel_ratio[c]);
      break;
    }
  }
  return out;
}

/// Every comparison of one check, both ways: how many, and what differed.
struct Witnessed {
  std::mutex lock;
  long comparisons = 0;
  std::vector<std::string> differences;
};

/// From now on every comparison by the fast path is made again by the exact path, and the differences kept in `seen`.
void witness(Witnessed& seen) {
  set_compare_witness([&seen](const BlockShape& shape, const std::vector<AxisPosition>& positions,
                              const std::vector<Variant>& variants, const BlockFetch& fetch, const ComparePass& pass,
                              const std::vector<DumpComparison>& fast) {
    const std::vector<DumpComparison> exact = compare_exact(shape, positions, variants, fetch, pass);
    std::lock_guard<std::mutex> hold(seen.lock);
    ++seen.comparisons;
    for (std::size_t k = 0; k < variants.size(); ++k) {
      for (const std::string& d : differences(variants[k], k >= pass.counts_from, pass.exact_norms, fast[k], exact[k]))
        seen.differences.push_back(fmt::format("comparison {}, variant {}: {}", seen.comparisons, k, d));
    }
  });
}

/// The numbers of `found`, each to 6 significant digits (what a row records; compared within 1e-3 relative).
Json rounded(const Json& x) {
  if (!x.is_number_float()) return x;
  const double v = x.get<double>();
  return v == 0 || !std::isfinite(v) ? Json(v) : Json(std::stod(fmt::format("{:.6g}", v)));
}

/// What check and identify answer on one row: the facts a change must not move silently. With `seen`, every
/// comparison check makes by the fast path is made again by the exact path and the two compared (`seen`).
Json answers(const Json& row, Witnessed* seen = nullptr) {
  std::vector<std::string> check_args = {"check", "--json"}, identify_args = {"identify", "--json"};
  for (const Json& a : row["check"]) check_args.push_back(a.get<std::string>());
  for (const Json& a : row["identify"]) identify_args.push_back(a.get<std::string>());
  Json out;
  if (seen != nullptr) witness(*seen);
  const auto checked = rope_cli(check_args);
  set_compare_witness(nullptr);
  Json& c = out["check"];
  c["exit"] = checked.code;
  if (checked.code <= 1) {
    const Json r = Json::parse(checked.out);
    c["passed"] = r["passed"];
    if (r.contains("equivalent") && !r["equivalent"].is_null()) c["equivalent"] = r["equivalent"];
    const Json d = r.value("diagnosis", Json());
    if (d.is_object()) {
      c["matches"] = d.value("matches", Json());
      if (d.contains("found") && d["found"].is_object()) {
        for (const auto& [k, v] : d["found"].items()) c["found"][k] = rounded(v);
      }
      if (c["matches"].is_null() && d.contains("closest") && !d["closest"].is_null()) c["closest"] = d["closest"];
    }
  }
  const auto identified = rope_cli(identify_args);
  Json& i = out["identify"];
  i["exit"] = identified.code;
  if (identified.code <= 1) {
    const Json r = Json::parse(identified.out);
    for (const char* key : {"layout", "rotary_dim", "output_order"}) {
      if (r.contains(key) && !r[key].is_null()) i[key] = r[key];
    }
    i["rotary_offset"] = r.value("rotary_offset", 0);
    if (r.contains("family") && r["family"].is_object()) {
      i["family"] = r["family"]["family"];
      i["base"] = rounded(r["family"]["base"]);
      if (r["family"].contains("factor")) i["factor"] = rounded(r["family"]["factor"]);
    }
    if (r.contains("fope") && r["fope"].is_object()) i["fope_kept"] = r["fope"]["kept"];
    if (r.contains("xdrope") && r["xdrope"].is_object()) i["xdrope_map"] = r["xdrope"]["map"];
    if (r.contains("grid") && r["grid"].is_object()) {  // a latent grid: its widths, base and the presets that fit
      i["grid_widths"] = r["grid"]["widths"];
      i["grid_base"] = rounded(r["grid"]["base"]);
      Json names = Json::array();
      for (const Json& f : r["grid"]["families"]) names.push_back(f["family"]);
      i["grid_families"] = names;
      if (r["grid"].contains("heads")) i["grid_heads"] = r["grid"]["heads"];  // LTX's table: split's heads, or 0
      // LTX's table: the pairs a small latent turns by whole turns at every position, where there are some
      if (r["grid"].contains("whole_turns") && !r["grid"]["whole_turns"].empty())
        i["grid_whole_turns"] = r["grid"]["whole_turns"];
    }
    if (r.contains("query_heads") && !r["query_heads"].is_null()) i["query_heads"] = r["query_heads"];
    if (r.contains("heads_together") && r["heads_together"].is_object())  // a dump in heads read side by side
      i["heads_together"] = r["heads_together"]["heads"];
    if (r.contains("angles_fast_math") && r["angles_fast_math"].is_object())  // check's angles-fast-math, named
      i["angles_fast_math_bias"] = rounded(r["angles_fast_math"]["bias"]);
  }
  return out;
}

/// Whether `got` is `want`: numbers within `rel` relative (integers exactly), the rest equal.
bool same(const Json& got, const Json& want, double rel) {
  if (got.is_number_float() || want.is_number_float()) {
    if (!got.is_number() || !want.is_number()) return false;
    const double g = got.get<double>(), w = want.get<double>();
    return g == w || std::abs(g - w) <= rel * std::max(std::abs(w), 1.0);
  }
  return got == want;
}

/// Every field of `want` (nested one level: check, identify) against `got`, each difference named.
void expect_answers(const std::string& id, const Json& got, const Json& want) {
  for (const auto& [part, fields] : want.items()) {
    for (const auto& [key, value] : fields.items()) {
      const Json g = got[part].value(key, Json());
      if (key == "found") {
        for (const auto& [k, v] : value.items())
          EXPECT_PRED3(same, g.value(k, Json()), v, 1e-3) << id << ": " << part << " found " << k << " " << g;
        EXPECT_EQ(g.size(), value.size()) << id << ": " << part << " found " << g << ", recorded " << value;
        continue;
      }
      // identify's fitted numbers move with the platform's rounding; check's found ones are exact or snapped
      const double rel = part == "identify" ? 1e-2 : 1e-3;
      EXPECT_PRED3(same, g, value, rel) << id << ": " << part << " " << key << " is " << g << ", recorded " << value;
    }
    for (const auto& [key, value] : got[part].items())
      EXPECT_TRUE(fields.contains(key)) << id << ": " << part << " " << key << " " << value << " is not recorded";
  }
}

/// The truth the generator states (tests/reference/corpus.py): check's exit, variant and found parameter, what identify
/// must read.
void expect_truth(const std::string& id, const Json& got, const Json& truth) {
  EXPECT_EQ(got["check"]["exit"], truth["exit"]) << id << ": check's exit";
  if (!truth["matches"].is_null()) {
    EXPECT_EQ(got["check"].value("matches", Json()), truth["matches"]) << id << ": the variant check names";
  }
  const double rel = std::max(truth.value("found_rel", 1e-9), 1e-6);
  for (const auto& [k, v] : truth["found"].items()) {
    const Json g = got["check"].contains("found") ? got["check"]["found"].value(k, Json()) : Json();
    EXPECT_PRED3(same, g, v, std::max(rel, 1e-5)) << id << ": check's found " << k;
  }
  for (const auto& [k, v] : truth["identify"].items()) {
    const Json g = got["identify"].value(k, Json());
    EXPECT_PRED3(same, g, v, 1e-2) << id << ": identify's " << k << " is " << g << ", truly " << v;
  }
}

/// Records a row's answers in tests/cli/corpus_answers.json (ROPE_CORPUS_WRITE=1): read, replaced, written back.
void record(const std::string& id, const Json& got) {
  Json all = read_json(kCorpusAnswers);
  all[id] = got;
  std::ofstream(kCorpusAnswers) << all.dump(1) << "\n";
}

class Corpus : public ::testing::TestWithParam<std::string> {};

TEST_P(Corpus, AnswersAsRecorded) {
  const std::string& id = GetParam();
  const auto it = corpus_rows().find(id);
  ASSERT_NE(it, corpus_rows().end()) << id << " is recorded but not in " << kCorpus;
  Witnessed seen;
  const Json got = answers(it->second, &seen);
  if (got["check"]["exit"].get<int>() <= 1) EXPECT_GT(seen.comparisons, 0) << id << ": check compared nothing";
  RecordProperty("comparisons", static_cast<int>(seen.comparisons));
  for (const std::string& d : seen.differences) ADD_FAILURE() << id << ", the fast path against the exact one: " << d;
  expect_truth(id, got, it->second["truth"]);
  if (std::getenv("ROPE_CORPUS_WRITE")) return record(id, got);
  expect_answers(id, got, read_json(kCorpusAnswers)[id]);
}

INSTANTIATE_TEST_SUITE_P(Rows, Corpus, ::testing::ValuesIn(corpus_cases()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return test::case_name(info.param); });

TEST(CorpusTable, RecordsEveryRowOfTheGenerators) {
  const Json recorded = read_json(kCorpusAnswers);
  for (const auto& [id, row] : corpus_rows()) {
    if (!recorded.contains(id) && std::getenv("ROPE_CORPUS_WRITE")) {
      record(id, answers(row));
      continue;
    }
    EXPECT_TRUE(recorded.contains(id)) << id << ": no answers recorded (run the corpus with ROPE_CORPUS_WRITE=1)";
  }
}

}  // namespace
}  // namespace rope
