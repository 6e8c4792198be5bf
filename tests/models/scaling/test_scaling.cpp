#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <map>
#include <set>

#include "support/reference_data.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/models/scaling/scaling.hpp"
#include "models/scaling/scaling_test_util.hpp"

// The methods without a file of their own (default, linear, ntk, dynamic, proportional), ReRoPE, the
// checks every method shares, and the NumPy reference grid: rope/models/scaling/scaling.cpp. Sources:
// tests/models/scaling/scaling_test_util.hpp.

namespace rope {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;
using namespace scaling_test;

TEST(Scaling, DefaultMatchesHfGoldenVector) {
  // docs/scaling.md §11 (HF test test_default_rope_numerically): inv[1] = 0.86596 (0.8659643234), inv[63] = 1.1548e-4
  // (1.1547819847e-4), attention 1.
  const RopeParameters p = rope_parameters(hf_llama(ScalingType::Default));
  ASSERT_EQ(p.inv_freq.size(), 64);
  EXPECT_EQ(p.inv_freq[0], 1.0);
  EXPECT_TRUE(RelNear(p.inv_freq[1], 0.8659643234, 1e-9));
  EXPECT_TRUE(RelNear(p.inv_freq[63], 1.1547819847e-4, 1e-9));
  EXPECT_EQ(p.attention_factor, 1.0);
  EXPECT_EQ(p.factor, 1.0);
  EXPECT_TRUE(p.bands.empty());
  EXPECT_FALSE(p.effective_base);
  EXPECT_FALSE(p.yarn_range);
  EXPECT_TRUE(p.warnings.empty());
}

TEST(Scaling, DefaultUsesTheRotaryDimensionInTheExponent) {
  // docs/scaling.md: only d = int(head_dim · partial_rotary_factor) channels rotate and the exponent uses d.
  // Phi-2: 80 × 0.4 = 32 (docs/scaling.md).
  RopeConfig c;
  c.head_dim = 80;
  c.partial_rotary_factor = 0.4;
  EXPECT_EQ(c.rotary_dim(), 32);
  const RopeParameters p = rope_parameters(c);
  ASSERT_EQ(p.inv_freq.size(), 16);
  EXPECT_DOUBLE_EQ(p.inv_freq[15], std::pow(1e4, -30.0 / 32.0));
}

TEST(Scaling, LinearDividesEveryFrequencyByTheFactor) {
  // (S2); HF test test_linear_rope_numerically: factors 2, 10, 20, attention 1.
  const Eigen::VectorXd theta = frequencies(128, 1e4);
  for (double f : {2.0, 10.0, 20.0}) {
    RopeConfig c = hf_llama(ScalingType::Linear);
    c.factor = f;
    const RopeParameters p = rope_parameters(c);
    for (int j = 0; j < 64; ++j) EXPECT_TRUE(RelNear(p.inv_freq[j], theta[j] / f, 1e-15)) << f << " " << j;
    EXPECT_EQ(p.attention_factor, 1.0);
    EXPECT_EQ(p.factor, f);
  }
}

TEST(Scaling, NtkBaseMatchesTableAndStretchesTheLowestPairByExactlyTheFactor) {
  // docs/scaling.md §11: base' = base · s^(d/(d−2)), d = 128, base 1e4: 20 221.26, 40 889.94, 82 684.62, 167 198.74
  // (quoted to 2 decimals). The lowest pair j = 63: λ' = 2π·base'^(126/128) = 2π·base^(126/128)·s, so
  // its wavelength grows by exactly s; θ_0 stays 1.
  const Eigen::VectorXd theta = frequencies(128, 1e4);
  for (const auto& [s, expected] : {std::pair{2.0, 20221.26}, {4.0, 40889.94}, {8.0, 82684.62}, {16.0, 167198.74}}) {
    RopeConfig c = hf_llama(ScalingType::Ntk);
    c.factor = s;
    const RopeParameters p = rope_parameters(c);
    ASSERT_TRUE(p.effective_base);
    EXPECT_NEAR(*p.effective_base, expected, 0.005) << s;
    EXPECT_TRUE(RelNear(theta[63] / p.inv_freq[63], s, 1e-13)) << s;
    EXPECT_EQ(p.inv_freq[0], 1.0);
    EXPECT_EQ(p.attention_factor, 1.0);
  }
}

TEST(Scaling, DynamicMatchesHfGoldenVectorAtSeqLen16384) {
  // docs/scaling.md §11 (HF test test_dynamic_rope_numerically): factor 10, seq_len 16384, M 2048:
  // base' = 759 702.231, inv[1] = 0.80931 (0.8093100749), inv[63] = 1.6265e-6 (1.6264535e-6, 8 digits).
  RopeConfig c = hf_llama(ScalingType::Dynamic);
  c.factor = 10.0;
  c.seq_len = 16384;
  const RopeParameters p = rope_parameters(c);
  ASSERT_TRUE(p.effective_base);
  EXPECT_TRUE(RelNear(*p.effective_base, 759702.231, 1e-9));
  EXPECT_TRUE(RelNear(p.inv_freq[1], 0.8093100749, 1e-9));
  EXPECT_TRUE(RelNear(p.inv_freq[63], 1.6264535e-6, 5e-8));
  EXPECT_EQ(p.attention_factor, 1.0);
  // HF: "It is NOT a linear factor".
  EXPECT_FALSE(RelNear(p.inv_freq[63], frequencies(128, 1e4)[63] / 10.0, 1e-3));
}

TEST(Scaling, DynamicEqualsDefaultUntilTheSequenceExceedsMaxPositionEmbeddings) {
  // (S4): L = max(seq_len, M); without seq_len L = M and base' = base. HF test: seq_len None and 1 give
  // the default frequencies for factors 2, 10, 20.
  const Eigen::VectorXd theta = frequencies(128, 1e4);
  for (double f : {2.0, 10.0, 20.0}) {
    for (std::optional<long> seq_len : {std::optional<long>{}, std::optional<long>{1}, std::optional<long>{2048}}) {
      RopeConfig c = hf_llama(ScalingType::Dynamic);
      c.factor = f;
      c.seq_len = seq_len;
      const RopeParameters p = rope_parameters(c);
      EXPECT_EQ(*p.effective_base, 1e4);
      for (int j = 0; j < 64; ++j) EXPECT_TRUE(RelNear(p.inv_freq[j], theta[j], 1e-15)) << f << " " << j;
    }
  }
}

TEST(Scaling, ProportionalRotatesLeadingPairsWithFullHeadDimExponentAndZerosTheRest) {
  // (S14), docs/scaling.md (HF v5.6-dev _compute_proportional_rope_parameters): Gemma-4-style global layer,
  // head_dim 512, partial_rotary_factor 0.25: n = int(0.25·512 // 2) = 64 rotated pairs with
  // θ_j = base^(−2j/512), pairs 64…255 zero; head_dim/2 = 256 entries; attention 1.
  RopeConfig c;
  c.type = ScalingType::Proportional;
  c.head_dim = 512;
  c.base = 1e6;
  c.partial_rotary_factor = 0.25;
  RopeParameters p = rope_parameters(c);
  ASSERT_EQ(p.inv_freq.size(), 256);
  ASSERT_EQ(p.bands.size(), 256u);
  for (int j = 0; j < 256; ++j) {
    if (j < 64) {
      EXPECT_DOUBLE_EQ(p.inv_freq[j], std::pow(1e6, -2.0 * j / 512.0)) << j;
      EXPECT_EQ(p.bands[static_cast<std::size_t>(j)], Band::None) << j;
    } else {
      EXPECT_EQ(p.inv_freq[j], 0.0) << j;
      EXPECT_EQ(p.bands[static_cast<std::size_t>(j)], Band::Unrotated) << j;
    }
  }
  EXPECT_EQ(p.factor, 1.0);  // default 1
  EXPECT_EQ(p.attention_factor, 1.0);
  // Every entry is divided by the factor; the count floors: int(0.3·128 // 2) = int(38.4 // 2) = 19.
  c.head_dim = 128;
  c.partial_rotary_factor = 0.3;
  c.factor = 8.0;
  p = rope_parameters(c);
  ASSERT_EQ(p.inv_freq.size(), 64);
  EXPECT_DOUBLE_EQ(p.inv_freq[18], std::pow(1e6, -36.0 / 128.0) / 8.0);
  EXPECT_EQ(p.inv_freq[19], 0.0);
  // 100 · 0.25 = 25 is an odd rotary dim elsewhere, but proportional rotates int(25 // 2) = 12 pairs.
  c.head_dim = 100;
  c.partial_rotary_factor = 0.25;
  p = rope_parameters(c);
  ASSERT_EQ(p.inv_freq.size(), 50);
  EXPECT_GT(p.inv_freq[11], 0.0);
  EXPECT_EQ(p.inv_freq[12], 0.0);
}

TEST(Scaling, ReRopeClampsTheDistanceToTheWindow) {
  // (S16): g(t) = sign(t)·min(|t|, w) (Su Jianlin, kexue.fm 9708).
  EXPECT_EQ(rerope_distance(3.0, 512.0), 3.0);
  EXPECT_EQ(rerope_distance(512.0, 512.0), 512.0);
  EXPECT_EQ(rerope_distance(10000.0, 512.0), 512.0);
  EXPECT_EQ(rerope_distance(-10000.0, 512.0), -512.0);
  EXPECT_EQ(rerope_distance(-7.0, 512.0), -7.0);
  EXPECT_EQ(rerope_distance(5.0, 0.0), 0.0);
}

TEST(Scaling, LeakyReRopeIsLinearInsideTheWindowAndShallowerBeyond) {
  // (S17): g(t) = t for |t| <= w, sign(t)·(w + (|t| − w)/k) beyond. A blog post ("LLM —— Position Embedding") writes
  // the slope as (T_max − w)/(T'_max − w): with k = (T'_max − w)/(T_max − w) the new length T'_max maps to the trained
  // T_max. T_max = 4096, T'_max = 16384, w = 512 → k = 15872/3584.
  const double k = (16384.0 - 512.0) / (4096.0 - 512.0);
  EXPECT_EQ(leaky_rerope_distance(100.0, 512.0, k), 100.0);
  EXPECT_EQ(leaky_rerope_distance(512.0, 512.0, k), 512.0);
  EXPECT_DOUBLE_EQ(leaky_rerope_distance(16384.0, 512.0, k), 4096.0);
  EXPECT_DOUBLE_EQ(leaky_rerope_distance(-16384.0, 512.0, k), -4096.0);
  EXPECT_DOUBLE_EQ(leaky_rerope_distance(1024.0, 512.0, 4.0), 640.0);  // 512 + 512/4
  // k = 1 is the identity, and a huge k approaches ReRoPE.
  EXPECT_EQ(leaky_rerope_distance(9999.0, 512.0, 1.0), 9999.0);
  EXPECT_NEAR(leaky_rerope_distance(9999.0, 512.0, 1e12), rerope_distance(9999.0, 512.0), 1e-6);
}

TEST(Scaling, ReRopeRejectsBadWindowAndSlope) {
  EXPECT_THAT([] { rerope_distance(1.0, -1.0); },
              ThrowsMessage<InvalidArgument>(HasSubstr("window w must be >= 0 (got -1)")));
  EXPECT_THAT([] { leaky_rerope_distance(1.0, 8.0, 0.5); },
              ThrowsMessage<InvalidArgument>(HasSubstr("k must be >= 1 (got 0.5)")));
  EXPECT_THAT([] { leaky_rerope_distance(1.0, 8.0, std::nan("")); },
              ThrowsMessage<InvalidArgument>(HasSubstr("finite")));
  EXPECT_THAT([] { rerope_distance(HUGE_VAL, 8.0); },
              ThrowsMessage<InvalidArgument>(HasSubstr("distance t must be a finite number")));
}

TEST(Scaling, BandNames) {
  EXPECT_EQ(to_string(Band::None), "none");
  EXPECT_EQ(to_string(Band::Kept), "kept");
  EXPECT_EQ(to_string(Band::Ramped), "ramped");
  EXPECT_EQ(to_string(Band::Interpolated), "interpolated");
  EXPECT_EQ(to_string(Band::Unrotated), "unrotated");
}

TEST(Scaling, RejectsAMissingRequiredFactor) {
  // HF _check_received_keys: `factor` is required for linear, dynamic, yarn, llama3 (KeyError). ntk
  // (not mainline) needs it too; yarn may instead derive it from M / L0 (S5).
  for (ScalingType t : {ScalingType::Linear, ScalingType::Ntk, ScalingType::Dynamic}) {
    RopeConfig c = hf_llama(t);
    EXPECT_THAT([&] { rope_parameters(c); },
                ThrowsMessage<InvalidArgument>(HasSubstr(fmt::format("{} needs factor", to_string(t)))));
  }
  RopeConfig c = hf_llama(ScalingType::Yarn);
  c.max_position_embeddings.reset();
  c.original_max_position_embeddings = 4096;
  EXPECT_THAT([&] { rope_parameters(c); },
              ThrowsMessage<InvalidArgument>(HasSubstr("yarn needs factor, or max_position_embeddings")));
  c.original_max_position_embeddings.reset();
  c.factor = 4.0;
  EXPECT_THAT([&] { rope_parameters(c); },
              ThrowsMessage<InvalidArgument>(HasSubstr("yarn needs original_max_position_embeddings")));
  // dynamic reads config.max_position_embeddings.
  c = hf_llama(ScalingType::Dynamic);
  c.factor = 2.0;
  c.max_position_embeddings.reset();
  EXPECT_THAT([&] { rope_parameters(c); },
              ThrowsMessage<InvalidArgument>(HasSubstr("dynamic needs max_position_embeddings")));
}

TEST(Scaling, RejectsANonPositiveOrNonFiniteFactor) {
  for (ScalingType t :
       {ScalingType::Linear, ScalingType::Ntk, ScalingType::Dynamic, ScalingType::Yarn, ScalingType::Proportional}) {
    RopeConfig c = hf_llama(t);
    c.factor = -2.0;
    EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("factor must be > 0 (got -2)")))
        << to_string(t);
    c.factor = 0.0;
    EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("factor must be > 0 (got 0)")))
        << to_string(t);
    c.factor = std::nan("");
    EXPECT_THAT([&] { rope_parameters(c); },
                ThrowsMessage<InvalidArgument>(HasSubstr("factor must be a finite number (got nan)")))
        << to_string(t);
  }
  EXPECT_THAT([] { rope_parameters(llama3_config(-2.0, 8192, 1.0, 4.0)); },
              ThrowsMessage<InvalidArgument>(HasSubstr("factor must be > 0 (got -2)")));
}

