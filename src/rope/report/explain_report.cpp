// The printer of rope explain (explain_report.hpp): the walkthrough's steps, each with its numbers and check.
#include "rope/report/explain_report.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <fmt/format.h>
#include <string>
#include <utility>
#include <vector>

#include "rope/io/csv.hpp"
#include "rope/models/axes.hpp"
#include "rope/report/digits.hpp"
#include "rope/report/json.hpp"
#include "rope/report/printing.hpp"
#include "rope/report/text.hpp"

namespace rope {

namespace {

using Complex = std::complex<double>;

// ---------------------------------------------------------------------------------------------
// Numbers as the walkthrough prints them. Computed values: fx (printing.hpp). The user's own numbers:
// exactly as read (shortest round trip).

std::string cx(Complex z) {
  const std::string im = fx(std::abs(z.imag()));
  return fmt::format("{} {} {}i", fx(z.real()), z.imag() < 0 && im != "0" ? "-" : "+", im);
}

/// The entries of a matrix: 6 decimals, right-aligned, an exact 0 as a plain 0 so the blocks stand out.
const MatrixFormat kPlain{6, false, true};
const MatrixFormat kBracketed{6, false, true, 1, " ", true};

std::string vec(const Eigen::VectorXd& v, bool exact = false) {
  std::string s;
  for (Eigen::Index i = 0; i < v.size(); ++i) s += (i ? ", " : "") + (exact ? format_number(v[i]) : fx(v[i]));
  return "(" + s + ")";
}

/// The difference against its tolerance, with the digits that tell them apart (digits.hpp, at least 2).
std::string verdict(const rope::Check& c) {
  const std::vector<std::string> shown = compared_sci({c.difference, c.tolerance * c.scale}, std::nullopt, 2);
  const std::string diff = c.difference == 0.0 ? "0" : shown[0];
  return c.passed() ? fmt::format("|Δ| = {} ≤ {} ✓", diff, shown[1]) : fmt::format("|Δ| = {} > {} ✗", diff, shown[1]);
}

/// Spaces up to `width` terminal columns, then `s` (a right-aligned column of possibly Chinese heads).
std::string pad_left(const std::string& s, std::size_t width) {
  return std::string(width - std::min(width, columns(s)), ' ') + s;
}

// ---------------------------------------------------------------------------------------------
// The text.

class Printer {
 public:
  Printer(const explain::Walkthrough& w, const Text& t, std::ostream& out) : w_(w), t_(t), out_(out) {}

  void header(const std::string& theta_source) {
    const explain::Setup& s = w_.setup;
    printed_ = true;
    line(t_.tr("RoPE step by step: a query q at position M and a key k at position N (docs/math.md)"));
    line(fmt::format("  q = {}, M = {};  k = {}, N = {}", vec(s.q, true), format_number(s.m), vec(s.k, true),
                     format_number(s.n)));
    line(t_.tr("  θ = {0} rad per position in steps 1–6 ({1}); steps 7–8: d = {2}, base = {3}", format_number(s.theta),
               theta_source, s.d, format_number(s.base)));
    line(t_.tr("  each check: |Δ| = the difference of its two sides, ✓ if it is within the rounding tolerance"));
    line(t_.tr("  κ·ε·(d + A)·S of (M13) (A: the sum of |angles| in rad, S: the scale), ✗ otherwise"));
  }

  void step(int k) {
    if (printed_) out_ << '\n';  // a blank line between parts; none first with --quiet
    printed_ = true;
    switch (k) {
      case 1:
        step1();
        break;
      case 2:
        step2();
        break;
      case 3:
        step3();
        break;
      case 4:
        step4();
        break;
      case 5:
        step5();
        break;
      case 6:
        step6();
        break;
      case 7:
        step7();
        break;
      case 8:
        step8();
        break;
      default:
        break;
    }
  }

