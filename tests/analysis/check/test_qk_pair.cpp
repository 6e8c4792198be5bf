// q and k checked together (rope/analysis/check/qk_pair.hpp, issue 78 item 2) on dumps written by NumPy alone
// (tests/reference/qk_pairs.py): HF's half and GPT-J's interleaved pairs under GQA (8 query heads, 2 key-value heads)
// at positions to 131 071 pass, each tensor and the identity ⟨R_m q, R_n k⟩ = qᵀ R_(n−m) k; ColossalAI PR #6429's
// crossed q/k and k read with q's head count, and TensorRT-LLM PR #16378's RoPE applied twice with YaRN's magnitude,
// are each named in the diagnosis of the tensor they explain.
#include <gtest/gtest.h>

#include <string>

#include "rope/analysis/check/check_run.hpp"
#include "rope/analysis/check/check_table.hpp"

namespace rope {
namespace {

const std::string kQk = std::string(ROPE_REFERENCE_DIR) + "/qk_pairs/";

struct QkCase {
  const char* name;
  const char* q_after;
  const char* k_after;
  bool interleaved, yarn;
  const char* q_kind;  ///< "expected": q passes; else q's diagnosis
  const char* k_kind;
  bool pair_passes;
  const char* pair_kind;  ///< the pair's match ("" none)
};

const QkCase kCases[] = {
    {"HalfPasses", "q_half", "k_half", false, false, "expected", "expected", true, ""},
    {"InterleavedPasses", "q_interleaved", "k_interleaved", true, false, "expected", "expected", true, ""},
    {"YarnPasses", "q_yarn", "k_yarn", false, true, "expected", "expected", true, ""},
    {"Crossed", "q_crossed", "k_crossed", false, false, "qk-crossed", "qk-crossed", false, "qk-crossed"},
    {"KWithQueryHeads", "q_half", "k_query_heads", false, false, "expected", "k-with-query-heads", false,
     "k-with-query-heads"},
    {"AppliedTwiceYarn", "q_yarn_twice", "k_yarn_twice", false, true, "rope-applied-twice", "rope-applied-twice", false,
     "rope-applied-twice"},
};

CheckRequest qk_request(const QkCase& c) {
  CheckRequest r;
  r.dumps.before = kQk + "q.npy";
  r.dumps.after = kQk + c.q_after + ".npy";
  r.dumps.positions = "0,1,7,4095,4096,32768,65535,131071";
  r.keys = KeyDumps{kQk + "k.npy", kQk + c.k_after + ".npy", "", ""};
  r.settings.layout = c.interleaved ? Layout::Interleaved : Layout::Half;
  if (c.yarn) {  // qk_pairs.py's YARN: HF's YaRN, factor 4 over 4096 positions
    r.settings.rope.scaling = "yarn";
    r.settings.rope.factor = 4;
    r.settings.rope.original_max_position_embeddings = 4096;
  }
  return r;
}

void expect_verdict(const CheckRun& run, const char* kind, const char* which) {
  if (std::string(kind) == "expected") {
    EXPECT_TRUE(run.passed()) << which << ": " << run.report.diagnosis.message.en;
    return;
  }
  EXPECT_FALSE(run.passed()) << which;
  ASSERT_TRUE(run.report.diagnosis.matches.has_value()) << which << ": " << run.report.diagnosis.message.en;
  EXPECT_STREQ(to_string(*run.report.diagnosis.matches), kind) << which << ": " << run.report.diagnosis.message.en;
}

class QkPair : public ::testing::TestWithParam<QkCase> {};

TEST_P(QkPair, EachTensorAndTheIdentity) {
  const QkCase& c = GetParam();
  const CheckRun run = run_check(qk_request(c));
  ASSERT_NE(run.k, nullptr);
  ASSERT_TRUE(run.pair.has_value());
  expect_verdict(run, c.q_kind, "q");
  expect_verdict(*run.k, c.k_kind, "k");
  const QkPairCheck& p = *run.pair;
  EXPECT_TRUE(p.measured);
  EXPECT_EQ(p.q_heads, 8);
  EXPECT_EQ(p.k_heads, 2);
  EXPECT_EQ(p.indices, 8);  // every one of the 8 positions: 64 (m, n) pairs, each with the 8 query heads
  EXPECT_EQ(p.pairs_sampled, 64);
  EXPECT_EQ(p.scores, 64 * 8);
  EXPECT_EQ(p.passed(), c.pair_passes) << p.max_ratio;
  if (c.pair_passes) {
    EXPECT_LE(p.max_score_error, p.tolerance);
  } else {
    EXPECT_GT(p.max_score_error, p.tolerance);
  }
  EXPECT_EQ(p.matches ? std::string(to_string(*p.matches)) : std::string(), c.pair_kind);
  EXPECT_EQ(run.all_passed(), c.pair_passes && std::string(c.q_kind) == "expected");
}

INSTANTIATE_TEST_SUITE_P(Dumps, QkPair, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<QkCase>& i) { return std::string(i.param.name); });

TEST(QkPair, KWithQueryHeadsNamesBothCounts) {
  const CheckRun run = run_check(qk_request(kCases[4]));
  const auto& found = run.k->report.diagnosis.found;
  ASSERT_EQ(found.size(), 2U);
  EXPECT_EQ(found[0], (std::pair<std::string, double>{"q_heads", 8}));
  EXPECT_EQ(found[1], (std::pair<std::string, double>{"k_heads", 2}));
}

// The crossed kernel under the attention's GQA head map (q head h with k head h / 4): found nothing more. Under the
// other map (k head h mod 2, q head g; tests/reference/diagnosis_2026.py's qk_crossed_modulo, d 128): named with
// heads_modulo and both head counts, in q and in k.
TEST(QkPair, CrossedNamesTheHeadMapItHoldsUnder) {
  const CheckRun run = run_check(qk_request(kCases[3]));
  ASSERT_TRUE(run.pair.has_value());
  EXPECT_TRUE(run.pair->found.empty());
  EXPECT_TRUE(run.report.diagnosis.found.empty());
  const std::string d = std::string(ROPE_VARIANT_DUMPS) + "/../corpus/diagnosis_2026/qk_crossed_modulo/";
  CheckRequest r;
  r.dumps.before = d + "q.npy";
  r.dumps.after = d + "q_rope.npy";
  r.dumps.positions = "0,1,7,4095,4096,32768,65535,131071";
  r.keys = KeyDumps{d + "k.npy", d + "k_rope.npy", "", ""};
  r.settings.layout = Layout::Half;
  const CheckRun modulo = run_check(r);
  ASSERT_TRUE(modulo.pair.has_value());
  ASSERT_NE(modulo.k, nullptr);
  EXPECT_TRUE(modulo.pair->names_q && modulo.pair->names_k);
  for (const CheckRun* side : {&modulo, modulo.k.get()}) {
    ASSERT_TRUE(side->report.diagnosis.matches.has_value());
    EXPECT_STREQ(to_string(*side->report.diagnosis.matches), "qk-crossed");
    const std::vector<std::pair<std::string, double>> want{{"heads_modulo", 1}, {"q_heads", 8}, {"k_heads", 2}};
    EXPECT_EQ(side->report.diagnosis.found, want);
  }
}

// The pair's tolerance (Q2) follows from (C1): float32-sized, its angle term growing with the positions (at 131 071,
// ε_f32·c_i·|m|·θ_i with κ = 8: about 1.6e-3 of the score's scale), and a correct float32 pair well within it (the
// largest error at a score of positions 4095 and 0, about 1 % of its bound).
TEST(QkPair, ToleranceIsFloat32Sized) {
  const CheckRun run = run_check(qk_request(kCases[0]));
  EXPECT_LT(run.pair->max_ratio, 0.1);
  EXPECT_LT(run.pair->tolerance, 1e-2);
  EXPECT_GT(run.pair->tolerance, 1e-7);
  EXPECT_LT(run.pair->max_score_error, 1e-4);
}

}  // namespace
}  // namespace rope
