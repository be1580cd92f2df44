#include "pipeline/config/suggest.hpp"

#include <algorithm>

namespace fp {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  // Full table rather than two rows: the swap rule looks two rows back, and keys are short.
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = 0;
  for (const auto& candidate : candidates) {
    const std::size_t distance = edit_distance(word, candidate);
    // Two edits catch most typos; requiring fewer edits than the longer word has
    // characters keeps "x" from being "corrected" to the unrelated one-letter "h".
    if (distance > 2 || distance >= std::max(word.size(), candidate.size())) continue;
    if (best.empty() || distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string suggestion_suffix(const std::string& word, const std::vector<std::string>& candidates) {
  if (const auto match = closest_match(word, candidates); !match.empty()) return "; did you mean '" + match + "'?";
  if (candidates.empty()) return "";
  std::string list;
  for (const auto& candidate : candidates) list += (list.empty() ? "" : ", ") + candidate;
  return " (expected: " + list + ")";
}

}  // namespace fp