TEST(Scaling, RejectsBadDimensionsAndBase) {
  RopeConfig c = hf_llama(ScalingType::Linear);
  c.factor = 2.0;
  c.head_dim = 100;
  c.partial_rotary_factor = 0.25;
  EXPECT_THAT([&] { rope_parameters(c); },
              ThrowsMessage<InvalidArgument>(HasSubstr(
                  "rotary dimension d = int(head_dim · partial_rotary_factor) = int(100 · 0.25) = 25 must be even")));
  c.head_dim = 3;
  c.partial_rotary_factor = 0.5;  // int(1.5) = 1
  EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("= 1 must be even and >= 2")));
  c.head_dim = 128;
  c.partial_rotary_factor = 1.5;
  EXPECT_THAT([&] { rope_parameters(c); },
              ThrowsMessage<InvalidArgument>(HasSubstr("partial_rotary_factor must be in (0, 1] (got 1.5)")));
  c.partial_rotary_factor = 1.0;
  c.head_dim = 0;
  EXPECT_THAT([&] { rope_parameters(c); },
              ThrowsMessage<InvalidArgument>(HasSubstr("head_dim must be between 2 and 65536 (got 0)")));
  c.head_dim = 128;
  for (double base : {1.0, 0.5, std::nan(""), HUGE_VAL}) {
    c.base = base;
    EXPECT_THAT([&] { rope_parameters(c); },
                ThrowsMessage<InvalidArgument>(HasSubstr("base must be a finite number > 1")))
        << base;
  }
  // ntk and dynamic raise to d/(d−2): a ZeroDivisionError in HF for d = 2.
  for (ScalingType t : {ScalingType::Ntk, ScalingType::Dynamic}) {
    RopeConfig two = hf_llama(t);
    two.head_dim = 2;
    two.factor = 2.0;
    EXPECT_THAT([&] { rope_parameters(two); },
                ThrowsMessage<InvalidArgument>(HasSubstr("needs a rotary dimension d > 2")));
  }
  // proportional with no rotated pair: int(0.25 · 4 // 2) = 0.
  RopeConfig prop;
  prop.type = ScalingType::Proportional;
  prop.head_dim = 4;
  prop.partial_rotary_factor = 0.25;
  EXPECT_THAT([&] { rope_parameters(prop); }, ThrowsMessage<InvalidArgument>(HasSubstr("= 0 pairs")));
  prop.head_dim = 81;
  EXPECT_THAT([&] { rope_parameters(prop); },
              ThrowsMessage<InvalidArgument>(HasSubstr("proportional needs an even head_dim")));
}

