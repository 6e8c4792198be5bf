// rope inspect: every preset, the warnings, where each value came from, in-process (moved from test_cli.cpp).
#include "rope/cli/cli.hpp"

#include <cmath>
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
using ::testing::Not;
using ::testing::StartsWith;

class CmdInspect : public test::TempDirTest {};

TEST_F(CmdInspect, AModelFolderIsReadThroughItsConfigEveryCommandAlike) {
  // A diffusers pipeline's folder: model_index.json beside transformer/config.json (no config.json of its own).
  std::filesystem::create_directories(dir_ / "wan" / "transformer");
  std::ofstream(dir_ / "wan" / "model_index.json") << "{\"_class_name\": \"WanPipeline\"}\n";
  std::ofstream(dir_ / "wan" / "transformer" / "config.json")
      << R"({"_class_name": "WanTransformer3DModel", "attention_head_dim": 128, "num_attention_heads": 12,
             "patch_size": [1, 2, 2]})";
  const std::string file = path("wan/transformer/config.json");
  const Result by_file = rope_cli({"inspect", file});
  ASSERT_EQ(by_file.code, 0) << by_file.err;
  for (const std::string& folder : {path("wan"), path("wan/transformer"), path("wan/")}) {
    const Result r = rope_cli({"inspect", folder});
    EXPECT_EQ(r.code, 0) << folder << ": " << r.err;
    EXPECT_EQ(r.out.substr(r.out.find('\n')), by_file.out.substr(by_file.out.find('\n'))) << folder;
  }
  EXPECT_EQ(rope_cli({"verify", "--config", path("wan"), "--trials", "20"}).code, 0);
  EXPECT_EQ(rope_cli({"frequencies", "--config", path("wan")}).out, rope_cli({"frequencies", "--config", file}).out);
  EXPECT_EQ(rope_cli({"positions", "--config", path("wan"), "--latent-shape", "1x4x4"}).out,
            rope_cli({"positions", "--config", file, "--latent-shape", "1x4x4"}).out);
  // A model's folder with its config.json at the top (a Hugging Face checkpoint) is read from there first.
  std::filesystem::create_directories(dir_ / "llama");
  std::ofstream(dir_ / "llama" / "config.json")
      << R"({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 500000})";
  EXPECT_THAT(rope_cli({"inspect", path("llama")}).out, HasSubstr("500000"));
  // Neither: refused naming both files; a GGUF stays a file (a folder is never one).
  std::filesystem::create_directories(dir_ / "empty");
  expect_one_line_error(rope_cli({"inspect", path("empty")}), 2,
                        "is a folder with neither config.json nor transformer/config.json: give the model's config "
                        "file");
  expect_one_line_error(rope_cli({"verify", "--config", path("empty"), "--lang", "zh"}), 2,
                        "既没有 config.json，也没有 transformer/config.json");
}

