// The fast path held to the exact one: every dump of the corpus (tests/reference/corpus.py, the rows of
// tests/cli/corpus_answers.json) checked as a user checks it, `rope check --json`, with every comparison the check
// makes by the fast path (compare_blocks: the dumps in memory, streamed from their files, a diagnosis's samples) made
// again by the exact path (compare_exact) on the same inputs, and the two compared field by field, bit for bit: the
// counts, the values that are not finite, the first failure, the maxima per index and per channel, the verdict.
//
// What a pass asks the fast path not to compute is not compared (ComparePass): the maxima of the variants compared
// for their counts alone (counts_from), and the ratios of the pairs a norms variant's screen passes (without
// exact_norms: its maxima are then those of the pairs it checks one by one); the sums of a norms variant's squares add
// the same terms in another order where the screen passes them (per pair over the vectors, then per index), so they
// are compared within 2^−40 relative, far above a few roundings of a sum of at most 2^20 terms.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
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
using test::rope_cli;

using test::corpus_ids;
using test::corpus_rows;
using test::kCorpus;
using test::kCorpusAnswers;
using test::read_json;

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

class CheckExactPath : public ::testing::TestWithParam<std::string> {
 protected:
  void TearDown() override { set_compare_witness(nullptr); }
};

TEST_P(CheckExactPath, FastPathIsTheExactOneBitForBit) {
  const auto it = corpus_rows().find(GetParam());
  ASSERT_NE(it, corpus_rows().end()) << GetParam() << " is recorded but not in " << kCorpus;
  Witnessed seen;
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
  std::vector<std::string> args = {"check", "--json"};
  for (const Json& a : it->second["check"]) args.push_back(a.get<std::string>());
  const auto checked = rope_cli(args);
  set_compare_witness(nullptr);
  EXPECT_EQ(checked.code, it->second["truth"]["exit"].get<int>()) << checked.err;  // the row as its truth says
  if (checked.code <= 1) {                                                         // a refused row may compare nothing
    EXPECT_GT(seen.comparisons, 0) << checked.out;
  }
  RecordProperty("comparisons", static_cast<int>(seen.comparisons));
  for (const std::string& d : seen.differences) ADD_FAILURE() << GetParam() << ": " << d;
}

INSTANTIATE_TEST_SUITE_P(Corpus, CheckExactPath, ::testing::ValuesIn(corpus_ids()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return test::case_name(info.param); });

}  // namespace
}  // namespace rope
