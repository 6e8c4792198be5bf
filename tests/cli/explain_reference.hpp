/// @file
/// The walkthrough of `rope explain` recomputed from its definitions (explicit cos/sin arithmetic and
/// std::complex, docs/math.md (M1), (M3)–(M9), (M13)), independently of src/rope/analysis/teaching/explain.cpp,
/// and compared line by line with what rope prints. Used by test_cmd_explain.cpp.
#pragma once

#include <cmath>
#include <complex>
#include <cstdlib>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <string>
#include <utility>
#include <vector>
#include "support/shared.hpp"

namespace rope::test::explain_reference {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using Complex = std::complex<double>;

using test::kEps;  // float64 machine epsilon
/// A computed value is printed with 6 decimals: it is off by at most half a unit of the 6th decimal
/// (plus the binary representation of the decimal, far below that).
inline constexpr double kPrinted = 5.000001e-7;

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

/// The numbers printed on a line, in order. A number is an optional ASCII '-' (also "- " inside a complex
/// number such as "0.8 - 0.3i"), digits, an optional fraction and exponent. Digits glued to a letter,
/// digit, '_', '.' or a non-ASCII character belong to a name or a formula and are not numbers: θ_0,
/// (M13), the second 2 of 2×2, the 6 of 1–6.
inline std::vector<double> numbers(const std::string& s) {
  const auto glued = [&](std::size_t i) {
    if (i == 0) return false;
    const auto c = static_cast<unsigned char>(s[i - 1]);
    return std::isalnum(c) || c == '_' || c == '.' || c >= 0x80;
  };
  const auto digit = [&](std::size_t i) { return i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); };
  std::vector<double> out;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t start = i;
    bool negative = false;
    if (s[i] == '-' && !glued(i)) {
      const std::size_t j = i + 1 + (i + 1 < s.size() && s[i + 1] == ' ' ? 1 : 0);
      if (digit(j)) negative = true, start = j;
    }
    if (!negative && !(digit(i) && !glued(i))) {
      if (digit(i)) {
        while (digit(i) || (i < s.size() && s[i] == '.')) ++i;
      } else {
        ++i;
      }
      continue;
    }
    char* end = nullptr;
    const double v = std::strtod(s.c_str() + start, &end);
    out.push_back(negative ? -v : v);
    i = static_cast<std::size_t>(end - s.c_str());
  }
  return out;
}

/// The lines of step k, from its title to the blank line after it.
inline std::vector<std::string> step_lines(const std::string& out, const std::string& title) {
  const std::vector<std::string> all = lines_of(out);
  std::vector<std::string> block;
  bool in = false;
  for (const std::string& line : all) {
    if (line.rfind(title, 0) == 0) in = true;
    if (in && line.empty()) break;
    if (in) block.push_back(line);
  }
  return block;
}

/// The numbers of `line` are `values`, each to the printed 6 decimals; if `tolerance` >= 0 the line
/// ends with "|Δ| = D ≤ T ✓": D <= T, and T is the expected (M13) tolerance to its 2 printed digits.
inline void expect_line(const std::string& line, const std::vector<double>& values, double tolerance = -1.0) {
  SCOPED_TRACE(line);
  const std::vector<double> got = numbers(line);
  const std::size_t extra = tolerance >= 0 ? 2 : 0;
  ASSERT_EQ(got.size(), values.size() + extra);
  for (std::size_t i = 0; i < values.size(); ++i) EXPECT_NEAR(got[i], values[i], kPrinted) << "number " << i;
  if (tolerance >= 0) {
    const double diff = got[values.size()];
    const double tol = got[values.size() + 1];
    EXPECT_LE(diff, tol);
    EXPECT_NEAR(tol, tolerance, 0.051 * tolerance);  // printed as {:.1e}
    EXPECT_THAT(line, HasSubstr("✓"));
  }
}

// ---------------------------------------------------------------------------------------------
// The walkthrough recomputed here from its definitions, and compared with what rope prints.

