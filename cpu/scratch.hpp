// Scratch that a CPU operation keeps between frames (in its op object), so that a warm op
// allocates nothing: buffers that only grow, and per-worker parts of whole cache lines.
#pragma once

#include <cstddef>
#include <vector>

namespace fp::cpu {

// Grows `buffer` to at least `size` elements and returns its start. It never shrinks: a
// smaller frame reuses what a larger one sized (and is zero-filled only when it first grows).
template <class T>
T* at_least(std::vector<T>& buffer, std::size_t size) {
  if (buffer.size() < size) buffer.resize(size);
  return buffer.data();
}

// `count` elements of T rounded up to whole cache lines: the stride of one worker's part of
// a shared buffer, so that no two workers write to one line.
template <class T>
constexpr std::size_t whole_cache_lines(std::size_t count) {
  constexpr std::size_t kPerLine = 64 / sizeof(T);
  return (count + kPerLine - 1) / kPerLine * kPerLine;
}

}  // namespace fp::cpu
