// Reading checkpoints tensor by tensor (io/weights_file.hpp): a sharded Hugging Face directory by its index, single
// safetensors files, a GGUF's tensor directory; and the refusals of bad input, each one line before anything is read
// past the file.
#include "rope/io/weights_file.hpp"

#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rope/core/error.hpp"
#include "support/temp_dir_test.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;

std::string weights_file_dir() { return std::string(ROPE_REFERENCE_DIR) + "/../../data/weights/"; }

class WeightsFile : public test::TempDirTest {
 protected:
  void write(const std::string& name, const std::string& bytes) {
    std::ofstream(path(name), std::ios::binary) << bytes;
  }
  std::string bytes_of(const std::string& p) { return read(p); }
};

TEST_F(WeightsFile, ShardedDirectoryByItsIndex) {
  const WeightFile w = open_weights(weights_file_dir() + "llama-hf");
  EXPECT_EQ(w.format, WeightFormat::Safetensors);
  EXPECT_EQ(w.files.size(), 2u);
  EXPECT_THAT(w.config, HasSubstr("llama-hf/config.json"));
  ASSERT_EQ(w.tensors.size(), 3u);
  const WeightTensor* q = w.find("model.layers.0.self_attn.q_proj.weight");
  const WeightTensor* k = w.find("model.layers.0.self_attn.k_proj.weight");
  ASSERT_TRUE(q && k);
  EXPECT_NE(q->file, k->file);  // the two shards
  EXPECT_EQ(q->shape, (std::vector<long>{128, 256}));
  EXPECT_EQ(k->shape, (std::vector<long>{32, 256}));
  EXPECT_EQ(q->dtype, "F16");
  EXPECT_EQ(read_weight(w, *k).size(), 32u * 256u);
}

TEST_F(WeightsFile, GgufDirectoryRowsFirst) {
  const WeightFile w = open_weights(weights_file_dir() + "llama-q4_k_m.gguf");
  EXPECT_EQ(w.format, WeightFormat::Gguf);
  const WeightTensor* q = w.find("blk.0.attn_q.weight");
  const WeightTensor* k = w.find("blk.0.attn_k.weight");
  ASSERT_TRUE(q && k);
  EXPECT_EQ(q->shape, (std::vector<long>{128, 256}));  // GGUF dims [256, 128]: 128 rows of 256
  EXPECT_EQ(q->dtype, "Q4_K");
  EXPECT_EQ(k->dtype, "Q6_K");
  EXPECT_EQ(q->bytes, 128u * 144u);
}

TEST_F(WeightsFile, TruncatedGgufRefusedAtOpening) {
  const std::string all = bytes_of(weights_file_dir() + "llama-f16.gguf");
  write("cut.gguf", all.substr(0, all.size() - 100));
  try {
    open_weights(path("cut.gguf"));
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("run past the end of the file"));
  }
}

TEST_F(WeightsFile, TruncatedSafetensorsRefused) {
  const std::string all = bytes_of(weights_file_dir() + "mha-hf/model.safetensors");
  write("cut.safetensors", all.substr(0, all.size() - 2));
  EXPECT_THROW(open_weights(path("cut.safetensors")), InvalidArgument);
  write("tiny.safetensors", all.substr(0, 5));
  EXPECT_THROW(open_weights(path("tiny.safetensors")), InvalidArgument);
}

TEST_F(WeightsFile, HugeHeaderRefusedBeforeReading) {
  std::string bytes(8, '\0');
  const std::uint64_t n = (std::uint64_t{1} << 40);
  for (int i = 0; i < 8; ++i) bytes[static_cast<std::size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xFF);
  write("huge.safetensors", bytes + "{}");
  try {
    open_weights(path("huge.safetensors"));
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("16 MiB"));
  }
}

TEST_F(WeightsFile, DirectoryWithoutWeights) {
  std::filesystem::create_directories(path("empty"));
  EXPECT_THROW(open_weights(path("empty")), InvalidArgument);
}

TEST_F(WeightsFile, MissingFileIsIoError) { EXPECT_THROW(open_weights(path("nothing.gguf")), IoError); }

struct BadIndex {
  const char* name;
  const char* json;
  const char* says;
};
class WeightsIndex : public ::testing::TestWithParam<BadIndex> {};

TEST_P(WeightsIndex, RefusedNamingTheRule) {
  try {
    parse_safetensors_index(GetParam().json, "index.json");
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr(GetParam().says));
    EXPECT_THAT(e.what(), HasSubstr("index.json"));
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, WeightsIndex,
                         ::testing::Values(BadIndex{"not_json", "{\"weight_map\": ", "not valid JSON"},
                                           BadIndex{"no_map", "{\"metadata\": {}}", "weight_map"},
                                           BadIndex{"empty_map", "{\"weight_map\": {}}", "weight_map"},
                                           BadIndex{"number", "{\"weight_map\": {\"a\": 3}}", "shard's file name"},
                                           BadIndex{"path", "{\"weight_map\": {\"a\": \"../x.safetensors\"}}",
                                                    "not a file name"},
                                           BadIndex{"dotdot", "{\"weight_map\": {\"a\": \"..\"}}", "not a file name"}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(WeightsIndexGood, SortedPairs) {
  const auto map =
      parse_safetensors_index(R"({"metadata": {}, "weight_map": {"b": "2.safetensors", "a": "1.safetensors"}})", "i");
  ASSERT_EQ(map.size(), 2u);
  EXPECT_EQ(map[0].first, "a");
  EXPECT_EQ(map[1].second, "2.safetensors");
}

TEST_F(WeightsFile, IndexNamingATensorItsShardLacks) {
  std::filesystem::create_directories(path("m"));
  std::filesystem::copy_file(weights_file_dir() + "mha-hf/model.safetensors", path("m/model-1.safetensors"));
  write("m/model.safetensors.index.json", R"({"weight_map": {"model.layers.0.self_attn.q_proj.weight":
      "model-1.safetensors", "model.layers.0.self_attn.v_proj.weight": "model-1.safetensors"}})");
  try {
    open_weights(path("m"));
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("v_proj"));
  }
}

}  // namespace
}  // namespace rope
