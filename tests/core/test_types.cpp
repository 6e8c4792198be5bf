#include "rope/core/types.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rope/core/error.hpp"

namespace rope {
namespace {

TEST(Types, LayoutNamesRoundTrip) {
  for (Layout layout : {Layout::Interleaved, Layout::Half}) EXPECT_EQ(parse_layout(to_string(layout)), layout);
  EXPECT_EQ(parse_layout("neox"), Layout::Half);
  EXPECT_EQ(parse_layout("rotate_half"), Layout::Half);
  EXPECT_EQ(parse_layout("meta"), Layout::Interleaved);
  EXPECT_THAT([] { parse_layout("diagonal"); }, ::testing::ThrowsMessage<InvalidArgument>(
                                                    ::testing::HasSubstr("'interleaved' or 'half' (got 'diagonal')")));
}

TEST(Types, PairChannelsFollowTheLayout) {
  // d = 8, pair 1: channels (2, 3) interleaved, (1, 5) half-split (M5), (M6).
  EXPECT_EQ(pair_channels(8, 1, Layout::Interleaved).first, 2);
  EXPECT_EQ(pair_channels(8, 1, Layout::Interleaved).second, 3);
  EXPECT_EQ(pair_channels(8, 1, Layout::Half).first, 1);
  EXPECT_EQ(pair_channels(8, 1, Layout::Half).second, 5);
}

TEST(Types, ResolvablePositionsEndWhereTheToleranceReachesOne) {
  // κ·ε·(d + M) = 1 at M = 1/(8·2^-52) − d = 2^49 − d (docs/math.md (M13)).
  EXPECT_EQ(max_resolvable_position(128), 562949953421312.0 - 128);
  EXPECT_NO_THROW(check_position_resolvable(1e14, 128));
  EXPECT_NO_THROW(check_position_resolvable(-1e14, 128));
  EXPECT_THAT([] { check_position_resolvable(1e300, 4); },
              ::testing::ThrowsMessage<InvalidArgument>(
                  ::testing::HasSubstr("position m = 1e+300 is beyond what float64 resolves at d = 4")));
  EXPECT_THROW(check_position_resolvable(-6e14, 128), InvalidArgument);
  EXPECT_THROW(check_position_resolvable(std::nan(""), 128), InvalidArgument);
}

TEST(Types, ChecksNameTheRuleAndTheValue) {
  EXPECT_NO_THROW(check_dimension(2));
  EXPECT_THAT([] { check_dimension(10, 8, "--dim"); }, ::testing::ThrowsMessage<InvalidArgument>(::testing::HasSubstr(
                                                           "--dim must be even and between 2 and 8 (got 10)")));
  EXPECT_THROW(check_position(std::nan("")), InvalidArgument);
  EXPECT_THROW(check_base(-1), InvalidArgument);
}

}  // namespace
}  // namespace rope
