#include "rope/models/scaling/scaling_table.hpp"

#include <algorithm>
#include <cstdio>
#include <fmt/format.h>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <set>
#include <string>
#include <unistd.h>

#include "rope/core/error.hpp"
#include "rope/models/model_config.hpp"
#include "rope/models/scaling/scaling.hpp"
#include "support/cli_harness.hpp"

// The one table of scaling methods (rope/models/scaling/scaling_table.cpp): `--scaling NAME` on the command line
// and rope_type in a config.json accept the same names and say the same things about them.

namespace rope {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

/// Every name the table accepts: the canonical ones, then the aliases.
std::vector<std::string> every_name() {
  std::vector<std::string> out;
  for (const ScalingMethod& m : scaling_methods()) out.emplace_back(m.name);
  for (const ScalingAlias& a : scaling_aliases()) out.emplace_back(a.name);
  return out;
}

/// A config.json (head_dim 64, so d/2 = 32) that gives every key of every method, so that any method
/// named in it has what it requires; `rope_type` is `name`.
std::string config_with_every_key(const std::string& name) {
  std::string list = "[";
  for (int i = 0; i < 32; ++i) list += (i ? ", " : "") + std::string("1.5");
  list += "]";
  return R"({"head_dim": 64, "max_position_embeddings": 8192, "rope_scaling": {"rope_type": ")" + name +
         R"(", "factor": 2, "original_max_position_embeddings": 4096, "low_freq_factor": 1, "high_freq_factor": 4,
         "beta_fast": 32, "beta_slow": 1, "short_factor": )" +
         list + R"(, "long_factor": )" + list + "}}";
}

/// A config file in the test's temporary directory, removed when the test ends.
struct TempConfig {
  std::string path;
  explicit TempConfig(const std::string& text)
      : path(::testing::TempDir() + "scaling_table_" + std::to_string(::getpid()) + ".json") {
    std::ofstream(path) << text;
  }
  ~TempConfig() { std::remove(path.c_str()); }
};

TEST(Scaling, TypeNamesRoundTripAndLegacyAliasesParse) {
  for (ScalingType t : {ScalingType::Default, ScalingType::Linear, ScalingType::Ntk, ScalingType::Dynamic,
                        ScalingType::Yarn, ScalingType::Llama3, ScalingType::LongRope, ScalingType::Proportional}) {
    EXPECT_EQ(parse_scaling_type(to_string(t)), t) << to_string(t);
  }
  EXPECT_EQ(to_string(ScalingType::LongRope), "longrope");
  EXPECT_EQ(parse_scaling_type("su"), ScalingType::LongRope);  // HF legacy name (docs/scaling.md note on types)
  EXPECT_EQ(parse_scaling_type("none"), ScalingType::Default);
  EXPECT_THAT(
      [] { parse_scaling_type("YaRN2"); },
      ThrowsMessage<InvalidArgument>(AllOf(
          HasSubstr("'YaRN2'"), HasSubstr("default, linear, ntk, dynamic, yarn, llama3, longrope or proportional"))));
}

TEST(ScalingTable, ParametersForAReportHeaderListTheGivenKeysOfTheMethod) {
  RopeConfig c;
  EXPECT_EQ(scaling_parameters(c), "default");
  c.type = ScalingType::Yarn;
  c.factor = 4.0;
  c.original_max_position_embeddings = 2048;
  c.low_freq_factor = 1.0;  // not a key yarn reads: left out
  EXPECT_EQ(scaling_parameters(c), "yarn: factor 4, original_max_position_embeddings 2048");
  c = RopeConfig{};
  c.type = ScalingType::LongRope;
  c.short_factor.assign(32, 1.0);
  c.long_factor.assign(32, 2.0);
  EXPECT_EQ(scaling_parameters(c), "longrope: short_factor (32 numbers), long_factor (32 numbers)");
}

TEST(ScalingTable, EveryScalingTypeHasOneRowAndTheRowsFollowTheEnum) {
  const auto& methods = scaling_methods();
  ASSERT_EQ(methods.size(), 8u);
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < methods.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(methods[i].type), i) << methods[i].name;
    EXPECT_EQ(&scaling_method(methods[i].type), &methods[i]);
    EXPECT_EQ(to_string(methods[i].type), methods[i].name);
    EXPECT_TRUE(names.insert(methods[i].name).second) << methods[i].name;
  }
  for (const ScalingAlias& a : scaling_aliases()) {
    EXPECT_TRUE(names.insert(a.name).second) << "alias " << a.name << " is also another name";
  }
  EXPECT_EQ(scaling_method_names(), "default, linear, ntk, dynamic, yarn, llama3, longrope, proportional");
  EXPECT_EQ(scaling_alias_names(), "su, none, mrope");
}