struct Inputs {
  double qa = 1.0, qb = 0.5;
  double ka = 0.8, kb = -0.3;
  double m = 2.0, n = 5.0;
  double theta = 1.0;
  double c = 100.0;
  int d = 8;
  double base = 10000.0;
};

/// (M13), κ = 8.
inline double m13(int d, double angles, double scale) { return 8.0 * kEps * (d + angles) * scale; }

/// R(φ)(x, y) = (x cos φ − y sin φ, x sin φ + y cos φ)   (M3)
inline std::pair<double, double> turn(double phi, double x, double y) {
  return {x * std::cos(phi) - y * std::sin(phi), x * std::sin(phi) + y * std::cos(phi)};
}

inline void expect_walkthrough(const std::string& out, const Inputs& in) {
  const double norm_q = std::hypot(in.qa, in.qb);
  const double norm_k = std::hypot(in.ka, in.kb);
  const double pm = in.m * in.theta;
  const double pn = in.n * in.theta;
  const double phi = (in.n - in.m) * in.theta;
  const auto [qr0, qr1] = turn(pm, in.qa, in.qb);
  const auto [kr0, kr1] = turn(pn, in.ka, in.kb);
  const double score = qr0 * kr0 + qr1 * kr1;

  const std::vector<std::string> header = lines_of(out);
  ASSERT_GE(header.size(), 3u);
  expect_line(header[1], {in.qa, in.qb, in.m, in.ka, in.kb, in.n});
  // "θ = T rad per position in steps 1–6 (where θ comes from); step 7: d = D, base = B"
  const std::vector<double> line2 = numbers(header[2]);
  ASSERT_GE(line2.size(), 4u);
  EXPECT_EQ(line2.front(), in.theta);
  EXPECT_EQ(line2[line2.size() - 2], in.d);
  EXPECT_EQ(line2.back(), in.base);

  {
    SCOPED_TRACE("step 1");
    const std::vector<std::string> s = step_lines(out, "Step 1:");
    ASSERT_EQ(s.size(), 8u);
    const double arg_q = std::atan2(in.qb, in.qa);
    const double arg_k = std::atan2(in.kb, in.ka);
    expect_line(s[3], {in.qa, in.qb, in.qa, in.qb, norm_q, arg_q});
    expect_line(s[4], {in.ka, in.kb, in.ka, in.kb, norm_k, arg_k});
    expect_line(s[6], {in.qa, in.qb}, m13(2, std::abs(arg_q), norm_q));
    expect_line(s[7], {in.ka, in.kb}, m13(2, std::abs(arg_k), norm_k));
  }
  {
    SCOPED_TRACE("step 2");
    const std::vector<std::string> s = step_lines(out, "Step 2:");
    ASSERT_EQ(s.size(), 8u);
    for (const auto& [at, angle] : {std::pair{2, pm}, std::pair{5, pn}}) {
      const Complex e = std::exp(Complex(0, angle));  // e^{iφ} by std::complex
      expect_line(s[at], {angle});
      expect_line(s[at + 1], {e.real(), e.imag()});
      expect_line(s[at + 2], {std::cos(angle), std::sin(angle)}, m13(2, 2 * std::abs(angle), 1.0));
    }
  }
  {
    SCOPED_TRACE("step 3");
    const std::vector<std::string> s = step_lines(out, "Step 3:");
    ASSERT_EQ(s.size(), 10u);
    const struct {
      std::size_t at;
      double angle, a, b;
    } rows[] = {{2, pm, in.qa, in.qb}, {6, pn, in.ka, in.kb}};
    for (const auto& r : rows) {
      const auto [x, y] = turn(r.angle, r.a, r.b);
      const double c = std::cos(r.angle);
      const double sn = std::sin(r.angle);
      expect_line(s[r.at], {r.angle});
      // (a + ib)(cos φ + i sin φ), multiplied out
      expect_line(s[r.at + 1], {r.a, r.b, c, sn, r.a * c - r.b * sn, r.a * sn + r.b * c});
      expect_line(s[r.at + 2], {c, -sn, x, y});
      expect_line(s[r.at + 3], {sn, c}, m13(2, 2 * std::abs(r.angle), std::hypot(r.a, r.b)));
    }
  }
  {
    SCOPED_TRACE("step 4");
    const std::vector<std::string> s = step_lines(out, "Step 4:");
    ASSERT_EQ(s.size(), 9u);
    expect_line(s[1], {-pm, pn, phi});
    // R(−Mθ) = [[cos Mθ, sin Mθ], [−sin Mθ, cos Mθ]] beside R(Nθ)
    expect_line(s[3], {std::cos(pm), std::sin(pm), std::cos(pn), -std::sin(pn)});
    expect_line(s[4], {-std::sin(pm), std::cos(pm), std::sin(pn), std::cos(pn)});
    expect_line(s[6], {std::cos(phi), -std::sin(phi), std::cos(phi), -std::sin(phi)});
    expect_line(s[7], {std::sin(phi), std::cos(phi), std::sin(phi), std::cos(phi)});
    expect_line(s[8], {}, m13(2, std::abs(pm) + std::abs(pn) + std::abs(phi), 1.0));
  }
  {
    SCOPED_TRACE("step 5");
    const std::vector<std::string> s = step_lines(out, "Step 5:");
    ASSERT_EQ(s.size(), 11u);
    const double angles = std::abs(pm) + std::abs(pn) + std::abs(phi);
    const double tol = m13(2, angles, norm_q * norm_k);
    const double dot = in.qa * in.ka + in.qb * in.kb;
    const double cross = in.qb * in.ka - in.qa * in.kb;
    expect_line(s[3], {qr0, qr1, kr0, kr1, score});
    const double between =
        std::remainder(std::atan2(in.kb, in.ka) + pn - std::atan2(in.qb, in.qa) - pm, 2 * 3.141592653589793);
    expect_line(s[4], {between, 2});  // "≡ X rad (mod 2π)"
    const Complex qk = Complex(in.qa, in.qb) * std::conj(Complex(in.ka, in.kb));
    const Complex phase = std::exp(Complex(0, -phi));
    expect_line(s[5], {qk.real(), qk.imag(), phase.real(), phase.imag(), (qk * phase).real()}, tol);
    EXPECT_NEAR((qk * phase).real(), score, tol);
    const auto [rk0, rk1] = turn(phi, in.ka, in.kb);
    expect_line(s[6], {in.qa, in.qb, rk0, rk1, dot * std::cos(phi) + cross * std::sin(phi)}, tol);
    expect_line(s[7], {dot * std::cos(phi) - cross * std::sin(phi)});  // the sign slip, R((M−N)θ)
    // R_mᵀ instead of R_m: q turned by −Mθ, k by −Nθ; their score is the slip's.
    const auto [qt0, qt1] = turn(-pm, in.qa, in.qb);
    const auto [kt0, kt1] = turn(-pn, in.ka, in.kb);
    expect_line(s[10], {qt0, qt1, kt0, kt1, dot * std::cos(phi) - cross * std::sin(phi)}, tol);
  }
  {
    SCOPED_TRACE("step 6");
    const std::vector<std::string> s = step_lines(out, "Step 6:");
    ASSERT_EQ(s.size(), 6u);
    const double a = (in.m + in.c) * in.theta;
    const double b = (in.n + in.c) * in.theta;
    const auto [q0, q1] = turn(a, in.qa, in.qb);
    const auto [k0, k1] = turn(b, in.ka, in.kb);
    expect_line(s[0], {6, in.c});
    expect_line(s[1], {in.m + in.c, in.n + in.c, in.n - in.m});
    expect_line(s[2], {q0, q1, k0, k1});
    expect_line(s[3], {q0 * k0 + q1 * k1});
    expect_line(s[4], {score}, m13(2, std::abs(a) + std::abs(b) + std::abs(pm) + std::abs(pn), norm_q * norm_k));
    const double between = std::remainder(std::atan2(k1, k0) - std::atan2(q1, q0), 2 * 3.141592653589793);
    expect_line(s[5], {in.c * in.theta, between});
  }
  {
    SCOPED_TRACE("step 7");
    const std::vector<std::string> s = step_lines(out, "Step 7:");
    const int pairs = in.d / 2;
    std::vector<double> theta(static_cast<std::size_t>(pairs));
    int same = -1;
    for (int i = 0; i < pairs; ++i) {
      theta[static_cast<std::size_t>(i)] = std::pow(in.base, -2.0 * i / in.d);  // (M1)
      if (same < 0 && std::abs(theta[static_cast<std::size_t>(i)] - in.theta) <= 2 * kEps * in.theta) same = i;
    }
    const std::size_t note = same >= 0 ? 1 : 0;
    ASSERT_EQ(s.size(), 3 + static_cast<std::size_t>(pairs) + note + 1 + static_cast<std::size_t>(in.d) + 3 +
                            static_cast<std::size_t>(in.d) + 1);
    expect_line(s[0], {7, 2, static_cast<double>(in.d), 2, static_cast<double>(pairs)});
    expect_line(s[1], {in.base, in.m});
    for (int i = 0; i < pairs; ++i) {
      SCOPED_TRACE(fmt::format("pair {}", i));
      const std::vector<double> got = numbers(s[3 + static_cast<std::size_t>(i)]);
      ASSERT_EQ(got.size(), 5u);
      EXPECT_EQ(got[0], i);
      EXPECT_EQ(got[1], 2 * i);
      EXPECT_EQ(got[2], 2 * i + 1);
      EXPECT_NEAR(got[3], theta[static_cast<std::size_t>(i)],
                  5.000001e-6 * theta[static_cast<std::size_t>(i)]);  // 6 digits
      EXPECT_NEAR(got[4], in.m * theta[static_cast<std::size_t>(i)], kPrinted);
    }
    std::size_t at = 3 + static_cast<std::size_t>(pairs);
    if (same >= 0) expect_line(s[at++], {static_cast<double>(same), 1, 3});
    expect_line(s[at++], {2});  // "one 2×2 block per pair"
    std::vector<double> q(static_cast<std::size_t>(in.d)), rot(q.size()), cs(q.size()), sn(q.size()), y(q.size());
    for (int r = 0; r < in.d; ++r) {
      const int i = r / 2;
      const double angle = in.m * theta[static_cast<std::size_t>(i)];
      std::vector<double> row(static_cast<std::size_t>(in.d), 0.0);
      row[static_cast<std::size_t>(2 * i)] = r % 2 == 0 ? std::cos(angle) : std::sin(angle);
      row[static_cast<std::size_t>(2 * i + 1)] = r % 2 == 0 ? -std::sin(angle) : std::cos(angle);
      expect_line(s[at++], row);
      const auto u = static_cast<std::size_t>(r);
      q[u] = r % 2 == 0 ? in.qa : in.qb;
      rot[u] = r % 2 == 0 ? -in.qb : in.qa;
      cs[u] = std::cos(angle);
      sn[u] = std::sin(angle);
      const auto [y0, y1] = turn(angle, in.qa, in.qb);
      y[u] = r % 2 == 0 ? y0 : y1;
    }
    expect_line(s[at++], {});
    expect_line(s[at++], {2});  // "all d/2 pairs"
    expect_line(s[at++], {});
    for (int r = 0; r < in.d; ++r) {
      const auto u = static_cast<std::size_t>(r);
      expect_line(s[at++], {static_cast<double>(r), q[u], cs[u], rot[u], sn[u], y[u], y[u]});
    }
    expect_line(s[at], {}, m13(in.d, std::abs(in.m), std::sqrt(pairs * (in.qa * in.qa + in.qb * in.qb))));
  }
  {
    SCOPED_TRACE("step 8");
    const std::vector<std::string> s = step_lines(out, "Step 8:");
    const int pairs = in.d / 2;
    const auto u = [](int i) { return static_cast<std::size_t>(i); };
    // Qwen3-VL's interleave (docs/multi-axis.md (A3)) of the sections [P − 2⌊P/3⌋, ⌊P/3⌋, ⌊P/3⌋]
    const int sh = pairs / 3, sw = pairs / 3, st = pairs - sh - sw;
    std::vector<int> axis(u(pairs));
    for (int j = 0; j < pairs; ++j) axis[u(j)] = j % 3 == 1 && j < 3 * sh ? 1 : j % 3 == 2 && j < 3 * sw ? 2 : 0;
    ASSERT_EQ(s.size(), 7 + u(pairs) + 3);
    expect_line(s[0], {8});
    expect_line(s[1], {7, static_cast<double>(pairs)});
    expect_line(s[2], {static_cast<double>(st), static_cast<double>(sh), static_cast<double>(sw)});
    expect_line(s[3], {});
    expect_line(s[4], {7}, m13(in.d, std::abs(in.m), std::sqrt(pairs * (in.qa * in.qa + in.qb * in.qb))));
    expect_line(s[5], {1, 2, in.m, 1, 2, in.n});  // one frame (1) and row (2), the columns M and N
    double score = 0, angles = 0;
    std::vector<double> differing;
    for (int i = 0; i < pairs; ++i) {
      SCOPED_TRACE(fmt::format("pair {}", i));
      const double theta = std::pow(in.base, -2.0 * i / in.d);                      // (M1)
      const double at[3][2] = {{1, 1}, {2, 2}, {in.m, in.n}};                       // (t, h, w) of q and of k
      const double pq = at[axis[u(i)]][0] * theta, pk = at[axis[u(i)]][1] * theta;  // (A1)
      const std::vector<double> got = numbers(s[7 + u(i)]);
      ASSERT_EQ(got.size(), 4u);
      EXPECT_EQ(got[0], i);
      EXPECT_NEAR(got[1], theta, 5.000001e-6 * theta);
      EXPECT_NEAR(got[2], pq, kPrinted);
      EXPECT_NEAR(got[3], pk, kPrinted);
      EXPECT_EQ(s[7 + u(i)].find("←") != std::string::npos, pq != pk);
      EXPECT_THAT(s[7 + u(i)], HasSubstr(std::string("  ") + "thw"[axis[u(i)]] + "  "));
      if (pq != pk) differing.push_back(i);
      const auto [q0, q1] = turn(pq, in.qa, in.qb);
      const auto [k0, k1] = turn(pk, in.ka, in.kb);
      score += q0 * k0 + q1 * k1;
      angles += std::abs(pq) + std::abs(pk) + std::abs(pk - pq);
    }
    std::size_t at = 7 + u(pairs);
    if (differing.empty()) {
      expect_line(s[at++], {static_cast<double>(in.d)});  // "at d = D no pair reads w"
    } else {
      differing.insert(differing.end(), {0, 0});  // "only the w pairs (…) …, p' − p = (0, 0, N − M)"
      expect_line(s[at++], differing);
    }
    expect_line(s[at++], {score});
    expect_line(s[at], {score}, m13(in.d, angles, pairs * norm_q * norm_k));
  }
}

inline std::vector<std::string> args_of(const Inputs& in) {
  return {"explain",
          "--q",
          fmt::format("{},{}", in.qa, in.qb),
          "--k",
          fmt::format("{},{}", in.ka, in.kb),
          "--position",
          fmt::format("{}", in.m),
          "--position",
          fmt::format("{}", in.n),
          "--theta",
          fmt::format("{}", in.theta),
          "--shift",
          fmt::format("{}", in.c),
          "--dim",
          std::to_string(in.d),
          "--base",
          fmt::format("{}", in.base)};
}

}  // namespace rope::test::explain_reference
