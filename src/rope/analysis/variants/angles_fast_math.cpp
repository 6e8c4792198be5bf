// angles-fast-math: sin and cos of float32 angles by a fast unit without range reduction.
// Sin and cos of the float32 angle by a fast unit without range reduction of its own, as CUDA's
// __sinf/__cosf under --use_fast_math (imp PR #1325): the angle taken to revolutions by fl32(1/2π), which is
// fast_math_shortfall() of itself short, so every angle falls short by that share of itself; the product rounded to
// nearest or, as the SASS of __sinf does it (FMUL.RZ, then MUFU.SIN), toward zero, which adds half an ulp of the
// product on average. Measured where the angles are held to float64 (found "bias": the median over pairs of the phase
// error's slope against m·θ_i, less the pair's own float32 rounding of θ_i; "toward_zero" 1 for a truncated product,
// absent for one rounded to nearest).
// Corpus rows (tests/cli/corpus_answers.json) that it matches: buggy_kernels/angles_fast_math,
// diagnosis_2026/fast_math_toward_zero.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("angles-fast-math",
  R"md(`matches sin and cos of float32 angles by a fast unit without range reduction, as CUDA's __sinf/__cosf under nvcc's use_fast_math or a sinpi of the angle times fl32(1/π): every angle falls short by 4.03e-08 of itself (fl32(1/2π)'s shortfall 4.03e-08, the product rounded to nearest), an error that grows with m·θ (reduce the angle in double before sin and cos, which covers both)`; with the product truncated, `as CUDA's __sinf/__cosf in SASS (FMUL.RZ by fl32(1/2π), then MUFU.SIN) …: every angle falls short by 8.18e-08 of itself (fl32(1/2π)'s shortfall 4.03e-08 and the product rounded toward zero)`)md",
  R"md(with `--angles float64` alone: the float32 angle taken to revolutions by fl32(1/2π), 4.03·10⁻⁸ of itself short, then sin(2πx). Told from a plain float32 product (which errs as much, by rounding either way) by its pattern: per pair the slope of the phase error against m·θ_i (least squares over the 512 vectors of the largest positions, 2 heads) less θ_i's own float32 rounding, pairs measured within 5·10⁻⁹ kept (at least 8). Two roundings of the product t = angle·fl32(1/2π) are modelled: to nearest (the bias −4.03·10⁻⁸) and toward zero (SASS's `FMUL.RZ`: per pair half an ulp of t more on average, π·ulp(t) of the angle, 3·10⁻⁸ to 6·10⁻⁸ of it by t's binade; −8.18·10⁻⁸ in all on tests/reference/diagnosis_2026.py's `fast_math_toward_zero`, whose NumPy truth is −8.26·10⁻⁸); the rounding whose median residual over the pairs lies nearer 0 is the one measured (`found.toward_zero` 1 for the truncated product), named where that residual is within half of 4.03·10⁻⁸ (a float32 product's residuals are 4.03·10⁻⁸ and more); `found.bias` is the median over the pairs whose residual lies within a quarter of 4.03·10⁻⁸ of it (a float32 θ an ulp off fl32(θ), as PyTorch's float32 power leaves up to a third of them, moves its pair by 6·10⁻⁸ or more); then confirmed under a float32 angle's tolerance widened by the shortfall, the angle's rounding in revolutions (ε_f32·m·θ) and the unit's own error (2⁻²⁰ in cos and in sin, above the CUDA C++ Programming Guide's 2⁻²¹·⁴¹ on [−π, π]). Under the default float32 angle model such a dump passes: its error is the size of the float32 product's own, within (C2). A float32 product held to float64 measures a bias near 0 (1.4·10⁻¹¹ by the same statistic in NumPy over all 272 positions of tests/reference/buggy_kernels.py's `angles_float32_product`, the fast path's −4.027·10⁻⁸) and is not named)md",
  R"md(a kernel built with `--use_fast_math`, whose `sinf`/`cosf` become `__sinf`/`__cosf` (PTX `sin` of `.approx.f32`: the hardware's range reduction RRO, then its SIN, NVIDIA developer forums, "arithmetical functions various"; NVIDIA developer forums, "Improving the accuracy of the __sincosf function": an error "linear in the argument", removed by a correction of 4.07·10⁻⁸ of it); imp PR #1325: 10⁻² at position 131071 where its tests used positions up to 40. Reduce the angle first (in double, or modulo 2π before the intrinsic), or keep `sinf`/`cosf`)md")
// clang-format on
#else
namespace rope::variants::angles_fast_math {

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
          "matches sin and cos of float32 angles by a fast unit without range reduction, as CUDA's __sinf/__cosf "
          "in SASS (FMUL.RZ by fl32(1/2π), then MUFU.SIN) or a sinpi of the angle times fl32(1/π) rounded toward "
          "zero: every angle falls short by {0} of itself (fl32(1/2π)'s shortfall {1} and the product rounded toward "
          "zero), an error that grows with m·θ (reduce the angle in double before sin and cos, which covers both)",
          bias, unit);
    }
    return msg(
        "matches sin and cos of float32 angles by a fast unit without range reduction, as CUDA's __sinf/__cosf "
        "under nvcc's use_fast_math or a sinpi of the angle times fl32(1/π): every angle falls short by {0} of itself "
        "(fl32(1/2π)'s shortfall {1}, the product rounded to nearest), an error that grows with m·θ (reduce the "
        "angle in double before sin and cos, which covers both)",
        bias, unit);
  };
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::angles_fast_math
#endif
