#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <optional>
#include <unistd.h>

#include "models/config_test_util.hpp"
#include "rope/core/error.hpp"
#include "rope/io/json_reader.hpp"
#include "rope/models/model_config.hpp"

// Strict JSON: rope/io/json_reader.cpp (through parse_model_config).

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

TEST(ModelConfig, NotJsonIsRefused) {
  expect_invalid("", "config.json: not valid JSON");
  expect_invalid(R"({"head_dim": 128,})", "config.json: not valid JSON: at line 1, column 18");
  expect_invalid("rope_theta = 10000", "config.json: not valid JSON");
  expect_invalid(R"({"head_dim": 128} trailing)", "config.json: not valid JSON");
}

TEST(ModelConfig, TopLevelMustBeAnObject) {
  expect_invalid(R"([{"head_dim": 128}])", "config.json: expected a JSON object at the top level, got array");
  expect_invalid("42", "config.json: expected a JSON object at the top level, got number");
}

TEST(ModelConfig, DuplicateKeysAreRefusedByName) {
  expect_invalid(R"({"head_dim": 128, "rope_theta": 10000, "rope_theta": 500000})",
                 "config.json: duplicate key 'rope_theta'");
  expect_invalid(R"({"head_dim": 128, "rope_scaling": {"rope_type": "linear", "factor": 2, "factor": 4}})",
                 "config.json: rope_scaling: duplicate key 'factor'");
  expect_invalid(R"({"a": [{"b": 1}, {"c": 1, "c": 2}], "head_dim": 128})", "config.json: a[1]: duplicate key 'c'");
  // The same key in different objects is fine.
  EXPECT_NO_THROW(
      parse(R"({"head_dim": 128, "x": {"factor": 1}, "rope_scaling": {"rope_type": "linear", "factor": 2}})"));
}

TEST(ModelConfig, DeepNestingIsRefused) {
  const std::string deep = R"({"head_dim": 128, "x": )" + std::string(100, '[') + std::string(100, ']') + "}";
  expect_invalid(deep, "config.json: JSON nested more than 64 levels deep");
  const std::string fine = R"({"head_dim": 128, "x": )" + std::string(60, '[') + std::string(60, ']') + "}";
  EXPECT_NO_THROW(parse(fine));
}

TEST(ModelConfig, ByteOrderMarkIsAcceptedAndSizeIsBounded) {
  EXPECT_EQ(parse("\xEF\xBB\xBF{\"head_dim\": 64}").rope.head_dim, 64);
  const std::string huge = R"({"head_dim": 64, "pad": ")" + std::string(kMaxConfigBytes, 'x') + "\"}";
  expect_invalid(huge, "config.json: larger than the 4194304-byte limit for a config file");
}

// A refusal that lists a block's keys stays one short line (issue 52): at most 16 names of 48 bytes each.
TEST(ModelConfig, AListOfKeysInAMessageIsBounded) {
  std::string block;
  for (int i = 0; i < 60; ++i) {
    block += fmt::format("{}\"layer_{:02}_{}\": {{\"rope_type\": \"default\"}}", i == 0 ? "" : ", ", i,
                         std::string(50000, 'x'));
  }
  const std::string config = R"({"head_dim": 64, "rope_parameters": {)" + block + "}}";
  try {
    parse(config);
    ADD_FAILURE() << "accepted";
  } catch (const InvalidArgument& e) {
    const std::string what = e.what();
    EXPECT_THAT(what, AllOf(HasSubstr("per-layer-type entries without full_attention (got layer_00_xxx"),
                            HasSubstr("…, layer_01_"), HasSubstr(", … (+44))")));
    EXPECT_LT(what.size(), 1200u);
  }
}

TEST(ModelConfig, ListedNamesAreCutAtACharacterBoundary) {
  // 47 ASCII bytes then a 3-byte character: the cut at 48 bytes would split it, so it backs off to 47.
  const std::string name = std::string(47, 'a') + "层" + "b";
  EXPECT_EQ(detail::join_names({name, "c"}), std::string(47, 'a') + "…, c");
}

}  // namespace
}  // namespace rope
