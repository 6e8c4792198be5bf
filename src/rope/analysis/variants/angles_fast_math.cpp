// angles-fast-math: sin and cos of float32 angles by a fast unit without range reduction.
// Sin and cos of the float32 angle by a fast unit without range reduction of its own, as CUDA's
// __sinf/__cosf (and sinf/cosf under --use_fast_math; imp PR #1325): the angle taken to revolutions by fl32(1/2π),
// which is fast_math_shortfall() of itself short, so every angle falls short by that share of itself; the product
// rounded to nearest (a sinpi of a float32 quotient) or, as __sinf's SASS does it (FMUL.RZ, then MUFU.SIN), toward
// zero, which adds half an ulp of the product on average. Measured where the angles are held to float64 (found "bias":
// the median over pairs of the phase error's slope against m·θ_i, less the pair's own float32 rounding of θ_i;
// "toward_zero" 1 for a truncated product, absent for one rounded to nearest). Corpus rows
// (tests/cli/corpus_answers.json) that it matches: buggy_kernels/angles_fast_math,
// diagnosis_2026/fast_math_toward_zero, gpu_recorded/cuda_intrinsic_float64, gpu_recorded/cuda_sinpi_float64.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("angles-fast-math",
  R"md(`matches sin and cos of float32 angles taken in turns through a float32 constant, as a sinpi of the angle times fl32(1/π) (CUDA's sincospif of a float32 quotient): every angle falls short by 4.03e-08 of itself (fl32(1/π)'s shortfall 4.03e-08, the product rounded to nearest), an error that grows with m·θ (reduce the angle in double before sin and cos, which covers both)`; with the product truncated, `matches sin and cos of float32 angles by CUDA's fast unit, as __sinf/__cosf compute them (and sinf/cosf under nvcc's use_fast_math): the angle times fl32(1/2π) rounded toward zero (FMUL.RZ), then MUFU.SIN: every angle falls short by 8.18e-08 of itself (fl32(1/2π)'s shortfall 4.03e-08 and the product rounded toward zero) …`)md",
  R"md(with `--angles float64` alone: the float32 angle taken to revolutions by fl32(1/2π), 4.03·10⁻⁸ of itself short, then sin(2πx). Told from a plain float32 product (which errs as much, by rounding either way) by its pattern: per pair the slope of the phase error against m·θ_i (least squares over the 512 vectors of the largest positions, 2 heads) less θ_i's own float32 rounding, pairs measured within 5·10⁻⁹ kept (at least 8). Two roundings of the product t = angle·fl32(1/2π) are modelled: to nearest (the bias −4.03·10⁻⁸) and toward zero (SASS's `FMUL.RZ`: per pair half an ulp of t more on average, π·ulp(t) of the angle, 3·10⁻⁸ to 6·10⁻⁸ of it by t's binade; −8.18·10⁻⁸ in all on tests/reference/diagnosis_2026.py's `fast_math_toward_zero`, whose NumPy truth is −8.26·10⁻⁸); the rounding whose median residual over the pairs lies nearer 0 is the one measured (`found.toward_zero` 1 for the truncated product), named where that residual is within half of 4.03·10⁻⁸ (a float32 product's residuals are 4.03·10⁻⁸ and more); `found.bias` is the median over the pairs whose residual lies within a quarter of 4.03·10⁻⁸ of it (a float32 θ an ulp off fl32(θ), as PyTorch's float32 power leaves up to a third of them, moves its pair by 6·10⁻⁸ or more); then confirmed under a float32 angle's tolerance widened by the shortfall, the angle's rounding in revolutions (ε_f32·m·θ) and the unit's own error (2⁻²⁰ in cos and in sin, above the CUDA C++ Programming Guide's 2⁻²¹·⁴¹ on [−π, π]). Under the default float32 angle model such a dump passes: its error is the size of the float32 product's own, within (C2). A float32 product held to float64 measures a bias near 0 (1.4·10⁻¹¹ by the same statistic in NumPy over all 272 positions of tests/reference/buggy_kernels.py's `angles_float32_product`, the fast path's −4.027·10⁻⁸) and is not named here (`angles-float32` names it). On an NVIDIA H200 (tests/data/gpu/, recorded by tests/device/record.py with CUDA 13.0): `__sinf`/`__cosf`, and `sinf`/`cosf` under `--use_fast_math` (the same bits), compile to `FMUL.RZ` by fl32(1/2π), then `MUFU.SIN`/`MUFU.COS`, and are named toward zero, bias −8.18·10⁻⁸ (NumPy's statistic on the same dump −8.21·10⁻⁸); `sincospif` of the angle times fl32(1/π) is named to nearest, −4.03·10⁻⁸)md",
  R"md(a kernel calling `__sinf`/`__cosf`, or built with `--use_fast_math`, whose `sinf`/`cosf` become them (the SASS nvcc 13.0 writes for sm_90: `FMUL.RZ` by fl32(1/2π), then `MUFU.SIN`; older GPUs' listings show a range reduction RRO before SIN instead, NVIDIA developer forums, "arithmetical functions various"; NVIDIA developer forums, "Improving the accuracy of the __sincosf function": an error "linear in the argument", removed by a correction of 4.07·10⁻⁸ of it), or a sinpi of a float32 quotient; imp PR #1325: 10⁻² at position 131071 where its tests used positions up to 40. Reduce the angle first (in double, or modulo 2π before the intrinsic), or keep `sinf`/`cosf` without `--use_fast_math`)md")
