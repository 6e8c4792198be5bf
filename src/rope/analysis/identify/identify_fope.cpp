// FoPE's signature in a dump pair (identify.hpp, docs/multi-axis.md §7 (F1)–(F4)), from the dumps alone: pair j =
// (j, j + d/2) of every vector is z ↦ ζ·z (z = x_j + i·x_(j+d/2), ζ = cos′ + i·sin′, rotate_half's form (F4)); the
// pairs K … d/2 − 1 are padded, ζ = 1 (vLLM's fope.py @ 151a2c744a: they pass through) or ζ = 1 + i = √2·R(π/4) (sin
// padded with 1 as well: vLLM @ c215d1e62d, SGLang, the model's remote code); the kept pairs' ζ are sums over the
// kept frequencies weighted by learned coefficients (F2), so |ζ| is not 1 and varies with the position and the head,
// and the query heads of one key-value head share them (F4). The coefficients themselves are not measured: a few
// positions cannot determine K × K numbers per head; rope check --coefficients compares the dump with them.
#include <algorithm>
#include <cmath>
#include <complex>
#include <optional>

#include "rope/analysis/check/check.hpp"
#include "rope/analysis/identify/identify.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/dtype.hpp"

namespace rope {
namespace {

enum class FopePairKind { Passed, SinOne, Changed };

/// Whether every block of `size` consecutive heads (per batch row) turns pair j of every sequence index by one ζ, for
/// the pairs j < kept: the least-squares ζ of the block leaves at most the dump's rounding (tol relative).
bool fope_heads_share(const DumpVectors& before, const DumpVectors& after, int kept, long size, double tol) {
  const long heads = before.heads, n = before.d / 2;
  for (long s = 0; s < before.seq; ++s) {
    for (long b = 0; b < before.batch; ++b) {
      for (long first = 0; first < heads; first += size) {
        for (long j = 0; j < kept; ++j) {
          std::complex<double> num = 0;
          double den = 0;
          for (long h = first; h < first + size; ++h) {
            const double* x = before.vector(s, b * heads + h);
            const double* y = after.vector(s, b * heads + h);
            const std::complex<double> zx(x[j], x[j + n]), zy(y[j], y[j + n]);
            num += std::conj(zx) * zy, den += std::norm(zx);
          }
          if (!(den > 0)) continue;
          const std::complex<double> zeta = num / den;
          double rss = 0, ref = 0;
          for (long h = first; h < first + size; ++h) {
            const double* x = before.vector(s, b * heads + h);
            const double* y = after.vector(s, b * heads + h);
            const std::complex<double> zx(x[j], x[j + n]), zy(y[j], y[j + n]);
            rss += std::norm(zy - zeta * zx), ref += std::norm(zy) + std::norm(zeta) * std::norm(zx);
          }
          if (rss > tol * tol * ref) return false;
        }
      }
    }
  }
  return true;
}

}  // namespace

std::optional<Identification> detail::identify_fope(const DumpVectors& before, const DumpVectors& after) {
  const int d = before.d, n = d / 2;
  if (d < 4 || d % 2 != 0 || before.seq < 1) return std::nullopt;
  DType dtype = epsilon(after.dtype) > epsilon(before.dtype) ? after.dtype : before.dtype;
  // A bf16 model's tensors saved with .float(): their rounding is bf16's, as identify_with reads them.
  const bool bf16_saved = dtype == DType::F32 && !before.dtype_stated && !after.dtype_stated &&
                          looks_like_bf16(before) && looks_like_bf16(after);
  if (bf16_saved) dtype = DType::BF16;
  const double eps = kToleranceSafety * epsilon(dtype);
  const long groups = before.groups();
  // Each pair's kind over every vector: passed through, turned into √2·R(π/4), or changed otherwise.
  std::vector<FopePairKind> kind(static_cast<std::size_t>(n), FopePairKind::Passed);
  std::vector<char> one(static_cast<std::size_t>(n), 1);
  const auto read_pair = [&](const double* x, const double* y, int j) {
    const std::complex<double> zx(x[j], x[j + n]), zy(y[j], y[j + n]);
    const double scale = eps * (std::abs(zx) * std::sqrt(2.0) + std::abs(zy)) + 1e-300;
    if (std::abs(zy - zx) > scale) kind[static_cast<std::size_t>(j)] = FopePairKind::Changed;
    if (std::abs(zy - std::complex<double>(1, 1) * zx) > scale) one[static_cast<std::size_t>(j)] = 0;
  };
  // The last pair first: FoPE pads it, so a dump that changes it otherwise (RoPE's, at a position other than 0) is
  // not FoPE's, whatever the other pairs do.
  for (long s = 0; s < before.seq; ++s) {
    for (long g = 0; g < groups; ++g) read_pair(before.vector(s, g), after.vector(s, g), n - 1);
  }
  if (kind.back() == FopePairKind::Changed && !one.back()) return std::nullopt;
  // Each channel on its own: whether it ever changes (as identify_with reads the rotated channels).
  std::vector<char> moved(static_cast<std::size_t>(d), 0);
  for (long s = 0; s < before.seq; ++s) {
    for (long g = 0; g < groups; ++g) {
      const double* x = before.vector(s, g);
      const double* y = after.vector(s, g);
      for (int j = 0; j < n - 1; ++j) read_pair(x, y, j);
      for (int c = 0; c < d; ++c) {
        if (std::abs(y[c] - x[c]) > eps * std::max(std::abs(x[c]), std::abs(y[c])))
          moved[static_cast<std::size_t>(c)] = 1;
      }
    }
  }
  for (int j = 0; j < n; ++j) {
    if (kind[static_cast<std::size_t>(j)] == FopePairKind::Changed && one[static_cast<std::size_t>(j)])
      kind[static_cast<std::size_t>(j)] = FopePairKind::SinOne;
  }
  // The padded pairs: the tail of one kind, passed through or √2·R(π/4); every pair before it changed otherwise.
  const FopePairKind padding = kind.back();
  if (padding == FopePairKind::Changed) return std::nullopt;
  int kept = n;
  while (kept > 0 && kind[static_cast<std::size_t>(kept - 1)] == padding) --kept;
  if (kept < 1) return std::nullopt;
  for (int j = 0; j < kept; ++j) {
    if (kind[static_cast<std::size_t>(j)] != FopePairKind::Changed) return std::nullopt;
  }
  // FoPE's ζ·z moves both channels of a kept pair. Partial rotary (HF GPT-NeoX, Phi, StableLM; ggml's NEOX with
  // n_dims < head_dim) turns pairs (j, j + r/2) of the first r channels and passes the rest through: read as pairs
  // (j, j + d/2), its "kept" pairs are those of the first r channels, each with a partner that never moves.
  for (int j = 0; j < kept; ++j) {
    if (!moved[static_cast<std::size_t>(j)] || !moved[static_cast<std::size_t>(j + n)]) return std::nullopt;
  }
  // The kept pairs' norms |ζ| = |z_after| / |z_before|: not 1, and not one number (RoPE's attention factor).
  Identification::Fope f;
  f.kept = kept, f.padded = n - kept, f.sin_padded_one = padding == FopePairKind::SinOne;
  f.norm_min = INFINITY, f.norm_max = 0;
  double sx = 0, sy = 0, turned = 0, magnitude = 0;
  for (long s = 0; s < before.seq; ++s) {
    for (long g = 0; g < groups; ++g) {
      const double* x = before.vector(s, g);
      const double* y = after.vector(s, g);
      for (int j = 0; j < kept; ++j) {
        const double nx = std::hypot(x[j], x[j + n]), ny = std::hypot(y[j], y[j + n]);
        const std::complex<double> zx(x[j], x[j + n]), zy(y[j], y[j + n]);
        turned += std::abs(std::imag(std::conj(zx) * zy)), magnitude += nx * ny;
        sx += nx * nx, sy += ny * ny;
        if (nx > 1e-6) f.norm_min = std::min(f.norm_min, ny / nx), f.norm_max = std::max(f.norm_max, ny / nx);
      }
    }
  }
  if (!(f.norm_max > 0) || f.norm_max / f.norm_min - 1 < std::max(1e-2, 10 * eps)) return std::nullopt;
  // Every ζ real (each channel its input times one number, x·cos with the sin term dropped): no pair is turned, which
  // FoPE's sums of cos′ and sin′ do.
  if (turned <= 4 * eps * magnitude) return std::nullopt;
  // GQA: the largest block of consecutive heads that shares every ζ.
  f.group_heads = 1;
  for (long size = before.heads; size >= 2; --size) {
    if (before.heads % size == 0 && fope_heads_share(before, after, kept, size, 4 * eps)) {
      f.group_heads = size;
      break;
    }
  }
  f.kv_heads = before.heads / f.group_heads;

  Identification id;
  id.d = d;
  for (int c = 0; c < d; ++c) {
    if (c % n < kept || f.sin_padded_one) id.rotated.push_back(c);
  }
  id.rotary_dim = static_cast<int>(id.rotated.size());
  for (int j = 0; j < n; ++j) id.pairs.emplace_back(j, j + n);
  id.layout = PairLayout::Half;
  id.family_dim = d;
  id.attention_factor = sx > 0 ? std::sqrt(sy / sx) : 1.0;
  id.norm_residual = std::max(std::abs(f.norm_max - 1), std::abs(1 - f.norm_min));
  if (bf16_saved)
    id.notes.push_back({msg("every value is a bf16 number saved as float32: identified with bf16's rounding")});
  if (f.sin_padded_one) {  // check's fope-sin-padded-one, in its words
    id.notes.push_back(
        msg("matches FoPE with its {0} padded pairs (pairs {1} … {2}) padded with sin 1 as well as cos 1, so that "
            "each is √2·R(π/4) (x_a − x_b, x_b + x_a) where vLLM's fope.py @ 151a2c744a pads sin with 0 and lets "
            "them pass through: vLLM @ c215d1e62d, SGLang's FourierRotaryEmbedding and the model's own "
            "modeling_interns1_pro.py pad sin with 1 (docs/multi-axis.md (F3))",
            f.padded, kept, n - 1));
  }
  id.notes.push_back(
      msg("FoPE keeps the pairs whose θ_i = b^(−2i/{0}) exceeds 2π / max_position_embeddings (F1): {1} kept pairs "
          "mean 2π·b^({2}/{0}) < max_position_embeddings ≤ 2π·b^({3}/{0}) for the model's base b, or num_inv_freq "
          "{1} ({4} names the model's K)",
          d, kept, 2 * kept - 2, 2 * kept, option_name("inspect.config")));
  id.notes.push_back(
      msg("FoPE's coefficients (cos_coef and sin_coef, [key-value heads, K, K], checkpoint weights) are not measured "
          "from a dump: {0} FILE compares it with them",
          option_name("check.coefficients")));
  id.fope = f;
  return id;
}

}  // namespace rope
