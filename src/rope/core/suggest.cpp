#include "rope/core/suggest.hpp"

#include <algorithm>
#include <limits>

namespace rope {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1, 0));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[n][m];
}

namespace {

std::string letters(std::string_view word) {
  std::string out;
  for (const char c : word) {
    if (c != '-' && c != '_' && c != '.') out += c;
  }
  return out;
}

}  // namespace

std::string closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  if (word.empty()) return {};
  const std::size_t allowed = word.size() <= 4 ? 1 : word.size() <= 8 ? 2 : 3;
  std::size_t best = std::numeric_limits<std::size_t>::max();
  std::string found;
  for (const std::string& candidate : candidates) {
    if (candidate == word) return {};
    const std::size_t d = letters(candidate) == letters(word) ? 0 : edit_distance(word, candidate);
    if (d <= allowed && d < best) {
      best = d;
      found = candidate;
    }
  }
  return found;
}

}  // namespace rope
