// rope check's known variants as one table and the modes of a check (rope/analysis/check/check_table.hpp): a row per
// variant file, each its place, unique names, every row with its builder (or found by a screen, a search, a measurement
// or a mode) and its sentences in the catalog, the variants built in the table's order, every variant check_variants
// builds reporting the parameters its row declares, the forward mode's expectation unchanged and its sentences the
// rows' own.
#include <gtest/gtest.h>
#include <algorithm>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include "rope/analysis/check/check_table.hpp"
#include "rope/analysis/check/cos_sin_table.hpp"
#include "rope/models/grid_rope.hpp"
#include "rope/io/po_file.hpp"
#include "rope/models/model_config.hpp"
#include "rope/models/presets.hpp"
#include "rope/models/rope_spec.hpp"
#include "rope/models/scaling/scaling.hpp"
#include "support/expectation.hpp"

namespace rope {
namespace {

/// FoPE of 5 kept pairs of 8 (zero coefficients), `heads` matrices, every vector on matrix `matrix` (--kv-head).
RopeExpectation fope_kv_head_expectation(long heads, long matrix) {
  RopeExpectation e = test::expect_half(16);
  FopeCoefficients c;
  c.kept = 5, c.heads = heads;
  c.cos.assign(static_cast<std::size_t>(25 * heads), 0.0), c.sin = c.cos;
  e.fope = std::make_shared<const FopeCoefficients>(c);
  e.fope_matrix = matrix;
  return e;
}

TEST(CheckTable, OneRowPerKind) {
  const std::vector<VariantRow>& table = variant_table();
  ASSERT_FALSE(table.empty());
  std::set<std::string> names;
  std::set<VariantId> kinds;
  const RopeExpectation e = test::expect_half(16);
  EXPECT_EQ(table.front().kind, known_variant("expected"));
  for (const VariantRow& row : table) {
    EXPECT_EQ(row.kind.index, &row - table.data()) << row.name << ": a row's id is its place";
    EXPECT_EQ(known_variant(row.name), row.kind) << row.name;
    EXPECT_TRUE(kinds.insert(row.kind).second) << row.name << "'s kind twice";
    EXPECT_EQ(&variant_row(row.kind), &row) << row.name;
    EXPECT_TRUE(names.insert(row.name).second) << row.name << " twice";
    EXPECT_EQ(std::string(to_string(row.kind)), row.name);
    EXPECT_FALSE(describe(row.kind, e).en.empty()) << row.name;
    EXPECT_NE(row.says, nullptr) << row.name;
    EXPECT_STRNE(to_string(row.detection), "?") << row.name;
  }
  EXPECT_EQ(std::string(to_string(known_variant("cos-sin-cache-short"))), "cos-sin-cache-short");
  EXPECT_EQ(describe(known_variant("layout-swapped"), e).en, "the interleaved layout");
}

/// po/zh_CN.po's English ids (msgid), read once.
const std::set<std::string>& catalog_ids() {
  static const std::set<std::string> ids = [] {
    std::ifstream in(ROPE_CATALOG_FILE, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    std::set<std::string> out;
    for (const PoEntry& entry : parse_po(text.str(), "zh_CN.po")) {
      if (!entry.obsolete && !entry.str.empty()) out.insert(entry.id);
    }
    return out;
  }();
  return ids;
}

/// The ids of `m` and of the messages in its fields that the catalog lacks.
std::vector<std::string> untranslated(const Message& m) {
  std::vector<std::string> out;
  if (!m.id.empty() && !m.verbatim && catalog_ids().count(m.id) == 0) out.push_back(m.id);
  for (const MessageArg& a : m.args) {
    if (a.nested == nullptr) continue;
    for (const std::string& id : untranslated(*a.nested)) out.push_back(id);
  }
  return out;
}

class CheckTableRows : public testing::TestWithParam<VariantId> {};

// A row is its known bug whole: a name, what it changes and its sentence, both in the catalog; and how its variants
// are built and when they apply (a row compared with the dump builds from the expectation, a row built from the dump
// from what it shows), or, for a row found otherwise (a screen, a search, a measurement, a mode), no builder of the
// expectation's: nothing that the one pass over the variants would compare.
TEST_P(CheckTableRows, EachRowCarriesItsBuilderAndItsSentences) {
  const VariantRow& row = variant_row(GetParam());
  SCOPED_TRACE(row.name);
  ASSERT_NE(row.changes, nullptr);
  ASSERT_NE(row.says, nullptr);
  // An M-RoPE expectation (its sections interleaved), so that the rows whose sentences name the sections have some;
  // one position, two groups, the row's parameters each 1.
  RopeExpectation e = test::expect_half(16);
  e.rope.axes = make_axis_map({{2, 3, 3}, SectionOrder::Interleaved}, 8);
  CheckDiagnosis dg;
  for (std::string keys = row.parameters; !keys.empty();) {
    const std::size_t comma = keys.find(',');
    dg.found.emplace_back(keys.substr(0, comma), 1.0);
    keys = comma == std::string::npos ? "" : keys.substr(comma + 1);
  }
  DumpComparison c;
  c.after_non_finite.seq = 0;
  const std::vector<AxisPosition> positions{AxisPosition::single(0), AxisPosition::single(1)};
  const VariantSaying saying{e, dg, c, positions, 2, DType::F32};
  const Message changes = row.changes(e), says = row.says(saying);
  EXPECT_FALSE(changes.en.empty());
  EXPECT_EQ(untranslated(changes), std::vector<std::string>{}) << "add its Chinese to po/zh_CN.po";
  if (row.kind == known_variant("expected")) {
    EXPECT_TRUE(says.en.empty());
    EXPECT_FALSE(row.from_expectation || row.from_dump) << "the expectation is no variant of itself";
    return;
  }
  EXPECT_FALSE(says.en.empty());
  EXPECT_EQ(untranslated(says), std::vector<std::string>{}) << "add its Chinese to po/zh_CN.po";
  // A builder comes with its predicate, and a predicate with its builder.
  for (const VariantBuild& b : {row.from_expectation, row.from_dump}) {
    EXPECT_EQ(b.applies == nullptr, b.build == nullptr);
  }
  switch (row.detection) {
    case VariantDetection::Compared:
      EXPECT_TRUE(row.from_expectation) << "a compared row builds its variant from the expectation";
      break;
    case VariantDetection::FromDump:
      EXPECT_TRUE(row.from_dump) << "a row built from the dump builds its variant from what the dump shows";
      EXPECT_FALSE(row.from_expectation);
      break;
    case VariantDetection::Measured:
    case VariantDetection::Searched:
      EXPECT_FALSE(row.from_expectation) << "a row found otherwise is not compared in the one pass";
      EXPECT_TRUE(row.search != nullptr || row.measured != nullptr || row.classified != nullptr)
          << "a searched or measured row holds what finds it: its search, its reading of the measurement or of the "
             "failing elements classified";
      break;
    case VariantDetection::InMode:
      EXPECT_FALSE(row.from_expectation) << "a row found otherwise is not compared in the one pass";
      EXPECT_NE(row.in_mode, nullptr) << "a row of a mode holds what finds it";
      break;
    case VariantDetection::Paired:
      EXPECT_FALSE(row.from_expectation) << "a row found otherwise is not compared in the one pass";
      EXPECT_NE(row.paired, nullptr) << "a row found with q and k holds its reading of their pass";
      break;
    case VariantDetection::Screened:
      EXPECT_FALSE(row.from_expectation) << "a row found otherwise is not compared in the one pass";
      break;
  }
}

std::vector<VariantId> every_kind() {
  std::vector<VariantId> kinds;
  for (const VariantRow& row : variant_table()) kinds.push_back(row.kind);
  return kinds;
}

INSTANTIATE_TEST_SUITE_P(Rows, CheckTableRows, testing::ValuesIn(every_kind()),
                         [](const testing::TestParamInfo<VariantId>& info) {
                           std::string name = to_string(info.param);
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

/// The place of `kind`'s row in the table.
std::size_t row_index(VariantId kind) {
  const std::vector<VariantRow>& table = variant_table();
  return static_cast<std::size_t>(&variant_row(kind) - table.data());
}

// The variants are the rows' builders run in the table's order (the order they are compared in: of two that pass,
// the earlier row is the match): those of the expectation, then those of what the dump shows.
TEST(CheckTable, VariantsComeInTheTablesOrder) {
  RopeExpectation e = test::expect_half(32, 16, 500000, 1.2);
  e.rope.config.type = ScalingType::Linear;
  e.rope.params.inv_freq /= 4.0;
  std::vector<AxisPosition> positions;
  for (const double p : {0, 1, 2, 3, 0, 1, 2, 3}) positions.push_back(AxisPosition::single(p));
  DumpComparison c;
  c.channel_ratio = Eigen::VectorXd::Zero(32);
  c.channel_ratio[20] = 2;  // a channel past the spec's rotated block 0…15 changed: the block 5…20 (offset 5)?
  const VariantDump dump{positions, c, 4, 32, 3, 1.5};
  const std::vector<Variant> alone = check_variants(e), shown = table_variants({e, &dump});
  ASSERT_GT(shown.size(), alone.size());
  for (std::size_t k = 0; k < alone.size(); ++k) EXPECT_EQ(shown[k].kind, alone[k].kind);  // the expectation's first
  const auto in_order = [](const std::vector<Variant>& v, std::size_t from, std::size_t to) {
    for (std::size_t k = from + 1; k < to; ++k) {
      if (row_index(v[k].kind) < row_index(v[k - 1].kind)) return false;
    }
    return true;
  };
  EXPECT_TRUE(in_order(alone, 0, alone.size()));
  EXPECT_TRUE(in_order(shown, alone.size(), shown.size()));
  std::set<VariantId> from_dump;
  for (std::size_t k = alone.size(); k < shown.size(); ++k) from_dump.insert(shown[k].kind);
  EXPECT_EQ(from_dump, (std::set<VariantId>{known_variant("cos-sin-cache-short"), known_variant("position-ids-ignored"),
                                            known_variant("heads-seq-mixed"), known_variant("rotary-offset-other"),
                                            known_variant("norm-scaled")}));
}

/// "length,wraps" of the found pairs, in order.
std::string keys(const std::vector<std::pair<std::string, double>>& found) {
  std::string out;
  for (const auto& [k, v] : found) out += (out.empty() ? "" : ",") + k;
  return out;
}

struct ExpectationCase {
  const char* name;
  RopeExpectation (*make)();
};

class CheckTableParameters : public testing::TestWithParam<ExpectationCase> {};

// Every variant check_variants builds reports the parameters its row declares (JSON's "found").
TEST_P(CheckTableParameters, VariantsReportTheirRowsParameters) {
  const RopeExpectation e = GetParam().make();
  const std::vector<Variant> variants = check_variants(e);
  ASSERT_FALSE(variants.empty());
  for (const Variant& v : variants) {
    const VariantRow& row = variant_row(v.kind);
    EXPECT_EQ(keys(v.found), row.parameters) << row.name;
    EXPECT_EQ(row.detection, VariantDetection::Compared) << row.name;
  }
}

/// The expectations whose variants are checked: every row built from the expectation is built for one of them.
std::vector<ExpectationCase> expectation_cases() {
  return {ExpectationCase{"half", [] { return test::expect_half(16); }},
          ExpectationCase{"partial_scaled",
                          [] {
                            RopeExpectation e = test::expect_half(32, 16, 500000, 1.2);
                            e.rope.config.type = ScalingType::Linear;
                            e.rope.params.inv_freq /= 4.0;
                            return e;
                          }},
          // Linear scaling by 4 at base 500000 as the config gives it (head_dim 16): its θ at base 10000 computes.
          ExpectationCase{"linear_config",
                          [] {
                            RopeExpectation e = test::expect_half(16, 16, 500000);
                            e.rope.config.head_dim = 16;
                            e.rope.config.type = ScalingType::Linear;
                            e.rope.config.factor = 4;
                            e.set_theta(rope_parameters(e.rope.config).inv_freq);
                            return e;
                          }},
          ExpectationCase{"interleaved_deinterleaved",
                          [] {
                            RopeExpectation e = test::expect_half(16);
                            e.rope.layout = Layout::Interleaved;
                            e.rope.deinterleaved_output = true;
                            return e;
                          }},
          ExpectationCase{"mrope_decode",
                          [] {
                            RopeExpectation e = test::expect_half(16);
                            e.rope.axes = make_axis_map({{4, 2, 2}, SectionOrder::Chunked}, 8);
                            e.rope_delta = 7;
                            return e;
                          }},
          // Qwen3-VL's interleave and openPangu-VL's of [2, 3, 3] part at pair 3 (THW·HW… against THW·THW…):
          // each builds the other order's variant with its pair.
          ExpectationCase{"mrope_interleaved",
                          [] {
                            RopeExpectation e = test::expect_half(16);
                            e.rope.axes = make_axis_map({{2, 3, 3}, SectionOrder::Interleaved}, 8);
                            return e;
                          }},
          ExpectationCase{"mrope_openpangu",
                          [] {
                            RopeExpectation e = test::expect_half(16);
                            e.rope.axes = make_axis_map({{2, 3, 3}, SectionOrder::PanguGreedy}, 8);
                            return e;
                          }},
          // FoPE (models/fope.hpp): 5 of 8 pairs kept, 3 padded; its own variants, the padding with "padded".
          ExpectationCase{"fope",
                          [] {
                            RopeExpectation e = test::expect_half(16);
                            FopeCoefficients c;
                            c.kept = 5;
                            c.cos.assign(25, 0.0), c.sin.assign(25, 0.0);
                            e.fope = std::make_shared<const FopeCoefficients>(c);
                            return e;
                          }},
          // The same with 3 matrices (one per key-value head) and --kv-head 1: the other heads' matrices.
          ExpectationCase{"fope_kv_head", [] { return fope_kv_head_expectation(3, 1); }},
          ExpectationCase{"interleaved",
                          [] {
                            RopeExpectation e = test::expect_half(16);
                            e.rope.layout = Layout::Interleaved;
                            return e;
                          }},
          // YaRN's factor, its truncated range and LongRoPE's other list (what the model's config adds).
          ExpectationCase{"yarn_longrope",
                          [] {
                            RopeExpectation e = test::expect_half(16);
                            e.yarn_factor = 4;
                            e.yarn_truncated_theta = e.theta() * 0.5;
                            e.longrope_other = RopeExpectation::OtherList{e.theta() * 0.25, true};
                            return e;
                          }},
          // A query of a model that scales it after RoPE ((S21)): the scaling left out.
          ExpectationCase{"query_scaled",
                          [] {
                            RopeExpectation e = test::expect_half(16);
                            e.query_beta = 0.1, e.query_original = 16;
                            return e;
                          }},
          // YaRN as Grok's yarn_log computes it: the linear blend's and theta_scale's frequencies.
          ExpectationCase{"yarn_grok",
                          [] {
                            RopeExpectation e = test::expect_half(16);
                            RopeConfig& k = e.rope.config;
                            k.head_dim = 16, k.type = ScalingType::Yarn, k.factor = 4.0;
                            k.original_max_position_embeddings = 4096, k.yarn_variant = YarnVariant::GrokYarnLog;
                            e.set_theta(rope_parameters(k).inv_freq);
                            return e;
                          }},
          ExpectationCase{"grad",
                          [] {
                            RopeExpectation e = test::expect_half(16);
                            e.mode = CheckMode::Grad;
                            return e;
                          }},
          ExpectationCase{"shift",
                          [] {
                            RopeExpectation e = test::expect_half(16);
                            e.mode = CheckMode::Shift;
                            e.shift = 4;
                            e.shift_magnitude = 1.2;
                            return e;
                          }},
          // HunyuanVL's XD-RoPE: HF's map builds Tencent's variant and the other way, each with its pair.
          ExpectationCase{"xdrope_hf",
                          [] {
                            RopeExpectation e = test::expect_half(16);
                            e.rope.axes = make_axis_map({{2, 2, 2, 2}, SectionOrder::XdropeHf}, 8);
                            return e;
                          }},
          ExpectationCase{"xdrope_tencent", [] {
                            RopeExpectation e = test::expect_half(16);
                            e.rope.axes = make_axis_map({{2, 2, 2, 2}, SectionOrder::XdropeTencent}, 8);
                            return e;
                          }}};
}

INSTANTIATE_TEST_SUITE_P(Expectations, CheckTableParameters, testing::ValuesIn(expectation_cases()),
                         [](const testing::TestParamInfo<ExpectationCase>& info) {
                           return std::string(info.param.name);
                         });

// Every row's builder builds: each row built from the expectation is built for one of the expectations above, each
// row built from the dump for one of these dumps (a row whose predicate never holds would be a known bug never tried).
TEST(CheckTable, EveryRowsBuilderBuildsForSomeCase) {
  std::set<VariantId> built;
  for (const ExpectationCase& e : expectation_cases()) {
    for (const Variant& v : check_variants(e.make())) built.insert(v.kind);
  }
  // A diffusers grid (models/grid_rope.hpp): Cosmos-Predict2's preset, whose time positions the fps modulation scales.
  RopeExpectation cosmos;
  cosmos.rope = make_spec(load_preset("cosmos-predict2-2b"));
  for (const Variant& v : check_variants(cosmos)) built.insert(v.kind);
  // Kandinsky 5's preset, whose rows and columns its pipeline's scale_factor divides.
  RopeExpectation kandinsky;
  kandinsky.rope = make_spec(load_preset("kandinsky-5.0-t2v-lite-sft-5s"));
  for (const Variant& v : check_variants(kandinsky)) built.insert(v.kind);
  // LTX-2's split table (its preset): each head's slice (heads-first-slice), the positions 2g − 1 (positions-unmapped).
  RopeExpectation ltx2;
  ltx2.rope = make_spec(load_preset("ltx-2"));
  for (const Variant& v : check_variants(ltx2)) built.insert(v.kind);
  // Its audio stream (grid_rope.hpp (G7)): one axis, dim // 2 frequencies (audio-video-table).
  ModelConfig audio = load_preset("ltx-2");
  audio.grid = ltx2_audio_rope(*audio.grid);
  audio.rope.head_dim = audio.grid->head_dim;
  RopeExpectation ltx2_audio;
  ltx2_audio.rope = make_spec(audio);
  for (const Variant& v : check_variants(ltx2_audio)) built.insert(v.kind);
  // From the dump: positions that restart, a drift at position 3, four groups, a changed channel past the rotated
  // block, the norm scaled; M-RoPE batch rows, [3, batch, seq] (two rows) and text [batch, seq] (three rows).
  RopeExpectation partial = test::expect_half(32, 16);
  std::vector<AxisPosition> restarting;
  for (const double p : {0, 1, 2, 3, 0, 1, 2, 3}) restarting.push_back(AxisPosition::single(p));
  DumpComparison c;
  c.channel_ratio = Eigen::VectorXd::Zero(32);
  c.channel_ratio[20] = 2;
  const VariantDump shown{restarting, c, 4, 32, 3, 1.5};
  for (const Variant& v : table_variants({partial, &shown})) built.insert(v.kind);
  RopeExpectation mrope = test::expect_half(16);
  mrope.rope.axes = make_axis_map({{4, 2, 2}, SectionOrder::Chunked}, 8);
  mrope.batch_rows = 2, mrope.row_length = 2;
  const std::vector<AxisPosition> rows = test::text_image_positions(4, 0, 0);
  const VariantDump batch{rows, c, 1, 16, -1, std::nullopt};
  for (const Variant& v : table_variants({mrope, &batch})) built.insert(v.kind);
  mrope.batch_rows = 3;
  const std::vector<AxisPosition> text(restarting.begin(), restarting.begin() + 6);
  const VariantDump text_rows{text, c, 1, 16, -1, std::nullopt};
  for (const Variant& v : table_variants({mrope, &text_rows})) built.insert(v.kind);
  // Issue 79's diffusers rows: Wan at d = 64 (the #12538 widths), Qwen-Image's centred grid after 2 text tokens.
  GridRope wan64;
  wan64.model = GridModel::Wan, wan64.head_dim = 64, wan64.widths = {24, 20, 20}, wan64.bases = {1e4, 1e4, 1e4};
  wan64.axes = {"t", "h", "w"};
  RopeExpectation wan = test::expect_half(64);
  wan.rope.layout = Layout::Interleaved, wan.rope.model_type = "WanTransformer3DModel";
  wan.rope.params.inv_freq = grid_theta(wan64), wan.rope.axes = grid_axis_map(wan64);
  for (const Variant& v : check_variants(wan)) built.insert(v.kind);
  RopeExpectation qwen;
  qwen.rope = make_spec(load_preset("qwen-image"));
  std::vector<AxisPosition> joint = test::text_image_positions(0, 0, 0);
  for (const std::array<double, 3>& at :
       std::vector<std::array<double, 3>>{{1, 1, 1}, {2, 2, 2}, {0, -1, -1}, {0, -1, 0}, {0, 0, -1}, {0, 0, 0}}) {
    AxisPosition a;
    a.count = 3, a.value = {at[0], at[1], at[2], 0};
    joint.push_back(a);
  }
  DumpComparison cq;
  cq.channel_ratio = Eigen::VectorXd::Zero(qwen.rope.head_dim);
  const VariantDump centred{joint, cq, 1, qwen.rope.head_dim, -1, std::nullopt};
  for (const Variant& v : table_variants({qwen, &centred})) built.insert(v.kind);
  // Another engine's reading of the config (expectation.cpp: dynamic NTK's base at vLLM's max_model_len).
  RopeExpectation engine = test::expect_half(8);
  engine.engine_other = RopeExpectation::EngineOther{engine.theta() * 0.5, 1.0, Message::same("another reading")};
  for (const Variant& v : check_variants(engine)) built.insert(v.kind);
  // Another layer type's RoPE (expectation.cpp: a model of several layer types checked as one).
  RopeExpectation layered = test::expect_half(8);
  layered.other_layer_types.push_back({"full_attention", 1, layered.theta() / 8, 1.0, true});
  for (const Variant& v : check_variants(layered)) built.insert(v.kind);
  // A given cos/sin table (cos_sin_table.hpp): its own rows, and its rows gathered by index where ids are given.
  RopeExpectation given = test::expect_half(8);
  TensorData half;
  half.shape = {4, 2}, half.values.assign(8, 0.5), half.dtype = DType::F32;
  expect_table(given, std::make_shared<const GivenTable>(given_table(half, half, false, std::nullopt, 8, "t")));
  std::vector<AxisPosition> ids;
  for (const double p : {3, 1, 2}) ids.push_back(AxisPosition::single(p));
  DumpComparison ct;
  ct.channel_ratio = Eigen::VectorXd::Zero(8);
  const VariantDump gathered{ids, ct, 1, 8, -1, std::nullopt};
  for (const Variant& v : table_variants({given, &gathered})) built.insert(v.kind);
  for (const VariantRow& row : variant_table()) {
    if (row.from_expectation || row.from_dump) {
      EXPECT_EQ(built.count(row.kind), 1u) << row.name << " never built";
    }
  }
}

TEST(CheckTable, TheOtherInterleaveIsTriedWhereTheTwoOrdersPart) {
  // [2, 3, 3] over 8 pairs: openPangu-VL's greedy order parts from Qwen3-VL's at pair 3; [2, 1, 1] over 4 pairs is
  // t h w t in both, so neither variant is built (it would pass wherever the expectation does).
  for (const auto& [order, other] : {std::pair{SectionOrder::Interleaved, known_variant("mrope-openpangu-order")},
                                     std::pair{SectionOrder::PanguGreedy, known_variant("mrope-qwen3-order")}}) {
    RopeExpectation e = test::expect_half(16);
    e.rope.axes = make_axis_map({{2, 3, 3}, order}, 8);
    int built = 0;
    for (const Variant& v : check_variants(e)) {
      if (v.kind != other) continue;
      ++built;
      ASSERT_EQ(v.found.size(), 1u);
      EXPECT_EQ(v.found.front().second, 3);
    }
    EXPECT_EQ(built, 1) << to_string(other);
    RopeExpectation same = test::expect_half(8);
    same.rope.axes = make_axis_map({{2, 1, 1}, order}, 4);
    for (const Variant& v : check_variants(same)) EXPECT_NE(v.kind, other);
  }
}

TEST(CheckTable, FopeTriesItsPaddingWithTheCountOfPaddedPairs) {
  RopeExpectation e = test::expect_half(16);
  FopeCoefficients c;
  c.kept = 5;
  c.cos.assign(25, 0.0), c.sin.assign(25, 0.0);
  e.fope = std::make_shared<const FopeCoefficients>(c);
  const std::vector<Variant> variants = check_variants(e);
  ASSERT_FALSE(variants.empty());
  EXPECT_EQ(variants.front().kind, known_variant("fope-sin-padded-one"));
  EXPECT_EQ(variants.front().spec.fope_pad_sin, 1.0);
  ASSERT_EQ(variants.front().found.size(), 1u);
  EXPECT_EQ(variants.front().found.front().second, 3);
  for (const Variant& v : variants) EXPECT_EQ(v.spec.fope, e.fope);  // every one keeps the coefficients
  c.kept = 8;                                                        // nothing padded: no such variant
  e.fope = std::make_shared<const FopeCoefficients>(c);
  for (const Variant& v : check_variants(e)) EXPECT_NE(v.kind, known_variant("fope-sin-padded-one"));
}

// --kv-head 1 of 3 key-value heads with a matrix each: heads 0 and 2 tried (found "kv_head"), in order; none without
// --kv-head (each head on its group's) or with one shared matrix.
TEST(CheckTable, FopeKvHeadTriesTheOtherHeads) {
  RopeExpectation e = fope_kv_head_expectation(3, 1);
  std::vector<double> heads;
  for (const Variant& v : check_variants(e)) {
    if (v.kind != known_variant("fope-kv-head-other")) continue;
    heads.push_back(v.found.front().second);
    EXPECT_EQ(v.spec.fope_matrix, static_cast<long>(v.found.front().second));
  }
  EXPECT_EQ(heads, (std::vector<double>{0, 2}));
  e.fope_matrix = -1;
  for (const Variant& v : check_variants(e)) EXPECT_NE(v.kind, known_variant("fope-kv-head-other"));
  e = fope_kv_head_expectation(1, 0);
  for (const Variant& v : check_variants(e)) EXPECT_NE(v.kind, known_variant("fope-kv-head-other"));
}

TEST(CheckTable, TheOtherXdropeMapIsTriedAtTheFirstPairTheyPart) {
  // [2, 2, 2, 2] over 8 pairs: HF's pair 0 reads p and h, Tencent's p and p: they part at pair 0.
  for (const auto& [order, other] : {std::pair{SectionOrder::XdropeHf, known_variant("xdrope-tencent-map")},
                                     std::pair{SectionOrder::XdropeTencent, known_variant("xdrope-hf-map")}}) {
    RopeExpectation e = test::expect_half(16);
    e.rope.axes = make_axis_map({{2, 2, 2, 2}, order}, 8);
    int built = 0;
    for (const Variant& v : check_variants(e)) {
      if (v.kind != other) continue;
      ++built;
      ASSERT_EQ(v.found.size(), 1u);
      EXPECT_EQ(v.found.front().second, 0);
      EXPECT_NE(v.spec.rope.axes->source.order, order);
    }
    EXPECT_EQ(built, 1) << to_string(other);
  }
}

TEST(CheckModeTable, ForwardIsTheDefaultAndChangesNothing) {
  const RopeExpectation e = test::expect_half(16, 8, 500000, 1.5);
  EXPECT_EQ(e.mode, CheckMode::Forward);
  ASSERT_EQ(check_modes().size(), 4u);  // forward, grad, shift, shift-map
  EXPECT_EQ(check_mode_named("shift-map"), CheckMode::ShiftMap);
  const CheckModeRow& forward = check_mode(CheckMode::Forward);
  EXPECT_STREQ(forward.name, "forward");
  EXPECT_STREQ(to_string(CheckMode::Forward), "forward");
  EXPECT_EQ(check_mode_named("forward"), CheckMode::Forward);
  EXPECT_EQ(check_mode_named("backward"), std::nullopt);
  EXPECT_FALSE(forward.title(e).en.empty());
  const RopeExpectation f = forward.expectation(e);
  EXPECT_EQ(f.theta(), e.theta());
  EXPECT_EQ(f.attention_factor(), e.attention_factor());
  EXPECT_EQ(f.rope.rotary_offset, e.rope.rotary_offset);
  EXPECT_EQ(f.mode, CheckMode::Forward);
}

// In the forward mode a matched variant's sentence is its row's, with the diagnosis's parameter.
TEST(CheckModeTable, ForwardSaysTheRowsSentence) {
  const RopeExpectation e = test::expect_half(16, 0, 500000);
  CheckDiagnosis dg;
  dg.found = {{"base", 10000}};
  const DumpComparison c;
  const std::vector<AxisPosition> positions{AxisPosition::single(0), AxisPosition::single(1)};
  const VariantSaying saying{e, dg, c, positions, 2, DType::F32};
  EXPECT_EQ(variant_sentence(known_variant("base-other"), saying).en,
            "matches base 10000, not 500000: is rope_theta read?");
  EXPECT_EQ(variant_sentence(known_variant("base-10000"), saying).en,
            variant_row(known_variant("base-10000")).says(saying).en);
  EXPECT_TRUE(variant_sentence(known_variant("expected"), saying).en.empty());
}

}  // namespace
}  // namespace rope
