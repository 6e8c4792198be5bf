// rope wavelengths: the table, the critical dimension, original and scaled curves, in-process (moved from
// test_cli.cpp).
#include "rope/cli/cli.hpp"

#include <filesystem>
#include <map>
#include <fmt/format.h>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/cli_harness.hpp"
#include "support/reference_data.hpp"
#include "support/scoped_env.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/io/csv.hpp"

namespace rope {
namespace {

using test::expect_one_line_error;
using test::expect_plotted_data_equals_csv;
using test::png_size;
using test::Result;
using test::rope_cli;

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

class CmdWavelengths : public test::TempDirTest {};

TEST_F(CmdWavelengths, WavelengthsTableAndCriticalDimension) {
  // docs/math.md (M2) and (M16): λ_63 = 54410.14 for d = 128, base 1e4; LLaMA 2 at 4096 → d_extra 92.
  const Result r = rope_cli({"wavelengths", "--dim", "128", "--context", "4096"});
  ASSERT_EQ(r.code, 0) << r.err;
  // 6 significant digits, as frequencies prints them (issue 68: not 7.2557091991964855); the CSV has every digit.
  EXPECT_THAT(r.out, HasSubstr("\n    1                 7.25571\n"));
  EXPECT_THAT(r.out, HasSubstr("\n   63                 54410.1\n"));
  EXPECT_THAT(r.out, HasSubstr("pairs 46 … 63 (18 of 64) never complete a turn within it;\n  critical dimension 92"));
  // One pair: "completes" (issue 51), in both languages; the header "λ_i original" in Chinese too.
  EXPECT_THAT(rope_cli({"wavelengths", "--dim", "8", "--context", "1000"}).out,
              HasSubstr("context 1000, base=10000: pair 3 (1 of 4) never completes a turn within it;\n"));
  EXPECT_THAT(rope_cli({"wavelengths", "--dim", "8", "--context", "1000", "--lang", "zh"}).out,
              HasSubstr("：第 3 对（1 对，共 4 对）在其中转不满一圈；\n"));
  EXPECT_THAT(rope_cli({"wavelengths", "--dim", "8", "--scaling", "ntk", "--factor", "2", "--lang", "zh"}).out,
              HasSubstr("                原始 λ_i                 λ_i ntk\n"));
  const Result csv = rope_cli({"wavelengths", "--dim", "4", "--base", "10000", "--base", "100", "--csv", "-"});
  EXPECT_EQ(csv.out,
            "pair,base=10000,base=100\n0,6.283185307179586,6.283185307179586\n1,628.3185307179587,62.83185307179586\n");
  expect_one_line_error(rope_cli({"wavelengths", "--context", "0"}), 2, "--context must be >= 1 (got 0)");
}

TEST_F(CmdWavelengths, BothCriticalDimensionsAreNamedByTheirFrequencies) {
  // Qwen2.5 with yarn f = 4 over L0 = 32768: on the original θ (base 1e6, d = 128) pair i turns within
  // 32768 iff 2i/128 < ln(32768/2π)/ln(1e6) = 0.6196, so i* = 40 and the critical dimension is 80 (M16);
  // `rope inspect` names both numbers the same way (test_cmd_inspect.cpp).
  std::ofstream(path("qwen_yarn.json"))
      << R"({"model_type": "qwen2", "hidden_size": 3584, "num_attention_heads": 28, "max_position_embeddings": 131072,
      "rope_theta": 1000000.0, "rope_scaling": {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}})";
  const Result r = rope_cli({"wavelengths", "--config", path("qwen_yarn.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("context 32768, original: pairs 40 … 63 (24 of 64) never complete a turn within it;\n"
                               "  critical dimension 80 of the original frequencies (M16)"));
  EXPECT_THAT(r.out, HasSubstr("critical dimension 72 of the scaled frequencies (M16)"));
}

TEST_F(CmdWavelengths, AModelWithoutScalingHasOneColumn) {
  // It printed two equal columns, "original" and "default".
  const Result r = rope_cli({"wavelengths", "--model", "llama-3-8b", "--csv", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::StartsWith("pair,base=500000\n"));
  EXPECT_THAT(rope_cli({"wavelengths", "--model", "llama-3-8b"}).out, Not(HasSubstr("default")));
}

TEST_F(CmdWavelengths, WavelengthsAndDecayOverlayOriginalAndScaled) {
  const Result w = rope_cli({"wavelengths", "--model", "llama-3.1-8b", "--csv", "-"});
  ASSERT_EQ(w.code, 0) << w.err;
  EXPECT_THAT(w.out, StartsWith("pair,original,llama3\n0,"));
  const Result d = rope_cli({"decay", "--model", "llama-3.1-8b", "--points", "3", "--csv", "-"});
  ASSERT_EQ(d.code, 0) << d.err;
  EXPECT_THAT(d.out, StartsWith("distance,original,llama3\n0,32.5,32.5\n"));  // f(0) = (d/2 + 1)/2 for both
  const Result text = rope_cli({"wavelengths", "--model", "llama-3.1-8b"});
  EXPECT_THAT(text.out, HasSubstr("context 8192"));  // the model's own lengths, without --context
  EXPECT_THAT(text.out, HasSubstr("context 131072"));
}

// --json (issue 51: the report pattern): the same wavelengths as --csv, every digit, and per context the first pair
// beyond it with the critical dimension the text prints.
TEST_F(CmdWavelengths, JsonHasTheCsvsWavelengthsAndTheTextsCriticalDimension) {
  const Result r =
      rope_cli({"wavelengths", "--dim", "128", "--base", "10000", "--base", "500000", "--context", "4096", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["dim"], 128);
  EXPECT_EQ(j["pairs"], 64);
  EXPECT_TRUE(j["model"].is_null());
  ASSERT_EQ(j["curves"].size(), 2u);
  EXPECT_EQ(j["curves"][1]["column"], "base=500000");
  const Result csv = rope_cli({"wavelengths", "--dim", "128", "--base", "10000", "--base", "500000", "--csv", "-"});
  std::istringstream lines(csv.out);
  std::string line;
  std::getline(lines, line);  // the header
  for (int i = 0; std::getline(lines, line); ++i) {
    const std::string a = fmt::format("{},{},{}", i, format_number(j["curves"][0]["wavelength"][i].get<double>()),
                                      format_number(j["curves"][1]["wavelength"][i].get<double>()));
    EXPECT_EQ(line, a);
  }
  const nlohmann::json& first = j["contexts"][0]["curves"][0];
  EXPECT_EQ(j["contexts"][0]["context"], 4096.0);
  EXPECT_EQ(first["first_pair_beyond"], 46);
  EXPECT_EQ(first["pairs_beyond"], 18);
  EXPECT_EQ(first["critical_dimension"], 92);  // the text's "critical dimension 92" above
  // A model: its original and scaled curves and its own contexts, named in the figure.
  const nlohmann::json m = nlohmann::json::parse(rope_cli({"wavelengths", "--model", "llama-3.1-8b", "--json"}).out);
  EXPECT_EQ(m["model"], "llama-3.1-8b");
  ASSERT_EQ(m["curves"].size(), 2u);
  EXPECT_EQ(m["curves"][0]["column"], "original");
  EXPECT_EQ(m["contexts"][0]["context"], 8192.0);
}

}  // namespace
}  // namespace rope
