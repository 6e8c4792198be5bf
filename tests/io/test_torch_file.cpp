// The torch.save reader (rope/io/torch_file.hpp) on the files of data/dumps/torch/ and tests/data/torch/ (the
// hostile ones), written from torch.save's
// documented layout by tests/reference/torch_save_fixtures.py (no PyTorch; PyTorch 1.13's torch.load reads them
// all the same): views of a fused qkv storage, nesting, integers, and the hostile pickles it must refuse, each in
// bounded time and memory, with nothing run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "rope/core/error.hpp"
#include "rope/core/sanitizer.hpp"
#include "rope/io/tensor_file.hpp"
#include "rope/io/torch_file.hpp"
#include "support/memory_limit.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;

/// data/dumps/torch/NAME, or tests/data/torch/NAME for the hostile files and the state_dict PyTorch wrote.
std::string torch_fixture(const std::string& name) {
  const bool hostile = name.rfind("hostile_", 0) == 0 || name == "state_dict.pt" || name == "typed_storages.pt";
  return std::string(ROPE_REFERENCE_DIR) + (hostile ? "/../data/torch/" : "/../../data/dumps/torch/") + name;
}

std::string torch_bytes(const std::string& name) {
  std::ifstream f(torch_fixture(name), std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

TensorData read_named(const std::string& file, const std::string& tensor, bool integers = false) {
  TensorReadOptions o;
  o.tensor = tensor;
  o.integers = integers;
  return read_tensor_file(torch_fixture(file), o);
}

TEST(TorchFile, ViewsOfAFusedQkvStorageReadThroughTheirOffsetsAndStrides) {
  // qkv[t, c] = (48 t + c)/4 − 3; q, k, v are qkv[:, 0:16], [16:32], [32:48] seen as [4, 2, 8].
  for (const auto& [name, offset] : {std::pair{"q", 0}, {"k", 16}, {"v", 32}}) {
    const TensorData t = read_named("qkv_bf16.pt", name);
    ASSERT_EQ(t.shape, (std::vector<long>{4, 2, 8})) << name;
    EXPECT_EQ(t.dtype, DType::BF16);
    EXPECT_EQ(t.stored, "bfloat16");
    for (long s = 0; s < 4; ++s)
      for (long h = 0; h < 2; ++h)
        for (long c = 0; c < 8; ++c)
          ASSERT_EQ(t.values[static_cast<std::size_t>((s * 2 + h) * 8 + c)], (48.0 * s + offset + 8 * h + c) / 4 - 3)
              << name << " [" << s << ", " << h << ", " << c << "]";
  }
}

TEST(TorchFile, ListsEveryTensorWithItsDottedNameDtypeShapeAndStrides) {
  const std::vector<TorchTensorInfo> q = list_torch_tensors(torch_bytes("qkv_bf16.pt"), "qkv_bf16.pt");
  ASSERT_EQ(q.size(), 3u);
  EXPECT_EQ(q[1].name, "k");
  EXPECT_EQ(q[1].offset, 16);
  EXPECT_EQ(q[1].strides, (std::vector<long>{48, 8, 1}));
  EXPECT_EQ(q[1].storage_numel, 192);
  const std::vector<TorchTensorInfo> n = list_torch_tensors(torch_bytes("nested.pt"), "nested.pt");
  ASSERT_EQ(n.size(), 2u);
  EXPECT_EQ(n[0].name, "layers.0.q");
  EXPECT_EQ(n[0].stored, "float32");
  EXPECT_EQ(n[1].name, "layers.1.q");
  EXPECT_EQ(n[1].stored, "float16");
}

TEST(TorchFile, NestedEntriesAreNamedByTheirKeysJoinedWithDots) {
  const TensorData a = read_named("nested.pt", "layers.0.q");
  EXPECT_EQ(a.values, (std::vector<double>{0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875}));
  const TensorData b = read_named("nested.pt", "layers.1.q");
  EXPECT_EQ(b.dtype, DType::F16);
  EXPECT_EQ(b.values, (std::vector<double>{-4, -3, -2, -1, 0, 1, 2, 3}));
  try {
    read_named("nested.pt", "layers.2.q");
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("no tensor named 'layers.2.q' (it holds layers.0.q, layers.1.q)"));
  }
  try {
    read_named("nested.pt", "");
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("holds 2 tensors (layers.0.q, layers.1.q): name one with --tensor"));
  }
}