  /// The last line; returns whether every check passed.
  bool summary(int step) {
    const std::vector<rope::Check> checks = explain::checks(w_, step);
    const auto failed = std::count_if(checks.begin(), checks.end(), [](const rope::Check& c) { return !c.passed(); });
    out_ << '\n';
    if (failed == 0 && checks.size() == 1) {
      line(t_.tr("the check ✓: its two sides agree up to rounding"));
      return true;
    }
    if (failed == 0) {
      line(t_.tr("all {0} checks ✓: the two sides of every identity agree up to rounding", checks.size()));
      return true;
    }
    line(t_.tr("{0} of {1} checks ✗: the two sides differ by more than rounding", failed, checks.size()));
    return false;
  }

 private:
  void line(const std::string& text) { out_ << text << '\n'; }

  void step1() {
    const explain::Step1& s = w_.step1;
    line(t_.tr("Step 1: the 2-D vector as a complex number (M4)"));
    line("  (a, b) ↦ z = a + ib = |z|·e^{i·arg z}");
    line(t_.tr("  |z| is the length of the vector, arg z its angle from the first axis (in rad)"));
    for (const auto& [name, v] : {std::pair{"q", &s.q}, std::pair{"k", &s.k}}) {
      line(fmt::format("  {0} = {1} ↦ z_{0} = {2},  |z_{0}| = {3},  arg z_{0} = {4} rad", name, vec(v->v, true),
                       cx(v->z), fx(v->modulus), fx(v->argument)));
    }
    line(t_.tr("  back from the polar form:"));
    for (const auto& [name, v] : {std::pair{"q", &s.q}, std::pair{"k", &s.k}}) {
      line(fmt::format("    |z_{0}|·e^{{i·arg z_{0}}} = {1}   {2}", name, cx(v->polar), verdict(v->check)));
    }
  }

  void step2() {
    const explain::Step2& s = w_.step2;
    line(t_.tr("Step 2: Euler's formula e^{iφ} = cos φ + i·sin φ, for φ = Mθ and φ = Nθ (M4)"));
    line(t_.tr("  e^{iφ} is the point at angle φ on the unit circle: |e^{iφ}| = 1"));
    for (const auto& [name, e] : {std::pair{"Mθ", &s.query}, std::pair{"Nθ", &s.key}}) {
      line(fmt::format("  φ = {} = {} rad", name, fx(e->angle)));
      line(fmt::format("    e^{{iφ}}          = {}", cx(e->exponential)));
      line(fmt::format("    cos φ + i·sin φ = {}   {}", cx(e->cos_sin), verdict(e->check)));
    }
  }

  void step3() {
    const explain::Step3& s = w_.step3;
    line(t_.tr("Step 3: multiplying by e^{iφ} rotates by φ: z·e^{iφ} = R(φ)·(a, b) (M3), (M4)"));
    line(t_.tr("  R(φ) = [[cos φ, −sin φ], [sin φ, cos φ]] turns the plane counter-clockwise by φ"));
    const std::pair<std::string, const explain::Rotation*> rows[] = {
        {t_.tr("  q at position M: φ = Mθ = {0} rad", fx(s.query.angle)), &s.query},
        {t_.tr("  k at position N: φ = Nθ = {0} rad", fx(s.key.angle)), &s.key}};
    for (std::size_t i = 0; i < 2; ++i) {
      const auto& [title, r] = rows[i];
      const char* name = i == 0 ? "q" : "k";
      line(title);
      line(fmt::format("    z_{}·e^{{iφ}} = ({})·({}) = {}", name, cx(r->z), cx(r->factor), cx(r->product)));
      const std::vector<std::string> m = matrix_lines(r->matrix, kBracketed);
      line(fmt::format("    R(φ) = {}   R(φ)·{} = {}", m[0], name, vec(r->rotated)));
      line(fmt::format("           {}   {}", m[1], verdict(r->check)));
    }
  }

  void step4() {
    const explain::Step4& s = w_.step4;
    const explain::Setup& in = w_.setup;
    line(t_.tr("Step 4: R(−Mθ)·R(Nθ) = R((N−M)θ): R(Mθ)ᵀ = R(−Mθ), and rotation angles add (M7)"));
    line(fmt::format("  −Mθ = {} rad, Nθ = {} rad, (N−M)θ = {} rad", fx(-(in.m * in.theta)), fx(in.n * in.theta),
                     fx((in.n - in.m) * in.theta)));
    side_by_side("R(−Mθ)", s.minus_m, "R(Nθ)", s.n);
    side_by_side("R(−Mθ)·R(Nθ)", s.product, "R((N−M)θ)", s.relative);
    line("  " + verdict(s.check));
  }

