#include <cmath>
#include <fmt/format.h>
#include <utility>

#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/models/scaling/scaling.hpp"
#include "rope/models/scaling/scaling_detail.hpp"

// LongRoPE (Ding et al., arXiv:2402.13753) as HF's _compute_longrope_parameters computes it:
// docs/scaling.md §5, (S12), (S13).

namespace rope::detail {

namespace {

void check_factor_list(const std::vector<double>& list, std::string_view name, int d) {
  if (list.empty()) throw InvalidArgument(error_msg("longrope needs {0}", name));
  if (list.size() != static_cast<std::size_t>(d / 2)) {
    throw InvalidArgument(error_msg("longrope {0} must have d/2 = {1} numbers (got {2})", name, d / 2, list.size()));
  }
  for (std::size_t j = 0; j < list.size(); ++j) check_positive(list[j], fmt::format("longrope {}[{}]", name, j));
}
}  // namespace

/// (S13) for a given f.
std::pair<double, Message> longrope_attention(const RopeConfig& c, double f, long L0) {
  if (c.attention_factor) return {*c.attention_factor, kExplicitAttention};
  if (f <= 1.0) return {1.0, Message::same("1 (f <= 1)")};
  if (L0 < 2) {
    throw InvalidArgument(error_msg(
        "longrope's attention factor sqrt(1 + ln f / ln L0) needs original_max_position_embeddings >= 2 (got {0})",
        L0));
  }
  return {std::sqrt(1.0 + std::log(f) / std::log(static_cast<double>(L0))), Message::same("sqrt(1 + ln f / ln L0)")};
}

void longrope(const RopeConfig& c, const Common& k, RopeParameters& p) {
  warn_unused(c, p);
  check_factor_list(c.short_factor, "short_factor", k.d);
  check_factor_list(c.long_factor, "long_factor", k.d);
  const long L0 = original_context(c);
  const double f = factor_or_ratio(c, L0, p);
  check_factor(f, p);
  p.factor = f;
  p.original_max_position = L0;

  // (S12): HF picks the list per forward pass from the current length.
  const bool use_long = c.seq_len && *c.seq_len > L0;
  const std::vector<double>& ext = use_long ? c.long_factor : c.short_factor;
  p.notes.push_back(
      use_long    ? Message::same(fmt::format("long_factor (seq_len {} > L0 {})", *c.seq_len, L0))
      : c.seq_len ? Message::same(fmt::format("short_factor (seq_len {} <= L0 {})", *c.seq_len, L0))
                  : Message{msg("short_factor (no seq_len; HF switches to long_factor once a sequence exceeds L0)")});
  const Eigen::VectorXd theta = frequencies(k.d, k.base);
  p.inv_freq.resize(theta.size());
  for (Eigen::Index j = 0; j < theta.size(); ++j) p.inv_freq[j] = theta[j] / ext[static_cast<std::size_t>(j)];

  if (c.attention_factor) {
    check_finite(*c.attention_factor, "longrope attention_factor");
    if (*c.attention_factor < 0.0) {
      p.warnings.push_back(
          {msg("attention_factor {0} < 0 (HF warns: must be greater than 0); harmless for the scores "
               "(q and k both change sign, q·k carries a² > 0), not for the rotated vectors",
               *c.attention_factor)});
    }
  }
  auto [a, rule] = longrope_attention(c, f, L0);
  p.attention_factor = a;
  p.attention_rule = std::move(rule);
}

}  // namespace rope::detail
