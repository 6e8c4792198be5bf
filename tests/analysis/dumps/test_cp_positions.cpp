// The positions of a context-parallel rank (rope/analysis/dumps/cp_positions.hpp) against the independent NumPy port of
// TransformerEngine's zigzag split and SGLang's round-robin split (tests/reference/cp_positions.py, its CSV):
// every rank of every case, position for position, and the rank's own sequence starts.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "rope/analysis/dumps/cp_positions.hpp"
#include "rope/core/error.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;

struct CpCase {
  std::string name, layout;
  long cp_size = 1, cp_rank = 0;
  std::vector<long> starts, positions, local_starts;
};

std::vector<long> cp_numbers(const std::string& text) {
  std::vector<long> out;
  std::istringstream in(text);
  for (long v; in >> v;) out.push_back(v);
  return out;
}

std::vector<CpCase> cp_cases() {
  std::ifstream f(std::string(ROPE_REFERENCE_DIR) + "/cp_positions_cases.csv");
  std::vector<CpCase> out;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("case,", 0) == 0) continue;
    std::vector<std::string> cell;
    std::istringstream in(line);
    for (std::string c; std::getline(in, c, ',');) cell.push_back(c);
    if (cell.size() != 7) continue;
    out.push_back({cell[0], cell[1], std::stol(cell[2]), std::stol(cell[3]), cp_numbers(cell[4]), cp_numbers(cell[5]),
                   cp_numbers(cell[6])});
  }
  return out;
}

class CpPositionsReference : public ::testing::TestWithParam<CpCase> {};

TEST_P(CpPositionsReference, EveryRankHoldsTheEnginesPositions) {
  const CpCase& c = GetParam();
  const auto layout = parse_cp_layout(c.layout);
  ASSERT_TRUE(layout.has_value()) << c.layout;
  const CpPositions run = cp_positions({c.starts, c.cp_size, c.cp_rank, *layout});
  EXPECT_EQ(run.positions, c.positions) << c.name << " rank " << c.cp_rank;
  EXPECT_EQ(run.local_starts, c.local_starts) << c.name << " rank " << c.cp_rank;
}

INSTANTIATE_TEST_SUITE_P(Reference, CpPositionsReference, ::testing::ValuesIn(cp_cases()),
                         [](const ::testing::TestParamInfo<CpCase>& info) {
                           std::string n = info.param.name + "_rank" + std::to_string(info.param.cp_rank);
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

TEST(CpPositions, TheReferenceTableIsThere) { EXPECT_GE(cp_cases().size(), 20u); }

struct CpRefusal {
  std::vector<long> starts;
  long cp_size, cp_rank;
  CpLayout layout;
  const char* expected;
};

class CpPositionsRefusal : public ::testing::TestWithParam<CpRefusal> {};

TEST_P(CpPositionsRefusal, NamesTheSettingAndTheRule) {
  const CpRefusal& r = GetParam();
  try {
    cp_positions({r.starts, r.cp_size, r.cp_rank, r.layout});
    FAIL() << r.expected;
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr(r.expected));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Rules, CpPositionsRefusal,
    ::testing::Values(
        CpRefusal{{0, 8, 18},
                  2,
                  0,
                  CpLayout::Zigzag,
                  "sequence 1 has 10 tokens, not divisible by 2 · cp = 4: the zigzag layout splits every sequence"},
        CpRefusal{{0, 9}, 2, 0, CpLayout::Contiguous, "sequence 0 has 9 tokens, not divisible by cp = 2"},
        CpRefusal{{4, 8}, 2, 0, CpLayout::Zigzag, "give 0, the start of each later sequence and the total"},
        CpRefusal{{0}, 2, 0, CpLayout::Zigzag, "at least two numbers"},
        CpRefusal{{0, 8, 8}, 2, 0, CpLayout::RoundRobin, "the starts must increase (8 after 8)"},
        CpRefusal{{0, (1L << 20) + 1}, 1, 0, CpLayout::RoundRobin, "more than the 1048576 allowed"},
        CpRefusal{{0, 8}, 0, 0, CpLayout::Zigzag, "--cp-size must be between 1 and 65536 (got 0)"},
        CpRefusal{{0, 8}, 2, 2, CpLayout::Zigzag, "--cp-rank must be between 0 and 2 − 1 = 1 (got 2)"}));

TEST(CpPositions, LayoutNamesReadBack) {
  for (const CpLayout l : {CpLayout::Zigzag, CpLayout::RoundRobin, CpLayout::Contiguous})
    EXPECT_EQ(parse_cp_layout(to_string(l)), l);
  EXPECT_FALSE(parse_cp_layout("ring").has_value());
}

}  // namespace
}  // namespace rope
