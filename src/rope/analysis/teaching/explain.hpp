/// @file
/// The numbers of `rope explain`, a step-by-step walkthrough of RoPE for a classroom: one query q at
/// position M and one key k at position N, in 2-D with one frequency θ (steps 1–6), then in d
/// dimensions (step 7), then over several axes (step 8). Every step holds both sides of its identity, each computed its
/// own way, and a Check of their difference against the tolerance of docs/math.md (M13). The library does the
/// arithmetic; the command line (apps/rope/cli/commands/cmd_explain.cpp) only prints it.
///
///   1. (a, b) as z = a + ib = |z|·e^{i·arg z}                                       (M4)
///   2. Euler: e^{iφ} = cos φ + i·sin φ, for φ = Mθ and φ = Nθ                         (M4)
///   3. z·e^{iφ} (complex product) = R(φ)·(a, b) (2×2 matrix)                          (M3), (M4)
///   4. R(−Mθ)·R(Nθ) = R((N−M)θ)                                                        (M7)
///   5. ⟨R(Mθ)q, R(Nθ)k⟩ = Re[z_q·conj(z_k)·e^{i(M−N)θ}] = qᵀ·R((N−M)θ)·k                (M8)
///   6. the score of step 5 with both positions shifted by c is unchanged               (M8)
///   7. d dimensions: θ_i, the block-diagonal R_M, and the element-wise form R_M q          (M1), (M5), (M9)
///   8. several axes: pair i reads one axis a(i) of a patch's (t, h, w) and turns by θ_i·p_a(i); a text token
///      (M, M, M) is step 7's R_M; two patches of one row differ in the w pairs alone          (A1), (A3), (A5)
///
/// Tolerances: |Δ| <= κ·ε·(d + A)·S, (M13), with d = 2 in steps 1–6, S = the scale of the compared
/// quantity (|q| for a vector, |q|·|k| for a score, 1 for a unit complex number or a matrix entry)
/// and A = the sum of the |angles| in radians computed for the two sides (each angle's rounding
/// error is about ε·|angle|). With θ <= 1 that is at most the sum of |positions| of (M13).
#pragma once

#include <Eigen/Core>
#include <complex>
#include <vector>

#include "rope/core/constants.hpp"
#include "rope/core/tolerance.hpp"
#include "rope/core/types.hpp"
#include "rope/models/axes.hpp"