// clang-format on
#else
namespace rope::variants::angles_fast_math {

/// The fewest pairs the fast unit's bias is measured on, and the most vectors read for it (the largest positions).
constexpr std::size_t kFastMathPairs = 8;
constexpr long kFastMathVectors = 512;

/// Sin and cos of float32 angles by a fast unit without range reduction (CUDA's __sinf/__cosf under
/// --use_fast_math), where the angles are held to float64. Such a unit takes the angle to revolutions by fl32(1/2π),
/// δ = fast_math_shortfall() = −4.03·10⁻⁸ of itself short, so its phase error is biased: every angle falls short by
/// the same share δ of itself. A float32 product m·θ errs too, and as much (within (C2)'s float32 bound, which is why
/// the float32 model passes both), but by rounding either way: θ_i rounded to float32 (η_i of itself, either sign) and
/// the product's own rounding. The pattern tells them apart (docs/check.md, "angles-fast-math"):
///   - per pair i, the slope β_i of the phase error e (the dump's turn of the pair less m·θ_i, wrapped) against φ =
///     m·θ_i over the vectors of the largest |m| (least squares through 0: Σ e·φ / Σ φ²), less η_i, the rounding of
///     θ_i to float32 (a kernel whose float32 θ_i is fl32(θ_i) leaves b_i = β_i − η_i exactly its unit's bias);
///   - pairs whose slope is not measured within |δ|/8 are left out (noise per element: an angle's rounding in float32,
///     u_f32·φ, and two units of the dump's type; the slope's spread √(Σ noise²·φ²) / Σ φ²), and at least
///     kFastMathPairs must remain;
///   - a kernel's float32 θ_i off fl32(θ_i) by an ulp (PyTorch's float32 power does that on up to half the pairs, in
///     both directions) moves its pair by 6·10⁻⁸ or more: the rounding is chosen on the median over all pairs, and
///     the bias is the median of b_i over the pairs whose residual lies within |δ|/4 of that median (at least
///     kFastMathPairs), the others left out;
///   - two roundings of the product t = φ·fl32(1/2π) are modelled: to nearest (PTX's sin.approx.f32 as the docs
///     give it; its mean share 0, so b_i ≈ δ) and toward zero (the SASS of __sinf: FMUL.RZ, then MUFU.SIN; a product
///     truncated loses half an ulp of t on average, so b_i ≈ δ − ζ_i with ζ_i the slope of π·ulp_f32(t) against φ,
///     3·10⁻⁸ to 6·10⁻⁸ of the angle by t's binade). The rounding whose median residual (b_i − δ, or b_i − δ + ζ_i)
///     lies nearer 0 is the one measured; named where that residual is within |δ|/2 (a float32 product's residuals
///     are |δ| and more; a wrong base, offset or table gives slopes far from all), found "toward_zero" 1 for the
///     truncated product, then confirmed over the whole dump under a float32 angle's tolerance widened by the unit's
///     errors (Variant::fast_math: the shortfall, an ulp of t truncated or rounded, the unit's own error).
bool search_fast_math(M search) {
  CheckReport& report = search.report;
  const DumpSource& source = search.source;
  const long start = search.start;
  const std::vector<AxisPosition>& positions = search.positions;
  const RopeExpectation& expected = report.expected;
  // Angles m·θ, which a given table has not.
  if (report.diagnosis.matches || expected.fope || expected.rope.axes || expected.table ||
      expected.mode != CheckMode::Forward)
    return false;
  if (expected.angles.value_or(default_angle_model(source.dtype())) != AngleModel::Float64) return false;
  std::vector<std::pair<double, long>> by_m;  // (|m|, index), the largest first
  for (std::size_t s = 0; s < positions.size(); ++s) {
    if (positions[s].multi()) return false;
    by_m.emplace_back(std::abs(positions[s][0]), static_cast<long>(s));
  }
  std::sort(by_m.begin(), by_m.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  const long groups = std::min<long>(source.groups(), 2);
  const long count = std::min<long>(static_cast<long>(by_m.size()), kFastMathVectors / groups);
  const int half = expected.rotary_dim() / 2;
  const Eigen::VectorXd& theta = expected.theta();
  const double delta = fast_math_shortfall(), u32 = epsilon(DType::F32) / 2, eps = epsilon(source.dtype());
  const auto c32 = static_cast<float>(1.0 / kTwoPi);
  std::vector<double> num(static_cast<std::size_t>(half), 0.0), den = num, noise = num, trunc = num;
  for (long k = 0; k < count; ++k) {
    const long s = by_m[static_cast<std::size_t>(k)].second;
    const double m = positions[static_cast<std::size_t>(s)][0];
    for (long g = 0; g < groups; ++g) {
      const auto [x, y] = source.vector_at(start + s, g);
      for (int i = 0; i < half; ++i) {
        const auto [ia, ib] = pair_channels(expected, i, false);
        const auto [oa, ob] = pair_channels(expected, i, true);
        const std::complex<double> zx(x[static_cast<std::size_t>(ia)], x[static_cast<std::size_t>(ib)]),
            zy(y[static_cast<std::size_t>(oa)], y[static_cast<std::size_t>(ob)]);
        if (std::abs(zx) == 0 || std::abs(zy) == 0) continue;
        const double phi = m * theta[i], e = std::remainder(std::arg(zy / zx) - phi, kTwoPi);
        const double n = u32 * std::abs(phi) + 2 * eps;
        const auto j = static_cast<std::size_t>(i);
        // a product t = φ·fl32(1/2π) truncated loses half an ulp of t on average: π·ulp(t) of the angle
        const float t = static_cast<float>(std::abs(phi) * c32);
        const double lost = kPi * (std::nextafter(t, INFINITY) - t);
        num[j] += e * phi, den[j] += phi * phi, noise[j] += n * n * phi * phi, trunc[j] += lost * std::abs(phi);
      }
    }
  }
  std::vector<double> bias, toward_zero;  // b_i, and b_i − δ + ζ_i (the truncated product's residual)
  for (int i = 0; i < half; ++i) {
    const auto j = static_cast<std::size_t>(i);
    if (!(den[j] > 0) || !(std::sqrt(noise[j]) / den[j] <= std::abs(delta) / 8)) continue;
    const double eta = static_cast<double>(static_cast<float>(theta[i])) / theta[i] - 1;
    bias.push_back(num[j] / den[j] - eta);
    toward_zero.push_back(bias.back() - delta + trunc[j] / den[j]);
  }
  if (bias.size() < kFastMathPairs) return false;
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t mid = v.size() / 2;
    return v.size() % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
  };
  const double nearest = median(bias) - delta, truncated = median(toward_zero);
  const bool rz = std::abs(truncated) < std::abs(nearest);
  const double residual = rz ? truncated : nearest;
  if (!(std::abs(residual) <= std::abs(delta) / 2)) return false;
  std::vector<double> kept;  // the pairs whose float32 θ_i is fl32(θ_i): their residual within |δ|/4 of the median
  for (std::size_t j = 0; j < bias.size(); ++j) {
    if (std::abs((rz ? toward_zero[j] : bias[j] - delta) - residual) <= std::abs(delta) / 4) kept.push_back(bias[j]);
  }
  if (kept.size() < kFastMathPairs) return false;
  const double b = median(kept);
  Variant v = variant_of(known_variant("angles-fast-math"), expected);
  v.spec.angles = AngleModel::Float32;
  v.fast_math = true;
  v.found = {{"bias", b}};
  if (rz) v.found.emplace_back("toward_zero", 1.0);
  report.variants.emplace_back(v.kind, source.compare(start, positions, {v}).front());
  if (!report.variants.back().second.passed()) return false;
  report.diagnosis.matches = known_variant("angles-fast-math");
  report.diagnosis.found = v.found;
  // Every angle short by b of itself where --angles float64 expects none, confirmed over the whole dump.
  const DumpComparison& c = report.variants.back().second;
  report.diagnosis.difference = {{"angle_bias", 0, b}};
  report.diagnosis.difference_explained = c.total - c.failing;
  report.diagnosis.difference_total = c.total;
  return true;
}

// Measured (check_diagnosis.cpp try_fast_math) where the angles are held to float64, from the
// pattern of the phase error (a shortfall of the same share of every angle), then confirmed by a comparison under
// a float32 angle's tolerance widened by the fast unit's errors (Variant::fast_math).
VariantRow row() {
  VariantRow r;
  r.name = "angles-fast-math";
  r.detection = VariantDetection::Measured;
  r.parameters = "bias, toward_zero";
  r.changes = [](E) { return msg("sin and cos of float32 angles by a fast unit without range reduction"); };
  r.says = [](S c) {
    const std::string bias = fmt::format("{:.3g}", -found_value(c)),
                      unit = fmt::format("{:.3g}", -fast_math_shortfall());
    if (c.diagnosis.found.size() > 1 && found_value(c, 1) != 0) {
      return msg(
          "matches sin and cos of float32 angles by CUDA's fast unit, as __sinf/__cosf compute them (and sinf/cosf "
          "under nvcc's use_fast_math): the angle times fl32(1/2π) rounded toward zero (FMUL.RZ), then MUFU.SIN: "
          "every angle falls short by {0} of itself (fl32(1/2π)'s shortfall {1} and the product rounded toward "
          "zero), an error that grows with m·θ (reduce the angle in double before sin and cos, which covers both)",
          bias, unit);
    }
    return msg(
        "matches sin and cos of float32 angles taken in turns through a float32 constant, as a sinpi of the angle "
        "times fl32(1/π) (CUDA's sincospif of a float32 quotient): every angle falls short by {0} of itself "
        "(fl32(1/π)'s shortfall {1}, the product rounded to nearest), an error that grows with m·θ (reduce the angle "
        "in double before sin and cos, which covers both)",
        bias, unit);
  };
  r.search = search_fast_math;
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::angles_fast_math
#endif