// Issue 77 (2): torch.save(model.state_dict()), written by PyTorch 1.13 (tests/reference/torch_state_dict.py): an
// OrderedDict whose _metadata is set by BUILD after its items. Its tensors are listed and read; _metadata is no item.
TEST(TorchFile, AStateDictWithItsMetadataIsRead) {
  const std::vector<TorchTensorInfo> s = list_torch_tensors(torch_bytes("state_dict.pt"), "state_dict.pt");
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].name, "0.weight");
  EXPECT_EQ(s[0].shape, (std::vector<long>{3, 4}));
  EXPECT_EQ(s[1].name, "0.bias");
  EXPECT_EQ(s[2].name, "2.weight");
  EXPECT_EQ(s[2].shape, (std::vector<long>{2, 3}));
  EXPECT_EQ(s[3].name, "2.bias");
  const TensorData w = read_named("state_dict.pt", "2.weight");  // w[i, j] = (3 i + j)/8 − 1
  EXPECT_EQ(w.values, (std::vector<double>{-1, -0.875, -0.75, -0.625, -0.5, -0.375}));
  EXPECT_EQ(read_named("state_dict.pt", "0.bias").values, (std::vector<double>{0, 0.25, 0.5}));
  try {
    read_named("state_dict.pt", "_metadata");
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("no tensor named '_metadata'"));
  }
}

// Issue 77 (8): bool, complex and float8 storages are data: listed with their dtype, refused by it when read (before:
// "refuses to run `torch.BoolStorage`", as if they were code). Written by PyTorch 1.13.
TEST(TorchFile, BoolAndComplexTensorsAreListedAndRefusedByTheirDtype) {
  const std::vector<TorchTensorInfo> s = list_torch_tensors(torch_bytes("typed_storages.pt"), "typed_storages.pt");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[1].name, "mask");
  EXPECT_EQ(s[1].stored, "bool");
  EXPECT_EQ(s[2].name, "z");
  EXPECT_EQ(s[2].stored, "complex64");
  EXPECT_EQ(read_named("typed_storages.pt", "q").values, (std::vector<double>{0, 1, 2, 3}));
  for (const auto& [tensor, dtype] : {std::pair{"mask", "bool"}, {"z", "complex64"}}) {
    try {
      read_named("typed_storages.pt", tensor);
      FAIL() << tensor;
    } catch (const InvalidArgument& e) {
      EXPECT_THAT(e.what(), HasSubstr(std::string("tensor '") + tensor + "' holds " + dtype +
                                      ": rope reads float32, float64, float16 and bfloat16 tensors"));
    }
  }
}

// Issue 77 (8): a rank-9 tensor torch.save wrote is listed (rope inspect --tensors) and refused by its rank when read.
TEST(TorchFile, ARankNineTensorIsListed) {
  const std::vector<TorchTensorInfo> s = list_torch_tensors(torch_bytes("hostile_rank9.pt"), "hostile_rank9.pt");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].shape, std::vector<long>(9, 1));
  try {  // before: "the arguments of torch._utils._rebuild_tensor_v2 are not the ones torch.save writes"
    read_named("hostile_rank9.pt", "q");
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("tensor 'q': rank 9 is above the limit of 8"));
  }
}

