// scaled-base-10000: the model's scaling recomputed at base 10000 (JSON `scaled-base-10000`, found `base`).
// The model's scaling kept, its base not read: the scaled frequencies at base 10000 (llama3 at base 10000 where the
// config says 500000): found "base".
// Corpus rows (tests/cli/corpus_answers.json) that it matches: buggy_kernels/llama3_base_not_read,
// deepseek_v4/bug_compress_at_main_theta_f32.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("scaled-base-10000",
  R"md(`matches the llama3 scaling at base 10000, not 500000: rope_theta is not read while the scaling is kept`)md",
  R"md(the model's scaling recomputed at base 10000 (JSON `scaled-base-10000`, found `base`))md",
  R"md(a config reader that keeps `rope_scaling` and drops `rope_theta`; `rope identify` fits the same family at base 10000 (tests/cli/check_buggy_kernels.py runs both))md")
// clang-format on
#else
namespace rope::variants::scaled_base_10000 {

/// The model's scaling recomputed at base 10000 (models/scaling/scaling.hpp rope_parameters), where Base10000 drops the
/// scaling too.
bool scaled_base_applies(F f) {
  const RopeExpectation& e = f.expected;
  return not_fope(f) && e.scaled() && e.base() != kDefaultBase && e.rope.config.type != ScalingType::LongRope;
}

void scaled_base_build(F f, Out out) {
  RopeConfig c = f.expected.rope.config;
  c.base = kDefaultBase;
  try {
    const RopeParameters p = rope_parameters(c);
    if (p.inv_freq.size() == f.expected.theta().size()) {
      put(out, with_theta(f.expected, p.inv_freq)).found = {{"base", kDefaultBase}};
    }
  } catch (const InvalidArgument&) {
    // the config's scaling does not compute at base 10000: no such variant
  }
}

VariantRow row() {
  VariantRow r;
  r.name = "scaled-base-10000";
  r.detection = VariantDetection::Compared;
  r.parameters = "base";
  r.changes = [](E e) { return msg("the {0} scaling at base 10000", std::string(to_string(e.rope.config.type))); };
  r.says = [](S c) {
    return msg("matches the {0} scaling at base 10000, not {1}: rope_theta is not read while the scaling is kept",
               std::string(to_string(c.expected.rope.config.type)), base_of(c.expected));
  };
  r.from_expectation = {scaled_base_applies, scaled_base_build};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::scaled_base_10000
#endif