  void side_by_side(const std::string& left_title, const Eigen::Matrix2d& left, const std::string& right_title,
                    const Eigen::Matrix2d& right) {
    const std::vector<std::string> a = matrix_lines(left, kBracketed);
    const std::vector<std::string> b = matrix_lines(right, kBracketed);
    const std::size_t width = std::max(columns(a[0]), columns(left_title)) + 3;
    line("  " + pad(left_title, width) + right_title);
    for (std::size_t i = 0; i < a.size(); ++i) line("  " + pad(a[i], width) + b[i]);
  }

  void step5() {
    const explain::Step5& s = w_.step5;
    const explain::Setup& in = w_.setup;
    line(t_.tr("Step 5: the score ⟨R_M q, R_N k⟩ = qᵀ R_{N−M} k depends on N − M only (M8)"));
    line("  R_M = R(Mθ), R_N = R(Nθ): ⟨R_M q, R_N k⟩ = Re[z_q·z̄_k·e^{i(M−N)θ}] = qᵀ R_{N−M} k");
    line(t_.tr("  z̄_k is the complex conjugate of z_k; the last two forms see N − M only"));
    line(fmt::format("  ⟨R_M q, R_N k⟩ = {}·{} = {}", vec(s.q_rotated), vec(s.k_rotated), fx(s.score)));
    line(t_.tr("  the angle from R(Mθ)q to R(Nθ)k: (arg z_k + Nθ) − (arg z_q + Mθ) ≡ {0} rad (mod 2π)",
               fx(s.angle_between)));
    // Juxtaposed factors and two spaces before the check: the line fits a projector (100 columns).
    line(fmt::format("  Re[z_q·z̄_k·e^{{i(M−N)θ}}] = Re[({})({})] = {}  {}", cx(s.q_conj_k), cx(s.phase),
                     fx(s.complex_form), verdict(s.complex_check)));
    line(fmt::format("  qᵀ R_{{N−M}} k = {}·{} = {}   {}", vec(in.q, true), vec(s.relative_k), fx(s.relative_form),
                     verdict(s.relative_check)));
    if (!s.wrong_sign_check.passed()) {
      line(t_.tr("  mind the sign: qᵀ R_{{M−N}} k = {0} is not the score:", fx(s.wrong_sign)));
    } else {
      line(t_.tr("  mind the sign: qᵀ R_{{M−N}} k = {0} equals the score here only because its sine term is 0;",
                 fx(s.wrong_sign)));
    }
    line(t_.tr("  the matrix between q and k is R_{N−M}, not R_{M−N}"));
    // The same slip in code: R_mᵀ applied instead of R_m turns each vector the other way.
    line(t_.tr("  R_mᵀ applied instead of R_m (the reversed rotation) gives that score, the one of distance M − N:"));
    line(fmt::format("  ⟨R_Mᵀ q, R_Nᵀ k⟩ = {}·{} = {}   {}", vec(s.q_reversed), vec(s.k_reversed), fx(s.reversed_score),
                     verdict(s.reversed_check)));
  }

  void step6() {
    const explain::Step6& s = w_.step6;
    const explain::Setup& in = w_.setup;
    line(t_.tr("Step 6: shift both positions by c = {0}: N − M and the score do not change (M8)",
               format_number(s.shift)));
    line(fmt::format("  M + c = {}, N + c = {}, (N + c) − (M + c) = {} = N − M", format_number(in.m + s.shift),
                     format_number(in.n + s.shift), format_number((in.n + s.shift) - (in.m + s.shift))));
    line(fmt::format("  R_{{M+c}} q = {}, R_{{N+c}} k = {}", vec(s.q_rotated), vec(s.k_rotated)));
    line(fmt::format("  ⟨R_{{M+c}} q, R_{{N+c}} k⟩ = {}", fx(s.shifted_score)));
    line(fmt::format("  ⟨R_M q, R_N k⟩ = {}   {}", fx(s.score), verdict(s.check)));
    line(t_.tr("  both vectors turn by cθ = {0} rad more: the angle between them stays {1} rad", fx(s.shift * in.theta),
               fx(s.angle_between)));
  }

