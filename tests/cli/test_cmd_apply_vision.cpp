// rope apply on a vision tower's 2-D RoPE (--vision KIND, --tower vision): against the NumPy ports of
// tests/reference/vision_rope.py (vision_cli.csv), Llama 4's 1-based patches by hand, and the refusals.
#include <cmath>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "support/cli_harness.hpp"
#include "support/model_apply_reference.hpp"
#include "support/reference_data.hpp"

namespace rope {
namespace {

using test::expect_one_line_error;
using test::Result;
using test::rope_cli;
using ::testing::HasSubstr;
using ::testing::Not;

class CmdApplyVision : public test::TempDirTest {};

/// Columns matrix, elementwise, complex of `apply --csv -`, as vectors.
std::vector<Eigen::VectorXd> forms(const std::string& csv) {
  const test::ReferenceCsv t = test::parse_reference(csv);
  std::vector<Eigen::VectorXd> out(3, Eigen::VectorXd(static_cast<Eigen::Index>(t.rows.size())));
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    for (std::size_t f = 0; f < 3; ++f) out[f][static_cast<Eigen::Index>(r)] = std::stod(t.rows[r].at(2 + f));
  }
  return out;
}

TEST_F(CmdApplyVision, EveryTowerEqualsTheNumpyPorts) {
  // tests/reference/vision_rope.py (vision_cli.csv): the towers of the presets llama-4-scout-17b-16e (HF's
  // Llama4VisionRotaryEmbedding table, side 24, 1-based) and qwen2.5-vl-7b (VisionRotaryEmbedding, head 80)
  // through --tower vision, and --vision pixtral, llama4, qwen2-vl, axial with other head_dims and bases,
  // from patch (0, 0) to the last one. A patch with row = column is given a second time as the one-number
  // position m, which means (m, m). Tolerance 1e-12 of ‖x‖: both sides form the same products p·θ_j (θ an
  // ulp apart at most, p ≤ 64), and libm's cos/sin and NumPy's (or its complex exp for Llama 4) are an ulp
  // apart; the errors are a few 1e-16 of ‖x‖, so a wrong pair, axis or offset (≥ 1e-3) cannot hide.
  const test::ReferenceCsv ref = test::read_reference("vision_cli.csv");
  const auto cases = test::group_rows(ref, 6);
  ASSERT_EQ(cases.size(), 22u);
  std::set<std::string> covered;
  int one_component = 0;
  double worst = 0;
  for (const auto& [key, rows] : cases) {
    const auto& first = *rows.front();
    const int d = std::stoi(first.at(2));
    ASSERT_EQ(rows.size(), static_cast<std::size_t>(d)) << key;
    const Eigen::VectorXd x = test::group_column(rows, 7), want = test::group_column(rows, 8);
    std::vector<std::string> tower = first.at(0) == "--vision"
                                         ? std::vector<std::string>{"--vision", first.at(1), "--base", first.at(3)}
                                         : std::vector<std::string>{"--model", first.at(0), "--tower", "vision"};
    std::vector<std::string> positions{first.at(4) + "," + first.at(5)};
    if (first.at(4) == first.at(5)) positions.push_back(first.at(4));
    for (const std::string& position : positions) {
      std::vector<std::string> args{"apply", "--position", position, "--vector", test::comma_list(x), "--csv", "-"};
      args.insert(args.end(), tower.begin(), tower.end());
      const Result r = rope_cli(args);
      ASSERT_EQ(r.code, 0) << key << " at " << position << ": " << r.err;
      for (const Eigen::VectorXd& got : forms(r.out)) {
        ASSERT_EQ(got.size(), d) << key;
        const double err = (got - want).cwiseAbs().maxCoeff() / x.norm();
        worst = std::max(worst, err);
        EXPECT_LE(err, 1e-12) << key << " at " << position;
      }
      one_component += position.find(',') == std::string::npos;
    }
    covered.insert(first.at(0) == "--vision" ? "--vision " + first.at(1) : first.at(0));
  }
  EXPECT_EQ(covered, (std::set<std::string>{"--vision axial", "--vision llama4", "--vision pixtral",
                                            "--vision qwen2-vl", "llama-4-scout-17b-16e", "qwen2.5-vl-7b"}));
  EXPECT_EQ(one_component, 15);  // the patches with row = column in vision_cli.csv
  RecordProperty("worst_relative_error", fmt::format("{:.3g}", worst));
}

TEST_F(CmdApplyVision, Llama4CountsPatchesFromOneByHand) {
  // --vision llama4, d = 8, base 10000: freq_dim 4, rope_freq = (1, 10000^(-1/2) = 0.01); pairs 0, 1 (channels
  // (0,1), (2,3)) turn with the column w, pairs 2, 3 ((4,5), (6,7)) with the row h, each by θ·(p + 1).
  // At (2, 5): pair 0 by 6 rad, pair 2 by 3 rad; at (0, 0) both by 1 rad (not 0). 1e-15: one product, an ulp.
  const auto at = [](const std::string& position) {
    const Result r =
        rope_cli({"apply", "--vision", "llama4", "--position", position, "--vector", "1,0,0,0,1,0,0,0", "--csv", "-"});
    EXPECT_EQ(r.code, 0) << r.err;
    return forms(r.out)[1];
  };
  const Eigen::VectorXd y = at("2,5");
  EXPECT_NEAR(y[0], std::cos(6.0), 1e-15);
  EXPECT_NEAR(y[1], std::sin(6.0), 1e-15);
  EXPECT_NEAR(y[4], std::cos(3.0), 1e-15);
  EXPECT_NEAR(y[5], std::sin(3.0), 1e-15);
  const Eigen::VectorXd o = at("0,0");
  EXPECT_NEAR(o[0], std::cos(1.0), 1e-15);
  EXPECT_NEAR(o[5], std::sin(1.0), 1e-15);
  // One number m is the patch (m, m): bit for bit the same as m,m.
  EXPECT_EQ(at("4"), at("4,4"));
  // The preset's table names the axes and the angle θ·(p + 1): pair 22 (the row's first) at row 23 turns 24 rad.
  Eigen::VectorXd x = Eigen::VectorXd::Ones(88);
  const Result t = rope_cli({"apply", "--model", "llama-4-scout-17b-16e", "--tower", "vision", "--position", "23,0",
                             "--vector", test::comma_list(x), "--digits", "0"});
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_THAT(t.out, HasSubstr("RoPE at position m = (23, 0), d = 88, base = 10000"));
  EXPECT_THAT(t.out, HasSubstr("2-D vision RoPE (llama4, (V4)): pair i turns by θ_i·(p + 1)"));
  EXPECT_THAT(t.out, HasSubstr("    0      (0, 1)     w                       1                       1\n"));
  EXPECT_THAT(t.out, HasSubstr("   22    (44, 45)     h                       1                      24\n"));
  EXPECT_THAT(t.out, HasSubstr("they agree"));
  EXPECT_THAT(t.out, Not(HasSubstr("one number")));
  // A one-number position says which patch it stands for, in apply and in matrix, in both languages.
  const Result one = rope_cli({"apply", "--vision", "llama4", "--position", "4", "--vector", "1,0,0,0,1,0,0,0"});
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_THAT(one.out, HasSubstr("\n  one number m = 4 stands for the patch (row, column) = (4, 4)\n"));
  const Result zh = rope_cli({"matrix", "--vision", "pixtral", "--dim", "8", "--position", "4", "--lang", "zh"});
  ASSERT_EQ(zh.code, 0) << zh.err;
  EXPECT_THAT(zh.out, HasSubstr("\n  一个数 m = 4 表示块（行，列）= (4, 4)\n"));
}

TEST_F(CmdApplyVision, APatchOffTheModelsGridIsSaid) {
  // Llama 4's tower has 336 / 14 = 24 patches per side: (23, 23) is its last patch, (30, 30) and the one
  // number 24 (the patch (24, 24)) are none. rope still rotates them, and says so, in apply and matrix.
  const std::string x = test::comma_list(Eigen::VectorXd::Ones(88));
  const auto run = [&x](std::vector<std::string> args) {
    args.insert(args.end(), {"--model", "llama-4-scout-17b-16e", "--tower", "vision"});
    if (args.front() == "apply") args.insert(args.end(), {"--vector", x});
    const Result r = rope_cli(args);
    EXPECT_EQ(r.code, 0) << r.err;
    return r.out;
  };
  EXPECT_THAT(
      run({"apply", "--position", "30,30"}),
      HasSubstr(
          "\nnote: (30, 30) is not a patch of the model's 24×24 grid (rows and columns 0 … 23):\n"
          "  llama-4-scout-17b-16e vision_config never rotates it; rope rotates it by the formula all the same\n"));
  EXPECT_THAT(run({"apply", "--position", "23,23"}), Not(HasSubstr("is not a patch")));
  EXPECT_THAT(run({"matrix", "--position", "24"}),
              HasSubstr("note: (24, 24) is not a patch of the model's 24×24 grid"));
  EXPECT_THAT(run({"matrix", "--position", "23"}), Not(HasSubstr("is not a patch")));
  EXPECT_THAT(run({"matrix", "--position", "0,24", "--lang", "zh"}),
              HasSubstr("\n注：(0, 24) 不是该模型 24×24 网格中的块（行与列为 0 … 23）：\n"
                        "  llama-4-scout-17b-16e vision_config 从不旋转这个位置；rope 仍按公式旋转它\n"));
  // Qwen2.5-VL's tower has no fixed grid (dynamic resolution): nothing to say.
  const Result q = rope_cli({"apply", "--model", "qwen2.5-vl-7b", "--tower", "vision", "--position", "500,500",
                             "--vector", test::comma_list(Eigen::VectorXd::Ones(80))});
  ASSERT_EQ(q.code, 0) << q.err;
  EXPECT_THAT(q.out, Not(HasSubstr("is not a patch")));
}

TEST_F(CmdApplyVision, LlamaCppVisionIsQwenTwoVlsMap) {
  // (V2): llama.cpp's GGML_ROPE_TYPE_VISION (n_dims = d/2, independent sections, NEOX pairs) builds the same
  // pairs as Qwen2-VL's VisionRotaryEmbedding, which vision_cli.csv checks against NumPy: the same bits.
  Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(32, -1.0, 2.0);
  const auto run = [&x](const std::string& kind) {
    const Result r = rope_cli({"apply", "--vision", kind, "--base", "1000000", "--position", "31,5", "--vector",
                               test::comma_list(x), "--csv", "-"});
    EXPECT_EQ(r.code, 0) << r.err;
    return r.out;
  };
  EXPECT_EQ(run("llama.cpp"), run("qwen2-vl"));
  EXPECT_NE(run("pixtral"), run("qwen2-vl"));  // the comparison can tell maps apart
}

TEST_F(CmdApplyVision, PixtralByHandAndItsHalfLayout) {
  // --vision pixtral, d = 8, base 10000: freqs 10000^(-2i/8) = 1, 0.1, 0.01, 0.001; the row h takes
  // freqs[::2] = (1, 0.01) on pairs 0, 1, the column w freqs[1::2] = (0.1, 0.001) on pairs 2, 3; half
  // layout, pair j on channels (j, j + 4). At (2, 3): pair 0 turns 2 rad, pair 2 0.3 rad. 1e-15 as above.
  const Result r =
      rope_cli({"apply", "--vision", "pixtral", "--position", "2,3", "--vector", "1,0,1,0,0,0,0,0", "--csv", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Eigen::VectorXd y = forms(r.out)[0];
  EXPECT_NEAR(y[0], std::cos(2.0), 1e-15);
  EXPECT_NEAR(y[4], std::sin(2.0), 1e-15);
  EXPECT_NEAR(y[2], std::cos(0.1 * 3), 1e-15);
  EXPECT_NEAR(y[6], std::sin(0.1 * 3), 1e-15);
  EXPECT_EQ(y[1], 0.0);
}

TEST_F(CmdApplyVision, GemmaFourRotatesInsideEachAxisBlockByHand) {
  // --vision gemma4, d = 8, base 100 (HF Gemma4VisionRotaryEmbedding, apply_multidimensional_rope at c308a309e651):
  // channels 0-3 the column block, 4-7 the row block, rotate_half inside each, frequencies 1 and 0.1 per block.
  // At (row 2, column 3): pair 0 on (0, 2) turns 3 rad, pair 2 on (4, 6) turns 2 rad. 1e-15 as above.
  const Result r = rope_cli({"apply", "--vision", "gemma4", "--base", "100", "--position", "2,3", "--vector",
                             "1,0,0,0,1,0,0,0", "--csv", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const Eigen::VectorXd& y : forms(r.out)) {
    EXPECT_NEAR(y[0], std::cos(3.0), 1e-15);
    EXPECT_NEAR(y[2], std::sin(3.0), 1e-15);
    EXPECT_NEAR(y[4], std::cos(2.0), 1e-15);
    EXPECT_NEAR(y[6], std::sin(2.0), 1e-15);
    EXPECT_EQ(y[1], 0.0);
    EXPECT_EQ(y[5], 0.0);
  }
  const Result text =
      rope_cli({"apply", "--vision", "gemma4", "--base", "100", "--position", "2,3", "--vector", "1,0,0,0,1,0,0,0"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("half layout inside each axis's block of d/2 channels"));
  EXPECT_THAT(text.out, HasSubstr("(4, 6)"));
}

TEST_F(CmdApplyVision, GemmaFourTowerOfAConfigInTheCommandsThatPlaceNoChannelOrPlaceThemAll) {
  // The 26B-A4B's vision_config: head_dim 72, rope_parameters.rope_theta 100 (data/models/gemma-4-26b-a4b.json);
  // the values against the NumPy port of Gemma4VisionConfig are reference.gemma4_vision's.
  const Result in = rope_cli({"inspect", "--model", "gemma-4-26b-a4b", "--tower", "vision"});
  ASSERT_EQ(in.code, 0) << in.err;
  EXPECT_THAT(in.out, HasSubstr("head_dim: 72 (vision_config.head_dim)"));
  EXPECT_THAT(in.out, HasSubstr("rope_theta: 100 (vision_config.rope_parameters.rope_theta)"));
  EXPECT_THAT(in.out, HasSubstr("half (rotate_half) inside each axis's block of d/2 channels: pair i = b·d/4 + k on "
                                "(b·d/2 + k, b·d/2 + k + d/4)"));
  EXPECT_THAT(in.out, HasSubstr("w (width)         18  0 … 17"));
  const Result zh = rope_cli({"inspect", "--model", "gemma-4-26b-a4b", "--tower", "vision", "--lang", "zh"});
  ASSERT_EQ(zh.code, 0) << zh.err;
  EXPECT_THAT(zh.out, HasSubstr("每个轴的 d/2 个通道块内部前后半配对"));
  EXPECT_THAT(zh.out, HasSubstr("得分不除以 √head_dim"));
  EXPECT_THAT(rope_cli({"inspect", "--model", "gemma-4-26b-a4b"}).out,
              HasSubstr("gemma-4-26b-a4b also has a vision tower (gemma4_vision): --tower vision gives its 2-D RoPE"));
  // By hand, d = 8 and base 100: per axis θ = 1, 0.1 (λ = 2π, 20π), the column w on pairs 0-1, the row h on 2-3.
  const Result f = rope_cli({"frequencies", "--vision", "gemma4", "--dim", "8", "--base", "100", "--csv", "-"});
  ASSERT_EQ(f.code, 0) << f.err;
  EXPECT_THAT(f.out, HasSubstr("0,1,6.283185307179586,1,6.283185307179586,1,-,w\n1,0.1,62.83185307179586,0.1,"
                               "62.83185307179586,1,-,w\n2,1,6.283185307179586,1,6.283185307179586,1,-,h\n"));
  const Result w = rope_cli({"wavelengths", "--vision", "gemma4", "--dim", "8", "--base", "100"});
  ASSERT_EQ(w.code, 0) << w.err;
  EXPECT_THAT(w.out, HasSubstr("wavelengths λ_i = 2π/θ_i of a 2-D vision RoPE (gemma4), d = 8"));
  EXPECT_THAT(w.out, Not(HasSubstr("base^(2i/d)")));
  // rope matrix by hand at (row 2, column 3), d = 8: pair 0 on channels (0, 2) turns 3 rad, pair 1 on (1, 3) 0.3,
  // pair 2 on (4, 6) 2 rad, pair 3 on (5, 7) 0.2 (the same patch as GemmaFourRotatesInsideEachAxisBlockByHand).
  const Result m =
      rope_cli({"matrix", "--vision", "gemma4", "--base", "100", "--dim", "8", "--position", "2,3", "--csv", "-"});
  ASSERT_EQ(m.code, 0) << m.err;
  const test::ReferenceCsv r = test::parse_reference(m.out);
  ASSERT_EQ(r.rows.size(), 8u);
  const auto at = [&](int i, int j) {
    return std::stod(r.rows[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]);
  };
  for (const auto& [a, b, angle] :
       {std::tuple{0, 2, 3.0}, std::tuple{1, 3, 0.3}, std::tuple{4, 6, 2.0}, std::tuple{5, 7, 0.2}}) {
    EXPECT_NEAR(at(a, a), std::cos(angle), 1e-15);
    EXPECT_NEAR(at(b, b), std::cos(angle), 1e-15);
    EXPECT_NEAR(at(a, b), -std::sin(angle), 1e-15);
    EXPECT_NEAR(at(b, a), std::sin(angle), 1e-15);
  }
  EXPECT_EQ(at(0, 1), 0.0);
  EXPECT_EQ(at(0, 4), 0.0);
  EXPECT_THAT(rope_cli({"matrix", "--vision", "gemma4", "--base", "100", "--dim", "8", "--position", "2,3"}).out,
              HasSubstr("on channels (b·d/2 + k, b·d/2 + k + d/4), i = b·d/4 + k (V6)"));
  for (const char* command : {"decay", "attention"}) {
    const Result r = rope_cli({command, "--model", "gemma-4-26b-a4b", "--tower", "vision"});
    EXPECT_EQ(r.code, 0) << command << ": " << r.err;
    EXPECT_THAT(r.out, HasSubstr("inside each axis's block of d/2 channels (model family gemma4 vision")) << command;
  }
}

TEST_F(CmdApplyVision, RefusalsExitTwoAndWriteNothing) {
  const std::string v8 = "1,0,0,1,1,0,0,1";
  expect_one_line_error(
      rope_cli({"apply", "--vision", "pixtral", "--model", "llama-2-7b", "--position", "1", "--vector", v8}), 2,
      "--vision builds a 2-D vision RoPE from --dim and --base; for the vision tower of --model or --config give --tower vision");
  expect_one_line_error(rope_cli({"frequencies", "--tower", "vision"}), 2,
                        "--tower needs --model or --config (a vision-language model's config)");
  expect_one_line_error(rope_cli({"frequencies", "--model", "qwen2.5-vl-7b", "--tower", "bogus"}), 2,
                        "--tower must be text, vision or audio (got 'bogus')");
  expect_one_line_error(rope_cli({"frequencies", "--vision", "pixtral", "--scaling", "yarn"}), 2,
                        "--scaling: a vision tower's 2-D RoPE (pixtral) has no context scaling");
  expect_one_line_error(
      rope_cli({"apply", "--vision", "pixtral", "--position", "1", "--vector", v8, "--float32"}), 2,
      "--float32: a vision tower's 2-D RoPE (pixtral) has no context scaling, partial rotation, layer types or float32 path");
  expect_one_line_error(rope_cli({"frequencies", "--vision", "pixtral", "--dim", "6"}), 2,
                        "a 2-D vision RoPE needs d a multiple of 4 between 4 and 65536 (got 6)");
  expect_one_line_error(rope_cli({"apply", "--vision", "llama4", "--position", "1", "--vector", "1,0,0,1,1,0"}), 2,
                        "a 2-D vision RoPE needs d a multiple of 4 between 4 and 65536 (got 6)");
  expect_one_line_error(
      rope_cli({"frequencies", "--vision", "eva"}), 2,
      "vision RoPE must be 'qwen2-vl', 'llama.cpp', 'pixtral', 'llama4', 'axial' or 'gemma4' (got 'eva')");
  // Gemma 4's pairs sit inside each axis's block (V6): the commands that place pairs by one layout refuse it.
  const std::string blocks =
      "Gemma 4's vision tower pairs channels inside each axis's block (docs/multi-axis.md (V6)), which "
      "this command does not place: rope apply, check, diff, sections, inspect, frequencies, "
      "wavelengths, decay, attention and matrix take it";
  expect_one_line_error(rope_cli({"layouts", "--vision", "gemma4", "--dim", "8"}), 2, blocks);
  expect_one_line_error(rope_cli({"layouts", "--model", "gemma-4-26b-a4b", "--tower", "vision"}), 2, blocks);
  expect_one_line_error(
      rope_cli({"matrix", "--model", "gemma-4-26b-a4b", "--tower", "vision", "--relative", "1", "2"}), 2,
      "--relative: Gemma 4's vision tower pairs channels inside each axis's block (docs/multi-axis.md "
      "(V6)), and rope matrix checks R_mᵀ R_n = R_(n−m) in the interleaved or half layout only: give --position");
  const std::string three =
      "the position (1, 2, 3) has 3 components but this vision tower reads 2 axes (h,w: the patch's row and column)";
  const std::string csv = path("out.csv");
  expect_one_line_error(rope_cli({"apply", "--vision", "pixtral", "--position", "1,2,3", "--vector", v8, "--csv", csv}),
                        2, three);
  EXPECT_FALSE(std::filesystem::exists(csv));
  expect_one_line_error(rope_cli({"matrix", "--vision", "pixtral", "--dim", "8", "--position", "1,2,3", "--csv", csv}),
                        2, three);
  EXPECT_FALSE(std::filesystem::exists(csv));
  expect_one_line_error(rope_cli({"apply", "--model", "qwen2.5-vl-7b", "--tower", "vision", "--position", "1,2,3",
                                  "--vector", test::comma_list(Eigen::VectorXd::Ones(80))}),
                        2, three);
  expect_one_line_error(
      rope_cli({"sections", "--vision", "pixtral", "--dim", "16", "--sections", "2,2,0"}), 2,
      "--sections: a vision tower's map is fixed by its implementation (--vision, --tower vision); it reads no sections");
  expect_one_line_error(rope_cli({"frequencies", "--model", "llama-2-7b", "--tower", "vision"}), 2,
                        "--tower vision: llama-2-7b has no vision_config");
  expect_one_line_error(
      rope_cli({"frequencies", "--vision", "pixtral", "--config", std::string(ROPE_GGUF_DIR) + "/qwen3-vl-8b.gguf"}), 2,
      "--vision builds a 2-D vision RoPE from --dim and --base");
  for (const auto& flags : std::vector<std::vector<std::string>>{
           {"--float32"}, {"--scaling", "linear", "--factor", "2"}, {"--layer-type", "3"}}) {
    std::vector<std::string> args{"frequencies", "--model", "llama-4-scout-17b-16e", "--tower", "vision"};
    args.insert(args.end(), flags.begin(), flags.end());
    expect_one_line_error(
        rope_cli(args), 2,
        flags.front() +
            ": a vision tower's 2-D RoPE (llama4) has no context scaling, partial rotation, layer types or float32 path in rope");
  }
  // The text tower of a vision-language preset is still its language model.
  const Result text = rope_cli({"inspect", "--model", "qwen2.5-vl-7b", "--tower", "text"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("M-RoPE"));
}

// --tower without --model/--config is refused, after --vision as well (it was once silently ignored there, even
// when it asked for the other tower).
TEST_F(CmdApplyVision, TowerWithVisionIsRefusedLikeTowerAlone) {
  expect_one_line_error(rope_cli({"frequencies", "--vision", "llama4", "--tower", "text"}), 2, "--tower");
}

}  // namespace
}  // namespace rope
