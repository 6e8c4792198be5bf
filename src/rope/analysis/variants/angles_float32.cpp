// angles-float32: the angles m·θ computed in float32 where they are held to float64.
// Corpus rows (tests/cli/corpus_answers.json) that it matches: gpu_recorded/cuda_accurate_float64.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("angles-float32",
  R"md(`matches RoPE with its angles m·θ computed in float32: the dump is within the float32 angle model's tolerance (--angles float32), an error that grows with m·θ (compute m·θ in float64 where float64 is meant)`)md",
  R"md(with `--angles float64` (or a float64 dump's default): after the fast-math search finds no biased unit, the whole dump compared again under the float32 angle model's tolerance ((C2) with c_i = 1.5 + |ln θ_i|/2); named where every element passes and the largest departure reaches a hundredth of that tolerance (a float32 product's reaches about 1/(16·1.5) ≈ 0.04 of it where m·θ is large, 0.049 to 0.094 on tests/data/gpu/'s dumps; a float64 dump off by its rounding or one wrong element, about 10⁻⁸). No parameter: what is measured is that the dump's error is a float32 angle's and no more)md",
  R"md(a kernel or framework whose angles are float32 products m·θ (PyTorch's and Hugging Face's `freqs = inv_freq @ positions` in float32, CUDA's `sincosf` of a float32 angle), held to a float64 reference: tests/data/gpu/'s `cuda_accurate`, recorded on an NVIDIA H200, bit-equal to transformers' LlamaRotaryEmbedding and apply_rotary_pos_emb in float32 on the same GPU)md")
// clang-format on
#else
namespace rope::variants::angles_float32 {

/// The least share of the float32 model's tolerance the dump's largest departure reaches for a float32 angle. A float32
/// product m·θ errs by up to half an ulp of itself, (C1)'s float32 term allows κ·c_i·ε_f32 of it (κ = 8, c_i ≥ 1.5):
/// about 1/(16·1.5) ≈ 0.04 where m·θ is large (0.049 to 0.094 on tests/data/gpu/'s float32 dumps); a float64 dump off
/// by a rounding or one wrong element reaches 10⁻⁸ of it, no float32 angle.
constexpr double kFloat32Share = 0.01;

/// Where the angles are held to float64 and the dump fails, the whole dump compared again under the float32 angle
/// model (the float32 angle's rounding, ε_f32·c_i·|m|·θ_i in (C1), c_i = 1.5 + |ln θ_i|/2 for θ_i's own float32
/// rounding); named where it passes and its largest departure is a float32 angle's size (kFloat32Share). Asked after
/// the fast-math search, which names a biased fast unit first (a fast unit's dump passes the float32 model as well).
bool search_float32(M search) {
  CheckReport& report = search.report;
  const RopeExpectation& expected = report.expected;
  if (report.diagnosis.matches || expected.fope || expected.table || expected.mode != CheckMode::Forward) return false;
  if (expected.angles.value_or(default_angle_model(search.source.dtype())) != AngleModel::Float64) return false;
  Variant v = variant_of(known_variant("angles-float32"), expected);
  v.spec.angles = AngleModel::Float32;
  report.variants.emplace_back(v.kind, search.source.compare(search.start, search.positions, {v}).front());
  const DumpComparison& f32 = report.variants.back().second;
  if (!f32.passed() || !(f32.max_ratio >= kFloat32Share)) return false;
  report.diagnosis.matches = known_variant("angles-float32");
  return true;
}

VariantRow row() {
  VariantRow r;
  r.name = "angles-float32";
  r.detection = VariantDetection::Measured;
  r.parameters = "";
  r.changes = [](E) { return msg("angles computed in {0}", "float32"); };
  r.says = [](S) {
    return msg(
        "matches RoPE with its angles m·θ computed in float32: the dump is within the float32 angle model's "
        "tolerance (--angles float32), an error that grows with m·θ (compute m·θ in float64 where float64 is meant)");
  };
  r.search = search_float32;
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::angles_float32
#endif
