// A dump file opened once (rope/io/tensor_directory.hpp): its directory read once, then any of its tensors read
// from it, equal to what the one-tensor readers give; and `rope check --tensor '*'` (run_check_layers) reading each
// file's directory once, counted by detail::tensor_directory_reads() (the work bounded by the files, not by the
// layers). Fixtures: data/dumps/torch/layers.pt and layers.safetensors, written by
// tests/reference/torch_save_fixtures.py (torch.save's documented layout and the safetensors README's format).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "rope/analysis/check/check_layers.hpp"
#include "rope/analysis/check/dump_files.hpp"
#include "rope/core/error.hpp"
#include "rope/io/tensor_directory.hpp"
#include "rope/io/tensor_file.hpp"
#include "support/shared.hpp"

namespace rope {
namespace {

using test::kDumps;
using ::testing::HasSubstr;

class TensorDirectoryFiles : public ::testing::TestWithParam<const char*> {
 protected:
  std::string path() const { return kDumps + "torch/" + GetParam(); }
};

TEST_P(TensorDirectoryFiles, ReadsItsDirectoryOnceAndEveryTensorAsTheReaderDoes) {
  const long before = detail::tensor_directory_reads();
  const auto dir = TensorDirectory::open(path());
  ASSERT_EQ(dir->listing().tensors.size(), 6u);
  for (const TensorEntry& e : dir->listing().tensors) {
    TensorReadOptions o;
    o.tensor = e.name;
    const TensorData t = dir->read(o);
    EXPECT_EQ(t.shape, (std::vector<long>{8, 2, 16})) << e.name;
    EXPECT_EQ(t.dtype, DType::BF16);
    if (dir->streamable()) {
      const TensorStream s = dir->stream(o);
      EXPECT_EQ(s.header().count, 256) << e.name;
    }
  }
  EXPECT_EQ(detail::tensor_directory_reads() - before, 1);
  for (const TensorEntry& e : dir->listing().tensors) {  // the same values as the one-tensor reader's
    TensorReadOptions o;
    o.tensor = e.name;
    EXPECT_EQ(dir->read(o).values, read_tensor_file(path(), o).values) << e.name;
  }
}

TEST_P(TensorDirectoryFiles, NamesAMissingTensorAsTheReaderDoes) {
  const auto dir = TensorDirectory::open(path());
  TensorReadOptions o;
  o.tensor = "layers.9.q";
  try {
    dir->read(o);
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("no tensor named 'layers.9.q'"));
  }
}

TEST_P(TensorDirectoryFiles, EveryLayerOfACheckReadsTheFileOnce) {
  CheckRequest request;
  request.dumps.before = request.dumps.after = path();
  request.dumps.before_tensor = "layers.*.q";
  request.dumps.after_tensor = "layers.*.q_rope";
  request.settings.layout = Layout::Half;
  request.settings.dtype = DType::BF16;
  const long before = detail::tensor_directory_reads();
  const CheckLayersRun run = run_check_layers(request);
  ASSERT_EQ(run.layers.size(), 3u);
  EXPECT_EQ(run.layers[0].before_tensor, "layers.1.q");  // rotated with base 500000: the one failing
  EXPECT_FALSE(run.layers[0].run.passed());
  EXPECT_TRUE(run.layers[1].run.passed());
  EXPECT_TRUE(run.layers[2].run.passed());
  EXPECT_EQ(detail::tensor_directory_reads() - before, 1);  // was 1 + 2 per layer: the file re-read for each
}

TEST(TensorDirectoryRun, ALayersValuesAreFreedOnceChecked) {
  // Each layer's CheckRun keeps its dumps' geometry; their values must be freed, not merely emptied, or a run of
  // `--tensor '*'` holds every layer's values to its end (bench/torch_dump_bench.py: 582 MiB for 8 layers of
  // [2048, 16, 128], 62 MiB a layer; 137 MiB for 4 once freed).
  LoadedDumps d;
  d.before.values.assign(1000, 1.0);
  d.after.values.assign(1000, 2.0);
  drop_values(d);
  EXPECT_EQ(d.before.values.capacity(), 0u);
  EXPECT_EQ(d.after.values.capacity(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Formats, TensorDirectoryFiles, ::testing::Values("layers.pt", "layers.safetensors"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param).substr(7) == "pt" ? std::string("TorchSave")
                                                                            : std::string("Safetensors");
                         });

}  // namespace
}  // namespace rope