TEST(Scaling, RejectsBadPositions) {
  RopeConfig c = hf_llama(ScalingType::Dynamic);
  c.factor = 2.0;
  c.seq_len = 0;
  EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("seq_len must be >= 1 (got 0)")));
  c.seq_len.reset();
  c.max_position_embeddings = -5;
  EXPECT_THAT([&] { rope_parameters(c); },
              ThrowsMessage<InvalidArgument>(HasSubstr("max_position_embeddings must be >= 1 (got -5)")));
  RopeConfig l = longrope_config(96, 131072, 1);  // ln L0 = 0 in the attention factor
  EXPECT_THAT([&] { rope_parameters(l); },
              ThrowsMessage<InvalidArgument>(HasSubstr("needs original_max_position_embeddings >= 2")));
}

// --- NumPy reference ----------------------------------------------------------------------------------

std::map<std::string, std::vector<double>> read_lists() {
  std::map<std::string, std::vector<double>> lists;
  const auto csv = test::read_reference("scaling_lists.csv");
  EXPECT_EQ(csv.header, (std::vector<std::string>{"name", "values"}));
  for (const auto& row : csv.rows) {
    const Eigen::VectorXd v = test::parse_vector(row.at(1));
    lists[row.at(0)] = std::vector<double>(v.data(), v.data() + v.size());
  }
  return lists;
}

