// rope/models/axes.hpp: the axis maps (A2)-(A4) by hand and against tests/reference/mrope.py, the
// multi-axis rotation of the VL presets against HF's apply_multimodal_rotary_pos_emb and
// apply_interleaved_mrope ported to NumPy.
#include <fstream>
#include <functional>
#include <sys/resource.h>
#include <cmath>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <map>
#include <sstream>

#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/core/sanitizer.hpp"
#include "rope/models/axes.hpp"
#include "rope/models/presets.hpp"
#include "rope/models/rope_spec.hpp"
#include "rope/models/vision_rope.hpp"
#include "support/reference_data.hpp"
#include "support/memory_limit.hpp"

namespace rope {
namespace {

#if !ROPE_ADDRESS_SANITIZER
using test::parse_within_memory;  // support/memory_limit.hpp
#endif

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

std::vector<int> axes_of(std::vector<int> sections, SectionOrder order, int pairs = 64) {
  return make_axis_map({std::move(sections), order}, pairs).pair_axis;
}

std::vector<int> pairs_with(const std::vector<int>& axes, int axis) {
  std::vector<int> out;
  for (std::size_t j = 0; j < axes.size(); ++j) {
    if (axes[j] == axis) out.push_back(static_cast<int>(j));
  }
  return out;
}

std::vector<int> range(int from, int to, int step = 1) {
  std::vector<int> out;
  for (int j = from; j < to; j += step) out.push_back(j);
  return out;
}

TEST(Axes, ChunkedSixteenTwentyFourTwentyFourByHand) {
  // Qwen2-VL's [16, 24, 24] (A2): t owns pairs 0-15, h 16-39, w 40-63.
  const auto a = axes_of({16, 24, 24}, SectionOrder::Chunked);
  EXPECT_EQ(pairs_with(a, 0), range(0, 16));
  EXPECT_EQ(pairs_with(a, 1), range(16, 40));
  EXPECT_EQ(pairs_with(a, 2), range(40, 64));
}

TEST(Axes, InterleavedSixteenTwentyFourTwentyFourByHand) {
  // The same sections read by (A3): h takes j mod 3 = 1 below 72, w j mod 3 = 2 below 72, so every
  // one of the 64 pairs: t 0,3,…,63 (22), h 1,4,…,61 (21), w 2,5,…,62 (21); not 16/24/24.
  const auto a = axes_of({16, 24, 24}, SectionOrder::Interleaved);
  EXPECT_EQ(pairs_with(a, 0), range(0, 64, 3));
  EXPECT_EQ(pairs_with(a, 1), range(1, 64, 3));
  EXPECT_EQ(pairs_with(a, 2), range(2, 64, 3));
}

TEST(Axes, QwenThreeVlInterleavedByHand) {
  // [24, 20, 20] (A3): THW twenty times, then TTTT: t owns 0,3,…,57 and 60-63 (24), h 1,…,58, w 2,…,59.
  const AxisMap m = make_axis_map({{24, 20, 20}, SectionOrder::Interleaved}, 64);
  std::vector<int> t = range(0, 60, 3);
  for (int j = 60; j < 64; ++j) t.push_back(j);
  EXPECT_EQ(pairs_with(m.pair_axis, 0), t);
  EXPECT_EQ(pairs_with(m.pair_axis, 1), range(1, 60, 3));
  EXPECT_EQ(pairs_with(m.pair_axis, 2), range(2, 60, 3));
  EXPECT_EQ(m.pairs_of(0), 24);
  EXPECT_EQ(axis_pattern(m).substr(0, 8), "THW·THW");                           // "·" is 2 bytes in UTF-8
  EXPECT_EQ(axis_pattern(m).substr(axis_pattern(m).size() - 11), "THW·TTT·T");  // grouped by 3
}

TEST(Axes, LlamaCppImropeDiffersFromHfOnlyAtPairsSixtyOneAndSixtyTwo) {
  // (A4) with [24, 20, 20, 0]: sectors 61 (61 mod 3 = 1, not < 60) and 62 go to the 4th slot "e";
  // HF's (A3) leaves them on t. Every other pair agrees.
  const auto hf = axes_of({24, 20, 20}, SectionOrder::Interleaved);
  const auto cpp = axes_of({24, 20, 20, 0}, SectionOrder::GgmlImrope);
  std::vector<int> differ;
  for (int j = 0; j < 64; ++j) {
    if (hf[static_cast<std::size_t>(j)] != cpp[static_cast<std::size_t>(j)]) differ.push_back(j);
  }
  EXPECT_EQ(differ, (std::vector<int>{61, 62}));
  EXPECT_EQ(cpp[61], 3);
  EXPECT_EQ(cpp[62], 3);
  EXPECT_EQ(hf[61], 0);
  // MROPE with the sections padded to 4 is HF's chunked map.
  EXPECT_EQ(axes_of({16, 24, 24, 0}, SectionOrder::GgmlMrope), axes_of({16, 24, 24}, SectionOrder::Chunked));
}

TEST(Axes, EveryRuleMatchesTheNumpyPortOfItsSource) {
  // tests/reference/mrope.py: HF's split of cos into mrope_section * 2 chunks, HF's slice assignment,
  // llama.cpp's sector rule; exact integers.
  const test::ReferenceCsv ref = test::read_reference("mrope_ownership.csv");
  const std::map<std::string, SectionOrder> rules{{"chunked", SectionOrder::Chunked},
                                                  {"interleaved", SectionOrder::Interleaved},
                                                  {"ggml-mrope", SectionOrder::GgmlMrope},
                                                  {"ggml-imrope", SectionOrder::GgmlImrope}};
  std::size_t checked = 0;
  for (const auto& row : ref.rows) {
    std::vector<int> sections;
    std::istringstream in(row.at(1));
    for (int s; in >> s;) sections.push_back(s);
    const auto a = axes_of(sections, rules.at(row.at(0)));
    EXPECT_EQ(a.at(static_cast<std::size_t>(std::stoi(row.at(2)))), std::stoi(row.at(3)))
        << row.at(0) << " " << row.at(1);
    ++checked;
  }
  EXPECT_EQ(checked, 8u * 64u);
}

TEST(Axes, WavelengthRangePerAxisOfQwenTwoVl) {
  // λ_j = 2π·1e6^(2j/128): t pairs 0-15 → 2π … 2π·10^(6·30/128) ≈ 160.1; h 16-39 → 2π·10^(6·32/128) ≈
  // 198.7 … 2π·10^(6·78/128); w 40-63 → 2π·10^(6·80/128) … 2π·10^(6·126/128) ≈ 5.06e6.
  const RopeSpec spec = make_spec(load_preset("qwen2-vl-7b"));
  ASSERT_TRUE(spec.axes);
  const auto r = axis_ranges(spec.params.inv_freq, *spec.axes);
  ASSERT_EQ(r.size(), 3u);
  const auto lambda = [](int j) { return kTwoPi * std::pow(10.0, 6.0 * 2 * j / 128); };
  // 1e-13 relative: pow and the division by the frequency round differently, a few ulps.
  EXPECT_NEAR(r[0].shortest / lambda(0), 1.0, 1e-13);
  EXPECT_NEAR(r[0].longest / lambda(15), 1.0, 1e-13);
  EXPECT_NEAR(r[1].shortest / lambda(16), 1.0, 1e-13);
  EXPECT_NEAR(r[2].longest / lambda(63), 1.0, 1e-13);
  EXPECT_NEAR(r[0].longest, 160.1, 0.05);
  EXPECT_NEAR(r[2].longest, 5.06e6, 0.005e6);
  EXPECT_EQ(r[1].pairs, 24);
}

TEST(Axes, WavelengthRangePerAxisOfQwenThreeVl) {
  // Interleaved [24, 20, 20], base 5e6, d = 128: λ_j = 2π·5e6^(2j/128). t owns j = 0, 3, …, 57 and
  // 60 … 63, h j = 1, 4, …, 58, w j = 2, 5, …, 59, so every axis spans the spectrum: t 2π … 2π·5e6^(126/128)
  // ≈ 2.46e7, h 2π·5e6^(2/128) ≈ 8.00 … 2π·5e6^(116/128) ≈ 7.40e6, w ≈ 10.17 … 2π·5e6^(118/128) ≈ 9.42e6.
  const RopeSpec spec = make_spec(load_preset("qwen3-vl-8b"));
  ASSERT_TRUE(spec.axes);
  const auto r = axis_ranges(spec.params.inv_freq, *spec.axes);
  ASSERT_EQ(r.size(), 3u);
  const auto lambda = [](int j) { return kTwoPi * std::pow(5e6, 2.0 * j / 128); };
  // 1e-13 relative: pow and the division by the frequency round differently, a few ulps.
  EXPECT_NEAR(r[0].shortest / lambda(0), 1.0, 1e-13);
  EXPECT_NEAR(r[0].longest / lambda(63), 1.0, 1e-13);
  EXPECT_NEAR(r[1].shortest / lambda(1), 1.0, 1e-13);
  EXPECT_NEAR(r[1].longest / lambda(58), 1.0, 1e-13);
  EXPECT_NEAR(r[2].shortest / lambda(2), 1.0, 1e-13);
  EXPECT_NEAR(r[2].longest / lambda(59), 1.0, 1e-13);
  // The rounded values as a reader checks them by hand.
  EXPECT_NEAR(r[0].longest, 2.46e7, 0.01e7);
  EXPECT_NEAR(r[1].shortest, 8.00, 0.01);
  EXPECT_NEAR(r[1].longest, 7.40e6, 0.01e6);
  EXPECT_NEAR(r[2].shortest, 10.17, 0.01);
  EXPECT_NEAR(r[2].longest, 9.42e6, 0.01e6);
  EXPECT_EQ(r[0].pairs, 24);
  EXPECT_EQ(r[1].pairs, 20);
  EXPECT_EQ(r[2].pairs, 20);
}

TEST(Axes, InterleavedElevenElevenTenOverThirtyTwoPairs) {
  // [11, 11, 10] over 32 pairs (64 rotary channels): (A3) gives THW ten times, then T, H: w gets 10.
  const AxisMap m = make_axis_map({{11, 11, 10}, SectionOrder::Interleaved}, 32);
  EXPECT_EQ(axis_pattern(m), "THW·THW·THW·THW·THW·THW·THW·THW·THW·THW·TH");
  EXPECT_EQ(m.pairs_of(0), 11);
  EXPECT_EQ(m.pairs_of(1), 11);
  EXPECT_EQ(m.pairs_of(2), 10);
}

TEST(Axes, VlPresetsRotateAsHfDoesToOneInATrillion) {
  // tests/reference/mrope.py: HF's apply_multimodal_rotary_pos_emb (qwen2-vl-7b, qwen2.5-vl-7b) and
  // Qwen3-VL's apply_interleaved_mrope, at (7, 2, 3), (100, 40, 55), (3000, 3000, 3000), (12, 0, -5).
  // Tolerance 1e-12 of ‖x‖: both sides form the same products p·θ_j; cos and sin of arguments up to
  // 3000 rad differ between libm and NumPy by an ulp of the result (~1e-16).
  const test::ReferenceCsv ref = test::read_reference("mrope_apply.csv");
  const auto cases = test::group_rows(ref, 4);
  ASSERT_EQ(cases.size(), 12u);
  double worst = 0;
  for (const auto& [key, rows] : cases) {
    const auto& first = *rows.front();
    const RopeSpec spec = make_spec(load_preset(first.at(0)));
    AxisPosition p;
    p.count = 3;
    for (int k = 0; k < 3; ++k)
      p.value[static_cast<std::size_t>(k)] = std::stod(first.at(static_cast<std::size_t>(k + 1)));
    const Eigen::VectorXd x = test::group_column(rows, 5), want = test::group_column(rows, 6);
    const Eigen::VectorXd got = spec_apply(spec, x, p);
    const double err = (got - want).cwiseAbs().maxCoeff() / x.norm();
    worst = std::max(worst, err);
    EXPECT_LE(err, 1e-12) << key;
    // The matrix form gives the same vector.
    EXPECT_LE((spec_matrix(spec, p, spec.head_dim) * x - want).cwiseAbs().maxCoeff() / x.norm(), 1e-12) << key;
  }
  RecordProperty("worst_relative_error", fmt::format("{:.3g}", worst));
}

TEST(Axes, ATextTokenIsPlainRopeAtItsPosition) {
  // p = (m, m, m), or the single number m, is plain RoPE at m whatever the map (A1).
  const RopeSpec spec = make_spec(load_preset("qwen3-vl-8b"));
  Eigen::VectorXd x(128);
  for (int j = 0; j < 128; ++j) x[j] = std::cos(0.7 * j + 0.3);
  AxisPosition three;
  three.count = 3;
  three.value = {41, 41, 41, 0};
  EXPECT_EQ(spec_apply(spec, x, three), spec_apply(spec, x, 41.0));
  EXPECT_EQ(spec_apply(spec, x, AxisPosition::single(41)), spec_apply(spec, x, 41.0));
}

TEST(Axes, PositionsAreParsedAndCheckedAgainstTheAxes) {
  const AxisPosition p = parse_axis_position("7, 2,3", "--position");
  EXPECT_EQ(p.count, 3);
  EXPECT_EQ(p[2], 3.0);
  EXPECT_EQ(p.text(), "(7, 2, 3)");
  EXPECT_EQ(parse_axis_position("-4.5", "--position")[2], -4.5);  // one number is every axis
  EXPECT_THAT([] { parse_axis_position("1,2,3,4,5", "--position"); },
              ThrowsMessage<InvalidArgument>(HasSubstr("--position has 5 components")));
  EXPECT_THAT([] { parse_axis_position("1,,3", "--position"); },
              ThrowsMessage<InvalidArgument>(HasSubstr("--position")));
  const Eigen::VectorXd theta = Eigen::VectorXd::Ones(4);
  EXPECT_THAT([&] { axis_angles(theta, nullptr, parse_axis_position("1,2", "p")); },
              ThrowsMessage<InvalidArgument>(HasSubstr("plain RoPE reads one")));
  const AxisMap m = make_axis_map({{1, 1, 2}, SectionOrder::Chunked}, 4);
  EXPECT_THAT([&] { axis_angles(theta, &m, parse_axis_position("1,2", "p")); },
              ThrowsMessage<InvalidArgument>(HasSubstr("this model reads 3 axes")));
  EXPECT_EQ(axis_angles(theta, &m, parse_axis_position("5,6,7", "p")), Eigen::Vector4d(5, 6, 7, 7));
}

TEST(Axes, RelativeRotationPerAxisAndWithoutTheOffset) {
  // (A5): R_Mᵀ R_N = R_(N−M). Qwen3-VL's interleaved map at M = (1, 2, 3), N = (4, 6, 9): the difference (3, 4, 6)
  // rotated by spec_matrix (the (A1) angles of the spec, another path) equals both sides to 1e-15 (a few
  // products of angles below 10 rad, each an ulp).
  const RopeSpec qwen = make_spec(load_preset("qwen3-vl-8b"));
  const AxisPosition m = parse_axis_position("1,2,3", "M"), n = parse_axis_position("4,6,9", "N");
  const RelativeRotation r = relative_rotation(qwen.params.inv_freq, &*qwen.axes, m, n, qwen.layout);
  EXPECT_EQ(r.delta.text(), "(3, 4, 6)");
  const Eigen::MatrixXd want = spec_matrix(qwen, parse_axis_position("3,4,6", "d"), 128);
  EXPECT_LE((r.rotation - want).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_LE((r.product - want).cwiseAbs().maxCoeff(), 1e-15);
  // One number is every axis's: M = 2, N = (4, 6, 9) → N − M = (2, 4, 7).
  EXPECT_EQ(relative_rotation(qwen.params.inv_freq, &*qwen.axes, AxisPosition::single(2), n, qwen.layout).delta.text(),
            "(2, 4, 7)");
  // Llama 4's vision map counts patches from 1 ((V4), offset 1): R_M turns pair 0 (column, θ = 1) by w + 1, but
  // R_(N−M) by the difference alone. d = 8, base 10000: θ = (1, 0.01) per axis, pairs 0, 1 the column.
  const VisionPairs pairs = vision_pairs(VisionRope::Llama4, 8, 10000);
  const AxisMap llama4 = vision_axis_map(pairs);
  const Eigen::VectorXd theta = pairs.theta;
  ASSERT_EQ(theta, Eigen::Vector4d(1, 0.01, 1, 0.01));
  ASSERT_EQ(llama4.position_offset, 1.0);
  const RelativeRotation v = relative_rotation(theta, &llama4, parse_axis_position("1,2", "M"),
                                               parse_axis_position("3,7", "N"), Layout::Interleaved);
  EXPECT_EQ(v.delta.text(), "(2, 5)");
  EXPECT_NEAR(v.rotation(0, 0), std::cos(5.0), 1e-15);  // column pair: w difference 5, no offset
  EXPECT_NEAR(v.rotation(1, 0), std::sin(5.0), 1e-15);
  EXPECT_NEAR(v.rotation(4, 4), std::cos(2.0), 1e-15);  // row pair: h difference 2
  EXPECT_NEAR(v.rotation(5, 4), std::sin(2.0), 1e-15);
  EXPECT_LE((v.product - v.rotation).cwiseAbs().maxCoeff(), 1e-15);
  // Plain RoPE (no map): (M7) with one number each; a difference of unequal lengths is refused.
  const RelativeRotation plain =
      relative_rotation(theta, nullptr, AxisPosition::single(3), AxisPosition::single(5), Layout::Interleaved);
  EXPECT_NEAR(plain.rotation(0, 1), -std::sin(2.0), 1e-15);
  EXPECT_THAT(
      [&] {
        relative_rotation(theta, &llama4, parse_axis_position("1,2", "M"), parse_axis_position("1,2,3", "N"),
                          Layout::Interleaved);
      },
      ThrowsMessage<InvalidArgument>(
          HasSubstr("the positions (1, 2) and (1, 2, 3) have different numbers of components")));
  EXPECT_THAT(
      [&] {
        relative_rotation(theta, nullptr, parse_axis_position("1,2", "M"), AxisPosition::single(1),
                          Layout::Interleaved);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("plain RoPE reads one")));
}

TEST(Axes, PositionRowsFromAFileOrRopePositionsCsv) {
  // Plain rows, blank lines and CRLF skipped; the CSV of `rope positions --csv` read by its t, h, w columns.
  const auto rows = parse_axis_position_rows("0,0,0\r\n\n4, 4,5\n 8,8,8 \n", "f", 10);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1].text(), "(4, 4, 5)");
  const auto csv = parse_axis_position_rows("token,segment,kind,t,h,w\n0,0,text,0,0,0\n1,1,image,1,1,2\n", "f", 10);
  ASSERT_EQ(csv.size(), 2u);
  EXPECT_EQ(csv[1].text(), "(1, 1, 2)");
  EXPECT_EQ(parse_axis_position_rows("h,w\n3,5\n", "f", 10).front().text(),
            "(3, 5)");  // a vision tower's (row, column)
  EXPECT_EQ(parse_axis_position_rows("7\n-2.5\n", "f", 10)[1].text(), "-2.5");
  // LTX-2's audio tokens: the one column t (rope positions --audio-frames --csv)
  EXPECT_EQ(parse_axis_position_rows("token,kind,t\n0,audio,-0.9995\n", "f", 10).front().text(), "-0.9995");
  const auto refused = [](const char* text, const char* message) {
    EXPECT_THAT([&] { parse_axis_position_rows(text, "--axis-positions 'p.csv'", 2); },
                ThrowsMessage<InvalidArgument>(HasSubstr(message)))
        << text;
  };
  refused("1,2,3\n1,2\n", "--axis-positions 'p.csv' line 2: 2 components where the first row has 3");
  refused("token,kind\n0,text\n", "line 1: the header names no axis");
  refused("t,h,w\n1,2\n", "line 2: 2 cells, fewer than the header's");
  refused("1\n2\n3\n", "line 3: more than 2 positions");
  refused("1,2,3,4,5\n", "line 1: 5 components");
  refused("1,x,3\n", "--axis-positions 'p.csv' line 1");
  refused("\n\n", "--axis-positions 'p.csv': no positions");
  // A row longer than its header, a column named twice, a header of other axes: refused, not read by guess.
  refused("t,h,w\n4,4,4,9\n", "line 2: 4 cells, more than the header's 3");
  refused("t,h,w,t\n1,2,3,4\n", "line 1: the header names the column t 2 times");
  refused("h\n1\n",
          "line 1: the header names the axes 'h': a positions file has the columns t, h, w or p, w, h, t "
          "(HunyuanVL's XD-RoPE; both as rope positions --csv writes them), t, h, w, e (llama.cpp), t, h, w, l "
          "(Flux.2) or h, w (a vision tower)");
  refused("h,w,e\n1,2,3\n", "line 1: the header names the axes 'h,w,e'");
  refused("p,w,h\n1,2,3\n", "line 1: the header names the axes 'p,w,h'");
  // A column that is no axis and none of rope positions' own is refused, not skipped (a typo of an axis would
  // otherwise leave that axis out); its name escaped.
  refused("token,t,h,w,x\n0,1,2,3,4\n", "line 1: the column 'x' is no axis (t, h, w, e, p, l) and none of token");
  refused("t,h,W\n1,2,3\n", "line 1: the column 'W' is no axis");
  refused("t,h,w,\x1b\n1,2,3,4\n", "line 1: the column '\\e' is no axis");
  // A UTF-8 byte order mark before the header (a spreadsheet's CSV) is skipped.
  const auto bom = parse_axis_position_rows("\xEF\xBB\xBFt,h,w\n0,1,2\n", "f", 10);
  ASSERT_EQ(bom.size(), 1u);
  EXPECT_EQ(bom.front().text(), "(0, 1, 2)");
  EXPECT_EQ(parse_axis_position_rows("t,h,w,e\n1,2,3,4\n", "f", 10).front().text(), "(1, 2, 3, 4)");
}

TEST(Axes, PositionRowsAreReadByTheirColumnsNames) {
  // Each set of axes in its own order whatever the columns' order, and the set said; no header: no names.
  const auto read = [](const char* text) {
    std::string names = "unset";
    const auto rows = parse_axis_position_rows(text, "f", 10, &names);
    return names + " " + rows.front().text();
  };
  EXPECT_EQ(read("token,segment,kind,t,h,w\n0,0,text,1,2,3\n"), "t,h,w (1, 2, 3)");
  EXPECT_EQ(read("w,t,h\n3,1,2\n"), "t,h,w (1, 2, 3)");
  EXPECT_EQ(read("e,w,h,t\n4,3,2,1\n"), "t,h,w,e (1, 2, 3, 4)");
  EXPECT_EQ(read("w,h\n5,3\n"), "h,w (3, 5)");
  // HunyuanVL's four XD-RoPE streams as rope positions --csv writes them (token,segment,kind,p,w,h,t): p, w, h, t,
  // not t, h, w (which read the last three columns backwards and dropped p).
  EXPECT_EQ(read("token,segment,kind,p,w,h,t\n5,1,image,5,0,1,0\n"), "p,w,h,t (5, 0, 1, 0)");
  EXPECT_EQ(read("t,h,w,p\n0,1,0,5\n"), "p,w,h,t (5, 0, 1, 0)");
  EXPECT_EQ(read("5,0,1,0\n"), " (5, 0, 1, 0)");
}

TEST(Axes, ErnieThreeDimensionalMapByHand) {
  // (A8), HF Ernie4_5_VL_MoeTextRotaryEmbedding.recomposition_to_3d (modeling_ernie4_5_vl_moe.py at 4f2fa85af5eb):
  // sections (h, w, t) = [22, 22, 20]: pairs 0, 2, …, 42 h; 1, 3, …, 43 w; 44-63 t.
  const auto a = axes_of({22, 22, 20}, SectionOrder::Ernie3d);
  EXPECT_EQ(a[0], 1);
  EXPECT_EQ(a[1], 2);
  EXPECT_EQ(a[42], 1);
  EXPECT_EQ(a[43], 2);
  EXPECT_EQ(a[44], 0);
  EXPECT_EQ(a[63], 0);
  const AxisMap map = make_axis_map({{22, 22, 20}, SectionOrder::Ernie3d}, 64);
  EXPECT_EQ(map.pairs_of(0), 20);
  EXPECT_EQ(map.pairs_of(1), 22);
  EXPECT_EQ(map.pairs_of(2), 22);
  EXPECT_EQ(axis_pattern(make_axis_map({{2, 2, 3}, SectionOrder::Ernie3d}, 7)), "HW·HW·TTT");
  EXPECT_EQ(to_string(SectionOrder::Ernie3d), "ERNIE 3-D");
  // torch.stack needs s_h = s_w; the sections cover the pairs.
  EXPECT_THAT(
      [] {
        make_axis_map({{20, 24, 20}, SectionOrder::Ernie3d}, 64);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("as many pairs of height as of width")));
  EXPECT_THAT(
      [] {
        make_axis_map({{22, 22, 19}, SectionOrder::Ernie3d}, 64);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("adds up to 63")));
}

// (A9), vLLM BailingMRotaryEmbedding.select_cos_sin (vllm/model_executor/layers/rotary_embedding/bailing_mrope.py at
// 9c5b716395): sections (t, h, w); pairs j < h + w take h when j is even and w when odd, the rest t (vLLM's own test of
// select_cos_sin, [2, 2, 2] over 6 pairs, takes cos from h, w, h, w, t, t: the first case below).
struct BailingCase {
  std::vector<int> sections;
  int pairs;
  std::string pattern;
};

class AxesBailing : public ::testing::TestWithParam<BailingCase> {};

TEST_P(AxesBailing, AlternatesHeightAndWidthThenTime) {
  const auto& [sections, pairs, pattern] = GetParam();
  const AxisMap map = make_axis_map({sections, SectionOrder::Bailing}, pairs);
  EXPECT_EQ(axis_pattern(map), pattern);
  EXPECT_EQ(map.pairs_of(0), sections[0]);
  EXPECT_EQ(map.pairs_of(1), sections[1]);
  EXPECT_EQ(map.pairs_of(2), sections[2]);
  for (int j = 0; j < pairs; ++j) {
    const int want = j < sections[1] + sections[2] ? (j % 2 == 0 ? 1 : 2) : 0;
    EXPECT_EQ(map.pair_axis[static_cast<std::size_t>(j)], want) << j;
  }
}

INSTANTIATE_TEST_SUITE_P(Sections, AxesBailing,
                         ::testing::Values(BailingCase{{2, 2, 2}, 6, "HW·HW·TT"},
                                           BailingCase{{12, 10, 10}, 32, "HW·HW·HW·HW·HW·HW·HW·HW·HW·HW·TTTTTTTTTTTT"},
                                           BailingCase{{8, 12, 12}, 32, "HW·HW·HW·HW·HW·HW·HW·HW·HW·HW·HW·HW·TTTTTTTT"},
                                           BailingCase{{3, 0, 0}, 3, "TTT"}));

TEST(Axes, BailingRefusesWhatItsValidationRefuses) {
  // _validate_bailing_mrope_config: [T, H, W] with H = W adding up to rotary_dim / 2.
  EXPECT_EQ(to_string(SectionOrder::Bailing), "Bailing");
  EXPECT_THAT(
      [] {
        make_axis_map({{12, 12, 8}, SectionOrder::Bailing}, 32);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("Bailing M-RoPE reads 3 sections (t, h, w) with as many")));
  EXPECT_THAT(
      [] {
        make_axis_map({{12, 10}, SectionOrder::Bailing}, 22);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("Bailing M-RoPE reads 3 sections")));
  EXPECT_THAT(
      [] {
        make_axis_map({{12, 10, 10}, SectionOrder::Bailing}, 64);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("adds up to 32, not rotary_dim / 2 = 64: Bailing")));
}

// (A10), vLLM MRotaryEmbeddingInterleaved.get_mrope_interleaved_id_list (rotary_embedding/openpangu_rope.py at
// 098d12c28e) with force_last: the axes below are what tests/reference/openpangu_mrope.py's port of that function
// prints, and `differs` the first pair where they leave Qwen3-VL's (A3) of the same sections (-1: nowhere).
struct PanguCase {
  std::vector<int> sections;
  std::string axes;  ///< one letter per pair
  int differs;
};

class AxesPangu : public ::testing::TestWithParam<PanguCase> {};

TEST_P(AxesPangu, LaysThePairsOutGreedilyAndPartsFromQwenThreeVl) {
  const auto& [sections, axes, differs] = GetParam();
  const int pairs = static_cast<int>(axes.size());
  const AxisMap map = make_axis_map({sections, SectionOrder::PanguGreedy}, pairs);
  std::string got;
  for (const int a : map.pair_axis) got += axis_letter(a);
  EXPECT_EQ(got, axes);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(map.pairs_of(k), sections[static_cast<std::size_t>(k)]) << k;
  EXPECT_EQ(first_differing_pair(map, make_axis_map({sections, SectionOrder::Interleaved}, pairs)), differs);
}

INSTANTIATE_TEST_SUITE_P(
    Sections, AxesPangu,
    ::testing::Values(PanguCase{{24, 20, 20}, "thwthwthwthwthwthwthwthtwthwthwthwthwthwthwthtwthwthwthwthwthwtt", 23},
                      PanguCase{{16, 24, 24}, "thwhwthwhwthwthwhwthwthwhwthwhwthwthwhwthwthwhwthwhwthwthwhwthwt", 3},
                      PanguCase{{22, 21, 21}, "thwthwthwthwthwthwthwthwthwthwthwthwthwthwthwthwthwthwthwthwthwt", -1},
                      PanguCase{{2, 1, 1}, "thwt", -1}, PanguCase{{3, 0, 0}, "ttt", -1}));

// (A11), HunyuanVL's XD-RoPE over 4 streams p, w, h, t: the stream of each channel of a head of `axes.size()`
// channels, first halves then second halves, as tests/reference/hunyuan_xdrope.py's ports of HF's
// _apply_rotary_pos_emb_xdrope (the doubled sections) and Tencent's HunYuanVLRotaryEmbedding.forward (the list
// repeated) split them; `split`: the two channels of some pair read two streams.
struct XdropeCase {
  const char* name;
  std::vector<int> sections;
  SectionOrder order;
  std::string channels;  ///< one letter per channel c = 0 … d − 1
  bool split;
};

class AxesXdrope : public ::testing::TestWithParam<XdropeCase> {};

TEST_P(AxesXdrope, GivesEachChannelTheStreamItsCodeReads) {
  const XdropeCase& c = GetParam();
  const int pairs = static_cast<int>(c.channels.size() / 2);
  const AxisMap map = make_axis_map({c.sections, c.order}, pairs);
  std::string got;
  for (int ch = 0; ch < 2 * pairs; ++ch) {
    const auto j = static_cast<std::size_t>(ch % pairs);
    got += map.letter(ch < pairs ? map.pair_axis[j] : map.second_of(j));
  }
  EXPECT_EQ(got, c.channels);
  EXPECT_EQ(map.split(), c.split);
  EXPECT_TRUE(map.xdrope());
  EXPECT_EQ(map.components(), "p,w,h,t");
}

INSTANTIATE_TEST_SUITE_P(
    Maps, AxesXdrope,
    ::testing::Values(XdropeCase{"hf_1111", {1, 1, 1, 1}, SectionOrder::XdropeHf, "ppwwhhtt", true},
                      XdropeCase{"tencent_1111", {1, 1, 1, 1}, SectionOrder::XdropeTencent, "pwhtpwht", false},
                      XdropeCase{"hf_2110", {2, 1, 1, 0}, SectionOrder::XdropeHf, "ppppwwhh", true},
                      XdropeCase{"tencent_2110", {2, 1, 1, 0}, SectionOrder::XdropeTencent, "ppwhppwh", false},
                      XdropeCase{"hf_4000", {4, 0, 0, 0}, SectionOrder::XdropeHf, "pppppppp", false}),
    [](const testing::TestParamInfo<XdropeCase>& info) { return std::string(info.param.name); });

TEST(Axes, XdropeReadsSectionsAsEachCodeDoesAndRefusesTheRest) {
  // HF _normalize_xdrope_section: whole pairs summing to head_dim / 2 as written, else ratios; Tencent: ratios when
  // every value is <= 1. [1, 1, 1, 1] of head_dim 8 is 1 pair each for HF, 4 each (too many) for Tencent.
  EXPECT_EQ(xdrope_pairs({16, 16, 16, 16}, 128, SectionOrder::XdropeHf, "s"), (std::vector<int>{16, 16, 16, 16}));
  EXPECT_EQ(xdrope_pairs({0.25, 0.25, 0.25, 0.25}, 128, SectionOrder::XdropeHf, "s"),
            (std::vector<int>{16, 16, 16, 16}));
  EXPECT_EQ(xdrope_pairs({1, 1, 1, 1}, 8, SectionOrder::XdropeHf, "s"), (std::vector<int>{1, 1, 1, 1}));
  EXPECT_EQ(xdrope_pairs({1, 1, 1, 1}, 8, SectionOrder::XdropeTencent, "s"), (std::vector<int>{4, 4, 4, 4}));
  EXPECT_THAT(
      [] {
        xdrope_pairs({16.5, 15.5, 16, 16}, 128, SectionOrder::XdropeTencent, "s");
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("as written: they must be whole numbers")));
  EXPECT_THAT(
      [] {
        make_axis_map({{16, 16, 16}, SectionOrder::XdropeHf}, 48);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("reads 4 streams (p, w, h, t)")));
  EXPECT_THAT(
      [] {
        make_axis_map({{16, 16, 16, 16}, SectionOrder::XdropeTencent}, 32);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("adds up to 64 pairs, not head_dim / 2 = 32")));
  // One angle per pair: a text token (one number) turns HF's map as plain RoPE; an image token whose p and h differ
  // cannot be said as one angle per pair, Tencent's can.
  const AxisMap hf = make_axis_map({{1, 1, 1, 1}, SectionOrder::XdropeHf}, 4);
  const AxisMap tencent = make_axis_map({{1, 1, 1, 1}, SectionOrder::XdropeTencent}, 4);
  const Eigen::VectorXd theta = Eigen::VectorXd::Ones(4);
  EXPECT_EQ(axis_angles(theta, &hf, AxisPosition::single(3)), Eigen::VectorXd::Constant(4, 3.0));
  const AxisPosition image = parse_axis_position("5,1,0,0", "p");
  EXPECT_EQ(axis_angles(theta, &tencent, image), (Eigen::VectorXd(4) << 5, 1, 0, 0).finished());
  EXPECT_THAT([&] { axis_angles(theta, &hf, image); },
              ThrowsMessage<InvalidArgument>(HasSubstr("turns the two channels of pair 0 by streams p and h")));
  EXPECT_EQ(channel_angles(theta, &hf, image, true), (Eigen::VectorXd(4) << 0, 0, 0, 0).finished());
  EXPECT_EQ(first_differing_pair(hf, tencent), 0);
}

TEST(Axes, PanguRefusesWhatItsClassRefuses) {
  // "Sum of mrope_section must equal rotary_dim // 2."; 3 sections (t, h, w), force_last keeping one pair of time.
  EXPECT_EQ(to_string(SectionOrder::PanguGreedy), "openPangu");
  EXPECT_EQ(axis_pattern(make_axis_map({{2, 1, 1}, SectionOrder::PanguGreedy}, 4)), "THW·T");
  EXPECT_THAT(
      [] {
        make_axis_map({{24, 20, 20}, SectionOrder::PanguGreedy}, 32);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("adds up to 64, not rotary_dim / 2 = 32: openPangu-VL's")));
  EXPECT_THAT(
      [] {
        make_axis_map({{20, 20}, SectionOrder::PanguGreedy}, 40);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("openPangu-VL's interleaved M-RoPE reads 3 sections")));
  EXPECT_THAT(
      [] {
        make_axis_map({{0, 16, 16}, SectionOrder::PanguGreedy}, 32);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("at least 1 pair of time")));
}

TEST(Axes, SectionsThatDoNotFitAreRefused) {
  EXPECT_THAT(
      [] {
        make_axis_map({{16, 24, 23}, SectionOrder::Chunked}, 64);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("adds up to 63, not rotary_dim / 2 = 64")));
  EXPECT_THAT(
      [] {
        make_axis_map({{16, 24}, SectionOrder::Interleaved}, 64);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("interleaved M-RoPE reads 3 sections")));
  EXPECT_THAT(
      [] {
        make_axis_map({{1, 1, 1, 1, 1}, SectionOrder::GgmlMrope}, 5);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("expected 1 to 4 sections")));
  EXPECT_THAT(
      [] {
        make_axis_map({{0, 0, 0, 0}, SectionOrder::GgmlImrope}, 4);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("adds up to 0")));
  EXPECT_THAT(
      [] {
        make_axis_map({{-1, 33, 32}, SectionOrder::Chunked}, 64);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("whole number in 0")));
}

#if !ROPE_ADDRESS_SANITIZER
TEST(AxisPositions, ALineOfCommasIsRefusedBeforeItsCellsAreKept) {
  // 32 MiB of commas in an --axis-positions file took ~34 bytes per byte (issue 37, item 6).
  const std::string text = std::string(32u << 20, ',');
  parse_within_memory([&] { parse_axis_position_rows(text, "p.csv", 10); }, 64u << 20,
                      "p.csv line 1: 33554433 cells, more than the 64 a row of positions can have");
}
#endif

}  // namespace
}  // namespace rope
