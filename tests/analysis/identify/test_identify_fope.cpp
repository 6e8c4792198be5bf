// rope identify on FoPE (rope/analysis/identify/identify_fope.cpp): float64 dumps turned here by (F2)–(F4) of
// docs/multi-axis.md with random coefficients, per key-value head h and position t pair j < K multiplied by
// ζ = Σ_D cos(t·θ_D)·C_cos[h, D, j] + i·Σ_D sin(t·θ_D)·C_sin[h, D, j], the padded pairs by 1 (sin 0) or 1 + i (sin 1),
// query head q on key-value head q / (heads / n_kv). identify counts the kept and padded pairs, names the padding and
// finds the GQA groups; a plain RoPE dump (norms kept, partial rotary as HF and ggml compute it) is not taken for
// FoPE.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "analysis/dumps/test_dump_fixtures.hpp"
#include "rope/analysis/identify/identify.hpp"
#include "support/cli_harness.hpp"

namespace rope {
namespace {

using test::random_dump;

const std::vector<double> kFopePositions = {0, 1, 2, 3, 5, 8, 13, 100, 1000, 4096, 20000};

/// FoPE of `x` (half pairs, θ_D = 5e6^(−2D/d)) with `kept` kept pairs on `kv` key-value heads: coefficients the
/// identity plus N(0, 0.5²/K) per head, as HF's initialisation (fope_init_factor 0.5) leaves them.
DumpVectors fope_turn(const DumpVectors& x, int kept, long kv, bool sin_one) {
  const int d = x.d, n = d / 2;
  std::mt19937_64 gen(67);
  std::normal_distribution<double> normal(0.0, 0.5 / std::sqrt(kept));
  std::vector<double> cc(static_cast<std::size_t>(kv * kept * kept)), cs(cc.size());
  for (long h = 0; h < kv; ++h) {
    for (int a = 0; a < kept; ++a) {
      for (int b = 0; b < kept; ++b) {
        const std::size_t k = static_cast<std::size_t>((h * kept + a) * kept + b);
        cc[k] = (a == b) + normal(gen), cs[k] = (a == b) + normal(gen);
      }
    }
  }
  DumpVectors y = x;
  for (long s = 0; s < x.seq; ++s) {
    const double t = kFopePositions[static_cast<std::size_t>(s)];
    for (long g = 0; g < x.heads; ++g) {
      const long h = g / (x.heads / kv);
      for (int j = 0; j < n; ++j) {
        std::complex<double> zeta(1, sin_one ? 1 : 0);
        if (j < kept) {
          double c = 0, sn = 0;
          for (int D = 0; D < kept; ++D) {
            const double theta = std::pow(5e6, -2.0 * D / d);
            const std::size_t k = static_cast<std::size_t>((h * kept + D) * kept + j);
            c += std::cos(t * theta) * cc[k], sn += std::sin(t * theta) * cs[k];
          }
          zeta = {c, sn};
        }
        const std::complex<double> z = std::complex<double>(x.value(s, g, j), x.value(s, g, j + n)) * zeta;
        y.values[static_cast<std::size_t>((s * x.groups() + g) * d + j)] = z.real();
        y.values[static_cast<std::size_t>((s * x.groups() + g) * d + j + n)] = z.imag();
      }
    }
  }
  return y;
}

struct FopeIdentifyCase {
  const char* name;
  long heads, kv;
  int kept;
  bool sin_one;
  bool bf16 = false;  ///< both dumps rounded to bf16 and stored as float32 (a bf16 model's tensors saved with .float())
};

/// x rounded to bf16 (to nearest, ties to even, on the top 16 bits of its float32).
double fope_bf16(double x) {
  float f = static_cast<float>(x);
  std::uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits = (bits + 0x7FFFu + ((bits >> 16) & 1u)) & 0xFFFF0000u;
  std::memcpy(&f, &bits, 4);
  return f;
}

class IdentifyFope : public ::testing::TestWithParam<FopeIdentifyCase> {};

TEST_P(IdentifyFope, CountsKeptAndPaddedPairsAndTheKeyValueHeads) {
  const FopeIdentifyCase& c = GetParam();
  DumpVectors x = random_dump(static_cast<long>(kFopePositions.size()), c.heads, 32);
  DumpVectors y = fope_turn(x, c.kept, c.kv, c.sin_one);
  if (c.bf16) {
    for (DumpVectors* v : {&x, &y}) {
      for (double& e : v->values) e = fope_bf16(e);
      v->dtype = DType::F32;
    }
  }
  const Identification id = identify_rope(x, y, kFopePositions);
  ASSERT_TRUE(id.fope.has_value()) << (id.notes.empty() ? "" : id.notes.back().en);
  EXPECT_EQ(id.fope->kept, c.kept);
  EXPECT_EQ(id.fope->padded, 16 - c.kept);
  EXPECT_EQ(id.fope->sin_padded_one, c.sin_one);
  EXPECT_EQ(id.fope->kv_heads, c.kv);
  EXPECT_EQ(id.fope->group_heads, c.heads / c.kv);
  EXPECT_LT(id.fope->norm_min, id.fope->norm_max);
  EXPECT_EQ(id.layout, PairLayout::Half);
  EXPECT_EQ(id.theta.size(), 0);  // no θ per pair: cos′ and sin′ are not those of one angle
  EXPECT_EQ(id.rotary_dim, c.sin_one ? 32 : 2 * c.kept);
  EXPECT_THAT(id.notes.back().en, ::testing::HasSubstr("are not measured from a dump"));
  EXPECT_EQ(id.notes[c.bf16 ? 1 : 0].en.find("matches FoPE with its") == 0, c.sin_one);
  if (c.bf16) EXPECT_THAT(id.notes.front().en, ::testing::HasSubstr("every value is a bf16 number"));
}

INSTANTIATE_TEST_SUITE_P(Identify, IdentifyFope,
                         ::testing::ValuesIn(std::vector<FopeIdentifyCase>{
                             {"gqa_16_on_4_sin_0", 16, 4, 12, false},
                             {"gqa_16_on_4_sin_1", 16, 4, 12, true},
                             {"keys_4_sin_0", 4, 4, 12, false},
                             {"keys_4_sin_1", 4, 4, 12, true},
                             {"shared_8_sin_0", 8, 1, 10, false},
                             {"gqa_16_on_4_sin_1_bf16_saved_as_f32", 16, 4, 12, true, true},
                         }),
                         [](const ::testing::TestParamInfo<FopeIdentifyCase>& info) {
                           return test::case_name(info.param.name);
                         });

TEST(IdentifyFopeNot, PlainRopeWithAPassThroughTailIsNotFope) {
  // Partial rotary (24 of 32 channels, the rest passed through) with an attention factor: a rotation that keeps norms.
  const DumpVectors x = random_dump(static_cast<long>(kFopePositions.size()), 4, 32);
  DumpVectors y = x;
  for (long s = 0; s < x.seq; ++s) {
    for (long g = 0; g < x.groups(); ++g) {
      for (int j = 0; j < 12; ++j) {
        const std::complex<double> z =
            std::complex<double>(x.value(s, g, j), x.value(s, g, j + 16)) *
            std::polar(1.2, kFopePositions[static_cast<std::size_t>(s)] * std::pow(10000.0, -2.0 * j / 24));
        y.values[static_cast<std::size_t>((s * x.groups() + g) * 32 + j)] = z.real();
        y.values[static_cast<std::size_t>((s * x.groups() + g) * 32 + j + 16)] = z.imag();
      }
    }
  }
  EXPECT_FALSE(identify_rope(x, y, kFopePositions).fope.has_value());
}

/// Partial rotary as HF's GPT-NeoX, Phi and StableLM (apply_rotary_pos_emb on q[..., :r], the rest passed through) and
/// ggml's NEOX with n_dims = r < head_dim turn it: pairs (j, j + r/2) of the first r channels. Read as FoPE's pairs (j,
/// j + d/2), its first r/2 pairs change and the rest pass through, FoPE's shape, but a kept pair's partner channel j +
/// d/2 never moves (issue 78: identify said "FoPE: 24 kept pairs" of GPT-NeoX's rotary_pct 0.25).
struct PartialRotaryCase {
  const char* name;
  int d, r;
};

class IdentifyPartialRotaryNotFope : public ::testing::TestWithParam<PartialRotaryCase> {};

TEST_P(IdentifyPartialRotaryNotFope, ReadsTheRotaryDimension) {
  const PartialRotaryCase& c = GetParam();
  const DumpVectors x = random_dump(static_cast<long>(kFopePositions.size()), 2, c.d);
  DumpVectors y = x;
  for (long s = 0; s < x.seq; ++s) {
    for (long g = 0; g < x.groups(); ++g) {
      for (int j = 0; j < c.r / 2; ++j) {
        const std::complex<double> z =
            std::complex<double>(x.value(s, g, j), x.value(s, g, j + c.r / 2)) *
            std::polar(1.0, kFopePositions[static_cast<std::size_t>(s)] * std::pow(10000.0, -2.0 * j / c.r));
        y.values[static_cast<std::size_t>((s * x.groups() + g) * c.d + j)] = z.real();
        y.values[static_cast<std::size_t>((s * x.groups() + g) * c.d + j + c.r / 2)] = z.imag();
      }
    }
  }
  const Identification id = identify_rope(x, y, kFopePositions);
  EXPECT_FALSE(id.fope.has_value());
  EXPECT_EQ(id.layout, PairLayout::Half);
  EXPECT_EQ(id.rotary_dim, c.r);
  EXPECT_EQ(id.rotary_offset, 0);
}

INSTANTIATE_TEST_SUITE_P(Identify, IdentifyPartialRotaryNotFope,
                         ::testing::ValuesIn(std::vector<PartialRotaryCase>{
                             {"gpt_neox_rotary_pct_0_25_head_96", 96, 24},
                             {"phi2_factor_0_4_head_80", 80, 32},
                             {"stablelm_factor_0_25_head_80", 80, 20},
                             {"an_eighth_head_64", 64, 8},
                         }),
                         [](const ::testing::TestParamInfo<PartialRotaryCase>& info) {
                           return test::case_name(info.param.name);
                         });

}  // namespace
}  // namespace rope
