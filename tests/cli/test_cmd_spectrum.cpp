// rope spectrum on the example dump data/dumps/q_spectrum.npy (tests/reference/spectrum.py, NumPy): the wiring, the
// text in both languages, the JSON, the two figures, and one-line errors. The numbers against NumPy:
// tests/cli/check_spectrum.py (reference.spectrum).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/cli_harness.hpp"
#include "support/shared.hpp"

namespace rope {
namespace {

using test::expect_one_line_error;
using test::kDumps;
using test::rope_cli;
using ::testing::HasSubstr;
using ::testing::Not;

class CmdSpectrum : public test::TempDirTest {};

TEST_F(CmdSpectrum, TextNamesTheBandAndThePeriodicPair) {
  const auto r = rope_cli({"spectrum", "--dump", kDumps + "q_spectrum.npy"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("rope spectrum: "));
  EXPECT_THAT(r.out, HasSubstr("[seq,heads,d] = (128, 2, 128), f32 (<f4)"));
  EXPECT_THAT(r.out, HasSubstr("pairs 44 … 63 hold"));
  EXPECT_THAT(r.out, HasSubstr("lowest pair 3 "));
  EXPECT_THAT(r.out, HasSubstr("head 1: pairs 44 … 63 hold"));
  EXPECT_THAT(r.out, HasSubstr("note: no model, config or base given: the wavelengths are plain RoPE's of base 10000"));
}

TEST_F(CmdSpectrum, ChineseText) {
  const auto r = rope_cli({"spectrum", "--dump", kDumps + "q_spectrum.npy", "--lang", "zh"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("44 … 63"));
  EXPECT_THAT(r.out, Not(HasSubstr(" hold ")));
  EXPECT_THAT(r.out, Not(HasSubstr("lowest pair")));
  EXPECT_THAT(r.out, Not(HasSubstr("note:")));
}

TEST_F(CmdSpectrum, JsonSharesSumToOne) {
  const auto r = rope_cli({"spectrum", "--dump", kDumps + "q_spectrum.npy", "--base", "10000", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["pairs"].size(), 64u);
  ASSERT_EQ(j["heads"].size(), 2u);
  double sum = 0;
  for (const auto& p : j["pairs"]) sum += p["energy_share"].get<double>();
  EXPECT_NEAR(sum, 1.0, 1e-12);
  EXPECT_EQ(j["bands"]["energy"]["first"], 44);
  EXPECT_EQ(j["bands"]["energy"]["last"], 63);
  EXPECT_EQ(j["bands"]["lowest_entropy"], 3);
  EXPECT_EQ(j["frequency_bins"], 64);
  EXPECT_EQ(j["spec"]["base_assumed"], false);
  EXPECT_EQ(j["spec"]["layout"], "half");
  EXPECT_TRUE(j["notes"].empty());
}

TEST_F(CmdSpectrum, LayoutChangesThePairing) {
  // Read as interleaved, the half-layout dump's pairs mix two pairs each: the band is no longer 44 … 63.
  const auto r = rope_cli({"spectrum", "--dump", kDumps + "q_spectrum.npy", "--layout", "interleaved", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["spec"]["layout"], "interleaved");
  EXPECT_NE(j["bands"]["energy"]["first"], 44);
}

TEST_F(CmdSpectrum, FiguresBesideEachOther) {
  const auto r = rope_cli({"spectrum", "--dump", kDumps + "q_spectrum.npy", "--png", path("s.png")});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* name : {"s.png", "s_heads.png"}) {
    std::ifstream f(path(name), std::ios::binary);
    std::stringstream bytes;
    bytes << f.rdbuf();
    EXPECT_EQ(test::png_size(bytes.str()), std::make_pair(1200u, 800u)) << name;
  }
}

TEST_F(CmdSpectrum, BadInputIsOneLine) {
  expect_one_line_error(rope_cli({"spectrum"}), 2, "--dump");
  expect_one_line_error(rope_cli({"spectrum", "--dump", path("none.npy")}), 3, "none.npy");
  expect_one_line_error(rope_cli({"spectrum", "--dump", kDumps + "q_spectrum.npy", "--positions", "0:5"}), 2, "5");
  expect_one_line_error(rope_cli({"spectrum", "--dump", kDumps + "q_spectrum.npy", "--png", path("s.gif.txt"),
                                  "--output", path("s.txt")}),
                        2, "s.txt");
  EXPECT_FALSE(std::filesystem::exists(path("s.txt")));
}

}  // namespace
}  // namespace rope
