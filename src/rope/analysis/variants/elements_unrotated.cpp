// elements-unrotated: some rotated elements keep their input.
// every failing element is its input x_c (never written), located by channels, sequence indices and groups
// Corpus rows (tests/cli/corpus_answers.json) that it matches: diagnosis_2026/half_unstored.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("elements-unrotated",
  R"md(`131072 elements keep their input, a block: 64 channels from channel 64 at 256 sequence indices in 8 groups, never written …`)md",
  R"md(each failing element classified over the whole dump (its input, x·cos, 0, within 8·ε_T + 4·ε_f32·(1 + |mθ|) of a·‖x‖): every one its input; `found.channel` (the first), `found.channels`, `found.elements`, `found.indices`, `found.groups`; a block when elements = channels × indices × groups, else scattered)md",
  R"md(an in-place kernel that stores only part of each pair, or two stores racing on the same buffer)md")
// clang-format on
#else
namespace rope::variants::elements_unrotated {

VariantRow row() {
  VariantRow r;
  r.name = "elements-unrotated";
  r.detection = VariantDetection::Measured;
  r.parameters = "channel,channels,elements,indices,groups";
  r.changes = [](E) { return msg("some rotated elements keep their input"); };
  r.says = [](S c) {
    const double channels = found_or(c, "channels", 0), indices = found_or(c, "indices", 0);
    const double groups = found_or(c, "groups", 0), elements = found_or(c, "elements", 0);
    const auto n = [](double v) { return fmt::format("{:.0f}", v); };
    if (elements == channels * indices * groups) {
      return msg(
          "{0} elements keep their input, a block: {1} channels from channel {2} at {3} sequence indices in {4} "
          "groups, never written (a kernel that stores only part of each pair?)",
          n(elements), n(channels), n(found_or(c, "channel", 0)), n(indices), n(groups));
    }
    return msg(
        "{0} elements keep their input, scattered: in {1} channels from channel {2}, {3} sequence indices and "
        "{4} groups, never written (two stores racing on the same buffer?)",
        n(elements), n(channels), n(found_or(c, "channel", 0)), n(indices), n(groups));
  };
  // Every failing element keeps its input (the failing elements classified, ElementClasses): where they lie, a block
  // of channels, indices and groups, or scattered.
  r.classified = [](M m) {
    const ElementClasses* k = m.elements;
    if (!elements_fail(m) || k->unrotated != k->failing) return false;
    const double channels = static_cast<double>(k->count(k->channels));
    const double indices = static_cast<double>(k->block ? static_cast<long>(k->indices.size()) : k->count(k->indices));
    const double groups = static_cast<double>(k->count(k->groups));
    const double elements = k->block ? channels * indices * groups : static_cast<double>(k->unrotated);
    return explain_elements(m, "elements-unrotated",
                            {{"channel", k->first_channel},
                             {"channels", channels},
                             {"elements", elements},
                             {"indices", indices},
                             {"groups", groups}},
                            {{"unrotated_elements", 0, elements}});
  };
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::elements_unrotated
#endif