TEST_F(CmdInspect, ADiffusionTransformerSpeaksOfItsLatentGrid) {
  // No context to extend, no attention factor: none of a language model's lines.
  const Result wan = rope_cli({"inspect", "--model", "wan2.1-t2v-14b"});
  ASSERT_EQ(wan.code, 0) << wan.err;
  EXPECT_THAT(wan.out, HasSubstr("  rotary dim d             128, the whole head: 64 pairs, each turned by one axis of "
                                 "the latent grid\n"));
  EXPECT_THAT(wan.out, HasSubstr("  wavelengths              6.28319 … 41339.2 positions of the latent grid, per axis "
                                 "below\n"));
  for (const char* llm : {"attention factor", "logits ×", "(original", "partial_rotary_factor", "  scaling "})
    EXPECT_THAT(wan.out, Not(HasSubstr(llm))) << llm;
  EXPECT_THAT(rope_cli({"inspect", "--model", "wan2.1-t2v-14b", "--lang", "zh"}).out, HasSubstr("潜变量网格"));
  // A language model keeps them.
  EXPECT_THAT(rope_cli({"inspect", "--model", "llama-3-8b"}).out, HasSubstr("attention factor"));
  // Flux's pipeline packs the latent 2×2, as Qwen-Image's: the positions say so before the 4×6 grid of an 8×12 latent.
  for (const char* flux : {"flux.1-dev", "flux.2-dev"}) {
    const Result r = rope_cli({"positions", "--model", flux, "--latent-shape", "1x8x12"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("1 × 4 × 6 tokens"));
    EXPECT_THAT(r.out, HasSubstr("the pipeline packs the latent 2×2 into one token before the transformer"));
    EXPECT_THAT(r.out, HasSubstr("an H × W latent is an H/2 × W/2 grid of tokens"));
  }
}

TEST_F(CmdInspect, EveryPresetIsInspectedAndVerified) {
  const Result list = rope_cli({"inspect", "--list", "--json"});
  ASSERT_EQ(list.code, 0) << list.err;
  const auto presets = nlohmann::json::parse(list.out);
  ASSERT_GE(presets.size(), 13u);
  for (const auto& p : presets) {
    const std::string name = p["name"].get<std::string>();
    const Result inspect = rope_cli({"inspect", "--model", name});
    EXPECT_EQ(inspect.code, 0) << name << ": " << inspect.err;
    // A diffusion transformer's latent grid has none (ADiffusionTransformerSpeaksOfItsLatentGrid).
    if (inspect.out.find("latent grid") == std::string::npos)
      EXPECT_THAT(inspect.out, HasSubstr("attention factor")) << name;
    // The identities hold for any frequencies, the scaled ones included; FoPE's pairs are no rotations by m·θ_i,
    // which verify refuses (test_fope_commands.cpp), nor does it place LTX-2's per-head slices.
    const Result verify = rope_cli({"verify", "--model", name, "--trials", "20"});
    EXPECT_EQ(verify.code, name == "intern-s1-pro" || name == "ltx-2" ? 2 : 0)
        << name << ": " << verify.out << verify.err;
  }
}

TEST_F(CmdInspect, BothCriticalDimensionsAreNamedByTheirFrequencies) {
  // The same config and numbers as test_cmd_wavelengths.cpp: 80 on the original θ (by hand), 72 on the
  // scaled ones, each named, at L0 = 32768.
  std::ofstream(path("qwen_yarn.json"))
      << R"({"model_type": "qwen2", "hidden_size": 3584, "num_attention_heads": 28, "max_position_embeddings": 131072,
      "rope_theta": 1000000.0, "rope_scaling": {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}})";
  const Result r = rope_cli({"inspect", path("qwen_yarn.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(
      r.out,
      HasSubstr("critical dimension       80 (original frequencies): pairs 40 … 63 never turn within 32768 (M16)\n"
                "                           72 (scaled frequencies): pairs 36 … 63 never turn within 32768 (M16)"));
  const Result j = rope_cli({"inspect", path("qwen_yarn.json"), "--json"});
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["critical_dimension"], 80);
  EXPECT_EQ(doc["critical_dimension_scaled"], 72);
}

