// rope/models/gguf/llama_architectures.hpp: llama.cpp's architectures as the rows "llama_cpp" of data/families.json.
// The expected values are transcribed here from llama.cpp's source at the node-llama-cpp 3.22.1 bundle (commit
// de3ff815ea7d), file and line given, not read from the table; tests/conformance/llama_rope_types.py compares every
// row with that source itself.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "rope/models/gguf/llama_architectures.hpp"

namespace rope {
namespace {

const GgufArchitecture& row(std::string_view name) {
  const GgufArchitecture* a = find_gguf_architecture(name);
  if (!a) throw std::runtime_error("no row " + std::string(name));
  return *a;
}

TEST(LlamaArchitectures, OneRowPerArchitectureWithItsEnumName) {
  std::set<std::string> names, enums;
  for (const GgufArchitecture& a : gguf_architectures()) {
    EXPECT_TRUE(names.insert(a.name).second) << a.name;
    EXPECT_TRUE(enums.insert(a.llm_arch).second) << a.llm_arch;
    EXPECT_EQ(a.llm_arch.rfind("LLM_ARCH_", 0), 0u) << a.name;
  }
  EXPECT_EQ(names.size(), 152u);  // llama_model_rope_type's cases at de3ff815ea7d
  EXPECT_EQ(gguf_architectures_commit(), "de3ff815ea7d559ee917f063901b8986f038abc6");
  EXPECT_EQ(row("gpt-oss").llm_arch, "LLM_ARCH_OPENAI_MOE");  // src/llama-arch.cpp: the name differs
  EXPECT_EQ(find_gguf_architecture("mistral"), nullptr);      // llama.cpp stores Mistral as llama
}

TEST(LlamaArchitectures, SlidingRulesAreTheArchitecturesThatReadFreqBaseSwa) {
  using Rule = LlamaSlidingRule;
  int sliding = 0;
  for (const GgufArchitecture& a : gguf_architectures()) {
    if (!a.sliding) continue;
    ++sliding;
    EXPECT_FALSE(a.sliding->source.empty()) << a.name;
    EXPECT_EQ(a.sliding->source, a.layers_source) << a.name;
    EXPECT_NE(a.type, GgufRopeType::None) << a.name;
  }
  EXPECT_EQ(sliding, 25);
  // src/models/gemma3.cpp:3-12: load_swa_pattern(ml, 6) only with sliding_window > 0; freq_base_swa else 10000,
  // unscaled.
  const Rule& g3 = *row("gemma3").sliding;
  EXPECT_EQ(g3.pattern, 6);
  EXPECT_FALSE(g3.dense_first);
  EXPECT_EQ(g3.gate, Rule::Gate::Window);
  EXPECT_EQ(g3.base, Rule::SwaBase::KeyElse10000);
  EXPECT_FALSE(g3.scaled);
  EXPECT_EQ(g3.rotates, Rule::Rotates::All);
  // src/models/cohere2moe.cpp:28 load_swa_pattern(ml, 4, true); :184 RoPE on the sliding layers and the dense lead.
  const Rule& c2 = *row("cohere2moe").sliding;
  EXPECT_EQ(c2.pattern, 4);
  EXPECT_TRUE(c2.dense_first);
  EXPECT_EQ(c2.base, Rule::SwaBase::Global);
  EXPECT_EQ(c2.rotates, Rule::Rotates::SlidingOrLead);
  // src/models/llama4.cpp:19 pattern 4 unless sliding_window 0; :143 no RoPE where (il + 1) % step == 0.
  EXPECT_EQ(row("llama4").sliding->gate, Rule::Gate::WindowUnlessZero);
  EXPECT_EQ(row("llama4").sliding->rotates, Rule::Rotates::Llama4);
  EXPECT_EQ(row("exaone4").sliding->gate, Rule::Gate::Layers64);  // src/models/exaone4.cpp:4-11
  // src/models/dots3note.cpp:23-34: the sliding layers' MLA head, their rotary dim the model's n_rot.
  const Rule& d3 = *row("dots3note").sliding;
  EXPECT_TRUE(d3.own_dims);
  EXPECT_EQ(d3.swa_head_key, "attention.key_length_mla_swa");
  EXPECT_FALSE(d3.swa_rot_key);
  EXPECT_EQ(row("gemma4").sliding->swa_head_key, "attention.key_length_swa");
  EXPECT_EQ(row("mimo2").sliding->pattern, 0);  // src/models/mimo2.cpp:3-13: the array only
  EXPECT_FALSE(row("llama").sliding);
}

TEST(LlamaArchitectures, RulesDecidedInCodeWithNoKey) {
  // MLA heads: the loaders that read attention.key_length_mla (src/models/deepseek2.cpp:16, ...).
  std::set<std::string> mla, last;
  for (const GgufArchitecture& a : gguf_architectures()) {
    if (a.key_length_mla) mla.insert(a.name);
    if (a.last_channels) last.insert(a.name);
  }
  EXPECT_EQ(mla, (std::set<std::string>{"bailingmoe3", "deepseek2", "deepseek32", "dots3note", "glm-dsa", "hy_v4",
                                        "mistral4"}));
  // ...and with ggml_rope_set_offset (deepseek4.cpp:923-935, minicpm3.cpp:165-170, plm.cpp:136-141) the last channels.
  EXPECT_EQ(last, (std::set<std::string>{"bailingmoe3", "deepseek2", "deepseek32", "deepseek4", "dots3note", "glm-dsa",
                                         "hy_v4", "minicpm3", "mistral4", "plm"}));
  EXPECT_EQ(row("smollm3").nope_every, 4);                                   // src/models/smollm3.cpp:5
  EXPECT_EQ(row("granite").rope_off_when_false, "rope.scaling.finetuned");   // src/models/granite.cpp:33-37
  EXPECT_EQ(row("granite_swa").rope_pattern_key, "attention.rope_pattern");  // src/models/granite-swa.cpp:43
  EXPECT_EQ(row("step35").full_rotary_divisor, 2);                           // src/models/step35.cpp:9
  EXPECT_EQ(row("hunyuan_vl").base_alpha_key, "rope.scaling.alpha");         // src/models/hunyuan-vl.cpp:7-12
  EXPECT_EQ(row("deepseek4").layers_code, "deepseek4");
  EXPECT_EQ(row("dflash").layers_code, "dflash");
  EXPECT_TRUE(row("dflash").sections_any);  // src/llama-model.cpp:3053-3059
  EXPECT_EQ(row("dflash").with_sections, GgufRopeType::Mrope);
  EXPECT_TRUE(row("llama").converter_permutes_qk);
  EXPECT_EQ(row("qwen2").nope_every, 0);
}

}  // namespace
}  // namespace rope
