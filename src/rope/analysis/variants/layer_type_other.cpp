// layer-type-other: another layer type's RoPE on this layer, or this layer's base with another type's scaling.
// A model of several layer types (Gemma 3's sliding and full layers) checked as one of them: each other type's
// frequencies and attention factor, then this layer's unscaled frequencies under that type's scaling (expectation.cpp,
// RopeExpectation::other_layer_types), each compared as a variant; one parameter changed (which type's RoPE or
// scaling), so it is tried before a measured constant ratio of the frequencies.
// Corpus rows (tests/cli/corpus_answers.json) that it matches: diagnosis_2026/ferrox_gemma3_sliding_scaled.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("layer-type-other",
  R"md(`matches this layer's base 10000 with the scaling of layer type full_attention: that type's scaling applied to this layer …` (or `matches the RoPE of layer type …`))md",
  R"md(another layer type's frequencies and attention factor, or this layer's unscaled frequencies under another type's scaling (`found.layer_type`, the type's index among the model's layer types; `found.scaling_only` 1 for the second))md",
  R"md(a model of several layer types built with one type's rotary embedding for every layer (antonellof/ferrox issue #39: Gemma 3's sliding layers turned with the full layers' linear factor 8))md")
// clang-format on
#else
namespace rope::variants::layer_type_other {

VariantRow row() {
  VariantRow r;
  r.name = "layer-type-other";
  r.detection = VariantDetection::Compared;
  r.parameters = "layer_type,scaling_only";
  r.changes = [](E) { return msg("another layer type's RoPE, or its scaling on this layer's base"); };
  r.says = [](S c) {
    const int k = static_cast<int>(found_or(c, "layer_type", 0));
    std::string type;
    for (const RopeExpectation::OtherLayerType& o : c.expected.other_layer_types) {
      if (o.index == k) type = o.type;
    }
    if (found_or(c, "scaling_only", 0) != 0) {
      return msg(
          "matches this layer's base {0} with the scaling of layer type {1}: that type's scaling applied to this "
          "layer (a rotary embedding shared across the layer types)",
          base_of(c.expected), type);
    }
    return msg(
        "matches the RoPE of layer type {0}, not this layer's: a rotary embedding shared across the layer "
        "types",
        type);
  };
  r.from_expectation = {[](F f) { return not_fope(f) && !f.expected.other_layer_types.empty(); },
                        [](F f, Out out) {
                          const auto& others = f.expected.other_layer_types;
                          for (std::size_t k = 0; k < others.size(); ++k) {
                            RopeExpectation o = with_theta(f.expected, others[k].theta);
                            o.rope.params.attention_factor = others[k].attention_factor;
                            Variant& v = put(out, o);
                            v.found = {{"layer_type", static_cast<double>(others[k].index)},
                                       {"scaling_only", others[k].scaling_only ? 1.0 : 0.0}};
                            if (others[k].checked >= 0)  // this layer's type where that type's RoPE (or scaling) is
                              v.difference = {{"layer_type", static_cast<double>(others[k].checked),
                                               static_cast<double>(others[k].index)}};
                          }
                        }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::layer_type_other
#endif
