// norm-scaled: the output's norm scaled.
// every rotated pair's norm times s (an attention factor applied where none belongs, or a wrong one)
// Corpus rows (tests/cli/corpus_answers.json) that it matches: buggy_kernels/norm_bf16, buggy_kernels/norm_f32,
// deepseek_v4/bug_attention_factor_not_forced_f32, yarn_variants/grok_yarn_log_mscale_applied,
// yarn_variants/telechat3_with_hf_mscale.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("norm-scaled",
  R"md(`the output's norm is scaled by 1.05: each rotated pair's norm is that many times a·‖x‖`)md",
  R"md(every rotated pair's norm s times a·‖x‖ (`found.factor` = s, the energy-weighted ratio √(Σ‖y‖²/Σ(a·‖x‖)²)), beyond the pair-norm bound (N1) 2·(ε_T + ε_A) of check.hpp (bf16 1.56 %, float16 0.2 %, float32 4.8e-7): a rotation keeps each pair's norm within its rounding, so the pairs are checked by their norm as well as element by element (bf16's element tolerance lets a norm off by up to 12 % through))md",
  R"md(an attention factor applied where none belongs (YaRN's mscale on a model without it), or a wrong one: multiply cos and sin by the model's attention factor only)md")
// clang-format on
#else
namespace rope::variants::norm_scaled {

Message norm_says(S c) {
  const double bound = check_norm_bound(c.expected, c.dtype);
  // The magnitude the dump carries, s·a, against the known formulas of an a already applied: a² (the factor applied
  // twice) and YaRN's 0.1·ln f·a + 1 (the formula fed its own result).
  const double a = c.expected.attention_factor(), got = found_value(c) * a;
  const RopeConfig& k = c.expected.rope.config;
  if (a != 1.0 && std::abs(got / (a * a) - 1) <= bound) {
    return msg("the output's magnitude is {0} = a² of the attention factor a {1}: the attention factor applied twice",
               fmt::format("{:.6g}", got), fmt::format("{:.6g}", a));
  }
  if (a != 1.0 && k.type == ScalingType::Yarn && k.factor && *k.factor > 1) {
    const double fed = 0.1 * std::log(*k.factor) * a + 1;
    if (std::abs(got / fed - 1) <= bound) {
      return msg(
          "the output's magnitude is {0} = 0.1·ln f·a + 1 with f {1} and a {2}, the attention factor YaRN's "
          "0.1·ln f + 1 already gives: the formula applied again to its own result",
          fmt::format("{:.6g}", got), fmt::format("{:g}", *k.factor), fmt::format("{:.6g}", a));
    }
  }
  return msg(
      "the output's norm is scaled by {0}: each rotated pair's norm is that many times a·‖x‖ (attention factor a {1}), "
      "where a rotation keeps it within {2} (an attention factor applied where none belongs, or a wrong one)",
      fmt::format("{:.6g}", found_value(c)), fmt::format("{:.6g}", c.expected.attention_factor()),
      fmt::format("{:.3g} %", 100 * bound));
}

VariantRow row() {
  VariantRow r;
  r.name = "norm-scaled";
  r.detection = VariantDetection::Screened;
  r.parameters = "factor";
  r.changes = [](E) { return msg("the output's norm scaled"); };
  r.says = norm_says;
  // The gradient's norm against a·‖grad_y‖ (G1), the attention factor applied twice; a shift's keys against k.
  r.says_in_mode = [](S c) {
    const RopeExpectation& e = c.expected;
    if (e.mode == CheckMode::Grad) {
      const std::string a = fmt::format("{:.6g}", e.attention_factor());
      const double s = found_or(c, "factor", 1.0);
      const double norm_bound = check_norm_bound(e, c.dtype);
      if (e.attention_factor() != 1.0 && std::abs(s / e.attention_factor() - 1) <= norm_bound) {
        return msg(
            "the attention factor {0} applied twice in the backward: the gradient's norm is {1} times "
            "‖grad_y‖ where grad_x = a·R(m)ᵀ·grad_y makes it a",
            a, fmt::format("{:.6g}", s * e.attention_factor()));
      }
      return msg(
          "the gradient's norm is scaled by {0}: each pair's norm is that many times a·‖grad_y‖ "
          "(attention factor a {1}), where R(m)ᵀ keeps it within {2}",
          fmt::format("{:.6g}", s), a, fmt::format("{:.3g} %", 100 * norm_bound));
    }
    if (e.mode == CheckMode::Shift || e.mode == CheckMode::ShiftMap) {
      return msg(
          "the shifted keys' norm is scaled by {0}, where a shift only turns them: k′ = R(δ)·k keeps "
          "each pair's norm within {1}",
          fmt::format("{:.6g}", found_or(c, "factor", 1.0)),
          fmt::format("{:.3g} %", 100 * check_norm_bound(e, c.dtype)));
    }
    return Message{};
  };
  // Within (C1) element by element (bf16 lets a norm off by up to 12 % through), but not a rotation: the pair norms
  // are the comparison, every pair's ratio computed.
  r.by_norms = [](NormsSearch& n) {
    ComparePass exact;
    exact.exact_norms = true;
    CheckReport& report = n.report;
    report.comparison = n.source.compare(n.start, n.positions, {n.norms}, exact).front();
    report.comparison_is_norms = true;
    report.norm_ratio = report.comparison.max_ratio;
    report.diagnosis.matches = known_variant("norm-scaled");
    report.diagnosis.found = {{"factor", n.scale}};
    return true;
  };
  // The magnitude measured: s times the expected attention factor a.
  r.difference = [](E e, const std::vector<std::pair<std::string, double>>& found) {
    const double a = e.attention_factor();
    return std::vector<CheckDiagnosis::Difference>{{"attention_factor", a, a * found.front().second}};
  };
  r.from_dump = {[](F f) { return dump_shown(f) && f.dump->norm_scale.has_value(); },
                 [](F f, Out out) {
                   Variant& v = put(out, f.expected);
                   v.spec.rope.params.attention_factor = f.expected.attention_factor() * *f.dump->norm_scale;
                   v.found = {{"factor", *f.dump->norm_scale}};
                 }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::norm_scaled
#endif
