#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <optional>
#include <unistd.h>

#include "models/config_test_util.hpp"
#include "rope/core/error.hpp"
#include "rope/models/model_config.hpp"
#include "rope/models/model_folder.hpp"

// Reading a config file from disk: rope/models/model_config.cpp.

namespace rope {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::ThrowsMessage;
using namespace config_test;

TEST(ModelConfig, ReadsAFileAndNamesItInMessages) {
  const fs::path dir = fs::temp_directory_path() / ("rope-model-config-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path good = dir / "config.json";
  {
    std::ofstream out(good, std::ios::binary);
    out << "\xEF\xBB\xBF"
        << R"({"head_dim": 128, "rope_theta": 500000})";  // UTF-8 BOM, as Windows editors write
  }
  const ModelConfig m = read_model_config(good.string());
  EXPECT_EQ(m.name, good.string());
  EXPECT_EQ(m.rope.base, 5e5);

  const fs::path bad = dir / "bad.json";
  {
    std::ofstream out(bad, std::ios::binary);
    out << R"({"head_dim": "128"})";
  }
  EXPECT_THAT([&] { read_model_config(bad.string()); },
              ThrowsMessage<InvalidArgument>(HasSubstr(bad.string() + ": head_dim: expected an integer, got string")));

  const fs::path big = dir / "big.json";
  {
    std::ofstream out(big, std::ios::binary);
    out << std::string(kMaxConfigBytes + 1, ' ');
  }
  EXPECT_THAT([&] { read_model_config(big.string()); },
              ThrowsMessage<InvalidArgument>(HasSubstr("larger than the 4194304-byte limit")));
  EXPECT_THAT([&] { read_model_config((dir / "missing.json").string()); },
              ThrowsMessage<IoError>(AllOf(HasSubstr("missing.json"), HasSubstr("No such file or directory"))));
  // A folder is read through its config.json (a model's folder), else transformer/config.json (a diffusers
  // pipeline's), else refused naming both.
  EXPECT_EQ(read_model_config(dir.string()).name, good.string());
  EXPECT_EQ(model_config_file(dir.string() + "/"), good.string());
  fs::create_directories(dir / "pipeline" / "transformer");
  fs::copy_file(good, dir / "pipeline" / "transformer" / "config.json");
  EXPECT_EQ(read_model_config((dir / "pipeline").string()).rope.base, 5e5);
  fs::create_directories(dir / "empty");
  EXPECT_THAT([&] { read_model_config((dir / "empty").string()); },
              ThrowsMessage<InvalidArgument>(HasSubstr("empty is a folder with neither config.json nor "
                                                       "transformer/config.json: give the model's config file")));
  EXPECT_EQ(model_config_file(big.string()), big.string());  // a file is itself
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rope
