// The family table's fused_qkv column read from config.json (models/hf/hf_fused_qkv.hpp): which row layout and how
// many KV heads a family's query_key_value holds under its config's keys, as each family's modeling code splits it
// (the sources in data/families.json), and where q's and k's rows lie in it.
#include "rope/models/hf/hf_fused_qkv.hpp"

#include <fstream>
#include <gtest/gtest.h>

#include "rope/core/error.hpp"
#include "support/temp_dir_test.hpp"

namespace rope {
namespace {

struct FusedConfigCase {
  const char* name;
  const char* model_type;
  const char* config;
  FusedQkvLayout layout;
  long n_head_kv;
  const char* rule;
};

class FusedQkvConfigs : public test::TempDirTest, public ::testing::WithParamInterface<FusedConfigCase> {};

TEST_P(FusedQkvConfigs, ChooseTheFamilysLayout) {
  const FusedConfigCase& c = GetParam();
  const std::string path = this->path("config.json");
  std::ofstream(path) << c.config;
  const auto split = hf_fused_qkv_split(path, c.model_type, 8);
  ASSERT_TRUE(split);
  EXPECT_EQ(split->layout, c.layout);
  EXPECT_EQ(split->n_head, 8);
  EXPECT_EQ(split->n_head_kv, c.n_head_kv);
  EXPECT_EQ(split->rule, c.rule);
  EXPECT_EQ(split->tensor, "query_key_value");
  EXPECT_FALSE(split->source.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Families, FusedQkvConfigs,
    ::testing::Values(
        // GPT-NeoX: [q, k, v] per head, always.
        FusedConfigCase{"gpt_neox", "gpt_neox", R"({"model_type": "gpt_neox"})", FusedQkvLayout::PerHead, 8, ""},
        // Falcon: new_decoder_architecture groups by num_kv_heads (or the old n_head_kv); multi_query (FalconConfig's
        // default, true) stacks H q heads, one k and one v; neither: [q, k, v] per head.
        FusedConfigCase{"falcon_new_decoder", "falcon",
                        R"({"model_type": "falcon", "new_decoder_architecture": true, "num_kv_heads": 2})",
                        FusedQkvLayout::KvGroups, 2, "new_decoder_architecture"},
        FusedConfigCase{"falcon_new_decoder_old_key", "falcon",
                        R"({"model_type": "falcon", "new_decoder_architecture": true, "n_head_kv": 4})",
                        FusedQkvLayout::KvGroups, 4, "new_decoder_architecture"},
        FusedConfigCase{"falcon_multi_query_by_default", "falcon", R"({"model_type": "falcon"})",
                        FusedQkvLayout::Stacked, 1, "multi_query"},
        FusedConfigCase{"falcon_per_head", "falcon", R"({"model_type": "falcon", "multi_query": false})",
                        FusedQkvLayout::PerHead, 8, ""},
        // ChatGLM: multi_query_attention stacks q, then multi_query_group_num k and v heads; else per head.
        FusedConfigCase{"chatglm_multi_query", "chatglm",
                        R"({"model_type": "chatglm", "multi_query_attention": true, "multi_query_group_num": 2})",
                        FusedQkvLayout::Stacked, 2, "multi_query_attention"},
        FusedConfigCase{"chatglm_multi_query_default_groups", "chatglm",
                        R"({"model_type": "chatglm", "multi_query_attention": true})", FusedQkvLayout::Stacked, 1,
                        "multi_query_attention"},
        FusedConfigCase{"chatglm_per_head", "chatglm", R"({"model_type": "chatglm"})", FusedQkvLayout::PerHead, 8, ""}),
    [](const auto& info) { return std::string(info.param.name); });

class FusedQkvRefusals : public test::TempDirTest {};

TEST_F(FusedQkvRefusals, AFamilyWithoutTheColumnHasNoSplit) {
  const std::string p = path("config.json");
  std::ofstream(p) << R"({"model_type": "llama"})";
  EXPECT_FALSE(hf_fused_qkv_split(p, "llama", 8));
}

TEST_F(FusedQkvRefusals, KvHeadsThatDoNotDivideTheQueryHeads) {
  const std::string p = path("config.json");
  std::ofstream(p) << R"({"model_type": "falcon", "new_decoder_architecture": true, "num_kv_heads": 3})";
  EXPECT_THROW(hf_fused_qkv_split(p, "falcon", 8), InvalidArgument);
  std::ofstream(p) << R"({"model_type": "falcon", "multi_query": "yes"})";
  EXPECT_THROW(hf_fused_qkv_split(p, "falcon", 8), InvalidArgument);
}

// Where q's and k's rows lie: 8 query heads, heads of 4 rows; 2 KV heads (8 per head).
struct FusedRowsCase {
  const char* name;
  FusedQkvLayout layout;
  long n_head_kv;
  bool key;
  long groups, group_rows, offset, rows;
};

class FusedRowsOf : public ::testing::TestWithParam<FusedRowsCase> {};

TEST_P(FusedRowsOf, EachLayout) {
  const FusedRowsCase& c = GetParam();
  FusedQkvSplit s;
  s.n_head = 8;
  s.n_head_kv = c.n_head_kv;
  s.layout = c.layout;
  const FusedRows r = fused_rows(s, 4, c.key);
  EXPECT_EQ(r.groups, c.groups);
  EXPECT_EQ(r.group_rows, c.group_rows);
  EXPECT_EQ(r.offset, c.offset);
  EXPECT_EQ(r.rows, c.rows);
}

INSTANTIATE_TEST_SUITE_P(Layouts, FusedRowsOf,
                         ::testing::Values(
                             // [q 0..31; k 32..39; v 40..47]
                             FusedRowsCase{"stacked_q", FusedQkvLayout::Stacked, 2, false, 1, 48, 0, 32},
                             FusedRowsCase{"stacked_k", FusedQkvLayout::Stacked, 2, true, 1, 48, 32, 8},
                             // per group of 4 q heads: [q 16 rows; k 4; v 4]
                             FusedRowsCase{"kv_groups_q", FusedQkvLayout::KvGroups, 2, false, 2, 24, 0, 16},
                             FusedRowsCase{"kv_groups_k", FusedQkvLayout::KvGroups, 2, true, 2, 24, 16, 4},
                             // per head: [q 4; k 4; v 4]
                             FusedRowsCase{"per_head_q", FusedQkvLayout::PerHead, 8, false, 8, 12, 0, 4},
                             FusedRowsCase{"per_head_k", FusedQkvLayout::PerHead, 8, true, 8, 12, 4, 4}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace rope
