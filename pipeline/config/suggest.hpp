// "Did you mean" for misspelt keys, parameters, stage types and ids.
#pragma once
#if !defined(FRAMEPIPE_ROOM_CONFIG)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/config/suggest.hpp is private to pipeline/config/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include <cstddef>
#include <string>
#include <vector>

namespace fp {

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of
// two neighbouring characters each cost 1 (so "stagse" is 1 away from "stages").
std::size_t edit_distance(const std::string& a, const std::string& b);

// The candidate closest to `word` when it is close enough to be a likely typo, else "".
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

// "; did you mean 'x'?" for a close candidate, else ` (expected: a, b, c)` listing them
// (or "" when there are none): the text that follows an "unknown ..." message.
std::string suggestion_suffix(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace fp