/// Builds the RopeConfig of one grid row from its type, d (head_dim), base and `key=value;…` params.
RopeConfig config_of(const std::vector<std::string>& row, const std::map<std::string, std::vector<double>>& lists) {
  RopeConfig c;
  c.type = parse_scaling_type(row.at(0));
  c.head_dim = std::stoi(row.at(1));
  c.base = std::stod(row.at(2));
  for (const std::string& item : test::split(row.at(4), ';')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw std::runtime_error("bad params item '" + item + "'");
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    auto list = [&] {
      if (value.empty() || value[0] != '@') throw std::runtime_error("expected @list for " + key);
      return lists.at(value.substr(1));
    };
    if (key == "factor")
      c.factor = std::stod(value);
    else if (key == "max_position_embeddings")
      c.max_position_embeddings = std::stol(value);
    else if (key == "original_max_position_embeddings")
      c.original_max_position_embeddings = std::stol(value);
    else if (key == "seq_len")
      c.seq_len = std::stol(value);
    else if (key == "beta_fast")
      c.beta_fast = std::stod(value);
    else if (key == "beta_slow")
      c.beta_slow = std::stod(value);
    else if (key == "truncate")
      c.truncate = value == "true";
    else if (key == "mscale")
      c.mscale = std::stod(value);
    else if (key == "mscale_all_dim")
      c.mscale_all_dim = std::stod(value);
    else if (key == "attention_factor")
      c.attention_factor = std::stod(value);
    else if (key == "low_freq_factor")
      c.low_freq_factor = std::stod(value);
    else if (key == "high_freq_factor")
      c.high_freq_factor = std::stod(value);
    else if (key == "partial_rotary_factor")
      c.partial_rotary_factor = std::stod(value);
    else if (key == "short_factor")
      c.short_factor = list();
    else if (key == "long_factor")
      c.long_factor = list();
    else
      throw std::runtime_error("unknown params key '" + key + "'");
  }
  return c;
}

