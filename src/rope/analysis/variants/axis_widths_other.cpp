// axis-widths-other: a latent grid's cos/sin tables, built per axis with one set of widths, split among the axes with
// another: a pair reads another axis's position, or its cos and its sin two axes' (`found.t`, `found.h`, `found.w`:
// the channels used).
// A latent grid's channels split among the axes with other widths than the tables were built with (diffusers
// #12538: Wan's forward split d/3 per axis, __init__ 2⌊d/6⌋; found the widths used, "t", "h", "w").
// Corpus rows (tests/cli/corpus_answers.json) that it matches: diffusers/mistake_wan_split_12538_d64_f32.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("axis-widths-other",
  R"md(`matches the tables split among t, h and w as [22, 21, 21] channels where they were built with [24, 20, 20]: pairs 11, 21 read another axis, or take their cos and their sin at two (diffusers #12538 …)`)md",
  R"md(a latent grid's cos/sin tables, built per axis with one set of widths, split among the axes with another: a pair reads another axis's position, or its cos and its sin two axes' (`found.t`, `found.h`, `found.w`: the channels used))md",
  R"md(diffusers' `WanRotaryPosEmbed` before PR #12594: `__init__` gives h and w 2⌊d/6⌋ channels, `forward` split the tables ⌊d/3⌋ per axis; the two agree at d = 128 and part at d = 64 (diffusers #12538). In bf16 the slow pairs it touches stay within the tolerance and the dump passes)md")
// clang-format on
#else
namespace rope::variants::axis_widths_other {

/// diffusers #12538 (transformer_wan.py before PR #12594, ff263947ad): WanRotaryPosEmbed.__init__ builds the tables
/// with the widths t = d − 2h, h = w = 2⌊d/6⌋ channels, its forward split them as d − 2⌊d/3⌋, ⌊d/3⌋, ⌊d/3⌋.
std::array<int, 3> wan_12538_widths(int d) { return {d - 2 * (d / 3), d / 3, d / 3}; }

/// The channels per axis the map was built with (each pair two channels).
std::array<int, 3> built_widths(const AxisMap& map) {
  return {2 * map.pairs_of(0), 2 * map.pairs_of(1), 2 * map.pairs_of(2)};
}

/// The axis map of tables whose columns are read with `widths`: pair j's cos from column 2j (the axis of its block
/// under `widths`), its sin from column 2j + 1 (apply_rotary_emb: cos[..., 0::2], sin[..., 1::2]).
AxisMap map_read_with(const AxisMap& built, const std::array<int, 3>& widths) {
  AxisMap m = built;
  const auto axis_of = [&](int c) { return c < widths[0] ? 0 : c < widths[0] + widths[1] ? 1 : 2; };
  m.second_axis.assign(m.pair_axis.size(), 0);
  for (std::size_t j = 0; j < m.pair_axis.size(); ++j) {
    m.pair_axis[j] = axis_of(static_cast<int>(2 * j));
    m.second_axis[j] = axis_of(static_cast<int>(2 * j + 1));
  }
  m.sin_from_second = m.second_axis != m.pair_axis;
  if (!m.sin_from_second) m.second_axis.clear();
  return m;
}

/// The pairs whose cos or sin reads another axis under `read` than under `built`.
std::vector<long> pairs_read_elsewhere(const AxisMap& built, const AxisMap& read) {
  std::vector<long> out;
  for (std::size_t j = 0; j < built.pair_axis.size(); ++j) {
    if (read.pair_axis[j] != built.pair_axis[j] || read.second_of(j) != built.pair_axis[j])
      out.push_back(static_cast<long>(j));
  }
  return out;
}

bool wan_split_applies(F f) {
  if (!grid_of(f.expected, "WanTransformer3DModel") || !not_fope(f)) return false;
  const std::array<int, 3> built = built_widths(*f.expected.rope.axes);
  return built[0] + built[1] + built[2] == f.expected.rotary_dim() &&
         built != wan_12538_widths(f.expected.rotary_dim());
}

void wan_split_build(F f, Out out) {
  const std::array<int, 3> widths = wan_12538_widths(f.expected.rotary_dim());
  RopeExpectation s = f.expected;
  s.rope.axes = map_read_with(*f.expected.rope.axes, widths);
  put(out, std::move(s)).found = {{"t", static_cast<double>(widths[0])},
                                  {"h", static_cast<double>(widths[1])},
                                  {"w", static_cast<double>(widths[2])}};
}

VariantRow row() {
  VariantRow r;
  r.name = "axis-widths-other";
  r.detection = VariantDetection::Compared;
  r.parameters = "t,h,w";
  r.changes = [](E e) {
    const std::array<int, 3> w = wan_12538_widths(e.rotary_dim());
    return msg("the channels split among the axes as [{0}, {1}, {2}] (diffusers #12538)", w[0], w[1], w[2]);
  };
  r.says = [](S c) {
    const AxisMap& built = *c.expected.rope.axes;
    const std::array<int, 3> used{static_cast<int>(found_value(c, 0)), static_cast<int>(found_value(c, 1)),
                                  static_cast<int>(found_value(c, 2))};
    const std::array<int, 3> b = built_widths(built);
    std::vector<long> pairs = pairs_read_elsewhere(built, map_read_with(built, used));
    return msg(
        "matches the tables split among t, h and w as [{0}, {1}, {2}] channels where they were built with "
        "[{3}, {4}, {5}]: pairs {6} read another axis, or take their cos and their sin at two (diffusers #12538: "
        "Wan's forward split ⌊d/3⌋ per axis, its __init__ 2⌊d/6⌋; fixed by PR #12594)",
        used[0], used[1], used[2], b[0], b[1], b[2], check_number_list(pairs));
  };
  r.from_expectation = {wan_split_applies, wan_split_build};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::axis_widths_other
#endif