TEST(ScalingTable, TheKeysAreTheUnionOfWhatTheMethodsReadAndRequiredKeysAreRead) {
  std::set<std::string_view> read;
  for (const ScalingMethod& m : scaling_methods()) {
    for (auto k : m.reads) read.insert(k);
    for (auto k : m.required) {
      EXPECT_NE(std::find(m.reads.begin(), m.reads.end(), k), m.reads.end())
          << m.name << " requires " << k << " but does not read it";
    }
  }
  const auto& keys = scaling_keys();
  EXPECT_EQ(read, std::set<std::string_view>(keys.begin(), keys.end()));
  // Each key maps to its field of RopeConfig: not given by default, given once set.
  RopeConfig full;
  full.factor = 2.0;
  full.original_max_position_embeddings = 4096;
  full.beta_fast = 32.0;
  full.beta_slow = 1.0;
  full.truncate = false;
  full.mscale = 1.0;
  full.mscale_all_dim = 1.0;
  full.attention_factor = 1.0;
  full.low_freq_factor = 1.0;
  full.high_freq_factor = 4.0;
  full.short_factor = {1.0};
  full.long_factor = {1.0};
  for (std::string_view key : keys) {
    EXPECT_FALSE(scaling_key_given(RopeConfig{}, key)) << key;
    EXPECT_TRUE(scaling_key_given(full, key)) << key;
  }
  EXPECT_THROW(scaling_key_given(RopeConfig{}, "rope_theta"), std::logic_error);
}

TEST(ScalingTable, RequiredKeysAreWhatAConfigMustGive) {
  for (const ScalingMethod& m : scaling_methods()) {
    for (std::string_view key : m.required) {
      // The full config without `key`: refused, naming the key and the method.
      std::string text = config_with_every_key(std::string(m.name));
      const std::string quoted = "\"" + std::string(key) + "\": ";
      const auto at = text.find(quoted);
      ASSERT_NE(at, std::string::npos) << key;
      text.replace(at, quoted.size(), "\"unused_" + std::string(key) + "\": ");
      EXPECT_THAT([&] { parse_model_config(text, "config.json"); },
                  ThrowsMessage<InvalidArgument>(
                      HasSubstr(fmt::format("rope_scaling.{}: missing (required for rope_type {})", key, m.name))))
          << m.name << " without " << key;
    }
  }
}

TEST(ScalingTable, EveryNameIsAcceptedByTheCommandLineAndByAConfig) {
  for (const std::string& name : every_name()) {
    const ScalingType type = parse_scaling_type(name);
    // A config file.
    const ModelConfig m = parse_model_config(config_with_every_key(name), "config.json");
    EXPECT_EQ(m.rope.type, type) << name;
    // The command line, on top of a file with every key (read as yarn's): --scaling NAME overrides its rope_type.
    const TempConfig file(config_with_every_key("yarn"));
    const test::Result r = test::rope_cli({"inspect", "--config", file.path, "--scaling", name});
    EXPECT_EQ(r.code, 0) << name << ": " << r.err;
    EXPECT_THAT(r.out, HasSubstr(fmt::format("rope_type: {} (--scaling on the command line)", to_string(type))))
        << name;
  }
  const test::Result bad = test::rope_cli({"frequencies", "--dim", "16", "--scaling", "mrope2"});
  test::expect_one_line_error(
      bad, 2,
      "unknown scaling type 'mrope2': expected default, linear, ntk, dynamic, yarn, llama3, longrope or "
      "proportional (also su = longrope, none = default, mrope = default)");
  EXPECT_THAT([] { parse_model_config(config_with_every_key("mrope2"), "config.json"); },
              ThrowsMessage<InvalidArgument>(HasSubstr(
                  "rope_scaling.rope_type: unknown type 'mrope2' (known: default, linear, ntk, dynamic, yarn, llama3, "
                  "longrope, proportional; legacy su, none, mrope)")));
}

TEST(ScalingTable, MropeGivesTheSameNoteOnTheCommandLineAndInAConfig) {
  const auto name = find_scaling_name("mrope");
  ASSERT_TRUE(name.has_value());
  EXPECT_EQ(name->type, ScalingType::Default);
  ASSERT_TRUE(name->note.has_value());
  const Message& note = *name->note;
  EXPECT_EQ(note.en,
            "rope_type mrope without mrope_section: no axis sections, so every pair turns with one position "
            "(treated as default); the sections come from a config's mrope_section (--config, --model "
            "qwen2-vl-7b)");

  const ModelConfig m =
      parse_model_config(R"({"head_dim": 64, "rope_scaling": {"rope_type": "mrope"}})", "config.json");
  EXPECT_EQ(m.rope.type, ScalingType::Default);
  EXPECT_THAT(m.notes, Contains(note));

  // The command line: the same note among inspect's notes, in both languages.
  const test::Result r = test::rope_cli({"inspect", "--model", "llama-2-7b", "--scaling", "mrope"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  " + note.en + "\n"));
  const test::Result zh = test::rope_cli({"inspect", "--model", "llama-2-7b", "--scaling", "mrope", "--lang", "zh"});
  EXPECT_EQ(zh.code, 0) << zh.err;
  EXPECT_THAT(zh.out, HasSubstr("  " + note.in(Lang::Zh) + "\n"));
  // A plain synonym has no note; neither has a canonical name.
  EXPECT_FALSE(find_scaling_name("none")->note.has_value());
  EXPECT_FALSE(find_scaling_name("default")->note.has_value());
  EXPECT_FALSE(find_scaling_name("bogus").has_value());
}

}  // namespace
}  // namespace rope
