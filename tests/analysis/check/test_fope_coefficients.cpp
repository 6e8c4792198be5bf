// FoPE's coefficients from a checkpoint (rope/analysis/check/fope_coefficients.hpp): the tensors found by the names
// Intern-S1-Pro stores them under, through a sharded index or one file, the shared matrix's first slice, and each
// bad checkpoint refused in one line before its tensor is read.
#include "rope/analysis/check/fope_coefficients.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <limits>
#include <map>

#include "rope/core/error.hpp"
#include "support/temp_dir_test.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;

/// A safetensors file of F32 tensors (huggingface/safetensors README "Format"): name → (shape, values); `pad` bytes
/// of zeros appended to the last tensor's data (declared in its shape, not written by value).
void write_fope_safetensors(const std::string& path,
                            const std::map<std::string, std::pair<std::vector<long>, std::vector<float>>>& tensors,
                            std::uint64_t sparse_bytes = 0) {
  std::string header = "{", data;
  for (const auto& [name, t] : tensors) {
    std::uint64_t n = 1;
    for (const long s : t.first) n *= static_cast<std::uint64_t>(s);
    const std::uint64_t begin = data.size(), end = begin + 4 * n;
    std::string shape;
    for (const long s : t.first) shape += (shape.empty() ? "" : ",") + std::to_string(s);
    header += (header.size() > 1 ? "," : "") + std::string("\"") + name + "\":{\"dtype\":\"F32\",\"shape\":[" + shape +
              "],\"data_offsets\":[" + std::to_string(begin) + "," + std::to_string(end) + "]}";
    std::string bytes(4 * t.second.size(), '\0');
    if (!t.second.empty()) std::memcpy(bytes.data(), t.second.data(), bytes.size());
    data += bytes;
  }
  header += "}";
  while (header.size() % 8) header += ' ';
  std::string size(8, '\0');
  for (int i = 0; i < 8; ++i) size[static_cast<std::size_t>(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  std::ofstream(path, std::ios::binary) << size << header << data;
  if (sparse_bytes) std::filesystem::resize_file(path, std::filesystem::file_size(path) + sparse_bytes);
}

/// [heads, k, k] values h·100 + D·10 + j.
std::vector<float> fope_values(long heads, long k) {
  std::vector<float> v;
  for (long h = 0; h < heads; ++h)
    for (long D = 0; D < k; ++D)
      for (long j = 0; j < k; ++j) v.push_back(static_cast<float>(h * 100 + D * 10 + j));
  return v;
}

FopeConfig fope_sep(long kv) {
  FopeConfig f;
  f.sep_head = true;
  f.kv_heads = kv;
  f.max_position = 4096;
  return f;
}

using FopeCoefficientFiles = test::TempDirTest;

TEST_F(FopeCoefficientFiles, ShardedCheckpointByTheModelsNames) {
  std::filesystem::create_directories(path("ckpt"));
  const std::string cos = "model.language_model.rotary_emb.cos_coef", sin = "model.language_model.rotary_emb.sin_coef";
  write_fope_safetensors(path("ckpt/a.safetensors"), {{cos, {{2, 3, 3}, fope_values(2, 3)}}});
  std::vector<float> s = fope_values(2, 3);
  for (float& x : s) x = -x;
  write_fope_safetensors(path("ckpt/b.safetensors"), {{sin, {{2, 3, 3}, s}}});
  std::ofstream(path("ckpt/model.safetensors.index.json"))
      << R"({"weight_map": {")" << cos << R"(": "a.safetensors", ")" << sin << R"(": "b.safetensors"}})";
  const FopeCoefficients c = read_fope_coefficients(path("ckpt"), fope_sep(2), 3);
  EXPECT_EQ(c.kept, 3);
  EXPECT_EQ(c.heads, 2);
  EXPECT_EQ(c.cos_name, cos);
  EXPECT_EQ(c.sin_name, sin);
  EXPECT_EQ(c.cos_at(1, 2, 0), 120);
  EXPECT_EQ(c.sin_at(1, 0, 2), -102);
}

TEST_F(FopeCoefficientFiles, SharedMatrixIsTheFirstSlice) {
  write_fope_safetensors(path("one.safetensors"), {{"model.rotary_emb.cos_coef", {{2, 2, 2}, fope_values(2, 2)}},
                                                   {"model.rotary_emb.sin_coef", {{2, 2}, fope_values(1, 2)}}});
  FopeConfig f;
  f.max_position = 4096;
  const FopeCoefficients c = read_fope_coefficients(path("one.safetensors"), f, 2);
  EXPECT_EQ(c.heads, 1);
  ASSERT_EQ(c.cos.size(), 4u);
  EXPECT_EQ(c.cos_at(0, 1, 1), 11);
  EXPECT_EQ(c.sin_at(0, 1, 0), 10);
}

struct FopeRefusal {
  const char* name;
  std::map<std::string, std::pair<std::vector<long>, std::vector<float>>> tensors;
  std::uint64_t sparse;
  const char* rule;
};

class FopeCoefficientRefusals : public test::TempDirTest, public testing::WithParamInterface<FopeRefusal> {};

TEST_P(FopeCoefficientRefusals, OneLineNamingTheRule) {
  write_fope_safetensors(path("bad.safetensors"), GetParam().tensors, GetParam().sparse);
  try {
    read_fope_coefficients(path("bad.safetensors"), fope_sep(2), 3);
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr(GetParam().rule));
  }
}

const std::string kFopeCos = "model.language_model.rotary_emb.cos_coef",
                  kFopeSin = "model.language_model.rotary_emb.sin_coef";

std::vector<float> fope_with_nan() {
  std::vector<float> v = fope_values(2, 3);
  v[5] = std::numeric_limits<float>::quiet_NaN();
  return v;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, FopeCoefficientRefusals,
    testing::Values(
        FopeRefusal{"missing", {{kFopeCos, {{2, 3, 3}, fope_values(2, 3)}}}, 0, "no FoPE tensor sin_coef"},
        FopeRefusal{"shape",
                    {{kFopeCos, {{4, 3, 3}, fope_values(4, 3)}}, {kFopeSin, {{2, 3, 3}, fope_values(2, 3)}}},
                    0,
                    "has the shape [4, 3, 3], and the config's FoPE needs [2, 3, 3] (3 kept pairs, 2 key-value heads)"},
        FopeRefusal{"two",
                    {{"a.rotary_emb.cos_coef", {{2, 3, 3}, fope_values(2, 3)}},
                     {"b.rotary_emb.cos_coef", {{2, 3, 3}, fope_values(2, 3)}}},
                    0,
                    "two tensors end in rotary_emb.cos_coef"},
        FopeRefusal{"not_finite",
                    {{kFopeCos, {{2, 3, 3}, fope_with_nan()}}, {kFopeSin, {{2, 3, 3}, fope_values(2, 3)}}},
                    0,
                    "holds a value that is not a finite number (nan at element 5)"}),
    [](const testing::TestParamInfo<FopeRefusal>& info) { return std::string(info.param.name); });

TEST_F(FopeCoefficientFiles, OverTheLimitRefusedBeforeTheRead) {
  // 2 × 1449 × 1449 = 4 199 202 elements, over 2^22: refused on the header's shape (the data is a sparse file's zeros).
  write_fope_safetensors(path("big.safetensors"), {{kFopeCos, {{2, 1449, 1449}, {}}}}, 4ULL * 2 * 1449 * 1449);
  try {
    read_fope_coefficients(path("big.safetensors"), fope_sep(2), 1449);
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("has 4199202 elements, more than the limit of 4194304"));
  }
}

}  // namespace
}  // namespace rope