  void step7() {
    const explain::Step7& s = w_.step7;
    const explain::Setup& in = w_.setup;
    const int pairs = s.d / 2;
    line(t_.tr("Step 7: from 2 to d = {0} dimensions: d/2 = {1} pairs, pair i turns by Mθ_i (M1), (M5), (M9)", s.d,
               pairs));
    line(fmt::format("  θ_i = base^(−2i/d), base = {}, M = {}", format_number(s.base), format_number(in.m)));
    const std::string channels = t_.tr("channels");
    line(fmt::format("  {:>5}  {}{:>12}  {:>12}", "i", pad(channels, 10), "θ_i", "Mθ_i (rad)"));
    for (int i = 0; i < pairs; ++i) {
      line(fmt::format("  {:>5}  {:<10}{:>12}  {:>12}", i, fmt::format("({}, {})", 2 * i, 2 * i + 1),
                       fmt::format("{:.6g}", s.theta[i]), fx(s.angles[i])));
    }
    if (s.pair_of_theta >= 0) {
      line(t_.tr("  pair {0} has θ_{0} = θ of steps 1–6: its block below is R(Mθ) of step 3", s.pair_of_theta));
    }
    line(t_.tr("  R_M = diag(R(Mθ_0), …, R(Mθ_{0})), one 2×2 block per pair (M5):", pairs - 1));
    for (const std::string& row : matrix_lines(s.matrix, kPlain)) line("    " + row);
    line(t_.tr("  the element-wise form needs no matrix (M9): R_M·q = q ⊙ cos(MΘ) + rot(q) ⊙ sin(MΘ),"));
    line(t_.tr("  with q repeating the pair q on all d/2 pairs:"));
    const std::string channel = t_.tr("channel");
    const std::size_t first = std::max<std::size_t>(columns(channel), 7);
    line(fmt::format("    {}{:>6}{:>11}{:>8}{:>11}{:>21}{:>11}", pad(channel, first), "q", "cos(MΘ)", "rot(q)",
                     "sin(MΘ)", "q⊙cos + rot(q)⊙sin", "R_M·q"));
    for (int c = 0; c < s.d; ++c) {
      line(fmt::format("    {:>{}}{:>6}{:>11}{:>8}{:>11}{:>21}{:>11}", c, first, fx(s.q[c]), fx(s.cos[c]), fx(s.rot[c]),
                       fx(s.sin[c]), fx(s.elementwise[c]), fx(s.by_matrix[c])));
    }
    line("    " + verdict(s.check));
  }