TEST(Scaling, MatchesNumpyReferenceGrid) {
  // tests/reference/scaling.py computes every method naively from docs/scaling.md in NumPy float64 over
  // type × d ∈ {64, 128} × base ∈ {1e4, 5e5} × factor ∈ {2, 8, 32}; rows agree to 1e-12 relative
  // (inv_freq and attention factor; zeros exactly).
  const auto csv = test::read_reference("scaling_grid.csv");
  ASSERT_EQ(csv.header, (std::vector<std::string>{"type", "d", "base", "factor", "params", "pair", "inv_freq",
                                                  "attention_factor"}));
  ASSERT_GT(csv.rows.size(), 9000u);
  const auto lists = read_lists();
  std::set<std::string> types;
  double worst = 0.0;
  std::size_t configs = 0;
  for (std::size_t r = 0; r < csv.rows.size();) {
    const auto& first = csv.rows[r];
    const std::string key = first[0] + "," + first[1] + "," + first[2] + "," + first[4];
    types.insert(first[0]);
    const RopeParameters p = rope_parameters(config_of(first, lists));
    ++configs;
    EXPECT_EQ(p.factor, std::stod(first[3])) << key;
    std::size_t n = 0;
    for (; r < csv.rows.size(); ++r, ++n) {
      const auto& row = csv.rows[r];
      if (row[0] + "," + row[1] + "," + row[2] + "," + row[4] != key) break;
      const int j = std::stoi(row[5]);
      ASSERT_EQ(static_cast<std::size_t>(j), n) << key;
      ASSERT_LT(j, p.inv_freq.size()) << key;
      const double want = std::stod(row[6]);
      const double want_a = std::stod(row[7]);
      if (want == 0.0) {
        EXPECT_EQ(p.inv_freq[j], 0.0) << key << " pair " << j;
      } else {
        const double rel = std::abs(p.inv_freq[j] - want) / std::abs(want);
        worst = std::max(worst, rel);
        EXPECT_LE(rel, 1e-12) << key << " pair " << j << ": " << p.inv_freq[j] << " vs " << want;
      }
      const double rel_a = std::abs(p.attention_factor - want_a) / std::abs(want_a);
      worst = std::max(worst, rel_a);
      EXPECT_LE(rel_a, 1e-12) << key << " attention " << p.attention_factor << " vs " << want_a;
    }
    EXPECT_EQ(static_cast<Eigen::Index>(n), p.inv_freq.size()) << key;
  }
  EXPECT_EQ(types, (std::set<std::string>{"default", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope",
                                          "proportional"}));
  std::cout << "[ INFO     ] scaling_grid.csv: " << configs << " configurations, " << csv.rows.size()
            << " rows, max relative difference " << worst << '\n';
}

TEST(Scaling, AnEffectiveBaseThatOverflowsIsRejected) {
  // base·f^(d/(d−2)) with f = 1e300 is beyond the largest double: every θ_i but θ_0 would be 0.
  RopeConfig c;
  c.head_dim = 8;
  c.type = ScalingType::Ntk;
  c.factor = 1e300;
  EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("overflows")));
}

}  // namespace
}  // namespace rope