namespace rope::explain {

/// Largest d of step 7, which prints the d×d matrix (16 columns already fill a projected terminal;
/// `rope matrix` prints larger ones).
inline constexpr int kMaxDim = 16;
/// Largest |position| and |shift| (also |M + c|, |N + c|): more than any model's context.
inline constexpr double kMaxPosition = 1e7;
/// Largest |component| of q and k.
inline constexpr double kMaxComponent = 1e6;
/// Largest θ: one turn per position. Beyond it every angle wraps within a single step.
inline constexpr double kMaxTheta = kTwoPi;

/// The walkthrough's inputs. The defaults are the ones `rope explain` documents.
struct Setup {
  Eigen::Vector2d q{1.0, 0.5};   ///< the query, one 2-D pair
  Eigen::Vector2d k{0.8, -0.3};  ///< the key
  double m = 2.0;                ///< position M of the query
  double n = 5.0;                ///< position N of the key
  double theta = 1.0;            ///< the one frequency of steps 1–6, rad per position (θ_0 = 1)
  double shift = 100.0;          ///< c of step 6
  int d = 8;                     ///< dimension of step 7
  double base = kDefaultBase;    ///< base of step 7's θ_i = base^(−2i/d)
};

/// @throws InvalidArgument naming the rule: q and k finite, not zero, |components| <= kMaxComponent;
/// positions, shift and the shifted positions finite with |·| <= kMaxPosition; 0 < θ <= kMaxTheta;
/// d even in 2 … kMaxDim; base finite and > 1.
void check_setup(const Setup& setup);

// Each step compares its two sides in the one Check of rope/core/tolerance.hpp: difference = |Δ|, the
// largest absolute difference between the two sides; scale = S; tolerance = κ·ε·(d + A), on |Δ|/S, so
// the bound on |Δ| is tolerance·scale.

/// Step 1 for one vector: (a, b) ↦ z = a + ib, its modulus and argument, and back.
struct ComplexView {
  Eigen::Vector2d v;
  std::complex<double> z;
  double modulus = 0.0;        ///< |z| = std::abs(z)
  double argument = 0.0;       ///< arg z = std::arg(z), in (−π, π]
  std::complex<double> polar;  ///< |z|·e^{i·arg z}, by std::polar: must give z back
  Check check;                 ///< polar vs z; S = |z|, A = |arg z|
};

/// Step 2 for one angle φ: the complex exponential against cos φ + i·sin φ.
struct Euler {
  double angle = 0.0;                ///< φ
  std::complex<double> exponential;  ///< std::exp(iφ)
  std::complex<double> cos_sin;      ///< std::cos(φ) + i·std::sin(φ)
  Check check;                       ///< S = 1, A = 2|φ|
};

/// Step 3 for one vector: rotating by φ as a complex product and as a matrix product.
struct Rotation {
  double angle = 0.0;            ///< φ
  std::complex<double> z;        ///< a + ib
  std::complex<double> factor;   ///< e^{iφ} = std::polar(1, φ)
  std::complex<double> product;  ///< z·e^{iφ}
  Eigen::Matrix2d matrix;        ///< R(φ), rotation_2d
  Eigen::Vector2d rotated;       ///< R(φ)·(a, b)
  Check check;                   ///< product vs rotated; S = |z|, A = 2|φ|
};

struct Step1 {
  ComplexView q, k;
};

struct Step2 {
  Euler query;  ///< φ = Mθ
  Euler key;    ///< φ = Nθ
};

struct Step3 {
  Rotation query;  ///< q by Mθ
  Rotation key;    ///< k by Nθ
};

struct Step4 {
  Eigen::Matrix2d minus_m;   ///< R(−Mθ) = R(Mθ)ᵀ
  Eigen::Matrix2d n;         ///< R(Nθ)
  Eigen::Matrix2d product;   ///< R(−Mθ)·R(Nθ)
  Eigen::Matrix2d relative;  ///< R((N−M)θ)
  Check check;               ///< product vs relative, entry-wise; S = 1, A = |Mθ| + |Nθ| + |(N−M)θ|
};

struct Step5 {
  Eigen::Vector2d q_rotated;      ///< R(Mθ)q
  Eigen::Vector2d k_rotated;      ///< R(Nθ)k
  double score = 0.0;             ///< ⟨R(Mθ)q, R(Nθ)k⟩, the dot product of the rotated vectors
  std::complex<double> q_conj_k;  ///< z_q·conj(z_k)
  std::complex<double> phase;     ///< e^{i(M−N)θ}
  double complex_form = 0.0;      ///< Re[z_q·conj(z_k)·e^{i(M−N)θ}]
  Eigen::Matrix2d relative;       ///< R((N−M)θ)
  Eigen::Vector2d relative_k;     ///< R((N−M)θ)·k
  double relative_form = 0.0;     ///< qᵀ·R((N−M)θ)·k
  double wrong_sign = 0.0;        ///< qᵀ·R((M−N)θ)·k: the sign slip, not the score in general
  double angle_between = 0.0;     ///< arg(R(Nθ)k) − arg(R(Mθ)q), in (−π, π]
  Check complex_check;            ///< score vs complex_form; S = |q||k|, A = |Mθ| + |Nθ| + |(M−N)θ|
  Check relative_check;           ///< score vs relative_form; same S and A
  Check wrong_sign_check;         ///< score vs wrong_sign: fails unless the sine term is 0
  Eigen::Vector2d q_reversed;     ///< R(Mθ)ᵀq = R(−Mθ)q: the rotation applied the wrong way round
  Eigen::Vector2d k_reversed;     ///< R(Nθ)ᵀk
  double reversed_score = 0.0;    ///< ⟨R(Mθ)ᵀq, R(Nθ)ᵀk⟩, computed from the two turned vectors
  Check reversed_check;           ///< reversed_score vs wrong_sign: R_mᵀ everywhere gives qᵀ·R((M−N)θ)·k
};

struct Step6 {
  double shift = 0.0;          ///< c
  Eigen::Vector2d q_rotated;   ///< R((M+c)θ)q
  Eigen::Vector2d k_rotated;   ///< R((N+c)θ)k
  double shifted_score = 0.0;  ///< ⟨R((M+c)θ)q, R((N+c)θ)k⟩
  double score = 0.0;          ///< ⟨R(Mθ)q, R(Nθ)k⟩ (step 5)
  double angle_between = 0.0;  ///< arg(R((N+c)θ)k) − arg(R((M+c)θ)q), in (−π, π]: step 5's angle again
  Check check;                 ///< S = |q||k|, A = |(M+c)θ| + |(N+c)θ| + |Mθ| + |Nθ|
};

struct Step7 {
  int d = 0;
  double base = 0.0;
  Eigen::VectorXd theta;        ///< θ_i = base^(−2i/d), frequencies()
  Eigen::VectorXd angles;       ///< M·θ_i
  int pair_of_theta = -1;       ///< the pair i whose θ_i is the θ of steps 1–6, or −1
  Eigen::VectorXd q;            ///< the 2-D q repeated on every pair
  Eigen::MatrixXd matrix;       ///< R_M = diag(R(Mθ_0), …), interleaved layout (M5)
  Eigen::VectorXd by_matrix;    ///< R_M·q
  Eigen::VectorXd cos;          ///< cos(MΘ) = (cos Mθ_0, cos Mθ_0, cos Mθ_1, …)
  Eigen::VectorXd sin;          ///< sin(MΘ)
  Eigen::VectorXd rot;          ///< rot(q) = (−q_1, q_0, −q_3, q_2, …)
  Eigen::VectorXd elementwise;  ///< q ⊙ cos(MΘ) + rot(q) ⊙ sin(MΘ), apply_rotary (M9)
  Check check;                  ///< elementwise vs by_matrix; S = ‖q‖, A = |M|, d = d
};

/// Step 8: the pairs of step 7 over three axes (docs/multi-axis.md (A1)), taking the axes in turn as Qwen3-VL
/// interleaves them ((A3), sections [P − 2⌊P/3⌋, ⌊P/3⌋, ⌊P/3⌋] of the P = d/2 pairs: t, h, w, t, h, w, …). A text
/// token at M is (M, M, M) on every axis; the query patch lies at (t, h, w) = (kPatchFrame, kPatchRow, M), the key
/// patch at (kPatchFrame, kPatchRow, N): one frame, one row, the columns M and N.
struct Step8 {
  AxisMap map;                    ///< (A3) of the sections
  std::vector<int> sections;      ///< pairs per axis t, h, w
  Eigen::VectorXd text_angles;    ///< θ_i·p_a(i) at (M, M, M), axis_angles
  Eigen::VectorXd text_rotated;   ///< the repeated q turned by text_angles, element-wise (M9)
  Check text_check;               ///< text_rotated vs step 7's R_M·q; S = ‖q‖, A = |M|, d = d
  AxisPosition query_patch;       ///< (kPatchFrame, kPatchRow, M)
  AxisPosition key_patch;         ///< (kPatchFrame, kPatchRow, N)
  Eigen::VectorXd query_angles;   ///< θ_i·p_a(i) at the query patch
  Eigen::VectorXd key_angles;     ///< at the key patch
  std::vector<int> differing;     ///< the pairs whose angles differ between the two patches
  bool only_w = false;            ///< the differing pairs are exactly the w pairs (M ≠ N)
  Eigen::VectorXd k;              ///< the 2-D k repeated on every pair
  Eigen::VectorXd query_rotated;  ///< R_p q, element-wise by query_angles
  Eigen::VectorXd key_rotated;    ///< R_p' k
  double score = 0.0;             ///< ⟨R_p q, R_p' k⟩
  Eigen::MatrixXd relative;       ///< R_(p'−p), relative_rotation (A5): identity blocks on the t and h pairs
  double relative_form = 0.0;     ///< qᵀ·R_(p'−p)·k
  double identity_off = 0.0;      ///< largest |entry of R_(p'−p) − I| over the blocks of the t and h pairs
  Check check;                    ///< score vs relative_form; S = ‖q‖‖k‖, A = Σ|angles| of both patches and Δ
};

/// The frame and row of step 8's two patches.
inline constexpr double kPatchFrame = 1.0;
inline constexpr double kPatchRow = 2.0;

/// The whole walkthrough.
struct Walkthrough {
  Setup setup;
  Step1 step1;
  Step2 step2;
  Step3 step3;
  Step4 step4;
  Step5 step5;
  Step6 step6;
  Step7 step7;
  Step8 step8;
};

inline constexpr int kSteps = 8;

/// Computes every step. @throws InvalidArgument as check_setup().
Walkthrough explain(const Setup& setup);

/// The checks that decide ✓ or ✗ in step `step` (1 … kSteps), or in all steps for 0; the sign-slip
/// contrast of step 5 is not one of them. @throws InvalidArgument for another step.
std::vector<Check> checks(const Walkthrough& walkthrough, int step);

}  // namespace rope::explain
