// FNV-1a, 64 bits: a stable hash of bytes (the same on every machine and build, unlike
// std::hash), for what must agree across processes: a stream's shard, a template's identity
// in the state file. Not a defence against a chosen collision.
#pragma once

#include <cstdint>
#include <string_view>

namespace fp {

constexpr std::uint64_t fnv1a64(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

}  // namespace fp
