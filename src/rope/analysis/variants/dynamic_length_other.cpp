// dynamic-length-other: dynamic NTK's base computed at another length.
// the dump's frequencies a geometric ladder whose base is exactly dynamic NTK's base·(f·L/M − (f − 1))^(r/(r−2)) at
// another length L than max(seq_len, M)
// Corpus rows (tests/cli/corpus_answers.json) that it matches: dynamic_engines/vllm_served_short_read_as_hf.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("dynamic-length-other",
  R"md(`the dump's base 3108.224 is dynamic NTK's base·(f·L/M − (f − 1))^(r/(r−2)) at length L = 4096, not at max(seq_len, M) = 2048 …`)md",
  R"md(dynamic NTK (S4) expected, the dump measured: its θ_j a ladder of one base b, and b exactly the rule's base at a whole length L (L = M·((b/base)^((r−2)/r) + f − 1)/f, rounded), confirmed over the whole dump (`found.length`, `found.base`))md",
  R"md(an engine that computes dynamic NTK's base once, at start-up, for the longest length it serves (f·M), not for the sequence at hand)md")
// clang-format on
#else
namespace rope::variants::dynamic_length_other {

/// Dynamic NTK expected and the dump one ladder of base b: b is the rule's base at a whole length L,
/// base·(f·L/M − (f − 1))^(r/(r−2)) = b, so L = M·((b/base)^((r−2)/r) + f − 1)/f rounded, and the rule's base at L
/// (the one parameter the engine set) is tried; the difference "length" (max(seq_len, M) → L) and "base".
std::optional<MeasuredReading> length_of_base(const MeasuredFacts& f) {
  const RopeExpectation& expected = f.expected;
  const RopeConfig& k = expected.rope.config;
  const int r = expected.rotary_dim();
  if (!f.ladder_base || k.type != ScalingType::Dynamic || !k.factor || !k.max_position_embeddings || r <= 2)
    return std::nullopt;
  const double base = *f.ladder_base, factor = *k.factor, big_m = static_cast<double>(*k.max_position_embeddings);
  const double length = std::round(big_m * (std::pow(base / k.base, (r - 2.0) / r) + factor - 1) / factor);
  const double at = k.base * std::pow(factor * length / big_m - (factor - 1), r / (r - 2.0));
  if (!(length > 0 && std::isfinite(at))) return std::nullopt;
  MeasuredReading out{variant_of(known_variant("dynamic-length-other"), expected), f.differs};
  out.difference.push_back(
      {"length",
       static_cast<double>(k.seq_len ? std::max(*k.seq_len, *k.max_position_embeddings) : *k.max_position_embeddings),
       length});
  out.difference.push_back({"base", expected.base(), at});
  out.variant.spec.set_theta(frequencies(r, at));
  out.variant.found = {{"length", length}, {"base", at}};
  return out;
}

VariantRow row() {
  VariantRow r;
  r.name = "dynamic-length-other";
  r.detection = VariantDetection::Measured;
  r.parameters = "length,base";
  r.changes = [](E) { return msg("dynamic NTK's base computed at another length"); };
  r.says = [](S c) {
    const RopeConfig& k = c.expected.rope.config;
    const long m = k.max_position_embeddings.value_or(0);
    const long given = k.seq_len ? std::max(*k.seq_len, m) : m;
    return msg(
        "the dump's base {0} is dynamic NTK's base·(f·L/M − (f − 1))^(r/(r−2)) at length L = {1}, not at "
        "max(seq_len, M) = {2}: the base computed once for another length (the longest the engine serves?)",
        fmt::format("{:.7g}", found_or(c, "base", 0)), fmt::format("{:g}", found_or(c, "length", 0)), given);
  };
  r.measured = length_of_base;
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::dynamic_length_other
#endif
