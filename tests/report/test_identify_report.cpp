// rope identify as a library call (analysis/identify/identify_run.hpp) and its value (report/identify_report.hpp):
// files read by run_identify and arrays arranged by a front end (identify_tensors, the Python module's) give one
// value.
#include "rope/report/identify_report.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sstream>

#include "rope/io/tensor_file.hpp"
#include "rope/report/json.hpp"
#include "rope/report/text.hpp"
#include "support/shared.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;

struct IdentifyDumps {
  const char* after;
  PairLayout layout;
  bool positions_differ;
};

class IdentifyReport : public ::testing::TestWithParam<IdentifyDumps> {};

TEST_P(IdentifyReport, FilesAndArrangedArraysGiveOneValue) {
  const IdentifyDumps& d = GetParam();
  IdentifyRequest request;
  request.dumps.before = test::kDumps + "q.npy";
  request.dumps.after = test::kDumps + d.after;
  request.dumps.positions = "0:128";
  const IdentifyRun run = run_identify(request);
  EXPECT_EQ(run.id.layout, d.layout);
  EXPECT_EQ(run.positions_differ(), d.positions_differ);
  EXPECT_TRUE(run.dumps.after.values.empty());  // the report keeps no values
  DumpPairInput input;
  for (int p = 0; p < 128; ++p) input.positions.push_back(p);
  const IdentifyRun arranged =
      identify_tensors(read_tensor_file(request.dumps.before), read_tensor_file(request.dumps.after), input);
  const std::string json = json_text(identify_value(run));
  EXPECT_EQ(json_text(identify_value(arranged)), json);
  EXPECT_THAT(json, HasSubstr("\"heads_paired_otherwise\": []"));
  std::ostringstream out;
  print_identify(out, run, Text(Lang::En), std::nullopt);
  EXPECT_THAT(out.str(), HasSubstr("rope identify: " + request.dumps.after));
}

INSTANTIATE_TEST_SUITE_P(Files, IdentifyReport,
                         ::testing::Values(IdentifyDumps{"q_rope.npy", PairLayout::Half, false},
                                           IdentifyDumps{"q_rope_interleaved.npy", PairLayout::Interleaved, false},
                                           IdentifyDumps{"q_rope_off_by_one.npy", PairLayout::Half, true}),
                         [](const ::testing::TestParamInfo<IdentifyDumps>& info) {
                           std::string name = info.param.after;
                           return name.substr(0, name.find('.'));
                         });

}  // namespace
}  // namespace rope
