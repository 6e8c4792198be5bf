// ggml's block decoders (io/ggml_blocks.hpp) against llama.cpp's own: the files of tests/reference/weights/ were
// quantized by gguf-py (Q8_0, Q4_0) and by ggml's ggml_quantize_chunk (Q4_K, Q6_K), and gguf-py's dequantizer wrote
// the first row of each q/k tensor to dequantized.json (tests/reference/weights.py). rope's values must be the same
// floats, bit for bit: ggml's arithmetic in ggml's order.
#include "rope/io/ggml_blocks.hpp"

#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "rope/io/weights_file.hpp"
#include "support/cli_harness.hpp"

namespace rope {
namespace {

std::string ggml_judged_dir() { return std::string(ROPE_REFERENCE_DIR) + "/../../data/weights/"; }

struct JudgedTensor {
  std::string file, tensor, type;
  std::vector<float> values;
};

std::vector<JudgedTensor> judged() {
  std::ifstream in(ggml_judged_dir() + "dequantized.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  std::vector<JudgedTensor> out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string key = it.key();
    const auto colon = key.find(':');
    JudgedTensor t{key.substr(0, colon), key.substr(colon + 1), it.value()["type"].get<std::string>(), {}};
    for (const auto& v : it.value()["values"]) t.values.push_back(static_cast<float>(v.get<double>()));
    out.push_back(std::move(t));
  }
  return out;
}

class GgmlBlocksJudged : public ::testing::TestWithParam<JudgedTensor> {};

TEST_P(GgmlBlocksJudged, FirstRowIsGgufPyBitForBit) {
  const JudgedTensor& c = GetParam();
  const WeightFile w = open_weights(ggml_judged_dir() + c.file);
  const WeightTensor* t = w.find(c.tensor);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->dtype, c.type);
  const std::vector<float> got = read_weight(w, *t);
  ASSERT_GE(got.size(), c.values.size());
  for (std::size_t i = 0; i < c.values.size(); ++i)
    ASSERT_EQ(got[i], c.values[i]) << c.file << " " << c.tensor << " " << i;
}

INSTANTIATE_TEST_SUITE_P(Files, GgmlBlocksJudged, ::testing::ValuesIn(judged()),
                         [](const auto& info) { return test::case_name(info.param.file + "_" + info.param.tensor); });

TEST(GgmlBlocks, CoversEveryQuantizedType) {
  std::vector<std::string> types;
  for (const JudgedTensor& t : judged()) types.push_back(t.type);
  for (const char* want : {"Q8_0", "Q4_0", "Q4_K", "Q6_K", "BF16", "F32"})
    EXPECT_NE(std::find(types.begin(), types.end(), want), types.end()) << want;
}

struct BlockSize {
  GgmlType type;
  long elements, bytes;
};
class GgmlBlockSizes : public ::testing::TestWithParam<BlockSize> {};

// ggml-common.h's static_asserts: sizeof(block_q4_0) = 2 + 16, block_q8_0 = 2 + 32, block_q4_K = 4 + 12 + 128,
// block_q6_K = 2 + 16 + 192.
TEST_P(GgmlBlockSizes, AsGgmlCommon) {
  const BlockSize& s = GetParam();
  EXPECT_EQ(ggml_block_elements(s.type), s.elements);
  EXPECT_EQ(ggml_block_bytes(s.type), s.bytes);
  EXPECT_EQ(ggml_row_bytes(s.type, 4 * s.elements), std::optional<std::uint64_t>(4 * s.bytes));
  if (s.elements > 1) {
    EXPECT_FALSE(ggml_row_bytes(s.type, s.elements + 1));
  }
}
INSTANTIATE_TEST_SUITE_P(Types, GgmlBlockSizes,
                         ::testing::Values(BlockSize{GgmlType::F32, 1, 4}, BlockSize{GgmlType::F16, 1, 2},
                                           BlockSize{GgmlType::BF16, 1, 2}, BlockSize{GgmlType::Q8_0, 32, 34},
                                           BlockSize{GgmlType::Q4_0, 32, 18}, BlockSize{GgmlType::Q4_K, 256, 144},
                                           BlockSize{GgmlType::Q6_K, 256, 210}));

TEST(GgmlBlocks, HalfScalesDecodeExactly) {
  // A Q8_0 block with scale d = 2^-24 (the smallest float16 subnormal, bits 0x0001) and q = -128 … 127 in turn.
  unsigned char block[34] = {0x01, 0x00};
  for (int j = 0; j < 32; ++j) block[2 + j] = static_cast<unsigned char>(j * 8 - 128);
  float out[32];
  ggml_decode(GgmlType::Q8_0, block, 32, out);
  for (int j = 0; j < 32; ++j) EXPECT_EQ(out[j], static_cast<float>(j * 8 - 128) * 0x1p-24f);
  // float16 1.5 (0x3e00), BF16 -2 (0xc000).
  const unsigned char h[2] = {0x00, 0x3e}, b[2] = {0x00, 0xc0};
  ggml_decode(GgmlType::F16, h, 1, out);
  EXPECT_EQ(out[0], 1.5f);
  ggml_decode(GgmlType::BF16, b, 1, out);
  EXPECT_EQ(out[0], -2.0f);
}

}  // namespace
}  // namespace rope
