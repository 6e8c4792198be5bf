// A correct [batch, seq, heads, d] dump given without --axes, with as many heads as positions, so that both 4-axis
// orders fit and Hugging Face's [batch, heads, seq, d] is assumed (issue 62 item 3): rope check fails that reading,
// tries the other and passes, saying so; rope identify does the same; and when no pairing is found, identify never
// claims that the pairs break their norms. The dump is RoPE applied here by the complex form
// (analysis/test_dump_fixtures.hpp), written as a float64 .npy.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <string>

#include "analysis/dumps/test_dump_fixtures.hpp"
#include "rope/analysis/check/check_run.hpp"
#include "rope/analysis/identify/identify_run.hpp"
#include "rope/report/dump_text.hpp"
#include "rope/report/text.hpp"
#include "support/temp_dir_test.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;

/// `v` ([seq][heads][d], batch 1) as a little-endian float64 .npy of shape (1, seq, heads, d).
void write_batch_seq_heads_npy(const std::string& path, const DumpVectors& v) {
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (1, " + std::to_string(v.seq) + ", " +
                       std::to_string(v.heads) + ", " + std::to_string(v.d) + "), }";
  header += std::string(63 - (10 + header.size()) % 64, ' ') + "\n";
  std::ofstream out(path, std::ios::binary);
  out << std::string("\x93NUMPY\x01\x00", 8) << static_cast<char>(header.size() & 0xff)
      << static_cast<char>(header.size() >> 8) << header;
  out.write(reinterpret_cast<const char*>(v.values.data()), static_cast<std::streamsize>(v.values.size() * 8));
}

class AssumedAxes : public test::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    const DumpVectors x = test::random_dump(8, 8, 64);
    write_batch_seq_heads_npy(path("q.npy"), x);
    write_batch_seq_heads_npy(path("q_rope.npy"), test::rotate_dump(x, true, 64, 10000.0));
  }
  DumpFiles files(const std::string& axes = "") const {
    DumpFiles f;
    f.before = path("q.npy");
    f.after = path("q_rope.npy");
    f.positions = "0:8";
    f.axes = axes;
    return f;
  }
};

TEST_F(AssumedAxes, CheckTriesTheOtherReadingAndPassesSayingSo) {
  CheckRequest q;
  q.dumps = files();
  q.settings.layout = Layout::Half;
  const CheckRun run = run_check(q);
  EXPECT_TRUE(run.passed());
  EXPECT_EQ(run.dumps.axes, DumpAxes::BatchSeqHeadsD);
  EXPECT_TRUE(run.dumps.axes_assumed);
  EXPECT_THAT(axes_assumed_text(run.dumps, Text(Lang::En)),
              HasSubstr("batch,seq,heads,d, read as [batch, seq, heads, d]: as [batch, heads, seq, d]"));
  q.dumps = files("batch,heads,seq,d");  // the order given: no other reading
  EXPECT_FALSE(run_check(q).passed());
}

TEST_F(AssumedAxes, IdentifyTriesTheOtherReadingAndNeverBlamesTheNorms) {
  const IdentifyRun id = run_identify({files(), std::nullopt});
  EXPECT_EQ(id.id.layout, PairLayout::Half);
  EXPECT_EQ(id.dumps.axes, DumpAxes::BatchSeqHeadsD);
  EXPECT_TRUE(id.dumps.axes_assumed);
  const IdentifyRun given = run_identify({files("batch,heads,seq,d"), std::nullopt});
  EXPECT_EQ(given.id.layout, PairLayout::None);
  ASSERT_TRUE(given.id.norms_kept_by.has_value());  // the pairs keep their norms: the angles are what differ
  EXPECT_EQ(*given.id.norms_kept_by, PairLayout::Half);
  EXPECT_LT(given.id.norm_residual, 1e-9);
  bool said = false;
  for (const Message& n : given.id.notes) {
    EXPECT_THAT(n.en, ::testing::Not(HasSubstr("keeps every pair's norm: this is not a rotation")));
    said = said || n.en.find("though the half pairs keep every norm") != std::string::npos;
  }
  EXPECT_TRUE(said);
}

}  // namespace
}  // namespace rope