TEST_F(CmdInspect, InspectWarnsAboutADefaultedBaseOnlyWhenTheConfigLacksIt) {
  // Defaulted rope_theta (docs/cli.md, rope inspect): a long max_position_embeddings with no rope_theta and no scaling.
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

TEST_F(CmdInspect, CommandLineFlagsShowWhereTheyCameFrom) {
  const Result r = rope_cli(
      {"inspect", "--model", "qwen3-8b", "--scaling", "yarn", "--factor", "4", "--original-max-position", "32768"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("rope_type: yarn (--scaling on the command line)"));
  EXPECT_THAT(r.out, HasSubstr("factor: 4 (--factor on the command line)"));
  EXPECT_THAT(r.out,
              HasSubstr("original_max_position_embeddings: 32768 (--original-max-position on the command line)"));
  // Qwen3 (docs/scaling.md §2, (S5)): M/L0 = 40960/32768 = 1.25 differs from factor 4: a warning.
  EXPECT_THAT(r.out, HasSubstr("1.25"));
}

TEST_F(CmdInspect, LongropeCountsUseTheFactorsHfUsesAtThatLength) {
  // Issue 13: Phi-3 within 131072 was counted with the short factors (47 of 48); HF uses the long ones
  // beyond L0 = 4096 (longrope_frequency_update), with which 31 of 48 pairs turn (λ_i·long_factor_i <= 131072).
  const Result r = rope_cli({"inspect", "--model", "phi-3-mini-128k"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("within max_position_embeddings 131072: 31 of 48 pairs complete a full turn (scaled "
                               "frequencies: long_factor, as HF uses at that length)"));
  EXPECT_THAT(r.out,
              HasSubstr("within original context L0 4096: 31 of 48 pairs complete a full turn (scaled frequencies: "
                        "short_factor"));
}

TEST_F(CmdInspect, AnEnginesContextFixesLongRopesList) {
  // vLLM (phi3_long_rope_scaled_rope.py @ 63c2b7abcd): max_model_len 131072 > L0 4096 takes the long list at start-up,
  // so within L0 too 18 of 48 pairs turn (HF's short list: 31); the rule is said, in both languages.
  const Result r = rope_cli({"inspect", "--model", "phi-3-mini-128k", "--engine", "vllm", "--max-model-len", "131072"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("within original context L0 4096: 18 of 48 pairs complete a full turn (scaled "
                               "frequencies: long_factor, the list seq_len 131072 fixes at every length)"));
  EXPECT_THAT(r.out, HasSubstr("long_factor: vLLM's rule, max_model_len 131072 > L0 4096, fixed at start-up"));
  const Result zh =
      rope_cli({"inspect", "--model", "phi-3-mini-128k", "--engine", "llamacpp", "--n-ctx", "4096", "--lang", "zh"});
  ASSERT_EQ(zh.code, 0) << zh.err;
  EXPECT_THAT(zh.out, HasSubstr("short_factor：llama.cpp 的规则，每个序列的 n_ctx 4096 <= L0 4096"));
  const Result alone = rope_cli({"inspect", "--model", "phi-3-mini-128k", "--n-ctx", "8192"});
  EXPECT_EQ(alone.code, 2);
  EXPECT_THAT(alone.err, HasSubstr("--n-ctx is the context of engine llamacpp: give --engine llamacpp"));
}

TEST_F(CmdInspect, YarnTargetLengthAndNoEmptyRanges) {
  const Result oss = rope_cli({"inspect", "--model", "gpt-oss-20b"});
  EXPECT_THAT(oss.out, HasSubstr("yarn target length       f·L0 = 131072 positions"));
  // base 2: the longest wavelength is 2π·2^(126/128) ≈ 12.4, so every pair turns within 4096.
  {
    std::ofstream f(path("small.json"));
    f << R"({"model_type": "llama", "head_dim": 128, "rope_theta": 2, "max_position_embeddings": 4096})";
  }
  const Result small = rope_cli({"inspect", path("small.json")});
  ASSERT_EQ(small.code, 0) << small.err;
  EXPECT_THAT(small.out, HasSubstr("none (original frequencies): every pair turns within 4096"));
  EXPECT_THAT(small.out, Not(HasSubstr("pairs 64 … 63")));
  // An explicit small base for a long context without scaling warns too (docs/scaling.md §8); the longest
  // wavelength 2π·10000^(126/128) = 54410 positions (M2).
  const Result mistral = rope_cli({"inspect", "--model", "mistral-7b-v0.1"});
  EXPECT_THAT(mistral.out, HasSubstr("rope_theta 10000 is small for max_position_embeddings 32768 with no scaling: the "
                                     "longest wavelength is 54410 positions"));
}

TEST_F(CmdInspect, OneBlockPerLayerType) {
  const Result r = rope_cli({"inspect", "--model", "gemma-3-4b"});
  ASSERT_EQ(r.code, 0) << r.err;
  // 34 layers (convert_gemma3_weights.py), every 6th full (Gemma3TextConfig's sliding_window_pattern 6).
  EXPECT_THAT(
      r.out,
      HasSubstr("  sliding_attention: 29 layers: 0–4, 6–10, 12–16, 18–22, 24–28, 30–33\n"
                "    base 10000, default scaling f = 1, attention factor 1 (rope_local_base_freq 10000, no scaling)"));
  EXPECT_THAT(r.out,
              HasSubstr("  full_attention: 5 layers: 5, 11, 17, 23, 29\n    base 1000000, linear scaling f = 8"));
  const Result sliding = rope_cli({"inspect", "--model", "gemma-3-4b", "--layer-type", "sliding_attention"});
  EXPECT_THAT(sliding.out, HasSubstr("this report: sliding_attention"));
  EXPECT_THAT(sliding.out, HasSubstr("  base (rope_theta)        10000\n"));
}

TEST_F(CmdInspect, SectionsShowTheAxisOfEveryPairAndTheWavelengthsPerAxis) {
  // data/models/README.md [23]: Qwen2-VL [16, 24, 24] chunked, base 1e6: λ_15 = 2π·10^(6·30/128) = 160.114,
  // λ_16 = 198.692, λ_40 = 35332.9 (M2).
  const Result r = rope_cli({"inspect", "--model", "qwen2-vl-7b"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("M-RoPE: mrope_section [16, 24, 24], chunked (docs/multi-axis.md (A1), (A2))"));
  EXPECT_THAT(r.out, HasSubstr("  t (time)          16  0 … 15                  6.28319 … 160.114\n"));
  EXPECT_THAT(r.out, HasSubstr("  w (width)         24  40 … 63                 35332.9 … 5.06326e+06\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("without mrope_section")));
  const Result zh = rope_cli({"inspect", "--model", "qwen3-vl-8b", "--lang", "zh"});
  EXPECT_THAT(zh.out, HasSubstr("h（高度）"));
  EXPECT_THAT(zh.out, HasSubstr("M-RoPE：mrope_section [24, 20, 20]，交错"));
  // inspect takes no --vision (a tower from --dim and --base): a tower is --model NAME --tower vision.
  expect_one_line_error(rope_cli({"inspect", "--vision", "pixtral"}), 2, "--vision");
  const Result json = rope_cli({"inspect", "--model", "qwen3-vl-8b", "--json"});
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["pair_axis"][61], 0);  // HF (A3): t; llama.cpp IMROPE would say 3 (test_axes.cpp)
  EXPECT_EQ(j["pair_axis"][58], 1);
  EXPECT_EQ(j["mrope_order"], "interleaved");
}

TEST_F(CmdInspect, AQwenThreeVlGgufShowsLlamaCppImropeWithTheFourthSlot) {
  // tests/io/write_gguf.py: qwen3vl, rope.dimension_sections [24, 20, 20, 0]. llama.cpp's IMROPE (A4)
  // sends pairs 61 and 62 to the slot "e" where HF's (A3) keeps them on t (test_axes.cpp).
  const Result r = rope_cli({"inspect", std::string(ROPE_GGUF_DIR) + "/qwen3-vl-8b.gguf"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out,
              HasSubstr("M-RoPE: mrope_section [24, 20, 20, 0], llama.cpp IMROPE (docs/multi-axis.md (A1), (A4))"));
  EXPECT_THAT(r.out, HasSubstr("  t (time)          22  0, 3, …, 63"));
  EXPECT_THAT(r.out, HasSubstr("  e (extra)          2  61, 62"));
}

TEST_F(CmdInspect, Llama4VisionTowerShowsItsHeadGridAndOneBasedPatches) {
  // data/models/llama-4-scout-17b-16e.json vision_config: hidden_size 1408 / 16 heads = 88 = 44 pairs,
  // rope_theta 10000, 336 / 14 = 24 patches per side. Llama4VisionRotaryEmbedding: freq_dim 44, θ_i =
  // 10000^(−2i/44), i = 0 … 21 for the column w (pairs 0 … 21) and again for the row h (22 … 43);
  // λ_21 = 2π·10000^(42/44) = 41339.2.
  const Result r = rope_cli({"inspect", "--model", "llama-4-scout-17b-16e", "--tower", "vision"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("RoPE of llama-4-scout-17b-16e vision_config (model_type llama4_vision_model)"));
  EXPECT_THAT(r.out, HasSubstr("  head_dim                 88\n"));
  EXPECT_THAT(r.out, HasSubstr("44 pairs"));
  EXPECT_THAT(r.out,
              HasSubstr("interleaved: pairs (2i, 2i+1) (model family llama4 vision: Llama4VisionRotaryEmbedding)"));
  EXPECT_THAT(
      r.out,
      HasSubstr(
          "2-D vision RoPE (llama4): each pair turns with the patch's row h or column w, counted from 1 ((V1), (V4))"));
  EXPECT_THAT(r.out, HasSubstr("  h (height)        22  22 … 43                 6.28319 … 41339.2\n"));
  EXPECT_THAT(r.out, HasSubstr("  w (width)         22  0 … 21                  6.28319 … 41339.2\n"));
  EXPECT_THAT(r.out, HasSubstr("head_dim: 88 (vision_config.hidden_size / vision_config.num_attention_heads)"));
  EXPECT_THAT(r.out, HasSubstr("patches per side: 24 (vision_config.image_size / vision_config.patch_size)"));
  EXPECT_THAT(r.out, HasSubstr("a patch's row and column 0 … 23 turn as 1 … 24"));
  // --json carries the same numbers: head_dim, the θ ladder twice, the axis of every pair (2 = w, 1 = h).
  const Result json = rope_cli({"inspect", "--model", "llama-4-scout-17b-16e", "--tower", "vision", "--json"});
  ASSERT_EQ(json.code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["head_dim"], 88);
  EXPECT_EQ(j["rotary_dim"], 88);
  EXPECT_EQ(j["base"], 10000.0);
  EXPECT_EQ(j["layout"], "interleaved");
  EXPECT_EQ(j["model_type"], "llama4_vision_model");
  ASSERT_EQ(j["inv_freq"].size(), 44u);
  ASSERT_EQ(j["pair_axis"].size(), 44u);
  for (int i = 0; i < 22; ++i) {
    EXPECT_NEAR(j["inv_freq"][i].get<double>(), std::pow(10000.0, -2.0 * i / 44), 2e-16) << i;  // an ulp of pow
    EXPECT_EQ(j["inv_freq"][i + 22], j["inv_freq"][i]) << i;
    EXPECT_EQ(j["pair_axis"][i], 2) << i;
    EXPECT_EQ(j["pair_axis"][i + 22], 1) << i;
  }
  EXPECT_EQ(j["vision"], "llama4");
  EXPECT_EQ(j["position_axes"], "h,w");
  EXPECT_EQ(j["position_offset"], 1.0);
  EXPECT_FALSE(j.contains("mrope_section"));  // the vision map is fixed by the kind, not by sections
  EXPECT_THAT(j["origin"].dump(), HasSubstr("patches per side: 24"));
  EXPECT_THAT(j["notes"].dump(), HasSubstr("a patch's row and column 0 … 23 turn as 1 … 24"));
}

TEST_F(CmdInspect, VisionTowerConfigFilesAndTheirRefusals) {
  const auto write = [this](const std::string& name, const std::string& text) {
    std::ofstream(path(name)) << text;
    return path(name);
  };
  // A Pixtral tower's own config (model_type pixtral, no text_config) is read as the tower by default.
  const std::string pix = write("pixtral.json", R"({"model_type": "pixtral", "head_dim": 64, "hidden_size": 1024,
      "num_attention_heads": 16, "image_size": 1024, "patch_size": 16, "rope_theta": 10000.0})");
  const Result r = rope_cli({"inspect", "--config", pix});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("model_type pixtral is a vision tower's config: read as its 2-D RoPE"));
  EXPECT_THAT(r.out, HasSubstr("2-D vision RoPE (pixtral)"));
  // (V3) at d = 64: the row takes θ_i = 10000^(−2i/64) for even i (λ up to 2π·10000^(60/64) = 35332.9), the
  // column the odd i (2π·10000^(2/64) = 8.37876 … 2π·10000^(62/64) = 47117.2).
  EXPECT_THAT(r.out, HasSubstr("  h (height)        16  0 … 15                  6.28319 … 35332.9\n"));
  EXPECT_THAT(r.out, HasSubstr("  w (width)         16  16 … 31                 8.37876 … 47117.2\n"));
  EXPECT_THAT(r.out, HasSubstr("rows and columns 0 … 63"));
  const Result tower = rope_cli({"inspect", "--config", pix, "--tower", "vision"});  // the same, without the note
  ASSERT_EQ(tower.code, 0) << tower.err;
  EXPECT_THAT(tower.out, Not(HasSubstr("is a vision tower's config")));
  EXPECT_THAT(tower.out, HasSubstr("  w (width)         16  16 … 31                 8.37876 … 47117.2\n"));
  expect_one_line_error(
      rope_cli({"inspect", "--config", pix, "--tower", "text"}), 2,
      "--tower text: " + pix + " is the config of a vision tower (model_type pixtral), it has no language model");
  // An unknown vision model_type: the language model is still read; --tower vision names the type.
  const std::string sig =
      write("siglip.json", R"({"model_type": "llava", "text_config": {"head_dim": 128, "rope_theta": 1000000.0},
      "vision_config": {"model_type": "siglip_vision_model", "hidden_size": 1152, "num_attention_heads": 16}})");
  const Result text = rope_cli({"inspect", "--config", sig});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("  head_dim                 128\n"));
  expect_one_line_error(
      rope_cli({"inspect", "--config", sig, "--tower", "vision"}), 2,
      "vision_config has model_type 'siglip_vision_model' (in a 'llava' config), whose RoPE rope does not know");
  const std::string nd = write("nd.json", R"({"model_type": "llava", "text_config": {"head_dim": 128},
      "vision_config": {"model_type": "qwen2_5_vl", "hidden_size": 1000, "num_heads": 16}})");
  EXPECT_EQ(rope_cli({"inspect", "--config", nd}).code, 0);
  expect_one_line_error(rope_cli({"inspect", "--config", nd, "--tower", "vision"}), 2,
                        "vision_config.hidden_size: 1000 is not divisible by vision_config.num_heads = 16");
  const std::string odd = write("p66.json", R"({"model_type": "llava", "text_config": {"head_dim": 128},
      "vision_config": {"model_type": "pixtral", "head_dim": 66}})");
  expect_one_line_error(
      rope_cli({"inspect", "--config", odd, "--tower", "vision"}), 2,
      "vision_config.head_dim: 66 is not a multiple of 4 between 4 and 65536 (a 2-D vision RoPE gives each axis half of the head's pairs)");
  // A text-only preset has no tower; a vision-language one says it has one.
  expect_one_line_error(rope_cli({"inspect", "--model", "llama-2-7b", "--tower", "vision"}), 2,
                        "--tower vision: llama-2-7b has no vision_config");
  EXPECT_THAT(rope_cli({"inspect", "--model", "qwen2.5-vl-7b"}).out,
              HasSubstr("qwen2.5-vl-7b also has a vision tower (qwen2_5_vl): --tower vision gives its 2-D RoPE"));
}

// Proportional RoPE (S14) pairs the whole head and turns int(partial_rotary_factor · head_dim) / 2 of its pairs
// (HF _compute_proportional_rope_parameters): Gemma 4's full layers, head 512 and factor 0.25, turn 64 of 256 pairs.
// The rotary dim is the head's, not int(512 × 0.25), which the report once claimed it was.
TEST_F(CmdInspect, ProportionalRopeSaysItPairsTheWholeHeadAndTurnsAQuarter) {
  const Result r = rope_cli({"inspect", "--model", "gemma-4-26b-a4b", "--layer-type", "full_attention"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("512, the whole head: 256 pairs, of which partial_rotary_factor 0.25 turns 64"));
  EXPECT_THAT(r.out, HasSubstr("192 unrotated"));
  EXPECT_THAT(r.out, Not(HasSubstr("int(512 × partial_rotary_factor 0.25)")));
}

TEST_F(CmdInspect, AnIndexerOnTheFirstChannelsShowsItsOwnLayoutAndChannels) {
  // tests/io/write_gguf.py: deepseek32, MLA heads of 192 turning their last 64 (NORM); its indexer's heads of 128 turn
  // their first 64 NEOX (src/models/deepseek32.cpp:179, 233-248).
  const Result r = rope_cli({"inspect", std::string(ROPE_GGUF_DIR) + "/deepseek32.gguf"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(
      r.out,
      HasSubstr("  indexer: 3 layers: 0–2\n    head_dim 128, rotary dim 64\n    half layout (llama.cpp rope type "
                "NEOX of the indexer of deepseek32 (src/models/deepseek32.cpp:179-180,226-249)), rotating "
                "channels 0–63 of 128\n"));
  const Result j =
      rope_cli({"inspect", std::string(ROPE_GGUF_DIR) + "/deepseek32.gguf", "--layer-type", "indexer", "--json"});
  ASSERT_EQ(j.code, 0) << j.err;
  EXPECT_THAT(j.out, HasSubstr("\"rotating_channels\": [\n    0,\n    64\n  ]"));
  EXPECT_THAT(j.out, HasSubstr("\"layout\": \"half\""));
}

TEST_F(CmdInspect, DynamicNamesTheSeqLenWhoseFrequenciesItCounts) {
  // With --seq-len 8192 the counts use base' at seq_len 8192 (HF's dynamic update at that length), and say so;
  // without it, the length of each fact.
  std::ofstream(path("d.json")) << R"({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
      "max_position_embeddings": 4096, "rope_theta": 10000, "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}})";
  const Result given = rope_cli({"inspect", "--config", path("d.json"), "--seq-len", "8192"});
  ASSERT_EQ(given.code, 0) << given.err;
  EXPECT_THAT(given.out, HasSubstr("within max_position_embeddings 4096: 41 of 64 pairs complete a full turn (scaled "
                                   "frequencies: base' at seq_len 8192, as HF uses at that length)"));
  const Result plain = rope_cli({"inspect", "--config", path("d.json")});
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_THAT(plain.out, HasSubstr("within max_position_embeddings 4096: 46 of 64 pairs complete a full turn (scaled "
                                   "frequencies: base' at seq_len 4096, as HF uses at that length)"));
}

}  // namespace
}  // namespace rope
