// gguf.hpp: the GGUF header reader, on the files tests/io/write_gguf.py writes (an independent writer
// that follows ggml-org/ggml docs/gguf.md) and on malformed ones.
#include "rope/io/gguf.hpp"

#include <cmath>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <iterator>
#include <string>

#include "rope/core/error.hpp"
#include "support/shared.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using ::testing::ThrowsMessage;

using test::gguf_path;

std::string bytes(const std::string& name) {
  std::ifstream in(gguf_path(name), std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

const std::vector<std::string> kRopeTensors = {"rope_freqs.weight", "rope_factors_long.weight",
                                               "rope_factors_short.weight"};

TEST(Gguf, ReadsHeaderMetadataAndTensorInfos) {
  const GgufFile f = read_gguf(gguf_path("llama-3.1-8b.gguf"), kRopeTensors);
  EXPECT_EQ(f.version, 3u);
  EXPECT_FALSE(f.big_endian);
  EXPECT_EQ(f.alignment, 32u);
  ASSERT_NE(f.find("general.architecture"), nullptr);
  EXPECT_EQ(f.find("general.architecture")->text, "llama");
  const GgufValue* base = f.find("llama.rope.freq_base");
  ASSERT_NE(base, nullptr);
  EXPECT_EQ(base->type, GgufType::Float32);
  EXPECT_EQ(base->as_number(), 500000.0);  // exact in float32
  EXPECT_EQ(f.find("llama.attention.head_count_kv")->as_number(), 8.0);
  // The 5000-token vocabulary is longer than kMaxGgufKeptItems: counted and skipped, not kept.
  const GgufValue* tokens = f.find("tokenizer.ggml.tokens");
  ASSERT_NE(tokens, nullptr);
  EXPECT_EQ(tokens->item_type, GgufType::String);
  EXPECT_EQ(tokens->count, 5000u);
  EXPECT_TRUE(tokens->items.empty());
  EXPECT_EQ(f.array_items, 15000u);
  ASSERT_EQ(f.tensors.size(), 2u);
  EXPECT_EQ(f.tensors[1].name, "blk.0.attn_q.weight");
  EXPECT_EQ(f.tensors[1].dims, (std::vector<std::uint64_t>{8, 8}));
  EXPECT_EQ(f.tensors[1].offset, 256u);
  EXPECT_EQ(f.data_offset % 32, 0u);
  // rope_freqs: 64 float32 factors, the first pair kept (1) and the last interpolated (f = 8).
  ASSERT_EQ(f.tensor_data.count("rope_freqs.weight"), 1u);
  const auto& ff = f.tensor_data.at("rope_freqs.weight");
  ASSERT_EQ(ff.size(), 64u);
  EXPECT_EQ(ff.front(), 1.0f);
  EXPECT_EQ(ff.back(), 8.0f);
  EXPECT_EQ(f.tensor_data.count("rope_factors_long.weight"), 0u);  // asked for, not in the file
}

TEST(Gguf, BigEndianAndVersion2ReadTheSameNumbers) {
  const GgufFile be = read_gguf(gguf_path("llama-2-7b-be.gguf"), kRopeTensors);
  EXPECT_TRUE(be.big_endian);
  EXPECT_EQ(be.version, 3u);
  EXPECT_EQ(be.find("llama.rope.freq_base")->as_number(), 10000.0);
  EXPECT_EQ(be.find("llama.context_length")->as_number(), 4096.0);
  EXPECT_EQ(be.tensor_data.at("rope_freqs.weight"), std::vector<float>(64, 1.0f));
  const GgufFile v2 = read_gguf(gguf_path("qwen3-8b-v2.gguf"));
  EXPECT_EQ(v2.version, 2u);
  EXPECT_FALSE(v2.big_endian);
  EXPECT_EQ(v2.find("qwen3.rope.freq_base")->as_number(), 1e6);
}

TEST(Gguf, KeepsShortArraysWithTheirItems) {
  const GgufFile f = read_gguf(gguf_path("qwen2-vl-7b.gguf"));
  const GgufValue* s = f.find("qwen2vl.rope.dimension_sections");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->type, GgufType::Array);
  EXPECT_EQ(s->item_type, GgufType::Int32);
  ASSERT_EQ(s->items.size(), 4u);
  EXPECT_EQ(s->items[1].integer, 24);
}

TEST(Gguf, ParsesFromMemoryAsFromTheFile) {
  const GgufFile a = parse_gguf(bytes("phi-3-mini-128k.gguf"), "phi3", kRopeTensors);
  const GgufFile b = read_gguf(gguf_path("phi-3-mini-128k.gguf"), kRopeTensors);
  EXPECT_EQ(a.metadata.size(), b.metadata.size());
  EXPECT_EQ(a.tensor_data, b.tensor_data);
  EXPECT_EQ(a.tensor_data.at("rope_factors_long.weight").size(), 48u);
}

struct BadCase {
  const char* file;
  const char* message;
};

TEST(Gguf, EveryMalformedFileGivesOneLineNamingTheRule) {
  const BadCase cases[] = {
      {"truncated.gguf", "only"},
      {"bad-magic.gguf", "offset 0: not a GGUF file: it starts with the bytes 'GGML'"},
      {"version-1.gguf", "offset 4: GGUF version 1 is not supported"},
      {"version-4.gguf", "GGUF version 4 is not supported"},
      {"huge-kv-count.gguf", "metadata count 4611686018427387904 is over the limit of 65536"},
      {"huge-tensor-count.gguf", "tensor count 1099511627776 is over the limit"},
      {"counts-past-end.gguf", "0 tensors and 1000 metadata pairs cannot fit in the 0 bytes left"},
      {"string-past-end.gguf", "string length 1099511627776 runs past the end of the file"},
      {"array-past-end.gguf", "array of 1152921504606846976 float32 items needs at least 4 bytes each"},
      {"bad-value-type.gguf", "value type 13 is not a GGUF value type (0 … 12)"},
      {"deep-nesting.gguf", "arrays nested deeper than 8 levels"},
      {"duplicate-key.gguf", "key 'general.architecture' appears twice"},
      {"bad-bool.gguf", "bool value 2 is neither 0 nor 1"},
      {"alignment-u64.gguf", "general.alignment is a uint64, the format requires uint32"},
      {"rope-freqs-f16.gguf", "tensor 'rope_freqs.weight' must be f32 (type 0) with one dimension, it is type 1"},
      {"rope-freqs-past-end.gguf",
       "tensor 'rope_freqs.weight': its 256 bytes at data offset 0 run past the end of the file"},
      {"dims-overflow.gguf", "tensor 'w': the product of its dimensions overflows int64"},
  };
  for (const BadCase& c : cases) {
    SCOPED_TRACE(c.file);
    try {
      read_gguf(gguf_path(c.file), kRopeTensors);
      ADD_FAILURE() << "no error";
    } catch (const InvalidArgument& e) {
      const std::string m = e.what();
      EXPECT_THAT(m, StartsWith(gguf_path(c.file) + ": offset "));
      EXPECT_THAT(m, HasSubstr(c.message));
      EXPECT_EQ(m.find('\n'), std::string::npos);
    }
  }
}

TEST(Gguf, EveryPrefixOfAValidFileIsRefusedCleanly) {
  // Cut anywhere inside the header, the metadata, the tensor infos or the rope_freqs data: always
  // InvalidArgument (a cut inside the final padding of the data section is the only one that reads).
  const std::string whole = bytes("llama-2-7b-be.gguf");
  const GgufFile full = parse_gguf(whole, "x", kRopeTensors);
  const std::size_t needed = static_cast<std::size_t>(full.data_offset) + 256;
  for (std::size_t n = 0; n < needed; ++n) {
    EXPECT_THROW(parse_gguf(std::string_view(whole).substr(0, n), "x", kRopeTensors), InvalidArgument) << n;
  }
  EXPECT_NO_THROW(parse_gguf(std::string_view(whole).substr(0, needed), "x", kRopeTensors));
}

TEST(Gguf, FilesThatCannotBeReadAreIoErrors) {
  EXPECT_THAT([] { read_gguf(gguf_path("missing.gguf")); },
              ThrowsMessage<IoError>(HasSubstr("No such file or directory")));
  EXPECT_THAT([] { read_gguf(ROPE_GGUF_DIR); }, ThrowsMessage<IoError>(HasSubstr("not a regular file")));
}

TEST(Gguf, DetectsTheMagic) {
  EXPECT_TRUE(is_gguf_file(gguf_path("qwen2.5-7b.gguf")));
  EXPECT_TRUE(is_gguf_file(gguf_path("version-4.gguf")));  // the magic only: the reader refuses it later
  EXPECT_FALSE(is_gguf_file(gguf_path("bad-magic.gguf")));
  EXPECT_FALSE(is_gguf_file(gguf_path("missing.gguf")));
  EXPECT_FALSE(is_gguf_file(ROPE_GGUF_DIR));
}

TEST(Gguf, PrintableEscapesControlBytes) {
  EXPECT_EQ(printable("llama"), "llama");
  EXPECT_EQ(printable("a\nb\x7f"), "a\\x0ab\\x7f");
  EXPECT_EQ(printable("\xff"), "\\xff");
  EXPECT_EQ(printable("通义"), "通义");
  EXPECT_EQ(printable(std::string(100, 'x'), 10), std::string(10, 'x') + "…");
}

TEST(Gguf, ValueTypeNames) {
  EXPECT_EQ(to_string(GgufType::Float32), "float32");
  EXPECT_EQ(to_string(GgufType::Array), "array");
  EXPECT_EQ(to_string(static_cast<GgufType>(99)), "unknown");
}

}  // namespace
}  // namespace rope