  void step8() {
    const explain::Step8& s = w_.step8;
    const explain::Setup& in = w_.setup;
    const int pairs = in.d / 2;
    line(t_.tr("Step 8: several axes: pair i reads one axis a(i) of (t, h, w), turning by θ_i·p_a(i) (A1), (A3)"));
    line(
        t_.tr("  an image patch has a row h and a column w, a video patch a frame t too; here step 7's {0} pairs "
              "take",
              pairs));
    std::string letters;
    for (int i = 0; i < pairs; ++i) letters += fmt::format("{}{}", i ? " · " : "", axis_letter(s.map.pair_axis[i]));
    line(t_.tr("  the axes in turn as Qwen3-VL interleaves them: sections [{0}] give {1}",
               fmt::format("{}", fmt::join(s.sections, ", ")), letters));
    line(t_.tr("  a text token at position M is (M, M, M), one position on every axis: pair i turns by Mθ_i,"));
    line(t_.tr("  step 7's R_M: R_(M,M,M)·q = R_M·q   {0}", verdict(s.text_check)));
    line(t_.tr("  two patches of one row, the columns M and N: q at (t, h, w) = {0}, k at {1}", s.query_patch.text(),
               s.key_patch.text()));
    const std::string axis = t_.tr("axis");
    const std::size_t axis_width = std::max<std::size_t>(columns(axis), 4) + 2;
    const std::string q_head = t_.tr("angle of q (rad)");
    const std::string k_head = t_.tr("angle of k (rad)");
    const std::size_t q_width = std::max<std::size_t>(columns(q_head), 12) + 2;
    const std::size_t k_width = std::max<std::size_t>(columns(k_head), 12) + 2;
    line(fmt::format("  {:>5}  {}{:>10}  {}{}", "i", pad(axis, axis_width), "θ_i", pad_left(q_head, q_width),
                     pad_left(k_head, k_width)));
    for (int i = 0; i < pairs; ++i) {
      const bool differs = std::find(s.differing.begin(), s.differing.end(), i) != s.differing.end();
      line(fmt::format("  {:>5}  {}{:>10}  {}{}{}", i, pad(std::string(axis_letter(s.map.pair_axis[i])), axis_width),
                       fmt::format("{:.6g}", w_.step7.theta[i]), pad_left(fx(s.query_angles[i]), q_width),
                       pad_left(fx(s.key_angles[i]), k_width), differs ? t_.tr("  ← differs") : ""));
    }
    const std::string listed = fmt::format("{}", fmt::join(s.differing, ", "));
    if (s.differing.empty() && in.m == in.n) {
      line(t_.tr("  no pair turns them apart: M = N puts both in one place"));
    } else if (s.differing.empty()) {
      line(t_.tr("  no pair turns them apart: at d = {0} no pair reads w", in.d));
    } else if (s.only_w) {
      line(t_.tr("  only the w pairs ({0}) turn them apart: p' − p = (0, 0, N − M), R_(p'−p) = I on the t and h pairs",
                 listed));
    } else {
      line(t_.tr("  the pairs {0} turn them apart", listed));
    }
    line(fmt::format("  ⟨R_p q, R_p' k⟩ = {}", fx(s.score)));
    line(fmt::format("  qᵀ R_(p'−p) k = {}   {}", fx(s.relative_form), verdict(s.check)));
  }

  const explain::Walkthrough& w_;
  const Text t_;
  std::ostream& out_;
  bool printed_ = false;  ///< whether anything was printed yet
};

}  // namespace

Value explain_value(const ExplainRun& run) {
  const explain::Walkthrough& w = run.walkthrough;
  const explain::Setup& s = w.setup;
  Value v = Value::object();
  v["q"] = std::vector<double>{s.q[0], s.q[1]};
  v["k"] = std::vector<double>{s.k[0], s.k[1]};
  v["m"] = s.m;
  v["n"] = s.n;
  v["theta"] = s.theta;
  v["shift"] = s.shift;
  v["d"] = s.d;
  v["base"] = s.base;
  v["step"] = run.step;
  v["score"] = w.step5.score;
  v["relative_score"] = w.step5.relative_form;
  v["reversed_score"] = w.step5.reversed_score;
  std::string axes;  // step 8: the axis each pair reads, "thwt"
  for (const int a : w.step8.map.pair_axis) axes += axis_letter(a);
  v["axes"] = axes;
  v["patch_score"] = w.step8.score;
  v["patch_relative_score"] = w.step8.relative_form;
  Value checks = Value::array();
  for (const Check& c : explain::checks(w, run.step)) {
    Value one = Value::object();
    one["difference"] = c.difference;
    one["tolerance"] = c.tolerance * c.scale;
    one["passed"] = c.passed();
    checks.push_back(one);
  }
  v["checks"] = checks;
  v["passed"] = run.passed();
  return v;
}

bool print_explain(std::ostream& out, const ExplainRun& run, const Text& t) {
  std::string theta_source;
  switch (run.theta_source) {
    case ThetaSource::Pair:
      theta_source = t.tr("θ_{0} of pair {0} of step 7", run.pair);
      break;
    case ThetaSource::Given:
      theta_source = option_name("theta");
      break;
    case ThetaSource::Default:
      theta_source = t.tr("θ_0 = 1, the fastest pair");
      break;
  }
  Printer p(run.walkthrough, t, out);
  if (!run.quiet) p.header(theta_source);
  for (int k = 1; k <= explain::kSteps; ++k) {
    if (run.step == 0 || run.step == k) p.step(k);
  }
  return p.summary(run.step);
}

}  // namespace rope
