// rope/models/resolve.hpp: one resolution of a model's RoPE, with one spec per layer type.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>

#include "rope/report/inspect_report.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/models/presets.hpp"
#include "rope/models/resolve.hpp"

namespace rope {
namespace {

TEST(Resolve, PlainRopeOfTheOverridesHeadDimensionAndBase) {
  RopeOverrides o;
  o.head_dim = 16;
  o.base = 500.0;
  const ModelRope r = resolve_model_rope({}, o);
  EXPECT_TRUE(r.plain);
  EXPECT_FALSE(r.spec.from_model);
  EXPECT_EQ(r.spec.rotary_dim, 16);
  EXPECT_EQ(r.spec.params.inv_freq, frequencies(16, 500.0));
  EXPECT_EQ(r.spec.original, frequencies(16, 500.0));
  EXPECT_EQ(r.spec.attention_factor(), 1.0);
  EXPECT_TRUE(r.layers.empty());
  EXPECT_EQ(r.layer(0), nullptr);
  o.factor = 2.0;
  o.scaling = "linear";
  EXPECT_FALSE(resolve_model_rope({}, o).plain);  // scaled: no longer plain, though without a model
}

TEST(Resolve, Gemma3HasOneSpecPerLayerType) {
  // gemma-3-4b (HF Gemma3TextConfig): full layers base 1e6 with linear factor 8, sliding layers
  // rope_local_base_freq 10000 unscaled; every 6th layer (5, 11, …) is full.
  const ModelRope r = resolve_model_rope({"gemma-3-4b", ""}, {});
  ASSERT_EQ(r.layers.size(), 2u);
  EXPECT_EQ(r.spec.layer_type, "full_attention");
  const LayerRope* full = r.layer(5);
  const LayerRope* sliding = r.layer(4);
  ASSERT_NE(full, nullptr);
  ASSERT_NE(sliding, nullptr);
  EXPECT_EQ(full->type, "full_attention");
  EXPECT_EQ(sliding->type, "sliding_attention");
  ASSERT_TRUE(full->spec && sliding->spec);
  EXPECT_EQ(full->spec->params.inv_freq, r.spec.params.inv_freq);  // the default layer type's is the spec
  EXPECT_EQ(full->spec->params.inv_freq, frequencies(256, 1e6) / 8.0);
  EXPECT_EQ(sliding->spec->params.inv_freq, frequencies(256, 10000.0));
  EXPECT_EQ(sliding->spec->layer_type, "sliding_attention");
  EXPECT_EQ(r.layer(10000), nullptr);
}

TEST(Resolve, EachLayerTypesSpecIsWhatSelectingItGives) {
  RopeOverrides o;
  o.layout = Layout::Interleaved;
  const ModelRope r = resolve_model_rope({"gemma-3-4b", ""}, o);
  o.layer_type = "sliding_attention";
  const ModelRope selected = resolve_model_rope({"gemma-3-4b", ""}, o);
  EXPECT_EQ(selected.spec.layer_type, "sliding_attention");
  ASSERT_TRUE(r.layer(4) && r.layer(4)->spec);
  EXPECT_EQ(r.layer(4)->spec->params.inv_freq, selected.spec.params.inv_freq);
  EXPECT_EQ(r.layer(4)->spec->layout, Layout::Interleaved);  // the overrides reach every layer type
  ASSERT_EQ(selected.layers.size(), 2u);
  EXPECT_EQ(selected.layer(5)->spec->params.inv_freq, r.spec.params.inv_freq);
}

TEST(Resolve, Llama4NopeLayersHaveNoSpec) {
  const ModelRope r = resolve_model_rope({"llama-4-scout-17b-16e", ""}, {});
  ASSERT_EQ(r.layers.size(), 2u);
  const LayerRope* nope = r.layer(3);
  ASSERT_NE(nope, nullptr);
  EXPECT_EQ(nope->type, "nope");
  EXPECT_FALSE(nope->spec.has_value());
  ASSERT_TRUE(r.layer(0)->spec.has_value());
  EXPECT_EQ(r.layer(0)->spec->params.inv_freq, r.spec.params.inv_freq);
}

TEST(Resolve, AnOverrideWinsAndOriginSaysSo) {
  RopeOverrides o;
  o.factor = 4.0;
  const ModelRope r = resolve_model_rope({"llama-3.1-8b", ""}, o);
  EXPECT_EQ(r.spec.config.factor, 4.0);
  bool said = false;
  for (const Message& line : r.spec.origin) said = said || line.en.find("factor: 4") != std::string::npos;
  EXPECT_TRUE(said);
  o.head_dim = 7;
  EXPECT_THROW(resolve_model_rope({}, o), InvalidArgument);
}

// The spec is the one copy of the model's RoPE, the overrides applied: a typed layout and base are what its
// layout, scaling inputs, origin and notes say.
TEST(Resolve, TheSpecIsTheOneCopyOfTheOverriddenRope) {
  RopeOverrides o;
  o.layout = Layout::Interleaved;
  o.base = 250000.0;
  const ModelRope r = resolve_model_rope({"llama-3.1-8b", ""}, o);
  EXPECT_EQ(r.spec.name, "llama-3.1-8b");
  EXPECT_EQ(r.spec.model_type, "llama");
  EXPECT_EQ(r.spec.layout, Layout::Interleaved);
  EXPECT_EQ(r.spec.config.layout, Layout::Interleaved);  // was the model's half
  EXPECT_EQ(r.spec.config.base, 250000.0);
  EXPECT_EQ(r.spec.config.type, ScalingType::Llama3);
  std::vector<std::string> origin, notes;
  for (const Message& line : r.spec.origin) origin.push_back(line.en);
  for (const Message& line : r.spec.notes) notes.push_back(line.en);
  // (the setting's name is the front end's: option_name, core/message.hpp)
  EXPECT_THAT(origin, ::testing::Contains(::testing::StartsWith("layout: interleaved (")));
  EXPECT_THAT(origin,
              ::testing::Contains(::testing::AllOf(::testing::StartsWith("base: "), ::testing::HasSubstr("250000"))));
  EXPECT_THAT(notes, ::testing::Contains(::testing::HasSubstr("overrides the model's half layout")));
  // Each layer type's spec says how its base and scaling were found, as the model's layer types do.
  const ModelRope gemma = resolve_model_rope({"gemma-3-4b", ""}, {});
  const ModelConfig preset = load_preset("gemma-3-4b");
  ASSERT_EQ(gemma.layers.size(), preset.layer_types.size());
  for (std::size_t i = 0; i < gemma.layers.size(); ++i) {
    EXPECT_FALSE(gemma.layers[i].from.en.empty());
    EXPECT_EQ(gemma.layers[i].from.en, preset.layer_types[i].from.en);
  }
}

// The report of a model with a typed layout (Python's Spec(preset, layout=...).describe()): its layout row is the
// spec's, as its reason, origin and notes are (the row read a second copy of the model's, which still said half).
TEST(Resolve, ATypedLayoutIsTheLayoutOfTheReport) {
  RopeOverrides o;
  o.layout = Layout::Interleaved;
  const std::string text = inspect_text(resolve_model_rope({"llama-3.1-8b", ""}, o), Lang::En, kInspectDigits);
  EXPECT_THAT(text, ::testing::HasSubstr("  layout                   interleaved: pairs (2i, 2i+1) ("));
  EXPECT_THAT(text, ::testing::Not(::testing::HasSubstr("half (rotate_half)")));
  EXPECT_THAT(text, ::testing::HasSubstr("\n  layout: interleaved ("));
  EXPECT_THAT(text, ::testing::HasSubstr("overrides the model's half layout (model family llama)"));
  const std::string own = inspect_text(resolve_model_rope({"llama-3.1-8b", ""}, {}), Lang::En, kInspectDigits);
  EXPECT_THAT(own, ::testing::HasSubstr(
                       "  layout                   half (rotate_half): pairs (i, i + d/2) (model family llama)\n"));
}

// rope positions reads a model's rules through the one resolution.
TEST(Resolve, ThePositionRulesOfAResolvedModel) {
  const SequencePositions qwen = sequence_positions_of(resolve_model_rope({"qwen2.5-vl-7b", ""}, {}));
  const SequencePositions own = sequence_positions_of(load_preset("qwen2.5-vl-7b"));
  EXPECT_EQ(qwen.family, "Qwen2.5-VL");
  EXPECT_EQ(qwen.rules.spatial_merge_size, own.rules.spatial_merge_size);
  EXPECT_EQ(qwen.rules.tokens_per_second, own.rules.tokens_per_second);
  try {
    sequence_positions_of(resolve_model_rope({"llama-3.1-8b", ""}, {}));
    ADD_FAILURE() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(),
                ::testing::StartsWith("llama-3.1-8b (model_type 'llama') has no M-RoPE position ids rope knows"));
  }
}

TEST(Resolve, ALayerTypeWithoutRopeIsRefusedSayingSo) {
  // SmolLM3's every 4th layer (no_rope_layers) rotates nothing; only Llama 4's NoPE layers have a temperature.
  RopeOverrides o;
  o.layer_type = "3";
  const auto message = [&](const std::string& preset_or_file, bool file) {
    try {
      resolve_model_rope(file ? ModelSource{"", preset_or_file} : ModelSource{preset_or_file, ""}, o);
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("llama-4-scout-17b-16e", false).find("query temperature"), std::string::npos);
  const std::string path = ::testing::TempDir() + "smollm3.json";
  std::ofstream(path) << R"({"model_type": "smollm3", "head_dim": 128, "num_hidden_layers": 8})";
  const std::string smol = message(path, true);
  EXPECT_NE(smol.find("have no RoPE, they rotate nothing"), std::string::npos) << smol;
  EXPECT_EQ(smol.find("temperature"), std::string::npos) << smol;
}

}  // namespace
}  // namespace rope
