// The CLI in-process: exit codes, one-line messages on stderr, outputs and no partial files.
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

namespace rope {
namespace {

using test::expect_one_line_error;
using test::expect_plotted_data_equals_csv;
using test::png_size;
using test::Result;
using test::rope_cli;

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;


class Cli : public test::TempDirTest {};

TEST_F(Cli, HelpAndVersionSucceed) {
  EXPECT_EQ(rope_cli({"--help"}).code, 0);
  const Result v = rope_cli({"--version"});
  EXPECT_EQ(v.code, 0);
  EXPECT_THAT(v.out, StartsWith("rope "));
  for (const char* cmd : {"frequencies", "freqs", "matrix", "apply", "verify", "decay"}) {
    const Result r = rope_cli({cmd, "--help"});
    EXPECT_EQ(r.code, 0) << cmd;
    EXPECT_THAT(r.out, HasSubstr("Example:")) << cmd;
  }
}

TEST_F(Cli, UsageErrorsExitTwoWithOneLine) {
  expect_one_line_error(rope_cli({}), 2, "no command given");
  expect_one_line_error(rope_cli({"transmogrify"}), 2, "transmogrify");
  expect_one_line_error(rope_cli({"verify", "--frobnicate"}), 2, "--frobnicate");
  expect_one_line_error(rope_cli({"apply", "--position", "1"}), 2, "--vector");
}

TEST_F(Cli, BadNumbersExitTwoNamingTheValueAndRule) {
  expect_one_line_error(rope_cli({"frequencies", "--dim", "7"}), 2, "dimension d must be even and between 2 and 65536 (got 7)");
  expect_one_line_error(rope_cli({"frequencies", "--dim", "1"}), 2, "(got 1)");
  expect_one_line_error(rope_cli({"frequencies", "--dim", "131072"}), 2, "(got 131072)");
  expect_one_line_error(rope_cli({"frequencies", "--dim", "128abc"}), 2, "--dim must be a decimal integer (got '128abc')");
  expect_one_line_error(rope_cli({"frequencies", "--base", "1"}), 2, "base must be a finite number > 1 (got 1)");
  expect_one_line_error(rope_cli({"frequencies", "--base", "nan"}), 2, "--base must be a finite number (got 'nan')");
  expect_one_line_error(rope_cli({"frequencies", "--base", "-5"}), 2, "(got -5)");
  expect_one_line_error(rope_cli({"verify", "--trials", "0"}), 2, "trials must be between 1 and");
  expect_one_line_error(rope_cli({"verify", "--trials", "-3"}), 2, "(got -3)");
  expect_one_line_error(rope_cli({"decay", "--points", "0"}), 2, "--points must be between 1 and");
  expect_one_line_error(rope_cli({"decay", "--max-distance", "-1"}), 2, "--max-distance must be between 0 and");
  expect_one_line_error(rope_cli({"matrix", "--dim", "6", "--position", "inf"}), 2, "--position must be a finite number");
  expect_one_line_error(rope_cli({"matrix", "--dim", "6"}), 2, "give exactly one of --position M or --relative M N");
}

TEST_F(Cli, BadVectorsExitTwo) {
  expect_one_line_error(rope_cli({"apply", "--position", "1", "--vector", "1,2,3"}), 2, "vector length d must be even");
  expect_one_line_error(rope_cli({"apply", "--position", "1", "--vector", "1,2,x,4"}), 2, "--vector item 3 must be a decimal number (got 'x')");
  expect_one_line_error(rope_cli({"apply", "--position", "1", "--vector", "1,,2,4"}), 2, "item 2 is empty");
}

TEST_F(Cli, UnwritableOutputExitsThreeAndLeavesNoFile) {
  const std::string target = path("missing-dir/decay.csv");
  expect_one_line_error(rope_cli({"decay", "--csv", target}), 3, "cannot write");
  EXPECT_FALSE(fs::exists(dir_ / "missing-dir"));
  expect_one_line_error(rope_cli({"frequencies", "--csv", dir_.string()}), 3, "Is a directory");
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(Cli, InvalidInputWritesNoFile) {
  const std::string target = path("f.csv");
  EXPECT_EQ(rope_cli({"frequencies", "--dim", "7", "--csv", target}).code, 2);
  EXPECT_FALSE(fs::exists(target));
}

TEST_F(Cli, DecayCsvMatchesNumpyReference) {
  // What `make demo` writes, against tests/reference/decay.py (O(d²) NumPy), 1e-12 relative.
  const std::string target = path("decay.csv");
  const Result r = rope_cli({"decay", "--base", "10000", "--dim", "128", "--csv", target});
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream in(target);
  std::string header;
  std::getline(in, header);
  const auto ref = test::read_reference("decay_d128_base10000.csv");
  EXPECT_EQ(header, "distance,base=10000");
  std::string line;
  std::size_t row = 0;
  while (std::getline(in, line)) {
    ASSERT_LT(row, ref.rows.size());
    const auto cells = test::split(line, ',');
    EXPECT_EQ(std::stod(cells[0]), std::stod(ref.rows[row][0])) << row;
    const double expected = std::stod(ref.rows[row][1]);
    EXPECT_NEAR(std::stod(cells[1]), expected, 1e-12 * expected) << row;
    ++row;
  }
  EXPECT_EQ(row, 1000u);
}

TEST_F(Cli, DecayWithSeveralBasesNamesEachColumn) {
  const Result r = rope_cli({"decay", "--base", "10000", "--base", "1000000", "--max-distance", "1000", "--points", "101", "--csv", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("distance,base=10000,base=1000000\n0,32.5,32.5\n10,"));
}

TEST_F(Cli, DecayKinds) {
  // --kind ones at m = 0 is d (M14); --kind random reports mean ± sd with sd near √d (M15).
  const Result ones = rope_cli({"decay", "--kind", "ones", "--dim", "8", "--points", "3", "--max-distance", "2", "--csv", "-"});
  ASSERT_EQ(ones.code, 0) << ones.err;
  EXPECT_THAT(ones.out, StartsWith("distance,base=10000\n0,8\n1,"));
  const Result random = rope_cli({"decay", "--kind", "random", "--samples", "50", "--points", "11", "--csv", "-"});
  ASSERT_EQ(random.code, 0) << random.err;
  EXPECT_THAT(random.out, StartsWith("distance,base=10000_mean,base=10000_sd\n"));
  const Result norm = rope_cli({"decay", "--normalize", "--points", "2", "--csv", "-"});
  EXPECT_THAT(norm.out, StartsWith("distance,base=10000\n0,1\n"));  // f(0)/f(0)
  const Result logx = rope_cli({"decay", "--log-x", "--max-distance", "1000000", "--points", "7", "--csv", "-"});
  ASSERT_EQ(logx.code, 0) << logx.err;
  EXPECT_THAT(logx.out, StartsWith("distance,base=10000\n1,"));
  EXPECT_THAT(logx.out, HasSubstr("\n1000000,"));
}

TEST_F(Cli, DecayRejectsContradictoryOptions) {
  expect_one_line_error(rope_cli({"decay", "--kind", "spiral"}), 2, "--kind must be 'bound', 'ones' or 'random' (got 'spiral')");
  expect_one_line_error(rope_cli({"decay", "--kind", "random", "--normalize"}), 2, "--normalize does not apply to --kind random");
  expect_one_line_error(rope_cli({"decay", "--log-x", "--max-distance", "1"}), 2, "--log-x needs");
  expect_one_line_error(rope_cli({"decay", "--kind", "ones", "--log-y"}), 2, "--log-y needs positive values");
  expect_one_line_error(rope_cli({"decay", "--kind", "random", "--samples", "1"}), 2, "samples must be >= 2");
  expect_one_line_error(rope_cli({"decay", "--seed", "-1"}), 2, "--seed must be >= 0");
}

TEST_F(Cli, WavelengthsTableAndCriticalDimension) {
  // known-values.md §2 and §8: λ_63 = 54410.14 for d = 128, base 1e4; LLaMA 2 at 4096 → d_extra 92.
  const Result r = rope_cli({"wavelengths", "--dim", "128", "--context", "4096"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("54410.14313077675"));
  EXPECT_THAT(r.out, HasSubstr("pairs 46 … 63 (18 of 64) never complete a turn within it; critical dimension 92"));
  const Result csv = rope_cli({"wavelengths", "--dim", "4", "--base", "10000", "--base", "100", "--csv", "-"});
  EXPECT_EQ(csv.out, "pair,base=10000,base=100\n0,6.283185307179586,6.283185307179586\n1,628.3185307179587,62.83185307179586\n");
  expect_one_line_error(rope_cli({"wavelengths", "--context", "0"}), 2, "--context must be >= 1 (got 0)");
}

TEST_F(Cli, FigureOptionsAreChecked) {
  expect_one_line_error(rope_cli({"decay", "--png", path("d.png"), "--lang", "fr"}), 2, "--lang must be 'en' or 'zh' (got 'fr')");
  expect_one_line_error(rope_cli({"decay", "--png", path("d.png"), "--width", "10"}), 2, "--width must be between 200 and 8000 pixels (got 10)");
  expect_one_line_error(rope_cli({"decay", "--output", path("d.bmp")}), 2, "d.bmp");
  expect_one_line_error(rope_cli({"decay", "--keep-script", path("d.gp")}), 2, "--keep-script needs a figure");
  expect_one_line_error(rope_cli({"decay", "--title", "x"}), 2, "--title needs a figure");
  expect_one_line_error(rope_cli({"wavelengths", "--width", "800"}), 2, "--width needs a figure");
  expect_one_line_error(rope_cli({"frequencies", "--max-position", "5"}), 2, "--max-position sets the figure");
  expect_one_line_error(rope_cli({"decay", "--samples", "50"}), 2, "--samples and --seed apply to --kind random only");
  expect_one_line_error(rope_cli({"matrix", "--relative", "1", "2", "--png", path("m.png")}), 2, "use it with --position");
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(Cli, FrequenciesCsvAndJson) {
  const Result csv = rope_cli({"freqs", "--dim", "8", "--csv", "-"});
  ASSERT_EQ(csv.code, 0);
  EXPECT_EQ(csv.out,
            "pair,exponent,theta,wavelength\n"
            "0,0,1,6.283185307179586\n"
            "1,-0.25,0.1,62.83185307179586\n"
            "2,-0.5,0.01,628.3185307179587\n"
            "3,-0.75,0.001,6283.185307179586\n");  // tests/reference/frequencies_d8_base10000.csv
  const Result json = rope_cli({"frequencies", "--dim", "128", "--json"});
  ASSERT_EQ(json.code, 0);
  const auto j = nlohmann::json::parse(json.out);
  ASSERT_EQ(j["inv_freq"].size(), 64u);
  EXPECT_EQ(j["inv_freq"][0].get<double>(), 1.0);
  EXPECT_EQ(j["inv_freq"][1].get<double>(), frequencies(128, 1e4)[1]);  // round-trips exactly
  EXPECT_EQ(j["attention_factor"].get<double>(), 1.0);
}

TEST_F(Cli, FrequenciesTableShowsExponentAndValues) {
  const Result r = rope_cli({"frequencies", "--dim", "128", "--position", "2"});
  ASSERT_EQ(r.code, 0);
  EXPECT_THAT(r.out, HasSubstr("-1/64"));
  EXPECT_THAT(r.out, HasSubstr("0.8659643233600653"));
  EXPECT_THAT(r.out, HasSubstr("0.00011547819846894582"));
  EXPECT_THAT(r.out, HasSubstr("1.7319286467201307"));  // 2·θ_1, shortest form of the double
}

TEST_F(Cli, MatrixCsvMatchesNumpyReference) {
  const Result r = rope_cli({"matrix", "--dim", "8", "--position", "3", "--layout", "half", "--csv", "-"});
  ASSERT_EQ(r.code, 0);
  const Eigen::MatrixXd expected = test::read_reference("rotation_d8_m3_half.csv", false).matrix();
  std::istringstream in(r.out);
  std::string line;
  for (int i = 0; i < 8; ++i) {
    ASSERT_TRUE(std::getline(in, line));
    const auto cells = test::split(line, ',');
    ASSERT_EQ(cells.size(), 8u);
    for (int j = 0; j < 8; ++j) EXPECT_NEAR(std::stod(cells[j]), expected(i, j), 4.5e-16) << i << "," << j;
  }
}

TEST_F(Cli, MatrixPrintsZerosPlainly) {
  const Result r = rope_cli({"matrix", "--dim", "4", "--position", "1"});
  ASSERT_EQ(r.code, 0);
  EXPECT_THAT(r.out, HasSubstr(" 0.540302 -0.841471         0         0\n"));
  const Result rel = rope_cli({"matrix", "--dim", "4", "--relative", "2", "5"});
  EXPECT_EQ(rel.code, 0);
  EXPECT_THAT(rel.out, HasSubstr(": equal"));
}

TEST_F(Cli, ApplyAgreesAcrossForms) {
  const Result r = rope_cli({"apply", "--position", "1", "--vector", "1,0,0,1"});
  EXPECT_EQ(r.code, 0);
  EXPECT_THAT(r.out, HasSubstr("they agree"));
  EXPECT_THAT(r.out, HasSubstr("0.8414709848078965"));  // sin 1
}

TEST_F(Cli, VerifyPassesAndIsReproducible) {
  const Result a = rope_cli({"verify", "--trials", "50", "--seed", "5"});
  const Result b = rope_cli({"verify", "--trials", "50", "--seed", "5"});
  EXPECT_EQ(a.code, 0);
  EXPECT_EQ(a.out, b.out);
  EXPECT_THAT(a.out, HasSubstr("seed 5"));
  EXPECT_THAT(a.out, HasSubstr("7 of 7 identities passed"));
  EXPECT_THAT(a.out, HasSubstr("FAIL (expected)"));
  const Result json = rope_cli({"verify", "--trials", "10", "--json"});
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_TRUE(j["passed"].get<bool>());
  EXPECT_EQ(j["identities"].size(), 7u);
}


// ---------------------------------------------------------------------------------------------
// Figures through the command line (the plot module itself: test_plot.cpp).


TEST_F(Cli, FiguresHaveTheRequestedSizeAndSameBytesEveryRun) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"decay", "--base", "10000", "--base", "500000"},
        std::vector<std::string>{"wavelengths", "--context", "4096"},
        std::vector<std::string>{"matrix", "--dim", "16", "--position", "3"},
        std::vector<std::string>{"frequencies", "--dim", "16", "--max-position", "40"}}) {
    for (const std::string name : {"a", "b"}) {
      std::vector<std::string> run = args;
      for (const std::string& extra : std::vector<std::string>{"--png", path(name + ".png"), "--svg", path(name + ".svg"),
                                                               "--width", "640", "--height", "480"}) {
        run.push_back(extra);
      }
      const Result r = rope_cli(run);
      ASSERT_EQ(r.code, 0) << args[0] << ": " << r.err;
    }
    EXPECT_EQ(png_size(read(path("a.png"))), (std::pair<std::uint32_t, std::uint32_t>{640, 480})) << args[0];
    EXPECT_EQ(read(path("a.png")), read(path("b.png"))) << args[0];
    EXPECT_EQ(read(path("a.svg")), read(path("b.svg"))) << args[0];
    EXPECT_THAT(read(path("a.svg")), HasSubstr("<svg")) << args[0];
  }
}

TEST_F(Cli, CsvBesideAFigureHoldsExactlyThePlottedData) {
  // The kept script's datablock is what gnuplot draws; every line must be the CSV row, as text.
  const Result r = rope_cli({"decay", "--base", "10000", "--base", "500000", "--points", "300", "--csv", path("d.csv"),
                             "--png", path("d.png"), "--keep-script", path("d.gp")});
  ASSERT_EQ(r.code, 0) << r.err;
  expect_plotted_data_equals_csv(read(path("d.gp")), read(path("d.csv")), 2, 300);
}

TEST_F(Cli, FigureToAnUnwritablePlaceExitsThreeAndLeavesNothing) {
  expect_one_line_error(rope_cli({"decay", "--png", path("missing/d.png")}), 3, "d.png");
  expect_one_line_error(rope_cli({"matrix", "--dim", "4", "--position", "1", "--png", dir_.string()}), 3, "Is a directory");
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(Cli, MissingGnuplotExitsThreeWithTheInstallHint) {
  const test::ScopedEnv env("ROPE_GNUPLOT", "/nonexistent/gnuplot");
  expect_one_line_error(rope_cli({"decay", "--png", path("d.png")}), 3, "gnuplot not found (install gnuplot-nox)");
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(Cli, TitleCannotInjectGnuplotCommands) {
  // Each title would run `touch` if it reached gnuplot unquoted, in double quotes, or after a newline.
  const fs::path old = fs::current_path();
  fs::current_path(dir_);
  const std::string titles[] = {"'; system(\"touch PWNED1\") #", "x\nsystem('touch PWNED2')", "`touch PWNED3` @x \\n"};
  int k = 0;
  for (const std::string& title : titles) {
    const Result r = rope_cli({"decay", "--points", "10", "--title", title, "--svg", path(fmt::format("t{}.svg", k++))});
    EXPECT_EQ(r.code, 0) << r.err;
  }
  fs::current_path(old);
  for (const char* f : {"PWNED1", "PWNED2", "PWNED3"}) EXPECT_FALSE(fs::exists(dir_ / f)) << f;
  EXPECT_THAT(read(path("t0.svg")), HasSubstr("<text>'; system(\"touch PWNED1\") #</text>"));  // drawn as typed
}

TEST_F(Cli, ChineseWithoutAChineseFontExitsThreeNamingThePackage) {
  fs::create_directories(dir_ / "fonts");
  std::ofstream(dir_ / "fonts.conf") << "<?xml version=\"1.0\"?><!DOCTYPE fontconfig SYSTEM \"fonts.dtd\"><fontconfig><dir>"
                                     << (dir_ / "fonts").string() << "</dir><cachedir>" << (dir_ / "fonts").string()
                                     << "</cachedir></fontconfig>";
  const test::ScopedEnv env("FONTCONFIG_FILE", (dir_ / "fonts.conf").c_str());
  expect_one_line_error(rope_cli({"decay", "--lang", "zh", "--png", path("zh.png")}), 3, "fonts-wqy-microhei");
  EXPECT_FALSE(fs::exists(dir_ / "zh.png"));
}


// ---------------------------------------------------------------------------------------------
// Scaling methods and model presets through the command line (the library: test_scaling.cpp,
// test_model_config.cpp).

TEST_F(Cli, FrequenciesJsonGivesHuggingFaceInvFreqAndAttentionFactor) {
  // HF tests/utils/test_modeling_rope_utils.py, LlamaConfig defaults (d = 128, base 1e4), llama3
  // f = 10, L0 = 2048, lf = 1, hf = 4: inv[31] = 0.0107302483, inv[40] = 3.453924383e-4,
  // inv[41..] = default/10, attention 1 (known-values.md §4, float64 values from the formula).
  const Result r = rope_cli({"frequencies", "--dim", "128", "--scaling", "llama3", "--factor", "10", "--original-max-position",
                             "2048", "--low-freq-factor", "1", "--high-freq-factor", "4", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["inv_freq"].size(), 64u);
  EXPECT_NEAR(j["inv_freq"][31].get<double>(), 0.0107302483, 1e-9 * 0.0107302483);
  EXPECT_NEAR(j["inv_freq"][40].get<double>(), 3.453924383e-4, 1e-9 * 3.453924383e-4);
  EXPECT_DOUBLE_EQ(j["inv_freq"][50].get<double>(), frequencies(128, 1e4)[50] / 10);
  EXPECT_EQ(j["attention_factor"].get<double>(), 1.0);
  // yarn, same config, β 32/1: attention factor 0.1·ln 10 + 1 = 1.2302585093 (known-values.md §4).
  const Result y = rope_cli({"freqs", "--scaling", "yarn", "--factor", "10", "--original-max-position", "2048", "--json"});
  ASSERT_EQ(y.code, 0) << y.err;
  EXPECT_NEAR(nlohmann::json::parse(y.out)["attention_factor"].get<double>(), 1.2302585093, 1e-10);
}

TEST_F(Cli, ScaledFrequencyTableShowsBandsAndTheLogitMultiplier) {
  // Llama 3.1 (known-values.md §7): 29 kept / 6 blended / 29 divided.
  const Result r = rope_cli({"frequencies", "--model", "llama-3.1-8b"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("bands: 29 kept"));
  EXPECT_THAT(r.out, HasSubstr("29 interpolated"));
  EXPECT_THAT(r.out, HasSubstr("6 ramped"));
  EXPECT_THAT(r.out, HasSubstr("logits × 1"));
  // gpt-oss: yarn f = 32, attention get_mscale(32) = 1.34657 (known-values.md §5), logits × 1.81326.
  const Result g = rope_cli({"frequencies", "--model", "gpt-oss-20b", "--json"});
  ASSERT_EQ(g.code, 0) << g.err;
  const auto j = nlohmann::json::parse(g.out);
  EXPECT_NEAR(j["attention_factor"].get<double>(), 1.34657, 5e-6);
  EXPECT_NEAR(j["logit_multiplier"].get<double>(), 1.81326, 5e-6);
}

TEST_F(Cli, EveryPresetIsInspectedAndVerified) {
  const Result list = rope_cli({"inspect", "--list", "--json"});
  ASSERT_EQ(list.code, 0) << list.err;
  const auto presets = nlohmann::json::parse(list.out);
  ASSERT_GE(presets.size(), 13u);
  for (const auto& p : presets) {
    const std::string name = p["name"].get<std::string>();
    const Result inspect = rope_cli({"inspect", "--model", name});
    EXPECT_EQ(inspect.code, 0) << name << ": " << inspect.err;
    EXPECT_THAT(inspect.out, HasSubstr("attention factor")) << name;
    // The identities hold for any frequencies, the scaled ones included.
    const Result verify = rope_cli({"verify", "--model", name, "--trials", "20"});
    EXPECT_EQ(verify.code, 0) << name << ": " << verify.out << verify.err;
  }
}

TEST_F(Cli, WavelengthsAndDecayOverlayOriginalAndScaled) {
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

TEST_F(Cli, ScalingErrorsExitTwoNamingTheParameter) {
  expect_one_line_error(rope_cli({"frequencies", "--scaling", "llama3", "--factor", "8"}), 2, "original_max_position_embeddings");
  expect_one_line_error(rope_cli({"frequencies", "--scaling", "linear", "--factor", "-2"}), 2, "factor");
  expect_one_line_error(rope_cli({"frequencies", "--scaling", "warp"}), 2, "warp");
  expect_one_line_error(rope_cli({"frequencies", "--model", "no-such-model"}), 2, "no-such-model");
  expect_one_line_error(rope_cli({"frequencies", "--model", "llama-2-7b", "--config", path("c.json")}), 2, "not both");
  expect_one_line_error(rope_cli({"decay", "--model", "llama-2-7b", "--base", "1e4", "--base", "1e5"}), 2, "give one --base");
  expect_one_line_error(rope_cli({"apply", "--model", "llama-2-7b", "--position", "1", "--vector", "1,0,0,1"}), 2,
                        "--vector has 4 numbers but llama-2-7b rotates d = 128");
  expect_one_line_error(rope_cli({"inspect"}), 2, "needs a config.json FILE");
  expect_one_line_error(rope_cli({"frequencies", "--config", path("missing.json")}), 3, "missing.json");
  std::ofstream(path("bad.json")) << "{\"rope_theta\": \"ten thousand\", \"head_dim\": 128}";
  expect_one_line_error(rope_cli({"inspect", path("bad.json")}), 2, "rope_theta");
}

TEST_F(Cli, ShortAndLongFactorListsComeFromAFile) {
  // longrope with d = 4 (2 pairs): the @file form reads numbers separated by commas or white space.
  std::ofstream(path("short.txt")) << "1.0\n2.0\n";
  const Result r = rope_cli({"frequencies", "--dim", "4", "--scaling", "longrope", "--original-max-position", "2048",
                             "--max-position-embeddings", "8192", "--short-factor", "@" + path("short.txt"),
                             "--long-factor", "3,4", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_DOUBLE_EQ(j["inv_freq"][1].get<double>(), 0.01 / 2.0);  // θ_1 = 10000^(-1/2) over short_factor[1]
  expect_one_line_error(rope_cli({"frequencies", "--dim", "4", "--scaling", "longrope", "--original-max-position", "2048",
                                  "--short-factor", "@" + path("none.txt"), "--long-factor", "3,4"}),
                        3, "none.txt");
}


TEST_F(Cli, EveryPresetMatchesTheIndependentNumpyReference) {
  // tests/reference/presets.py: HF's init functions written again in NumPy from the formulas of
  // scaling-methods.md §3, applied to data/models/*.json. Both sides float64: 1e-12 relative.
  const auto ref = test::read_reference("presets.csv");
  ASSERT_EQ(ref.header, (std::vector<std::string>{"preset", "pair", "inv_freq", "attention_factor"}));
  std::map<std::string, std::vector<const std::vector<std::string>*>> rows;
  for (const auto& row : ref.rows) rows[row[0]].push_back(&row);
  ASSERT_GE(rows.size(), 13u);
  for (const auto& [name, preset_rows] : rows) {
    const Result r = rope_cli({"frequencies", "--model", name, "--json"});
    ASSERT_EQ(r.code, 0) << name << ": " << r.err;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["inv_freq"].size(), preset_rows.size()) << name;
    for (const auto* row : preset_rows) {
      const std::size_t pair = std::stoul((*row)[1]);
      const double expected = std::stod((*row)[2]);
      EXPECT_NEAR(j["inv_freq"][pair].get<double>(), expected, 1e-12 * expected) << name << " pair " << pair;
    }
    const double attention = std::stod((*preset_rows.front())[3]);
    EXPECT_NEAR(j["attention_factor"].get<double>(), attention, 1e-12 * attention) << name;
  }
}


TEST_F(Cli, InspectWarnsAboutADefaultedBaseOnlyWhenTheConfigLacksIt) {
  // C2 (user-confusions.md): a long max_position_embeddings with no rope_theta and no scaling.
  std::ofstream(path("c.json")) << R"({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
                                       "max_position_embeddings": 32768})";
  const Result missing = rope_cli({"inspect", path("c.json")});
  ASSERT_EQ(missing.code, 0) << missing.err;
  EXPECT_THAT(missing.out, HasSubstr("rope_theta is not in the config, so HF's default"));
  std::ofstream(path("d.json")) << R"({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
                                       "max_position_embeddings": 32768, "rope_theta": 10000})";
  const Result explicit_theta = rope_cli({"inspect", path("d.json")});
  EXPECT_THAT(explicit_theta.out, ::testing::Not(HasSubstr("rope_theta is not in the config")));
}

TEST_F(Cli, CommandLineFlagsShowWhereTheyCameFrom) {
  const Result r = rope_cli({"inspect", "--model", "qwen3-8b", "--scaling", "yarn", "--factor", "4", "--original-max-position", "32768"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("rope_type: yarn (--scaling on the command line)"));
  EXPECT_THAT(r.out, HasSubstr("factor: 4 (--factor on the command line)"));
  // Qwen3 (scaling-methods.md §6): M/L0 = 40960/32768 = 1.25 differs from factor 4: a warning.
  EXPECT_THAT(r.out, HasSubstr("1.25"));
}


TEST_F(Cli, DecayUnderReRoPESeesMappedDistances) {
  // ReRoPE w = 100: distance 300 is seen as 100; Leaky ReRoPE w = 100, k = 4: 300 → 100 + 200/4 = 150.
  // f(100) = 10.227 and f(150) = 7.588 for d = 128, base 1e4 (known-values.md §3, 3 decimals).
  const Result re = rope_cli({"decay", "--rerope", "100", "--points", "4", "--max-distance", "300", "--csv", "-"});
  ASSERT_EQ(re.code, 0) << re.err;
  const auto rows = test::split(re.out, '\n');
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_NEAR(std::stod(test::split(rows[4], ',')[1]), 10.227, 5e-4);
  const Result leaky = rope_cli({"decay", "--rerope", "100", "--leaky-k", "4", "--points", "4", "--max-distance", "300", "--csv", "-"});
  ASSERT_EQ(leaky.code, 0) << leaky.err;
  EXPECT_NEAR(std::stod(test::split(test::split(leaky.out, '\n')[4], ',')[1]), 7.588, 5e-4);
  expect_one_line_error(rope_cli({"decay", "--leaky-k", "4"}), 2, "--leaky-k needs --rerope W");
  expect_one_line_error(rope_cli({"decay", "--rerope", "-5"}), 2, "--rerope W must be >= 0 (got -5)");
  expect_one_line_error(rope_cli({"decay", "--rerope", "10", "--leaky-k", "0.5"}), 2, "--leaky-k K must be >= 1");
}

}  // namespace
}  // namespace rope
