// yarn-blend-other: YaRN's frequencies by another engine's rule.
// YaRN's frequencies as another engine's rule computes them (--yarn-variant), the magnitude as expected
// Corpus rows (tests/cli/corpus_answers.json) that it matches: yarn_variants/grok_linear_blend.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("yarn-blend-other",
  R"md(`matches YaRN's frequencies as the linear blend (θ_j/f)·r_j + θ_j·(1 − r_j) of HF and TeleChat3 computes them, where yarn variant grok-yarn-log is expected …`)md",
  R"md(the same YaRN parameters, θ_j by another `--yarn-variant`'s rule (the linear blend, Grok's geometric blend θ_j / f^r_j, Grok's theta_scale base), the magnitude as expected; the rule in `found.variant` (0 hf, 2 grok-yarn-log, 3 grok-theta-scale))md",
  R"md(an engine's YaRN computed with another engine's blend (vLLM's grok1_scaling_rope.py yarn_log against the linear blend of rotary_embedding/common.py))md")
// clang-format on
#else
namespace rope::variants::yarn_blend_other {

/// The rule of `variant` in words (docs/scaling.md, "YaRN with other constants").
Message yarn_rule(YarnVariant variant) {
  switch (variant) {
    case YarnVariant::Hf:
    case YarnVariant::Telechat3:
      return msg("the linear blend (θ_j/f)·r_j + θ_j·(1 − r_j) of HF and TeleChat3");
    case YarnVariant::GrokYarnLog:
      return msg("Grok's geometric blend θ_j / f^r_j (yarn_log)");
    case YarnVariant::GrokThetaScale:
      return msg("Grok's theta_scale, one base base^(ln(L0·f/2π) / ln(L0/2π))");
  }
  return msg("the linear blend (θ_j/f)·r_j + θ_j·(1 − r_j) of HF and TeleChat3");
}

/// θ by each other rule of the same YaRN parameters (Telechat3's is HF's), where it differs from the expected one.
void blend_other_build(F f, Out out) {
  const RopeExpectation& e = f.expected;
  for (const YarnVariant w : {YarnVariant::Hf, YarnVariant::GrokYarnLog, YarnVariant::GrokThetaScale}) {
    RopeConfig c = e.rope.config;
    c.yarn_variant = w;
    try {
      const RopeParameters p = rope_parameters(c);
      if (p.inv_freq.size() != e.theta().size() || p.inv_freq == e.theta()) continue;
      put(out, with_theta(e, p.inv_freq)).found = {{"variant", static_cast<double>(w)}};
    } catch (const InvalidArgument&) {
      // the parameters do not make that rule's frequencies (grok-theta-scale's base): no such variant
    }
  }
}

VariantRow row() {
  VariantRow r;
  r.name = "yarn-blend-other";
  r.detection = VariantDetection::Compared;
  r.parameters = "variant";
  r.changes = [](E) { return msg("YaRN's frequencies by another engine's rule"); };
  r.says = [](S c) {
    const auto found = static_cast<YarnVariant>(static_cast<int>(found_value(c)));
    return msg(
        "matches YaRN's frequencies as {0} computes them, where yarn variant {1} is expected: the same factor and "
        "ramp, another engine's rule for θ_j (the magnitude as expected)",
        yarn_rule(found), std::string(to_string(c.expected.rope.config.yarn_variant)));
  };
  r.from_expectation = {[](F f) {
                          const RopeConfig& k = f.expected.rope.config;
                          return not_fope(f) && !f.expected.rope.axes && k.type == ScalingType::Yarn && k.factor &&
                                 *k.factor > 1;
                        },
                        blend_other_build};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::yarn_blend_other
#endif