TEST(TorchFile, IntegersAreReadAsPositionsOnly) {
  EXPECT_EQ(read_named("positions_i64.pt", "positions", true).values, (std::vector<double>{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(read_named("positions_i64.pt", "mask", true).values, (std::vector<double>(6, 1.0)));
  try {
    read_named("positions_i64.pt", "positions");
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("tensor 'positions' holds int64: integers are read as positions only"));
  }
}

struct Hostile {
  const char* file;
  const char* expected;
};

class TorchHostile : public ::testing::TestWithParam<Hostile> {};

TEST_P(TorchHostile, IsRefusedWithOneLineNamingWhy) {
  try {
    read_named(GetParam().file, "q");
    FAIL() << GetParam().file << " was read";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr(GetParam().expected));
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
}

#if !ROPE_ADDRESS_SANITIZER
TEST_P(TorchHostile, IsRefusedWithinBoundedMemory) {
  const std::string bytes = torch_bytes(GetParam().file);
  // The file is about a kilobyte: refusing it may take a few megabytes, never the sizes it announces.
  test::parse_within_memory([&] { list_torch_tensors(bytes, GetParam().file); }, std::size_t{64} << 20,
                            GetParam().expected);
}
#endif

INSTANTIATE_TEST_SUITE_P(
    Files, TorchHostile,
    ::testing::Values(
        Hostile{"hostile_system.pt", "refuses to run `os.system` named in data.pkl"},
        Hostile{"hostile_deep.pt", "nested deeper than 64"},
        Hostile{"hostile_huge.pt", "reaches past its storage '0' of 4 elements"},
        Hostile{"hostile_key.pt", "storage '7' has no record archive/data/7 in the archive"},
        Hostile{"hostile_cycle.pt", "a container holds itself (a cycle)"},
        Hostile{"hostile_numel.pt", "storage '0': data.pkl says 1000 elements of 4 bytes, and its record holds 16"},
        Hostile{"hostile_truncated.pt", "not a complete zip archive (no end of central directory)"},
        Hostile{"hostile_build.pt", "opcode BUILD (0x62) is outside the subset torch.save writes for tensors"},
        Hostile{"hostile_build_state.pt", "opcode BUILD (0x62) is outside the subset torch.save writes for tensors"},
        // Issue 77 (3): one name for two tensors (before: both listed, the last one read); keys with no name.
        Hostile{"hostile_duplicate_name.pt",
                "two tensors are named 'a.b', at ['a.b'] and at ['a']['b']: a name must say one tensor"},
        Hostile{"hostile_float_key.pt",
                "a tensor lies under the key 1.5: rope names tensors by their str and int keys"},
        Hostile{"hostile_none_key.pt",
                "a tensor lies under the key None in 'x': rope names tensors by their str and int keys"}),
    [](const ::testing::TestParamInfo<Hostile>& info) {
      std::string name = std::string(info.param.file).substr(8);
      return name.substr(0, name.find('.'));
    });

TEST(TorchFile, ACodeRunningPickleRunsNothing) {
  // hostile_system.pt would run os.system('touch torch_marker') in the current directory under torch.load.
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("rope_torch_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::filesystem::path before = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  EXPECT_THROW(read_named("hostile_system.pt", ""), InvalidArgument);
  EXPECT_FALSE(std::filesystem::exists(dir / "torch_marker"));
  std::filesystem::current_path(before);
  std::filesystem::remove_all(dir);
}

TEST(TorchFile, TheLegacyFormatIsRefusedWithAHint) {
  // The legacy format begins with a pickle (or a tar), never "PK": refused by its name's extension.
  const std::filesystem::path p =
      std::filesystem::temp_directory_path() / ("rope_legacy_" + std::to_string(getpid()) + ".pt");
  std::ofstream(p, std::ios::binary) << std::string("\x80\x02\x8a\x0alz\xe8\x9c\x06\xf9\x0c\x15\x00.", 15);
  try {
    read_tensor_file(p.string());
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("torch.save's legacy format (PyTorch before 1.6"));
  }
  std::filesystem::remove(p);
}

}  // namespace
}  // namespace rope
