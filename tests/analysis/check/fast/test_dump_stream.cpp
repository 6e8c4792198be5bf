// rope check on dumps read in pieces (rope/analysis/check/fast/dump_stream.hpp): for every axes order, batch rows laid
// along the sequence axis, and dumps of several blocks, the streamed comparison is the in-memory one, tally
// for tally, and the diagnosis the same sentence.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

#include "analysis/dumps/test_dump_fixtures.hpp"
#include "rope/analysis/dumps/dump_positions.hpp"
#include "rope/analysis/check/fast/dump_stream.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "support/cli_harness.hpp"
#include "support/expectation.hpp"

namespace rope {
namespace {

using test::expect_half;

/// `v` ([seq][batch·heads][d]) as a float32 .npy file of the axes order `axes`.
void write_npy(const std::string& path, const DumpVectors& v, DumpAxes axes) {
  std::vector<long> shape;
  switch (axes) {
    case DumpAxes::SeqD:
      shape = {v.seq, v.d};
      break;
    case DumpAxes::SeqHeadsD:
      shape = {v.seq, v.heads, v.d};
      break;
    case DumpAxes::BatchHeadsSeqD:
      shape = {v.batch, v.heads, v.seq, v.d};
      break;
    case DumpAxes::BatchSeqHeadsD:
      shape = {v.batch, v.seq, v.heads, v.d};
      break;
  }
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape_string(shape) + ", }";
  while ((10 + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += '\n';
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(dict.size() & 0xff) +
                      static_cast<char>(dict.size() >> 8) + dict;
  const auto put = [&](long b, long h, long s) {
    for (int c = 0; c < v.d; ++c) {
      const auto f = static_cast<float>(v.value(s, b * v.heads + h, c));
      char raw[4];
      std::memcpy(raw, &f, 4);
      bytes.append(raw, 4);
    }
  };
  for (long i = 0; i < v.batch * v.heads * v.seq; ++i) {
    if (axes == DumpAxes::BatchHeadsSeqD)
      put(i / (v.heads * v.seq), i / v.seq % v.heads, i % v.seq);
    else
      put(i / (v.seq * v.heads), i % v.heads, i / v.heads % v.seq);  // seq-major within a batch entry
  }
  std::ofstream(path, std::ios::binary) << bytes;
}

void expect_same(const DumpComparison& a, const DumpComparison& b, const std::string& what) {
  EXPECT_EQ(a.max_ratio, b.max_ratio) << what;
  EXPECT_EQ(a.failing, b.failing) << what;
  EXPECT_EQ(a.total, b.total) << what;
  EXPECT_EQ(a.position_ratio, b.position_ratio) << what;
  EXPECT_EQ(a.channel_ratio, b.channel_ratio) << what;
  EXPECT_EQ(a.group_failing, b.group_failing) << what;
  EXPECT_EQ(a.first_seq, b.first_seq) << what;
  EXPECT_EQ(a.first_group, b.first_group) << what;
  EXPECT_EQ(a.first_channel, b.first_channel) << what;
  EXPECT_EQ(a.first_got, b.first_got) << what;
}

class DumpStreamTest : public test::TempDirTest {
 protected:
};

TEST_F(DumpStreamTest, StreamedComparisonIsTheInMemoryOneForEveryAxesOrder) {
  // 2 × 150 positions × 8 heads × 128 channels: 307 200 elements per dump, more than one block
  // (kStreamBlockElements), so blocks end inside the sequence axis and, laid along it, inside batch rows.
  const int d = 128;
  for (const DumpAxes axes :
       {DumpAxes::SeqD, DumpAxes::SeqHeadsD, DumpAxes::BatchHeadsSeqD, DumpAxes::BatchSeqHeadsD}) {
    for (const bool rows : {false, true}) {
      const bool batched = axes == DumpAxes::BatchHeadsSeqD || axes == DumpAxes::BatchSeqHeadsD;
      if (rows && !batched) continue;
      const long seq = axes == DumpAxes::SeqD ? 2500 : 150, heads = axes == DumpAxes::SeqD ? 1 : 8;
      DumpVectors x = test::random_dump(seq, heads * (batched ? 2 : 1), d, 41);
      x.batch = batched ? 2 : 1, x.heads = heads;
      DumpVectors y = test::rotate_dump(x, true, 96, 5e5, 1.0, 2.0);  // positions shifted by +2: fails as expected
      y.values[7 * d * x.groups() + 3 * d + 5] += 1.0;                // and one element off at index 7
      const std::string before = (dir_ / "before.npy").string(), after = (dir_ / "after.npy").string();
      write_npy(before, x, axes);
      write_npy(after, y, axes);
      const TensorData tb = read_tensor_file(before), ta = read_tensor_file(after);
      DumpVectors mb = arrange_dump(tb, axes, "before"), ma = arrange_dump(ta, axes, "after");
      if (rows) mb = rows_along_sequence(mb), ma = rows_along_sequence(ma);
      const StreamSource streamed(TensorStream::open(before), TensorStream::open(after), axes, rows);
      const MemorySource memory(mb, ma);
      ASSERT_EQ(streamed.seq(), memory.seq());
      ASSERT_EQ(streamed.groups(), memory.groups());
      std::vector<AxisPosition> p;
      for (long s = 0; s < streamed.seq(); ++s) p.push_back(AxisPosition::single(static_cast<double>(s % seq)));
      RopeExpectation e = expect_half(d, 96, 5e5);
      std::vector<Variant> variants = check_variants(e);
      variants.insert(variants.begin(), Variant{});
      variants.front().spec = e;
      const auto a = streamed.compare(0, p, variants), b = memory.compare(0, p, variants);
      const std::string what = std::string(to_string(axes)) + (rows ? " rows" : "");
      for (std::size_t k = 0; k < variants.size(); ++k)
        expect_same(a[k], b[k], what + " " + to_string(variants[k].kind));
      EXPECT_FALSE(a.front().passed()) << what;
      // A range that does not start at 0 (a packed sequence, a batch row): the same again.
      const std::vector<AxisPosition> part(p.begin() + 40, p.begin() + 140);
      expect_same(streamed.compare(40, part, variants)[3], memory.compare(40, part, variants)[3], what + " part");
      // The whole check, its diagnosis and measurement included, reads the source through the same fetches as the
      // comparisons above: held for the plainest order and the one whose blocks cut batch rows (each check of a
      // failing dump also measures it, the costly part under the sanitizers).
      if (axes == DumpAxes::SeqHeadsD || (axes == DumpAxes::BatchSeqHeadsD && rows)) {
        EXPECT_EQ(check_source(streamed, 0, p, e).diagnosis.message.en,
                  check_source(memory, 0, p, e).diagnosis.message.en)
            << what;
      }
    }
  }
}

TEST_F(DumpStreamTest, Bf16SavedAsFloat32IsSeenOnTheFile) {
  DumpVectors x = test::random_dump(64, 4, 64, 5);
  for (double& v : x.values) v = static_cast<double>(Eigen::bfloat16(static_cast<float>(v)));
  DumpVectors y = test::rotate_dump(x, true, 64, kDefaultBase);
  for (double& v : y.values) v = static_cast<double>(Eigen::bfloat16(static_cast<float>(v)));
  const std::string before = (dir_ / "b.npy").string(), after = (dir_ / "a.npy").string();
  write_npy(before, x, DumpAxes::SeqHeadsD);
  write_npy(after, y, DumpAxes::SeqHeadsD);
  const StreamSource s(TensorStream::open(before), TensorStream::open(after), DumpAxes::SeqHeadsD, false);
  EXPECT_TRUE(s.after_looks_like_bf16());
  std::vector<AxisPosition> p;
  for (long k = 0; k < 64; ++k) p.push_back(AxisPosition::single(static_cast<double>(k)));
  const CheckReport r = check_source(s, 0, p, expect_half(64, 64, kDefaultBase));
  EXPECT_EQ(r.diagnosis.matches, known_variant("bf16-as-float32")) << r.diagnosis.message.en;
}

TEST_F(DumpStreamTest, IdentifySampleHoldsTheDumpsValuesAtTheIndicesItNames) {
  DumpVectors x = test::random_dump(1000, 6, 32, 9);
  const DumpVectors y = test::rotate_dump(x, false, 32, kDefaultBase);
  const std::string before = (dir_ / "b.npy").string(), after = (dir_ / "a.npy").string();
  write_npy(before, x, DumpAxes::SeqHeadsD);
  write_npy(after, y, DumpAxes::SeqHeadsD);
  const StreamSource s(TensorStream::open(before), TensorStream::open(after), DumpAxes::SeqHeadsD, false);
  // 2 groups fit: every index of the first two heads.
  DumpSample all = sample_dump(s, 2 * 1000 * 32 + 5);
  EXPECT_EQ(all.groups, 2);
  ASSERT_EQ(all.indices.size(), 1000u);
  EXPECT_EQ(all.after.value(999, 1, 31), static_cast<double>(static_cast<float>(y.value(999, 1, 31))));
  // Not one group: windows of 256 consecutive indices from the first to the last.
  DumpSample part = sample_dump(s, 600 * 32);
  EXPECT_EQ(part.groups, 1);
  ASSERT_EQ(part.indices.size(), 512u);
  EXPECT_EQ(part.indices.front(), 0);
  EXPECT_EQ(part.indices.back(), 999);
  EXPECT_EQ(part.indices[256], 1000 - 256);
  for (std::size_t j = 0; j < part.indices.size(); j += 97) {
    for (int c = 0; c < 32; ++c) {
      EXPECT_EQ(part.before.value(static_cast<long>(j), 0, c),
                static_cast<double>(static_cast<float>(x.value(part.indices[j], 0, c))));
    }
  }
}

TEST_F(DumpStreamTest, ADumpTruncatedAfterItWasOpenedIsAnIoErrorNamingTheByte) {
  // float32 [seq, heads, d]: blocks read as stored (kRawBlockBytes), two blocks and more, the second file
  // cut inside a later block after both were opened (a writer still at work).
  DumpVectors x = test::random_dump(600, 8, 64, 3);
  const DumpVectors y = test::rotate_dump(x, true, 64, kDefaultBase);
  const std::string before = (dir_ / "b.npy").string(), after = (dir_ / "a.npy").string();
  write_npy(before, x, DumpAxes::SeqHeadsD);
  write_npy(after, y, DumpAxes::SeqHeadsD);
  const StreamSource s(TensorStream::open(before), TensorStream::open(after), DumpAxes::SeqHeadsD, false);
  const auto cut = static_cast<std::uintmax_t>(std::filesystem::file_size(after) - 4 * 64 * 8 * 100);
  std::filesystem::resize_file(after, cut);
  std::vector<AxisPosition> p;
  for (long k = 0; k < 600; ++k) p.push_back(AxisPosition::single(static_cast<double>(k)));
  Variant v;
  v.spec = expect_half(64, 64, kDefaultBase);
  try {
    (void)s.compare(0, p, {v});
    FAIL() << "no error";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("it ends at byte " + std::to_string(cut)), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rope
