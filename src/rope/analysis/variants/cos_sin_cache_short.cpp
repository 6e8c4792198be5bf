// cos-sin-cache-short: a cos/sin cache built too short.
// a cos/sin cache of `length` positions, clamped (or wrapped) beyond: found "length"
// Corpus rows (tests/cli/corpus_answers.json) that it matches: buggy_kernels/cache_short,
// buggy_kernels/cache_wrapped.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("cos-sin-cache-short",
  R"md(`matches a cos/sin cache of 8192 positions clamped to its last row: correct below position 8192` (or `read at p mod 8192`))md",
  R"md(positions ≥ L turned as L − 1 (or as p mod L), L in `found.length` (tried at the first failing position and the power of two and multiple of 1024 just below it))md",
  R"md(a cos/sin cache built for a shorter length and reused, its index clamped or wrapped; wrapped from position 0 it is the positions restarting at L (that row); `rope identify` says where the positions stop (`held_from` L, `held_position` L − 1: "the positions stop at index 512") or restart (the wrap) and fits the frequencies on the dump's own positions)md")
// clang-format on
#else
namespace rope::variants::cos_sin_cache_short {

Message cache_says(S c) {
  const auto L = static_cast<long>(found_value(c));
  const bool wraps = c.diagnosis.found.size() > 1 && found_value(c, 1) != 0;
  return wraps ? msg("matches a cos/sin cache of {0} positions read at p mod {1}: correct below position {2}, wrong "
                     "from it (the cache built for a shorter length and reused)",
                     L, L, L)
               : msg("matches a cos/sin cache of {0} positions clamped to its last row: correct below position {1}, "
                     "every later position turned as {2} (the cache built for a shorter length)",
                     L, L, L - 1);
}

/// The largest power of two and multiple of 1024 in (low, high], and high itself: the lengths a cos/sin cache
/// built too short may have when the dump is right at `low` and wrong from `high` on.
std::vector<long> cache_lengths(double low, double high) {
  std::vector<long> out{static_cast<long>(high)};
  const auto keep = [&](long L) {
    if (L > low && L <= high && std::find(out.begin(), out.end(), L) == out.end()) out.push_back(L);
  };
  long pow2 = 1;
  while (pow2 * 2 <= high) pow2 *= 2;
  keep(pow2);
  keep(static_cast<long>(std::floor(high / 1024)) * 1024);
  return out;
}

/// A cos/sin cache too short: the dump right up to its first failing index, a whole position ≥ 2 there.
bool cache_applies(F f) {
  if (!dump_shown(f) || f.dump->first_failing <= 0 || multi_positions(f)) return false;
  const auto k = static_cast<std::size_t>(f.dump->first_failing);
  const double high = f.dump->positions[k][0], low = f.dump->positions[k - 1][0];
  return high > low && high >= 2 && high == std::floor(high);
}

void cache_build(F f, Out out) {
  const auto k = static_cast<std::size_t>(f.dump->first_failing);
  for (const long L : cache_lengths(f.dump->positions[k - 1][0], f.dump->positions[k][0])) {
    for (const bool wraps : {false, true}) {
      Variant& v = put(out, f.expected);
      v.cache_length = L, v.cache_wraps = wraps;
      v.found = {{"length", static_cast<double>(L)}, {"wraps", wraps ? 1.0 : 0.0}};
    }
  }
}

VariantRow row() {
  VariantRow r;
  r.name = "cos-sin-cache-short";
  r.detection = VariantDetection::FromDump;
  r.parameters = "length,wraps";
  r.changes = [](E) { return msg("a cos/sin cache built too short"); };
  r.says = cache_says;
  r.from_dump = {cache_applies, cache_build};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::cos_sin_cache_short
#endif
