// Hugging Face's shape by default (issue 53, item 3): a 4-axis dump [batch, heads, seq, d], the shape docs/check.md's
// spy saves where apply_rotary_pos_emb runs, is read by check, diff and identify without --axes; the header says
// which reading was taken (text and JSON), and --axes or positions that fit one reading only still decide.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/cli_harness.hpp"
#include "support/shared.hpp"
#include "support/temp_dir_test.hpp"

namespace rope {
namespace {

using test::kDumps;
using test::rope_cli;
using ::testing::HasSubstr;
using ::testing::Not;

class CmdCheckHfAxes : public test::TempDirTest {
 protected:
  /// data/dumps/NAME (shape (128, 1, 64), <f4, .npy 1.0) saved again as `shape`, the same values in the same order.
  std::string reshaped(const std::string& name, const std::string& shape) {
    const std::string bytes = read(kDumps + name);
    const auto header_len = static_cast<std::size_t>(static_cast<unsigned char>(bytes[8])) |
                            static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8;
    std::string header = fmt::format("{{'descr': '<f4', 'fortran_order': False, 'shape': {}, }}", shape);
    header.append(64 - (10 + header.size() + 1) % 64, ' ');
    header += '\n';
    std::string out = bytes.substr(0, 8);
    out += static_cast<char>(header.size() & 0xff);
    out += static_cast<char>(header.size() >> 8);
    out += header + bytes.substr(10 + header_len);
    const std::string p = path(name);
    std::ofstream(p, std::ios::binary) << out;
    return p;
  }
};

constexpr const char* kAssumed =
    "  axes                batch,heads,seq,d assumed, the shape of Hugging Face's q and k where apply_rotary_pos_emb "
    "runs; give --axes batch,seq,heads,d to read the dump as [batch, seq, heads, d]\n";

TEST_F(CmdCheckHfAxes, CheckReadsBatchHeadsSeqDWithoutAxes) {
  const std::string before = reshaped("q.npy", "(1, 1, 128, 64)"), after = reshaped("q_rope.npy", "(1, 1, 128, 64)");
  auto r = rope_cli({"check", "--before", before, "--after", after, "--base", "10000"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(fmt::format("  dump                [batch,heads,seq,d] = (1, 1, 128, 64), f32 (<f4), "
                                           "positions 0:128 (assumed)\n{}",
                                           kAssumed)));
  r = rope_cli({"check", "--before", before, "--after", after, "--base", "10000", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["axes"], "batch,heads,seq,d");
  EXPECT_EQ(j["axes_assumed"], true);
  EXPECT_EQ(j["passed"], true);
  // Positions that fit one reading only decide it, and nothing is assumed.
  r = rope_cli({"check", "--before", before, "--after", after, "--base", "10000", "--positions", "0:128"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("assumed, the shape")));
  // The other reading, asked for: one position per vector of 128 heads, which RoPE at position 0 leaves unchanged.
  r = rope_cli({"check", "--before", before, "--after", after, "--base", "10000", "--axes", "batch,seq,heads,d"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("assumed, the shape")));
}

TEST_F(CmdCheckHfAxes, IdentifyAndDiffSayTheReadingToo) {
  const std::string before = reshaped("q.npy", "(1, 1, 128, 64)"), after = reshaped("q_rope.npy", "(1, 1, 128, 64)");
  auto r = rope_cli({"identify", "--before", before, "--after", after});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(kAssumed));
  EXPECT_THAT(r.out, HasSubstr("family              default: base 10000 "));
  r = rope_cli({"identify", "--before", before, "--after", after, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["axes_assumed"], true);
  r = rope_cli({"diff", "--before", before, "--after-a", after, "--after-b", after, "--base", "10000"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  axes                batch,heads,seq,d assumed, the shape of Hugging Face's q"));
  // In Chinese as well.
  r = rope_cli({"check", "--before", before, "--after", after, "--base", "10000", "--lang", "zh"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out,
              HasSubstr("按 batch,heads,seq,d 读取，即 Hugging Face 在 apply_rotary_pos_emb 处的 q 和 k 的形状"));
}

}  // namespace
}  // namespace rope
